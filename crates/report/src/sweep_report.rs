//! The charts of a sweep: each metric against each swept parameter (one line per setting of
//! the other parameters, a 95 % band across seeds) and, for two-parameter grids, a heatmap.

use crate::chart::{color, Axis, Cell, Chart, Figure, Heatmap, Lines, Series, Style};
use crate::error::{ReportError, Result};
use crate::html::{Page, Table};
use crate::run_report::slug;
use mauisim_sweep::results::{self, Outcome, Row};
use mauisim_sweep::stats::{self, Estimate};
use mauisim_sweep::store::{self, Store};
use mauisim_sweep::Grid;
use std::path::Path;

/// Metrics drawn, in order, when the runs report them.
pub const METRICS: &[(&str, &str)] = &[
    ("avg_wait", "average wait (s)"),
    ("p95_wait", "95th percentile wait (s)"),
    ("avg_bounded_slowdown", "average bounded slowdown"),
    ("avg_xfactor", "average expansion factor"),
    ("utilization", "utilization (fraction)"),
    ("backfilled_fraction", "backfilled (fraction)"),
];

/// More lines than this in one chart would be unreadable; such charts are left out (and
/// the page says so).
const MAX_LINES: usize = 10;

/// One setting of the grid (a run without its seed) and its metrics across seeds.
struct Setting {
    values: Vec<String>,
    /// Per metric of [`METRICS`], the values of the runs that succeeded.
    samples: Vec<Vec<f64>>,
    failed: usize,
}

pub fn is_sweep_dir(dir: &Path) -> bool {
    dir.join(store::MANIFEST).is_file()
}

pub fn figures(dir: &Path) -> Result<(Vec<Figure>, Page)> {
    let manifest = store::read_manifest(dir)?.ok_or_else(|| {
        ReportError::Usage(format!(
            "{}: no {} (not a sweep directory)",
            dir.display(),
            store::MANIFEST
        ))
    })?;
    let grid = manifest.grid.clone();
    let store = Store::new(dir, grid.len());
    let indexes: Vec<usize> = match manifest.shard {
        Some([k, n]) => grid.shard(k, n).collect(),
        None => (0..grid.len()).collect(),
    };
    let rows = results::collect(&grid, &store, &indexes).map_err(|e| {
        ReportError::Usage(format!(
            "{e} (resume the sweep to finish it before drawing it)"
        ))
    })?;
    let settings = settings(&rows);
    let metrics: Vec<usize> = (0..METRICS.len())
        .filter(|&m| settings.iter().any(|s| !s.samples[m].is_empty()))
        .collect();
    let swept: Vec<usize> = (0..grid.axes.len())
        .filter(|&a| grid.axes[a].values.len() > 1)
        .collect();
    let mut figures = Vec::new();
    let mut notes = Vec::new();
    for &m in &metrics {
        for &a in &swept {
            match line_figure(&grid, &settings, m, a, &swept) {
                Some(f) => figures.push(f),
                None => notes.push(format!(
                    "{} against {}: more than {MAX_LINES} settings of the other parameters, not drawn.",
                    METRICS[m].0, grid.axes[a].name
                )),
            }
        }
        if swept.len() == 2 {
            figures.push(heatmap_figure(&grid, &settings, m, swept[0], swept[1]));
        }
    }
    let page = page(dir, &manifest, &grid, &settings, &metrics, &figures, notes);
    Ok((figures, page))
}

fn settings(rows: &[Row]) -> Vec<Setting> {
    rows.chunk_by(|a, b| a.setting == b.setting)
        .map(|group| {
            let mut samples = vec![Vec::new(); METRICS.len()];
            let mut failed = 0;
            for row in group {
                match &row.outcome {
                    Outcome::Ok(values) => {
                        for (m, (name, _)) in METRICS.iter().enumerate() {
                            let v = values.iter().find(|(n, _)| n == name);
                            if let Some(v) = v.and_then(|(_, v)| v.as_f64()) {
                                samples[m].push(v);
                            }
                        }
                    }
                    Outcome::Failed(_) => failed += 1,
                }
            }
            Setting {
                values: group[0].values.clone(),
                samples,
                failed,
            }
        })
        .collect()
}

/// Positions of an axis's values: the numbers themselves when they all are numbers, else
/// 0, 1, … with the values as names.
fn positions(values: &[String]) -> (Vec<f64>, Option<Vec<String>>) {
    let numbers: Option<Vec<f64>> = values
        .iter()
        .map(|v| v.trim().parse::<f64>().ok())
        .collect();
    match numbers {
        Some(n) if n.iter().all(|x| x.is_finite()) => (n, None),
        _ => (
            (0..values.len()).map(|i| i as f64).collect(),
            Some(values.to_vec()),
        ),
    }
}

fn line_figure(
    grid: &Grid,
    settings: &[Setting],
    m: usize,
    a: usize,
    swept: &[usize],
) -> Option<Figure> {
    let axis = &grid.axes[a];
    let (xs, categories) = positions(&axis.values);
    let others: Vec<usize> = swept.iter().copied().filter(|&o| o != a).collect();
    // Lines: each combination of the other swept axes' values, in grid order.
    let mut keys: Vec<Vec<String>> = Vec::new();
    for s in settings {
        let key: Vec<String> = others.iter().map(|&o| s.values[o].clone()).collect();
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    if keys.len() > MAX_LINES {
        return None;
    }
    let mut series = Vec::new();
    for (k, key) in keys.iter().enumerate() {
        let mut points = Vec::new();
        let mut band = Vec::new();
        for (i, value) in axis.values.iter().enumerate() {
            let samples: Vec<f64> = settings
                .iter()
                .filter(|s| &s.values[a] == value)
                .filter(|s| others.iter().zip(key).all(|(&o, v)| &s.values[o] == v))
                .flat_map(|s| s.samples[m].iter().copied())
                .collect();
            let e: Estimate = stats::estimate(&samples);
            if e.n == 0 {
                continue;
            }
            // Categories: each line's points side by side, not on top of each other.
            let x = match categories {
                Some(_) => xs[i] + (k as f64 - (keys.len() - 1) as f64 / 2.0) * 0.06,
                None => xs[i],
            };
            points.push((x, e.mean));
            if let Some(h) = e.ci95 {
                band.push((x, e.mean - h, e.mean + h));
            }
        }
        // Numbers in the order they were swept need not be increasing: draw left to right.
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        band.sort_by(|a, b| a.0.total_cmp(&b.0));
        let label = if others.is_empty() {
            String::new()
        } else {
            others
                .iter()
                .zip(key)
                .map(|(&o, v)| format!("{}={v}", grid.axes[o].name))
                .collect::<Vec<_>>()
                .join(", ")
        };
        series.push(Series {
            label,
            color: color(k),
            style: if categories.is_some() {
                Style::Points
            } else {
                Style::Line
            },
            points,
            band: if band.len() > 1 || categories.is_some() {
                band
            } else {
                Vec::new()
            },
        });
    }
    let ys = series.iter().flat_map(|s| {
        s.points
            .iter()
            .map(|p| p.1)
            .chain(s.band.iter().flat_map(|b| [b.1, b.2]))
    });
    let y = Axis::fit(METRICS[m].1, false, ys);
    let x = match &categories {
        Some(names) => Axis {
            label: axis.name.clone(),
            log: false,
            range: (-0.5, names.len() as f64 - 0.5),
        },
        None => {
            let (lo, hi) = xs
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| {
                    (l.min(v), h.max(v))
                });
            let pad = ((hi - lo) * 0.05).max(0.5);
            Axis {
                label: axis.name.clone(),
                log: false,
                range: (lo - pad, hi + pad),
            }
        }
    };
    let seeds = grid.seeds.len();
    Some(Figure {
        name: format!("sweep-{}-vs-{}", slug(METRICS[m].0), slug(&axis.name)),
        caption: format!(
            "{} against {}: mean over {seeds} seed{}{}.",
            METRICS[m].0,
            axis.name,
            if seeds == 1 { "" } else { "s" },
            if seeds > 1 {
                ", shaded: 95 % confidence interval (Student t)"
            } else {
                ""
            }
        ),
        width: 900,
        height: 480,
        chart: Chart::Lines(Lines {
            title: format!("{} vs {}", METRICS[m].0, axis.name),
            x,
            y,
            series,
            categories,
        }),
    })
}

fn heatmap_figure(grid: &Grid, settings: &[Setting], m: usize, a: usize, b: usize) -> Figure {
    let (cols, rows) = (&grid.axes[a], &grid.axes[b]);
    let cells = rows
        .values
        .iter()
        .rev()
        .map(|rv| {
            cols.values
                .iter()
                .map(|cv| {
                    let samples: Vec<f64> = settings
                        .iter()
                        .filter(|s| &s.values[a] == cv && &s.values[b] == rv)
                        .flat_map(|s| s.samples[m].iter().copied())
                        .collect();
                    let e = stats::estimate(&samples);
                    (e.n > 0).then(|| Cell {
                        value: e.mean,
                        text: significant(e.mean),
                        note: e
                            .ci95
                            .map_or(String::new(), |h| format!("± {}", significant(h))),
                    })
                })
                .collect()
        })
        .collect();
    Figure {
        name: format!("sweep-{}-heatmap", slug(METRICS[m].0)),
        caption: format!(
            "{} over {} × {}: mean over seeds, with the 95 % interval's half-width.",
            METRICS[m].0, cols.name, rows.name
        ),
        width: 900,
        height: 220 + 60 * rows.values.len().min(12) as u32,
        chart: Chart::Heatmap(Heatmap {
            title: format!("{} by {} and {}", METRICS[m].0, cols.name, rows.name),
            x_label: cols.name.clone(),
            y_label: rows.name.clone(),
            columns: cols.values.clone(),
            rows: rows.values.iter().rev().cloned().collect(),
            cells,
            log_color: false,
            color_range: None,
            legend: format!("Color and number: {}.", METRICS[m].1),
        }),
    }
}

/// Four significant digits, without exponent for everyday magnitudes.
fn significant(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let digits = (3 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
    format!("{v:.digits$}")
}

fn page(
    dir: &Path,
    manifest: &mauisim_sweep::plan::Manifest,
    grid: &Grid,
    settings: &[Setting],
    metrics: &[usize],
    figures: &[Figure],
    notes: Vec<String>,
) -> Page {
    let mut about = Table::new(vec!["".into(), "".into()]);
    about
        .rows
        .push(vec!["sweep directory".into(), dir.display().to_string()]);
    about
        .rows
        .push(vec!["trace".into(), manifest.trace.clone()]);
    about.rows.push(vec![
        "base config".into(),
        manifest
            .config
            .clone()
            .unwrap_or_else(|| "(Maui's defaults)".into()),
    ]);
    for axis in &grid.axes {
        about
            .rows
            .push(vec![axis.name.clone(), axis.values.join(", ")]);
    }
    let seeds: Vec<String> = grid.seeds.iter().map(u64::to_string).collect();
    about.rows.push(vec!["seeds".into(), seeds.join(", ")]);
    let mut header: Vec<String> = grid.axes.iter().map(|a| a.name.clone()).collect();
    header.push("runs failed".into());
    header.extend(metrics.iter().map(|&m| METRICS[m].0.to_string()));
    let mut table = Table::new(header);
    for s in settings {
        let mut row = s.values.clone();
        row.push(s.failed.to_string());
        for &m in metrics {
            let e = stats::estimate(&s.samples[m]);
            row.push(match (e.n, e.ci95) {
                (0, _) => "–".into(),
                (_, Some(h)) => format!("{} ± {}", significant(e.mean), significant(h)),
                (_, None) => significant(e.mean),
            });
        }
        table.rows.push(row);
    }
    let mut intro = "Each metric against each swept parameter; per setting, the mean over \
                     seeds and its 95 % confidence interval (Student t)."
        .to_string();
    for n in notes {
        intro.push(' ');
        intro.push_str(&n);
    }
    Page {
        title: format!("mauisim sweep report: {}", dir.display()),
        intro,
        tables: vec![
            ("Sweep".into(), about),
            ("Results per setting".into(), table),
        ],
        figures: figures
            .iter()
            .map(|f| (f.name.clone(), f.caption.clone()))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_values_are_positions_and_names_are_categories() {
        let v = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(positions(&v(&["1", "2", "8"])), (vec![1.0, 2.0, 8.0], None));
        let (p, names) = positions(&v(&["FIRSTFIT", "BESTFIT"]));
        assert_eq!(p, vec![0.0, 1.0]);
        assert_eq!(names, Some(v(&["FIRSTFIT", "BESTFIT"])));
    }

    #[test]
    fn significant_digits() {
        assert_eq!(significant(6835.123), "6835");
        assert_eq!(significant(0.68561), "0.6856");
        assert_eq!(significant(12.3456), "12.35");
    }
}
