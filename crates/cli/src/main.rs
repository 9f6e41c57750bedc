//! `mauisim`: the command line. Parses flags, runs the simulation, prints a summary.

mod summary;

use anyhow::Context;
use clap::{Parser, Subcommand, ValueEnum};
use mauisim_sim::engine::EventOrder;
use mauisim_sim::workload::{Estimate, Filter, MachineOverride};
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
}

#[derive(clap::Args)]
struct RunArgs {
    /// The trace: Standard Workload Format, plain or gzip-compressed.
    trace: PathBuf,
    /// A maui.cfg file with the policy to simulate (default: Maui's defaults).
    #[arg(long, short)]
    config: Option<PathBuf>,
    /// Output directory (created; existing output files in it are replaced).
    #[arg(long, short)]
    out: PathBuf,
    /// Machine size in processors (default: the trace header's MaxProcs, else MaxNodes).
    #[arg(long)]
    procs: Option<u64>,
    /// Machine size in nodes (with --procs-per-node).
    #[arg(long)]
    nodes: Option<u64>,
    /// Processors per node.
    #[arg(long)]
    procs_per_node: Option<u64>,
    /// Where the wallclock limit comes from.
    #[arg(long, value_enum, default_value_t = EstimateArg::Trace)]
    estimate: EstimateArg,
    /// Input filter: `published` rebuilds the input of the published EASY results.
    #[arg(long, value_enum, default_value_t = FilterArg::None)]
    filter: FilterArg,
    /// When scheduling iterations run (see README: per-instant is Maui's, per-event pyss's).
    #[arg(long, value_enum, default_value_t = OrderArg::PerInstant)]
    event_order: OrderArg,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum EstimateArg {
    /// WCL = the trace's requested time.
    Trace,
    /// WCL = the actual runtime (clairvoyant).
    Exact,
}

#[derive(Clone, Copy, ValueEnum)]
enum FilterArg {
    None,
    Published,
}

#[derive(Clone, Copy, ValueEnum)]
enum OrderArg {
    PerInstant,
    PerEvent,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("Error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Run(args) => run_trace(args),
    }
}

fn run_trace(args: RunArgs) -> anyhow::Result<()> {
    let options = RunOptions {
        trace: args.trace,
        config: args.config,
        filter: match args.filter {
            FilterArg::None => Filter::None,
            FilterArg::Published => Filter::Published,
        },
        estimate: match args.estimate {
            EstimateArg::Trace => Estimate::Trace,
            EstimateArg::Exact => Estimate::Exact,
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
    };
    let report = mauisim_sim::run(options)?;
    for warning in &report.config.warnings {
        eprintln!("{warning}");
    }
    mauisim_sim::output::write_all(&args.out, &report)
        .with_context(|| format!("writing outputs to {}", args.out.display()))?;
    if !args.quiet {
        print!("{}", summary::render(&report, &args.out));
    }
    Ok(())
}
