//! `kgadvise collect kg_run.json`: what a finished run says to fix, and its measured cost per fold. For a
//! kernel without kg_run.json: `kgadvise collect --status status.txt --log <slug>.log`.

use std::io::Read;
use std::process::ExitCode;

use kgadvise_core::kernel::run_report::{self, CollectRequest};

use crate::output::{CliError, Global, clock, emit, file_text};

const EXAMPLES: &str = "Examples:
  kgadvise collect runs/effb0-train/kg_run.json
  kgadvise collect kg_run.json --json | jq .cost_per_fold_hours
  cat kg_run.json | kgadvise collect -

  kaggle kernels status me/effb0-infer > status.txt
  kaggle kernels output me/effb0-infer -p out/
  kgadvise collect --status status.txt --log out/effb0-infer.log --timeout-seconds 10800

Reads kgkit's run report (jobs, fold_status, gpu_util, elapsed_s, budget_h, deadline_hit).
cost_per_fold_hours = mean wall-clock hours of the completed folds; quota_hours_per_fold divides it by
the busy GPUs only. A kernel without kg_run.json is read from its status (the outcome) and its log (the
session's hours, where it stopped, its last lines).";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// kgkit's kg_run.json (or its folder), or - for stdin.
    #[arg(required_unless_present_any = ["status", "log"])]
    pub file: Option<String>,
    /// The output of `kaggle kernels status <owner>/<slug>` (a file, or - for stdin): the outcome.
    #[arg(long, value_name = "FILE")]
    pub status: Option<String>,
    /// The kernel's log: the <slug>.log that `kaggle kernels output` writes (a file, or - for stdin).
    #[arg(long, value_name = "FILE")]
    pub log: Option<String>,
    /// The -t cap the kernel was pushed with, in whole seconds: a log that ends at about it was stopped
    /// by it.
    #[arg(long, value_name = "S")]
    pub timeout_seconds: Option<u64>,
}

/// The bytes of stdin, read once (one input at most may be `-`).
fn read_stdin() -> Result<Vec<u8>, CliError> {
    let mut buf = Vec::new();
    std::io::stdin()
        .read_to_end(&mut buf)
        .map_err(|e| CliError::usage(format!("stdin: cannot read: {e}")))?;
    Ok(buf)
}

/// A status or log file's name and text (its field's decoding, core's `request::text_of`), or stdin's.
fn read_text(field: &str, file: &str, expected: &str) -> Result<(String, String), CliError> {
    let bytes = if file == "-" {
        read_stdin()?
    } else {
        std::fs::read(file).map_err(|e| {
            CliError::usage(format!("{file}: cannot read: {e}; expected {expected}"))
        })?
    };
    let name = if file == "-" { "<stdin>" } else { file };
    Ok((name.to_string(), file_text("collect", field, name, &bytes)?))
}

/// The report's name and bytes: a file, a folder's kg_run.json, or stdin.
fn read_report(file: &str) -> Result<(String, Vec<u8>), CliError> {
    if file == "-" {
        return Ok(("<stdin>".to_string(), read_stdin()?));
    }
    let p = std::path::Path::new(file);
    if p.is_dir() {
        let inner = p.join("kg_run.json");
        if !inner.is_file() {
            return Err(CliError::usage(format!(
                "{file}: a folder without kg_run.json; expected kgkit's kg_run.json"
            )));
        }
        let bytes = std::fs::read(&inner)
            .map_err(|e| CliError::usage(format!("{}: {e}", inner.display())))?;
        return Ok((inner.display().to_string(), bytes));
    }
    let bytes = std::fs::read(p).map_err(|e| {
        CliError::usage(format!(
            "{file}: cannot read: {e}; expected kgkit's kg_run.json"
        ))
    })?;
    Ok((file.to_string(), bytes))
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let stdin_users = [&args.file, &args.status, &args.log]
        .iter()
        .filter(|f| f.as_deref() == Some("-"))
        .count();
    if stdin_users > 1 {
        return Err(CliError::usage(
            "only one input can be - (stdin); give the others as files",
        ));
    }
    let (name, report) = match &args.file {
        Some(file) => {
            let (name, bytes) = read_report(file)?;
            let report = file_text("collect", "report", &name, &bytes)?;
            (Some(name), report)
        }
        None => (None, String::new()),
    };
    let status = args
        .status
        .as_deref()
        .map(|f| {
            read_text(
                "status",
                f,
                "the output of `kaggle kernels status <owner>/<slug>`",
            )
        })
        .transpose()?;
    let log = args
        .log
        .as_deref()
        .map(|f| read_text("log", f, "the kernel's log (kaggle kernels output)"))
        .transpose()?;
    let name_of =
        |x: &Option<(String, String)>| x.as_ref().map(|(n, _)| n.clone()).unwrap_or_default();
    let (status_name, log_name) = (name_of(&status), name_of(&log));
    let files = [
        ("report", name.as_deref().unwrap_or_default()),
        ("status", status_name.as_str()),
        ("log", log_name.as_str()),
    ];
    let request = CollectRequest {
        report,
        status: status.map(|(_, text)| text),
        log: log.map(|(_, text)| text),
        timeout_seconds: args.timeout_seconds,
        input: name.clone(),
        now: global.now.clone(),
        set: global.overrides(),
    };
    let report =
        run_report::collect(&request, clock()).map_err(|e| CliError::request(e, &files))?;
    emit(&report, global)
}
