//! The rule registry: `kgadvise explain ID` for finding rules (KH001...) and data entries
//! (`matrix.bf16.t4x2`, `shape.TpuV5E8`, `threshold.*`, `fact.*`), the list of every ID, and
//! docs/rules.md.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use crate::request::{Overrides, RequestError, now_of};
use crate::rulebook::finding::Finding;
use crate::rulebook::report::Report;
use crate::rulebook::{DefaultItem, Note, RuleBook, RuleDoc, Threshold, rulebook};
use crate::text::number::shortest;

pub const EXPLAIN_SCHEMA: &str = "kgadvise.explain/1";
pub const EXPLAIN_LIST_SCHEMA: &str = "kgadvise.explain-list/1";
pub const RULES_MARKDOWN_SCHEMA: &str = "kgadvise.rules-markdown/1";

/// `kgadvise explain`: the documentation of one rule or entry, the list of every ID, or the
/// documentation of every finding rule as Markdown.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct ExplainRequest {
    /// A rule code (KH001, in any case) or an entry ID (matrix.bf16.t4x2, shape.TpuV5E8, threshold.*,
    /// fact.*); required unless every ID is listed or every rule written as Markdown.
    #[cfg_attr(feature = "cli", arg(value_name = "RULE", required_unless_present_any = ["list", "all_markdown"]))]
    pub id: Option<String>,
    /// Every rule and entry ID with its kind, instead of one explanation.
    #[cfg_attr(feature = "cli", arg(long))]
    pub list: bool,
    /// The documentation of every finding rule as Markdown (docs/rules.md), instead of one explanation.
    #[cfg_attr(feature = "cli", arg(long))]
    pub all_markdown: bool,
    /// The time of the answer (RFC 3339 or a date); checked like every request's, though the
    /// documentation does not depend on it.
    #[cfg_attr(feature = "schema", schemars(extend("x-time" = true)))]
    #[cfg_attr(feature = "cli", arg(skip))]
    pub now: Option<String>,
    /// Threshold overrides; checked like every request's.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub set: Overrides,
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Explanation {
    pub schema: &'static str,
    pub rule: String,
    pub kind: String,
    pub title: String,
    /// The documentation as Markdown in fixed sections.
    pub doc: String,
    pub source: String,
    pub as_of: NaiveDate,
    pub findings: Vec<Finding>,
}

impl Report for Explanation {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }

    fn text(&self) -> String {
        explanation_text(self)
    }
}

/// One ID of the list, with its kind (`rule`, `matrix cell`, `threshold`...).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ListedId {
    pub kind: &'static str,
    pub rule: String,
}

/// Every ID of the rule book, sorted. (The fields are in the order `kgadvise explain --list --json`
/// has always printed them.)
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct IdList {
    pub findings: Vec<Finding>,
    pub rules: Vec<ListedId>,
    pub schema: &'static str,
}

impl Report for IdList {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }

    fn text(&self) -> String {
        id_list_text(self)
    }
}

/// docs/rules.md.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RulesMarkdown {
    pub schema: &'static str,
    pub markdown: String,
    pub findings: Vec<Finding>,
}

/// What `kgadvise explain` answers: one explanation, the list of IDs, or the Markdown of every rule.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum ExplainReport {
    Entry(Explanation),
    List(IdList),
    Markdown(RulesMarkdown),
}

impl Report for ExplainReport {
    fn findings(&self) -> &[Finding] {
        match self {
            ExplainReport::Entry(e) => &e.findings,
            ExplainReport::List(l) => &l.findings,
            ExplainReport::Markdown(m) => &m.findings,
        }
    }

    fn text(&self) -> String {
        match self {
            ExplainReport::Entry(e) => e.text(),
            ExplainReport::List(l) => l.text(),
            ExplainReport::Markdown(m) => m.markdown.clone(),
        }
    }
}

/// One entry's documentation: its ID and title, where it comes from, then its Markdown.
fn explanation_text(e: &Explanation) -> String {
    format!(
        "{} — {}\n({}, source: {}, as of {})\n\n{}",
        e.rule, e.title, e.kind, e.source, e.as_of, e.doc
    )
}

/// Every ID, one a line, with its kind in a column.
fn id_list_text(list: &IdList) -> String {
    list.rules
        .iter()
        .map(|r| format!("{:<40} {}\n", r.rule, r.kind))
        .collect()
}

/// Whether this build's rule book holds the finding rules' long prose (`what`, `why`, `example`): the
/// feature `rule-prose`, which every build but the page's has. Without it a rule's doc
/// ([`render_rule_doc`], `explain ID`) holds its Fix, Thresholds and Source sections only, and the page
/// shows the prose sections before them from the site's `rules-prose.json` ([`rules_prose_json`],
/// read back by [`prose_of`]).
pub const RULE_PROSE: bool = cfg!(feature = "rule-prose");

/// The name of the site file that holds every finding rule's long prose ([`rules_prose_json`]): generated
/// from the rules as `web/rules-prose.json` (a test keeps it fresh), copied into the site by trunk and
/// cached by the service worker.
pub const RULES_PROSE_FILE: &str = "rules-prose.json";

/// A finding rule's long prose: what it checks (exactly when it fires), why it matters, an example.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RuleProse<'a> {
    pub what: &'a str,
    pub why: &'a str,
    pub example: &'a str,
}

impl<'a> RuleProse<'a> {
    /// The prose the rule book holds for a rule (empty without the feature `rule-prose`).
    pub fn of(r: &'a RuleDoc) -> RuleProse<'a> {
        RuleProse {
            what: &r.what,
            why: &r.why,
            example: &r.example,
        }
    }
}

/// The first sections of a rule's doc, from its long prose: What it checks, Why it matters, Example.
pub fn prose_markdown(p: &RuleProse<'_>) -> String {
    format!(
        "### What it checks\n{}\n\n### Why it matters\n{}\n\n### Example\n{}\n\n",
        p.what, p.why, p.example
    )
}

/// The Markdown documentation of one finding rule, in the fixed sections; without the feature
/// `rule-prose` its Fix, Thresholds and Source only (see [`RULE_PROSE`]).
pub fn render_rule_doc(r: &RuleDoc) -> String {
    let thresholds = if r.thresholds.is_empty() {
        "none".to_string()
    } else {
        let lines: Vec<String> = r.thresholds.iter().map(|t| describe_entry(t)).collect();
        format!("- {}", lines.join("\n- "))
    };
    let prose = if RULE_PROSE {
        prose_markdown(&RuleProse::of(r))
    } else {
        String::new()
    };
    format!(
        "{prose}### Fix\n{}\n\n### Thresholds\n{}\n\n### Source\n{} (as of {})\n",
        r.fix, thresholds, r.source, r.as_of
    )
}

/// The site's `rules-prose.json`: every finding rule's long prose, keyed by rule code (sorted), as
/// `{"KB001": {"what": ..., "why": ..., "example": ...}, ...}`. The page's wasm holds the rule book without
/// it ([`RULE_PROSE`]); `tests/tests/rules_data.rs` checks that `web/rules-prose.json` is this text.
#[cfg(feature = "rule-prose")]
pub fn rules_prose_json() -> String {
    let rules: std::collections::BTreeMap<&str, RuleProse<'_>> = rulebook()
        .rules
        .iter()
        .map(|r| (r.id.as_ref(), RuleProse::of(r)))
        .collect();
    // Strings only: serde_json's float printer is never reached.
    let mut text = serde_json::to_string_pretty(&rules).unwrap_or_default();
    text.push('\n');
    text
}

/// One rule's prose from the parsed `rules-prose.json` ([`rules_prose_json`]); `None` when the file has no
/// such rule or it lacks a section (a file older than the page's rules).
pub fn prose_of<'a>(file: &'a serde_json::Value, id: &str) -> Option<RuleProse<'a>> {
    let rule = file.get(id)?;
    let section = |key: &str| rule.get(key).and_then(serde_json::Value::as_str);
    Some(RuleProse {
        what: section("what")?,
        why: section("why")?,
        example: section("example")?,
    })
}

/// One line describing a data entry (threshold, fact, accepted values, worth-gpu bounds) for the
/// Thresholds section and the entry's own explanation.
fn describe_entry(id: &str) -> String {
    let b = rulebook();
    if let Some(t) = b.threshold(id) {
        return format!(
            "`{}` = {} {}: {} ({})",
            t.id,
            shortest(t.value),
            t.unit,
            t.what,
            provenance(t)
        );
    }
    if let Some(f) = b.fact(id) {
        return format!(
            "`{}` = {} {}: {} (as of {})",
            f.id,
            shortest(f.value),
            f.unit,
            f.what,
            f.as_of
        );
    }
    if let Some(a) = b.allowed.iter().find(|a| a.id == id) {
        return format!(
            "`{}`: {} (kernel-metadata.json `{}`)",
            a.id,
            a.values.join(", "),
            a.field
        );
    }
    if let Some(w) = b.worth_gpu.iter().find(|w| w.id == id) {
        let ours = if w.kgadvise_thresholds.is_empty() {
            "stated by its source".to_string()
        } else {
            format!(
                "kgadvise's own numbers: {}; the others stated by its source",
                w.kgadvise_thresholds.join(", ")
            )
        };
        return format!(
            "`{}`: CPU below {} rows, GPU from {} rows{} ({ours}: {})",
            w.id,
            w.cpu_below_rows,
            w.gpu_from_rows,
            w.gpu_from_refits
                .map(|n| format!(", or {n}+ refits"))
                .unwrap_or_default(),
            w.source
        );
    }
    format!("`{id}`")
}

/// Where a threshold's number comes from, as the docs say it (the meaning of `kgadvise` in the rules).
fn provenance(t: &Threshold) -> String {
    if t.kgadvise {
        format!(
            "kgadvise's own number: no source states one; it rests on {}",
            t.source
        )
    } else {
        format!("stated by its source: {}", t.source)
    }
}

/// An entry's explanation without its ID and kind.
struct EntryDoc {
    title: String,
    doc: String,
    source: String,
    as_of: NaiveDate,
}

/// One kind of data entry: its explanation when `id` is one of its entries.
type Explainer = fn(&RuleBook, &str) -> Option<EntryDoc>;

/// Every kind of data entry, in the order they are looked up.
const EXPLAINERS: &[Explainer] = &[
    cell_doc,
    platform_doc,
    shape_doc,
    threshold_doc,
    fact_doc,
    domain_doc,
    template_doc,
    worth_gpu_doc,
    allowed_doc,
    capability_doc,
    note_doc,
];

fn cell_doc(b: &RuleBook, id: &str) -> Option<EntryDoc> {
    let c = b.cells.iter().find(|c| c.id == id)?;
    let cap = b.capability(&c.capability).map_or("", |x| x.name.as_ref());
    let plat = b.platform(&c.platform).map_or("", |x| x.name.as_ref());
    Some(EntryDoc {
        title: format!("{cap} on {plat}: {}", c.support.as_str()),
        doc: format!(
            "**{}** — {}\n\nSupport values: yes, no, partial (yes under the condition), n/a (does not apply).",
            c.support.as_str(),
            c.note
        ),
        source: c.source.to_string(),
        as_of: c.as_of.date(),
    })
}

fn platform_doc(b: &RuleBook, id: &str) -> Option<EntryDoc> {
    let p = b.platforms.iter().find(|p| p.id == id)?;
    let mut doc = format!(
        "Identifier `{}`; {} GPU(s); CPU cores: {}; AMP: {:?}.",
        p.key,
        p.gpus,
        p.cpu_cores
            .map(|c| c.to_string())
            .unwrap_or_else(|| "not fixed".into()),
        p.amp
    );
    if let Some(s) = &p.machine_shape {
        doc.push_str(&format!(" machine_shape `{s}`."));
    }
    for n in p.notes.iter() {
        doc.push_str(&format!("\n- {n}"));
    }
    Some(EntryDoc {
        title: p.name.to_string(),
        doc,
        source: p.source.to_string(),
        as_of: p.as_of.date(),
    })
}

fn shape_doc(b: &RuleBook, id: &str) -> Option<EntryDoc> {
    let s = b.shapes.iter().find(|s| s.id == id)?;
    let stored = s
        .stored_as
        .as_ref()
        .map(|x| format!(" Stored as `{x}`."))
        .unwrap_or_default();
    Some(EntryDoc {
        title: format!("machine_shape {}: {}", s.name, s.status.as_str()),
        doc: format!("{}{}", s.what, stored),
        source: s.source.to_string(),
        as_of: s.as_of.date(),
    })
}

fn threshold_doc(b: &RuleBook, id: &str) -> Option<EntryDoc> {
    let t = b.thresholds.iter().find(|t| t.id == id)?;
    Some(EntryDoc {
        title: t.what.to_string(),
        doc: describe_entry(id),
        source: t.source.to_string(),
        as_of: t.as_of.date(),
    })
}

fn fact_doc(b: &RuleBook, id: &str) -> Option<EntryDoc> {
    let f = b.facts.iter().find(|f| f.id == id)?;
    Some(EntryDoc {
        title: f.what.to_string(),
        doc: describe_entry(id),
        source: f.source.to_string(),
        as_of: f.as_of.date(),
    })
}

fn domain_doc(b: &RuleBook, id: &str) -> Option<EntryDoc> {
    let d = b.domains.iter().find(|d| d.id == id)?;
    let list = |items: &[DefaultItem]| {
        items
            .iter()
            .map(|i| format!("- {}", i.text))
            .collect::<Vec<_>>()
            .join("\n")
    };
    Some(EntryDoc {
        title: d.name.to_string(),
        doc: format!(
            "### Always\n{}\n\n### When measured, or when the data is large\n{}",
            list(&d.always),
            list(&d.when_measured)
        ),
        source: d.source.to_string(),
        as_of: d.as_of.date(),
    })
}

fn template_doc(b: &RuleBook, id: &str) -> Option<EntryDoc> {
    let t = b.templates.iter().find(|t| t.id == id)?;
    Some(EntryDoc {
        title: t.file.to_string(),
        doc: format!(
            "On by default: {}.\nOpt-in: {}.\nWhy not default: {}",
            t.on_by_default.join(", "),
            t.opt_in.join(", "),
            if t.why_not_default.is_empty() {
                "-"
            } else {
                &t.why_not_default
            }
        ),
        source: t.source.to_string(),
        as_of: t.as_of.date(),
    })
}

fn worth_gpu_doc(b: &RuleBook, id: &str) -> Option<EntryDoc> {
    let w = b.worth_gpu.iter().find(|w| w.id == id)?;
    Some(EntryDoc {
        title: w.name.to_string(),
        doc: describe_entry(id),
        source: w.source.to_string(),
        as_of: w.as_of.date(),
    })
}

fn allowed_doc(b: &RuleBook, id: &str) -> Option<EntryDoc> {
    let a = b.allowed.iter().find(|a| a.id == id)?;
    Some(EntryDoc {
        title: a.what.to_string(),
        doc: describe_entry(id),
        source: a.source.to_string(),
        as_of: a.as_of.date(),
    })
}

fn capability_doc(b: &RuleBook, id: &str) -> Option<EntryDoc> {
    let c = b.capabilities.iter().find(|c| c.id == id)?;
    Some(EntryDoc {
        title: c.name.to_string(),
        doc: format!("Identifier `{}`.", c.key),
        source: c.source.to_string(),
        as_of: c.as_of.date(),
    })
}

/// A note's text, and the answers and facts it goes with.
fn note_body(n: &Note) -> String {
    let mut doc = format!("{}\n\nShown with: {}.", n.text, n.applies_to.join(", "));
    if !n.facts.is_empty() {
        let facts: Vec<String> = n.facts.iter().map(|f| describe_entry(f)).collect();
        doc.push_str(&format!("\n\nFacts:\n- {}", facts.join("\n- ")));
    }
    doc
}

fn note_doc(b: &RuleBook, id: &str) -> Option<EntryDoc> {
    let n = b.notes.iter().find(|n| n.id == id)?;
    Some(EntryDoc {
        title: n.title.to_string(),
        doc: note_body(n),
        source: n.source.to_string(),
        as_of: n.as_of.date(),
    })
}

fn explain_entry(id: &str) -> Option<Explanation> {
    let b = rulebook();
    let kind = b.kind_of(id)?;
    let entry = EXPLAINERS.iter().find_map(|explainer| explainer(b, id))?;
    Some(Explanation {
        schema: EXPLAIN_SCHEMA,
        rule: id.to_string(),
        kind: kind.to_string(),
        title: entry.title,
        doc: entry.doc,
        source: entry.source,
        as_of: entry.as_of,
        findings: vec![],
    })
}

/// The explanation of one rule code (in any case) or entry ID.
pub fn explain_id(id: &str) -> Option<Explanation> {
    let id = id.trim();
    match rulebook().rule(id) {
        Some(r) => Some(Explanation {
            schema: EXPLAIN_SCHEMA,
            rule: r.id.to_string(),
            kind: "rule".into(),
            title: r.title.to_string(),
            doc: render_rule_doc(r),
            source: r.source.to_string(),
            as_of: r.as_of.date(),
            findings: vec![],
        }),
        None => explain_entry(id),
    }
}

/// IDs close to one the book does not know (one contains the other, ignoring case), sorted; at most 8.
pub fn suggestions(id: &str) -> Vec<String> {
    let lower = id.trim().to_ascii_lowercase();
    if lower.is_empty() {
        return Vec::new();
    }
    let mut close: Vec<String> = rulebook()
        .ids()
        .map(|(x, _)| x.to_string())
        .filter(|x| {
            let xl = x.to_ascii_lowercase();
            xl.contains(&lower) || lower.contains(&xl)
        })
        .take(8)
        .collect();
    crate::text::sort::sort(&mut close);
    close
}

/// The error for an ID the book does not know, with the close ones.
fn unknown_id(id: &str) -> RequestError {
    let close = suggestions(id);
    let hint = if close.is_empty() {
        "expected a rule code like KH001 or an entry like matrix.bf16.t4x2".to_string()
    } else {
        format!("did you mean: {}", close.join(", "))
    };
    RequestError::new("id", format!("unknown rule `{}`; {hint}", id.trim()))
}

/// Every ID of the rule book with its kind, sorted.
fn id_list() -> IdList {
    IdList {
        findings: vec![],
        rules: rulebook()
            .ids()
            .map(|(id, kind)| ListedId {
                kind,
                rule: id.to_string(),
            })
            .collect(),
        schema: EXPLAIN_LIST_SCHEMA,
    }
}

/// `kgadvise explain`: one rule's or entry's documentation, the list of IDs, or docs/rules.md. Errors
/// name the request field.
pub fn explain(
    request: &ExplainRequest,
    clock: DateTime<Utc>,
) -> Result<ExplainReport, RequestError> {
    // Checked even though they change nothing: a bad `now` or `set` is refused as in every request.
    now_of(request.now.as_deref(), clock)?;
    request.set.thresholds()?;
    if request.all_markdown {
        return Ok(ExplainReport::Markdown(RulesMarkdown {
            schema: RULES_MARKDOWN_SCHEMA,
            markdown: render_rules_markdown(),
            findings: vec![],
        }));
    }
    if request.list {
        return Ok(ExplainReport::List(id_list()));
    }
    let id = request.id.as_deref().unwrap_or_default();
    if id.trim().is_empty() {
        return Err(RequestError::new(
            "id",
            "expected a rule code like KH001 or an entry like matrix.bf16.t4x2",
        ));
    }
    explain_id(id)
        .map(ExplainReport::Entry)
        .ok_or_else(|| unknown_id(id))
}

/// The finding rules sorted by code: the index of docs/rules.md and of the rules page.
pub fn rules_by_code() -> Vec<&'static RuleDoc> {
    let mut rules: Vec<&RuleDoc> = rulebook().rules.iter().collect();
    crate::text::sort::sort_by(&mut rules, |a, b| a.id.cmp(&b.id));
    rules
}

/// docs/rules.md: every finding rule's documentation, generated from the rules data.
pub fn render_rules_markdown() -> String {
    let rules = rules_by_code();
    let mut out = String::from(
        "# kgadvise rules\n\nGenerated from `rules/*.toml` by `kgadvise explain --all-markdown`; do not edit by hand \
         (a test fails when this file is stale). `kgadvise explain ID` prints one entry.\n\n\
         Each threshold says where its number comes from: *stated by its source* (a seed, kgkit's behaviour, \
         Kaggle, or the spec quoting one of them) or *kgadvise's own number* (no source states one: the seeds \
         give only words, a range or nothing, and kgkit has no such number). Every threshold can be \
         overridden (`--set name=value`). The notes at the end are advice the seeds give in words, shown \
         beside the answers they apply to.\n\n",
    );
    for r in &rules {
        out.push_str(&format!(
            "- [{}](#{}) {} ({})\n",
            r.id,
            r.id.to_ascii_lowercase(),
            r.title,
            r.severity
        ));
    }
    out.push_str(
        "- [Departures](#departures): where kgadvise departs from a seed or kgkit on purpose\n",
    );
    out.push_str("- [Notes](#notes): advice shown beside the answers\n");
    out.push_str(&departures_markdown(&rules));
    for r in rules {
        out.push_str(&format!(
            "\n## {}\n\n**{}** — severity {}\n\n{}",
            r.id,
            r.title,
            r.severity,
            render_rule_doc(r)
        ));
    }
    out.push_str("\n## Notes\n");
    for n in rulebook().notes.iter() {
        out.push_str(&format!(
            "\n### {}\n\n**{}**\n\n{}\n\nSource: {} (as of {})\n",
            n.id,
            n.title,
            note_body(n),
            n.source,
            n.as_of
        ));
    }
    out
}

/// The departures section of docs/rules.md: each rule whose doc says it departs from a seed or from
/// kgkit on purpose, with the sentences of its `what` that say so (and why).
fn departures_markdown(rules: &[&RuleDoc]) -> String {
    let mut out = String::from(
        "\n## Departures\n\nWhere kgadvise departs on purpose from a seed (KG, CE) or from kgkit's behaviour, \
         and why; each rule's own section says the same.\n\n",
    );
    for r in rules {
        let said: Vec<&str> = r
            .what
            .split_inclusive(". ")
            .map(str::trim)
            .filter(|s| {
                let s = s.to_ascii_lowercase();
                [
                    "departs from",
                    "departure from kgkit",
                    "departure from the seed",
                ]
                .iter()
                .any(|p| s.contains(p))
            })
            .collect();
        if !said.is_empty() {
            out.push_str(&format!(
                "- [{}](#{}) {}: {}\n",
                r.id,
                r.id.to_ascii_lowercase(),
                r.title,
                said.join(" ")
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_explains_in_fixed_sections() {
        for r in rulebook().rules.iter() {
            let e = explain_id(&r.id).unwrap();
            for section in [
                "What it checks",
                "Why it matters",
                "Example",
                "Fix",
                "Thresholds",
                "Source",
            ] {
                let prose = ["What it checks", "Why it matters", "Example"].contains(&section);
                assert_eq!(
                    e.doc.contains(&format!("### {section}")),
                    RULE_PROSE || !prose,
                    "{} and {section}",
                    r.id
                );
            }
        }
    }

    #[test]
    #[cfg(feature = "rule-prose")]
    fn the_prose_file_gives_back_every_rules_prose() {
        let file: serde_json::Value = serde_json::from_str(&rules_prose_json()).unwrap();
        assert_eq!(
            file.as_object().unwrap().len(),
            rulebook().rules.len(),
            "one entry per rule"
        );
        for r in rulebook().rules.iter() {
            let prose = RuleProse::of(r);
            assert!(!prose.what.is_empty() && !prose.why.is_empty() && !prose.example.is_empty());
            assert_eq!(prose_of(&file, &r.id), Some(prose), "{}", r.id);
            // The page's doc is the prose's sections, then what the wasm holds.
            assert!(render_rule_doc(r).starts_with(&prose_markdown(&prose)));
        }
        assert_eq!(prose_of(&file, "KX999"), None);
        let partial = serde_json::json!({"KH001": {"what": "w", "why": "y"}});
        assert_eq!(prose_of(&partial, "KH001"), None, "a section missing");
    }

    #[test]
    fn every_entry_explains() {
        for (id, _) in rulebook().ids() {
            let e = explain_id(id).unwrap();
            assert!(!e.title.is_empty() && !e.doc.is_empty(), "{id}");
        }
    }

    fn clock() -> DateTime<Utc> {
        "2026-11-30T00:00:00Z".parse().unwrap()
    }

    fn request(id: &str) -> ExplainRequest {
        ExplainRequest {
            id: Some(id.to_string()),
            ..ExplainRequest::default()
        }
    }

    #[test]
    fn explain_is_case_insensitive_for_codes_and_suggests() {
        match explain(&request("kh001"), clock()).unwrap() {
            ExplainReport::Entry(e) => assert_eq!(e.rule, "KH001"),
            other => panic!("{other:?}"),
        }
        assert!(suggestions("bf16.t4x2").contains(&"matrix.bf16.t4x2".to_string()));
        let e = explain(&request("bf16.t4x2"), clock()).unwrap_err();
        assert_eq!(e.field, "id");
        assert!(
            e.message.contains("did you mean: ") && e.message.contains("matrix.bf16.t4x2"),
            "{e}"
        );
        let e = explain(&request("zzz"), clock()).unwrap_err();
        assert!(
            e.message
                .contains("unknown rule `zzz`; expected a rule code like KH001"),
            "{e}"
        );
        assert_eq!(
            explain(&ExplainRequest::default(), clock())
                .unwrap_err()
                .field,
            "id"
        );
    }

    #[test]
    fn list_and_markdown_and_the_checks_every_request_has() {
        let list = ExplainRequest {
            list: true,
            ..ExplainRequest::default()
        };
        match explain(&list, clock()).unwrap() {
            ExplainReport::List(l) => assert_eq!(l.rules.len(), rulebook().ids().count()),
            other => panic!("{other:?}"),
        }
        let markdown = ExplainRequest {
            all_markdown: true,
            list: true,
            ..ExplainRequest::default()
        };
        match explain(&markdown, clock()).unwrap() {
            ExplainReport::Markdown(m) => assert_eq!(m.markdown, render_rules_markdown()),
            other => panic!("{other:?}"),
        }
        let bad_now = ExplainRequest {
            now: Some("soon".into()),
            ..request("KH001")
        };
        assert_eq!(explain(&bad_now, clock()).unwrap_err().field, "now");
        let bad_set = ExplainRequest {
            set: Overrides(vec!["nope=1".into()]),
            ..request("KH001")
        };
        assert_eq!(explain(&bad_set, clock()).unwrap_err().field, "set");
    }

    #[test]
    fn a_threshold_section_names_its_values() {
        let e = explain_id("KH004").unwrap();
        assert!(
            e.doc.contains("threshold.fact-stale-days` = 120 days"),
            "{}",
            e.doc
        );
        assert!(
            e.doc.contains("(stated by its source: spec rules.md"),
            "{}",
            e.doc
        );
        let ours = explain_id("threshold.quota.live-minutes").unwrap();
        assert!(
            ours.doc
                .contains("(kgadvise's own number: no source states one;"),
            "{}",
            ours.doc
        );
    }

    #[test]
    fn a_note_explains_with_its_answers_and_facts_and_is_in_the_markdown() {
        let e = explain_id("note.working-dir-size").unwrap();
        assert_eq!(e.kind, "note");
        assert!(
            e.doc
                .contains("Shown with: domain.llm-finetune, domain.inference."),
            "{}",
            e.doc
        );
        assert!(
            e.doc.contains("`fact.kaggle.working-gb` = 20 GB"),
            "{}",
            e.doc
        );
        let md = render_rules_markdown();
        assert!(md.contains("\n### note.preprocess-off-quota\n"), "{md}");
    }
}
