//! Differential test: the engine and core under FCFS and EASY against a deliberately
//! simple reference written here from the textbook definitions (Lifka's EASY: the first
//! waiting job gets a reservation at the "shadow time"; a later job may start now if it
//! ends by then or uses only the "extra" processors). Thousands of random workloads; the
//! schedules must be identical, start times and backfill flags alike.

use mauisim_core::{BackfillPolicy, PolicyConfig, Semantics};
use mauisim_sim::engine::{machine_of, simulate, EngineOptions, EventOrder};
use mauisim_sim::trace::workload::Job;
use proptest::prelude::*;

const PROCS: u64 = 16;

/// A job as the reference sees it.
#[derive(Debug, Clone, Copy)]
struct RefJob {
    submit: i64,
    /// What it runs: its runtime cut at its limit.
    run: i64,
    wcl: i64,
    procs: u64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct RefOutcome {
    start: i64,
    backfilled: bool,
}

/// Schedules `jobs` (sorted by submission) on `PROCS` processors: at every instant
/// something ends or arrives, ends first, then arrivals, then one scheduling pass.
fn reference(jobs: &[RefJob], easy: bool) -> Vec<RefOutcome> {
    let mut outcome: Vec<Option<RefOutcome>> = vec![None; jobs.len()];
    // Running jobs: (index, planned end, real end).
    let mut running: Vec<(usize, i64, i64)> = Vec::new();
    let mut queue: Vec<usize> = Vec::new();
    let mut next = 0;
    loop {
        let next_end = running.iter().map(|r| r.2).min();
        let next_submit = jobs.get(next).map(|j| j.submit);
        let now = match (next_end, next_submit) {
            (None, None) => break,
            (a, b) => a.unwrap_or(i64::MAX).min(b.unwrap_or(i64::MAX)),
        };
        running.retain(|r| r.2 > now);
        while next < jobs.len() && jobs[next].submit == now {
            queue.push(next);
            next += 1;
        }
        let mut free = PROCS - running.iter().map(|r| jobs[r.0].procs).sum::<u64>();
        // FCFS: start jobs in order while the first one fits.
        while let Some(&head) = queue.first() {
            if jobs[head].procs > free {
                break;
            }
            free -= jobs[head].procs;
            running.push((head, now + jobs[head].wcl, now + jobs[head].run));
            outcome[head] = Some(RefOutcome {
                start: now,
                backfilled: false,
            });
            queue.remove(0);
        }
        if !easy || queue.is_empty() {
            continue;
        }
        // The shadow time: when enough running jobs will have ended (by their limits)
        // for the first waiting job; the extra processors it leaves then.
        let head = queue[0];
        let mut ends: Vec<i64> = running.iter().map(|r| r.1).collect();
        ends.sort();
        let freed_by = |t: i64| -> u64 {
            let ended = running.iter().filter(|r| r.1 <= t);
            free + ended.map(|r| jobs[r.0].procs).sum::<u64>()
        };
        let shadow = ends
            .into_iter()
            .find(|&t| freed_by(t) >= jobs[head].procs)
            .expect("the first job fits once everything has ended");
        // Every job ending by the shadow time counts, ties included.
        let mut extra = freed_by(shadow) - jobs[head].procs;
        let mut started = Vec::new();
        for (k, &j) in queue.iter().enumerate().skip(1) {
            let job = jobs[j];
            if job.procs > free {
                continue;
            }
            let ends_in_time = now + job.wcl <= shadow;
            if !ends_in_time && job.procs > extra {
                continue;
            }
            if !ends_in_time {
                extra -= job.procs;
            }
            free -= job.procs;
            running.push((j, now + job.wcl, now + job.run));
            outcome[j] = Some(RefOutcome {
                start: now,
                backfilled: true,
            });
            started.push(k);
        }
        for k in started.into_iter().rev() {
            queue.remove(k);
        }
    }
    outcome
        .into_iter()
        .map(|o| o.expect("every job starts"))
        .collect()
}

fn workload() -> impl Strategy<Value = Vec<Job>> {
    prop::collection::vec((0i64..3000, 1i64..800, -100i64..800, 1u64..=PROCS), 1..60).prop_map(
        |raw| {
            let mut jobs: Vec<Job> = raw
                .into_iter()
                .enumerate()
                .map(|(i, (submit, runtime, slack, procs))| {
                    // Negative slack: the job is killed at its limit.
                    let wcl = (runtime + slack).max(1);
                    Job::synthetic(i as u64 + 1, submit, runtime, wcl, procs)
                })
                .collect();
            jobs.sort_by_key(|j| (j.submit, j.id));
            jobs
        },
    )
}

fn engine_schedule(jobs: &[Job], backfill: BackfillPolicy) -> Vec<RefOutcome> {
    let policy = PolicyConfig {
        // Lifka's EASY is the research reading; Maui's priority pass goes on after the
        // reservation and its backfill walks windows.
        semantics: Semantics::ResearchEasy,
        ..PolicyConfig::with_backfill(backfill, 1)
    };
    let options = EngineOptions {
        order: EventOrder::PerInstant,
        poll_interval: 0,
        max_overrun: Some(0),
        check: true,
        ..EngineOptions::default()
    };
    let (outcomes, _) = simulate(jobs, machine_of(PROCS), policy, options).unwrap();
    outcomes
        .iter()
        .map(|o| RefOutcome {
            start: o.start,
            backfilled: o.backfilled,
        })
        .collect()
}

fn as_reference(jobs: &[Job]) -> Vec<RefJob> {
    jobs.iter()
        .map(|j| RefJob {
            submit: j.submit,
            run: j.runtime.min(j.wcl),
            wcl: j.wcl,
            procs: j.procs,
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10000))]

    #[test]
    fn easy_matches_the_reference(jobs in workload()) {
        let expected = reference(&as_reference(&jobs), true);
        prop_assert_eq!(engine_schedule(&jobs, BackfillPolicy::FirstFit), expected);
    }

    #[test]
    fn fcfs_matches_the_reference(jobs in workload()) {
        let expected = reference(&as_reference(&jobs), false);
        prop_assert_eq!(engine_schedule(&jobs, BackfillPolicy::None), expected);
    }
}

/// The reference itself, on a case worked by hand (16 processors).
#[test]
fn the_reference_backfills_by_the_book() {
    let job = |submit, run, wcl, procs| RefJob {
        submit,
        run,
        wcl,
        procs,
    };
    let jobs = [
        job(0, 100, 100, 12), // runs 0..100
        job(1, 50, 50, 8),    // waits for job 0: shadow time 100
        job(2, 10, 10, 4),    // fits in the 4 free processors and ends by 100: backfilled
        job(3, 500, 500, 4),  // no processor free now (4 + 12 taken): waits
    ];
    let out = reference(&jobs, true);
    let starts: Vec<(i64, bool)> = out.iter().map(|o| (o.start, o.backfilled)).collect();
    // Job 3 arrives at 3 when job 2 holds the free processors; at 12 (job 2 ended) it may
    // use the extra processors (16 - 8 at the shadow time 100): backfilled at 12.
    assert_eq!(
        starts,
        vec![(0, false), (100, false), (2, true), (12, true)]
    );
    let fcfs = reference(&jobs, false);
    let starts: Vec<i64> = fcfs.iter().map(|o| o.start).collect();
    // Strictly in order: 2 and 3 wait behind 1, and all three fit at 100.
    assert_eq!(starts, vec![0, 100, 100, 100]);
}
