//! Hand-written scenarios (`mauisim scenario FILE`): a machine, a few jobs (some already
//! running at time 0), a config with variants, and the outcomes each variant must give.
//!
//! A scenario is TOML (see `scenarios/README.md`). Times are seconds or
//! `[[[DD:]HH:]MM:]SS` strings, negative for jobs started before time 0; a window's
//! duration may be `INFINITY`.

use crate::engine::{EventOrder, Outcome};
use crate::error::{Result, SimError};
use crate::params::credentials::Names;
use crate::params::{self, LoadedConfig};
use crate::trace::accounts::AccountFrom;
use crate::trace::swf::SwfHeader;
use crate::trace::workload::{Counts, Job, Machine, Workload};
use crate::units::clock;
use mauisim_config::Duration;
use mauisim_core::{CredKind, Semantics, Time, Window, FOREVER};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use toml::Spanned;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSpec {
    title: String,
    #[serde(default)]
    about: String,
    /// Processors of the machine (one per node), unless `node` tables give the nodes.
    procs: Option<Spanned<u64>>,
    #[serde(default, rename = "node")]
    nodes: Vec<NodeToml>,
    /// Admin reservations holding whole nodes.
    #[serde(default, rename = "reservation")]
    reservations: Vec<ReservationToml>,
    /// A job runs its runtime divided by the SPEED of its slowest node.
    #[serde(default)]
    runtimes_scale_with_speed: bool,
    #[serde(default)]
    config: String,
    #[serde(default)]
    event_order: Option<Spanned<String>>,
    /// What the scheduler plans with: `limit` (default) or `tsafrir`.
    predictor: Option<Spanned<String>>,
    /// Whose reading of the policy: `maui`, `maui-3.3.1` or `research-easy`, as
    /// `--semantics` names them (default: `Semantics::default()`).
    semantics: Option<Spanned<String>>,
    /// Where each job's limit comes from: `trace` (its `limit`, default), `exact`,
    /// `f-model:F` or `accuracy:A`, drawn with `seed`.
    estimate: Option<Spanned<String>>,
    seed: Option<u64>,
    #[serde(default, rename = "job")]
    jobs: Vec<JobSpec>,
    #[serde(default, rename = "expect")]
    expect: Vec<ExpectSpec>,
    #[serde(default, rename = "variant")]
    variants: Vec<VariantSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NodeToml {
    name: Spanned<String>,
    procs: Spanned<u64>,
    mem: Option<u64>,
    swap: Option<u64>,
    disk: Option<u64>,
    speed: Option<f64>,
    procspeed: Option<u64>,
    #[serde(default)]
    features: Vec<String>,
    priority: Option<f64>,
    load: Option<f64>,
    partition: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReservationToml {
    nodes: Spanned<Vec<String>>,
    start: Spanned<TimeSpec>,
    end: Spanned<TimeSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JobSpec {
    name: Spanned<String>,
    procs: Spanned<u64>,
    /// Wallclock limit.
    limit: Spanned<TimeSpec>,
    /// Actual runtime (default: the limit).
    runtime: Option<Spanned<TimeSpec>>,
    submit: Option<Spanned<TimeSpec>>,
    /// Running already at time 0, since this (≤ 0) instant.
    started: Option<Spanned<TimeSpec>>,
    user: Option<String>,
    group: Option<String>,
    account: Option<String>,
    class: Option<String>,
    qos: Option<String>,
    /// Admin system priority (`setspri`): above every computed priority.
    priority: Option<u32>,
    /// Processors per task (default 1): a task's processors are on one node.
    procs_per_task: Option<Spanned<u32>>,
    /// The share of its processors the job keeps busy (0 ..= 1, default 1): what
    /// FSPOLICY UTILIZEDPS charges; `0` is the guide's parallel `/bin/sleep`.
    utilized: Option<Spanned<f64>>,
    /// MB per task.
    mem: Option<u32>,
    swap: Option<u32>,
    disk: Option<u32>,
    /// Node features the job requires, and those it prefers (PREF).
    #[serde(default)]
    features: Vec<String>,
    #[serde(default)]
    pref: Vec<String>,
    /// For a job running at the start: the nodes it holds, filled in order.
    #[serde(default)]
    nodes: Vec<String>,
}

#[derive(Deserialize, Clone)]
#[serde(untagged)]
enum TimeSpec {
    Seconds(i64),
    Text(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectSpec {
    job: Option<Spanned<String>>,
    start: Option<Spanned<TimeSpec>>,
    end: Option<Spanned<TimeSpec>>,
    backfilled: Option<bool>,
    /// The iteration a `reservation` or `windows` expectation looks at.
    at: Option<Spanned<TimeSpec>>,
    /// The start the job's reservation promised in that iteration; `"none"` for none.
    reservation: Option<Spanned<TimeSpec>>,
    /// `[[procs, duration], …]`, widest first.
    windows: Option<Spanned<Vec<(i64, TimeSpec)>>>,
    /// The nodes the job ran on, as a host list (`n[0-3],gpu1`).
    nodes: Option<Spanned<String>>,
    /// The job's start priority at `at`, while it waits (as `inspect … priority` shows it).
    priority: Option<i64>,
    note: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VariantSpec {
    name: String,
    /// Lines appended to the scenario's config.
    #[serde(default)]
    config: String,
    /// Whose reading this variant follows (default: the scenario's).
    semantics: Option<Spanned<String>>,
    #[serde(default, rename = "expect")]
    expect: Vec<ExpectSpec>,
}

/// A scenario, read and checked.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub path: PathBuf,
    pub title: String,
    pub about: String,
    pub procs: u64,
    /// The nodes the scenario defines (none: `procs` single-processor nodes).
    pub nodes: Option<crate::nodes::NodeSource>,
    pub scale_by_speed: bool,
    pub event_order: EventOrder,
    pub predictor: crate::engine::Predictor,
    pub semantics: Semantics,
    /// Sorted by `(submit, id)`; ids are positions in the file, from 1.
    pub jobs: Vec<Job>,
    /// Job names by id − 1.
    pub names: Vec<String>,
    /// The scenario as written first, then its variants.
    pub variants: Vec<Variant>,
    credentials: Names,
}

#[derive(Debug, Clone)]
pub struct Variant {
    pub name: String,
    /// The whole config text of this variant.
    pub config: String,
    pub semantics: Semantics,
    pub expect: Vec<Expect>,
}

/// One expected outcome, with the line it was written on.
#[derive(Debug, Clone, PartialEq)]
pub struct Expect {
    pub line: usize,
    pub check: Check,
    pub note: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Check {
    Start {
        job: u64,
        at: Time,
    },
    End {
        job: u64,
        at: Time,
    },
    Backfilled {
        job: u64,
        yes: bool,
    },
    /// The job's reservation in the iteration at `at` (`None`: it had none).
    Reservation {
        job: u64,
        at: Time,
        start: Option<Time>,
    },
    /// The backfill windows at `at`, after that instant's iteration.
    Windows {
        at: Time,
        windows: Vec<Window>,
    },
    /// The nodes the job ran on, as a host list.
    Nodes {
        job: u64,
        hosts: String,
    },
    /// The job's start priority at `at`, while it waits.
    Priority {
        job: u64,
        at: Time,
        priority: i64,
    },
}

/// Byte offset → 1-based line.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

struct Reader<'a> {
    path: &'a Path,
    text: &'a str,
}

impl Reader<'_> {
    fn error<T>(&self, offset: usize, message: impl std::fmt::Display) -> Result<T> {
        Err(SimError::Usage(format!(
            "{}:{}: {message}",
            self.path.display(),
            line_of(self.text, offset)
        )))
    }

    fn time(&self, field: &str, spec: &Spanned<TimeSpec>) -> Result<Time> {
        let offset = spec.span().start;
        match self.time_or_infinity(field, spec)? {
            Some(t) => Ok(t),
            None => self.error(offset, format!("{field}: INFINITY is not an instant")),
        }
    }

    /// A time value; `None` for INFINITY.
    fn time_or_infinity(&self, field: &str, spec: &Spanned<TimeSpec>) -> Result<Option<Time>> {
        let offset = spec.span().start;
        let text = match spec.get_ref() {
            TimeSpec::Seconds(s) => return Ok(Some(*s)),
            TimeSpec::Text(text) => text.trim(),
        };
        let (negative, body) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        match mauisim_config::parse_duration(body) {
            Ok((Duration::Seconds(s), _)) => Ok(Some(if negative { -s } else { s })),
            Ok((Duration::Infinity, _)) if !negative => Ok(None),
            Ok((Duration::Infinity, _)) => self.error(offset, format!("{field}: -INFINITY")),
            Err(e) => self.error(offset, format!("{field}: {}", e.0)),
        }
    }
}

/// Reads a scenario file.
pub fn load(path: &Path) -> Result<Scenario> {
    let bytes = std::fs::read(path).map_err(|source| SimError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        SimError::Trace {
            path: path.to_path_buf(),
            line: valid.iter().filter(|&&b| b == b'\n').count() + 1,
            message: "not text (invalid UTF-8)".into(),
        }
    })?;
    parse(&text, path)
}

/// Reads a scenario from `text`; `path` names it in errors.
pub fn parse(text: &str, path: &Path) -> Result<Scenario> {
    let spec: FileSpec = toml::from_str(text).map_err(|e| {
        let at = e
            .span()
            .map_or(String::new(), |s| format!(":{}", line_of(text, s.start)));
        SimError::Usage(format!("{}{at}: {}", path.display(), e.message()))
    })?;
    let r = Reader { path, text };
    let (procs, nodes) = machine(&r, &spec)?;
    let event_order = match &spec.event_order {
        None => EventOrder::PerInstant,
        Some(o) => match o.get_ref().as_str() {
            "per-instant" => EventOrder::PerInstant,
            "per-event" => EventOrder::PerEvent,
            other => {
                return r.error(
                    o.span().start,
                    format!("event_order: expected per-instant or per-event, found `{other}`"),
                )
            }
        },
    };
    let predictor = match &spec.predictor {
        None => crate::engine::Predictor::Limit,
        Some(p) => match p.get_ref().parse() {
            Ok(predictor) => predictor,
            Err(message) => return r.error(p.span().start, format!("predictor: {message}")),
        },
    };
    let semantics_named = |name: &Option<Spanned<String>>, default: Semantics| match name {
        None => Ok(default),
        Some(text) => match Semantics::ALL
            .into_iter()
            .find(|s| s.name() == text.get_ref())
        {
            Some(semantics) => Ok(semantics),
            None => r.error(
                text.span().start,
                format!(
                    "semantics: expected maui, maui-3.3.1 or research-easy, found `{}`",
                    text.get_ref()
                ),
            ),
        },
    };
    let semantics = semantics_named(&spec.semantics, Semantics::default())?;
    let mut credentials = Names::default();
    let mut names: Vec<String> = Vec::new();
    let mut jobs = Vec::new();
    for (i, j) in spec.jobs.iter().enumerate() {
        let name = j.name.get_ref().clone();
        let at = j.name.span().start;
        if name.is_empty() || names.contains(&name) {
            return r.error(
                at,
                format!("job `{name}`: names must be unique and not empty"),
            );
        }
        let job_procs = *j.procs.get_ref();
        if job_procs == 0 || job_procs > procs {
            return r.error(
                j.procs.span().start,
                format!("job {name}: procs must be 1 to the machine's {procs}"),
            );
        }
        let limit = r.time("limit", &j.limit)?;
        if limit <= 0 {
            return r.error(
                j.limit.span().start,
                format!("job {name}: limit must be positive"),
            );
        }
        let runtime = match &j.runtime {
            Some(t) => r.time("runtime", t)?,
            None => limit,
        };
        if runtime < 0 {
            return r.error(at, format!("job {name}: runtime cannot be negative"));
        }
        let started = j
            .started
            .as_ref()
            .map(|t| r.time("started", t))
            .transpose()?;
        let submit = match (&j.submit, started) {
            (Some(_), Some(_)) => {
                return r.error(at, format!("job {name}: give submit or started, not both"))
            }
            (Some(t), None) => r.time("submit", t)?,
            (None, Some(s)) if s > 0 => {
                return r.error(at, format!("job {name}: started must be at or before 0"))
            }
            (None, Some(s)) => s,
            (None, None) => 0,
        };
        let mut job = Job::synthetic(i as u64 + 1, submit, runtime, limit, job_procs);
        let per_task = j.procs_per_task.as_ref().map_or(1, |p| *p.get_ref());
        if per_task == 0 || job_procs % u64::from(per_task) != 0 {
            let at = j.procs_per_task.as_ref().map_or(at, |p| p.span().start);
            return r.error(
                at,
                format!("job {name}: procs ({job_procs}) must be a multiple of procs_per_task ({per_task})"),
            );
        }
        job.request.procs_per_task = per_task;
        if let Some(utilized) = &j.utilized {
            let share = *utilized.get_ref();
            if !(0.0..=1.0).contains(&share) {
                return r.error(
                    utilized.span().start,
                    format!(
                        "job {name}: utilized is a share of its processors, 0 to 1, found {share}"
                    ),
                );
            }
            job.utilized = share;
        }
        job.request.mem = j.mem.unwrap_or(0);
        job.request.swap = j.swap.unwrap_or(0);
        job.request.disk = j.disk.unwrap_or(0);
        job.mem_mb = f64::from(job.request.mem) * (job_procs / u64::from(per_task)) as f64;
        if !j.nodes.is_empty() && started.is_none() {
            return r.error(
                at,
                format!("job {name}: only a job running at the start (`started`) names its nodes"),
            );
        }
        if !(j.features.is_empty() && j.pref.is_empty() && j.nodes.is_empty()) {
            job.extras_mut().node_ask = Some(crate::trace::workload::NodeAsk {
                features: j.features.clone(),
                pref: j.pref.clone(),
                nodes: j.nodes.clone(),
                node_ids: Vec::new(),
            });
        }
        if started.is_some() {
            job.extras_mut().already_running = true;
        }
        if let Some(priority) = j.priority {
            job.extras_mut().system_priority = priority;
        }
        for (kind, value) in [
            (CredKind::User, &j.user),
            (CredKind::Group, &j.group),
            (CredKind::Class, &j.class),
        ] {
            if let Some(v) = value {
                job.creds.set(kind, credentials.intern(kind, v));
            }
        }
        if let Some(a) = &j.account {
            job.requested_account = credentials.intern(CredKind::Account, a);
        }
        if let Some(q) = &j.qos {
            job.extras_mut().requested_qos = credentials.intern(CredKind::Qos, q);
        }
        names.push(name);
        jobs.push(job);
    }
    check_running_fit(&r, &spec, procs, &jobs, &names)?;
    jobs.sort_by_key(|j| (j.submit, j.id));
    if let Some(e) = &spec.estimate {
        match e.get_ref().parse::<crate::trace::workload::Estimate>() {
            Ok(model) => model.redraw_limits(&mut jobs, spec.seed.unwrap_or(1)),
            Err(message) => return r.error(e.span().start, format!("estimate: {message}")),
        }
    }
    let id_of = |name: &Spanned<String>| -> Result<u64> {
        match names.iter().position(|n| n == name.get_ref()) {
            Some(i) => Ok(i as u64 + 1),
            None => r.error(
                name.span().start,
                format!("no job is named `{}`", name.get_ref()),
            ),
        }
    };
    let expectations = |specs: &[ExpectSpec]| -> Result<Vec<Expect>> {
        specs.iter().map(|e| expectation(&r, e, &id_of)).collect()
    };
    let mut variants = vec![Variant {
        name: "as written".to_string(),
        config: spec.config.clone(),
        semantics,
        expect: expectations(&spec.expect)?,
    }];
    for v in &spec.variants {
        variants.push(Variant {
            name: v.name.clone(),
            config: format!("{}\n{}", spec.config, v.config),
            semantics: semantics_named(&v.semantics, semantics)?,
            expect: expectations(&v.expect)?,
        });
    }
    Ok(Scenario {
        path: path.to_path_buf(),
        title: spec.title,
        about: spec.about,
        procs,
        nodes,
        scale_by_speed: spec.runtimes_scale_with_speed,
        event_order,
        predictor,
        semantics,
        jobs,
        names,
        variants,
        credentials,
    })
}

/// Jobs running at time 0 must fit the machine together, each over the time it holds its
/// processors (start to the end of its runtime or limit, whichever is later).
/// The machine's processors, and its nodes when the scenario lists them.
fn machine(r: &Reader, spec: &FileSpec) -> Result<(u64, Option<crate::nodes::NodeSource>)> {
    use crate::params::node_cfg::NodeCfg;
    if spec.nodes.is_empty() {
        return match &spec.procs {
            Some(p) if *p.get_ref() > 0 => Ok((*p.get_ref(), None)),
            Some(p) => r.error(
                p.span().start,
                "procs: the machine needs at least one processor",
            ),
            None => r.error(0, "give the machine: `procs = N` or `[[node]]` tables"),
        };
    }
    if let Some(p) = &spec.procs {
        return r.error(
            p.span().start,
            "give either `procs` or `[[node]]` tables, not both",
        );
    }
    let mut base: Vec<crate::nodes::BaseNode> = Vec::new();
    for n in &spec.nodes {
        let name = n.name.get_ref().clone();
        if name.is_empty() || base.iter().any(|b| b.name == name) {
            return r.error(
                n.name.span().start,
                format!("node `{name}`: names must be unique and not empty"),
            );
        }
        if *n.procs.get_ref() == 0 {
            return r.error(
                n.procs.span().start,
                format!("node {name}: a node needs at least one processor"),
            );
        }
        if n.speed.is_some_and(|s| !(s > 0.0 && s.is_finite())) {
            return r.error(
                n.name.span().start,
                format!("node {name}: speed must be positive"),
            );
        }
        base.push(crate::nodes::BaseNode {
            name,
            cfg: NodeCfg {
                procs: Some(*n.procs.get_ref()),
                mem: n.mem,
                swap: n.swap,
                disk: n.disk,
                speed: n.speed,
                procspeed: n.procspeed,
                features: (!n.features.is_empty()).then(|| n.features.clone()),
                priority: n.priority,
                partition: n.partition.clone(),
                load: n.load,
                ..NodeCfg::default()
            },
        });
    }
    let mut standing = Vec::new();
    for res in &spec.reservations {
        let start = r.time("start", &res.start)?;
        let end = r.time("end", &res.end)?;
        if end <= start {
            return r.error(res.end.span().start, "reservation: end must be after start");
        }
        for n in res.nodes.get_ref() {
            if !base.iter().any(|b| &b.name == n) {
                return r.error(
                    res.nodes.span().start,
                    format!("reservation: no node is named `{n}`"),
                );
            }
        }
        standing.push((res.nodes.get_ref().clone(), start, end));
    }
    let procs = base.iter().map(|b| b.cfg.procs.unwrap_or(0)).sum();
    Ok((
        procs,
        Some(crate::nodes::NodeSource {
            nodes: base,
            source: "scenario nodes".into(),
            standing,
        }),
    ))
}

fn check_running_fit(
    r: &Reader,
    spec: &FileSpec,
    procs: u64,
    jobs: &[Job],
    names: &[String],
) -> Result<()> {
    let running: Vec<(usize, &Job)> = jobs
        .iter()
        .enumerate()
        .filter(|(_, j)| j.already_running())
        .collect();
    for &(i, job) in &running {
        let in_use: u64 = running
            .iter()
            .filter(|(_, o)| o.submit <= job.submit && job.submit < o.submit + o.runtime.max(o.wcl))
            .map(|(_, o)| o.procs)
            .sum();
        if in_use > procs {
            let at = spec.jobs[i].name.span().start;
            return r.error(
                at,
                format!(
                    "job {}: the jobs running when it started need {in_use} processors, more than the machine's {procs}",
                    names[i]
                ),
            );
        }
    }
    Ok(())
}

fn expectation(
    r: &Reader,
    e: &ExpectSpec,
    id_of: &dyn Fn(&Spanned<String>) -> Result<u64>,
) -> Result<Expect> {
    let anchor = [
        e.job.as_ref().map(|j| j.span().start),
        e.at.as_ref().map(|t| t.span().start),
        e.windows.as_ref().map(|w| w.span().start),
        e.nodes.as_ref().map(|n| n.span().start),
    ]
    .into_iter()
    .flatten()
    .min()
    .unwrap_or(0);
    let line = line_of(r.text, anchor);
    let job = e.job.as_ref().map(id_of).transpose()?;
    let at = e.at.as_ref().map(|t| r.time("at", t)).transpose()?;
    let kinds = [
        e.start.is_some(),
        e.end.is_some(),
        e.backfilled.is_some(),
        e.reservation.is_some(),
        e.windows.is_some(),
        e.nodes.is_some(),
        e.priority.is_some(),
    ];
    if kinds.iter().filter(|&&k| k).count() != 1 {
        return r.error(
            anchor,
            "an expectation checks exactly one of start, end, backfilled, reservation, windows, nodes, priority",
        );
    }
    let need_job = || match job {
        Some(j) => Ok(j),
        None => r.error(anchor, "this expectation needs `job`"),
    };
    let need_at = || match at {
        Some(t) => Ok(t),
        None => r.error(
            anchor,
            "this expectation needs `at`, the iteration it looks at",
        ),
    };
    let check = if let Some(t) = &e.start {
        Check::Start {
            job: need_job()?,
            at: r.time("start", t)?,
        }
    } else if let Some(t) = &e.end {
        Check::End {
            job: need_job()?,
            at: r.time("end", t)?,
        }
    } else if let Some(yes) = e.backfilled {
        Check::Backfilled {
            job: need_job()?,
            yes,
        }
    } else if let Some(t) = &e.reservation {
        let start = match t.get_ref() {
            TimeSpec::Text(s) if s.eq_ignore_ascii_case("none") => None,
            _ => Some(r.time("reservation", t)?),
        };
        Check::Reservation {
            job: need_job()?,
            at: need_at()?,
            start,
        }
    } else if let Some(hosts) = &e.nodes {
        Check::Nodes {
            job: need_job()?,
            hosts: hosts.get_ref().clone(),
        }
    } else if let Some(priority) = e.priority {
        Check::Priority {
            job: need_job()?,
            at: need_at()?,
            priority,
        }
    } else {
        let spanned = e.windows.as_ref().expect("one kind is set");
        let mut windows = Vec::new();
        for (procs, duration) in spanned.get_ref() {
            let d = Spanned::new(spanned.span(), duration.clone());
            let duration = r.time_or_infinity("windows", &d)?.unwrap_or(FOREVER);
            windows.push(Window {
                procs: *procs,
                duration,
            });
        }
        Check::Windows {
            at: need_at()?,
            windows,
        }
    };
    Ok(Expect {
        line,
        check,
        note: e.note.clone(),
    })
}

/// One job's outcome in a variant.
#[derive(Debug, Clone, Serialize)]
pub struct JobRow {
    pub name: String,
    pub procs: u64,
    pub nodes: String,
    pub submit: Time,
    pub start: Time,
    pub end: Time,
    pub backfilled: bool,
    pub first_reservation: Option<Time>,
}

/// One expectation, checked.
#[derive(Debug, Clone, Serialize)]
pub struct CheckResult {
    pub line: usize,
    pub what: String,
    pub expected: String,
    pub actual: String,
    pub ok: bool,
    pub note: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct VariantResult {
    pub name: String,
    pub jobs: Vec<JobRow>,
    pub checks: Vec<CheckResult>,
    /// The whole schedule, then the scheduler's view at each instant asked for
    /// ([`run_at`]).
    #[serde(skip)]
    pub pictures: Vec<crate::inspect::gantt::Picture>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ScenarioResult {
    pub title: String,
    pub about: String,
    pub variants: Vec<VariantResult>,
}

impl ScenarioResult {
    pub fn failures(&self) -> usize {
        self.variants
            .iter()
            .flat_map(|v| &v.checks)
            .filter(|c| !c.ok)
            .count()
    }
}

/// Runs every variant of the scenario and checks its expectations.
pub fn run(scenario: &Scenario) -> Result<ScenarioResult> {
    run_at(scenario, &[])
}

/// [`run`], with each variant's pictures: its whole schedule and the scheduler's view at
/// each of `instants`.
pub fn run_at(scenario: &Scenario, instants: &[Time]) -> Result<ScenarioResult> {
    let mut variants = Vec::new();
    for variant in &scenario.variants {
        variants.push(run_variant(scenario, variant, instants)?);
    }
    Ok(ScenarioResult {
        title: scenario.title.clone(),
        about: scenario.about.clone(),
        variants,
    })
}

fn run_variant(scenario: &Scenario, variant: &Variant, instants: &[Time]) -> Result<VariantResult> {
    let source = format!("{} (config of `{}`)", scenario.path.display(), variant.name);
    let mut config: LoadedConfig = params::from_str(&variant.config, &source)?;
    config.config.policy.semantics = variant.semantics;
    let workload = Workload {
        path: scenario.path.clone(),
        header: SwfHeader::default(),
        machine: Machine {
            nodes: scenario.procs,
            procs_per_node: 1,
        },
        jobs: scenario.jobs.clone(),
        names: scenario.credentials.clone(),
        records: scenario.jobs.len() as u64,
        skipped: Counts::new(),
        adjusted: Counts::new(),
        notes: Vec::new(),
    };
    let mut prepared = crate::bind(
        config,
        workload,
        AccountFrom::None,
        scenario.event_order,
        scenario.nodes.clone(),
    )?;
    prepared.engine.record_reservations = true;
    // Scenarios are small: every one is run under the invariant checks.
    prepared.engine.check = true;
    prepared.engine.scale_by_speed = scenario.scale_by_speed;
    prepared.engine.predictor = scenario.predictor;
    let jobs = &prepared.workload.jobs;
    let (outcomes, stats) = crate::simulate(&prepared)?;
    if let Some((i, _)) = stats.held.first() {
        return Err(SimError::Usage(format!(
            "{}: job {} can never run under variant `{}` (held: {})",
            scenario.path.display(),
            scenario.names[jobs[*i].id as usize - 1],
            variant.name,
            crate::params::limits::limit_name(&stats.held[0].1)
        )));
    }
    let index_of = |id: u64| {
        jobs.iter()
            .position(|j| j.id == id)
            .expect("ids come from the jobs")
    };
    let name = |id: u64| scenario.names[id as usize - 1].clone();
    let mut checks = Vec::new();
    for e in &variant.expect {
        let outcome = |id: u64| -> &Outcome { &outcomes[index_of(id)] };
        let (what, expected, actual) = match &e.check {
            Check::Start { job, at } => (
                format!("{} starts", name(*job)),
                clock(*at),
                clock(outcome(*job).start),
            ),
            Check::End { job, at } => (
                format!("{} ends", name(*job)),
                clock(*at),
                clock(outcome(*job).end),
            ),
            Check::Backfilled { job, yes } => (
                format!("{} backfilled", name(*job)),
                yes.to_string(),
                outcome(*job).backfilled.to_string(),
            ),
            Check::Reservation { job, at, start } => {
                let i = index_of(*job);
                let held = stats
                    .reservations
                    .iter()
                    .find(|&&(t, j, _)| t == *at && j == i)
                    .map(|&(_, _, s)| s);
                let actual = if stats.iteration_times.binary_search(at).is_ok() {
                    option_text(held)
                } else {
                    "no iteration at that instant".to_string()
                };
                (
                    format!(
                        "{}'s reservation in the iteration at {}",
                        name(*job),
                        clock(*at)
                    ),
                    option_text(*start),
                    actual,
                )
            }
            Check::Nodes { job, hosts } => (
                format!("{} runs on", name(*job)),
                hosts.clone(),
                prepared.nodes.host_list(stats.job_nodes.of(index_of(*job))),
            ),
            Check::Priority { job, at, priority } => {
                let mut snapshot = crate::snapshot(&prepared, *at);
                snapshot.scheduler.priority_order(*at, &mut snapshot.queue);
                let i = index_of(*job);
                let waiting = snapshot.queue.iter().find(|q| q.idx.0 as usize == i);
                let actual = match waiting {
                    Some(q) => snapshot.scheduler.breakdown(q, *at).priority.to_string(),
                    None => "not waiting at that instant".to_string(),
                };
                (
                    format!("{}'s priority at {}", name(*job), clock(*at)),
                    priority.to_string(),
                    actual,
                )
            }
            Check::Windows { at, windows } => {
                let snapshot = crate::snapshot(&prepared, *at);
                let (_, actual) = snapshot.scheduler.plan(*at, &snapshot.queue);
                (
                    format!("backfill windows at {}", clock(*at)),
                    windows_text(windows),
                    windows_text(&actual),
                )
            }
        };
        checks.push(CheckResult {
            line: e.line,
            ok: expected == actual,
            what,
            expected,
            actual,
            note: e.note.clone(),
        });
    }
    let mut rows: Vec<JobRow> = jobs
        .iter()
        .zip(&outcomes)
        .zip(stats.job_nodes.iter())
        .map(|((j, o), nodes)| JobRow {
            name: name(j.id),
            procs: j.procs,
            nodes: prepared.nodes.host_list(nodes),
            submit: j.submit,
            start: o.start,
            end: o.end,
            backfilled: o.backfilled,
            first_reservation: o.first_reservation(),
        })
        .collect();
    rows.sort_by_key(|r| (r.start, r.submit));
    let label = |i: usize| name(jobs[i].id);
    let mut pictures = vec![crate::inspect::gantt::schedule(
        &prepared,
        &outcomes,
        &stats,
        &label,
        format!("{} — {}", scenario.title, variant.name),
    )];
    for &at in instants {
        pictures.push(crate::inspect::gantt::at_iteration(
            &prepared,
            &outcomes,
            &stats,
            at,
            &label,
            format!(
                "{} — {} — iteration at {}",
                scenario.title,
                variant.name,
                clock(at)
            ),
        ));
    }
    Ok(VariantResult {
        name: variant.name.clone(),
        jobs: rows,
        checks,
        pictures,
    })
}

fn option_text(t: Option<Time>) -> String {
    t.map_or("none".to_string(), clock)
}

fn windows_text(windows: &[Window]) -> String {
    let parts: Vec<String> = windows
        .iter()
        .map(|w| format!("{} × {}", w.procs, clock(w.duration)))
        .collect();
    if parts.is_empty() {
        "none".to_string()
    } else {
        parts.join(", ")
    }
}

/// The result as a terminal report: per variant, the schedule and every check.
pub fn to_text(result: &ScenarioResult) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(out, "{}", result.title);
    if !result.about.trim().is_empty() {
        for line in result.about.trim().lines() {
            let _ = writeln!(out, "  {}", line.trim());
        }
    }
    for v in &result.variants {
        let _ = writeln!(out, "\n== {} ==", v.name);
        let _ = writeln!(
            out,
            "  {:<10} {:>5} {:>10} {:>10} {:>10} {:>10}  {:<18} first reservation",
            "job", "procs", "submit", "start", "end", "backfilled", "nodes"
        );
        for j in &v.jobs {
            let _ = writeln!(
                out,
                "  {:<10} {:>5} {:>10} {:>10} {:>10} {:>10}  {:<18} {}",
                j.name,
                j.procs,
                clock(j.submit),
                clock(j.start),
                clock(j.end),
                if j.backfilled { "yes" } else { "" },
                j.nodes,
                j.first_reservation.map_or(String::new(), clock)
            );
        }
        for c in &v.checks {
            let verdict = if c.ok { "ok  " } else { "FAIL" };
            let _ = write!(
                out,
                "  {verdict} line {:>3}: {} = {}",
                c.line, c.what, c.actual
            );
            if !c.ok {
                let _ = write!(out, " (expected {})", c.expected);
            }
            if let Some(note) = &c.note {
                let _ = write!(out, "  -- {note}");
            }
            let _ = writeln!(out);
        }
    }
    let failures = result.failures();
    let total: usize = result.variants.iter().map(|v| v.checks.len()).sum();
    let _ = writeln!(
        out,
        "\n{} of {total} expectations hold{}",
        total - failures,
        if failures > 0 {
            format!("; {failures} FAILED")
        } else {
            String::new()
        }
    );
    out
}
