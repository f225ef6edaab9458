//! The human text of the hardware answers (`kgadvise matrix`, `defaults`, `worth-gpu`, `inference`):
//! what the CLI prints without `--json`, and the words the page shows for their verdicts.

use crate::hardware::domains::DefaultsReport;
use crate::hardware::inference::{Budget, InferenceReport};
use crate::hardware::worth::{Choice, WorthGpuReport};
use crate::hardware::{CellAnswer, MatrixReport, NoteAnswer, ShapeAnswer, grid};
use crate::rulebook::AcceleratorKind;
use crate::rulebook::finding::{Finding, render_text};
use crate::text::number::{fixed, shortest};
use crate::text::table::table;

impl Choice {
    /// The choice as advice, the page's heading.
    pub fn words(self) -> &'static str {
        match self {
            Choice::Gpu => "Use the GPU",
            Choice::Cpu => "Stay on the CPU",
            Choice::BenchBoth => "Benchmark both",
        }
    }
}

impl WorthGpuReport {
    /// The task's row bounds in one sentence (the page shows it under the reason).
    pub fn bounds_words(&self) -> String {
        if self.gpu_from_rows == 0 {
            "This task always runs on the GPU.".to_string()
        } else {
            format!(
                "CPU below {} rows; GPU from {} rows.",
                self.cpu_below_rows, self.gpu_from_rows
            )
        }
    }
}

impl Budget {
    /// What the expected run time does to the limit, as the answer's first sentence ends.
    pub fn words(self) -> &'static str {
        match self {
            Budget::KeepsMargin => "keeps the margin",
            Budget::ThinMargin => "within the limit, but with less than the margin",
            Budget::OverLimit => "past the limit: the submission would fail",
        }
    }
}

impl AcceleratorKind {
    /// The accelerator's name in a sentence or a table cell.
    pub fn words(self) -> &'static str {
        match self {
            AcceleratorKind::Gpu => "GPU",
            AcceleratorKind::Tpu => "TPU",
        }
    }
}

fn cell_line(c: &CellAnswer) -> String {
    format!(
        "{} on {}: {} — {}",
        c.capability_name,
        c.platform_name,
        c.support.as_str(),
        c.note
    )
}

pub(crate) fn matrix(report: &MatrixReport) -> String {
    match report {
        MatrixReport::Cell { cell, findings, .. } => {
            let mut s = cell_line(cell);
            s.push_str(&format!(
                "\n  rule {} ({}, as of {})\n",
                cell.rule, cell.source, cell.as_of
            ));
            s.push_str(&render_text(findings));
            s
        }
        MatrixReport::Table {
            cells,
            shapes,
            notes,
            findings,
            platform,
            capability,
            ..
        } => {
            let mut s = if platform.is_some() || capability.is_some() {
                cells.iter().map(|c| cell_line(c) + "\n").collect()
            } else {
                matrix_grid(cells)
            };
            if let (Some(first), false) = (cells.first(), notes.is_empty()) {
                s.push_str(&format!("\n{}:\n", first.platform_name));
                for note in notes {
                    s.push_str(&format!("  - {note}\n"));
                }
            }
            s.push_str(&shape_table(shapes));
            s.push_str(&render_text(findings));
            s
        }
    }
}

/// The seed's layout: capabilities as rows, platforms as columns, support values only.
fn matrix_grid(cells: &[CellAnswer]) -> String {
    let (columns, grid_rows) = grid(cells);
    let mut header = vec!["capability"];
    header.extend(columns.iter().map(|(key, _)| key.as_str()));
    let rows: Vec<Vec<String>> = grid_rows
        .iter()
        .map(|(key, _, row)| {
            let mut line = vec![key.clone()];
            line.extend(row.iter().map(|c| c.support.as_str().to_string()));
            line
        })
        .collect();
    let mut s = table(&header, &rows);
    s.push_str("\n(conditions: kgadvise matrix --platform P --capability C, or --json)\n");
    s
}

fn shape_table(shapes: &[ShapeAnswer]) -> String {
    if shapes.is_empty() {
        return String::new();
    }
    let rows: Vec<Vec<String>> = shapes
        .iter()
        .map(|sh| {
            vec![
                sh.machine_shape.clone(),
                sh.status.as_str().to_string(),
                sh.stored_as
                    .clone()
                    .map(|x| format!("stored as {x}"))
                    .unwrap_or_default(),
            ]
        })
        .collect();
    let mut s = String::from("\nKaggle machine_shape status:\n");
    s.push_str(&table(&["machine_shape", "status", "note"], &rows));
    s
}

/// `  - item` lines under a heading (a blank line before it), nothing when there are no items.
fn list(heading: &str, items: &[String]) -> String {
    if items.is_empty() {
        return String::new();
    }
    let mut s = format!("\n{heading}:\n");
    for item in items {
        s.push_str(&format!("  - {item}\n"));
    }
    s
}

fn note_lines(notes: &[NoteAnswer]) -> String {
    notes
        .iter()
        .map(|n| format!("  - {}: {} [{}]\n", n.title, n.text, n.id))
        .collect()
}

fn notes_section(notes: &[NoteAnswer]) -> String {
    if notes.is_empty() {
        return String::new();
    }
    format!("\nNotes:\n{}", note_lines(notes))
}

fn with_findings(mut s: String, findings: &[Finding]) -> String {
    s.push('\n');
    s.push_str(&render_text(findings));
    s
}

impl DefaultsReport {
    /// The page's heading of the answer: the domain, and its platform or what picking one resolves.
    pub fn heading(&self) -> String {
        match &self.platform_name {
            Some(p) => format!("{} on {p}", self.domain_name),
            None => format!(
                "{} (pick a platform to resolve AMP, workers and what is left out)",
                self.domain_name
            ),
        }
    }
}

pub(crate) fn defaults(r: &DefaultsReport) -> String {
    let on = r
        .platform_name
        .as_deref()
        .map(|p| format!(" on {p}"))
        .unwrap_or_default();
    let mut s = format!("{}{on}\n\nAlways:\n", r.domain_name);
    for item in &r.always {
        s.push_str(&format!("  - {item}\n"));
    }
    // A heading only over items: on a CPU kernel every "when measured" default may be left out.
    if !r.when_measured.is_empty() {
        s.push_str("\nWhen measured, or when the data is large:\n");
    }
    for item in &r.when_measured {
        s.push_str(&format!("  - {item}\n"));
    }
    if !r.dropped.is_empty() {
        s.push_str("\nLeft out on this platform:\n");
        for d in &r.dropped {
            s.push_str(&format!("  - {}: {} ({})\n", d.text, d.reason, d.rule));
        }
    }
    for t in &r.templates {
        s.push_str(&format!(
            "\nTemplate {}: on by default: {}",
            t.file,
            t.on_by_default.join(", ")
        ));
        if !t.opt_in.is_empty() {
            s.push_str(&format!("; opt-in: {}", t.opt_in.join(", ")));
        }
        if !t.why_not_default.is_empty() {
            s.push_str(&format!(" ({})", t.why_not_default));
        }
        s.push('\n');
    }
    s.push_str(&list("Platform notes", &r.platform_notes));
    s.push_str(&notes_section(&r.notes));
    // The reminder to say why on a departure (r.departures) is the KH003 finding's fix.
    with_findings(s, &r.findings)
}

pub(crate) fn worth_gpu(r: &WorthGpuReport) -> String {
    let mut s = format!("{}: {}\n  {}\n", r.task, r.choice.as_str(), r.reason);
    for a in &r.advice {
        s.push_str(&format!("  - {a}\n"));
    }
    s.push_str(&note_lines(&r.notes));
    with_findings(s, &r.findings)
}

pub(crate) fn inference(r: &InferenceReport) -> String {
    let mut s = format!(
        "Expected {} h on the hidden test ({} items) of the {} h limit: {}.\n",
        shortest(r.expected_hours),
        r.test_items,
        shortest(r.limit_hours),
        r.budget.words()
    );
    s.push_str(&format!(
        "Margin {} % (at least {} % wanted: at most {} h); {} items fit in that at this rate.\n",
        fixed(r.margin * 100.0, 1),
        fixed(r.min_margin * 100.0, 1),
        shortest(r.budget_hours),
        r.items_in_budget
    ));
    if let Some(x) = r.speedup_needed {
        s.push_str(&format!(
            "The per-item loop must run {}x faster.\n",
            shortest(x)
        ));
    }
    if !r.fixes.is_empty() {
        let on = r
            .platform_name
            .as_deref()
            .map(|p| format!(" on {p}"))
            .unwrap_or_default();
        s.push_str(&format!("\nThe inference defaults to apply{on}:\n"));
        for f in &r.fixes {
            s.push_str(&format!("  - {f}\n"));
        }
        for d in &r.left_out {
            s.push_str(&format!("  (left out: {}: {})\n", d.text, d.reason));
        }
    }
    s.push_str(&notes_section(&r.notes));
    with_findings(s, &r.findings)
}
