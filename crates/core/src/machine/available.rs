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

use super::{Claim, Machine};
use crate::node::Res;
use crate::profile::FOREVER;
use crate::Time;

/// One availability range: from `start` to `end`, `tasks` tasks free.
#[derive(Debug, Clone, Copy)]
struct Range {
    start: Time,
    end: Time,
    tasks: u64,
}

impl Machine {
    /// How long after `now` node `n` is available to a job of `tasks` tasks of `per_task`
    /// each and of limit `wcl`, as 3.3.1 measures it (`FOREVER` for no end); claims that a
    /// job that may use the standing reservations of `may_use` is not kept off by do not
    /// count.
    pub(super) fn maui_available_for(
        &self,
        n: usize,
        now: Time,
        tasks: u64,
        wcl: Time,
        per_task: Res,
        may_use: u64,
    ) -> Time {
        if per_task.procs <= 1 {
            if let Some(length) = self.available_by_ends(n, now, wcl, may_use) {
                return length;
            }
        }
        self.available_by_ranges(n, now, tasks, wcl, per_task, may_use)
    }

    /// [`Self::maui_available_for`] by 3.3.1's ranges, cut and merged.
    fn available_by_ranges(
        &self,
        n: usize,
        now: Time,
        tasks: u64,
        wcl: Time,
        per_task: Res,
        may_use: u64,
    ) -> Time {
        let claims: Vec<&Claim> = self.claims[n]
            .iter()
            .filter(|c| c.binds(may_use) && c.end > now)
            .collect();
        let cap = self.spec.nodes[n].procs;
        let per = per_task.procs.max(1);
        let tasks_at = |t: Time| {
            let used: u64 = claims
                .iter()
                .filter(|c| c.start <= t && t < c.end)
                .map(|c| c.takes.procs)
                .sum();
            cap.saturating_sub(used) / per
        };
        let mut times: Vec<Time> = claims
            .iter()
            .flat_map(|c| [c.start, c.end])
            .filter(|&t| t > now && t < FOREVER)
            .collect();
        times.sort_unstable();
        times.dedup();
        let free_now = tasks_at(now);
        // The first bisection step of MJob.c `MJobGetNRange`: half the tasks asked for.
        let probe = tasks.min(free_now).div_ceil(2);
        let mut ranges: Vec<Range> = Vec::new();
        let mut open = Some(Range {
            start: now,
            end: FOREVER,
            tasks: free_now,
        });
        for &t in &times {
            let Some(current) = open.as_mut() else {
                // A range closed: no later one is adjacent to the first.
                break;
            };
            let new = tasks_at(t);
            if new < probe {
                current.end = t;
                ranges.extend(open.take());
                break;
            }
            let c = current.tasks;
            let reservation_starts = claims.iter().any(|cl| cl.start == t);
            let split = if reservation_starts {
                new != c && (new < tasks || new < c || c < tasks)
            } else {
                new > c || (new < c && (new < tasks || c < tasks))
            };
            if split {
                current.end = t;
                ranges.push(*current);
                *current = Range {
                    start: t,
                    end: FOREVER,
                    tasks: new,
                };
            }
        }
        ranges.extend(open);
        let Some(&first) = ranges.first() else {
            return 0;
        };
        // MJob.c's merge: the second range joins the first if it has as many tasks or the
        // first is shorter than the limit; each later one (its count compared with a slot
        // already zeroed) only while the first is still shorter than the limit.
        let mut end = first.end;
        for (k, r) in ranges.iter().enumerate().skip(1) {
            let adjacent = r.start == end;
            let joins = adjacent && ((k == 1 && r.tasks >= first.tasks) || end - now < wcl);
            if !joins {
                break;
            }
            end = r.end;
        }
        if end >= FOREVER {
            FOREVER
        } else {
            end - now
        }
    }
}

impl Machine {
    /// [`Self::maui_available_for`] for tasks of one processor on a node where nothing
    /// starts after `now` (the usual case: running jobs only), where its ranges follow
    /// from the ends alone: the free tasks only grow, so each distinct end splits, the second range joins the first and
    /// each later one while the first is shorter than the limit. The node is available
    /// until the first end after the first that leaves `wcl`, or for ever; `None` when a
    /// claim starts later.
    fn available_by_ends(&self, n: usize, now: Time, wcl: Time, may_use: u64) -> Option<Time> {
        let live = || {
            self.claims[n]
                .iter()
                .filter(|c| c.binds(may_use) && c.end > now)
        };
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
    use crate::machine::Machine;
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
        assert_eq!(m.maui_available_for(0, 420, 1, 1, ONE, 0), 3120);
        assert_eq!(m.maui_available_for(0, 420, 1, 5580, ONE, 0), 6600);
        assert_eq!(m.maui_available_for(0, 420, 1, 3000, ONE, 0), 3120);
        // Two tasks asked, one free: the probe is still one task, the ranges the same.
        assert_eq!(m.maui_available_for(0, 420, 2, 5580, ONE, 0), 6600);
    }

    /// The short form: with one end time ahead the node is available for ever; with two,
    /// until the first end from the second on that leaves the limit.
    #[test]
    fn running_jobs_alone_cut_at_their_second_end() {
        let one_end = node_running(&[3600, 3600]);
        assert_eq!(one_end.maui_available_for(0, 0, 1, 100, ONE, 0), FOREVER);
        let two_ends = node_running(&[3600, 7200]);
        assert_eq!(two_ends.maui_available_for(0, 0, 1, 100, ONE, 0), 7200);
        assert_eq!(two_ends.maui_available_for(0, 0, 1, 7200, ONE, 0), 7200);
        assert_eq!(two_ends.maui_available_for(0, 0, 1, 7201, ONE, 0), FOREVER);
        let three_ends = node_running(&[1000, 2000, 3000]);
        assert_eq!(three_ends.maui_available_for(0, 0, 1, 1, ONE, 0), 2000);
        assert_eq!(three_ends.maui_available_for(0, 0, 1, 2500, ONE, 0), 3000);
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
            let by_ends = m.available_by_ends(0, now, wcl, 0);
            let by_ranges = m.available_by_ranges(0, now, tasks, wcl, ONE, 0);
            proptest::prop_assert_eq!(by_ends, Some(by_ranges));
        }
    }

    /// A reservation that starts where the free tasks fall below half the job's closes the
    /// first range; a job's end that leaves fewer than it asks for splits only when the
    /// count grows; an idle node with nothing ahead is available for ever.
    #[test]
    fn ranges_close_and_split_as_3_3_1_cuts_them() {
        let mut m = node_running(&[]);
        assert_eq!(m.maui_available_for(0, 0, 4, 100, ONE, 0), FOREVER);
        // Two processors reserved from 500: four tasks asked, probe two, two left: a split
        // (fewer than asked), then the end at 600 (back to four) another; the second range
        // has fewer tasks and joins only while the first is shorter than the limit, as the
        // third does.
        m.hold_again(500, &job(9, 2, 100), vec![(0, 2)], 0).unwrap();
        assert_eq!(m.maui_available_for(0, 0, 4, 400, ONE, 0), 500);
        assert_eq!(m.maui_available_for(0, 0, 4, 501, ONE, 0), 600);
        assert_eq!(m.maui_available_for(0, 0, 4, 601, ONE, 0), FOREVER);
        // Three reserved instead: one left, below the probe of two: the range closes.
        let mut m = node_running(&[]);
        m.hold_again(500, &job(9, 3, 100), vec![(0, 3)], 0).unwrap();
        assert_eq!(m.maui_available_for(0, 0, 4, 10_000, ONE, 0), 500);
        // One task asked: probe one, so one left keeps the range open and the start
        // splits it (fewer than before); the limit decides the join.
        assert_eq!(m.maui_available_for(0, 0, 1, 400, ONE, 0), 500);
        assert_eq!(m.maui_available_for(0, 0, 1, 10_000, ONE, 0), FOREVER);
    }
}
