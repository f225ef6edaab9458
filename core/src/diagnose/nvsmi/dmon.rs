//! `nvidia-smi dmon` (formats.md §3): whitespace columns under a `# gpu ...` header; `-` = no value.
//! Old and new headers; `-o DT` date/time columns when present.

use super::{AssumedInterval, Collector, Sample, is_no_value, parse_num, parse_timestamp};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    Ignore,
    Date,
    Time,
    Index,
    Power,
    Util,
    MemUsed,
}

#[derive(Debug)]
pub struct DmonState {
    cols: Vec<Col>,
}

impl DmonState {
    pub fn new(names: &[&str], out: &mut Collector) -> DmonState {
        let cols: Vec<Col> = names
            .iter()
            .map(|n| match n.to_ascii_lowercase().as_str() {
                "date" => Col::Date,
                "time" => Col::Time,
                "gpu" => Col::Index,
                "pwr" => Col::Power,
                "sm" => Col::Util,
                "fb" => Col::MemUsed,
                _ => Col::Ignore,
            })
            .collect();
        if cols.contains(&Col::Util) {
            out.util_column = true;
        } else {
            out.missing("sm (utilisation)");
        }
        if !cols.contains(&Col::Time) {
            out.assumed_interval.get_or_insert(AssumedInterval::Dmon);
        }
        DmonState { cols }
    }

    /// A data row; false when the line is not one (wrong column count, no index).
    pub fn row(&mut self, line: &str, n: usize, out: &mut Collector) -> bool {
        let cells: Vec<&str> = line.split_whitespace().collect();
        if cells.len() != self.cols.len() {
            return false;
        }
        let mut s = Sample::default();
        let (mut date, mut time) = (None, None);
        for (c, col) in cells.iter().zip(&self.cols) {
            let v = if is_no_value(c) { None } else { parse_num(c) };
            match col {
                Col::Ignore => {}
                Col::Date => date = Some(*c),
                Col::Time => time = Some(*c),
                Col::Index => match c.parse::<u32>() {
                    Ok(i) => s.index = Some(i),
                    Err(_) => return false,
                },
                Col::Power => s.power_draw = v,
                Col::Util => s.util = out.util_reading(n, "sm (utilisation)", v),
                Col::MemUsed => s.mem_used = v,
            }
        }
        if s.index.is_none() {
            return false;
        }
        if let (Some(d), Some(t)) = (date, time) {
            s.ts = parse_timestamp(&format!("{d} {t}"));
        }
        out.add(&s);
        true
    }
}
