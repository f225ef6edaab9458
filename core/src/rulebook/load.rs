//! Reading and validating rule files written in TOML: serde into the [`schema`](super::schema) types
//! (unknown tables and keys, missing keys and wrong types are errors with the TOML line and column),
//! then the checks of the data as a whole (duplicate IDs, ID prefixes and rule codes, empty sources and
//! sections, unknown platforms/capabilities/shapes/templates/entries, an incomplete matrix, one
//! `bare_gpu_default`).
//!
//! core/build.rs compiles this file too (`#[path]`) and fails the build on any of these errors, so the
//! baked rule book that `rulebook()` returns is always valid and the library needs none of this code;
//! with the feature `rules-toml` the library has it as [`RuleBook::from_sources`] (the data tests).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use super::schema::{AcceleratorKind, RuleBook, RulesFile};

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

impl RuleBook {
    /// Parses and validates rule files written in TOML, `(file name, text)` in the order the rule book
    /// lists their entries; returns every problem found, not only the first (but no cross-file
    /// reference errors when a file could not be read at all).
    pub fn from_sources(sources: &[(&str, &str)]) -> Result<RuleBook, Vec<RulesError>> {
        let mut all = RulesFile::default();
        // id -> (file, kind) for every entry.
        let mut index: BTreeMap<String, (String, &'static str)> = BTreeMap::new();
        let mut errors = Vec::new();
        let mut unreadable = false;
        for (file, text) in sources {
            let parsed: RulesFile = match toml::from_str(text) {
                Ok(p) => p,
                Err(e) => {
                    errors.push(RulesError {
                        file: file.to_string(),
                        message: e.to_string(),
                    });
                    unreadable = true;
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
                if let Some((other, _)) = index.get(id) {
                    errors.push(RulesError {
                        file: file.to_string(),
                        message: format!("duplicate ID `{id}` (also in rules/{other})"),
                    });
                } else {
                    index.insert(id.to_string(), (file.to_string(), kind));
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
            for e in &parsed.allowed {
                register(&e.id, "accepted values", "allowed.");
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
                .chain(parsed.fact.iter().map(|e| (&e.id, &e.source)))
                .chain(parsed.allowed.iter().map(|e| (&e.id, &e.source)));
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
            append(&mut all, parsed);
        }
        let RulesFile {
            platform,
            capability,
            cell,
            shape,
            domain,
            template,
            worth_gpu,
            rule,
            threshold,
            fact,
            allowed,
        } = all;
        let book = RuleBook {
            platforms: Cow::Owned(platform),
            capabilities: Cow::Owned(capability),
            cells: Cow::Owned(cell),
            shapes: Cow::Owned(shape),
            domains: Cow::Owned(domain),
            templates: Cow::Owned(template),
            worth_gpu: Cow::Owned(worth_gpu),
            rules: Cow::Owned(rule),
            thresholds: Cow::Owned(threshold),
            facts: Cow::Owned(fact),
            allowed: Cow::Owned(allowed),
            index: index
                .iter()
                .map(|(id, (_, kind))| (Cow::Owned(id.clone()), *kind))
                .collect(),
        };
        // A file that could not be read leaves its entries out: checking the references across the files
        // would then report everything that points into it, burying the one real error.
        if !unreadable {
            check_references(&book, &index, &mut errors);
        }
        if errors.is_empty() {
            Ok(book)
        } else {
            Err(errors)
        }
    }
}

/// Adds a file's entries to the lists of all files.
fn append(all: &mut RulesFile, mut file: RulesFile) {
    all.platform.append(&mut file.platform);
    all.capability.append(&mut file.capability);
    all.cell.append(&mut file.cell);
    all.shape.append(&mut file.shape);
    all.domain.append(&mut file.domain);
    all.template.append(&mut file.template);
    all.worth_gpu.append(&mut file.worth_gpu);
    all.rule.append(&mut file.rule);
    all.threshold.append(&mut file.threshold);
    all.fact.append(&mut file.fact);
    all.allowed.append(&mut file.allowed);
}

/// The checks across entries and files. `index`: id -> (file, kind).
fn check_references(
    book: &RuleBook,
    index: &BTreeMap<String, (String, &'static str)>,
    errors: &mut Vec<RulesError>,
) {
    let platforms: BTreeSet<&str> = book.platforms.iter().map(|p| p.key.as_ref()).collect();
    let capabilities: BTreeSet<&str> = book.capabilities.iter().map(|c| c.key.as_ref()).collect();
    let shapes: BTreeSet<&str> = book.shapes.iter().map(|s| s.name.as_ref()).collect();
    let templates: BTreeSet<&str> = book.templates.iter().map(|t| t.key.as_ref()).collect();
    let mut err = |id: &str, message: String| {
        errors.push(RulesError {
            file: index
                .get(id)
                .map_or_else(|| "?".to_string(), |(f, _)| f.clone()),
            message: format!("`{id}`: {message}"),
        });
    };
    let mut seen_cells = BTreeSet::new();
    for c in book.cells.iter() {
        if !platforms.contains(c.platform.as_ref()) {
            err(
                &c.id,
                format!(
                    "unknown platform `{}` (known: {})",
                    c.platform,
                    join(&platforms)
                ),
            );
        }
        if !capabilities.contains(c.capability.as_ref()) {
            err(
                &c.id,
                format!(
                    "unknown capability `{}` (known: {})",
                    c.capability,
                    join(&capabilities)
                ),
            );
        }
        if !seen_cells.insert((c.capability.as_ref(), c.platform.as_ref())) {
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
                    format!("the matrix has no cell for capability `{cap}` on platform `{plat}`"),
                );
            }
        }
    }
    for s in book.shapes.iter() {
        if let Some(p) = &s.platform
            && !platforms.contains(p.as_ref())
        {
            err(&s.id, format!("unknown platform `{p}`"));
        }
        if let Some(target) = &s.stored_as
            && !shapes.contains(target.as_ref())
        {
            err(&s.id, format!("stored_as `{target}` is not a known shape"));
        }
        if s.bare_gpu_default && s.accelerator != AcceleratorKind::Gpu {
            err(
                &s.id,
                "bare_gpu_default on a shape that is not a GPU".into(),
            );
        }
    }
    for p in book.platforms.iter() {
        if let Some(shape) = &p.machine_shape
            && !shapes.contains(shape.as_ref())
        {
            err(
                &p.id,
                format!("machine_shape `{shape}` is not a known shape"),
            );
        }
    }
    for d in book.domains.iter() {
        for t in d.templates.iter() {
            if !templates.contains(t.as_ref()) {
                err(&d.id, format!("unknown template `{t}`"));
            }
        }
        for item in d.always.iter().chain(d.when_measured.iter()) {
            if let Some(cap) = &item.requires
                && !capabilities.contains(cap.as_ref())
            {
                err(
                    &d.id,
                    format!("item `{}` requires unknown capability `{cap}`", item.text),
                );
            }
        }
    }
    for r in book.rules.iter() {
        for t in r.thresholds.iter() {
            if !index.contains_key(t.as_ref()) {
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
    let bare: Vec<&str> = book
        .shapes
        .iter()
        .filter(|s| s.bare_gpu_default)
        .map(|s| s.id.as_ref())
        .collect();
    if bare.len() != 1 {
        errors.push(RulesError {
            file: "hardware.toml".into(),
            message: format!(
                "exactly one [[shape]] must have bare_gpu_default = true (the shape a GPU push \
                 without machine_shape is given); found {}",
                if bare.is_empty() {
                    "none".to_string()
                } else {
                    bare.join(", ")
                }
            ),
        });
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
