//! Verdicts while the run is still running (`kgadvise sample --live`, `kgadvise watch`, the wheel's
//! `watch(live=True)`): a [`LiveDiagnoser`] is fed nvidia-smi output as it arrives and can be asked at any
//! time for a [`LiveReport`], the same verdicts as the final diagnosis, each marked settled or provisional,
//! with the minutes of log it rests on and the quota hours it costs per hour of run.
//!
//! A verdict settles (and its alarm is raised, once) only when its evidence already meets the rule's own
//! thresholds and has held without a break for `threshold.verdict.live-settle-min` of the log's own time;
//! the throughput verdicts also wait for the too-short span (start-up misleads them). The log's time is
//! its timestamps, never the clock, and the state is judged after every whole line: a replay gives the
//! same alarms however fast it is read and however the bytes are cut. [`LiveDiagnoser::finish`] is
//! [`Diagnoser::finish`]: the final report is `diagnose` of the same log, byte for byte.

use std::collections::VecDeque;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::diagnose::text::sparkline;
use crate::diagnose::verdict::{DiagnoseReport, Verdict, fmt_num, fmt_span};
use crate::diagnose::{DiagnoseRequest, Diagnoser};
use crate::request::RequestError;
use crate::rulebook::Thresholds;
use crate::rulebook::ids::threshold;
use crate::text::count::counted;
use crate::text::number::fixed;
use crate::text::table::TextTable;

pub const LIVE_SCHEMA: &str = "kgadvise.live/1";

/// Seconds between two redraws of a live view: a surface refreshes no faster (the verdicts move by the
/// minute; redrawing costs the run it watches).
pub const REFRESH_S: f64 = 2.0;

/// Seconds between two plain lines of a view that cannot redraw (a file, a Kaggle kernel's log): a
/// 9-hour run leaves 540 lines, not 16,000.
pub const LINE_REFRESH_S: f64 = 60.0;

/// Utilisation samples a GPU's sparkline keeps: the last minutes at a 1 s interval.
const RECENT_SAMPLES: usize = 180;

/// Characters of a GPU's sparkline.
const SPARK_WIDTH: usize = 30;

/// The line a terminal view ends with: how to stop it.
pub const STOP_HINT: &str = "Ctrl+C stops sampling and prints the final diagnosis.";

/// One GPU now.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LiveGpu {
    pub index: u32,
    pub name: Option<String>,
    /// Samples of this GPU so far.
    pub samples: u64,
    /// Utilisation of the latest sample, %.
    pub util_now: Option<f64>,
    /// Mean utilisation since the start, %.
    pub util_mean: Option<f64>,
    /// The last samples' utilisation, oldest first.
    pub recent: Vec<f64>,
    pub sparkline: String,
    pub mem_peak_mib: Option<f64>,
    pub mem_total_mib: Option<f64>,
    /// Power draw of the latest sample, W.
    pub power_now_w: Option<f64>,
    pub power_limit_w: Option<f64>,
}

/// One verdict so far.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LiveVerdict {
    pub verdict: &'static str,
    pub rule: String,
    pub title: String,
    pub evidence: String,
    pub fix: String,
    /// Held long enough to stand (see the module's doc); provisional otherwise.
    pub settled: bool,
    /// Seconds into the log when it began to hold, without a break since.
    pub since_s: f64,
    /// Minutes of log it has held for.
    pub evidence_min: f64,
    /// Quota hours it wastes per hour of run (idle, second-gpu-idle, input-bound); null for the others.
    pub quota_hours_per_hour: Option<f64>,
}

/// The provisional answer of a run still running.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LiveReport {
    pub schema: &'static str,
    /// Seconds of log so far (from the timestamps, or samples x interval); null when unknown.
    pub span_s: Option<f64>,
    /// Samples so far, every GPU's together (one per GPU per reading).
    pub samples: u64,
    pub gpus: Vec<LiveGpu>,
    /// Verdicts so far, fix first.
    pub verdicts: Vec<LiveVerdict>,
}

/// What a GPU's running sums were at the previous line: the difference is the newest sample.
#[derive(Debug, Clone, Default)]
struct Trace {
    index: u32,
    util: (f64, u64),
    power: (f64, u64),
    util_now: Option<f64>,
    power_now: Option<f64>,
    recent: VecDeque<f64>,
}

impl Trace {
    fn update(&mut self, util: (f64, u64), power: (f64, u64)) {
        if util.1 > self.util.1 {
            let now = (util.0 - self.util.0) / (util.1 - self.util.1) as f64;
            self.util_now = Some(now);
            if self.recent.len() == RECENT_SAMPLES {
                self.recent.pop_front();
            }
            self.recent.push_back(now);
        }
        if power.1 > self.power.1 {
            self.power_now = Some((power.0 - self.power.0) / (power.1 - self.power.1) as f64);
        }
        self.util = util;
        self.power = power;
    }
}

/// A verdict holding without a break since `since_s`.
#[derive(Debug, Clone, Copy)]
struct Streak {
    verdict: Verdict,
    since_s: f64,
    settled: bool,
}

/// The live diagnosis: a [`Diagnoser`] and what it has held so far.
#[derive(Debug)]
pub struct LiveDiagnoser {
    diagnoser: Diagnoser,
    traces: Vec<Trace>,
    streaks: Vec<Streak>,
    samples: u64,
    report: LiveReport,
    alarms: Vec<LiveVerdict>,
    /// The verdicts whose alarm was given: each is given once.
    alarmed: Vec<Verdict>,
}

impl LiveDiagnoser {
    /// Validates the request (all but its log), as [`Diagnoser::of`].
    pub fn of(
        request: &DiagnoseRequest,
        clock: DateTime<Utc>,
    ) -> Result<LiveDiagnoser, RequestError> {
        let diagnoser = Diagnoser::of(request, clock)?;
        Ok(LiveDiagnoser {
            diagnoser,
            traces: Vec::new(),
            streaks: Vec::new(),
            samples: 0,
            report: LiveReport {
                schema: LIVE_SCHEMA,
                span_s: None,
                samples: 0,
                gpus: Vec::new(),
                verdicts: Vec::new(),
            },
            alarms: Vec::new(),
            alarmed: Vec::new(),
        })
    }

    /// The next bytes of nvidia-smi's output, cut anywhere; the verdicts are judged after each whole line.
    pub fn push(&mut self, bytes: &[u8]) {
        for piece in bytes.split_inclusive(|b| *b == b'\n') {
            self.diagnoser.push(piece);
            if piece.ends_with(b"\n") {
                self.observe();
            }
        }
    }

    /// The provisional answer as of the last whole line.
    pub fn report(&self) -> &LiveReport {
        &self.report
    }

    /// The verdicts that settled since the last call, each given once: the early alarms.
    pub fn take_alarms(&mut self) -> Vec<LiveVerdict> {
        std::mem::take(&mut self.alarms)
    }

    /// The end of the log: the final report, `diagnose` of everything pushed.
    pub fn finish(self) -> DiagnoseReport {
        self.diagnoser.finish()
    }

    /// After a whole line: when it added a sample, judge again.
    fn observe(&mut self) {
        let c = self.diagnoser.collector();
        let samples: u64 = c.gpus.iter().map(|g| g.samples).sum();
        if samples == self.samples {
            return;
        }
        self.samples = samples;
        for g in &c.gpus {
            let at = match self.traces.iter().position(|t| t.index == g.index) {
                Some(i) => i,
                None => {
                    self.traces.push(Trace {
                        index: g.index,
                        ..Trace::default()
                    });
                    self.traces.len() - 1
                }
            };
            if let Some(t) = self.traces.get_mut(at) {
                t.update((g.util_sum, g.util_n), (g.power_sum, g.power_n));
            }
        }
        let (report, costs) = self.diagnoser.provisional();
        self.follow_streaks(&report);
        self.report = self.live_report(&report, &costs);
    }

    /// Starts, keeps, ends and settles the streaks of the verdicts the report holds.
    fn follow_streaks(&mut self, report: &DiagnoseReport) {
        let span = report.span_s;
        let held: Vec<Verdict> = Verdict::ALL
            .into_iter()
            .filter(|v| report.verdicts.contains(&v.as_str()))
            .collect();
        self.streaks.retain(|s| held.contains(&s.verdict));
        for v in held {
            if !self.streaks.iter().any(|s| s.verdict == v) {
                self.streaks.push(Streak {
                    verdict: v,
                    since_s: span.unwrap_or(0.0),
                    settled: false,
                });
            }
        }
        let t = self.diagnoser.thresholds().clone();
        for s in &mut self.streaks {
            if !s.settled && span.is_some_and(|now| settles(s.verdict, now - s.since_s, now, &t)) {
                s.settled = true;
            }
        }
    }

    fn live_report(&mut self, report: &DiagnoseReport, costs: &[(Verdict, f64); 3]) -> LiveReport {
        let now = report.span_s.unwrap_or(0.0);
        let mut verdicts = Vec::new();
        for v in Verdict::ALL {
            let Some(s) = self.streaks.iter().find(|s| s.verdict == v) else {
                continue;
            };
            let Some(f) = report
                .findings
                .iter()
                .find(|f| v.rules().iter().any(|r| f.rule == r.as_str()))
            else {
                continue;
            };
            let live = LiveVerdict {
                verdict: v.as_str(),
                rule: f.rule.clone(),
                title: f.title.clone(),
                evidence: f.evidence.clone(),
                fix: f.fix.clone(),
                settled: s.settled,
                since_s: s.since_s,
                evidence_min: round2((now - s.since_s).max(0.0) / 60.0),
                quota_hours_per_hour: costs.iter().find(|(c, _)| *c == v).map(|(_, h)| round2(*h)),
            };
            if s.settled && !self.alarmed.contains(&v) {
                self.alarmed.push(v);
                self.alarms.push(live.clone());
            }
            verdicts.push(live);
        }
        LiveReport {
            schema: LIVE_SCHEMA,
            span_s: report.span_s,
            samples: self.samples,
            gpus: self.gpus(report),
            verdicts,
        }
    }

    fn gpus(&self, report: &DiagnoseReport) -> Vec<LiveGpu> {
        report
            .gpus
            .iter()
            .map(|g| {
                let trace = self.traces.iter().find(|t| t.index == g.index);
                let recent: Vec<f64> = trace
                    .map(|t| t.recent.iter().copied().collect())
                    .unwrap_or_default();
                LiveGpu {
                    index: g.index,
                    name: g.name.clone(),
                    samples: g.samples,
                    util_now: trace.and_then(|t| t.util_now),
                    util_mean: g.util_mean,
                    sparkline: sparkline(&recent, SPARK_WIDTH),
                    recent,
                    mem_peak_mib: g.mem_peak_mib,
                    mem_total_mib: g.mem_total_mib,
                    power_now_w: trace.and_then(|t| t.power_now),
                    power_limit_w: g.power_limit_w,
                }
            })
            .collect()
    }
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// Whether a verdict held for `held_s` seconds, `span_s` into the log, stands: never the caveats
/// (no-data, too-short: the final diagnosis decides them); the throughput verdicts only past the
/// too-short span; every verdict only after `live-settle-min` without a break.
fn settles(v: Verdict, held_s: f64, span_s: f64, t: &Thresholds) -> bool {
    let settle_s = t.get(threshold::VERDICT_LIVE_SETTLE_MIN) * 60.0;
    let short_s = t.get(threshold::VERDICT_TOO_SHORT_MIN) * 60.0;
    match v {
        Verdict::NoData | Verdict::TooShort => false,
        Verdict::Idle | Verdict::InputBound | Verdict::ComputeBound | Verdict::Mixed => {
            held_s >= settle_s && span_s >= short_s
        }
        Verdict::MemoryBound | Verdict::SecondGpuIdle | Verdict::Stalls => held_s >= settle_s,
    }
}

/// `95 %`, `-` when unknown.
fn pct_or_dash(v: Option<f64>) -> String {
    v.map(|x| format!("{} %", fixed(x, 0)))
        .unwrap_or_else(|| "-".into())
}

/// `7,680 / 15,360 MiB`-like pairs: `a / b unit`, `a unit`, or `-`.
fn of_total(a: Option<f64>, b: Option<f64>, unit: &str) -> String {
    match (a, b) {
        (Some(a), Some(b)) => format!("{} / {} {unit}", fixed(a, 0), fixed(b, 0)),
        (Some(a), None) => format!("{} {unit}", fixed(a, 0)),
        _ => "-".into(),
    }
}

impl LiveVerdict {
    /// `settled` or `provisional`.
    pub fn state(&self) -> &'static str {
        if self.settled {
            "settled"
        } else {
            "provisional"
        }
    }

    /// `held 1.5 min; 0.5 quota h per hour of run`: the evidence's weight and the hours at stake.
    pub fn weight(&self) -> String {
        let mut s = format!("held {}", fmt_span(self.evidence_min * 60.0));
        if let Some(h) = self.quota_hours_per_hour.filter(|h| *h > 0.0) {
            s.push_str(&format!("; {} quota h per hour of run", fmt_num(h)));
        }
        s
    }

    /// The early alarm, printed once when the verdict settles.
    pub fn alarm_text(&self) -> String {
        format!(
            "*** kgadvise ALARM: {} ({}, {} into the run, {}) ***\n    {}\n    Fix: {}",
            self.title,
            self.verdict,
            fmt_span(self.since_s + self.evidence_min * 60.0),
            self.weight(),
            self.evidence,
            self.fix
        )
    }
}

impl LiveReport {
    /// The heading: how much of the run has been read, its samples counted per GPU.
    pub fn heading(&self) -> String {
        let span = self
            .span_s
            .map(fmt_span)
            .unwrap_or_else(|| "unknown span".into());
        let per_gpu = self.gpus.iter().map(|g| g.samples).max();
        let samples = match (per_gpu, self.gpus.len()) {
            (Some(n), gpus) if gpus > 1 => {
                format!("{} per GPU, {gpus} GPUs", counted(n, "sample", "samples"))
            }
            (Some(n), _) => counted(n, "sample", "samples"),
            (None, _) => counted(self.samples, "sample", "samples"),
        };
        format!("kgadvise live: {span} of the run, {samples}")
    }

    /// One row per GPU: utilisation now, the sparkline of the last samples, memory, power.
    pub fn gpu_table(&self) -> TextTable {
        let rows = self
            .gpus
            .iter()
            .map(|g| {
                vec![
                    g.index.to_string(),
                    g.name.clone().unwrap_or_else(|| "-".into()),
                    pct_or_dash(g.util_now),
                    pct_or_dash(g.util_mean),
                    g.sparkline.clone(),
                    of_total(g.mem_peak_mib, g.mem_total_mib, "MiB"),
                    of_total(g.power_now_w, g.power_limit_w, "W"),
                ]
            })
            .collect();
        TextTable::new(
            &[
                "GPU",
                "name",
                "util now",
                "mean",
                "last minutes",
                "memory peak",
                "power",
            ],
            rows,
        )
    }

    /// One line per verdict so far: its state, code, title, weight and evidence.
    pub fn verdict_lines(&self) -> Vec<String> {
        if self.verdicts.is_empty() {
            return vec!["No verdict yet.".into()];
        }
        self.verdicts
            .iter()
            .map(|v| {
                format!(
                    "[{}] {} - {} ({}): {}",
                    v.state(),
                    v.verdict,
                    v.title,
                    v.weight(),
                    v.evidence
                )
            })
            .collect()
    }

    /// The whole view a terminal or a notebook cell redraws in place.
    pub fn view_text(&self) -> String {
        let mut s = self.heading();
        s.push_str("\n\n");
        s.push_str(&self.gpu_table().text());
        s.push_str("\nVerdicts so far (fix first):\n");
        for l in self.verdict_lines() {
            s.push_str("  ");
            s.push_str(&l);
            s.push('\n');
        }
        s
    }

    /// The view as one plain line, for an output that is not a terminal (a log file, a kernel's log).
    pub fn line(&self) -> String {
        let span = self.span_s.map(fmt_span).unwrap_or_else(|| "?".into());
        let gpus: Vec<String> = self
            .gpus
            .iter()
            .map(|g| format!("GPU {} {}", g.index, pct_or_dash(g.util_now)))
            .collect();
        let verdicts: Vec<String> = self
            .verdicts
            .iter()
            .map(|v| format!("{} ({})", v.verdict, v.state()))
            .collect();
        let verdicts = if verdicts.is_empty() {
            "no verdict yet".to_string()
        } else {
            verdicts.join(", ")
        };
        format!("kgadvise live [{span}] {} | {verdicts}", gpus.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::diagnose;

    const SECOND_IDLE: &str = include_str!("../../../tests/fixtures/live/second-gpu-idle-2xT4.csv");
    const DIP: &str = include_str!("../../../tests/fixtures/live/dip-recovers-2xT4.csv");

    fn clock() -> DateTime<Utc> {
        "2026-12-01T00:00:00Z".parse().unwrap()
    }

    /// Replays a log line by line; the alarms with the span at which each was given.
    fn replay(log: &str, chunk: usize) -> (Vec<(LiveVerdict, f64)>, LiveDiagnoser) {
        let mut live = LiveDiagnoser::of(&DiagnoseRequest::default(), clock()).unwrap();
        let mut alarms = Vec::new();
        for piece in log.as_bytes().chunks(chunk) {
            live.push(piece);
            let span = live.report().span_s.unwrap_or(0.0);
            alarms.extend(live.take_alarms().into_iter().map(|a| (a, span)));
        }
        (alarms, live)
    }

    #[test]
    fn an_idle_second_gpu_raises_its_alarm_once_within_two_minutes() {
        let (alarms, live) = replay(SECOND_IDLE, 150);
        let [(alarm, _)] = alarms.as_slice() else {
            panic!("{alarms:?}")
        };
        assert_eq!(alarm.verdict, "second-gpu-idle");
        let at = alarm.since_s + alarm.evidence_min * 60.0;
        assert!((60.0..=120.0).contains(&at), "{alarm:?}");
        assert_eq!(alarm.quota_hours_per_hour, Some(0.5));
        assert!(
            alarm.alarm_text().contains("0.5 quota h per hour of run"),
            "{}",
            alarm.alarm_text()
        );
        let view = live.report().view_text();
        assert!(view.contains("[settled] second-gpu-idle"), "{view}");
        assert!(view.contains("[provisional] too-short"), "{view}");
        assert_eq!(live.report().gpus.len(), 2);
        assert_eq!(live.report().gpus[1].util_now, Some(0.0));
    }

    #[test]
    fn a_dip_that_recovers_raises_no_alarm() {
        let (alarms, live) = replay(DIP, 64);
        assert!(alarms.is_empty(), "{alarms:?}");
        assert!(
            !live
                .report()
                .verdicts
                .iter()
                .any(|v| v.verdict == "second-gpu-idle")
        );
    }

    /// However the bytes are cut, the same alarms at the same spans, and the final report is
    /// `diagnose` of the whole log.
    #[test]
    fn the_cut_does_not_matter_and_the_end_is_diagnose() {
        let whole = diagnose(
            &DiagnoseRequest {
                log: Some(SECOND_IDLE.into()),
                ..DiagnoseRequest::default()
            },
            clock(),
        )
        .unwrap();
        let (first, _) = replay(SECOND_IDLE, 1);
        for chunk in [7, 4096, SECOND_IDLE.len()] {
            let (alarms, live) = replay(SECOND_IDLE, chunk);
            let spans = |a: &[(LiveVerdict, f64)]| -> Vec<f64> {
                a.iter()
                    .map(|(v, _)| v.since_s + v.evidence_min * 60.0)
                    .collect()
            };
            assert_eq!(spans(&alarms), spans(&first), "chunks of {chunk}");
            assert_eq!(live.finish(), whole, "chunks of {chunk}");
        }
    }

    #[test]
    fn plain_line_and_empty_view() {
        let live = LiveDiagnoser::of(&DiagnoseRequest::default(), clock()).unwrap();
        assert_eq!(live.report().line(), "kgadvise live [?]  | no verdict yet");
        let (_, live) = replay(SECOND_IDLE, 4096);
        let line = live.report().line();
        assert!(line.starts_with("kgadvise live [9.9 min] GPU 0 "), "{line}");
        assert!(line.contains("second-gpu-idle (settled)"), "{line}");
    }
}
