//! Is the GPU worth the quota? (`kgadvise worth-gpu --task T --rows N [--refits N]`).

use kgadvise_core::hardware::worth::{self, WorthGpuReport, WorthGpuRequest};
use leptos::prelude::*;

use super::note_rows;
use crate::browser::now;
use crate::components::example::{Example, TryExample};
use crate::components::inputs::{parse_count, request_error};
use crate::components::{
    DataTable, ErrorBox, FindingList, RulesUsed, UrlInput, UrlSelect, no_submit, text_list,
};
use crate::use_url;

/// What the page shows for its inputs: a report, a prompt for missing input, or an error.
#[derive(Debug)]
pub enum WorthAnswer {
    Report(WorthGpuReport),
    NeedRows,
    Error(String),
}

/// The task shown when none is chosen (the first of the task control).
pub const DEFAULT_TASK: &str = "gbdt";

/// A gradient-boosting run of a mid-sized table, refitted many times.
pub const EXAMPLE: Example = Example {
    what: "gradient boosting on 600,000 rows, 200 fits",
    typed: &[("task", "gbdt"), ("rows", "600000"), ("refits", "200")],
    files: &[],
};

/// The label of the control of each request field (the URL keys are the request keys).
const LABELS: &[(&str, &str)] = &[("task", "Task"), ("rows", "Rows"), ("refits", "Refits")];

/// The worth-gpu request of the page's inputs, answered by core; nothing typed in Rows yet asks for it.
pub fn worth_answer(task: Option<&str>, rows: Option<&str>, refits: Option<&str>) -> WorthAnswer {
    let rows = match parse_count("rows", rows.unwrap_or("")) {
        Ok(Some(n)) => n,
        Ok(None) => return WorthAnswer::NeedRows,
        Err(e) => return WorthAnswer::Error(e),
    };
    let refits = match parse_count("refits", refits.unwrap_or("")) {
        Ok(n) => n,
        Err(e) => return WorthAnswer::Error(e),
    };
    let request = WorthGpuRequest {
        task: task.unwrap_or(DEFAULT_TASK).to_string(),
        rows: Some(rows),
        refits,
        ..WorthGpuRequest::default()
    };
    match worth::worth_gpu(&request, now()) {
        Ok(r) => WorthAnswer::Report(r),
        Err(e) => WorthAnswer::Error(request_error(&e, LABELS)),
    }
}

#[component]
pub fn WorthGpuPage() -> impl IntoView {
    let url = use_url();
    let tasks: Vec<(String, String)> = kgadvise_core::rulebook()
        .worth_gpu
        .iter()
        .map(|w| (w.task.to_string(), format!("{} — {}", w.task, w.name)))
        .collect();
    let answer = move || {
        worth_answer(
            url.value("task").as_deref(),
            url.value("rows").as_deref(),
            url.value("refits").as_deref(),
        )
    };
    view! {
        <section aria-labelledby="page-title">
            <h1 id="page-title">"Is the GPU worth it?"</h1>
            <p class="lead">
                "GPU hours are a weekly quota. For the task and the data size, should this run spend them?"
            </p>
            <TryExample example=&EXAMPLE slots=Vec::new() />
            <form class="controls" on:submit=no_submit>
                <UrlSelect id="task" label="Task" key="task" options=tasks />
                <UrlInput id="rows" label="Rows" key="rows" numeric=true placeholder="e.g. 250000" />
                <UrlInput
                    id="refits"
                    label="Refits (optional)"
                    key="refits"
                    numeric=true
                    placeholder="e.g. 200"
                    hint="Model fits in the run: folds x seeds x tuning trials."
                />
            </form>
            {move || match answer() {
                WorthAnswer::Report(r) => view! { <WorthReport report=r /> }.into_any(),
                WorthAnswer::NeedRows => view! {
                    <p class="hint" id="answer">"Enter the number of training rows."</p>
                }
                .into_any(),
                WorthAnswer::Error(e) => view! { <ErrorBox message=e /> }.into_any(),
            }}
        </section>
    }
}

#[component]
fn WorthReport(report: WorthGpuReport) -> impl IntoView {
    let bounds = if report.gpu_from_rows == 0 {
        "This task always runs on the GPU.".to_string()
    } else {
        format!(
            "CPU below {} rows; GPU from {} rows.",
            report.cpu_below_rows, report.gpu_from_rows
        )
    };
    let notes = (!report.notes.is_empty()).then(|| {
        view! {
            <DataTable class="notes" head=&["note", "advice", "rule"] rows=note_rows(&report.notes) />
        }
    });
    view! {
        <div id="answer" class="answer">
            <p class=format!("verdict choice choice-{}", report.choice.as_str())>
                <span class="choice-key">{report.choice.as_str()}</span>
                " — "
                {report.choice.words()}
            </p>
            <p class="reason">{report.reason.clone()}</p>
            <p class="bounds">{bounds}</p>
            <h3>"Advice"</h3>
            {text_list("", report.advice.clone())}
            {notes}
            <FindingList findings=report.findings.clone() />
            <RulesUsed rules=report.rules.clone() />
        </div>
    }
}
