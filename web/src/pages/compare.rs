//! Compare an idea with its control (`kgadvise compare`): paste or drop both out-of-fold prediction CSVs, pick the
//! metric → the decision (promote / inconclusive / discard), the gain, z, the 95 % interval and the cautions.

use kgadvise_core::stats::compare::{self, CompareReport, CompareRequest};
use kgadvise_core::stats::metrics::Metric;
use kgadvise_core::text::number::fixed;
use leptos::prelude::*;

use crate::components::advisor::{
    AdvisorPage, AdvisorSpec, Control, Inputs, Shown, TextBox, Typed, keyed_verdict, report_view,
};
use crate::components::example::Example;
use crate::components::{Cell, DataTable, text_list};

/// A regression idea whose gain clears the bar.
pub const EXAMPLE: Example = Example {
    what: "a regression idea against its control, judged on MAE",
    typed: &[("metric", "mae")],
    files: &[
        ("idea", "stats/promote_idea.csv"),
        ("control", "stats/promote_control.csv"),
    ],
};

fn metric_options() -> Vec<(String, String)> {
    Metric::ALL
        .iter()
        .map(|m| (m.as_str().to_string(), m.as_str().to_string()))
        .collect()
}

const fn predictions(field: &'static str, id: &'static str, label: &'static str) -> TextBox {
    TextBox {
        field,
        id,
        label,
        placeholder: "",
        note: "",
        accept: ".csv,.txt,text/*",
    }
}

pub static SPEC: AdvisorSpec = AdvisorSpec {
    command: "compare",
    title: "Compare an idea with its control",
    lead: "Is the gain real or noise? Paste or drop the out-of-fold predictions of both runs on the same rows \
           (columns y_true/target and the prediction; id, fold and group when you have them). Seeded: the same \
           input gives the same answer. Nothing leaves this page.",
    boxes: &[
        predictions("idea", "idea-paste", "Idea: predictions CSV"),
        predictions("control", "control-paste", "Control: predictions CSV"),
    ],
    typed: &[
        Typed {
            field: "metric",
            label: "Metric",
            control: Control::Listed {
                options: metric_options,
                any: Some("Pick a metric"),
            },
        },
        Typed {
            field: "resamples",
            label: "Bootstrap resamples",
            control: Control::number("300"),
        },
        Typed {
            field: "seed",
            label: "Seed",
            control: Control::number("42"),
        },
    ],
    example: &EXAMPLE,
    need: "Paste both prediction CSVs: the idea's and the control's.",
    answer,
};

/// The request `kgadvise compare` builds from both files and its flags (one thread in the browser; the
/// answer does not depend on the number of threads).
pub fn compare_request(i: &Inputs) -> Result<CompareRequest, Shown> {
    let Some(metric) = i.value("metric") else {
        return Err(Shown::Need("Pick the metric."));
    };
    i.require(&["idea", "control"])?;
    Ok(CompareRequest {
        idea: i.text("idea").to_string(),
        control: i.text("control").to_string(),
        metric: metric.to_string(),
        resamples: i.count("resamples")?.map(|n| n as usize),
        seed: i.count("seed")?,
        ..CompareRequest::default()
    })
}

fn answer(i: &Inputs) -> Result<AnyView, Shown> {
    let request = compare_request(i)?;
    let report = compare::compare(&request, crate::browser::now()).map_err(|e| i.error(&e))?;
    Ok(compare_view(report))
}

fn opt(v: Option<f64>) -> String {
    v.map(|x| fixed(x, 4)).unwrap_or_else(|| "—".into())
}

fn compare_view(r: CompareReport) -> AnyView {
    let decision = r.decision.as_str();
    let ci = r
        .ci95
        .map(|[lo, hi]| format!("[{}, {}]", fixed(lo, 4), fixed(hi, 4)))
        .unwrap_or_else(|| "—".into());
    let row = |head: &str, value: String, class: &str| {
        vec![Cell::head(head), Cell::text(value).class(class.to_string())]
    };
    let rows = vec![
        row(
            &format!("{} idea / control", r.metric.as_str()),
            format!("{} / {}", fixed(r.idea_score, 4), fixed(r.control_score, 4)),
            "",
        ),
        row("gain (positive = better)", fixed(r.gain, 4), "gain"),
        row("se / z", format!("{} / {}", opt(r.se), opt(r.z)), "z"),
        row("95 % interval of the gain", ci, ""),
        row("P(idea better)", opt(r.p_better), ""),
        row(
            "rows, paired by",
            format!("{} by {}", r.rows, r.paired_by),
            "",
        ),
        row(
            "folds improved",
            format!("{} of {}", r.folds_improved, r.folds.len()),
            "",
        ),
        row(
            "resamples used / seed",
            format!("{} of {} / {}", r.resamples_used, r.resamples, r.seed),
            "",
        ),
    ];
    let mut parts = vec![
        keyed_verdict(
            format!("verdict decision decision-{decision}"),
            "decision-key",
            decision,
            r.reason,
        ),
        view! { <DataTable class="compare" head=&[] rows=rows /> }.into_any(),
    ];
    if !r.cautions.is_empty() {
        parts.push(text_list("cautions", r.cautions));
    }
    report_view(parts, r.findings, r.rules)
}

#[component]
pub fn ComparePage() -> impl IntoView {
    view! { <AdvisorPage spec=&SPEC /> }
}
