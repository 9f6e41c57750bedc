//! `mauisim inspect … priority`: the priority of every idle job at one instant, factor by
//! factor, in the spirit of Maui's `diagnose -p` (text), and as CSV or JSON for scripts.

use crate::engine::Snapshot;
use crate::trace::workload::Job;
use crate::Prepared;
use mauisim_core::{Breakdown, Component, CredKind, PriorityConfig, Sub, Time};
use serde::Serialize;
use std::fmt::Write as _;

/// One subcomponent of one job.
#[derive(Debug, Clone, Serialize)]
pub struct SubRow {
    pub name: &'static str,
    /// The raw factor (minutes, ratio, MB, credential priority, …).
    pub factor: f64,
    /// The weight it was multiplied by (after QOS and group adjustments).
    pub weight: f64,
    /// `weight · cap(factor)`.
    pub value: f64,
}

/// One component of one job.
#[derive(Debug, Clone, Serialize)]
pub struct ComponentRow {
    pub name: &'static str,
    /// What the component adds to the priority (weighted and capped).
    pub value: f64,
    /// Its share of the job's priority before the final clamps, in percent of the sum
    /// of absolute component values.
    pub percent: f64,
    pub subcomponents: Vec<SubRow>,
}

#[derive(Debug, Clone, Serialize)]
pub struct JobRow {
    pub job: u64,
    /// `idle` (start priority) or `running` (USAGE component only).
    pub state: &'static str,
    pub user: String,
    pub group: String,
    pub account: String,
    pub qos: String,
    pub class: String,
    pub submit: Time,
    /// Seconds of effective queue time (JOBPRIOACCRUALPOLICY) or, running, since start.
    pub queued: Time,
    pub priority: i64,
    /// Σ components before the floor, the 1e9 ceiling and system priority.
    pub raw: f64,
    pub components: Vec<ComponentRow>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ShownComponent {
    pub name: &'static str,
    pub weight: f64,
    /// `(name, configured weight)`; QOS QTWEIGHT/XFWEIGHT and the group's CLASSWEIGHT
    /// show in each job's own weights.
    pub subcomponents: Vec<(&'static str, f64)>,
}

/// The priority report at one instant.
#[derive(Debug, Clone, Serialize)]
pub struct PriorityReport {
    pub at: Time,
    /// Components and subcomponents shown (those with a nonzero weight for some job),
    /// with their configured weights.
    pub shown: Vec<ShownComponent>,
    /// Idle jobs in priority order, then running jobs when USAGE has weight.
    pub jobs: Vec<JobRow>,
}

fn percent(part: f64, whole: f64) -> f64 {
    if whole == 0.0 {
        0.0
    } else {
        100.0 * part / whole
    }
}

/// Which components and subcomponents matter: a nonzero component weight and a nonzero
/// (effective) subcomponent weight in at least one breakdown.
fn shown(config: &PriorityConfig, breakdowns: &[Breakdown]) -> Vec<(Component, Vec<Sub>)> {
    Component::ALL
        .iter()
        .filter(|&&c| config.component_weight[c as usize] != 0.0)
        .map(|&c| {
            let subs: Vec<Sub> = Sub::ALL
                .iter()
                .copied()
                .filter(|&s| s.component() == c)
                .filter(|&s| breakdowns.iter().any(|b| b.weight[s as usize] != 0.0))
                .collect();
            (c, subs)
        })
        .filter(|(_, subs)| !subs.is_empty())
        .collect()
}

fn row(
    prepared: &Prepared,
    job: &Job,
    state: &'static str,
    queued: Time,
    b: &Breakdown,
    shown: &[(Component, Vec<Sub>)],
) -> JobRow {
    let names = &prepared.workload.names;
    let name = |kind: CredKind| names.name(kind, job.creds.get(kind)).to_string();
    let magnitude: f64 = b.component.iter().map(|v| v.abs()).sum();
    JobRow {
        job: job.id,
        state,
        user: name(CredKind::User),
        group: name(CredKind::Group),
        account: name(CredKind::Account),
        qos: name(CredKind::Qos),
        class: name(CredKind::Class),
        submit: job.submit,
        queued,
        priority: b.priority,
        raw: b.raw,
        components: shown
            .iter()
            .map(|(c, subs)| ComponentRow {
                name: c.name(),
                value: b.component[*c as usize],
                percent: percent(b.component[*c as usize], magnitude),
                subcomponents: subs
                    .iter()
                    .map(|&s| SubRow {
                        name: s.name(),
                        factor: b.factor[s as usize],
                        weight: b.weight[s as usize],
                        value: b.sub[s as usize],
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// Builds the report from a run stopped at `snapshot.now`.
pub fn report(prepared: &Prepared, snapshot: &mut Snapshot) -> PriorityReport {
    let now = snapshot.now;
    let jobs = &prepared.workload.jobs;
    let config = &prepared.policy.priority;
    let order = snapshot.scheduler.priority_order(now, &mut snapshot.queue);
    let idle: Vec<(usize, Breakdown)> = order
        .iter()
        .map(|&pos| {
            let q = &snapshot.queue[pos];
            (pos, snapshot.scheduler.breakdown(q, now))
        })
        .collect();
    let usage_weighted = config.component_weight[Component::Usage as usize] != 0.0
        && Sub::ALL
            .iter()
            .any(|&s| s.component() == Component::Usage && config.weight[s as usize] != 0.0);
    let running: Vec<(usize, Time, Breakdown)> = if usage_weighted {
        snapshot
            .running
            .iter()
            .map(|&(i, start)| {
                let job = &jobs[i];
                (i, start, config.usage(job.procs, start, job.wcl, now))
            })
            .collect()
    } else {
        Vec::new()
    };
    let all: Vec<Breakdown> = idle
        .iter()
        .map(|(_, b)| *b)
        .chain(running.iter().map(|(_, _, b)| *b))
        .collect();
    let shown = shown(config, &all);
    let mut rows = Vec::with_capacity(all.len());
    for (pos, b) in &idle {
        let q = &snapshot.queue[*pos];
        let job = &jobs[q.idx.0 as usize];
        rows.push(row(prepared, job, "idle", q.eff_queued(now), b, &shown));
    }
    for (i, start, b) in &running {
        rows.push(row(prepared, &jobs[*i], "running", now - start, b, &shown));
    }
    PriorityReport {
        at: now,
        shown: shown
            .iter()
            .map(|(c, subs)| ShownComponent {
                name: c.name(),
                weight: config.component_weight[*c as usize],
                subcomponents: subs
                    .iter()
                    .map(|&s| (s.name(), config.weight[s as usize]))
                    .collect(),
            })
            .collect(),
        jobs: rows,
    }
}

/// Short column labels, as `diagnose -p` abbreviates them.
fn label(sub: &str) -> &str {
    match sub {
        "QUEUETIME" => "QTime",
        "XFACTOR" => "XFctr",
        "SPVIOLATION" => "SPVio",
        "BYPASS" => "Bypas",
        "TARGETQUEUETIME" => "TQTim",
        "TARGETXFACTOR" => "TXFct",
        "USER" => "User",
        "GROUP" => "Group",
        "ACCOUNT" => "Accnt",
        "QOS" => "QOS",
        "CLASS" => "Class",
        "FSUSER" => "FSUsr",
        "FSGROUP" => "FSGrp",
        "FSACCOUNT" => "FSAcc",
        "FSQOS" => "FSQOS",
        "FSCLASS" => "FSCls",
        "WALLTIME" => "WTime",
        "NODE" => "Node",
        "PROC" => "Proc",
        "MEM" => "Mem",
        "SWAP" => "Swap",
        "DISK" => "Disk",
        "CONSUMED" => "Cons",
        "REMAINING" => "Rem",
        "PERCENT" => "Perc",
        "EXECUTIONTIME" => "ExecT",
        other => other,
    }
}

/// A number in at most `width` characters, dropping decimals before precision.
fn num(x: f64, width: usize) -> String {
    for decimals in [1, 0] {
        let s = format!("{x:.decimals$}");
        if s.len() <= width {
            return s;
        }
    }
    format!("{x:.1e}")
}

/// The `diagnose -p` layout: per component its percent of the priority, and in
/// parentheses the raw factors; weights on top, overall contributions at the bottom.
pub fn to_text(report: &PriorityReport) -> String {
    let mut out = String::new();
    let idle = report.jobs.iter().filter(|j| j.state == "idle").count();
    let _ = writeln!(
        out,
        "Job priorities at t={} ({}): {idle} idle job{}, highest first",
        report.at,
        crate::units::clock(report.at),
        if idle == 1 { "" } else { "s" }
    );
    if report.jobs.is_empty() {
        return out;
    }
    const CELL: usize = 6;
    let mut header = format!("\n{:<12} {:>10}", "Job", "PRIORITY*");
    for c in &report.shown {
        let names: Vec<String> = c
            .subcomponents
            .iter()
            .map(|(s, _)| format!("{:>CELL$}", label(s)))
            .collect();
        let _ = write!(header, "  {:>6}({})", title(c.name), names.join(":"));
    }
    let _ = writeln!(out, "{header}");
    let mut weights = format!("{:>12} {:>10}", "Weights", "--------");
    for c in &report.shown {
        let cells: Vec<String> = c
            .subcomponents
            .iter()
            .map(|(_, w)| format!("{:>CELL$}", num(*w, CELL)))
            .collect();
        let _ = write!(weights, "  {:>6}({})", num(c.weight, 6), cells.join(":"));
    }
    let _ = writeln!(out, "{weights}\n");
    let mut state = "idle";
    for job in &report.jobs {
        if job.state != state {
            state = job.state;
            let _ = writeln!(out, "\nrunning jobs (USAGE component only):");
        }
        let mut line = format!("{:<12} {:>10}", job.job, job.priority);
        for c in &job.components {
            let cells: Vec<String> = c
                .subcomponents
                .iter()
                .map(|s| format!("{:>CELL$}", num(s.factor, CELL)))
                .collect();
            let _ = write!(line, "  {:>6}({})", num(c.percent, 6), cells.join(":"));
        }
        let _ = writeln!(out, "{line}");
    }
    // Overall: each component's and subcomponent's share of all idle jobs' priority.
    let idle_rows: Vec<&JobRow> = report.jobs.iter().filter(|j| j.state == "idle").collect();
    let magnitude: f64 = idle_rows
        .iter()
        .flat_map(|j| j.components.iter().map(|c| c.value.abs()))
        .sum();
    // The label is wider than the Job and PRIORITY columns it spans.
    let mut totals = format!("\n{:<22}", "Percent Contribution");
    for (ci, c) in report.shown.iter().enumerate() {
        let subs = &c.subcomponents;
        let comp: f64 = idle_rows.iter().map(|j| j.components[ci].value).sum();
        // A subcomponent adds its value times the component's weight (Maui's CW·SW·F).
        let cells: Vec<String> = (0..subs.len())
            .map(|si| {
                let v: f64 = idle_rows
                    .iter()
                    .map(|j| j.components[ci].subcomponents[si].value)
                    .sum();
                format!("{:>CELL$}", num(percent(c.weight * v, magnitude), CELL))
            })
            .collect();
        let _ = write!(
            totals,
            "  {:>6}({})",
            num(percent(comp, magnitude), 6),
            cells.join(":")
        );
    }
    let _ = writeln!(out, "{totals}");
    let _ = writeln!(
        out,
        "\n* component columns: percent of the job's priority; in parentheses: the raw factors."
    );
    out
}

fn title(component: &str) -> String {
    let mut s = component[..1].to_string();
    s.push_str(&component[1..].to_ascii_lowercase());
    s
}

/// One row per job; fixed credential columns, then every shown component's value and
/// every shown subcomponent's factor and value.
pub fn to_csv(report: &PriorityReport) -> Result<String, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<String> = [
        "job", "state", "user", "group", "account", "qos", "class", "submit", "queued", "priority",
        "raw",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for c in &report.shown {
        header.push(c.name.to_string());
        for (s, _) in &c.subcomponents {
            header.push(format!("{s}_factor"));
            header.push(format!("{s}_value"));
        }
    }
    w.write_record(&header)?;
    for job in &report.jobs {
        let mut record = vec![
            job.job.to_string(),
            job.state.to_string(),
            job.user.clone(),
            job.group.clone(),
            job.account.clone(),
            job.qos.clone(),
            job.class.clone(),
            job.submit.to_string(),
            job.queued.to_string(),
            job.priority.to_string(),
            job.raw.to_string(),
        ];
        for c in &job.components {
            record.push(c.value.to_string());
            for s in &c.subcomponents {
                record.push(s.factor.to_string());
                record.push(s.value.to_string());
            }
        }
        w.write_record(&record)?;
    }
    let bytes = w.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8(bytes).expect("csv of UTF-8 strings is UTF-8"))
}
