//! Domain defaults (`kgadvise defaults DOMAIN --platform P`): the domain's defaults resolved for a platform,
//! the ones left out with their reason, and the templates.

use kgadvise_core::hardware::domains::{self, DefaultsReport, DefaultsRequest};
use leptos::prelude::*;

use super::{domain_options, note_rows, platform_options};
use crate::browser::now;
use crate::components::example::{Example, TryExample};
use crate::components::inputs::{parse_count, request_error};
use crate::components::{
    Cell, DataTable, ErrorBox, FindingList, RulesUsed, UrlInput, UrlSelect, no_submit, text_list,
};
use crate::use_url;

/// The domain shown when none is chosen (the first of the domain control).
pub const DEFAULT_DOMAIN: &str = "images";

/// A domain resolved on a platform.
pub const EXAMPLE: Example = Example {
    what: "the defaults of an image competition on a T4 x2",
    typed: &[("domain", "images"), ("platform", "t4x2")],
    files: &[],
};

/// The label of the control of each request field (the URL keys are the request keys).
const LABELS: &[(&str, &str)] = &[
    ("domain", "Domain"),
    ("platform", "Platform"),
    ("cores", "CPU cores"),
    ("processes", "Processes"),
];

/// A count typed into the page, for a request field of type u32.
fn count(field: &str, text: Option<&str>) -> Result<Option<u32>, String> {
    let label = LABELS
        .iter()
        .find(|(f, _)| *f == field)
        .map_or(field, |(_, label)| label);
    parse_count(label, text.unwrap_or(""))?
        .map(|n| u32::try_from(n).map_err(|_| format!("{label}: {n} is too large")))
        .transpose()
}

/// The defaults request of the page's inputs, answered by core (or the message to show).
pub fn defaults_report(
    domain: Option<&str>,
    platform: Option<&str>,
    cores: Option<&str>,
    processes: Option<&str>,
) -> Result<DefaultsReport, String> {
    let request = DefaultsRequest {
        domain: domain.unwrap_or(DEFAULT_DOMAIN).to_string(),
        platform: platform.map(String::from),
        cores: count("cores", cores)?,
        processes: count("processes", processes)?,
        ..DefaultsRequest::default()
    };
    domains::defaults(&request, now()).map_err(|e| request_error(&e, LABELS))
}

#[component]
pub fn DefaultsPage() -> impl IntoView {
    let url = use_url();
    let report = move || {
        defaults_report(
            url.value("domain").as_deref(),
            url.value("platform").as_deref(),
            url.value("cores").as_deref(),
            url.value("processes").as_deref(),
        )
    };
    view! {
        <section aria-labelledby="page-title">
            <h1 id="page-title">"Domain defaults"</h1>
            <p class="lead">
                "The defaults to write for a kind of competition, resolved for the platform it runs on: "
                "what applies, what is left out there and why."
            </p>
            <TryExample example=&EXAMPLE slots=Vec::new() />
            <form class="controls" on:submit=no_submit>
                <UrlSelect id="domain" label="Domain" key="domain" options=domain_options() />
                <UrlSelect
                    id="platform"
                    label="Platform"
                    key="platform"
                    options=platform_options()
                    any=Some("Any platform (unresolved)")
                />
                <UrlInput
                    id="cores"
                    label="CPU cores"
                    key="cores"
                    numeric=true
                    placeholder="from the platform"
                    hint="Only where the platform does not fix them (local machines)."
                />
                <UrlInput
                    id="processes"
                    label="Processes"
                    key="processes"
                    numeric=true
                    placeholder="one per GPU"
                    hint="Processes sharing the cores (folds run in parallel)."
                />
            </form>
            {move || match report() {
                Ok(r) => view! { <DefaultsAnswer report=r /> }.into_any(),
                Err(e) => view! { <ErrorBox message=e /> }.into_any(),
            }}
        </section>
    }
}

fn list(items: Vec<String>) -> AnyView {
    text_list("", items)
}

#[component]
fn DefaultsAnswer(report: DefaultsReport) -> impl IntoView {
    let heading = match &report.platform_name {
        Some(p) => format!("{} on {p}", report.domain_name),
        None => format!(
            "{} (pick a platform to resolve AMP, workers and what is left out)",
            report.domain_name
        ),
    };
    let dropped = (!report.dropped.is_empty()).then(|| {
        let rows: Vec<Vec<Cell>> = report
            .dropped
            .iter()
            .map(|d| {
                vec![
                    Cell::text(d.text.clone()),
                    Cell::text(d.reason.clone()),
                    Cell::rule(d.rule.clone()),
                ]
            })
            .collect();
        view! {
            <h3>"Left out on this platform"</h3>
            <DataTable class="dropped" head=&["default", "why not here", "rule"] rows=rows />
        }
    });
    let notes = (!report.platform_notes.is_empty()).then(|| {
        view! {
            <h3>"About this platform"</h3>
            {list(report.platform_notes.clone())}
        }
    });
    let seed_notes = (!report.notes.is_empty()).then(|| {
        view! {
            <h3>"Notes"</h3>
            <DataTable class="notes" head=&["note", "advice", "rule"] rows=note_rows(&report.notes) />
        }
    });
    let templates = (!report.templates.is_empty()).then(|| {
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
        view! {
            <h3>"Templates"</h3>
            <DataTable
                class="templates"
                head=&["file", "on by default", "opt-in", "why not default", "rule"]
                rows=rows
            />
        }
    });
    view! {
        <div id="answer" class="answer">
            <h2>{heading}</h2>
            <FindingList findings=report.findings.clone() />
            <h3>"Always"</h3>
            <div class="always">{list(report.always.clone())}</div>
            <h3>"When measured, or when the data is large"</h3>
            <div class="when-measured">{list(report.when_measured.clone())}</div>
            {dropped}
            {notes}
            {seed_notes}
            {templates}
            <RulesUsed rules=report.rules.clone() />
        </div>
    }
}
