//! Property tests: invariants of every schedule over random small workloads.

mod common;

use mauisim_core::{
    BackfillMetric, BackfillPolicy, Chunking, PolicyConfig, ReservationGroup, ReservationPolicy,
    Semantics, Sub,
};
use mauisim_sim::engine::{machine_of, simulate, EngineOptions, EventOrder, Outcome};
use mauisim_sim::trace::workload::Job;
use proptest::prelude::*;

const PROCS: u64 = 8;

fn workload() -> impl Strategy<Value = Vec<Job>> {
    prop::collection::vec((0i64..400, 1i64..300, 0i64..200, 1u64..=PROCS), 1..40)
        .prop_map(common::synthetic_jobs)
}

fn backfill_policy() -> impl Strategy<Value = BackfillPolicy> {
    prop_oneof![
        Just(BackfillPolicy::FirstFit),
        Just(BackfillPolicy::BestFit),
        Just(BackfillPolicy::Greedy),
        Just(BackfillPolicy::None),
    ]
}

fn options() -> impl Strategy<Value = (PolicyConfig, EngineOptions)> {
    (
        (backfill_policy(), 0u32..4, 0usize..6, 0u32..3, 0u64..50),
        (
            prop_oneof![
                Just(ReservationPolicy::CurrentHighest),
                Just(ReservationPolicy::Highest),
                Just(ReservationPolicy::Never),
            ],
            prop_oneof![Just((0u64, 0i64)), (1u64..=PROCS, 1i64..200)],
        ),
        prop_oneof![Just(EventOrder::PerInstant), Just(EventOrder::PerEvent)],
        prop_oneof![Just(0i64), Just(7), Just(60)],
        prop::sample::select(Semantics::ALL.to_vec()),
    )
        .prop_map(
            |(
                (backfill, depth, metric, bf_depth, schedules),
                (reservations, chunk),
                order,
                poll,
                semantics,
            )| {
                (
                    PolicyConfig {
                        backfill,
                        backfill_metric: BackfillMetric::ALL[metric],
                        backfill_depth: bf_depth,
                        backfill_max_schedules: schedules,
                        chunking: Chunking {
                            size: chunk.0,
                            duration: chunk.1,
                        },
                        reservation_policy: reservations,
                        reservation_groups: vec![ReservationGroup::all(depth)],
                        semantics,
                        ..PolicyConfig::default()
                    },
                    EngineOptions {
                        order,
                        poll_interval: poll,
                        max_overrun: Some(0),
                        check: true,
                        ..EngineOptions::default()
                    },
                )
            },
        )
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
        let (outcomes, _) = simulate(&jobs, machine_of(PROCS), policy, engine).unwrap();
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

    /// With exact estimates, a reservation is a promise: under priority by queue time
    /// (CURRENTHIGHEST) or with reservations kept (HIGHEST, here with priorities that
    /// reorder the queue), backfill never makes a reserved job start later than any
    /// reservation it was given, and it starts exactly at the last one, whatever the
    /// backfill policy. A promise of the research reading: Maui's queue time, one selection
    /// stale, can reorder the queue under CURRENTHIGHEST.
    #[test]
    fn exact_estimates_keep_reservations(
        jobs in workload(),
        depth in 1u32..4,
        backfill in prop_oneof![
            Just(BackfillPolicy::FirstFit),
            Just(BackfillPolicy::BestFit),
            Just(BackfillPolicy::Greedy),
        ],
        metric in 0usize..6,
        keep in any::<bool>(),
        per_event in any::<bool>(),
    ) {
        let jobs: Vec<Job> = jobs
            .into_iter()
            .map(|j| Job::synthetic(j.id, j.submit, j.runtime, j.runtime, j.procs))
            .collect();
        let mut policy = PolicyConfig {
            backfill_metric: BackfillMetric::ALL[metric],
            semantics: Semantics::ResearchEasy,
            ..PolicyConfig::with_backfill(backfill, depth)
        };
        if keep {
            policy.reservation_policy = ReservationPolicy::Highest;
            policy.priority.weight[Sub::XFactor as usize] = 1000.0;
        }
        let order = if per_event { EventOrder::PerEvent } else { EventOrder::PerInstant };
        let engine = EngineOptions { order, record_reservations: true, check: true, ..EngineOptions::default() };
        let (outcomes, stats) = simulate(&jobs, machine_of(PROCS), policy, engine).unwrap();
        let mut last: Vec<Option<i64>> = vec![None; jobs.len()];
        for &(_, i, promised) in &stats.reservations {
            prop_assert!(outcomes[i].start <= promised, "job {} promised {} started {}", jobs[i].id, promised, outcomes[i].start);
            last[i] = Some(promised);
        }
        for (i, o) in outcomes.iter().enumerate() {
            if let Some(promised) = last[i] {
                prop_assert_eq!(o.start, promised, "job {} starts at its last reservation", jobs[i].id);
            }
            prop_assert_eq!(o.first_reservation().is_some(), last[i].is_some());
        }
    }

    /// Strict priority: under NONE with priority by queue time, jobs start in FCFS order.
    #[test]
    fn none_starts_in_priority_order(jobs in workload()) {
        let policy = PolicyConfig { backfill: BackfillPolicy::None, ..PolicyConfig::default() };
        let engine = EngineOptions { order: EventOrder::PerInstant, poll_interval: 0, max_overrun: Some(0), ..EngineOptions::default() };
        let (outcomes, _) = simulate(&jobs, machine_of(PROCS), policy, engine).unwrap();
        for w in outcomes.windows(2) {
            prop_assert!(w[0].start <= w[1].start);
        }
    }
}
