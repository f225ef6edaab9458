//! The rule registry: `kgadvise explain ID` for finding rules (KH001...) and data entries
//! (`matrix.bf16.t4x2`, `shape.TpuV5E8`, `threshold.*`, `fact.*`). Also renders docs/rules.md.

use serde::Serialize;

use crate::rulebook::finding::Finding;
use crate::rulebook::report::Report;
use crate::rulebook::{RuleDoc, rulebook};
use crate::text::number::shortest;

pub const EXPLAIN_SCHEMA: &str = "kgadvise.explain/1";

#[derive(Debug, Clone, Serialize)]
pub struct Explanation {
    pub schema: &'static str,
    pub rule: String,
    pub kind: String,
    pub title: String,
    /// The documentation as Markdown in fixed sections.
    pub doc: String,
    pub source: String,
    pub as_of: chrono::NaiveDate,
    pub findings: Vec<Finding>,
}

impl Report for Explanation {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }
}

/// An ID the registry does not know, with close matches.
#[derive(Debug, Clone)]
pub struct UnknownRule {
    pub given: String,
    pub suggestions: Vec<String>,
}

impl std::fmt::Display for UnknownRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown rule `{}`", self.given)?;
        if self.suggestions.is_empty() {
            write!(
                f,
                "; expected a rule code like KH001 or an entry like matrix.bf16.t4x2 (kgadvise explain --list, docs/rules.md)"
            )
        } else {
            write!(f, "; did you mean: {}", self.suggestions.join(", "))
        }
    }
}

impl std::error::Error for UnknownRule {}

/// The Markdown documentation of one finding rule, in the fixed sections.
pub fn render_rule_doc(r: &RuleDoc) -> String {
    let thresholds = if r.thresholds.is_empty() {
        "none".to_string()
    } else {
        r.thresholds
            .iter()
            .map(|t| describe_entry(t))
            .collect::<Vec<_>>()
            .join("\n- ")
    };
    let thresholds = if r.thresholds.is_empty() {
        thresholds
    } else {
        format!("- {thresholds}")
    };
    format!(
        "### What it checks\n{}\n\n### Why it matters\n{}\n\n### Example\n{}\n\n### Fix\n{}\n\n### Thresholds\n{}\n\n### Source\n{} (as of {})\n",
        r.what, r.why, r.example, r.fix, thresholds, r.source, r.as_of
    )
}

/// One line describing a data entry (threshold, fact, cell...) for the Thresholds section.
fn describe_entry(id: &str) -> String {
    let b = rulebook();
    if let Some(t) = b.threshold(id) {
        let ours = if t.kgadvise {
            " (kgadvise's choice; override with --set)"
        } else {
            ""
        };
        return format!(
            "`{}` = {} {}: {}{}",
            t.id,
            shortest(t.value),
            t.unit,
            t.what,
            ours
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
        return format!(
            "`{}`: CPU below {} rows, GPU from {} rows{}",
            w.id,
            w.cpu_below_rows,
            w.gpu_from_rows,
            w.gpu_from_refits
                .map(|n| format!(", or {n}+ refits"))
                .unwrap_or_default()
        );
    }
    format!("`{id}`")
}

fn explain_entry(id: &str) -> Option<Explanation> {
    let b = rulebook();
    let kind = b.kind_of(id)?.to_string();
    let (title, doc, source, as_of) = if let Some(c) = b.cells.iter().find(|c| c.id == id) {
        let cap = b
            .capability(&c.capability)
            .map(|x| x.name.as_ref())
            .unwrap_or("");
        let plat = b
            .platform(&c.platform)
            .map(|x| x.name.as_ref())
            .unwrap_or("");
        (
            format!("{cap} on {plat}: {}", c.support.as_str()),
            format!(
                "**{}** — {}\n\nSupport values: yes, no, partial (yes under the condition), n/a (does not apply).",
                c.support.as_str(),
                c.note
            ),
            c.source.to_string(),
            c.as_of.date(),
        )
    } else if let Some(p) = b.platforms.iter().find(|p| p.id == id) {
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
        (
            p.name.to_string(),
            doc,
            p.source.to_string(),
            p.as_of.date(),
        )
    } else if let Some(s) = b.shapes.iter().find(|s| s.id == id) {
        let stored = s
            .stored_as
            .as_ref()
            .map(|x| format!(" Stored as `{x}`."))
            .unwrap_or_default();
        (
            format!("machine_shape {}: {}", s.name, s.status.as_str()),
            format!("{}{}", s.what, stored),
            s.source.to_string(),
            s.as_of.date(),
        )
    } else if let Some(t) = b.thresholds.iter().find(|t| t.id == id) {
        (
            t.what.to_string(),
            describe_entry(id),
            t.source.to_string(),
            t.as_of.date(),
        )
    } else if let Some(f) = b.facts.iter().find(|f| f.id == id) {
        (
            f.what.to_string(),
            describe_entry(id),
            f.source.to_string(),
            f.as_of.date(),
        )
    } else if let Some(d) = b.domains.iter().find(|d| d.id == id) {
        let list = |items: &[crate::rulebook::DefaultItem]| {
            items
                .iter()
                .map(|i| format!("- {}", i.text))
                .collect::<Vec<_>>()
                .join("\n")
        };
        (
            d.name.to_string(),
            format!(
                "### Always\n{}\n\n### When measured, or when the data is large\n{}",
                list(&d.always),
                list(&d.when_measured)
            ),
            d.source.to_string(),
            d.as_of.date(),
        )
    } else if let Some(t) = b.templates.iter().find(|t| t.id == id) {
        (
            t.file.to_string(),
            format!(
                "On by default: {}.\nOpt-in: {}.\nWhy not default: {}",
                t.on_by_default.join(", "),
                t.opt_in.join(", "),
                if t.why_not_default.is_empty() {
                    "-"
                } else {
                    &t.why_not_default
                }
            ),
            t.source.to_string(),
            t.as_of.date(),
        )
    } else if let Some(w) = b.worth_gpu.iter().find(|w| w.id == id) {
        (
            w.name.to_string(),
            describe_entry(id),
            w.source.to_string(),
            w.as_of.date(),
        )
    } else if let Some(a) = b.allowed.iter().find(|a| a.id == id) {
        (
            a.what.to_string(),
            describe_entry(id),
            a.source.to_string(),
            a.as_of.date(),
        )
    } else if let Some(c) = b.capabilities.iter().find(|c| c.id == id) {
        (
            c.name.to_string(),
            format!("Identifier `{}`.", c.key),
            c.source.to_string(),
            c.as_of.date(),
        )
    } else {
        return None;
    };
    Some(Explanation {
        schema: EXPLAIN_SCHEMA,
        rule: id.to_string(),
        kind,
        title,
        doc,
        source,
        as_of,
        findings: vec![],
    })
}

/// `kgadvise explain ID`.
pub fn explain(id: &str) -> Result<Explanation, UnknownRule> {
    let id = id.trim();
    let b = rulebook();
    if let Some(r) = b.rule(id) {
        return Ok(Explanation {
            schema: EXPLAIN_SCHEMA,
            rule: r.id.to_string(),
            kind: "rule".into(),
            title: r.title.to_string(),
            doc: render_rule_doc(r),
            source: r.source.to_string(),
            as_of: r.as_of.date(),
            findings: vec![],
        });
    }
    if let Some(e) = explain_entry(id) {
        return Ok(e);
    }
    let lower = id.to_ascii_lowercase();
    let mut suggestions: Vec<String> = b
        .ids()
        .map(|(x, _)| x.to_string())
        .filter(|x| {
            let xl = x.to_ascii_lowercase();
            !lower.is_empty() && (xl.contains(&lower) || lower.contains(&xl))
        })
        .take(8)
        .collect();
    crate::text::sort::sort(&mut suggestions);
    Err(UnknownRule {
        given: id.to_string(),
        suggestions,
    })
}

/// docs/rules.md: every finding rule's documentation, generated from the rules data.
pub fn render_rules_markdown() -> String {
    let mut rules: Vec<&RuleDoc> = rulebook().rules.iter().collect();
    crate::text::sort::sort_by(&mut rules, |a, b| a.id.cmp(&b.id));
    let mut out = String::from(
        "# kgadvise rules\n\nGenerated from `rules/*.toml` by `kgadvise explain --all-markdown`; do not edit by hand \
         (a test fails when this file is stale). `kgadvise explain ID` prints one entry.\n\n",
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
    for r in rules {
        out.push_str(&format!(
            "\n## {}\n\n**{}** — severity {}\n\n{}",
            r.id,
            r.title,
            r.severity,
            render_rule_doc(r)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_explains_in_fixed_sections() {
        for r in rulebook().rules.iter() {
            let e = explain(&r.id).unwrap();
            for section in [
                "What it checks",
                "Why it matters",
                "Example",
                "Fix",
                "Thresholds",
                "Source",
            ] {
                assert!(
                    e.doc.contains(&format!("### {section}")),
                    "{} lacks {section}",
                    r.id
                );
            }
        }
    }

    #[test]
    fn every_entry_explains() {
        for (id, _) in rulebook().ids() {
            let e = explain(id).unwrap();
            assert!(!e.title.is_empty() && !e.doc.is_empty(), "{id}");
        }
    }

    #[test]
    fn explain_is_case_insensitive_for_codes_and_suggests() {
        assert_eq!(explain("kh001").unwrap().rule, "KH001");
        let e = explain("bf16.t4x2").unwrap_err();
        assert!(
            e.suggestions.contains(&"matrix.bf16.t4x2".to_string()),
            "{e}"
        );
        let e = explain("zzz").unwrap_err();
        assert!(e.to_string().contains("expected a rule code like KH001"));
    }

    #[test]
    fn a_threshold_section_names_its_values() {
        let e = explain("KH004").unwrap();
        assert!(
            e.doc.contains("threshold.fact-stale-days` = 120 days"),
            "{}",
            e.doc
        );
    }
}
