//! Kernel push pre-flight (spec §10): `kgadvise check PATH`. The CLI reads the metadata and the code file;
//! everything that decides is here. Each check is its own rule (KM001-KM026 in `rules/kernel.toml`);
//! machine shapes and their status come from `rules/hardware.toml`.

use crate::rulebook::ids::{FactId, fact, rule, threshold};
pub mod run_report;

pub mod code;
pub mod metadata;

use chrono::NaiveDate;
use serde::Serialize;

use crate::rulebook::finding::{Finding, has_errors};
use crate::rulebook::report::{Report, stale_findings_for};
use crate::rulebook::{AcceleratorKind, ShapeStatus, Thresholds, rulebook};
use crate::text::number::{fixed, shortest};

pub use code::{CodeAnalysis, CodePart};
pub use metadata::{
    KernelMetadata, MetadataError, ProblemKind, max_metadata_bytes, parse_metadata,
};

pub const CHECK_SCHEMA: &str = "kgadvise.check/1";

/// Placeholders of `kaggle kernels init` (formats.md §5.5) and common template owners.
const PLACEHOLDERS: &[&str] = &[
    "INSERT_KERNEL_SLUG_HERE",
    "INSERT_TITLE_HERE",
    "INSERT_CODE_FILE_PATH_HERE",
    "Pick one of",
];
const PLACEHOLDER_OWNERS: &[&str] = &[
    "your_username",
    "your-username",
    "yourusername",
    "username",
    "<user>",
    "<username>",
];

/// The code file as the CLI found it.
#[derive(Debug, Clone, Copy)]
pub enum CodeFile<'a> {
    /// `code_file` absent or unusable: nothing to look for.
    NotNamed,
    /// Named, but no file at `resolved`.
    Missing { resolved: &'a str },
    /// Read.
    Present { bytes: &'a [u8] },
}

/// The flags of `kgadvise check`.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    pub running_gpu: Option<u32>,
    pub running_tpu: Option<u32>,
    pub running_cpu: Option<u32>,
    pub running_kernels: Vec<String>,
    pub plannable_hours: Option<f64>,
    /// Plannable TPU hours (from a quota file); TPU pushes compare against this one.
    pub plannable_tpu_hours: Option<f64>,
    pub timeout_seconds: Option<u64>,
    pub code_competition: bool,
}

/// The accelerator a push asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
}

fn fact(id: FactId) -> f64 {
    rulebook().fact_value(id)
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

/// The TPU shape a TPU push without a shape runs on: the available TPU shape of the rules.
fn default_tpu_shape() -> Option<String> {
    rulebook()
        .shapes
        .iter()
        .find(|s| s.accelerator == AcceleratorKind::Tpu && s.status == ShapeStatus::Available)
        .map(|s| s.name.to_string())
}

/// A template placeholder; `slug` also checks the owner part of an `owner/slug` value.
fn has_placeholder(text: &str, slug: bool) -> bool {
    PLACEHOLDERS.iter().any(|p| text.contains(p))
        || slug
            && text.split('/').next().is_some_and(|owner| {
                PLACEHOLDER_OWNERS
                    .iter()
                    .any(|p| owner.trim().eq_ignore_ascii_case(p))
            })
}

/// `owner/slug` with an optional `/version` when `allow_version`.
fn slug_form_ok(text: &str, allow_version: bool) -> bool {
    let parts: Vec<&str> = text.split('/').collect();
    let max = if allow_version { 3 } else { 2 };
    parts.len() >= 2
        && parts.len() <= max
        && parts.iter().take(2).all(|p| !p.trim().is_empty())
        && parts.get(2).is_none_or(|v| !v.trim().is_empty())
}

/// Runs every pre-flight check on parsed metadata and the code file.
pub fn check(
    input: &str,
    meta: KernelMetadata,
    code: CodeFile<'_>,
    opts: &CheckOptions,
    today: NaiveDate,
    thresholds: &Thresholds,
) -> CheckReport {
    let book = rulebook();
    let mut findings = Vec::new();
    let mut used: Vec<String> = Vec::new();

    // ---- form of the file
    if meta.api_form {
        findings.push(Finding::from_rule(
            rule::KM025,
            "camelCase API keys (enableGpu, kernelType, machineShape...) were mapped to the metadata fields to check them; Kaggle's CLI would ignore them",
        ));
    }
    for p in &meta.problems {
        let rule = match p.kind {
            ProblemKind::BadBool => rule::KM005,
            ProblemKind::WrongType => rule::KM026,
        };
        findings.push(Finding::from_rule(
            rule,
            format!("{}: {}", p.field, p.message),
        ));
    }
    let bad_fields: Vec<&str> = meta.problems.iter().map(|p| p.field.as_str()).collect();

    // ---- required fields and placeholders (KM002, KM003)
    let mut placeholder_fields: Vec<&str> = Vec::new();
    for (field, value) in [
        ("id", &meta.id),
        ("title", &meta.title),
        ("code_file", &meta.code_file),
        ("language", &meta.language),
        ("kernel_type", &meta.kernel_type),
    ] {
        if let Some(v) = value
            && has_placeholder(v, field == "id")
        {
            placeholder_fields.push(field);
            findings.push(Finding::from_rule(
                rule::KM003,
                format!("{field} = \"{v}\""),
            ));
        }
    }
    for src in meta.dataset_sources.iter().chain(&meta.kernel_sources) {
        if has_placeholder(src, true) {
            findings.push(Finding::from_rule(
                rule::KM003,
                format!("source \"{src}\" has a placeholder owner"),
            ));
        }
    }
    let mut missing = Vec::new();
    if meta.id.as_deref().is_none_or(|s| s.trim().is_empty())
        && meta.id_no.is_none()
        && !bad_fields.contains(&"id")
    {
        missing.push("id (owner/slug)");
    }
    for (field, value) in [
        ("title", &meta.title),
        ("code_file", &meta.code_file),
        ("language", &meta.language),
        ("kernel_type", &meta.kernel_type),
    ] {
        if value.as_deref().is_none_or(|s| s.trim().is_empty()) && !bad_fields.contains(&field) {
            missing.push(field);
        }
    }
    if !missing.is_empty() {
        findings.push(Finding::from_rule(
            rule::KM002,
            format!("missing: {}", missing.join(", ")),
        ));
    }
    let min_title = fact(fact::KERNEL_TITLE_MIN_CHARS);
    if let Some(t) = &meta.title
        && !t.trim().is_empty()
        && !placeholder_fields.contains(&"title")
        && (t.trim().chars().count() as f64) < min_title
    {
        findings.push(
            Finding::from_rule(
                rule::KM002,
                format!(
                    "title \"{t}\" has {} characters; Kaggle requires at least {}",
                    t.trim().chars().count(),
                    shortest(min_title)
                ),
            )
            .with_title(format!(
                "The title is shorter than {} characters",
                shortest(min_title)
            )),
        );
        used.push(fact::KERNEL_TITLE_MIN_CHARS.into());
    }

    // ---- values (KM004)
    // The accepted values are `[[allowed]]` entries of kernel.toml.
    let value_checks: [(&str, &Option<String>); 3] = [
        ("language", &meta.language),
        ("kernel_type", &meta.kernel_type),
        ("docker_image_pinning_type", &meta.docker_image_pinning_type),
    ];
    for (field, value) in value_checks {
        let Some(v) = value else { continue };
        if v.trim().is_empty() || placeholder_fields.contains(&field) {
            continue;
        }
        // The answer relies on the accepted values: their as-of date counts for KH004.
        let entry = book.allowed_for(field);
        if let Some(a) = entry {
            used.push(a.id.to_string());
        }
        let valid = entry.map_or(&[][..], |a| a.values.as_ref());
        if !valid.iter().any(|x| x == v) {
            findings.push(Finding::from_rule(
                rule::KM004,
                format!("{field} = \"{v}\"; valid: {}", valid.join(", ")),
            ));
        }
    }

    // ---- id and sources (KM006)
    if let Some(id) = &meta.id
        && !id.trim().is_empty()
        && !placeholder_fields.contains(&"id")
        && !slug_form_ok(id, false)
    {
        let why = if id.split('/').count() == 3 {
            "the id cannot contain a version"
        } else {
            "expected owner/slug"
        };
        findings.push(Finding::from_rule(
            rule::KM006,
            format!("id = \"{id}\": {why}"),
        ));
    }
    for (field, list) in [
        ("dataset_sources", &meta.dataset_sources),
        ("kernel_sources", &meta.kernel_sources),
    ] {
        for s in list {
            if !slug_form_ok(s, true) {
                findings.push(Finding::from_rule(
                    rule::KM006,
                    format!("{field} entry \"{s}\": expected owner/slug or owner/slug/version"),
                ));
            }
        }
    }

    // ---- shapes (KM007-KM013)
    let gpu = meta.enable_gpu == Some(true);
    let tpu_flag = meta.enable_tpu == Some(true);
    let requested = meta.requested_shape().map(str::to_string);
    let mut stored: Option<String> = None;
    if let Some(name) = &requested {
        used.push(format!("shape.{name}"));
        match book.shape(name) {
            None => {
                let close = book
                    .shapes
                    .iter()
                    .find(|s| s.name.eq_ignore_ascii_case(name))
                    .map(|s| s.name.clone());
                let hint = match &close {
                    Some(c) => format!("; shape names are case-sensitive: did you mean {c}?"),
                    None => format!(
                        "; known shapes: {}",
                        book.shapes
                            .iter()
                            .map(|s| s.name.as_ref())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                findings.push(
                    Finding::from_rule(
                        rule::KM007,
                        format!("machine_shape \"{name}\" is not a Kaggle shape{hint}"),
                    )
                    .with_title("Unknown machine_shape: refused with a bare HTTP 400"),
                );
            }
            Some(shape) => {
                stored = stored_shape(name);
                let stored_txt = stored.clone().unwrap_or_else(|| "nothing".into());
                let ev = format!(
                    "machine_shape \"{name}\" ({}): {}",
                    shape.status.as_str(),
                    shape.what
                );
                match shape.status {
                    ShapeStatus::Refused => findings.push(Finding::from_rule(rule::KM007, ev)),
                    ShapeStatus::ImageIncompatible => findings.push(Finding::from_rule(
                        rule::KM008,
                        format!("{ev} Stored and run as {stored_txt}."),
                    )),
                    ShapeStatus::Alias | ShapeStatus::Retired => findings.push(Finding::from_rule(
                        rule::KM009,
                        format!("{ev} Stored as {stored_txt}."),
                    )),
                    ShapeStatus::CapacityLimited => {
                        findings.push(Finding::from_rule(rule::KM010, ev))
                    }
                    ShapeStatus::Gated => findings.push(Finding::from_rule(rule::KM011, ev)),
                    ShapeStatus::Available => {}
                }
            }
        }
    }
    let kind = requested.as_deref().and_then(shape_kind);
    if gpu && kind == Some(AcceleratorKind::Tpu) {
        findings.push(Finding::from_rule(
            rule::KM012,
            format!(
                "enable_gpu is true but machine_shape \"{}\" is a TPU",
                requested.clone().unwrap_or_default()
            ),
        ));
    }
    if tpu_flag && kind == Some(AcceleratorKind::Gpu) {
        findings.push(Finding::from_rule(
            rule::KM012,
            format!(
                "enable_tpu is true but machine_shape \"{}\" is a GPU",
                requested.clone().unwrap_or_default()
            ),
        ));
    }
    if gpu && tpu_flag {
        findings.push(Finding::from_rule(
            rule::KM012,
            "enable_gpu and enable_tpu are both true",
        ));
    }
    let accelerator = match kind {
        Some(AcceleratorKind::Gpu) => Accelerator::Gpu,
        Some(AcceleratorKind::Tpu) => Accelerator::Tpu,
        None if tpu_flag && !gpu => Accelerator::Tpu,
        None if gpu => Accelerator::Gpu,
        None if requested
            .as_deref()
            .is_some_and(|r| r.to_ascii_lowercase().contains("tpu")) =>
        {
            Accelerator::Tpu
        }
        None if requested.is_some() => Accelerator::Gpu,
        None => Accelerator::Cpu,
    };
    if requested.is_none() {
        if gpu && !tpu_flag {
            // The shape a bare GPU push was given (kaggle-cli #821): `bare_gpu_default` in
            // hardware.toml; what the server stores for it today is that shape's `stored_as`.
            let bare = rulebook()
                .bare_gpu_default_shape()
                .map_or("?", |s| s.name.as_ref());
            stored = stored_shape(bare);
            used.push(format!("shape.{bare}"));
            findings.push(Finding::from_rule(
                rule::KM013,
                format!(
                    "enable_gpu is true and machine_shape is {}: a bare GPU push was given a {bare} (kaggle-cli #821); today it is stored as {}",
                    match meta.machine_shape.as_deref() {
                        None => "absent".to_string(),
                        Some(s) => format!("\"{s}\""),
                    },
                    stored.clone().unwrap_or_else(|| "unknown".into())
                ),
            ));
        } else if tpu_flag && !gpu {
            stored = default_tpu_shape();
        }
    }
    if accelerator == Accelerator::Tpu
        && !meta
            .docker_image
            .as_deref()
            .is_some_and(|d| d.to_ascii_lowercase().contains("tpu"))
    {
        findings.push(Finding::from_rule(
            rule::KM014,
            format!(
                "TPU push ({}) with {}",
                requested
                    .as_deref()
                    .map(|s| format!("machine_shape {s}"))
                    .unwrap_or_else(|| "enable_tpu".into()),
                meta.docker_image
                    .as_deref()
                    .map(|d| format!("docker_image {d}"))
                    .unwrap_or_else(|| "no docker_image".into())
            ),
        ));
    }

    // ---- unknown keys (KM015)
    for k in &meta.unknown_keys {
        let hint = if k.eq_ignore_ascii_case("accelerator") {
            " (use machine_shape, or push with --accelerator)".to_string()
        } else if let Some(real) = metadata::KNOWN_KEYS
            .iter()
            .find(|known| known.eq_ignore_ascii_case(k))
        {
            format!(" (did you mean {real}?)")
        } else {
            String::new()
        };
        findings.push(Finding::from_rule(
            rule::KM015,
            format!("key \"{k}\" is ignored by Kaggle{hint}"),
        ));
    }

    // ---- code file (KM016, KM017, KM024, KM027)
    let mut code_bytes = None;
    let mut analysis = None;
    if let Some(cf) = &meta.code_file
        && cf.contains('\\')
    {
        findings.push(Finding::from_rule(
            rule::KM024,
            format!("code_file = \"{cf}\"; write \"{}\"", cf.replace('\\', "/")),
        ));
    }
    match code {
        CodeFile::NotNamed => {}
        CodeFile::Missing { resolved } => findings.push(Finding::from_rule(
            rule::KM016,
            format!(
                "code_file \"{}\" resolves to {resolved}, which does not exist",
                meta.code_file.clone().unwrap_or_default()
            ),
        )),
        CodeFile::Present { bytes } => {
            let a = code::analyse(
                bytes,
                thresholds.get(threshold::KERNEL_LONG_LINE_BYTES).max(1.0) as u64,
            );
            code_bytes = Some(a.bytes);
            if bytes.iter().all(u8::is_ascii_whitespace) {
                findings.push(Finding::from_rule(
                    rule::KM027,
                    format!(
                        "code_file \"{}\" is {} bytes{}",
                        meta.code_file.clone().unwrap_or_default(),
                        a.bytes,
                        if a.bytes > 0 { ", all blank" } else { "" }
                    ),
                ));
            }
            let limit = fact(fact::KERNEL_CODE_FILE_MAX_BYTES);
            used.push(fact::KERNEL_CODE_FILE_MAX_BYTES.into());
            if a.bytes as f64 >= limit {
                let parts = a
                    .biggest
                    .iter()
                    .map(|p| format!("{} {} bytes: {}", p.part, p.bytes, p.what))
                    .collect::<Vec<_>>()
                    .join("; ");
                let ev = if a.notebook {
                    format!(
                        "{} bytes >= {limit} bytes: {} cells, {} outputs ({} bytes), {} embedded images ({} bytes); {} bytes once the outputs are cleared (Kaggle's CLI clears them before upload; pasted images in markdown stay). Biggest: {}",
                        a.bytes,
                        a.cells,
                        a.outputs,
                        a.output_bytes,
                        a.embedded_images,
                        a.image_bytes,
                        a.bytes.saturating_sub(a.output_bytes),
                        if parts.is_empty() { "-".into() } else { parts },
                        limit = shortest(limit)
                    )
                } else {
                    format!(
                        "{} bytes >= {limit} bytes; {}",
                        a.bytes,
                        if parts.is_empty() {
                            "no single long line: the code itself is big".into()
                        } else {
                            format!("longest lines: {parts}")
                        },
                        limit = shortest(limit)
                    )
                };
                findings.push(Finding::from_rule(rule::KM017, ev));
            }
            analysis = Some(a);
        }
    }

    // ---- sources still running (KM018)
    let norm = |s: &str| {
        s.split('/')
            .take(2)
            .collect::<Vec<_>>()
            .join("/")
            .to_ascii_lowercase()
    };
    for src in &meta.kernel_sources {
        if opts.running_kernels.iter().any(|r| norm(r) == norm(src)) {
            findings.push(Finding::from_rule(
                rule::KM018,
                format!("kernel_sources \"{src}\" is queued or running; its output is bound when this kernel is pushed"),
            ));
        }
    }

    // ---- concurrency (KM019)
    let (running, limit_id, what) = match accelerator {
        Accelerator::Gpu => (opts.running_gpu, fact::KERNEL_MAX_BATCH_GPU_SESSIONS, "GPU"),
        Accelerator::Tpu => (opts.running_tpu, fact::KERNEL_MAX_BATCH_TPU_SESSIONS, "TPU"),
        Accelerator::Cpu => (opts.running_cpu, fact::KERNEL_MAX_BATCH_CPU_SESSIONS, "CPU"),
    };
    if let Some(n) = running {
        used.push(limit_id.into());
        let limit = fact(limit_id);
        if f64::from(n) >= limit {
            findings.push(Finding::from_rule(
                rule::KM019,
                format!(
                    "{n} batch {what} sessions running, limit {limit}: the push would print \"Maximum batch {what} session count of {limit} reached.\" and exit 0",
                    limit = shortest(limit)
                ),
            ));
        }
    }

    // ---- quota and cap (KM020, KM021)
    let session_id = match accelerator {
        Accelerator::Gpu => fact::QUOTA_GPU_SESSION_HOURS,
        Accelerator::Tpu => fact::QUOTA_TPU_SESSION_HOURS,
        Accelerator::Cpu => fact::QUOTA_CPU_SESSION_HOURS,
    };
    let session_h = fact(session_id);
    if accelerator != Accelerator::Cpu {
        used.push(session_id.into());
        let cap_h = opts
            .timeout_seconds
            .map(|s| (s as f64 / 3600.0).min(session_h))
            .unwrap_or(session_h);
        let plannable = match accelerator {
            Accelerator::Tpu => opts.plannable_tpu_hours.or(opts.plannable_hours),
            _ => opts.plannable_hours,
        };
        if let Some(plannable) = plannable
            && plannable < cap_h
        {
            let cap_txt = match opts.timeout_seconds {
                Some(s) => format!("the cap -t {s} s = {} h", fixed(s as f64 / 3600.0, 2)),
                None => format!("no -t cap, so the whole {} h session", shortest(session_h)),
            };
            findings.push(Finding::from_rule(
                rule::KM020,
                format!(
                    "plannable {} quota {} h < {cap_txt}",
                    accelerator.as_str().to_ascii_uppercase(),
                    fixed(plannable, 2)
                ),
            ));
        }
        if opts.timeout_seconds.is_none() {
            findings.push(Finding::from_rule(
                rule::KM021,
                format!(
                    "no --timeout-seconds: the {} push reserves the full {} h session until it is seen finished",
                    accelerator.as_str().to_ascii_uppercase(),
                    shortest(session_h)
                ),
            ));
        }
    }

    // ---- privacy and internet (KM022, KM023)
    if meta.is_private == Some(false) {
        findings.push(Finding::from_rule(rule::KM022, "is_private is false"));
    }
    if opts.code_competition
        && meta.enable_internet != Some(false)
        && !bad_fields.contains(&"enable_internet")
    {
        let ev = match meta.enable_internet {
            Some(_) => "enable_internet is true in a code competition".to_string(),
            None => {
                "enable_internet is absent, which Kaggle's CLI reads as true, in a code competition"
                    .to_string()
            }
        };
        findings.push(Finding::from_rule(rule::KM023, ev));
    }

    crate::text::sort::sort_by_key(&mut findings, |f| f.severity);
    let mut rules: Vec<String> = findings.iter().map(|f| f.rule.clone()).collect();
    rules.extend(used.iter().cloned());
    crate::text::sort::sort(&mut rules);
    rules.dedup();
    findings.extend(stale_findings_for(&used, today, thresholds));
    CheckReport {
        schema: CHECK_SCHEMA,
        input: input.to_string(),
        ok: !has_errors(&findings),
        id: meta.id.clone(),
        accelerator,
        requested_machine_shape: requested,
        machine_shape: stored,
        code_file: meta.code_file.clone(),
        code_file_bytes: code_bytes,
        code: analysis,
        metadata: meta,
        rules,
        findings,
    }
}

/// Parses and checks in one call (for the web page and tests); the code file is given as found.
pub fn check_text(
    input: &str,
    metadata: &[u8],
    code: CodeFile<'_>,
    opts: &CheckOptions,
    today: NaiveDate,
    thresholds: &Thresholds,
) -> Result<CheckReport, MetadataError> {
    let meta = parse_metadata(metadata, thresholds)?;
    Ok(check(input, meta, code, opts, today, thresholds))
}

#[cfg(test)]
mod tests;
