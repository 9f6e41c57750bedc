//! Throttling limits (guide 6.2, MAUI-SEMANTICS §3): what the config sets.
//!
//! A limit is on one [`Metric`] of one credential (or the whole system), at one scope:
//! active (running jobs), idle (eligible queued jobs) or per job. Active limits have a
//! soft and a hard value. A limit of 0 means "no limit", as in Maui; a limit that is not
//! set at all falls back to the kind's DEFAULT object.

use crate::cred::{CredId, CredKind};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

/// What a limit counts. Per job: JOB 1, PROC processors, NODE nodes, PS processors ×
/// seconds, PE processor equivalents, WC seconds, MEM megabytes. For running jobs PS and
/// WC count the *remaining* time to the wallclock limit, so they shrink as jobs run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Metric {
    Job,
    Proc,
    Node,
    Ps,
    Pe,
    Wc,
    Mem,
}

impl Metric {
    pub const COUNT: usize = 7;
    pub const ALL: [Metric; Metric::COUNT] = [
        Metric::Job,
        Metric::Proc,
        Metric::Node,
        Metric::Ps,
        Metric::Pe,
        Metric::Wc,
        Metric::Mem,
    ];

    /// The suffix of the limit's name: `MAX` + this (`MAXJOB`, `MAXIPROC`, `OMAXNODE`).
    pub fn suffix(self) -> &'static str {
        match self {
            Metric::Job => "JOB",
            Metric::Proc => "PROC",
            Metric::Node => "NODE",
            Metric::Ps => "PS",
            Metric::Pe => "PE",
            Metric::Wc => "WC",
            Metric::Mem => "MEM",
        }
    }

    pub fn from_suffix(text: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.suffix() == text)
    }
}

/// Which list of jobs a limit constrains.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// Running jobs (`MAX*`).
    Active,
    /// Eligible idle jobs (`MAXI*`): only a hard value.
    Idle,
    /// One job on its own (SYSTEMMAX*PERJOB, QOS `OMAXJ*`): a job over it is held.
    PerJob,
    /// A fairshare cap `FSTARGET=n^`: decayed proc-seconds.
    FsCap,
    /// A fairshare cap `FSTARGET=n%`: a share of the delivered proc-seconds, expressed
    /// in proc-seconds at the instant it is checked.
    FsRelativeCap,
    /// REJECTNEGPRIOJOBS: the job's priority is below 0 (`amount` is its distance below).
    NegativePriority,
}

impl Scope {
    /// The limit's name for `metric`: `MAXPROC`, `MAXIPROC`, `MAXJPROC`, `FSTARGET^`.
    pub fn limit_name(self, metric: Metric) -> String {
        let infix = match self {
            Scope::Active => "",
            Scope::Idle => "I",
            Scope::PerJob => "J",
            Scope::FsCap => return "FSTARGET^".into(),
            Scope::FsRelativeCap => return "FSTARGET%".into(),
            Scope::NegativePriority => return "REJECTNEGPRIOJOBS".into(),
        };
        format!("MAX{infix}{}", metric.suffix())
    }
}

/// Soft and hard values of a limit (`MAXJOB=2,4`). 0 = no limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LimitPair {
    pub soft: u64,
    pub hard: u64,
}

impl LimitPair {
    pub fn both(value: u64) -> Self {
        LimitPair {
            soft: value,
            hard: value,
        }
    }

    pub(crate) fn at(self, level: Level) -> u64 {
        match level {
            Level::Soft => self.soft,
            Level::Hard => self.hard,
        }
    }
}

impl Serialize for LimitPair {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.soft == self.hard {
            s.serialize_u64(self.hard)
        } else {
            [self.soft, self.hard].serialize(s)
        }
    }
}

/// Which value of an active limit applies: the soft one in the first pass of an
/// iteration, the hard one in the second (guide 6.2.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    Soft,
    Hard,
}

/// A limit per value of another credential kind, inside one credential:
/// `CLASSCFG[batch] MAXJOB[USER]=2` (every user within the class, `id` = None),
/// `MAXPROC[USER:steve]=3` (only steve), `MAXJOBPERUSER=2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PerCredLimit {
    pub metric: Metric,
    pub kind: CredKind,
    pub id: Option<CredId>,
    pub limit: LimitPair,
}

/// The limits one `*CFG` object (or SYSTEMCFG) sets. `None` = not set here.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Limits {
    pub active: [Option<LimitPair>; Metric::COUNT],
    /// Idle limits (`MAXIJOB=2,4`): the soft value holds in the first pass's selection.
    pub idle: [Option<LimitPair>; Metric::COUNT],
    /// Per-job limits: SYSTEMMAXPROCPERJOB & co. on the system object.
    pub per_job: [Option<u64>; Metric::COUNT],
    /// QOS override limits: `OMAX*`, `OMAXI*`, `OMAXJ*`. For a job of this QOS they replace
    /// the limit of that type for every credential of the job.
    pub override_active: [Option<LimitPair>; Metric::COUNT],
    pub override_idle: [Option<LimitPair>; Metric::COUNT],
    pub override_per_job: [Option<u64>; Metric::COUNT],
    pub per_cred: Vec<PerCredLimit>,
}

impl Limits {
    pub const NONE: Limits = Limits {
        active: [None; Metric::COUNT],
        idle: [None; Metric::COUNT],
        per_job: [None; Metric::COUNT],
        override_active: [None; Metric::COUNT],
        override_idle: [None; Metric::COUNT],
        override_per_job: [None; Metric::COUNT],
        per_cred: Vec::new(),
    };

    pub(crate) fn is_empty(&self) -> bool {
        *self == Limits::NONE
    }

    /// Drops every limit on `metric` (of every scope, own and override).
    pub(crate) fn drop_metric(&mut self, metric: Metric) {
        let m = metric as usize;
        self.active[m] = None;
        self.idle[m] = None;
        self.per_job[m] = None;
        self.override_active[m] = None;
        self.override_idle[m] = None;
        self.override_per_job[m] = None;
        self.per_cred.retain(|p| p.metric != metric);
    }
}

impl Serialize for Limits {
    /// As maui.cfg names them: `{"MAXJOB": [2, 4], "MAXIJOB": 3, "OMAXNODE": 64}`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        entries(&mut map, "", Scope::Active, &self.active)?;
        entries(&mut map, "O", Scope::Active, &self.override_active)?;
        entries(&mut map, "", Scope::Idle, &self.idle)?;
        entries(&mut map, "", Scope::PerJob, &self.per_job)?;
        entries(&mut map, "O", Scope::Idle, &self.override_idle)?;
        entries(&mut map, "O", Scope::PerJob, &self.override_per_job)?;
        for p in &self.per_cred {
            let who = match p.id {
                Some(id) => format!("{}:{}", p.kind.label().to_uppercase(), id.0),
                None => p.kind.label().to_uppercase(),
            };
            let name = format!("{}[{who}]", Scope::Active.limit_name(p.metric));
            map.serialize_entry(&name, &p.limit)?;
        }
        map.end()
    }
}

/// The limits of one table that are set, each under its maui.cfg name.
fn entries<M: SerializeMap, T: Serialize>(
    map: &mut M,
    prefix: &str,
    scope: Scope,
    table: &[Option<T>],
) -> Result<(), M::Error> {
    for (m, v) in Metric::ALL.iter().zip(table) {
        if let Some(v) = v {
            map.serialize_entry(&format!("{prefix}{}", scope.limit_name(*m)), v)?;
        }
    }
    Ok(())
}

/// Whose usage a limit compares against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Owner {
    Cred(CredKind, CredId),
    /// SYSTEMCFG: every job.
    System,
    /// A per-credential limit inside a credential: `(class c, user u)`.
    Pair(CredKind, CredId, CredKind, CredId),
}

/// Where the value of a limit came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Source {
    /// The credential's own object (or SYSTEMCFG / a SYSTEMMAX* parameter).
    Own,
    /// The kind's DEFAULT object.
    Default,
    /// The job's QOS override (`OMAX*`).
    QosOverride,
    /// The machine itself: no set of its nodes can ever hold the job.
    Machine(Shortfall),
}

/// What the machine lacks for a job it can never run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Shortfall {
    /// Processors (on the nodes that satisfy the job).
    Procs,
    /// Processors per task: no node has that many.
    TaskProcs,
    /// Memory, swap or disk per task: no node has that much.
    Mem,
    Swap,
    Disk,
    /// No node has every feature the job requires (in its partition).
    Features,
    /// It never fits between the windows of the standing reservations it may not use.
    StandingWindows,
    /// No partition it may use (PLIST) can hold it: `usage` is its partition access
    /// list, a bit per partition index.
    Partitions,
    /// No node set can hold all its tasks, where node sets are mandatory.
    NodeSets,
    /// The nodes' start limits (MAXJOBPERUSER, MAXPROCPERUSER, MAXPROC) let fewer of its
    /// tasks start together than it has, even with nothing running.
    StartLimits,
}

/// The first limit a job breaks: enough to say exactly why it may not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Blocked {
    pub scope: Scope,
    pub level: Level,
    pub owner: Owner,
    pub metric: Metric,
    pub source: Source,
    /// The owner's usage before this job (idle/active), 0 for per-job limits.
    pub usage: u64,
    /// What the job would add.
    pub amount: u64,
    pub limit: u64,
}

/// A counter key of limit blocks: the limit's kind, not the credential's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LimitKind {
    pub scope: Scope,
    pub level: Level,
    /// `None` for the system.
    pub kind: Option<CredKind>,
    /// The other kind of a per-credential limit.
    pub per: Option<CredKind>,
    pub metric: Metric,
}

impl Blocked {
    pub(crate) fn kind(&self) -> LimitKind {
        let (kind, per) = match self.owner {
            Owner::Cred(k, _) => (Some(k), None),
            Owner::System => (None, None),
            Owner::Pair(k, _, p, _) => (Some(k), Some(p)),
        };
        LimitKind {
            scope: self.scope,
            level: self.level,
            kind,
            per,
            metric: self.metric,
        }
    }
}

impl LimitKind {
    /// `user MAXJOB`, `class MAXJOB[USER]`, `system MAXJPROC`, `user MAXJOB (soft)`,
    /// `user MAXIJOB (soft)`.
    pub fn label(&self) -> String {
        let who = self.kind.map_or("system", CredKind::label);
        let mut name = self.scope.limit_name(self.metric);
        if let Some(per) = self.per {
            name = format!("{name}[{}]", per.label().to_uppercase());
        }
        let counted = matches!(self.scope, Scope::Active | Scope::Idle);
        let soft = if counted && self.level == Level::Soft {
            " (soft)"
        } else {
            ""
        };
        format!("{who} {name}{soft}")
    }
}
