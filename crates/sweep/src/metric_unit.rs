//! How a metric of `summary.json` reads: its unit, and its values and changes as text. One
//! table for every place that prints metrics (compare, the sweep's table, the reports).

use mauisim_sim::units::clock_of;

/// A value of a `summary.json` metric as text in its unit: `1:53:24` for a time,
/// `68.56 %` for a share, the number otherwise.
pub fn show_metric(metric: &str, value: f64) -> String {
    match MetricUnit::of(metric) {
        MetricUnit::Share => format!("{} %", MetricUnit::Share.show(value)),
        unit => unit.show(value),
    }
}

/// How a metric of `summary.json` reads: a time, a share, or a plain number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MetricUnit {
    Time,
    Share,
    Number,
}

impl MetricUnit {
    pub fn of(metric: &str) -> MetricUnit {
        let time = ["wait", "response", "makespan", "delay"];
        if time.iter().any(|t| metric.contains(t)) {
            MetricUnit::Time
        } else if metric == "utilization"
            || metric.starts_with("offered_load")
            || metric.ends_with("_fraction")
            || metric.contains("accuracy")
        {
            MetricUnit::Share
        } else {
            MetricUnit::Number
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            MetricUnit::Time => "[D:]H:M:S",
            MetricUnit::Share => "%",
            MetricUnit::Number => "",
        }
    }

    pub fn show(self, x: f64) -> String {
        match self {
            MetricUnit::Time => clock_of(x),
            MetricUnit::Share => format!("{:.2}", 100.0 * x),
            MetricUnit::Number => num(x),
        }
    }

    /// A change, with its sign.
    pub fn change(self, x: f64) -> String {
        match self {
            MetricUnit::Time => signed_clock(x),
            MetricUnit::Share => format!("{:+.2}", 100.0 * x),
            MetricUnit::Number if x > 0.0 => format!("+{}", num(x)),
            MetricUnit::Number => num(x),
        }
    }
}

/// `+1:02:03`, `-0:00:05`, `0:00:00`.
pub fn signed_clock(seconds: f64) -> String {
    let rounded = seconds.round();
    if rounded > 0.0 {
        format!("+{}", clock_of(rounded))
    } else {
        clock_of(rounded)
    }
}

/// A plain number: integers as integers, else four decimals.
pub fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        format!("{x:.4}")
    }
}
