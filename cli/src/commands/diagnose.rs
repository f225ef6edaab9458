use std::io::Read;
use std::process::ExitCode;

use kgadvise_core::diagnose::nvsmi::ParseOptions;
use kgadvise_core::diagnose::verdict::{DiagnoseReport, Diagnoser, Rates, RunInputs};
use kgadvise_core::text::number::{fixed, shortest};

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

/// The three bench rates, shared by `diagnose`, `sample` and `bench` (which words their help its own way).
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct RateArgs {
    /// Data-only rate of the bench (the loader alone), samples/s.
    #[arg(long, value_name = "R")]
    pub data_rate: Option<f64>,
    /// Compute-only rate (the step on batches already on the device), samples/s.
    #[arg(long, value_name = "R")]
    pub compute_rate: Option<f64>,
    /// Real-loop rate, samples/s.
    #[arg(long, value_name = "R")]
    pub loop_rate: Option<f64>,
}

impl RateArgs {
    /// The rates, when given, are positive finite samples/s.
    pub fn check(&self) -> Result<(), CliError> {
        for (flag, v) in [
            ("--data-rate", self.data_rate),
            ("--compute-rate", self.compute_rate),
            ("--loop-rate", self.loop_rate),
        ] {
            if let Some(x) = v
                && !(x.is_finite() && x > 0.0)
            {
                return Err(CliError::usage(format!(
                    "{flag} {x}: expected a positive rate in samples/s",
                    x = shortest(x)
                )));
            }
        }
        Ok(())
    }
}

/// What `diagnose` and `sample` take besides the nvidia-smi output.
#[derive(Debug, clap::Args)]
pub struct InputArgs {
    #[command(flatten)]
    pub rates: RateArgs,
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
                "--interval-s {s}: expected a positive number of seconds",
                s = shortest(s)
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
        self.rates.check()?;
        Ok(RunInputs {
            rates: Rates {
                data_rate: self.rates.data_rate,
                compute_rate: self.rates.compute_rate,
                loop_rate: self.rates.loop_rate,
            },
            oom: self.oom,
        })
    }
}

/// Diagnoses a reader line by line (memory independent of its length).
pub fn diagnose_reader<R: Read>(r: R, name: &str, d: &mut Diagnoser) -> Result<(), CliError> {
    crate::lines::for_each_text(r, |t| d.feed_lines(t)).map_err(|e| {
        CliError::usage(format!(
            "cannot read {name}: {e}; expected nvidia-smi output (a file, or - for stdin)"
        ))
    })
}

/// Files at least this large are read by parallel workers once the parser is in a CSV layout.
const PARALLEL_MIN_BYTES: u64 = 32 << 20;
/// Each worker reads one block of about this size (its lines are those that start in it).
const BLOCK: usize = 2 << 20;
/// Bytes read past a block for the line that crosses its end (more are read when a line is longer).
const OVERLAP: usize = 64 << 10;

/// Worker threads for large files: `KGADVISE_THREADS` (1 = sequential), else the cores, at most 8. Each
/// worker reads its own blocks (positioned reads), so reading overlaps with parsing; on the shared 2-core
/// bench machine two threads took no more CPU time than one and less wall time (BENCHMARKS.md).
fn parallel_threads() -> usize {
    if let Some(n) = std::env::var("KGADVISE_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
    {
        return n.clamp(1, 64);
    }
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(8)
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

/// Reads at `offset` until `buf` is full or the file ends; the number of bytes read.
fn read_full_at(f: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        #[cfg(unix)]
        let r = std::os::unix::fs::FileExt::read_at(f, &mut buf[n..], offset + n as u64);
        #[cfg(windows)]
        let r = std::os::windows::fs::FileExt::seek_read(f, &mut buf[n..], offset + n as u64);
        match r {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// A worker gives up on a line longer than this (binary input): the sequential reader, which cuts such
/// lines, takes the rest of the file.
const LONG_LINE: usize = 4 << 20;

/// The lines of a file that start in a range, read into a worker's buffer.
struct Lines {
    /// Where they lie in the buffer: whole lines, ending at a newline or at the end of the file.
    range: std::ops::Range<usize>,
    /// The file offset of the first line start at or after the range's start offset (where `range`
    /// begins); when `range` is empty, the next line start after the block (or the end of the file).
    at: u64,
    /// The end of the file was reached and no line starts in the range.
    eof: bool,
}

/// The lines of a file that start in `[start, end)`: `start` is a line start when `first`, else the lines
/// begin after the first newline at or after `start - 1`. Reads them into `buf` (reused); `None` when a
/// line is longer than [`LONG_LINE`].
fn read_lines_in(
    f: &std::fs::File,
    buf: &mut Vec<u8>,
    start: u64,
    end: u64,
    first: bool,
) -> std::io::Result<Option<Lines>> {
    let from = if first { start } else { start - 1 };
    let want = (end - from) as usize + OVERLAP;
    buf.resize(want, 0);
    let mut len = read_full_at(f, buf, from)?;
    let mut eof = len < want;
    // Reads on when the newline looked for is not in the buffer yet; false at the end of the file.
    let more = |buf: &mut Vec<u8>, len: &mut usize, eof: &mut bool| -> std::io::Result<bool> {
        if *eof {
            return Ok(false);
        }
        if buf.len() >= want + LONG_LINE {
            return Ok(false);
        }
        let old = buf.len();
        buf.resize(old + OVERLAP, 0);
        let n = read_full_at(f, &mut buf[*len..], from + *len as u64)?;
        *len += n;
        *eof = *len < buf.len();
        Ok(true)
    };
    let mut scan = 0;
    let lo = if first {
        0
    } else {
        loop {
            if let Some(p) = memchr::memchr(b'\n', &buf[scan..len]) {
                break scan + p + 1;
            }
            scan = len;
            if !more(buf, &mut len, &mut eof)? {
                if eof {
                    return Ok(Some(Lines {
                        range: len..len,
                        at: from + len as u64,
                        eof: true,
                    }));
                }
                return Ok(None);
            }
        }
    };
    // The lines that start before `end`: up to the first newline at or after `end - 1`.
    let limit = (end - from) as usize - 1;
    if lo > limit {
        return Ok(Some(Lines {
            range: lo..lo,
            at: from + lo as u64,
            eof: false,
        }));
    }
    if lo == len {
        return Ok(Some(Lines {
            range: lo..lo,
            at: from + lo as u64,
            eof,
        }));
    }
    let mut scan = limit.min(len);
    loop {
        if let Some(p) = memchr::memchr(b'\n', &buf[scan..len]) {
            let hi = scan + p + 1;
            return Ok(Some(Lines {
                range: lo..hi,
                at: from + lo as u64,
                eof: false,
            }));
        }
        scan = len;
        if !more(buf, &mut len, &mut eof)? {
            if eof {
                return Ok(Some(Lines {
                    range: lo..len,
                    at: from + lo as u64,
                    eof: false,
                }));
            }
            return Ok(None);
        }
    }
}

/// Feeds whole lines of a block to the sequential parser.
fn feed_block(d: &mut Diagnoser, block: &[u8]) -> std::io::Result<()> {
    crate::lines::for_each_text(block, |t| d.feed_lines(t))
}

/// Blocks per round for each thread: threads take the next block of the round as they finish one, so a
/// thread slowed by other work on the machine holds the round back by one block at most.
const BLOCKS_PER_THREAD: usize = 4;

/// What a thread made of one block of a round.
struct BlockDone {
    /// `None`: a line longer than [`LONG_LINE`].
    lines: Option<Lines>,
    /// The worker and the bytes of the block it used (`None`: invalid UTF-8, nothing used).
    parsed: Option<(kgadvise_core::diagnose::nvsmi::CsvWorker, usize)>,
}

/// A large UTF-8 file: rounds of blocks, each read (positioned reads, so reading overlaps with parsing)
/// and parsed by the next free thread with a copy of the CSV layout; results merged in order. Whatever a
/// worker cannot read (another header, a table, a bad row, invalid UTF-8) goes through the sequential
/// parser from that line on, and the round's later blocks are read again after it, so the answer is the
/// same as reading line by line. Memory: one buffer of about [`BLOCK`] per thread.
pub fn diagnose_file_parallel(
    f: std::fs::File,
    name: &str,
    d: &mut Diagnoser,
    threads: usize,
) -> Result<(), CliError> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let err = |e: std::io::Error| {
        CliError::usage(format!(
            "cannot read {name}: {e}; expected nvidia-smi output (a file, or - for stdin)"
        ))
    };
    let f = &f;
    let mut bufs: Vec<Vec<u8>> = (0..threads).map(|_| Vec::new()).collect();
    let per_round = threads * BLOCKS_PER_THREAD;
    // `pos` is always the start of a line (or the end of the file).
    let mut pos: u64 = 0;
    loop {
        if d.csv_worker().is_none() {
            // Not (yet) in a CSV layout: one block through the sequential parser.
            let buf = &mut bufs[0];
            let Some(lines) = read_lines_in(f, buf, pos, pos + BLOCK as u64, true).map_err(err)?
            else {
                return sequential_rest(f, pos, name, d);
            };
            if lines.eof || lines.range.is_empty() {
                return Ok(());
            }
            feed_block(d, &buf[lines.range.clone()]).map_err(err)?;
            pos = lines.at + lines.range.len() as u64;
            continue;
        }
        let workers: Vec<Mutex<Option<kgadvise_core::diagnose::nvsmi::CsvWorker>>> = (0..per_round)
            .map_while(|_| Some(Mutex::new(Some(d.csv_worker()?))))
            .collect();
        let done: Vec<Mutex<Option<std::io::Result<BlockDone>>>> =
            (0..workers.len()).map(|_| Mutex::new(None)).collect();
        let next = AtomicUsize::new(0);
        let round_start = pos;
        std::thread::scope(|s| {
            for buf in bufs.iter_mut() {
                let (workers, done, next) = (&workers, &done, &next);
                s.spawn(move || {
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let (Some(slot), Some(out)) = (workers.get(k), done.get(k)) else {
                            break;
                        };
                        let Some(mut w) = slot.lock().ok().and_then(|mut x| x.take()) else {
                            break;
                        };
                        let start = round_start + (k * BLOCK) as u64;
                        let got = read_lines_in(f, buf, start, start + BLOCK as u64, k == 0);
                        let result = got.map(|lines| {
                            let parsed = match &lines {
                                Some(l) if !l.range.is_empty() => {
                                    std::str::from_utf8(&buf[l.range.clone()]).ok().map(|text| {
                                        let used = w.feed(text);
                                        (w, used)
                                    })
                                }
                                _ => None,
                            };
                            BlockDone { lines, parsed }
                        });
                        if let Ok(mut o) = out.lock() {
                            *o = Some(result);
                        }
                    }
                });
            }
        });
        let mut rest = false;
        let mut finished = false;
        for out in done {
            let result = out
                .into_inner()
                .ok()
                .flatten()
                .unwrap_or_else(|| Err(std::io::Error::other("a reader thread failed")));
            let BlockDone { lines, parsed } = result.map_err(err)?;
            let Some(l) = lines else {
                rest = true;
                break;
            };
            if l.eof {
                finished = true;
                break;
            }
            if l.range.is_empty() {
                pos = l.at;
                continue;
            }
            let used = match parsed {
                Some((w, used)) => {
                    d.absorb(w);
                    used
                }
                None => 0,
            };
            let len = l.range.len();
            pos = l.at + len as u64;
            if used < len {
                // The rest of this block through the sequential parser (read again: the buffer went on
                // to another block); the later blocks of the round are read again after it.
                let buf = &mut bufs[0];
                buf.resize(len - used, 0);
                let n = read_full_at(f, buf, l.at + used as u64).map_err(err)?;
                feed_block(d, &buf[..n]).map_err(err)?;
                break;
            }
        }
        if rest {
            return sequential_rest(f, pos, name, d);
        }
        if finished {
            return Ok(());
        }
    }
}

/// The rest of a file from `pos` (a line start) through the sequential line reader.
fn sequential_rest(
    mut f: &std::fs::File,
    pos: u64,
    name: &str,
    d: &mut Diagnoser,
) -> Result<(), CliError> {
    use std::io::Seek;
    f.seek(std::io::SeekFrom::Start(pos)).map_err(|e| {
        CliError::usage(format!(
            "cannot read {name}: {e}; expected nvidia-smi output (a file, or - for stdin)"
        ))
    })?;
    diagnose_reader(f, name, d)
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
            ("data_rate", args.input.rates.data_rate.map(shortest)),
            ("compute_rate", args.input.rates.compute_rate.map(shortest)),
            ("loop_rate", args.input.rates.loop_rate.map(shortest)),
            ("interval_s", args.input.interval_s.map(shortest)),
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
        Some(x) if x.fract() == 0.0 => fixed(x, 0),
        Some(x) => fixed(x, 1),
        None => "-".into(),
    }
}

fn span_text(s: f64) -> String {
    if s < 120.0 {
        format!("{} s", fixed(s, 0))
    } else if s < 7200.0 {
        format!("{} min", fixed(s / 60.0, 1))
    } else {
        format!("{} h", fixed(s / 3600.0, 2))
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
            s.push_str(&format!("; wasted quota: {} h", fixed(w, 2)));
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
