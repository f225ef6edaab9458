//! One file per advisor page. Each page reads its inputs from the URL, calls one core function and renders
//! the report struct the CLI prints.

pub mod bench;
pub mod cap;
pub mod collect;
pub mod compare;
pub mod defaults;
pub mod diagnose;
pub mod fidelity;
pub mod inference;
pub mod kernel;
pub mod matrix;
pub mod plan;
pub mod prune;
pub mod quota;
pub mod rules;
pub mod tpu;
pub mod worth_gpu;

use kgadvise_core::hardware::NoteAnswer;
use kgadvise_core::rulebook;

use crate::components::Cell;
use crate::components::example::Example;

/// Every page's "Try an example", by `page=` key (host tests check each against web/examples.txt, the files
/// the build copies, and render each page).
pub const EXAMPLES: &[(&str, &Example)] = &[
    ("matrix", &matrix::EXAMPLE),
    ("defaults", &defaults::EXAMPLE),
    ("worth-gpu", &worth_gpu::EXAMPLE),
    ("inference", &inference::EXAMPLE),
    ("diagnose", &diagnose::EXAMPLE),
    ("plan", &plan::EXAMPLE),
    ("quota", &quota::EXAMPLE),
    ("tpu", &tpu::EXAMPLE),
    ("cap", &cap::EXAMPLE),
    ("kernel", &kernel::EXAMPLE),
    ("collect", &collect::EXAMPLE),
    ("compare", &compare::EXAMPLE),
    ("prune", &prune::EXAMPLE),
    ("fidelity", &fidelity::EXAMPLE),
    ("bench", &bench::EXAMPLE),
    ("rules", &rules::EXAMPLE),
];

/// The rows of a notes table (advice the seeds give in words, beside an answer): title, text, ID.
pub fn note_rows(notes: &[NoteAnswer]) -> Vec<Vec<Cell>> {
    notes
        .iter()
        .map(|n| {
            vec![
                Cell::text(n.title.clone()),
                Cell::text(n.text.clone()),
                Cell::rule(n.id.clone()),
            ]
        })
        .collect()
}

/// (key, "key — name") for the platform choices.
pub fn platform_options() -> Vec<(String, String)> {
    rulebook()
        .platforms
        .iter()
        .map(|p| (p.key.to_string(), format!("{} — {}", p.key, p.name)))
        .collect()
}

/// (key, "key — name") for the capability choices.
pub fn capability_options() -> Vec<(String, String)> {
    rulebook()
        .capabilities
        .iter()
        .map(|c| (c.key.to_string(), format!("{} — {}", c.key, c.name)))
        .collect()
}

/// (key, "key — name") for the domain choices.
pub fn domain_options() -> Vec<(String, String)> {
    rulebook()
        .domains
        .iter()
        .map(|d| (d.key.to_string(), format!("{} — {}", d.key, d.name)))
        .collect()
}
