//! The availability profile: free processors as a step function of time.
//!
//! Every running job occupies its processors over `[start, start + WCL)` and every
//! reservation over its planned interval, so "can J start at t?" is a range-minimum
//! question over the profile. The profile is a sorted vector of breakpoints; segment `i`
//! covers `[slots[i].time, slots[i+1].time)` and the last segment extends to infinity.
//! Breakpoints before `now` are folded away by [`Profile::advance`], so its length stays
//! close to the number of distinct planned end times in the future.

use crate::Time;

/// A time far enough in the future to stand for "no known end".
pub const FOREVER: Time = i64::MAX / 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Slot {
    time: Time,
    free: i64,
}

/// A backfill window: `procs` processors free from now for `duration` seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub procs: i64,
    /// Seconds; [`FOREVER`] when unbounded.
    pub duration: Time,
}

/// Free processors over time. Complexity notes are per call, `n` = breakpoints.
#[derive(Debug, Clone)]
pub struct Profile {
    total: i64,
    slots: Vec<Slot>,
    /// Changes to `slots` so far: what `minima` is valid for.
    version: u64,
    /// For [`Profile::fits_from`]: the least free processors from one instant on.
    minima: std::cell::RefCell<Minima>,
}

/// The least free processors from `start` on, as a staircase: `steps[k] = (t, least)`
/// says that from `t` on the running minimum is `least`, each step lower than the one
/// before. Most profiles have many breakpoints but few falls (free processors only fall
/// where a reservation begins), so a question is a walk over a handful of steps. Built
/// lazily: only the slots before `scanned` have been looked at.
#[derive(Debug, Clone, Default)]
struct Minima {
    version: u64,
    start: Time,
    scanned: usize,
    steps: Vec<(Time, i64)>,
}

impl Profile {
    /// A machine with `total` processors, all free from `origin` on.
    pub(crate) fn new(total: u64, origin: Time) -> Self {
        let total = total as i64;
        Profile {
            total,
            slots: vec![Slot {
                time: origin,
                free: total,
            }],
            version: 0,
            minima: std::cell::RefCell::new(Minima {
                version: u64::MAX,
                ..Minima::default()
            }),
        }
    }

    pub(crate) fn total(&self) -> i64 {
        self.total
    }

    /// Drops breakpoints before `now`; the segment containing `now` then starts at `now`.
    /// O(k) for k dropped breakpoints.
    pub(crate) fn advance(&mut self, now: Time) {
        self.version += 1;
        let first_after = self.slots.partition_point(|s| s.time <= now);
        if first_after > 1 {
            self.slots.drain(..first_after - 1);
        }
        if self.slots[0].time < now {
            self.slots[0].time = now;
        }
    }

    /// Index of the segment containing `t` (t must be ≥ the first breakpoint). O(log n).
    #[inline]
    fn segment(&self, t: Time) -> usize {
        // Most queries are about `now`, which `advance` made the first breakpoint.
        if self.slots.len() == 1 || (self.slots[0].time <= t && t < self.slots[1].time) {
            return 0;
        }
        self.slots
            .partition_point(|s| s.time <= t)
            .saturating_sub(1)
    }

    /// Free processors at instant `t`. O(log n).
    #[inline]
    pub(crate) fn free_at(&self, t: Time) -> i64 {
        self.slots[self.segment(t)].free
    }

    /// Ensures a breakpoint at `t` and returns its index. O(n) worst case (insertion).
    fn split(&mut self, t: Time) -> usize {
        let i = self.segment(t);
        if self.slots[i].time == t {
            return i;
        }
        if t < self.slots[i].time {
            // Before the first breakpoint: only reachable through misuse; extend to keep going.
            self.slots.insert(
                0,
                Slot {
                    time: t,
                    free: self.total,
                },
            );
            return 0;
        }
        let free = self.slots[i].free;
        self.slots.insert(i + 1, Slot { time: t, free });
        i + 1
    }

    /// Adds `delta` free processors over `[start, end)`. O(n).
    fn add(&mut self, start: Time, end: Time, delta: i64) {
        if start >= end || delta == 0 {
            return;
        }
        self.version += 1;
        let first = self.split(start);
        let last = if end >= FOREVER {
            self.slots.len()
        } else {
            self.split(end)
        };
        for slot in &mut self.slots[first..last] {
            slot.free += delta;
        }
        self.merge_at(last);
        self.merge_at(first);
    }

    /// Removes the breakpoint at `i` if it no longer changes the free count.
    fn merge_at(&mut self, i: usize) {
        if i > 0 && i < self.slots.len() && self.slots[i].free == self.slots[i - 1].free {
            self.slots.remove(i);
        }
    }

    /// Marks `procs` processors busy over `[start, end)`.
    pub(crate) fn occupy(&mut self, start: Time, end: Time, procs: u64) {
        self.add(start, end, -(procs as i64));
    }

    /// Marks `procs` processors free again over `[start, end)` (a job ended early, a
    /// reservation was dropped).
    pub(crate) fn release(&mut self, start: Time, end: Time, procs: u64) {
        self.add(start, end, procs as i64);
    }

    /// Whether `procs` processors are free during the whole of `[start, start + duration)`.
    /// O(log n + segments in the interval).
    #[inline]
    pub(crate) fn fits(&self, start: Time, duration: Time, procs: u64) -> bool {
        let need = procs as i64;
        let end = start.saturating_add(duration.max(1));
        let mut i = self.segment(start);
        while i < self.slots.len() && self.slots[i].time < end {
            if self.slots[i].free < need {
                return false;
            }
            i += 1;
        }
        true
    }

    /// [`Profile::fits`] for many questions from one instant (a backfill scan asks once
    /// per candidate, and most do not fit): the least free processors from `start` on are
    /// kept as a staircase of their falls until the profile changes, so that each question
    /// looks at a few falls instead of the slots up to its end.
    pub(crate) fn fits_from(&self, start: Time, duration: Time, procs: u64) -> bool {
        let need = procs as i64;
        if self.free_at(start) < need {
            // Most questions of a long queue on a full machine end here.
            return false;
        }
        let end = start.saturating_add(duration.max(1));
        let mut m = self.minima_from(start);
        self.extend_minima(&mut m, |_, slot| slot.time < end);
        // The first fall below `need`, if any, must come at or after the end.
        let falls = m.steps.partition_point(|&(_, least)| least >= need);
        m.steps.get(falls).is_none_or(|&(t, _)| t >= end)
    }

    /// The first instant after `start` at which fewer processors are free than at
    /// `start`, with how many are free then (`None`: never fewer). With the processors
    /// free at `start`, a bound on every [`Self::fits_from`] answer: a job fits only if it
    /// is no wider than those, and either ends by that instant or is no wider than the
    /// processors free from it.
    pub(crate) fn first_fall(&self, start: Time) -> Option<(Time, i64)> {
        let mut m = self.minima_from(start);
        self.extend_minima(&mut m, |m, _| m.steps.len() < 2);
        m.steps.get(1).copied()
    }

    /// The staircase of the least free processors from `start` on, begun anew where the
    /// profile or the instant changed since it was last extended.
    fn minima_from(&self, start: Time) -> std::cell::RefMut<'_, Minima> {
        let mut m = self.minima.borrow_mut();
        if (m.version, m.start) != (self.version, start) {
            let first = self.segment(start);
            m.version = self.version;
            m.start = start;
            m.scanned = first + 1;
            m.steps.clear();
            m.steps.push((start, self.slots[first].free));
        }
        m
    }

    /// Extends the staircase over the slots while `more` says so.
    fn extend_minima(&self, m: &mut Minima, more: impl Fn(&Minima, &Slot) -> bool) {
        while m.scanned < self.slots.len() && more(m, &self.slots[m.scanned]) {
            let slot = self.slots[m.scanned];
            if slot.free < m.steps.last().expect("the first step").1 {
                m.steps.push((slot.time, slot.free));
            }
            m.scanned += 1;
        }
    }

    /// The earliest `t >= after` at which `procs` processors are free during
    /// `[t, t + duration)`, or `None` if the machine is too small. O(n).
    pub(crate) fn earliest_start(&self, after: Time, duration: Time, procs: u64) -> Option<Time> {
        let need = procs as i64;
        if need > self.total {
            return None;
        }
        let duration = duration.max(1);
        let mut i = self.segment(after);
        let mut candidate = after;
        loop {
            let end = candidate.saturating_add(duration);
            let mut j = i;
            let mut blocked_at = None;
            while j < self.slots.len() && self.slots[j].time < end {
                if self.slots[j].free < need {
                    blocked_at = Some(j);
                }
                j += 1;
                if blocked_at.is_some() {
                    break;
                }
            }
            match blocked_at {
                None => return Some(candidate),
                Some(b) => {
                    // The window must start after the blocking segment.
                    if b + 1 >= self.slots.len() {
                        return None;
                    }
                    i = b + 1;
                    candidate = self.slots[i].time;
                }
            }
        }
    }

    /// The backfill window (MAUI-SEMANTICS §4.4) for jobs longer than `shorter` seconds
    /// starting at `now` (the first breakpoint): the processors free during all of
    /// `[now, now + shorter]`, and how long they stay free (`FOREVER` when nothing later
    /// takes them). `None` when no processor is free that long.
    pub(crate) fn window_after(&self, now: Time, shorter: Time) -> Option<Window> {
        let horizon = now.saturating_add(shorter);
        let mut i = self.segment(now);
        let mut procs = self.slots[i].free;
        while i + 1 < self.slots.len() && self.slots[i + 1].time <= horizon {
            i += 1;
            procs = procs.min(self.slots[i].free);
        }
        if procs <= 0 {
            return None;
        }
        let ends = self.slots[i + 1..]
            .iter()
            .find(|s| s.free < procs)
            .map_or(FOREVER, |s| s.time - now);
        Some(Window {
            procs,
            duration: ends,
        })
    }

    /// Every backfill window at `now`, widest (and shortest) first; they overlap, each
    /// narrower one lasting longer (guide 8.2.2).
    #[cfg(test)]
    pub(crate) fn windows(&self, now: Time) -> Vec<Window> {
        ladder(|shorter| self.window_after(now, shorter))
    }

    /// The breakpoints as `(time, free)` pairs, for inspection and tests.
    pub(crate) fn steps(&self) -> impl Iterator<Item = (Time, i64)> + '_ {
        self.slots.iter().map(|s| (s.time, s.free))
    }
}

/// Every window from `window_after(shorter)`, starting with `shorter` = 0 and going on
/// with each window's duration until the unbounded one.
pub(crate) fn ladder(mut window_after: impl FnMut(Time) -> Option<Window>) -> Vec<Window> {
    let mut all = Vec::new();
    let mut shorter = 0;
    while let Some(w) = window_after(shorter) {
        all.push(w);
        if w.duration >= FOREVER {
            break;
        }
        shorter = w.duration;
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(p: &Profile) -> Vec<(Time, i64)> {
        p.steps().collect()
    }

    #[test]
    fn occupy_and_release_restore_a_flat_profile() {
        let mut p = Profile::new(10, 0);
        p.occupy(0, 100, 4);
        p.occupy(50, 200, 3);
        assert_eq!(steps(&p), vec![(0, 6), (50, 3), (100, 7), (200, 10)]);
        p.release(50, 200, 3);
        p.release(0, 100, 4);
        assert_eq!(steps(&p), vec![(0, 10)]);
    }

    #[test]
    fn advance_folds_the_past() {
        let mut p = Profile::new(10, 0);
        p.occupy(0, 100, 4);
        p.occupy(0, 300, 2);
        p.advance(150);
        assert_eq!(steps(&p), vec![(150, 8), (300, 10)]);
        assert_eq!(p.free_at(150), 8);
        assert_eq!(p.free_at(299), 8);
        assert_eq!(p.free_at(300), 10);
    }

    #[test]
    fn fits_checks_the_whole_interval_and_treats_the_end_as_open() {
        let mut p = Profile::new(10, 0);
        p.occupy(100, 200, 8); // a reservation
        assert!(
            p.fits(0, 100, 10),
            "ends exactly when the reservation starts"
        );
        assert!(!p.fits(0, 101, 10));
        assert!(p.fits(0, 1000, 2));
        assert!(!p.fits(0, 1000, 3));
    }

    proptest::proptest! {
        /// The kept staircase of falls answers as the walk over the slots does, from one
        /// instant and several, with the profile changing (and advancing) in between.
        #[test]
        fn fits_from_answers_as_fits(
            ops in proptest::collection::vec(
                (0u8..4, 0i64..500, 1i64..300, 0u64..12),
                1..60,
            ),
        ) {
            let mut p = Profile::new(10, 0);
            let mut now = 0;
            for (op, a, b, procs) in ops {
                match op {
                    0 => p.occupy(now + a, now + a + b, procs.min(10)),
                    1 => {
                        now += a / 10;
                        p.advance(now);
                    }
                    _ => {
                        let start = now + if op == 2 { 0 } else { a / 5 };
                        proptest::prop_assert_eq!(
                            p.fits_from(start, b, procs),
                            p.fits(start, b, procs),
                            "start {} duration {} procs {}", start, b, procs
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn earliest_start_skips_past_blocking_segments() {
        let mut p = Profile::new(10, 0);
        p.occupy(0, 100, 6); // running until 100
        p.occupy(0, 50, 3); // running until 50
        p.occupy(120, 180, 9); // reservation
        assert_eq!(p.earliest_start(0, 10, 1), Some(0));
        assert_eq!(p.earliest_start(0, 10, 4), Some(50));
        assert_eq!(
            p.earliest_start(0, 100, 4),
            Some(180),
            "50..150 collides with the reservation"
        );
        assert_eq!(p.earliest_start(0, 20, 5), Some(100));
        assert_eq!(p.earliest_start(0, 21, 5), Some(180));
        assert_eq!(p.earliest_start(0, 1, 11), None);
    }

    /// The guide's figure (8.2.2): of 8 nodes, 4 are idle now; a reservation takes 3 of
    /// them in one hour. Two overlapping windows: 4 nodes for 1 h, 1 node unbounded.
    #[test]
    fn windows_of_the_guides_figure() {
        let mut p = Profile::new(8, 0);
        p.occupy(0, 3600, 3); // running job 1
        p.occupy(0, 4 * 3600, 1); // running job 2
        p.occupy(3600, 11 * 3600, 6); // reservation for C
        let w = p.windows(0);
        assert_eq!(
            w,
            vec![
                Window {
                    procs: 4,
                    duration: 3600
                },
                Window {
                    procs: 1,
                    duration: FOREVER
                },
            ]
        );
        assert_eq!(p.window_after(0, 3600), Some(w[1]));
        assert_eq!(p.window_after(0, 3599), Some(w[0]));
    }

    #[test]
    fn no_window_without_free_processors_and_staircases_otherwise() {
        let mut p = Profile::new(4, 0);
        p.occupy(0, 100, 4);
        assert_eq!(p.windows(0), vec![]);
        let mut p = Profile::new(10, 0);
        p.occupy(0, 50, 2); // free 8 until 50, then 10
        p.occupy(100, 200, 3); // 7 during [100, 200)
        p.occupy(300, 400, 9); // 1 during [300, 400)
        assert_eq!(
            p.windows(0),
            vec![
                Window {
                    procs: 8,
                    duration: 100
                },
                Window {
                    procs: 7,
                    duration: 300
                },
                Window {
                    procs: 1,
                    duration: FOREVER
                },
            ],
            "the rise at 50 widens nothing; each dip ends a window"
        );
    }
}
