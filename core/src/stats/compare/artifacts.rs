//! Comparing from kgkit's own artifacts (KG §2: a custom script writes
//! `artifacts/<name>/fold<k>_oof.npy` (+ `_idx.npy`, `_test.npy`); KG §3.3: `kgkit ledger compare
//! artifacts/<idea> artifacts/<control> --truth data/train.csv:<target> ... --fold 0`).
//!
//! Each folder is given as its files by name (`ideaArtifacts`, `controlArtifacts`; bytes, base64 in
//! JSON). `fold<k>_oof.npy` holds the predictions of fold k's rows and `fold<k>_idx.npy` their positions
//! in the training table (0 = its first data row), whose truth column `truth`/`truthColumn` gives
//! y_true; other files are passed over. The fold of every row is the k of its file, so kgkit's
//! `--folds data/folds.csv:fold` is not needed. With `fold` one fold is compared, else every fold both
//! folders hold (a fold in one folder only is left out with a caution).
//!
//! Departures from kgkit's `ledger compare`, on purpose: kgkit places both folders' predictions in a
//! full-length array and compares the rows both hold; here a fold's two `_idx.npy` must hold the same
//! rows (else the screens did not run on the same split: an error naming the rows), as the CSV form
//! requires the same rows. Groups are a column of the truth table (`groups`), not a separate file.

use std::collections::{BTreeMap, HashMap};

use super::pair::{CONTROL, IDEA, Paired, RowLabels, list};
use crate::request::RequestError;
use crate::stats::npy::{Artifacts, read_indices, read_numbers};
use crate::stats::table::Truth;
use crate::text::number::shortest;

/// A folder's folds: k → (the bytes of `fold<k>_oof.npy`, of `fold<k>_idx.npy`).
type FoldFiles<'a> = BTreeMap<u32, (&'a [u8], &'a [u8])>;

/// One side of the comparison: the request field and how messages name it.
#[derive(Clone, Copy)]
struct Side<'a> {
    field: &'static str,
    files: &'a Artifacts,
}

/// Whether a file of an artifacts folder is read: a fold's predictions or row positions
/// (`fold<k>_oof.npy`, `fold<k>_idx.npy`), not its test predictions, checkpoints or curves. The CLI
/// reads only these from the folder.
pub fn is_fold_array(name: &str) -> bool {
    oof_fold(name).is_some()
        || name
            .strip_suffix("_idx.npy")
            .is_some_and(|stem| oof_fold(&format!("{stem}_oof.npy")).is_some())
}

/// `fold<k>_oof.npy` → k.
fn oof_fold(name: &str) -> Option<u32> {
    let k = name.strip_prefix("fold")?.strip_suffix("_oof.npy")?;
    (!k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
        .then(|| k.parse().ok())
        .flatten()
}

/// The folds of a folder: k → (the OOF file's bytes, the index file's bytes).
fn fold_files<'a>(side: Side<'a>) -> Result<FoldFiles<'a>, RequestError> {
    let mut folds = BTreeMap::new();
    for (name, bytes) in side.files {
        let Some(k) = oof_fold(name) else {
            continue;
        };
        let idx_name = format!("fold{k}_idx.npy");
        let Some(idx) = side.files.get(&idx_name) else {
            return Err(RequestError::new(
                side.field,
                format!(
                    "{name} without {idx_name}; expected both (kgkit writes each fold's row positions beside its \
                     predictions)"
                ),
            ));
        };
        folds.insert(k, (bytes.0.as_slice(), idx.0.as_slice()));
    }
    if folds.is_empty() {
        let mut names: Vec<String> = side.files.keys().cloned().collect();
        names.truncate(8);
        return Err(RequestError::new(
            side.field,
            format!(
                "no fold<k>_oof.npy among its {} file(s){}; expected kgkit's artifacts folder \
                 (artifacts/<name>/ with fold<k>_oof.npy and fold<k>_idx.npy)",
                side.files.len(),
                if names.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", names.join(", "))
                }
            ),
        ));
    }
    Ok(folds)
}

/// One fold of one folder: its predictions and their rows, checked against the truth table.
fn read_fold(
    side: Side,
    k: u32,
    (oof, idx): (&[u8], &[u8]),
    truth_rows: usize,
) -> Result<(Vec<f64>, Vec<u64>), RequestError> {
    let at =
        |file: &str, e: String| RequestError::new(side.field, format!("fold{k}_{file}.npy: {e}"));
    let pred = read_numbers(oof).map_err(|e| at("oof", e))?;
    let rows = read_indices(idx).map_err(|e| at("idx", e))?;
    if pred.len() != rows.len() {
        return Err(at(
            "oof",
            format!(
                "{} predictions but fold{k}_idx.npy holds {} rows; expected one prediction a row",
                pred.len(),
                rows.len()
            ),
        ));
    }
    if let Some((i, v)) = pred.iter().enumerate().find(|(_, v)| !v.is_finite()) {
        return Err(at(
            "oof",
            format!(
                "prediction {i} is {}; expected finite numbers",
                shortest(*v)
            ),
        ));
    }
    if let Some(&r) = rows.iter().find(|&&r| r >= truth_rows as u64) {
        return Err(at(
            "idx",
            format!(
                "row {r}, but the truth table has {truth_rows} rows; expected positions in the truth table \
                 (0 = its first data row): the --truth file of the run that wrote the artifacts"
            ),
        ));
    }
    Ok((pred, rows))
}

/// KS009's evidence when the control holds every fold of the idea and more: a full run's OOF, not a
/// control screen run under the idea's reduced settings (KG §3 (3)). The settings themselves are not in
/// the artifacts, so the folds are what tells.
fn full_run_control(idea: &FoldFiles, control: &FoldFiles) -> Option<String> {
    let names =
        |m: &FoldFiles| -> String { m.keys().map(u32::to_string).collect::<Vec<_>>().join(", ") };
    let more = control.keys().any(|k| !idea.contains_key(k));
    let subset = !idea.is_empty() && idea.keys().all(|k| control.contains_key(k));
    (more && subset).then(|| {
        format!(
            "{CONTROL_ARTIFACTS} hold fold(s) {}, {IDEA_ARTIFACTS} fold(s) {}: the control reads as a full run, not a screen under the idea's settings",
            names(control),
            names(idea)
        )
    })
}

/// The folds to compare: `fold`, or every fold both folders hold (the others said in `left_out`, KS008).
fn chosen_folds(
    idea: &FoldFiles,
    control: &FoldFiles,
    fold: Option<u32>,
    left_out: &mut Option<String>,
) -> Result<Vec<u32>, RequestError> {
    let names = |m: &FoldFiles| -> Vec<String> { m.keys().map(u32::to_string).collect() };
    if let Some(k) = fold {
        for (folds, field, name) in [
            (idea, "ideaArtifacts", IDEA_ARTIFACTS),
            (control, "controlArtifacts", CONTROL_ARTIFACTS),
        ] {
            if !folds.contains_key(&k) {
                return Err(RequestError::new(
                    field,
                    format!(
                        "{name} hold no fold{k}_oof.npy; expected --fold to be one of their folds: {}",
                        names(folds).join(", ")
                    ),
                ));
            }
        }
        return Ok(vec![k]);
    }
    let both: Vec<u32> = idea
        .keys()
        .filter(|k| control.contains_key(k))
        .copied()
        .collect();
    if both.is_empty() {
        return Err(RequestError::new(
            "",
            format!(
                "no fold in both: {IDEA_ARTIFACTS} hold fold(s) {}, {CONTROL_ARTIFACTS} fold(s) {}; expected the \
                 same fold screened by both",
                names(idea).join(", "),
                names(control).join(", ")
            ),
        ));
    }
    let only: Vec<String> = [
        (idea, control, IDEA_ARTIFACTS),
        (control, idea, CONTROL_ARTIFACTS),
    ]
    .into_iter()
    .filter_map(|(folds, other, name)| {
        let only: Vec<String> = folds
            .keys()
            .filter(|k| !other.contains_key(k))
            .map(u32::to_string)
            .collect();
        (!only.is_empty()).then(|| format!("fold(s) {} only in {name}", only.join(", ")))
    })
    .collect();
    if !only.is_empty() {
        *left_out = Some(format!(
            "{}: left out; compared: fold(s) {}",
            only.join("; "),
            both.iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(both)
}

const IDEA_ARTIFACTS: &str = "the idea's artifacts";
const CONTROL_ARTIFACTS: &str = "the control's artifacts";

/// The control's position of each idea row of one fold; different row sets are an error naming rows.
fn match_rows(k: u32, idea: &[u64], control: &[u64]) -> Result<Vec<usize>, RequestError> {
    if idea == control {
        return Ok((0..idea.len()).collect());
    }
    let at: HashMap<u64, usize> = control.iter().enumerate().map(|(i, &r)| (r, i)).collect();
    let only_idea: Vec<String> = idea
        .iter()
        .filter(|r| !at.contains_key(r))
        .map(u64::to_string)
        .collect();
    let idea_rows: std::collections::HashSet<u64> = idea.iter().copied().collect();
    let only_control: Vec<String> = control
        .iter()
        .filter(|r| !idea_rows.contains(r))
        .map(u64::to_string)
        .collect();
    if !only_idea.is_empty() || !only_control.is_empty() || idea.len() != control.len() {
        return Err(RequestError::new(
            "",
            format!(
                "fold {k}: the two folders' fold{k}_idx.npy hold different rows ({} row(s) only in {IDEA}'s: {}; \
                 {} only in {CONTROL}'s: {}); expected the same split (the same frozen folds)",
                only_idea.len(),
                list(&only_idea, only_idea.len()),
                only_control.len(),
                list(&only_control, only_control.len())
            ),
        ));
    }
    Ok(idea
        .iter()
        .map(|r| at.get(r).copied().unwrap_or(0))
        .collect())
}

/// The request's artifacts paired row by row, with the truth and groups of the truth table.
pub(super) fn pair_artifacts(
    idea: &Artifacts,
    control: &Artifacts,
    truth: &Truth,
    fold: Option<u32>,
) -> Result<Paired, RequestError> {
    let idea = Side {
        field: "ideaArtifacts",
        files: idea,
    };
    let control = Side {
        field: "controlArtifacts",
        files: control,
    };
    let (idea_folds, control_folds) = (fold_files(idea)?, fold_files(control)?);
    let mut p = Paired {
        paired_by: "index",
        fold: Some(Vec::new()),
        group: truth.groups.as_ref().map(|_| Vec::new()),
        label: RowLabels {
            lines_of: Some("the truth table"),
            ..RowLabels::default()
        },
        ..Paired::default()
    };
    p.full_run_control = full_run_control(&idea_folds, &control_folds);
    let folds = chosen_folds(&idea_folds, &control_folds, fold, &mut p.folds_left_out)?;
    let mut seen: HashMap<u64, u32> = HashMap::new();
    for k in folds {
        let (Some(i_files), Some(c_files)) = (idea_folds.get(&k), control_folds.get(&k)) else {
            continue;
        };
        let (i_pred, i_rows) = read_fold(idea, k, *i_files, truth.values.len())?;
        let (c_pred, c_rows) = read_fold(control, k, *c_files, truth.values.len())?;
        let control_of = match_rows(k, &i_rows, &c_rows)?;
        for (i, &row) in i_rows.iter().enumerate() {
            if let Some(other) = seen.insert(row, k) {
                return Err(RequestError::new(
                    "",
                    if other == k {
                        format!("row {row} is twice in fold{k}_idx.npy; expected each row once")
                    } else {
                        format!(
                            "row {row} is in fold {other} and in fold {k}; expected each row in one fold"
                        )
                    },
                ));
            }
            let r = row as usize;
            let y = truth.values.get(r).copied().unwrap_or(f64::NAN);
            if y.is_nan() {
                return Err(RequestError::at_line(
                    "truth",
                    truth.line.get(r).copied().unwrap_or(0) as usize,
                    format!(
                        "row {row} (fold {k}) has no truth value; expected a label in every row the artifacts \
                         score"
                    ),
                ));
            }
            p.y_true.push(y);
            p.idea.push(i_pred.get(i).copied().unwrap_or(f64::NAN));
            p.control.push(
                control_of
                    .get(i)
                    .and_then(|&j| c_pred.get(j))
                    .copied()
                    .unwrap_or(f64::NAN),
            );
            if let Some(folds) = p.fold.as_mut() {
                folds.push(k.to_string());
            }
            if let (Some(gs), Some(all)) = (p.group.as_mut(), truth.groups.as_ref()) {
                gs.push(all.get(r).cloned().unwrap_or_default());
            }
            p.label.lines.push(truth.line.get(r).copied().unwrap_or(0));
        }
    }
    if let Some(classes) = &truth.classes {
        p.notes.push(format!(
            "the truth column is text: encoded as sorted classes ({}), as kgkit encodes labels",
            classes
                .iter()
                .take(6)
                .enumerate()
                .map(|(i, c)| format!("{c}={i}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_names() {
        for name in ["fold0_oof.npy", "fold12_idx.npy"] {
            assert!(is_fold_array(name), "{name}");
        }
        for name in ["fold0_test.npy", "foldx_idx.npy", "fold_oof.npy", "oof.csv"] {
            assert!(!is_fold_array(name), "{name}");
        }
        assert_eq!(oof_fold("fold0_oof.npy"), Some(0));
        assert_eq!(oof_fold("fold12_oof.npy"), Some(12));
        for name in [
            "fold_oof.npy",
            "foldx_oof.npy",
            "fold0_test.npy",
            "fold0_idx.npy",
            "oof.npy",
        ] {
            assert_eq!(oof_fold(name), None, "{name}");
        }
    }

    #[test]
    fn rows_match_in_any_order_or_not_at_all() {
        assert_eq!(
            match_rows(0, &[4, 2, 9], &[4, 2, 9]).unwrap(),
            vec![0, 1, 2]
        );
        assert_eq!(
            match_rows(0, &[4, 2, 9], &[9, 4, 2]).unwrap(),
            vec![1, 2, 0]
        );
        let e = match_rows(3, &[4, 2, 9], &[4, 2, 8]).unwrap_err();
        assert!(
            e.message.contains("fold 3") && e.message.contains("9") && e.message.contains("8"),
            "{e}"
        );
        assert!(match_rows(0, &[1, 1], &[1, 2]).is_err());
    }
}
