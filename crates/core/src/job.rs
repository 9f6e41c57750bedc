//! What the scheduler knows about a waiting job.

use crate::cred::JobCreds;
use crate::cred_settings::ResolvedCreds;
use crate::node::Request;
use crate::scheduler::ParkedMark;
use crate::Time;

/// Dense index of a job in the caller's workload (not the trace's job id).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobIdx(pub u32);

/// What a job asks for beyond processors and time: the RES priority factors.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Resources {
    pub nodes: u64,
    /// Totals over all tasks, in MB.
    pub mem_mb: f64,
    pub swap_mb: f64,
    pub disk_mb: f64,
    /// Processor equivalents (guide 5.1.2): processors scaled by the job's largest share
    /// of any configured resource.
    pub pe: f64,
}

/// A job waiting in the queue, as the scheduler sees it: its request and the state the
/// scheduler keeps about it between iterations. The caller keeps the queue ordered by
/// `(submit, id)`, the tie-break order of equal priorities.
#[derive(Debug, Clone, PartialEq)]
pub struct QueuedJob {
    pub idx: JobIdx,
    /// The trace's job id: the last tie-breaker of the priority order.
    pub id: u64,
    pub submit: Time,
    pub procs: u64,
    /// Wallclock limit the scheduler plans with (≥ 1 s).
    pub wcl: Time,
    pub resources: Resources,
    /// What each task needs of its node (guide 5.2).
    pub request: Request,
    pub creds: JobCreds,
    /// Credential-dependent priority inputs, resolved once at submission.
    pub cred_factors: ResolvedCreds,
    /// Admin system priority (`setspri`): > 0 puts the job above every computed priority.
    pub system_priority: u32,
    /// Start of the effective queue time (JOBPRIOACCRUALPOLICY): the submit time, moved
    /// forward while the job is blocked by policy.
    pub eff_queue_start: Time,
    /// Maui 3.3.1's `EffQueueDuration`: the effective queue time the job had when it was
    /// last selected as eligible. Under Maui semantics its priority counts this, one
    /// iteration stale, instead of the queue time now (MPriority.c, MPolicy.c).
    pub selected_queued: Option<Time>,
    /// Times a lower-priority job was started by backfill while this one waited.
    pub bypass: u32,
    /// The job is only eligible under hard, not soft, limits (SPVIOLATION factor).
    pub soft_violation: bool,
    /// Maui 3.3.1: the job ended the last iteration holding a reservation, which lets it
    /// past the next selection's idle limits (MPolicy.c checks them only for jobs
    /// without one).
    pub held_reservation: bool,
    /// Maui 3.3.1 with USESYSTEMQUEUETIME FALSE: while `EffQueueDuration` is 0 the queue
    /// time counts from submission, not from `eff_queue_start` (its system queue time).
    pub queued_from_submit: bool,
    /// The first start time a reservation promised this job, if it ever had one.
    pub first_reservation: Option<Time>,
    /// When the job first received a reservation, as a count of reservations made before
    /// it: under RESERVATIONPOLICY HIGHEST, the order in which reservations are kept.
    pub reserved_seq: Option<u64>,
    /// Share of its dedicated processors the job keeps busy (the trace's average CPU
    /// time over its runtime; 1 when unknown): what FSPOLICY UTILIZEDPS charges.
    pub utilized: f64,
    /// The standing reservations the job may use (bit `k` for the machine's reservation
    /// `k`), set when the scheduler admits it.
    pub standing_access: u64,
    /// The standing reservations the job may use only over a window it runs inside for
    /// at most the reservation's time limit (TIMELIMIT, MAXTIME, SRMAXTIME): 3.3.1 judges
    /// access by the job's overlap with the window at hand.
    pub standing_short: u64,
    /// Maui 3.3.1's partitions (when the machine has more than one): the partitions the
    /// job may run in and can fit (bit per index, [`crate::Partitions`]), and the one of
    /// its first pass; set when the scheduler admits it.
    pub partitions: u8,
    pub default_partition: u8,
    /// The nodes the job asks for by count, Maui 3.3.1's `Request.NC`: a Maui workload
    /// trace's field 2, its tasks under JOBNODEMATCHPOLICY EXACTNODE, else 0 (an SWF trace
    /// asks for none). Only its class's MAXNODEPERJOB reads it ([`crate::throttle`]).
    pub nodes_asked: u32,
    /// Its [`JobTerms`], once the priority order has worked them out.
    pub(crate) priority_terms: Option<JobTerms>,
    /// Set aside while a hard active limit blocks it (`scheduler::parking`).
    pub(crate) parked: Option<ParkedMark>,
}

impl QueuedJob {
    /// A job with no credentials and one node per processor; callers fill in the rest.
    pub fn new(idx: JobIdx, id: u64, submit: Time, procs: u64, wcl: Time) -> Self {
        QueuedJob {
            idx,
            id,
            submit,
            procs,
            wcl: wcl.max(1),
            resources: Resources {
                nodes: procs,
                pe: procs as f64,
                ..Resources::default()
            },
            request: Request::default(),
            creds: JobCreds::default(),
            cred_factors: ResolvedCreds::default(),
            system_priority: 0,
            eff_queue_start: submit,
            selected_queued: None,
            bypass: 0,
            soft_violation: false,
            held_reservation: false,
            queued_from_submit: false,
            nodes_asked: 0,
            first_reservation: None,
            reserved_seq: None,
            utilized: 1.0,
            standing_access: 0,
            standing_short: 0,
            partitions: 0,
            default_partition: 0,
            priority_terms: None,
            parked: None,
        }
    }

    /// A job whose priority is not the common function of its submit time: a system
    /// priority, or an effective queue time that no longer starts at submission. (Whatever
    /// moves `eff_queue_start` must keep the scheduler's count of these.)
    pub(crate) fn breaks_queue_order(&self) -> bool {
        self.system_priority > 0 || self.eff_queue_start != self.submit
    }

    /// Seconds of effective queue time at `now`.
    pub fn eff_queued(&self, now: Time) -> Time {
        match self.selected_queued {
            Some(d) if d > 0 => d,
            _ if self.queued_from_submit => (now - self.submit).max(0),
            _ => (now - self.eff_queue_start).max(0),
        }
    }
}

/// The parts of a queued job's priority that do not change while it waits, worked out by
/// [`crate::PriorityConfig`] once and kept on the job by the priority order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JobTerms {
    /// CRED + ATTR + RES (+ USAGE, zero while idle).
    pub(crate) static_part: f64,
    pub(crate) wcl: f64,
    /// `max(XFMINWCLIMIT, WCL)`.
    pub(crate) xf_divisor: f64,
    /// QUEUETIMEWEIGHT and XFACTORWEIGHT plus the QOS's QTWEIGHT and XFWEIGHT.
    pub(crate) qt_weight: f64,
    pub(crate) xf_weight: f64,
    pub(crate) qt_target_minutes: Option<f64>,
    pub(crate) xf_target: Option<f64>,
}
