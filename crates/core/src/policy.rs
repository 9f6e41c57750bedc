//! Policy parameters of one scheduler instance (the meaning of maui.cfg, already validated).

use crate::cred::{CredId, CredKind};
use crate::cred_settings::CredTables;
use crate::fairshare::FsConfig;
use crate::job::QueuedJob;
use crate::limits::Limits;
use crate::priority::PriorityConfig;
use crate::Time;
use serde::Serialize;

/// Serializes a keyword enum as its parameter value (`name()`), so that each value is
/// written in one place.
macro_rules! serialize_by_name {
    ($($kind:ty),*) => {$(
        impl Serialize for $kind {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }
    )*};
}

serialize_by_name!(BackfillPolicy, BackfillMetric, ReservationPolicy, Semantics);

/// Whose reading of the policy an iteration follows where the guide leaves room.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Semantics {
    /// Maui 3.3.1 as it runs (its source and simulation mode), except where it is broken
    /// against the guide (GREEDY that backfills nothing): the priority pass goes on
    /// starting every job that fits around the reservations until a blocked job finds no
    /// reservation left; backfill then works window by window, widest first; nodes are
    /// taken as 3.3.1 orders them and reservations hold specific nodes.
    #[default]
    Maui,
    /// Maui 3.3.1 with its defects too, to reproduce a site's Maui exactly: GREEDY starts
    /// nothing in backfill, chunking counts only jobs a window can hold, and a group,
    /// account, QOS or class is held to its DEFAULT's idle limits only if it sets one itself.
    Maui331,
    /// The research simulators' EASY reading (pyss, Alea, Batsim): after the priority
    /// pass reserves, FIRSTFIT backfills in priority order, nodes in table order.
    ResearchEasy,
}

impl Semantics {
    pub const ALL: [Semantics; 3] = [Semantics::Maui, Semantics::Maui331, Semantics::ResearchEasy];

    /// The `--semantics` value that selects it.
    pub fn name(self) -> &'static str {
        match self {
            Semantics::Maui => "maui",
            Semantics::Maui331 => "maui-3.3.1",
            Semantics::ResearchEasy => "research-easy",
        }
    }

    /// Whether iterations follow Maui 3.3.1's passes and node order.
    pub fn is_maui(self) -> bool {
        self != Semantics::ResearchEasy
    }
}

/// BACKFILLPOLICY.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackfillPolicy {
    /// Jobs below the blocked ones start in priority order wherever they fit without
    /// touching a reservation.
    FirstFit,
    /// In each backfill window, widest first: repeatedly the candidate with the best
    /// BACKFILLMETRIC that still fits.
    BestFit,
    /// In each backfill window: the combination of candidates with the largest summed
    /// BACKFILLMETRIC found within BACKFILLMAXSCHEDULES combinations tried.
    Greedy,
    /// Strict priority: nothing below the first blocked job starts.
    None,
}

impl BackfillPolicy {
    pub const ALL: [BackfillPolicy; 4] = [
        BackfillPolicy::FirstFit,
        BackfillPolicy::BestFit,
        BackfillPolicy::Greedy,
        BackfillPolicy::None,
    ];

    /// The parameter value that selects this policy.
    pub fn name(self) -> &'static str {
        match self {
            BackfillPolicy::FirstFit => "FIRSTFIT",
            BackfillPolicy::BestFit => "BESTFIT",
            BackfillPolicy::Greedy => "GREEDY",
            BackfillPolicy::None => "NONE",
        }
    }
}

/// BACKFILLMETRIC (alias SCHEDULINGCRITERIA): a backfill candidate's degree of fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackfillMetric {
    Procs,
    ProcSeconds,
    Seconds,
    Nodes,
    Pe,
    PeSeconds,
}

impl BackfillMetric {
    pub const ALL: [BackfillMetric; 6] = [
        BackfillMetric::Procs,
        BackfillMetric::ProcSeconds,
        BackfillMetric::Seconds,
        BackfillMetric::Nodes,
        BackfillMetric::Pe,
        BackfillMetric::PeSeconds,
    ];

    /// The parameter value that selects this metric.
    pub fn name(self) -> &'static str {
        match self {
            BackfillMetric::Procs => "PROCS",
            BackfillMetric::ProcSeconds => "PROCSECONDS",
            BackfillMetric::Seconds => "SECONDS",
            BackfillMetric::Nodes => "NODES",
            BackfillMetric::Pe => "PE",
            BackfillMetric::PeSeconds => "PESECONDS",
        }
    }

    /// The job's value under this metric (larger is a better fit).
    pub(crate) fn of(self, job: &QueuedJob) -> f64 {
        let seconds = job.wcl as f64;
        match self {
            BackfillMetric::Procs => job.procs as f64,
            BackfillMetric::ProcSeconds => job.procs as f64 * seconds,
            BackfillMetric::Seconds => seconds,
            BackfillMetric::Nodes => job.resources.nodes as f64,
            BackfillMetric::Pe => job.resources.pe,
            BackfillMetric::PeSeconds => job.resources.pe * seconds,
        }
    }
}

/// RESERVATIONPOLICY.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReservationPolicy {
    /// Every iteration, reservations go to the current highest-priority blocked jobs.
    CurrentHighest,
    /// A job that once received a reservation keeps one until it starts, placed before
    /// any newer reservation, so it never moves later.
    Highest,
    /// No priority reservations: backfill is unprotected.
    Never,
}

impl ReservationPolicy {
    pub const ALL: [ReservationPolicy; 3] = [
        ReservationPolicy::CurrentHighest,
        ReservationPolicy::Highest,
        ReservationPolicy::Never,
    ];

    /// The parameter value that selects this policy.
    pub fn name(self) -> &'static str {
        match self {
            ReservationPolicy::CurrentHighest => "CURRENTHIGHEST",
            ReservationPolicy::Highest => "HIGHEST",
            ReservationPolicy::Never => "NEVER",
        }
    }
}

/// RESERVATIONTHRESHOLDTYPE with its RESERVATIONTHRESHOLDVALUE: what a blocked job must
/// reach before it may be reserved.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "type", content = "value", rename_all = "UPPERCASE")]
pub enum ReservationThreshold {
    None,
    /// Times bypassed by backfill.
    Bypass(f64),
    /// Effective queue time, seconds.
    QueueTime(f64),
    /// Expansion factor as the priority computes it (XFMINWCLIMIT applies).
    XFactor(f64),
}

/// `RESERVATIONDEPTH[i]` with `RESERVATIONQOSLIST[i]`: how many reservations the jobs of
/// some QOS levels may hold at once.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReservationGroup {
    pub depth: u32,
    /// The QOS ids in the group; `None` = ALL.
    #[serde(skip)]
    pub qos: Option<Vec<CredId>>,
}

impl ReservationGroup {
    pub fn all(depth: u32) -> Self {
        ReservationGroup { depth, qos: None }
    }

    pub(crate) fn holds(&self, qos: CredId) -> bool {
        self.qos.as_ref().is_none_or(|list| list.contains(&qos))
    }
}

/// BFCHUNKSIZE and BFCHUNKDURATION (FIRSTFIT only): after a completion, processors are
/// kept for jobs of at least `size` processors for `duration`, once such a job is blocked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Chunking {
    /// Processors; 0 = off.
    pub size: u64,
    pub duration: Time,
}

impl Chunking {
    pub(crate) fn is_on(&self) -> bool {
        self.size > 0 && self.duration > 0
    }
}

/// Everything that shapes a scheduling iteration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PolicyConfig {
    pub backfill: BackfillPolicy,
    /// BACKFILLMETRIC: how BESTFIT and GREEDY rank candidates.
    pub backfill_metric: BackfillMetric,
    /// BACKFILLDEPTH: only the first this many backfill candidates in priority order are
    /// considered; 0 = all.
    pub backfill_depth: u32,
    /// BACKFILLMAXSCHEDULES: combinations GREEDY may try per window.
    pub backfill_max_schedules: u64,
    pub chunking: Chunking,
    pub reservation_policy: ReservationPolicy,
    /// RESERVATIONDEPTH[i] / RESERVATIONQOSLIST[i]; a job uses the first group holding its
    /// QOS, and none if no group does.
    pub reservation_groups: Vec<ReservationGroup>,
    pub reservation_threshold: ReservationThreshold,
    pub priority: PriorityConfig,
    /// FSPOLICY, FSINTERVAL, FSDEPTH, FSDECAY (targets are in `creds`).
    pub fairshare: FsConfig,
    /// `*CFG` credential objects by id (the caller shows them by name).
    #[serde(skip)]
    pub creds: CredTables,
    /// SYSTEMCFG limits (every job together) and SYSTEMMAX*PERJOB (each job alone).
    #[serde(skip_serializing_if = "Limits::is_empty")]
    pub system_limits: Limits,
    pub semantics: Semantics,
    /// PREEMPTPOLICY: what becomes of a job a PREEMPTOR job preempts.
    pub preemption: Preemption,
    /// Maui 3.3.1's partitions, when the config names any (PLIST, PDEF, NODECFG
    /// PARTITION=) under Maui semantics.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partitions: Option<crate::partition::Partitions>,
}

/// PREEMPTPOLICY, as Maui 3.3.1's simulation carries it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Preemption {
    /// REQUEUE (the default): the victim goes back to the idle queue at once, its queue
    /// time counting anew from the preemption, and later runs its whole runtime again.
    #[default]
    Requeue,
    /// SUSPEND: the victim keeps its start and its runtime's clock stops; it resumes, before
    /// anything else is scheduled, once its own nodes are free again (at least 10 s later,
    /// 3.3.1's MDEF_MINSUSPENDTIME).
    Suspend,
    /// No job is ever preempted: CHECKPOINT (which 3.3.1's simulation cannot carry out)
    /// or a value 3.3.1 does not know.
    Never,
}

impl Default for PolicyConfig {
    /// Maui's defaults: FIRSTFIT, RESERVATIONDEPTH 1, priority by queue time.
    fn default() -> Self {
        PolicyConfig {
            backfill: BackfillPolicy::FirstFit,
            backfill_metric: BackfillMetric::Procs,
            backfill_depth: 0,
            backfill_max_schedules: 10_000,
            chunking: Chunking::default(),
            reservation_policy: ReservationPolicy::CurrentHighest,
            reservation_groups: vec![ReservationGroup::all(1)],
            reservation_threshold: ReservationThreshold::None,
            priority: PriorityConfig::default(),
            fairshare: FsConfig::default(),
            creds: CredTables::default(),
            system_limits: Limits::NONE,
            semantics: Semantics::default(),
            preemption: Preemption::default(),
            partitions: None,
        }
    }
}

impl PolicyConfig {
    /// The defaults with another backfill policy and a single RESERVATIONDEPTH for all.
    pub fn with_backfill(backfill: BackfillPolicy, depth: u32) -> Self {
        PolicyConfig {
            backfill,
            reservation_groups: vec![ReservationGroup::all(depth)],
            ..PolicyConfig::default()
        }
    }

    /// The summed RESERVATIONDEPTH over all groups.
    pub fn reservation_depth(&self) -> u64 {
        self.reservation_groups
            .iter()
            .map(|g| u64::from(g.depth))
            .sum()
    }

    /// True when the priority order is the queue order (see
    /// [`PriorityConfig::is_queue_order`]) for every job that has no system priority and
    /// whose queue time accrued from submission.
    pub(crate) fn priority_is_queue_order(&self) -> bool {
        let settings_of = |kind: CredKind| {
            let k = kind.index();
            self.creds.settings[k]
                .iter()
                .chain([&self.creds.defaults[k]])
        };
        let qos_neutral =
            settings_of(CredKind::Qos).all(|s| s.qt_weight == 0.0 && s.xf_weight == 0.0);
        // A group's CLASSWEIGHT replaces the global one for its jobs, so CLASS priorities
        // count for them even where CLASSWEIGHT is 0.
        let no_group_class_weight =
            settings_of(CredKind::Group).all(|s| s.class_weight.is_none_or(|w| w <= 0.0));
        self.priority
            .is_queue_order(qos_neutral && no_group_class_weight)
    }
}
