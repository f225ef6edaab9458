use std::io::Read;
use std::process::ExitCode;

use kgadvise_core::nvsmi::ParseOptions;
use kgadvise_core::verdict::{DiagnoseReport, Diagnoser, Rates, RunInputs};

use crate::output::{CliError, Global, emit, render_findings, table};

const EXAMPLES: &str = "Examples:
  nvidia-smi --query-gpu=timestamp,index,name,utilization.gpu,memory.used,memory.total,power.draw,power.limit \\
      --format=csv -l 1 > gpu.csv          (log while the run trains, then:)
  kgadvise diagnose gpu.csv
  nvidia-smi | kgadvise diagnose -          a pasted snapshot: per-GPU numbers and a too-short caveat
  kgadvise diagnose --data-rate 410 --compute-rate 980 --loop-rate 400    the three bench rates alone
  kgadvise diagnose util.csv --fields index,utilization.gpu,memory.used --interval-s 30
  kgadvise diagnose gpu.csv --set verdict.busy-util-pct=10 --json

Reads every nvidia-smi format: --query-gpu CSV (with or without header/units), the default table, dmon,
-q and -q -x; UTF-16 (PowerShell) and CRLF included.
Verdicts, fix first: no-data, idle, memory-bound, second-gpu-idle, input-bound, stalls, compute-bound, mixed,
too-short.";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// nvidia-smi output to read (`-` = stdin). Omit it to judge the bench rates alone.
    pub file: Option<String>,
    #[command(flatten)]
    pub input: InputArgs,
}

/// What `diagnose` and `sample` take besides the nvidia-smi output.
#[derive(Debug, clap::Args)]
pub struct InputArgs {
    /// Data-only rate of the bench (the loader alone), samples/s.
    #[arg(long, value_name = "R")]
    pub data_rate: Option<f64>,
    /// Compute-only rate (the step on batches already on the device), samples/s.
    #[arg(long, value_name = "R")]
    pub compute_rate: Option<f64>,
    /// Real-loop rate, samples/s.
    #[arg(long, value_name = "R")]
    pub loop_rate: Option<f64>,
    /// The run hit an out-of-memory error.
    #[arg(long)]
    pub oom: bool,
    /// The --query-gpu field list of a CSV without header, e.g. index,utilization.gpu,memory.used.
    #[arg(long, value_name = "LIST")]
    pub fields: Option<String>,
    /// Sampling interval in seconds, for logs without timestamps.
    #[arg(long, value_name = "S")]
    pub interval_s: Option<f64>,
}

impl InputArgs {
    pub fn parse_options(&self) -> Result<ParseOptions, CliError> {
        if let Some(s) = self.interval_s
            && !(s.is_finite() && s > 0.0)
        {
            return Err(CliError::usage(format!(
                "--interval-s {s}: expected a positive number of seconds"
            )));
        }
        let fields = self.fields.as_ref().map(|f| {
            f.split(',')
                .map(|x| x.trim().to_string())
                .filter(|x| !x.is_empty())
                .collect()
        });
        Ok(ParseOptions {
            fields,
            interval_s: self.interval_s,
        })
    }

    pub fn inputs(&self) -> Result<RunInputs, CliError> {
        check_rates(self.data_rate, self.compute_rate, self.loop_rate)?;
        Ok(RunInputs {
            rates: Rates {
                data_rate: self.data_rate,
                compute_rate: self.compute_rate,
                loop_rate: self.loop_rate,
            },
            oom: self.oom,
        })
    }
}

/// The three bench rates, when given, are positive finite samples/s (shared by `diagnose` and `bench`).
pub fn check_rates(
    data_rate: Option<f64>,
    compute_rate: Option<f64>,
    loop_rate: Option<f64>,
) -> Result<(), CliError> {
    for (flag, v) in [
        ("--data-rate", data_rate),
        ("--compute-rate", compute_rate),
        ("--loop-rate", loop_rate),
    ] {
        if let Some(x) = v
            && !(x.is_finite() && x > 0.0)
        {
            return Err(CliError::usage(format!(
                "{flag} {x}: expected a positive rate in samples/s"
            )));
        }
    }
    Ok(())
}

/// Diagnoses a reader line by line (memory independent of its length).
pub fn diagnose_reader<R: Read>(r: R, name: &str, d: &mut Diagnoser) -> Result<(), CliError> {
    crate::lines::for_each_line(r, |l| d.feed_line(l)).map_err(|e| {
        CliError::usage(format!(
            "cannot read {name}: {e}; expected nvidia-smi output (a file, or - for stdin)"
        ))
    })
}

/// Files at least this large are read by parallel workers once the parser is in a CSV layout.
const PARALLEL_MIN_BYTES: u64 = 32 << 20;
/// Each worker reads one block of about this size (ending at a newline).
const BLOCK: usize = 8 << 20;

/// Worker threads for large files: `KGADVISE_THREADS` (1 = sequential), else the cores when there are at
/// least 4 (on 2 shared cores the merge costs more than it gains), at most 8.
fn parallel_threads() -> usize {
    if let Some(n) = std::env::var("KGADVISE_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
    {
        return n.clamp(1, 64);
    }
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    if cores >= 4 { cores.min(8) } else { 1 }
}

fn read_full(f: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Feeds whole lines of a block to the sequential parser.
fn feed_block(d: &mut Diagnoser, block: &[u8]) -> std::io::Result<()> {
    crate::lines::for_each_line(block, |l| d.feed_line(l))
}

/// A large UTF-8 file: blocks of CSV rows go to one worker per core (each with a copy of the layout),
/// merged in order; whatever a worker cannot read (another header, a table, a bad row) goes through the
/// sequential parser, so the answer is the same as reading line by line.
pub fn diagnose_file_parallel(
    mut f: std::fs::File,
    name: &str,
    d: &mut Diagnoser,
    threads: usize,
) -> Result<(), CliError> {
    let err = |e: std::io::Error| {
        CliError::usage(format!(
            "cannot read {name}: {e}; expected nvidia-smi output (a file, or - for stdin)"
        ))
    };
    let mut carry: Vec<u8> = Vec::new();
    let mut eof = false;
    while !eof || !carry.is_empty() {
        let mut blocks: Vec<Vec<u8>> = Vec::new();
        while blocks.len() < threads && !eof {
            let mut buf = std::mem::take(&mut carry);
            let start = buf.len();
            buf.resize(start + BLOCK, 0);
            let n = read_full(&mut f, &mut buf[start..]).map_err(err)?;
            buf.truncate(start + n);
            if n == 0 {
                eof = true;
            }
            if !eof {
                match memchr::memrchr(b'\n', &buf) {
                    Some(p) => {
                        carry = buf[p + 1..].to_vec();
                        buf.truncate(p + 1);
                    }
                    // No newline yet: keep reading (the line reader cuts overlong lines).
                    None if buf.len() < 8 * BLOCK => {
                        carry = buf;
                        continue;
                    }
                    None => {}
                }
            }
            if !buf.is_empty() {
                blocks.push(buf);
            }
        }
        if eof && !carry.is_empty() {
            blocks.push(std::mem::take(&mut carry));
        }
        let mut i = 0;
        while i < blocks.len() {
            let texts: Vec<&str> = blocks[i..]
                .iter()
                .map_while(|b| std::str::from_utf8(b).ok())
                .collect();
            let workers: Vec<_> = texts.iter().map_while(|_| d.csv_worker()).collect();
            if texts.is_empty() || workers.is_empty() {
                feed_block(d, &blocks[i]).map_err(err)?;
                i += 1;
                continue;
            }
            let results: Vec<(kgadvise_core::nvsmi::CsvWorker, usize)> = std::thread::scope(|s| {
                let handles: Vec<_> = workers
                    .into_iter()
                    .zip(texts.iter())
                    .map(|(mut w, t)| {
                        s.spawn(move || {
                            let used = w.feed(t);
                            (w, used)
                        })
                    })
                    .collect();
                handles.into_iter().filter_map(|h| h.join().ok()).collect()
            });
            let mut advanced = 0;
            for (k, (w, used)) in results.into_iter().enumerate() {
                let text = texts[k];
                d.absorb(w);
                advanced = k + 1;
                if used < text.len() {
                    // The worker stopped at a line of another kind: the sequential parser takes the rest,
                    // and the later blocks are read again with the layout in force after it.
                    feed_block(d, &text.as_bytes()[used..]).map_err(err)?;
                    break;
                }
            }
            if advanced == 0 {
                feed_block(d, &blocks[i]).map_err(err)?;
                advanced = 1;
            }
            i += advanced;
        }
    }
    Ok(())
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    // --now changes nothing here, but a bad one is refused like everywhere.
    global.now()?;
    let thresholds = global.thresholds()?;
    let opts = args.input.parse_options()?;
    let inputs = args.input.inputs()?;
    let mut d = Diagnoser::new(opts);
    match args.file.as_deref() {
        None => {}
        Some("-") => diagnose_reader(std::io::stdin().lock(), "stdin", &mut d)?,
        Some(path) => {
            let open = || {
                std::fs::File::open(path).map_err(|e| {
                    CliError::usage(format!(
                        "cannot open {path}: {e}; expected an nvidia-smi log file (or - for stdin)"
                    ))
                })
            };
            let mut f = open()?;
            let big = f
                .metadata()
                .map(|m| m.is_file() && m.len() >= PARALLEL_MIN_BYTES)
                .unwrap_or(false);
            let threads = parallel_threads();
            let mut head = [0u8; 2];
            let utf16 = big
                && read_full(&mut f, &mut head)
                    .is_ok_and(|n| n == 2 && (head == [0xFF, 0xFE] || head == [0xFE, 0xFF]));
            let f = open()?;
            if big && !utf16 && threads > 1 {
                diagnose_file_parallel(f, path, &mut d, threads)?;
            } else {
                diagnose_reader(f, path, &mut d)?;
            }
        }
    }
    let report = d.finish(inputs, &thresholds);
    let code = emit(&report, global, human)?;
    crate::output::share(
        global,
        "diagnose",
        &[
            ("data_rate", args.input.data_rate.map(|v| v.to_string())),
            (
                "compute_rate",
                args.input.compute_rate.map(|v| v.to_string()),
            ),
            ("loop_rate", args.input.loop_rate.map(|v| v.to_string())),
            ("interval_s", args.input.interval_s.map(|v| v.to_string())),
        ],
    );
    Ok(code)
}

const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// A terminal sparkline of a utilisation timeline (0–100 %), at most `width` characters.
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
            BARS[i.min(7)]
        })
        .collect()
}

fn num(v: Option<f64>) -> String {
    match v {
        Some(x) if x.fract() == 0.0 => format!("{x:.0}"),
        Some(x) => format!("{x:.1}"),
        None => "-".into(),
    }
}

fn span_text(s: f64) -> String {
    if s < 120.0 {
        format!("{s:.0} s")
    } else if s < 7200.0 {
        format!("{:.1} min", s / 60.0)
    } else {
        format!("{:.2} h", s / 3600.0)
    }
}

pub fn human(r: &DiagnoseReport) -> String {
    let mut s = String::new();
    if r.verdicts.is_empty() {
        s.push_str("Verdict: nothing to fix from these numbers (busy, not input- or compute-limited by the thresholds).\n");
    } else {
        s.push_str(&format!(
            "Verdicts (fix first): {}\n",
            r.verdicts.join(", ")
        ));
    }
    let span = match (r.span_s, r.span_source) {
        (Some(_), "snapshot") => "a snapshot (one sample per GPU)".to_string(),
        (Some(x), src) => format!("{} ({src})", span_text(x)),
        (None, _) => "unknown (no timestamps: pass --interval-s)".to_string(),
    };
    if !r.gpus.is_empty() {
        s.push_str(&format!("Span: {span}"));
        if let Some(w) = r.wasted_quota_hours {
            s.push_str(&format!("; wasted quota: {w:.2} h"));
        }
        if !r.formats.is_empty() {
            s.push_str(&format!("; read as {}", r.formats.join(" + ")));
        }
        s.push('\n');
    }
    if !r.gpus.is_empty() {
        s.push('\n');
        let rows: Vec<Vec<String>> = r
            .gpus
            .iter()
            .map(|g| {
                vec![
                    g.index.to_string(),
                    g.name.clone().unwrap_or_else(|| "-".into()),
                    g.samples.to_string(),
                    num(g.util_mean),
                    num(g.util_p10),
                    num(g.util_p90),
                    match (g.mem_peak_mib, g.mem_total_mib) {
                        (Some(p), Some(t)) => format!("{p:.0} / {t:.0} MiB"),
                        (Some(p), None) => format!("{p:.0} MiB"),
                        (None, Some(t)) => format!("- / {t:.0} MiB"),
                        (None, None) => "-".into(),
                    },
                    match (g.power_mean_w, g.power_limit_w) {
                        (Some(p), Some(l)) => format!("{p:.0} / {l:.0} W"),
                        (Some(p), None) => format!("{p:.0} W"),
                        _ => "-".into(),
                    },
                    sparkline(&g.timeline, 40),
                ]
            })
            .collect();
        s.push_str(&table(
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
            &rows,
        ));
    }
    s.push('\n');
    s.push_str(&render_findings(&r.findings));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparkline_levels() {
        assert_eq!(sparkline(&[0.0, 50.0, 100.0], 10), "▁▅█");
        assert_eq!(sparkline(&[0.0; 100], 10).chars().count(), 10);
        assert_eq!(sparkline(&[], 10), "");
    }
}
