//! The reservation ledger (KG §1, §2, §6; spec §6): what each run of kgkit's runs log still holds of the
//! quota, counted from when the quota figure was read. A figure read at R already includes the hours a
//! run spent before R, so a run holds its cap minus the hours it ran before R; a run that had not started
//! by R (queued, pending) holds its whole cap. The quota advisor, the plan and the kernel check all
//! reserve through [`ledger`].

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use crate::quota::{ACTIVE_STATUSES, LoggedRun, RunAccelerator, RunsLog, hours_between, round2};
use crate::rulebook::Thresholds;
use crate::rulebook::ids::{fact, threshold};
use crate::rulebook::rulebook;
use crate::text::number::{fixed, shortest};
use crate::text::when::rfc3339;

/// How an in-flight run holds its cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Holding {
    /// Running: the hours it ran before the figure was read are in the figure already.
    Running,
    /// Waiting for its session (a TPU job waits 10-24 h): the whole cap, for the whole wait.
    Queued,
    /// A push in a background command waiting for a session slot: the whole cap until Kaggle lists a
    /// newer version of the kernel (a later entry of it in the log).
    Pending,
}

/// What one in-flight run holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Reservation {
    pub kernel: String,
    pub accelerator: &'static str,
    pub status: String,
    pub holding: Holding,
    pub cap_hours: f64,
    /// True when the cap is the session limit because the log gives none.
    pub cap_assumed: bool,
    /// Hours of the cap the run had used before the figure was read (the figure includes them).
    pub ran_hours: f64,
    /// What it still holds: cap − ran_hours.
    pub reserved_hours: f64,
    pub line: usize,
}

/// The ledger of a runs log: the reservations, and the in-flight entries that hold nothing, each as a
/// line that names the kernel, its line and why.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Ledger {
    pub held: Vec<Reservation>,
    /// Logged in flight for longer than they could be (stale): they reserve nothing.
    pub stale: Vec<String>,
    /// Older in-flight entries of a kernel pushed again: the newer entry replaces them.
    pub replaced: Vec<String>,
    /// CPU runs (`accelerator: "none"`): no GPU or TPU hours.
    pub cpu: Vec<String>,
    /// When the reservations count from: when the figure was read (now when that is unknown).
    pub counted_from: String,
}

/// The limits a ledger is kept with, from the facts and thresholds.
struct Limits {
    gpu_cap: f64,
    tpu_cap: f64,
    tpu_queue_min: f64,
    tpu_queue_max: f64,
    stale_margin: f64,
}

impl Limits {
    fn of(thresholds: &Thresholds) -> Limits {
        let book = rulebook();
        Limits {
            gpu_cap: book.fact_value(fact::QUOTA_DEFAULT_RUN_CAP_HOURS),
            tpu_cap: book.fact_value(fact::QUOTA_TPU_SESSION_HOURS),
            tpu_queue_min: book.fact_value(fact::QUOTA_TPU_QUEUE_MIN_HOURS),
            tpu_queue_max: book.fact_value(fact::QUOTA_TPU_QUEUE_MAX_HOURS),
            stale_margin: thresholds.get(threshold::QUOTA_STALE_RUN_MARGIN_HOURS),
        }
    }

    /// A run's cap: the logged `hours`, else its accelerator's session limit (a push without -t
    /// reserves the whole session, KG §1).
    fn cap(&self, run: &LoggedRun) -> (f64, bool) {
        match (run.hours, run.accelerator) {
            (Some(h), _) => (h, false),
            (None, RunAccelerator::Tpu) => (self.tpu_cap, true),
            (None, _) => (self.gpu_cap, true),
        }
    }
}

/// How an in-flight status holds: `queued` and `pending` as they say; `pushed` is running on a GPU (a GPU
/// session starts at the push when a slot is free) and queued on a TPU (every TPU job waits, KG §6).
fn holding_of(run: &LoggedRun) -> Holding {
    match run.status.as_str() {
        "queued" => Holding::Queued,
        "pending" => Holding::Pending,
        "pushed" if run.accelerator == RunAccelerator::Tpu => Holding::Queued,
        _ => Holding::Running,
    }
}

/// When a running run started, as far as the log tells: at the push on a GPU; on a TPU no earlier than
/// the shortest queue wait after it (the log does not say when it left the queue, and a later start only
/// holds more).
fn started_at(run: &LoggedRun, limits: &Limits) -> Option<DateTime<Utc>> {
    let pushed = run.pushed_at?;
    Some(match run.accelerator {
        RunAccelerator::Tpu => {
            pushed + Duration::minutes((limits.tpu_queue_min * 60.0).round() as i64)
        }
        _ => pushed,
    })
}

/// The ledger of `log`: every in-flight run's reservation counted from `read_at` (when the figure was
/// read; `None`: unknown, counted from `now` as the rest of an undated answer is), the stale, replaced
/// and CPU entries apart.
pub fn ledger(
    log: &RunsLog,
    read_at: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
    thresholds: &Thresholds,
) -> Ledger {
    let limits = Limits::of(thresholds);
    let counted_from = read_at.unwrap_or(now);
    let mut ledger = Ledger {
        counted_from: rfc3339(counted_from),
        ..Ledger::default()
    };
    for (i, run) in log.runs.iter().enumerate() {
        if !ACTIVE_STATUSES.contains(&run.status.as_str()) {
            continue;
        }
        let newer = log.runs.iter().skip(i + 1).find(|r| r.kernel == run.kernel);
        if let Some(newer) = newer {
            ledger.replaced.push(format!(
                "{} (line {}, {}): pushed again on line {} ({}), which replaces it",
                run.kernel, run.line, run.status, newer.line, newer.status
            ));
            continue;
        }
        if run.accelerator == RunAccelerator::Cpu {
            ledger.cpu.push(format!(
                "{} (line {}, {}): a CPU run, no GPU or TPU hours held",
                run.kernel, run.line, run.status
            ));
            continue;
        }
        match reservation(run, &limits, counted_from, now) {
            Ok(held) => ledger.held.push(held),
            Err(stale) => ledger.stale.push(stale),
        }
    }
    ledger
}

/// What one in-flight run holds, or why it is stale: in flight longer than it can be (running: its cap
/// plus the margin since it started; queued: the longest queue wait, its cap and the margin since the
/// push). A pending push never turns stale: only a newer version of the kernel ends it (or `kgadvise
/// release`, kgkit's `gpu release`).
fn reservation(
    run: &LoggedRun,
    limits: &Limits,
    counted_from: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<Reservation, String> {
    let (cap, cap_assumed) = limits.cap(run);
    let holding = holding_of(run);
    let (ran, in_flight, longest) = match holding {
        Holding::Running => {
            let start = started_at(run, limits);
            let before_read = start.map_or(0.0, |s| hours_between(s, counted_from).clamp(0.0, cap));
            let since = start.map_or(0.0, |s| hours_between(s, now));
            (before_read, since, cap + limits.stale_margin)
        }
        Holding::Queued => {
            let since = run.pushed_at.map_or(0.0, |p| hours_between(p, now));
            (0.0, since, limits.tpu_queue_max + cap + limits.stale_margin)
        }
        Holding::Pending => (0.0, 0.0, f64::INFINITY),
    };
    if in_flight > longest {
        return Err(format!(
            "{} (line {}, {}, in flight {} h, longest possible {} h): stale, skipped",
            run.kernel,
            run.line,
            run.status,
            fixed(in_flight, 1),
            shortest(longest)
        ));
    }
    Ok(Reservation {
        kernel: run.kernel.clone(),
        accelerator: run.accelerator.name(),
        status: run.status.clone(),
        holding,
        cap_hours: cap,
        cap_assumed,
        ran_hours: round2(ran),
        reserved_hours: round2((cap - ran).max(0.0)),
        line: run.line,
    })
}
