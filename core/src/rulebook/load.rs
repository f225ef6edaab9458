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
        let mut index = Index::new();
        let mut errors = Vec::new();
        let mut unreadable = false;
        for (file, text) in sources {
            match toml::from_str::<RulesFile>(text) {
                Ok(parsed) => {
                    let entries = entries(&parsed);
                    register(file, &entries, &mut index, &mut errors);
                    check_sources(file, &entries, &mut errors);
                    append(&mut all, parsed);
                }
                Err(e) => {
                    errors.push(RulesError {
                        file: file.to_string(),
                        message: e.to_string(),
                    });
                    unreadable = true;
                }
            }
        }
        let book = assemble(all, &index);
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

/// id -> (file, kind) for every entry.
type Index = BTreeMap<String, (String, &'static str)>;

/// One entry of a file as the checks of IDs and sources see it.
struct Entry<'a> {
    id: &'a str,
    source: &'a str,
    kind: &'static str,
    /// What the ID starts with; empty for a rule code (`KV001`).
    prefix: &'static str,
}

/// Every entry of a file, table by table in the rule book's order.
fn entries(parsed: &RulesFile) -> Vec<Entry<'_>> {
    fn of<'a, T>(
        list: &'a [T],
        kind: &'static str,
        prefix: &'static str,
        fields: impl Fn(&'a T) -> (&'a str, &'a str),
    ) -> impl Iterator<Item = Entry<'a>> {
        list.iter().map(move |e| {
            let (id, source) = fields(e);
            Entry {
                id,
                source,
                kind,
                prefix,
            }
        })
    }
    of(&parsed.platform, "platform", "platform.", |e| {
        (&e.id, &e.source)
    })
    .chain(of(&parsed.capability, "capability", "capability.", |e| {
        (&e.id, &e.source)
    }))
    .chain(of(&parsed.cell, "matrix cell", "matrix.", |e| {
        (&e.id, &e.source)
    }))
    .chain(of(&parsed.shape, "machine shape", "shape.", |e| {
        (&e.id, &e.source)
    }))
    .chain(of(&parsed.domain, "domain", "domain.", |e| {
        (&e.id, &e.source)
    }))
    .chain(of(&parsed.template, "template", "template.", |e| {
        (&e.id, &e.source)
    }))
    .chain(of(
        &parsed.worth_gpu,
        "worth-gpu entry",
        "worth-gpu.",
        |e| (&e.id, &e.source),
    ))
    .chain(of(&parsed.rule, "rule", "", |e| (&e.id, &e.source)))
    .chain(of(&parsed.threshold, "threshold", "threshold.", |e| {
        (&e.id, &e.source)
    }))
    .chain(of(&parsed.fact, "fact", "fact.", |e| (&e.id, &e.source)))
    .chain(of(&parsed.allowed, "accepted values", "allowed.", |e| {
        (&e.id, &e.source)
    }))
    .chain(of(&parsed.note, "note", "note.", |e| (&e.id, &e.source)))
    .collect()
}

/// Adds a file's IDs to the index: each must have its kind's prefix (a rule, the form of a code) and
/// be unique across the files.
fn register(file: &str, entries: &[Entry], index: &mut Index, errors: &mut Vec<RulesError>) {
    for e in entries {
        let ok_prefix = if e.prefix.is_empty() {
            is_rule_code(e.id)
        } else {
            e.id.starts_with(e.prefix) && e.id.len() > e.prefix.len()
        };
        if !ok_prefix {
            let expected = if e.prefix.is_empty() {
                "a code like KV001 (K, an area letter, three digits)".to_string()
            } else {
                format!("an ID starting with `{}`", e.prefix)
            };
            errors.push(RulesError {
                file: file.to_string(),
                message: format!("{} `{}`: expected {expected}", e.kind, e.id),
            });
        }
        if let Some((other, _)) = index.get(e.id) {
            errors.push(RulesError {
                file: file.to_string(),
                message: format!("duplicate ID `{}` (also in rules/{other})", e.id),
            });
        } else {
            index.insert(e.id.to_string(), (file.to_string(), e.kind));
        }
    }
}

/// Every entry names its source.
fn check_sources(file: &str, entries: &[Entry], errors: &mut Vec<RulesError>) {
    for e in entries.iter().filter(|e| e.source.trim().is_empty()) {
        errors.push(RulesError {
            file: file.to_string(),
            message: format!(
                "`{}` has an empty source (seed file and section, or URL)",
                e.id
            ),
        });
    }
}

/// The rule book of every file's entries, with the index of IDs.
fn assemble(all: RulesFile, index: &Index) -> RuleBook {
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
        note,
    } = all;
    RuleBook {
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
        notes: Cow::Owned(note),
        index: index
            .iter()
            .map(|(id, (_, kind))| (Cow::Owned(id.clone()), *kind))
            .collect(),
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
    all.note.append(&mut file.note);
}

/// The checks across entries and files, over the keys every check looks up; each problem is reported
/// in the file of the entry at fault.
struct References<'a> {
    book: &'a RuleBook,
    index: &'a Index,
    errors: &'a mut Vec<RulesError>,
    platforms: BTreeSet<&'a str>,
    capabilities: BTreeSet<&'a str>,
    shapes: BTreeSet<&'a str>,
    templates: BTreeSet<&'a str>,
}

/// The checks across entries and files.
fn check_references(book: &RuleBook, index: &Index, errors: &mut Vec<RulesError>) {
    let mut refs = References {
        book,
        index,
        errors,
        platforms: book.platforms.iter().map(|p| p.key.as_ref()).collect(),
        capabilities: book.capabilities.iter().map(|c| c.key.as_ref()).collect(),
        shapes: book.shapes.iter().map(|s| s.name.as_ref()).collect(),
        templates: book.templates.iter().map(|t| t.key.as_ref()).collect(),
    };
    refs.cells();
    refs.shapes();
    refs.platform_shapes();
    refs.domains();
    refs.rule_docs();
    refs.notes();
    refs.worth_gpu();
    refs.one_bare_gpu_default();
}

impl References<'_> {
    fn err(&mut self, id: &str, message: String) {
        self.errors.push(RulesError {
            file: self
                .index
                .get(id)
                .map_or_else(|| "?".to_string(), |(f, _)| f.clone()),
            message: format!("`{id}`: {message}"),
        });
    }

    /// Each cell is of a known platform and capability, once; the matrix has every cell.
    fn cells(&mut self) {
        let book = self.book;
        let mut seen = BTreeSet::new();
        for c in book.cells.iter() {
            if !self.platforms.contains(c.platform.as_ref()) {
                let known = join(&self.platforms);
                self.err(
                    &c.id,
                    format!("unknown platform `{}` (known: {known})", c.platform),
                );
            }
            if !self.capabilities.contains(c.capability.as_ref()) {
                let known = join(&self.capabilities);
                self.err(
                    &c.id,
                    format!("unknown capability `{}` (known: {known})", c.capability),
                );
            }
            if !seen.insert((c.capability.as_ref(), c.platform.as_ref())) {
                self.err(
                    &c.id,
                    format!("second cell for {} x {}", c.capability, c.platform),
                );
            }
        }
        let missing: Vec<(&str, &str)> = self
            .capabilities
            .iter()
            .flat_map(|cap| self.platforms.iter().map(move |plat| (*cap, *plat)))
            .filter(|pair| !seen.contains(pair))
            .collect();
        for (cap, plat) in missing {
            self.err(
                &format!("matrix.{cap}.{plat}"),
                format!("the matrix has no cell for capability `{cap}` on platform `{plat}`"),
            );
        }
    }

    /// A shape's platform and `stored_as` exist; only a GPU shape is the bare GPU default.
    fn shapes(&mut self) {
        let book = self.book;
        for s in book.shapes.iter() {
            if let Some(p) = &s.platform
                && !self.platforms.contains(p.as_ref())
            {
                self.err(&s.id, format!("unknown platform `{p}`"));
            }
            if let Some(target) = &s.stored_as
                && !self.shapes.contains(target.as_ref())
            {
                self.err(&s.id, format!("stored_as `{target}` is not a known shape"));
            }
            if s.bare_gpu_default && s.accelerator != AcceleratorKind::Gpu {
                self.err(
                    &s.id,
                    "bare_gpu_default on a shape that is not a GPU".into(),
                );
            }
        }
    }

    /// A platform's machine_shape exists.
    fn platform_shapes(&mut self) {
        let book = self.book;
        for p in book.platforms.iter() {
            if let Some(shape) = &p.machine_shape
                && !self.shapes.contains(shape.as_ref())
            {
                self.err(
                    &p.id,
                    format!("machine_shape `{shape}` is not a known shape"),
                );
            }
        }
    }

    /// A domain's templates and the capabilities its items require exist.
    fn domains(&mut self) {
        let book = self.book;
        for d in book.domains.iter() {
            for t in d.templates.iter() {
                if !self.templates.contains(t.as_ref()) {
                    self.err(&d.id, format!("unknown template `{t}`"));
                }
            }
            for item in d.always.iter().chain(d.when_measured.iter()) {
                if let Some(cap) = &item.requires
                    && !self.capabilities.contains(cap.as_ref())
                {
                    self.err(
                        &d.id,
                        format!("item `{}` requires unknown capability `{cap}`", item.text),
                    );
                }
            }
        }
    }

    /// A rule's thresholds exist and its sections are written.
    fn rule_docs(&mut self) {
        let book = self.book;
        for r in book.rules.iter() {
            for t in r.thresholds.iter() {
                if !self.index.contains_key(t.as_ref()) {
                    self.err(&r.id, format!("references unknown threshold/entry `{t}`"));
                }
            }
            for (name, text) in [
                ("title", &r.title),
                ("what", &r.what),
                ("why", &r.why),
                ("fix", &r.fix),
            ] {
                if text.trim().is_empty() {
                    self.err(&r.id, format!("empty `{name}` section"));
                }
            }
        }
    }

    /// A worth-gpu entry's `kgadvise_thresholds` name its numbers.
    fn worth_gpu(&mut self) {
        const NUMBERS: [&str; 3] = ["cpu_below_rows", "gpu_from_rows", "gpu_from_refits"];
        let book = self.book;
        for w in book.worth_gpu.iter() {
            for name in w.kgadvise_thresholds.iter() {
                if !NUMBERS.contains(&name.as_ref()) {
                    self.err(
                        &w.id,
                        format!(
                            "kgadvise_thresholds names `{name}`; expected one of {}",
                            NUMBERS.join(", ")
                        ),
                    );
                }
            }
        }
    }

    /// A note applies to domains or worth-gpu tasks that exist, and states the value of each fact it
    /// lists.
    fn notes(&mut self) {
        let book = self.book;
        for n in book.notes.iter() {
            if n.applies_to.is_empty() {
                self.err(
                    &n.id,
                    "applies to nothing: list the domains or worth-gpu tasks whose answers show it"
                        .into(),
                );
            }
            for target in n.applies_to.iter() {
                let kind = self.index.get(target.as_ref()).map(|(_, kind)| *kind);
                if !matches!(kind, Some("domain" | "worth-gpu entry")) {
                    self.err(
                        &n.id,
                        format!("applies_to `{target}` is not a domain or worth-gpu entry"),
                    );
                }
            }
            for id in n.facts.iter() {
                match book.facts.iter().find(|f| f.id == *id) {
                    None => self.err(&n.id, format!("unknown fact `{id}`")),
                    Some(fact) if !n.text.contains(&format!("{}", fact.value)) => self.err(
                        &n.id,
                        format!("the text does not state the value {} of `{id}`", fact.value),
                    ),
                    Some(_) => {}
                }
            }
            for (name, text) in [("title", &n.title), ("text", &n.text)] {
                if text.trim().is_empty() {
                    self.err(&n.id, format!("empty `{name}`"));
                }
            }
        }
    }

    /// Exactly one shape is what a GPU push without machine_shape gets.
    fn one_bare_gpu_default(&mut self) {
        let bare: Vec<&str> = self
            .book
            .shapes
            .iter()
            .filter(|s| s.bare_gpu_default)
            .map(|s| s.id.as_ref())
            .collect();
        if bare.len() != 1 {
            self.errors.push(RulesError {
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
