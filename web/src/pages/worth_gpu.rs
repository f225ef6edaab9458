//! Is the GPU worth the quota? (`kgadvise worth-gpu --task T --rows N [--refits N]`).

use kgadvise_core::hardware::worth::{self, WorthGpuReport, WorthGpuRequest};
use leptos::prelude::*;

use super::note_rows;
use crate::browser::now;
use crate::components::advisor::{
    AdvisorPage, AdvisorSpec, Control, Inputs, Shown, Typed, keyed_verdict, paragraph, report_view,
    titled,
};
use crate::components::example::Example;
use crate::components::{DataTable, text_list};

/// The task shown when none is chosen (the first of the task control).
pub const DEFAULT_TASK: &str = "gbdt";

/// A gradient-boosting run of a mid-sized table, refitted many times.
pub const EXAMPLE: Example = Example {
    what: "gradient boosting on 600,000 rows, 200 fits",
    typed: &[("task", "gbdt"), ("rows", "600000"), ("refits", "200")],
    files: &[],
};

/// (task, "task — name") for the task choices, in the rule book's order.
fn task_options() -> Vec<(String, String)> {
    kgadvise_core::rulebook()
        .worth_gpu
        .iter()
        .map(|w| (w.task.to_string(), format!("{} — {}", w.task, w.name)))
        .collect()
}

pub static SPEC: AdvisorSpec = AdvisorSpec {
    command: "worth-gpu",
    title: "Is the GPU worth it?",
    lead: "GPU hours are a weekly quota. For the task and the data size, should this run spend them?",
    boxes: &[],
    typed: &[
        Typed {
            field: "task",
            label: "Task",
            control: Control::Listed {
                options: task_options,
                any: None,
            },
        },
        Typed {
            field: "rows",
            label: "Rows",
            control: Control::number("e.g. 250000"),
        },
        Typed {
            field: "refits",
            label: "Refits (optional)",
            control: Control::number("e.g. 200"),
        },
    ],
    example: &EXAMPLE,
    need: "Enter the number of training rows.",
    answer,
};

/// The request `kgadvise worth-gpu` builds from its flags, from the page's values; nothing typed in Rows
/// yet asks for it.
pub fn worth_request(i: &Inputs) -> Result<WorthGpuRequest, Shown> {
    let Some(rows) = i.count("rows")? else {
        return Err(i.need());
    };
    Ok(WorthGpuRequest {
        task: i.value("task").unwrap_or(DEFAULT_TASK).to_string(),
        rows: Some(rows),
        refits: i.count("refits")?,
        ..WorthGpuRequest::default()
    })
}

fn answer(i: &Inputs) -> Result<AnyView, Shown> {
    let request = worth_request(i)?;
    let report = worth::worth_gpu(&request, now()).map_err(|e| i.error(&e))?;
    Ok(worth_view(report))
}

fn worth_view(r: WorthGpuReport) -> AnyView {
    let key = r.choice.as_str();
    let head = keyed_verdict(
        format!("verdict choice choice-{key}"),
        "choice-key",
        key,
        r.choice.words().to_string(),
    );
    let bounds = r.bounds_words();
    let notes = (!r.notes.is_empty()).then(|| {
        view! {
            <DataTable class="notes" head=&["note", "advice", "rule"] rows=note_rows(&r.notes) />
        }
        .into_any()
    });
    let mut parts = vec![
        head,
        paragraph("reason", r.reason),
        paragraph("bounds", bounds),
        titled("Advice", text_list("", r.advice)),
    ];
    parts.extend(notes);
    report_view(parts, r.findings, r.rules)
}

#[component]
pub fn WorthGpuPage() -> impl IntoView {
    view! { <AdvisorPage spec=&SPEC /> }
}
