//! Fairshare in words: `mauisim inspect … fairshare` (Maui's `diagnose -f` in spirit).

use crate::engine::Snapshot;
use crate::metrics::fairness::{by_name, target_text};
use crate::Prepared;
use mauisim_core::{Component, CredId, CredKind, FsConfig, Source, Sub, Time};
use serde::Serialize;
use std::fmt::Write as _;

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
pub fn report(prepared: &Prepared, snapshot: &mut Snapshot) -> FairshareReport {
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
