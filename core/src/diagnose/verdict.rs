//! Run verdicts (spec rules.md §5; CE §2, KG §5): from nvidia-smi samples and/or the three bench rates to
//! `no-data`, `idle`, `memory-bound`, `second-gpu-idle`, `input-bound`, `stalls`, `compute-bound`, `mixed`,
//! `too-short`, ordered fix-first, each a finding with its numbers and thresholds, plus the quota hours the
//! run wastes.
//!
//! Each verdict is one rule function over [`Run`], the read-only context of one answer (the validated
//! request and the per-GPU summaries of the log), adding its finding to one [`Findings`] collector, whose
//! `finish` is the closing block every advisor shares.

use chrono::NaiveDate;
use serde::Serialize;

use crate::diagnose::nvsmi::{AssumedInterval, Collector, Diagnostic, GpuAcc};
use crate::request::RequestError;
use crate::rulebook::Thresholds;
use crate::rulebook::finding::Finding;
use crate::rulebook::ids::{RuleId, ThresholdId, rule, threshold};
use crate::rulebook::report::{Findings, Report};
use crate::text::number::{fixed, shortest};

pub const DIAGNOSE_SCHEMA: &str = "kgadvise.diagnose/1";

/// The utilisation thresholds a timeline of utilisation draws, with what crossing each means.
pub const TIMELINE_THRESHOLDS: &[(ThresholdId, &str)] = &[
    (threshold::VERDICT_INPUT_BOUND_UTIL_PCT, "input-bound below"),
    (threshold::VERDICT_BUSY_UTIL_PCT, "busy above"),
    (
        threshold::VERDICT_COMPUTE_BOUND_UTIL_PCT,
        "compute-bound above",
    ),
];

/// The verdicts, in fix-first order (the order of this enum).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    NoData,
    Idle,
    MemoryBound,
    SecondGpuIdle,
    InputBound,
    Stalls,
    ComputeBound,
    Mixed,
    TooShort,
}

impl Verdict {
    /// Every verdict, fix first.
    pub const ALL: [Verdict; 9] = [
        Verdict::NoData,
        Verdict::Idle,
        Verdict::MemoryBound,
        Verdict::SecondGpuIdle,
        Verdict::InputBound,
        Verdict::Stalls,
        Verdict::ComputeBound,
        Verdict::Mixed,
        Verdict::TooShort,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::NoData => "no-data",
            Verdict::Idle => "idle",
            Verdict::MemoryBound => "memory-bound",
            Verdict::SecondGpuIdle => "second-gpu-idle",
            Verdict::InputBound => "input-bound",
            Verdict::Stalls => "stalls",
            Verdict::ComputeBound => "compute-bound",
            Verdict::Mixed => "mixed",
            Verdict::TooShort => "too-short",
        }
    }

    /// The rules that give this verdict: one each, but no-data has one per reason there is no data
    /// and compute-bound one per confidence (each message its own rule).
    pub fn rules(self) -> &'static [RuleId] {
        match self {
            Verdict::NoData => &[rule::KV001, rule::KV050, rule::KV051],
            Verdict::Idle => &[rule::KV002],
            Verdict::MemoryBound => &[rule::KV003],
            Verdict::SecondGpuIdle => &[rule::KV004],
            Verdict::InputBound => &[rule::KV005],
            Verdict::Stalls => &[rule::KV006],
            Verdict::ComputeBound => &[rule::KV007, rule::KV052],
            Verdict::Mixed => &[rule::KV008],
            Verdict::TooShort => &[rule::KV009],
        }
    }
}

/// The three bench rates, samples/s (CE §2).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Rates {
    pub data_rate: Option<f64>,
    pub compute_rate: Option<f64>,
    pub loop_rate: Option<f64>,
}

impl Rates {
    /// The rates, each when given a positive finite number of samples/s; the error names the request
    /// field (`dataRate`, `computeRate`, `loopRate`).
    pub fn checked(self) -> Result<Rates, RequestError> {
        for (field, rate) in [
            ("dataRate", self.data_rate),
            ("computeRate", self.compute_rate),
            ("loopRate", self.loop_rate),
        ] {
            if let Some(x) = rate
                && !(x.is_finite() && x > 0.0)
            {
                return Err(RequestError::value(
                    field,
                    shortest(x),
                    "expected a positive rate in samples/s",
                ));
            }
        }
        Ok(self)
    }

    fn any(&self) -> bool {
        self.data_rate.is_some() || self.compute_rate.is_some() || self.loop_rate.is_some()
    }
}

/// What the verdicts read besides the log: the request, validated.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    pub rates: Rates,
    /// The run was reported out of memory.
    pub oom: bool,
    /// Seconds between samples, when given.
    pub interval_s: Option<f64>,
    pub thresholds: Thresholds,
    /// The day of the answer (stale-fact check).
    pub today: NaiveDate,
}

/// One GPU's summary (cli.md keys: index, name, samples, util_mean, util_p10, util_p90, mem_peak_mib,
/// mem_total_mib).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GpuReport {
    pub index: u32,
    pub name: Option<String>,
    pub samples: u64,
    /// Samples that carried a utilisation value.
    pub util_samples: u64,
    pub span_s: Option<f64>,
    pub util_mean: Option<f64>,
    pub util_p10: Option<f64>,
    pub util_p90: Option<f64>,
    pub mem_peak_mib: Option<f64>,
    pub mem_total_mib: Option<f64>,
    pub mem_peak_pct: Option<f64>,
    pub power_mean_w: Option<f64>,
    pub power_limit_w: Option<f64>,
    /// Mean power draw as a share of the limit.
    pub power_pct: Option<f64>,
    /// Mean utilisation above `threshold.verdict.busy-util-pct`; null without utilisation.
    pub busy: Option<bool>,
    /// Mean utilisation of consecutive groups of `timeline_step_samples` samples (at most 240 points).
    pub timeline: Vec<f64>,
    pub timeline_step_samples: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DiagnoseReport {
    pub schema: &'static str,
    /// The formats read (`csv`, `table`, `dmon`, `query-text`, `query-xml`).
    pub formats: Vec<&'static str>,
    pub lines: usize,
    /// Verdict identifiers, fix first.
    pub verdicts: Vec<&'static str>,
    pub gpus: Vec<GpuReport>,
    /// Observed span of the log in seconds; 0 for a snapshot, null when unknown.
    pub span_s: Option<f64>,
    /// `timestamps`, `interval` (samples x interval), `snapshot` or `unknown`.
    pub span_source: &'static str,
    /// Quota hours the observed span wasted (spec §5); null when the span is unknown.
    pub wasted_quota_hours: Option<f64>,
    pub rates: Rates,
    pub oom: bool,
    /// Whole-output errors nvidia-smi printed.
    pub errors: Vec<String>,
    /// Inputs that are other nvidia-smi outputs (not utilisation logs).
    pub notes: Vec<String>,
    /// Lines not read (the first 20) and how many there were.
    pub diagnostics: Vec<Diagnostic>,
    pub diagnostics_total: usize,
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for DiagnoseReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }

    fn text(&self) -> String {
        self.text_naming(crate::diagnose::text::INTERVAL_KEY)
    }
}

fn round(v: f64, digits: i32) -> f64 {
    let p = 10f64.powi(digits);
    (v * p).round() / p
}

fn pct(a: f64, b: f64) -> Option<f64> {
    (b > 0.0).then(|| round(100.0 * a / b, 1))
}

pub(crate) fn fmt_num(v: f64) -> String {
    let r = round(v, 1);
    if r.fract() == 0.0 {
        fixed(r, 0)
    } else {
        shortest(r)
    }
}

pub(crate) fn fmt_span(s: f64) -> String {
    if s < 120.0 {
        format!("{} s", fmt_num(s))
    } else if s < 7200.0 {
        format!("{} min", fmt_num(s / 60.0))
    } else {
        format!("{} h", fmt_num(s / 3600.0))
    }
}

fn gpu_report(g: &GpuAcc, interval: Option<f64>, busy_t: f64) -> GpuReport {
    let span_s = match (g.first_ts, g.last_ts) {
        (Some(a), Some(b)) if g.ts_n >= 2 => Some(round(b - a, 3)),
        _ if g.samples <= 1 => Some(0.0),
        _ => interval.map(|i| round((g.samples - 1) as f64 * i, 3)),
    };
    let util_mean = g.util_mean().map(|u| round(u, 1));
    let power_mean_w = g.power_mean().map(|p| round(p, 2));
    GpuReport {
        index: g.index,
        name: g.name.clone(),
        samples: g.samples,
        util_samples: g.util_n,
        span_s,
        util_mean,
        util_p10: g.util_quantile(0.1),
        util_p90: g.util_quantile(0.9),
        mem_peak_mib: g.mem_peak,
        mem_total_mib: g.mem_total,
        mem_peak_pct: match (g.mem_peak, g.mem_total) {
            (Some(p), Some(t)) => pct(p, t),
            _ => None,
        },
        power_mean_w,
        power_limit_w: g.power_limit,
        power_pct: match (g.power_mean(), g.power_limit) {
            (Some(p), Some(l)) => pct(p, l),
            _ => None,
        },
        busy: g.util_mean().map(|u| u > busy_t),
        timeline: g
            .timeline_points()
            .into_iter()
            .map(|v| round(v, 1))
            .collect(),
        timeline_step_samples: g.timeline_step,
    }
}

/// `GPU 0 mean 72 % (power 45 % of 70 W)`: utilisation with power beside it where logged.
fn util_text(g: &GpuReport) -> String {
    let mut s = format!(
        "GPU {} mean {} %",
        g.index,
        g.util_mean.map(fmt_num).unwrap_or_else(|| "?".into())
    );
    if let (Some(p), Some(l)) = (g.power_pct, g.power_limit_w) {
        s.push_str(&format!(" (power {} % of {} W)", fmt_num(p), fmt_num(l)));
    } else if let Some(w) = g.power_mean_w {
        s.push_str(&format!(" (power {} W)", fmt_num(w)));
    }
    s
}

/// [`util_text`] of several GPUs, comma-separated.
fn util_list(gpus: &[&GpuReport]) -> String {
    gpus.iter()
        .map(|g| util_text(g))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The smallest or largest of some numbers.
fn extreme(values: impl Iterator<Item = f64>, min: bool) -> Option<f64> {
    values.fold(None, |a: Option<f64>, x| {
        Some(a.map_or(x, |a| if min { a.min(x) } else { a.max(x) }))
    })
}

/// The observed span of the log: from timestamps across GPUs, else the longest per-GPU span (samples x
/// interval); 0 for a snapshot.
fn span_of(
    c: &Collector,
    gpus: &[GpuReport],
    interval: Option<f64>,
) -> (Option<f64>, &'static str) {
    let timed = || c.gpus.iter().filter(|g| g.ts_n >= 2);
    let first = extreme(timed().filter_map(|g| g.first_ts), true);
    let last = extreme(timed().filter_map(|g| g.last_ts), false);
    if !gpus.is_empty() && gpus.iter().all(|g| g.samples <= 1) {
        (Some(0.0), "snapshot")
    } else if let (Some(a), Some(b)) = (first, last) {
        (Some(round(b - a, 3)), "timestamps")
    } else if gpus.is_empty() {
        (None, "unknown")
    } else {
        match extreme(gpus.iter().filter_map(|g| g.span_s), false) {
            Some(s) if interval.is_some() => (Some(s), "interval"),
            _ => (None, "unknown"),
        }
    }
}

/// What every verdict rule reads: the request and the per-GPU summaries of the log.
struct Run<'a> {
    c: &'a Collector,
    settings: &'a Settings,
    t: &'a Thresholds,
    gpus: &'a [GpuReport],
    /// The GPUs that logged utilisation.
    util: Vec<&'a GpuReport>,
    /// Those busy (mean utilisation above the busy threshold).
    busy: Vec<&'a GpuReport>,
    /// One sample per GPU.
    snapshot: bool,
    span_s: Option<f64>,
    hours: Option<f64>,
    /// ` over 2 h`, ` in a snapshot`, or nothing when the span is unknown.
    span_text: String,
}

impl<'a> Run<'a> {
    fn new(
        c: &'a Collector,
        settings: &'a Settings,
        gpus: &'a [GpuReport],
        span_s: Option<f64>,
        snapshot: bool,
    ) -> Run<'a> {
        let util: Vec<&GpuReport> = gpus.iter().filter(|g| g.util_mean.is_some()).collect();
        let busy = util
            .iter()
            .copied()
            .filter(|g| g.busy == Some(true))
            .collect();
        let span_text = match span_s {
            _ if snapshot => " in a snapshot".to_string(),
            Some(s) => format!(" over {}", fmt_span(s)),
            None => String::new(),
        };
        Run {
            c,
            settings,
            t: &settings.thresholds,
            gpus,
            util,
            busy,
            snapshot,
            span_s,
            hours: span_s.map(|s| s / 3600.0),
            span_text,
        }
    }

    fn rates(&self) -> Rates {
        self.settings.rates
    }

    /// The data-only and compute-only rates, when both are given.
    fn data_and_compute(&self) -> Option<(f64, f64)> {
        self.rates().data_rate.zip(self.rates().compute_rate)
    }

    /// Every busy GPU is above the compute-bound utilisation (and one is busy).
    fn all_busy_compute_bound(&self) -> bool {
        let compute_t = self.t.get(threshold::VERDICT_COMPUTE_BOUND_UTIL_PCT);
        !self.busy.is_empty()
            && self
                .busy
                .iter()
                .all(|g| g.util_mean.is_some_and(|u| u > compute_t))
    }
}

/// KV001 `no-data`: no utilisation sample and no bench rate; the evidence says why.
fn no_data(run: &Run, out: &mut Findings) {
    if !run.util.is_empty() || run.rates().any() {
        return;
    }
    let c = run.c;
    let mut why: Vec<String> = c
        .errors
        .iter()
        .map(|e| format!("nvidia-smi said: \"{e}\""))
        .collect();
    why.extend(c.notes.iter().cloned());
    if !run.gpus.is_empty() {
        let fields = if c.util_out_of_range > 0 {
            format!(
                "{} utilisation reading(s) are outside 0-100 % (lines not read) and none is usable",
                c.util_out_of_range
            )
        } else if c.util_column || c.missing_fields.is_empty() {
            "utilisation is reported as no value ([N/A], [Not Supported], N/A: MIG or an old GeForce)"
                .to_string()
        } else {
            format!("the log has no {} column", c.missing_fields.join(" / "))
        };
        why.push(format!(
            "{} GPU(s) seen, {} sample(s), but {fields}",
            run.gpus.len(),
            run.gpus.iter().map(|g| g.samples).sum::<u64>()
        ));
    }
    if why.is_empty() {
        why.push(if c.lines == 0 {
            "the input is empty and no bench rates were given".to_string()
        } else {
            format!(
                "none of the {} line(s) is an nvidia-smi utilisation sample, and no bench rates were given",
                c.lines
            )
        });
    }
    // A log whose header lacks the utilisation column is a log of something else: KV051, not KV001.
    let no_util_column = !run.gpus.is_empty() && !c.util_column && !c.missing_fields.is_empty();
    let code = if !c.errors.is_empty() {
        rule::KV050
    } else if (!c.notes.is_empty() && run.gpus.is_empty()) || no_util_column {
        rule::KV051
    } else {
        rule::KV001
    };
    out.add(code, why.join("; "));
}

/// KV002 `idle`: no GPU busy; the whole span is wasted. Returns the quota hours wasted.
fn idle(run: &Run, out: &mut Findings) -> f64 {
    if run.util.is_empty() || !run.busy.is_empty() {
        return 0.0;
    }
    let busy = threshold::VERDICT_BUSY_UTIL_PCT;
    let wasted = run.hours.map(|h| round(h, 2));
    out.add(
        rule::KV002,
        format!(
            "{} ≤ busy threshold {} % ({busy}){}{}",
            util_list(&run.util),
            fmt_num(run.t.get(busy)),
            run.span_text,
            wasted
                .filter(|w| *w > 0.0)
                .map(|w| format!("; the whole session, {} quota h, is wasted", shortest(w)))
                .unwrap_or_default()
        ),
    );
    out.uses(busy);
    wasted.unwrap_or(0.0)
}

/// KV003 `memory-bound`: an out-of-memory error, or a GPU's peak memory at the limit.
fn memory_bound(run: &Run, out: &mut Findings) {
    let peak = threshold::VERDICT_MEMORY_PEAK_PCT;
    let mem_t = run.t.get(peak);
    let full: Vec<&GpuReport> = run
        .gpus
        .iter()
        .filter(|g| g.mem_peak_pct.is_some_and(|p| p >= mem_t))
        .collect();
    if !run.settings.oom && run.c.oom_line.is_none() && full.is_empty() {
        return;
    }
    let mut parts: Vec<String> = Vec::new();
    if run.settings.oom {
        parts.push("an out-of-memory error was reported for the run".into());
    }
    if let Some(l) = run.c.oom_line {
        parts.push(format!("line {l} reports an out-of-memory error"));
    }
    for g in &full {
        parts.push(format!(
            "GPU {} peak {} MiB of {} MiB ({} % ≥ {} %, {peak})",
            g.index,
            g.mem_peak_mib.map(fmt_num).unwrap_or_default(),
            g.mem_total_mib.map(fmt_num).unwrap_or_default(),
            g.mem_peak_pct.map(fmt_num).unwrap_or_default(),
            fmt_num(mem_t)
        ));
    }
    out.add(rule::KV003, parts.join("; "));
    out.uses(peak);
}

/// KV004 `second-gpu-idle`: some GPUs busy, not all. Returns the quota hours the idle ones waste.
fn second_gpu_idle(run: &Run, out: &mut Findings) -> f64 {
    let n = run.util.len();
    if n < 2 || run.busy.is_empty() || run.busy.len() >= n {
        return 0.0;
    }
    let busy = threshold::VERDICT_BUSY_UTIL_PCT;
    let idle: Vec<&GpuReport> = run
        .util
        .iter()
        .copied()
        .filter(|g| g.busy != Some(true))
        .collect();
    let share = idle.len() as f64 / n as f64;
    let wasted = run.hours.map(|h| round(h * share, 2));
    out.add(
        rule::KV004,
        format!(
            "{} busy; {} ≤ {} % ({busy}){}: {} of {n} GPUs idle{}",
            util_list(&run.busy),
            util_list(&idle),
            fmt_num(run.t.get(busy)),
            run.span_text,
            idle.len(),
            wasted
                .filter(|w| *w > 0.0)
                .map(|w| format!(", wasting {} of the quota hours charged", shortest(w)))
                .unwrap_or_default()
        ),
    );
    out.uses(busy);
    wasted.unwrap_or(0.0)
}

/// KV005 `input-bound`: the loader is slower than the step (rates), or a busy GPU below the input-bound
/// utilisation (no rates). Returns the quota hours spent waiting for data.
fn input_bound(run: &Run, out: &mut Findings) -> f64 {
    let below = threshold::VERDICT_INPUT_BOUND_UTIL_PCT;
    let input_t = run.t.get(below);
    let slow: Vec<&GpuReport> = run
        .busy
        .iter()
        .copied()
        .filter(|g| g.util_mean.is_some_and(|u| u < input_t))
        .collect();
    let evidence = match run.data_and_compute() {
        Some((d, c)) if d < c => Some(format!(
            "data-only rate {} samples/s < compute-only rate {} samples/s: the loader cannot feed the step",
            fmt_num(d),
            fmt_num(c)
        )),
        Some(_) => None,
        None => slow
            .iter()
            .min_by(|a, b| {
                a.util_mean
                    .partial_cmp(&b.util_mean)
                    .unwrap_or(std::cmp::Ordering::Equal)
            })
            .map(|g| {
                format!(
                    "lowest busy GPU: {} < {} % ({below}){}",
                    util_text(g),
                    fmt_num(input_t),
                    run.span_text
                )
            }),
    };
    let Some(mut evidence) = evidence else {
        return 0.0;
    };
    // A GPU at u % waits (1 - u/100) of its share of the hours.
    let n = run.util.len().max(1) as f64;
    let wasted: f64 = match run.hours {
        Some(h) => slow
            .iter()
            .filter_map(|g| g.util_mean)
            .map(|u| h / n * (1.0 - u / 100.0))
            .sum(),
        None => 0.0,
    };
    if wasted > 0.0 {
        evidence.push_str(&format!(
            "; about {} quota h wasted waiting for data",
            shortest(round(wasted, 2))
        ));
    }
    out.add(rule::KV005, evidence);
    out.uses(below);
    wasted.max(0.0)
}

/// KV006 `stalls`: the real loop well below both the data-only and the compute-only rate.
fn stalls(run: &Run, out: &mut Findings) {
    let ratio = threshold::VERDICT_STALLS_RATIO;
    let stalls_t = run.t.get(ratio);
    let (Some((d, c)), Some(l)) = (run.data_and_compute(), run.rates().loop_rate) else {
        return;
    };
    let floor = stalls_t * d.min(c);
    if l >= floor {
        return;
    }
    out.add(
        rule::KV006,
        format!(
            "real loop {} samples/s < {} x min(data-only {}, compute-only {}) = {} ({ratio})",
            fmt_num(l),
            fmt_num(stalls_t),
            fmt_num(d),
            fmt_num(c),
            fmt_num(floor)
        ),
    );
    out.uses(ratio);
}

/// KV007 `compute-bound`: the real loop close to the compute-only rate, and/or every busy GPU above the
/// compute-bound utilisation (low confidence when the power draw is well below the limit).
fn compute_bound(run: &Run, out: &mut Findings) {
    let (ratio, above, power) = (
        threshold::VERDICT_COMPUTE_RATIO,
        threshold::VERDICT_COMPUTE_BOUND_UTIL_PCT,
        threshold::VERDICT_POWER_CONFIDENCE_PCT,
    );
    let ratio_t = run.t.get(ratio);
    let by_rates = match (run.rates().loop_rate, run.rates().compute_rate) {
        (Some(l), Some(c)) if l >= ratio_t * c => Some(format!(
            "real loop {} samples/s ≥ {} x compute-only {} samples/s ({ratio})",
            fmt_num(l),
            fmt_num(ratio_t),
            fmt_num(c)
        )),
        _ => None,
    };
    // The rates decide when they can (CE §2): a loop rate against the compute-only rate, or a loader
    // slower than the step; a high utilisation then adds nothing, least of all a contradiction.
    let rates = run.rates();
    let rates_decide = rates.loop_rate.is_some() && rates.compute_rate.is_some()
        || run.data_and_compute().is_some_and(|(d, c)| d < c);
    let by_util = (!rates_decide && run.all_busy_compute_bound()).then(|| {
        format!(
            "every busy GPU above {} % ({above}): {}",
            fmt_num(run.t.get(above)),
            util_list(&run.busy)
        )
    });
    if by_rates.is_none() && by_util.is_none() {
        return;
    }
    let power_t = run.t.get(power);
    let low_power: Vec<String> = run
        .busy
        .iter()
        .filter(|g| g.power_pct.is_some_and(|p| p < power_t))
        .map(|g| g.index.to_string())
        .collect();
    let mut evidence: Vec<String> = by_rates.iter().chain(by_util.iter()).cloned().collect();
    let mut code = rule::KV007;
    if by_rates.is_none() && !low_power.is_empty() {
        evidence.push(format!(
            "low confidence: mean power draw below {} % of the limit ({power}) on GPU {} — utilisation alone is coarse (a single busy thread reads 100 %)",
            fmt_num(power_t),
            low_power.join(", ")
        ));
        code = rule::KV052;
    }
    out.add(code, evidence.join("; "));
    for id in [ratio, above, power] {
        out.uses(id);
    }
}

/// KV008 `mixed`: no rates, and the busy GPUs between the input-bound and compute-bound utilisation.
fn mixed(run: &Run, out: &mut Findings) {
    let (below, above) = (
        threshold::VERDICT_INPUT_BOUND_UTIL_PCT,
        threshold::VERDICT_COMPUTE_BOUND_UTIL_PCT,
    );
    let input_t = run.t.get(below);
    let lowest = extreme(run.busy.iter().filter_map(|g| g.util_mean), true);
    if run.data_and_compute().is_some()
        || lowest.is_none_or(|lo| lo < input_t)
        || run.all_busy_compute_bound()
    {
        return;
    }
    out.add(
        rule::KV008,
        format!(
            "no bench rates; busy GPUs between {} % and {} % ({below}, {above}): {}",
            fmt_num(input_t),
            fmt_num(run.t.get(above)),
            util_list(&run.busy)
        ),
    );
    out.uses(below);
    out.uses(above);
}

/// KV009 `too-short`: a snapshot, or a span below the too-short threshold.
fn too_short(run: &Run, out: &mut Findings) {
    let short = threshold::VERDICT_TOO_SHORT_MIN;
    let short_t = run.t.get(short);
    if run.gpus.is_empty() || !(run.snapshot || run.span_s.is_some_and(|s| s < short_t * 60.0)) {
        return;
    }
    let evidence = if run.snapshot {
        format!(
            "a snapshot (one sample per GPU): mostly start-up or a single instant; judge on a log of {} min or more ({short})",
            fmt_num(short_t)
        )
    } else {
        format!(
            "observed span {} < {} min ({short}): mostly start-up",
            fmt_span(run.span_s.unwrap_or(0.0)),
            fmt_num(short_t)
        )
    };
    out.add(rule::KV009, evidence);
    out.uses(short);
}

/// KV011: samples without timestamps and no interval known: the span is unknown.
fn span_unknown(run: &Run, out: &mut Findings) {
    if run.span_s.is_none() && !run.gpus.is_empty() {
        out.add(
            rule::KV011,
            "the samples carry no timestamps and no sampling interval is known: give the seconds between samples",
        );
    }
}

/// KV010: the lines that could not be read (the first five, and how many more).
fn unread_lines(run: &Run, out: &mut Findings) {
    let c = run.c;
    if c.diagnostics_total == 0 {
        return;
    }
    let shown: Vec<String> = c
        .diagnostics
        .iter()
        .take(5)
        .map(|d| format!("line {}: {}", d.line, d.message))
        .collect();
    let more = c.diagnostics_total.saturating_sub(shown.len());
    out.add(
        rule::KV010,
        format!(
            "{}{}",
            shown.join("; "),
            if more > 0 {
                format!("; and {more} more")
            } else {
                String::new()
            }
        ),
    );
}

/// The sampling interval: the request's, else the one a format implies (kgkit's sampler, dmon).
fn interval_of(c: &Collector, settings: &Settings) -> (Option<f64>, Option<ThresholdId>) {
    let assumed = match c.assumed_interval {
        Some(AssumedInterval::Kgkit) => Some(threshold::VERDICT_KGKIT_INTERVAL_S),
        Some(AssumedInterval::Dmon) => Some(threshold::VERDICT_DMON_INTERVAL_S),
        None => None,
    };
    match settings.interval_s {
        Some(s) => (Some(s), None),
        None => (assumed.map(|id| settings.thresholds.get(id)), assumed),
    }
}

/// Every verdict rule, fix first, then the caveats; the quota hours over `run.hours` that each wasting
/// verdict (idle, second-gpu-idle, input-bound) costs, 0 when it does not hold.
fn apply_rules(run: &Run, out: &mut Findings) -> [(Verdict, f64); 3] {
    no_data(run, out);
    let idle_h = idle(run, out);
    memory_bound(run, out);
    let second_h = second_gpu_idle(run, out);
    let input_h = input_bound(run, out);
    stalls(run, out);
    compute_bound(run, out);
    mixed(run, out);
    too_short(run, out);
    span_unknown(run, out);
    unread_lines(run, out);
    [
        (Verdict::Idle, idle_h),
        (Verdict::SecondGpuIdle, second_h),
        (Verdict::InputBound, input_h),
    ]
}

/// The report of a log's summaries and the request, with the quota hours per hour of run each wasting
/// verdict costs (what the live view shows beside it).
pub(crate) fn judge(c: Collector, settings: &Settings) -> DiagnoseReport {
    judge_with_costs(c, settings).0
}

/// [`judge`], and the hourly cost of each wasting verdict.
pub(crate) fn judge_with_costs(
    c: Collector,
    settings: &Settings,
) -> (DiagnoseReport, [(Verdict, f64); 3]) {
    let t = &settings.thresholds;
    let (interval, assumed) = interval_of(&c, settings);
    let busy_t = t.get(threshold::VERDICT_BUSY_UTIL_PCT);
    let mut gpus: Vec<GpuReport> = c
        .gpus
        .iter()
        .map(|g| gpu_report(g, interval, busy_t))
        .collect();
    crate::text::sort::sort_by_key(&mut gpus, |g| g.index);
    let (span_s, span_source) = span_of(&c, &gpus, interval);
    let snapshot = span_source == "snapshot";
    let mut out = Findings::new();
    let (wasted, hourly) = {
        let mut run = Run::new(&c, settings, &gpus, span_s, snapshot);
        let [idle_h, second_h, input_h] = apply_rules(&run, &mut out);
        let wasted = run
            .hours
            .map(|_| round(idle_h.1 + second_h.1 + input_h.1, 2));
        // The same rules over one hour of the same run: what each wasting verdict costs per hour.
        run.hours = Some(1.0);
        (wasted, apply_rules(&run, &mut Findings::new()))
    };
    if let (Some(id), "interval") = (assumed, span_source) {
        out.uses(id);
    }
    let verdicts = Verdict::ALL
        .iter()
        .filter(|v| v.rules().iter().any(|r| out.has(*r)))
        .map(|v| v.as_str())
        .collect();
    let closed = out.finish(settings.today, t);
    let report = DiagnoseReport {
        schema: DIAGNOSE_SCHEMA,
        formats: c.formats.iter().map(|f| f.as_str()).collect(),
        lines: c.lines,
        verdicts,
        gpus,
        span_s,
        span_source,
        wasted_quota_hours: wasted,
        rates: settings.rates,
        oom: settings.oom || c.oom_line.is_some(),
        errors: c.errors,
        notes: c.notes,
        diagnostics: c.diagnostics,
        diagnostics_total: c.diagnostics_total,
        rules: closed.rules,
        findings: closed.findings,
    };
    (report, hourly)
}

#[cfg(test)]
mod tests {
    use chrono::{DateTime, Utc};

    use crate::diagnose::{DiagnoseRequest, Diagnoser, diagnose};
    use crate::request::Overrides;

    fn clock() -> DateTime<Utc> {
        "2026-12-01T00:00:00Z".parse().unwrap()
    }

    fn csv_log(gpus: &[(f64, f64)], minutes: u32) -> String {
        // (util, mem fraction) per GPU, one sample a minute.
        let mut s = String::from(
            "timestamp, index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB], power.draw [W], power.limit [W]\n",
        );
        for m in 0..=minutes {
            for (i, (u, memf)) in gpus.iter().enumerate() {
                s.push_str(&format!(
                    "2026/11/30 {:02}:{:02}:00.000, {i}, Tesla T4, {u} %, {} MiB, 15360 MiB, {} W, 70.00 W\n",
                    m / 60,
                    m % 60,
                    (15360.0 * memf) as u32,
                    20.0 + 50.0 * u / 100.0
                ));
            }
        }
        s
    }

    fn log(text: &str) -> DiagnoseRequest {
        DiagnoseRequest {
            log: Some(text.to_string()),
            ..DiagnoseRequest::default()
        }
    }

    fn rates(data: f64, compute: f64, real_loop: f64) -> DiagnoseRequest {
        DiagnoseRequest {
            data_rate: Some(data),
            compute_rate: Some(compute),
            loop_rate: Some(real_loop),
            ..DiagnoseRequest::default()
        }
    }

    fn report(request: &DiagnoseRequest) -> super::DiagnoseReport {
        diagnose(request, clock()).unwrap()
    }

    fn verdicts(request: &DiagnoseRequest) -> Vec<&'static str> {
        report(request).verdicts
    }

    #[test]
    fn idle_and_not() {
        assert_eq!(
            verdicts(&log(&csv_log(&[(0.0, 0.1), (2.0, 0.1)], 60))),
            ["idle"]
        );
        assert!(!verdicts(&log(&csv_log(&[(50.0, 0.1)], 60))).contains(&"idle"));
    }

    #[test]
    fn second_gpu_idle_wastes_half() {
        let r = report(&log(&csv_log(&[(95.0, 0.5), (0.0, 0.0)], 120)));
        assert_eq!(r.verdicts, ["second-gpu-idle", "compute-bound"]);
        assert_eq!(r.wasted_quota_hours, Some(1.0));
        let r = verdicts(&log(&csv_log(&[(95.0, 0.5), (93.0, 0.5)], 120)));
        assert!(!r.contains(&"second-gpu-idle"));
    }

    #[test]
    fn input_bound_by_util_and_by_rates() {
        let r = report(&log(&csv_log(&[(40.0, 0.5)], 60)));
        assert_eq!(r.verdicts, ["input-bound"]);
        assert_eq!(r.wasted_quota_hours, Some(0.6));
        assert_eq!(verdicts(&rates(400.0, 1000.0, 390.0)), ["input-bound"]);
        assert_eq!(verdicts(&rates(2000.0, 1000.0, 950.0)), ["compute-bound"]);
    }

    #[test]
    fn stalls_both_polarities() {
        assert_eq!(verdicts(&rates(1100.0, 1000.0, 300.0)), ["stalls"]);
        assert!(verdicts(&rates(1100.0, 1000.0, 800.0)).is_empty());
    }

    #[test]
    fn memory_mixed_and_too_short() {
        assert_eq!(
            verdicts(&log(&csv_log(&[(70.0, 0.97)], 60))),
            ["memory-bound", "mixed"]
        );
        assert_eq!(
            verdicts(&log(&csv_log(&[(70.0, 0.5)], 5))),
            ["mixed", "too-short"]
        );
        let oom = DiagnoseRequest {
            oom: true,
            ..log(&csv_log(&[(70.0, 0.5)], 60))
        };
        assert_eq!(verdicts(&oom), ["memory-bound", "mixed"]);
    }

    #[test]
    fn low_power_lowers_compute_bound_confidence() {
        let text = "timestamp, index, utilization.gpu [%], power.draw [W], power.limit [W]\n2026/11/30 00:00:00.000, 0, 100 %, 20.00 W, 70.00 W\n2026/11/30 01:00:00.000, 0, 100 %, 20.00 W, 70.00 W\n";
        let r = report(&log(text));
        assert_eq!(r.verdicts, ["compute-bound"]);
        assert!(
            r.findings[0].title.contains("low confidence"),
            "{:?}",
            r.findings[0]
        );
        let r = report(&log(&text.replace("20.00 W", "65.00 W")));
        assert!(!r.findings[0].title.contains("low confidence"));
    }

    #[test]
    fn thresholds_can_be_overridden() {
        let request = DiagnoseRequest {
            set: Overrides(vec!["verdict.busy-util-pct=50".into()]),
            ..log(&csv_log(&[(40.0, 0.1)], 60))
        };
        assert_eq!(verdicts(&request), ["idle"]);
    }

    #[test]
    fn no_data_from_errors_and_nothing() {
        let r = report(&log("No devices were found\n"));
        assert_eq!(r.verdicts, ["no-data"]);
        assert!(r.findings[0].evidence.contains("No devices were found"));
        let r = report(&log(
            "NVIDIA-SMI has failed because it couldn\u{2018}t communicate with the NVIDIA driver.\nMake sure that the latest NVIDIA driver is installed and running.\n",
        ));
        assert_eq!(r.errors.len(), 1);
        assert!(
            r.errors[0].contains("couldn't communicate") && r.errors[0].contains("Make sure"),
            "{:?}",
            r.errors
        );
        assert_eq!(verdicts(&DiagnoseRequest::default()), ["no-data"]);
    }

    #[test]
    fn an_assumed_interval_is_listed_with_the_rules() {
        let kgkit = "0, 55, 1200\n0, 56, 1200\n0, 57, 1200\n";
        let r = report(&log(kgkit));
        assert_eq!(r.span_source, "interval");
        assert!(
            r.rules
                .contains(&"threshold.verdict.kgkit-interval-s".to_string()),
            "{:?}",
            r.rules
        );
        let given = DiagnoseRequest {
            interval_s: Some(10.0),
            ..log(kgkit)
        };
        let r = report(&given);
        assert_eq!(r.span_s, Some(20.0));
        assert!(!r.rules.iter().any(|id| id.contains("interval")));
    }

    /// Chunks of a log read by workers where the layout allows it give the sequential answer, bit for bit.
    #[test]
    fn parallel_chunks_give_the_sequential_answer() {
        let mut text = csv_log(&[(90.0, 0.5), (3.0, 0.0)], 1200);
        // a repeated header, a bad row and a table in the middle: workers must hand these back
        let lines: Vec<&str> = text.lines().collect();
        let header = lines[0].to_string();
        let mut mixed: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        mixed.insert(100, header.clone());
        mixed.insert(150, "2026/11/30 01:00:00.000, 0, Tesla T4, 5".into());
        mixed.insert(180, "+-----+".into());
        // fractional power draws: sums in another order would differ in the last bits
        for (i, l) in mixed.iter_mut().enumerate().skip(200) {
            *l = l.replace(" W, 70", &format!(".{:02} W, 70", i % 97));
        }
        text = mixed.join("\n") + "\n";
        let sequential = report(&log(&text));
        let all: Vec<&str> = text.split_inclusive('\n').collect();
        for size in [37, 101, 500] {
            let mut d = Diagnoser::of(&DiagnoseRequest::default(), clock()).unwrap();
            // the first chunk sequential, later ones through workers when possible
            for chunk in all.chunks(size) {
                let chunk: String = chunk.concat();
                match d.csv_worker() {
                    Some(mut w) => {
                        let used = w.feed(&chunk);
                        assert!(d.absorb(w));
                        d.push(&chunk.as_bytes()[used..]);
                    }
                    None => d.push(chunk.as_bytes()),
                }
            }
            assert_eq!(d.finish(), sequential, "chunks of {size} lines");
        }
    }

    #[test]
    fn garbage_never_panics_and_names_lines() {
        let bytes: Vec<u8> = (0..5000u32).map(|i| (i * 7919 % 251) as u8).collect();
        let mut d = Diagnoser::of(&DiagnoseRequest::default(), clock()).unwrap();
        d.push(&bytes);
        let r = d.finish();
        assert_eq!(r.verdicts, ["no-data"]);
        assert!(r.diagnostics_total > 0);
        assert!(r.diagnostics.iter().all(|d| d.line >= 1));
    }
}
