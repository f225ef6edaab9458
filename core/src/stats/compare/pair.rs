//! Pairing the idea's rows with the control's: by the `id` column when both files have one, else by
//! order. Different row sets, a different `y_true` on a paired row, or conflicting `fold`/`group` are
//! errors naming the rows.

use std::collections::HashMap;

use crate::request::RequestError;
use crate::stats::table::Predictions;
use crate::text::number::shortest;

/// How messages name the two inputs.
pub(super) const IDEA: &str = "the idea file";
pub(super) const CONTROL: &str = "the control file";

/// The two models' predictions joined row by row.
#[derive(Debug, Clone, Default)]
pub(super) struct Paired {
    pub y_true: Vec<f64>,
    pub idea: Vec<f64>,
    pub control: Vec<f64>,
    pub fold: Option<Vec<String>>,
    pub group: Option<Vec<String>>,
    /// How to name each row in messages.
    pub label: RowLabels,
    /// `id` or `order`.
    pub paired_by: &'static str,
    /// What the reader of the answer should know about the pairing.
    pub notes: Vec<String>,
    /// kgkit's artifacts: the folds one folder holds and the other does not, left out (KS008).
    pub folds_left_out: Option<String>,
    /// kgkit's artifacts: the control holds every fold of the idea and more, a full run (KS009).
    pub full_run_control: Option<String>,
}

/// Names rows in messages (`id X`, or `line N of the idea file`), computed only when a message needs one.
#[derive(Debug, Clone, Default)]
pub(super) struct RowLabels {
    pub ids: Option<Vec<String>>,
    pub lines: Vec<u64>,
    /// What `lines` are lines of (default: the idea file).
    pub lines_of: Option<&'static str>,
}

impl RowLabels {
    pub fn get(&self, i: usize) -> String {
        if let Some(id) = self.ids.as_ref().and_then(|ids| ids.get(i)) {
            return format!("id `{id}`");
        }
        match self.lines.get(i) {
            Some(line) => format!("line {line} of {}", self.lines_of.unwrap_or(IDEA)),
            None => format!("row {}", i + 1),
        }
    }
}

impl Paired {
    /// Only the rows whose `fold` is `fold` (compared as numbers: `0` and `0.0` are one fold); the
    /// request field `fold` when the rows have no such fold.
    pub fn keep_fold(self, fold: u32) -> Result<Paired, RequestError> {
        let Some(folds) = &self.fold else {
            return Err(RequestError::value(
                "fold",
                fold.to_string(),
                "the predictions have no `fold` column; expected a `fold` column to pick a fold from",
            ));
        };
        let keep: Vec<bool> = folds
            .iter()
            .map(|f| crate::text::decimal::parse_f64(f.trim()) == Some(f64::from(fold)))
            .collect();
        if !keep.contains(&true) {
            let mut names = folds.clone();
            crate::text::sort::sort(&mut names);
            names.dedup();
            return Err(RequestError::value(
                "fold",
                fold.to_string(),
                format!(
                    "no row of that fold; expected one of the folds in the files: {}",
                    list(&names, names.len())
                ),
            ));
        }
        let pick = |v: &[f64]| -> Vec<f64> {
            v.iter()
                .zip(&keep)
                .filter(|(_, k)| **k)
                .map(|(x, _)| *x)
                .collect()
        };
        let pick_text = |v: &Option<Vec<String>>| -> Option<Vec<String>> {
            v.as_ref().map(|v| {
                v.iter()
                    .zip(&keep)
                    .filter(|(_, k)| **k)
                    .map(|(x, _)| x.clone())
                    .collect()
            })
        };
        let pick_lines = |v: &[u64]| -> Vec<u64> {
            v.iter()
                .zip(&keep)
                .filter(|(_, k)| **k)
                .map(|(x, _)| *x)
                .collect()
        };
        Ok(Paired {
            y_true: pick(&self.y_true),
            idea: pick(&self.idea),
            control: pick(&self.control),
            fold: pick_text(&self.fold),
            group: pick_text(&self.group),
            label: RowLabels {
                ids: pick_text(&self.label.ids),
                lines: pick_lines(&self.label.lines),
                lines_of: self.label.lines_of,
            },
            paired_by: self.paired_by,
            notes: self.notes,
            folds_left_out: self.folds_left_out,
            full_run_control: self.full_run_control,
        })
    }
}

pub(super) fn list(items: &[String], total: usize) -> String {
    let mut s = items.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
    if total > 5 {
        s.push_str(&format!(" (and {} more)", total - 5));
    }
    s
}

/// Each id's position, and the ids given more than once (quoted).
fn positions(ids: &[String]) -> (HashMap<&str, usize>, Vec<String>) {
    let mut pos: HashMap<&str, usize> = HashMap::with_capacity(ids.len());
    let mut repeated = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        if pos.insert(id.as_str(), i).is_some() {
            repeated.push(format!("`{id}`"));
        }
    }
    (pos, repeated)
}

/// The control's row for each idea row, by id. Each id must appear once in each file, and both files
/// must hold the same ids.
fn index_by_id(idea_ids: &[String], control_ids: &[String]) -> Result<Vec<usize>, RequestError> {
    let (pos, dup_control) = positions(control_ids);
    let (seen, dup_idea) = positions(idea_ids);
    if !dup_control.is_empty() || !dup_idea.is_empty() {
        let mut parts = Vec::new();
        if !dup_idea.is_empty() {
            parts.push(format!(
                "{IDEA} repeats id {}",
                list(&dup_idea, dup_idea.len())
            ));
        }
        if !dup_control.is_empty() {
            parts.push(format!(
                "{CONTROL} repeats id {}",
                list(&dup_control, dup_control.len())
            ));
        }
        let field = match (dup_idea.is_empty(), dup_control.is_empty()) {
            (false, true) => "idea",
            (true, false) => "control",
            _ => "",
        };
        return Err(RequestError::new(
            field,
            format!("{}; expected each id once", parts.join("; ")),
        ));
    }
    let only = |ids: &[String], other: &HashMap<&str, usize>| -> Vec<String> {
        ids.iter()
            .filter(|id| !other.contains_key(id.as_str()))
            .map(|id| format!("`{id}`"))
            .collect()
    };
    let (only_idea, only_control) = (only(idea_ids, &pos), only(control_ids, &seen));
    if only_idea.is_empty() && !only_control.is_empty() {
        // Every idea row is in the control, which has more: a one-fold screen against a full run's OOF.
        return Err(RequestError::new(
            "",
            format!(
                "{CONTROL} holds every row of {IDEA} and {} more ({}): a screen on some folds against a full \
                 run's out-of-fold predictions? The fair reference for a screen is a control screen, the \
                 baseline run at the screen's settings on the same folds (`kgadvise explain KS009`); expected \
                 out-of-fold predictions of the same rows",
                only_control.len(),
                list(&only_control, only_control.len())
            ),
        ));
    }
    if !only_idea.is_empty() || !only_control.is_empty() {
        let mut parts = Vec::new();
        for (ids, name) in [(&only_idea, IDEA), (&only_control, CONTROL)] {
            if !ids.is_empty() {
                parts.push(format!(
                    "{} id(s) only in {name}: {}",
                    ids.len(),
                    list(ids, ids.len())
                ));
            }
        }
        return Err(RequestError::new(
            "",
            format!(
                "the two files hold different rows ({}); expected out-of-fold predictions of the same rows",
                parts.join("; ")
            ),
        ));
    }
    Ok(idea_ids
        .iter()
        .map(|id| pos.get(id.as_str()).copied().unwrap_or(0))
        .collect())
}

/// Joins the idea's rows with the control's: by the `id` column when both files have one, else by order.
pub(super) fn pair(mut idea: Predictions, control: &Predictions) -> Result<Paired, RequestError> {
    // index into the control for each idea row
    let (control_index, paired_by): (Vec<usize>, &'static str) = match (&idea.id, &control.id) {
        (Some(idea_ids), Some(control_ids)) if idea_ids == control_ids => {
            ((0..idea.len()).collect(), "id")
        }
        (Some(idea_ids), Some(control_ids)) => (index_by_id(idea_ids, control_ids)?, "id"),
        _ => {
            if idea.len() != control.len() {
                return Err(RequestError::new(
                    "",
                    format!(
                        "{IDEA} has {} rows but {CONTROL} has {}: expected the same rows (add an `id` \
                         column to both files to pair them by id)",
                        idea.len(),
                        control.len()
                    ),
                ));
            }
            ((0..idea.len()).collect(), "order")
        }
    };
    let note = match (&idea.id, &control.id) {
        (Some(_), None) => Some(format!(
            "only {IDEA} has an `id` column: rows were paired by order (add `id` to {CONTROL} too)"
        )),
        (None, Some(_)) => Some(format!(
            "only {CONTROL} has an `id` column: rows were paired by order (add `id` to {IDEA} too)"
        )),
        _ => None,
    };
    // the ids and lines name rows in messages: moved, not copied (a million rows)
    let label = RowLabels {
        ids: if paired_by == "id" {
            idea.id.take()
        } else {
            None
        },
        lines: std::mem::take(&mut idea.line),
        lines_of: None,
    };
    let mut p = join_rows(&idea, control, &control_index, label, paired_by)?;
    p.notes.extend(note);
    p.fold = merge_column("fold", &idea.fold, &control.fold, &control_index, &p.label)?;
    p.group = merge_column(
        "group",
        &idea.group,
        &control.group,
        &control_index,
        &p.label,
    )?;
    // the idea's columns in its own order are the paired rows' (moved, not copied: a million rows)
    p.y_true = idea.y_true;
    p.idea = idea.y_pred;
    Ok(p)
}

/// The paired rows' labels and the control's predictions in the idea's order (the idea's own columns
/// are already in it); a paired row whose `y_true` differs is an error.
fn join_rows(
    idea: &Predictions,
    control: &Predictions,
    control_index: &[usize],
    label: RowLabels,
    paired_by: &'static str,
) -> Result<Paired, RequestError> {
    let mut p = Paired {
        paired_by,
        ..Paired::default()
    };
    let mut truth_mismatch = Vec::new();
    let mut truth_count = 0;
    p.control.reserve(control_index.len());
    for (i, &j) in control_index.iter().enumerate() {
        let (Some(&ti), Some(&tc)) = (idea.y_true.get(i), control.y_true.get(j)) else {
            p.control.push(f64::NAN);
            continue;
        };
        if (ti - tc).abs() > 1e-9 * ti.abs().max(1.0) {
            truth_count += 1;
            truth_mismatch.push(format!(
                "{} (y_true {} vs {})",
                label.get(i),
                shortest(ti),
                shortest(tc)
            ));
        }
        p.control
            .push(control.y_pred.get(j).copied().unwrap_or(f64::NAN));
    }
    if truth_count > 0 {
        return Err(RequestError::new(
            "",
            format!(
                "{truth_count} paired row(s) have a different y_true in {IDEA} and {CONTROL}: {}; expected \
                 the same rows{}",
                list(&truth_mismatch, truth_count),
                if paired_by == "order" {
                    " in the same order (or add an `id` column to both)"
                } else {
                    ""
                }
            ),
        ));
    }
    p.label = label;
    Ok(p)
}

fn merge_column(
    name: &str,
    idea: &Option<Vec<String>>,
    control: &Option<Vec<String>>,
    control_index: &[usize],
    labels: &RowLabels,
) -> Result<Option<Vec<String>>, RequestError> {
    match (idea, control) {
        (Some(a), Some(b)) => {
            let mut conflicts = Vec::new();
            for (i, &j) in control_index.iter().enumerate() {
                let (x, y) = (a.get(i), b.get(j));
                if x != y {
                    conflicts.push(format!(
                        "{} (`{}` vs `{}`)",
                        labels.get(i),
                        x.map(String::as_str).unwrap_or(""),
                        y.map(String::as_str).unwrap_or("")
                    ));
                }
            }
            if !conflicts.is_empty() {
                return Err(RequestError::new(
                    "",
                    format!(
                        "the `{name}` column differs between the files on {} row(s): {}; expected the \
                         same `{name}` on a paired row",
                        conflicts.len(),
                        list(&conflicts, conflicts.len())
                    ),
                ));
            }
            Ok(Some(a.clone()))
        }
        (Some(a), None) => Ok(Some(a.clone())),
        (None, Some(b)) => Ok(Some(
            control_index
                .iter()
                .map(|&j| b.get(j).cloned().unwrap_or_default())
                .collect(),
        )),
        (None, None) => Ok(None),
    }
}
