//! Kaggle accelerator quota (spec §6; formats.md §6, §10): readers for every form the quota comes in, and
//! the quota state an answer is built on (rolled-over week, live or not, reservations, plannable hours,
//! use it or lose it).
//!
//! [`read_quota`] is the one entry point other advisors reuse (e.g. the kernel pre-flight's
//! `check --quota FILE`): it auto-detects the form and returns a typed [`QuotaReading`] with the GPU and
//! TPU quotas separately. [`quota_state`] turns a reading into the [`QuotaReport`] of `kgadvise quota`.

use crate::rulebook::ids::{EntryId, FactId, fact, rule, threshold};
pub mod cap;
pub mod plan;
pub mod tpu;

use chrono::{DateTime, Datelike, Duration, NaiveTime, TimeZone, Utc};
use serde::Serialize;
use serde_json::Value;

use crate::rulebook::finding::Finding;
use crate::rulebook::report::{Report, stale_findings_for};
use crate::rulebook::{Thresholds, rulebook};
use crate::text::decimal::parse_f64;
use crate::text::json;
use crate::text::number::{fixed, shortest};
use crate::text::when::{DateRole, parse_time, rfc3339};

pub const QUOTA_SCHEMA: &str = "kgadvise.quota/1";

/// The forms a quota comes in, as auto-detected by [`read_quota`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum QuotaForm {
    /// `kaggle quota` (default table, columns padded with trailing blanks).
    Table,
    /// `kaggle quota -v` / `--format csv` (CRLF, maybe after an outdated-CLI warning line).
    Csv,
    /// `kaggle quota --format json`: a list of `{resource, used, remaining, total, refreshAt}`.
    CliJson,
    /// The raw `GetAcceleratorQuotaStatistics` payload (`gpuQuota`, `tpuQuota`, durations `"151.5s"`).
    ApiPayload,
    /// kgkit's `.kaggle-gm/gpu_quota.json` cache (with `fetched_at`).
    KgkitCache,
    /// `No quota information available`.
    NoInfo,
    /// The web UI's "Accelerator Quota Exceeded" banner.
    UiBanner,
    /// Plain numbers given by flags.
    Numbers,
}

impl QuotaForm {
    pub fn describe(self) -> &'static str {
        match self {
            QuotaForm::Table => "`kaggle quota` table",
            QuotaForm::Csv => "`kaggle quota -v` CSV",
            QuotaForm::CliJson => "`kaggle quota --format json`",
            QuotaForm::ApiPayload => "GetAcceleratorQuotaStatistics API payload",
            QuotaForm::KgkitCache => "kgkit .kaggle-gm/gpu_quota.json cache",
            QuotaForm::NoInfo => "`No quota information available`",
            QuotaForm::UiBanner => "Kaggle web UI quota banner",
            QuotaForm::Numbers => "numbers given by flags",
        }
    }
}

/// One accelerator's quota as read (hours).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AcceleratorQuota {
    pub used: f64,
    pub remaining: f64,
    pub total: f64,
    /// Hours held by running sessions, when the input says (API `timeReserved`).
    pub reserved: Option<f64>,
    pub refresh_at: Option<DateTime<Utc>>,
}

/// A quota as read from any form: the typed quota other advisors reuse.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuotaReading {
    pub form: QuotaForm,
    pub gpu: Option<AcceleratorQuota>,
    pub tpu: Option<AcceleratorQuota>,
    /// When the figure was fetched, when the input says (kgkit's `fetched_at`).
    pub fetched_at: Option<DateTime<Utc>>,
    /// "Your quota will reset ... in N days" (UI banner): an approximate time to the reset.
    pub reset_in_days: Option<f64>,
    /// What was skipped or assumed, naming the line.
    pub notes: Vec<String>,
}

/// Input that cannot be read as a quota: the line (when there is one) and what was expected.
#[derive(Debug, Clone, PartialEq)]
pub struct QuotaError {
    pub line: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for QuotaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(n) => write!(f, "line {n}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for QuotaError {}

fn err(line: Option<usize>, message: impl Into<String>) -> QuotaError {
    QuotaError {
        line,
        message: message.into(),
    }
}

const EXPECTED_FORMS: &str = "expected one of: `kaggle quota` output (table, -v CSV or --format json), the \
GetAcceleratorQuotaStatistics JSON payload, kgkit's .kaggle-gm/gpu_quota.json, or `No quota information available`";

const NO_INFO: &str = "No quota information available";

/// Reads a quota in any form of formats.md §6 and §10, auto-detected. GPU and TPU are kept separately.
/// A `refreshAt` without a zone is UTC. Errors name the line (or JSON item) and what was expected.
pub fn read_quota(text: &str) -> Result<QuotaReading, QuotaError> {
    let text = text.trim_start_matches('\u{feff}');
    if text.trim().is_empty() {
        return Err(err(None, format!("the input is empty: {EXPECTED_FORMS}")));
    }
    if crate::text::looks_binary(text) {
        return Err(err(
            None,
            format!("binary data, not text: {EXPECTED_FORMS}"),
        ));
    }
    if text.lines().any(|l| l.trim() == NO_INFO) {
        return Ok(QuotaReading {
            form: QuotaForm::NoInfo,
            gpu: None,
            tpu: None,
            fetched_at: None,
            reset_in_days: None,
            notes: vec![format!("Kaggle said `{NO_INFO}`")],
        });
    }
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        return read_json(text);
    }
    if text.contains("Accelerator Quota Exceeded")
        || text.contains("exceeded the number of hours allowed")
    {
        return read_banner(text);
    }
    read_rows(text)
}

/// The text of an input's bytes: UTF-8 (a BOM dropped) or UTF-16 with a BOM (PowerShell's `>` writes
/// UTF-16LE: `kaggle quota -v > quota.csv`); anything else is read lossily (bad bytes become U+FFFD).
pub fn decode_text(bytes: &[u8]) -> String {
    crate::text::decode_input(bytes).into_owned()
}

// ------------------------------------------------------------------ numbers

/// Hours as Kaggle's CLI writes them: `10.45h`, `10.45`, `10.45 h`.
pub fn parse_hours(s: &str) -> Result<f64, String> {
    let t = s.trim().trim_matches('"');
    let num = t.strip_suffix(['h', 'H']).unwrap_or(t).trim();
    match parse_f64(num) {
        Some(v) if v.is_finite() && v >= 0.0 => within_a_week(v, t),
        _ => Err(format!(
            "`{t}` is not hours: expected a non-negative number of hours like 10.45h"
        )),
    }
}

/// A protobuf duration string `"71094.4s"` (or a bare number of seconds), in hours.
pub fn parse_duration_hours(v: &Value) -> Result<f64, String> {
    let secs = match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().strip_suffix('s').and_then(|n| parse_f64(n.trim())),
        _ => None,
    };
    match secs {
        Some(x) if x.is_finite() && x >= 0.0 => within_a_week(x / 3600.0, &json::text(v)),
        _ => Err(format!(
            "{} is not a duration: expected a protobuf duration like \"71094.4s\"",
            json::text(v)
        )),
    }
}

/// Hours in a week: no weekly quota figure (used, remaining, total, reserved) can exceed it.
pub const HOURS_PER_WEEK: f64 = 168.0;

fn within_a_week(v: f64, text: &str) -> Result<f64, String> {
    if v <= HOURS_PER_WEEK {
        Ok(v)
    } else {
        Err(format!(
            "`{text}` is not a weekly quota figure: expected hours between 0 and {} (one week)",
            shortest(HOURS_PER_WEEK)
        ))
    }
}

fn json_hours(v: &Value) -> Result<f64, String> {
    match v {
        Value::Number(n) => match n.as_f64() {
            Some(x) if x.is_finite() && x >= 0.0 => within_a_week(x, &json::text(n)),
            _ => Err(format!(
                "{} is not hours: expected a non-negative number",
                json::text(v)
            )),
        },
        Value::String(s) => parse_hours(s),
        _ => Err(format!(
            "{} is not hours: expected a number or a string like \"10.45h\"",
            json::text(v)
        )),
    }
}

fn parse_refresh(s: &str) -> Result<Option<DateTime<Utc>>, String> {
    let t = s.trim().trim_matches('"');
    if t.is_empty() || t.eq_ignore_ascii_case("none") || t.eq_ignore_ascii_case("null") {
        return Ok(None);
    }
    parse_time(t, DateRole::Instant).map(Some).map_err(|_| {
        format!(
            "`{t}` is not a time: expected ISO 8601 like 2026-09-19T00:00:00 (UTC when no zone)"
        )
    })
}

/// Completes a quota from the fields present: any two of used/remaining/total give the third; with only
/// `remaining`, the weekly fact is the total.
fn complete(
    resource: Resource,
    used: Option<f64>,
    remaining: Option<f64>,
    total: Option<f64>,
    notes: &mut Vec<String>,
    place: &str,
) -> Result<(f64, f64, f64), String> {
    match (used, remaining, total) {
        (Some(u), Some(r), Some(t)) => Ok((u, r, t)),
        (Some(u), None, Some(t)) => Ok((u, (t - u).max(0.0), t)),
        (None, Some(r), Some(t)) => Ok(((t - r).max(0.0), r, t)),
        (Some(u), Some(r), None) => Ok((u, r, u + r)),
        (None, Some(r), None) => {
            let t = resource.weekly_fact().max(r);
            notes.push(format!(
                "{place}: no total, took the weekly {} h of the facts",
                shortest(t)
            ));
            Ok(((t - r).max(0.0), r, t))
        }
        _ => Err("expected `remaining`, or `used` and `total`".to_string()),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource {
    Gpu,
    Tpu,
}

impl Resource {
    fn parse(s: &str) -> Option<Resource> {
        match s.trim().trim_matches('"').to_ascii_uppercase().as_str() {
            "GPU" => Some(Resource::Gpu),
            "TPU" => Some(Resource::Tpu),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Resource::Gpu => "GPU",
            Resource::Tpu => "TPU",
        }
    }
    pub fn weekly_fact_id(self) -> FactId {
        match self {
            Resource::Gpu => fact::QUOTA_GPU_WEEKLY_HOURS,
            Resource::Tpu => fact::QUOTA_TPU_WEEKLY_HOURS,
        }
    }
    pub fn weekly_fact(self) -> f64 {
        rulebook().fact_value(self.weekly_fact_id())
    }
}

fn put(reading: &mut QuotaReading, resource: Resource, q: AcceleratorQuota, place: &str) {
    let slot = match resource {
        Resource::Gpu => &mut reading.gpu,
        Resource::Tpu => &mut reading.tpu,
    };
    if slot.is_some() {
        reading.notes.push(format!(
            "{place}: a second {} row, ignored (the first one is kept)",
            resource.name()
        ));
    } else {
        *slot = Some(q);
    }
}

// ------------------------------------------------------------------ table and CSV

/// The fields of one CSV line: commas inside double quotes belong to the field (`"2,42h"` is one field,
/// so a decimal comma is reported as such), `""` is a quote; fields are trimmed and unquoted.
fn csv_fields(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => fields.push(std::mem::take(&mut cur).trim().to_string()),
            _ => cur.push(c),
        }
    }
    fields.push(cur.trim().to_string());
    fields
}

fn read_rows(text: &str) -> Result<QuotaReading, QuotaError> {
    let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
    let is_header = |l: &str| {
        let first = l
            .split([',', ' ', '\t'])
            .find(|t| !t.is_empty())
            .unwrap_or("");
        first.trim_matches('"').eq_ignore_ascii_case("resource")
    };
    let Some(header_idx) = lines.iter().position(|l| is_header(l)) else {
        return Err(err(
            Some(1),
            format!(
                "no `kaggle quota` header `resource used remaining total refreshAt` found; {EXPECTED_FORMS}"
            ),
        ));
    };
    let mut reading = QuotaReading {
        form: QuotaForm::Table,
        gpu: None,
        tpu: None,
        fetched_at: None,
        reset_in_days: None,
        notes: Vec::new(),
    };
    for (i, l) in lines.iter().enumerate().take(header_idx) {
        if !l.trim().is_empty() {
            reading.notes.push(format!(
                "line {}: skipped before the header: {}",
                i + 1,
                l.trim()
            ));
        }
    }
    let header_line = lines.get(header_idx).copied().unwrap_or("");
    let csv = header_line.contains(',');
    reading.form = if csv {
        QuotaForm::Csv
    } else {
        QuotaForm::Table
    };
    let split = |l: &str| -> Vec<String> {
        if csv {
            csv_fields(l)
        } else {
            l.split_whitespace().map(str::to_string).collect()
        }
    };
    let header_names: Vec<String> = split(header_line);
    let header: Vec<String> = header_names
        .iter()
        .map(|h| h.to_ascii_lowercase())
        .collect();
    let col = |name: &str| header.iter().position(|h| h == name);
    let (c_res, c_used, c_rem, c_total, c_refresh) = (
        col("resource"),
        col("used"),
        col("remaining"),
        col("total"),
        col("refreshat"),
    );
    for (i, l) in lines.iter().enumerate().skip(header_idx + 1) {
        let n = i + 1;
        let t = l.trim();
        if t.is_empty() || t.chars().all(|c| c == '-' || c == ' ' || c == ',') {
            continue;
        }
        let cells = split(l);
        let cell = |c: Option<usize>| c.and_then(|c| cells.get(c)).map(String::as_str);
        let Some(resource) = cell(c_res).and_then(Resource::parse) else {
            reading
                .notes
                .push(format!("line {n}: not a GPU or TPU row, skipped: {t}"));
            continue;
        };
        if !csv && cells.len() + 1 < header.len() {
            return Err(err(
                Some(n),
                format!(
                    "{} row has {} fields: expected {} ({})",
                    resource.name(),
                    cells.len(),
                    header.len(),
                    header_names.join(", ")
                ),
            ));
        }
        let hours = |c: Option<usize>, name: &str| -> Result<Option<f64>, QuotaError> {
            match cell(c) {
                None | Some("") => Ok(None),
                Some(s) => parse_hours(s)
                    .map(Some)
                    .map_err(|e| err(Some(n), format!("column `{name}`: {e}"))),
            }
        };
        let used = hours(c_used, "used")?;
        let remaining = hours(c_rem, "remaining")?;
        let total = hours(c_total, "total")?;
        let refresh = match cell(c_refresh) {
            None => None,
            Some(s) => {
                parse_refresh(s).map_err(|e| err(Some(n), format!("column `refreshAt`: {e}")))?
            }
        };
        let place = format!("line {n}");
        let (used, remaining, total) =
            complete(resource, used, remaining, total, &mut reading.notes, &place)
                .map_err(|e| err(Some(n), format!("{} row: {e}", resource.name())))?;
        put(
            &mut reading,
            resource,
            AcceleratorQuota {
                used,
                remaining,
                total,
                reserved: None,
                refresh_at: refresh,
            },
            &place,
        );
    }
    if reading.gpu.is_none() && reading.tpu.is_none() {
        return Err(err(
            Some(header_idx + 1),
            "no GPU or TPU row after the header: expected rows like `GPU,2.42h,27.58h,30.00h,2026-09-19T00:00:00`",
        ));
    }
    Ok(reading)
}

// ------------------------------------------------------------------ JSON forms

fn get<'a>(obj: &'a serde_json::Map<String, Value>, keys: &[&str]) -> Option<&'a Value> {
    keys.iter()
        .find_map(|k| obj.get(*k))
        .filter(|v| !v.is_null())
}

fn read_json(text: &str) -> Result<QuotaReading, QuotaError> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        err(
            Some(e.line()),
            format!(
                "column {}: not valid JSON ({}); {EXPECTED_FORMS}",
                e.column(),
                crate::kernel::metadata::serde_reason(&e)
            ),
        )
    })?;
    let mut reading = QuotaReading {
        form: QuotaForm::CliJson,
        gpu: None,
        tpu: None,
        fetched_at: None,
        reset_in_days: None,
        notes: Vec::new(),
    };
    match &value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                read_cli_item(item, i, &mut reading)?;
            }
            if reading.gpu.is_none() && reading.tpu.is_none() {
                return Err(err(
                    None,
                    "the JSON list has no GPU or TPU item: expected items like {\"resource\": \"GPU\", \"used\": \"19.55h\", \"remaining\": \"10.45h\", \"total\": \"30.00h\", \"refreshAt\": \"2026-09-19T00:00:00\"}",
                ));
            }
        }
        Value::Object(obj) => {
            if obj.contains_key("resource") {
                read_cli_item(&value, 0, &mut reading)?;
            } else if [
                "gpuQuota",
                "tpuQuota",
                "quotaRefreshTime",
                "gpu_quota",
                "tpu_quota",
                "quota_refresh_time",
            ]
            .iter()
            .any(|k| obj.contains_key(*k))
            {
                read_api(obj, &mut reading)?;
            } else if ["used_h", "remaining_h", "total_h"]
                .iter()
                .any(|k| obj.contains_key(*k))
            {
                read_kgkit(obj, &mut reading)?;
            } else {
                return Err(err(
                    None,
                    "a JSON object without the keys of a quota: expected gpuQuota/tpuQuota (API payload), used_h/remaining_h/total_h (kgkit gpu_quota.json) or resource (kaggle quota --format json)",
                ));
            }
        }
        _ => {
            return Err(err(
                None,
                format!(
                    "a JSON {} is no quota; {EXPECTED_FORMS}",
                    json::text(&value)
                ),
            ));
        }
    }
    Ok(reading)
}

fn read_cli_item(item: &Value, i: usize, reading: &mut QuotaReading) -> Result<(), QuotaError> {
    let place = format!("item {}", i + 1);
    let Value::Object(obj) = item else {
        return Err(err(
            None,
            format!("{place}: expected an object with resource, used, remaining, total, refreshAt"),
        ));
    };
    let Some(resource) = get(obj, &["resource"])
        .and_then(Value::as_str)
        .and_then(Resource::parse)
    else {
        reading
            .notes
            .push(format!("{place}: not a GPU or TPU item, skipped"));
        return Ok(());
    };
    let hours = |k: &str| -> Result<Option<f64>, QuotaError> {
        get(obj, &[k])
            .map(json_hours)
            .transpose()
            .map_err(|e| err(None, format!("{place} `{k}`: {e}")))
    };
    let (used, remaining, total) = (hours("used")?, hours("remaining")?, hours("total")?);
    let refresh = match get(obj, &["refreshAt", "refresh_at"]) {
        None => None,
        Some(Value::String(s)) => {
            parse_refresh(s).map_err(|e| err(None, format!("{place} `refreshAt`: {e}")))?
        }
        Some(v) => {
            return Err(err(
                None,
                format!(
                    "{place} `refreshAt`: {} is not a time: expected an ISO 8601 string",
                    json::text(v)
                ),
            ));
        }
    };
    reading.form = QuotaForm::CliJson;
    let (used, remaining, total) =
        complete(resource, used, remaining, total, &mut reading.notes, &place)
            .map_err(|e| err(None, format!("{place} ({}): {e}", resource.name())))?;
    put(
        reading,
        resource,
        AcceleratorQuota {
            used,
            remaining,
            total,
            reserved: None,
            refresh_at: refresh,
        },
        &place,
    );
    Ok(())
}

fn read_api(
    obj: &serde_json::Map<String, Value>,
    reading: &mut QuotaReading,
) -> Result<(), QuotaError> {
    reading.form = QuotaForm::ApiPayload;
    let refresh = match get(obj, &["quotaRefreshTime", "quota_refresh_time"]) {
        None => None,
        Some(Value::String(s)) => {
            parse_refresh(s).map_err(|e| err(None, format!("`quotaRefreshTime`: {e}")))?
        }
        Some(v) => {
            return Err(err(
                None,
                format!(
                    "`quotaRefreshTime`: {} is not a time: expected an ISO 8601 string",
                    json::text(v)
                ),
            ));
        }
    };
    for (resource, keys) in [
        (Resource::Gpu, ["gpuQuota", "gpu_quota"]),
        (Resource::Tpu, ["tpuQuota", "tpu_quota"]),
    ] {
        let Some(q) = get(obj, &keys) else { continue };
        let name = keys[0];
        let Value::Object(q) = q else {
            return Err(err(
                None,
                format!(
                    "`{name}`: expected an object with timeUsed, timeReserved, totalTimeAllowed"
                ),
            ));
        };
        // proto3 JSON omits zero durations: a missing timeUsed/timeReserved is 0 s.
        let dur = |k: &[&str]| -> Result<Option<f64>, QuotaError> {
            get(q, k)
                .map(parse_duration_hours)
                .transpose()
                .map_err(|e| err(None, format!("`{name}.{}`: {e}", k.first().unwrap_or(&""))))
        };
        let used = dur(&["timeUsed", "time_used"])?.unwrap_or(0.0);
        let reserved = dur(&["timeReserved", "time_reserved"])?;
        let Some(total) = dur(&["totalTimeAllowed", "total_time_allowed"])? else {
            return Err(err(
                None,
                format!("`{name}`: no totalTimeAllowed: expected a duration like \"108000s\""),
            ));
        };
        let q = AcceleratorQuota {
            used,
            remaining: (total - used).max(0.0),
            total,
            reserved,
            refresh_at: refresh,
        };
        put(reading, resource, q, name);
    }
    if reading.gpu.is_none() && reading.tpu.is_none() {
        reading
            .notes
            .push("the API payload has neither gpuQuota nor tpuQuota".to_string());
    }
    Ok(())
}

fn read_kgkit(
    obj: &serde_json::Map<String, Value>,
    reading: &mut QuotaReading,
) -> Result<(), QuotaError> {
    reading.form = QuotaForm::KgkitCache;
    let hours = |k: &str| -> Result<Option<f64>, QuotaError> {
        get(obj, &[k])
            .map(json_hours)
            .transpose()
            .map_err(|e| err(None, format!("`{k}`: {e}")))
    };
    let (used, remaining, total) = (hours("used_h")?, hours("remaining_h")?, hours("total_h")?);
    let time = |k: &str| -> Result<Option<DateTime<Utc>>, QuotaError> {
        match get(obj, &[k]) {
            None => Ok(None),
            Some(Value::String(s)) => {
                parse_refresh(s).map_err(|e| err(None, format!("`{k}`: {e}")))
            }
            Some(v) => Err(err(
                None,
                format!(
                    "`{k}`: {} is not a time: expected \"YYYY-MM-DDTHH:MM:SSZ\"",
                    json::text(v)
                ),
            )),
        }
    };
    let refresh = time("refresh_at")?;
    reading.fetched_at = time("fetched_at")?;
    let (used, remaining, total) = complete(
        Resource::Gpu,
        used,
        remaining,
        total,
        &mut reading.notes,
        "gpu_quota.json",
    )
    .map_err(|e| {
        err(
            None,
            format!("gpu_quota.json: {e} (used_h, remaining_h, total_h)"),
        )
    })?;
    reading.gpu = Some(AcceleratorQuota {
        used,
        remaining,
        total,
        reserved: None,
        refresh_at: refresh,
    });
    Ok(())
}

// ------------------------------------------------------------------ UI banner

fn number_after<'a>(text: &'a str, marker: &str) -> Option<(f64, &'a str)> {
    let at = text.find(marker)? + marker.len();
    let rest = text.get(at..)?;
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let value = parse_f64(rest.get(..end)?)?;
    Some((value, rest.get(end..)?))
}

fn read_banner(text: &str) -> Result<QuotaReading, QuotaError> {
    let resource = if text.contains("allowed to use TPU") {
        Resource::Tpu
    } else {
        Resource::Gpu
    };
    let (total, rest) = number_after(text, "reset to ").ok_or_else(|| {
        err(None, "a quota banner without `Your quota will reset to N hours in M days`: expected that sentence")
    })?;
    let days = number_after(rest, " in ").and_then(|(d, after)| {
        let unit = after.trim_start();
        if unit.starts_with("day") {
            Some(d)
        } else if unit.starts_with("hour") {
            Some(d / 24.0)
        } else {
            None
        }
    });
    let mut reading = QuotaReading {
        form: QuotaForm::UiBanner,
        gpu: None,
        tpu: None,
        fetched_at: None,
        reset_in_days: days,
        notes: vec![format!(
            "quota exceeded per the web UI: {} used up, reset to {} h{}",
            resource.name(),
            shortest(total),
            days.map(|d| format!(
                " in about {} days (the banner is not dated: counted from now)",
                shortest(d)
            ))
            .unwrap_or_default()
        )],
    };
    let q = AcceleratorQuota {
        used: total,
        remaining: 0.0,
        total,
        reserved: None,
        refresh_at: None,
    };
    put(&mut reading, resource, q, "banner");
    Ok(reading)
}

// ------------------------------------------------------------------ runs log

/// One entry of kgkit's `.kaggle-gm/gpu_runs.jsonl` (formats.md §10).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoggedRun {
    pub line: usize,
    pub kernel: String,
    pub status: String,
    pub tpu: bool,
    /// The run's cap (`hours`), if logged.
    pub hours: Option<f64>,
    pub pushed_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
    pub gpu_hours: Option<f64>,
}

/// The runs log as read: the runs, and the lines that could not be read.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RunsLog {
    pub runs: Vec<LoggedRun>,
    pub diagnostics: Vec<String>,
}

/// Statuses of a run still holding its reservation (kgkit).
pub const ACTIVE_STATUSES: &[&str] = &["pushed", "queued", "running"];

/// Reads kgkit's `gpu_runs.jsonl`: one JSON object per line; unreadable lines become diagnostics naming
/// the line and what was expected, the rest is kept.
pub fn read_runs_log(text: &str) -> RunsLog {
    let mut log = RunsLog::default();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let t = line.trim().trim_start_matches('\u{feff}');
        if t.is_empty() {
            continue;
        }
        let obj = match serde_json::from_str::<Value>(t) {
            Ok(Value::Object(o)) => o,
            Ok(_) => {
                log.diagnostics.push(format!(
                    "line {n}: expected a JSON object (one run per line), skipped"
                ));
                continue;
            }
            Err(e) => {
                log.diagnostics.push(format!(
                    "line {n}, column {}: not JSON ({}), skipped; expected one JSON object per line",
                    e.column(),
                    crate::kernel::metadata::serde_reason(&e)
                ));
                continue;
            }
        };
        let s = |k: &str| obj.get(k).and_then(Value::as_str).map(str::to_string);
        let time = |k: &str, diags: &mut Vec<String>| -> Option<DateTime<Utc>> {
            let v = s(k)?;
            match parse_time(&v, DateRole::Instant) {
                Ok(t) => Some(t),
                Err(_) => {
                    diags.push(format!(
                        "line {n}: `{k}` {v:?} is not a time (expected YYYY-MM-DDTHH:MM:SSZ)"
                    ));
                    None
                }
            }
        };
        let pushed_at = time("pushed_at", &mut log.diagnostics);
        let finished_at = time("finished_at", &mut log.diagnostics);
        let hours = match obj.get("hours") {
            None | Some(Value::Null) => None,
            Some(v) => {
                match json_hours(v) {
                    Ok(h) if h > 0.0 => Some(h),
                    _ => {
                        log.diagnostics.push(format!("line {n}: `hours` {} is not a positive number; the default cap is used", json::text(v)));
                        None
                    }
                }
            }
        };
        let status = match obj.get("status") {
            Some(Value::String(st)) => st.to_ascii_lowercase(),
            other => {
                log.diagnostics.push(format!(
                    "line {n}: `status` {}: expected a string (pushed, queued, running, complete, ...), skipped",
                    other.map(json::text).unwrap_or_else(|| "missing".to_string())
                ));
                continue;
            }
        };
        let accelerator = s("accelerator").unwrap_or_default();
        log.runs.push(LoggedRun {
            line: n,
            kernel: s("kernel")
                .or_else(|| s("name"))
                .unwrap_or_else(|| format!("line {n}")),
            status,
            tpu: accelerator.to_ascii_lowercase().starts_with("tpu"),
            hours,
            pushed_at,
            finished_at,
            gpu_hours: obj
                .get("gpu_hours")
                .and_then(Value::as_f64)
                .filter(|h| h.is_finite() && *h >= 0.0),
        });
    }
    log
}

/// What one in-flight run holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reservation {
    pub kernel: String,
    pub accelerator: &'static str,
    pub status: String,
    pub cap_hours: f64,
    pub ran_hours: f64,
    pub reserved_hours: f64,
    pub line: usize,
}

/// Reservations of the in-flight runs: each run's cap (default 12 h) minus the time it has run since
/// `pushed_at`; entries older than cap + margin are stale and skipped (returned apart).
pub fn reservations(
    log: &RunsLog,
    now: DateTime<Utc>,
    thresholds: &Thresholds,
) -> (Vec<Reservation>, Vec<String>) {
    let default_cap = rulebook().fact_value(fact::QUOTA_DEFAULT_RUN_CAP_HOURS);
    let margin = thresholds.get(threshold::QUOTA_STALE_RUN_MARGIN_HOURS);
    let mut held = Vec::new();
    let mut stale = Vec::new();
    for run in &log.runs {
        if !ACTIVE_STATUSES.contains(&run.status.as_str()) {
            continue;
        }
        let cap = run.hours.unwrap_or(default_cap);
        let ran = run
            .pushed_at
            .map(|p| hours_between(p, now).max(0.0))
            .unwrap_or(0.0);
        if ran > cap + margin {
            stale.push(format!(
                "{} (line {}, {}, pushed {} h ago, cap {} h): stale, skipped",
                run.kernel,
                run.line,
                run.status,
                fixed(ran, 1),
                shortest(cap)
            ));
            continue;
        }
        held.push(Reservation {
            kernel: run.kernel.clone(),
            accelerator: if run.tpu { "TPU" } else { "GPU" },
            status: run.status.clone(),
            cap_hours: cap,
            ran_hours: round2(ran),
            reserved_hours: round2((cap - ran).max(0.0)),
            line: run.line,
        });
    }
    (held, stale)
}

// ------------------------------------------------------------------ time helpers

pub fn hours_between(from: DateTime<Utc>, to: DateTime<Utc>) -> f64 {
    (to - from).num_milliseconds() as f64 / 3_600_000.0
}

pub fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

pub fn week() -> Duration {
    Duration::days(7)
}

/// The first weekly reset strictly after `now` by the facts (Saturday 00:00 UTC), for inputs without
/// refreshAt.
pub fn assumed_next_reset(now: DateTime<Utc>) -> DateTime<Utc> {
    let book = rulebook();
    let weekday = book.fact_value(fact::QUOTA_RESET_WEEKDAY);
    let hour = book.fact_value(fact::QUOTA_RESET_HOUR_UTC);
    let weekday = if (1.0..=7.0).contains(&weekday) {
        weekday as u32
    } else {
        6
    };
    let hour = if (0.0..24.0).contains(&hour) {
        hour as u32
    } else {
        0
    };
    let today = now.date_naive();
    let shift = (7 + weekday - today.weekday().number_from_monday()) % 7;
    let time = NaiveTime::from_hms_opt(hour, 0, 0).unwrap_or(NaiveTime::MIN);
    let candidate =
        Utc.from_utc_datetime(&(today + Duration::days(i64::from(shift))).and_time(time));
    if candidate > now {
        candidate
    } else {
        candidate + week()
    }
}

/// Rolls a stored reset time forward in 7-day steps to the first reset strictly after `now`; true when it
/// moved (the week has rolled over since the figure was read).
pub fn roll_forward(refresh: DateTime<Utc>, now: DateTime<Utc>) -> (DateTime<Utc>, bool) {
    if refresh > now {
        return (refresh, false);
    }
    let weeks = (now - refresh).num_milliseconds() / week().num_milliseconds() + 1;
    (refresh + Duration::days(7 * weeks), true)
}

/// "Use it or lose it" (kgkit): 0 < hours to reset ≤ window and plannable ≥ minimum.
pub fn use_it_or_lose_it(hours_to_reset: f64, plannable: f64, thresholds: &Thresholds) -> bool {
    hours_to_reset > 0.0
        && hours_to_reset <= thresholds.get(threshold::QUOTA_USE_IT_WINDOW_HOURS)
        && plannable >= thresholds.get(threshold::QUOTA_USE_IT_MIN_HOURS)
}

// ------------------------------------------------------------------ quota state

/// One accelerator's quota as planned on (contract keys: used, remaining, total, reserved, plannable,
/// refresh_at).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuotaState {
    pub used: f64,
    pub remaining: f64,
    pub total: f64,
    pub reserved: f64,
    /// remaining − reserved, never below 0.
    pub plannable: f64,
    /// The next reset (RFC 3339 UTC), rolled forward past `now` when the stored one has passed.
    pub refresh_at: String,
    /// The reset as the input gave it, if it did.
    pub stored_refresh_at: Option<String>,
    /// True when no refreshAt was given and the facts' weekly reset was assumed.
    pub refresh_assumed: bool,
    pub hours_to_reset: f64,
    /// The stored refreshAt has passed: used 0, remaining the weekly total.
    pub rolled_over: bool,
    /// Hours of runs logged as finished since the figure was read, taken off remaining.
    pub spent_since_hours: f64,
    pub use_it_or_lose_it: bool,
    pub reservations: Vec<Reservation>,
    #[serde(skip)]
    pub next_reset: DateTime<Utc>,
}

/// `kgadvise quota`: the state of both quotas.
#[derive(Debug, Clone, Serialize)]
pub struct QuotaReport {
    pub schema: &'static str,
    pub form: QuotaForm,
    pub gpu: Option<QuotaState>,
    pub tpu: Option<QuotaState>,
    pub live: bool,
    /// When the figure was read (fetched_at, the file's time, or now for stdin/flags).
    pub observed_at: Option<String>,
    pub age_minutes: Option<f64>,
    pub use_it_or_lose_it: bool,
    pub stale_runs: Vec<String>,
    pub notes: Vec<String>,
    pub now: String,
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for QuotaReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }
}

/// Where the figure came from, for the live check.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Observed {
    /// Read just now (stdin piped from `kaggle quota`, or numbers typed on the command line).
    Now,
    /// Read at this time (a saved file's modification time); kgkit's `fetched_at` wins when present.
    At(DateTime<Utc>),
    /// Unknown.
    Unknown,
}

/// Builds the quota state from a reading: rolled-over weeks, live or not, reservations (the reading's
/// own `timeReserved`, or the in-flight runs of a runs log, the larger when both), plannable hours and
/// use it or lose it.
pub fn quota_state(
    reading: &QuotaReading,
    runs: Option<&RunsLog>,
    observed: Observed,
    now: DateTime<Utc>,
    thresholds: &Thresholds,
) -> QuotaReport {
    let mut rules: Vec<String> = Vec::new();
    let mut findings = Vec::new();
    let mut notes = reading.notes.clone();
    let observed_at = match (reading.fetched_at, observed) {
        (Some(t), _) => Some(t),
        (None, Observed::Now) => Some(now),
        (None, Observed::At(t)) => Some(t),
        (None, Observed::Unknown) => None,
    };
    let age_minutes = observed_at.map(|t| round2(hours_between(t, now) * 60.0));
    let live_limit = thresholds.get(threshold::QUOTA_LIVE_MINUTES);
    let live = match age_minutes {
        Some(age) => age <= live_limit,
        None => false,
    };
    let (held, stale) = match runs {
        Some(log) => {
            for d in &log.diagnostics {
                notes.push(format!("runs log {d}"));
            }
            reservations(log, now, thresholds)
        }
        None => (Vec::new(), Vec::new()),
    };
    let banner_reset = reading
        .reset_in_days
        .map(|d| now + Duration::minutes((d * 24.0 * 60.0).round() as i64));
    let mut any_use_it = false;
    let mut build = |resource: Resource,
                     q: &AcceleratorQuota,
                     findings: &mut Vec<Finding>,
                     rules: &mut Vec<String>| {
        let (next_reset, rolled, assumed) = match (q.refresh_at, banner_reset) {
            (Some(r), _) => {
                let (next, rolled) = roll_forward(r, now);
                (next, rolled, false)
            }
            (None, Some(b)) if b > now => (b, false, false),
            _ => (assumed_next_reset(now), false, true),
        };
        let (mut used, mut remaining) = (q.used, q.remaining);
        if rolled {
            // The reset has happened since the figure: a fresh week of the figure's total (kgkit).
            used = 0.0;
            remaining = q.total;
            push_rule(rules, rule::KQ002);
            findings.push(Finding::from_rule(
                rule::KQ002,
                format!(
                    "{}: refreshAt {} has passed (now {}): {} h used of {} h before; the week rolled over, {} h available, next reset {}",
                    resource.name(),
                    q.refresh_at.map(rfc3339).unwrap_or_default(),
                    rfc3339(now),
                    fixed(q.used, 2),
                    fixed(q.total, 2),
                    fixed(q.total, 2),
                    rfc3339(next_reset)
                ),
            ));
        }
        if assumed {
            push_rule(rules, rule::KQ007);
            findings.push(Finding::from_rule(
                rule::KQ007,
                format!(
                    "{}: no refreshAt in the input; assumed the next reset at {}",
                    resource.name(),
                    rfc3339(next_reset)
                ),
            ));
        }
        // Runs logged as finished since the figure was read count against it (kgkit).
        let week_start = next_reset - week();
        let mut spent = 0.0;
        if let (Some(log), Some(obs)) = (runs, observed_at) {
            for run in &log.runs {
                let when = run.finished_at.or(run.pushed_at);
                if run.tpu == (resource == Resource::Tpu)
                    && !ACTIVE_STATUSES.contains(&run.status.as_str())
                    && let (Some(h), Some(t)) = (run.gpu_hours, when)
                    && t > obs
                    && t > week_start
                    && t <= now
                {
                    spent += h;
                }
            }
        }
        if spent > 0.0 {
            used += spent;
            remaining = (remaining - spent).max(0.0);
            notes.push(format!(
                "{}: {} h of runs logged since the figure was read taken off",
                resource.name(),
                fixed(spent, 2)
            ));
        }
        let mine: Vec<Reservation> = held
            .iter()
            .filter(|r| r.accelerator == resource.name())
            .cloned()
            .collect();
        let from_runs: f64 = mine
            .iter()
            .map(|r| r.reserved_hours)
            .fold(0.0, |a, b| a + b);
        let reserved = match q.reserved {
            Some(api) if api >= from_runs => api,
            _ => from_runs,
        };
        if reserved > 0.0 || !mine.is_empty() {
            push_rule(rules, rule::KQ004);
            let list: Vec<String> = mine
                .iter()
                .map(|r| {
                    format!(
                        "{} ({}, {} h of a {} h cap run, {} h held)",
                        r.kernel,
                        r.status,
                        fixed(r.ran_hours, 2),
                        shortest(r.cap_hours),
                        fixed(r.reserved_hours, 2)
                    )
                })
                .collect();
            let what = if list.is_empty() {
                format!("timeReserved {} h", fixed(reserved, 2))
            } else {
                format!("runs log: {}", list.join("; "))
            };
            findings.push(Finding::from_rule(
                rule::KQ004,
                format!(
                    "{}: {reserved_2} h reserved ({what}); plannable = {} - {reserved_2}",
                    resource.name(),
                    fixed(remaining, 2),
                    reserved_2 = fixed(reserved, 2)
                ),
            ));
        }
        let plannable = (remaining - reserved).max(0.0);
        let hours_to_reset = hours_between(now, next_reset);
        let use_it = use_it_or_lose_it(hours_to_reset, plannable, thresholds);
        if use_it {
            any_use_it = true;
            push_rule(rules, rule::KQ003);
            findings.push(Finding::from_rule(
                rule::KQ003,
                format!(
                    "{}: {} h plannable expire at the reset in {} h ({}); window {} h, minimum {} h",
                    resource.name(),
                    fixed(plannable, 2),
                    fixed(hours_to_reset, 1),
                    rfc3339(next_reset),
                    shortest(thresholds.get(threshold::QUOTA_USE_IT_WINDOW_HOURS)),
                    shortest(thresholds.get(threshold::QUOTA_USE_IT_MIN_HOURS)),
                ),
            ));
        }
        if plannable <= 0.0 {
            push_rule(rules, rule::KQ006);
            findings.push(Finding::from_rule(
                rule::KQ006,
                format!(
                    "{}: {} h used of {} h, {} h remaining, {} h reserved; reset {}",
                    resource.name(),
                    fixed(used, 2),
                    fixed(q.total, 2),
                    fixed(remaining, 2),
                    fixed(reserved, 2),
                    rfc3339(next_reset)
                ),
            ));
        }
        QuotaState {
            used: round2(used),
            remaining: round2(remaining),
            total: round2(q.total),
            reserved: round2(reserved),
            plannable: round2(plannable),
            refresh_at: rfc3339(next_reset),
            stored_refresh_at: q.refresh_at.map(rfc3339),
            refresh_assumed: assumed,
            hours_to_reset: round2(hours_to_reset),
            rolled_over: rolled,
            spent_since_hours: round2(spent),
            use_it_or_lose_it: use_it,
            reservations: mine,
            next_reset,
        }
    };
    let gpu = reading
        .gpu
        .as_ref()
        .map(|q| build(Resource::Gpu, q, &mut findings, &mut rules));
    let tpu = reading
        .tpu
        .as_ref()
        .map(|q| build(Resource::Tpu, q, &mut findings, &mut rules));
    if gpu.is_none() && tpu.is_none() {
        push_rule(&mut rules, rule::KQ005);
        findings.push(Finding::from_rule(
            rule::KQ005,
            format!("{}: no GPU or TPU figure", reading.form.describe()),
        ));
    }
    if !stale.is_empty() {
        push_rule(&mut rules, rule::KQ004);
        findings.push(
            Finding::from_rule(
                rule::KQ004,
                format!(
                    "{} stale runs-log entries skipped (in flight longer than cap + {} h): {}",
                    stale.len(),
                    shortest(thresholds.get(threshold::QUOTA_STALE_RUN_MARGIN_HOURS)),
                    stale.join("; ")
                ),
            )
            .with_title("Stale runs-log entries reserve nothing")
            .with_fix("Collect or mark those runs finished (kgkit gpu collect / gpu quota) so the log matches Kaggle."),
        );
    }
    if (gpu.is_some() || tpu.is_some()) && !live {
        push_rule(&mut rules, rule::KQ001);
        let why = match (reading.fetched_at, observed_at, age_minutes) {
            (Some(f), _, Some(age)) => format!(
                "kgkit cache fetched at {} ({} old)",
                rfc3339(f),
                describe_age(age)
            ),
            (None, Some(t), Some(age)) => {
                format!("figure read at {} ({} old)", rfc3339(t), describe_age(age))
            }
            _ => "the input does not say when the figure was read".to_string(),
        };
        findings.push(Finding::from_rule(
            rule::KQ001,
            format!(
                "NOT LIVE: {why}; live limit {} min; runs logged since are counted, sessions started elsewhere are not",
                shortest(live_limit)
            ),
        ));
    }
    for r in [
        fact::QUOTA_GPU_WEEKLY_HOURS,
        fact::QUOTA_TPU_WEEKLY_HOURS,
        fact::QUOTA_DEFAULT_RUN_CAP_HOURS,
    ] {
        push_rule(&mut rules, r);
    }
    findings.extend(stale_findings_for(&rules, now.date_naive(), thresholds));
    QuotaReport {
        schema: QUOTA_SCHEMA,
        form: reading.form,
        gpu,
        tpu,
        live,
        observed_at: observed_at.map(rfc3339),
        age_minutes,
        use_it_or_lose_it: any_use_it,
        stale_runs: stale,
        notes,
        now: rfc3339(now),
        rules,
        findings,
    }
}

/// Numbers given by flags as a reading: `remaining` of a `weekly` total (used = the difference).
pub fn reading_from_numbers(
    gpu: Option<(f64, Option<DateTime<Utc>>)>,
    tpu: Option<(f64, Option<DateTime<Utc>>)>,
) -> QuotaReading {
    let make = |resource: Resource, (remaining, refresh): (f64, Option<DateTime<Utc>>)| {
        let total = resource.weekly_fact().max(remaining);
        AcceleratorQuota {
            used: (total - remaining).max(0.0),
            remaining,
            total,
            reserved: None,
            refresh_at: refresh,
        }
    };
    QuotaReading {
        form: QuotaForm::Numbers,
        gpu: gpu.map(|g| make(Resource::Gpu, g)),
        tpu: tpu.map(|t| make(Resource::Tpu, t)),
        fetched_at: None,
        reset_in_days: None,
        notes: Vec::new(),
    }
}

pub fn describe_age(minutes: f64) -> String {
    if minutes < 120.0 {
        format!("{} min", fixed(minutes, 0))
    } else if minutes < 48.0 * 60.0 {
        format!("{} h", fixed(minutes / 60.0, 1))
    } else {
        format!("{} days", fixed(minutes / 1440.0, 1))
    }
}

pub(crate) fn push_rule(rules: &mut Vec<String>, id: impl Into<EntryId>) {
    let id = id.into().as_str();
    if !rules.iter().any(|r| r == id) {
        rules.push(id.to_string());
    }
}

#[cfg(test)]
mod tests;
