//! Rule docs (`kgadvise explain ID`): any finding rule (KH001) or data entry (`matrix.bf16.t4x2`), and an
//! index of every finding rule. Every finding on every page links here.
//!
//! The page's wasm holds the rule book without the rules' long prose (what it checks, why it matters, an
//! example: core's feature `rule-prose` is off in the page's build, for its size budget). The page reads it
//! from the site's `rules-prose.json` (generated from the rules as `web/rules-prose.json`, copied by trunk,
//! cached by the service worker, so offline too) and shows those sections before the ones the wasm holds
//! (fix, thresholds, source); while the file loads, or if it cannot be read, it says so.

use kgadvise_core::explain::{self, ExplainReport, ExplainRequest, Explanation};
use leptos::prelude::*;

use crate::browser::now;
use crate::components::example::{Example, TryExample};
use crate::components::inputs::request_error;
use crate::components::site_file::{self, RULES_PROSE_FILE, SiteFile};
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

/// The first sections of a rule's doc (what it checks, why it matters, an example), as Markdown; or, while
/// the file loads or when it cannot give them, the sentence the page shows instead (`Err(true)`: a
/// problem, `Err(false)`: still loading).
pub fn prose_sections(file: &SiteFile, id: &str) -> Result<String, (bool, String)> {
    let rest = "Its fix, thresholds and source are below.";
    match file {
        SiteFile::Loading => Err((
            false,
            format!("Loading what {id} checks, why it matters and its example…"),
        )),
        SiteFile::Failed(why) => Err((
            true,
            format!(
                "What {id} checks, why it matters and its example could not be loaded ({RULES_PROSE_FILE}: {why}). {rest}"
            ),
        )),
        SiteFile::Loaded(value) => explain::prose_of(value, id)
            .map(|prose| explain::prose_markdown(&prose))
            .ok_or_else(|| {
                (
                    true,
                    format!("{RULES_PROSE_FILE} has no text for {id}: the site's copy is older than its rules. {rest}"),
                )
            }),
    }
}

/// Reads the site's `rules-prose.json` into `file` (a build whose rule book holds the prose needs none).
fn load_prose(file: RwSignal<SiteFile>) {
    if !explain::RULE_PROSE {
        site_file::load(RULES_PROSE_FILE, file);
    }
}

#[component]
pub fn RulesPage() -> impl IntoView {
    let url = use_url();
    let prose = RwSignal::new(SiteFile::Loading);
    load_prose(prose);
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
                Some(Ok(e)) => view! { <ExplanationView e=e prose=prose /> }.into_any(),
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
fn ExplanationView(e: Explanation, prose: RwSignal<SiteFile>) -> impl IntoView {
    // A finding rule's doc in the page's wasm starts at its fix: the prose comes from the site's file.
    let id = e.rule.clone();
    let sections = (e.kind == "rule" && !explain::RULE_PROSE).then_some(move || {
        match prose.with(|file| prose_sections(file, &id)) {
            Ok(doc) => view! { <DocText doc=doc /> }.into_any(),
            Err((true, problem)) => {
                view! { <p class="error" role="alert">{problem}</p> }.into_any()
            }
            Err((false, loading)) => {
                view! { <p class="hint" role="status">{loading}</p> }.into_any()
            }
        }
    });
    view! {
        <article id="answer" class="answer explanation">
            <h2>
                <code>{e.rule.clone()}</code>
                {format!(" — {}", e.title)}
            </h2>
            <p class="kind">{format!("{} · source: {} · as of {}", e.kind, e.source, e.as_of)}</p>
            {sections}
            <DocText doc=e.doc.clone() />
        </article>
    }
}
