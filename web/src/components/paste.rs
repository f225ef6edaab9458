//! A large paste (a quota table, a kernel-metadata.json) or a local file, chosen with a labelled file
//! input or dropped on the box: kept in the page, never in the URL, never uploaded, and always shown back
//! as text.

use std::borrow::Cow;
use std::sync::Arc;

use leptos::callback::{Callable, UnsyncCallback};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::browser::{read_bytes, size_text, text_as_file};

/// The pages that read a file whole (all but Diagnose, which reads in chunks) refuse bigger files.
pub const WHOLE_FILE_MAX_BYTES: f64 = 64.0 * 1024.0 * 1024.0;

/// A paste of at least this many UTF-16 units goes to `on_file` as a file, out of the box: laying out
/// megabytes of text in a textarea alone freezes the tab for seconds, and the file is read in chunks.
pub const BIG_PASTE_UNITS: u32 = 1 << 20;

/// The name a big paste gets when it is handed on as a file.
pub const BIG_PASTE_NAME: &str = "the pasted log";

/// A local file read whole: its name and its bytes, decoded by the page as the CLI decodes that input.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedFile {
    pub name: String,
    pub bytes: Arc<[u8]>,
}

impl LoadedFile {
    /// "name (12.3 KiB)".
    pub fn describe(&self) -> String {
        format!("{} ({})", self.name, size_text(self.bytes.len() as f64))
    }
}

/// The text box, and when the page takes files, a file input and a drop zone on the box. A file goes either
/// to `file` (read whole here) or to `on_file` (the page reads it, e.g. in chunks).
#[component]
pub fn PasteArea(
    id: &'static str,
    label: &'static str,
    #[prop(optional)] placeholder: &'static str,
    #[prop(optional)] hint: &'static str,
    value: RwSignal<String>,
    /// Take a local file and read it whole into this slot; typing in the box empties it.
    #[prop(optional)]
    file: Option<RwSignal<Option<LoadedFile>>>,
    /// Take a local file and hand it to the page unread.
    #[prop(optional)]
    on_file: Option<UnsyncCallback<web_sys::File>>,
    /// The file input's `accept` (e.g. ".csv,.txt").
    #[prop(optional)]
    accept: &'static str,
) -> impl IntoView {
    let hint_id = format!("{id}-hint");
    let has_hint = !hint.is_empty();
    let takes_files = file.is_some() || on_file.is_some();
    let file_id = format!("{id}-file");
    let note = RwSignal::new(None::<String>);
    let dragging = RwSignal::new(false);
    // Each file taken (or keystroke) has a number: a slow read that is no longer the latest one is dropped.
    let latest = StoredValue::new(0u32);
    let take = move |f: web_sys::File| {
        latest.update_value(|n| *n = n.wrapping_add(1));
        dragging.set(false);
        note.set(None);
        if let Some(page) = on_file {
            value.set(String::new());
            page.run(f);
        } else if let Some(slot) = file {
            value.set(String::new());
            read_whole(f, slot, note, latest);
        }
    };
    let on_change = move |ev: leptos::ev::Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        if let Some(f) = input.files().and_then(|list| list.get(0)) {
            take(f);
        }
        // Choosing the same file again must fire `change` again.
        input.set_value("");
    };
    let on_drop = move |ev: leptos::ev::DragEvent| {
        if !takes_files {
            return;
        }
        ev.prevent_default();
        dragging.set(false);
        if let Some(f) = ev
            .data_transfer()
            .and_then(|d| d.files())
            .and_then(|list| list.get(0))
        {
            take(f);
        }
    };
    let on_dragover = move |ev: leptos::ev::DragEvent| {
        if takes_files {
            ev.prevent_default();
            dragging.set(true);
        }
    };
    let loaded = move || {
        let f = file.and_then(|slot| slot.get())?;
        Some(view! {
            <p class="file-note" id=format!("{id}-file-note")>
                "File: "
                <strong class="file-name">{f.describe()}</strong>
                " — read in this page, not uploaded. "
                <button type="button" on:click=move |_| { if let Some(s) = file { s.set(None) } }>
                    "Remove file"
                </button>
            </p>
        })
    };
    view! {
        <div class="field paste">
            <label for=id>{label}</label>
            <div
                class="drop-zone"
                class:dragging=move || dragging.get()
                on:dragover=on_dragover
                on:dragleave=move |_| dragging.set(false)
                on:drop=on_drop
            >
                <textarea
                    id=id
                    rows="6"
                    spellcheck="false"
                    autocomplete="off"
                    placeholder=placeholder
                    aria-describedby=has_hint.then(|| hint_id.clone())
                    prop:value=move || value.get()
                    on:input=move |ev| {
                        if let Some(page) = on_file
                            && let Some(f) = big_paste_as_file(&ev)
                        {
                            value.set(String::new());
                            page.run(f);
                            return;
                        }
                        value.set(event_target_value(&ev));
                        if let Some(slot) = file {
                            latest.update_value(|n| *n = n.wrapping_add(1));
                            slot.set(None);
                        }
                    }
                ></textarea>
            </div>
            {takes_files
                .then(|| {
                    view! {
                        <div class="file-pick">
                            <label for=file_id.clone()>
                                "Or open a file"
                                <span class="sr-only">{format!(" for {label}")}</span>
                                " (or drop it on the box): "
                            </label>
                            <input type="file" id=file_id accept=accept on:change=on_change />
                        </div>
                    }
                })}
            {loaded}
            {move || note.get().map(|n| view! { <p class="error" role="alert">{n}</p> })}
            {has_hint.then(|| view! { <small id=hint_id>{hint}</small> })}
        </div>
    }
}

/// A big paste as a file, and the box emptied; the text stays in JavaScript (no copy into wasm).
fn big_paste_as_file(ev: &leptos::ev::Event) -> Option<web_sys::File> {
    let area = ev
        .target()?
        .dyn_into::<web_sys::HtmlTextAreaElement>()
        .ok()?;
    if area.text_length() < BIG_PASTE_UNITS {
        return None;
    }
    let f = text_as_file(&area, BIG_PASTE_NAME)?;
    area.set_value("");
    Some(f)
}

/// Reads a file whole into `slot`; a file too big or unreadable is said in `note`.
fn read_whole(
    f: web_sys::File,
    slot: RwSignal<Option<LoadedFile>>,
    note: RwSignal<Option<String>>,
    latest: StoredValue<u32>,
) {
    let me = latest.get_value();
    let name = f.name();
    let size = f.size();
    slot.set(None);
    if size > WHOLE_FILE_MAX_BYTES {
        note.set(Some(format!(
            "{name} is {}: too big for this page (at most {}).",
            size_text(size),
            size_text(WHOLE_FILE_MAX_BYTES)
        )));
        return;
    }
    leptos::task::spawn_local(async move {
        let read = read_bytes(&f, 0.0, size).await;
        if latest.try_get_value() != Some(me) {
            return;
        }
        match read {
            Ok(bytes) => slot.set(Some(LoadedFile {
                name,
                bytes: bytes.into(),
            })),
            Err(e) => note.set(Some(format!("{name}: could not be read: {e}"))),
        }
    });
}

/// The text of a page input: the loaded file decoded by `decode` (as the CLI decodes it), or the paste.
pub fn given_text<'a>(
    file: &Option<LoadedFile>,
    paste: &'a str,
    decode: impl Fn(&[u8]) -> Result<String, String>,
) -> Result<Cow<'a, str>, String> {
    match file {
        Some(f) => decode(&f.bytes)
            .map(Cow::Owned)
            .map_err(|e| format!("{}: {e}", f.name)),
        None => Ok(Cow::Borrowed(paste)),
    }
}
