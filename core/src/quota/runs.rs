//! kgkit's runs log (`.kaggle-gm/gpu_runs.jsonl`, formats.md §10): the runs in flight reserve quota
//! hours, and the runs finished since a figure was read count against it.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;

use crate::quota::{hours_between, json_hours, round2};
use crate::rulebook::Thresholds;
use crate::rulebook::ids::{fact, threshold};
use crate::rulebook::rulebook;
use crate::text::json;
use crate::text::number::{fixed, shortest};
use crate::text::when::{DateRole, parse_time};

/// One entry of kgkit's `.kaggle-gm/gpu_runs.jsonl` (formats.md §10).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoggedRun {
    pub line: usize,
    pub kernel: String,
    pub status: String,
    pub tpu: bool,
    /// The run's cap (`hours`), if logged.
    pub hours: Option<f64>,
    pub pushed_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
    pub gpu_hours: Option<f64>,
}

/// The runs log as read: the runs, and the lines that could not be read.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RunsLog {
    pub runs: Vec<LoggedRun>,
    pub diagnostics: Vec<String>,
}

/// Statuses of a run still holding its reservation (kgkit).
pub const ACTIVE_STATUSES: &[&str] = &["pushed", "queued", "running"];

/// Reads kgkit's `gpu_runs.jsonl`: one JSON object per line; unreadable lines become diagnostics naming
/// the line and what was expected, the rest is kept.
pub fn read_runs_log(text: &str) -> RunsLog {
    let mut log = RunsLog::default();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let t = line.trim().trim_start_matches('\u{feff}');
        if t.is_empty() {
            continue;
        }
        let obj = match serde_json::from_str::<Value>(t) {
            Ok(Value::Object(o)) => o,
            Ok(_) => {
                log.diagnostics.push(format!(
                    "line {n}: expected a JSON object (one run per line), skipped"
                ));
                continue;
            }
            Err(e) => {
                log.diagnostics.push(format!(
                    "line {n}, column {}: not JSON ({}), skipped; expected one JSON object per line",
                    e.column(),
                    crate::kernel::metadata::serde_reason(&e)
                ));
                continue;
            }
        };
        let s = |k: &str| obj.get(k).and_then(Value::as_str).map(str::to_string);
        let time = |k: &str, diags: &mut Vec<String>| -> Option<DateTime<Utc>> {
            let v = s(k)?;
            match parse_time(&v, DateRole::Instant) {
                Ok(t) => Some(t),
                Err(_) => {
                    diags.push(format!(
                        "line {n}: `{k}` {v:?} is not a time (expected YYYY-MM-DDTHH:MM:SSZ)"
                    ));
                    None
                }
            }
        };
        let pushed_at = time("pushed_at", &mut log.diagnostics);
        let finished_at = time("finished_at", &mut log.diagnostics);
        let hours = match obj.get("hours") {
            None | Some(Value::Null) => None,
            Some(v) => {
                match json_hours(v) {
                    Ok(h) if h > 0.0 => Some(h),
                    _ => {
                        log.diagnostics.push(format!("line {n}: `hours` {} is not a positive number; the default cap is used", json::text(v)));
                        None
                    }
                }
            }
        };
        let status = match obj.get("status") {
            Some(Value::String(st)) => st.to_ascii_lowercase(),
            other => {
                log.diagnostics.push(format!(
                    "line {n}: `status` {}: expected a string (pushed, queued, running, complete, ...), skipped",
                    other.map(json::text).unwrap_or_else(|| "missing".to_string())
                ));
                continue;
            }
        };
        let accelerator = s("accelerator").unwrap_or_default();
        log.runs.push(LoggedRun {
            line: n,
            kernel: s("kernel")
                .or_else(|| s("name"))
                .unwrap_or_else(|| format!("line {n}")),
            status,
            tpu: accelerator.to_ascii_lowercase().starts_with("tpu"),
            hours,
            pushed_at,
            finished_at,
            gpu_hours: obj
                .get("gpu_hours")
                .and_then(Value::as_f64)
                .filter(|h| h.is_finite() && *h >= 0.0),
        });
    }
    log
}

/// What one in-flight run holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reservation {
    pub kernel: String,
    pub accelerator: &'static str,
    pub status: String,
    pub cap_hours: f64,
    pub ran_hours: f64,
    pub reserved_hours: f64,
    pub line: usize,
}

/// Reservations of the in-flight runs: each run's cap (default 12 h) minus the time it has run since
/// `pushed_at`; entries older than cap + margin are stale and skipped (returned apart).
pub fn reservations(
    log: &RunsLog,
    now: DateTime<Utc>,
    thresholds: &Thresholds,
) -> (Vec<Reservation>, Vec<String>) {
    let default_cap = rulebook().fact_value(fact::QUOTA_DEFAULT_RUN_CAP_HOURS);
    let margin = thresholds.get(threshold::QUOTA_STALE_RUN_MARGIN_HOURS);
    let mut held = Vec::new();
    let mut stale = Vec::new();
    for run in &log.runs {
        if !ACTIVE_STATUSES.contains(&run.status.as_str()) {
            continue;
        }
        let cap = run.hours.unwrap_or(default_cap);
        let ran = run
            .pushed_at
            .map(|p| hours_between(p, now).max(0.0))
            .unwrap_or(0.0);
        if ran > cap + margin {
            stale.push(format!(
                "{} (line {}, {}, pushed {} h ago, cap {} h): stale, skipped",
                run.kernel,
                run.line,
                run.status,
                fixed(ran, 1),
                shortest(cap)
            ));
            continue;
        }
        held.push(Reservation {
            kernel: run.kernel.clone(),
            accelerator: if run.tpu { "TPU" } else { "GPU" },
            status: run.status.clone(),
            cap_hours: cap,
            ran_hours: round2(ran),
            reserved_hours: round2((cap - ran).max(0.0)),
            line: run.line,
        });
    }
    (held, stale)
}
