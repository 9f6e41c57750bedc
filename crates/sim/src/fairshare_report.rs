//! Fairshare in words: `mauisim inspect … fairshare` (Maui's `diagnose -f` in spirit) and
//! the fairness section of `summary.json` (delivered share against target per credential).

use crate::credentials::{Names, DEFAULT};
use crate::engine::{Outcome, Snapshot};
use crate::params::SimConfig;
use crate::workload::Job;
use crate::Prepared;
use mauisim_core::{
    Component, CredId, CredKind, FsConfig, FsTarget, Source, Sub, TargetKind, Time,
};
use serde::Serialize;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// `25`, `25+`, `25-`, `1000000^`, `30%`.
pub fn target_text(t: &FsTarget) -> String {
    format!("{}{}", t.value, t.kind.suffix())
}

/// Numeric names (SWF ids) in numeric order, before other names in text order.
fn by_name(a: &str, b: &str) -> Ordering {
    match (a.parse::<i64>(), b.parse::<i64>()) {
        (Ok(x), Ok(y)) => x.cmp(&y),
        (Ok(_), Err(_)) => Ordering::Less,
        (Err(_), Ok(_)) => Ordering::Greater,
        (Err(_), Err(_)) => a.cmp(b),
    }
}

/// One credential's fairshare standing.
#[derive(Debug, Clone, Serialize)]
pub struct FsRow {
    pub kind: CredKind,
    pub name: String,
    /// FSTARGET with its suffix; `None` without one (own or DEFAULT).
    pub target: Option<String>,
    /// The target comes from the kind's DEFAULT object.
    pub default_target: bool,
    /// Usage per window, current first (FSDEPTH values, proc-seconds or PE-seconds).
    pub windows: Vec<f64>,
    /// Decay-weighted usage.
    pub effective: f64,
    /// Percent of the delivered total.
    pub share: f64,
    /// The FS subcomponent's factor: target − share (or 1 − share/target), floors and
    /// ceilings applied.
    pub delta: f64,
    /// What it adds to a job's priority: FSWEIGHT · FS<KIND>WEIGHT · cap(delta).
    pub priority: f64,
}

/// The fairshare report at one instant.
#[derive(Debug, Clone, Serialize)]
pub struct FairshareReport {
    pub at: Time,
    pub config: FsConfig,
    pub window_start: Time,
    /// FSDECAY^i per window.
    pub weights: Vec<f64>,
    /// The whole system's usage per window and decay-weighted.
    pub total_windows: Vec<f64>,
    pub total_effective: f64,
    pub rows: Vec<FsRow>,
}

/// Every credential that has used anything or has a target of its own, by kind then name.
pub fn fairshare_report(prepared: &Prepared, snapshot: &mut Snapshot) -> FairshareReport {
    let now = snapshot.now;
    snapshot.scheduler.advance_to(now);
    let fs = snapshot.scheduler.fairshare();
    let names = &prepared.workload.names;
    let priority = &prepared.policy.priority;
    let fs_weight = priority.component_weight[Component::Fs as usize];
    let mut rows = Vec::new();
    for kind in CredKind::ALL {
        let mut of_kind = Vec::new();
        for i in 0..names.count(kind) {
            let id = CredId(i as u32);
            let standing = fs.standing(kind, id, now);
            let own_target = matches!(standing.target, Some((_, Source::Own)));
            if standing.effective == 0.0 && !own_target {
                continue;
            }
            of_kind.push(FsRow {
                kind,
                name: names.name(kind, id).to_string(),
                target: standing.target.map(|(t, _)| target_text(&t)),
                default_target: matches!(standing.target, Some((_, Source::Default))),
                windows: standing.windows,
                effective: standing.effective,
                share: standing.share,
                delta: standing.delta,
                priority: fs_weight * priority.sub_term(Sub::fairshare(kind), standing.delta) + 0.0,
            });
        }
        of_kind.sort_by(|a, b| by_name(&a.name, &b.name));
        rows.extend(of_kind);
    }
    FairshareReport {
        at: now,
        config: fs.config().clone(),
        window_start: fs.window_start(),
        weights: fs.weights().to_vec(),
        total_windows: fs.total_windows(now),
        total_effective: fs.total_effective(now),
        rows,
    }
}

fn policy_name(c: &FsConfig) -> String {
    let name = match c.metric {
        None => "NONE".to_string(),
        Some(m) => serde_json::to_value(m)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default(),
    };
    format!("{name}{}", if c.ratio { "%" } else { "" })
}

/// The `diagnose -f` layout: one line per credential with its usage per window.
pub fn to_text(r: &FairshareReport) -> String {
    let mut out = String::new();
    let c = &r.config;
    let _ = writeln!(
        out,
        "Fairshare at t={}: FSPOLICY {}, FSINTERVAL {} s, FSDEPTH {}, FSDECAY {}; the current window began at t={}",
        r.at,
        policy_name(c),
        c.interval,
        c.depth,
        c.decay,
        r.window_start
    );
    if c.metric.is_none() {
        out += "FSPOLICY is NONE: no usage is tracked.\n";
        return out;
    }
    let cols: String = (0..r.weights.len())
        .map(|i| format!(" {:>10}", format!("win{i}")))
        .collect();
    let _ = writeln!(
        out,
        "{:<8} {:<12} {:>9}{cols} {:>12} {:>7} {:>9} {:>10}",
        "KIND", "NAME", "TARGET", "EFFECTIVE", "SHARE%", "DELTA", "PRIORITY"
    );
    let weights: String = r.weights.iter().map(|w| format!(" {w:>10.4}")).collect();
    let _ = writeln!(out, "{:<8} {:<12} {:>9}{weights}", "", "(decay)", "");
    let windows = |w: &[f64]| -> String { w.iter().map(|u| format!(" {u:>10.0}")).collect() };
    for row in &r.rows {
        let target = match &row.target {
            Some(t) if row.default_target => format!("{t}*"),
            Some(t) => t.clone(),
            None => "-".into(),
        };
        let _ = writeln!(
            out,
            "{:<8} {:<12} {:>9}{} {:>12.0} {:>7.2} {:>9.3} {:>10.1}",
            row.kind.label(),
            row.name,
            target,
            windows(&row.windows),
            row.effective,
            row.share,
            row.delta,
            row.priority
        );
    }
    let _ = writeln!(
        out,
        "{:<8} {:<12} {:>9}{} {:>12.0} {:>7.2}",
        "TOTAL",
        "",
        "",
        windows(&r.total_windows),
        r.total_effective,
        100.0
    );
    out += "(* target from the kind's DEFAULT object)\n";
    out
}

pub fn to_csv(r: &FairshareReport) -> Result<String, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<String> = ["kind", "name", "target", "default_target"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    header.extend((0..r.weights.len()).map(|i| format!("win{i}")));
    header.extend(["effective", "share", "delta", "priority"].map(String::from));
    w.write_record(&header)?;
    for row in &r.rows {
        let mut record = vec![
            row.kind.label().to_string(),
            row.name.clone(),
            row.target.clone().unwrap_or_default(),
            u8::from(row.default_target).to_string(),
        ];
        record.extend(row.windows.iter().map(f64::to_string));
        record.extend([row.effective, row.share, row.delta, row.priority].map(|x| x.to_string()));
        w.write_record(&record)?;
    }
    let mut total = vec![
        "total".to_string(),
        String::new(),
        String::new(),
        String::new(),
    ];
    total.extend(r.total_windows.iter().map(f64::to_string));
    total.extend([
        r.total_effective.to_string(),
        "100".into(),
        String::new(),
        String::new(),
    ]);
    w.write_record(&total)?;
    let bytes = w.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8(bytes).expect("CSV of UTF-8 fields is UTF-8"))
}

/// One credential's delivered service over a whole run.
#[derive(Debug, Clone, Serialize)]
pub struct FairnessRow {
    pub name: String,
    /// Processor-seconds its jobs ran.
    pub proc_seconds: f64,
    /// Percent of all processor-seconds delivered.
    pub share: f64,
    /// FSTARGET (own, else DEFAULT), with its suffix.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// `share − target` for percentage targets: > 0 means more than the target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub above_target: Option<f64>,
}

/// Per credential kind (`user`, `group`, `account`, `qos`, `class`), the credentials
/// that ran jobs, most served first.
pub type Fairness = BTreeMap<&'static str, Vec<FairnessRow>>;

/// Delivered processor-seconds per credential over the run, against the FSTARGETs.
pub fn fairness(jobs: &[Job], outcomes: &[Outcome], names: &Names, config: &SimConfig) -> Fairness {
    let total: f64 = jobs
        .iter()
        .zip(outcomes)
        .map(|(j, o)| j.procs as f64 * o.run() as f64)
        .sum();
    CredKind::ALL
        .into_iter()
        .map(|kind| {
            let mut used = vec![0.0; names.count(kind)];
            for (job, o) in jobs.iter().zip(outcomes) {
                if let Some(i) = job.creds.get(kind).get() {
                    used[i] += job.procs as f64 * o.run() as f64;
                }
            }
            let objects = config.credentials.objects(kind);
            let default = objects.get(DEFAULT).and_then(|o| o.settings.fs_target);
            let mut rows: Vec<FairnessRow> = used
                .iter()
                .enumerate()
                .filter(|(_, u)| **u > 0.0)
                .map(|(i, &proc_seconds)| {
                    let name = names.name(kind, CredId(i as u32)).to_string();
                    let target = objects
                        .get(&name)
                        .and_then(|o| o.settings.fs_target)
                        .or(default);
                    let share = if total > 0.0 {
                        100.0 * proc_seconds / total
                    } else {
                        0.0
                    };
                    FairnessRow {
                        name,
                        proc_seconds,
                        share,
                        above_target: target
                            .filter(|t| t.kind != TargetKind::AbsoluteCap)
                            .map(|t| share - t.value),
                        target: target.as_ref().map(target_text),
                    }
                })
                .collect();
            rows.sort_by(|a, b| {
                b.proc_seconds
                    .total_cmp(&a.proc_seconds)
                    .then_with(|| by_name(&a.name, &b.name))
            });
            (kind.label(), rows)
        })
        .collect()
}
