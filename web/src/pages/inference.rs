//! Inference time budget (`kgadvise inference`): a measured time per test item (or per batch), the hidden
//! test's size and the competition's run-time limit → the expected run time, whether it keeps the margin,
//! and the inference defaults to apply when it does not.

use kgadvise_core::hardware::inference::{self, InferenceReport, InferenceRequest};
use kgadvise_core::text::number::{fixed, shortest};
use leptos::prelude::*;

use super::note_rows;
use crate::browser::now;
use crate::components::advisor::{
    AdvisorPage, AdvisorSpec, Control, Inputs, Shown, Typed, report_view, summary,
};
use crate::components::example::Example;
use crate::components::{DataTable, text_list};

/// An ensemble timed on the whole hidden test that runs past the limit on a T4 x2.
pub const EXAMPLE: Example = Example {
    what: "an ensemble at 0.9 s per item on 40,000 test items against a 9 h limit, on a T4 x2",
    typed: &[
        ("itemSeconds", "0.9"),
        ("testItems", "40000"),
        ("timedItems", "40000"),
        ("limitHours", "9"),
        ("platform", "t4x2"),
    ],
    files: &[],
};

pub static SPEC: AdvisorSpec = AdvisorSpec {
    command: "inference",
    title: "Inference time budget",
    lead: "Will the submission kernel finish on the hidden test in time? Give the measured seconds per test \
           item of the whole pipeline (or per batch), the hidden test's size and the competition's run-time \
           limit: the expected run time, the margin it keeps, and what to change when it does not.",
    boxes: &[],
    typed: &[
        Typed {
            field: "itemSeconds",
            label: "Seconds per item",
            control: Control::number("e.g. 0.9"),
        },
        Typed {
            field: "batchSeconds",
            label: "Seconds per batch",
            control: Control::number("instead of per item"),
        },
        Typed {
            field: "batchSize",
            label: "Items per batch",
            control: Control::number("e.g. 32"),
        },
        Typed {
            field: "testItems",
            label: "Hidden test items",
            control: Control::number("e.g. 40000"),
        },
        Typed {
            field: "limitHours",
            label: "Run-time limit (h)",
            control: Control::number("e.g. 9"),
        },
        Typed {
            field: "setupSeconds",
            label: "Set-up seconds",
            control: Control::number("none"),
        },
        Typed {
            field: "timedItems",
            label: "Items timed",
            control: Control::number("e.g. 2000"),
        },
        Typed {
            field: "platform",
            label: "Platform",
            control: Control::Text {
                numeric: false,
                placeholder: "a platform key: t4x2, p100, cpu, ...",
            },
        },
    ],
    example: &EXAMPLE,
    need: "Enter the seconds per item (or per batch and its size), the hidden test items and the limit.",
    answer,
};

/// The request `kgadvise inference` builds from its flags, from the page's typed values.
pub fn inference_request(i: &Inputs) -> Result<InferenceRequest, Shown> {
    Ok(InferenceRequest {
        item_seconds: i.number("itemSeconds")?,
        batch_seconds: i.number("batchSeconds")?,
        batch_size: i.count_u32("batchSize")?,
        test_items: i.count("testItems")?,
        limit_hours: i.number("limitHours")?,
        setup_seconds: i.number("setupSeconds")?,
        timed_items: i.count("timedItems")?,
        platform: i.value("platform").map(str::to_string),
        ..InferenceRequest::default()
    })
}

fn answer(i: &Inputs) -> Result<AnyView, Shown> {
    if i.nothing_typed() {
        return Err(i.need());
    }
    let request = inference_request(i)?;
    let report = inference::inference(&request, now()).map_err(|e| i.error(&e))?;
    Ok(inference_view(report))
}

fn inference_view(r: InferenceReport) -> AnyView {
    let headline = view! {
        <p class="verdict inference">
            <span class="verdict-key">{r.budget.as_str()}</span>
            {format!(" — {} h expected of the {} h limit", shortest(r.expected_hours), shortest(r.limit_hours))}
        </p>
    }
    .into_any();
    let mut rows = vec![
        ("seconds per item", shortest(r.item_seconds)),
        ("set-up", format!("{} s", shortest(r.setup_seconds))),
        ("hidden test items", r.test_items.to_string()),
        ("expected", format!("{} h", shortest(r.expected_hours))),
        ("margin", format!("{} %", fixed(r.margin * 100.0, 1))),
        (
            "margin wanted",
            format!("{} %", fixed(r.min_margin * 100.0, 1)),
        ),
        ("budget", format!("{} h", shortest(r.budget_hours))),
        ("items in the budget", r.items_in_budget.to_string()),
    ];
    if let Some(x) = r.speedup_needed {
        rows.push(("speed-up needed", format!("{}x", shortest(x))));
    }
    let mut parts = vec![headline, summary("inference", rows)];
    if !r.fixes.is_empty() {
        parts.push(text_list("fixes", r.fixes));
    }
    if !r.notes.is_empty() {
        parts.push(
            view! { <DataTable class="notes" head=&["note", "advice", "rule"] rows=note_rows(&r.notes) /> }
                .into_any(),
        );
    }
    report_view(parts, r.findings, r.rules)
}

#[component]
pub fn InferencePage() -> impl IntoView {
    view! { <AdvisorPage spec=&SPEC /> }
}
