//! How long Maui 3.3.1 finds a node available from now: the first availability range of
//! MJob.c `MJobGetSNRange`, whose length (`AvailableTime`) ranks the nodes of a start now
//! under LASTAVAILABLE (MNode.c `MNodeSelectIdleTasks`) and measures a backfill window
//! (MBF.c `MBFGetWindow`, for a pseudo-job of one task and one second).
//!
//! The ranges are cut where the node's free tasks change as 3.3.1 cuts them, then merged
//! by its rule (reports/research/maui-3.3.1-node-match-availability-limits.md, "available
//! time"). On a node of several processors this makes a partly used node available for
//! less than for ever even with nothing reserved on it: with two running jobs that end at
//! different times it is available until the second end that leaves the job its whole
//! limit. On a node of one processor the length is the time until the next claim.

use super::placement::next_range_count;
use super::{Claim, Machine, Owner, NO_USER};
use crate::node::{NodeAccess, Res};
use crate::profile::FOREVER;
use crate::Time;

impl Machine {
    /// How long after `now` node `n` is available to a job of `tasks` tasks of `per_task`
    /// each and of limit `wcl`, as 3.3.1 measures it (`FOREVER` for no end); claims that a
    /// job that may use the standing reservations of `may_use` is not kept off by do not
    /// count. Under NODEACCESSPOLICY SINGLEUSER a claim of another user than `user`
    /// ([`NO_USER`]: a question for every user) leaves the node nothing while it lasts, as
    /// 3.3.1 removes the node's whole configured resources for it.
    pub(super) fn maui_available_for(
        &self,
        n: usize,
        now: Time,
        (tasks, wcl): (u64, Time),
        per_task: Res,
        (may_use, user): (u64, u32),
    ) -> Time {
        let user = self.per_user(user);
        let free_now = self.free_tasks_at(n, now, per_task, (may_use, user));
        if free_now == 0 {
            // Nothing to offer now: 3.3.1's search finds no range at all.
            return 0;
        }
        if per_task.procs <= 1 && user == NO_USER && !self.job_capped {
            if let Some(length) = self.available_by_ends(n, now, wcl) {
                return length;
            }
        }
        let ask = Ask {
            tasks,
            wcl,
            per_task,
            may_use,
            user,
        };
        self.available_by_ranges(n, now, free_now, &ask)
    }

    /// [`Self::maui_available_for`] by 3.3.1's ranges (MJob.c `MJobGetNRange`): a bisection
    /// over how many tasks the node offers, from the job's tasks or its free ones down,
    /// each probe cutting and merging the ranges (`ranges_length`) until one lasts the
    /// job's limit; its length is the answer (0: none does).
    fn available_by_ranges(&self, n: usize, now: Time, free_now: u64, ask: &Ask) -> Time {
        let mut high = ask.tasks.min(free_now);
        while high > 0 {
            let probe = high.div_ceil(2);
            let length = self.ranges_length(n, now, free_now, ask, probe);
            if length >= ask.wcl {
                // 3.3.1 then sets its lower bound to the first range's tasks, which are the
                // node's free ones now, at least the upper bound: the search ends.
                return length;
            }
            high = probe - 1;
        }
        0
    }

    /// The user a node question is asked for: [`NO_USER`] unless nodes are SINGLEUSER.
    pub(super) fn per_user(&self, user: u32) -> u32 {
        if self.spec.access == NodeAccess::SingleUser {
            user
        } else {
            NO_USER
        }
    }

    /// Tasks of `per_task` free on node `n` at `t`, counting the claims that bind a job that
    /// may use the standing reservations of `may_use`; none while a claim of another user
    /// than `user` lasts.
    fn free_tasks_at(&self, n: usize, t: Time, per_task: Res, (may_use, user): (u64, u32)) -> u64 {
        let active = self.claims[n]
            .iter()
            .filter(|c| c.binds(may_use) && c.start <= t && t < c.end);
        if self.node_rules {
            let foreign = active.clone().any(|c| self.foreign_to(c, user));
            if foreign || (self.job_capped && self.at_job_limit(n, t)) {
                return 0;
            }
        }
        let windowed = self.has_standing()
            && active
                .clone()
                .any(|c| matches!(c.owner, Owner::Standing(_)));
        let used = if windowed {
            // A window holds its processors less what the jobs inside it take (3.3.1 splits
            // it where they change, each piece holding what they leave).
            let all: Vec<&Claim> = self.claims[n]
                .iter()
                .filter(|c| c.start <= t && t < c.end)
                .collect();
            self.taken_at(n, &all, (may_use, 0), (t, t + 1)).procs
        } else {
            active.map(|c| c.takes.procs).sum()
        };
        self.spec.nodes[n].procs.saturating_sub(used) / per_task.procs.max(1)
    }

    /// One probe of [`Self::available_by_ranges`]: the first range's length from `now`, its
    /// ranges cut where fewer than `probe` tasks are free and merged as they come (the walk
    /// stops at the first range that does not join the first).
    fn ranges_length(&self, n: usize, now: Time, free_now: u64, ask: &Ask, probe: u64) -> Time {
        let Ask {
            tasks,
            wcl,
            per_task,
            may_use,
            user,
        } = *ask;
        let tasks_at = |t: Time| self.free_tasks_at(n, t, per_task, (may_use, user));
        let mut merge = Merge {
            now,
            wcl,
            first_tasks: 0,
            end: now,
            done: 0,
        };
        // The range being cut: its tasks as recorded at its start.
        let mut current = free_now;
        // At the instant `t` where the free tasks may change, whether 3.3.1 sees resources
        // removed there: false when the range walk ends at it.
        let mut step = |t: Time, removes: bool| {
            let new = tasks_at(t);
            if new < probe {
                merge.joins(current, t);
                return false;
            }
            // Both counts are at least the probe here, so a cut always changes the count.
            if next_range_count(current, new, removes, tasks) != current {
                if !merge.joins(current, t) {
                    return false;
                }
                current = new;
            }
            true
        };
        let windowed = self.has_standing()
            && self.claims[n]
                .iter()
                .any(|c| matches!(c.owner, Owner::Standing(_)));
        if windowed {
            for (t, removes) in self.range_walk_bounds(n, now, (may_use, 0), (now, now + wcl)) {
                if !step(t, removes) {
                    return merge.length();
                }
            }
        } else {
            // Without windows every claim binds, a claim's start removes resources and an
            // end does not ([`Self::range_walk_bounds`]), found without collecting them.
            let claims = &self.claims[n];
            let next_event = |t: Time| {
                claims
                    .iter()
                    .flat_map(|c| [c.start, c.end])
                    .filter(|&x| x > t && x < FOREVER)
                    .min()
            };
            let mut t = now;
            while let Some(at) = next_event(t) {
                t = at;
                if !step(t, claims.iter().any(|c| c.start == t)) {
                    return merge.length();
                }
            }
        }
        merge.joins(current, FOREVER);
        merge.length()
    }
}

/// What a job asks of a node whose available time is measured: its tasks, its limit, what
/// each task needs, the standing reservations it may use, and its user where nodes are
/// SINGLEUSER ([`NO_USER`] otherwise).
#[derive(Debug, Clone, Copy)]
struct Ask {
    tasks: u64,
    wcl: Time,
    per_task: Res,
    may_use: u64,
    user: u32,
}

/// MJob.c's merge of a node's ranges into the first, range by range: the second joins if
/// it has as many tasks as the first or the first is shorter than the limit; each later one
/// (its count compared with a slot already zeroed) only while the first is still shorter.
struct Merge {
    now: Time,
    wcl: Time,
    first_tasks: u64,
    /// Where the first range, with those joined, ends.
    end: Time,
    /// Ranges seen.
    done: u32,
}

impl Merge {
    /// The next range, of `tasks` tasks, ending at `end`: false if it does not join (the
    /// first range is final then).
    fn joins(&mut self, tasks: u64, end: Time) -> bool {
        let joins = match self.done {
            0 => {
                self.first_tasks = tasks;
                true
            }
            1 => tasks >= self.first_tasks || self.end - self.now < self.wcl,
            _ => self.end - self.now < self.wcl,
        };
        if joins {
            self.end = end;
            self.done += 1;
        }
        joins
    }

    fn length(&self) -> Time {
        if self.end >= FOREVER {
            FOREVER
        } else {
            self.end - self.now
        }
    }
}

impl Machine {
    /// [`Self::maui_available_for`] for tasks of one processor on a node where nothing
    /// starts after `now` (the usual case: running jobs only), where its ranges follow
    /// from the ends alone: the free tasks only grow, so each distinct end splits, the second range joins the first and
    /// each later one while the first is shorter than the limit. The node is available
    /// until the first end after the first that leaves `wcl`, or for ever; `None` when a
    /// claim starts later, or a window binds.
    fn available_by_ends(&self, n: usize, now: Time, wcl: Time) -> Option<Time> {
        let live = || self.claims[n].iter().filter(|c| c.end > now);
        // 3.3.1 splits a window where the jobs inside it end, whether or not the job may
        // use it: its ranges follow more than the ends then.
        if self.has_standing() && live().any(|c| matches!(c.owner, Owner::Standing(_))) {
            return None;
        }
        let mut first_end = FOREVER;
        for c in live() {
            if c.start > now || c.takes.procs == 0 {
                return None;
            }
            first_end = first_end.min(c.end);
        }
        let cut = live()
            .map(|c| c.end)
            .filter(|&e| e > first_end && e < FOREVER && e - now >= wcl)
            .min();
        Some(cut.map_or(FOREVER, |e| e - now))
    }
}

#[cfg(test)]
mod tests {
    use crate::job::{JobIdx, QueuedJob};
    use crate::machine::{Machine, NO_USER};
    use crate::node::{AllocationPolicy, MachineSpec, NodeSpec, Res};
    use crate::profile::FOREVER;
    use crate::Time;
    use std::sync::Arc;

    fn job(i: u32, procs: u64, wcl: Time) -> QueuedJob {
        QueuedJob::new(JobIdx(i), u64::from(i), 0, procs, wcl)
    }

    /// One four-processor node running jobs of one processor each with these limits from
    /// 0, under Maui's order.
    fn node_running(limits: &[Time]) -> Machine {
        let mut spec = MachineSpec::homogeneous(0, 1);
        spec.nodes = vec![NodeSpec::with_procs(4)];
        spec.allocation = AllocationPolicy::LastAvailable;
        let mut m = Machine::new(Arc::new(spec), 0, false);
        m.set_node_order(true, true);
        for (i, &wcl) in limits.iter().enumerate() {
            assert!(m.start(0, &job(i as u32, 1, wcl)));
        }
        m
    }

    const ONE: Res = Res {
        procs: 1,
        mem: 0,
        swap: 0,
        disk: 0,
    };

    /// Node n7 of the real-Maui case dedicated-s1 at 420 s: three running jobs planned to
    /// end at 13,860, 3,540 and 3,120 s, and three processors reserved from 7,020 s. 3.3.1's
    /// log reads "node n7 supports 1 task of job BFWindow:0 for 00:52:00": the window lasts
    /// to the second change (3,540 s). For a job of one task and 5,580 s the first two
    /// ranges join and, still shorter than the limit, the third: to the reservation,
    /// 6,600 s, as long as the idle n6 beside it; for 3,000 s the first two suffice.
    #[test]
    fn the_available_time_of_dedicated_s1_node_n7() {
        let mut m = node_running(&[13860, 3540, 3120]);
        m.hold_again(7020, &job(3, 3, 120), vec![(0, 3)], 0)
            .unwrap();
        assert_eq!(
            m.maui_available_for(0, 420, (1, 1), ONE, (0, NO_USER)),
            3120
        );
        assert_eq!(
            m.maui_available_for(0, 420, (1, 5580), ONE, (0, NO_USER)),
            6600
        );
        assert_eq!(
            m.maui_available_for(0, 420, (1, 3000), ONE, (0, NO_USER)),
            3120
        );
        // Two tasks asked, one free: the probe is still one task, the ranges the same.
        assert_eq!(
            m.maui_available_for(0, 420, (2, 5580), ONE, (0, NO_USER)),
            6600
        );
    }

    /// The short form: with one end time ahead the node is available for ever; with two,
    /// until the first end from the second on that leaves the limit.
    #[test]
    fn running_jobs_alone_cut_at_their_second_end() {
        let one_end = node_running(&[3600, 3600]);
        assert_eq!(
            one_end.maui_available_for(0, 0, (1, 100), ONE, (0, NO_USER)),
            FOREVER
        );
        let two_ends = node_running(&[3600, 7200]);
        assert_eq!(
            two_ends.maui_available_for(0, 0, (1, 100), ONE, (0, NO_USER)),
            7200
        );
        assert_eq!(
            two_ends.maui_available_for(0, 0, (1, 7200), ONE, (0, NO_USER)),
            7200
        );
        assert_eq!(
            two_ends.maui_available_for(0, 0, (1, 7201), ONE, (0, NO_USER)),
            FOREVER
        );
        let three_ends = node_running(&[1000, 2000, 3000]);
        assert_eq!(
            three_ends.maui_available_for(0, 0, (1, 1), ONE, (0, NO_USER)),
            2000
        );
        assert_eq!(
            three_ends.maui_available_for(0, 0, (1, 2500), ONE, (0, NO_USER)),
            3000
        );
    }

    /// One processor reserved from 100 and two more from 200, both until 1,000, and a job
    /// of four tasks and 500 s: probing two tasks the range closes at 200, too short; one
    /// task keeps it open until the reservations end at 1,000.
    #[test]
    fn a_probe_too_short_gives_way_to_fewer_tasks() {
        let mut m = node_running(&[]);
        m.hold_again(100, &job(8, 1, 900), vec![(0, 1)], 0).unwrap();
        m.hold_again(200, &job(9, 2, 800), vec![(0, 2)], 0).unwrap();
        assert_eq!(
            m.maui_available_for(0, 0, (4, 500), ONE, (0, NO_USER)),
            1000
        );
        // With a limit the first probe's range covers, the first probe's answer.
        assert_eq!(m.maui_available_for(0, 0, (4, 150), ONE, (0, NO_USER)), 200);
    }

    proptest::proptest! {
        /// On a node only running jobs hold, the length from their ends alone equals the
        /// ranges cut and merged, for any job of one-processor tasks.
        #[test]
        fn the_ends_alone_give_the_ranges_length(
            limits in proptest::collection::vec(1i64..50, 0..5),
            now in 0i64..30,
            tasks in 1u64..6,
            wcl in 1i64..60,
        ) {
            let m = node_running(&limits);
            // (A full node offers nothing: `maui_available_for` answers 0 before either.)
            proptest::prop_assume!(m.free_tasks_at(0, now, ONE, (0, NO_USER)) > 0);
            let by_ends = m.available_by_ends(0, now, wcl);
            let ask = super::Ask { tasks, wcl, per_task: ONE, may_use: 0, user: NO_USER };
            let free_now = m.free_tasks_at(0, now, ONE, (0, NO_USER));
            let by_ranges = m.available_by_ranges(0, now, free_now, &ask);
            proptest::prop_assert_eq!(by_ends, Some(by_ranges));
        }
    }

    /// A window on part of a node holds its processors less what the jobs inside it take,
    /// and 3.3.1 splits it where they end, each piece a reservation that begins
    /// (standingpartial-s3 at 20,970 s: "b.0.0 … R: '[NONE]'", then "PROCS: 1", then
    /// "PROCS: 2"; the node "supports 2 tasks … for INFINITY"). One node of 4 processors,
    /// window w holding 2 until 10,000; J1 and J2 inside it, one processor each, to 100 and
    /// 200. Outside w, 2 tasks are free throughout (not 0, w's 2 beside the jobs); inside
    /// it, 2 then 3 then 4, but each end removes resources as a piece of w begins, so no
    /// range is cut there: both for ever (not until the second end).
    #[test]
    fn a_window_splits_where_the_jobs_inside_it_end() {
        use crate::standing::StandingReservation;
        let mut spec = MachineSpec::homogeneous(1, 4);
        spec.allocation = AllocationPolicy::LastAvailable;
        spec.standing = vec![StandingReservation::once("w", vec![0], vec![2], 0, 10_000)];
        let mut m = super::super::tests::maui_machine(Arc::new(spec));
        for (i, wcl) in [(0, 100), (1, 200)] {
            let mut inside = job(i, 1, wcl);
            inside.standing_access = 1;
            assert!(m.start(0, &inside));
        }
        assert_eq!(m.free_tasks_at(0, 0, ONE, (0, NO_USER)), 2);
        assert_eq!(
            m.maui_available_for(0, 0, (1, 10), ONE, (0, NO_USER)),
            FOREVER
        );
        assert_eq!(
            m.maui_available_for(0, 0, (1, 10), ONE, (1, NO_USER)),
            FOREVER
        );
    }

    /// One node of 4 processors under `windows` (processors, start, end) that the jobs
    /// inside have access to, running `jobs` (limit, inside the windows or not) from 0.
    fn node_with_windows(windows: &[(u64, Time, Time)], jobs: &[(Time, bool)]) -> Machine {
        use crate::standing::StandingReservation;
        let mut spec = MachineSpec::homogeneous(1, 4);
        spec.allocation = AllocationPolicy::LastAvailable;
        spec.standing = windows
            .iter()
            .enumerate()
            .map(|(k, &(procs, start, end))| {
                StandingReservation::once(&format!("w{k}"), vec![0], vec![procs], start, end)
            })
            .collect();
        let mut m = super::super::tests::maui_machine(Arc::new(spec));
        for (i, &(wcl, inside)) in jobs.iter().enumerate() {
            let mut j = job(i as u32, 1, wcl);
            if inside {
                j.standing_access = (1 << windows.len()) - 1;
            }
            assert!(m.start(0, &j));
        }
        m
    }

    /// Where a window the job may use begins, 3.3.1's range walk sets neither "resources
    /// removed" nor "added" (MJob.c `MJobGetSNRange`: an inclusive start only counts it),
    /// so nothing is cut there even when the range's count is below what is free
    /// (standingdeep-s3 at 23,940 s: "node n3 supports 1 task … for INFINITY"). One node of
    /// 4 processors, window w0 of 1 processor over [0, 1000) and w1 over [5000, 6000); J1
    /// (outside) to 100, J2 (inside w0) to 300. For a job that may use both: 2 free, 3 from
    /// 100 (a cut), 4 from 300 (where w0's piece begins: removed, no cut at a growth). At
    /// 5000 nothing is cut, so the range of 3 from 100 joins the first for ever (cut there, it
    /// would end at 5000).
    #[test]
    fn a_window_the_job_may_use_cuts_nothing_where_it_begins() {
        let m = node_with_windows(
            &[(1, 0, 1000), (1, 5000, 6000)],
            &[(100, false), (300, true)],
        );
        assert_eq!(
            m.maui_available_for(0, 0, (1, 10), ONE, (0b11, NO_USER)),
            FOREVER
        );
    }

    /// Where a job inside a window ends, 3.3.1 sees resources removed only where the window
    /// then holds more (a piece of it begins): a window of 1 processor with J1 and J2
    /// inside holds none before and after J1 ends at 100, and 1 from J2's end at 300. For a
    /// job outside it: 2 free, 3 from 100 (added: a cut), 3 from 300, 4 from the window's
    /// end at 10,000 (a cut: the range of 3 from 100 joins the first, the next does not):
    /// available until 10,000 (were J1's end a removal, no cut at 100, and for ever).
    #[test]
    fn a_job_inside_a_window_removes_resources_only_where_the_window_holds_more() {
        let m = node_with_windows(&[(1, 0, 10_000)], &[(100, true), (300, true)]);
        assert_eq!(
            m.maui_available_for(0, 0, (1, 10), ONE, (0, NO_USER)),
            10_000
        );
    }

    /// 3.3.1 judges a job's access to a window it may use for a short run only by the
    /// overlap of a run as long as the job's from where the node's range holding the
    /// window's start began (MJob.c `MJobGetSNRange`; standingshort-s1: "checking
    /// reservation part.0.0 start … (O: 9670)"), not from the job's start. One node of 4
    /// processors, window w holding 2 over [2000, 10,000) for runs of at most 1,000 s
    /// inside it. A job of 2,500 s from 0 runs inside it for 500 s; but where a job on the
    /// node ends at 700, or a reservation begins there, a range begins, and from 700 the
    /// overlap is 1,200 s: the window binds, and the node offers the job what it leaves.
    /// A change at the window's start itself comes after it is judged (3.3.1 begins a
    /// range once every event of an instant is counted).
    #[test]
    fn a_short_runs_window_is_judged_from_where_the_range_began() {
        use crate::standing::{StandingReservation, TimeEntry};
        let mut spec = MachineSpec::homogeneous(1, 4);
        spec.allocation = AllocationPolicy::LastAvailable;
        let mut w = StandingReservation::once("w", vec![0], vec![2], 2000, 10_000);
        w.access.max_time = Some(TimeEntry {
            limit: 1000,
            required: false,
            seen_before: None,
        });
        spec.standing = vec![w];
        let spec = Arc::new(spec);
        let short_run = |procs| {
            let mut j = job(5, procs, 2500);
            j.standing_short = 1;
            j
        };
        let fresh = || super::super::tests::maui_machine(spec.clone());
        // Nothing changes before the window: judged from 0, it may use it.
        let m = fresh();
        assert_eq!(m.hostable(0, 0, 2500, &short_run(3), ONE), 4);
        // A job of one processor ends at 700: 3 free, then 4, then 2 (w binds).
        let mut m = fresh();
        assert!(m.start(0, &job(1, 1, 700)));
        assert_eq!(m.hostable(0, 0, 2500, &short_run(3), ONE), 2);
        // A reservation of one processor begins at 700 (to 2,100): 4, then 3, then 1.
        let mut m = fresh();
        m.hold_again(700, &job(9, 1, 1400), vec![(0, 1)], 0)
            .unwrap();
        assert_eq!(m.hostable(0, 0, 2500, &short_run(2), ONE), 1);
        // A run of 2,200 s: from 700 it runs inside the window for 900 s, and may use it.
        let mut m = fresh();
        assert!(m.start(0, &job(1, 1, 700)));
        let mut shorter = short_run(3);
        shorter.wcl = 2200;
        assert_eq!(m.hostable(0, 0, 2200, &shorter, ONE), 3);
        // A job on the node ending as the window begins is counted after it: judged from
        // 0, the 2,500 s run may use the window.
        let mut m = fresh();
        assert!(m.start(0, &job(1, 1, 2000)));
        assert_eq!(m.hostable(0, 0, 2500, &short_run(3), ONE), 3);
    }

    /// A reservation that starts where the free tasks fall below half the job's closes the
    /// first range; a job's end that leaves fewer than it asks for splits only when the
    /// count grows; an idle node with nothing ahead is available for ever.
    #[test]
    fn ranges_close_and_split_as_3_3_1_cuts_them() {
        let mut m = node_running(&[]);
        assert_eq!(
            m.maui_available_for(0, 0, (4, 100), ONE, (0, NO_USER)),
            FOREVER
        );
        // Two processors reserved from 500: four tasks asked, probe two, two left: a split
        // (fewer than asked), then the end at 600 (back to four) another; the second range
        // has fewer tasks and joins only while the first is shorter than the limit, as the
        // third does.
        m.hold_again(500, &job(9, 2, 100), vec![(0, 2)], 0).unwrap();
        assert_eq!(m.maui_available_for(0, 0, (4, 400), ONE, (0, NO_USER)), 500);
        assert_eq!(m.maui_available_for(0, 0, (4, 501), ONE, (0, NO_USER)), 600);
        assert_eq!(
            m.maui_available_for(0, 0, (4, 601), ONE, (0, NO_USER)),
            FOREVER
        );
        // Three reserved instead: one left, below the probe of two: the range closes at
        // 500, too short for a limit of 10,000; the next probe, one task, keeps it open,
        // and it joins the later ones (MJobGetNRange's bisection).
        let mut m = node_running(&[]);
        m.hold_again(500, &job(9, 3, 100), vec![(0, 3)], 0).unwrap();
        assert_eq!(
            m.maui_available_for(0, 0, (4, 10_000), ONE, (0, NO_USER)),
            FOREVER
        );
        assert_eq!(m.maui_available_for(0, 0, (4, 400), ONE, (0, NO_USER)), 500);
        // One task asked: probe one, so one left keeps the range open and the start
        // splits it (fewer than before); the limit decides the join.
        assert_eq!(m.maui_available_for(0, 0, (1, 400), ONE, (0, NO_USER)), 500);
        assert_eq!(
            m.maui_available_for(0, 0, (1, 10_000), ONE, (0, NO_USER)),
            FOREVER
        );
    }
}
