//! `mauisim sweep`, `mauisim sweep merge` and `mauisim compare`.

use crate::{run_options, TraceOptions};
use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use mauisim_sweep::grid::{self, Grid};
use mauisim_sweep::metric_unit::{show_metric, MetricUnit};
use mauisim_sweep::results::SettingResult;
use mauisim_sweep::{compare, merge, plan, Metric, Plan, Progress, Status};
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct SweepCommand {
    #[command(subcommand)]
    merge: Option<SweepSub>,
    #[command(flatten)]
    args: SweepArgs,
}

#[derive(clap::Subcommand)]
enum SweepSub {
    /// Join the shard directories of one sweep (`--shard K/N`) into one result set, the
    /// same as the unsharded sweep's.
    Merge {
        /// The merged sweep directory (created; may not hold another sweep).
        #[arg(long, short)]
        out: PathBuf,
        /// The shard directories, one per shard.
        #[arg(required = true)]
        shards: Vec<PathBuf>,
    },
}

#[derive(clap::Args)]
pub struct SweepArgs {
    /// The trace (or give it in the sweep file).
    trace: Option<PathBuf>,
    /// A TOML sweep file: trace, config, seeds, metric and a [set] table of axes
    /// (scenarios/sweeps/). --set adds axes after the file's.
    #[arg(long, value_name = "FILE")]
    file: Option<PathBuf>,
    /// An axis: NAME=V1,V2,… or NAME=START:END:STEP; a maui.cfg parameter
    /// (RESERVATIONDEPTH, `USERCFG[DEFAULT] MAXJOB`, …) or estimate, predictor,
    /// target-load, compress. Separate values with `;` when they hold commas. Repeatable;
    /// the first is the outermost loop.
    #[arg(long = "set", value_name = "NAME=VALUES")]
    sets: Vec<String>,
    /// Seeds: A..B (inclusive), a list, or one (default: --seed).
    #[arg(long)]
    seeds: Option<String>,
    /// Runs at once (default: every core).
    #[arg(long, short)]
    jobs: Option<usize>,
    /// Run only the K-th of N disjoint slices of the grid (then `sweep merge`).
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    shard: Option<[usize; 2]>,
    /// The summary metric whose best value the progress line shows.
    #[arg(long)]
    metric: Option<String>,
    /// The sweep directory: results.csv, results.json, summary.csv, runs/. The same
    /// command again resumes an interrupted sweep.
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    options: TraceOptions,
}

fn parse_shard(text: &str) -> Result<[usize; 2], String> {
    let (k, n) = text
        .split_once('/')
        .ok_or_else(|| format!("expected K/N, found `{text}`"))?;
    let number = |s: &str| {
        s.trim()
            .parse::<usize>()
            .map_err(|_| format!("`{s}` is not a count"))
    };
    let (k, n) = (number(k)?, number(n)?);
    if n == 0 || k == 0 || k > n {
        return Err(format!("shard {k}/{n}: K must be within 1..={n}"));
    }
    Ok([k, n])
}

#[derive(clap::Args)]
// A and B are the configs: the shared --config is not one of compare's options.
#[command(mut_arg("config", |a| a.hide(true)))]
pub struct CompareArgs {
    /// The trace.
    trace: PathBuf,
    /// The config in use.
    a: PathBuf,
    /// The config considered.
    b: PathBuf,
    /// Seeds: A..B (inclusive), a list, or one (default: --seed).
    #[arg(long)]
    seeds: Option<String>,
    /// Runs at once (default: every core).
    #[arg(long, short)]
    jobs: Option<usize>,
    /// Credentials listed per direction in the printed table (the CSV has all).
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Where compare.csv, credentials.csv and compare.json go.
    #[arg(long, short)]
    out: PathBuf,
    /// No progress line on stderr.
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    options: TraceOptions,
}

fn threads(jobs: Option<usize>) -> usize {
    jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

pub fn sweep(command: SweepCommand) -> anyhow::Result<()> {
    if let Some(SweepSub::Merge { out, shards }) = command.merge {
        let dirs: Vec<&std::path::Path> = shards.iter().map(PathBuf::as_path).collect();
        let runs = merge::merge(&out, &dirs)?;
        println!(
            "merged {} shards: {runs} runs in {}",
            shards.len(),
            out.display()
        );
        return Ok(());
    }
    let args = command.args;
    let out = args
        .out
        .clone()
        .context("--out DIR is required: where the sweep's runs and results go")?;
    let from_file = match &args.file {
        Some(path) => plan::read_file(path)?,
        None => plan::FromFile::default(),
    };
    let trace = match (args.trace.clone(), from_file.trace) {
        (Some(_), Some(_)) => {
            anyhow::bail!("the trace is given twice: on the command line and in the sweep file")
        }
        (Some(t), None) | (None, Some(t)) => t,
        (None, None) => anyhow::bail!("no trace: give TRACE or a sweep file that names one"),
    };
    let mut options = args.options;
    if from_file.config.is_some() {
        if options.config.is_some() {
            anyhow::bail!("the config is given twice: --config and in the sweep file");
        }
        options.config = from_file.config;
    }
    let seed = options.seed;
    let mut axes = from_file.axes;
    for set in &args.sets {
        axes.push(grid::parse_set(set)?);
    }
    let seeds = match (&args.seeds, from_file.seeds) {
        (Some(text), _) => grid::parse_seeds(text)?,
        (None, Some(seeds)) => seeds,
        (None, None) => vec![seed],
    };
    let metric = match args.metric.as_deref().or(from_file.metric.as_deref()) {
        Some(name) => Metric::named(name)?,
        None => Metric::default(),
    };
    let plan = Plan {
        base: run_options(trace, options, None),
        grid: Grid::new(axes, seeds)?,
        metric,
    };
    let checked = plan::check(plan)?;
    if !args.quiet {
        for warning in &checked.warnings {
            eprintln!("{warning}");
        }
    }
    let display = Display::new(args.quiet, &checked.plan.metric);
    let report = mauisim_sweep::execute(&checked, &out, threads(args.jobs), args.shard, &display)?;
    display.finish();
    if !args.quiet {
        print!(
            "{}",
            settings_table(&report.settings, &checked.plan.metric.name, 10)
        );
        println!(
            "{} runs: {} run now, {} kept from before, {} failed; results in {}",
            report.total,
            report.ran,
            report.reused,
            report.failed,
            out.display()
        );
    }
    if report.failed > 0 {
        anyhow::bail!(
            "{} of {} runs failed: see the error column of {}",
            report.failed,
            report.total,
            out.join("results.csv").display()
        );
    }
    Ok(())
}

/// The `top` best settings by the watched metric (mean over seeds, in its unit).
fn settings_table(settings: &[SettingResult], metric: &str, top: usize) -> String {
    let mut out = String::new();
    if settings.is_empty() {
        return out;
    }
    let shown = settings.len().min(top);
    out.push_str(&format!(
        "{metric}, mean over seeds, best first ({shown} of {} settings; all in summary.csv):\n",
        settings.len()
    ));
    let width = settings[..shown]
        .iter()
        .map(|s| s.label.len())
        .max()
        .unwrap_or(0)
        .max("setting".len());
    let unit = match MetricUnit::of(metric) {
        MetricUnit::Number => String::new(),
        unit => format!(" ({})", unit.name()),
    };
    let mean = format!("mean{unit}");
    out.push_str(&format!(
        "  {:<width$}  {:>4}  {mean:>14}  95% CI half-width{unit}\n",
        "setting", "runs"
    ));
    for s in &settings[..shown] {
        let mean = s
            .mean
            .map_or("-".to_string(), |m| MetricUnit::of(metric).show(m));
        let ci = s
            .ci95
            .map_or(String::new(), |h| MetricUnit::of(metric).show(h));
        let label = if s.label.is_empty() {
            "(the base config)"
        } else {
            &s.label
        };
        out.push_str(&format!(
            "  {label:<width$}  {:>4}  {mean:>14}  {ci}\n",
            s.runs
        ));
    }
    out
}

/// Progress: a bar on a terminal, nothing otherwise.
struct Display {
    bar: Option<ProgressBar>,
    metric: String,
}

impl Display {
    fn new(quiet: bool, metric: &Metric) -> Display {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template("{bar:30} {pos}/{len} runs  ETA {eta}  {wide_msg}")
                    .expect("valid template"),
            );
            bar
        });
        Display {
            bar,
            metric: metric.name.clone(),
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Progress for Display {
    fn update(&self, status: &Status) {
        let Some(bar) = &self.bar else {
            return;
        };
        // The bar and its ETA count the runs made now, not those kept from before.
        bar.set_length((status.total - status.reused) as u64);
        bar.set_position((status.done - status.reused) as u64);
        let mut message = match &status.best {
            Some((value, run)) => format!(
                "best run so far: {} {} ({run})",
                self.metric,
                show_metric(&self.metric, *value)
            ),
            None => String::new(),
        };
        if status.reused > 0 {
            message.push_str(&format!("  {} kept from before", status.reused));
        }
        if status.failed > 0 {
            message.push_str(&format!("  {} failed", status.failed));
        }
        bar.set_message(message);
    }
}

pub fn compare(args: CompareArgs) -> anyhow::Result<()> {
    if args.options.config.is_some() {
        anyhow::bail!("compare takes its two configs as arguments A and B, not --config");
    }
    let seeds = match &args.seeds {
        Some(text) => grid::parse_seeds(text)?,
        None => vec![args.options.seed],
    };
    let threads = threads(args.jobs);
    let base = run_options(args.trace, args.options, None);
    let runs = mauisim_sim::units::count(2 * seeds.len() as u64, "run");
    let progress = crate::progress::RunProgress::new(
        args.quiet,
        &format!(
            "comparing {} and {} ({runs})",
            args.a.display(),
            args.b.display()
        ),
    );
    let comparison = compare::compare(&base, &args.a, &args.b, &seeds, threads)?;
    progress.finish();
    compare::write(&args.out, &comparison)
        .with_context(|| format!("writing {}", args.out.display()))?;
    print!("{}", compare::to_text(&comparison, args.top));
    Ok(())
}
