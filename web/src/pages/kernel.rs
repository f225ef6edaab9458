//! Kernel check (`kgadvise check`): paste or drop a kernel-metadata.json (and, optionally, the code file) → the
//! pre-flight findings before `kaggle kernels push`, and the machine_shape Kaggle will store.

use kgadvise_core::kernel::{self, CheckReport, CheckRequest};
use kgadvise_core::quota::parse_hours;
use kgadvise_core::request::RequestError;
use leptos::prelude::*;

use crate::browser::now;
use crate::components::advisor::{
    AdvisorPage, AdvisorSpec, Control, Inputs, Shown, TextBox, Typed, paragraph, report_view,
};
use crate::components::example::Example;

/// A kernel folder whose machine_shape Kaggle refuses, pushed with a 2 h cap.
pub const EXAMPLE: Example = Example {
    what: "a kernel folder with a machine_shape Kaggle refuses, pushed with -t 7200",
    typed: &[("timeoutSeconds", "7200")],
    files: &[
        ("metadata", "kernel/KM007/trigger/kernel-metadata.json"),
        ("code", "kernel/KM007/trigger/train.py"),
    ],
};

/// What the page calls the pasted metadata.
const PASTED: &str = "kernel-metadata.json";

pub static SPEC: AdvisorSpec = AdvisorSpec {
    command: "check",
    title: "Kernel check",
    lead: "Before `kaggle kernels push`: will the push be refused, run on the wrong machine, or burn quota? \
           Paste or drop kernel-metadata.json; the code file is optional. Nothing leaves this page.",
    boxes: &[
        TextBox {
            field: "metadata",
            id: "metadata-paste",
            label: PASTED,
            placeholder: "{ \"id\": \"you/your-kernel\", \"code_file\": \"main.ipynb\", ... }",
            note: "",
            accept: ".json,application/json",
        },
        TextBox {
            field: "code",
            id: "code-paste",
            label: "Code file (optional: the notebook JSON or the script)",
            placeholder: "",
            note: "Open or drop the file to size it as it is on disk.",
            accept: "",
        },
    ],
    typed: &[
        Typed {
            field: "plannable",
            label: "Plannable GPU hours (optional)",
            control: Control::number(""),
        },
        // Links of the old URL key `timeout` are read through `query::RENAMED`.
        Typed {
            field: "timeoutSeconds",
            label: "Push timeout -t (s, optional)",
            control: Control::number(""),
        },
    ],
    example: &EXAMPLE,
    need: "Paste a kernel-metadata.json.",
    answer,
};

/// The request `kgadvise check` builds from a kernel folder, from the page's boxes (the code file sized
/// as it is on disk) and typed values.
pub fn check_request(i: &Inputs) -> Result<CheckRequest, Shown> {
    // An empty file is read (and refused with its reason); an empty box just asks for the input.
    if i.file_name("metadata").is_none() && i.text("metadata").trim().is_empty() {
        return Err(i.need());
    }
    let plannable = match i.value("plannable") {
        Some(t) => Some(
            parse_hours(t).map_err(|e| Shown::Error(format!("{}: {e}", i.label("plannable"))))?,
        ),
        None => None,
    };
    let timeout_seconds = i.count("timeoutSeconds")?;
    let code = i.given("code").then(|| i.text("code").to_string());
    Ok(CheckRequest {
        metadata: i.text("metadata").to_string(),
        input: Some(
            i.file_name("metadata")
                .map_or_else(|| format!("{PASTED} (pasted)"), String::from),
        ),
        code_bytes: code.as_ref().map(|_| i.size("code") as u64),
        code,
        plannable,
        timeout_seconds,
        ..CheckRequest::default()
    })
}

/// A core error in the page's words (the label of the field's control).
pub fn check_error(i: &Inputs, e: &RequestError) -> Shown {
    i.error(e)
}

fn answer(i: &Inputs) -> Result<AnyView, Shown> {
    let request = check_request(i)?;
    let report = kernel::check(&request, now()).map_err(|e| check_error(i, &e))?;
    Ok(kernel_view(report))
}

fn kernel_view(r: CheckReport) -> AnyView {
    let (class, verdict) = if r.ok {
        ("verdict check-ok", "ok: nothing blocks this push")
    } else {
        ("verdict check-fail", "fix before pushing")
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
    let id = r.id.unwrap_or_else(|| "(no id)".into());
    let parts = vec![
        paragraph(class, verdict.to_string()),
        paragraph("shape", format!("{id} · {shape}")),
        paragraph("code-size", code),
    ];
    report_view(parts, r.findings, r.rules)
}

#[component]
pub fn KernelPage() -> impl IntoView {
    view! { <AdvisorPage spec=&SPEC /> }
}
