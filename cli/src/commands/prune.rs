use std::process::ExitCode;

use kgadvise_core::stats::prune::{self, PruneReport};
use kgadvise_core::stats::table;
use kgadvise_core::text::number::shortest;

use super::compare::{input_error, read_text};
use crate::output::{CliError, Global, emit, render_findings};

const EXAMPLES: &str = "Examples:
  kgadvise prune --baseline artifacts/baseline/curve_fold0.json --current artifacts/idea/curve_fold0.json
  kgadvise prune --baseline baseline_curves.json --current curve_fold0.json --json
  kgadvise prune --baseline b.json --current c.json --margin 0.004 --min-frac 0.4

Curves: kgkit's curve_fold<k>.json {fold, epochs, greater_is_better, points: [{epoch, score, seconds}]}
(`epochs` = the scheduled epochs; epochs counted from 1, or from 0 when the first point is epoch 0).
--baseline may also be a JSON list of curves (one per fold): the reference is their mean, and the std
of their final bests is the default margin. Never prunes before --min-frac of the schedule (0.3).";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// The accepted baseline's curve JSON (or a list of its folds' curves).
    #[arg(long, value_name = "FILE")]
    pub baseline: String,
    /// The running screen's curve JSON.
    #[arg(long, value_name = "FILE")]
    pub current: String,
    /// Prune when the screen trails the baseline by more than this (default: the baseline's fold std).
    #[arg(long, value_name = "X")]
    pub margin: Option<f64>,
    /// Never prune before this fraction of the schedule (default: threshold.stats.prune-min-frac).
    #[arg(long, value_name = "F")]
    pub min_frac: Option<f64>,
    /// The baseline's per-fold scores (`score` column or one number a line): their std is the margin.
    #[arg(long, value_name = "FILE")]
    pub folds: Option<String>,
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    // --now changes nothing here, but a bad one is refused like everywhere.
    global.now()?;
    let thresholds = global.thresholds()?;
    if let Some(m) = args.margin
        && !(m.is_finite() && m >= 0.0)
    {
        return Err(CliError::usage(format!(
            "--margin {m}: expected a number ≥ 0 in the metric's units",
            m = shortest(m)
        )));
    }
    if let Some(f) = args.min_frac
        && !(0.0..=1.0).contains(&f)
    {
        return Err(CliError::usage(format!(
            "--min-frac {f}: expected a fraction between 0 and 1",
            f = shortest(f)
        )));
    }
    let baseline = prune::read_curves(&read_text("--baseline", &args.baseline)?, &args.baseline)
        .map_err(input_error)?;
    let current = prune::read_curves(&read_text("--current", &args.current)?, &args.current)
        .map_err(input_error)?;
    let [current] = current.as_slice() else {
        return Err(CliError::usage(format!(
            "--current {}: holds {} curves; expected the one running curve",
            args.current,
            current.len()
        )));
    };
    let scores = match &args.folds {
        Some(path) => {
            Some(table::read_scores(&read_text("--folds", path)?, path).map_err(input_error)?)
        }
        None => None,
    };
    let report = prune::prune(
        &baseline,
        current,
        args.margin,
        args.min_frac,
        scores.as_deref(),
        &thresholds,
    )
    .map_err(input_error)?;
    emit(&report, global, human)
}

fn human(r: &PruneReport) -> String {
    // the reason starts with its verdict ("prune: ...", "continue: ..."): shout that word
    let (verdict, rest) = r.reason.split_once(": ").unwrap_or(("", r.reason.as_str()));
    let mut s = format!("{}: {rest}\n\n", verdict.to_uppercase());
    s.push_str(&render_findings(&r.findings));
    s
}
