//! The rules of a kernel collected from its `kaggle kernels status` text and its log, one function each
//! over the session as read (each function's doc names its rule).

use super::rules::h;
use super::session::{KernelOutcome, Session, SessionSummary};
use crate::rulebook::Thresholds;
use crate::rulebook::finding::Finding;
use crate::rulebook::ids::{fact, rule, threshold};
use crate::rulebook::report::Findings;
use crate::rulebook::rulebook;
use crate::text::number::{fixed, shortest};

/// `owner/slug has status "X"`, as Kaggle said it.
fn status_said(s: &SessionSummary) -> String {
    format!(
        "{} has status \"{}\"",
        s.kernel.as_deref().unwrap_or("the kernel"),
        s.status.as_deref().unwrap_or_default()
    )
}

/// How many last lines of the log a stopped run's finding quotes: where the kill came (a failure's
/// quotes the whole tail, `threshold.run-report.log-tail-lines`).
const STOP_LINES: usize = 3;

/// The last `lines` lines of the log, or why there are none.
fn log_tail(s: &SessionSummary, lines: usize) -> String {
    if !s.log_given {
        "no log given (`kaggle kernels output <owner>/<slug>` writes it)".to_string()
    } else if s.log_tail.is_empty() {
        "the log is empty".to_string()
    } else {
        let from = s.log_tail.len().saturating_sub(lines);
        format!(
            "log tail: {}",
            s.log_tail.get(from..).unwrap_or_default().join(" | ")
        )
    }
}

/// KR011: Kaggle says the kernel failed; its failure message, its hours and its log tail.
pub(super) fn kernel_error(session: &Session, _: &Thresholds, out: &mut Findings) {
    let s = &session.summary;
    // A GPU out of memory is KR015: a CPU reproduction would not show it.
    if s.outcome != Some(KernelOutcome::Error) || session.gpu_oom.is_some() {
        return;
    }
    out.uses(threshold::RUN_REPORT_LOG_TAIL_LINES);
    let mut parts = vec![status_said(s)];
    if let Some(m) = &s.failure_message {
        parts.push(format!("failure message \"{m}\""));
    }
    if let Some(hours) = s.hours {
        parts.push(format!("it failed after {} of session", h(hours)));
    }
    parts.push(log_tail(s, s.log_tail.len()));
    out.add(rule::KR011, parts.join("; "));
}

/// KR015 for a kernel without kg_run.json: it failed, and its log says the GPU ran out of memory.
pub(super) fn out_of_gpu_memory(session: &Session, _: &Thresholds, out: &mut Findings) {
    let s = &session.summary;
    let Some(line) = &session.gpu_oom else {
        return;
    };
    if s.outcome != Some(KernelOutcome::Error) {
        return;
    }
    let mut parts = vec![status_said(s), format!("the kernel's log: \"{line}\"")];
    if let Some(hours) = s.hours {
        parts.push(format!("it failed after {} of session", h(hours)));
    }
    out.add(rule::KR015, parts.join("; "));
}

/// KR005 for a kernel without kg_run.json: cancelled, or its log ends at about the cap. Where the log
/// ends against the cap tells a stop at the cap (the same cap stops it at the same point again) from
/// a stop by hand.
pub(super) fn stopped_by_cap(session: &Session, thresholds: &Thresholds, out: &mut Findings) {
    let s = &session.summary;
    if out.has(rule::KR005) {
        return;
    }
    let frac = thresholds.get(threshold::RUN_REPORT_CAP_REACHED_FRACTION);
    let at_cap = matches!((s.hours, s.cap_hours), (Some(h), Some(c)) if h >= frac * c);
    let cancelled = s.outcome == Some(KernelOutcome::Cancelled);
    // Without a status, a log that ends at the cap is the sign; a run Kaggle calls complete was not
    // stopped, however near its cap it ended.
    if !(cancelled || (at_cap && s.outcome.is_none())) {
        return;
    }
    out.uses(threshold::RUN_REPORT_CAP_REACHED_FRACTION);
    let status = if cancelled {
        format!("{}; ", status_said(s))
    } else {
        String::new()
    };
    let tail = log_tail(s, STOP_LINES);
    let cap_of = |cap: f64| format!("{} cap (-t {} s)", h(cap), fixed(cap * 3600.0, 0));
    match (s.hours, s.cap_hours) {
        (Some(hours), Some(cap)) if at_cap => out.add(
            rule::KR005,
            format!(
                "{status}the log ends at {} of the {}, past {} % of it: the cap stopped it, and the same cap stops it at the same point again; {tail}",
                h(hours),
                cap_of(cap),
                fixed(frac * 100.0, 0)
            ),
        ),
        (Some(hours), Some(cap)) => out.push(
            Finding::from_rule(
                rule::KR050,
                format!(
                    "{status}the log ends at {} of the {}: not at the cap, so stopped by hand (\"Stop session\"), by the weekly quota running out, or after {} without output; {tail}",
                    h(hours),
                    cap_of(cap),
                    h(cap - hours)
                ),
            )

        ),
        (hours, None) => out.add(
            rule::KR005,
            format!(
                "{status}{}no cap given (timeoutSeconds): give the push's -t to tell a stop at the cap from a stop by hand; {tail}",
                hours
                    .map(|x| format!("the log ends at {}; ", h(x)))
                    .unwrap_or_default()
            ),
        ),
        (None, Some(cap)) => out.add(
            rule::KR005,
            format!(
                "{status}the log has no times, so where it ends against the {} is unknown; {tail}",
                cap_of(cap)
            ),
        ),
    }
}

/// KR014 for a kernel's log: it says the disk is full.
pub(super) fn disk_full(session: &Session, _: &Thresholds, out: &mut Findings) {
    let Some(line) = &session.disk_full else {
        return;
    };
    if out.has(rule::KR014) {
        return;
    }
    out.uses(fact::KAGGLE_WORKING_GB);
    out.add(
        rule::KR014,
        format!(
            "the kernel's log: \"{line}\" (a session saves about {} GB of /kaggle/working)",
            shortest(rulebook().fact_value(fact::KAGGLE_WORKING_GB))
        ),
    );
}

/// KR012: the status says the session has not ended (or is not one kgadvise knows).
pub(super) fn not_finished(session: &Session, _: &Thresholds, out: &mut Findings) {
    let s = &session.summary;
    let Some(outcome) = s.outcome else { return };
    if outcome.ended() {
        return;
    }
    let mut ev = status_said(s);
    if outcome == KernelOutcome::Unknown {
        ev.push_str(": not a status kgadvise knows (queued, running, complete, error, cancelRequested, cancelAcknowledged, newScript); taken as not finished");
    }
    if let Some(hours) = s.hours {
        ev.push_str(&format!("; its log so far runs {}", h(hours)));
    }
    out.add(rule::KR012, ev);
}

/// KR013: a session that has ended (or whose status is not given) without a timed log record.
pub(super) fn hours_unknown(session: &Session, _: &Thresholds, out: &mut Findings) {
    let s = &session.summary;
    if s.hours.is_some() || s.outcome.is_some_and(|o| !o.ended()) {
        return;
    }
    let ev = if !s.log_given {
        "no log given".to_string()
    } else if s.log_records == 0 {
        "the log is empty".to_string()
    } else {
        format!(
            "none of the log's {} records or lines has a time (plain text)",
            s.log_records
        )
    };
    out.add(rule::KR013, ev);
}

/// KR016: the kernel ran under `kgadvise watch`, and its log holds the watch's final diagnosis.
pub(super) fn watch_diagnosis(session: &Session, _: &Thresholds, out: &mut Findings) {
    let Some(d) = &session.summary.diagnosis else {
        return;
    };
    let verdicts = if d.verdicts.is_empty() {
        "none".to_string()
    } else {
        d.verdicts.join(", ")
    };
    let mut parts = vec![format!("the watch's verdicts: {verdicts}")];
    if let (Some(rule), Some(title)) = (&d.rule, &d.title) {
        parts.push(format!("first finding {rule}: {title}"));
    }
    let span = d
        .span_s
        .map(|s| format!(" over {} of samples", h(s / 3600.0)))
        .unwrap_or_default();
    match d.wasted_quota_hours {
        Some(w) => parts.push(format!("{} quota hours wasted{span}", fixed(w, 2))),
        None => parts.push(format!("wasted quota hours unknown{span}")),
    }
    for g in &d.gpus {
        let util = g
            .util_mean
            .map_or("?".to_string(), |u| format!("{} %", fixed(u, 0)));
        let mem = g
            .mem_peak_pct
            .map_or("?".to_string(), |m| format!("{} %", fixed(m, 0)));
        parts.push(format!(
            "GPU {} mean util {util}, memory peak {mem}",
            g.index
        ));
    }
    let mut finding = Finding::from_rule(rule::KR016, parts.join("; "));
    if let Some(fix) = &d.fix {
        finding = finding.with_fix(fix.clone());
    }
    if let Some(severity) = d.severity {
        finding = finding.with_severity(severity);
    }
    out.push(finding);
}
