use super::*;
use proptest::prelude::*;

/// 2^50 + 0.25 and 2^50 + 0.75: the ulp is 0.25, so 17 digits end in an exact tie ("…624.2" or "…624.3").
const TIE_25: f64 = 1_125_899_906_842_624.0 + 0.25;
const TIE_75: f64 = 1_125_899_906_842_624.0 + 0.75;

#[test]
fn fixed_rounds_exact_ties_to_even() {
    assert_eq!(fixed(0.125, 2), "0.12");
    assert_eq!(fixed(0.375, 2), "0.38");
    assert_eq!(fixed(0.5, 0), "0");
    assert_eq!(fixed(1.5, 0), "2");
    assert_eq!(fixed(2.5, 0), "2");
    assert_eq!(fixed(0.25, 1), "0.2");
    assert_eq!(fixed(-1.25, 1), "-1.2");
}

#[test]
fn fixed_rounds_the_binary_value_not_the_decimal_literal() {
    // 0.35 is 0.34999999999999997779...; 2.675 is 2.67499999999999982236...
    assert_eq!(fixed(0.35, 1), "0.3");
    assert_eq!(fixed(2.675, 2), "2.67");
    // 1.005 is 1.00499999999999989342...; 1.015 is 1.01499999999999990230...
    assert_eq!(fixed(1.005, 2), "1.00");
    assert_eq!(fixed(0.45, 1), "0.5"); // 0.450000000000000011102...
}

#[test]
fn fixed_carries_into_new_digits() {
    assert_eq!(fixed(9.96, 1), "10.0");
    assert_eq!(fixed(0.996, 2), "1.00");
    assert_eq!(fixed(99.5, 0), "100");
    assert_eq!(fixed(-9.99, 1), "-10.0");
    assert_eq!(fixed(999_999.96, 1), "1000000.0");
}

#[test]
fn fixed_zero_signs_and_non_finite() {
    assert_eq!(fixed(0.0, 2), "0.00");
    assert_eq!(fixed(0.0, 0), "0");
    assert_eq!(fixed(-0.0, 1), "-0.0");
    assert_eq!(fixed(-0.04, 1), "-0.0");
    assert_eq!(fixed(0.04, 1), "0.0");
    assert_eq!(fixed(f64::NAN, 2), "NaN");
    assert_eq!(fixed(-f64::NAN, 2), "NaN");
    assert_eq!(fixed(f64::INFINITY, 1), "inf");
    assert_eq!(fixed(f64::NEG_INFINITY, 1), "-inf");
}

#[test]
fn fixed_large_values_and_many_decimals() {
    assert_eq!(fixed(1e21, 1), "1000000000000000000000.0");
    assert_eq!(fixed(1e300, 1), format!("{:.1}", 1e300));
    assert_eq!(fixed(f64::MAX, 0), format!("{:.0}", f64::MAX));
    assert_eq!(fixed(-f64::MAX, 2), format!("{:.2}", -f64::MAX));
    assert_eq!(fixed(0.1, 30), "0.100000000000000005551115123126");
    assert_eq!(fixed(5e-324, 1074), format!("{:.1074}", 5e-324));
    assert_eq!(fixed(5e-324, 400), format!("{:.400}", 5e-324));
    assert_eq!(fixed(f64::MIN_POSITIVE, 2), "0.00");
    assert_eq!(fixed(123.456, 0), "123");
    assert_eq!(fixed(3.0, 4), "3.0000");
}

#[test]
fn push_fixed_appends() {
    let mut s = String::from("x=");
    push_fixed(&mut s, 12.345, 1);
    s.push(',');
    push_fixed(&mut s, -0.5, 0);
    assert_eq!(s, "x=12.3,-0");
}

#[test]
fn sci_is_lower_exp_with_precision() {
    assert_eq!(sci(0.000123456, 3), "1.235e-4");
    assert_eq!(sci(0.0, 3), "0.000e0");
    assert_eq!(sci(-0.0, 1), "-0.0e0");
    assert_eq!(sci(9.9996, 3), "1.000e1");
    assert_eq!(sci(25.0, 0), "2e1");
    assert_eq!(sci(35.0, 0), "4e1");
    assert_eq!(sci(1e300, 2), "1.00e300");
    assert_eq!(sci(5e-324, 3), "4.941e-324");
    assert_eq!(sci(f64::NAN, 3), "NaN");
    assert_eq!(sci(f64::NEG_INFINITY, 3), "-inf");
}

#[test]
fn shortest_is_to_string() {
    for x in [
        0.0,
        -0.0,
        1.0,
        30.0,
        0.1,
        0.3,
        1.3,
        12.5,
        1e21,
        1e-7,
        5e-324,
        f64::MAX,
        f64::MIN_POSITIVE,
        0.1 + 0.2,
        1.0 / 3.0,
        -2.0 / 3.0,
        123_456_789.0,
        9_007_199_254_740_993.0,
        TIE_25,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ] {
        assert_eq!(shortest(x), x.to_string(), "{x:e}");
    }
}

#[test]
fn json_is_serde_json() {
    for x in [
        0.0,
        -0.0,
        1.0,
        30.0,
        0.1,
        1e15,
        1e16,
        1e21,
        1e-5,
        9.9e-6,
        4.35e-6,
        1e-7,
        5e-324,
        f64::MAX,
        1.2345678901234568e17,
        9_007_199_254_740_992.0,
        -71_094.4,
        TIE_25,
        TIE_75,
    ] {
        assert_eq!(json(x), serde_json::to_string(&x).unwrap(), "{x:e}");
    }
    assert_eq!(json(f64::NAN), "null");
    assert_eq!(json(f64::NEG_INFINITY), "null");
}

/// Every f64: NaN payloads, infinities, subnormals, huge and tiny values.
fn any_f64() -> impl Strategy<Value = f64> {
    any::<u64>().prop_map(f64::from_bits)
}

/// Values people write: n / 10^k, where the decimal literal is often a near tie in binary.
fn decimal_f64() -> impl Strategy<Value = f64> {
    (-10_000_000i64..10_000_000, 0u32..7).prop_map(|(n, k)| n as f64 / 10f64.powi(k as i32))
}

/// Exact binary ties at some decimal place: odd / 2^k.
fn tie_f64() -> impl Strategy<Value = f64> {
    (-100_000i64..100_000, 1u32..12).prop_map(|(n, k)| (2 * n + 1) as f64 / f64::from(1u32 << k))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn fixed_matches_format_on_any_f64(x in any_f64(), d in 0usize..25) {
        prop_assert_eq!(fixed(x, d), format!("{x:.d$}"));
    }

    #[test]
    fn fixed_matches_format_on_decimal_values(x in decimal_f64(), d in 0usize..9) {
        prop_assert_eq!(fixed(x, d), format!("{x:.d$}"));
    }

    #[test]
    fn fixed_matches_format_on_ties(x in tie_f64(), d in 0usize..12) {
        prop_assert_eq!(fixed(x, d), format!("{x:.d$}"));
    }

    #[test]
    fn fixed_matches_format_in_the_plain_range(x in -1e7f64..1e7, d in 0usize..8) {
        prop_assert_eq!(fixed(x, d), format!("{x:.d$}"));
    }

    #[test]
    fn sci_matches_lower_exp(x in prop_oneof![any_f64(), decimal_f64(), tie_f64()], d in 0usize..20) {
        prop_assert_eq!(sci(x, d), format!("{x:.d$e}"));
    }

    #[test]
    fn shortest_matches_to_string(x in prop_oneof![any_f64(), decimal_f64(), tie_f64(), -1e7f64..1e7]) {
        prop_assert_eq!(shortest(x), x.to_string());
    }

    #[test]
    fn json_matches_serde_json(x in prop_oneof![any_f64(), decimal_f64(), tie_f64(), -1e7f64..1e7]) {
        prop_assert_eq!(json(x), serde_json::to_string(&x).unwrap());
    }
}
