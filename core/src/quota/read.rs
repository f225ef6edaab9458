//! Every form a quota comes in (formats.md §6, §10), auto-detected by [`read_quota`] into one typed
//! [`QuotaReading`] with the GPU and TPU quotas apart: the `kaggle quota` table, its `-v` CSV and
//! `--format json`, the raw API payload, kgkit's cache, `No quota information available`, the web UI's
//! banner, and numbers typed by hand ([`reading_from_numbers`]).

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;

use crate::request::RequestError;
use crate::rulebook::ids::{FactId, fact};
use crate::rulebook::rulebook;
use crate::text::decimal::parse_f64;
use crate::text::json;
use crate::text::number::shortest;
use crate::text::when::{DateRole, parse_time};

/// The forms a quota comes in, as auto-detected by [`read_quota`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    /// Hours given as numbers (flags, a form).
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
            QuotaForm::Numbers => "hours given as numbers",
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
    /// The input did not give the weekly total (kgkit's cache writes `total_h: 0` when it could not
    /// read it): `total` is the facts' weekly hours.
    pub total_unknown: bool,
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

impl QuotaError {
    /// The error as one of the request field that held the text (`quota`), with its line.
    pub fn in_field(self, field: &str) -> RequestError {
        match self.line {
            Some(line) => RequestError::at_line(field, line, self.message),
            None => RequestError::new(field, self.message),
        }
    }
}

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
    // The client's outdated-version warning may come first (formats.md §6.1): the JSON starts after it.
    let json_text = skip_outdated_warning(text);
    let trimmed = json_text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        return read_json(json_text);
    }
    if text.contains("Accelerator Quota Exceeded")
        || text.contains("exceeded the number of hours allowed")
    {
        return read_banner(text);
    }
    read_rows(text)
}

/// The Kaggle CLI's first line when a newer version exists: ``Warning: Looks like you're using an
/// outdated `kaggle` version ...``.
pub const OUTDATED_WARNING: &str = "Warning: Looks like you're using an outdated";

/// The text after the client's outdated-version warning lines at its start (the text itself without).
pub fn skip_outdated_warning(text: &str) -> &str {
    let mut rest = text;
    while rest.trim_start().starts_with(OUTDATED_WARNING) {
        let start = rest.trim_start();
        rest = start.split_once('\n').map_or("", |(_, r)| r);
    }
    rest
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

pub(crate) fn json_hours(v: &Value) -> Result<f64, String> {
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

/// True when [`complete`] takes the total from the facts: neither the total nor the used hours given.
fn total_from_the_facts(used: Option<f64>, total: Option<f64>) -> bool {
    used.is_none() && total.is_none()
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

/// The hours one row or object of a quota reading gives, before [`complete`] fills the missing one.
struct Figures {
    used: Option<f64>,
    remaining: Option<f64>,
    total: Option<f64>,
    refresh: Option<DateTime<Utc>>,
}

/// Completes `figures` and stores them as `resource`'s quota; the error is [`complete`]'s, for the
/// caller to place.
fn put_figures(
    reading: &mut QuotaReading,
    resource: Resource,
    figures: Figures,
    place: &str,
) -> Result<(), String> {
    let Figures {
        used,
        remaining,
        total,
        refresh,
    } = figures;
    let total_unknown = total_from_the_facts(used, total);
    let (used, remaining, total) =
        complete(resource, used, remaining, total, &mut reading.notes, place)?;
    let quota = AcceleratorQuota {
        used,
        remaining,
        total,
        reserved: None,
        refresh_at: refresh,
        total_unknown,
    };
    put(reading, resource, quota, place);
    Ok(())
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
pub(crate) fn csv_fields(line: &str) -> Vec<String> {
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

fn is_header(line: &str) -> bool {
    let first = line
        .split([',', ' ', '\t'])
        .find(|t| !t.is_empty())
        .unwrap_or("");
    first.trim_matches('"').eq_ignore_ascii_case("resource")
}

/// The columns of a `kaggle quota` table or CSV, from its header line.
struct Columns {
    csv: bool,
    /// The header's names as written (for messages).
    names: Vec<String>,
    resource: Option<usize>,
    used: Option<usize>,
    remaining: Option<usize>,
    total: Option<usize>,
    refresh: Option<usize>,
}

impl Columns {
    fn of(header: &str) -> Columns {
        let csv = header.contains(',');
        let mut columns = Columns {
            csv,
            names: Vec::new(),
            resource: None,
            used: None,
            remaining: None,
            total: None,
            refresh: None,
        };
        columns.names = columns.split(header);
        let lower: Vec<String> = columns
            .names
            .iter()
            .map(|h| h.to_ascii_lowercase())
            .collect();
        let col = |name: &str| lower.iter().position(|h| h == name);
        columns.resource = col("resource");
        columns.used = col("used");
        columns.remaining = col("remaining");
        columns.total = col("total");
        columns.refresh = col("refreshat");
        columns
    }

    fn split(&self, line: &str) -> Vec<String> {
        if self.csv {
            csv_fields(line)
        } else {
            line.split_whitespace().map(str::to_string).collect()
        }
    }
}

fn read_rows(text: &str) -> Result<QuotaReading, QuotaError> {
    let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
    let Some(header_idx) = lines.iter().position(|l| is_header(l)) else {
        return Err(err(
            Some(1),
            format!(
                "no `kaggle quota` header `resource used remaining total refreshAt` found; {EXPECTED_FORMS}"
            ),
        ));
    };
    let columns = Columns::of(lines.get(header_idx).copied().unwrap_or(""));
    let mut reading = QuotaReading {
        form: if columns.csv {
            QuotaForm::Csv
        } else {
            QuotaForm::Table
        },
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
    for (i, l) in lines.iter().enumerate().skip(header_idx + 1) {
        read_row(&columns, i + 1, l, &mut reading)?;
    }
    if reading.gpu.is_none() && reading.tpu.is_none() {
        return Err(err(
            Some(header_idx + 1),
            "no GPU or TPU row after the header: expected rows like `GPU,2.42h,27.58h,30.00h,2026-09-19T00:00:00`",
        ));
    }
    Ok(reading)
}

/// One row after the header (line `n`): a GPU or TPU quota, a separator or blank line (skipped), or
/// another row (noted and skipped).
fn read_row(
    columns: &Columns,
    n: usize,
    line: &str,
    reading: &mut QuotaReading,
) -> Result<(), QuotaError> {
    let t = line.trim();
    if t.is_empty() || t.chars().all(|c| c == '-' || c == ' ' || c == ',') {
        return Ok(());
    }
    let cells = columns.split(line);
    let cell = |c: Option<usize>| c.and_then(|c| cells.get(c)).map(String::as_str);
    let Some(resource) = cell(columns.resource).and_then(Resource::parse) else {
        reading
            .notes
            .push(format!("line {n}: not a GPU or TPU row, skipped: {t}"));
        return Ok(());
    };
    if !columns.csv && cells.len() + 1 < columns.names.len() {
        return Err(err(
            Some(n),
            format!(
                "{} row has {} fields: expected {} ({})",
                resource.name(),
                cells.len(),
                columns.names.len(),
                columns.names.join(", ")
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
    let used = hours(columns.used, "used")?;
    let remaining = hours(columns.remaining, "remaining")?;
    let total = hours(columns.total, "total")?;
    let refresh = match cell(columns.refresh) {
        None => None,
        Some(s) => {
            parse_refresh(s).map_err(|e| err(Some(n), format!("column `refreshAt`: {e}")))?
        }
    };
    let figures = Figures {
        used,
        remaining,
        total,
        refresh,
    };
    put_figures(reading, resource, figures, &format!("line {n}"))
        .map_err(|e| err(Some(n), format!("{} row: {e}", resource.name())))
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
                crate::text::json::serde_reason(&e)
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
    let refresh = json_refresh(
        get(obj, &["refreshAt", "refresh_at"]),
        &format!("{place} `refreshAt`"),
    )?;
    reading.form = QuotaForm::CliJson;
    let figures = Figures {
        used,
        remaining,
        total,
        refresh,
    };
    put_figures(reading, resource, figures, &place)
        .map_err(|e| err(None, format!("{place} ({}): {e}", resource.name())))
}

/// A JSON reset time (`what` names it in errors): absent, or a string [`parse_refresh`] reads.
fn json_refresh(value: Option<&Value>, what: &str) -> Result<Option<DateTime<Utc>>, QuotaError> {
    match value {
        None => Ok(None),
        Some(Value::String(s)) => parse_refresh(s).map_err(|e| err(None, format!("{what}: {e}"))),
        Some(v) => Err(err(
            None,
            format!(
                "{what}: {} is not a time: expected an ISO 8601 string",
                json::text(v)
            ),
        )),
    }
}

fn read_api(
    obj: &serde_json::Map<String, Value>,
    reading: &mut QuotaReading,
) -> Result<(), QuotaError> {
    reading.form = QuotaForm::ApiPayload;
    let refresh = json_refresh(
        get(obj, &["quotaRefreshTime", "quota_refresh_time"]),
        "`quotaRefreshTime`",
    )?;
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
            total_unknown: false,
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
    let (used, remaining, mut total) = (hours("used_h")?, hours("remaining_h")?, hours("total_h")?);
    // kgkit writes `total_h: 0` when it could not read the total: unknown, not a week of 0 h.
    let total_unknown = total == Some(0.0) || total_from_the_facts(used, total);
    if total == Some(0.0) {
        let weekly = Resource::Gpu.weekly_fact().max(remaining.unwrap_or(0.0));
        reading.notes.push(format!(
            "gpu_quota.json: `total_h` is 0 (kgkit could not read the total): took the weekly {} h of the facts",
            shortest(weekly)
        ));
        total = Some(weekly);
    }
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
        total_unknown,
    });
    // kgadvise writes the TPU figure beside kgkit's keys (`tpu_used_h`, ...), which kgkit ignores.
    let (tu, tr, tt) = (
        hours("tpu_used_h")?,
        hours("tpu_remaining_h")?,
        hours("tpu_total_h")?,
    );
    if tu.is_some() || tr.is_some() || tt.is_some() {
        let (used, remaining, total) = complete(
            Resource::Tpu,
            tu,
            tr,
            tt,
            &mut reading.notes,
            "gpu_quota.json",
        )
        .map_err(|e| err(None, format!("gpu_quota.json: {e} (tpu_used_h, ...)")))?;
        reading.tpu = Some(AcceleratorQuota {
            used,
            remaining,
            total,
            reserved: None,
            refresh_at: refresh,
            total_unknown: false,
        });
    }
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
        total_unknown: false,
    };
    put(&mut reading, resource, q, "banner");
    Ok(reading)
}

/// Hours given as numbers as a reading: `remaining` of a `weekly` total (used = the difference).
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
            total_unknown: false,
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
