//! Differential test of parking: jobs a hard active limit blocks are set aside until
//! their credentials' usage moves, their blocks counted and their queue time restarted
//! without visiting them. Every schedule must equal the one that judges every job in every
//! iteration: start, end, backfill flag, reservations, bypass counts, the jobs held at the
//! end and the count of blocks by kind of limit alike.

mod common;

use mauisim_core::{CredKind, Level};
use mauisim_sim::engine::{
    machine_of, simulate, simulate_until, EngineOptions, EventOrder, Outcome, RunStats,
};
use mauisim_sim::params::credentials::Names;
use mauisim_sim::trace::workload::Job;
use proptest::prelude::*;

const PROCS: u64 = 16;

/// Jobs with three users, two groups and two classes (the class from the id).
fn with_creds(config: &str, jobs: &[Job]) -> (Vec<Job>, mauisim_core::PolicyConfig) {
    let mut jobs = jobs.to_vec();
    let mut names = Names::default();
    for job in &mut jobs {
        let creds = [
            (CredKind::User, format!("u{}", job.id % 3)),
            (CredKind::Group, format!("g{}", job.id % 2)),
            (CredKind::Class, format!("c{}", job.id % 5 / 3)),
        ];
        for (kind, name) in creds {
            job.creds.set(kind, names.intern(kind, &name));
        }
    }
    let policy = common::resolve(config, &mut jobs, &mut names);
    (jobs, policy)
}

fn engine(order: EventOrder, exhaustive: bool) -> EngineOptions {
    EngineOptions {
        exhaustive_limits: exhaustive,
        check: true,
        record_reservations: true,
        ..common::options(order)
    }
}

fn run(
    config: &str,
    jobs: &[Job],
    order: EventOrder,
    exhaustive: bool,
) -> (Vec<Outcome>, RunStats) {
    let (jobs, policy) = with_creds(config, jobs);
    simulate(&jobs, machine_of(PROCS), policy, engine(order, exhaustive)).expect("runs")
}

/// Jobs of every size in bursts, so that users pile up behind their limits.
fn workload() -> impl Strategy<Value = Vec<Job>> {
    prop::collection::vec((0i64..2000, 1i64..900, 0i64..900, 1u64..=PROCS), 2..70)
        .prop_map(common::synthetic_jobs)
}

/// A maui.cfg with limits of every owner (user DEFAULT and own, group, class, class per
/// user, system, a QOS override), on parkable metrics and on outstanding time, soft and
/// hard, idle limits beside them (a soft one too), each accrual policy, priorities that move with queue
/// time, and preemption (requeued jobs re-enter the queue in its middle).
fn config() -> impl Strategy<Value = String> {
    (
        (0u32..4, 1u32..5, 2u32..20, 0u32..3),
        (0u32..3, 0u32..3, 0u32..3, 0u32..3),
        (0usize..3, 0usize..3, 0u32..200, 0u32..3, 0usize..3),
    )
        .prop_map(
            |(
                (user_jobs, soft_jobs, user_procs, idle),
                (own, group, class, system),
                (accrual, backfill, xfactor, spv, preemption),
            )| {
                let accrual = ["QUEUEPOLICY", "ALWAYS", "FULLPOLICY"][accrual];
                let backfill = ["FIRSTFIT", "BESTFIT", "NONE"][backfill];
                let mut cfg = format!(
                    "JOBPRIOACCRUALPOLICY {accrual}\nBACKFILLPOLICY {backfill}\n\
                     QUEUETIMEWEIGHT 1\nXFACTORWEIGHT {xfactor}\nSPVIOLATIONWEIGHT {}\n\
                     RESERVATIONDEPTH 2\n",
                    spv * 100
                );
                let mut user = String::new();
                if user_jobs > 0 {
                    let soft = soft_jobs.min(user_jobs);
                    user.push_str(&format!(" MAXJOB={soft},{user_jobs}"));
                }
                user.push_str(&format!(" MAXPROC={}", user_procs.min(PROCS as u32)));
                match idle {
                    1 => user.push_str(" MAXIJOB=2"),
                    2 => user.push_str(" MAXIJOB=1,3"),
                    _ => {}
                }
                cfg.push_str(&format!("USERCFG[DEFAULT]{user}\n"));
                match own {
                    1 => cfg.push_str("USERCFG[u1] MAXJOB=1 MAXNODE=6\n"),
                    2 => cfg.push_str("USERCFG[u2] MAXPS=20000\n"),
                    _ => {}
                }
                match group {
                    1 => cfg.push_str("GROUPCFG[g0] MAXPROC=10\n"),
                    2 => cfg.push_str("GROUPCFG[DEFAULT] MAXJOB=3\nGROUPCFG[g1] QDEF=fast\n"),
                    _ => {}
                }
                match class {
                    1 => cfg.push_str("CLASSCFG[c1] MAXJOB=2\n"),
                    2 => cfg.push_str("CLASSCFG[c0] MAXJOB[USER]=1\n"),
                    _ => {}
                }
                match system {
                    1 => cfg.push_str("SYSTEMCFG MAXJOB=5\n"),
                    2 => cfg.push_str("SYSTEMCFG MAXPROC=12,14\n"),
                    _ => {}
                }
                cfg.push_str("QOSCFG[fast] OMAXJOB=4\n");
                if preemption > 0 {
                    let policy = ["REQUEUE", "SUSPEND"][preemption - 1];
                    cfg.push_str(&format!(
                        "PREEMPTPOLICY {policy}\nQOSWEIGHT 1\n\
                         CLASSCFG[c0] QDEF=low\nCLASSCFG[c1] QDEF=high\n\
                         QOSCFG[low] QFLAGS=PREEMPTEE\n\
                         QOSCFG[high] QFLAGS=PREEMPTOR PRIORITY=1000\n"
                    ));
                }
                cfg
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn parking_schedules_as_judging_every_job(
        jobs in workload(),
        cfg in config(),
        per_event: bool,
    ) {
        let order = if per_event { EventOrder::PerEvent } else { EventOrder::PerInstant };
        let (parked, parked_stats) = run(&cfg, &jobs, order, false);
        let (judged, judged_stats) = run(&cfg, &jobs, order, true);
        prop_assert_eq!(judged_stats.parkings, 0);
        prop_assert_eq!(parked, judged, "config:\n{}", cfg);
        prop_assert_eq!(parked_stats.limit_blocks, judged_stats.limit_blocks, "config:\n{}", cfg);
        prop_assert_eq!(parked_stats.held, judged_stats.held);
        prop_assert_eq!(parked_stats.reservations, judged_stats.reservations);
        prop_assert_eq!(parked_stats.iterations, judged_stats.iterations);
    }

    /// Maui 3.3.1's selection spares the soft-level check of a job a hard active limit
    /// blocks (it is over the soft one too, and takes no soft idle slot): the schedule,
    /// the blocks by kind, the held jobs and the reservations are those of judging every
    /// job at both levels.
    #[test]
    fn maui_selection_schedules_as_judging_every_level(
        jobs in workload(),
        cfg in config(),
        per_event: bool,
    ) {
        let order = if per_event { EventOrder::PerEvent } else { EventOrder::PerInstant };
        let (jobs, mut policy) = with_creds(&cfg, &jobs);
        policy.semantics = mauisim_core::Semantics::Maui;
        let run = |exhaustive| {
            simulate(&jobs, machine_of(PROCS), policy.clone(), engine(order, exhaustive))
                .expect("runs")
        };
        let ((spared, spared_stats), (judged, judged_stats)) = (run(false), run(true));
        prop_assert_eq!(spared, judged, "config:\n{}", cfg);
        prop_assert_eq!(spared_stats.limit_blocks, judged_stats.limit_blocks, "config:\n{}", cfg);
        prop_assert_eq!(spared_stats.held, judged_stats.held);
        prop_assert_eq!(spared_stats.reservations, judged_stats.reservations);
    }

    /// What `inspect` sees in the middle of a run, parked jobs too: the priority order,
    /// each job's standing against the limits and its priority (under both readings).
    #[test]
    fn a_snapshot_sees_parked_jobs_as_judged(
        jobs in workload(),
        cfg in config(),
        at in 0i64..2500,
        maui: bool,
    ) {
        let (jobs, mut policy) = with_creds(&cfg, &jobs);
        if maui {
            policy.semantics = mauisim_core::Semantics::Maui;
        }
        let look = |exhaustive| {
            let options = engine(EventOrder::PerInstant, exhaustive);
            let mut snap = simulate_until(&jobs, machine_of(PROCS), policy.clone(), options, at);
            let order = snap.scheduler.priority_order(snap.now, &mut snap.queue);
            let priorities: Vec<i64> = snap
                .queue
                .iter()
                .map(|q| snap.scheduler.breakdown(q, snap.now).priority)
                .collect();
            let verdicts = snap.scheduler.explain(snap.now, &mut snap.queue);
            let starts: Vec<_> = snap.queue.iter().map(|q| q.eff_queue_start).collect();
            (order, priorities, verdicts, starts)
        };
        prop_assert_eq!(look(false), look(true), "config:\n{}", cfg);
    }
}

/// Parking does run (the properties above would hold vacuously otherwise): one user's
/// long queue behind MAXJOB and MAXPROC, with queue time restarting while blocked.
#[test]
fn parking_runs_and_agrees_on_a_long_queue() {
    let jobs: Vec<Job> = (0..300u64)
        .map(|i| {
            let procs = [1, 4, 2, 8, 3][i as usize % 5];
            let runtime = 60 + (i * 397) % 1200;
            Job::synthetic(
                i + 1,
                (i as i64) * 5,
                runtime as i64,
                2 * runtime as i64,
                procs,
            )
        })
        .collect();
    let cfg = "USERCFG[DEFAULT] MAXJOB=2,3 MAXPROC=6,8 MAXIJOB=2\nXFACTORWEIGHT 10\n\
               QUEUETIMEWEIGHT 1\n";
    for order in [EventOrder::PerInstant, EventOrder::PerEvent] {
        let (parked, stats) = run(cfg, &jobs, order, false);
        let (judged, judged_stats) = run(cfg, &jobs, order, true);
        assert!(
            stats.parkings > 100,
            "{} parkings in {} iterations",
            stats.parkings,
            stats.iterations
        );
        assert_eq!(parked, judged);
        assert_eq!(stats.limit_blocks, judged_stats.limit_blocks);
        let hard: u64 = stats
            .limit_blocks
            .iter()
            .filter(|(k, _)| k.level == Level::Hard)
            .map(|(_, n)| n)
            .sum();
        assert!(hard > stats.parkings, "blocks counted while parked");
    }
}

/// Under Maui 3.3.1's selection too (each job judged against the running jobs ranked above
/// it): parking runs and the schedule, the blocks and their kinds are those of judging every
/// job, in both event orders, with priorities that move with queue time and with the
/// queue time 3.3.1 freezes at a job's last selection.
#[test]
fn maui_parking_runs_and_agrees_on_a_long_queue() {
    let jobs: Vec<Job> = (0..300u64)
        .map(|i| {
            let procs = [1, 4, 2, 8, 3][i as usize % 5];
            let runtime = 60 + (i * 397) % 1200;
            // Bursts with quiet spells between them: gaps of every length.
            let submit = (i as i64) * 5 + (i as i64 / 40) * 4000;
            Job::synthetic(i + 1, submit, runtime as i64, 2 * runtime as i64, procs)
        })
        .collect();
    let cfg = "USERCFG[DEFAULT] MAXJOB=2,3 MAXPROC=6,8 MAXIJOB=2\nXFACTORWEIGHT 10\n\
               QUEUETIMEWEIGHT 1\n";
    let (jobs, mut policy) = with_creds(cfg, &jobs);
    policy.semantics = mauisim_core::Semantics::Maui;
    for order in [EventOrder::PerInstant, EventOrder::PerEvent] {
        let run = |exhaustive| {
            simulate(
                &jobs,
                machine_of(PROCS),
                policy.clone(),
                engine(order, exhaustive),
            )
            .expect("runs")
        };
        let ((parked, stats), (judged, judged_stats)) = (run(false), run(true));
        assert!(
            stats.parkings > 100,
            "{} parkings in {} iterations",
            stats.parkings,
            stats.iterations
        );
        assert_eq!(judged_stats.parkings, 0);
        assert_eq!(parked, judged);
        assert_eq!(stats.limit_blocks, judged_stats.limit_blocks);
        assert_eq!(stats.reservations, judged_stats.reservations);
    }
}

/// Preemption beside parking: preempted jobs re-enter the queue in its middle (REQUEUE) or
/// wait suspended, and the priority order rebuilds its keys around the parked jobs.
#[test]
fn parking_agrees_where_preemption_requeues_jobs() {
    let jobs: Vec<Job> = (0..240u64)
        .map(|i| {
            let procs = [2, 4, 1, 8, 3][i as usize % 5];
            let runtime = 120 + (i * 211) % 900;
            Job::synthetic(
                i + 1,
                (i as i64) * 7,
                runtime as i64,
                runtime as i64 + 60,
                procs,
            )
        })
        .collect();
    for policy in ["REQUEUE", "SUSPEND"] {
        let cfg = format!(
            "USERCFG[DEFAULT] MAXJOB=2,3 MAXPROC=8,10\nXFACTORWEIGHT 10\nQUEUETIMEWEIGHT 1\n\
             PREEMPTPOLICY {policy}\nQOSWEIGHT 1\nCLASSCFG[c0] QDEF=low\n\
             CLASSCFG[c1] QDEF=high\nQOSCFG[low] QFLAGS=PREEMPTEE\n\
             QOSCFG[high] QFLAGS=PREEMPTOR PRIORITY=1000\n"
        );
        for order in [EventOrder::PerInstant, EventOrder::PerEvent] {
            let (parked, stats) = run(&cfg, &jobs, order, false);
            let (judged, judged_stats) = run(&cfg, &jobs, order, true);
            let preempted: u32 = parked.iter().map(|o| o.preemptions).sum();
            assert!(
                preempted > 0 && stats.parkings > 0,
                "{policy}: nothing to compare"
            );
            assert_eq!(parked, judged, "{policy}");
            assert_eq!(stats.limit_blocks, judged_stats.limit_blocks, "{policy}");
        }
    }
}

/// Jobs submitted together keep their trace order, and their ids need not rise with it
/// (CONSTANTJOBDEPTH submits them at the clock's instant): the queue is then not in
/// `(submit, id)` order, and parked jobs are found again through their index.
#[test]
fn parking_agrees_on_a_queue_out_of_id_order() {
    let jobs: Vec<Job> = (0..200u64)
        .map(|i| {
            let procs = [1, 4, 2, 8, 3][i as usize % 5];
            let runtime = 60 + (i * 397) % 1200;
            Job::synthetic(
                500 - i,
                (i as i64) * 5,
                runtime as i64,
                runtime as i64 * 2,
                procs,
            )
        })
        .collect();
    let cfg = "USERCFG[DEFAULT] MAXJOB=2,3 MAXPROC=6,8\nXFACTORWEIGHT 10\nQUEUETIMEWEIGHT 1\n";
    let (jobs, policy) = with_creds(cfg, &jobs);
    for order in [EventOrder::PerInstant, EventOrder::PerEvent] {
        let run = |exhaustive| {
            let options = EngineOptions {
                submission: mauisim_sim::params::Submission::ConstantJobs { depth: 40 },
                ..engine(order, exhaustive)
            };
            simulate(&jobs, machine_of(PROCS), policy.clone(), options).expect("runs")
        };
        let ((parked, stats), (judged, judged_stats)) = (run(false), run(true));
        assert!(stats.parkings > 100, "{} parkings", stats.parkings);
        assert_eq!(parked, judged);
        assert_eq!(stats.limit_blocks, judged_stats.limit_blocks);
    }
}
