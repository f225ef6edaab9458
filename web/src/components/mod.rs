//! Reusable widgets: links that keep the app in one page, inputs bound to the URL, findings, errors.

pub mod doc_text;
pub mod findings;
pub mod inputs;
pub mod links;
pub mod paste;
pub mod table;

pub use doc_text::DocText;
pub use findings::{FindingList, RulesUsed};
pub use inputs::{UrlInput, UrlSelect};
pub use links::{AppLink, RuleLink};
pub use table::{Cell, DataTable};

use leptos::prelude::*;

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
