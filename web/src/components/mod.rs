//! Reusable widgets: links that keep the app in one page, inputs bound to the URL, findings, errors.

pub mod advisor;
pub mod doc_text;
pub mod example;
pub mod findings;
pub mod inputs;
pub mod links;
pub mod paste;
pub mod site_file;
pub mod table;

pub use doc_text::DocText;
pub use findings::{FindingList, RulesUsed};
pub use inputs::{UrlInput, UrlSelect};
pub use links::{AppLink, RuleLink};
pub use table::{Cell, DataTable, text_rows};

use leptos::prelude::*;

/// The `submit` handler of every page's input form (inputs are live; a form never submits). One function
/// for all pages: each closure would be its own event type, with its own erased-attribute glue in the wasm.
pub fn no_submit(ev: leptos::ev::SubmitEvent) {
    ev.prevent_default();
}

/// `<ul class=class>` of text items (one non-generic list for every page; no class when empty).
pub fn text_list(class: &'static str, items: Vec<String>) -> AnyView {
    let class = (!class.is_empty()).then_some(class);
    view! { <ul class=class>{items.into_iter().map(|i| view! { <li>{i}</li> }).collect_view()}</ul> }
        .into_any()
}

/// A visible error (bad input, unknown identifier): the message as text, announced to screen readers.
#[component]
pub fn ErrorBox(#[prop(into)] message: String) -> impl IntoView {
    view! {
        <p class="error" role="alert">
            {message}
        </p>
    }
}
