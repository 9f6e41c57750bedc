//! The charts of a sweep: each metric against each swept parameter (one line per setting of
//! the other parameters, a 95 % band across seeds) and, for two-parameter grids, a heatmap.

use crate::chart::{color, Axis, Cell, Chart, Figure, Heatmap, Lines, Series, Style};
use crate::error::{ReportError, Result};
use crate::html::{Page, Table};
use crate::run_report::slug;
use mauisim_sweep::metric_unit::MetricUnit;
use mauisim_sweep::results::{self, Outcome, Row};
use mauisim_sweep::stats::{self, Estimate};
use mauisim_sweep::store::{self, Store};
use mauisim_sweep::Grid;
use std::path::Path;

/// Metrics drawn, in order, when the runs report them (units from [`MetricUnit`]).
pub const METRICS: &[(&str, &str)] = &[
    ("avg_wait", "average wait"),
    ("p95_wait", "95th percentile wait"),
    ("avg_bounded_slowdown", "average bounded slowdown"),
    ("avg_xfactor", "average expansion factor"),
    ("utilization", "utilization"),
    ("backfilled_fraction", "backfilled"),
];

/// More lines than this in one chart would be unreadable: the least influential of the
/// other parameters are then pooled instead of drawn as lines of their own.
const MAX_LINES: usize = 10;

/// How a metric's values are drawn on an axis: times in hours (days beyond three), shares
/// in percent.
#[derive(Debug, Clone, Copy)]
struct Scale {
    factor: f64,
    unit: &'static str,
}

impl Scale {
    fn of(metric: &str, largest: f64) -> Scale {
        match MetricUnit::of(metric) {
            MetricUnit::Time if largest > 3.0 * 86_400.0 => Scale {
                factor: 1.0 / 86_400.0,
                unit: " (days)",
            },
            MetricUnit::Time => Scale {
                factor: 1.0 / 3_600.0,
                unit: " (hours)",
            },
            MetricUnit::Share => Scale {
                factor: 100.0,
                unit: " (%)",
            },
            MetricUnit::Number => Scale {
                factor: 1.0,
                unit: "",
            },
        }
    }
}

/// A metric's value as the tables and heatmaps print it: `1:50:06`, `60.31`, `84.63`.
fn shown(metric: &str, v: f64) -> String {
    match MetricUnit::of(metric) {
        MetricUnit::Number => significant(v),
        unit => unit.show(v),
    }
}

/// Metric `m` over the runs of every setting with the `fixed` (parameter, value) pairs,
/// pooled over the other parameters and the seeds.
fn pooled_estimate(settings: &[Setting], m: usize, fixed: &[(usize, &String)]) -> Estimate {
    let samples: Vec<f64> = settings
        .iter()
        .filter(|s| fixed.iter().all(|&(axis, v)| &s.values[axis] == v))
        .flat_map(|s| s.samples[m].iter().copied())
        .collect();
    stats::estimate(&samples)
}

/// How much `axis` moves metric `m`: the spread of its values' means, each pooled over
/// every other parameter and seed.
fn influence(settings: &[Setting], m: usize, axis: usize, values: &[String]) -> f64 {
    let means = values.iter().filter_map(|v| {
        let e = pooled_estimate(settings, m, &[(axis, v)]);
        (e.n > 0).then_some(e.mean)
    });
    let (lo, hi) = means.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
        (l.min(v), h.max(v))
    });
    if hi >= lo {
        hi - lo
    } else {
        0.0
    }
}

/// `axes` ordered by their influence on metric `m`, the largest first (grid order on ties).
fn by_influence(grid: &Grid, settings: &[Setting], m: usize, axes: &[usize]) -> Vec<usize> {
    let mut ranked: Vec<(usize, f64)> = axes
        .iter()
        .map(|&a| (a, influence(settings, m, a, &grid.axes[a].values)))
        .collect();
    ranked.sort_by(|x, y| y.1.total_cmp(&x.1));
    ranked.into_iter().map(|(a, _)| a).collect()
}

/// The other parameters a chart of metric `m` against `a` draws as lines (the most
/// influential whose combinations stay within [`MAX_LINES`]) and those it pools.
fn lines_and_pooled(
    grid: &Grid,
    settings: &[Setting],
    m: usize,
    a: usize,
    swept: &[usize],
) -> (Vec<usize>, Vec<usize>) {
    let others: Vec<usize> = swept.iter().copied().filter(|&o| o != a).collect();
    let (mut lines, mut pooled) = (Vec::new(), Vec::new());
    let mut combinations = 1;
    for o in by_influence(grid, settings, m, &others) {
        let n = grid.axes[o].values.len();
        if combinations * n <= MAX_LINES {
            combinations *= n;
            lines.push(o);
        } else {
            pooled.push(o);
        }
    }
    // Lines keep the grid's order of parameters in their labels.
    lines.sort_unstable();
    pooled.sort_unstable();
    (lines, pooled)
}

/// `A, B and C`.
fn and_list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

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
    for &m in &metrics {
        for &a in &swept {
            figures.push(line_figure(&grid, &settings, m, a, &swept));
        }
        if swept.len() >= 2 {
            // The two parameters that move the metric most; any others are pooled.
            let ranked = by_influence(&grid, &settings, m, &swept);
            let (mut a, mut b) = (ranked[0], ranked[1]);
            if a > b {
                std::mem::swap(&mut a, &mut b);
            }
            figures.push(heatmap_figure(&grid, &settings, m, a, b, &swept));
        }
    }
    let page = page(dir, &manifest, &grid, &settings, &metrics, &figures);
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

fn line_figure(grid: &Grid, settings: &[Setting], m: usize, a: usize, swept: &[usize]) -> Figure {
    let axis = &grid.axes[a];
    let (xs, categories) = positions(&axis.values);
    let (others, pooled) = lines_and_pooled(grid, settings, m, a, swept);
    let largest = settings
        .iter()
        .flat_map(|s| s.samples[m].iter().copied())
        .fold(0.0, f64::max);
    let scale = Scale::of(METRICS[m].0, largest);
    // Lines: each combination of the other swept axes' values, in grid order.
    let mut keys: Vec<Vec<String>> = Vec::new();
    for s in settings {
        let key: Vec<String> = others.iter().map(|&o| s.values[o].clone()).collect();
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    let mut series = Vec::new();
    for (k, key) in keys.iter().enumerate() {
        let mut points = Vec::new();
        let mut band = Vec::new();
        for (i, value) in axis.values.iter().enumerate() {
            let mut fixed: Vec<(usize, &String)> = others.iter().copied().zip(key).collect();
            fixed.push((a, value));
            let e = pooled_estimate(settings, m, &fixed);
            if e.n == 0 {
                continue;
            }
            // Categories: each line's points side by side, not on top of each other.
            let x = match categories {
                Some(_) => xs[i] + (k as f64 - (keys.len() - 1) as f64 / 2.0) * 0.06,
                None => xs[i],
            };
            let mean = e.mean * scale.factor;
            points.push((x, mean));
            if let Some(h) = e.ci95 {
                let h = h * scale.factor;
                band.push((x, mean - h, mean + h));
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
    let y = Axis::fit_tight(format!("{}{}", METRICS[m].1, scale.unit), ys);
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
            let pad = if hi > lo { (hi - lo) * 0.05 } else { 0.5 };
            Axis {
                label: axis.name.clone(),
                log: false,
                range: (lo - pad, hi + pad),
            }
        }
    };
    let seeds = grid.seeds.len();
    let pooled_names: Vec<&str> = pooled.iter().map(|&p| grid.axes[p].name.as_str()).collect();
    let over = if pooled.is_empty() {
        format!(
            "mean over {seeds} seed{}",
            if seeds == 1 { "" } else { "s" }
        )
    } else {
        format!(
            "mean over {seeds} seed{} and every value of {} (pooled: of the other parameters {} move{} {} least, \
             and a line for each of their settings would make more than {MAX_LINES})",
            if seeds == 1 { "" } else { "s" },
            and_list(&pooled_names),
            if pooled.len() == 1 { "it" } else { "they" },
            if pooled.len() == 1 { "s" } else { "" },
            METRICS[m].0
        )
    };
    let runs_per_point = seeds
        * pooled
            .iter()
            .map(|&p| grid.axes[p].values.len())
            .product::<usize>();
    Figure {
        name: format!("sweep-{}-vs-{}", slug(METRICS[m].0), slug(&axis.name)),
        caption: format!(
            "{} against {}: {over}{}.",
            METRICS[m].0,
            axis.name,
            if runs_per_point > 1 {
                if categories.is_some() {
                    "; bars: 95 % confidence interval (Student t)"
                } else {
                    "; shaded: 95 % confidence interval (Student t)"
                }
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
            x_clock: false,
        }),
    }
}

fn heatmap_figure(
    grid: &Grid,
    settings: &[Setting],
    m: usize,
    a: usize,
    b: usize,
    swept: &[usize],
) -> Figure {
    let (cols, rows) = (&grid.axes[a], &grid.axes[b]);
    let metric = METRICS[m].0;
    let pooled: Vec<&str> = swept
        .iter()
        .filter(|&&o| o != a && o != b)
        .map(|&o| grid.axes[o].name.as_str())
        .collect();
    let cells: Vec<Vec<Option<Cell>>> = rows
        .values
        .iter()
        .rev()
        .map(|rv| {
            cols.values
                .iter()
                .map(|cv| {
                    let e = pooled_estimate(settings, m, &[(a, cv), (b, rv)]);
                    (e.n > 0).then(|| Cell {
                        value: e.mean,
                        text: shown(metric, e.mean),
                        note: e
                            .ci95
                            .map_or(String::new(), |h| format!("± {}", shown(metric, h))),
                    })
                })
                .collect()
        })
        .collect();
    let values = cells.iter().flatten().flatten().map(|c: &Cell| c.value);
    let (lowest, highest) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
        (l.min(v), h.max(v))
    });
    let color_ends = if lowest <= highest {
        [shown(metric, lowest), shown(metric, highest)]
    } else {
        [String::new(), String::new()]
    };
    Figure {
        name: format!("sweep-{}-heatmap", slug(METRICS[m].0)),
        caption: format!(
            "{metric} over {} × {}{}: mean over seeds{}, with the 95 % interval's half-width.",
            cols.name,
            rows.name,
            if swept.len() > 2 {
                ", the two parameters that move it most"
            } else {
                ""
            },
            if pooled.is_empty() {
                String::new()
            } else {
                format!(" and every value of {}", and_list(&pooled))
            }
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
            legend: format!(
                "Color and number: {}{}.",
                METRICS[m].1,
                match MetricUnit::of(metric) {
                    MetricUnit::Number => String::new(),
                    unit => format!(" ({})", unit.name()),
                }
            ),
            color_ends,
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
    header.extend(metrics.iter().map(|&m| {
        let (name, title) = METRICS[m];
        match MetricUnit::of(name) {
            MetricUnit::Number => title.to_string(),
            unit => format!("{title} ({})", unit.name()),
        }
    }));
    let mut table = Table::new(header);
    for s in settings {
        let mut row = s.values.clone();
        row.push(s.failed.to_string());
        for &m in metrics {
            let e = stats::estimate(&s.samples[m]);
            let metric = METRICS[m].0;
            row.push(match (e.n, e.ci95) {
                (0, _) => "–".into(),
                (_, Some(h)) => format!("{}\n± {}", shown(metric, e.mean), shown(metric, h)),
                (_, None) => shown(metric, e.mean),
            });
        }
        table.rows.push(row);
    }
    let intro = "Each metric against each swept parameter; per setting, the mean over seeds \
                 and its 95 % confidence interval (Student t)."
        .to_string();
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
