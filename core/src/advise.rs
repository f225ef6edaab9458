//! Every advisor reached by command name, JSON in and JSON out: the one entry of the adapters that speak
//! JSON (the npm package, the Python wheel). The top floor of core: it imports every advisor and nothing
//! in core imports it (`tests/tests/structure.rs` keeps it so).
//!
//! [`TABLE`] names each advisor once: its command, its one-line doc, its entry point (whose request and
//! report types follow). The npm package's functions and declarations and the Python wheel's functions,
//! keywords, signatures and stubs are read from it and (feature `schema`) from [`request_schema`], the
//! JSON schema of the request struct (schemars, which honours serde's attributes); the npm package's
//! TypeScript types from the request's and [`report_schema`]'s (`Advisor::schemas_in`).

use chrono::{DateTime, Utc};
#[cfg(feature = "schema")]
use schemars::{Schema, SchemaGenerator};
#[cfg(feature = "schema")]
use serde::de;

#[cfg(feature = "schema")]
use crate::request::FILE_INPUTS;
use crate::request::{RequestError, answer_json, answer_json_and_text};

/// An entry point's answer to a JSON request as JSON and as the text `kgadvise <command>` prints.
type AnswerAndText = fn(&str, DateTime<Utc>) -> Result<(String, String), RequestError>;

/// One advisor as the surfaces that speak JSON reach it: its command name, its one-line doc, whether the
/// libraries offer it, its entry point over JSON and (feature `schema`) its request's and report's JSON
/// schemas. Each is a row of [`TABLE`], written once by [`advisor!`]: the npm package's functions and
/// declarations and the Python wheel's functions, keywords, signatures and stubs are read from it.
pub struct Advisor {
    /// The CLI command (`worth-gpu`): the JavaScript function is its camelCase, the Python one its snake_case.
    pub command: &'static str,
    /// One line saying what it answers: the libraries' summary of their function.
    pub summary: &'static str,
    /// Whether the libraries (npm, Python) have a function for it: `bench` judges runs the CLI timed
    /// itself (a process and a clock of its own), so it is the command's alone.
    pub library: bool,
    answer: fn(&str, DateTime<Utc>) -> Result<String, RequestError>,
    answer_and_text: AnswerAndText,
    #[cfg(feature = "schema")]
    schema: fn() -> serde_json::Value,
    #[cfg(feature = "schema")]
    report_schema: fn() -> serde_json::Value,
    /// The schemas of its request (in the first generator) and its report (in the second).
    #[cfg(feature = "schema")]
    schemas: fn(&mut SchemaGenerator, &mut SchemaGenerator) -> (Schema, Schema),
}

#[cfg(feature = "schema")]
impl Advisor {
    /// The schemas of its request and its report in the generators of [`schema_generators`]: each a
    /// `$ref` into its generator's definitions (`definitions()`), which hold every type the request or
    /// report reaches, shared with the other advisors' (the npm package's declarations, js/build.rs).
    pub fn schemas_in(
        &self,
        requests: &mut SchemaGenerator,
        reports: &mut SchemaGenerator,
    ) -> (Schema, Schema) {
        (self.schemas)(requests, reports)
    }
}

/// The generators of the schemas (JSON Schema draft 2020-12): requests as serde reads them (the
/// deserialize contract: a field with a default may be left out), reports as serde writes them (the
/// serialize contract: every field is there unless it is skipped when empty, an `Option` as `null`).
#[cfg(feature = "schema")]
pub fn schema_generators() -> (SchemaGenerator, SchemaGenerator) {
    let settings = schemars::generate::SchemaSettings::draft2020_12;
    (
        settings().for_deserialize().into_generator(),
        settings().for_serialize().into_generator(),
    )
}

/// The schema of the request an entry point takes, for deserialisation (what serde reads), with its keys
/// in the struct's order as `x-order` (a schema's `properties` are an unordered map).
#[cfg(feature = "schema")]
fn schema_of<Q: schemars::JsonSchema + de::DeserializeOwned, R>(
    _: fn(&Q, DateTime<Utc>) -> Result<R, RequestError>,
) -> serde_json::Value {
    let mut schema = schema_generators().0.into_root_schema_for::<Q>().to_value();
    if let Some(schema) = schema.as_object_mut() {
        let keys = field_order::<Q>().iter().map(|k| (*k).into()).collect();
        schema.insert("x-order".into(), serde_json::Value::Array(keys));
    }
    schema
}

/// The keys of a request struct in their order, as serde's derive lists them to the deserializer
/// (`deserialize_struct`'s `fields`: the names after `rename_all`).
#[cfg(feature = "schema")]
fn field_order<Q: de::DeserializeOwned>() -> &'static [&'static str] {
    use serde::de::{Deserializer, Visitor};
    struct FieldNames<'a>(&'a mut &'static [&'static str]);
    impl<'de> Deserializer<'de> for FieldNames<'_> {
        type Error = de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("not a struct"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            *self.0 = fields;
            Err(de::Error::custom("fields read"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
            ignored_any
        }
    }
    let mut fields: &'static [&'static str] = &[];
    let _ = Q::deserialize(FieldNames(&mut fields));
    fields
}

/// The schema of the report an entry point gives, for serialisation (what serde writes).
#[cfg(feature = "schema")]
fn report_schema_of<Q, R: schemars::JsonSchema>(
    _: fn(&Q, DateTime<Utc>) -> Result<R, RequestError>,
) -> serde_json::Value {
    schema_generators().1.into_root_schema_for::<R>().to_value()
}

/// An entry point's request and report schemas in the two generators of [`schema_generators`].
#[cfg(feature = "schema")]
fn schemas_of<Q: schemars::JsonSchema, R: schemars::JsonSchema>(
    _: fn(&Q, DateTime<Utc>) -> Result<R, RequestError>,
    requests: &mut SchemaGenerator,
    reports: &mut SchemaGenerator,
) -> (Schema, Schema) {
    (requests.subschema_for::<Q>(), reports.subschema_for::<R>())
}

/// A row of [`TABLE`]: command, one-line doc, entry point (its request and report types follow from it).
macro_rules! advisor {
    ($command:literal, $summary:literal, $entry:path) => {
        advisor!($command, $summary, $entry, library: true)
    };
    ($command:literal, $summary:literal, $entry:path, library: $library:literal) => {
        Advisor {
            command: $command,
            summary: $summary,
            library: $library,
            answer: |request, clock| answer_json(request, clock, $entry),
            answer_and_text: |request, clock| answer_json_and_text(request, clock, $entry),
            #[cfg(feature = "schema")]
            schema: || schema_of($entry),
            #[cfg(feature = "schema")]
            report_schema: || report_schema_of($entry),
            #[cfg(feature = "schema")]
            schemas: |requests, reports| schemas_of($entry, requests, reports),
        }
    };
}

/// Every advisor, in the libraries' order. Adding an advisor is one row here (and its module); the npm
/// package and the Python wheel need no change (ARCHITECTURE.md, "Requests in, reports out").
pub const TABLE: &[Advisor] = &[
    advisor!(
        "matrix",
        "What runs where: one cell of the hardware matrix, or the whole table.",
        crate::hardware::matrix
    ),
    advisor!(
        "defaults",
        "The defaults to write for a domain, resolved for a platform.",
        crate::hardware::domains::defaults
    ),
    advisor!(
        "worth-gpu",
        "Is the GPU worth the quota for this task and data size?",
        crate::hardware::worth::worth_gpu
    ),
    advisor!(
        "diagnose",
        "Why is my run slow? Verdicts from nvidia-smi output and/or the three bench rates.",
        crate::diagnose::diagnose
    ),
    advisor!(
        "quota",
        "Your GPU and TPU quota from any `kaggle quota` form: plannable hours, reservations, live or not.",
        crate::quota::quota
    ),
    advisor!(
        "plan",
        "GPU-hours until the deadline: resets, final reserve, exploration, screens and promotions.",
        crate::quota::plan::plan
    ),
    advisor!(
        "cap",
        "Session cap (`kaggle kernels push -t`) and how many resumed sessions a run needs.",
        crate::quota::cap::cap
    ),
    advisor!(
        "tpu",
        "TPU or GPU: both finish times and the choice.",
        crate::quota::tpu::tpu
    ),
    advisor!(
        "check",
        "Pre-flight of a kernel push: would kernel-metadata.json be refused, fail or start nothing?",
        crate::kernel::check::check
    ),
    advisor!(
        "collect",
        "After a run: what kgkit's kg_run.json says to fix, and the measured cost per fold; for a kernel without one, its `kaggle kernels status` text and its log (outcome, hours, a stop at the cap).",
        crate::kernel::run_report::collect
    ),
    advisor!(
        "compare",
        "Should an idea be promoted? A paired bootstrap of its predictions against its control's.",
        crate::stats::compare::compare
    ),
    advisor!(
        "prune",
        "Should a running screen stop? Its learning curve against the baseline's.",
        crate::stats::prune::prune
    ),
    advisor!(
        "fidelity",
        "Do screens rank ideas as full cross-validation does? Sign agreement and Spearman.",
        crate::stats::fidelity::fidelity
    ),
    advisor!(
        "explain",
        "Documentation of a rule (KH001) or a data entry (matrix.bf16.t4x2).",
        crate::explain::explain
    ),
    advisor!(
        "bench-history",
        "The bench history (`kgadvise bench --history`): speed-ups and what changed between commands.",
        crate::bench::history
    ),
    advisor!(
        "inference",
        "Will inference fit the competition's run-time limit with the margin to spare?",
        crate::hardware::inference::inference
    ),
    advisor!("bench", "Bench runs the CLI timed: speed-ups, what changed, the runs diagnosed.", crate::bench::bench, library: false),
];

/// The advisors the libraries have a function for ([`Advisor::library`]), in [`TABLE`]'s order.
pub fn library_advisors() -> impl Iterator<Item = &'static Advisor> {
    TABLE.iter().filter(|advisor| advisor.library)
}

/// The JSON schema (draft 2020-12, as serde reads the request) of `command`'s request, from its request
/// struct: keys, types and doc comments, the keys in the struct's order (`x-order`), `x-required` on the
/// fields the advisor needs, `x-time` on times, and `x-file` (added here from [`FILE_INPUTS`]) on the text
/// inputs a surface may read from a file.
#[cfg(feature = "schema")]
pub fn request_schema(command: &str) -> Option<serde_json::Value> {
    let advisor = TABLE.iter().find(|advisor| advisor.command == command)?;
    let mut schema = (advisor.schema)();
    if let Some(properties) = schema
        .get_mut("properties")
        .and_then(serde_json::Value::as_object_mut)
    {
        for (key, field) in properties.iter_mut() {
            if FILE_INPUTS
                .iter()
                .any(|(c, f, _)| *c == command && f == key)
                && let Some(field) = field.as_object_mut()
            {
                field.insert("x-file".into(), serde_json::Value::Bool(true));
            }
        }
    }
    Some(schema)
}

/// The JSON schema (draft 2020-12, as serde writes the report) of `command`'s report, from its report
/// type: keys, types and doc comments; a key is `required` unless the report leaves it out when empty.
#[cfg(feature = "schema")]
pub fn report_schema(command: &str) -> Option<serde_json::Value> {
    let advisor = TABLE.iter().find(|advisor| advisor.command == command)?;
    Some((advisor.report_schema)())
}

/// Every advisor reached by command name: `request` is its JSON request, the answer its report as JSON
/// (the object `kgadvise <command> --json` prints). `clock` is the time when the request has no `now`.
pub fn advise_json(
    command: &str,
    request: &str,
    clock: DateTime<Utc>,
) -> Result<String, RequestError> {
    match TABLE.iter().find(|advisor| advisor.command == command) {
        Some(advisor) => (advisor.answer)(request, clock),
        None => Err(unknown_advisor(command)),
    }
}

fn unknown_advisor(command: &str) -> RequestError {
    RequestError::new(
        "",
        format!(
            "unknown advisor `{command}`; expected one of: {}",
            advisor_names().join(", ")
        ),
    )
}

/// [`advise_json`]'s answer and the report's text as `kgadvise <command>` prints it.
pub fn advise_json_and_text(
    command: &str,
    request: &str,
    clock: DateTime<Utc>,
) -> Result<(String, String), RequestError> {
    match TABLE.iter().find(|advisor| advisor.command == command) {
        Some(advisor) => (advisor.answer_and_text)(request, clock),
        None => Err(unknown_advisor(command)),
    }
}

/// The advisors [`advise_json`] answers, by command name, in [`TABLE`]'s order.
pub fn advisor_names() -> Vec<&'static str> {
    TABLE.iter().map(|advisor| advisor.command).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::FILE_INPUTS;

    /// Every file input is a field of its command's request: a listed field no request has would be
    /// decoded and then refused as an unknown key.
    #[test]
    fn every_file_input_is_a_request_field() {
        let clock = chrono::DateTime::UNIX_EPOCH;
        for (command, field, _) in FILE_INPUTS {
            let probe = format!("{{\"{field}\": 3}}");
            let e = advise_json(command, &probe, clock).unwrap_err();
            assert!(
                !e.message.starts_with("unknown field"),
                "{command} {field}: {e}"
            );
        }
    }
}
