//! The words a drawn utilisation timeline carries (the page's Diagnose charts): its caption, and the ticks
//! of its x axis at round times since the GPU's first sample, or at round sample numbers when the log gives
//! no time. The drawing itself is the surface's.

use crate::diagnose::verdict::GpuReport;
use crate::text::count::counted;
use crate::text::number::fixed;

/// The most ticks an x axis gets beyond its 0 (labels at the page's text size must not collide).
const MAX_TICK_STEPS: f64 = 6.0;

/// Tick spacings in seconds: round to a reader of clocks (15 s, 30 min, 6 h, a day).
const TIME_STEPS_S: [f64; 18] = [
    1.0, 2.0, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 900.0, 1800.0, 3600.0, 7200.0,
    10800.0, 21600.0, 43200.0, 86400.0,
];
const DAY_S: f64 = 86400.0;

/// A tick of the x axis: where it stands (0 = the first sample, 1 = the last) and its label.
#[derive(Debug, Clone, PartialEq)]
pub struct AxisTick {
    pub at: f64,
    pub label: String,
}

/// What a chart of one GPU's timeline writes beside its line.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineAxis {
    /// "GPU 0 utilisation (%) by time since its first sample, 720 samples per point; ...".
    pub caption: String,
    pub ticks: Vec<AxisTick>,
}

/// The caption and the x ticks of `gpu`'s timeline: over its span when the log gave times, else over its
/// sample numbers (0 to `util_samples - 1`).
pub fn timeline_axis(gpu: &GpuReport) -> TimelineAxis {
    let span = gpu.span_s.filter(|s| *s > 0.0);
    let across = match span {
        Some(_) => "time since its first sample",
        None => "sample number (the log gives no time)",
    };
    let caption = format!(
        "GPU {} utilisation (%) by {across}, {} per point; dashed: the verdict thresholds",
        gpu.index,
        counted(gpu.timeline_step_samples, "sample", "samples")
    );
    let ticks = match span {
        Some(s) => ticks(s, time_step(s), true),
        None => {
            let last = (gpu.util_samples.max(2) - 1) as f64;
            ticks(last, count_step(last), false)
        }
    };
    TimelineAxis { caption, ticks }
}

/// The round time spacing that puts at most `MAX_TICK_STEPS` steps in `range_s` (whole days past a week).
fn time_step(range_s: f64) -> f64 {
    TIME_STEPS_S
        .into_iter()
        .find(|s| range_s / s <= MAX_TICK_STEPS)
        .unwrap_or_else(|| (range_s / MAX_TICK_STEPS / DAY_S).ceil() * DAY_S)
}

/// The 1-2-5 spacing that puts at most `MAX_TICK_STEPS` steps in `range` samples.
fn count_step(range: f64) -> f64 {
    let mut base = 1.0;
    loop {
        if let Some(s) = [base, 2.0 * base, 5.0 * base]
            .into_iter()
            .find(|s| range / s <= MAX_TICK_STEPS)
        {
            return s;
        }
        base *= 10.0;
    }
}

/// Ticks at 0, `step`, `2 step`, ... up to `range`, labelled as times since the first sample (`timed`) or
/// as sample numbers.
fn ticks(range: f64, step: f64, timed: bool) -> Vec<AxisTick> {
    let count = (range / step + 1e-9).floor() as usize;
    (0..=count)
        .map(|k| {
            let value = k as f64 * step;
            let label = if timed {
                elapsed_text(value, step)
            } else {
                fixed(value, 0)
            };
            AxisTick {
                at: value / range,
                label,
            }
        })
        .collect()
}

/// A tick's time since the first sample: `0`, `45 s`, `1 h 30 min`, `24 h`; whole days when the ticks are
/// days apart.
fn elapsed_text(t: f64, step: f64) -> String {
    if t == 0.0 {
        return "0".to_string();
    }
    if step >= DAY_S {
        return format!("{} d", fixed(t / DAY_S, 0));
    }
    let s = t as u64;
    let mut text = String::new();
    for (n, unit) in [(s / 3600, "h"), (s / 60 % 60, "min"), (s % 60, "s")] {
        if n > 0 {
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(&format!("{n} {unit}"));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpu(span_s: Option<f64>, util_samples: u64, step: u64) -> GpuReport {
        GpuReport {
            index: 1,
            name: None,
            samples: util_samples,
            util_samples,
            span_s,
            util_mean: None,
            util_p10: None,
            util_p90: None,
            mem_peak_mib: None,
            mem_total_mib: None,
            mem_peak_pct: None,
            power_mean_w: None,
            power_limit_w: None,
            power_pct: None,
            busy: None,
            timeline: vec![50.0; 2],
            timeline_step_samples: step,
        }
    }

    fn labels(axis: &TimelineAxis) -> Vec<&str> {
        axis.ticks.iter().map(|t| t.label.as_str()).collect()
    }

    #[test]
    fn a_day_is_ticked_every_six_hours() {
        let axis = timeline_axis(&gpu(Some(86_399.0), 86_400, 720));
        // 86,399 s: the 24 h tick would stand past the last sample.
        assert_eq!(labels(&axis), ["0", "6 h", "12 h", "18 h"]);
        let axis = timeline_axis(&gpu(Some(86_400.0), 86_401, 720));
        assert_eq!(labels(&axis), ["0", "6 h", "12 h", "18 h", "24 h"]);
        assert_eq!(axis.ticks[2].at, 0.5);
        assert_eq!(
            axis.caption,
            "GPU 1 utilisation (%) by time since its first sample, 720 samples per point; dashed: the verdict thresholds"
        );
    }

    #[test]
    fn minutes_seconds_and_days_read_as_such() {
        assert_eq!(
            labels(&timeline_axis(&gpu(Some(5_400.0), 10, 1))),
            [
                "0",
                "15 min",
                "30 min",
                "45 min",
                "1 h",
                "1 h 15 min",
                "1 h 30 min"
            ]
        );
        assert_eq!(
            labels(&timeline_axis(&gpu(Some(50.0), 10, 1))),
            ["0", "10 s", "20 s", "30 s", "40 s", "50 s"]
        );
        assert_eq!(
            labels(&timeline_axis(&gpu(Some(9.0 * DAY_S), 10, 1))),
            ["0", "2 d", "4 d", "6 d", "8 d"]
        );
    }

    #[test]
    fn one_sample_per_point_is_singular() {
        let axis = timeline_axis(&gpu(Some(60.0), 61, 1));
        assert!(
            axis.caption.contains(", 1 sample per point;"),
            "{}",
            axis.caption
        );
    }

    #[test]
    fn without_time_the_axis_counts_samples() {
        let axis = timeline_axis(&gpu(None, 1_201, 5));
        assert_eq!(
            labels(&axis),
            ["0", "200", "400", "600", "800", "1000", "1200"]
        );
        assert!(
            axis.caption
                .contains("by sample number (the log gives no time), 5 samples per point")
        );
        // A snapshot's span is 0: no time to spread over either.
        let axis = timeline_axis(&gpu(Some(0.0), 3, 1));
        assert_eq!(labels(&axis), ["0", "1", "2"]);
    }
}
