use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A file the report reads is not what it should be; `line` when known.
    #[error("{}{}: {message}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Input {
        path: PathBuf,
        line: Option<u64>,
        message: String,
    },
    #[error("{0}")]
    Usage(String),
    #[error("drawing a chart: {0}")]
    Draw(String),
    #[error(transparent)]
    Sim(#[from] mauisim_sim::error::SimError),
    #[error(transparent)]
    Sweep(#[from] mauisim_sweep::SweepError),
}

pub type Result<T> = std::result::Result<T, ReportError>;

impl ReportError {
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> ReportError {
        let path = path.into();
        move |source| ReportError::Io { path, source }
    }
}
