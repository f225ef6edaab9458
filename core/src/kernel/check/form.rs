//! The metadata's form: its fields, their values and types (each function's doc names its rule).

use super::CheckRun;
use crate::kernel::metadata::{KNOWN_KEYS, KernelMetadata, ProblemKind};
use crate::rulebook::finding::Finding;
use crate::rulebook::ids::{EntryId, fact, rule};
use crate::rulebook::report::Findings;
use crate::rulebook::rulebook;
use crate::text::number::shortest;

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

/// The required text fields with their values.
fn required(meta: &KernelMetadata) -> [(&'static str, &Option<String>); 5] {
    [
        ("id", &meta.id),
        ("title", &meta.title),
        ("code_file", &meta.code_file),
        ("language", &meta.language),
        ("kernel_type", &meta.kernel_type),
    ]
}

/// The required fields still holding a placeholder of `kaggle kernels init`.
pub(super) fn placeholder_fields(meta: &KernelMetadata) -> Vec<&'static str> {
    required(meta)
        .into_iter()
        .filter(|(field, value)| {
            value
                .as_deref()
                .is_some_and(|v| has_placeholder(v, *field == "id"))
        })
        .map(|(field, _)| field)
        .collect()
}

/// KM025: the camelCase API object, mapped to the metadata fields.
pub(super) fn api_form(run: &CheckRun, out: &mut Findings) {
    if run.meta.api_form {
        out.add(
            rule::KM025,
            "camelCase API keys (enableGpu, kernelType, machineShape...) were mapped to the metadata fields to check them; Kaggle's CLI would ignore them",
        );
    }
}

/// KM005 (a boolean Kaggle's CLI cannot read), KM026 (any other wrong type): one finding per field.
pub(super) fn field_problems(run: &CheckRun, out: &mut Findings) {
    for p in &run.meta.problems {
        let rule = match p.kind {
            ProblemKind::BadBool => rule::KM005,
            ProblemKind::WrongType => rule::KM026,
        };
        out.add(rule, format!("{}: {}", p.field, p.message));
    }
}

/// KM003: a placeholder of `kaggle kernels init` in a required field or a source's owner.
pub(super) fn placeholders(run: &CheckRun, out: &mut Findings) {
    for (field, value) in required(&run.meta) {
        if let Some(v) = value
            && run.is_placeholder(field)
        {
            out.add(rule::KM003, format!("{field} = \"{v}\""));
        }
    }
    let meta = &run.meta;
    for src in meta.dataset_sources.iter().chain(&meta.kernel_sources) {
        if has_placeholder(src, true) {
            out.add(
                rule::KM003,
                format!("source \"{src}\" has a placeholder owner"),
            );
        }
    }
}

/// KM002: a required field absent or empty.
pub(super) fn missing_fields(run: &CheckRun, out: &mut Findings) {
    let blank = |v: &Option<String>| v.as_deref().is_none_or(|s| s.trim().is_empty());
    let mut missing = Vec::new();
    for (field, value) in required(&run.meta) {
        if !blank(value) || run.is_bad(field) {
            continue;
        }
        if field == "id" {
            if run.meta.id_no.is_none() {
                missing.push("id (owner/slug)");
            }
        } else {
            missing.push(field);
        }
    }
    if !missing.is_empty() {
        out.add(rule::KM002, format!("missing: {}", missing.join(", ")));
    }
}

/// KM002: a title shorter than Kaggle's minimum.
pub(super) fn short_title(run: &CheckRun, out: &mut Findings) {
    let min_title = rulebook().fact_value(fact::KERNEL_TITLE_MIN_CHARS);
    let Some(t) = &run.meta.title else { return };
    let chars = t.trim().chars().count();
    if t.trim().is_empty() || run.is_placeholder("title") || chars as f64 >= min_title {
        return;
    }
    out.push(Finding::from_rule(
        rule::KM050,
        format!(
            "title \"{t}\" has {chars} characters; Kaggle requires at least {}",
            shortest(min_title)
        ),
    ));
    out.uses(fact::KERNEL_TITLE_MIN_CHARS);
}

/// KM004: a value Kaggle does not accept (the `[[allowed]]` entries of kernel.toml).
pub(super) fn invalid_values(run: &CheckRun, out: &mut Findings) {
    let meta = &run.meta;
    let value_checks: [(&str, &Option<String>); 3] = [
        ("language", &meta.language),
        ("kernel_type", &meta.kernel_type),
        ("docker_image_pinning_type", &meta.docker_image_pinning_type),
    ];
    for (field, value) in value_checks {
        let Some(v) = value else { continue };
        if v.trim().is_empty() || run.is_placeholder(field) {
            continue;
        }
        // The answer relies on the accepted values: their as-of date counts for KH004.
        let entry = rulebook().allowed_for(field);
        if let Some(id) = entry.and_then(|a| EntryId::of_book(&a.id)) {
            out.uses(id);
        }
        let valid = entry.map_or(&[][..], |a| a.values.as_ref());
        if !valid.iter().any(|x| x == v) {
            out.add(
                rule::KM004,
                format!("{field} = \"{v}\"; valid: {}", valid.join(", ")),
            );
        }
    }
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

/// KM006: an id or a source that is not `owner/slug`.
pub(super) fn malformed_slugs(run: &CheckRun, out: &mut Findings) {
    let meta = &run.meta;
    if let Some(id) = &meta.id
        && !id.trim().is_empty()
        && !run.is_placeholder("id")
        && !slug_form_ok(id, false)
    {
        let why = if id.split('/').count() == 3 {
            "the id cannot contain a version"
        } else {
            "expected owner/slug"
        };
        out.add(rule::KM006, format!("id = \"{id}\": {why}"));
    }
    for (field, list) in [
        ("dataset_sources", &meta.dataset_sources),
        ("kernel_sources", &meta.kernel_sources),
    ] {
        for s in list.iter().filter(|s| !slug_form_ok(s, true)) {
            out.add(
                rule::KM006,
                format!("{field} entry \"{s}\": expected owner/slug or owner/slug/version"),
            );
        }
    }
}

/// KM015: a key Kaggle's CLI ignores, with the key meant when it is a case slip.
pub(super) fn unknown_keys(run: &CheckRun, out: &mut Findings) {
    for k in &run.meta.unknown_keys {
        let hint = if k.eq_ignore_ascii_case("accelerator") {
            " (use machine_shape, or push with --accelerator)".to_string()
        } else if let Some(real) = KNOWN_KEYS
            .iter()
            .find(|known| known.eq_ignore_ascii_case(k))
        {
            format!(" (did you mean {real}?)")
        } else {
            String::new()
        };
        out.add(
            rule::KM015,
            format!("key \"{k}\" is ignored by Kaggle{hint}"),
        );
    }
}

/// KM022: a public kernel.
pub(super) fn public_kernel(run: &CheckRun, out: &mut Findings) {
    if run.meta.is_private == Some(false) {
        out.add(rule::KM022, "is_private is false");
    }
}
