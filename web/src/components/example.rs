//! "Try an example": one click fills a page's form with a realistic input taken from the test fixtures, so a
//! newcomer sees a real answer before pasting anything. Typed values go into the URL (as if typed); example
//! files are static files of the site (`examples/<fixture path>`, copied from `tests/fixtures/` at build
//! time by trunk's hook, `web/examples.txt` lists them), fetched from the same origin on click and pasted into
//! the page's boxes: the first visit costs nothing, and nothing leaves the site.

use leptos::prelude::*;

use crate::browser::fetch_bytes;
use crate::components::paste::LoadedFile;
use crate::query::Query;
use crate::use_url;

/// The site folder that holds the example files (the fixture paths below it are those under `tests/fixtures/`).
pub const EXAMPLES_DIR: &str = "examples/";

/// One page's example: what it shows, its typed values (URL keys, as the page reads them) and its files.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Example {
    /// What the answer will show, in a few words ("a screen whose learning curve trails the baseline").
    pub what: &'static str,
    /// URL keys and values: they replace the page's typed inputs.
    pub typed: &'static [(&'static str, &'static str)],
    /// (the request field of the page's box, the fixture path under `tests/fixtures/`).
    pub files: &'static [(&'static str, &'static str)],
}

/// A box of the page (its paste and its loaded file) that an example fills, by request field.
#[derive(Debug, Clone, Copy)]
pub struct ExampleSlot {
    pub field: &'static str,
    pub text: RwSignal<String>,
    /// The file loaded into the box, emptied by the example; `None` for a page that reads files itself
    /// (Diagnose: pasting into its box replaces its file).
    pub file: Option<RwSignal<Option<LoadedFile>>>,
}

/// The file name of a fixture path (what the page shows for it).
pub fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The "Try an example" button of a page: sets the example's typed values in the URL (the page key kept, the
/// other inputs dropped: one history entry, Back returns to the form as it was), fetches its files and pastes
/// each into its box; every box the example has no file for is emptied.
#[component]
pub fn TryExample(example: &'static Example, slots: Vec<ExampleSlot>) -> impl IntoView {
    let url = use_url();
    let status = RwSignal::new(None::<Result<String, String>>);
    let loading = RwSignal::new(false);
    let slots = StoredValue::new(slots);
    let on_click = move |_| {
        let page = url.query.with(|q| q.page());
        url.navigate(Query::for_page(&page, example.typed));
        if example.files.is_empty() {
            status.set(Some(Ok(format!("Example: {}.", example.what))));
            return;
        }
        loading.set(true);
        status.set(None);
        let slots = slots.get_value();
        leptos::task::spawn_local(async move {
            let result = fill(example, &slots).await;
            loading.set(false);
            status.set(Some(result.map(|names| {
                format!(
                    "Example: {} ({}, from the project's test files).",
                    example.what,
                    names.join(", ")
                )
            })));
        });
    };
    let describe = "try-example-what";
    view! {
        <div class="try-example">
            <button
                type="button"
                class="example-button"
                aria-describedby=describe
                disabled=move || loading.get()
                on:click=on_click
            >
                "Try an example"
            </button>
            " "
            <span id=describe class="hint">{example.what}</span>
            <p class="example-note" role="status">
                {move || match status.get() {
                    Some(Ok(note)) => note,
                    _ if loading.get() => "Loading the example…".to_string(),
                    _ => String::new(),
                }}
            </p>
            {move || {
                status
                    .get()
                    .and_then(Result::err)
                    .map(|e| view! { <p class="error" role="alert">{e}</p> })
            }}
        </div>
    }
}

/// Fetches the example's files (all of them before any box changes) and pastes each into its box; the
/// names of the files, in order.
async fn fill(example: &'static Example, slots: &[ExampleSlot]) -> Result<Vec<String>, String> {
    let mut texts = Vec::new();
    for (field, path) in example.files {
        let bytes = fetch_bytes(&format!("{EXAMPLES_DIR}{path}"))
            .await
            .map_err(|what| format!("The example file {path} could not be loaded: {what}."))?;
        texts.push((
            *field,
            kgadvise_core::text::decode_input(&bytes).into_owned(),
        ));
    }
    for slot in slots {
        if let Some(file) = slot.file {
            file.set(None);
        }
        let text = texts
            .iter()
            .find(|(field, _)| *field == slot.field)
            .map(|(_, t)| t.clone())
            .unwrap_or_default();
        slot.text.set(text);
    }
    Ok(example
        .files
        .iter()
        .map(|(_, p)| file_name(p).to_string())
        .collect())
}
