//! The discrete-event loop: submissions and completions drive scheduling iterations.
//!
//! Three trigger modes (DECISIONS.md "Clock"):
//! - `PerInstant` (Maui): apply every completion and submission of an instant, then run
//!   one iteration.
//! - `PerEvent` (pyss, Alea): one pass after each event; submissions before completions
//!   at equal times; a submission triggers a pass only if its job fits now.
//! - polled (`RMPOLLINTERVAL` > 0): iterations at fixed steps from the first submission;
//!   a completion or submission is seen at the first iteration at or after it.

use crate::error::CheckFailure;
use crate::error::{Result, SimError};
use crate::job_nodes::JobNodes;
use crate::params::Submission;
use crate::trace::workload::Job;
use mauisim_core::{
    Blocked, Decisions, FsWindow, JobIdx, Level, LimitKind, MachineSpec, Metric, PolicyConfig,
    Preemption, Queue, QueuedJob, ReservationPolicy, Resources, Rule, Scheduler, Scope, Shortfall,
    Source, Time, Verdict, Violation, FOREVER,
};
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventOrder {
    PerInstant,
    PerEvent,
}

impl EventOrder {
    /// As `--event-order` and summary.json write it.
    pub fn name(self) -> &'static str {
        match self {
            EventOrder::PerInstant => "per-instant",
            EventOrder::PerEvent => "per-event",
        }
    }
}

/// The instant the latest iteration of any run in this process was at: what a progress
/// indicator reads. No run reads it.
pub static CLOCK: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(Time::MIN);

/// Trace records read and synthetic jobs written by this process so far: what a progress
/// indicator reads while a trace is read or generated. Nothing else reads it.
pub static COUNTED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineOptions {
    pub order: EventOrder,
    /// RMPOLLINTERVAL: 0 for event-driven iterations.
    pub poll_interval: Time,
    /// JOBMAXOVERRUN: how long a job may run past its limit; `None` = without bound.
    pub max_overrun: Option<Time>,
    /// Keep every fairshare window, for FS files ([`RunStats::fs_windows`]).
    pub record_fairshare: bool,
    /// Keep every iteration's instant and reservations ([`RunStats::iteration_times`],
    /// [`RunStats::reservations`]): scenarios, charts.
    pub record_reservations: bool,
    /// Keep every iteration's instant, idle queue length and reservation count
    /// ([`RunStats::timeline`]): charts.
    pub record_timeline: bool,
    /// Processors are pooled ([`MachineSpec::pools_processors`] over the jobs).
    pub pooled: bool,
    /// A job runs `runtime / speed` on nodes of relative SPEED `speed` (its slowest).
    pub scale_by_speed: bool,
    /// Verify the machine's books after every iteration (slow; tests).
    pub check: bool,
    /// What the scheduler plans a job's length with (jobs are still stopped at their
    /// wallclock limit).
    pub predictor: Predictor,
    /// When trace jobs enter the queue (SIMJOBSUBMISSIONPOLICY).
    pub submission: Submission,
    /// Evaluate every idle job's priority in every iteration, never ordering from bounds
    /// (the same schedule, slower: the reference the bounded path is tested against).
    pub exhaustive_priority: bool,
    /// Answer every node question by visiting every node, never from the free-node index
    /// and the running jobs' ends, and ask the profile about every backfill candidate,
    /// even one dominated by a candidate that found no room (the same schedule, slower:
    /// the reference the shortcuts are tested against).
    pub exhaustive_nodes: bool,
    /// Judge every idle job against the limits in every iteration, never setting aside the
    /// jobs a hard active limit blocks until their credentials' usage moves (the same
    /// schedule, slower: the reference parking is tested against).
    pub exhaustive_limits: bool,
}

/// Runtime predictions for planning (issue 8, item 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Predictor {
    /// The wallclock limit itself (Maui).
    #[default]
    Limit,
    /// Tsafrir, Etsion and Feitelson (2007): the mean runtime of the user's last two
    /// finished jobs, at most the limit (the limit with no history). A job still running
    /// at its prediction is predicted again to the next of 1, 5, 15, 30 min, 1, 2, 5, 10,
    /// 20, 50, 100 h above its elapsed time, at most its limit.
    Tsafrir,
}

impl std::str::FromStr for Predictor {
    type Err = String;

    /// `limit` or `tsafrir`, as the command line, sweep axes and scenario files write them.
    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "limit" => Ok(Predictor::Limit),
            "tsafrir" => Ok(Predictor::Tsafrir),
            other => Err(format!("expected limit or tsafrir, found `{other}`")),
        }
    }
}

/// The correction steps of [`Predictor::Tsafrir`], seconds.
const CORRECTIONS: [Time; 11] = [
    60, 300, 900, 1800, 3600, 7200, 18000, 36000, 72000, 180000, 360000,
];

impl Default for EngineOptions {
    /// Maui's semantics: per-instant iterations, no polling, jobs stopped at their limit.
    fn default() -> Self {
        EngineOptions {
            order: EventOrder::PerInstant,
            poll_interval: 0,
            max_overrun: Some(0),
            record_fairshare: false,
            record_reservations: false,
            record_timeline: false,
            pooled: true,
            scale_by_speed: false,
            check: false,
            predictor: Predictor::Limit,
            submission: Submission::Replay,
            exhaustive_priority: false,
            exhaustive_nodes: false,
            exhaustive_limits: false,
        }
    }
}

/// What happened to one job. 48 bytes: a run holds one for every job of its trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    pub start: Time,
    pub end: Time,
    pub backfilled: bool,
    /// Stopped at its wallclock limit (+ overrun).
    pub cancelled: bool,
    /// The first start a reservation promised the job, [`NO_RESERVATION`] if it never had
    /// one: [`Self::first_reservation`].
    first_reservation: Time,
    /// Times a lower-priority job was backfilled ahead of it (BYPASS).
    pub bypass: u32,
    /// Times it was preempted (requeued, or suspended) before it finished.
    pub preemptions: u32,
    /// Seconds its preempted runs had run, and seconds it was suspended (PREEMPTPOLICY
    /// SUSPEND) between its start and its end, each within 32 bits (136 years):
    /// [`Self::preempted_run`], [`Self::suspended`].
    preempted_run: u32,
    suspended: u32,
}

/// [`Outcome::first_reservation`] of a job never promised a start.
const NO_RESERVATION: Time = Time::MIN;

impl Default for Outcome {
    fn default() -> Self {
        Outcome {
            start: 0,
            end: 0,
            backfilled: false,
            cancelled: false,
            first_reservation: NO_RESERVATION,
            bypass: 0,
            preemptions: 0,
            preempted_run: 0,
            suspended: 0,
        }
    }
}

/// `seconds` in 32 bits, at most 136 years.
fn seconds_u32(seconds: Time) -> u32 {
    u32::try_from(seconds.max(0)).unwrap_or(u32::MAX)
}

impl Outcome {
    pub fn wait(&self, job: &Job) -> Time {
        self.start - job.submit
    }
    /// From its start to its end.
    pub(crate) fn run(&self) -> Time {
        self.end - self.start
    }
    /// The seconds it held its processors: [`Self::run`] without its suspensions.
    pub(crate) fn processing(&self) -> Time {
        self.run() - self.suspended()
    }
    /// The first start a reservation promised the job, if it ever had one.
    pub fn first_reservation(&self) -> Option<Time> {
        (self.first_reservation != NO_RESERVATION).then_some(self.first_reservation)
    }
    pub(crate) fn set_first_reservation(&mut self, at: Option<Time>) {
        self.first_reservation = at.unwrap_or(NO_RESERVATION);
    }
    /// Seconds its preempted runs had run.
    pub fn preempted_run(&self) -> Time {
        Time::from(self.preempted_run)
    }
    pub(crate) fn add_preempted_run(&mut self, seconds: Time) {
        self.preempted_run = seconds_u32(self.preempted_run() + seconds);
    }
    /// Seconds it was suspended (PREEMPTPOLICY SUSPEND) between its start and its end.
    pub fn suspended(&self) -> Time {
        Time::from(self.suspended)
    }
    pub(crate) fn add_suspended(&mut self, seconds: Time) {
        self.suspended = seconds_u32(self.suspended() + seconds);
    }
}

#[derive(Debug, Clone)]
pub struct RunStats {
    pub iterations: u64,
    /// Iterations that ordered the jobs from priority bounds.
    pub bounded_iterations: u64,
    /// Times a job blocked by a hard active limit was set aside until its credentials'
    /// usage moved.
    pub parkings: u64,
    /// Timed events created (completions and limit passes).
    pub events: u64,
    pub max_queue: usize,
    /// The most jobs the run held at once: from the oldest unfinished one to the newest
    /// taken from the feed.
    pub max_window: usize,
    /// Jobs that can never run (a per-job limit, or larger than the machine), by index,
    /// with the limit: held, never started.
    pub held: Vec<(usize, Blocked)>,
    /// Job-iterations blocked by each kind of limit.
    pub limit_blocks: Vec<(LimitKind, u64)>,
    /// Every fairshare window of the run, the last one up to the end (when recorded).
    pub fs_windows: Vec<FsWindow>,
    /// Every iteration's reservations as `(iteration time, job index, promised start)`,
    /// in iteration order (when recorded).
    pub reservations: Vec<(Time, usize, Time)>,
    /// The instant of every iteration, in order (when reservations are recorded).
    pub iteration_times: Vec<Time>,
    /// Every iteration as `(instant, idle jobs left, reservations made)`, in order (when
    /// recorded).
    pub timeline: Vec<TimelinePoint>,
    /// Each started job's nodes, as inclusive node-index ranges, by job index.
    pub job_nodes: crate::job_nodes::JobNodes,
    /// Processor-seconds each node ran jobs for.
    pub node_busy: Vec<u64>,
    /// When each job entered the queue, by job index, where a submission policy moved it
    /// from its trace submit time (empty under [`Submission::Replay`]).
    pub submitted: Vec<Time>,
}

/// One iteration, as the charts see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimelinePoint {
    pub time: Time,
    /// Idle jobs still queued after the iteration.
    pub idle: u32,
    /// Jobs the iteration reserved.
    pub reserved: u32,
}

/// A pending timed event. Ordered by time, then kind (limit before end), then creation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Event {
    time: Time,
    kind: EventKind,
    /// Creation order: simultaneous events are handled in the order they were created.
    seq: u64,
    job: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum EventKind {
    /// The job reached its predicted end and is predicted again.
    Predict,
    /// The job reached its planned end and keeps running on its overrun allowance.
    Limit,
    End,
}

/// Where a run takes its jobs from, sorted by `(submit, id)`.
pub enum Feed<'a> {
    /// A workload in memory.
    Slice(&'a [Job]),
    /// Jobs made one at a time (a trace read record by record): the run holds only the
    /// jobs from the oldest unfinished one on.
    Stream(Box<dyn Iterator<Item = Result<Job>> + 'a>),
}

impl<'a> Feed<'a> {
    /// Takes job `index` from the feed (a streamed one onto the back of `streamed`);
    /// `None` past the last.
    fn take(&mut self, index: usize, streamed: &mut VecDeque<Job>) -> Option<Result<()>> {
        match self {
            Feed::Slice(jobs) => (index < jobs.len()).then_some(Ok(())),
            Feed::Stream(jobs) => jobs.next().map(|j| j.map(|j| streamed.push_back(j))),
        }
    }

    /// Job `i` of the window whose first job is `base`.
    fn job<'s>(&'s self, streamed: &'s VecDeque<Job>, base: usize, i: usize) -> &'s Job {
        match self {
            Feed::Slice(jobs) => &jobs[i],
            Feed::Stream(_) => &streamed[i - base],
        }
    }
}

/// A job the run has taken from its feed and not yet handed on (the job itself is the
/// feed's, or in [`Sim::streamed`]: this record stays small, the window holding thousands).
struct Live {
    outcome: Outcome,
    started: bool,
    /// Ended, or held: nothing more will happen to it.
    finished: bool,
    /// Its nodes, as inclusive node-index ranges, once started.
    nodes: Vec<(u32, u32)>,
    /// When it entered the queue (a submission policy may move it from its submit time).
    submitted: Time,
    /// With `check`, where reservations are promises: its latest reservation.
    promised: Option<Time>,
    /// The effective queue time it had when it last started (its priority as a victim).
    frozen_queued: Time,
}

/// A job suspended by preemption (PREEMPTPOLICY SUSPEND), waiting for its nodes.
struct Suspended {
    i: usize,
    since: Time,
    /// Seconds of its runtime left.
    left: Time,
    /// Seconds of its wallclock limit left.
    limit_left: Time,
    /// Its nodes and tasks on each, where it resumes.
    placement: Vec<(u32, u64)>,
}

/// 3.3.1's MDEF_MINSUSPENDTIME: a suspended job stays so at least this long.
const MIN_SUSPEND: Time = 10;

/// A job the run is done with, handed to the [`Sink`] in feed order.
pub struct Finished<'j> {
    pub index: usize,
    pub job: &'j Job,
    /// Default (all zero) for a job that never started (held).
    pub outcome: Outcome,
    pub started: bool,
    pub nodes: Vec<(u32, u32)>,
    pub submitted: Time,
}

/// Takes each job the run is done with, in feed order: collects them, or writes them out
/// as the run goes (streamed runs).
pub trait Sink {
    fn finished(&mut self, done: Finished<'_>) -> Result<()>;
}

impl<S: Sink + ?Sized> Sink for &mut S {
    fn finished(&mut self, done: Finished<'_>) -> Result<()> {
        (**self).finished(done)
    }
}

/// Keeps every finished job's outcome, nodes and queue entry time, by index.
#[derive(Default)]
struct Collect {
    outcomes: Vec<Outcome>,
    nodes: JobNodes,
    /// Kept only where a submission policy moves jobs ([`RunStats::submitted`]).
    submitted: Option<Vec<Time>>,
}

impl Sink for Collect {
    fn finished(&mut self, done: Finished<'_>) -> Result<()> {
        debug_assert_eq!(done.index, self.outcomes.len(), "finished out of order");
        self.outcomes.push(done.outcome);
        self.nodes.push(&done.nodes);
        if let Some(submitted) = &mut self.submitted {
            submitted.push(done.submitted);
        }
        Ok(())
    }
}

struct Sim<'a, S: Sink> {
    feed: Feed<'a>,
    /// Jobs taken from the feed and not yet handed to `sink`: indexes `base..`.
    live: VecDeque<Live>,
    /// A streamed feed's jobs of the window, as `live`'s (a workload's stay in its slice).
    streamed: VecDeque<Job>,
    base: usize,
    sink: S,
    /// The first error of the feed or the sink: the run stops there.
    failure: Option<SimError>,
    /// The latest end of a started job (the origin before any).
    max_end: Time,
    options: EngineOptions,
    origin: Time,
    /// JOBNODEMATCHPOLICY EXACTNODE: a job asks for as many nodes as it has tasks.
    nodes_are_tasks: bool,
    scheduler: Scheduler,
    queue: Queue,
    events: BinaryHeap<Reverse<Event>>,
    decisions: Decisions,
    started_pos: Vec<usize>,
    next_submit: usize,
    /// No instant after this one is simulated ([`simulate_until`]).
    stop: Time,
    /// The instant of the last iteration.
    clock: Time,
    /// The latest instant simulated so far (submissions, events, iterations): no
    /// iteration may happen before it.
    latest: Time,
    /// When NORMAL submission's first batch enters (the first job's submit time).
    first_batch_entry: Option<Time>,
    /// The first job said to be running at the start that found its processors taken.
    overcommitted: Option<u64>,
    /// The first inconsistency `check` found: the run stops there.
    violation: Option<Violation>,
    /// With `check`, reservations are promises (exact estimates, a stable priority
    /// order): each job's latest one is kept ([`Live::promised`]).
    promises: bool,
    /// Per user id: the runtimes of their last two finished jobs (newest last).
    history: Vec<Vec<Time>>,
    totals: Totals,
    stats: RunStats,
    /// Jobs suspended by preemption, in the order they were suspended.
    suspended: Vec<Suspended>,
}

impl Live {
    fn new(job: &Job) -> Self {
        let submitted = job.submit;
        Live {
            outcome: Outcome::default(),
            started: false,
            finished: false,
            nodes: Vec::new(),
            submitted,
            promised: None,
            frozen_queued: 0,
        }
    }
}

/// The state of a run at one instant, after that instant's iteration.
pub struct Snapshot {
    pub now: Time,
    pub scheduler: Scheduler,
    /// Idle jobs, in queue (submit) order.
    pub queue: Queue,
    /// Indexes of the jobs running at `now`, with their start times.
    pub running: Vec<(usize, Time)>,
}

/// The machine's configured totals, for processor equivalents.
#[derive(Debug, Clone, Copy)]
struct Totals {
    procs: f64,
    mem: f64,
    swap: f64,
    disk: f64,
}

impl Totals {
    fn of(spec: &MachineSpec) -> Self {
        let sum =
            |f: fn(&mauisim_core::NodeSpec) -> u64| spec.nodes.iter().map(|n| f(n) as f64).sum();
        Totals {
            procs: sum(|n| n.procs),
            mem: sum(|n| n.mem),
            swap: sum(|n| n.swap),
            disk: sum(|n| n.disk),
        }
    }

    /// Processor equivalents (guide 5.1.2): the job's largest share of any configured
    /// resource, in processors.
    fn pe(&self, procs: u64, mem: f64, swap: f64, disk: f64) -> f64 {
        let share = |x: f64, total: f64| if total > 0.0 { x / total } else { 0.0 };
        let largest = share(procs as f64, self.procs)
            .max(share(mem, self.mem))
            .max(share(swap, self.swap))
            .max(share(disk, self.disk));
        (largest * self.procs).max(procs as f64)
    }
}

/// `procs` single-processor nodes, nothing else configured (tests, examples).
pub fn machine_of(procs: u64) -> Arc<MachineSpec> {
    Arc::new(MachineSpec::homogeneous(procs, 1))
}

/// Simulates `jobs` (sorted by `(submit, id)`) on the machine of `spec`.
pub fn simulate(
    jobs: &[Job],
    spec: Arc<MachineSpec>,
    policy: PolicyConfig,
    options: EngineOptions,
) -> Result<(Vec<Outcome>, RunStats)> {
    // Every job finishes once: room for all of them at once, not grown by doubling (a
    // fifth of the memory of a run of CEA-Curie's 295,540 jobs went to slack).
    let mut collect = Collect {
        outcomes: Vec::with_capacity(jobs.len()),
        nodes: JobNodes::with_capacity(jobs.len()),
        submitted: (options.submission != Submission::Replay)
            .then(|| Vec::with_capacity(jobs.len())),
    };
    let mut stats = simulate_feed(Feed::Slice(jobs), spec, policy, options, &mut collect)?;
    stats.job_nodes = collect.nodes;
    stats.submitted = collect.submitted.unwrap_or_default();
    Ok((collect.outcomes, stats))
}

/// Simulates the jobs of `feed`, handing each to `sink` once the run is done with it, in
/// feed order. [`RunStats::job_nodes`] and [`RunStats::submitted`] stay empty: the sink
/// has them.
pub(crate) fn simulate_feed(
    feed: Feed<'_>,
    spec: Arc<MachineSpec>,
    policy: PolicyConfig,
    options: EngineOptions,
    sink: impl Sink,
) -> Result<RunStats> {
    let mut sim = Sim::new(feed, spec, policy, options, Time::MAX, sink);
    sim.run();
    if let Some(e) = sim.failure.take() {
        return Err(e);
    }
    if let Some(id) = sim.overcommitted {
        return Err(SimError::Usage(format!(
            "job {id} is running at the start but its nodes cannot host it beside the jobs running before it"
        )));
    }
    if let Some(v) = sim.violation.take() {
        return Err(SimError::Check(Box::new(CheckFailure {
            time: v.time,
            rule: v.rule,
            // A job the sink already has is no longer in the window, nor its id.
            job: v.job.and_then(|j| sim.live_job_id(j.0 as usize)),
            node: v.node.map(|n| format!("#{n}")),
            detail: v.detail,
        })));
    }
    sim.stats.node_busy = sim.scheduler.machine().node_busy();
    sim.stats.limit_blocks = sim.scheduler.limit_blocks();
    sim.stats.bounded_iterations = sim.scheduler.bounded_iterations();
    sim.stats.parkings = sim.scheduler.parkings();
    sim.hold_the_stuck();
    if options.record_fairshare {
        let end = sim.end_time();
        sim.stats.fs_windows = sim.scheduler.fairshare_mut().take_windows(end);
    }
    if !sim.queue.is_empty() {
        return Err(SimError::Usage(format!(
            "{} could never start (first: job {}); this is a bug, please report it",
            crate::units::count(sim.queue.len() as u64, "job"),
            sim.queue[0].id
        )));
    }
    sim.retire();
    if let Some(e) = sim.failure.take() {
        return Err(e);
    }
    debug_assert!(sim.live.is_empty(), "jobs left in the window");
    Ok(sim.stats)
}

/// Simulates up to and including the iteration at `at` (or the last one before it) and
/// returns the state there: what `diagnose` would look at.
pub fn simulate_until(
    jobs: &[Job],
    spec: Arc<MachineSpec>,
    policy: PolicyConfig,
    options: EngineOptions,
    at: Time,
) -> Snapshot {
    let mut sim = Sim::new(
        Feed::Slice(jobs),
        spec,
        policy,
        options,
        at,
        Collect::default(),
    );
    sim.run();
    sim.scheduler.settle(&mut sim.queue);
    let running = (sim.base..sim.next_submit)
        .filter(|&i| {
            let e = sim.entry(i);
            e.started && e.outcome.end > at
        })
        .map(|i| (i, sim.entry(i).outcome.start))
        .collect();
    Snapshot {
        now: at,
        scheduler: sim.scheduler,
        queue: sim.queue,
        running,
    }
}

impl<'a, S: Sink> Sim<'a, S> {
    fn new(
        mut feed: Feed<'a>,
        spec: Arc<MachineSpec>,
        policy: PolicyConfig,
        options: EngineOptions,
        stop: Time,
        sink: S,
    ) -> Self {
        let mut live = VecDeque::new();
        let mut streamed = VecDeque::new();
        let mut failure = None;
        match feed.take(0, &mut streamed) {
            Some(Ok(())) => live.push_back(Live::new(feed.job(&streamed, 0, 0))),
            Some(Err(e)) => failure = Some(e),
            None => {}
        }
        let origin = match live.is_empty() {
            true => 0,
            false => feed.job(&streamed, 0, 0).submit,
        };
        let max_window = live.len();
        let totals = Totals::of(&spec);
        let nodes_are_tasks = spec.one_task_per_node;
        let mut scheduler = Scheduler::with_machine(spec, options.pooled, origin, policy);
        scheduler.set_exhaustive_priority(options.exhaustive_priority);
        scheduler.set_exhaustive_nodes(options.exhaustive_nodes);
        scheduler.set_exhaustive_limits(options.exhaustive_limits);
        if options.record_fairshare {
            scheduler.fairshare_mut().record();
        }
        Sim {
            feed,
            live,
            streamed,
            base: 0,
            sink,
            failure,
            max_end: origin,
            options,
            origin,
            nodes_are_tasks,
            scheduler,
            queue: Queue::new(),
            events: BinaryHeap::new(),
            decisions: Decisions::default(),
            started_pos: Vec::new(),
            next_submit: 0,
            stop,
            clock: origin,
            latest: origin,
            first_batch_entry: None,
            overcommitted: None,
            violation: None,
            promises: false,
            history: Vec::new(),
            suspended: Vec::new(),
            totals,
            stats: RunStats {
                iterations: 0,
                bounded_iterations: 0,
                parkings: 0,
                events: 0,
                max_queue: 0,
                max_window,
                held: Vec::new(),
                limit_blocks: Vec::new(),
                fs_windows: Vec::new(),
                reservations: Vec::new(),
                iteration_times: Vec::new(),
                timeline: Vec::new(),
                job_nodes: JobNodes::default(),
                node_busy: Vec::new(),
                submitted: Vec::new(),
            },
        }
    }

    /// When running job `i` would have started had it never been suspended: its limit and
    /// its predicted lengths count from there.
    fn running_start(&self, i: usize) -> Time {
        let entry = self.entry(i);
        entry.outcome.start + entry.outcome.suspended()
    }

    /// The trace id of job `i` while the run still holds it.
    fn live_job_id(&self, i: usize) -> Option<u64> {
        let held = i >= self.base && i - self.base < self.live.len();
        held.then(|| self.job(i).id)
    }

    fn entry(&self, i: usize) -> &Live {
        &self.live[i - self.base]
    }

    fn entry_mut(&mut self, i: usize) -> &mut Live {
        &mut self.live[i - self.base]
    }

    fn job(&self, i: usize) -> &Job {
        self.feed.job(&self.streamed, self.base, i)
    }

    /// Takes jobs from the feed until job `i` is in the window; false if the feed ends
    /// (or fails) before it.
    fn load(&mut self, i: usize) -> bool {
        while self.base + self.live.len() <= i {
            if self.failure.is_some() {
                return false;
            }
            let i = self.base + self.live.len();
            match self.feed.take(i, &mut self.streamed) {
                Some(Ok(())) => {
                    self.live.push_back(Live::new(self.job(i)));
                    self.stats.max_window = self.stats.max_window.max(self.live.len());
                }
                Some(Err(e)) => {
                    self.failure = Some(e);
                    return false;
                }
                None => return false,
            }
        }
        true
    }

    /// Hands the finished jobs at the front of the window to the sink, in order.
    fn retire(&mut self) {
        while self.failure.is_none()
            && self.base < self.next_submit
            && self.live.front().is_some_and(|l| l.finished)
        {
            let l = self.live.pop_front().expect("a front");
            let done = Finished {
                index: self.base,
                job: self.feed.job(&self.streamed, self.base, self.base),
                outcome: l.outcome,
                started: l.started,
                nodes: l.nodes,
                submitted: l.submitted,
            };
            if let Err(e) = self.sink.finished(done) {
                self.failure = Some(e);
            }
            self.streamed.pop_front();
            self.base += 1;
        }
    }

    /// Marks job `i` finished (ended or held) and hands on what can be handed on.
    fn finish(&mut self, i: usize) {
        self.entry_mut(i).finished = true;
        self.retire();
    }

    fn run(&mut self) {
        if self.options.check {
            self.promises = self.reservations_are_promises();
        }
        if self.options.poll_interval > 0 {
            self.run_polled(self.origin);
        } else {
            match self.options.order {
                EventOrder::PerInstant => self.run_per_instant(),
                EventOrder::PerEvent => self.run_per_event(),
            }
        }
        if self.violation.is_none() && self.failure.is_none() && self.stop == Time::MAX {
            self.end_suspensions();
        }
    }

    /// Jobs left idle when nothing else can happen are held if a limit blocks them (a
    /// user's MAXPROC below the job's size can never be met); what remains is a bug.
    fn hold_the_stuck(&mut self) {
        if self.queue.is_empty() {
            return;
        }
        let now = self.end_time();
        let verdicts = self.scheduler.explain(now, &mut self.queue);
        let mut limits: Vec<Option<Blocked>> = vec![None; self.queue.len()];
        for (pos, verdict) in verdicts {
            if let Verdict::Blocked(limit) = verdict {
                limits[pos] = Some(limit);
            }
        }
        if self.scheduler.machine().has_standing() {
            // Nothing changed for a whole cycle of the windows (or after the last one
            // ended): the jobs left never fit beside the reservations they may not use.
            for (limit, job) in limits.iter_mut().zip(self.queue.iter()) {
                limit.get_or_insert(Blocked {
                    scope: Scope::PerJob,
                    level: Level::Hard,
                    owner: mauisim_core::Owner::System,
                    metric: Metric::Proc,
                    source: Source::Machine(Shortfall::StandingWindows),
                    usage: 0,
                    amount: job.procs,
                    limit: 0,
                });
            }
        }
        for (pos, limit) in limits.iter().enumerate() {
            if let Some(limit) = limit {
                let i = self.queue[pos].idx.0 as usize;
                self.stats.held.push((i, *limit));
                self.entry_mut(i).finished = true;
            }
        }
        let held: Vec<usize> = (0..limits.len()).filter(|&p| limits[p].is_some()).collect();
        self.queue.remove_positions(&held);
        self.stats.held.sort_by_key(|(i, _)| *i);
    }

    /// When the run is over: the last iteration or the last job's end.
    fn end_time(&self) -> Time {
        self.max_end.max(self.clock)
    }

    /// An instant to iterate at although no event happens: while jobs wait, fairshare
    /// windows rolling can change their priorities and caps.
    fn policy_wakeup(&self) -> Option<Time> {
        let resume = self.suspension_wakeup();
        if self.queue.is_empty() && self.suspended.is_empty() {
            return None;
        }
        // A wakeup that came while the queue was empty is due now, not in the past. (A
        // standing reservation's end may let a suspended job resume.)
        let policy = self.scheduler.next_wakeup().map(|t| t.max(self.latest));
        [policy, resume].into_iter().flatten().min()
    }

    /// The jobs still suspended when nothing more can happen (a window they may not use
    /// keeps their nodes): they end as if resumed at once, so that every job is in the
    /// outputs.
    fn end_suspensions(&mut self) {
        let now = self.end_time();
        for s in std::mem::take(&mut self.suspended) {
            self.end_suspension(s.i, s.since, s.left, now);
            self.finish(s.i);
        }
    }

    /// When the next trace job enters the queue under the submission policy.
    fn next_submit_time(&mut self) -> Option<Time> {
        if !self.load(self.next_submit) {
            return None;
        }
        let submit = self.job(self.next_submit).submit;
        match self.options.submission {
            Submission::Replay => Some(submit),
            Submission::Normal { initial } => {
                if self.next_submit < initial as usize {
                    // 3.3.1 submits the first batch at its clock start whatever the jobs'
                    // trace times (MSim.c `MSimJobSubmit` resets their submit time): the
                    // whole batch enters with the first job.
                    Some(*self.first_batch_entry.get_or_insert(submit))
                } else {
                    Some(submit)
                }
            }
            // Topped up now (the instant of the last iteration) while below the depth.
            Submission::ConstantJobs { depth } => {
                (self.queue.len() < depth as usize).then_some(self.clock)
            }
            Submission::ConstantPs { depth } => {
                let queued: u64 = self.queue.iter().map(|q| q.procs * q.wcl as u64).sum();
                (queued < depth).then_some(self.clock)
            }
        }
    }

    fn next_event_time(&self) -> Option<Time> {
        self.events.peek().map(|e| e.0.time)
    }

    /// Queues the next trace job; false if it is held instead.
    fn submit_next(&mut self) -> bool {
        let i = self.next_submit;
        let entered = self.next_submit_time().expect("a job to submit");
        self.latest = self.latest.max(entered);
        // Maui submits NORMAL's first batch at its clock start, one poll before the
        // iteration that first sees it (MSim.c): their queue time counts from there.
        let submit = match self.options.submission {
            Submission::Normal { initial } if i < initial as usize => {
                entered - self.options.poll_interval
            }
            _ => entered,
        };
        self.entry_mut(i).submitted = submit;
        let mut queued = self.queued_job(i, submit);
        let job = self.job(i);
        let (id, already_running) = (job.id, job.already_running());
        let pinned = job
            .node_ask()
            .filter(|ask| !ask.node_ids.is_empty())
            .map(|ask| ask.node_ids.clone());
        self.next_submit += 1;
        match self.scheduler.admit(&mut queued) {
            Ok(()) if already_running => {
                let now = entered;
                let started = match pinned {
                    Some(nodes) => self.scheduler.start_outside_policy_on(now, &queued, &nodes),
                    None => self.scheduler.start_outside_policy(now, &queued),
                };
                if started {
                    self.launch(i, now, false, None, queued.wcl);
                } else {
                    self.overcommitted.get_or_insert(id);
                }
                true
            }
            Ok(()) => {
                self.queue.push(queued);
                self.stats.max_queue = self.stats.max_queue.max(self.queue.len());
                true
            }
            Err(limit) => {
                self.stats.held.push((i, limit));
                self.finish(i);
                false
            }
        }
    }

    /// Job `i`, preempted at `now` under PREEMPTPOLICY SUSPEND: off its nodes, its clock
    /// stopped, until [`Self::resume_suspended`] finds its nodes free.
    fn suspend(&mut self, i: usize, now: Time, placement: Vec<(u32, u64)>) {
        let wcl = self.job(i).wcl;
        let entry = self.entry_mut(i);
        entry.outcome.preemptions += 1;
        let (start, end) = (entry.outcome.start, entry.outcome.end);
        let ran = now - start - entry.outcome.suspended();
        let run = end - start - entry.outcome.suspended();
        self.suspended.push(Suspended {
            i,
            since: now,
            left: (run - ran).max(0),
            limit_left: (wcl - ran).max(1),
            placement,
        });
    }

    /// Resumes, in the order they were suspended, the suspended jobs whose nodes are free
    /// at `now` (3.3.1's `MQueueScheduleSJobs`, first thing in an iteration): each runs
    /// what is left of its runtime from `now` on, its start unchanged.
    fn resume_suspended(&mut self, now: Time) {
        let mut k = 0;
        while k < self.suspended.len() {
            let s = &self.suspended[k];
            let (i, since, left, limit_left) = (s.i, s.since, s.left, s.limit_left);
            if now < since + MIN_SUSPEND {
                k += 1;
                continue;
            }
            let submitted = self.entry(i).submitted;
            let mut queued = self.queued_job(i, submitted);
            queued.wcl = limit_left;
            let frozen = self.entry(i).frozen_queued;
            if !self
                .scheduler
                .resume_suspended(now, &queued, &self.suspended[k].placement, frozen)
            {
                k += 1;
                continue;
            }
            self.suspended.remove(k);
            self.entry_mut(i).nodes = self.scheduler.machine().node_ranges(JobIdx(i as u32));
            self.end_suspension(i, since, left, now);
            self.push_event(now + left, EventKind::End, i);
            // Planned to its limit again (a prediction is not carried across), from the
            // start it would have had without its suspensions.
            let start = self.running_start(i);
            let run = self.entry(i).outcome.end - start;
            let wcl = self.job(i).wcl;
            self.follow_plan(i, start, wcl, run);
        }
    }

    /// Job `i`, suspended since `since`, runs again from `now`: the `left` seconds of its
    /// runtime end it then.
    fn end_suspension(&mut self, i: usize, since: Time, left: Time, now: Time) {
        let outcome = &mut self.entry_mut(i).outcome;
        outcome.add_suspended(now - since);
        outcome.end = now + left;
        self.max_end = self.max_end.max(now + left);
    }

    /// When a suspended job's shortest suspension ends, if one is still that young: the
    /// ends that free its nodes are events of their own.
    fn suspension_wakeup(&self) -> Option<Time> {
        self.suspended
            .iter()
            .map(|s| s.since + MIN_SUSPEND)
            .filter(|&t| t > self.clock)
            .min()
    }

    /// Job `i` as the scheduler queues it, submitted at `submit`.
    fn queued_job(&self, i: usize, submit: Time) -> QueuedJob {
        let plan = self.predict(i);
        let job = self.job(i);
        let mut queued = QueuedJob::new(JobIdx(i as u32), job.id, submit, job.procs, plan);
        let tasks = (job.procs / u64::from(job.request.procs_per_task.max(1))) as f64;
        let (swap_mb, disk_mb) = (
            f64::from(job.request.swap) * tasks,
            f64::from(job.request.disk) * tasks,
        );
        queued.resources = Resources {
            nodes: u64::from(job.nodes),
            mem_mb: job.mem_mb,
            swap_mb,
            disk_mb,
            pe: self.totals.pe(job.procs, job.mem_mb, swap_mb, disk_mb),
        };
        queued.creds = job.creds;
        queued.request = job.request;
        // 3.3.1 reads a trace job's node count as its tasks under EXACTNODE (MTrace.c).
        queued.nodes_asked = if self.nodes_are_tasks {
            u32::try_from(tasks as u64).unwrap_or(u32::MAX)
        } else {
            job.nodes_asked()
        };
        queued.utilized = job.utilized;
        queued.system_priority = job.system_priority();
        queued
    }

    /// Applies a timed event at `now` (which is the event's time, or a later poll tick).
    fn apply_event(&mut self, event: Event, now: Time) {
        self.latest = self.latest.max(now);
        let i = event.job as usize;
        match event.kind {
            EventKind::Limit => {
                // A poll's re-planning of a job that has ended since (and left the window).
                if i < self.base || self.entry(i).finished {
                    return;
                }
                let (job, start) = (self.job(i), self.running_start(i));
                let until = match job.overrun_allowance(self.options.max_overrun) {
                    Some(overrun) if self.options.poll_interval > 0 && self.maui() => {
                        // Maui plans a job past its limit to end at every poll until the
                        // poll after the one that cancels it: its nodes stay taken, but a
                        // reservation may begin on them at once (MJob.c, MRes.c).
                        let stopped = start + self.stopped_after(job.wcl + overrun).1;
                        if now + 1 < stopped {
                            self.push_event(now + 1, EventKind::Limit, i);
                        }
                        (now + 1).min(stopped)
                    }
                    Some(overrun) => start + job.wcl + overrun,
                    None => FOREVER,
                };
                self.scheduler.job_extended(JobIdx(i as u32), now, until);
            }
            EventKind::Predict => {
                let (start, wcl) = (self.running_start(i), self.job(i).wcl);
                let elapsed = now - start;
                let next = CORRECTIONS
                    .iter()
                    .copied()
                    .find(|&c| c > elapsed)
                    .unwrap_or(wcl)
                    .min(wcl);
                self.scheduler
                    .job_replanned(JobIdx(i as u32), now, start + next);
                let run = self.entry(i).outcome.end - start;
                self.follow_plan(i, start, next, run);
            }
            EventKind::End => {
                if self.options.check {
                    self.check_end(i, event.time);
                }
                let charged_until = self.usage_charged_until(i, event.time, now);
                self.scheduler
                    .job_ended(event.time, now, charged_until, JobIdx(i as u32));
                if self.options.predictor == Predictor::Tsafrir {
                    self.remember(i);
                }
                self.finish(i);
            }
        }
    }

    /// Whether the run follows Maui 3.3.1's semantics (either reading).
    fn maui(&self) -> bool {
        self.scheduler.policy().semantics.is_maui()
    }

    /// Until when job `i`, which ended at `ended` and was seen at `now`, counts for
    /// fairshare: `ended`, except that Maui 3.3.1's polling charges a running job once per
    /// iteration (MStats.c `MStatUpdateActiveJobUsage`) and terminates it before charging
    /// the interval it ended in (MSim.c), so its usage stops at the poll before `now`.
    fn usage_charged_until(&self, i: usize, ended: Time, now: Time) -> Time {
        let poll = self.options.poll_interval;
        if poll == 0 || !self.maui() {
            return ended;
        }
        let start = self.entry(i).outcome.start;
        (now - poll).clamp(start, ended)
    }

    /// The length to plan job `i` with when it is submitted.
    fn predict(&self, i: usize) -> Time {
        let job = self.job(i);
        if self.options.predictor == Predictor::Limit {
            return job.wcl;
        }
        let user = job.creds.get(mauisim_core::CredKind::User);
        match user.get().and_then(|u| self.history.get(u)) {
            Some(last) if !last.is_empty() => {
                let mean = last.iter().sum::<Time>() as f64 / last.len() as f64;
                (mean.ceil() as Time).clamp(1, job.wcl)
            }
            _ => job.wcl,
        }
    }

    /// Keeps the runtime of finished job `i` in its user's history of two.
    fn remember(&mut self, i: usize) {
        let user = self.job(i).creds.get(mauisim_core::CredKind::User);
        let Some(u) = user.get() else {
            return;
        };
        let outcome = self.entry(i).outcome;
        if self.history.len() <= u {
            self.history.resize(u + 1, Vec::new());
        }
        let last = &mut self.history[u];
        last.push(outcome.processing());
        if last.len() > 2 {
            last.remove(0);
        }
    }

    fn iterate(&mut self, now: Time) {
        CLOCK.store(now, std::sync::atomic::Ordering::Relaxed);
        self.stats.iterations += 1;
        self.clock = now;
        self.latest = self.latest.max(now);
        if !self.suspended.is_empty() {
            self.resume_suspended(now);
        }
        self.scheduler
            .schedule(now, &mut self.queue, &mut self.decisions);
        if self.options.check && self.violation.is_none() {
            self.check_iteration(now);
        }
        if self.options.record_timeline {
            let idle = self.queue.len() - self.decisions.starts.len();
            self.stats.timeline.push(TimelinePoint {
                time: now,
                idle: idle as u32,
                reserved: self.decisions.reservations.len() as u32,
            });
        }
        if self.options.record_reservations {
            self.stats.iteration_times.push(now);
            let promised = self.decisions.reservations.iter();
            let promised = promised.map(|r| (now, r.job.0 as usize, r.start));
            self.stats.reservations.extend(promised);
        }
        if self.decisions.starts.is_empty() {
            self.requeue_preempted(now);
            return;
        }
        self.started_pos.clear();
        for k in 0..self.decisions.starts.len() {
            let start = self.decisions.starts[k];
            self.started_pos.push(start.queue_pos);
            let queued = &self.queue[start.queue_pos];
            let (first_reservation, bypass) = (queued.first_reservation, queued.bypass);
            let frozen = (now - queued.eff_queue_start).max(0);
            let plan = queued.wcl;
            let i = start.job.0 as usize;
            self.launch(i, now, start.backfilled, first_reservation, plan);
            let entry = self.entry_mut(i);
            entry.outcome.bypass = bypass;
            entry.frozen_queued = frozen;
        }
        self.started_pos.sort_unstable();
        self.queue.remove_positions(&self.started_pos);
        self.requeue_preempted(now);
    }

    /// The jobs this iteration preempted (PREEMPTPOLICY REQUEUE) back in the queue, in
    /// their submit order, for the next iteration: their queue time counts anew from
    /// `now` (3.3.1 sets SystemQueueTime) and they will run their whole runtime again.
    fn requeue_preempted(&mut self, now: Time) {
        if self.decisions.preempted.is_empty() {
            return;
        }
        let mut preempted = std::mem::take(&mut self.decisions.preempted);
        let suspend = self.scheduler.policy().preemption == Preemption::Suspend;
        for p in &mut preempted {
            let (idx, i) = (p.job, p.job.0 as usize);
            self.events.retain(|e| e.0.job != idx.0);
            if suspend {
                self.suspend(i, now, std::mem::take(&mut p.placement));
                continue;
            }
            let entry = self.entry_mut(i);
            entry.started = false;
            entry.outcome.preemptions += 1;
            let ran = now - entry.outcome.start;
            entry.outcome.add_preempted_run(ran);
            let (submitted, first_reservation) =
                (entry.submitted, entry.outcome.first_reservation());
            let frozen = entry.frozen_queued;
            let mut queued = self.queued_job(i, submitted);
            queued.eff_queue_start = now;
            queued.first_reservation = first_reservation;
            if self.maui() {
                // 3.3.1's EffQueueDuration is the one of the selection that started it
                // until a selection sets it again: the priority keeps that queue time for
                // the iteration after the preemption (MPriority.c, MPolicy.c).
                queued.selected_queued = Some(frozen);
            }
            match self.scheduler.admit(&mut queued) {
                Ok(()) => {
                    let at = self
                        .queue
                        .partition_point(|q| (q.submit, q.id) < (queued.submit, queued.id));
                    self.queue.insert(at, queued);
                    self.stats.max_queue = self.stats.max_queue.max(self.queue.len());
                }
                Err(limit) => {
                    self.stats.held.push((i, limit));
                    self.finish(i);
                }
            }
        }
        self.decisions.preempted = preempted;
        self.decisions.preempted.clear();
    }

    /// `--check` after the iteration at `now`: the scheduler's books, and each start and
    /// reservation of the iteration.
    fn check_iteration(&mut self, now: Time) {
        self.violation = self.first_violation(now).err();
    }

    fn first_violation(&mut self, now: Time) -> std::result::Result<(), Violation> {
        for (k, start) in self.decisions.starts.iter().enumerate() {
            let (i, queued) = (start.job.0 as usize, &self.queue[start.queue_pos]);
            let broken = |rule, detail: String| Violation {
                time: now,
                rule,
                job: Some(start.job),
                node: None,
                detail,
            };
            let entry = self.entry(i);
            if entry.started {
                let first = entry.outcome.start;
                let detail = format!("it started at {first} already");
                return Err(broken(Rule::StartedTwice, detail));
            }
            if self.decisions.starts[..k]
                .iter()
                .any(|s| s.job == start.job)
            {
                let detail = "started twice by this iteration".to_string();
                return Err(broken(Rule::StartedTwice, detail));
            }
            if now < queued.submit {
                let detail = format!("submitted at {}", queued.submit);
                return Err(broken(Rule::StartedBeforeSubmit, detail));
            }
            if let Some(promised) = entry.promised.filter(|_| self.promises) {
                if now > promised {
                    let detail = format!("promised a start at {promised}");
                    return Err(broken(Rule::ReservationBroken, detail));
                }
            }
        }
        if self.promises {
            for k in 0..self.decisions.reservations.len() {
                let r = self.decisions.reservations[k];
                let promised = &mut self.live[r.job.0 as usize - self.base].promised;
                if let Some(before) = promised.filter(|&p| r.start > p) {
                    return Err(Violation {
                        time: now,
                        rule: Rule::ReservationBroken,
                        job: Some(r.job),
                        node: None,
                        detail: format!("reserved at {}, promised {before} before", r.start),
                    });
                }
                *promised = Some(r.start);
            }
        }
        let started: Vec<&QueuedJob> = self
            .decisions
            .starts
            .iter()
            .map(|s| &self.queue[s.queue_pos])
            .collect();
        self.scheduler.verify(now, &started)
    }

    /// For a job allowed to run `allowed` (its limit and overrun): how long it may run and
    /// still end on its own, and how long it runs when it is stopped. Both are `allowed`,
    /// except that Maui, polling, checks the limit at each poll, cancels a job only once it
    /// has run strictly longer (MLimit.c `MLimitEnforceAll`), and frees its nodes at the
    /// poll after. (Jobs start on the poll grid, so the polls after a start are multiples
    /// of it.)
    fn stopped_after(&self, allowed: Time) -> (Time, Time) {
        let poll = self.options.poll_interval;
        if poll == 0 || !self.maui() {
            return (allowed, allowed);
        }
        let cancelling = (allowed.max(0) / poll + 1) * poll;
        (cancelling, cancelling + poll)
    }

    /// `--check` when job `i` ends at `end`: it ran no longer than its limit allows.
    fn check_end(&mut self, i: usize, end: Time) {
        let (wcl, start) = (self.job(i).wcl, self.entry(i).outcome.start);
        // Time suspended (PREEMPTPOLICY SUSPEND) is not run time.
        let ran = end - start - self.entry(i).outcome.suspended();
        let allowance = self.job(i).overrun_allowance(self.options.max_overrun);
        if let Some(overrun) = allowance {
            if ran > self.stopped_after(wcl + overrun).1 && self.violation.is_none() {
                self.violation = Some(Violation {
                    time: end,
                    rule: Rule::RanPastLimit,
                    job: Some(JobIdx(i as u32)),
                    node: None,
                    detail: format!("ran {ran} s, limit {wcl} s + overrun {overrun} s"),
                });
            }
        }
    }

    /// Whether every reservation is a promise the run must keep: exact estimates planned
    /// as they are, ends seen at once, processors pooled, no limit or cap that could
    /// block a reserved job, and a priority order that new jobs cannot jump (by queue
    /// time, or kept reservations under RESERVATIONPOLICY HIGHEST).
    fn reservations_are_promises(&self) -> bool {
        let policy = self.scheduler.policy();
        // A preemption may push a reservation later (and a requeued job starts over).
        let preempts = policy.preemption != Preemption::Never
            && policy.creds.settings[mauisim_core::CredKind::Qos.index()]
                .iter()
                .chain(std::iter::once(
                    &policy.creds.defaults[mauisim_core::CredKind::Qos.index()],
                ))
                .any(|q| q.preemptor);
        if preempts {
            return false;
        }
        // A streamed run cannot look ahead at every job.
        let exact = match &self.feed {
            Feed::Slice(jobs) => jobs
                .iter()
                .all(|j| j.runtime == j.wcl && j.system_priority() == 0),
            Feed::Stream(_) => false,
        };
        let stable = policy.reservation_policy == ReservationPolicy::Highest
            || self.scheduler.priority_is_queue_order();
        exact
            && stable
            && self.options.pooled
            && self.options.poll_interval == 0
            && self.options.predictor == Predictor::Limit
            && !self.options.scale_by_speed
            && !self.scheduler.has_limits()
            && !self.scheduler.fairshare().has_caps()
            && policy.reservation_policy != ReservationPolicy::Never
    }

    /// Starts job `i` at `now`; the scheduler planned it to run `plan` seconds.
    fn launch(
        &mut self,
        i: usize,
        now: Time,
        backfilled: bool,
        first_reservation: Option<Time>,
        plan: Time,
    ) {
        let job = self.job(i);
        let idx = JobIdx(i as u32);
        let machine = self.scheduler.machine();
        let nodes = machine.node_ranges(idx);
        let runtime = if self.options.scale_by_speed {
            let speed = machine.speed_of(idx);
            (job.runtime as f64 / speed).ceil() as Time
        } else {
            job.runtime
        };
        let (run, cancelled) = match job.overrun_allowance(self.options.max_overrun) {
            Some(overrun) if runtime > job.wcl + overrun => {
                let (may_end, stopped) = self.stopped_after(job.wcl + overrun);
                if runtime <= may_end {
                    (runtime, false)
                } else {
                    (stopped, true)
                }
            }
            _ => (runtime, false),
        };
        let entry = self.entry_mut(i);
        entry.nodes = nodes;
        let earlier = entry.outcome;
        entry.outcome = Outcome {
            start: now,
            end: now + run,
            backfilled,
            cancelled,
            preemptions: earlier.preemptions,
            preempted_run: earlier.preempted_run,
            ..Outcome::default()
        };
        entry.outcome.set_first_reservation(first_reservation);
        entry.started = true;
        self.max_end = self.max_end.max(now + run);
        self.push_event(now + run, EventKind::End, i);
        self.follow_plan(i, now, plan, run);
    }

    /// Job `i`, started at `start`, is planned to run `plan` but runs `run`: when it
    /// outlives the plan, the event that corrects the plan then (a new prediction while
    /// the plan is short of the limit, else the overrun allowance).
    fn follow_plan(&mut self, i: usize, start: Time, plan: Time, run: Time) {
        let wcl = self.job(i).wcl;
        if run > plan && plan < wcl {
            self.push_event(start + plan, EventKind::Predict, i);
        } else if run > wcl {
            self.push_event(start + wcl, EventKind::Limit, i);
        }
    }

    /// Schedules a timed event; its creation order breaks ties between simultaneous ones.
    fn push_event(&mut self, time: Time, kind: EventKind, job: usize) {
        let seq = self.stats.events;
        self.stats.events += 1;
        self.events.push(Reverse(Event {
            time,
            kind,
            seq,
            job: job as u32,
        }));
    }

    fn run_per_instant(&mut self) {
        loop {
            if self.violation.is_some() || self.failure.is_some() {
                return;
            }
            let next = [
                self.next_submit_time(),
                self.next_event_time(),
                self.policy_wakeup(),
            ];
            let Some(now) = next.into_iter().flatten().min() else {
                return;
            };
            if now > self.stop {
                return;
            }
            while self.next_event_time() == Some(now) {
                let Reverse(event) = self.events.pop().expect("peeked");
                self.apply_event(event, now);
            }
            while self.next_submit_time() == Some(now) {
                self.submit_next();
            }
            self.iterate(now);
        }
    }

    fn run_per_event(&mut self) {
        loop {
            if self.violation.is_some() || self.failure.is_some() {
                return;
            }
            let submit = self.next_submit_time();
            let event = self.events.peek().map(|e| e.0);
            if let Some(wake) = self.policy_wakeup() {
                let before = |t: Option<Time>| t.is_none_or(|t| wake < t);
                if before(submit) && before(event.map(|e| e.time)) {
                    if wake > self.stop {
                        return;
                    }
                    self.iterate(wake);
                    continue;
                }
            }
            // Limits first: they correct the plan before anyone looks at it. Then
            // submissions before completions at equal times.
            let take_event = match (submit, event) {
                (None, None) => return,
                (None, Some(_)) => true,
                (Some(_), None) => false,
                (Some(s), Some(e)) => e.time < s || (e.time == s && e.kind == EventKind::Limit),
            };
            let next = if take_event {
                event.map_or(Time::MAX, |e| e.time)
            } else {
                submit.unwrap_or(Time::MAX)
            };
            if next > self.stop {
                return;
            }
            if take_event {
                let Reverse(e) = self.events.pop().expect("peeked");
                self.apply_event(e, e.time);
                if e.kind == EventKind::End {
                    self.iterate(e.time);
                }
            } else {
                let s = submit.expect("a job to submit");
                if self.submit_next() && self.newest_fits(s) {
                    if self.newest_is_preemptor() {
                        // Jobs ending at this instant are gone before a preemptor looks for
                        // victims (as the other trigger orders have it).
                        while self.next_event_time() == Some(s) {
                            let Reverse(e) = self.events.pop().expect("peeked");
                            self.apply_event(e, s);
                        }
                    }
                    self.iterate(s);
                }
            }
        }
    }

    /// Whether the job just queued has a PREEMPTOR QOS.
    fn newest_is_preemptor(&self) -> bool {
        let i = self.next_submit - 1;
        self.queue
            .last()
            .is_some_and(|q| q.idx.0 as usize == i && q.cred_factors.preemptor)
    }

    /// Whether the job just queued could start at `now` on the nodes as they are. (A
    /// PREEMPTOR job may make room for itself: the iteration decides.)
    fn newest_fits(&mut self, now: Time) -> bool {
        let i = self.next_submit - 1;
        match self.queue.last() {
            Some(q) if q.idx.0 as usize == i => {
                q.cred_factors.preemptor || self.scheduler.fits_now(now, q)
            }
            _ => false,
        }
    }

    fn run_polled(&mut self, origin: Time) {
        let step = self.options.poll_interval;
        let mut now = origin;
        while now <= self.stop && self.violation.is_none() && self.failure.is_none() {
            // Jobs a constant-depth policy tops up are submitted at this tick.
            self.clock = now;
            while self.next_event_time().is_some_and(|t| t <= now) {
                let Reverse(event) = self.events.pop().expect("peeked");
                self.apply_event(event, now);
            }
            while self.next_submit_time().is_some_and(|t| t <= now) {
                self.submit_next();
            }
            self.iterate(now);
            if now == origin && self.maui() {
                // 3.3.1 runs its first two iterations at the same instant (its clock does
                // not advance on the first, MGUtil.c `MUGetTime`): the second sees the
                // first one's starts, which matters where limits held jobs back.
                self.iterate(now);
            }
            let next = if self.queue.is_empty() {
                match (self.next_submit_time(), self.next_event_time()) {
                    (None, None) => match self.policy_wakeup() {
                        Some(t) if !self.suspended.is_empty() && t > now => t,
                        _ => return,
                    },
                    (a, b) => a.unwrap_or(Time::MAX).min(b.unwrap_or(Time::MAX)),
                }
            } else if self.events.is_empty()
                && self.next_submit_time().is_none()
                && self.scheduler.next_wakeup().is_none()
            {
                return; // nothing can change any more; `simulate` reports the stuck jobs
            } else {
                now + 1
            };
            // The first tick at or after `next`.
            now = origin + (next - origin + step - 1).div_euclid(step) * step;
        }
    }
}

#[cfg(test)]
mod outcome_tests {
    use super::*;

    /// A run holds an outcome for every job of its trace: one stays within 48 bytes.
    #[test]
    fn an_outcome_stays_small() {
        assert!(std::mem::size_of::<Outcome>() <= 48);
    }

    #[test]
    fn an_outcome_keeps_its_reservation_and_preempted_seconds() {
        let mut o = Outcome::default();
        assert_eq!(o.first_reservation(), None);
        for at in [Some(0), Some(-5), Some(Time::MAX), None] {
            o.set_first_reservation(at);
            assert_eq!(o.first_reservation(), at);
        }
        o.add_suspended(10);
        o.add_suspended(5);
        o.add_preempted_run(600);
        assert_eq!((o.suspended(), o.preempted_run()), (15, 600));
        o.add_suspended(Time::MAX / 2);
        assert_eq!(o.suspended(), Time::from(u32::MAX), "at most 136 years");
    }
}

#[cfg(test)]
mod check_tests {
    use super::*;
    use mauisim_core::{Reservation, Semantics, Start};

    /// A simulation of one job (4 processors, limit 100, submitted at 10), stopped before
    /// anything happens, with `--check` on.
    fn sim(jobs: &[Job]) -> Sim<'_, Collect> {
        sim_under(jobs, Semantics::default())
    }

    fn sim_under(jobs: &[Job], semantics: Semantics) -> Sim<'_, Collect> {
        let options = EngineOptions {
            check: true,
            ..EngineOptions::default()
        };
        let policy = PolicyConfig {
            semantics,
            ..PolicyConfig::default()
        };
        Sim::new(
            Feed::Slice(jobs),
            machine_of(8),
            policy,
            options,
            Time::MIN,
            Collect::default(),
        )
    }

    fn one_job() -> Vec<Job> {
        vec![Job::synthetic(7, 10, 100, 100, 4)]
    }

    fn rule(sim: &Sim<Collect>) -> Option<Rule> {
        sim.violation.as_ref().map(|v| v.rule)
    }

    /// The simulation with its one job queued and `starts` times started by the
    /// iteration under check.
    fn starting(jobs: &[Job], starts: usize) -> Sim<'_, Collect> {
        let mut s = sim(jobs);
        s.submit_next();
        let start = Start {
            job: JobIdx(0),
            queue_pos: 0,
            backfilled: false,
        };
        s.decisions
            .starts
            .extend(std::iter::repeat_n(start, starts));
        s
    }

    #[test]
    fn a_start_before_submission_or_a_second_start_is_caught() {
        let jobs = one_job();
        let mut s = starting(&jobs, 1);
        s.check_iteration(5);
        assert_eq!(rule(&s), Some(Rule::StartedBeforeSubmit));
        let mut s = starting(&jobs, 1);
        s.entry_mut(0).started = true;
        s.check_iteration(20);
        assert_eq!(rule(&s), Some(Rule::StartedTwice));
        assert_eq!(s.violation.unwrap().job, Some(JobIdx(0)));
        // Twice in one iteration (say, by the priority pass and by backfill).
        let mut s = starting(&jobs, 2);
        s.check_iteration(20);
        assert_eq!(rule(&s), Some(Rule::StartedTwice));
    }

    #[test]
    fn running_past_the_limit_is_caught() {
        let jobs = one_job();
        let mut s = sim(&jobs);
        s.entry_mut(0).outcome.start = 10;
        s.check_end(0, 110);
        assert_eq!(rule(&s), None, "exactly its limit");
        s.check_end(0, 111);
        assert_eq!(rule(&s), Some(Rule::RanPastLimit));
    }

    #[test]
    fn a_promise_moved_later_is_caught() {
        let jobs = one_job();
        let mut s = sim(&jobs);
        s.promises = true;
        s.entry_mut(0).promised = Some(50);
        s.decisions.reservations.push(Reservation {
            job: JobIdx(0),
            start: 40,
        });
        s.check_iteration(20);
        assert_eq!(rule(&s), None, "earlier is fine");
        assert_eq!(s.entry(0).promised, Some(40));
        s.decisions.reservations[0].start = 45;
        s.check_iteration(30);
        assert_eq!(rule(&s), Some(Rule::ReservationBroken));
    }

    #[test]
    fn promises_are_only_checked_where_they_are_promises() {
        let exact = vec![Job::synthetic(1, 0, 100, 100, 4)];
        assert!(sim_under(&exact, Semantics::ResearchEasy).reservations_are_promises());
        let loose = one_job_with_slack();
        assert!(!sim_under(&loose, Semantics::ResearchEasy).reservations_are_promises());
        // Maui's stale queue times can reorder the queue, so a reservation may move later.
        assert!(!sim_under(&exact, Semantics::Maui).reservations_are_promises());
    }

    fn one_job_with_slack() -> Vec<Job> {
        vec![Job::synthetic(1, 0, 50, 100, 4)]
    }

    #[test]
    fn the_run_stops_at_the_first_violation_and_reports_it() {
        let jobs = one_job();
        let mut s = sim(&jobs);
        s.stop = Time::MAX;
        s.violation = Some(Violation {
            time: 0,
            rule: Rule::UsageRecount,
            job: None,
            node: None,
            detail: String::new(),
        });
        s.run();
        assert_eq!(s.stats.iterations, 0, "nothing simulated after a violation");
    }
}
