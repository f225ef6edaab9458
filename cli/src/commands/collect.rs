//! `kgadvise collect kg_run.json`: what a finished run says to fix, and its measured cost per fold. For a
//! kernel without kg_run.json: `kgadvise collect --status status.txt --log <slug>.log`.

use std::io::Read;
use std::process::ExitCode;

use kgadvise_core::kernel::run_report::{self, CollectRequest};

use kgadvise_core::kaggle_loop::wait::{
    CollectKernelRequest, CollectedKernel, is_kernel_ref, log_file_name, output_folder,
};

use crate::kaggle_client::{KaggleClient, LoopArgs};
use crate::output::{CliError, Global, clock, emit, file_text};
use crate::state_files::{StateDir, read_optional};

const EXAMPLES: &str = "Examples:
  kgadvise collect me/effb0-infer           its outputs into effb0-infer/, its hours logged
  kgadvise collect me/effb0-infer -p out/ --json
  kgadvise collect runs/effb0-train/kg_run.json
  kgadvise collect kg_run.json --json | jq .cost_per_fold_hours
  cat kg_run.json | kgadvise collect -

  kaggle kernels status me/effb0-infer > status.txt
  kaggle kernels output me/effb0-infer -p out/
  kgadvise collect --status status.txt --log out/effb0-infer.log --timeout-seconds 10800

Reads kgkit's run report (jobs, fold_status, gpu_util, elapsed_s, budget_h, deadline_hit). \
cost_per_fold_hours = mean wall-clock hours of the completed folds; quota_hours_per_fold divides it \
by the busy GPUs only. A kernel without kg_run.json is read from its status (the outcome) and its log \
(the session's hours, where it stopped, its last lines).

A kernel (USER/SLUG) instead of a file: `kaggle kernels output USER/SLUG -p DIR`, then its \
kg_run.json, else its status and log; the run's hours (its runtime; the cap when the cap stopped it) \
and result are recorded in .kaggle-gm/gpu_runs.jsonl.";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// kgkit's kg_run.json (or its folder), - for stdin, or a kernel (USER/SLUG) to download and collect.
    #[arg(required_unless_present_any = ["status", "log"])]
    pub file: Option<String>,
    /// With a kernel: the folder its outputs are downloaded into (default: named after the kernel).
    #[arg(short = 'p', long = "path", value_name = "DIR")]
    pub path: Option<String>,
    #[command(flatten)]
    pub client: LoopArgs,
    /// The output of `kaggle kernels status <owner>/<slug>` (a file, or - for stdin): the outcome.
    #[arg(long, value_name = "FILE")]
    pub status: Option<String>,
    /// The kernel's log: the <slug>.log that `kaggle kernels output` writes (a file, or - for stdin).
    #[arg(long, value_name = "FILE")]
    pub log: Option<String>,
    // The push's cap; `run` fills in the texts, `now` and `set`.
    #[command(flatten)]
    pub request: CollectRequest,
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

/// `collect USER/SLUG`: `kaggle kernels output` into `path` (default: named after the kernel), then
/// its kg_run.json, else its status and log; the run's record updated in the runs log.
pub fn collect_kernel(
    kernel: &str,
    path: Option<&str>,
    client: &LoopArgs,
    kaggle: &KaggleClient,
    global: &Global,
) -> Result<CollectedKernel, CliError> {
    let dir = path.map_or_else(|| output_folder(kernel), str::to_string);
    let download = kaggle.download(&["kernels", "output", kernel, "-p", &dir]);
    if let Some(why) = download.failure() {
        return Err(CliError::usage(format!(
            "kaggle kernels output {kernel}: {why}"
        )));
    }
    let folder = std::path::Path::new(&dir);
    let report = read_optional(&folder.join("kg_run.json"))?;
    let status = kaggle.run(&["kernels", "status", kernel]);
    let log = read_optional(&folder.join(log_file_name(kernel)))?;
    let state = StateDir::lock(client.state_dir.as_deref())?;
    let request = CollectKernelRequest {
        kernel: kernel.to_string(),
        report,
        status: status.succeeded().then_some(status.stdout),
        log,
        runs: state.read_runs()?,
        now: global.now.clone(),
        set: global.overrides(),
    };
    let collected = kgadvise_core::kaggle_loop::wait::collect_kernel(&request, clock())
        .map_err(|e| CliError::request(e, &[]))?;
    state.write_runs(&collected.runs_text)?;
    Ok(collected)
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    if let Some(kernel) = args.file.as_deref().filter(|f| {
        is_kernel_ref(f, std::path::Path::new(f).exists())
            && args.status.is_none()
            && args.log.is_none()
    }) {
        let kaggle = KaggleClient::require(args.client.kaggle.as_deref(), global)?;
        let collected =
            collect_kernel(kernel, args.path.as_deref(), &args.client, &kaggle, global)?;
        return emit(&collected.report, global);
    }
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
        input: name.clone(),
        now: global.now.clone(),
        set: global.overrides(),
        ..args.request.clone()
    };
    let report =
        run_report::collect(&request, clock()).map_err(|e| CliError::request(e, &files))?;
    emit(&report, global)
}
