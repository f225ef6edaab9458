use std::io::Read;
use std::process::ExitCode;

use kgadvise_core::stats::compare::{self, CompareReport, CompareRequest};
use kgadvise_core::text::number::fixed;

use crate::output::{CliError, Global, clock, emit, render_findings, table as text_table};

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
Decision, on the decision gain G (2+ folds: the mean per-fold gain; else the pooled gain):
  discard       G <= 0
  promote       G > 0, z >= 2 or fold t >= 2, a majority of folds improved, mean bootstrap gain >= 0
  inconclusive  G > 0 otherwise: a second fold or seed first
Every fold gaining the same gives fold t = +infinity (JSON: fold_t null, fold_t_infinite).
Seeded: same input, same answer.";

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
    /// Seed of the bootstrap's random draws (default: 42).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
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

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    if args.idea == "-" && args.control == "-" {
        return Err(CliError::usage(
            "--idea and --control cannot both be stdin (-)",
        ));
    }
    let request = CompareRequest {
        idea: read_text("--idea", &args.idea)?,
        control: read_text("--control", &args.control)?,
        metric: args.metric.clone(),
        folds: match &args.folds {
            Some(path) => Some(read_text("--folds", path)?),
            None => None,
        },
        resamples: args.resamples,
        seed: args.seed,
        threads: Some(args.threads.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get().min(16))
                .unwrap_or(1)
        })),
        now: global.now.clone(),
        set: global.overrides(),
    };
    // A problem with both files together (different rows, a metric undefined on them) names both.
    let both = format!("--idea {} / --control {}", args.idea, args.control);
    let mut files = vec![
        ("idea", args.idea.as_str()),
        ("control", args.control.as_str()),
        ("", both.as_str()),
    ];
    if let Some(path) = &args.folds {
        files.push(("folds", path));
    }
    let report = compare::compare(&request, clock()).map_err(|e| CliError::request(e, &files))?;
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
            "  {} of {} folds improved; mean fold gain {}; per-fold t {} (p {})\n",
            r.folds_improved,
            r.folds.len(),
            opt(r.fold_gain),
            r.fold_t_infinite
                .map(str::to_string)
                .unwrap_or_else(|| opt(r.fold_t)),
            opt(r.fold_t_p)
        ));
    }
    if let Some(std) = r.baseline_fold_std {
        s.push_str(&format!(
            "  baseline fold std {}{}\n",
            num(std),
            if r.leakage {
                " (the gain is too large for it: audit for leakage)"
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
