//! The discrete-event loop: submissions and completions drive scheduling iterations.
//!
//! Three trigger modes (DECISIONS.md "Clock"):
//! - `PerInstant` (Maui): apply every completion and submission of an instant, then run
//!   one iteration.
//! - `PerEvent` (pyss, Alea): one pass after each event; submissions before completions
//!   at equal times; a submission triggers a pass only if its job fits now.
//! - polled (`RMPOLLINTERVAL` > 0): iterations at fixed steps from the first submission;
//!   a completion or submission is seen at the first iteration at or after it.

use crate::error::{Result, SimError};
use crate::workload::Job;
use mauisim_core::{Decisions, JobIdx, PolicyConfig, QueuedJob, Scheduler, Time, FOREVER};
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventOrder {
    PerInstant,
    PerEvent,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineOptions {
    pub order: EventOrder,
    /// RMPOLLINTERVAL: 0 for event-driven iterations.
    pub poll_interval: Time,
    /// JOBMAXOVERRUN: how long a job may run past its limit; `None` = without bound.
    pub max_overrun: Option<Time>,
}

/// What happened to one job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Outcome {
    pub start: Time,
    pub end: Time,
    pub backfilled: bool,
    /// Stopped at its wallclock limit (+ overrun).
    pub cancelled: bool,
    /// The first start a reservation promised the job, if it ever had one.
    pub first_reservation: Option<Time>,
}

impl Outcome {
    pub fn wait(&self, job: &Job) -> Time {
        self.start - job.submit
    }
    pub fn run(&self) -> Time {
        self.end - self.start
    }
}

#[derive(Debug, Clone)]
pub struct RunStats {
    pub iterations: u64,
    /// Timed events created (completions and limit passes).
    pub events: u64,
    pub max_queue: usize,
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
    /// The job reached its planned end and keeps running on its overrun allowance.
    Limit,
    End,
}

struct Sim<'a> {
    jobs: &'a [Job],
    options: EngineOptions,
    scheduler: Scheduler,
    queue: Vec<QueuedJob>,
    events: BinaryHeap<Reverse<Event>>,
    /// Until when the scheduler believes each running job holds its processors.
    planned_end: Vec<Time>,
    outcomes: Vec<Outcome>,
    decisions: Decisions,
    started_pos: Vec<usize>,
    next_submit: usize,
    stats: RunStats,
}

/// Simulates `jobs` (sorted by `(submit, id)`) on a machine of `procs` processors.
pub fn simulate(
    jobs: &[Job],
    procs: u64,
    policy: PolicyConfig,
    options: EngineOptions,
) -> Result<(Vec<Outcome>, RunStats)> {
    let origin = jobs.first().map_or(0, |j| j.submit);
    let mut sim = Sim {
        jobs,
        options,
        scheduler: Scheduler::new(procs, origin, policy),
        queue: Vec::new(),
        events: BinaryHeap::new(),
        planned_end: vec![0; jobs.len()],
        outcomes: vec![Outcome::default(); jobs.len()],
        decisions: Decisions::default(),
        started_pos: Vec::new(),
        next_submit: 0,
        stats: RunStats {
            iterations: 0,
            events: 0,
            max_queue: 0,
        },
    };
    if options.poll_interval > 0 {
        sim.run_polled(origin);
    } else {
        match options.order {
            EventOrder::PerInstant => sim.run_per_instant(),
            EventOrder::PerEvent => sim.run_per_event(),
        }
    }
    if !sim.queue.is_empty() {
        return Err(SimError::Usage(format!(
            "{} jobs could never start (first: job {}); this is a bug, please report it",
            sim.queue.len(),
            sim.queue[0].id
        )));
    }
    Ok((sim.outcomes, sim.stats))
}

impl Sim<'_> {
    fn next_submit_time(&self) -> Option<Time> {
        self.jobs.get(self.next_submit).map(|j| j.submit)
    }

    fn next_event_time(&self) -> Option<Time> {
        self.events.peek().map(|e| e.0.time)
    }

    fn submit_next(&mut self) {
        let i = self.next_submit;
        let job = &self.jobs[i];
        self.queue.push(QueuedJob::new(
            JobIdx(i as u32),
            job.id,
            job.submit,
            job.procs,
            job.wcl,
        ));
        self.stats.max_queue = self.stats.max_queue.max(self.queue.len());
        self.next_submit += 1;
    }

    /// Applies a timed event at `now` (which is the event's time, or a later poll tick).
    fn apply_event(&mut self, event: Event, now: Time) {
        let i = event.job as usize;
        let procs = self.jobs[i].procs;
        match event.kind {
            EventKind::Limit => {
                let until = match self.options.max_overrun {
                    Some(overrun) => self.outcomes[i].start + self.jobs[i].wcl + overrun,
                    None => FOREVER,
                };
                self.scheduler.job_extended(now, until, procs);
                self.planned_end[i] = until;
            }
            EventKind::End => self.scheduler.job_ended(now, self.planned_end[i], procs),
        }
    }

    fn iterate(&mut self, now: Time) {
        self.stats.iterations += 1;
        self.scheduler
            .schedule(now, &mut self.queue, &mut self.decisions);
        if self.decisions.starts.is_empty() {
            return;
        }
        self.started_pos.clear();
        for k in 0..self.decisions.starts.len() {
            let start = self.decisions.starts[k];
            self.started_pos.push(start.queue_pos);
            let first_reservation = self.queue[start.queue_pos].first_reservation;
            self.launch(
                start.job.0 as usize,
                now,
                start.backfilled,
                first_reservation,
            );
        }
        self.started_pos.sort_unstable();
        let mut pos = 0;
        let mut next = 0;
        let started = &self.started_pos;
        self.queue.retain(|_| {
            let keep = started.get(next) != Some(&pos);
            if !keep {
                next += 1;
            }
            pos += 1;
            keep
        });
    }

    fn launch(&mut self, i: usize, now: Time, backfilled: bool, first_reservation: Option<Time>) {
        let job = &self.jobs[i];
        let (run, cancelled) = match self.options.max_overrun {
            Some(overrun) if job.runtime > job.wcl + overrun => (job.wcl + overrun, true),
            _ => (job.runtime, false),
        };
        self.outcomes[i] = Outcome {
            start: now,
            end: now + run,
            backfilled,
            cancelled,
            first_reservation,
        };
        self.planned_end[i] = now + job.wcl;
        self.push_event(now + run, EventKind::End, i);
        if run > job.wcl {
            self.push_event(now + job.wcl, EventKind::Limit, i);
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
            let now = match (self.next_submit_time(), self.next_event_time()) {
                (None, None) => return,
                (a, b) => a.unwrap_or(Time::MAX).min(b.unwrap_or(Time::MAX)),
            };
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
            let submit = self.next_submit_time();
            let event = self.events.peek().map(|e| e.0);
            // Limits first: they correct the plan before anyone looks at it. Then
            // submissions before completions at equal times.
            let take_event = match (submit, event) {
                (None, None) => return,
                (None, Some(_)) => true,
                (Some(_), None) => false,
                (Some(s), Some(e)) => e.time < s || (e.time == s && e.kind == EventKind::Limit),
            };
            if take_event {
                let Reverse(e) = self.events.pop().expect("peeked");
                self.apply_event(e, e.time);
                if e.kind == EventKind::End {
                    self.iterate(e.time);
                }
            } else {
                let (s, procs) = (
                    self.jobs[self.next_submit].submit,
                    self.jobs[self.next_submit].procs,
                );
                self.submit_next();
                if self.scheduler.free_now(s) >= procs as i64 {
                    self.iterate(s);
                }
            }
        }
    }

    fn run_polled(&mut self, origin: Time) {
        let step = self.options.poll_interval;
        let mut now = origin;
        loop {
            while self.next_event_time().is_some_and(|t| t <= now) {
                let Reverse(event) = self.events.pop().expect("peeked");
                self.apply_event(event, now);
            }
            while self.next_submit_time().is_some_and(|t| t <= now) {
                self.submit_next();
            }
            self.iterate(now);
            let next = if self.queue.is_empty() {
                match (self.next_submit_time(), self.next_event_time()) {
                    (None, None) => return,
                    (a, b) => a.unwrap_or(Time::MAX).min(b.unwrap_or(Time::MAX)),
                }
            } else if self.events.is_empty() && self.next_submit_time().is_none() {
                return; // nothing can change any more; `simulate` reports the stuck jobs
            } else {
                now + 1
            };
            // The first tick at or after `next`.
            now = origin + (next - origin + step - 1).div_euclid(step) * step;
        }
    }
}
