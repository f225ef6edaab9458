//! What every answer shares: its schema name, the rule IDs that produced it, and its findings.

use chrono::NaiveDate;

use crate::rulebook::finding::Finding;
use crate::rulebook::ids::{EntryId, RuleId, rule, threshold};
use crate::rulebook::{Thresholds, rulebook};

/// Implemented by every report type so the CLI can pick the exit code and the web page can list findings
/// the same way for every advisor.
pub trait Report: serde::Serialize {
    fn findings(&self) -> &[Finding];

    /// The answer as text, what the CLI prints without `--json`: every sentence, heading and table of
    /// it is core's, so every surface that shows text says the same.
    fn text(&self) -> String;
}

/// The findings of one answer and the rule-book entries it relied on. Rules push into it; [`finish`]
/// is the closing block every advisor shares.
///
/// [`finish`]: Findings::finish
#[derive(Debug, Default)]
pub struct Findings {
    findings: Vec<Finding>,
    used: Vec<EntryId>,
}

/// What [`Findings::finish`] gives a report: every rule and entry the answer used (sorted, once each)
/// and its findings.
#[derive(Debug, Clone, PartialEq)]
pub struct Closed {
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Findings {
    pub fn new() -> Findings {
        Findings::default()
    }

    /// Adds a finding of `rule`: title, severity and fix from its doc.
    pub fn add(&mut self, rule: RuleId, evidence: impl Into<String>) {
        self.push(Finding::from_rule(rule, evidence));
    }

    /// Adds a finding built with [`Finding::from_rule`] and changed (its fix or severity; its title is always its rule's).
    pub fn push(&mut self, finding: Finding) {
        self.findings.push(finding);
    }

    /// Records an entry the answer relied on (a threshold, a fact, a matrix cell, a rule that did not
    /// fire but was checked): listed in the report's `rules` and checked for staleness.
    pub fn uses(&mut self, id: impl Into<EntryId>) {
        let id = id.into();
        if !self.used.contains(&id) {
            self.used.push(id);
        }
    }

    /// Records an entry the answer relied on that was found at run time (a matrix cell, a shape, a
    /// domain looked up from the request): like [`uses`](Findings::uses) for an ID taken from the book
    /// itself. An ID the book does not have names nothing to list or date, and is left out.
    pub fn uses_entry(&mut self, id: &str) {
        if let Some(id) = EntryId::of_book(id) {
            self.uses(id);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.findings.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter()
    }

    /// True when a finding of `rule` was added.
    pub fn has(&self, rule: RuleId) -> bool {
        self.findings.iter().any(|f| f.rule == rule.as_str())
    }

    /// The closing block: findings in order of severity (errors first; the order of adding kept within a
    /// severity), the rules list (every finding's rule and every entry used, sorted, once each), and one
    /// KH004 finding last when an entry used is older than the stale-fact limit.
    pub fn finish(self, today: NaiveDate, thresholds: &Thresholds) -> Closed {
        let Findings { mut findings, used } = self;
        crate::text::sort::sort_by_key(&mut findings, |f| f.severity);
        let mut rules: Vec<String> = findings
            .iter()
            .map(|f| f.rule.clone())
            .chain(used.iter().map(|id| id.as_str().to_string()))
            .collect();
        crate::text::sort::sort(&mut rules);
        rules.dedup();
        findings.extend(stale_findings_for(&rules, today, thresholds));
        Closed { rules, findings }
    }
}

/// Findings for dated entries (facts, `[[allowed]]` values, matrix cells, shapes...) older than `threshold.fact-stale-days` (spec: "answers built on a fact older
/// than 120 days say so"). `used` lists (entry ID, as-of date); one finding lists every stale entry.
pub fn stale_fact_findings(
    used: &[(&str, NaiveDate)],
    today: NaiveDate,
    thresholds: &Thresholds,
) -> Vec<Finding> {
    let limit = thresholds.get(threshold::FACT_STALE_DAYS);
    let mut stale: Vec<String> = used
        .iter()
        .filter(|(_, as_of)| ((today - *as_of).num_days() as f64) > limit)
        .map(|(id, as_of)| {
            format!(
                "{id} (as of {as_of}, {} days old)",
                (today - *as_of).num_days()
            )
        })
        .collect();
    crate::text::sort::sort(&mut stale);
    stale.dedup();
    if stale.is_empty() {
        return Vec::new();
    }
    vec![Finding::from_rule(
        rule::KH004,
        format!(
            "older than {} days on {today}: {}",
            crate::text::number::shortest(limit),
            stale.join("; ")
        ),
    )]
}

/// The as-of date of any rules entry, for [`stale_fact_findings`].
pub fn as_of_of(id: &str) -> Option<NaiveDate> {
    let b = rulebook();
    b.cells
        .iter()
        .map(|e| (&e.id, e.as_of))
        .chain(b.platforms.iter().map(|e| (&e.id, e.as_of)))
        .chain(b.shapes.iter().map(|e| (&e.id, e.as_of)))
        .chain(b.domains.iter().map(|e| (&e.id, e.as_of)))
        .chain(b.templates.iter().map(|e| (&e.id, e.as_of)))
        .chain(b.worth_gpu.iter().map(|e| (&e.id, e.as_of)))
        .chain(b.rules.iter().map(|e| (&e.id, e.as_of)))
        .chain(b.thresholds.iter().map(|e| (&e.id, e.as_of)))
        .chain(b.facts.iter().map(|e| (&e.id, e.as_of)))
        .chain(b.allowed.iter().map(|e| (&e.id, e.as_of)))
        .chain(b.capabilities.iter().map(|e| (&e.id, e.as_of)))
        .chain(b.notes.iter().map(|e| (&e.id, e.as_of)))
        .find(|(eid, _)| **eid == id)
        .map(|(_, d)| d.date())
}

/// Staleness findings for a list of entry IDs an answer used.
pub fn stale_findings_for(
    ids: &[String],
    today: NaiveDate,
    thresholds: &Thresholds,
) -> Vec<Finding> {
    let dated: Vec<(&str, NaiveDate)> = ids
        .iter()
        .filter_map(|id| as_of_of(id).map(|d| (id.as_str(), d)))
        .collect();
    stale_fact_findings(&dated, today, thresholds)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn a_fact_older_than_the_limit_is_flagged() {
        let t = Thresholds::defaults();
        let f = stale_fact_findings(
            &[("matrix.bf16.t4x2", day("2026-11-11"))],
            day("2027-06-01"),
            &t,
        );
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].rule, "KH004");
        assert!(
            f[0].evidence.contains("matrix.bf16.t4x2"),
            "{}",
            f[0].evidence
        );
    }

    #[test]
    fn a_recent_fact_is_not_flagged() {
        let t = Thresholds::defaults();
        assert!(stale_fact_findings(&[("x", day("2026-11-11"))], day("2026-12-01"), &t).is_empty());
        // exactly at the limit is not older than it
        assert!(stale_fact_findings(&[("x", day("2026-01-01"))], day("2026-05-01"), &t).is_empty());
    }

    #[test]
    fn a_stale_allowed_entry_is_flagged() {
        let t = Thresholds::defaults();
        let as_of = as_of_of("allowed.language").expect("allowed entries carry an as-of date");
        let f = stale_findings_for(&["allowed.language".to_string()], day("2099-01-01"), &t);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].rule, "KH004");
        assert!(
            f[0].evidence
                .contains(&format!("allowed.language (as of {as_of}")),
            "{}",
            f[0].evidence
        );
    }
}
