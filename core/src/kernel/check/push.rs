//! The push itself: its code file, what is still running, its quota and cap, the internet of a code
//! competition, weights downloaded at run time (each function's doc names its rule).

use super::{Accelerator, CheckRun, CodeFile, GpuFigure};
use crate::kernel::code;
use crate::rulebook::finding::Finding;
use crate::rulebook::ids::{FactId, fact, rule};
use crate::rulebook::report::Findings;
use crate::rulebook::rulebook;
use crate::text::number::{fixed, shortest};

fn fact_value(id: FactId) -> f64 {
    rulebook().fact_value(id)
}

/// KM024: a Windows path in `code_file`.
pub(super) fn backslash_code_file(run: &CheckRun, out: &mut Findings) {
    if let Some(cf) = &run.meta.code_file
        && cf.contains('\\')
    {
        out.add(
            rule::KM024,
            format!("code_file = \"{cf}\"; write \"{}\"", cf.replace('\\', "/")),
        );
    }
}

/// KM016: no file where `code_file` resolves.
pub(super) fn missing_code_file(run: &CheckRun, out: &mut Findings) {
    if let CodeFile::Missing { resolved } = run.code {
        out.add(
            rule::KM016,
            format!(
                "code_file \"{}\" resolves to {resolved}, which does not exist",
                run.code_file_name()
            ),
        );
    }
}

/// KM027: an empty or blank code file.
pub(super) fn blank_code_file(run: &CheckRun, out: &mut Findings) {
    let CodeFile::Present { text, bytes } = run.code else {
        return;
    };
    if text.bytes().all(|b| b.is_ascii_whitespace()) {
        out.add(
            rule::KM027,
            format!(
                "code_file \"{}\" is {bytes} bytes{}",
                run.code_file_name(),
                if bytes > 0 { ", all blank" } else { "" }
            ),
        );
    }
}

/// KM017: the code file as `kaggle kernels push` sends it is at or over Kaggle's size limit (a notebook
/// is sent without its code cells' outputs).
pub(super) fn big_code_file(run: &CheckRun, out: &mut Findings) {
    let Some(a) = &run.analysis else { return };
    let limit = fact_value(fact::KERNEL_CODE_FILE_MAX_BYTES);
    out.uses(fact::KERNEL_CODE_FILE_MAX_BYTES);
    let sent = a.sent_bytes.unwrap_or(a.bytes);
    if (sent as f64) < limit {
        return;
    }
    let parts = biggest_parts(a);
    let ev = if a.notebook {
        format!(
            "{sent} bytes sent >= {limit} bytes, outputs cleared as kaggle kernels push clears them ({} bytes on disk: {} cells, {} outputs of {} bytes, {} embedded images of {} bytes; pasted images in markdown stay). Biggest: {}",
            a.bytes,
            a.cells,
            a.outputs,
            a.output_bytes,
            a.embedded_images,
            a.image_bytes,
            if parts.is_empty() { "-".into() } else { parts },
            limit = shortest(limit)
        )
    } else {
        format!(
            "{} bytes >= {limit} bytes; {}",
            a.bytes,
            if parts.is_empty() {
                "no single long line: the code itself is big".into()
            } else {
                format!("longest lines: {parts}")
            },
            limit = shortest(limit)
        )
    };
    out.add(rule::KM017, ev);
}

/// The biggest parts of the code file, for evidence.
fn biggest_parts(a: &code::CodeAnalysis) -> String {
    a.biggest
        .iter()
        .map(|p| format!("{} {} bytes: {}", p.part, p.bytes, p.what))
        .collect::<Vec<_>>()
        .join("; ")
}

/// KM031: a notebook of 1 MB or more on disk that `kaggle kernels push` sends under the limit once its
/// outputs are cleared; kgkit's push stops before sending it.
pub(super) fn notebook_big_with_outputs(run: &CheckRun, out: &mut Findings) {
    let Some(a) = &run.analysis else { return };
    let Some(sent) = a.sent_bytes else { return };
    let limit = fact_value(fact::KERNEL_CODE_FILE_MAX_BYTES);
    if (a.bytes as f64) < limit || (sent as f64) >= limit {
        return;
    }
    out.add(
        rule::KM031,
        format!(
            "{} bytes on disk >= {} bytes, {} of them in {} outputs; kaggle kernels push sends {sent} bytes without the outputs",
            a.bytes,
            shortest(limit),
            a.output_bytes,
            a.outputs
        ),
    );
}

/// A `kernel_sources` entry or a running kernel as (owner/slug lower-cased, pinned version).
fn kernel_ref(s: &str) -> (String, Option<&str>) {
    let mut parts = s.trim().splitn(3, '/');
    let slug = [parts.next(), parts.next()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join("/")
        .to_ascii_lowercase();
    let version = parts
        .next()
        .map(str::trim)
        .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()));
    (slug, version)
}

/// KM018: a kernel source whose output is bound while it is still being produced: an unpinned source
/// whose kernel runs, or a pinned version that is itself the one running (a running kernel named with
/// its version).
pub(super) fn source_still_running(run: &CheckRun, out: &mut Findings) {
    for src in &run.meta.kernel_sources {
        let (slug, pinned) = kernel_ref(src);
        let running = run
            .running_kernels
            .iter()
            .map(|r| kernel_ref(r))
            .any(|(s, v)| {
                s == slug
                    && match pinned {
                        None => true,
                        Some(p) => v == Some(p),
                    }
            });
        if running {
            out.add(
                rule::KM018,
                format!("kernel_sources \"{src}\" is queued or running; its output is bound when this kernel is pushed"),
            );
        }
    }
}

/// KM030: a pinned kernel source whose kernel runs another version: the pinned version's output is
/// bound, not the run's.
pub(super) fn pinned_source_while_running(run: &CheckRun, out: &mut Findings) {
    for src in &run.meta.kernel_sources {
        let (slug, Some(pinned)) = kernel_ref(src) else {
            continue;
        };
        let Some(other) = run
            .running_kernels
            .iter()
            .find(|r| matches!(kernel_ref(r), (s, v) if s == slug && v != Some(pinned)))
        else {
            continue;
        };
        out.add(
            rule::KM030,
            format!(
                "kernel_sources \"{src}\" is pinned to version {pinned} while \"{other}\" is queued or running: version {pinned}'s output is bound, not the run's"
            ),
        );
    }
}

/// KM019: the account's batch sessions of the push's accelerator at Kaggle's limit.
pub(super) fn concurrency_limit(run: &CheckRun, out: &mut Findings) {
    let (running, limit_id, what) = match run.accelerator {
        Accelerator::Gpu => (run.running_gpu, fact::KERNEL_MAX_BATCH_GPU_SESSIONS, "GPU"),
        Accelerator::Tpu => (run.running_tpu, fact::KERNEL_MAX_BATCH_TPU_SESSIONS, "TPU"),
        Accelerator::Cpu => (run.running_cpu, fact::KERNEL_MAX_BATCH_CPU_SESSIONS, "CPU"),
    };
    let Some(n) = running else { return };
    out.uses(limit_id);
    let limit = fact_value(limit_id);
    if f64::from(n) >= limit {
        out.add(
            rule::KM019,
            format!(
                "{n} batch {what} sessions running, limit {limit}: the push would print \"Maximum batch {what} session count of {limit} reached.\" and exit 0",
                limit = shortest(limit)
            ),
        );
    }
}

/// The session limit of an accelerator push (None for CPU: no accelerator quota).
fn session_limit(run: &CheckRun) -> Option<(FactId, f64)> {
    let id = match run.accelerator {
        Accelerator::Gpu => fact::QUOTA_GPU_SESSION_HOURS,
        Accelerator::Tpu => fact::QUOTA_TPU_SESSION_HOURS,
        Accelerator::Cpu => return None,
    };
    Some((id, fact_value(id)))
}

/// KM020: fewer plannable hours than the push's cap (or its whole session without one).
pub(super) fn quota_below_cap(run: &CheckRun, out: &mut Findings) {
    let Some((session_id, session_h)) = session_limit(run) else {
        return;
    };
    out.uses(session_id);
    let cap_h = run
        .timeout_seconds
        .map(|s| (s as f64 / 3600.0).min(session_h))
        .unwrap_or(session_h);
    let plannable = match run.accelerator {
        Accelerator::Tpu => run.plannable_tpu,
        _ => run.plannable_gpu,
    };
    let Some(plannable) = plannable.filter(|p| *p < cap_h) else {
        return;
    };
    let cap_txt = match run.timeout_seconds {
        Some(s) if s as f64 / 3600.0 > session_h => format!(
            "the cap -t {s} s, cut to the {} h session limit",
            shortest(session_h)
        ),
        Some(s) => format!("the cap -t {s} s = {} h", fixed(s as f64 / 3600.0, 2)),
        None => format!("no -t cap, so the whole {} h session", shortest(session_h)),
    };
    out.add(
        rule::KM020,
        format!(
            "plannable {} quota {} h < {cap_txt}",
            run.accelerator.as_str().to_ascii_uppercase(),
            fixed(plannable, 2)
        ),
    );
}

/// KQ001: the quota reading the cap is judged on is not live: an accelerator push commits hours on it.
pub(super) fn quota_reading_not_live(run: &CheckRun, out: &mut Findings) {
    if run.accelerator == Accelerator::Cpu {
        return;
    }
    if let Some(finding) = &run.quota_not_live {
        out.push(finding.clone());
    }
}

/// KM028: a TPU push with quota hours given for the GPU only: its cap is not judged on them.
pub(super) fn tpu_quota_unknown(run: &CheckRun, out: &mut Findings) {
    if run.accelerator != Accelerator::Tpu || run.plannable_tpu.is_some() {
        return;
    }
    let Some(figure) = run.gpu_figure else { return };
    out.uses(fact::QUOTA_TPU_WEEKLY_HOURS);
    let given = match figure {
        GpuFigure::Plannable(h) => format!("plannable {} h is GPU hours", fixed(h, 2)),
        GpuFigure::Reading => "the quota reading has GPU hours and no TPU row".to_string(),
    };
    out.add(
        rule::KM028,
        format!(
            "a TPU push; {given}: the TPU quota ({} h a week) is separate, so the cap is not checked against it",
            shortest(fact_value(fact::QUOTA_TPU_WEEKLY_HOURS))
        ),
    );
}

/// KM021: an accelerator push without a `-t` cap.
pub(super) fn no_cap(run: &CheckRun, out: &mut Findings) {
    let Some((session_id, session_h)) = session_limit(run) else {
        return;
    };
    out.uses(session_id);
    if run.timeout_seconds.is_none() {
        out.add(
            rule::KM021,
            format!(
                "no -t cap given: the {} push reserves the full {} h session until it is seen finished",
                run.accelerator.as_str().to_ascii_uppercase(),
                shortest(session_h)
            ),
        );
    }
}

/// KM032: a `-t` cap longer than the session limit of the push's machine (CPU included): the session
/// ends at the limit whatever the cap says.
pub(super) fn cap_past_session_limit(run: &CheckRun, out: &mut Findings) {
    let Some(s) = run.timeout_seconds else { return };
    let id = match run.accelerator {
        Accelerator::Gpu => fact::QUOTA_GPU_SESSION_HOURS,
        Accelerator::Tpu => fact::QUOTA_TPU_SESSION_HOURS,
        Accelerator::Cpu => fact::QUOTA_CPU_SESSION_HOURS,
    };
    let limit_h = fact_value(id);
    let cap_h = s as f64 / 3600.0;
    if cap_h <= limit_h {
        return;
    }
    out.uses(id);
    out.add(
        rule::KM032,
        format!(
            "-t {s} s = {} h > the {} session limit {} h: the session ends at {} h (-t {})",
            fixed(cap_h, 2),
            run.accelerator.as_str().to_ascii_uppercase(),
            shortest(limit_h),
            shortest(limit_h),
            (limit_h * 3600.0).round() as u64
        ),
    );
}

/// KM023: internet on (or absent, which Kaggle's CLI reads as on) in a code competition.
pub(super) fn internet_in_code_competition(run: &CheckRun, out: &mut Findings) {
    if !run.code_competition
        || run.meta.enable_internet == Some(false)
        || run.is_bad("enable_internet")
    {
        return;
    }
    let ev = match run.meta.enable_internet {
        Some(_) => "enable_internet is true in a code competition",
        None => {
            "enable_internet is absent, which Kaggle's CLI reads as true, in a code competition"
        }
    };
    out.add(rule::KM023, ev);
}

/// How many downloading lines a finding quotes.
const DOWNLOADS_NAMED: usize = 3;

/// KM029: the code downloads weights (or another kernel's output) at run time; a warning when internet
/// is off, where the download fails.
pub(super) fn downloads_weights(run: &CheckRun, out: &mut Findings) {
    let CodeFile::Present { text, .. } = run.code else {
        return;
    };
    let found = code::downloads(text);
    if found.is_empty() {
        return;
    }
    let mut ev = found
        .iter()
        .take(DOWNLOADS_NAMED)
        .map(|d| format!("{}: {}", d.part, d.line))
        .collect::<Vec<_>>()
        .join("; ");
    if found.len() > DOWNLOADS_NAMED {
        ev.push_str(&format!(" (and {} more)", found.len() - DOWNLOADS_NAMED));
    }
    if run.meta.enable_internet == Some(false) {
        out.push(Finding::from_rule(
            rule::KM051,
            format!("{ev}; enable_internet is false"),
        ));
    } else {
        out.add(rule::KM029, ev);
    }
}

/// KM033: a GPU or TPU push is smoke-tested locally first (KG §3 (1)). An info finding on every such
/// check: kgadvise cannot see whether the smoke run was made, and a CPU push spends no accelerator quota.
pub(super) fn smoke_first(run: &CheckRun, out: &mut Findings) {
    if run.accelerator == Accelerator::Cpu {
        return;
    }
    out.add(
        rule::KM033,
        format!(
            "a {} push: a crash found on Kaggle costs its start-up and the quota until it fails",
            run.accelerator.as_str().to_ascii_uppercase()
        ),
    );
}
