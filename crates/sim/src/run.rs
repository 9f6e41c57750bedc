//! A run: the config and the trace read and tied together ([`prepare`], [`bind`]),
//! simulated ([`run_prepared`]) and measured; or stopped at an instant ([`snapshot`]).

use crate::engine::{self, EngineOptions, EventOrder, Outcome, RunStats};
use crate::error::{self, Result};
use crate::metrics::{self, Metrics};
use crate::nodes::{self, Nodes};
use crate::output::fs_files;
use crate::params::credentials::{self, Resolver};
use crate::params::{self, LoadedConfig, SimConfig};
use crate::trace::accounts::{self, AccountFrom};
use crate::trace::transform;
use crate::trace::workload::{self, Estimate, Filter, LoadOptions, MachineOverride, Workload};
use mauisim_config::ConfigError;
use mauisim_core::{Blocked, CredKind, PolicyConfig, Semantics, Time};
use std::path::PathBuf;

/// What to simulate and how.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub trace: PathBuf,
    pub config: Option<PathBuf>,
    pub filter: Filter,
    pub estimate: Estimate,
    pub machine: MachineOverride,
    pub event_order: EventOrder,
    /// Whose reading of the policy iterations follow (`--semantics`).
    pub semantics: Semantics,
    /// Where trace jobs' requested accounts come from.
    pub account_from: AccountFrom,
    /// Write every fairshare window as an `FS.<epoch>` file into this directory.
    pub fs_dir: Option<PathBuf>,
    /// Start from the fairshare history in the `FS.<epoch>` files of this directory.
    pub fs_init: Option<PathBuf>,
    /// The nodes, from a Maui resource trace (guide 16.2) instead of the trace header.
    pub node_file: Option<PathBuf>,
    /// Runtimes scale with the relative SPEED of a job's (slowest) node.
    pub scale_by_speed: bool,
    /// Seeds every random draw of the run (`--seed`).
    pub seed: u64,
    /// Window, filters, time scaling and warm-up applied to the workload.
    pub transform: transform::Transform,
    /// What the scheduler plans job lengths with.
    pub predictor: engine::Predictor,
    /// Record every iteration's queue length and reservations (`timeline.csv`, charts).
    pub timeline: bool,
    /// Verify the invariants after every iteration and stop at the first broken one
    /// (`--check`; see [`mauisim_core::Rule`]).
    pub check: bool,
}

impl RunOptions {
    /// `trace` under Maui's defaults: no config, no filter, WCL = the requested time,
    /// the header's machine, per-instant iterations, seed 1, nothing reshaped.
    pub fn new(trace: PathBuf) -> Self {
        RunOptions {
            trace,
            config: None,
            filter: Filter::None,
            estimate: Estimate::Trace,
            machine: MachineOverride::default(),
            event_order: EventOrder::PerInstant,
            semantics: Semantics::default(),
            account_from: AccountFrom::default(),
            fs_dir: None,
            fs_init: None,
            node_file: None,
            scale_by_speed: false,
            seed: 1,
            transform: transform::Transform::default(),
            predictor: engine::Predictor::default(),
            timeline: false,
            check: false,
        }
    }
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
    pub nodes: Nodes,
    pub pooled: bool,
    pub load: transform::LoadReport,
    /// Jobs left out of the metrics as warm-up.
    pub warmup_jobs: u64,
}

/// A config and a workload, read and tied together: ready to simulate.
pub struct Prepared {
    pub config: LoadedConfig,
    pub workload: Workload,
    /// The config's policy with credential names resolved to the workload's ids.
    pub policy: PolicyConfig,
    pub engine: EngineOptions,
    pub nodes: Nodes,
    pub load: transform::LoadReport,
}

/// Reads the config and the trace and gives every job its credentials.
pub fn prepare(options: &RunOptions) -> Result<Prepared> {
    let config = read_config(options)?;
    let Some(errors) = config.errors else {
        let config = config.loaded;
        let warnings = config.warnings.clone();
        let workload = workload::load(&options.trace, &load_options(options, &config.config))?;
        // One run tells a config's binding problems with its warnings; a sweep's points
        // (`run_from`) leave them to the sweep, which tells them once.
        return prepare_with(config, workload, options).map_err(|e| e.with_warnings(warnings));
    };
    Err(with_binding_errors(errors, config.loaded, options))
}

/// The errors of a config's refused entries, and what binding the rest to the trace's
/// machine finds wrong besides: a site fixes its file in one go. Only the trace's header is
/// read for it (its machine and calendar): a trace that cannot be read, or a run too large
/// to set up quickly, is told in the next run, once the config is right.
fn with_binding_errors(
    errors: ConfigError,
    mut partial: LoadedConfig,
    options: &RunOptions,
) -> error::SimError {
    let binding = bind_partial(&mut partial, options).err();
    told_together(errors, partial.warnings, binding)
}

/// [`bind_to_nodes`] for a config whose entries were refused in part, on the machine the
/// trace's header (or the command line) and the node file give.
fn bind_partial(partial: &mut LoadedConfig, options: &RunOptions) -> Result<()> {
    partial.config.policy.semantics = options.semantics;
    let load = load_options(options, &partial.config);
    let (size, calendar) = workload::trace_machine(&options.trace, &load.machine)?;
    let base = node_source(options)?;
    let mut names = credentials::Names::default();
    let tables = Resolver::new(&partial.config.credentials, &mut names).tables;
    let machine = MachineSource {
        base,
        size,
        calendar,
    };
    bind_to_nodes(partial, tables, &mut names, machine).map(|_| ())
}

/// A config's refused entries' `errors` with the problems `binding` the rest to the nodes
/// found, in the file's order, and the config's `warnings`.
pub(crate) fn told_together(
    errors: ConfigError,
    warnings: Vec<String>,
    binding: Option<error::SimError>,
) -> error::SimError {
    let Some(error::SimError::ConfigErrors { errors: more, .. }) = binding else {
        return errors.with_warnings(warnings).into();
    };
    let mut all = errors.into_lines();
    all.extend(more);
    all.sort_by_cached_key(|message| place_in_file(message));
    error::SimError::ConfigErrors {
        errors: all,
        warnings,
    }
}

/// The file, line and column a message begins with (`maui.cfg:3:14: …`), those without
/// one last.
fn place_in_file(message: &str) -> (bool, String, usize, usize) {
    let head = message.split(": ").next().unwrap_or("");
    let mut parts = head.rsplitn(3, ':');
    let (column, line, file) = (parts.next(), parts.next(), parts.next());
    match (
        file,
        line.and_then(|l| l.parse().ok()),
        column.and_then(|c| c.parse().ok()),
    ) {
        (Some(file), Some(line), Some(column)) => (false, file.to_string(), line, column),
        _ => (true, String::new(), 0, 0),
    }
}

/// The nodes of `options`' node file, if it names one.
fn node_source(options: &RunOptions) -> Result<Option<nodes::NodeSource>> {
    let Some(path) = &options.node_file else {
        return Ok(None);
    };
    let (nodes, down) = nodes::read_resource_trace(path)?;
    let mut source = path.display().to_string();
    if down > 0 {
        source.push_str(&format!(" ({down} nodes down, left out)"));
    }
    Ok(Some(nodes::NodeSource {
        nodes,
        source,
        standing: Vec::new(),
    }))
}

/// How the trace's records become jobs under `options` and `config`.
pub fn load_options(options: &RunOptions, config: &SimConfig) -> LoadOptions {
    LoadOptions {
        filter: options.filter,
        estimate: options.estimate,
        seed: options.seed,
        sim_wc: config.sim_wc,
        machine: options.machine,
        default_wclimit: config.default_wclimit,
        class_wclimit: config.class_wclimit.clone(),
    }
}

/// [`prepare`] with the config and the workload already read (`options.trace` and
/// `options.config` are then only names).
pub fn prepare_with(
    mut config: LoadedConfig,
    workload: Workload,
    options: &RunOptions,
) -> Result<Prepared> {
    config.config.policy.semantics = options.semantics;
    let base = node_source(options)?;
    let mut prepared = bind(
        config,
        workload,
        options.account_from,
        options.event_order,
        base,
    )?;
    prepared.engine.scale_by_speed = options.scale_by_speed;
    prepared.engine.predictor = options.predictor;
    prepared.engine.record_timeline = options.timeline;
    prepared.engine.check = options.check;
    let procs = prepared.nodes.procs();
    prepared.load = transform::apply(&mut prepared.workload, &options.transform, procs)?;
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

/// Ties a config to a workload: gives every job its credentials, resolves the config's
/// credential names to the workload's ids, and builds the machine (from `base` nodes if
/// given, see [`nodes::build`]).
pub fn bind(
    mut config: LoadedConfig,
    mut workload: Workload,
    account_from: AccountFrom,
    event_order: EventOrder,
    base: Option<nodes::NodeSource>,
) -> Result<Prepared> {
    let resolver = Resolver::new(&config.config.credentials, &mut workload.names);
    accounts::assign_all(
        &mut workload.jobs,
        &mut workload.names,
        &resolver,
        account_from,
        &mut workload.adjusted,
    );
    let machine = MachineSource {
        base,
        size: workload.machine,
        calendar: nodes::calendar_of(&workload.header),
    };
    let (policy, nodes) =
        bind_to_nodes(&mut config, resolver.tables, &mut workload.names, machine)?;
    let any_job_asks = workload.jobs.iter().any(|j| j.nodes_asked() > 0);
    config
        .warnings
        .extend(params::node_count_unasked(&config.config, any_job_asks));
    if !config.config.class_overrun.is_empty() {
        for job in &mut workload.jobs {
            set_class_overrun(job, &config.config, &workload.names);
        }
    }
    resolve_node_asks(&mut workload.jobs, &nodes)?;
    let class_features = class_feature_masks(&config.config, &nodes, &mut config.warnings);
    if !class_features.is_empty() {
        for job in &mut workload.jobs {
            add_class_features(job, &class_features, &workload.names);
        }
    }
    let pinned = workload
        .jobs
        .iter()
        .any(|j| j.node_ask().is_some_and(|a| !a.node_ids.is_empty()));
    let requests = workload.jobs.iter().map(|j| {
        let partition = j.creds.partition.get().map_or(0, |p| p as u32 + 1);
        (&j.request, partition)
    });
    // Under Maui's semantics which nodes a job takes and a reservation holds shapes the
    // schedule, so nodes are tracked one by one.
    // (A suspended job resumes on its own nodes: they are followed one by one.)
    let pooled = !pinned
        && !policy.semantics.is_maui()
        && policy.preemption != mauisim_core::Preemption::Suspend
        && nodes.spec.pools_processors(requests);
    let engine = EngineOptions {
        order: event_order,
        poll_interval: config.config.poll_interval,
        max_overrun: config.config.max_overrun,
        submission: config.config.submission(),
        pooled,
        ..EngineOptions::default()
    };
    let offered = transform::offered_load(&workload.jobs, nodes.procs());
    let load = transform::LoadReport {
        offered_load_trace: offered,
        offered_load: offered,
    };
    Ok(Prepared {
        config,
        workload,
        policy,
        engine,
        nodes,
        load,
    })
}

/// The machine a config is bound to: its nodes as a node file gives them (or none), its
/// size from the trace or the command line, and the trace's calendar.
pub(crate) struct MachineSource {
    pub base: Option<nodes::NodeSource>,
    pub size: workload::Machine,
    pub calendar: Time,
}

/// The config's policy bound to the machine's nodes, the nodes' warnings added to the
/// config's. Every problem the binding finds is told at once
/// ([`error::SimError::ConfigErrors`], without the config's warnings: a caller telling them
/// adds them).
pub(crate) fn bind_to_nodes(
    config: &mut LoadedConfig,
    creds: mauisim_core::CredTables,
    names: &mut credentials::Names,
    machine: MachineSource,
) -> Result<(PolicyConfig, Nodes)> {
    let c = &mut config.config;
    let mut errors = Vec::new();
    errors.extend(params::partitions::for_semantics(c).err());
    errors.extend(params::node_sets::for_semantics(c).err());
    let mut policy = policy_for(c, creds, names);
    let nodes = match nodes::build(
        machine.base,
        machine.size,
        &c.nodes,
        names,
        machine.calendar,
    ) {
        Ok(nodes) => Some(nodes),
        Err(error::SimError::ConfigErrors { errors: more, .. }) => {
            errors.extend(more);
            None
        }
        // Every other error of the build is the config's too (LOCAL, NODECFG[DEFAULT] PROCS).
        Err(e) => {
            errors.push(e.to_string());
            None
        }
    };
    if let Some(nodes) = &nodes {
        errors.extend(params::partitions::bind(&mut policy, c, nodes).err());
        config.warnings.extend(nodes.warnings.iter().cloned());
    }
    errors.extend(params::qos_flags::check_simulated(&policy, &config.config).err());
    match nodes {
        Some(nodes) if errors.is_empty() => Ok((policy, nodes)),
        _ => Err(error::SimError::ConfigErrors {
            errors,
            warnings: Vec::new(),
        }),
    }
}

/// The config's policy with its credential tables and RESERVATIONQOSLIST names as ids.
pub(crate) fn policy_for(
    config: &SimConfig,
    creds: mauisim_core::CredTables,
    names: &mut credentials::Names,
) -> PolicyConfig {
    let mut policy = config.policy.clone();
    policy.creds = creds;
    for (group, qos) in policy
        .reservation_groups
        .iter_mut()
        .zip(&config.reservation_qos)
    {
        group.qos = qos.as_ref().map(|list| {
            list.iter()
                .map(|name| names.intern(CredKind::Qos, name))
                .collect()
        });
    }
    policy
}

/// The OVERRUN of the job's class (or the DEFAULT class), replacing JOBMAXOVERRUN.
pub(crate) fn set_class_overrun(
    job: &mut workload::Job,
    config: &SimConfig,
    names: &credentials::Names,
) {
    let class = names.name(CredKind::Class, job.creds.get(CredKind::Class));
    let overrun = &config.class_overrun;
    job.set_class_overrun(
        overrun
            .get(class)
            .or_else(|| overrun.get(credentials::DEFAULT))
            .copied(),
    );
}

/// The config of `options` as far as its entries allow ([`params::read_file`]), or the
/// defaults without one.
pub(crate) fn read_config(options: &RunOptions) -> Result<params::PartlyRead> {
    Ok(match &options.config {
        Some(path) => params::read_file(path)?,
        None => params::PartlyRead {
            loaded: no_config(),
            errors: None,
        },
    })
}

/// The defaults, when no config is given.
fn no_config() -> LoadedConfig {
    LoadedConfig {
        config: SimConfig::default(),
        warnings: Vec::new(),
    }
}

/// CLASSCFG DEFAULT.FEATURES as masks over the nodes' features, by class name. A feature no
/// node has takes a bit no node has, so that the class's jobs are held (3.3.1 leaves them
/// idle for ever), with a warning.
pub(crate) fn class_feature_masks(
    config: &SimConfig,
    nodes: &Nodes,
    warnings: &mut Vec<String>,
) -> std::collections::BTreeMap<String, mauisim_core::FeatureMask> {
    // With every bit naming a feature there is none to spare: such a class is not held.
    let nowhere = match nodes.features.len() {
        n if n < 64 => 1 << n,
        _ => 0,
    };
    let mut masks = std::collections::BTreeMap::new();
    for (class, (features, at)) in &config.class_features {
        let mut mask = 0;
        for f in features {
            match nodes.feature_mask(std::slice::from_ref(f)) {
                Ok(m) => mask |= m,
                Err(_) => {
                    warnings.push(format!(
                        "{at}: warning: CLASSCFG[{class}] DEFAULT.FEATURES: no node has feature `{f}`: every job of class {class} requires it and is held, as Maui 3.3.1 leaves such a job idle for ever"
                    ));
                    mask |= nowhere;
                }
            }
        }
        masks.insert(class.clone(), mask);
    }
    masks
}

/// Adds its class's DEFAULT.FEATURES to what `job` requires.
pub(crate) fn add_class_features(
    job: &mut workload::Job,
    masks: &std::collections::BTreeMap<String, mauisim_core::FeatureMask>,
    names: &credentials::Names,
) {
    let class = names.name(
        mauisim_core::CredKind::Class,
        job.creds.get(mauisim_core::CredKind::Class),
    );
    if let Some(mask) = masks.get(class) {
        job.request.features |= mask;
    }
}

/// Turns the features and nodes jobs ask for by name into the machine's masks and indexes.
fn resolve_node_asks(jobs: &mut [workload::Job], nodes: &Nodes) -> Result<()> {
    for job in jobs {
        let id = job.id;
        let bad = |m: String| error::SimError::Usage(format!("job {id}: {m}"));
        let Some(ask) = job.node_ask() else {
            continue;
        };
        let features = nodes.feature_mask(&ask.features).map_err(bad)?;
        let pref = nodes.feature_mask(&ask.pref).map_err(bad)?;
        let node_ids = ask
            .nodes
            .iter()
            .map(|name| {
                nodes
                    .index_of(name)
                    .ok_or_else(|| bad(format!("no node is named `{name}`")))
            })
            .collect::<Result<_>>()?;
        (job.request.features, job.request.pref) = (features, pref);
        if let Some(ask) = job.node_ask_mut() {
            ask.node_ids = node_ids;
        }
    }
    Ok(())
}

/// Reads the config and the trace, simulates, and computes the metrics.
pub fn run(options: RunOptions) -> Result<RunReport> {
    let prepared = prepare(&options)?;
    run_prepared(prepared, options)
}

/// A run over records already read (a sweep's shared [`workload::Trace`]) with a config
/// already read: the same as [`run`] on the files.
pub fn run_from(
    trace: &workload::Trace,
    config: LoadedConfig,
    options: RunOptions,
) -> Result<RunReport> {
    let workload = trace.workload(&load_options(&options, &config.config))?;
    let prepared = prepare_with(config, workload, &options)?;
    run_prepared(prepared, options)
}

/// Simulates a prepared run and computes the metrics.
pub fn run_prepared(prepared: Prepared, options: RunOptions) -> Result<RunReport> {
    let Prepared {
        config,
        mut workload,
        policy,
        engine,
        nodes,
        load,
    } = prepared;
    let clock = std::time::Instant::now();
    let (mut outcomes, mut stats) =
        engine::simulate(&workload.jobs, nodes.spec.clone(), policy, engine)
            .map_err(|e| nodes.name_in(e))?;
    let sim_seconds = clock.elapsed().as_secs_f64();
    // Waits count from when a submission policy let a job in, not from the trace's time.
    for (job, &submitted) in workload.jobs.iter_mut().zip(&stats.submitted) {
        job.submit = submitted;
    }
    let held = set_held_apart(&mut workload, &mut outcomes, &mut stats);
    let counted = transform::counted(&workload.jobs, options.transform.warmup);
    let warmup_jobs = (workload.jobs.len() - counted.len()) as u64;
    let metrics = if warmup_jobs == 0 {
        metrics::compute(&workload.jobs, &outcomes, nodes.procs())
    } else {
        let jobs: Vec<workload::Job> = counted.iter().map(|&i| workload.jobs[i].clone()).collect();
        let kept: Vec<Outcome> = counted.iter().map(|&i| outcomes[i]).collect();
        metrics::compute(&jobs, &kept, nodes.procs())
    };
    Ok(RunReport {
        options,
        config,
        workload,
        outcomes,
        held,
        stats,
        metrics,
        sim_seconds,
        nodes,
        pooled: engine.pooled,
        load,
        warmup_jobs,
    })
}

/// Moves held jobs out of the workload and outcomes, so metrics and `jobs.csv` cover the
/// jobs that ran.
fn set_held_apart(
    workload: &mut Workload,
    outcomes: &mut Vec<Outcome>,
    stats: &mut RunStats,
) -> Vec<(workload::Job, Blocked)> {
    let held = &stats.held;
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
    let all_nodes = std::mem::take(&mut stats.job_nodes);
    for (((job, outcome), nodes), limit) in jobs
        .into_iter()
        .zip(all_outcomes)
        .zip(all_nodes.iter())
        .zip(limit_of)
    {
        match limit {
            Some(b) => apart.push((job, b)),
            None => {
                workload.jobs.push(job);
                outcomes.push(outcome);
                stats.job_nodes.push(&nodes.collect::<Vec<_>>());
            }
        }
    }
    apart
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

/// Simulates the whole prepared run; a check failure names its node.
pub fn simulate(prepared: &Prepared) -> Result<(Vec<Outcome>, RunStats)> {
    engine::simulate(
        &prepared.workload.jobs,
        prepared.nodes.spec.clone(),
        prepared.policy.clone(),
        prepared.engine,
    )
    .map_err(|e| prepared.nodes.name_in(e))
}

/// The state of a run at `at` (trace time, seconds), for `mauisim inspect`.
pub fn snapshot(prepared: &Prepared, at: Time) -> engine::Snapshot {
    engine::simulate_until(
        &prepared.workload.jobs,
        prepared.nodes.spec.clone(),
        prepared.policy.clone(),
        prepared.engine,
        at,
    )
}
