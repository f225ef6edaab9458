//! `kgadvise wait KERNEL` and `kgadvise collect USER/SLUG` (KG §2): the polls of a run until it ends,
//! its log tail, whether its cap stopped it and the files it saved when it did not complete (collect's
//! session rules, KR005, KR011), and the run's hours recorded in the runs log when its outputs are
//! collected.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::answers::{
    ClientAnswer, SavedFiles, logged_status, read_files_answer, read_status_answer,
};
use super::ledger_view::{StatusCall, apply_statuses, has_ended};
use super::runs_file::{RunsFile, kernel_key, number_of, str_of};
use crate::kernel::run_report::{CollectReport, CollectRequest, KernelOutcome, collect};
use crate::quota::round2;
use crate::request::{Overrides, RequestError, now_of};
use crate::rulebook::Thresholds;
use crate::rulebook::finding::Finding;
use crate::rulebook::ids::{rule, threshold};
use crate::rulebook::report::{Findings, Report};
use crate::text::when::{DateRole, parse_time, rfc3339};

pub const WAIT_SCHEMA: &str = "kgadvise.wait/1";

/// The default `--interval` of `wait`, in seconds (KG §2: every 90 s).
pub fn poll_seconds(thresholds: &Thresholds) -> f64 {
    thresholds.get(threshold::LOOP_POLL_SECONDS)
}

/// How long one call of the Kaggle CLI may run before it is stopped, in seconds: a download of the
/// session's outputs (`kaggle kernels output`) or any other call.
pub fn client_seconds(thresholds: &Thresholds, download: bool) -> f64 {
    thresholds.get(if download {
        threshold::LOOP_DOWNLOAD_SECONDS
    } else {
        threshold::LOOP_CLIENT_SECONDS
    })
}

/// One poll: when, and what `kaggle kernels status` answered.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct Poll {
    pub at: String,
    pub answer: ClientAnswer,
}

/// Whether to poll again after `polls`: not once the run has ended, nor after as many failed calls in a
/// row as the live calls are tried (`threshold.loop.client-tries`).
pub fn keep_polling(kernel: &str, polls: &[Poll], thresholds: &Thresholds) -> bool {
    let tries = super::live_quota::client_tries(thresholds);
    let mut failed_in_a_row = 0;
    for poll in polls {
        let seen = read_status_answer(kernel, &poll.answer);
        match seen.outcome {
            Some(o) if o.ended() => return false,
            Some(_) => failed_in_a_row = 0,
            None => failed_in_a_row += 1,
        }
    }
    failed_in_a_row < tries
}

/// `kgadvise wait`: the polls, and once the run ended in error or cancelled, its log and its files.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct WaitRequest {
    pub kernel: String,
    pub polls: Vec<Poll>,
    /// `kaggle kernels logs <kernel>` once it ended: the hours it ran; the tail when it ended in error or
    /// cancelled.
    pub log: Option<String>,
    /// `kaggle kernels files <kernel> --format json` once it ended in error or cancelled.
    pub files: Option<ClientAnswer>,
    /// kgkit's runs log as text.
    pub runs: String,
    pub now: Option<String>,
    pub set: Overrides,
}

#[derive(Debug, Clone, Serialize)]
pub struct PollSeen {
    pub at: String,
    pub status: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct WaitReport {
    pub schema: &'static str,
    pub kernel: String,
    pub polls: Vec<PollSeen>,
    /// The last status seen (queued, running, complete, error, cancelled), null when none was.
    pub status: Option<String>,
    pub ended: bool,
    /// The session read from its status and log (log tail, stopped by the cap), when it did not complete.
    pub session: Option<CollectReport>,
    /// The files the session saved (`kaggle kernels files`), when it did not complete.
    pub files: Option<SavedFiles>,
    /// With `--collect`: the collect answer of its downloaded outputs (`collect USER/SLUG`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub collected: Option<CollectReport>,
    #[serde(skip)]
    pub runs_text: String,
    pub now: String,
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for WaitReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }
    fn text(&self) -> String {
        super::text::wait(self)
    }
}

/// The cap of the kernel's latest run, in seconds (its logged `hours`).
fn logged_cap_seconds(runs: &str, kernel: &str) -> Option<u64> {
    let file = RunsFile::read(runs);
    let key = kernel_key(kernel);
    let (_, record) = file
        .records()
        .filter(|(_, r)| str_of(r, "kernel").map(kernel_key) == Some(key.clone()))
        .last()?;
    number_of(record, "hours").map(|h| (h * 3600.0).round() as u64)
}

/// `kgadvise wait`: what the polls saw, the log once the run ended badly. Errors name the field.
pub fn wait(request: &WaitRequest, clock: DateTime<Utc>) -> Result<WaitReport, RequestError> {
    let now = now_of(request.now.as_deref(), clock)?;
    let thresholds = request.set.thresholds()?;
    let mut out = Findings::new();
    let mut file = RunsFile::read(&request.runs);
    let mut polls = Vec::new();
    let mut last: Option<(KernelOutcome, &ClientAnswer)> = None;
    for (i, poll) in request.polls.iter().enumerate() {
        let at = parse_time(&poll.at, DateRole::Instant)
            .map_err(|e| RequestError::new("polls", format!("`at` {:?}: {e}", poll.at)))?;
        let call = StatusCall {
            kernel: request.kernel.clone(),
            answer: poll.answer.clone(),
            // the log is of the run as it ended: the last poll's
            log: request.log.clone().filter(|_| i + 1 == request.polls.len()),
        };
        apply_statuses(&mut file, std::slice::from_ref(&call), at, &mut out);
        let seen = read_status_answer(&request.kernel, &poll.answer);
        let status = seen
            .outcome
            .and_then(logged_status)
            .map(str::to_string)
            .unwrap_or_else(|| format!("no status ({})", seen.error.unwrap_or_default()));
        polls.push(PollSeen {
            at: rfc3339(at),
            status,
        });
        if let Some(o) = seen.outcome {
            last = Some((o, &poll.answer));
        }
    }
    let ended = last.is_some_and(|(o, _)| o.ended());
    let session = match last {
        Some((o, answer)) if o.ended() && o != KernelOutcome::Complete => Some(collect(
            &CollectRequest {
                status: Some(answer.stdout.clone()),
                log: request.log.clone(),
                timeout_seconds: logged_cap_seconds(&request.runs, &request.kernel),
                input: Some(request.kernel.clone()),
                now: Some(rfc3339(now)),
                set: request.set.clone(),
                ..CollectRequest::default()
            },
            now,
        )?),
        _ => None,
    };
    let closed = out.finish(now.date_naive(), &thresholds);
    let mut findings = closed.findings;
    let mut rules = closed.rules;
    if let Some(s) = &session {
        findings.extend(s.findings.iter().filter(|f| f.rule != "KH004").cloned());
        rules.extend(s.rules.iter().cloned());
        crate::text::sort::sort(&mut rules);
        rules.dedup();
        crate::text::sort::sort_by_key(&mut findings, |f| f.severity);
    }
    Ok(WaitReport {
        schema: WAIT_SCHEMA,
        kernel: request.kernel.clone(),
        status: last.and_then(|(o, _)| logged_status(o)).map(str::to_string),
        ended,
        polls,
        files: session
            .as_ref()
            .and(request.files.as_ref())
            .map(read_files_answer),
        session,
        collected: None,
        runs_text: file.text(),
        now: rfc3339(now),
        rules,
        findings,
    })
}

/// `kgadvise collect USER/SLUG`: the downloaded outputs (kg_run.json, or the status and the log).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct CollectKernelRequest {
    pub kernel: String,
    /// kg_run.json from the outputs, when they hold one.
    pub report: Option<String>,
    /// `kaggle kernels status <kernel>`'s output.
    pub status: Option<String>,
    /// The `<slug>.log` the outputs hold.
    pub log: Option<String>,
    pub runs: String,
    pub now: Option<String>,
    pub set: Overrides,
}

/// The collect answer and the runs log with the run's hours recorded.
#[derive(Debug, Clone)]
pub struct CollectedKernel {
    pub report: CollectReport,
    pub runs_text: String,
}

/// `kgadvise collect USER/SLUG`: `collect`'s answer, and the run's record updated (formats.md §10:
/// `gpu_hours` = its runtime, the cap when the cap stopped it; `collected_at`; status collected,
/// partial or failed).
pub fn collect_kernel(
    request: &CollectKernelRequest,
    clock: DateTime<Utc>,
) -> Result<CollectedKernel, RequestError> {
    let now = now_of(request.now.as_deref(), clock)?;
    let cap_seconds = logged_cap_seconds(&request.runs, &request.kernel);
    let report = collect(
        &CollectRequest {
            report: request.report.clone().unwrap_or_default(),
            status: request.status.clone(),
            log: request.log.clone(),
            timeout_seconds: cap_seconds,
            input: Some(request.kernel.clone()),
            now: Some(rfc3339(now)),
            set: request.set.clone(),
        },
        now,
    )?;
    let mut file = RunsFile::read(&request.runs);
    if let Some(record) = file.latest_mut(&request.kernel) {
        record_collected(record, &report, cap_seconds, now);
    }
    Ok(CollectedKernel {
        report,
        runs_text: file.text(),
    })
}

/// The run's hours and result in its record.
fn record_collected(
    record: &mut serde_json::Map<String, Value>,
    report: &CollectReport,
    cap_seconds: Option<u64>,
    now: DateTime<Utc>,
) {
    let stopped_by_cap = report
        .findings
        .iter()
        .any(|f| f.rule == rule::KR005.as_str());
    let outcome = report.session.as_ref().and_then(|s| s.outcome);
    let hours = match (stopped_by_cap, cap_seconds) {
        (true, Some(cap)) => Some(cap as f64 / 3600.0),
        _ => report
            .elapsed_s
            .map(|s| s / 3600.0)
            .or_else(|| report.session.as_ref().and_then(|s| s.hours)),
    };
    if let Some(h) = hours {
        record.insert("gpu_hours".into(), Value::from(round2(h)));
        record.insert(
            "gpu_hours_from".into(),
            if stopped_by_cap { "cap" } else { "runtime" }.into(),
        );
    }
    let status = match outcome {
        Some(KernelOutcome::Complete) => "collected",
        Some(KernelOutcome::Cancelled) => "partial",
        Some(KernelOutcome::Error) => "failed",
        _ if report.folds_total > 0 && report.folds_done == report.folds_total => "collected",
        _ if report.folds_done > 0 => "partial",
        _ if outcome.is_none() && report.folds_total == 0 => "collected",
        _ => "failed",
    };
    if outcome.is_some_and(|o| !o.ended()) {
        return;
    }
    record.insert("status".into(), status.into());
    record.insert("collected_at".into(), rfc3339(now).into());
    if !record.contains_key("finished_at") {
        record.insert("finished_at".into(), rfc3339(now).into());
    }
}

/// The run has ended: its log is wanted (`kaggle kernels logs`) for the hours it ran, and when it did not
/// complete for the tail and whether the cap stopped it.
pub fn wants_log(kernel: &str, polls: &[Poll]) -> bool {
    polls.last().is_some_and(|p| has_ended(kernel, &p.answer))
}

/// The run has ended without completing: the files it saved are wanted (`kaggle kernels files`).
pub fn wants_files(kernel: &str, polls: &[Poll]) -> bool {
    polls.last().is_some_and(|p| {
        read_status_answer(kernel, &p.answer)
            .outcome
            .is_some_and(|o| o.ended() && o != KernelOutcome::Complete)
    })
}

/// `collect USER/SLUG`: the argument is a kernel (`owner/slug`, not a file that exists): the surface
/// says whether it exists.
pub fn is_kernel_ref(arg: &str, exists: bool) -> bool {
    let parts: Vec<&str> = arg.split('/').collect();
    !exists
        && parts.len() == 2
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        })
}

/// The folder `collect USER/SLUG` downloads into by default: named after the kernel.
pub fn output_folder(kernel: &str) -> String {
    kernel.rsplit('/').next().unwrap_or(kernel).to_string()
}

/// The log file `kaggle kernels output` writes for a kernel: `<slug>.log`.
pub fn log_file_name(kernel: &str) -> String {
    format!("{}.log", output_folder(kernel))
}

/// Whether `wait` ends with an error exit: the run ended without completing, or was not seen to end.
pub fn wait_failed(report: &WaitReport) -> bool {
    report.status.as_deref() != Some("complete")
}
