//! After a run (`kgadvise collect`): paste or drop kgkit's kg_run.json → what the run says to fix, each fold's
//! outcome, the GPUs' use and the measured cost per fold.

use kgadvise_core::kernel::run_report::{self, CollectReport, CollectRequest, FoldOutcome};
use kgadvise_core::text::number::fixed;
use leptos::prelude::*;

use crate::browser::now;
use crate::components::advisor::{
    AdvisorPage, AdvisorSpec, Inputs, Shown, TextBox, report_view, summary,
};
use crate::components::example::Example;
use crate::components::{Cell, DataTable};

/// A run of four folds on a T4 x2 where one fold ran out of GPU memory.
pub const EXAMPLE: Example = Example {
    what: "a run report of a 4-fold run on two T4s where fold 1 failed",
    typed: &[],
    files: &[("report", "kernel/KR007/trigger/kg_run.json")],
};

/// A kg_run.json file decoded as `kgadvise collect` decodes it (binary data refused).
fn report_file(bytes: &[u8]) -> Result<String, String> {
    run_report::report_text(bytes).map_err(|e| e.render(""))
}

pub static SPEC: AdvisorSpec = AdvisorSpec {
    title: "After a run",
    lead: "What does a finished run say to fix, and what did one fold cost? Paste or drop kgkit's `kg_run.json` \
           (its jobs, fold status and GPU use). Nothing leaves this page.",
    boxes: &[TextBox {
        field: "report",
        id: "report-paste",
        label: "kg_run.json",
        placeholder: "{ \"jobs\": [...], \"accelerator\": \"NvidiaTeslaT4\", \"gpu_util\": {...}, \"elapsed_s\": ... }",
        hint: "",
        accept: ".json,application/json,text/*",
        decode: report_file,
    }],
    typed: &[],
    example: &EXAMPLE,
    need: "Paste or drop kgkit's kg_run.json.",
    answer,
};

/// The request `kgadvise collect` builds from a kg_run.json, from the page's box.
pub fn collect_request(i: &Inputs) -> Result<CollectRequest, Shown> {
    i.require(&["report"])?;
    Ok(CollectRequest {
        report: i.text("report").to_string(),
        input: i.file_name("report").map(String::from),
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

/// The outcome of a fold in the CLI's words.
pub fn outcome_text(o: FoldOutcome) -> &'static str {
    match o {
        FoldOutcome::Done => "done",
        FoldOutcome::Timeout => "timed out",
        FoldOutcome::NeverStarted => "never started",
        FoldOutcome::Pruned => "pruned",
        FoldOutcome::Failed => "failed",
        FoldOutcome::Other => "other",
    }
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
    let rows = vec![
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
    ];
    let folds: Vec<Vec<Cell>> = r
        .jobs
        .iter()
        .flat_map(|j| {
            j.folds.iter().map(|f| {
                vec![
                    Cell::text(j.name.clone()),
                    Cell::text(f.fold.clone()),
                    Cell::text(outcome_text(f.outcome).to_string()).class(format!(
                        "outcome outcome-{}",
                        outcome_text(f.outcome).replace(' ', "-")
                    )),
                    Cell::code(f.status.clone().unwrap_or_default()),
                    Cell::text(opt(f.seconds.map(|s| s / 3600.0), 2, " h")).class("num".into()),
                    Cell::text(opt(f.best, 4, "")).class("num".into()),
                    Cell::text(f.gpu.map(|g| g.to_string()).unwrap_or_default()),
                    Cell::text(f.returncode.map(|c| c.to_string()).unwrap_or_default()),
                ]
            })
        })
        .collect();
    let gpus: Vec<Vec<Cell>> = r
        .gpu_util
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
        .collect();
    let mut parts = vec![summary("collect", rows)];
    if !folds.is_empty() {
        parts.push(
            view! { <DataTable class="folds" head=FOLDS_HEAD rows=folds caption="Folds" /> }
                .into_any(),
        );
    }
    if !gpus.is_empty() {
        parts.push(
            view! { <DataTable class="gpus" head=GPUS_HEAD rows=gpus caption="GPU use" /> }
                .into_any(),
        );
    }
    report_view(parts, r.findings, r.rules)
}

#[component]
pub fn CollectPage() -> impl IntoView {
    view! { <AdvisorPage spec=&SPEC /> }
}
