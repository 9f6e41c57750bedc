//! Time axes in a unit a reader can take in: seconds of simulated time become minutes,
//! hours or days depending on the span shown.

use mauisim_core::Time;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    Seconds,
    Minutes,
    Hours,
    Days,
}

impl TimeUnit {
    /// The largest unit that still gives more than 3 of them over `span` seconds.
    pub fn for_span(span: Time) -> TimeUnit {
        match span {
            s if s > 3 * 86_400 => TimeUnit::Days,
            s if s > 3 * 3_600 => TimeUnit::Hours,
            s if s > 3 * 60 => TimeUnit::Minutes,
            _ => TimeUnit::Seconds,
        }
    }

    pub fn seconds(self) -> f64 {
        match self {
            TimeUnit::Seconds => 1.0,
            TimeUnit::Minutes => 60.0,
            TimeUnit::Hours => 3_600.0,
            TimeUnit::Days => 86_400.0,
        }
    }

    pub fn of(self, t: Time) -> f64 {
        t as f64 / self.seconds()
    }

    pub fn name(self) -> &'static str {
        match self {
            TimeUnit::Seconds => "seconds",
            TimeUnit::Minutes => "minutes",
            TimeUnit::Hours => "hours",
            TimeUnit::Days => "days",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_follow_the_span() {
        assert_eq!(TimeUnit::for_span(180), TimeUnit::Seconds);
        assert_eq!(TimeUnit::for_span(181), TimeUnit::Minutes);
        assert_eq!(TimeUnit::for_span(4 * 3_600), TimeUnit::Hours);
        assert_eq!(TimeUnit::for_span(300 * 86_400), TimeUnit::Days);
        assert_eq!(TimeUnit::Hours.of(5_400), 1.5);
    }
}
