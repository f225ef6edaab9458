//! Quota & plan (`kgadvise plan`): paste or drop any `kaggle quota` form or type the hours, pick the deadline →
//! the GPU (and TPU) budget until then, week by week, with the final-week reserve and the fold plan.

use chrono::{DateTime, Utc};
use kgadvise_core::quota::plan::{self, FoldCost, PlanReport, WeekBudget, fmt_h};
use kgadvise_core::quota::{self, Observed, QuotaForm, QuotaReport};
use kgadvise_core::rulebook::Thresholds;
use kgadvise_core::text::number::{fixed, shortest};
use kgadvise_core::text::when::{DateRole, display_utc, parse_time};
use leptos::prelude::*;

use crate::browser::now;
use crate::components::inputs::parse_count;
use crate::components::paste::{LoadedFile, PasteArea, given_text};
use crate::components::{
    Cell, DataTable, ErrorBox, FindingList, RulesUsed, UrlInput, no_submit, text_list,
};
use crate::use_url;

/// The typed inputs of the page, as in the URL (all optional text).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlanInputs {
    pub deadline: Option<String>,
    pub gpu: Option<String>,
    pub tpu: Option<String>,
    pub refresh: Option<String>,
    pub reserved: Option<String>,
    pub weekly: Option<String>,
    pub fold_hours: Option<String>,
    pub folds: Option<String>,
    pub screens: Option<String>,
}

#[derive(Debug)]
pub enum PlanAnswer {
    Report(Box<PlanReport>),
    /// Input still missing: what to give.
    Need(String),
    Error(String),
}

/// Hours typed into a field (`11`, `10.45h`), checked as the CLI checks them.
pub fn hours_field(field: &str, text: Option<&str>) -> Result<Option<f64>, String> {
    match text.map(str::trim).filter(|t| !t.is_empty()) {
        None => Ok(None),
        Some(t) => quota::parse_hours(t)
            .map(Some)
            .map_err(|e| format!("{field}: {e}")),
    }
}

fn time_field(
    field: &str,
    text: Option<&str>,
    role: DateRole,
) -> Result<Option<DateTime<Utc>>, String> {
    match text.map(str::trim).filter(|t| !t.is_empty()) {
        None => Ok(None),
        Some(t) => parse_time(t, role)
            .map(Some)
            .map_err(|e| format!("{field}: {e}")),
    }
}

/// The page's inputs (and an optional pasted quota) → the plan, as `kgadvise plan` computes it.
pub fn plan_answer(i: &PlanInputs, paste: &str, now: DateTime<Utc>) -> PlanAnswer {
    match plan_report(i, paste, now) {
        Ok(Some(r)) => PlanAnswer::Report(Box::new(r)),
        Ok(None) => PlanAnswer::Need(if i.deadline.is_none() {
            "Enter the deadline (a date such as 2026-12-17 ends at 23:59 UTC).".to_string()
        } else {
            "Paste the output of `kaggle quota`, or type the GPU hours remaining.".to_string()
        }),
        Err(e) => PlanAnswer::Error(e),
    }
}

fn plan_report(
    i: &PlanInputs,
    paste: &str,
    now: DateTime<Utc>,
) -> Result<Option<PlanReport>, String> {
    let thresholds = Thresholds::defaults();
    let deadline = time_field("deadline", i.deadline.as_deref(), DateRole::Deadline)?;
    let refresh = time_field("next reset", i.refresh.as_deref(), DateRole::Instant)?;
    let gpu = hours_field("GPU hours remaining", i.gpu.as_deref())?;
    let tpu = hours_field("TPU hours remaining", i.tpu.as_deref())?;
    let reserved = hours_field("reserved hours", i.reserved.as_deref())?;
    let weekly = hours_field("weekly GPU hours", i.weekly.as_deref())?;
    if weekly == Some(0.0) {
        return Err("weekly GPU hours: expected more than 0".to_string());
    }
    let fold_hours = hours_field("hours per fold", i.fold_hours.as_deref())?;
    if fold_hours == Some(0.0) {
        return Err("hours per fold: expected a positive number of hours".to_string());
    }
    let folds = parse_count("folds", i.folds.as_deref().unwrap_or(""))?;
    if folds == Some(0) {
        return Err("folds: expected at least 1 fold".to_string());
    }
    let screens = parse_count("screens per promotion", i.screens.as_deref().unwrap_or(""))?;
    let to_u32 = |field: &str, n: Option<u64>| -> Result<Option<u32>, String> {
        n.map(|n| u32::try_from(n).map_err(|_| format!("{field}: {n} is too large")))
            .transpose()
    };
    let folds = to_u32("folds", folds)?;
    let screens = to_u32("screens per promotion", screens)?;
    let fold = match (fold_hours, folds) {
        (Some(hours), Some(folds)) => Some(FoldCost { hours, folds }),
        (None, None) => None,
        _ => return Err("hours per fold and folds go together: give both, or neither".to_string()),
    };
    let mut reading = if !paste.trim().is_empty() {
        quota::read_quota(paste).map_err(|e| format!("pasted quota: {e}"))?
    } else if let Some(h) = gpu {
        quota::reading_from_numbers(Some((h, refresh)), None)
    } else {
        return Ok(None);
    };
    let Some(deadline) = deadline else {
        return Ok(None);
    };
    // The same adjustments as the CLI's flags over a quota file.
    if let (Some(w), Some(g)) = (weekly, reading.gpu.as_mut()) {
        g.total = w;
        g.remaining = g.remaining.min(w);
        g.used = (w - g.remaining).max(0.0);
    }
    for q in [reading.gpu.as_mut(), reading.tpu.as_mut()]
        .into_iter()
        .flatten()
    {
        if refresh.is_some() {
            q.refresh_at = refresh;
        }
    }
    if let (Some(h), Some(g)) = (reserved, reading.gpu.as_mut()) {
        g.reserved = Some(h);
    }
    if let Some(t) = tpu {
        let numbers = quota::reading_from_numbers(None, Some((t, refresh))).tpu;
        if reading.tpu.is_none() || reading.form == QuotaForm::Numbers {
            reading.tpu = numbers;
        } else if let Some(q) = reading.tpu.as_mut() {
            q.remaining = t;
        }
    }
    let state = quota::quota_state(&reading, None, Observed::Now, now, &thresholds);
    plan::plan(state, deadline, fold, screens, now, &thresholds).map(Some)
}

#[component]
pub fn PlanPage() -> impl IntoView {
    let url = use_url();
    let paste = RwSignal::new(String::new());
    let inputs = move || PlanInputs {
        deadline: url.value("deadline"),
        gpu: url.value("gpu"),
        tpu: url.value("tpu"),
        refresh: url.value("refresh"),
        reserved: url.value("reserved"),
        weekly: url.value("weekly"),
        fold_hours: url.value("fold_hours"),
        folds: url.value("folds"),
        screens: url.value("screens"),
    };
    let file = RwSignal::new(None::<LoadedFile>);
    // A quota file is decoded as the CLI decodes it (UTF-16 from PowerShell's `>` included).
    let answer = move || {
        file.with(|f| {
            paste.with(|p| {
                let text = given_text(f, p, |b| Ok(quota::decode_text(b))).unwrap_or_default();
                match (plan_answer(&inputs(), &text, now()), f) {
                    (PlanAnswer::Error(e), Some(f)) => PlanAnswer::Error(e.replacen(
                        "pasted quota",
                        &format!("quota file {}", f.name),
                        1,
                    )),
                    (answer, _) => answer,
                }
            })
        })
    };
    view! {
        <section aria-labelledby="page-title">
            <h1 id="page-title">"Quota & plan"</h1>
            <p class="lead">
                "How many GPU hours until the deadline, how many to keep for the final week, and what they buy. "
                "The pasted quota stays in this page; the typed numbers are in the address, so the link reproduces the plan."
            </p>
            <form class="controls" on:submit=no_submit>
                <UrlInput id="deadline" label="Deadline" key="deadline" placeholder="2026-12-17" />
                <UrlInput id="gpu" label="GPU hours remaining" key="gpu" numeric=true placeholder="e.g. 11" />
                <UrlInput
                    id="refresh"
                    label="Next reset (optional)"
                    key="refresh"
                    placeholder="next Saturday 00:00 UTC"
                    hint="refreshAt of `kaggle quota`; a time without a zone is UTC."
                />
                <UrlInput id="tpu" label="TPU hours remaining (optional)" key="tpu" numeric=true />
                <UrlInput id="reserved" label="Reserved by running sessions (h)" key="reserved" numeric=true />
                <UrlInput
                    id="weekly"
                    label="Weekly GPU hours (optional)"
                    key="weekly"
                    numeric=true
                    hint="When your weekly quota differs from the usual one."
                />
                <UrlInput id="fold_hours" label="Hours per fold (optional)" key="fold_hours" numeric=true />
                <UrlInput id="folds" label="Folds" key="folds" numeric=true />
                <UrlInput id="screens" label="Screens per promotion" key="screens" numeric=true />
            </form>
            <PasteArea
                id="quota-paste"
                label="Or paste your quota (any form of `kaggle quota`, its JSON, kgkit's cache)"
                placeholder="Resource  Used  Remaining  Total  RefreshAt"
                hint="Replaces the GPU hours typed above. It is read here and never leaves the page."
                value=paste
                file=file
                accept=".csv,.txt,.json,text/*"
            />
            {move || match answer() {
                PlanAnswer::Report(r) => view! { <PlanView report=*r /> }.into_any(),
                PlanAnswer::Need(what) => view! { <p class="hint" id="answer">{what}</p> }.into_any(),
                PlanAnswer::Error(e) => view! { <ErrorBox message=e /> }.into_any(),
            }}
        </section>
    }
}

#[component]
fn PlanView(report: PlanReport) -> impl IntoView {
    let r = report;
    let final_week = r.phase == plan::Phase::FinalWeek;
    let headline = if r.phase == plan::Phase::Ended {
        format!(
            "The deadline {} has passed: nothing to plan.",
            display_utc(&r.deadline)
        )
    } else {
        r.gpu_budget().sentence(&r.deadline, final_week)
    };
    let tpu = r
        .tpu_budget
        .as_ref()
        .map(|t| view! { <p class="tpu-budget">{t.sentence(&r.deadline, final_week)}</p> });
    let phase = format!(
        "Phase: {} ({} days left).",
        r.phase.as_str(),
        fixed(r.days_left, 1)
    );
    let fold = r.fold_plan.as_ref().map(|fp| {
        let exploring = (r.phase == plan::Phase::Exploration).then(|| {
            format!(
                "{} h of exploration buy {} cycle{} of {} screens + 1 promotion: {} screens, {} promotions, {} h left over.",
                fmt_h(r.exploration_hours),
                fp.cycles,
                if fp.cycles == 1 { "" } else { "s" },
                fp.screens_per_promotion,
                fp.screens,
                fp.promotions,
                fmt_h(fp.leftover_hours)
            )
        });
        view! {
            <h3>"Fold plan"</h3>
            <ul class="fold-plan">
                <li>
                    {format!(
                        "A one-fold screen costs {} h; a full-CV promotion ({} folds) {} h (kgkit's c × K/2 says {} h).",
                        fmt_h(fp.screen_hours),
                        fp.folds,
                        fmt_h(fp.promotion_hours),
                        fmt_h(fp.kgkit_promotion_hours)
                    )}
                </li>
                {exploring.map(|t| view! { <li>{t}</li> })}
                <li>
                    {format!(
                        "Start the final full-CV run (cap {} h) by {} at the latest.",
                        fmt_h(fp.final_run_cap_hours),
                        display_utc(&fp.last_safe_start)
                    )}
                </li>
            </ul>
        }
    });
    view! {
        <div id="answer" class="answer">
            <p class="verdict plan-headline">{headline}</p>
            {tpu}
            <p class="phase">{phase}</p>
            <FindingList findings=r.findings.clone() />
            <WeekChart weeks=r.weeks.clone() />
            {fold}
            <QuotaSummary quota=r.quota.clone() />
            <RulesUsed rules=r.rules.clone() />
        </div>
    }
}

const WEEK_HEAD: &[&str] = &["from", "to", "GPU h", "source", "final reserve h", ""];

/// Week-by-week GPU hours until the deadline: an inline SVG bar chart (final-week reserve shaded), with
/// the same figures in a table for screen readers and exact values.
#[component]
pub fn WeekChart(weeks: Vec<WeekBudget>) -> impl IntoView {
    if weeks.is_empty() {
        return ().into_any();
    }
    let max = weeks
        .iter()
        .map(|w| w.hours)
        .fold(0.0_f64, f64::max)
        .max(1.0);
    let (bar_w, gap, top, plot_h) = (34.0, 14.0, 18.0, 110.0);
    let width = 20.0 + weeks.len() as f64 * (bar_w + gap);
    let height = top + plot_h + 36.0;
    let bars = weeks
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let x = 16.0 + i as f64 * (bar_w + gap);
            let h = w.hours / max * plot_h;
            let reserve = (w.reserve_hours.min(w.hours)) / max * plot_h;
            let y = top + plot_h - h;
            let label = w.start.get(5..10).unwrap_or("").to_string();
            let class = if w.final_week { "bar bar-final" } else { "bar" };
            view! {
                <g class=class>
                    <rect x=shortest(x) y=shortest(y) width=shortest(bar_w) height=shortest((h - reserve).max(0.0)) class="bar-explore"></rect>
                    <rect x=shortest(x) y=shortest(y + (h - reserve)) width=shortest(bar_w) height=shortest(reserve) class="bar-reserve"></rect>
                    <text x=shortest(x + bar_w / 2.0) y=shortest((y - 4.0).max(10.0)) text-anchor="middle" class="bar-value">
                        {fmt_h(w.hours)}
                    </text>
                    <text x=shortest(x + bar_w / 2.0) y=shortest(top + plot_h + 14.0) text-anchor="middle" class="bar-label">
                        {label}
                    </text>
                </g>
            }
        })
        .collect_view();
    let rows: Vec<Vec<Cell>> = weeks
        .iter()
        .map(|w| {
            vec![
                Cell::text(display_utc(&w.start)),
                Cell::text(display_utc(&w.end)),
                Cell::text(fmt_h(w.hours)),
                Cell::text(
                    if w.kind == "now" {
                        "plannable now"
                    } else {
                        "weekly reset"
                    }
                    .to_string(),
                ),
                Cell::text(fmt_h(w.reserve_hours)),
                Cell::text(if w.final_week { "final week" } else { "" }.to_string()),
            ]
        })
        .collect();
    view! {
        <h3>"GPU hours week by week"</h3>
        <svg
            class="week-chart"
            viewBox=format!("0 0 {} {}", shortest(width), shortest(height))
            role="img"
            aria-label="GPU hours per week until the deadline; the darker part is kept for the final week"
        >
            <line x1="8" x2=shortest(width - 4.0) y1=shortest(top + plot_h) y2=shortest(top + plot_h) class="axis"></line>
            {bars}
        </svg>
        <p class="legend">
            <span class="key key-explore"></span>" exploration  "
            <span class="key key-reserve"></span>" kept for the final week"
        </p>
        <details class="week-table">
            <summary>"The weeks as a table"</summary>
            <DataTable class="weeks" head=WEEK_HEAD rows=rows />
        </details>
    }
    .into_any()
}

#[component]
fn QuotaSummary(quota: QuotaReport) -> impl IntoView {
    let line =
        |name: &str, q: &Option<quota::QuotaState>| {
            q.as_ref().map(|s| {
            format!(
                "{name}: {} h remaining of {} h, {} h reserved, {} h plannable; next reset {}{}",
                fmt_h(s.remaining),
                fmt_h(s.total),
                fmt_h(s.reserved),
                fmt_h(s.plannable),
                display_utc(&s.refresh_at),
                if s.refresh_assumed { " (assumed: the weekly reset)" } else { "" }
            )
        })
        };
    let lines: Vec<String> = [line("GPU", &quota.gpu), line("TPU", &quota.tpu)]
        .into_iter()
        .flatten()
        .collect();
    view! {
        <h3>"The quota this plan is built on"</h3>
        <p class="quota-form">{format!("Read as: {}", quota.form.describe())}</p>
        {text_list("quota-state", lines)}
        {(!quota.notes.is_empty()).then(|| text_list("notes", quota.notes.clone()))}
    }
}
