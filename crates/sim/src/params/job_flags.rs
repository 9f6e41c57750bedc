//! A credential's `JOBFLAGS=…` as Maui 3.3.1 reads it (MCred.c, `mcaJobFlags`): each flag
//! name of its job flag table (MConst.c `MJobFlags`) is looked for anywhere in the value,
//! case-sensitive, and added to the credential's flags; MJob.c `MJobUpdateFlags` ORs the
//! flags of a job's own user, group, account and class into the job's. The DEFAULT objects'
//! flags are read by nothing.

use super::qos_flags::refused_flags;
use mauisim_config::{ConfigError, Location};
use mauisim_core::CredSettings;

/// What one job flag does in a simulation.
enum Effect {
    Preemptor,
    Preemptee,
    /// SINGLEJOB node access for the job (`mjfNASingleJob`), as QOS DEDICATED gives it.
    Dedicated,
    /// No effect on a schedule here.
    Inert(&'static str),
    /// Changes the schedule, and mauisim does not simulate it yet.
    NotYet(&'static str),
}

/// 3.3.1's 21 job flags, by their names in `MJobFlags` (whose order is the job flag enum's:
/// BENCHMARK is `mjfAllocLocal`, PRESTART `mjfPreload`).
const FLAGS: &[(&str, Effect)] = &[
    (
        "BENCHMARK",
        Effect::NotYet("its jobs' nodes are allocated as local ones (MNode.c)"),
    ),
    (
        "BACKFILL",
        Effect::NotYet("its jobs count as started by backfill"),
    ),
    (
        "SPAN",
        Effect::NotYet("its jobs may span partitions"),
    ),
    (
        "ADVRES",
        Effect::NotYet("its jobs run only inside reservations they may use"),
    ),
    (
        "NOQUEUE",
        Effect::NotYet("its jobs are cancelled unless they start at once"),
    ),
    (
        "HOSTLIST",
        Effect::NotYet("its jobs run only on a host list"),
    ),
    (
        "RESMAP",
        Effect::NotYet("its jobs are placed by a reservation map"),
    ),
    (
        "SHAREDRESOURCES",
        Effect::NotYet("its jobs may share reserved resources (MRes.c)"),
    ),
    (
        "BYNAME",
        Effect::NotYet("its jobs use reservations only by name (MRes.c)"),
    ),
    (
        "BESTEFFORT",
        Effect::NotYet("its jobs may start on fewer resources than asked"),
    ),
    (
        "RESTARTABLE",
        Effect::Inert(
            "mauisim reruns every job a preemption requeues, which is what 3.3.1's simulation does with a RESTARTABLE one (MSim.c)",
        ),
    ),
    ("PREEMPTEE", Effect::Preemptee),
    ("PREEMPTOR", Effect::Preemptor),
    ("DEDICATEDNODE", Effect::Dedicated),
    (
        "PRESTART",
        Effect::NotYet("its jobs are taken as preloaded by 3.3.1's simulation (MSim.c)"),
    ),
    ("REMOTE", Effect::Inert("read by nothing in 3.3.1")),
    (
        "NASINGLETASK",
        Effect::NotYet("its jobs take a whole node for each task (SINGLETASK access)"),
    ),
    (
        "SPVIOLATION",
        Effect::NotYet("its jobs count as over a soft limit"),
    ),
    ("IGNNODEPOLICIES", Effect::Inert("read by nothing in 3.3.1")),
    (
        "NORMSTART",
        Effect::Inert("read only by 3.3.1's S3 interface, which a simulation does not use"),
    ),
    ("GLOBALQUEUE", Effect::Inert("read by nothing in 3.3.1")),
];

/// Adds the flags of `JOBFLAGS=value` to a credential's settings. `default`: the kind's
/// DEFAULT object, whose flags 3.3.1 never reads.
pub(super) fn apply(
    settings: &mut CredSettings,
    value: &str,
    (what, at): (&str, &Location),
    default: bool,
    w: &mut Vec<String>,
) -> Result<(), ConfigError> {
    let found: Vec<&(&str, Effect)> = FLAGS.iter().filter(|(n, _)| value.contains(n)).collect();
    if default && !found.is_empty() {
        w.push(format!(
            "{at}: note: {what}: without effect, as in Maui 3.3.1: a job takes the flags of its own user, group, account and class (MJob.c `MJobUpdateFlags`), never a DEFAULT object's"
        ));
        return Ok(());
    }
    let mut refused = Vec::new();
    for (name, effect) in &found {
        match effect {
            Effect::Preemptor => settings.preemptor = true,
            Effect::Preemptee => settings.preemptee = true,
            Effect::Dedicated => settings.dedicated = true,
            Effect::Inert(why) => w.push(format!(
                "{at}: note: {what}: {name} changes no schedule here: {why}"
            )),
            Effect::NotYet(does) => refused.push(format!("{name} ({does})")),
        }
    }
    if !refused.is_empty() {
        return Err(refused_flags(what, at, &refused));
    }
    if found.is_empty() && !value.trim().is_empty() {
        let upper = value.to_ascii_uppercase();
        let hint = if upper.contains("DEDICATED") {
            " (the job flag is DEDICATEDNODE; DEDICATED is a QOS flag, QFLAGS=)"
        } else if FLAGS.iter().any(|(n, _)| upper.contains(n)) {
            " (3.3.1 matches flag names in capitals only)"
        } else {
            ""
        };
        w.push(format!(
            "{at}: warning: {what}: no job flag Maui 3.3.1 knows in `{value}`{hint}; no effect"
        ));
    }
    Ok(())
}
