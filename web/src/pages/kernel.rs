//! Kernel check (`kgadvise check`): paste or drop a kernel-metadata.json (and, optionally, the code file) → the
//! pre-flight findings before `kaggle kernels push`, and the machine_shape Kaggle will store.

use kgadvise_core::kernel::{self, CheckOptions, CheckReport, CodeFile};
use kgadvise_core::rulebook::Thresholds;
use leptos::prelude::*;

use crate::browser::today;
use crate::components::inputs::parse_count;
use crate::components::paste::{LoadedFile, PasteArea};
use crate::components::{ErrorBox, FindingList, RulesUsed, UrlInput, no_submit};
use crate::pages::plan::hours_field;
use crate::use_url;

#[derive(Debug)]
pub enum KernelAnswer {
    Report(Box<CheckReport>),
    Need,
    Error(String),
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

/// The metadata as bytes (pasted, or a local file named `file_name`, decoded by the core as the CLI
/// decodes a file) and the code file's bytes, sized as they are on disk.
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
    let plannable_hours = match hours_field("plannable GPU hours", plannable) {
        Ok(h) => h,
        Err(e) => return KernelAnswer::Error(e),
    };
    let timeout_seconds = match parse_count("timeout (s)", timeout.unwrap_or("")) {
        Ok(t) => t,
        Err(e) => return KernelAnswer::Error(e),
    };
    let opts = CheckOptions {
        plannable_hours,
        timeout_seconds,
        ..Default::default()
    };
    let code = match code {
        Some(bytes) => CodeFile::Present { bytes },
        None => CodeFile::NotNamed,
    };
    let input = file_name.unwrap_or("kernel-metadata.json (pasted)");
    match kernel::check_text(
        input,
        metadata,
        code,
        &opts,
        today(),
        &Thresholds::defaults(),
    ) {
        Ok(r) => KernelAnswer::Report(Box::new(r)),
        Err(e) => KernelAnswer::Error(format!(
            "{}: {e}",
            file_name.unwrap_or("kernel-metadata.json")
        )),
    }
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
                            url.value("plannable").as_deref(),
                            url.value("timeout").as_deref(),
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
