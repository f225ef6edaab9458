//! Quota & plan (`kgadvise plan`): paste or drop any `kaggle quota` form or type the hours, pick the deadline →
//! the GPU (and TPU) budget until then, week by week, with the final-week reserve and the fold plan.

use chrono::{DateTime, Utc};
use kgadvise_core::quota::plan::{self, PlanReport, PlanRequest, WeekBudget, WeekRole, fmt_h};
use kgadvise_core::quota::{self, QuotaReport};
use kgadvise_core::request::now_of;
use kgadvise_core::rulebook::Thresholds;
use kgadvise_core::text::number::shortest;
use kgadvise_core::text::when::display_utc;
use leptos::prelude::*;

use crate::browser::now;
use crate::components::advisor::{field_doc, field_docs};
use crate::components::example::{Example, ExampleSlot, TryExample};
use crate::components::inputs::parse_count;
use crate::components::paste::{LoadedFile, PasteArea, given_text};
use crate::components::site_file::SiteFile;
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
    /// The time of the answer (the CLI's `--now`); none: the browser's clock.
    pub now: Option<String>,
}

/// 10.45 GPU hours left half a day before the reset, three weeks before the deadline (the time of the
/// answer fixed, so the example reads the same whenever it is tried).
pub const EXAMPLE: Example = Example {
    what: "10.45 GPU hours left 12 h before the reset, a deadline three weeks on, 5 folds of 1.5 h",
    typed: &[
        ("deadline", "2026-10-06"),
        ("foldHours", "1.5"),
        ("folds", "5"),
        ("now", "2026-09-18T12:00:00Z"),
    ],
    files: &[("quota", "quota/cli.json")],
};

#[derive(Debug)]
pub enum PlanAnswer {
    Report(Box<PlanReport>),
    /// Input still missing: what to give.
    Need(String),
    Error(String),
}

/// The page's typed controls, in the page's order: (request field, label, placeholder, numeric). The
/// field is the control's id and URL key (links of the old keys are read through `query::RENAMED`); an
/// error names the field by its label without "(optional)".
const CONTROLS: &[(&str, &str, &str, bool)] = &[
    ("deadline", "Deadline", "2026-12-17", false),
    ("gpuRemaining", "GPU hours remaining", "e.g. 11", true),
    (
        "refreshAt",
        "Next reset (optional)",
        "the usual weekly reset",
        false,
    ),
    ("tpuRemaining", "TPU hours remaining (optional)", "", true),
    ("reserved", "Reserved by running sessions (h)", "", true),
    ("weeklyHours", "Weekly GPU hours (optional)", "", true),
    ("foldHours", "Hours per fold (optional)", "", true),
    ("folds", "Folds", "", true),
    ("screensPerPromotion", "Screens per promotion", "", true),
    ("now", "As of (optional)", "now", false),
];

const PASTED: &str = "pasted quota";

/// How the page names a request field in an error (the label of its control).
fn label(field: &str) -> &str {
    match field {
        "quota" => PASTED,
        _ => CONTROLS
            .iter()
            .find(|(f, ..)| *f == field)
            .map_or(field, |(_, label, ..)| {
                label.trim_end_matches(" (optional)")
            }),
    }
}

/// Hours typed into a field (`11`, `10.45h`), read as `kaggle quota` writes hours.
pub fn hours_field(field: &str, text: Option<&str>) -> Result<Option<f64>, String> {
    match text.map(str::trim).filter(|t| !t.is_empty()) {
        None => Ok(None),
        Some(t) => quota::parse_hours(t)
            .map(Some)
            .map_err(|e| format!("{field}: {e}")),
    }
}

/// A whole number typed into the field of `key`.
fn count_field(key: &str, text: Option<&str>) -> Result<Option<u32>, String> {
    let name = label(key);
    parse_count(name, text.unwrap_or(""))?
        .map(|n| u32::try_from(n).map_err(|_| format!("{name}: {n} is too large")))
        .transpose()
}

fn given(text: &Option<String>) -> Option<String> {
    text.as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
}

/// The page's inputs (and an optional pasted quota, which replaces the typed GPU hours) as the request
/// `kgadvise plan` makes from its flags; `None` while the deadline or the quota is missing.
pub fn plan_request(i: &PlanInputs, paste: &str) -> Result<Option<PlanRequest>, String> {
    let hours = |key: &str, text: &Option<String>| hours_field(label(key), text.as_deref());
    let pasted = !paste.trim().is_empty();
    let request = PlanRequest {
        deadline: given(&i.deadline),
        quota: pasted.then(|| paste.to_string()),
        gpu_remaining: hours("gpuRemaining", &i.gpu)?.filter(|_| !pasted),
        tpu_remaining: hours("tpuRemaining", &i.tpu)?,
        refresh_at: given(&i.refresh),
        reserved: hours("reserved", &i.reserved)?,
        fold_hours: hours("foldHours", &i.fold_hours)?,
        folds: count_field("folds", i.folds.as_deref())?,
        screens_per_promotion: count_field("screensPerPromotion", i.screens.as_deref())?,
        weekly_hours: hours("weeklyHours", &i.weekly)?,
        now: given(&i.now),
        // A pasted figure is read as it is pasted.
        live: true,
        ..PlanRequest::default()
    };
    let complete =
        request.deadline.is_some() && (request.quota.is_some() || request.gpu_remaining.is_some());
    Ok(complete.then_some(request))
}

/// The page's inputs (and an optional pasted quota) → the plan, as `kgadvise plan` computes it.
pub fn plan_answer(i: &PlanInputs, paste: &str, now: DateTime<Utc>) -> PlanAnswer {
    match plan_request(i, paste) {
        Ok(Some(request)) => match now_of(request.now.as_deref(), now)
            .and_then(|now| plan::plan_at(&request, None, now, &Thresholds::defaults()))
        {
            Ok(r) => PlanAnswer::Report(Box::new(r)),
            Err(e) => PlanAnswer::Error(e.render(label(&e.field))),
        },
        Ok(None) => PlanAnswer::Need(if given(&i.deadline).is_none() {
            "Enter the deadline (a date such as 2026-12-17 ends at 23:59 UTC).".to_string()
        } else {
            "Paste the output of `kaggle quota`, or type the GPU hours remaining.".to_string()
        }),
        Err(e) => PlanAnswer::Error(e),
    }
}

#[component]
pub fn PlanPage() -> impl IntoView {
    let url = use_url();
    let paste = RwSignal::new(String::new());
    let inputs = move || PlanInputs {
        deadline: url.value("deadline"),
        gpu: url.value("gpuRemaining"),
        tpu: url.value("tpuRemaining"),
        refresh: url.value("refreshAt"),
        reserved: url.value("reserved"),
        weekly: url.value("weeklyHours"),
        fold_hours: url.value("foldHours"),
        folds: url.value("folds"),
        screens: url.value("screensPerPromotion"),
        now: url.value("now"),
    };
    let file = RwSignal::new(None::<LoadedFile>);
    let docs = field_docs();
    // A quota file is decoded as the CLI decodes it (UTF-16 from PowerShell's `>` included).
    let answer = move || {
        file.with(|f| {
            paste.with(|p| {
                let text = given_text(f, p, |b| Ok(quota::decode_text(b))).unwrap_or_default();
                match (plan_answer(&inputs(), &text, now()), f) {
                    (PlanAnswer::Error(e), Some(f)) => {
                        PlanAnswer::Error(e.replacen(PASTED, &format!("quota file {}", f.name), 1))
                    }
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
            <TryExample
                example=&EXAMPLE
                slots=vec![ExampleSlot { field: "quota", text: paste, file: Some(file) }]
            />
            <PlanControls docs=docs />
            <PasteArea
                id="quota-paste"
                label="Or paste your quota (any form of `kaggle quota`, its JSON, kgkit's cache)"
                placeholder="Resource  Used  Remaining  Total  RefreshAt"
                hint="It is read here and never leaves the page."
                doc=field_doc(docs, "plan", "quota")
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

/// The typed controls; their hints are their request fields' doc comments.
#[component]
fn PlanControls(docs: RwSignal<SiteFile>) -> impl IntoView {
    let items = CONTROLS
        .iter()
        .map(|&(field, label, placeholder, numeric)| {
            view! {
                <UrlInput
                    id=field
                    label=label
                    key=field
                    numeric=numeric
                    placeholder=placeholder
                    doc=field_doc(docs, "plan", field)
                />
            }
        })
        .collect_view();
    view! { <form class="controls" on:submit=no_submit>{items}</form> }
}

#[component]
fn PlanView(report: PlanReport) -> impl IntoView {
    let r = report;
    let text = r.sentences();
    let mut budgets = text.budgets.into_iter();
    let headline = budgets.next().unwrap_or_default();
    let tpu = budgets
        .next()
        .map(|t| view! { <p class="tpu-budget">{t}</p> });
    let phase = text.phase.map(|p| view! { <p class="phase">{p}</p> });
    let fold = (!text.fold_plan.is_empty()).then(|| {
        view! {
            <h3>"Fold plan"</h3>
            <ul class="fold-plan">
                {text.fold_plan.into_iter().map(|t| view! { <li>{t}</li> }).collect_view()}
            </ul>
        }
    });
    view! {
        <div id="answer" class="answer">
            <p class="verdict plan-headline">{headline}</p>
            {tpu}
            {phase}
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
            // The week's role comes from the reserve (core), as the plan's sentence counts it.
            let class = match w.role {
                WeekRole::Exploration => "bar bar-exploration",
                WeekRole::Split => "bar bar-split",
                WeekRole::FinalReserve => "bar bar-final-reserve",
            };
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
                Cell::text(w.role.describe().to_string()),
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
