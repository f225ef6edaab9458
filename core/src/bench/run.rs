//! `kgadvise bench --run ...`: what the adapter measured (wall times, exit codes, nvidia-smi's output
//! while each command ran, the rates it printed) → speed-ups against the first run and the previous bench
//! of the same name, what changed, each run's diagnosis, and the findings. Running the commands and
//! sampling the GPUs is the adapter's IO; everything decided about them is here. [`bench`] is the entry
//! point: a [`BenchRequest`] in, a [`BenchReport`] out.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{
    BenchRecord, Change, Device, Rates, changed_settings, default_name, describe_changes,
    device_of, how_it_ended, is_device_change, parse_history, speedup,
};
use crate::diagnose::DiagnoseRequest;
use crate::diagnose::verdict::{DiagnoseReport, GpuReport};
use crate::request::{Overrides, RequestError, now_of};
use crate::rulebook::Thresholds;
use crate::rulebook::finding::Finding;
use crate::rulebook::ids::{EntryId, rule, threshold};
use crate::rulebook::report::{Findings, Report};
use crate::text::number::{fixed, shortest};

pub const BENCH_SCHEMA: &str = "kgadvise.bench/1";

/// `kgadvise bench --run ...` once the commands have run: what was measured, to compare and diagnose.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct BenchRequest {
    /// The benched commands as they ran, in order; each later run is compared with the first.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub run: Vec<MeasuredRun>,
    /// Run name: benches of the same name are compared (default: the first command's script name).
    #[cfg_attr(feature = "cli", arg(long))]
    pub name: Option<String>,
    /// Data-only rate (samples/s), for a run whose command printed no KGADVISE_RATES line.
    #[cfg_attr(feature = "cli", arg(long, value_name = "R"))]
    pub data_rate: Option<f64>,
    /// Compute-only rate (samples/s), likewise.
    #[cfg_attr(feature = "cli", arg(long, value_name = "R"))]
    pub compute_rate: Option<f64>,
    /// Real-loop rate (samples/s), likewise.
    #[cfg_attr(feature = "cli", arg(long, value_name = "R"))]
    pub loop_rate: Option<f64>,
    /// The bench history so far (JSON lines, as `bench-history` reads it): the first run is compared
    /// with the latest bench of the same name. Lines that cannot be read are passed over.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub history: String,
    /// The time of the answer (RFC 3339 or a date; default: the caller's clock).
    #[cfg_attr(feature = "schema", schemars(extend("x-time" = true)))]
    #[cfg_attr(feature = "cli", arg(skip))]
    pub now: Option<String>,
    /// Threshold overrides.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub set: Overrides,
}

/// One command as it ran.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct MeasuredRun {
    /// The command line, as the shell ran it.
    pub command: String,
    /// Its wall time in seconds.
    pub wall_seconds: f64,
    /// Its exit status; null when a signal ended it.
    pub exit_code: Option<i32>,
    /// Stopped by an interrupt (Ctrl-C).
    pub interrupted: bool,
    /// What nvidia-smi printed while the command ran (its CSV query output); null when nvidia-smi could
    /// not run.
    pub nvidia_smi: Option<String>,
    /// The rates the command printed in a `KGADVISE_RATES data=… compute=… loop=…` line.
    pub rates: Option<Rates>,
}

/// One run of a bench, as reported.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BenchRun {
    pub command: String,
    pub wall_s: f64,
    pub exit_code: Option<i32>,
    pub interrupted: bool,
    /// Against the first run of this bench (>1 = faster).
    pub speedup: Option<f64>,
    pub gpus: Vec<GpuReport>,
    pub verdicts: Vec<&'static str>,
    pub wasted_quota_hours: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rates: Option<Rates>,
    /// Settings that differ from the first run.
    pub changed: Vec<Change>,
}

/// The same command run on the CPU and on the GPU in one bench (KB005): the GPU run's speed-up.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GpuVsCpu {
    /// The CPU run (1-based, as the runs are numbered in the answer).
    pub cpu_run: usize,
    /// The GPU run: the command that differs from the CPU run only in device settings.
    pub gpu_run: usize,
    /// The CPU run's wall time over the GPU run's (>1 = the GPU is faster).
    pub speedup: f64,
}

/// `kgadvise bench --run ...`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BenchReport {
    pub schema: &'static str,
    pub name: String,
    /// Whether nvidia-smi sampled the GPUs while the commands ran.
    pub gpu_sampled: bool,
    pub runs: Vec<BenchRun>,
    /// Speed-up of the first run against the previous bench of the same name in the history, if any.
    pub speedup_vs_previous: Option<f64>,
    pub changed_vs_previous: Vec<Change>,
    /// The same command on the CPU and on the GPU, when the bench holds such a pair; else null.
    pub gpu_vs_cpu: Option<GpuVsCpu>,
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for BenchReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }

    fn text(&self) -> String {
        super::text::bench(self)
    }
}

/// The rates given by the request (for commands that print none), checked.
fn given_rates(request: &BenchRequest) -> Result<Rates, RequestError> {
    for (field, v) in [
        ("dataRate", request.data_rate),
        ("computeRate", request.compute_rate),
        ("loopRate", request.loop_rate),
    ] {
        if let Some(x) = v
            && !(x.is_finite() && x > 0.0)
        {
            return Err(RequestError::value(
                field,
                shortest(x),
                "expected a positive rate in samples/s",
            ));
        }
    }
    Ok(Rates {
        data: request.data_rate,
        compute: request.compute_rate,
        real_loop: request.loop_rate,
    })
}

/// Checks what can be checked before anything runs (the rates and the commands) and gives the run name.
/// The adapter calls it before running the commands; [`bench`] checks the same again.
pub fn run_name(request: &BenchRequest) -> Result<String, RequestError> {
    given_rates(request)?;
    let Some(first) = request.run.first() else {
        return Err(RequestError::new("run", "expected a command to run"));
    };
    if let Some(bad) = request.run.iter().find(|r| r.command.trim().is_empty()) {
        return Err(RequestError::value(
            "run",
            format!("{:?}", bad.command),
            "expected a command to run",
        ));
    }
    if let Some(bad) = request
        .run
        .iter()
        .find(|r| !(r.wall_seconds.is_finite() && r.wall_seconds >= 0.0))
    {
        return Err(RequestError::value(
            "run",
            format!("{:?}", bad.command),
            format!(
                "a wall time of {} s; expected seconds ≥ 0",
                shortest(bad.wall_seconds)
            ),
        ));
    }
    Ok(match request.name.as_deref().map(str::trim) {
        Some(name) if !name.is_empty() => name.to_string(),
        _ => default_name(&first.command),
    })
}

/// The diagnosis of what nvidia-smi printed while a command ran, and of its rates; None when there was
/// neither a sample nor a rate. It is the diagnose advisor's answer for the same log and rates.
fn diagnosis(
    run: &MeasuredRun,
    rates: Option<Rates>,
    request: &BenchRequest,
    clock: DateTime<Utc>,
) -> Result<Option<DiagnoseReport>, RequestError> {
    let samples = run.nvidia_smi.as_deref().unwrap_or("");
    if samples.is_empty() && rates.is_none() {
        return Ok(None);
    }
    // A KGADVISE_RATES line may say 0 for a rate it did not measure; diagnose takes positive rates.
    let positive = |r: Option<f64>| r.filter(|x| *x > 0.0);
    let diagnose = DiagnoseRequest {
        log: Some(samples.to_string()),
        data_rate: positive(rates.and_then(|r| r.data)),
        compute_rate: positive(rates.and_then(|r| r.compute)),
        loop_rate: positive(rates.and_then(|r| r.real_loop)),
        now: request.now.clone(),
        set: request.set.clone(),
        ..DiagnoseRequest::default()
    };
    crate::diagnose::diagnose(&diagnose, clock).map(Some)
}

/// One measured run with its rates and diagnosis.
struct Diagnosed<'a> {
    run: &'a MeasuredRun,
    rates: Option<Rates>,
    diagnosis: Option<DiagnoseReport>,
}

/// The measured runs, their diagnoses and the previous bench: what every bench rule reads.
struct MeasuredBench<'a> {
    name: String,
    runs: Vec<Diagnosed<'a>>,
    gpu_sampled: bool,
    previous: Option<BenchRecord>,
    speedup_vs_previous: Option<f64>,
    changed_vs_previous: Vec<Change>,
    gpu_vs_cpu: Option<GpuVsCpu>,
}

/// The first pair of successful runs of the same command (the commands differ in device settings only)
/// where one runs on the CPU and the other may use the GPU: a CPU run (`--device cpu`) against one
/// that does not say CPU, or a run that says nothing (its default, e.g. `train_gbdt.py`'s CPU) against
/// one that says GPU (`--device cuda`, as CE §4 benches "both ways"). The GPU run's speed-up.
fn gpu_vs_cpu(runs: &[MeasuredRun]) -> Option<GpuVsCpu> {
    let ok = |r: &MeasuredRun| r.exit_code == Some(0) && !r.interrupted;
    let devices: Vec<Option<Device>> = runs.iter().map(|r| device_of(&r.command)).collect();
    let pair = |c: usize, g: usize| -> Option<GpuVsCpu> {
        let (cpu, gpu) = (runs.get(c)?, runs.get(g)?);
        let cpu_and_gpu = match (devices.get(c)?, devices.get(g)?) {
            (Some(Device::Cpu), d) => *d != Some(Device::Cpu),
            (None, d) => *d == Some(Device::Gpu),
            _ => false,
        };
        if c == g || !cpu_and_gpu || !ok(cpu) || !ok(gpu) {
            return None;
        }
        let changed = changed_settings(&cpu.command, &gpu.command);
        if changed.is_empty() || !changed.iter().all(is_device_change) {
            return None;
        }
        speedup(cpu.wall_seconds, gpu.wall_seconds).map(|speedup| GpuVsCpu {
            cpu_run: c + 1,
            gpu_run: g + 1,
            speedup,
        })
    };
    (0..runs.len()).find_map(|c| (0..runs.len()).find_map(|g| pair(c, g)))
}

impl<'a> MeasuredBench<'a> {
    fn of(
        request: &'a BenchRequest,
        clock: DateTime<Utc>,
    ) -> Result<MeasuredBench<'a>, RequestError> {
        let name = run_name(request)?;
        let given = given_rates(request)?;
        let runs: Vec<Diagnosed> = request
            .run
            .iter()
            .map(|run| {
                // The rates a command printed, completed by the request's.
                let rates = run
                    .rates
                    .map(|r| r.or(given))
                    .or((!given.is_empty()).then_some(given));
                Ok(Diagnosed {
                    run,
                    rates,
                    diagnosis: diagnosis(run, rates, request, clock)?,
                })
            })
            .collect::<Result<_, RequestError>>()?;
        let (history, _) = parse_history(&request.history);
        let previous = history.into_iter().rev().find(|r| r.name == name);
        let (speedup_vs_previous, changed_vs_previous) = match (&previous, request.run.first()) {
            (Some(p), Some(f)) => (
                speedup(p.wall_s, f.wall_seconds),
                changed_settings(&p.command, &f.command),
            ),
            _ => (None, Vec::new()),
        };
        Ok(MeasuredBench {
            name,
            gpu_sampled: request.run.iter().all(|r| r.nvidia_smi.is_some()),
            gpu_vs_cpu: gpu_vs_cpu(&request.run),
            runs,
            previous,
            speedup_vs_previous,
            changed_vs_previous,
        })
    }

    /// `run 2: ` before what is said of one run when there are several.
    fn label(&self, i: usize) -> String {
        if self.runs.len() > 1 {
            format!("run {}: ", i + 1)
        } else {
            String::new()
        }
    }
}

/// KB003: nvidia-smi did not sample the GPUs.
fn no_gpu_sampling(bench: &MeasuredBench, out: &mut Findings) {
    out.uses(rule::KB003);
    if !bench.gpu_sampled {
        out.add(
            rule::KB003,
            "nvidia-smi was not available while the commands ran: wall time only",
        );
    }
}

/// KB002: a benched command that failed.
fn failed_runs(bench: &MeasuredBench, out: &mut Findings) {
    out.uses(rule::KB002);
    for (i, d) in bench.runs.iter().enumerate() {
        let m = d.run;
        if m.exit_code != Some(0) || m.interrupted {
            let label = if bench.runs.len() > 1 {
                bench.label(i)
            } else {
                String::new()
            };
            out.add(
                rule::KB002,
                format!(
                    "{label}`{}`: {} after {} s",
                    m.command,
                    how_it_ended(m.exit_code, m.interrupted),
                    fixed(m.wall_seconds, 1)
                ),
            );
        }
    }
}

/// Each run's diagnosis findings (its verdicts), their evidence led by the run's label (the title stays
/// the rule's); their stale-fact finding is the bench's own.
fn run_verdicts(bench: &MeasuredBench, out: &mut Findings) {
    for (i, d) in bench.runs.iter().enumerate() {
        let Some(diagnosis) = &d.diagnosis else {
            continue;
        };
        for f in diagnosis.findings.iter().filter(|f| f.rule != rule::KH004) {
            let mut f = f.clone();
            f.evidence = format!("{}{}", bench.label(i), f.evidence);
            out.push(f);
        }
        for id in diagnosis.rules.iter().filter_map(|r| EntryId::of_book(r)) {
            out.uses(id);
        }
    }
}

/// KB007: the longest benched run took more than the reduced-settings limit (CE §2: a bench takes minutes).
fn long_bench(bench: &MeasuredBench, thresholds: &Thresholds, out: &mut Findings) {
    let limit = thresholds.get(threshold::BENCH_REDUCED_SETTINGS_S);
    out.uses(threshold::BENCH_REDUCED_SETTINGS_S);
    let longest = bench
        .runs
        .iter()
        .map(|d| d.run)
        .filter(|r| r.wall_seconds > limit)
        .max_by(|a, b| a.wall_seconds.total_cmp(&b.wall_seconds));
    if let Some(r) = longest {
        out.add(
            rule::KB007,
            format!(
                "`{}` ran {} min (over {} min)",
                r.command,
                fixed(r.wall_seconds / 60.0, 1),
                shortest(limit / 60.0)
            ),
        );
    }
}

/// KB001: the first run is slower than the previous bench of the name.
fn slower_than_previous(bench: &MeasuredBench, thresholds: &Thresholds, out: &mut Findings) {
    let (Some(p), Some(f)) = (&bench.previous, bench.runs.first()) else {
        return;
    };
    out.uses(threshold::BENCH_SLOWER_RATIO);
    let slower = thresholds.get(threshold::BENCH_SLOWER_RATIO);
    let warmup = thresholds.get(threshold::BENCH_COMPILE_WARMUP_S);
    let compile = crate::bench::compile_turned_on(&bench.changed_vs_previous)
        .filter(|_| f.run.wall_seconds < warmup);
    if let Some(s) = bench.speedup_vs_previous
        && s < slower
        && f.run.exit_code == Some(0)
        && let Some(c) = compile
    {
        out.uses(threshold::BENCH_COMPILE_WARMUP_S);
        out.add(
            rule::KB006,
            format!(
                "{}: {} s after {} s at {} with {c}: a bench under {} s counts torch.compile's compilation",
                bench.name,
                fixed(f.run.wall_seconds, 1),
                fixed(p.wall_s, 1),
                p.time,
                shortest(warmup)
            ),
        );
    } else if let Some(s) = bench.speedup_vs_previous
        && s < slower
        && f.run.exit_code == Some(0)
    {
        out.add(
            rule::KB001,
            format!(
                "{}: {} s after {} s at {} = {}x (< {}x); changed: {}",
                bench.name,
                fixed(f.run.wall_seconds, 1),
                fixed(p.wall_s, 1),
                p.time,
                fixed(s, 2),
                shortest(slower),
                describe_changes(&bench.changed_vs_previous)
            ),
        );
    }
}

/// KB004: more than one setting changed since the previous bench of the name.
fn several_changes(bench: &MeasuredBench, out: &mut Findings) {
    let changed = &bench.changed_vs_previous;
    if changed.len() > 1 {
        out.add(
            rule::KB004,
            format!(
                "{} settings changed since the previous bench of {}: {}",
                changed.len(),
                bench.name,
                describe_changes(changed)
            ),
        );
    }
}

/// KB005: the same command is no faster on the GPU than on the CPU.
fn no_faster_with_a_gpu(bench: &MeasuredBench, thresholds: &Thresholds, out: &mut Findings) {
    let Some(pair) = bench.gpu_vs_cpu else {
        return;
    };
    out.uses(threshold::BENCH_GPU_SPEEDUP_MIN);
    let least = thresholds.get(threshold::BENCH_GPU_SPEEDUP_MIN);
    if pair.speedup >= least {
        return;
    }
    let run = |n: usize| bench.runs.get(n - 1);
    let (Some(cpu), Some(gpu)) = (run(pair.cpu_run), run(pair.gpu_run)) else {
        return;
    };
    let util = gpu
        .diagnosis
        .as_ref()
        .map(|d| {
            d.gpus
                .iter()
                .filter_map(|g| {
                    g.util_mean
                        .map(|u| format!("GPU {} {} %", g.index, fixed(u, 0)))
                })
                .collect::<Vec<_>>()
        })
        .filter(|u| !u.is_empty())
        .map(|u| format!("; mean utilisation while the GPU run ran: {}", u.join(", ")))
        .unwrap_or_default();
    out.add(
        rule::KB005,
        format!(
            "run {} on the CPU (`{}`) {} s, run {} on the GPU (`{}`) {} s: {}x (< {}x){util}",
            pair.cpu_run,
            cpu.run.command,
            fixed(cpu.run.wall_seconds, 1),
            pair.gpu_run,
            gpu.run.command,
            fixed(gpu.run.wall_seconds, 1),
            fixed(pair.speedup, 2),
            shortest(least)
        ),
    );
}

/// The runs as reported: speed-up and changes against the first run, and each one's diagnosis.
fn runs_of(bench: MeasuredBench) -> Vec<BenchRun> {
    let first = bench.runs.first().map(|d| d.run);
    bench
        .runs
        .into_iter()
        .enumerate()
        .map(|(i, d)| {
            let m = d.run;
            let reference = first.filter(|_| i > 0);
            let diagnosis = d.diagnosis;
            BenchRun {
                command: m.command.clone(),
                wall_s: m.wall_seconds,
                exit_code: m.exit_code,
                interrupted: m.interrupted,
                speedup: reference.and_then(|f| speedup(f.wall_seconds, m.wall_seconds)),
                changed: reference
                    .map(|f| changed_settings(&f.command, &m.command))
                    .unwrap_or_default(),
                wasted_quota_hours: diagnosis.as_ref().and_then(|d| d.wasted_quota_hours),
                verdicts: diagnosis
                    .as_ref()
                    .map(|d| d.verdicts.clone())
                    .unwrap_or_default(),
                gpus: diagnosis.map(|d| d.gpus).unwrap_or_default(),
                rates: d.rates,
            }
        })
        .collect()
}

/// `kgadvise bench --run ...`: the bench report of the measured runs (speed-ups against the first run and
/// against the previous bench of the same name, what changed, each run's diagnosis and the findings).
/// Errors name the request field and what was expected.
pub fn bench(request: &BenchRequest, clock: DateTime<Utc>) -> Result<BenchReport, RequestError> {
    let now = now_of(request.now.as_deref(), clock)?;
    let thresholds = request.set.thresholds()?;
    let bench = MeasuredBench::of(request, clock)?;
    let mut out = Findings::new();
    no_gpu_sampling(&bench, &mut out);
    failed_runs(&bench, &mut out);
    run_verdicts(&bench, &mut out);
    slower_than_previous(&bench, &thresholds, &mut out);
    several_changes(&bench, &mut out);
    no_faster_with_a_gpu(&bench, &thresholds, &mut out);
    long_bench(&bench, &thresholds, &mut out);
    let closed = out.finish(now.date_naive(), &thresholds);
    Ok(BenchReport {
        schema: BENCH_SCHEMA,
        name: bench.name.clone(),
        gpu_sampled: bench.gpu_sampled,
        speedup_vs_previous: bench.speedup_vs_previous,
        changed_vs_previous: bench.changed_vs_previous.clone(),
        gpu_vs_cpu: bench.gpu_vs_cpu,
        runs: runs_of(bench),
        rules: closed.rules,
        findings: closed.findings,
    })
}

/// The history records of a bench report, to append to `bench.jsonl` (per-GPU summaries without the
/// timeline, to keep one line per run small).
pub fn records_of(report: &BenchReport, time: &str) -> Vec<BenchRecord> {
    report
        .runs
        .iter()
        .map(|r| BenchRecord {
            name: report.name.clone(),
            time: time.to_string(),
            command: r.command.clone(),
            wall_s: r.wall_s,
            exit_code: r.exit_code,
            interrupted: r.interrupted,
            gpus: r
                .gpus
                .iter()
                .filter_map(|g| serde_json::to_value(g).ok())
                .map(|mut v| {
                    if let Some(obj) = v.as_object_mut() {
                        obj.remove("timeline");
                        obj.remove("timeline_step_samples");
                    }
                    v
                })
                .collect(),
            verdicts: r.verdicts.iter().map(|v| v.to_string()).collect(),
            rates: r.rates,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock() -> DateTime<Utc> {
        "2026-12-01T00:00:00Z".parse().unwrap()
    }

    /// A run sampled by nvidia-smi (which printed nothing).
    fn m(command: &str, wall_seconds: f64, exit: i32) -> MeasuredRun {
        MeasuredRun {
            command: command.into(),
            wall_seconds,
            exit_code: Some(exit),
            nvidia_smi: Some(String::new()),
            ..MeasuredRun::default()
        }
    }

    fn request(name: &str, runs: Vec<MeasuredRun>) -> BenchRequest {
        BenchRequest {
            run: runs,
            name: Some(name.into()),
            ..BenchRequest::default()
        }
    }

    fn rules(r: &BenchReport) -> Vec<&str> {
        r.findings.iter().map(|f| f.rule.as_str()).collect()
    }

    #[test]
    fn a_runs_verdicts_keep_their_rules_titles_the_run_named_in_the_evidence() {
        let idle = include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/diagnose/idle-2xT4.csv"
        ));
        let sampled = |command: &str| MeasuredRun {
            nvidia_smi: Some(idle.into()),
            ..m(command, 60.0, 0)
        };
        let r = bench(
            &request("t", vec![sampled("python a.py"), sampled("python b.py")]),
            clock(),
        )
        .unwrap();
        let verdicts: Vec<&Finding> = r
            .findings
            .iter()
            .filter(|f| f.rule.starts_with("KV"))
            .collect();
        assert!(!verdicts.is_empty(), "{:?}", rules(&r));
        for f in verdicts {
            let doc = crate::rulebook().rule(&f.rule).unwrap();
            assert_eq!(f.title, doc.title.as_ref());
            assert!(
                f.evidence.starts_with("run 1: ") || f.evidence.starts_with("run 2: "),
                "{}",
                f.evidence
            );
        }
    }

    #[test]
    fn speedups_against_the_first_run_and_the_previous_bench() {
        let prev = BenchRecord {
            name: "t".into(),
            time: "2026-11-29T10:00:00Z".into(),
            command: "python t.py --bs 32".into(),
            wall_s: 80.0,
            exit_code: Some(0),
            interrupted: false,
            gpus: vec![],
            verdicts: vec![],
            rates: None,
        };
        let r = bench(
            &BenchRequest {
                history: serde_json::to_string(&prev).unwrap(),
                ..request(
                    "t",
                    vec![
                        m("python t.py --bs 64", 100.0, 0),
                        m("python t.py --bs 128", 50.0, 0),
                    ],
                )
            },
            clock(),
        )
        .unwrap();
        assert_eq!(r.runs[0].speedup, None);
        assert_eq!(r.runs[1].speedup, Some(2.0));
        assert_eq!(r.runs[1].changed[0].to_string(), "--bs: 64 -> 128");
        assert_eq!(r.speedup_vs_previous, Some(0.8));
        assert_eq!(rules(&r), vec!["KB001"]);
        assert!(
            r.findings[0].evidence.contains("--bs: 32 -> 64"),
            "{}",
            r.findings[0].evidence
        );
    }

    #[test]
    fn failures_and_missing_sampling_are_findings() {
        let failed = MeasuredRun {
            nvidia_smi: None,
            ..m("false", 0.1, 1)
        };
        let r = bench(&request("x", vec![failed.clone()]), clock()).unwrap();
        // the error first (severity order), then the missing sampling
        assert_eq!(rules(&r), vec!["KB002", "KB003"]);
        assert!(!r.gpu_sampled);
        let r = bench(&request("x", vec![m("false", 0.1, 0)]), clock()).unwrap();
        assert!(r.findings.is_empty());
    }

    #[test]
    fn rates_complete_each_other_and_feed_the_diagnosis() {
        let printed = MeasuredRun {
            rates: Some(Rates {
                data: Some(1200.0),
                ..Rates::default()
            }),
            ..m("sh bench.sh", 1.0, 0)
        };
        let r = bench(
            &BenchRequest {
                compute_rate: Some(5000.0),
                loop_rate: Some(1100.0),
                ..request("r", vec![printed])
            },
            clock(),
        )
        .unwrap();
        let rates = r.runs[0].rates.unwrap();
        assert_eq!(
            (rates.data, rates.compute, rates.real_loop),
            (Some(1200.0), Some(5000.0), Some(1100.0))
        );
        // the loop runs at the loader's speed, far below the compute's: input-bound
        assert!(
            r.runs[0].verdicts.contains(&"input-bound"),
            "{:?}",
            r.runs[0]
        );
    }

    #[test]
    fn the_same_command_on_the_cpu_and_the_gpu() {
        let pair = |cpu_s: f64, gpu_s: f64| {
            bench(
                &request(
                    "t",
                    vec![
                        m("python t.py --bs 64", 50.0, 0),
                        m("python t.py --device cuda", gpu_s, 0),
                        m("python t.py --device cpu", cpu_s, 0),
                    ],
                ),
                clock(),
            )
            .unwrap()
        };
        let r = pair(100.0, 99.0);
        // run 3 on the CPU, run 2 the same command with the GPU; run 1 changed another setting
        assert_eq!(
            r.gpu_vs_cpu,
            Some(GpuVsCpu {
                cpu_run: 3,
                gpu_run: 2,
                speedup: 100.0 / 99.0
            })
        );
        assert!(rules(&r).contains(&"KB005"), "{:?}", r.findings);
        let r = pair(100.0, 20.0);
        assert_eq!(r.gpu_vs_cpu.map(|p| p.speedup), Some(5.0));
        assert!(!rules(&r).contains(&"KB005"));
        // a bench without a CPU run has no pair
        let r = bench(
            &request("t", vec![m("python t.py --device cuda", 1.0, 0)]),
            clock(),
        )
        .unwrap();
        assert_eq!(r.gpu_vs_cpu, None);
    }

    #[test]
    fn bad_requests_name_the_field() {
        let field = |r: BenchRequest| bench(&r, clock()).unwrap_err().field;
        assert_eq!(field(BenchRequest::default()), "run");
        assert_eq!(field(request("x", vec![m("  ", 1.0, 0)])), "run");
        assert_eq!(field(request("x", vec![m("true", f64::NAN, 0)])), "run");
        assert_eq!(
            field(BenchRequest {
                data_rate: Some(-4.0),
                ..request("x", vec![m("true", 1.0, 0)])
            }),
            "dataRate"
        );
        let e = run_name(&BenchRequest {
            loop_rate: Some(0.0),
            ..BenchRequest::default()
        })
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "loopRate 0: expected a positive rate in samples/s"
        );
    }

    #[test]
    fn records_and_names() {
        let r = bench(&request("t", vec![m("python t.py", 1.0, 0)]), clock()).unwrap();
        let recs = records_of(&r, "2026-11-30T00:00:00Z");
        assert_eq!(recs.len(), 1);
        assert_eq!(recs[0].time, "2026-11-30T00:00:00Z");
        let unnamed = BenchRequest {
            run: vec![m(
                "CUDA_VISIBLE_DEVICES=0 python src/train_image.py --bs 64",
                1.0,
                0,
            )],
            ..BenchRequest::default()
        };
        assert_eq!(run_name(&unnamed).unwrap(), "train_image");
    }
}
