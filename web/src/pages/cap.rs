//! Session cap (`kgadvise cap`): a measured kernel, or the cost per fold and the folds of a full CV → the
//! `-t` of `kaggle kernels push` and the sessions the run needs.

use kgadvise_core::quota::cap::{self, CapReport, CapRequest};
use kgadvise_core::text::number::shortest;
use leptos::prelude::*;

use crate::browser::now;
use crate::components::advisor::{
    AdvisorPage, AdvisorSpec, Control, Inputs, Shown, Typed, report_view, summary,
};
use crate::components::example::Example;

/// A full CV whose cap needs more than one session.
pub const EXAMPLE: Example = Example {
    what: "a full CV of 7 folds of 4 h each on the GPUs of a T4 x2",
    typed: &[("foldHours", "4"), ("folds", "7")],
    files: &[],
};

pub static SPEC: AdvisorSpec = AdvisorSpec {
    command: "cap",
    title: "Session cap",
    lead: "How long may a push run? Give the measured hours of a kernel of your own, or the hours of one fold \
           and the folds of a full CV: the `-t` of `kaggle kernels push` and the sessions the run needs.",
    boxes: &[],
    typed: &[
        Typed {
            field: "measured",
            label: "Measured runtime (h)",
            control: Control::number("e.g. 3.5"),
        },
        Typed {
            field: "foldHours",
            label: "Hours per fold",
            control: Control::number("e.g. 1.5"),
        },
        Typed {
            field: "folds",
            label: "Folds",
            control: Control::number("e.g. 5"),
        },
        Typed {
            field: "gpus",
            label: "GPUs running folds",
            control: Control::number("those of a T4 x2"),
        },
        Typed {
            field: "tpu",
            label: "Session",
            control: Control::Select {
                options: &[("true", "TPU")],
                any: "GPU or CPU",
            },
        },
        Typed {
            field: "factor",
            label: "Cap factor",
            control: Control::number("the rules' factor"),
        },
    ],
    example: &EXAMPLE,
    need: "Enter the measured hours of a kernel, or the hours per fold and the folds of a full CV.",
    answer,
};

/// The request `kgadvise cap` builds from its flags, from the page's typed values.
pub fn cap_request(i: &Inputs) -> Result<CapRequest, Shown> {
    let tpu = match i.value("tpu") {
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => {
            return Err(Shown::Error(format!(
                "{}: expected TPU or GPU, got `{other}`",
                i.label("tpu")
            )));
        }
    };
    Ok(CapRequest {
        measured: i.number("measured")?,
        fold_hours: i.number("foldHours")?,
        folds: i.count_u32("folds")?,
        gpus: i.count_u32("gpus")?,
        tpu,
        factor: i.number("factor")?,
        ..CapRequest::default()
    })
}

fn answer(i: &Inputs) -> Result<AnyView, Shown> {
    if i.nothing_typed() {
        return Err(i.need());
    }
    let request = cap_request(i)?;
    let report = cap::cap(&request, now()).map_err(|e| i.error(&e))?;
    Ok(cap_view(report))
}

fn cap_view(r: CapReport) -> AnyView {
    let headline = view! {
        <p class="verdict cap">
            "-t "
            <span class="verdict-key timeout">{r.timeout_seconds.to_string()}</span>
            {format!(" s — a cap of {} h", shortest(r.cap_hours))}
        </p>
    }
    .into_any();
    let rows = vec![
        ("run", format!("{} on {}", r.kind, r.accelerator)),
        ("estimate", format!("{} h", shortest(r.estimate_hours))),
        ("factor", shortest(r.factor)),
        ("cap", format!("{} h", shortest(r.cap_hours))),
        ("-t of one push", format!("{} s", r.timeout_seconds)),
        ("whole cap", format!("{} s", r.total_timeout_seconds)),
        (
            "session limit",
            format!("{} h", shortest(r.session_limit_hours)),
        ),
        ("sessions", r.sessions.to_string()),
        ("GPUs running folds", r.gpus.to_string()),
    ];
    report_view(vec![headline, summary("cap", rows)], r.findings, r.rules)
}

#[component]
pub fn CapPage() -> impl IntoView {
    view! { <AdvisorPage spec=&SPEC /> }
}
