//! After a run (spec §11): `kgadvise collect kg_run.json` reads kgkit's run report (formats.md §10) and says
//! what to fix: second T4 idle, input-bound, too short, deadline hit, stopped by the cap, pruned, fold failed,
//! runner did not finish (KR001-KR009 in `rules/run_report.toml`); and the measured cost per fold.

use crate::rulebook::ids::{rule, threshold};
use chrono::NaiveDate;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::rulebook::Thresholds;
use crate::rulebook::finding::Finding;
use crate::rulebook::report::{Report, stale_findings_for};
use crate::text::decimal::parse_f64;
use crate::text::json;
use crate::text::number::{fixed, shortest};

pub const COLLECT_SCHEMA: &str = "kgadvise.collect/1";

/// A run report that cannot be read at all (CLI exit 2). `line`/`column` are 1-based when known.
#[derive(Debug, Clone, PartialEq)]
pub struct RunReportError {
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for RunReportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "line {l}, column {c}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for RunReportError {}

fn err(message: impl Into<String>) -> RunReportError {
    RunReportError {
        line: None,
        column: None,
        message: message.into(),
    }
}

/// What became of one fold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
pub struct JobSummary {
    pub name: String,
    pub complete: Option<bool>,
    pub assembled: Option<bool>,
    pub folds: Vec<FoldSummary>,
}

#[derive(Debug, Clone, Serialize)]
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
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for CollectReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }
}

fn num(v: Option<&Value>) -> Option<f64> {
    match v? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => parse_f64(s.trim().trim_end_matches(['s', 'h', '%']).trim()),
        _ => None,
    }
    .filter(|x: &f64| x.is_finite())
}

fn int(v: Option<&Value>) -> Option<i64> {
    num(v).map(|x| x as i64)
}

fn text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(json::text(n)),
        _ => None,
    }
}

fn boolean(v: Option<&Value>) -> Option<bool> {
    match v? {
        Value::Bool(b) => Some(*b),
        Value::String(s) if s.eq_ignore_ascii_case("true") => Some(true),
        Value::String(s) if s.eq_ignore_ascii_case("false") => Some(false),
        Value::Number(n) => n.as_f64().map(|x| x != 0.0),
        _ => None,
    }
}

/// A fold key: `3`, `"3"`, `3.0` all read as "3".
fn fold_key(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => n
            .as_i64()
            .map(|i| i.to_string())
            .or_else(|| Some(json::text(n))),
        Value::String(s) => Some(s.trim().to_string()),
        _ => None,
    }
}

fn fold_list(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(items)) => items.iter().filter_map(fold_key).collect(),
        Some(Value::Object(m)) => m.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

fn fold_order(a: &str, b: &str) -> std::cmp::Ordering {
    match (a.parse::<i64>(), b.parse::<i64>()) {
        (Ok(x), Ok(y)) => x.cmp(&y),
        _ => a.cmp(b),
    }
}

fn job_summary(job: &Map<String, Value>, index: usize) -> JobSummary {
    let name = text(job.get("name")).unwrap_or_else(|| format!("job {}", index + 1));
    let done: Vec<String> = fold_list(job.get("folds_done"));
    let status_map = job.get("fold_status").and_then(Value::as_object);
    let mut keys: Vec<String> = fold_list(job.get("folds"));
    for k in done.iter().chain(
        status_map
            .map(|m| m.keys().collect::<Vec<_>>())
            .unwrap_or_default(),
    ) {
        if !keys.contains(k) {
            keys.push(k.clone());
        }
    }
    for k in fold_list(job.get("folds_incomplete")) {
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    crate::text::sort::sort_by(&mut keys, |a, b| fold_order(a, b));
    let folds = keys
        .into_iter()
        .map(|fold| {
            let st = status_map
                .and_then(|m| m.get(&fold))
                .and_then(Value::as_object);
            let status = st.and_then(|s| text(s.get("status")));
            let killed = st.and_then(|s| boolean(s.get("killed"))).unwrap_or(false);
            let returncode = st.and_then(|s| int(s.get("returncode")));
            let lower = status.as_deref().map(str::to_ascii_lowercase);
            let outcome = match lower.as_deref() {
                Some("done" | "complete" | "completed") => FoldOutcome::Done,
                Some("timeout" | "timed_out" | "killed") => FoldOutcome::Timeout,
                _ if killed => FoldOutcome::Timeout,
                Some("pruned") => FoldOutcome::Pruned,
                Some("failed" | "error") => FoldOutcome::Failed,
                _ if returncode.is_some_and(|c| c != 0) => FoldOutcome::Failed,
                None if done.contains(&fold) => FoldOutcome::Done,
                None if st.is_none() => FoldOutcome::NeverStarted,
                None => FoldOutcome::Other,
                Some(_) => FoldOutcome::Other,
            };
            FoldSummary {
                seconds: st.and_then(|s| num(s.get("seconds"))),
                best: st.and_then(|s| num(s.get("best"))),
                gpu: st.and_then(|s| int(s.get("gpu"))),
                returncode,
                fold,
                outcome,
                status,
            }
        })
        .collect();
    JobSummary {
        name,
        complete: boolean(job.get("complete")),
        assembled: boolean(job.get("assembled")),
        folds,
    }
}

fn gpu_utils(v: Option<&Value>, busy_pct: f64) -> Vec<GpuUtil> {
    let one = |index: String, g: &Value| {
        let util_mean = num(g.get("util_mean"));
        GpuUtil {
            busy: util_mean.is_some_and(|u| u > busy_pct),
            util_mean,
            util_p10: num(g.get("util_p10")),
            mem_peak_mb: num(g.get("mem_peak_mb")),
            n: num(g.get("n")).map(|x| x.max(0.0) as u64),
            index,
        }
    };
    let mut out: Vec<GpuUtil> = match v {
        Some(Value::Object(m)) => m
            .iter()
            .filter(|(_, g)| g.is_object())
            .map(|(k, g)| one(k.clone(), g))
            .collect(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .filter(|(_, g)| g.is_object())
            .map(|(i, g)| one(text(g.get("index")).unwrap_or_else(|| i.to_string()), g))
            .collect(),
        _ => Vec::new(),
    };
    crate::text::sort::sort_by(&mut out, |a, b| fold_order(&a.index, &b.index));
    out
}

fn tail(log: &str, lines: usize) -> String {
    let all: Vec<&str> = log.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = all.len().saturating_sub(lines);
    all.get(start..).unwrap_or_default().join(" | ")
}

fn h(x: f64) -> String {
    format!("{} h", fixed(x, 2))
}

/// Reads kgkit's `kg_run.json` and diagnoses the run.
pub fn collect(
    input: &str,
    bytes: &[u8],
    today: NaiveDate,
    thresholds: &Thresholds,
) -> Result<CollectReport, RunReportError> {
    // UTF-8 or UTF-16 (PowerShell's `>`), a BOM dropped: one decoder for every input.
    let binary = || err("binary data (a NUL byte); expected kgkit's kg_run.json");
    let decoded = crate::text::decode_strict(bytes).map_err(|e| {
        if e.encoding == crate::text::Encoding::Utf8 && bytes.contains(&0) {
            binary()
        } else {
            RunReportError {
                line: Some(e.line),
                column: None,
                message: format!(
                    "not {} text (byte offset {}); expected kgkit's kg_run.json",
                    e.encoding.name(),
                    e.offset
                ),
            }
        }
    })?;
    if decoded.contains('\0') {
        return Err(binary());
    }
    let text_in: &str = &decoded;
    if text_in.trim().is_empty() {
        return Err(err(
            "the file is empty; expected kgkit's kg_run.json (an object with a `jobs` list)",
        ));
    }
    let value: Value = serde_json::from_str(text_in).map_err(|e| RunReportError {
        line: Some(e.line()),
        column: Some(e.column()),
        message: format!(
            "not valid JSON ({}); expected kgkit's kg_run.json",
            crate::kernel::metadata::serde_reason(&e)
        ),
    })?;
    let Some(root) = value.as_object() else {
        return Err(err(format!(
            "the JSON is {}, not an object; expected kgkit's kg_run.json (an object with a `jobs` list)",
            crate::kernel::metadata::json_type(&value)
        )));
    };
    let Some(jobs_v) = root.get("jobs").and_then(Value::as_array) else {
        return Err(err(
            "no `jobs` list: this is not kgkit's kg_run.json (expected jobs, accelerator, gpus, elapsed_s, budget_h, gpu_util...)",
        ));
    };

    let busy_pct = thresholds.get(threshold::RUN_REPORT_BUSY_UTIL_PCT);
    let jobs: Vec<JobSummary> = jobs_v
        .iter()
        .enumerate()
        .filter_map(|(i, j)| j.as_object().map(|m| job_summary(m, i)))
        .collect();
    let accelerator = text(root.get("accelerator"));
    let gpus = match root.get("gpus") {
        Some(Value::Array(a)) => a.len(),
        Some(v) => num(Some(v)).map(|x| x.max(0.0) as usize).unwrap_or(0),
        None => 0,
    };
    let elapsed_s = num(root.get("elapsed_s"));
    let budget_h = num(root.get("budget_h"));
    let deadline_flag = boolean(root.get("deadline_hit")).unwrap_or(false);
    let gpu_util = gpu_utils(root.get("gpu_util"), busy_pct);
    let busy_gpus = gpu_util.iter().filter(|g| g.busy).count();
    let tpu = accelerator
        .as_deref()
        .is_some_and(|a| a.to_ascii_lowercase().contains("tpu"));
    // A CPU run: no accelerator named, no GPU listed, no GPU sampled. A GPU run whose nvidia-smi failed
    // still names its accelerator and is charged.
    let no_accel = accelerator.as_deref().is_none_or(|a| {
        let a = a.trim().to_ascii_lowercase();
        a.is_empty() || a == "none" || a == "cpu"
    });
    let cpu = !tpu && no_accel && gpus == 0 && gpu_util.is_empty();

    let mut findings = Vec::new();
    let mut used: Vec<String> = Vec::new();
    let all_folds: Vec<(&str, &FoldSummary)> = jobs
        .iter()
        .flat_map(|j| j.folds.iter().map(move |f| (j.name.as_str(), f)))
        .collect();
    let list = |outcome: FoldOutcome| -> Vec<String> {
        all_folds
            .iter()
            .filter(|(_, f)| f.outcome == outcome)
            .map(|(j, f)| format!("{j} fold {}", f.fold))
            .collect()
    };

    // ---- did the runner finish (KR008), was it stopped by the cap (KR005)
    let finished = elapsed_s.is_some();
    let cap_frac = thresholds.get(threshold::RUN_REPORT_CAP_REACHED_FRACTION);
    let status = text(root.get("status")).map(|s| s.to_ascii_lowercase());
    let cancelled = status.as_deref().is_some_and(|s| s.contains("cancel"));
    let busiest_gpu_s = {
        let mut per: std::collections::BTreeMap<i64, f64> = std::collections::BTreeMap::new();
        for (_, f) in &all_folds {
            *per.entry(f.gpu.unwrap_or(0)).or_default() += f.seconds.unwrap_or(0.0);
        }
        per.values().cloned().fold(0.0, f64::max)
    };
    let ran_s = elapsed_s.unwrap_or(busiest_gpu_s);
    if let Some(b) = budget_h {
        used.push(threshold::RUN_REPORT_CAP_REACHED_FRACTION.into());
        let at_cap = b > 0.0 && ran_s >= cap_frac * b * 3600.0 && !deadline_flag;
        if cancelled || at_cap {
            findings.push(Finding::from_rule(
                rule::KR005,
                format!(
                    "ran {} of a {} cap (>= {} %){}{}",
                    h(ran_s / 3600.0),
                    h(b),
                    fixed(cap_frac * 100.0, 0),
                    if cancelled { ", status cancelled" } else { "" },
                    if finished {
                        ""
                    } else {
                        ", and the runner never wrote its final report"
                    }
                ),
            ));
        }
    } else if cancelled {
        findings.push(Finding::from_rule(
            rule::KR005,
            "status cancelled (no budget_h in the report)",
        ));
    }
    if !finished {
        findings.push(Finding::from_rule(
            rule::KR008,
            format!(
                "no elapsed_s: the runner never wrote its final report; {} of {} folds done",
                all_folds
                    .iter()
                    .filter(|(_, f)| f.outcome == FoldOutcome::Done)
                    .count(),
                all_folds.len()
            ),
        ));
    } else {
        let unexplained: Vec<String> = jobs
            .iter()
            .filter(|j| j.complete == Some(false))
            .filter(|j| j.folds.iter().all(|f| f.outcome == FoldOutcome::Done) && !deadline_flag)
            .map(|j| j.name.clone())
            .collect();
        if !unexplained.is_empty() {
            findings.push(Finding::from_rule(
                rule::KR008,
                format!(
                    "job(s) {} not complete although every fold is done (assembly did not finish)",
                    unexplained.join(", ")
                ),
            ));
        }
    }

    // ---- deadline (KR004)
    let timed_out = list(FoldOutcome::Timeout);
    let never = list(FoldOutcome::NeverStarted);
    if deadline_flag || !timed_out.is_empty() || (!never.is_empty() && finished) {
        let mut parts = Vec::new();
        if deadline_flag {
            parts.push("deadline_hit is true".to_string());
        }
        if !timed_out.is_empty() {
            parts.push(format!("timed out or killed: {}", timed_out.join(", ")));
        }
        if !never.is_empty() {
            parts.push(format!("never started: {}", never.join(", ")));
        }
        let resume = text(root.get("build_id"))
            .and_then(|b| b.split('@').next().map(str::to_string))
            .map(|slug| format!(" (e.g. --resume-from <user>/{slug})"))
            .unwrap_or_default();
        findings.push(Finding::from_rule(
            rule::KR004,
            format!("{}{resume}", parts.join("; ")),
        ));
    }

    // ---- pruned (KR006), failed (KR007)
    let pruned = list(FoldOutcome::Pruned);
    if !pruned.is_empty() {
        findings.push(Finding::from_rule(
            rule::KR006,
            format!("pruned: {}", pruned.join(", ")),
        ));
    }
    let tail_lines = thresholds
        .get(threshold::RUN_REPORT_LOG_TAIL_LINES)
        .max(1.0) as usize;
    for (job, raw) in jobs.iter().zip(jobs_v.iter()) {
        let errors = raw.get("errors").and_then(Value::as_object);
        for f in job
            .folds
            .iter()
            .filter(|f| f.outcome == FoldOutcome::Failed)
        {
            let log = errors.and_then(|e| e.get(&f.fold)).and_then(|v| match v {
                Value::String(s) => Some(s.clone()),
                Value::Array(lines) => Some(
                    lines
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join("\n"),
                ),
                _ => None,
            });
            let rc = f
                .returncode
                .map(|c| format!(", exit code {c}"))
                .unwrap_or_default();
            let ev = match log {
                Some(l) if !l.trim().is_empty() => format!(
                    "{} fold {}{rc}; log tail: {}",
                    job.name,
                    f.fold,
                    tail(&l, tail_lines)
                ),
                _ => format!("{} fold {}{rc}; no log tail in `errors`", job.name, f.fold),
            };
            used.push(threshold::RUN_REPORT_LOG_TAIL_LINES.into());
            findings.push(Finding::from_rule(rule::KR007, ev));
        }
    }

    // ---- utilisation (KR001, KR002, KR003)
    let too_short_min = thresholds.get(threshold::RUN_REPORT_TOO_SHORT_MINUTES);
    let too_short = elapsed_s.is_some_and(|e| e < too_short_min * 60.0);
    if too_short {
        used.push(threshold::RUN_REPORT_TOO_SHORT_MINUTES.into());
        findings.push(Finding::from_rule(
            rule::KR003,
            format!(
                "elapsed {} min < {} min",
                fixed(elapsed_s.unwrap_or(0.0) / 60.0, 1),
                shortest(too_short_min)
            ),
        ));
    }
    let describe = |g: &GpuUtil| {
        format!(
            "GPU {} mean {}",
            g.index,
            g.util_mean
                .map(|u| format!("{} %", fixed(u, 1)))
                .unwrap_or_else(|| "n/a".into())
        )
    };
    if gpu_util.len() >= 2 && busy_gpus >= 1 && busy_gpus < gpu_util.len() {
        used.push(threshold::RUN_REPORT_BUSY_UTIL_PCT.into());
        findings.push(Finding::from_rule(
            rule::KR001,
            format!(
                "{} (busy means mean util > {} %)",
                gpu_util.iter().map(describe).collect::<Vec<_>>().join(", "),
                shortest(busy_pct)
            ),
        ));
    }
    let input_bound = thresholds.get(threshold::RUN_REPORT_INPUT_BOUND_UTIL_PCT);
    if busy_gpus > 0 && !too_short {
        let busy: Vec<&GpuUtil> = gpu_util.iter().filter(|g| g.busy).collect();
        let mean = busy.iter().filter_map(|g| g.util_mean).sum::<f64>() / busy.len() as f64;
        used.push(threshold::RUN_REPORT_INPUT_BOUND_UTIL_PCT.into());
        if mean < input_bound {
            findings.push(Finding::from_rule(
                rule::KR002,
                format!(
                    "busy GPUs' mean utilisation {} % < {} % ({})",
                    fixed(mean, 1),
                    shortest(input_bound),
                    busy.iter()
                        .map(|g| describe(g))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
    }

    // ---- cost per fold
    let done: Vec<f64> = all_folds
        .iter()
        .filter(|(_, f)| f.outcome == FoldOutcome::Done)
        .filter_map(|(_, f)| f.seconds)
        .collect();
    let cost = if done.is_empty() {
        None
    } else {
        Some(done.iter().sum::<f64>() / done.len() as f64 / 3600.0)
    };
    let divisor = if gpu_util.is_empty() || busy_gpus == 0 {
        1
    } else {
        busy_gpus
    };
    let quota = cost.map(|c| if cpu { 0.0 } else { c / divisor as f64 });
    if cost.is_none() {
        findings.push(Finding::from_rule(
            rule::KR009,
            format!(
                "no completed fold with a duration among {} folds",
                all_folds.len()
            ),
        ));
    } else if gpu_util.is_empty() && !cpu && !tpu {
        findings.push(
            Finding::from_rule(
                rule::KR009,
                format!(
                    "accelerator {}, {gpus} GPU(s) listed, no gpu_util samples: quota hours per fold assume one busy GPU",
                    accelerator.as_deref().unwrap_or("unknown")
                ),
            )
            .with_title("No GPU utilisation sampled: quota per fold assumes one busy GPU")
            .with_fix("Keep the runner's nvidia-smi sampler on (unset KG_FAKE_GPUS) to measure both GPUs."),
        );
    }

    crate::text::sort::sort_by_key(&mut findings, |f| f.severity);
    let mut rules: Vec<String> = findings.iter().map(|f| f.rule.clone()).collect();
    rules.extend(used.iter().cloned());
    crate::text::sort::sort(&mut rules);
    rules.dedup();
    findings.extend(stale_findings_for(&used, today, thresholds));
    let folds_done = all_folds
        .iter()
        .filter(|(_, f)| f.outcome == FoldOutcome::Done)
        .count();
    Ok(CollectReport {
        schema: COLLECT_SCHEMA,
        input: input.to_string(),
        build_id: text(root.get("build_id")),
        accelerator,
        gpus,
        started_utc: text(root.get("started_utc")),
        elapsed_s,
        budget_h,
        deadline_hit: deadline_flag,
        folds_total: all_folds.len(),
        folds_done,
        jobs,
        gpu_util,
        busy_gpus,
        cost_per_fold_hours: cost,
        quota_hours_per_fold: quota,
        rules,
        findings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 30).unwrap_or_default()
    }

    fn run(v: &Value) -> CollectReport {
        collect(
            "kg_run.json",
            v.to_string().as_bytes(),
            today(),
            &Thresholds::defaults(),
        )
        .unwrap()
    }

    fn rules(r: &CollectReport) -> Vec<&str> {
        r.findings.iter().map(|f| f.rule.as_str()).collect()
    }

    fn healthy() -> Value {
        json!({
            "jobs": [{"name": "effb0", "cmd": "python train.py", "folds": [0, 1], "folds_done": [0, 1],
                "folds_incomplete": [], "complete": true, "assembled": true, "errors": {},
                "fold_status": {
                    "0": {"fold": 0, "status": "done", "best": 0.81, "seconds": 7200.0, "gpu": 0, "killed": false, "returncode": 0},
                    "1": {"fold": 1, "status": "done", "best": 0.80, "seconds": 7920.0, "gpu": 1, "killed": false, "returncode": 0}
                }}],
            "accelerator": "NvidiaTeslaT4", "gpus": ["Tesla T4, 15360 MiB", "Tesla T4, 15360 MiB"],
            "started_utc": "2026-11-28T10:00:00Z", "elapsed_s": 8100.0, "budget_h": 3.0, "deadline_hit": false,
            "gpu_util": {"0": {"util_mean": 91.0, "util_p10": 80, "mem_peak_mb": 11000, "n": 270},
                         "1": {"util_mean": 88.5, "util_p10": 75, "mem_peak_mb": 11200, "n": 270}},
            "build_id": "effb0-train@2026-11-28T09:55:00Z"
        })
    }

    #[test]
    fn a_healthy_run_has_no_findings_and_its_costs() {
        let r = run(&healthy());
        assert!(r.findings.is_empty(), "{:?}", r.findings);
        assert!((r.cost_per_fold_hours.unwrap() - 2.1).abs() < 1e-9);
        assert!((r.quota_hours_per_fold.unwrap() - 1.05).abs() < 1e-9);
        assert_eq!(r.busy_gpus, 2);
    }

    #[test]
    fn idle_second_gpu_divides_by_busy_gpus_only() {
        let mut v = healthy();
        v["gpu_util"]["1"]["util_mean"] = json!(0.4);
        let r = run(&v);
        assert_eq!(rules(&r), vec!["KR001"]);
        assert!((r.quota_hours_per_fold.unwrap() - 2.1).abs() < 1e-9);
    }

    #[test]
    fn input_bound_but_not_when_too_short() {
        let mut v = healthy();
        v["gpu_util"]["0"]["util_mean"] = json!(45.0);
        v["gpu_util"]["1"]["util_mean"] = json!(50.0);
        assert_eq!(rules(&run(&v)), vec!["KR002"]);
        v["elapsed_s"] = json!(600.0);
        assert_eq!(rules(&run(&v)), vec!["KR003"]);
    }

    #[test]
    fn deadline_failed_pruned_and_unfinished() {
        let mut v = healthy();
        v["jobs"][0]["folds"] = json!([0, 1, 2, 3, 4]);
        v["jobs"][0]["fold_status"]["1"] =
            json!({"fold": 1, "status": "failed", "returncode": 1, "seconds": 60});
        v["jobs"][0]["fold_status"]["2"] = json!({"fold": 2, "status": "timeout", "killed": true});
        v["jobs"][0]["fold_status"]["3"] = json!({"fold": 3, "status": "pruned", "seconds": 900});
        v["jobs"][0]["errors"] =
            json!({"1": "Traceback\n  File x\nRuntimeError: CUDA out of memory"});
        v["deadline_hit"] = json!(true);
        let r = run(&v);
        let rs = rules(&r);
        for want in ["KR004", "KR006", "KR007"] {
            assert!(rs.contains(&want), "{rs:?}");
        }
        let failed = r.findings.iter().find(|f| f.rule == "KR007").unwrap();
        assert!(
            failed.evidence.contains("CUDA out of memory"),
            "{}",
            failed.evidence
        );
        let dl = r.findings.iter().find(|f| f.rule == "KR004").unwrap();
        assert!(
            dl.evidence.contains("fold 4")
                && dl.evidence.contains("--resume-from <user>/effb0-train"),
            "{}",
            dl.evidence
        );
        v.as_object_mut().unwrap().remove("elapsed_s");
        assert!(rules(&run(&v)).contains(&"KR008"));
    }

    #[test]
    fn stopped_by_the_cap() {
        let mut v = healthy();
        v["elapsed_s"] = json!(10790.0);
        assert_eq!(rules(&run(&v)), vec!["KR005"]);
        v["deadline_hit"] = json!(true);
        assert!(!rules(&run(&v)).contains(&"KR005"));
    }

    #[test]
    fn unreadable_reports_are_errors() {
        let t = Thresholds::defaults();
        let e = collect("x", b"{\n  \"jobs\": [,]\n}", today(), &t).unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(
            collect("x", b"[]", today(), &t)
                .unwrap_err()
                .message
                .contains("not an object")
        );
        assert!(
            collect("x", b"{\"a\": 1}", today(), &t)
                .unwrap_err()
                .message
                .contains("no `jobs`")
        );
        assert!(
            collect("x", b"\0\x01", today(), &t)
                .unwrap_err()
                .message
                .contains("binary")
        );
    }

    #[test]
    fn quota_per_fold_of_cpu_tpu_and_unsampled_gpu_runs() {
        let mut v = healthy();
        v.as_object_mut().unwrap().remove("gpu_util");
        v["gpus"] = json!([]);
        // The accelerator is a GPU although nvidia-smi listed none: charged for one GPU, and said so.
        let r = run(&v);
        assert!((r.quota_hours_per_fold.unwrap() - 2.1).abs() < 1e-9);
        assert_eq!(rules(&r), vec!["KR009"]);
        v["accelerator"] = json!("cpu");
        assert_eq!(run(&v).quota_hours_per_fold, Some(0.0));
        v["accelerator"] = json!("TpuV5E8");
        let r = run(&v);
        assert!((r.quota_hours_per_fold.unwrap() - 2.1).abs() < 1e-9);
        assert!(r.findings.is_empty(), "{:?}", r.findings);
    }

    #[test]
    fn no_completed_fold_is_said() {
        let v = json!({"jobs": [{"name": "a", "folds": [0], "fold_status": {}}], "elapsed_s": 5000.0, "gpus": []});
        let r = run(&v);
        assert!(rules(&r).contains(&"KR009"));
        assert_eq!(r.cost_per_fold_hours, None);
    }
}
