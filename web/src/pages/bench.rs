//! Bench history (`kgadvise bench --history`): paste or drop `reports/bench.jsonl` → each bench's speed-up against
//! the previous bench of the same run name and what changed between their commands.

use kgadvise_core::bench::{self, HistoryReport};
use kgadvise_core::rulebook::Thresholds;
use leptos::prelude::*;

use crate::components::paste::{LoadedFile, PasteArea, given_text};
use crate::components::{ErrorBox, FindingList, RulesUsed, UrlInput};
use crate::use_url;

#[derive(Debug, Clone)]
pub enum BenchAnswer {
    Report(Box<HistoryReport>),
    Need,
    Error(String),
}

/// The Memo re-renders only when the answer changed; reports compare by their JSON (the wire format).
impl PartialEq for BenchAnswer {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (BenchAnswer::Report(a), BenchAnswer::Report(b)) => {
                serde_json::to_string(a.as_ref()).ok() == serde_json::to_string(b.as_ref()).ok()
            }
            (BenchAnswer::Need, BenchAnswer::Need) => true,
            (BenchAnswer::Error(a), BenchAnswer::Error(b)) => a == b,
            _ => false,
        }
    }
}

/// The pasted history (and an optional run name) → the report the CLI prints.
pub fn bench_answer(history: &str, name: Option<&str>) -> BenchAnswer {
    if history.trim().is_empty() {
        return BenchAnswer::Need;
    }
    let (records, problems) = bench::parse_history(history);
    if records.is_empty() {
        let first = problems
            .first()
            .map(|p| format!("line {}: {}", p.line, p.message))
            .unwrap_or_default();
        return BenchAnswer::Error(format!("no bench record could be read; {first}"));
    }
    let name = name.map(str::trim).filter(|n| !n.is_empty());
    BenchAnswer::Report(Box::new(bench::history(
        &records,
        problems,
        name,
        &Thresholds::defaults(),
    )))
}

fn speed(s: Option<f64>) -> String {
    s.map(|x| format!("{x:.2}x")).unwrap_or_else(|| "—".into())
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
            <PasteArea
                id="history-paste"
                label="bench.jsonl"
                placeholder="{\"name\":\"train\",\"time\":\"2026-11-30T10:00:00Z\",\"command\":\"python train.py --bs 64\",\"wall_s\":412.5,\"exit_code\":0}"
                hint="One JSON record per line; lines that cannot be read are listed with their number."
                value=history
                file=file
                accept=".jsonl,.json,.txt,text/*"
            />
            <form class="controls" on:submit=|ev| ev.prevent_default()>
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

#[component]
fn HistoryView(report: HistoryReport) -> impl IntoView {
    let rows = report
        .records
        .iter()
        .map(|e| {
            let changed = if e.changed.is_empty() {
                "—".to_string()
            } else {
                e.changed
                    .iter()
                    .map(|c| c.to_string())
                    .collect::<Vec<_>>()
                    .join("; ")
            };
            view! {
                <tr>
                    <td>{e.time.clone()}</td>
                    <td>{e.name.clone()}</td>
                    <td class="num">{format!("{:.1} s", e.wall_s)}</td>
                    <td class="num">{speed(e.speedup)}</td>
                    <td>{changed}</td>
                    <td><code>{e.command.clone()}</code></td>
                </tr>
            }
        })
        .collect_view();
    let problems = report
        .problems
        .iter()
        .map(|p| view! { <li>{format!("line {}: {}", p.line, p.message)}</li> })
        .collect_view();
    view! {
        <div id="answer">
            <table class="history">
                <caption>"Benches, oldest first"</caption>
                <thead>
                    <tr>
                        <th scope="col">"time"</th>
                        <th scope="col">"name"</th>
                        <th scope="col">"wall"</th>
                        <th scope="col">"vs previous"</th>
                        <th scope="col">"what changed"</th>
                        <th scope="col">"command"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
            <ul class="diagnostics">{problems}</ul>
            <FindingList findings=report.findings.clone() />
            <RulesUsed rules=report.rules.clone() />
        </div>
    }
}
