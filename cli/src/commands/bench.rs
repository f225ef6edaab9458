//! `kgadvise bench`: time real commands while sampling the GPUs, compare them, keep a history.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::Ordering;

use kgadvise_core::bench::{self, BenchReport, HistoryReport, Measured};
use kgadvise_core::diagnose::{DiagnoseRequest, Diagnoser};
use kgadvise_core::text::number::fixed;
use kgadvise_core::text::when::rfc3339;

use crate::child::{interrupted, run_command};
use crate::commands::diagnose::RateArgs;
use crate::nvidia_smi::Sampler;
use crate::output::{CliError, Global, clock, emit, render_findings, table};

const EXAMPLES: &str = "Examples:
  kgadvise bench --run \"python src/train_image.py --folds 0 --epochs 1\"
  kgadvise bench --name img --run \"python train.py --bs 64\" --run \"python train.py --bs 128\"
  kgadvise bench --run \"python train_gbdt.py\" --run \"python train_gbdt.py --device cuda\"
  kgadvise bench --history --name img                 speed-ups and what changed, bench by bench

Each command runs through the shell with its output streamed through; nvidia-smi samples the GPUs meanwhile
(KGADVISE_NVIDIA_SMI names another program). A command may report its three bench rates by printing a line
  KGADVISE_RATES data=<samples/s> compute=<samples/s> loop=<samples/s>
Every run is appended to the history file (default reports/bench.jsonl). Ctrl-C stops the running command
and still reports what was measured.";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
// bench's own wording of the shared rate flags: here they stand in for a KGADVISE_RATES line.
#[command(mut_arg("data_rate", |a| a.help(
    "Data-only rate (samples/s), when the command does not print a KGADVISE_RATES line"
)))]
#[command(mut_arg("compute_rate", |a| a.help("Compute-only rate (samples/s)")))]
#[command(mut_arg("loop_rate", |a| a.help("Real-loop rate (samples/s)")))]
pub struct Args {
    /// A command to time (repeatable: each later run is compared with the first).
    #[arg(long = "run", value_name = "CMD", required_unless_present = "history")]
    pub runs: Vec<String>,
    /// Run name: benches of the same name are compared in the history (default: the script's name).
    #[arg(long)]
    pub name: Option<String>,
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
    #[command(flatten)]
    pub rates: RateArgs,
}

fn read_history(
    path: &str,
) -> Result<(Vec<bench::BenchRecord>, Vec<bench::LineProblem>), CliError> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(bench::parse_history(&String::from_utf8_lossy(&bytes))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((Vec::new(), Vec::new())),
        Err(e) => Err(CliError::usage(format!(
            "{path}: cannot read the bench history: {e}"
        ))),
    }
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let thresholds = global.thresholds()?;
    if args.history {
        let (records, problems) = read_history(&args.history_file)?;
        if records.is_empty() && problems.is_empty() {
            return Err(CliError::usage(format!(
                "{}: no bench history yet; expected JSON lines written by `kgadvise bench --run ...`",
                args.history_file
            )));
        }
        if let (true, Some(first)) = (records.is_empty(), problems.first()) {
            return Err(CliError::usage(format!(
                "{}: no bench record could be read ({} bad lines); line {}: {}",
                args.history_file,
                problems.len(),
                first.line,
                first.message
            )));
        }
        let report = bench::history(&records, problems, args.name.as_deref(), &thresholds);
        return emit(&report, global, human_history);
    }
    args.rates.check()?;
    if let Some(bad) = args.runs.iter().find(|r| r.trim().is_empty()) {
        return Err(CliError::usage(format!(
            "--run {bad:?}: expected a command to run"
        )));
    }
    let now = global.now()?;
    let name = args
        .name
        .clone()
        .unwrap_or_else(|| bench::default_name(&args.runs[0]));
    let flag_rates = bench::Rates {
        data: args.rates.data_rate,
        compute: args.rates.compute_rate,
        real_loop: args.rates.loop_rate,
    };
    let (history, _) = read_history(&args.history_file)?;
    let previous = history.iter().rev().find(|r| r.name == name).cloned();

    let mut measured = Vec::new();
    let mut gpu_sampled = true;
    for command in &args.runs {
        if interrupted().load(Ordering::SeqCst) {
            break;
        }
        eprintln!("[kgadvise bench] {name}: {command}");
        let sampler = Sampler::start(args.interval_ms).ok();
        gpu_sampled &= sampler.is_some();
        let outcome = run_command(command, global.json).map_err(|e| {
            CliError::usage(format!("--run {command:?}: cannot start the shell: {e}"))
        })?;
        let raw = sampler.map(Sampler::stop).unwrap_or_default();
        let rates = outcome
            .rates
            .map(|r| r.or(flag_rates))
            .or((!flag_rates.is_empty()).then_some(flag_rates));
        // The diagnosis of the run: core takes positive rates (a KGADVISE_RATES line may say 0).
        let positive = |r: Option<f64>| r.filter(|x| *x > 0.0);
        let request = DiagnoseRequest {
            data_rate: positive(rates.and_then(|r| r.data)),
            compute_rate: positive(rates.and_then(|r| r.compute)),
            loop_rate: positive(rates.and_then(|r| r.real_loop)),
            now: global.now.clone(),
            set: global.overrides(),
            ..DiagnoseRequest::default()
        };
        let diagnosis = if !raw.is_empty() || rates.is_some() {
            let mut d = Diagnoser::of(&request, clock()).map_err(|e| CliError::request(e, &[]))?;
            d.push(&raw);
            Some(d.finish())
        } else {
            None
        };
        eprintln!(
            "[kgadvise bench] {name}: {} s, exit {}",
            fixed(outcome.wall_s, 1),
            outcome
                .exit_code
                .map(|c| c.to_string())
                .unwrap_or_else(|| "by signal".into())
        );
        measured.push(Measured {
            command: command.clone(),
            wall_s: outcome.wall_s,
            exit_code: outcome.exit_code,
            interrupted: outcome.interrupted,
            rates,
            diagnosis,
        });
    }
    let report = bench::bench_report(
        &name,
        &measured,
        gpu_sampled,
        previous.as_ref(),
        &thresholds,
    );
    if !args.no_record {
        append_history(
            &args.history_file,
            &bench::records_of(&report, &rfc3339(now)),
        )?;
    }
    emit(&report, global, human)
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

fn speed(s: Option<f64>) -> String {
    s.map(|x| format!("{}x", fixed(x, 2)))
        .unwrap_or_else(|| "-".into())
}

fn human(r: &BenchReport) -> String {
    let mut s = format!("Bench {}\n\n", r.name);
    let rows: Vec<Vec<String>> = r
        .runs
        .iter()
        .enumerate()
        .map(|(i, run)| {
            let util = run
                .gpus
                .iter()
                .map(|g| {
                    format!(
                        "GPU{} {}% {}",
                        g.index,
                        g.util_mean
                            .map(|u| fixed(u, 0))
                            .unwrap_or_else(|| "-".into()),
                        g.mem_peak_mib
                            .map(|m| format!("{} MiB", fixed(m, 0)))
                            .unwrap_or_default()
                    )
                })
                .collect::<Vec<_>>()
                .join(", ");
            vec![
                (i + 1).to_string(),
                format!("{} s", fixed(run.wall_s, 1)),
                run.exit_code
                    .map(|c| c.to_string())
                    .unwrap_or_else(|| "signal".into()),
                speed(run.speedup),
                if util.is_empty() { "-".into() } else { util },
                if run.verdicts.is_empty() {
                    "-".into()
                } else {
                    run.verdicts.join(", ")
                },
                run.command.clone(),
            ]
        })
        .collect();
    s.push_str(&table(
        &[
            "run",
            "wall",
            "exit",
            "speed-up",
            "GPU util / peak memory",
            "verdicts",
            "command",
        ],
        &rows,
    ));
    for (i, run) in r.runs.iter().enumerate().skip(1) {
        if !run.changed.is_empty() {
            let c: Vec<String> = run.changed.iter().map(|c| c.to_string()).collect();
            s.push_str(&format!("run {} changed: {}\n", i + 1, c.join("; ")));
        }
    }
    if let Some(x) = r.speedup_vs_previous {
        s.push_str(&format!(
            "\nAgainst the previous bench of {}: {}x",
            r.name,
            fixed(x, 2)
        ));
        if !r.changed_vs_previous.is_empty() {
            let c: Vec<String> = r
                .changed_vs_previous
                .iter()
                .map(|c| c.to_string())
                .collect();
            s.push_str(&format!(" ({})", c.join("; ")));
        }
        s.push('\n');
    }
    s.push('\n');
    s.push_str(&render_findings(&r.findings));
    s
}

fn human_history(r: &HistoryReport) -> String {
    let rows: Vec<Vec<String>> = r
        .records
        .iter()
        .map(|e| {
            vec![
                e.time.clone(),
                e.name.clone(),
                format!("{} s", fixed(e.wall_s, 1)),
                speed(e.speedup),
                e.changed_text().unwrap_or_else(|| "-".into()),
            ]
        })
        .collect();
    let mut s = table(
        &["time", "name", "wall", "vs previous", "what changed"],
        &rows,
    );
    for p in &r.problems {
        s.push_str(&format!("line {}: {}\n", p.line, p.message));
    }
    s.push('\n');
    s.push_str(&render_findings(&r.findings));
    s
}
