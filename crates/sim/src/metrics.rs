//! The standard metrics of a simulated schedule.
//!
//! Definitions follow traces/PUBLISHED.md where it defines them (bounded slowdown with
//! τ = 10 s, utilization over first submit → last completion) and Maui's showstats
//! (MAUI-SEMANTICS §6) for expansion factor and wallclock accuracy. Means use compensated
//! summation so they agree with R's `mean` to the last printed digit.

use crate::engine::Outcome;
use crate::workload::Job;
use mauisim_core::Time;
use serde::Serialize;

/// Bounded-slowdown threshold τ (seconds).
pub const BSLD_TAU: f64 = 10.0;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Metrics {
    pub jobs: u64,
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
fn percentile(sorted: &[Time], p: f64) -> Time {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

pub fn bounded_slowdown(wait: Time, run: Time) -> f64 {
    let response = (wait + run) as f64;
    (response / (run as f64).max(BSLD_TAU)).max(1.0)
}

pub fn compute(jobs: &[Job], outcomes: &[Outcome], machine_procs: u64) -> Metrics {
    let n = jobs.len();
    let (mut wait, mut response, mut bsld, mut xf, mut accuracy) = (
        Sum::default(),
        Sum::default(),
        Sum::default(),
        Sum::default(),
        Sum::default(),
    );
    let (mut xf_ps, mut ps) = (Sum::default(), Sum::default());
    let mut waits = Vec::with_capacity(n);
    let (mut backfilled, mut cancelled) = (0u64, 0u64);
    let mut max_bsld: f64 = 0.0;
    let (mut bypass, mut max_bypass) = (Sum::default(), 0u32);
    let (mut reserved, mut kept, mut delay, mut max_delay) = (0u64, 0u64, Sum::default(), 0);
    let first_submit = jobs.iter().map(|j| j.submit).min().unwrap_or(0);
    let last_end = outcomes.iter().map(|o| o.end).max().unwrap_or(first_submit);
    for (job, o) in jobs.iter().zip(outcomes) {
        let (w, run) = (o.wait(job), o.run());
        waits.push(w);
        wait.add(w as f64);
        response.add((w + run) as f64);
        let b = bounded_slowdown(w, run);
        bsld.add(b);
        max_bsld = max_bsld.max(b);
        let x = (w + run) as f64 / job.wcl as f64;
        xf.add(x);
        let proc_seconds = job.procs as f64 * run as f64;
        xf_ps.add(x * proc_seconds);
        ps.add(proc_seconds);
        accuracy.add(run as f64 / job.wcl as f64);
        backfilled += o.backfilled as u64;
        cancelled += o.cancelled as u64;
        bypass.add(o.bypass as f64);
        max_bypass = max_bypass.max(o.bypass);
        if let Some(promised) = o.first_reservation {
            let late = (o.start - promised).max(0);
            reserved += 1;
            kept += (late == 0) as u64;
            delay.add(late as f64);
            max_delay = max_delay.max(late);
        }
    }
    waits.sort_unstable();
    let mean = |s: &Sum| if n == 0 { 0.0 } else { s.value() / n as f64 };
    let makespan = last_end - first_submit;
    let capacity = machine_procs as f64 * makespan as f64;
    Metrics {
        jobs: n as u64,
        makespan,
        utilization: if capacity > 0.0 {
            ps.value() / capacity
        } else {
            0.0
        },
        avg_wait: mean(&wait),
        median_wait: percentile(&waits, 0.5),
        p95_wait: percentile(&waits, 0.95),
        max_wait: waits.last().copied().unwrap_or(0),
        avg_response: mean(&response),
        avg_bounded_slowdown: mean(&bsld),
        max_bounded_slowdown: max_bsld,
        avg_xfactor: mean(&xf),
        avg_xfactor_ps_weighted: if ps.value() > 0.0 {
            xf_ps.value() / ps.value()
        } else {
            0.0
        },
        backfilled_fraction: if n == 0 {
            0.0
        } else {
            backfilled as f64 / n as f64
        },
        cancelled_jobs: cancelled,
        avg_wallclock_accuracy: mean(&accuracy),
        avg_bypass: mean(&bypass),
        max_bypass,
        reserved_jobs: reserved,
        reservations_kept_fraction: if reserved == 0 {
            1.0
        } else {
            kept as f64 / reserved as f64
        },
        avg_reservation_delay: if reserved == 0 {
            0.0
        } else {
            delay.value() / reserved as f64
        },
        max_reservation_delay: max_delay,
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
        assert_eq!(percentile(&[], 0.5), 0);
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
