//! Statistics of `compare`, `prune` and `fidelity` against values computed independently with
//! numpy/scipy/scikit-learn (`tests/fixtures/stats/make_expected.py` writes the fixtures and
//! `expected.json`; its docstring says how to regenerate and what is checked against what), the decision
//! table's edges, degenerate inputs, and the `--json` contract through the real binary. The statistics
//! are reached through core's requests (`compare::compare`), as the CLI and the page reach them.

use std::collections::HashMap;
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use kgadvise_core::request::Overrides;
use kgadvise_core::stats::compare::{self, CompareReport, CompareRequest, Decision};
use kgadvise_core::stats::metrics::{Metric, Prepared};
use kgadvise_core::stats::table;
use kgadvise_tests::{finding_rules, fixture, has_key_anywhere, json_of, kgadvise};
use serde_json::Value;

fn expected() -> Value {
    let text = std::fs::read_to_string(fixture("stats/expected.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1e-12) || (a - b).abs() < 1e-12
}

fn path(rel: &str) -> String {
    fixture(rel).to_string_lossy().to_string()
}

fn text(rel: &str) -> String {
    std::fs::read_to_string(fixture(rel)).unwrap()
}

fn clock() -> DateTime<Utc> {
    "2026-12-01T00:00:00Z".parse().unwrap()
}

fn data_files(metric: &str) -> (&'static str, &'static str, &'static str) {
    match metric {
        "auc" | "logloss" | "accuracy" => (
            "stats/binary_idea.csv",
            "stats/binary_control.csv",
            "stats/resamples_binary_idx.txt",
        ),
        _ => (
            "stats/regression_idea.csv",
            "stats/regression_control.csv",
            "stats/resamples_regression_idx.txt",
        ),
    }
}

/// The request of one metric's fixture files.
fn fixture_request(metric: &str, resamples: usize, seed: u64) -> CompareRequest {
    let (i, c, _) = data_files(metric);
    CompareRequest {
        idea: text(i),
        control: text(c),
        metric: metric.to_string(),
        resamples: Some(resamples),
        seed: Some(seed),
        threads: Some(2),
        ..CompareRequest::default()
    }
}

/// The fixture's rows paired as compare pairs them (by id when both files have one, in the idea's
/// order): y_true and each model's prediction.
struct Columns {
    y_true: Vec<f64>,
    idea: Vec<f64>,
    control: Vec<f64>,
}

fn paired_columns(metric: &str) -> Columns {
    let (i, c, _) = data_files(metric);
    let idea = table::read_predictions(&text(i), "idea").unwrap();
    let control = table::read_predictions(&text(c), "control").unwrap();
    let control_pred: Vec<f64> = match (&idea.id, &control.id) {
        (Some(ids), Some(cids)) => {
            let at: HashMap<&str, usize> = cids
                .iter()
                .enumerate()
                .map(|(k, id)| (id.as_str(), k))
                .collect();
            ids.iter()
                .map(|id| control.y_pred[at[id.as_str()]])
                .collect()
        }
        _ => control.y_pred.clone(),
    };
    Columns {
        y_true: idea.y_true,
        idea: idea.y_pred,
        control: control_pred,
    }
}

const METRICS: [&str; 5] = ["auc", "logloss", "accuracy", "rmse", "mae"];

#[test]
fn point_metrics_folds_and_fold_t_match_sklearn_and_scipy() {
    let exp = expected();
    for name in METRICS {
        let e = &exp[name];
        let r = compare::compare(&fixture_request(name, 50, 1), clock()).unwrap();
        assert!(
            close(r.idea_score, f(&e["idea"]), 1e-9),
            "{name} idea {} vs {}",
            r.idea_score,
            e["idea"]
        );
        assert!(
            close(r.control_score, f(&e["control"]), 1e-9),
            "{name} control"
        );
        assert!(
            close(r.gain, f(&e["gain"]), 1e-9),
            "{name} gain {} vs {}",
            r.gain,
            e["gain"]
        );
        let folds = e["folds"].as_array().unwrap();
        assert_eq!(r.folds.len(), folds.len(), "{name}");
        for (got, want) in r.folds.iter().zip(folds) {
            assert_eq!(got.fold, want["fold"].as_str().unwrap());
            assert!(
                close(got.idea, f(&want["idea"]), 1e-9),
                "{name} fold {}",
                got.fold
            );
            assert!(
                close(got.control, f(&want["control"]), 1e-9),
                "{name} fold {}",
                got.fold
            );
            assert!(
                close(got.gain, f(&want["gain"]), 1e-9),
                "{name} fold {}",
                got.fold
            );
        }
        assert!(
            close(r.fold_t.unwrap(), f(&e["fold_t"]), 1e-9),
            "{name} t {:?} vs {}",
            r.fold_t,
            e["fold_t"]
        );
        assert!(
            close(r.fold_t_p.unwrap(), f(&e["fold_t_p"]), 1e-6),
            "{name} p {:?} vs {}",
            r.fold_t_p,
            e["fold_t_p"]
        );
    }
}

/// The counts-based resampling (no copied rows, AUC sorted once) gives, for numpy's index sets, exactly
/// the gains sklearn computes on the copied rows, and the same se / P(better) / percentile interval.
#[test]
fn counts_based_bootstrap_matches_naive_resampling() {
    let exp = expected();
    for name in METRICS {
        let e = &exp[name];
        let metric = Metric::parse(name).unwrap();
        let p = paired_columns(name);
        let idea = Prepared::new(metric, &p.y_true, &p.idea).unwrap();
        let control = Prepared::new(metric, &p.y_true, &p.control).unwrap();
        let (_, _, idx_file) = data_files(name);
        let text = std::fs::read_to_string(fixture(idx_file)).unwrap();
        let mut gains = Vec::new();
        for line in text.lines() {
            let mut counts = vec![0u32; p.y_true.len()];
            for i in line.split_whitespace() {
                counts[i.parse::<usize>().unwrap()] += 1;
            }
            gains.push(compare::resample_gain(&idea, &control, &counts).unwrap());
        }
        let want: Vec<f64> = e["resample_gains"]
            .as_array()
            .unwrap()
            .iter()
            .map(f)
            .collect();
        assert_eq!(gains.len(), want.len());
        for (k, (g, w)) in gains.iter().zip(&want).enumerate() {
            assert!(close(*g, *w, 1e-9), "{name} resample {k}: {g} vs {w}");
        }
        let s = compare::summarise(0.0, &gains);
        assert!(
            close(s.se.unwrap(), f(&e["resample_se"]), 1e-9),
            "{name} se"
        );
        assert!(
            close(s.p_better.unwrap(), f(&e["resample_p_better"]), 1e-12),
            "{name} P(better)"
        );
        let ci = s.ci95.unwrap();
        assert!(
            close(ci[0], f(&e["resample_ci95"][0]), 1e-9),
            "{name} ci low"
        );
        assert!(
            close(ci[1], f(&e["resample_ci95"][1]), 1e-9),
            "{name} ci high"
        );
    }
}

/// A CSV of predictions in the given row order: `y_true,y_pred` and, when given, `fold` and `group`.
fn csv(y_true: &[f64], pred: &[f64], fold: Option<&[String]>, group: Option<&[String]>) -> String {
    let mut s = String::from("y_true,y_pred");
    s.push_str(if fold.is_some() { ",fold" } else { "" });
    s.push_str(if group.is_some() { ",group" } else { "" });
    s.push('\n');
    for (i, (t, p)) in y_true.iter().zip(pred).enumerate() {
        s.push_str(&format!("{t},{p}"));
        if let Some(fold) = fold {
            s.push_str(&format!(",{}", fold[i]));
        }
        if let Some(group) = group {
            s.push_str(&format!(",{}", group[i]));
        }
        s.push('\n');
    }
    s
}

/// kgadvise's seeded PRNG cannot be replayed in Python: its se must agree with numpy's 2000-resample
/// bootstrap se within the sampling error of 300 resamples (~4 % relative sd; 20 % allowed).
#[test]
fn seeded_bootstrap_se_agrees_with_numpy() {
    let exp = expected();
    for name in METRICS {
        // numpy resampled rows, not groups: the rows as paired, without the group column
        let p = paired_columns(name);
        let request = CompareRequest {
            idea: csv(&p.y_true, &p.idea, None, None),
            control: csv(&p.y_true, &p.control, None, None),
            metric: name.to_string(),
            resamples: Some(300),
            seed: Some(42),
            threads: Some(2),
            ..CompareRequest::default()
        };
        let r = compare::compare(&request, clock()).unwrap();
        let want = f(&exp[name]["bootstrap_se_numpy"]);
        let got = r.se.unwrap();
        assert!(
            (got / want - 1.0).abs() < 0.2,
            "{name}: se {got} vs numpy {want}"
        );
        // deterministic for a seed, different for another
        let again = compare::compare(&request, clock()).unwrap();
        assert_eq!(again.se, r.se);
        let one_thread = compare::compare(
            &CompareRequest {
                threads: Some(1),
                ..request.clone()
            },
            clock(),
        )
        .unwrap();
        assert_eq!(
            one_thread.se, r.se,
            "{name}: the answer must not depend on the threads"
        );
        assert_eq!(one_thread.ci95, r.ci95);
        let other = compare::compare(
            &CompareRequest {
                seed: Some(43),
                ..request.clone()
            },
            clock(),
        )
        .unwrap();
        assert_ne!(other.se, r.se);
    }
}

/// Predictions made up for a test: a truth, both models' predictions, optional folds and groups.
#[derive(Clone)]
struct Synthetic {
    y_true: Vec<f64>,
    idea: Vec<f64>,
    control: Vec<f64>,
    fold: Option<Vec<String>>,
    group: Option<Vec<String>>,
}

impl Synthetic {
    fn request(&self, metric: Metric) -> CompareRequest {
        let (fold, group) = (self.fold.as_deref(), self.group.as_deref());
        CompareRequest {
            idea: csv(&self.y_true, &self.idea, fold, group),
            control: csv(&self.y_true, &self.control, fold, group),
            metric: metric.as_str().to_string(),
            resamples: Some(300),
            seed: Some(42),
            threads: Some(2),
            ..CompareRequest::default()
        }
    }
}

fn synthetic(n: usize, idea_better_by: f64, noise_seed: u64) -> Synthetic {
    // a regression set where the idea's error is smaller by a chosen amount on average
    let mut state = noise_seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 11) as f64 / (1u64 << 53) as f64) - 0.5
    };
    let mut p = Synthetic {
        y_true: Vec::new(),
        idea: Vec::new(),
        control: Vec::new(),
        fold: None,
        group: None,
    };
    for _ in 0..n {
        let e = next();
        p.y_true.push(0.0);
        p.control.push(1.0 + e);
        p.idea.push(1.0 + e - idea_better_by + 0.3 * next());
    }
    p
}

fn decide(p: &Synthetic, metric: Metric) -> CompareReport {
    compare::compare(&p.request(metric), clock()).unwrap()
}

/// The answer with threshold overrides (`--set`).
fn decide_with(p: &Synthetic, set: &[String]) -> CompareReport {
    let request = CompareRequest {
        set: Overrides(set.to_vec()),
        ..p.request(Metric::Mae)
    };
    compare::compare(&request, clock()).unwrap()
}

fn rules_of(r: &CompareReport) -> Vec<String> {
    finding_rules(&serde_json::to_value(r).unwrap())
}

#[test]
fn decision_table_edges() {
    // a clear gain: promote
    let r = decide(&synthetic(2000, 0.05, 1), Metric::Mae);
    assert_eq!(r.decision, Decision::Promote, "{}", r.reason);
    assert!(r.z.unwrap() >= 2.0);
    // no gain at all (identical predictions): discard
    let mut same = synthetic(200, 0.0, 2);
    same.idea = same.control.clone();
    let r = decide(&same, Metric::Mae);
    assert_eq!((r.decision, r.gain), (Decision::Discard, 0.0));
    // a worse idea: discard
    let r = decide(&synthetic(500, -0.05, 3), Metric::Rmse);
    assert_eq!(r.decision, Decision::Discard);
    // a small positive gain within the noise: inconclusive
    let r = decide(&synthetic(50, 0.005, 4), Metric::Mae);
    assert!(r.gain > 0.0, "gain {}", r.gain);
    assert_eq!(r.decision, Decision::Inconclusive, "{}", r.reason);
    assert!(r.reason.contains("second fold or seed"));
}

#[test]
fn z_exactly_at_the_bar_promotes_and_just_above_is_suspect() {
    // Move the bar around the measured z with --set-style overrides: z ≥ bar promotes, z < bar does not.
    let p = synthetic(400, 0.02, 5);
    let base = decide(&p, Metric::Mae);
    let z = base.z.unwrap();
    let r = decide_with(&p, &[format!("stats.promote-z={z}")]);
    assert_eq!(r.decision, Decision::Promote, "z {z}: {}", r.reason);
    let r = decide_with(&p, &[format!("stats.promote-z={}", z + 1e-9)]);
    assert_eq!(r.decision, Decision::Inconclusive);
    // one seed, z in [bar, 2.5): KS004; z ≥ 2.5: none
    let r = decide_with(
        &p,
        &[
            format!("stats.promote-z={}", z - 0.1),
            format!("stats.just-clears-z={}", z + 0.1),
        ],
    );
    assert!(
        rules_of(&r).contains(&"KS004".to_string()),
        "{:?}",
        r.findings
    );
    let r = decide_with(
        &p,
        &[
            format!("stats.promote-z={}", z - 0.1),
            format!("stats.just-clears-z={}", z - 0.05),
        ],
    );
    assert!(!rules_of(&r).contains(&"KS004".to_string()));
}

#[test]
fn majority_of_folds_and_fold_t() {
    // the idea is much better on folds 0-1 and slightly worse on 2-4: the pooled z is large, yet only 2
    // of 5 folds improved → inconclusive
    let mut p = synthetic(1000, 0.0, 6);
    let mut folds = Vec::new();
    for i in 0..1000 {
        let k = i % 5;
        folds.push(k.to_string());
        if k < 2 {
            p.idea[i] = p.control[i] - 0.3;
        } else {
            p.idea[i] = p.control[i] + 0.01;
        }
    }
    p.fold = Some(folds.clone());
    let r = decide(&p, Metric::Mae);
    assert_eq!((r.folds_improved, r.folds.len()), (2, 5));
    assert!(r.z.unwrap() >= 2.0);
    assert!(!r.majority_improved);
    assert_eq!(r.decision, Decision::Inconclusive, "{}", r.reason);
    assert!(
        r.reason.contains("only 2 of 5 folds improved"),
        "{}",
        r.reason
    );
    // consistent gains over folds: fold t clears even with a tiny z bar failing (bootstrap off)
    let mut q = synthetic(1000, 0.02, 7);
    q.fold = Some(folds);
    let r = decide(&q, Metric::Mae);
    assert!(r.fold_t.unwrap() > 2.0 && r.majority_improved);
    assert_eq!(r.decision, Decision::Promote);
}

#[test]
fn groups_are_resampled_whole() {
    let mut p = synthetic(600, 0.01, 8);
    let rows = decide(&p, Metric::Mae).se.unwrap();
    p.group = Some((0..600).map(|i| format!("g{}", i / 100)).collect());
    let r = decide(&p, Metric::Mae);
    assert_eq!(r.groups, Some(6));
    // 6 big groups: the resampled gains vary in steps of whole groups, a different se from rows
    assert_ne!(r.se.unwrap(), rows);
    // one group: no variance at all
    p.group = Some(vec!["g".to_string(); 600]);
    let r = decide(&p, Metric::Mae);
    assert_eq!(r.se, Some(0.0));
    assert_eq!(r.z, None);
    assert!(rules_of(&r).contains(&"KS007".to_string()));
    assert_ne!(r.decision, Decision::Promote);
}

#[test]
fn leakage_and_fold_std_findings() {
    let p = synthetic(2000, 0.05, 9);
    let with = |scores: &[f64]| {
        let folds: Vec<String> = scores.iter().map(f64::to_string).collect();
        let request = CompareRequest {
            folds: Some(folds.join("\n")),
            ..p.request(Metric::Mae)
        };
        compare::compare(&request, clock()).unwrap()
    };
    // fold std 0.001 → gain ~0.05 > 3x → leakage
    let r = with(&[0.500, 0.501, 0.502]);
    assert!(r.leakage && rules_of(&r).contains(&"KS005".to_string()));
    // fold std 0.1 → gain below the fold std but z ≥ 2 → KS006 (the wrong test), no leakage
    let r = with(&[0.4, 0.5, 0.6]);
    assert!(!r.leakage);
    assert!(
        rules_of(&r).contains(&"KS006".to_string()),
        "{:?}",
        r.findings
    );
    assert!((r.baseline_fold_std.unwrap() - 0.1).abs() < 1e-12);
    // a modest fold std: neither
    let r = with(&[0.45, 0.5, 0.55, 0.5]);
    let rules = rules_of(&r);
    assert!(
        !rules.contains(&"KS005".to_string()) && !rules.contains(&"KS006".to_string()),
        "{:?}",
        r.findings
    );
    // one fold score: no std, a caution instead of the check
    let r = with(&[0.5]);
    assert!(r.baseline_fold_std.is_none() && !r.leakage);
    assert!(
        r.cautions.iter().any(|c| c.contains("needs at least 2")),
        "{:?}",
        r.cautions
    );
}

/// Issue 16: the decision weighs the folds as kgkit's verdict does (the mean per-fold gain decides with
/// 2+ folds; the pooled bootstrap gain can hold a promote back but not discard), an exact tie of the
/// fold gains gives an infinite t (null in JSON, with `fold_t_infinite`), and baseline fold scores of
/// std 0 flag nothing.
#[test]
fn folds_weigh_consistently_and_ties_are_infinite() {
    let json = |idea: &str, control: &str, metric: &str, extra: &[&str]| {
        let mut args = vec![
            "compare".to_string(),
            "--idea".into(),
            path(idea),
            "--control".into(),
            path(control),
            "--metric".into(),
            metric.into(),
            "--json".into(),
        ];
        args.extend(extra.iter().map(|a| a.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run(&args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        json_of(&out)
    };
    // every fold improves, the pooled AUC is worse: inconclusive (it was discard)
    let v = json(
        "stats/folds_vs_pooled_idea.csv",
        "stats/folds_vs_pooled_control.csv",
        "auc",
        &[],
    );
    assert!(f(&v["gain"]) < 0.0, "{v}");
    assert_eq!(
        (f(&v["decision_gain"]), v["decision_gain_of"].as_str()),
        (0.5, Some("fold mean"))
    );
    assert_eq!(v["fold_gain"], v["decision_gain"]);
    assert_eq!(v["decision"], "inconclusive", "{}", v["reason"]);
    assert!(
        v["reason"]
            .as_str()
            .unwrap()
            .contains("mean bootstrap gain"),
        "{}",
        v["reason"]
    );
    // every fold gains 0.1 (to rounding): t = +infinity, shown as null plus the marker; promote
    let v = json(
        "stats/tied_folds_idea.csv",
        "stats/tied_folds_control.csv",
        "accuracy",
        &[],
    );
    assert!(v["fold_t"].is_null(), "{v}");
    assert_eq!(v["fold_t_infinite"], "+infinity");
    assert_eq!(f(&v["fold_t_p"]), 0.0);
    assert!(f(&v["z"]) < 2.0);
    assert_eq!(v["decision"], "promote", "{}", v["reason"]);
    assert!(
        v["cautions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c.as_str().unwrap().contains("per-fold t is +infinity")),
        "{v}"
    );
    // the same folds losing by the same amount: -infinity, discard
    let v = json(
        "stats/tied_folds_control.csv",
        "stats/tied_folds_idea.csv",
        "accuracy",
        &[],
    );
    assert_eq!(
        (v["fold_t_infinite"].as_str(), v["decision"].as_str()),
        (Some("-infinity"), Some("discard"))
    );
    // no fold column: the pooled gain decides, no fold fields
    let v = json(
        "stats/promote_idea.csv",
        "stats/promote_control.csv",
        "mae",
        &[],
    );
    assert_eq!(v["decision_gain_of"], "pooled");
    assert_eq!(v["decision_gain"], v["gain"]);
    assert!(v["fold_gain"].is_null() && v["fold_t_infinite"].is_null());
    // baseline fold scores all equal: std 0, no leakage flag, a caution instead
    let flat = temp("flat_folds.csv", "0.5\n0.5\n0.5\n");
    let v = json(
        "stats/promote_idea.csv",
        "stats/promote_control.csv",
        "mae",
        &["--folds", flat.to_str().unwrap()],
    );
    assert_eq!(
        (f(&v["baseline_fold_std"]), &v["leakage"]),
        (0.0, &Value::Bool(false))
    );
    assert!(!finding_rules(&v).contains(&"KS005".to_string()));
    assert!(
        v["cautions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c.as_str().unwrap().contains("all equal (std 0)")),
        "{v}"
    );
}

#[test]
fn request_errors_name_the_field() {
    let base = fixture_request("auc", 50, 1);
    let field = |r: CompareRequest| compare::compare(&r, clock()).unwrap_err();
    let e = field(CompareRequest {
        metric: "f1".into(),
        ..base.clone()
    });
    assert_eq!(e.field, "metric");
    assert!(
        e.message.contains("rmse, mae, logloss, auc, accuracy"),
        "{e}"
    );
    let e = field(CompareRequest {
        resamples: Some(1),
        ..base.clone()
    });
    assert_eq!(e.field, "resamples");
    let e = field(CompareRequest {
        control: "a,b\n1,2\n".into(),
        ..base.clone()
    });
    assert_eq!((e.field.as_str(), e.line), ("control", Some(1)));
    let e = field(CompareRequest {
        folds: Some("fold,auc\n0,1\n".into()),
        ..base.clone()
    });
    assert_eq!(e.field, "folds");
    // different rows in the two files: the request as a whole
    let e = field(CompareRequest {
        control: "y_true,y_pred\n1,0.5\n".into(),
        ..base.clone()
    });
    assert_eq!(e.field, "", "{e}");
    // a control with every row of the idea and more: a screen against a full run, said so
    let e = field(CompareRequest {
        idea: "id,y_true,y_pred\n1,1,0.9\n2,0,0.2\n".into(),
        control: "id,y_true,y_pred\n1,1,0.8\n2,0,0.3\n3,1,0.7\n".into(),
        ..base.clone()
    });
    assert!(
        e.message
            .contains("holds every row of the idea file and 1 more (`3`)")
            && e.message.contains("control screen")
            && e.message.contains("KS009"),
        "{e}"
    );
    // the JSON request: camelCase keys, unknown ones refused by name
    let json = serde_json::json!({"idea": base.idea, "control": base.control, "metric": "auc", "resamples": 20});
    let report = kgadvise_core::advise::advise_json("compare", &json.to_string(), clock()).unwrap();
    assert!(report.contains("\"resamples\":20"), "{report}");
    let e =
        kgadvise_core::advise::advise_json("compare", r#"{"metrik": "auc"}"#, clock()).unwrap_err();
    assert_eq!(e.field, "metrik");
}

// ---------------------------------------------------------------- end to end through the binary

fn run(args: &[&str]) -> std::process::Output {
    kgadvise().args(args).output().unwrap()
}

#[test]
fn compare_json_contract() {
    let exp = expected();
    let out = run(&[
        "compare",
        "--idea",
        &path("stats/binary_idea.csv"),
        "--control",
        &path("stats/binary_control.csv"),
        "--metric",
        "auc",
        "--folds",
        &path("stats/baseline_folds.csv"),
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    assert_eq!(v["schema"], "kgadvise.compare/1");
    for key in [
        "gain", "z", "decision", "p_better", "se", "ci95", "fold_t", "folds", "cautions", "rules",
        "findings",
    ] {
        assert!(has_key_anywhere(&v, key), "missing {key}: {v}");
    }
    assert!(close(f(&v["gain"]), f(&exp["auc"]["gain"]), 1e-9));
    assert_eq!(v["paired_by"], "id");
    assert_eq!(v["groups"], 80);
    assert!(["promote", "inconclusive", "discard"].contains(&v["decision"].as_str().unwrap()));
    assert!(close(
        f(&v["baseline_fold_std"]),
        f(&exp["baseline_fold_std"]),
        1e-9
    ));
    // gain 0.026 > 3 x 0.0069: the leakage audit fires on this fixture
    assert_eq!(v["leakage"], true);
    assert!(finding_rules(&v).contains(&"KS005".to_string()));
    // enough rows: the bootstrap has variance (no KS007), and one decision rule only
    let rules = finding_rules(&v);
    assert!(!rules.contains(&"KS007".to_string()), "{rules:?}");
    assert_eq!(
        rules
            .iter()
            .filter(|r| ["KS001", "KS002", "KS003"].contains(&r.as_str()))
            .count(),
        1,
        "{rules:?}"
    );
    // same seed, same answer
    let again = json_of(&run(&[
        "compare",
        "--idea",
        &path("stats/binary_idea.csv"),
        "--control",
        &path("stats/binary_control.csv"),
        "--metric",
        "auc",
        "--folds",
        &path("stats/baseline_folds.csv"),
        "--json",
    ]));
    assert_eq!(again["z"], v["z"]);
}

#[test]
fn compare_human_output_reads_like_advice() {
    let out = run(&[
        "compare",
        "--idea",
        &path("stats/regression_idea.csv"),
        "--control",
        &path("stats/regression_control.csv"),
        "--metric",
        "mae",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("DISCARD: the idea does not beat its control"),
        "{text}"
    );
    assert!(
        text.contains("lower is better") && text.contains("KS003"),
        "{text}"
    );
}

fn temp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kgadvise-stats-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn compare_usage_errors_exit_2() {
    let idea = path("stats/binary_idea.csv");
    let control = path("stats/binary_control.csv");
    // unknown metric lists the valid ones
    let out = run(&[
        "compare",
        "--idea",
        &idea,
        "--control",
        &control,
        "--metric",
        "f1",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let v = json_of(&out);
    assert_eq!(v["schema"], "kgadvise.error/1");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("rmse, mae, logloss, auc, accuracy"),
        "{v}"
    );
    // different row sets by id: names the rows
    let a = temp("a.csv", "id,y_true,y_pred\n1,1,0.9\n2,0,0.2\n3,1,0.6\n");
    let b = temp("b.csv", "id,y_true,y_pred\n1,1,0.8\n2,0,0.3\n4,1,0.6\n");
    let out = run(&[
        "compare",
        "--idea",
        a.to_str().unwrap(),
        "--control",
        b.to_str().unwrap(),
        "--metric",
        "auc",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("only in") && err.contains("`3`") && err.contains("`4`"),
        "{err}"
    );
    // an id in one file only: paired by order, and the answer says so
    let noid = temp("noid.csv", "y_true,y_pred\n1,0.8\n0,0.3\n1,0.6\n");
    let v = json_of(&run(&[
        "compare",
        "--idea",
        a.to_str().unwrap(),
        "--control",
        noid.to_str().unwrap(),
        "--metric",
        "auc",
        "--json",
    ]));
    assert_eq!(v["paired_by"], "order");
    assert!(
        v["cautions"][0]
            .as_str()
            .unwrap()
            .contains("paired by order"),
        "{v}"
    );
    // by order: different lengths
    let c = temp("c.csv", "y_true,y_pred\n1,0.9\n0,0.2\n");
    let d = temp("d.csv", "y_true,y_pred\n1,0.9\n0,0.2\n1,0.4\n");
    let out = run(&[
        "compare",
        "--idea",
        c.to_str().unwrap(),
        "--control",
        d.to_str().unwrap(),
        "--metric",
        "auc",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("has 2 rows but"));
    // by order: same length, different truth → names the line
    let e = temp("e.csv", "y_true,y_pred\n1,0.9\n1,0.2\n");
    let out = run(&[
        "compare",
        "--idea",
        c.to_str().unwrap(),
        "--control",
        e.to_str().unwrap(),
        "--metric",
        "rmse",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("line 3"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // missing file
    let out = run(&[
        "compare",
        "--idea",
        "/nonexistent.csv",
        "--control",
        &control,
        "--metric",
        "auc",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--idea /nonexistent.csv"));
}

#[test]
fn degenerate_inputs() {
    // one class only for AUC: a clear message, exit 2
    let a = temp("one_class.csv", "y_true,y_pred\n1,0.9\n1,0.2\n1,0.5\n");
    let out = run(&[
        "compare",
        "--idea",
        a.to_str().unwrap(),
        "--control",
        a.to_str().unwrap(),
        "--metric",
        "auc",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("auc needs both classes") && err.contains("3 positive(s) and 0 negative(s)"),
        "{err}"
    );
    // constant predictions: AUC 0.5 for both, gain 0 → discard
    let k = temp("const.csv", "y_true,y_pred\n1,0.5\n0,0.5\n1,0.5\n0,0.5\n");
    let out = run(&[
        "compare",
        "--idea",
        k.to_str().unwrap(),
        "--control",
        k.to_str().unwrap(),
        "--metric",
        "auc",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    assert_eq!((f(&v["idea_score"]), f(&v["gain"])), (0.5, 0.0));
    assert_eq!(v["decision"], "discard");
    // one row: no variance, z null, never promoted
    let i = temp("one_i.csv", "y_true,y_pred\n1.0,1.1\n");
    let c = temp("one_c.csv", "y_true,y_pred\n1.0,1.5\n");
    let out = run(&[
        "compare",
        "--idea",
        i.to_str().unwrap(),
        "--control",
        c.to_str().unwrap(),
        "--metric",
        "rmse",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    assert!(v["z"].is_null(), "{v}");
    assert_eq!(v["decision"], "inconclusive");
    assert!(finding_rules(&v).contains(&"KS007".to_string()));
    // predictions that are not probabilities, labels that are not 0/1, for logloss
    let out = run(&[
        "compare",
        "--idea",
        i.to_str().unwrap(),
        "--control",
        c.to_str().unwrap(),
        "--metric",
        "logloss",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("the idea predicts 1.1"));
    let l = temp("labels.csv", "y_true,y_pred\n2,0.5\n0,0.5\n");
    let l = l.to_str().unwrap();
    let out = run(&[
        "compare",
        "--idea",
        l,
        "--control",
        l,
        "--metric",
        "logloss",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("line 2 of") && err.contains("needs 0/1 labels"),
        "{err}"
    );
}

fn curve(epochs: u32, gib: bool, pts: &[(u32, f64)]) -> String {
    let points: Vec<String> = pts
        .iter()
        .map(|(e, s)| format!("{{\"epoch\": {e}, \"score\": {s}, \"seconds\": 61.5}}"))
        .collect();
    format!(
        "{{\"fold\": 0, \"epochs\": {epochs}, \"greater_is_better\": {gib}, \"points\": [{}]}}",
        points.join(", ")
    )
}

#[test]
fn prune_contract_and_decisions() {
    let base = temp(
        "base.json",
        &curve(
            10,
            true,
            &[(1, 0.70), (2, 0.75), (3, 0.76), (4, 0.80), (10, 0.9)],
        ),
    );
    let bad = temp(
        "bad.json",
        &curve(10, true, &[(1, 0.60), (2, 0.65), (3, 0.70), (4, 0.71)]),
    );
    let early = temp("early.json", &curve(10, true, &[(1, 0.1), (2, 0.1)]));
    let b = base.to_str().unwrap();
    let out = run(&[
        "prune",
        "--baseline",
        b,
        "--current",
        bad.to_str().unwrap(),
        "--margin",
        "0.05",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    assert_eq!(v["schema"], "kgadvise.prune/1");
    assert!(has_key_anywhere(&v, "prune") && has_key_anywhere(&v, "reason"));
    // at 40 %: baseline 0.80, current 0.71: trails by 0.09 > 0.05
    assert_eq!(v["prune"], true);
    let reason = v["reason"].as_str().unwrap();
    assert!(
        reason.contains("0.71")
            && reason.contains("0.8")
            && reason.contains("40 %")
            && reason.contains("0.05"),
        "{reason}"
    );
    // a generous margin: continue
    let v = json_of(&run(&[
        "prune",
        "--baseline",
        b,
        "--current",
        bad.to_str().unwrap(),
        "--margin",
        "0.1",
        "--json",
    ]));
    assert_eq!(v["prune"], false);
    assert_eq!(v["decision"], "continue");
    // too early
    let v = json_of(&run(&[
        "prune",
        "--baseline",
        b,
        "--current",
        early.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(
        (v["prune"].as_bool(), v["decision"].as_str()),
        (Some(false), Some("too-early"))
    );
    // no margin at all: trailing, but no prune decision (KS013); margin null, not 0
    let v = json_of(&run(&[
        "prune",
        "--baseline",
        b,
        "--current",
        bad.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(
        (v["prune"].as_bool(), v["decision"].as_str()),
        (Some(false), Some("no-margin"))
    );
    assert!(v["margin"].is_null() && v["margin_source"] == "none", "{v}");
    assert!(finding_rules(&v).contains(&"KS013".to_string()));
    let out = run(&["prune", "--baseline", b, "--current", bad.to_str().unwrap()]);
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("NO DECISION: best-so-far 0.71"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // margin from the baseline's fold scores
    let v = json_of(&run(&[
        "prune",
        "--baseline",
        b,
        "--current",
        bad.to_str().unwrap(),
        "--folds",
        &path("stats/baseline_folds.csv"),
        "--json",
    ]));
    assert_eq!(v["margin_source"], "baseline fold std");
    assert_eq!(v["prune"], true);
    // the text answer leads with the verdict
    let out = run(&[
        "prune",
        "--baseline",
        b,
        "--current",
        bad.to_str().unwrap(),
        "--margin",
        "0.05",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("PRUNE: best-so-far 0.71") && text.contains("KS010"),
        "{text}"
    );
    // errors exit 2 naming the input
    let broken = temp("broken.json", "{\"epochs\": 10, \"points\": []}");
    let out = run(&[
        "prune",
        "--baseline",
        b,
        "--current",
        broken.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("broken.json"));
    let out = run(&[
        "prune",
        "--baseline",
        b,
        "--current",
        bad.to_str().unwrap(),
        "--min-frac",
        "1.5",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn fidelity_matches_scipy_and_warns_per_thresholds() {
    let exp = expected();
    let v = json_of(&run(&[
        "fidelity",
        &path("stats/fidelity_ideas.csv"),
        "--json",
    ]));
    assert_eq!(v["schema"], "kgadvise.fidelity/1");
    assert_eq!(v["ideas"], exp["fidelity"]["ideas"]);
    assert!(close(
        f(&v["sign_agreement"]),
        f(&exp["fidelity"]["sign_agreement"]),
        1e-12
    ));
    assert!(close(
        f(&v["spearman"]),
        f(&exp["fidelity"]["spearman"]),
        1e-12
    ));
    let rules = finding_rules(&v);
    assert_eq!(rules, vec!["KS023"]);

    let out = run(&["fidelity", &path("stats/fidelity_bad.csv"), "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    assert!(close(
        f(&v["sign_agreement"]),
        f(&exp["fidelity_bad"]["sign_agreement"]),
        1e-12
    ));
    assert!(close(
        f(&v["spearman"]),
        f(&exp["fidelity_bad"]["spearman"]),
        1e-12
    ));
    let rules = finding_rules(&v);
    assert_eq!(rules, vec!["KS020", "KS021"]);

    let few = temp(
        "few.csv",
        "idea,screen_gain,full_gain\na,0.1,0.2\nb,0.2,\nc,-0.1,0.1\n",
    );
    let v = json_of(&run(&["fidelity", few.to_str().unwrap(), "--json"]));
    assert_eq!(v["ideas"], 2);
    assert!(v["sign_agreement"].is_null() && v["spearman"].is_null());
    assert!(v["skipped"][0].as_str().unwrap().contains("line 3"), "{v}");
    let out = run(&["fidelity", &path("stats/binary_idea.csv")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("`idea`, `screen_gain`, `full_gain`"));
}

// ---------------------------------------------------------------- kgkit's artifacts (.npy)

/// A 1-D little-endian array as numpy.save writes it (format 1.0).
fn npy(descr: &str, data: &[u8], shape: &str) -> Vec<u8> {
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((header.len() as u16).to_le_bytes());
    out.extend(header.as_bytes());
    out.extend(data);
    out
}

/// A copy of an artifacts fixture folder, with some files replaced (or added).
fn artifacts_copy(name: &str, from: &str, replace: &[(&str, Vec<u8>)]) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("kgadvise-artifacts-{}", std::process::id()))
        .join(name);
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(fixture(from)).unwrap() {
        let p = entry.unwrap().path();
        std::fs::copy(&p, dir.join(p.file_name().unwrap())).unwrap();
    }
    for (file, bytes) in replace {
        std::fs::write(dir.join(file), bytes).unwrap();
    }
    dir
}

fn compare_args(idea: &str, control: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "compare",
        "--idea",
        idea,
        "--control",
        control,
        "--metric",
        "auc",
    ];
    args.extend(extra);
    run(&args)
}

#[test]
fn artifacts_compare_as_their_csv_and_match_numpy() {
    let exp: Value = serde_json::from_str(&text("stats/artifacts/expected.json")).unwrap();
    let (idea, control) = (
        path("stats/artifacts/idea"),
        path("stats/artifacts/control"),
    );
    let truth = format!("{}:target", path("stats/artifacts/train.csv"));
    let out = compare_args(&idea, &control, &["--truth", &truth, "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let a = json_of(&out);
    assert_eq!(
        (a["paired_by"].as_str(), a["rows"].as_u64()),
        (Some("index"), Some(120))
    );
    assert!(close(f(&a["idea_score"]), f(&exp["idea_auc"]), 1e-12));
    assert!(close(f(&a["control_score"]), f(&exp["control_auc"]), 1e-12));
    for (k, fold) in exp["folds"].as_array().unwrap().iter().enumerate() {
        assert_eq!(a["folds"][k]["fold"], k.to_string());
        assert!(close(f(&a["folds"][k]["idea"]), f(&fold["idea"]), 1e-12));
        assert!(close(
            f(&a["folds"][k]["control"]),
            f(&fold["control"]),
            1e-12
        ));
    }
    // the same predictions as CSV, in the order the artifacts pair: the same answer, number for number
    let with_groups = ["--truth", truth.as_str(), "--groups", "patient", "--json"];
    let a = json_of(&compare_args(&idea, &control, &with_groups));
    let c = json_of(&compare_args(
        &path("stats/artifacts/paired_idea.csv"),
        &path("stats/artifacts/paired_control.csv"),
        &["--json"],
    ));
    for key in [
        "gain", "se", "z", "p_better", "ci95", "fold_t", "decision", "groups",
    ] {
        assert_eq!(a[key], c[key], "{key}");
    }
    // the JSON request the npm package and the Python wheel send: each file base64, by name
    let folder = |rel: &str| -> Value {
        let mut files = serde_json::Map::new();
        for entry in std::fs::read_dir(fixture(rel)).unwrap() {
            let p = entry.unwrap().path();
            let bytes = kgadvise_core::stats::npy::FileBytes(std::fs::read(&p).unwrap());
            files.insert(
                p.file_name().unwrap().to_string_lossy().into_owned(),
                serde_json::to_value(bytes).unwrap(),
            );
        }
        Value::Object(files)
    };
    let request = serde_json::json!({
        "ideaArtifacts": folder("stats/artifacts/idea"),
        "controlArtifacts": folder("stats/artifacts/control"),
        "truth": text("stats/artifacts/train.csv"),
        "truthColumn": "target",
        "groups": "patient",
        "metric": "auc",
        "threads": 2,
    });
    let report =
        kgadvise_core::advise::advise_json("compare", &request.to_string(), clock()).unwrap();
    let j: Value = serde_json::from_str(&report).unwrap();
    for key in ["gain", "se", "z", "fold_t", "decision"] {
        assert_eq!(j[key], a[key], "{key}");
    }
}

/// The request's keys as flags (`--idea-artifacts`, `--control-artifacts`, `--truth FILE --truth-column
/// COLUMN`) give the answer of `--idea DIR --control DIR --truth FILE:COLUMN`; an error names the flag.
#[test]
fn artifacts_by_their_request_keys_as_flags() {
    let (idea, control, train) = (
        path("stats/artifacts/idea"),
        path("stats/artifacts/control"),
        path("stats/artifacts/train.csv"),
    );
    let spec = format!("{train}:target");
    let short = json_of(&compare_args(
        &idea,
        &control,
        &["--truth", &spec, "--json"],
    ));
    let keyed = json_of(&run(&[
        "compare",
        "--idea-artifacts",
        &idea,
        "--control-artifacts",
        &control,
        "--truth",
        &train,
        "--truth-column",
        "target",
        "--metric",
        "auc",
        "--json",
    ]));
    for key in ["rows", "gain", "se", "z", "fold_t", "decision", "findings"] {
        assert_eq!(short[key], keyed[key], "{key}");
    }
    let out = run(&[
        "compare",
        "--idea-artifacts",
        &idea,
        "--control-artifacts",
        &control,
        "--truth",
        &train,
        "--truth-column",
        "nope",
        "--metric",
        "auc",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("--truth-column nope: no column `nope`"), "{e}");
    // the folder and a CSV for the same model cannot both be given
    let out = run(&[
        "compare",
        "--idea",
        &idea,
        "--idea-artifacts",
        &idea,
        "--control",
        &control,
        "--metric",
        "auc",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn artifacts_folds_labels_and_the_csv_fold() {
    let truth = format!("{}:label", path("stats/artifacts/train.csv"));
    // a one-fold screen against three folds: fold 0, the others left out (KS008); text labels coded as
    // kgkit does
    let v = json_of(&compare_args(
        &path("stats/artifacts/screen"),
        &path("stats/artifacts/control"),
        &["--truth", &truth, "--json"],
    ));
    assert_eq!(v["rows"], 40);
    assert!(finding_rules(&v).contains(&"KS008".to_string()), "{v}");
    let findings = v["findings"].to_string();
    assert!(
        findings.contains("fold(s) 1, 2 only in the control's artifacts"),
        "{findings}"
    );
    let cautions = v["cautions"].to_string();
    assert!(cautions.contains("no=0, yes=1"), "{cautions}");
    // --fold 1 of the artifacts and --fold 1 of the CSV pick the same 40 rows
    let a = json_of(&compare_args(
        &path("stats/artifacts/idea"),
        &path("stats/artifacts/control"),
        &["--truth", &truth, "--fold", "1", "--json"],
    ));
    let c = json_of(&compare_args(
        &path("stats/artifacts/paired_idea.csv"),
        &path("stats/artifacts/paired_control.csv"),
        &["--fold", "1", "--json"],
    ));
    assert_eq!(
        (a["rows"].as_u64(), c["rows"].as_u64()),
        (Some(40), Some(40))
    );
    assert_eq!(
        (&a["gain"], &a["idea_score"]),
        (&c["gain"], &c["idea_score"])
    );
    let out = compare_args(
        &path("stats/binary_idea.csv"),
        &path("stats/binary_control.csv"),
        &["--fold", "9"],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--fold 9: no row of that fold") && err.contains("0, 1, 2, 3, 4"),
        "{err}"
    );
}

#[test]
fn artifacts_errors_name_the_file_and_what_was_expected() {
    let control = path("stats/artifacts/control");
    let truth = format!("{}:target", path("stats/artifacts/train.csv"));
    let err = |idea: &str, extra: &[&str]| {
        let out = compare_args(idea, &control, extra);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let idea = path("stats/artifacts/idea");
    let e = err(&idea, &[]);
    assert!(
        e.contains("--truth: missing") && e.contains("data/train.csv:target"),
        "{e}"
    );
    let e = err(&idea, &["--truth", &path("stats/artifacts/train.csv")]);
    assert!(e.contains("expected FILE:COLUMN"), "{e}");
    let e = err(
        &idea,
        &[
            "--truth",
            &format!("{}:y", path("stats/artifacts/train.csv")),
        ],
    );
    assert!(
        e.contains("no column `y`") && e.contains("found: id, target, label, patient"),
        "{e}"
    );
    let e = err(&idea, &["--truth", &truth, "--fold", "7"]);
    assert!(
        e.contains("no fold7_oof.npy") && e.contains("0, 1, 2"),
        "{e}"
    );
    let e = err(&idea, &["--truth", &truth, "--groups", "ward"]);
    assert!(e.contains("no column `ward`"), "{e}");
    // one form each: refused
    let e = err(
        &path("stats/artifacts/paired_idea.csv"),
        &["--truth", &truth],
    );
    assert!(e.contains("one form"), "{e}");
    // rows past the truth table, another split, a 2-D array, not an .npy, an OOF without its rows
    let rows = |v: &[i64]| {
        npy(
            "<i8",
            &v.iter().flat_map(|r| r.to_le_bytes()).collect::<Vec<u8>>(),
            &format!("({},)", v.len()),
        )
    };
    let past = artifacts_copy("past", "stats/artifacts/screen", &[]);
    let idx = std::fs::read(past.join("fold0_idx.npy")).unwrap();
    let mut bumped = idx.clone();
    let n = bumped.len();
    bumped[n - 8..].copy_from_slice(&500i64.to_le_bytes());
    std::fs::write(past.join("fold0_idx.npy"), &bumped).unwrap();
    let e = err(past.to_str().unwrap(), &["--truth", &truth]);
    assert!(
        e.contains("fold0_idx.npy: row 500, but the truth table has 120 rows"),
        "{e}"
    );
    let other = artifacts_copy("other", "stats/artifacts/screen", &[]);
    // the last row replaced by the first: a row of the control's fold 0 missing here
    let mut swapped = idx.clone();
    let first = idx[n - 40 * 8..n - 39 * 8].to_vec();
    swapped[n - 8..].copy_from_slice(&first);
    std::fs::write(other.join("fold0_idx.npy"), &swapped).unwrap();
    let e = err(other.to_str().unwrap(), &["--truth", &truth]);
    assert!(
        e.contains("fold 0: the two folders' fold0_idx.npy hold different rows"),
        "{e}"
    );
    let wide = artifacts_copy(
        "wide",
        "stats/artifacts/screen",
        &[("fold0_oof.npy", npy("<f8", &[0u8; 16 * 40], "(40, 2)"))],
    );
    let e = err(wide.to_str().unwrap(), &["--truth", &truth]);
    assert!(
        e.contains("fold0_oof.npy: an array of shape (40, 2)"),
        "{e}"
    );
    let text_file = artifacts_copy(
        "text",
        "stats/artifacts/screen",
        &[("fold0_oof.npy", b"0.1\n0.2\n".to_vec())],
    );
    let e = err(text_file.to_str().unwrap(), &["--truth", &truth]);
    assert!(e.contains("fold0_oof.npy: not a numpy .npy file"), "{e}");
    let lonely = artifacts_copy(
        "lonely",
        "stats/artifacts/screen",
        &[("fold3_oof.npy", rows(&[1]))],
    );
    let e = err(lonely.to_str().unwrap(), &["--truth", &truth]);
    assert!(e.contains("fold3_oof.npy without fold3_idx.npy"), "{e}");
    let empty = artifacts_copy("empty", "stats/curves", &[]);
    let e = err(empty.to_str().unwrap(), &["--truth", &truth]);
    assert!(e.contains("no fold<k>_oof.npy"), "{e}");
}
