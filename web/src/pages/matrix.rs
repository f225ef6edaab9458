//! Hardware matrix: what runs where (`kgadvise matrix`), with each cell's condition on hover and on
//! keyboard focus, a platform/capability filter and the status of every Kaggle machine shape.

use kgadvise_core::hardware::{self, CellAnswer, MatrixReport, MatrixRequest, ShapeAnswer, grid};
use kgadvise_core::rulebook::Support;
use leptos::prelude::*;

use super::{capability_options, platform_options};
use crate::browser::now;
use crate::components::example::{Example, TryExample};
use crate::components::inputs::request_error;
use crate::components::{
    Cell, DataTable, ErrorBox, FindingList, RuleLink, RulesUsed, UrlSelect, no_submit,
};
use crate::use_url;

/// One cell: a capability on a platform.
pub const EXAMPLE: Example = Example {
    what: "can a T4 x2 session train in bf16?",
    typed: &[("platform", "t4x2"), ("capability", "bf16")],
    files: &[],
};

/// The label of the control of each request field (the URL keys are the request keys).
const LABELS: &[(&str, &str)] = &[("platform", "Platform"), ("capability", "Capability")];

/// The matrix request of the page's inputs, answered by core (or the error to show).
pub fn matrix_report(
    platform: Option<&str>,
    capability: Option<&str>,
) -> Result<MatrixReport, String> {
    let request = MatrixRequest {
        platform: platform.map(String::from),
        capability: capability.map(String::from),
        ..MatrixRequest::default()
    };
    hardware::matrix(&request, now()).map_err(|e| request_error(&e, LABELS))
}

pub fn support_class(s: Support) -> &'static str {
    match s {
        Support::Yes => "support support-yes",
        Support::No => "support support-no",
        Support::Partial => "support support-partial",
        Support::NotApplicable => "support support-na",
    }
}

#[component]
pub fn MatrixPage() -> impl IntoView {
    let url = use_url();
    let report = move || {
        matrix_report(
            url.value("platform").as_deref(),
            url.value("capability").as_deref(),
        )
    };
    view! {
        <section aria-labelledby="page-title">
            <h1 id="page-title">"Hardware matrix"</h1>
            <p class="lead">
                "What runs on each Kaggle platform and locally. Hover or focus (Tab) a cell to read its condition; "
                "pick a platform and a capability for one answer."
            </p>
            <TryExample example=&EXAMPLE slots=Vec::new() />
            <form class="controls" on:submit=no_submit>
                <UrlSelect
                    id="platform"
                    label="Platform"
                    key="platform"
                    options=platform_options()
                    any=Some("All platforms")
                />
                <UrlSelect
                    id="capability"
                    label="Capability"
                    key="capability"
                    options=capability_options()
                    any=Some("All capabilities")
                />
            </form>
            {move || match report() {
                Ok(r) => view! { <MatrixAnswer report=r /> }.into_any(),
                Err(e) => view! { <ErrorBox message=e /> }.into_any(),
            }}
        </section>
    }
}

#[component]
fn MatrixAnswer(report: MatrixReport) -> impl IntoView {
    match report {
        MatrixReport::Cell {
            cell,
            rules,
            findings,
            ..
        } => view! {
            <div id="answer" class="answer">
                <CellCard cell=cell />
                <FindingList findings=findings />
                <RulesUsed rules=rules />
            </div>
        }
        .into_any(),
        MatrixReport::Table {
            cells,
            shapes,
            notes,
            rules,
            findings,
            ..
        } => view! {
            <div id="answer" class="answer">
                <FindingList findings=findings />
                <MatrixTable cells=cells />
                {(!notes.is_empty()).then(|| view! {
                    <ul class="notes">{notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
                })}
                <ShapeTable shapes=shapes />
                <RulesUsed rules=rules />
            </div>
        }
        .into_any(),
    }
}

/// One cell as a sentence, with its condition and provenance.
#[component]
fn CellCard(cell: CellAnswer) -> impl IntoView {
    view! {
        <div class="cell-card">
            <p class="verdict">
                {format!("{} on {}: ", cell.capability_name, cell.platform_name)}
                <span class=support_class(cell.support)>{cell.support.as_str()}</span>
            </p>
            <p class="condition">{cell.note.clone()}</p>
            <p class="provenance">
                <RuleLink id=cell.rule.clone() />
                {format!(" — {} (as of {})", cell.source, cell.as_of)}
            </p>
        </div>
    }
}

#[component]
fn MatrixTable(cells: Vec<CellAnswer>) -> impl IntoView {
    let (columns, rows) = grid(&cells);
    let (selected, set_selected) = signal(None::<CellAnswer>);
    let header = columns
        .iter()
        .map(|(key, name)| view! { <th scope="col" title=name.clone()>{key.clone()}</th> })
        .collect_view();
    let body = rows
        .into_iter()
        .map(|(key, name, row)| {
            let tds = row
                .into_iter()
                .map(|c| {
                    let title = format!(
                        "{} on {}: {} — {}",
                        c.capability_name,
                        c.platform_name,
                        c.support.as_str(),
                        c.note
                    );
                    let (on_focus, on_hover) = (c.clone(), c.clone());
                    view! {
                        <td
                            class=support_class(c.support)
                            tabindex="0"
                            title=title
                            aria-describedby="cell-details"
                            data-cell=format!("{}.{}", c.capability, c.platform)
                            on:focus=move |_| set_selected.set(Some(on_focus.clone()))
                            on:mouseenter=move |_| set_selected.set(Some(on_hover.clone()))
                        >
                            {c.support.as_str()}
                        </td>
                    }
                })
                .collect_view();
            view! {
                <tr>
                    <th scope="row" title=name>{key}</th>
                    {tds}
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-wrap">
            <table class="matrix">
                <caption>
                    "Support: yes, no, partial (yes under the condition), n/a (does not apply)"
                </caption>
                <thead>
                    <tr>
                        <th scope="col">"capability"</th>
                        {header}
                    </tr>
                </thead>
                <tbody>{body}</tbody>
            </table>
        </div>
        <aside id="cell-details" class="cell-details" aria-live="polite">
            {move || match selected.get() {
                Some(c) => view! { <CellCard cell=c /> }.into_any(),
                None => view! {
                    <p class="hint">"Hover a cell, or move to it with Tab, to read its condition here."</p>
                }
                .into_any(),
            }}
        </aside>
    }
}

#[component]
fn ShapeTable(shapes: Vec<ShapeAnswer>) -> impl IntoView {
    if shapes.is_empty() {
        return ().into_any();
    }
    let rows: Vec<Vec<Cell>> = shapes
        .into_iter()
        .map(|s| {
            vec![
                Cell::code(s.machine_shape),
                Cell::text(s.accelerator.words().to_string()),
                Cell::text(s.status.as_str().to_string())
                    .class(format!("status status-{}", s.status.as_str())),
                Cell::text(s.platform.unwrap_or_default()),
                Cell::code(s.stored_as.unwrap_or_default()),
                Cell::text(s.what),
                Cell::rule(s.rule),
            ]
        })
        .collect();
    view! {
        <h2>"Kaggle machine shapes"</h2>
        <DataTable
            class="shapes"
            head=&["machine_shape", "accelerator", "status", "platform", "stored as", "what happens", "rule"]
            rows=rows
        />
    }
    .into_any()
}
