//! The finding: one piece of advice, shared by every advisor.

use serde::{Deserialize, Serialize};

use crate::rulebook::ids::RuleId;

/// How much a finding matters (defined with the rules schema: rule docs carry one).
pub use crate::rulebook::Severity;

/// `{rule, severity, title, evidence, fix}`: the contract of every answer (spec §13).
/// `rule` is a stable ID that `kgadvise explain` documents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Finding {
    pub rule: String,
    pub severity: Severity,
    pub title: String,
    pub evidence: String,
    pub fix: String,
}

impl Finding {
    /// A finding of a documented rule: title, severity and fix come from the rule's doc (`RuleId`s are
    /// generated from the rule book, so the doc exists).
    pub fn from_rule(rule: RuleId, evidence: impl Into<String>) -> Finding {
        let evidence = evidence.into();
        match crate::rulebook().rule(rule.as_str()) {
            Some(doc) => Finding {
                rule: doc.id.to_string(),
                severity: doc.severity,
                title: doc.title.to_string(),
                evidence,
                fix: doc.fix.to_string(),
            },
            None => Finding {
                rule: rule.as_str().to_string(),
                severity: Severity::Info,
                title: rule.as_str().to_string(),
                evidence,
                fix: String::new(),
            },
        }
    }

    pub fn with_fix(mut self, fix: impl Into<String>) -> Finding {
        self.fix = fix.into();
        self
    }

    pub fn with_severity(mut self, severity: Severity) -> Finding {
        self.severity = severity;
        self
    }
}

/// True when any finding is an error (CLI exit code 1).
pub fn has_errors(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.severity == Severity::Error)
}

/// Findings as text, one block each in the order given: `severity[RULE]: title`, then the evidence and
/// the fix when there are any. The CLI's text output and the rule snapshots show findings this way.
pub fn render_text(findings: &[Finding]) -> String {
    let mut s = String::new();
    for f in findings {
        s.push_str(f.severity.as_str());
        s.push('[');
        s.push_str(&f.rule);
        s.push_str("]: ");
        s.push_str(&f.title);
        s.push('\n');
        if !f.evidence.is_empty() {
            s.push_str("  evidence: ");
            s.push_str(&f.evidence);
            s.push('\n');
        }
        if !f.fix.is_empty() {
            s.push_str("  fix: ");
            s.push_str(&f.fix);
            s.push('\n');
        }
    }
    s
}
