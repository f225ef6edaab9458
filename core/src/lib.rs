//! kgadvise-core: the pure heart of kgadvise, a Kaggle compute advisor.
//!
//! Everything that decides lives here: the rules (embedded from `rules/*.toml`), the parsers of text
//! inputs, budget arithmetic, statistics and verdicts. Nothing here performs IO, reads the clock or draws
//! global randomness: the current time and seeds are arguments, so the same code runs in the native CLI
//! and in the browser (wasm32), and every answer is reproducible.
//!
//! Every answer carries [`finding::Finding`]s whose `rule` is a stable ID documented by
//! [`registry::explain`].
//!
//! Bad input never panics: outside tests, `unwrap`/`expect`/`panic!` and indexing/slicing are denied (clippy runs with
//! `-D warnings` in CI). The embedded rules cannot be invalid at run time: core/build.rs validates them and
//! bakes them into a static, failing the build otherwise.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

pub mod bench;
pub mod diagnose;
pub mod hardware;
pub mod kaggle_loop;
pub mod kernel;
pub mod quota;
pub mod request;
pub mod rulebook;
pub mod stats;
pub mod text;

pub use rulebook::finding::{Finding, Severity};
pub use rulebook::{RuleBook, rulebook};
