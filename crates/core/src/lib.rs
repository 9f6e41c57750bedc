//! mauisim-core: the Maui scheduling policy, as pure functions of state.
//!
//! The core does no I/O, reads no clock and knows nothing of traces or the simulator:
//! callers hand it `now`, the idle queue and news of ended jobs; it answers with
//! decisions (start, reserve). Time is integer seconds throughout.

mod backfill;
mod check;
mod cred;
mod cred_settings;
mod fairshare;
mod fit_index;
mod job;
mod limits;
mod machine;
mod node;
mod partition;
mod policy;
mod priority;
mod priority_order;
mod priorityf;
mod profile;
mod queue;
mod scheduler;
mod slots;
mod standing;
mod throttle;

/// Seconds. Integer everywhere: no floating-point clock.
pub type Time = i64;

pub use check::{Rule, Violation};
pub use cred::{CredId, CredKind, JobCreds};
pub use cred_settings::{CredSettings, CredTables, FsTarget, ResolvedCreds, TargetKind};
pub use fairshare::{
    Fairshare, FsConfig, FsDeltaSource, FsDeltas, FsMetric, FsWindow, Standing,
    MAX_DEPTH as FS_MAX_DEPTH,
};
pub use job::{JobIdx, QueuedJob, Resources};
pub use limits::{
    Blocked, Level, LimitKind, LimitPair, Limits, Metric, Owner, PerCredLimit, Scope, Shortfall,
    Source,
};
pub use machine::{Allocation, HeldId, Machine, Unfit};
pub use node::{
    maui_memory_tier, AllocationPolicy, FeatureMask, MachineSpec, NodeAccess, NodeAllocator,
    NodeCandidate, NodeSetPolicy, NodeSetPriority, NodeSets, NodeSpec, NodeTuning, Request, Res,
    StartLimits,
};
pub use partition::{
    Access, ListKind, PartitionList, Partitions, DEFAULT_PARTITION, PARTITION_SLOTS,
};
pub use policy::{
    BackfillMetric, BackfillPolicy, Chunking, PolicyConfig, Preemption, ReservationGroup,
    ReservationPolicy, ReservationThreshold, Semantics,
};
pub use priority::{AccrualPolicy, Breakdown, Component, PriorityConfig, Sub};
pub use priorityf::{NodeVar, PriorityFn, PriorityFnError};
pub use profile::{Profile, Window, FOREVER};
pub use queue::Queue;
pub use scheduler::{Decisions, Preempted, Reservation, Scheduler, Start};
pub use standing::{
    Recurrence, StandingAccess, StandingReservation, TimeEntry, DAY, EVERY_DAY, MAX_STANDING, WEEK,
};
pub use throttle::Verdict;
