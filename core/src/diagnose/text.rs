//! The human text of a diagnose answer (`kgadvise diagnose`, `sample`; the wheel's `watch`): its verdict
//! line, its span and wasted quota, the per-GPU table with a sparkline of each GPU's utilisation, and
//! the findings. [`DiagnoseWords`] gives the parts for a surface with its own markup (the wheel's HTML).

use serde::Serialize;

use crate::diagnose::verdict::{DiagnoseReport, GpuReport};
use crate::rulebook::finding::render_text;
use crate::text::count::counted;
use crate::text::number::fixed;
use crate::text::table::TextTable;

/// How a surface names the sampling-interval input when the log has no timestamps: the request key,
/// as the JSON of the npm package and of the rule fixtures spells it.
pub const INTERVAL_KEY: &str = "intervalS";

/// The parts of a diagnose answer's text, for a surface that lays them out itself.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiagnoseWords {
    /// What goes before the verdicts (`Verdicts (fix first):`), or the whole sentence when there are
    /// none.
    pub verdict_label: String,
    /// The first line of the text: the label and the verdicts.
    pub verdict: String,
    /// The span, the wasted quota and the formats read (`Span: 2.0 min (timestamps)`, ...): the second
    /// line's parts, joined by `; `; none without a GPU.
    pub facts: Vec<String>,
    /// One row per GPU.
    pub gpu_table: TextTable,
    /// The whole text, as the CLI prints it.
    pub text: String,
}

impl DiagnoseReport {
    /// The quota the observed span cost, the page's line under the verdicts.
    pub fn wasted_sentence(&self) -> Option<String> {
        self.wasted_quota_hours
            .map(|h| format!("Quota hours spent by the observed span: {} h", fixed(h, 2)))
    }

    /// What the log was read as: "Read as: csv (172,801 lines)".
    pub fn formats_sentence(&self) -> String {
        format!(
            "Read as: {} ({})",
            self.formats.join(", "),
            counted(self.lines as u64, "line", "lines")
        )
    }

    /// The heading of the lines the readers could not read, with their count.
    pub fn diagnostics_heading(&self) -> String {
        format!("Lines not read ({} in all)", self.diagnostics_total)
    }

    /// The answer's text; `interval_input` is how the surface names the sampling-interval input
    /// (`--interval-s`, `interval_s`), which a log without timestamps needs.
    pub fn text_naming(&self, interval_input: &str) -> String {
        self.words(interval_input).text
    }

    /// The parts of the text (see [`text_naming`](DiagnoseReport::text_naming)).
    pub fn words(&self, interval_input: &str) -> DiagnoseWords {
        let verdict_label = if self.verdicts.is_empty() {
            "Verdict: nothing to fix from these numbers (busy, not input- or compute-limited by the thresholds).".to_string()
        } else {
            "Verdicts (fix first):".to_string()
        };
        let verdict = if self.verdicts.is_empty() {
            verdict_label.clone()
        } else {
            format!("{verdict_label} {}", self.verdicts.join(", "))
        };
        let facts = self.facts(interval_input);
        let gpu_table = self.gpu_table();
        let mut text = format!("{verdict}\n");
        if !self.gpus.is_empty() {
            text.push_str(&facts.join("; "));
            text.push_str("\n\n");
            text.push_str(&gpu_table.text());
        }
        text.push('\n');
        text.push_str(&render_text(&self.findings));
        DiagnoseWords {
            verdict_label,
            verdict,
            facts,
            gpu_table,
            text,
        }
    }

    fn facts(&self, interval_input: &str) -> Vec<String> {
        if self.gpus.is_empty() {
            return Vec::new();
        }
        let span = match (self.span_s, self.span_source) {
            (Some(_), "snapshot") => "a snapshot (one sample per GPU)".to_string(),
            (Some(x), src) => format!("{} ({src})", span_text(x)),
            (None, _) => format!("unknown (no timestamps: pass {interval_input})"),
        };
        let mut facts = vec![format!("Span: {span}")];
        if let Some(w) = self.wasted_quota_hours {
            facts.push(format!("wasted quota: {} h", fixed(w, 2)));
        }
        if !self.formats.is_empty() {
            facts.push(format!("read as {}", self.formats.join(" + ")));
        }
        facts
    }
}

/// A span in seconds, minutes or hours, whichever reads best.
fn span_text(s: f64) -> String {
    if s < 120.0 {
        format!("{} s", fixed(s, 0))
    } else if s < 7200.0 {
        format!("{} min", fixed(s / 60.0, 1))
    } else {
        format!("{} h", fixed(s / 3600.0, 2))
    }
}

impl DiagnoseReport {
    /// One row per GPU, every cell formatted (a sparkline of its utilisation last): the table the CLI
    /// prints and the page and the wheel lay out.
    pub fn gpu_table(&self) -> TextTable {
        gpu_table(&self.gpus)
    }
}

fn gpu_table(gpus: &[GpuReport]) -> TextTable {
    TextTable::new(
        &[
            "GPU",
            "name",
            "samples",
            "util %",
            "p10",
            "p90",
            "memory peak / total",
            "power mean / limit",
            "utilisation over time",
        ],
        gpus.iter().map(gpu_row).collect(),
    )
}

fn gpu_row(g: &GpuReport) -> Vec<String> {
    vec![
        g.index.to_string(),
        g.name.clone().unwrap_or_else(|| "-".into()),
        g.samples.to_string(),
        num(g.util_mean),
        num(g.util_p10),
        num(g.util_p90),
        match (g.mem_peak_mib, g.mem_total_mib) {
            (Some(p), Some(t)) => format!("{} / {} MiB", fixed(p, 0), fixed(t, 0)),
            (Some(p), None) => format!("{} MiB", fixed(p, 0)),
            (None, Some(t)) => format!("- / {} MiB", fixed(t, 0)),
            (None, None) => "-".into(),
        },
        match (g.power_mean_w, g.power_limit_w) {
            (Some(p), Some(l)) => format!("{} / {} W", fixed(p, 0), fixed(l, 0)),
            (Some(p), None) => format!("{} W", fixed(p, 0)),
            _ => "-".into(),
        },
        sparkline(&g.timeline, 40),
    ]
}

/// A utilisation percentage: whole numbers without decimals, `-` when unknown.
fn num(v: Option<f64>) -> String {
    match v {
        Some(x) if x.fract() == 0.0 => fixed(x, 0),
        Some(x) => fixed(x, 1),
        None => "-".into(),
    }
}

const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// A terminal sparkline of a utilisation timeline (0–100 %), at most `width` characters: each bar is
/// the mean of its group of points.
pub fn sparkline(points: &[f64], width: usize) -> String {
    if points.is_empty() || width == 0 {
        return String::new();
    }
    let groups = points.len().div_ceil(width);
    points
        .chunks(groups)
        .map(|c| {
            let mean = c.iter().sum::<f64>() / c.len() as f64;
            let i = ((mean.clamp(0.0, 100.0) / 100.0) * 7.0).round() as usize;
            BARS.get(i).copied().unwrap_or('█')
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::{DiagnoseRequest, diagnose};
    use crate::rulebook::report::Report;

    fn report_of(log: &str) -> DiagnoseReport {
        let request = DiagnoseRequest {
            log: Some(log.to_string()),
            ..DiagnoseRequest::default()
        };
        diagnose(&request, chrono::DateTime::UNIX_EPOCH).unwrap()
    }

    #[test]
    fn a_log_without_timestamps_names_the_interval_input_as_the_surface_does() {
        let r = report_of(
            "index, utilization.gpu [%], memory.used [MiB]\n0, 95 %, 1000 MiB\n0, 96 %, 1000 MiB\n",
        );
        assert!(r.span_s.is_none());
        let cli = r.text_naming("--interval-s");
        assert!(
            cli.contains("Span: unknown (no timestamps: pass --interval-s)"),
            "{cli}"
        );
        assert!(r.text().contains("pass intervalS"));
    }

    #[test]
    fn the_words_are_the_parts_of_the_text() {
        let r = report_of("0, 95, 1000\n0, 96, 1000\n");
        let w = r.words("x");
        assert_eq!(w.text.lines().next(), Some(w.verdict.as_str()));
        assert!(w.text.contains(&w.facts.join("; ")));
        assert!(w.text.contains(&w.gpu_table.text()));
        assert_eq!(w.gpu_table.rows.len(), 1);
        assert_eq!(w.gpu_table.header.len(), w.gpu_table.rows[0].len());
    }

    #[test]
    fn sparkline_levels() {
        assert_eq!(sparkline(&[0.0, 50.0, 100.0], 10), "▁▅█");
        assert_eq!(sparkline(&[0.0; 100], 10).chars().count(), 10);
        assert_eq!(sparkline(&[], 10), "");
    }
}
