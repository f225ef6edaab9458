//! The plain-text table of the human answers: a header, a rule of dashes, rows, every column padded to
//! its widest cell (counted in characters, so the sparkline's bars and `—` take one column each).

/// A table as strings: what the text layout below prints, and what a surface with its own markup (the
/// Python wheel's HTML) lays out instead.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct TextTable {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl TextTable {
    pub fn new(header: &[&str], rows: Vec<Vec<String>>) -> TextTable {
        TextTable {
            header: header.iter().map(|h| h.to_string()).collect(),
            rows,
        }
    }

    /// The table as text (see [`table`]).
    pub fn text(&self) -> String {
        let header: Vec<&str> = self.header.iter().map(String::as_str).collect();
        table(&header, &self.rows)
    }
}

/// A plain text table with columns padded to their widest cell, two spaces between columns, no trailing
/// spaces; one line per row, each ending in a newline.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut s = line(&widths, header.iter().copied());
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    s.push_str(&line(&widths, rule.iter().map(String::as_str)));
    for row in rows {
        s.push_str(&line(&widths, row.iter().map(String::as_str)));
    }
    s
}

fn line<'a>(widths: &[usize], cells: impl ExactSizeIterator<Item = &'a str>) -> String {
    let count = cells.len();
    let mut l = String::new();
    for (i, c) in cells.enumerate() {
        l.push_str(c);
        if i + 1 < count {
            let pad = widths
                .get(i)
                .copied()
                .unwrap_or(0)
                .saturating_sub(c.chars().count());
            l.push_str(&" ".repeat(pad + 2));
        }
    }
    l.truncate(l.trim_end().len());
    l.push('\n');
    l
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_padded_to_the_widest_cell() {
        let t = table(
            &["a", "bb"],
            &[
                vec!["xxx".into(), "y".into()],
                vec!["z".into(), String::new()],
            ],
        );
        assert_eq!(t, "a    bb\n---  --\nxxx  y\nz\n");
    }
}
