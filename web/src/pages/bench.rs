//! Bench history (`kgadvise bench --history`): paste or drop `reports/bench.jsonl` → each bench's speed-up against
//! the previous bench of the same run name and what changed between their commands.

use kgadvise_core::bench::{self, BenchHistoryRequest, HistoryReport};
use kgadvise_core::text::number::fixed;
use leptos::prelude::*;

use crate::components::advisor::{
    AdvisorPage, AdvisorSpec, Control, Inputs, Shown, TextBox, Typed, report_view,
};
use crate::components::example::Example;
use crate::components::{Cell, DataTable, text_list};

/// Three benches of one run: a bigger batch halves the time, compiling then slows it.
pub const EXAMPLE: Example = Example {
    what: "three benches of one training run: a bigger batch, then torch.compile",
    typed: &[],
    files: &[("history", "bench/history-slower.jsonl")],
};

pub static SPEC: AdvisorSpec = AdvisorSpec {
    command: "bench-history",
    title: "Bench history",
    lead: "Change one thing, measure the speed-up. Paste or drop reports/bench.jsonl (written by \
           `kgadvise bench --run ...`) to see each bench against the previous one of the same run name, and \
           what changed.",
    boxes: &[TextBox {
        field: "history",
        id: "history-paste",
        label: "bench.jsonl",
        placeholder: "{\"name\":\"train\",\"time\":\"2026-11-30T10:00:00Z\",\"command\":\"python train.py --bs 64\",\"wall_s\":412.5,\"exit_code\":0}",
        note: "",
        accept: ".jsonl,.json,.txt,text/*",
    }],
    typed: &[Typed {
        field: "name",
        label: "Run name (optional)",
        control: Control::Text {
            numeric: false,
            placeholder: "",
        },
    }],
    example: &EXAMPLE,
    need: "Paste a bench history.",
    answer,
};

/// The request `kgadvise bench --history FILE [--name N]` builds, from the page's box and run name.
pub fn bench_request(i: &Inputs) -> Result<BenchHistoryRequest, Shown> {
    i.require(&["history"])?;
    Ok(BenchHistoryRequest {
        history: i.text("history").to_string(),
        name: i.value("name").map(String::from),
        ..BenchHistoryRequest::default()
    })
}

fn answer(i: &Inputs) -> Result<AnyView, Shown> {
    let request = bench_request(i)?;
    let report = bench::history(&request, crate::browser::now()).map_err(|e| i.error(&e))?;
    Ok(history_view(report))
}

fn speed(s: Option<f64>) -> String {
    s.map(|x| format!("{}x", fixed(x, 2)))
        .unwrap_or_else(|| "—".into())
}

const HISTORY_HEAD: &[&str] = &[
    "time",
    "name",
    "wall",
    "vs previous",
    "what changed",
    "command",
];

fn history_view(report: HistoryReport) -> AnyView {
    let rows: Vec<Vec<Cell>> = report
        .records
        .iter()
        .map(|e| {
            let changed = e.changed_text().unwrap_or_else(|| "—".to_string());
            vec![
                Cell::text(e.time.clone()),
                Cell::text(e.name.clone()),
                Cell::text(format!("{} s", fixed(e.wall_s, 1))).class("num".into()),
                Cell::text(speed(e.speedup)).class("num".into()),
                Cell::text(changed),
                Cell::code(e.command.clone()),
            ]
        })
        .collect();
    let problems: Vec<String> = report
        .problems
        .iter()
        .map(|p| format!("line {}: {}", p.line, p.message))
        .collect();
    let parts = vec![
        view! { <DataTable class="history" head=HISTORY_HEAD rows=rows caption="Benches, oldest first" /> }
            .into_any(),
        text_list("diagnostics", problems),
    ];
    report_view(parts, report.findings, report.rules)
}

#[component]
pub fn BenchPage() -> impl IntoView {
    view! { <AdvisorPage spec=&SPEC /> }
}
