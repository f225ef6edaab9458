//! The human text of the kernel answers (`kgadvise check`, `collect`): what the CLI prints without
//! `--json`, and the words of a fold's outcome both surfaces show.

use crate::kernel::CheckReport;
use crate::kernel::run_report::{CollectReport, FoldOutcome, JobSummary, SessionSummary};
use crate::rulebook::Severity;
use crate::rulebook::finding::render_text;
use crate::text::number::fixed;

impl FoldOutcome {
    /// The outcome of a fold in a sentence or a table cell.
    pub fn words(self) -> &'static str {
        match self {
            FoldOutcome::Done => "done",
            FoldOutcome::Timeout => "timed out",
            FoldOutcome::NeverStarted => "never started",
            FoldOutcome::Pruned => "pruned",
            FoldOutcome::Failed => "failed",
            FoldOutcome::Other => "other",
        }
    }
}

pub(crate) fn check(r: &CheckReport) -> String {
    let verdict = if r.ok {
        // An info finding (KM033's smoke reminder) is read, not a warning to fix.
        if r.findings.iter().all(|f| f.severity == Severity::Info) {
            "ready to push"
        } else {
            "can be pushed, but read the warnings"
        }
    } else {
        "would be refused, fail or start nothing: fix the errors first"
    };
    let mut s = format!("{}: {verdict}\n", r.input);
    s.push_str(&format!(
        "  kernel: {}  accelerator: {}  machine_shape stored: {}\n",
        r.id.as_deref().unwrap_or("(no id)"),
        r.accelerator.as_str(),
        r.machine_shape.as_deref().unwrap_or("none")
    ));
    if let Some(cf) = &r.code_file {
        let size = r
            .code_file_bytes
            .map(|b| format!("{b} bytes"))
            .unwrap_or_else(|| "not read".into());
        s.push_str(&format!("  code_file: {cf} ({size})\n"));
    }
    s.push('\n');
    s.push_str(&render_text(&r.findings));
    s
}

fn hours(x: Option<f64>) -> String {
    x.map(|h| format!("{} h", fixed(h, 2)))
        .unwrap_or_else(|| "unknown".into())
}

/// The kernel's session, as its status and log tell it.
fn session_lines(k: &SessionSummary) -> String {
    let outcome = match (&k.status, k.outcome) {
        (Some(status), Some(o)) => format!("{} ({status})", o.as_str()),
        _ => "not given".to_string(),
    };
    let mut s = format!(
        "  kernel {}  status {outcome}\n  session {}  cap {}\n",
        k.kernel.as_deref().unwrap_or("?"),
        k.hours
            .map(|h| format!("{} h (from the log's times)", fixed(h, 2)))
            .unwrap_or_else(|| "unknown".into()),
        hours(k.cap_hours)
    );
    if let Some(m) = &k.failure_message {
        s.push_str(&format!("  failure message: {m}\n"));
    }
    if !k.log_unreadable_lines.is_empty() {
        s.push_str(&format!(
            "  log lines not readable as records (kept as text): {}\n",
            k.log_unreadable_lines
                .iter()
                .map(|l| l.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if let Some(e) = &k.diagnosis_error {
        s.push_str(&format!(
            "  the watch's KGADVISE_DIAGNOSIS line not read: {e}\n"
        ));
    }
    s
}

pub(crate) fn collect(r: &CollectReport) -> String {
    if r.jobs.is_empty() && r.build_id.is_none() && r.session.is_some() {
        return collect_session_only(r);
    }
    let mut s = format!(
        "{}: {}\n",
        r.input,
        r.build_id.as_deref().unwrap_or("kgkit run")
    );
    if let Some(k) = &r.session {
        s.push_str(&session_lines(k));
    }
    s.push_str(&format!(
        "  accelerator {}  GPUs {} ({} busy)  elapsed {}  cap {}\n",
        r.accelerator.as_deref().unwrap_or("?"),
        r.gpus,
        r.busy_gpus,
        hours(r.elapsed_s.map(|e| e / 3600.0)),
        hours(r.budget_h)
    ));
    s.push_str(&format!(
        "  folds done {}/{}  cost per fold {}  quota per fold {}\n",
        r.folds_done,
        r.folds_total,
        hours(r.cost_per_fold_hours),
        hours(r.quota_hours_per_fold)
    ));
    for j in &r.jobs {
        s.push_str(&job_line(j));
    }
    for g in &r.gpu_util {
        s.push_str(&format!(
            "  GPU {}: mean {}  p10 {}  peak {} MB\n",
            g.index,
            g.util_mean
                .map(|u| format!("{} %", fixed(u, 1)))
                .unwrap_or_else(|| "n/a".into()),
            g.util_p10
                .map(|u| format!("{} %", fixed(u, 0)))
                .unwrap_or_else(|| "n/a".into()),
            g.mem_peak_mb
                .map(|m| fixed(m, 0))
                .unwrap_or_else(|| "n/a".into())
        ));
    }
    s.push('\n');
    if r.findings.is_empty() {
        s.push_str("Nothing to fix: re-plan with the measured cost per fold (kgadvise plan --fold-hours).\n");
    }
    s.push_str(&render_text(&r.findings));
    s
}

/// A kernel without kg_run.json: its session alone.
fn collect_session_only(r: &CollectReport) -> String {
    let mut s = format!("{}: kernel without kg_run.json\n", r.input);
    if let Some(k) = &r.session {
        s.push_str(&session_lines(k));
    }
    s.push('\n');
    if r.findings.is_empty() {
        s.push_str("Nothing to fix.\n");
    }
    s.push_str(&render_text(&r.findings));
    s
}

/// A job's folds by outcome, in the order of [`FoldOutcome`]'s words.
fn job_line(j: &JobSummary) -> String {
    let mut parts = Vec::new();
    for o in [
        FoldOutcome::Done,
        FoldOutcome::Timeout,
        FoldOutcome::NeverStarted,
        FoldOutcome::Pruned,
        FoldOutcome::Failed,
        FoldOutcome::Other,
    ] {
        let folds: Vec<String> = j
            .folds
            .iter()
            .filter(|f| f.outcome == o)
            .map(|f| f.fold.clone())
            .collect();
        if !folds.is_empty() {
            parts.push(format!("{} {}", o.words(), folds.join(",")));
        }
    }
    format!(
        "  job {}: {}\n",
        j.name,
        if parts.is_empty() {
            "no folds".into()
        } else {
            parts.join("; ")
        }
    )
}
