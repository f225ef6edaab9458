use std::process::ExitCode;

use kgadvise_core::diagnose::verdict::DiagnoseReport;
use kgadvise_core::diagnose::{DiagnoseRequest, Diagnoser};

use crate::log_file;
use crate::output::{CliError, Global, clock, emit_text};

const EXAMPLES: &str = "Examples:
  nvidia-smi --format=csv -l 1 > gpu.csv \\
    --query-gpu=timestamp,index,name,utilization.gpu,memory.used,memory.total,power.draw,power.limit
                                          (log while the run trains, then:)
  kgadvise diagnose gpu.csv
  nvidia-smi | kgadvise diagnose -          a pasted snapshot: per-GPU numbers, a too-short caveat
  kgadvise diagnose --data-rate 410 --compute-rate 980 --loop-rate 400   the bench rates alone
  kgadvise diagnose util.csv --fields index,utilization.gpu,memory.used --interval-s 30
  kgadvise diagnose gpu.csv --set verdict.busy-util-pct=10 --json

Reads every nvidia-smi format: --query-gpu CSV (with or without header/units), the default table, \
dmon, -q and -q -x; UTF-16 (PowerShell) and CRLF included.

Verdicts, fix first: no-data, idle, memory-bound, second-gpu-idle, input-bound, stalls, \
compute-bound, mixed, too-short.";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// nvidia-smi output to read (`-` = stdin). Omit it to judge the bench rates alone.
    pub file: Option<String>,
    #[command(flatten)]
    pub request: DiagnoseRequest,
}

/// The request of `diagnose`, `sample` and `watch` with the global flags, without its log (the log is
/// pushed into the request's `Diagnoser`).
pub fn with_global(request: &DiagnoseRequest, global: &Global) -> DiagnoseRequest {
    DiagnoseRequest {
        now: global.now.clone(),
        set: global.overrides(),
        ..request.clone()
    }
}

/// The request's streaming diagnoser; a bad flag is an error naming it.
pub fn diagnoser(request: &DiagnoseRequest, global: &Global) -> Result<Diagnoser, CliError> {
    Diagnoser::of(&with_global(request, global), clock()).map_err(|e| CliError::request(e, &[]))
}

/// A read that failed, in the CLI's words.
pub fn read_error(name: &str, e: std::io::Error) -> CliError {
    CliError::usage(format!(
        "cannot read {name}: {e}; expected nvidia-smi output (a file, or - for stdin)"
    ))
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let mut d = diagnoser(&args.request, global)?;
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
    crate::output::share(global, "diagnose", &args.request);
    Ok(code)
}

/// The report, its text naming the flag a log without timestamps needs.
pub fn emit_report(report: &DiagnoseReport, global: &Global) -> Result<ExitCode, CliError> {
    emit_text(report, global, || report.text_naming("--interval-s"))
}
