//! `mauisim compare`: what changes if config B is deployed instead of A, on one workload.
//!
//! Both configs run with the same seeds; each metric's change is paired by seed, so its
//! confidence interval is that of the per-seed differences. Per user, group, account, QOS
//! and class: the average wait under each, largest changes first.

use crate::error::{Result, SweepError};
use crate::metric_unit::{num, signed_clock, MetricUnit as Unit};
use crate::results::{csv_error, finish, metrics_of};
use crate::stats;
use mauisim_core::CredKind;
use mauisim_sim::output::held_csv_text;
use mauisim_sim::settings::{self, Difference};
use mauisim_sim::trace::workload::Trace;
use mauisim_sim::units::clock_of;
use mauisim_sim::{params, RunOptions, RunReport};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub trace: String,
    pub a: String,
    pub b: String,
    pub seeds: Vec<u64>,
    /// Every setting that differs between A and B (of the first seed's runs).
    pub differences: Vec<Difference>,
    /// When A and B do not simulate the same jobs (first seed): the jobs both simulate.
    pub matched: Option<MatchedJobs>,
    pub metrics: Vec<MetricChange>,
    pub credentials: Vec<CredentialChange>,
    /// Each side's `held.csv` (first seed).
    #[serde(skip)]
    pub held: [String; 2],
}

/// A and B simulate different job sets (a limit holds some under one only): the metrics
/// of the whole runs average different jobs, so the average wait is also given over the
/// jobs both simulate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MatchedJobs {
    pub jobs_a: u64,
    pub jobs_b: u64,
    pub held_a: u64,
    pub held_b: u64,
    /// Jobs both simulate (and count in the metrics).
    pub matched: u64,
    pub avg_wait_a: f64,
    pub avg_wait_b: f64,
}

/// One summary metric under A and B (means over seeds).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricChange {
    pub metric: String,
    pub a: f64,
    pub b: f64,
    /// `b − a`.
    pub change: f64,
    /// `100 (b − a) / |a|`; `None` when `a` is 0.
    pub change_percent: Option<f64>,
    /// 95 % confidence interval of the change, from the per-seed differences (two seeds
    /// or more).
    pub ci95: Option<[f64; 2]>,
}

/// One credential's average wait under A and B, over every seed's run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CredentialChange {
    pub kind: &'static str,
    pub name: String,
    /// Jobs of the credential per run (mean over seeds).
    pub jobs_a: f64,
    pub jobs_b: f64,
    pub avg_wait_a: f64,
    pub avg_wait_b: f64,
    /// `avg_wait_b − avg_wait_a`, seconds: > 0 waits more under B.
    pub change: f64,
}

/// What one run leaves for the comparison.
struct RunDigest {
    summary: serde_json::Value,
    metrics: Vec<(String, f64)>,
    /// (kind, name) → (jobs, total wait).
    waits: BTreeMap<(&'static str, String), (u64, f64)>,
    /// Job id → wait, of the jobs counted in the metrics.
    job_waits: BTreeMap<u64, i64>,
    held: String,
    held_jobs: u64,
}

/// Runs `base` under config `a` and config `b` for every seed, `threads` at a time.
pub fn compare(
    base: &RunOptions,
    a: &Path,
    b: &Path,
    seeds: &[u64],
    threads: usize,
) -> Result<Comparison> {
    if seeds.is_empty() {
        return Err(SweepError::Usage("no seeds to run".into()));
    }
    let trace = Trace::read(&base.trace)?;
    let configs = [params::from_file(a)?, params::from_file(b)?];
    let paths = [a.to_path_buf(), b.to_path_buf()];
    let runs: Vec<(usize, u64)> = (0..2)
        .flat_map(|c| seeds.iter().map(move |&s| (c, s)))
        .collect();
    let digests: Vec<RunDigest> = crate::exec::pool(threads)?.install(|| {
        runs.par_iter()
            .map(|&(c, seed)| {
                let mut options = base.clone();
                options.seed = seed;
                options.config = Some(paths[c].clone());
                let report = mauisim_sim::run_from(&trace, configs[c].clone(), options)?;
                Ok(digest(&report))
            })
            .collect::<Result<Vec<_>>>()
    })?;
    let (under_a, under_b) = digests.split_at(seeds.len());
    let (first_a, first_b) = (&under_a[0], &under_b[0]);
    Ok(Comparison {
        trace: base.trace.display().to_string(),
        a: a.display().to_string(),
        b: b.display().to_string(),
        seeds: seeds.to_vec(),
        differences: settings::differences(&[&first_a.summary, &first_b.summary]),
        matched: matched_jobs(first_a, first_b),
        metrics: metric_changes(under_a, under_b),
        credentials: credential_changes(under_a, under_b, seeds.len()),
        held: [first_a.held.clone(), first_b.held.clone()],
    })
}

fn matched_jobs(a: &RunDigest, b: &RunDigest) -> Option<MatchedJobs> {
    if a.job_waits.keys().eq(b.job_waits.keys()) {
        return None;
    }
    let (mut matched, mut wait_a, mut wait_b) = (0u64, 0f64, 0f64);
    for (id, wa) in &a.job_waits {
        if let Some(wb) = b.job_waits.get(id) {
            matched += 1;
            wait_a += *wa as f64;
            wait_b += *wb as f64;
        }
    }
    let mean = |w: f64| if matched > 0 { w / matched as f64 } else { 0.0 };
    Some(MatchedJobs {
        jobs_a: a.job_waits.len() as u64,
        jobs_b: b.job_waits.len() as u64,
        held_a: a.held_jobs,
        held_b: b.held_jobs,
        matched,
        avg_wait_a: mean(wait_a),
        avg_wait_b: mean(wait_b),
    })
}

fn digest(report: &RunReport) -> RunDigest {
    let summary = serde_json::to_value(report.summary()).expect("summary serialises");
    let metrics = metrics_of(&summary)
        .into_iter()
        .filter_map(|(name, n)| n.as_f64().map(|x| (name, x)))
        .collect();
    let jobs = &report.workload.jobs;
    let mut waits = BTreeMap::new();
    let mut job_waits = BTreeMap::new();
    for i in mauisim_sim::trace::transform::counted(jobs, report.options.transform.warmup) {
        let (job, outcome) = (&jobs[i], &report.outcomes[i]);
        job_waits.insert(job.id, outcome.wait(job));
        for kind in CredKind::ALL {
            let id = job.creds.get(kind);
            if id.get().is_none() {
                continue;
            }
            let name = report.workload.names.name(kind, id).to_string();
            let entry: &mut (u64, f64) = waits.entry((kind.label(), name)).or_default();
            entry.0 += 1;
            entry.1 += outcome.wait(job) as f64;
        }
    }
    RunDigest {
        summary,
        metrics,
        waits,
        job_waits,
        held: held_csv_text(&report.held, &report.workload.names),
        held_jobs: report.held.len() as u64,
    }
}

fn metric_changes(a: &[RunDigest], b: &[RunDigest]) -> Vec<MetricChange> {
    let names: Vec<&String> = a[0].metrics.iter().map(|(n, _)| n).collect();
    let value = |d: &RunDigest, name: &str| {
        d.metrics
            .iter()
            .find(|(n, _)| n == name)
            .map_or(f64::NAN, |(_, v)| *v)
    };
    names
        .into_iter()
        .map(|name| {
            let xs: Vec<f64> = a.iter().map(|d| value(d, name)).collect();
            let ys: Vec<f64> = b.iter().map(|d| value(d, name)).collect();
            let diffs: Vec<f64> = xs.iter().zip(&ys).map(|(x, y)| y - x).collect();
            let (ma, mb) = (stats::estimate(&xs).mean, stats::estimate(&ys).mean);
            let d = stats::estimate(&diffs);
            MetricChange {
                metric: name.clone(),
                a: ma,
                b: mb,
                change: mb - ma,
                change_percent: (ma != 0.0).then(|| 100.0 * (mb - ma) / ma.abs()),
                ci95: d.ci95.map(|h| [d.mean - h, d.mean + h]),
            }
        })
        .collect()
}

fn credential_changes(a: &[RunDigest], b: &[RunDigest], seeds: usize) -> Vec<CredentialChange> {
    let pooled = |runs: &[RunDigest]| {
        let mut total: BTreeMap<(&'static str, String), (u64, f64)> = BTreeMap::new();
        for run in runs {
            for (key, (jobs, wait)) in &run.waits {
                let entry = total.entry(key.clone()).or_default();
                entry.0 += jobs;
                entry.1 += wait;
            }
        }
        total
    };
    let (pa, pb) = (pooled(a), pooled(b));
    let mut keys: Vec<&(&'static str, String)> = pa.keys().chain(pb.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut rows: Vec<CredentialChange> = keys
        .into_iter()
        .map(|key| {
            let (ja, wa) = pa.get(key).copied().unwrap_or_default();
            let (jb, wb) = pb.get(key).copied().unwrap_or_default();
            let mean = |w: f64, j: u64| if j > 0 { w / j as f64 } else { 0.0 };
            CredentialChange {
                kind: key.0,
                name: key.1.clone(),
                jobs_a: ja as f64 / seeds as f64,
                jobs_b: jb as f64 / seeds as f64,
                avg_wait_a: mean(wa, ja),
                avg_wait_b: mean(wb, jb),
                change: mean(wb, jb) - mean(wa, ja),
            }
        })
        .collect();
    // Largest changes first; ties in kind and name order, so the list is reproducible.
    rows.sort_by(|x, y| {
        y.change
            .abs()
            .total_cmp(&x.change.abs())
            .then_with(|| (x.kind, &x.name).cmp(&(y.kind, &y.name)))
    });
    rows
}

/// The comparison as a table for the terminal: what differs between A and B, a warning
/// when they simulate different jobs, every metric in its unit, then the `top` credentials
/// that wait most more and most less under B.
pub fn to_text(c: &Comparison, top: usize) -> String {
    let mut out = format!(
        "A: {}\nB: {}\ntrace {}, seeds {:?}\n\n",
        c.a, c.b, c.trace, c.seeds
    );
    if c.differences.is_empty() {
        out.push_str("What differs: nothing (A and B run the same settings)\n\n");
    } else {
        out.push_str("What differs (A -> B):\n");
        for d in &c.differences {
            out.push_str(&format!("  {:<28} {}\n", d.setting, d.values.join(" -> ")));
        }
        out.push('\n');
    }
    if let Some(m) = &c.matched {
        out.push_str(&format!(
            "Warning: A and B simulate different jobs (A {} with {} held, B {} with {} held), \
             so their averages are over different job sets. Over the {} jobs both simulate: \
             average wait A {}, B {} (B - A {}).\n\n",
            m.jobs_a,
            m.held_a,
            m.jobs_b,
            m.held_b,
            m.matched,
            clock_of(m.avg_wait_a),
            clock_of(m.avg_wait_b),
            signed_clock(m.avg_wait_b - m.avg_wait_a),
        ));
    }
    out.push_str(&format!(
        "{:<28} {:<10} {:>14} {:>14} {:>14} {:>9}  {}\n",
        "metric", "unit", "A", "B", "B - A", "B - A %", "95% CI of B - A"
    ));
    for m in &c.metrics {
        let unit = Unit::of(&m.metric);
        let percent = m
            .change_percent
            .map_or("-".to_string(), |p| format!("{p:+.1}%"));
        let ci = m.ci95.map_or(String::new(), |[lo, hi]| {
            format!("[{}, {}]", unit.change(lo), unit.change(hi))
        });
        out.push_str(&format!(
            "{:<28} {:<10} {:>14} {:>14} {:>14} {:>9}  {ci}\n",
            m.metric,
            unit.name(),
            unit.show(m.a),
            unit.show(m.b),
            unit.change(m.change),
            percent
        ));
    }
    for (title, more) in [("more", true), ("less", false)] {
        out.push_str(&format!(
            "\nWho waits {title} under B (average wait, [DD:]HH:MM:SS):\n"
        ));
        let listed: Vec<&CredentialChange> = c
            .credentials
            .iter()
            .filter(|r| if more { r.change > 0.0 } else { r.change < 0.0 })
            .take(top)
            .collect();
        if listed.is_empty() {
            out.push_str("  nobody\n");
        }
        for r in listed {
            out.push_str(&format!(
                "  {:<8} {:<12} {:>8} {:<5} {:>11} -> {:<11} ({})\n",
                r.kind,
                r.name,
                num(r.jobs_a),
                if r.jobs_a == 1.0 { "job" } else { "jobs" },
                clock_of(r.avg_wait_a),
                clock_of(r.avg_wait_b),
                signed_clock(r.change)
            ));
        }
    }
    out
}

/// `compare.csv` (metrics) and `credentials.csv`.
pub fn to_csv(c: &Comparison) -> Result<(String, String)> {
    let mut metrics = csv::Writer::from_writer(Vec::new());
    let opt = |x: Option<f64>| x.map_or(String::new(), |v| v.to_string());
    metrics
        .write_record([
            "metric",
            "a",
            "b",
            "change",
            "change_percent",
            "ci95_low",
            "ci95_high",
        ])
        .map_err(csv_error)?;
    for m in &c.metrics {
        metrics
            .write_record([
                m.metric.clone(),
                m.a.to_string(),
                m.b.to_string(),
                m.change.to_string(),
                opt(m.change_percent),
                opt(m.ci95.map(|c| c[0])),
                opt(m.ci95.map(|c| c[1])),
            ])
            .map_err(csv_error)?;
    }
    let mut creds = csv::Writer::from_writer(Vec::new());
    creds
        .write_record([
            "kind",
            "name",
            "jobs_a",
            "jobs_b",
            "avg_wait_a",
            "avg_wait_b",
            "change",
        ])
        .map_err(csv_error)?;
    for r in &c.credentials {
        creds
            .write_record([
                r.kind.to_string(),
                r.name.clone(),
                r.jobs_a.to_string(),
                r.jobs_b.to_string(),
                r.avg_wait_a.to_string(),
                r.avg_wait_b.to_string(),
                r.change.to_string(),
            ])
            .map_err(csv_error)?;
    }
    Ok((finish(metrics)?, finish(creds)?))
}

/// Writes `compare.csv`, `credentials.csv`, `compare.json` and each side's held jobs
/// (`held-a.csv`, `held-b.csv`) into `dir`, all or none.
pub fn write(dir: &Path, c: &Comparison) -> Result<()> {
    let (metrics, creds) = to_csv(c)?;
    let json = serde_json::to_string_pretty(c).expect("comparison serialises") + "\n";
    let files = [
        ("compare.csv".to_string(), metrics),
        ("credentials.csv".to_string(), creds),
        ("compare.json".to_string(), json),
        ("held-a.csv".to_string(), c.held[0].clone()),
        ("held-b.csv".to_string(), c.held[1].clone()),
    ];
    mauisim_sim::output::write_files_atomically(dir, &files)?;
    Ok(())
}
