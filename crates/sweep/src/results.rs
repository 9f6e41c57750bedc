//! The result set of a sweep, built from its run directories in grid order: `results.csv`,
//! `results.json` (one row per run) and `summary.csv` (mean and 95 % interval across
//! seeds per setting). Built from the files alone, so a sweep run at once, resumed, or
//! sharded and merged gives the same bytes.

use crate::error::{Result, SweepError};
use crate::grid::Grid;
use crate::stats;
use crate::store::{self, Store, Stored};
use serde_json::{Map, Number, Value};

/// Summary fields that are not results of the schedule: they vary between identical runs
/// (timings) or name the run (the seed has its own column).
const NOT_METRICS: &[&str] = &["seed", "sim_seconds", "jobs_per_second"];

/// The metrics of a run: every top-level number of its summary.json, in its order.
pub fn metrics_of(summary: &Value) -> Vec<(String, Number)> {
    let Some(object) = summary.as_object() else {
        return Vec::new();
    };
    object
        .iter()
        .filter(|(name, _)| !NOT_METRICS.contains(&name.as_str()))
        .filter_map(|(name, value)| match value {
            Value::Number(n) => Some((name.clone(), n.clone())),
            _ => None,
        })
        .collect()
}

/// The names of the metrics every run reports, for checking `--metric`.
pub fn metric_names() -> Vec<String> {
    let empty = mauisim_sim::metrics::compute(&[], &[], 1);
    let mut names: Vec<String> = serde_json::to_value(empty)
        .ok()
        .and_then(|v| v.as_object().map(|o| o.keys().cloned().collect()))
        .unwrap_or_default();
    for extra in [
        "records",
        "held",
        "skipped_total",
        "offered_load",
        "offered_load_trace",
        "iterations",
        "max_queue_length",
    ] {
        names.push(extra.into());
    }
    names
}

/// One run's row.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub index: usize,
    pub setting: usize,
    pub values: Vec<String>,
    pub seed: u64,
    pub outcome: Outcome,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Ok(Vec<(String, Number)>),
    Failed(String),
}

/// The rows of `indexes` (ascending), read from the store; a run without a result is an
/// error naming it.
pub fn collect(grid: &Grid, store: &Store, indexes: &[usize]) -> Result<Vec<Row>> {
    let mut rows = Vec::with_capacity(indexes.len());
    for &index in indexes {
        let point = grid.point(index);
        let outcome = match store.read(index)? {
            Stored::Ok(text) => {
                let path = store.run_dir(index).join(store::SUMMARY);
                let value: Value = serde_json::from_str(&text).map_err(|e| SweepError::File {
                    path,
                    message: format!("not a run summary: {e}"),
                })?;
                Outcome::Ok(metrics_of(&value))
            }
            Stored::Failed(message) => Outcome::Failed(message),
            Stored::Missing => {
                return Err(SweepError::Usage(format!(
                    "run {index} has no result in {}",
                    store.run_dir(index).display()
                )))
            }
        };
        rows.push(Row {
            index,
            setting: point.setting,
            values: point.values.iter().map(|(_, v)| v.to_string()).collect(),
            seed: point.seed,
            outcome,
        });
    }
    Ok(rows)
}

/// Metric names over all rows, in order of first appearance.
fn columns(rows: &[Row]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for row in rows {
        if let Outcome::Ok(metrics) = &row.outcome {
            for (name, _) in metrics {
                if !names.contains(name) {
                    names.push(name.clone());
                }
            }
        }
    }
    names
}

fn value_of<'a>(metrics: &'a [(String, Number)], name: &str) -> Option<&'a Number> {
    metrics.iter().find(|(n, _)| n == name).map(|(_, v)| v)
}

/// `results.csv`: run, each axis, seed, status, error, each metric.
pub fn results_csv(grid: &Grid, rows: &[Row]) -> Result<String> {
    let metrics = columns(rows);
    let mut out = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["run".to_string()];
    header.extend(grid.axes.iter().map(|a| a.name.clone()));
    header.extend(["seed", "status", "error"].map(String::from));
    header.extend(metrics.iter().cloned());
    out.write_record(&header).map_err(csv_error)?;
    for row in rows {
        let mut record = vec![row.index.to_string()];
        record.extend(row.values.iter().cloned());
        record.push(row.seed.to_string());
        match &row.outcome {
            Outcome::Ok(values) => {
                record.extend(["ok".to_string(), String::new()]);
                record.extend(
                    metrics
                        .iter()
                        .map(|m| value_of(values, m).map_or(String::new(), Number::to_string)),
                );
            }
            Outcome::Failed(message) => {
                record.extend(["failed".to_string(), message.clone()]);
                record.extend(metrics.iter().map(|_| String::new()));
            }
        }
        out.write_record(&record).map_err(csv_error)?;
    }
    finish(out)
}

/// `results.json`: the grid, then one object per run.
pub fn results_json(grid: &Grid, rows: &[Row]) -> String {
    let runs: Vec<Value> = rows
        .iter()
        .map(|row| {
            let mut run = Map::new();
            run.insert("run".into(), row.index.into());
            let settings: Map<String, Value> = grid
                .axes
                .iter()
                .zip(&row.values)
                .map(|(a, v)| (a.name.clone(), Value::String(v.clone())))
                .collect();
            run.insert("settings".into(), settings.into());
            run.insert("seed".into(), row.seed.into());
            match &row.outcome {
                Outcome::Ok(values) => {
                    run.insert("status".into(), "ok".into());
                    let metrics: Map<String, Value> = values
                        .iter()
                        .map(|(n, v)| (n.clone(), Value::Number(v.clone())))
                        .collect();
                    run.insert("metrics".into(), metrics.into());
                }
                Outcome::Failed(message) => {
                    run.insert("status".into(), "failed".into());
                    run.insert("error".into(), message.clone().into());
                }
            }
            Value::Object(run)
        })
        .collect();
    let mut top = Map::new();
    top.insert(
        "grid".into(),
        serde_json::to_value(grid).expect("grid serialises"),
    );
    top.insert("runs".into(), runs.into());
    serde_json::to_string_pretty(&Value::Object(top)).expect("results serialise") + "\n"
}

/// `summary.csv`: per setting, the runs and failures, and for each metric the mean over
/// seeds and the half-width of its 95 % confidence interval (empty below two runs).
pub fn summary_csv(grid: &Grid, rows: &[Row]) -> Result<String> {
    let metrics = columns(rows);
    let mut out = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["setting".to_string()];
    header.extend(grid.axes.iter().map(|a| a.name.clone()));
    header.extend(["runs", "failed"].map(String::from));
    for m in &metrics {
        header.push(m.clone());
        header.push(format!("{m}_ci95"));
    }
    out.write_record(&header).map_err(csv_error)?;
    for group in rows.chunk_by(|a, b| a.setting == b.setting) {
        let ok: Vec<&[(String, Number)]> = group
            .iter()
            .filter_map(|r| match &r.outcome {
                Outcome::Ok(values) => Some(values.as_slice()),
                Outcome::Failed(_) => None,
            })
            .collect();
        let mut record = vec![group[0].setting.to_string()];
        record.extend(group[0].values.iter().cloned());
        record.push(group.len().to_string());
        record.push((group.len() - ok.len()).to_string());
        for m in &metrics {
            let values: Vec<f64> = ok
                .iter()
                .filter_map(|values| value_of(values, m).and_then(Number::as_f64))
                .collect();
            let e = stats::estimate(&values);
            if e.n == 0 {
                record.extend([String::new(), String::new()]);
            } else {
                record.push(e.mean.to_string());
                record.push(e.ci95.map_or(String::new(), |h| h.to_string()));
            }
        }
        out.write_record(&record).map_err(csv_error)?;
    }
    finish(out)
}

/// One setting (a run without its seed) and the watched metric over its seeds.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingResult {
    /// `RESERVATIONDEPTH=4 BACKFILLPOLICY=BESTFIT`.
    pub label: String,
    pub runs: usize,
    pub mean: Option<f64>,
    pub ci95: Option<f64>,
}

/// The watched metric's mean (and 95 % interval) per setting, best first; settings
/// without a value last, in grid order.
pub fn by_setting(grid: &Grid, rows: &[Row], metric: &crate::Metric) -> Vec<SettingResult> {
    let mut out: Vec<SettingResult> = rows
        .chunk_by(|a, b| a.setting == b.setting)
        .map(|group| {
            let values: Vec<f64> = group
                .iter()
                .filter_map(|r| match &r.outcome {
                    Outcome::Ok(values) => value_of(values, &metric.name).and_then(Number::as_f64),
                    Outcome::Failed(_) => None,
                })
                .collect();
            let e = stats::estimate(&values);
            let label: Vec<String> = grid
                .axes
                .iter()
                .zip(&group[0].values)
                .map(|(axis, v)| format!("{}={v}", axis.name))
                .collect();
            SettingResult {
                label: label.join(" "),
                runs: group.len(),
                mean: (e.n > 0).then_some(e.mean),
                ci95: e.ci95,
            }
        })
        .collect();
    // A stable sort keeps grid order among equals and for settings without a value.
    out.sort_by(|a, b| match (a.mean, b.mean) {
        (Some(x), Some(y)) if metric.better(x, y) => std::cmp::Ordering::Less,
        (Some(x), Some(y)) if metric.better(y, x) => std::cmp::Ordering::Greater,
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        _ => std::cmp::Ordering::Equal,
    });
    out
}

pub(crate) fn csv_error(e: csv::Error) -> SweepError {
    SweepError::Usage(format!("writing CSV: {e}"))
}

pub(crate) fn finish(out: csv::Writer<Vec<u8>>) -> Result<String> {
    let bytes = out
        .into_inner()
        .map_err(|e| SweepError::Usage(format!("writing CSV: {e}")))?;
    Ok(String::from_utf8(bytes).expect("CSV of UTF-8 fields is UTF-8"))
}

/// Writes the three result files of `rows` into the store's directory.
pub fn write(grid: &Grid, store: &Store, rows: &[Row]) -> Result<()> {
    let dir = &store.dir;
    store::write_atomically(&dir.join("results.csv"), &results_csv(grid, rows)?)?;
    store::write_atomically(&dir.join("results.json"), &results_json(grid, rows))?;
    store::write_atomically(&dir.join("summary.csv"), &summary_csv(grid, rows)?)
}
