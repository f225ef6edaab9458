//! Reusable widgets: links that keep the app in one page, inputs bound to the URL, findings, errors.

pub mod doc_text;
pub mod findings;
pub mod inputs;
pub mod links;
pub mod paste;

pub use doc_text::DocText;
pub use findings::{FindingList, RulesUsed};
pub use inputs::{UrlInput, UrlSelect};
pub use links::{AppLink, RuleLink};

use leptos::prelude::*;

/// A visible error (bad input, unknown identifier): the message as text, announced to screen readers.
#[component]
pub fn ErrorBox(#[prop(into)] message: String) -> impl IntoView {
    view! {
        <p class="error" role="alert">
            {message}
        </p>
    }
}
