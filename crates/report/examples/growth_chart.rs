//! The cost curves of `scripts/bench.sh growth`: simulation time per job against the
//! average idle queue, one line per trace. A flat line is a cost that does not grow with
//! the queue.
//!
//! Usage: growth_chart GROWTH.csv OUT.svg|OUT.png
//! (the CSV's columns: trace, jobs, avg_idle_queue, sim_seconds, us_per_job)

use mauisim_report::chart::{color, Axis, Chart, Figure, Lines, Series, Style};
use std::collections::BTreeMap;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, csv, out] = args.as_slice() else {
        return Err("usage: growth_chart GROWTH.csv OUT.svg|OUT.png".into());
    };
    let mut by_trace: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    let mut reader = csv::Reader::from_path(csv)?;
    for (i, record) in reader.records().enumerate() {
        let record = record?;
        let field = |k: usize, name: &str| -> Result<f64, String> {
            let text = record.get(k).unwrap_or("");
            text.parse()
                .map_err(|_| format!("{csv}: line {}: {name}: not a number: `{text}`", i + 2))
        };
        let trace = record.get(0).unwrap_or("").to_string();
        let point = (field(2, "avg_idle_queue")?, field(4, "us_per_job")?);
        by_trace.entry(trace).or_default().push(point);
    }
    let series: Vec<Series> = by_trace
        .into_iter()
        .enumerate()
        .map(|(i, (trace, mut points))| {
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            Series {
                style: Style::Line,
                ..Series::line(trace, color(i), points)
            }
        })
        .collect();
    let xs = series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let ys = series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
    let figure = Figure {
        name: "growth".into(),
        caption: "Simulation time per job against the average idle queue".into(),
        width: 900,
        height: 500,
        chart: Chart::Lines(Lines {
            title: "Cost per job as the idle queue grows (first 25k ... 400k jobs)".into(),
            x: Axis::fit("average idle queue, jobs (log)", true, xs),
            y: Axis::fit("simulation time per job, µs", false, ys),
            series,
            categories: None,
            x_clock: false,
        }),
    };
    mauisim_report::write_figure(&figure, std::path::Path::new(out))?;
    println!("{out}");
    Ok(())
}
