//! `summary.json`: one type for the run in memory and the streamed run.

use crate::engine::{self, EventOrder, RunStats};
use crate::metrics::fairness::Fairness;
use crate::metrics::{self, Metrics};
use crate::params::limits;
use crate::params::SimConfig;
use crate::trace::transform;
use crate::trace::workload::{Counts, Estimate, Filter, Job};
use crate::RunReport;
use mauisim_core::Blocked;
use serde::Serialize;
use std::collections::BTreeMap;

/// The contents of `summary.json`.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub trace: String,
    /// Whether the run was streamed (`run --stream`); written only when it was.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub streamed: bool,
    pub records: u64,
    pub jobs: u64,
    pub skipped: Counts,
    pub skipped_total: u64,
    pub adjusted: Counts,
    /// Jobs held because a limit (or the machine's size) can never let them run.
    pub held: u64,
    pub held_by: BTreeMap<String, u64>,
    /// Job-iterations each kind of limit kept a job from being eligible (hard, idle) or
    /// from the first pass (soft).
    pub limit_blocks: BTreeMap<String, u64>,
    pub machine_procs: u64,
    pub machine_nodes: usize,
    /// Where the node list came from.
    pub nodes_from: String,
    /// Whether processors were pooled (see ARCHITECTURE.md), or nodes tracked one by one.
    pub pooled_processors: bool,
    #[serde(flatten)]
    pub load: transform::LoadReport,
    /// Jobs simulated but left out of the metrics (`--warmup`).
    pub warmup_jobs: u64,
    pub event_order: EventOrder,
    pub estimate: Estimate,
    pub seed: u64,
    pub predictor: engine::Predictor,
    pub filter: Filter,
    pub config: SimConfig,
    #[serde(flatten)]
    pub metrics: Metrics,
    pub iterations: u64,
    pub max_queue_length: usize,
    /// The simulated period in calendar dates, where the trace header gives UnixStartTime.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub period: Option<crate::calendar::Period>,
    /// Processor-seconds delivered per credential, against its FSTARGET (runs in memory
    /// only: a streamed run keeps no per-credential totals).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fairness: Option<Fairness>,
    /// The most jobs a streamed run held at once (from the oldest unfinished one to the
    /// newest read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_jobs_in_memory: Option<usize>,
    /// Wall-clock seconds of the simulation proper (not reading or writing): the only
    /// values in the outputs that vary between identical runs.
    pub sim_seconds: f64,
    pub jobs_per_second: f64,
}

impl RunReport {
    pub fn summary(&self) -> Summary {
        Summary {
            trace: self.options.trace.display().to_string(),
            streamed: false,
            records: self.workload.records,
            jobs: self.metrics.jobs,
            skipped: self.workload.skipped.clone(),
            skipped_total: self.workload.skipped.values().sum(),
            adjusted: self.workload.adjusted.clone(),
            held: self.held.len() as u64,
            held_by: held_by(&self.held),
            limit_blocks: limit_blocks(&self.stats),
            machine_procs: self.nodes.procs(),
            machine_nodes: self.nodes.len(),
            nodes_from: self.nodes.source.clone(),
            pooled_processors: self.pooled,
            load: self.load,
            warmup_jobs: self.warmup_jobs,
            event_order: self.options.event_order,
            estimate: self.options.estimate,
            seed: self.options.seed,
            predictor: self.options.predictor,
            filter: self.options.filter,
            config: self.config.config.clone(),
            metrics: self.metrics.clone(),
            iterations: self.stats.iterations,
            max_queue_length: self.stats.max_queue,
            period: period(&self.workload.header, &self.metrics),
            fairness: Some(metrics::fairness::fairness(
                &self.workload.jobs,
                &self.outcomes,
                &self.workload.names,
                &self.config.config,
            )),
            max_jobs_in_memory: None,
            sim_seconds: self.sim_seconds,
            jobs_per_second: per_second(self.metrics.jobs, self.sim_seconds),
        }
    }
}

/// The calendar period of the measured jobs, from the header's UnixStartTime.
pub(crate) fn period(
    header: &crate::trace::swf::SwfHeader,
    metrics: &Metrics,
) -> Option<crate::calendar::Period> {
    let start = header.positive("UnixStartTime").map(|s| s as i64);
    let first = metrics.first_submit;
    crate::calendar::Period::of(start, first, first + metrics.makespan)
}

/// Held jobs by the name of the limit that holds them.
pub(crate) fn held_by(held: &[(Job, Blocked)]) -> BTreeMap<String, u64> {
    let mut counts = BTreeMap::new();
    for (_, b) in held {
        *counts.entry(limits::limit_name(b)).or_default() += 1;
    }
    counts
}

/// Job-iterations blocked, by the label of the kind of limit.
pub(crate) fn limit_blocks(stats: &RunStats) -> BTreeMap<String, u64> {
    stats
        .limit_blocks
        .iter()
        .map(|(kind, n)| (kind.label(), *n))
        .collect()
}

/// Jobs simulated per second of simulation (0 when no time was measured).
pub(crate) fn per_second(jobs: u64, sim_seconds: f64) -> f64 {
    if sim_seconds > 0.0 {
        jobs as f64 / sim_seconds
    } else {
        0.0
    }
}
