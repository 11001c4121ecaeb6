//! The Wilson score interval (95%, *without* continuity correction), `rule-learning.md` §4.1.
//!
//! Why Wilson: promotion is gated on the interval's **lower** bound, not on the point
//! estimate, so a rule seen 2/2 times (point precision 1.0) is not treated like one seen
//! 20/20. The interval is undefined for n = 0: callers get `None` and report `null`.

/// z for a two-sided 95% interval.
pub const Z95: f64 = 1.959964;

/// The 95% Wilson interval of k successes out of n, clamped to [0, 1]; `None` when n = 0
/// or k > n.
pub fn wilson(k: u64, n: u64) -> Option<(f64, f64)> {
    if n == 0 || k > n {
        return None;
    }
    let n_f = n as f64;
    let p = k as f64 / n_f;
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n_f;
    let centre = (p + z2 / (2.0 * n_f)) / denom;
    let half = Z95 * (p * (1.0 - p) / n_f + z2 / (4.0 * n_f * n_f)).sqrt() / denom;
    Some(((centre - half).max(0.0), (centre + half).min(1.0)))
}

/// The smallest k such that k clean successes out of k clear `bound` with their Wilson
/// lower bound: the `min_sample` a promotion bound implies (4 for 0.5, 9 for 0.7).
/// `None` when no sample up to 10,000 reaches it (a bound of 1.0 or more).
pub fn min_sample_for(bound: f64) -> Option<u64> {
    if bound <= 0.0 {
        return Some(1);
    }
    (1..=10_000u64).find(|&k| wilson(k, k).is_some_and(|(lo, _)| lo >= bound))
}

/// Rounds to 3 decimals, for reports.
/// A rate for a report: three decimals, or `null` when unmeasured (never `0`).
pub fn fmt3(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.3}")).unwrap_or_else(|| "null".into())
}

pub fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(k: u64, n: u64) -> (f64, f64) {
        let (a, b) = wilson(k, n).unwrap();
        (round3(a), round3(b))
    }

    #[test]
    fn known_vectors() {
        assert_eq!(r(23, 23), (0.857, 1.000));
        assert_eq!(r(49, 60), (0.701, 0.894));
        assert_eq!(r(50, 60), (0.720, 0.907));
        assert_eq!(r(25, 50), (0.366, 0.634));
        assert_eq!(r(26, 50), (0.385, 0.652));
        assert_eq!(r(10, 10), (0.722, 1.000));
        assert_eq!(r(5, 5), (0.566, 1.000));
        assert_eq!(r(3, 3), (0.439, 1.000));
        assert_eq!(r(0, 9), (0.000, 0.299));
    }

    #[test]
    fn lower_bounds_for_clean_samples() {
        let lows: Vec<f64> = (1..=10).map(|k| r(k, k).0).collect();
        assert_eq!(
            lows,
            vec![0.207, 0.342, 0.439, 0.510, 0.566, 0.610, 0.646, 0.676, 0.701, 0.722]
        );
        assert_eq!(min_sample_for(0.5), Some(4));
        assert_eq!(min_sample_for(0.7), Some(9));
        assert_eq!(min_sample_for(1.0), None);
    }

    #[test]
    fn undefined_without_sample() {
        assert_eq!(wilson(0, 0), None);
        assert_eq!(wilson(3, 2), None);
    }
}
