//! Platforms, capabilities and the hardware matrix (spec §1-2): one cell with its condition, or the table.

pub mod domains;
pub mod inference;
pub mod text;
pub mod worth;

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use crate::request::{Overrides, RequestError, now_of};
use crate::rulebook::finding::Finding;
use crate::rulebook::report::{Findings, Report};
use crate::rulebook::{Capability, Cell, Platform, Shape, Support, rulebook};

pub const MATRIX_SCHEMA: &str = "kgadvise.matrix/1";

/// `kgadvise matrix`: one cell when both `platform` and `capability` are given, otherwise the table
/// (filtered by the one given) with the status of the Kaggle machine shapes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct MatrixRequest {
    /// Platform identifier: t4x2, p100, tpu-v5e-8, cpu, windows or linux (default: every platform).
    #[cfg_attr(feature = "cli", arg(long, short))]
    pub platform: Option<String>,
    /// Capability identifier: fp16-amp, bf16, torch-compile, ... (default: every capability).
    #[cfg_attr(feature = "cli", arg(long, short))]
    pub capability: Option<String>,
    /// The time of the answer, for the age of the matrix entries (RFC 3339 or a date; default: the
    /// caller's clock).
    #[cfg_attr(feature = "schema", schemars(extend("x-time" = true)))]
    #[cfg_attr(feature = "cli", arg(skip))]
    pub now: Option<String>,
    /// Threshold overrides.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub set: Overrides,
}

/// One matrix cell as answered: `support` is `yes|no|partial|n/a`, `note` the seed's condition.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CellAnswer {
    pub platform: String,
    pub platform_name: String,
    pub capability: String,
    pub capability_name: String,
    pub support: Support,
    pub note: String,
    pub rule: String,
    pub source: String,
    pub as_of: NaiveDate,
}

/// A Kaggle machine shape and its status.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ShapeAnswer {
    pub machine_shape: String,
    pub accelerator: crate::rulebook::AcceleratorKind,
    pub status: crate::rulebook::ShapeStatus,
    pub platform: Option<String>,
    pub stored_as: Option<String>,
    pub what: String,
    pub rule: String,
    pub as_of: NaiveDate,
}

/// `kgadvise matrix`: one cell (both filters), or a filtered/whole table with the shapes' status.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum MatrixReport {
    Cell {
        schema: &'static str,
        #[serde(flatten)]
        cell: CellAnswer,
        rules: Vec<String>,
        findings: Vec<Finding>,
    },
    Table {
        schema: &'static str,
        platform: Option<String>,
        capability: Option<String>,
        cells: Vec<CellAnswer>,
        shapes: Vec<ShapeAnswer>,
        /// The platform's notes (what runs there natively, its quirks) when one platform is asked for.
        notes: Vec<String>,
        rules: Vec<String>,
        findings: Vec<Finding>,
    },
}

impl Report for MatrixReport {
    fn findings(&self) -> &[Finding] {
        match self {
            MatrixReport::Cell { findings, .. } | MatrixReport::Table { findings, .. } => findings,
        }
    }

    fn text(&self) -> String {
        text::matrix(self)
    }
}

/// A note of the rules shown beside an answer: advice a seed gives in words, with its source.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct NoteAnswer {
    pub id: String,
    pub title: String,
    pub text: String,
    pub source: String,
    pub as_of: NaiveDate,
}

/// The notes shown in the answers of an entry (a domain, a worth-gpu task), each recorded as used with
/// the facts it states (so an outdated one says so).
pub(crate) fn notes_of(entry: &str, out: &mut Findings) -> Vec<NoteAnswer> {
    rulebook()
        .notes_for(entry)
        .map(|n| {
            out.uses_entry(&n.id);
            for fact in n.facts.iter() {
                out.uses_entry(fact);
            }
            NoteAnswer {
                id: n.id.to_string(),
                title: n.title.to_string(),
                text: n.text.to_string(),
                source: n.source.to_string(),
                as_of: n.as_of.date(),
            }
        })
        .collect()
}

/// An identifier the rules do not know, with the valid values for the message (the metric of the
/// statistics advisors; the hardware advisors answer a [`RequestError`] naming the field).
#[derive(Debug, Clone, PartialEq)]
pub struct UnknownId {
    pub what: &'static str,
    pub given: String,
    pub valid: Vec<String>,
}

impl std::fmt::Display for UnknownId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unknown {} `{}`; valid values: {}",
            self.what,
            self.given,
            self.valid.join(", ")
        )
    }
}

impl std::error::Error for UnknownId {}

/// A key of the rules that names nothing: the request field, and the valid values in the message.
pub(crate) fn unknown_key(field: &str, what: &str, given: &str, valid: &[&str]) -> RequestError {
    RequestError::new(
        field,
        format!(
            "unknown {what} `{given}`; valid values: {}",
            valid.join(", ")
        ),
    )
}

/// The platform of a request's `platform` key.
pub fn check_platform(key: &str) -> Result<&'static Platform, RequestError> {
    let book = rulebook();
    book.platform(key)
        .ok_or_else(|| unknown_key("platform", "platform", key, &book.platform_keys()))
}

/// The capability of a request's `capability` key.
pub fn check_capability(key: &str) -> Result<&'static Capability, RequestError> {
    let book = rulebook();
    book.capability(key)
        .ok_or_else(|| unknown_key("capability", "capability", key, &book.capability_keys()))
}

fn answer(cell: &Cell) -> CellAnswer {
    let book = rulebook();
    CellAnswer {
        platform: cell.platform.to_string(),
        platform_name: book
            .platform(&cell.platform)
            .map(|p| p.name.to_string())
            .unwrap_or_default(),
        capability: cell.capability.to_string(),
        capability_name: book
            .capability(&cell.capability)
            .map(|c| c.name.to_string())
            .unwrap_or_default(),
        support: cell.support,
        note: cell.note.to_string(),
        rule: cell.id.to_string(),
        source: cell.source.to_string(),
        as_of: cell.as_of.date(),
    }
}

pub fn shape_answer(shape: &Shape) -> ShapeAnswer {
    ShapeAnswer {
        machine_shape: shape.name.to_string(),
        accelerator: shape.accelerator,
        status: shape.status,
        platform: shape.platform.as_deref().map(str::to_string),
        stored_as: shape.stored_as.as_deref().map(str::to_string),
        what: shape.what.to_string(),
        rule: shape.id.to_string(),
        as_of: shape.as_of.date(),
    }
}

/// One cell: "can I use `capability` on `platform`?"
pub fn cell(platform: &str, capability: &str) -> Result<CellAnswer, RequestError> {
    let platform = check_platform(platform)?;
    let capability = check_capability(capability)?;
    // Validation guarantees the matrix is complete; the fallback only keeps this panic-free.
    rulebook()
        .cell(&capability.key, &platform.key)
        .map(answer)
        .ok_or_else(|| {
            RequestError::new(
                "",
                format!(
                    "the matrix has no cell for {} on {}",
                    capability.key, platform.key
                ),
            )
        })
}

/// The validated request: what the matrix answer reads.
struct MatrixRun {
    platform: Option<&'static Platform>,
    capability: Option<&'static Capability>,
}

impl MatrixRun {
    fn of(request: &MatrixRequest) -> Result<MatrixRun, RequestError> {
        Ok(MatrixRun {
            platform: request
                .platform
                .as_deref()
                .map(check_platform)
                .transpose()?,
            capability: request
                .capability
                .as_deref()
                .map(check_capability)
                .transpose()?,
        })
    }

    /// The table's cells: capabilities as the seed lists them, platforms as the seed's columns.
    fn cells(&self) -> Vec<CellAnswer> {
        let book = rulebook();
        let mut cells = Vec::new();
        for cap in book.capabilities.iter() {
            if self.capability.is_some_and(|c| c.key != cap.key) {
                continue;
            }
            for plat in book.platforms.iter() {
                if self.platform.is_some_and(|p| p.key != plat.key) {
                    continue;
                }
                if let Some(c) = book.cell(&cap.key, &plat.key) {
                    cells.push(answer(c));
                }
            }
        }
        cells
    }

    /// The machine shapes of the platform, or all of them.
    fn shapes(&self) -> Vec<ShapeAnswer> {
        rulebook()
            .shapes
            .iter()
            .filter(|s| match self.platform {
                None => true,
                Some(p) => s.platform.as_deref() == Some(p.key.as_ref()),
            })
            .map(shape_answer)
            .collect()
    }
}

/// `kgadvise matrix`: one cell, or the (filtered) table. Errors name the request field.
pub fn matrix(request: &MatrixRequest, clock: DateTime<Utc>) -> Result<MatrixReport, RequestError> {
    let now = now_of(request.now.as_deref(), clock)?;
    let thresholds = request.set.thresholds()?;
    let run = MatrixRun::of(request)?;
    let mut out = Findings::new();
    if let (Some(p), Some(c)) = (run.platform, run.capability) {
        let cell = cell(&p.key, &c.key)?;
        out.uses_entry(&cell.rule);
        let closed = out.finish(now.date_naive(), &thresholds);
        return Ok(MatrixReport::Cell {
            schema: MATRIX_SCHEMA,
            cell,
            rules: closed.rules,
            findings: closed.findings,
        });
    }
    let (cells, shapes) = (run.cells(), run.shapes());
    for id in cells
        .iter()
        .map(|c| &c.rule)
        .chain(shapes.iter().map(|s| &s.rule))
    {
        out.uses_entry(id);
    }
    let closed = out.finish(now.date_naive(), &thresholds);
    Ok(MatrixReport::Table {
        schema: MATRIX_SCHEMA,
        platform: run.platform.map(|p| p.key.to_string()),
        capability: run.capability.map(|c| c.key.to_string()),
        cells,
        shapes,
        notes: run
            .platform
            .map(|p| p.notes.iter().map(|n| n.to_string()).collect())
            .unwrap_or_default(),
        rules: closed.rules,
        findings: closed.findings,
    })
}

/// A column of the grid: (platform key, platform name).
pub type Column = (String, String);
/// A row of the grid: (capability key, capability name, its cells).
pub type Row = (String, String, Vec<CellAnswer>);

/// The grid of a table report, as the seed draws it: capability rows (in the seed's order) by platform
/// columns.
pub fn grid(cells: &[CellAnswer]) -> (Vec<Column>, Vec<Row>) {
    let mut columns: Vec<Column> = Vec::new();
    let mut rows: Vec<Row> = Vec::new();
    for c in cells {
        if !columns.iter().any(|(k, _)| *k == c.platform) {
            columns.push((c.platform.clone(), c.platform_name.clone()));
        }
        match rows.iter_mut().find(|(k, _, _)| *k == c.capability) {
            Some((_, _, row)) => row.push(c.clone()),
            None => rows.push((
                c.capability.clone(),
                c.capability_name.clone(),
                vec![c.clone()],
            )),
        }
    }
    (columns, rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock() -> DateTime<Utc> {
        "2026-11-30T00:00:00Z".parse().unwrap()
    }

    fn request(platform: Option<&str>, capability: Option<&str>) -> MatrixRequest {
        MatrixRequest {
            platform: platform.map(String::from),
            capability: capability.map(String::from),
            ..MatrixRequest::default()
        }
    }

    #[test]
    fn bf16_on_t4x2_is_no_with_the_seeds_condition() {
        let c = cell("t4x2", "bf16").unwrap();
        assert_eq!(c.support, Support::No);
        assert!(
            c.note.contains("emulated") && c.note.contains("fp16"),
            "{}",
            c.note
        );
        assert_eq!(c.rule, "matrix.bf16.t4x2");
    }

    #[test]
    fn not_applicable_differs_from_no() {
        assert_eq!(cell("cpu", "bf16").unwrap().support, Support::NotApplicable);
        assert_eq!(cell("cpu", "rapids").unwrap().support, Support::No);
    }

    #[test]
    fn every_cell_is_answerable() {
        let book = rulebook();
        for p in book.platforms.iter() {
            for c in book.capabilities.iter() {
                let a = cell(&p.key, &c.key).unwrap();
                assert!(!a.note.is_empty(), "{} x {}", c.key, p.key);
            }
        }
    }

    #[test]
    fn unknown_keys_name_the_field_and_list_the_valid_ones() {
        let e = cell("t4", "bf16").unwrap_err();
        assert_eq!(e.field, "platform");
        assert!(
            e.message
                .contains("t4x2, p100, tpu-v5e-8, cpu, windows, linux"),
            "{e}"
        );
        let e = cell("t4x2", "fp8").unwrap_err();
        assert_eq!(e.field, "capability");
        assert!(e.message.contains("unknown capability `fp8`"), "{e}");
        let e = matrix(&request(None, Some("fp8")), clock()).unwrap_err();
        assert_eq!(e.field, "capability");
        let e = matrix(
            &MatrixRequest {
                now: Some("soon".into()),
                ..request(None, None)
            },
            clock(),
        )
        .unwrap_err();
        assert_eq!(e.field, "now");
    }

    #[test]
    fn filtered_tables() {
        match matrix(&request(Some("p100"), None), clock()).unwrap() {
            MatrixReport::Table { cells, shapes, .. } => {
                assert_eq!(cells.len(), 10);
                assert!(cells.iter().all(|c| c.platform == "p100"));
                assert_eq!(shapes.len(), 1);
            }
            other => panic!("{other:?}"),
        }
        match matrix(&request(None, Some("vllm")), clock()).unwrap() {
            MatrixReport::Table { cells, .. } => assert_eq!(cells.len(), 6),
            other => panic!("{other:?}"),
        }
        match matrix(&request(None, None), clock()).unwrap() {
            MatrixReport::Table {
                cells,
                shapes,
                findings,
                rules,
                ..
            } => {
                assert_eq!(cells.len(), 60);
                assert!(shapes.len() >= 15);
                assert_eq!(rules.len(), cells.len() + shapes.len());
                assert!(
                    findings.is_empty(),
                    "fresh facts on 2026-11-30: {findings:?}"
                );
                let (columns, rows) = grid(&cells);
                assert_eq!(columns.len(), 6);
                assert_eq!(rows.len(), 10);
                assert!(rows.iter().all(|(_, _, r)| r.len() == 6));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_old_matrix_says_so() {
        let r = matrix(
            &MatrixRequest {
                now: Some("2027-06-01".into()),
                ..request(Some("t4x2"), Some("bf16"))
            },
            clock(),
        )
        .unwrap();
        assert_eq!(r.findings().len(), 1);
        assert_eq!(r.findings()[0].rule, "KH004");
    }
}
