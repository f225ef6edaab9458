//! Kernels before and after a run: the push pre-flight (`check`, spec §10, the KM rules of
//! `rules/kernel.toml`) and kgkit's run report (`run_report::collect`, spec §11, the KR rules of
//! `rules/run_report.toml`; `kgadvise explain --list` lists them). The surfaces read the files (a kernel folder, a dropped file); everything
//! that decides is here.

pub mod check;
pub mod code;
pub mod metadata;
pub mod run_report;
pub mod text;

pub use check::{Accelerator, CHECK_SCHEMA, CheckReport, CheckRequest, check};
pub use code::{CodeAnalysis, CodePart};
pub use metadata::{
    KernelMetadata, ProblemKind, code_file_paths, max_metadata_bytes, metadata_text,
    parse_metadata, read_metadata,
};

use crate::request::RequestError;
// A NUL in a text field is binary data (the decoding of file inputs refuses it the same way).
use crate::request::refuse_binary;

/// A JSON syntax error of the request's text `field`: its line, the column and serde's reason.
fn json_error(field: &str, e: &serde_json::Error, expected: &str) -> RequestError {
    RequestError::at_line(
        field,
        e.line(),
        format!(
            "not valid JSON at column {} ({}); expected {expected}",
            e.column(),
            crate::text::json::serde_reason(e)
        ),
    )
}
