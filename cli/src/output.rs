//! Printing: one JSON object with `--json`, readable text otherwise; exit codes per the contract
//! (0 done, 1 error findings, 2 unusable input or usage).

use std::io::Write;
use std::process::ExitCode;

use chrono::{DateTime, Utc};
use kgadvise_core::request::{Overrides, RequestError};
use kgadvise_core::rulebook::Thresholds;
use kgadvise_core::rulebook::finding::has_errors;
use kgadvise_core::rulebook::report::Report;
use kgadvise_core::text::number::shortest;
use kgadvise_core::text::when::{DateRole, parse_time};
use serde::Serialize;
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};

/// Flags every subcommand accepts.
#[derive(Debug, clap::Args)]
pub struct Global {
    /// Print exactly one JSON object (with "schema" and "findings") instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// The current time, RFC 3339 or a date (default: the clock). Makes answers reproducible.
    #[arg(long, global = true, value_name = "TIME")]
    pub now: Option<String>,
    /// Override a threshold of rules/, e.g. --set verdict.busy-util-pct=10 (repeatable).
    #[arg(long = "set", global = true, value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// Also print a link to the same answer on the web advisor (default base: the local
    /// `scripts/serve.sh` at http://127.0.0.1:8080/). Pasted inputs (logs, files) are never put in links.
    #[arg(long, global = true, value_name = "BASE", num_args = 0..=1, default_missing_value = "http://127.0.0.1:8080/")]
    pub share_url: Option<String>,
}

impl Global {
    /// `--now`, or the clock: the only place kgadvise reads it.
    pub fn now(&self) -> Result<DateTime<Utc>, CliError> {
        match &self.now {
            Some(text) => parse_time(text, DateRole::Instant)
                .map_err(|e| CliError::usage(format!("--now: {e}"))),
            None => Ok(Utc::now()),
        }
    }

    pub fn thresholds(&self) -> Result<Thresholds, CliError> {
        self.overrides()
            .thresholds()
            .map_err(|e| CliError::request(e, &[]))
    }

    /// `--set` as a request's `set`.
    pub fn overrides(&self) -> Overrides {
        Overrides(self.set.clone())
    }
}

/// The clock, for a request without `--now`: the only place kgadvise reads it.
pub fn clock() -> DateTime<Utc> {
    Utc::now()
}

/// How the CLI says a request field: the file a text field was read from (`files`: field, path), else its
/// flag (`foldHours` is `--fold-hours`); the request as a whole (an empty field) goes unnamed.
pub fn field_name(field: &str, files: &[(&str, &str)]) -> String {
    if let Some((_, path)) = files.iter().find(|(f, _)| *f == field) {
        return path.to_string();
    }
    if field.is_empty() {
        return String::new();
    }
    let mut flag = String::from("--");
    for c in field.chars() {
        if c.is_ascii_uppercase() {
            flag.push('-');
            flag.push(c.to_ascii_lowercase());
        } else {
            flag.push(c);
        }
    }
    flag
}

/// Parses the command line. Negative numbers are values (`--plannable -1` is then refused by the
/// command's own check, which says what was expected, instead of "unexpected argument"); a parse error
/// exits 2 as clap prints it and, with `--json`, also prints a `kgadvise.error/1` object on stdout.
pub fn parse_cli<T: clap::Parser>() -> T {
    let mut cmd = T::command().allow_negative_numbers(true);
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    for name in names {
        cmd = cmd.mut_subcommand(name, |c| c.allow_negative_numbers(true));
    }
    let parsed = cmd.try_get_matches().and_then(|m| T::from_arg_matches(&m));
    match parsed {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            let shown = matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            );
            if !shown && std::env::args().any(|a| a == "--json") {
                let text = e.render().to_string();
                // The message without clap's usage and help hints, on one line.
                let lines: Vec<&str> = text
                    .lines()
                    .take_while(|l| {
                        !l.starts_with("Usage:") && !l.starts_with("For more information")
                    })
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .collect();
                let joined = lines.join(" ");
                let first = joined.trim_start_matches("error: ");
                let obj = serde_json::json!({
                    "schema": "kgadvise.error/1",
                    "error": first,
                    "findings": [],
                });
                println!("{obj}");
            }
            e.exit()
        }
    }
}

/// An error that ends the command: exit 2 (unusable input or usage) with a message that names the input
/// and what was expected.
#[derive(Debug)]
pub struct CliError {
    pub message: String,
}

impl CliError {
    pub fn usage(message: impl Into<String>) -> CliError {
        CliError {
            message: message.into(),
        }
    }

    /// A core request error in the CLI's words (see [`field_name`]).
    pub fn request(e: RequestError, files: &[(&str, &str)]) -> CliError {
        CliError::usage(e.render(&field_name(&e.field, files)))
    }

    pub fn report(&self, global: &Global) -> ExitCode {
        if global.json {
            let obj = serde_json::json!({
                "schema": "kgadvise.error/1",
                "error": self.message,
                "findings": [],
            });
            println!("{obj}");
        }
        eprintln!("kgadvise: error: {}", self.message);
        ExitCode::from(2)
    }
}

impl From<crate::nvidia_smi::NotStarted> for CliError {
    fn from(e: crate::nvidia_smi::NotStarted) -> CliError {
        CliError::usage(e.message)
    }
}

impl From<kgadvise_core::hardware::UnknownId> for CliError {
    fn from(e: kgadvise_core::hardware::UnknownId) -> CliError {
        CliError::usage(e.to_string())
    }
}

/// The text of `command`'s file input `field` from the bytes read from `name` (a path, `stdin`): core's
/// one decoding of file inputs (`request::text_of`, the npm package's and the wheel's too), an error
/// naming the file.
pub fn file_text(command: &str, field: &str, name: &str, bytes: &[u8]) -> Result<String, CliError> {
    kgadvise_core::request::text_of(command, field, bytes)
        .map_err(|e| CliError::request(e, &[(field, name)]))
}

/// Prints a report (core's text, or its JSON with `--json`) and returns the exit code its findings
/// call for.
pub fn emit<R: Report>(report: &R, global: &Global) -> Result<ExitCode, CliError> {
    emit_text(report, global, || report.text())
}

/// [`emit`] with the text given: for an answer whose text names a flag (diagnose's interval).
pub fn emit_text<R: Report>(
    report: &R,
    global: &Global,
    text: impl FnOnce() -> String,
) -> Result<ExitCode, CliError> {
    let mut out = std::io::stdout().lock();
    let text = if global.json {
        serde_json::to_string_pretty(report)
            .map_err(|e| CliError::usage(format!("cannot encode JSON: {e}")))?
    } else {
        text()
    };
    // A closed pipe (`kgadvise ... | head`) is not an error worth a panic.
    let _ = writeln!(out, "{}", text.trim_end());
    Ok(if has_errors(report.findings()) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The web advisor's link to the same answer, printed after the answer when `--share-url` is given: on
/// stdout with text output, on stderr with `--json` (stdout stays one JSON object). Its keys are the
/// request's own (serde's names, which the page reads: `foldHours`), from `typed`, the request as the
/// command line gave it: its fields that are set and differ from the default, in the struct's order,
/// then `--now` (the answer's time, which the time-dependent pages read). `set` stays out, and so do the
/// file texts: the command line never fills them (`arg(skip)`), the page takes them pasted or dropped.
pub fn share<R: Serialize + Default>(global: &Global, page: &str, typed: &R) {
    let Some(base) = &global.share_url else {
        return;
    };
    let mut query = form_urlencoded::Serializer::new(String::new());
    query.append_pair("page", page);
    for (key, value) in share_pairs(typed) {
        query.append_pair(&key, &value);
    }
    if let Some(now) = global
        .now
        .as_deref()
        .map(str::trim)
        .filter(|v| !v.is_empty())
    {
        query.append_pair("now", now);
    }
    let url = format!("{}?{}", base.trim_end_matches('?'), query.finish());
    if global.json {
        eprintln!("share: {url}");
    } else {
        println!("\nShare this answer: {url}");
    }
}

/// The request's top-level fields that are set, not blank and not their default, as URL key and text;
/// `now` and `set` are left to the caller.
fn share_pairs<R: Serialize + Default>(typed: &R) -> Vec<(String, String)> {
    use serde_json::Value;
    let (Ok(Value::Object(fields)), Ok(Value::Object(defaults))) = (
        serde_json::to_value(typed),
        serde_json::to_value(R::default()),
    ) else {
        return Vec::new();
    };
    keys_in_order(typed)
        .into_iter()
        .filter(|key| key != "now" && key != "set" && fields.get(key) != defaults.get(key))
        .filter_map(|key| {
            let text = url_text(fields.get(&key)?)?;
            Some((key, text))
        })
        .collect()
}

/// A scalar as the page's inputs read it: numbers as core prints them (`1.5`, `4`), `true`, text
/// trimmed; no value, blank text and lists have no key.
fn url_text(value: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    let text = match value {
        Value::String(s) => s.trim().to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) if n.is_f64() => shortest(n.as_f64()?),
        Value::Number(n) => n.to_string(),
        Value::Null | Value::Array(_) | Value::Object(_) => return None,
    };
    (!text.is_empty()).then_some(text)
}

/// A struct's keys in its own order, as serde writes them (serde_json's `Map` sorts its keys).
fn keys_in_order<R: Serialize>(request: &R) -> Vec<String> {
    serde_json::to_string(request)
        .ok()
        .and_then(|json| serde_json::from_str::<KeysInOrder>(&json).ok())
        .map(|keys| keys.0)
        .unwrap_or_default()
}

struct KeysInOrder(Vec<String>);

impl<'de> Deserialize<'de> for KeysInOrder {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<KeysInOrder, D::Error> {
        struct Keys;
        impl<'de> Visitor<'de> for Keys {
            type Value = KeysInOrder;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a request object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<KeysInOrder, A::Error> {
                let mut keys = Vec::new();
                while let Some(key) = map.next_key()? {
                    map.next_value::<IgnoredAny>()?;
                    keys.push(key);
                }
                Ok(KeysInOrder(keys))
            }
        }
        deserializer.deserialize_map(Keys)
    }
}
