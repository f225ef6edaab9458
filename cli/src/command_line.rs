//! `kgadvise`: the subcommands and their dispatch. Each subcommand's flags are its core request's fields
//! (flattened from core, feature `cli`) and what only the command line has (paths, `--watch`...), in
//! `commands/`; the global flags are `output::Global`.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::commands;
use crate::output::{self, Global};

const ABOUT: &str = "Kaggle compute advisor: what runs where, what defaults to write, why a run is slow, \
how many GPU hours you have until the deadline, and whether a kernel push will be refused: offline and \
instant. The loop's commands (quota, push, status, wait, collect) drive the official Kaggle CLI.";

const EXAMPLES: &str = "Examples:
  kgadvise matrix --platform t4x2 --capability bf16
  kgadvise defaults images --platform t4x2
  kgadvise worth-gpu --task gbdt --rows 2000000
  kgadvise inference --item-seconds 0.9 --test-items 40000 --limit-hours 9
  kgadvise plan --deadline 2026-12-17 --gpu-remaining 11 --fold-hours 1.5 --folds 5
  kgadvise explain KH001
  kgadvise check kernels/train --timeout-seconds 18000
  kgadvise diagnose gpu.csv --data-rate 410 --compute-rate 980 --loop-rate 400
  kgadvise compare --idea oof_idea.csv --control oof_control.csv --metric auc

The loop (drives the official Kaggle CLI, keeps .kaggle-gm/gpu_runs.jsonl):
  kgadvise quota && kgadvise push kernels/train --measured 3.5 && kgadvise wait me/train --collect
  kgadvise status; kgadvise log

Exit codes: 0 done, 1 error findings, 2 unusable input or usage.";

#[derive(Debug, Parser)]
// bin_name: usage says `kgadvise` whatever the file is called (the tests' build of it, a renamed copy).
#[command(name = "kgadvise", bin_name = "kgadvise", version, about = ABOUT, after_help = EXAMPLES)]
struct Cli {
    #[command(flatten)]
    global: Global,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// What runs where: one cell of the hardware matrix, or the whole table.
    Matrix(commands::matrix::Args),
    /// The defaults to write for a domain, resolved for a platform.
    Defaults(commands::defaults::Args),
    /// Is the GPU worth the quota for this task and data size?
    WorthGpu(commands::worth_gpu::Args),
    /// Will an inference kernel finish on the hidden test within the run-time limit, with margin?
    Inference(commands::inference::Args),
    /// Your GPU and TPU quota from any `kaggle quota` form: plannable hours, reservations, live or not.
    Quota(commands::quota::Args),
    /// GPU-hours until the deadline: resets, final reserve, exploration, screens and promotions.
    Plan(commands::plan::Args),
    /// Session cap (`kaggle kernels push -t`) and how many resumed sessions a run needs.
    Cap(commands::cap::Args),
    /// TPU or GPU: both finish times and the choice.
    Tpu(commands::tpu::Args),
    /// Why is my run slow? Verdicts from nvidia-smi output and/or the three bench rates.
    Diagnose(commands::diagnose::Args),
    /// Sample nvidia-smi for N seconds, then diagnose what it printed.
    Sample(commands::sample::Args),
    /// Run a command while sampling the GPUs: the verdicts live, an alarm when one settles, then the diagnosis.
    Watch(commands::watch::Args),
    /// Should an idea be promoted? A paired bootstrap of its predictions against its control's.
    Compare(commands::compare::Args),
    /// Should a running screen stop? Its learning curve against the baseline's.
    Prune(commands::prune::Args),
    /// Do screens rank ideas as full cross-validation does? Sign agreement and Spearman.
    Fidelity(commands::fidelity::Args),
    /// Time real commands while sampling the GPUs; compare runs; keep a history (--history).
    Bench(commands::bench::Args),
    /// Documentation of a rule (KH001) or a data entry (matrix.bf16.t4x2).
    Explain(commands::explain::Args),
    /// Pre-flight of a kernel push: would kernel-metadata.json be refused, fail or start nothing?
    Check(commands::check::Args),
    /// After a run: what kgkit's kg_run.json says to fix, and the measured cost per fold; a kernel
    /// (USER/SLUG): download its outputs, collect them and record its hours in the runs log.
    Collect(commands::collect::Args),
    /// The loop: pre-flight, -t cap, `kaggle kernels push`, and the run logged (.kaggle-gm/gpu_runs.jsonl).
    Push(commands::push::Args),
    /// The loop: re-check the runs in flight (`kaggle kernels status`), the ledger, what is plannable.
    Status(commands::status::Args),
    /// The loop: poll a run until it ends; on error or cancel its log tail and whether the cap stopped it.
    Wait(commands::wait::Args),
    /// The loop: drop a kernel's reservation by hand (a run deleted or never started).
    Release(commands::release::Args),
    /// The loop: every logged run with its cost and result.
    Log(commands::log::Args),
}

/// Runs `kgadvise` on the process's arguments: the binary's `main` (cli/src/main.rs, and the tests'
/// build of it).
pub fn main() -> ExitCode {
    let cli: Cli = output::parse_cli();
    let result = match cli.command {
        Command::Matrix(args) => commands::matrix::run(args, &cli.global),
        Command::Defaults(args) => commands::defaults::run(args, &cli.global),
        Command::WorthGpu(args) => commands::worth_gpu::run(args, &cli.global),
        Command::Inference(args) => commands::inference::run(args, &cli.global),
        Command::Quota(args) => commands::quota::run(args, &cli.global),
        Command::Plan(args) => commands::plan::run(args, &cli.global),
        Command::Cap(args) => commands::cap::run(args, &cli.global),
        Command::Tpu(args) => commands::tpu::run(args, &cli.global),
        Command::Bench(args) => commands::bench::run(args, &cli.global),
        Command::Explain(args) => commands::explain::run(args, &cli.global),
        Command::Check(args) => commands::check::run(args, &cli.global),
        Command::Collect(args) => commands::collect::run(args, &cli.global),
        Command::Diagnose(args) => commands::diagnose::run(args, &cli.global),
        Command::Sample(args) => commands::sample::run(args, &cli.global),
        Command::Watch(args) => commands::watch::run(args, &cli.global),
        Command::Compare(args) => commands::compare::run(args, &cli.global),
        Command::Prune(args) => commands::prune::run(args, &cli.global),
        Command::Fidelity(args) => commands::fidelity::run(args, &cli.global),
        Command::Push(args) => commands::push::run(args, &cli.global),
        Command::Status(args) => commands::status::run(args, &cli.global),
        Command::Wait(args) => commands::wait::run(args, &cli.global),
        Command::Release(args) => commands::release::run(args, &cli.global),
        Command::Log(args) => commands::log::run(args, &cli.global),
    };
    match result {
        Ok(code) => code,
        Err(e) => e.report(&cli.global),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Cli;

    /// The width clap lays help out in when stdout is not a terminal (and the narrowest common one).
    const HELP_WIDTH: usize = 100;

    /// clap re-wraps any line wider than the terminal. An example line (indented) wider than that
    /// breaks mid-comment, and a prose line broken by hand wider than that leaves a one-word line
    /// behind: prose is written as one line per paragraph (clap wraps it), examples fit the width.
    fn badly_wrapped_lines(help: &str) -> Vec<String> {
        let lines: Vec<&str> = help.lines().collect();
        let mut bad = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            let width = line.chars().count();
            let is_example = line.starts_with(' ');
            let ends_paragraph = lines.get(i + 1).is_none_or(|next| next.trim().is_empty());
            if width > HELP_WIDTH && (is_example || !ends_paragraph) {
                bad.push(format!("{width} columns: {line}"));
            }
        }
        bad
    }

    #[test]
    fn every_commands_examples_fit_the_help_width() {
        let top = Cli::command();
        let mut bad = Vec::new();
        for command in std::iter::once(&top).chain(top.get_subcommands()) {
            if let Some(help) = command.get_after_help() {
                for line in badly_wrapped_lines(&help.to_string()) {
                    bad.push(format!("kgadvise {}: {line}", command.get_name()));
                }
            }
        }
        assert!(
            bad.is_empty(),
            "help lines clap would break:\n{}",
            bad.join("\n")
        );
    }
}
