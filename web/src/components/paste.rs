//! A large paste (a quota table, a kernel-metadata.json): kept in the page, never in the URL, and always
//! shown back as text.

use leptos::prelude::*;

#[component]
pub fn PasteArea(
    id: &'static str,
    label: &'static str,
    #[prop(optional)] placeholder: &'static str,
    #[prop(optional)] hint: &'static str,
    value: RwSignal<String>,
) -> impl IntoView {
    let hint_id = format!("{id}-hint");
    let has_hint = !hint.is_empty();
    view! {
        <div class="field paste">
            <label for=id>{label}</label>
            <textarea
                id=id
                rows="6"
                spellcheck="false"
                autocomplete="off"
                placeholder=placeholder
                aria-describedby=has_hint.then(|| hint_id.clone())
                prop:value=move || value.get()
                on:input=move |ev| value.set(event_target_value(&ev))
            ></textarea>
            {has_hint.then(|| view! { <small id=hint_id>{hint}</small> })}
        </div>
    }
}
