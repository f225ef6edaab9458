//! TPU or GPU (`kgadvise tpu`): a job's hours on a T4 x2 and the hours left → whether it finishes earlier on
//! the TPU (queue, start-up, speed-up) or on the GPU (the hours plannable now, the rest after the reset).

use kgadvise_core::quota::text as words;
use kgadvise_core::quota::tpu::{self, TpuReport, TpuRequest};
use leptos::prelude::*;

use super::quota::AS_OF;
use crate::browser::now;
use crate::components::advisor::{
    AdvisorPage, AdvisorSpec, Control, Inputs, Shown, TextBox, Typed, report_view, summary, verdict,
};
use crate::components::example::Example;

/// A long job with little GPU time left this week.
pub const EXAMPLE: Example = Example {
    what: "a 30 h job on a T4 x2 with 4 GPU hours left this week",
    typed: &[
        ("t4Hours", "30"),
        ("gpuPlannable", "4"),
        ("now", "2026-09-15T10:00:00Z"),
    ],
    files: &[],
};

pub static SPEC: AdvisorSpec = AdvisorSpec {
    command: "tpu",
    title: "TPU or GPU",
    lead: "Does a job finish earlier on the TPU or on the GPU? Its hours on a T4 x2, and the hours left: typed, \
           or read from a pasted `kaggle quota`. The TPU's queue, start-up and speed-up are the rules' facts.",
    boxes: &[TextBox {
        field: "quota",
        id: "quota-paste",
        label: "kaggle quota (optional)",
        placeholder: "resource  used   remaining  total   refreshAt\nGPU       2.42h  27.58h     30.00h  2026-09-19T00:00:00",
        note: "",
        accept: ".txt,.csv,.json,text/*",
    }],
    typed: &[
        Typed {
            field: "t4Hours",
            label: "Hours on a T4 x2",
            control: Control::number("e.g. 30"),
        },
        Typed {
            field: "gpuPlannable",
            label: "GPU hours plannable",
            control: Control::number("from the quota"),
        },
        Typed {
            field: "tpuRemaining",
            label: "TPU hours remaining",
            control: Control::number("from the quota"),
        },
        Typed {
            field: "queueHours",
            label: "TPU queue (h)",
            control: Control::number("the rules' typical wait"),
        },
        Typed {
            field: "refreshAt",
            label: "Next reset",
            control: Control::Text {
                numeric: false,
                placeholder: "from the quota",
            },
        },
        AS_OF,
    ],
    example: &EXAMPLE,
    need: "Enter the job's hours on a T4 x2.",
    answer,
};

/// The request `kgadvise tpu` builds from its flags, from the page's values and pasted quota.
pub fn tpu_request(i: &Inputs) -> Result<TpuRequest, Shown> {
    Ok(TpuRequest {
        t4_hours: i.number("t4Hours")?,
        gpu_plannable: i.number("gpuPlannable")?,
        queue_hours: i.number("queueHours")?,
        tpu_remaining: i.number("tpuRemaining")?,
        refresh_at: i.value("refreshAt").map(String::from),
        quota: i.optional_text("quota"),
        now: i.value("now").map(String::from),
        ..TpuRequest::default()
    })
}

fn answer(i: &Inputs) -> Result<AnyView, Shown> {
    if i.value("t4Hours").is_none() {
        return Err(i.need());
    }
    let request = tpu_request(i)?;
    let report = tpu::tpu(&request, now()).map_err(|e| i.error(&e))?;
    Ok(tpu_view(report))
}

fn tpu_view(r: TpuReport) -> AnyView {
    let key = r.choice.as_str();
    let head = verdict(
        format!("verdict choice choice-{key}"),
        &key.to_ascii_uppercase(),
        r.reason.clone(),
    );
    let rows = words::tpu_rows(&r);
    report_view(vec![head, summary("tpu", rows)], r.findings, r.rules)
}

#[component]
pub fn TpuPage() -> impl IntoView {
    view! { <AdvisorPage spec=&SPEC /> }
}
