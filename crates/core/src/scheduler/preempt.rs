//! Preemption as Maui 3.3.1 carries it out in its priority pass (MSched.c `MJobSelectMNL`,
//! MPreempt.c `MJobSelectPJobList`, MJob.c `MJobPreempt`; reports/research): a PREEMPTOR
//! job for which too few processors are free takes them from running PREEMPTEE jobs of
//! strictly lower priority, cheapest first, and starts in the same iteration.

use super::{Decisions, Preempted, Scheduler};
use crate::job::{JobIdx, QueuedJob};
use crate::policy::Preemption;
use crate::priority::{Component, Sub};
use crate::Time;

impl Scheduler {
    /// A running PREEMPTEE job's priority input as 3.3.1 keeps it: its effective queue
    /// time stops at `queued`, where it was when the job started (`EffQueueDuration` is
    /// brought up to date only while a job is idle).
    pub(super) fn keep_preemptee(&mut self, now: Time, job: &QueuedJob, queued: Time) {
        if !job.cred_factors.preemptee && !job.cred_factors.preempt_spv {
            return;
        }
        let mut running = job.clone();
        if queued > 0 {
            running.selected_queued = Some(queued);
        } else {
            // No queue time, for good: a start beyond any instant the run reaches.
            running.selected_queued = None;
            running.eff_queue_start = Time::MAX / 4;
        }
        running.priority_terms = None;
        self.preemptees.push((running, now));
    }

    /// Makes room for `job`, which does not fit now, by preempting running PREEMPTEE jobs
    /// of lower priority; true if it fits afterwards. 3.3.1's rules:
    /// - victims have the PREEMPTEE flag and a priority strictly below the job's (the
    ///   integer start priorities, running jobs' queue time frozen at their start);
    /// - none is preempted unless the victims together and the free processors could hold
    ///   the job;
    /// - a victim counts the processors it would free on nodes the job could use (none:
    ///   no victim); the victims go cheapest first, the cost being a victim's priority
    ///   divided by those processors (integer division), and are taken until their
    ///   processors alone cover the whole job, even where some were free already (3.3.1's
    ///   over-preemption);
    /// - none is preempted if the job would still not start without them (their nodes
    ///   held by other jobs' reservations).
    pub(super) fn preempt_for(&mut self, now: Time, job: &QueuedJob, out: &mut Decisions) -> bool {
        self.preemptor_nodes = None;
        if !job.cred_factors.preemptor
            || self.policy.preemption == Preemption::Never
            || self.preemptees.is_empty()
        {
            return false;
        }
        let fs = self.fairshare.at(now);
        let priority = &self.policy.priority;
        let own = priority.breakdown(job, now, &fs).priority;
        // (cost, start order, victim): a stable order among equal costs.
        let machine = &self.machine;
        let mut victims: Vec<(i64, usize, JobIdx, u64)> = self
            .preemptees
            .iter()
            .enumerate()
            .filter_map(|(k, (running, started))| {
                // 3.3.1's run priority (MJob.c `MJobGetRunPriority`): the start priority
                // plus USAGEWEIGHT × USAGEEXECUTIONTIMEWEIGHT × seconds run (a comma
                // operator there drops its other usage terms).
                let executed = priority.component_weight[Component::Usage as usize]
                    * priority.weight[Sub::ExecutionTime as usize]
                    * (now - started) as f64;
                let start_priority = priority.breakdown(running, now, &fs).priority;
                let run_priority = start_priority.saturating_add(executed as i64);
                // Only processors on nodes the job could use count, for its cost too.
                let freed = machine.procs_freed_for(job, running.idx, running.procs);
                // PREEMPTSPV makes a running job PREEMPTEE while it is over a soft limit,
                // and one iteration more.
                let over = |set: &std::collections::BTreeSet<JobIdx>| set.contains(&running.idx);
                let preemptee = running.cred_factors.preemptee
                    || over(&self.over_soft_limits)
                    || over(&self.was_over_soft_limits);
                (preemptee && start_priority < own && freed > 0)
                    .then(|| (run_priority / freed as i64, k, running.idx, freed))
            })
            .collect();
        let offered: u64 = victims.iter().map(|v| v.3).sum();
        let free = self.machine.free_now(now).max(0) as u64;
        if offered + free < job.procs {
            return false;
        }
        victims.sort_unstable();
        let mut chosen = Vec::new();
        let mut freed = 0;
        for &(_, _, victim, procs) in &victims {
            if freed >= job.procs {
                break;
            }
            chosen.push(victim);
            freed += procs;
        }
        // 3.3.1 takes victims only on the nodes the job could use now, the nodes other
        // jobs' reservations leave it (MNodeGetPreemptList over the feasible list): where
        // freeing them would not let the job start, nothing is preempted.
        let mut probe = self.machine.clone();
        for &victim in &chosen {
            probe.ended(victim, now, now);
        }
        if !probe.fits(now, job) {
            return false;
        }
        // Where the job then goes (MSched.c `MJobSelectMNL`, `MJobAllocMNL`): the nodes
        // free before, in the policy's order, then the victims' nodes, the last victim's
        // first and each one's from its last node.
        let idle = self.machine.start_now_order(now, job);
        let mut freed_nodes = Vec::new();
        for &victim in chosen.iter().rev() {
            let mut nodes: Vec<u32> = self
                .machine
                .placement(victim)
                .iter()
                .map(|&(n, _)| n)
                .collect();
            nodes.sort_unstable_by(|a, b| b.cmp(a));
            freed_nodes.extend(nodes);
        }
        for victim in chosen {
            self.preempt(now, victim, out);
        }
        let fits = self.machine.fits(now, job);
        if fits && freed < job.procs {
            // The victims' processors alone do not cover the job: 3.3.1 preempts them all,
            // then finds it short and fails the start (MSched.c `MJobSelectMNL`, "unable to
            // preempt adequate resources"). Its first priority call reserves the job from
            // now instead, on the nodes a reservation takes there (the last node first),
            // and the second starts it on them, then reserves with its own count: as if it
            // started now on those nodes.
            let reserved = self.machine.reservation_nodes_now(now, job);
            self.preemptor_nodes = reserved.map(|nodes| (job.idx, nodes));
            return fits;
        }
        if let (Some(mut order), true) = (idle, fits) {
            // A node both idle in part and a victim's, or two victims', is listed once,
            // where 3.3.1 moves it: among the preempted nodes.
            order.extend(freed_nodes);
            let mut seen = std::collections::HashSet::new();
            let mut last_first: Vec<u32> = order
                .into_iter()
                .rev()
                .filter(|&n| seen.insert(n))
                .collect();
            last_first.reverse();
            self.preemptor_nodes = Some((job.idx, last_first));
        }
        fits
    }

    /// Takes `victim` off its nodes at `now`: its usage and fairshare charge stop there,
    /// and the caller requeues it ([`Decisions::preempted`]).
    fn preempt(&mut self, now: Time, victim: JobIdx, out: &mut Decisions) {
        let placement = self.machine.placement(victim).to_vec();
        // Not a completion: backfill chunking does not count from it.
        self.release(now, now, now, victim);
        out.preempted.push(Preempted {
            job: victim,
            placement,
        });
        self.requeued_wakeup = Some(now + 1);
    }

    /// A running job left (ended or preempted): off the lists of running jobs.
    pub(super) fn forget_running(&mut self, job: JobIdx) {
        if let Some(k) = self.maui_running.iter().position(|j| j.idx == job) {
            self.maui_running.swap_remove(k);
        }
        if let Some(k) = self.preemptees.iter().position(|(j, _)| j.idx == job) {
            // Kept in start order: it orders victims of equal cost.
            self.preemptees.remove(k);
        }
        self.over_soft_limits.remove(&job);
        self.was_over_soft_limits.remove(&job);
    }
}
