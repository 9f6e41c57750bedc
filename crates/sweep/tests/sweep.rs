//! Sweeps end in the same files however they run: any thread count, resumed, or sharded
//! and merged; a failing run is recorded and the others go on; bad requests change nothing.

use mauisim_sim::trace::workload::Estimate;
use mauisim_sim::RunOptions;
use mauisim_sweep::grid::{parse_seeds, parse_set};
use mauisim_sweep::{compare, execute, merge, plan, Grid, Metric, Plan, Silent};
use std::fs;
use std::path::{Path, PathBuf};

const FILES: [&str; 3] = ["results.csv", "results.json", "summary.csv"];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn kth() -> PathBuf {
    repo().join("traces/KTH-SP2-1996-2.swf.gz")
}

/// The first 3,000 KTH jobs with f-model estimates (so that seeds matter).
fn base() -> RunOptions {
    let mut options = RunOptions::new(kth());
    options.transform.first = Some(3000);
    options.estimate = Estimate::FModel(2.0);
    options
}

fn checked(sets: &[&str], seeds: &str) -> plan::Checked {
    let axes = sets.iter().map(|s| parse_set(s).unwrap()).collect();
    plan::check(Plan {
        base: base(),
        grid: Grid::new(axes, parse_seeds(seeds).unwrap()).unwrap(),
        metric: Metric::default(),
    })
    .unwrap()
}

fn grid_sets() -> [&'static str; 2] {
    [
        "RESERVATIONDEPTH=1,4",
        "BACKFILLPOLICY=FIRSTFIT,BESTFIT,GREEDY",
    ]
}

fn read(dir: &Path, name: &str) -> String {
    fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

fn assert_same_results(a: &Path, b: &Path) {
    for name in FILES {
        assert_eq!(read(a, name), read(b, name), "{name} differs");
    }
}

#[test]
fn thread_count_resume_and_shards_give_the_same_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let sweep = checked(&grid_sets(), "1..2");
    let one = tmp.path().join("one");
    let report = execute(&sweep, &one, 1, None, &Silent).unwrap();
    assert_eq!(
        (report.total, report.ran, report.reused, report.failed),
        (12, 12, 0, 0)
    );

    let two = tmp.path().join("two");
    execute(&sweep, &two, 2, None, &Silent).unwrap();
    assert_same_results(&one, &two);

    // An interrupted sweep: two runs and the result files never written.
    fs::remove_dir_all(two.join("runs/0003")).unwrap();
    fs::remove_dir_all(two.join("runs/0010")).unwrap();
    for name in FILES {
        fs::remove_file(two.join(name)).unwrap();
    }
    let resumed = execute(&sweep, &two, 2, None, &Silent).unwrap();
    assert_eq!((resumed.ran, resumed.reused), (2, 10));
    assert_same_results(&one, &two);

    let shards: Vec<PathBuf> = (1..=3).map(|k| tmp.path().join(format!("s{k}"))).collect();
    for (k, dir) in shards.iter().enumerate() {
        let r = execute(&sweep, dir, 2, Some([k + 1, 3]), &Silent).unwrap();
        assert_eq!(r.total, 4);
    }
    let merged = tmp.path().join("merged");
    let in_any_order: Vec<&Path> = [&shards[2], &shards[0], &shards[1]]
        .iter()
        .map(|p| p.as_path())
        .collect();
    assert_eq!(merge::merge(&merged, &in_any_order).unwrap(), 12);
    assert_same_results(&one, &merged);
}

/// Two sweeps cannot write into one directory at once: a lock held by a running process
/// (here process 1, which always runs) refuses the second, changing nothing; one left by a
/// process that is gone is taken over. A resume removes the staged files a writer stopped
/// between writing and renaming left behind (a full disk, a kill), and the lock goes with
/// the sweep.
#[test]
fn a_sweep_directory_is_locked_and_a_resume_clears_what_a_stopped_writer_left() {
    let tmp = tempfile::tempdir().unwrap();
    let sweep = checked(&["RESERVATIONDEPTH=1,4"], "1");
    let dir = tmp.path().join("s");
    execute(&sweep, &dir, 1, None, &Silent).unwrap();
    let lock = dir.join(mauisim_sweep::store::LOCK);
    assert!(!lock.exists(), "the lock goes with the sweep");

    fs::write(&lock, "1\n").unwrap();
    let before = read(&dir, "results.csv");
    let e = execute(&sweep, &dir, 1, None, &Silent)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("is being written by another sweep (process 1)"),
        "{e}"
    );
    assert_eq!(read(&dir, "results.csv"), before);

    fs::write(&lock, "999999999\n").unwrap();
    let staged = dir.join("runs/0001/.summary.json.partial-999999999");
    fs::write(&staged, "half a file").unwrap();
    let resumed = execute(&sweep, &dir, 1, None, &Silent).unwrap();
    assert_eq!((resumed.ran, resumed.reused), (0, 2));
    assert!(!staged.exists(), "the staged file is gone");
    assert!(!lock.exists());
}

#[test]
fn rows_follow_grid_order_and_seeds_change_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    execute(&checked(&grid_sets(), "1..2"), &dir, 2, None, &Silent).unwrap();
    let results = read(&dir, "results.csv");
    let rows: Vec<Vec<&str>> = results.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(
        &rows[0][..6],
        [
            "run",
            "RESERVATIONDEPTH",
            "BACKFILLPOLICY",
            "seed",
            "status",
            "error"
        ]
    );
    let keys: Vec<String> = rows[1..].iter().map(|r| r[..4].join(" ")).collect();
    assert_eq!(keys[0], "0 1 FIRSTFIT 1");
    assert_eq!(keys[1], "1 1 FIRSTFIT 2");
    assert_eq!(keys[2], "2 1 BESTFIT 1");
    assert_eq!(keys[11], "11 4 GREEDY 2");
    let wait = rows[0].iter().position(|c| *c == "avg_wait").unwrap();
    assert_ne!(
        rows[1][wait], rows[2][wait],
        "seeds 1 and 2 draw other estimates"
    );

    // The swept value is the one the run used.
    let summary: serde_json::Value =
        serde_json::from_str(&read(&dir, "runs/0010/summary.json")).unwrap();
    let groups = &summary["config"]["policy"]["reservation_groups"];
    assert_eq!(groups[0]["depth"], 4, "{groups}");
    assert_eq!(summary["config"]["policy"]["backfill"], "GREEDY");
    assert_eq!(summary["seed"], 1);

    // summary.csv: per setting, the mean over its seeds with a t interval (1 df: the quantile is tan(0.475π) = 12.7062…).
    let table = read(&dir, "summary.csv");
    let header: Vec<&str> = table.lines().next().unwrap().split(',').collect();
    let first: Vec<&str> = table.lines().nth(1).unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|c| *c == name).unwrap();
    assert_eq!(&first[..5], ["0", "1", "FIRSTFIT", "2", "0"]);
    let (a, b): (f64, f64) = (
        rows[1][wait].parse().unwrap(),
        rows[2][wait].parse().unwrap(),
    );
    let mean: f64 = first[col("avg_wait")].parse().unwrap();
    let half: f64 = first[col("avg_wait_ci95")].parse().unwrap();
    assert!((mean - (a + b) / 2.0).abs() < 1e-9);
    let expected = (0.475 * std::f64::consts::PI).tan() * (a - b).abs() / 2.0;
    assert!(
        (half - expected).abs() < 1e-6 * expected,
        "{half} vs {expected}"
    );
    assert_eq!(table.lines().count(), 1 + 6);
}

#[test]
fn a_failing_run_is_recorded_and_the_others_go_on() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    // Both values are valid config; only the run finds that 3 does not divide 100.
    let sweep = checked(&["NODECFG[DEFAULT] PROCS=3,4"], "1");
    let report = execute(&sweep, &dir, 2, None, &Silent).unwrap();
    assert_eq!((report.ran, report.failed), (2, 1));
    let results = read(&dir, "results.csv");
    let rows: Vec<&str> = results.lines().collect();
    assert!(
        rows[1].starts_with(
            "0,3,1,failed,NODECFG[DEFAULT] PROCS=3 does not divide the machine's 100 processors,"
        ),
        "{}",
        rows[1]
    );
    assert!(rows[2].starts_with("1,4,1,ok,,"), "{}", rows[2]);
    let json: serde_json::Value = serde_json::from_str(&read(&dir, "results.json")).unwrap();
    assert_eq!(json["runs"][0]["status"], "failed");
    assert_eq!(json["runs"][1]["metrics"]["jobs"], 3000);
    // Resuming tries the failed run again (it fails again) and keeps the good one.
    let again = execute(&sweep, &dir, 1, None, &Silent).unwrap();
    assert_eq!((again.ran, again.reused, again.failed), (1, 1, 1));
}

#[test]
fn a_directory_of_something_else_is_never_touched() {
    let tmp = tempfile::tempdir().unwrap();
    let sweep = checked(&["RESERVATIONDEPTH=1,2"], "1");

    let occupied = tmp.path().join("occupied");
    fs::create_dir(&occupied).unwrap();
    fs::write(occupied.join("notes.txt"), "mine").unwrap();
    let e = execute(&sweep, &occupied, 1, None, &Silent).unwrap_err();
    assert!(e.to_string().contains("is not a sweep directory"), "{e}");
    let left: Vec<_> = fs::read_dir(&occupied).unwrap().collect();
    assert_eq!(left.len(), 1);

    let dir = tmp.path().join("s");
    execute(&sweep, &dir, 1, None, &Silent).unwrap();
    let before = read(&dir, "results.csv");
    let other = checked(&["RESERVATIONDEPTH=1,3"], "1");
    let e = execute(&other, &dir, 1, None, &Silent).unwrap_err();
    assert!(
        e.to_string()
            .contains("holds another sweep (not the same: the grid)"),
        "{e}"
    );
    let e = execute(&sweep, &dir, 1, Some([1, 2]), &Silent).unwrap_err();
    assert!(
        e.to_string()
            .contains("holds the whole grid of this sweep, not shard 1/2"),
        "{e}"
    );
    let e = execute(&sweep, &dir, 1, Some([3, 2]), &Silent).unwrap_err();
    assert!(e.to_string().contains("K must be within 1..=2"), "{e}");
    assert_eq!(read(&dir, "results.csv"), before);
}

#[test]
fn merge_refuses_what_is_not_one_whole_sweep() {
    let tmp = tempfile::tempdir().unwrap();
    let sweep = checked(&["RESERVATIONDEPTH=1,2,4"], "1");
    let other = checked(&["RESERVATIONDEPTH=1,2,8"], "1");
    let dir = |name: &str| tmp.path().join(name);
    execute(&sweep, &dir("a1"), 1, Some([1, 2]), &Silent).unwrap();
    execute(&sweep, &dir("a2"), 1, Some([2, 2]), &Silent).unwrap();
    execute(&other, &dir("b2"), 1, Some([2, 2]), &Silent).unwrap();
    execute(&sweep, &dir("whole"), 1, None, &Silent).unwrap();
    let merged = dir("merged");
    let fails = |shards: &[&str], message: &str| {
        let paths: Vec<PathBuf> = shards.iter().map(|s| dir(s)).collect();
        let refs: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
        let e = merge::merge(&merged, &refs).unwrap_err();
        assert!(e.to_string().contains(message), "{e}");
        assert!(!merged.exists(), "nothing written for: {message}");
    };
    fails(&["a1"], "shards 2/2 are missing");
    fails(
        &["a1", "b2"],
        "shards of different sweeps (not the same: the grid)",
    );
    fails(&["a1", "a1"], "both hold shard 1/2");
    fails(&["whole"], "holds a whole sweep, not a shard");
    fails(&["nowhere"], "is not a sweep directory");
    // A shard cut short: one of its runs has no result yet.
    fs::remove_dir_all(dir("a2").join("runs/0001")).unwrap();
    fails(&["a1", "a2"], "shard 2/2 in");

    execute(&sweep, &dir("a2"), 1, Some([2, 2]), &Silent).unwrap();
    merge::merge(&merged, &[dir("a1").as_path(), dir("a2").as_path()]).unwrap();
    assert_same_results(&dir("whole"), &merged);
}

#[test]
fn comparing_a_config_with_itself_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a.cfg");
    let b = tmp.path().join("b.cfg");
    fs::write(&a, "RESERVATIONDEPTH 1\n").unwrap();
    fs::write(&b, "USERCFG[DEFAULT] MAXJOB=1\n").unwrap();
    let same = compare::compare(&base(), &a, &a, &[1, 2], 2).unwrap();
    for m in &same.metrics {
        assert_eq!(m.change, 0.0, "{}", m.metric);
        assert_eq!(m.ci95, Some([0.0, 0.0]), "{}", m.metric);
    }
    assert!(same.credentials.iter().all(|c| c.change == 0.0));

    // One job per user at a time: users with many jobs wait more, and the list starts
    // with the largest change.
    let limited = compare::compare(&base(), &a, &b, &[1, 2], 2).unwrap();
    let wait = limited
        .metrics
        .iter()
        .find(|m| m.metric == "avg_wait")
        .unwrap();
    assert!(wait.change > 0.0, "{wait:?}");
    let changes: Vec<f64> = limited.credentials.iter().map(|c| c.change.abs()).collect();
    assert!(changes.windows(2).all(|w| w[0] >= w[1]));
    assert!(limited.credentials[0].change > 0.0);
    let text = compare::to_text(&limited, 3);
    assert!(text.contains("Who waits more under B"), "{text}");
    compare::write(&tmp.path().join("out"), &limited).unwrap();
    let csv = read(&tmp.path().join("out"), "credentials.csv");
    assert!(csv.starts_with("kind,name,jobs_a,jobs_b,avg_wait_a,avg_wait_b,change\n"));
}

#[test]
fn the_three_example_sweeps_run_and_set_what_they_sweep() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, runs, path, values) in [
        (
            "reservation-depth",
            40,
            "/config/policy/reservation_groups/0/depth",
            vec!["1", "2", "4", "8"],
        ),
        (
            "bfchunksize",
            5,
            "/config/policy/chunking/size",
            vec!["0", "4", "8", "16", "32"],
        ),
        (
            "fsdecay",
            6,
            "/config/policy/fairshare/decay",
            vec!["0.5", "0.6", "0.7", "0.8", "0.9", "1.0"],
        ),
    ] {
        let file = repo().join(format!("scenarios/sweeps/{name}.toml"));
        let from = plan::read_file(&file).unwrap();
        let mut base = RunOptions::new(from.trace.unwrap());
        base.config = from.config;
        let plan = Plan {
            base,
            grid: Grid::new(from.axes, from.seeds.unwrap_or(vec![1])).unwrap(),
            metric: Metric::named(&from.metric.unwrap()).unwrap(),
        };
        assert_eq!(plan.grid.axes[0].values, values, "{name}");
        let checked = plan::check(plan).unwrap();
        let dir = tmp.path().join(name);
        let report = execute(&checked, &dir, 2, None, &Silent).unwrap();
        assert_eq!((report.total, report.failed), (runs, 0), "{name}");
        for index in 0..runs {
            let point = checked.plan.grid.point(index);
            let run = format!("runs/{index:04}/summary.json");
            let summary: serde_json::Value = serde_json::from_str(&read(&dir, &run)).unwrap();
            let used = summary
                .pointer(path)
                .unwrap_or_else(|| panic!("{name}: {path}"));
            let swept: f64 = point.values[0].1.parse().unwrap();
            assert_eq!(used.as_f64(), Some(swept), "{name} run {index}");
        }
    }
}
