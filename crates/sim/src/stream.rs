//! Streamed runs (`mauisim run --stream`, issue 8 item 6): the trace is read, bound to the
//! config and simulated one record at a time, and each job is written to `jobs.csv` and
//! `schedule.swf` and added to the metrics as soon as it (and every job before it) has
//! finished. Memory holds the jobs from the oldest unfinished one on, not the trace.
//!
//! The outputs are those of a run in memory, byte for byte, except `summary.json`: it has
//! no fairness section (that needs every job), and says `"streamed": true`. What needs
//! the whole trace before the run is refused: unsorted records, `--last`,
//! `--target-load`, `--compress`, Maui workload traces, charts, `--check`, fairshare
//! files and node files.

use crate::engine::{self, EngineOptions, Feed, Finished, Sink};
use crate::error::{Result, SimError};
use crate::metrics::Accumulator;
use crate::output::{self, JobsCsv, ScheduleSwf};
use crate::params::credentials::{Names, Resolver};
use crate::params::{LoadedConfig, SimConfig};
use crate::summary::{self, Summary};
use crate::trace::accounts::{self, AccountFrom};
use crate::trace::swf::{self, SwfReader, SwfRecord};
use crate::trace::transform::{self, OfferedLoad};
use crate::trace::workload::{self, Builder, Counts, Job, LoadOptions, Machine};
use crate::{nodes, RunOptions};
use mauisim_core::{Blocked, CredId, CredKind, Request, Time};
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// What a streamed run reports: its `summary.json`, and the config's warnings.
pub struct Streamed {
    pub summary: Summary,
    pub warnings: Vec<String>,
}

/// Runs `options` streamed, writing every output into `dir` (atomically, as
/// [`output::write_all`] does).
pub fn run(options: &RunOptions, dir: &Path) -> Result<Streamed> {
    refuse_whole_trace_options(options)?;
    output::write_staged(dir, |staging| run_into(options, staging))
}

fn refuse_whole_trace_options(o: &RunOptions) -> Result<()> {
    let t = &o.transform;
    let refused = [
        (
            t.last.is_some(),
            "--last (the last N jobs are known only at the end)",
        ),
        (
            t.target_load.is_some(),
            "--target-load (it scales the whole trace)",
        ),
        (t.compress.is_some(), "--compress"),
        (o.timeline, "--charts"),
        (o.check, "--check"),
        (o.fs_dir.is_some(), "--fs-dir"),
        (o.fs_init.is_some(), "--fs-init"),
        (o.node_file.is_some(), "--node-file"),
    ];
    match refused.iter().find(|(set, _)| *set) {
        Some((_, what)) => Err(SimError::Usage(format!(
            "--stream: {what} needs the whole trace in memory; run without --stream"
        ))),
        None => Ok(()),
    }
}

/// The SWF trace at `path` opened, its header read (and the first record after it), and
/// the machine it asks for under `load`.
fn open_swf(path: &Path, load: &LoadOptions) -> Result<OpenedSwf> {
    if crate::trace::maui::is_maui_trace(path)? {
        return Err(SimError::Usage(
            "--stream reads SWF traces; run a Maui workload trace without --stream".into(),
        ));
    }
    let mut reader = swf::open(path)?;
    let first = reader.read_header()?;
    let machine = workload::machine_size(&reader.header, &load.machine, path)?;
    Ok(OpenedSwf {
        reader,
        first,
        machine,
    })
}

/// An SWF trace opened by [`open_swf`].
struct OpenedSwf {
    reader: SwfReader<Box<dyn BufRead>>,
    /// The first record, read with the header.
    first: Option<SwfRecord>,
    machine: Machine,
}

fn run_into(options: &RunOptions, staging: &Path) -> Result<Streamed> {
    let read = crate::run::read_config(options)?;
    let mut loaded = read.loaded;
    loaded.config.policy.semantics = options.semantics;
    let path = &options.trace;
    let load = crate::load_options(options, &loaded.config);
    let OpenedSwf {
        reader,
        first,
        machine,
    } = match open_swf(path, &load) {
        Ok(opened) => opened,
        // The config's own errors come first: the trace is told once they are mended.
        Err(e) => {
            return Err(match read.errors {
                Some(errors) => errors.with_warnings(loaded.warnings).into(),
                None => e,
            })
        }
    };
    let input_header = reader.header.clone();
    let source = crate::run::MachineSource {
        base: None,
        size: machine,
        calendar: nodes::calendar_of(&reader.header),
    };
    let mut names = Names::default();
    let resolver = Resolver::new(&loaded.config.credentials, &mut names);
    let bound = crate::run::bind_to_nodes(&mut loaded, resolver.tables.clone(), &mut names, source);
    if let Some(errors) = read.errors {
        return Err(crate::run::told_together(
            errors,
            loaded.warnings,
            bound.err(),
        ));
    }
    let (policy, nodes) = bound.map_err(|e| e.with_warnings(loaded.warnings.clone()))?;
    loaded
        .warnings
        .extend(crate::params::node_count_unasked(&loaded.config, false));
    let class_features =
        crate::run::class_feature_masks(&loaded.config, &nodes, &mut loaded.warnings);
    let LoadedConfig { config, warnings } = loaded;
    // Pooled only if no SWF job could need its nodes tracked (memory, partitions).
    let any_swf_job = Request {
        mem: 1,
        ..Request::default()
    };
    // Maui's semantics place jobs and reservations on named nodes.
    let pooled = !options.semantics.is_maui()
        && class_features.is_empty()
        && nodes
            .spec
            .pools_processors(std::iter::once((&any_swf_job, 1)));
    let engine_options = EngineOptions {
        order: options.event_order,
        poll_interval: config.poll_interval,
        max_overrun: config.max_overrun,
        submission: config.submission(),
        pooled,
        scale_by_speed: options.scale_by_speed,
        predictor: options.predictor,
        ..EngineOptions::default()
    };
    let names = Rc::new(RefCell::new(names));
    let machine_procs = nodes.procs();
    let mut feed = Jobs {
        reader,
        first,
        builder: Builder::new(&load, machine),
        names: names.clone(),
        resolver: &resolver,
        account_from: options.account_from,
        config: &config,
        class_features: &class_features,
        transform: &options.transform,
        path: path.clone(),
        records: 0,
        previous: None,
        kept: 0,
        adjusted: Counts::new(),
        trace_load: OfferedLoad::default(),
        run_load: OfferedLoad::default(),
    };
    let mut sink = Writer {
        names: names.clone(),
        nodes: &nodes,
        jobs_csv: JobsCsv::create(&staging.join("jobs.csv"))?,
        schedule: ScheduleSwf::create(&staging.join("schedule.swf"), path, &input_header, machine)?,
        metrics: Accumulator::default(),
        warmup: options.transform.warmup,
        first_submit: None,
        min_submit: None,
        last_end: None,
        warmup_jobs: 0,
        held: Vec::new(),
    };
    let clock = std::time::Instant::now();
    let stats = engine::simulate_feed(
        Feed::Stream(Box::new(&mut feed)),
        nodes.spec.clone(),
        policy,
        engine_options,
        &mut sink,
    )
    .map_err(|e| nodes.name_in(e))?;
    let sim_seconds = clock.elapsed().as_secs_f64();
    let Writer {
        jobs_csv,
        schedule,
        metrics,
        min_submit,
        last_end,
        warmup_jobs,
        held,
        ..
    } = sink;
    jobs_csv.finish()?;
    schedule.finish()?;
    if feed.records == 0 {
        return Err(SimError::Input {
            path: path.clone(),
            message: "no job records (an empty trace)".into(),
        });
    }
    if feed.kept == 0 {
        let skipped = &feed.builder.skipped;
        let message = if feed.trace_load.is_empty() {
            let all = feed.records;
            format!(
                "all {all} records were skipped: {}",
                workload::describe(skipped)
            )
        } else {
            let why = workload::describe(&feed.adjusted);
            format!("the workload transforms left no job ({why})")
        };
        return Err(SimError::Input {
            path: path.clone(),
            message,
        });
    }
    let names = names.borrow();
    let limit_of: BTreeMap<usize, Blocked> = stats.held.iter().copied().collect();
    let held: Vec<(Job, Blocked)> = held
        .into_iter()
        .filter_map(|(i, job)| limit_of.get(&i).map(|&b| (job, b)))
        .collect();
    output::held_csv(&staging.join("held.csv"), &held, &names)?;
    let first = min_submit.unwrap_or(0);
    let span = (first, last_end.unwrap_or(first));
    output::nodes_csv(&staging.join("nodes.csv"), &nodes, &stats.node_busy, span)?;
    let metrics = metrics.finish(machine_procs);
    let mut skipped = feed.builder.skipped.clone();
    skipped.retain(|_, n| *n > 0);
    let mut adjusted = feed.builder.adjusted.clone();
    adjusted.extend(feed.adjusted.iter().map(|(k, v)| (*k, *v)));
    let summary = Summary {
        trace: path.display().to_string(),
        streamed: true,
        records: feed.records,
        jobs: metrics.jobs,
        skipped_total: skipped.values().sum(),
        skipped,
        adjusted,
        held: held.len() as u64,
        held_by: summary::held_by(&held),
        limit_blocks: summary::limit_blocks(&stats),
        machine_procs,
        machine_nodes: nodes.len(),
        nodes_from: nodes.source.clone(),
        pooled_processors: pooled,
        load: transform::LoadReport {
            offered_load_trace: feed.trace_load.value(machine_procs),
            offered_load: feed.run_load.value(machine_procs),
        },
        warmup_jobs,
        event_order: options.event_order,
        estimate: options.estimate,
        seed: options.seed,
        predictor: options.predictor,
        filter: options.filter,
        config: config.clone(),
        jobs_per_second: summary::per_second(metrics.jobs, sim_seconds),
        period: summary::period(&input_header, &metrics),
        metrics,
        iterations: stats.iterations,
        max_queue_length: stats.max_queue,
        fairness: None,
        max_jobs_in_memory: Some(stats.max_window),
        sim_seconds,
    };
    let json = serde_json::to_string_pretty(&summary).expect("summary serialises");
    let summary_path = staging.join("summary.json");
    std::fs::write(&summary_path, json + "\n").map_err(|source| SimError::Io {
        path: summary_path,
        source,
    })?;
    Ok(Streamed { summary, warnings })
}

/// The trace's jobs, one record at a time: built, checked for order, given their
/// credentials and transformed as a run in memory does it.
struct Jobs<'a, R: BufRead> {
    reader: SwfReader<R>,
    /// The first record, read with the header.
    first: Option<swf::SwfRecord>,
    builder: Builder<'a>,
    names: Rc<RefCell<Names>>,
    resolver: &'a Resolver,
    account_from: AccountFrom,
    config: &'a SimConfig,
    /// CLASSCFG DEFAULT.FEATURES as masks, by class name.
    class_features: &'a std::collections::BTreeMap<String, mauisim_core::FeatureMask>,
    transform: &'a transform::Transform,
    path: PathBuf,
    records: u64,
    /// `(submit, id, line)` of the last job built.
    previous: Option<(Time, u64, usize)>,
    /// Jobs the transforms kept so far.
    kept: usize,
    adjusted: Counts,
    trace_load: OfferedLoad,
    run_load: OfferedLoad,
}

impl<R: BufRead> Jobs<'_, R> {
    fn next_job(&mut self) -> Option<Result<Job>> {
        loop {
            let record = match self.first.take() {
                Some(r) => r,
                None => match self.reader.next()? {
                    Ok(r) => r,
                    Err(e) => return Some(Err(e)),
                },
            };
            self.records += 1;
            let shared = self.names.clone();
            let mut names = shared.borrow_mut();
            let Some(mut job) = self.builder.job_of(record, &mut names) else {
                continue;
            };
            let line = job.record.line() as usize;
            if let Some((submit, id, before)) = self.previous {
                if (job.submit, job.id) < (submit, id) {
                    return Some(Err(SimError::Input {
                        path: self.path.clone(),
                        message: format!(
                            "line {line}: job {} is submitted at {}, before job {id} on line {before}: a streamed run needs the records sorted by submit time (sort the trace, or run without --stream)",
                            job.id, job.submit
                        ),
                    }));
                }
            }
            self.previous = Some((job.submit, job.id, line));
            self.bind(&mut job, &mut names);
            self.trace_load.add(&job);
            if !self.keeps(&job, &names) {
                continue;
            }
            job.submit += self.transform.shift;
            self.run_load.add(&job);
            return Some(Ok(job));
        }
    }

    /// Credentials, class OVERRUN and DEFAULT.FEATURES, as [`crate::bind`] gives them.
    fn bind(&mut self, job: &mut Job, names: &mut Names) {
        if let Some(kind) = self.account_from.source() {
            let id: CredId = job.creds.get(kind);
            if id.get().is_some() {
                let name = names.name(kind, id).to_string();
                job.requested_account = names.intern(CredKind::Account, &name);
            }
        }
        accounts::assign_requested(job, self.resolver, &mut self.adjusted);
        if !self.config.class_overrun.is_empty() {
            crate::run::set_class_overrun(job, self.config, names);
        }
        if !self.class_features.is_empty() {
            crate::run::add_class_features(job, self.class_features, names);
        }
    }

    /// The window, queue, user and first-N transforms.
    fn keeps(&mut self, job: &Job, names: &Names) -> bool {
        let t = self.transform;
        if let Some(reason) = t.filtered_out(job, names) {
            self.count(reason);
            return false;
        }
        if t.first.is_some_and(|n| self.kept >= n) {
            self.count("beyond_first_n");
            return false;
        }
        self.kept += 1;
        true
    }

    fn count(&mut self, what: &'static str) {
        *self.adjusted.entry(what).or_default() += 1;
    }
}

impl<R: BufRead> Iterator for Jobs<'_, R> {
    type Item = Result<Job>;

    fn next(&mut self) -> Option<Result<Job>> {
        self.next_job()
    }
}

/// Writes each finished job and adds it to the metrics.
struct Writer<'a> {
    names: Rc<RefCell<Names>>,
    nodes: &'a nodes::Nodes,
    jobs_csv: JobsCsv,
    schedule: ScheduleSwf,
    metrics: Accumulator,
    warmup: Time,
    /// The first job's submission (warm-up counts from it), and the first submission
    /// and last end of the jobs that ran (for `nodes.csv`).
    first_submit: Option<Time>,
    min_submit: Option<Time>,
    last_end: Option<Time>,
    warmup_jobs: u64,
    /// Held jobs by index (their limits come with the run's statistics).
    held: Vec<(usize, Job)>,
}

impl Sink for Writer<'_> {
    fn finished(&mut self, done: Finished<'_>) -> Result<()> {
        if !done.started {
            self.held.push((done.index, done.job.clone()));
            return Ok(());
        }
        // Waits count from when a submission policy let the job in.
        let job = if done.submitted == done.job.submit {
            Cow::Borrowed(done.job)
        } else {
            let mut moved = done.job.clone();
            moved.submit = done.submitted;
            Cow::Owned(moved)
        };
        let o = &done.outcome;
        let names = self.names.borrow();
        self.jobs_csv
            .row(&job, o, &names, &self.nodes.host_list(&done.nodes))?;
        self.schedule.row(&job, o)?;
        let first = *self.first_submit.get_or_insert(job.submit);
        self.min_submit = Some(self.min_submit.map_or(job.submit, |t| t.min(job.submit)));
        self.last_end = Some(self.last_end.map_or(o.end, |t| t.max(o.end)));
        if job.submit >= first + self.warmup {
            self.metrics.add(&job, o);
        } else {
            self.warmup_jobs += 1;
        }
        Ok(())
    }
}
