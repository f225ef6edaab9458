//! The run-report rules, one function each over the run as read (each function's doc names its rule).

use std::collections::BTreeMap;

use serde_json::Value;

use super::{FoldOutcome, GpuUtil, RunContext, read, session};
use crate::rulebook::finding::Finding;
use crate::rulebook::ids::{fact, rule, threshold};
use crate::rulebook::report::Findings;
use crate::rulebook::rulebook;
use crate::text::number::{fixed, shortest};

pub(super) fn h(x: f64) -> String {
    format!("{} h", fixed(x, 2))
}

/// The last `lines` non-blank lines of a log, on one line.
pub(super) fn tail(log: &str, lines: usize) -> String {
    let all: Vec<&str> = log.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = all.len().saturating_sub(lines);
    all.get(start..).unwrap_or_default().join(" | ")
}

/// "GPU 1 mean 0.4 %".
fn describe(g: &GpuUtil) -> String {
    format!(
        "GPU {} mean {}",
        g.index,
        g.util_mean
            .map(|u| format!("{} %", fixed(u, 1)))
            .unwrap_or_else(|| "n/a".into())
    )
}

/// The run's status says it was cancelled.
fn cancelled(run: &RunContext) -> bool {
    read::text(run.root.get("status")).is_some_and(|s| s.to_ascii_lowercase().contains("cancel"))
}

/// KR005: the run was stopped by its cap (or cancelled).
pub(super) fn stopped_by_cap(run: &RunContext, out: &mut Findings) {
    let cancelled = cancelled(run);
    let Some(b) = run.budget_h else {
        if cancelled {
            out.add(rule::KR005, "status cancelled (no budget_h in the report)");
        }
        return;
    };
    out.uses(threshold::RUN_REPORT_CAP_REACHED_FRACTION);
    let cap_frac = run
        .thresholds
        .get(threshold::RUN_REPORT_CAP_REACHED_FRACTION);
    // Without the final report, the busiest GPU's fold time is how long the run went.
    let busiest_gpu_s = {
        let mut per: BTreeMap<i64, f64> = BTreeMap::new();
        for (_, f) in run.folds() {
            *per.entry(f.gpu.unwrap_or(0)).or_default() += f.seconds.unwrap_or(0.0);
        }
        per.values().cloned().fold(0.0, f64::max)
    };
    let ran_s = run.elapsed_s.unwrap_or(busiest_gpu_s);
    let at_cap = b > 0.0 && ran_s >= cap_frac * b * 3600.0 && !run.deadline_hit;
    if cancelled || at_cap {
        out.add(
            rule::KR005,
            format!(
                "ran {} of a {} cap (>= {} %){}{}",
                h(ran_s / 3600.0),
                h(b),
                fixed(cap_frac * 100.0, 0),
                if cancelled { ", status cancelled" } else { "" },
                if run.finished() {
                    ""
                } else {
                    ", and the runner never wrote its final report"
                }
            ),
        );
    }
}

/// KR008: the runner never wrote its final report, or a job with every fold done did not complete.
pub(super) fn runner_unfinished(run: &RunContext, out: &mut Findings) {
    if !run.finished() {
        out.add(
            rule::KR008,
            format!(
                "no elapsed_s: the runner never wrote its final report; {} of {} folds done",
                run.count(FoldOutcome::Done),
                run.folds().count()
            ),
        );
        return;
    }
    let unexplained: Vec<String> = run
        .jobs
        .iter()
        .filter(|j| j.complete == Some(false))
        .filter(|j| j.folds.iter().all(|f| f.outcome == FoldOutcome::Done) && !run.deadline_hit)
        .map(|j| j.name.clone())
        .collect();
    if !unexplained.is_empty() {
        out.add(
            rule::KR008,
            format!(
                "job(s) {} not complete although every fold is done (assembly did not finish)",
                unexplained.join(", ")
            ),
        );
    }
}

/// KR004: the deadline was hit, or folds timed out or never started.
pub(super) fn deadline(run: &RunContext, out: &mut Findings) {
    let timed_out = run.list(FoldOutcome::Timeout);
    let never = run.list(FoldOutcome::NeverStarted);
    // A fold that never started was left by the deadline as much as one that timed out, whether or not
    // the runner lived to write its final report (KR008 says when it did not).
    if !run.deadline_hit && timed_out.is_empty() && never.is_empty() {
        return;
    }
    let mut parts = Vec::new();
    if run.deadline_hit {
        parts.push("deadline_hit is true".to_string());
    }
    if !timed_out.is_empty() {
        parts.push(format!("timed out or killed: {}", timed_out.join(", ")));
    }
    if !never.is_empty() {
        parts.push(format!(
            "never started: {}{}",
            never.join(", "),
            if run.finished() {
                ""
            } else {
                ", left when the session ended"
            }
        ));
    }
    let resume = read::text(run.root.get("build_id"))
        .and_then(|b| b.split('@').next().map(str::to_string))
        .map(|slug| format!(" (e.g. --resume-from <user>/{slug})"))
        .unwrap_or_default();
    out.add(rule::KR004, format!("{}{resume}", parts.join("; ")));
}

/// KR006: folds pruned.
pub(super) fn pruned(run: &RunContext, out: &mut Findings) {
    let pruned = run.list(FoldOutcome::Pruned);
    if !pruned.is_empty() {
        out.add(rule::KR006, format!("pruned: {}", pruned.join(", ")));
    }
}

/// A failed fold's log in its job's `errors` (a text or a list of lines).
fn error_log(errors: Option<&serde_json::Map<String, Value>>, fold: &str) -> Option<String> {
    match errors?.get(fold)? {
        Value::String(s) => Some(s.clone()),
        Value::Array(lines) => Some(
            lines
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        _ => None,
    }
}

/// KR007: a fold failed, with its exit code and the tail of its log.
pub(super) fn failed_folds(run: &RunContext, out: &mut Findings) {
    let tail_lines = run
        .thresholds
        .get(threshold::RUN_REPORT_LOG_TAIL_LINES)
        .max(1.0) as usize;
    for (job, raw) in run.jobs.iter().zip(&run.job_objects) {
        let errors = raw.get("errors").and_then(Value::as_object);
        for f in job
            .folds
            .iter()
            .filter(|f| f.outcome == FoldOutcome::Failed)
        {
            let rc = f
                .returncode
                .map(|c| format!(", exit code {c}"))
                .unwrap_or_default();
            let ev = match error_log(errors, &f.fold) {
                Some(l) if !l.trim().is_empty() => format!(
                    "{} fold {}{rc}; log tail: {}",
                    job.name,
                    f.fold,
                    tail(&l, tail_lines)
                ),
                _ => format!("{} fold {}{rc}; no log tail in `errors`", job.name, f.fold),
            };
            out.uses(threshold::RUN_REPORT_LOG_TAIL_LINES);
            out.add(rule::KR007, ev);
        }
    }
}

/// KR014: a failed fold's log says the disk is full.
pub(super) fn disk_full(run: &RunContext, out: &mut Findings) {
    for (job, raw) in run.jobs.iter().zip(&run.job_objects) {
        let errors = raw.get("errors").and_then(Value::as_object);
        for f in &job.folds {
            let Some(line) = error_log(errors, &f.fold)
                .as_deref()
                .and_then(session::disk_full_line)
                .map(str::to_string)
            else {
                continue;
            };
            out.uses(fact::KAGGLE_WORKING_GB);
            out.add(
                rule::KR014,
                format!(
                    "{} fold {}: \"{line}\" (a session saves about {} GB of /kaggle/working)",
                    job.name,
                    f.fold,
                    shortest(rulebook().fact_value(fact::KAGGLE_WORKING_GB))
                ),
            );
            return;
        }
    }
}

/// The run was shorter than the too-short limit.
fn is_too_short(run: &RunContext) -> bool {
    let minutes = run.thresholds.get(threshold::VERDICT_TOO_SHORT_MIN);
    run.elapsed_s.is_some_and(|e| e < minutes * 60.0)
}

/// KR003: a run too short for its start-up to pay off.
pub(super) fn too_short(run: &RunContext, out: &mut Findings) {
    if !is_too_short(run) {
        return;
    }
    let minutes = run.thresholds.get(threshold::VERDICT_TOO_SHORT_MIN);
    out.uses(threshold::VERDICT_TOO_SHORT_MIN);
    out.add(
        rule::KR003,
        format!(
            "elapsed {} min < {} min",
            fixed(run.elapsed_s.unwrap_or(0.0) / 60.0, 1),
            shortest(minutes)
        ),
    );
}

/// KR010: every sampled GPU at or below the busy level (a run long enough to judge).
pub(super) fn every_gpu_idle(run: &RunContext, out: &mut Findings) {
    let gpus = &run.gpu_util;
    let sampled = gpus.iter().filter(|g| g.util_mean.is_some()).count();
    // Every GPU read: one without a mean might have been the busy one.
    if sampled == 0 || sampled < gpus.len() || run.busy_gpus > 0 || is_too_short(run) {
        return;
    }
    out.uses(threshold::VERDICT_BUSY_UTIL_PCT);
    out.uses(threshold::VERDICT_TOO_SHORT_MIN);
    let over = run
        .elapsed_s
        .map(|e| format!(" over {}", h(e / 3600.0)))
        .unwrap_or_default();
    out.add(
        rule::KR010,
        format!(
            "{} (busy means mean util > {} %){over}: the session was charged for GPUs that did no work",
            gpus.iter().map(describe).collect::<Vec<_>>().join(", "),
            shortest(run.thresholds.get(threshold::VERDICT_BUSY_UTIL_PCT))
        ),
    );
}

/// KR001: some GPUs busy, others idle.
pub(super) fn second_gpu_idle(run: &RunContext, out: &mut Findings) {
    let gpus = &run.gpu_util;
    if gpus.len() < 2 || run.busy_gpus == 0 || run.busy_gpus >= gpus.len() {
        return;
    }
    out.uses(threshold::VERDICT_BUSY_UTIL_PCT);
    out.add(
        rule::KR001,
        format!(
            "{} (busy means mean util > {} %)",
            gpus.iter().map(describe).collect::<Vec<_>>().join(", "),
            shortest(run.thresholds.get(threshold::VERDICT_BUSY_UTIL_PCT))
        ),
    );
}

/// KR002: the slowest busy GPU's mean utilisation below the input-bound limit (as diagnose's KV005:
/// one starved GPU is not averaged away by a busy one).
pub(super) fn input_bound(run: &RunContext, out: &mut Findings) {
    if run.busy_gpus == 0 || is_too_short(run) {
        return;
    }
    let limit = run.thresholds.get(threshold::VERDICT_INPUT_BOUND_UTIL_PCT);
    let busy: Vec<&GpuUtil> = run.gpu_util.iter().filter(|g| g.busy).collect();
    let Some(slowest) = busy
        .iter()
        .filter(|g| g.util_mean.is_some())
        .min_by(|a, b| {
            a.util_mean
                .partial_cmp(&b.util_mean)
                .unwrap_or(std::cmp::Ordering::Equal)
        })
    else {
        return;
    };
    out.uses(threshold::VERDICT_INPUT_BOUND_UTIL_PCT);
    out.uses(threshold::VERDICT_BUSY_UTIL_PCT);
    let util = slowest.util_mean.unwrap_or_default();
    if util < limit {
        out.add(
            rule::KR002,
            format!(
                "slowest busy GPU {} at {} % mean utilisation < {} % (busy GPUs: {})",
                slowest.index,
                fixed(util, 1),
                shortest(limit),
                busy.iter()
                    .map(|g| describe(g))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
    }
}

/// KR009: no cost per fold measured, or a GPU run without utilisation samples (quota per fold assumes
/// one busy GPU).
pub(super) fn cost_unmeasured(run: &RunContext, out: &mut Findings) {
    if run.cost_per_fold.is_none() {
        out.add(
            rule::KR009,
            format!(
                "no completed fold with a duration among {} folds",
                run.folds().count()
            ),
        );
    } else if run.gpu_util.is_empty() && !run.cpu && !run.tpu {
        out.push(
            Finding::from_rule(
                rule::KR051,
                format!(
                    "accelerator {}, {} GPU(s) listed, no gpu_util samples: quota hours per fold assume one busy GPU",
                    run.accelerator.as_deref().unwrap_or("unknown"),
                    run.gpus
                ),
            )

        );
    }
}
