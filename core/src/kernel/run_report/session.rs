//! A kernel without kgkit's runner (KG §2, collect: "Kaggle's status is the outcome ... the session's hours
//! are accounted"), read from what Kaggle gives for any kernel:
//!
//! - the text of `kaggle kernels status <owner>/<slug>` (formats.md §7.1): a line
//!   `<kernel> has status "<STATUS>"`, STATUS either the kagglesdk enum (`KernelWorkerStatus.COMPLETE`,
//!   CLI >= 1.7) or the old raw string (`complete`, `cancelAcknowledged`, CLI <= 1.6), maybe followed by
//!   `Failure message: "<text>"`; a polling script's many lines (the last one wins) and prefixes are read;
//! - the kernel's log: the `<slug>.log` that `kaggle kernels output` writes (and `kaggle kernels logs`
//!   prints), a JSON list of `{stream_name, time, data}` records, one a line, `time` in seconds since the
//!   session started (kaggle-cli `kaggle_api_extended.py`: `kernels_output` writes `response.log`;
//!   `_iter_blob_lines` documents the record shape); JSON lines; or plain text (`kaggle kernels logs -f`
//!   prints only the data), which has no times.
//!
//! The log is read line by line, keeping only a bounded tail: memory does not grow with its length (a
//! JSON list written on one line is parsed whole).

use std::collections::VecDeque;

use serde::Serialize;
use serde_json::Value;

use super::read;
use crate::diagnose::watch_line::{DIAGNOSIS_MARKER, WatchDiagnosis};
use crate::request::RequestError;

/// What a status text was expected to be.
const EXPECTED_STATUS: &str = "the output of `kaggle kernels status <owner>/<slug>` (a line `<owner>/<slug> has status \"KernelWorkerStatus.COMPLETE\"`)";

/// What a log was expected to be.
pub(super) const EXPECTED_LOG: &str = "the kernel's log (the <slug>.log of `kaggle kernels output`: JSON records of stream_name, time and data; or plain text)";

/// The text a full disk writes (errno 28, ENOSPC).
const DISK_FULL: &str = "No space left on device";

/// What a GPU out-of-memory error writes: PyTorch's message and exception, the CUDA driver's error
/// (JAX, TensorFlow, CuPy).
const GPU_OOM: [&str; 3] = [
    "CUDA out of memory",
    "OutOfMemoryError",
    "CUDA_ERROR_OUT_OF_MEMORY",
];

/// What Kaggle's status says of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum KernelOutcome {
    /// Waiting for a session (a TPU job waits 10-24 h).
    Queued,
    Running,
    Complete,
    Error,
    /// A cancel was asked for and is not done yet.
    CancelRequested,
    /// Stopped: by the `-t` cap, by hand ("Stop session"), or when the quota ran out.
    Cancelled,
    /// A new version, not started yet.
    NewScript,
    /// A status kgadvise does not know.
    Unknown,
}

impl KernelOutcome {
    /// The outcome of a status token of either CLI generation, case-insensitively.
    pub fn of(status: &str) -> KernelOutcome {
        let token = status.trim();
        let token = match token.rsplit_once('.') {
            Some((prefix, rest)) if prefix.eq_ignore_ascii_case("KernelWorkerStatus") => rest,
            _ => token,
        };
        let key: String = token
            .chars()
            .filter(|c| *c != '_' && *c != '-')
            .map(|c| c.to_ascii_lowercase())
            .collect();
        match key.as_str() {
            "queued" => KernelOutcome::Queued,
            "running" => KernelOutcome::Running,
            "complete" | "completed" => KernelOutcome::Complete,
            "error" => KernelOutcome::Error,
            "cancelrequested" => KernelOutcome::CancelRequested,
            "cancelacknowledged" | "cancelled" | "canceled" => KernelOutcome::Cancelled,
            "newscript" => KernelOutcome::NewScript,
            _ => KernelOutcome::Unknown,
        }
    }

    /// The outcome as the JSON says it.
    pub fn as_str(self) -> &'static str {
        match self {
            KernelOutcome::Queued => "queued",
            KernelOutcome::Running => "running",
            KernelOutcome::Complete => "complete",
            KernelOutcome::Error => "error",
            KernelOutcome::CancelRequested => "cancel-requested",
            KernelOutcome::Cancelled => "cancelled",
            KernelOutcome::NewScript => "new-script",
            KernelOutcome::Unknown => "unknown",
        }
    }

    /// The session has ended (its outputs and hours are final).
    pub fn ended(self) -> bool {
        matches!(
            self,
            KernelOutcome::Complete | KernelOutcome::Error | KernelOutcome::Cancelled
        )
    }
}

/// A kernel's session as its status and log tell it (`collect` without kg_run.json).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SessionSummary {
    /// The kernel as `kaggle kernels status` echoed it (`owner/slug`, or a bare slug).
    pub kernel: Option<String>,
    /// The status as Kaggle printed it (`KernelWorkerStatus.COMPLETE`, `cancelAcknowledged`); null when
    /// no status was given.
    pub status: Option<String>,
    /// What the status means; null when no status was given.
    pub outcome: Option<KernelOutcome>,
    /// Kaggle's `Failure message`, when it printed one.
    pub failure_message: Option<String>,
    /// Hours from the session's start to the log's last timed record; null when unknown (no log, or
    /// none of its records has a time).
    pub hours: Option<f64>,
    /// The push's `-t` cap in hours, when given.
    pub cap_hours: Option<f64>,
    /// Whether a log was given.
    pub log_given: bool,
    /// Records of the log: JSON records, or non-blank lines of plain text.
    pub log_records: usize,
    /// Records with a time.
    pub log_timed: usize,
    /// Lines that looked like a JSON record but could not be read (line numbers, the first 20); kept
    /// as plain text.
    pub log_unreadable_lines: Vec<usize>,
    /// The last lines of the log's text (stdout and stderr in the order written).
    pub log_tail: Vec<String>,
    /// The final diagnosis of `kgadvise watch`, when the kernel ran under it: its last
    /// `KGADVISE_DIAGNOSIS` line in the log; null without one.
    pub diagnosis: Option<WatchDiagnosis>,
    /// Why the log's last `KGADVISE_DIAGNOSIS` line cannot be read (its record and what was expected).
    pub diagnosis_error: Option<String>,
}

/// The session as read, with what the rules look for in the whole log.
#[derive(Debug, Clone)]
pub(super) struct Session {
    pub(super) summary: SessionSummary,
    /// The first log line that says the disk is full.
    pub(super) disk_full: Option<String>,
    /// The first log line that says the GPU ran out of memory.
    pub(super) gpu_oom: Option<String>,
}

/// The status line read from a `kaggle kernels status` text.
pub(crate) struct StatusLine {
    pub(crate) kernel: Option<String>,
    pub(crate) status: String,
    pub(crate) failure: Option<String>,
}

/// Reads the status text, the log and the cap. Errors name the `status` or `log` field.
pub(super) fn read_session(
    status: Option<&str>,
    log: Option<&str>,
    timeout_seconds: Option<u64>,
    tail_lines: usize,
) -> Result<Session, RequestError> {
    let status = status.map(read_status).transpose()?;
    let mut reader = LogReader::new(tail_lines);
    if let Some(text) = log {
        super::super::refuse_binary("log", text, EXPECTED_LOG)?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        reader.read(text);
        if !reader.unreadable.is_empty()
            && text.trim_start().starts_with('[')
            && let Ok(Value::Array(items)) = serde_json::from_str::<Value>(text)
        {
            // The whole list on one line (or pretty-printed): its items are the records.
            reader = LogReader::new(tail_lines);
            reader.read_items(&items);
        }
    }
    let LogReader {
        records,
        timed,
        max_time,
        unreadable,
        tail,
        disk_full,
        gpu_oom,
        diagnosis_line,
        ..
    } = reader;
    let (diagnosis, diagnosis_error) = diagnosis_of(diagnosis_line);
    let (kernel, status, failure) = match status {
        Some(s) => (s.kernel, Some(s.status), s.failure),
        None => (None, None, None),
    };
    Ok(Session {
        summary: SessionSummary {
            outcome: status.as_deref().map(KernelOutcome::of),
            kernel,
            status,
            failure_message: failure,
            hours: max_time.map(|s| s / 3600.0),
            cap_hours: timeout_seconds.map(|s| s as f64 / 3600.0),
            log_given: log.is_some(),
            log_records: records,
            log_timed: timed,
            log_unreadable_lines: unreadable,
            log_tail: tail.into_iter().collect(),
            diagnosis,
            diagnosis_error,
        },
        disk_full,
        gpu_oom,
    })
}

/// Hours from the session's start to the log's last timed record (what the session ran); `None` when
/// the log has no timed record or is not a log.
pub(crate) fn log_hours(log: &str) -> Option<f64> {
    read_session(None, Some(log), None, 0).ok()?.summary.hours
}

/// The diagnosis of the log's last `KGADVISE_DIAGNOSIS` line (its record number and text), or why it
/// cannot be read.
fn diagnosis_of(line: Option<(usize, String)>) -> (Option<WatchDiagnosis>, Option<String>) {
    let Some((record, text)) = line else {
        return (None, None);
    };
    match WatchDiagnosis::of_line(&text) {
        Some(Ok(d)) => (Some(d), None),
        Some(Err(e)) => (None, Some(format!("log record {record}: {e}"))),
        None => (None, None),
    }
}

/// The last `<kernel> has status "<STATUS>"` line of the text, and the failure message after it.
pub(crate) fn read_status(text: &str) -> Result<StatusLine, RequestError> {
    const MARK: &str = " has status \"";
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    super::super::refuse_binary("status", text, EXPECTED_STATUS)?;
    if text.trim().is_empty() {
        return Err(RequestError::new(
            "status",
            format!("the file is empty; expected {EXPECTED_STATUS}"),
        ));
    }
    let mut found: Option<StatusLine> = None;
    for line in text.lines() {
        if let Some(at) = line.find(MARK) {
            let rest = line.get(at + MARK.len()..).unwrap_or_default();
            let Some(end) = rest.find('"') else { continue };
            let kernel = line
                .get(..at)
                .unwrap_or_default()
                .split_whitespace()
                .last()
                .map(str::to_string);
            found = Some(StatusLine {
                kernel,
                status: rest.get(..end).unwrap_or_default().to_string(),
                failure: None,
            });
        } else if let (Some(s), Some(msg)) =
            (found.as_mut(), line.trim().strip_prefix("Failure message:"))
        {
            let msg = msg.trim();
            let msg = msg
                .strip_prefix('"')
                .and_then(|m| m.strip_suffix('"'))
                .unwrap_or(msg);
            s.failure = Some(msg.to_string());
        }
    }
    found.ok_or_else(|| {
        let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        // The line that says the HTTP error, not the first (often the shell's prompt and command).
        let http = text.lines().find(|l| {
            let lower = l.to_ascii_lowercase();
            ["server error", "client error", "for url:"]
                .iter()
                .any(|m| lower.contains(m))
        });
        let what = if let Some(line) = http {
            format!(
                "an HTTP error from the Kaggle API ({}): run it again",
                line.trim()
            )
        } else {
            format!(
                "no `<kernel> has status \"...\"` line (first line: {})",
                first.trim()
            )
        };
        RequestError::new("status", format!("{what}; expected {EXPECTED_STATUS}"))
    })
}

/// One line of a log: a JSON record, or text.
enum LogLine<'a> {
    Record(serde_json::Map<String, Value>),
    /// Looked like a record (`{...`) but is not valid JSON: kept as text.
    Broken(&'a str),
    Text(&'a str),
    /// Blank, or the list's own brackets.
    Nothing,
}

fn classify(line: &str) -> LogLine<'_> {
    let t = line.trim();
    let t = t.strip_prefix('[').unwrap_or(t).trim_start();
    let t = t.strip_prefix(',').unwrap_or(t).trim_start();
    let t = t.strip_suffix(']').unwrap_or(t).trim_end();
    let t = t.strip_suffix(',').unwrap_or(t).trim_end();
    if t.is_empty() {
        return LogLine::Nothing;
    }
    if !t.starts_with('{') {
        return LogLine::Text(line);
    }
    match serde_json::from_str::<Value>(t) {
        Ok(Value::Object(m)) if m.contains_key("data") || m.contains_key("stream_name") => {
            LogLine::Record(m)
        }
        Ok(_) => LogLine::Text(line),
        Err(_) => LogLine::Broken(line),
    }
}

/// How many unreadable line numbers a summary lists.
const UNREADABLE_LISTED: usize = 20;

/// The log read line by line: counts, the last time, a bounded tail of its text.
struct LogReader {
    tail_lines: usize,
    records: usize,
    timed: usize,
    max_time: Option<f64>,
    unreadable: Vec<usize>,
    tail: VecDeque<String>,
    disk_full: Option<String>,
    gpu_oom: Option<String>,
    /// The last line holding `KGADVISE_DIAGNOSIS`, with the number of its record.
    diagnosis_line: Option<(usize, String)>,
}

impl LogReader {
    fn new(tail_lines: usize) -> LogReader {
        LogReader {
            tail_lines: tail_lines.max(1),
            records: 0,
            timed: 0,
            max_time: None,
            unreadable: Vec::new(),
            tail: VecDeque::new(),
            disk_full: None,
            gpu_oom: None,
            diagnosis_line: None,
        }
    }

    fn read(&mut self, text: &str) {
        for (i, line) in text.lines().enumerate() {
            match classify(line) {
                LogLine::Record(record) => self.record(&record),
                LogLine::Broken(line) => {
                    if self.unreadable.len() < UNREADABLE_LISTED {
                        self.unreadable.push(i + 1);
                    }
                    self.records += 1;
                    self.text(line);
                }
                LogLine::Text(line) => {
                    self.records += 1;
                    self.text(line);
                }
                LogLine::Nothing => {}
            }
        }
    }

    fn read_items(&mut self, items: &[Value]) {
        for item in items {
            match item {
                Value::Object(record) => self.record(record),
                Value::String(line) => {
                    self.records += 1;
                    for line in line.lines() {
                        self.text(line);
                    }
                }
                _ => {}
            }
        }
    }

    fn record(&mut self, record: &serde_json::Map<String, Value>) {
        self.records += 1;
        if let Some(t) = read::num(record.get("time")).filter(|t| *t >= 0.0) {
            self.timed += 1;
            self.max_time = Some(self.max_time.map_or(t, |m| m.max(t)));
        }
        if let Some(data) = record.get("data").and_then(Value::as_str) {
            for line in data.lines() {
                self.text(line);
            }
        }
    }

    /// A line of the log's text: what a terminal would show of it (the part after its last `\r`, as a
    /// progress bar redraws itself), kept in the tail when not blank.
    fn text(&mut self, line: &str) {
        let shown = line
            .trim_end_matches('\r')
            .rsplit('\r')
            .next()
            .unwrap_or_default()
            .trim_end();
        if shown.trim().is_empty() {
            return;
        }
        if self.disk_full.is_none() && shown.contains(DISK_FULL) {
            self.disk_full = Some(shown.trim().to_string());
        }
        if self.gpu_oom.is_none() && is_gpu_oom(shown) {
            self.gpu_oom = Some(shown.trim().to_string());
        }
        if shown.contains(DIAGNOSIS_MARKER) {
            self.diagnosis_line = Some((self.records, shown.trim().to_string()));
        }
        if self.tail.len() == self.tail_lines {
            self.tail.pop_front();
        }
        self.tail.push_back(shown.to_string());
    }
}

/// True when a log line says the GPU ran out of memory (not a notebook traceback's header line, which
/// names the exception before the message that says how much was asked).
fn is_gpu_oom(line: &str) -> bool {
    GPU_OOM.iter().any(|m| line.contains(m)) && !line.contains("Traceback (most recent call last)")
}

/// The first line of a text that says the GPU ran out of memory.
pub(super) fn gpu_oom_line(text: &str) -> Option<&str> {
    text.lines().find(|l| is_gpu_oom(l)).map(str::trim)
}

/// The first line of a text that says the disk is full.
pub(super) fn disk_full_line(text: &str) -> Option<&str> {
    text.lines().find(|l| l.contains(DISK_FULL)).map(str::trim)
}
