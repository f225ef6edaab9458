//! Reading decimal numbers (`45.67`, `-1.5e-3`, `inf`): the one text → `f64` conversion of core.
//!
//! Why not `str::parse::<f64>`: std's correctly rounded reader carries a 10 KB table of 128-bit powers of
//! five and 4 KB of code into the web page's wasm, about 11 KB of the gzipped transfer (BENCHMARKS.md
//! `## web`). The numbers kgadvise reads (hours, rates, watts, predictions written by pandas) have at most
//! 19 significant digits and a modest exponent, where exact integer arithmetic gives the correctly rounded
//! value without a table: [`parse_f64`] returns exactly what `str::parse::<f64>` returns there (a property
//! test checks it against std) and accepts exactly the same texts. Outside that range (more than 19
//! significant digits, or a decimal exponent beyond -31..=27 after normalising) a guess is corrected
//! against exact big-integer expansions: slower, still std's value.

/// The value of `text` as `str::parse::<f64>` reads it: an optional sign, then digits with an optional `.`
/// and fraction (at least one digit) and an optional exponent (`e`/`E`, optional sign, digits), or `inf`,
/// `infinity` or `nan` in any case. No whitespace, no `_`. `None` for anything else.
pub fn parse_f64(text: &str) -> Option<f64> {
    let bytes = text.as_bytes();
    let (negative, body) = match bytes.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, bytes),
    };
    let sign = if negative { -1.0 } else { 1.0 };
    if body.eq_ignore_ascii_case(b"inf") || body.eq_ignore_ascii_case(b"infinity") {
        return Some(sign * f64::INFINITY);
    }
    if body.eq_ignore_ascii_case(b"nan") {
        return Some(f64::NAN);
    }
    let number = Decimal::read(body)?;
    Some(sign * number.value(body))
}

/// The significant digits (at most 19) and the power of ten of a decimal text.
struct Decimal {
    mantissa: u64,
    exponent: i64,
    /// A nonzero digit beyond the 19th was dropped: the mantissa alone is not the exact value.
    truncated: bool,
}

/// Significant digits kept: 10^19 - 1 < 2^64.
const MAX_DIGITS: u32 = 19;

impl Decimal {
    /// Checks the grammar and collects the digits; `None` when `body` is not a number.
    fn read(body: &[u8]) -> Option<Decimal> {
        let mut d = Decimal {
            mantissa: 0,
            exponent: 0,
            truncated: false,
        };
        let mut kept = 0;
        let mut seen_digit = false;
        let mut in_fraction = false;
        let mut rest = body;
        while let Some((&c, tail)) = rest.split_first() {
            match c {
                b'0'..=b'9' => {
                    seen_digit = true;
                    let digit = u64::from(c - b'0');
                    if d.mantissa == 0 && digit == 0 {
                        // A leading zero: only its place counts.
                        if in_fraction {
                            d.exponent -= 1;
                        }
                    } else if kept < MAX_DIGITS {
                        d.mantissa = d.mantissa * 10 + digit;
                        kept += 1;
                        if in_fraction {
                            d.exponent -= 1;
                        }
                    } else {
                        d.truncated |= digit != 0;
                        if !in_fraction {
                            d.exponent += 1;
                        }
                    }
                }
                b'.' if !in_fraction => in_fraction = true,
                b'e' | b'E' => {
                    if !seen_digit {
                        return None;
                    }
                    d.exponent = d.exponent.saturating_add(read_exponent(tail)?);
                    return Some(d);
                }
                _ => return None,
            }
            rest = tail;
        }
        seen_digit.then_some(d)
    }

    /// The correctly rounded magnitude (see the module doc for the one approximate case).
    fn value(self, body: &[u8]) -> f64 {
        if self.mantissa == 0 {
            return 0.0;
        }
        self.exact().unwrap_or_else(|| approximate(body))
    }

    /// The correctly rounded magnitude of a nonzero number, when exact integer arithmetic reaches it.
    fn exact(mut self) -> Option<f64> {
        if self.truncated || self.mantissa == 0 {
            return None;
        }
        while self.mantissa.is_multiple_of(10) {
            self.mantissa /= 10;
            self.exponent += 1;
        }
        let m = self.mantissa;
        // Clinger's fast path: both operands are exact doubles, so one IEEE operation rounds correctly.
        if m < (1 << 53)
            && let Some(&p) = POW10_EXACT.get(usize::try_from(self.exponent.unsigned_abs()).ok()?)
        {
            return Some(if self.exponent >= 0 {
                m as f64 * p
            } else {
                m as f64 / p
            });
        }
        if self.exponent >= 0 {
            // m × 10^e = (m × 5^e) × 2^e: the product is an exact integer below 2^128, rounded once by the
            // conversion; the power of two is exact.
            let e = u32::try_from(self.exponent).ok().filter(|&e| e <= 27)?;
            let product = u128::from(m) * u128::from(5u64.pow(e));
            Some(product as f64 * power_of_two(i64::from(e)))
        } else {
            // m / 10^k = (m × 2^s / 5^k) × 2^-(s+k): the quotient of integers with the remainder as the
            // sticky bit rounds correctly to 53 bits when it has at least 54.
            let k = u32::try_from(-self.exponent).ok().filter(|&k| k <= 55)?;
            let five_k = 5u128.pow(k);
            let shift = u128::from(m).leading_zeros();
            let numerator = u128::from(m) << shift;
            let (q, r) = (numerator / five_k, numerator % five_k);
            let bits = 128 - q.leading_zeros();
            if bits < 54 {
                return None;
            }
            let dropped = bits - 53;
            let mut top = q >> dropped;
            let low = q & ((1u128 << dropped) - 1);
            let half = 1u128 << (dropped - 1);
            if low > half || (low == half && (r != 0 || top & 1 == 1)) {
                top += 1;
            }
            let scale = i64::from(dropped) - i64::from(shift) - i64::from(k);
            // top ≤ 2^53 is exact as a double, and so is the product for the normal results reached here.
            Some(top as f64 * power_of_two(scale))
        }
    }
}

/// The exponent digits after `e`: an optional sign and at least one digit; saturates far beyond any
/// finite double.
fn read_exponent(text: &[u8]) -> Option<i64> {
    let (negative, digits) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, text),
    };
    if digits.is_empty() {
        return None;
    }
    let mut e: i64 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        e = (e * 10 + i64::from(c - b'0')).min(1_000_000);
    }
    Some(if negative { -e } else { e })
}

/// 2^n as a double, for the normal exponents used here.
fn power_of_two(n: i64) -> f64 {
    let biased = (n + 1023).clamp(1, 2046);
    f64::from_bits((biased as u64) << 52)
}

/// 10^0 ..= 10^22: the powers of ten that are exact doubles.
const POW10_EXACT: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// More than 19 significant digits or an extreme exponent: a first guess from the leading digits, then
/// corrected one double at a time until the whole decimal lies in the guess's rounding interval, decided
/// exactly by [`crate::text::number::against_interval`] (big-integer expansions; this path is rare).
fn approximate(body: &[u8]) -> f64 {
    let (digits, point) = significant_digits(body);
    if digits.is_empty() {
        return 0.0;
    }
    let mut guess = 0u64;
    for d in digits.iter().take(MAX_DIGITS as usize) {
        guess = guess * 10 + u64::from(d - b'0');
    }
    let shown = digits.len().min(MAX_DIGITS as usize) as i64;
    let mut a = scale_by_ten(guess as f64, point - shown);
    if a.is_infinite() {
        a = f64::MAX;
    }
    if a == 0.0 {
        a = f64::from_bits(1);
    }
    // The guess is within a few units in the last place; the bound only guards against a defect.
    for _ in 0..64 {
        match crate::text::number::against_interval(a, &digits, point) {
            std::cmp::Ordering::Equal => return a,
            std::cmp::Ordering::Greater if a == f64::MAX => return f64::INFINITY,
            std::cmp::Ordering::Greater => a = a.next_up(),
            std::cmp::Ordering::Less if a == f64::from_bits(1) => return 0.0,
            std::cmp::Ordering::Less => a = a.next_down(),
        }
    }
    a
}

/// x × 10^e in steps that stay inside the range of doubles where the result does.
fn scale_by_ten(mut x: f64, mut e: i64) -> f64 {
    while e != 0 && x != 0.0 && x.is_finite() {
        let step = e.clamp(-300, 300);
        x *= 10f64.powi(step as i32);
        e -= step;
    }
    x
}

/// The significant digits of a well-formed number (no leading or trailing zeros) and the position of
/// the point: the value is 0.`digits` × 10^`point`.
fn significant_digits(body: &[u8]) -> (Vec<u8>, i64) {
    let (mantissa, exponent) = match body.iter().position(|c| matches!(c, b'e' | b'E')) {
        Some(i) => (
            body.get(..i).unwrap_or_default(),
            body.get(i + 1..).and_then(read_exponent).unwrap_or(0),
        ),
        None => (body, 0),
    };
    let mut digits = Vec::with_capacity(mantissa.len());
    let mut point: i64 = 0;
    let mut in_fraction = false;
    for &c in mantissa {
        match c {
            b'.' => in_fraction = true,
            b'0' if digits.is_empty() => {
                if in_fraction {
                    point -= 1;
                }
            }
            _ => {
                digits.push(c);
                if !in_fraction {
                    point += 1;
                }
            }
        }
    }
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    (digits, point.saturating_add(exponent))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Whether `text` takes the integer paths (not the corrected guess).
    fn read_exactly(text: &str) -> bool {
        let body = text.trim_start_matches(['-', '+']).as_bytes();
        Decimal::read(body).is_some_and(|d| d.mantissa == 0 || d.exact().is_some())
    }

    /// The same texts accepted, the same value bit for bit.
    fn same_as_std(text: &str) {
        let ours = parse_f64(text);
        let std = text.parse::<f64>().ok();
        match (ours, std) {
            (Some(a), Some(b)) if a.is_nan() && b.is_nan() => {}
            (Some(a), Some(b)) => {
                assert_eq!(a.to_bits(), b.to_bits(), "{text}: {a:e} vs std {b:e}")
            }
            (a, b) => assert_eq!(a, b, "{text}"),
        }
    }

    #[test]
    fn accepts_and_refuses_what_std_does() {
        for t in [
            "0",
            "-0",
            "+0",
            "0.0",
            "-0.0",
            "45.67",
            "5.",
            ".5",
            "-.5",
            "+.5e1",
            "1e5",
            "1E+5",
            "1e-5",
            "00012.3400e5",
            "0.000",
            "1",
            "12",
            "9007199254740993",
            "18446744073709551615",
            "0.1",
            "0.2",
            "0.3",
            "123456789012345678901234567890",
            "1e308",
            "1.7976931348623157e308",
            "1e309",
            "-1e309",
            "1e-320",
            "1e-400",
            "2.2250738585072014e-308",
            "inf",
            "-inf",
            "+Infinity",
            "INF",
            "nan",
            "NaN",
            "-nan",
            "",
            ".",
            "-",
            "+",
            "e5",
            ".e5",
            "1e",
            "1e+",
            "1e-",
            "1.2.3",
            "1 ",
            " 1",
            "1_000",
            "0x10",
            "1,5",
            "--1",
            "+-1",
            "infinit",
            "nana",
            "1e5.5",
            "١",
            "1e99999999999999999999",
            "0.12345678901234568",
            "0.9999999999999999",
            "3.3000000000000003",
            "1.2345678901234567e-10",
            "4.9406564584124654e-324",
            "0.30000000000000004441",
            "12345678901234567890.5e-40",
        ] {
            same_as_std(t);
        }
    }

    #[test]
    fn the_exact_paths_are_taken_for_everyday_numbers() {
        for t in [
            "45.67",
            "0.12345678901234568",
            "1.2345678901234567e-14",
            "123456789012345678e9",
        ] {
            assert!(read_exactly(t), "{t}");
        }
        for t in [
            "1.2345678901234567e-21",
            "1e300",
            "123456789012345678901234567890",
        ] {
            assert!(!read_exactly(t), "{t}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        #[test]
        fn shortest_repr_of_any_double_reads_back(x in proptest::num::f64::ANY) {
            same_as_std(&format!("{x}"));
            same_as_std(&format!("{x:e}"));
            same_as_std(&format!("{:?}", x / 7.0));
        }

        #[test]
        fn decimal_texts_read_as_std_reads_them(
            int in "[0-9]{0,9}",
            frac in "[0-9]{0,10}",
            exp in proptest::option::of(-20i32..18),
            neg in any::<bool>(),
        ) {
            let exp = exp.map(|e| format!("e{e}")).unwrap_or_default();
            let text = format!("{}{int}.{frac}{exp}", if neg { "-" } else { "" });
            prop_assert!(read_exactly(&text) || text.parse::<f64>().is_err(), "{}", text);
            same_as_std(&text);
        }

        #[test]
        fn long_and_extreme_texts_read_as_std_reads_them(
            digits in "[0-9]{1,40}",
            frac in "[0-9]{0,40}",
            exp in -400i32..400,
        ) {
            same_as_std(&format!("{digits}.{frac}e{exp}"));
        }

        #[test]
        fn long_mantissas_in_the_exact_range(m in 1u64..u64::MAX / 2, k in 0i32..32) {
            for text in [format!("{m}e-{k}"), format!("{m}e{}", k.min(8))] {
                prop_assert!(read_exactly(&text), "{}", text);
                same_as_std(&text);
            }
        }
    }
}
