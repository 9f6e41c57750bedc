//! How each NODEALLOCATIONPOLICY chooses among the nodes that can host a job (guide
//! 5.2.2): the order it ranks them in, the PRIORITYF attributes of a node, and the
//! policies that choose a set rather than an order (CONTIGUOUS, MAXBALANCE, LOCAL).

use super::{Allocation, Machine, Owner};
use crate::job::QueuedJob;
use crate::node::{maui_memory_tier, AllocationPolicy, MachineSpec, NodeCandidate, Res};
use crate::priorityf::{NodeVar, NodeVars};
use crate::profile::FOREVER;
use crate::Time;

impl Machine {
    /// The policy's choice of `tasks` tasks among `cands` (each with the tasks it can
    /// host); `None` when the policy finds no acceptable set.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn choose(
        &self,
        t: Time,
        now: Time,
        end: Time,
        job: &QueuedJob,
        tasks: u64,
        mut cands: Vec<NodeCandidate>,
        reserving: bool,
    ) -> Option<Allocation> {
        let spec = &*self.spec;
        let policy = match self.allocation() {
            AllocationPolicy::CpuLoad if t > now => AllocationPolicy::MinResource,
            p => p,
        };
        match policy {
            AllocationPolicy::Local => {
                let local = spec.local.as_ref()?;
                let chosen = local.select(spec, tasks, &cands)?;
                let valid = chosen.iter().map(|&(_, k)| k).sum::<u64>() == tasks
                    && chosen
                        .iter()
                        .all(|&(n, k)| cands.iter().any(|c| c.node == n && c.tasks >= k))
                    && {
                        let mut seen: Vec<u32> = chosen.iter().map(|&(n, _)| n).collect();
                        seen.sort_unstable();
                        seen.windows(2).all(|w| w[0] != w[1])
                    };
                return valid.then_some(chosen);
            }
            AllocationPolicy::Contiguous => return contiguous(&cands, tasks),
            AllocationPolicy::MaxBalance => {
                return max_balance(spec, &mut cands, tasks);
            }
            _ => {}
        }
        let mut keyed: Vec<((f64, f64, f64), NodeCandidate)> = cands
            .into_iter()
            .map(|c| (self.order_key(policy, c, t, now, end, job, reserving), c))
            .collect();
        keyed.sort_by(|a, b| {
            (a.0 .0, a.0 .1, a.0 .2, a.1.node)
                .partial_cmp(&(b.0 .0, b.0 .1, b.0 .2, b.1.node))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        take_in_order(keyed.into_iter().map(|(_, c)| c), tasks)
    }

    /// The sort key of a candidate node: smaller is chosen first (node order breaks ties).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn order_key(
        &self,
        policy: AllocationPolicy,
        c: NodeCandidate,
        t: Time,
        now: Time,
        end: Time,
        job: &QueuedJob,
        reserving: bool,
    ) -> (f64, f64, f64) {
        let node = &self.spec.nodes[c.node as usize];
        if self.maui_order {
            if let Some(key) = self.maui_key(policy, c, t == now && !reserving, now, job) {
                return key;
            }
        }
        match policy {
            AllocationPolicy::LastAvailable => {
                let gap = self
                    .next_claim_after(c.node as usize, end, job.standing_access)
                    .map_or(FOREVER, |s| s - end);
                (gap as f64, c.free_procs as f64, 0.0)
            }
            AllocationPolicy::MinResource => (
                node.mem as f64,
                node.procs as f64,
                (node.swap + node.disk) as f64,
            ),
            AllocationPolicy::CpuLoad => {
                let dedicated = node.procs as f64 - c.free_procs as f64;
                (
                    -(node.procs as f64 - dedicated.max(node.tuning().load)),
                    0.0,
                    0.0,
                )
            }
            AllocationPolicy::Priority => {
                (-self.node_priority(c.node as usize, t, now, job), 0.0, 0.0)
            }
            AllocationPolicy::Fastest => (-node.speed(), -(node.procspeed() as f64), 0.0),
            _ => (0.0, 0.0, 0.0),
        }
    }

    /// Maui 3.3.1's order where it differs from the guide's reading (MSched.c
    /// `MJobAllocMNL`, MNode.c `MNodeSelectIdleTasks`), `None` where it does not.
    /// LASTAVAILABLE starting now: the nodes available for longest first (3.3.1 sorts them
    /// by their available time, low to high, and takes from the end), the last node first
    /// among equals; a reservation, even one from now on (its range's
    /// nodes come in node order, MJob.c `MJobGetEStartTime`): the last node first.
    /// MINRESOURCE: memory tiers 64, 128, ... 8192 MB, the last node first in each.
    fn maui_key(
        &self,
        policy: AllocationPolicy,
        c: NodeCandidate,
        starts_now: bool,
        now: Time,
        job: &QueuedJob,
    ) -> Option<(f64, f64, f64)> {
        let last_first = -f64::from(c.node);
        match policy {
            AllocationPolicy::LastAvailable if starts_now => {
                let per_task = self.need(job);
                let tasks = job.procs / per_task.procs.max(1);
                let available = self.maui_available(c.node as usize, now, job, tasks, per_task);
                Some((-(available as f64), last_first, 0.0))
            }
            AllocationPolicy::LastAvailable => Some((last_first, 0.0, 0.0)),
            AllocationPolicy::MinResource => {
                let tier = maui_memory_tier(self.spec.nodes[c.node as usize].mem);
                Some((tier as f64, last_first, 0.0))
            }
            _ => None,
        }
    }

    /// The node's allocation priority for `job` starting at `t` (PRIORITYF, or
    /// `PRIORITY + 100·PREF + 100·RESAFFINITY` without one).
    pub(crate) fn node_priority(&self, n: usize, t: Time, now: Time, job: &QueuedJob) -> f64 {
        let vars = self.node_vars(n, t, now, job);
        let node = &self.spec.nodes[n];
        match node
            .tuning()
            .priority_f
            .as_ref()
            .or(self.spec.priority_f.as_ref())
        {
            Some(f) => f.eval(&vars),
            None => {
                vars[NodeVar::Priority as usize]
                    + 100.0 * vars[NodeVar::Pref as usize]
                    + 100.0 * vars[NodeVar::ResAffinity as usize]
            }
        }
    }

    /// Every PRIORITYF attribute of node `n` for `job` starting at `t`.
    pub(crate) fn node_vars(&self, n: usize, t: Time, now: Time, job: &QueuedJob) -> NodeVars {
        let node = &self.spec.nodes[n];
        let (used, jobs) = self.used_at(n, t);
        let mut v = [0.0; NodeVar::COUNT];
        let mut set = |var: NodeVar, x: f64| v[var as usize] = x;
        set(NodeVar::ADisk, node.disk.saturating_sub(used.disk) as f64);
        set(NodeVar::AMem, node.mem.saturating_sub(used.mem) as f64);
        set(
            NodeVar::AProcs,
            node.procs.saturating_sub(used.procs) as f64,
        );
        set(NodeVar::ASwap, node.swap.saturating_sub(used.swap) as f64);
        set(NodeVar::CDisk, node.disk as f64);
        set(NodeVar::CMem, node.mem as f64);
        set(NodeVar::CProcs, node.procs as f64);
        set(NodeVar::CSwap, node.swap as f64);
        set(NodeVar::JobCount, jobs as f64);
        set(NodeVar::Load, node.tuning().load);
        let pref = job.request.pref;
        set(
            NodeVar::Pref,
            f64::from(u8::from(pref != 0 && node.features & pref == pref)),
        );
        set(NodeVar::Priority, node.tuning().priority);
        set(NodeVar::ResAffinity, 0.0);
        let speed = if node.speed() != 1.0 || node.procspeed() == 0 {
            node.speed()
        } else {
            node.procspeed() as f64
        };
        set(NodeVar::Speed, speed);
        set(NodeVar::Usage, self.usage(n, now));
        v
    }

    /// Share of the time since the start that node `n` has been running jobs.
    pub(crate) fn usage(&self, n: usize, now: Time) -> f64 {
        let elapsed = now - self.origin;
        if elapsed <= 0 {
            return 0.0;
        }
        let busy = self.busy_total[n] + self.busy_since[n].map_or(0, |s| now - s);
        busy as f64 / elapsed as f64
    }

    /// What jobs and reservations take on node `n` at `t`, and how many they are.
    pub(super) fn used_at(&self, n: usize, t: Time) -> (Res, u32) {
        if self.pooled {
            let procs = self.spec.nodes[n].procs as i64 - self.free[n];
            return (
                Res {
                    procs: procs.max(0) as u64,
                    ..Res::default()
                },
                self.jobs_on[n],
            );
        }
        let mut used = Res::default();
        let mut jobs = 0;
        for c in self.claims[n].iter().filter(|c| c.start <= t && t < c.end) {
            used.add(c.takes);
            jobs += u32::from(!matches!(c.owner, Owner::Standing(_)));
        }
        (used, jobs)
    }

    pub(super) fn free_procs_at(&self, n: usize, t: Time) -> u64 {
        self.spec.nodes[n]
            .procs
            .saturating_sub(self.used_at(n, t).0.procs)
    }

    /// How long node `n` stays free after `now`: until its next claim that starts later.
    pub(super) fn free_for(&self, n: usize, now: Time, may_use: u64) -> Time {
        self.next_claim_after(n, now + 1, may_use)
            .map_or(FOREVER, |s| s - now)
    }

    /// The first claim on node `n` starting at or after `t` that binds a job that may use
    /// the standing reservations of `may_use` (Maui orders a job's nodes by when they stop
    /// being available to it, MJobGetEStartTime).
    pub(super) fn next_claim_after(&self, n: usize, t: Time, may_use: u64) -> Option<Time> {
        if self.pooled {
            return None;
        }
        self.claims[n]
            .iter()
            .filter(|c| c.binds(may_use))
            .map(|c| c.start)
            .filter(|&s| s >= t)
            .min()
    }
}

/// Takes tasks from the candidates in order until `tasks` are placed.
pub(super) fn take_in_order(
    cands: impl Iterator<Item = NodeCandidate>,
    tasks: u64,
) -> Option<Allocation> {
    let mut left = tasks;
    // A node holds one task at least: room for the common job at once, not grown by doubling.
    let mut alloc = Vec::with_capacity(tasks.min(64) as usize);
    for c in cands {
        if left == 0 {
            break;
        }
        let k = c.tasks.min(left);
        alloc.push((c.node, k));
        left -= k;
    }
    (left == 0).then_some(alloc)
}

/// CONTIGUOUS: the first run of consecutive nodes (in node order), each able to host
/// some tasks, that together host them all.
pub(super) fn contiguous(cands: &[NodeCandidate], tasks: u64) -> Option<Allocation> {
    // `cands` is in node order.
    let mut start = 0;
    let mut sum = 0;
    for i in 0..cands.len() {
        if i > 0 && cands[i].node != cands[i - 1].node + 1 {
            start = i;
            sum = 0;
        }
        sum += cands[i].tasks;
        if sum >= tasks {
            // Shrink from the left while the run still holds every task.
            while sum - cands[start].tasks >= tasks {
                sum -= cands[start].tasks;
                start += 1;
            }
            return take_in_order(cands[start..=i].iter().copied(), tasks);
        }
    }
    None
}

/// Tasks of the largest run of consecutive candidate nodes.
pub(super) fn largest_block(cands: &[NodeCandidate]) -> u64 {
    let (mut best, mut sum) = (0, 0);
    for i in 0..cands.len() {
        if i > 0 && cands[i].node != cands[i - 1].node + 1 {
            sum = 0;
        }
        sum += cands[i].tasks;
        best = best.max(sum);
    }
    best
}

/// MAXBALANCE: the set of nodes with the smallest speed span that hosts every task
/// (identical speeds when possible); among equal spans the fastest.
pub(super) fn max_balance(
    spec: &MachineSpec,
    cands: &mut [NodeCandidate],
    tasks: u64,
) -> Option<Allocation> {
    let speed = |c: &NodeCandidate| spec.nodes[c.node as usize].speed();
    cands.sort_by(|a, b| {
        speed(b)
            .partial_cmp(&speed(a))
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.node.cmp(&b.node))
    });
    // Fastest first; a sliding run over this order.
    let mut best: Option<(f64, usize, usize)> = None;
    let mut lo = 0;
    let mut sum = 0;
    for hi in 0..cands.len() {
        sum += cands[hi].tasks;
        while sum - cands[lo].tasks >= tasks {
            sum -= cands[lo].tasks;
            lo += 1;
        }
        if sum >= tasks {
            let span = speed(&cands[lo]) - speed(&cands[hi]);
            if best.is_none_or(|(s, _, _)| span < s) {
                best = Some((span, lo, hi));
            }
        }
    }
    let (_, lo, hi) = best?;
    take_in_order(cands[lo..=hi].iter().copied(), tasks)
}
