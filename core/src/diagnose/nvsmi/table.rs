//! The default `nvidia-smi` table, every layout of formats.md §2 (79/89/91 columns, `KMD Version`,
//! Windows `WDDM`, MIG boxes, truncated names). Each GPU block gives one sample; a date line above the box
//! (`nvidia-smi -l` prints one per table) gives its time.

use super::{Collector, Sample, parse_num};

#[derive(Debug, Default)]
pub struct TableState {
    /// The GPU of the block being read: (index, name) from its first row.
    cur: Option<(u32, Option<String>)>,
    /// The time of the table being read (the date line before its `NVIDIA-SMI` line).
    ts: Option<f64>,
}

/// A bus id cell: `00000000:00:04.0` (or the old `0000:01:00.0`).
fn has_bus_id(cell: &str) -> bool {
    cell.split_whitespace()
        .next()
        .is_some_and(|t| t.contains(':') && t.contains('.') && t.len() >= 10)
}

impl TableState {
    #[allow(clippy::indexing_slicing)] // hot-path byte parsing: every index follows a length check (fuzzed: FUZZING.md)
    pub fn line(
        &mut self,
        line: &str,
        n: usize,
        pending_ts: &mut Option<f64>,
        out: &mut Collector,
    ) {
        if line.starts_with('+') || line.starts_with("|-") || line.starts_with("|=") {
            return;
        }
        if line.contains("NVIDIA-SMI ") {
            self.ts = pending_ts.take();
            return;
        }
        let cells: Vec<&str> = line.split('|').collect();
        // "| a | b | c |" splits into "", a, b, c, "".
        let cells: Vec<&str> = cells
            .iter()
            .skip(1)
            .take(cells.len().saturating_sub(2))
            .copied()
            .collect();
        if cells.len() < 3 {
            return;
        }
        let first: Vec<&str> = cells[0].split_whitespace().collect();
        if has_bus_id(cells[1])
            && let Some(idx) = first.first().and_then(|t| t.parse::<u32>().ok())
            && first.len() >= 2
        {
            // Row 1: index, name, Persistence-M (or Driver-Model): the last token is not the name.
            let name_tokens = if first.len() > 2 {
                &first[1..first.len() - 1]
            } else {
                &first[1..]
            };
            let name = name_tokens.join(" ");
            self.cur = Some((idx, (!name.is_empty()).then_some(name)));
            return;
        }
        if let Some((idx, name)) = self.cur.take() {
            if cells[1].contains("MiB") && cells[1].contains('/') {
                let (draw, limit) = match cells[0].rsplit_once('/') {
                    Some((l, r)) => (
                        l.split_whitespace().last().and_then(parse_num),
                        r.split_whitespace().next().and_then(parse_num),
                    ),
                    None => (None, None),
                };
                let (used, total) = match cells[1].split_once('/') {
                    Some((l, r)) => (parse_num(l.trim()), parse_num(r.trim())),
                    None => (None, None),
                };
                let util = cells[2].split_whitespace().next().and_then(parse_num);
                let util = out.util_reading(n, "GPU-Util", util);
                out.add(&Sample {
                    index: Some(idx),
                    key: None,
                    name: name.as_deref(),
                    ts: self.ts,
                    util,
                    mem_used: used,
                    mem_total: total,
                    power_draw: draw,
                    power_limit: limit,
                });
            } else {
                self.cur = Some((idx, name));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{LogParser, ParseOptions};
    use super::*;

    #[test]
    fn two_t4_blocks() {
        let text = "Mon Sep 28 13:03:31 2026
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 580.159.04             Driver Version: 580.159.04     CUDA Version: 13.0     |
+-----------------------------------------+------------------------+----------------------+
|   0  Tesla T4                       Off |   00000000:00:04.0 Off |                    0 |
| N/A   57C    P8             12W /   70W |       0MiB /  15360MiB |      0%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
|   1  Tesla T4                       Off |   00000000:00:05.0 Off |                    0 |
| N/A   56C    P8             10W /   70W |     100MiB /  15360MiB |     42%      Default |
";
        let mut p = LogParser::new(ParseOptions::default());
        let mut c = Collector::default();
        for l in text.lines() {
            p.feed_line(l, &mut c);
        }
        assert_eq!(c.gpus.len(), 2);
        let g = &c.gpus[1];
        assert_eq!(g.name.as_deref(), Some("Tesla T4"));
        assert_eq!(g.util_mean(), Some(42.0));
        assert_eq!(g.mem_peak, Some(100.0));
        assert_eq!(g.power_limit, Some(70.0));
        assert!(g.first_ts.is_some());
    }
}
