//! Links that stay inside the app (history entry, no reload) but remain real links (open in a new tab,
//! copy the address).

use leptos::prelude::*;

use crate::query::{Query, rule_href};
use crate::use_url;

/// `<a href="?page=...">`: a plain left click navigates in place; modified clicks keep the browser's behaviour.
#[component]
pub fn AppLink(
    #[prop(into)] href: String,
    /// Marks the link as the current page (`aria-current="page"`).
    #[prop(optional, into)]
    current: Option<Signal<bool>>,
    children: Children,
) -> impl IntoView {
    let url = use_url();
    let target = href.clone();
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let modified = ev.ctrl_key() || ev.meta_key() || ev.shift_key() || ev.alt_key();
        if ev.button() == 0 && !modified {
            ev.prevent_default();
            url.navigate(Query::parse(&target));
        }
    };
    let aria_current = move || current.and_then(|c| c.get().then_some("page"));
    view! {
        <a href=href on:click=on_click aria-current=aria_current>
            {children()}
        </a>
    }
}

/// A link to the documentation of a rule or data entry (`?page=rules&id=KH001`).
#[component]
pub fn RuleLink(#[prop(into)] id: String) -> impl IntoView {
    view! {
        <AppLink href=rule_href(&id)>
            <code class="rule-id">{id.clone()}</code>
        </AppLink>
    }
}
