//! Kernel check (`kgadvise check`): paste or drop a kernel-metadata.json (and, optionally, the code file) → the
//! pre-flight findings before `kaggle kernels push`, and the machine_shape Kaggle will store.

use kgadvise_core::kernel::{self, CheckReport, CheckRequest};
use kgadvise_core::quota::parse_hours;
use kgadvise_core::request::RequestError;
use kgadvise_core::rulebook::Thresholds;
use kgadvise_core::text::decode_input;
use leptos::prelude::*;

use crate::browser::now;
use crate::components::example::{Example, ExampleSlot, TryExample};
use crate::components::inputs::parse_count;
use crate::components::paste::{LoadedFile, PasteArea};
use crate::components::{ErrorBox, FindingList, RulesUsed, UrlInput, no_submit};
use crate::use_url;

#[derive(Debug)]
pub enum KernelAnswer {
    Report(Box<CheckReport>),
    Need,
    Error(String),
}

/// A kernel folder whose machine_shape Kaggle refuses, pushed with a 2 h cap.
pub const EXAMPLE: Example = Example {
    what: "a kernel folder with a machine_shape Kaggle refuses, pushed with -t 7200",
    typed: &[("timeout", "7200")],
    files: &[
        ("metadata", "kernel/KM007/trigger/kernel-metadata.json"),
        ("code", "kernel/KM007/trigger/train.py"),
    ],
};

/// What the page calls the pasted metadata.
const PASTED: &str = "kernel-metadata.json";

/// The page's typed controls: the request field, its URL key (`timeout` kept from earlier links), and
/// the label an error names it by.
const CONTROLS: [(&str, &str, &str); 2] = [
    ("plannable", "plannable", "Plannable GPU hours"),
    ("timeoutSeconds", "timeout", "Push timeout -t (s)"),
];

fn control(field: &str) -> Option<&'static (&'static str, &'static str, &'static str)> {
    CONTROLS.iter().find(|(f, ..)| *f == field)
}

fn url_key(field: &str) -> &'static str {
    control(field).map_or("", |(_, key, _)| key)
}

fn label(field: &str) -> &str {
    control(field).map_or(field, |(_, _, label)| label)
}

/// A request error in the page's words: the label of the control (the metadata's file name).
fn in_words(e: &RequestError, metadata_name: &str) -> String {
    let label = match e.field.as_str() {
        "metadata" => metadata_name,
        "code" => "Code file",
        field => label(field),
    };
    e.render(label)
}

/// The pasted metadata (and code) with the typed options → the report `kgadvise check` prints.
pub fn kernel_answer(
    metadata: &str,
    code: &str,
    plannable: Option<&str>,
    timeout: Option<&str>,
) -> KernelAnswer {
    let code = (!code.is_empty()).then_some(code.as_bytes());
    kernel_answer_bytes(None, metadata.as_bytes(), code, plannable, timeout)
}

/// The metadata as bytes (pasted, or a local file named `file_name`) and the code file's bytes, decoded
/// by the core as the CLI decodes files and sized as they are on disk: the request `kgadvise check`
/// builds from a kernel folder.
pub fn kernel_answer_bytes(
    file_name: Option<&str>,
    metadata: &[u8],
    code: Option<&[u8]>,
    plannable: Option<&str>,
    timeout: Option<&str>,
) -> KernelAnswer {
    // An empty file is read (and refused with its reason); an empty box just asks for the input.
    if file_name.is_none() && metadata.iter().all(u8::is_ascii_whitespace) {
        return KernelAnswer::Need;
    }
    let name = file_name.unwrap_or(PASTED);
    let request = match check_request(file_name, metadata, code, plannable, timeout) {
        Ok(request) => request,
        Err(e) => return KernelAnswer::Error(e),
    };
    match kernel::check(&request, now()) {
        Ok(r) => KernelAnswer::Report(Box::new(r)),
        Err(e) => KernelAnswer::Error(in_words(&e, name)),
    }
}

/// The request of the page's inputs, or what cannot be read, in the page's words.
fn check_request(
    file_name: Option<&str>,
    metadata: &[u8],
    code: Option<&[u8]>,
    plannable: Option<&str>,
    timeout: Option<&str>,
) -> Result<CheckRequest, String> {
    let plannable = match plannable.map(str::trim).filter(|t| !t.is_empty()) {
        Some(t) => Some(parse_hours(t).map_err(|e| format!("{}: {e}", label("plannable")))?),
        None => None,
    };
    let timeout_seconds = parse_count(label("timeoutSeconds"), timeout.unwrap_or(""))?;
    let metadata = kernel::metadata_text(metadata, &Thresholds::defaults())
        .map_err(|e| in_words(&e, file_name.unwrap_or(PASTED)))?;
    Ok(CheckRequest {
        metadata,
        input: Some(file_name.map_or_else(|| format!("{PASTED} (pasted)"), str::to_string)),
        code: code.map(|bytes| decode_input(bytes).into_owned()),
        code_bytes: code.map(|bytes| bytes.len() as u64),
        plannable,
        timeout_seconds,
        ..CheckRequest::default()
    })
}

#[component]
pub fn KernelPage() -> impl IntoView {
    let url = use_url();
    let metadata = RwSignal::new(String::new());
    let code = RwSignal::new(String::new());
    let metadata_file = RwSignal::new(None::<LoadedFile>);
    let code_file = RwSignal::new(None::<LoadedFile>);
    let answer = move || {
        metadata_file.with(|mf| {
            code_file.with(|cf| {
                metadata.with(|m| {
                    code.with(|c| {
                        let (name, meta) = match mf {
                            Some(f) => (Some(f.name.as_str()), &f.bytes[..]),
                            None => (None, m.as_bytes()),
                        };
                        let code = match cf {
                            Some(f) => Some(&f.bytes[..]),
                            None => (!c.is_empty()).then_some(c.as_bytes()),
                        };
                        kernel_answer_bytes(
                            name,
                            meta,
                            code,
                            url.value(url_key("plannable")).as_deref(),
                            url.value(url_key("timeoutSeconds")).as_deref(),
                        )
                    })
                })
            })
        })
    };
    view! {
        <section aria-labelledby="page-title">
            <h1 id="page-title">"Kernel check"</h1>
            <p class="lead">
                "Before "<code>"kaggle kernels push"</code>": will the push be refused, run on the wrong machine, "
                "or burn quota? Paste or drop kernel-metadata.json; the code file is optional. Nothing leaves this page."
            </p>
            <TryExample
                example=&EXAMPLE
                slots=vec![
                    ExampleSlot { field: "metadata", text: metadata, file: Some(metadata_file) },
                    ExampleSlot { field: "code", text: code, file: Some(code_file) },
                ]
            />
            <PasteArea
                id="metadata-paste"
                label="kernel-metadata.json"
                placeholder="{ \"id\": \"you/your-kernel\", \"code_file\": \"main.ipynb\", ... }"
                value=metadata
                file=metadata_file
                accept=".json,application/json"
            />
            <PasteArea
                id="code-paste"
                label="Code file (optional: the notebook JSON or the script)"
                hint="Its size and its outputs are checked against Kaggle's limits: open or drop the file to size it as it is on disk."
                value=code
                file=code_file
            />
            <form class="controls" on:submit=no_submit>
                <UrlInput id="plannable" label="Plannable GPU hours (optional)" key="plannable" numeric=true />
                <UrlInput id="timeout" label="Push timeout -t (s, optional)" key="timeout" numeric=true />
            </form>
            {move || match answer() {
                KernelAnswer::Report(r) => view! { <KernelView report=*r /> }.into_any(),
                KernelAnswer::Need => view! {
                    <p class="hint" id="answer">"Paste a kernel-metadata.json."</p>
                }
                .into_any(),
                KernelAnswer::Error(e) => view! { <ErrorBox message=e /> }.into_any(),
            }}
        </section>
    }
}

#[component]
fn KernelView(report: CheckReport) -> impl IntoView {
    let r = report;
    let verdict = if r.ok {
        "ok: nothing blocks this push"
    } else {
        "fix before pushing"
    };
    let shape = match (&r.requested_machine_shape, &r.machine_shape) {
        (Some(req), Some(stored)) if req != stored => {
            format!("machine_shape {req} is stored as {stored}")
        }
        (_, Some(stored)) => format!("runs on {stored}"),
        (_, None) => format!("accelerator: {}", r.accelerator.as_str()),
    };
    let code = r
        .code_file_bytes
        .map(|b| format!("code file: {b} bytes"))
        .unwrap_or_default();
    view! {
        <div id="answer" class="answer">
            <p class=if r.ok { "verdict check-ok" } else { "verdict check-fail" }>{verdict}</p>
            <p class="shape">{format!("{} · {shape}", r.id.clone().unwrap_or_else(|| "(no id)".into()))}</p>
            <p class="code-size">{code}</p>
            <FindingList findings=r.findings.clone() />
            <RulesUsed rules=r.rules.clone() />
        </div>
    }
}
