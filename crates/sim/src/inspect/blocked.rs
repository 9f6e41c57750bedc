//! The `inspect … blocked` report (Maui's `checkjob` / `diagnose -q` in spirit): every
//! idle job with the first limit that blocks it, in words ([`crate::params::limits`]).

use crate::engine::Snapshot;
use crate::params::credentials::Names;
use crate::params::limits::{limit_name, owner_name, source_name};
use crate::trace::workload::Job;
use mauisim_core::Verdict;
use serde::Serialize;

/// One idle job's standing, for text, CSV and JSON.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BlockedRow {
    pub rank: usize,
    pub id: u64,
    pub user: String,
    pub procs: u64,
    /// `eligible`, `soft` (second pass only) or `blocked`.
    pub state: &'static str,
    pub credential: String,
    pub limit: String,
    pub usage: Option<u64>,
    pub job: Option<u64>,
    pub value: Option<u64>,
    pub source: String,
}

/// The idle jobs at the snapshot, in priority order, each with the first limit that
/// blocks it.
pub fn report(snapshot: &mut Snapshot, jobs: &[Job], names: &Names) -> Vec<BlockedRow> {
    let verdicts = snapshot
        .scheduler
        .explain(snapshot.now, &mut snapshot.queue);
    verdicts
        .into_iter()
        .enumerate()
        .map(|(rank, (pos, verdict))| {
            let q = &snapshot.queue[pos];
            let job = &jobs[q.idx.0 as usize];
            let user = names
                .name(
                    mauisim_core::CredKind::User,
                    job.creds.get(mauisim_core::CredKind::User),
                )
                .to_string();
            let (state, limit) = match verdict {
                Verdict::Eligible => ("eligible", None),
                Verdict::SoftLimit(b) => ("soft", Some(b)),
                Verdict::Blocked(b) => ("blocked", Some(b)),
            };
            BlockedRow {
                rank: rank + 1,
                id: job.id,
                user,
                procs: job.procs,
                state,
                credential: limit.map_or(String::new(), |b| owner_name(&b.owner, names)),
                limit: limit.map_or(String::new(), |b| limit_name(&b)),
                usage: limit.map(|b| b.usage),
                job: limit.map(|b| b.amount),
                value: limit.map(|b| b.limit),
                source: limit.map_or(String::new(), |b| source_name(b.source).to_string()),
            }
        })
        .collect()
}

/// The report as a table.
pub fn to_text(now: i64, rows: &[BlockedRow]) -> String {
    let mut out = format!("Idle jobs at {now} and the limits that block them\n\n");
    out.push_str(&format!(
        "{:>5} {:>10} {:>10} {:>6}  {:<8} {:<24} {:<14} {:>10} {:>8} {:>10}  {}\n",
        "rank",
        "job",
        "user",
        "procs",
        "state",
        "credential",
        "limit",
        "usage",
        "job",
        "value",
        "source"
    ));
    let opt = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
    for r in rows {
        out.push_str(&format!(
            "{:>5} {:>10} {:>10} {:>6}  {:<8} {:<24} {:<14} {:>10} {:>8} {:>10}  {}\n",
            r.rank,
            r.id,
            r.user,
            r.procs,
            r.state,
            if r.credential.is_empty() {
                "-"
            } else {
                &r.credential
            },
            if r.limit.is_empty() { "-" } else { &r.limit },
            opt(r.usage),
            opt(r.job),
            opt(r.value),
            if r.source.is_empty() { "-" } else { &r.source },
        ));
    }
    let count = |s: &str| rows.iter().filter(|r| r.state == s).count();
    out.push_str(&format!(
        "\n{} idle: {} eligible, {} only in the hard pass (soft limit), {} blocked\n",
        rows.len(),
        count("eligible"),
        count("soft"),
        count("blocked")
    ));
    out
}

/// The report as CSV, one row per idle job.
pub fn to_csv(rows: &[BlockedRow]) -> Result<String, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(r)?;
    }
    let bytes = w.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8(bytes).expect("CSV of UTF-8 fields is UTF-8"))
}
