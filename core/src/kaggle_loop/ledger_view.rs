//! `kgadvise status`, `release` and `log`: the runs log as Kaggle's statuses leave it, the ledger of what
//! each run holds, and every run with its cost (KL007, KL010).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::answers::{ClientAnswer, logged_status, read_status_answer};
use super::runs_file::{RunsFile, kernel_key, record_status, str_of};
use crate::kernel::run_report::KernelOutcome;
use crate::kernel::run_report::session::log_hours;
use crate::quota::{
    ACTIVE_STATUSES, Ledger, LoggedRun, QuotaReport, QuotaText, RunsLog, ledger, read_runs_log,
    round2,
};
use crate::request::{Overrides, RequestError, now_of};
use crate::rulebook::Thresholds;
use crate::rulebook::finding::Finding;
use crate::rulebook::ids::rule;
use crate::rulebook::report::{Findings, Report};
use crate::text::when::rfc3339;

pub const STATUS_SCHEMA: &str = "kgadvise.status/1";
pub const RELEASE_SCHEMA: &str = "kgadvise.release/1";
pub const LOG_SCHEMA: &str = "kgadvise.log/1";

/// One call of `kaggle kernels status <kernel>` and its answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct StatusCall {
    pub kernel: String,
    pub answer: ClientAnswer,
    /// `kaggle kernels logs <kernel>` when the answer says the run ended ([`has_ended`]): the hours it
    /// ran.
    pub log: Option<String>,
}

/// Whether `kaggle kernels status`'s answer says the run ended: then its log is wanted for its hours.
pub fn has_ended(kernel: &str, answer: &ClientAnswer) -> bool {
    read_status_answer(kernel, answer)
        .outcome
        .is_some_and(KernelOutcome::ended)
}

/// `kgadvise status`: the runs log, what Kaggle said of its runs in flight, and the quota.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct StatusRequest {
    /// kgkit's runs log as text.
    pub runs: String,
    /// The answers of `kaggle kernels status` for the runs in flight ([`recheck`]).
    pub seen: Vec<StatusCall>,
    /// Only these kernels' rows (all when empty).
    pub kernels: Vec<String>,
    /// The quota (any form) and when it was read, for what is plannable.
    pub quota: Option<String>,
    pub quota_read_at: Option<String>,
    pub quota_live: bool,
    pub now: Option<String>,
    pub set: Overrides,
}

/// The kernels whose runs are in flight in the log, to re-check with `kaggle kernels status` (only
/// `kernels` when some are given).
pub fn recheck(runs: &str, kernels: &[String]) -> Vec<String> {
    let wanted: Vec<String> = kernels.iter().map(|k| kernel_key(k)).collect();
    RunsFile::read(runs)
        .in_flight()
        .into_iter()
        .filter(|k| wanted.is_empty() || wanted.contains(&kernel_key(k)))
        .collect()
}

/// One run of the ledger.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LedgerRow {
    pub line: usize,
    pub kernel: String,
    pub accelerator: String,
    pub status: String,
    pub pushed_at: Option<String>,
    pub finished_at: Option<String>,
    pub cap_hours: Option<f64>,
    /// What it still holds of the quota (0 once finished).
    pub held_hours: f64,
    /// The hours it ran, when known (`gpu_hours`).
    pub gpu_hours: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct StatusReport {
    pub schema: &'static str,
    pub rows: Vec<LedgerRow>,
    /// What Kaggle said this time, one line per run re-checked.
    pub seen: Vec<String>,
    pub held_gpu_hours: f64,
    pub held_tpu_hours: f64,
    /// The quota with the runs log's reservations, when a quota was given.
    pub quota: Option<QuotaReport>,
    #[serde(skip)]
    pub runs_text: String,
    pub now: String,
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for StatusReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }
    fn text(&self) -> String {
        super::text::status(self)
    }
}

/// Applies what Kaggle said to the log: each answered run's latest record gets its status (KL007 for
/// a call that failed: the record is left as it was). Returns the lines of what was seen.
pub fn apply_statuses(
    file: &mut RunsFile,
    seen: &[StatusCall],
    now: DateTime<Utc>,
    out: &mut Findings,
) -> Vec<String> {
    let mut lines = Vec::new();
    for call in seen {
        let answer = read_status_answer(&call.kernel, &call.answer);
        let status = answer.outcome.and_then(logged_status);
        let (Some(outcome), Some(status)) = (answer.outcome, status) else {
            let why = answer.error.unwrap_or_else(|| {
                format!("status \"{}\" is not one kgadvise knows", answer.printed)
            });
            out.add(rule::KL007, format!("{}: {why}", call.kernel));
            continue;
        };
        let records = file.records_of(&call.kernel);
        let Some(latest) = records.last() else {
            continue;
        };
        let before = str_of(latest, "status").unwrap_or_default().to_string();
        let settles = match before.as_str() {
            "pending" => settles_pending(outcome, records.len() > 1),
            b => ACTIVE_STATUSES.contains(&b),
        };
        let Some(record) = file.latest_mut(&call.kernel).filter(|_| settles) else {
            continue;
        };
        let runtime = call
            .log
            .as_deref()
            .filter(|_| outcome.ended())
            .and_then(log_hours);
        record_status(record, status, now, outcome.ended(), runtime);
        let failure = answer
            .failure_message
            .map(|m| format!(" (Failure message: \"{m}\")"))
            .unwrap_or_default();
        lines.push(format!("{}: {before} -> {status}{failure}", call.kernel));
    }
    lines
}

/// Whether Kaggle's status settles a pending push (KG §2: it holds its whole cap until Kaggle lists a
/// version run after it): a session queued or running is the push's (an older version it would replace is
/// no longer in flight); an ended one only when the log has no older version of the kernel whose status
/// it could be.
fn settles_pending(outcome: KernelOutcome, older_versions: bool) -> bool {
    match outcome {
        KernelOutcome::Queued | KernelOutcome::Running | KernelOutcome::CancelRequested => true,
        o if o.ended() => !older_versions,
        _ => false,
    }
}

/// KL010: each line of the runs log that is not a run record.
pub fn malformed_lines(log: &RunsLog, out: &mut Findings) {
    for d in &log.diagnostics {
        out.add(rule::KL010, d.clone());
    }
}

/// The rows of the log's runs (those of `kernels` when given; `all`: every run, else the runs in
/// flight and those `seen` just now).
fn rows(
    log: &RunsLog,
    ledger: &Ledger,
    kernels: &[String],
    all: bool,
    seen: &[String],
) -> Vec<LedgerRow> {
    let wanted: Vec<String> = kernels.iter().map(|k| kernel_key(k)).collect();
    let seen: Vec<String> = seen.iter().map(|k| kernel_key(k)).collect();
    let latest = |run: &LoggedRun| {
        !log.runs
            .iter()
            .any(|r| r.line > run.line && kernel_key(&r.kernel) == kernel_key(&run.kernel))
    };
    log.runs
        .iter()
        .filter(|r| wanted.is_empty() || wanted.contains(&kernel_key(&r.kernel)))
        .filter(|r| {
            all || (latest(r)
                && (ACTIVE_STATUSES.contains(&r.status.as_str())
                    || seen.contains(&kernel_key(&r.kernel))))
        })
        .map(|r| LedgerRow {
            line: r.line,
            kernel: r.kernel.clone(),
            accelerator: r.accelerator.name().to_string(),
            status: r.status.clone(),
            pushed_at: r.pushed_at.map(rfc3339),
            finished_at: r.finished_at.map(rfc3339),
            cap_hours: r.hours,
            held_hours: ledger
                .held
                .iter()
                .find(|h| h.line == r.line)
                .map_or(0.0, |h| h.reserved_hours),
            gpu_hours: r.gpu_hours,
        })
        .collect()
}

/// The quota with the updated log, when one was given.
fn quota_of(
    request: &StatusRequest,
    runs: &str,
    now: DateTime<Utc>,
    thresholds: &Thresholds,
) -> Result<Option<QuotaReport>, RequestError> {
    let Some(quota) = request.quota.as_deref() else {
        return Ok(None);
    };
    let text = QuotaText {
        quota,
        runs: Some(runs),
        live: request.quota_live,
        read_at: request.quota_read_at.as_deref(),
    };
    text.state(now, thresholds).map(Some)
}

/// `kgadvise status`: the statuses applied, the ledger, the quota. Errors name the request field.
pub fn status(request: &StatusRequest, clock: DateTime<Utc>) -> Result<StatusReport, RequestError> {
    let now = now_of(request.now.as_deref(), clock)?;
    let thresholds = request.set.thresholds()?;
    let mut out = Findings::new();
    let mut file = RunsFile::read(&request.runs);
    let seen = apply_statuses(&mut file, &request.seen, now, &mut out);
    let runs_text = file.text();
    let log = read_runs_log(&runs_text);
    malformed_lines(&log, &mut out);
    let quota = quota_of(request, &runs_text, now, &thresholds)?;
    let read_at = quota
        .as_ref()
        .and_then(|q| q.observed_at.as_deref())
        .and_then(|t| t.parse::<DateTime<Utc>>().ok());
    let ledger = ledger(&log, read_at, now, &thresholds);
    let seen_kernels: Vec<String> = request.seen.iter().map(|c| c.kernel.clone()).collect();
    let rows = rows(&log, &ledger, &request.kernels, false, &seen_kernels);
    let held = |acc: &str| {
        round2(
            ledger
                .held
                .iter()
                .filter(|h| h.accelerator == acc)
                .fold(0.0, |sum, h| sum + h.reserved_hours),
        )
    };
    if !ledger.held.is_empty() {
        out.add(
            rule::KQ004,
            format!(
                "{} run(s) in flight hold {} GPU h and {} TPU h",
                ledger.held.len(),
                crate::text::number::fixed(held("GPU"), 2),
                crate::text::number::fixed(held("TPU"), 2)
            ),
        );
    }
    let closed = out.finish(now.date_naive(), &thresholds);
    Ok(StatusReport {
        schema: STATUS_SCHEMA,
        rows,
        seen,
        held_gpu_hours: held("GPU"),
        held_tpu_hours: held("TPU"),
        quota,
        runs_text,
        now: rfc3339(now),
        rules: closed.rules,
        findings: closed.findings,
    })
}

/// `kgadvise release KERNEL` and `kgadvise log`: the runs log, a kernel to release.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct RunsRequest {
    pub runs: String,
    /// `release`: the kernel whose reservation to drop.
    pub kernel: Option<String>,
    pub now: Option<String>,
    pub set: Overrides,
}

#[derive(Debug, Clone, Serialize)]
pub struct ReleaseReport {
    pub schema: &'static str,
    pub kernel: String,
    /// The record released (its line and status before), null when the kernel held nothing.
    pub released: Option<String>,
    pub freed_hours: f64,
    #[serde(skip)]
    pub runs_text: Option<String>,
    pub now: String,
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for ReleaseReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }
    fn text(&self) -> String {
        super::text::release(self)
    }
}

/// `kgadvise release KERNEL`: the kernel's run in flight gets status `released` (its record kept).
pub fn release(request: &RunsRequest, clock: DateTime<Utc>) -> Result<ReleaseReport, RequestError> {
    let now = now_of(request.now.as_deref(), clock)?;
    let thresholds = request.set.thresholds()?;
    let kernel = request.kernel.clone().ok_or_else(|| {
        RequestError::new("kernel", "expected the kernel to release (owner/slug)")
    })?;
    let log = read_runs_log(&request.runs);
    let before = ledger(&log, None, now, &thresholds);
    let held = before
        .held
        .iter()
        .find(|h| kernel_key(&h.kernel) == kernel_key(&kernel));
    let mut out = Findings::new();
    malformed_lines(&log, &mut out);
    let (released, freed, runs_text) = match held {
        Some(h) => {
            let mut file = RunsFile::read(&request.runs);
            if let Some(record) = file.latest_mut(&kernel) {
                record.insert("status".into(), "released".into());
                record.insert("released_at".into(), rfc3339(now).into());
            }
            (
                Some(format!("{} (line {}, {})", h.kernel, h.line, h.status)),
                h.reserved_hours,
                Some(file.text()),
            )
        }
        None => (None, 0.0, None),
    };
    let closed = out.finish(now.date_naive(), &thresholds);
    Ok(ReleaseReport {
        schema: RELEASE_SCHEMA,
        kernel,
        released,
        freed_hours: freed,
        runs_text,
        now: rfc3339(now),
        rules: closed.rules,
        findings: closed.findings,
    })
}

#[derive(Debug, Clone, Serialize)]
pub struct LogReport {
    pub schema: &'static str,
    pub rows: Vec<LedgerRow>,
    /// Hours the runs logged cost (`gpu_hours`), per accelerator.
    pub gpu_hours: f64,
    pub tpu_hours: f64,
    pub now: String,
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for LogReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }
    fn text(&self) -> String {
        super::text::log(self)
    }
}

/// `kgadvise log`: every run with its cost and result.
pub fn log(request: &RunsRequest, clock: DateTime<Utc>) -> Result<LogReport, RequestError> {
    let now = now_of(request.now.as_deref(), clock)?;
    let thresholds = request.set.thresholds()?;
    let log = read_runs_log(&request.runs);
    let mut out = Findings::new();
    malformed_lines(&log, &mut out);
    let ledger = ledger(&log, None, now, &thresholds);
    let kernels: Vec<String> = request.kernel.iter().cloned().collect();
    let rows = rows(&log, &ledger, &kernels, true, &[]);
    let sum = |acc: &str| {
        round2(
            rows.iter()
                .filter(|r| r.accelerator == acc)
                .filter_map(|r| r.gpu_hours)
                .fold(0.0, |sum, h| sum + h),
        )
    };
    let closed = out.finish(now.date_naive(), &thresholds);
    Ok(LogReport {
        schema: LOG_SCHEMA,
        gpu_hours: sum("GPU"),
        tpu_hours: sum("TPU"),
        rows,
        now: rfc3339(now),
        rules: closed.rules,
        findings: closed.findings,
    })
}
