use std::process::ExitCode;

use kgadvise_core::diagnose::verdict::DiagnoseReport;
use kgadvise_core::diagnose::{DiagnoseRequest, Diagnoser};
use kgadvise_core::text::number::shortest;

use crate::log_file;
use crate::output::{CliError, Global, clock, emit_text};

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
    /// The flags as a request without its log (the log is pushed into the request's `Diagnoser`).
    pub fn request(&self, global: &Global) -> DiagnoseRequest {
        DiagnoseRequest {
            log: None,
            data_rate: self.rates.data_rate,
            compute_rate: self.rates.compute_rate,
            loop_rate: self.rates.loop_rate,
            oom: self.oom,
            fields: self.fields.clone(),
            interval_s: self.interval_s,
            now: global.now.clone(),
            set: global.overrides(),
        }
    }

    /// The request's streaming diagnoser; a bad flag is an error naming it.
    pub fn diagnoser(&self, global: &Global) -> Result<Diagnoser, CliError> {
        Diagnoser::of(&self.request(global), clock()).map_err(|e| CliError::request(e, &[]))
    }
}

/// A read that failed, in the CLI's words.
pub fn read_error(name: &str, e: std::io::Error) -> CliError {
    CliError::usage(format!(
        "cannot read {name}: {e}; expected nvidia-smi output (a file, or - for stdin)"
    ))
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let mut d = args.input.diagnoser(global)?;
    match args.file.as_deref() {
        None => {}
        Some("-") => log_file::read_into(std::io::stdin().lock(), &mut d)
            .map_err(|e| read_error("stdin", e))?,
        Some(path) => {
            let f = std::fs::File::open(path).map_err(|e| {
                CliError::usage(format!(
                    "cannot open {path}: {e}; expected an nvidia-smi log file (or - for stdin)"
                ))
            })?;
            log_file::read_file(f, log_file::threads(), &mut d).map_err(|e| read_error(path, e))?;
        }
    }
    let report = d.finish();
    let code = emit_report(&report, global)?;
    crate::output::share(
        global,
        "diagnose",
        &[
            ("dataRate", args.input.rates.data_rate.map(shortest)),
            ("computeRate", args.input.rates.compute_rate.map(shortest)),
            ("loopRate", args.input.rates.loop_rate.map(shortest)),
            ("intervalS", args.input.interval_s.map(shortest)),
            ("fields", args.input.fields.clone()),
        ],
    );
    Ok(code)
}

/// The report, its text naming the flag a log without timestamps needs.
pub fn emit_report(report: &DiagnoseReport, global: &Global) -> Result<ExitCode, CliError> {
    emit_text(report, global, || report.text_naming("--interval-s"))
}
