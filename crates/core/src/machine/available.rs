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
