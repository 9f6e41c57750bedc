//! From trace records to simulated jobs: filters, skip reasons, machine size, estimates.

use crate::error::{Result, SimError};
use crate::params::credentials::Names;
use crate::trace::swf::{self, KeptRecord, SwfHeader, SwfRecord};
use mauisim_core::{CredId, CredKind, JobCreds, Request, Time};
use rand::RngExt;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// Which records are kept, and how they are adjusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Filter {
    /// Keep every record that can be simulated; count the rest by reason.
    None,
    /// The "strong filter" behind the published EASY results (traces/PUBLISHED.md),
    /// including capping runtime at the requested time.
    Published,
}

/// Where the wallclock limit the scheduler plans with comes from (issue 8's estimate
/// models; every random draw comes from the run's seeded ChaCha stream, in record order).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Estimate {
    /// The trace's requested time (SWF field 9).
    Trace,
    /// The actual runtime: a clairvoyant scheduler.
    Exact,
    /// Mu'alem–Feitelson: WCL = runtime × U(1, F), F ≥ 1.
    FModel(f64),
    /// Per-job accuracy (runtime / WCL) drawn uniformly so that its mean is A (0 < A ≤ 1):
    /// U(2A − 1, 1) when A ≥ 0.5, else U(A/10, 2A − A/10); WCL = runtime / accuracy.
    Accuracy(f64),
}

impl Estimate {
    /// `trace`, `exact`, `f-model:F` or `accuracy:A`.
    pub fn name(&self) -> String {
        match self {
            Estimate::Trace => "trace".into(),
            Estimate::Exact => "exact".into(),
            Estimate::FModel(f) => format!("f-model:{f}"),
            Estimate::Accuracy(a) => format!("accuracy:{a}"),
        }
    }

    /// Replaces each job's limit by this model's, drawing in job order from a stream
    /// seeded by `seed` (hand-written scenarios; traces draw as they are read).
    pub(crate) fn redraw_limits(&self, jobs: &mut [Job], seed: u64) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for job in jobs {
            job.wcl = self.wcl(job.runtime, job.wcl, &mut rng).max(1);
        }
    }

    /// The WCL of a job that runs `runtime` (≥ 1) and requested `requested`.
    fn wcl(&self, runtime: Time, requested: Time, rng: &mut ChaCha8Rng) -> Time {
        let runtime_f = runtime.max(1) as f64;
        match *self {
            Estimate::Trace => requested,
            Estimate::Exact => runtime,
            Estimate::FModel(f) => {
                let factor = if f > 1.0 {
                    rng.random_range(1.0..f)
                } else {
                    1.0
                };
                (runtime_f * factor).ceil() as Time
            }
            Estimate::Accuracy(a) => {
                let (lo, hi) = if a >= 0.5 {
                    (2.0 * a - 1.0, 1.0)
                } else {
                    (a / 10.0, 2.0 * a - a / 10.0)
                };
                let accuracy = if hi > lo {
                    rng.random_range(lo..hi)
                } else {
                    hi
                };
                (runtime_f / accuracy.max(1e-6)).ceil() as Time
            }
        }
    }
}

/// Maui's SIMWCSCALINGPERCENT, then SIMWCACCURACY, then SIMWCACCURACYCHANGE
/// (MAUI-SEMANTICS §6), on a job's (runtime, WCL). Seeded, unlike Maui's.
fn reshape(
    p: &crate::params::SimWc,
    runtime: Time,
    wcl: Time,
    rng: &mut ChaCha8Rng,
) -> (Time, Time) {
    let (mut run, mut wcl) = (runtime as f64, wcl as f64);
    if p.scaling != 100.0 {
        run *= p.scaling / 100.0;
        wcl *= p.scaling / 100.0;
    }
    if p.accuracy > 0.0 {
        run = (wcl * p.accuracy * rng.random_range(0.95..1.05)).min(wcl);
    }
    if p.change != 0.0 {
        wcl -= p.change * (wcl - run) / 100.0;
    }
    let run = (run.round() as Time).max(1);
    (run, (wcl.ceil() as Time).max(1))
}

impl std::str::FromStr for Estimate {
    type Err = String;

    fn from_str(text: &str) -> std::result::Result<Self, String> {
        let number = |v: &str| -> std::result::Result<f64, String> {
            v.trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| format!("`{v}` is not a number"))
        };
        match text.split_once(':') {
            None if text == "trace" => Ok(Estimate::Trace),
            None if text == "exact" => Ok(Estimate::Exact),
            Some(("f-model", f)) => {
                let f = number(f)?;
                if f < 1.0 {
                    return Err(format!(
                        "f-model:F needs F >= 1 (WCL = runtime x U(1, F)), found {f}"
                    ));
                }
                Ok(Estimate::FModel(f))
            }
            Some(("accuracy", a)) => {
                let a = number(a)?;
                if !(a > 0.0 && a <= 1.0) {
                    return Err(format!(
                        "accuracy:A needs 0 < A <= 1 (mean runtime / WCL), found {a}"
                    ));
                }
                Ok(Estimate::Accuracy(a))
            }
            _ => Err(format!(
                "unknown estimate model `{text}`: expected trace, exact, f-model:F or accuracy:A"
            )),
        }
    }
}

impl Serialize for Estimate {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.name())
    }
}

/// The simulated machine: identical nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Machine {
    pub nodes: u64,
    pub procs_per_node: u64,
}

impl Machine {
    pub(crate) fn procs(&self) -> u64 {
        self.nodes * self.procs_per_node
    }
}

/// Machine size given on the command line, overriding the trace header.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MachineOverride {
    pub procs: Option<u64>,
    pub nodes: Option<u64>,
    pub procs_per_node: Option<u64>,
}

#[derive(Debug, Clone)]
pub struct LoadOptions {
    pub filter: Filter,
    pub estimate: Estimate,
    /// Seeds every random draw of the run (estimate models).
    pub seed: u64,
    /// SIMWCACCURACY, SIMWCACCURACYCHANGE, SIMWCSCALINGPERCENT.
    pub sim_wc: crate::params::SimWc,
    pub machine: MachineOverride,
    /// Wallclock limit for jobs without a requested time (CLASSCFG[DEFAULT] DEFAULT.WCLIMIT).
    pub default_wclimit: Option<Time>,
    /// And per class, by the class's name (CLASSCFG[c] DEFAULT.WCLIMIT), before the default.
    pub class_wclimit: std::collections::BTreeMap<String, Time>,
}

/// What a scenario job asks of nodes by name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeAsk {
    pub features: Vec<String>,
    pub pref: Vec<String>,
    /// The nodes a job running at the start holds (filled in order).
    pub nodes: Vec<String>,
    /// `nodes` as indexes, once resolved.
    pub node_ids: Vec<u32>,
}

/// A job as the simulation runs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub id: u64,
    pub submit: Time,
    /// What the job would run if never stopped (after the filter's cap, if any).
    pub runtime: Time,
    /// The wallclock limit: planned with, and enforced.
    pub wcl: Time,
    pub procs: u64,
    /// Nodes the processors span on the simulated machine (32 bits: a job's record is
    /// kept small, as a trace holds millions).
    pub nodes: u32,
    /// User, group, class and partition from the trace; account and QOS once assigned
    /// from the config ([`crate::params::credentials::Resolver::assign`]).
    pub creds: JobCreds,
    /// The account the trace (or the account mapping) asks for, if any.
    pub requested_account: CredId,
    /// Requested memory over all tasks, MB (SWF field 10 is KB per processor).
    pub mem_mb: f64,
    /// What each task needs of its node (memory per task from SWF field 10).
    pub request: Request,
    /// Share of its processors the job kept busy: SWF field 6 (average CPU time per
    /// processor) over field 4 (runtime); 1 when the trace does not say.
    pub utilized: f64,
    /// The class's OVERRUN, replacing JOBMAXOVERRUN: [`Job::overrun_allowance`]. Seconds
    /// in 32 bits (2^32 s is 136 years), [`NO_CLASS_OVERRUN`] and [`UNBOUNDED_OVERRUN`]
    /// for none and without bound.
    overrun: u32,
    /// What few jobs have (scenario files, Maui traces), out of line: a trace holds
    /// millions of jobs.
    extras: Option<Box<JobExtras>>,
    /// The record as read, for writing the simulated schedule back as SWF (and its line).
    pub record: KeptRecord,
}

/// What few jobs of a trace have, kept out of line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JobExtras {
    /// Nodes the job asks for by count: a Maui trace's field 2.
    pub nodes_asked: u32,
    /// The QOS the job asks for, if any (scenario files, Maui traces).
    pub requested_qos: CredId,
    /// Node features and nodes asked for by name (scenario files, Maui traces), resolved
    /// against the machine when the run is prepared.
    pub node_ask: Option<NodeAsk>,
    /// Admin system priority (`setspri`), 0 for none.
    pub system_priority: u32,
    /// Running already when the simulation begins (scenario files): started at its
    /// submit time by no decision of the policy.
    pub already_running: bool,
}

static NO_EXTRAS: JobExtras = JobExtras {
    nodes_asked: 0,
    requested_qos: CredId::NONE,
    node_ask: None,
    system_priority: 0,
    already_running: false,
};

/// [`Job`]'s `overrun` when its class sets none (JOBMAXOVERRUN holds).
const NO_CLASS_OVERRUN: u32 = u32::MAX;
/// [`Job`]'s `overrun` when its class's is without bound.
const UNBOUNDED_OVERRUN: u32 = u32::MAX - 1;

impl Job {
    /// How long the job may run past its limit: its class's OVERRUN, else `default`
    /// (JOBMAXOVERRUN); `None` without bound.
    pub fn overrun_allowance(&self, default: Option<Time>) -> Option<Time> {
        match self.overrun {
            NO_CLASS_OVERRUN => default,
            UNBOUNDED_OVERRUN => None,
            seconds => Some(Time::from(seconds)),
        }
    }

    /// Sets its class's OVERRUN: `None` for none, `Some(None)` without bound, seconds
    /// beyond 32 bits held at 136 years.
    pub fn set_class_overrun(&mut self, overrun: Option<Option<Time>>) {
        self.overrun = match overrun {
            None => NO_CLASS_OVERRUN,
            Some(None) => UNBOUNDED_OVERRUN,
            Some(Some(s)) => u32::try_from(s.max(0))
                .map_or(UNBOUNDED_OVERRUN - 1, |s| s.min(UNBOUNDED_OVERRUN - 1)),
        };
    }

    /// What few jobs have ([`JobExtras`]), the defaults for the rest.
    pub fn extras(&self) -> &JobExtras {
        self.extras.as_deref().unwrap_or(&NO_EXTRAS)
    }

    /// [`Self::extras`] to change, made for the job if it had none.
    pub fn extras_mut(&mut self) -> &mut JobExtras {
        self.extras.get_or_insert_with(Box::default)
    }

    pub fn nodes_asked(&self) -> u32 {
        self.extras().nodes_asked
    }

    pub fn requested_qos(&self) -> CredId {
        self.extras().requested_qos
    }

    pub fn node_ask(&self) -> Option<&NodeAsk> {
        self.extras().node_ask.as_ref()
    }

    pub fn node_ask_mut(&mut self) -> Option<&mut NodeAsk> {
        self.extras.as_deref_mut()?.node_ask.as_mut()
    }

    pub fn system_priority(&self) -> u32 {
        self.extras().system_priority
    }

    pub fn already_running(&self) -> bool {
        self.extras().already_running
    }

    /// A job built by hand (tests, scenarios): no trace record behind it.
    pub fn synthetic(id: u64, submit: Time, runtime: Time, wcl: Time, procs: u64) -> Job {
        let mut fields = [-1.0; swf::FIELD_COUNT];
        fields[0] = id as f64;
        fields[1] = submit as f64;
        fields[3] = runtime as f64;
        fields[4] = procs as f64;
        fields[7] = procs as f64;
        fields[8] = wcl as f64;
        Job {
            id,
            submit,
            runtime,
            wcl: wcl.max(1),
            procs,
            nodes: u32::try_from(procs).unwrap_or(u32::MAX),
            creds: JobCreds::default(),
            requested_account: CredId::NONE,
            mem_mb: 0.0,
            request: Request::default(),
            utilized: 1.0,
            overrun: NO_CLASS_OVERRUN,
            extras: None,
            record: SwfRecord::new(fields, 0).into(),
        }
    }
}

/// Average CPU time over runtime, within [0, 1]; 1 when either is not recorded.
fn utilization(avg_cpu: f64, runtime: f64) -> f64 {
    if avg_cpu >= 0.0 && runtime > 0.0 && avg_cpu.is_finite() && runtime.is_finite() {
        (avg_cpu / runtime).min(1.0)
    } else {
        1.0
    }
}

/// Records that were skipped, by reason, and adjustments that were made, by kind.
pub type Counts = BTreeMap<&'static str, u64>;

#[derive(Debug, Clone)]
pub struct Workload {
    pub path: PathBuf,
    pub header: SwfHeader,
    pub machine: Machine,
    /// Sorted by `(submit, id)`.
    pub jobs: Vec<Job>,
    /// Credential names of the jobs (and, once the config is applied, of the config).
    pub names: Names,
    pub records: u64,
    pub skipped: Counts,
    pub adjusted: Counts,
    /// What a reader should know about the adjustments: the first record out of order,
    /// the first duplicate job id, with their lines.
    pub notes: Vec<String>,
}

/// Reads and filters a trace: SWF, or Maui's workload trace format (44 fields per line,
/// recognised by its first job line). Streams the records: only the kept jobs are held.
pub fn load(path: &Path, options: &LoadOptions) -> Result<Workload> {
    if crate::trace::maui::is_maui_trace(path)? {
        let (jobs, not_run) = crate::trace::maui::read(path)?;
        return build_maui(path, &jobs, not_run, options);
    }
    let mut reader = swf::open(path)?;
    let first = reader.read_header()?;
    let machine = machine_size(&reader.header, &options.machine, path)?;
    let mut builder = Builder::new(options, machine);
    let mut records = 0;
    if let Some(record) = first {
        records += 1;
        builder.add(record);
    }
    let text_size = swf::text_size_hint(path);
    while let Some(record) = reader.next() {
        records += 1;
        builder.add(record?);
        if records == SIZING_SAMPLE {
            if let Some(size) = text_size {
                builder.expect_more(records, reader.bytes_read(), size);
            }
        }
    }
    builder.finish(path, reader.header, machine, records)
}

/// After this many records the jobs' room is sized for the whole file, from the bytes per
/// record so far: a vector grown by doubling moves every job about twice more and touches
/// twice the memory (a fifth of reading CEA-Curie, measured).
const SIZING_SAMPLE: u64 = 1024;

/// A trace's records, read once and kept, so that many runs (a sweep) can each build
/// their workload with their own options without reading the file again.
#[derive(Debug, Clone)]
pub struct Trace {
    pub path: PathBuf,
    records: TraceRecords,
}

#[derive(Debug, Clone)]
enum TraceRecords {
    Swf {
        header: SwfHeader,
        records: Vec<SwfRecord>,
    },
    Maui {
        jobs: Vec<crate::trace::maui::MauiJob>,
        not_run: u64,
    },
}

impl Trace {
    /// Reads every record of an SWF or Maui trace.
    pub fn read(path: &Path) -> Result<Trace> {
        let records = if crate::trace::maui::is_maui_trace(path)? {
            let (jobs, not_run) = crate::trace::maui::read(path)?;
            TraceRecords::Maui { jobs, not_run }
        } else {
            let mut reader = swf::open(path)?;
            let mut records: Vec<SwfRecord> = reader.read_header()?.into_iter().collect();
            for record in reader.by_ref() {
                records.push(record?);
            }
            TraceRecords::Swf {
                header: reader.header,
                records,
            }
        };
        Ok(Trace {
            path: path.to_path_buf(),
            records,
        })
    }

    /// The workload `options` make of these records: the same as [`load`] on the file.
    pub(crate) fn workload(&self, options: &LoadOptions) -> Result<Workload> {
        let path = &self.path;
        match &self.records {
            TraceRecords::Swf { header, records } => {
                let machine = machine_size(header, &options.machine, path)?;
                let mut builder = Builder::new(options, machine);
                for record in records {
                    builder.add(record.clone());
                }
                builder.finish(path, header.clone(), machine, records.len() as u64)
            }
            TraceRecords::Maui { jobs, not_run } => build_maui(path, jobs, *not_run, options),
        }
    }
}

/// The machine a trace asks for (its SWF header's, or the command line's) and its
/// calendar's origin, from the header alone.
pub(crate) fn trace_machine(path: &Path, machine: &MachineOverride) -> Result<(Machine, Time)> {
    let header = if crate::trace::maui::is_maui_trace(path)? {
        SwfHeader::default()
    } else {
        let mut reader = swf::open(path)?;
        reader.read_header()?;
        reader.header
    };
    let size = machine_size(&header, machine, path)?;
    Ok((size, crate::nodes::calendar_of(&header)))
}

/// A Maui workload trace: the fields SWF shares go through the same rules; names,
/// QOS, account, processors per task, memory, disk, swap and features come from the line.
fn build_maui(
    path: &Path,
    jobs: &[crate::trace::maui::MauiJob],
    not_run: u64,
    options: &LoadOptions,
) -> Result<Workload> {
    let machine = machine_size(&SwfHeader::default(), &options.machine, path)?;
    let mut builder = Builder::new(options, machine);
    let records = jobs.len() as u64 + not_run;
    if not_run > 0 {
        builder.skipped.insert("not_run", not_run);
    }
    for m in jobs {
        let before = builder.jobs.len();
        builder.add(m.record.clone());
        if builder.jobs.len() == before {
            continue;
        }
        let names = &mut builder.names;
        let job = builder.jobs.last_mut().expect("just pushed");
        job.creds
            .set(CredKind::User, names.intern(CredKind::User, &m.user));
        job.creds
            .set(CredKind::Group, names.intern(CredKind::Group, &m.group));
        if let Some(c) = &m.class {
            job.creds
                .set(CredKind::Class, names.intern(CredKind::Class, c));
        }
        if let Some(q) = &m.qos {
            job.extras_mut().requested_qos = names.intern(CredKind::Qos, q);
        }
        if let Some(a) = &m.account {
            job.requested_account = names.intern(CredKind::Account, a);
        }
        if m.nodes > 0 {
            job.extras_mut().nodes_asked = m.nodes;
        }
        let tasks = job.procs / u64::from(m.procs_per_task);
        job.request = Request {
            procs_per_task: m.procs_per_task,
            mem: m.mem,
            swap: m.swap,
            disk: m.disk,
            ..Request::default()
        };
        job.mem_mb = f64::from(m.mem) * tasks as f64;
        if !m.features.is_empty() {
            job.extras_mut().node_ask = Some(NodeAsk {
                features: m.features.clone(),
                ..NodeAsk::default()
            });
        }
    }
    let mut workload = builder.finish(path, SwfHeader::default(), machine, records)?;
    workload.notes.extend(unsimulated_asks(path, jobs));
    Ok(workload)
}

/// One note per field of asks a Maui trace's jobs make that mauisim does not simulate: how
/// many jobs make it, and the first.
fn unsimulated_asks(path: &Path, jobs: &[crate::trace::maui::MauiJob]) -> Vec<String> {
    crate::trace::maui::UNSIMULATED_FIELDS
        .iter()
        .filter_map(|&(field, what)| {
            let mut asking = jobs.iter().filter_map(|j| {
                let value = j.unsimulated.iter().find(|(n, _)| *n == field)?;
                Some((j, &value.1))
            });
            let (first, value) = asking.next()?;
            let count = 1 + asking.count();
            let jobs = if count == 1 { "job asks" } else { "jobs ask" };
            Some(format!(
                "{}:{}: {count} {jobs} for {what} (field {field}; job {} for `{value}` first): not simulated, run as if none were asked",
                path.display(),
                first.record.line,
                first.record.int(1),
            ))
        })
        .collect()
}

impl<'a> Builder<'a> {
    pub(crate) fn new(options: &'a LoadOptions, machine: Machine) -> Self {
        Builder {
            options,
            max_procs: machine.procs(),
            procs_per_node: machine.procs_per_node,
            jobs: Vec::new(),
            names: Names::default(),
            skipped: Counts::new(),
            adjusted: Counts::new(),
            rng: ChaCha8Rng::seed_from_u64(options.seed),
        }
    }

    /// Sorts, counts duplicates and out-of-order records, and hands the workload over.
    fn finish(
        self,
        path: &Path,
        header: SwfHeader,
        machine: Machine,
        records: u64,
    ) -> Result<Workload> {
        if records == 0 {
            return Err(SimError::Input {
                path: path.to_path_buf(),
                message: "no job records (an empty trace)".into(),
            });
        }
        let Builder {
            mut jobs,
            names,
            skipped,
            mut adjusted,
            ..
        } = self;
        if jobs.is_empty() {
            return Err(SimError::Input {
                path: path.to_path_buf(),
                message: format!("all {records} records were skipped: {}", describe(&skipped)),
            });
        }
        let mut notes = Vec::new();
        let early = |w: &[Job]| (w[0].submit, w[0].id) > (w[1].submit, w[1].id);
        let mut out_of_order = 0;
        let mut first_early = None;
        for (k, w) in jobs.windows(2).enumerate() {
            if early(w) {
                out_of_order += 1;
                first_early.get_or_insert(k);
            }
        }
        if let Some(w) = first_early.map(|k| &jobs[k..k + 2]) {
            notes.push(format!(
                "{}:{}: job {} is submitted at {}, before job {} on line {} ({} records out of order): sorted by submit time",
                path.display(),
                w[1].record.line(),
                w[1].id,
                w[1].submit,
                w[0].id,
                w[0].record.line(),
                out_of_order
            ));
            // Sorted by (submit, id): equal submit times keep job-id order, as SWF numbers them.
            jobs = sorted_by_submit(jobs);
            adjusted.insert("records_out_of_order_sorted", out_of_order as u64);
        }
        let (duplicates, first) = duplicate_ids(&jobs);
        if let Some((k, id)) = first {
            let earlier = jobs[..k].iter().find(|j| j.id == id);
            let mut lines = [
                earlier.map_or(0, |j| j.record.line()),
                jobs[k].record.line(),
            ];
            lines.sort_unstable();
            notes.push(format!(
                "{}:{}: job id {} again (first on line {}): both are simulated, as separate jobs",
                path.display(),
                lines[1],
                id,
                lines[0]
            ));
        }
        if duplicates > 0 {
            adjusted.insert("duplicate_job_ids", duplicates as u64);
        }
        Ok(Workload {
            path: path.to_path_buf(),
            header,
            machine,
            jobs,
            names,
            records,
            skipped,
            adjusted,
            notes,
        })
    }
}

/// How many jobs repeat an earlier job's id, and the first that does (its position and
/// id). Trace ids are nearly always 1..n: then one bit per id says which were seen (a hash
/// map of every id was a tenth of reading CEA-Curie).
fn duplicate_ids(jobs: &[Job]) -> (usize, Option<(usize, u64)>) {
    let max_id = jobs.iter().map(|j| j.id).max().unwrap_or(0);
    let dense = max_id / 8 <= jobs.len() as u64 + 64;
    let mut bits = vec![0u64; if dense { max_id as usize / 64 + 1 } else { 0 }];
    let mut seen: HashSet<u64, foldhash::fast::FixedState> = HashSet::default();
    let mut seen_before = |id: u64| {
        if dense {
            let (word, bit) = (id as usize / 64, 1u64 << (id % 64));
            let before = bits[word] & bit != 0;
            bits[word] |= bit;
            before
        } else {
            !seen.insert(id)
        }
    };
    let mut count = 0;
    let mut first = None;
    for (k, j) in jobs.iter().enumerate() {
        if seen_before(j.id) {
            first.get_or_insert((k, j.id));
            count += 1;
        }
    }
    (count, first)
}

/// Human-readable `reason: count, …`.
/// The jobs in `(submit, id)` order, file order among equals. The keys are sorted, not the
/// jobs: a job is a few hundred bytes, and a sort moves each one about log n times, which
/// was most of the time reading a large unsorted trace took. The order is then applied in
/// place, cycle by cycle, so no second copy of the jobs is made.
fn sorted_by_submit(mut jobs: Vec<Job>) -> Vec<Job> {
    let mut keys: Vec<(Time, u64, usize)> = jobs
        .iter()
        .enumerate()
        .map(|(pos, j)| (j.submit, j.id, pos))
        .collect();
    keys.sort_unstable();
    // source[k]: where the job that belongs at k is now; k once k holds it.
    let mut source: Vec<usize> = keys.into_iter().map(|(_, _, pos)| pos).collect();
    for start in 0..source.len() {
        let mut k = start;
        while source[k] != start && source[k] != k {
            let next = source[k];
            jobs.swap(k, next);
            source[k] = k;
            k = next;
        }
        source[k] = k;
    }
    jobs
}

pub fn describe(counts: &Counts) -> String {
    counts
        .iter()
        .map(|(k, v)| format!("{k}: {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The most nodes mauisim simulates (each node is state of its own), and the most
/// processors (sums of processors stay exact in every time unit).
pub const MAX_NODES: u64 = 1 << 24;
pub const MAX_PROCS: u64 = 1 << 40;

/// The machine: from the command line, else the trace header; a size beyond
/// [`MAX_NODES`] or [`MAX_PROCS`] is an error naming where it came from.
pub(crate) fn machine_size(
    header: &SwfHeader,
    cli: &MachineOverride,
    path: &Path,
) -> Result<Machine> {
    let machine = requested_machine_size(header, cli, path)?;
    let procs = machine.nodes.checked_mul(machine.procs_per_node);
    if machine.nodes <= MAX_NODES && procs.is_some_and(|p| p <= MAX_PROCS) {
        return Ok(machine);
    }
    let size = format!(
        "{} x {} is more than mauisim simulates (at most {MAX_NODES} nodes and {MAX_PROCS} \
         processors)",
        crate::units::count(machine.nodes, "node"),
        crate::units::count(machine.procs_per_node, "processor")
    );
    if cli.procs.is_some() || cli.nodes.is_some() {
        return Err(SimError::Usage(format!("machine size: {size}")));
    }
    Err(SimError::Input {
        path: path.to_path_buf(),
        message: format!(
            "header MaxProcs/MaxNodes: {size}; pass --procs N or --nodes N --procs-per-node K"
        ),
    })
}

fn requested_machine_size(
    header: &SwfHeader,
    cli: &MachineOverride,
    path: &Path,
) -> Result<Machine> {
    match (cli.procs, cli.nodes, cli.procs_per_node) {
        (Some(_), Some(_), _) => Err(SimError::Usage(
            "give either --procs or --nodes with --procs-per-node, not both".into(),
        )),
        (Some(procs), None, _) if procs > 0 => Ok(Machine {
            nodes: procs / cli.procs_per_node.unwrap_or(1).max(1),
            procs_per_node: cli.procs_per_node.unwrap_or(1).max(1),
        })
        .and_then(|m| {
            if m.procs() == procs {
                Ok(m)
            } else {
                Err(SimError::Usage(format!(
                    "--procs {procs} is not a multiple of --procs-per-node {}",
                    m.procs_per_node
                )))
            }
        }),
        (None, Some(nodes), ppn) if nodes > 0 && ppn.unwrap_or(1) > 0 => Ok(Machine {
            nodes,
            procs_per_node: ppn.unwrap_or(1),
        }),
        (None, None, _) => {
            let procs = header
                .positive("MaxProcs")
                .or_else(|| header.positive("MaxNodes"))
                .ok_or_else(|| SimError::Input {
                    path: path.to_path_buf(),
                    message:
                        "the header gives no machine size (MaxProcs or MaxNodes): pass --procs N"
                            .into(),
                })?;
            // MaxNodes nodes when they split MaxProcs evenly, else single-processor nodes.
            let nodes = header
                .positive("MaxNodes")
                .filter(|&n| n <= procs && procs.is_multiple_of(n))
                .unwrap_or(procs);
            Ok(Machine {
                nodes,
                procs_per_node: procs / nodes,
            })
        }
        _ => Err(SimError::Usage(
            "machine sizes must be positive integers".into(),
        )),
    }
}

pub(crate) struct Builder<'a> {
    options: &'a LoadOptions,
    rng: ChaCha8Rng,
    max_procs: u64,
    procs_per_node: u64,
    jobs: Vec<Job>,
    names: Names,
    pub(crate) skipped: Counts,
    pub(crate) adjusted: Counts,
}

impl Builder<'_> {
    /// The job `record` makes (`None` if skipped), its credentials interned in `names`:
    /// one record at a time, for streamed runs.
    pub(crate) fn job_of(&mut self, record: SwfRecord, names: &mut Names) -> Option<Job> {
        std::mem::swap(&mut self.names, names);
        self.add(record);
        std::mem::swap(&mut self.names, names);
        self.jobs.pop()
    }

    /// Makes room for the records left in a file of `size` bytes, `records` of them in
    /// the first `read` bytes (a little more than the same rate predicts). A size hint
    /// that is wrong costs only growth, or room never touched.
    fn expect_more(&mut self, records: u64, read: u64, size: u64) {
        if records == 0 || read == 0 || size <= read {
            return;
        }
        let left = (size - read) as f64 * records as f64 / read as f64;
        let kept = self.jobs.len() as f64 / records as f64;
        let room = (left * kept * 1.02) as usize + 16;
        // Beyond what the system gives, the vector simply grows as before.
        let _ = self.jobs.try_reserve_exact(room);
    }

    fn skip(&mut self, reason: &'static str) {
        *self.skipped.entry(reason).or_default() += 1;
    }

    fn note(&mut self, kind: &'static str) {
        *self.adjusted.entry(kind).or_default() += 1;
    }

    fn add(&mut self, record: SwfRecord) {
        match self.options.filter {
            Filter::None => self.add_plain(record),
            Filter::Published => self.add_published(record),
        }
    }

    /// Default rules: fall back between requested and allocated processors, skip what
    /// cannot be simulated, derive missing requested times (DECISIONS.md).
    fn add_plain(&mut self, record: SwfRecord) {
        let (allocated, requested) = (record.int(5), record.int(8));
        let procs = if requested > 0 { requested } else { allocated };
        if procs <= 0 {
            return self.skip("no_processor_count");
        }
        if procs as u64 > self.max_procs {
            return self.skip("larger_than_machine");
        }
        if record.int(2) < 0 {
            return self.skip("negative_submit_time");
        }
        let runtime = record.int(4);
        if runtime < 0 {
            return self.skip("unknown_runtime");
        }
        if runtime == 0 {
            return self.skip("zero_runtime");
        }
        let requested_time = record.int(9);
        let wcl = if requested_time > 0 {
            requested_time
        } else if let Some(limit) = self.class_default(record.int(15)) {
            self.note("requested_time_from_class_default");
            limit
        } else {
            self.note("requested_time_from_runtime");
            runtime
        };
        self.push(record, procs as u64, runtime, wcl);
    }

    /// predictsim's `strong_filter_all_swf`, step by step (traces/PUBLISHED.md).
    fn add_published(&mut self, record: SwfRecord) {
        let (mut allocated, mut requested) = (record.int(5), record.int(8));
        let max = self.max_procs as i64;
        if allocated > max || requested > max {
            return self.skip("larger_than_machine");
        }
        if allocated > 0 && requested <= 0 {
            requested = allocated;
        } else if requested > 0 && allocated <= 0 {
            allocated = requested;
        }
        if allocated <= 0 && requested <= 0 {
            return self.skip("no_processor_count");
        }
        let mut runtime = record.int(4);
        if runtime <= 0 {
            return self.skip("nonpositive_runtime");
        }
        let requested_time = record.int(9);
        if requested_time <= 0 {
            return self.skip("nonpositive_requested_time");
        }
        if requested_time < runtime {
            runtime = requested_time;
            self.note("runtime_capped_at_requested_time");
        }
        if record.int(2) < 0 {
            return self.skip("negative_submit_time");
        }
        self.push(record, requested as u64, runtime, requested_time);
    }

    /// The limit of a job of SWF queue `class` that requests none: its class's
    /// DEFAULT.WCLIMIT, else CLASSCFG[DEFAULT]'s.
    fn class_default(&self, class: i64) -> Option<Time> {
        let own = (class >= 0 && !self.options.class_wclimit.is_empty())
            .then(|| self.options.class_wclimit.get(&class.to_string()))
            .flatten();
        own.copied().or(self.options.default_wclimit)
    }

    fn push(&mut self, record: SwfRecord, procs: u64, runtime: Time, requested: Time) {
        let wcl = self.options.estimate.wcl(runtime, requested, &mut self.rng);
        let (runtime, wcl) = reshape(&self.options.sim_wc, runtime, wcl.max(1), &mut self.rng);
        let mut creds = JobCreds::default();
        for (kind, field) in [
            (CredKind::User, 12),
            (CredKind::Group, 13),
            (CredKind::Class, 15),
        ] {
            creds.set(kind, self.names.intern_number(kind, record.int(field)));
        }
        creds.partition = self.names.intern_partition(record.int(16));
        // Field 10 is requested memory in KB per processor; −1 when not recorded.
        let mem_per_proc_kb = record.field(10).max(0.0);
        self.jobs.push(Job {
            id: record.int(1).max(0) as u64,
            submit: record.int(2),
            runtime,
            wcl: wcl.max(1),
            procs,
            nodes: u32::try_from(procs.div_ceil(self.procs_per_node)).unwrap_or(u32::MAX),
            creds,
            requested_account: CredId::NONE,
            mem_mb: mem_per_proc_kb * procs as f64 / 1024.0,
            request: Request {
                mem: (mem_per_proc_kb / 1024.0).ceil().min(f64::from(u32::MAX)) as u32,
                ..Request::default()
            },
            utilized: utilization(record.field(6), record.field(4)),
            overrun: NO_CLASS_OVERRUN,
            extras: None,
            record: record.into(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A trace holds millions of jobs, and reading one is mostly moving them: a job stays
    /// within 176 bytes (CEA-Curie's 295,540 take 52 MB).
    #[test]
    fn a_jobs_class_overrun_and_extras_come_back_as_set() {
        let mut job = Job::synthetic(1, 0, 10, 10, 1);
        assert_eq!(job.overrun_allowance(Some(7)), Some(7), "JOBMAXOVERRUN");
        for (class, allowance) in [
            (Some(Some(60)), Some(60)),
            (Some(Some(0)), Some(0)),
            (Some(Some(-5)), Some(0)),
            (Some(None), None),
            (Some(Some(Time::MAX)), Some(Time::from(u32::MAX - 2))),
            (None, Some(7)),
        ] {
            job.set_class_overrun(class);
            assert_eq!(job.overrun_allowance(Some(7)), allowance, "{class:?}");
        }
        assert_eq!(job.extras(), &JobExtras::default());
        assert!(
            job.extras.is_none(),
            "no room taken for what the job does not have"
        );
        job.extras_mut().system_priority = 3;
        assert_eq!((job.system_priority(), job.nodes_asked()), (3, 0));
        assert!(job.node_ask_mut().is_none());
    }

    #[test]
    fn a_job_stays_small() {
        assert!(
            std::mem::size_of::<Job>() <= 176,
            "{}",
            std::mem::size_of::<Job>()
        );
    }

    proptest! {
        /// Sorting the keys and applying them in place gives exactly a stable sort of the
        /// jobs: `(submit, id)` order, file order among equal keys (each job's runtime, its
        /// place in the file, tells them apart).
        #[test]
        fn sorted_by_submit_is_the_stable_sort(keys in prop::collection::vec((0i64..6, 0u64..4), 0..60)) {
            let jobs: Vec<Job> = keys
                .iter()
                .enumerate()
                .map(|(line, &(submit, id))| Job::synthetic(id, submit, line as Time + 1, 1, 1))
                .collect();
            let mut expected = jobs.clone();
            expected.sort_by_key(|j| (j.submit, j.id));
            let lines = |v: &[Job]| v.iter().map(|j| j.runtime).collect::<Vec<_>>();
            prop_assert_eq!(lines(&sorted_by_submit(jobs)), lines(&expected));
        }
    }
}
