//! mauisim-sweep: many runs of one workload.
//!
//! A sweep is the cartesian product of config parameters, run options and seeds
//! ([`grid`]); it is read and checked in full before any run starts ([`plan`]), runs in
//! parallel with each finished run stored at once so that an interrupted sweep resumes
//! ([`exec`], [`store`]), can be cut into shards run anywhere and merged ([`merge`]), and
//! ends in a result set built from the stored runs alone ([`results`]). [`compare`]
//! answers "what changes if I deploy config B instead of A".

pub mod compare;
pub mod error;
pub mod exec;
pub mod grid;
pub mod merge;
pub mod metric_unit;
pub mod plan;
pub mod results;
pub mod stats;
pub mod store;

pub use error::{Result, SweepError};
pub use exec::{execute, Progress, Report, Silent, Status};
pub use grid::{Axis, Grid};
pub use plan::{Checked, Metric, Plan};
