//! Output files of a run: `jobs.csv`, `schedule.swf`, `summary.json`, `held.csv`,
//! `nodes.csv`, and `timeline.csv` when iterations were recorded.
//!
//! Writes are atomic per directory: everything is written into a staging directory next
//! to the target and moved into place only when every file is complete, so an error never
//! leaves a half-written output directory behind.

pub mod fs_files;

use crate::engine::Outcome;
use crate::error::{Result, SimError};
use crate::nodes::Nodes;
use crate::params::credentials::Names;
use crate::trace::swf::{self, SwfHeader};
use crate::trace::workload::{Job, Machine};
use crate::RunReport;
use mauisim_core::{Blocked, CredKind, Time};
use serde::Serialize;
use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

pub const FILES: [&str; 6] = [
    "jobs.csv",
    "schedule.swf",
    "summary.json",
    "held.csv",
    "nodes.csv",
    "timeline.csv",
];

#[derive(Serialize)]
struct JobRow<'a> {
    id: u64,
    submit: i64,
    start: i64,
    end: i64,
    wait: i64,
    runtime: i64,
    wcl: i64,
    procs: u64,
    user: &'a str,
    group: &'a str,
    account: &'a str,
    qos: &'a str,
    class: &'a str,
    backfilled: u8,
    cancelled: u8,
    /// Times it was preempted and requeued before the run shown.
    preemptions: u32,
    /// Times a lower-priority job was backfilled ahead of this one (Maui's BYPASS).
    bypass: u32,
    /// The first start a reservation promised (empty if never reserved).
    first_reservation: Option<i64>,
    /// Start − first promise: > 0 when the job started later than first promised.
    reservation_delay: Option<i64>,
    /// The nodes it ran on, as a host list (`n[0-15,20]`).
    nodes: String,
}

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> SimError + '_ {
    move |source| SimError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Refuses an output directory that holds something other than an earlier run's outputs
/// (another command's results, a user's files), which a run would mix its files into.
/// A directory that does not exist, is empty, or holds a run's `summary.json` (with the
/// charts and report a run or `mauisim report` adds) is fine.
pub fn check_out_dir(dir: &Path) -> Result<()> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Ok(()); // absent, or not a directory: writing says which
    };
    let names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let earlier_run = names.iter().any(|n| n == "summary.json");
    let foreign: Vec<&String> = names
        .iter()
        .filter(|n| !FILES.contains(&n.as_str()))
        .collect();
    if earlier_run || foreign.is_empty() {
        return Ok(());
    }
    let shown: Vec<&str> = foreign.iter().take(3).map(|n| n.as_str()).collect();
    let more = if foreign.len() > 3 { ", …" } else { "" };
    Err(SimError::Input {
        path: dir.to_path_buf(),
        message: format!(
            "holds files that are not a run's outputs ({}{more}); choose another --out, or \
             pass --force to write into it anyway",
            shown.join(", ")
        ),
    })
}

/// Writes all outputs of `report` into `dir`, atomically.
pub fn write_all(dir: &Path, report: &RunReport) -> Result<()> {
    write_staged(dir, |staging| write_into(staging, report))
}

/// Runs `write` on a fresh staging directory next to `dir` and, if it succeeds, moves
/// the outputs it wrote into `dir` (any of [`FILES`] it did not write, and charts of an
/// earlier run, are removed from `dir`); on error, `dir` is left as it was.
pub(crate) fn write_staged<T>(dir: &Path, write: impl FnOnce(&Path) -> Result<T>) -> Result<T> {
    let staging = staging_dir(dir);
    let _staged = crate::interrupt::Staged::new(&staging);
    // Charts of an earlier run in `dir` describe outputs about to be replaced: they go too.
    let mut names: Vec<String> = FILES.iter().map(|f| f.to_string()).collect();
    names.extend(report_files(dir));
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let result = (|| {
        let _ = fs::remove_dir_all(&staging);
        fs::create_dir_all(&staging).map_err(io_err(&staging))?;
        let value = write(&staging)?;
        publish(&staging, dir, &names)?;
        Ok(value)
    })();
    if result.is_err() {
        let _ = fs::remove_dir_all(&staging);
    }
    result
}

/// Writes one file through a hidden temporary next to it and a rename: `path` holds the
/// old contents or the new, never a part (also when interrupted, see [`crate::interrupt`]).
pub fn write_file_atomically(path: &Path, contents: &[u8]) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(io_err(dir))?;
    let name = path
        .file_name()
        .map_or("out".into(), |n| n.to_string_lossy().into_owned());
    let temporary = dir.join(format!(".{name}.partial-{}", std::process::id()));
    let _staged = crate::interrupt::Staged::new(&temporary);
    // On disk before the rename, and the rename on disk after it: a power cut leaves the
    // old file or the new one (a resumed sweep trusts the runs it finds).
    let write = || -> std::io::Result<()> {
        let mut file = fs::File::create(&temporary)?;
        std::io::Write::write_all(&mut file, contents)?;
        file.sync_all()
    };
    write().map_err(io_err(&temporary))?;
    let _moving = crate::interrupt::publishing();
    fs::rename(&temporary, path).map_err(|e| {
        let _ = fs::remove_file(&temporary);
        SimError::Io {
            path: path.to_path_buf(),
            source: e,
        }
    })?;
    if let Ok(directory) = fs::File::open(dir) {
        // Not every platform can sync a directory; the file itself is synced.
        let _ = directory.sync_all();
    }
    Ok(())
}

/// The manifest of the report last written into a directory: its file names, one a line.
pub const REPORT_MANIFEST: &str = ".mauisim-report";

/// The files the report in `dir` made (its manifest included), if there is one: what a new
/// report or run there replaces or removes. Only plain file names count.
pub fn report_files(dir: &Path) -> Vec<String> {
    let Ok(text) = fs::read_to_string(dir.join(REPORT_MANIFEST)) else {
        return Vec::new();
    };
    let plain = |n: &&str| !n.is_empty() && !n.contains(['/', '\\']) && !n.starts_with("..");
    let mut names: Vec<String> = text.lines().filter(plain).map(String::from).collect();
    names.push(REPORT_MANIFEST.to_string());
    names
}

/// Writes `(name, contents)` files into `dir` with the same guarantee as [`write_all`]:
/// all of them or none.
pub fn write_files_atomically<T: AsRef<[u8]>>(dir: &Path, files: &[(String, T)]) -> Result<()> {
    replace_files(dir, files, &[])
}

/// [`write_files_atomically`], also removing the `obsolete` files of `dir` that `files`
/// does not replace.
pub fn replace_files<T: AsRef<[u8]>>(
    dir: &Path,
    files: &[(String, T)],
    obsolete: &[String],
) -> Result<()> {
    let staging = staging_dir(dir);
    let _staged = crate::interrupt::Staged::new(&staging);
    let write = || -> Result<()> {
        let _ = fs::remove_dir_all(&staging);
        fs::create_dir_all(&staging).map_err(io_err(&staging))?;
        for (name, contents) in files {
            let path = staging.join(name);
            fs::write(&path, contents).map_err(io_err(&path))?;
        }
        let made: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        let gone = obsolete
            .iter()
            .map(String::as_str)
            .filter(|o| !made.contains(o));
        let names: Vec<&str> = made.iter().copied().chain(gone).collect();
        publish(&staging, dir, &names)
    };
    let result = write();
    if result.is_err() {
        let _ = fs::remove_dir_all(&staging);
    }
    result
}

fn staging_dir(dir: &Path) -> PathBuf {
    let name = dir
        .file_name()
        .map_or("out".into(), |n| n.to_string_lossy().into_owned());
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    parent.join(format!(".{name}.partial-{}", std::process::id()))
}

fn write_into(staging: &Path, report: &RunReport) -> Result<()> {
    write_jobs_csv(&staging.join("jobs.csv"), report)?;
    write_schedule_swf(&staging.join("schedule.swf"), report)?;
    write_held_csv(&staging.join("held.csv"), report)?;
    write_nodes_csv(&staging.join("nodes.csv"), report)?;
    if report.options.timeline {
        write_timeline_csv(&staging.join("timeline.csv"), report)?;
    }
    let path = staging.join("summary.json");
    let json = serde_json::to_string_pretty(&report.summary()).expect("summary serialises");
    fs::write(&path, json + "\n").map_err(io_err(&path))
}

/// Moves the staged files into `dir`: one rename of the directory if `dir` is new,
/// else one rename per file; a named file this run did not make is removed from `dir`, so
/// no output of an earlier run passes for one of this run.
fn publish(staging: &Path, dir: &Path, names: &[&str]) -> Result<()> {
    let _moving = crate::interrupt::publishing();
    if let Some(ms) = std::env::var("MAUISIM_TEST_PUBLISH_PAUSE_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        // Testing aid: widens the publishing window so a test can interrupt inside it.
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
    if !staging.is_dir() {
        // Never touch the targets without the complete new files in hand.
        return Err(SimError::Input {
            path: staging.to_path_buf(),
            message: "the staged outputs are gone; nothing was replaced".into(),
        });
    }
    if !dir.exists() {
        if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent).map_err(io_err(parent))?;
        }
        return fs::rename(staging, dir).map_err(io_err(dir));
    }
    if !dir.is_dir() {
        return Err(SimError::Input {
            path: dir.to_path_buf(),
            message: "exists and is not a directory".into(),
        });
    }
    for name in names {
        let (source, target) = (staging.join(name), dir.join(name));
        if source.exists() {
            fs::rename(source, &target).map_err(io_err(&target))?;
        } else if target.exists() {
            fs::remove_file(&target).map_err(io_err(&target))?;
        }
    }
    fs::remove_dir_all(staging).map_err(io_err(staging))
}

fn write_jobs_csv(path: &Path, report: &RunReport) -> Result<()> {
    let mut out = JobsCsv::create(path)?;
    let jobs = report.workload.jobs.iter().zip(&report.outcomes);
    for ((job, o), nodes) in jobs.zip(&report.stats.job_nodes) {
        out.row(
            job,
            o,
            &report.workload.names,
            report.nodes.host_list(nodes),
        )?;
    }
    out.finish()
}

/// `jobs.csv`, written a row at a time (streamed runs write each job as it finishes).
pub(crate) struct JobsCsv {
    out: csv::Writer<BufWriter<fs::File>>,
    path: PathBuf,
}

impl JobsCsv {
    pub(crate) fn create(path: &Path) -> Result<Self> {
        let file = fs::File::create(path).map_err(io_err(path))?;
        Ok(JobsCsv {
            out: csv::Writer::from_writer(BufWriter::new(file)),
            path: path.to_path_buf(),
        })
    }

    /// One job that ran, with its nodes as a host list.
    pub(crate) fn row(
        &mut self,
        job: &Job,
        o: &Outcome,
        names: &Names,
        nodes: String,
    ) -> Result<()> {
        let name = |kind| names.name(kind, job.creds.get(kind));
        self.out
            .serialize(JobRow {
                id: job.id,
                submit: job.submit,
                start: o.start,
                end: o.end,
                wait: o.wait(job),
                runtime: o.processing(),
                wcl: job.wcl,
                procs: job.procs,
                user: name(CredKind::User),
                group: name(CredKind::Group),
                account: name(CredKind::Account),
                qos: name(CredKind::Qos),
                class: name(CredKind::Class),
                backfilled: o.backfilled as u8,
                cancelled: o.cancelled as u8,
                preemptions: o.preemptions,
                bypass: o.bypass,
                first_reservation: o.first_reservation,
                reservation_delay: o.first_reservation.map(|promised| o.start - promised),
                nodes,
            })
            .map_err(|e| SimError::Input {
                path: self.path.clone(),
                message: e.to_string(),
            })
    }

    pub(crate) fn finish(mut self) -> Result<()> {
        self.out.flush().map_err(io_err(&self.path))
    }
}

fn write_timeline_csv(path: &Path, report: &RunReport) -> Result<()> {
    let file = fs::File::create(path).map_err(io_err(path))?;
    let mut out = BufWriter::new(file);
    let write = |out: &mut BufWriter<fs::File>| -> std::io::Result<()> {
        writeln!(out, "time,idle,reserved")?;
        for p in &report.stats.timeline {
            writeln!(out, "{},{},{}", p.time, p.idle, p.reserved)?;
        }
        out.flush()
    };
    write(&mut out).map_err(io_err(path))
}

/// Per node: its processors, the processor-seconds it ran jobs and its utilization over
/// the run (first submission to last end).
fn write_nodes_csv(path: &Path, report: &RunReport) -> Result<()> {
    let first = report
        .workload
        .jobs
        .iter()
        .map(|j| j.submit)
        .min()
        .unwrap_or(0);
    let last = report.outcomes.iter().map(|o| o.end).max().unwrap_or(first);
    nodes_csv(path, &report.nodes, &report.stats.node_busy, (first, last))
}

/// `nodes.csv`: each node's busy processor-seconds over `span` (first submission, last
/// end).
pub(crate) fn nodes_csv(
    path: &Path,
    nodes: &Nodes,
    busy: &[u64],
    span: (Time, Time),
) -> Result<()> {
    #[derive(Serialize)]
    struct NodeRow<'a> {
        node: &'a str,
        procs: u64,
        busy_proc_seconds: u64,
        utilization: f64,
    }
    let file = fs::File::create(path).map_err(io_err(path))?;
    let mut out = csv::Writer::from_writer(BufWriter::new(file));
    let csv_err = |e: csv::Error| SimError::Input {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let span = (span.1 - span.0).max(1) as f64;
    let specs = &nodes.spec.nodes;
    for (i, name) in nodes.names.iter().enumerate() {
        let busy = busy.get(i).copied().unwrap_or(0);
        let procs = specs[i].procs;
        out.serialize(NodeRow {
            node: name,
            procs,
            busy_proc_seconds: busy,
            utilization: busy as f64 / (procs as f64 * span),
        })
        .map_err(csv_err)?;
    }
    out.flush().map_err(io_err(path))
}

/// Jobs that could never run, with the limit that holds them (a header only if none).
fn write_held_csv(path: &Path, report: &RunReport) -> Result<()> {
    held_csv(path, &report.held, &report.workload.names)
}

/// `held.csv`: jobs that could never run, with the limit that holds them.
pub(crate) fn held_csv(path: &Path, held: &[(Job, Blocked)], names: &Names) -> Result<()> {
    fs::write(path, held_csv_text(held, names)).map_err(io_err(path))
}

/// The text of `held.csv` (a header only if no job is held).
pub fn held_csv_text(held: &[(Job, Blocked)], names: &Names) -> String {
    #[derive(Serialize)]
    struct HeldRow<'a> {
        id: u64,
        submit: i64,
        procs: u64,
        wcl: i64,
        user: &'a str,
        limit: String,
        job: u64,
        value: u64,
        reason: String,
    }
    let mut out = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::new());
    // Numbers and strings into memory: nothing here can fail.
    out.write_record([
        "id", "submit", "procs", "wcl", "user", "limit", "job", "value", "reason",
    ])
    .expect("held.csv header");
    for (job, limit) in held {
        out.serialize(HeldRow {
            id: job.id,
            submit: job.submit,
            procs: job.procs,
            wcl: job.wcl,
            user: names.name(CredKind::User, job.creds.get(CredKind::User)),
            limit: crate::params::limits::limit_name(limit),
            job: limit.amount,
            value: limit.limit,
            reason: crate::params::limits::describe(limit, names),
        })
        .expect("held.csv row");
    }
    String::from_utf8(out.into_inner().expect("held.csv in memory")).expect("held.csv is UTF-8")
}

fn write_schedule_swf(path: &Path, report: &RunReport) -> Result<()> {
    let w = &report.workload;
    let mut out = ScheduleSwf::create(path, &w.path, &w.header, w.machine)?;
    for (job, o) in w.jobs.iter().zip(&report.outcomes) {
        out.row(job, o)?;
    }
    out.finish()
}

/// `schedule.swf`, written a record at a time.
pub(crate) struct ScheduleSwf {
    out: BufWriter<fs::File>,
    path: PathBuf,
    /// The line being written.
    line: String,
}

impl ScheduleSwf {
    /// The file with its header: the SWF version, what wrote it, and the input's calendar
    /// (`UnixStartTime` and the time zone, so that submit times keep their dates).
    pub(crate) fn create(
        path: &Path,
        input: &Path,
        input_header: &SwfHeader,
        machine: Machine,
    ) -> Result<Self> {
        let file = fs::File::create(path).map_err(io_err(path))?;
        let mut out = BufWriter::new(file);
        let mut header = format!(
            "; Version: 2.2\n; Computer: mauisim {} simulated schedule\n; Note: input {}\n; Note: field 3 = simulated wait, field 4 = simulated runtime, field 5 = processors used; status 5 = cancelled at its wallclock limit\n",
            env!("CARGO_PKG_VERSION"),
            input.display(),
        );
        for key in ["UnixStartTime", "TimeZone", "TimeZoneString", "StartTime"] {
            if let Some(value) = input_header.pairs.get(key) {
                header.push_str(&format!("; {key}: {value}\n"));
            }
        }
        header.push_str(&format!(
            "; MaxNodes: {}\n; MaxProcs: {}\n",
            machine.nodes,
            machine.procs()
        ));
        out.write_all(header.as_bytes()).map_err(io_err(path))?;
        Ok(ScheduleSwf {
            out,
            path: path.to_path_buf(),
            line: String::with_capacity(128),
        })
    }

    pub(crate) fn row(&mut self, job: &Job, o: &Outcome) -> Result<()> {
        let mut fields = job.record.fields();
        fields[2] = o.wait(job) as f64;
        fields[3] = o.processing() as f64;
        fields[4] = job.procs as f64;
        if o.cancelled {
            fields[10] = 5.0;
        }
        swf::write_record(&mut self.out, &fields, &mut self.line).map_err(io_err(&self.path))
    }

    pub(crate) fn finish(mut self) -> Result<()> {
        self.out.flush().map_err(io_err(&self.path))
    }
}
