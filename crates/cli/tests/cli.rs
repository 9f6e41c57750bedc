//! The `mauisim` binary as a user meets it: outputs, determinism, and bad input.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const RECORD: &str = "1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n";

fn mauisim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mauisim"))
        .args(args)
        .output()
        .expect("runs")
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn write(dir: &Path, name: &str, content: &[u8]) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, content).unwrap();
    path
}

/// A valid trace of one 4-processor job on an 8-processor machine.
fn one_job_trace(dir: &Path) -> PathBuf {
    write(dir, "t.swf", format!("; MaxProcs: 8\n{RECORD}").as_bytes())
}

/// Runs `mauisim` expecting success; its standard output.
fn succeeds(args: &[&str]) -> String {
    let out = mauisim(args);
    assert!(out.status.success(), "{}", stderr(&out));
    String::from_utf8(out.stdout).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts that a command failed with `message` in its stderr.
fn fails_saying(o: &Output, message: &str) {
    assert!(!o.status.success(), "should fail: {message}");
    let err = stderr(o);
    assert!(err.contains(message), "expected `{message}` in:\n{err}");
}

/// Runs and expects failure with `message` in stderr and no output directory.
fn fails_with(trace: &Path, extra: &[&str], message: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let mut args = vec![
        "run",
        trace.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    fails_saying(&mauisim(&args), message);
    assert!(!out.exists(), "no output directory after an error");
    let leftovers: Vec<_> = fs::read_dir(tmp.path()).unwrap().collect();
    assert!(leftovers.is_empty(), "nothing left behind: {leftovers:?}");
}

#[test]
fn run_writes_every_output_and_is_deterministic() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = repo().join("traces/HPC2N-2002-2.2-excerpt-from-Alea.swf.gz");
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    for dir in [&a, &b] {
        succeeds(&[
            "run",
            trace.to_str().unwrap(),
            "--out",
            dir.to_str().unwrap(),
        ]);
    }
    for file in ["jobs.csv", "schedule.swf"] {
        assert_eq!(
            fs::read(a.join(file)).unwrap(),
            fs::read(b.join(file)).unwrap(),
            "{file}"
        );
    }
    let summary = |dir: &Path| {
        let mut v: serde_json::Value =
            serde_json::from_slice(&fs::read(dir.join("summary.json")).unwrap()).unwrap();
        let o = v.as_object_mut().unwrap();
        o.remove("sim_seconds");
        o.remove("jobs_per_second");
        v
    };
    let s = summary(&a);
    assert_eq!(
        s,
        summary(&b),
        "summary.json differs beyond its timing keys"
    );
    // 3,170 records, 25 with runtime -1 and 1 with runtime 0 are skipped and counted.
    assert_eq!(s["records"], 3170);
    assert_eq!(s["skipped"]["unknown_runtime"], 25);
    assert_eq!(
        s["jobs"].as_u64().unwrap() + s["skipped_total"].as_u64().unwrap(),
        3170
    );
    for key in [
        "makespan",
        "utilization",
        "avg_wait",
        "median_wait",
        "p95_wait",
        "max_wait",
        "avg_bounded_slowdown",
        "avg_xfactor",
        "avg_xfactor_ps_weighted",
        "backfilled_fraction",
        "avg_wallclock_accuracy",
        "avg_bypass",
        "max_bypass",
        "reserved_jobs",
        "reservations_kept_fraction",
        "avg_reservation_delay",
        "max_reservation_delay",
    ] {
        assert!(s[key].is_number(), "{key}");
    }
    let csv = fs::read_to_string(a.join("jobs.csv")).unwrap();
    assert!(csv.starts_with(
        "id,submit,start,end,wait,runtime,wcl,procs,user,group,account,qos,class,backfilled,cancelled,preemptions,bypass,first_reservation,reservation_delay,nodes\n"
    ));
    assert_eq!(csv.lines().count() as u64, 1 + s["jobs"].as_u64().unwrap());
}

/// schedule.swf is valid SWF: mauisim reads it back, and replaying it with exact
/// estimates keeps every job.
#[test]
fn schedule_swf_reads_back() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = repo().join("traces/HPC2N-2002-2.2-excerpt-from-Alea.swf.gz");
    let first = tmp.path().join("first");
    assert!(mauisim(&[
        "run",
        trace.to_str().unwrap(),
        "--out",
        first.to_str().unwrap()
    ])
    .status
    .success());
    let second = tmp.path().join("second");
    succeeds(&[
        "run",
        first.join("schedule.swf").to_str().unwrap(),
        "--out",
        second.to_str().unwrap(),
    ]);
    let rows = |d: &Path| {
        fs::read_to_string(d.join("jobs.csv"))
            .unwrap()
            .lines()
            .count()
    };
    assert_eq!(rows(&first), rows(&second));
    // It keeps the SWF version and the input's calendar, so SWF tools can date it.
    let swf = fs::read_to_string(first.join("schedule.swf")).unwrap();
    let header: Vec<&str> = swf.lines().take_while(|l| l.starts_with(';')).collect();
    assert_eq!(header[0], "; Version: 2.2");
    for line in [
        "; UnixStartTime: 1027839845",
        "; TimeZone: 3600",
        "; TimeZoneString: Europe/Stockholm",
    ] {
        assert!(header.contains(&line), "{line} missing from {header:?}");
    }
}

#[test]
fn a_line_with_17_fields() {
    let tmp = tempfile::tempdir().unwrap();
    let t = write(
        tmp.path(),
        "t.swf",
        format!("; MaxProcs: 8\n{RECORD}2 5 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1\n").as_bytes(),
    );
    fails_with(&t, &[], "t.swf:3: expected 18 fields, found 17");
}

#[test]
fn text_in_a_numeric_field() {
    let tmp = tempfile::tempdir().unwrap();
    let t = write(
        tmp.path(),
        "t.swf",
        b"; MaxProcs: 8\n1 0 -1 100 four -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n",
    );
    fails_with(
        &t,
        &[],
        "t.swf:2: field 5 (allocated processors): expected a number, found `four`",
    );
}

#[test]
fn an_empty_trace() {
    let tmp = tempfile::tempdir().unwrap();
    let t = write(tmp.path(), "t.swf", b"; MaxProcs: 8\n");
    fails_with(&t, &[], "no job records (an empty trace)");
}

#[test]
fn a_truncated_gzip() {
    let tmp = tempfile::tempdir().unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    for i in 0..2000 {
        writeln!(
            gz,
            "{} {} -1 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1",
            i + 1,
            i * 10
        )
        .unwrap();
    }
    let bytes = gz.finish().unwrap();
    let t = write(tmp.path(), "t.swf.gz", &bytes[..bytes.len() / 2]);
    fails_with(&t, &["--procs", "8"], "corrupt or truncated gzip stream");
}

#[test]
fn no_machine_size() {
    let tmp = tempfile::tempdir().unwrap();
    let t = write(tmp.path(), "t.swf", RECORD.as_bytes());
    fails_with(
        &t,
        &[],
        "no machine size (MaxProcs or MaxNodes): pass --procs N",
    );
}

#[test]
fn a_config_with_a_bad_value() {
    let tmp = tempfile::tempdir().unwrap();
    let t = one_job_trace(tmp.path());
    let c = write(
        tmp.path(),
        "maui.cfg",
        b"# policy\nRESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSFIT\n",
    );
    fails_with(&t, &["--config", c.to_str().unwrap()], "maui.cfg:3:16: BACKFILLPOLICY: expected FIRSTFIT, BESTFIT, GREEDY or NONE, found `FIRSFIT`");
}

#[test]
fn a_config_typo_warns_with_the_nearest_name_and_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let t = one_job_trace(tmp.path());
    let c = write(tmp.path(), "maui.cfg", b"RESERVATONDEPTH 2\n");
    let out = tmp.path().join("out");
    let o = mauisim(&[
        "run",
        t.to_str().unwrap(),
        "--config",
        c.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    assert!(stderr(&o).contains("maui.cfg:1:1: warning: unknown parameter RESERVATONDEPTH; did you mean RESERVATIONDEPTH?"), "{}", stderr(&o));
}

#[test]
fn every_record_skipped_is_an_error_naming_the_reasons() {
    let tmp = tempfile::tempdir().unwrap();
    let t = write(
        tmp.path(),
        "t.swf",
        b"; MaxProcs: 2\n1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n",
    );
    fails_with(
        &t,
        &[],
        "all 1 records were skipped: larger_than_machine: 1",
    );
}

#[test]
fn a_missing_trace() {
    let tmp = tempfile::tempdir().unwrap();
    fails_with(
        &tmp.path().join("nope.swf"),
        &[],
        "nope.swf: No such file or directory",
    );
    // The reason is given once.
    let o = mauisim(&[
        "run",
        tmp.path().join("nope.swf").to_str().unwrap(),
        "--out",
        tmp.path().join("o").to_str().unwrap(),
    ]);
    assert_eq!(
        stderr(&o).matches("No such file or directory").count(),
        1,
        "{}",
        stderr(&o)
    );
}

/// Two processors; job 1 runs the first hour, jobs 2 (1 processor) and 3 (2) wait behind it.
fn three_job_trace(dir: &Path) -> PathBuf {
    write(
        dir,
        "t.swf",
        "; MaxProcs: 2\n\
         1 0 -1 3600 2 -1 -1 2 3600 -1 1 7 1 -1 1 -1 -1 -1\n\
         2 60 -1 600 1 -1 -1 1 600 -1 1 8 2 -1 1 -1 -1 -1\n\
         3 120 -1 600 2 -1 -1 2 600 -1 1 9 2 -1 1 -1 -1 -1\n"
            .as_bytes(),
    )
}

/// `mauisim inspect TRACE -c CONFIG --at 00:10:00 priority EXTRA…`.
fn inspect_priority_at_ten_minutes(trace: &str, config: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "inspect", trace, "-c", config, "--at", "00:10:00", "priority",
    ];
    args.extend_from_slice(extra);
    succeeds(&args)
}

/// `inspect … priority`: the diagnose -p table, and the same numbers as CSV and JSON.
#[test]
fn inspect_priority_in_every_format() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = three_job_trace(tmp.path());
    let config = write(
        tmp.path(),
        "maui.cfg",
        b"PROCWEIGHT 100\nUSERWEIGHT 1\nUSERCFG[8] PRIORITY=7\n",
    );
    let (trace, config) = (trace.to_str().unwrap(), config.to_str().unwrap());
    // The queue time now (Maui's semantics count the queue time its last selection saw,
    // asserted below).
    let inspect = |format: &str| {
        inspect_priority_at_ten_minutes(
            trace,
            config,
            &["--semantics", "research-easy", "--format", format],
        )
    };
    let text = inspect("text");
    assert!(
        text.starts_with("Job priorities at t=600 (0:10:00): 2 idle jobs"),
        "{text}"
    );
    // Job 3 (2 procs: 200 + 8 min) ranks above job 2 (1 proc: 100 + 9 min + user 7).
    let ranks: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with('2') || l.starts_with('3'))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(ranks, ["3", "2"], "{text}");
    let csv = inspect("csv");
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "job,state,user,group,account,qos,class,submit,queued,priority,raw,SERV,QUEUETIME_factor,QUEUETIME_value,CRED,USER_factor,USER_value,RES,PROC_factor,PROC_value"
    );
    assert_eq!(
        lines.next().unwrap(),
        "3,idle,9,2,-,DEFAULT,1,120,480,208,208,8,8,8,0,0,0,200,2,200"
    );
    assert_eq!(
        lines.next().unwrap(),
        "2,idle,8,2,-,DEFAULT,1,60,540,116,116,9,9,9,7,7,7,100,1,100"
    );
    let json: serde_json::Value = serde_json::from_str(&inspect("json")).unwrap();
    assert_eq!(json["at"], 600);
    assert_eq!(json["jobs"][0]["job"], 3);
    assert_eq!(json["jobs"][1]["components"][1]["name"], "CRED");
    assert_eq!(json["jobs"][1]["components"][1]["value"], 7.0);
    // Under the default (Maui) semantics job 2 counts the minute it had waited at the last
    // selection (0:02:00); job 3 had waited none then, and a job selected with no queue
    // time counts its queue time now, as 3.3.1 does.
    let maui = inspect_priority_at_ten_minutes(trace, config, &["--format", "csv"]);
    let rows: Vec<&str> = maui.lines().skip(1).collect();
    assert_eq!(
        rows,
        [
            "3,idle,9,2,-,DEFAULT,1,120,480,208,208,8,8,8,0,0,0,200,2,200",
            "2,idle,8,2,-,DEFAULT,1,60,60,108,108,1,1,1,7,7,7,100,1,100"
        ]
    );
}

/// The "Percent Contribution" row gives each subcomponent's share of the priority with its
/// component's weight applied, so a component's one subcomponent has the component's share
/// (issue 25: with SERVICEWEIGHT 10 it once printed a tenth of it).
#[test]
fn inspect_priority_percent_contribution_applies_component_weights() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = three_job_trace(tmp.path());
    let config = write(
        tmp.path(),
        "maui.cfg",
        b"SERVICEWEIGHT 10\nQUEUETIMEWEIGHT 1\nPROCWEIGHT 100\n",
    );
    let (trace, config) = (trace.to_str().unwrap(), config.to_str().unwrap());
    let text = inspect_priority_at_ten_minutes(trace, config, &["--semantics", "research-easy"]);
    let row = text
        .lines()
        .find(|l| l.starts_with("Percent Contribution"))
        .unwrap_or_else(|| panic!("no Percent Contribution row in\n{text}"));
    let shares: Vec<f64> = row["Percent Contribution".len()..]
        .split(|c: char| c == '(' || c == ')' || c == ':' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .map(|w| w.parse().unwrap())
        .collect();
    // SERV: 10 x (8 + 9) queued minutes = 170; RES: 100 x (2 + 1) processors = 300.
    assert_eq!(shares, [36.2, 36.2, 63.8, 63.8], "{row}");
}

#[test]
fn inspect_rejects_a_bad_instant_and_a_bad_config() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = one_job_trace(tmp.path());
    let trace = trace.to_str().unwrap();
    let out = mauisim(&["inspect", trace, "--at", "soon", "priority"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--at `soon`"), "{}", stderr(&out));
    let config = write(
        tmp.path(),
        "bad.cfg",
        b"QOSCFG[a] PRIORITY=1\nUSERCFG[x] QDEF=gold\n",
    );
    let config = config.to_str().unwrap();
    let out = mauisim(&["inspect", trace, "-c", config, "--at", "0", "priority"]);
    assert!(!out.status.success());
    let stderr = stderr(&out);
    assert!(
        stderr.contains("bad.cfg:2:12: USERCFG[x] QDEF=gold: no QOS gold is defined"),
        "{stderr}"
    );
}

/// Throttling through the CLI: a job over SYSTEMMAXPROCPERJOB is held (summary,
/// held.csv), and `inspect … blocked` names the limit of each idle job.
#[test]
fn limits_hold_jobs_and_inspect_blocked_says_why() {
    let tmp = tempfile::tempdir().unwrap();
    // User 7 submits three one-processor jobs and one of 3 processors; MAXJOB=2.
    let trace = write(
        tmp.path(),
        "t.swf",
        "; MaxProcs: 4\n\
         1 0 -1 3600 1 -1 -1 1 3600 -1 1 7 1 -1 1 -1 -1 -1\n\
         2 0 -1 3600 1 -1 -1 1 3600 -1 1 7 1 -1 1 -1 -1 -1\n\
         3 0 -1 3600 1 -1 -1 1 3600 -1 1 7 1 -1 1 -1 -1 -1\n\
         4 0 -1 3600 3 -1 -1 3 3600 -1 1 8 1 -1 1 -1 -1 -1\n"
            .as_bytes(),
    );
    let config = write(
        tmp.path(),
        "maui.cfg",
        b"USERCFG[7] MAXJOB=2\nSYSTEMMAXPROCPERJOB 2\n",
    );
    let out_dir = tmp.path().join("out");
    let (t, c, o) = (
        trace.to_str().unwrap(),
        config.to_str().unwrap(),
        out_dir.to_str().unwrap(),
    );
    let stdout = succeeds(&["run", t, "-c", c, "--out", o]);
    assert!(
        stdout.contains("held           1 never eligible (SYSTEMMAXPROCPERJOB: 1); see held.csv"),
        "{stdout}"
    );
    // The event order as the flag spells it, not the Rust name (issue 27).
    assert!(
        stdout.contains(", event order per-instant, semantics maui, estimate trace"),
        "{stdout}"
    );
    let held = std::fs::read_to_string(out_dir.join("held.csv")).unwrap();
    assert_eq!(
        held,
        "id,submit,procs,wcl,user,limit,job,value,reason\n\
         4,0,3,3600,8,SYSTEMMAXPROCPERJOB,3,2,SYSTEMMAXPROCPERJOB: job needs 3 > 2\n"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["held"], 1);
    assert_eq!(summary["jobs"], 3);
    assert_eq!(summary["limit_blocks"]["user MAXJOB"], 1);
    assert_eq!(
        succeeds(&["inspect", t, "-c", c, "--at", "0", "blocked", "--format", "csv"]),
        "rank,id,user,procs,state,credential,limit,usage,job,value,source\n\
         1,3,7,1,blocked,user 7,MAXJOB,2,1,2,own\n"
    );
    let out = mauisim(&["inspect", t, "-c", c, "--at", "0", "blocked"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.ends_with("1 idle: 0 eligible, 0 only in the hard pass (soft limit), 1 blocked\n"),
        "{text}"
    );
}

/// Two 4-processor jobs of user 1, group (and account) 2 on a 4-processor machine: the
/// second waits for the first.
fn fairshare_trace(dir: &Path) -> PathBuf {
    write(
        dir,
        "fs.swf",
        b"; MaxProcs: 4\n\
          1 0 -1 1000 4 -1 -1 4 1000 -1 1 1 2 -1 1 -1 -1 -1\n\
          2 0 -1 1000 4 -1 -1 4 1000 -1 1 1 2 -1 1 -1 -1 -1\n",
    )
}

/// The guide's fairshare priority example (5.1.2): user 5 below target, group on
/// target, account 10 above: 100 · (10·5 + 20·0 + 30·(−10) + 40·0 + 0·0) = −25000,
/// with the usage read from an FS file of a site's history.
#[test]
fn the_guides_fairshare_priority_from_an_fs_file() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = fairshare_trace(tmp.path());
    let history = tmp.path().join("history");
    fs::create_dir(&history).unwrap();
    write(
        &history,
        "FS.1000",
        b"# Fairshare Data File (Duration: 43200 Seconds) Starting: Thu Jan  1 00:16:40\n\n\
          User 1 25.000\nGroup 2 50.000\nAccount 2 50.000\nTOTAL 100.000\n",
    );
    write(&history, "README", b"not a fairshare file: ignored\n");
    let config = write(
        tmp.path(),
        "maui.cfg",
        b"FSPOLICY DEDICATEDPS\nFSWEIGHT 100\nFSUSERWEIGHT 10\nFSGROUPWEIGHT 20\n\
          FSACCOUNTWEIGHT 30\nFSQOSWEIGHT 40\nQUEUETIMEWEIGHT 0\nENABLENEGJOBPRIORITY TRUE\n\
          USERCFG[1] FSTARGET=30\nGROUPCFG[2] FSTARGET=50\nACCOUNTCFG[2] FSTARGET=40\n",
    );
    let (trace, config) = (trace.to_str().unwrap(), config.to_str().unwrap());
    let history = history.to_str().unwrap();
    let inspect = |view: &str| {
        let out = succeeds(&[
            "inspect",
            trace,
            "-c",
            config,
            "--account-from",
            "group",
            "--fs-init",
            history,
            "--at",
            "0",
            view,
            "--format",
            "json",
        ]);
        serde_json::from_str::<serde_json::Value>(&out).unwrap()
    };
    let priority = inspect("priority");
    assert_eq!(priority["jobs"][0]["job"], 2);
    assert_eq!(priority["jobs"][0]["priority"], -25000);
    let fs = inspect("fairshare");
    let rows = fs["rows"].as_array().unwrap();
    let deltas: Vec<(&str, f64)> = rows
        .iter()
        .map(|r| (r["kind"].as_str().unwrap(), r["delta"].as_f64().unwrap()))
        .collect();
    assert_eq!(deltas, [("user", 5.0), ("group", 0.0), ("account", -10.0)]);
    assert_eq!(rows[2]["priority"], -30000.0);
    assert_eq!(fs["total_effective"], 100.0);
}

/// `--fs-dir` writes one FS file per window in the guide's format; `--fs-init` reads
/// them back; `inspect … fairshare` shows the usage per window.
#[test]
fn fairshare_files_are_written_and_read_back() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = fairshare_trace(tmp.path());
    let config = write(
        tmp.path(),
        "maui.cfg",
        b"FSPOLICY DEDICATEDPS\nFSINTERVAL 500\nFSDEPTH 3\nFSUSERWEIGHT 1\n",
    );
    let (out, fs_dir) = (tmp.path().join("out"), tmp.path().join("fs"));
    succeeds(&[
        "run",
        trace.to_str().unwrap(),
        "-c",
        config.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--fs-dir",
        fs_dir.to_str().unwrap(),
    ]);
    let mut files: Vec<String> = fs::read_dir(&fs_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    assert_eq!(files, ["FS.0", "FS.1000", "FS.1500", "FS.500"]);
    assert_eq!(
        fs::read_to_string(fs_dir.join("FS.500")).unwrap(),
        "# Fairshare Data File (Duration: 500 Seconds) Starting: Thu Jan  1 00:08:20\n\n\
         User 1 2000.000\nGroup 2 2000.000\nQOS DEFAULT 2000.000\nClass 1 2000.000\nTOTAL 2000.000\n"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["fairness"]["user"][0]["name"], "1");
    assert_eq!(summary["fairness"]["user"][0]["proc_seconds"], 8000.0);
    assert_eq!(summary["fairness"]["user"][0]["share"], 100.0);

    let (trace, config, history) = (
        trace.to_str().unwrap(),
        config.to_str().unwrap(),
        fs_dir.to_str().unwrap(),
    );
    let text = succeeds(&[
        "inspect",
        trace,
        "-c",
        config,
        "--fs-init",
        history,
        "--at",
        "250",
        "fairshare",
    ]);
    // The two newest files are windows 1 and 2; 250 s of 4 processors in window 0.
    let user = text.lines().find(|l| l.starts_with("user ")).unwrap();
    let fields: Vec<&str> = user.split_whitespace().collect();
    assert_eq!(
        fields[..6],
        ["user", "1", "-", "1000", "2000", "2000"],
        "{text}"
    );

    write(&fs_dir, "FS.7", b"User 1 lots\n");
    let o = mauisim(&[
        "inspect",
        trace,
        "-c",
        config,
        "--fs-init",
        history,
        "--at",
        "0",
        "fairshare",
    ]);
    fails_saying(
        &o,
        "FS.7:1: usage: expected a number of proc-seconds ≥ 0, found `lots`",
    );
}

#[test]
fn inspect_windows_shows_the_guides_figure_like_showbf() {
    let tmp = tempfile::tempdir().unwrap();
    // 8 processors: 3 busy for 1 h, 1 for 4 h; a 6-processor job is reserved in 1 h.
    let trace = write(
        tmp.path(),
        "t.swf",
        "; MaxProcs: 8\n\
         1 0 -1 3600 3 -1 -1 3 3600 -1 1 1 1 -1 1 -1 -1 -1\n\
         2 0 -1 14400 1 -1 -1 1 14400 -1 1 1 1 -1 1 -1 -1 -1\n\
         3 0 -1 36000 6 -1 -1 6 36000 -1 1 1 1 -1 1 -1 -1 -1\n"
            .as_bytes(),
    );
    let trace = trace.to_str().unwrap();
    let text = succeeds(&["inspect", trace, "--at", "0", "windows"]);
    assert!(
        text.contains("reservation: job 3 (6 procs) from 1:00:00 to 11:00:00"),
        "{text}"
    );
    assert!(
        text.contains("       4 procs available for      1:00:00\n"),
        "{text}"
    );
    assert!(
        text.contains("       1 proc  available with no timelimit\n"),
        "{text}"
    );
    let csv = succeeds(&["inspect", trace, "--at", "0", "windows", "--format", "csv"]);
    assert_eq!(csv, "procs,duration_seconds\n4,3600\n1,\n");
    let json: serde_json::Value = serde_json::from_str(&succeeds(&[
        "inspect", trace, "--at", "0", "windows", "--format", "json",
    ]))
    .unwrap();
    assert_eq!(json["windows"][1]["duration"], serde_json::Value::Null);
    assert_eq!(json["reservations"][0]["start"], 3600);
}

/// Later in a run, `inspect … windows` shows only the standing windows that still hold
/// (none that ended before the instant) and a window open for ever as one without limit.
#[test]
fn inspect_windows_later_shows_only_standing_windows_ahead() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = write(
        tmp.path(),
        "t.swf",
        "; MaxProcs: 8\n\
         1 0 -1 3600 3 -1 -1 3 3600 -1 1 1 1 -1 1 -1 -1 -1\n\
         2 200000 -1 3600 1 -1 -1 1 3600 -1 1 1 1 -1 1 -1 -1 -1\n"
            .as_bytes(),
    );
    let config = write(
        tmp.path(),
        "maui.cfg",
        b"SRCFG[debug] STARTTIME=8:00:00 ENDTIME=18:00:00 TASKCOUNT=2 USERLIST=7 DEPTH=3\n",
    );
    let (trace, config) = (trace.to_str().unwrap(), config.to_str().unwrap());
    // 200,000 s is day 2 at 7:33:20, job 2 running; the two days before have their
    // windows over.
    let text = succeeds(&["inspect", trace, "-c", config, "--at", "200000", "windows"]);
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("standing reservation debug"))
        .collect();
    assert_eq!(rows.len(), 3, "{text}");
    assert!(rows[0].contains("from 0:26:40 to 10:26:40"), "{text}");
    assert!(!text.contains(" to -"), "{text}");
    assert!(
        text.contains("       7 procs available with no timelimit\n"),
        "{text}"
    );
}

/// `inspect … windows` gives a window on part of a node (RESOURCES=PROCS:2 of 4) the
/// processors it holds, not its node's.
#[test]
fn inspect_windows_counts_the_processors_a_standing_window_holds() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = write(
        tmp.path(),
        "t.swf",
        "; MaxProcs: 8\n1 0 -1 3600 1 -1 -1 1 3600 -1 1 1 1 -1 1 -1 -1 -1\n".as_bytes(),
    );
    let config = write(
        tmp.path(),
        "maui.cfg",
        b"SRCFG[half] HOSTLIST=n0 RESOURCES=PROCS:2 TASKCOUNT=1 PERIOD=INFINITY USERLIST=7\n",
    );
    let (trace, config) = (trace.to_str().unwrap(), config.to_str().unwrap());
    let args = [
        "--nodes",
        "2",
        "--procs-per-node",
        "4",
        "--at",
        "0",
        "windows",
    ];
    let text = succeeds(&[&["inspect", trace, "-c", config][..], &args[..]].concat());
    assert!(
        text.contains("standing reservation half: 1 nodes (2 procs)"),
        "{text}"
    );
}

#[test]
fn scenario_checks_its_expectations_and_fails_when_one_does_not_hold() {
    let file = repo().join("scenarios/guide/post-game-show.toml");
    let text = succeeds(&["scenario", file.to_str().unwrap()]);
    assert!(text.contains("== BACKFILLPOLICY NONE =="), "{text}");
    assert!(text.ends_with("9 of 9 expectations hold\n"), "{text}");
    let tmp = tempfile::tempdir().unwrap();
    let wrong = std::fs::read_to_string(&file).unwrap().replace(
        "start = \"2:00:00\"\n\n[[expect]]\njob = \"A\"",
        "start = \"3:00:00\"\n\n[[expect]]\njob = \"A\"",
    );
    let wrong = write(tmp.path(), "wrong.toml", wrong.as_bytes());
    let out = mauisim(&["scenario", wrong.to_str().unwrap()]);
    assert!(!out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("FAIL line  56: B starts = 2:00:00 (expected 3:00:00)"),
        "{stdout}"
    );
    assert!(
        stderr(&out).contains("1 expectation of"),
        "{}",
        stderr(&out)
    );
    let bad = write(tmp.path(), "bad.toml", b"title = \"x\"\nprocs = 0\n");
    let out = mauisim(&["scenario", bad.to_str().unwrap()]);
    assert!(
        stderr(&out).contains("bad.toml:2: procs: the machine needs at least one processor"),
        "{}",
        stderr(&out)
    );
}

/// The shipped node file and config: KTH-SP2 on 64 thin and 36 wide (faster) nodes. With
/// runtimes scaling by speed, jobs on wide nodes end sooner; the node list and per-node
/// table name the file's nodes; a bad node file is an error naming its line and field.
#[test]
fn node_files_define_the_machine() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = repo().join("traces/KTH-SP2-1996-2.swf.gz");
    let nodes = repo().join("scenarios/kth-nodes.trace");
    let config = repo().join("scenarios/kth-nodes.cfg");
    let out = tmp.path().join("o");
    let base = [
        "run",
        trace.to_str().unwrap(),
        "--node-file",
        nodes.to_str().unwrap(),
        "-c",
        config.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ];
    succeeds(&base);
    let summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["machine_nodes"], 100);
    assert_eq!(summary["machine_procs"], 100);
    let node_rows = fs::read_to_string(out.join("nodes.csv")).unwrap();
    assert!(node_rows.starts_with("node,procs,busy_proc_seconds,utilization\nsp001,1,"));
    assert_eq!(node_rows.lines().count(), 101);
    let jobs = fs::read_to_string(out.join("jobs.csv")).unwrap();
    // PRIORITY with 10*SPEED fills the wide nodes (sp065–sp100) first: the first job,
    // of 56 processors, takes all 36 of them and 20 thin ones.
    let first = jobs.lines().nth(1).unwrap();
    assert!(
        first.ends_with(",56,1,1,-,DEFAULT,-,0,0,0,0,,,\"sp[001-020,065-100]\""),
        "{first}"
    );
    let avg_wait = |s: &serde_json::Value| s["avg_wait"].as_f64().unwrap();
    let scaled = tmp.path().join("scaled");
    let mut args = base.to_vec();
    args[7] = scaled.to_str().unwrap();
    args.push("--scale-by-speed");
    succeeds(&args);
    let faster: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(scaled.join("summary.json")).unwrap()).unwrap();
    assert!(
        avg_wait(&faster) < avg_wait(&summary),
        "faster nodes, shorter waits"
    );

    let bad = write(
        tmp.path(),
        "bad.trace",
        b"COMPUTENODE AVAILABLE 0 a rm 1 1 1 0 1 1 1 - - [x] [b:1] - 1.0 - - -\n",
    );
    fails_with(
        &trace,
        &["--node-file", bad.to_str().unwrap()],
        "line 1, field 9: node `a` has 0 processors",
    );
}

/// Estimate models are seeded: the same seed gives byte-identical outputs, another seed
/// another schedule; a bad model is refused before anything runs.
#[test]
fn estimate_models_are_reproducible_by_seed() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = repo().join("traces/KTH-SP2-1996-2.swf.gz");
    let run = |name: &str, seed: &str| -> String {
        let out = tmp.path().join(name);
        succeeds(&[
            "run",
            trace.to_str().unwrap(),
            "--estimate",
            "f-model:4",
            "--seed",
            seed,
            "--out",
            out.to_str().unwrap(),
            "-q",
        ]);
        fs::read_to_string(out.join("jobs.csv")).unwrap()
    };
    let a = run("a", "9");
    assert_eq!(a, run("b", "9"));
    assert_ne!(a, run("c", "10"));
    let o = mauisim(&[
        "run",
        trace.to_str().unwrap(),
        "--estimate",
        "f-model:0.5",
        "--out",
        "x",
    ]);
    fails_saying(&o, "F >= 1");
}

/// Workload transforms from the command line: the offered load reaches its target, the
/// first N jobs are kept, warm-up jobs leave the metrics; all of it in summary.json.
#[test]
fn workload_transforms_reshape_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = repo().join("traces/KTH-SP2-1996-2.swf.gz");
    let out = tmp.path().join("o");
    let text = succeeds(&[
        "run",
        trace.to_str().unwrap(),
        "--first",
        "5000",
        "--target-load",
        "0.9",
        "--warmup",
        "1:00:00:00",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(text.contains("offered load 0.9"), "{text}");
    let s: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert!(
        (s["offered_load"].as_f64().unwrap() - 0.9).abs() < 0.01,
        "{s}"
    );
    assert!(s["offered_load_trace"].as_f64().unwrap() < 0.9);
    assert_eq!(s["adjusted"]["beyond_first_n"], 28481 - 5000);
    let warm = s["warmup_jobs"].as_u64().unwrap();
    assert!(warm > 0);
    assert_eq!(s["jobs"].as_u64().unwrap() + warm, 5000);
    let o = mauisim(&[
        "run",
        trace.to_str().unwrap(),
        "--window",
        "5..1",
        "--out",
        "x",
    ]);
    assert!(
        stderr(&o).contains("the window ends (1) before it starts (5)"),
        "{}",
        stderr(&o)
    );
    let o = mauisim(&[
        "run",
        trace.to_str().unwrap(),
        "--target-load",
        "0",
        "--out",
        "x",
    ]);
    assert!(
        stderr(&o).contains("expected a positive number"),
        "{}",
        stderr(&o)
    );
}

/// `mauisim sweep`, then the same command with another thread count, sharded and merged:
/// the same result files; progress is silent when stderr is not a terminal.
#[test]
fn sweep_from_the_command_line() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = repo().join("traces/KTH-SP2-1996-2.swf.gz");
    let dir = |name: &str| tmp.path().join(name);
    let sweep = |out: &Path, extra: &[&str]| {
        let mut args = vec![
            "sweep",
            trace.to_str().unwrap(),
            "--first",
            "1000",
            "--estimate",
            "f-model:2",
            "--set",
            "RESERVATIONDEPTH=1,2",
            "--set",
            "BFCHUNKSIZE=0:8:8",
            "--seeds",
            "1..2",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        mauisim(&args)
    };
    let whole = sweep(&dir("whole"), &["--jobs", "2"]);
    assert!(whole.status.success(), "{}", stderr(&whole));
    let stdout = String::from_utf8_lossy(&whole.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[0],
        "avg_wait, mean over seeds, best first (4 of 4 settings; all in summary.csv):"
    );
    assert_eq!(
        lines.last().unwrap().to_string(),
        format!(
            "8 runs: 8 run now, 0 kept from before, 0 failed; results in {}",
            dir("whole").display()
        )
    );
    assert_eq!(stderr(&whole), "", "no progress bar off a terminal");
    let header = fs::read_to_string(dir("whole").join("results.csv")).unwrap();
    assert!(header.starts_with("run,RESERVATIONDEPTH,BFCHUNKSIZE,seed,status,error,"));
    // The table's first row is the setting of summary.csv with the least average wait,
    // written [DD:]HH:MM:SS.
    let summary = fs::read_to_string(dir("whole").join("summary.csv")).unwrap();
    let columns: Vec<&str> = summary.lines().next().unwrap().split(',').collect();
    let at = columns.iter().position(|c| *c == "avg_wait").unwrap();
    let best = summary
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[at].parse::<f64>().unwrap(),
                f[1].to_string(),
                f[2].to_string(),
            )
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .unwrap();
    let clock = mauisim_sim::units::clock_of(best.0);
    let row = lines[2];
    assert!(
        row.starts_with(&format!(
            "  RESERVATIONDEPTH={} BFCHUNKSIZE={}",
            best.1, best.2
        )) && row.contains(&clock),
        "{row} vs {best:?}"
    );
    for k in ["1", "2"] {
        let shard = format!("{k}/2");
        let o = sweep(
            &dir(&format!("s{k}")),
            &["--shard", &shard, "--jobs", "1", "-q"],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(o.stdout.is_empty(), "quiet");
    }
    let merged = dir("merged");
    succeeds(&[
        "sweep",
        "merge",
        "--out",
        merged.to_str().unwrap(),
        dir("s1").to_str().unwrap(),
        dir("s2").to_str().unwrap(),
    ]);
    for name in ["results.csv", "results.json", "summary.csv"] {
        assert_eq!(
            fs::read(dir("whole").join(name)).unwrap(),
            fs::read(merged.join(name)).unwrap(),
            "{name}"
        );
    }
}

#[test]
fn sweep_bad_requests_write_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = repo().join("traces/KTH-SP2-1996-2.swf.gz");
    let out = tmp.path().join("out");
    for (set, message) in [
        ("RESERVATIONDEPT=1,2", "did you mean RESERVATIONDEPTH?"),
        (
            "FSDECAY=1.0:0.5:0.1",
            "the range `1.0:0.5:0.1` (START:END:STEP) is empty",
        ),
        (
            "BACKFILLPOLICY=FIRSTFIT,SOMETIMES",
            "--set BACKFILLPOLICY=SOMETIMES",
        ),
        (
            "USERCFG[DEFAULT] MAXJOBS=1",
            "unknown attribute MAXJOBS (did you mean MAXJOB?)",
        ),
    ] {
        let o = mauisim(&[
            "sweep",
            trace.to_str().unwrap(),
            "--set",
            set,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(!o.status.success());
        assert!(stderr(&o).contains(message), "{set}: {}", stderr(&o));
        assert!(!out.exists(), "{set}: nothing written");
    }
    let o = mauisim(&[
        "sweep",
        trace.to_str().unwrap(),
        "--set",
        "RESERVATIONDEPTH=1",
        "--shard",
        "3/2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        stderr(&o).contains("shard 3/2: K must be within 1..=2"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());
}

/// `mauisim compare TRACE A B --out OUT EXTRA…`, which must succeed: what it prints.
fn compare(trace: &Path, a: &Path, b: &Path, out: &Path, extra: &[&str]) -> String {
    let paths = [trace, a, b].map(|p| p.to_str().unwrap());
    let mut args = vec!["compare", paths[0], paths[1], paths[2]];
    args.extend(extra);
    args.extend(["--out", out.to_str().unwrap()]);
    succeeds(&args)
}

#[test]
fn compare_prints_and_writes_the_change() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = repo().join("traces/KTH-SP2-1996-2.swf.gz");
    let a = write(tmp.path(), "a.cfg", b"RESERVATIONDEPTH 1\n");
    let b = write(tmp.path(), "b.cfg", b"RESERVATIONDEPTH 8\n");
    let out = tmp.path().join("cmp");
    let text = compare(&trace, &a, &b, &out, &["--first", "2000"]);
    // What differs leads, every time in [DD:]HH:MM:SS, with the change's sign.
    assert!(
        text.contains("What differs (A -> B):\n  RESERVATIONDEPTH[0]          1 -> 8\n"),
        "{text}"
    );
    let wait = text
        .lines()
        .find(|l| l.starts_with("avg_wait "))
        .unwrap_or_else(|| panic!("{text}"));
    let fields: Vec<&str> = wait.split_whitespace().collect();
    assert_eq!(fields[1], "[D:]H:M:S", "{wait}");
    assert!(
        fields[2].contains(':') && fields[4].starts_with(['+', '-', '0']),
        "{wait}"
    );
    assert!(text.contains("Who waits less under B"), "{text}");
    assert!(
        !text.contains("Warning"),
        "the same jobs run under both: {text}"
    );
    for name in [
        "compare.csv",
        "credentials.csv",
        "compare.json",
        "held-a.csv",
        "held-b.csv",
    ] {
        assert!(out.join(name).exists(), "{name}");
    }
}

/// When a limit of B holds jobs that A runs, the averages are over different job sets: the
/// comparison says so, gives the wait over the jobs both run, and writes B's held jobs.
#[test]
fn compare_warns_when_the_job_sets_differ() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = write(
        tmp.path(),
        "t.swf",
        b"; MaxProcs: 4\n\
          1 0 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n\
          2 10 -1 100 1 -1 -1 1 100 -1 1 2 1 -1 1 -1 -1 -1\n\
          3 20 -1 100 2 -1 -1 2 100 -1 1 2 1 -1 1 -1 -1 -1\n",
    );
    let a = write(tmp.path(), "a.cfg", b"RESERVATIONDEPTH 1\n");
    let b = write(tmp.path(), "b.cfg", b"SYSTEMMAXPROCPERJOB 2\n");
    let out = tmp.path().join("cmp");
    let text = compare(&trace, &a, &b, &out, &[]);
    assert!(
        text.contains("  SYSTEMMAXPROCPERJOB          – -> 2\n"),
        "{text}"
    );
    // Under A job 1 runs first and 2 and 3 wait for it (90 s and 80 s); under B job 1 is
    // held and they start at once.
    assert!(
        text.contains(
            "Warning: A and B simulate different jobs (A 3 with 0 held, B 2 with 1 held), so \
             their averages are over different job sets. Over the 2 jobs both simulate: \
             average wait A 0:01:25, B 0:00:00 (B - A -0:01:25)."
        ),
        "{text}"
    );
    let held = fs::read_to_string(out.join("held-b.csv")).unwrap();
    assert_eq!(
        held,
        "id,submit,procs,wcl,user,limit,job,value,reason\n\
         1,0,4,100,1,SYSTEMMAXPROCPERJOB,4,2,SYSTEMMAXPROCPERJOB: job needs 4 > 2\n"
    );
    assert_eq!(
        fs::read_to_string(out.join("held-a.csv")).unwrap(),
        "id,submit,procs,wcl,user,limit,job,value,reason\n"
    );
}

/// scripts/slurm-sweep.sh against a stand-in for sbatch that runs each array task's batch
/// script with its SLURM_ARRAY_TASK_ID, then the merge job's: the batch scripts the
/// script writes do run, and the merged results equal the unsharded sweep's.
#[test]
fn the_slurm_script_shards_and_merges() {
    let tmp = tempfile::tempdir().unwrap();
    let fake = write(
        tmp.path(),
        "sbatch",
        br#"#!/usr/bin/env bash
set -euo pipefail
script=$(mktemp); cat > "$script"
tasks=1
for a in "$@"; do case $a in --array=1-*) tasks=${a#--array=1-} ;; esac; done
for k in $(seq 1 "$tasks"); do SLURM_ARRAY_TASK_ID=$k bash "$script" >&2; done
echo "4242;cluster"
"#,
    );
    let mut perms = fs::metadata(&fake).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    fs::set_permissions(&fake, perms).unwrap();
    let trace = repo().join("traces/KTH-SP2-1996-2.swf.gz");
    let sweep_args = [
        trace.to_str().unwrap(),
        "--first",
        "800",
        "--set",
        "RESERVATIONDEPTH=1,2,3",
        "--set",
        "BACKFILLPOLICY=FIRSTFIT,BESTFIT",
    ];
    let out = tmp.path().join("cluster");
    let status = Command::new("bash")
        .arg(repo().join("scripts/slurm-sweep.sh"))
        .args(["4", out.to_str().unwrap(), "--time=00:10:00", "--"])
        .args(sweep_args)
        .env("MAUISIM", env!("CARGO_BIN_EXE_mauisim"))
        .env("SBATCH", &fake)
        .output()
        .unwrap();
    assert!(status.status.success(), "{}", stderr(&status));
    assert!(String::from_utf8_lossy(&status.stdout).contains("array job 4242 (4 tasks)"));
    let single = tmp.path().join("single");
    let mut args = vec!["sweep"];
    args.extend(sweep_args);
    args.extend(["--out", single.to_str().unwrap()]);
    succeeds(&args);
    for name in ["results.csv", "results.json", "summary.csv"] {
        assert_eq!(
            fs::read(single.join(name)).unwrap(),
            fs::read(out.join("merged").join(name)).unwrap(),
            "{name}"
        );
    }
}

#[test]
fn run_with_charts_then_report_and_a_run_without_them_drops_the_old_timeline() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = one_job_trace(tmp.path());
    let out = tmp.path().join("out");
    let (t, o) = (trace.to_str().unwrap(), out.to_str().unwrap());
    let stdout = succeeds(&["run", t, "-o", o, "--charts", "--png"]);
    assert!(stdout.contains("charts: "), "{stdout}");
    for file in [
        "timeline.csv",
        "index.html",
        "utilization.svg",
        "utilization.png",
    ] {
        assert!(out.join(file).is_file(), "{file}");
    }
    // The iteration at 0 starts the job, the one at its end (100) finds nothing to do.
    assert_eq!(
        fs::read_to_string(out.join("timeline.csv")).unwrap(),
        "time,idle,reserved\n0,0,0\n100,0,0\n"
    );
    succeeds(&["run", t, "-o", o, "-q"]);
    assert!(!out.join("timeline.csv").exists(), "no stale timeline");
    for stale in [
        "index.html",
        "utilization.svg",
        "utilization.png",
        ".mauisim-report",
    ] {
        assert!(!out.join(stale).exists(), "the old run's {stale} is gone");
    }
    let keep = out.join("notes.txt");
    fs::write(&keep, "mine").unwrap();
    let stdout = succeeds(&["report", o]);
    assert!(stdout.starts_with("8 charts: "), "{stdout}");
    let html = fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        html.contains("run it with --charts"),
        "the missing reservations are explained"
    );
    succeeds(&["run", t, "-o", o, "-q"]);
    assert!(!out.join("index.html").exists());
    assert!(
        keep.exists(),
        "files mauisim did not make are never removed"
    );
}

#[test]
fn report_of_several_runs_needs_an_output_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = one_job_trace(tmp.path());
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    for dir in [&a, &b] {
        succeeds(&[
            "run",
            trace.to_str().unwrap(),
            "-o",
            dir.to_str().unwrap(),
            "-q",
        ]);
    }
    let out = mauisim(&["report", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--out"), "{}", stderr(&out));
    let both = tmp.path().join("both");
    succeeds(&[
        "report",
        "--out",
        both.to_str().unwrap(),
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert!(both.join("xfactor-matrix-a.svg").is_file());
    assert!(both.join("xfactor-matrix-b.svg").is_file());
}

#[test]
fn scenario_charts_at_chosen_iterations() {
    let tmp = tempfile::tempdir().unwrap();
    let charts = tmp.path().join("charts");
    let file = repo().join("scenarios/guide/post-game-show.toml");
    let out = mauisim(&[
        "scenario",
        file.to_str().unwrap(),
        "--charts",
        charts.to_str().unwrap(),
        "--at",
        "1:00:00",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    for name in [
        "gantt-1.svg",
        "gantt-1-at-3600.svg",
        "gantt-2.svg",
        "gantt-2-at-3600.svg",
        "index.html",
    ] {
        assert!(charts.join(name).is_file(), "{name}");
    }
    let without = mauisim(&["scenario", file.to_str().unwrap(), "--at", "0"]);
    assert!(!without.status.success(), "--at needs --charts");
}

/// Ctrl-C at any moment of a run leaves its output directory complete or absent (and no
/// staging directory), also when the run replaces an earlier run's outputs.
#[test]
fn an_interrupted_run_leaves_complete_outputs_or_none() {
    let tmp = tempfile::tempdir().unwrap();
    let big = tmp.path().join("big.swf");
    let (b, t) = (big.to_str().unwrap(), tmp.path().to_str().unwrap());
    succeeds(&[
        "generate", "--jobs", "200000", "--nodes", "64", "--load", "0.9", "--out", b,
    ]);
    let small = one_job_trace(tmp.path());
    // Whatever the directory holds, its summary and its jobs.csv are of the same run.
    let consistent = |dir: &Path| {
        let summary: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
        let rows = fs::read_to_string(dir.join("jobs.csv"))
            .unwrap()
            .lines()
            .count()
            - 1;
        assert_eq!(
            summary["jobs"].as_u64(),
            Some(rows as u64),
            "{}",
            dir.display()
        );
    };
    let mut outcomes = Vec::new();
    for (k, delay_ms) in [50u64, 250, 450, 600, 700, 800, 900, 1000]
        .into_iter()
        .enumerate()
    {
        let out = tmp.path().join(format!("out{k}"));
        if k % 2 == 1 {
            // An earlier run's outputs to replace.
            succeeds(&[
                "run",
                small.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
                "-q",
            ]);
        }
        let mut child = Command::new(env!("CARGO_BIN_EXE_mauisim"))
            .args(["run", b, "-o", out.to_str().unwrap(), "-q"])
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status();
        let status = child.wait().unwrap();
        outcomes.push(status.code());
        // `None`: the signal came before the handler was set up, nothing was written.
        match status.code() {
            Some(130) | None if k % 2 == 0 && !out.exists() => {}
            Some(130) | None | Some(0) => consistent(&out),
            other => panic!("exit {other:?}"),
        }
        let staging = fs::read_dir(t)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .contains(".partial-")
            })
            .count();
        assert_eq!(staging, 0, "no staging left after delay {delay_ms} ms");
    }
    eprintln!("exit codes by delay: {outcomes:?}");
}

#[test]
fn inspect_draws_the_schedule_at_an_instant() {
    let tmp = tempfile::tempdir().unwrap();
    let kth = repo().join("traces/KTH-SP2-1996-2.swf.gz");
    let chart = tmp.path().join("at.svg");
    let (k, c) = (kth.to_str().unwrap(), chart.to_str().unwrap());
    succeeds(&["inspect", k, "--at", "10:00:00:00", "gantt", "--out", c]);
    let svg = fs::read_to_string(&chart).unwrap();
    for text in [
        "iteration at 10:00:00:00",
        "reservation",
        "Backfill windows left after",
    ] {
        assert!(svg.contains(text), "{text}");
    }
    let without = mauisim(&["inspect", k, "--at", "0", "gantt"]);
    assert!(!without.status.success());
    assert!(stderr(&without).contains("--out"), "{}", stderr(&without));
}

/// Ctrl-C while the outputs are being moved into place: the move finishes (the new run's
/// outputs, whole), then the program exits 130. The window is widened by a testing aid.
#[test]
fn an_interrupt_while_publishing_waits_for_the_outputs() {
    let tmp = tempfile::tempdir().unwrap();
    let small = one_job_trace(tmp.path());
    let two = write(
        tmp.path(),
        "two.swf",
        format!("; MaxProcs: 8\n{RECORD}2 5 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n")
            .as_bytes(),
    );
    let out = tmp.path().join("out");
    succeeds(&[
        "run",
        small.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_mauisim"))
        .args([
            "run",
            two.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "-q",
        ])
        .env("MAUISIM_TEST_PUBLISH_PAUSE_MS", "1500")
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait for the staged outputs (the pause is inside the publishing that follows).
    let staged = tmp.path().join(format!(".out.partial-{}", child.id()));
    for _ in 0..1000 {
        if staged.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(staged.exists(), "the run staged its outputs");
    std::thread::sleep(std::time::Duration::from_millis(200));
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let status = child.wait().unwrap();
    // 130 from the handler, or 0 when the main thread, done publishing, exits first.
    assert!(matches!(status.code(), Some(130) | Some(0)), "{status:?}");
    let summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["jobs"].as_u64(), Some(2), "the new run's outputs");
    assert_eq!(
        fs::read_to_string(out.join("jobs.csv"))
            .unwrap()
            .lines()
            .count(),
        3
    );
}

/// `--stream` writes what a run in memory writes, byte for byte (summary.json apart:
/// the same metrics, no fairness section), under policies that keep state per job and
/// per credential, with transforms, a submission policy and runtime predictions.
#[test]
fn a_streamed_run_writes_what_a_run_in_memory_writes() {
    let kth = repo().join("traces/KTH-SP2-1996-2.swf.gz");
    let tmp = tempfile::tempdir().unwrap();
    let depth = write(
        tmp.path(),
        "depth.cfg",
        b"SIMJOBSUBMISSIONPOLICY CONSTANTJOBDEPTH\nSIMINITIALQUEUEDEPTH 16\n",
    );
    let depth = depth.to_str().unwrap().to_string();
    let cases: [&[&str]; 6] = [
        &[],
        &["-c", "scenarios/fair-limits.cfg", "--warmup", "5:00:00:00"],
        &[
            "-c",
            "scenarios/full-priority.cfg",
            "--account-from",
            "group",
        ],
        &[
            "-c",
            "scenarios/fairshare.cfg",
            "--estimate",
            "f-model:3",
            "--predictor",
            "tsafrir",
        ],
        &[
            "-c",
            "scenarios/conservative.cfg",
            "--window",
            "1000000..20000000",
            "--first",
            "3000",
            "--shift",
            "100",
        ],
        &["-c", &depth, "--event-order", "per-event"],
    ];
    for (k, extra) in cases.iter().enumerate() {
        let (batch, streamed) = (
            tmp.path().join(format!("b{k}")),
            tmp.path().join(format!("s{k}")),
        );
        for (out, stream) in [(&batch, false), (&streamed, true)] {
            let mut args = vec![
                "run",
                kth.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "-q",
            ];
            args.extend_from_slice(extra);
            if stream {
                args.push("--stream");
            }
            let o = Command::new(env!("CARGO_BIN_EXE_mauisim"))
                .current_dir(repo())
                .args(&args)
                .output()
                .unwrap();
            assert!(o.status.success(), "{extra:?}: {}", stderr(&o));
        }
        for file in ["jobs.csv", "schedule.swf", "nodes.csv", "held.csv"] {
            let (a, b) = (
                fs::read(batch.join(file)).unwrap(),
                fs::read(streamed.join(file)).unwrap(),
            );
            assert!(a == b, "{extra:?}: {file} differs");
        }
        let summary = |dir: &Path| -> serde_json::Value {
            let mut v: serde_json::Value =
                serde_json::from_slice(&fs::read(dir.join("summary.json")).unwrap()).unwrap();
            let m = v.as_object_mut().unwrap();
            for key in [
                "fairness",
                "sim_seconds",
                "jobs_per_second",
                "streamed",
                "max_jobs_in_memory",
            ] {
                m.remove(key);
            }
            v
        };
        assert_eq!(
            summary(&batch),
            summary(&streamed),
            "{extra:?}: summary.json"
        );
        let s: serde_json::Value =
            serde_json::from_slice(&fs::read(streamed.join("summary.json")).unwrap()).unwrap();
        assert_eq!(s["streamed"], true);
        // A job that waits until the end (held by a limit it can never meet) keeps every
        // later job in memory; the plain replay finishes jobs as it goes.
        if k == 0 {
            let at_once = s["max_jobs_in_memory"].as_u64().unwrap();
            assert!(
                at_once > 0 && at_once < s["jobs"].as_u64().unwrap() / 10,
                "{at_once}"
            );
        }
    }
}

#[test]
fn a_streamed_run_refuses_what_needs_the_whole_trace() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = one_job_trace(tmp.path());
    fails_with(&trace, &["--stream", "--last", "5"], "--stream: --last");
    fails_with(
        &trace,
        &["--stream", "--target-load", "0.5"],
        "--stream: --target-load",
    );
    fails_with(&trace, &["--stream", "--charts"], "--stream: --charts");
    fails_with(&trace, &["--stream", "--check"], "--stream: --check");
    let unsorted = write(
        tmp.path(),
        "unsorted.swf",
        b"; MaxProcs: 8\n1 50 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n2 10 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n",
    );
    fails_with(
        &unsorted,
        &["--stream"],
        "line 3: job 2 is submitted at 10, before job 1 on line 2: a streamed run needs the records sorted",
    );
    let bad = write(
        tmp.path(),
        "bad.swf",
        format!("; MaxProcs: 8\n{RECORD}1 x\n").as_bytes(),
    );
    fails_with(&bad, &["--stream"], "bad.swf:3");
}

/// `run` replaces an earlier run's outputs, but refuses an --out that holds other files
/// (another command's results, a user's files), leaving them untouched, unless --force.
#[test]
fn run_refuses_an_out_holding_other_files_unless_forced() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = one_job_trace(tmp.path());
    let out = tmp.path().join("out");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            trace.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        mauisim(&args)
    };
    assert!(run(&["-q"]).status.success());
    assert!(
        run(&["-q"]).status.success(),
        "an earlier run's outputs are replaced"
    );
    let sweep = tmp.path().join("sweep");
    fs::create_dir(&sweep).unwrap();
    write(&sweep, "results.csv", b"run,seed\n0,1\n");
    let into_sweep = |extra: &[&str]| {
        let mut args = vec![
            "run",
            trace.to_str().unwrap(),
            "--out",
            sweep.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        mauisim(&args)
    };
    fails_saying(
        &into_sweep(&["-q"]),
        "holds files that are not a run's outputs (results.csv); choose another --out, or pass --force",
    );
    let names = |d: &Path| {
        let mut n: Vec<String> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        n.sort();
        n
    };
    assert_eq!(names(&sweep), ["results.csv"], "nothing written");
    assert!(into_sweep(&["-q", "--force"]).status.success());
    assert!(names(&sweep).contains(&"jobs.csv".to_string()));
    assert!(names(&sweep).contains(&"results.csv".to_string()));
}

/// compare's configs are its arguments A and B: its help does not offer --config, and
/// passing one says so.
#[test]
fn compare_does_not_offer_config() {
    let help = succeeds(&["compare", "--help"]);
    assert!(!help.contains("--config"), "{help}");
    let tmp = tempfile::tempdir().unwrap();
    let trace = one_job_trace(tmp.path());
    let cfg = write(tmp.path(), "a.cfg", b"RESERVATIONDEPTH 2\n");
    let o = mauisim(&[
        "compare",
        trace.to_str().unwrap(),
        cfg.to_str().unwrap(),
        cfg.to_str().unwrap(),
        "-c",
        cfg.to_str().unwrap(),
        "--out",
        tmp.path().join("c").to_str().unwrap(),
    ]);
    fails_saying(
        &o,
        "compare takes its two configs as arguments A and B, not --config",
    );
}

/// A machine too large to simulate, from the header or the command line, is a located
/// error before anything is allocated.
#[test]
fn a_huge_machine_is_an_error_naming_its_source() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = write(
        tmp.path(),
        "huge.swf",
        format!("; MaxProcs: 9223372036854775807\n{RECORD}").as_bytes(),
    );
    fails_with(
        &trace,
        &[],
        "huge.swf: header MaxProcs/MaxNodes: 9223372036854775807 nodes x 1 processor is more than mauisim simulates (at most 16777216 nodes and 1099511627776 processors); pass --procs N or --nodes N --procs-per-node K",
    );
    fails_with(
        &one_job_trace(tmp.path()),
        &["--procs", "4294967296"],
        "machine size: 4294967296 nodes x 1 processor is more than mauisim simulates",
    );
    fails_with(
        &one_job_trace(tmp.path()),
        &["--nodes", "4294967296", "--procs-per-node", "4294967296"],
        "machine size: 4294967296 nodes x 4294967296 processors is more than mauisim simulates",
    );
}

/// A target load or compression the trace cannot take at one-second resolution, or that
/// would stretch it past any sensible time, is an error, not a run at load 0.
#[test]
fn unreachable_target_loads_are_errors() {
    let kth = repo().join("traces/KTH-SP2-1996-2.swf.gz");
    fails_with(
        &kth,
        &["--target-load", "1e308"],
        "--target-load 1e308: at one-second resolution every submission falls on one instant; ask for a lower load",
    );
    fails_with(
        &kth,
        &["--target-load", "1e-308"],
        "--target-load 1e-308: the workload would span more than 1e12 s; ask for a higher load",
    );
    fails_with(
        &kth,
        &["--compress", "1e-300"],
        "--compress 1e-300: the workload would span more than 1e12 s",
    );
}
