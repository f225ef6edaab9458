//! kgkit's runs log (`.kaggle-gm/gpu_runs.jsonl`, formats.md §10) and the reservation ledger built on it
//! (KG §1, §2, §6): the runs in flight reserve the part of their cap the quota figure does not include
//! yet, and the runs finished since a figure was read count against it.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;

use crate::quota::json_hours;
use crate::text::json;
use crate::text::when::{DateRole, parse_time};

/// One entry of kgkit's `.kaggle-gm/gpu_runs.jsonl` (formats.md §10).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoggedRun {
    pub line: usize,
    pub kernel: String,
    pub status: String,
    /// What the run's hours are charged to (its `accelerator`).
    pub accelerator: RunAccelerator,
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

/// Statuses of a run still holding its reservation: kgkit's in-flight statuses, and `pending` (a push in
/// a background command, waiting for a session slot; KG §2).
pub const ACTIVE_STATUSES: &[&str] = &["pushed", "queued", "running", "pending"];

/// The quota a logged run is charged to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum RunAccelerator {
    Gpu,
    Tpu,
    /// `accelerator: "none"`: a CPU kernel, charged to no quota (KG §1).
    Cpu,
}

impl RunAccelerator {
    /// From the runs log's `accelerator`: `Tpu…` is the TPU, `none` (kgkit's CPU kernels) or `cpu` no
    /// accelerator, anything else (the GPU shapes, or nothing logged) the GPU quota.
    pub fn of(accelerator: &str) -> RunAccelerator {
        let a = accelerator.trim().to_ascii_lowercase();
        if a.starts_with("tpu") {
            RunAccelerator::Tpu
        } else if a == "none" || a == "cpu" {
            RunAccelerator::Cpu
        } else {
            RunAccelerator::Gpu
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            RunAccelerator::Gpu => "GPU",
            RunAccelerator::Tpu => "TPU",
            RunAccelerator::Cpu => "CPU",
        }
    }
}

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
                    crate::text::json::serde_reason(&e)
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
        log.runs.push(LoggedRun {
            line: n,
            kernel: s("kernel")
                .or_else(|| s("name"))
                .unwrap_or_else(|| format!("line {n}")),
            status,
            accelerator: RunAccelerator::of(&s("accelerator").unwrap_or_default()),
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
