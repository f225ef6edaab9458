//! Run verdicts (spec rules.md §5; CE §2, KG §5): from nvidia-smi samples and/or the three bench rates to
//! `no-data`, `idle`, `memory-bound`, `second-gpu-idle`, `input-bound`, `stalls`, `compute-bound`, `mixed`,
//! `too-short`, ordered fix-first, each a finding with its numbers and thresholds, plus the quota hours the
//! run wastes.
//!
//! [`Diagnoser`] is fed line by line (memory independent of the log's length); [`diagnose_text`] and
//! [`diagnose_bytes`] take a whole pasted input (the web page).

use crate::rulebook::ids::{RuleId, ThresholdId, rule, threshold};
use serde::Serialize;

use crate::diagnose::nvsmi::{
    AssumedInterval, Collector, Diagnostic, GpuAcc, LogParser, ParseOptions,
};
use crate::rulebook::Thresholds;
use crate::rulebook::finding::Finding;
use crate::rulebook::report::Report;
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

const T_BUSY: ThresholdId = threshold::VERDICT_BUSY_UTIL_PCT;
const T_INPUT: ThresholdId = threshold::VERDICT_INPUT_BOUND_UTIL_PCT;
const T_COMPUTE: ThresholdId = threshold::VERDICT_COMPUTE_BOUND_UTIL_PCT;
const T_STALLS: ThresholdId = threshold::VERDICT_STALLS_RATIO;
const T_COMPUTE_RATIO: ThresholdId = threshold::VERDICT_COMPUTE_RATIO;
const T_MEM: ThresholdId = threshold::VERDICT_MEMORY_PEAK_PCT;
const T_POWER: ThresholdId = threshold::VERDICT_POWER_CONFIDENCE_PCT;
const T_SHORT: ThresholdId = threshold::VERDICT_TOO_SHORT_MIN;
const T_KGKIT_S: ThresholdId = threshold::VERDICT_KGKIT_INTERVAL_S;
const T_DMON_S: ThresholdId = threshold::VERDICT_DMON_INTERVAL_S;

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

    pub fn rule(self) -> RuleId {
        match self {
            Verdict::NoData => rule::KV001,
            Verdict::Idle => rule::KV002,
            Verdict::MemoryBound => rule::KV003,
            Verdict::SecondGpuIdle => rule::KV004,
            Verdict::InputBound => rule::KV005,
            Verdict::Stalls => rule::KV006,
            Verdict::ComputeBound => rule::KV007,
            Verdict::Mixed => rule::KV008,
            Verdict::TooShort => rule::KV009,
        }
    }
}

/// The three bench rates, samples/s (CE §2).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Rates {
    pub data_rate: Option<f64>,
    pub compute_rate: Option<f64>,
    pub loop_rate: Option<f64>,
}

/// What the user tells besides the log.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RunInputs {
    pub rates: Rates,
    /// An out-of-memory event was seen (`--oom`, or "CUDA out of memory" in a log).
    pub oom: bool,
}

/// One GPU's summary (cli.md keys: index, name, samples, util_mean, util_p10, util_p90, mem_peak_mib,
/// mem_total_mib).
#[derive(Debug, Clone, PartialEq, Serialize)]
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
}

/// The streaming diagnoser: feed lines, then [`Diagnoser::finish`].
#[derive(Debug)]
pub struct Diagnoser {
    parser: LogParser,
    collector: Collector,
}

impl Diagnoser {
    pub fn new(opts: ParseOptions) -> Diagnoser {
        Diagnoser {
            parser: LogParser::new(opts),
            collector: Collector::default(),
        }
    }

    /// One line of the input, without its newline.
    #[inline]
    pub fn feed_line(&mut self, line: &str) {
        self.parser.feed_line(line, &mut self.collector);
    }

    /// Whole lines, each ending in `\n` (the last one may lack it): the same as a `feed_line` per line.
    #[inline]
    pub fn feed_lines(&mut self, text: &str) {
        self.parser.feed_lines(text, &mut self.collector);
    }

    /// A worker for the next chunk of CSV rows, when the input is in a CSV layout that allows it.
    pub fn csv_worker(&self) -> Option<crate::diagnose::nvsmi::CsvWorker> {
        self.parser.csv_worker()
    }

    /// Merges a worker that read the chunk right after everything fed so far.
    pub fn absorb(&mut self, w: crate::diagnose::nvsmi::CsvWorker) {
        self.parser.absorb(w, &mut self.collector);
    }

    /// A chunk of whole lines.
    pub fn feed_text(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        for line in text.split('\n') {
            self.feed_line(line);
        }
    }

    pub fn finish(mut self, inputs: RunInputs, t: &Thresholds) -> DiagnoseReport {
        self.parser.finish(&mut self.collector);
        let interval = self.parser.options().interval_s;
        judge(self.collector, interval, inputs, t)
    }
}

/// A whole pasted input (the web page): text of any format.
pub fn diagnose_text(
    text: &str,
    opts: ParseOptions,
    inputs: RunInputs,
    t: &Thresholds,
) -> DiagnoseReport {
    let mut d = Diagnoser::new(opts);
    // `lines()` would lose a final empty line only; the parser ignores blank lines anyway.
    for line in text.lines() {
        d.feed_line(line);
    }
    d.finish(inputs, t)
}

/// A whole input as bytes: UTF-16 (PowerShell) and BOMs decoded first.
pub fn diagnose_bytes(
    bytes: &[u8],
    opts: ParseOptions,
    inputs: RunInputs,
    t: &Thresholds,
) -> DiagnoseReport {
    diagnose_text(&crate::diagnose::nvsmi::decode(bytes), opts, inputs, t)
}

fn round(v: f64, digits: i32) -> f64 {
    let p = 10f64.powi(digits);
    (v * p).round() / p
}

fn pct(a: f64, b: f64) -> Option<f64> {
    (b > 0.0).then(|| round(100.0 * a / b, 1))
}

fn fmt_num(v: f64) -> String {
    let r = round(v, 1);
    if r.fract() == 0.0 {
        fixed(r, 0)
    } else {
        shortest(r)
    }
}

fn fmt_span(s: f64) -> String {
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

/// `GPU 0 72 % (power 45 % of 70 W)`: utilisation with power beside it where logged.
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

fn judge(
    c: Collector,
    interval_opt: Option<f64>,
    inputs: RunInputs,
    t: &Thresholds,
) -> DiagnoseReport {
    let busy_t = t.get(T_BUSY);
    let interval = interval_opt.or(match c.assumed_interval {
        Some(AssumedInterval::Kgkit) => Some(t.get(T_KGKIT_S)),
        Some(AssumedInterval::Dmon) => Some(t.get(T_DMON_S)),
        None => None,
    });
    let mut gpus: Vec<GpuReport> = c
        .gpus
        .iter()
        .map(|g| gpu_report(g, interval, busy_t))
        .collect();
    crate::text::sort::sort_by_key(&mut gpus, |g| g.index);

    // Overall span: from timestamps across GPUs, else the longest per-GPU span.
    let firsts = c
        .gpus
        .iter()
        .filter(|g| g.ts_n >= 2)
        .filter_map(|g| g.first_ts)
        .fold(None, |a: Option<f64>, x| Some(a.map_or(x, |a| a.min(x))));
    let lasts = c
        .gpus
        .iter()
        .filter(|g| g.ts_n >= 2)
        .filter_map(|g| g.last_ts)
        .fold(None, |a: Option<f64>, x| Some(a.map_or(x, |a| a.max(x))));
    let snapshot = !gpus.is_empty() && gpus.iter().all(|g| g.samples <= 1);
    let (span_s, span_source) = if snapshot {
        (Some(0.0), "snapshot")
    } else if let (Some(a), Some(b)) = (firsts, lasts) {
        (Some(round(b - a, 3)), "timestamps")
    } else if gpus.is_empty() {
        (None, "unknown")
    } else {
        match gpus
            .iter()
            .filter_map(|g| g.span_s)
            .fold(None, |a: Option<f64>, x| Some(a.map_or(x, |a| a.max(x))))
        {
            Some(s) if interval.is_some() => (Some(s), "interval"),
            _ => (None, "unknown"),
        }
    };
    let hours = span_s.map(|s| s / 3600.0);

    let rates = inputs.rates;
    let util_gpus: Vec<&GpuReport> = gpus.iter().filter(|g| g.util_mean.is_some()).collect();
    let busy: Vec<&GpuReport> = util_gpus
        .iter()
        .copied()
        .filter(|g| g.busy == Some(true))
        .collect();
    let any_rate =
        rates.data_rate.is_some() || rates.compute_rate.is_some() || rates.loop_rate.is_some();
    let dc = rates.data_rate.zip(rates.compute_rate);
    let min_busy = busy
        .iter()
        .filter_map(|g| g.util_mean)
        .fold(None, |a: Option<f64>, x| Some(a.map_or(x, |a| a.min(x))));
    let over = |g: &&GpuReport| util_text(g);
    let span_text = match span_s {
        _ if snapshot => " in a snapshot".to_string(),
        Some(s) => format!(" over {}", fmt_span(s)),
        None => String::new(),
    };

    let mut fired: Vec<(Verdict, Finding)> = Vec::new();
    let mut rules: Vec<String> = Vec::new();
    let mut wasted = hours.map(|_| 0.0);

    // no-data
    if util_gpus.is_empty() && !any_rate {
        let mut why: Vec<String> = Vec::new();
        for e in &c.errors {
            why.push(format!("nvidia-smi said: \"{e}\""));
        }
        for n in &c.notes {
            why.push(n.clone());
        }
        if !gpus.is_empty() {
            let fields = if c.util_column || c.missing_fields.is_empty() {
                "utilisation is reported as no value ([N/A], [Not Supported], N/A: MIG or an old GeForce)".to_string()
            } else {
                format!("the log has no {} column", c.missing_fields.join(" / "))
            };
            why.push(format!(
                "{} GPU(s) seen, {} sample(s), but {fields}",
                gpus.len(),
                gpus.iter().map(|g| g.samples).sum::<u64>()
            ));
        }
        if why.is_empty() {
            why.push(if c.lines == 0 {
                "the input is empty and no bench rates were given".to_string()
            } else {
                format!("none of the {} line(s) is an nvidia-smi utilisation sample, and no bench rates were given", c.lines)
            });
        }
        let mut f = Finding::from_rule(Verdict::NoData.rule(), why.join("; "));
        if !c.errors.is_empty() {
            f = f.with_title("No usable GPU data: nvidia-smi reported an error");
        } else if !c.notes.is_empty() && gpus.is_empty() {
            f = f.with_title("Not a utilisation log: nothing to judge");
        }
        fired.push((Verdict::NoData, f));
    }

    // idle
    if !util_gpus.is_empty() && busy.is_empty() {
        let list: Vec<String> = util_gpus.iter().map(over).collect();
        let w = hours.map(|h| round(h, 2));
        if let Some(w) = w {
            wasted = Some(w);
        }
        fired.push((
            Verdict::Idle,
            Finding::from_rule(
                Verdict::Idle.rule(),
                format!(
                    "{} ≤ busy threshold {} % ({T_BUSY}){span_text}{}",
                    list.join(", "),
                    fmt_num(busy_t),
                    w.filter(|w| *w > 0.0)
                        .map(|w| format!("; the whole session, {} quota h, is wasted", shortest(w)))
                        .unwrap_or_default()
                ),
            ),
        ));
        rules.push(T_BUSY.into());
    }

    // memory-bound
    let mem_t = t.get(T_MEM);
    let full: Vec<&GpuReport> = gpus
        .iter()
        .filter(|g| g.mem_peak_pct.is_some_and(|p| p >= mem_t))
        .collect();
    if inputs.oom || c.oom_line.is_some() || !full.is_empty() {
        let mut parts: Vec<String> = Vec::new();
        if inputs.oom {
            parts.push("an out-of-memory event was reported (--oom)".into());
        }
        if let Some(l) = c.oom_line {
            parts.push(format!("line {l} reports an out-of-memory error"));
        }
        for g in &full {
            parts.push(format!(
                "GPU {} peak {} MiB of {} MiB ({} % ≥ {} %, {T_MEM})",
                g.index,
                g.mem_peak_mib.map(fmt_num).unwrap_or_default(),
                g.mem_total_mib.map(fmt_num).unwrap_or_default(),
                g.mem_peak_pct.map(fmt_num).unwrap_or_default(),
                fmt_num(mem_t)
            ));
        }
        fired.push((
            Verdict::MemoryBound,
            Finding::from_rule(Verdict::MemoryBound.rule(), parts.join("; ")),
        ));
        rules.push(T_MEM.into());
    }

    // second-gpu-idle
    if util_gpus.len() >= 2 && !busy.is_empty() && busy.len() < util_gpus.len() {
        let idle: Vec<&&GpuReport> = util_gpus.iter().filter(|g| g.busy != Some(true)).collect();
        let share = idle.len() as f64 / util_gpus.len() as f64;
        let w = hours.map(|h| round(h * share, 2));
        if let (Some(w), Some(acc)) = (w, wasted.as_mut()) {
            *acc += w;
        }
        fired.push((
            Verdict::SecondGpuIdle,
            Finding::from_rule(
                Verdict::SecondGpuIdle.rule(),
                format!(
                    "{} busy; {} ≤ {} % ({T_BUSY}){span_text}: {} of {} GPUs idle{}",
                    busy.iter()
                        .map(|g| util_text(g))
                        .collect::<Vec<_>>()
                        .join(", "),
                    idle.iter()
                        .map(|g| util_text(g))
                        .collect::<Vec<_>>()
                        .join(", "),
                    fmt_num(busy_t),
                    idle.len(),
                    util_gpus.len(),
                    w.filter(|w| *w > 0.0)
                        .map(|w| format!(", wasting {} of the quota hours charged", shortest(w)))
                        .unwrap_or_default()
                ),
            ),
        ));
        rules.push(T_BUSY.into());
    }

    // input-bound
    let input_t = t.get(T_INPUT);
    let slow: Vec<&&GpuReport> = busy
        .iter()
        .filter(|g| g.util_mean.is_some_and(|u| u < input_t))
        .collect();
    let input_evidence = match dc {
        Some((d, cr)) if d < cr => Some(format!(
            "data-only rate {} samples/s < compute-only rate {} samples/s: the loader cannot feed the step",
            fmt_num(d),
            fmt_num(cr)
        )),
        Some(_) => None,
        None => (!slow.is_empty()).then(|| {
            format!(
                "lowest busy GPU: {} < {} % ({T_INPUT}){span_text}",
                slow.iter()
                    .min_by(|a, b| a
                        .util_mean
                        .partial_cmp(&b.util_mean)
                        .unwrap_or(std::cmp::Ordering::Equal))
                    .map(|g| util_text(g))
                    .unwrap_or_default(),
                fmt_num(input_t)
            )
        }),
    };
    if let Some(mut ev) = input_evidence {
        if let Some(h) = hours {
            let n = util_gpus.len().max(1) as f64;
            let w: f64 = slow
                .iter()
                .filter_map(|g| g.util_mean)
                .map(|u| h / n * (1.0 - u / 100.0))
                .sum();
            if w > 0.0 {
                ev.push_str(&format!(
                    "; about {} quota h wasted waiting for data",
                    shortest(round(w, 2))
                ));
                if let Some(acc) = wasted.as_mut() {
                    *acc += w;
                }
            }
        }
        fired.push((
            Verdict::InputBound,
            Finding::from_rule(Verdict::InputBound.rule(), ev),
        ));
        rules.push(T_INPUT.into());
    }

    // stalls
    let stalls_t = t.get(T_STALLS);
    if let (Some((d, cr)), Some(l)) = (dc, rates.loop_rate) {
        let floor = stalls_t * d.min(cr);
        if l < floor {
            fired.push((
                Verdict::Stalls,
                Finding::from_rule(
                    Verdict::Stalls.rule(),
                    format!(
                        "real loop {} samples/s < {} x min(data-only {}, compute-only {}) = {} ({T_STALLS})",
                        fmt_num(l),
                        fmt_num(stalls_t),
                        fmt_num(d),
                        fmt_num(cr),
                        fmt_num(floor)
                    ),
                ),
            ));
            rules.push(T_STALLS.into());
        }
    }

    // compute-bound
    let compute_t = t.get(T_COMPUTE);
    let ratio_t = t.get(T_COMPUTE_RATIO);
    let by_rates = match (rates.loop_rate, rates.compute_rate) {
        (Some(l), Some(cr)) if l >= ratio_t * cr => Some(format!(
            "real loop {} samples/s ≥ {} x compute-only {} samples/s ({T_COMPUTE_RATIO})",
            fmt_num(l),
            fmt_num(ratio_t),
            fmt_num(cr)
        )),
        _ => None,
    };
    let by_util = (!busy.is_empty()
        && busy
            .iter()
            .all(|g| g.util_mean.is_some_and(|u| u > compute_t)))
    .then(|| {
        format!(
            "every busy GPU above {} % ({T_COMPUTE}): {}",
            fmt_num(compute_t),
            busy.iter()
                .map(|g| util_text(g))
                .collect::<Vec<_>>()
                .join(", ")
        )
    });
    if by_rates.is_some() || by_util.is_some() {
        let power_t = t.get(T_POWER);
        let low_power: Vec<&&GpuReport> = busy
            .iter()
            .filter(|g| g.power_pct.is_some_and(|p| p < power_t))
            .collect();
        let mut ev: Vec<String> = by_rates.iter().chain(by_util.iter()).cloned().collect();
        let mut f = Finding::from_rule(Verdict::ComputeBound.rule(), String::new());
        if by_rates.is_none() && !low_power.is_empty() {
            ev.push(format!(
                "low confidence: mean power draw below {} % of the limit ({T_POWER}) on GPU {} — utilisation alone is coarse (a single busy thread reads 100 %)",
                fmt_num(power_t),
                low_power.iter().map(|g| g.index.to_string()).collect::<Vec<_>>().join(", ")
            ));
            f = f.with_title("Compute-bound (low confidence: power draw well below the limit)");
        }
        f.evidence = ev.join("; ");
        fired.push((Verdict::ComputeBound, f));
        rules.extend([
            T_COMPUTE_RATIO.to_string(),
            T_COMPUTE.to_string(),
            T_POWER.to_string(),
        ]);
    }

    // mixed
    if dc.is_none()
        && let Some(lo) = min_busy
        && lo >= input_t
        && by_util.is_none()
    {
        fired.push((
            Verdict::Mixed,
            Finding::from_rule(
                Verdict::Mixed.rule(),
                format!(
                    "no bench rates; busy GPUs between {} % and {} % ({T_INPUT}, {T_COMPUTE}): {}",
                    fmt_num(input_t),
                    fmt_num(compute_t),
                    busy.iter()
                        .map(|g| util_text(g))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
        ));
        rules.extend([T_INPUT.to_string(), T_COMPUTE.to_string()]);
    }

    // too-short
    let short_t = t.get(T_SHORT);
    if !gpus.is_empty() && (snapshot || span_s.is_some_and(|s| s < short_t * 60.0)) {
        let ev = if snapshot {
            format!(
                "a snapshot (one sample per GPU): mostly start-up or a single instant; judge on a log of {} min or more ({T_SHORT})",
                fmt_num(short_t)
            )
        } else {
            format!(
                "observed span {} < {} min ({T_SHORT}): mostly start-up",
                fmt_span(span_s.unwrap_or(0.0)),
                fmt_num(short_t)
            )
        };
        fired.push((
            Verdict::TooShort,
            Finding::from_rule(Verdict::TooShort.rule(), ev),
        ));
        rules.push(T_SHORT.into());
    }

    crate::text::sort::sort_by_key(&mut fired, |(v, _)| *v);
    let verdicts: Vec<&'static str> = fired.iter().map(|(v, _)| v.as_str()).collect();
    let mut findings: Vec<Finding> = Vec::new();
    let mut rule_ids: Vec<String> = fired.iter().map(|(v, _)| v.rule().to_string()).collect();
    findings.extend(fired.into_iter().map(|(_, f)| f));
    if span_s.is_none() && !gpus.is_empty() {
        findings.push(Finding::from_rule(
            rule::KV011,
            "the samples carry no timestamps and no sampling interval is known: pass --interval-s S",
        ));
        rule_ids.push(rule::KV011.into());
    }
    if c.diagnostics_total > 0 {
        let shown: Vec<String> = c
            .diagnostics
            .iter()
            .take(5)
            .map(|d| format!("line {}: {}", d.line, d.message))
            .collect();
        let more = c.diagnostics_total.saturating_sub(shown.len());
        findings.push(Finding::from_rule(
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
        ));
        rule_ids.push(rule::KV010.into());
    }
    rule_ids.extend(rules);
    let mut seen = std::collections::BTreeSet::new();
    rule_ids.retain(|r| seen.insert(r.clone()));

    DiagnoseReport {
        schema: DIAGNOSE_SCHEMA,
        formats: c.formats.iter().map(|f| f.as_str()).collect(),
        lines: c.lines,
        verdicts,
        gpus,
        span_s,
        span_source,
        wasted_quota_hours: wasted.map(|w| round(w, 2)),
        rates,
        oom: inputs.oom || c.oom_line.is_some(),
        errors: c.errors,
        notes: c.notes,
        diagnostics: c.diagnostics,
        diagnostics_total: c.diagnostics_total,
        rules: rule_ids,
        findings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    fn verdicts(text: &str, inputs: RunInputs) -> Vec<&'static str> {
        diagnose_text(
            text,
            ParseOptions::default(),
            inputs,
            &Thresholds::defaults(),
        )
        .verdicts
    }

    #[test]
    fn idle_and_not() {
        assert_eq!(
            verdicts(
                &csv_log(&[(0.0, 0.1), (2.0, 0.1)], 60),
                RunInputs::default()
            ),
            ["idle"]
        );
        assert!(!verdicts(&csv_log(&[(50.0, 0.1)], 60), RunInputs::default()).contains(&"idle"));
    }

    #[test]
    fn second_gpu_idle_wastes_half() {
        let r = diagnose_text(
            &csv_log(&[(95.0, 0.5), (0.0, 0.0)], 120),
            ParseOptions::default(),
            RunInputs::default(),
            &Thresholds::defaults(),
        );
        assert_eq!(r.verdicts, ["second-gpu-idle", "compute-bound"]);
        assert_eq!(r.wasted_quota_hours, Some(1.0));
        let r = verdicts(
            &csv_log(&[(95.0, 0.5), (93.0, 0.5)], 120),
            RunInputs::default(),
        );
        assert!(!r.contains(&"second-gpu-idle"));
    }

    #[test]
    fn input_bound_by_util_and_by_rates() {
        let r = diagnose_text(
            &csv_log(&[(40.0, 0.5)], 60),
            ParseOptions::default(),
            RunInputs::default(),
            &Thresholds::defaults(),
        );
        assert_eq!(r.verdicts, ["input-bound"]);
        assert_eq!(r.wasted_quota_hours, Some(0.6));
        let rates = Rates {
            data_rate: Some(400.0),
            compute_rate: Some(1000.0),
            loop_rate: Some(390.0),
        };
        let v = verdicts("", RunInputs { rates, oom: false });
        assert_eq!(v, ["input-bound"]);
        let rates = Rates {
            data_rate: Some(2000.0),
            compute_rate: Some(1000.0),
            loop_rate: Some(950.0),
        };
        assert_eq!(
            verdicts("", RunInputs { rates, oom: false }),
            ["compute-bound"]
        );
    }

    #[test]
    fn stalls_both_polarities() {
        let rates = Rates {
            data_rate: Some(1100.0),
            compute_rate: Some(1000.0),
            loop_rate: Some(300.0),
        };
        assert_eq!(verdicts("", RunInputs { rates, oom: false }), ["stalls"]);
        let rates = Rates {
            data_rate: Some(1100.0),
            compute_rate: Some(1000.0),
            loop_rate: Some(800.0),
        };
        assert!(verdicts("", RunInputs { rates, oom: false }).is_empty());
    }

    #[test]
    fn memory_mixed_and_too_short() {
        assert_eq!(
            verdicts(&csv_log(&[(70.0, 0.97)], 60), RunInputs::default()),
            ["memory-bound", "mixed"]
        );
        assert_eq!(
            verdicts(&csv_log(&[(70.0, 0.5)], 5), RunInputs::default()),
            ["mixed", "too-short"]
        );
        assert_eq!(
            verdicts(
                &csv_log(&[(70.0, 0.5)], 60),
                RunInputs {
                    oom: true,
                    ..Default::default()
                }
            ),
            ["memory-bound", "mixed"]
        );
    }

    #[test]
    fn low_power_lowers_compute_bound_confidence() {
        let text = "timestamp, index, utilization.gpu [%], power.draw [W], power.limit [W]\n2026/11/30 00:00:00.000, 0, 100 %, 20.00 W, 70.00 W\n2026/11/30 01:00:00.000, 0, 100 %, 20.00 W, 70.00 W\n";
        let r = diagnose_text(
            text,
            ParseOptions::default(),
            RunInputs::default(),
            &Thresholds::defaults(),
        );
        assert_eq!(r.verdicts, ["compute-bound"]);
        assert!(
            r.findings[0].title.contains("low confidence"),
            "{:?}",
            r.findings[0]
        );
        let r = diagnose_text(
            &text.replace("20.00 W", "65.00 W"),
            ParseOptions::default(),
            RunInputs::default(),
            &Thresholds::defaults(),
        );
        assert!(!r.findings[0].title.contains("low confidence"));
    }

    #[test]
    fn thresholds_can_be_overridden() {
        let t = Thresholds::defaults()
            .with_overrides(&["verdict.busy-util-pct=50".into()])
            .unwrap();
        let r = diagnose_text(
            &csv_log(&[(40.0, 0.1)], 60),
            ParseOptions::default(),
            RunInputs::default(),
            &t,
        );
        assert_eq!(r.verdicts, ["idle"]);
    }

    #[test]
    fn no_data_from_errors_and_nothing() {
        let r = diagnose_text(
            "No devices were found\n",
            ParseOptions::default(),
            RunInputs::default(),
            &Thresholds::defaults(),
        );
        assert_eq!(r.verdicts, ["no-data"]);
        assert!(r.findings[0].evidence.contains("No devices were found"));
        let r = diagnose_text(
            "NVIDIA-SMI has failed because it couldn\u{2018}t communicate with the NVIDIA driver.\nMake sure that the latest NVIDIA driver is installed and running.\n",
            ParseOptions::default(),
            RunInputs::default(),
            &Thresholds::defaults(),
        );
        assert_eq!(r.errors.len(), 1);
        assert!(
            r.errors[0].contains("couldn't communicate") && r.errors[0].contains("Make sure"),
            "{:?}",
            r.errors
        );
        assert_eq!(
            diagnose_text(
                "",
                ParseOptions::default(),
                RunInputs::default(),
                &Thresholds::defaults()
            )
            .verdicts,
            ["no-data"]
        );
    }

    #[test]
    fn parallel_chunks_give_the_sequential_answer() {
        let mut text = csv_log(&[(90.0, 0.5), (3.0, 0.0)], 120);
        // a repeated header, a bad row and a table in the middle: workers must hand these back
        let lines: Vec<&str> = text.lines().collect();
        let header = lines[0].to_string();
        let mut mixed: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        mixed.insert(100, header.clone());
        mixed.insert(150, "2026/11/30 01:00:00.000, 0, Tesla T4, 5".into());
        mixed.insert(180, "+-----+".into());
        text = mixed.join("\n") + "\n";
        let t = Thresholds::defaults();
        let seq = diagnose_text(&text, ParseOptions::default(), RunInputs::default(), &t);
        let mut d = Diagnoser::new(ParseOptions::default());
        // chunks of 37 lines: the first sequential, later ones through workers when possible
        let all: Vec<&str> = text.split_inclusive('\n').collect();
        for chunk in all.chunks(37) {
            let chunk: String = chunk.concat();
            match d.csv_worker() {
                Some(mut w) => {
                    let used = w.feed(&chunk);
                    d.absorb(w);
                    d.feed_text(chunk[used..].trim_end_matches('\n'));
                }
                None => d.feed_text(chunk.trim_end_matches('\n')),
            }
        }
        let par = d.finish(RunInputs::default(), &t);
        assert_eq!(par.verdicts, seq.verdicts);
        assert_eq!(par.diagnostics, seq.diagnostics);
        assert_eq!(par.lines, seq.lines);
        assert_eq!(par.span_s, seq.span_s);
        for (a, b) in par.gpus.iter().zip(&seq.gpus) {
            assert_eq!(
                (
                    a.samples,
                    a.util_mean,
                    a.util_p10,
                    a.util_p90,
                    a.mem_peak_mib
                ),
                (
                    b.samples,
                    b.util_mean,
                    b.util_p10,
                    b.util_p90,
                    b.mem_peak_mib
                )
            );
            assert_eq!(a.power_mean_w, b.power_mean_w);
        }
    }

    #[test]
    fn garbage_never_panics_and_names_lines() {
        let bytes: Vec<u8> = (0..5000u32).map(|i| (i * 7919 % 251) as u8).collect();
        let r = diagnose_bytes(
            &bytes,
            ParseOptions::default(),
            RunInputs::default(),
            &Thresholds::defaults(),
        );
        assert_eq!(r.verdicts, ["no-data"]);
        assert!(r.diagnostics_total > 0);
        assert!(r.diagnostics.iter().all(|d| d.line >= 1));
    }
}
