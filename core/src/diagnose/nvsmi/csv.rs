//! `nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits]` (formats.md §1).
//!
//! nvidia-smi never quotes its CSV (names hold no commas), so a row is split on `,` and each cell trimmed;
//! this keeps the hot path free of allocation. A header maps any order and subset of fields to roles;
//! a header-less file is read with the field list given (the request's `fields`), else by the units in its cells, else as kgkit's sampler form
//! `index, utilization.gpu, memory.used`.

use super::{Collector, ParseOptions, Sample, excerpt, is_no_value, parse_num, parse_timestamp};

/// What a column means to kgadvise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Ignore,
    Timestamp,
    Index,
    /// UUID or bus id: identifies a GPU when there is no index column.
    Key,
    Name,
    Util,
    MemUsed,
    MemTotal,
    /// A MiB column of a header-less CSV read by units: the largest of the row is the total, the first
    /// other one the memory used.
    Mib,
    PowerDraw,
    PowerLimit,
}

impl Role {
    fn field(self) -> &'static str {
        match self {
            Role::Ignore => "ignored",
            Role::Timestamp => "timestamp",
            Role::Index => "index",
            Role::Key => "uuid/pci.bus_id",
            Role::Name => "name",
            Role::Util => "utilization.gpu",
            Role::MemUsed => "memory.used",
            Role::MemTotal => "memory.total",
            Role::Mib => "a MiB value",
            Role::PowerDraw => "power.draw",
            Role::PowerLimit => "power.limit",
        }
    }
}

/// A field name's role and its priority among fields of the same role (lower wins).
fn role_of(name: &str) -> Option<(Role, u8)> {
    Some(match name {
        "timestamp" => (Role::Timestamp, 0),
        "gpu" => (Role::Index, 0),
        "index" => (Role::Index, 1),
        "pci.bus_id" | "gpu_bus_id" => (Role::Key, 0),
        "uuid" | "gpu_uuid" => (Role::Key, 1),
        "name" | "gpu_name" => (Role::Name, 0),
        "utilization.gpu" => (Role::Util, 0),
        "memory.used" => (Role::MemUsed, 0),
        "memory.total" => (Role::MemTotal, 0),
        "power.draw" => (Role::PowerDraw, 0),
        "power.draw.average" => (Role::PowerDraw, 1),
        "power.draw.instant" => (Role::PowerDraw, 2),
        "power.limit" => (Role::PowerLimit, 0),
        "enforced.power.limit" => (Role::PowerLimit, 1),
        _ => return None,
    })
}

/// `utilization.gpu [%]` → `utilization.gpu`; `None` when the token is not a field name.
fn field_name(token: &str) -> Option<&str> {
    let t = token.trim();
    let name = match t.find(" [") {
        Some(p) if t.ends_with(']') => &t[..p],
        _ => t,
    };
    let b = name.as_bytes();
    let ok = b.first().is_some_and(u8::is_ascii_lowercase)
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_'))
        && b.iter().any(|c| c.is_ascii_lowercase() || *c == b'_');
    ok.then_some(name)
}

/// Fields that, alone, do not make a header (a wrapper's `gpu` label, names in free text).
fn is_plausible_field(name: &str) -> bool {
    name.contains('.')
        || name.contains('_')
        || matches!(
            name,
            "timestamp" | "index" | "name" | "uuid" | "count" | "serial" | "pstate" | "gpu" | "pid"
        )
}

/// The position of the next `,` at or after `from` (or the length).
#[inline]
fn find_comma(b: &[u8], from: usize) -> usize {
    b.get(from..)
        .and_then(|rest| memchr::memchr(b',', rest))
        .map_or(b.len(), |k| from + k)
}

/// The digits at `b[p..]` (17 at most) as an integer and where they end. Eight bytes at a time (SWAR):
/// no branch per digit, so the varying widths of the cells cost no mispredictions.
#[inline(always)]
#[allow(clippy::indexing_slicing)] // hot-path byte parsing: every index follows a length check (fuzzed: FUZZING.md)
fn fast_digits(b: &[u8], p: usize) -> (u64, usize) {
    const ZEROS: u64 = 0x3030_3030_3030_3030;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const ABOVE9: u64 = 0x4646_4646_4646_4646; // + 0x46 sets the high bit of bytes from b'9' + 1 up
    if let Some(chunk) = b.get(p..p + 8) {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        let w = u64::from_le_bytes(w);
        let x = w.wrapping_sub(ZEROS);
        // High bit of every non-digit byte (exact up to the first one: no carry or borrow before it).
        let non = (w.wrapping_add(ABOVE9) | x | w) & HIGHS;
        let len = (non.trailing_zeros() / 8) as usize;
        if len < 8 {
            if len == 0 {
                return (0, p);
            }
            // The digits to the top bytes (first digit lowest), then pairs, quads, eight.
            let mut d = x << (8 * (8 - len));
            d = d.wrapping_mul(10).wrapping_add(d >> 8) & 0x00FF_00FF_00FF_00FF;
            d = d.wrapping_mul(100).wrapping_add(d >> 16) & 0x0000_FFFF_0000_FFFF;
            d = d.wrapping_mul(10_000).wrapping_add(d >> 32) & 0xFFFF_FFFF;
            return (d, p + len);
        }
    }
    let mut i = p;
    let mut v: u64 = 0;
    while i < b.len() && i - p < 17 {
        let d = b[i].wrapping_sub(b'0');
        if d >= 10 {
            break;
        }
        v = v * 10 + u64::from(d);
        i += 1;
    }
    (v, i)
}

/// A plain decimal at `b[p..]` (digits, optionally `.` and digits, 17 of each at most) and where it ends;
/// the value is [`parse_num`]'s for the same cell. `None` for anything else (sign, unit, no value).
#[inline(always)]
fn fast_num(b: &[u8], p: usize) -> Option<(f64, usize)> {
    let (int, i) = fast_digits(b, p);
    if i == p {
        return None;
    }
    // Below 2^63: the signed conversion is one instruction and gives the same value.
    let mut v = int as i64 as f64;
    if b.get(i) == Some(&b'.') {
        let (frac, e) = fast_digits(b, i + 1);
        let fd = e - (i + 1);
        if fd == 0 {
            return None;
        }
        v += frac as i64 as f64 / super::POW10.get(fd).copied()?;
        return Some((v, e));
    }
    Some((v, i))
}

/// `b` starts with the 10 bytes `d` (two loads and compares, not a call to memcmp).
#[inline]
#[allow(clippy::indexing_slicing)] // hot-path byte parsing: every index follows a length check (fuzzed: FUZZING.md)
fn same_date(d: &[u8; 10], b: &[u8]) -> bool {
    if b.len() < 10 {
        return false;
    }
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[..8]);
    let mut y = [0u8; 8];
    y.copy_from_slice(&d[..8]);
    u64::from_le_bytes(x) == u64::from_le_bytes(y) && b[8] == d[8] && b[9] == d[9]
}

/// The end of a number cell whose number ends at `i`: there, or after its unit (`61 %`, `9265 MiB`,
/// `32.46 W`), as [`parse_num`] reads it (a space, letter or `%` after the number; the rest is ignored).
#[inline(always)]
fn unit_end(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i) {
        None | Some(b',') => Some(i),
        Some(b'\n') => Some(i),
        Some(c) if c.is_ascii_whitespace() || c.is_ascii_alphabetic() || *c == b'%' => {
            Some(find_sep(b, i))
        }
        Some(_) => None,
    }
}

/// The last minute seen in fast-path timestamps: the first 16 bytes (`YYYY/MM/DD HH:MM`) as two words,
/// the seconds of that day at midnight and the minute's seconds into the day.
pub(crate) type MinuteMemo = Option<(u64, u64, f64, u32)>;

/// The little-endian word of 8 bytes at `b[i..]`, if there are 8.
#[inline]
fn word(b: &[u8], i: usize) -> Option<u64> {
    let mut w = [0u8; 8];
    w.copy_from_slice(b.get(i..i + 8)?);
    Some(u64::from_le_bytes(w))
}

/// nvidia-smi's `YYYY/MM/DD HH:MM:SS.f` (1 to 9 fraction digits, or none) at `line[p..]` and where it
/// ends; the value is [`CsvState::timestamp`]'s, with the same date cache. `None` for any other form.
/// The minute (`YYYY/MM/DD HH:MM`) changes once in 60 samples per GPU: it is parsed when it changes.
#[inline(always)]
#[allow(clippy::indexing_slicing)] // hot-path byte parsing: every index follows a length check (fuzzed: FUZZING.md)
fn fast_timestamp(
    line: &str,
    p: usize,
    cache: &mut Option<([u8; 10], f64)>,
    minute: &mut MinuteMemo,
) -> Option<(f64, usize)> {
    let b = line.as_bytes().get(p..)?;
    if b.len() < 19 || b[16] != b':' {
        return None;
    }
    let (lo, hi) = (word(b, 0)?, word(b, 8)?);
    let (day, hm) = match *minute {
        Some((l, h, day, hm)) if l == lo && h == hi => (day, hm),
        _ => {
            if b[4] != b'/' || b[7] != b'/' || b[10] != b' ' || b[13] != b':' {
                return None;
            }
            let day = match cache {
                Some((d, secs)) if same_date(d, b) => *secs,
                _ => {
                    let secs = parse_timestamp(line.get(p..p + 10)?)?;
                    let mut d = [0u8; 10];
                    d.copy_from_slice(&b[..10]);
                    *cache = Some((d, secs));
                    secs
                }
            };
            let (h, m) = (two_digits(b, 11)?, two_digits(b, 14)?);
            if h > 23 || m > 59 {
                return None;
            }
            *minute = Some((lo, hi, day, h * 3600 + m * 60));
            (day, h * 3600 + m * 60)
        }
    };
    let sec = two_digits(b, 17)?;
    if sec > 60 {
        return None;
    }
    let mut t = day + f64::from(hm + sec);
    let mut i = 19;
    if b.get(19) == Some(&b'.') {
        let (frac, e) = fast_digits(b, 20);
        if e == 20 || e > 29 {
            return None;
        }
        i = e;
        t += f64::from(u32::try_from(frac).ok()?) / super::POW10.get(e - 20).copied()?;
    }
    Some((t, p + i))
}

/// The two digits at `b[k..k + 2]` as a number.
#[inline]
fn two_digits(b: &[u8], k: usize) -> Option<u32> {
    let (x, y) = (
        b.get(k)?.wrapping_sub(b'0'),
        b.get(k + 1)?.wrapping_sub(b'0'),
    );
    (x < 10 && y < 10).then(|| u32::from(x) * 10 + u32::from(y))
}

/// The position of the next `,` or `\n` at or after `from` (or the length).
#[inline]
fn find_sep(b: &[u8], from: usize) -> usize {
    b.get(from..)
        .and_then(|rest| memchr::memchr2(b',', b'\n', rest))
        .map_or(b.len(), |k| from + k)
}

#[derive(Debug, Clone)]
pub struct CsvState {
    roles: Vec<Role>,
    /// The header text (repeated headers are skipped), empty for a header-less layout.
    header: String,
    header_line: Option<usize>,
    /// A per-process query (`--query-compute-apps`): rows are swallowed, not samples.
    per_process: bool,
    /// How the layout was obtained, for messages.
    source: &'static str,
    /// The last date seen in timestamps and its seconds at midnight.
    date_cache: Option<([u8; 10], f64)>,
    /// The last minute of the fast path's timestamps.
    minute_memo: MinuteMemo,
    /// Rows may be tried by [`CsvState::fast_row`] first (no MiB-by-units column, not per-process).
    fast: bool,
}

/// What the general row reader made of a line.
#[derive(Debug, PartialEq)]
pub(crate) enum Row<'a> {
    /// A sample of this layout.
    Sample(Sample<'a>),
    /// Used without a sample: a blank line, the repeated header, a per-process row.
    Skip,
    /// Not a row of this layout.
    NotData,
}

/// The `MiB` cells of a layout inferred from units: at most four values, in order.
#[derive(Default)]
struct Mibs {
    values: [Option<f64>; 4],
    n: usize,
}

impl Mibs {
    fn push(&mut self, v: Option<f64>) {
        if let Some(slot) = self.values.get_mut(self.n) {
            *slot = v;
            self.n += 1;
        }
    }

    /// One MiB cell is the memory used; of several, the largest is the total and the first other one
    /// the memory used.
    fn resolve(&self, s: &mut Sample) {
        let vals = self.values.get(..self.n).unwrap_or_default();
        match vals {
            [] => {}
            [used] => s.mem_used = *used,
            _ => {
                let max_i = (0..vals.len()).max_by(|a, b| {
                    let v = |i: &usize| vals.get(*i).copied().flatten().unwrap_or(f64::MIN);
                    v(a).total_cmp(&v(b))
                });
                if let Some(mi) = max_i {
                    s.mem_total = vals.get(mi).copied().flatten();
                    s.mem_used = (0..vals.len())
                        .find(|j| *j != mi)
                        .and_then(|j| vals.get(j).copied().flatten());
                }
            }
        }
    }
}

pub enum RowResult {
    /// The line was a row of this layout (or the repeated header) and has been used.
    Done,
    /// Not a row of this layout: let the other readers look at it.
    NotData,
}

impl CsvState {
    /// Rows of this layout can be read by independent workers and merged: every row names its GPU by
    /// index (GPUs numbered by order of appearance would differ between chunks).
    pub fn parallel_safe(&self) -> bool {
        !self.per_process && (self.roles.contains(&Role::Index) || !self.roles.contains(&Role::Key))
    }

    /// nvidia-smi's `YYYY/MM/DD HH:MM:SS.mmm`, with the date's day number cached (it changes once a
    /// day); any other form through [`parse_timestamp`].
    #[inline]
    #[allow(clippy::indexing_slicing)] // hot-path byte parsing: every index follows a length check (fuzzed: FUZZING.md)
    fn timestamp(&mut self, cell: &str) -> Option<f64> {
        let b = cell.as_bytes();
        if b.len() >= 19
            && b[4] == b'/'
            && b[7] == b'/'
            && b[10] == b' '
            && b[13] == b':'
            && b[16] == b':'
        {
            let day = match &self.date_cache {
                Some((d, secs)) if d.as_slice() == &b[..10] => *secs,
                _ => {
                    let secs = parse_timestamp(cell.get(..10)?)?;
                    let mut d = [0u8; 10];
                    d.copy_from_slice(&b[..10]);
                    self.date_cache = Some((d, secs));
                    secs
                }
            };
            let two = |k: usize| -> Option<u32> {
                let (x, y) = (b[k].wrapping_sub(b'0'), b[k + 1].wrapping_sub(b'0'));
                (x < 10 && y < 10).then(|| u32::from(x) * 10 + u32::from(y))
            };
            let (h, m, sec) = (two(11)?, two(14)?, two(17)?);
            if h > 23 || m > 59 || sec > 60 {
                return None;
            }
            let mut t = day + f64::from(h * 3600 + m * 60 + sec);
            if b.len() > 19 {
                if b[19] != b'.' || b.len() > 29 {
                    return parse_timestamp(cell);
                }
                let mut frac = 0u32;
                for c in &b[20..] {
                    let d = c.wrapping_sub(b'0');
                    if d >= 10 {
                        return parse_timestamp(cell);
                    }
                    frac = frac * 10 + u32::from(d);
                }
                t += f64::from(frac) / super::POW10.get(b.len() - 20).copied().unwrap_or(1.0);
            }
            return Some(t);
        }
        parse_timestamp(cell)
    }

    fn from_names(names: &[&str], out: &mut Collector, line: usize) -> CsvState {
        let mut roles = vec![Role::Ignore; names.len()];
        let mut best: Vec<(Role, u8, usize)> = Vec::new();
        let mut per_process = false;
        for (i, n) in names.iter().enumerate() {
            if matches!(
                *n,
                "pid" | "process_name" | "used_gpu_memory" | "used_memory"
            ) {
                per_process = true;
            }
            if let Some((role, prio)) = role_of(n) {
                match best.iter_mut().find(|(r, _, _)| *r == role) {
                    Some(b) if prio < b.1 => *b = (role, prio, i),
                    Some(_) => {}
                    None => best.push((role, prio, i)),
                }
            }
        }
        for (role, _, i) in &best {
            if let Some(r) = roles.get_mut(*i) {
                *r = *role;
            }
        }
        if names.contains(&"gpu") && names.contains(&"index") {
            out.diag(line, "the header names both `gpu` and `index`: `gpu` is read as the GPU index, `index` ignored");
        }
        if per_process {
            out.note("a per-process query (--query-compute-apps / accounted apps): not a utilisation log of the GPUs");
        } else if !roles.contains(&Role::Util) {
            out.missing("utilization.gpu");
        } else {
            out.util_column = true;
        }
        CsvState {
            roles,
            header: String::new(),
            header_line: Some(line),
            per_process,
            source: "header",
            date_cache: None,
            minute_memo: None,
            fast: !per_process,
        }
    }

    /// A header line (`timestamp, index, utilization.gpu [%], ...`), any order and subset.
    pub fn from_header(line: &str, n: usize, out: &mut Collector) -> Option<CsvState> {
        let first = line.trim_start().as_bytes().first().copied();
        if !first.is_some_and(|c| c.is_ascii_lowercase()) {
            return None;
        }
        let names: Option<Vec<&str>> = line.split(',').map(field_name).collect();
        let names = names?;
        if !names.iter().any(|n| is_plausible_field(n)) {
            return None;
        }
        let mut st = CsvState::from_names(&names, out, n);
        st.header = line.to_string();
        Some(st)
    }

    /// A layout for a CSV row that has no header: the given field list, else units, else kgkit's sampler
    /// form.
    pub fn headerless(
        line: &str,
        n: usize,
        opts: &ParseOptions,
        out: &mut Collector,
    ) -> Option<CsvState> {
        if !line.contains(',') {
            return None;
        }
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        if let Some(fields) = &opts.fields {
            return Some(CsvState::of_fields(fields, n, out));
        }
        if cells
            .iter()
            .any(|c| c.ends_with(" %") || c.ends_with(" MiB") || c.ends_with(" W"))
        {
            return Some(CsvState::by_units(&cells, n, out));
        }
        if let Some(st) = CsvState::kgkit_form(&cells, out) {
            return Some(st);
        }
        out.diag(
            n,
            format!(
                "a CSV row without header or units ({} fields): give the --query-gpu field list of the log (e.g. index,utilization.gpu,memory.used)",
                cells.len()
            ),
        );
        None
    }

    /// The layout the request's field list names.
    fn of_fields(fields: &[String], n: usize, out: &mut Collector) -> CsvState {
        let names: Vec<String> = fields
            .iter()
            .map(|f| {
                field_name(f)
                    .map(str::to_string)
                    .unwrap_or_else(|| f.trim().to_string())
            })
            .collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut st = CsvState::from_names(&refs, out, n);
        st.header_line = None;
        st.source = "the field list given";
        st
    }

    /// A layout inferred from the units in the cells (`38 %`, `1200 MiB`, `22.89 W`).
    fn by_units(cells: &[&str], n: usize, out: &mut Collector) -> CsvState {
        let mut roles = vec![Role::Ignore; cells.len()];
        let (mut util, mut name, mut ts, mut draws) = (false, false, false, 0);
        for (i, c) in cells.iter().enumerate() {
            let role = if !ts && parse_timestamp(c).is_some() {
                ts = true;
                Role::Timestamp
            } else if c.ends_with(" %") {
                if util {
                    Role::Ignore
                } else {
                    util = true;
                    Role::Util
                }
            } else if c.ends_with(" MiB") {
                Role::Mib
            } else if c.ends_with(" W") {
                draws += 1;
                match draws {
                    1 => Role::PowerDraw,
                    2 => Role::PowerLimit,
                    _ => Role::Ignore,
                }
            } else if i == 0 && c.bytes().all(|b| b.is_ascii_digit()) && !c.is_empty() {
                Role::Index
            } else if !name && !is_no_value(c) && parse_num(c).is_none() {
                name = true;
                Role::Name
            } else {
                Role::Ignore
            };
            if let Some(r) = roles.get_mut(i) {
                *r = role;
            }
        }
        if util {
            out.util_column = true;
        } else {
            out.missing("utilization.gpu");
        }
        let described: Vec<&str> = roles.iter().map(|r| r.field()).collect();
        out.diag(
            n,
            format!(
                "CSV without header: columns inferred from their units ({}); give the --query-gpu field list of the log to be sure",
                described.join(", ")
            ),
        );
        CsvState {
            roles,
            header: String::new(),
            header_line: None,
            per_process: false,
            source: "units",
            date_cache: None,
            minute_memo: None,
            fast: false,
        }
    }

    /// kgkit's sampler: `index, utilization.gpu, memory.used` with noheader,nounits.
    fn kgkit_form(cells: &[&str], out: &mut Collector) -> Option<CsvState> {
        let [i, u, m] = cells else {
            return None;
        };
        if i.is_empty()
            || !i.bytes().all(|b| b.is_ascii_digit())
            || u.is_empty()
            || !u.bytes().all(|b| b.is_ascii_digit())
            || parse_num(m).is_none()
        {
            return None;
        }
        out.assumed_interval
            .get_or_insert(super::AssumedInterval::Kgkit);
        out.util_column = true;
        Some(CsvState {
            roles: vec![Role::Index, Role::Util, Role::MemUsed],
            header: String::new(),
            header_line: None,
            per_process: false,
            source: "kgkit's sampler form (index, utilization.gpu, memory.used)",
            date_cache: None,
            minute_memo: None,
            fast: true,
        })
    }

    /// Reads a data row of this layout. Allocation-free.
    #[inline]
    pub fn data_row(&mut self, line: &str, n: usize, out: &mut Collector) -> RowResult {
        if let Some((s, _)) = self.fast_row(line, 0) {
            out.add(&s);
            return RowResult::Done;
        }
        match self.general_row(line) {
            Row::Sample(mut s) => {
                s.util = out.util_reading(n, "utilization.gpu", s.util);
                out.add(&s);
                RowResult::Done
            }
            Row::Skip => RowResult::Done,
            Row::NotData => RowResult::NotData,
        }
    }

    /// Reads rows from the start of `text` (lines ending in `\n`, the last one may lack it) while the fast
    /// path takes them: the bytes used (whole lines) and the number of rows.
    #[inline]
    pub(crate) fn fast_rows(&mut self, text: &str, out: &mut Collector) -> (usize, usize) {
        let mut pos = 0;
        let mut rows = 0;
        while pos < text.len() {
            match self.fast_row(text, pos) {
                Some((s, next)) => {
                    out.add(&s);
                    rows += 1;
                    pos = next;
                }
                None => break,
            }
        }
        (pos, rows)
    }

    /// The common case: a row of plain cells (`2026/11/01 00:00:01.001, 0, Tesla T4, 61, 9265, 15360,
    /// 32.46, 70.00`, units and `[N/A]` allowed) read in one pass from `text[start..]` up to the end of its
    /// line (`\n`, `\r\n` or the end of `text`); the sample and where the next line starts. `None` when
    /// the line is anything else (a negative or long number, another timestamp form, a header, a blank
    /// line, a wrong field count...): [`CsvState::general_row`] then reads it. A `Some` is always the
    /// sample the general reader gives for the line without its `\n` and one `\r` before it (the
    /// `fast_row_matches_general_row` tests). Every cell ends at a `,` or at the line's end, so the
    /// reader never looks past the line.
    #[inline]
    #[allow(clippy::indexing_slicing)] // hot-path byte parsing: every index follows a length check (fuzzed: FUZZING.md)
    pub(crate) fn fast_row<'a>(
        &mut self,
        text: &'a str,
        start: usize,
    ) -> Option<(Sample<'a>, usize)> {
        if !self.fast {
            return None;
        }
        let b = text.as_bytes();
        // A header starts with a lowercase letter, a blank line with whitespace: the general reader's.
        match b.get(start) {
            Some(c) if !c.is_ascii_lowercase() && !c.is_ascii_whitespace() => {}
            _ => return None,
        }
        let mut s = Sample::default();
        let mut p = start;
        let last = self.roles.len().checked_sub(1)?;
        for (k, role) in self.roles.iter().enumerate() {
            while p < b.len() && b[p] == b' ' {
                p += 1;
            }
            let end = match role {
                // `[N/A]`, `[Not Supported]`...: no value, whatever the role.
                _ if b.get(p) == Some(&b'[') => find_sep(b, p),
                Role::Ignore => find_sep(b, p),
                Role::Name | Role::Key => {
                    let end = find_sep(b, p);
                    let mut z = end;
                    // The `\r` of a `\r\n` is not part of the line.
                    if z > p && b[z - 1] == b'\r' && b.get(z) == Some(&b'\n') {
                        z -= 1;
                    }
                    while z > p && matches!(b[z - 1], b' ' | b'\t') {
                        z -= 1;
                    }
                    let cell = text.get(p..z)?;
                    let v = (!is_no_value(cell)).then_some(cell);
                    if *role == Role::Name {
                        s.name = v;
                    } else {
                        s.key = v;
                    }
                    end
                }
                Role::Timestamp => {
                    let (t, mut end) =
                        fast_timestamp(text, p, &mut self.date_cache, &mut self.minute_memo)?;
                    while end < b.len() && matches!(b[end], b' ' | b'\t') {
                        end += 1;
                    }
                    if b.get(end) == Some(&b'\r') && b.get(end + 1) == Some(&b'\n') {
                        end += 1;
                    }
                    s.ts = Some(t);
                    end
                }
                Role::Index => {
                    let (v, num_end) = fast_num(b, p)?;
                    // Six digits at most, no fraction: below 1e6 and whole, as the general reader wants.
                    if num_end - p > 6 || b.get(p..num_end)?.contains(&b'.') {
                        return None;
                    }
                    s.index = Some(v as u32);
                    unit_end(b, num_end)?
                }
                Role::Mib => return None,
                num => {
                    let (v, num_end) = fast_num(b, p)?;
                    let end = unit_end(b, num_end)?;
                    // A utilisation outside 0-100 is named by the general reader (see `data_row`).
                    if *num == Role::Util && !(0.0..=100.0).contains(&v) {
                        return None;
                    }
                    let v = Some(v);
                    match num {
                        Role::Util => s.util = v,
                        Role::MemUsed => s.mem_used = v,
                        Role::MemTotal => s.mem_total = v,
                        Role::PowerDraw => s.power_draw = v,
                        Role::PowerLimit => s.power_limit = v,
                        _ => {}
                    }
                    end
                }
            };
            if k == last {
                return match b.get(end) {
                    None => Some((s, end)),
                    Some(b'\n') => Some((s, end + 1)),
                    Some(_) => None,
                };
            }
            if b.get(end) != Some(&b',') {
                return None;
            }
            p = end + 1;
        }
        None
    }

    /// Any row of this layout, cell by cell (trimmed, units and no-value spellings allowed).
    #[inline]
    #[allow(clippy::indexing_slicing)] // hot-path byte parsing: every index follows a length check (fuzzed: FUZZING.md)
    pub(crate) fn general_row<'a>(&mut self, line: &'a str) -> Row<'a> {
        let first = line.as_bytes().first().copied();
        if first.is_none_or(|c| c.is_ascii_whitespace()) && line.trim().is_empty() {
            return Row::Skip;
        }
        if first.is_some_and(|c| c.is_ascii_lowercase()) {
            if !self.header.is_empty() && line == self.header {
                return Row::Skip;
            }
            // Another header (a new query appended to the file): let the caller switch layouts.
            if line.split(',').all(|t| field_name(t).is_some())
                && line
                    .split(',')
                    .filter_map(field_name)
                    .any(is_plausible_field)
            {
                return Row::NotData;
            }
        }
        let b = line.as_bytes();
        let mut s = Sample::default();
        let mut mibs = Mibs::default();
        let mut count = 0usize;
        let mut i = 0usize;
        // One pass over the bytes: fields are short, so a plain loop beats memchr here.
        loop {
            let start = i;
            i = find_comma(b, i);
            let Some(role) = self.roles.get(count).copied() else {
                return Row::NotData;
            };
            count += 1;
            if role != Role::Ignore {
                let (mut a, mut z) = (start, i);
                while a < z && b[a] == b' ' {
                    a += 1;
                }
                while z > a && matches!(b[z - 1], b' ' | b'\t') {
                    z -= 1;
                }
                // a and z sit next to ASCII bytes (or at the ends), so they are char boundaries.
                let cell = line.get(a..z).unwrap_or("");
                if self.read_cell(role, cell, &mut s, &mut mibs).is_none() {
                    return Row::NotData;
                }
            }
            if i >= b.len() {
                break;
            }
            i += 1;
        }
        if count != self.roles.len() {
            return Row::NotData;
        }
        if self.per_process {
            return Row::Skip;
        }
        mibs.resolve(&mut s);
        Row::Sample(s)
    }

    /// Reads one cell of a row into `s` as its role says; `None` when the cell cannot be that role's value.
    #[inline]
    fn read_cell<'a>(
        &mut self,
        role: Role,
        cell: &'a str,
        s: &mut Sample<'a>,
        mibs: &mut Mibs,
    ) -> Option<()> {
        match role {
            Role::Ignore => {}
            Role::Name => s.name = (!is_no_value(cell)).then_some(cell),
            Role::Key => s.key = (!is_no_value(cell)).then_some(cell),
            Role::Timestamp => match self.timestamp(cell) {
                Some(t) => s.ts = Some(t),
                None if is_no_value(cell) => {}
                None => return None,
            },
            _ => {
                let v = match parse_num(cell) {
                    Some(v) => Some(v),
                    None if is_no_value(cell) => None,
                    None => return None,
                };
                match role {
                    Role::Index => match v {
                        Some(x) if x >= 0.0 && x.fract() == 0.0 && x < 1.0e6 => {
                            s.index = Some(x as u32)
                        }
                        None => {}
                        Some(_) => return None,
                    },
                    Role::Util => s.util = v,
                    Role::MemUsed => s.mem_used = v,
                    Role::MemTotal => s.mem_total = v,
                    Role::PowerDraw => s.power_draw = v,
                    Role::PowerLimit => s.power_limit = v,
                    Role::Mib => mibs.push(v),
                    _ => {}
                }
            }
        }
        Some(())
    }

    /// A line in CSV mode that is not a row of the layout: says why, naming the field.
    pub fn bad_row(&self, line: &str, n: usize, out: &mut Collector) {
        let cells: Vec<&str> = line.split(',').collect();
        let whence = match self.header_line {
            Some(h) => format!("header at line {h}"),
            None => self.source.to_string(),
        };
        if cells.len() != self.roles.len() {
            out.diag(
                n,
                format!(
                    "expected {} comma-separated fields ({whence}), found {}: `{}`",
                    self.roles.len(),
                    cells.len(),
                    excerpt(line.trim())
                ),
            );
            return;
        }
        for (i, (cell, role)) in cells.iter().zip(&self.roles).enumerate() {
            let c = cell.trim();
            let bad = match role {
                Role::Ignore | Role::Name | Role::Key => false,
                Role::Timestamp => !is_no_value(c) && parse_timestamp(c).is_none(),
                _ => !is_no_value(c) && parse_num(c).is_none(),
            };
            if bad {
                let expected = if *role == Role::Timestamp {
                    "a time (YYYY/MM/DD HH:MM:SS.mmm)"
                } else {
                    "a number"
                };
                out.diag(
                    n,
                    format!(
                        "field {} ({}): expected {expected}, found `{}`",
                        i + 1,
                        role.field(),
                        excerpt(c)
                    ),
                );
                return;
            }
        }
        out.diag(
            n,
            format!(
                "not a row of the CSV layout ({whence}): `{}`",
                excerpt(line.trim())
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::{LogParser, ParseOptions};
    use super::*;

    fn run(text: &str, opts: ParseOptions) -> Collector {
        let mut p = LogParser::new(opts);
        let mut c = Collector::default();
        for l in text.lines() {
            p.feed_line(l, &mut c);
        }
        p.finish(&mut c);
        c
    }

    #[test]
    fn swar_comma_search() {
        for line in [
            "",
            ",",
            "abcdefgh,",
            "abcdefghijklmnop",
            "a,b",
            "0123456789abcdef,x",
            "\u{e9}\u{e9}\u{e9}\u{e9}\u{e9},",
        ] {
            let b = line.as_bytes();
            for from in 0..=b.len() {
                let want = b[from..]
                    .iter()
                    .position(|c| *c == b',')
                    .map_or(b.len(), |p| p + from);
                assert_eq!(find_comma(b, from), want, "{line:?} from {from}");
            }
        }
    }

    #[test]
    fn header_with_units_any_order() {
        let c = run(
            "utilization.gpu [%], index, memory.total [MiB], memory.used [MiB]\n50 %, 1, 15360 MiB, 100 MiB\n70 %, 0, 15360 MiB, 300 MiB\n",
            ParseOptions::default(),
        );
        assert_eq!(c.gpus.len(), 2);
        let g1 = c.gpus.iter().find(|g| g.index == 1).unwrap();
        assert_eq!(g1.util_mean(), Some(50.0));
        assert_eq!(g1.mem_total, Some(15360.0));
        assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
    }

    #[test]
    fn no_value_is_not_zero() {
        let c = run(
            "index, utilization.gpu [%]\n0, [N/A]\n0, [Not Supported]\n",
            ParseOptions::default(),
        );
        assert_eq!(c.gpus[0].samples, 2);
        assert_eq!(c.gpus[0].util_mean(), None);
    }

    #[test]
    fn kgkit_form_and_fields() {
        let c = run("0, 55, 1200\n1, 0, 3\n", ParseOptions::default());
        assert_eq!(c.gpus.len(), 2);
        assert_eq!(
            c.assumed_interval,
            Some(super::super::AssumedInterval::Kgkit)
        );
        let opts = ParseOptions {
            fields: Some(vec!["memory.used".into(), "utilization.gpu".into()]),
            interval_s: None,
        };
        let c = run("100, 40\n", opts);
        assert_eq!(c.gpus[0].util_mean(), Some(40.0));
        assert_eq!(c.gpus[0].mem_peak, Some(100.0));
    }

    #[test]
    fn wrong_field_count_names_the_line() {
        let c = run(
            "index, utilization.gpu [%], memory.used [MiB]\n0, 5 %, 10 MiB\n0, 5\n0, x %, 1 MiB\n",
            ParseOptions::default(),
        );
        assert_eq!(c.gpus[0].samples, 1);
        assert_eq!(c.diagnostics.len(), 2, "{:?}", c.diagnostics);
        assert_eq!(c.diagnostics[0].line, 3);
        assert!(
            c.diagnostics[0].message.contains("expected 3"),
            "{:?}",
            c.diagnostics
        );
        assert!(
            c.diagnostics[1].message.contains("utilization.gpu"),
            "{:?}",
            c.diagnostics
        );
    }

    #[test]
    fn utilisation_outside_0_to_100_is_named_and_not_in_the_mean() {
        let c = run(
            "index, utilization.gpu [%], memory.used [MiB]\n0, 40 %, 10 MiB\n0, 250 %, 20 MiB\n0, -3, 30 MiB\n0, 100 %, 40 MiB\n",
            ParseOptions::default(),
        );
        let g = &c.gpus[0];
        assert_eq!(g.util_mean(), Some(70.0));
        assert_eq!(g.mem_peak, Some(40.0), "the row's other values still count");
        let lines: Vec<usize> = c.diagnostics.iter().map(|d| d.line).collect();
        assert_eq!(lines, [3, 4], "{:?}", c.diagnostics);
        assert!(
            c.diagnostics[0]
                .message
                .contains("expected a percentage 0-100, found 250"),
            "{:?}",
            c.diagnostics
        );
    }
}
