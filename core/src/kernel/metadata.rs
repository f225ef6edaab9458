//! `kernel-metadata.json`, read as leniently as Kaggle's CLI reads it (formats.md §5): JSON or string
//! booleans in any case, unknown keys kept (for a warning), the fields `kaggle kernels pull -m` writes, and
//! the camelCase API object some people save under that name (mapped, with a note).

use serde::Serialize;
use serde_json::{Map, Value};

use crate::request::RequestError;
use crate::rulebook::Thresholds;
use crate::rulebook::ids::{rule, threshold};
use crate::text::json::{self, json_type};

/// Fields of the snake_case metadata format, `kaggle kernels pull -m` included (formats.md §5.1, §5.4).
pub const KNOWN_KEYS: &[&str] = &[
    "id",
    "id_no",
    "title",
    "code_file",
    "language",
    "kernel_type",
    "is_private",
    "enable_gpu",
    "enable_tpu",
    "enable_internet",
    "dataset_sources",
    "competition_sources",
    "kernel_sources",
    "model_sources",
    "keywords",
    "docker_image",
    "docker_image_pinning_type",
    "machine_shape",
];

/// camelCase API keys that mark the API object form (formats.md §5.2, the birdclef sample).
const API_MARKERS: &[&str] = &[
    "enableGpu",
    "enableTpu",
    "kernelType",
    "machineShape",
    "isPrivate",
    "datasetDataSources",
    "hasEnableGpu",
];

/// What went wrong with one field; each becomes a finding of the check.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FieldProblem {
    pub field: String,
    pub kind: ProblemKind,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum ProblemKind {
    /// A boolean that is neither a JSON bool nor "true"/"false" (KM005).
    BadBool,
    /// Any other field of the wrong JSON type (KM026).
    WrongType,
}

/// The metadata as Kaggle's CLI would see it. `None` = absent (or JSON null).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct KernelMetadata {
    pub id: Option<String>,
    pub id_no: Option<i64>,
    pub title: Option<String>,
    pub code_file: Option<String>,
    pub language: Option<String>,
    pub kernel_type: Option<String>,
    pub is_private: Option<bool>,
    pub enable_gpu: Option<bool>,
    pub enable_tpu: Option<bool>,
    pub enable_internet: Option<bool>,
    pub dataset_sources: Vec<String>,
    pub competition_sources: Vec<String>,
    pub kernel_sources: Vec<String>,
    pub model_sources: Vec<String>,
    pub keywords: Vec<String>,
    pub docker_image: Option<String>,
    pub docker_image_pinning_type: Option<String>,
    /// Verbatim, before normalisation (`""`, `"None"` kept as written). Serialized under another name:
    /// the report's `machine_shape` key means what Kaggle stores (cli.md: one key, one meaning).
    #[serde(rename = "machine_shape_as_written")]
    pub machine_shape: Option<String>,
    /// Keys Kaggle's CLI ignores, in file order.
    pub unknown_keys: Vec<String>,
    /// The file was the camelCase API object, mapped to these fields.
    pub api_form: bool,
    pub problems: Vec<FieldProblem>,
}

impl KernelMetadata {
    /// `machine_shape` with `null`, `""` and `"None"` read as "no accelerator requested" (formats.md §5.4).
    pub fn requested_shape(&self) -> Option<&str> {
        match self.machine_shape.as_deref().map(str::trim) {
            None | Some("") | Some("None") => None,
            Some(s) => Some(s),
        }
    }
}

/// Where an unreadable metadata file sends the reader: the rule that documents it.
fn km001(mut e: RequestError) -> RequestError {
    e.message = format!("{} [{}]", e.message, rule::KM001);
    e
}

/// The largest metadata file accepted (bytes), so the CLI can refuse a huge file before reading it.
pub fn max_metadata_bytes(thresholds: &Thresholds) -> u64 {
    let v = thresholds.get(threshold::KERNEL_METADATA_MAX_BYTES);
    if v.is_finite() && v > 0.0 {
        v as u64
    } else {
        u64::MAX
    }
}

/// More than [`max_metadata_bytes`] is not kernel metadata (real ones are under 2 kB).
fn refuse_big(size: usize, thresholds: &Thresholds) -> Result<(), RequestError> {
    let limit = max_metadata_bytes(thresholds);
    if size as u64 > limit {
        return Err(km001(RequestError::new(
            "metadata",
            format!(
                "far too big for kernel metadata (limit {limit} bytes); expected a small kernel-metadata.json"
            ),
        )));
    }
    Ok(())
}

/// The `metadata` text of a file's bytes (UTF-8 or UTF-16, a BOM dropped). A file bigger than
/// [`max_metadata_bytes`], binary data or bytes that are not text are refused (KM001); the CLI reads at
/// most one byte more than the limit.
pub fn metadata_text(bytes: &[u8], thresholds: &Thresholds) -> Result<String, RequestError> {
    refuse_big(bytes.len(), thresholds)?;
    crate::request::text_of("check", "metadata", bytes)
}

/// Reads kernel metadata text. Syntax errors name the line and column; a value that is not an object, a
/// notebook, binary data or a huge text is refused with what was expected (KM001).
pub fn read_metadata(text: &str, thresholds: &Thresholds) -> Result<KernelMetadata, RequestError> {
    refuse_big(text.len(), thresholds)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    super::refuse_binary("metadata", text, "kernel-metadata.json text").map_err(km001)?;
    if text.trim().is_empty() {
        return Err(km001(RequestError::new(
            "metadata",
            "the file is empty; expected a JSON object like {\"id\": \"owner/slug\", ...}",
        )));
    }
    let value: Value = serde_json::from_str(text).map_err(|e| {
        km001(super::json_error(
            "metadata",
            &e,
            "a kernel-metadata.json object",
        ))
    })?;
    let Value::Object(map) = value else {
        return Err(km001(RequestError::new(
            "metadata",
            format!(
                "the JSON is {}, not an object; expected a kernel-metadata.json object like {{\"id\": \"owner/slug\", ...}}",
                json_type(&value)
            ),
        )));
    };
    if map.contains_key("cells") || map.contains_key("nbformat") {
        return Err(km001(RequestError::new(
            "metadata",
            "this is a Jupyter notebook, not kernel metadata; expected the kernel folder or its kernel-metadata.json",
        )));
    }
    let api = !KNOWN_KEYS
        .iter()
        .any(|k| map.contains_key(*k) && *k != "id" && *k != "title" && *k != "language")
        && API_MARKERS.iter().any(|k| map.contains_key(*k));
    Ok(if api {
        from_api_object(&map)
    } else {
        from_snake(&map)
    })
}

/// [`metadata_text`] then [`read_metadata`]: a file's bytes to the metadata.
pub fn parse_metadata(
    bytes: &[u8],
    thresholds: &Thresholds,
) -> Result<KernelMetadata, RequestError> {
    read_metadata(&metadata_text(bytes, thresholds)?, thresholds)
}

/// True when `code_file` names a file to look for: not empty, and not a placeholder of
/// `kaggle kernels init` (`INSERT_CODE_FILE_PATH_HERE`: KM003 says so; no file is looked for).
pub(crate) fn names_a_file(code_file: &str) -> bool {
    !code_file.trim().is_empty() && !code_file.contains("INSERT_")
}

/// Where a surface looks for the code file the metadata names, relative to the metadata's folder (as
/// Kaggle's CLI resolves it), in order: `code_file` as written, then with forward slashes (a Windows path
/// pushed from Linux, so the size is still checked; the back-slash itself is KM024). Empty when the
/// metadata names no file or cannot be read.
pub fn code_file_paths(metadata: &str, thresholds: &Thresholds) -> Vec<String> {
    let Ok(meta) = read_metadata(metadata, thresholds) else {
        return Vec::new();
    };
    let Some(code_file) = meta.code_file.filter(|c| names_a_file(c)) else {
        return Vec::new();
    };
    let forward = code_file.replace('\\', "/");
    if forward == code_file {
        vec![code_file]
    } else {
        vec![code_file, forward]
    }
}

struct Reader<'a> {
    map: &'a Map<String, Value>,
    problems: Vec<FieldProblem>,
}

impl<'a> Reader<'a> {
    fn problem(&mut self, field: &str, kind: ProblemKind, message: String) {
        self.problems.push(FieldProblem {
            field: field.to_string(),
            kind,
            message,
        });
    }

    fn string(&mut self, key: &str, field: &str) -> Option<String> {
        match self.map.get(key)? {
            Value::Null => None,
            Value::String(s) => Some(s.clone()),
            other => {
                let t = json_type(other);
                self.problem(
                    field,
                    ProblemKind::WrongType,
                    format!("`{key}` is {t} ({}); expected a string", json::text(other)),
                );
                None
            }
        }
    }

    /// Kaggle's `get_bool`: JSON true/false or the strings "true"/"false" in any case.
    fn boolean(&mut self, key: &str, field: &str) -> Option<bool> {
        match self.map.get(key)? {
            Value::Null => None,
            Value::Bool(b) => Some(*b),
            Value::String(s) if s.trim().eq_ignore_ascii_case("true") => Some(true),
            Value::String(s) if s.trim().eq_ignore_ascii_case("false") => Some(false),
            other => {
                self.problem(
                    field,
                    ProblemKind::BadBool,
                    format!(
                        "`{key}` is {}; Kaggle's CLI accepts only true/false or \"true\"/\"false\"",
                        json::text(other)
                    ),
                );
                None
            }
        }
    }

    fn list(&mut self, key: &str, field: &str) -> Vec<String> {
        match self.map.get(key) {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => {
                let mut out = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    match item {
                        Value::String(s) => out.push(s.clone()),
                        other => self.problem(
                            field,
                            ProblemKind::WrongType,
                            format!(
                                "`{key}`[{i}] is {} ({}); expected a string",
                                json_type(other),
                                json::text(other)
                            ),
                        ),
                    }
                }
                out
            }
            Some(other) => {
                self.problem(
                    field,
                    ProblemKind::WrongType,
                    format!(
                        "`{key}` is {} ({}); expected a list of strings",
                        json_type(other),
                        json::text(other)
                    ),
                );
                Vec::new()
            }
        }
    }

    fn integer(&mut self, key: &str, field: &str) -> Option<i64> {
        match self.map.get(key)? {
            Value::Null => None,
            Value::Number(n) if n.as_i64().is_some() => n.as_i64(),
            Value::String(s) if s.trim().parse::<i64>().is_ok() => s.trim().parse().ok(),
            other => {
                let t = json_type(other);
                self.problem(
                    field,
                    ProblemKind::WrongType,
                    format!(
                        "`{key}` is {t} ({}); expected an integer",
                        json::text(other)
                    ),
                );
                None
            }
        }
    }
}

fn from_snake(map: &Map<String, Value>) -> KernelMetadata {
    let mut r = Reader {
        map,
        problems: Vec::new(),
    };
    let mut m = KernelMetadata {
        id: r.string("id", "id"),
        id_no: r.integer("id_no", "id_no"),
        title: r.string("title", "title"),
        code_file: r.string("code_file", "code_file"),
        language: r.string("language", "language"),
        kernel_type: r.string("kernel_type", "kernel_type"),
        is_private: r.boolean("is_private", "is_private"),
        enable_gpu: r.boolean("enable_gpu", "enable_gpu"),
        enable_tpu: r.boolean("enable_tpu", "enable_tpu"),
        enable_internet: r.boolean("enable_internet", "enable_internet"),
        dataset_sources: r.list("dataset_sources", "dataset_sources"),
        competition_sources: r.list("competition_sources", "competition_sources"),
        kernel_sources: r.list("kernel_sources", "kernel_sources"),
        model_sources: r.list("model_sources", "model_sources"),
        keywords: r.list("keywords", "keywords"),
        docker_image: r.string("docker_image", "docker_image"),
        docker_image_pinning_type: r
            .string("docker_image_pinning_type", "docker_image_pinning_type"),
        machine_shape: r.string("machine_shape", "machine_shape"),
        ..KernelMetadata::default()
    };
    m.unknown_keys = map
        .keys()
        .filter(|k| !KNOWN_KEYS.contains(&k.as_str()))
        .cloned()
        .collect();
    m.problems = r.problems;
    m
}

/// The raw API kernel object (camelCase, `*Nullable` and `has*` duplicates, numeric `id`, `ref` =
/// owner/slug), mapped to the metadata fields.
fn from_api_object(map: &Map<String, Value>) -> KernelMetadata {
    let mut r = Reader {
        map,
        problems: Vec::new(),
    };
    let mut first_string =
        |keys: &[&str], field: &str| keys.iter().find_map(|k| r.string(k, field));
    let id = first_string(&["ref"], "id");
    let title = first_string(&["title"], "title");
    let code_file = first_string(&["codeFile"], "code_file");
    let language = first_string(&["language", "languageNullable"], "language");
    let kernel_type = first_string(&["kernelType", "kernelTypeNullable"], "kernel_type");
    let docker_image = first_string(&["dockerImage", "dockerImageNullable"], "docker_image");
    let machine_shape = first_string(&["machineShape", "machineShapeNullable"], "machine_shape");
    let mut first_bool = |keys: &[&str], field: &str| keys.iter().find_map(|k| r.boolean(k, field));
    let is_private = first_bool(&["isPrivate", "isPrivateNullable"], "is_private");
    let enable_gpu = first_bool(&["enableGpu", "enableGpuNullable"], "enable_gpu");
    let enable_tpu = first_bool(&["enableTpu", "enableTpuNullable"], "enable_tpu");
    let enable_internet = first_bool(
        &["enableInternet", "enableInternetNullable"],
        "enable_internet",
    );
    let id_no = r.integer("id", "id_no");
    KernelMetadata {
        id,
        id_no,
        title,
        code_file,
        language,
        kernel_type,
        is_private,
        enable_gpu,
        enable_tpu,
        enable_internet,
        dataset_sources: r.list("datasetDataSources", "dataset_sources"),
        competition_sources: r.list("competitionDataSources", "competition_sources"),
        kernel_sources: r.list("kernelDataSources", "kernel_sources"),
        model_sources: r.list("modelDataSources", "model_sources"),
        keywords: Vec::new(),
        docker_image,
        docker_image_pinning_type: None,
        machine_shape,
        unknown_keys: Vec::new(),
        api_form: true,
        problems: r.problems,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<KernelMetadata, RequestError> {
        read_metadata(text, &Thresholds::defaults())
    }

    #[test]
    fn string_and_json_booleans_in_any_case() {
        let m =
            parse(r#"{"enable_gpu": "TRUE", "enable_tpu": false, "is_private": "False"}"#).unwrap();
        assert_eq!(
            (m.enable_gpu, m.enable_tpu, m.is_private),
            (Some(true), Some(false), Some(false))
        );
        assert!(m.problems.is_empty());
    }

    #[test]
    fn a_bad_boolean_names_the_field() {
        let m = parse(r#"{"enable_gpu": "yes", "is_private": 1}"#).unwrap();
        assert_eq!(m.problems.len(), 2);
        assert!(m.problems.iter().all(|p| p.kind == ProblemKind::BadBool));
        assert!(
            m.problems
                .iter()
                .any(|p| p.field == "enable_gpu" && p.message.contains("\"yes\""))
        );
    }

    #[test]
    fn syntax_errors_give_line_and_column() {
        let e = parse("{\n  \"id\": \"a/b\",\n}\n").unwrap_err();
        assert_eq!((e.field.as_str(), e.line), ("metadata", Some(3)));
        assert!(
            e.to_string()
                .starts_with("metadata line 3: not valid JSON at column 1 ("),
            "{e}"
        );
        assert!(e.message.ends_with("[KM001]"), "{e}");
    }

    #[test]
    fn bom_blank_line_and_no_newline_are_fine() {
        let m = parse("\u{feff}\n{\"id\": \"a/bcdef\"}").unwrap();
        assert_eq!(m.id.as_deref(), Some("a/bcdef"));
    }

    #[test]
    fn unusable_inputs_are_refused_clearly() {
        assert!(
            parse("[1, 2]")
                .unwrap_err()
                .message
                .contains("a list, not an object")
        );
        assert!(parse("").unwrap_err().message.contains("empty"));
        assert!(
            parse(r#"{"cells": [], "nbformat": 4}"#)
                .unwrap_err()
                .message
                .contains("notebook")
        );
        let e = parse_metadata(b"\x89PNG\r\n\x1a\n\0\0", &Thresholds::defaults()).unwrap_err();
        assert!(e.message.contains("binary"), "{e}");
        let e = parse_metadata(b"{\"id\": \"\xff\"}", &Thresholds::defaults()).unwrap_err();
        assert!(e.message.contains("UTF-8"), "{e}");
        let big = vec![b' '; 2 * 1024 * 1024];
        assert!(
            parse_metadata(&big, &Thresholds::defaults())
                .unwrap_err()
                .message
                .contains("too big")
        );
    }

    #[test]
    fn unknown_keys_are_kept_and_pull_fields_known() {
        let m = parse(r#"{"id_no": 5, "keywords": ["gpu"], "docker_image": null, "accelerator": "NvidiaTeslaP100"}"#)
            .unwrap();
        assert_eq!(m.unknown_keys, vec!["accelerator".to_string()]);
        assert_eq!(m.id_no, Some(5));
    }

    #[test]
    fn api_object_is_mapped() {
        let m = parse(
            r#"{"id": 1168, "ref": "a/bird", "title": "Birds here", "kernelType": "notebook", "enableGpu": false,
                "machineShape": "None", "isPrivate": false, "datasetDataSources": ["x/y"], "hasEnableGpu": true}"#,
        )
        .unwrap();
        assert!(m.api_form);
        assert_eq!(m.id.as_deref(), Some("a/bird"));
        assert_eq!(m.id_no, Some(1168));
        assert_eq!(m.requested_shape(), None);
        assert_eq!(m.dataset_sources, vec!["x/y".to_string()]);
        assert_eq!(m.is_private, Some(false));
    }

    #[test]
    fn wrong_types_are_problems_not_panics() {
        let m =
            parse(r#"{"title": 5, "dataset_sources": "a/b", "kernel_sources": [1], "id_no": "x"}"#)
                .unwrap();
        assert_eq!(m.problems.len(), 4, "{:?}", m.problems);
        assert!(m.problems.iter().all(|p| p.kind == ProblemKind::WrongType));
    }
}
