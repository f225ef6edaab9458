//! After a run (spec §11): `kgadvise collect kg_run.json` reads kgkit's run report (formats.md §10) and says
//! what to fix: second T4 idle, every GPU idle, input-bound, too short, deadline hit, stopped by the cap,
//! pruned, fold failed, runner did not finish, out of disk (the KR rules of `rules/run_report.toml`, one
//! function each in `rules.rs`); and the measured cost per fold. A kernel without kgkit's runner is
//! collected from what Kaggle gives for any kernel, its `kaggle kernels status` text and its log
//! (`session.rs`): the status is the outcome, the log's times are the session's hours, a log that ends at
//! the cap was stopped by it (`session_rules.rs`).

mod read;
mod rules;
pub(crate) mod session;
mod session_rules;

pub use session::{KernelOutcome, SessionSummary};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::request::{Overrides, RequestError, now_of};
use crate::rulebook::Thresholds;
use crate::rulebook::finding::Finding;
use crate::rulebook::ids::threshold;
use crate::rulebook::report::{Findings, Report};

pub const COLLECT_SCHEMA: &str = "kgadvise.collect/1";

/// What the answer calls the report when the request does not name it.
const DEFAULT_INPUT: &str = "kg_run.json";

/// What a report that cannot be read was expected to be.
const EXPECTED: &str = "kgkit's kg_run.json";

/// `kgadvise collect`: what a finished run says to fix, and its measured cost. Give kgkit's `report`,
/// or for any kernel of your own its `status` and/or `log` (and the push's `timeoutSeconds`); both
/// kinds may be given together.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct CollectRequest {
    /// kgkit's run report, the kg_run.json text (jobs, fold_status, gpu_util, elapsed_s, budget_h,
    /// deadline_hit). Empty for a kernel without one: give `status` and/or `log` instead.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub report: String,
    /// The output of `kaggle kernels status <owner>/<slug>` (`<owner>/<slug> has status
    /// "KernelWorkerStatus.COMPLETE"`, or the old CLI's `"complete"`, `"error"`, `"cancelAcknowledged"`;
    /// a `Failure message:` line is read too): the run's outcome.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub status: Option<String>,
    /// The kernel's log: the `<slug>.log` that `kaggle kernels output <owner>/<slug>` writes (JSON records
    /// of `stream_name`, `time` in seconds since the session started, and `data`), or plain text. Its
    /// times give the session's hours; its last lines are quoted when the run failed or was stopped.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub log: Option<String>,
    /// The -t cap the kernel was pushed with, in whole seconds: a log that ends at about the cap was
    /// stopped by it.
    #[cfg_attr(feature = "cli", arg(long, value_name = "S"))]
    pub timeout_seconds: Option<u64>,
    /// What the answer calls the report (a file name, as given); default `kg_run.json`, or for a kernel
    /// without one the kernel its status names (`owner/slug`).
    #[cfg_attr(feature = "cli", arg(skip))]
    pub input: Option<String>,
    /// The time of the answer (RFC 3339 or a date; default: the caller's clock).
    #[cfg_attr(feature = "schema", schemars(extend("x-time" = true)))]
    #[cfg_attr(feature = "cli", arg(skip))]
    pub now: Option<String>,
    /// Threshold overrides.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub set: Overrides,
}

/// What became of one fold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum FoldOutcome {
    Done,
    /// Timed out or killed at the runner's deadline.
    Timeout,
    Pruned,
    Failed,
    /// Listed in the job's folds, never given a status.
    NeverStarted,
    /// A status kgadvise does not know.
    Other,
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FoldSummary {
    pub fold: String,
    pub outcome: FoldOutcome,
    pub status: Option<String>,
    pub seconds: Option<f64>,
    pub best: Option<f64>,
    pub gpu: Option<i64>,
    pub returncode: Option<i64>,
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct JobSummary {
    pub name: String,
    pub complete: Option<bool>,
    pub assembled: Option<bool>,
    pub folds: Vec<FoldSummary>,
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GpuUtil {
    pub index: String,
    pub util_mean: Option<f64>,
    pub util_p10: Option<f64>,
    pub mem_peak_mb: Option<f64>,
    pub n: Option<u64>,
    pub busy: bool,
}

/// `kgadvise collect` (cli.md): `findings`, `cost_per_fold_hours`, `quota_hours_per_fold`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CollectReport {
    pub schema: &'static str,
    pub input: String,
    pub build_id: Option<String>,
    pub accelerator: Option<String>,
    pub gpus: usize,
    pub started_utc: Option<String>,
    pub elapsed_s: Option<f64>,
    pub budget_h: Option<f64>,
    pub deadline_hit: bool,
    pub jobs: Vec<JobSummary>,
    pub folds_total: usize,
    pub folds_done: usize,
    pub gpu_util: Vec<GpuUtil>,
    pub busy_gpus: usize,
    /// Mean wall-clock hours of the completed folds (one fold on one GPU); null when none completed.
    pub cost_per_fold_hours: Option<f64>,
    /// Quota hours one fold costs: the cost per fold divided by the busy GPUs (0 for a CPU run).
    pub quota_hours_per_fold: Option<f64>,
    /// A kernel collected from its `kaggle kernels status` text and its log: its outcome, its hours, the
    /// end of its log; null when neither was given.
    pub session: Option<SessionSummary>,
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for CollectReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }

    fn text(&self) -> String {
        crate::kernel::text::collect(self)
    }
}

/// The `report` text of a file's bytes (UTF-8 or UTF-16, a BOM dropped); binary data and bytes that are
/// not text are refused.
pub fn report_text(bytes: &[u8]) -> Result<String, RequestError> {
    crate::request::text_of("collect", "report", bytes)
}

/// The run as read, and what follows from it: what every run-report rule reads.
struct RunContext<'a> {
    root: &'a Map<String, Value>,
    /// The `jobs` items that are objects, as written, one per item of `jobs` (their `errors` hold the
    /// log tails of failed folds); items that are not objects are skipped in both.
    job_objects: Vec<&'a Map<String, Value>>,
    jobs: Vec<JobSummary>,
    accelerator: Option<String>,
    gpus: usize,
    elapsed_s: Option<f64>,
    budget_h: Option<f64>,
    deadline_hit: bool,
    gpu_util: Vec<GpuUtil>,
    busy_gpus: usize,
    tpu: bool,
    /// A CPU run: no accelerator named, no GPU listed, no GPU sampled. A GPU run whose nvidia-smi failed
    /// still names its accelerator and is charged.
    cpu: bool,
    /// Mean wall-clock hours of the completed folds.
    cost_per_fold: Option<f64>,
    thresholds: &'a Thresholds,
}

/// The rules of a run report, in the order their findings are listed within a severity.
const RULES: &[fn(&RunContext, &mut Findings)] = &[
    rules::stopped_by_cap,
    rules::runner_unfinished,
    rules::deadline,
    rules::pruned,
    rules::failed_folds,
    rules::out_of_gpu_memory,
    rules::disk_full,
    rules::too_short,
    rules::every_gpu_idle,
    rules::second_gpu_idle,
    rules::input_bound,
    rules::cost_unmeasured,
];

/// The rules of a kernel collected from its status and log, after the run report's (when both are
/// given, a finding the report already gave is not repeated).
const SESSION_RULES: &[fn(&session::Session, &Thresholds, &mut Findings)] = &[
    session_rules::kernel_error,
    session_rules::out_of_gpu_memory,
    session_rules::stopped_by_cap,
    session_rules::disk_full,
    session_rules::not_finished,
    session_rules::hours_unknown,
    session_rules::watch_diagnosis,
];

/// The JSON object of the report text; errors name the `report` field and what was expected.
fn root_of(text: &str) -> Result<Map<String, Value>, RequestError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    super::refuse_binary("report", text, EXPECTED)?;
    if text.trim().is_empty() {
        return Err(RequestError::new(
            "report",
            "the file is empty; expected kgkit's kg_run.json (an object with a `jobs` list)",
        ));
    }
    let value: Value =
        serde_json::from_str(text).map_err(|e| super::json_error("report", &e, EXPECTED))?;
    let root = match value {
        Value::Object(root) => root,
        other => {
            return Err(RequestError::new(
                "report",
                format!(
                    "the JSON is {}, not an object; expected kgkit's kg_run.json (an object with a `jobs` list)",
                    crate::text::json::json_type(&other)
                ),
            ));
        }
    };
    if !root.get("jobs").is_some_and(Value::is_array) {
        return Err(RequestError::new(
            "report",
            "no `jobs` list: this is not kgkit's kg_run.json (expected jobs, accelerator, gpus, elapsed_s, budget_h, gpu_util...)",
        ));
    }
    Ok(root)
}

impl<'a> RunContext<'a> {
    fn of(root: &'a Map<String, Value>, thresholds: &'a Thresholds) -> RunContext<'a> {
        let raw_jobs = root
            .get("jobs")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        // Each job summary is built from the object it sits beside, so a job that is not an object
        // (a number, a string) shifts neither the names nor the `errors` of the jobs after it.
        let (job_objects, jobs): (Vec<&Map<String, Value>>, Vec<JobSummary>) = raw_jobs
            .iter()
            .enumerate()
            .filter_map(|(i, j)| j.as_object().map(|m| (m, read::job_summary(m, i))))
            .unzip();
        let accelerator = read::text(root.get("accelerator"));
        let gpus = match root.get("gpus") {
            Some(Value::Array(a)) => a.len(),
            Some(v) => read::num(Some(v)).map(|x| x.max(0.0) as usize).unwrap_or(0),
            None => 0,
        };
        let busy_pct = thresholds.get(threshold::VERDICT_BUSY_UTIL_PCT);
        let gpu_util = read::gpu_utils(root.get("gpu_util"), busy_pct);
        let tpu = accelerator
            .as_deref()
            .is_some_and(|a| a.to_ascii_lowercase().contains("tpu"));
        let no_accel = accelerator.as_deref().is_none_or(|a| {
            let a = a.trim().to_ascii_lowercase();
            a.is_empty() || a == "none" || a == "cpu"
        });
        let done: Vec<f64> = jobs
            .iter()
            .flat_map(|j| &j.folds)
            .filter(|f| f.outcome == FoldOutcome::Done)
            .filter_map(|f| f.seconds)
            .collect();
        RunContext {
            root,
            job_objects,
            busy_gpus: gpu_util.iter().filter(|g| g.busy).count(),
            cpu: !tpu && no_accel && gpus == 0 && gpu_util.is_empty(),
            cost_per_fold: (!done.is_empty())
                .then(|| done.iter().sum::<f64>() / done.len() as f64 / 3600.0),
            jobs,
            accelerator,
            gpus,
            elapsed_s: read::num(root.get("elapsed_s")),
            budget_h: read::num(root.get("budget_h")),
            deadline_hit: read::boolean(root.get("deadline_hit")).unwrap_or(false),
            gpu_util,
            tpu,
            thresholds,
        }
    }

    /// Every fold with its job's name.
    fn folds(&self) -> impl Iterator<Item = (&str, &FoldSummary)> {
        self.jobs
            .iter()
            .flat_map(|j| j.folds.iter().map(move |f| (j.name.as_str(), f)))
    }

    fn count(&self, outcome: FoldOutcome) -> usize {
        self.folds().filter(|(_, f)| f.outcome == outcome).count()
    }

    /// "job fold N" of every fold with this outcome.
    fn list(&self, outcome: FoldOutcome) -> Vec<String> {
        self.folds()
            .filter(|(_, f)| f.outcome == outcome)
            .map(|(j, f)| format!("{j} fold {}", f.fold))
            .collect()
    }

    /// The runner wrote its final report (`elapsed_s`).
    fn finished(&self) -> bool {
        self.elapsed_s.is_some()
    }

    /// Quota hours one fold costs: the cost per fold divided by the busy GPUs (0 for a CPU run).
    fn quota_per_fold(&self) -> Option<f64> {
        let divisor = if self.gpu_util.is_empty() || self.busy_gpus == 0 {
            1
        } else {
            self.busy_gpus
        };
        self.cost_per_fold
            .map(|c| if self.cpu { 0.0 } else { c / divisor as f64 })
    }
}

/// `kgadvise collect`: reads kgkit's `kg_run.json`, or a kernel's status and log, and diagnoses the run.
/// Input that cannot be read is an error naming its field (`report`, `status`, `log`; the line of a
/// JSON syntax error).
pub fn collect(
    request: &CollectRequest,
    clock: DateTime<Utc>,
) -> Result<CollectReport, RequestError> {
    let now = now_of(request.now.as_deref(), clock)?;
    let thresholds = request.set.thresholds()?;
    if request.timeout_seconds == Some(0) {
        return Err(RequestError::value(
            "timeoutSeconds",
            "0",
            "expected the push's -t cap in whole seconds > 0",
        ));
    }
    let kernel_given = request.status.is_some() || request.log.is_some();
    // Without a status or a log the report is required: an empty one is refused as such.
    let root = if kernel_given && request.report.trim().is_empty() {
        None
    } else {
        Some(root_of(&request.report)?)
    };
    let session = if kernel_given {
        let tail_lines = thresholds
            .get(threshold::RUN_REPORT_LOG_TAIL_LINES)
            .max(1.0) as usize;
        Some(session::read_session(
            request.status.as_deref(),
            request.log.as_deref(),
            request.timeout_seconds,
            tail_lines,
        )?)
    } else {
        None
    };
    let no_report = Map::new();
    let report_given = root.is_some();
    let root = root.as_ref().unwrap_or(&no_report);
    let run = RunContext::of(root, &thresholds);
    let mut out = Findings::new();
    if report_given {
        for rule in RULES {
            rule(&run, &mut out);
        }
    }
    if let Some(session) = &session {
        for rule in SESSION_RULES {
            rule(session, &thresholds, &mut out);
        }
    }
    let closed = out.finish(now.date_naive(), &thresholds);
    let kernel = session.as_ref().and_then(|s| s.summary.kernel.clone());
    Ok(CollectReport {
        schema: COLLECT_SCHEMA,
        input: request.input.clone().unwrap_or_else(|| match kernel {
            Some(kernel) if !report_given => kernel,
            None if !report_given => "kernel log".to_string(),
            _ => DEFAULT_INPUT.to_string(),
        }),
        build_id: read::text(root.get("build_id")),
        started_utc: read::text(root.get("started_utc")),
        folds_total: run.folds().count(),
        folds_done: run.count(FoldOutcome::Done),
        quota_hours_per_fold: run.quota_per_fold(),
        cost_per_fold_hours: run.cost_per_fold,
        accelerator: run.accelerator,
        gpus: run.gpus,
        elapsed_s: run.elapsed_s,
        budget_h: run.budget_h,
        deadline_hit: run.deadline_hit,
        jobs: run.jobs,
        gpu_util: run.gpu_util,
        busy_gpus: run.busy_gpus,
        session: session.map(|s| s.summary),
        rules: closed.rules,
        findings: closed.findings,
    })
}

#[cfg(test)]
mod tests;
