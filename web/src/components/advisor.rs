//! One page skeleton for the advisors that take text boxes and typed values: a page is data (an
//! [`AdvisorSpec`]: its title, its boxes, its typed controls, its example) and one function from the
//! [`Inputs`] to the answer's view. The boxes, the controls, the "Try an example" button, the labels that
//! errors name and the hint/error of an unanswered form are this one non-generic component, so each page
//! adds only its request and its report's view to the wasm.

use std::borrow::Cow;

use kgadvise_core::request::{RequestError, text_of};
use leptos::prelude::*;

use super::example::{Example, ExampleSlot, TryExample};
use super::inputs::{label_of, parse_count, request_error};
use super::paste::{LoadedFile, PasteArea, given_text};
use super::site_file::{self, FIELD_DOCS_FILE, SiteFile};
use super::{Cell, DataTable, ErrorBox, FindingList, RulesUsed, UrlInput, UrlSelect, no_submit};
use crate::use_url;

/// A text box (paste, pick or drop a file) for one text field of the request.
#[derive(Debug)]
pub struct TextBox {
    /// The request field (`baseline`); not in the URL: pasted and dropped files never are.
    pub field: &'static str,
    /// The textarea's id; its file input is `<id>-file`.
    pub id: &'static str,
    pub label: &'static str,
    pub placeholder: &'static str,
    /// What only the page adds to the field's doc comment (the box's hint), or "".
    pub note: &'static str,
    /// The file input's `accept`.
    pub accept: &'static str,
}

/// How a typed value is entered.
#[derive(Debug)]
pub enum Control {
    /// A text input (`numeric`: the numeric keyboard on phones). Its hint is its request field's doc
    /// comment, from the site's field-docs.json ([`field_hint`]).
    Text {
        numeric: bool,
        placeholder: &'static str,
    },
    /// A choice; `any` is the first, empty one (the request's default).
    Select {
        options: &'static [(&'static str, &'static str)],
        any: &'static str,
    },
    /// A choice among what the rule book or core lists (tasks, domains, platforms, metrics): (value,
    /// label) pairs; `any` as for `Select`, `None` where the first choice is the request's default.
    Listed {
        options: fn() -> Vec<(String, String)>,
        any: Option<&'static str>,
    },
}

impl Control {
    /// A numeric text input (the pages of typed figures: hours, counts, seconds).
    pub const fn number(placeholder: &'static str) -> Control {
        Control::Text {
            numeric: true,
            placeholder,
        }
    }
}

/// A typed value of the request: its URL key and its control's id are the request field (`foldHours`).
#[derive(Debug)]
pub struct Typed {
    pub field: &'static str,
    pub label: &'static str,
    pub control: Control,
}

/// What a form that gives no answer yet shows.
#[derive(Debug, Clone, PartialEq)]
pub enum Shown {
    /// Input still missing: what to give.
    Need(&'static str),
    /// Bad input, in the page's words.
    Error(String),
}

/// One advisor page, as data.
#[derive(Debug)]
pub struct AdvisorSpec {
    /// The advisor's command (`kgadvise collect`): its boxes' files are decoded as core's
    /// `request::text_of` decodes that command's file inputs, as the CLI and the packages do.
    pub command: &'static str,
    pub title: &'static str,
    /// The paragraph under the title (`code` in back-ticks).
    pub lead: &'static str,
    pub boxes: &'static [TextBox],
    pub typed: &'static [Typed],
    pub example: &'static Example,
    /// What to give while the form has no answer ([`Inputs::need`]).
    pub need: &'static str,
    /// The page's inputs to the view of its report (core's request, as the CLI builds it).
    pub answer: fn(&Inputs) -> Result<AnyView, Shown>,
}

/// A file loaded into a box: its name and its size on disk.
struct FileOfBox {
    name: String,
    bytes: usize,
}

/// The current inputs of an [`AdvisorSpec`] page: the boxes' texts and the typed values of the URL.
pub struct Inputs {
    spec: &'static AdvisorSpec,
    /// (field, text, the file it came from).
    texts: Vec<(&'static str, String, Option<FileOfBox>)>,
    /// (field, the trimmed value; `None` when absent or blank).
    typed: Vec<(&'static str, Option<String>)>,
}

impl Inputs {
    /// The inputs of a page given as values (the page reads its boxes and the URL; host tests call this).
    pub fn new(
        spec: &'static AdvisorSpec,
        texts: &[(&'static str, &str)],
        typed: &[(&'static str, &str)],
    ) -> Inputs {
        let find = |field: &str, given: &[(&'static str, &str)]| {
            given
                .iter()
                .find(|(f, _)| *f == field)
                .map(|(_, v)| v.to_string())
        };
        Inputs {
            spec,
            texts: spec
                .boxes
                .iter()
                .map(|b| (b.field, find(b.field, texts).unwrap_or_default(), None))
                .collect(),
            typed: spec
                .typed
                .iter()
                .map(|t| {
                    let v = find(t.field, typed)
                        .map(|v| v.trim().to_string())
                        .filter(|v| !v.is_empty());
                    (t.field, v)
                })
                .collect(),
        }
    }

    /// A box's text ("" when empty).
    pub fn text(&self, field: &str) -> &str {
        self.texts
            .iter()
            .find(|(f, ..)| *f == field)
            .map_or("", |(_, t, _)| t.as_str())
    }

    /// A box's text, `None` when blank (an optional input).
    pub fn optional_text(&self, field: &str) -> Option<String> {
        let t = self.text(field);
        (!t.trim().is_empty()).then(|| t.to_string())
    }

    /// The file a box's text was read from (`None` for a paste).
    fn file(&self, field: &str) -> Option<&FileOfBox> {
        self.texts
            .iter()
            .find(|(f, ..)| *f == field)
            .and_then(|(.., file)| file.as_ref())
    }

    /// The name of the file a box's text was read from (`None` for a paste).
    pub fn file_name(&self, field: &str) -> Option<&str> {
        self.file(field).map(|f| f.name.as_str())
    }

    /// A box's size in bytes as a file on disk: the loaded file's, else the paste's as UTF-8.
    pub fn size(&self, field: &str) -> usize {
        self.file(field).map_or(self.text(field).len(), |f| f.bytes)
    }

    /// Whether a box holds a loaded file or a paste (an empty file counts: it is read and refused).
    pub fn given(&self, field: &str) -> bool {
        self.file(field).is_some() || !self.text(field).is_empty()
    }

    /// The [`Shown::Need`] of the page when any of `fields` is a blank box.
    pub fn require(&self, fields: &[&str]) -> Result<(), Shown> {
        if fields.iter().any(|f| self.text(f).trim().is_empty()) {
            return Err(self.need());
        }
        Ok(())
    }

    /// The page's prompt for its missing input.
    pub fn need(&self) -> Shown {
        Shown::Need(self.spec.need)
    }

    /// Whether nothing at all was typed.
    pub fn nothing_typed(&self) -> bool {
        self.typed.iter().all(|(_, v)| v.is_none())
    }

    /// A typed value (trimmed; `None` when absent or blank).
    pub fn value(&self, field: &str) -> Option<&str> {
        self.typed
            .iter()
            .find(|(f, _)| *f == field)
            .and_then(|(_, v)| v.as_deref())
    }

    /// A typed number (`3.5`, `1e3`), read as the CLI reads a number flag.
    pub fn number(&self, field: &str) -> Result<Option<f64>, Shown> {
        let Some(text) = self.value(field) else {
            return Ok(None);
        };
        kgadvise_core::text::decimal::parse_f64(text)
            .map(Some)
            .ok_or_else(|| {
                Shown::Error(format!(
                    "{}: expected a number such as 1.5, got `{text}`",
                    self.label(field)
                ))
            })
    }

    /// A typed whole number (`250_000`, `250,000`).
    pub fn count(&self, field: &str) -> Result<Option<u64>, Shown> {
        parse_count(&self.label(field), self.value(field).unwrap_or("")).map_err(Shown::Error)
    }

    /// A typed whole number for a request field of type u32.
    pub fn count_u32(&self, field: &str) -> Result<Option<u32>, Shown> {
        self.count(field)?
            .map(|n| {
                u32::try_from(n)
                    .map_err(|_| Shown::Error(format!("{}: {n} is too large", self.label(field))))
            })
            .transpose()
    }

    /// What an error calls a field: a loaded file by its name (as the CLI names the file it read), else
    /// the label of its control without its "optional" mark (the value given is not optional any more);
    /// a field without a control goes by its key, the request as a whole unnamed.
    pub fn label<'a>(&'a self, field: &'a str) -> Cow<'a, str> {
        if let Some(name) = self.file_name(field) {
            return Cow::Borrowed(name);
        }
        let boxes = self.spec.boxes.iter().map(|b| (b.field, b.label));
        let typed = self.spec.typed.iter().map(|t| (t.field, t.label));
        let labels: Vec<(&str, &str)> = boxes.chain(typed).collect();
        without_optional(label_of(field, &labels))
    }

    /// A core request error in the page's words (the field said as [`Inputs::label`]).
    pub fn error(&self, e: &RequestError) -> Shown {
        let label = self.label(&e.field);
        Shown::Error(request_error(e, &[(e.field.as_str(), &label)]))
    }
}

/// A label as a name: `Refits (optional)` is Refits, `Code file (optional: ...)` is Code file,
/// `Push timeout -t (s, optional)` is Push timeout -t (s).
fn without_optional(label: &str) -> Cow<'_, str> {
    if let Some((name, _)) = label.split_once(" (optional") {
        return Cow::Borrowed(name);
    }
    match label.strip_suffix(", optional)") {
        Some(name) => Cow::Owned(format!("{name})")),
        None => Cow::Borrowed(label),
    }
}

/// The view of a form without an answer: the prompt, or the error announced to screen readers.
pub fn shown_view(shown: Shown) -> AnyView {
    match shown {
        Shown::Need(what) => view! { <p class="hint" id="answer">{what}</p> }.into_any(),
        Shown::Error(e) => view! { <ErrorBox message=e /> }.into_any(),
    }
}

/// The answer of every advisor page: its own parts (a headline, tables), then the findings with their rule
/// links and the rules used.
pub fn report_view(
    parts: Vec<AnyView>,
    findings: Vec<kgadvise_core::Finding>,
    rules: Vec<String>,
) -> AnyView {
    view! {
        <div id="answer" class="answer">
            {parts}
            <FindingList findings=findings />
            <RulesUsed rules=rules />
        </div>
    }
    .into_any()
}

/// A headline: `<p class="verdict <class>">` with a key word (`prune`) and the sentence core wrote.
pub fn verdict(class: String, key: &str, sentence: String) -> AnyView {
    keyed_verdict(class, "verdict-key", key, sentence)
}

/// A [`verdict`] whose key word has its own class (`choice-key`: what the page's links and tests select).
pub fn keyed_verdict(
    class: String,
    key_class: &'static str,
    key: &str,
    sentence: String,
) -> AnyView {
    view! {
        <p class=class>
            <span class=key_class>{key.to_string()}</span>
            " — "
            {sentence}
        </p>
    }
    .into_any()
}

/// A paragraph of a report: `<p class=class>` with a sentence core wrote (one view type for every page's
/// paragraphs: each `view!` is its own code in the wasm).
pub fn paragraph(class: &'static str, text: String) -> AnyView {
    view! { <p class=class>{text}</p> }.into_any()
}

/// A part of a report under its `<h3>` title.
pub fn titled(title: &'static str, body: AnyView) -> AnyView {
    view! {
        <h3>{title}</h3>
        {body}
    }
    .into_any()
}

/// A two-column table of a report's values: (what, value) rows.
pub fn summary(class: &'static str, rows: Vec<(&'static str, String)>) -> AnyView {
    let rows = rows
        .into_iter()
        .map(|(head, value)| vec![Cell::head(head), Cell::text(value)])
        .collect();
    view! { <DataTable class=class head=&[] rows=rows /> }.into_any()
}

/// The page of an [`AdvisorSpec`].
#[component]
pub fn AdvisorPage(spec: &'static AdvisorSpec) -> impl IntoView {
    let url = use_url();
    // Each box's paste and the file loaded into it.
    let slots: Vec<(RwSignal<String>, RwSignal<Option<LoadedFile>>)> = spec
        .boxes
        .iter()
        .map(|_| (RwSignal::new(String::new()), RwSignal::new(None)))
        .collect();
    // The controls' hints: their request fields' doc comments, from the site's field-docs.json.
    let docs = field_docs();
    let boxes = spec
        .boxes
        .iter()
        .zip(&slots)
        .map(|(b, (text, file))| {
            view! {
                <PasteArea
                    id=b.id
                    label=b.label
                    placeholder=b.placeholder
                    hint=b.note
                    doc=field_doc(docs, spec.command, b.field)
                    value=*text
                    file=*file
                    accept=b.accept
                />
            }
        })
        .collect_view();
    let controls = (!spec.typed.is_empty()).then(|| {
        let items = spec
            .typed
            .iter()
            .map(|t| typed_control(spec.command, t, docs))
            .collect_view();
        view! { <form class="controls" on:submit=no_submit>{items}</form> }
    });
    let example_slots = spec
        .boxes
        .iter()
        .zip(&slots)
        .map(|(b, (text, file))| ExampleSlot {
            field: b.field,
            text: *text,
            file: Some(*file),
        })
        .collect();
    let answer = move || {
        let mut texts = Vec::with_capacity(slots.len());
        for (b, (text, file)) in spec.boxes.iter().zip(&slots) {
            let read = file.with(|f| {
                text.with(|p| {
                    // given_text puts the file's name in front of the error
                    let decode = |bytes: &[u8]| {
                        text_of(spec.command, b.field, bytes).map_err(|e| e.render(""))
                    };
                    given_text(f, p, decode).map(|t| {
                        let file = f.as_ref().map(|f| FileOfBox {
                            name: f.name.clone(),
                            bytes: f.bytes.len(),
                        });
                        (b.field, t.into_owned(), file)
                    })
                })
            });
            match read {
                Ok(t) => texts.push(t),
                Err(e) => return shown_view(Shown::Error(e)),
            }
        }
        let typed = spec
            .typed
            .iter()
            .map(|t| (t.field, url.value(t.field)))
            .collect();
        match (spec.answer)(&Inputs { spec, texts, typed }) {
            Ok(view) => view,
            Err(shown) => shown_view(shown),
        }
    };
    view! {
        <section aria-labelledby="page-title">
            <h1 id="page-title">{spec.title}</h1>
            <p class="lead">{super::doc_text::inline(spec.lead)}</p>
            <TryExample example=spec.example slots=example_slots />
            {boxes}
            {controls}
            {answer}
        </section>
    }
}

/// The site's field-docs.json, loading: the hints of a page's controls and boxes ([`field_doc`]).
pub fn field_docs() -> RwSignal<SiteFile> {
    let docs = RwSignal::new(SiteFile::Loading);
    site_file::load(FIELD_DOCS_FILE, docs);
    docs
}

/// The hint of the control for `command`'s request field `field`, as [`field_hint`] reads it once the
/// file has loaded.
pub fn field_doc(
    docs: RwSignal<SiteFile>,
    command: &'static str,
    field: &'static str,
) -> Signal<String> {
    Signal::derive(move || docs.with(|file| field_hint(file, command, field)))
}

/// The hint of the control for `command`'s request field `field`: the field's doc comment from the site's
/// field-docs.json, its whitespace collapsed and its back-ticks dropped (plain text); empty while the file
/// loads or if it cannot be read (a hint helps, the control works without it).
pub fn field_hint(file: &SiteFile, command: &str, field: &str) -> String {
    match file {
        SiteFile::Loaded(docs) => docs
            .get(command)
            .and_then(|fields| fields.get(field))
            .and_then(serde_json::Value::as_str)
            .map(|doc| {
                doc.replace('`', "")
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default(),
        SiteFile::Loading | SiteFile::Failed(_) => String::new(),
    }
}

fn typed_control(command: &'static str, t: &'static Typed, docs: RwSignal<SiteFile>) -> AnyView {
    match &t.control {
        Control::Text {
            numeric,
            placeholder,
        } => view! {
            <UrlInput
                id=t.field
                label=t.label
                key=t.field
                numeric=*numeric
                placeholder=*placeholder
                doc=field_doc(docs, command, t.field)
            />
        }
        .into_any(),
        Control::Select { options, any } => {
            let options = options
                .iter()
                .map(|(v, l)| (v.to_string(), l.to_string()))
                .collect();
            view! { <UrlSelect id=t.field label=t.label key=t.field options=options any=Some(*any) /> }
                .into_any()
        }
        Control::Listed { options, any } => {
            view! { <UrlSelect id=t.field label=t.label key=t.field options=options() any=*any /> }
                .into_any()
        }
    }
}
