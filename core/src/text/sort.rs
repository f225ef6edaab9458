//! Small-code stable sorting for the cold paths (findings, folds, rule lists, percentiles).
//!
//! Every `slice::sort_by` call with its own closure type compiles a whole copy of std's driftsort
//! (about 2–5 KB of wasm each; 21 call sites made 57 KB of the page's code). These helpers share one copy:
//! they sort a list of positions with a `dyn` comparator and then move the items into that order. The
//! result is exactly that of `sort_by` (stable), a little slower per comparison, so hot loops over large
//! inputs keep their own `sort_unstable_by` (the AUC ranking in `stats::metrics`).

use std::cmp::Ordering;

/// Stable sort by a comparator, like `v.sort_by(cmp)`.
pub fn sort_by<T>(v: &mut Vec<T>, mut cmp: impl FnMut(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let mut order: Vec<usize> = (0..v.len()).collect();
    sort_positions(&mut order, &mut |a, b| match (v.get(a), v.get(b)) {
        (Some(x), Some(y)) => cmp(x, y),
        _ => Ordering::Equal,
    });
    let mut slots: Vec<Option<T>> = v.drain(..).map(Some).collect();
    v.extend(
        order
            .iter()
            .filter_map(|&i| slots.get_mut(i).and_then(Option::take)),
    );
}

/// Stable sort by a key, like `v.sort_by_key(key)`.
pub fn sort_by_key<T, K: Ord>(v: &mut Vec<T>, mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Stable sort in the natural order, like `v.sort()`.
pub fn sort<T: Ord>(v: &mut Vec<T>) {
    sort_by(v, T::cmp);
}

/// The one instance of std's stable sort behind the helpers above.
#[inline(never)]
fn sort_positions(order: &mut [usize], cmp: &mut dyn FnMut(usize, usize) -> Ordering) {
    order.sort_by(|&a, &b| cmp(a, b));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_as_std_sort_by_and_stable() {
        let items: Vec<(u8, u32)> = (0..200u32).map(|i| ((i * 7919 % 13) as u8, i)).collect();
        let mut ours = items.clone();
        sort_by_key(&mut ours, |p| p.0);
        let mut std_sorted = items.clone();
        std_sorted.sort_by_key(|p| p.0);
        assert_eq!(ours, std_sorted);
        let mut words = vec![
            "b".to_string(),
            "a".to_string(),
            "c".to_string(),
            "a".to_string(),
        ];
        sort(&mut words);
        assert_eq!(words, ["a", "a", "b", "c"]);
        let mut floats = vec![2.0, -1.0, f64::NAN, 0.5];
        sort_by(&mut floats, f64::total_cmp);
        assert_eq!(&floats[..3], &[-1.0, 0.5, 2.0]);
        assert!(floats[3].is_nan());
        let mut empty: Vec<u8> = Vec::new();
        sort(&mut empty);
        assert!(empty.is_empty());
    }
}
