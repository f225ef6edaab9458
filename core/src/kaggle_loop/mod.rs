//! The loop (KG §2: quota → push → wait / status → collect → log; rules `loop.toml`, KL): kgadvise drives
//! the official Kaggle CLI and keeps kgkit's runs log. The surface runs the client and reads and writes
//! the files; everything here is text in, text and reports out:
//!
//! - `answers.rs` — what the client prints (push, status, quota), read into typed answers;
//! - `runs_file.rs` — the runs log as a file to edit: unknown fields and unreadable lines kept;
//! - `live_quota.rs` — `quota` without input: the fresh cache, the live call, NOT LIVE and why (KL008);
//! - `push.rs` — the pre-flight (check with the log's busy sessions and the quota), the `-t` cap, and
//!   Kaggle's answer to the push (KL001-KL006, KL009, KL011);
//! - `ledger_view.rs` — `status` (statuses seen, the ledger), `release`, `log` (KL007, KL010);
//! - `wait.rs` — `wait` (polls, the session when it ended badly) and `collect USER/SLUG` (the run's hours
//!   recorded);
//! - `text.rs` — their human text.

pub mod answers;
pub mod ledger_view;
pub mod live_quota;
pub mod push;
pub mod runs_file;
mod text;
pub mod wait;

use chrono::{DateTime, Utc};

use crate::request::{RequestError, answer_json};

/// The loop's advisors by name, JSON in and out, for the rule fixtures (the CLI calls the functions).
/// Not among `request::ADVISORS`: they need the Kaggle CLI, which only the command line runs.
pub fn advise_json(
    command: &str,
    request: &str,
    clock: DateTime<Utc>,
) -> Option<Result<String, RequestError>> {
    fn live(
        q: &live_quota::LiveQuotaRequest,
        clock: DateTime<Utc>,
    ) -> Result<crate::quota::QuotaReport, RequestError> {
        live_quota::live_quota(q, clock).map(|l| l.report)
    }
    Some(match command {
        "loop-push" => answer_json(request, clock, push::push),
        "loop-status" => answer_json(request, clock, ledger_view::status),
        "loop-release" => answer_json(request, clock, ledger_view::release),
        "loop-log" => answer_json(request, clock, ledger_view::log),
        "loop-wait" => answer_json(request, clock, wait::wait),
        "loop-quota" => answer_json(request, clock, live),
        _ => return None,
    })
}
