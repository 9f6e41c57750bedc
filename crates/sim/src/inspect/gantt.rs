//! What a node-time (Gantt) chart shows, as data: the whole schedule of a run, or the
//! scheduler's view at one iteration (what ran, what runs, what it would start, reserve,
//! and the backfill windows left). Drawing is `mauisim-report`'s job.

use crate::engine::{Outcome, RunStats};
use crate::error::Result;
use crate::Prepared;
use mauisim_core::{Time, Window};

/// How a bar is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarKind {
    /// Ran (whole schedule).
    Ran,
    /// Ended before the chosen instant.
    Done,
    /// Running at the chosen instant, started before it; the bar ends where the scheduler
    /// plans it to end.
    Running,
    /// Started at the chosen instant (by its iteration); ends where planned.
    StartsNow,
    /// Reserved by the iteration at the chosen instant, from its promised start.
    Reserved,
    /// An administrative reservation holding nodes.
    AdminReservation,
}

#[derive(Debug, Clone)]
pub struct Bar {
    pub label: String,
    pub start: Time,
    pub end: Time,
    pub procs: u64,
    pub kind: BarKind,
    /// Started while a higher-priority job waited.
    pub backfilled: bool,
    /// Node-index ranges the bar occupies, when known (running and finished jobs).
    pub nodes: Vec<(u32, u32)>,
}

#[derive(Debug, Clone)]
pub struct Picture {
    pub title: String,
    /// Processors of each node, in node order.
    pub node_procs: Vec<u64>,
    pub node_names: Vec<String>,
    pub bars: Vec<Bar>,
    /// The chosen instant (`None`: the whole schedule).
    pub now: Option<Time>,
    /// Backfill windows at `now` (empty for the whole schedule).
    pub windows: Vec<Window>,
}

impl Picture {
    fn frame(prepared: &Prepared, title: String) -> Picture {
        Picture {
            title,
            node_procs: prepared.nodes.spec.nodes.iter().map(|n| n.procs).collect(),
            node_names: prepared.nodes.names(),
            bars: Vec::new(),
            now: None,
            windows: Vec::new(),
        }
    }
}

/// Every job of a finished run, where and when it ran, with administrative reservations.
pub(crate) fn schedule(
    prepared: &Prepared,
    outcomes: &[Outcome],
    stats: &RunStats,
    label: &dyn Fn(usize) -> String,
    title: String,
) -> Picture {
    let mut picture = Picture::frame(prepared, title);
    let (from, to) = span(outcomes);
    picture.bars = admin_reservations(prepared, from, to);
    for (i, (job, o)) in prepared.workload.jobs.iter().zip(outcomes).enumerate() {
        picture.bars.push(Bar {
            label: label(i),
            start: o.start,
            end: o.end,
            procs: job.procs,
            kind: BarKind::Ran,
            backfilled: o.backfilled,
            nodes: stats
                .job_nodes
                .get(i)
                .map(Iterator::collect)
                .unwrap_or_default(),
        });
    }
    picture
}

/// The scheduler's view after the iteration at `at`: jobs done by then (as they ran), jobs
/// running (to their planned end), what the iteration started and reserved, and the
/// backfill windows left. `outcomes` and `stats` are those of the whole run, whose
/// first part the snapshot repeats.
pub(crate) fn at_iteration(
    prepared: &Prepared,
    outcomes: &[Outcome],
    stats: &RunStats,
    at: Time,
    label: &dyn Fn(usize) -> String,
    title: String,
) -> Picture {
    let snapshot = crate::snapshot(prepared, at);
    let (decisions, windows) = snapshot.scheduler.plan(at, &snapshot.queue);
    let jobs = &prepared.workload.jobs;
    let nodes_of = |i: usize| {
        stats
            .job_nodes
            .get(i)
            .map(Iterator::collect)
            .unwrap_or_default()
    };
    let mut picture = Picture::frame(prepared, title);
    picture.now = Some(at);
    picture.windows = windows;
    let (from, to) = span(outcomes);
    picture.bars = admin_reservations(prepared, from.min(at), to.max(at + 1));
    let mut held = vec![false; outcomes.len()];
    for &(i, _) in &stats.held {
        held[i] = true;
    }
    for (i, o) in outcomes.iter().enumerate() {
        if o.end <= at && o.start < at && !held[i] {
            picture.bars.push(Bar {
                label: label(i),
                start: o.start,
                end: o.end,
                procs: jobs[i].procs,
                kind: BarKind::Done,
                backfilled: o.backfilled,
                nodes: nodes_of(i),
            });
        }
    }
    let machine = snapshot.scheduler.machine();
    for &(i, start) in &snapshot.running {
        let planned = machine.planned_end(mauisim_core::JobIdx(i as u32));
        picture.bars.push(Bar {
            label: label(i),
            start,
            end: planned.unwrap_or(start + jobs[i].wcl),
            procs: jobs[i].procs,
            kind: if start == at {
                BarKind::StartsNow
            } else {
                BarKind::Running
            },
            backfilled: outcomes[i].backfilled,
            nodes: nodes_of(i),
        });
    }
    for s in &decisions.starts {
        let i = s.job.0 as usize;
        picture.bars.push(Bar {
            label: label(i),
            start: at,
            end: at + snapshot.queue[s.queue_pos].wcl,
            procs: jobs[i].procs,
            kind: BarKind::StartsNow,
            backfilled: s.backfilled,
            nodes: Vec::new(),
        });
    }
    for r in &decisions.reservations {
        let i = r.job.0 as usize;
        let wcl = snapshot
            .queue
            .iter()
            .find(|q| q.idx == r.job)
            .map_or(jobs[i].wcl, |q| q.wcl);
        picture.bars.push(Bar {
            label: label(i),
            start: r.start,
            end: r.start + wcl,
            procs: jobs[i].procs,
            kind: BarKind::Reserved,
            backfilled: false,
            nodes: Vec::new(),
        });
    }
    picture
}

/// From the first start to the last end of a run (what its pictures show).
fn span(outcomes: &[Outcome]) -> (Time, Time) {
    let from = outcomes.iter().map(|o| o.start).min().unwrap_or(0);
    let to = outcomes.iter().map(|o| o.end).max().unwrap_or(from);
    (from, to.max(from + 1))
}

/// The windows of the standing reservations within `[from, to)`.
fn admin_reservations(prepared: &Prepared, from: Time, to: Time) -> Vec<Bar> {
    let spec = &prepared.nodes.spec;
    let mut bars = Vec::new();
    for sr in &spec.standing {
        for (start, end) in sr.windows_between(from, to) {
            bars.push(Bar {
                label: sr.name.clone(),
                start,
                end,
                procs: sr.nodes.iter().map(|&k| spec.nodes[k as usize].procs).sum(),
                kind: BarKind::AdminReservation,
                backfilled: false,
                nodes: node_runs(&sr.nodes),
            });
        }
    }
    bars
}

/// Sorted node ids as runs of consecutive nodes `(first, last)`.
fn node_runs(nodes: &[u32]) -> Vec<(u32, u32)> {
    let mut sorted = nodes.to_vec();
    sorted.sort_unstable();
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for n in sorted {
        match runs.last_mut() {
            Some((_, last)) if *last + 1 == n => *last = n,
            _ => runs.push((n, n)),
        }
    }
    runs
}

/// A trace's view after the iteration at `at` ([`at_iteration`], jobs labelled by id), cut
/// to what touches `[at − before, …)`: the whole run is simulated first, for where and when
/// the jobs done by then ran.
pub fn of_trace_at(prepared: &Prepared, at: Time, before: Time) -> Result<Picture> {
    let jobs = &prepared.workload.jobs;
    let (outcomes, stats) = crate::simulate(prepared)?;
    let label = |i: usize| jobs[i].id.to_string();
    let title = format!(
        "{} — iteration at {}",
        prepared.workload.path.display(),
        crate::units::clock(at)
    );
    let mut picture = at_iteration(prepared, &outcomes, &stats, at, &label, title);
    let from = at - before;
    picture.bars.retain(|b| b.end > from);
    for bar in &mut picture.bars {
        bar.start = bar.start.max(from);
    }
    Ok(picture)
}
