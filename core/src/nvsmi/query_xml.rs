//! `nvidia-smi -q -x` XML (formats.md §4.2), DTD v10–v13, read with roxmltree. Documents are small; a
//! `-q -x -l` loop concatenates several, each read when its `</nvidia_smi_log>` closes.

use super::{Collector, Sample, is_no_value, parse_date_line, parse_num};

/// At most this much XML is buffered for one document.
const MAX_XML: usize = 32 * 1024 * 1024;

#[derive(Debug)]
pub struct XmlState {
    buf: String,
    start_line: usize,
    overflow: bool,
}

impl XmlState {
    pub fn new(start_line: usize) -> XmlState {
        XmlState {
            buf: String::new(),
            start_line,
            overflow: false,
        }
    }

    /// Adds a line; true when the document closed (and has been read).
    pub fn push(&mut self, line: &str, n: usize, out: &mut Collector) -> bool {
        if self.buf.len() + line.len() > MAX_XML {
            if !self.overflow {
                out.diag(
                    n,
                    format!(
                        "XML document from line {} exceeds {} MiB: ignored",
                        self.start_line,
                        MAX_XML >> 20
                    ),
                );
            }
            self.overflow = true;
        } else {
            self.buf.push_str(line);
            self.buf.push('\n');
        }
        if line.contains("</nvidia_smi_log>") {
            let doc = std::mem::take(&mut self.buf);
            if !self.overflow {
                read_document(&doc, self.start_line, out);
            }
            return true;
        }
        false
    }

    /// The input ended inside a document: read what there is (roxmltree names the problem).
    pub fn finish(self, out: &mut Collector) {
        if !self.buf.trim().is_empty() && !self.overflow {
            read_document(&self.buf, self.start_line, out);
        }
    }
}

fn text<'a>(node: roxmltree::Node<'a, 'a>, path: &[&str]) -> Option<&'a str> {
    let mut cur = node;
    for p in path {
        cur = cur.children().find(|c| c.has_tag_name(*p))?;
    }
    cur.text().map(str::trim)
}

fn num(node: roxmltree::Node, path: &[&str]) -> Option<f64> {
    text(node, path)
        .filter(|t| !is_no_value(t))
        .and_then(parse_num)
}

/// Reads one `-q -x` document; its GPUs are numbered in document order.
pub fn read_document(doc: &str, start_line: usize, out: &mut Collector) {
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let parsed = match roxmltree::Document::parse_with_options(doc, opts) {
        Ok(d) => d,
        Err(e) => {
            let pos = e.pos();
            out.diag(
                start_line + pos.row as usize - 1,
                format!(
                    "nvidia-smi -q -x XML cannot be read (column {}): {e}",
                    pos.col
                ),
            );
            return;
        }
    };
    let root = parsed.root_element();
    if !root.has_tag_name("nvidia_smi_log") {
        out.diag(
            start_line,
            format!(
                "XML root is <{}>: expected <nvidia_smi_log>",
                root.tag_name().name()
            ),
        );
        return;
    }
    let ts = text(root, &["timestamp"]).and_then(parse_date_line);
    for (i, gpu) in root
        .children()
        .filter(|c| c.has_tag_name("gpu"))
        .enumerate()
    {
        let power = gpu
            .children()
            .find(|c| c.has_tag_name("gpu_power_readings") || c.has_tag_name("power_readings"));
        let (draw, limit) = match power {
            Some(p) => (
                num(p, &["power_draw"])
                    .or_else(|| num(p, &["average_power_draw"]))
                    .or_else(|| num(p, &["instant_power_draw"])),
                num(p, &["current_power_limit"])
                    .or_else(|| num(p, &["power_limit"]))
                    .or_else(|| num(p, &["enforced_power_limit"])),
            ),
            None => (None, None),
        };
        let name = text(gpu, &["product_name"]).filter(|t| !is_no_value(t));
        out.add(&Sample {
            index: Some(i as u32),
            key: gpu.attribute("id"),
            name,
            ts,
            util: num(gpu, &["utilization", "gpu_util"]),
            mem_used: num(gpu, &["fb_memory_usage", "used"]),
            mem_total: num(gpu, &["fb_memory_usage", "total"]),
            power_draw: draw,
            power_limit: limit,
        });
    }
}
