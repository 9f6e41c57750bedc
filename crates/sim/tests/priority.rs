//! Job priority end to end: credentials from a maui.cfg, system priority, BYPASS, and
//! the guide's golf-balls-and-sand claim (5.1.2 RES component).

mod common;

use common::{options, HOUR};
use mauisim_core::CredKind;
use mauisim_sim::engine::{machine_of, simulate, EngineOptions, EventOrder, Outcome};
use mauisim_sim::metrics;
use mauisim_sim::params::credentials::Names;
use mauisim_sim::trace::workload::Job;

/// Runs `jobs` under `config`, giving job i the user `users[i]`, in both trigger modes,
/// which must agree on the starts.
fn run_with(config: &str, jobs: &mut [Job], users: &[&str], procs: u64) -> Vec<Outcome> {
    let a = run_in(config, jobs, users, procs, EventOrder::PerInstant);
    let b = run_in(config, jobs, users, procs, EventOrder::PerEvent);
    // Reservations are made at different iterations, so only the starts must agree.
    assert!(
        starts(&a) == starts(&b),
        "per-instant and per-event starts differ"
    );
    a
}

fn run_in(
    config: &str,
    jobs: &mut [Job],
    users: &[&str],
    procs: u64,
    order: EventOrder,
) -> Vec<Outcome> {
    let mut names = Names::default();
    for (job, user) in jobs.iter_mut().zip(users) {
        job.creds
            .set(CredKind::User, names.intern(CredKind::User, user));
    }
    let policy = common::resolve(config, jobs, &mut names);
    simulate(jobs, machine_of(procs), policy, options(order))
        .unwrap()
        .0
}

fn starts(outcomes: &[Outcome]) -> Vec<i64> {
    outcomes.iter().map(|o| o.start).collect()
}

/// One processor, busy for an hour; three users' jobs wait. USERCFG PRIORITY orders
/// them (the DEFAULT object covers the user without one), against submit order.
#[test]
fn user_priorities_order_the_queue() {
    let mut jobs = vec![
        Job::synthetic(1, 0, HOUR, HOUR, 1),
        Job::synthetic(2, 10, HOUR, HOUR, 1),
        Job::synthetic(3, 20, HOUR, HOUR, 1),
        Job::synthetic(4, 30, HOUR, HOUR, 1),
    ];
    let config = "QUEUETIMEWEIGHT 0\nUSERWEIGHT 1\n\
                  USERCFG[ann] PRIORITY=10\nUSERCFG[cid] PRIORITY=30\nUSERCFG[DEFAULT] PRIORITY=20\n";
    let o = run_with(config, &mut jobs, &["x", "ann", "bob", "cid"], 1);
    // cid (30) first, then bob (DEFAULT 20), then ann (10).
    assert_eq!(starts(&o), [0, 3 * HOUR, 2 * HOUR, HOUR]);
    // With queue time alone the order is submit order.
    let o = run_with("", &mut jobs, &["x", "ann", "bob", "cid"], 1);
    assert_eq!(starts(&o), [0, HOUR, 2 * HOUR, 3 * HOUR]);
}

/// A QOS with QTWEIGHT reaches the job through a user's QDEF.
#[test]
fn qos_queue_time_weight_favours_its_jobs() {
    let mut jobs = vec![
        Job::synthetic(1, 0, HOUR, HOUR, 1),
        Job::synthetic(2, 60, HOUR, HOUR, 1),
        Job::synthetic(3, 120, HOUR, HOUR, 1),
    ];
    // ann's job waits longer, but bob's QOS multiplies queue time by 1 + 5000.
    let config = "QOSCFG[fast] QTWEIGHT=5000\nUSERCFG[bob] QDEF=fast\n";
    let o = run_with(config, &mut jobs, &["x", "ann", "bob"], 1);
    assert_eq!(starts(&o), [0, 2 * HOUR, HOUR]);
}

/// An admin system priority beats any computed priority.
#[test]
fn system_priority_jumps_the_queue() {
    let mut jobs = vec![
        Job::synthetic(1, 0, HOUR, HOUR, 1),
        Job::synthetic(2, 10, HOUR, HOUR, 1),
        Job::synthetic(3, 20, HOUR, HOUR, 1),
    ];
    jobs[2].extras_mut().system_priority = 1;
    let o = run_with("", &mut jobs, &["x", "y", "z"], 1);
    assert_eq!(starts(&o), [0, 2 * HOUR, HOUR]);
}

/// BYPASS counts backfill-phase starts only (MAUI-SEMANTICS §1). Three processors; A
/// holds two until 4 h. At 1 h, B (3 procs) is reserved at 4 h, D (2 procs) is blocked
/// with no reservation left, so the priority pass ends; C (1 proc, 1 h) is backfilled,
/// bypassing B and D once each.
#[test]
fn bypass_counts_jobs_passed_by_backfill() {
    let mut jobs = vec![
        Job::synthetic(1, 0, 4 * HOUR, 4 * HOUR, 2),
        Job::synthetic(2, HOUR, HOUR, HOUR, 3),
        Job::synthetic(3, HOUR, HOUR, HOUR, 2),
        Job::synthetic(4, HOUR, HOUR, HOUR, 1),
    ];
    let o = run_with("", &mut jobs, &["a", "b", "d", "c"], 3);
    assert_eq!(starts(&o), [0, 4 * HOUR, 5 * HOUR, HOUR]);
    let bypass: Vec<u32> = o.iter().map(|o| o.bypass).collect();
    assert_eq!(bypass, [0, 1, 1, 0]);
    // BYPASSWEIGHT makes a bypassed job win a tie it would otherwise lose: here D and B
    // have equal queue time and only B could be ahead anyway, so the schedule stands.
    let o = run_with("BYPASSWEIGHT 100\n", &mut jobs, &["a", "b", "d", "c"], 3);
    assert_eq!(starts(&o), [0, 4 * HOUR, 5 * HOUR, HOUR]);
}

const JOBS: u64 = 60;
const WIDE: (u64, u64) = (5, 4);

/// A small deterministic generator, so the workload is fixed without a dependency.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, bound: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % bound
    }
}

/// Golf balls (5–8 processors, 1–4 h) and sand (1–2 processors, 10–60 min), all queued
/// at once on 16 processors: the cup is filled once, and utilization is the work over the
/// time it takes. (Balls wider than half the machine cannot run side by side, so their
/// total runtime fixes the makespan whatever the order: no room for the effect.)
fn golf_balls_and_sand(seed: u64) -> Vec<Job> {
    let mut rng = Lcg(seed);
    (1..=JOBS)
        .map(|id| {
            let submit = 0;
            let wide = rng.next(10) < 3;
            let procs = if wide {
                WIDE.0 + rng.next(WIDE.1)
            } else {
                1 + rng.next(2)
            };
            let runtime = if wide {
                HOUR + rng.next(3 * HOUR as u64) as i64
            } else {
                600 + rng.next(3000) as i64
            };
            Job::synthetic(id, submit, runtime, runtime, procs)
        })
        .collect()
}

/// Guide 5.1.2: "system utilization actually increases as large resource jobs are pushed
/// to the front of the queue". Weighting processors (RES/PROC) against FCFS, on several
/// seeds: utilization goes up on every one. The size of the gain is measured, not fixed.
#[test]
fn resource_priority_raises_utilization_over_fcfs() {
    let users: Vec<&str> = vec!["u"; JOBS as usize];
    for seed in 1..=5 {
        let mut jobs = golf_balls_and_sand(seed);
        // Per-instant: the whole burst is queued before the first iteration looks at it.
        let fcfs = run_in("", &mut jobs, &users, 16, EventOrder::PerInstant);
        let golf = run_in(
            "PROCWEIGHT 1000\n",
            &mut jobs,
            &users,
            16,
            EventOrder::PerInstant,
        );
        let u_fcfs = metrics::compute(&jobs, &fcfs, 16).utilization;
        let u_golf = metrics::compute(&jobs, &golf, 16).utilization;
        eprintln!("seed {seed}: utilization FCFS {u_fcfs:.4}, PROCWEIGHT {u_golf:.4}");
        assert!(u_golf > u_fcfs, "seed {seed}: {u_golf} <= {u_fcfs}");
    }
}

/// REJECTNEGPRIOJOBS TRUE with JOBPRIOACCRUALPOLICY FULLPOLICY: a rejected job's queue time
/// starts again in every iteration (MPolicy.c sets SystemQueueTime), so, polled every
/// minute as Maui is, a priority made negative by its user alone never rises above
/// −5 + 1: the job is held, with the reason, in both semantics, while the other user's
/// job runs at once.
#[test]
fn a_job_of_negative_priority_under_full_policy_is_held() {
    let config = "REJECTNEGPRIOJOBS TRUE\nJOBPRIOACCRUALPOLICY FULLPOLICY\nUSERWEIGHT 1\n\
                  USERCFG[neg] PRIORITY=-5\n";
    // With a limit, Maui's reading selects through its own two-level selection.
    let limited = format!("{config}USERCFG[DEFAULT] MAXJOB=10\n");
    let cases = [
        (config, mauisim_core::Semantics::ResearchEasy),
        (config, mauisim_core::Semantics::Maui),
        (limited.as_str(), mauisim_core::Semantics::Maui),
    ];
    for (config, semantics) in cases {
        let mut jobs = vec![
            Job::synthetic(1, 0, HOUR, HOUR, 1),
            Job::synthetic(2, 60, HOUR, HOUR, 1),
        ];
        let mut names = Names::default();
        for (job, user) in jobs.iter_mut().zip(["neg", "ok"]) {
            job.creds
                .set(CredKind::User, names.intern(CredKind::User, user));
        }
        let mut policy = common::resolve(config, &mut jobs, &mut names);
        policy.semantics = semantics;
        let (outcomes, stats) = simulate(
            &jobs,
            machine_of(2),
            policy,
            EngineOptions {
                poll_interval: 60,
                ..options(EventOrder::PerInstant)
            },
        )
        .unwrap();
        assert_eq!(outcomes[1].start, 60, "{semantics:?}");
        assert_eq!(stats.held.len(), 1, "{semantics:?}");
        let (idx, blocked) = stats.held[0];
        assert_eq!(idx, 0);
        assert_eq!(
            mauisim_sim::params::limits::describe(&blocked, &names),
            "REJECTNEGPRIOJOBS: priority -5 < 0"
        );
    }
}
