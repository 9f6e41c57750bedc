//! mauisim-sim: the simulation around the scheduling core.
//!
//! Reads traces (SWF) and maui.cfg files, drives the core with an event loop, computes
//! metrics and writes outputs. The only crate that touches the file system.

pub mod calendar;
pub mod engine;
pub mod error;
pub mod inspect;
pub mod interrupt;
pub mod job_nodes;
pub mod metrics;
pub mod nodes;
pub mod output;
pub mod params;
mod run;
pub mod scenario;
pub mod settings;
pub mod stream;
mod summary;
pub mod trace;
pub mod units;

pub use run::{
    bind, load_options, prepare, prepare_with, run, run_from, run_prepared, simulate, snapshot,
    write_fs_files, Prepared, RunOptions, RunReport,
};
pub use summary::Summary;
