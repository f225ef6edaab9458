use std::process::ExitCode;

use kgadvise_core::hardware::worth::{self, WorthGpuRequest};

use crate::output::{CliError, Global, clock, emit};

const EXAMPLES: &str = "Examples:
  kgadvise worth-gpu --task gbdt --rows 2000000
  kgadvise worth-gpu --task gbdt --rows 300000 --refits 200
  kgadvise worth-gpu --task dataframe --rows 50000 --json

Choices: gpu, cpu, bench-both (bench one fold both ways before moving a long job).";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// gbdt, dataframe, sklearn or deep-learning.
    #[arg(long)]
    pub task: String,
    /// Training rows.
    #[arg(long)]
    pub rows: u64,
    /// How many times the model is refit (seeds, feature search, hill climbing).
    #[arg(long)]
    pub refits: Option<u64>,
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let request = WorthGpuRequest {
        task: args.task.clone(),
        rows: Some(args.rows),
        refits: args.refits,
        now: global.now.clone(),
        set: global.overrides(),
    };
    let report = worth::worth_gpu(&request, clock()).map_err(|e| CliError::request(e, &[]))?;
    let code = emit(&report, global)?;
    crate::output::share(
        global,
        "worth-gpu",
        &[
            ("task", Some(args.task.clone())),
            ("rows", Some(args.rows.to_string())),
            ("refits", args.refits.map(|v| v.to_string())),
        ],
    );
    Ok(code)
}
