use std::process::ExitCode;

use kgadvise_core::quota::plan::{self, FoldCost, PlanReport, fmt_h};
use kgadvise_core::quota::{self, Observed};
use kgadvise_core::text::number::{fixed, shortest};
use kgadvise_core::text::when::{DateRole, parse_time};

use crate::commands::quota::load;
use crate::output::{CliError, Global, emit, render_findings, table};
use kgadvise_core::text::when::display_utc;

const EXAMPLES: &str = "Examples:
  kgadvise plan --deadline 2026-12-17 --gpu-remaining 11 --refresh-at 2026-12-05T00:00:00
  kaggle quota -v > quota.csv && kgadvise plan --deadline 2026-12-17 --quota quota.csv --live
  kgadvise plan --deadline 2026-12-17 --quota .kaggle-gm/gpu_quota.json --runs .kaggle-gm/gpu_runs.jsonl \\
      --fold-hours 1.5 --folds 5 --json

A bare deadline date ends at 23:59:00 UTC. Resets are counted from refreshAt in 7-day steps, strictly before
the deadline; a stored refreshAt already in the past is rolled forward first (never counted twice).";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// The deadline: RFC 3339 or a date (ends 23:59:00 UTC).
    #[arg(long)]
    pub deadline: String,
    /// The quota in any form `kgadvise quota` reads (- for stdin).
    #[arg(long, value_name = "FILE", conflicts_with = "gpu_remaining")]
    pub quota: Option<String>,
    /// GPU hours remaining now (instead of --quota).
    #[arg(long, value_name = "H")]
    pub gpu_remaining: Option<f64>,
    /// TPU hours remaining now (plans the TPU too).
    #[arg(long, value_name = "H")]
    pub tpu_remaining: Option<f64>,
    /// The next reset (refreshAt of `kaggle quota`); default: the next Saturday 00:00 UTC.
    #[arg(long, value_name = "T")]
    pub refresh_at: Option<String>,
    /// GPU hours held by running sessions (subtracted: plannable = remaining - reserved).
    #[arg(long, value_name = "H")]
    pub reserved: Option<f64>,
    /// kgkit's runs log: in-flight runs reserve hours.
    #[arg(long, value_name = "FILE")]
    pub runs: Option<String>,
    /// Measured cost of one fold, hours on one GPU.
    #[arg(long, value_name = "C", requires = "folds")]
    pub fold_hours: Option<f64>,
    /// Folds of a full CV run.
    #[arg(long, value_name = "K", requires = "fold_hours")]
    pub folds: Option<u32>,
    /// One-fold screens per full-CV promotion (default 5; the seed says 4-6).
    #[arg(long, value_name = "S")]
    pub screens_per_promotion: Option<u32>,
    /// The --quota figure was read just now.
    #[arg(long)]
    pub live: bool,
    /// Weekly GPU hours when they differ from the 30 h of the facts (floating quota, e.g. 45).
    #[arg(long, value_name = "H")]
    pub weekly_hours: Option<f64>,
}

fn non_negative(name: &str, v: Option<f64>) -> Result<(), CliError> {
    match v {
        Some(x) if !(x.is_finite() && x >= 0.0) => Err(CliError::usage(format!(
            "{name} {x}: expected a non-negative number of hours",
            x = shortest(x)
        ))),
        _ => Ok(()),
    }
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let now = global.now()?;
    let thresholds = global.thresholds()?;
    let deadline = parse_time(&args.deadline, DateRole::Deadline)
        .map_err(|e| CliError::usage(format!("--deadline: {e}")))?;
    let refresh = args
        .refresh_at
        .as_deref()
        .map(|t| parse_time(t, DateRole::Instant))
        .transpose()
        .map_err(|e| CliError::usage(format!("--refresh-at: {e}")))?;
    non_negative("--gpu-remaining", args.gpu_remaining)?;
    non_negative("--tpu-remaining", args.tpu_remaining)?;
    non_negative("--reserved", args.reserved)?;
    if let Some(c) = args.fold_hours
        && !(c.is_finite() && c > 0.0)
    {
        return Err(CliError::usage(format!(
            "--fold-hours {c}: expected a positive number of hours",
            c = shortest(c)
        )));
    }
    if args.folds == Some(0) {
        return Err(CliError::usage("--folds 0: expected at least 1 fold"));
    }
    if let Some(w) = args.weekly_hours
        && !(w.is_finite() && w > 0.0 && w <= quota::HOURS_PER_WEEK)
    {
        return Err(CliError::usage(format!(
            "--weekly-hours {w}: expected hours between 0 and {} (one week)",
            shortest(quota::HOURS_PER_WEEK),
            w = shortest(w)
        )));
    }
    let adjust = |r: &mut quota::QuotaReading| {
        if let (Some(w), Some(g)) = (args.weekly_hours, r.gpu.as_mut()) {
            g.total = w;
            g.remaining = g.remaining.min(w);
            g.used = (w - g.remaining).max(0.0);
        }
        for q in [r.gpu.as_mut(), r.tpu.as_mut()].into_iter().flatten() {
            if refresh.is_some() {
                q.refresh_at = refresh;
            }
        }
        if let (Some(h), Some(g)) = (args.reserved, r.gpu.as_mut()) {
            g.reserved = Some(h);
        }
        if let Some(t) = args.tpu_remaining {
            let tpu = quota::reading_from_numbers(None, Some((t, refresh))).tpu;
            if r.tpu.is_none() || r.form == quota::QuotaForm::Numbers {
                r.tpu = tpu;
            } else if let Some(q) = r.tpu.as_mut() {
                q.remaining = t;
            }
        }
    };
    let report = match (&args.quota, args.gpu_remaining) {
        (Some(path), _) => load(
            path,
            args.runs.as_deref(),
            args.live,
            None,
            now,
            &thresholds,
            adjust,
        )?,
        (None, Some(h)) => {
            let mut reading = quota::reading_from_numbers(Some((h, refresh)), None);
            adjust(&mut reading);
            let log = args
                .runs
                .as_deref()
                .map(crate::commands::quota::read_input)
                .transpose()?
                .map(|t| quota::read_runs_log(&t));
            quota::quota_state(&reading, log.as_ref(), Observed::Now, now, &thresholds)
        }
        (None, None) => {
            return Err(CliError::usage(
                "plan: expected the quota: --quota FILE (any `kaggle quota` form) or --gpu-remaining H [--refresh-at T]",
            ));
        }
    };
    let fold = match (args.fold_hours, args.folds) {
        (Some(hours), Some(folds)) => Some(FoldCost { hours, folds }),
        _ => None,
    };
    let report = plan::plan(
        report,
        deadline,
        fold,
        args.screens_per_promotion,
        now,
        &thresholds,
    )
    .map_err(CliError::usage)?;
    let code = emit(&report, global, human)?;
    crate::output::share(
        global,
        "plan",
        &[
            ("deadline", Some(args.deadline.clone())),
            ("gpu", args.gpu_remaining.map(shortest)),
            ("refresh", args.refresh_at.clone()),
            ("tpu", args.tpu_remaining.map(shortest)),
            ("reserved", args.reserved.map(shortest)),
            ("weekly", args.weekly_hours.map(shortest)),
            ("fold_hours", args.fold_hours.map(shortest)),
            ("folds", args.folds.map(|v| v.to_string())),
            ("screens", args.screens_per_promotion.map(|v| v.to_string())),
        ],
    );
    Ok(code)
}

fn human(r: &PlanReport) -> String {
    let mut s = String::new();
    let in_final = r.phase == plan::Phase::FinalWeek;
    if r.phase == plan::Phase::Ended {
        s.push_str(&format!(
            "The deadline {} has passed: nothing to plan.\n",
            display_utc(&r.deadline)
        ));
    } else {
        s.push_str(&r.gpu_budget().sentence(&r.deadline, in_final));
        s.push('\n');
        if let Some(t) = &r.tpu_budget {
            s.push_str(&t.sentence(&r.deadline, in_final));
            s.push('\n');
        }
        s.push_str(&format!(
            "Phase: {} ({} days left).\n",
            r.phase.as_str(),
            fixed(r.days_left, 1)
        ));
        if let Some(fp) = &r.fold_plan {
            s.push_str(&format!(
                "With {} h per fold and {} folds: a screen costs {} h, a promotion {} h (ceil({}/2) rounds + overhead; kgkit's c x K/2 says {} h).\n",
                shortest(fp.fold_hours),
                fp.folds,
                fmt_h(fp.screen_hours),
                fmt_h(fp.promotion_hours),
                fp.folds,
                fmt_h(fp.kgkit_promotion_hours),
            ));
            if r.phase == plan::Phase::Exploration {
                s.push_str(&format!(
                    "{} h of exploration buy {} cycle{} of {} screens + 1 promotion: {} screens, {} promotions, {} h left over.\n",
                    fmt_h(r.exploration_hours),
                    fp.cycles,
                    if fp.cycles == 1 { "" } else { "s" },
                    fp.screens_per_promotion,
                    fp.screens,
                    fp.promotions,
                    fmt_h(fp.leftover_hours)
                ));
            }
            s.push_str(&format!(
                "Start the final full-CV run (cap {} h) by {} at the latest.\n",
                fmt_h(fp.final_run_cap_hours),
                display_utc(&fp.last_safe_start)
            ));
        }
        if !r.weeks.is_empty() {
            s.push('\n');
            let rows: Vec<Vec<String>> = r
                .weeks
                .iter()
                .map(|w| {
                    vec![
                        display_utc(&w.start),
                        display_utc(&w.end),
                        fmt_h(w.hours),
                        if w.final_week {
                            "final week".to_string()
                        } else {
                            String::new()
                        },
                    ]
                })
                .collect();
            s.push_str(&table(&["from", "to", "GPU h", ""], &rows));
        }
    }
    s.push('\n');
    s.push_str(&render_findings(&r.findings));
    s
}
