//! Preemption (QOS PREEMPTOR and PREEMPTEE, PREEMPTPOLICY REQUEUE) as Maui 3.3.1's
//! simulation does it (reports/research/maui-3.3.1-qos-flags-and-preemption.md): every
//! start asserted, both event orders, with what the outputs count.

mod common;

use common::{run, starts, world, HOUR};

/// Every expectation of the scenario `text` holds (`--check` on, as in every scenario).
fn holds(text: &str) {
    let scenario = mauisim_sim::scenario::parse(text, std::path::Path::new("t.toml")).unwrap();
    let result = mauisim_sim::scenario::run(&scenario).unwrap();
    let report = mauisim_sim::scenario::to_text(&result);
    assert_eq!(result.failures(), 0, "{report}");
}

/// The text of `scenarios/guide/<name>`.
fn guide_scenario(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/guide")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

/// The error running the scenario `text` stops with.
fn refusal(text: &str) -> String {
    let scenario = mauisim_sim::scenario::parse(text, std::path::Path::new("t.toml")).unwrap();
    mauisim_sim::scenario::run(&scenario)
        .unwrap_err()
        .to_string()
}

/// [`holds`] per instant and per event (`text` has `procs = 2` just before its config).
fn holds_in_both_orders(text: &str) {
    let per_event = text.replace(
        "procs = 2\nconfig",
        "procs = 2\nevent_order = \"per-event\"\nconfig",
    );
    assert_ne!(per_event, text);
    holds(text);
    holds(&per_event);
}

/// The QOS flags of the scenario tests' configs.
const SCENARIO_QOS: &str = "QOSWEIGHT 1\nUSERCFG[DEFAULT] QLIST=lo,hi\n\
    QOSCFG[lo] QFLAGS=PREEMPTEE\nQOSCFG[hi] QFLAGS=PREEMPTOR PRIORITY=1000\n";

const FLAGS: &str = "QOSWEIGHT 1\n\
    CLASSCFG[lo] QDEF=low\nCLASSCFG[hi] QDEF=high\nCLASSCFG[plain] QDEF=plain\n\
    QOSCFG[low] QFLAGS=PREEMPTEE\nQOSCFG[plain] PRIORITY=0\n\
    QOSCFG[high] QFLAGS=PREEMPTOR PRIORITY=1000\n";

/// Five processors; L1 and L2 (PREEMPTEE, 2 each) run from 0; H (PREEMPTOR, 3) comes at
/// 600 with one processor free. Both victims go (their processors alone must cover H's
/// 3), H starts at once, L1 comes back on the two processors left at the next instant,
/// L2 when H ends; each reruns its whole two hours.
#[test]
fn a_preemptor_requeues_the_cheapest_victims_until_they_cover_it() {
    let w = world(
        FLAGS,
        &[
            (1, 0, 2 * HOUR, 2, "u", "", "lo"),
            (2, 0, 2 * HOUR, 2, "u", "", "lo"),
            (3, 600, HOUR, 3, "v", "", "hi"),
        ],
    );
    let (outcomes, _) = run(&w, 5);
    assert_eq!(starts(&outcomes), [601, 600 + HOUR, 600]);
    assert_eq!(outcomes[0].end, 601 + 2 * HOUR, "the whole runtime again");
    for victim in &outcomes[..2] {
        assert_eq!((victim.preemptions, victim.preempted_run()), (1, 600));
    }
    assert_eq!(
        (outcomes[2].preemptions, outcomes[2].preempted_run()),
        (0, 0)
    );
    let metrics = mauisim_sim::metrics::compute(&w.jobs, &outcomes, 5);
    assert_eq!(metrics.preemptions, 2);
    assert_eq!(metrics.preempted_procseconds, 2.0 * 2.0 * 600.0);
}

/// No victim is taken when the PREEMPTEE jobs and the free processors together could not
/// hold the job: at 600, X (not PREEMPTEE) keeps two of six processors, L two, two are
/// free, and H needs six. When X ends at 3600, L and the four free processors can: L is
/// preempted then, and restarts when H ends.
#[test]
fn no_preemption_that_could_not_make_room() {
    let w = world(
        FLAGS,
        &[
            (1, 0, 2 * HOUR, 2, "u", "", "lo"),
            (2, 0, HOUR, 2, "u", "", "plain"),
            (3, 600, HOUR, 6, "v", "", "hi"),
        ],
    );
    let (outcomes, _) = run(&w, 6);
    assert_eq!(starts(&outcomes), [2 * HOUR, 0, HOUR]);
    assert_eq!(
        (outcomes[0].preemptions, outcomes[0].preempted_run()),
        (1, HOUR)
    );
}

/// Victims need a priority strictly below the preemptor's: with no QOS priority both are
/// at the floor, 1, and nothing is preempted; nor is a running job without PREEMPTEE.
#[test]
fn equal_priority_and_unflagged_jobs_are_never_victims() {
    let equal = FLAGS.replace("PREEMPTOR PRIORITY=1000", "PREEMPTOR PRIORITY=0");
    let specs = [
        (1, 0, 2 * HOUR, 2, "u", "", "lo"),
        (2, 600, HOUR, 2, "v", "", "hi"),
    ];
    let (outcomes, _) = run(&world(&equal, &specs), 2);
    assert_eq!(starts(&outcomes), [0, 2 * HOUR]);
    let unflagged = [
        (1, 0, 2 * HOUR, 2, "u", "", "plain"),
        (2, 600, HOUR, 2, "v", "", "hi"),
    ];
    let (outcomes, _) = run(&world(FLAGS, &unflagged), 2);
    assert_eq!(starts(&outcomes), [0, 2 * HOUR]);
}

/// PREEMPTPOLICY CHECKPOINT (3.3.1's simulation cannot checkpoint) and a value 3.3.1
/// reads as NONE preempt nothing; OVERCOMMIT is refused.
#[test]
fn policies_that_preempt_nothing() {
    let specs = [
        (1, 0, 2 * HOUR, 2, "u", "", "lo"),
        (2, 600, HOUR, 2, "v", "", "hi"),
    ];
    let (outcomes, _) = run(&world(FLAGS, &specs), 2);
    assert_eq!(starts(&outcomes), [600 + HOUR, 600], "REQUEUE, the default");
    for never in ["PREEMPTPOLICY CHECKPOINT\n", "PREEMPTPOLICY requeue\n"] {
        let (outcomes, _) = run(&world(&format!("{FLAGS}{never}"), &specs), 2);
        assert_eq!(starts(&outcomes), [0, 2 * HOUR], "{never}");
    }
    let e = mauisim_sim::params::from_str("PREEMPTPOLICY OVERCOMMIT\n", "maui.cfg")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("maui.cfg:1:15: PREEMPTPOLICY OVERCOMMIT (preemptors run"),
        "{e}"
    );
}

/// PREEMPTPOLICY SUSPEND: the victims keep their start and their clocks stop; each resumes,
/// before the iteration schedules anything, once its own nodes are free, and runs what it
/// had left. Suspended time holds no processors: not in utilization, not in the runtime.
#[test]
fn suspended_victims_resume_on_their_nodes_with_their_clock_stopped() {
    let config = format!("{FLAGS}PREEMPTPOLICY SUSPEND\n");
    let w = world(
        &config,
        &[
            (1, 0, 2 * HOUR, 2, "u", "", "lo"),
            (2, 0, 2 * HOUR, 2, "u", "", "lo"),
            (3, 600, HOUR, 3, "v", "", "hi"),
        ],
    );
    let (outcomes, _) = run(&w, 5);
    assert_eq!(starts(&outcomes), [0, 0, 600]);
    for victim in &outcomes[..2] {
        // 600 s run, suspended until H ends at 4200, then the 6600 s left.
        assert_eq!(victim.end, 4200 + 2 * HOUR - 600);
        assert_eq!((victim.preemptions, victim.suspended()), (1, HOUR));
        assert_eq!(victim.preempted_run(), 0, "nothing is lost");
    }
    let metrics = mauisim_sim::metrics::compute(&w.jobs, &outcomes, 5);
    let work = (2.0 * 2.0 * 7200.0 + 3.0 * 3600.0) / (5.0 * (4200.0 + 6600.0));
    assert!(
        (metrics.utilization - work).abs() < 1e-12,
        "{}",
        metrics.utilization
    );
}

/// A suspended job stays suspended 10 s at least (3.3.1's MDEF_MINSUSPENDTIME), even when
/// its nodes are free sooner: H runs 5 s, and L resumes at 110, not 105.
#[test]
fn a_suspension_lasts_ten_seconds_at_least() {
    let config = format!("{FLAGS}PREEMPTPOLICY SUSPEND\n");
    let w = world(
        &config,
        &[
            (1, 0, 1000, 2, "u", "", "lo"),
            (2, 100, 5, 2, "v", "", "hi"),
        ],
    );
    let (outcomes, _) = run(&w, 2);
    assert_eq!(starts(&outcomes), [0, 100]);
    assert_eq!((outcomes[0].end, outcomes[0].suspended()), (110 + 900, 10));
}

/// A suspended job that outruns its limit on its overrun allowance: its limit counts from
/// the start it would have had without its suspension, so its nodes stay its own until it
/// ends. L (2 h overrun allowed, runs 5000 s of a 3600 s limit) is suspended by H from
/// 1000 to 3000 and ends at 7000; X, which needs L's nodes, starts then, in every trigger
/// order and polled.
#[test]
fn a_resumed_job_keeps_its_nodes_through_its_overrun() {
    let text = &format!(
        r#"
title = "overrun after a suspension"
procs = 2
config = """
PREEMPTPOLICY SUSPEND
JOBMAXOVERRUN 2:00:00
{SCENARIO_QOS}"""

[[job]]
name = "L"
procs = 2
limit = 3600
runtime = 5000
qos = "lo"

[[job]]
name = "H"
procs = 2
limit = 2000
submit = 1000
qos = "hi"

[[job]]
name = "X"
procs = 2
limit = 100
submit = 5700
qos = "lo"

[[expect]]
job = "H"
start = 1000

[[expect]]
job = "L"
end = 7000

[[expect]]
job = "X"
start = 7000

[[variant]]
name = "polled"
config = "RMPOLLINTERVAL 0:00:10"

[[variant.expect]]
job = "L"
end = 7000

[[variant.expect]]
job = "X"
start = 7000
"#
    );
    holds_in_both_orders(text);
}

/// Victims count only where the preemptor could run (3.3.1 looks for them on its feasible
/// nodes): H needs the feature `fat`, found on node a only. L1 (on b, started first, as
/// cheap) frees nothing H can use and is left alone; L2 on a is preempted, and H starts.
#[test]
fn victims_only_on_nodes_the_preemptor_can_use() {
    let text = &format!(
        r#"
title = "feasible victims"
config = """
{SCENARIO_QOS}"""

[[node]]
name = "b"
procs = 2

[[node]]
name = "a"
procs = 2
features = ["fat"]

[[job]]
name = "L1"
procs = 2
limit = 3600
qos = "lo"
started = 0
nodes = ["b"]

[[job]]
name = "L2"
procs = 2
limit = 3600
qos = "lo"
started = 0
nodes = ["a"]

[[job]]
name = "H"
procs = 2
limit = 600
submit = 100
qos = "hi"
features = ["fat"]

[[expect]]
job = "H"
start = 100

[[expect]]
job = "L1"
end = 3600

[[expect]]
job = "L2"
start = 700
"#
    );
    holds(text);
}

/// A victim's cost is 3.3.1's run priority over its processors: with USAGEWEIGHT and
/// USAGEEXECUTIONTIMEWEIGHT its seconds run count, so of two victims otherwise alike the
/// one that ran less goes first (V2, started at 500); without them, the first started.
#[test]
fn the_execution_time_weight_makes_long_runs_dearer() {
    let specs = [
        (1, 0, 2 * HOUR, 2, "u", "", "lo"),
        (2, 500, 2 * HOUR, 2, "u", "", "lo"),
        (3, 1000, 600, 2, "v", "", "hi"),
    ];
    let (outcomes, _) = run(&world(FLAGS, &specs), 4);
    assert_eq!(starts(&outcomes), [1600, 500, 1000]);
    let usage = format!("{FLAGS}USAGEWEIGHT 1\nUSAGEEXECUTIONTIMEWEIGHT 1\n");
    let (outcomes, _) = run(&world(&usage, &specs), 4);
    assert_eq!(starts(&outcomes), [0, 1600, 1000]);
}

/// A victim ending at the very instant a preemptor arrives ends: it is not preempted, in
/// either trigger order (per-event takes submissions before completions at equal times,
/// but not for a preemptor). L's limit (2000 s) is longer than its run (1000 s).
#[test]
fn a_job_ending_as_the_preemptor_arrives_is_no_victim() {
    let text = &format!(
        r#"
title = "an end at the preemptor's instant"
procs = 2
config = """
{SCENARIO_QOS}"""

[[job]]
name = "L"
procs = 2
limit = 2000
runtime = 1000
qos = "lo"

[[job]]
name = "H"
procs = 2
limit = 600
submit = 1000
qos = "hi"

[[expect]]
job = "L"
end = 1000

[[expect]]
job = "H"
start = 1000
"#
    );
    holds_in_both_orders(text);
}

/// RESERVEALWAYS (MQueue.c `MQueueScheduleRJobs`): the scenario file's worked example,
/// also polled every minute (the reservations laid at each poll); refused where Maui's
/// passes do not run. (Per event, A alone in the first iteration starts at once: another
/// schedule, not this example's.)
#[test]
fn reserve_always_jobs_are_reserved_beyond_the_depth() {
    let text = guide_scenario("reserve-always.toml");
    holds(&text);
    let polled = text.replace(
        "QOSCFG[urgent] QFLAGS=RESERVEALWAYS\n",
        "QOSCFG[urgent] QFLAGS=RESERVEALWAYS\nRMPOLLINTERVAL 00:01:00\n",
    );
    assert_ne!(polled, text);
    holds(&polled);
    let research = text.replace(
        "procs = 4\nconfig",
        "procs = 4\nsemantics = \"research-easy\"\nconfig",
    );
    let strict = text.replace(
        "QOSCFG[urgent] QFLAGS=RESERVEALWAYS\n",
        "QOSCFG[urgent] QFLAGS=RESERVEALWAYS\nBACKFILLPOLICY NONE\n",
    );
    // Each refusal names the line of the flag, and of the setting it cannot go with.
    let refused = [
        (research, "t.toml (config of `as written`):2:16: QFLAGS=RESERVEALWAYS is simulated as Maui 3.3.1 schedules it, under --semantics maui or maui-3.3.1 only (this run: research-easy)"),
        (strict, "t.toml (config of `as written`):2:16: QFLAGS=RESERVEALWAYS is simulated in Maui 3.3.1's priority and backfill passes, which BACKFILLPOLICY NONE at t.toml (config of `as written`):3:1 leaves out"),
    ];
    for (refused, why) in refused {
        assert_ne!(refused, text);
        let e = refusal(&refused);
        assert!(e.contains(why), "{e}");
    }
}

/// PREEMPTSPV (MPolicy.c `MQueueSelectAllJobs`, MJob.c `MJobUpdateFlags`): the scenario
/// file's worked example, in which only the running job over the soft limit is taken;
/// refused under the research reading.
#[test]
fn preempt_spv_jobs_become_preemptee_over_a_soft_limit() {
    let text = guide_scenario("preempt-spv.toml");
    holds(&text);
    let research = text.replace(
        "procs = 4\nconfig",
        "procs = 4\nsemantics = \"research-easy\"\nconfig",
    );
    assert_ne!(research, text);
    let e = refusal(&research);
    assert!(e.contains("QFLAGS=PREEMPTSPV is simulated"), "{e}");
}
