//! What the scheduler knows about a waiting job.

use crate::Time;

/// Dense index of a job in the caller's workload (not the trace's job id).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobIdx(pub u32);

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
    /// The first start time a reservation promised this job, if it ever had one.
    pub first_reservation: Option<Time>,
}

impl QueuedJob {
    pub fn new(idx: JobIdx, id: u64, submit: Time, procs: u64, wcl: Time) -> Self {
        QueuedJob {
            idx,
            id,
            submit,
            procs,
            wcl: wcl.max(1),
            first_reservation: None,
        }
    }
}
