//! Charts and HTML reports (`mauisim report`, `run --charts`, `scenario --charts`): every
//! chart is data first ([`chart::Figure`]), then drawn with plotters into SVG and, on
//! request, PNG with the bundled font. A report directory is written whole or not at all.

pub mod chart;
pub mod data;
pub mod error;
mod font;
pub mod gantt;
pub mod html;
pub mod run_report;
pub mod series;
pub mod sweep_report;
pub mod units;

pub use error::{ReportError, Result};

use chart::Figure;
use html::{Page, Table};
use mauisim_sim::scenario::ScenarioResult;
use mauisim_sim::units::clock;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Also write every chart as PNG.
    pub png: bool,
}

/// What a report wrote.
#[derive(Debug, Clone)]
pub struct Written {
    pub dir: PathBuf,
    pub files: Vec<String>,
}

/// The report of `inputs` into `out`: one run directory, several run directories (drawn
/// side by side), or one sweep directory.
pub fn report(inputs: &[PathBuf], out: &Path, options: Options) -> Result<Written> {
    let (figures, page) = match inputs {
        [] => {
            return Err(ReportError::Usage(
                "nothing to report on: give a run or sweep directory".into(),
            ))
        }
        [one] if sweep_report::is_sweep_dir(one) => sweep_report::figures(one)?,
        dirs => {
            let mut runs = Vec::with_capacity(dirs.len());
            for dir in dirs {
                if sweep_report::is_sweep_dir(dir) {
                    return Err(ReportError::Usage(format!(
                        "{}: a sweep directory is reported on alone",
                        dir.display()
                    )));
                }
                if !data::is_run_dir(dir) {
                    return Err(ReportError::Usage(format!(
                        "{}: neither a run directory (summary.json and jobs.csv) nor a sweep directory (sweep.json)",
                        dir.display()
                    )));
                }
                runs.push(data::read_run(dir)?);
            }
            let mut labels: Vec<&str> = runs.iter().map(|r| r.label.as_str()).collect();
            labels.sort_unstable();
            if labels.windows(2).any(|w| w[0] == w[1]) {
                return Err(ReportError::Usage(
                    "two run directories have the same name; runs are labelled by their directory names".into(),
                ));
            }
            run_report::figures(&runs)
        }
    };
    write(figures, page, out, options)
}

/// The pictures of a scenario's variants (whole schedules, and iterations if asked for),
/// with its jobs and checks.
pub fn scenario_report(result: &ScenarioResult, out: &Path, options: Options) -> Result<Written> {
    let mut figures = Vec::new();
    let mut tables = Vec::new();
    for (v, variant) in result.variants.iter().enumerate() {
        for picture in &variant.pictures {
            let name = match picture.now {
                None => format!("gantt-{}", v + 1),
                Some(at) => format!("gantt-{}-at-{}", v + 1, at),
            };
            figures.push(gantt::figure(&name, picture.clone()));
        }
        let mut jobs = Table::new(
            [
                "job",
                "procs",
                "submit",
                "start",
                "end",
                "backfilled",
                "nodes",
            ]
            .map(String::from)
            .to_vec(),
        );
        for j in &variant.jobs {
            jobs.rows.push(vec![
                j.name.clone(),
                j.procs.to_string(),
                clock(j.submit),
                clock(j.start),
                clock(j.end),
                if j.backfilled { "yes" } else { "no" }.into(),
                j.nodes.clone(),
            ]);
        }
        tables.push((format!("{}: jobs", variant.name), jobs));
        if !variant.checks.is_empty() {
            let mut checks = Table::new(
                ["line", "check", "expected", "actual", "ok"]
                    .map(String::from)
                    .to_vec(),
            );
            for c in &variant.checks {
                checks.rows.push(vec![
                    c.line.to_string(),
                    c.what.clone(),
                    c.expected.clone(),
                    c.actual.clone(),
                    if c.ok { "ok" } else { "FAILED" }.into(),
                ]);
            }
            tables.push((format!("{}: checks", variant.name), checks));
        }
    }
    let page = Page {
        title: result.title.clone(),
        intro: result.about.clone(),
        tables,
        figures: figures
            .iter()
            .map(|f| (f.name.clone(), f.caption.clone()))
            .collect(),
    };
    write(figures, page, out, options)
}

/// Draws every figure and writes them with `index.html` into `out`, atomically; files of
/// an earlier report there that this one does not make are removed. Figures whose names
/// collide (labels that differ only in case or punctuation) get `-2`, `-3`, … appended.
pub fn write(
    mut figures: Vec<Figure>,
    mut page: Page,
    out: &Path,
    options: Options,
) -> Result<Written> {
    let mut seen = std::collections::BTreeSet::new();
    for f in &mut figures {
        let base = f.name.clone();
        let mut k = 1;
        while !seen.insert(f.name.clone()) {
            k += 1;
            f.name = format!("{base}-{k}");
        }
    }
    page.figures = figures
        .iter()
        .map(|f| (f.name.clone(), f.caption.clone()))
        .collect();
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for f in &figures {
        files.push((format!("{}.svg", f.name), f.svg()?.into_bytes()));
        if options.png {
            files.push((format!("{}.png", f.name), f.png()?));
        }
    }
    files.push(("index.html".into(), page.render().into_bytes()));
    let manifest: String = files.iter().map(|(name, _)| format!("{name}\n")).collect();
    files.push((
        mauisim_sim::output::REPORT_MANIFEST.into(),
        manifest.into_bytes(),
    ));
    let obsolete = mauisim_sim::output::report_files(out);
    mauisim_sim::output::replace_files(out, &files, &obsolete)?;
    Ok(Written {
        dir: out.to_path_buf(),
        files: files.into_iter().map(|(name, _)| name).collect(),
    })
}

/// Writes one figure to `path`: PNG when the name ends in `.png`, else SVG; through a
/// temporary file, so the path holds a whole chart or nothing.
pub fn write_figure(figure: &Figure, path: &Path) -> Result<()> {
    let png = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("png"));
    let bytes = if png {
        figure.png()?
    } else {
        figure.svg()?.into_bytes()
    };
    Ok(mauisim_sim::output::write_file_atomically(path, &bytes)?)
}
