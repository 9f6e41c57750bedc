//! Fairshare end to end (guide 6.3): usage from jobs that ran, the guide's John example,
//! targets reordering the queue, caps keeping jobs off idle processors until the windows
//! roll. Every start is asserted.

mod common;

use common::{run, snapshot, starts, world, HOUR};
use mauisim_core::{CredKind, Level, Owner, Scope, Source, Verdict};

const FS: &str = "FSPOLICY DEDICATEDPS\nFSINTERVAL 12:00:00\n";

/// John's windows of the guide (6.3.2.3), made by jobs: 50, 10, 0 and 60 of 150, 100,
/// 125 and 110 processor-seconds, oldest first. At the end of the fourth window his
/// usage is (60 + .5·0 + .25·10 + .125·50) / (110 + .5·125 + .25·100 + .125·150)
/// = 68.75 / 216.25 = 31.79 %.
#[test]
fn johns_usage_comes_from_the_jobs_he_ran() {
    let h12 = 12 * HOUR;
    let w = world(
        &format!("{FS}FSDEPTH 4\nFSDECAY 0.5\n"),
        &[
            (1, 0, 50, 1, "john", "", ""),
            (2, 0, 100, 1, "other", "", ""),
            (3, h12, 10, 1, "john", "", ""),
            (4, h12, 90, 1, "other", "", ""),
            (5, 2 * h12, 125, 1, "other", "", ""),
            (6, 3 * h12, 60, 1, "john", "", ""),
            (7, 3 * h12, 50, 1, "other", "", ""),
        ],
    );
    let (outcomes, _) = run(&w, 2);
    assert_eq!(
        starts(&outcomes),
        [0, 0, h12, h12, 2 * h12, 3 * h12, 3 * h12]
    );
    let at = 4 * h12 - 1;
    let s = snapshot(&w, 2, at);
    let john = w.names.get(CredKind::User, "john").unwrap();
    let fs = s.scheduler.fairshare();
    let standing = fs.standing(CredKind::User, john, at);
    assert_eq!(standing.windows, [60.0, 0.0, 10.0, 50.0]);
    assert_eq!(standing.effective, 68.75);
    assert_eq!(fs.total_effective(at), 216.25);
    assert!((standing.share - 31.79).abs() < 0.005, "{}", standing.share);
}

/// One processor. Ann ran alone for two hours; then her second job (submitted first) and
/// Bob's wait. With FSTARGET 50 for everyone, Ann is over target and Bob under it, so
/// Bob's job overtakes hers; without fairshare weight, submit order wins.
#[test]
fn over_target_loses_priority_and_under_target_gains() {
    let specs = [
        (1, 0, 2 * HOUR, 1, "ann", "", ""),
        (2, 10, HOUR, 1, "ann", "", ""),
        (3, 20, HOUR, 1, "bob", "", ""),
    ];
    let targets = "USERCFG[DEFAULT] FSTARGET=50\n";
    let fair = world(&format!("{FS}FSUSERWEIGHT 100\n{targets}"), &specs);
    let (o, _) = run(&fair, 1);
    assert_eq!(starts(&o), [0, 3 * HOUR, 2 * HOUR]);
    // At the decision, Ann has all of the usage (delta 50 − 100) and Bob none (50 − 0).
    let s = snapshot(&fair, 1, 2 * HOUR - 1);
    let at = s.scheduler.fairshare().at(2 * HOUR - 1);
    use mauisim_core::FsDeltaSource;
    let ann = fair.names.get(CredKind::User, "ann").unwrap();
    let bob = fair.names.get(CredKind::User, "bob").unwrap();
    assert_eq!(at.fs_delta(CredKind::User, ann), -50.0);
    assert_eq!(at.fs_delta(CredKind::User, bob), 50.0);

    let unweighted = world(&format!("{FS}{targets}"), &specs);
    assert_eq!(starts(&run(&unweighted, 1).0), [0, 2 * HOUR, 3 * HOUR]);
}

/// A floor only raises, a ceiling only lowers: with Ann's target a ceiling of 50 and
/// Bob's a floor of 50, the order is as with plain targets; with Ann's a floor, her
/// excess costs her nothing and submit order wins.
#[test]
fn floors_and_ceilings_act_one_way() {
    let specs = [
        (1, 0, 2 * HOUR, 1, "ann", "", ""),
        (2, 10, HOUR, 1, "ann", "", ""),
        (3, 20, HOUR, 1, "cid", "", ""),
    ];
    let cfg = |ann: &str, cid: &str| {
        format!("{FS}FSUSERWEIGHT 100\nUSERCFG[ann] FSTARGET={ann}\nUSERCFG[cid] FSTARGET={cid}\n")
    };
    // Ann −50 (ceiling keeps it), Cid 0 (a ceiling never raises): Cid first.
    let w = world(&cfg("50-", "50-"), &specs);
    assert_eq!(starts(&run(&w, 1).0), [0, 3 * HOUR, 2 * HOUR]);
    // Ann 0 (a floor never lowers), Cid 0 (ceiling): queue time decides, Ann first.
    let w = world(&cfg("50+", "50-"), &specs);
    assert_eq!(starts(&run(&w, 1).0), [0, 2 * HOUR, 3 * HOUR]);
    // Ann 0 (floor), Cid +50 (floor): Cid first.
    let w = world(&cfg("50+", "50+"), &specs);
    assert_eq!(starts(&run(&w, 1).0), [0, 3 * HOUR, 2 * HOUR]);
}

/// Ann may use 3600 processor-seconds (`^`). Her first job takes them all; her second
/// waits on idle processors (Bob's job, later, starts at once) until the usage has left
/// the windows: FSDEPTH 2, FSINTERVAL 2 h, so the window that held it is forgotten at
/// the roll at 4 h, and the job starts then although nothing else happens.
#[test]
fn a_capped_user_waits_while_processors_idle() {
    let cfg = "FSPOLICY DEDICATEDPS\nFSINTERVAL 2:00:00\nFSDEPTH 2\nUSERCFG[ann] FSTARGET=3600^\n";
    let w = world(
        cfg,
        &[
            (1, 0, HOUR, 1, "ann", "", ""),
            (2, 10, HOUR, 1, "ann", "", ""),
            (3, 20, HOUR, 1, "bob", "", ""),
        ],
    );
    let (o, stats) = run(&w, 4);
    assert_eq!(starts(&o), [0, 4 * HOUR, 20]);
    assert!(stats.held.is_empty());
    let mut s = snapshot(&w, 4, 100);
    let verdicts = s.scheduler.explain(100, &mut s.queue);
    let ann = w.names.get(CredKind::User, "ann").unwrap();
    match verdicts.as_slice() {
        [(_, Verdict::Blocked(b))] => {
            assert_eq!(
                (b.scope, b.level, b.owner, b.source),
                (
                    Scope::FsCap,
                    Level::Hard,
                    Owner::Cred(CredKind::User, ann),
                    Source::Own
                )
            );
            assert_eq!((b.usage, b.amount, b.limit), (100, 3600, 3600));
        }
        other => panic!("expected job 2 blocked by the cap, found {other:?}"),
    }
}

/// A relative cap: Ann may have 40 % of the delivered usage. Three processors: her job
/// and two of Bob's start at 0; her second job arrives at 10 s. At 1 h she has 3600 of
/// the 10800 delivered, and another hour would put her at 7200 > 40 %. Bob's 4-hour job
/// keeps delivering 3600 an hour, so the cap lifts when 7200 ≤ 0.4 · (10800 + t − 3600):
/// at 3 h, with no event then; the scheduler wakes up for it.
#[test]
fn a_relative_cap_lifts_as_others_use_the_machine() {
    let cfg = format!("{FS}USERCFG[ann] FSTARGET=40%\n");
    let w = world(
        &cfg,
        &[
            (1, 0, HOUR, 1, "ann", "", ""),
            (2, 0, HOUR, 1, "bob", "", ""),
            (3, 0, 4 * HOUR, 1, "bob", "", ""),
            (4, 10, HOUR, 1, "ann", "", ""),
        ],
    );
    let (o, _) = run(&w, 3);
    assert_eq!(starts(&o), [0, 0, 0, 3 * HOUR]);
}

/// A job that alone needs more than its user's absolute cap can never run: held, with
/// the cap as its reason.
#[test]
fn a_job_larger_than_its_cap_is_held() {
    let cfg = "FSPOLICY DEDICATEDPS\nFSINTERVAL 1:00:00\nFSDEPTH 2\nUSERCFG[ann] FSTARGET=1000^\n";
    let w = world(
        cfg,
        &[
            (1, 0, 100, 1, "ann", "", ""),
            (2, 0, HOUR, 1, "ann", "", ""),
        ],
    );
    let (o, stats) = run(&w, 2);
    assert_eq!(o[0].start, 0);
    let held: Vec<(usize, Scope)> = stats.held.iter().map(|(i, b)| (*i, b.scope)).collect();
    assert_eq!(held, [(1, Scope::FsCap)]);
}

/// Under FULLPOLICY a capped job's effective queue time restarts while it is capped;
/// under QUEUEPOLICY (the default) it keeps accruing.
#[test]
fn fullpolicy_restarts_queue_time_of_capped_jobs() {
    let specs = [
        (1, 0, HOUR, 1, "ann", "", ""),
        (2, 10, HOUR, 1, "ann", "", ""),
    ];
    let cap = "FSPOLICY DEDICATEDPS\nFSINTERVAL 2:00:00\nFSDEPTH 2\nUSERCFG[ann] FSTARGET=3600^\n";
    for (policy, expected) in [("QUEUEPOLICY", 10), ("FULLPOLICY", 2 * HOUR)] {
        let w = world(&format!("{cap}JOBPRIOACCRUALPOLICY {policy}\n"), &specs);
        let s = snapshot(&w, 2, 2 * HOUR);
        assert_eq!(s.queue[0].eff_queue_start, expected, "{policy}");
    }
}

/// FSDECAY is a real knob: on the bundled KTH-SP2 trace, with users above and below
/// their 5 % target (scenarios/fairshare.cfg), forgetting faster changes the schedule.
#[test]
fn fsdecay_changes_the_schedule_of_a_real_trace() {
    use mauisim_sim::trace::workload::Filter;
    use mauisim_sim::{run, RunOptions};
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let scenario = std::fs::read_to_string(repo.join("scenarios/fairshare.cfg")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let outcome = |decay: &str| {
        let config = tmp.path().join(format!("fs-{decay}.cfg"));
        std::fs::write(&config, format!("{scenario}\nFSDECAY {decay}\n")).unwrap();
        let report = run(RunOptions {
            config: Some(config),
            filter: Filter::Published,
            ..RunOptions::new(repo.join("traces/KTH-SP2-1996-2.swf.gz"))
        })
        .unwrap();
        let fairness = report
            .summary()
            .fairness
            .expect("a run in memory reports fairness");
        let users = &fairness["user"];
        assert!(users.iter().any(|u| u.above_target.unwrap() > 0.0));
        assert!(users.iter().any(|u| u.above_target.unwrap() < 0.0));
        let starts: Vec<i64> = report.outcomes.iter().map(|o| o.start).collect();
        (starts, report.metrics.avg_wait)
    };
    let (slow, slow_wait) = outcome("1.0");
    let (fast, fast_wait) = outcome("0.5");
    let moved = slow.iter().zip(&fast).filter(|(a, b)| a != b).count();
    assert!(moved > 1000, "only {moved} jobs moved");
    assert_ne!(slow_wait, fast_wait);
}

/// Maui 3.3.1 charges a running job once per poll and terminates a job before charging the
/// interval it ended in, so with RMPOLLINTERVAL 30 a job that starts at 0 and runs 100 s
/// (seen ended at 120) counts 90 processor-seconds under `--semantics maui`, and its exact
/// 100 under the research reading. A job shorter than one poll counts nothing under Maui.
#[test]
fn maui_samples_usage_once_per_poll() {
    use mauisim_core::Semantics;
    use mauisim_sim::engine::{machine_of, simulate_until, EngineOptions, EventOrder};
    let w = world(
        &format!("{FS}RMPOLLINTERVAL 00:00:30\n"),
        &[(1, 0, 100, 2, "ann", "", ""), (2, 0, 20, 1, "bob", "", "")],
    );
    let usage = |semantics: Semantics| {
        let mut policy = w.policy.clone();
        policy.semantics = semantics;
        let opts = EngineOptions {
            poll_interval: 30,
            ..common::options(EventOrder::PerInstant)
        };
        let s = simulate_until(&w.jobs, machine_of(4), policy, opts, 200);
        let fs = s.scheduler.fairshare();
        let of = |name| {
            let id = w.names.get(CredKind::User, name).unwrap();
            fs.standing(CredKind::User, id, 200).windows[0]
        };
        (of("ann"), of("bob"))
    };
    assert_eq!(usage(Semantics::Maui), (180.0, 0.0));
    assert_eq!(usage(Semantics::ResearchEasy), (200.0, 20.0));
}
