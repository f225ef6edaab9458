//! `kgadvise push DIR`: the pre-flight of `check` with the runs log and the quota, the `-t` cap, and
//! what Kaggle answered (KL001-KL005, KL009, KL011). The surface calls [`push`] twice: without an answer
//! (the plan: whether to push, the client's arguments, the pending record to write before the call), then
//! with the client's answer (the record as Kaggle's answer leaves it).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::answers::{ClientAnswer, PushAnswer, read_push_answer};
use super::runs_file::{RunsFile, kernel_key};
use crate::kernel::check::{Accelerator, CheckReport, CheckRequest, check};
use crate::quota::cap::{CapRequest, cap};
use crate::quota::{RunAccelerator, read_runs_log, round2};
use crate::request::{Overrides, RequestError, now_of};
use crate::rulebook::Thresholds;
use crate::rulebook::finding::{Finding, Severity};
use crate::rulebook::ids::{RuleId, fact, rule};
use crate::rulebook::report::{Findings, Report};
use crate::rulebook::rulebook;
use crate::text::number::shortest;
use crate::text::when::rfc3339;

pub const PUSH_SCHEMA: &str = "kgadvise.push/1";

/// Findings of the pre-flight that `--force` may push past: a machine_shape kgadvise does not know
/// (Kaggle may have added it since the rules' date; KG §1).
pub const FORCIBLE: &[RuleId] = &[rule::KM007];

/// `kgadvise push`: a kernel folder's metadata and code (as `check` takes them), the runs log and the
/// quota, the cap, and (second call) the client's answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct PushRequest {
    /// The kernel folder as `check` reads it (metadata, code); its busy sessions, running kernels,
    /// quota and runs fields are filled from the runs log and the quota below.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub check: CheckRequest,
    /// kgkit's runs log (`gpu_runs.jsonl`) as text, after its runs in flight were re-checked.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub runs: String,
    /// The quota (any form `quota` reads) and when it was read.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub quota: Option<String>,
    #[cfg_attr(feature = "cli", arg(skip))]
    pub quota_read_at: Option<String>,
    /// The cap in hours: -t = these hours.
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "H", conflicts_with = "measured")
    )]
    pub hours: Option<f64>,
    /// The kernel's measured runtime in hours: -t = the cap rules' factor times it.
    #[cfg_attr(feature = "cli", arg(long, value_name = "H"))]
    pub measured: Option<f64>,
    /// The machine shape (kaggle's --accelerator), over kernel-metadata.json's machine_shape.
    #[cfg_attr(feature = "cli", arg(long, value_name = "ID"))]
    pub accelerator: Option<String>,
    /// Push past the findings that may be forced (a machine_shape kgadvise does not know yet).
    #[cfg_attr(feature = "cli", arg(long))]
    pub force: bool,
    /// What `kaggle kernels push` answered; absent: the plan before pushing.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub answer: Option<ClientAnswer>,
    #[cfg_attr(feature = "cli", arg(skip))]
    pub now: Option<String>,
    #[cfg_attr(feature = "cli", arg(skip))]
    pub set: Overrides,
}

/// The answer of `kgadvise push`.
#[derive(Debug, Clone, Serialize)]
pub struct PushReport {
    pub schema: &'static str,
    pub kernel: Option<String>,
    /// What the runs log records as the run's accelerator: the machine shape, or `none`.
    pub accelerator: String,
    /// The `-t` of the push, whole seconds.
    pub timeout_seconds: u64,
    pub cap_hours: f64,
    /// How the cap was chosen.
    pub cap_how: String,
    /// The pre-flight lets the push go (no error finding, or only forced ones).
    pub go: bool,
    /// Error findings pushed past with `--force`.
    pub forced: Vec<String>,
    /// What would unblock a refused push: the fix of each error finding.
    pub unblock: Vec<String>,
    /// The client's arguments after `kaggle kernels push -p DIR`.
    pub client_args: Vec<String>,
    pub answer: Option<PushAnswer>,
    /// The status the run is logged with (`pending` before the answer, `pushed`), null when not logged.
    pub logged: Option<String>,
    /// The logged runs in flight on the same accelerator (the slots a batch limit names).
    pub holders: Vec<String>,
    /// The pre-flight's answer.
    pub check: CheckReport,
    /// The runs log to write (the pending record before the call; the record as the answer leaves it).
    #[serde(skip)]
    pub runs_text: Option<String>,
    pub now: String,
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for PushReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }

    fn text(&self) -> String {
        super::text::push(self)
    }
}

/// The cap of the push: `-t` seconds, hours, and how it was chosen.
struct Cap {
    seconds: u64,
    hours: f64,
    how: String,
}

/// `--hours H`: H itself; `--measured H`: the cap rules' factor over it (`cap`); neither: the session
/// limit (what a push without `-t` reserves anyway, KG §1).
fn choose_cap(
    request: &PushRequest,
    accelerator: Accelerator,
    now: DateTime<Utc>,
) -> Result<Cap, RequestError> {
    let book = rulebook();
    let limit = match accelerator {
        Accelerator::Tpu => book.fact_value(fact::QUOTA_TPU_SESSION_HOURS),
        Accelerator::Cpu => book.fact_value(fact::QUOTA_CPU_SESSION_HOURS),
        Accelerator::Gpu => book.fact_value(fact::QUOTA_GPU_SESSION_HOURS),
    };
    if let Some(h) = request.hours {
        if !(h.is_finite() && h > 0.0) {
            return Err(RequestError::value(
                "hours",
                shortest(h),
                "expected a positive number of hours",
            ));
        }
        let hours = h.min(limit);
        let clipped = if h > limit {
            format!(" (clipped to the {} h session limit)", shortest(limit))
        } else {
            String::new()
        };
        return Ok(Cap {
            seconds: (hours * 3600.0).ceil() as u64,
            hours,
            how: format!("--hours {}{clipped}", shortest(h)),
        });
    }
    if let Some(m) = request.measured {
        let report = cap(
            &CapRequest {
                measured: Some(m),
                tpu: accelerator == Accelerator::Tpu,
                now: Some(rfc3339(now)),
                set: request.set.clone(),
                ..CapRequest::default()
            },
            now,
        )
        .map_err(|e| RequestError::new("measured", e.message))?;
        return Ok(Cap {
            seconds: report.timeout_seconds,
            hours: report.timeout_seconds as f64 / 3600.0,
            how: format!(
                "--measured {} h x the cap factor {} = {} h (`kgadvise cap --measured {}`)",
                shortest(m),
                shortest(report.factor),
                shortest(report.cap_hours),
                shortest(m)
            ),
        });
    }
    Ok(Cap {
        seconds: (limit * 3600.0).round() as u64,
        hours: limit,
        how: format!(
            "no --hours or --measured: the {} h session limit (a push without -t reserves it anyway; give --measured to reserve less)",
            shortest(limit)
        ),
    })
}

/// The metadata with `machine_shape` set to `shape` (`--accelerator`); unreadable metadata is left for
/// the check to report.
fn with_shape(metadata: &str, shape: &str) -> String {
    match serde_json::from_str::<Value>(metadata) {
        Ok(Value::Object(mut obj)) => {
            obj.insert("machine_shape".into(), shape.into());
            Value::Object(obj).to_string()
        }
        _ => metadata.to_string(),
    }
}

/// The runs log without the in-flight records of `kernel` (the push replaces them), and the in-flight
/// runs of the others: kernels and counts per accelerator.
struct Busy {
    runs_text: String,
    kernels: Vec<String>,
    gpu: u32,
    tpu: u32,
    cpu: u32,
    /// The other in-flight runs, described, per accelerator.
    holders: Vec<(RunAccelerator, String)>,
    /// In-flight runs of the kernel itself (replaced by the push): described, and their lines.
    replaced: Vec<String>,
    replaced_lines: Vec<usize>,
}

fn busy(runs: &str, kernel: Option<&str>, now: DateTime<Utc>, thresholds: &Thresholds) -> Busy {
    let log = read_runs_log(runs);
    let ledger = crate::quota::ledger(&log, None, now, thresholds);
    let key = kernel.map(kernel_key);
    let mut out = Busy {
        runs_text: String::new(),
        kernels: Vec::new(),
        gpu: 0,
        tpu: 0,
        cpu: 0,
        holders: Vec::new(),
        replaced: Vec::new(),
        replaced_lines: Vec::new(),
    };
    let mut drop_lines = Vec::new();
    for held in &ledger.held {
        let desc = format!("{} ({}, line {})", held.kernel, held.status, held.line);
        if Some(kernel_key(&held.kernel)) == key {
            out.replaced.push(desc);
            drop_lines.push(held.line);
            continue;
        }
        let acc = RunAccelerator::of(held.accelerator);
        match acc {
            RunAccelerator::Gpu => out.gpu += 1,
            RunAccelerator::Tpu => out.tpu += 1,
            RunAccelerator::Cpu => out.cpu += 1,
        }
        out.kernels.push(held.kernel.clone());
        out.holders.push((acc, desc));
    }
    out.runs_text = runs
        .lines()
        .enumerate()
        .filter(|(i, _)| !drop_lines.contains(&(i + 1)))
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    out.replaced_lines = drop_lines;
    out
}

/// `kgadvise push`: the plan (no answer) or the outcome (with the client's answer). Errors name the
/// request field.
pub fn push(request: &PushRequest, clock: DateTime<Utc>) -> Result<PushReport, RequestError> {
    let now = now_of(request.now.as_deref(), clock)?;
    let thresholds = request.set.thresholds()?;
    let mut check_request = request.check.clone();
    if let Some(shape) = &request.accelerator {
        check_request.metadata = with_shape(&check_request.metadata, shape);
    }
    check_request.now = Some(rfc3339(now));
    check_request.set = request.set.clone();
    let first = check(&check_request, now)?;
    let busy = busy(&request.runs, first.id.as_deref(), now, &thresholds);
    let cap = choose_cap(request, first.accelerator, now)?;
    check_request.running_gpu = Some(busy.gpu);
    check_request.running_tpu = Some(busy.tpu);
    check_request.running_cpu = Some(busy.cpu);
    check_request.running_kernels = busy.kernels.clone();
    check_request.runs = request.quota.as_ref().map(|_| busy.runs_text.clone());
    check_request.quota = request.quota.clone();
    check_request.quota_read_at = request.quota_read_at.clone();
    check_request.timeout_seconds = Some(cap.seconds);
    let checked = check(&check_request, now)?;
    Ok(outcome(request, checked, busy, cap, now, &thresholds))
}

/// The report from the check, the cap and (when given) the answer.
fn outcome(
    request: &PushRequest,
    checked: CheckReport,
    busy: Busy,
    cap: Cap,
    now: DateTime<Utc>,
    thresholds: &Thresholds,
) -> PushReport {
    let mut out = Findings::new();
    let errors: Vec<&Finding> = checked
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .collect();
    let forcible = |f: &&&Finding| FORCIBLE.iter().any(|r| r.as_str() == f.rule);
    let forced: Vec<String> = if request.force {
        errors
            .iter()
            .filter(forcible)
            .map(|f| f.rule.clone())
            .collect()
    } else {
        Vec::new()
    };
    let blocking: Vec<&&Finding> = errors
        .iter()
        .filter(|f| !forced.contains(&f.rule))
        .collect();
    let go = blocking.is_empty();
    if go && !forced.is_empty() {
        out.add(rule::KL009, format!("forced past {}", forced.join(", ")));
    }
    let accelerator = match checked.accelerator {
        Accelerator::Cpu => "none".to_string(),
        _ => checked
            .machine_shape
            .clone()
            .or_else(|| checked.requested_machine_shape.clone())
            .unwrap_or_else(|| checked.accelerator.as_str().to_string()),
    };
    let mut args = vec!["-t".to_string(), cap.seconds.to_string()];
    if let Some(shape) = &request.accelerator {
        args.extend(["--accelerator".to_string(), shape.clone()]);
    }
    let run_acc = RunAccelerator::of(&accelerator);
    let holders: Vec<String> = busy
        .holders
        .iter()
        .filter(|(a, _)| *a == run_acc)
        .map(|(_, d)| d.clone())
        .collect();
    let mut report = PushReport {
        schema: PUSH_SCHEMA,
        kernel: checked.id.clone(),
        accelerator,
        timeout_seconds: cap.seconds,
        cap_hours: round2(cap.hours),
        cap_how: cap.how,
        go,
        forced,
        unblock: blocking
            .iter()
            .map(|f| format!("{}: {}", f.rule, f.fix))
            .collect(),
        client_args: args,
        answer: None,
        logged: None,
        holders,
        check: checked,
        runs_text: None,
        now: rfc3339(now),
        rules: Vec::new(),
        findings: Vec::new(),
    };
    if go {
        log_the_push(request, &mut report, &busy, now, &mut out);
    }
    let closed = out.finish(now.date_naive(), thresholds);
    let mut findings = report.check.findings.clone();
    for f in findings
        .iter_mut()
        .filter(|f| report.forced.contains(&f.rule))
    {
        f.severity = Severity::Warning;
    }
    findings.extend(closed.findings);
    crate::text::sort::sort_by_key(&mut findings, |f| f.severity);
    let mut rules: Vec<String> = report
        .check
        .rules
        .iter()
        .cloned()
        .chain(closed.rules)
        .collect();
    crate::text::sort::sort(&mut rules);
    rules.dedup();
    report.rules = rules;
    report.findings = findings;
    report
}

/// The record of the push: pending before the answer; then pushed (with its version), kept pending
/// when no answer arrived, or dropped when Kaggle refused it; each refusal a finding.
fn log_the_push(
    request: &PushRequest,
    report: &mut PushReport,
    busy: &Busy,
    now: DateTime<Utc>,
    out: &mut Findings,
) {
    let Some(kernel) = report.kernel.clone() else {
        return;
    };
    let mut file = RunsFile::read(&request.runs);
    let mut record = Map::new();
    record.insert("kernel".into(), kernel.clone().into());
    record.insert(
        "name".into(),
        kernel.rsplit('/').next().unwrap_or_default().into(),
    );
    record.insert("accelerator".into(), report.accelerator.clone().into());
    record.insert("hours".into(), Value::from(report.cap_hours));
    record.insert("pushed_at".into(), rfc3339(now).into());
    record.insert("status".into(), "pending".into());
    record.insert("pushed_by".into(), "kgadvise".into());
    let Some(client) = &request.answer else {
        file.append(record);
        report.logged = Some("pending".into());
        report.runs_text = Some(file.text());
        return;
    };
    let answer = read_push_answer(client);
    answer_findings(&answer, report, out);
    match &answer {
        PushAnswer::Pushed { version, .. } => {
            if let Some(v) = version {
                record.insert("version".into(), Value::from(*v));
            }
            record.insert("status".into(), "pushed".into());
            for old in &busy.replaced {
                out.add(
                    rule::KL011,
                    format!("{kernel} pushed again: replaces {old}"),
                );
            }
            end_replaced(&mut file, &busy.replaced_lines, now);
        }
        PushAnswer::NoAnswer => {
            out.add(
                rule::KL004,
                format!(
                    "{kernel}: no answer from `kaggle kernels push`; logged pending, holding its whole cap of {} h",
                    shortest(report.cap_hours)
                ),
            );
        }
        _ => {
            report.answer = Some(answer);
            report.runs_text = Some(file.text());
            return;
        }
    }
    report.logged = Some(str_field(&record, "status"));
    file.append(record);
    report.answer = Some(answer);
    report.runs_text = Some(file.text());
}

/// The runs a new version replaces end at the push (Kaggle ends a kernel's session still in flight when a
/// newer version runs): a started one `cancelled` with the hours it ran (push to end, at most its cap); a
/// pending one, never seen to start, `replaced` with none.
fn end_replaced(file: &mut RunsFile, lines: &[usize], now: DateTime<Utc>) {
    for line in lines {
        let Some(record) = file.line_mut(*line) else {
            continue;
        };
        if record.get("status").and_then(Value::as_str) == Some("pending") {
            record.insert("status".into(), "replaced".into());
            record.insert("finished_at".into(), rfc3339(now).into());
        } else {
            super::runs_file::record_status(record, "cancelled", now, true, None);
        }
        record.insert("replaced_at".into(), rfc3339(now).into());
    }
}

fn str_field(record: &Map<String, Value>, key: &str) -> String {
    record
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// KL001-KL003, KL005, KL006: a refusal or a failure, in Kaggle's words.
fn answer_findings(answer: &PushAnswer, report: &PushReport, out: &mut Findings) {
    match answer {
        PushAnswer::BatchLimit {
            accelerator,
            sessions,
        } => {
            let elsewhere = "sessions started elsewhere (the website, another machine)";
            let unlogged = (*sessions as usize).saturating_sub(report.holders.len());
            let holding = match (report.holders.is_empty(), unlogged) {
                (true, _) => format!("no run of the log holds one: {elsewhere} do"),
                (false, 0) => format!("held by {}", report.holders.join(", ")),
                (false, n) => format!(
                    "held by {} and {n} not in the log: {elsewhere}",
                    report.holders.join(", ")
                ),
            };
            out.add(
                rule::KL001,
                format!(
                    "Kaggle: Maximum batch {accelerator} session count of {sessions} reached; {holding}; nothing logged"
                ),
            );
        }
        PushAnswer::BadRequest { message } => out.add(
            rule::KL002,
            format!(
                "{message}; machine_shape {}, code file {}",
                report
                    .check
                    .requested_machine_shape
                    .as_deref()
                    .unwrap_or("none"),
                report
                    .check
                    .code_file_bytes
                    .map(|b| format!("{b} bytes"))
                    .unwrap_or_else(|| "not sized".into())
            ),
        ),
        PushAnswer::WeeklyQuota { accelerator, hours } => out.add(
            rule::KL003,
            format!(
                "Kaggle: Maximum weekly {accelerator} quota of {} hours reached",
                crate::text::number::fixed(*hours, 2)
            ),
        ),
        PushAnswer::Refused { message } => out.add(rule::KL005, format!("Kaggle: {message}")),
        PushAnswer::Failed { message } => {
            out.add(rule::KL006, format!("kaggle kernels push: {message}"))
        }
        PushAnswer::Pushed { .. } | PushAnswer::NoAnswer => {}
    }
}
