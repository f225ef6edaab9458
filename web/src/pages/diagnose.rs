//! Diagnose a run (`kgadvise diagnose`): paste or drop an nvidia-smi log of any format, and/or type the three
//! bench rates → verdicts fix-first with their evidence, a per-GPU table and a utilisation timeline per GPU with
//! the verdict thresholds drawn over the run's time. The form and the log become core's `DiagnoseRequest`, as
//! the CLI's flags do; a big log (a file, a paste of megabytes) is pushed into the request's `Diagnoser` in
//! chunks.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use kgadvise_core::diagnose::timeline::timeline_axis;
use kgadvise_core::diagnose::verdict::{DiagnoseReport, GpuReport};
use kgadvise_core::diagnose::{DiagnoseRequest, Diagnoser, diagnose};
use kgadvise_core::request::RequestError;
use kgadvise_core::rulebook::Thresholds;
use kgadvise_core::text::count::counted;
use kgadvise_core::text::decimal::parse_f64;
use kgadvise_core::text::number::{fixed, push_fixed, shortest};
use leptos::prelude::*;

use crate::browser::{self, size_text};
use crate::components::advisor::{field_doc, field_docs};
use crate::components::example::{Example, ExampleSlot, TryExample};
use crate::components::paste::{PREVIEW_LINES, PasteArea, Streamed};
use crate::components::site_file::SiteFile;
use crate::components::{
    DataTable, ErrorBox, FindingList, RulesUsed, UrlInput, no_submit, text_list, text_rows,
};
use crate::use_url;

#[derive(Debug)]
pub enum DiagnoseAnswer {
    Report(Box<DiagnoseReport>),
    Need,
    Error(String),
}

/// A streamed log (file or big paste) is parsed in pieces of about this size, yielding to the browser in
/// between.
pub const CHUNK_BYTES: usize = 4 << 20;

/// The page's controls: (request field, which is its URL key, label). Links of the old keys
/// (`data_rate`) are read through `query::RENAMED`; a request error names the field by its label.
pub const CONTROLS: &[(&str, &str)] = &[
    ("dataRate", "Data rate (samples/s)"),
    ("computeRate", "Compute rate (samples/s)"),
    ("loopRate", "Loop rate (samples/s)"),
    ("intervalS", "Sampling interval (s)"),
    ("fields", "CSV fields (logs without header)"),
    ("log", "nvidia-smi log"),
];

/// The URL key and the label of a request field on this page.
fn control(field: &str) -> (&'static str, &'static str) {
    CONTROLS
        .iter()
        .find(|(f, _)| *f == field)
        .map_or(("", ""), |(key, label)| (*key, *label))
}

/// The label of a request field on this page.
fn label(field: &str) -> &'static str {
    control(field).1
}

/// A request error in the page's words: the field said as the label of its control.
pub fn error_text(e: &RequestError) -> String {
    e.render(label(&e.field))
}

/// The typed inputs of the page, as in the URL (text, as typed).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DiagnoseForm {
    pub data_rate: Option<String>,
    pub compute_rate: Option<String>,
    pub loop_rate: Option<String>,
    pub interval_s: Option<String>,
    pub fields: Option<String>,
}

/// A number typed into the control of `field` (`1,000` and `1_000` read as 1000); what it must be is
/// core's to check.
fn number(field: &str, text: Option<&str>) -> Result<Option<f64>, String> {
    match text.map(str::trim).filter(|t| !t.is_empty()) {
        None => Ok(None),
        Some(t) => parse_f64(&t.replace([',', '_'], ""))
            .map(Some)
            .ok_or_else(|| format!("{}: expected a number, got `{t}`", label(field))),
    }
}

impl DiagnoseForm {
    /// The form in the URL.
    pub fn of_url(value: impl Fn(&str) -> Option<String>) -> DiagnoseForm {
        let of = |field: &str| value(control(field).0);
        DiagnoseForm {
            data_rate: of("dataRate"),
            compute_rate: of("computeRate"),
            loop_rate: of("loopRate"),
            interval_s: of("intervalS"),
            fields: of("fields"),
        }
    }

    /// The form (and a pasted log) as core's request, or the first control that is not a number.
    pub fn request(&self, log: Option<String>) -> Result<DiagnoseRequest, String> {
        Ok(DiagnoseRequest {
            log,
            data_rate: number("dataRate", self.data_rate.as_deref())?,
            compute_rate: number("computeRate", self.compute_rate.as_deref())?,
            loop_rate: number("loopRate", self.loop_rate.as_deref())?,
            interval_s: number("intervalS", self.interval_s.as_deref())?,
            fields: self.fields.clone(),
            ..DiagnoseRequest::default()
        })
    }

    /// The request without its log, checked by core (the log is streamed into its `Diagnoser`).
    fn diagnoser(&self) -> Result<Diagnoser, String> {
        let request = self.request(None)?;
        Diagnoser::of(&request, browser::now()).map_err(|e| error_text(&e))
    }
}

/// The pasted log and the form → the report `kgadvise diagnose` prints.
pub fn diagnose_answer(form: &DiagnoseForm, log: &str) -> DiagnoseAnswer {
    let request = match form.request((!log.trim().is_empty()).then(|| log.to_string())) {
        Ok(request) => request,
        Err(e) => return DiagnoseAnswer::Error(e),
    };
    let no_rates = request.data_rate.is_none()
        && request.compute_rate.is_none()
        && request.loop_rate.is_none();
    if request.log.is_none() && no_rates {
        return DiagnoseAnswer::Need;
    }
    match diagnose(&request, browser::now()) {
        Ok(report) => DiagnoseAnswer::Report(Box::new(report)),
        Err(e) => DiagnoseAnswer::Error(error_text(&e)),
    }
}

/// The stage of a streamed log, shown above the answer, with the report when done (the bytes read so far
/// are a signal of their own, so the bar moves without rebuilding its Cancel button).
#[derive(Debug, Clone, PartialEq)]
enum Progress {
    Reading {
        name: String,
        total: f64,
    },
    Done {
        name: String,
        /// The bytes read (UTF-8 for a paste).
        bytes: f64,
        /// A big paste (the box shows its first lines), not a file.
        pasted: bool,
        report: Box<DiagnoseReport>,
    },
    Cancelled {
        name: String,
        done: f64,
        total: f64,
    },
    Failed(String),
}

/// Pushes a streamed log into `d` in chunks, yielding to the browser between them, and returns the report
/// and the bytes read; stops (returning `None`) as soon as `alive()` turns false (Cancel, another file,
/// other inputs, the page left). `progress` is told how far the reading is, in `Streamed::length`'s unit.
async fn stream_log(
    log: &Streamed,
    mut d: Diagnoser,
    alive: impl Fn() -> bool,
    progress: impl Fn(f64),
) -> Result<Option<(DiagnoseReport, f64)>, String> {
    let total = log.length();
    let (mut done, mut bytes) = (0.0, 0.0);
    while done < total {
        let end = (done + CHUNK_BYTES as f64).min(total);
        let chunk = match log {
            Streamed::File(file) => {
                let chunk = browser::read_bytes(file, done, end).await?;
                if !alive() {
                    return Ok(None);
                }
                if chunk.is_empty() {
                    break; // the file shrank while being read
                }
                done += chunk.len() as f64;
                chunk
            }
            // Copied into wasm one part at a time: never the whole paste at once.
            Streamed::Pasted { text, .. } => {
                let (part, part_end) = browser::text_part(text, done as u32, end as u32);
                done = f64::from(part_end);
                part.into_bytes()
            }
        };
        bytes += chunk.len() as f64;
        d.push(&chunk);
        progress(done);
        browser::yield_to_browser().await;
        if !alive() {
            return Ok(None);
        }
    }
    Ok(Some((d.finish(), bytes)))
}

/// Reads the loaded file (or big paste) whenever it or the form changes; each read has a number, and a
/// read whose number is no longer `current` stops at its next chunk.
fn stream_on_change(
    stream: RwSignal<Option<Streamed>, LocalStorage>,
    form: Memo<DiagnoseForm>,
    progress: RwSignal<Option<Progress>>,
    bytes_done: RwSignal<f64>,
    current: Arc<AtomicU64>,
) {
    Effect::new(move |_| {
        let me = current.fetch_add(1, Ordering::SeqCst) + 1;
        let Some(log) = stream.get() else {
            progress.set(None);
            return;
        };
        let Ok(d) = form.with(DiagnoseForm::diagnoser) else {
            progress.set(None);
            return;
        };
        let (name, total) = (log.name(), log.length());
        let pasted = matches!(log, Streamed::Pasted { .. });
        bytes_done.set(0.0);
        progress.set(Some(Progress::Reading {
            name: name.clone(),
            total,
        }));
        let current = current.clone();
        leptos::task::spawn_local(async move {
            let alive = || current.load(Ordering::SeqCst) == me;
            let result = stream_log(&log, d, alive, |done| bytes_done.set(done)).await;
            if !alive() {
                return;
            }
            match result {
                Ok(Some((r, bytes))) => progress.set(Some(Progress::Done {
                    name,
                    bytes,
                    pasted,
                    report: Box::new(r),
                })),
                Ok(None) => {}
                Err(e) => progress.set(Some(Progress::Failed(format!(
                    "{name}: could not be read: {e}"
                )))),
            }
        });
    });
}

/// A 2xT4 run that trains on one GPU only.
pub const EXAMPLE: Example = Example {
    what: "an nvidia-smi log of a 2xT4 run whose second GPU sits idle",
    typed: &[],
    files: &[("log", "diagnose/second-gpu-idle.csv")],
};

#[component]
pub fn DiagnosePage() -> impl IntoView {
    let url = use_url();
    let log = RwSignal::new(String::new());
    let docs = field_docs();
    // A file, or a big paste kept out of the box (see `PasteArea`): parsed in chunks.
    let stream = RwSignal::new_local(None::<Streamed>);
    let progress = RwSignal::new(None::<Progress>);
    let bytes_done = RwSignal::new(0.0);
    // Each parse has a number; a parse whose number is no longer the current one stops at its next chunk.
    let current = Arc::new(AtomicU64::new(0));
    let form = Memo::new(move |_| DiagnoseForm::of_url(|key| url.value(key)));
    let answer = Memo::new(move |_| {
        if stream.with(Option::is_some) {
            return match form.with(DiagnoseForm::diagnoser) {
                Ok(_) => ViewState::Streaming,
                Err(e) => ViewState::Error(e),
            };
        }
        log.with(|l| form.with(|f| diagnose_answer(f, l)))
            .into_view_state()
    });
    // Effects run in the browser only (host tests render the page once to HTML).
    if cfg!(target_arch = "wasm32") {
        // Text in the box (typed, pasted, or Try an example's) replaces a streamed log.
        Effect::new(move |_| {
            if log.with(|l| !l.is_empty()) {
                stream.set(None);
            }
        });
        stream_on_change(stream, form, progress, bytes_done, current.clone());
    }
    let cancel = {
        let current = current.clone();
        move || {
            current.fetch_add(1, Ordering::SeqCst);
            progress.update(|p| {
                if let Some(Progress::Reading { name, total }) = p {
                    *p = Some(Progress::Cancelled {
                        name: std::mem::take(name),
                        done: bytes_done.get_untracked(),
                        total: *total,
                    });
                }
            });
        }
    };
    on_cleanup(move || {
        current.fetch_add(1, Ordering::SeqCst);
    });
    let remove = move || {
        stream.set(None);
        log.set(String::new());
    };
    view! {
        <section aria-labelledby="page-title">
            <h1 id="page-title">"Diagnose a run"</h1>
            <p class="lead">
                "Why is the run slow, and is it wasting GPU quota? Paste or drop an nvidia-smi log (CSV from --query-gpu, "
                "the default table, dmon, -q text or XML), or type the three bench rates. The log never leaves this page."
            </p>
            <TryExample
                example=&EXAMPLE
                slots=vec![ExampleSlot { field: "log", text: log, file: None }]
            />
            <PasteArea
                id="log-paste"
                label=label("log")
                placeholder="timestamp, index, name, utilization.gpu [%], memory.used [MiB], ..."
                hint="A file may be UTF-16 (PowerShell). Big logs are read in chunks (the box shows a big paste's first lines); lines that cannot be read are listed with their line number."
                doc=field_doc(docs, "diagnose", "log")
                value=log
                stream=stream
            />
            {move || progress.get().map(|p| progress_view(p, bytes_done, cancel.clone(), remove))}
            <DiagnoseControls docs=docs />
            {move || match answer.get() {
                ViewState::Streaming => match progress.with(|p| match p {
                    Some(Progress::Done { report, .. }) => Some(report.clone()),
                    _ => None,
                }) {
                    Some(report) => ViewState::Report(report).render(),
                    None => view! { <p class="hint" id="answer">"Reading the log…"</p> }.into_any(),
                },
                other => other.render(),
            }}
        </section>
    }
}

/// The form: one control per request field the page takes, bound to its URL key.
#[component]
fn DiagnoseControls(docs: RwSignal<SiteFile>) -> impl IntoView {
    let doc = move |field: &'static str| field_doc(docs, "diagnose", field);
    let (data, compute, real_loop, interval, fields) = (
        control("dataRate"),
        control("computeRate"),
        control("loopRate"),
        control("intervalS"),
        control("fields"),
    );
    view! {
        <form class="controls" on:submit=no_submit>
            <UrlInput id=data.0 label=data.1 key=data.0 numeric=true doc=doc(data.0) />
            <UrlInput id=compute.0 label=compute.1 key=compute.0 numeric=true doc=doc(compute.0) />
            <UrlInput id=real_loop.0 label=real_loop.1 key=real_loop.0 numeric=true doc=doc(real_loop.0) />
            <UrlInput id=interval.0 label=interval.1 key=interval.0 numeric=true doc=doc(interval.0) />
            <UrlInput
                id=fields.0
                label=fields.1
                key=fields.0
                placeholder="index,utilization.gpu,memory.used"
                doc=doc(fields.0)
            />
        </form>
    }
}

/// The stage of a streamed log: the progress bar with Cancel, the file read, or why it stopped.
fn progress_view(
    p: Progress,
    bytes_done: RwSignal<f64>,
    cancel: impl Fn() + 'static,
    remove: impl Fn() + 'static,
) -> AnyView {
    match p {
        Progress::Reading { name, total } => view! {
            <div class="progress" id="log-progress-box" role="status">
                <label for="log-progress">
                    {move || format!(
                        "Reading {name}: {} of {}",
                        size_text(bytes_done.get()),
                        size_text(total)
                    )}
                </label>
                <progress id="log-progress" max=shortest(total.max(1.0)) prop:value=move || bytes_done.get()></progress>
                <button type="button" id="log-cancel" on:click=move |_| cancel()>"Cancel"</button>
            </div>
        }
        .into_any(),
        Progress::Done { name, bytes, pasted, report } => {
            let read = format!(
                "{name} ({}, {})",
                size_text(bytes),
                counted(report.lines as u64, "line", "lines")
            );
            let shown = if pasted {
                format!(
                    " in this page, in chunks: the box shows its first {PREVIEW_LINES} lines, and typing there replaces it. "
                )
            } else {
                " in this page, in chunks; nothing was uploaded. ".to_string()
            };
            view! {
                <p class="file-note" id="log-file-note">
                    "Read "<strong class="file-name">{read}</strong>{shown}
                    <button type="button" on:click=move |_| remove()>
                        {if pasted { "Clear" } else { "Remove" }}
                    </button>
                </p>
            }
            .into_any()
        }
        Progress::Cancelled { name, done, total } => view! {
            <p class="hint" id="log-cancelled">
                {format!(
                    "Cancelled: read {} of {} of {name}. Open or paste it again (or change an input) to read it.",
                    size_text(done),
                    size_text(total)
                )}
            </p>
        }
        .into_any(),
        Progress::Failed(e) => view! { <ErrorBox message=e /> }.into_any(),
    }
}

/// What the page shows, cheap to clone for the Memo.
#[derive(Debug, Clone, PartialEq)]
pub enum ViewState {
    Report(Box<DiagnoseReport>),
    Need,
    Error(String),
    /// A file or a big paste: the answer comes from the chunked parse.
    Streaming,
}

impl DiagnoseAnswer {
    fn into_view_state(self) -> ViewState {
        match self {
            DiagnoseAnswer::Report(r) => ViewState::Report(r),
            DiagnoseAnswer::Need => ViewState::Need,
            DiagnoseAnswer::Error(e) => ViewState::Error(e),
        }
    }
}

impl ViewState {
    fn render(self) -> AnyView {
        match self {
            ViewState::Report(r) => view! { <DiagnoseView report=*r /> }.into_any(),
            ViewState::Need => view! {
                <p class="hint" id="answer">"Paste a log, or type at least one bench rate."</p>
            }
            .into_any(),
            ViewState::Error(e) => view! { <ErrorBox message=e /> }.into_any(),
            ViewState::Streaming => ().into_any(),
        }
    }
}

#[component]
fn DiagnoseView(report: DiagnoseReport) -> impl IntoView {
    let r = report;
    let verdicts = r
        .verdicts
        .iter()
        .map(|v| view! { <li class=format!("verdict-card verdict-{v}")><code>{*v}</code></li> })
        .collect_view();
    let wasted = r
        .wasted_sentence()
        .map(|w| view! { <p class="wasted">{w}</p> });
    // The per-GPU table is core's, headers and cells, as the CLI prints it and the wheel lays it out.
    let gpu_table = r.gpu_table();
    let gpus = r.gpus.clone();
    let timelines = gpus
        .into_iter()
        .map(|g| view! { <Timeline gpu=g /> })
        .collect_view();
    let diagnostics = (!r.diagnostics.is_empty()).then(|| {
        view! {
            <h3>{r.diagnostics_heading()}</h3>
            {text_list(
                "diagnostics",
                r.diagnostics.iter().map(|d| format!("line {}: {}", d.line, d.message)).collect(),
            )}
        }
    });
    let notes: Vec<String> = r.errors.iter().chain(r.notes.iter()).cloned().collect();
    view! {
        <div id="answer" class="answer">
            <ul class="verdicts" aria-label="Verdicts, fix first">{verdicts}</ul>
            {wasted}
            <FindingList findings=r.findings.clone() />
            {(!r.gpus.is_empty())
                .then(|| {
                    view! {
                        <h3>"Per GPU"</h3>
                        <DataTable
                            class="gpus"
                            head=gpu_table.header
                            rows=text_rows(gpu_table.rows)
                        />
                    }
                })}
            {timelines}
            {(!notes.is_empty()).then(|| text_list("notes", notes))}
            {diagnostics}
            <p class="formats">
                {r.formats_sentence()}
            </p>
            <RulesUsed rules=r.rules.clone() />
        </div>
    }
}

/// The chart's drawing box (SVG user units, stretched to the chart's size: `preserveAspectRatio="none"`).
const PLOT_W: u32 = 1000;

/// The height in the drawing box, and the share of the chart's height from the top, of a utilisation.
fn util_y(v: f64) -> f64 {
    2.0 + (100.0 - v.clamp(0.0, 100.0)) * 0.96
}

/// One GPU's utilisation over the run: an inline SVG line with the verdict thresholds as dashed lines, over
/// the time since the GPU's first sample (the sample number when the log gives no time). The line is drawn
/// in an inner SVG stretched to the chart; the axis labels are text of the outer SVG, which has no viewBox,
/// placed in % of its box: they stay at the page's text size however wide the chart is drawn (and need no
/// inline style, which the CSP refuses).
#[component]
fn Timeline(gpu: GpuReport) -> impl IntoView {
    if gpu.timeline.len() < 2 {
        return ().into_any();
    }
    // Point i is the mean of the utilisation samples [i × step, (i + 1) × step): drawn at their middle.
    let last = (gpu.util_samples.max(2) - 1) as f64;
    let step = gpu.timeline_step_samples.max(1) as f64;
    let mut points = String::new();
    for (i, v) in gpu.timeline.iter().enumerate() {
        let first = i as f64 * step;
        let middle = (first + (first + step - 1.0).min(last)) / 2.0;
        if i > 0 {
            points.push(' ');
        }
        push_fixed(&mut points, middle / last * f64::from(PLOT_W), 1);
        points.push(',');
        push_fixed(&mut points, util_y(*v), 1);
    }
    let axis = timeline_axis(&gpu);
    let mut labels: Vec<_> = axis
        .ticks
        .into_iter()
        .map(|t| axis_label("x-tick", fixed(100.0 * t.at, 2), "100".into(), t.label))
        .collect();
    // The thresholds: one dashed path of horizontal lines, each labelled on the y axis.
    let t = Thresholds::defaults();
    let (mut thresholds, mut desc) = (String::new(), Vec::new());
    for (id, label) in kgadvise_core::diagnose::verdict::TIMELINE_THRESHOLDS {
        let v = t.get(*id);
        let y = shortest(util_y(v));
        thresholds.push_str(&format!("M0 {y}H{PLOT_W}"));
        labels.push(axis_label("y-tick", "0".into(), y, fixed(v, 0)));
        desc.push(format!("{label} {} % ({id})", fixed(v, 0)));
    }
    view! {
        <figure class="timeline">
            <figcaption>{axis.caption}</figcaption>
            <svg class="plot" role="img" aria-label=format!("GPU {} utilisation timeline", gpu.index)>
                <desc>{desc.join("; ")}</desc>
                <svg viewBox=format!("0 0 {PLOT_W} 100") preserveAspectRatio="none">
                    <path d=thresholds class="threshold"></path>
                    <polyline points=points class="util-line"></polyline>
                </svg>
                <g aria-hidden="true">{labels}</g>
            </svg>
        </figure>
    }
    .into_any()
}

/// A label of a chart's axis at (`x` %, `y` %) of the outer SVG; its class (`x-tick`, `y-tick`) sets it off
/// below or left of that point, in CSS.
fn axis_label(class: &'static str, x: String, y: String, label: String) -> impl IntoView {
    view! { <text class=class x=format!("{x}%") y=format!("{y}%")>{label}</text> }
}
