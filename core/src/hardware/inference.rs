//! The inference time budget of a code competition (CE §1 "Inference kernels (code competitions)", CE
//! §6 `inference_kernel.py`): from a measured time per item (or per batch), the hidden test's size and
//! the competition's run-time limit, the expected run time on the hidden test and whether it keeps the
//! margin the seed asks for, with the fixes (the inference defaults, resolved for the platform) when it
//! does not.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::hardware::domains::{DefaultsRun, DroppedDefault, pytorch_unusable};
use crate::hardware::{NoteAnswer, check_platform, notes_of};
use crate::request::{Overrides, RequestError, now_of};
use crate::rulebook::finding::Finding;
use crate::rulebook::ids::{entry, rule, threshold};
use crate::rulebook::report::{Findings, Report};
use crate::rulebook::{Domain, Thresholds, rulebook};
use crate::text::number::{fixed, shortest};

pub const INFERENCE_SCHEMA: &str = "kgadvise.inference/1";

/// `kgadvise inference`: will an inference kernel finish on the hidden test within the competition's
/// run-time limit, with the margin to spare? Give `itemSeconds`, or `batchSeconds` with `batchSize`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(feature = "cli", command(group(clap::ArgGroup::new("timing").required(true).args(["item_seconds", "batch_seconds"]))))]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct InferenceRequest {
    /// Measured seconds per test item (a row, an image, a text) of the whole pipeline, every ensemble
    /// member included.
    #[cfg_attr(feature = "cli", arg(long, value_name = "S"))]
    pub item_seconds: Option<f64>,
    /// Measured seconds per batch of the batch size's items, instead of the seconds per item.
    #[cfg_attr(
        feature = "cli",
        arg(
            long,
            value_name = "S",
            requires = "batch_size",
            conflicts_with = "item_seconds"
        )
    )]
    pub batch_seconds: Option<f64>,
    /// Items per batch of the seconds per batch.
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "N", requires = "batch_seconds")
    )]
    pub batch_size: Option<u32>,
    /// Items in the hidden test set (required).
    #[cfg_attr(feature = "schema", schemars(extend("x-required" = true)))]
    #[cfg_attr(feature = "cli", arg(long, value_name = "N", required = true))]
    pub test_items: Option<u64>,
    /// The competition's run-time limit in hours (required; the competition's code requirements state
    /// it).
    #[cfg_attr(feature = "schema", schemars(extend("x-required" = true)))]
    #[cfg_attr(feature = "cli", arg(long, value_name = "H", required = true, value_parser = crate::text::hours::parse_hours))]
    pub limit_hours: Option<f64>,
    /// Seconds spent outside the per-item loop: installing wheels, loading the models, reading the test
    /// (default: none).
    #[cfg_attr(feature = "cli", arg(long, value_name = "S"))]
    pub setup_seconds: Option<f64>,
    /// Items the timing run covered: fewer than the hidden test makes the estimate an extrapolation.
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    pub timed_items: Option<u64>,
    /// Platform the kernel runs on, to resolve the fixes for it (t4x2, p100, tpu-v5e-8, cpu, windows,
    /// linux).
    #[cfg_attr(feature = "cli", arg(long, short))]
    pub platform: Option<String>,
    /// The time of the answer, for the age of the entries used (RFC 3339 or a date; default: the
    /// caller's clock).
    #[cfg_attr(feature = "schema", schemars(extend("x-time" = true)))]
    #[cfg_attr(feature = "cli", arg(skip))]
    pub now: Option<String>,
    /// Threshold overrides.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub set: Overrides,
}

/// Where the expected run time lands against the limit and the margin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(rename = "HardwareBudget")
)]
#[serde(rename_all = "kebab-case")]
pub enum Budget {
    /// At most the limit less the margin.
    KeepsMargin,
    /// Within the limit, but with less than the margin to spare.
    ThinMargin,
    /// Past the limit: the submission fails.
    OverLimit,
}

impl Budget {
    pub fn as_str(self) -> &'static str {
        match self {
            Budget::KeepsMargin => "keeps-margin",
            Budget::ThinMargin => "thin-margin",
            Budget::OverLimit => "over-limit",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct InferenceReport {
    pub schema: &'static str,
    /// `keeps-margin`, `thin-margin` or `over-limit`.
    pub budget: Budget,
    /// Seconds per item (the batch time over the batch size when timed per batch).
    pub item_seconds: f64,
    pub batch_seconds: Option<f64>,
    pub batch_size: Option<u32>,
    pub test_items: u64,
    pub timed_items: Option<u64>,
    pub setup_seconds: f64,
    /// The expected run time on the hidden test: set-up + the items (or batches) at the measured time.
    pub expected_seconds: f64,
    pub expected_hours: f64,
    pub limit_hours: f64,
    /// The share of the limit left unused (negative past the limit).
    pub margin: f64,
    /// The share the seed asks to leave unused.
    pub min_margin: f64,
    /// The most the run may take and keep the margin: limit x (1 - min_margin).
    pub budget_hours: f64,
    /// Items that fit in the budget at the measured time.
    pub items_in_budget: u64,
    /// How many times faster the per-item loop must run to keep the margin; none when it keeps it, or
    /// when the set-up alone takes the whole budget.
    pub speedup_needed: Option<f64>,
    pub platform: Option<String>,
    pub platform_name: Option<String>,
    /// When the margin is not kept: the inference defaults to apply, resolved for the platform.
    pub fixes: Vec<String>,
    /// The inference defaults that do not apply on the platform, with the reason.
    pub left_out: Vec<DroppedDefault>,
    /// Advice the seeds give in words for inference kernels, each with its ID and source.
    pub notes: Vec<NoteAnswer>,
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for InferenceReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }

    fn text(&self) -> String {
        crate::hardware::text::inference(self)
    }
}

/// How the time per item was measured.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Timing {
    PerItem { seconds: f64 },
    PerBatch { seconds: f64, size: u32 },
}

/// The validated request and what follows from it: what every inference rule reads.
struct InferenceRun {
    timing: Timing,
    test_items: u64,
    timed_items: Option<u64>,
    setup_seconds: f64,
    limit_seconds: f64,
    min_margin: f64,
    expected_seconds: f64,
    budget_seconds: f64,
    budget: Budget,
    defaults: DefaultsRun,
}

fn positive(field: &str, value: f64, expected: &str) -> Result<f64, RequestError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(RequestError::value(
            field,
            shortest(value),
            format!("expected {expected}"),
        ))
    }
}

fn timing(request: &InferenceRequest) -> Result<Timing, RequestError> {
    match (
        request.item_seconds,
        request.batch_seconds,
        request.batch_size,
    ) {
        (Some(seconds), None, None) => Ok(Timing::PerItem {
            seconds: positive(
                "itemSeconds",
                seconds,
                "a positive number of seconds per item",
            )?,
        }),
        (None, Some(seconds), Some(size)) => {
            if size == 0 {
                return Err(RequestError::value(
                    "batchSize",
                    "0",
                    "expected at least 1 item per batch",
                ));
            }
            Ok(Timing::PerBatch {
                seconds: positive(
                    "batchSeconds",
                    seconds,
                    "a positive number of seconds per batch",
                )?,
                size,
            })
        }
        (None, Some(_), None) => Err(RequestError::new(
            "batchSize",
            "expected the items per batch of the measured batch time",
        )),
        (None, None, Some(_)) => Err(RequestError::new(
            "batchSeconds",
            "expected the measured seconds per batch of this size",
        )),
        (Some(_), _, _) => Err(RequestError::new(
            "itemSeconds",
            "expected either the seconds per item or the seconds per batch with the batch size, not both",
        )),
        (None, None, None) => Err(RequestError::new(
            "itemSeconds",
            "expected the measured seconds per item, or the seconds per batch with the batch size",
        )),
    }
}

fn inference_domain() -> Result<&'static Domain, RequestError> {
    rulebook()
        .domains
        .iter()
        .find(|d| d.id == entry::DOMAIN_INFERENCE.as_str())
        .ok_or_else(|| RequestError::new("", "the rules have no inference domain"))
}

impl InferenceRun {
    fn of(
        request: &InferenceRequest,
        thresholds: &Thresholds,
    ) -> Result<InferenceRun, RequestError> {
        let timing = timing(request)?;
        let test_items = match request.test_items {
            None => {
                return Err(RequestError::new(
                    "testItems",
                    "expected the number of items in the hidden test set",
                ));
            }
            Some(0) => {
                return Err(RequestError::value(
                    "testItems",
                    "0",
                    "expected at least 1 item",
                ));
            }
            Some(n) => n,
        };
        let limit_hours = request.limit_hours.ok_or_else(|| {
            RequestError::new(
                "limitHours",
                "expected the competition's run-time limit in hours (its code requirements state it)",
            )
        })?;
        let limit_hours = positive("limitHours", limit_hours, "a positive number of hours")?;
        let setup_seconds = match request.setup_seconds {
            Some(s) if !(s.is_finite() && s >= 0.0) => {
                return Err(RequestError::value(
                    "setupSeconds",
                    shortest(s),
                    "expected 0 or more seconds",
                ));
            }
            other => other.unwrap_or(0.0),
        };
        if request.timed_items == Some(0) {
            return Err(RequestError::value(
                "timedItems",
                "0",
                "expected at least 1 item",
            ));
        }
        let platform = request
            .platform
            .as_deref()
            .map(check_platform)
            .transpose()?;
        let defaults = DefaultsRun::resolved(inference_domain()?, platform, None, None);
        let limit_seconds = limit_hours * 3600.0;
        let min_margin = thresholds.get(threshold::INFERENCE_MIN_MARGIN);
        let expected_seconds = setup_seconds + loop_seconds(timing, test_items);
        let budget_seconds = limit_seconds * (1.0 - min_margin);
        let budget = if expected_seconds > limit_seconds {
            Budget::OverLimit
        } else if expected_seconds > budget_seconds + 1e-9 {
            Budget::ThinMargin
        } else {
            Budget::KeepsMargin
        };
        Ok(InferenceRun {
            timing,
            test_items,
            timed_items: request.timed_items,
            setup_seconds,
            limit_seconds,
            min_margin,
            expected_seconds,
            budget_seconds,
            budget,
            defaults,
        })
    }

    fn item_seconds(&self) -> f64 {
        match self.timing {
            Timing::PerItem { seconds } => seconds,
            Timing::PerBatch { seconds, size } => seconds / f64::from(size),
        }
    }

    /// The share of the limit left unused.
    fn margin(&self) -> f64 {
        1.0 - self.expected_seconds / self.limit_seconds
    }

    /// The seconds the per-item loop may take within the budget (none: the set-up takes it all).
    fn loop_budget(&self) -> Option<f64> {
        let left = self.budget_seconds - self.setup_seconds;
        (left > 0.0).then_some(left)
    }

    fn items_in_budget(&self) -> u64 {
        let Some(left) = self.loop_budget() else {
            return 0;
        };
        let items = match self.timing {
            // The epsilon keeps an exact fit (25920 s / 0.9 s) from flooring one short.
            Timing::PerItem { seconds } => (left / seconds + 1e-9).floor(),
            Timing::PerBatch { seconds, size } => (left / seconds + 1e-9).floor() * f64::from(size),
        };
        items as u64
    }

    /// How many times faster the per-item loop must run to keep the margin, rounded up to 0.01.
    fn speedup_needed(&self) -> Option<f64> {
        if self.budget == Budget::KeepsMargin {
            return None;
        }
        let left = self.loop_budget()?;
        let speedup = (self.expected_seconds - self.setup_seconds) / left;
        Some((speedup * 100.0 - 1e-9).ceil() / 100.0)
    }

    /// `0 s set-up + 40000 items x 0.9 s` (or the batches) as the evidence says it.
    fn how(&self) -> String {
        let looped = match self.timing {
            Timing::PerItem { seconds } => {
                format!("{} items x {} s", self.test_items, shortest(seconds))
            }
            Timing::PerBatch { seconds, size } => format!(
                "{} batches of {size} x {} s",
                self.test_items.div_ceil(u64::from(size)),
                shortest(seconds)
            ),
        };
        format!("{} s set-up + {looped}", shortest(self.setup_seconds))
    }

    /// `the per-item loop must run 1.39x faster (or 28800 items fit)` for the evidence.
    fn what_it_takes(&self) -> String {
        match self.speedup_needed() {
            Some(x) => format!(
                "the per-item loop must run {}x faster (at this rate {} of the {} items fit)",
                shortest(x),
                self.items_in_budget(),
                self.test_items
            ),
            None => format!(
                "the set-up alone ({} s) takes the whole budget: load less before the first item",
                shortest(self.setup_seconds)
            ),
        }
    }
}

/// Seconds of the per-item loop over the hidden test: every item, or every batch (the last one whole).
fn loop_seconds(timing: Timing, items: u64) -> f64 {
    match timing {
        Timing::PerItem { seconds } => seconds * items as f64,
        Timing::PerBatch { seconds, size } => seconds * items.div_ceil(u64::from(size)) as f64,
    }
}

fn hours(seconds: f64) -> String {
    shortest(round2(seconds / 3600.0))
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn percent(share: f64) -> String {
    fixed(share * 100.0, 1)
}

/// KH020: the expected run time is past the limit.
fn over_limit(run: &InferenceRun, out: &mut Findings) {
    if run.budget != Budget::OverLimit {
        return;
    }
    out.add(
        rule::KH020,
        format!(
            "expected {} h ({}) > the {} h limit; to keep the {} % margin (at most {} h) {}",
            hours(run.expected_seconds),
            run.how(),
            hours(run.limit_seconds),
            percent(run.min_margin),
            hours(run.budget_seconds),
            run.what_it_takes()
        ),
    );
}

/// KH021: within the limit, with less than the margin left.
fn thin_margin(run: &InferenceRun, out: &mut Findings) {
    if run.budget != Budget::ThinMargin {
        return;
    }
    out.add(
        rule::KH021,
        format!(
            "expected {} h ({}) of the {} h limit: a {} % margin, below {} % (at most {} h); {}",
            hours(run.expected_seconds),
            run.how(),
            hours(run.limit_seconds),
            percent(run.margin()),
            percent(run.min_margin),
            hours(run.budget_seconds),
            run.what_it_takes()
        ),
    );
}

/// KH022: the timing run was smaller than the hidden test, or its size is unknown.
fn extrapolated(run: &InferenceRun, out: &mut Findings) {
    let evidence = match run.timed_items {
        Some(timed) if timed >= run.test_items => return,
        Some(timed) => format!(
            "timed on {timed} items; the hidden test has {} (a {}x extrapolation)",
            run.test_items,
            shortest(round2(run.test_items as f64 / timed as f64))
        ),
        None => format!(
            "the size of the timing run was not given; the hidden test has {} items",
            run.test_items
        ),
    };
    out.add(rule::KH022, evidence);
}

/// `kgadvise inference`: the expected run time of an inference kernel on the hidden test against the
/// competition's run-time limit, and the fixes when it does not keep the margin. Errors name the
/// request field.
pub fn inference(
    request: &InferenceRequest,
    clock: DateTime<Utc>,
) -> Result<InferenceReport, RequestError> {
    let now = now_of(request.now.as_deref(), clock)?;
    let thresholds = request.set.thresholds()?;
    let run = InferenceRun::of(request, &thresholds)?;
    let mut out = Findings::new();
    over_limit(&run, &mut out);
    thin_margin(&run, &mut out);
    extrapolated(&run, &mut out);
    pytorch_unusable(&run.defaults, &mut out);
    out.uses(threshold::INFERENCE_MIN_MARGIN);
    out.uses(entry::DOMAIN_INFERENCE);
    let platform = run.defaults.platform;
    if let Some(p) = platform {
        out.uses_entry(&p.id);
    }
    let notes = notes_of(entry::DOMAIN_INFERENCE.as_str(), &mut out);
    let closed = out.finish(now.date_naive(), &thresholds);
    let (fixes, left_out) = if run.budget == Budget::KeepsMargin {
        (Vec::new(), Vec::new())
    } else {
        let d = &run.defaults;
        let fixes = d.always.iter().chain(&d.when_measured).cloned().collect();
        (fixes, d.dropped.clone())
    };
    Ok(InferenceReport {
        schema: INFERENCE_SCHEMA,
        budget: run.budget,
        item_seconds: run.item_seconds(),
        batch_seconds: request.batch_seconds,
        batch_size: request.batch_size,
        test_items: run.test_items,
        timed_items: run.timed_items,
        setup_seconds: run.setup_seconds,
        expected_seconds: run.expected_seconds,
        expected_hours: round2(run.expected_seconds / 3600.0),
        limit_hours: run.limit_seconds / 3600.0,
        margin: (run.margin() * 10_000.0).round() / 10_000.0,
        min_margin: run.min_margin,
        budget_hours: round2(run.budget_seconds / 3600.0),
        items_in_budget: run.items_in_budget(),
        speedup_needed: run.speedup_needed(),
        platform: platform.map(|p| p.key.to_string()),
        platform_name: platform.map(|p| p.name.to_string()),
        fixes,
        left_out,
        notes,
        rules: closed.rules,
        findings: closed.findings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock() -> DateTime<Utc> {
        "2026-11-30T00:00:00Z".parse().unwrap()
    }

    fn request(item_seconds: f64, test_items: u64, limit_hours: f64) -> InferenceRequest {
        InferenceRequest {
            item_seconds: Some(item_seconds),
            test_items: Some(test_items),
            limit_hours: Some(limit_hours),
            timed_items: Some(test_items),
            ..InferenceRequest::default()
        }
    }

    fn rules_of(r: &InferenceReport) -> Vec<&str> {
        r.findings.iter().map(|f| f.rule.as_str()).collect()
    }

    #[test]
    fn past_the_limit_is_an_error_with_the_speedup_it_takes() {
        let r = inference(&request(0.9, 40_000, 9.0), clock()).unwrap();
        assert_eq!(r.budget, Budget::OverLimit);
        assert_eq!(r.expected_hours, 10.0);
        assert_eq!(r.budget_hours, 7.2);
        assert_eq!(r.items_in_budget, 28_800);
        assert_eq!(r.speedup_needed, Some(1.39));
        assert_eq!(rules_of(&r), ["KH020"]);
        assert!(
            r.findings[0]
                .evidence
                .contains("expected 10 h (0 s set-up + 40000 items x 0.9 s) > the 9 h limit"),
            "{}",
            r.findings[0].evidence
        );
        assert!(
            r.fixes
                .iter()
                .any(|f| f.contains("large batches sorted by length"))
        );
        assert!(
            r.fixes.iter().any(|f| f.contains("both T4s")),
            "{:?}",
            r.fixes
        );
        assert!(crate::rulebook::finding::has_errors(&r.findings));
    }

    #[test]
    fn a_thin_margin_warns_and_a_kept_margin_is_quiet() {
        let thin = inference(&request(0.7, 40_000, 9.0), clock()).unwrap();
        assert_eq!(thin.budget, Budget::ThinMargin);
        assert_eq!(rules_of(&thin), ["KH021"]);
        assert_eq!(thin.margin, 0.1358);
        assert!(
            thin.findings[0]
                .evidence
                .contains("a 13.6 % margin, below 20.0 %"),
            "{}",
            thin.findings[0].evidence
        );
        let kept = inference(&request(0.648, 40_000, 9.0), clock()).unwrap();
        assert_eq!(
            kept.budget,
            Budget::KeepsMargin,
            "exactly 80 % of the limit keeps it"
        );
        assert!(kept.findings.is_empty(), "{:?}", kept.findings);
        assert!(kept.fixes.is_empty() && kept.speedup_needed.is_none());
        let looser = InferenceRequest {
            set: Overrides(vec!["inference.min-margin=0.1".into()]),
            ..request(0.7, 40_000, 9.0)
        };
        assert_eq!(
            inference(&looser, clock()).unwrap().budget,
            Budget::KeepsMargin
        );
    }

    #[test]
    fn batches_count_whole_and_the_setup_counts_once() {
        let r = inference(
            &InferenceRequest {
                item_seconds: None,
                batch_seconds: Some(2.0),
                batch_size: Some(64),
                setup_seconds: Some(600.0),
                ..request(1.0, 1000, 1.0)
            },
            clock(),
        )
        .unwrap();
        // ceil(1000 / 64) = 16 batches x 2 s + 600 s
        assert_eq!(r.expected_seconds, 632.0);
        assert_eq!(r.item_seconds, 2.0 / 64.0);
        assert_eq!(
            r.items_in_budget,
            ((2880.0 - 600.0) / 2.0_f64).floor() as u64 * 64
        );
        let setup_heavy = inference(
            &InferenceRequest {
                setup_seconds: Some(3000.0),
                ..request(0.001, 1000, 1.0)
            },
            clock(),
        )
        .unwrap();
        assert_eq!(setup_heavy.budget, Budget::ThinMargin);
        assert_eq!(setup_heavy.speedup_needed, None);
        assert!(
            setup_heavy.findings[0]
                .evidence
                .contains("the set-up alone (3000 s) takes the whole budget"),
            "{}",
            setup_heavy.findings[0].evidence
        );
    }

    #[test]
    fn a_small_timing_run_is_an_extrapolation() {
        let small = InferenceRequest {
            timed_items: Some(1000),
            ..request(0.1, 40_000, 9.0)
        };
        let r = inference(&small, clock()).unwrap();
        assert_eq!(rules_of(&r), ["KH022"]);
        assert!(
            r.findings[0].evidence.contains("a 40x extrapolation"),
            "{}",
            r.findings[0].evidence
        );
        let unknown = InferenceRequest {
            timed_items: None,
            ..request(0.1, 40_000, 9.0)
        };
        let r = inference(&unknown, clock()).unwrap();
        assert!(
            r.findings[0].evidence.contains("was not given"),
            "{:?}",
            r.findings
        );
    }

    #[test]
    fn the_platform_resolves_the_fixes_and_the_notes_come_with_the_answer() {
        let cpu = InferenceRequest {
            platform: Some("cpu".into()),
            ..request(0.9, 40_000, 9.0)
        };
        let r = inference(&cpu, clock()).unwrap();
        assert!(
            r.fixes.iter().any(|f| f.contains("OpenVINO")),
            "{:?}",
            r.fixes
        );
        assert!(
            !r.fixes.iter().any(|f| f.contains("TensorRT")),
            "{:?}",
            r.fixes
        );
        assert!(
            r.left_out.iter().any(|d| d.text.contains("both T4s")),
            "{:?}",
            r.left_out
        );
        assert_eq!(r.platform_name.as_deref(), Some("Kaggle CPU-only kernel"));
        let ids: Vec<&str> = r.notes.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "note.paired-check-speed-changes",
                "note.chain-kernel-outputs",
                "note.working-dir-size"
            ]
        );
        let p100 = InferenceRequest {
            platform: Some("p100".into()),
            ..request(0.1, 100, 9.0)
        };
        assert_eq!(rules_of(&inference(&p100, clock()).unwrap()), ["KH001"]);
    }

    #[test]
    fn bad_requests_name_the_field() {
        let field = |r: InferenceRequest| inference(&r, clock()).unwrap_err().field;
        let base = request(0.5, 100, 9.0);
        assert_eq!(
            field(InferenceRequest {
                item_seconds: None,
                ..base.clone()
            }),
            "itemSeconds"
        );
        assert_eq!(
            field(InferenceRequest {
                item_seconds: Some(0.0),
                ..base.clone()
            }),
            "itemSeconds"
        );
        assert_eq!(
            field(InferenceRequest {
                batch_seconds: Some(1.0),
                ..base.clone()
            }),
            "itemSeconds"
        );
        let batch = InferenceRequest {
            item_seconds: None,
            batch_seconds: Some(1.0),
            ..base.clone()
        };
        assert_eq!(field(batch.clone()), "batchSize");
        assert_eq!(
            field(InferenceRequest {
                batch_size: Some(0),
                ..batch
            }),
            "batchSize"
        );
        assert_eq!(
            field(InferenceRequest {
                item_seconds: None,
                batch_size: Some(8),
                ..base.clone()
            }),
            "batchSeconds"
        );
        assert_eq!(
            field(InferenceRequest {
                test_items: None,
                ..base.clone()
            }),
            "testItems"
        );
        assert_eq!(
            field(InferenceRequest {
                test_items: Some(0),
                ..base.clone()
            }),
            "testItems"
        );
        assert_eq!(
            field(InferenceRequest {
                limit_hours: None,
                ..base.clone()
            }),
            "limitHours"
        );
        assert_eq!(
            field(InferenceRequest {
                limit_hours: Some(-1.0),
                ..base.clone()
            }),
            "limitHours"
        );
        assert_eq!(
            field(InferenceRequest {
                setup_seconds: Some(-1.0),
                ..base.clone()
            }),
            "setupSeconds"
        );
        assert_eq!(
            field(InferenceRequest {
                timed_items: Some(0),
                ..base.clone()
            }),
            "timedItems"
        );
        assert_eq!(
            field(InferenceRequest {
                platform: Some("t4".into()),
                ..base.clone()
            }),
            "platform"
        );
        let e = inference(
            &InferenceRequest {
                limit_hours: None,
                ..base
            },
            clock(),
        )
        .unwrap_err();
        assert!(e.message.contains("run-time limit in hours"), "{e}");
        let json = crate::request::from_json::<InferenceRequest>(
            r#"{"itemSeconds": 0.5, "testItems": 100, "limitHours": 9, "timedItems": 100}"#,
        )
        .unwrap();
        assert_eq!(json, request(0.5, 100, 9.0));
    }
}
