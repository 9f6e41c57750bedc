//! The reservations' earliest placements carried from one iteration to the next, while
//! what they depend on stays (see [`CarriedSearches`]).

use super::*;

/// What a reservation's earliest placement depends on besides the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct SearchKey {
    pub(super) job: JobIdx,
    pub(super) procs: u64,
    pub(super) wcl: Time,
    pub(super) request: crate::node::Request,
    pub(super) partition: u32,
    pub(super) whole: bool,
}

impl SearchKey {
    pub(super) fn of(job: &QueuedJob, partition: u32) -> Self {
        SearchKey {
            job: job.idx,
            procs: job.procs,
            wcl: job.wcl,
            request: job.request,
            partition,
            whole: job.cred_factors.dedicated,
        }
    }
}

/// The reservations' earliest placements of one iteration, carried to the next.
///
/// A reservation's earliest start and nodes under Maui's LASTAVAILABLE depend only on the
/// claims on the nodes (the running jobs', the standing reservations' and those of the
/// reservations made before it in the iteration) and on which running jobs are past their
/// planned end, not otherwise on the instant: whether a start at an instant is feasible is
/// a property of the claims, and a later start takes the last nodes that can host it. So
/// while no job ends or is extended, an iteration that reserves the same jobs in the same
/// order finds the same placements, as long as no planned end passes in between and each
/// placement still lies after now. Jobs started after the reservations were laid (the
/// iteration's later starts and its backfill) do not change them either: such a job took
/// no node of a reservation over its interval, so no earlier start became feasible (claims
/// only take away) and the nodes a reservation took can still host it, while the nodes
/// after them in LASTAVAILABLE's order could not before. A job ended early frees processors
/// sooner, which cannot make an earlier start feasible while the search's count before the
/// start stays below the job's tasks with them added, nor change the nodes taken where each
/// was planned to end by the start. A job ended as planned frees nothing the search did not
/// count free from then on, so it changes no count from now on: the placement stands where
/// the search's count stayed below the job's tasks before the start (a search from now would
/// otherwise try an instant the last one tried under the rule of a later start, and a start
/// now picks nodes by another). (3.3.1's search counting exceptions are checked where a
/// placement is carried, [`Machine::carried_placement`].) A machine drained for a wide job
/// reserves that job on thousands of nodes at every submission, start and end: this spares
/// the search, and [`Machine::keeps_laid`] the claims.
#[derive(Debug, Clone, Default)]
pub(super) struct CarriedSearches {
    /// The last iteration's placements in reservation order, made (or carried) at
    /// `found_at` under version `found_version` of the running jobs.
    pub(super) found: Vec<Found>,
    pub(super) found_version: Option<u64>,
    pub(super) found_at: Time,
    /// This iteration's so far, while they are made in order under one version of the
    /// running jobs and none is released.
    pub(super) recording: Vec<Found>,
    pub(super) recording_version: Option<u64>,
    pub(super) recording_at: Time,
    /// Every placement recorded so far came from `found` (so the claims are the ones the
    /// next of `found` was searched around).
    pub(super) all_carried: bool,
    pub(super) stopped: bool,
    /// The running jobs' changes other than starts when recording began: the placements
    /// hold for the running jobs at the iteration's end if it did not move.
    pub(super) recording_changes: u64,
    /// The planned ends of the jobs started since recording began, and of those started
    /// after `found` was recorded, which its placements are checked against where they are
    /// carried (see [`Machine::carried_placement`]).
    pub(super) started_ends: Vec<Time>,
    pub(super) found_started_ends: Vec<Time>,
    /// The jobs ended by their planned end since the last iteration ended.
    pub(super) ended_by_plan: Vec<EndedByPlan>,
}

/// A job ended by its planned end between iterations.
#[derive(Debug, Clone)]
pub(super) struct EndedByPlan {
    pub(super) planned: Time,
    /// The processors it freed before its planned end: none for an end as planned.
    pub(super) procs: u64,
    /// Its nodes, where it ended early.
    pub(super) nodes: Vec<u32>,
}

/// A reservation left laid that stands ([`Machine::laid_carried`]): the carried search's
/// bound, and its nodes if they moved.
pub(super) type LaidCarried = (u64, Option<Allocation>);

/// Mandatory node sets leave no node to a job ([`Machine::node_set_for`]).
#[derive(Debug)]
pub(super) struct NoNodeSet;

/// A placement carried from the last iteration ([`Machine::carried_placement`]): as its
/// search found it, or with nodes freed early taken in.
pub(super) struct Carried<'a> {
    pub(super) at: Time,
    pub(super) nodes: Cow<'a, Allocation>,
    /// The most tasks a search now could count before `at`.
    pub(super) most: u64,
    /// Whether the search counted, at any instant, fewer tasks than a start would find
    /// there (see [`Found::fewer_than_a_start`]).
    pub(super) fewer_than_a_start: bool,
}

/// A reservation's placement as its search found it.
#[derive(Debug, Clone)]
pub(super) struct Found {
    pub(super) key: SearchKey,
    pub(super) at: Time,
    pub(super) nodes: Allocation,
    /// The most tasks the search counted at any instant before `at`, raised by what the
    /// jobs ended early since freed each time the placement was carried: what a search
    /// now could count there at most.
    pub(super) most: u64,
    /// Whether the search counted, at any instant it asked, fewer tasks than a start would
    /// find there (3.3.1's start ranges): then its count does not show that the job cannot
    /// start at a later instant, nor that a job started since takes nothing the rule counts.
    pub(super) fewer_than_a_start: bool,
    /// Whether 3.3.1's merge of start ranges at an instant decided the search
    /// (`Machine::merged_start`): its start depends on every node's windows, and is
    /// searched anew, never carried.
    pub(super) merged: bool,
}

impl CarriedSearches {
    pub(super) fn find(&self, rank: usize, running_version: u64, key: SearchKey) -> Option<&Found> {
        let in_step = !self.stopped
            && self.recording.len() == rank
            && (rank == 0 || self.all_carried)
            && self.found_version == Some(running_version);
        self.found.get(rank).filter(|f| in_step && f.key == key)
    }

    pub(super) fn record(
        &mut self,
        rank: usize,
        (running_version, changes_but_starts): (u64, u64),
        now: Time,
        found: Found,
        carried: bool,
    ) {
        if self.stopped
            || rank != self.recording.len()
            || self.recording_version.is_some_and(|v| v != running_version)
        {
            self.stopped = true;
            return;
        }
        if rank == 0 {
            self.recording_at = now;
            self.all_carried = true;
            self.started_ends.clear();
        }
        self.recording_version = Some(running_version);
        self.recording_changes = changes_but_starts;
        self.all_carried &= carried;
        self.recording.push(found);
    }

    pub(super) fn stop_recording(&mut self) {
        self.stopped = true;
    }

    /// Records the last iteration's placement at `rank` as this one's, carried: its
    /// reservation was taken again as it was laid.
    pub(super) fn carry_over(
        &mut self,
        rank: usize,
        versions: (u64, u64),
        now: Time,
        most: u64,
        moved: Option<Allocation>,
    ) {
        let Some(found) = self.found.get_mut(rank) else {
            self.stopped = true;
            return;
        };
        // A later placement was searched around this one's nodes: it is carried only if
        // they did not move.
        let unmoved = moved.is_none();
        let found = Found {
            nodes: moved.unwrap_or_else(|| std::mem::take(&mut found.nodes)),
            most,
            ..*found
        };
        self.record(rank, versions, now, found, unmoved);
    }

    /// Running `job` (its placement) ended at `freed`, the running jobs at
    /// `running_version` before. Between iterations, an end by the planned end leaves the
    /// placements found to be checked against it where they are carried; anything else
    /// makes them stale.
    pub(super) fn ended(&mut self, running_version: u64, freed: Time, job: &Placement) {
        let found_holds = self.found_version == Some(running_version);
        let planned = job.end;
        if found_holds && freed <= planned && self.recording.is_empty() {
            let early = freed < planned;
            self.ended_by_plan.push(EndedByPlan {
                planned,
                procs: if early { job.procs } else { 0 },
                nodes: if early {
                    job.nodes.iter().map(|&(n, _)| n).collect()
                } else {
                    Vec::new()
                },
            });
            self.found_version = Some(running_version + 1);
        }
    }

    /// A job started, planned to end at `end`.
    pub(super) fn started(&mut self, end: Time) {
        if !self.recording.is_empty() && !self.stopped {
            self.started_ends.push(end);
        }
    }

    /// Ends the iteration, whose running jobs are at `running_version` and
    /// `changes_but_starts`. Its placements are carried to the next if the running jobs
    /// changed only by starts since they were made: a job started after a reservation was
    /// laid around it, and took nothing from it (see [`Machine::carried_placement`]).
    pub(super) fn end_iteration(&mut self, running_version: u64, changes_but_starts: u64) {
        let recorded = self.recording_version.take().is_some();
        self.found = std::mem::take(&mut self.recording);
        let holds = recorded && !self.stopped && self.recording_changes == changes_but_starts;
        // A carried placement was checked against the starts and early ends before its
        // iteration, and its count bound raised by what they freed: only those since
        // count from now on.
        self.found_started_ends = std::mem::take(&mut self.started_ends);
        self.ended_by_plan.clear();
        self.found_version = holds.then_some(running_version);
        self.found_at = self.recording_at;
        self.stopped = false;
    }
}
