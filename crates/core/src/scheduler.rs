//! One scheduling iteration (guide 8.2).
//!
//! ```text
//! for J in priority order:
//!   until a job cannot start: start J if it fits now around every reservation
//!   from then on, while J's RESERVATIONQOSLIST group has depth left:
//!     take a unit of depth; start J if it fits, else reserve J at its earliest start
//!   once no group has depth left, the priority pass ends; what remains is backfill's
//! backfill by BACKFILLPOLICY, never touching a reservation
//! ```
//! FIRSTFIT starts, in priority order, every remaining job that fits now without touching
//! a reservation. A job fits in some backfill window exactly when it fits now around the
//! reservations, so this priority-order scan is FIRSTFIT over the windows, and with
//! RESERVATIONDEPTH 1 it is EASY backfilling. BESTFIT and GREEDY walk the windows, widest
//! first, choosing among each window's candidates ([`crate::backfill`]).
//!
//! Reservations are rebuilt from scratch every iteration (RESERVATIONPOLICY
//! CURRENTHIGHEST), which is how they slide earlier when jobs end early; under HIGHEST the
//! jobs that ever had one are re-reserved first, oldest first.

mod maui_parking;
mod parking;
mod preempt;

use maui_parking::LowestRunning;
pub(crate) use parking::ParkedMark;
use parking::Parking;

use crate::backfill::{best_fit, greedy_start, Candidate};
use crate::check::{Rule, Violation};
use crate::cred::{CredId, CredKind};
use crate::fairshare::Fairshare;
use crate::fit_index::Bound;
use crate::job::{JobIdx, QueuedJob};
use crate::limits::{Blocked, Level, LimitKind, Metric, Owner, Scope, Shortfall, Source};
use crate::machine::{HeldId, Machine, Unfit};
use crate::node::{AllocationPolicy, MachineSpec};
use crate::partition::Partitions;
use crate::policy::{
    BackfillPolicy, PolicyConfig, ReservationPolicy, ReservationThreshold, Semantics,
};
use crate::priority::{AccrualPolicy, Breakdown, Component, Sub};
use crate::priority_order::{Evaluation, PriorityOrder};
use crate::profile::{Window, FOREVER};
use crate::queue::Queue;
use crate::throttle::{Throttle, Verdict};
use crate::Time;
use std::sync::Arc;

/// Start this job now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Start {
    pub job: JobIdx,
    /// Position of the job in the queue slice given to [`Scheduler::schedule`].
    pub queue_pos: usize,
    /// Started while a higher-priority job stayed blocked.
    pub backfilled: bool,
}

/// What became of a job in one iteration, by its place in the priority order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    Waits,
    /// Blocked, and holds a reservation for this iteration.
    Reserved,
    StartedInPriorityPass,
    /// Started in the backfill phase: every job still waiting ahead of it was bypassed.
    Backfilled,
    /// Breaks a hard active or an idle limit: not eligible this iteration.
    Ineligible,
    /// Breaks a soft active limit only: waits for the second (hard) pass.
    SoftOnly,
}

/// A blocked job's promised start, valid for this iteration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reservation {
    pub job: JobIdx,
    pub start: Time,
}

/// What one iteration decided.
#[derive(Debug, Default, Clone)]
pub struct Decisions {
    pub starts: Vec<Start>,
    pub reservations: Vec<Reservation>,
    /// Running jobs preempted to make room for a PREEMPTOR job: already off their nodes;
    /// the caller requeues or suspends them (PREEMPTPOLICY) after the iteration.
    pub preempted: Vec<Preempted>,
}

/// A job preempted in an iteration, and where it ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preempted {
    pub job: JobIdx,
    /// Its nodes and the tasks it had on each (empty where processors are pooled): where a
    /// suspended job resumes.
    pub placement: Vec<(u32, u64)>,
}

impl Decisions {
    pub(crate) fn clear(&mut self) {
        self.starts.clear();
        self.reservations.clear();
        self.preempted.clear();
    }
}

/// The scheduler: policy plus the availability profile of the jobs it has started.
///
/// Its decisions are final: a started job's processors are taken in the profile at once,
/// and the caller must report the job's end with [`Scheduler::job_ended`].
#[derive(Debug, Clone)]
pub struct Scheduler {
    policy: PolicyConfig,
    /// The idle jobs' priority order, carried between iterations.
    ranking: PriorityOrder,
    machine: Machine,
    /// Fairshare usage, targets and caps.
    fairshare: Fairshare,
    /// When a relative fairshare cap that blocked a job in the last iteration lifts.
    cap_lifts_at: Option<Time>,
    /// When a job blocked by an outstanding-time limit (MAXPS, MAXWC) fits by time alone
    /// (the earliest such instant of the last iteration): no event marks it.
    limit_lifts_at: Option<Time>,
    /// The instant after the last iteration when it preempted: its victims, back in the
    /// queue, are seen by the next iteration, which no event may bring.
    requeued_wakeup: Option<Time>,
    /// Scratch: each job's fate this iteration, by priority rank.
    fate: Vec<Fate>,
    /// Scratch (Maui's passes with limits), by priority rank: whether the job is in 3.3.1's
    /// hard-level queue, the one its backfill draws from. Empty: every job is.
    in_hard_queue: Vec<bool>,
    /// Scratch (Maui's passes with limits), by priority rank: whether one of 3.3.1's
    /// `MQueueSelectJobs` calls lets the job through this iteration, so that its
    /// `EffQueueDuration` is brought up to date. Empty: every job not ineligible is.
    passes_selection: Vec<bool>,
    /// Scratch (Maui's passes): the reservations made this iteration, by priority rank.
    held: Vec<(usize, HeldId)>,
    /// The reservations the last iteration ended with (job, start, nodes, partition): in
    /// 3.3.1 they stand until the next iteration's `MQueueScheduleRJobs` reaches their job,
    /// so a RESERVEALWAYS job is reserved around those of the jobs ranked below it.
    last_reservations: Vec<(JobIdx, Time, crate::machine::Allocation, u32)>,
    /// Whether some QOS has the RESERVEALWAYS flag.
    reserves_always: bool,
    /// Maui's passes with limits: the running jobs as they were when they started, whose
    /// priorities place them in 3.3.1's hard selection.
    maui_running: Vec<QueuedJob>,
    /// The running PREEMPTEE jobs, in start order, as they started (their queue time
    /// frozen there), with their start times.
    preemptees: Vec<(QueuedJob, Time)>,
    /// Running jobs of a PREEMPTSPV QOS this iteration's selection found over a soft
    /// active limit, and those the last one found: 3.3.1 makes such a job PREEMPTEE at
    /// once (`MJobUpdateFlags`), but rebuilds its flags from the last iteration's
    /// violation before selecting again (MSim.c, MRM.c), so the flag outlives the
    /// violation by one iteration.
    over_soft_limits: std::collections::BTreeSet<JobIdx>,
    was_over_soft_limits: std::collections::BTreeSet<JobIdx>,
    /// The nodes, in order, a preemptor that just made room for itself takes (see
    /// `preempt_for`).
    preemptor_nodes: Option<(JobIdx, Vec<u32>)>,
    /// The reservation from now a RESERVEALWAYS job starts on (`maui_reserve_always`).
    reserved_placement: Option<(JobIdx, Vec<(u32, u64)>)>,
    /// Usage and limit checks; `None` when the config sets no limit.
    throttle: Option<Throttle>,
    /// Job-iterations blocked, by kind of limit (or fairshare cap).
    blocks: Vec<(LimitKind, u64)>,
    /// Scratch (HIGHEST): reservations kept from earlier iterations, as (priority rank,
    /// reservation), until the priority pass reaches their job.
    kept: Vec<(usize, HeldId)>,
    /// Scratch: depth left per reservation group in this iteration.
    groups_left: Vec<u32>,
    /// Reservations ever made: the next job's `reserved_seq`.
    reservations_made: u64,
    /// When the scheduler last learned of a completion (backfill chunking counts from it).
    last_completion: Option<Time>,
    /// When the chunking that kept a job off in the last iteration expires.
    chunk_expires_at: Option<Time>,
    /// When the scheduler last iterated (standing reservations ending later wake it up).
    last_iteration: Time,
    /// The last instant the queue or the running jobs changed, and the queue's length
    /// then: a standing reservation's windows wake the scheduler up for one cycle of them
    /// after it, and no longer (a job no window end lets in never will).
    last_change: Time,
    queue_len_seen: usize,
    /// Jobs set aside while a hard active limit blocks them.
    parking: Parking,
    /// Scratch of a Maui selection: where each credential's running jobs end in its order.
    lowest_running: LowestRunning,
    /// Every job judged at every level in Maui 3.3.1's selection, none spared (the
    /// reference its shortcut is tested against; `set_exhaustive_limits`).
    judges_every_level: bool,
    /// Scratch: the positions of the jobs back from parking, for the next order; the
    /// credentials whose usage moved; the ranks parked in this selection.
    unparked: Vec<usize>,
    changed: Vec<(usize, usize)>,
    parked_ranks: Vec<usize>,
    /// The Maui partition being scheduled (its index) and whether only the jobs whose
    /// default partition it is take part (3.3.1's first pass), while the machine is
    /// divided into partitions.
    call: Option<(u8, bool)>,
}

impl Scheduler {
    /// A scheduler for a machine of `total_procs` single-processor nodes, idle from
    /// `origin` on.
    #[cfg(test)]
    pub(crate) fn new(total_procs: u64, origin: Time, policy: PolicyConfig) -> Self {
        let spec = Arc::new(MachineSpec::homogeneous(total_procs, 1));
        Self::with_machine(spec, true, origin, policy)
    }

    /// A scheduler for the machine of `spec`, idle from `origin` on; `pooled` as
    /// [`MachineSpec::pools_processors`] finds for the jobs it will see.
    pub fn with_machine(
        spec: Arc<MachineSpec>,
        pooled: bool,
        origin: Time,
        mut policy: PolicyConfig,
    ) -> Self {
        if policy.semantics == Semantics::Maui331 {
            // 3.3.1's target-service factors and its MAXMEM, which it never checks (MPolicy.c).
            policy.priority.target_service_3_3_1 = true;
            let tables = &mut policy.creds;
            let every = tables
                .defaults
                .iter_mut()
                .chain(tables.settings.iter_mut().flatten());
            for settings in every {
                settings.limits.drop_metric(Metric::Mem);
            }
            policy.system_limits.drop_metric(Metric::Mem);
        }
        let mut throttle = Throttle::new(&policy.creds, &policy.system_limits);
        if let Some(t) = &mut throttle {
            t.set_defaults_idle_need_own(policy.semantics == Semantics::Maui331);
        }
        let fairshare = Fairshare::new(&policy.fairshare, &policy.creds, origin);
        let bounded = may_bound_priorities(&policy, throttle.is_some(), &fairshare);
        // A suspended job resumes on its own nodes only: they must be followed one by one.
        let pooled = pooled && policy.preemption != crate::policy::Preemption::Suspend;
        let divided = policy
            .partitions
            .as_ref()
            .is_some_and(Partitions::divide_the_machine);
        let tables = &policy.creds;
        let reserves_always = tables
            .defaults
            .iter()
            .chain(tables.settings.iter().flatten())
            .any(|s| s.reserve_always);
        let mut machine = Machine::new(spec, origin, pooled && !divided);
        if divided {
            machine.set_partitioned();
        }
        let maui = policy.semantics.is_maui();
        let current_highest = policy.reservation_policy == ReservationPolicy::CurrentHighest;
        machine.set_node_order(maui, !(maui && current_highest));
        if policy.semantics == Semantics::Maui331 {
            machine.follow_job_lists();
        }
        // 3.3.1's priority pass reserves the same jobs again and again while nothing
        // changes: their reservations stay laid for it to take again (`keeps_laid`).
        machine.leave_laid(follows_maui_passes(&policy));
        let mut parking = Parking::default();
        // A job of negative priority is rejected before any limit: no block stands alone.
        // Maui 3.3.1's selection recounts the usage job by job in priority order, so a
        // block stands only while the order does (`maui_parking`).
        let parks_in_maui_selection = follows_maui_passes(&policy)
            && maui_parking::may_park(
                &policy,
                &fairshare,
                fairshare_out_of_priority(&policy, &fairshare),
            );
        parking.set_on(
            throttle.is_some()
                && !policy.priority.reject_negative
                && (!maui || parks_in_maui_selection),
        );
        Scheduler {
            parking,
            lowest_running: Default::default(),
            judges_every_level: false,
            unparked: Vec::new(),
            changed: Vec::new(),
            parked_ranks: Vec::new(),
            throttle,
            fairshare,
            cap_lifts_at: None,
            limit_lifts_at: None,
            ranking: PriorityOrder::new(
                policy.priority_is_queue_order() && !policy.semantics.is_maui(),
                bounded,
            ),
            policy,
            machine,
            fate: Vec::new(),
            in_hard_queue: Vec::new(),
            passes_selection: Vec::new(),
            held: Vec::new(),
            last_reservations: Vec::new(),
            reserves_always,
            maui_running: Vec::new(),
            preemptees: Vec::new(),
            over_soft_limits: Default::default(),
            was_over_soft_limits: Default::default(),
            preemptor_nodes: None,
            reserved_placement: None,
            requeued_wakeup: None,
            blocks: Vec::new(),
            kept: Vec::new(),
            groups_left: Vec::new(),
            reservations_made: 0,
            last_completion: None,
            chunk_expires_at: None,
            last_iteration: Time::MIN,
            last_change: Time::MIN,
            queue_len_seen: 0,
            call: None,
        }
    }

    /// Evaluates every priority in every iteration, as the definition does: the reference
    /// the bounded path is tested against.
    pub fn set_exhaustive_priority(&mut self, exhaustive: bool) {
        self.ranking.set_exhaustive(exhaustive);
    }

    /// Judges every queued job against the limits in every iteration, as the definition
    /// does, instead of setting aside the jobs a hard active limit blocks until their
    /// credentials' usage moves: the reference parking is tested against. Call it before
    /// the first iteration.
    pub fn set_exhaustive_limits(&mut self, exhaustive: bool) {
        let on = self.parking.is_on() && !exhaustive;
        self.parking.set_on(on);
        self.judges_every_level = exhaustive;
    }

    /// Answers every node question by visiting every node (see
    /// `EngineOptions::exhaustive_nodes`).
    pub fn set_exhaustive_nodes(&mut self, exhaustive: bool) {
        self.machine.set_exhaustive(exhaustive);
    }

    /// Times a job blocked by a hard active limit was set aside.
    pub fn parkings(&self) -> u64 {
        self.parking.parkings()
    }

    /// Iterations decided from priority bounds.
    pub fn bounded_iterations(&self) -> u64 {
        self.ranking.bounded_iterations()
    }

    pub fn policy(&self) -> &PolicyConfig {
        &self.policy
    }

    pub fn machine(&self) -> &Machine {
        &self.machine
    }

    /// Whether priority is a non-decreasing function of queue time alone, so that a job
    /// submitted later never overtakes one already queued.
    pub fn priority_is_queue_order(&self) -> bool {
        self.ranking.is_queue_order()
    }

    /// Whether the config sets any throttling limit.
    pub fn has_limits(&self) -> bool {
        self.throttle.is_some()
    }

    /// `--check`: the books after an iteration at `now` that started `started`. Nodes
    /// hold no more than they have ([`Machine::verify`]); active usage equals a recount
    /// of the running jobs; no started job's credential is over a hard limit; each
    /// credential kind's fairshare usage adds up to the total.
    pub fn verify(&self, now: Time, started: &[&QueuedJob]) -> Result<(), Violation> {
        self.machine.verify(now)?;
        let broken = |rule, job: Option<JobIdx>, detail| Violation {
            time: now,
            rule,
            job,
            node: None,
            detail,
        };
        if let Some(t) = &self.throttle {
            let creds = &self.policy.creds;
            t.verify_usage(creds)
                .map_err(|d| broken(Rule::UsageRecount, None, d))?;
            for job in started {
                let over = t.over_hard_limit(creds, &self.policy.system_limits, job, now);
                if let Some(b) = over {
                    let detail = format!(
                        "{:?} {:?} of {:?}: usage {} over the limit {}",
                        b.level, b.metric, b.owner, b.usage, b.limit
                    );
                    return Err(broken(Rule::LimitBroken, Some(job.idx), detail));
                }
            }
        }
        self.fairshare
            .verify(now)
            .map_err(|d| broken(Rule::FairshareTotals, None, d))
    }

    /// Takes a newly queued job in: resolves its credential-dependent priority factors and
    /// notes whether it breaks the queue order. Every job given to [`Scheduler::schedule`]
    /// must have passed through here once. A job that breaks a per-job limit (or is larger
    /// than the machine) can never run: it is refused with that limit and must be held.
    pub fn admit(&mut self, job: &mut QueuedJob) -> Result<(), Blocked> {
        if self.policy.partitions.is_some() {
            // 3.3.1 reads no partition from a trace job (MTrace.c): its credentials'
            // partition lists say where it may run.
            job.creds.partition = CredId::NONE;
        }
        // Before the machine's question: a DEDICATED QOS's job is asked whole nodes, free
        // of MAXPEPERJOB.
        job.cred_factors = self.policy.creds.resolve(&job.creds);
        if let Err(unfit) = self.machine.can_ever_run(job) {
            let (lacks, metric, amount, limit) = match unfit {
                Unfit::Procs { asked, available } => {
                    (Shortfall::Procs, Metric::Proc, asked, available)
                }
                Unfit::TaskProcs { per_task, largest } => {
                    (Shortfall::TaskProcs, Metric::Proc, per_task, largest)
                }
                Unfit::Mem { per_task, largest } => {
                    (Shortfall::Mem, Metric::Mem, per_task, largest)
                }
                Unfit::Swap { per_task, largest } => {
                    (Shortfall::Swap, Metric::Mem, per_task, largest)
                }
                Unfit::Disk { per_task, largest } => {
                    (Shortfall::Disk, Metric::Mem, per_task, largest)
                }
                Unfit::Features => (Shortfall::Features, Metric::Proc, job.procs, 0),
                Unfit::NodeSets { asked, largest } => {
                    (Shortfall::NodeSets, Metric::Proc, asked, largest)
                }
                Unfit::StartLimits { asked, available } => {
                    (Shortfall::StartLimits, Metric::Proc, asked, available)
                }
            };
            return Err(Blocked {
                scope: Scope::PerJob,
                level: Level::Hard,
                owner: Owner::System,
                metric,
                source: Source::Machine(lacks),
                usage: 0,
                amount,
                limit,
            });
        }
        if self.throttle.is_some() {
            let policy = &self.policy;
            if let Some(b) = Throttle::check_per_job(&policy.creds, &policy.system_limits, job) {
                return Err(b);
            }
        }
        self.admit_to_partitions(job)?;
        // 3.3.1's `EffQueueDuration` is followed only where its passes are.
        job.queued_from_submit = self.maui_passes() && !self.policy.priority.system_queue_time;
        (job.standing_access, job.standing_short) = self.machine.standing_access(job);
        self.ranking.admitted(job);
        Ok(())
    }

    /// The partitions `job` may run in and fits in (3.3.1's `MJobGetPAL`, and the
    /// size and resource checks of `MQueueCheckSingleJob`), onto the job; refused when
    /// there is none, where 3.3.1 leaves the job idle for ever.
    fn admit_to_partitions(&mut self, job: &mut QueuedJob) -> Result<(), Blocked> {
        let Some(partitions) = &self.policy.partitions else {
            return Ok(());
        };
        let access = partitions.access(&self.policy.creds, &job.creds);
        let divided = partitions.divide_the_machine();
        let mut usable = 0;
        for i in partitions.with_nodes() {
            if access.allowed & (1 << i) == 0 {
                continue;
            }
            // One partition with nodes holds the whole machine, checked above.
            let fits = !divided || {
                self.machine.restrict_to(partitions.nodes_of(i));
                let fits = self.machine.can_ever_run(job).is_ok();
                self.machine.restrict_to(0);
                fits
            };
            if fits {
                usable |= 1 << i;
            }
        }
        job.partitions = usable;
        job.default_partition = access.default;
        if usable != 0 {
            return Ok(());
        }
        Err(Blocked {
            scope: Scope::PerJob,
            level: Level::Hard,
            owner: Owner::System,
            metric: Metric::Proc,
            source: Source::Machine(Shortfall::Partitions),
            usage: u64::from(access.allowed),
            amount: job.procs,
            limit: 0,
        })
    }

    /// Job-iterations blocked so far, by kind of limit (empty without limits).
    pub fn limit_blocks(&self) -> Vec<(LimitKind, u64)> {
        let mut b = self.blocks.clone();
        b.sort();
        b
    }

    pub fn fairshare(&self) -> &Fairshare {
        &self.fairshare
    }

    pub fn fairshare_mut(&mut self) -> &mut Fairshare {
        &mut self.fairshare
    }

    /// Brings time-dependent state (the profile, fairshare windows) up to `now`.
    pub fn advance_to(&mut self, now: Time) {
        self.machine.advance(now);
        self.fairshare.advance(now);
    }

    /// When policy can next change what the last iteration decided without any job
    /// starting or ending: a fairshare window roll (while it changes anything), a relative
    /// cap lifting as others' usage grows, backfill chunking expiring, or a standing
    /// reservation ending after the last iteration. The caller should iterate then if
    /// jobs wait, as Maui's polling would.
    pub fn next_wakeup(&self) -> Option<Time> {
        [
            self.fairshare.next_change(),
            self.cap_lifts_at,
            self.limit_lifts_at,
            self.requeued_wakeup,
            self.chunk_expires_at,
            // Before the first iteration no window's end is owed one (and `Time::MIN`
            // would overflow the windows' arithmetic).
            (self.last_iteration > Time::MIN)
                .then(|| {
                    self.machine
                        .standing_end_after(self.last_iteration, self.last_change)
                })
                .flatten(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Every factor of an idle job's priority at `now` (`diagnose -p`), after
    /// [`Scheduler::advance_to`] `now`.
    pub fn breakdown(&self, job: &QueuedJob, now: Time) -> Breakdown {
        self.policy
            .priority
            .breakdown(job, now, &self.fairshare.at(now))
    }

    /// Queue positions in priority order at `now`, highest first.
    pub fn priority_order(&mut self, now: Time, queue: &mut Queue) -> Vec<usize> {
        self.advance_to(now);
        self.bring_back_all(queue);
        self.prioritize(now, queue);
        self.ranking.current().to_vec()
    }

    /// Whether `job` could start at `now` on the nodes as they are (no reservations).
    pub fn fits_now(&mut self, now: Time, job: &QueuedJob) -> bool {
        self.machine.advance(now);
        self.machine.settle();
        if self.machine.is_pooled() {
            // Between iterations nothing is reserved, so free processors only grow from
            // now on: what is free now is free for the job's whole limit.
            return self.machine.free_now(now) >= job.procs as i64;
        }
        self.machine.fits(now, job)
    }

    /// `job` ended at `ended`; its nodes count as free from `freed` on (the same instant
    /// unless the caller polls). Its fairshare usage stops at `charged_until` (≤ `ended`:
    /// `ended` but where the caller samples usage as Maui's polling does).
    pub fn job_ended(&mut self, ended: Time, freed: Time, charged_until: Time, job: JobIdx) {
        self.last_completion = Some(self.last_completion.map_or(freed, |t| t.max(freed)));
        self.release(ended, freed, charged_until, job);
    }

    /// A running job leaves its nodes (it ended, or was preempted): its fairshare charge
    /// stops at `charged_until`, its usage and its place among the running jobs go.
    fn release(&mut self, ended: Time, freed: Time, charged_until: Time, job: JobIdx) {
        self.fairshare
            .job_ended_charged_until(ended, charged_until.min(ended), job);
        self.last_change = self.last_change.max(freed);
        self.machine.ended(job, ended, freed);
        if let Some(t) = &mut self.throttle {
            t.discharge(&self.policy.creds, job);
        }
        self.forget_running(job);
    }

    /// Running `job` passed its planned end at `from` and may hold its nodes until
    /// `until` (overrun allowance, or [`crate::FOREVER`] when unbounded).
    pub fn job_extended(&mut self, job: JobIdx, from: Time, until: Time) {
        self.machine.extended(job, from, until);
        if let Some(t) = &mut self.throttle {
            t.passed_limit(&self.policy.creds, job);
        }
    }

    /// Running `job` outlived the length it was planned with (a runtime prediction, not
    /// its limit) and is planned to hold its nodes until `until` now.
    pub fn job_replanned(&mut self, job: JobIdx, from: Time, until: Time) {
        self.machine.extended(job, from, until);
    }

    /// Every idle job's standing against the limits at `now`, in priority order: what
    /// the next iteration's selection would find (`inspect … blocked`).
    pub fn explain(&mut self, now: Time, queue: &mut Queue) -> Vec<(usize, Verdict)> {
        self.advance_to(now);
        self.bring_back_all(queue);
        self.prioritize(now, queue);
        let order = self.ranking.current().to_vec();
        if let Some(t) = &mut self.throttle {
            t.begin_selection();
        }
        order
            .iter()
            .map(|&pos| (pos, self.judge(&queue[pos], now)))
            .collect()
    }

    /// One step of the selection in priority order: the throttling verdict (which adds an
    /// eligible job to the idle usage), then the fairshare caps.
    fn judge(&mut self, job: &QueuedJob, now: Time) -> Verdict {
        if let Some(b) = self.negative_priority(job, now) {
            return Verdict::Blocked(b);
        }
        let (creds, system) = (&self.policy.creds, &self.policy.system_limits);
        let verdict = match &mut self.throttle {
            Some(t) => t.judge(creds, system, job, now),
            None => Verdict::Eligible,
        };
        if matches!(verdict, Verdict::Blocked(_)) {
            return verdict;
        }
        match self.fairshare.check_caps(job, now) {
            Some(cap) => Verdict::Blocked(cap),
            None => verdict,
        }
    }

    /// REJECTNEGPRIOJOBS: the block of a job whose priority is below 0. Maui 3.3.1's
    /// selection rejects it before it looks at any limit (MPolicy.c `MQueueSelectJobs`),
    /// so it takes no idle slot.
    fn negative_priority(&self, job: &QueuedJob, now: Time) -> Option<Blocked> {
        if !self.policy.priority.reject_negative {
            return None;
        }
        let priority = self.breakdown(job, now).priority;
        (priority < 0).then(|| Blocked {
            scope: Scope::NegativePriority,
            level: Level::Hard,
            owner: Owner::System,
            metric: Metric::Job,
            source: Source::Own,
            usage: 0,
            amount: priority.unsigned_abs(),
            limit: 0,
        })
    }

    /// When a job of negative priority reaches 0, if waiting alone raises it: its queue
    /// time counts (it was never selected, or accrues in any case) and the priority grows
    /// with time. Found by doubling, then halving, the time ahead: a priority that grows
    /// with time is nondecreasing in it. `None` when it never gets there this way (a
    /// fairshare change, which has its own wakeup, may still lift it).
    fn priority_reaches_zero(&self, job: &QueuedJob, now: Time) -> Option<Time> {
        let restarts = self.policy.priority.accrual == AccrualPolicy::FullPolicy;
        let frozen = matches!(job.selected_queued, Some(d) if d > 0);
        if restarts || frozen || !self.policy.priority.grows_with_time() {
            return None;
        }
        let fs = self.fairshare.at(now);
        let reached = |ahead: Time| {
            let at = now.saturating_add(ahead);
            self.policy.priority.breakdown(job, at, &fs).priority >= 0
        };
        const HORIZON: Time = 1 << 40;
        let mut ahead = 1;
        while !reached(ahead) {
            if ahead >= HORIZON {
                return None;
            }
            ahead *= 2;
        }
        // Not reached at ahead / 2 (or at 0), reached at ahead.
        let (low, high) = (ahead / 2, ahead);
        let last_short =
            maui_parking::last_true(|a| !reached(a), low, high, low + (high - low) / 2);
        Some(now.saturating_add(last_short + 1))
    }

    /// Runs one iteration at `now` over the idle `queue` (ordered by `(submit, id)`).
    ///
    /// With limits configured, an iteration first selects the eligible jobs in priority
    /// order (hard active and idle limits; MAUI-SEMANTICS §3), then makes two passes
    /// (guide 6.2.4, 8.2): the first over the jobs within their soft limits (start,
    /// reserve, backfill), the second over those within only their hard limits, which may
    /// use what is still idle around the reservations.
    pub fn schedule(&mut self, now: Time, queue: &mut Queue, out: &mut Decisions) {
        self.iterate(now, queue, out, None);
    }

    /// What an iteration at `now` would reserve, and the backfill windows it would leave
    /// around those reservations (`showbf`), without changing anything. Starts the
    /// priority pass would make (none, right after an iteration at `now`) are in
    /// `decisions.starts`, and the windows are those left after them.
    pub fn plan(&self, now: Time, queue: &Queue) -> (Decisions, Vec<Window>) {
        let mut probe = self.clone();
        let mut queue = queue.clone();
        let mut decisions = Decisions::default();
        let mut windows = Vec::new();
        probe.iterate(now, &mut queue, &mut decisions, Some(&mut windows));
        (decisions, windows)
    }

    /// One iteration; with `windows`, it stops before backfill and reports the windows.
    fn iterate(
        &mut self,
        now: Time,
        queue: &mut Queue,
        out: &mut Decisions,
        windows: Option<&mut Vec<Window>>,
    ) {
        out.clear();
        self.advance_to(now);
        self.machine.update_node_states();
        let previous = std::mem::replace(&mut self.last_iteration, now);
        self.bring_back(previous, now, queue);
        if queue.len() != self.queue_len_seen {
            self.queue_len_seen = queue.len();
            self.last_change = now;
        }
        self.limit_lifts_at = None;
        self.requeued_wakeup = None;
        let bounded = windows.is_none() && self.order_by_bounds(now, queue);
        if !bounded {
            self.prioritize(now, queue);
        }
        let order = self.ranking.take();
        self.fate.clear();
        self.fate.resize(order.len(), Fate::Waits);
        self.chunk_expires_at = None;
        let selects = self.throttle.is_some()
            || self.fairshare.has_caps()
            || self.policy.priority.reject_negative;
        let maui = self.maui_passes();
        self.in_hard_queue.clear();
        self.passes_selection.clear();
        let mut soft_only = if maui && self.throttle.is_some() {
            self.maui_select(now, &order, queue)
        } else {
            selects && self.select(now, &order, queue)
        };
        let mut groups_left = std::mem::take(&mut self.groups_left);
        groups_left.clear();
        let never = self.policy.reservation_policy == ReservationPolicy::Never;
        let depths = self.policy.reservation_groups.iter();
        groups_left.extend(depths.map(|g| if never { 0 } else { g.depth }));
        if self.policy.reservation_policy == ReservationPolicy::Highest {
            self.keep_reservations(now, &order, queue, out, &mut groups_left);
        }
        let strict = self.policy.backfill == BackfillPolicy::None;
        if maui {
            self.maui_reserve_always(now, &order, queue, out);
        }
        let blocked = if maui {
            // MSched.c `MSchedProcessJobs` calls MQueueScheduleIJobs twice over (all
            // partitions), the second time on the soft queue selected anew: the jobs the
            // first call's starts put over a soft limit leave it, with their reservations,
            // and their depth is free again. On a machine divided into partitions, the
            // first pass schedules each partition's jobs of that default partition, the
            // second every job each partition may take, partition by partition; each
            // call selects its soft queue anew and has its own reservation count. (Without
            // limits, the nodes' start limits or partitions the second call finds nothing
            // the first left; with start limits, a reservation from now on the first made
            // does not count in the second.)
            let calls: Vec<Option<(u8, bool)>> = match self.partition_calls() {
                calls if !calls.is_empty() => calls.into_iter().map(Some).collect(),
                _ if self.throttle.is_some() || self.machine.has_start_limits() => {
                    vec![None, None]
                }
                _ => vec![None],
            };
            let mut blocked = false;
            for (k, &call) in calls.iter().enumerate() {
                if k > 0 {
                    if self.throttle.is_some() {
                        self.maui_reselect(now, &order, queue, out);
                    }
                    groups_left.clear();
                    let depths = self.policy.reservation_groups.iter();
                    groups_left.extend(depths.map(|g| if never { 0 } else { g.depth }));
                }
                self.enter_call(call);
                blocked |= self.maui_priority_pass(
                    now,
                    &order,
                    queue,
                    out,
                    &mut groups_left,
                    &mut soft_only,
                );
            }
            self.enter_call(None);
            blocked
        } else {
            self.priority_pass(now, &order, queue, out, &mut groups_left, &mut soft_only)
        };
        self.groups_left = groups_left;
        if let Some(windows) = windows {
            *windows = self.machine.windows(now);
            self.machine.iteration_over();
            return;
        }
        let mut any_backfilled = false;
        if maui {
            let calls = self.partition_calls();
            if calls.is_empty() {
                any_backfilled = self.maui_backfill(now, &order, queue, out, &mut soft_only);
            } else {
                // MSched.c: the hard backfill, partition by partition, after the priority
                // passes of them all.
                for call in calls.into_iter().filter(|&(_, first_pass)| !first_pass) {
                    self.enter_call(Some(call));
                    // A site partition's own NODEALLOCATIONPOLICY, which 3.3.1's backfill
                    // there reads, is never set from the global one: LASTAVAILABLE.
                    let site = call.0 > crate::partition::DEFAULT_PARTITION;
                    self.machine
                        .allocate_by(site.then_some(AllocationPolicy::LastAvailable));
                    any_backfilled |= self.maui_backfill(now, &order, queue, out, &mut soft_only);
                }
                self.machine.allocate_by(None);
                self.enter_call(None);
            }
        } else {
            if !strict {
                any_backfilled |=
                    self.backfill(now, &order, queue, out, Level::Soft, &mut soft_only);
            }
            if soft_only && !(strict && blocked) {
                any_backfilled |=
                    self.backfill(now, &order, queue, out, Level::Hard, &mut soft_only);
            }
        }
        // BYPASS is counted lazily where no job's fate keeps it from counting (no
        // selection), rank is position and nothing reads a waiting job's BYPASS; by marks
        // that the index's slots hold.
        let lazy_bypass = self.ranking.is_identity()
            && !selects
            && !maui
            && !matches!(
                self.policy.reservation_threshold,
                ReservationThreshold::Bypass(_)
            )
            && (queue.counts_bypasses_lazily() || !any_backfilled);
        if !lazy_bypass {
            // Every job's BYPASS is read as it stands from here.
            queue.settle_bypasses();
        }
        if lazy_bypass && !out.starts.is_empty() {
            let (mut started, mut backfilled) = (Vec::new(), Vec::new());
            for s in &out.starts {
                started.push(s.queue_pos);
                if s.backfilled && self.fate[s.queue_pos] == Fate::Backfilled {
                    backfilled.push(s.queue_pos);
                }
            }
            started.sort_unstable();
            queue.count_bypasses_lazily(&started, &backfilled);
        } else if any_backfilled && !lazy_bypass {
            count_bypasses(&order, &self.fate, queue);
            if bounded {
                let backfilled = order
                    .iter()
                    .zip(&self.fate)
                    .filter(|(_, &f)| f == Fate::Backfilled)
                    .map(|(&pos, _)| pos);
                let at = Evaluation {
                    priority: &self.policy.priority,
                    fairshare: &self.fairshare,
                    now,
                };
                self.ranking
                    .count_bypasses_beyond_exact(at, backfilled, queue);
            }
        }
        if maui {
            // 3.3.1 sets EffQueueDuration of every job its selections let through
            // (`MQueueSelectJobs`; with limits, `passes_selection` says which).
            for (rank, &pos) in order.iter().enumerate() {
                let job = &mut queue[pos];
                let fate = self.fate[rank];
                let selected = match self.passes_selection.get(rank) {
                    Some(&passes) => {
                        passes || matches!(fate, Fate::StartedInPriorityPass | Fate::Backfilled)
                    }
                    None => fate != Fate::Ineligible,
                };
                if selected {
                    job.selected_queued = Some((now - job.eff_queue_start).max(0));
                }
                job.held_reservation = self.fate[rank] == Fate::Reserved;
            }
            self.last_reservations.clear();
            let carried = if self.reserves_always {
                &self.held[..]
            } else {
                &[]
            };
            for &(rank, held) in carried {
                let (start, within) = self.machine.held_start_within(held);
                let nodes = self.machine.held_nodes(held).to_vec();
                self.last_reservations
                    .push((queue[order[rank]].idx, start, nodes, within));
            }
            self.held.clear();
            if self.throttle.is_some() {
                // (A job the second pass preempted is no longer running.)
                let preempted = &out.preempted;
                let started = out
                    .starts
                    .iter()
                    .filter(|s| !preempted.iter().any(|p| p.job == s.job))
                    .map(|s| QueuedJob::clone(&queue[s.queue_pos]));
                self.maui_running.extend(started);
            }
        }
        let started = out.starts.iter().map(|s| s.queue_pos);
        self.ranking.finish_iteration(order, started);
        self.machine.release_all();
        self.machine.iteration_over();
        self.kept.clear();
    }

    /// RESERVATIONPOLICY HIGHEST: every eligible job that once had a reservation gets one
    /// again before anything else is placed, oldest reservation first, so no newer
    /// decision can push it later. Each counts against its group's depth.
    fn keep_reservations(
        &mut self,
        now: Time,
        order: &[usize],
        queue: &mut Queue,
        out: &mut Decisions,
        groups_left: &mut [u32],
    ) {
        let mut kept: Vec<(u64, usize)> = order
            .iter()
            .enumerate()
            .filter(|&(rank, &pos)| self.fate[rank] == Fate::Waits && !queue[pos].soft_violation)
            .filter_map(|(rank, &pos)| queue[pos].reserved_seq.map(|seq| (seq, rank)))
            .collect();
        kept.sort_unstable();
        for (_, rank) in kept {
            let job = &mut queue[order[rank]];
            if let Some(g) = self.group_of(job) {
                groups_left[g] = groups_left[g].saturating_sub(1);
            }
            if let Some(held) = self.reserve(now, job, out) {
                self.fate[rank] = Fate::Reserved;
                self.kept.push((rank, held));
            }
        }
    }

    /// Takes back the reservation kept for the job at `rank` (HIGHEST), so that it can be
    /// started or placed again; true if it had one.
    fn take_back_kept(&mut self, rank: usize, job: JobIdx, out: &mut Decisions) -> bool {
        let Some(k) = self.kept.iter().position(|&(r, _)| r == rank) else {
            return false;
        };
        let (_, held) = self.kept.swap_remove(k);
        self.machine.release(held);
        out.reservations.retain(|r| r.job != job);
        true
    }

    /// The priority pass, over jobs within their soft limits (guide 8.2.1-2): jobs start
    /// in priority order until one cannot start. From that job on, RESERVATIONDEPTH says
    /// how deep down the queue jobs are protected: each of the next jobs whose
    /// RESERVATIONQOSLIST group has depth left takes one unit of it and starts now if it
    /// fits around the reservations made so far, else is reserved at its earliest start
    /// (so depth ∞ is conservative backfilling). A job whose group has no depth left (or
    /// below RESERVATIONTHRESHOLD) is left to backfill; the pass ends once no group has
    /// depth left. Jobs holding a kept reservation (HIGHEST) are still taken in their
    /// turn after that, and may start even under NONE: their reservation is a promise.
    /// Returns whether a job was blocked.
    fn priority_pass(
        &mut self,
        now: Time,
        order: &[usize],
        queue: &mut Queue,
        out: &mut Decisions,
        groups_left: &mut [u32],
        soft_only: &mut bool,
    ) -> bool {
        let strict = self.policy.backfill == BackfillPolicy::None;
        let mut blocked = false;
        let mut ended = false;
        for (rank, &pos) in order.iter().enumerate() {
            let kept = match self.fate[rank] {
                Fate::Waits if !ended => false,
                Fate::Reserved => self.take_back_kept(rank, queue[pos].idx, out),
                _ => continue,
            };
            if !kept && !self.within_limits(now, rank, &queue[pos], Level::Soft, soft_only) {
                continue;
            }
            if kept && !self.kept_within_limits(now, &queue[pos]) {
                // A job started earlier in this iteration used up a limit of this one: its
                // promise waits, reserved again, for usage to fall.
                if self.reserve(now, &mut queue[pos], out).is_some() {
                    self.fate[rank] = Fate::Reserved;
                }
                continue;
            }
            let job = &mut queue[pos];
            let mut fits = self.machine.fits(now, job);
            if !fits && !blocked && !kept {
                fits = self.preempt_for(now, job, out);
            }
            if kept || !blocked {
                if fits {
                    self.start(now, job, pos, blocked, out);
                    self.fate[rank] = Fate::StartedInPriorityPass;
                    continue;
                }
                blocked = true;
                if kept {
                    if self.reserve(now, job, out).is_some() {
                        self.fate[rank] = Fate::Reserved;
                    }
                    continue;
                }
            }
            match self.reservation_slot(job, now, groups_left) {
                Some(g) => {
                    groups_left[g] -= 1;
                    if fits && !strict {
                        self.start(now, job, pos, true, out);
                        self.fate[rank] = Fate::StartedInPriorityPass;
                    } else if self.reserve(now, job, out).is_some() {
                        self.fate[rank] = Fate::Reserved;
                    }
                }
                None if groups_left.iter().all(|&d| d == 0) => {
                    if self.kept.is_empty() {
                        break;
                    }
                    ended = true;
                }
                None => {}
            }
        }
        blocked
    }

    /// Whether this iteration follows Maui 3.3.1's passes: Maui semantics, except strict
    /// priority (NONE, where both readings agree) and RESERVATIONPOLICY HIGHEST (whose
    /// kept reservations only the guide's pass carries).
    fn maui_passes(&self) -> bool {
        follows_maui_passes(&self.policy)
    }

    /// 3.3.1's `MQueueScheduleRJobs`, before the priority passes: every waiting job of a
    /// RESERVEALWAYS QOS that the hard selection lets through (within the hard active
    /// limits as usage stands) is reserved at its earliest start, in priority order and
    /// whatever RESERVATIONDEPTH says; the priority passes then count it against its
    /// group's depth. One reserved from now on starts now if it is within its soft active
    /// limits; 3.3.1 defers one that is not (a hold for DEFERTIME, not modelled: it sits
    /// this iteration out).
    fn maui_reserve_always(
        &mut self,
        now: Time,
        order: &[usize],
        queue: &mut Queue,
        out: &mut Decisions,
    ) {
        let any = self.reserves_always
            && order.iter().enumerate().any(|(rank, &pos)| {
                self.fate[rank] == Fate::Waits && queue[pos].cred_factors.reserve_always
            });
        if !any {
            return;
        }
        // The last iteration's reservations stand again, each until the loop reaches its
        // job (3.3.1 destroys a CURRENTHIGHEST one there, and makes a RESERVEALWAYS one
        // anew).
        let mut standing: Vec<(usize, HeldId)> = Vec::new();
        let last = std::mem::take(&mut self.last_reservations);
        for (idx, start, nodes, within) in last {
            let Some(rank) = order.iter().position(|&pos| queue[pos].idx == idx) else {
                continue;
            };
            if start <= now || self.fate[rank] != Fate::Waits {
                continue;
            }
            let job = &queue[order[rank]];
            if let Some(held) = self.machine.hold_again(start, job, nodes, within) {
                standing.push((rank, held));
            }
        }
        standing.sort_unstable_by_key(|&(rank, _)| rank);
        let mut released = 0;
        for (rank, &pos) in order.iter().enumerate() {
            while let Some(&(r, held)) = standing.get(released) {
                if r > rank {
                    break;
                }
                self.machine.release(held);
                released += 1;
            }
            let job = &queue[pos];
            if self.fate[rank] != Fate::Waits
                || !job.cred_factors.reserve_always
                || !self.in_hard_queue.get(rank).copied().unwrap_or(true)
            {
                continue;
            }
            let within = |level| {
                let (creds, system) = (&self.policy.creds, &self.policy.system_limits);
                self.throttle
                    .as_ref()
                    .is_none_or(|t| t.check_active(creds, system, job, level, now).is_none())
            };
            if !within(Level::Hard) {
                continue;
            }
            let within_soft = within(Level::Soft);
            let job = &mut queue[pos];
            let Some(held) = self.reserve(now, job, out) else {
                continue;
            };
            let (start, partition) = self.machine.held_start_within(held);
            if start > now {
                self.fate[rank] = Fate::Reserved;
                self.held.push((rank, held));
                continue;
            }
            // 3.3.1 starts it on the reservation's nodes ("reserved job started"), which a
            // reservation takes the last node first, not by how long each stays free.
            let placement = self.machine.held_nodes(held).to_vec();
            self.machine.release(held);
            out.reservations.retain(|r| r.job != job.idx);
            if !within_soft {
                self.fate[rank] = Fate::Ineligible;
                continue;
            }
            self.machine.restrict_to(partition);
            if self.machine.fits(now, job) {
                self.reserved_placement = Some((job.idx, placement));
                self.start(now, job, pos, false, out);
                self.fate[rank] = Fate::StartedInPriorityPass;
            }
            self.machine.restrict_to(0);
        }
        for &(_, held) in &standing[released..] {
            self.machine.release(held);
        }
    }

    /// Maui 3.3.1's priority pass (MQueue.c `MQueueScheduleIJobs`), over jobs within
    /// their soft limits in priority order: every job that fits now starts. One that does
    /// not (or that jobs started in this iteration put over an active limit) is reserved
    /// while its RESERVATIONQOSLIST group has depth left; the first that finds no depth
    /// left ends the starting: from then on a job only takes a reservation its group still
    /// has (and starts if that reservation would begin now). A job already reserved in
    /// this iteration (the second call) keeps its reservation and uses its group's depth.
    /// Jobs that start after a blocked one count as backfilled. Returns whether a job was
    /// blocked.
    fn maui_priority_pass(
        &mut self,
        now: Time,
        order: &[usize],
        queue: &mut Queue,
        out: &mut Decisions,
        groups_left: &mut [u32],
        soft_only: &mut bool,
    ) -> bool {
        let mut blocked = false;
        let mut idle_found = false;
        for (rank, &pos) in order.iter().enumerate() {
            if idle_found && groups_left.iter().all(|&d| d == 0) {
                break;
            }
            if !self.in_call(&queue[pos]) {
                continue;
            }
            match self.fate[rank] {
                Fate::Waits => {}
                Fate::Reserved if self.reserved_to_start_here(rank, now) => {
                    // Reserved from now on in this partition while another was scheduled:
                    // 3.3.1 starts it in this partition's call.
                    let job = &mut queue[pos];
                    take_back_held(&mut self.held, &mut self.machine, out, rank, job.idx);
                    if self.machine.fits(now, job) {
                        self.start(now, job, pos, blocked, out);
                        self.fate[rank] = Fate::StartedInPriorityPass;
                    } else if let Some(held) = self.reserve(now, job, out) {
                        self.held.push((rank, held));
                    } else {
                        self.fate[rank] = Fate::Waits;
                    }
                    continue;
                }
                Fate::Reserved if self.reserved_from_now_held_off(rank, now) => {
                    // 3.3.1 counts a reservation against the depth only while it begins
                    // later (MQueue.c `MQueueScheduleIJobs`): one from now on is tried for
                    // a start, which the nodes' start limits refuse again, and that ends
                    // the starting.
                    blocked = true;
                    idle_found = true;
                    continue;
                }
                Fate::Reserved => {
                    blocked = true;
                    if let Some(g) = self.group_of(&queue[pos]) {
                        groups_left[g] = groups_left[g].saturating_sub(1);
                    }
                    continue;
                }
                _ => continue,
            }
            if queue[pos].soft_violation {
                // Not in 3.3.1's soft queue at all: the hard backfill's.
                self.fate[rank] = Fate::SoftOnly;
                *soft_only = true;
                continue;
            }
            let within = self.within_limits(now, rank, &queue[pos], Level::Soft, soft_only);
            if idle_found && !within {
                continue;
            }
            let job = &mut queue[pos];
            // The job's reservation of the last iteration still stands as it was made:
            // it cannot start now, and `reserve` takes that reservation again.
            let kept = if !idle_found && !job.cred_factors.preemptor {
                self.machine.keeps_laid(now, job)
            } else {
                self.machine.settle();
                false
            };
            let mut fits = !kept && within && self.machine.fits(now, job);
            if !kept && !idle_found && within && !fits {
                // 3.3.1 preempts only for a job the pass reaches before any job is left
                // without a reservation (MQueue.c `MQueueScheduleIJobs`).
                fits = self.preempt_for(now, job, out);
            }
            if !idle_found && fits {
                self.start(now, job, pos, blocked, out);
                self.fate[rank] = Fate::StartedInPriorityPass;
                continue;
            }
            blocked |= !idle_found;
            match self.reservation_slot(job, now, groups_left) {
                Some(g) => {
                    if fits {
                        groups_left[g] -= 1;
                        self.start(now, job, pos, true, out);
                        self.fate[rank] = Fate::StartedInPriorityPass;
                    } else if let Some(held) = self.reserve(now, job, out) {
                        groups_left[g] -= 1;
                        self.fate[rank] = Fate::Reserved;
                        self.held.push((rank, held));
                    } else {
                        idle_found = true;
                    }
                }
                None => idle_found = true,
            }
        }
        self.machine.settle();
        blocked
    }

    /// Whether the job at `rank` holds a reservation of this iteration from now on that the
    /// nodes' start limits (MAXJOBPERUSER, MAXPROCPERUSER, MAXPROC) keep it from using:
    /// 3.3.1's range search, which a reservation's is, does not see them all.
    fn reserved_from_now_held_off(&self, rank: usize, now: Time) -> bool {
        if !self.machine.has_start_limits() || self.call.is_some() {
            return false;
        }
        self.held_start_within(rank)
            .is_some_and(|(start, _)| start <= now)
    }

    /// The start of the reservation the job at `rank` holds in this iteration, and the node
    /// partition it was placed within.
    fn held_start_within(&self, rank: usize) -> Option<(Time, u32)> {
        let &(_, held) = self.held.iter().find(|&&(r, _)| r == rank)?;
        Some(self.machine.held_start_within(held))
    }

    /// The soft queue selected again between 3.3.1's two priority calls (MPolicy.c
    /// `MQueueCheckSingleJob`): a waiting or reserved job that the starts made so far put
    /// over a soft active limit leaves it, and its reservation is destroyed; it stays a
    /// candidate of the hard backfill.
    fn maui_reselect(&mut self, now: Time, order: &[usize], queue: &Queue, out: &mut Decisions) {
        let Some(t) = &self.throttle else {
            return;
        };
        let (creds, system) = (&self.policy.creds, &self.policy.system_limits);
        for (rank, &pos) in order.iter().enumerate() {
            let job = &queue[pos];
            if !matches!(self.fate[rank], Fate::Waits | Fate::Reserved) || job.soft_violation {
                continue;
            }
            if t.check_active(creds, system, job, Level::Soft, now)
                .is_none()
            {
                continue;
            }
            if self.fate[rank] == Fate::Reserved {
                take_back_held(&mut self.held, &mut self.machine, out, rank, job.idx);
            }
            self.fate[rank] = Fate::SoftOnly;
        }
    }

    /// Maui 3.3.1's selection of eligible jobs (MPolicy.c `MQueueSelectAllJobs`), made
    /// twice in priority order, once at each level with its own idle usage: the soft queue
    /// (jobs within their soft active and idle limits) feeds the priority passes, the hard
    /// queue (within the hard ones) the backfill. The hard selection counts the active
    /// usage anew as it goes, running jobs in their own priority order among the idle
    /// ones, so a job is held to the usage of the running jobs ranked above it only; the
    /// soft one sees all of it. A job outside the hard queue restarts its effective queue
    /// time (JOBPRIOACCRUALPOLICY QUEUEPOLICY or FULLPOLICY). A fairshare cap keeps a job
    /// out of both. Returns whether some job is in the hard queue only.
    ///
    /// Only the `MQueueSelectJobs` calls that follow bring a job's `EffQueueDuration` up
    /// to date (MPolicy.c), and they hold it to the active limits against the whole
    /// usage (`MQueueCheckSingleJob`, `MJobCheckPolicies`): a job of the soft queue
    /// passes them, but a job in the hard queue only because the running jobs that fill
    /// its user's limit rank below it does not. Such a job keeps its last
    /// `EffQueueDuration` (its priority stands still) without restarting its queue time,
    /// and the queue time it accrued meanwhile counts again, all at once, the next time
    /// a selection lets it through.
    fn maui_select(&mut self, now: Time, order: &[usize], queue: &mut Queue) -> bool {
        let accrual = self.policy.priority.accrual;
        let mut running: Vec<(i64, Time, u64, usize)> = {
            let fs = self.fairshare.at(now);
            self.maui_running
                .iter()
                .enumerate()
                .map(|(k, j)| {
                    let p = self.policy.priority.breakdown(j, now, &fs).priority;
                    (-p, j.submit, j.id, k)
                })
                .collect()
        };
        running.sort_unstable();
        let priorities: Vec<i64> = self.ranking.evaluated_priorities().collect();
        let rejected: Vec<Option<Blocked>> = if self.policy.priority.reject_negative {
            order
                .iter()
                .map(|&pos| self.negative_priority(&queue[pos], now))
                .collect()
        } else {
            Vec::new()
        };
        for (rank, &pos) in order.iter().enumerate() {
            if rejected.get(rank).is_some_and(Option::is_some) {
                let lift = self.priority_reaches_zero(&queue[pos], now);
                earliest(&mut self.limit_lifts_at, lift);
            }
        }
        let Some(t) = &mut self.throttle else {
            return false;
        };
        let (creds, system) = (&self.policy.creds, &self.policy.system_limits);
        let every_level = self.judges_every_level;
        let parks = self.parking.is_on();
        if parks {
            self.parking.count_blocks(&mut self.blocks);
            self.parked_ranks.clear();
            self.lowest_running.clear();
        }
        std::mem::swap(&mut self.over_soft_limits, &mut self.was_over_soft_limits);
        self.over_soft_limits.clear();
        t.begin_selection();
        t.forget_active();
        let mut counted = 0;
        let mut hard = Vec::with_capacity(order.len());
        for (rank, &pos) in order.iter().enumerate() {
            let job = &queue[pos];
            let key = (
                -priorities.get(rank).copied().unwrap_or(0),
                job.submit,
                job.id,
            );
            while let Some(&(p, submit, id, k)) = running.get(counted) {
                if (p, submit, id) > key {
                    break;
                }
                let run = &self.maui_running[k];
                count_running(t, (creds, system), run, now, &mut self.over_soft_limits);
                counted += 1;
            }
            hard.push(match rejected.get(rank).copied().flatten() {
                Some(b) => Some(b),
                None => t.select_at(creds, system, job, Level::Hard, now, job.held_reservation),
            });
        }
        for &(_, _, _, k) in &running[counted..] {
            let run = &self.maui_running[k];
            count_running(t, (creds, system), run, now, &mut self.over_soft_limits);
        }
        self.cap_lifts_at = None;
        self.in_hard_queue.clear();
        self.in_hard_queue.resize(order.len(), true);
        self.passes_selection.clear();
        self.passes_selection.resize(order.len(), true);
        let mut soft_only = false;
        for (rank, &pos) in order.iter().enumerate() {
            let job = &mut queue[pos];
            let negative = rejected.get(rank).copied().flatten();
            let held = job.held_reservation && negative.is_none();
            let hard = if held {
                // Let through unchecked, then held to the active limits as they stand.
                t.check_active(creds, system, job, Level::Hard, now)
            } else {
                hard[rank]
            };
            let soft = match negative {
                Some(b) => Some(b),
                // Over a hard active limit, it is over the soft one too: a soft limit is at
                // most its hard one (`limit_pair`), and the soft level counts every running
                // job where the hard one counted those ranked above it. Blocked, it would
                // take no soft idle slot either.
                None if !held && !every_level && hard.is_some_and(|b| b.scope == Scope::Active) => {
                    hard
                }
                None => t.select_at(creds, system, job, Level::Soft, now, held),
            };
            let cap = self.fairshare.check_caps(job, now);
            if let Some(b) = hard.or(soft).or(cap) {
                count_block(&mut self.blocks, &b);
                earliest(&mut self.limit_lifts_at, t.lifts_at(&b, now));
            }
            if let Some(c) = &cap {
                if c.scope == Scope::FsRelativeCap {
                    let lift = self.fairshare.relative_caps_lift_at(job, now);
                    earliest(&mut self.cap_lifts_at, lift);
                }
            }
            let resets = match (&hard, &cap) {
                (Some(b), _) if b.scope == Scope::NegativePriority => {
                    accrual == AccrualPolicy::FullPolicy
                }
                (_, Some(_)) => accrual == AccrualPolicy::FullPolicy,
                (Some(_), None) => !held && accrual.restarts_on_limits(),
                (None, None) => false,
            };
            if resets {
                self.ranking.restart_queue_time(job, now);
            }
            self.in_hard_queue[rank] = hard.is_none() && cap.is_none();
            job.soft_violation = soft.is_some() || cap.is_some();
            // The usage now counts every running job: 3.3.1's first `MQueueSelectJobs`
            // (hard, over the hard queue) sees it so, and its soft ones hold the soft
            // queue to the soft limits, which it is within.
            self.passes_selection[rank] = !job.soft_violation
                || (self.in_hard_queue[rank]
                    && (held
                        || t.check_active(creds, system, job, Level::Hard, now)
                            .is_none()));
            if job.soft_violation {
                if self.in_hard_queue[rank] {
                    soft_only = true;
                } else {
                    self.fate[rank] = Fate::Ineligible;
                }
            }
            // Blocked by a hard active limit against the whole usage of what it was
            // judged against, and sure to stay below those running jobs: parked.
            let parkable = parks && resets && !held && cap.is_none();
            let block = hard.filter(|b| parkable && b.scope == Scope::Active);
            if let Some((b, on)) = block.and_then(|b| Some((b, t.waits_on(job, &b)?))) {
                let lowest = &mut self.lowest_running;
                lowest.build_once(&running, &self.maui_running, t);
                let bar = lowest.bar(job, on);
                // Judged against the whole usage now (ranked by its priority before the
                // restart), and in every iteration to come.
                let key = (
                    -priorities.get(rank).copied().unwrap_or(0),
                    job.submit,
                    job.id,
                );
                let judged_below = bar.is_none_or(|bar| bar <= key);
                let tolerance = || maui_parking::tolerance(&self.policy, job, now, bar);
                if let Some(gap) = judged_below.then(tolerance).flatten() {
                    self.parking.park(job, b.kind(), on, gap);
                    self.parked_ranks.push(rank);
                }
            }
        }
        if !self.parked_ranks.is_empty() {
            self.ranking.forget_ranks(&self.parked_ranks);
            self.parked_ranks.clear();
            self.parking.compact(queue);
        }
        soft_only
    }

    /// Maui 3.3.1's backfill (MQueue.c `MQueueBackFill`): one pass at the hard level over
    /// every job neither started nor reserved (3.3.1's soft-level backfill never runs: the
    /// partition's BFPolicy it tests is FIRSTFIT, which equals `ptOFF`), window by window
    /// (`MBFGetWindow`), widest and shortest first. In each window the candidates are the
    /// jobs no larger and no longer than it, the first BACKFILLDEPTH of them, chosen by
    /// BACKFILLPOLICY. 3.3.1's GREEDY tries no job at all (its candidate list is never
    /// filled), which `Semantics::Maui331` reproduces.
    fn maui_backfill(
        &mut self,
        now: Time,
        order: &[usize],
        queue: &mut Queue,
        out: &mut Decisions,
        soft_only: &mut bool,
    ) -> bool {
        let policy = self.policy.backfill;
        if policy == BackfillPolicy::Greedy && self.policy.semantics == Semantics::Maui331 {
            return false;
        }
        for (rank, &pos) in order.iter().enumerate() {
            if self.fate[rank] == Fate::SoftOnly
                || (self.fate[rank] == Fate::Waits && queue[pos].soft_violation)
            {
                self.fate[rank] = Fate::Waits;
            }
        }
        let depth = self.backfill_depth();
        if policy != BackfillPolicy::FirstFit {
            let candidates: Vec<usize> = (0..order.len())
                .filter(|&rank| self.maui_backfill_candidate(rank, &queue[order[rank]]))
                .take(depth)
                .collect();
            return self.fill_windows(now, order, queue, out, &candidates, Level::Hard, soft_only);
        }
        let chunk = self.policy.chunking;
        let chunk_ends = self.chunking_ends(now);
        // 3.3.1 counts only a job in the window's list, one the window can hold, as blocked,
        // so chunking never keeps freed processors for a job wider than them: the
        // aggregation the guide describes cannot happen. The guide's reading also counts a
        // job of BFCHUNKSIZE or more that the window is too small or too short for.
        let chunk_on_any_block = self.policy.semantics != Semantics::Maui331;
        let mut any = false;
        let mut shorter = 0;
        while let Some(window) = self.machine.window_after(now, shorter) {
            self.machine.set_backfill_window(Some((now, shorter)));
            // MBF.c `MBFFirstFit`: chunking turns on, for this window only, after a job
            // of BFCHUNKSIZE or more in its list did not start.
            let mut chunk_active = false;
            let mut big_one_failed = false;
            let mut listed = 0;
            for (rank, &pos) in order.iter().enumerate() {
                let job = &queue[pos];
                if !self.maui_backfill_candidate(rank, job) {
                    continue;
                }
                if job.procs as i64 > window.procs || job.wcl > window.duration {
                    if chunk_on_any_block && job.procs >= chunk.size {
                        big_one_failed = true;
                    }
                    continue;
                }
                listed += 1;
                if listed > depth {
                    break;
                }
                if chunk_ends.is_some() && big_one_failed {
                    chunk_active = true;
                }
                if chunk_active && job.procs < chunk.size {
                    self.chunk_expires_at = chunk_ends;
                    big_one_failed = false;
                    continue;
                }
                let starts = self.within_limits(now, rank, job, Level::Hard, soft_only)
                    && self.machine.fits(now, job);
                if starts {
                    self.start(now, job, pos, true, out);
                    self.fate[rank] = Fate::Backfilled;
                    any = true;
                }
                big_one_failed = !starts && job.procs >= chunk.size;
            }
            if window.duration >= FOREVER {
                break;
            }
            shorter = window.duration;
        }
        self.machine.set_backfill_window(None);
        any
    }

    /// Whether 3.3.1's backfill considers the job at `rank`: waiting, in the hard queue,
    /// and not of a QOS with the NOBF flag.
    fn maui_backfill_candidate(&self, rank: usize, job: &QueuedJob) -> bool {
        self.fate[rank] == Fate::Waits
            && self.in_hard_queue.get(rank).copied().unwrap_or(true)
            && !job.cred_factors.no_backfill
            && self.in_call(job)
    }

    /// 3.3.1's calls of `MQueueScheduleIJobs` in one iteration when the machine is
    /// divided into partitions: (partition index, first pass) for the first pass over
    /// every partition with nodes, then the second; none when it is not divided.
    fn partition_calls(&self) -> Vec<(u8, bool)> {
        let Some(p) = self.divided_partitions() else {
            return Vec::new();
        };
        let first = p.with_nodes().map(|i| (i, true));
        first.chain(p.with_nodes().map(|i| (i, false))).collect()
    }

    /// The partitions, when the machine is divided into more than one.
    fn divided_partitions(&self) -> Option<&Partitions> {
        self.policy
            .partitions
            .as_ref()
            .filter(|p| p.divide_the_machine())
    }

    /// Whether the job at `rank` holds a reservation of this iteration that starts now
    /// within the partition being scheduled.
    fn reserved_to_start_here(&self, rank: usize, now: Time) -> bool {
        let Some((i, _)) = self.call else {
            return false;
        };
        let Some((start, within)) = self.held_start_within(rank) else {
            return false;
        };
        let here = self.policy.partitions.as_ref().map(|p| p.nodes_of(i));
        start <= now && Some(within) == here
    }

    /// Schedules within one partition from now on (`None`: the whole machine again).
    fn enter_call(&mut self, call: Option<(u8, bool)>) {
        self.call = call;
        let nodes = match (call, &self.policy.partitions) {
            (Some((i, _)), Some(p)) => p.nodes_of(i),
            _ => 0,
        };
        self.machine.restrict_to(nodes);
    }

    /// Whether the partition being scheduled takes `job` (MPolicy.c
    /// `MQueueCheckSingleJob`): one it may use and fits in, and in the first pass its
    /// default one.
    fn in_call(&self, job: &QueuedJob) -> bool {
        match self.call {
            None => true,
            Some((i, first_pass)) => {
                job.partitions & (1 << i) != 0 && (!first_pass || job.default_partition == i)
            }
        }
    }

    /// The RESERVATIONQOSLIST group with depth left that may reserve `job` now, if any
    /// (and the job reaches RESERVATIONTHRESHOLD).
    fn reservation_slot(&self, job: &QueuedJob, now: Time, groups_left: &[u32]) -> Option<usize> {
        let g = self.group_of(job)?;
        if groups_left[g] == 0 {
            return None;
        }
        let reached = match self.policy.reservation_threshold {
            ReservationThreshold::None => true,
            ReservationThreshold::Bypass(v) => f64::from(job.bypass) >= v,
            ReservationThreshold::QueueTime(v) => job.eff_queued(now) as f64 >= v,
            ReservationThreshold::XFactor(v) => self.policy.priority.xfactor(job, now) >= v,
        };
        reached.then_some(g)
    }

    /// The reservation group a job's reservation counts against: the first whose QOS list
    /// holds its QOS. Maui 3.3.1 passes over a group of depth 0 (MJob.c
    /// `MJobPReserve`'s group search), so that such a group sends its QOS on to the next
    /// that holds it; the guide's reading (research EASY) leaves them without a
    /// reservation (as RESERVATIONDEPTH 0 does every job).
    fn group_of(&self, job: &QueuedJob) -> Option<usize> {
        let qos = job.creds.ids[CredKind::Qos.index()];
        let passes_over_empty = self.policy.semantics.is_maui();
        self.policy
            .reservation_groups
            .iter()
            .position(|g| g.holds(qos) && !(passes_over_empty && g.depth == 0))
    }

    /// Reserves `job` at its earliest start for this iteration; `None` if it can never
    /// start (not reachable for admitted jobs). The start does not wait for the job's
    /// limits: a job blocked by them alone is reserved from now on, as 3.3.1 does (its
    /// `MPolicyGetEStartTime` matches no running job's reservation to a credential, so it
    /// always answers now).
    fn reserve(&mut self, now: Time, job: &mut QueuedJob, out: &mut Decisions) -> Option<HeldId> {
        let (at, held) = match self.divided_partitions() {
            // 3.3.1's `MJobReserve` looks in every partition the job may use, whichever
            // is being scheduled.
            Some(p) => {
                let within: Vec<u32> = p
                    .with_nodes()
                    .filter(|&i| job.partitions & (1 << i) != 0)
                    .map(|i| p.nodes_of(i))
                    .collect();
                self.machine.reserve_in_earliest(now, job, &within)?
            }
            None => self.machine.reserve(now, job)?,
        };
        job.first_reservation.get_or_insert(at);
        if job.reserved_seq.is_none() {
            job.reserved_seq = Some(self.reservations_made);
            self.reservations_made += 1;
        }
        out.reservations.push(Reservation {
            job: job.idx,
            start: at,
        });
        Some(held)
    }

    /// Whether the job at `rank` may start at `level` as usage stands now (jobs started
    /// earlier in this iteration count). A job refused at the soft level waits for the
    /// hard pass.
    #[inline]
    fn within_limits(
        &mut self,
        now: Time,
        rank: usize,
        job: &QueuedJob,
        level: Level,
        soft_only: &mut bool,
    ) -> bool {
        let Some(t) = &mut self.throttle else {
            return true; // without limits, nothing is soft-only
        };
        if level == Level::Soft && job.soft_violation {
            self.fate[rank] = Fate::SoftOnly;
            return false;
        }
        let (creds, system) = (&self.policy.creds, &self.policy.system_limits);
        match t.check_active(creds, system, job, level, now) {
            None => true,
            Some(b) => {
                count_block(&mut self.blocks, &b);
                earliest(&mut self.limit_lifts_at, t.lifts_at(&b, now));
                if level == Level::Soft {
                    self.fate[rank] = Fate::SoftOnly;
                    *soft_only = true;
                }
                false
            }
        }
    }

    /// Whether a job holding a kept reservation (HIGHEST) may start as usage stands now:
    /// it was within its soft limits when selected, but jobs started since count too.
    fn kept_within_limits(&mut self, now: Time, job: &QueuedJob) -> bool {
        let Some(t) = &self.throttle else {
            return true;
        };
        let (creds, system) = (&self.policy.creds, &self.policy.system_limits);
        match t.check_active(creds, system, job, Level::Soft, now) {
            None => true,
            Some(b) => {
                count_block(&mut self.blocks, &b);
                earliest(&mut self.limit_lifts_at, t.lifts_at(&b, now));
                false
            }
        }
    }

    /// Backfill at `level` (guide 8.2.2): over the jobs the priority pass left waiting
    /// (soft level) or those within only their hard limits (hard level), at most
    /// BACKFILLDEPTH of them in priority order, by BACKFILLPOLICY. Under NONE (hard pass
    /// only) jobs start in priority order until one does not fit. Returns whether any
    /// started.
    fn backfill(
        &mut self,
        now: Time,
        order: &[usize],
        queue: &mut Queue,
        out: &mut Decisions,
        level: Level,
        soft_only: &mut bool,
    ) -> bool {
        if self.machine.free_now(now) <= 0 {
            return false;
        }
        let depth = self.backfill_depth();
        match self.policy.backfill {
            BackfillPolicy::FirstFit | BackfillPolicy::None => {
                self.first_fit(now, order, queue, out, depth, level, soft_only)
            }
            BackfillPolicy::BestFit | BackfillPolicy::Greedy => {
                let candidates: Vec<usize> = (0..order.len())
                    .filter(|&rank| self.is_candidate(rank, &queue[order[rank]], level))
                    .take(depth)
                    .collect();
                self.fill_windows(now, order, queue, out, &candidates, level, soft_only)
            }
        }
    }

    /// BACKFILLDEPTH as a count of candidates (0: all).
    fn backfill_depth(&self) -> usize {
        match self.policy.backfill_depth {
            0 => usize::MAX,
            d => d as usize,
        }
    }

    /// When chunking stops, if it is on at `now`: BFCHUNKDURATION after the last
    /// completion (BFCHUNKSIZE set).
    fn chunking_ends(&self, now: Time) -> Option<Time> {
        let chunk = self.policy.chunking;
        self.last_completion
            .map(|t| t.saturating_add(chunk.duration))
            .filter(|&ends| chunk.is_on() && now < ends)
    }

    /// Whether the job at `rank` is one backfill at `level` considers: left waiting by the
    /// priority pass (soft), or within only its hard limits (hard).
    fn is_candidate(&self, rank: usize, job: &QueuedJob, level: Level) -> bool {
        if job.cred_factors.no_backfill {
            // QOS flag NOBF (MQueue.c `MQueueBackFill` drops such jobs from its list).
            return false;
        }
        match level {
            Level::Soft => self.fate[rank] == Fate::Waits,
            Level::Hard => {
                self.fate[rank] == Fate::SoftOnly
                    || (self.fate[rank] == Fate::Waits && job.soft_violation)
            }
        }
    }

    /// FIRSTFIT: the first `depth` candidates in priority order, each started if it fits
    /// now around the reservations (a job fits some backfill window exactly when it does).
    /// With chunking on and a completion within BFCHUNKDURATION, once a job of BFCHUNKSIZE
    /// or more does not fit, smaller jobs are kept off for the rest of the iteration.
    #[allow(clippy::too_many_arguments)]
    fn first_fit(
        &mut self,
        now: Time,
        order: &[usize],
        queue: &mut Queue,
        out: &mut Decisions,
        depth: usize,
        level: Level,
        soft_only: &mut bool,
    ) -> bool {
        let strict = self.policy.backfill == BackfillPolicy::None;
        let chunk = self.policy.chunking;
        let chunk_ends = self.chunking_ends(now).filter(|_| !strict);
        let mut chunk_blocks = false;
        let mut any = false;
        let mut considered = 0;
        // `within_limits` answers yes without limits too, but the call in this loop over
        // every candidate cost RICC 15 % (measured): asked only where there are limits.
        let limited = self.throttle.is_some();
        let every_candidate = depth == usize::MAX && level == Level::Soft;
        // A short queue is scanned faster than the index is searched (KTH-SP2, measured),
        // and so are nodes tracked one by one, where most candidates the processors allow
        // are turned down by the nodes (RICC-2010 on 12 GB nodes, measured).
        if every_candidate
            && queue.len() >= INDEXED_FROM
            && self.machine.is_pooled()
            && !limited
            && !strict
            && chunk_ends.is_none()
            && self.ranking.is_identity()
            && !self.machine.is_exhaustive()
        {
            return self.first_fit_by_index(now, queue, out);
        }
        let mut free_now = self.machine.free_now(now);
        // Shapes that did not fit the free processors over time. Starts only take
        // processors away, so a candidate at least as wide and as long as one of them does
        // not fit either (issue 26: dominated candidates are skipped).
        let mut misfits = Misfits::new(!self.machine.is_exhaustive());
        // Most candidates of a long queue do not fit: each is judged from its shape (the
        // queue's compact copy) before its record is read.
        queue.gather_shapes();
        let queue: &Queue = queue;
        let shapes = queue.shapes();
        for (rank, &pos) in order.iter().enumerate() {
            let shape = shapes[pos];
            let candidate = !shape.no_backfill
                && match level {
                    Level::Soft => self.fate[rank] == Fate::Waits,
                    Level::Hard => {
                        self.fate[rank] == Fate::SoftOnly
                            || (self.fate[rank] == Fate::Waits && queue[pos].soft_violation)
                    }
                };
            if !candidate {
                continue;
            }
            considered += 1;
            if considered > depth || free_now <= 0 {
                break;
            }
            if limited && !self.within_limits(now, rank, &queue[pos], level, soft_only) {
                continue;
            }
            if chunk_blocks && shape.procs < chunk.size {
                self.chunk_expires_at = chunk_ends;
                continue;
            }
            // Wider than the processors free now: no window holds it (most candidates
            // of a long queue on a full machine), without asking the profile.
            let fits_over_time = shape.procs as i64 <= free_now
                && !misfits.dominate(shape.procs, shape.wcl)
                && (self.machine.fits_shape(now, shape.procs, shape.wcl)
                    || misfits.add(shape.procs, shape.wcl));
            if fits_over_time && self.machine.fits_nodes(now, &queue[pos]) {
                self.start(now, &queue[pos], pos, true, out);
                self.fate[rank] = Fate::Backfilled;
                free_now = self.machine.free_now(now);
                any = true;
            } else if strict {
                break;
            } else if chunk_ends.is_some() && shape.procs >= chunk.size {
                chunk_blocks = true;
            }
        }
        any
    }

    /// FIRSTFIT over every candidate in queue order, without limits or chunking: each job
    /// left waiting that fits now around the reservations starts, found through the
    /// queue's fit index rather than by visiting every job (issue 26). The same starts as
    /// [`Self::first_fit`]'s scan: a job's rank is its position, and the bound searched
    /// with is monotone in a job's processors and limit (the index passes over the ranges
    /// whose least of both is outside it) and holds for every job that fits.
    fn first_fit_by_index(&mut self, now: Time, queue: &mut Queue, out: &mut Decisions) -> bool {
        let mut any = false;
        let mut from = 0;
        loop {
            let free_now = self.machine.free_now(now);
            if free_now <= 0 {
                break;
            }
            // The index is searched with a bound of the plan's answer, two integer
            // comparisons: no wider than the processors free now, and ending before they
            // first fall or no wider than the processors free then. Each job found is then
            // asked the plan itself.
            let (falls_at, free_then) = self
                .machine
                .first_fall(now)
                .unwrap_or((Time::MAX, free_now));
            let bound = Bound {
                now: free_now as u64,
                then: (free_then.max(0) as u64).min(free_now as u64),
                within: falls_at.saturating_sub(now),
            };
            let Some(pos) = queue.first_fitting(from, &bound) else {
                break;
            };
            from = pos + 1;
            let job = &queue[pos];
            if self.fate[pos] != Fate::Waits
                || !self.machine.fits_shape(now, job.procs, job.wcl)
                || !self.machine.fits_nodes(now, job)
            {
                continue;
            }
            self.start(now, job, pos, true, out);
            self.fate[pos] = Fate::Backfilled;
            any = true;
        }
        any
    }

    /// BESTFIT and GREEDY: the backfill windows, widest first; in each, the candidates that
    /// fit its processors and duration, chosen by BACKFILLMETRIC. Each window is computed
    /// after the previous one's starts.
    #[allow(clippy::too_many_arguments)]
    fn fill_windows(
        &mut self,
        now: Time,
        order: &[usize],
        queue: &mut Queue,
        out: &mut Decisions,
        candidates: &[usize],
        level: Level,
        soft_only: &mut bool,
    ) -> bool {
        let (policy, metric) = (self.policy.backfill, self.policy.backfill_metric);
        let max_schedules = self.policy.backfill_max_schedules;
        let mut remaining = candidates.to_vec();
        let mut any = false;
        let mut shorter = 0;
        while let Some(window) = self.machine.window_after(now, shorter) {
            if self.maui_passes() {
                self.machine.set_backfill_window(Some((now, shorter)));
            }
            let fitting: Vec<usize> = remaining
                .iter()
                .copied()
                .filter(|&rank| {
                    let j = &queue[order[rank]];
                    j.procs as i64 <= window.procs && j.wcl <= window.duration
                })
                .collect();
            if !fitting.is_empty() {
                let cands: Vec<Candidate> = fitting
                    .iter()
                    .map(|&rank| {
                        let j = &queue[order[rank]];
                        Candidate {
                            procs: j.procs,
                            metric: metric.of(j),
                        }
                    })
                    .collect();
                let mut tried = vec![false; fitting.len()];
                let mut try_start = |i: usize| {
                    tried[i] = true;
                    let (rank, pos) = (fitting[i], order[fitting[i]]);
                    if !self.within_limits(now, rank, &queue[pos], level, soft_only)
                        || !self.machine.fits(now, &queue[pos])
                    {
                        return false;
                    }
                    self.start(now, &queue[pos], pos, true, out);
                    self.fate[rank] = Fate::Backfilled;
                    true
                };
                let capacity = window.procs as u64;
                let started = match policy {
                    BackfillPolicy::Greedy => {
                        greedy_start(&cands, capacity, max_schedules, &mut try_start)
                    }
                    _ => best_fit(&cands, capacity, &mut try_start),
                };
                any |= !started.is_empty();
                let done: Vec<usize> = (0..fitting.len())
                    .filter(|&i| tried[i])
                    .map(|i| fitting[i])
                    .collect();
                remaining.retain(|r| done.binary_search(r).is_err());
            }
            if window.duration >= FOREVER || remaining.is_empty() {
                break;
            }
            shorter = window.duration;
        }
        self.machine.set_backfill_window(None);
        any
    }

    /// The selection of eligible jobs, in priority order: a job breaking a hard active or
    /// an idle limit, or a fairshare cap, is not eligible (and its effective queue time
    /// starts again: for limits under JOBPRIOACCRUALPOLICY QUEUEPOLICY or FULLPOLICY, for
    /// caps under FULLPOLICY); an eligible job joins the idle usage; one breaking only a
    /// soft limit waits for the hard pass. Returns whether any does.
    fn select(&mut self, now: Time, order: &[usize], queue: &mut Queue) -> bool {
        let accrual = self.policy.priority.accrual;
        if let Some(t) = &mut self.throttle {
            t.begin_selection();
        }
        self.cap_lifts_at = None;
        let parking = self.parking.is_on();
        if parking {
            self.parking.count_blocks(&mut self.blocks);
            self.parked_ranks.clear();
        }
        let mut soft_only = false;
        for (rank, &pos) in order.iter().enumerate() {
            let verdict = self.judge(&queue[pos], now);
            let job = &mut queue[pos];
            match verdict {
                Verdict::Blocked(b) => {
                    count_block(&mut self.blocks, &b);
                    let lift = match b.scope {
                        Scope::NegativePriority => self.priority_reaches_zero(&queue[pos], now),
                        _ => self.throttle.as_ref().and_then(|t| t.lifts_at(&b, now)),
                    };
                    earliest(&mut self.limit_lifts_at, lift);
                    let job = &mut queue[pos];
                    if b.scope == Scope::FsRelativeCap {
                        let lift = self.fairshare.relative_caps_lift_at(job, now);
                        earliest(&mut self.cap_lifts_at, lift);
                    }
                    self.fate[rank] = Fate::Ineligible;
                    job.soft_violation = true;
                    let resets = match b.scope {
                        Scope::FsCap | Scope::FsRelativeCap | Scope::NegativePriority => {
                            accrual == AccrualPolicy::FullPolicy
                        }
                        _ => accrual.restarts_on_limits(),
                    };
                    if resets {
                        self.ranking.restart_queue_time(job, now);
                    }
                    let throttle = self.throttle.as_ref().filter(|_| parking);
                    if let Some(on) = throttle.and_then(|t| t.waits_on(job, &b)) {
                        self.parking.park(job, b.kind(), on, None);
                        self.parked_ranks.push(rank);
                    }
                }
                Verdict::SoftLimit(b) => {
                    count_block(&mut self.blocks, &b);
                    let lift = self.throttle.as_ref().and_then(|t| t.lifts_at(&b, now));
                    earliest(&mut self.limit_lifts_at, lift);
                    soft_only = true;
                    job.soft_violation = true;
                }
                Verdict::Eligible => job.soft_violation = false,
            }
        }
        if !self.parked_ranks.is_empty() {
            self.ranking.forget_ranks(&self.parked_ranks);
            self.parked_ranks.clear();
            self.parking.compact(queue);
        }
        soft_only
    }

    fn start(
        &mut self,
        now: Time,
        job: &QueuedJob,
        pos: usize,
        backfilled: bool,
        out: &mut Decisions,
    ) {
        self.take(now, job);
        out.starts.push(Start {
            job: job.idx,
            queue_pos: pos,
            backfilled,
        });
    }

    /// A job's processors, usage and fairshare charge from `now` on.
    fn take(&mut self, now: Time, job: &QueuedJob) {
        let placed = match (self.preemptor_nodes.take(), self.reserved_placement.take()) {
            (Some((idx, order)), _) if idx == job.idx => {
                self.machine.start_on(now, job, &order) || self.machine.start(now, job)
            }
            (_, Some((idx, placement))) if idx == job.idx => {
                self.machine.start_exactly(now, job, &placement) || self.machine.start(now, job)
            }
            _ => self.machine.start(now, job),
        };
        debug_assert!(
            placed,
            "job {} was found to fit but could not be placed",
            job.id
        );
        self.charge(now, job);
    }

    /// A started job's usage, fairshare charge and place in the queue-order count.
    fn charge(&mut self, now: Time, job: &QueuedJob) {
        self.charge_usage(now, job);
        self.ranking.started(job);
        self.keep_preemptee(now, job, (now - job.eff_queue_start).max(0));
    }

    /// A job's usage and fairshare charge from `now` on.
    fn charge_usage(&mut self, now: Time, job: &QueuedJob) {
        if let Some(t) = &mut self.throttle {
            t.charge(&self.policy.creds, job, now);
        }
        self.fairshare.job_started(now, job);
    }

    /// Starts an admitted job at `now` by no decision of the policy (it was running when
    /// the simulation began); it must not join the queue. False, and nothing changes, if
    /// its processors are not free now.
    pub fn start_outside_policy(&mut self, now: Time, job: &QueuedJob) -> bool {
        self.advance_to(now);
        self.machine.settle();
        let job = &self.with_standing_access(job);
        if !self.machine.fits(now, job) {
            return false;
        }
        self.take(now, job);
        self.note_running(job);
        true
    }

    /// `job` with the standing reservations it may use (a job started outside an
    /// iteration was never admitted).
    fn with_standing_access(&self, job: &QueuedJob) -> QueuedJob {
        let mut job = job.clone();
        (job.standing_access, job.standing_short) = self.machine.standing_access(&job);
        job
    }

    /// Keeps a job started outside an iteration among the running jobs 3.3.1's hard
    /// selection ranks (Maui's passes with limits).
    fn note_running(&mut self, job: &QueuedJob) {
        if self.maui_passes() && self.throttle.is_some() {
            self.maui_running.push(job.clone());
        }
    }

    /// Like [`Scheduler::start_outside_policy`], on the given nodes (per-node machines).
    pub fn start_outside_policy_on(&mut self, now: Time, job: &QueuedJob, nodes: &[u32]) -> bool {
        self.advance_to(now);
        let job = &self.with_standing_access(job);
        if !self.machine.start_on(now, job, nodes) {
            return false;
        }
        self.charge(now, job);
        self.note_running(job);
        true
    }

    /// Resumes a suspended job (PREEMPTPOLICY SUSPEND) at `now`: with exactly its former
    /// `placement` (tasks per node; anywhere it fits where processors are pooled), its
    /// planned length being what is left of its limit; its queue time stays `frozen` for
    /// its priority as a victim. False, and nothing changes, if it cannot resume now.
    pub fn resume_suspended(
        &mut self,
        now: Time,
        job: &QueuedJob,
        placement: &[(u32, u64)],
        frozen: Time,
    ) -> bool {
        self.advance_to(now);
        let mut job = self.with_standing_access(job);
        job.cred_factors = self.policy.creds.resolve(&job.creds);
        let placed = if self.machine.is_pooled() {
            self.machine.fits(now, &job) && self.machine.start(now, &job)
        } else {
            self.machine.start_exactly(now, &job, placement)
        };
        if !placed {
            return false;
        }
        // (Never queued again, it is not among the ranking's jobs.)
        self.charge_usage(now, &job);
        self.keep_preemptee(now, &job, frozen);
        self.note_running(&job);
        self.last_change = self.last_change.max(now);
        true
    }

    /// Orders the idle queue by priority at `now`, every priority evaluated.
    fn prioritize(&mut self, now: Time, queue: &mut Queue) {
        let at = Evaluation {
            priority: &self.policy.priority,
            fairshare: &self.fairshare,
            now,
        };
        let parked = self.parking.parked();
        self.ranking.prioritize(at, queue, &self.unparked, parked);
        self.unparked.clear();
    }

    /// Brings back the parked jobs whose credentials' usage moved since the last
    /// iteration, at `previous`: as if each had been found blocked then.
    /// Under Maui 3.3.1's selection, so do those parked only while iterations come at
    /// most some gap apart (`maui_parking::tolerance`), after a longer one.
    fn bring_back(&mut self, previous: Time, now: Time, queue: &mut Queue) {
        let Some(t) = &mut self.throttle else { return };
        let system = t.take_changes(&mut self.changed);
        if !self.parking.is_on() {
            return;
        }
        let ranking = &mut self.ranking;
        let mut restart = self
            .policy
            .priority
            .accrual
            .restarts_on_limits()
            .then_some(|job: &mut QueuedJob| ranking.restart_queue_time(job, previous));
        let (changed, unparked) = (&self.changed, &mut self.unparked);
        let gap = now.saturating_sub(previous);
        self.parking
            .release(changed, system, gap, queue, &mut restart, unparked);
    }

    /// Brings back every parked job, as if each had been found blocked in the last
    /// iteration, for a look at the whole queue.
    fn bring_back_all(&mut self, queue: &mut Queue) {
        let last = self.last_iteration;
        let ranking = &mut self.ranking;
        let mut restart = self
            .policy
            .priority
            .accrual
            .restarts_on_limits()
            .then_some(|job: &mut QueuedJob| ranking.restart_queue_time(job, last));
        self.parking
            .release_all(queue, &mut restart, &mut self.unparked);
    }

    /// Brings every queued job's state up to date, parked ones too (their queue time
    /// restarts lazily): before the queue is looked at from outside.
    pub fn settle(&mut self, queue: &mut Queue) {
        queue.settle_bypasses();
        self.bring_back_all(queue);
        self.unparked.clear();
        self.ranking.forget_keys();
    }

    /// Orders the idle queue from priority bounds where the policy allows it
    /// ([`PriorityOrder::order_by_bounds`]); false when [`Self::prioritize`] must.
    fn order_by_bounds(&mut self, now: Time, queue: &mut Queue) -> bool {
        if !self.ranking.may_bound() {
            return false;
        }
        let depth = match self.policy.reservation_policy {
            ReservationPolicy::Never => 0,
            _ => self.policy.reservation_groups[0].depth as usize,
        };
        let free = self.machine.free_now(now);
        let at = Evaluation {
            priority: &self.policy.priority,
            fairshare: &self.fairshare,
            now,
        };
        self.ranking.order_by_bounds(at, queue, free, depth)
    }
}

/// The queue length from which FIRSTFIT finds its candidates through the fit index
/// ([`Scheduler::first_fit_by_index`]) rather than by a scan.
const INDEXED_FROM: usize = 128;

/// Whether iterations may order the jobs from priority bounds
/// ([`PriorityOrder::order_by_bounds`]): the policy must look no further down the order than
/// the jobs that fit and the first RESERVATIONDEPTH others (no limits, fairshare caps or
/// REJECTNEGPRIOJOBS, no
/// RESERVATIONPOLICY HIGHEST, one reservation group for every QOS without a threshold, no
/// BACKFILLDEPTH, no chunking), and every job's priority must be nondecreasing while it
/// waits ([`crate::PriorityConfig::grows_with_time`], fairshare not in it).
fn may_bound_priorities(p: &PolicyConfig, has_limits: bool, fairshare: &Fairshare) -> bool {
    let fs_static = fairshare_out_of_priority(p, fairshare);
    let one_group = matches!(&p.reservation_groups[..], [g] if g.qos.is_none());
    !has_limits
        && !p.priority.reject_negative
        && !p.semantics.is_maui()
        && !fairshare.has_caps()
        && p.reservation_policy != ReservationPolicy::Highest
        && one_group
        && p.backfill_depth == 0
        && p.reservation_threshold == ReservationThreshold::None
        && !p.chunking.is_on()
        && p.priority.grows_with_time()
        && fs_static
}

/// Whether fairshare weighs nothing in the priority (no FSPOLICY, or a zero weight).
fn fairshare_out_of_priority(p: &PolicyConfig, fairshare: &Fairshare) -> bool {
    !fairshare.enabled()
        || p.priority.component_weight[Component::Fs as usize] == 0.0
        || CredKind::ALL
            .iter()
            .all(|&k| p.priority.weight[Sub::fairshare(k) as usize] == 0.0)
}

/// [`Scheduler::maui_passes`] of `policy`.
fn follows_maui_passes(policy: &PolicyConfig) -> bool {
    policy.semantics.is_maui()
        && policy.backfill != BackfillPolicy::None
        && policy.reservation_policy != ReservationPolicy::Highest
}

/// Takes back the reservation of this iteration that the job at `rank` holds, if any.
fn take_back_held(
    held: &mut Vec<(usize, HeldId)>,
    machine: &mut Machine,
    out: &mut Decisions,
    rank: usize,
    job: JobIdx,
) {
    if let Some(k) = held.iter().position(|&(r, _)| r == rank) {
        let (_, id) = held.swap_remove(k);
        machine.release(id);
    }
    out.reservations.retain(|r| r.job != job);
}

/// Counts running job `run` into 3.3.1's hard selection (MPolicy.c `MQueueSelectAllJobs`):
/// over a soft active limit with the running jobs ranked above it counted, it gets
/// SPViolation, which a PREEMPTSPV QOS makes PREEMPTEE (noted in `over_soft_limits`).
fn count_running(
    t: &mut Throttle,
    (creds, system): (&crate::cred_settings::CredTables, &crate::limits::Limits),
    run: &QueuedJob,
    now: Time,
    over_soft_limits: &mut std::collections::BTreeSet<JobIdx>,
) {
    if run.cred_factors.preempt_spv
        && t.check_active(creds, system, run, Level::Soft, now)
            .is_some()
    {
        over_soft_limits.insert(run.idx);
    }
    t.count_again(creds, run.idx);
}

/// Keeps the earlier of `slot` and `t`.
fn earliest(slot: &mut Option<Time>, t: Option<Time>) {
    if let Some(t) = t {
        *slot = Some(slot.map_or(t, |s| s.min(t)));
    }
}

/// Counts one job-iteration blocked by `blocked`'s kind of limit.
fn count_block(blocks: &mut Vec<(LimitKind, u64)>, blocked: &Blocked) {
    let kind = blocked.kind();
    match blocks.iter_mut().find(|(k, _)| *k == kind) {
        Some((_, n)) => *n += 1,
        None => blocks.push((kind, 1)),
    }
}

/// The last few `(processors, wallclock limit)` shapes a FIRSTFIT scan found no room for
/// over time: a candidate at least as wide and as long as one of them needs no question.
struct Misfits {
    on: bool,
    shapes: [(u64, Time); Misfits::KEPT],
    len: usize,
    next: usize,
}

impl Misfits {
    const KEPT: usize = 8;

    fn new(on: bool) -> Self {
        Misfits {
            on,
            shapes: [(0, 0); Misfits::KEPT],
            len: 0,
            next: 0,
        }
    }

    #[inline]
    fn dominate(&self, procs: u64, wcl: Time) -> bool {
        self.shapes[..self.len]
            .iter()
            .any(|&(p, w)| procs >= p && wcl >= w)
    }

    /// Keeps a shape that did not fit (the oldest goes when full); false, for `||`.
    fn add(&mut self, procs: u64, wcl: Time) -> bool {
        if self.on {
            self.shapes[self.next] = (procs, wcl);
            self.next = (self.next + 1) % Misfits::KEPT;
            self.len = (self.len + 1).min(Misfits::KEPT);
        }
        false
    }
}

/// BYPASS (MAUI-SEMANTICS §1): each job started by backfill adds one to every job still
/// waiting ahead of it in the priority order. One backward sweep counts them all.
fn count_bypasses(order: &[usize], fate: &[Fate], queue: &mut Queue) {
    let mut backfilled_behind = 0;
    for (rank, &pos) in order.iter().enumerate().rev() {
        match fate[rank] {
            Fate::Backfilled => backfilled_behind += 1,
            Fate::Waits | Fate::Reserved | Fate::SoftOnly if backfilled_behind > 0 => {
                queue[pos].bypass += backfilled_behind;
            }
            Fate::Waits | Fate::Reserved | Fate::SoftOnly => {}
            Fate::StartedInPriorityPass | Fate::Ineligible => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cred::CredId;

    /// Priority order by definition: every job's full breakdown, then submit, id, position.
    fn reference_order(s: &Scheduler, now: Time, queue: &Queue) -> Vec<usize> {
        let mut keys: Vec<_> = queue
            .iter()
            .enumerate()
            .map(|(pos, j)| (-s.breakdown(j, now).priority, j.submit, j.id, pos))
            .collect();
        keys.sort();
        keys.into_iter().map(|k| k.3).collect()
    }

    proptest::proptest! {
        /// REJECTNEGPRIOJOBS: the wakeup of a job of negative priority is the first
        /// instant its priority reaches 0 by waiting, as a scan second by second finds it.
        #[test]
        fn a_negative_priority_wakes_the_job_when_it_reaches_zero(
            penalty in 1.0f64..200.0,
            xfactor_weight in 0.0f64..50.0,
            wcl in 60i64..20_000,
            queued in 0i64..5_000,
        ) {
            let mut policy = PolicyConfig::default();
            policy.priority.reject_negative = true;
            policy.priority.weight[Sub::credential(CredKind::User) as usize] = 1.0;
            policy.priority.weight[Sub::XFactor as usize] = xfactor_weight;
            let s = Scheduler::new(16, 0, policy);
            let mut j = job(0, 0, 1, wcl);
            j.cred_factors.priority[CredKind::User.index()] = -penalty;
            let now = queued;
            let scanned = (0..200_000)
                .map(|ahead| now + ahead)
                .find(|&at| s.breakdown(&j, at).priority >= 0);
            proptest::prop_assume!(s.breakdown(&j, now).priority < 0);
            proptest::prop_assert_eq!(s.priority_reaches_zero(&j, now), scanned);
        }
    }

    /// Short jobs overtake long ones (XFACTOR), so the order changes between iterations.
    fn xfactor_scheduler(procs: u64) -> Scheduler {
        let mut policy = PolicyConfig::default();
        policy.priority.weight[Sub::XFactor as usize] = 100.0;
        Scheduler::new(procs, 0, policy)
    }

    fn job(i: u32, submit: Time, procs: u64, wcl: Time) -> QueuedJob {
        QueuedJob::new(JobIdx(i), u64::from(i) + 1, submit, procs, wcl)
    }

    /// One iteration at 0 on `nodes` 1-processor nodes tracked one by one, depth 1.
    fn iteration_on_nodes(
        nodes: u64,
        queue: Vec<QueuedJob>,
        backfill: BackfillPolicy,
        semantics: Semantics,
    ) -> (Scheduler, Decisions) {
        let policy = PolicyConfig {
            semantics,
            ..PolicyConfig::with_backfill(backfill, 1)
        };
        let spec = Arc::new(MachineSpec::homogeneous(nodes, 1));
        let mut s = Scheduler::with_machine(spec, false, 0, policy);
        let mut out = Decisions::default();
        let mut queue: Queue = queue.into_iter().collect();
        s.schedule(0, &mut queue, &mut out);
        (s, out)
    }

    /// One iteration on five 1-processor nodes; all jobs queued at 0, in priority order
    /// J1..J5 (equal priority, then id).
    fn maui_iteration(backfill: BackfillPolicy, semantics: Semantics) -> (Scheduler, Decisions) {
        let queue = vec![
            job(0, 0, 2, 1000),
            job(1, 0, 4, 100),
            job(2, 0, 4, 50),
            job(3, 0, 1, 5000),
            job(4, 0, 1, 500),
        ];
        iteration_on_nodes(5, queue, backfill, semantics)
    }

    /// J1 (2 procs, 1000 s) starts on n4, n3: LASTAVAILABLE takes the nodes free longest,
    /// the last first. J2 (4, 100 s) does not fit: reserved at 1000 on n4..n1, the last
    /// nodes free then. J3 (4, 50 s) does not fit and no depth is left: the priority pass
    /// ends. Backfill, widest window first: n2, n1, n0 free for 1000 s. J4 (1, 5000 s) is
    /// too long for it; J5 (1, 500 s) fits and takes n0, the node free longest. No node is
    /// free beyond 1000 s then, so J4 waits, although it would have fitted on n0 first.
    #[test]
    fn maui_backfills_the_widest_window_first_on_the_nodes_free_longest() {
        let (s, out) = maui_iteration(BackfillPolicy::FirstFit, Semantics::Maui);
        let started: Vec<(u32, bool)> =
            out.starts.iter().map(|x| (x.job.0, x.backfilled)).collect();
        assert_eq!(started, [(0, false), (4, true)]);
        assert_eq!(s.machine.placement(JobIdx(0)), &[(4, 1), (3, 1)]);
        assert_eq!(s.machine.placement(JobIdx(4)), &[(0, 1)]);
        let reserved: Vec<(u32, Time)> = out
            .reservations
            .iter()
            .map(|r| (r.job.0, r.start))
            .collect();
        assert_eq!(reserved, [(1, 1000)]);
        // The research reading backfills in priority order: J4 before J5, both now.
        let (_, out) = maui_iteration(BackfillPolicy::FirstFit, Semantics::ResearchEasy);
        let started: Vec<u32> = out.starts.iter().map(|x| x.job.0).collect();
        assert_eq!(started, [0, 3, 4]);
    }

    /// 3.3.1's GREEDY never fills its candidate list: only the priority pass starts jobs.
    /// The guide's GREEDY (the default) backfills J5 as the others would.
    #[test]
    fn maui_3_3_1_greedy_backfills_nothing() {
        let (_, out) = maui_iteration(BackfillPolicy::Greedy, Semantics::Maui331);
        let started: Vec<u32> = out.starts.iter().map(|x| x.job.0).collect();
        assert_eq!(started, [0]);
        let (_, out) = maui_iteration(BackfillPolicy::Greedy, Semantics::Maui);
        let started: Vec<u32> = out.starts.iter().map(|x| x.job.0).collect();
        assert_eq!(started, [0, 4]);
    }

    /// After reserving for a blocked job, 3.3.1's priority pass goes on starting every
    /// job that fits around the reservation, without using up RESERVATIONDEPTH: with
    /// depth 1 on four nodes, J1 (3 procs) starts, J2 (2) is reserved at 100, J3 (1, 50 s)
    /// starts in the priority pass (not backfilled), and J4 (2) is blocked with no depth left.
    #[test]
    fn maui_priority_pass_goes_on_after_the_reservation() {
        let queue = vec![
            job(0, 0, 3, 100),
            job(1, 0, 2, 100),
            job(2, 0, 1, 50),
            job(3, 0, 2, 10),
        ];
        let (s, out) = iteration_on_nodes(4, queue, BackfillPolicy::BestFit, Semantics::Maui);
        let started: Vec<u32> = out.starts.iter().map(|x| x.job.0).collect();
        assert_eq!(started, [0, 2]);
        assert_eq!(
            s.fate,
            [
                Fate::StartedInPriorityPass,
                Fate::Reserved,
                Fate::StartedInPriorityPass,
                Fate::Waits
            ]
        );
    }

    #[test]
    fn the_carried_order_follows_removals_appends_and_foreign_edits() {
        let mut s = xfactor_scheduler(4);
        let mut queue: Queue = (0..12)
            .map(|i| {
                job(
                    i,
                    i64::from(i) * 60,
                    1 + u64::from(i % 3),
                    600 * (1 + i64::from(i % 5)),
                )
            })
            .collect();
        for j in queue.iter_mut() {
            s.admit(j).unwrap();
        }
        let mut out = Decisions::default();
        for (next, step) in (12..).zip(0..8) {
            let now = 1000 + step * 700;
            s.schedule(now, &mut queue, &mut out);
            let mut started: Vec<usize> = out.starts.iter().map(|st| st.queue_pos).collect();
            started.sort_unstable();
            for pos in started.into_iter().rev() {
                let j = queue.remove(pos);
                s.job_ended(now, now, now, j.idx);
            }
            if step % 3 == 2 {
                // Not the removal the scheduler expects: it must notice and start over.
                queue.swap(0, 1);
            }
            let mut fresh = job(next, now, 2, 300);
            s.admit(&mut fresh).unwrap();
            queue.push(fresh);
            let later = now + 350;
            let expected = reference_order(&s, later, &queue);
            assert_eq!(s.priority_order(later, &mut queue), expected, "step {step}");
        }
    }

    /// A group's CLASSWEIGHT gives its jobs their CLASS priority even when QUEUETIMEWEIGHT
    /// is the only global weight: the queue order is then not the priority order (issue
    /// 25: the queue-order fast path once ignored it).
    #[test]
    fn a_groups_class_weight_orders_jobs_with_queue_time_the_only_weight() {
        let mut policy = PolicyConfig::default();
        policy
            .creds
            .own_mut(CredKind::Group, CredId(0))
            .class_weight = Some(3.0);
        policy.creds.own_mut(CredKind::Class, CredId(0)).priority = 100.0;
        let mut s = Scheduler::new(1, 0, policy);
        assert!(!s.priority_is_queue_order());
        let early = job(0, 0, 1, 60);
        let mut weighted = job(1, 60, 1, 60);
        weighted.creds.set(CredKind::Group, CredId(0));
        weighted.creds.set(CredKind::Class, CredId(0));
        let mut queue: Queue = [early, weighted].into_iter().collect();
        for j in queue.iter_mut() {
            s.admit(j).unwrap();
        }
        // At 120 s: the early job has 2 minutes of queue time (priority 2), the weighted
        // one 1 minute plus CRED 1 x CLASSWEIGHT 3 x PRIORITY 100 (301).
        assert_eq!(s.breakdown(&queue[1], 120).priority, 301);
        assert_eq!(s.priority_order(120, &mut queue), vec![1, 0]);
    }

    /// The carry-over bookkeeping holds one iteration's starts, never a history (on the
    /// FCFS fast path it once grew by every start of the run).
    #[test]
    fn carry_over_state_stays_one_iteration_long() {
        for mut s in [
            Scheduler::new(2, 0, PolicyConfig::default()),
            xfactor_scheduler(2),
        ] {
            let mut queue = Queue::new();
            let mut out = Decisions::default();
            for i in 0..50u32 {
                let now = i64::from(i) * 100;
                let mut j = job(i, now, 1, 50);
                s.admit(&mut j).unwrap();
                queue.push(j);
                s.schedule(now, &mut queue, &mut out);
                assert_eq!(s.ranking.last_started_len(), out.starts.len());
                for st in out.starts.iter().rev() {
                    let j = queue.remove(st.queue_pos);
                    s.job_ended(now + 50, now + 50, now + 50, j.idx);
                }
            }
        }
    }
}
