//! Random small workloads under random configs — every backfill policy, reservation depth
//! and policy, allocation and access policy, limit set, fairshare with caps, priority
//! weights — run end to end (SWF and maui.cfg text through the readers) with `--check`:
//! every invariant holds after every iteration.

use mauisim_core::Semantics;
use mauisim_sim::{run, RunOptions};
use proptest::prelude::*;
use std::fmt::Write;

const BACKFILL: [&str; 4] = ["FIRSTFIT", "BESTFIT", "GREEDY", "NONE"];
const ALLOCATION: [&str; 8] = [
    "FIRSTAVAILABLE",
    "LASTAVAILABLE",
    "MINRESOURCE",
    "CPULOAD",
    "PRIORITY",
    "FASTEST",
    "MAXBALANCE",
    "CONTIGUOUS",
];
const ACCESS: [&str; 3] = ["SHARED", "SINGLEJOB", "SINGLETASK"];
const RESERVATIONS: [&str; 3] = ["CURRENTHIGHEST", "HIGHEST", "NEVER"];
const ACCRUAL: [&str; 3] = ["QUEUEPOLICY", "FULLPOLICY", "ALWAYS"];

/// One job: submit, runtime, slack beyond the runtime, processors, user, group.
type RawJob = (i64, i64, i64, u64, u8, u8);

fn jobs() -> impl Strategy<Value = Vec<RawJob>> {
    prop::collection::vec(
        (0i64..2000, 1i64..900, 0i64..600, 1u64..=8, 0u8..4, 0u8..2),
        1..30,
    )
}

#[derive(Debug, Clone)]
struct Setup {
    nodes: u64,
    procs_per_node: u64,
    config: String,
    per_event: bool,
    /// Jobs ask for memory (1 GB per processor).
    mem: bool,
}

fn setup() -> impl Strategy<Value = Setup> {
    (
        (1u64..=4, prop_oneof![Just(1u64), Just(2), Just(4)]),
        (0usize..4, 0u32..4, 0usize..3, 0usize..8, 0usize..3),
        (
            prop::option::of((1u64..4, 0u64..3)),
            prop::option::of(2u64..9),
            prop::option::of(1u64..4),
            any::<bool>(),
            0usize..3,
        ),
        (
            any::<bool>(),
            0u32..3,
            any::<bool>(),
            prop::option::of(60i64..600),
        ),
        (
            prop_oneof![Just(0i64), Just(30)],
            prop::option::of(1u64..4),
            prop::option::of((1u64..4, 60i64..600)),
            any::<bool>(),
        ),
    )
        .prop_map(
            |((nodes, ppn), (bf, depth, res, alloc, access), limits, extra, more)| {
                let (user_jobs, user_procs, group_jobs, fairshare, accrual) = limits;
                let (xfactor, bf_depth, per_event, overrun) = extra;
                let (poll, mem_gb, chunk, qos) = more;
                let mut c = String::new();
                let _ = writeln!(c, "BACKFILLPOLICY {}", BACKFILL[bf]);
                let _ = writeln!(c, "RESERVATIONDEPTH {depth}");
                let _ = writeln!(c, "RESERVATIONPOLICY {}", RESERVATIONS[res]);
                let _ = writeln!(c, "NODEALLOCATIONPOLICY {}", ALLOCATION[alloc]);
                let _ = writeln!(c, "NODEACCESSPOLICY {}", ACCESS[access]);
                let _ = writeln!(c, "BACKFILLDEPTH {bf_depth}");
                let _ = writeln!(c, "JOBPRIOACCRUALPOLICY {}", ACCRUAL[accrual]);
                if ALLOCATION[alloc] == "PRIORITY" {
                    let _ = writeln!(c, "NODECFG[DEFAULT] PRIORITYF='JOBCOUNT - APROCS'");
                }
                if let Some((soft, more)) = user_jobs {
                    let _ = writeln!(c, "USERCFG[DEFAULT] MAXJOB={soft},{}", soft + more);
                }
                if let Some(p) = user_procs {
                    let _ = writeln!(c, "USERCFG[1] MAXPROC={p}");
                }
                if let Some(j) = group_jobs {
                    let _ = writeln!(c, "GROUPCFG[DEFAULT] MAXJOB={j}");
                }
                if fairshare {
                    c.push_str("FSPOLICY DEDICATEDPS\nFSINTERVAL 600\nFSDEPTH 3\nFSDECAY 0.5\n");
                    c.push_str("FSWEIGHT 10\nFSUSERWEIGHT 1\nUSERCFG[2] FSTARGET=20-\n");
                    c.push_str("USERCFG[3] FSTARGET=30^\n");
                }
                if xfactor {
                    c.push_str("XFACTORWEIGHT 100\nPROCWEIGHT 5\n");
                }
                if let Some(o) = overrun {
                    let _ = writeln!(c, "JOBMAXOVERRUN {o}");
                }
                if poll > 0 {
                    let _ = writeln!(c, "RMPOLLINTERVAL {poll}");
                }
                if let Some(gb) = mem_gb {
                    // Jobs ask 1 GB per processor (the SWF's requested memory).
                    let _ = writeln!(c, "NODECFG[DEFAULT] MEM={}", gb * 1024);
                }
                if let Some((size, duration)) = chunk {
                    let _ = writeln!(c, "BFCHUNKSIZE {size}\nBFCHUNKDURATION {duration}");
                }
                if qos {
                    c.push_str("QOSCFG[fast] PRIORITY=100 MAXJOB=1\nUSERCFG[2] QDEF=fast\n");
                    c.push_str("QOSWEIGHT 1\nCREDWEIGHT 10\n");
                }
                Setup {
                    nodes,
                    procs_per_node: ppn,
                    config: c,
                    per_event,
                    mem: mem_gb.is_some(),
                }
            },
        )
}

fn swf(jobs: &[RawJob], machine: u64) -> String {
    swf_with_memory(jobs, machine, -1)
}

/// `mem_kb`: requested memory per processor (SWF field 10), −1 for none.
fn swf_with_memory(jobs: &[RawJob], machine: u64, mem_kb: i64) -> String {
    let mut text = String::new();
    for (k, &(submit, runtime, slack, procs, user, group)) in jobs.iter().enumerate() {
        let procs = procs.min(machine);
        let _ = writeln!(
            text,
            "{} {submit} -1 {runtime} {procs} -1 -1 {procs} {} {mem_kb} 1 {} {} -1 1 -1 -1 -1",
            k + 1,
            runtime + slack,
            user + 1,
            group + 1
        );
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn every_invariant_holds_after_every_iteration(
        jobs in jobs(),
        setup in setup(),
        semantics in prop::sample::select(Semantics::ALL.to_vec()),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let machine = setup.nodes * setup.procs_per_node;
        let trace = dir.path().join("t.swf");
        let mem_kb = if setup.mem { 1024 * 1024 } else { -1 };
        std::fs::write(&trace, swf_with_memory(&jobs, machine, mem_kb)).unwrap();
        let config = dir.path().join("maui.cfg");
        std::fs::write(&config, &setup.config).unwrap();
        let mut options = RunOptions::new(trace);
        options.config = Some(config);
        options.machine.nodes = Some(setup.nodes);
        options.machine.procs_per_node = Some(setup.procs_per_node);
        options.check = true;
        options.semantics = semantics;
        if setup.per_event {
            options.event_order = mauisim_sim::engine::EventOrder::PerEvent;
        }
        match run(options) {
            Ok(report) => {
                prop_assert_eq!(report.outcomes.len() + report.held.len(), jobs.len());
            }
            Err(e) => prop_assert!(false, "{}\nconfig ({:?}):\n{}", e, semantics, setup.config),
        }
    }

    /// With exact estimates, reservations are promises the checker holds the run to.
    #[test]
    fn exact_estimates_keep_every_promise(jobs in jobs(), bf in 0usize..3, depth in 1u32..4, highest in any::<bool>()) {
        let dir = tempfile::tempdir().unwrap();
        let exact: Vec<RawJob> = jobs.iter().map(|&(s, r, _, p, u, g)| (s, r, 0, p, u, g)).collect();
        let trace = dir.path().join("t.swf");
        std::fs::write(&trace, swf(&exact, 8)).unwrap();
        let config = dir.path().join("maui.cfg");
        let mut text = format!("BACKFILLPOLICY {}\nRESERVATIONDEPTH {depth}\n", BACKFILL[bf]);
        if highest {
            text.push_str("RESERVATIONPOLICY HIGHEST\nXFACTORWEIGHT 1000\n");
        }
        std::fs::write(&config, &text).unwrap();
        let mut options = RunOptions::new(trace);
        options.config = Some(config);
        options.machine.procs = Some(8);
        options.check = true;
        if let Err(e) = run(options) {
            prop_assert!(false, "{}\nconfig:\n{}", e, text);
        }
    }
}

/// Found by the property test above: under RESERVATIONPOLICY HIGHEST, two jobs of one
/// group both holding kept reservations for the same instant both started, although the
/// group may run one job at a time. Now the second one's promise waits for the first.
#[test]
fn kept_reservations_still_respect_limits() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.swf");
    let jobs: Vec<RawJob> = vec![
        (0, 1, 0, 1, 0, 0),
        (391, 839, 0, 3, 0, 1),
        (392, 1, 0, 5, 0, 1),
        (392, 1, 0, 5, 0, 1),
        (478, 753, 0, 4, 1, 0),
    ];
    std::fs::write(&trace, swf(&jobs, 12)).unwrap();
    let config = dir.path().join("maui.cfg");
    let text = "BACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH 2\nRESERVATIONPOLICY HIGHEST\n\
                NODEALLOCATIONPOLICY CONTIGUOUS\nGROUPCFG[DEFAULT] MAXJOB=1\n";
    std::fs::write(&config, text).unwrap();
    let mut options = RunOptions::new(trace);
    options.config = Some(config);
    options.machine.nodes = Some(3);
    options.machine.procs_per_node = Some(4);
    options.check = true;
    let report = run(options).unwrap();
    let starts: Vec<i64> = report.outcomes.iter().map(|o| o.start).collect();
    // Job 2 (group 2) runs to 1230; jobs 3 and 4 (group 2, 5 processors) were both
    // reserved at 1231, when job 5 frees its nodes; 3 starts then, 4 after it.
    assert_eq!(starts, vec![0, 391, 1231, 1232, 478]);
    let promised: Vec<Option<i64>> = report
        .outcomes
        .iter()
        .map(|o| o.first_reservation())
        .collect();
    assert_eq!(promised, vec![None, None, Some(1231), Some(1231), None]);
}

/// Found by the property test above: per-event, a fairshare window roll (1200) that came
/// while the queue was empty woke the engine up *after* a later submission (1507), and the
/// job submitted at 1507 started at 1200, on a processor still busy.
#[test]
fn a_missed_wakeup_never_moves_time_back() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.swf");
    let jobs: Vec<RawJob> = vec![
        (1507, 1, 0, 1, 1, 0),
        (163, 842, 0, 1, 0, 0),
        (163, 502, 1, 4, 0, 0),
    ];
    std::fs::write(&trace, swf(&jobs, 1)).unwrap();
    let config = dir.path().join("maui.cfg");
    let text = "FSPOLICY DEDICATEDPS\nFSINTERVAL 600\nFSWEIGHT 10\nFSUSERWEIGHT 1\n";
    std::fs::write(&config, text).unwrap();
    let mut options = RunOptions::new(trace);
    options.config = Some(config);
    options.machine.procs = Some(1);
    options.event_order = mauisim_sim::engine::EventOrder::PerEvent;
    options.check = true;
    let report = run(options).unwrap();
    // Sorted by submission: jobs 2 and 3 at 163 (one after the other), then job 1.
    let starts: Vec<(u64, i64)> = report
        .workload
        .jobs
        .iter()
        .zip(&report.outcomes)
        .map(|(j, o)| (j.id, o.start))
        .collect();
    assert_eq!(starts, vec![(2, 163), (3, 1005), (1, 1507)]);
}
