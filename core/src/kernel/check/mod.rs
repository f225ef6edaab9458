//! Kernel push pre-flight (spec §10): `kgadvise check PATH`. A surface reads the metadata and the code
//! file it names (see [`super::code_file_paths`]); everything that decides is here. Each rule (the KM codes
//! of `rules/kernel.toml`) is one function over [`CheckRun`], in [`RULES`]; metadata that cannot be read
//! at all is KM001, an error naming the `metadata` field. Machine shapes and their status come from
//! `rules/hardware.toml`.

mod form;
mod push;
mod shape;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::kernel::code::{self, CodeAnalysis};
use crate::kernel::metadata::{self, KernelMetadata};
use crate::quota;
use crate::request::{Overrides, RequestError, now_of};
use crate::rulebook::finding::{Finding, has_errors};
use crate::rulebook::ids::{rule, threshold};
use crate::rulebook::report::{Findings, Report};
use crate::rulebook::{AcceleratorKind, ShapeStatus, Thresholds, rulebook};
use crate::text::number::shortest;
use crate::text::when::{DateRole, parse_time};

pub const CHECK_SCHEMA: &str = "kgadvise.check/1";

/// What the answer calls the metadata when the request does not name it.
const DEFAULT_INPUT: &str = "kernel-metadata.json";

/// `kgadvise check`: will a `kaggle kernels push` be refused, run on the wrong machine or burn quota?
/// Give `metadata`; every other field is optional.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct CheckRequest {
    /// The kernel-metadata.json text: the snake_case file of `kaggle kernels init` / `pull -m`, or the
    /// camelCase API object.
    #[cfg_attr(feature = "schema", schemars(extend("x-required" = true)))]
    #[cfg_attr(feature = "cli", arg(skip))]
    pub metadata: String,
    /// What the answer calls the metadata (a file name, as given); default `kernel-metadata.json`.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub input: Option<String>,
    /// The text of the code file that the metadata's `code_file` names (a notebook's JSON or a script),
    /// when it was found: its size and its biggest parts are checked against Kaggle's limit.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub code: Option<String>,
    /// The code file's size on disk in bytes, when it differs from the UTF-8 length of `code` (a file in
    /// another encoding); default that length.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub code_bytes: Option<u64>,
    /// Where the code file was looked for when no file was there (the path `code_file` resolves to):
    /// the push would fail. Not read when `code` is given.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub code_path: Option<String>,
    /// Batch GPU sessions already running or queued on the account.
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    pub running_gpu: Option<u32>,
    /// Batch TPU sessions already running or queued.
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    pub running_tpu: Option<u32>,
    /// Batch CPU sessions already running.
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    pub running_cpu: Option<u32>,
    /// Kernels still queued or running (owner/slug, or owner/slug/N naming the version that runs; the case is
    /// ignored). A source pinned to a version other than the one running is not blocked.
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "ID,...", value_delimiter = ',')
    )]
    pub running_kernels: Vec<String>,
    /// GPU hours that can still be planned this week (what kgadvise quota gives); they win over the
    /// quota reading's GPU figure. A TPU push is never judged on them: the TPU hours are separate.
    #[cfg_attr(feature = "cli", arg(long, value_name = "H", value_parser = crate::text::hours::parse_hours))]
    pub plannable: Option<f64>,
    /// TPU hours that can still be planned this week (a separate quota); they win over the quota
    /// reading's TPU figure.
    #[cfg_attr(feature = "cli", arg(long, value_name = "H", value_parser = crate::text::hours::parse_hours))]
    pub plannable_tpu: Option<f64>,
    /// A quota reading in any form the quota advisor reads (`kaggle quota` output, the API payload,
    /// kgkit's cache): its plannable GPU hours (TPU hours for a TPU push) are compared with the cap.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub quota: Option<String>,
    /// kgkit's runs log (gpu_runs.jsonl): in-flight runs reserve hours of the `quota` reading.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub runs: Option<String>,
    /// When the `quota` was read (RFC 3339 or a date; a time after `now` says nothing): the runs log's
    /// reservations count from it. kgkit's `fetched_at` wins; without either, they count from `now`.
    #[cfg_attr(feature = "schema", schemars(extend("x-time" = true)))]
    #[cfg_attr(feature = "cli", arg(skip))]
    pub quota_read_at: Option<String>,
    /// The -t cap the push will use, in whole seconds.
    #[cfg_attr(feature = "cli", arg(long, value_name = "S"))]
    pub timeout_seconds: Option<u64>,
    /// The kernel is for a code competition (internet must be off).
    #[cfg_attr(feature = "cli", arg(long))]
    pub code_competition: bool,
    /// The time of the answer (RFC 3339 or a date; default: the caller's clock).
    #[cfg_attr(feature = "schema", schemars(extend("x-time" = true)))]
    #[cfg_attr(feature = "cli", arg(skip))]
    pub now: Option<String>,
    /// Threshold overrides.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub set: Overrides,
}

/// The accelerator a push asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Accelerator {
    Gpu,
    Tpu,
    Cpu,
}

impl Accelerator {
    pub fn as_str(self) -> &'static str {
        match self {
            Accelerator::Gpu => "gpu",
            Accelerator::Tpu => "tpu",
            Accelerator::Cpu => "cpu",
        }
    }
}

/// `kgadvise check` (cli.md): `ok`, `machine_shape` as Kaggle will store it, `code_file_bytes`, findings.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CheckReport {
    pub schema: &'static str,
    /// The metadata file checked, as given.
    pub input: String,
    pub ok: bool,
    pub id: Option<String>,
    pub accelerator: Accelerator,
    /// The `machine_shape` written in the metadata (null, "" and "None" read as none).
    pub requested_machine_shape: Option<String>,
    /// What Kaggle will store and run: aliases and retired TPUs as TpuV5E8, the P100 (also the default
    /// of a bare `enable_gpu`) as what the server substitutes, null for no accelerator or a refused shape.
    pub machine_shape: Option<String>,
    pub code_file: Option<String>,
    pub code_file_bytes: Option<u64>,
    pub code: Option<CodeAnalysis>,
    pub metadata: KernelMetadata,
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for CheckReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }

    fn text(&self) -> String {
        crate::kernel::text::check(self)
    }
}

/// The code file as the surface found it.
#[derive(Debug, Clone, Copy)]
enum CodeFile<'a> {
    /// `code_file` absent or a placeholder, or no code given: nothing to look at.
    NotNamed,
    /// Named, but no file at `resolved`.
    Missing { resolved: &'a str },
    /// Read: its text and its size in bytes.
    Present { text: &'a str, bytes: u64 },
}

/// The validated request and what follows from it: what every check rule reads.
struct CheckRun<'a> {
    meta: KernelMetadata,
    thresholds: Thresholds,
    code: CodeFile<'a>,
    /// The code file's size and biggest parts, when it was read.
    analysis: Option<CodeAnalysis>,
    /// Fields with a wrong type (KM005, KM026): not also reported missing.
    bad_fields: Vec<String>,
    /// Fields holding a template placeholder (KM003): their value is not checked further.
    placeholder_fields: Vec<&'static str>,
    /// `machine_shape` as requested (null, "" and "None" read as none).
    requested: Option<String>,
    /// What Kaggle stores and runs (see [`CheckReport::machine_shape`]).
    stored: Option<String>,
    accelerator: Accelerator,
    running_gpu: Option<u32>,
    running_tpu: Option<u32>,
    running_cpu: Option<u32>,
    running_kernels: Vec<String>,
    /// Plannable hours the cap is compared with: GPU and TPU (never the one for the other).
    plannable_gpu: Option<f64>,
    plannable_tpu: Option<f64>,
    /// Where the GPU figure came from, if one was given: a TPU push without a TPU figure says its
    /// quota is unknown instead of being judged on it.
    gpu_figure: Option<GpuFigure>,
    /// KQ001 of the quota reading the cap is judged on, when that reading is not live.
    quota_not_live: Option<Finding>,
    timeout_seconds: Option<u64>,
    code_competition: bool,
}

/// A quota figure given for the GPU only.
#[derive(Debug, Clone, Copy, PartialEq)]
enum GpuFigure {
    /// `plannable` (GPU hours).
    Plannable(f64),
    /// A quota reading with a GPU figure and no TPU one (kgkit's cache holds GPU hours only).
    Reading,
}

/// The rules of the check, in the order their findings are listed within a severity.
const RULES: &[fn(&CheckRun, &mut Findings)] = &[
    form::api_form,
    form::field_problems,
    form::placeholders,
    form::missing_fields,
    form::short_title,
    form::invalid_values,
    form::malformed_slugs,
    shape::shape_status,
    shape::conflicting_accelerators,
    shape::bare_gpu,
    shape::tpu_without_tpu_image,
    form::unknown_keys,
    push::backslash_code_file,
    push::missing_code_file,
    push::blank_code_file,
    push::big_code_file,
    push::notebook_big_with_outputs,
    push::source_still_running,
    push::pinned_source_while_running,
    push::concurrency_limit,
    push::quota_below_cap,
    push::quota_reading_not_live,
    push::tpu_quota_unknown,
    push::no_cap,
    push::cap_past_session_limit,
    push::downloads_weights,
    form::public_kernel,
    push::internet_in_code_competition,
    push::smoke_first,
];

/// `kgadvise check`: every pre-flight check of a push. Errors name the request field and what was
/// expected (unreadable metadata: KM001).
pub fn check(request: &CheckRequest, clock: DateTime<Utc>) -> Result<CheckReport, RequestError> {
    let now = now_of(request.now.as_deref(), clock)?;
    let thresholds = request.set.thresholds()?;
    let run = CheckRun::of(request, now, thresholds)?;
    let mut out = Findings::new();
    for rule in RULES {
        rule(&run, &mut out);
    }
    let closed = out.finish(now.date_naive(), &run.thresholds);
    Ok(CheckReport {
        schema: CHECK_SCHEMA,
        input: request
            .input
            .clone()
            .unwrap_or_else(|| DEFAULT_INPUT.to_string()),
        ok: !has_errors(&closed.findings),
        id: run.meta.id.clone(),
        accelerator: run.accelerator,
        requested_machine_shape: run.requested,
        machine_shape: run.stored,
        code_file: run.meta.code_file.clone(),
        code_file_bytes: run.analysis.as_ref().map(|a| a.bytes),
        code: run.analysis,
        metadata: run.meta,
        rules: closed.rules,
        findings: closed.findings,
    })
}

impl<'a> CheckRun<'a> {
    fn of(
        request: &'a CheckRequest,
        now: DateTime<Utc>,
        thresholds: Thresholds,
    ) -> Result<CheckRun<'a>, RequestError> {
        for (field, hours) in [
            ("plannable", request.plannable),
            ("plannableTpu", request.plannable_tpu),
        ] {
            if let Some(h) = hours
                && (!h.is_finite() || h < 0.0)
            {
                return Err(RequestError::value(
                    field,
                    shortest(h),
                    "expected hours >= 0",
                ));
            }
        }
        let (quota_gpu, quota_tpu, quota_not_live) = quota_plannable(request, now, &thresholds)?;
        let meta = metadata::read_metadata(&request.metadata, &thresholds)?;
        let code = code_file(request, &meta);
        let analysis = match code {
            CodeFile::Present { text, bytes } => {
                let long_line = thresholds.get(threshold::KERNEL_LONG_LINE_BYTES).max(1.0) as u64;
                Some(CodeAnalysis {
                    bytes,
                    ..code::analyse(text.as_bytes(), long_line)
                })
            }
            _ => None,
        };
        let requested = meta.requested_shape().map(str::to_string);
        let accelerator = accelerator_of(&meta, requested.as_deref());
        Ok(CheckRun {
            bad_fields: meta.problems.iter().map(|p| p.field.clone()).collect(),
            placeholder_fields: form::placeholder_fields(&meta),
            stored: stored_shape_of(&meta, requested.as_deref()),
            requested,
            accelerator,
            meta,
            thresholds,
            code,
            analysis,
            running_gpu: request.running_gpu,
            running_tpu: request.running_tpu,
            running_cpu: request.running_cpu,
            running_kernels: request
                .running_kernels
                .iter()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect(),
            plannable_gpu: request.plannable.or(quota_gpu),
            plannable_tpu: request.plannable_tpu.or(quota_tpu),
            gpu_figure: match (request.plannable, quota_gpu) {
                (Some(h), _) => Some(GpuFigure::Plannable(h)),
                (None, Some(_)) => Some(GpuFigure::Reading),
                (None, None) => None,
            },
            // A figure that both `plannable` and `plannableTpu` override judges nothing.
            quota_not_live: quota_not_live
                .filter(|_| request.plannable.is_none() || request.plannable_tpu.is_none()),
            timeout_seconds: request.timeout_seconds,
            code_competition: request.code_competition,
        })
    }

    fn is_placeholder(&self, field: &str) -> bool {
        self.placeholder_fields.contains(&field)
    }

    fn is_bad(&self, field: &str) -> bool {
        self.bad_fields.iter().any(|f| f == field)
    }

    /// `code_file` as written, for evidence.
    fn code_file_name(&self) -> &str {
        self.meta.code_file.as_deref().unwrap_or_default()
    }
}

/// What a check reads of its quota reading: plannable GPU and TPU hours, and KQ001 when not live.
type QuotaFigures = (Option<f64>, Option<f64>, Option<Finding>);

/// Plannable (GPU, TPU) hours of the request's quota reading, read as the quota advisor reads it (its
/// runs log reserving hours of it), and its KQ001 when it is not live. Errors name the `quota` field
/// and the line.
fn quota_plannable(
    request: &CheckRequest,
    now: DateTime<Utc>,
    thresholds: &Thresholds,
) -> Result<QuotaFigures, RequestError> {
    let Some(text) = &request.quota else {
        if request.runs.is_some() {
            return Err(RequestError::new(
                "runs",
                "expected with a quota reading: in-flight runs reserve hours of it",
            ));
        }
        return Ok((None, None, None));
    };
    let reading = quota::read_quota(text).map_err(|e| match e.line {
        Some(line) => RequestError::at_line("quota", line, e.message),
        None => RequestError::new("quota", e.message),
    })?;
    let log = request.runs.as_deref().map(quota::read_runs_log);
    // The same ledger as `kgadvise quota`: reservations count from when the figure was read.
    let observed = match request.quota_read_at.as_deref() {
        None => quota::Observed::Unknown,
        Some(t) => match parse_time(t, DateRole::Instant)
            .map_err(|e| RequestError::new("quotaReadAt", e))?
        {
            t if t <= now => quota::Observed::At(t),
            _ => quota::Observed::Unknown,
        },
    };
    let state = quota::quota_state(&reading, log.as_ref(), observed, now, thresholds);
    Ok((
        state.gpu.as_ref().map(|q| q.plannable),
        state.tpu.as_ref().map(|q| q.plannable),
        state
            .findings
            .into_iter()
            .find(|f| f.rule == rule::KQ001.as_str()),
    ))
}

/// The code file as the request gives it: read, looked for and missing, or not named.
fn code_file<'a>(request: &'a CheckRequest, meta: &KernelMetadata) -> CodeFile<'a> {
    match (&request.code, &request.code_path) {
        (Some(text), _) => CodeFile::Present {
            text,
            bytes: request.code_bytes.unwrap_or(text.len() as u64),
        },
        (None, Some(resolved))
            if meta
                .code_file
                .as_deref()
                .is_some_and(metadata::names_a_file) =>
        {
            CodeFile::Missing { resolved }
        }
        _ => CodeFile::NotNamed,
    }
}

/// The accelerator a push asks for: the requested shape's, else the enable flags, else a guess from an
/// unknown shape's name.
fn accelerator_of(meta: &KernelMetadata, requested: Option<&str>) -> Accelerator {
    let gpu = meta.enable_gpu == Some(true);
    let tpu = meta.enable_tpu == Some(true);
    match requested.and_then(shape_kind) {
        Some(AcceleratorKind::Gpu) => Accelerator::Gpu,
        Some(AcceleratorKind::Tpu) => Accelerator::Tpu,
        None if tpu && !gpu => Accelerator::Tpu,
        None if gpu => Accelerator::Gpu,
        None if requested.is_some_and(|r| r.to_ascii_lowercase().contains("tpu")) => {
            Accelerator::Tpu
        }
        None if requested.is_some() => Accelerator::Gpu,
        None => Accelerator::Cpu,
    }
}

fn shape_kind(name: &str) -> Option<AcceleratorKind> {
    rulebook().shape(name).map(|s| s.accelerator)
}

/// What Kaggle stores for a requested shape (None when it is refused or unknown).
fn stored_shape(name: &str) -> Option<String> {
    let s = rulebook().shape(name)?;
    if s.status == ShapeStatus::Refused {
        return None;
    }
    Some(s.stored_as.as_deref().unwrap_or(&s.name).to_string())
}

/// What Kaggle stores and runs for the metadata: the requested shape's stored form; without a shape, a
/// bare GPU push's default (`bare_gpu_default` in hardware.toml) or the available TPU shape.
fn stored_shape_of(meta: &KernelMetadata, requested: Option<&str>) -> Option<String> {
    if let Some(name) = requested {
        return stored_shape(name);
    }
    let gpu = meta.enable_gpu == Some(true);
    let tpu = meta.enable_tpu == Some(true);
    if gpu && !tpu {
        stored_shape(bare_gpu_shape())
    } else if tpu && !gpu {
        rulebook()
            .shapes
            .iter()
            .find(|s| s.accelerator == AcceleratorKind::Tpu && s.status == ShapeStatus::Available)
            .map(|s| s.name.to_string())
    } else {
        None
    }
}

/// The shape a bare GPU push was given (kaggle-cli #821).
fn bare_gpu_shape() -> &'static str {
    rulebook()
        .bare_gpu_default_shape()
        .map_or("?", |s| s.name.as_ref())
}

#[cfg(test)]
mod tests;
