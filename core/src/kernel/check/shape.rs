//! The machine a push asks for: its shape and what Kaggle does with it, the enable flags, the TPU
//! image (each function's doc names its rule).

use super::{Accelerator, CheckRun, bare_gpu_shape, stored_shape};
use crate::rulebook::finding::Finding;
use crate::rulebook::ids::{EntryId, rule};
use crate::rulebook::report::Findings;
use crate::rulebook::{AcceleratorKind, ShapeStatus, rulebook};

/// KM007-KM011: the requested `machine_shape` is unknown, refused, image-incompatible, an alias or
/// retired, capacity-limited or gated.
pub(super) fn shape_status(run: &CheckRun, out: &mut Findings) {
    let Some(name) = run.requested.as_deref() else {
        return;
    };
    let book = rulebook();
    let Some(shape) = book.shape(name) else {
        let hint = match book
            .shapes
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(name))
        {
            Some(c) => format!("; shape names are case-sensitive: did you mean {}?", c.name),
            None => format!(
                "; known shapes: {}",
                book.shapes
                    .iter()
                    .map(|s| s.name.as_ref())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        out.push(Finding::from_rule(
            rule::KM007,
            format!("machine_shape \"{name}\" is not a Kaggle shape{hint}"),
        ));
        return;
    };
    if let Some(id) = EntryId::of_book(&shape.id) {
        out.uses(id);
    }
    let stored = stored_shape(name).unwrap_or_else(|| "nothing".into());
    let ev = format!(
        "machine_shape \"{name}\" ({}): {}",
        shape.status.as_str(),
        shape.what
    );
    match shape.status {
        ShapeStatus::Refused => out.add(rule::KM007, ev),
        ShapeStatus::ImageIncompatible => {
            out.add(rule::KM008, format!("{ev} Stored and run as {stored}."))
        }
        ShapeStatus::Alias | ShapeStatus::Retired => {
            out.add(rule::KM009, format!("{ev} Stored as {stored}."))
        }
        ShapeStatus::CapacityLimited => out.add(rule::KM010, ev),
        ShapeStatus::Gated => out.add(rule::KM011, ev),
        ShapeStatus::Available => {}
    }
}

/// KM012: the enable flags contradict each other or the shape.
pub(super) fn conflicting_accelerators(run: &CheckRun, out: &mut Findings) {
    let gpu = run.meta.enable_gpu == Some(true);
    let tpu = run.meta.enable_tpu == Some(true);
    let requested = run.requested.as_deref().unwrap_or_default();
    let kind = run
        .requested
        .as_deref()
        .and_then(|name| rulebook().shape(name))
        .map(|s| s.accelerator);
    if gpu && kind == Some(AcceleratorKind::Tpu) {
        out.add(
            rule::KM012,
            format!("enable_gpu is true but machine_shape \"{requested}\" is a TPU"),
        );
    }
    if tpu && kind == Some(AcceleratorKind::Gpu) {
        out.add(
            rule::KM012,
            format!("enable_tpu is true but machine_shape \"{requested}\" is a GPU"),
        );
    }
    if gpu && tpu {
        out.add(rule::KM012, "enable_gpu and enable_tpu are both true");
    }
}

/// KM013: `enable_gpu` without a `machine_shape`: the server picks the shape.
pub(super) fn bare_gpu(run: &CheckRun, out: &mut Findings) {
    let gpu = run.meta.enable_gpu == Some(true);
    let tpu = run.meta.enable_tpu == Some(true);
    if run.requested.is_some() || !gpu || tpu {
        return;
    }
    // The shape a bare GPU push was given (kaggle-cli #821): `bare_gpu_default` in hardware.toml; what
    // the server stores for it today is that shape's `stored_as`.
    let bare = bare_gpu_shape();
    if let Some(id) = rulebook().shape(bare).and_then(|s| EntryId::of_book(&s.id)) {
        out.uses(id);
    }
    out.add(
        rule::KM013,
        format!(
            "enable_gpu is true and machine_shape is {}: a bare GPU push was given a {bare} (kaggle-cli #821); today it is stored as {}",
            match run.meta.machine_shape.as_deref() {
                None => "absent".to_string(),
                Some(s) => format!("\"{s}\""),
            },
            run.stored.as_deref().unwrap_or("unknown")
        ),
    );
}

/// KM014: a TPU push without a TPU docker image.
pub(super) fn tpu_without_tpu_image(run: &CheckRun, out: &mut Findings) {
    let image = run.meta.docker_image.as_deref();
    if run.accelerator != Accelerator::Tpu
        || image.is_some_and(|d| d.to_ascii_lowercase().contains("tpu"))
    {
        return;
    }
    out.add(
        rule::KM014,
        format!(
            "TPU push ({}) with {}",
            run.requested
                .as_deref()
                .map(|s| format!("machine_shape {s}"))
                .unwrap_or_else(|| "enable_tpu".into()),
            image
                .map(|d| format!("docker_image {d}"))
                .unwrap_or_else(|| "no docker_image".into())
        ),
    );
}
