//! The charts of one run, or of several runs of one workload side by side (one line per
//! run; one matrix per run).

use crate::chart::{color, Axis, Cell, Chart, Figure, Heatmap, Lines, Series, Style};
use crate::data::{JobRecord, RunData};
use crate::html::{Page, Table};
use crate::series::{self, Bins, Buckets};
use crate::units::TimeUnit;
use mauisim_sim::units::words;
use mauisim_sweep::metric_unit::MetricUnit;

const BINS: usize = 200;
const CDF_POINTS: usize = 400;

/// Every chart of `runs`, and the page that shows them.
pub fn figures(runs: &[RunData]) -> (Vec<Figure>, Page) {
    let t0 = runs
        .iter()
        .flat_map(|r| r.jobs.iter().map(|j| j.submit))
        .min()
        .unwrap_or(0);
    let t1 = runs
        .iter()
        .flat_map(|r| r.jobs.iter().map(|j| j.end))
        .max()
        .unwrap_or(t0 + 1);
    let bins = Bins::new(t0, t1, BINS);
    let unit = TimeUnit::for_span(bins.t1 - bins.t0);
    let x: Vec<f64> = bins
        .centers()
        .iter()
        .map(|&c| (c - t0 as f64) / unit.seconds())
        .collect();
    let time_axis = |values: &[f64]| Axis {
        label: format!("time since the first submission ({})", unit.name()),
        log: false,
        range: (
            0.0,
            values.last().copied().unwrap_or(1.0) + bins.width() / 2.0 / unit.seconds(),
        ),
    };
    let several = runs.len() > 1;
    let mut figures = Vec::new();

    let util: Vec<Series> = runs
        .iter()
        .enumerate()
        .map(|(k, r)| {
            let u = series::utilization(&r.jobs, r.machine_procs, bins);
            Series {
                style: if several { Style::Line } else { Style::Area },
                ..Series::line(&r.label, color(k), zip(&x, u.iter().map(|v| v * 100.0)))
            }
        })
        .collect();
    let demand: Vec<Series> = runs
        .iter()
        .enumerate()
        .map(|(k, r)| {
            let d = series::queued_demand(&r.jobs, r.machine_procs, bins);
            Series::line(&r.label, color(k), zip(&x, d.iter().map(|v| v * 100.0)))
        })
        .collect();
    figures.push(Figure {
        name: "utilization".into(),
        caption: format!(
            "Top: dedicated processors over total processors, averaged over bins of {}. \
             Bottom: processors asked for by the jobs waiting in the queue, as a share of the \
             machine (above 100 %: more work waits than the machine could start).",
            mauisim_sim::units::clock(bins.width().round() as i64)
        ),
        width: 1000,
        height: 640,
        chart: Chart::Panels {
            title: "Utilization and queued demand".into(),
            panels: vec![
                Lines {
                    title: "utilization".into(),
                    x: time_axis(&x),
                    y: Axis {
                        label: "utilization (%)".into(),
                        log: false,
                        range: (0.0, 105.0),
                    },
                    series: util,
                    categories: None,
                    x_clock: false,
                },
                Lines {
                    title: "queued demand".into(),
                    x: time_axis(&x),
                    y: Axis::fit(
                        "queued processors (% of machine)",
                        false,
                        points_of(&demand),
                    ),
                    series: demand,
                    categories: None,
                    x_clock: false,
                },
            ],
        },
    });

    let queue: Vec<Series> = runs
        .iter()
        .enumerate()
        .map(|(k, r)| {
            let q = series::queue_length(&r.jobs, bins);
            Series::line(&r.label, color(k), zip(&x, q.into_iter()))
        })
        .collect();
    let reserved: Vec<Series> = runs
        .iter()
        .enumerate()
        .filter_map(|(k, r)| {
            let t = r.timeline.as_ref()?;
            let v = series::reserved(t, bins);
            Some(Series::line(&r.label, color(k), zip(&x, v.into_iter())))
        })
        .collect();
    let mut panels = vec![Lines {
        title: "waiting jobs".into(),
        x: time_axis(&x),
        y: Axis::fit("jobs waiting", false, points_of(&queue)),
        series: queue,
        categories: None,
        x_clock: false,
    }];
    let mut queue_caption = "Jobs waiting in the queue (time average per bin)".to_string();
    if reserved.is_empty() {
        queue_caption.push_str(
            ". Reserved jobs are not shown: the run did not record its iterations \
             (run it with --charts).",
        );
    } else {
        queue_caption.push_str(", and jobs holding a reservation after each iteration.");
        panels.push(Lines {
            title: "reserved jobs".into(),
            x: time_axis(&x),
            y: Axis::fit("jobs with a reservation", false, points_of(&reserved)),
            series: reserved,
            categories: None,
            x_clock: false,
        });
    }
    figures.push(Figure {
        name: "queue".into(),
        caption: queue_caption,
        width: 1000,
        height: 320 * panels.len() as u32,
        chart: Chart::Panels {
            title: "Queue length and reservations".into(),
            panels,
        },
    });

    let xf: Vec<Series> = runs
        .iter()
        .enumerate()
        .map(|(k, r)| {
            let m = series::mean_by_end(&r.jobs, bins, JobRecord::xfactor);
            let points = x
                .iter()
                .zip(m)
                .filter_map(|(&x, v)| v.map(|v| (x, v)))
                .collect();
            Series::line(&r.label, color(k), points)
        })
        .collect();
    figures.push(Figure {
        name: "xfactor-time".into(),
        caption: "Average expansion factor ((wait + run) / wallclock limit, as Maui's \
                  showstats) of the jobs ending in each bin; bins where no job ended are \
                  left out."
            .into(),
        width: 1000,
        height: 420,
        chart: Chart::Lines(Lines {
            title: "Expansion factor over time".into(),
            x: time_axis(&x),
            y: Axis::fit("average expansion factor", true, points_of(&xf)),
            series: xf,
            categories: None,
            x_clock: false,
        }),
    });

    // (A wait axis is labelled as text writes durations; the slowdown's is a ratio.)
    let cdf_figure =
        |name: &str, title: &str, caption: &str, label: &str, value: fn(&JobRecord) -> f64| {
            let x_clock = name == "wait-cdf";
            let lines: Vec<Series> = runs
                .iter()
                .enumerate()
                .map(|(k, r)| {
                    let mut v: Vec<f64> = r.jobs.iter().map(value).collect();
                    let c = series::cdf(&mut v, CDF_POINTS);
                    Series::line(
                        &r.label,
                        color(k),
                        c.into_iter().map(|(x, y)| (x, y * 100.0)).collect(),
                    )
                })
                .collect();
            let x = Axis::fit(
                label,
                true,
                lines.iter().flat_map(|s| s.points.iter().map(|p| p.0)),
            );
            Figure {
                name: name.into(),
                caption: caption.into(),
                width: 1000,
                height: 460,
                chart: Chart::Lines(Lines {
                    title: title.into(),
                    x,
                    y: Axis {
                        label: "jobs at or below (%)".into(),
                        log: false,
                        range: (0.0, 101.0),
                    },
                    series: lines,
                    categories: None,
                    x_clock,
                }),
            }
        };
    figures.push(cdf_figure(
        "wait-cdf",
        "Waiting time distribution",
        "Distribution of waiting times (log scale). Waits under one second are drawn at \
         one second.",
        "wait ([D:]H:M:S, log scale)",
        |j| (j.wait() as f64).max(1.0),
    ));
    figures.push(cdf_figure(
        "slowdown-cdf",
        "Bounded slowdown distribution",
        "Distribution of bounded slowdown, max((wait + run) / max(run, 10 s), 1) (log scale).",
        "bounded slowdown",
        JobRecord::bounded_slowdown,
    ));

    for r in runs {
        let suffix = if several {
            format!("-{}", slug(&r.label))
        } else {
            String::new()
        };
        let of = |what: &str| {
            if several {
                format!("{what} — {}", r.label)
            } else {
                what.to_string()
            }
        };
        figures.push(matrix_figure(
            &format!("xfactor-matrix{suffix}"),
            &of("Average expansion factor by job size and requested walltime"),
            r,
            JobRecord::xfactor,
            |v| format!("{v:.2}"),
            (true, None),
            "Color: average expansion factor (log scale). Small number: jobs.",
        ));
        figures.push(matrix_figure(
            &format!("wait-matrix{suffix}"),
            &of("Average wait by job size and requested walltime"),
            r,
            |j| j.wait() as f64 / 3600.0,
            |v| format!("{v:.2} h"),
            (false, None),
            "Color: average wait in hours. Small number: jobs.",
        ));
        figures.push(matrix_figure(
            &format!("backfill-matrix{suffix}"),
            &of("Backfilled share by job size and requested walltime"),
            r,
            |j| if j.backfilled { 100.0 } else { 0.0 },
            |v| format!("{v:.0} %"),
            (false, Some((0.0, 100.0))),
            "Color: share of the jobs started by backfill. Small number: jobs.",
        ));
    }
    let page = page(runs, &figures);
    (figures, page)
}

fn zip(x: &[f64], y: impl Iterator<Item = f64>) -> Vec<(f64, f64)> {
    x.iter().copied().zip(y).collect()
}

fn points_of(series: &[Series]) -> impl Iterator<Item = f64> + '_ {
    series.iter().flat_map(|s| s.points.iter().map(|p| p.1))
}

/// A file-name-safe form of a label.
pub fn slug(label: &str) -> String {
    let s: String = label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let s = s.trim_matches('-').to_string();
    if s.is_empty() {
        "run".into()
    } else {
        s
    }
}

fn matrix_figure(
    name: &str,
    title: &str,
    run: &RunData,
    value: impl Fn(&JobRecord) -> f64,
    text: impl Fn(f64) -> String,
    (log_color, color_range): (bool, Option<(f64, f64)>),
    legend: &str,
) -> Figure {
    let columns = Buckets::procs(run.machine_procs);
    let rows = Buckets::walltime();
    let m = series::matrix(&run.jobs, &columns, &rows, value);
    let column_names = columns.labels(|b| b.to_string(), 1);
    let row_names = rows.labels(|b| words(b as i64), 0);
    // Longest walltimes on top; rows past the longest job are left out.
    let used = m
        .iter()
        .rposition(|row| row.iter().any(Option::is_some))
        .map_or(1, |r| r + 1);
    let cells: Vec<Vec<Option<Cell>>> = m[..used]
        .iter()
        .rev()
        .map(|row| {
            row.iter()
                .map(|c| {
                    c.map(|c| Cell {
                        value: c.value,
                        text: text(c.value),
                        note: if c.jobs == 1 {
                            "1 job".to_string()
                        } else {
                            format!("{} jobs", c.jobs)
                        },
                    })
                })
                .collect()
        })
        .collect();
    let (lowest, highest) = color_range.unwrap_or_else(|| {
        m.iter()
            .flatten()
            .flatten()
            .map(|c| c.value)
            .filter(|v| v.is_finite() && (!log_color || *v > 0.0))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
                (l.min(v), h.max(v))
            })
    });
    let color_ends = if lowest <= highest {
        [text(lowest), text(highest)]
    } else {
        [String::new(), String::new()]
    };
    let mut row_names: Vec<String> = row_names[..used].to_vec();
    row_names.reverse();
    let height = 200 + 70 * used as u32;
    Figure {
        name: name.into(),
        caption: format!(
            "{title}, as Maui's showstats matrix: columns by processors, rows by requested \
             walltime."
        ),
        width: 1000,
        height,
        chart: Chart::Heatmap(Heatmap {
            title: title.into(),
            x_label: "processors requested".into(),
            y_label: "requested walltime".into(),
            columns: column_names,
            rows: row_names,
            cells,
            log_color,
            color_range,
            legend: legend.into(),
            color_ends,
        }),
    }
}

/// The summary rows, in order: `summary.json` key and title (units from [`MetricUnit`]).
const SUMMARY_ROWS: &[(&str, &str)] = &[
    ("jobs", "jobs"),
    ("offered_load", "offered load"),
    ("utilization", "utilization"),
    ("avg_wait", "average wait"),
    ("median_wait", "median wait"),
    ("p95_wait", "95th percentile wait"),
    ("max_wait", "longest wait"),
    ("avg_response", "average turnaround"),
    ("avg_bounded_slowdown", "average bounded slowdown"),
    ("avg_xfactor", "average expansion factor"),
    (
        "avg_xfactor_ps_weighted",
        "expansion factor, weighted by proc-seconds",
    ),
    ("backfilled_fraction", "backfilled"),
    ("reserved_jobs", "jobs ever reserved"),
    ("reservations_kept_fraction", "reservations kept"),
    ("avg_wallclock_accuracy", "wallclock accuracy"),
    ("cancelled_jobs", "cancelled at their limit"),
    ("held", "held (never runnable)"),
    ("makespan", "makespan"),
];

fn page(runs: &[RunData], figures: &[Figure]) -> Page {
    let text = |r: &RunData, key: &str| {
        r.summary
            .get(key)
            .map(|v| match v {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .unwrap_or_else(|| "–".into())
    };
    let policy = |r: &RunData| {
        r.summary
            .pointer("/config/policy/backfill")
            .and_then(|v| v.as_str())
            .unwrap_or("–")
            .to_string()
    };
    // Calendar dates where the trace gave them (summary.json `period`).
    let period = |r: &RunData| {
        let date = |key: &str| r.summary.pointer(key).and_then(|v| v.as_str());
        match (date("/period/first_submit"), date("/period/last_end")) {
            (Some(a), Some(b)) => format!("{a} – {b} UTC"),
            _ => "–".into(),
        }
    };
    let mut header = vec!["".to_string()];
    header.extend(runs.iter().map(|r| r.label.clone()));
    let mut about = Table::new(header.clone());
    for (title, value) in [
        (
            "trace",
            &(|r: &RunData| text(r, "trace")) as &dyn Fn(&RunData) -> String,
        ),
        ("machine", &|r: &RunData| text(r, "nodes_from")),
        ("period", &period),
        ("BACKFILLPOLICY", &policy),
        ("estimates", &|r: &RunData| text(r, "estimate")),
    ] {
        let mut row = vec![title.to_string()];
        row.extend(runs.iter().map(value));
        about.rows.push(row);
    }
    // Then every other setting that differs between the runs (RESERVATIONDEPTH[0], a
    // weight, --semantics …), so what was compared is on the page.
    let summaries: Vec<&serde_json::Value> = runs.iter().map(|r| &r.summary).collect();
    let shown = ["trace", "machine", "BACKFILLPOLICY", "--estimate"];
    for d in mauisim_sim::settings::differences(&summaries) {
        if !shown.contains(&d.setting.as_str()) {
            let mut row = vec![d.setting];
            row.extend(d.values);
            about.rows.push(row);
        }
    }
    // Two runs: the change B − A beside them, as compare prints it.
    let change = runs.len() == 2;
    let mut metrics_header = header;
    metrics_header.insert(1, "unit".into());
    if change {
        let (a, b) = (&runs[0].label, &runs[1].label);
        metrics_header.push(format!("{b} − {a}"));
        metrics_header.push(format!("{b} − {a} (%)"));
    }
    let mut metrics = Table::new(metrics_header);
    for &(key, title) in SUMMARY_ROWS {
        if runs.iter().all(|r| r.number(key).is_none()) {
            continue;
        }
        let unit = MetricUnit::of(key);
        let mut row = vec![title.to_string(), unit.name().to_string()];
        row.extend(
            runs.iter()
                .map(|r| r.number(key).map_or("–".into(), |v| unit.show(v))),
        );
        if change {
            match (runs[0].number(key), runs[1].number(key)) {
                (Some(a), Some(b)) => {
                    row.push(unit.change(b - a));
                    row.push(if a != 0.0 {
                        format!("{:+.1}", 100.0 * (b - a) / a.abs())
                    } else {
                        "–".into()
                    });
                }
                _ => row.extend(["–".to_string(), "–".to_string()]),
            }
        }
        metrics.rows.push(row);
    }
    let title = if runs.len() == 1 {
        format!("mauisim report: {}", runs[0].label)
    } else {
        format!(
            "mauisim report: {}",
            runs.iter()
                .map(|r| r.label.as_str())
                .collect::<Vec<_>>()
                .join(" vs ")
        )
    };
    Page {
        title,
        intro: "Charts of simulated schedules. Times read [D:]H:M:S in the tables and each \
                chart axis names its unit; every number comes from the run's jobs.csv and \
                summary.json."
            .into(),
        tables: vec![("Runs".into(), about), ("Summary".into(), metrics)],
        figures: figures
            .iter()
            .map(|f| (f.name.clone(), f.caption.clone()))
            .collect(),
    }
}
