//! Property tests: invariants of every schedule over random small workloads.

use mauisim_core::{BackfillPolicy, PolicyConfig, ReservationGroup};
use mauisim_sim::engine::{simulate, EngineOptions, EventOrder, Outcome};
use mauisim_sim::workload::Job;
use proptest::prelude::*;

const PROCS: u64 = 8;

fn workload() -> impl Strategy<Value = Vec<Job>> {
    prop::collection::vec((0i64..400, 1i64..300, 0i64..200, 1u64..=PROCS), 1..40).prop_map(|raw| {
        let mut jobs: Vec<Job> = raw
            .into_iter()
            .enumerate()
            .map(|(i, (submit, runtime, slack, procs))| {
                Job::synthetic(i as u64 + 1, submit, runtime, runtime + slack, procs)
            })
            .collect();
        jobs.sort_by_key(|j| (j.submit, j.id));
        jobs
    })
}

fn options() -> impl Strategy<Value = (PolicyConfig, EngineOptions)> {
    (
        prop_oneof![Just(BackfillPolicy::FirstFit), Just(BackfillPolicy::None)],
        0u32..4,
        prop_oneof![Just(EventOrder::PerInstant), Just(EventOrder::PerEvent)],
        prop_oneof![Just(0i64), Just(7), Just(60)],
    )
        .prop_map(|(backfill, depth, order, poll)| {
            (
                PolicyConfig {
                    backfill,
                    reservation_groups: vec![ReservationGroup::all(depth)],
                    ..PolicyConfig::default()
                },
                EngineOptions {
                    order,
                    poll_interval: poll,
                    max_overrun: Some(0),
                    record_fairshare: false,
                },
            )
        })
}

/// Processors in use never exceed the machine, counted from the outcomes alone.
fn max_in_use(jobs: &[Job], outcomes: &[Outcome]) -> u64 {
    let mut deltas: Vec<(i64, i64)> = Vec::new();
    for (j, o) in jobs.iter().zip(outcomes) {
        deltas.push((o.start, j.procs as i64));
        deltas.push((o.end, -(j.procs as i64)));
    }
    // Ends before starts at the same instant: a processor freed at t can be reused at t.
    deltas.sort_by_key(|&(t, d)| (t, d));
    let (mut used, mut peak) = (0i64, 0i64);
    for (_, d) in deltas {
        used += d;
        peak = peak.max(used);
    }
    peak as u64
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn schedules_are_feasible((jobs, (policy, engine)) in (workload(), options())) {
        let (outcomes, _) = simulate(&jobs, PROCS, policy, engine).unwrap();
        prop_assert!(max_in_use(&jobs, &outcomes) <= PROCS);
        for (j, o) in jobs.iter().zip(&outcomes) {
            prop_assert!(o.start >= j.submit, "job {} started before submission", j.id);
            prop_assert!(o.end - o.start <= j.wcl, "job {} ran past its limit", j.id);
            prop_assert_eq!(o.end - o.start, j.runtime.min(j.wcl));
            if engine.poll_interval > 0 {
                prop_assert_eq!((o.start - jobs[0].submit) % engine.poll_interval, 0);
            }
        }
    }

    /// With exact estimates and priority by queue time, a reservation is a promise:
    /// backfill never makes a reserved job start later than it was first told.
    #[test]
    fn exact_estimates_keep_reservations(jobs in workload(), depth in 1u32..4, per_event in any::<bool>()) {
        let jobs: Vec<Job> = jobs
            .into_iter()
            .map(|j| Job::synthetic(j.id, j.submit, j.runtime, j.runtime, j.procs))
            .collect();
        let policy = PolicyConfig { reservation_groups: vec![ReservationGroup::all(depth)], ..PolicyConfig::default() };
        let order = if per_event { EventOrder::PerEvent } else { EventOrder::PerInstant };
        let engine = EngineOptions { order, poll_interval: 0, max_overrun: Some(0), record_fairshare: false };
        let (outcomes, _) = simulate(&jobs, PROCS, policy, engine).unwrap();
        for (j, o) in jobs.iter().zip(&outcomes) {
            if let Some(promised) = o.first_reservation {
                prop_assert!(o.start <= promised, "job {} promised {} started {}", j.id, promised, o.start);
            }
        }
    }

    /// Strict priority: under NONE with priority by queue time, jobs start in FCFS order.
    #[test]
    fn none_starts_in_priority_order(jobs in workload()) {
        let policy = PolicyConfig { backfill: BackfillPolicy::None, ..PolicyConfig::default() };
        let engine = EngineOptions { order: EventOrder::PerInstant, poll_interval: 0, max_overrun: Some(0), record_fairshare: false };
        let (outcomes, _) = simulate(&jobs, PROCS, policy, engine).unwrap();
        for w in outcomes.windows(2) {
            prop_assert!(w[0].start <= w[1].start);
        }
    }
}
