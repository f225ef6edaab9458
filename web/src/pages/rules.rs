//! Rule docs (`kgadvise explain ID`): any finding rule (KH001) or data entry (`matrix.bf16.t4x2`), and an
//! index of every finding rule. Every finding on every page links here.

use kgadvise_core::explain::{self, ExplainReport, ExplainRequest, Explanation};
use leptos::prelude::*;

use crate::browser::now;
use crate::components::example::{Example, TryExample};
use crate::components::inputs::request_error;
use crate::components::{AppLink, DocText, ErrorBox, RuleLink, UrlInput, no_submit};
use crate::query::rule_href;
use crate::use_url;

/// The documentation of one finding rule.
pub const EXAMPLE: Example = Example {
    what: "the rule for a machine_shape that Kaggle refuses",
    typed: &[("id", "KM007")],
    files: &[],
};

/// The label of the control of each request field (the URL key `id` is the request key).
const LABELS: &[(&str, &str)] = &[("id", "Rule or entry ID")];

/// The page's answer for an ID: its explanation, or the error with the IDs close to it.
pub fn explain_answer(id: &str) -> Result<Explanation, (String, Vec<String>)> {
    let request = ExplainRequest {
        id: Some(id.to_string()),
        ..ExplainRequest::default()
    };
    match explain::explain(&request, now()) {
        Ok(ExplainReport::Entry(e)) => Ok(e),
        // A request of one ID is answered by its explanation; the list and the Markdown are not asked.
        Ok(ExplainReport::List(_) | ExplainReport::Markdown(_)) => {
            Err(("expected one rule or entry".to_string(), Vec::new()))
        }
        Err(e) => Err((request_error(&e, LABELS), explain::suggestions(id))),
    }
}

#[component]
pub fn RulesPage() -> impl IntoView {
    let url = use_url();
    let answer = move || url.value("id").map(|id| explain_answer(&id));
    let index = explain::rules_by_code()
        .into_iter()
        .map(|r| {
            view! {
                <li>
                    <RuleLink id=r.id.clone() />
                    {format!(" {} ({})", r.title, r.severity)}
                </li>
            }
        })
        .collect_view();
    view! {
        <section aria-labelledby="page-title">
            <h1 id="page-title">"Rule docs"</h1>
            <p class="lead">
                "What each finding checks, why it matters, how to fix it, its thresholds and its source — the text "
                <code>"kgadvise explain"</code>
                " prints."
            </p>
            <TryExample example=&EXAMPLE slots=Vec::new() />
            <form class="controls" on:submit=no_submit>
                <UrlInput
                    id="rule-id"
                    label="Rule or entry ID"
                    key="id"
                    placeholder="KH001 or matrix.bf16.t4x2"
                />
            </form>
            {move || match answer() {
                None => ().into_any(),
                Some(Ok(e)) => view! { <ExplanationView e=e /> }.into_any(),
                Some(Err((message, suggestions))) => view! {
                    <ErrorBox message=message />
                    <ul class="suggestions">
                        {suggestions
                            .into_iter()
                            .map(|s| view! { <li><AppLink href=rule_href(&s)><code>{s.clone()}</code></AppLink></li> })
                            .collect_view()}
                    </ul>
                }
                .into_any(),
            }}
            <h2>"Finding rules"</h2>
            <ul class="rule-index">{index}</ul>
        </section>
    }
}

#[component]
fn ExplanationView(e: Explanation) -> impl IntoView {
    view! {
        <article id="answer" class="answer explanation">
            <h2>
                <code>{e.rule.clone()}</code>
                {format!(" — {}", e.title)}
            </h2>
            <p class="kind">{format!("{} · source: {} · as of {}", e.kind, e.source, e.as_of)}</p>
            <DocText doc=e.doc.clone() />
        </article>
    }
}
