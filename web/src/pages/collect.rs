//! After a run (`kgadvise collect`): paste or drop kgkit's kg_run.json → what the run says to fix, each fold's
//! outcome, the GPUs' use and the measured cost per fold; for a kernel without one, Kaggle's status text and
//! the kernel's log (`collect --status --log`) → its outcome, its session's hours and its last lines.

use kgadvise_core::kernel::run_report::{self, CollectReport, CollectRequest, SessionSummary};
use kgadvise_core::text::number::fixed;
use leptos::prelude::*;

use crate::browser::now;
use crate::components::advisor::{
    AdvisorPage, AdvisorSpec, Control, Inputs, Shown, TextBox, Typed, report_view, summary,
};
use crate::components::example::Example;
use crate::components::{Cell, DataTable};

/// A run of four folds on a T4 x2 where one fold ran out of GPU memory.
pub const EXAMPLE: Example = Example {
    what: "a run report of a 4-fold run on two T4s where fold 1 failed",
    typed: &[],
    files: &[("report", "kernel/KR007/trigger/kg_run.json")],
};

pub static SPEC: AdvisorSpec = AdvisorSpec {
    command: "collect",
    title: "After a run",
    lead: "What does a finished run say to fix, and what did one fold cost? Paste or drop kgkit's `kg_run.json` \
           (its jobs, fold status and GPU use); for a kernel without one, what `kaggle kernels status` printed \
           and the kernel's log. Nothing leaves this page.",
    boxes: &[
        TextBox {
            field: "report",
            id: "report-paste",
            label: "kg_run.json",
            placeholder: "{ \"jobs\": [...], \"accelerator\": \"NvidiaTeslaT4\", \"gpu_util\": {...}, \"elapsed_s\": ... }",
            note: "",
            accept: ".json,application/json,text/*",
        },
        TextBox {
            field: "status",
            id: "status-paste",
            label: "Kaggle's status (optional)",
            placeholder: "me/effb0-infer has status \"KernelWorkerStatus.ERROR\"",
            note: "",
            accept: ".txt,text/*",
        },
        TextBox {
            field: "log",
            id: "log-paste",
            label: "The kernel's log (optional)",
            placeholder: "[{\"stream_name\":\"stdout\",\"time\":1.2,\"data\":\"...\"}",
            note: "",
            accept: ".log,.txt,.json,text/*",
        },
    ],
    typed: &[Typed {
        field: "timeoutSeconds",
        label: "-t of the push (s)",
        control: Control::Text {
            numeric: true,
            placeholder: "e.g. 10800",
        },
    }],
    example: &EXAMPLE,
    need: "Paste or drop kgkit's kg_run.json, or Kaggle's status and the kernel's log.",
    answer,
};

/// The request `kgadvise collect` builds from a kg_run.json, from the page's box.
pub fn collect_request(i: &Inputs) -> Result<CollectRequest, Shown> {
    let (status, log) = (i.optional_text("status"), i.optional_text("log"));
    let report = i.optional_text("report");
    if report.is_none() && status.is_none() && log.is_none() {
        return Err(i.need());
    }
    Ok(CollectRequest {
        input: report.as_ref().and(i.file_name("report").map(String::from)),
        report: report.unwrap_or_default(),
        status,
        log,
        timeout_seconds: i.count("timeoutSeconds")?,
        ..CollectRequest::default()
    })
}

fn answer(i: &Inputs) -> Result<AnyView, Shown> {
    let request = collect_request(i)?;
    let report = run_report::collect(&request, now()).map_err(|e| i.error(&e))?;
    Ok(collect_view(report))
}

fn hours(h: Option<f64>) -> String {
    h.map(|h| format!("{} h", fixed(h, 2)))
        .unwrap_or_else(|| "unknown".into())
}

fn opt(v: Option<f64>, decimals: usize, unit: &str) -> String {
    v.map(|x| format!("{}{unit}", fixed(x, decimals)))
        .unwrap_or_else(|| "—".into())
}

const FOLDS_HEAD: &[&str] = &[
    "job",
    "fold",
    "outcome",
    "status",
    "time",
    "best",
    "GPU",
    "exit code",
];
const GPUS_HEAD: &[&str] = &["GPU", "mean use", "10th percentile", "peak memory", "busy"];

fn collect_view(r: CollectReport) -> AnyView {
    let mut parts = Vec::new();
    // A kernel without kg_run.json has no run to summarise: its session is the answer.
    let without_report = r.jobs.is_empty() && r.build_id.is_none() && r.session.is_some();
    if !without_report {
        parts.push(summary("collect", run_rows(&r)));
    }
    if let Some(k) = &r.session {
        parts.push(session_view(k));
    }
    let folds = fold_rows(&r);
    if !folds.is_empty() {
        parts.push(
            view! { <DataTable class="folds" head=FOLDS_HEAD rows=folds caption="Folds" /> }
                .into_any(),
        );
    }
    let gpus = gpu_rows(&r);
    if !gpus.is_empty() {
        parts.push(
            view! { <DataTable class="gpus" head=GPUS_HEAD rows=gpus caption="GPU use" /> }
                .into_any(),
        );
    }
    report_view(parts, r.findings, r.rules)
}

/// The run as kg_run.json tells it.
fn run_rows(r: &CollectReport) -> Vec<(&'static str, String)> {
    vec![
        ("run", r.build_id.clone().unwrap_or_else(|| r.input.clone())),
        (
            "accelerator",
            r.accelerator.clone().unwrap_or_else(|| "?".into()),
        ),
        ("GPUs (busy)", format!("{} ({} busy)", r.gpus, r.busy_gpus)),
        ("elapsed", hours(r.elapsed_s.map(|s| s / 3600.0))),
        ("cap", hours(r.budget_h)),
        (
            "deadline hit",
            if r.deadline_hit { "yes" } else { "no" }.into(),
        ),
        (
            "folds done",
            format!("{} of {}", r.folds_done, r.folds_total),
        ),
        ("cost per fold", hours(r.cost_per_fold_hours)),
        ("quota hours per fold", hours(r.quota_hours_per_fold)),
    ]
}

/// The kernel's session as its status and log tell it, and the log's last lines.
fn session_view(k: &SessionSummary) -> AnyView {
    let outcome = match (&k.status, k.outcome) {
        (Some(status), Some(o)) => format!("{} ({status})", o.as_str()),
        _ => "not given".to_string(),
    };
    let mut rows = vec![
        ("kernel", k.kernel.clone().unwrap_or_else(|| "?".into())),
        ("status", outcome),
        (
            "session",
            k.hours.map_or_else(
                || "unknown".into(),
                |h| format!("{} h (from the log's times)", fixed(h, 2)),
            ),
        ),
        ("cap", hours(k.cap_hours)),
    ];
    if let Some(m) = &k.failure_message {
        rows.push(("failure message", m.clone()));
    }
    if !k.log_unreadable_lines.is_empty() {
        let lines: Vec<String> = k
            .log_unreadable_lines
            .iter()
            .map(|l| l.to_string())
            .collect();
        rows.push(("log lines not read as records", lines.join(", ")));
    }
    let tail = (!k.log_tail.is_empty()).then(|| {
        let text = k.log_tail.join("\n");
        view! {
            <details class="log-tail">
                <summary>"The log's last lines"</summary>
                <pre>{text}</pre>
            </details>
        }
    });
    view! {
        <div class="session">
            {summary("session", rows)}
            {tail}
        </div>
    }
    .into_any()
}

/// Each fold of each job: its outcome, time and best score.
fn fold_rows(r: &CollectReport) -> Vec<Vec<Cell>> {
    r.jobs
        .iter()
        .flat_map(|j| {
            j.folds.iter().map(|f| {
                vec![
                    Cell::text(j.name.clone()),
                    Cell::text(f.fold.clone()),
                    Cell::text(f.outcome.words().to_string()).class(format!(
                        "outcome outcome-{}",
                        f.outcome.words().replace(' ', "-")
                    )),
                    Cell::code(f.status.clone().unwrap_or_default()),
                    Cell::text(opt(f.seconds.map(|s| s / 3600.0), 2, " h")).class("num".into()),
                    Cell::text(opt(f.best, 4, "")).class("num".into()),
                    Cell::text(f.gpu.map(|g| g.to_string()).unwrap_or_default()),
                    Cell::text(f.returncode.map(|c| c.to_string()).unwrap_or_default()),
                ]
            })
        })
        .collect()
}

/// Each sampled GPU's use.
fn gpu_rows(r: &CollectReport) -> Vec<Vec<Cell>> {
    r.gpu_util
        .iter()
        .map(|g| {
            vec![
                Cell::text(g.index.clone()),
                Cell::text(opt(g.util_mean, 1, " %")).class("num".into()),
                Cell::text(opt(g.util_p10, 0, " %")).class("num".into()),
                Cell::text(opt(g.mem_peak_mb, 0, " MB")).class("num".into()),
                Cell::text(if g.busy { "yes" } else { "no" }.into()),
            ]
        })
        .collect()
}

#[component]
pub fn CollectPage() -> impl IntoView {
    view! { <AdvisorPage spec=&SPEC /> }
}
