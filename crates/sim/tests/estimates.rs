//! Estimate models (issue 8, item 1): the wallclock limit drawn from the runtime, seeded.

use mauisim_sim::params::{self, SimWc};
use mauisim_sim::trace::workload::{self, Estimate, Filter, LoadOptions, MachineOverride};
use std::path::Path;

fn kth(estimate: Estimate, seed: u64) -> Vec<(i64, i64)> {
    kth_with(estimate, seed, SimWc::default())
}

fn kth_with(estimate: Estimate, seed: u64, sim_wc: SimWc) -> Vec<(i64, i64)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces/KTH-SP2-1996-2.swf.gz");
    let options = LoadOptions {
        filter: Filter::None,
        estimate,
        seed,
        sim_wc,
        machine: MachineOverride::default(),
        default_wclimit: None,
        class_wclimit: Default::default(),
    };
    let w = workload::load(&path, &options).unwrap();
    w.jobs.iter().map(|j| (j.runtime, j.wcl)).collect()
}

#[test]
fn f_model_draws_between_the_runtime_and_f_times_it() {
    let jobs = kth(Estimate::FModel(3.0), 7);
    for &(run, wcl) in &jobs {
        let run = run.max(1);
        assert!(
            wcl >= run && (wcl as f64) <= (run as f64 * 3.0).ceil(),
            "{run} {wcl}"
        );
    }
    // Mean of U(1, 3) is 2: the mean ratio lands close to it on 28,000 jobs.
    let mean: f64 = jobs
        .iter()
        .map(|&(r, w)| w as f64 / r.max(1) as f64)
        .sum::<f64>()
        / jobs.len() as f64;
    assert!((mean - 2.0).abs() < 0.05, "{mean}");
    // F = 1 is exact.
    assert!(kth(Estimate::FModel(1.0), 7)
        .iter()
        .all(|&(r, w)| w == r.max(1)));
}

#[test]
fn accuracy_model_reaches_the_asked_mean() {
    for target in [0.3, 0.5, 0.8] {
        let jobs = kth(Estimate::Accuracy(target), 3);
        let mean: f64 = jobs
            .iter()
            .map(|&(r, w)| r.max(1) as f64 / w as f64)
            .sum::<f64>()
            / jobs.len() as f64;
        // Rounding WCL up to whole seconds lowers accuracy a little on short jobs.
        assert!((mean - target).abs() < 0.02, "target {target}: mean {mean}");
    }
}

#[test]
fn same_seed_same_limits_other_seeds_differ() {
    let a = kth(Estimate::FModel(5.0), 42);
    assert_eq!(a, kth(Estimate::FModel(5.0), 42));
    assert_ne!(a, kth(Estimate::FModel(5.0), 43));
    // Models without draws ignore the seed.
    assert_eq!(kth(Estimate::Trace, 1), kth(Estimate::Trace, 2));
}

#[test]
fn estimate_names_parse_and_bad_ones_say_why() {
    assert_eq!("trace".parse::<Estimate>(), Ok(Estimate::Trace));
    assert_eq!("exact".parse::<Estimate>(), Ok(Estimate::Exact));
    assert_eq!("f-model:2.5".parse::<Estimate>(), Ok(Estimate::FModel(2.5)));
    assert_eq!(
        "accuracy:0.4".parse::<Estimate>(),
        Ok(Estimate::Accuracy(0.4))
    );
    for (text, message) in [
        ("f-model:0.5", "F >= 1"),
        ("f-model:x", "`x` is not a number"),
        ("accuracy:0", "0 < A <= 1"),
        ("accuracy:1.5", "0 < A <= 1"),
        ("accuracy:NaN", "is not a number"),
        ("guess", "unknown estimate model `guess`"),
    ] {
        let e = text.parse::<Estimate>().unwrap_err();
        assert!(e.contains(message), "{text}: {e}");
    }
}

/// Maui's SIMWCSCALINGPERCENT, SIMWCACCURACY and SIMWCACCURACYCHANGE, read from maui.cfg.
#[test]
fn maui_sim_parameters_reshape_runtimes_and_limits() {
    let read = |text: &str| params::from_str(text, "maui.cfg").map(|c| c.config.sim_wc);
    let trace = kth(Estimate::Trace, 1);
    // Scaling: both halved (rounded).
    let half = kth_with(
        Estimate::Trace,
        1,
        read("SIMWCSCALINGPERCENT 50\n").unwrap(),
    );
    for (&(r, w), &(r2, w2)) in trace.iter().zip(&half) {
        assert!(
            (r2 - (r as f64 / 2.0).round() as i64).abs() <= 1 && r2 >= 1,
            "{r} {r2}"
        );
        assert_eq!(w2, ((w as f64) / 2.0).ceil().max(1.0) as i64);
    }
    // Accuracy 0.6: runtime within 0.57–0.63 of the limit.
    let acc = kth_with(Estimate::Trace, 1, read("SIMWCACCURACY 0.6\n").unwrap());
    for &(r, w) in &acc {
        let ratio = r as f64 / w as f64;
        assert!(w < 20 || (0.56..=0.64).contains(&ratio), "{r} {w}");
    }
    // Change 100 %: the limit moves all the way to the runtime.
    let exact = kth_with(
        Estimate::Trace,
        1,
        read("SIMWCACCURACYCHANGE 100\n").unwrap(),
    );
    assert!(exact.iter().all(|&(r, w)| w == r.max(1)));
    for (text, message) in [
        ("SIMWCACCURACY 1.5\n", "SIMWCACCURACY: expected 0 to 1"),
        ("SIMWCSCALINGPERCENT 0\n", "expected a positive percent"),
        ("SIMWCACCURACYCHANGE 150\n", "from -100 to 100"),
        ("WCVIOLATIONACTION PREEMPT\n", "mauisim does not requeue"),
        ("WCVIOLATIONACTION WARN\n", "expected CANCEL or PREEMPT"),
    ] {
        let e = read(text).unwrap_err().to_string();
        assert!(
            e.starts_with("maui.cfg:1:") && e.contains(message),
            "{text}: {e}"
        );
    }
    assert!(read("WCVIOLATIONACTION CANCEL\n").is_ok());
}

/// CLASSCFG[c] OVERRUN replaces JOBMAXOVERRUN for that class (DEFAULT for the others).
#[test]
fn class_overrun_replaces_the_global_allowance() {
    let text = r#"title = "overrun"
procs = 2
config = """
JOBMAXOVERRUN 0
CLASSCFG[long] OVERRUN=0:30:00
"""

[[job]]
name = "A"
procs = 1
class = "long"
limit = "1:00:00"
runtime = "2:00:00"

[[job]]
name = "B"
procs = 1
class = "short"
limit = "1:00:00"
runtime = "2:00:00"

[[expect]]
job = "A"
end = "1:30:00"

[[expect]]
job = "B"
end = "1:00:00"

[[variant]]
name = "unbounded by default"
config = "CLASSCFG[DEFAULT] OVERRUN=-1"

[[variant.expect]]
job = "A"
end = "1:30:00"

[[variant.expect]]
job = "B"
end = "2:00:00"
"#;
    let s = mauisim_sim::scenario::parse(text, Path::new("overrun.toml")).unwrap();
    let result = mauisim_sim::scenario::run(&s).unwrap();
    assert_eq!(
        result.failures(),
        0,
        "{}",
        mauisim_sim::scenario::to_text(&result)
    );
}

/// A job of `user` (an id), for the predictor's per-user history.
fn job(id: u64, user: u32, submit: i64, run: i64, wcl: i64, procs: u64) -> workload::Job {
    let mut j = workload::Job::synthetic(id, submit, run, wcl, procs);
    j.creds
        .set(mauisim_core::CredKind::User, mauisim_core::CredId(user));
    j
}

/// Tsafrir's predictor, worked by hand on 2 processors. J1 (user 1, 2 procs, runs 100 s
/// of a 10,000 s limit) ends at 100, so J2 (user 1, 1 proc, runs 50 s), submitted then, is
/// predicted at 100 s. J3 (user 2, 2 procs, 100 s limit) waits for J2 and J4 (user 3,
/// 1 proc, 500 s) asks to backfill. Planning with limits, J3's reservation is at J2's
/// limit (10,100), so J4 backfills at once and J3 waits for it (600). With predictions,
/// J3 is reserved at 200: J4 would delay it and waits; J2 ends at 150, J3 starts then and
/// J4 after it (250).
#[test]
fn tsafrir_predictions_change_what_backfills() {
    use mauisim_core::PolicyConfig;
    use mauisim_sim::engine::{machine_of, simulate, EngineOptions, Predictor};
    let jobs = vec![
        job(1, 1, 0, 100, 10_000, 2),
        job(2, 1, 100, 50, 10_000, 1),
        job(3, 2, 100, 100, 100, 2),
        job(4, 3, 100, 500, 500, 1),
    ];
    let starts = |predictor| {
        let options = EngineOptions {
            predictor,
            ..EngineOptions::default()
        };
        let (o, _) = simulate(&jobs, machine_of(2), PolicyConfig::default(), options).unwrap();
        o.iter().map(|o| (o.start, o.end)).collect::<Vec<_>>()
    };
    assert_eq!(
        starts(Predictor::Limit),
        vec![(0, 100), (100, 150), (600, 700), (100, 600)]
    );
    assert_eq!(
        starts(Predictor::Tsafrir),
        vec![(0, 100), (100, 150), (150, 250), (250, 750)]
    );
}

/// A job outliving its prediction is predicted again, step by step: J2 (user 1) is
/// predicted at 10 s from J1's history but runs 400 s of its 1,000 s limit. J3 (2 procs)
/// waits behind it and is reserved at J2's start (10) plus each prediction in turn: 10,
/// then the corrections 60, 300 and 900; it starts when J2 ends, at 410.
#[test]
fn exceeded_predictions_are_corrected() {
    use mauisim_core::PolicyConfig;
    use mauisim_sim::engine::{machine_of, simulate, EngineOptions, Predictor};
    let jobs = vec![
        job(1, 1, 0, 10, 1000, 2),
        job(2, 1, 10, 400, 1000, 1),
        job(3, 2, 10, 50, 50, 2),
    ];
    let options = EngineOptions {
        predictor: Predictor::Tsafrir,
        record_reservations: true,
        ..EngineOptions::default()
    };
    let (o, stats) = simulate(&jobs, machine_of(2), PolicyConfig::default(), options).unwrap();
    assert_eq!((o[1].start, o[1].end, o[1].cancelled), (10, 410, false));
    assert_eq!(o[2].start, 410);
    let promised: Vec<i64> = stats
        .reservations
        .iter()
        .filter(|r| r.1 == 2)
        .map(|r| r.2)
        .collect();
    assert_eq!(promised, vec![20, 70, 310, 910]);
}

/// A trace read as it is, on `nodes` nodes of `procs_per_node` processors.
fn as_given(nodes: u64, procs_per_node: u64) -> LoadOptions {
    LoadOptions {
        filter: Filter::None,
        estimate: Estimate::Trace,
        seed: 1,
        sim_wc: SimWc::default(),
        machine: MachineOverride {
            nodes: Some(nodes),
            procs_per_node: Some(procs_per_node),
            procs: None,
        },
        default_wclimit: None,
        class_wclimit: Default::default(),
    }
}

/// Maui's 44-field workload trace runs as it is: names, QOS, account and processors per
/// task come from the line; a job that never ran is skipped and counted; the machine size
/// comes from the command line (these traces have no header).
#[test]
fn maui_workload_traces_are_read() {
    use mauisim_core::CredKind;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/example.maui-trace");
    let options = as_given(2, 4);
    let w = workload::load(&path, &options).unwrap();
    assert_eq!(w.records, 4);
    assert_eq!(w.skipped.get("not_run"), Some(&1));
    let ids: Vec<u64> = w.jobs.iter().map(|j| j.id).collect();
    assert_eq!(ids, [1001, 1002, 1004]);
    let bob = &w.jobs[1];
    assert_eq!(
        w.names.name(CredKind::User, bob.creds.get(CredKind::User)),
        "bob"
    );
    assert_eq!(
        w.names
            .name(CredKind::Class, bob.creds.get(CredKind::Class)),
        "batch"
    );
    assert_eq!(w.names.name(CredKind::Qos, bob.requested_qos()), "high");
    assert_eq!(
        (bob.procs, bob.request.procs_per_task, bob.request.mem),
        (4, 2, 256)
    );
    assert_eq!((bob.runtime, bob.wcl), (3600, 7200));
    let no_size = LoadOptions {
        machine: MachineOverride::default(),
        ..options
    };
    let e = workload::load(&path, &no_size).unwrap_err().to_string();
    assert!(e.contains("pass --procs N"), "{e}");
    assert!(w.notes.is_empty(), "{:?}", w.notes);
}

/// A Maui trace job's job flags, required hosts and reservation (fields 25, 40, 41) are not
/// simulated: the run says how many jobs ask for each, and names the first.
#[test]
fn maui_trace_asks_that_are_not_simulated_are_counted() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/example.maui-trace");
    let text = std::fs::read_to_string(example).unwrap();
    let mut ran = 0;
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            let mut f: Vec<&str> = line.split_whitespace().collect();
            if f.len() != 44 || f[6] != "Completed" {
                return line.to_string();
            }
            ran += 1;
            if ran <= 2 {
                f[39] = "n1:n2";
            }
            if ran == 3 {
                f[24] = "PREEMPTEE";
            }
            f.join(" ")
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("asks.maui-trace");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let w = workload::load(&path, &as_given(2, 4)).unwrap();
    let p = path.display();
    assert_eq!(
        w.notes,
        [
            format!("{p}:6: 1 job asks for job flags (field 25; job 1004 for `PREEMPTEE` first): not simulated, run as if none were asked"),
            format!("{p}:3: 2 jobs ask for required hosts (field 40; job 1001 for `n1:n2` first): not simulated, run as if none were asked"),
        ]
    );
}

/// A job that requests no time gets its class's DEFAULT.WCLIMIT, else CLASSCFG[DEFAULT]'s
/// (3.3.1 fills the job's limit from its class's defaults), else its runtime.
#[test]
fn a_job_without_a_requested_time_gets_its_class_default() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.swf");
    // Jobs 1-3 of queues 1, 2 and none ask no time; job 4 of queue 1 asks 50 s.
    let line = |id: u32, queue: i32, requested: i32| {
        format!("{id} 0 0 100 1 -1 -1 1 {requested} -1 1 1 1 -1 {queue} -1 -1 -1\n")
    };
    let text = [
        line(1, 1, -1),
        line(2, 2, -1),
        line(3, -1, -1),
        line(4, 1, 50),
    ]
    .concat();
    std::fs::write(&trace, text).unwrap();
    let config = params::from_str(
        "CLASSCFG[DEFAULT] DEFAULT.WCLIMIT=1:00:00\nCLASSCFG[1] DEFAULT.WCLIMIT=0:10:00\n",
        "maui.cfg",
    )
    .unwrap()
    .config;
    let options = LoadOptions {
        default_wclimit: config.default_wclimit,
        class_wclimit: config.class_wclimit.clone(),
        ..as_given(4, 1)
    };
    let w = workload::load(&trace, &options).unwrap();
    let limits: Vec<(u64, i64)> = w.jobs.iter().map(|j| (j.id, j.wcl)).collect();
    assert_eq!(limits, [(1, 600), (2, 3600), (3, 3600), (4, 50)]);
}
