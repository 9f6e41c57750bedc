//! Standing reservations (`SRCFG`, guide 7.1.5): nodes kept for a recurring window for
//! the jobs of an access list. Every other job keeps off those nodes for as long as a
//! window it would overlap lasts; a job with access may use them like any free node.
//!
//! Maui keeps a standing reservation's windows only `depth` periods ahead of now (its
//! `DEPTH`), so a window further out does not exist yet: a job may start now and run
//! into it, and the window then takes what is left. [`StandingReservation::reserved_at`]
//! answers which windows exist at an instant.

use crate::cred::{CredId, CredKind, JobCreds};
use crate::Time;

/// The most standing reservations a machine holds (a job's access is a 64-bit mask).
pub const MAX_STANDING: usize = 64;

#[derive(Debug, Clone, PartialEq)]
pub struct StandingReservation {
    pub name: String,
    /// The nodes it holds.
    pub nodes: Vec<u32>,
    /// Processors it holds on each node of `nodes` (RESOURCES=PROCS:n); empty: every
    /// processor of each.
    pub procs: Vec<u64>,
    pub when: Recurrence,
    pub access: StandingAccess,
}

/// Whose jobs may use a standing reservation (Maui's ACL, MACL.c `MACLCheckAccess`): a
/// job with none of `denied`, every credential of `required` (and a short enough run when
/// the time entry is required), and, when the list has entries that are neither, one of
/// them: a credential of `any`, PROCLIMIT or a time entry that is not required. Then it
/// has access when it matched some entry, or when the list denies some (3.3.1 counts a
/// deny entry as inclusive). With no entry at all, no job may (an admin reservation).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StandingAccess {
    /// Per credential kind ([`CredKind::index`]).
    pub any: [Vec<CredId>; 5],
    pub required: [Vec<CredId>; 5],
    pub denied: [Vec<CredId>; 5],
    /// PROCLIMIT: one more entry of `any`, matched by jobs of at most this many processors.
    pub max_procs: Option<u64>,
    /// TIMELIMIT, MAXTIME and SRMAXTIME: matched by a job whose run inside a window lasts
    /// at most this long; one more entry of `any`, or required.
    pub max_time: Option<TimeEntry>,
}

/// A standing reservation's time entry (a duration ACL, `maDuration` with `<=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeEntry {
    pub limit: Time,
    pub required: bool,
    /// For an entry without a name (MAXTIME, SRMAXTIME), where 3.3.1's first pass over
    /// the list stops: whether the entries before it hold one neither required nor
    /// denied, and a denied one; only those count as the list's (MACL.c
    /// `MACLCheckAccess`). `None`: the whole list counts (TIMELIMIT).
    pub seen_before: Option<(bool, bool)>,
}

impl StandingAccess {
    fn is_empty(&self) -> bool {
        let lists = self.any.iter().chain(&self.required);
        lists.chain(&self.denied).all(Vec::is_empty)
            && self.max_procs.is_none()
            && self.max_time.is_none()
    }

    /// Whether a job of `creds` and `procs` processors that runs for `inside` seconds
    /// inside the window being judged may use it (3.3.1 sets the job's duration entry to
    /// that overlap). The machine asks once with the job's whole limit and once with the
    /// time entry's, and judges each window by its overlap only where the answers differ
    /// (`Machine::standing_access`).
    fn allows(&self, creds: &JobCreds, procs: u64, inside: Time) -> bool {
        let has = |lists: &[Vec<CredId>; 5], kind: CredKind| {
            let id = creds.get(kind);
            id != CredId::NONE && lists[kind.index()].contains(&id)
        };
        let kinds = CredKind::ALL.iter();
        if kinds.clone().any(|&k| has(&self.denied, k)) {
            return false;
        }
        let required_met = kinds.clone().all(|&k| {
            let id = creds.get(k);
            self.required[k.index()].iter().all(|&r| r == id)
        });
        let too_long = self
            .max_time
            .is_some_and(|t| t.required && inside > t.limit);
        if !required_met || too_long {
            return false;
        }
        let optional_time = self.max_time.filter(|t| !t.required);
        let (optional_needed, denied_listed) = match self.max_time.and_then(|t| t.seen_before) {
            Some(before) => before,
            None => (
                self.any.iter().any(|l| !l.is_empty())
                    || self.max_procs.is_some()
                    || optional_time.is_some(),
                self.denied.iter().any(|l| !l.is_empty()),
            ),
        };
        let optional_found = kinds.clone().any(|&k| has(&self.any, k))
            || self.max_procs.is_some_and(|m| procs <= m)
            || optional_time.is_some_and(|t| inside <= t.limit);
        if optional_needed && !optional_found {
            return false;
        }
        let required_matched = self.required.iter().any(|l| !l.is_empty())
            || self.max_time.is_some_and(|t| t.required);
        optional_found || required_matched || denied_listed
    }
}

/// When a standing reservation holds its nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recurrence {
    /// One window, there from the start (a scenario's admin reservation).
    Once { start: Time, end: Time },
    /// One window per period: period `k` begins at `origin + k·period`; its window is
    /// `[begin + open, begin + close)` (`close` may pass the period's end), kept only on
    /// the days of `days` for daily periods, and only `depth` periods ahead of now.
    Every {
        period: Time,
        origin: Time,
        open: Time,
        close: Time,
        /// Bit `d` (0 = Sunday): the window exists on periods beginning on weekday `d`.
        days: u8,
        /// Weekday of period 0's beginning (0 = Sunday).
        first_weekday: u8,
        depth: u32,
    },
}

pub const DAY: Time = 86_400;
pub const WEEK: Time = 7 * DAY;
pub const EVERY_DAY: u8 = 0x7f;

impl Recurrence {
    /// A daily or weekly recurrence in local calendar time, where `calendar` is the local
    /// calendar's seconds since 1970-01-01 00:00 at simulated time 0. Weekly periods begin
    /// on Sunday at midnight, daily ones at midnight.
    pub fn calendar(
        period: Time,
        calendar: Time,
        open: Time,
        close: Time,
        days: u8,
        depth: u32,
    ) -> Self {
        // 1970-01-01 was a Thursday; 1970-01-04 a Sunday.
        let epoch_anchor = if period == WEEK { 3 * DAY } else { 0 };
        let origin = epoch_anchor - calendar;
        let first_weekday = if period == WEEK { 0 } else { 4 };
        Recurrence::Every {
            period,
            origin,
            open,
            close,
            days,
            first_weekday,
            depth,
        }
    }
}

impl StandingReservation {
    /// For tests: a window over `[start, end)` once, holding `procs[i]` processors of
    /// `nodes[i]`, open to no job (jobs are given access by their `standing_access` bits).
    #[cfg(test)]
    pub(crate) fn once(
        name: &str,
        nodes: Vec<u32>,
        procs: Vec<u64>,
        start: Time,
        end: Time,
    ) -> Self {
        StandingReservation {
            name: name.into(),
            nodes,
            procs,
            when: Recurrence::Once { start, end },
            access: StandingAccess::default(),
        }
    }

    /// The processors it holds on the `i`-th of its nodes, of that node's `node_procs`:
    /// every one unless RESOURCES=PROCS:n says fewer.
    pub fn procs_held(&self, i: usize, node_procs: u64) -> u64 {
        self.procs.get(i).map_or(node_procs, |&p| p.min(node_procs))
    }

    /// Whether a job of these credentials, processors and walltime may use the
    /// reservation.
    pub fn allows(&self, creds: &JobCreds, procs: u64, walltime: Time) -> bool {
        self.access.allows(creds, procs, walltime)
    }

    /// Whether some job may use it (else it holds its nodes against every job).
    pub fn has_access_list(&self) -> bool {
        !self.access.is_empty()
    }

    /// The window of period `k`, if the reservation holds one then.
    fn window(&self, k: i64) -> Option<(Time, Time)> {
        match self.when {
            Recurrence::Once { start, end } => (k == 0).then_some((start, end)),
            Recurrence::Every {
                period,
                origin,
                open,
                close,
                days,
                first_weekday,
                ..
            } => {
                if period == DAY {
                    let weekday = (i64::from(first_weekday) + k).rem_euclid(7);
                    if days & (1 << weekday) == 0 {
                        return None;
                    }
                }
                let begin = origin + k * period;
                Some((begin + open, begin + close))
            }
        }
    }

    /// The periods whose windows may touch `[from, to)`.
    fn periods(&self, from: Time, to: Time) -> std::ops::RangeInclusive<i64> {
        match self.when {
            Recurrence::Once { .. } => 0..=0,
            Recurrence::Every {
                period,
                origin,
                close,
                ..
            } => {
                let spill = (close - 1).div_euclid(period).max(0);
                let first = (from - origin).div_euclid(period) - spill;
                let last = (to - 1 - origin).div_euclid(period);
                first..=last
            }
        }
    }

    /// The windows that exist at `now` and have not ended: those of the `depth` periods
    /// from the one holding `now` (and one still running from before it).
    pub fn reserved_at(&self, now: Time) -> Vec<(Time, Time)> {
        let horizon = match self.when {
            Recurrence::Once { end, .. } => end,
            Recurrence::Every {
                period,
                origin,
                depth,
                ..
            } => {
                let current = (now - origin).div_euclid(period);
                origin + (current + i64::from(depth.max(1))) * period
            }
        };
        self.windows_between(now, horizon)
            .into_iter()
            .filter(|&(start, end)| end > now && start < horizon.max(now + 1))
            .collect()
    }

    /// Every window overlapping `[from, to)` (for pictures and reports), in time order.
    pub fn windows_between(&self, from: Time, to: Time) -> Vec<(Time, Time)> {
        if to <= from {
            return Vec::new();
        }
        self.periods(from, to)
            .filter_map(|k| self.window(k))
            .filter(|&(start, end)| start < to && from < end && start < end)
            .collect()
    }

    /// After how long its windows repeat: a week for a daily one on some days only, its
    /// period otherwise; 0 for one window.
    pub fn cycle(&self) -> Time {
        match self.when {
            Recurrence::Once { .. } => 0,
            Recurrence::Every { period, days, .. } => {
                if period == DAY && days != EVERY_DAY {
                    WEEK
                } else {
                    period
                }
            }
        }
    }

    /// The first end of a window after `t`.
    pub fn end_after(&self, t: Time) -> Option<Time> {
        match self.when {
            Recurrence::Once { end, .. } => (end > t).then_some(end),
            Recurrence::Every { period, .. } => {
                // Some day of every week holds a window (or none ever does).
                self.windows_between(t, t + 8 * period.max(DAY))
                    .into_iter()
                    .map(|(_, end)| end)
                    .find(|&end| end > t)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn daily(open: Time, close: Time, days: u8, depth: u32) -> StandingReservation {
        StandingReservation {
            name: "day".into(),
            nodes: vec![0],
            procs: Vec::new(),
            // Simulated time 0 is Thursday 1970-01-01 00:00.
            when: Recurrence::calendar(DAY, 0, open, close, days, depth),
            access: StandingAccess::default(),
        }
    }

    const H: Time = 3600;

    #[test]
    fn daily_windows_follow_the_days_of_the_week() {
        // Monday to Friday, 9:00 to 17:00.
        let weekdays = 0b011_1110;
        let sr = daily(9 * H, 17 * H, weekdays, 2);
        // Thursday and Friday, then Monday (Saturday and Sunday skipped).
        let windows = sr.windows_between(0, 5 * DAY);
        assert_eq!(
            windows,
            vec![
                (9 * H, 17 * H),
                (DAY + 9 * H, DAY + 17 * H),
                (4 * DAY + 9 * H, 4 * DAY + 17 * H)
            ]
        );
        // At Thursday 18:00, depth 2 holds Thursday's and Friday's periods: Thursday's
        // window has ended, Friday's is kept.
        assert_eq!(sr.reserved_at(18 * H), vec![(DAY + 9 * H, DAY + 17 * H)]);
        // On Friday at noon: Friday's window (running) and Saturday's (none).
        assert_eq!(
            sr.reserved_at(DAY + 12 * H),
            vec![(DAY + 9 * H, DAY + 17 * H)]
        );
        // On Sunday: Sunday's (none) and Monday's.
        assert_eq!(
            sr.reserved_at(3 * DAY + H),
            vec![(4 * DAY + 9 * H, 4 * DAY + 17 * H)]
        );
        assert_eq!(sr.end_after(17 * H), Some(DAY + 17 * H));
        assert_eq!(sr.end_after(DAY + 17 * H), Some(4 * DAY + 17 * H));
    }

    #[test]
    fn a_window_past_midnight_belongs_to_the_day_it_opens() {
        // 22:00 to 06:00 every day, depth 1.
        let sr = daily(22 * H, 30 * H, EVERY_DAY, 1);
        // At 02:00 on day 1, day 0's window (22:00 → 06:00) is still running, and day 1's
        // is within the depth.
        assert_eq!(
            sr.reserved_at(DAY + 2 * H),
            vec![(22 * H, DAY + 6 * H), (DAY + 22 * H, 2 * DAY + 6 * H)]
        );
    }

    #[test]
    fn weekly_windows_begin_on_sunday_in_local_time() {
        // Local time one hour ahead of the simulated clock; weekly from Saturday 20:00 for
        // 10 hours: Saturday 1970-01-03 20:00 local is 2·DAY + 19·H simulated.
        let sr = StandingReservation {
            name: "week".into(),
            nodes: vec![0],
            procs: Vec::new(),
            when: Recurrence::calendar(WEEK, H, 6 * DAY + 20 * H, 6 * DAY + 30 * H, EVERY_DAY, 1),
            access: StandingAccess::default(),
        };
        assert_eq!(sr.reserved_at(0), vec![(2 * DAY + 19 * H, 3 * DAY + 5 * H)]);
        assert_eq!(
            sr.windows_between(0, 10 * DAY),
            vec![
                (2 * DAY + 19 * H, 3 * DAY + 5 * H),
                (9 * DAY + 19 * H, 10 * DAY + 5 * H)
            ]
        );
    }

    #[test]
    fn access_is_any_list() {
        let mut sr = daily(0, DAY, EVERY_DAY, 1);
        assert!(!sr.has_access_list());
        sr.access.any[CredKind::Class.index()] = vec![CredId(2)];
        sr.access.any[CredKind::User.index()] = vec![CredId(7)];
        let mut creds = JobCreds::default();
        assert!(!sr.allows(&creds, 1, 60));
        creds.set(CredKind::Class, CredId(2));
        assert!(sr.allows(&creds, 1, 60));
        creds.set(CredKind::Class, CredId(1));
        creds.set(CredKind::User, CredId(7));
        assert!(sr.allows(&creds, 1, 60));
        assert!(sr.has_access_list());
        // A denied group shuts out even a listed user.
        sr.access.denied[CredKind::Group.index()] = vec![CredId(3)];
        creds.set(CredKind::Group, CredId(3));
        assert!(!sr.allows(&creds, 1, 60));
        creds.set(CredKind::Group, CredId(4));
        assert!(sr.allows(&creds, 1, 60));
        // A required QOS must be the job's, whatever else matches.
        sr.access.required[CredKind::Qos.index()] = vec![CredId(5)];
        assert!(!sr.allows(&creds, 1, 60));
        creds.set(CredKind::Qos, CredId(5));
        assert!(sr.allows(&creds, 1, 60));
        // Required entries alone give access to the jobs that have them all.
        sr.access.any = Default::default();
        assert!(sr.allows(&creds, 1, 60));
    }

    /// 3.3.1's `MACLCheckAccess`: a required entry does not stand in for the others (a
    /// job needs one of them too), a list of deny entries only lets in everyone else,
    /// and a time entry is one more entry, or a required one.
    #[test]
    fn access_follows_maui_s_acl_rule() {
        let mut sr = daily(0, DAY, EVERY_DAY, 1);
        let mut creds = JobCreds::default();
        creds.set(CredKind::User, CredId(7));
        creds.set(CredKind::Qos, CredId(5));
        sr.access.required[CredKind::Qos.index()] = vec![CredId(5)];
        sr.access.any[CredKind::User.index()] = vec![CredId(8)];
        assert!(!sr.allows(&creds, 1, 60), "the required QOS alone");
        creds.set(CredKind::User, CredId(8));
        assert!(sr.allows(&creds, 1, 60));
        let mut sr = daily(0, DAY, EVERY_DAY, 1);
        sr.access.denied[CredKind::Group.index()] = vec![CredId(3)];
        assert!(sr.allows(&creds, 1, 60), "deny entries only");
        creds.set(CredKind::Group, CredId(3));
        assert!(!sr.allows(&creds, 1, 60));
        // TIMELIMIT: one more entry.
        let mut sr = daily(0, DAY, EVERY_DAY, 1);
        sr.access.any[CredKind::User.index()] = vec![CredId(9)];
        sr.access.max_time = Some(TimeEntry {
            limit: 3600,
            required: false,
            seen_before: None,
        });
        assert!(sr.allows(&creds, 1, 3600));
        assert!(!sr.allows(&creds, 1, 3601));
        creds.set(CredKind::User, CredId(9));
        assert!(
            sr.allows(&creds, 1, 7200),
            "the listed user, whatever the time"
        );
        // MAXTIME=1:00:00* after the user list: required, beside it.
        sr.access.max_time = Some(TimeEntry {
            limit: 3600,
            required: true,
            seen_before: Some((true, false)),
        });
        assert!(!sr.allows(&creds, 1, 7200));
        assert!(sr.allows(&creds, 1, 60));
        creds.set(CredKind::User, CredId(8));
        assert!(!sr.allows(&creds, 1, 60), "short, but not a listed user");
        // SRMAXTIME, read before the SRCFG line's user list: 3.3.1's first pass stops
        // at it, so the list is not needed; every short job.
        sr.access.max_time = Some(TimeEntry {
            limit: 3600,
            required: true,
            seen_before: Some((false, false)),
        });
        assert!(sr.allows(&creds, 1, 60));
        assert!(!sr.allows(&creds, 1, 3601));
        // A required time entry alone: every short job.
        sr.access.any = Default::default();
        assert!(sr.allows(&creds, 1, 60));
        assert!(!sr.allows(&creds, 1, 3601));
    }
}
