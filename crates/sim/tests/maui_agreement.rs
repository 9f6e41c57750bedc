//! Agreement with the real Maui 3.3.1 (issue 24): every case of `../shared/maui-reference`
//! is run as its `harness/run_mauisim.sh` runs it (SIMJOBSUBMISSIONPOLICY NORMAL before the
//! case's policy, the nodes of its resource trace, the processors they sum to), under Maui
//! semantics, and the share of Maui's jobs started at the identical second must not fall
//! below the figure recorded here and in reports/MAUI-AGREEMENT.md.
//!
//! Where `../shared` is absent (a user's fresh clone) these tests are ignored, with the
//! reason on the result line.

use mauisim_core::Semantics;
use mauisim_sim::{run, RunOptions};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Identical start times in percent, per case, as last measured (seeds 1, 2, 3).
const RECORDED: &[(&str, [f64; 3])] = &[
    ("easy", [100.0, 100.0, 100.0]),
    ("nobf", [100.0, 100.0, 100.0]),
    ("bestfit", [100.0, 100.0, 100.0]),
    ("greedy", [100.0, 100.0, 100.0]),
    ("depth4", [100.0, 100.0, 100.0]),
    ("chunk", [100.0, 100.0, 100.0]),
    ("fairshare", [100.0, 100.0, 100.0]),
    ("throttle", [100.0, 100.0, 100.0]),
    ("priority", [100.0, 100.0, 100.0]),
    ("alloc-minres", [100.0, 100.0, 100.0]),
    ("alloc-firstavail", [100.0, 100.0, 100.0]),
    // standing-s3 and srmaxtime-s1/s2 agree since a node's reservation affinity counts the
    // windows its free stretch reaches, not only those the job's run overlaps (99.7 % and
    // 81.3 / 99.7 % before; reports/MAUI-AGREEMENT.md).
    ("standing", [100.0, 100.0, 100.0]),
    // The same reservation with a time entry (scripts/maui-cases.sh srtimelimit srmaxtime):
    // TIMELIMIT beside a user list, and SRMAXTIME (required, read before the list).
    ("srtimelimit", [100.0, 100.0, 100.0]),
    ("srmaxtime", [100.0, 100.0, 100.0]),
    // QOS preemption (scripts/maui-cases.sh preempt); s2 agrees since the two node rules of
    // its preemptors (reports/MAUI-AGREEMENT.md, 85.4 % before them).
    ("preempt", [100.0, 100.0, 100.0]),
    // The throttle cases' limits written as old-style parameters (MAXJOBPERUSERCOUNT & co.;
    // scripts/maui-cases.sh oldlimits).
    ("oldlimits", [100.0, 100.0, 100.0]),
    // The same with each POLICY line before its COUNT (scripts/maui-cases.sh
    // oldlimitsorder): 3.3.1 reads them in its table's order, not the file's (61.0, 57.1
    // and 65.0 % read in file order). Jobs wider than the soft MAXPROC 8 never start, and
    // 3.3.1 stops when only such jobs are left: it completes 77, 49 and 20 jobs.
    ("oldlimitsorder", [100.0, 100.0, 100.0]),
    // JOBNODEMATCHPOLICY EXACTNODE on 8 four-processor nodes (scripts/maui-cases.sh
    // exactnode), 3.3.1 run to the end of the trace (without SIMAUTOSHUTDOWN).
    ("exactnode", [100.0, 100.0, 100.0]),
    // Soft idle limits, per user and old-style per group (scripts/maui-cases.sh idlesoft),
    // under `maui-3.3.1`: 3.3.1 holds a group to GROUPCFG[DEFAULT]'s idle limits only when
    // the group sets one of its own.
    ("idlesoft", [100.0, 100.0, 100.0]),
    // Partitions (scripts/maui-cases.sh partition partplist partpdef): eight nodes in a
    // partition of their own; SYSCFG, OR and ONLY lists with a PDEF; a user's PDEF and an
    // AND list.
    ("partition", [100.0, 100.0, 100.0]),
    ("partplist", [100.0, 100.0, 100.0]),
    ("partpdef", [100.0, 100.0, 100.0]),
    // Node sets by feature, best effort (scripts/maui-cases.sh nodeset nodesetfirst
    // nodesetany): ONEOF, FIRSTOF with BESTFIT, ANYOF.
    ("nodeset", [100.0, 100.0, 100.0]),
    ("nodesetfirst", [100.0, 100.0, 100.0]),
    ("nodesetany", [100.0, 100.0, 100.0]),
    // Node sets made mandatory (scripts/maui-cases.sh nodesetdelay): ONEOF with NODESETDELAY
    // above 0, jobs of at most 16 tasks on two sets of 16 nodes.
    ("nodesetdelay", [100.0, 100.0, 100.0]),
    // QOS RESERVEALWAYS for two users (scripts/maui-cases.sh reservealways): 48.3 / 100 /
    // 62.7 % before 3.3.1's merge of start ranges at an instant where a node's window is
    // exactly the limit long (machine/start_merge.rs; reports/MAUI-AGREEMENT.md).
    ("reservealways", [100.0, 100.0, 100.0]),
    // QOS DEDICATED on 8 four-processor nodes (scripts/maui-cases.sh dedicated).
    ("dedicated", [100.0, 100.0, 100.0]),
    // NODEACCESSPOLICY SINGLEUSER on 8 four-processor nodes (scripts/maui-cases.sh
    // singleuser): 10-21 % with the same nodes SHARED.
    ("singleuser", [100.0, 100.0, 100.0]),
    // The throttle cases with USESYSTEMQUEUETIME FALSE (scripts/maui-cases.sh sysqfalse):
    // 3.3.1's default is on, and off a job never yet selected counts its queue time from its
    // submission; 36-49 % simulated as the default.
    ("sysqfalse", [100.0, 100.0, 100.0]),
    // CLASSCFG NODEACCESSPOLICY SINGLEUSER and SINGLEJOB for two classes on 8 four-processor
    // nodes (scripts/maui-cases.sh classaccess): without effect in 3.3.1, whose
    // MJobUpdateFlags sets every job's policy anew from NODEACCESSPOLICY.
    ("classaccess", [100.0, 100.0, 100.0]),
    // The preemption cases with PREEMPTOR and PREEMPTEE given by users' JOBFLAGS instead of
    // QOS flags (scripts/maui-cases.sh jobflags): 3.3.1's schedules are the preemption
    // cases'; 22-37 % without the flags.
    ("jobflags", [100.0, 100.0, 100.0]),
    // CLASSCFG[batch] DEFAULT.FEATURES=ib on the node-set cases' nodes (scripts/maui-cases.sh
    // classfeatures): every job runs on n8..n31 only; 7-17 % without the line.
    ("classfeatures", [100.0, 100.0, 100.0]),
    // NODECFG[DEFAULT] MAXJOB=2 on 8 four-processor nodes (scripts/maui-cases.sh
    // nodemaxjob): 17-32 % without the limit.
    ("nodemaxjob", [100.0, 100.0, 100.0]),
    // NODECFG[DEFAULT] MAXJOBPERUSER=2, MAXPROCPERUSER=3 and MAXPROC=3 on the same nodes
    // (scripts/maui-cases.sh nodemaxjobperuser nodemaxprocperuser nodemaxproc; widths capped
    // at 8 for the last two), under `maui-3.3.1`: its simulated job lists leave running jobs
    // out of the count.
    ("nodemaxjobperuser", [100.0, 100.0, 100.0]),
    ("nodemaxprocperuser", [100.0, 100.0, 100.0]),
    ("nodemaxproc", [100.0, 100.0, 100.0]),
    // NODECFG MAXPEPERJOB on the same nodes (scripts/maui-cases.sh nodemaxpe nodemaxpeshare;
    // widths capped at 16): 2 on every node, and 50 % with n0 at 3 and n1 at 1 (the whole
    // node). Only a job starting now is held to it; 19-35 % without the attribute, 19-48 %
    // with reservations held to it too.
    ("nodemaxpe", [100.0, 100.0, 100.0]),
    ("nodemaxpeshare", [100.0, 100.0, 100.0]),
    // QOS PREEMPTSPV (scripts/maui-cases.sh preemptspv): two users' jobs become preemptees
    // while over their soft MAXJOB, and one iteration more.
    ("preemptspv", [100.0, 100.0, 100.0]),
    // Partitions with NODEALLOCATIONPOLICY FIRSTAVAILABLE (scripts/maui-cases.sh
    // partfirst): the backfill in partition fast places LASTAVAILABLE.
    ("partfirst", [100.0, 100.0, 100.0]),
    // Reservation groups (scripts/maui-cases.sh resgroups): QOS hi's group 0 has no depth, so
    // 3.3.1 passes it over and hi jobs count against group 1 ([ALL], depth 2); 12-35 % without
    // that rule.
    ("resgroups", [100.0, 100.0, 100.0]),
    // NODEMAXLOAD 2 on 8 four-processor nodes (scripts/maui-cases.sh maxload): a node is
    // Busy from the node update that finds 2 of its processors held until one of its jobs
    // ends, and backfill windows leave it out; 10-24 % without the limit.
    ("maxload", [100.0, 100.0, 100.0]),
    // NODECFG[DEFAULT] MAXLOAD=2.5 and n0's 1, BESTFIT, RESERVATIONDEPTH 2 (scripts/maui-cases.sh
    // nodemaxload): a reservation's search offers a node the fewest tasks of its start range
    // (MRes.c `MRLSFromA`: the ranges a start in the range reaches), 37.3 / 84.3 / 100 %
    // without that rule; 16-25 % without the limit.
    ("nodemaxload", [100.0, 100.0, 100.0]),
    // Standing windows on part of a node (scripts/maui-cases.sh standingpartial: RESOURCES=
    // PROCS:2 TASKCOUNT=1 on n0 and n1 of 8 four-processor nodes, for u1 and u2): 100 %
    // without the windows, 37.3 / 74.7 / 50.0 % before the start ranges, 72.7 / 99.7 / 51.7 %
    // before a reservation held the tasks free at its start (over a window's processors at
    // its run's end) and a window counted less its jobs inside in the available time, split
    // where they end (reports/MAUI-AGREEMENT.md).
    ("standingpartial", [100.0, 100.0, 100.0]),
    // RESERVATIONDEPTH 4 with BESTFIT on 8 four-processor nodes, widths uncapped
    // (scripts/maui-cases.sh startranges): made after the start ranges were modelled, to test
    // them on cases they were not found in; 45.7 / 69.3 / 40.7 % without them; s3 80.3 %
    // before a reservation held the tasks free at its start (over a later one's).
    ("startranges", [100.0, 100.0, 100.0]),
    // Windows on part of three nodes (three of n2's processors and one of n3's by day, two of
    // n4's by night), RESERVATIONDEPTH 3 with BESTFIT (scripts/maui-cases.sh standingdeep):
    // made after the rules that took standingpartial to 100 %, to test them where they were
    // not found; 60.0 / 100 / 42.3 % without them; s3 99.7 % before a usable window's start
    // cut nothing and a job's end inside a window removed only where the window holds more.
    ("standingdeep", [100.0, 100.0, 100.0]),
    // Windows of 1, 2, 3 and 4 processors on four nodes, overlapping in time, FIRSTFIT with
    // RESERVATIONDEPTH 2 (scripts/maui-cases.sh standingmixed): made after all of the rules
    // above, to test them further; 96.3 / 52.7 / 45.3 % with the binary before them.
    ("standingmixed", [100.0, 100.0, 100.0]),
    // RESERVATIONDEPTH 8 with FIRSTFIT on 8 four-processor nodes, widths uncapped
    // (scripts/maui-cases.sh depth8multi): made after reservations were placed by the tasks
    // free at their start, where reservations lie over one another; 100 / 26.3 / 100 % with the
    // binary before it.
    ("depth8multi", [100.0, 100.0, 100.0]),
    // A window over part of n0 and n1 (one SRCFG, RESOURCES=PROCS:2 TASKCOUNT=2, TIMELIMIT) and
    // a whole node's with SRMAXTIME (scripts/maui-cases.sh standingshort): 40.0 / 37.3 / 35.0 %
    // while TASKCOUNT bounded each listed node's tasks rather than their total, 90.7 / 55.7 /
    // 100 % while a short run's access was judged from the job's start rather than from where
    // the node's range began (reports/MAUI-AGREEMENT.md).
    ("standingshort", [100.0, 99.3, 100.0]),
    // RESERVATIONDEPTH 32 on one-processor nodes (scripts/maui-cases.sh deepmerge), made to
    // test 3.3.1's merge of start ranges where it was not found: 100 % before and after it.
    ("deepmerge", [100.0, 100.0, 100.0]),
    // Windows others may use for a short run on three nodes (HOSTLIST with RESOURCES and no
    // TASKCOUNT: one task on each, as 3.3.1 lays it) and the whole of two (scripts/maui-cases.sh
    // shortmixed), made to test the short-run rule where it was not found: 36.7 / 31.7 / 30.3 %
    // with the last stop's binary, 36.7 / 31.0 / 29.7 % while such a window held every task a
    // node holds (reports/MAUI-AGREEMENT.md).
    ("shortmixed", [100.0, 100.0, 58.0]),
    // A partition and node speeds read from the resource trace's feature names
    // (FEATUREPARTITIONHEADER, FEATUREPROCSPEEDHEADER): n24..n31 in partition fast; 17.7-35.3 %
    // with the partition header left out.
    ("featureheaders", [100.0, 100.0, 100.0]),
];

/// The shared cases (the build script ignores these tests where they are absent).
fn cases_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/maui-reference/cases")
}

/// Maui's start time of every job it completed (`maui-starts.csv`: id,submit,start,...).
fn maui_starts(path: &Path) -> HashMap<u64, i64> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .skip(1)
        .map(|line| {
            let mut fields = line.split(',');
            let id = fields.next().unwrap().parse().unwrap();
            let start = fields.nth(1).unwrap().parse().unwrap();
            (id, start)
        })
        .collect()
}

/// The processors of a Maui resource trace: field 9 of its COMPUTENODE lines.
fn resource_procs(path: &Path) -> u64 {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| l.split_whitespace().next() == Some("COMPUTENODE"))
        .map(|l| l.split_whitespace().nth(8).unwrap().parse::<u64>().unwrap())
        .sum()
}

/// mauisim's run of `case` under `semantics`, as the harness's `run_mauisim.sh` runs it.
fn run_case(case: &Path, semantics: Semantics) -> mauisim_sim::RunReport {
    let config = tempfile::NamedTempFile::new().unwrap();
    let policy = std::fs::read_to_string(case.join("policy.cfg")).unwrap();
    std::fs::write(
        config.path(),
        format!("SIMJOBSUBMISSIONPOLICY NORMAL\n{policy}"),
    )
    .unwrap();
    let mut options = RunOptions::new(case.join("workload"));
    options.config = Some(config.path().to_path_buf());
    options.node_file = Some(case.join("resource"));
    options.machine.procs = Some(resource_procs(&case.join("resource")));
    options.semantics = semantics;
    run(options).unwrap()
}

/// Percent of Maui's jobs mauisim starts at the identical second, under `semantics`.
fn agreement(case: &Path, semantics: Semantics) -> f64 {
    let report = run_case(case, semantics);
    let ours: HashMap<u64, i64> = report
        .workload
        .jobs
        .iter()
        .zip(&report.outcomes)
        .map(|(j, o)| (j.id, o.start))
        .collect();
    let maui = maui_starts(&case.join("maui-starts.csv"));
    let same = maui
        .iter()
        .filter(|(id, s)| ours.get(id) == Some(s))
        .count();
    100.0 * same as f64 / maui.len() as f64
}

/// The nodes Maui ran each job on (`maui-starts.csv`'s last field, `n3:n7:n7`) and the
/// nodes mauisim ran it on, as sets of names, for every job Maui ran.
fn node_sets(case: &Path, semantics: Semantics) -> Vec<(u64, Vec<String>, Vec<String>)> {
    let report = run_case(case, semantics);
    let ours: HashMap<u64, Vec<String>> = report
        .workload
        .jobs
        .iter()
        .zip(report.stats.job_nodes.iter())
        .map(|(j, ranges)| {
            let names = ranges.flat_map(|(a, b)| (a..=b).map(|n| format!("n{n}")));
            (j.id, names.collect())
        })
        .collect();
    let text = std::fs::read_to_string(case.join("maui-starts.csv")).unwrap();
    text.lines()
        .skip(1)
        .map(|line| {
            let mut fields = line.split(',');
            let id: u64 = fields.next().unwrap().parse().unwrap();
            let mut maui: Vec<String> = line
                .rsplit(',')
                .next()
                .unwrap()
                .split(':')
                .map(String::from)
                .collect();
            maui.sort();
            maui.dedup();
            let mut mine = ours.get(&id).cloned().unwrap_or_default();
            mine.sort();
            (id, maui, mine)
        })
        .collect()
}

/// Where 3.3.1's node choice is the point of a case (its available time on nodes of
/// several processors, DEDICATED's reservations, a site partition's backfill allocation),
/// mauisim runs every job on the nodes Maui ran it on.
#[test]
#[cfg_attr(
    not(maui_reference),
    ignore = "../shared/maui-reference is absent: agreement with Maui 3.3.1 not checked"
)]
fn node_choices_agree_where_they_are_the_point() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/maui_cases");
    for config in [
        "exactnode",
        "dedicated",
        "partfirst",
        "singleuser",
        "classfeatures",
        "nodemaxjobperuser",
        "nodemaxprocperuser",
        "nodemaxproc",
        "nodemaxpe",
        "nodemaxpeshare",
        "maxload",
        "featureheaders",
    ] {
        for seed in 1..=3 {
            let case = dir.join(format!("{config}-s{seed}"));
            let differ: Vec<u64> = node_sets(&case, semantics_for(config))
                .into_iter()
                .filter(|(_, maui, mine)| maui != mine)
                .map(|(id, _, _)| id)
                .collect();
            assert!(
                differ.is_empty(),
                "{config}-s{seed}: jobs on other nodes than Maui's: {differ:?}"
            );
        }
    }
}

/// GREEDY, chunking, DEFAULT idle limits and the nodes' start limits are where 3.3.1's
/// behaviour is not the default (3.3.1's GREEDY backfills nothing; its chunking never keeps
/// processors for a job wider than them; it holds a group, account, QOS or class to its
/// DEFAULT's idle limits only if that credential sets an idle limit itself; its simulation
/// mode's node job lists drop running jobs): their cases are compared with `maui-3.3.1`, the
/// others with `maui`.
fn semantics_for(config: &str) -> Semantics {
    if matches!(
        config,
        "greedy"
            | "chunk"
            | "idlesoft"
            | "nodemaxjobperuser"
            | "nodemaxprocperuser"
            | "nodemaxproc"
    ) {
        Semantics::Maui331
    } else {
        Semantics::Maui
    }
}

#[test]
#[cfg_attr(
    not(maui_reference),
    ignore = "../shared/maui-reference is absent: agreement with Maui 3.3.1 not checked"
)]
fn every_shared_case_agrees_at_least_as_recorded() {
    let dir = cases_dir();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("maui-starts.csv").is_file())
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no case in {}", dir.display());
    let mut below = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let (config, seed) = name.rsplit_once("-s").expect("cases are <config>-s<seed>");
        let got = agreement(case, semantics_for(config));
        let recorded = RECORDED
            .iter()
            .find(|(c, _)| *c == config)
            .zip(seed.parse::<usize>().ok())
            .and_then(|((_, figures), s)| figures.get(s.wrapping_sub(1)).copied());
        match recorded {
            Some(floor) if got + 0.05 < floor => {
                below.push(format!("{name}: {got:.1} % < {floor} %"))
            }
            Some(_) => {}
            None => eprintln!("{name}: {got:.1} % (no recorded figure)"),
        }
    }
    assert!(below.is_empty(), "agreement fell: {below:?}");
}

/// mauisim's own cases (`tests/maui_cases`, made by `scripts/maui-cases.sh` with the shared
/// harness from the real Maui 3.3.1): a standing reservation (with and without a time
/// entry), QOS preemption, the
/// old-style limit parameters, JOBNODEMATCHPOLICY EXACTNODE, soft idle limits, partitions,
/// node sets, the QOS flags RESERVEALWAYS, DEDICATED and PREEMPTSPV, NODEACCESSPOLICY
/// SINGLEUSER, USESYSTEMQUEUETIME FALSE, a class's NODEACCESSPOLICY and DEFAULT.FEATURES,
/// credentials' JOBFLAGS, a node's MAXJOB, MAXJOBPERUSER, MAXPROCPERUSER and MAXPROC, and
/// standing windows on part of a node.
#[test]
fn own_cases_agree_at_least_as_recorded() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/maui_cases");
    let mut below = Vec::new();
    let mut seen = 0;
    for (config, figures) in RECORDED {
        for (k, floor) in figures.iter().enumerate() {
            let case = dir.join(format!("{config}-s{}", k + 1));
            if !case.is_dir() {
                continue;
            }
            seen += 1;
            let got = agreement(&case, semantics_for(config));
            if got + 0.05 < *floor {
                below.push(format!("{config}-s{}: {got:.1} % < {floor} %", k + 1));
            }
        }
    }
    let on_disk = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().is_dir())
        .count();
    assert_eq!(
        (seen, on_disk),
        (126, 126),
        "every own case of RECORDED (three seeds of each config after the shared ones) is in {}, and every case there is recorded",
        dir.display()
    );
    assert!(below.is_empty(), "agreement fell: {below:?}");
}

/// Group DEFAULT idle limits bind every group by default, as the guide has DEFAULT
/// objects do; `maui-3.3.1` reproduces 3.3.1, which ignores them for a group without an
/// idle limit of its own (the own case where it shows).
#[test]
fn default_idle_limits_follow_the_guide_by_default_and_3_3_1_on_request() {
    let case = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/maui_cases/idlesoft-s3");
    assert_eq!(agreement(&case, Semantics::Maui331), 100.0);
    assert!(agreement(&case, Semantics::Maui) < 80.0);
}

/// The nodes' start limits count every running job by default; `maui-3.3.1` reproduces
/// 3.3.1's simulation mode, whose node job lists drop some (the own case where it shows).
#[test]
fn start_limits_count_every_running_job_by_default_and_3_3_1_s_lists_on_request() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/maui_cases");
    let case = dir.join("nodemaxjobperuser-s3");
    assert_eq!(agreement(&case, Semantics::Maui331), 100.0);
    assert!(agreement(&case, Semantics::Maui) < 50.0);
}

/// The option that reproduces 3.3.1's GREEDY really differs from the default, which
/// follows the guide and backfills.
#[test]
#[cfg_attr(
    not(maui_reference),
    ignore = "../shared/maui-reference is absent: agreement with Maui 3.3.1 not checked"
)]
fn greedy_follows_the_guide_by_default_and_3_3_1_on_request() {
    let dir = cases_dir();
    let case = dir.join("greedy-s1");
    if !case.is_dir() {
        return;
    }
    assert_eq!(agreement(&case, Semantics::Maui331), 100.0);
    assert!(agreement(&case, Semantics::Maui) < 50.0);
}
