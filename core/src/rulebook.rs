//! The rules as data: `rules/*.toml`, embedded at compile time, parsed with serde (unknown keys rejected)
//! and validated (duplicate IDs, unknown platforms/capabilities, incomplete matrix, missing provenance).
//!
//! Adding a data file: put it in `rules/`, add it to [`EMBEDDED`], and its tables to [`RulesFile`].

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use chrono::NaiveDate;
use serde::Deserialize;

use crate::finding::Severity;

/// The embedded rule files: (file name, contents).
pub const EMBEDDED: &[(&str, &str)] = &[
    ("hardware.toml", include_str!("../../rules/hardware.toml")),
    ("domains.toml", include_str!("../../rules/domains.toml")),
    ("bench.toml", include_str!("../../rules/bench.toml")),
    ("kernel.toml", include_str!("../../rules/kernel.toml")),
    (
        "run_report.toml",
        include_str!("../../rules/run_report.toml"),
    ),
    ("quota.toml", include_str!("../../rules/quota.toml")),
    ("verdicts.toml", include_str!("../../rules/verdicts.toml")),
    ("stats.toml", include_str!("../../rules/stats.toml")),
];

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
}

/// How AMP resolves on a platform (spec §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
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

#[derive(Debug, Clone, Deserialize)]
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
    pub as_of: NaiveDate,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Capability {
    pub id: String,
    pub key: String,
    pub name: String,
    pub source: String,
    pub as_of: NaiveDate,
}

/// A matrix cell's support value (cli.md identifiers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
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

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cell {
    pub id: String,
    pub capability: String,
    pub platform: String,
    pub support: Support,
    pub note: String,
    pub source: String,
    pub as_of: NaiveDate,
}

/// What Kaggle does with a `machine_shape` value (spec §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AcceleratorKind {
    Gpu,
    Tpu,
}

#[derive(Debug, Clone, Deserialize)]
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
    pub what: String,
    pub source: String,
    pub as_of: NaiveDate,
}

/// One default of a domain, with the conditions under which it applies.
#[derive(Debug, Clone, Deserialize)]
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

#[derive(Debug, Clone, Deserialize)]
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
    pub as_of: NaiveDate,
}

#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Template {
    pub id: String,
    pub key: String,
    pub file: String,
    pub on_by_default: Vec<String>,
    pub opt_in: Vec<String>,
    pub why_not_default: String,
    pub source: String,
    pub as_of: NaiveDate,
}

#[derive(Debug, Clone, Deserialize)]
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
    pub as_of: NaiveDate,
}

/// The documentation of a finding rule, in fixed sections (What it checks / Why it matters / Example /
/// Fix / Thresholds / Source). It is the single source of `kgadvise explain`, docs/rules.md and the
/// web page's help.
#[derive(Debug, Clone, Deserialize, serde::Serialize)]
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
    pub as_of: NaiveDate,
}

/// A named number a rule compares against. `kgadvise = true` marks our own choice where the sources gave
/// only words ("close to", "well below"); every threshold can be overridden (`--set`).
#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Threshold {
    pub id: String,
    pub value: f64,
    pub unit: String,
    pub what: String,
    pub kgadvise: bool,
    pub source: String,
    pub as_of: NaiveDate,
}

/// A dated Kaggle fact that changes (quota hours, session limits, concurrency).
#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Fact {
    pub id: String,
    pub value: f64,
    pub unit: String,
    pub what: String,
    pub source: String,
    pub as_of: NaiveDate,
}

/// A problem in the rules data, naming the file and the entry.
#[derive(Debug, Clone, PartialEq)]
pub struct RulesError {
    pub file: String,
    pub message: String,
}

impl std::fmt::Display for RulesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "rules/{}: {}", self.file, self.message)
    }
}

/// All the rules, parsed and validated.
#[derive(Debug, Default)]
pub struct RuleBook {
    pub platforms: Vec<Platform>,
    pub capabilities: Vec<Capability>,
    pub cells: Vec<Cell>,
    pub shapes: Vec<Shape>,
    pub domains: Vec<Domain>,
    pub templates: Vec<Template>,
    pub worth_gpu: Vec<WorthGpu>,
    pub rules: Vec<RuleDoc>,
    pub thresholds: Vec<Threshold>,
    pub facts: Vec<Fact>,
    /// id -> (file, kind) for every entry, for `explain` and validation.
    index: BTreeMap<String, (String, &'static str)>,
}

/// The embedded rule book, parsed once. The data is compiled in and validated by the test suite
/// (`rulebook::tests`), so a failure here is a build defect, not a user error.
// The one deliberate panic of core: invalid EMBEDDED data is a build defect, never user input.
#[allow(clippy::panic)]
pub fn rulebook() -> &'static RuleBook {
    static BOOK: OnceLock<RuleBook> = OnceLock::new();
    BOOK.get_or_init(|| match RuleBook::from_sources(EMBEDDED) {
        Ok(book) => book,
        Err(errors) => {
            let text: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
            panic!(
                "embedded rules are invalid (a build defect):\n{}",
                text.join("\n")
            )
        }
    })
}

impl RuleBook {
    /// Parses and validates rule files; returns every problem found, not only the first.
    pub fn from_sources(sources: &[(&str, &str)]) -> Result<RuleBook, Vec<RulesError>> {
        let mut book = RuleBook::default();
        let mut errors = Vec::new();
        for (file, text) in sources {
            let parsed: RulesFile = match toml::from_str(text) {
                Ok(p) => p,
                Err(e) => {
                    errors.push(RulesError {
                        file: file.to_string(),
                        message: e.to_string(),
                    });
                    continue;
                }
            };
            let mut register = |id: &str, kind: &'static str, prefix: &str| {
                let ok_prefix = if prefix.is_empty() {
                    is_rule_code(id)
                } else {
                    id.starts_with(prefix) && id.len() > prefix.len()
                };
                if !ok_prefix {
                    let expected = if prefix.is_empty() {
                        "a code like KV001 (K, an area letter, three digits)".to_string()
                    } else {
                        format!("an ID starting with `{prefix}`")
                    };
                    errors.push(RulesError {
                        file: file.to_string(),
                        message: format!("{kind} `{id}`: expected {expected}"),
                    });
                }
                if let Some((other, _)) = book.index.get(id) {
                    errors.push(RulesError {
                        file: file.to_string(),
                        message: format!("duplicate ID `{id}` (also in rules/{other})"),
                    });
                } else {
                    book.index.insert(id.to_string(), (file.to_string(), kind));
                }
            };
            for e in &parsed.platform {
                register(&e.id, "platform", "platform.");
            }
            for e in &parsed.capability {
                register(&e.id, "capability", "capability.");
            }
            for e in &parsed.cell {
                register(&e.id, "matrix cell", "matrix.");
            }
            for e in &parsed.shape {
                register(&e.id, "machine shape", "shape.");
            }
            for e in &parsed.domain {
                register(&e.id, "domain", "domain.");
            }
            for e in &parsed.template {
                register(&e.id, "template", "template.");
            }
            for e in &parsed.worth_gpu {
                register(&e.id, "worth-gpu entry", "worth-gpu.");
            }
            for e in &parsed.rule {
                register(&e.id, "rule", "");
            }
            for e in &parsed.threshold {
                register(&e.id, "threshold", "threshold.");
            }
            for e in &parsed.fact {
                register(&e.id, "fact", "fact.");
            }
            let provenance = parsed
                .platform
                .iter()
                .map(|e| (&e.id, &e.source))
                .chain(parsed.capability.iter().map(|e| (&e.id, &e.source)))
                .chain(parsed.cell.iter().map(|e| (&e.id, &e.source)))
                .chain(parsed.shape.iter().map(|e| (&e.id, &e.source)))
                .chain(parsed.domain.iter().map(|e| (&e.id, &e.source)))
                .chain(parsed.template.iter().map(|e| (&e.id, &e.source)))
                .chain(parsed.worth_gpu.iter().map(|e| (&e.id, &e.source)))
                .chain(parsed.rule.iter().map(|e| (&e.id, &e.source)))
                .chain(parsed.threshold.iter().map(|e| (&e.id, &e.source)))
                .chain(parsed.fact.iter().map(|e| (&e.id, &e.source)));
            for (id, source) in provenance {
                if source.trim().is_empty() {
                    errors.push(RulesError {
                        file: file.to_string(),
                        message: format!(
                            "`{id}` has an empty source (seed file and section, or URL)"
                        ),
                    });
                }
            }
            book.platforms.extend(parsed.platform);
            book.capabilities.extend(parsed.capability);
            book.cells.extend(parsed.cell);
            book.shapes.extend(parsed.shape);
            book.domains.extend(parsed.domain);
            book.templates.extend(parsed.template);
            book.worth_gpu.extend(parsed.worth_gpu);
            book.rules.extend(parsed.rule);
            book.thresholds.extend(parsed.threshold);
            book.facts.extend(parsed.fact);
        }
        book.check_references(&mut errors);
        if errors.is_empty() {
            Ok(book)
        } else {
            Err(errors)
        }
    }

    fn file_of(&self, id: &str) -> String {
        self.index
            .get(id)
            .map(|(f, _)| f.clone())
            .unwrap_or_else(|| "?".to_string())
    }

    fn check_references(&self, errors: &mut Vec<RulesError>) {
        let platforms: BTreeSet<&str> = self.platforms.iter().map(|p| p.key.as_str()).collect();
        let capabilities: BTreeSet<&str> =
            self.capabilities.iter().map(|c| c.key.as_str()).collect();
        let shapes: BTreeSet<&str> = self.shapes.iter().map(|s| s.name.as_str()).collect();
        let templates: BTreeSet<&str> = self.templates.iter().map(|t| t.key.as_str()).collect();
        let mut err = |id: &str, message: String| {
            errors.push(RulesError {
                file: self.file_of(id),
                message: format!("`{id}`: {message}"),
            });
        };
        let mut seen_cells = BTreeSet::new();
        for c in &self.cells {
            if !platforms.contains(c.platform.as_str()) {
                err(
                    &c.id,
                    format!(
                        "unknown platform `{}` (known: {})",
                        c.platform,
                        join(&platforms)
                    ),
                );
            }
            if !capabilities.contains(c.capability.as_str()) {
                err(
                    &c.id,
                    format!(
                        "unknown capability `{}` (known: {})",
                        c.capability,
                        join(&capabilities)
                    ),
                );
            }
            if !seen_cells.insert((c.capability.as_str(), c.platform.as_str())) {
                err(
                    &c.id,
                    format!("second cell for {} x {}", c.capability, c.platform),
                );
            }
        }
        for cap in &capabilities {
            for plat in &platforms {
                if !seen_cells.contains(&(*cap, *plat)) {
                    let id = format!("matrix.{cap}.{plat}");
                    err(
                        &id,
                        format!(
                            "the matrix has no cell for capability `{cap}` on platform `{plat}`"
                        ),
                    );
                }
            }
        }
        for s in &self.shapes {
            if let Some(p) = &s.platform
                && !platforms.contains(p.as_str())
            {
                err(&s.id, format!("unknown platform `{p}`"));
            }
            if let Some(target) = &s.stored_as
                && !shapes.contains(target.as_str())
            {
                err(&s.id, format!("stored_as `{target}` is not a known shape"));
            }
        }
        for p in &self.platforms {
            if let Some(shape) = &p.machine_shape
                && !shapes.contains(shape.as_str())
            {
                err(
                    &p.id,
                    format!("machine_shape `{shape}` is not a known shape"),
                );
            }
        }
        for d in &self.domains {
            for t in &d.templates {
                if !templates.contains(t.as_str()) {
                    err(&d.id, format!("unknown template `{t}`"));
                }
            }
            for item in d.always.iter().chain(&d.when_measured) {
                if let Some(cap) = &item.requires
                    && !capabilities.contains(cap.as_str())
                {
                    err(
                        &d.id,
                        format!("item `{}` requires unknown capability `{cap}`", item.text),
                    );
                }
            }
        }
        for r in &self.rules {
            for t in &r.thresholds {
                if !self.index.contains_key(t) {
                    err(&r.id, format!("references unknown threshold/entry `{t}`"));
                }
            }
            for (name, text) in [
                ("title", &r.title),
                ("what", &r.what),
                ("why", &r.why),
                ("fix", &r.fix),
            ] {
                if text.trim().is_empty() {
                    err(&r.id, format!("empty `{name}` section"));
                }
            }
        }
    }

    pub fn platform(&self, key: &str) -> Option<&Platform> {
        self.platforms.iter().find(|p| p.key == key)
    }
    pub fn capability(&self, key: &str) -> Option<&Capability> {
        self.capabilities.iter().find(|c| c.key == key)
    }
    pub fn cell(&self, capability: &str, platform: &str) -> Option<&Cell> {
        self.cells
            .iter()
            .find(|c| c.capability == capability && c.platform == platform)
    }
    pub fn shape(&self, name: &str) -> Option<&Shape> {
        self.shapes.iter().find(|s| s.name == name)
    }
    pub fn domain(&self, key: &str) -> Option<&Domain> {
        self.domains.iter().find(|d| d.key == key)
    }
    pub fn template(&self, key: &str) -> Option<&Template> {
        self.templates.iter().find(|t| t.key == key)
    }
    pub fn worth_gpu(&self, task: &str) -> Option<&WorthGpu> {
        self.worth_gpu.iter().find(|w| w.task == task)
    }
    pub fn rule(&self, id: &str) -> Option<&RuleDoc> {
        self.rules.iter().find(|r| r.id.eq_ignore_ascii_case(id))
    }
    pub fn threshold(&self, id: &str) -> Option<&Threshold> {
        self.thresholds.iter().find(|t| t.id == id)
    }
    pub fn fact(&self, id: &str) -> Option<&Fact> {
        self.facts.iter().find(|f| f.id == id)
    }
    /// The value of a fact. Facts are compiled in and checked by the tests, so a missing one is a defect;
    /// NaN makes any arithmetic on it visibly wrong rather than silently zero.
    pub fn fact_value(&self, id: &str) -> f64 {
        self.fact(id).map(|f| f.value).unwrap_or(f64::NAN)
    }
    /// Every entry ID with its kind, sorted.
    pub fn ids(&self) -> impl Iterator<Item = (&str, &'static str)> {
        self.index
            .iter()
            .map(|(id, (_, kind))| (id.as_str(), *kind))
    }
    pub fn kind_of(&self, id: &str) -> Option<&'static str> {
        self.index.get(id).map(|(_, k)| *k)
    }
    /// Valid CLI identifiers, for error messages.
    pub fn platform_keys(&self) -> Vec<&str> {
        self.platforms.iter().map(|p| p.key.as_str()).collect()
    }
    pub fn capability_keys(&self) -> Vec<&str> {
        self.capabilities.iter().map(|c| c.key.as_str()).collect()
    }
    pub fn domain_keys(&self) -> Vec<&str> {
        self.domains.iter().map(|d| d.key.as_str()).collect()
    }
}

fn is_rule_code(id: &str) -> bool {
    match id.as_bytes() {
        [b'K', area, digits @ ..] => {
            area.is_ascii_uppercase() && digits.len() == 3 && digits.iter().all(u8::is_ascii_digit)
        }
        _ => false,
    }
}

fn join(set: &BTreeSet<&str>) -> String {
    set.iter().copied().collect::<Vec<_>>().join(", ")
}

/// Thresholds in force for one answer: the rules' values, with the user's `--set name=value` overrides.
#[derive(Debug, Clone)]
pub struct Thresholds {
    values: BTreeMap<String, f64>,
    overridden: BTreeSet<String>,
}

impl Thresholds {
    pub fn defaults() -> Thresholds {
        let values = rulebook()
            .thresholds
            .iter()
            .map(|t| (t.id.clone(), t.value))
            .collect();
        Thresholds {
            values,
            overridden: BTreeSet::new(),
        }
    }

    /// Applies `name=value` overrides; `name` may omit the `threshold.` prefix. Returns a message naming
    /// the bad pair and the valid names on error.
    pub fn with_overrides(mut self, pairs: &[String]) -> Result<Thresholds, String> {
        for pair in pairs {
            let Some((name, value)) = pair.split_once('=') else {
                return Err(format!(
                    "--set `{pair}`: expected name=value, e.g. verdict.busy-util-pct=10"
                ));
            };
            let name = name.trim();
            let id = if name.starts_with("threshold.") {
                name.to_string()
            } else {
                format!("threshold.{name}")
            };
            if !self.values.contains_key(&id) {
                let names: Vec<&str> = self
                    .values
                    .keys()
                    .map(|k| k.trim_start_matches("threshold."))
                    .collect();
                return Err(format!(
                    "--set `{name}`: unknown threshold; valid names: {}",
                    names.join(", ")
                ));
            }
            let parsed: f64 = value.trim().parse().map_err(|_| {
                format!(
                    "--set `{pair}`: `{}` is not a number; expected name=number",
                    value.trim()
                )
            })?;
            if !parsed.is_finite() {
                return Err(format!("--set `{pair}`: the value must be a finite number"));
            }
            self.values.insert(id.clone(), parsed);
            self.overridden.insert(id);
        }
        Ok(self)
    }

    /// The value of a threshold. IDs are compiled-in constants checked by the tests; an unknown one
    /// yields NaN so that every comparison with it is false (nothing fires) rather than a panic.
    pub fn get(&self, id: &str) -> f64 {
        self.values.get(id).copied().unwrap_or(f64::NAN)
    }

    pub fn is_overridden(&self, id: &str) -> bool {
        self.overridden.contains(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL_PLATFORM: &str = r#"
[[platform]]
id = "platform.x"
key = "x"
name = "X"
kaggle = false
gpus = 0
amp = "none"
notes = []
source = "test"
as_of = "2026-01-01"
"#;

    #[test]
    fn embedded_rules_are_valid() {
        if let Err(errors) = RuleBook::from_sources(EMBEDDED) {
            panic!(
                "{}",
                errors
                    .iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join("\n")
            );
        }
    }

    #[test]
    fn the_matrix_has_every_cell_of_the_seed() {
        let book = rulebook();
        assert_eq!(book.platforms.len(), 6);
        assert_eq!(book.capabilities.len(), 10);
        assert_eq!(book.cells.len(), 60);
    }

    #[test]
    fn unknown_key_is_rejected() {
        let text = MINIMAL_PLATFORM.replace("notes = []", "notes = []\ncolour = \"red\"");
        let errors = RuleBook::from_sources(&[("t.toml", &text)]).unwrap_err();
        assert!(
            errors[0].message.contains("unknown field `colour`"),
            "{errors:?}"
        );
    }

    #[test]
    fn missing_field_is_rejected() {
        let text = MINIMAL_PLATFORM.replace("source = \"test\"\n", "");
        let errors = RuleBook::from_sources(&[("t.toml", &text)]).unwrap_err();
        assert!(
            errors[0].message.contains("missing field `source`"),
            "{errors:?}"
        );
    }

    #[test]
    fn duplicate_id_is_rejected() {
        let errors =
            RuleBook::from_sources(&[("a.toml", MINIMAL_PLATFORM), ("b.toml", MINIMAL_PLATFORM)])
                .unwrap_err();
        assert!(
            errors
                .iter()
                .any(|e| e.message.contains("duplicate ID `platform.x`")),
            "{errors:?}"
        );
    }

    #[test]
    fn unknown_platform_in_a_cell_is_rejected() {
        let mut sources: Vec<(&str, String)> =
            EMBEDDED.iter().map(|(f, t)| (*f, t.to_string())).collect();
        sources[0].1 = sources[0].1.replacen(
            "platform = \"t4x2\"\nsupport",
            "platform = \"t4x3\"\nsupport",
            1,
        );
        let refs: Vec<(&str, &str)> = sources.iter().map(|(f, t)| (*f, t.as_str())).collect();
        let errors = RuleBook::from_sources(&refs).unwrap_err();
        assert!(
            errors
                .iter()
                .any(|e| e.message.contains("unknown platform `t4x3`")),
            "{errors:?}"
        );
        // The t4x2 cell it replaced is now missing from the matrix too.
        assert!(
            errors
                .iter()
                .any(|e| e.message.contains("no cell for capability")),
            "{errors:?}"
        );
    }

    #[test]
    fn empty_source_is_rejected() {
        let text = MINIMAL_PLATFORM.replace("source = \"test\"", "source = \"  \"");
        let errors = RuleBook::from_sources(&[("t.toml", &text)]).unwrap_err();
        assert!(
            errors.iter().any(|e| e.message.contains("empty source")),
            "{errors:?}"
        );
    }

    #[test]
    fn bad_rule_code_is_rejected() {
        let text = r#"
[[rule]]
id = "KV1"
title = "t"
severity = "info"
what = "w"
why = "y"
example = "e"
fix = "f"
thresholds = ["threshold.nope"]
source = "s"
as_of = "2026-01-01"
"#;
        let errors = RuleBook::from_sources(&[("t.toml", text)]).unwrap_err();
        assert!(
            errors
                .iter()
                .any(|e| e.message.contains("expected a code like KV001")),
            "{errors:?}"
        );
        assert!(errors.iter().any(|e| {
            e.message
                .contains("unknown threshold/entry `threshold.nope`")
        }));
    }

    #[test]
    fn threshold_overrides() {
        let t = Thresholds::defaults()
            .with_overrides(&["fact-stale-days=30".into()])
            .unwrap();
        assert_eq!(t.get("threshold.fact-stale-days"), 30.0);
        assert!(t.is_overridden("threshold.fact-stale-days"));
        let err = Thresholds::defaults()
            .with_overrides(&["nope=1".into()])
            .unwrap_err();
        assert!(
            err.contains("unknown threshold") && err.contains("fact-stale-days"),
            "{err}"
        );
        let err = Thresholds::defaults()
            .with_overrides(&["fact-stale-days=abc".into()])
            .unwrap_err();
        assert!(err.contains("not a number"), "{err}");
        let err = Thresholds::defaults()
            .with_overrides(&["fact-stale-days".into()])
            .unwrap_err();
        assert!(err.contains("expected name=value"), "{err}");
    }
}
