//! Prune a screen (`kgadvise prune`): paste or drop the baseline's learning curve and the running screen's →
//! prune, continue or too early to say, with how far the screen trails and the margin it is held to.

use kgadvise_core::stats::prune::{self, PruneReport, PruneRequest};
use kgadvise_core::text::number::fixed;
use leptos::prelude::*;

use crate::browser::now;
use crate::components::advisor::{
    AdvisorPage, AdvisorSpec, Control, Inputs, Shown, TextBox, Typed, report_view, summary, verdict,
};
use crate::components::example::Example;

/// A screen whose best-so-far trails the baseline's folds by more than their spread.
pub const EXAMPLE: Example = Example {
    what: "a screen whose learning curve trails the baseline's five folds",
    typed: &[],
    files: &[
        ("baseline", "stats/curves/baseline_folds.json"),
        ("current", "stats/curves/trailing.json"),
    ],
};

const CURVE: &str = ".json,application/json,text/*";

pub static SPEC: AdvisorSpec = AdvisorSpec {
    command: "prune",
    title: "Prune a screen",
    lead: "Should a running screen stop? Its learning curve against the accepted baseline's: kgkit's \
           `curve_fold<k>.json` ({fold, epochs, greater_is_better, points: [{epoch, score, seconds}]}). \
           Nothing leaves this page.",
    boxes: &[
        TextBox {
            field: "baseline",
            id: "baseline-paste",
            label: "Baseline: curve JSON",
            placeholder: "{\"fold\": 0, \"epochs\": 10, \"greater_is_better\": true, \"points\": [{\"epoch\": 1, \"score\": 0.71}]}",
            note: "",
            accept: CURVE,
        },
        TextBox {
            field: "current",
            id: "current-paste",
            label: "Running screen: curve JSON",
            placeholder: "",
            note: "",
            accept: CURVE,
        },
        TextBox {
            field: "folds",
            id: "folds-paste",
            label: "Baseline's fold scores (optional)",
            placeholder: "score\n0.8812\n0.8790",
            note: "",
            accept: ".csv,.txt,text/*",
        },
    ],
    typed: &[
        Typed {
            field: "margin",
            label: "Margin",
            control: Control::Text {
                numeric: true,
                placeholder: "from the baseline's folds",
            },
        },
        Typed {
            field: "minFrac",
            label: "Earliest fraction of the schedule",
            control: Control::Text {
                numeric: true,
                placeholder: "the rules' fraction",
            },
        },
    ],
    example: &EXAMPLE,
    need: "Paste or drop both curves: the baseline's and the running screen's.",
    answer,
};

/// The request `kgadvise prune` builds from its files and flags, from the page's boxes and values.
pub fn prune_request(i: &Inputs) -> Result<PruneRequest, Shown> {
    i.require(&["baseline", "current"])?;
    Ok(PruneRequest {
        baseline: i.text("baseline").to_string(),
        current: i.text("current").to_string(),
        folds: i.optional_text("folds"),
        margin: i.number("margin")?,
        min_frac: i.number("minFrac")?,
        ..PruneRequest::default()
    })
}

fn answer(i: &Inputs) -> Result<AnyView, Shown> {
    let request = prune_request(i)?;
    let report = prune::prune(&request, now()).map_err(|e| i.error(&e))?;
    Ok(prune_view(report))
}

fn prune_view(r: PruneReport) -> AnyView {
    let key = r.decision.as_str();
    // core's reason starts with its verdict ("prune: ..."): the key is shown on its own
    let sentence = r
        .reason
        .split_once(": ")
        .map_or(r.reason.as_str(), |(_, rest)| rest)
        .to_string();
    let pct = |x: f64| format!("{} %", fixed(x * 100.0, 0));
    let rows = vec![
        (
            "schedule reached",
            format!(
                "{} (epoch {} of {})",
                pct(r.fraction),
                fixed(r.epoch, 0),
                fixed(r.epochs, 0)
            ),
        ),
        ("earliest prune", pct(r.min_frac)),
        ("screen's best so far", fixed(r.current_best, 4)),
        (
            "baseline's best at the same point",
            format!(
                "{} (mean of {} folds)",
                fixed(r.baseline_best, 4),
                r.baseline_folds
            ),
        ),
        ("trails by (positive = worse)", fixed(r.trail, 4)),
        (
            "margin",
            // no margin (KS013): core's source says so ("none")
            r.margin.map_or_else(
                || r.margin_source.to_string(),
                |m| format!("{} ({})", fixed(m, 4), r.margin_source),
            ),
        ),
        (
            "better is",
            if r.greater_is_better {
                "greater"
            } else {
                "smaller"
            }
            .into(),
        ),
    ];
    let head = verdict(format!("verdict decision decision-{key}"), key, sentence);
    report_view(vec![head, summary("prune", rows)], r.findings, r.rules)
}

#[component]
pub fn PrunePage() -> impl IntoView {
    view! { <AdvisorPage spec=&SPEC /> }
}
