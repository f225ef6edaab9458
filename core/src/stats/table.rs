//! Reading the CSV inputs of the statistics advisors from text (the surfaces read the files).
//!
//! Prediction files: a header with `y_true` and `y_pred`, optional `id`, `fold`, `group`; column names are
//! matched without regard to case or surrounding spaces. Every value of `y_true`/`y_pred` must be a finite
//! number: a cell that is not is reported with its line and column, because dropping one row of one model
//! would silently unpair the comparison.
//!
//! Each reader takes the request field its text came from (`idea`, `folds`, `backlog`), and its errors
//! name that field and, where the problem is on one line, the line (1-based, the header is line 1).

use std::collections::HashMap;

use crate::request::RequestError;

/// One model's out-of-fold predictions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Predictions {
    pub y_true: Vec<f64>,
    pub y_pred: Vec<f64>,
    pub id: Option<Vec<String>>,
    pub fold: Option<Vec<String>>,
    pub group: Option<Vec<String>>,
    /// The 1-based line of each row, for messages.
    pub line: Vec<u64>,
}

impl Predictions {
    pub fn len(&self) -> usize {
        self.y_true.len()
    }
    pub fn is_empty(&self) -> bool {
        self.y_true.is_empty()
    }
}

/// A CSV reader over text: header on, flexible row lengths (checked by us), the header's names trimmed.
/// Cells are trimmed where they are read ([`cell_text`], [`parse_number`]): trimming every field of every
/// record was a measurable share of reading a million rows.
fn reader(text: &str) -> csv::Reader<&[u8]> {
    csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .trim(csv::Trim::Headers)
        .from_reader(text.trim_start_matches('\u{feff}').as_bytes())
}

/// The header's columns, lower-cased, with the index of each.
fn header_index(
    rdr: &mut csv::Reader<&[u8]>,
    field: &str,
) -> Result<HashMap<String, usize>, RequestError> {
    let headers = rdr.byte_headers().map_err(|e| {
        RequestError::at_line(
            field,
            1,
            format!("cannot read the CSV header: {e}; expected a header line of column names"),
        )
    })?;
    let mut index = HashMap::new();
    for (i, h) in headers.iter().enumerate() {
        let h = String::from_utf8_lossy(h).trim().to_ascii_lowercase();
        index.entry(h).or_insert(i);
    }
    Ok(index)
}

fn found_columns(index: &HashMap<String, usize>) -> String {
    let mut cols: Vec<(&usize, &String)> = index.iter().map(|(k, v)| (v, k)).collect();
    crate::text::sort::sort(&mut cols);
    let names: Vec<&str> = cols
        .iter()
        .map(|(_, k)| k.as_str())
        .filter(|k| !k.is_empty())
        .collect();
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// A CSV that cannot be read on (a quote never closed, bad bytes): the line where it stopped.
fn unreadable(field: &str, e: &csv::Error) -> RequestError {
    let message = format!("cannot read the CSV: {e}; expected comma-separated rows");
    match e.position() {
        Some(p) => RequestError::at_line(field, p.line() as usize, message),
        None => RequestError::new(field, message),
    }
}

/// A cell's text, trimmed.
fn cell_text(cell: &[u8]) -> String {
    String::from_utf8_lossy(cell.trim_ascii()).into_owned()
}

/// A finite number, or None. Accepts what Python/pandas write (`1e-3`, `nan` is rejected as not finite).
pub fn parse_number(cell: &[u8]) -> Option<f64> {
    let s = std::str::from_utf8(cell).ok()?.trim();
    let v = crate::text::decimal::parse_f64(s)?;
    v.is_finite().then_some(v)
}

/// The one row loop of every reader here: each data row after the header with its 1-based line, blank
/// rows skipped; a row the CSV reader cannot read is an error naming `field`. `row` stops the loop with
/// its error.
fn each_row(
    rdr: &mut csv::Reader<&[u8]>,
    field: &str,
    mut row: impl FnMut(&csv::ByteRecord, u64) -> Result<(), RequestError>,
) -> Result<(), RequestError> {
    let mut record = csv::ByteRecord::new();
    loop {
        match rdr.read_byte_record(&mut record) {
            Ok(false) => return Ok(()),
            Ok(true) => {}
            Err(e) => return Err(unreadable(field, &e)),
        }
        if record.iter().all(|c| c.trim_ascii().is_empty()) {
            continue;
        }
        row(&record, record.position().map(|p| p.line()).unwrap_or(0))?;
    }
}

/// The cells of `y_true`/`y_pred` that are not numbers: the first few (`shown`) and how many in all.
fn bad_cells(field: &str, shown: &[String], count: usize) -> RequestError {
    let more = if count > shown.len() {
        format!(" (and {} more)", count - shown.len())
    } else {
        String::new()
    };
    RequestError::new(
        field,
        format!(
            "{}{more}; expected a number in every y_true and y_pred cell",
            shown.join("; ")
        ),
    )
}

/// Reads a prediction CSV, the text of the request field `field` (`idea`, `control`).
pub fn read_predictions(text: &str, field: &str) -> Result<Predictions, RequestError> {
    let mut rdr = reader(text);
    let index = header_index(&mut rdr, field)?;
    let (Some(&yt), Some(&yp)) = (index.get("y_true"), index.get("y_pred")) else {
        return Err(RequestError::at_line(
            field,
            1,
            format!(
                "expected a CSV header with columns `y_true` and `y_pred` (optional `id`, `fold`, `group`); \
                 found: {}",
                found_columns(&index)
            ),
        ));
    };
    let id_col = index.get("id").copied();
    let fold_col = index.get("fold").copied();
    let group_col = index.get("group").copied();
    // sized once from the line count: growing a million-row column copies it about 20 times
    let rows = memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1;
    let column = |present: Option<usize>| present.map(|_| Vec::with_capacity(rows));
    let mut p = Predictions {
        y_true: Vec::with_capacity(rows),
        y_pred: Vec::with_capacity(rows),
        id: column(id_col),
        fold: column(fold_col),
        group: column(group_col),
        line: Vec::with_capacity(rows),
    };
    let mut bad: Vec<String> = Vec::new();
    let mut bad_count = 0usize;
    each_row(&mut rdr, field, |record, line| {
        let mut num = |col: usize, label: &str| -> f64 {
            match record.get(col).and_then(parse_number) {
                Some(v) => v,
                None => {
                    bad_count += 1;
                    if bad.len() < 5 {
                        let cell = record.get(col).map(cell_text);
                        bad.push(match cell {
                            Some(c) => format!(
                                "line {line}, column `{label}`: `{c}` is not a finite number"
                            ),
                            None => {
                                format!("line {line}: no `{label}` value (the row is too short)")
                            }
                        });
                    }
                    f64::NAN
                }
            }
        };
        let t = num(yt, "y_true");
        let v = num(yp, "y_pred");
        p.y_true.push(t);
        p.y_pred.push(v);
        let text_of = |col: usize| record.get(col).map(cell_text).unwrap_or_default();
        if let (Some(c), Some(ids)) = (id_col, p.id.as_mut()) {
            ids.push(text_of(c));
        }
        if let (Some(c), Some(folds)) = (fold_col, p.fold.as_mut()) {
            folds.push(text_of(c));
        }
        if let (Some(c), Some(groups)) = (group_col, p.group.as_mut()) {
            groups.push(text_of(c));
        }
        p.line.push(line);
        Ok(())
    })?;
    if bad_count > 0 {
        return Err(bad_cells(field, &bad, bad_count));
    }
    if p.is_empty() {
        return Err(RequestError::new(
            field,
            "no data rows after the header (expected y_true,y_pred rows)",
        ));
    }
    Ok(p)
}

/// Reads a list of scores: a CSV whose header has a `score` column (other columns such as `fold` are
/// ignored), or one number per line without a header. Blank lines and `#` comments are skipped.
pub fn read_scores(text: &str, field: &str) -> Result<Vec<f64>, RequestError> {
    let lines: Vec<(usize, &str)> = text
        .trim_start_matches('\u{feff}')
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let Some(&(_, first)) = lines.first() else {
        return Err(RequestError::new(
            field,
            "empty; expected fold scores (a `score` column or one number a line)",
        ));
    };
    if parse_number(first.as_bytes()).is_some() {
        let mut out = Vec::new();
        for (line, l) in &lines {
            match parse_number(l.as_bytes()) {
                Some(v) => out.push(v),
                None => {
                    return Err(RequestError::at_line(
                        field,
                        *line,
                        format!("`{l}` is not a number; expected one fold score a line"),
                    ));
                }
            }
        }
        return Ok(out);
    }
    let mut rdr = reader(text);
    let index = header_index(&mut rdr, field)?;
    let Some(&col) = index.get("score") else {
        return Err(RequestError::at_line(
            field,
            1,
            format!(
                "expected a `score` column (e.g. `fold,score`) or one number a line; found: {}",
                found_columns(&index)
            ),
        ));
    };
    let mut out = Vec::new();
    each_row(&mut rdr, field, |record, line| {
        match record.get(col).and_then(parse_number) {
            Some(v) => out.push(v),
            None => {
                let cell = record.get(col).map(cell_text).unwrap_or_default();
                return Err(RequestError::at_line(
                    field,
                    line as usize,
                    format!(
                        "column `score`: `{cell}` is not a finite number; expected a fold score"
                    ),
                ));
            }
        }
        Ok(())
    })?;
    Ok(out)
}

#[cfg(feature = "npy")] // kgkit's artifacts only: the page is built without them
/// The truth of a training table (`--truth train.csv:target`) for kgkit's artifacts, whose
/// `fold<k>_idx.npy` hold row positions in it (0 = the first data row).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Truth {
    /// Each data row's truth; NaN where the cell is empty.
    pub values: Vec<f64>,
    /// Text labels encoded as sorted-class codes (kgkit's `_truth`: the training templates' encoding):
    /// the class names, code = position. None when every cell is a number.
    pub classes: Option<Vec<String>>,
    /// Each data row's group (`groups` column), when asked for.
    pub groups: Option<Vec<String>>,
    /// Each data row's 1-based line, for messages.
    pub line: Vec<u64>,
}

#[cfg(feature = "npy")]
/// The column index of `name` in a header, or an error on `field` listing the columns found.
fn column_of(
    index: &HashMap<String, usize>,
    name: &str,
    field: &str,
    what: &str,
) -> Result<usize, RequestError> {
    index
        .get(&name.trim().to_ascii_lowercase())
        .copied()
        .ok_or_else(|| {
            RequestError::new(
                field,
                format!(
                    "no column `{}` in the truth table; expected {what}; found: {}",
                    name.trim(),
                    found_columns(index)
                ),
            )
        })
}

#[cfg(feature = "npy")]
/// Reads the truth column `column` (and the group column `groups`) of a training table's CSV text, the
/// request field `truth`. Numbers are kept as numbers; a column with any other text is encoded as
/// sorted-class codes, as kgkit encodes string and boolean labels. Errors name `truth`, `truthColumn`
/// or `groups`.
pub fn read_truth(text: &str, column: &str, groups: Option<&str>) -> Result<Truth, RequestError> {
    let mut rdr = reader(text);
    let index = header_index(&mut rdr, "truth")?;
    let col = column_of(
        &index,
        column,
        "truthColumn",
        "the truth column (FILE:COLUMN)",
    )?;
    let group_col = match groups {
        Some(g) => Some(column_of(
            &index,
            g,
            "groups",
            "a column of groups (patients, sessions)",
        )?),
        None => None,
    };
    let mut truth = Truth {
        groups: group_col.map(|_| Vec::new()),
        ..Truth::default()
    };
    let mut cells: Vec<String> = Vec::new();
    let mut text_labels = false;
    each_row(&mut rdr, "truth", |record, line| {
        truth.line.push(line);
        let cell = record.get(col).unwrap_or_default();
        let value = if cell.iter().all(u8::is_ascii_whitespace) {
            f64::NAN
        } else {
            match parse_number(cell) {
                Some(v) => v,
                None => {
                    text_labels = true;
                    f64::NAN
                }
            }
        };
        truth.values.push(value);
        cells.push(String::from_utf8_lossy(cell).trim().to_string());
        if let (Some(c), Some(gs)) = (group_col, truth.groups.as_mut()) {
            gs.push(
                record
                    .get(c)
                    .map(|g| String::from_utf8_lossy(g).trim().to_string())
                    .unwrap_or_default(),
            );
        }
        Ok(())
    })?;
    if truth.values.is_empty() {
        return Err(RequestError::new(
            "truth",
            "no data rows after the header; expected the training table the artifacts' rows point into",
        ));
    }
    if text_labels {
        let mut classes: Vec<String> = cells.iter().filter(|c| !c.is_empty()).cloned().collect();
        crate::text::sort::sort(&mut classes);
        classes.dedup();
        truth.values = cells
            .iter()
            .map(|c| match classes.binary_search(c) {
                Ok(code) if !c.is_empty() => code as f64,
                _ => f64::NAN,
            })
            .collect();
        truth.classes = Some(classes);
    }
    Ok(truth)
}

/// One row of a fidelity CSV (`idea`, `screen_gain`, `full_gain`).
#[derive(Debug, Clone, PartialEq)]
pub struct IdeaRow {
    pub idea: String,
    pub screen_gain: f64,
    pub full_gain: f64,
}

/// Reads a fidelity CSV. Rows whose gains are blank (an idea not run in full yet) or not numbers are kept
/// out and listed in the second value, with their line.
pub fn read_ideas(text: &str, field: &str) -> Result<(Vec<IdeaRow>, Vec<String>), RequestError> {
    let mut rdr = reader(text);
    let index = header_index(&mut rdr, field)?;
    let (Some(&ic), Some(&sc), Some(&fc)) = (
        index.get("idea"),
        index.get("screen_gain"),
        index.get("full_gain"),
    ) else {
        return Err(RequestError::at_line(
            field,
            1,
            format!(
                "expected a CSV header with columns `idea`, `screen_gain`, `full_gain`; found: {}",
                found_columns(&index)
            ),
        ));
    };
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    each_row(&mut rdr, field, |record, line| {
        let text_of = |col: usize| record.get(col).map(cell_text).unwrap_or_default();
        let idea = text_of(ic);
        let label = if idea.is_empty() {
            format!("line {line}")
        } else {
            format!("line {line} (`{idea}`)")
        };
        let mut problems = Vec::new();
        let mut get = |col: usize, col_name: &str| -> Option<f64> {
            let cell = text_of(col);
            if cell.is_empty() {
                problems.push(format!("no `{col_name}` yet"));
                return None;
            }
            let v = parse_number(cell.as_bytes());
            if v.is_none() {
                problems.push(format!("`{col_name}` `{cell}` is not a finite number"));
            }
            v
        };
        let s = get(sc, "screen_gain");
        let f = get(fc, "full_gain");
        match (s, f) {
            (Some(screen_gain), Some(full_gain)) => rows.push(IdeaRow {
                idea,
                screen_gain,
                full_gain,
            }),
            _ => skipped.push(format!("{label}: {}", problems.join(", "))),
        }
        Ok(())
    })?;
    Ok((rows, skipped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_predictions_with_optional_columns() {
        let p =
            read_predictions("ID, y_true ,y_pred,fold\na,1,0.9,0\nb,0,0.2,1\n\n", "x.csv").unwrap();
        assert_eq!(p.y_true, vec![1.0, 0.0]);
        assert_eq!(p.y_pred, vec![0.9, 0.2]);
        assert_eq!(p.id, Some(vec!["a".to_string(), "b".to_string()]));
        assert_eq!(p.fold, Some(vec!["0".to_string(), "1".to_string()]));
        assert_eq!(p.group, None);
        assert_eq!(p.line, vec![2, 3]);
    }

    #[test]
    fn missing_columns_and_bad_cells_name_the_input() {
        let e = read_predictions("target,pred\n1,2\n", "idea").unwrap_err();
        assert_eq!((e.field.as_str(), e.line), ("idea", Some(1)), "{e}");
        assert!(e.message.contains("found: target, pred"), "{e}");
        let e = read_predictions("y_true,y_pred\n1,0.5\n0,abc\n1\n", "idea").unwrap_err();
        assert!(e.message.contains("line 3, column `y_pred`: `abc`"), "{e}");
        assert!(e.message.contains("line 4: no `y_pred` value"), "{e}");
        let e = read_predictions("y_true,y_pred\n", "idea").unwrap_err();
        assert!(e.message.contains("no data rows"), "{e}");
        let e = read_predictions("y_true,y_pred\n1,nan\n", "control").unwrap_err();
        assert_eq!(e.field, "control");
        assert!(e.message.contains("not a finite number"), "{e}");
    }

    #[test]
    fn scores_as_csv_or_lines() {
        assert_eq!(
            read_scores("fold,score\n0,0.8\n1,0.82\n", "f").unwrap(),
            vec![0.8, 0.82]
        );
        assert_eq!(
            read_scores("# cv\n0.8\n\n0.82\n", "f").unwrap(),
            vec![0.8, 0.82]
        );
        assert!(
            read_scores("fold,auc\n0,1\n", "f")
                .unwrap_err()
                .message
                .contains("`score` column")
        );
        assert_eq!(read_scores("0.8\nx\n", "f").unwrap_err().line, Some(2));
        assert!(read_scores("", "f").is_err());
    }

    #[cfg(feature = "npy")]
    #[test]
    fn truth_columns_as_numbers_or_sorted_classes() {
        let t = read_truth(
            "id,Target,patient\n7,1,a\n8,0,b\n9,,a\n",
            "target",
            Some("PATIENT"),
        )
        .unwrap();
        assert_eq!(t.values[..2], [1.0, 0.0]);
        assert!(t.values[2].is_nan());
        assert_eq!(t.classes, None);
        assert_eq!(t.groups, Some(vec!["a".into(), "b".into(), "a".into()]));
        assert_eq!(t.line, vec![2, 3, 4]);
        // text labels: sorted-class codes, as kgkit encodes them
        let t = read_truth("y\nyes\nno\nyes\n", "y", None).unwrap();
        assert_eq!(t.values, vec![1.0, 0.0, 1.0]);
        assert_eq!(t.classes, Some(vec!["no".into(), "yes".into()]));
        let e = read_truth("a,b\n1,2\n", "target", None).unwrap_err();
        assert_eq!(e.field, "truthColumn");
        assert!(e.message.contains("found: a, b"), "{e}");
        let e = read_truth("y\n1\n", "y", Some("patient")).unwrap_err();
        assert_eq!(e.field, "groups");
        assert_eq!(read_truth("y\n", "y", None).unwrap_err().field, "truth");
    }

    #[test]
    fn ideas_skip_blank_gains_with_their_line() {
        let (rows, skipped) = read_ideas(
            "idea,screen_gain,full_gain\na,0.1,0.2\nb,0.3,\nc,x,0.1\n",
            "b.csv",
        )
        .unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(skipped.len(), 2);
        assert!(
            skipped[0].contains("line 3 (`b`): no `full_gain` yet"),
            "{skipped:?}"
        );
        assert!(
            skipped[1].contains("line 4 (`c`)") && skipped[1].contains("`x`"),
            "{skipped:?}"
        );
    }
}
