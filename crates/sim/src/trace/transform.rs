//! Reshaping a workload before it runs (issue 8, item 4): keep a time window, the first or
//! last N jobs, some queues or users; compress or shift time; scale inter-arrival times to
//! an offered load. Removed jobs are counted, never silently dropped; offered load is
//! reported before and after.

use crate::error::{Result, SimError};
use crate::params::credentials::Names;
use crate::trace::workload::{Counts, Job, Workload};
use mauisim_core::{CredKind, Time};
use serde::Serialize;

/// What to do to the workload, in this order: window, queues, users, first/last N,
/// compress, target load, shift. Warm-up only changes which jobs the metrics count.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Transform {
    /// Keep jobs submitted in `[start, end)` (trace seconds).
    pub window: Option<(Time, Time)>,
    /// Keep jobs of these queues (classes) / users, by name (SWF numbers as written).
    pub queues: Vec<String>,
    pub users: Vec<String>,
    pub first: Option<usize>,
    pub last: Option<usize>,
    /// Divide every submit offset from the first submission by this (> 0; 1 = none).
    pub compress: Option<f64>,
    /// Scale submit offsets so that the offered load becomes this.
    pub target_load: Option<f64>,
    /// Add this to every submit time.
    pub shift: Time,
    /// Leave jobs submitted within this many seconds of the first out of the metrics.
    pub warmup: Time,
}

impl Transform {
    /// Why the window, queue or user filter leaves `job` out, if it does (the first that
    /// does, in that order).
    pub(crate) fn filtered_out(&self, job: &Job, names: &Names) -> Option<&'static str> {
        if self
            .window
            .is_some_and(|(start, end)| !(start <= job.submit && job.submit < end))
        {
            return Some("outside_time_window");
        }
        let name = |kind| names.name(kind, job.creds.get(kind));
        if !self.queues.is_empty() && !self.queues.iter().any(|q| q == name(CredKind::Class)) {
            return Some("other_queue");
        }
        if !self.users.is_empty() && !self.users.iter().any(|u| u == name(CredKind::User)) {
            return Some("other_user");
        }
        None
    }
}

/// Offered load before and after, for the summary.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct LoadReport {
    /// Σ processors × runtime over (machine processors × submission span) of the trace as
    /// read, and of the workload as run.
    pub offered_load_trace: f64,
    pub offered_load: f64,
}

/// Σ procs·runtime / (machine procs · span of submissions); 0 for fewer than two instants.
pub(crate) fn offered_load(jobs: &[Job], machine_procs: u64) -> f64 {
    let mut load = OfferedLoad::default();
    jobs.iter().for_each(|j| load.add(j));
    load.value(machine_procs)
}

/// [`offered_load`] one job at a time, jobs in submit order (streamed runs).
#[derive(Debug, Default)]
pub struct OfferedLoad {
    work: f64,
    first: Option<Time>,
    last: Time,
}

impl OfferedLoad {
    pub(crate) fn add(&mut self, job: &Job) {
        self.work += job.procs as f64 * job.runtime as f64;
        self.first.get_or_insert(job.submit);
        self.last = job.submit;
    }

    /// Whether any job was added.
    pub(crate) fn is_empty(&self) -> bool {
        self.first.is_none()
    }

    pub(crate) fn value(&self, machine_procs: u64) -> f64 {
        let Some(first) = self.first else {
            return 0.0;
        };
        let span = (self.last - first) as f64;
        if span <= 0.0 || machine_procs == 0 {
            return 0.0;
        }
        self.work / (machine_procs as f64 * span)
    }
}

/// Applies `t` to the workload (sorted by submit time; it stays sorted).
pub(crate) fn apply(w: &mut Workload, t: &Transform, machine_procs: u64) -> Result<LoadReport> {
    let before = offered_load(&w.jobs, machine_procs);
    let n = w.jobs.len();
    let mut dropped = Counts::new();
    let names = &w.names;
    w.jobs.retain(|j| match t.filtered_out(j, names) {
        Some(reason) => {
            *dropped.entry(reason).or_insert(0) += 1;
            false
        }
        None => true,
    });
    debug_assert_eq!(n - w.jobs.len(), dropped.values().sum::<u64>() as usize);
    for (reason, removed) in dropped {
        *w.adjusted.entry(reason).or_insert(0) += removed;
    }
    if let Some(n) = t.first {
        let removed = w.jobs.len().saturating_sub(n) as u64;
        w.jobs.truncate(n);
        if removed > 0 {
            *w.adjusted.entry("beyond_first_n").or_insert(0) += removed;
        }
    }
    if let Some(n) = t.last {
        let removed = w.jobs.len().saturating_sub(n);
        w.jobs.drain(..removed);
        if removed > 0 {
            *w.adjusted.entry("before_last_n").or_insert(0) += removed as u64;
        }
    }
    if w.jobs.is_empty() {
        return Err(SimError::Usage(format!(
            "the workload transforms left no job ({})",
            crate::trace::workload::describe(&w.adjusted)
        )));
    }
    if let Some(c) = t.compress {
        scale_offsets(&mut w.jobs, 1.0 / c)
            .map_err(|e| SimError::Usage(format!("--compress {}: {e}", short(c))))?;
    }
    if let Some(target) = t.target_load {
        let now = offered_load(&w.jobs, machine_procs);
        if now <= 0.0 {
            return Err(SimError::Usage(
                "--target-load: the workload offers no load to scale (one submission instant)"
                    .into(),
            ));
        }
        scale_offsets(&mut w.jobs, now / target).map_err(|e| {
            SimError::Usage(format!(
                "--target-load {}: {e}; ask for a higher load",
                short(target)
            ))
        })?;
        if offered_load(&w.jobs, machine_procs) <= 0.0 {
            return Err(SimError::Usage(format!(
                "--target-load {}: at one-second resolution every submission falls on one \
                 instant; ask for a lower load",
                short(target)
            )));
        }
    }
    if t.shift != 0 {
        for j in &mut w.jobs {
            j.submit += t.shift;
        }
    }
    Ok(LoadReport {
        offered_load_trace: before,
        offered_load: offered_load(&w.jobs, machine_procs),
    })
}

/// A number as a person writes it: `0.9`, `1e308`.
fn short(x: f64) -> String {
    if x != 0.0 && !(1e-3..1e6).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// The longest a transformed workload may span, seconds (about 31,700 years): times stay
/// far from overflowing.
const MAX_SPAN: f64 = 1e12;

/// Multiplies every submit offset from the first submission by `k` (rounded to seconds,
/// so the order is kept); an error if the workload would span more than [`MAX_SPAN`].
fn scale_offsets(jobs: &mut [Job], k: f64) -> std::result::Result<(), String> {
    let (Some(first), Some(last)) = (jobs.first(), jobs.last()) else {
        return Ok(());
    };
    let (first, span) = (first.submit, (last.submit - first.submit) as f64 * k);
    if span.is_nan() || span > MAX_SPAN {
        return Err(format!("the workload would span more than {MAX_SPAN:e} s"));
    }
    for j in jobs {
        j.submit = first + ((j.submit - first) as f64 * k).round() as Time;
    }
    Ok(())
}

/// Indexes of the jobs the metrics count: all but those submitted within `warmup`
/// seconds of the first submission.
pub fn counted(jobs: &[Job], warmup: Time) -> Vec<usize> {
    let first = jobs.first().map_or(0, |j| j.submit);
    (0..jobs.len())
        .filter(|&i| jobs[i].submit >= first + warmup)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::workload::{Counts, Machine};

    fn workload(jobs: Vec<Job>) -> Workload {
        Workload {
            path: "t.swf".into(),
            header: Default::default(),
            machine: Machine {
                nodes: 10,
                procs_per_node: 1,
            },
            jobs,
            names: Names::default(),
            records: 0,
            skipped: Counts::new(),
            adjusted: Counts::new(),
            notes: Vec::new(),
        }
    }

    /// Ten 1-processor jobs of 100 s submitted every 100 s on 10 processors: load 0.1.
    fn ten() -> Workload {
        workload(
            (0..10)
                .map(|i| Job::synthetic(i + 1, 1000 + 100 * i as Time, 100, 200, 1))
                .collect(),
        )
    }

    #[test]
    fn offered_load_scales_to_the_target() {
        let mut w = ten();
        let t = Transform {
            target_load: Some(0.5),
            ..Transform::default()
        };
        let report = apply(&mut w, &t, 10).unwrap();
        assert!((report.offered_load_trace - 10.0 * 100.0 / (10.0 * 900.0)).abs() < 1e-12);
        assert!((report.offered_load - 0.5).abs() < 0.01, "{report:?}");
        assert_eq!(w.jobs[0].submit, 1000, "the first submission stays");
        assert!(w.jobs.windows(2).all(|p| p[0].submit <= p[1].submit));
    }

    #[test]
    fn filters_count_what_they_drop_and_time_moves() {
        let mut w = ten();
        let t = Transform {
            window: Some((1100, 1800)),
            first: Some(5),
            compress: Some(2.0),
            shift: -1000,
            ..Transform::default()
        };
        apply(&mut w, &t, 10).unwrap();
        let submits: Vec<Time> = w.jobs.iter().map(|j| j.submit).collect();
        assert_eq!(submits, vec![100, 150, 200, 250, 300]);
        assert_eq!(w.adjusted.get("outside_time_window"), Some(&3));
        assert_eq!(w.adjusted.get("beyond_first_n"), Some(&2));
        let mut w = ten();
        let t = Transform {
            last: Some(3),
            ..Transform::default()
        };
        apply(&mut w, &t, 10).unwrap();
        assert_eq!(w.jobs[0].id, 8);
        let e = apply(
            &mut ten(),
            &Transform {
                window: Some((0, 10)),
                ..Transform::default()
            },
            10,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("left no job (outside_time_window: 10)"), "{e}");
    }

    #[test]
    fn warm_up_leaves_the_first_jobs_out() {
        let w = ten();
        assert_eq!(counted(&w.jobs, 250), (3..10).collect::<Vec<_>>());
        assert_eq!(counted(&w.jobs, 0).len(), 10);
    }
}
