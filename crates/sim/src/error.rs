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
    /// Every problem found binding a config to the machine's nodes (each message names its
    /// line), with the refused entries' errors when the entries had some, and the warnings
    /// of both: one run tells a site every problem of its file.
    #[error("{}", config_problems(.errors, .warnings))]
    ConfigErrors {
        errors: Vec<String>,
        warnings: Vec<String>,
    },
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

impl SimError {
    /// Problems binding a config, told with the config's `warnings`; any other error as
    /// it is.
    pub fn with_warnings(self, warnings: Vec<String>) -> SimError {
        match self {
            SimError::ConfigErrors { errors, .. } => SimError::ConfigErrors { errors, warnings },
            other => other,
        }
    }
}

fn config_problems(errors: &[String], warnings: &[String]) -> String {
    let mut text = match errors {
        [one] => one.clone(),
        _ => format!(
            "{} errors in the config:\n{}",
            errors.len(),
            errors.join("\n")
        ),
    };
    for warning in warnings {
        text.push('\n');
        text.push_str(warning);
    }
    text
}
