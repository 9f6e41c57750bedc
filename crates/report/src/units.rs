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

/// `15m`, `4h`, `2d16h`: a bucket bound in words.
pub fn duration_text(seconds: Time) -> String {
    let (d, h, m) = (seconds / 86_400, seconds / 3_600 % 24, seconds / 60 % 60);
    let mut text = String::new();
    if d > 0 {
        text.push_str(&format!("{d}d"));
    }
    if h > 0 {
        text.push_str(&format!("{h}h"));
    }
    if m > 0 || text.is_empty() {
        text.push_str(&format!("{m}m"));
    }
    text
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

    #[test]
    fn durations_read_as_words() {
        assert_eq!(duration_text(900), "15m");
        assert_eq!(duration_text(3_600), "1h");
        assert_eq!(duration_text(64 * 3_600), "2d16h");
        assert_eq!(duration_text(0), "0m");
    }
}
