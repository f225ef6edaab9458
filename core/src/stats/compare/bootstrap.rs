//! The paired bootstrap of `compare`: each resample draws rows (or whole groups) with replacement, and the
//! SAME draw weighs both models, so row difficulty cancels out. Resamples are count vectors: no row is
//! copied and AUC never re-sorts (see [`Prepared`]). Each resample has its own
//! random stream derived from the seed, so the gains do not depend on the number of threads.

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::stats::metrics::Prepared;

/// Sample standard deviation (ddof 1); None with fewer than 2 values.
pub fn sd(values: &[f64]) -> Option<f64> {
    let n = values.len();
    if n < 2 {
        return None;
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    let ss: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
    Some((ss / (n - 1) as f64).sqrt())
}

/// numpy's default percentile (linear interpolation between closest ranks) of sorted values.
pub fn percentile_sorted(sorted: &[f64], q: f64) -> Option<f64> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    let pos = q / 100.0 * (n - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    let frac = pos - lo as f64;
    let a = *sorted.get(lo)?;
    let b = *sorted.get(hi.min(n - 1))?;
    Some(a + (b - a) * frac)
}

/// The random stream of resample `r`: each resample has its own, derived from the seed, so the answer is
/// the same whatever the number of threads.
fn resample_rng(seed: u64, r: usize) -> Pcg64Mcg {
    Pcg64Mcg::seed_from_u64(seed ^ (r as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// Draws `n` indices in `0..n` into `counts` (zeroed first).
/// The same draws into one byte per row (4x less memory traffic than u32, so the random increments and
/// the control's gather stay in cache). Returns false when a count would pass 255 (only possible with
/// more than 255 rows and astronomically unlikely); the caller then redraws the resample into u32.
fn draw_counts_u8(rng: &mut Pcg64Mcg, counts: &mut [u8]) -> bool {
    counts.fill(0);
    let n = counts.len() as u32;
    let mut ok = true;
    for _ in 0..n {
        let i = rng.random_range(0..n) as usize;
        if let Some(c) = counts.get_mut(i) {
            match c.checked_add(1) {
                Some(v) => *c = v,
                None => ok = false,
            }
        }
    }
    ok
}

fn draw_counts(rng: &mut Pcg64Mcg, counts: &mut [u32]) {
    counts.fill(0);
    let n = counts.len() as u32;
    for _ in 0..n {
        let i = rng.random_range(0..n) as usize;
        if let Some(c) = counts.get_mut(i) {
            *c += 1;
        }
    }
}

/// What every resample reads: the two models, the groups, and for AUC without groups the control's
/// rows as positions in the idea's sorted order.
struct Resampler<'a> {
    idea: &'a Prepared,
    control: &'a Prepared,
    group_of: Option<(&'a [u32], usize)>,
    /// AUC without groups: draw positions in the idea's sorted order (a bijection of the rows, so the
    /// same distribution), which makes the idea's pass sequential; the control's pass gathers through
    /// this one precomputed permutation.
    auc_positions: Option<Vec<u32>>,
    n: usize,
    seed: u64,
    sign: f64,
}

/// One thread's buffers, reused from resample to resample.
#[derive(Default)]
struct Scratch {
    counts: Vec<u32>,
    group_counts: Vec<u32>,
    small: Vec<u8>,
}

impl<'a> Resampler<'a> {
    fn new(
        idea: &'a Prepared,
        control: &'a Prepared,
        group_of: Option<(&'a [u32], usize)>,
        n: usize,
        seed: u64,
    ) -> Resampler<'a> {
        let auc_positions = match (idea.sorted_order(), control.sorted_order(), group_of) {
            (Some(io), Some(co), None) => {
                let mut pos_of_row = vec![0u32; n];
                for (k, &row) in io.iter().enumerate() {
                    if let Some(p) = pos_of_row.get_mut(row as usize) {
                        *p = k as u32;
                    }
                }
                Some(
                    co.iter()
                        .map(|&row| pos_of_row.get(row as usize).copied().unwrap_or(0))
                        .collect::<Vec<u32>>(),
                )
            }
            _ => None,
        };
        Resampler {
            idea,
            control,
            group_of,
            auc_positions,
            n,
            seed,
            sign: idea.metric().sign(),
        }
    }

    /// The signed gain of resample `r`; None when the metric is undefined on it.
    fn gain(&self, r: usize, scratch: &mut Scratch) -> Option<f64> {
        let mut rng = resample_rng(self.seed, r);
        if let Some(ctrl_pos) = &self.auc_positions {
            let small = &mut scratch.small;
            small.resize(self.n, 0);
            if draw_counts_u8(&mut rng, small) {
                let a = self
                    .idea
                    .auc_with(|k| small.get(k).copied().unwrap_or(0) as u32)?;
                let b = self.control.auc_with(|k| {
                    ctrl_pos
                        .get(k)
                        .and_then(|&p| small.get(p as usize))
                        .copied()
                        .unwrap_or(0) as u32
                })?;
                return Some(self.sign * (a - b));
            }
            // a count passed 255: the same draws again, into u32
            let counts = &mut scratch.counts;
            let mut rng = resample_rng(self.seed, r);
            draw_counts(&mut rng, counts);
            let a = self
                .idea
                .auc_with(|k| counts.get(k).copied().unwrap_or(0))?;
            let b = self.control.auc_with(|k| {
                ctrl_pos
                    .get(k)
                    .and_then(|&p| counts.get(p as usize))
                    .copied()
                    .unwrap_or(0)
            })?;
            return Some(self.sign * (a - b));
        }
        match self.group_of {
            Some((groups, n_groups)) if n_groups > 0 => {
                draw_counts(&mut rng, &mut scratch.group_counts);
                for (c, g) in scratch.counts.iter_mut().zip(groups) {
                    *c = scratch.group_counts.get(*g as usize).copied().unwrap_or(0);
                }
            }
            _ => draw_counts(&mut rng, &mut scratch.counts),
        }
        resample_gain(self.idea, self.control, &scratch.counts)
    }

    /// Resamples `lo..hi`, in order.
    fn range(&self, lo: usize, hi: usize) -> Vec<Option<f64>> {
        let mut scratch = Scratch {
            counts: vec![0u32; self.n],
            group_counts: vec![0u32; self.group_of.map_or(0, |(_, g)| g)],
            small: Vec::new(),
        };
        (lo..hi).map(|r| self.gain(r, &mut scratch)).collect()
    }
}

/// The resampled gains of the paired bootstrap (in resample order), and how many resamples were
/// undefined. Resamples run on up to `threads` threads (1 where threads are unavailable, e.g. wasm);
/// the result does not depend on it.
pub fn bootstrap_gains(
    idea: &Prepared,
    control: &Prepared,
    group_of: Option<(&[u32], usize)>,
    n: usize,
    resamples: usize,
    seed: u64,
    threads: usize,
) -> (Vec<f64>, usize) {
    if n == 0 {
        return (Vec::new(), resamples);
    }
    let resampler = Resampler::new(idea, control, group_of, n, seed);
    let threads = threads.clamp(1, resamples.max(1));
    let chunk = resamples.div_ceil(threads);
    // wasm32 has no threads: the constant-false branch keeps std's thread code out of the web page.
    let results: Vec<Option<f64>> = if threads > 1 && cfg!(not(target_arch = "wasm32")) {
        let parts: Option<Vec<Vec<Option<f64>>>> = std::thread::scope(|scope| {
            let mut handles = Vec::new();
            for t in 0..threads {
                let (lo, hi) = (t * chunk, ((t + 1) * chunk).min(resamples));
                let run = &resampler;
                match std::thread::Builder::new().spawn_scoped(scope, move || run.range(lo, hi)) {
                    Ok(h) => handles.push(h),
                    Err(_) => return None,
                }
            }
            handles.into_iter().map(|h| h.join().ok()).collect()
        });
        match parts {
            Some(parts) => parts.into_iter().flatten().collect(),
            None => resampler.range(0, resamples),
        }
    } else {
        resampler.range(0, resamples)
    };
    let undefined = results.iter().filter(|g| g.is_none()).count();
    (results.into_iter().flatten().collect(), undefined)
}

/// The signed gain of one resample given as counts per row (how often each row was drawn); None when the
/// metric is undefined on it.
pub fn resample_gain(idea: &Prepared, control: &Prepared, counts: &[u32]) -> Option<f64> {
    let sign = idea.metric().sign();
    Some(sign * (idea.eval(Some(counts))? - control.eval(Some(counts))?))
}

/// What the resampled gains say about a point gain.
#[derive(Debug, Clone, PartialEq)]
pub struct GainSummary {
    pub se: Option<f64>,
    pub z: Option<f64>,
    pub p_better: Option<f64>,
    pub ci95: Option<[f64; 2]>,
    pub bootstrap_gain: Option<f64>,
}

/// se (ddof 1), z = gain / se (undefined when se is 0), P(better) = share > 0, 2.5/97.5 percentiles, mean.
pub fn summarise(gain: f64, gains: &[f64]) -> GainSummary {
    let se = sd(gains);
    let mut sorted = gains.to_vec();
    crate::text::sort::sort_by(&mut sorted, f64::total_cmp);
    GainSummary {
        se,
        z: se.filter(|s| *s > 0.0).map(|s| gain / s),
        p_better: (!gains.is_empty())
            .then(|| gains.iter().filter(|g| **g > 0.0).count() as f64 / gains.len() as f64),
        ci95: percentile_sorted(&sorted, 2.5)
            .zip(percentile_sorted(&sorted, 97.5))
            .map(|(a, b)| [a, b]),
        bootstrap_gain: (!gains.is_empty()).then(|| gains.iter().sum::<f64>() / gains.len() as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::metrics::Metric;

    /// The AUC fast path (draws in the idea's sorted order, one byte per row) equals the generic
    /// row-count path for the same draws mapped back to rows.
    #[test]
    fn auc_fast_path_equals_row_counts() {
        let y: Vec<f64> = (0..200).map(|i| f64::from(u8::from(i % 3 == 0))).collect();
        let a: Vec<f64> = (0..200).map(|i| ((i * 37) % 101) as f64 / 100.0).collect();
        let c: Vec<f64> = (0..200).map(|i| ((i * 53) % 17) as f64 / 16.0).collect();
        let idea = Prepared::new(Metric::Auc, &y, &a).unwrap();
        let control = Prepared::new(Metric::Auc, &y, &c).unwrap();
        let (gains, undefined) = bootstrap_gains(&idea, &control, None, 200, 25, 9, 3);
        assert_eq!((gains.len(), undefined), (25, 0));
        let order = idea.sorted_order().unwrap();
        for (r, g) in gains.iter().enumerate() {
            let mut small = vec![0u8; 200];
            assert!(draw_counts_u8(&mut resample_rng(9, r), &mut small));
            let mut rows = vec![0u32; 200];
            for (k, &row) in order.iter().enumerate() {
                rows[row as usize] = u32::from(small[k]);
            }
            let want = resample_gain(&idea, &control, &rows).unwrap();
            assert!((g - want).abs() < 1e-12, "resample {r}: {g} vs {want}");
        }
        // one thread or several: the same gains
        assert_eq!(
            bootstrap_gains(&idea, &control, None, 200, 25, 9, 1).0,
            gains
        );
    }

    #[test]
    fn percentile_and_sd_like_numpy() {
        // numpy.percentile([1, 2, 3, 4], 2.5) = 1.075; numpy.std([1, 2, 3, 4], ddof=1) = 1.2909944487358056
        assert!((percentile_sorted(&[1.0, 2.0, 3.0, 4.0], 2.5).unwrap() - 1.075).abs() < 1e-12);
        assert!((sd(&[1.0, 2.0, 3.0, 4.0]).unwrap() - 1.2909944487358056).abs() < 1e-12);
        assert_eq!(sd(&[1.0]), None);
        assert_eq!(percentile_sorted(&[], 50.0), None);
    }
}
