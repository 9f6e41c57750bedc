//! Calendar dates of trace times, where the trace says when its time 0 was (SWF
//! `UnixStartTime`): the period a run covers, for summaries and reports.

use mauisim_core::Time;
use serde::{Deserialize, Serialize};

/// The simulated period in calendar dates (UTC: the trace's `TimeZone` offset knows no
/// daylight saving time, so local times could be an hour off).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Period {
    /// The first submission measured.
    pub first_submit: String,
    /// The last job's end.
    pub last_end: String,
}

impl Period {
    /// The period from trace time `first_submit` to `last_end` when the trace starts at
    /// `unix_start` (seconds since 1970, UTC); `None` without a start or for a date
    /// outside years 1..9999.
    pub fn of(unix_start: Option<i64>, first_submit: Time, last_end: Time) -> Option<Period> {
        let start = unix_start?;
        Some(Period {
            first_submit: date(start.checked_add(first_submit)?)?,
            last_end: date(start.checked_add(last_end)?)?,
        })
    }

    /// `1996-09-23 12:00:31 – 1997-08-29 08:55:01 UTC`.
    pub fn text(&self) -> String {
        format!("{} – {} UTC", self.first_submit, self.last_end)
    }
}

/// `1996-09-23 12:00:31`, UTC.
pub fn date(unix: i64) -> Option<String> {
    let format = time::macros::format_description!("[year]-[month]-[day] [hour]:[minute]:[second]");
    time::OffsetDateTime::from_unix_timestamp(unix)
        .ok()?
        .format(&format)
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_of_known_epochs() {
        assert_eq!(date(0).unwrap(), "1970-01-01 00:00:00");
        // KTH-SP2's header: UnixStartTime 843480031 is "Mon Sep 23 14:00:31 CEST 1996".
        assert_eq!(date(843_480_031).unwrap(), "1996-09-23 12:00:31");
        // A leap day.
        assert_eq!(date(951_782_400).unwrap(), "2000-02-29 00:00:00");
        assert_eq!(date(i64::MAX), None);
    }

    #[test]
    fn a_period_needs_a_start() {
        assert_eq!(Period::of(None, 0, 10), None);
        let p = Period::of(Some(843_480_031), 0, 86_400).unwrap();
        assert_eq!(p.text(), "1996-09-23 12:00:31 – 1996-09-24 12:00:31 UTC");
    }
}
