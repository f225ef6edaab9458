//! Decimal text of `f64` values, built on integer arithmetic.
//!
//! `format!("{:.2}", x)`, `format!("{x}")`, `x.to_string()` and `{:e}` pull Rust's float printer
//! (`core::num::flt2dec`: Grisu, Dragon4, bignums and power tables, about 16 KB) into the page's wasm, and
//! serde_json prints floats with another one (zmij and its table of powers). Every float that core and the
//! page show goes through these functions instead, which give the same text as `format!` from the exact
//! decimal expansion of the binary value (a small base-10^9 bignum) rounded half to even:
//!
//! - [`fixed`] is `format!("{x:.N}")`, [`sci`] is `format!("{x:.Ne}")`, [`shortest`] is `x.to_string()`;
//! - [`json`] is serde_json's text of a float (`crate::text::json` prints whole JSON values with it).
//!
//! NaN, infinities, `-0.0` and huge or tiny values are handled like `format!` does; nothing panics.
//! [`shortest`] tries 1 to 17 significant digits and keeps the first that reads back as the same value,
//! decided exactly against the midpoints to the neighbouring doubles (no float parser involved).

use std::iter::repeat_n;

/// `format!("{x:.decimals$}")`: `decimals` digits after the point, rounded half to even on the exact
/// binary value (`fixed(0.125, 2)` = "0.12", `fixed(9.96, 1)` = "10.0", `fixed(-0.04, 1)` = "-0.0").
pub fn fixed(x: f64, decimals: usize) -> String {
    let mut out = String::new();
    push_fixed(&mut out, x, decimals);
    out
}

/// [`fixed`] appended to `out` (no allocation per number in long lists such as SVG points).
pub fn push_fixed(out: &mut String, x: f64, decimals: usize) {
    if let Some(text) = non_finite(x) {
        out.push_str(text);
        return;
    }
    if x.is_sign_negative() {
        out.push('-');
    }
    let Exact { mut digits, frac } = exact(x);
    if digits.len() <= frac {
        // At least one integer digit: 0.05 = "005" with 3 fraction digits.
        let pad = frac + 1 - digits.len();
        digits.splice(0..0, repeat_n(b'0', pad));
    }
    let mut int_len = digits.len() - frac;
    if frac > decimals {
        if round_digits(&mut digits, int_len + decimals) {
            int_len += 1;
        }
    } else {
        digits.extend(repeat_n(b'0', decimals - frac));
    }
    let leading_zeros = digits
        .iter()
        .take(int_len.saturating_sub(1))
        .take_while(|d| **d == b'0')
        .count();
    push_digits(out, digits.iter().take(int_len).skip(leading_zeros));
    if decimals > 0 {
        out.push('.');
        push_digits(out, digits.iter().skip(int_len));
    }
}

/// `format!("{x:.decimals$e}")`: one digit, `decimals` more after the point, then `e` and the exponent
/// (`sci(0.000123456, 3)` = "1.235e-4", `sci(0.0, 3)` = "0.000e0").
pub fn sci(x: f64, decimals: usize) -> String {
    if let Some(text) = non_finite(x) {
        return text.to_string();
    }
    let mut out = String::new();
    if x.is_sign_negative() {
        out.push('-');
    }
    let Exact { mut digits, frac } = exact(x);
    let mut exp = 0;
    if digits != b"0" {
        exp = digits.len() as i64 - 1 - frac as i64;
        if round_digits(&mut digits, decimals + 1) {
            exp += 1;
            digits.truncate(decimals + 1);
        }
    }
    digits.resize(decimals + 1, b'0');
    push_digits(&mut out, digits.iter().take(1));
    if decimals > 0 {
        out.push('.');
        push_digits(&mut out, digits.iter().skip(1));
    }
    out.push('e');
    out.push_str(&exp.to_string());
    out
}

/// `x.to_string()` (`format!("{x}")`): the fewest significant digits that read back as `x`, written out
/// without an exponent (`shortest(0.1)` = "0.1", `shortest(30.0)` = "30", `shortest(1e21)` = "1" and 21
/// zeros, `shortest(-0.0)` = "-0").
pub fn shortest(x: f64) -> String {
    if let Some(text) = non_finite(x) {
        return text.to_string();
    }
    let mut out = String::new();
    if x.is_sign_negative() {
        out.push('-');
    }
    let (digits, point) = shortest_digits(x.abs(), true);
    push_plain(&mut out, &digits, point);
    out
}

/// serde_json's text of a finite float (`serde_json::to_string(&x)`): the [`shortest`] digits, written
/// out with a ".0" when they make an integer ("30.0"), as `d.ddde±N` below 1e-5 or from 1e16 on
/// ("4.35e-6", "1e+16"). Not finite: "null", as serde_json writes it.
pub fn json(x: f64) -> String {
    if !x.is_finite() {
        return "null".to_string();
    }
    let mut out = String::new();
    if x.is_sign_negative() {
        out.push('-');
    }
    let (digits, point) = shortest_digits(x.abs(), false);
    let exp = point - 1;
    if (-5..=15).contains(&exp) {
        push_plain(&mut out, &digits, point);
        if !out.contains('.') {
            out.push_str(".0");
        }
    } else {
        push_digits(&mut out, digits.iter().take(1));
        if digits.len() > 1 {
            out.push('.');
            push_digits(&mut out, digits.iter().skip(1));
        }
        out.push_str(if exp > 0 { "e+" } else { "e" });
        out.push_str(&exp.to_string());
    }
    out
}

fn non_finite(x: f64) -> Option<&'static str> {
    if x.is_nan() {
        Some("NaN")
    } else if x.is_infinite() {
        Some(if x < 0.0 { "-inf" } else { "inf" })
    } else {
        None
    }
}

fn push_digits<'a>(out: &mut String, digits: impl Iterator<Item = &'a u8>) {
    out.extend(digits.map(|d| char::from(*d)));
}

/// The exact decimal value of `|x|` (finite): `digits` (ASCII, no leading zero unless the value is 0)
/// with the last `frac` of them after the point. Every binary fraction ends in decimal: m / 2^k =
/// m * 5^k / 10^k.
struct Exact {
    digits: Vec<u8>,
    frac: usize,
}

/// The significand and binary exponent of a finite `x`'s magnitude: |x| = m × 2^e.
fn binary_parts(x: f64) -> (u64, i32) {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let mantissa = bits & ((1 << 52) - 1);
    if biased == 0 {
        (mantissa, -1074)
    } else {
        (mantissa | 1 << 52, biased - 1075)
    }
}

fn exact(x: f64) -> Exact {
    let (m, e) = binary_parts(x);
    exact_binary(m, e)
}

/// The exact decimal expansion of m × 2^e.
fn exact_binary(mut m: u64, mut e: i32) -> Exact {
    const BASE: u64 = 1_000_000_000;
    if m == 0 {
        return Exact {
            digits: vec![b'0'],
            frac: 0,
        };
    }
    let zeros = m.trailing_zeros();
    m >>= zeros;
    e += zeros as i32;
    // Base 10^9 limbs, least significant first; never a zero top limb.
    let mut limbs = Vec::new();
    while m > 0 {
        limbs.push((m % BASE) as u32);
        m /= BASE;
    }
    let (factor, step, mut times) = if e >= 0 {
        (2u64, 29u32, e.unsigned_abs())
    } else {
        (5, 13, e.unsigned_abs())
    };
    while times > 0 {
        let k = times.min(step);
        times -= k;
        let f = factor.pow(k);
        let mut carry = 0u64;
        for limb in limbs.iter_mut() {
            let t = u64::from(*limb) * f + carry;
            *limb = (t % BASE) as u32;
            carry = t / BASE;
        }
        while carry > 0 {
            limbs.push((carry % BASE) as u32);
            carry /= BASE;
        }
    }
    let mut digits = Vec::with_capacity(limbs.len() * 9);
    for (i, limb) in limbs.iter().rev().enumerate() {
        let mut nine = [b'0'; 9];
        let mut v = *limb;
        for d in nine.iter_mut().rev() {
            *d = b'0' + (v % 10) as u8;
            v /= 10;
        }
        let skip = if i == 0 {
            nine.iter().take_while(|d| **d == b'0').count()
        } else {
            0
        };
        digits.extend(nine.iter().skip(skip));
    }
    Exact {
        digits,
        frac: if e < 0 { e.unsigned_abs() as usize } else { 0 },
    }
}

/// Keeps the first `keep` digits, rounding on the rest half to even (exactly: `digits` is the whole
/// value). True when the carry ran out of digits: the kept part became "1" and `keep` zeros.
fn round_digits(digits: &mut Vec<u8>, keep: usize) -> bool {
    if digits.len() <= keep {
        return false;
    }
    let rest = digits.split_off(keep);
    let up = rounds_up(digits.last(), &rest, false);
    up && increment(digits)
}

/// Whether dropping `rest` (exact digits) after the kept digit `last` rounds up: above half, or at exactly
/// half when `ties_up` or to make `last` even.
fn rounds_up(last: Option<&u8>, rest: &[u8], ties_up: bool) -> bool {
    match rest.first().map(|d| d.cmp(&b'5')) {
        Some(std::cmp::Ordering::Greater) => true,
        Some(std::cmp::Ordering::Equal) => {
            ties_up || rest.iter().skip(1).any(|d| *d != b'0') || last.is_some_and(|d| d % 2 == 1)
        }
        _ => false,
    }
}

/// Adds one unit in the last place; true when it carried out of the first digit ("99" -> "100").
fn increment(digits: &mut Vec<u8>) -> bool {
    for d in digits.iter_mut().rev() {
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            return false;
        }
    }
    digits.insert(0, b'1');
    true
}

/// Whether the decimal 0.`d` × 10^`point` (`d` without a leading zero) reads back as `a` (finite,
/// positive). Exact: see [`against_interval`].
fn reads_back(a: f64, d: &[u8], point: i64) -> bool {
    against_interval(a, d, point).is_eq()
}

/// Where the decimal 0.`d` × 10^`point` (`d` without a leading zero, nonzero) lies against the
/// rounding interval of `a` (finite, positive): `Equal` inside (it reads as `a`), `Less` below, `Greater`
/// above. The interval's ends, the midpoints to the neighbouring doubles, belong to `a` when its
/// significand is even (round half to even). Exact: the ends are expanded like `a` itself.
pub(crate) fn against_interval(a: f64, d: &[u8], point: i64) -> std::cmp::Ordering {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let (m, e) = binary_parts(a);
    // In units of 2^(e-2): a = 4m, the upper end 4m + 2, the lower end 4m - 2, or 4m - 1 just above a
    // power of two, where the gap below is half the gap above.
    let lower_gap = if m == 1 << 52 && e > -1074 { 1 } else { 2 };
    let even = m % 2 == 0;
    match compare_decimal(d, point, &exact_binary(4 * m + 2, e - 2)) {
        Greater => return Greater,
        Equal if !even => return Greater,
        _ => {}
    }
    match compare_decimal(d, point, &exact_binary(4 * m - lower_gap, e - 2)) {
        Less => Less,
        Equal if !even => Less,
        _ => Equal,
    }
}

/// 0.`d` × 10^`point` against an exact expansion (both without leading zeros, both nonzero).
fn compare_decimal(d: &[u8], point: i64, x: &Exact) -> std::cmp::Ordering {
    let x_point = x.digits.len() as i64 - x.frac as i64;
    point.cmp(&x_point).then_with(|| {
        let len = d.len().max(x.digits.len());
        (0..len)
            .map(|i| {
                let a = d.get(i).copied().unwrap_or(b'0');
                let b = x.digits.get(i).copied().unwrap_or(b'0');
                a.cmp(&b)
            })
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    })
}

/// The shortest significant digits (no trailing zeros) that read back as `a` (finite, not negative), and
/// the position of the point: the value is 0.`digits` x 10^`point`. Of two candidates of the same length
/// that both read back, the nearer one; at an exact tie the upper one when `ties_up` (as `to_string`
/// does), else the even one (as serde_json does).
fn shortest_digits(a: f64, ties_up: bool) -> (Vec<u8>, i64) {
    let Exact { digits, frac } = exact(a);
    if digits == b"0" {
        return (digits, 1);
    }
    let point = digits.len() as i64 - frac as i64;
    if digits.len() <= 15 {
        // Distinct decimals of up to 15 significant digits are distinct doubles (DBL_DIG): nothing
        // shorter reads back.
        return (trimmed(digits), point);
    }
    let reads_back = |d: &[u8], point: i64| reads_back(a, d, point);
    for p in 1..digits.len() {
        let down: Vec<u8> = digits.iter().take(p).copied().collect();
        let mut up = down.clone();
        let up_point = if increment(&mut up) { point + 1 } else { point };
        let take_up = match (reads_back(&down, point), reads_back(&up, up_point)) {
            (false, false) => continue,
            // Both read back: the nearer one.
            (true, true) => rounds_up(down.last(), digits.get(p..).unwrap_or_default(), ties_up),
            (_, up_ok) => up_ok,
        };
        return if take_up {
            (trimmed(up), up_point)
        } else {
            (trimmed(down), point)
        };
    }
    (trimmed(digits), point)
}

fn trimmed(mut digits: Vec<u8>) -> Vec<u8> {
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
    }
    digits
}

/// 0.`digits` x 10^`point` written out without an exponent and without trailing fraction zeros.
fn push_plain(out: &mut String, digits: &[u8], point: i64) {
    let digits = digits
        .iter()
        .rposition(|d| *d != b'0')
        .and_then(|last| digits.get(..=last))
        .unwrap_or(b"0");
    if point <= 0 {
        out.push_str("0.");
        out.extend(repeat_n('0', point.unsigned_abs() as usize));
        push_digits(out, digits.iter());
    } else {
        let int = point as usize;
        push_digits(out, digits.iter().take(int));
        out.extend(repeat_n('0', int.saturating_sub(digits.len())));
        if digits.len() > int {
            out.push('.');
            push_digits(out, digits.iter().skip(int));
        }
    }
}

#[cfg(test)]
mod tests;
