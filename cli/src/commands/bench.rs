//! `kgadvise bench`: time real commands while sampling the GPUs, compare them, keep a history.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::Ordering;

use kgadvise_core::bench::{self, BenchHistoryRequest, BenchRequest, MeasuredRun};
use kgadvise_core::diagnose::nvsmi::decode;
use kgadvise_core::text::number::fixed;
use kgadvise_core::text::when::rfc3339;

use crate::child::{interrupted, run_command};
use crate::nvidia_smi::Sampler;
use crate::output::{CliError, Global, clock, emit, file_text};

const EXAMPLES: &str = "Examples:
  kgadvise bench --run \"python src/train_image.py --folds 0 --epochs 1\"
  kgadvise bench --name img --run \"python train.py --bs 64\" --run \"python train.py --bs 128\"
  kgadvise bench --run \"python train_gbdt.py\" --run \"python train_gbdt.py --device cuda\"
                                                     the same command on the CPU and on the GPU:
                                                     no faster with the GPU is KB005 (idle)
  kgadvise bench --history --name img                 speed-ups and what changed, bench by bench

Each command runs through the shell with its output streamed through; nvidia-smi samples the GPUs \
meanwhile (KGADVISE_NVIDIA_SMI names another program). A command may report its three bench rates by \
printing a line:

  KGADVISE_RATES data=<samples/s> compute=<samples/s> loop=<samples/s>

Every run is appended to the history file (default reports/bench.jsonl). Ctrl-C stops the running \
command and still reports what was measured.";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// A command to time (repeatable: each later run is compared with the first).
    #[arg(long = "run", value_name = "CMD", required_unless_present = "history")]
    pub runs: Vec<String>,
    /// nvidia-smi sampling interval in milliseconds.
    #[arg(long, default_value_t = 1000, value_name = "M")]
    pub interval_ms: u64,
    /// The history file (JSON lines).
    #[arg(long, default_value = "reports/bench.jsonl", value_name = "F")]
    pub history_file: String,
    /// Show the history instead of running anything.
    #[arg(long, conflicts_with = "runs")]
    pub history: bool,
    /// Do not append this bench to the history file.
    #[arg(long)]
    pub no_record: bool,
    // The run name and the rates; `run` fills in the runs, the history, `now` and `set`.
    #[command(flatten)]
    pub request: BenchRequest,
}

/// The history file's text; a file not there yet is an empty history.
fn read_history(command: &str, path: &str) -> Result<String, CliError> {
    match std::fs::read(path) {
        Ok(bytes) => file_text(command, "history", path, &bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(CliError::usage(format!(
            "{path}: cannot read the bench history: {e}; expected a readable JSON lines file"
        ))),
    }
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let files = [("history", args.history_file.as_str())];
    if args.history {
        let request = BenchHistoryRequest {
            history: read_history("bench-history", &args.history_file)?,
            name: args.request.name.clone(),
            now: global.now.clone(),
            set: global.overrides(),
        };
        let report = bench::history(&request, clock()).map_err(|e| CliError::request(e, &files))?;
        return emit(&report, global);
    }
    let mut request = BenchRequest {
        run: args
            .runs
            .iter()
            .map(|command| MeasuredRun {
                command: command.clone(),
                ..MeasuredRun::default()
            })
            .collect(),
        history: read_history("bench", &args.history_file)?,
        now: global.now.clone(),
        set: global.overrides(),
        ..args.request.clone()
    };
    // What can be refused is refused before anything runs.
    let name = bench::run_name(&request).map_err(|e| CliError::request(e, &files))?;
    let now = global.now()?;
    request.run = measure(&name, &args, global.json)?;
    let report = bench::bench(&request, clock()).map_err(|e| CliError::request(e, &files))?;
    if !args.no_record {
        append_history(
            &args.history_file,
            &bench::records_of(&report, &rfc3339(now)),
        )?;
    }
    emit(&report, global)
}

/// Runs each command in turn while nvidia-smi samples the GPUs; Ctrl-C stops the running one and the
/// rest, keeping what was measured.
fn measure(name: &str, args: &Args, json: bool) -> Result<Vec<MeasuredRun>, CliError> {
    let mut measured = Vec::new();
    for command in &args.runs {
        if interrupted().load(Ordering::SeqCst) {
            break;
        }
        eprintln!("[kgadvise bench] {name}: {command}");
        let sampler = Sampler::start(args.interval_ms).ok();
        let outcome = run_command(command, json).map_err(|e| {
            CliError::usage(format!("--run {command:?}: cannot start the shell: {e}"))
        })?;
        let samples = sampler.map(|s| decode(&s.stop()).into_owned());
        eprintln!(
            "[kgadvise bench] {name}: {} s, exit {}",
            fixed(outcome.wall_s, 1),
            outcome
                .exit_code
                .map(|c| c.to_string())
                .unwrap_or_else(|| "by signal".into())
        );
        measured.push(MeasuredRun {
            command: command.clone(),
            wall_seconds: outcome.wall_s,
            exit_code: outcome.exit_code,
            interrupted: outcome.interrupted,
            nvidia_smi: samples,
            rates: outcome.rates,
        });
    }
    Ok(measured)
}

fn append_history(path: &str, records: &[bench::BenchRecord]) -> Result<(), CliError> {
    if let Some(dir) = Path::new(path)
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
    {
        std::fs::create_dir_all(dir).map_err(|e| {
            CliError::usage(format!(
                "{}: cannot create the history folder: {e}",
                dir.display()
            ))
        })?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| {
            CliError::usage(format!(
                "{path}: cannot open the bench history for appending: {e}"
            ))
        })?;
    for r in records {
        let line = serde_json::to_string(r)
            .map_err(|e| CliError::usage(format!("cannot encode a bench record: {e}")))?;
        writeln!(file, "{line}")
            .map_err(|e| CliError::usage(format!("{path}: cannot append: {e}")))?;
    }
    Ok(())
}
