//! A large paste (a quota table, a kernel-metadata.json) or a local file, chosen with a labelled file
//! input or dropped on the box: kept in the page, never in the URL, never uploaded, and always shown back
//! as text. A page that reads its input in chunks (Diagnose) takes a paste of megabytes straight from the
//! paste event: the browser never lays it out in the box, which shows its first lines instead.

use std::borrow::Cow;
use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::browser::{input_text, pasted_text, read_bytes, size_text, text_part};

/// The pages that read a file whole (all but Diagnose, which reads in chunks) refuse bigger files.
pub const WHOLE_FILE_MAX_BYTES: f64 = 64.0 * 1024.0 * 1024.0;

/// A paste of at least this many UTF-16 units goes to `stream`, never into the box: laying out megabytes
/// of text in a textarea alone freezes the tab for seconds (13 s for 11.5 MB in headless Chromium).
pub const BIG_PASTE_UNITS: u32 = 1 << 20;

/// The name a big paste goes by in the page's notes.
pub const BIG_PASTE_NAME: &str = "the pasted log";

/// How much of a big paste the box shows: its first lines, and at most this many UTF-16 units of them.
pub const PREVIEW_LINES: usize = 20;
const PREVIEW_UNITS: u32 = 4096;

/// An input a page reads in chunks (Diagnose): a local file, or a paste too big for the box.
#[derive(Debug, Clone, PartialEq)]
pub enum Streamed {
    File(web_sys::File),
    /// A big paste as the clipboard gave it, a JavaScript string copied into wasm part by part as it is
    /// read; `head` is its first lines, which the box shows.
    Pasted {
        text: js_sys::JsString,
        head: Arc<str>,
    },
}

impl Streamed {
    /// A paste, with the first lines the box shows of it.
    pub fn pasted(text: js_sys::JsString) -> Streamed {
        let head = first_lines(&text_part(&text, 0, PREVIEW_UNITS).0).into();
        Streamed::Pasted { text, head }
    }

    /// The file's name, or "the pasted log".
    pub fn name(&self) -> String {
        match self {
            Streamed::File(f) => f.name(),
            Streamed::Pasted { .. } => BIG_PASTE_NAME.to_string(),
        }
    }

    /// Its length: bytes of a file, UTF-16 units of a paste (what the reading advances by).
    pub fn length(&self) -> f64 {
        match self {
            Streamed::File(f) => f.size(),
            Streamed::Pasted { text, .. } => f64::from(text.length()),
        }
    }
}

/// The first `PREVIEW_LINES` lines of a text.
pub fn first_lines(text: &str) -> &str {
    let end = text
        .match_indices('\n')
        .nth(PREVIEW_LINES - 1)
        .map_or(text.len(), |(i, _)| i);
    &text[..end]
}

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
/// to `file` (read whole here) or to `stream` (the page reads it in chunks), and so does a big paste.
#[component]
pub fn PasteArea(
    id: &'static str,
    label: &'static str,
    #[prop(optional)] placeholder: &'static str,
    /// What the page adds to `doc`, or the whole hint where there is no `doc`.
    #[prop(optional)]
    hint: &'static str,
    /// A hint that comes later (the request field's doc comment from the site's field-docs.json).
    #[prop(optional)]
    doc: Option<Signal<String>>,
    value: RwSignal<String>,
    /// Take a local file and read it whole into this slot; typing in the box empties it.
    #[prop(optional)]
    file: Option<RwSignal<Option<LoadedFile>>>,
    /// Hand a local file, or a paste of megabytes, to the page unread; typing in the box empties it.
    #[prop(optional)]
    stream: Option<RwSignal<Option<Streamed>, LocalStorage>>,
    /// The file input's `accept` (e.g. ".csv,.txt").
    #[prop(optional)]
    accept: &'static str,
) -> impl IntoView {
    let hint_id = format!("{id}-hint");
    let has_hint = !hint.is_empty() || doc.is_some();
    let hint_text = move || match doc.map(|doc| doc.get()).filter(|d| !d.is_empty()) {
        Some(doc) if hint.is_empty() => doc,
        Some(doc) => format!("{doc} {hint}"),
        None => hint.to_string(),
    };
    let file_id = format!("{id}-file");
    let state = BoxState {
        value,
        file,
        stream,
        note: RwSignal::new(None),
        dragging: RwSignal::new(false),
        latest: StoredValue::new(0),
    };
    let takes_files = state.takes_files();
    let on_change = move |ev: leptos::ev::Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        if let Some(f) = input.files().and_then(|list| list.get(0)) {
            state.take(f);
        }
        // Choosing the same file again must fire `change` again.
        input.set_value("");
    };
    let on_drop = move |ev: leptos::ev::DragEvent| {
        if takes_files {
            ev.prevent_default();
            state.dragging.set(false);
            let dropped = ev.data_transfer().and_then(|d| d.files());
            if let Some(f) = dropped.and_then(|list| list.get(0)) {
                state.take(f);
            }
        }
    };
    let on_dragover = move |ev: leptos::ev::DragEvent| {
        if takes_files {
            ev.prevent_default();
            state.dragging.set(true);
        }
    };
    let shown = move || box_text(value, stream);
    let loaded = move || file.and_then(|slot| loaded_note(id, slot));
    let note = state.note;
    let dragging = state.dragging;
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
                    prop:value=shown
                    on:paste=move |ev| state.paste(&ev)
                    on:input=move |ev| state.input(&ev)
                ></textarea>
            </div>
            {takes_files.then(|| view! { <FilePick id=file_id label=label accept=accept on_change=on_change /> })}
            {loaded}
            {move || note.get().map(|n| view! { <p class="error" role="alert">{n}</p> })}
            {has_hint.then(|| view! { <small id=hint_id>{hint_text}</small> })}
        </div>
    }
}

/// Where a box's input goes, shared by its event handlers.
#[derive(Clone, Copy)]
struct BoxState {
    value: RwSignal<String>,
    file: Option<RwSignal<Option<LoadedFile>>>,
    stream: Option<RwSignal<Option<Streamed>, LocalStorage>>,
    /// A file that could not be read.
    note: RwSignal<Option<String>>,
    dragging: RwSignal<bool>,
    /// Each file taken (or keystroke) has a number: a slow read that is no longer the latest is dropped.
    latest: StoredValue<u32>,
}

impl BoxState {
    fn takes_files(self) -> bool {
        self.file.is_some() || self.stream.is_some()
    }

    fn next(self) {
        self.latest.update_value(|n| *n = n.wrapping_add(1));
    }

    /// A picked or dropped file: to the page unread (`stream`), or read whole (`file`).
    fn take(self, f: web_sys::File) {
        self.next();
        self.dragging.set(false);
        self.note.set(None);
        if let Some(slot) = self.stream {
            self.value.set(String::new());
            slot.set(Some(Streamed::File(f)));
        } else if let Some(slot) = self.file {
            self.value.set(String::new());
            read_whole(f, slot, self.note, self.latest);
        }
    }

    /// Ctrl+V (or the menu's Paste) of megabytes: taken from the clipboard before the browser inserts it,
    /// for `stream`, out of the box (which then shows its first lines).
    fn paste(self, ev: &leptos::ev::ClipboardEvent) {
        let Some(slot) = self.stream else {
            return;
        };
        if let Some(text) = pasted_text(ev).filter(|t| t.length() >= BIG_PASTE_UNITS) {
            ev.prevent_default();
            self.stream_text(slot, text);
        }
    }

    /// The one way a big text enters the page, whether a paste or an `input` event brought it: streamed
    /// (`Streamed::Pasted`, read in chunks), out of the box, which shows its first lines.
    fn stream_text(self, slot: RwSignal<Option<Streamed>, LocalStorage>, text: js_sys::JsString) {
        self.next();
        self.note.set(None);
        self.value.set(String::new());
        slot.set(Some(Streamed::pasted(text)));
    }

    /// Text that reached the box by an `input` event: typing, a dragged text, a script, autofill. A big
    /// one goes the paste's way (the browser has laid it out already, but it is never copied into wasm
    /// whole nor diagnosed in one go); the rest is the box's text.
    fn input(self, ev: &leptos::ev::Event) {
        if let Some(slot) = self.stream
            && let Some(text) = input_text(ev).filter(|t| t.length() >= BIG_PASTE_UNITS)
        {
            self.stream_text(slot, text);
            return;
        }
        self.edit(event_target_value(ev));
    }

    /// Editing the box drops a streamed log or a loaded file: the box's text is the input again.
    fn edit(self, text: String) {
        if let Some(slot) = self.stream.filter(|s| s.with_untracked(Option::is_some)) {
            slot.set(None);
        }
        self.value.set(text);
        if let Some(slot) = self.file {
            self.next();
            slot.set(None);
        }
    }
}

/// The labelled file input under a box (a dropped file goes the same way).
#[component]
fn FilePick(
    id: String,
    label: &'static str,
    accept: &'static str,
    on_change: impl FnMut(leptos::ev::Event) + 'static,
) -> impl IntoView {
    view! {
        <div class="file-pick">
            <label for=id.clone()>
                "Or open a file"
                <span class="sr-only">{format!(" for {label}")}</span>
                " (or drop it on the box): "
            </label>
            <input type="file" id=id accept=accept on:change=on_change />
        </div>
    }
}

/// What the box shows: a big paste's first lines, or the text typed or pasted.
fn box_text(
    value: RwSignal<String>,
    stream: Option<RwSignal<Option<Streamed>, LocalStorage>>,
) -> String {
    stream
        .and_then(|slot| {
            slot.with(|s| match s {
                Some(Streamed::Pasted { head, .. }) => Some(head.to_string()),
                _ => None,
            })
        })
        .unwrap_or_else(|| value.get())
}

/// The note of a file read whole into `slot`, with its Remove button; nothing while none is loaded.
fn loaded_note(id: &'static str, slot: RwSignal<Option<LoadedFile>>) -> Option<impl IntoView> {
    let f = slot.get()?;
    Some(view! {
        <p class="file-note" id=format!("{id}-file-note")>
            "File: "
            <strong class="file-name">{f.describe()}</strong>
            " — read in this page, not uploaded. "
            <button type="button" on:click=move |_| slot.set(None)>
                "Remove file"
            </button>
        </p>
    })
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
