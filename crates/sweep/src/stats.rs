//! Means and 95 % confidence intervals across seeds (Student's t).

/// Two-sided 95 % quantiles of Student's t for 1 … 30 degrees of freedom.
const T95: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// The two-sided 95 % t quantile for `df` degrees of freedom: the table up to 30, then
/// interpolated in 1/df between the tabulated 40, 60, 120 and infinity (error < 0.001).
pub fn t95(df: usize) -> f64 {
    match df {
        0 => f64::NAN,
        1..=30 => T95[df - 1],
        _ => {
            let points = [(30.0, 2.042), (40.0, 2.021), (60.0, 2.000), (120.0, 1.980)];
            let x = 1.0 / df as f64;
            for pair in points.windows(2) {
                let ((d0, t0), (d1, t1)) = (pair[0], pair[1]);
                if df as f64 <= d1 {
                    let (x0, x1) = (1.0 / d0, 1.0 / d1);
                    return t1 + (t0 - t1) * (x - x1) / (x0 - x1);
                }
            }
            1.960 + (1.980 - 1.960) * x * 120.0
        }
    }
}

/// Mean and the half-width of its 95 % confidence interval (`None` below two values).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub n: usize,
    pub mean: f64,
    pub ci95: Option<f64>,
}

pub fn estimate(values: &[f64]) -> Estimate {
    let n = values.len();
    if n == 0 {
        return Estimate {
            n,
            mean: f64::NAN,
            ci95: None,
        };
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    let ci95 = (n > 1).then(|| {
        let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        t95(n - 1) * (variance / n as f64).sqrt()
    });
    Estimate { n, mean, ci95 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_the_tables() {
        assert_eq!(t95(1), 12.706);
        assert_eq!(t95(9), 2.262);
        assert!((t95(40) - 2.021).abs() < 1e-12);
        assert!((t95(60) - 2.000).abs() < 1e-12);
        assert!((t95(120) - 1.980).abs() < 1e-12);
        // Published values between the anchors: t(50) = 2.009, t(100) = 1.984, t(1000) = 1.962.
        assert!((t95(50) - 2.009).abs() < 0.001);
        assert!((t95(100) - 1.984).abs() < 0.001);
        assert!((t95(1000) - 1.962).abs() < 0.001);
    }

    #[test]
    fn interval_of_a_small_sample_by_hand() {
        // 2, 4, 6: mean 4, s = 2, half-width = 4.303 × 2 / √3.
        let e = estimate(&[2.0, 4.0, 6.0]);
        assert_eq!(e.mean, 4.0);
        assert!((e.ci95.unwrap() - 4.303 * 2.0 / 3f64.sqrt()).abs() < 1e-12);
        assert_eq!(estimate(&[5.0]).ci95, None);
        assert_eq!(estimate(&[5.0, 5.0]).ci95, Some(0.0));
    }
}
