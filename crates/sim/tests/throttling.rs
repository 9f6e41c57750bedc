//! Throttling policies end to end (guide 6.2): the guide's worked configuration, remaining
//! proc-seconds, soft and hard limits in two passes, idle limits with
//! JOBPRIOACCRUALPOLICY, per-job limits, per-credential limits. Every start is asserted.

mod common;

use common::{options, run, snapshot, starts, world, Spec, World, HOUR};
use mauisim_core::{Blocked, CredKind, Level, Metric, Owner, Scope, Semantics, Source, Verdict};
use mauisim_sim::engine::{machine_of, simulate, EventOrder};
use mauisim_sim::engine::{simulate_until, EngineOptions, Snapshot};
use mauisim_sim::params::limits;

/// The verdict on each idle job at `at`, by trace id.
fn verdicts(w: &World, procs: u64, at: i64) -> Vec<(u64, Verdict)> {
    let mut s = snapshot(w, procs, at);
    let v = s.scheduler.explain(at, &mut s.queue);
    let mut out: Vec<(u64, Verdict)> = v.into_iter().map(|(pos, v)| (s.queue[pos].id, v)).collect();
    out.sort_by_key(|(id, _)| *id);
    out
}

fn blocked_by(v: Verdict) -> Blocked {
    match v {
        Verdict::Blocked(b) | Verdict::SoftLimit(b) => b,
        Verdict::Eligible => panic!("expected a blocked job, found an eligible one"),
    }
}

/// Guide 6.2.1 and 6.2.2: the configuration of the override example.
const GUIDE: &str = "USERCFG[steve]   MAXJOB=2 MAXNODE=30 QDEF=hiprio QLIST=hiprio\n\
                     CLASSCFG[DEFAULT] MAXNODE=16\n\
                     CLASSCFG[batch]  MAXNODE=64\n\
                     GROUPCFG[staff]  MAXJOB=5\n\
                     QOSCFG[hiprio]   MAXJOB=3 OMAXNODE=64\n\
                     USERCFG[hana]    QDEF=hiprio\nUSERCFG[hugo] QDEF=hiprio\nUSERCFG[hal] QDEF=hiprio\n\
                     USERCFG[hedy]    QDEF=hiprio\n";

/// "total active jobs associated with user steve does not exceed 2": his third job waits
/// on an idle machine until one of the first two ends.
#[test]
fn guide_steve_runs_at_most_two_jobs() {
    let w = world(
        GUIDE,
        &[
            (1, 0, HOUR, 1, "steve", "staff", "batch"),
            (2, 0, 2 * HOUR, 1, "steve", "staff", "batch"),
            (3, 0, HOUR, 1, "steve", "staff", "batch"),
        ],
    );
    let (o, _) = run(&w, 200);
    assert_eq!(starts(&o), [0, 0, HOUR]);
    let v = verdicts(&w, 200, 0);
    let b = blocked_by(v[0].1);
    assert_eq!(
        (b.scope, b.metric, b.usage, b.limit),
        (Scope::Active, Metric::Job, 2, 2)
    );
    assert!(matches!(b.owner, Owner::Cred(CredKind::User, _)));
    assert_eq!(
        limits::describe(&b, &w.names),
        "user steve MAXJOB: 2 in use + 1 > 2 (own)"
    );
}

/// "total nodes used by user steve jobs do not exceed 64": hiprio's OMAXNODE=64 replaces
/// steve's MAXNODE=30, so 20 + 20 nodes run together, and a third job of 30 (which would
/// make 70) would wait even if MAXJOB allowed it. Without hiprio, 30 binds.
#[test]
fn guide_hiprio_override_replaces_steves_node_limit() {
    let specs = [
        (1, 0, HOUR, 20, "steve", "staff", "batch"),
        (2, 0, HOUR, 20, "steve", "staff", "batch"),
    ];
    let (o, _) = run(&world(GUIDE, &specs), 200);
    assert_eq!(starts(&o), [0, 0], "40 nodes <= OMAXNODE 64");
    let no_override = GUIDE.replace(" OMAXNODE=64", "");
    let w = world(&no_override, &specs);
    let (o, _) = run(&w, 200);
    assert_eq!(starts(&o), [0, HOUR], "40 nodes > steve's MAXNODE 30");
    let b = blocked_by(verdicts(&w, 200, 0)[0].1);
    assert_eq!(
        (b.metric, b.usage, b.amount, b.limit),
        (Metric::Node, 20, 20, 30)
    );
    assert_eq!(b.source, Source::Own);

    // With the override, the user limit is 64: 30 + 30 fit, a further 5 does not.
    let over = world(
        &GUIDE
            .replace("MAXJOB=2 ", "MAXJOB=4 ")
            .replace("MAXJOB=3", "MAXJOB=4"),
        &[
            (1, 0, HOUR, 30, "steve", "staff", "batch"),
            (2, 0, HOUR, 30, "steve", "staff", "batch"),
            (3, 0, HOUR, 5, "steve", "staff", "batch"),
        ],
    );
    let (o, _) = run(&over, 200);
    assert_eq!(starts(&o), [0, 0, HOUR]);
    let b = blocked_by(verdicts(&over, 200, 0)[0].1);
    assert_eq!(
        (b.metric, b.usage, b.limit, b.source),
        (Metric::Node, 60, 64, Source::QosOverride)
    );
    assert_eq!(
        limits::describe(&b, &over.names),
        "user steve OMAXNODE: 60 in use + 5 > 64 (QOS override)"
    );
}

/// "total active jobs associated with group staff does not exceed 5".
#[test]
fn guide_group_staff_runs_at_most_five_jobs() {
    let users = ["u1", "u2", "u3", "u4", "u5", "u6"];
    let specs: Vec<Spec> = users
        .iter()
        .enumerate()
        .map(|(i, u)| (i as u64 + 1, 0, HOUR, 1, *u, "staff", "batch"))
        .collect();
    let (o, _) = run(&world(GUIDE, &specs), 200);
    assert_eq!(starts(&o), [0, 0, 0, 0, 0, HOUR]);
    // Another group is not limited.
    let other: Vec<Spec> = specs
        .iter()
        .map(|s| (s.0, s.1, s.2, s.3, s.4, "other", s.6))
        .collect();
    let (o, _) = run(&world(GUIDE, &other), 200);
    assert_eq!(starts(&o), [0; 6]);
}

/// "total nodes dedicated to class batch jobs do not exceed 64", and the guide's
/// interactive example: with 14 nodes in use in a class limited to 16 by DEFAULT, a job
/// of 2 nodes starts and one of 3 waits.
#[test]
fn guide_class_node_limits() {
    let (o, _) = run(
        &world(
            GUIDE,
            &[
                (1, 0, HOUR, 40, "a", "g", "batch"),
                (2, 0, HOUR, 24, "b", "g", "batch"),
                (3, 0, HOUR, 1, "c", "g", "batch"),
            ],
        ),
        200,
    );
    assert_eq!(starts(&o), [0, 0, HOUR], "64 nodes in batch, then no more");
    let w = world(
        GUIDE,
        &[
            (1, 0, HOUR, 14, "a", "g", "interactive"),
            (2, 10, HOUR, 3, "b", "g", "interactive"),
            (3, 20, HOUR, 2, "c", "g", "interactive"),
        ],
    );
    let (o, _) = run(&w, 200);
    assert_eq!(starts(&o), [0, HOUR, 20]);
    let b = blocked_by(verdicts(&w, 200, 20)[0].1);
    assert_eq!(
        (b.metric, b.usage, b.amount, b.limit),
        (Metric::Node, 16, 3, 16)
    );
    assert_eq!(b.source, Source::Default);
}

/// "total active jobs associated with QOS hiprio does not exceed 3".
#[test]
fn guide_hiprio_runs_at_most_three_jobs() {
    let (o, _) = run(
        &world(
            GUIDE,
            &[
                (1, 0, HOUR, 1, "hana", "g", "batch"),
                (2, 0, HOUR, 1, "hugo", "g", "batch"),
                (3, 0, HOUR, 1, "hal", "g", "batch"),
                (4, 0, HOUR, 1, "hedy", "g", "batch"),
                (5, 0, HOUR, 1, "nobody", "g", "batch"),
            ],
        ),
        200,
    );
    assert_eq!(starts(&o), [0, 0, 0, HOUR, 0]);
}

/// Guide 6.2.1 MAXPS: a 4-processor job with 1 h left and a 2-processor job with 6 h left
/// hold 16 × 3600 outstanding processor-seconds, and the count shrinks as they run.
#[test]
fn maxps_counts_remaining_proc_seconds() {
    let w = world(
        "USERCFG[u] MAXPS=61200\n",
        &[
            (1, 0, HOUR, 4, "u", "", ""),
            (2, 0, 6 * HOUR, 2, "u", "", ""),
            (3, 0, 2 * HOUR, 1, "u", "", ""),
            (4, 599, 10, 1, "v", "", ""),
            (5, 600, 10, 1, "v", "", ""),
        ],
    );
    let b = blocked_by(verdicts(&w, 100, 0)[0].1);
    assert_eq!(b.usage, 16 * 3600, "the guide's 16 x 3600");
    assert_eq!((b.amount, b.limit), (7200, 61200));
    // 57600 - 6 t + 7200 <= 61200 from t = 600 on; iterations at 599 and 600 test both sides.
    let b = blocked_by(verdicts(&w, 100, 599)[0].1);
    assert_eq!(b.usage, 16 * 3600 - 6 * 599);
    let (o, _) = run(&w, 100);
    assert_eq!(starts(&o), [0, 0, 600, 599, 600]);
}

/// MAXWC counts remaining seconds the same way.
#[test]
fn maxwc_counts_remaining_seconds() {
    let w = world(
        "USERCFG[u] MAXWC=2:00:00\n",
        &[
            (1, 0, HOUR, 1, "u", "", ""),
            (2, 0, HOUR, 1, "u", "", ""),
            (3, 1800, 10, 1, "v", "", ""),
        ],
    );
    let (o, _) = run(&w, 10);
    // 3600 + 3600 > 7200 is false: both fit at once.
    assert_eq!(starts(&o), [0, 0, 1800]);
    let w = world(
        "USERCFG[u] MAXWC=1:30:00\n",
        &[
            (1, 0, HOUR, 1, "u", "", ""),
            (2, 0, HOUR, 1, "u", "", ""),
            (3, 1799, 10, 1, "v", "", ""),
            (4, 1800, 10, 1, "v", "", ""),
        ],
    );
    let (o, _) = run(&w, 10);
    // Remaining 3600 - t plus 3600 fits 5400 from t = 1800.
    assert_eq!(starts(&o), [0, 1800, 1799, 1800]);
}

/// Guide 6.2.4: with MAXJOB=2,8 a user's third job starts only on processors nobody
/// within their soft limits wants; with MAXJOB=2 it never does.
#[test]
fn soft_limits_yield_to_jobs_within_them() {
    let a_and_b = |b_jobs: u64| -> Vec<Spec<'static>> {
        let mut s: Vec<Spec> = (1..=4).map(|i| (i, 0, HOUR, 1, "a", "", "")).collect();
        s.extend((0..b_jobs).map(|i| (10 + i, 0, HOUR, 1, "b", "", "")));
        s
    };
    // a's first two start; the third takes the idle fourth processor in the hard pass.
    let w = world("USERCFG[DEFAULT] MAXJOB=2,8\n", &a_and_b(0));
    let (o, _) = run(&w, 3);
    assert_eq!(starts(&o), [0, 0, 0, HOUR]);
    assert_eq!(
        o.iter().map(|o| o.backfilled).collect::<Vec<_>>(),
        [false, false, true, false],
        "a hard-pass start is backfill"
    );
    // With b's jobs waiting within their soft limits, they come first although a's
    // third and fourth job have higher priority (same submit time, lower ids). Per
    // instant only: per event, a's jobs arrive (and start) before b's are submitted.
    let w = world("USERCFG[DEFAULT] MAXJOB=2,8\n", &a_and_b(2));
    let (o, _) = simulate(
        &w.jobs,
        machine_of(4),
        w.policy.clone(),
        options(EventOrder::PerInstant),
    )
    .unwrap();
    assert_eq!(starts(&o), [0, 0, HOUR, HOUR, 0, 0]);
    // Hard = soft = 2: the idle processor stays idle.
    let (o, _) = run(&world("USERCFG[DEFAULT] MAXJOB=2\n", &a_and_b(0)), 3);
    assert_eq!(starts(&o), [0, 0, HOUR, HOUR]);
}

/// Guide 6.2.3 and JOBPRIOACCRUALPOLICY: with MAXIJOB=1 only one of a's idle jobs is
/// eligible at a time; under QUEUEPOLICY the others' queue time starts again at every
/// iteration they are ineligible, so b, who queued later than a's second job, runs first.
#[test]
fn idle_limits_and_queue_time_accrual() {
    let specs = [
        (1, 0, HOUR, 1, "z", "", ""),
        (2, 0, HOUR, 1, "a", "", ""),
        (3, 10, HOUR, 1, "a", "", ""),
        (4, 20, HOUR, 1, "a", "", ""),
        (5, 30, HOUR, 1, "b", "", ""),
    ];
    let (o, _) = run(&world("", &specs), 1);
    assert_eq!(starts(&o), [0, HOUR, 2 * HOUR, 3 * HOUR, 4 * HOUR], "FCFS");
    let w = world("USERCFG[DEFAULT] MAXIJOB=1\n", &specs);
    let (o, stats) = run(&w, 1);
    assert_eq!(starts(&o), [0, HOUR, 3 * HOUR, 4 * HOUR, 2 * HOUR]);
    let idle_blocks: u64 = stats
        .limit_blocks
        .iter()
        .filter(|(k, _)| k.scope == Scope::Idle)
        .map(|(_, n)| n)
        .sum();
    assert!(idle_blocks > 0);
    let b = blocked_by(verdicts(&w, 1, 30)[1].1);
    assert_eq!(
        (b.scope, b.metric, b.usage, b.limit),
        (Scope::Idle, Metric::Job, 1, 1)
    );
    // ALWAYS: ineligible jobs keep their queue time; a's jobs run in submit order.
    let w = world(
        "USERCFG[DEFAULT] MAXIJOB=1\nJOBPRIOACCRUALPOLICY ALWAYS\n",
        &specs,
    );
    let (o, _) = run(&w, 1);
    assert_eq!(starts(&o), [0, HOUR, 2 * HOUR, 3 * HOUR, 4 * HOUR]);
}

/// Guide 6.2.1 System Job Limits: a job over SYSTEMMAXPROCPERJOB is held and reported,
/// the rest run; a QOS OMAXJPROC lets its jobs past the system value.
#[test]
fn per_job_limits_hold_jobs() {
    let specs = [
        (1, 0, HOUR, 3, "a", "", ""),
        (2, 0, HOUR, 2, "a", "", ""),
        (3, 0, HOUR, 3, "big", "", ""),
    ];
    let w = world(
        "SYSTEMMAXPROCPERJOB 2\nUSERCFG[big] QDEF=wide\nQOSCFG[wide] OMAXJPROC=4\n",
        &specs,
    );
    let (o, stats) = run(&w, 10);
    assert_eq!(stats.held.len(), 1);
    let (idx, b) = stats.held[0];
    assert_eq!(idx, 0);
    assert_eq!(
        (b.scope, b.metric, b.amount, b.limit),
        (Scope::PerJob, Metric::Proc, 3, 2)
    );
    assert_eq!((o[1].start, o[2].start), (0, 0));
    // Wallclock and proc-seconds per job.
    let w = world(
        "SYSTEMMAXJOBWALLTIME 1:00:00\nSYSTEMMAXPROCSECONDPERJOB 7200\n",
        &specs,
    );
    let (_, stats) = run(&w, 10);
    let held: Vec<(usize, Metric)> = stats.held.iter().map(|(i, b)| (*i, b.metric)).collect();
    assert_eq!(held, [(0, Metric::Ps), (2, Metric::Ps)]);
}

/// Maui 3.3.1's class constraints (MJob.c `MJobCheckClassJLimits`): a job of a class is
/// held as it is loaded when it asks for more walltime than the least of its class's
/// MAX.WCLIMIT (else CLASSCFG[DEFAULT]'s) and its user's and group's own, or more tasks
/// than its class's MAXPROCPERJOB; USERCFG[DEFAULT]'s is not read, and a job without a
/// class is not checked.
#[test]
fn class_maxima_hold_the_jobs_that_ask_for_more() {
    let specs = [
        (1, 0, 2 * HOUR, 1, "u1", "g", "batch"),
        (2, 0, 2 * HOUR + 1, 1, "u1", "g", "batch"),
        (3, 0, HOUR / 2, 2, "u1", "g", "debug"),
        (4, 0, HOUR / 2, 3, "u1", "g", "debug"),
        (5, 0, HOUR + 1, 1, "u2", "g", "batch"),
        (6, 0, 30 * HOUR, 1, "u2", "g", ""),
        (7, 0, HOUR, 1, "u3", "g", "batch"),
    ];
    let w = world(
        "CLASSCFG[DEFAULT] MAX.WCLIMIT=2:00:00\nCLASSCFG[debug] MAX.WCLIMIT=0:30:00 MAXPROCPERJOB=2\n\
         USERCFG[u2] MAX.WCLIMIT=1:00:00\nUSERCFG[DEFAULT] MAX.WCLIMIT=0:10:00\n",
        &specs,
    );
    let (o, stats) = run(&w, 10);
    let held: Vec<(usize, Metric, u64, u64)> = stats
        .held
        .iter()
        .map(|(i, b)| (*i, b.metric, b.amount, b.limit))
        .collect();
    assert_eq!(
        held,
        [
            (1, Metric::Wc, 2 * 3600 + 1, 2 * 3600),
            (3, Metric::Proc, 3, 2),
            (4, Metric::Wc, 3601, 3600),
        ]
    );
    for ran in [0, 2, 5, 6] {
        assert_eq!(o[ran].start, 0, "job {}", ran + 1);
    }
}

/// CLASSCFG MAXNODEPERJOB holds a job of the class asking for more nodes by count (a Maui
/// workload trace's field 2; its tasks under EXACTNODE), else CLASSCFG[DEFAULT]'s, as 3.3.1
/// checks it between MAX.WCLIMIT and MAXPROCPERJOB; on a trace where no job asks for a node
/// count it holds none, with a warning.
#[test]
fn class_max_nodes_per_job_holds_the_jobs_asking_more_nodes() {
    let dir = tempfile::tempdir().unwrap();
    // id, nodes asked, tasks, class.
    let jobs = [
        (1, 2, 2, "batch"),
        (2, 3, 3, "batch"),
        (3, 0, 4, "batch"),
        (4, 2, 2, "debug"),
        (5, 1, 1, "debug"),
    ];
    let lines: Vec<String> = jobs
        .iter()
        .map(|(id, nodes, tasks, class)| {
            format!(
                "{id} {nodes} {tasks} u1 g1 3600 Completed [{class}:1] 100 100 100 1900 [NONE] [NONE] [NONE] >= 0 >= 0 [NONE] 100 {tasks} -1 [DEFAULT] [NONE] a1 cmd [NONE] 0 0 DEFAULT 1 0 0 0 0 0 [NONE] 0 [NONE] [NONE] [NONE] [NONE] 0"
            )
        })
        .collect();
    let trace = dir.path().join("workload");
    std::fs::write(&trace, lines.join("\n") + "\n").unwrap();
    let config = dir.path().join("maui.cfg");
    let held_with = |cfg: &str| {
        std::fs::write(&config, cfg).unwrap();
        let options = mauisim_sim::RunOptions {
            config: Some(config.clone()),
            machine: mauisim_sim::trace::workload::MachineOverride {
                procs: Some(8),
                ..Default::default()
            },
            ..mauisim_sim::RunOptions::new(trace.clone())
        };
        let report = mauisim_sim::run(options).unwrap();
        let held: Vec<(u64, String)> = report
            .held
            .iter()
            .map(|(j, b)| (j.id, limits::describe(b, &report.workload.names)))
            .collect();
        (held, report.config.warnings)
    };
    let (held, warnings) =
        held_with("CLASSCFG[DEFAULT] MAXNODEPERJOB=2\nCLASSCFG[debug] MAXNODEPERJOB=1\n");
    let ids: Vec<u64> = held.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, [2, 4], "{held:?}");
    assert!(held[0].1.contains("MAXNODEPERJOB"), "{}", held[0].1);
    assert!(warnings.is_empty(), "{warnings:?}");
    // Under EXACTNODE the tasks are the nodes asked: job 3's 4 tasks break batch's 2.
    let (held, _) = held_with(
        "JOBNODEMATCHPOLICY EXACTNODE\nCLASSCFG[DEFAULT] MAXNODEPERJOB=2\nCLASSCFG[debug] MAXNODEPERJOB=1\n",
    );
    let ids: Vec<u64> = held.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, [2, 3, 4], "{held:?}");
    // MAX.WCLIMIT is checked first: job 4 is held for its walltime.
    let (held, _) = held_with("CLASSCFG[debug] MAXNODEPERJOB=1 MAX.WCLIMIT=0:30:00\n");
    assert_eq!(held.len(), 2, "{held:?}");
    assert!(
        held.iter().all(|(_, why)| why.contains("MAX.WCLIMIT")),
        "{held:?}"
    );
    // A user's MAXNODEPERJOB is not read (3.3.1 reads it nowhere).
    let (held, warnings) = held_with("USERCFG[u1] MAXNODEPERJOB=1\n");
    assert!(held.is_empty());
    assert!(
        warnings[0].contains("is ignored, as Maui 3.3.1 ignores it"),
        "{warnings:?}"
    );
}

/// On an SWF trace no job asks for a node count: MAXNODEPERJOB holds none, and says so,
/// in memory and streamed.
#[test]
fn class_max_nodes_per_job_on_an_swf_trace_is_warned_of() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("jobs.swf");
    // Queue (class) 1, 4 processors.
    std::fs::write(
        &trace,
        "; MaxProcs: 4\n1 0 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n",
    )
    .unwrap();
    let config = dir.path().join("maui.cfg");
    std::fs::write(&config, "CLASSCFG[1] MAXNODEPERJOB=1\n").unwrap();
    let options = mauisim_sim::RunOptions {
        config: Some(config.clone()),
        ..mauisim_sim::RunOptions::new(trace)
    };
    let report = mauisim_sim::run(options.clone()).unwrap();
    assert!(report.held.is_empty());
    assert_eq!(report.outcomes[0].start, 0);
    let warning = format!(
        "{}:1:13: warning: MAXNODEPERJOB holds no job here",
        config.display()
    );
    assert!(
        report
            .config
            .warnings
            .iter()
            .any(|w| w.starts_with(&warning)),
        "{:?}",
        report.config.warnings
    );
    let streamed = mauisim_sim::stream::run(&options, &dir.path().join("out")).unwrap();
    assert!(streamed.warnings.iter().any(|w| w.starts_with(&warning)));
}

/// An active limit a job can never meet (MAXPROC below its size) holds it at the end of
/// the run, named; it is not an error.
#[test]
fn a_job_over_its_users_hard_limit_is_held() {
    let w = world(
        "USERCFG[a] MAXPROC=2\n",
        &[(1, 0, HOUR, 3, "a", "", ""), (2, 0, HOUR, 2, "a", "", "")],
    );
    let (o, stats) = run(&w, 10);
    assert_eq!(o[1].start, 0);
    assert_eq!(stats.held.len(), 1);
    let (idx, b) = stats.held[0];
    assert_eq!(
        (idx, b.metric, b.level, b.limit),
        (0, Metric::Proc, Level::Hard, 2)
    );
}

/// Guide 6.2.1 multi-dimensional limits: per user within a class, for one named user,
/// and the MAXJOBPERUSER shorthand.
#[test]
fn per_credential_limits_within_a_class() {
    let specs = [
        (1, 0, HOUR, 1, "a", "", "fast"),
        (2, 0, HOUR, 1, "a", "", "fast"),
        (3, 0, HOUR, 1, "b", "", "fast"),
        (4, 0, HOUR, 1, "a", "", "slow"),
    ];
    for config in [
        "CLASSCFG[fast] MAXJOB[USER]=1\n",
        "CLASSCFG[fast] MAXJOBPERUSER=1\n",
    ] {
        let w = world(config, &specs);
        let (o, _) = run(&w, 10);
        assert_eq!(starts(&o), [0, HOUR, 0, 0], "{config}");
        let b = blocked_by(verdicts(&w, 10, 0)[0].1);
        assert!(matches!(
            b.owner,
            Owner::Pair(CredKind::Class, _, CredKind::User, _)
        ));
    }
    // Only steve is limited, to 3 processors within the class.
    let w = world(
        "CLASSCFG[fast] MAXPROC[USER:steve]=3\n",
        &[
            (1, 0, HOUR, 2, "steve", "", "fast"),
            (2, 0, HOUR, 2, "steve", "", "fast"),
            (3, 0, HOUR, 2, "bob", "", "fast"),
            (4, 0, HOUR, 2, "bob", "", "fast"),
        ],
    );
    let (o, _) = run(&w, 10);
    assert_eq!(starts(&o), [0, HOUR, 0, 0]);
    // A class DEFAULT's per-user limit applies to classes without their own.
    let (o, _) = run(&world("CLASSCFG[DEFAULT] MAXJOB[USER]=1\n", &specs), 10);
    assert_eq!(starts(&o), [0, HOUR, 0, 0]);
}

/// SYSTEMCFG limits count every job together.
#[test]
fn system_wide_limits() {
    let (o, _) = run(
        &world(
            "SYSTEMCFG MAXJOB=2\n",
            &[
                (1, 0, HOUR, 1, "a", "", ""),
                (2, 0, HOUR, 1, "b", "", ""),
                (3, 0, HOUR, 1, "c", "", ""),
            ],
        ),
        10,
    );
    assert_eq!(starts(&o), [0, 0, HOUR]);
}

/// Runs `specs` under `semantics` on `procs` single-processor nodes (not pooled, as Maui
/// reserves nodes) up to `at`: the start of each job by trace id (`None`: not yet), and
/// the snapshot.
fn run_until(
    config: &str,
    specs: &[Spec],
    procs: u64,
    semantics: Semantics,
    at: i64,
) -> (Vec<(u64, Option<i64>)>, Snapshot) {
    let mut w = world(config, specs);
    w.policy.semantics = semantics;
    let opts = EngineOptions {
        pooled: false,
        ..options(EventOrder::PerInstant)
    };
    let s = simulate_until(&w.jobs, machine_of(procs), w.policy.clone(), opts, at);
    let started: Vec<(u64, Option<i64>)> = w
        .jobs
        .iter()
        .enumerate()
        .map(|(i, j)| {
            let start = s.running.iter().find(|r| r.0 == i).map(|r| r.1);
            (j.id, start)
        })
        .collect();
    (started, s)
}

/// MAXMEM: the guide's limit, which mauisim enforces, and 3.3.1 never checks
/// (`--semantics maui-3.3.1` reproduces that): two 600 MB jobs of one user under MAXMEM=1000.
#[test]
fn maxmem_is_enforced_except_as_maui_3_3_1_runs() {
    let specs = [(1, 0, HOUR, 1, "u", "g", ""), (2, 0, HOUR, 1, "u", "g", "")];
    let run = |semantics| {
        let mut w = world("USERCFG[DEFAULT] MAXMEM=1000\n", &specs);
        for job in &mut w.jobs {
            job.mem_mb = 600.0;
        }
        w.policy.semantics = semantics;
        let opts = EngineOptions {
            pooled: false,
            ..options(EventOrder::PerInstant)
        };
        let s = simulate_until(&w.jobs, machine_of(4), w.policy.clone(), opts, 1);
        let mut started: Vec<usize> = s.running.iter().map(|r| r.0).collect();
        started.sort_unstable();
        started
    };
    assert_eq!(run(Semantics::Maui), [0]);
    assert_eq!(run(Semantics::Maui331), [0, 1]);
}

/// 3.3.1 selects twice, each level counting its own idle jobs: A and B (20 processors,
/// over the soft MAXPROC 16) fill the hard MAXIJOB 2, but take no soft idle slot, so C
/// is in the soft queue and starts in the priority pass; A then starts in the hard
/// backfill, and B finds 11 processors. Under the research reading C is over MAXIJOB.
#[test]
fn maui_counts_idle_jobs_per_level() {
    let config = "USERCFG[DEFAULT] MAXPROC=16,64 MAXIJOB=2\n";
    let specs = [
        (1, 0, HOUR, 20, "u", "g", ""),
        (2, 0, HOUR, 20, "u", "g", ""),
        (3, 0, HOUR, 1, "u", "g", ""),
    ];
    let (maui, _) = run_until(config, &specs, 32, Semantics::Maui, 1);
    assert_eq!(maui, [(1, Some(0)), (2, None), (3, Some(0))]);
    let (research, _) = run_until(config, &specs, 32, Semantics::ResearchEasy, 1);
    assert_eq!(research, [(1, Some(0)), (2, None), (3, None)]);
}

/// 3.3.1's first priority call starts X; Y, now over the soft MAXJOB 1, is reserved from
/// now on the last two free nodes, so Z does not fit. Before the second call the soft queue
/// is selected again: Y leaves it and its reservation goes, and Z starts. Y (within the
/// hard MAXJOB 3) finds no node left in the backfill.
#[test]
fn maui_drops_a_job_pushed_over_a_soft_limit_before_its_second_priority_call() {
    let config = "USERCFG[DEFAULT] MAXJOB=1,3\n";
    let specs = [
        (1, 0, HOUR, 2, "u", "g", ""),
        (2, 0, HOUR, 2, "u", "g", ""),
        (3, 0, HOUR, 2, "v", "g", ""),
    ];
    let (maui, s) = run_until(config, &specs, 4, Semantics::Maui, 1);
    assert_eq!(maui, [(1, Some(0)), (2, None), (3, Some(0))]);
    assert!(
        !s.queue[0].held_reservation,
        "Y's reservation was destroyed"
    );
}

/// One running job per user, and class `high` ranked a thousand above the rest.
const ONE_JOB_EACH_AND_A_HIGH_CLASS: &str =
    "USERCFG[DEFAULT] MAXJOB=1\nCREDWEIGHT 1\nCLASSWEIGHT 1\nCLASSCFG[high] PRIORITY=1000\n";

/// 3.3.1's hard selection counts active usage anew in priority order: J (class priority
/// 1000) ranks above the running R of the same user, so R does not count against J's hard
/// MAXJOB 1 and J's queue time keeps accruing (JOBPRIOACCRUALPOLICY QUEUEPOLICY); under
/// the research reading R counts, and J's queue time restarts at every iteration (20).
#[test]
fn maui_holds_a_job_to_the_running_jobs_ranked_above_it() {
    let config = ONE_JOB_EACH_AND_A_HIGH_CLASS;
    let specs = [
        (1, 0, HOUR, 2, "v", "g", ""),
        (2, 0, HOUR, 1, "u", "g", ""),
        (3, 10, HOUR, 2, "u", "g", "high"),
        (4, 20, HOUR, 1, "w", "g", ""),
    ];
    let queue_start = |semantics| {
        let (started, s) = run_until(config, &specs, 3, semantics, 21);
        assert_eq!(&started[..2], [(1, Some(0)), (2, Some(0))]);
        let j = s.queue.iter().find(|q| q.id == 3).expect("J waits");
        j.eff_queue_start
    };
    assert_eq!(queue_start(Semantics::Maui), 10);
    assert_eq!(queue_start(Semantics::ResearchEasy), 20);
}

/// 3.3.1 brings a job's queue time in its priority up to date only when a selection lets
/// it through against the whole usage: J (job 4, class priority 1000) ranks above its
/// user's running R (job 6, started at 10), so it stays in the hard queue, but with R
/// filling MAXJOB 1 no selection lets it through (iterations at 15 and 20, as jobs arrive
/// and end), and its priority stands still at the 5 s it had waited when R started. Once
/// R ends it counts its whole queue time again. (Fillers of other users keep the nodes.)
#[test]
fn maui_freezes_the_queue_time_of_a_job_its_running_jobs_hold() {
    let config = ONE_JOB_EACH_AND_A_HIGH_CLASS;
    let specs = [
        (1, 0, HOUR, 2, "v", "g", ""),
        (2, 0, 10, 1, "x", "g", ""),
        (3, 0, 20, 1, "y", "g", ""),
        (4, 5, HOUR, 3, "u", "g", "high"),
        (5, 7, HOUR, 4, "z", "g", ""),
        (6, 8, 100, 1, "u", "g", ""),
        (7, 15, 30, 1, "t", "g", ""),
    ];
    let selected = |at, semantics| {
        let (started, s) = run_until(config, &specs, 4, semantics, at);
        let r_runs = (11..=110).contains(&at);
        assert_eq!(started[5], (6, r_runs.then_some(10)), "{started:?}");
        let j = s.queue.iter().find(|q| q.id == 4).expect("J waits");
        j.selected_queued
    };
    // At 10 the selection lets J through (5 s) before R starts; at 20 R holds it.
    assert_eq!(selected(21, Semantics::Maui), Some(5));
    // R ends at 110: J is let through again, with all of its 105 s.
    assert_eq!(selected(111, Semantics::Maui), Some(105));
}

/// A soft idle limit (`MAXIJOB=1,3`, as 3.3.1 reads it) counts only the jobs within every
/// soft limit: C, the second idle job of u, is over it and waits for the second pass, so
/// at 100 E (user v) starts beside B where C would have been reserved, and C waits for E's
/// end at 400. With a hard MAXIJOB alone C is reserved at 100 and starts at 200.
#[test]
fn a_soft_idle_limit_leaves_the_job_beyond_it_to_the_second_pass() {
    let specs = [
        (1, 0, 100, 4, "x", "g", ""),
        (2, 1, 100, 2, "u", "g", ""),
        (3, 1, 100, 4, "u", "g", ""),
        (4, 1, 300, 2, "v", "g", ""),
    ];
    let (soft, stats) = run(&world("USERCFG[DEFAULT] MAXIJOB=1,3\n", &specs), 4);
    assert_eq!(starts(&soft), [0, 100, 400, 100]);
    let labels: Vec<String> = stats.limit_blocks.iter().map(|(k, _)| k.label()).collect();
    assert_eq!(labels, ["user MAXIJOB (soft)"]);
    let (hard, _) = run(&world("USERCFG[DEFAULT] MAXIJOB=3\n", &specs), 4);
    assert_eq!(starts(&hard), [0, 100, 200, 300]);
    // The old-style parameters say the same.
    let old = "SMAXJOBQUEUEDPERUSERCOUNT 1\nMAXJOBQUEUEDPERUSERCOUNT 3\n";
    assert_eq!(starts(&run(&world(old, &specs), 4).0), [0, 100, 400, 100]);
}

/// `GROUPCFG[DEFAULT] MAXIJOB=1` holds every group by default (the guide's DEFAULT object):
/// A starts, B is the one eligible job of g and is reserved, and C, over the limit, may not
/// backfill. Maui 3.3.1 (`maui-3.3.1`) holds a group to its DEFAULT's idle limits only if
/// the group sets an idle limit itself: g sets none, so C backfills at once; once g sets one
/// (MAXINODE), the DEFAULT MAXIJOB holds it there too.
#[test]
fn default_idle_limits_hold_a_group_in_3_3_1_only_with_one_of_its_own() {
    let specs = [
        (1, 0, HOUR, 3, "a", "g", ""),
        (2, 0, HOUR, 2, "b", "g", ""),
        (3, 0, HOUR, 1, "c", "g", ""),
    ];
    let default_only = "GROUPCFG[DEFAULT] MAXIJOB=1\n";
    let held = [(1, Some(0)), (2, None), (3, None)];
    let (guide, _) = run_until(default_only, &specs, 4, Semantics::Maui, 1);
    assert_eq!(guide, held);
    let (maui, _) = run_until(default_only, &specs, 4, Semantics::Maui331, 1);
    assert_eq!(maui, [(1, Some(0)), (2, None), (3, Some(0))]);
    let own = "GROUPCFG[DEFAULT] MAXIJOB=1\nGROUPCFG[g] MAXINODE=100\n";
    let (maui, _) = run_until(own, &specs, 4, Semantics::Maui331, 1);
    assert_eq!(maui, held);
}
