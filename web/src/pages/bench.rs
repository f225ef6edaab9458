//! Bench history (`kgadvise bench --history`): paste or drop `reports/bench.jsonl` → each bench's speed-up against
//! the previous bench of the same run name and what changed between their commands.

use kgadvise_core::bench::{self, BenchHistoryRequest, HistoryReport};
use kgadvise_core::text::number::fixed;
use leptos::prelude::*;

use crate::components::example::{Example, ExampleSlot, TryExample};
use crate::components::inputs::request_error;
use crate::components::paste::{LoadedFile, PasteArea, given_text};
use crate::components::{
    Cell, DataTable, ErrorBox, FindingList, RulesUsed, UrlInput, no_submit, text_list,
};
use crate::use_url;

/// The Memo re-renders only when the answer changed.
#[derive(Debug, Clone, PartialEq)]
pub enum BenchAnswer {
    Report(Box<HistoryReport>),
    Need,
    Error(String),
}

/// Three benches of one run: a bigger batch halves the time, compiling then slows it.
pub const EXAMPLE: Example = Example {
    what: "three benches of one training run: a bigger batch, then torch.compile",
    typed: &[],
    files: &[("history", "bench/history-slower.jsonl")],
};

/// The labels of the page's controls, by request field (the URL key `name` is the request's).
const LABELS: &[(&str, &str)] = &[("history", "bench.jsonl"), ("name", "Run name")];

/// The pasted history (and an optional run name) → the report the CLI prints.
pub fn bench_answer(history: &str, name: Option<&str>) -> BenchAnswer {
    if history.trim().is_empty() {
        return BenchAnswer::Need;
    }
    let request = BenchHistoryRequest {
        history: history.to_string(),
        name: name.map(String::from),
        ..BenchHistoryRequest::default()
    };
    match bench::history(&request, crate::browser::now()) {
        Ok(r) => BenchAnswer::Report(Box::new(r)),
        Err(e) => BenchAnswer::Error(request_error(&e, LABELS)),
    }
}

fn speed(s: Option<f64>) -> String {
    s.map(|x| format!("{}x", fixed(x, 2)))
        .unwrap_or_else(|| "—".into())
}

#[component]
pub fn BenchPage() -> impl IntoView {
    let url = use_url();
    let history = RwSignal::new(String::new());
    let file = RwSignal::new(None::<LoadedFile>);
    // A file is decoded by the decoder of every input (UTF-8 or UTF-16, bad bytes replaced); each line
    // that is not a record is then listed with its number.
    let answer = Memo::new(move |_| {
        file.with(|f| {
            history.with(|h| {
                let decode = |b: &[u8]| Ok(kgadvise_core::text::decode_input(b).into_owned());
                match given_text(f, h, decode) {
                    Ok(text) => bench_answer(&text, url.value("name").as_deref()),
                    Err(e) => BenchAnswer::Error(e),
                }
            })
        })
    });
    view! {
        <section aria-labelledby="page-title">
            <h1 id="page-title">"Bench history"</h1>
            <p class="lead">
                "Change one thing, measure the speed-up. Paste or drop reports/bench.jsonl (written by "
                <code>"kgadvise bench --run ..."</code>
                ") to see each bench against the previous one of the same run name, and what changed."
            </p>
            <TryExample example=&EXAMPLE slots=vec![ExampleSlot { field: "history", text: history, file: Some(file) }] />
            <PasteArea
                id="history-paste"
                label="bench.jsonl"
                placeholder="{\"name\":\"train\",\"time\":\"2026-11-30T10:00:00Z\",\"command\":\"python train.py --bs 64\",\"wall_s\":412.5,\"exit_code\":0}"
                hint="One JSON record per line; lines that cannot be read are listed with their number."
                value=history
                file=file
                accept=".jsonl,.json,.txt,text/*"
            />
            <form class="controls" on:submit=no_submit>
                <UrlInput id="name" label="Run name (optional)" key="name" />
            </form>
            {move || match answer.get() {
                BenchAnswer::Need => view! {
                    <p class="hint" id="answer">"Paste a bench history."</p>
                }.into_any(),
                BenchAnswer::Error(e) => view! { <ErrorBox message=e /> }.into_any(),
                BenchAnswer::Report(r) => view! { <HistoryView report=*r /> }.into_any(),
            }}
        </section>
    }
}

const HISTORY_HEAD: &[&str] = &[
    "time",
    "name",
    "wall",
    "vs previous",
    "what changed",
    "command",
];

#[component]
fn HistoryView(report: HistoryReport) -> impl IntoView {
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
    view! {
        <div id="answer">
            <DataTable class="history" head=HISTORY_HEAD rows=rows caption="Benches, oldest first" />
            {text_list("diagnostics", problems)}
            <FindingList findings=report.findings.clone() />
            <RulesUsed rules=report.rules.clone() />
        </div>
    }
}
