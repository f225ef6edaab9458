//! The human text of the statistics answers (`kgadvise compare`, `prune`, `fidelity`): what the CLI
//! prints without `--json`.

use crate::rulebook::finding::render_text;
use crate::stats::compare::CompareReport;
use crate::stats::fidelity::FidelityReport;
use crate::stats::prune::{PruneDecision, PruneReport};
use crate::text::number::{fixed, shortest};
use crate::text::table::table;

pub(crate) fn fidelity(r: &FidelityReport) -> String {
    let opt = |v: Option<f64>| v.map(|x| fixed(x, 3)).unwrap_or_else(|| "n/a".to_string());
    let mut s = format!(
        "{}: sign agreement {}, Spearman {}\n\n",
        crate::text::count::counted(r.ideas as u64, "idea", "ideas"),
        opt(r.sign_agreement),
        opt(r.spearman)
    );
    let rows: Vec<Vec<String>> = r
        .rows
        .iter()
        .map(|o| {
            vec![
                o.idea.clone(),
                shortest(o.screen_gain),
                shortest(o.full_gain),
                yes_no(o.same_sign),
            ]
        })
        .collect();
    if !rows.is_empty() {
        s.push_str(&table(
            &["idea", "screen_gain", "full_gain", "same sign"],
            &rows,
        ));
        s.push('\n');
    }
    for k in &r.skipped {
        s.push_str(&format!("  skipped: {k}\n"));
    }
    s.push_str(&render_text(&r.findings));
    s
}

fn yes_no(b: bool) -> String {
    if b { "yes" } else { "no" }.into()
}

impl PruneDecision {
    /// The decision's key, as the JSON spells it and the page shows it.
    pub fn as_str(self) -> &'static str {
        match self {
            PruneDecision::Prune => "prune",
            PruneDecision::Continue => "continue",
            PruneDecision::TooEarly => "too-early",
            PruneDecision::NoMargin => "no-margin",
        }
    }
}

pub(crate) fn prune(r: &PruneReport) -> String {
    // the reason starts with its verdict ("prune: ...", "continue: ..."): shout that word
    let (verdict, rest) = r.reason.split_once(": ").unwrap_or(("", r.reason.as_str()));
    let mut s = format!("{}: {rest}\n\n", verdict.to_uppercase());
    s.push_str(&render_text(&r.findings));
    s
}

/// A score or statistic in the comparison's six decimals.
fn num(v: f64) -> String {
    fixed(v, 6)
}

fn opt(v: Option<f64>) -> String {
    v.map(num).unwrap_or_else(|| "undefined".to_string())
}

pub(crate) fn compare(r: &CompareReport) -> String {
    let mut s = format!("{}: {}\n\n", r.decision.as_str().to_uppercase(), r.reason);
    s.push_str(&compare_scores(r));
    s.push_str(&compare_folds(r));
    if let Some(std) = r.baseline_fold_std {
        s.push_str(&format!(
            "  baseline fold std {}{}\n",
            num(std),
            if r.leakage {
                " (the gain is too large for it: audit for leakage)"
            } else {
                ""
            }
        ));
    }
    for c in &r.cautions {
        s.push_str(&format!("  caution: {c}\n"));
    }
    s.push('\n');
    s.push_str(&render_text(&r.findings));
    s
}

/// The two scores, the gain and the bootstrap's answer.
fn compare_scores(r: &CompareReport) -> String {
    let direction = if r.greater_is_better {
        "higher is better"
    } else {
        "lower is better"
    };
    let mut s = format!(
        "  {} ({direction}): idea {} vs control {} on {} rows (paired by {}{})\n",
        r.metric.as_str(),
        num(r.idea_score),
        num(r.control_score),
        r.rows,
        r.paired_by,
        r.groups
            .map(|g| format!(", {g} groups resampled whole"))
            .unwrap_or_default()
    );
    s.push_str(&format!(
        "  gain {}  se {}  z {}\n",
        num(r.gain),
        opt(r.se),
        opt(r.z)
    ));
    s.push_str(&format!(
        "  P(better) {}  95% interval [{}]  ({} of {} resamples, seed {})\n",
        opt(r.p_better),
        r.ci95
            .map(|[a, b]| format!("{}, {}", num(a), num(b)))
            .unwrap_or_else(|| "undefined".into()),
        r.resamples_used,
        r.resamples,
        r.seed
    ));
    s
}

/// The per-fold table and its summary line; nothing without folds.
fn compare_folds(r: &CompareReport) -> String {
    if r.folds.is_empty() {
        return String::new();
    }
    let rows: Vec<Vec<String>> = r
        .folds
        .iter()
        .map(|f| {
            vec![
                f.fold.clone(),
                f.rows.to_string(),
                num(f.idea),
                num(f.control),
                num(f.gain),
                yes_no(f.improved),
            ]
        })
        .collect();
    let mut s = String::from("\n");
    s.push_str(&table(
        &["fold", "rows", "idea", "control", "gain", "improved"],
        &rows,
    ));
    s.push_str(&format!(
        "  {} of {} folds improved; mean fold gain {}; per-fold t {} (p {})\n",
        r.folds_improved,
        r.folds.len(),
        opt(r.fold_gain),
        r.fold_t_infinite
            .map(str::to_string)
            .unwrap_or_else(|| opt(r.fold_t)),
        opt(r.fold_t_p)
    ));
    s
}
