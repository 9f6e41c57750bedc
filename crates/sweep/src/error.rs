use std::path::PathBuf;

pub type Result<T, E = SweepError> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    /// A mistake in what was asked: the message says which and how to fix it.
    #[error("{0}")]
    Usage(String),
    #[error("{path}: {message}")]
    File { path: PathBuf, message: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Sim(#[from] mauisim_sim::error::SimError),
    #[error(transparent)]
    Config(#[from] mauisim_config::ConfigError),
}

impl SweepError {
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> SweepError {
        let path = path.into();
        move |source| SweepError::Io { path, source }
    }
}
