//! Why is my run slow: every nvidia-smi output read into per-GPU summaries ([`nvsmi`]), and the run
//! verdicts of the bench rates and those summaries ([`verdict`]; rules `verdicts.toml`, KV).
//!
//! [`diagnose`] answers a [`DiagnoseRequest`] whose log is text. A log too big to hold (a 1 GB file, a
//! browser file read in slices) goes through a [`Diagnoser`] made from the same request without its log:
//! fed bytes in chunks of any size, it decodes and cuts them with the one line reader
//! ([`crate::text::lines`]) and finishes into the same report, through the same closing code.

pub mod live;
pub mod nvsmi;
pub mod text;
pub mod timeline;
pub mod verdict;
pub mod watch_line;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::request::{Overrides, RequestError, now_of};
use crate::text::lines::LineReader;
use crate::text::number::shortest;
use nvsmi::{Collector, CsvWorker, LogParser, ParseOptions};
use verdict::{DiagnoseReport, Rates, Settings};

/// `kgadvise diagnose` (and `kgadvise sample`, the page's Diagnose): the run verdicts of an nvidia-smi log
/// and/or the three bench rates. Every field is optional: a log alone, the rates alone, or both.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct DiagnoseRequest {
    /// nvidia-smi output as text, any format: `--query-gpu` CSV (with or without header or units), the
    /// default table, `dmon`, `-q`, `-q -x`, or several of them one after the other. Without a log (and
    /// without rates) the answer is `no-data`.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub log: Option<String>,
    /// Data-only rate of the bench (the loader alone), samples/s.
    #[cfg_attr(feature = "cli", arg(long, value_name = "R"))]
    pub data_rate: Option<f64>,
    /// Compute-only rate of the bench (the step on batches already on the device), samples/s.
    #[cfg_attr(feature = "cli", arg(long, value_name = "R"))]
    pub compute_rate: Option<f64>,
    /// Real-loop rate of the bench, samples/s.
    #[cfg_attr(feature = "cli", arg(long, value_name = "R"))]
    pub loop_rate: Option<f64>,
    /// The run hit an out-of-memory error.
    #[cfg_attr(feature = "cli", arg(long))]
    pub oom: bool,
    /// The nvidia-smi --query-gpu field list of a CSV without header, comma-separated, e.g.
    /// index,utilization.gpu,memory.used.
    #[cfg_attr(feature = "cli", arg(long, value_name = "LIST"))]
    pub fields: Option<String>,
    /// Seconds between samples, for logs without timestamps.
    #[cfg_attr(feature = "cli", arg(long, value_name = "S"))]
    pub interval_s: Option<f64>,
    /// The time of the answer (RFC 3339 or a date; default: the caller's clock): the day the rules'
    /// as-of dates are checked against.
    #[cfg_attr(feature = "schema", schemars(extend("x-time" = true)))]
    #[cfg_attr(feature = "cli", arg(skip))]
    pub now: Option<String>,
    /// Threshold overrides (`verdict.busy-util-pct=10`).
    #[cfg_attr(feature = "cli", arg(skip))]
    pub set: Overrides,
}

impl DiagnoseRequest {
    /// The validated request without its log, and how to read the log.
    fn settings(&self, clock: DateTime<Utc>) -> Result<(Settings, ParseOptions), RequestError> {
        let today = now_of(self.now.as_deref(), clock)?.date_naive();
        let thresholds = self.set.thresholds()?;
        let rates = Rates {
            data_rate: self.data_rate,
            compute_rate: self.compute_rate,
            loop_rate: self.loop_rate,
        }
        .checked()?;
        if let Some(s) = self.interval_s
            && !(s.is_finite() && s > 0.0)
        {
            return Err(RequestError::value(
                "intervalS",
                shortest(s),
                "expected a positive number of seconds",
            ));
        }
        let fields = self.fields.as_ref().map(|f| {
            f.split(',')
                .map(|x| x.trim().to_string())
                .filter(|x| !x.is_empty())
                .collect()
        });
        let settings = Settings {
            rates,
            oom: self.oom,
            interval_s: self.interval_s,
            thresholds,
            today,
        };
        let options = ParseOptions {
            fields,
            interval_s: self.interval_s,
        };
        Ok((settings, options))
    }
}

/// The streaming diagnoser: made from a request (its `log` is not read), fed the log's bytes with
/// [`Diagnoser::push`] in chunks of any size, then [`Diagnoser::finish`]ed into the report. Memory does
/// not depend on the log's length.
#[derive(Debug)]
pub struct Diagnoser {
    settings: Settings,
    reader: LineReader,
    parser: LogParser,
    collector: Collector,
}

impl Diagnoser {
    /// Validates the request (all but its log); errors name the request field.
    pub fn of(request: &DiagnoseRequest, clock: DateTime<Utc>) -> Result<Diagnoser, RequestError> {
        let (settings, options) = request.settings(clock)?;
        Ok(Diagnoser {
            settings,
            reader: LineReader::new(),
            parser: LogParser::new(options),
            collector: Collector::default(),
        })
    }

    /// The next bytes of the log (any encoding [`crate::text::detect`] knows; cut anywhere).
    pub fn push(&mut self, bytes: &[u8]) {
        let (parser, collector) = (&mut self.parser, &mut self.collector);
        self.reader
            .push(bytes, &mut |lines| parser.feed_lines(lines, collector));
    }

    /// A worker that may read the next rows on its own (another thread), when the log is UTF-8, everything
    /// pushed so far ended at a line end, and the parser is in a CSV layout that allows it. Give it the
    /// text that follows, then [`Diagnoser::absorb`] it and push what it did not use.
    pub fn csv_worker(&mut self) -> Option<CsvWorker> {
        if !self.reader.between_utf8_lines() {
            return None;
        }
        self.parser.csv_worker(&mut self.collector)
    }

    /// Takes in a worker that read the text right after everything pushed so far: the answer is the one
    /// pushing that text would have given, bit for bit. False (rare: several workers of one round met
    /// GPUs numbered by order of appearance, or more GPUs than are tracked) when it cannot be taken: push
    /// the text it read instead.
    pub fn absorb(&mut self, worker: CsvWorker) -> bool {
        self.parser.absorb(worker, &mut self.collector)
    }

    /// The report of the lines read so far (a line not ended yet waits), with what each wasting verdict
    /// costs per hour of run: the live view's provisional answer. [`Diagnoser::finish`] is the final one.
    pub(crate) fn provisional(&self) -> (DiagnoseReport, [(verdict::Verdict, f64); 3]) {
        verdict::judge_with_costs(self.collector.clone(), &self.settings)
    }

    /// What has been read so far, per GPU.
    pub(crate) fn collector(&self) -> &Collector {
        &self.collector
    }

    pub(crate) fn thresholds(&self) -> &crate::rulebook::Thresholds {
        &self.settings.thresholds
    }

    /// The end of the log: the report.
    pub fn finish(mut self) -> DiagnoseReport {
        let (parser, collector) = (&mut self.parser, &mut self.collector);
        self.reader
            .finish(&mut |lines| parser.feed_lines(lines, collector));
        self.parser.finish(&mut self.collector);
        verdict::judge(self.collector, &self.settings)
    }
}

/// `kgadvise diagnose`: the run verdicts of the request's log and rates. Errors name the request field
/// and what was expected.
pub fn diagnose(
    request: &DiagnoseRequest,
    clock: DateTime<Utc>,
) -> Result<DiagnoseReport, RequestError> {
    let mut d = Diagnoser::of(request, clock)?;
    if let Some(log) = &request.log {
        d.push(log.as_bytes());
    }
    Ok(d.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock() -> DateTime<Utc> {
        "2026-12-01T00:00:00Z".parse().unwrap()
    }

    #[test]
    fn bad_input_names_the_field() {
        let field = |r: DiagnoseRequest| diagnose(&r, clock()).unwrap_err();
        let e = field(DiagnoseRequest {
            data_rate: Some(0.0),
            ..DiagnoseRequest::default()
        });
        assert_eq!(
            (e.field.as_str(), e.value.as_deref()),
            ("dataRate", Some("0"))
        );
        assert_eq!(e.message, "expected a positive rate in samples/s");
        let e = field(DiagnoseRequest {
            loop_rate: Some(f64::NAN),
            ..DiagnoseRequest::default()
        });
        assert_eq!(e.field, "loopRate");
        let e = field(DiagnoseRequest {
            interval_s: Some(-1.0),
            ..DiagnoseRequest::default()
        });
        assert_eq!(
            e.to_string(),
            "intervalS -1: expected a positive number of seconds"
        );
        let e = field(DiagnoseRequest {
            now: Some("soon".into()),
            ..DiagnoseRequest::default()
        });
        assert_eq!(e.field, "now");
        let e = field(DiagnoseRequest {
            set: Overrides(vec!["verdict.nope=1".into()]),
            ..DiagnoseRequest::default()
        });
        assert_eq!(e.field, "set");
    }

    #[test]
    fn json_requests_use_the_flags_in_camel_case() {
        let r: DiagnoseRequest = crate::request::from_json(
            r#"{"log": "x", "dataRate": 1, "computeRate": 2, "loopRate": 3, "intervalS": 30, "fields": "index,utilization.gpu", "oom": true}"#,
        )
        .unwrap();
        assert_eq!(r.interval_s, Some(30.0));
        assert_eq!(r.fields.as_deref(), Some("index,utilization.gpu"));
        let e = crate::request::from_json::<DiagnoseRequest>(r#"{"interval_s": 1}"#).unwrap_err();
        assert_eq!(e.field, "interval_s");
    }

    /// The text of a request and its bytes pushed in any chunks give the same report, whatever the
    /// encoding (a BOM-less UTF-16 log included).
    #[test]
    fn the_text_and_the_streamed_bytes_give_the_same_report() {
        let text = "timestamp, index, utilization.gpu [%]\r\n2026/11/30 00:00:00.000, 0, 40 %\r\n2026/11/30 00:30:00.000, 0, 42 %\r\nnot a row\r\n";
        let request = DiagnoseRequest {
            log: Some(text.into()),
            data_rate: Some(5.0),
            ..DiagnoseRequest::default()
        };
        let whole = diagnose(&request, clock()).unwrap();
        assert_eq!(whole.gpus.len(), 1);
        assert_eq!(whole.diagnostics_total, 1);
        let utf16le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        for bytes in [text.as_bytes().to_vec(), utf16le] {
            for size in [1, 7, 4096] {
                let mut d = Diagnoser::of(&request, clock()).unwrap();
                for chunk in bytes.chunks(size) {
                    d.push(chunk);
                }
                assert_eq!(d.finish(), whole, "chunks of {size}");
            }
        }
    }
}
