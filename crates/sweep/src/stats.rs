//! Means and 95 % confidence intervals across seeds (Student's t).

/// The two-sided 95 % quantile of Student's t for `df` degrees of freedom (NaN for none).
pub fn t95(df: usize) -> f64 {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    match StudentsT::new(0.0, 1.0, df as f64) {
        Ok(t) if df > 0 => t.inverse_cdf(0.975),
        _ => f64::NAN,
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
        // Printed tables (three decimals): t(1) = 12.706, t(9) = 2.262, t(30) = 2.042, …
        let printed = [
            (1, 12.706),
            (2, 4.303),
            (9, 2.262),
            (30, 2.042),
            (40, 2.021),
            (60, 2.000),
            (120, 1.980),
            (1000, 1.962),
        ];
        for (df, t) in printed {
            assert!((t95(df) - t).abs() < 0.0005, "t95({df}) = {}", t95(df));
        }
        assert!(t95(0).is_nan());
        // Closed forms: t(1) = tan(π(p − ½)), t(2) = (2p − 1)·√(2 / (4p(1 − p))), p = 0.975.
        assert!((t95(1) - (0.475 * std::f64::consts::PI).tan()).abs() < 1e-9);
        assert!((t95(2) - 0.95 * (2.0f64 / (4.0 * 0.975 * 0.025)).sqrt()).abs() < 1e-9);
    }

    #[test]
    fn interval_of_a_small_sample_by_hand() {
        // 2, 4, 6: mean 4, s = 2, half-width = 4.303 × 2 / √3.
        let e = estimate(&[2.0, 4.0, 6.0]);
        assert_eq!(e.mean, 4.0);
        assert!((e.ci95.unwrap() - 4.303 * 2.0 / 3f64.sqrt()).abs() < 0.0005);
        assert_eq!(estimate(&[5.0]).ci95, None);
        assert_eq!(estimate(&[5.0, 5.0]).ci95, Some(0.0));
    }
}
