//! Whole counts in sentences: the noun in the right number and the thousands grouped, so a sentence never
//! reads "1 samples" (`1 sample`, `0 lines`, `172,801 lines`).

/// `n` and its noun: `one` when `n` is 1, `many` otherwise; digits grouped by three with commas.
pub fn counted(n: u64, one: &str, many: &str) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + many.len() + 1);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out.push(' ');
    out.push_str(if n == 1 { one } else { many });
    out
}

#[cfg(test)]
mod tests {
    use super::counted;

    #[test]
    fn one_is_singular_and_thousands_are_grouped() {
        assert_eq!(counted(1, "sample", "samples"), "1 sample");
        assert_eq!(counted(0, "line", "lines"), "0 lines");
        assert_eq!(counted(999, "line", "lines"), "999 lines");
        assert_eq!(counted(1_000, "line", "lines"), "1,000 lines");
        assert_eq!(counted(172_801, "line", "lines"), "172,801 lines");
        assert_eq!(counted(12_345_678, "byte", "bytes"), "12,345,678 bytes");
    }
}
