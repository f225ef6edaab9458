//! The code file's size and its biggest parts: a notebook's cells (source, outputs, embedded images,
//! attachments) or a script's longest lines (pasted base64 data). Pure: takes the bytes.

use serde::Serialize;
use serde_json::Value;

/// How many of the biggest parts a finding names.
const PARTS_NAMED: usize = 3;

/// One big part of the code file.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CodePart {
    /// "cell 12 (code)" or "line 40".
    pub part: String,
    pub bytes: u64,
    /// What makes it big: "3 outputs, 2 embedded images", "base64 data".
    pub what: String,
}

/// The analysis of a code file.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CodeAnalysis {
    pub bytes: u64,
    /// True when the file parsed as a Jupyter notebook.
    pub notebook: bool,
    pub cells: usize,
    pub outputs: usize,
    /// Images in outputs, cell attachments and `data:image/...;base64` in sources.
    pub embedded_images: usize,
    /// Bytes of all outputs (what `jupyter nbconvert --clear-output` removes).
    pub output_bytes: u64,
    /// Bytes of embedded images (outputs and attachments).
    pub image_bytes: u64,
    /// The biggest parts, biggest first.
    pub biggest: Vec<CodePart>,
    /// A notebook's size as `kaggle kernels push` sends it (kaggle-cli 2.2.5 `kernels_push`: every code
    /// cell's outputs emptied, list sources joined, the JSON written again by Python's `json.dumps`);
    /// None for a script, which is sent as it is.
    pub sent_bytes: Option<u64>,
}

/// Analyses a code file. `long_line` is the length from which a script line counts as a big part.
pub fn analyse(bytes: &[u8], long_line: u64) -> CodeAnalysis {
    let total = bytes.len() as u64;
    // `from_str` after a UTF-8 check accepts exactly what `from_slice` does (JSON outside strings is
    // ASCII; inside, `from_slice` refuses invalid UTF-8 too), and the wasm links one JSON parser, not two.
    if let Some(Value::Object(nb)) = std::str::from_utf8(bytes)
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(text).ok())
        && let Some(Value::Array(cells)) = nb.get("cells")
    {
        let mut a = analyse_notebook(total, cells);
        a.sent_bytes = Some(sent_notebook_len(&nb));
        return a;
    }
    analyse_script(total, bytes, long_line)
}

fn json_len(v: &Value) -> u64 {
    crate::text::json::text(v).len() as u64
}

fn count_inline_images(source: &Value) -> usize {
    let text = match source {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(Value::as_str).collect::<String>(),
        _ => String::new(),
    };
    text.matches("data:image/").count()
}

fn analyse_notebook(total: u64, cells: &[Value]) -> CodeAnalysis {
    let mut a = CodeAnalysis {
        bytes: total,
        notebook: true,
        cells: cells.len(),
        outputs: 0,
        embedded_images: 0,
        output_bytes: 0,
        image_bytes: 0,
        biggest: Vec::new(),
        sent_bytes: None,
    };
    let mut parts = Vec::new();
    for (i, cell) in cells.iter().enumerate() {
        let kind = cell
            .get("cell_type")
            .and_then(Value::as_str)
            .unwrap_or("cell");
        let size = json_len(cell);
        let mut outputs = 0;
        let mut images = 0;
        let mut out_bytes = 0;
        if let Some(Value::Array(outs)) = cell.get("outputs") {
            outputs = outs.len();
            for o in outs {
                out_bytes += json_len(o);
                if let Some(Value::Object(data)) = o.get("data") {
                    for (mime, v) in data {
                        if mime.starts_with("image/") {
                            images += 1;
                            a.image_bytes += json_len(v);
                        }
                    }
                }
            }
        }
        if let Some(Value::Object(att)) = cell.get("attachments") {
            for file in att.values() {
                if let Some(mimes) = file.as_object() {
                    for (mime, v) in mimes {
                        if mime.starts_with("image/") {
                            images += 1;
                            a.image_bytes += json_len(v);
                        }
                    }
                }
            }
        }
        images += cell.get("source").map(count_inline_images).unwrap_or(0);
        a.outputs += outputs;
        a.embedded_images += images;
        a.output_bytes += out_bytes;
        let mut what = Vec::new();
        if outputs > 0 {
            what.push(format!(
                "{outputs} output{} ({out_bytes} bytes)",
                plural(outputs)
            ));
        }
        if images > 0 {
            what.push(format!("{images} embedded image{}", plural(images)));
        }
        if what.is_empty() {
            what.push("source".to_string());
        }
        parts.push(CodePart {
            part: format!("cell {} ({kind})", i + 1),
            bytes: size,
            what: what.join(", "),
        });
    }
    crate::text::sort::sort_by_key(&mut parts, |p| std::cmp::Reverse(p.bytes));
    parts.truncate(PARTS_NAMED);
    a.biggest = parts;
    a
}

fn analyse_script(total: u64, bytes: &[u8], long_line: u64) -> CodeAnalysis {
    let mut parts: Vec<CodePart> = bytes
        .split(|b| *b == b'\n')
        .enumerate()
        .filter(|(_, l)| l.len() as u64 >= long_line)
        .map(|(i, l)| {
            let b64 = l
                .iter()
                .filter(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='))
                .count();
            let what = if b64 * 10 >= l.len() * 9 {
                "base64 or encoded data"
            } else {
                "a very long line"
            };
            CodePart {
                part: format!("line {}", i + 1),
                bytes: l.len() as u64,
                what: what.to_string(),
            }
        })
        .collect();
    let images = bytes.windows(11).filter(|w| *w == b"data:image/").count();
    crate::text::sort::sort_by_key(&mut parts, |p| std::cmp::Reverse(p.bytes));
    parts.truncate(PARTS_NAMED);
    CodeAnalysis {
        bytes: total,
        notebook: false,
        cells: 0,
        outputs: 0,
        embedded_images: images,
        output_bytes: 0,
        image_bytes: 0,
        biggest: parts,
        sent_bytes: None,
    }
}

/// The length of what kaggle-cli's `kernels_push` sends for a notebook: code cells' outputs emptied,
/// list sources joined, written by Python's `json.dumps` (see [`python_json_len`]).
fn sent_notebook_len(nb: &serde_json::Map<String, Value>) -> u64 {
    let mut nb = nb.clone();
    if let Some(Value::Array(cells)) = nb.get_mut("cells") {
        for cell in cells.iter_mut().filter_map(Value::as_object_mut) {
            if cell.get("cell_type").and_then(Value::as_str) == Some("code")
                && cell.contains_key("outputs")
            {
                cell.insert("outputs".into(), Value::Array(Vec::new()));
            }
            if let Some(Value::Array(parts)) = cell.get("source") {
                let joined: String = parts.iter().filter_map(Value::as_str).collect();
                cell.insert("source".into(), Value::String(joined));
            }
        }
    }
    python_json_len(&Value::Object(nb))
}

/// The length of Python's `json.dumps(value)`: `", "` and `": "` separators, no indent, every
/// non-ASCII character escaped (`\uXXXX`, a surrogate pair beyond the BMP).
fn python_json_len(v: &Value) -> u64 {
    let items = |n: usize| if n == 0 { 0 } else { 2 * (n as u64 - 1) };
    match v {
        Value::Null | Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(_) => json_len(v),
        Value::String(s) => python_string_len(s),
        Value::Array(a) => 2 + items(a.len()) + a.iter().map(python_json_len).sum::<u64>(),
        Value::Object(o) => {
            2 + items(o.len())
                + o.iter()
                    .map(|(k, v)| python_string_len(k) + 2 + python_json_len(v))
                    .sum::<u64>()
        }
    }
}

/// A JSON string's length as Python's `json.dumps` (ensure_ascii) writes it, quotes included.
fn python_string_len(s: &str) -> u64 {
    2 + s
        .chars()
        .map(|c| match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
            c if (c as u32) < 0x20 => 6,
            c if c.is_ascii() => 1,
            c if (c as u32) > 0xFFFF => 12,
            _ => 6,
        })
        .sum::<u64>()
}

/// Calls that download weights or another kernel's output while the kernel runs (KG §3 (8): chain,
/// don't download).
const DOWNLOAD_CALLS: &[&str] = &[
    "hf_hub_download(",
    "snapshot_download(",
    "torch.hub.load(",
    "load_state_dict_from_url(",
    "download_url_to_file(",
    "gdown.download(",
    "gdown.download_folder(",
    "kaggle kernels output",
    "kaggle datasets download",
];

/// Generic fetchers, counted when the line fetches a URL of a weights file.
const FETCHERS: &[&str] = &["wget ", "curl ", "urlretrieve(", "requests.get("];

/// File extensions of model weights.
const WEIGHT_EXTENSIONS: &[&str] = &[
    ".pt",
    ".pth",
    ".bin",
    ".safetensors",
    ".ckpt",
    ".h5",
    ".onnx",
    ".gguf",
];

/// How long a quoted line may be in a finding.
const QUOTED_CHARS: usize = 100;

/// One line of the code that downloads weights at run time.
#[derive(Debug, Clone, PartialEq)]
pub struct Download {
    /// "line 12", or "cell 3, line 2" in a notebook.
    pub part: String,
    /// The line, trimmed (and cut at 100 characters).
    pub line: String,
}

/// The lines of a script, or of a notebook's code cells, that download weights or another kernel's
/// output (comment lines skipped).
pub fn downloads(text: &str) -> Vec<Download> {
    let mut found = Vec::new();
    if let Ok(Value::Object(nb)) = serde_json::from_str::<Value>(text)
        && let Some(Value::Array(cells)) = nb.get("cells")
    {
        for (i, cell) in cells.iter().enumerate() {
            if cell.get("cell_type").and_then(Value::as_str) != Some("code") {
                continue;
            }
            let source = match cell.get("source") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(parts)) => parts.iter().filter_map(Value::as_str).collect(),
                _ => continue,
            };
            for (j, line) in source.lines().enumerate() {
                if downloads_weights(line) {
                    found.push(download(format!("cell {}, line {}", i + 1, j + 1), line));
                }
            }
        }
        return found;
    }
    for (i, line) in text.lines().enumerate() {
        if downloads_weights(line) {
            found.push(download(format!("line {}", i + 1), line));
        }
    }
    found
}

fn download(part: String, line: &str) -> Download {
    let line = line.trim();
    let cut: String = line.chars().take(QUOTED_CHARS).collect();
    Download {
        part,
        line: if cut.len() < line.len() {
            format!("{cut}...")
        } else {
            cut
        },
    }
}

/// A line that downloads weights: a download call, `gdown <id>`, or a fetcher given the URL of a
/// weights file. Comments do not count.
fn downloads_weights(line: &str) -> bool {
    let t = line.trim();
    if t.starts_with('#') {
        return false;
    }
    if DOWNLOAD_CALLS.iter().any(|c| t.contains(c))
        || t.trim_start_matches(['!', '%']).starts_with("gdown ")
    {
        return true;
    }
    FETCHERS.iter().any(|f| t.contains(f)) && t.contains("http") && names_weights_file(t)
}

/// The line names a file with a weights extension (`.pt` followed by a character that cannot continue
/// the extension: `.pth` is its own, `.ptx` is not weights).
fn names_weights_file(line: &str) -> bool {
    WEIGHT_EXTENSIONS.iter().any(|ext| {
        line.match_indices(ext).any(|(at, _)| {
            !line
                .get(at + ext.len()..)
                .and_then(|rest| rest.chars().next())
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notebook_outputs_and_images_are_counted() {
        let png = "A".repeat(5000);
        let nb = serde_json::json!({
            "cells": [
                {"cell_type": "markdown", "source": ["# hi"]},
                {"cell_type": "code", "source": "plot()", "outputs": [
                    {"output_type": "display_data", "data": {"image/png": png, "text/plain": "<Figure>"}},
                    {"output_type": "stream", "text": "done"}
                ]},
                {"cell_type": "markdown", "source": "![x](attachment:x.png)", "attachments": {"x.png": {"image/png": "QUJD"}}}
            ],
            "nbformat": 4
        });
        let bytes = serde_json::to_vec(&nb).unwrap();
        let a = analyse(&bytes, 10_000);
        assert!(a.notebook);
        assert_eq!((a.cells, a.outputs, a.embedded_images), (3, 2, 2));
        assert_eq!(a.biggest[0].part, "cell 2 (code)");
        assert!(
            a.biggest[0].what.contains("2 outputs")
                && a.biggest[0].what.contains("1 embedded image")
        );
        assert!(a.output_bytes > 5000);
    }

    #[test]
    fn script_long_lines_are_named() {
        let mut s = String::from("import base64\n");
        s.push_str(&format!("W = '{}'\n", "QUJD".repeat(5000)));
        s.push_str("print(1)\n");
        let a = analyse(s.as_bytes(), 10_000);
        assert!(!a.notebook);
        assert_eq!(a.biggest.len(), 1);
        assert_eq!(a.biggest[0].part, "line 2");
        assert_eq!(a.biggest[0].what, "base64 or encoded data");
    }

    #[test]
    fn downloads_of_weights_are_found_in_scripts_and_code_cells() {
        let script = "import torch\n# hf_hub_download(\"old\")\nw = hf_hub_download(\"me/m\", \"model.safetensors\")\n!wget -q https://x.org/r50.pth -O r50.pth\n!wget https://x.org/data.csv\nm = timm.create_model(\"r50\", pretrained=True)\n";
        let found = downloads(script);
        let parts: Vec<&str> = found.iter().map(|d| d.part.as_str()).collect();
        assert_eq!(parts, ["line 3", "line 4"]);
        assert!(found[0].line.starts_with("w = hf_hub_download("));
        let nb = serde_json::json!({"cells": [
            {"cell_type": "markdown", "source": "kaggle kernels output me/train"},
            {"cell_type": "code", "source": ["import os\n", "!kaggle kernels output me/train -p /kaggle/working\n"]},
        ]});
        let found = downloads(&nb.to_string());
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].part, "cell 2, line 2");
        assert!(names_weights_file("curl -L https://x/y.pt -o y.pt"));
        assert!(!names_weights_file("wget https://x/kernel.ptx"));
        assert!(downloads(&"x".repeat(300)).is_empty());
        let long = format!("hf_hub_download(\"{}\")", "a".repeat(200));
        assert!(downloads(&long)[0].line.ends_with("..."));
    }

    #[test]
    fn binary_or_broken_input_does_not_panic() {
        let a = analyse(&[0xff, 0, 1, 2, b'\n'], 1);
        assert_eq!(a.bytes, 5);
        let a = analyse(b"{\"cells\": 5}", 1);
        assert!(!a.notebook);
    }
}
