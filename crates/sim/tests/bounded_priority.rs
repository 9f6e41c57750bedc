//! Differential test of priority ordering from bounds: where the scheduler orders the
//! queue from bounds (only the jobs that fit and the highest of the others evaluated,
//! BYPASS settled by bounds), every schedule must equal the one that evaluates every
//! priority in every iteration, start, end, backfill flag, first reservation and bypass
//! count alike.

mod common;

use mauisim_core::CredKind;
use mauisim_sim::engine::{machine_of, simulate, EngineOptions, EventOrder, Outcome, RunStats};
use mauisim_sim::params::credentials::Names;
use mauisim_sim::trace::workload::Job;
use proptest::prelude::*;

const PROCS: u64 = 16;

fn run(
    config: &str,
    jobs: &[Job],
    order: EventOrder,
    exhaustive: bool,
) -> (Vec<Outcome>, RunStats) {
    let mut jobs = jobs.to_vec();
    let mut names = Names::default();
    for job in &mut jobs {
        let user = format!("u{}", job.id % 3);
        let group = format!("g{}", job.id % 2);
        job.creds
            .set(CredKind::User, names.intern(CredKind::User, &user));
        job.creds
            .set(CredKind::Group, names.intern(CredKind::Group, &group));
    }
    let policy = common::resolve(config, &mut jobs, &mut names);
    let options = EngineOptions {
        exhaustive_priority: exhaustive,
        check: true,
        ..common::options(order)
    };
    simulate(&jobs, machine_of(PROCS), policy, options).expect("runs")
}

/// Jobs of every size, arriving in bursts so that the queue holds both jobs that fit
/// and jobs that do not.
fn workload() -> impl Strategy<Value = Vec<Job>> {
    prop::collection::vec((0i64..3000, 1i64..900, 0i64..900, 1u64..=PROCS), 2..60)
        .prop_map(common::synthetic_jobs)
}

/// A maui.cfg with time-dependent priority (queue time, expansion factor, both targets,
/// QOS weights), BYPASS of either sign, static components, caps, and the policies the
/// bounded path serves or must leave to the full evaluation.
fn config() -> impl Strategy<Value = String> {
    (
        (0u32..20, 0u32..200, -5i32..20, 0u32..3, 0u32..3),
        (-3i32..4, 0u32..2, prop::option::of(1u32..50), 0u32..3),
        (
            0u32..4,
            prop::sample::select(vec![0usize, 0, 0, 1, 2]),
            0usize..4,
            0u32..600,
            0u32..4,
        ),
    )
        .prop_map(
            |(
                (queuetime, xfactor, bypass, target_qt, target_xf),
                (proc_weight, serv_cap, xf_cap, qos_weight),
                (depth, reservation, backfill, xfmin, limits),
            )| {
                let reservation = ["CURRENTHIGHEST", "NEVER", "HIGHEST"][reservation];
                let backfill = ["FIRSTFIT", "BESTFIT", "GREEDY", "NONE"][backfill];
                let mut cfg = format!(
                    "QUEUETIMEWEIGHT {queuetime}\nXFACTORWEIGHT {xfactor}\n\
                     BYPASSWEIGHT {bypass}\nTARGETQUEUETIMEWEIGHT {target_qt}\n\
                     TARGETXFACTORWEIGHT {target_xf}\nPROCWEIGHT {proc_weight}\n\
                     XFMINWCLIMIT {xfmin}\nRESERVATIONDEPTH {depth}\n\
                     RESERVATIONPOLICY {reservation}\nBACKFILLPOLICY {backfill}\n\
                     GROUPCFG[g1] QDEF=fast\n\
                     QOSCFG[fast] QTWEIGHT={qos_weight} XFWEIGHT={qos_weight} \
                     QTTARGET=00:20:00 XFTARGET=4\n"
                );
                if serv_cap == 1 {
                    cfg.push_str("SERVICECAP 3000\n");
                }
                if let Some(cap) = xf_cap {
                    cfg.push_str(&format!("XFACTORCAP {cap}\n"));
                }
                if limits == 0 {
                    cfg.push_str("USERCFG[u0] MAXJOB=2\n");
                }
                cfg
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn bounded_ordering_schedules_as_full_evaluation(
        jobs in workload(),
        cfg in config(),
        per_event: bool,
    ) {
        let order = if per_event { EventOrder::PerEvent } else { EventOrder::PerInstant };
        let (bounded, _) = run(&cfg, &jobs, order, false);
        let (full, stats) = run(&cfg, &jobs, order, true);
        prop_assert_eq!(stats.bounded_iterations, 0);
        prop_assert_eq!(bounded, full, "config:\n{}", cfg);
    }
}

/// The bounded path does run (the property above would hold vacuously otherwise), and
/// on a workload where the order changes all the time.
#[test]
fn bounded_ordering_runs_and_agrees_on_a_busy_queue() {
    let jobs: Vec<Job> = (0..400u64)
        .map(|i| {
            let procs = [1, 16, 3, 12, 8, 2, 15, 5][i as usize % 8];
            let runtime = 60 + (i * 397) % 1800;
            Job::synthetic(
                i + 1,
                (i as i64) * 40,
                runtime as i64,
                2 * runtime as i64,
                procs,
            )
        })
        .collect();
    let cfg = "QUEUETIMEWEIGHT 10\nXFACTORWEIGHT 100\nBYPASSWEIGHT 5\nPROCWEIGHT 2\n\
               TARGETQUEUETIMEWEIGHT 1\nTARGETXFACTORWEIGHT 1\n\
               GROUPCFG[g1] QDEF=fast\nQOSCFG[fast] QTTARGET=00:30:00 XFTARGET=6\n";
    let (bounded, stats) = run(cfg, &jobs, EventOrder::PerInstant, false);
    let (full, _) = run(cfg, &jobs, EventOrder::PerInstant, true);
    assert!(
        stats.bounded_iterations * 2 > stats.iterations,
        "{} of {} iterations bounded",
        stats.bounded_iterations,
        stats.iterations
    );
    assert!(bounded.iter().any(|o| o.backfilled) && bounded.iter().any(|o| o.bypass > 0));
    assert_eq!(bounded, full);
}
