//! The human text of the quota answers (`kgadvise quota`, `plan`, `tpu`, `cap`): what the CLI prints
//! without `--json`.

use crate::quota::cap::CapReport;
use crate::quota::plan::{self, PlanReport, fmt_h};
use crate::quota::tpu::TpuReport;
use crate::quota::{QuotaReport, QuotaState, describe_age};
use crate::rulebook::finding::render_text;
use crate::text::number::{fixed, shortest};
use crate::text::table::table;
use crate::text::when::display_utc;

/// One accelerator's quota state (`name`: GPU, TPU) in one line, and the caveats under it.
pub fn state_line(name: &str, s: &QuotaState) -> String {
    let mut line = format!(
        "{name}: {} h plannable = {} h remaining of {} h ({} used) - {} h reserved; resets {} (in {} h)",
        fixed(s.plannable, 2),
        fixed(s.remaining, 2),
        fixed(s.total, 2),
        fixed(s.used, 2),
        fixed(s.reserved, 2),
        display_utc(&s.refresh_at),
        fixed(s.hours_to_reset, 1)
    );
    if s.rolled_over {
        line.push_str("\n  the stored reset has passed: the week rolled over, full weekly hours");
    }
    if s.refresh_assumed {
        line.push_str("\n  reset time assumed (no refreshAt in the input)");
    }
    line.push('\n');
    line
}

pub(crate) fn quota(r: &QuotaReport) -> String {
    let mut s = String::new();
    match (&r.gpu, &r.tpu) {
        (None, None) => s.push_str("No quota figure: nothing to plan on (see below).\n"),
        (g, t) => {
            if let Some(g) = g {
                s.push_str(&state_line("GPU", g));
            }
            if let Some(t) = t {
                s.push_str(&state_line("TPU", t));
            }
        }
    }
    let age = r
        .age_minutes
        .map(describe_age)
        .map(|a| format!(", read {a} ago"))
        .unwrap_or_default();
    s.push_str(&format!(
        "Source: {}; {}{age}\n",
        r.form.describe(),
        if r.live { "LIVE" } else { "NOT LIVE" }
    ));
    for n in &r.notes {
        s.push_str(&format!("  note: {n}\n"));
    }
    s.push('\n');
    s.push_str(&render_text(&r.findings));
    s
}

pub(crate) fn plan(r: &PlanReport) -> String {
    let text = r.sentences();
    let mut s = String::new();
    for line in text
        .budgets
        .iter()
        .chain(&text.phase)
        .chain(&text.fold_plan)
    {
        s.push_str(line);
        s.push('\n');
    }
    if r.phase != plan::Phase::Ended && !r.weeks.is_empty() {
        s.push('\n');
        let rows: Vec<Vec<String>> = r
            .weeks
            .iter()
            .map(|w| {
                vec![
                    display_utc(&w.start),
                    display_utc(&w.end),
                    fmt_h(w.hours),
                    // the role the sentence gives the week's hours, not its dates
                    w.role.describe().to_string(),
                ]
            })
            .collect();
        s.push_str(&table(&["from", "to", "GPU h", "for"], &rows));
    }
    s.push('\n');
    s.push_str(&render_text(&r.findings));
    s
}

pub(crate) fn tpu(r: &TpuReport) -> String {
    let mut s = format!(
        "Run it on the {}: {}.\n",
        r.choice.as_str().to_ascii_uppercase(),
        r.reason
    );
    s.push_str(&format!(
        "  GPU: done {} ({} h from now{})\n",
        display_utc(&r.gpu_finish),
        fixed(r.gpu_hours_to_finish, 1),
        if r.gpu_waits_for_reset {
            ", waiting for the reset"
        } else {
            ""
        }
    ));
    s.push_str(&format!(
        "  TPU: done {} ({} h from now: {} h queue, {} session{}, {} TPU-hours of {} plannable)\n",
        display_utc(&r.tpu_finish),
        fixed(r.tpu_hours_to_finish, 1),
        shortest(r.queue_hours),
        r.tpu_sessions,
        if r.tpu_sessions == 1 { "" } else { "s" },
        fixed(r.tpu_hours_needed, 2),
        fixed(r.tpu_plannable, 2)
    ));
    s.push('\n');
    s.push_str(&render_text(&r.findings));
    s
}

pub(crate) fn cap(r: &CapReport) -> String {
    let mut s = format!(
        "Cap {} h ({} x {} h estimate): push with kaggle kernels push -t {}\n",
        shortest(r.cap_hours),
        shortest(r.factor),
        shortest(r.estimate_hours),
        r.timeout_seconds
    );
    if r.sessions > 1 {
        s.push_str(&format!(
            "That is more than one {} h {} session: plan {} sessions of -t {} each, resuming from the previous one.\n",
            shortest(r.session_limit_hours),
            r.accelerator,
            r.sessions,
            r.timeout_seconds
        ));
    }
    s.push('\n');
    s.push_str(&render_text(&r.findings));
    s
}
