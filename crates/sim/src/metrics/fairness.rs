//! The fairness section of `summary.json`: the share of the processor-seconds each
//! credential received over the run, against its FSTARGET.

use crate::engine::Outcome;
use crate::params::credentials::{Names, DEFAULT};
use crate::params::SimConfig;
use crate::trace::workload::Job;
use mauisim_core::{CredId, CredKind, FsTarget, TargetKind};
use serde::Serialize;
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// `25`, `25+`, `25-`, `1000000^`, `30%`.
pub(crate) fn target_text(t: &FsTarget) -> String {
    format!("{}{}", t.value, t.kind.suffix())
}

/// Numeric names (SWF ids) in numeric order, before other names in text order.
pub(crate) fn by_name(a: &str, b: &str) -> Ordering {
    match (a.parse::<i64>(), b.parse::<i64>()) {
        (Ok(x), Ok(y)) => x.cmp(&y),
        (Ok(_), Err(_)) => Ordering::Less,
        (Err(_), Ok(_)) => Ordering::Greater,
        (Err(_), Err(_)) => a.cmp(b),
    }
}

/// One credential's delivered service over a whole run.
#[derive(Debug, Clone, Serialize)]
pub struct FairnessRow {
    pub name: String,
    /// Processor-seconds its jobs ran.
    pub proc_seconds: f64,
    /// Percent of all processor-seconds delivered.
    pub share: f64,
    /// FSTARGET (own, else DEFAULT), with its suffix.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// `share − target` for percentage targets: > 0 means more than the target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub above_target: Option<f64>,
}

/// Per credential kind (`user`, `group`, `account`, `qos`, `class`), the credentials
/// that ran jobs, most served first.
pub type Fairness = BTreeMap<&'static str, Vec<FairnessRow>>;

/// Delivered processor-seconds per credential over the run, against the FSTARGETs.
pub(crate) fn fairness(
    jobs: &[Job],
    outcomes: &[Outcome],
    names: &Names,
    config: &SimConfig,
) -> Fairness {
    let total: f64 = jobs
        .iter()
        .zip(outcomes)
        .map(|(j, o)| j.procs as f64 * o.processing() as f64)
        .sum();
    CredKind::ALL
        .into_iter()
        .map(|kind| {
            let mut used = vec![0.0; names.count(kind)];
            for (job, o) in jobs.iter().zip(outcomes) {
                if let Some(i) = job.creds.get(kind).get() {
                    used[i] += job.procs as f64 * o.processing() as f64;
                }
            }
            let objects = config.credentials.objects(kind);
            let default = objects.get(DEFAULT).and_then(|o| o.settings.fs_target);
            let mut rows: Vec<FairnessRow> = used
                .iter()
                .enumerate()
                .filter(|(_, u)| **u > 0.0)
                .map(|(i, &proc_seconds)| {
                    let name = names.name(kind, CredId(i as u32)).to_string();
                    let target = objects
                        .get(&name)
                        .and_then(|o| o.settings.fs_target)
                        .or(default);
                    let share = if total > 0.0 {
                        100.0 * proc_seconds / total
                    } else {
                        0.0
                    };
                    FairnessRow {
                        name,
                        proc_seconds,
                        share,
                        above_target: target
                            .filter(|t| t.kind != TargetKind::AbsoluteCap)
                            .map(|t| share - t.value),
                        target: target.as_ref().map(target_text),
                    }
                })
                .collect();
            rows.sort_by(|a, b| {
                b.proc_seconds
                    .total_cmp(&a.proc_seconds)
                    .then_with(|| by_name(&a.name, &b.name))
            });
            (kind.label(), rows)
        })
        .collect()
}
