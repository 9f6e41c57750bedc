//! The sweep directory: `sweep.json`, one directory per run under `runs/`, and files that
//! appear whole or not at all.

use crate::error::{Result, SweepError};
use crate::plan::Manifest;
use std::fs;
use std::path::{Path, PathBuf};

pub const MANIFEST: &str = "sweep.json";
pub const SUMMARY: &str = "summary.json";
pub const ERROR: &str = "error.txt";

/// A sweep directory.
#[derive(Debug, Clone)]
pub struct Store {
    pub dir: PathBuf,
    /// Digits of a run's directory name: enough for the grid's last index.
    width: usize,
}

/// What a run directory holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Stored {
    Ok(String),
    Failed(String),
    Missing,
}

impl Store {
    pub fn new(dir: &Path, runs: usize) -> Store {
        let width = runs.saturating_sub(1).to_string().len().max(4);
        Store {
            dir: dir.to_path_buf(),
            width,
        }
    }

    pub fn run_dir(&self, index: usize) -> PathBuf {
        self.dir
            .join("runs")
            .join(format!("{index:0width$}", width = self.width))
    }

    /// Opens `dir` for `manifest`: a new or empty directory becomes its sweep directory; one
    /// that holds the same sweep resumes; anything else is refused, and nothing is touched.
    pub fn open(dir: &Path, manifest: &Manifest) -> Result<Store> {
        let store = Store::new(dir, manifest.grid.len());
        match read_manifest(dir)? {
            Some(existing) => {
                if !existing.same_sweep(manifest) {
                    return Err(SweepError::Usage(format!(
                        "{} holds another sweep (not the same: {}); nothing was changed: choose another --out",
                        dir.display(),
                        existing.difference(manifest)
                    )));
                }
                if existing.shard != manifest.shard {
                    let name = |s: Option<[usize; 2]>| {
                        s.map_or("the whole grid".into(), |[k, n]| format!("shard {k}/{n}"))
                    };
                    return Err(SweepError::Usage(format!(
                        "{} holds {} of this sweep, not {}; nothing was changed",
                        dir.display(),
                        name(existing.shard),
                        name(manifest.shard)
                    )));
                }
            }
            None => {
                let occupied = fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some());
                if occupied {
                    return Err(SweepError::Usage(format!(
                        "{} exists and is not a sweep directory (no {MANIFEST}); nothing was \
                         changed: choose another --out",
                        dir.display()
                    )));
                }
                let json = serde_json::to_string_pretty(manifest).expect("manifest serialises");
                write_atomically(&dir.join(MANIFEST), &(json + "\n"))?;
            }
        }
        Ok(store)
    }

    pub fn read(&self, index: usize) -> Result<Stored> {
        let run = self.run_dir(index);
        if let Some(text) = read_if_present(&run.join(SUMMARY))? {
            return Ok(Stored::Ok(text));
        }
        if let Some(text) = read_if_present(&run.join(ERROR))? {
            return Ok(Stored::Failed(text.trim_end().to_string()));
        }
        Ok(Stored::Missing)
    }

    /// Records a finished run: its summary, or its error.
    pub fn write(&self, index: usize, result: &std::result::Result<String, String>) -> Result<()> {
        let run = self.run_dir(index);
        fs::create_dir_all(&run).map_err(SweepError::io(&run))?;
        match result {
            Ok(summary) => {
                write_atomically(&run.join(SUMMARY), summary)?;
                remove_if_present(&run.join(ERROR))
            }
            Err(message) => write_atomically(&run.join(ERROR), &format!("{message}\n")),
        }
    }
}

pub fn read_manifest(dir: &Path) -> Result<Option<Manifest>> {
    let path = dir.join(MANIFEST);
    let Some(text) = read_if_present(&path)? else {
        return Ok(None);
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| SweepError::File {
            path,
            message: format!("not a sweep manifest: {e}"),
        })
}

fn read_if_present(path: &Path) -> Result<Option<String>> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(SweepError::Io {
            path: path.to_path_buf(),
            source: e,
        }),
    }
}

fn remove_if_present(path: &Path) -> Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(SweepError::Io {
            path: path.to_path_buf(),
            source: e,
        }),
        _ => Ok(()),
    }
}

/// Writes `path` through a temporary file and a rename: an interrupted sweep leaves the
/// old file or the new one, never half of one.
pub fn write_atomically(path: &Path, contents: &str) -> Result<()> {
    Ok(mauisim_sim::output::write_file_atomically(
        path,
        contents.as_bytes(),
    )?)
}
