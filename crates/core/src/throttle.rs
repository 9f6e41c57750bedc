//! Throttling state (guide 6.2, MAUI-SEMANTICS §3): who uses what, and which limit a job
//! would break.
//!
//! Active usage follows starts and ends exactly. PS and WC count the time left to each
//! running job's wallclock limit, kept as sums (`Σ procs·end`, `Σ procs`) so the remaining
//! total at any `now` is one subtraction. Idle usage is rebuilt by every iteration's
//! selection of eligible jobs. Nothing here exists when no limit is configured.

use crate::cred::{CredId, CredKind};
use crate::cred_settings::CredTables;
use crate::job::{JobIdx, QueuedJob};
use crate::limits::{Blocked, Level, Limits, Metric, Owner, PerCredLimit, Scope, Source};
use crate::Time;

/// Why an idle job is not running, as far as limits go (`inspect … blocked`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Eligible under the soft limits: it waits for resources.
    Eligible,
    /// Eligible only in the second pass: it breaks this soft limit.
    SoftLimit(Blocked),
    /// Not eligible: it breaks this hard active or idle limit.
    Blocked(Blocked),
}
use std::collections::HashMap;

/// One owner's active usage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Usage {
    jobs: u64,
    procs: u64,
    nodes: u64,
    pe: u64,
    mem: u64,
    /// Running jobs not yet past their wallclock end: Σ procs, Σ procs·end, count, Σ end.
    ps_procs: u64,
    ps_end: i128,
    wc_jobs: u64,
    wc_end: i128,
}

impl Usage {
    fn value(&self, metric: Metric, now: Time) -> u64 {
        let remaining = |sum_end: i128, count: u64| {
            (sum_end - i128::from(now) * i128::from(count)).clamp(0, i128::from(u64::MAX)) as u64
        };
        match metric {
            Metric::Job => self.jobs,
            Metric::Proc => self.procs,
            Metric::Node => self.nodes,
            Metric::Pe => self.pe,
            Metric::Mem => self.mem,
            Metric::Ps => remaining(self.ps_end, self.ps_procs),
            Metric::Wc => remaining(self.wc_end, self.wc_jobs),
        }
    }

    fn add(&mut self, c: &Charge, sign: i64) {
        let step = |v: &mut u64, by: u64| {
            *v = if sign > 0 { *v + by } else { *v - by };
        };
        step(&mut self.jobs, 1);
        step(&mut self.procs, c.procs);
        step(&mut self.nodes, c.nodes);
        step(&mut self.pe, c.pe);
        step(&mut self.mem, c.mem);
        if c.counts_remaining {
            self.add_remaining(c, sign);
        }
    }

    fn add_remaining(&mut self, c: &Charge, sign: i64) {
        let s = i128::from(sign);
        self.ps_procs = (i128::from(self.ps_procs) + s * i128::from(c.procs)) as u64;
        self.ps_end += s * i128::from(c.procs) * i128::from(c.end);
        self.wc_jobs = (i128::from(self.wc_jobs) + s) as u64;
        self.wc_end += s * i128::from(c.end);
    }
}

/// What a running job counts against its credentials.
#[derive(Debug, Clone, Copy)]
struct Charge {
    job: QueuedJobCreds,
    procs: u64,
    nodes: u64,
    pe: u64,
    mem: u64,
    /// Its wallclock end (start + WCL).
    end: Time,
    /// Still short of `end`: counts in PS and WC.
    counts_remaining: bool,
}

type QueuedJobCreds = crate::cred::JobCreds;

/// A queued job's amounts per metric, as an idle or a newly started job: PS and WC count
/// its whole wallclock limit.
pub(crate) fn amounts(job: &QueuedJob) -> [u64; Metric::COUNT] {
    let wcl = job.wcl.max(0) as u64;
    [
        1,
        job.procs,
        job.resources.nodes,
        job.procs.saturating_mul(wcl),
        job.resources.pe.ceil().max(0.0) as u64,
        wcl,
        job.resources.mem_mb.ceil().max(0.0) as u64,
    ]
}

/// One selection's idle usage: per credential (kind, id) and for the system.
#[derive(Debug, Clone, Default)]
struct IdleUsage {
    per_cred: [Vec<[u64; Metric::COUNT]>; 5],
    /// The (kind, id) entries set since the last clear.
    touched: Vec<(usize, usize)>,
    system: [u64; Metric::COUNT],
}

impl IdleUsage {
    fn clear(&mut self) {
        for (kind, id) in self.touched.drain(..) {
            self.per_cred[kind][id] = [0; Metric::COUNT];
        }
        self.system = [0; Metric::COUNT];
    }

    fn get(&self, kind: CredKind, i: usize, metric: Metric) -> u64 {
        self.per_cred[kind.index()]
            .get(i)
            .map_or(0, |u| u[metric as usize])
    }

    /// Adds an eligible job.
    fn add(&mut self, job: &QueuedJob, amounts: &[u64; Metric::COUNT]) {
        for kind in CredKind::ALL {
            let Some(i) = job.creds.get(kind).get() else {
                continue;
            };
            let table = &mut self.per_cred[kind.index()];
            if table.len() <= i {
                table.resize(i + 1, [0; Metric::COUNT]);
            }
            if table[i] == [0; Metric::COUNT] {
                self.touched.push((kind.index(), i));
            }
            for (u, a) in table[i].iter_mut().zip(amounts) {
                *u += a;
            }
        }
        for (u, a) in self.system.iter_mut().zip(amounts) {
            *u += a;
        }
    }
}

/// Throttling state of one scheduler.
#[derive(Debug, Clone)]
pub struct Throttle {
    active: [Vec<Usage>; 5],
    system_active: Usage,
    pairs: HashMap<Owner, Usage>,
    /// This selection's idle usage (at the hard level, and Maui 3.3.1's separate count at
    /// the soft level).
    idle: IdleUsage,
    soft_idle: IdleUsage,
    running: HashMap<JobIdx, Charge>,
    has_idle: bool,
    has_pairs: bool,
    /// Per kind and metric: whether any object of the kind (or a QOS override) sets an
    /// active / idle limit on it. Checks skip the rest, so unused limits cost nothing.
    active_set: [[bool; Metric::COUNT]; 5],
    idle_set: [[bool; Metric::COUNT]; 5],
    /// The credentials (kind index, id) whose active usage moved since
    /// [`Self::take_changes`] last ran (may repeat), and whether the system's did.
    changed: Vec<(usize, usize)>,
    system_changed: bool,
    /// Maui 3.3.1: a group, account, QOS or class is held to its kind's DEFAULT idle limits
    /// only if its own object sets an idle limit (MJob.c `MJobCheckLimits` skips a
    /// credential without an idle policy of its own, which only users always have).
    defaults_idle_need_own: bool,
}

/// What a job blocked by a hard active limit was judged against: while the active usage of
/// each of these stays as it is, the same limit blocks it ([`Throttle::waits_on`]). The
/// job's own credentials of some kinds (bit `k` for kind index `k`), and the system (bit
/// 5).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct WaitsOn(u8);

impl WaitsOn {
    const SYSTEM: u8 = 1 << 5;

    /// Bit `k` for credential kind index `k`, bit 5 for the system.
    #[cfg(test)]
    pub fn from_bits(bits: u8) -> Self {
        WaitsOn(bits)
    }

    /// The credentials of `job` it names: (kind index, id).
    pub fn creds(self, job: &QueuedJob) -> impl Iterator<Item = (usize, usize)> + '_ {
        CredKind::ALL.into_iter().filter_map(move |kind| {
            let named = self.0 & (1 << kind.index()) != 0;
            let id = job.creds.get(kind).get().filter(|_| named)?;
            Some((kind.index(), id))
        })
    }

    pub fn system(self) -> bool {
        self.0 & Self::SYSTEM != 0
    }
}

/// The limit on `metric` for credential (`kind`, `id`) at `scope`: the job's QOS override
/// first, then the credential's own value, then its kind's DEFAULT.
fn lookup(
    tables: &CredTables,
    qos: &Limits,
    kind: CredKind,
    id: CredId,
    scope: Scope,
    metric: Metric,
    level: Level,
) -> Option<(u64, Source)> {
    let m = metric as usize;
    let pick = |l: &Limits, overriding: bool| -> Option<u64> {
        match (scope, overriding) {
            (Scope::Active, false) => l.active[m].map(|p| p.at(level)),
            (Scope::Active, true) => l.override_active[m].map(|p| p.at(level)),
            (Scope::Idle, false) => l.idle[m].map(|p| p.at(level)),
            (Scope::Idle, true) => l.override_idle[m].map(|p| p.at(level)),
            (Scope::PerJob, false) => l.per_job[m],
            (Scope::PerJob, true) => l.override_per_job[m],
            (Scope::FsCap | Scope::FsRelativeCap | Scope::NegativePriority, _) => None,
        }
    };
    if let Some(v) = pick(qos, true) {
        return Some((v, Source::QosOverride));
    }
    if let Some(v) = pick(&tables.own(kind, id).limits, false) {
        return Some((v, Source::Own));
    }
    pick(&tables.default_of(kind).limits, false).map(|v| (v, Source::Default))
}

/// Maui 3.3.1's class constraints, which a job breaking one is held for as it is loaded
/// (MJob.c `MJobCheckClassJLimits`, MRM.c "job violates class configuration"): a job of a
/// class may ask for no longer a walltime than the least of its class's MAX.WCLIMIT (else
/// CLASSCFG[DEFAULT]'s), its user's own and its group's own (3.3.1 reads no DEFAULT user or
/// group there), nor for more nodes than its class's MAXNODEPERJOB, nor for more tasks than
/// its class's MAXPROCPERJOB (each else CLASSCFG[DEFAULT]'s), checked in that order. A job
/// without a class is not checked.
fn class_job_limits(tables: &CredTables, job: &QueuedJob) -> Option<Blocked> {
    let class = job.creds.get(CredKind::Class);
    class.get()?;
    let of_class = |metric: Metric| {
        let m = metric as usize;
        let own = tables.own(CredKind::Class, class).limits.per_job[m].filter(|&v| v > 0);
        let default = tables.default_of(CredKind::Class).limits.per_job[m];
        match own {
            Some(v) => Some((v, Owner::Cred(CredKind::Class, class), Source::Own)),
            None => default
                .filter(|&v| v > 0)
                .map(|v| (v, Owner::Cred(CredKind::Class, class), Source::Default)),
        }
    };
    let wc = Metric::Wc as usize;
    let mut walltime = of_class(Metric::Wc);
    for kind in [CredKind::User, CredKind::Group] {
        let id = job.creds.get(kind);
        if id.get().is_none() {
            continue;
        }
        if let Some(v) = tables.own(kind, id).limits.per_job[wc].filter(|&v| v > 0) {
            if walltime.is_none_or(|(least, _, _)| v < least) {
                walltime = Some((v, Owner::Cred(kind, id), Source::Own));
            }
        }
    }
    let tasks = job.procs / u64::from(job.request.procs_per_task.max(1));
    let checks = [
        (Metric::Wc, walltime, job.wcl.max(0) as u64),
        (
            Metric::Node,
            of_class(Metric::Node),
            u64::from(job.nodes_asked),
        ),
        (Metric::Proc, of_class(Metric::Proc), tasks),
    ];
    checks.into_iter().find_map(|(metric, limit, amount)| {
        let (limit, owner, source) = limit?;
        Test::new(Scope::PerJob, Level::Hard, owner, source).breaks(metric, 0, amount, limit)
    })
}

/// The limits of the QOS of a job of `creds`: the source of override values.
fn qos_limits<'t>(tables: &'t CredTables, creds: &QueuedJobCreds) -> &'t Limits {
    &tables.own(CredKind::Qos, creds.get(CredKind::Qos)).limits
}

/// One owner's limits at one scope and level, tested metric by metric.
struct Test {
    scope: Scope,
    level: Level,
    owner: Owner,
    source: Source,
}

impl Test {
    fn new(scope: Scope, level: Level, owner: Owner, source: Source) -> Self {
        Test {
            scope,
            level,
            owner,
            source,
        }
    }

    /// `usage + amount > limit`, a limit of 0 meaning none, as the [`Blocked`] it makes.
    fn breaks(&self, metric: Metric, usage: u64, amount: u64, limit: u64) -> Option<Blocked> {
        (limit > 0 && usage.saturating_add(amount) > limit).then_some(Blocked {
            scope: self.scope,
            level: self.level,
            owner: self.owner,
            metric,
            source: self.source,
            usage,
            amount,
            limit,
        })
    }
}

impl Throttle {
    /// `None` when the config sets no limit at all: then throttling costs nothing.
    pub(crate) fn new(tables: &CredTables, system: &Limits) -> Option<Throttle> {
        let all = tables
            .defaults
            .iter()
            .chain(tables.settings.iter().flatten())
            .map(|s| &s.limits)
            .chain([system]);
        let (mut any, mut has_idle, mut has_pairs) = (false, false, false);
        for l in all {
            any |= !l.is_empty();
            has_idle |= l.idle.iter().chain(&l.override_idle).any(Option::is_some);
            has_pairs |= !l.per_cred.is_empty();
        }
        let mut active_set = [[false; Metric::COUNT]; 5];
        let mut idle_set = [[false; Metric::COUNT]; 5];
        let qos = CredKind::Qos.index();
        for kind in CredKind::ALL {
            let k = kind.index();
            let objects = tables.settings[k]
                .iter()
                .chain([&tables.defaults[k]])
                .map(|s| &s.limits);
            for l in objects {
                for m in 0..Metric::COUNT {
                    active_set[k][m] |= l.active[m].is_some();
                    idle_set[k][m] |= l.idle[m].is_some();
                }
            }
        }
        let overrides = tables.settings[qos]
            .iter()
            .chain([&tables.defaults[qos]])
            .map(|s| &s.limits);
        for l in overrides {
            for m in 0..Metric::COUNT {
                for k in 0..5 {
                    active_set[k][m] |= l.override_active[m].is_some();
                    idle_set[k][m] |= l.override_idle[m].is_some();
                }
            }
        }
        any.then(|| Throttle {
            active_set,
            idle_set,
            active: Default::default(),
            system_active: Usage::default(),
            pairs: HashMap::new(),
            idle: IdleUsage::default(),
            soft_idle: IdleUsage::default(),
            running: HashMap::new(),
            has_idle,
            has_pairs,
            changed: Vec::new(),
            system_changed: false,
            defaults_idle_need_own: false,
        })
    }

    /// Reads DEFAULT idle limits as Maui 3.3.1 does (see `defaults_idle_need_own`).
    pub(crate) fn set_defaults_idle_need_own(&mut self, on: bool) {
        self.defaults_idle_need_own = on;
    }

    /// When `blocked` (a hard verdict on `job`) is sure to stand until the active usage of
    /// one of the credentials it was judged against moves: a hard active limit on a metric
    /// that time alone does not lower (not MAXPS, MAXWC), found before any pair limit.
    /// The checks up to it read only the usage of the job's credentials of the kinds
    /// checked until then (and the system's, if it was reached), and the job's amounts and
    /// the limits never change; every earlier check that passed still passes, and the
    /// same one breaks, for as long as those usages stay. `None` for any other block.
    pub(crate) fn waits_on(&self, job: &QueuedJob, blocked: &Blocked) -> Option<WaitsOn> {
        if blocked.scope != Scope::Active
            || blocked.level != Level::Hard
            || matches!(blocked.metric, Metric::Ps | Metric::Wc)
        {
            return None;
        }
        let last = match blocked.owner {
            Owner::Cred(kind, _) => kind.index(),
            Owner::System => CredKind::ALL.len(),
            Owner::Pair(..) => return None,
        };
        let mut on = if last == CredKind::ALL.len() {
            WaitsOn::SYSTEM
        } else {
            0
        };
        for kind in CredKind::ALL.into_iter().take(last + 1) {
            let limited = self.active_set[kind.index()].contains(&true);
            if limited && job.creds.get(kind).get().is_some() {
                on |= 1 << kind.index();
            }
        }
        Some(WaitsOn(on))
    }

    /// The credentials whose active usage moved since the last call (kind index, id; in no
    /// particular order, repeats possible), and whether the system's did.
    pub(crate) fn take_changes(&mut self, into: &mut Vec<(usize, usize)>) -> bool {
        into.clear();
        into.append(&mut self.changed);
        std::mem::take(&mut self.system_changed)
    }

    /// The first per-job limit `job` breaks (SYSTEMMAX*PERJOB, its QOS's `OMAXJ*`, its
    /// class's [`class_job_limits`]).
    pub(crate) fn check_per_job(
        tables: &CredTables,
        system: &Limits,
        job: &QueuedJob,
    ) -> Option<Blocked> {
        let qos = qos_limits(tables, &job.creds);
        let amounts = amounts(job);
        Metric::ALL
            .into_iter()
            .find_map(|metric| {
                let m = metric as usize;
                let (limit, source) = match qos.override_per_job[m] {
                    Some(v) => (v, Source::QosOverride),
                    None => (system.per_job[m]?, Source::Own),
                };
                let at = Test::new(Scope::PerJob, Level::Hard, Owner::System, source);
                at.breaks(metric, 0, amounts[m], limit)
            })
            .or_else(|| class_job_limits(tables, job))
    }

    /// Forgets the last selection's idle usage.
    pub(crate) fn begin_selection(&mut self) {
        self.idle.clear();
        self.soft_idle.clear();
    }

    /// Where `job` stands in this selection, taken in priority order: blocked by a hard
    /// active or idle limit (not eligible), or eligible (it joins the idle usage) and
    /// within its soft active and idle limits (it joins the soft level's idle usage too)
    /// or over one.
    pub(crate) fn judge(
        &mut self,
        tables: &CredTables,
        system: &Limits,
        job: &QueuedJob,
        now: Time,
    ) -> Verdict {
        let amounts = amounts(job);
        let hard = self
            .active_break(tables, system, job, &amounts, Level::Hard, now)
            .or_else(|| self.idle_break(tables, system, job, &amounts, Level::Hard));
        if let Some(b) = hard {
            return Verdict::Blocked(b);
        }
        if self.has_idle {
            self.idle.add(job, &amounts);
        }
        // The soft level counts its own idle usage: the jobs within every soft limit
        // (3.3.1's soft selection, `MQueueSelectAllJobs`).
        let soft = self
            .active_break(tables, system, job, &amounts, Level::Soft, now)
            .or_else(|| self.idle_break(tables, system, job, &amounts, Level::Soft));
        match soft {
            Some(b) => Verdict::SoftLimit(b),
            None => {
                if self.has_idle {
                    self.soft_idle.add(job, &amounts);
                }
                Verdict::Eligible
            }
        }
    }

    /// Maui 3.3.1's selection at `level` (MPolicy.c `MQueueSelectAllJobs`), taken in
    /// priority order: the first active or idle limit `job` breaks at `level`, or `None`
    /// and it joins that level's idle usage. Each level counts its own idle usage, so a
    /// job over a soft limit takes no soft idle slot. A job still holding the reservation
    /// of the last iteration passes the idle limits and is counted whatever it breaks
    /// (3.3.1 checks limits only for jobs without one).
    pub(crate) fn select_at(
        &mut self,
        tables: &CredTables,
        system: &Limits,
        job: &QueuedJob,
        level: Level,
        now: Time,
        holds_reservation: bool,
    ) -> Option<Blocked> {
        let amounts = amounts(job);
        let active = self.active_break(tables, system, job, &amounts, level, now);
        let broken = if holds_reservation {
            active
        } else {
            active.or_else(|| self.idle_break(tables, system, job, &amounts, level))
        };
        if self.has_idle && (broken.is_none() || holds_reservation) {
            match level {
                Level::Hard => self.idle.add(job, &amounts),
                Level::Soft => self.soft_idle.add(job, &amounts),
            }
        }
        broken
    }

    /// The first active limit starting `job` now would break at `level`.
    pub(crate) fn check_active(
        &self,
        tables: &CredTables,
        system: &Limits,
        job: &QueuedJob,
        level: Level,
        now: Time,
    ) -> Option<Blocked> {
        self.active_break(tables, system, job, &amounts(job), level, now)
    }

    fn active_break(
        &self,
        tables: &CredTables,
        system: &Limits,
        job: &QueuedJob,
        amounts: &[u64; Metric::COUNT],
        level: Level,
        now: Time,
    ) -> Option<Blocked> {
        let usage = |kind: CredKind, i: usize, metric| {
            self.active[kind.index()]
                .get(i)
                .map_or(0, |u| u.value(metric, now))
        };
        self.cred_break(
            tables,
            job,
            amounts,
            Scope::Active,
            level,
            &self.active_set,
            usage,
        )
        .or_else(|| {
            let at = Test::new(Scope::Active, level, Owner::System, Source::Own);
            Metric::ALL.into_iter().find_map(|metric| {
                let limit = system.active[metric as usize]?.at(level);
                let used = self.system_active.value(metric, now);
                at.breaks(metric, used, amounts[metric as usize], limit)
            })
        })
        .or_else(|| {
            if !self.has_pairs {
                return None;
            }
            pair_limits(tables, &job.creds)
                .into_iter()
                .find_map(|(owner, p, source)| {
                    let used = self.pairs.get(&owner).map_or(0, |u| u.value(p.metric, now));
                    let at = Test::new(Scope::Active, level, owner, source);
                    at.breaks(
                        p.metric,
                        used,
                        amounts[p.metric as usize],
                        p.limit.at(level),
                    )
                })
        })
    }

    fn idle_break(
        &self,
        tables: &CredTables,
        system: &Limits,
        job: &QueuedJob,
        amounts: &[u64; Metric::COUNT],
        level: Level,
    ) -> Option<Blocked> {
        if !self.has_idle {
            return None;
        }
        let idle = match level {
            Level::Hard => &self.idle,
            Level::Soft => &self.soft_idle,
        };
        let usage = |kind: CredKind, i: usize, metric: Metric| idle.get(kind, i, metric);
        self.cred_break(
            tables,
            job,
            amounts,
            Scope::Idle,
            level,
            &self.idle_set,
            usage,
        )
        .or_else(|| {
            let at = Test::new(Scope::Idle, level, Owner::System, Source::Own);
            Metric::ALL.into_iter().find_map(|metric| {
                let m = metric as usize;
                at.breaks(
                    metric,
                    idle.system[m],
                    amounts[m],
                    system.idle[m]?.at(level),
                )
            })
        })
    }

    /// The first limit at `scope` one of the job's own credentials breaks; `usage` gives
    /// a credential's current usage of a metric, `set` which metrics any object limits.
    #[allow(clippy::too_many_arguments)]
    fn cred_break(
        &self,
        tables: &CredTables,
        job: &QueuedJob,
        amounts: &[u64; Metric::COUNT],
        scope: Scope,
        level: Level,
        set: &[[bool; Metric::COUNT]; 5],
        usage: impl Fn(CredKind, usize, Metric) -> u64,
    ) -> Option<Blocked> {
        let qos = qos_limits(tables, &job.creds);
        for kind in CredKind::ALL {
            let id = job.creds.get(kind);
            let Some(i) = id.get() else { continue };
            let set = &set[kind.index()];
            if !set.contains(&true) {
                continue;
            }
            for metric in Metric::ALL.into_iter().filter(|m| set[*m as usize]) {
                let Some((limit, source)) = lookup(tables, qos, kind, id, scope, metric, level)
                else {
                    continue;
                };
                if source == Source::Default && self.skips_default_idle(tables, kind, id, scope) {
                    continue;
                }
                let at = Test::new(scope, level, Owner::Cred(kind, id), source);
                let found = at.breaks(
                    metric,
                    usage(kind, i, metric),
                    amounts[metric as usize],
                    limit,
                );
                if found.is_some() {
                    return found;
                }
            }
        }
        None
    }

    /// Whether 3.3.1 would not hold credential (`kind`, `id`) to its DEFAULT's idle limits:
    /// it is no user and its own object sets none.
    fn skips_default_idle(
        &self,
        tables: &CredTables,
        kind: CredKind,
        id: CredId,
        scope: Scope,
    ) -> bool {
        self.defaults_idle_need_own
            && scope == Scope::Idle
            && kind != CredKind::User
            && tables.own(kind, id).limits.idle.iter().all(Option::is_none)
    }

    /// When `blocked`, a block on an outstanding-time limit (MAXPS, MAXWC), lifts by time
    /// alone: the owner's running jobs' remaining processor-seconds (seconds) fall by their
    /// processors (their count) every second, so the job fits from that instant on unless
    /// an event comes first (a job's end, which is an iteration anyway). `None` for every
    /// other block.
    pub(crate) fn lifts_at(&self, blocked: &Blocked, now: Time) -> Option<Time> {
        if blocked.scope != Scope::Active || !matches!(blocked.metric, Metric::Ps | Metric::Wc) {
            return None;
        }
        let usage = match blocked.owner {
            Owner::Cred(kind, id) => self.active[kind.index()].get(id.get()?)?,
            Owner::System => &self.system_active,
            Owner::Pair(..) => self.pairs.get(&blocked.owner)?,
        };
        let rate = match blocked.metric {
            Metric::Ps => usage.ps_procs,
            _ => usage.wc_jobs,
        };
        let over = (blocked.usage + blocked.amount).checked_sub(blocked.limit)?;
        if rate == 0 || over == 0 || blocked.amount > blocked.limit {
            return None;
        }
        Some(now.saturating_add(over.div_ceil(rate) as Time))
    }

    /// The first hard active limit the usage now breaks for one of `job`'s credentials
    /// (its QOS overrides apply): after `job` started, nothing of it may be over (`--check`).
    /// A credential may be over its own limit when a running job of it had a QOS override
    /// of that limit (guide 6.2.2: the override supersedes the credential's limit), so such
    /// a break is not one.
    pub(crate) fn over_hard_limit(
        &self,
        tables: &CredTables,
        system: &Limits,
        job: &QueuedJob,
        now: Time,
    ) -> Option<Blocked> {
        let nothing = [0; Metric::COUNT];
        let found = self.active_break(tables, system, job, &nothing, Level::Hard, now)?;
        let Owner::Cred(kind, id) = found.owner else {
            return Some(found);
        };
        let overridden = self.running.values().any(|charge| {
            let creds = &charge.job;
            let qos = qos_limits(tables, creds);
            let limit = lookup(
                tables,
                qos,
                kind,
                id,
                Scope::Active,
                found.metric,
                Level::Hard,
            );
            creds.get(kind) == id && matches!(limit, Some((_, Source::QosOverride)))
        });
        (!overridden).then_some(found)
    }

    /// Whether the active usage equals a recount from the running jobs (`--check`); the
    /// first difference otherwise.
    pub(crate) fn verify_usage(&self, tables: &CredTables) -> Result<(), String> {
        let mut recount = Throttle {
            active: Default::default(),
            system_active: Usage::default(),
            pairs: HashMap::new(),
            running: HashMap::new(),
            ..self.clone()
        };
        for charge in self.running.values() {
            recount.for_each_owner(tables, &charge.job, |u| u.add(charge, 1));
        }
        for kind in CredKind::ALL {
            let (kept, counted) = (&self.active[kind.index()], &recount.active[kind.index()]);
            for i in 0..kept.len().max(counted.len()) {
                let a = kept.get(i).copied().unwrap_or_default();
                let b = counted.get(i).copied().unwrap_or_default();
                if a != b {
                    return Err(format!(
                        "{} {i}: active usage {a:?}, recount from the running jobs {b:?}",
                        kind.label()
                    ));
                }
            }
        }
        if self.system_active != recount.system_active {
            return Err(format!(
                "system: active usage {:?}, recount {:?}",
                self.system_active, recount.system_active
            ));
        }
        let mut pairs: Vec<_> = self.pairs.iter().collect();
        pairs.sort_unstable_by_key(|(owner, _)| **owner);
        for (owner, usage) in pairs {
            let counted = recount.pairs.get(owner).copied().unwrap_or_default();
            if *usage != counted {
                return Err(format!(
                    "{owner:?}: active usage {usage:?}, recount {counted:?}"
                ));
            }
        }
        if recount.pairs.keys().any(|o| !self.pairs.contains_key(o)) {
            return Err("a credential pair has running jobs but no active usage".into());
        }
        Ok(())
    }

    /// `job` started at `now`: its resources count against every credential until it ends.
    pub(crate) fn charge(&mut self, tables: &CredTables, job: &QueuedJob, now: Time) {
        let a = amounts(job);
        let charge = Charge {
            job: job.creds,
            procs: a[Metric::Proc as usize],
            nodes: a[Metric::Node as usize],
            pe: a[Metric::Pe as usize],
            mem: a[Metric::Mem as usize],
            end: now + job.wcl,
            counts_remaining: true,
        };
        self.apply(tables, &charge, 1);
        self.running.insert(job.idx, charge);
    }

    /// Forgets the active usage, keeping the running jobs: Maui 3.3.1's hard selection
    /// counts them again one by one ([`Self::count_again`]) as it meets them in priority
    /// order.
    pub(crate) fn forget_active(&mut self) {
        for table in &mut self.active {
            table.iter_mut().for_each(|u| *u = Usage::default());
        }
        self.system_active = Usage::default();
        self.pairs.clear();
    }

    /// Counts running `job` again after [`Self::forget_active`]. The usage it rebuilds is
    /// the one it had, so no usage is noted as moved.
    pub(crate) fn count_again(&mut self, tables: &CredTables, job: JobIdx) {
        if let Some(charge) = self.running.get(&job).copied() {
            let (changed, system_changed) = (self.changed.len(), self.system_changed);
            self.apply(tables, &charge, 1);
            self.changed.truncate(changed);
            self.system_changed = system_changed;
        }
    }

    /// Whether some credential of `kind` has an active limit (its own, its DEFAULT's or a
    /// QOS override).
    pub(crate) fn limits_active(&self, kind: CredKind) -> bool {
        self.active_set[kind.index()].contains(&true)
    }

    /// The job ended: it no longer counts.
    pub(crate) fn discharge(&mut self, tables: &CredTables, job: JobIdx) {
        if let Some(charge) = self.running.remove(&job) {
            self.apply(tables, &charge, -1);
        }
    }

    /// The job ran past its wallclock end: nothing of it remains to count in PS and WC.
    pub(crate) fn passed_limit(&mut self, tables: &CredTables, job: JobIdx) {
        let Some(mut charge) = self.running.get(&job).copied() else {
            return;
        };
        if !charge.counts_remaining {
            return;
        }
        self.for_each_owner(tables, &charge.job, |u| u.add_remaining(&charge, -1));
        charge.counts_remaining = false;
        self.running.insert(job, charge);
    }

    fn apply(&mut self, tables: &CredTables, charge: &Charge, sign: i64) {
        self.for_each_owner(tables, &charge.job, |u| u.add(charge, sign));
    }

    fn for_each_owner(
        &mut self,
        tables: &CredTables,
        creds: &QueuedJobCreds,
        mut f: impl FnMut(&mut Usage),
    ) {
        for kind in CredKind::ALL {
            let Some(i) = creds.get(kind).get() else {
                continue;
            };
            let table = &mut self.active[kind.index()];
            if table.len() <= i {
                table.resize(i + 1, Usage::default());
            }
            f(&mut table[i]);
            self.changed.push((kind.index(), i));
        }
        f(&mut self.system_active);
        self.system_changed = true;
        if self.has_pairs {
            let mut owners: Vec<Owner> = pair_limits(tables, creds)
                .into_iter()
                .map(|(owner, _, _)| owner)
                .collect();
            owners.sort_unstable();
            owners.dedup();
            for owner in owners {
                let usage = self.pairs.entry(owner).or_default();
                f(usage);
                if *usage == Usage::default() {
                    self.pairs.remove(&owner);
                }
            }
        }
    }
}

/// The per-credential limits that apply to a job with `creds`, each with its owner
/// (the pair of credentials whose usage it compares). A credential without its own
/// per-credential limits takes its kind's DEFAULT ones. A pair owner is counted once even
/// when two limits (say MAXJOB[USER] and MAXPROC[USER]) share it.
fn pair_limits(tables: &CredTables, creds: &QueuedJobCreds) -> Vec<(Owner, PerCredLimit, Source)> {
    let mut out: Vec<(Owner, PerCredLimit, Source)> = Vec::new();
    for kind in CredKind::ALL {
        let id = creds.get(kind);
        if id.get().is_none() {
            continue;
        }
        let own = &tables.own(kind, id).limits.per_cred;
        let (list, source) = if own.is_empty() {
            (&tables.default_of(kind).limits.per_cred, Source::Default)
        } else {
            (own, Source::Own)
        };
        for p in list {
            let other = creds.get(p.kind);
            if other.get().is_none() || p.id.is_some_and(|want| want != other) {
                continue;
            }
            out.push((Owner::Pair(kind, id, p.kind, other), *p, source));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The system may run 4 processors (hard), users have no limit of their own.
    fn system() -> Limits {
        let mut l = Limits::NONE;
        l.active[Metric::Proc as usize] = Some(LimitPair { soft: 4, hard: 4 });
        l
    }

    fn job(idx: u32, user: u32, procs: u64) -> QueuedJob {
        let mut j = QueuedJob::new(JobIdx(idx), u64::from(idx), 0, procs, 100);
        j.creds.set(CredKind::User, CredId(user));
        j
    }

    use crate::limits::LimitPair;

    #[test]
    fn usage_is_a_recount_of_the_running_jobs() {
        let tables = CredTables::default();
        let mut t = Throttle::new(&tables, &system()).unwrap();
        t.charge(&tables, &job(0, 0, 2), 0);
        t.charge(&tables, &job(1, 3, 1), 0);
        t.passed_limit(&tables, JobIdx(1));
        assert_eq!(t.verify_usage(&tables), Ok(()));
        t.discharge(&tables, JobIdx(0));
        assert_eq!(t.verify_usage(&tables), Ok(()));
        // Books that drift from the running jobs are caught.
        t.active[CredKind::User.index()][3].procs += 1;
        let e = t.verify_usage(&tables).unwrap_err();
        assert!(e.starts_with("user 3: active usage"), "{e}");
        t.active[CredKind::User.index()][3].procs -= 1;
        t.system_active.jobs += 1;
        assert!(t.verify_usage(&tables).unwrap_err().starts_with("system"));
    }

    #[test]
    fn a_started_job_over_a_hard_limit_is_found() {
        let tables = CredTables::default();
        let limits = system();
        let mut t = Throttle::new(&tables, &limits).unwrap();
        let (a, b) = (job(0, 0, 3), job(1, 1, 1));
        t.charge(&tables, &a, 0);
        t.charge(&tables, &b, 0);
        assert_eq!(t.over_hard_limit(&tables, &limits, &b, 0), None, "4 of 4");
        // Charged without asking, as a broken scheduler would: 5 of 4.
        let c = job(2, 2, 1);
        t.charge(&tables, &c, 0);
        let over = t.over_hard_limit(&tables, &limits, &c, 0).unwrap();
        assert_eq!((over.usage, over.limit, over.owner), (5, 4, Owner::System));
    }
}
