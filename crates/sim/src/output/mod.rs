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

/// `jobs.csv`'s columns. Besides the names: `backfilled` and `cancelled` are 0 or 1,
/// `preemptions` the times the job was preempted and requeued before the run shown,
/// `bypass` Maui's BYPASS (times a lower-priority job was backfilled ahead of it),
/// `first_reservation` the first start a reservation promised and `reservation_delay` the
/// start less that promise (both empty if never reserved), `nodes` a host list
/// (`n[0-15,20]`).
const JOBS_CSV_HEADER: &str = "id,submit,start,end,wait,runtime,wcl,procs,user,group,account,qos,class,backfilled,cancelled,preemptions,bypass,first_reservation,reservation_delay,nodes\n";

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
    let mut hosts = String::new();
    let jobs = report.workload.jobs.iter().zip(&report.outcomes);
    for ((job, o), nodes) in jobs.zip(report.stats.job_nodes.iter()) {
        hosts.clear();
        report.nodes.write_host_list(nodes, &mut hosts);
        out.row(job, o, &report.workload.names, &hosts)?;
    }
    out.finish()
}

/// `jobs.csv`, written a row at a time (streamed runs write each job as it finishes): the
/// header with the first row, each row made in one buffer, fields quoted as the csv crate
/// quotes them (only where one holds a comma, a quote or a line end).
pub(crate) struct JobsCsv {
    out: BufWriter<fs::File>,
    path: PathBuf,
    /// The row being written.
    line: Vec<u8>,
    rows: u64,
}

impl JobsCsv {
    pub(crate) fn create(path: &Path) -> Result<Self> {
        let file = fs::File::create(path).map_err(io_err(path))?;
        Ok(JobsCsv {
            out: BufWriter::with_capacity(1 << 16, file),
            path: path.to_path_buf(),
            line: Vec::with_capacity(256),
            rows: 0,
        })
    }

    /// One job that ran, with its nodes as a host list.
    pub(crate) fn row(&mut self, job: &Job, o: &Outcome, names: &Names, nodes: &str) -> Result<()> {
        let line = &mut self.line;
        line.clear();
        if self.rows == 0 {
            line.extend_from_slice(JOBS_CSV_HEADER.as_bytes());
        }
        self.rows += 1;
        let start = o.start;
        for number in [job.id as i64, job.submit, start, o.end, o.wait(job)] {
            push_int(line, number);
        }
        for number in [o.processing(), job.wcl, job.procs as i64] {
            push_int(line, number);
        }
        for kind in [
            CredKind::User,
            CredKind::Group,
            CredKind::Account,
            CredKind::Qos,
            CredKind::Class,
        ] {
            push_text(line, names.name(kind, job.creds.get(kind)));
        }
        push_int(line, i64::from(o.backfilled));
        push_int(line, i64::from(o.cancelled));
        push_int(line, i64::from(o.preemptions));
        push_int(line, i64::from(o.bypass));
        match o.first_reservation() {
            Some(promised) => {
                push_int(line, promised);
                push_int(line, start - promised);
            }
            None => line.extend_from_slice(b",,"),
        }
        push_text(line, nodes);
        // The last field ends the row, not a comma.
        line.pop();
        line.push(b'\n');
        self.out.write_all(line).map_err(io_err(&self.path))
    }

    pub(crate) fn finish(mut self) -> Result<()> {
        self.out.flush().map_err(io_err(&self.path))
    }
}

/// Appends `value` and a comma.
#[inline]
fn push_int(line: &mut Vec<u8>, value: i64) {
    line.extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
    line.push(b',');
}

/// Appends a text field and a comma, in quotes (inner quotes doubled) where it holds a
/// comma, a quote or a line end: the csv crate's `QuoteStyle::Necessary`.
fn push_text(line: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    if bytes
        .iter()
        .any(|b| matches!(b, b',' | b'"' | b'\r' | b'\n'))
    {
        line.push(b'"');
        for &b in bytes {
            if b == b'"' {
                line.push(b'"');
            }
            line.push(b);
        }
        line.push(b'"');
    } else {
        line.extend_from_slice(bytes);
    }
    line.push(b',');
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
    let mut name = String::new();
    for (i, spec) in specs.iter().enumerate() {
        name.clear();
        nodes.write_name(i, &mut name);
        let busy = busy.get(i).copied().unwrap_or(0);
        let procs = spec.procs;
        out.serialize(NodeRow {
            node: &name,
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
        if let Some(mut fields) = job.record.integers() {
            fields[2] = o.wait(job);
            fields[3] = o.processing();
            fields[4] = job.procs as i64;
            if o.cancelled {
                fields[10] = 5;
            }
            return swf::write_integer_record(&mut self.out, &fields, &mut self.line)
                .map_err(io_err(&self.path));
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A row made by hand is the row the csv crate writes for the same fields (text
        /// with commas, quotes, line ends and spaces quoted where it quotes them).
        #[test]
        fn rows_are_written_as_the_csv_crate_writes_them(
            numbers in prop::collection::vec(any::<i64>(), 3),
            texts in prop::collection::vec("[a-z ,\"\r\n\t;']{0,6}", 3),
        ) {
            let mut line = Vec::new();
            push_int(&mut line, numbers[0]);
            for t in &texts {
                push_text(&mut line, t);
            }
            push_int(&mut line, numbers[1]);
            push_int(&mut line, numbers[2]);
            line.pop();
            line.push(b'\n');
            let mut csv = csv::Writer::from_writer(Vec::new());
            let record = [
                numbers[0].to_string(),
                texts[0].clone(),
                texts[1].clone(),
                texts[2].clone(),
                numbers[1].to_string(),
                numbers[2].to_string(),
            ];
            csv.write_record(&record).unwrap();
            let expected = csv.into_inner().unwrap();
            prop_assert_eq!(String::from_utf8_lossy(&line), String::from_utf8_lossy(&expected));
        }
    }
}
