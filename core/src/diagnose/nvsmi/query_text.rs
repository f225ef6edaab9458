//! `nvidia-smi -q` text (formats.md §4.1): `Key : value` lines, 4-space nesting, key column padded to 42
//! or 55 characters (split on the first `:`). One sample per `GPU <bus id>` block; `-q -l` loops repeat
//! the whole log with a new `Timestamp`.

use super::{Collector, Sample, is_no_value, parse_date_line, parse_num};

#[derive(Debug, Default)]
struct GpuBlock {
    key: String,
    name: Option<String>,
    util: Option<f64>,
    mem_used: Option<f64>,
    mem_total: Option<f64>,
    /// (priority, value): lower priority wins (Power Draw, then Average, then Instantaneous).
    draw: Option<(u8, f64)>,
    limit: Option<(u8, f64)>,
}

#[derive(Debug, Default)]
pub struct QueryState {
    ts: Option<f64>,
    section: String,
    cur: Option<GpuBlock>,
    count: u32,
}

fn indent_of(line: &str) -> usize {
    line.chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .map(|c| if c == '\t' { 4 } else { 1 })
        .sum()
}

fn value(v: &str) -> Option<f64> {
    if is_no_value(v) { None } else { parse_num(v) }
}

fn better(slot: &mut Option<(u8, f64)>, prio: u8, v: Option<f64>) {
    if let Some(v) = v
        && slot.is_none_or(|(p, _)| prio < p)
    {
        *slot = Some((prio, v));
    }
}

impl QueryState {
    pub fn blank(&mut self) {}

    pub fn line(&mut self, line: &str, n: usize, out: &mut Collector) {
        let indent = indent_of(line);
        let content = line.trim();
        let kv = content.split_once(':').map(|(k, v)| (k.trim(), v.trim()));
        if indent == 0 {
            if let Some(bus) = content.strip_prefix("GPU ") {
                self.flush(out);
                self.cur = Some(GpuBlock {
                    key: bus.trim().to_string(),
                    ..Default::default()
                });
                self.section.clear();
            } else if let Some(("Timestamp", v)) = kv {
                self.ts = parse_date_line(v);
            }
            return;
        }
        let Some(g) = self.cur.as_mut() else {
            return;
        };
        match (indent, kv) {
            (4, None) => self.section = content.to_string(),
            (4, Some((k, v))) => {
                self.section.clear();
                if k == "Product Name" && !is_no_value(v) {
                    g.name = Some(v.to_string());
                }
            }
            (8, Some((k, v))) => match (self.section.as_str(), k) {
                ("FB Memory Usage", "Total") => g.mem_total = value(v),
                ("FB Memory Usage", "Used") => g.mem_used = value(v),
                ("Utilization", "Gpu") => g.util = out.util_reading(n, "Utilization Gpu", value(v)),
                ("GPU Power Readings" | "Power Readings", k) => match k {
                    "Power Draw" => better(&mut g.draw, 0, value(v)),
                    "Average Power Draw" => better(&mut g.draw, 1, value(v)),
                    "Instantaneous Power Draw" => better(&mut g.draw, 2, value(v)),
                    "Current Power Limit" => better(&mut g.limit, 0, value(v)),
                    "Power Limit" => better(&mut g.limit, 1, value(v)),
                    "Enforced Power Limit" => better(&mut g.limit, 2, value(v)),
                    _ => {}
                },
                _ => {}
            },
            _ => {}
        }
    }

    fn flush(&mut self, out: &mut Collector) {
        if let Some(g) = self.cur.take() {
            out.add(&Sample {
                index: Some(self.count),
                key: Some(&g.key),
                name: g.name.as_deref(),
                ts: self.ts,
                util: g.util,
                mem_used: g.mem_used,
                mem_total: g.mem_total,
                power_draw: g.draw.map(|d| d.1),
                power_limit: g.limit.map(|d| d.1),
            });
            self.count += 1;
        }
    }

    /// The log ended (or a new one starts): flush the last GPU block.
    pub fn finish(&mut self, out: &mut Collector) {
        self.flush(out);
    }
}
