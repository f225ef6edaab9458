//! The schema of `rules/*.toml` and of the whole rule book: the one definition of every table and
//! field. core/build.rs compiles this file too (`#[path]`): it reads the TOML text into these types
//! (`load.rs`), validates it and bakes the result into Rust source (databake), so the library gets the
//! rule book as a `static` in its data section and decodes nothing at run time. A new field goes here
//! only. It depends on serde, chrono and std alone (and databake, in build.rs's copy only).
//!
//! Text and lists are [`Text`] (`Cow<'static, str>`) and [`List`] (`Cow<'static, [T]>`): borrowed from
//! the baked static, owned when serde reads TOML at run time (feature `rules-toml`).
//!
//! The `Bake` derives are for build.rs alone: build.rs tells cargo to compile the library with
//! `--cfg kgadvise_lib` (a build script's `rustc-cfg` never applies to the build script itself), so
//! databake is a build-dependency only and no baking code is in the library.

use std::borrow::Cow;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

/// Text of the rule book: borrowed from the baked static, owned when read from TOML at run time.
pub type Text = Cow<'static, str>;
/// A list of the rule book: borrowed from the baked static, owned when read from TOML at run time.
pub type List<T> = Cow<'static, [T]>;

/// How much a finding matters. Exit code 1 of the CLI means "at least one `Error`".
#[cfg_attr(not(kgadvise_lib), derive(databake::Bake), databake(path = crate::rulebook))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(all(feature = "schema", kgadvise_lib), derive(schemars::JsonSchema))]
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

/// The day a data entry was last checked (`as_of`): a `"2026-11-05"` string in TOML and in JSON.
///
/// A newtype around chrono's `NaiveDate` so that build.rs can bake it (databake has no impl for chrono's
/// types and the orphan rule allows none there): it is baked as `AsOf::ymd(2026, 11, 5)`, a const fn,
/// so no date parser is in the wasm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[cfg_attr(all(feature = "schema", kgadvise_lib), derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct AsOf(NaiveDate);

impl AsOf {
    /// The day from year, month and day (what the baked rule book is written with). Only build.rs's
    /// checked dates reach it; an impossible one gives `NaiveDate::MIN` (`embedded_book_is_the_toml`
    /// would fail), never a panic.
    pub const fn ymd(year: i32, month: u32, day: u32) -> AsOf {
        match NaiveDate::from_ymd_opt(year, month, day) {
            Some(date) => AsOf(date),
            None => AsOf(NaiveDate::MIN),
        }
    }

    pub fn date(self) -> NaiveDate {
        self.0
    }
}

impl From<NaiveDate> for AsOf {
    fn from(date: NaiveDate) -> AsOf {
        AsOf(date)
    }
}

impl std::fmt::Display for AsOf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(not(kgadvise_lib))]
impl databake::Bake for AsOf {
    fn bake(&self, env: &databake::CrateEnv) -> databake::TokenStream {
        use chrono::Datelike;
        env.insert("crate");
        let (year, month, day) = (self.0.year(), self.0.month(), self.0.day());
        databake::quote! { crate::rulebook::AsOf::ymd(#year, #month, #day) }
    }
}

#[cfg(not(kgadvise_lib))]
impl databake::BakeSize for AsOf {
    fn borrows_size(&self) -> usize {
        0
    }
}

/// One rules file. Every table is optional so each file holds one area.
#[derive(Debug, Default, Deserialize)]
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
    #[serde(default)]
    pub note: Vec<Note>,
}

/// How AMP resolves on a platform (spec §3).
#[cfg_attr(not(kgadvise_lib), derive(databake::Bake), databake(path = crate::rulebook))]
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

#[cfg_attr(not(kgadvise_lib), derive(databake::Bake), databake(path = crate::rulebook))]
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Platform {
    pub id: Text,
    /// The CLI identifier (`t4x2`).
    pub key: Text,
    pub name: Text,
    pub kaggle: bool,
    #[serde(default)]
    pub machine_shape: Option<Text>,
    pub gpus: u32,
    /// CPU cores of the session, when the platform fixes them (Kaggle sessions).
    #[serde(default)]
    pub cpu_cores: Option<u32>,
    pub amp: AmpMode,
    pub notes: List<Text>,
    pub source: Text,
    pub as_of: AsOf,
}

#[cfg_attr(not(kgadvise_lib), derive(databake::Bake), databake(path = crate::rulebook))]
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Capability {
    pub id: Text,
    pub key: Text,
    pub name: Text,
    pub source: Text,
    pub as_of: AsOf,
}

/// A matrix cell's support value (cli.md identifiers).
#[cfg_attr(not(kgadvise_lib), derive(databake::Bake), databake(path = crate::rulebook))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[cfg_attr(all(feature = "schema", kgadvise_lib), derive(schemars::JsonSchema))]
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

#[cfg_attr(not(kgadvise_lib), derive(databake::Bake), databake(path = crate::rulebook))]
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Cell {
    pub id: Text,
    pub capability: Text,
    pub platform: Text,
    pub support: Support,
    pub note: Text,
    pub source: Text,
    pub as_of: AsOf,
}

/// What Kaggle does with a `machine_shape` value (spec §1).
#[cfg_attr(not(kgadvise_lib), derive(databake::Bake), databake(path = crate::rulebook))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(all(feature = "schema", kgadvise_lib), derive(schemars::JsonSchema))]
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

#[cfg_attr(not(kgadvise_lib), derive(databake::Bake), databake(path = crate::rulebook))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(all(feature = "schema", kgadvise_lib), derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum AcceleratorKind {
    Gpu,
    Tpu,
}

#[cfg_attr(not(kgadvise_lib), derive(databake::Bake), databake(path = crate::rulebook))]
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Shape {
    pub id: Text,
    /// The `machine_shape` value as Kaggle spells it.
    pub name: Text,
    pub accelerator: AcceleratorKind,
    pub status: ShapeStatus,
    #[serde(default)]
    pub platform: Option<Text>,
    /// What Kaggle stores instead (aliases, retired shapes, the substituted P100).
    #[serde(default)]
    pub stored_as: Option<Text>,
    /// The shape a GPU push without `machine_shape` is given (kaggle-cli #821): exactly one GPU shape.
    #[serde(default)]
    pub bare_gpu_default: bool,
    pub what: Text,
    pub source: Text,
    pub as_of: AsOf,
}

/// One default of a domain, with the conditions under which it applies.
#[cfg_attr(not(kgadvise_lib), derive(databake::Bake), databake(path = crate::rulebook))]
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DefaultItem {
    pub text: Text,
    /// Resolved to the platform's AMP mode.
    #[serde(default)]
    pub amp: bool,
    /// `num_workers` computed from the platform's cores.
    #[serde(default)]
    pub workers: bool,
    /// A capability whose matrix cell must be usable.
    #[serde(default)]
    pub requires: Option<Text>,
    /// Needs at least two GPUs.
    #[serde(default)]
    pub multi_gpu: bool,
    /// Needs a GPU.
    #[serde(default)]
    pub gpu: bool,
}

#[cfg_attr(not(kgadvise_lib), derive(databake::Bake), databake(path = crate::rulebook))]
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Domain {
    pub id: Text,
    pub key: Text,
    pub name: Text,
    /// Training code (AMP with GradScaler) rather than inference only (half precision, no scaler).
    pub training: bool,
    /// The domain's defaults are PyTorch code (matters on the P100).
    pub pytorch: bool,
    pub templates: List<Text>,
    pub always: List<DefaultItem>,
    pub when_measured: List<DefaultItem>,
    pub source: Text,
    pub as_of: AsOf,
}

#[cfg_attr(not(kgadvise_lib), derive(databake::Bake), databake(path = crate::rulebook))]
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(all(feature = "schema", kgadvise_lib), derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Template {
    pub id: Text,
    pub key: Text,
    pub file: Text,
    pub on_by_default: List<Text>,
    pub opt_in: List<Text>,
    pub why_not_default: Text,
    pub source: Text,
    pub as_of: AsOf,
}

#[cfg_attr(not(kgadvise_lib), derive(databake::Bake), databake(path = crate::rulebook))]
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WorthGpu {
    pub id: Text,
    pub task: Text,
    pub name: Text,
    pub cpu_below_rows: u64,
    pub gpu_from_rows: u64,
    #[serde(default)]
    pub gpu_from_refits: Option<u64>,
    pub cpu_reason: Text,
    pub gpu_reason: Text,
    #[serde(default)]
    pub refits_reason: Option<Text>,
    pub between_reason: Text,
    pub advice: List<Text>,
    /// Which of the numbers (`cpu_below_rows`, `gpu_from_rows`, `gpu_from_refits`) are kgadvise's own,
    /// in the sense of [`Threshold::kgadvise`]: no source states them; the others the seed states.
    pub kgadvise_thresholds: List<Text>,
    pub source: Text,
    pub as_of: AsOf,
}

/// The documentation of a finding rule, in fixed sections (What it checks / Why it matters / Example /
/// Fix / Thresholds / Source). It is the single source of `kgadvise explain`, docs/rules.md and the
/// web page's help. `what`, `why` and `example` are the rule's long prose: the baked book holds them
/// empty without the feature `rule-prose` (the page's build; [`RuleBook::without_rule_prose`]).
#[cfg_attr(not(kgadvise_lib), derive(databake::Bake), databake(path = crate::rulebook))]
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RuleDoc {
    pub id: Text,
    pub title: Text,
    pub severity: Severity,
    pub what: Text,
    pub why: Text,
    pub example: Text,
    pub fix: Text,
    /// IDs of the thresholds/facts/entries the rule uses.
    pub thresholds: List<Text>,
    pub source: Text,
    pub as_of: AsOf,
}

/// A named number a rule compares against; every threshold can be overridden (`set`).
///
/// `kgadvise` says where the number comes from, and nothing else:
/// - `false`: a source states this value: a seed (CE/KG), kgkit's behaviour (its code, the toolkit the
///   seeds describe), Kaggle, or the spec quoting one of them; `source` names it.
/// - `true`: kgadvise chose the value because no source states one: the seeds give only words ("close
///   to", "well below"), a range (1.3-1.5x, of which kgadvise picks a point) or nothing, and kgkit has
///   no such number. `source` names what the choice rests on.
///
/// A value kgkit uses is never `kgadvise = true`, even where the seeds give no number: kgadvise and
/// kgkit then agree by construction, and a change of it is a departure from kgkit.
#[cfg_attr(not(kgadvise_lib), derive(databake::Bake), databake(path = crate::rulebook))]
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Threshold {
    pub id: Text,
    pub value: f64,
    pub unit: Text,
    pub what: Text,
    pub kgadvise: bool,
    pub source: Text,
    pub as_of: AsOf,
}

/// A dated Kaggle fact that changes (quota hours, session limits, concurrency).
#[cfg_attr(not(kgadvise_lib), derive(databake::Bake), databake(path = crate::rulebook))]
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Fact {
    pub id: Text,
    pub value: f64,
    pub unit: Text,
    pub what: Text,
    pub source: Text,
    pub as_of: AsOf,
}

/// Advice a seed gives in words, shown in the answers of the entries it applies to (a domain's defaults,
/// a worth-gpu task, the inference advisor): not a finding, a note beside the answer.
#[cfg_attr(not(kgadvise_lib), derive(databake::Bake), databake(path = crate::rulebook))]
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Note {
    pub id: Text,
    /// One line, what to do.
    pub title: Text,
    /// The advice, a few sentences at most.
    pub text: Text,
    /// The entries (domains, worth-gpu tasks) whose answers show it.
    pub applies_to: List<Text>,
    /// The facts the text states (each fact's value must appear in the text, so the two cannot drift).
    #[serde(default)]
    pub facts: List<Text>,
    pub source: Text,
    pub as_of: AsOf,
}

/// The values Kaggle accepts for one kernel-metadata.json field (KM004).
#[cfg_attr(not(kgadvise_lib), derive(databake::Bake), databake(path = crate::rulebook))]
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Allowed {
    pub id: Text,
    /// The kernel-metadata.json field.
    pub field: Text,
    pub values: List<Text>,
    pub what: Text,
    pub source: Text,
    pub as_of: AsOf,
}

/// All the rules, validated: one list per table, in the order of core/build.rs's `FILES` and of each
/// file. `rulebook()` is the baked static that build.rs writes; `RuleBook::from_sources` (feature
/// `rules-toml`, and build.rs) reads the same from TOML text.
#[cfg_attr(not(kgadvise_lib), derive(databake::Bake), databake(path = crate::rulebook))]
#[derive(Debug, Clone, PartialEq)]
pub struct RuleBook {
    pub platforms: List<Platform>,
    pub capabilities: List<Capability>,
    pub cells: List<Cell>,
    pub shapes: List<Shape>,
    pub domains: List<Domain>,
    pub templates: List<Template>,
    pub worth_gpu: List<WorthGpu>,
    pub rules: List<RuleDoc>,
    pub thresholds: List<Threshold>,
    pub facts: List<Fact>,
    pub allowed: List<Allowed>,
    pub notes: List<Note>,
    /// Every entry's ID with its kind (`platform`, `rule`, ...), sorted by ID (byte order), for
    /// `explain` and [`RuleBook::kind_of`].
    pub index: List<(Text, &'static str)>,
}

impl RuleBook {
    /// The book without the finding rules' long prose (`what`, `why`, `example` empty): what core/build.rs
    /// bakes without the feature `rule-prose`. The page is built so (its size budget) and reads that prose
    /// from the site's `rules-prose.json` (`explain::rules_prose_json`); title, severity, fix, thresholds
    /// and source stay, so findings are whole.
    pub fn without_rule_prose(mut self) -> RuleBook {
        for rule in self.rules.to_mut() {
            rule.what = Cow::Borrowed("");
            rule.why = Cow::Borrowed("");
            rule.example = Cow::Borrowed("");
        }
        self
    }
}
