//! `mauisim inspect … windows`: the backfill windows at an instant, like Maui's `showbf`,
//! with the reservations that shape them.

use crate::engine::Snapshot;
use crate::units::clock;
use crate::Prepared;
use mauisim_core::{Time, FOREVER};
use serde::Serialize;
use std::fmt::Write;

#[derive(Debug, Clone, Serialize)]
pub struct WindowsReport {
    pub now: Time,
    pub reservations: Vec<ReservationRow>,
    /// The standing reservations' windows that exist at the instant (SRCFG, DEPTH
    /// periods ahead), which the backfill windows are shaped by for the jobs they keep out.
    pub standing: Vec<StandingRow>,
    pub windows: Vec<WindowRow>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ReservationRow {
    pub job: u64,
    pub procs: u64,
    pub start: Time,
    pub end: Time,
}

#[derive(Debug, Clone, Serialize)]
pub struct StandingRow {
    pub name: String,
    pub nodes: u64,
    pub procs: u64,
    pub start: Time,
    pub end: Time,
    /// Whether some job may use it (an access list); without one it holds its nodes
    /// against every job, and the backfill windows leave it out.
    pub has_access_list: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct WindowRow {
    pub procs: i64,
    /// Seconds; `None` when the window has no time limit.
    pub duration: Option<Time>,
}

/// The windows an iteration at the snapshot's instant leaves for backfill: the free
/// processors around the running jobs and the reservations it would make.
pub fn report(prepared: &Prepared, snapshot: &Snapshot) -> WindowsReport {
    let now = snapshot.now;
    let (decisions, windows) = snapshot.scheduler.plan(now, &snapshot.queue);
    let jobs = &prepared.workload.jobs;
    let spec = &prepared.nodes.spec;
    let machine = snapshot.scheduler.machine();
    // The machine lets a window go at its next change after the window ends: one that
    // has ended by now holds nothing.
    let standing = machine
        .standing_windows()
        .iter()
        .filter(|&&(_, _, end)| end > now)
        .map(|&(k, start, end)| {
            let sr = &spec.standing[k as usize];
            StandingRow {
                name: sr.name.clone(),
                nodes: sr.nodes.len() as u64,
                procs: (sr.nodes.iter().enumerate())
                    .map(|(i, &n)| sr.procs_held(i, spec.nodes[n as usize].procs))
                    .sum(),
                start,
                end,
                has_access_list: sr.has_access_list(),
            }
        })
        .collect();
    WindowsReport {
        now,
        standing,
        reservations: decisions
            .reservations
            .iter()
            .map(|r| {
                let job = &jobs[r.job.0 as usize];
                ReservationRow {
                    job: job.id,
                    procs: job.procs,
                    start: r.start,
                    end: r.start + job.wcl,
                }
            })
            .collect(),
        windows: windows
            .iter()
            .map(|w| WindowRow {
                procs: w.procs,
                // A window open for ever ends at FOREVER, not FOREVER from now.
                duration: (now.saturating_add(w.duration) < FOREVER).then_some(w.duration),
            })
            .collect(),
    }
}

pub fn to_text(report: &WindowsReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "backfill windows at {} (trace time)", report.now);
    for r in &report.reservations {
        let _ = writeln!(
            out,
            "  reservation: job {} ({} procs) from {} to {}",
            r.job,
            r.procs,
            clock(r.start - report.now),
            clock(r.end - report.now)
        );
    }
    for s in &report.standing {
        let from = if s.start <= report.now {
            "now".to_string()
        } else {
            clock(s.start - report.now)
        };
        let until = if s.end >= FOREVER {
            "no end".to_string()
        } else {
            clock(s.end - report.now)
        };
        let _ = writeln!(
            out,
            "  standing reservation {}: {} nodes ({} procs) from {from} to {until}{}",
            s.name,
            s.nodes,
            s.procs,
            if s.has_access_list {
                " (its access list's jobs only; the windows below count it free)"
            } else {
                " (no job)"
            }
        );
    }
    let _ = writeln!(out);
    if report.windows.is_empty() {
        let _ = writeln!(out, "  no procs available");
    }
    for w in &report.windows {
        let procs = if w.procs == 1 { "proc " } else { "procs" };
        match w.duration {
            Some(d) => {
                let _ = writeln!(
                    out,
                    "  {:>6} {procs} available for {:>12}",
                    w.procs,
                    clock(d)
                );
            }
            None => {
                let _ = writeln!(out, "  {:>6} {procs} available with no timelimit", w.procs);
            }
        }
    }
    let _ = writeln!(
        out,
        "\n  (reservation times are from now; windows overlap, widest first)"
    );
    out
}

pub fn to_csv(report: &WindowsReport) -> Result<String, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["procs", "duration_seconds"])?;
    for row in &report.windows {
        let duration = row.duration.map_or(String::new(), |d| d.to_string());
        w.write_record([row.procs.to_string(), duration])?;
    }
    let bytes = w.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8(bytes).expect("CSV of numbers is UTF-8"))
}
