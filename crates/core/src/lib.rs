//! mauisim-core: the Maui scheduling policy, as pure functions of state.
//!
//! The core does no I/O, reads no clock and knows nothing of traces or the simulator:
//! callers hand it `now`, the idle queue and news of ended jobs; it answers with
//! decisions (start, reserve). Time is integer seconds throughout.

pub mod backfill;
pub mod check;
pub mod cred;
pub mod fairshare;
pub mod job;
pub mod limits;
pub mod machine;
pub mod node;
pub mod policy;
pub mod priority;
pub mod priorityf;
pub mod profile;
pub mod scheduler;
pub mod slots;
pub mod throttle;

/// Seconds. Integer everywhere: no floating-point clock.
pub type Time = i64;

pub use check::{Rule, Violation};
pub use cred::{CredId, CredKind, CredSettings, CredTables, JobCreds, ResolvedCreds};
pub use fairshare::{
    Fairshare, FsConfig, FsDeltaSource, FsDeltas, FsMetric, FsTarget, FsWindow, Standing,
    TargetKind,
};
pub use job::{JobIdx, QueuedJob, Resources};
pub use limits::{
    Blocked, Level, LimitKind, LimitPair, Limits, Metric, Owner, PerCredLimit, Scope, Shortfall,
    Source,
};
pub use machine::{Allocation, HeldId, Machine, Unfit};
pub use node::{
    AllocationPolicy, FeatureMask, MachineSpec, NodeAccess, NodeAllocator, NodeCandidate, NodeSpec,
    Request, Res,
};
pub use policy::{
    BackfillMetric, BackfillPolicy, Chunking, PolicyConfig, ReservationGroup, ReservationPolicy,
    ReservationThreshold,
};
pub use priority::{AccrualPolicy, Breakdown, Component, PriorityConfig, Sub};
pub use priorityf::{NodeVar, PriorityFn, PriorityFnError};
pub use profile::{Profile, Window, FOREVER};
pub use scheduler::{Decisions, Reservation, Scheduler, Start};
pub use throttle::Verdict;
