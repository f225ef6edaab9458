//! The human text of the quota answers (`kgadvise quota`, `plan`, `tpu`, `cap`): what the CLI prints
//! without `--json`.

use crate::quota::cap::CapReport;
use crate::quota::plan::{self, PlanReport, fmt_h};
use crate::quota::tpu::TpuReport;
use crate::quota::{QuotaReport, QuotaState, describe_age};
use crate::rulebook::finding::render_text;
use crate::text::number::{fixed, shortest};
use crate::text::table::{TextTable, table};
use crate::text::when::display_utc;

/// One accelerator's quota state (`name`: GPU, TPU) in one line, and the caveats under it.
pub fn state_line(name: &str, s: &QuotaState) -> String {
    let mut line = format!(
        "{name}: {} h plannable = {} h remaining of {} h ({} used) - {} h reserved; resets {}",
        fixed(s.plannable, 2),
        fixed(s.remaining, 2),
        fixed(s.total, 2),
        fixed(s.used, 2),
        fixed(s.reserved, 2),
        reset_words(s)
    );
    for caveat in reset_caveats(s) {
        line.push_str("\n  ");
        line.push_str(caveat);
    }
    line.push('\n');
    line
}

/// When the quota resets: "2026-09-17 00:00 UTC (in 38.0 h)".
fn reset_words(s: &QuotaState) -> String {
    format!(
        "{} (in {} h)",
        display_utc(&s.refresh_at),
        fixed(s.hours_to_reset, 1)
    )
}

/// What the reset time rests on, when it is not the input's own.
fn reset_caveats(s: &QuotaState) -> Vec<&'static str> {
    let mut caveats = Vec::new();
    if s.rolled_over {
        caveats.push("the stored reset has passed: the week rolled over, full weekly hours");
    }
    if s.refresh_assumed {
        caveats.push("reset time assumed (no refreshAt in the input)");
    }
    caveats
}

/// What an answer says when its input held no quota figure (the findings say why).
pub const NO_FIGURE: &str = "No quota figure: nothing to plan on.";

/// Where the figures came from and whether they are live: "Source: kaggle quota JSON; NOT LIVE, read 2 h
/// ago", and how `kgadvise quota` without a FILE took it: "(the cache: the live call failed)".
pub fn source_line(r: &QuotaReport) -> String {
    let age = r
        .age_minutes
        .map(describe_age)
        .map(|a| format!(", read {a} ago"))
        .unwrap_or_default();
    let taken = r
        .source
        .as_deref()
        .map(|how| format!(" ({how})"))
        .unwrap_or_default();
    format!(
        "Source: {}; {}{age}{taken}",
        r.form.describe(),
        if r.live { "LIVE" } else { "NOT LIVE" }
    )
}

/// A run the ledger no longer counts (past its cap + 1 h), as the page lists it.
pub fn stale_run_line(run: &str) -> String {
    format!("stale run, not counted: {run}")
}

/// The columns of a table of [`QuotaState::reservations`] (kernel, status, cap, ran, reserved, line).
pub const RESERVATION_COLUMNS: &[&str] = &["kernel", "status", "cap", "ran", "reserved", "line"];

impl QuotaState {
    /// What the runs in flight hold, one row per run, every cell formatted: the table the CLI prints
    /// under the accelerator's line and the page and the wheel lay out.
    pub fn reservations_table(&self) -> TextTable {
        let h = |x: f64| format!("{} h", fixed(x, 2));
        let rows = self
            .reservations
            .iter()
            .map(|r| {
                vec![
                    r.kernel.clone(),
                    r.status.clone(),
                    h(r.cap_hours),
                    h(r.ran_hours),
                    h(r.reserved_hours),
                    r.line.to_string(),
                ]
            })
            .collect();
        TextTable::new(RESERVATION_COLUMNS, rows)
    }
}

/// An accelerator's reservations under its caption, as the CLI prints them; empty without any.
fn reservations_text(name: &str, s: &QuotaState) -> String {
    if s.reservations.is_empty() {
        return String::new();
    }
    let table = s.reservations_table().text();
    let indented: String = table.lines().map(|l| format!("  {l}\n")).collect();
    format!("  {}:\n{indented}", reservations_caption(name))
}

/// The caption of the reservations table of an accelerator (`GPU`, `TPU`).
pub fn reservations_caption(name: &str) -> String {
    format!("{name} runs in flight")
}

/// One accelerator's figures as (what, value) rows: the page's table of a quota state.
pub fn state_rows(s: &QuotaState) -> Vec<(&'static str, String)> {
    let h = |x: f64| format!("{} h", fixed(x, 2));
    let mut reset = reset_words(s);
    for caveat in reset_caveats(s) {
        reset.push_str("; ");
        reset.push_str(caveat);
    }
    let mut rows = vec![
        ("plannable", h(s.plannable)),
        ("remaining", h(s.remaining)),
        ("used", h(s.used)),
        ("total", h(s.total)),
        ("reserved", h(s.reserved)),
        ("next reset", reset),
    ];
    if s.spent_since_hours > 0.0 {
        rows.push(("spent since read", h(s.spent_since_hours)));
    }
    rows
}

pub(crate) fn quota(r: &QuotaReport) -> String {
    let mut s = String::new();
    match (&r.gpu, &r.tpu) {
        (None, None) => {
            s.push_str(NO_FIGURE);
            s.push('\n');
        }
        (g, t) => {
            if let Some(g) = g {
                s.push_str(&state_line("GPU", g));
                s.push_str(&reservations_text("GPU", g));
            }
            if let Some(t) = t {
                s.push_str(&state_line("TPU", t));
                s.push_str(&reservations_text("TPU", t));
            }
        }
    }
    s.push_str(&source_line(r));
    s.push('\n');
    if let Some(why) = &r.not_live_because {
        s.push_str(&format!("NOT LIVE because: {why}\n"));
    }
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

/// "1 session", "3 sessions".
fn sessions(n: u32) -> String {
    format!("{n} session{}", if n == 1 { "" } else { "s" })
}

/// The TPU answer's figures as (what, value) rows: the page's table.
pub fn tpu_rows(r: &TpuReport) -> Vec<(&'static str, String)> {
    let gpu = format!(
        "done {} ({} h from now{}; {})",
        display_utc(&r.gpu_finish),
        fixed(r.gpu_hours_to_finish, 1),
        if r.gpu_waits_for_reset {
            ", waiting for the reset"
        } else {
            ""
        },
        sessions(r.gpu_sessions),
    );
    let tpu = format!(
        "done {} ({} h from now: {} h queue, {})",
        display_utc(&r.tpu_finish),
        fixed(r.tpu_hours_to_finish, 1),
        shortest(r.queue_hours),
        sessions(r.tpu_sessions),
    );
    let needed = format!(
        "{} h needed of {} h plannable",
        fixed(r.tpu_hours_needed, 2),
        fixed(r.tpu_plannable, 2)
    );
    let gpu_plannable = r.gpu_plannable.map_or_else(
        || "enough (not given)".into(),
        |h| format!("{} h", fixed(h, 2)),
    );
    vec![
        ("on the GPU", gpu),
        ("on the TPU", tpu),
        ("TPU hours", needed),
        ("GPU hours plannable", gpu_plannable),
        ("next reset", display_utc(&r.next_reset)),
    ]
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
        "  TPU: done {} ({} h from now: {} h queue, {}, {} TPU-hours of {} plannable)\n",
        display_utc(&r.tpu_finish),
        fixed(r.tpu_hours_to_finish, 1),
        shortest(r.queue_hours),
        sessions(r.tpu_sessions),
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
        super::cap::factor_text(r.factor),
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
