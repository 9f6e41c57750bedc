//! The exactness bar: the EASY-equivalent configuration (FCFS priority, FIRSTFIT,
//! RESERVATIONDEPTH 1, per-event trigger, `--semantics research-easy`) must reproduce the published per-job schedules
//! of traces/reference_outputs job for job, and their average bounded slowdown to every
//! printed digit (traces/PUBLISHED.md).
//!
//! The references live in `../shared` beside the checkout (as in CI). Where it is absent
//! (a user's fresh clone) these tests are ignored, with the reason on the result line.

use mauisim_core::Semantics;
use mauisim_sim::engine::EventOrder;
use mauisim_sim::trace::swf;
use mauisim_sim::trace::workload::{Estimate, Filter};
use mauisim_sim::{run, RunOptions};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The shared traces (the build script ignores these tests where they are absent).
fn shared_traces() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces")
}

/// Start time (submit + simulated wait) of every job of a reference output.
fn reference_starts(path: &Path) -> HashMap<u64, i64> {
    swf::open(path)
        .unwrap()
        .map(|r| {
            let r = r.unwrap();
            (r.int(1) as u64, r.int(2) + r.int(3))
        })
        .collect()
}

fn check(
    input: PathBuf,
    reference: &str,
    filter: Filter,
    estimate: Estimate,
    published_bsld: &str,
) {
    let dir = shared_traces();
    let input = dir.join(input);
    let reference_path = dir.join("reference_outputs").join(reference);
    let expected = reference_starts(&reference_path);
    let report = run(RunOptions {
        filter,
        estimate,
        event_order: EventOrder::PerEvent,
        semantics: Semantics::ResearchEasy,
        ..RunOptions::new(input)
    })
    .unwrap();
    assert_eq!(report.workload.jobs.len(), expected.len(), "job count");
    let mismatched: Vec<_> = report
        .workload
        .jobs
        .iter()
        .zip(&report.outcomes)
        .filter(|(j, o)| expected.get(&j.id) != Some(&o.start))
        .map(|(j, o)| (j.id, o.start, expected.get(&j.id).copied()))
        .take(5)
        .collect();
    assert!(
        mismatched.is_empty(),
        "{reference}: first mismatches (id, ours, reference): {mismatched:?}"
    );
    let digits = published_bsld.split('.').nth(1).unwrap().len();
    let ours = format!("{:.*}", digits, report.metrics.avg_bounded_slowdown);
    assert_eq!(ours, published_bsld, "{reference}: avg bounded slowdown");
}

#[test]
#[cfg_attr(
    not(shared_traces),
    ignore = "../shared/traces is absent: reference schedules not checked"
)]
fn kth_sp2_reqtime() {
    check(
        "reference_outputs/KTH-SP2.pyss-easy-reqtime.swf.gz".into(),
        "KTH-SP2.pyss-easy-reqtime.swf.gz",
        Filter::None,
        Estimate::Trace,
        "92.5765397336295",
    );
}

#[test]
#[cfg_attr(
    not(shared_traces),
    ignore = "../shared/traces is absent: reference schedules not checked"
)]
fn kth_sp2_clairvoyant() {
    check(
        "reference_outputs/KTH-SP2.pyss-easy-clairvoyant.swf.gz".into(),
        "KTH-SP2.pyss-easy-clairvoyant.swf.gz",
        Filter::None,
        Estimate::Exact,
        "71.7223851124418",
    );
}

/// The raw KTH log through the published strong filter rebuilds the reference input.
#[test]
#[cfg_attr(
    not(shared_traces),
    ignore = "../shared/traces is absent: reference schedules not checked"
)]
fn kth_sp2_raw_log_with_published_filter() {
    check(
        "KTH-SP2-1996-2.swf.gz".into(),
        "KTH-SP2.pyss-easy-reqtime.swf.gz",
        Filter::Published,
        Estimate::Trace,
        "92.5765397336295",
    );
}

#[test]
#[cfg_attr(
    not(shared_traces),
    ignore = "../shared/traces is absent: reference schedules not checked"
)]
fn sdsc_sp2_reqtime() {
    check(
        "reference_outputs/SDSC-SP2.pyss-easy-reqtime.swf.gz".into(),
        "SDSC-SP2.pyss-easy-reqtime.swf.gz",
        Filter::None,
        Estimate::Trace,
        "87.8703241921987",
    );
}

#[test]
#[cfg_attr(
    not(shared_traces),
    ignore = "../shared/traces is absent: reference schedules not checked"
)]
fn sdsc_sp2_clairvoyant() {
    check(
        "reference_outputs/SDSC-SP2.pyss-easy-clairvoyant.swf.gz".into(),
        "SDSC-SP2.pyss-easy-clairvoyant.swf.gz",
        Filter::None,
        Estimate::Exact,
        "70.4779419668026",
    );
}

#[test]
#[cfg_attr(
    not(shared_traces),
    ignore = "../shared/traces is absent: reference schedules not checked"
)]
fn cea_curie_reqtime() {
    check(
        "reference_outputs/CEA-curie.pyss-easy-reqtime.swf.gz".into(),
        "CEA-curie.pyss-easy-reqtime.swf.gz",
        Filter::None,
        Estimate::Trace,
        "202.133161662561",
    );
}
