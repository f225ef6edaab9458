//! Platforms, capabilities and the hardware matrix (spec §1-2): one cell with its condition, or the table.

pub mod domains;
pub mod worth;

use chrono::NaiveDate;
use serde::Serialize;

use crate::rulebook::finding::Finding;
use crate::rulebook::report::{Report, stale_findings_for};
use crate::rulebook::{Cell, Shape, Support, Thresholds, rulebook};

pub const MATRIX_SCHEMA: &str = "kgadvise.matrix/1";

/// One matrix cell as answered: `support` is `yes|no|partial|n/a`, `note` the seed's condition.
#[derive(Debug, Clone, Serialize, PartialEq)]
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
}

/// An identifier the rules do not know, with the valid values for the message.
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

pub fn check_platform(key: &str) -> Result<&'static crate::rulebook::Platform, UnknownId> {
    let book = rulebook();
    book.platform(key).ok_or_else(|| UnknownId {
        what: "platform",
        given: key.to_string(),
        valid: book.platform_keys().into_iter().map(String::from).collect(),
    })
}

pub fn check_capability(key: &str) -> Result<&'static crate::rulebook::Capability, UnknownId> {
    let book = rulebook();
    book.capability(key).ok_or_else(|| UnknownId {
        what: "capability",
        given: key.to_string(),
        valid: book
            .capability_keys()
            .into_iter()
            .map(String::from)
            .collect(),
    })
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
pub fn cell(platform: &str, capability: &str) -> Result<CellAnswer, UnknownId> {
    check_platform(platform)?;
    check_capability(capability)?;
    // Validation guarantees the matrix is complete; the fallback only keeps this panic-free.
    rulebook()
        .cell(capability, platform)
        .map(answer)
        .ok_or_else(|| UnknownId {
            what: "matrix cell",
            given: format!("{capability} x {platform}"),
            valid: vec![],
        })
}

/// `kgadvise matrix [--platform P] [--capability C]`.
pub fn matrix(
    platform: Option<&str>,
    capability: Option<&str>,
    today: NaiveDate,
    thresholds: &Thresholds,
) -> Result<MatrixReport, UnknownId> {
    if let Some(p) = platform {
        check_platform(p)?;
    }
    if let Some(c) = capability {
        check_capability(c)?;
    }
    if let (Some(p), Some(c)) = (platform, capability) {
        let cell = cell(p, c)?;
        let rules = vec![cell.rule.clone()];
        let findings = stale_findings_for(&rules, today, thresholds);
        return Ok(MatrixReport::Cell {
            schema: MATRIX_SCHEMA,
            cell,
            rules,
            findings,
        });
    }
    let book = rulebook();
    // Table order: capabilities as the seed lists them, platforms as the seed's columns.
    let mut cells = Vec::new();
    for cap in book.capabilities.iter() {
        if capability.is_some_and(|c| c != cap.key) {
            continue;
        }
        for plat in book.platforms.iter() {
            if platform.is_some_and(|p| p != plat.key) {
                continue;
            }
            if let Some(c) = book.cell(&cap.key, &plat.key) {
                cells.push(answer(c));
            }
        }
    }
    let shapes: Vec<ShapeAnswer> = book
        .shapes
        .iter()
        .filter(|s| platform.is_none() || s.platform.as_deref() == platform)
        .map(shape_answer)
        .collect();
    let mut rules: Vec<String> = cells.iter().map(|c| c.rule.clone()).collect();
    rules.extend(shapes.iter().map(|s| s.rule.clone()));
    let findings = stale_findings_for(&rules, today, thresholds);
    Ok(MatrixReport::Table {
        schema: MATRIX_SCHEMA,
        platform: platform.map(String::from),
        capability: capability.map(String::from),
        cells,
        shapes,
        rules,
        findings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 30).unwrap()
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
    fn unknown_platform_lists_the_valid_ones() {
        let e = cell("t4", "bf16").unwrap_err();
        assert_eq!(e.what, "platform");
        assert!(
            e.to_string()
                .contains("t4x2, p100, tpu-v5e-8, cpu, windows, linux"),
            "{e}"
        );
        let e = cell("t4x2", "fp8").unwrap_err();
        assert!(e.to_string().contains("unknown capability `fp8`"), "{e}");
    }

    #[test]
    fn filtered_tables() {
        let t = Thresholds::defaults();
        match matrix(Some("p100"), None, today(), &t).unwrap() {
            MatrixReport::Table { cells, shapes, .. } => {
                assert_eq!(cells.len(), 10);
                assert!(cells.iter().all(|c| c.platform == "p100"));
                assert_eq!(shapes.len(), 1);
            }
            other => panic!("{other:?}"),
        }
        match matrix(None, Some("vllm"), today(), &t).unwrap() {
            MatrixReport::Table { cells, .. } => assert_eq!(cells.len(), 6),
            other => panic!("{other:?}"),
        }
        match matrix(None, None, today(), &t).unwrap() {
            MatrixReport::Table {
                cells,
                shapes,
                findings,
                ..
            } => {
                assert_eq!(cells.len(), 60);
                assert!(shapes.len() >= 15);
                assert!(
                    findings.is_empty(),
                    "fresh facts on 2026-11-30: {findings:?}"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_old_matrix_says_so() {
        let t = Thresholds::defaults();
        let later = NaiveDate::from_ymd_opt(2027, 6, 1).unwrap();
        let r = matrix(Some("t4x2"), Some("bf16"), later, &t).unwrap();
        assert_eq!(r.findings().len(), 1);
        assert_eq!(r.findings()[0].rule, "KH004");
    }
}
