//! The human text of the bench answers (`kgadvise bench`, `bench --history`): what the CLI prints
//! without `--json`.

use crate::bench::{BenchReport, BenchRun, HistoryReport};
use crate::rulebook::finding::render_text;
use crate::text::number::fixed;
use crate::text::table::table;

/// A speed-up as `1.52x`; `-` when there is none.
fn speed(s: Option<f64>) -> String {
    s.map(|x| format!("{}x", fixed(x, 2)))
        .unwrap_or_else(|| "-".into())
}

fn joined_or_dash(items: &[String]) -> String {
    if items.is_empty() {
        "-".into()
    } else {
        items.join(", ")
    }
}

fn run_row(i: usize, run: &BenchRun) -> Vec<String> {
    let util: Vec<String> = run
        .gpus
        .iter()
        .map(|g| {
            format!(
                "GPU{} {}% {}",
                g.index,
                g.util_mean
                    .map(|u| fixed(u, 0))
                    .unwrap_or_else(|| "-".into()),
                g.mem_peak_mib
                    .map(|m| format!("{} MiB", fixed(m, 0)))
                    .unwrap_or_default()
            )
        })
        .collect();
    let verdicts: Vec<String> = run.verdicts.iter().map(|v| v.to_string()).collect();
    vec![
        (i + 1).to_string(),
        format!("{} s", fixed(run.wall_s, 1)),
        run.exit_code
            .map(|c| c.to_string())
            .unwrap_or_else(|| "signal".into()),
        speed(run.speedup),
        joined_or_dash(&util),
        joined_or_dash(&verdicts),
        run.command.clone(),
    ]
}

pub(crate) fn bench(r: &BenchReport) -> String {
    let mut s = format!("Bench {}\n\n", r.name);
    let rows: Vec<Vec<String>> = r
        .runs
        .iter()
        .enumerate()
        .map(|(i, run)| run_row(i, run))
        .collect();
    s.push_str(&table(
        &[
            "run",
            "wall",
            "exit",
            "speed-up",
            "GPU util / peak memory",
            "verdicts",
            "command",
        ],
        &rows,
    ));
    for (i, run) in r.runs.iter().enumerate().skip(1) {
        if !run.changed.is_empty() {
            let c: Vec<String> = run.changed.iter().map(|c| c.to_string()).collect();
            s.push_str(&format!("run {} changed: {}\n", i + 1, c.join("; ")));
        }
    }
    if let Some(p) = r.gpu_vs_cpu {
        s.push_str(&format!(
            "run {} with the GPU against run {} on the CPU: {}x\n",
            p.gpu_run,
            p.cpu_run,
            fixed(p.speedup, 2)
        ));
    }
    if let Some(x) = r.speedup_vs_previous {
        s.push_str(&format!(
            "\nAgainst the previous bench of {}: {}x",
            r.name,
            fixed(x, 2)
        ));
        if !r.changed_vs_previous.is_empty() {
            let c: Vec<String> = r
                .changed_vs_previous
                .iter()
                .map(|c| c.to_string())
                .collect();
            s.push_str(&format!(" ({})", c.join("; ")));
        }
        s.push('\n');
    }
    s.push('\n');
    s.push_str(&render_text(&r.findings));
    s
}

pub(crate) fn history(r: &HistoryReport) -> String {
    let rows: Vec<Vec<String>> = r
        .records
        .iter()
        .map(|e| {
            vec![
                e.time.clone(),
                e.name.clone(),
                format!("{} s", fixed(e.wall_s, 1)),
                speed(e.speedup),
                e.changed_text().unwrap_or_else(|| "-".into()),
            ]
        })
        .collect();
    let mut s = table(
        &["time", "name", "wall", "vs previous", "what changed"],
        &rows,
    );
    for p in &r.problems {
        s.push_str(&format!("line {}: {}\n", p.line, p.message));
    }
    s.push('\n');
    s.push_str(&render_text(&r.findings));
    s
}
