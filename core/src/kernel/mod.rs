//! Kernels before and after a run: the push pre-flight (`check`, spec §10, rules KM001-KM027 in
//! `rules/kernel.toml`) and kgkit's run report (`run_report::collect`, spec §11, rules KR001-KR009 in
//! `rules/run_report.toml`). The surfaces read the files (a kernel folder, a dropped file); everything
//! that decides is here.

pub mod check;
pub mod code;
pub mod metadata;
pub mod run_report;

pub use check::{Accelerator, CHECK_SCHEMA, CheckReport, CheckRequest, check};
pub use code::{CodeAnalysis, CodePart};
pub use metadata::{
    KernelMetadata, ProblemKind, code_file_paths, max_metadata_bytes, metadata_text,
    parse_metadata, read_metadata,
};

use crate::request::RequestError;
use crate::text::Encoding;

/// The text of a file read as bytes (the CLI's files and stdin, the page's dropped files): UTF-8 or
/// UTF-16 (PowerShell's `>`), a BOM dropped, as every input is decoded. Bytes that are not text are
/// refused as the request's `field`, saying that `expected` was expected.
fn text_of_file(field: &str, bytes: &[u8], expected: &str) -> Result<String, RequestError> {
    let decoded = crate::text::decode_strict(bytes).map_err(|e| {
        match bytes.iter().position(|b| *b == 0) {
            Some(at) if e.encoding == Encoding::Utf8 => binary(field, at, expected),
            _ => RequestError::at_line(
                field,
                e.line,
                format!(
                    "not {} text (byte offset {}); expected {expected}",
                    e.encoding.name(),
                    e.offset
                ),
            ),
        }
    })?;
    let text = decoded.into_owned();
    refuse_binary(field, &text, expected)?;
    Ok(text)
}

/// A text with a NUL character is binary data, not the JSON `expected`.
fn refuse_binary(field: &str, text: &str, expected: &str) -> Result<(), RequestError> {
    match text.find('\0') {
        Some(at) => Err(binary(field, at, expected)),
        None => Ok(()),
    }
}

fn binary(field: &str, at: usize, expected: &str) -> RequestError {
    RequestError::new(
        field,
        format!("binary data (a NUL at offset {at}); expected {expected}"),
    )
}

/// A JSON syntax error of the request's text `field`: its line, the column and serde's reason.
fn json_error(field: &str, e: &serde_json::Error, expected: &str) -> RequestError {
    RequestError::at_line(
        field,
        e.line(),
        format!(
            "not valid JSON at column {} ({}); expected {expected}",
            e.column(),
            metadata::serde_reason(e)
        ),
    )
}
