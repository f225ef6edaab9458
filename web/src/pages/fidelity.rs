//! Screen fidelity (`kgadvise fidelity`): paste or drop the backlog of ideas with their screen and full gains →
//! whether cheap screens rank ideas the way full cross-validation does.

use kgadvise_core::stats::fidelity::{self, FidelityReport, FidelityRequest};
use kgadvise_core::text::number::{fixed, shortest};
use leptos::prelude::*;

use crate::browser::now;
use crate::components::advisor::{
    AdvisorPage, AdvisorSpec, Inputs, Shown, TextBox, report_view, summary,
};
use crate::components::example::Example;
use crate::components::{Cell, DataTable, text_list};

/// Seven ideas screened and then run in full.
pub const EXAMPLE: Example = Example {
    what: "a backlog of seven ideas, each screened and then run as a full CV",
    typed: &[],
    files: &[("backlog", "stats/fidelity_ideas.csv")],
};

pub static SPEC: AdvisorSpec = AdvisorSpec {
    command: "fidelity",
    title: "Screen fidelity",
    lead: "Do cheap screens rank ideas the way full cross-validation does? Paste or drop the backlog: a CSV \
           with the columns `idea`, `screen_gain` and `full_gain`, one row per idea. Nothing leaves this page.",
    boxes: &[TextBox {
        field: "backlog",
        id: "backlog-paste",
        label: "Backlog CSV",
        placeholder: "idea,screen_gain,full_gain\nbigger-backbone,0.012,0.009",
        note: "",
        accept: ".csv,.txt,text/*",
    }],
    typed: &[],
    example: &EXAMPLE,
    need: "Paste or drop the backlog CSV.",
    answer,
};

/// The request `kgadvise fidelity` builds from its file, from the page's box.
pub fn fidelity_request(i: &Inputs) -> Result<FidelityRequest, Shown> {
    i.require(&["backlog"])?;
    Ok(FidelityRequest {
        backlog: i.text("backlog").to_string(),
        ..FidelityRequest::default()
    })
}

fn answer(i: &Inputs) -> Result<AnyView, Shown> {
    let request = fidelity_request(i)?;
    let report = fidelity::fidelity(&request, now()).map_err(|e| i.error(&e))?;
    Ok(fidelity_view(report))
}

const IDEAS_HEAD: &[&str] = &["idea", "screen gain", "full gain", "same sign"];

fn fidelity_view(r: FidelityReport) -> AnyView {
    let opt = |v: Option<f64>| v.map(|x| fixed(x, 3)).unwrap_or_else(|| "n/a".into());
    let rows = vec![
        ("ideas judged", r.ideas.to_string()),
        ("sign agreement", opt(r.sign_agreement)),
        ("Spearman rank correlation", opt(r.spearman)),
    ];
    let ideas: Vec<Vec<Cell>> = r
        .rows
        .iter()
        .map(|o| {
            vec![
                Cell::text(o.idea.clone()),
                Cell::text(shortest(o.screen_gain)).class("num".into()),
                Cell::text(shortest(o.full_gain)).class("num".into()),
                Cell::text(if o.same_sign { "yes" } else { "no" }.into()),
            ]
        })
        .collect();
    let mut parts = vec![summary("fidelity", rows)];
    if !ideas.is_empty() {
        parts.push(
            view! { <DataTable class="ideas" head=IDEAS_HEAD rows=ideas caption="Ideas" /> }
                .into_any(),
        );
    }
    if !r.skipped.is_empty() {
        let skipped = r.skipped.iter().map(|s| format!("skipped: {s}")).collect();
        parts.push(text_list("diagnostics", skipped));
    }
    report_view(parts, r.findings, r.rules)
}

#[component]
pub fn FidelityPage() -> impl IntoView {
    view! { <AdvisorPage spec=&SPEC /> }
}
