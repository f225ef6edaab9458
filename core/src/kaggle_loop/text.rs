//! The human text of the loop's answers: what `kgadvise push | status | wait | release | log` print.

use super::answers::{PushAnswer, SavedFiles};
use super::ledger_view::{LedgerRow, LogReport, ReleaseReport, StatusReport};
use super::push::PushReport;
use super::wait::WaitReport;
use crate::rulebook::finding::render_text;
use crate::text::number::{fixed, shortest};
use crate::text::table::table;

/// A time as the tables show it: `2026-12-01 08:00` (UTC).
fn short_time(t: Option<&str>) -> String {
    match t {
        Some(t) => t.get(..16).unwrap_or(t).replace('T', " "),
        None => "-".to_string(),
    }
}

fn hours(h: Option<f64>) -> String {
    h.map_or_else(|| "-".to_string(), |h| format!("{} h", fixed(h, 2)))
}

/// The ledger table: one row per run.
pub(crate) fn ledger_table(rows: &[LedgerRow]) -> String {
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.kernel.clone(),
                r.accelerator.clone(),
                r.status.clone(),
                short_time(r.pushed_at.as_deref()),
                hours(r.cap_hours),
                format!("{} h", fixed(r.held_hours, 2)),
                hours(r.gpu_hours),
            ]
        })
        .collect();
    table(
        &[
            "kernel",
            "accelerator",
            "status",
            "pushed (UTC)",
            "cap",
            "held",
            "ran",
        ],
        &cells,
    )
}

fn answer_line(answer: &PushAnswer) -> String {
    match answer {
        PushAnswer::Pushed { version, url } => format!(
            "Kaggle: version {} pushed{}",
            version.map_or_else(|| "?".to_string(), |v| v.to_string()),
            url.as_deref()
                .map(|u| format!(" ({u})"))
                .unwrap_or_default()
        ),
        PushAnswer::BatchLimit {
            accelerator,
            sessions,
        } => {
            format!("Kaggle: Maximum batch {accelerator} session count of {sessions} reached")
        }
        PushAnswer::WeeklyQuota { accelerator, hours } => {
            format!(
                "Kaggle: Maximum weekly {accelerator} quota of {} hours reached",
                fixed(*hours, 2)
            )
        }
        PushAnswer::BadRequest { message } | PushAnswer::Refused { message } => {
            format!("Kaggle: {message}")
        }
        PushAnswer::Failed { message } => format!("The Kaggle CLI failed: {message}"),
        PushAnswer::NoAnswer => "No answer from Kaggle (the call was stopped)".to_string(),
    }
}

pub(crate) fn push(r: &PushReport) -> String {
    let kernel = r.kernel.as_deref().unwrap_or("(no id)");
    let mut s = format!(
        "Push {kernel} on {}: -t {} ({} h), {}\n",
        r.accelerator,
        r.timeout_seconds,
        shortest(r.cap_hours),
        r.cap_how
    );
    match (&r.answer, r.go) {
        (Some(a), _) => s.push_str(&format!("{}\n", answer_line(a))),
        (None, true) => s.push_str("Pre-flight: the push can go.\n"),
        (None, false) => {
            s.push_str("Pre-flight: REFUSED, nothing pushed. What would unblock it:\n");
            for u in &r.unblock {
                s.push_str(&format!("  - {u}\n"));
            }
        }
    }
    match (r.logged.as_deref(), &r.answer) {
        (Some(status), Some(_)) => s.push_str(&format!("Runs log: recorded as {status}\n")),
        (None, Some(_)) => s.push_str("Runs log: nothing recorded\n"),
        _ => {}
    }
    if !r.holders.is_empty() {
        s.push_str(&format!(
            "Runs in flight on the same accelerator: {}\n",
            r.holders.join(", ")
        ));
    }
    s.push('\n');
    s.push_str(&render_text(&r.findings));
    s
}

pub(crate) fn status(r: &StatusReport) -> String {
    let mut s = String::new();
    for line in &r.seen {
        s.push_str(&format!("Seen: {line}\n"));
    }
    if r.rows.is_empty() {
        s.push_str("No run in flight in the runs log.\n");
    } else {
        s.push_str(&ledger_table(&r.rows));
    }
    s.push_str(&format!(
        "Held by runs in flight: GPU {} h, TPU {} h\n",
        fixed(r.held_gpu_hours, 2),
        fixed(r.held_tpu_hours, 2)
    ));
    if let Some(q) = &r.quota {
        let plannable = |name: &str, st: Option<&crate::quota::QuotaState>| {
            st.map(|st| format!("{name} {} h", fixed(st.plannable, 2)))
        };
        let parts: Vec<String> = [
            plannable("GPU", q.gpu.as_ref()),
            plannable("TPU", q.tpu.as_ref()),
        ]
        .into_iter()
        .flatten()
        .collect();
        let live = if q.live { "LIVE" } else { "NOT LIVE" };
        s.push_str(&format!("Plannable: {} ({live})\n", parts.join(", ")));
    }
    s.push('\n');
    s.push_str(&render_text(&r.findings));
    s
}

pub(crate) fn release(r: &ReleaseReport) -> String {
    let mut s = match &r.released {
        Some(what) => format!("Released {what}: {} h freed.\n", fixed(r.freed_hours, 2)),
        None => format!(
            "{} holds no reservation in the runs log: nothing released.\n",
            r.kernel
        ),
    };
    s.push('\n');
    s.push_str(&render_text(&r.findings));
    s
}

pub(crate) fn log(r: &LogReport) -> String {
    let mut s = if r.rows.is_empty() {
        "The runs log has no run.\n".to_string()
    } else {
        ledger_table(&r.rows)
    };
    s.push_str(&format!(
        "Hours the logged runs cost: GPU {} h, TPU {} h\n\n",
        fixed(r.gpu_hours, 2),
        fixed(r.tpu_hours, 2)
    ));
    s.push_str(&render_text(&r.findings));
    s
}

/// A size as the files table shows it: bytes, kB, MB or GB (powers of 1000, as Kaggle's limits are).
fn size(bytes: Option<u64>) -> String {
    let Some(b) = bytes else {
        return "-".to_string();
    };
    let units = [(1e9, "GB"), (1e6, "MB"), (1e3, "kB")];
    match units.iter().find(|(unit, _)| b as f64 >= *unit) {
        Some((unit, name)) => format!("{} {name}", fixed(b as f64 / unit, 1)),
        None => format!("{b} B"),
    }
}

/// What `kaggle kernels files` listed: a table, none, or why there is no list.
fn saved_files(files: &SavedFiles, kernel: &str) -> String {
    if let Some(why) = &files.error {
        return format!("Files the session saved: not listed ({why})\n");
    }
    if files.files.is_empty() {
        return "Files the session saved: none\n".to_string();
    }
    let rows: Vec<Vec<String>> = files
        .files
        .iter()
        .map(|f| {
            vec![
                f.name.clone(),
                size(f.bytes),
                short_time(f.created.as_deref()),
            ]
        })
        .collect();
    let mut s = format!(
        "Files the session saved:\n{}",
        table(&["file", "size", "saved (UTC)"], &rows)
    );
    if let Some(token) = &files.next_page_token {
        s.push_str(&format!(
            "and more: kaggle kernels files {kernel} --page-token {token}\n"
        ));
    }
    s
}

pub(crate) fn wait(r: &WaitReport) -> String {
    let mut s = String::new();
    for p in &r.polls {
        s.push_str(&format!(
            "{}  {}: {}\n",
            short_time(Some(&p.at)),
            r.kernel,
            p.status
        ));
    }
    match (&r.status, r.ended) {
        (Some(st), true) => s.push_str(&format!("{} ended: {st}\n", r.kernel)),
        _ => s.push_str(&format!("{} has not ended: the polls stopped.\n", r.kernel)),
    }
    if let Some(summary) = r.session.as_ref().and_then(|c| c.session.as_ref())
        && !summary.log_tail.is_empty()
    {
        s.push_str("Log tail:\n");
        for line in &summary.log_tail {
            s.push_str(&format!("  {line}\n"));
        }
    }
    if let Some(files) = &r.files {
        s.push_str(&saved_files(files, &r.kernel));
    }
    s.push('\n');
    s.push_str(&render_text(&r.findings));
    if let Some(collected) = &r.collected {
        s.push_str(&format!(
            "\nCollected:\n{}",
            crate::kernel::text::collect(collected)
        ));
    }
    s
}
