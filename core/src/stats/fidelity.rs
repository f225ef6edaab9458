//! `kgadvise fidelity FILE`: do cheap screens rank ideas the way full cross-validation does? (KG §3.3
//! "backlog fidelity"; kgadvise issue 8.)
//!
//! Over the ideas that have both a `screen_gain` and a `full_gain`: sign agreement = share of ideas with
//! sign(screen) == sign(full) (0 is its own sign); Spearman = Pearson correlation of the average ranks
//! (ties share their mean rank, as scipy.stats.spearmanr). Judged only with ≥ 3 ideas.
//!
//! [`fidelity`] is the entry point: a [`FidelityRequest`] in, a [`FidelityReport`] out; the rules are one
//! function each over the ideas read (`FidelityRun`).

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use statrs::statistics::{Data, OrderStatistics, RankTieBreaker, Statistics};

use super::table::{IdeaRow, read_ideas};
use crate::request::{Overrides, RequestError, now_of};
use crate::rulebook::Thresholds;
use crate::rulebook::finding::Finding;
use crate::rulebook::ids::{rule, threshold};
use crate::rulebook::report::{Findings, Report};
use crate::text::number::{fixed, shortest};

pub const FIDELITY_SCHEMA: &str = "kgadvise.fidelity/1";

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct IdeaOut {
    pub idea: String,
    pub screen_gain: f64,
    pub full_gain: f64,
    pub same_sign: bool,
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

    fn text(&self) -> String {
        crate::stats::text::fidelity(self)
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

/// `kgadvise fidelity`: do cheap screens rank ideas the way full cross-validation does?
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct FidelityRequest {
    /// The ideas: CSV text with columns `idea`, `screen_gain`, `full_gain`, one row per idea (rows
    /// without a full gain yet are skipped and listed).
    #[cfg_attr(feature = "schema", schemars(extend("x-required" = true)))]
    pub backlog: String,
    /// The time of the answer (RFC 3339 or a date; default: the caller's clock).
    #[cfg_attr(feature = "schema", schemars(extend("x-time" = true)))]
    pub now: Option<String>,
    /// Threshold overrides.
    pub set: Overrides,
}

/// The ideas with both gains and their statistics: what every fidelity rule reads.
struct FidelityRun {
    ideas: Vec<IdeaOut>,
    /// Whether there are enough ideas to judge (`threshold.stats.fidelity-min-ideas`).
    enough: bool,
    min_ideas: f64,
    sign_agreement: Option<f64>,
    spearman: Option<f64>,
}

impl FidelityRun {
    fn of(rows: &[IdeaRow], thresholds: &Thresholds) -> FidelityRun {
        let n = rows.len();
        let min_ideas = thresholds.get(threshold::STATS_FIDELITY_MIN_IDEAS);
        let ideas: Vec<IdeaOut> = rows
            .iter()
            .map(|r| IdeaOut {
                idea: r.idea.clone(),
                screen_gain: r.screen_gain,
                full_gain: r.full_gain,
                same_sign: sign(r.screen_gain) == sign(r.full_gain),
            })
            .collect();
        let enough = n as f64 >= min_ideas && n > 0;
        let (sign_agreement, spearman) = if enough {
            let s: Vec<f64> = rows.iter().map(|r| r.screen_gain).collect();
            let f: Vec<f64> = rows.iter().map(|r| r.full_gain).collect();
            (
                Some(ideas.iter().filter(|o| o.same_sign).count() as f64 / n as f64),
                spearman(&s, &f),
            )
        } else {
            (None, None)
        };
        FidelityRun {
            ideas,
            enough,
            min_ideas,
            sign_agreement,
            spearman,
        }
    }

    fn n(&self) -> usize {
        self.ideas.len()
    }
}

/// KS022: too few ideas with both gains to judge.
fn too_few_ideas(run: &FidelityRun, out: &mut Findings) {
    out.uses(threshold::STATS_FIDELITY_MIN_IDEAS);
    if !run.enough {
        out.add(
            rule::KS022,
            format!(
                "{} idea(s) with both gains < {}",
                run.n(),
                shortest(run.min_ideas)
            ),
        );
    }
}

/// KS020: screens often get the sign of the gain wrong.
fn sign_disagrees(run: &FidelityRun, thresholds: &Thresholds, out: &mut Findings) {
    let Some(agree) = run.sign_agreement else {
        return;
    };
    out.uses(threshold::STATS_FIDELITY_SIGN);
    let sign_min = thresholds.get(threshold::STATS_FIDELITY_SIGN);
    if agree < sign_min {
        let disagree: Vec<&str> = run
            .ideas
            .iter()
            .filter(|o| !o.same_sign)
            .map(|o| o.idea.as_str())
            .collect();
        out.add(
            rule::KS020,
            format!(
                "sign agreement {} < {} over {} ideas (sign differs for: {})",
                fixed(agree, 2),
                shortest(sign_min),
                run.n(),
                disagree.join(", ")
            ),
        );
    }
}

/// KS021: screens rank ideas differently from full CV (or cannot rank them at all).
fn ranks_differ(run: &FidelityRun, thresholds: &Thresholds, out: &mut Findings) {
    if !run.enough {
        return;
    }
    out.uses(threshold::STATS_FIDELITY_SPEARMAN);
    let rho_min = thresholds.get(threshold::STATS_FIDELITY_SPEARMAN);
    match run.spearman {
        Some(r) if r < rho_min => out.add(
            rule::KS021,
            format!(
                "Spearman {} < {} over {} ideas",
                fixed(r, 2),
                shortest(rho_min),
                run.n()
            ),
        ),
        None => out.push(Finding::from_rule(
            rule::KS050,
            format!(
                "Spearman undefined over {} ideas: one side gives every idea the same gain",
                run.n()
            ),
        )),
        _ => {}
    }
}

/// KS023: screens rank ideas as full CV does.
fn screens_agree(run: &FidelityRun, thresholds: &Thresholds, out: &mut Findings) {
    let (sign_min, rho_min) = (
        thresholds.get(threshold::STATS_FIDELITY_SIGN),
        thresholds.get(threshold::STATS_FIDELITY_SPEARMAN),
    );
    let (Some(agree), Some(rho)) = (run.sign_agreement, run.spearman) else {
        return;
    };
    if agree >= sign_min && rho >= rho_min {
        out.add(
            rule::KS023,
            format!(
                "sign agreement {} ≥ {}, Spearman {} ≥ {} over {} ideas",
                fixed(agree, 2),
                shortest(sign_min),
                fixed(rho, 2),
                shortest(rho_min),
                run.n()
            ),
        );
    }
}

/// The report over ideas already read (`skipped`: the rows left out, with their line).
fn report_of(
    rows: &[IdeaRow],
    skipped: Vec<String>,
    thresholds: &Thresholds,
    today: NaiveDate,
) -> FidelityReport {
    let run = FidelityRun::of(rows, thresholds);
    let mut out = Findings::new();
    too_few_ideas(&run, &mut out);
    sign_disagrees(&run, thresholds, &mut out);
    ranks_differ(&run, thresholds, &mut out);
    screens_agree(&run, thresholds, &mut out);
    let closed = out.finish(today, thresholds);
    FidelityReport {
        schema: FIDELITY_SCHEMA,
        ideas: run.n(),
        sign_agreement: run.sign_agreement,
        spearman: run.spearman,
        rows: run.ideas,
        skipped,
        rules: closed.rules,
        findings: closed.findings,
    }
}

/// `kgadvise fidelity`: sign agreement and rank correlation of screen gains against full-CV gains, with
/// 3 or more ideas. Errors name the request field and what was expected.
pub fn fidelity(
    request: &FidelityRequest,
    clock: DateTime<Utc>,
) -> Result<FidelityReport, RequestError> {
    let now = now_of(request.now.as_deref(), clock)?;
    let thresholds = request.set.thresholds()?;
    let (rows, skipped) = read_ideas(&request.backlog, "backlog")?;
    Ok(report_of(&rows, skipped, &thresholds, now.date_naive()))
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

    fn day() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 12, 1).unwrap()
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
        let r = report_of(&rows(&v), vec![], &t, day());
        assert_eq!(r.sign_agreement, Some(0.7));
        assert!(!rules_of(&r).contains(&"KS020"), "{:?}", rules_of(&r));
        // 2 of 3 agree: 0.67 < 0.7
        let r = report_of(
            &rows(&[(1.0, 1.0), (2.0, 2.0), (3.0, -3.0)]),
            vec![],
            &t,
            day(),
        );
        assert!(rules_of(&r).contains(&"KS020"));
        // reversed ranks: Spearman -1 < 0.5 with every sign agreeing
        let r = report_of(
            &rows(&[(1.0, 3.0), (2.0, 2.0), (3.0, 1.0)]),
            vec![],
            &t,
            day(),
        );
        assert_eq!(rules_of(&r), vec!["KS021"]);
        // good screens
        let r = report_of(
            &rows(&[(1.0, 1.5), (2.0, 2.5), (-3.0, -1.0)]),
            vec![],
            &t,
            day(),
        );
        assert_eq!(rules_of(&r), vec!["KS023"]);
        // too few ideas: no statistics
        let r = report_of(&rows(&[(1.0, -1.0), (2.0, 2.0)]), vec![], &t, day());
        assert_eq!((r.sign_agreement, r.spearman), (None, None));
        assert_eq!(rules_of(&r), vec!["KS022"]);
        // zero is its own sign
        let r = report_of(
            &rows(&[(0.0, 0.0), (0.0, 1.0), (1.0, 1.0)]),
            vec![],
            &t,
            day(),
        );
        assert!((r.sign_agreement.unwrap() - 2.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn a_backlog_that_cannot_be_read_names_the_field() {
        let clock = "2026-12-01T00:00:00Z".parse().unwrap();
        let request = FidelityRequest {
            backlog: "name,gain\na,1\n".into(),
            ..FidelityRequest::default()
        };
        let e = fidelity(&request, clock).unwrap_err();
        assert_eq!((e.field.as_str(), e.line), ("backlog", Some(1)), "{e}");
        let request = FidelityRequest {
            backlog: "idea,screen_gain,full_gain\na,1,2\nb,-1,-2\nc,0.5,1\n".into(),
            ..FidelityRequest::default()
        };
        let r = fidelity(&request, clock).unwrap();
        assert_eq!(rules_of(&r), vec!["KS023"]);
        assert!(r.rules.windows(2).all(|w| w[0] < w[1]), "{:?}", r.rules);
    }
}
