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

use crate::backfill::{best_fit, greedy_start, Candidate};
use crate::check::{Rule, Violation};
use crate::cred::CredKind;
use crate::fairshare::{Fairshare, FsAt};
use crate::job::{JobIdx, QueuedJob};
use crate::limits::{Blocked, Level, LimitKind, Metric, Owner, Scope, Shortfall, Source};
use crate::machine::{HeldId, Machine, Unfit};
use crate::node::MachineSpec;
use crate::policy::{BackfillPolicy, PolicyConfig, ReservationPolicy, ReservationThreshold};
use crate::priority::{AccrualPolicy, Breakdown, Component, JobTerms, PriorityConfig, Sub};
use crate::profile::{Profile, Window, FOREVER};
use crate::throttle::{Throttle, Verdict};
use crate::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
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
}

impl Decisions {
    pub fn clear(&mut self) {
        self.starts.clear();
        self.reservations.clear();
    }
}

/// The scheduler: policy plus the availability profile of the jobs it has started.
///
/// Its decisions are final: a started job's processors are taken in the profile at once,
/// and the caller must report the job's end with [`Scheduler::job_ended`].
#[derive(Debug, Clone)]
pub struct Scheduler {
    policy: PolicyConfig,
    /// The priority order is the queue order whenever no queued job breaks it
    /// ([`QueuedJob::breaks_queue_order`]): sorting can be skipped.
    queue_order: bool,
    /// Queued jobs that break the queue order, counted as they are admitted and started,
    /// so the fast path needs no scan of the queue.
    out_of_queue_order: usize,
    machine: Machine,
    /// Fairshare usage, targets and caps.
    fairshare: Fairshare,
    /// When a relative fairshare cap that blocked a job in the last iteration lifts.
    cap_lifts_at: Option<Time>,
    /// Scratch: queue positions in priority order.
    order: Vec<usize>,
    /// Priority sort keys, kept in the last iteration's order (priorities change little
    /// between iterations, so the next iteration's sort sees nearly sorted input); in
    /// bounded iterations, in queue order.
    keys: Vec<Key>,
    /// Whether iterations order the jobs from priority bounds ([`Self::order_by_bounds`]).
    bounded: bool,
    /// Evaluate every priority in every iteration (to check the bounded path against).
    exhaustive: bool,
    /// Iterations the bounded path decided.
    bounded_iterations: u64,
    /// Scratch of bounded iterations: the backfilled jobs' keys; the jobs to order
    /// exactly; the highest lower bounds of the jobs that do not fit.
    backfilled_keys: Vec<Key>,
    newcomers: Vec<usize>,
    top_lows: BinaryHeap<Reverse<i64>>,
    /// In bounded iterations: the positions of the last iteration's exactly ordered jobs,
    /// in that order, carried like the keys.
    ranked: Vec<usize>,
    /// The queue as the last iteration left it: its length and the positions it started
    /// (ascending), so that `keys` can follow the caller's removal of started jobs.
    last_len: usize,
    last_started: Vec<usize>,
    /// Scratch: old queue position → new one while carrying keys over.
    new_pos: Vec<usize>,
    /// Scratch: each job's fate this iteration, by priority rank.
    fate: Vec<Fate>,
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
}

impl Scheduler {
    /// A scheduler for a machine of `total_procs` single-processor nodes, idle from
    /// `origin` on.
    pub fn new(total_procs: u64, origin: Time, policy: PolicyConfig) -> Self {
        let spec = Arc::new(MachineSpec::homogeneous(total_procs, 1));
        Self::with_machine(spec, true, origin, policy)
    }

    /// A scheduler for the machine of `spec`, idle from `origin` on; `pooled` as
    /// [`MachineSpec::pools_processors`] finds for the jobs it will see.
    pub fn with_machine(
        spec: Arc<MachineSpec>,
        pooled: bool,
        origin: Time,
        policy: PolicyConfig,
    ) -> Self {
        let mut scheduler = Scheduler {
            throttle: Throttle::new(&policy.creds, &policy.system_limits),
            fairshare: Fairshare::new(&policy.fairshare, &policy.creds, origin),
            cap_lifts_at: None,
            queue_order: policy.priority_is_queue_order(),
            out_of_queue_order: 0,
            policy,
            machine: Machine::new(spec, origin, pooled),
            order: Vec::new(),
            keys: Vec::new(),
            bounded: false,
            exhaustive: false,
            bounded_iterations: 0,
            backfilled_keys: Vec::new(),
            newcomers: Vec::new(),
            top_lows: BinaryHeap::new(),
            ranked: Vec::new(),
            last_len: 0,
            last_started: Vec::new(),
            new_pos: Vec::new(),
            fate: Vec::new(),
            blocks: Vec::new(),
            kept: Vec::new(),
            groups_left: Vec::new(),
            reservations_made: 0,
            last_completion: None,
            chunk_expires_at: None,
        };
        scheduler.bounded = scheduler.may_bound_priorities();
        scheduler
    }

    /// Whether iterations may order the jobs from priority bounds
    /// ([`Self::order_by_bounds`]): the policy must look no further down the order than
    /// the jobs that fit and the first RESERVATIONDEPTH others (no limits or fairshare
    /// caps, no RESERVATIONPOLICY HIGHEST, one reservation group for every QOS without a
    /// threshold, no BACKFILLDEPTH, no chunking), and every job's priority must be
    /// nondecreasing while it waits ([`PriorityConfig::grows_with_time`], fairshare not
    /// in it).
    fn may_bound_priorities(&self) -> bool {
        let p = &self.policy;
        let fs_static = !self.fairshare.enabled()
            || p.priority.component_weight[Component::Fs as usize] == 0.0
            || CredKind::ALL
                .iter()
                .all(|&k| p.priority.weight[Sub::fairshare(k) as usize] == 0.0);
        let one_group = matches!(&p.reservation_groups[..], [g] if g.qos.is_none());
        self.throttle.is_none()
            && !self.fairshare.has_caps()
            && p.reservation_policy != ReservationPolicy::Highest
            && one_group
            && p.backfill_depth == 0
            && p.reservation_threshold == ReservationThreshold::None
            && !p.chunking.is_on()
            && p.priority.grows_with_time()
            && fs_static
    }

    /// Evaluates every priority in every iteration, as the definition does: the reference
    /// the bounded path is tested against.
    pub fn set_exhaustive_priority(&mut self, exhaustive: bool) {
        self.exhaustive = exhaustive;
    }

    /// Iterations decided from priority bounds.
    pub fn bounded_iterations(&self) -> u64 {
        self.bounded_iterations
    }

    pub fn policy(&self) -> &PolicyConfig {
        &self.policy
    }

    /// Free processors over time, summed over nodes.
    pub fn profile(&self) -> &Profile {
        self.machine.profile()
    }

    pub fn machine(&self) -> &Machine {
        &self.machine
    }

    /// Whether priority is a non-decreasing function of queue time alone, so that a job
    /// submitted later never overtakes one already queued.
    pub fn priority_is_queue_order(&self) -> bool {
        self.queue_order
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
        if let Err(unfit) = self.machine.can_ever_run(job) {
            let (lacks, metric, amount, limit) = match unfit {
                Unfit::Procs { asked, available } => {
                    (Shortfall::Procs, Metric::Proc, asked, available)
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
        job.cred_factors = self.policy.creds.resolve(&job.creds);
        if job.breaks_queue_order() {
            self.out_of_queue_order += 1;
        }
        Ok(())
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
    /// cap lifting as others' usage grows, or backfill chunking expiring. The caller
    /// should iterate then if jobs wait, as Maui's polling would.
    pub fn next_wakeup(&self) -> Option<Time> {
        [
            self.fairshare.next_change(),
            self.cap_lifts_at,
            self.chunk_expires_at,
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
    pub fn priority_order(&mut self, now: Time, queue: &mut [QueuedJob]) -> Vec<usize> {
        self.advance_to(now);
        self.prioritize(now, queue);
        self.order.clone()
    }

    /// Processors free at `now` by the plan: a running job's processors count as free once
    /// its planned end (start + WCL) has come.
    pub fn free_now(&mut self, now: Time) -> i64 {
        self.machine.advance(now);
        self.machine.free_now(now)
    }

    /// Whether `job` could start at `now` on the nodes as they are (no reservations).
    pub fn fits_now(&mut self, now: Time, job: &QueuedJob) -> bool {
        self.machine.advance(now);
        if self.machine.is_pooled() {
            // Between iterations nothing is reserved, so free processors only grow from
            // now on: what is free now is free for the job's whole limit.
            return self.machine.free_now(now) >= job.procs as i64;
        }
        self.machine.fits(now, job)
    }

    /// `job` ended at `ended`; its nodes count as free from `freed` on (the same instant
    /// unless the caller polls). Its fairshare usage stops at `ended`.
    pub fn job_ended(&mut self, ended: Time, freed: Time, job: JobIdx) {
        self.fairshare.job_ended(ended, job);
        self.last_completion = Some(self.last_completion.map_or(freed, |t| t.max(freed)));
        self.machine.ended(job, ended, freed);
        if let Some(t) = &mut self.throttle {
            t.discharge(&self.policy.creds, job);
        }
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
    pub fn explain(&mut self, now: Time, queue: &mut [QueuedJob]) -> Vec<(usize, Verdict)> {
        self.advance_to(now);
        self.prioritize(now, queue);
        let order = std::mem::take(&mut self.order);
        if let Some(t) = &mut self.throttle {
            t.begin_selection();
        }
        let verdicts = order
            .iter()
            .map(|&pos| (pos, self.judge(&queue[pos], now)))
            .collect();
        self.order = order;
        verdicts
    }

    /// One step of the selection in priority order: the throttling verdict (which adds an
    /// eligible job to the idle usage), then the fairshare caps.
    fn judge(&mut self, job: &QueuedJob, now: Time) -> Verdict {
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

    /// Runs one iteration at `now` over the idle `queue` (ordered by `(submit, id)`).
    ///
    /// With limits configured, an iteration first selects the eligible jobs in priority
    /// order (hard active and idle limits; MAUI-SEMANTICS §3), then makes two passes
    /// (guide 6.2.4, 8.2): the first over the jobs within their soft limits (start,
    /// reserve, backfill), the second over those within only their hard limits, which may
    /// use what is still idle around the reservations.
    pub fn schedule(&mut self, now: Time, queue: &mut [QueuedJob], out: &mut Decisions) {
        self.iterate(now, queue, out, None);
    }

    /// What an iteration at `now` would reserve, and the backfill windows it would leave
    /// around those reservations (`showbf`), without changing anything. Starts the
    /// priority pass would make (none, right after an iteration at `now`) are in
    /// `decisions.starts`, and the windows are those left after them.
    pub fn plan(&self, now: Time, queue: &[QueuedJob]) -> (Decisions, Vec<Window>) {
        let mut probe = self.clone();
        let mut queue = queue.to_vec();
        let mut decisions = Decisions::default();
        let mut windows = Vec::new();
        probe.iterate(now, &mut queue, &mut decisions, Some(&mut windows));
        (decisions, windows)
    }

    /// One iteration; with `windows`, it stops before backfill and reports the windows.
    fn iterate(
        &mut self,
        now: Time,
        queue: &mut [QueuedJob],
        out: &mut Decisions,
        windows: Option<&mut Vec<Window>>,
    ) {
        out.clear();
        self.advance_to(now);
        let bounded = windows.is_none() && self.order_by_bounds(now, queue);
        if !bounded {
            self.prioritize(now, queue);
        }
        let order = std::mem::take(&mut self.order);
        self.fate.clear();
        self.fate.resize(order.len(), Fate::Waits);
        self.chunk_expires_at = None;
        let selects = self.throttle.is_some() || self.fairshare.has_caps();
        let mut soft_only = selects && self.select(now, &order, queue);
        let mut groups_left = std::mem::take(&mut self.groups_left);
        groups_left.clear();
        let never = self.policy.reservation_policy == ReservationPolicy::Never;
        let depths = self.policy.reservation_groups.iter();
        groups_left.extend(depths.map(|g| if never { 0 } else { g.depth }));
        if self.policy.reservation_policy == ReservationPolicy::Highest {
            self.keep_reservations(now, &order, queue, out, &mut groups_left);
        }
        let blocked = self.priority_pass(now, &order, queue, out, &mut groups_left, &mut soft_only);
        self.groups_left = groups_left;
        if let Some(windows) = windows {
            *windows = self.machine.windows(now);
            return;
        }
        let strict = self.policy.backfill == BackfillPolicy::None;
        let mut any_backfilled = false;
        if !strict {
            any_backfilled |= self.backfill(now, &order, queue, out, Level::Soft, &mut soft_only);
        }
        if soft_only && !(strict && blocked) {
            any_backfilled |= self.backfill(now, &order, queue, out, Level::Hard, &mut soft_only);
        }
        if any_backfilled {
            count_bypasses(&order, &self.fate, queue);
            if bounded {
                self.count_bypasses_beyond_exact(now, &order, queue);
            }
        }
        self.order = order;
        self.last_started
            .extend(out.starts.iter().map(|s| s.queue_pos));
        self.last_started.sort_unstable();
        self.machine.release_all();
        self.kept.clear();
    }

    /// RESERVATIONPOLICY HIGHEST: every eligible job that once had a reservation gets one
    /// again before anything else is placed, oldest reservation first, so no newer
    /// decision can push it later. Each counts against its group's depth.
    fn keep_reservations(
        &mut self,
        now: Time,
        order: &[usize],
        queue: &mut [QueuedJob],
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
        queue: &mut [QueuedJob],
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
            let fits = self.machine.fits(now, job);
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

    /// The first reservation group whose QOS list holds the job's QOS.
    fn group_of(&self, job: &QueuedJob) -> Option<usize> {
        let qos = job.creds.ids[CredKind::Qos.index()];
        self.policy
            .reservation_groups
            .iter()
            .position(|g| g.holds(qos))
    }

    /// Reserves `job` at its earliest start for this iteration; `None` if it can never
    /// start (not reachable for admitted jobs).
    fn reserve(&mut self, now: Time, job: &mut QueuedJob, out: &mut Decisions) -> Option<HeldId> {
        let (at, held) = self.machine.reserve(now, job)?;
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
        queue: &mut [QueuedJob],
        out: &mut Decisions,
        level: Level,
        soft_only: &mut bool,
    ) -> bool {
        if self.machine.free_now(now) <= 0 {
            return false;
        }
        let depth = match self.policy.backfill_depth {
            0 => usize::MAX,
            d => d as usize,
        };
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

    /// Whether the job at `rank` is one backfill at `level` considers: left waiting by the
    /// priority pass (soft), or within only its hard limits (hard).
    fn is_candidate(&self, rank: usize, job: &QueuedJob, level: Level) -> bool {
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
        queue: &mut [QueuedJob],
        out: &mut Decisions,
        depth: usize,
        level: Level,
        soft_only: &mut bool,
    ) -> bool {
        let strict = self.policy.backfill == BackfillPolicy::None;
        let chunk = self.policy.chunking;
        let chunk_ends = self
            .last_completion
            .map(|t| t.saturating_add(chunk.duration))
            .filter(|&ends| chunk.is_on() && !strict && now < ends);
        let mut chunk_blocks = false;
        let mut any = false;
        let mut considered = 0;
        for (rank, &pos) in order.iter().enumerate() {
            if !self.is_candidate(rank, &queue[pos], level) {
                continue;
            }
            considered += 1;
            if considered > depth || self.machine.free_now(now) <= 0 {
                break;
            }
            if !self.within_limits(now, rank, &queue[pos], level, soft_only) {
                continue;
            }
            let job = &queue[pos];
            if chunk_blocks && job.procs < chunk.size {
                self.chunk_expires_at = chunk_ends;
                continue;
            }
            if self.machine.fits(now, job) {
                self.start(now, job, pos, true, out);
                self.fate[rank] = Fate::Backfilled;
                any = true;
            } else if strict {
                break;
            } else if chunk_ends.is_some() && job.procs >= chunk.size {
                chunk_blocks = true;
            }
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
        queue: &mut [QueuedJob],
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
        any
    }

    /// The selection of eligible jobs, in priority order: a job breaking a hard active or
    /// an idle limit, or a fairshare cap, is not eligible (and its effective queue time
    /// starts again: for limits under JOBPRIOACCRUALPOLICY QUEUEPOLICY or FULLPOLICY, for
    /// caps under FULLPOLICY); an eligible job joins the idle usage; one breaking only a
    /// soft limit waits for the hard pass. Returns whether any does.
    fn select(&mut self, now: Time, order: &[usize], queue: &mut [QueuedJob]) -> bool {
        let accrual = self.policy.priority.accrual;
        if let Some(t) = &mut self.throttle {
            t.begin_selection();
        }
        self.cap_lifts_at = None;
        let mut soft_only = false;
        for (rank, &pos) in order.iter().enumerate() {
            let verdict = self.judge(&queue[pos], now);
            let job = &mut queue[pos];
            match verdict {
                Verdict::Blocked(b) => {
                    count_block(&mut self.blocks, &b);
                    if b.scope == Scope::FsRelativeCap {
                        if let Some(t) = self.fairshare.relative_caps_lift_at(job, now) {
                            self.cap_lifts_at = Some(self.cap_lifts_at.map_or(t, |c| c.min(t)));
                        }
                    }
                    self.fate[rank] = Fate::Ineligible;
                    job.soft_violation = true;
                    let resets = match b.scope {
                        Scope::FsCap | Scope::FsRelativeCap => accrual == AccrualPolicy::FullPolicy,
                        _ => accrual != AccrualPolicy::Always,
                    };
                    if resets && job.eff_queue_start != now {
                        let was_in_order = !job.breaks_queue_order();
                        job.eff_queue_start = now;
                        if was_in_order && job.breaks_queue_order() {
                            self.out_of_queue_order += 1;
                        }
                    }
                }
                Verdict::SoftLimit(b) => {
                    count_block(&mut self.blocks, &b);
                    soft_only = true;
                    job.soft_violation = true;
                }
                Verdict::Eligible => job.soft_violation = false,
            }
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
        let placed = self.machine.start(now, job);
        debug_assert!(
            placed,
            "job {} was found to fit but could not be placed",
            job.id
        );
        self.charge(now, job);
    }

    /// A started job's usage, fairshare charge and place in the queue-order count.
    fn charge(&mut self, now: Time, job: &QueuedJob) {
        if let Some(t) = &mut self.throttle {
            t.charge(&self.policy.creds, job, now);
        }
        self.fairshare.job_started(now, job);
        if job.breaks_queue_order() {
            self.out_of_queue_order -= 1;
        }
    }

    /// Starts an admitted job at `now` by no decision of the policy (it was running when
    /// the simulation began); it must not join the queue. False, and nothing changes, if
    /// its processors are not free now.
    pub fn start_outside_policy(&mut self, now: Time, job: &QueuedJob) -> bool {
        self.advance_to(now);
        if !self.machine.fits(now, job) {
            return false;
        }
        self.take(now, job);
        true
    }

    /// Like [`Scheduler::start_outside_policy`], on the given nodes (per-node machines).
    pub fn start_outside_policy_on(&mut self, now: Time, job: &QueuedJob, nodes: &[u32]) -> bool {
        self.advance_to(now);
        if !self.machine.start_on(now, job, nodes) {
            return false;
        }
        self.charge(now, job);
        true
    }

    /// Brings the last iteration's keys up to date with a queue of `len` jobs, assuming the
    /// caller removed exactly the jobs started then and appended new ones (the evaluation in
    /// [`Self::prioritize`] checks that every key still names its job). False when even the
    /// lengths disagree.
    fn carry_keys_over(&mut self, queue: &[QueuedJob]) -> bool {
        let kept = self.last_len - self.last_started.len().min(self.last_len);
        if self.keys.len() != self.last_len || queue.len() < kept {
            return false;
        }
        if !self.last_started.is_empty() {
            // New position of every old one; `usize::MAX` for the started.
            self.new_pos.clear();
            let mut removed = 0;
            let mut next = self.last_started.iter().peekable();
            for p in 0..self.last_len {
                if next.peek() == Some(&&p) {
                    next.next();
                    removed += 1;
                    self.new_pos.push(usize::MAX);
                } else {
                    self.new_pos.push(p - removed);
                }
            }
            let new_pos = &self.new_pos;
            self.keys.retain_mut(|key| {
                key.pos = new_pos[key.pos];
                key.pos != usize::MAX
            });
            self.ranked.retain_mut(|pos| {
                *pos = new_pos[*pos];
                *pos != usize::MAX
            });
        }
        self.keys.extend(
            queue[kept..]
                .iter()
                .enumerate()
                .map(|(i, j)| Key::fresh(kept + i, j)),
        );
        self.last_len = queue.len();
        self.last_started.clear();
        true
    }

    /// Computes every key's priority at `now`; false if a key no longer names its job.
    fn evaluate_keys(&mut self, now: Time, queue: &mut [QueuedJob]) -> bool {
        let priority = &self.policy.priority;
        let per_bypass = priority.gain_per_bypass();
        let fs = self.fairshare.at(now);
        let fs = self.fairshare.enabled().then_some(&fs);
        for key in &mut self.keys {
            let j = &mut queue[key.pos];
            if j.idx != key.job {
                return false;
            }
            evaluate_exactly(key, j, priority, now, fs, per_bypass);
        }
        true
    }

    /// Fills `self.order` for an iteration without evaluating every priority, when
    /// [`Self::may_bound_priorities`]: what the iteration does depends on the exact order
    /// of the jobs that fit the free processors (they may start) and of the highest
    /// max(RESERVATIONDEPTH, 1) of the others (the priority pass ends by the last of
    /// them), and, for BYPASS, on which jobs are ahead of a backfilled one.
    ///
    /// A job's priority never falls while its state (effective queue start, bypass,
    /// SPVIOLATION, system priority) stays the same, so its last exact value is a lower
    /// bound and its value [`BOUND_HORIZON`] ahead an upper bound until then. The jobs
    /// that fit are evaluated; of the others, only those whose upper bound reaches the
    /// D-th highest lower bound. The order is those, sorted; the rest cannot start and
    /// are left out of it (their BYPASS: [`Self::count_bypasses_beyond_exact`]). False,
    /// with nothing changed that [`Self::prioritize`] relies on, when the full evaluation
    /// must decide.
    fn order_by_bounds(&mut self, now: Time, queue: &mut [QueuedJob]) -> bool {
        if !self.bounded || self.exhaustive || (self.queue_order && self.out_of_queue_order == 0) {
            return false;
        }
        if !self.carry_keys_over(queue) {
            return false;
        }
        // Here the keys stay in queue order, so that positions index them (appends and
        // removals keep that order), and `ranked` carries the last exact order.
        if !self.keys.iter().enumerate().all(|(i, k)| k.pos == i) {
            self.keys.sort_unstable_by_key(|k| k.pos);
        }
        let depth = match self.policy.reservation_policy {
            ReservationPolicy::Never => 0,
            _ => self.policy.reservation_groups[0].depth as usize,
        };
        let free = self.machine.free_now(now);
        let priority = &self.policy.priority;
        let fs = self.fairshare.at(now);
        let fs = self.fairshare.enabled().then_some(&fs);
        let ahead = now.saturating_add(BOUND_HORIZON);
        let per_bypass = priority.gain_per_bypass();
        // The D-th highest lower bound so far only rises: a job whose upper bound stays
        // below it cannot be among the D highest.
        let need = depth.max(1);
        let mut top_lows = std::mem::take(&mut self.top_lows);
        top_lows.clear();
        let threshold = |top: &BinaryHeap<Reverse<i64>>| match top.peek() {
            Some(&Reverse(low)) if top.len() == need => low,
            _ => i64::MIN,
        };
        self.newcomers.clear();
        for (pos, (key, j)) in self.keys.iter_mut().zip(queue.iter_mut()).enumerate() {
            if j.idx != key.job {
                // Not the queue the keys follow: the full evaluation starts them over.
                self.keys.clear();
                self.ranked.clear();
                self.last_len = 0;
                self.top_lows = top_lows;
                return false;
            }
            key.ordered = false;
            let fits = j.procs as i64 <= free;
            if fits || !key.bounds_hold(now, j, per_bypass) {
                let terms = evaluate_exactly(key, j, priority, now, fs, per_bypass);
                if !fits {
                    key.upper = if terms.grows_with_time() {
                        priority.priority_from_terms(j, &terms, ahead, fs)
                    } else {
                        i64::MAX
                    };
                    key.until = ahead;
                }
            }
            if fits {
                self.newcomers.push(pos);
                continue;
            }
            if key.upper < threshold(&top_lows) {
                continue;
            }
            self.newcomers.push(pos);
            top_lows.push(Reverse(-key.neg_priority));
            if top_lows.len() > need {
                top_lows.pop();
            }
        }
        let threshold = threshold(&top_lows);
        self.top_lows = top_lows;
        let keys = &mut self.keys;
        self.newcomers.retain(|&pos| {
            let (key, j) = (&mut keys[pos], &mut queue[pos]);
            if j.procs as i64 > free && key.upper < threshold {
                return false;
            }
            if key.exact_at != now {
                evaluate_exactly(key, j, priority, now, fs, per_bypass);
            }
            key.contends = true;
            true
        });
        self.rank_contenders();
        self.bounded_iterations += 1;
        true
    }

    /// Fills `self.order` with the contending jobs (`newcomers`, keys marked `contends`)
    /// in exact priority order, and sets `ranked` to it: those still ranked from the last
    /// iteration come nearly sorted, the others are sorted apart and merged in.
    fn rank_contenders(&mut self) {
        let keys = &mut self.keys;
        self.order.clear();
        for &pos in &self.ranked {
            if keys[pos].contends {
                keys[pos].contends = false;
                self.order.push(pos);
            }
        }
        self.newcomers
            .retain(|&pos| std::mem::take(&mut keys[pos].contends));
        let keys = &self.keys;
        sort_nearly_sorted_by(&mut self.order, |&a, &b| keys[a] < keys[b]);
        self.newcomers
            .sort_unstable_by(|&a, &b| keys[a].cmp(&keys[b]));
        self.ranked.clear();
        let (mut a, mut b) = (
            self.order.iter().peekable(),
            self.newcomers.iter().peekable(),
        );
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(&&x), Some(&&y)) if keys[y] < keys[x] => b.next(),
                (Some(_), _) => a.next(),
                (None, Some(_)) => b.next(),
                (None, None) => break,
            };
            self.ranked.extend(next);
        }
        self.order.clear();
        self.order.extend_from_slice(&self.ranked);
        for &pos in &self.order {
            self.keys[pos].ordered = true;
        }
    }

    /// BYPASS for the jobs a bounded order ([`Self::order_by_bounds`]) left out: each is
    /// ahead of the backfilled jobs of lower priority. Its bounds settle most
    /// comparisons; the rest take its exact priority.
    fn count_bypasses_beyond_exact(&mut self, now: Time, order: &[usize], queue: &mut [QueuedJob]) {
        let mut backfilled = std::mem::take(&mut self.backfilled_keys);
        backfilled.clear();
        backfilled.extend(
            order
                .iter()
                .zip(&self.fate)
                .filter(|(_, &f)| f == Fate::Backfilled)
                .map(|(&pos, _)| self.keys[pos]),
        );
        let (Some(&highest), Some(&lowest)) = (backfilled.first(), backfilled.last()) else {
            self.backfilled_keys = backfilled;
            return;
        };
        let priority = &self.policy.priority;
        let fs = self.fairshare.at(now);
        let fs = self.fairshare.enabled().then_some(&fs);
        let per_bypass = priority.gain_per_bypass();
        for (key, j) in self.keys.iter_mut().zip(queue.iter_mut()) {
            if key.ordered {
                continue;
            }
            let (low, high) = (-key.neg_priority, key.upper);
            let ahead_of = if low > -highest.neg_priority {
                backfilled.len()
            } else if high < -lowest.neg_priority {
                0
            } else {
                let below = backfilled.iter().filter(|b| -b.neg_priority < low);
                let above = backfilled.iter().filter(|b| -b.neg_priority > high);
                let below = below.count();
                if below + above.count() == backfilled.len() {
                    below
                } else {
                    if key.exact_at != now {
                        evaluate_exactly(key, j, priority, now, fs, per_bypass);
                    }
                    backfilled.iter().filter(|b| *b > key).count()
                }
            };
            j.bypass += ahead_of as u32;
        }
        self.backfilled_keys = backfilled;
    }

    /// Fills `self.order` with queue positions, highest priority first.
    fn prioritize(&mut self, now: Time, queue: &mut [QueuedJob]) {
        self.order.clear();
        if self.queue_order && self.out_of_queue_order == 0 {
            debug_assert!(
                !queue.iter().any(QueuedJob::breaks_queue_order),
                "a job breaking the queue order was not admitted"
            );
            self.order.extend(0..queue.len());
            self.keys.clear();
            self.ranked.clear();
            self.last_len = 0;
            self.last_started.clear();
            return;
        }
        if !(self.carry_keys_over(queue) && self.evaluate_keys(now, queue)) {
            self.keys.clear();
            self.ranked.clear();
            self.keys
                .extend(queue.iter().enumerate().map(|(pos, j)| Key::fresh(pos, j)));
            self.evaluate_keys(now, queue);
        }
        sort_nearly_sorted(&mut self.keys);
        self.order.extend(self.keys.iter().map(|k| k.pos));
        self.last_len = queue.len();
        self.last_started.clear();
    }
}

/// Sorts `v`, which is usually in nearly the right order already (the last iteration's
/// priority order, with a few jobs moved by the time elapsed): an insertion sort costs one
/// pass plus the inversions and needs no scratch buffer. Once the inversions pass a
/// budget of a few per element it hands over to the general sort. The keys are unique,
/// so stability does not matter.
fn sort_nearly_sorted<T: Ord + Copy>(v: &mut [T]) {
    sort_nearly_sorted_by(v, |a, b| a < b);
}

/// [`sort_nearly_sorted`] by `less`, a strict total order.
fn sort_nearly_sorted_by<T: Copy>(v: &mut [T], less: impl Fn(&T, &T) -> bool) {
    let mut budget = 4 * v.len() + 64;
    for i in 1..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && less(&x, &v[j - 1]) {
            if budget == 0 {
                v[j] = x;
                v.sort_unstable_by(|a, b| {
                    if less(a, b) {
                        std::cmp::Ordering::Less
                    } else if less(b, a) {
                        std::cmp::Ordering::Greater
                    } else {
                        std::cmp::Ordering::Equal
                    }
                });
                return;
            }
            budget -= 1;
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}

/// Evaluates `job`'s priority exactly at `now` into `key`; returns its terms.
#[inline]
fn evaluate_exactly(
    key: &mut Key,
    job: &mut QueuedJob,
    priority: &PriorityConfig,
    now: Time,
    fs: Option<&FsAt>,
    per_bypass: Option<f64>,
) -> JobTerms {
    let terms = cached_terms(priority, job);
    let p = priority.priority_from_terms(job, &terms, now, fs);
    key.evaluated(p, now, job, per_bypass);
    terms
}

/// The job's [`JobTerms`], worked out on first use.
#[inline]
fn cached_terms(priority: &PriorityConfig, job: &mut QueuedJob) -> JobTerms {
    match job.priority_terms {
        Some(terms) => terms,
        None => *job.priority_terms.insert(priority.job_terms(job)),
    }
}

/// How far ahead an upper bound of a job's priority is evaluated: a longer horizon
/// spares evaluations but loosens the bound.
const BOUND_HORIZON: Time = 900;

/// What a job's priority depends on besides the time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct WaitState {
    eff_queue_start: Time,
    bypass: u32,
    soft_violation: bool,
    system_priority: u32,
}

impl WaitState {
    fn of(job: &QueuedJob) -> Self {
        WaitState {
            eff_queue_start: job.eff_queue_start,
            bypass: job.bypass,
            soft_violation: job.soft_violation,
            system_priority: job.system_priority,
        }
    }
}

/// A job's place in the priority order, ordered by `(−priority, submit, id, queue
/// position)`, with what is known of its priority between exact evaluations.
#[derive(Debug, Clone, Copy)]
struct Key {
    /// −priority, evaluated exactly at `exact_at` with the job in `state`.
    neg_priority: i64,
    submit: Time,
    id: u64,
    pos: usize,
    job: JobIdx,
    exact_at: Time,
    state: WaitState,
    /// An upper bound of the priority while the job stays in `state`, up to `until`.
    upper: i64,
    until: Time,
    /// Scratch of a bounded iteration: the job is among the jobs to order exactly; it is
    /// in the order.
    contends: bool,
    ordered: bool,
}

impl Key {
    /// The key of the job at `pos`, its priority still to be computed.
    fn fresh(pos: usize, job: &QueuedJob) -> Self {
        Key {
            neg_priority: 0,
            submit: job.submit,
            id: job.id,
            pos,
            job: job.idx,
            exact_at: Time::MIN,
            state: WaitState::of(job),
            upper: i64::MAX,
            until: Time::MIN,
            contends: false,
            ordered: false,
        }
    }

    /// Records the priority evaluated at `now`.
    #[inline]
    fn evaluated(&mut self, priority: i64, now: Time, job: &QueuedJob, per_bypass: Option<f64>) {
        self.neg_priority = -priority;
        self.exact_at = now;
        self.follow(WaitState::of(job), per_bypass);
    }

    /// Takes the job's state on, keeping the upper bound where it can: a job bypassed
    /// `n` more times gains at most `per_bypass · n` (SERV weight times BYPASSWEIGHT,
    /// caps only lower it), plus one for truncation. Any other change voids it.
    fn follow(&mut self, state: WaitState, per_bypass: Option<f64>) {
        if state == self.state {
            return;
        }
        let only_bypassed = WaitState {
            bypass: self.state.bypass,
            ..state
        } == self.state
            && state.bypass > self.state.bypass;
        match per_bypass {
            Some(per) if only_bypassed => {
                let gain = (per * f64::from(state.bypass - self.state.bypass)).ceil();
                self.upper = self.upper.saturating_add(gain as i64).saturating_add(1);
            }
            _ => self.until = Time::MIN,
        }
        self.state = state;
    }

    /// Whether the last exact priority (a lower bound, as priority only grows) and
    /// `upper` bound the priority at `now`, the job's state taken on.
    fn bounds_hold(&mut self, now: Time, job: &QueuedJob, per_bypass: Option<f64>) -> bool {
        self.follow(WaitState::of(job), per_bypass);
        now <= self.until && self.exact_at <= now
    }

    fn rank(&self) -> (i64, Time, u64, usize) {
        (self.neg_priority, self.submit, self.id, self.pos)
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.rank() == other.rank()
    }
}

impl Eq for Key {}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.rank().cmp(&other.rank())
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

/// BYPASS (MAUI-SEMANTICS §1): each job started by backfill adds one to every job still
/// waiting ahead of it in the priority order. One backward sweep counts them all.
fn count_bypasses(order: &[usize], fate: &[Fate], queue: &mut [QueuedJob]) {
    let mut backfilled_behind = 0;
    for (rank, &pos) in order.iter().enumerate().rev() {
        match fate[rank] {
            Fate::Backfilled => backfilled_behind += 1,
            Fate::Waits | Fate::Reserved | Fate::SoftOnly => queue[pos].bypass += backfilled_behind,
            Fate::StartedInPriorityPass | Fate::Ineligible => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Priority order by definition: every job's full breakdown, then submit, id, position.
    fn reference_order(s: &Scheduler, now: Time, queue: &[QueuedJob]) -> Vec<usize> {
        let mut keys: Vec<_> = queue
            .iter()
            .enumerate()
            .map(|(pos, j)| (-s.breakdown(j, now).priority, j.submit, j.id, pos))
            .collect();
        keys.sort();
        keys.into_iter().map(|k| k.3).collect()
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

    proptest::proptest! {
        /// Nearly sorted input (sorted, then a few elements moved) and any input (over the
        /// inversion budget) come out as the general sort leaves them.
        #[test]
        fn sort_nearly_sorted_sorts(
            mut v in proptest::collection::vec(0..50u32, 0..300),
            moves in proptest::collection::vec((0..300usize, 0..300usize), 0..6),
            presorted: bool,
        ) {
            if presorted {
                v.sort_unstable();
                for (from, to) in moves {
                    if from < v.len() && to < v.len() {
                        let x = v.remove(from);
                        v.insert(to, x);
                    }
                }
            }
            let mut expected = v.clone();
            expected.sort();
            sort_nearly_sorted(&mut v);
            proptest::prop_assert_eq!(v, expected);
        }
    }

    #[test]
    fn the_carried_order_follows_removals_appends_and_foreign_edits() {
        let mut s = xfactor_scheduler(4);
        let mut queue: Vec<QueuedJob> = (0..12)
            .map(|i| {
                job(
                    i,
                    i64::from(i) * 60,
                    1 + u64::from(i % 3),
                    600 * (1 + i64::from(i % 5)),
                )
            })
            .collect();
        for j in &mut queue {
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
                s.job_ended(now, now, j.idx);
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

    /// The carry-over bookkeeping holds one iteration's starts, never a history (on the
    /// FCFS fast path it once grew by every start of the run).
    #[test]
    fn carry_over_state_stays_one_iteration_long() {
        for mut s in [
            Scheduler::new(2, 0, PolicyConfig::default()),
            xfactor_scheduler(2),
        ] {
            let mut queue = Vec::new();
            let mut out = Decisions::default();
            for i in 0..50u32 {
                let now = i64::from(i) * 100;
                let mut j = job(i, now, 1, 50);
                s.admit(&mut j).unwrap();
                queue.push(j);
                s.schedule(now, &mut queue, &mut out);
                assert_eq!(s.last_started.len(), out.starts.len());
                for st in out.starts.iter().rev() {
                    let j = queue.remove(st.queue_pos);
                    s.job_ended(now + 50, now + 50, j.idx);
                }
            }
        }
    }
}
