use std::process::ExitCode;

use kgadvise_core::stats::prune::{self, PruneRequest};

use super::compare::read_text;
use crate::output::{CliError, Global, clock, emit};

const EXAMPLES: &str = "Examples:
  kgadvise prune --baseline artifacts/baseline/curve_fold0.json \\
      --current artifacts/idea/curve_fold0.json
  kgadvise prune --baseline baseline_curves.json --current curve_fold0.json --json
  kgadvise prune --baseline b.json --current c.json --margin 0.004 --min-frac 0.4

Curves: kgkit's curve_fold<k>.json {fold, epochs, greater_is_better, points: [{epoch, score, \
seconds}]} (`epochs` = the scheduled epochs; epochs counted from 1, or from 0 when the first point \
is epoch 0).

--baseline may also be a JSON list of curves (one per fold): the reference is their mean, and the \
std of their final bests is the default margin. Never prunes before --min-frac of the schedule \
(0.3). Without a margin (no --margin, one baseline curve, no --folds) a trailing screen gets no \
decision (`no-margin`): kgadvise does not prune on noise, as kgkit never prunes without \
KG_PRUNE_MARGIN.";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    #[command(flatten)]
    pub request: PruneRequest,
    /// The accepted baseline's curve JSON (or a list of its folds' curves).
    #[arg(long, value_name = "FILE")]
    pub baseline: String,
    /// The running screen's curve JSON.
    #[arg(long, value_name = "FILE")]
    pub current: String,
    /// The baseline's per-fold scores (`score` column or one number a line): their std is the margin.
    #[arg(long, value_name = "FILE")]
    pub folds: Option<String>,
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let request = PruneRequest {
        baseline: read_text("prune", "baseline", "--baseline", &args.baseline)?,
        current: read_text("prune", "current", "--current", &args.current)?,
        folds: match &args.folds {
            Some(path) => Some(read_text("prune", "folds", "--folds", path)?),
            None => None,
        },
        now: global.now.clone(),
        set: global.overrides(),
        ..args.request.clone()
    };
    // A problem with both curves together (not the same metric) names both.
    let both = format!("--baseline {} / --current {}", args.baseline, args.current);
    let mut files = vec![
        ("baseline", args.baseline.as_str()),
        ("current", args.current.as_str()),
        ("", both.as_str()),
    ];
    if let Some(path) = &args.folds {
        files.push(("folds", path));
    }
    let report = prune::prune(&request, clock()).map_err(|e| CliError::request(e, &files))?;
    emit(&report, global)
}
