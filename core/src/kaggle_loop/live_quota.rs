//! `kgadvise quota` with no FILE (KG §1): the cache when it is fresh, else `kaggle quota --format json`
//! (tried [`client_tries`] times), its figure written to kgkit's cache; when every try fails, the cache
//! NOT LIVE with why (KL008), the runs logged since counted against it.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::answers::{ClientAnswer, read_quota_answer};
use crate::quota::{
    AcceleratorQuota, Observed, QuotaReading, QuotaReport, QuotaText, quota_state, read_quota,
    read_runs_log, round2,
};
use crate::request::{Overrides, RequestError, now_of};
use crate::rulebook::Thresholds;
use crate::rulebook::finding::Finding;
use crate::rulebook::ids::{rule, threshold};
use crate::text::when::rfc3339;

/// How many times the live call is tried (KG §1: twice).
pub fn client_tries(thresholds: &Thresholds) -> usize {
    thresholds.get(threshold::LOOP_CLIENT_TRIES).max(1.0) as usize
}

/// The cache is fresh: its `fetched_at` is within the live limit of `now` (what makes a figure LIVE,
/// threshold.quota.live-minutes), so no call is needed.
pub fn cache_is_fresh(cache: &str, now: DateTime<Utc>, thresholds: &Thresholds) -> bool {
    let Ok(reading) = read_quota(cache) else {
        return false;
    };
    let limit = thresholds.get(threshold::QUOTA_LIVE_MINUTES);
    reading.fetched_at.is_some_and(|t| {
        let minutes = (now - t).num_seconds() as f64 / 60.0;
        (0.0..=limit).contains(&minutes)
    })
}

/// The request of `kgadvise quota` without a FILE.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct LiveQuotaRequest {
    /// Each try of `kaggle quota --format json`, in order; none when the cache was fresh.
    pub tries: Vec<ClientAnswer>,
    /// kgkit's `.kaggle-gm/gpu_quota.json`, when there is one.
    pub cache: Option<String>,
    /// When the cache was written (its file's time), for a cache without `fetched_at`.
    pub cache_read_at: Option<String>,
    /// kgkit's runs log.
    pub runs: Option<String>,
    pub now: Option<String>,
    pub set: Overrides,
}

/// The quota report and the cache to write (after a live call that answered).
#[derive(Debug, Clone)]
pub struct LiveQuota {
    pub report: QuotaReport,
    pub cache_text: Option<String>,
    /// The figure's text and when it was read, as the other advisors take a quota (`quota`, `readAt`).
    pub quota_text: String,
    pub read_at: Option<String>,
}

/// `kgadvise quota` without a FILE. Errors: no figure at all (every try failed and no cache).
pub fn live_quota(
    request: &LiveQuotaRequest,
    clock: DateTime<Utc>,
) -> Result<LiveQuota, RequestError> {
    let now = now_of(request.now.as_deref(), clock)?;
    let thresholds = request.set.thresholds()?;
    let runs = request.runs.as_deref().map(read_runs_log);
    let mut failures = Vec::new();
    for answer in &request.tries {
        match read_quota_answer(answer) {
            Ok(reading) => {
                let mut report =
                    quota_state(&reading, runs.as_ref(), Observed::Now, now, &thresholds);
                report.source = Some("the live call".into());
                return Ok(LiveQuota {
                    report,
                    cache_text: Some(cache_text(&reading, now)),
                    quota_text: answer.stdout.clone(),
                    read_at: Some(rfc3339(now)),
                });
            }
            Err(why) => failures.push(why),
        }
    }
    let Some(cache) = request.cache.as_deref() else {
        let why = failures.last().cloned().unwrap_or_default();
        return Err(RequestError::new(
            "",
            format!(
                "no quota: `kaggle quota --format json` failed and there is no cache (.kaggle-gm/gpu_quota.json) to fall back on: {why}. Expected a working Kaggle CLI, or the quota as a FILE or - for stdin (e.g. `kaggle quota -v | kgadvise quota -`)"
            ),
        ));
    };
    let text = QuotaText {
        quota: cache,
        runs: request.runs.as_deref(),
        live: false,
        read_at: request.cache_read_at.as_deref(),
    };
    let mut report = text.state(now, &thresholds).map_err(|e| RequestError {
        field: "cache".into(),
        ..e
    })?;
    match failures.last() {
        None => report.source = Some("the cache, fresh: no call made".into()),
        Some(why) => {
            report.source = Some("the cache: the live call failed".into());
            report.not_live_because = Some(why.clone());
            let finding = Finding::from_rule(
                rule::KL008,
                format!(
                    "kaggle quota --format json, {} tries: {why}",
                    failures.len()
                ),
            );
            report.findings.insert(0, finding);
            report.rules.push(rule::KL008.as_str().to_string());
            crate::text::sort::sort(&mut report.rules);
            crate::text::sort::sort_by_key(&mut report.findings, |f| f.severity);
        }
    }
    Ok(LiveQuota {
        report,
        cache_text: None,
        quota_text: cache.to_string(),
        read_at: request.cache_read_at.clone(),
    })
}

/// kgkit's `gpu_quota.json` (formats.md §10, indent 1) for a reading fetched at `fetched_at`, with the
/// TPU figure beside it (`tpu_used_h`, ...: keys kgkit does not read).
pub fn cache_text(reading: &QuotaReading, fetched_at: DateTime<Utc>) -> String {
    let mut obj = Map::new();
    let mut put = |prefix: &str, q: &AcceleratorQuota| {
        obj.insert(format!("{prefix}used_h"), Value::from(round2(q.used)));
        obj.insert(
            format!("{prefix}remaining_h"),
            Value::from(round2(q.remaining)),
        );
        obj.insert(format!("{prefix}total_h"), Value::from(round2(q.total)));
    };
    if let Some(g) = &reading.gpu {
        put("", g);
    }
    if let Some(t) = &reading.tpu {
        put("tpu_", t);
    }
    let refresh = reading
        .gpu
        .as_ref()
        .or(reading.tpu.as_ref())
        .and_then(|q| q.refresh_at)
        .map(rfc3339);
    obj.insert(
        "refresh_at".into(),
        refresh.map_or(Value::Null, Value::from),
    );
    obj.insert("fetched_at".into(), rfc3339(fetched_at).into());
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b" ");
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    if Value::Object(obj).serialize(&mut ser).is_err() {
        return String::new();
    }
    String::from_utf8(out).unwrap_or_default() + "\n"
}
