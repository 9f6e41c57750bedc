//! `mauisim`: the command line. Parses flags, runs the simulation, prints a summary.

mod progress;
mod summary;
mod sweep;

use anyhow::Context;
use clap::{Parser, Subcommand, ValueEnum};
use mauisim_config::Duration;
use mauisim_core::Semantics;
use mauisim_sim::engine::EventOrder;
use mauisim_sim::engine::Predictor;
use mauisim_sim::inspect::{blocked, fairshare, priority, windows};
use mauisim_sim::trace::accounts::AccountFrom;
use mauisim_sim::trace::transform::Transform;
use mauisim_sim::trace::workload::{Estimate, Filter, MachineOverride};
use mauisim_sim::RunOptions;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "mauisim",
    version,
    about = "Trace-driven simulator of a batch cluster scheduled by Maui's policies"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Replay a workload trace (SWF, plain or .gz) and write jobs.csv, schedule.swf, summary.json.
    Run(RunArgs),
    /// Stop a run at one instant and show the scheduler's view (like Maui's diagnose).
    Inspect(InspectArgs),
    /// Run a hand-written scenario (TOML: machine, jobs, config, variants) and check the
    /// outcomes it expects; fails if any does not hold.
    Scenario(ScenarioArgs),
    /// Run a grid of config parameters, run options and seeds in parallel; resumable and
    /// shardable (see README: Sweeps).
    Sweep(sweep::SweepCommand),
    /// What changes if config B is deployed instead of A: every summary metric, and who
    /// waits more or less.
    Compare(sweep::CompareArgs),
    /// Write a seeded synthetic workload as SWF (see README: Synthetic workloads).
    Generate(GenerateArgs),
    /// Draw charts and an index.html: of a run directory, of several run directories side
    /// by side, or of a sweep directory (see README: Reports).
    Report(ReportArgs),
}

#[derive(clap::Args)]
struct ReportArgs {
    /// Run directories (`mauisim run --out`), or one sweep directory.
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// Where the report goes (default: the one directory given; required for several).
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// Also write every chart as PNG (drawn with the bundled font).
    #[arg(long)]
    png: bool,
    /// No progress line on stderr.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(clap::Args)]
struct GenerateArgs {
    /// Jobs to generate.
    #[arg(long)]
    jobs: u64,
    /// Machine: nodes.
    #[arg(long, default_value_t = 128)]
    nodes: u64,
    /// Machine: processors per node.
    #[arg(long, default_value_t = 1)]
    procs_per_node: u64,
    /// Offered load the arrival rate aims at.
    #[arg(long, default_value_t = 0.8)]
    load: f64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Share of one-processor jobs.
    #[arg(long, default_value_t = 0.25)]
    serial: f64,
    /// Share of parallel job sizes rounded to a power of two.
    #[arg(long, default_value_t = 0.75)]
    power_of_two: f64,
    /// Median runtime, seconds (log-normal).
    #[arg(long, default_value_t = 1200.0)]
    runtime_median: f64,
    /// Log-standard deviation of runtimes.
    #[arg(long, default_value_t = 2.0)]
    runtime_sigma: f64,
    /// Longest runtime and requested time, seconds.
    #[arg(long, default_value_t = 129600)]
    max_runtime: i64,
    /// Lowest estimate accuracy (runtime / requested time is uniform in [this, 1]).
    #[arg(long, default_value_t = 0.05)]
    accuracy_min: f64,
    /// No progress line on stderr.
    #[arg(long, short)]
    quiet: bool,
    #[arg(long, default_value_t = 200)]
    users: u64,
    #[arg(long, default_value_t = 20)]
    groups: u64,
    /// The trace to write (.gz: compressed).
    #[arg(long, short)]
    out: PathBuf,
}

#[derive(clap::Args)]
struct ScenarioArgs {
    /// The scenario file (see scenarios/README.md).
    file: PathBuf,
    /// Output format: the schedules and checks as text, or JSON.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Draw each variant's schedule as a node-time chart, with index.html, into DIR.
    #[arg(long, value_name = "DIR")]
    charts: Option<PathBuf>,
    /// Also draw the scheduler's view at the iteration at TIME: running jobs,
    /// reservations and backfill windows (repeatable; needs --charts).
    #[arg(long, value_name = "TIME", value_parser = parse_time, requires = "charts")]
    at: Vec<i64>,
    /// Also write the charts as PNG.
    #[arg(long, requires = "charts")]
    png: bool,
}

/// What is simulated: the trace, the config and how to read them.
#[derive(clap::Args)]
struct TraceArgs {
    /// The trace: Standard Workload Format or Maui's workload trace, plain or gzip-compressed.
    trace: PathBuf,
    #[command(flatten)]
    options: TraceOptions,
}

/// How the trace is read and run, but for the trace itself.
#[derive(clap::Args)]
struct TraceOptions {
    /// A maui.cfg file with the policy to simulate (default: Maui's defaults).
    #[arg(long, short)]
    config: Option<PathBuf>,
    /// Machine size in processors (default: the trace header's MaxProcs, else MaxNodes).
    #[arg(long)]
    procs: Option<u64>,
    /// Machine size in nodes (with --procs-per-node).
    #[arg(long)]
    nodes: Option<u64>,
    /// Processors per node.
    #[arg(long)]
    procs_per_node: Option<u64>,
    /// The nodes, from a Maui resource trace (21 fields per node, guide 16.2), instead of
    /// identical nodes from the machine size. NODECFG in the config applies on top.
    #[arg(long, value_name = "FILE")]
    node_file: Option<PathBuf>,
    /// Jobs run their recorded runtime divided by the SPEED of their slowest node
    /// (off: runtimes are as recorded).
    #[arg(long)]
    scale_by_speed: bool,
    /// Where the wallclock limit comes from: `trace` (requested time), `exact` (runtime),
    /// `f-model:F` (runtime x U(1, F)) or `accuracy:A` (per-job accuracy with mean A).
    #[arg(long, default_value = "trace", value_parser = parse_estimate)]
    estimate: Estimate,
    /// Seed of every random draw (estimate models): same seed, same run.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// What the scheduler plans job lengths with: `limit` (the wallclock limit, Maui) or
    /// `tsafrir` (the mean of the user's last two runtimes, corrected when exceeded). Jobs
    /// are still stopped at their limit.
    #[arg(long, default_value = "limit")]
    predictor: Predictor,
    #[command(flatten)]
    shape: ShapeArgs,
    /// Input filter: `published` rebuilds the input of the published EASY results.
    #[arg(long, value_enum, default_value_t = FilterArg::None)]
    filter: FilterArg,
    /// When scheduling iterations run (see README: per-instant is Maui's, per-event pyss's).
    #[arg(long, value_enum, default_value_t = OrderArg::PerInstant)]
    event_order: OrderArg,
    /// Whose reading of the policy to follow: `maui` (Maui 3.3.1 as it runs, the guide
    /// where 3.3.1 is broken), `maui-3.3.1` (3.3.1 with its defects) or `research-easy`
    /// (the research simulators' EASY: priority-order FIRSTFIT, pooled processors).
    #[arg(long, value_enum, default_value_t = SemanticsArg::Maui)]
    semantics: SemanticsArg,
    /// The account each job requests (SWF has none): its user's, group's or class's name.
    /// ADEF/ALIST in the config still apply.
    #[arg(long, value_enum, default_value_t = AccountArg::None)]
    account_from: AccountArg,
    /// Start fairshare from a site's history: the FS.<epoch> files of this directory,
    /// the newest being the window just before the trace starts.
    #[arg(long, value_name = "DIR")]
    fs_init: Option<PathBuf>,
}

/// Reshaping the workload before it runs (applied in this order).
#[derive(clap::Args)]
struct ShapeArgs {
    /// Keep jobs submitted in [START, END) (trace time: seconds or [[DD:]HH:]MM:SS).
    #[arg(long, value_name = "START..END", value_parser = parse_window)]
    window: Option<(i64, i64)>,
    /// Keep only jobs of this queue (class), by its trace name; repeatable.
    #[arg(long = "queue", value_name = "NAME")]
    queues: Vec<String>,
    /// Keep only jobs of this user, by its trace name; repeatable.
    #[arg(long = "user", value_name = "NAME")]
    users: Vec<String>,
    /// Keep the first N jobs.
    #[arg(long, value_name = "N")]
    first: Option<usize>,
    /// Keep the last N jobs.
    #[arg(long, value_name = "N")]
    last: Option<usize>,
    /// Divide the time between submissions by F (> 0).
    #[arg(long, value_name = "F", value_parser = parse_positive)]
    compress: Option<f64>,
    /// Scale the time between submissions so the offered load becomes L (> 0).
    #[arg(long, value_name = "L", value_parser = parse_positive)]
    target_load: Option<f64>,
    /// Add this to every submit time (seconds or [[DD:]HH:]MM:SS, may be negative).
    #[arg(long, value_name = "TIME", value_parser = parse_time, allow_hyphen_values = true)]
    shift: Option<i64>,
    /// Leave jobs submitted during this long after the first one out of the metrics.
    #[arg(long, value_name = "TIME", value_parser = parse_time)]
    warmup: Option<i64>,
}

fn parse_time(text: &str) -> Result<i64, String> {
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    match mauisim_config::parse_duration(body.trim()) {
        Ok((mauisim_config::Duration::Seconds(s), _)) => Ok(if negative { -s } else { s }),
        Ok((mauisim_config::Duration::Infinity, _)) => Err("INFINITY is not a time here".into()),
        Err(e) => Err(e.0),
    }
}

fn parse_window(text: &str) -> Result<(i64, i64), String> {
    let (a, b) = text
        .split_once("..")
        .ok_or_else(|| format!("expected START..END, found `{text}`"))?;
    let (a, b) = (parse_time(a)?, parse_time(b)?);
    if b <= a {
        return Err(format!("the window ends ({b}) before it starts ({a})"));
    }
    Ok((a, b))
}

fn parse_positive(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("expected a positive number, found `{text}`")),
    }
}

#[derive(clap::Args)]
struct RunArgs {
    #[command(flatten)]
    trace: TraceArgs,
    /// Output directory (created; an earlier run's outputs in it are replaced; one that
    /// holds other files is refused unless --force).
    #[arg(long, short)]
    out: PathBuf,
    /// Write into --out even if it holds files that are not a run's outputs.
    #[arg(long)]
    force: bool,
    /// Also write every fairshare window as an FS.<epoch> file (guide 6.3) into DIR.
    #[arg(long, value_name = "DIR")]
    fs_dir: Option<PathBuf>,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
    /// Also record every iteration (timeline.csv) and draw the charts with index.html
    /// into the output directory (see README: Reports).
    #[arg(long)]
    charts: bool,
    /// With --charts: also write the charts as PNG.
    #[arg(long, requires = "charts")]
    png: bool,
    /// Verify the invariants after every iteration (nodes not over-allocated, starts
    /// after submission and once, limits and usage recounts, fairshare totals, kept
    /// reservations where they are promises); stop at the first broken one. Slower.
    #[arg(long)]
    check: bool,
    /// Read, simulate and write one job at a time, holding only the jobs from the oldest
    /// unfinished one on (for traces of millions of jobs; needs records sorted by submit
    /// time). summary.json then has no fairness section.
    #[arg(long)]
    stream: bool,
}

#[derive(clap::Args)]
struct InspectArgs {
    #[command(flatten)]
    trace: TraceArgs,
    /// The instant, in the trace's time: seconds or [[DD:]HH:]MM:SS.
    #[arg(long)]
    at: String,
    /// What to show.
    #[arg(value_enum)]
    view: View,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// For `gantt`: the chart file (`.svg`, or `.png` drawn with the bundled font).
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// For `gantt`: how far back before the instant the chart starts.
    #[arg(long, value_name = "TIME", value_parser = parse_time, default_value = "6:00:00")]
    before: i64,
    /// No progress line on stderr.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum View {
    /// Every idle job's priority, component by component (diagnose -p).
    Priority,
    /// Every idle job with the first limit that blocks it (checkjob, diagnose -q).
    Blocked,
    /// Fairshare usage per window, share, target and priority delta per credential
    /// (diagnose -f).
    Fairshare,
    /// The backfill windows left around the reservations (showbf).
    Windows,
    /// The node-time chart after the iteration: what ran, runs, starts and is reserved,
    /// and the free area left for backfill (needs --out).
    Gantt,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Csv,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum AccountArg {
    None,
    User,
    Group,
    Class,
}

fn parse_estimate(text: &str) -> Result<Estimate, String> {
    text.parse()
}

#[derive(Clone, Copy, ValueEnum)]
enum FilterArg {
    None,
    Published,
}

#[derive(Clone, Copy, ValueEnum)]
enum SemanticsArg {
    Maui,
    #[value(name = "maui-3.3.1")]
    Maui331,
    ResearchEasy,
}

#[derive(Clone, Copy, ValueEnum)]
enum OrderArg {
    PerInstant,
    PerEvent,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Ctrl-C: outputs being written are removed, outputs being moved into place are
    // finished first; then the usual exit status of an interrupted program.
    let _ = ctrlc::set_handler(|| {
        let _no_more_publishing = mauisim_sim::interrupt::abandon();
        if mauisim_sweep::exec::SWEEPING.load(std::sync::atomic::Ordering::SeqCst) {
            let kept = mauisim_sweep::exec::RUNS_KEPT.load(std::sync::atomic::Ordering::SeqCst);
            eprintln!(
                "interrupted: {} kept, no partial output left; the same command resumes the sweep",
                mauisim_sim::units::count(kept as u64, "finished run")
            );
        } else {
            eprintln!("interrupted: no partial output was left");
        }
        std::process::exit(130);
    });
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("Error: {}", error_chain(&e));
            ExitCode::FAILURE
        }
    }
}

/// An error and its causes on one line, leaving out a cause its message already states
/// (an I/O error names its reason, which is also its source).
fn error_chain(e: &anyhow::Error) -> String {
    let mut text = e.to_string();
    for cause in e.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Run(args) => run_trace(args),
        Command::Inspect(args) => inspect(args),
        Command::Scenario(args) => scenario(args),
        Command::Sweep(args) => sweep::sweep(args),
        Command::Compare(args) => sweep::compare(args),
        Command::Generate(args) => generate(args),
        Command::Report(args) => report(args),
    }
}

fn scenario(args: ScenarioArgs) -> anyhow::Result<()> {
    let scenario = mauisim_sim::scenario::load(&args.file)?;
    let result = mauisim_sim::scenario::run_at(&scenario, &args.at)?;
    match args.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&result)?),
        Format::Text | Format::Csv => print!("{}", mauisim_sim::scenario::to_text(&result)),
    }
    if let Some(dir) = &args.charts {
        let options = mauisim_report::Options { png: args.png };
        let written = mauisim_report::scenario_report(&result, dir, options)?;
        eprintln!("charts: {}", written.dir.join("index.html").display());
    }
    let failures = result.failures();
    if failures > 0 {
        let verb = if failures == 1 { "does" } else { "do" };
        anyhow::bail!(
            "{} of {} {verb} not hold",
            mauisim_sim::units::count(failures as u64, "expectation"),
            args.file.display()
        );
    }
    Ok(())
}

fn run_options(trace: PathBuf, args: TraceOptions, fs_dir: Option<PathBuf>) -> RunOptions {
    RunOptions {
        fs_dir,
        timeline: false,
        check: false,
        fs_init: args.fs_init,
        node_file: args.node_file,
        scale_by_speed: args.scale_by_speed,
        trace,
        config: args.config,
        filter: match args.filter {
            FilterArg::None => Filter::None,
            FilterArg::Published => Filter::Published,
        },
        estimate: args.estimate,
        seed: args.seed,
        predictor: args.predictor,
        transform: Transform {
            window: args.shape.window,
            queues: args.shape.queues,
            users: args.shape.users,
            first: args.shape.first,
            last: args.shape.last,
            compress: args.shape.compress,
            target_load: args.shape.target_load,
            shift: args.shape.shift.unwrap_or(0),
            warmup: args.shape.warmup.unwrap_or(0),
        },
        machine: MachineOverride {
            procs: args.procs,
            nodes: args.nodes,
            procs_per_node: args.procs_per_node,
        },
        event_order: match args.event_order {
            OrderArg::PerInstant => EventOrder::PerInstant,
            OrderArg::PerEvent => EventOrder::PerEvent,
        },
        semantics: match args.semantics {
            SemanticsArg::Maui => Semantics::Maui,
            SemanticsArg::Maui331 => Semantics::Maui331,
            SemanticsArg::ResearchEasy => Semantics::ResearchEasy,
        },
        account_from: match args.account_from {
            AccountArg::None => AccountFrom::None,
            AccountArg::User => AccountFrom::User,
            AccountArg::Group => AccountFrom::Group,
            AccountArg::Class => AccountFrom::Class,
        },
    }
}

fn report(args: ReportArgs) -> anyhow::Result<()> {
    let out = match (&args.out, args.dirs.as_slice()) {
        (Some(out), _) => out.clone(),
        (None, [one]) => one.clone(),
        (None, _) => anyhow::bail!("several directories: say where the report goes with --out"),
    };
    let progress = progress::RunProgress::new(
        args.quiet,
        &format!("drawing the report into {}", out.display()),
    );
    let written =
        mauisim_report::report(&args.dirs, &out, mauisim_report::Options { png: args.png })?;
    progress.finish();
    println!(
        "{} charts: {}",
        written.files.iter().filter(|f| f.ends_with(".svg")).count(),
        written.dir.join("index.html").display()
    );
    Ok(())
}

fn run_trace(args: RunArgs) -> anyhow::Result<()> {
    if !args.force {
        mauisim_sim::output::check_out_dir(&args.out)?;
    }
    let mut options = run_options(args.trace.trace, args.trace.options, args.fs_dir);
    options.timeline = args.charts;
    options.check = args.check;
    let mut progress =
        progress::RunProgress::new(args.quiet, &format!("reading {}", options.trace.display()));
    if args.stream {
        progress.simulating(None);
        let streamed = mauisim_sim::stream::run(&options, &args.out)
            .with_context(|| format!("streaming the run into {}", args.out.display()))?;
        progress.finish();
        for warning in &streamed.warnings {
            eprintln!("{warning}");
        }
        if !args.quiet {
            print!("{}", summary::render(&streamed.summary, &args.out, None));
        }
        return Ok(());
    }
    progress.counting(
        &format!("reading {}", options.trace.display()),
        "records",
        None,
    );
    let prepared = mauisim_sim::prepare(&options)?;
    let jobs = &prepared.workload.jobs;
    let span = jobs
        .first()
        .zip(jobs.last())
        .map(|(a, b)| (a.submit, b.submit));
    progress.simulating(span);
    let report = mauisim_sim::run_prepared(prepared, options)?;
    progress.phase(&format!("writing {}", args.out.display()));
    mauisim_sim::output::write_all(&args.out, &report)
        .with_context(|| format!("writing outputs to {}", args.out.display()))?;
    mauisim_sim::write_fs_files(&report).context("writing fairshare files")?;
    progress.finish();
    for warning in report.config.warnings.iter().chain(&report.workload.notes) {
        eprintln!("{warning}");
    }
    if !args.quiet {
        let fs_files = report
            .options
            .fs_dir
            .as_deref()
            .map(|dir| summary::FsFiles {
                dir,
                windows: report.stats.fs_windows.len(),
            });
        print!(
            "{}",
            summary::render(&report.summary(), &args.out, fs_files)
        );
    }
    if args.charts {
        let options = mauisim_report::Options { png: args.png };
        let written = mauisim_report::report(std::slice::from_ref(&args.out), &args.out, options)
            .context("drawing the charts")?;
        if !args.quiet {
            println!("charts: {}", written.dir.join("index.html").display());
        }
    }
    Ok(())
}

fn generate(a: GenerateArgs) -> anyhow::Result<()> {
    let model = mauisim_sim::trace::generate::Model {
        jobs: a.jobs,
        nodes: a.nodes,
        procs_per_node: a.procs_per_node,
        load: a.load,
        seed: a.seed,
        serial: a.serial,
        power_of_two: a.power_of_two,
        runtime_median: a.runtime_median,
        runtime_sigma: a.runtime_sigma,
        max_runtime: a.max_runtime,
        accuracy_min: a.accuracy_min,
        users: a.users,
        groups: a.groups,
    };
    let mut progress = progress::RunProgress::new(a.quiet, "generating");
    progress.counting(
        &format!("generating {}", a.out.display()),
        "jobs",
        Some(a.jobs),
    );
    mauisim_sim::trace::generate::write_file(&model, &a.out)?;
    progress.finish();
    println!("{}: {}", a.out.display(), model.describe());
    Ok(())
}

fn inspect(args: InspectArgs) -> anyhow::Result<()> {
    let at = match mauisim_config::parse_duration(&args.at) {
        Ok((Duration::Seconds(s), _)) => s,
        Ok((Duration::Infinity, _)) => anyhow::bail!("--at: INFINITY is not an instant"),
        Err(e) => anyhow::bail!("--at `{}`: {}", args.at, e.0),
    };
    let options = run_options(args.trace.trace, args.trace.options, None);
    let reading = format!("reading {}", options.trace.display());
    let mut progress = progress::RunProgress::new(args.quiet, &reading);
    progress.counting(&reading, "records", None);
    let prepared = mauisim_sim::prepare(&options)?;
    for warning in &prepared.config.warnings {
        progress.println(warning);
    }
    let first = prepared.workload.jobs.iter().map(|j| j.submit).min();
    progress.simulating_until(
        first.map(|first| (first, at.max(first))),
        "of the way to --at",
    );
    if let View::Gantt = args.view {
        let drawn = draw_gantt(&prepared, at, args.out.as_deref(), args.before);
        progress.finish();
        return drawn;
    }
    let mut snapshot = mauisim_sim::snapshot(&prepared, at);
    progress.finish();
    match args.view {
        View::Priority => {
            let report = priority::report(&prepared, &mut snapshot);
            let text = formatted(args.format, &report, priority::to_text, priority::to_csv)?;
            print!("{text}");
        }
        View::Blocked => {
            let rows = blocked::report(
                &mut snapshot,
                &prepared.workload.jobs,
                &prepared.workload.names,
            );
            let text_of = |rows: &Vec<_>| blocked::to_text(snapshot.now, rows);
            let text = formatted(args.format, &rows, text_of, |rows| blocked::to_csv(rows))?;
            print!("{text}");
        }
        View::Fairshare => {
            let report = fairshare::report(&prepared, &mut snapshot);
            let text = formatted(args.format, &report, fairshare::to_text, fairshare::to_csv)?;
            print!("{text}");
        }
        View::Windows => {
            let report = windows::report(&prepared, &snapshot);
            let text = formatted(args.format, &report, windows::to_text, windows::to_csv)?;
            print!("{text}");
        }
        View::Gantt => {}
    }
    Ok(())
}

/// `inspect … gantt`: the chart after the iteration at `at`, into `--out`.
fn draw_gantt(
    prepared: &mauisim_sim::Prepared,
    at: i64,
    out: Option<&std::path::Path>,
    before: i64,
) -> anyhow::Result<()> {
    let Some(out) = out else {
        anyhow::bail!("the gantt view writes a chart: say where with --out FILE.svg (or .png)");
    };
    let picture = mauisim_sim::inspect::gantt::of_trace_at(prepared, at, before.max(0))?;
    let figure = mauisim_report::gantt::figure("gantt", picture);
    mauisim_report::write_figure(&figure, out)?;
    println!("{}", out.display());
    Ok(())
}

/// A report as text, CSV or JSON.
fn formatted<T: serde::Serialize, E>(
    format: Format,
    report: &T,
    text: impl FnOnce(&T) -> String,
    csv: impl FnOnce(&T) -> Result<String, E>,
) -> anyhow::Result<String>
where
    E: std::error::Error + Send + Sync + 'static,
{
    Ok(match format {
        Format::Text => text(report),
        Format::Csv => csv(report)?,
        Format::Json => serde_json::to_string_pretty(report)? + "\n",
    })
}
