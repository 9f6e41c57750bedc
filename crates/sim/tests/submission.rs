//! Maui's submission policies (issue 8, item 5): SIMJOBSUBMISSIONPOLICY NORMAL,
//! CONSTANTJOBDEPTH and CONSTANTPSDEPTH with SIMINITIALQUEUEDEPTH, worked by hand.

use mauisim_core::PolicyConfig;
use mauisim_sim::engine::{machine_of, simulate, EngineOptions};
use mauisim_sim::params;
use mauisim_sim::params::Submission;
use mauisim_sim::trace::workload::Job;
use mauisim_sim::RunOptions;

/// Five whole-machine jobs (4 of 4 processors, 100 s, limit 100 s), 1,000 s apart in
/// the trace.
fn five_wide_jobs() -> Vec<Job> {
    (0..5)
        .map(|i| Job::synthetic(i + 1, i as i64 * 1000, 100, 100, 4))
        .collect()
}

/// Start times and the times each job entered the queue.
fn run(jobs: &[Job], submission: Submission, poll: i64) -> (Vec<i64>, Vec<i64>) {
    let options = EngineOptions {
        submission,
        poll_interval: poll,
        ..EngineOptions::default()
    };
    let (outcomes, stats) =
        simulate(jobs, machine_of(4), PolicyConfig::default(), options).unwrap();
    (outcomes.iter().map(|o| o.start).collect(), stats.submitted)
}

/// Depth 2: at 0, J1 and J2 are queued and J1 starts; one job is idle, so J3 is queued
/// at 0 too. Each end starts the next job and tops the queue up: J4 enters at 100, J5 at
/// 200. Trace times (1,000 s apart) play no part.
#[test]
fn constant_job_depth_keeps_two_jobs_idle() {
    let (starts, submitted) = run(&five_wide_jobs(), Submission::ConstantJobs { depth: 2 }, 0);
    assert_eq!(starts, [0, 100, 200, 300, 400]);
    assert_eq!(submitted, [0, 0, 0, 100, 200]);
}

/// Depth 900 processor-seconds of 400 each: three jobs are queued at 0 (800 < 900 after
/// two); J1 starts, leaving 800, so J4 enters at 0 as well; J5 when J2 starts at 100.
#[test]
fn constant_ps_depth_counts_processor_seconds() {
    let (starts, submitted) = run(&five_wide_jobs(), Submission::ConstantPs { depth: 900 }, 0);
    assert_eq!(starts, [0, 100, 200, 300, 400]);
    assert_eq!(submitted, [0, 0, 0, 0, 100]);
}

/// NORMAL with an initial depth of 3: as Maui 3.3.1 submits its first batch at its clock
/// start whatever their trace times, the first three jobs enter together with the first
/// (0), the rest at theirs. One-processor jobs start at once. (On the first 5,000 jobs of
/// KTH-SP2, whose first 16 span a week, the real Maui starts them so: 5,000 of 5,000.)
#[test]
fn normal_submits_the_initial_batch_together() {
    let jobs: Vec<Job> = (0..5)
        .map(|i| Job::synthetic(i + 1, i as i64 * 10, 5, 5, 1))
        .collect();
    let (starts, submitted) = run(&jobs, Submission::Normal { initial: 3 }, 0);
    assert_eq!(starts, [0, 0, 0, 30, 40]);
    assert_eq!(submitted, [0, 0, 0, 30, 40]);
    let (replayed, none) = run(&jobs, Submission::Replay, 0);
    assert_eq!(replayed, [0, 10, 20, 30, 40]);
    assert!(none.is_empty());
}

/// Polling every 10 s, Maui's clock starts one poll before its first iteration, and NORMAL
/// queues the first batch there: those jobs' waits count from -10 (the batch is seen at 0,
/// the first job's time), the others' from their trace times.
#[test]
fn normal_queues_the_initial_batch_from_the_clock_start_when_polling() {
    let jobs: Vec<Job> = (0..5)
        .map(|i| Job::synthetic(i + 1, i as i64 * 10, 5, 5, 1))
        .collect();
    let (starts, submitted) = run(&jobs, Submission::Normal { initial: 3 }, 10);
    assert_eq!(starts, [0, 0, 0, 30, 40]);
    assert_eq!(submitted, [-10, -10, -10, 30, 40]);
}

/// As Maui's simulator does it, polling every 60 s: the queue is topped up at each
/// iteration. J1 starts at 0 (J2 idle, depth 2, so J3 enters at the 60 s tick); J1's end
/// at 100 is seen at 120, where J2 starts; J4 enters at 180; J2 ends at 220, seen at 240
/// (J3 starts); J5 enters at 300; J4 starts at 360 and J5 at 480.
#[test]
fn constant_job_depth_under_polling() {
    let (starts, submitted) = run(&five_wide_jobs(), Submission::ConstantJobs { depth: 2 }, 60);
    assert_eq!(starts, [0, 120, 240, 360, 480]);
    assert_eq!(submitted, [0, 0, 60, 180, 300]);
}

#[test]
fn the_config_names_the_policy_and_bad_values_say_where() {
    let read = |text: &str| params::from_str(text, "maui.cfg").map(|c| c.config.submission());
    assert_eq!(read("").unwrap(), Submission::Replay);
    assert_eq!(
        read("SIMJOBSUBMISSIONPOLICY NORMAL").unwrap(),
        Submission::Normal { initial: 16 }
    );
    assert_eq!(
        read("SIMJOBSUBMISSIONPOLICY constantjobdepth\nSIMINITIALQUEUEDEPTH 4").unwrap(),
        Submission::ConstantJobs { depth: 4 }
    );
    assert_eq!(
        read("SIMINITIALQUEUEDEPTH 5000\nSIMJOBSUBMISSIONPOLICY CONSTANTPSDEPTH").unwrap(),
        Submission::ConstantPs { depth: 5000 }
    );
    let e = read("SIMJOBSUBMISSIONPOLICY SOMETIMES")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("maui.cfg:1:"), "{e}");
    assert!(
        e.contains("expected NORMAL, CONSTANTJOBDEPTH or CONSTANTPSDEPTH"),
        "{e}"
    );
    let e = read("SIMINITIALQUEUEDEPTH -3").unwrap_err().to_string();
    assert!(
        e.contains("maui.cfg:1:") && e.contains("expected 0 or more"),
        "{e}"
    );
}

/// Through the whole run: the metrics and jobs.csv count waits from when the policy let a
/// job in. KTH-SP2's first 500 jobs with 8 always queued keep the machine busier than the
/// trace's own arrivals and never let the queue run dry.
#[test]
fn waits_count_from_the_policy_s_submission() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("maui.cfg");
    std::fs::write(
        &cfg,
        "SIMJOBSUBMISSIONPOLICY CONSTANTJOBDEPTH\nSIMINITIALQUEUEDEPTH 8\n",
    )
    .unwrap();
    let trace =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces/KTH-SP2-1996-2.swf.gz");
    let mut options = RunOptions::new(trace.clone());
    options.transform.first = Some(500);
    let replay = mauisim_sim::run(options.clone()).unwrap();
    options.config = Some(cfg);
    let depth = mauisim_sim::run(options).unwrap();
    assert!(depth.metrics.makespan < replay.metrics.makespan);
    assert!(depth.metrics.utilization > replay.metrics.utilization);
    // Every job was let in no earlier than the trace's first job and started no earlier.
    for (job, outcome) in depth.workload.jobs.iter().zip(&depth.outcomes) {
        assert!(outcome.start >= job.submit, "job {}", job.id);
    }
    let waits: f64 = depth
        .workload
        .jobs
        .iter()
        .zip(&depth.outcomes)
        .map(|(j, o)| o.wait(j) as f64)
        .sum();
    assert!((depth.metrics.avg_wait - waits / 500.0).abs() < 1e-9);
    assert_eq!(depth.metrics.jobs, 500);
}
