//! `kgadvise fidelity FILE`: do cheap screens rank ideas the way full cross-validation does? (KG §3.3
//! "backlog fidelity"; kgadvise issue 8.)
//!
//! Over the ideas that have both a `screen_gain` and a `full_gain`: sign agreement = share of ideas with
//! sign(screen) == sign(full) (0 is its own sign); Spearman = Pearson correlation of the average ranks
//! (ties share their mean rank, as scipy.stats.spearmanr). Judged only with ≥ 3 ideas.

use crate::rulebook::ids::{ThresholdId, rule, threshold};
use serde::Serialize;
use statrs::statistics::{Data, OrderStatistics, RankTieBreaker, Statistics};

use super::table::{IdeaRow, InputError, read_ideas};
use crate::rulebook::Thresholds;
use crate::rulebook::finding::Finding;
use crate::rulebook::report::Report;
use crate::text::number::{fixed, shortest};

pub const FIDELITY_SCHEMA: &str = "kgadvise.fidelity/1";
pub const T_MIN_IDEAS: ThresholdId = threshold::STATS_FIDELITY_MIN_IDEAS;
pub const T_SIGN: ThresholdId = threshold::STATS_FIDELITY_SIGN;
pub const T_SPEARMAN: ThresholdId = threshold::STATS_FIDELITY_SPEARMAN;

#[derive(Debug, Clone, Serialize)]
pub struct IdeaOut {
    pub idea: String,
    pub screen_gain: f64,
    pub full_gain: f64,
    pub same_sign: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct FidelityReport {
    pub schema: &'static str,
    /// Ideas with both gains (the ones judged).
    pub ideas: usize,
    pub sign_agreement: Option<f64>,
    pub spearman: Option<f64>,
    pub rows: Vec<IdeaOut>,
    /// Rows left out (no full gain yet, or not a number), with their line.
    pub skipped: Vec<String>,
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for FidelityReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }
}

fn sign(v: f64) -> i8 {
    if v > 0.0 {
        1
    } else if v < 0.0 {
        -1
    } else {
        0
    }
}

/// Spearman's rank correlation with average ranks for ties; None with fewer than 2 values or when
/// either side is constant (undefined).
pub fn spearman(a: &[f64], b: &[f64]) -> Option<f64> {
    if a.len() != b.len() || a.len() < 2 || a.iter().chain(b).any(|v| !v.is_finite()) {
        return None;
    }
    let ra = Data::new(a.to_vec()).ranks(RankTieBreaker::Average);
    let rb = Data::new(b.to_vec()).ranks(RankTieBreaker::Average);
    let (sa, sb) = ((&ra).std_dev(), (&rb).std_dev());
    if !(sa > 0.0 && sb > 0.0) {
        return None;
    }
    let r = (&ra).covariance(&rb) / (sa * sb);
    Some(r.clamp(-1.0, 1.0))
}

pub fn fidelity_of(
    rows: &[IdeaRow],
    skipped: Vec<String>,
    thresholds: &Thresholds,
) -> FidelityReport {
    let n = rows.len();
    let min = thresholds.get(T_MIN_IDEAS);
    let out: Vec<IdeaOut> = rows
        .iter()
        .map(|r| IdeaOut {
            idea: r.idea.clone(),
            screen_gain: r.screen_gain,
            full_gain: r.full_gain,
            same_sign: sign(r.screen_gain) == sign(r.full_gain),
        })
        .collect();
    let mut rules = vec![T_MIN_IDEAS.to_string()];
    let mut findings = Vec::new();
    let enough = n as f64 >= min && n > 0;
    let (sign_agreement, rho) = if enough {
        let s: Vec<f64> = rows.iter().map(|r| r.screen_gain).collect();
        let f: Vec<f64> = rows.iter().map(|r| r.full_gain).collect();
        (
            Some(out.iter().filter(|o| o.same_sign).count() as f64 / n as f64),
            spearman(&s, &f),
        )
    } else {
        (None, None)
    };
    if !enough {
        findings.push(Finding::from_rule(
            rule::KS022,
            format!("{n} idea(s) with both gains < {}", shortest(min)),
        ));
        rules.push(rule::KS022.into());
    } else {
        rules.push(T_SIGN.into());
        rules.push(T_SPEARMAN.into());
        let (sign_min, rho_min) = (thresholds.get(T_SIGN), thresholds.get(T_SPEARMAN));
        let agree = sign_agreement.unwrap_or(0.0);
        let disagree: Vec<&str> = out
            .iter()
            .filter(|o| !o.same_sign)
            .map(|o| o.idea.as_str())
            .collect();
        if agree < sign_min {
            findings.push(Finding::from_rule(
                rule::KS020,
                format!(
                    "sign agreement {} < {} over {n} ideas (sign differs for: {})",
                    fixed(agree, 2),
                    shortest(sign_min),
                    disagree.join(", ")
                ),
            ));
            rules.push(rule::KS020.into());
        }
        match rho {
            Some(r) if r < rho_min => {
                findings.push(Finding::from_rule(
                    rule::KS021,
                    format!(
                        "Spearman {} < {} over {n} ideas",
                        fixed(r, 2),
                        shortest(rho_min)
                    ),
                ));
                rules.push(rule::KS021.into());
            }
            None => {
                findings.push(
                    Finding::from_rule(rule::KS021, format!("Spearman undefined over {n} ideas: one side gives every idea the same gain"))
                        .with_title("Screens cannot rank these ideas"),
                );
                rules.push(rule::KS021.into());
            }
            _ => {}
        }
        if agree >= sign_min && rho.is_some_and(|r| r >= rho_min) {
            findings.push(Finding::from_rule(
                rule::KS023,
                format!(
                    "sign agreement {} ≥ {}, Spearman {} ≥ {} over {n} ideas",
                    fixed(agree, 2),
                    shortest(sign_min),
                    fixed(rho.unwrap_or(0.0), 2),
                    shortest(rho_min)
                ),
            ));
            rules.push(rule::KS023.into());
        }
    }
    FidelityReport {
        schema: FIDELITY_SCHEMA,
        ideas: n,
        sign_agreement,
        spearman: rho,
        rows: out,
        skipped,
        rules,
        findings,
    }
}

/// `kgadvise fidelity FILE` on the CSV text.
pub fn fidelity(
    text: &str,
    name: &str,
    thresholds: &Thresholds,
) -> Result<FidelityReport, InputError> {
    let (rows, skipped) = read_ideas(text, name)?;
    Ok(fidelity_of(&rows, skipped, thresholds))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(v: &[(f64, f64)]) -> Vec<IdeaRow> {
        v.iter()
            .enumerate()
            .map(|(i, &(s, f))| IdeaRow {
                idea: format!("i{i}"),
                screen_gain: s,
                full_gain: f,
            })
            .collect()
    }

    fn rules_of(r: &FidelityReport) -> Vec<&str> {
        r.findings.iter().map(|f| f.rule.as_str()).collect()
    }

    #[test]
    fn spearman_with_ties_matches_scipy() {
        // scipy.stats.spearmanr([1, 2, 2, 3], [1, 3, 2, 4]).statistic = 0.9486832980505138
        let r = spearman(&[1.0, 2.0, 2.0, 3.0], &[1.0, 3.0, 2.0, 4.0]).unwrap();
        assert!((r - 0.9486832980505138).abs() < 1e-12, "{r}");
        assert_eq!(spearman(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]), None);
        assert!((spearman(&[3.0, 2.0, 1.0], &[1.0, 2.0, 3.0]).unwrap() + 1.0).abs() < 1e-12);
    }

    #[test]
    fn thresholds_edges() {
        let t = Thresholds::defaults();
        // 7 of 10 agree exactly: not below 0.7 → no KS020; ranks perfect
        let mut v: Vec<(f64, f64)> = (1..=7).map(|i| (i as f64, i as f64)).collect();
        v.extend([(-1.0, 8.0), (-2.0, 9.0), (-3.0, 10.0)]);
        let r = fidelity_of(&rows(&v), vec![], &t);
        assert_eq!(r.sign_agreement, Some(0.7));
        assert!(!rules_of(&r).contains(&"KS020"), "{:?}", rules_of(&r));
        // 2 of 3 agree: 0.67 < 0.7
        let r = fidelity_of(&rows(&[(1.0, 1.0), (2.0, 2.0), (3.0, -3.0)]), vec![], &t);
        assert!(rules_of(&r).contains(&"KS020"));
        // reversed ranks: Spearman -1 < 0.5 with every sign agreeing
        let r = fidelity_of(&rows(&[(1.0, 3.0), (2.0, 2.0), (3.0, 1.0)]), vec![], &t);
        assert_eq!(rules_of(&r), vec!["KS021"]);
        // good screens
        let r = fidelity_of(&rows(&[(1.0, 1.5), (2.0, 2.5), (-3.0, -1.0)]), vec![], &t);
        assert_eq!(rules_of(&r), vec!["KS023"]);
        // too few ideas: no statistics
        let r = fidelity_of(&rows(&[(1.0, -1.0), (2.0, 2.0)]), vec![], &t);
        assert_eq!((r.sign_agreement, r.spearman), (None, None));
        assert_eq!(rules_of(&r), vec!["KS022"]);
        // zero is its own sign
        let r = fidelity_of(&rows(&[(0.0, 0.0), (0.0, 1.0), (1.0, 1.0)]), vec![], &t);
        assert!((r.sign_agreement.unwrap() - 2.0 / 3.0).abs() < 1e-12);
    }
}
