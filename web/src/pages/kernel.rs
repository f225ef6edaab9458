//! Kernel check (`kgadvise check`): paste a kernel-metadata.json (and, optionally, the code file) → the
//! pre-flight findings before `kaggle kernels push`, and the machine_shape Kaggle will store.

use kgadvise_core::kernel::{self, CheckOptions, CheckReport, CodeFile};
use kgadvise_core::rulebook::Thresholds;
use leptos::prelude::*;

use crate::browser::today;
use crate::components::inputs::parse_count;
use crate::components::paste::PasteArea;
use crate::components::{ErrorBox, FindingList, RulesUsed, UrlInput};
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
    if metadata.trim().is_empty() {
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
    let code = if code.is_empty() {
        CodeFile::NotNamed
    } else {
        CodeFile::Present {
            bytes: code.as_bytes(),
        }
    };
    match kernel::check_text(
        "kernel-metadata.json (pasted)",
        metadata.as_bytes(),
        code,
        &opts,
        today(),
        &Thresholds::defaults(),
    ) {
        Ok(r) => KernelAnswer::Report(Box::new(r)),
        Err(e) => KernelAnswer::Error(format!("kernel-metadata.json: {e}")),
    }
}

#[component]
pub fn KernelPage() -> impl IntoView {
    let url = use_url();
    let metadata = RwSignal::new(String::new());
    let code = RwSignal::new(String::new());
    let answer = move || {
        metadata.with(|m| {
            code.with(|c| {
                kernel_answer(
                    m,
                    c,
                    url.value("plannable").as_deref(),
                    url.value("timeout").as_deref(),
                )
            })
        })
    };
    view! {
        <section aria-labelledby="page-title">
            <h1 id="page-title">"Kernel check"</h1>
            <p class="lead">
                "Before "<code>"kaggle kernels push"</code>": will the push be refused, run on the wrong machine, "
                "or burn quota? Paste kernel-metadata.json; the code file is optional. Nothing leaves this page."
            </p>
            <PasteArea
                id="metadata-paste"
                label="kernel-metadata.json"
                placeholder="{ \"id\": \"you/your-kernel\", \"code_file\": \"main.ipynb\", ... }"
                value=metadata
            />
            <PasteArea
                id="code-paste"
                label="Code file (optional: the notebook JSON or the script)"
                hint="Its size and its outputs are checked against Kaggle's limits."
                value=code
            />
            <form class="controls" on:submit=|ev| ev.prevent_default()>
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
