//! `QOSCFG[q] QFLAGS=…` as Maui 3.3.1 reads it (MQOS.c `MQOSFlagsFromString`): each flag
//! name is looked for anywhere in the value, case-sensitive, so any separator or none
//! works; each QFLAGS replaces the flags before it, while the limits an IGN* flag lifted
//! stay lifted (`__MQOSSetOverrideLimits` only ever sets them).

use mauisim_config::{ConfigError, Location};
use mauisim_core::{CredSettings, LimitPair, Metric};

/// What one flag does in a simulation.
enum Effect {
    /// Lifts limits for every credential of the QOS's jobs (soft and hard): the active
    /// limits, the idle limits and the per-job system limits on these metrics.
    Lifts {
        active: &'static [Metric],
        idle: &'static [Metric],
        per_job: &'static [Metric],
    },
    NoBackfill,
    Preemptor,
    Preemptee,
    ReserveAlways,
    Dedicated,
    PreemptSpv,
    /// No effect on a schedule in 3.3.1 (set, and read by nothing that schedules).
    Inert(&'static str),
    /// 3.3.1 cannot set it (no case in its switch): no effect.
    Unsettable,
    /// Changes the schedule, and mauisim does not simulate it yet.
    NotYet(&'static str),
}

use Metric::{Job, Node, Proc, Ps};

/// 3.3.1's 24 flags (MConst.c `MQOSFlags`), the composite ones as the union of theirs.
const FLAGS: &[(&str, Effect)] = &[
    (
        "IGNJOBPERUSER",
        Effect::Lifts {
            active: &[Job],
            idle: &[],
            per_job: &[Job],
        },
    ),
    (
        "IGNPROCPERUSER",
        Effect::Lifts {
            active: &[Proc],
            idle: &[],
            per_job: &[],
        },
    ),
    (
        "IGNNODEPERUSER",
        Effect::Lifts {
            active: &[Node, Proc],
            idle: &[],
            per_job: &[Node, Proc],
        },
    ),
    (
        "IGNPSPERUSER",
        Effect::Lifts {
            active: &[Ps],
            idle: &[],
            per_job: &[Ps],
        },
    ),
    (
        "IGNJOBQUEUEDPERUSER",
        Effect::Lifts {
            active: &[],
            idle: &[Job],
            per_job: &[],
        },
    ),
    (
        "IGNSYSMAXPROC",
        Effect::Lifts {
            active: &[Node, Proc],
            idle: &[],
            per_job: &[Node, Proc],
        },
    ),
    ("IGNSYSMAXTIME", Effect::Inert("read by nothing in 3.3.1")),
    (
        "IGNSYSMAXPS",
        Effect::Lifts {
            active: &[Ps],
            idle: &[],
            per_job: &[Ps],
        },
    ),
    ("IGNSRMAXTIME", Effect::Inert("read by nothing in 3.3.1")),
    // IGNUSER: IGNJOBPERUSER, IGNNODEPERUSER, IGNPSPERUSER, IGNJOBQUEUEDPERUSER.
    (
        "IGNUSER",
        Effect::Lifts {
            active: &[Job, Node, Proc, Ps],
            idle: &[Job],
            per_job: &[Job, Node, Proc, Ps],
        },
    ),
    // IGNSYSTEM: IGNSYSMAXPROC, IGNSYSMAXTIME, IGNSYSMAXPS.
    (
        "IGNSYSTEM",
        Effect::Lifts {
            active: &[Node, Proc, Ps],
            idle: &[],
            per_job: &[Node, Proc, Ps],
        },
    ),
    // IGNALL: every IGN* flag but IGNPROCPERUSER (whose limit IGNNODEPERUSER lifts too).
    (
        "IGNALL",
        Effect::Lifts {
            active: &[Job, Node, Proc, Ps],
            idle: &[Job],
            per_job: &[Job, Node, Proc, Ps],
        },
    ),
    ("PREEMPTOR", Effect::Preemptor),
    ("PREEMPTEE", Effect::Preemptee),
    ("DEDICATED", Effect::Dedicated),
    ("RESERVEALWAYS", Effect::ReserveAlways),
    (
        "USERESERVED",
        Effect::NotYet("its jobs run only inside reservations they may use"),
    ),
    ("NOBF", Effect::NoBackfill),
    ("NORESERVATION", Effect::Unsettable),
    ("RESTARTPREEMPT", Effect::Unsettable),
    ("NTR", Effect::Inert("read by nothing in 3.3.1")),
    ("RUNNOW", Effect::Inert("read by nothing in 3.3.1")),
    ("PREEMPTSPV", Effect::PreemptSpv),
    (
        "IGNHOSTLIST",
        Effect::Inert("no trace job asks for a host list"),
    ),
];

/// Applies `QFLAGS=value` to a QOS's settings.
pub(super) fn apply(
    qos: &mut CredSettings,
    value: &str,
    what: &str,
    at: &Location,
    w: &mut Vec<String>,
) -> Result<(), ConfigError> {
    qos.no_backfill = false;
    qos.preemptor = false;
    qos.preemptee = false;
    qos.reserve_always = false;
    qos.dedicated = false;
    qos.preempt_spv = false;
    let mut found = false;
    let mut refused = Vec::new();
    for (name, effect) in FLAGS {
        if !value.contains(name) {
            continue;
        }
        found = true;
        match effect {
            Effect::Lifts {
                active,
                idle,
                per_job,
            } => {
                // A limit of 0 is none: the job's every credential is free of it.
                for &m in *active {
                    qos.limits.override_active[m as usize] = Some(LimitPair::both(0));
                }
                for &m in *idle {
                    qos.limits.override_idle[m as usize] = Some(LimitPair::both(0));
                }
                for &m in *per_job {
                    qos.limits.override_per_job[m as usize] = Some(0);
                }
            }
            Effect::NoBackfill => qos.no_backfill = true,
            Effect::Preemptor => qos.preemptor = true,
            Effect::Preemptee => qos.preemptee = true,
            Effect::ReserveAlways => qos.reserve_always = true,
            Effect::Dedicated => qos.dedicated = true,
            Effect::PreemptSpv => qos.preempt_spv = true,
            Effect::Inert(why) => {
                w.push(format!("{at}: note: {what}: {name} changes no schedule here: {why}"))
            }
            Effect::Unsettable => w.push(format!(
                "{at}: warning: {what}: Maui 3.3.1 cannot set {name} (no case for it in MQOSFlagsFromString); it has no effect"
            )),
            Effect::NotYet(does) => refused.push(format!("{name} ({does})")),
        }
    }
    if !refused.is_empty() {
        return Err(refused_flags(what, at, &refused));
    }
    // 3.3.1 looks for each flag's name anywhere in the value, so a word holding none is
    // passed over without a word: said here, as the sample maui.cfg's IGNMAXJOB would be.
    let unknown: Vec<&str> = value
        .split(|c: char| matches!(c, ':' | ',' | '|' | '+') || c.is_whitespace())
        .filter(|word| !word.is_empty() && !FLAGS.iter().any(|(n, _)| word.contains(n)))
        .collect();
    if found && !unknown.is_empty() {
        w.push(format!(
            "{at}: warning: {what}: {} not a QOS flag Maui 3.3.1 knows (in capitals); no effect",
            unknown
                .iter()
                .map(|word| format!("`{word}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !found && !value.trim().is_empty() {
        let upper = value.to_ascii_uppercase();
        let hint = if FLAGS.iter().any(|(n, _)| upper.contains(n)) {
            " (3.3.1 matches flag names in capitals only)"
        } else {
            ""
        };
        w.push(format!(
            "{at}: warning: {what}: no QOS flag Maui 3.3.1 knows in `{value}`{hint}; the QOS has no flags"
        ));
    }
    Ok(())
}

/// The error for flags of `what` (at `at`) that change the schedule and are not simulated
/// yet, each with what it does.
pub(super) fn refused_flags(what: &str, at: &Location, refused: &[String]) -> ConfigError {
    ConfigError::at(
        at.clone(),
        format!(
            "{what}: {} changes what Maui schedules, and mauisim does not simulate it yet: the schedule would not be your Maui's; remove the flag to simulate without it",
            refused.join(", ")
        ),
    )
}

/// The flags of `qos` that some semantics do not simulate, as QFLAGS names them.
pub(super) fn set_in(qos: &CredSettings) -> impl Iterator<Item = &'static str> {
    [
        (qos.reserve_always, "RESERVEALWAYS"),
        (qos.dedicated, "DEDICATED"),
        (qos.preempt_spv, "PREEMPTSPV"),
    ]
    .into_iter()
    .filter_map(|(set, name)| set.then_some(name))
}

/// RESERVEALWAYS is simulated in Maui 3.3.1's passes only, DEDICATED under Maui semantics
/// (nodes followed one by one): refused elsewhere rather than quietly dropped, at the line
/// that set the flag (and the one that set the policy it cannot go with).
pub(crate) fn check_simulated(
    policy: &mauisim_core::PolicyConfig,
    config: &crate::params::SimConfig,
) -> Result<(), String> {
    let tables = &policy.creds;
    let every = || {
        tables
            .defaults
            .iter()
            .chain(tables.settings.iter().flatten())
    };
    let at = |name: &str| {
        config
            .set_at
            .get(name)
            .map_or_else(|| "maui.cfg".to_string(), |l| l.to_string())
    };
    let maui = policy.semantics.is_maui();
    let semantics = policy.semantics.name();
    if every().any(|s| s.preempt_spv) && !maui {
        return Err(format!(
            "{}: QFLAGS=PREEMPTSPV is simulated as Maui 3.3.1 selects jobs, under --semantics maui or maui-3.3.1 only (this run: {semantics})",
            at("PREEMPTSPV")
        ));
    }
    if every().any(|s| s.dedicated) && !maui {
        return Err(format!(
            "{}: DEDICATED (QFLAGS=DEDICATED, JOBFLAGS=DEDICATEDNODE) is simulated as Maui 3.3.1 runs it, on nodes followed one by one, under --semantics maui or maui-3.3.1 only (this run: {semantics})",
            at("DEDICATED")
        ));
    }
    if !every().any(|s| s.reserve_always) {
        return Ok(());
    }
    let flag = at("RESERVEALWAYS");
    if !maui {
        return Err(format!(
            "{flag}: QFLAGS=RESERVEALWAYS is simulated as Maui 3.3.1 schedules it, under --semantics maui or maui-3.3.1 only (this run: {semantics})"
        ));
    }
    if let Some(why) = crate::params::without_passes(policy, config) {
        return Err(format!(
            "{flag}: QFLAGS=RESERVEALWAYS is simulated in Maui 3.3.1's priority and backfill passes, which {why} leaves out; mauisim does not simulate it without them yet"
        ));
    }
    Ok(())
}
