//! The sweep directory: `sweep.json`, one directory per run under `runs/`, and files that
//! appear whole or not at all.

use crate::error::{Result, SweepError};
use crate::plan::Manifest;
use std::fs;
use std::path::{Path, PathBuf};

pub const MANIFEST: &str = "sweep.json";
/// Held by the process writing into a sweep directory: its process id.
pub const LOCK: &str = ".mauisim-sweep.lock";
pub const SUMMARY: &str = "summary.json";
pub const ERROR: &str = "error.txt";

/// A sweep directory.
#[derive(Debug, Clone)]
pub struct Store {
    pub dir: PathBuf,
    /// Digits of a run's directory name: enough for the grid's last index.
    width: usize,
    /// The directory's lock, while this process writes into it (see [`Store::open`]).
    lock: Option<std::sync::Arc<SweepLock>>,
}

/// The lock file of a sweep directory, removed when the sweep is done with it. One left by
/// a process that no longer runs (killed, or a power cut) is taken over.
#[derive(Debug)]
struct SweepLock(PathBuf);

impl SweepLock {
    fn take(dir: &Path) -> Result<SweepLock> {
        let path = dir.join(LOCK);
        let own = std::process::id();
        let io = |e: std::io::Error| SweepError::Io {
            path: path.clone(),
            source: e,
        };
        loop {
            match fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(mut file) => {
                    std::io::Write::write_all(&mut file, format!("{own}\n").as_bytes())
                        .map_err(io)?;
                    return Ok(SweepLock(path));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let holder = fs::read_to_string(&path).unwrap_or_default();
                    let pid: Option<u32> = holder.trim().parse().ok();
                    let alive = pid.is_some_and(|p| p != own && process_runs(p));
                    if alive {
                        return Err(SweepError::Usage(format!(
                            "{} is being written by another sweep (process {}); nothing was \
                             changed: wait for it, or stop it and run this command again",
                            dir.display(),
                            holder.trim()
                        )));
                    }
                    remove_if_present(&path)?;
                }
                Err(e) => return Err(io(e)),
            }
        }
    }
}

impl Drop for SweepLock {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
    }
}

/// Whether process `pid` runs on this machine (where /proc tells; elsewhere it is assumed
/// to, so a lock is only taken over where that is known to be safe).
fn process_runs(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.is_dir() || proc.join(pid.to_string()).exists()
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
            lock: None,
        }
    }

    pub fn run_dir(&self, index: usize) -> PathBuf {
        self.dir
            .join("runs")
            .join(format!("{index:0width$}", width = self.width))
    }

    /// Opens `dir` for `manifest`: a new or empty directory becomes its sweep directory; one
    /// that holds the same sweep resumes; anything else is refused, and nothing is touched.
    /// The directory is locked against a second sweep writing into it at once, and the
    /// staged files an interrupted writer left (`.NAME.partial-PID`) are removed.
    pub fn open(dir: &Path, manifest: &Manifest) -> Result<Store> {
        let mut store = Store::new(dir, manifest.grid.len());
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
                // A lock left by a writer killed before it wrote the manifest is no sweep.
                let occupied =
                    fs::read_dir(dir).is_ok_and(|d| d.flatten().any(|e| e.file_name() != LOCK));
                if occupied {
                    return Err(SweepError::Usage(format!(
                        "{} exists and is not a sweep directory (no {MANIFEST}); nothing was \
                         changed: choose another --out",
                        dir.display()
                    )));
                }
                fs::create_dir_all(dir).map_err(|e| SweepError::Io {
                    path: dir.to_path_buf(),
                    source: e,
                })?;
                store.lock = Some(std::sync::Arc::new(SweepLock::take(dir)?));
                let json = serde_json::to_string_pretty(manifest).expect("manifest serialises");
                write_atomically(&dir.join(MANIFEST), &(json + "\n"))?;
                return Ok(store);
            }
        }
        store.lock = Some(std::sync::Arc::new(SweepLock::take(dir)?));
        remove_staged(dir)?;
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

/// Removes the staged files (`.NAME.partial-PID`) left in `dir` and its run directories by
/// a writer that stopped between writing and renaming (a full disk, a kill): under the lock
/// no other process is writing them.
fn remove_staged(dir: &Path) -> Result<()> {
    let runs = dir.join("runs");
    let run_dirs = fs::read_dir(&runs)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path());
    for d in std::iter::once(dir.to_path_buf()).chain(run_dirs) {
        for entry in fs::read_dir(&d).into_iter().flatten().flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') && name.contains(".partial-") {
                remove_if_present(&entry.path())?;
            }
        }
    }
    Ok(())
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
