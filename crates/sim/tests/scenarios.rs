//! Hand-worked scenarios: every start time is asserted, in every trigger mode that
//! should agree.

use mauisim_core::{BackfillPolicy, PolicyConfig, ReservationGroup};
use mauisim_sim::engine::{machine_of, simulate, EngineOptions, EventOrder, Outcome};
use mauisim_sim::trace::workload::Job;

const HOUR: i64 = 3600;

fn run(jobs: &[Job], procs: u64, policy: PolicyConfig, order: EventOrder) -> Vec<Outcome> {
    let options = EngineOptions {
        order,
        poll_interval: 0,
        max_overrun: Some(0),
        ..EngineOptions::default()
    };
    simulate(jobs, machine_of(procs), policy, options)
        .expect("simulates")
        .0
}

fn starts(outcomes: &[Outcome]) -> Vec<i64> {
    outcomes.iter().map(|o| o.start).collect()
}

fn policy(backfill: BackfillPolicy, depth: u32) -> PolicyConfig {
    PolicyConfig {
        backfill,
        reservation_groups: vec![ReservationGroup::all(depth)],
        ..PolicyConfig::default()
    }
}

const BOTH: [EventOrder; 2] = [EventOrder::PerInstant, EventOrder::PerEvent];

/// The guide's "post-game show" (8.2.1) on 2 processors. A (1 proc, 4 h limit) runs for
/// 2 h; one hour after A starts, B (2 procs, 1 h, highest priority) and C (1 proc, 2 h)
/// arrive. B is reserved at A's limit (4 h); C fits before that and is backfilled at once
/// (1 h). When A ends early (2 h), B's reservation slides to C's end (3 h): B starts at
/// 3 h. Without backfill C waits, B starts when A ends (2 h) and C after B (3 h).
#[test]
fn post_game_show() {
    let jobs = [
        Job::synthetic(1, 0, 2 * HOUR, 4 * HOUR, 1),
        Job::synthetic(2, HOUR, HOUR, HOUR, 2),
        Job::synthetic(3, HOUR, 2 * HOUR, 2 * HOUR, 1),
    ];
    for order in BOTH {
        let o = run(&jobs, 2, policy(BackfillPolicy::FirstFit, 1), order);
        assert_eq!(starts(&o), vec![0, 3 * HOUR, HOUR], "{order:?}");
        assert!(o[2].backfilled && !o[1].backfilled && !o[0].backfilled);
        assert_eq!(
            o[1].first_reservation(),
            Some(4 * HOUR),
            "B was first promised A's limit"
        );
        let o = run(&jobs, 2, policy(BackfillPolicy::None, 1), order);
        assert_eq!(starts(&o), vec![0, 2 * HOUR, 3 * HOUR], "{order:?}");
        assert!(o.iter().all(|o| !o.backfilled));
    }
}

/// RESERVATIONDEPTH 1 vs 2 (guide 8.2.2): on 4 processors, R holds 3 until 100. A (3
/// procs) is reserved at 100. With depth 1, the third job C (1 proc, 1000 s) backfills
/// at once and delays the second, B (4 procs), until C ends at 1001. With depth 2 B is
/// reserved at 200, C cannot start before B ends, and B starts on time.
#[test]
fn reservation_depth_protects_the_second_job() {
    let jobs = [
        Job::synthetic(1, 0, 100, 100, 3),
        Job::synthetic(2, 1, 100, 100, 3),
        Job::synthetic(3, 1, 100, 100, 4),
        Job::synthetic(4, 1, 1000, 1000, 1),
    ];
    for order in BOTH {
        let o = run(&jobs, 4, policy(BackfillPolicy::FirstFit, 1), order);
        assert_eq!(starts(&o), vec![0, 100, 1001, 1], "depth 1, {order:?}");
        let o = run(&jobs, 4, policy(BackfillPolicy::FirstFit, 2), order);
        assert_eq!(starts(&o), vec![0, 100, 200, 300], "depth 2, {order:?}");
        assert_eq!(o[2].first_reservation(), Some(200));
        let o = run(&jobs, 4, policy(BackfillPolicy::None, 1), order);
        assert_eq!(starts(&o), vec![0, 100, 200, 300], "NONE, {order:?}");
    }
}

/// Depth 0: no reservation at all, so a stream of small jobs can pass a large one.
#[test]
fn depth_zero_lets_small_jobs_pass() {
    let jobs = [
        Job::synthetic(1, 0, 100, 100, 1),
        Job::synthetic(2, 1, 50, 50, 2),
        Job::synthetic(3, 2, 300, 300, 1),
    ];
    let o = run(
        &jobs,
        2,
        policy(BackfillPolicy::FirstFit, 0),
        EventOrder::PerInstant,
    );
    assert_eq!(starts(&o), vec![0, 302, 2]);
    let o = run(
        &jobs,
        2,
        policy(BackfillPolicy::FirstFit, 1),
        EventOrder::PerInstant,
    );
    assert_eq!(starts(&o), vec![0, 100, 150]);
}

/// A job that overruns its limit is cancelled at limit + JOBMAXOVERRUN, and the scheduler
/// plans with the overrun allowance once the limit has passed.
#[test]
fn overrun_is_cancelled_at_limit_plus_allowance() {
    let jobs = [
        Job::synthetic(1, 0, 1000, 100, 2),
        Job::synthetic(2, 10, 50, 50, 2),
    ];
    for (overrun, end, next) in [
        (Some(0), 100, 100),
        (Some(30), 130, 130),
        (None, 1000, 1000),
    ] {
        let options = EngineOptions {
            order: EventOrder::PerInstant,
            poll_interval: 0,
            max_overrun: overrun,
            ..EngineOptions::default()
        };
        let (o, _) = simulate(&jobs, machine_of(2), PolicyConfig::default(), options).unwrap();
        assert_eq!(
            (o[0].end, o[0].cancelled),
            (end, overrun.is_some()),
            "{overrun:?}"
        );
        assert_eq!(o[1].start, next, "{overrun:?}");
    }
}

/// RMPOLLINTERVAL: iterations every 60 s from the first submission; a completion at 100
/// is seen at 120.
#[test]
fn polled_iterations_see_events_at_the_next_tick() {
    let jobs = [
        Job::synthetic(1, 0, 100, 200, 2),
        Job::synthetic(2, 30, 10, 10, 2),
        Job::synthetic(3, 130, 10, 10, 1),
    ];
    let options = EngineOptions {
        order: EventOrder::PerInstant,
        poll_interval: 60,
        max_overrun: Some(0),
        ..EngineOptions::default()
    };
    let (o, _) = simulate(&jobs, machine_of(2), PolicyConfig::default(), options).unwrap();
    assert_eq!(starts(&o), vec![0, 120, 180]);
    assert_eq!(o[0].end, 100, "the job itself ended at 100");
}

/// Per-instant (Maui) and per-event (pyss) differ when a submission and a completion
/// share an instant: per-event schedules the submission first, against the plan in which
/// the ending job's processors are still busy unless its planned end has come.
#[test]
fn trigger_modes_differ_on_simultaneous_events() {
    // Job 1 ends early at 50 (limit 100). Job 2 (2 procs) and job 3 (1 proc, 40 s) arrive
    // at 50. Per-instant sees the completion first: job 2 starts at 50, job 3 at 60.
    // Per-event handles the submissions first: job 2 does not fit (job 1 still holds a
    // processor by the plan), job 3 fits before job 2's reservation at 100 and is
    // backfilled; the completion's pass then finds job 2 blocked until job 3 ends at 90.
    let jobs = [
        Job::synthetic(1, 0, 50, 100, 1),
        Job::synthetic(2, 50, 10, 10, 2),
        Job::synthetic(3, 50, 40, 40, 1),
    ];
    let o = run(&jobs, 2, PolicyConfig::default(), EventOrder::PerInstant);
    assert_eq!(starts(&o), vec![0, 50, 60]);
    let o = run(&jobs, 2, PolicyConfig::default(), EventOrder::PerEvent);
    assert_eq!(starts(&o), vec![0, 90, 50]);
    assert!(o[2].backfilled);
}
