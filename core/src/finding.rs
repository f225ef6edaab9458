//! The finding: one piece of advice, shared by every advisor.

use serde::{Deserialize, Serialize};

/// How much a finding matters (defined with the rules schema: rule docs carry one).
pub use crate::rulebook::Severity;

/// `{rule, severity, title, evidence, fix}`: the contract of every answer (spec §13).
/// `rule` is a stable ID that `kgadvise explain` documents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub rule: String,
    pub severity: Severity,
    pub title: String,
    pub evidence: String,
    pub fix: String,
}

impl Finding {
    /// A finding for a documented rule: title, severity and fix default to the rule's documentation.
    /// An unknown ID is a programming error caught by the registry tests, so it degrades to the ID itself.
    pub fn from_rule(rule_id: &str, evidence: impl Into<String>) -> Finding {
        match crate::rulebook().rule(rule_id) {
            Some(doc) => Finding {
                rule: doc.id.to_string(),
                severity: doc.severity,
                title: doc.title.to_string(),
                evidence: evidence.into(),
                fix: doc.fix.to_string(),
            },
            None => Finding {
                rule: rule_id.to_string(),
                severity: Severity::Info,
                title: rule_id.to_string(),
                evidence: evidence.into(),
                fix: String::new(),
            },
        }
    }

    pub fn with_title(mut self, title: impl Into<String>) -> Finding {
        self.title = title.into();
        self
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
