//! Jobs a hard active limit blocks, set aside until that limit can lift.
//!
//! A job blocked by a hard active limit on a metric time alone does not lower (MAXJOB,
//! MAXPROC, MAXNODE, MAXPE, MAXMEM) stays blocked by that same limit for as long as the
//! active usage of the credentials it was judged against stays as it is
//! ([`Throttle::waits_on`]), and that usage moves only when one of their jobs starts or
//! ends. Such a job is *parked*: it leaves the priority order and the selection, where
//! the full evaluation would find it ineligible every time, until one of those usages
//! moves. What each iteration would have done to it is done without visiting it: its block
//! is counted from a tally per kind of limit, and its effective queue time, which restarts
//! at every iteration it is blocked in (JOBPRIOACCRUALPOLICY), is set to the last of them
//! when it comes back.
//!
//! So an iteration costs what changed (the jobs of the credentials whose usage moved), not
//! what is queued: on a long queue held back by per-user limits most jobs sit parked.
//!
//! Under Maui 3.3.1's selection a block also rests on the order, and a job may be parked
//! only while no gap between iterations outgrows what keeps it below the running jobs
//! ([`super::maui_parking`]): such a job is listed by that gap too, and comes back when an
//! iteration follows a longer one.
//!
//! [`Throttle::waits_on`]: crate::throttle::Throttle::waits_on

use crate::job::{JobIdx, QueuedJob};
use crate::limits::LimitKind;
use crate::queue::Queue;
use crate::throttle::WaitsOn;
use crate::Time;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// A parked job's mark: which parking it is (entries of an earlier one are stale), the
/// tally its block counts in, and what it waits on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ParkedMark {
    generation: u32,
    tally: u16,
    on: WaitsOn,
    /// It waits on the gap between iterations too (it is in `by_gap`).
    gap_bound: bool,
}

/// One parked job in the list of a usage it waits on: found again in the queue by binary
/// search on `(submit, id)`, or by its index where the queue is not in that order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
    submit: Time,
    id: u64,
    job: JobIdx,
    generation: u32,
}

/// The parked jobs waiting on one usage. Entries of jobs that came back through another
/// usage stay until this one moves, or until they outnumber the live ones.
#[derive(Debug, Clone, Default)]
struct Waiting {
    entries: Vec<Entry>,
    live: usize,
    /// Listed for [`Parking::compact`].
    overgrown: bool,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Parking {
    on: bool,
    /// By credential kind index, then credential id.
    on_cred: [Vec<Waiting>; 5],
    on_system: Waiting,
    /// Parked jobs per kind of limit blocking them: each counts one block per iteration.
    tallies: Vec<(LimitKind, u64)>,
    parked: usize,
    /// Parkings so far.
    parkings: u64,
    next_generation: u32,
    /// Lists with more stale entries than live ones since the last [`Self::compact`]:
    /// (kind index, id), or `None` for the system's.
    overgrown: Vec<Option<(usize, usize)>>,
    /// Scratch: the entries of the usages that moved.
    leaving: Vec<Entry>,
    /// The parked jobs that stay blocked only while iterations come at most so many
    /// seconds apart, the least first, and how many of them are still parked.
    by_gap: BinaryHeap<Reverse<(Time, Entry)>>,
    gap_bound_live: usize,
}

impl Parking {
    pub(crate) fn set_on(&mut self, on: bool) {
        self.on = on;
    }

    #[inline]
    pub(crate) fn is_on(&self) -> bool {
        self.on
    }

    /// How many times a job was parked.
    pub(crate) fn parkings(&self) -> u64 {
        self.parkings
    }

    /// How many queued jobs are parked.
    #[inline]
    pub(crate) fn parked(&self) -> usize {
        self.parked
    }

    /// Sets `job`, just found blocked by `kind` of limit, aside until one of the usages
    /// `on` names moves, or until two iterations come more than `gap` seconds apart.
    pub(crate) fn park(
        &mut self,
        job: &mut QueuedJob,
        kind: LimitKind,
        on: WaitsOn,
        gap: Option<Time>,
    ) {
        debug_assert!(job.parked.is_none(), "job {} parked twice", job.id);
        let tally = match self.tallies.iter().position(|(k, _)| *k == kind) {
            Some(t) => t,
            None => {
                self.tallies.push((kind, 0));
                self.tallies.len() - 1
            }
        };
        self.tallies[tally].1 += 1;
        self.parkings += 1;
        self.next_generation = self.next_generation.wrapping_add(1);
        let entry = Entry {
            submit: job.submit,
            id: job.id,
            job: job.idx,
            generation: self.next_generation,
        };
        job.parked = Some(ParkedMark {
            generation: entry.generation,
            tally: tally as u16,
            on,
            gap_bound: gap.is_some(),
        });
        self.parked += 1;
        if let Some(gap) = gap {
            self.by_gap.push(Reverse((gap, entry)));
            self.gap_bound_live += 1;
        }
        for (kind, id) in on.creds(job) {
            let lists = &mut self.on_cred[kind];
            if lists.len() <= id {
                lists.resize_with(id + 1, Waiting::default);
            }
            if lists[id].add(entry) {
                self.overgrown.push(Some((kind, id)));
            }
        }
        if on.system() && self.on_system.add(entry) {
            self.overgrown.push(None);
        }
    }

    /// Adds the parked jobs' blocks of one iteration to `blocks`.
    pub(crate) fn count_blocks(&self, blocks: &mut Vec<(LimitKind, u64)>) {
        for &(kind, n) in self.tallies.iter().filter(|(_, n)| *n > 0) {
            match blocks.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, m)) => *m += n,
                None => blocks.push((kind, n)),
            }
        }
    }

    /// Brings back every parked job waiting on a usage that moved (`changed` credentials,
    /// and the system's if `system_changed`) or parked only while iterations come less
    /// than `gap` (the one since the last iteration) apart: `restart`, when given,
    /// restarts its queue time (at the last iteration it sat out), and its position joins
    /// `unparked`, ascending.
    pub(crate) fn release(
        &mut self,
        changed: &[(usize, usize)],
        system_changed: bool,
        gap: Time,
        queue: &mut Queue,
        restart: &mut Option<impl FnMut(&mut QueuedJob)>,
        unparked: &mut Vec<usize>,
    ) {
        unparked.clear();
        if self.parked == 0 {
            return;
        }
        let mut leaving = std::mem::take(&mut self.leaving);
        leaving.clear();
        for &(kind, id) in changed {
            if let Some(w) = self.on_cred[kind].get_mut(id) {
                leaving.append(&mut w.entries);
                w.live = 0;
            }
        }
        if system_changed {
            leaving.append(&mut self.on_system.entries);
            self.on_system.live = 0;
        }
        while let Some(&Reverse((tolerated, entry))) = self.by_gap.peek() {
            if tolerated >= gap {
                break;
            }
            self.by_gap.pop();
            leaving.push(entry);
        }
        leaving.sort_unstable_by_key(|e| (e.submit, e.id, e.generation));
        leaving.dedup_by_key(|e| (e.submit, e.id, e.generation));
        let locator = Locator::new(queue);
        for e in &leaving {
            let Some(pos) = locator.find(queue, e) else {
                continue;
            };
            let job = &mut queue[pos];
            self.unpark(job);
            if let Some(restart) = restart {
                restart(job);
            }
            unparked.push(pos);
        }
        self.leaving = leaving;
    }

    /// Brings back every parked job (see [`Self::release`]).
    pub(crate) fn release_all(
        &mut self,
        queue: &mut Queue,
        restart: &mut Option<impl FnMut(&mut QueuedJob)>,
        unparked: &mut Vec<usize>,
    ) {
        unparked.clear();
        if self.parked == 0 {
            return;
        }
        for (pos, job) in queue.iter_mut().enumerate() {
            if job.parked.take().is_some() {
                if let Some(restart) = restart {
                    restart(job);
                }
                unparked.push(pos);
            }
        }
        for lists in &mut self.on_cred {
            lists.clear();
        }
        self.on_system = Waiting::default();
        self.overgrown.clear();
        self.tallies.clear();
        self.parked = 0;
        self.by_gap.clear();
        self.gap_bound_live = 0;
    }

    /// `job` comes back: its tally and its other lists lose it.
    fn unpark(&mut self, job: &mut QueuedJob) {
        let mark = job.parked.take().expect("a parked job");
        self.tallies[mark.tally as usize].1 -= 1;
        self.parked -= 1;
        for (kind, id) in mark.on.creds(job) {
            let w = &mut self.on_cred[kind][id];
            // (The list that moved is empty and counts no one.)
            w.live = w.live.saturating_sub(1);
        }
        if mark.on.system() {
            self.on_system.live = self.on_system.live.saturating_sub(1);
        }
        if mark.gap_bound {
            self.gap_bound_live -= 1;
        }
    }

    /// Drops the entries of jobs no longer parked from the lists that have more of them
    /// than live ones, so that no list outgrows its parked jobs for long.
    pub(crate) fn compact(&mut self, queue: &Queue) {
        let gaps_overgrown = self.by_gap.len() > 2 * self.gap_bound_live + 16;
        if self.overgrown.is_empty() && !gaps_overgrown {
            return;
        }
        let locator = Locator::new(queue);
        if gaps_overgrown {
            self.by_gap
                .retain(|Reverse((_, e))| locator.find(queue, e).is_some());
        }
        for list in self.overgrown.drain(..) {
            let w = match list {
                Some((kind, id)) => &mut self.on_cred[kind][id],
                None => &mut self.on_system,
            };
            w.entries.retain(|e| locator.find(queue, e).is_some());
            w.overgrown = false;
        }
    }
}

impl Waiting {
    /// Adds a live entry; true when the list is to be compacted and was not listed yet.
    fn add(&mut self, entry: Entry) -> bool {
        self.entries.push(entry);
        self.live += 1;
        if self.overgrown || self.entries.len() <= 2 * self.live + 16 {
            return false;
        }
        self.overgrown = true;
        true
    }
}

/// Finds parked jobs in the queue: by binary search where the queue is in `(submit, id)`
/// order (galloping from the last one found, for lookups in ascending order), else through
/// the positions of its parked jobs, gathered in one pass.
enum Locator {
    Search(std::cell::Cell<usize>),
    Gathered(HashMap<JobIdx, usize>),
}

impl Locator {
    fn new(queue: &Queue) -> Self {
        if queue.in_key_order() {
            return Locator::Search(std::cell::Cell::new(0));
        }
        let parked = queue.iter().enumerate().filter(|(_, j)| j.parked.is_some());
        Locator::Gathered(parked.map(|(pos, j)| (j.idx, pos)).collect())
    }

    /// The queue position of the job `entry` parked, if it is still parked by that parking.
    fn find(&self, queue: &Queue, entry: &Entry) -> Option<usize> {
        let still = |pos: &usize| {
            queue[*pos]
                .parked
                .is_some_and(|m| m.generation == entry.generation)
        };
        match self {
            Locator::Search(last) => {
                let at = queue.positions_of_from(entry.submit, entry.id, last.get());
                last.set(at.start);
                at.clone().find(still)
            }
            Locator::Gathered(at) => at.get(&entry.job).copied().filter(still),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cred::{CredId, CredKind};
    use crate::limits::{Level, Metric, Scope};

    const BLOCK: LimitKind = LimitKind {
        scope: Scope::Active,
        level: Level::Hard,
        kind: Some(CredKind::User),
        per: None,
        metric: Metric::Job,
    };

    /// Forty jobs of user 0 and group 0.
    fn queue() -> Queue {
        (0..40u32)
            .map(|i| {
                let mut j = QueuedJob::new(JobIdx(i), u64::from(i), i64::from(i), 1, 60);
                j.creds.set(CredKind::User, CredId(0));
                j.creds.set(CredKind::Group, CredId(0));
                j
            })
            .collect()
    }

    fn park_all(p: &mut Parking, q: &mut Queue) {
        let on = WaitsOn::from_bits(0b11);
        for job in q.iter_mut() {
            p.park(job, BLOCK, on, None);
        }
        p.compact(q);
    }

    fn release(p: &mut Parking, q: &mut Queue, changed: &[(usize, usize)]) -> Vec<usize> {
        let mut back = Vec::new();
        p.release(
            changed,
            false,
            0,
            q,
            &mut None::<fn(&mut QueuedJob)>,
            &mut back,
        );
        back
    }

    /// Jobs that came back through their user's list leave stale entries in their group's;
    /// once those outnumber the live ones the list is compacted, and what it still holds
    /// comes back whole when the group's usage moves.
    #[test]
    fn stale_entries_are_dropped_and_the_live_ones_still_come_back() {
        let (mut p, mut q) = (Parking::default(), queue());
        let (user, group) = ((CredKind::User.index(), 0), (CredKind::Group.index(), 0));
        park_all(&mut p, &mut q);
        assert_eq!(
            release(&mut p, &mut q, &[user]),
            (0..40).collect::<Vec<_>>()
        );
        assert_eq!(p.parked(), 0);
        assert_eq!(p.on_cred[group.0][0].entries.len(), 40, "stale, none live");
        // Parked again: past 16 more stale entries than live ones, the list is compacted.
        park_all(&mut p, &mut q);
        assert_eq!(
            p.on_cred[group.0][0].entries.len(),
            40,
            "compacted to the live"
        );
        assert_eq!(p.on_cred[user.0][0].entries.len(), 40);
        let mut counted = Vec::new();
        p.count_blocks(&mut counted);
        assert_eq!(counted, [(BLOCK, 40)]);
        assert_eq!(
            release(&mut p, &mut q, &[group]),
            (0..40).collect::<Vec<_>>()
        );
        assert!(q.iter().all(|j| j.parked.is_none()));
        assert!(
            release(&mut p, &mut q, &[user]).is_empty(),
            "stale entries find no one"
        );
    }
}
