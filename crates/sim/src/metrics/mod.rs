//! The standard metrics of a simulated schedule.
//!
//! Definitions follow traces/PUBLISHED.md where it defines them (bounded slowdown with
//! τ = 10 s, utilization over first submit → last completion) and Maui's showstats
//! (MAUI-SEMANTICS §6) for expansion factor and wallclock accuracy. Means use compensated
//! summation so they agree with R's `mean` to the last printed digit.

pub mod fairness;

use crate::engine::Outcome;
use crate::trace::workload::Job;
use mauisim_core::Time;
use serde::Serialize;

/// Bounded-slowdown threshold τ (seconds).
pub const BSLD_TAU: f64 = 10.0;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Metrics {
    pub jobs: u64,
    /// The earliest submission measured, trace time (the makespan's start).
    #[serde(skip)]
    pub first_submit: Time,
    pub makespan: Time,
    pub utilization: f64,
    pub avg_wait: f64,
    pub median_wait: Time,
    pub p95_wait: Time,
    pub max_wait: Time,
    pub avg_response: f64,
    pub avg_bounded_slowdown: f64,
    pub max_bounded_slowdown: f64,
    pub avg_xfactor: f64,
    pub avg_xfactor_ps_weighted: f64,
    pub backfilled_fraction: f64,
    pub cancelled_jobs: u64,
    pub avg_wallclock_accuracy: f64,
    /// Maui's BYPASS count at start: how often a lower-priority job was backfilled ahead.
    pub avg_bypass: f64,
    pub max_bypass: u32,
    /// Jobs that were ever promised a start by a reservation.
    pub reserved_jobs: u64,
    /// Of those, the share that started no later than their first promise.
    pub reservations_kept_fraction: f64,
    /// Over reserved jobs: how much later than first promised they started (0 if not).
    pub avg_reservation_delay: f64,
    pub max_reservation_delay: Time,
    /// Times a running job was preempted (requeued or suspended) for a PREEMPTOR job.
    pub preemptions: u64,
    /// Processor-seconds the preempted runs had used: work done and lost (not in
    /// `utilization`, which counts the runs that finished).
    pub preempted_procseconds: f64,
}

/// Neumaier's compensated sum.
#[derive(Default)]
struct Sum {
    sum: f64,
    compensation: f64,
}

impl Sum {
    fn add(&mut self, x: f64) {
        let t = self.sum + x;
        if self.sum.abs() >= x.abs() {
            self.compensation += (self.sum - t) + x;
        } else {
            self.compensation += (x - t) + self.sum;
        }
        self.sum = t;
    }
    fn value(&self) -> f64 {
        self.sum + self.compensation
    }
}

/// Nearest-rank percentile of sorted values: the smallest value with at least `p` of
/// the values at or below it.
fn percentile<T: Copy + Into<Time>>(sorted: &[T], p: f64) -> Time {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1].into()
}

pub fn bounded_slowdown(wait: Time, run: Time) -> f64 {
    bounded_slowdown_of(wait, run, run)
}

/// Bounded slowdown of a job that took `elapsed` from start to end and ran `ran` of it
/// (less where it was suspended): its response over what it ran.
fn bounded_slowdown_of(wait: Time, elapsed: Time, ran: Time) -> f64 {
    let response = (wait + elapsed) as f64;
    (response / (ran as f64).max(BSLD_TAU)).max(1.0)
}

pub fn compute(jobs: &[Job], outcomes: &[Outcome], machine_procs: u64) -> Metrics {
    let mut acc = Accumulator::default();
    for (job, o) in jobs.iter().zip(outcomes) {
        acc.add(job, o);
    }
    acc.finish(machine_procs)
}

/// The metrics built up one job at a time, in any order, so that a streamed run needs no
/// job list: only the waits are kept (4 bytes a job), for the median and the 95th
/// percentile.
#[derive(Default)]
pub struct Accumulator {
    n: u64,
    wait: Sum,
    response: Sum,
    bsld: Sum,
    xf: Sum,
    accuracy: Sum,
    xf_ps: Sum,
    ps: Sum,
    /// Waits that fit in 32 bits (136 years); longer ones in `long_waits`.
    waits: Vec<u32>,
    long_waits: Vec<Time>,
    backfilled: u64,
    cancelled: u64,
    max_bsld: f64,
    bypass: Sum,
    max_bypass: u32,
    reserved: u64,
    kept: u64,
    delay: Sum,
    max_delay: Time,
    first_submit: Option<Time>,
    last_end: Option<Time>,
    preemptions: u64,
    lost_ps: Sum,
}

impl Accumulator {
    pub(crate) fn add(&mut self, job: &Job, o: &Outcome) {
        let (w, run) = (o.wait(job), o.run());
        self.n += 1;
        match u32::try_from(w) {
            Ok(w) => self.waits.push(w),
            Err(_) => self.long_waits.push(w),
        }
        self.wait.add(w as f64);
        self.response.add((w + run) as f64);
        // Suspended time is no run time: the slowdown divides by what the job ran.
        let b = bounded_slowdown_of(w, run, o.processing());
        self.bsld.add(b);
        self.max_bsld = self.max_bsld.max(b);
        let x = (w + run) as f64 / job.wcl as f64;
        self.xf.add(x);
        // Suspended time holds no processors and is no run time of the job's.
        let processing = o.processing();
        let proc_seconds = job.procs as f64 * processing as f64;
        self.xf_ps.add(x * proc_seconds);
        self.ps.add(proc_seconds);
        self.accuracy.add(processing as f64 / job.wcl as f64);
        self.backfilled += o.backfilled as u64;
        self.cancelled += o.cancelled as u64;
        self.preemptions += u64::from(o.preemptions);
        self.lost_ps
            .add(job.procs as f64 * o.preempted_run() as f64);
        self.bypass.add(o.bypass as f64);
        self.max_bypass = self.max_bypass.max(o.bypass);
        if let Some(promised) = o.first_reservation() {
            let late = (o.start - promised).max(0);
            self.reserved += 1;
            self.kept += (late == 0) as u64;
            self.delay.add(late as f64);
            self.max_delay = self.max_delay.max(late);
        }
        self.first_submit = Some(self.first_submit.map_or(job.submit, |t| t.min(job.submit)));
        self.last_end = Some(self.last_end.map_or(o.end, |t| t.max(o.end)));
    }

    pub(crate) fn finish(self, machine_procs: u64) -> Metrics {
        let n = self.n;
        let (median_wait, p95_wait, max_wait) = if self.long_waits.is_empty() {
            let mut waits = self.waits;
            waits.sort_unstable();
            let max = waits.last().map_or(0, |&w| Time::from(w));
            (percentile(&waits, 0.5), percentile(&waits, 0.95), max)
        } else {
            let mut waits: Vec<Time> = self.waits.iter().map(|&w| Time::from(w)).collect();
            waits.extend(self.long_waits);
            waits.sort_unstable();
            let max = waits.last().copied().unwrap_or(0);
            (percentile(&waits, 0.5), percentile(&waits, 0.95), max)
        };
        let mean = |s: &Sum| if n == 0 { 0.0 } else { s.value() / n as f64 };
        let first_submit = self.first_submit.unwrap_or(0);
        let makespan = self.last_end.unwrap_or(first_submit) - first_submit;
        let capacity = machine_procs as f64 * makespan as f64;
        let (reserved, ps) = (self.reserved, self.ps.value());
        Metrics {
            jobs: n,
            first_submit,
            makespan,
            utilization: if capacity > 0.0 { ps / capacity } else { 0.0 },
            avg_wait: mean(&self.wait),
            median_wait,
            p95_wait,
            max_wait,
            avg_response: mean(&self.response),
            avg_bounded_slowdown: mean(&self.bsld),
            max_bounded_slowdown: self.max_bsld,
            avg_xfactor: mean(&self.xf),
            avg_xfactor_ps_weighted: if ps > 0.0 {
                self.xf_ps.value() / ps
            } else {
                0.0
            },
            backfilled_fraction: if n == 0 {
                0.0
            } else {
                self.backfilled as f64 / n as f64
            },
            cancelled_jobs: self.cancelled,
            avg_wallclock_accuracy: mean(&self.accuracy),
            avg_bypass: mean(&self.bypass),
            max_bypass: self.max_bypass,
            reserved_jobs: reserved,
            reservations_kept_fraction: if reserved == 0 {
                1.0
            } else {
                self.kept as f64 / reserved as f64
            },
            avg_reservation_delay: if reserved == 0 {
                0.0
            } else {
                self.delay.value() / reserved as f64
            },
            max_reservation_delay: self.max_delay,
            preemptions: self.preemptions,
            preempted_procseconds: self.lost_ps.value(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<Time> = (1..=20).collect();
        assert_eq!(percentile(&v, 0.5), 10);
        assert_eq!(percentile(&v, 0.95), 19);
        assert_eq!(percentile(&[7], 0.95), 7);
        assert_eq!(percentile::<Time>(&[], 0.5), 0);
    }

    /// Waits past 32 bits (and below zero) take the wide path and sort with the rest.
    #[test]
    fn waits_of_any_size_give_the_same_percentiles() {
        let waits: [Time; 5] = [5, 1 << 40, 0, 7, 1 << 33];
        let mut acc = Accumulator::default();
        for (i, &w) in waits.iter().enumerate() {
            let job = Job::synthetic(i as u64, 0, 10, 10, 1);
            let mut outcome = Outcome::default();
            (outcome.start, outcome.end) = (w, w + 10);
            acc.add(&job, &outcome);
        }
        let m = acc.finish(1);
        assert_eq!(
            (m.median_wait, m.p95_wait, m.max_wait),
            (7, 1 << 40, 1 << 40)
        );
    }

    #[test]
    fn bounded_slowdown_uses_tau_and_floor_one() {
        assert_eq!(bounded_slowdown(0, 5), 1.0);
        assert_eq!(bounded_slowdown(15, 5), 2.0); // 20 / max(10, 5)
        assert_eq!(bounded_slowdown(100, 100), 2.0);
    }

    #[test]
    fn compensated_sum_keeps_small_terms() {
        let mut s = Sum::default();
        s.add(1e16);
        for _ in 0..10 {
            s.add(1.0);
        }
        s.add(-1e16);
        assert_eq!(s.value(), 10.0);
    }
}
