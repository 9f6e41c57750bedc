//! Times and durations as text: one function per style, used by every output.
//!
//! - [`clock`]: `3:00:00`, `-1:00:00`, `11:01:16:40` — Maui's `[DD:]HH:MM:SS`, days shown
//!   from one day on: every instant and duration written as text (summary, inspect,
//!   scenarios, windows, Gantt titles, reports, compare).
//! - [`words`]: `15m`, `4h`, `2d16h`: the short labels of buckets on chart axes.

use mauisim_core::{Time, FOREVER};

/// `3:00:00`, `-1:00:00`, `11:01:16:40`, `0:00:00`; `INFINITY` from [`FOREVER`] on.
pub fn clock(t: Time) -> String {
    if t >= FOREVER {
        return "INFINITY".to_string();
    }
    let sign = if t < 0 { "-" } else { "" };
    let a = t.abs();
    let (h, m, s) = (a / 3600, a / 60 % 60, a % 60);
    if h >= 24 {
        format!("{sign}{}:{:02}:{m:02}:{s:02}", h / 24, h % 24)
    } else {
        format!("{sign}{h}:{m:02}:{s:02}")
    }
}

/// [`clock`] of a number of seconds that need not be whole (an average), rounded.
pub fn clock_of(seconds: f64) -> String {
    clock(seconds.round() as Time)
}

/// `1 job`, `2 jobs`: a count with its noun, plural unless the count is one.
pub fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `15m`, `4h`, `2d16h`: whole days, hours and minutes, the zero ones left out.
pub fn words(seconds: Time) -> String {
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
    fn each_style_reads_as_documented() {
        assert_eq!(clock(3 * 3600), "3:00:00");
        assert_eq!(clock(-3600), "-1:00:00");
        assert_eq!(clock(955_000), "11:01:16:40");
        assert_eq!(clock(86_399), "23:59:59");
        assert_eq!(clock(86_400), "1:00:00:00");
        assert_eq!(clock(-90_000), "-1:01:00:00");
        assert_eq!(clock(FOREVER), "INFINITY");
        assert_eq!(clock_of(59.5), "0:01:00");
        assert_eq!(words(900), "15m");
        assert_eq!(words(3_600), "1h");
        assert_eq!(words(64 * 3_600), "2d16h");
        assert_eq!(words(0), "0m");
    }
}
