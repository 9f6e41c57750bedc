//! mauisim-sim: the simulation around the scheduling core.
//!
//! Reads traces (SWF) and maui.cfg files, drives the core with an event loop, computes
//! metrics and writes outputs. The only crate that touches the file system.

pub mod blocked;
pub mod credentials;
pub mod diagnose;
pub mod engine;
pub mod error;
pub mod fairshare_report;
pub mod fs_files;
pub mod limit_params;
pub mod metrics;
pub mod output;
pub mod params;
pub mod scenario;
pub mod swf;
pub mod windows_report;
pub mod workload;

use credentials::{AccountFrom, Resolver};
use engine::{EngineOptions, EventOrder, Outcome, RunStats};
use error::Result;
use mauisim_core::{Blocked, CredKind, PolicyConfig, Time};
use metrics::Metrics;
use params::{LoadedConfig, SimConfig};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use workload::{Counts, Estimate, Filter, LoadOptions, MachineOverride, Workload};

/// What to simulate and how.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub trace: PathBuf,
    pub config: Option<PathBuf>,
    pub filter: Filter,
    pub estimate: Estimate,
    pub machine: MachineOverride,
    pub event_order: EventOrder,
    /// Where trace jobs' requested accounts come from.
    pub account_from: AccountFrom,
    /// Write every fairshare window as an `FS.<epoch>` file into this directory.
    pub fs_dir: Option<PathBuf>,
    /// Start from the fairshare history in the `FS.<epoch>` files of this directory.
    pub fs_init: Option<PathBuf>,
}

/// Everything a run produced.
#[derive(Debug)]
pub struct RunReport {
    pub options: RunOptions,
    pub config: LoadedConfig,
    /// The jobs that ran (held jobs are moved to `held`).
    pub workload: Workload,
    pub outcomes: Vec<Outcome>,
    /// Jobs that could never run, with the limit that holds them.
    pub held: Vec<(workload::Job, Blocked)>,
    pub stats: RunStats,
    pub metrics: Metrics,
    pub sim_seconds: f64,
}

/// The contents of `summary.json`.
#[derive(Debug, Serialize)]
pub struct Summary<'a> {
    pub trace: String,
    pub records: u64,
    pub jobs: u64,
    pub skipped: &'a Counts,
    pub skipped_total: u64,
    pub adjusted: &'a Counts,
    /// Jobs held because a limit (or the machine's size) can never let them run.
    pub held: u64,
    pub held_by: BTreeMap<String, u64>,
    /// Job-iterations each kind of limit kept a job from being eligible (hard, idle) or
    /// from the first pass (soft).
    pub limit_blocks: BTreeMap<String, u64>,
    pub machine_procs: u64,
    pub event_order: EventOrder,
    pub estimate: Estimate,
    pub filter: Filter,
    pub config: &'a SimConfig,
    #[serde(flatten)]
    pub metrics: &'a Metrics,
    pub iterations: u64,
    pub max_queue_length: usize,
    /// Processor-seconds delivered per credential, against its FSTARGET.
    pub fairness: fairshare_report::Fairness,
    /// Wall-clock seconds of the simulation proper (not reading or writing): the only
    /// values in the outputs that vary between identical runs.
    pub sim_seconds: f64,
    pub jobs_per_second: f64,
}

impl RunReport {
    pub fn summary(&self) -> Summary<'_> {
        Summary {
            trace: self.options.trace.display().to_string(),
            records: self.workload.records,
            jobs: self.metrics.jobs,
            skipped: &self.workload.skipped,
            skipped_total: self.workload.skipped.values().sum(),
            adjusted: &self.workload.adjusted,
            held: self.held.len() as u64,
            held_by: count_by(self.held.iter().map(|(_, b)| blocked::limit_name(b))),
            limit_blocks: self
                .stats
                .limit_blocks
                .iter()
                .map(|(kind, n)| (kind.label(), *n))
                .collect(),
            machine_procs: self.workload.machine.procs(),
            event_order: self.options.event_order,
            estimate: self.options.estimate,
            filter: self.options.filter,
            config: &self.config.config,
            metrics: &self.metrics,
            iterations: self.stats.iterations,
            max_queue_length: self.stats.max_queue,
            fairness: fairshare_report::fairness(
                &self.workload.jobs,
                &self.outcomes,
                &self.workload.names,
                &self.config.config,
            ),
            sim_seconds: self.sim_seconds,
            jobs_per_second: if self.sim_seconds > 0.0 {
                self.metrics.jobs as f64 / self.sim_seconds
            } else {
                0.0
            },
        }
    }
}

/// A config and a workload, read and tied together: ready to simulate.
pub struct Prepared {
    pub config: LoadedConfig,
    pub workload: Workload,
    /// The config's policy with credential names resolved to the workload's ids.
    pub policy: PolicyConfig,
    pub engine: EngineOptions,
}

/// Reads the config and the trace and gives every job its credentials.
pub fn prepare(options: &RunOptions) -> Result<Prepared> {
    let config = match &options.config {
        Some(path) => params::from_file(path)?,
        None => LoadedConfig {
            config: SimConfig::default(),
            warnings: Vec::new(),
        },
    };
    let load = LoadOptions {
        filter: options.filter,
        estimate: options.estimate,
        machine: options.machine,
        default_wclimit: config.config.default_wclimit,
    };
    let workload = workload::load(&options.trace, &load)?;
    let mut prepared = bind(config, workload, options.account_from, options.event_order);
    let fairshare_off = prepared.policy.fairshare.metric.is_none();
    if let Some(dir) = &options.fs_init {
        if fairshare_off {
            return Err(error::SimError::Usage(
                "--fs-init: FSPOLICY is NONE, so fairshare history would not be used".into(),
            ));
        }
        prepared.policy.fairshare.history = fs_files::load_dir(dir, &mut prepared.workload.names)?;
    }
    if options.fs_dir.is_some() && fairshare_off {
        return Err(error::SimError::Usage(
            "--fs-dir: FSPOLICY is NONE, so no fairshare usage is tracked".into(),
        ));
    }
    prepared.engine.record_fairshare = options.fs_dir.is_some();
    Ok(prepared)
}

/// Ties a config to a workload: gives every job its credentials and resolves the
/// config's credential names to the workload's ids.
pub fn bind(
    config: LoadedConfig,
    mut workload: Workload,
    account_from: AccountFrom,
    event_order: EventOrder,
) -> Prepared {
    let resolver = Resolver::new(&config.config.credentials, &mut workload.names);
    credentials::assign_all(
        &mut workload.jobs,
        &mut workload.names,
        &resolver,
        account_from,
        &mut workload.adjusted,
    );
    let mut policy = config.config.policy.clone();
    policy.creds = resolver.tables;
    for (group, names) in policy
        .reservation_groups
        .iter_mut()
        .zip(&config.config.reservation_qos)
    {
        group.qos = names.as_ref().map(|names| {
            names
                .iter()
                .map(|name| workload.names.intern(CredKind::Qos, name))
                .collect()
        });
    }
    let engine = EngineOptions {
        order: event_order,
        poll_interval: config.config.poll_interval,
        max_overrun: config.config.max_overrun,
        ..EngineOptions::default()
    };
    Prepared {
        config,
        workload,
        policy,
        engine,
    }
}

/// Reads the config and the trace, simulates, and computes the metrics.
pub fn run(options: RunOptions) -> Result<RunReport> {
    let Prepared {
        config,
        mut workload,
        policy,
        engine,
    } = prepare(&options)?;
    let clock = std::time::Instant::now();
    let (mut outcomes, stats) =
        engine::simulate(&workload.jobs, workload.machine.procs(), policy, engine)?;
    let sim_seconds = clock.elapsed().as_secs_f64();
    let held = set_held_apart(&mut workload, &mut outcomes, &stats.held);
    let metrics = metrics::compute(&workload.jobs, &outcomes, workload.machine.procs());
    Ok(RunReport {
        options,
        config,
        workload,
        outcomes,
        held,
        stats,
        metrics,
        sim_seconds,
    })
}

/// Moves held jobs out of the workload and outcomes, so metrics and `jobs.csv` cover the
/// jobs that ran.
fn set_held_apart(
    workload: &mut Workload,
    outcomes: &mut Vec<Outcome>,
    held: &[(usize, Blocked)],
) -> Vec<(workload::Job, Blocked)> {
    if held.is_empty() {
        return Vec::new();
    }
    let mut limit_of: Vec<Option<Blocked>> = vec![None; workload.jobs.len()];
    for (i, b) in held {
        limit_of[*i] = Some(*b);
    }
    let mut apart = Vec::with_capacity(held.len());
    let jobs = std::mem::take(&mut workload.jobs);
    let all_outcomes = std::mem::take(outcomes);
    for ((job, outcome), limit) in jobs.into_iter().zip(all_outcomes).zip(limit_of) {
        match limit {
            Some(b) => apart.push((job, b)),
            None => {
                workload.jobs.push(job);
                outcomes.push(outcome);
            }
        }
    }
    apart
}

fn count_by(keys: impl Iterator<Item = String>) -> BTreeMap<String, u64> {
    let mut counts = BTreeMap::new();
    for k in keys {
        *counts.entry(k).or_default() += 1;
    }
    counts
}

/// Writes the run's fairshare windows as `FS.<epoch>` files into `--fs-dir`, if given.
/// Epochs are trace times plus the trace header's UnixStartTime.
pub fn write_fs_files(report: &RunReport) -> Result<()> {
    let Some(dir) = &report.options.fs_dir else {
        return Ok(());
    };
    let offset = report
        .workload
        .header
        .positive("UnixStartTime")
        .unwrap_or(0) as Time;
    fs_files::write_dir(
        dir,
        &report.stats.fs_windows,
        &report.workload.names,
        offset,
    )
}

/// The state of a run at `at` (trace time, seconds), for `mauisim inspect`.
pub fn snapshot(prepared: &Prepared, at: Time) -> engine::Snapshot {
    engine::simulate_until(
        &prepared.workload.jobs,
        prepared.workload.machine.procs(),
        prepared.policy.clone(),
        prepared.engine,
        at,
    )
}
