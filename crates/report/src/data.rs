//! A run's output directory, read back: `summary.json`, `jobs.csv`, and `timeline.csv`
//! when the run recorded its iterations (`run --charts`).

use crate::error::{ReportError, Result};
use mauisim_core::Time;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// What the charts need of a job.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct JobRecord {
    pub submit: Time,
    pub start: Time,
    pub end: Time,
    pub wcl: Time,
    pub procs: u64,
    #[serde(deserialize_with = "flag")]
    pub backfilled: bool,
}

impl JobRecord {
    pub fn wait(&self) -> Time {
        self.start - self.submit
    }
    pub fn run(&self) -> Time {
        self.end - self.start
    }
    /// Maui's expansion factor: (wait + run) / wallclock limit.
    pub fn xfactor(&self) -> f64 {
        (self.wait() + self.run()) as f64 / self.wcl.max(1) as f64
    }
    pub fn bounded_slowdown(&self) -> f64 {
        mauisim_sim::metrics::bounded_slowdown(self.wait(), self.run())
    }
}

fn flag<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<bool, D::Error> {
    match u8::deserialize(d)? {
        0 => Ok(false),
        1 => Ok(true),
        other => Err(serde::de::Error::custom(format!(
            "expected 0 or 1, found {other}"
        ))),
    }
}

/// One iteration: idle jobs left and reservations made.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct TimelineRecord {
    pub time: Time,
    pub idle: u64,
    pub reserved: u64,
}

#[derive(Debug, Clone)]
pub struct RunData {
    /// How the report names the run: its directory's name.
    pub label: String,
    pub dir: PathBuf,
    pub summary: serde_json::Value,
    pub machine_procs: u64,
    pub jobs: Vec<JobRecord>,
    pub timeline: Option<Vec<TimelineRecord>>,
}

impl RunData {
    /// A number of the summary, if present.
    pub fn number(&self, name: &str) -> Option<f64> {
        self.summary.get(name).and_then(serde_json::Value::as_f64)
    }
}

/// Whether `dir` looks like a run's output directory.
pub fn is_run_dir(dir: &Path) -> bool {
    dir.join("summary.json").is_file() && dir.join("jobs.csv").is_file()
}

pub fn read_run(dir: &Path) -> Result<RunData> {
    let summary_path = dir.join("summary.json");
    let text = std::fs::read_to_string(&summary_path).map_err(ReportError::io(&summary_path))?;
    let summary: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| ReportError::Input {
            path: summary_path.clone(),
            line: Some(e.line() as u64),
            message: format!("not a run summary: {e}"),
        })?;
    let machine_procs = summary
        .get("machine_procs")
        .and_then(serde_json::Value::as_u64)
        .filter(|&p| p > 0)
        .ok_or_else(|| ReportError::Input {
            path: summary_path.clone(),
            line: None,
            message: "no positive `machine_procs`: not a mauisim run summary".into(),
        })?;
    let jobs = read_csv::<JobRecord>(&dir.join("jobs.csv"))?;
    for (k, j) in jobs.iter().enumerate() {
        if j.start < j.submit || j.end < j.start || j.wcl <= 0 {
            return Err(ReportError::Input {
                path: dir.join("jobs.csv"),
                line: Some(k as u64 + 2),
                message: format!(
                    "impossible job: submit {}, start {}, end {}, wcl {}",
                    j.submit, j.start, j.end, j.wcl
                ),
            });
        }
    }
    let timeline_path = dir.join("timeline.csv");
    let timeline = if timeline_path.is_file() {
        Some(read_csv::<TimelineRecord>(&timeline_path)?)
    } else {
        None
    };
    let label = dir.file_name().map_or_else(
        || dir.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    Ok(RunData {
        label,
        dir: dir.to_path_buf(),
        summary,
        machine_procs,
        jobs,
        timeline,
    })
}

fn read_csv<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Vec<T>> {
    let mut reader = csv::Reader::from_path(path).map_err(|e| ReportError::Input {
        path: path.to_path_buf(),
        line: None,
        message: e.to_string(),
    })?;
    let headers = reader.headers().cloned().unwrap_or_default();
    let mut out = Vec::new();
    for record in reader.deserialize::<T>() {
        out.push(record.map_err(|e| ReportError::Input {
            path: path.to_path_buf(),
            line: e.position().map(|p| p.line()),
            message: match e.kind() {
                csv::ErrorKind::Deserialize { err, .. } => match err.field() {
                    Some(k) => format!(
                        "field {} ({}): {}",
                        k + 1,
                        headers.get(k as usize).unwrap_or("?"),
                        err.kind()
                    ),
                    None => err.kind().to_string(),
                },
                _ => e.to_string(),
            },
        })?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir_with(jobs: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("summary.json"), r#"{"machine_procs": 4}"#).unwrap();
        std::fs::write(dir.path().join("jobs.csv"), jobs).unwrap();
        dir
    }

    #[test]
    fn reads_the_columns_it_needs() {
        let dir = dir_with("id,submit,start,end,wcl,procs,backfilled,user\n1,0,5,15,20,2,1,u\n");
        let run = read_run(dir.path()).unwrap();
        assert_eq!(run.machine_procs, 4);
        assert_eq!(run.jobs[0].wait(), 5);
        assert!(run.jobs[0].backfilled);
        assert_eq!(run.jobs[0].xfactor(), 0.75);
        assert!(run.timeline.is_none());
    }

    #[test]
    fn a_bad_line_is_named() {
        let dir = dir_with("submit,start,end,wcl,procs,backfilled\n0,5,15,20,2,0\n0,x,1,1,1,0\n");
        let e = read_run(dir.path()).unwrap_err().to_string();
        assert!(e.contains("jobs.csv:3"), "{e}");
        assert!(e.contains("field 2 (start)"), "{e}");
        let dir = dir_with("submit,start,end,wcl,procs,backfilled\n9,5,15,20,2,0\n");
        let e = read_run(dir.path()).unwrap_err().to_string();
        assert!(e.contains("jobs.csv:2: impossible job"), "{e}");
    }
}
