//! Errors a user sees: each names the file, and the line and field where there is one.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Trace {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{path}: {message}")]
    Input { path: PathBuf, message: String },
    #[error(transparent)]
    Config(#[from] mauisim_config::ConfigError),
    #[error("{0}")]
    Usage(String),
    /// `--check` found a broken invariant (see [`mauisim_core::Rule`]).
    #[error("check failed at time {}: {}{}{}: {}", .0.time, .0.rule.name(), .0.job.map(|j| format!(", job {j}")).unwrap_or_default(), .0.node.as_ref().map(|n| format!(", node {n}")).unwrap_or_default(), .0.detail)]
    Check(Box<CheckFailure>),
}

/// A broken invariant, with the job's trace id and the node's name.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckFailure {
    pub time: mauisim_core::Time,
    pub rule: mauisim_core::Rule,
    pub job: Option<u64>,
    /// The node's name, or `#index` until the names are known.
    pub node: Option<String>,
    pub detail: String,
}

pub type Result<T, E = SimError> = std::result::Result<T, E>;
