use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

use kgadvise_core::stats::compare::{self, Artifacts, CompareRequest, is_fold_array};
use kgadvise_core::stats::npy::FileBytes;

use crate::output::{CliError, Global, clock, emit, file_text};

const EXAMPLES: &str = "Examples:
  kgadvise compare --idea oof_idea.csv --control oof_control.csv --metric auc
  kgadvise compare --idea idea.csv --control ctrl.csv --metric rmse --folds folds.csv --json
  kgadvise compare --idea idea.csv --control ctrl.csv --metric logloss --resamples 1000 --seed 7
  kgadvise compare --idea artifacts/idea --control artifacts/baseline \\
      --truth data/train.csv:target --fold 0 --metric auc          kgkit's artifacts, one fold
  kgadvise compare --idea artifacts/idea --control artifacts/baseline \\
      --truth data/train.csv:target --groups patient_id --metric auc   every fold both hold

Prediction files (--idea, --control): CSV with a header holding y_true and y_pred.
Optional columns:
  id     pair rows by id when both files have it (else by order); different rows exit 2
  fold   per-fold paired t over 2+ folds, and the majority-of-folds condition
  group  the bootstrap resamples whole groups (patients, sessions) instead of rows
kgkit's artifacts (--idea DIR, --control DIR; or --idea-artifacts DIR, --control-artifacts DIR):
  artifacts/<name>/ with fold<k>_oof.npy and fold<k>_idx.npy (the rows' positions in the --truth
  file, 0 = its first data row); each fold is the k of its files (no folds.csv needed); --fold K
  compares one fold, else every fold both hold (KS008 says which were left out).
  --truth FILE:COLUMN (or --truth FILE --truth-column COLUMN) gives y_true (text labels become
  sorted-class codes, as kgkit encodes them); --groups COLUMN (of the --truth file) resamples
  whole groups. With CSV predictions --fold K keeps
  the rows whose fold column is K.
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
    /// The idea's out-of-fold predictions: a CSV (`-` = stdin), or kgkit's artifacts folder
    /// (artifacts/<name>/ with fold<k>_oof.npy and fold<k>_idx.npy; needs --truth).
    #[arg(
        long,
        value_name = "FILE|DIR",
        required_unless_present = "idea_artifacts"
    )]
    pub idea: Option<String>,
    /// The control screen's predictions on the same rows: a CSV, or its artifacts folder.
    #[arg(
        long,
        value_name = "FILE|DIR",
        required_unless_present = "control_artifacts"
    )]
    pub control: Option<String>,
    /// The idea's artifacts folder, said as such (the request key `ideaArtifacts`; --idea DIR is the same).
    #[arg(long, value_name = "DIR", conflicts_with = "idea")]
    pub idea_artifacts: Option<String>,
    /// The control's artifacts folder, said as such (--control DIR is the same).
    #[arg(long, value_name = "DIR", conflicts_with = "control")]
    pub control_artifacts: Option<String>,
    /// The baseline's per-fold scores (`score` column or one number a line), for the leakage check.
    #[arg(long, value_name = "FILE")]
    pub folds: Option<String>,
    /// With artifacts folders: the training table and its truth column, e.g. data/train.csv:target.
    #[arg(long, value_name = "FILE:COLUMN")]
    pub truth: Option<String>,
    #[command(flatten)]
    pub request: CompareRequest,
}

/// The fold arrays of kgkit's artifacts folder, by file name; a failure names the flag and the path.
fn read_artifacts(flag: &str, dir: &str) -> Result<Artifacts, CliError> {
    let cannot = |e: std::io::Error| {
        CliError::usage(format!(
            "{flag} {dir}: cannot read: {e}; expected kgkit's artifacts folder (fold<k>_oof.npy, fold<k>_idx.npy)"
        ))
    };
    let mut files = Artifacts::new();
    for entry in std::fs::read_dir(dir).map_err(cannot)? {
        let entry = entry.map_err(cannot)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_fold_array(&name) {
            let bytes = std::fs::read(entry.path()).map_err(cannot)?;
            files.insert(name, FileBytes(bytes));
        }
    }
    Ok(files)
}

/// `--truth FILE:COLUMN` → (file, column); the column is after the last `:`.
fn truth_spec(spec: &str) -> Result<(&str, &str), CliError> {
    // `C:\data\train.csv` alone is a drive letter and a path, not FILE:COLUMN
    let drive_only = |file: &str, column: &str| file.len() == 1 && column.starts_with('\\');
    match spec.rsplit_once(':') {
        Some((file, column))
            if !file.is_empty() && !column.is_empty() && !drive_only(file, column) =>
        {
            Ok((file, column))
        }
        _ => Err(CliError::usage(format!(
            "--truth {spec}: expected FILE:COLUMN, e.g. data/train.csv:target"
        ))),
    }
}

/// The predictions of one model as the request takes them, and the path they were read from: the fold
/// arrays of `folder` (`--idea-artifacts`) or of a folder given as `path` (`--idea`), or a CSV's text.
fn predictions<'a>(
    field: &str,
    (path, folder): (Option<&'a str>, Option<&'a str>),
) -> Result<(String, Option<Artifacts>, &'a str), CliError> {
    let flag = format!("--{field}");
    match (path, folder) {
        (_, Some(dir)) => Ok((
            String::new(),
            Some(read_artifacts(&format!("--{field}-artifacts"), dir)?),
            dir,
        )),
        (Some(path), None) if path != "-" && Path::new(path).is_dir() => {
            Ok((String::new(), Some(read_artifacts(&flag, path)?), path))
        }
        (Some(path), None) => Ok((read_text("compare", field, &flag, path)?, None, path)),
        (None, None) => Err(CliError::usage(format!(
            "{flag}: expected a CSV of predictions or kgkit's artifacts folder"
        ))),
    }
}

/// The `--truth` file, its column and its text: `--truth FILE:COLUMN`, or `--truth FILE --truth-column
/// COLUMN`.
fn truth(args: &Args) -> Result<Option<(&str, &str, String)>, CliError> {
    let Some(spec) = args.truth.as_deref() else {
        return Ok(None);
    };
    let (file, column) = match args.request.truth_column.as_deref() {
        Some(column) => (spec, column),
        None => truth_spec(spec)?,
    };
    Ok(Some((
        file,
        column,
        read_text("compare", "truth", "--truth", file)?,
    )))
}

/// Reads `command`'s file input `field` (given as `flag`) from a file, or stdin for `-`, decoded as core
/// decodes that field; a failure to read names the flag and the path, text that cannot be decoded the path
/// (as every later error about the field does).
pub fn read_text(command: &str, field: &str, flag: &str, path: &str) -> Result<String, CliError> {
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
    file_text(command, field, path, &bytes)
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    if args.idea.as_deref() == Some("-") && args.control.as_deref() == Some("-") {
        return Err(CliError::usage(
            "--idea and --control cannot both be stdin (-)",
        ));
    }
    let (idea, idea_artifacts, idea_path) = predictions(
        "idea",
        (args.idea.as_deref(), args.idea_artifacts.as_deref()),
    )?;
    let (control, control_artifacts, control_path) = predictions(
        "control",
        (args.control.as_deref(), args.control_artifacts.as_deref()),
    )?;
    let truth = truth(&args)?;
    // `--groups FILE:COLUMN` of the --truth file is its column too (kgkit's spelling)
    let groups = args
        .request
        .groups
        .as_deref()
        .map(|g| match (&truth, g.rsplit_once(':')) {
            (Some((file, _, _)), Some((f, column))) if f == *file => column,
            _ => g,
        });
    let request = CompareRequest {
        idea,
        control,
        idea_artifacts,
        control_artifacts,
        truth_column: truth.as_ref().map(|(_, column, _)| column.to_string()),
        truth: truth.as_ref().map(|(_, _, text)| text.clone()),
        groups: groups.map(str::to_string),
        folds: match &args.folds {
            Some(path) => Some(read_text("compare", "folds", "--folds", path)?),
            None => None,
        },
        threads: Some(args.request.threads.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get().min(16))
                .unwrap_or(1)
        })),
        now: global.now.clone(),
        set: global.overrides(),
        ..args.request.clone()
    };
    // A problem with both files together (different rows, a metric undefined on them) names both.
    let both = format!("--idea {idea_path} / --control {control_path}");
    let truth_flag = match (&args.truth, &args.request.truth_column) {
        (_, Some(column)) => format!("--truth-column {column}"),
        (Some(spec), None) => format!("--truth {spec}"),
        (None, None) => String::new(),
    };
    let mut files = vec![
        ("idea", idea_path),
        ("control", control_path),
        ("ideaArtifacts", idea_path),
        ("controlArtifacts", control_path),
        ("truthColumn", truth_flag.as_str()),
        ("", both.as_str()),
    ];
    if let Some((file, _, _)) = &truth {
        files.push(("truth", file));
    }
    if let Some(path) = &args.folds {
        files.push(("folds", path));
    }
    let report = compare::compare(&request, clock()).map_err(|e| CliError::request(e, &files))?;
    emit(&report, global)
}
