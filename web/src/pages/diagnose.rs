//! Diagnose a run (`kgadvise diagnose`): paste an nvidia-smi log of any format, and/or type the three bench
//! rates → verdicts fix-first with their evidence, a per-GPU table and a utilisation timeline per GPU with
//! the verdict thresholds drawn.

use kgadvise_core::nvsmi::ParseOptions;
use kgadvise_core::rulebook::Thresholds;
use kgadvise_core::verdict::{self, DiagnoseReport, GpuReport, Rates, RunInputs};
use leptos::prelude::*;

use crate::components::paste::PasteArea;
use crate::components::{ErrorBox, FindingList, RulesUsed, UrlInput};
use crate::use_url;

/// The utilisation thresholds drawn on the timelines (ids of `rules/`; values from the thresholds).
pub const TIMELINE_THRESHOLDS: &[(&str, &str)] = &[
    (
        "threshold.verdict.input-bound-util-pct",
        "input-bound below",
    ),
    ("threshold.verdict.busy-util-pct", "busy above"),
    (
        "threshold.verdict.compute-bound-util-pct",
        "compute-bound above",
    ),
];

#[derive(Debug)]
pub enum DiagnoseAnswer {
    Report(Box<DiagnoseReport>),
    Need,
    Error(String),
}

fn rate(field: &str, text: Option<&str>) -> Result<Option<f64>, String> {
    match text.map(str::trim).filter(|t| !t.is_empty()) {
        None => Ok(None),
        Some(t) => match t.replace([',', '_'], "").parse::<f64>() {
            Ok(v) if v.is_finite() && v > 0.0 => Ok(Some(v)),
            _ => Err(format!(
                "{field}: expected a positive number of samples per second, got `{t}`"
            )),
        },
    }
}

/// The pasted log and typed rates → the report `kgadvise diagnose` prints.
pub fn diagnose_answer(
    log: &str,
    data_rate: Option<&str>,
    compute_rate: Option<&str>,
    loop_rate: Option<&str>,
    interval_s: Option<&str>,
) -> DiagnoseAnswer {
    let rates = match (
        rate("data rate", data_rate),
        rate("compute rate", compute_rate),
        rate("loop rate", loop_rate),
    ) {
        (Ok(d), Ok(c), Ok(l)) => Rates {
            data_rate: d,
            compute_rate: c,
            loop_rate: l,
        },
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return DiagnoseAnswer::Error(e),
    };
    let interval = match rate("sampling interval", interval_s) {
        Ok(v) => v,
        Err(_) => {
            return DiagnoseAnswer::Error(format!(
                "sampling interval: expected a positive number of seconds, got `{}`",
                interval_s.unwrap_or("").trim()
            ));
        }
    };
    let no_rates =
        rates.data_rate.is_none() && rates.compute_rate.is_none() && rates.loop_rate.is_none();
    if log.trim().is_empty() && no_rates {
        return DiagnoseAnswer::Need;
    }
    let opts = ParseOptions {
        fields: None,
        interval_s: interval,
    };
    let inputs = RunInputs { rates, oom: false };
    DiagnoseAnswer::Report(Box::new(verdict::diagnose_text(
        log,
        opts,
        inputs,
        &Thresholds::defaults(),
    )))
}

#[component]
pub fn DiagnosePage() -> impl IntoView {
    let url = use_url();
    let log = RwSignal::new(String::new());
    let answer = Memo::new(move |_| {
        log.with(|l| {
            diagnose_answer(
                l,
                url.value("data_rate").as_deref(),
                url.value("compute_rate").as_deref(),
                url.value("loop_rate").as_deref(),
                url.value("interval_s").as_deref(),
            )
        })
        .into_view_state()
    });
    view! {
        <section aria-labelledby="page-title">
            <h1 id="page-title">"Diagnose a run"</h1>
            <p class="lead">
                "Why is the run slow, and is it wasting GPU quota? Paste an nvidia-smi log (CSV from --query-gpu, "
                "the default table, dmon, -q text or XML), or type the three bench rates. The log never leaves this page."
            </p>
            <PasteArea
                id="log-paste"
                label="nvidia-smi log"
                placeholder="timestamp, index, name, utilization.gpu [%], memory.used [MiB], ..."
                hint="Any nvidia-smi output; lines that cannot be read are listed with their line number."
                value=log
            />
            <form class="controls" on:submit=|ev| ev.prevent_default()>
                <UrlInput id="data_rate" label="Data rate (samples/s)" key="data_rate" numeric=true />
                <UrlInput id="compute_rate" label="Compute rate (samples/s)" key="compute_rate" numeric=true />
                <UrlInput id="loop_rate" label="Loop rate (samples/s)" key="loop_rate" numeric=true />
                <UrlInput
                    id="interval_s"
                    label="Sampling interval (s)"
                    key="interval_s"
                    numeric=true
                    hint="Only for logs without timestamps."
                />
            </form>
            {move || answer.get().render()}
        </section>
    }
}

/// What the page shows, cheap to clone for the Memo.
#[derive(Debug, Clone, PartialEq)]
pub enum ViewState {
    Report(Box<DiagnoseReport>),
    Need,
    Error(String),
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
        }
    }
}

fn num(v: Option<f64>, unit: &str) -> String {
    match v {
        Some(x) if x.fract() == 0.0 => format!("{x:.0}{unit}"),
        Some(x) => format!("{x:.1}{unit}"),
        None => "—".to_string(),
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
    let wasted = r.wasted_quota_hours.map(|h| {
        view! { <p class="wasted">{format!("Quota hours spent by the observed span: {h:.2} h")}</p> }
    });
    let gpus = r.gpus.clone();
    let rows = gpus
        .iter()
        .map(|g| {
            view! {
                <tr>
                    <td>{g.index}</td>
                    <td>{g.name.clone().unwrap_or_default()}</td>
                    <td>{g.samples}</td>
                    <td>{num(g.util_mean, " %")}</td>
                    <td>{num(g.util_p10, " %")}</td>
                    <td>{num(g.util_p90, " %")}</td>
                    <td>{format!("{} / {}", num(g.mem_peak_mib, ""), num(g.mem_total_mib, " MiB"))}</td>
                    <td>{num(g.power_mean_w, " W")}</td>
                </tr>
            }
        })
        .collect_view();
    let timelines = gpus
        .into_iter()
        .map(|g| view! { <Timeline gpu=g /> })
        .collect_view();
    let diagnostics = (!r.diagnostics.is_empty()).then(|| {
        view! {
            <h3>{format!("Lines not read ({} in all)", r.diagnostics_total)}</h3>
            <ul class="diagnostics">
                {r.diagnostics
                    .iter()
                    .map(|d| view! { <li>{format!("line {}: {}", d.line, d.message)}</li> })
                    .collect_view()}
            </ul>
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
                        <div class="table-wrap">
                            <table class="gpus">
                                <thead>
                                    <tr>
                                        <th scope="col">"GPU"</th>
                                        <th scope="col">"name"</th>
                                        <th scope="col">"samples"</th>
                                        <th scope="col">"util mean"</th>
                                        <th scope="col">"p10"</th>
                                        <th scope="col">"p90"</th>
                                        <th scope="col">"memory peak / total"</th>
                                        <th scope="col">"power mean"</th>
                                    </tr>
                                </thead>
                                <tbody>{rows}</tbody>
                            </table>
                        </div>
                    }
                })}
            {timelines}
            {(!notes.is_empty()).then(|| view! { <ul class="notes">{notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul> })}
            {diagnostics}
            <p class="formats">{format!("Read as: {} ({} lines)", r.formats.join(", "), r.lines)}</p>
            <RulesUsed rules=r.rules.clone() />
        </div>
    }
}

/// One GPU's utilisation over the run: an inline SVG line with the verdict thresholds as dashed lines.
#[component]
fn Timeline(gpu: GpuReport) -> impl IntoView {
    if gpu.timeline.len() < 2 {
        return ().into_any();
    }
    let (w, h, left) = (480.0, 110.0, 30.0);
    let n = gpu.timeline.len() as f64;
    let points: String = gpu
        .timeline
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let x = left + i as f64 / (n - 1.0) * (w - left - 4.0);
            let y = 5.0 + (100.0 - v.clamp(0.0, 100.0)) / 100.0 * (h - 10.0);
            format!("{x:.1},{y:.1}")
        })
        .collect::<Vec<_>>()
        .join(" ");
    let t = Thresholds::defaults();
    let lines = TIMELINE_THRESHOLDS
        .iter()
        .map(|(id, label)| {
            let v = t.get(id);
            let y = 5.0 + (100.0 - v.clamp(0.0, 100.0)) / 100.0 * (h - 10.0);
            view! {
                <line x1=left x2=w - 4.0 y1=y y2=y class="threshold"></line>
                <text x=2 y=y + 3.0 class="threshold-label">{format!("{v:.0}")}</text>
                <desc>{format!("{label} {v:.0} % ({id})")}</desc>
            }
        })
        .collect_view();
    view! {
        <figure class="timeline">
            <figcaption>
                {format!(
                    "GPU {} utilisation over the run ({} samples per point); dashed: the verdict thresholds",
                    gpu.index,
                    gpu.timeline_step_samples
                )}
            </figcaption>
            <svg viewBox=format!("0 0 {w} {h}") role="img" aria-label=format!("GPU {} utilisation timeline", gpu.index)>
                {lines}
                <polyline points=points class="util-line"></polyline>
            </svg>
        </figure>
    }
    .into_any()
}
