//! Quota (`kgadvise quota`): paste or drop any form of `kaggle quota` (and kgkit's runs log) → the GPU and TPU
//! hours plannable now, what the runs in flight reserve, whether the figure is live, and the findings.

use kgadvise_core::quota::text as words;
use kgadvise_core::quota::{self, QuotaReport, QuotaRequest, QuotaState};
use leptos::prelude::*;

use crate::browser::now;
use crate::components::advisor::{
    AdvisorPage, AdvisorSpec, Control, Inputs, Shown, TextBox, Typed, report_view, summary,
};
use crate::components::example::Example;
use crate::components::{DataTable, text_list, text_rows};

/// kgkit's saved quota with runs in flight (the time of the answer fixed, so the example reads the same
/// whenever it is tried).
pub const EXAMPLE: Example = Example {
    what: "kgkit's saved quota, two runs in flight and one finished since it was read",
    typed: &[("now", "2026-09-15T10:00:00Z")],
    files: &[
        ("quota", "quota/gpu_quota.json"),
        ("runs", "quota/gpu_runs.jsonl"),
    ],
};

/// The "As of" control of the quota pages: the request's `now` (the CLI's `--now`).
pub const AS_OF: Typed = Typed {
    field: "now",
    label: "As of",
    control: Control::Text {
        numeric: false,
        placeholder: "now",
    },
};

pub static SPEC: AdvisorSpec = AdvisorSpec {
    command: "quota",
    title: "Quota",
    lead: "How many GPU and TPU hours can you plan on now? Paste or drop what `kaggle quota` printed (the \
           table, `-v` CSV, `--format json`), the API payload or kgkit's `.kaggle-gm/gpu_quota.json`; add \
           kgkit's runs log and its runs in flight reserve their hours. Nothing leaves this page.",
    boxes: &[
        TextBox {
            field: "quota",
            id: "quota-paste",
            label: "kaggle quota",
            placeholder: "resource  used   remaining  total   refreshAt\nGPU       2.42h  27.58h     30.00h  2026-09-19T00:00:00",
            note: "",
            accept: ".txt,.csv,.json,text/*",
        },
        TextBox {
            field: "runs",
            id: "runs-paste",
            label: "Runs log (optional)",
            placeholder: "{\"kernel\": \"me/a-train\", \"hours\": 5, \"pushed_at\": \"2026-09-15T07:00:00Z\", \"status\": \"running\"}",
            note: "",
            accept: ".jsonl,.json,.txt,text/*",
        },
    ],
    typed: &[
        Typed {
            field: "readAt",
            label: "Read at",
            control: Control::Text {
                numeric: false,
                placeholder: "just now",
            },
        },
        AS_OF,
    ],
    example: &EXAMPLE,
    need: "Paste or drop the output of `kaggle quota`.",
    answer,
};

/// The request `kgadvise quota` builds from its inputs, from the page's boxes and values: a pasted figure
/// is live (as piped from `kaggle quota`) unless the time it was read is given.
pub fn quota_request(i: &Inputs) -> Result<QuotaRequest, Shown> {
    i.require(&["quota"])?;
    let read_at = i.value("readAt").map(String::from);
    Ok(QuotaRequest {
        quota: i.text("quota").to_string(),
        runs: i.optional_text("runs"),
        live: read_at.is_none(),
        read_at,
        now: i.value("now").map(String::from),
        ..QuotaRequest::default()
    })
}

fn answer(i: &Inputs) -> Result<AnyView, Shown> {
    let request = quota_request(i)?;
    let report = quota::quota(&request, now()).map_err(|e| i.error(&e))?;
    Ok(quota_view(report))
}

fn quota_view(r: QuotaReport) -> AnyView {
    let mut parts = vec![view! { <p class="quota-form">{words::source_line(&r)}</p> }.into_any()];
    if r.gpu.is_none() && r.tpu.is_none() {
        parts.push(view! { <p class="verdict">{words::NO_FIGURE}</p> }.into_any());
    }
    for (name, state) in [("GPU", &r.gpu), ("TPU", &r.tpu)] {
        if let Some(s) = state {
            parts.push(state_view(name, s));
        }
    }
    if !r.stale_runs.is_empty() {
        let stale = r
            .stale_runs
            .iter()
            .map(|s| words::stale_run_line(s))
            .collect();
        parts.push(text_list("stale-runs", stale));
    }
    if !r.notes.is_empty() {
        parts.push(text_list("notes", r.notes));
    }
    report_view(parts, r.findings, r.rules)
}

/// One accelerator's hours, then what its runs in flight reserve.
fn state_view(name: &'static str, s: &QuotaState) -> AnyView {
    // Core's table, headers and cells, as `kgadvise quota --runs` prints it.
    let held = (!s.reservations.is_empty()).then(|| {
        let table = s.reservations_table();
        let caption = words::reservations_caption(name);
        view! {
            <DataTable
                class="reservations"
                head=table.header
                rows=text_rows(table.rows)
                caption=caption
            />
        }
    });
    view! {
        <h2 class="quota-name">{name}</h2>
        {summary("quota-state", words::state_rows(s))}
        {held}
    }
    .into_any()
}

#[component]
pub fn QuotaPage() -> impl IntoView {
    view! { <AdvisorPage spec=&SPEC /> }
}
