//! The schema of `rules/*.toml`: the one definition of every table and field, used both by core/build.rs
//! (which reads it with `#[path]`: TOML text in, postcard bytes out into `$OUT_DIR`) and at run time by
//! `rulebook()` (postcard bytes in). A new field goes here only. It depends on serde, chrono and std
//! alone so that build.rs can compile it.
//!
//! postcard is not self-describing: fields are read in declaration order, so the schema types use no
//! `skip_serializing_if`, `untagged` or `flatten`. `#[serde(default)]` only matters for TOML (build.rs
//! writes every field).

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

/// How much a finding matters. Exit code 1 of the CLI means "at least one `Error`".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `as_of` dates: `"2026-11-05"` strings in human-readable formats (TOML, the CLI's JSON), days since
/// 0001-01-01 (CE day 1) in postcard, so that reading the embedded rules needs no date-string parser
/// (chrono's format-string engine is about 10 KB gzipped of the page).
pub mod date {
    use chrono::{Datelike, NaiveDate};
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(date: &NaiveDate, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            date.serialize(serializer)
        } else {
            date.num_days_from_ce().serialize(serializer)
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<NaiveDate, D::Error> {
        if deserializer.is_human_readable() {
            NaiveDate::deserialize(deserializer)
        } else {
            let days = i32::deserialize(deserializer)?;
            NaiveDate::from_num_days_from_ce_opt(days)
                .ok_or_else(|| D::Error::custom(format!("day {days} is out of range")))
        }
    }
}

/// One rules file. Every table is optional so each file holds one area.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RulesFile {
    #[serde(default)]
    pub platform: Vec<Platform>,
    #[serde(default)]
    pub capability: Vec<Capability>,
    #[serde(default)]
    pub cell: Vec<Cell>,
    #[serde(default)]
    pub shape: Vec<Shape>,
    #[serde(default)]
    pub domain: Vec<Domain>,
    #[serde(default)]
    pub template: Vec<Template>,
    #[serde(default)]
    pub worth_gpu: Vec<WorthGpu>,
    #[serde(default)]
    pub rule: Vec<RuleDoc>,
    #[serde(default)]
    pub threshold: Vec<Threshold>,
    #[serde(default)]
    pub fact: Vec<Fact>,
    #[serde(default)]
    pub allowed: Vec<Allowed>,
}

/// How AMP resolves on a platform (spec §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AmpMode {
    /// fp16 autocast + GradScaler (T4, P100: no bf16).
    Fp16Gradscaler,
    /// bf16 autocast (TPU, Ampere+).
    Bf16,
    /// bf16 on Ampere+ GPUs, else fp16 + GradScaler (local machines of unknown GPU).
    Bf16IfAmpere,
    /// No AMP (CPU kernel).
    None,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Platform {
    pub id: String,
    /// The CLI identifier (`t4x2`).
    pub key: String,
    pub name: String,
    pub kaggle: bool,
    #[serde(default)]
    pub machine_shape: Option<String>,
    pub gpus: u32,
    /// CPU cores of the session, when the platform fixes them (Kaggle sessions).
    #[serde(default)]
    pub cpu_cores: Option<u32>,
    pub amp: AmpMode,
    pub notes: Vec<String>,
    pub source: String,
    #[serde(with = "date")]
    pub as_of: NaiveDate,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Capability {
    pub id: String,
    pub key: String,
    pub name: String,
    pub source: String,
    #[serde(with = "date")]
    pub as_of: NaiveDate,
}

/// A matrix cell's support value (cli.md identifiers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
pub enum Support {
    #[serde(rename = "yes")]
    Yes,
    #[serde(rename = "no")]
    No,
    /// Yes under the cell's condition.
    #[serde(rename = "partial")]
    Partial,
    /// Not applicable: different from `no`.
    #[serde(rename = "n/a")]
    NotApplicable,
}

impl Support {
    pub fn as_str(self) -> &'static str {
        match self {
            Support::Yes => "yes",
            Support::No => "no",
            Support::Partial => "partial",
            Support::NotApplicable => "n/a",
        }
    }
    /// Usable on the platform (possibly under the cell's condition).
    pub fn usable(self) -> bool {
        matches!(self, Support::Yes | Support::Partial)
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Cell {
    pub id: String,
    pub capability: String,
    pub platform: String,
    pub support: Support,
    pub note: String,
    pub source: String,
    #[serde(with = "date")]
    pub as_of: NaiveDate,
}

/// What Kaggle does with a `machine_shape` value (spec §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ShapeStatus {
    Available,
    ImageIncompatible,
    CapacityLimited,
    Alias,
    Retired,
    Refused,
    Gated,
}

impl ShapeStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ShapeStatus::Available => "available",
            ShapeStatus::ImageIncompatible => "image-incompatible",
            ShapeStatus::CapacityLimited => "capacity-limited",
            ShapeStatus::Alias => "alias",
            ShapeStatus::Retired => "retired",
            ShapeStatus::Refused => "refused",
            ShapeStatus::Gated => "gated",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AcceleratorKind {
    Gpu,
    Tpu,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Shape {
    pub id: String,
    /// The `machine_shape` value as Kaggle spells it.
    pub name: String,
    pub accelerator: AcceleratorKind,
    pub status: ShapeStatus,
    #[serde(default)]
    pub platform: Option<String>,
    /// What Kaggle stores instead (aliases, retired shapes, the substituted P100).
    #[serde(default)]
    pub stored_as: Option<String>,
    /// The shape a GPU push without `machine_shape` is given (kaggle-cli #821): exactly one GPU shape.
    #[serde(default)]
    pub bare_gpu_default: bool,
    pub what: String,
    pub source: String,
    #[serde(with = "date")]
    pub as_of: NaiveDate,
}

/// One default of a domain, with the conditions under which it applies.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DefaultItem {
    pub text: String,
    /// Resolved to the platform's AMP mode.
    #[serde(default)]
    pub amp: bool,
    /// `num_workers` computed from the platform's cores.
    #[serde(default)]
    pub workers: bool,
    /// A capability whose matrix cell must be usable.
    #[serde(default)]
    pub requires: Option<String>,
    /// Needs at least two GPUs.
    #[serde(default)]
    pub multi_gpu: bool,
    /// Needs a GPU.
    #[serde(default)]
    pub gpu: bool,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Domain {
    pub id: String,
    pub key: String,
    pub name: String,
    /// Training code (AMP with GradScaler) rather than inference only (half precision, no scaler).
    pub training: bool,
    /// The domain's defaults are PyTorch code (matters on the P100).
    pub pytorch: bool,
    pub templates: Vec<String>,
    pub always: Vec<DefaultItem>,
    pub when_measured: Vec<DefaultItem>,
    pub source: String,
    #[serde(with = "date")]
    pub as_of: NaiveDate,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Template {
    pub id: String,
    pub key: String,
    pub file: String,
    pub on_by_default: Vec<String>,
    pub opt_in: Vec<String>,
    pub why_not_default: String,
    pub source: String,
    #[serde(with = "date")]
    pub as_of: NaiveDate,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WorthGpu {
    pub id: String,
    pub task: String,
    pub name: String,
    pub cpu_below_rows: u64,
    pub gpu_from_rows: u64,
    #[serde(default)]
    pub gpu_from_refits: Option<u64>,
    pub cpu_reason: String,
    pub gpu_reason: String,
    #[serde(default)]
    pub refits_reason: Option<String>,
    pub between_reason: String,
    pub advice: Vec<String>,
    /// Which of the numbers are kgadvise's choice where the seed only gave words.
    pub kgadvise_thresholds: Vec<String>,
    pub source: String,
    #[serde(with = "date")]
    pub as_of: NaiveDate,
}

/// The documentation of a finding rule, in fixed sections (What it checks / Why it matters / Example /
/// Fix / Thresholds / Source). It is the single source of `kgadvise explain`, docs/rules.md and the
/// web page's help.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RuleDoc {
    pub id: String,
    pub title: String,
    pub severity: Severity,
    pub what: String,
    pub why: String,
    pub example: String,
    pub fix: String,
    /// IDs of the thresholds/facts/entries the rule uses.
    pub thresholds: Vec<String>,
    pub source: String,
    #[serde(with = "date")]
    pub as_of: NaiveDate,
}

/// A named number a rule compares against. `kgadvise = true` marks our own choice where the sources gave
/// only words ("close to", "well below"); every threshold can be overridden (`--set`).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Threshold {
    pub id: String,
    pub value: f64,
    pub unit: String,
    pub what: String,
    pub kgadvise: bool,
    pub source: String,
    #[serde(with = "date")]
    pub as_of: NaiveDate,
}

/// A dated Kaggle fact that changes (quota hours, session limits, concurrency).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Fact {
    pub id: String,
    pub value: f64,
    pub unit: String,
    pub what: String,
    pub source: String,
    #[serde(with = "date")]
    pub as_of: NaiveDate,
}

/// The values Kaggle accepts for one kernel-metadata.json field (KM004).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Allowed {
    pub id: String,
    /// The kernel-metadata.json field.
    pub field: String,
    pub values: Vec<String>,
    pub what: String,
    pub source: String,
    #[serde(with = "date")]
    pub as_of: NaiveDate,
}
