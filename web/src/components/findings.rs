//! Findings, rendered the same way for every advisor: fix first (errors, then warnings, then info), each
//! with its evidence, its fix and a link to its rule's documentation.

use kgadvise_core::{Finding, Severity};
use leptos::prelude::*;

use super::RuleLink;
use super::doc_text::inline;

/// The findings in display order: errors first, then warnings, then info (stable within a severity).
pub fn fix_first(findings: &[Finding]) -> Vec<Finding> {
    let mut out = findings.to_vec();
    kgadvise_core::text::sort::sort_by_key(&mut out, |f| f.severity);
    out
}

fn severity_class(s: Severity) -> &'static str {
    match s {
        Severity::Error => "finding sev-error",
        Severity::Warning => "finding sev-warning",
        Severity::Info => "finding sev-info",
    }
}

#[component]
pub fn FindingList(findings: Vec<Finding>) -> impl IntoView {
    if findings.is_empty() {
        return view! { <p class="no-findings">"No findings."</p> }.into_any();
    }
    let items = fix_first(&findings)
        .into_iter()
        .map(|f| {
            let fix = (!f.fix.is_empty()).then(|| {
                view! {
                    <p class="fix">
                        <span class="label">"Fix: "</span>
                        {f.fix.clone()}
                    </p>
                }
            });
            view! {
                <li class=severity_class(f.severity)>
                    <p class="finding-head">
                        <span class="badge">{f.severity.as_str()}</span>
                        " "
                        <strong>{inline(&f.title)}</strong>
                        " "
                        <RuleLink id=f.rule.clone() />
                    </p>
                    <p class="evidence">{f.evidence.clone()}</p>
                    {fix}
                </li>
            }
        })
        .collect_view();
    view! {
        <ul class="findings" aria-label="Findings">
            {items}
        </ul>
    }
    .into_any()
}

/// The rules and data entries an answer used, each linking to its documentation.
#[component]
pub fn RulesUsed(rules: Vec<String>) -> impl IntoView {
    let mut rules = rules;
    rules.dedup();
    let count = rules.len();
    view! {
        <details class="rules-used">
            <summary>{format!("Based on {count} rules entries")}</summary>
            <ul>
                {rules.into_iter().map(|id| view! { <li><RuleLink id=id /></li> }).collect_view()}
            </ul>
        </details>
    }
}
