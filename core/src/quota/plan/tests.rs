use super::*;
use crate::quota::{Observed, quota_state, reading_from_numbers, roll_forward};
use crate::text::when::{DateRole, parse_time};
use proptest::prelude::*;

fn at(s: &str) -> DateTime<Utc> {
    parse_time(s, DateRole::Instant).unwrap()
}

fn deadline(s: &str) -> DateTime<Utc> {
    parse_time(s, DateRole::Deadline).unwrap()
}

fn t() -> Thresholds {
    Thresholds::defaults()
}

fn plan_of(
    remaining: f64,
    refresh: &str,
    now: &str,
    dl: &str,
    fold: Option<FoldCost>,
) -> PlanReport {
    let now = at(now);
    let reading = reading_from_numbers(Some((remaining, Some(at(refresh)))), None);
    let q = quota_state(&reading, None, Observed::Now, now, &t());
    plan_on(q, deadline(dl), fold, None, now, &t()).unwrap()
}

#[test]
fn resets_strictly_before_the_deadline() {
    // (stored refreshAt, now, deadline, resets)
    let cases = [
        // Saturdays 12-05 and 12-12 before Thursday 12-17 23:59
        (
            "2026-12-05T00:00:00Z",
            "2026-12-01T08:00:00Z",
            "2026-12-17",
            2,
        ),
        // a deadline exactly at a reset instant: that reset does not count
        (
            "2026-12-05T00:00:00Z",
            "2026-12-01T08:00:00Z",
            "2026-12-12T00:00:00Z",
            1,
        ),
        // ... one second later it does
        (
            "2026-12-05T00:00:00Z",
            "2026-12-01T08:00:00Z",
            "2026-12-12T00:00:01Z",
            2,
        ),
        // deadline on a reset day (bare date = 23:59): the reset that morning counts, even on the last day
        (
            "2026-12-05T00:00:00Z",
            "2026-12-01T08:00:00Z",
            "2026-12-12",
            2,
        ),
        // deadline before the next reset
        (
            "2026-12-05T00:00:00Z",
            "2026-12-01T08:00:00Z",
            "2026-12-04",
            0,
        ),
        // past deadline
        (
            "2026-12-05T00:00:00Z",
            "2026-12-01T08:00:00Z",
            "2026-11-20",
            0,
        ),
        // the stored refreshAt is in the past: rolled to 12-05 first, so 12-05 and 12-12 (kgkit: 3)
        (
            "2026-11-28T00:00:00Z",
            "2026-12-01T08:00:00Z",
            "2026-12-17",
            2,
        ),
        // several weeks in the past
        (
            "2026-11-07T00:00:00Z",
            "2026-12-01T08:00:00Z",
            "2026-12-17",
            2,
        ),
        // now exactly at the stored reset: it has happened; next is a week later
        (
            "2026-12-05T00:00:00Z",
            "2026-12-05T00:00:00Z",
            "2026-12-17",
            1,
        ),
        // long horizon: 12-05 ... 2027-01-30 = 9 resets before 2027-01-31
        (
            "2026-12-05T00:00:00Z",
            "2026-12-01T08:00:00Z",
            "2027-01-31",
            9,
        ),
    ];
    for (refresh, now, dl, n) in cases {
        let (next, _) = roll_forward(at(refresh), at(now));
        assert_eq!(
            resets_before(next, at(now), deadline(dl)),
            n,
            "{refresh} {now} {dl}"
        );
        assert_eq!(
            plan_of(11.0, refresh, now, dl, None).resets_before_deadline,
            n,
            "{refresh} {now} {dl}"
        );
    }
}

#[test]
fn budgets_and_phases() {
    // (remaining, refresh, now, deadline, phase, total, reserve, exploration)
    let cases = [
        (
            11.0,
            "2026-12-05T00:00:00Z",
            "2026-12-01T08:00:00Z",
            "2026-12-17",
            Phase::Exploration,
            71.0,
            30.0,
            41.0,
        ),
        // fractional hours
        (
            10.45,
            "2026-12-05T00:00:00Z",
            "2026-12-01T08:00:00Z",
            "2026-12-17",
            Phase::Exploration,
            70.45,
            30.0,
            40.45,
        ),
        // rolled-over week: full 30 now (the 11 h figure is from last week) + 12-05, 12-12
        (
            11.0,
            "2026-11-28T00:00:00Z",
            "2026-12-01T08:00:00Z",
            "2026-12-17",
            Phase::Exploration,
            90.0,
            30.0,
            60.0,
        ),
        // final week: 5.5 days left, everything is reserve
        (
            11.0,
            "2026-12-12T00:00:00Z",
            "2026-12-11T12:00:00Z",
            "2026-12-16T23:59:00Z",
            Phase::FinalWeek,
            41.0,
            41.0,
            0.0,
        ),
        // exactly 7 days left: final week
        (
            11.0,
            "2026-12-05T00:00:00Z",
            "2026-12-01T08:00:00Z",
            "2026-12-08T08:00:00Z",
            Phase::FinalWeek,
            41.0,
            41.0,
            0.0,
        ),
        // deadline day itself, before 23:59
        (
            3.5,
            "2026-12-05T00:00:00Z",
            "2026-12-03T10:00:00Z",
            "2026-12-03",
            Phase::FinalWeek,
            3.5,
            3.5,
            0.0,
        ),
        // past deadline
        (
            11.0,
            "2026-12-05T00:00:00Z",
            "2026-12-01T08:00:00Z",
            "2026-11-30",
            Phase::Ended,
            0.0,
            0.0,
            0.0,
        ),
        // no hours now, one reset
        (
            0.0,
            "2026-12-05T00:00:00Z",
            "2026-12-01T08:00:00Z",
            "2026-12-09",
            Phase::Exploration,
            30.0,
            30.0,
            0.0,
        ),
    ];
    for (rem, refresh, now, dl, phase, total, reserve, explore) in cases {
        let p = plan_of(rem, refresh, now, dl, None);
        assert_eq!(p.phase, phase, "{rem} {refresh} {now} {dl}");
        assert!(
            (p.total_hours - total).abs() < 1e-9,
            "{now} {dl}: total {}",
            p.total_hours
        );
        assert!(
            (p.final_reserve_hours - reserve).abs() < 1e-9,
            "{now} {dl}: reserve {}",
            p.final_reserve_hours
        );
        assert!(
            (p.exploration_hours - explore).abs() < 1e-9,
            "{now} {dl}: exploration {}",
            p.exploration_hours
        );
        let week_sum: f64 = p.weeks.iter().map(|w| w.hours).sum();
        assert!(
            (week_sum - p.total_hours).abs() < 1e-6,
            "{now} {dl}: weeks {week_sum}"
        );
        let rules: Vec<&str> = p.findings.iter().map(|f| f.rule.as_str()).collect();
        assert_eq!(
            rules.contains(&"KQ011"),
            phase == Phase::FinalWeek,
            "{rules:?}"
        );
        assert_eq!(rules.contains(&"KQ012"), phase == Phase::Ended, "{rules:?}");
        assert!(rules.contains(&"KQ010"));
    }
}

#[test]
fn weeks_for_the_chart() {
    let p = plan_of(
        11.0,
        "2026-12-05T00:00:00Z",
        "2026-12-01T08:00:00Z",
        "2026-12-17",
        None,
    );
    let w: Vec<(&str, &str, f64, f64)> = p
        .weeks
        .iter()
        .map(|w| (w.start.as_str(), w.end.as_str(), w.hours, w.reserve_hours))
        .collect();
    assert_eq!(
        w,
        vec![
            ("2026-12-01T08:00:00Z", "2026-12-05T00:00:00Z", 11.0, 0.0),
            ("2026-12-05T00:00:00Z", "2026-12-12T00:00:00Z", 30.0, 0.0),
            ("2026-12-12T00:00:00Z", "2026-12-17T23:59:00Z", 30.0, 30.0),
        ]
    );
}

/// 11 h + 3 resets until 2026-12-17: "explore with 71 h" counts the week of 12-05 (which overlaps the
/// final seven days), so the week says exploration, not kept for the final week.
#[test]
fn each_week_says_its_role_from_the_reserve() {
    let p = plan_of(
        11.0,
        "2026-11-28T00:00:00Z",
        "2026-11-25T08:00:00Z",
        "2026-12-17",
        None,
    );
    assert_eq!((p.exploration_hours, p.final_reserve_hours), (71.0, 30.0));
    let w: Vec<(&str, bool, WeekRole)> = p
        .weeks
        .iter()
        .map(|w| (w.start.as_str(), w.final_week, w.role))
        .collect();
    assert_eq!(
        w,
        vec![
            ("2026-11-25T08:00:00Z", false, WeekRole::Exploration),
            ("2026-11-28T00:00:00Z", false, WeekRole::Exploration),
            ("2026-12-05T00:00:00Z", true, WeekRole::Exploration),
            ("2026-12-12T00:00:00Z", true, WeekRole::FinalReserve),
        ]
    );
}

#[test]
fn fold_costs() {
    // (c, K, S, exploration-giving plan, promotion, cycles, screens, promotions, leftover)
    let cases = [
        // 41 h: cycle 5 x 0.75 + 4.75 = 8.5 -> 4 cycles (34 h), 7 h left = 9 more screens
        (1.5, 5, 5, 4.75, 4, 29, 4, 0.25),
        // even K: 2 rounds
        (1.5, 4, 5, 3.25, 5, 33, 5, 0.0),
        // one fold: 1 round
        (1.5, 1, 5, 1.75, 7, 38, 7, 0.25),
        // odd K = 7, S = 4
        (2.0, 7, 4, 8.25, 3, 16, 3, 0.25),
    ];
    for (c, k, s, promo, cycles, screens, promotions, leftover) in cases {
        let now = at("2026-12-01T08:00:00Z");
        let reading = reading_from_numbers(Some((11.0, Some(at("2026-12-05T00:00:00Z")))), None);
        let q = quota_state(&reading, None, Observed::Now, now, &t());
        let p = plan_on(
            q,
            deadline("2026-12-17"),
            Some(FoldCost { hours: c, folds: k }),
            Some(s),
            now,
            &t(),
        )
        .unwrap();
        assert_eq!(p.exploration_hours, 41.0);
        let fp = p.fold_plan.as_ref().unwrap();
        assert_eq!(fp.screen_hours, c / 2.0);
        assert!(
            (fp.promotion_hours - promo).abs() < 1e-9,
            "{c} {k}: {}",
            fp.promotion_hours
        );
        assert_eq!(
            (fp.cycles, fp.screens, fp.promotions),
            (cycles, screens, promotions),
            "{c} {k} {s}"
        );
        assert!(
            (fp.leftover_hours - leftover).abs() < 0.011,
            "{c} {k}: leftover {}",
            fp.leftover_hours
        );
        assert_eq!(p.cycles, Some(cycles));
        assert!(p.findings.iter().any(|f| f.rule == "KQ013"));
        assert!(!p.findings.iter().any(|f| f.rule == "KQ015"));
    }
}

#[test]
fn last_safe_start() {
    let p = plan_of(
        11.0,
        "2026-12-05T00:00:00Z",
        "2026-12-01T08:00:00Z",
        "2026-12-17",
        Some(FoldCost {
            hours: 1.5,
            folds: 5,
        }),
    );
    // cap 1.3 x 4.75 = 6.175 h = 6 h 10 min 30 s before 23:59:00
    assert_eq!(p.last_safe_start.as_deref(), Some("2026-12-17T17:48:30Z"));
    let f = p.findings.iter().find(|f| f.rule == "KQ014").unwrap();
    assert_eq!(f.severity, crate::Severity::Info);
    // on the deadline day after the last safe start: warning
    let p = plan_of(
        11.0,
        "2026-12-19T00:00:00Z",
        "2026-12-17T20:00:00Z",
        "2026-12-17",
        Some(FoldCost {
            hours: 1.5,
            folds: 5,
        }),
    );
    let f = p.findings.iter().find(|f| f.rule == "KQ052").unwrap();
    assert_eq!(f.severity, crate::Severity::Warning);
    assert!(f.title.contains("passed"));
    assert!(!p.findings.iter().any(|f| f.rule == "KQ014"));
}

#[test]
fn exploration_too_small_for_a_cycle() {
    // 0 h now + 1 reset of 30 h, 9 days left: reserve 30, exploration 0 -> no cycle
    let p = plan_of(
        0.0,
        "2026-12-05T00:00:00Z",
        "2026-12-01T08:00:00Z",
        "2026-12-10",
        Some(FoldCost {
            hours: 1.5,
            folds: 5,
        }),
    );
    assert_eq!(p.cycles, Some(0));
    assert!(p.findings.iter().any(|f| f.rule == "KQ015"));
}

#[test]
fn tpu_budget_when_present() {
    let now = at("2026-12-01T08:00:00Z");
    let reading = reading_from_numbers(
        Some((11.0, Some(at("2026-12-05T00:00:00Z")))),
        Some((7.5, Some(at("2026-12-05T00:00:00Z")))),
    );
    let q = quota_state(&reading, None, Observed::Now, now, &t());
    let p = plan_on(q, deadline("2026-12-17"), None, None, now, &t()).unwrap();
    let tb = p.tpu_budget.unwrap();
    assert_eq!(
        (
            tb.plannable_now,
            tb.resets_before_deadline,
            tb.weekly_hours,
            tb.total_hours
        ),
        (7.5, 2, 20.0, 47.5)
    );
    assert_eq!((tb.final_reserve_hours, tb.exploration_hours), (20.0, 27.5));
}

#[test]
fn no_gpu_figure_is_an_error() {
    let now = at("2026-12-01T08:00:00Z");
    let reading = crate::quota::read_quota("No quota information available").unwrap();
    let q = quota_state(&reading, None, Observed::Now, now, &t());
    let e = plan_on(q, deadline("2026-12-17"), None, None, now, &t()).unwrap_err();
    assert_eq!(e.field, "quota");
    assert!(e.message.contains("no GPU figure"), "{e}");
}

#[test]
fn fmt_h_forms() {
    assert_eq!(fmt_h(30.0), "30");
    assert_eq!(fmt_h(0.75), "0.75");
    assert_eq!(fmt_h(4.8), "4.8");
    assert_eq!(fmt_h(-0.0), "0");
}

#[test]
fn budget_sentence_both_phases() {
    let b = Budget {
        accelerator: "GPU",
        plannable_now: 11.0,
        next_reset: String::new(),
        resets_before_deadline: 2,
        weekly_hours: 30.0,
        total_hours: 71.0,
        final_reserve_hours: 30.0,
        exploration_hours: 41.0,
        use_it_or_lose_it: false,
        weeks: Vec::new(),
    };
    assert_eq!(
        b.sentence("2026-12-17T23:59:00Z", false),
        "11 h now + 2 weekly resets x 30 h = 71 GPU-hours until 2026-12-17 23:59 UTC; keep 30 h for the \
         final week (final models and inference kernels), explore with 41 h."
    );
    let one = Budget {
        resets_before_deadline: 1,
        ..b
    };
    assert_eq!(
        one.sentence("2026-12-17T23:59:00Z", true),
        "11 h now + 1 weekly reset x 30 h = 71 GPU-hours until 2026-12-17 23:59 UTC; all 71 h go to final \
         models and inference kernels, diverse members (another backbone family or resolution) before \
         extra seeds."
    );
}

proptest! {
    #[test]
    fn total_never_decreases_when_the_deadline_moves_later(
        remaining in 0.0f64..45.0,
        refresh_min in -20_000i64..20_000,
        dl_min in -5_000i64..200_000,
        later_min in 0i64..50_000,
    ) {
        let now = at("2026-12-01T08:00:00Z");
        let reading = reading_from_numbers(Some((remaining, Some(now + Duration::minutes(refresh_min)))), None);
        let q = quota_state(&reading, None, Observed::Now, now, &t());
        let d1 = now + Duration::minutes(dl_min);
        let d2 = d1 + Duration::minutes(later_min);
        let p1 = plan_on(q.clone(), d1, None, None, now, &t()).unwrap();
        let p2 = plan_on(q, d2, None, None, now, &t()).unwrap();
        prop_assert!(p2.total_hours + 1e-9 >= p1.total_hours, "{} > {}", p1.total_hours, p2.total_hours);
        prop_assert!(p2.resets_before_deadline >= p1.resets_before_deadline);
        for p in [&p1, &p2] {
            prop_assert!((p.final_reserve_hours + p.exploration_hours - p.total_hours).abs() < 0.011);
            prop_assert!(p.final_reserve_hours <= p.total_hours + 1e-9);
            prop_assert!(p.exploration_hours >= 0.0);
        }
    }

    #[test]
    fn cycles_fit_in_the_exploration_budget(
        c in 0.05f64..6.0,
        k in 1u32..12,
        s in 0u32..8,
        remaining in 0.0f64..30.0,
        days in 1i64..60,
    ) {
        let now = at("2026-12-01T08:00:00Z");
        let reading = reading_from_numbers(Some((remaining, Some(at("2026-12-05T00:00:00Z")))), None);
        let q = quota_state(&reading, None, Observed::Now, now, &t());
        let p = plan_on(q, now + Duration::days(days), Some(FoldCost { hours: c, folds: k }), Some(s), now, &t()).unwrap();
        let fp = p.fold_plan.unwrap();
        let spent = f64::from(fp.cycles) * fp.cycle_hours;
        prop_assert!(spent <= p.exploration_hours + 0.05 * f64::from(fp.cycles.max(1)));
        prop_assert!(fp.promotion_hours >= c * f64::from(k) / 2.0);
    }
}

#[test]
fn fold_findings_only_with_a_fold_cost() {
    let p = plan_of(
        11.0,
        "2026-12-05T00:00:00Z",
        "2026-12-01T08:00:00Z",
        "2026-12-17",
        None,
    );
    let rules: Vec<&str> = p.findings.iter().map(|f| f.rule.as_str()).collect();
    for id in ["KQ013", "KQ014", "KQ015", "KQ011", "KQ012"] {
        assert!(!rules.contains(&id), "{id}: {rules:?}");
    }
    assert!(p.cycles.is_none() && p.last_safe_start.is_none());
}

fn request(deadline: &str, gpu: f64) -> PlanRequest {
    PlanRequest {
        deadline: Some(deadline.to_string()),
        gpu_remaining: Some(gpu),
        refresh_at: Some("2026-12-05T00:00:00".to_string()),
        ..PlanRequest::default()
    }
}

const TABLE: &str = "resource  used   remaining  total   refreshAt\n\
GPU       19.00h  11.00h     30.00h  2026-12-05T00:00:00\n\
TPU       0.00h   20.00h     20.00h  2026-12-05T00:00:00\n";

#[test]
fn a_bad_request_names_its_field() {
    let now = at("2026-12-01T08:00:00Z");
    let base = request("2026-12-17", 11.0);
    let error = |r: PlanRequest| plan(&r, now).unwrap_err();
    let field = |r: PlanRequest| error(r).field;
    let cases: Vec<(PlanRequest, &str)> = vec![
        (
            PlanRequest {
                deadline: None,
                ..base.clone()
            },
            "deadline",
        ),
        (
            PlanRequest {
                deadline: Some("17/12/2026".into()),
                ..base.clone()
            },
            "deadline",
        ),
        (
            PlanRequest {
                gpu_remaining: None,
                ..base.clone()
            },
            "gpuRemaining",
        ),
        (
            PlanRequest {
                gpu_remaining: Some(-3.0),
                ..base.clone()
            },
            "gpuRemaining",
        ),
        (
            PlanRequest {
                gpu_remaining: Some(200.0),
                ..base.clone()
            },
            "gpuRemaining",
        ),
        (
            PlanRequest {
                quota: Some(TABLE.into()),
                ..base.clone()
            },
            "gpuRemaining",
        ),
        (
            PlanRequest {
                tpu_remaining: Some(-1.0),
                ..base.clone()
            },
            "tpuRemaining",
        ),
        (
            PlanRequest {
                reserved: Some(f64::NAN),
                ..base.clone()
            },
            "reserved",
        ),
        (
            PlanRequest {
                refresh_at: Some("soon".into()),
                ..base.clone()
            },
            "refreshAt",
        ),
        (
            PlanRequest {
                fold_hours: Some(0.0),
                folds: Some(5),
                ..base.clone()
            },
            "foldHours",
        ),
        (
            PlanRequest {
                fold_hours: Some(1.5),
                folds: Some(0),
                ..base.clone()
            },
            "folds",
        ),
        (
            PlanRequest {
                folds: Some(5),
                ..base.clone()
            },
            "foldHours",
        ),
        (
            PlanRequest {
                fold_hours: Some(1.5),
                ..base.clone()
            },
            "folds",
        ),
        (
            PlanRequest {
                weekly_hours: Some(0.0),
                ..base.clone()
            },
            "weeklyHours",
        ),
        (
            PlanRequest {
                weekly_hours: Some(500.0),
                ..base.clone()
            },
            "weeklyHours",
        ),
        (
            PlanRequest {
                now: Some("soon".into()),
                ..base.clone()
            },
            "now",
        ),
        (
            PlanRequest {
                set: crate::request::Overrides(vec!["nope=1".into()]),
                ..base.clone()
            },
            "set",
        ),
    ];
    for (r, expected) in cases {
        assert_eq!(field(r.clone()), expected, "{r:?}");
    }
    assert!(
        error(PlanRequest {
            folds: Some(5),
            ..base.clone()
        })
        .message
        .contains("go together")
    );
    // The quota's own errors name the line of the text.
    let quota = |text: &str| PlanRequest {
        gpu_remaining: None,
        quota: Some(text.to_string()),
        ..base.clone()
    };
    let e = error(quota("what is this"));
    assert_eq!((e.field.as_str(), e.line), ("quota", Some(1)));
    let e = error(quota("No quota information available"));
    assert_eq!(e.field, "quota");
    assert!(e.message.contains("no GPU figure"), "{e}");
}

#[test]
fn the_figures_given_change_the_quota() {
    let now = at("2026-12-01T08:00:00Z");
    // Reserved hours and a floating weekly quota (the CLI's --reserved 4 --weekly-hours 45).
    let p = plan(
        &PlanRequest {
            reserved: Some(4.0),
            weekly_hours: Some(45.0),
            ..request("2026-12-17", 11.0)
        },
        now,
    )
    .unwrap();
    assert_eq!(
        (p.plannable_now, p.weekly_hours, p.total_hours),
        (7.0, 45.0, 97.0)
    );
    // A pasted table: the TPU remaining hours and the reset given replace the table's.
    let p = plan(
        &PlanRequest {
            gpu_remaining: None,
            quota: Some(TABLE.into()),
            tpu_remaining: Some(5.0),
            refresh_at: Some("2026-12-04T00:00:00Z".into()),
            live: true,
            ..request("2026-12-17", 0.0)
        },
        now,
    )
    .unwrap();
    assert_eq!(p.plannable_now, 11.0);
    assert_eq!(
        p.quota.gpu.as_ref().unwrap().refresh_at,
        "2026-12-04T00:00:00Z"
    );
    assert_eq!(p.tpu_budget.as_ref().unwrap().plannable_now, 5.0);
    assert!(p.quota.live);
    // Typed TPU hours next to typed GPU hours plan the TPU too.
    let p = plan(
        &PlanRequest {
            tpu_remaining: Some(7.5),
            ..request("2026-12-17", 11.0)
        },
        now,
    )
    .unwrap();
    assert_eq!(p.tpu_budget.unwrap().total_hours, 47.5);
}

#[test]
fn json_requests_use_the_flags_in_camel_case() {
    let r: PlanRequest = crate::request::from_json(
        r#"{"deadline": "2026-12-17", "gpuRemaining": 11, "refreshAt": "2026-12-05T00:00:00",
            "foldHours": 1.5, "folds": 5, "screensPerPromotion": 4, "weeklyHours": 45}"#,
    )
    .unwrap();
    assert_eq!(
        r,
        PlanRequest {
            fold_hours: Some(1.5),
            folds: Some(5),
            screens_per_promotion: Some(4),
            weekly_hours: Some(45.0),
            ..request("2026-12-17", 11.0)
        }
    );
    let e = crate::request::from_json::<PlanRequest>(r#"{"gpu_remaining": 11}"#).unwrap_err();
    assert_eq!(e.field, "gpu_remaining");
}

#[test]
fn the_plan_in_sentences() {
    let now = at("2026-12-01T08:00:00Z");
    let fold = PlanRequest {
        fold_hours: Some(1.5),
        folds: Some(5),
        ..request("2026-12-17", 11.0)
    };
    let s = plan(&fold, now).unwrap().sentences();
    assert_eq!(
        s.budgets,
        vec![
            "11 h now + 2 weekly resets x 30 h = 71 GPU-hours until 2026-12-17 23:59 UTC; keep 30 h for the \
             final week (final models and inference kernels), explore with 41 h."
        ]
    );
    assert_eq!(
        s.phase.as_deref(),
        Some("Phase: exploration (16.7 days left).")
    );
    assert_eq!(s.fold_plan.len(), 3, "{:?}", s.fold_plan);
    assert!(s.fold_plan[1].starts_with("41 h of exploration buy 4 cycles"));
    assert!(s.fold_plan[2].contains("by 2026-12-17 17:48 UTC"));
    // In the final week nothing is explored; once the deadline has passed nothing is planned.
    let final_week = plan(
        &PlanRequest {
            now: Some("2026-12-14T00:00:00Z".into()),
            ..fold.clone()
        },
        now,
    )
    .unwrap();
    assert_eq!(final_week.sentences().fold_plan.len(), 2);
    let ended = plan(
        &PlanRequest {
            deadline: Some("2026-11-20".into()),
            ..fold
        },
        now,
    )
    .unwrap();
    let s = ended.sentences();
    assert_eq!(
        s.budgets,
        vec!["The deadline 2026-11-20 23:59 UTC has passed: nothing to plan."]
    );
    assert!(s.phase.is_none() && s.fold_plan.is_empty());
}
