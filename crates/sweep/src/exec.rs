//! Running a checked plan: the missing runs in parallel, each recorded as it finishes.

use crate::error::{Result, SweepError};
use crate::plan::{self, Checked, Metric};
use crate::results;
use crate::store::{Store, Stored};
use rayon::prelude::*;
use std::path::Path;
use std::sync::Mutex;

/// Where a sweep stands, for a progress display.
#[derive(Debug, Clone, Default)]
pub struct Status {
    /// Runs with a result (this time or before).
    pub done: usize,
    pub total: usize,
    /// Runs kept from an earlier invocation (counted in `done`).
    pub reused: usize,
    pub failed: usize,
    /// The best value of the watched metric so far, and the run that gave it.
    pub best: Option<(f64, String)>,
}

/// Runs of the current sweep with a result, for the Ctrl-C message (a sweep interrupted
/// keeps them and the same command resumes it).
pub static RUNS_KEPT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
/// Whether a sweep is running (so Ctrl-C speaks of its runs).
pub static SWEEPING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Told about a sweep's progress; called from the worker threads.
pub trait Progress: Sync {
    fn update(&self, status: &Status);
}

/// No display.
pub struct Silent;

impl Progress for Silent {
    fn update(&self, _: &Status) {}
}

/// How a sweep went.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// Runs of this invocation's slice.
    pub total: usize,
    /// Runs already done before, kept.
    pub reused: usize,
    /// Runs made now.
    pub ran: usize,
    /// Runs whose result is an error (made now or before).
    pub failed: usize,
    /// The watched metric per setting, best first.
    pub settings: Vec<results::SettingResult>,
}

/// Runs every run of `shard` (1-based `[K, N]`, or the whole grid) that `dir` has no
/// summary of, with `threads` workers; then writes the result set of the slice.
pub fn execute(
    checked: &Checked,
    dir: &Path,
    threads: usize,
    shard: Option<[usize; 2]>,
    progress: &dyn Progress,
) -> Result<Report> {
    let grid = &checked.plan.grid;
    if let Some([k, n]) = shard {
        if n == 0 || k == 0 || k > n {
            return Err(SweepError::Usage(format!(
                "--shard {k}/{n}: K must be within 1..={n}"
            )));
        }
    }
    let mut manifest = checked.manifest.clone();
    manifest.shard = shard;
    let store = Store::open(dir, &manifest)?;
    let indexes: Vec<usize> = match shard {
        Some([k, n]) => grid.shard(k, n).collect(),
        None => (0..grid.len()).collect(),
    };
    let mut pending = Vec::new();
    let mut status = Status {
        total: indexes.len(),
        ..Status::default()
    };
    for &index in &indexes {
        match store.read(index)? {
            Stored::Ok(text) => {
                status.done += 1;
                note_best(&mut status, &checked.plan.metric, grid, index, &text);
            }
            // A failed run is tried again: its failure may have been the machine's.
            Stored::Failed(_) | Stored::Missing => pending.push(index),
        }
    }
    let reused = status.done;
    status.reused = reused;
    RUNS_KEPT.store(reused, std::sync::atomic::Ordering::SeqCst);
    SWEEPING.store(true, std::sync::atomic::Ordering::SeqCst);
    progress.update(&status);
    let status = Mutex::new(status);
    let written: Result<()> = pool(threads)?.install(|| {
        pending.par_iter().try_for_each(|&index| {
            let result = run_caught(checked, index);
            store.write(index, &result)?;
            let mut s = status.lock().expect("no thread panics holding the status");
            s.done += 1;
            RUNS_KEPT.store(s.done, std::sync::atomic::Ordering::SeqCst);
            match &result {
                Ok(text) => note_best(&mut s, &checked.plan.metric, grid, index, text),
                Err(_) => s.failed += 1,
            }
            progress.update(&s);
            Ok(())
        })
    });
    SWEEPING.store(false, std::sync::atomic::Ordering::SeqCst);
    written?;
    let rows = results::collect(grid, &store, &indexes)?;
    results::write(grid, &store, &rows)?;
    let failed = rows
        .iter()
        .filter(|r| matches!(r.outcome, results::Outcome::Failed(_)))
        .count();
    Ok(Report {
        total: indexes.len(),
        reused,
        ran: pending.len(),
        failed,
        settings: results::by_setting(grid, &rows, &checked.plan.metric),
    })
}

/// A pool of `threads` workers (at least one).
pub fn pool(threads: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| SweepError::Usage(format!("starting {threads} threads: {e}")))
}

/// One run; a panic inside it is caught and recorded as that run's error, so that it
/// does not stop the others.
fn run_caught(checked: &Checked, index: usize) -> std::result::Result<String, String> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_one(checked, index))) {
        Ok(result) => result,
        Err(payload) => {
            let message = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("(no message)");
            Err(format!("the run panicked: {message}"))
        }
    }
}

/// The summary.json of the run at `index`.
pub fn run_one(checked: &Checked, index: usize) -> std::result::Result<String, String> {
    let point = checked.plan.grid.point(index);
    let run = || -> Result<String> {
        let config = plan::config_with(&checked.base_entries, &point.values)?;
        let options = plan::options_with(&checked.plan.base, &point.values, point.seed);
        let report = mauisim_sim::run_from(&checked.trace, config, options)?;
        let json = serde_json::to_string_pretty(&report.summary()).expect("summary serialises");
        Ok(json + "\n")
    };
    run().map_err(|e| e.to_string())
}

fn note_best(
    status: &mut Status,
    metric: &Metric,
    grid: &crate::grid::Grid,
    index: usize,
    text: &str,
) {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
        return;
    };
    let Some(x) = value.get(&metric.name).and_then(serde_json::Value::as_f64) else {
        return;
    };
    let better = match &status.best {
        None => true,
        Some((best, _)) => metric.better(x, *best),
    };
    if better {
        let point = grid.point(index);
        let mut label: Vec<String> = point
            .values
            .iter()
            .map(|(axis, v)| format!("{}={v}", axis.name))
            .collect();
        label.push(format!("seed={}", point.seed));
        status.best = Some((x, label.join(" ")));
    }
}
