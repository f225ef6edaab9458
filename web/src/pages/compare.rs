//! Compare an idea with its control (`kgadvise compare`): paste or drop both out-of-fold prediction CSVs, pick the
//! metric → the decision (promote / inconclusive / discard), the gain, z, the 95 % interval and the cautions.

use kgadvise_core::stats::compare::{self, CompareReport, CompareRequest};
use kgadvise_core::stats::metrics::Metric;
use kgadvise_core::text::number::fixed;
use leptos::prelude::*;

use crate::components::example::{Example, ExampleSlot, TryExample};
use crate::components::inputs::{label_of, parse_count, request_error};
use crate::components::paste::{LoadedFile, PasteArea, given_text};
use crate::components::{
    Cell, DataTable, ErrorBox, FindingList, RulesUsed, UrlInput, UrlSelect, no_submit, text_list,
};
use crate::use_url;

#[derive(Debug)]
pub enum CompareAnswer {
    Report(Box<CompareReport>),
    Need(&'static str),
    Error(String),
}

/// A regression idea whose gain clears the bar.
pub const EXAMPLE: Example = Example {
    what: "a regression idea against its control, judged on MAE",
    typed: &[("metric", "mae")],
    files: &[
        ("idea", "stats/promote_idea.csv"),
        ("control", "stats/promote_control.csv"),
    ],
};

/// The labels of the page's controls, by request field (the URL keys are the request keys). A problem with
/// both files together names no field.
const LABELS: &[(&str, &str)] = &[
    ("idea", "Idea: predictions CSV"),
    ("control", "Control: predictions CSV"),
    ("metric", "Metric"),
    ("resamples", "Bootstrap resamples"),
    ("seed", "Seed"),
];

/// Both pasted CSVs and the typed options → the report `kgadvise compare` prints (one thread in the browser;
/// the answer does not depend on the number of threads).
pub fn compare_answer(
    idea: &str,
    control: &str,
    metric: Option<&str>,
    resamples: Option<&str>,
    seed: Option<&str>,
) -> CompareAnswer {
    let Some(metric) = metric else {
        return CompareAnswer::Need("Pick the metric.");
    };
    if idea.trim().is_empty() || control.trim().is_empty() {
        return CompareAnswer::Need("Paste both prediction CSVs: the idea's and the control's.");
    }
    let count =
        |field: &str, text: Option<&str>| parse_count(label_of(field, LABELS), text.unwrap_or(""));
    let request = match (count("resamples", resamples), count("seed", seed)) {
        (Ok(resamples), Ok(seed)) => CompareRequest {
            idea: idea.to_string(),
            control: control.to_string(),
            metric: metric.to_string(),
            resamples: resamples.map(|n| n as usize),
            seed,
            ..CompareRequest::default()
        },
        (Err(e), _) | (_, Err(e)) => return CompareAnswer::Error(e),
    };
    match compare::compare(&request, crate::browser::now()) {
        Ok(r) => CompareAnswer::Report(Box::new(r)),
        Err(e) => CompareAnswer::Error(request_error(&e, LABELS)),
    }
}

#[component]
pub fn ComparePage() -> impl IntoView {
    let url = use_url();
    let idea = RwSignal::new(String::new());
    let control = RwSignal::new(String::new());
    let idea_file = RwSignal::new(None::<LoadedFile>);
    let control_file = RwSignal::new(None::<LoadedFile>);
    let metrics: Vec<(String, String)> = Metric::ALL
        .iter()
        .map(|m| (m.as_str().to_string(), m.as_str().to_string()))
        .collect();
    let answer = move || {
        let idea = idea_file.with(|f| idea.with(|p| given_text(f, p, csv_text).map(String::from)));
        let control =
            control_file.with(|f| control.with(|p| given_text(f, p, csv_text).map(String::from)));
        match (idea, control) {
            (Ok(i), Ok(c)) => compare_answer(
                &i,
                &c,
                url.value("metric").as_deref(),
                url.value("resamples").as_deref(),
                url.value("seed").as_deref(),
            ),
            (Err(e), _) | (_, Err(e)) => CompareAnswer::Error(e),
        }
    };
    view! {
        <section aria-labelledby="page-title">
            <h1 id="page-title">"Compare an idea with its control"</h1>
            <p class="lead">
                "Is the gain real or noise? Paste or drop the out-of-fold predictions of both runs on the same rows "
                "(columns y_true/target and the prediction; id, fold and group when you have them). Seeded: "
                "the same input gives the same answer. Nothing leaves this page."
            </p>
            <TryExample
                example=&EXAMPLE
                slots=vec![
                    ExampleSlot { field: "idea", text: idea, file: Some(idea_file) },
                    ExampleSlot { field: "control", text: control, file: Some(control_file) },
                ]
            />
            <form class="controls" on:submit=no_submit>
                <UrlSelect id="metric" label="Metric" key="metric" options=metrics any=Some("Pick a metric") />
                <UrlInput id="resamples" label="Bootstrap resamples" key="resamples" numeric=true placeholder="300" />
                <UrlInput id="seed" label="Seed" key="seed" numeric=true placeholder="42" />
            </form>
            <PasteArea id="idea-paste" label="Idea: predictions CSV" value=idea file=idea_file accept=".csv,.txt,text/*" />
            <PasteArea
                id="control-paste"
                label="Control: predictions CSV"
                value=control
                file=control_file
                accept=".csv,.txt,text/*"
            />
            {move || match answer() {
                CompareAnswer::Report(r) => view! { <CompareView report=*r /> }.into_any(),
                CompareAnswer::Need(what) => view! { <p class="hint" id="answer">{what}</p> }.into_any(),
                CompareAnswer::Error(e) => view! { <ErrorBox message=e /> }.into_any(),
            }}
        </section>
    }
}

/// A predictions file's text, decoded as `kgadvise compare` decodes it (UTF-8 or UTF-16, strictly: bad
/// bytes are an error with their line).
fn csv_text(bytes: &[u8]) -> Result<String, String> {
    kgadvise_core::text::decode_strict(bytes)
        .map(|t| t.into_owned())
        .map_err(|e| format!("{e}; expected a CSV text file"))
}

fn opt(v: Option<f64>) -> String {
    v.map(|x| fixed(x, 4)).unwrap_or_else(|| "—".into())
}

#[component]
fn CompareView(report: CompareReport) -> impl IntoView {
    let r = report;
    let decision = r.decision.as_str();
    let ci = r
        .ci95
        .map(|[lo, hi]| format!("[{}, {}]", fixed(lo, 4), fixed(hi, 4)))
        .unwrap_or_else(|| "—".into());
    let row = |head: &str, value: String, class: &str| {
        vec![Cell::head(head), Cell::text(value).class(class.to_string())]
    };
    let rows = vec![
        row(
            &format!("{} idea / control", r.metric.as_str()),
            format!("{} / {}", fixed(r.idea_score, 4), fixed(r.control_score, 4)),
            "",
        ),
        row("gain (positive = better)", fixed(r.gain, 4), "gain"),
        row("se / z", format!("{} / {}", opt(r.se), opt(r.z)), "z"),
        row("95 % interval of the gain", ci, ""),
        row("P(idea better)", opt(r.p_better), ""),
        row(
            "rows, paired by",
            format!("{} by {}", r.rows, r.paired_by),
            "",
        ),
        row(
            "folds improved",
            format!("{} of {}", r.folds_improved, r.folds.len()),
            "",
        ),
        row(
            "resamples used / seed",
            format!("{} of {} / {}", r.resamples_used, r.resamples, r.seed),
            "",
        ),
    ];
    view! {
        <div id="answer" class="answer">
            <p class=format!("verdict decision decision-{decision}")>
                <span class="decision-key">{decision}</span>
                " — "
                {r.reason.clone()}
            </p>
            <DataTable class="compare" head=&[] rows=rows />
            {(!r.cautions.is_empty()).then(|| text_list("cautions", r.cautions.clone()))}
            <FindingList findings=r.findings.clone() />
            <RulesUsed rules=r.rules.clone() />
        </div>
    }
}
