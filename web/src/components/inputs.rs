//! Form controls whose value is a key of the query string (URL is the state).

use leptos::prelude::*;

use crate::use_url;

/// A `<select>` bound to `key`. `any` adds a first, empty choice ("all platforms").
#[component]
pub fn UrlSelect(
    id: &'static str,
    label: &'static str,
    key: &'static str,
    /// (value, label) pairs.
    options: Vec<(String, String)>,
    #[prop(optional_no_strip)] any: Option<&'static str>,
) -> impl IntoView {
    let url = use_url();
    let on_change = move |ev| url.set(key, &event_target_value(&ev));
    view! {
        <div class="field">
            <label for=id>{label}</label>
            <select id=id name=key on:change=on_change prop:value=move || url.raw(key)>
                {any.map(|text| view! { <option value="">{text}</option> })}
                {options
                    .into_iter()
                    .map(|(value, text)| {
                        let v = value.clone();
                        view! {
                            <option value=value selected=move || url.raw(key) == v>
                                {text}
                            </option>
                        }
                    })
                    .collect_view()}
            </select>
        </div>
    }
}

/// A text `<input>` bound to `key` (`inputmode="numeric"` for counts).
#[component]
pub fn UrlInput(
    id: &'static str,
    label: &'static str,
    key: &'static str,
    #[prop(optional)] placeholder: &'static str,
    #[prop(optional)] numeric: bool,
    #[prop(optional)] hint: &'static str,
    /// A hint that comes later (a request field's doc comment from the site's field-docs.json).
    #[prop(optional)]
    doc: Option<Signal<String>>,
) -> impl IntoView {
    let url = use_url();
    let on_input = move |ev| url.set(key, &event_target_value(&ev));
    let hint_id = format!("{id}-hint");
    let has_hint = !hint.is_empty() || doc.is_some();
    view! {
        <div class="field">
            <label for=id>{label}</label>
            <input
                id=id
                name=key
                type="text"
                autocomplete="off"
                spellcheck="false"
                inputmode=numeric.then_some("numeric")
                placeholder=placeholder
                aria-describedby=has_hint.then(|| hint_id.clone())
                value=url.raw(key)
                prop:value=move || url.raw(key)
                on:input=on_input
            />
            {has_hint
                .then(|| {
                    view! {
                        <small id=hint_id>
                            {move || doc.map_or_else(|| hint.to_string(), |doc| doc.get())}
                        </small>
                    }
                })}
        </div>
    }
}

/// A whole number typed by a user: `250000`, `250_000`, `250,000` and `250 000` all read as 250000.
/// `Ok(None)` for an empty field; the error names the field and shows what was typed.
pub fn parse_count(field: &str, text: &str) -> Result<Option<u64>, String> {
    let cleaned: String = text
        .chars()
        .filter(|c| !matches!(c, '_' | ',' | ' ' | '\u{a0}'))
        .collect();
    if cleaned.is_empty() {
        return Ok(None);
    }
    cleaned.parse::<u64>().map(Some).map_err(|_| {
        format!(
            "{field}: expected a whole number such as 250000, got `{}`",
            text.trim()
        )
    })
}

/// The label of the page's control for a core request field (`labels`: request field, label); the field's
/// own name when no control has it.
pub fn label_of<'a>(field: &'a str, labels: &[(&'a str, &'a str)]) -> &'a str {
    labels
        .iter()
        .find(|(f, _)| *f == field)
        .map_or(field, |(_, label)| label)
}

/// A core request error in the page's words: the field said as the label of its control (`labels`:
/// request key -> label), the request as a whole unnamed; a field without a control goes by its key.
pub fn request_error(e: &kgadvise_core::request::RequestError, labels: &[(&str, &str)]) -> String {
    e.render(label_of(&e.field, labels))
}
