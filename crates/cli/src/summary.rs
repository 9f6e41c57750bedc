//! The one-screen human summary printed after a run.

use mauisim_sim::trace::workload::describe;
use mauisim_sim::units::count;
use mauisim_sim::Summary;
use std::fmt::Write;
use std::path::Path;

/// BACKFILLPOLICY as written, with the metric where it matters.
fn backfill_text(policy: &mauisim_core::PolicyConfig) -> String {
    use mauisim_core::BackfillPolicy;
    match policy.backfill {
        BackfillPolicy::FirstFit | BackfillPolicy::None => policy.backfill.name().to_string(),
        BackfillPolicy::BestFit => format!("BESTFIT by {}", policy.backfill_metric.name()),
        BackfillPolicy::Greedy => format!(
            "GREEDY by {} (at most {} schedules)",
            policy.backfill_metric.name(),
            policy.backfill_max_schedules
        ),
    }
}

use mauisim_sim::units::clock_of;

/// Utilization, waits and bounded slowdown: the lines every run summary starts its
/// metrics with.
fn usage_and_waits(text: &mut String, m: &mauisim_sim::metrics::Metrics) {
    let _ = writeln!(text, "  utilization    {:.2} %", 100.0 * m.utilization);
    let _ = writeln!(
        text,
        "  wait           avg {}  median {}  p95 {}  max {}",
        clock_of(m.avg_wait),
        clock_of(m.median_wait as f64),
        clock_of(m.p95_wait as f64),
        clock_of(m.max_wait as f64)
    );
    let _ = writeln!(
        text,
        "  bounded sld    avg {:.4} (tau 10 s)",
        m.avg_bounded_slowdown
    );
}

/// Where `--fs-dir` wrote the fairshare windows, and how many.
pub struct FsFiles<'a> {
    pub dir: &'a Path,
    pub windows: usize,
}

/// The summary of a run, in memory or streamed (which has fewer figures: no policy line,
/// no per-credential fairness, and how many jobs it held at once).
pub fn render(s: &Summary, out: &Path, fs_files: Option<FsFiles>) -> String {
    let m = &s.metrics;
    let mut text = String::new();
    if s.streamed {
        let _ = writeln!(text, "mauisim (streamed): {}", s.trace);
    } else {
        let _ = writeln!(text, "mauisim: {}", s.trace);
    }
    let _ = writeln!(
        text,
        "  machine        {} processors on {} nodes ({}; {})",
        s.machine_procs,
        s.machine_nodes,
        s.nodes_from,
        if s.pooled_processors {
            "processors pooled"
        } else {
            "tracked per node"
        }
    );
    if !s.streamed {
        let _ = writeln!(
            text,
            "  policy         backfill {}, reservation depth {}, event order {}, semantics {}, estimate {}",
            backfill_text(&s.config.policy),
            s.config.policy.reservation_depth(),
            s.event_order.name(),
            s.config.policy.semantics.name(),
            s.estimate.name()
        );
        if s.load.offered_load != s.load.offered_load_trace || s.warmup_jobs > 0 {
            let _ = writeln!(
                text,
                "  workload       offered load {:.3} (trace {:.3}); {} warm-up jobs left out of the metrics",
                s.load.offered_load, s.load.offered_load_trace, s.warmup_jobs
            );
        }
    }
    if let Some(period) = &s.period {
        let _ = writeln!(text, "  period         {}", period.text());
    }
    match s.max_jobs_in_memory {
        Some(most) => {
            let _ = writeln!(
                text,
                "  jobs           {} simulated of {}; at most {most} in memory at once",
                m.jobs,
                count(s.records, "record")
            );
        }
        None => {
            let _ = writeln!(
                text,
                "  jobs           {} simulated of {}",
                m.jobs,
                count(s.records, "record")
            );
        }
    }
    if !s.skipped.is_empty() {
        let _ = writeln!(
            text,
            "  skipped        {} ({})",
            s.skipped_total,
            describe(&s.skipped)
        );
    }
    if s.held > 0 {
        if s.streamed {
            let _ = writeln!(
                text,
                "  held           {} never eligible; see held.csv",
                s.held
            );
        } else {
            let _ = writeln!(
                text,
                "  held           {} never eligible ({}); see held.csv",
                s.held,
                s.held_by
                    .iter()
                    .map(|(k, n)| format!("{k}: {n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    if !s.adjusted.is_empty() {
        let _ = writeln!(text, "  adjusted       {}", describe(&s.adjusted));
    }
    usage_and_waits(&mut text, m);
    if s.streamed {
        let _ = writeln!(
            text,
            "  simulated in   {:.2} s ({:.0} jobs/s)",
            s.sim_seconds, s.jobs_per_second
        );
        let _ = writeln!(text, "  outputs        {}", out.display());
        return text;
    }
    let _ = writeln!(
        text,
        "  xfactor        avg {:.4}, proc-second weighted {:.4}",
        m.avg_xfactor, m.avg_xfactor_ps_weighted
    );
    let _ = writeln!(
        text,
        "  backfilled     {:.2} % of jobs; {} cancelled at their limit",
        100.0 * m.backfilled_fraction,
        m.cancelled_jobs
    );
    if m.preemptions > 0 && m.preempted_procseconds > 0.0 {
        let _ = writeln!(
            text,
            "  preemptions    {}, {:.2} processor-hours of preempted runs lost",
            m.preemptions,
            m.preempted_procseconds / 3600.0
        );
    } else if m.preemptions > 0 {
        let _ = writeln!(
            text,
            "  preemptions    {} (suspended, no work lost)",
            m.preemptions
        );
    }
    if m.reserved_jobs > 0 {
        let _ = writeln!(
            text,
            "  reservations   {} reserved, {:.2} % started by their first promise; delay avg {} max {}; bypass avg {:.2} max {}",
            count(m.reserved_jobs, "job"),
            100.0 * m.reservations_kept_fraction,
            clock_of(m.avg_reservation_delay),
            clock_of(m.max_reservation_delay as f64),
            m.avg_bypass,
            m.max_bypass
        );
    }
    let _ = writeln!(
        text,
        "  WC accuracy    {:.2} %",
        100.0 * m.avg_wallclock_accuracy
    );
    for (kind, rows) in s.fairness.iter().flatten() {
        let targeted: Vec<_> = rows
            .iter()
            .filter_map(|r| Some((r, r.above_target?)))
            .collect();
        let Some((most, excess)) = targeted.iter().max_by(|a, b| a.1.total_cmp(&b.1)) else {
            continue;
        };
        let above = targeted.iter().filter(|(_, d)| *d > 0.0).count();
        let _ = writeln!(
            text,
            "  fairshare      {above} of {} {kind}s above their FSTARGET; most: {kind} {} at {:.2} % ({:+.2})",
            targeted.len(),
            most.name,
            most.share,
            excess
        );
    }
    let _ = writeln!(
        text,
        "  simulated in   {:.3} s ({:.0} jobs/s, {} iterations)",
        s.sim_seconds, s.jobs_per_second, s.iterations
    );
    let _ = writeln!(
        text,
        "  outputs        {}/{{{}}}",
        out.display(),
        mauisim_sim::output::FILES
            .iter()
            .filter(|f| out.join(f).exists())
            .copied()
            .collect::<Vec<_>>()
            .join(",")
    );
    if let Some(fs) = fs_files {
        let _ = writeln!(
            text,
            "  FS files       {}/FS.<epoch> ({} windows)",
            fs.dir.display(),
            fs.windows
        );
    }
    text
}
