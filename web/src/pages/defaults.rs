//! Domain defaults (`kgadvise defaults DOMAIN --platform P`): the domain's defaults resolved for a platform,
//! the ones left out with their reason, and the templates.

use kgadvise_core::hardware::domains::{self, DefaultsReport, DefaultsRequest};
use leptos::prelude::*;

use super::{domain_options, note_rows, platform_options};
use crate::browser::now;
use crate::components::advisor::{
    AdvisorPage, AdvisorSpec, Control, Inputs, Shown, Typed, report_view, titled,
};
use crate::components::example::Example;
use crate::components::{Cell, DataTable, text_list};

/// The domain shown when none is chosen (the first of the domain control).
pub const DEFAULT_DOMAIN: &str = "images";

/// A domain resolved on a platform.
pub const EXAMPLE: Example = Example {
    what: "the defaults of an image competition on a T4 x2",
    typed: &[("domain", "images"), ("platform", "t4x2")],
    files: &[],
};

pub static SPEC: AdvisorSpec = AdvisorSpec {
    command: "defaults",
    title: "Domain defaults",
    lead: "The defaults to write for a kind of competition, resolved for the platform it runs on: what applies, \
           what is left out there and why.",
    boxes: &[],
    typed: &[
        Typed {
            field: "domain",
            label: "Domain",
            control: Control::Listed {
                options: domain_options,
                any: None,
            },
        },
        Typed {
            field: "platform",
            label: "Platform",
            control: Control::Listed {
                options: platform_options,
                any: Some("Any platform (unresolved)"),
            },
        },
        Typed {
            field: "cores",
            label: "CPU cores",
            control: Control::number("from the platform"),
        },
        Typed {
            field: "processes",
            label: "Processes",
            control: Control::number("one per GPU"),
        },
    ],
    example: &EXAMPLE,
    // every form answers: the domain defaults to the first
    need: "",
    answer,
};

/// The request `kgadvise defaults DOMAIN` builds from its flags, from the page's values.
pub fn defaults_request(i: &Inputs) -> Result<DefaultsRequest, Shown> {
    Ok(DefaultsRequest {
        domain: i.value("domain").unwrap_or(DEFAULT_DOMAIN).to_string(),
        platform: i.value("platform").map(String::from),
        cores: i.count_u32("cores")?,
        processes: i.count_u32("processes")?,
        ..DefaultsRequest::default()
    })
}

fn answer(i: &Inputs) -> Result<AnyView, Shown> {
    let request = defaults_request(i)?;
    let report = domains::defaults(&request, now()).map_err(|e| i.error(&e))?;
    Ok(defaults_view(report))
}

fn list(items: Vec<String>) -> AnyView {
    text_list("", items)
}

fn defaults_view(report: DefaultsReport) -> AnyView {
    let heading = report.heading();
    let mut parts = vec![
        view! { <h2>{heading}</h2> }.into_any(),
        titled(
            "Always",
            view! { <div class="always">{list(report.always)}</div> }.into_any(),
        ),
        titled(
            "When measured, or when the data is large",
            view! { <div class="when-measured">{list(report.when_measured)}</div> }.into_any(),
        ),
    ];
    if !report.dropped.is_empty() {
        let rows: Vec<Vec<Cell>> = report
            .dropped
            .into_iter()
            .map(|d| vec![Cell::text(d.text), Cell::text(d.reason), Cell::rule(d.rule)])
            .collect();
        let table = view! {
            <DataTable class="dropped" head=&["default", "why not here", "rule"] rows=rows />
        };
        parts.push(titled("Left out on this platform", table.into_any()));
    }
    if !report.platform_notes.is_empty() {
        parts.push(titled("About this platform", list(report.platform_notes)));
    }
    if !report.notes.is_empty() {
        let table = view! {
            <DataTable class="notes" head=&["note", "advice", "rule"] rows=note_rows(&report.notes) />
        };
        parts.push(titled("Notes", table.into_any()));
    }
    if !report.templates.is_empty() {
        let rows: Vec<Vec<Cell>> = report
            .templates
            .iter()
            .map(|t| {
                vec![
                    Cell::code(t.file.to_string()),
                    Cell::text(t.on_by_default.join(", ")),
                    Cell::text(t.opt_in.join(", ")),
                    Cell::text(t.why_not_default.to_string()),
                    Cell::rule(t.id.to_string()),
                ]
            })
            .collect();
        let table = view! {
            <DataTable
                class="templates"
                head=&["file", "on by default", "opt-in", "why not default", "rule"]
                rows=rows
            />
        };
        parts.push(titled("Templates", table.into_any()));
    }
    report_view(parts, report.findings, report.rules)
}

#[component]
pub fn DefaultsPage() -> impl IntoView {
    view! { <AdvisorPage spec=&SPEC /> }
}
