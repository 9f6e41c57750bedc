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
}

pub type Result<T, E = SimError> = std::result::Result<T, E>;
