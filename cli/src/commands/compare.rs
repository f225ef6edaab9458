use std::io::Read;
use std::process::ExitCode;

use kgadvise_core::stats::InputError;
use kgadvise_core::stats::compare::{
    self, CompareOptions, CompareReport, DEFAULT_SEED, T_RESAMPLES,
};
use kgadvise_core::stats::metrics::Metric;
use kgadvise_core::stats::table;
use kgadvise_core::text::number::fixed;

use crate::output::{CliError, Global, emit, render_findings, table as text_table};

const EXAMPLES: &str = "Examples:
  kgadvise compare --idea oof_idea.csv --control oof_control.csv --metric auc
  kgadvise compare --idea idea.csv --control ctrl.csv --metric rmse --folds folds.csv --json
  kgadvise compare --idea idea.csv --control ctrl.csv --metric logloss --resamples 1000 --seed 7

Prediction files (--idea, --control): CSV with a header holding y_true and y_pred.
Optional columns:
  id     pair rows by id when both files have it (else by order); different rows exit 2
  fold   per-fold paired t over 2+ folds, and the majority-of-folds condition
  group  the bootstrap resamples whole groups (patients, sessions) instead of rows
Baseline fold scores (--folds): the baseline's per-fold CV scores, a CSV with a `score`
  column (e.g. fold,score) or one number a line; a gain > 3x their std flags leakage.
Metrics: rmse, mae, logloss, auc, accuracy (gain signed so that positive = better).
Decision: promote (z >= 2 or fold t >= 2, majority of folds improved), inconclusive
  (a second fold or seed first), discard (gain <= 0). Seeded: same input, same answer.";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// The idea's out-of-fold predictions (CSV, `-` = stdin).
    #[arg(long, value_name = "FILE")]
    pub idea: String,
    /// The control screen's predictions on the same rows (CSV).
    #[arg(long, value_name = "FILE")]
    pub control: String,
    /// rmse, mae, logloss, auc or accuracy.
    #[arg(long, value_name = "M")]
    pub metric: String,
    /// The baseline's per-fold scores (`score` column or one number a line), for the leakage check.
    #[arg(long, value_name = "FILE")]
    pub folds: Option<String>,
    /// Bootstrap resamples (default: threshold.stats.resamples, 300).
    #[arg(long, value_name = "N")]
    pub resamples: Option<usize>,
    /// Seed of the bootstrap's random draws.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Threads for the resamples (default: the CPU cores); the answer does not depend on it.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

/// Reads a file, or stdin for `-`; a failure names the flag and the path.
pub fn read_text(flag: &str, path: &str) -> Result<String, CliError> {
    let bytes = if path == "-" {
        let mut b = Vec::new();
        std::io::stdin()
            .read_to_end(&mut b)
            .map_err(|e| CliError::usage(format!("{flag} -: cannot read stdin: {e}")))?;
        b
    } else {
        std::fs::read(path).map_err(|e| {
            CliError::usage(format!(
                "{flag} {path}: cannot read: {e}; expected a readable CSV/JSON file (- for stdin)"
            ))
        })?
    };
    // UTF-8 or UTF-16 (PowerShell's `>`), a BOM dropped: the decoder of every input.
    kgadvise_core::text::decode_strict(&bytes)
        .map(|t| t.into_owned())
        .map_err(|e| CliError::usage(format!("{flag} {path}: {e}; expected a CSV/JSON text file")))
}

pub fn input_error(e: InputError) -> CliError {
    CliError::usage(e.message)
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    // --now changes nothing here, but a bad one is refused like everywhere.
    global.now()?;
    let thresholds = global.thresholds()?;
    let metric = Metric::parse(&args.metric)?;
    if args.idea == "-" && args.control == "-" {
        return Err(CliError::usage(
            "--idea and --control cannot both be stdin (-)",
        ));
    }
    let idea_text = read_text("--idea", &args.idea)?;
    let control_text = read_text("--control", &args.control)?;
    let idea = table::read_predictions(&idea_text, &args.idea).map_err(input_error)?;
    let control = table::read_predictions(&control_text, &args.control).map_err(input_error)?;
    let baseline_fold_scores = match &args.folds {
        Some(path) => {
            Some(table::read_scores(&read_text("--folds", path)?, path).map_err(input_error)?)
        }
        None => None,
    };
    let resamples = match args.resamples {
        Some(n) => n,
        None => thresholds.get(T_RESAMPLES).max(0.0) as usize,
    };
    if resamples < 2 {
        return Err(CliError::usage(format!(
            "--resamples {resamples}: expected at least 2 resamples (to estimate an se)"
        )));
    }
    let paired = compare::pair(&idea, &control, &args.idea, &args.control).map_err(input_error)?;
    let threads = args
        .threads
        .unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get().min(16))
                .unwrap_or(1)
        })
        .max(1);
    let opts = CompareOptions {
        metric,
        resamples,
        seed: args.seed,
        baseline_fold_scores,
        threads,
    };
    // The metric's errors are about the rows of both files: name them.
    let report = compare::compare(&paired, &opts, &thresholds).map_err(|e| {
        CliError::usage(format!(
            "--idea {} / --control {}: {}",
            args.idea, args.control, e.message
        ))
    })?;
    emit(&report, global, human)
}

fn num(v: f64) -> String {
    fixed(v, 6)
}

fn opt(v: Option<f64>) -> String {
    v.map(num).unwrap_or_else(|| "undefined".to_string())
}

fn human(r: &CompareReport) -> String {
    let mut s = format!("{}: {}\n\n", r.decision.as_str().to_uppercase(), r.reason);
    let direction = if r.greater_is_better {
        "higher is better"
    } else {
        "lower is better"
    };
    s.push_str(&format!(
        "  {} ({direction}): idea {} vs control {} on {} rows (paired by {}{})\n",
        r.metric.as_str(),
        num(r.idea_score),
        num(r.control_score),
        r.rows,
        r.paired_by,
        r.groups
            .map(|g| format!(", {g} groups resampled whole"))
            .unwrap_or_default()
    ));
    s.push_str(&format!(
        "  gain {}  se {}  z {}\n",
        num(r.gain),
        opt(r.se),
        opt(r.z)
    ));
    s.push_str(&format!(
        "  P(better) {}  95% interval [{}]  ({} of {} resamples, seed {})\n",
        opt(r.p_better),
        r.ci95
            .map(|[a, b]| format!("{}, {}", num(a), num(b)))
            .unwrap_or_else(|| "undefined".into()),
        r.resamples_used,
        r.resamples,
        r.seed
    ));
    if !r.folds.is_empty() {
        s.push('\n');
        let rows: Vec<Vec<String>> = r
            .folds
            .iter()
            .map(|f| {
                vec![
                    f.fold.clone(),
                    f.rows.to_string(),
                    num(f.idea),
                    num(f.control),
                    num(f.gain),
                    if f.improved { "yes" } else { "no" }.into(),
                ]
            })
            .collect();
        s.push_str(&text_table(
            &["fold", "rows", "idea", "control", "gain", "improved"],
            &rows,
        ));
        s.push_str(&format!(
            "  {} of {} folds improved; per-fold t {} (p {})\n",
            r.folds_improved,
            r.folds.len(),
            opt(r.fold_t),
            opt(r.fold_t_p)
        ));
    }
    if let Some(std) = r.baseline_fold_std {
        s.push_str(&format!(
            "  baseline fold std {}{}\n",
            num(std),
            if r.leakage {
                " (gain above 3x: audit for leakage)"
            } else {
                ""
            }
        ));
    }
    for c in &r.cautions {
        s.push_str(&format!("  caution: {c}\n"));
    }
    s.push('\n');
    s.push_str(&render_findings(&r.findings));
    s
}
