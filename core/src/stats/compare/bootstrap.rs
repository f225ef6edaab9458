//! The paired bootstrap of `compare`: each resample draws rows (or whole groups) with replacement, and the
//! SAME draw weighs both models, so row difficulty cancels out. Resamples are count vectors: no row is
//! copied and AUC never re-sorts (see [`Prepared`]). Each resample has its own
//! random stream derived from the seed, so the gains do not depend on the number of threads.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::stats::metrics::{Prepared, auc_of_groups};

/// The control's AUC is summed per tie group through a small table (a scatter, see [`ControlOrder`]) when
/// it has at most this many tie groups (2 × 4-byte sums each: 256 KB, cache-resident); with more (few
/// ties) a gather through its sort order reads less memory.
const SCATTER_MAX_GROUPS: usize = 1 << 15;

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

/// The draws of one resample: uniform positions in `0..n` from the resample's own random stream (derived
/// from the seed, so the answer is the same whatever the number of threads).
///
/// Each position is rand's `random_range` on a 32-bit sample (Canon's method: the high half of
/// sample × n, and one more sample when the low half is near overflow), with both halves of each 64-bit
/// output of the generator used, low half first, as numpy's bounded 32-bit integers use them (rand's
/// `random_range` throws the high half away): half the generator's work per draw, which was about half
/// the time of a resample. Changed on purpose (issue 16): seeded answers differ from kgadvise before it.
struct Draws {
    rng: Pcg64Mcg,
    /// The high half of the last 64-bit output, not used yet.
    spare: Option<u32>,
    n: u32,
}

impl Draws {
    fn new(seed: u64, r: usize, n: usize) -> Draws {
        Draws {
            rng: Pcg64Mcg::seed_from_u64(seed ^ (r as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            spare: None,
            n: n as u32,
        }
    }

    fn sample(&mut self) -> u32 {
        match self.spare.take() {
            Some(high) => high,
            None => {
                let v = self.rng.next_u64();
                self.spare = Some((v >> 32) as u32);
                v as u32
            }
        }
    }

    /// The next position in `0..n`.
    fn position(&mut self) -> usize {
        let n = u64::from(self.n);
        let m = u64::from(self.sample()) * n;
        let (mut at, low) = ((m >> 32) as u32, m as u32);
        if low > self.n.wrapping_neg() {
            let carry = ((u64::from(self.sample()) * n) >> 32) as u32;
            at += u32::from(low.checked_add(carry).is_none());
        }
        at as usize
    }
}

/// Draws `n` positions into `counts` (zeroed first; `n` = its length), one byte per row: 4x less memory
/// traffic than u32, so the random increments and the control's pass stay in cache. Returns false when
/// a count passed 255 (only possible with more than 255 rows and astronomically unlikely; each wrap
/// takes 256 from the sum, so the sum tells without a test per draw); the caller then draws the
/// resample again into u32.
fn draw_counts_u8(draws: &mut Draws, counts: &mut [u8]) -> bool {
    counts.fill(0);
    for _ in 0..counts.len() {
        if let Some(c) = counts.get_mut(draws.position()) {
            *c = c.wrapping_add(1);
        }
    }
    stayed_within_a_byte(counts, counts.len())
}

/// Whether one-byte counts of `drawn` draws hold them all: each count that passed 255 wrapped and took
/// 256 from the sum.
fn stayed_within_a_byte(counts: &[u8], drawn: usize) -> bool {
    counts.iter().map(|&c| u64::from(c)).sum::<u64>() == drawn as u64
}

/// Draws `n` positions into `counts` (zeroed first; `n` = its length).
fn draw_counts(draws: &mut Draws, counts: &mut [u32]) {
    counts.fill(0);
    for _ in 0..counts.len() {
        if let Some(c) = counts.get_mut(draws.position()) {
            *c += 1;
        }
    }
}

/// AUC without groups: the draws are positions in the idea's sorted order (a bijection of the rows, so
/// the same distribution), which makes the idea's pass sequential. The control's rows in that order:
#[derive(Debug)]
enum ControlOrder {
    /// For each position of the control's sort order, the idea's position of its row: the control's
    /// pass gathers the counts through this permutation.
    Gather(Vec<u32>),
    /// For each idea position, 2 × its row's tie group in the control's order + its label: one
    /// sequential pass adds each count to its group's (negatives, positives) sums, which stay in cache
    /// with few groups; the AUC is then taken over the groups in order, as the gather's.
    Scatter { slot: Vec<u32>, groups: usize },
}

impl ControlOrder {
    fn of(idea: &Prepared, control: &Prepared, n: usize) -> Option<ControlOrder> {
        let at = ControlOrder::gather(idea, control, n)?;
        let groups = control.tie_ends().len();
        if groups > SCATTER_MAX_GROUPS {
            return Some(ControlOrder::Gather(at));
        }
        let mut slot = vec![0u32; n];
        let (mut g, mut ends) = (0u32, control.tie_ends().iter().peekable());
        for (k, (&p, &positive)) in at.iter().zip(control.sorted_labels()).enumerate() {
            while ends.next_if(|&&end| end as usize <= k).is_some() {
                g += 1;
            }
            if let Some(s) = slot.get_mut(p as usize) {
                *s = 2 * g + u32::from(positive);
            }
        }
        Some(ControlOrder::Scatter { slot, groups })
    }

    /// The gather permutation: for each position of the control's sort order, the idea's position of
    /// its row. None unless both models are AUC.
    fn gather(idea: &Prepared, control: &Prepared, n: usize) -> Option<Vec<u32>> {
        let (io, co) = (idea.sorted_order()?, control.sorted_order()?);
        let mut pos_of_row = vec![0u32; n];
        for (k, &row) in io.iter().enumerate() {
            if let Some(p) = pos_of_row.get_mut(row as usize) {
                *p = k as u32;
            }
        }
        Some(
            co.iter()
                .map(|&row| pos_of_row.get(row as usize).copied().unwrap_or(0))
                .collect(),
        )
    }

    /// The control's AUC for counts in the idea's sorted order (one byte a row, or u32 when a count
    /// passed 255).
    fn auc<T: Copy + Into<u32>>(
        &self,
        control: &Prepared,
        counts: &[T],
        sums: &mut Vec<u32>,
    ) -> Option<f64> {
        match self {
            ControlOrder::Gather(at) => control.auc_with(|k| {
                at.get(k)
                    .and_then(|&p| counts.get(p as usize))
                    .map_or(0, |&c| c.into())
            }),
            ControlOrder::Scatter { slot, groups } => {
                sums.clear();
                sums.resize(2 * groups, 0);
                for (&s, &c) in slot.iter().zip(counts) {
                    if let Some(sum) = sums.get_mut(s as usize) {
                        *sum += c.into();
                    }
                }
                auc_of_groups(sums.chunks_exact(2).map(|pair| match pair {
                    [negatives, positives] => (u64::from(*positives), u64::from(*negatives)),
                    _ => (0, 0),
                }))
            }
        }
    }
}

/// What every resample reads: the two models, the groups, and for AUC without groups the control's
/// rows in the idea's sorted order.
struct Resampler<'a> {
    idea: &'a Prepared,
    control: &'a Prepared,
    group_of: Option<(&'a [u32], usize)>,
    auc_order: Option<ControlOrder>,
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
    /// The control's per-group sums of the scatter path.
    sums: Vec<u32>,
}

impl<'a> Resampler<'a> {
    fn new(
        idea: &'a Prepared,
        control: &'a Prepared,
        group_of: Option<(&'a [u32], usize)>,
        n: usize,
        seed: u64,
    ) -> Resampler<'a> {
        Resampler {
            idea,
            control,
            group_of,
            auc_order: group_of
                .is_none()
                .then(|| ControlOrder::of(idea, control, n))
                .flatten(),
            n,
            seed,
            sign: idea.metric().sign(),
        }
    }

    /// The AUC gain of resample `r` from its one-byte counts (`drawn`: they stayed within a byte), else
    /// from its draws made again into u32.
    fn auc_gain(
        &self,
        order: &ControlOrder,
        r: usize,
        small: &[u8],
        drawn: bool,
        scratch: &mut Scratch,
    ) -> Option<f64> {
        if drawn {
            let a = self.idea.auc_sorted_counts(small)?;
            let b = order.auc(self.control, small, &mut scratch.sums)?;
            return Some(self.sign * (a - b));
        }
        // a count passed 255: the same draws again, into u32
        let counts = &mut scratch.counts;
        draw_counts(&mut Draws::new(self.seed, r, counts.len()), counts);
        let a = self
            .idea
            .auc_with(|k| counts.get(k).copied().unwrap_or(0))?;
        let b = order.auc(self.control, counts, &mut scratch.sums)?;
        Some(self.sign * (a - b))
    }

    /// The signed gain of resample `r`; None when the metric is undefined on it.
    fn gain(&self, r: usize, scratch: &mut Scratch) -> Option<f64> {
        if let Some(order) = &self.auc_order {
            let mut small = std::mem::take(&mut scratch.small);
            small.resize(self.n, 0);
            let drawn = draw_counts_u8(&mut Draws::new(self.seed, r, self.n), &mut small);
            let gain = self.auc_gain(order, r, &small, drawn, scratch);
            scratch.small = small;
            return gain;
        }
        match self.group_of {
            Some((groups, n_groups)) if n_groups > 0 => {
                let counts = &mut scratch.group_counts;
                draw_counts(&mut Draws::new(self.seed, r, counts.len()), counts);
                for (c, g) in scratch.counts.iter_mut().zip(groups) {
                    *c = scratch.group_counts.get(*g as usize).copied().unwrap_or(0);
                }
            }
            _ => {
                let counts = &mut scratch.counts;
                draw_counts(&mut Draws::new(self.seed, r, counts.len()), counts);
            }
        }
        resample_gain(self.idea, self.control, &scratch.counts)
    }

    /// Resamples `lo..hi`, in order.
    fn range(&self, lo: usize, hi: usize) -> Vec<Option<f64>> {
        let mut scratch = Scratch {
            counts: vec![0u32; self.n],
            group_counts: vec![0u32; self.group_of.map_or(0, |(_, g)| g)],
            ..Scratch::default()
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
            assert!(draw_counts_u8(&mut Draws::new(9, r, 200), &mut small));
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

    /// The control's two paths (scatter through its tie groups, gather through its sort order) give the
    /// same AUC, bit for bit, for one-byte and u32 counts.
    #[test]
    fn scatter_and_gather_agree_bit_for_bit() {
        let n = 5000;
        let y: Vec<f64> = (0..n).map(|i| f64::from(u8::from(i % 7 < 2))).collect();
        let a: Vec<f64> = (0..n).map(|i| ((i * 7919) % 1009) as f64).collect();
        let c: Vec<f64> = (0..n)
            .map(|i| ((i * 104_729) % 613) as f64 / 613.0)
            .collect();
        let idea = Prepared::new(Metric::Auc, &y, &a).unwrap();
        let control = Prepared::new(Metric::Auc, &y, &c).unwrap();
        let scatter = ControlOrder::of(&idea, &control, n).unwrap();
        assert!(matches!(scatter, ControlOrder::Scatter { groups: 613, .. }));
        let gather = ControlOrder::Gather(ControlOrder::gather(&idea, &control, n).unwrap());
        let mut sums = Vec::new();
        for r in 0..20 {
            let mut small = vec![0u8; n];
            assert!(draw_counts_u8(&mut Draws::new(3, r, n), &mut small));
            let (s, g) = (
                scatter.auc(&control, &small, &mut sums).unwrap(),
                gather.auc(&control, &small, &mut sums).unwrap(),
            );
            assert_eq!(s.to_bits(), g.to_bits(), "resample {r}");
            let wide: Vec<u32> = small.iter().map(|&c| u32::from(c)).collect();
            assert_eq!(
                scatter.auc(&control, &wide, &mut sums).unwrap().to_bits(),
                s.to_bits()
            );
            // the idea's byte path equals its generic one
            let generic = idea.auc_with(|k| u32::from(small[k])).unwrap();
            assert_eq!(
                idea.auc_sorted_counts(&small).unwrap().to_bits(),
                generic.to_bits()
            );
        }
    }

    /// The draws are rand's `random_range` on each 32-bit half of the generator's outputs, low half
    /// first: with n below 2^16 no draw needs a second sample, so they are the halves' ranges in order.
    #[test]
    fn draws_use_both_halves_of_each_output() {
        let n = 1000u32;
        let mut draws = Draws::new(5, 2, n as usize);
        let mut rng = Draws::new(5, 2, n as usize).rng;
        for _ in 0..500 {
            let v = rng.next_u64();
            for half in [v as u32, (v >> 32) as u32] {
                assert_eq!(
                    draws.position() as u64,
                    (u64::from(half) * u64::from(n)) >> 32
                );
            }
        }
        // near 2^32 most draws need a second sample: still in range, and spread over it
        let n = u32::MAX - 2;
        let mut draws = Draws::new(1, 0, n as usize);
        let positions: Vec<usize> = (0..4000).map(|_| draws.position()).collect();
        assert!(positions.iter().all(|&p| p < n as usize));
        let upper = positions.iter().filter(|&&p| p >= n as usize / 2).count();
        assert!((1800..2200).contains(&upper), "{upper}");
    }

    /// A count that passed a byte is found from the sum of the counts.
    #[test]
    fn byte_counts_tell_a_wrap_from_their_sum() {
        let mut counts = vec![0u8; 300];
        for drawn in 1..=300u32 {
            if let Some(c) = counts.first_mut() {
                *c = c.wrapping_add(1);
            }
            assert_eq!(
                stayed_within_a_byte(&counts, drawn as usize),
                drawn <= 255,
                "{drawn}"
            );
        }
        let mut counts = vec![0u8; 300];
        assert!(draw_counts_u8(&mut Draws::new(0, 0, 300), &mut counts));
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
