//! The meaning of maui.cfg parameters: one registry, one line per parameter.
//!
//! Syntax (comments, continuations, `NAME[INDEX]`, attributes, time values) is
//! `mauisim_config`'s job; this module maps entries onto [`SimConfig`]. To support a new
//! parameter, add one row to [`PARAMS`].

pub mod credentials;
pub mod feature_headers;
mod job_flags;
pub mod limits;
mod maui_names;
pub mod node_cfg;
pub mod node_sets;
mod old_limits;
mod partition_params;
pub(crate) mod partitions;
pub(crate) mod qos_flags;
pub mod standing;

use crate::params::credentials::{CredConfig, CredObject, DEFAULT};
use mauisim_config::{self as cfg, Attr, ConfigError, Duration, Entry, Location};
use mauisim_core::{
    AccrualPolicy, BackfillMetric, BackfillPolicy, Component, CredKind, FsMetric, FsTarget, Limits,
    PolicyConfig, Preemption, ReservationGroup, ReservationPolicy, ReservationThreshold, Sub,
    TargetKind, Time, FS_MAX_DEPTH,
};
use node_cfg::NodeConfig;
use serde::Serialize;
use std::path::Path;

/// Everything a config file can set.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimConfig {
    pub policy: PolicyConfig,
    /// JOBMAXOVERRUN: how long a job may run past its limit; `None` = without bound (−1).
    pub max_overrun: Option<Time>,
    /// CLASSCFG[c] OVERRUN by class name (DEFAULT for every class without its own):
    /// replaces JOBMAXOVERRUN for that class's jobs; `None` = without bound.
    pub class_overrun: std::collections::BTreeMap<String, Option<Time>>,
    /// CLASSCFG[c] DEFAULT.FEATURES: node features every job of class `c` requires, with
    /// where they were last set (3.3.1 adds them to the job's own, MRM.c `MRMJobPostLoad`).
    #[serde(skip)]
    pub class_features: std::collections::BTreeMap<String, (Vec<String>, Location)>,
    /// RMPOLLINTERVAL: 0 = event-driven iterations.
    pub poll_interval: Time,
    /// CLASSCFG[DEFAULT] DEFAULT.WCLIMIT: the limit of jobs that request none.
    pub default_wclimit: Option<Time>,
    /// CLASSCFG[c] DEFAULT.WCLIMIT: the limit of class c's jobs that request none, before
    /// CLASSCFG[DEFAULT]'s (which a class without a positive one of its own falls back on).
    pub class_wclimit: std::collections::BTreeMap<String, Time>,
    /// USERCFG, GROUPCFG, ACCOUNTCFG, QOSCFG, CLASSCFG objects by name.
    pub credentials: CredConfig,
    /// RESERVATIONQOSLIST[i] by QOS name, one per `policy.reservation_groups` entry
    /// (`None` = ALL); ids are given when the workload's names are known.
    pub reservation_qos: Vec<Option<Vec<String>>>,
    /// RESERVATIONDEPTH[i] and RESERVATIONQOSLIST[i] (with where it was read), by index.
    #[serde(skip)]
    reservation_indexes: std::collections::BTreeMap<usize, (Option<u32>, Option<QosList>)>,
    /// RESERVATIONTHRESHOLDTYPE and RESERVATIONTHRESHOLDVALUE as read.
    #[serde(skip)]
    threshold: ThresholdAsRead,
    /// DEFERTIME (where, and whether it turns deferral off) and DEFERCOUNT (where), as read.
    #[serde(skip)]
    deferral: (Option<(Location, bool)>, Option<Location>),
    /// NODEALLOCATIONPOLICY, NODEACCESSPOLICY, NODECFG.
    pub nodes: NodeConfig,
    /// SIMWCACCURACY, SIMWCACCURACYCHANGE, SIMWCSCALINGPERCENT: Maui's own workload
    /// reshaping (MAUI-SEMANTICS §6), applied as jobs are read.
    pub sim_wc: SimWc,
    /// SIMJOBSUBMISSIONPOLICY as read (`None`: not set, a trace replay).
    pub submission_policy: Option<SubmissionPolicy>,
    /// SIMINITIALQUEUEDEPTH (default 16): NORMAL's first batch, or the constant depth in
    /// jobs or processor-seconds.
    pub initial_queue_depth: u64,
    /// Maui's old-style default limits (`MAXJOBPERUSERCOUNT` & co.) as read, put on the
    /// DEFAULT objects once the whole file is read.
    #[serde(skip)]
    old_limits: Vec<old_limits::OldLimitLine>,
    /// PLIST and PDEF as read, settled into the partition table once the file is read.
    #[serde(skip)]
    partitions_read: partitions::PartitionsAsRead,
    /// Where each simulated parameter, and each QOS flag that only some semantics simulate,
    /// was last set: the line a refusal of a combination names.
    #[serde(skip)]
    pub(crate) set_at: std::collections::BTreeMap<String, Location>,
    /// BACKFILLPOLICY, RESERVATIONPOLICY and NODEALLOCATIONPOLICY given a partition index,
    /// judged once the file is read.
    #[serde(skip)]
    partition_values: Vec<partition_params::PartitionValue>,
}

/// SIMJOBSUBMISSIONPOLICY with SIMINITIALQUEUEDEPTH (MAUI-SEMANTICS §6, Maui's MSim.c).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Submission {
    /// Every job at its trace submit time (not set in the config: a trace replay).
    #[default]
    Replay,
    /// NORMAL: the first `initial` jobs together at the latest of their submit times, then
    /// every job at its trace submit time.
    Normal { initial: u64 },
    /// CONSTANTJOBDEPTH: whenever fewer than `depth` jobs are idle, the next trace jobs
    /// are submitted at once; trace submit times are ignored.
    ConstantJobs { depth: u64 },
    /// CONSTANTPSDEPTH: likewise, while the idle jobs ask for fewer than `depth`
    /// processor-seconds (processors × wallclock limit).
    ConstantPs { depth: u64 },
}

/// SIMJOBSUBMISSIONPOLICY's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SubmissionPolicy {
    Normal,
    ConstantJobDepth,
    ConstantPsDepth,
}

impl SimConfig {
    /// When trace jobs enter the queue, as the engine applies it.
    pub fn submission(&self) -> Submission {
        let depth = self.initial_queue_depth;
        match self.submission_policy {
            None => Submission::Replay,
            Some(SubmissionPolicy::Normal) => Submission::Normal { initial: depth },
            Some(SubmissionPolicy::ConstantJobDepth) => Submission::ConstantJobs { depth },
            Some(SubmissionPolicy::ConstantPsDepth) => Submission::ConstantPs { depth },
        }
    }
}

/// Maui's simulation parameters that reshape runtimes and limits.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SimWc {
    /// SIMWCACCURACY (0–1; 0 = off): runtime := WCL × accuracy × U(0.95, 1.05), at most WCL.
    pub accuracy: f64,
    /// SIMWCACCURACYCHANGE (percent): WCL := WCL − change × (WCL − runtime) / 100.
    pub change: f64,
    /// SIMWCSCALINGPERCENT: runtime and WCL both scaled by this percent (default 100).
    pub scaling: f64,
}

impl Default for SimWc {
    fn default() -> Self {
        SimWc {
            accuracy: 0.0,
            change: 0.0,
            scaling: 100.0,
        }
    }
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            policy: PolicyConfig::default(),
            max_overrun: Some(0),
            class_overrun: Default::default(),
            class_features: Default::default(),
            poll_interval: 0,
            default_wclimit: None,
            class_wclimit: Default::default(),
            credentials: CredConfig::default(),
            reservation_qos: vec![None],
            reservation_indexes: Default::default(),
            threshold: ThresholdAsRead::default(),
            deferral: (None, None),
            nodes: NodeConfig::default(),
            sim_wc: SimWc::default(),
            submission_policy: None,
            initial_queue_depth: 16,
            old_limits: Vec::new(),
            partitions_read: Default::default(),
            set_at: Default::default(),
            partition_values: Vec::new(),
        }
    }
}

/// RESERVATIONTHRESHOLDTYPE (uppercased) and RESERVATIONTHRESHOLDVALUE, where each was set.
#[derive(Debug, Clone, PartialEq, Default)]
struct ThresholdAsRead {
    kind: Option<(String, Location)>,
    value: Option<(f64, Location)>,
}

/// A config and the warnings reading it produced (already formatted with locations).
#[derive(Debug, Clone)]
pub struct LoadedConfig {
    pub config: SimConfig,
    pub warnings: Vec<String>,
}

/// A config read as far as its entries allow: `loaded` without the entries refused, and
/// the errors that refused them (or a check across entries found), if any.
#[derive(Debug)]
pub struct PartlyRead {
    pub loaded: LoadedConfig,
    pub errors: Option<ConfigError>,
}

impl PartlyRead {
    /// The config, or its errors with every warning it drew.
    pub fn whole(self) -> Result<LoadedConfig, ConfigError> {
        match self.errors {
            None => Ok(self.loaded),
            Some(e) => Err(e.with_warnings(self.loaded.warnings)),
        }
    }
}

pub fn from_file(path: &Path) -> Result<LoadedConfig, ConfigError> {
    interpret(cfg::parse_file(path)?)
}

/// [`from_file`], keeping what was read when some entries are refused (so that binding the
/// rest to the nodes can tell its problems in the same run). `Err` when the file cannot be
/// read or parsed.
pub fn read_file(path: &Path) -> Result<PartlyRead, ConfigError> {
    Ok(read(cfg::parse_file(path)?))
}

pub fn from_str(text: &str, name: &str) -> Result<LoadedConfig, ConfigError> {
    interpret(cfg::parse_str(text, name)?)
}

/// The meaning of entries already parsed (a base file's, with a sweep's settings after
/// them: a later entry overrides an earlier one, as in Maui).
pub fn interpret(parsed: cfg::Parsed) -> Result<LoadedConfig, ConfigError> {
    read(parsed).whole()
}

/// [`interpret`], keeping what the entries not refused made of the config.
pub fn read(parsed: cfg::Parsed) -> PartlyRead {
    let mut warnings: Vec<String> = parsed.warnings.iter().map(|w| w.to_string()).collect();
    let mut config = SimConfig::default();
    let mut errors = Vec::new();
    let mut no_effect = NoEffect::default();
    let mut entries = sticky_indexes(&parsed.entries, &mut warnings);
    aliases_in_table_order(&mut entries);
    for entry in &entries {
        // 3.3.1 finds a parameter only at the start of a line (MConfig.c
        // `MCfgProcessBuffer`), and its buffer keeps the blanks before one.
        if entry.location.column > 1 {
            warnings.push(format!(
                "{}: warning: {}: indented; Maui 3.3.1 reads a parameter only at the start of a line and would pass over this one; mauisim reads it",
                entry.location, entry.name
            ));
        }
        match apply(&mut config, entry, &mut warnings, &mut no_effect) {
            Ok(()) => {}
            Err(ConfigError::Several(several)) => errors.extend(several),
            Err(e) => errors.push(e),
        }
        for name in config.nodes.no_effect.drain(..) {
            no_effect.add_name(&entry.location.file, &name);
        }
    }
    warnings.extend(no_effect.summary());
    old_limits::settle(&mut config);
    partitions::settle(&mut config, &mut warnings);
    // The checks across entries would repeat what a refused entry left out; each is told.
    if errors.is_empty() {
        let mut checks = vec![
            partition_params::settle(&config, &mut warnings),
            node_sets::settle(&config, &mut warnings),
            config.credentials.check(),
            node_cfg::check_proc_usage_limit(&config.nodes),
            check_fairshare(&config, &mut warnings),
        ];
        check_cred_priorities(&config, &mut warnings);
        reservation_groups(&mut config, &mut warnings);
        checks.push(reservation_threshold(&mut config, &mut warnings));
        checks.push(system_queue_time(&mut config, &mut warnings));
        checks.push(node_load_policy(&config, &mut warnings));
        errors.extend(checks.into_iter().filter_map(Result::err));
    } else {
        reservation_groups(&mut config, &mut warnings);
    }
    deferral(&config, &mut warnings);
    PartlyRead {
        loaded: LoadedConfig { config, warnings },
        errors: ConfigError::all(errors),
    }
}

/// NODELOADPOLICY ADJUSTPROCS: 3.3.1's simulation reads it only for a node with a load
/// limit above 0.01 (MSim.c `__MSimNodeUpdate`), whose available processors it then sets
/// from the limit and the load, which mauisim does not simulate: refused there, a note
/// without any.
fn node_load_policy(c: &SimConfig, warnings: &mut Vec<String>) -> Result<(), ConfigError> {
    let Some(at) = c.set_at.get("NODELOADPOLICY") else {
        return Ok(());
    };
    if c.nodes.has_load_limit() {
        return Err(ConfigError::at(
            at.clone(),
            "NODELOADPOLICY ADJUSTPROCS (a node's available processors set from its load \
             limit and load) changes what Maui schedules where a node has a load limit \
             (NODEMAXLOAD, NODECFG MAXLOAD), and mauisim does not simulate it: remove the line \
             to simulate ADJUSTSTATE, 3.3.1's default",
        ));
    }
    warnings.push(format!(
        "{at}: note: NODELOADPOLICY ADJUSTPROCS: Maui 3.3.1's simulation reads it only for a node with a load limit (NODEMAXLOAD, NODECFG MAXLOAD), which this config has none of: it changes nothing"
    ));
    Ok(())
}

/// USESYSTEMQUEUETIME off. Maui 3.3.1's default is on (its DEFAULT_USESYSTEMQUEUETIME is
/// `ptOFF`, which is 1, TRUE: msched.h), where a job whose `EffQueueDuration` is 0 (never yet
/// selected; MPriority.c) counts its queue time from its system queue time; off, from its
/// submission. In a simulation the system queue time is the submit time (MSim.c), set anew
/// by a block at the hard level (a limit under QUEUEPOLICY; under FULLPOLICY fairshare caps,
/// negative priorities and more), a preemption's requeue (MJob.c `MJobPreempt`) or a
/// deferral's release (a RESERVEALWAYS job, `deferral`). So with no limit, no preemptor and
/// no RESERVEALWAYS QOS (or under accrual ALWAYS, which resets it at no block) it changes
/// nothing: a note. Elsewhere it is simulated where 3.3.1's passes are
/// ([`PolicyConfig`]'s `system_queue_time`), and refused without them (BACKFILLPOLICY NONE,
/// RESERVATIONPOLICY HIGHEST), where mauisim does not follow `EffQueueDuration`.
fn system_queue_time(c: &mut SimConfig, warnings: &mut Vec<String>) -> Result<(), ConfigError> {
    let Some(at) = c.set_at.get("USESYSTEMQUEUETIME").cloned() else {
        return Ok(());
    };
    let creds = &c.credentials;
    let objects = || {
        CredKind::ALL.into_iter().flat_map(|kind| {
            creds
                .objects(kind)
                .iter()
                .map(move |(name, o)| (kind, name, o))
        })
    };
    let qos_with = |flag: fn(&CredObject) -> bool, what: &str| {
        let (_, name, _) = objects().find(|&(kind, _, o)| kind == CredKind::Qos && flag(o))?;
        Some(format!("a {what} QOS ({name})"))
    };
    let a_limit = || {
        objects()
            .find(|(_, _, o)| o.settings.limits != Limits::NONE)
            .map(|(kind, name, _)| format!("a limit ({}[{name}])", kind.cfg_name()))
            .or_else(|| {
                (c.policy.system_limits != Limits::NONE)
                    .then(|| "a limit (SYSCFG or a SYSTEMMAX parameter)".to_string())
            })
    };
    let preemptor = || {
        let (kind, name, _) = objects().find(|(_, _, o)| o.settings.preemptor)?;
        Some(match kind {
            CredKind::Qos => format!("a PREEMPTOR QOS ({name})"),
            _ => format!("PREEMPTOR jobs ({}[{name}] JOBFLAGS)", kind.cfg_name()),
        })
    };
    let why = preemptor()
        .or_else(|| qos_with(|o| o.settings.reserve_always, "RESERVEALWAYS"))
        .or_else(|| match c.policy.priority.accrual {
            AccrualPolicy::Always => None,
            AccrualPolicy::FullPolicy => Some("JOBPRIOACCRUALPOLICY FULLPOLICY".to_string()),
            AccrualPolicy::QueuePolicy => a_limit(),
        });
    let Some(why) = why else {
        warnings.push(format!(
            "{at}: note: USESYSTEMQUEUETIME off: Maui 3.3.1 then counts the queue time of a job never yet selected from its submission instead of its system queue time, which in a simulation moves from the submit time only at a limit's block, a preemption or a RESERVEALWAYS deferral, none of which this config has: it changes nothing"
        ));
        return Ok(());
    };
    if let Some(without) = without_passes(&c.policy, c) {
        return Err(ConfigError::at(
            at,
            format!("USESYSTEMQUEUETIME off with {why} and {without}: Maui 3.3.1 then counts the queue time of a job never yet selected from its submission, which mauisim follows only where 3.3.1's priority and backfill passes run: the schedule would not be your Maui's; remove the line to simulate 3.3.1's default (on)"),
        ));
    }
    c.policy.priority.system_queue_time = false;
    Ok(())
}

/// DEFERTIME and DEFERCOUNT. Maui 3.3.1 defers (holds for DEFERTIME, by default an hour) a
/// job that can never run, which mauisim holds for good instead, the other jobs' schedule
/// the same; and, under CURRENTHIGHEST, where every priority reservation is destroyed before
/// the check (MQueue.c `MQueueScheduleRJobs`), only a RESERVEALWAYS job whose reservation is
/// due while a soft active limit stops it, which mauisim lets sit the iteration out. So the
/// schedules differ only where a QOS has RESERVEALWAYS, with or without the parameters.
fn deferral(c: &SimConfig, warnings: &mut Vec<String>) {
    let (time, count) = &c.deferral;
    if let Some((at, true)) = time {
        warnings.push(format!(
            "{at}: note: DEFERTIME 0: Maui 3.3.1 then defers no job, nor does mauisim; a job that can never run stays idle for ever in Maui, and mauisim holds it (held.csv) with the other jobs' schedule the same"
        ));
        return;
    }
    let reserve_always = c
        .credentials
        .qos
        .values()
        .any(|q| q.settings.reserve_always);
    let lines: Vec<(&Location, &str)> = time
        .iter()
        .map(|(at, _)| (at, "DEFERTIME"))
        .chain(count.iter().map(|at| (at, "DEFERCOUNT")))
        .collect();
    if reserve_always {
        let what = "Maui 3.3.1 defers (DEFERTIME, by default 1:00:00) a RESERVEALWAYS job whose reservation is due while a soft active limit stops it; mauisim lets it sit the iteration out and tries it again at the next";
        if lines.is_empty() {
            let flag = c
                .set_at
                .get("RESERVEALWAYS")
                .map_or_else(|| "maui.cfg".to_string(), |l| l.to_string());
            warnings.push(format!("{flag}: warning: {what}"));
        }
        for (at, name) in lines {
            warnings.push(format!("{at}: warning: {name}: {what}"));
        }
        return;
    }
    for (at, name) in lines {
        warnings.push(format!(
            "{at}: note: {name}: Maui 3.3.1 defers a job that can never run, which mauisim holds for good (the other jobs' schedule is the same), and a RESERVEALWAYS job a soft limit stops at its reservation's start, which no QOS here has"
        ));
    }
}

/// The setting, with the line that made it, that leaves out one of Maui 3.3.1's priority
/// and backfill passes (BACKFILLPOLICY NONE or RESERVATIONPOLICY HIGHEST), which the
/// partition passes and RESERVEALWAYS are simulated within; `None` when both run.
pub(crate) fn without_passes(policy: &PolicyConfig, c: &SimConfig) -> Option<String> {
    let at = |name: &str| {
        c.set_at
            .get(name)
            .map_or_else(String::new, |l| format!(" at {l}"))
    };
    if policy.backfill == BackfillPolicy::None {
        return Some(format!("BACKFILLPOLICY NONE{}", at("BACKFILLPOLICY")));
    }
    if policy.reservation_policy == ReservationPolicy::Highest {
        return Some(format!(
            "RESERVATIONPOLICY HIGHEST{}",
            at("RESERVATIONPOLICY")
        ));
    }
    None
}

/// Every parameter name of Maui 3.3.1's table (MConst.c `MCfg`), one per line.
const MAUI_3_3_1_PARAMETERS: &str = include_str!("maui-3.3.1-parameters.txt");

/// A parameter's place in 3.3.1's table (the order it reads a file in), if it is there.
fn table_rank(name: &str) -> Option<usize> {
    MAUI_3_3_1_PARAMETERS.lines().position(|n| n == name)
}

/// 3.3.1 reads a file parameter by parameter in its table's order, each parameter's lines
/// in file order (MConfig.c `MCfgProcessBuffer`), so where a file writes both an old name
/// and the parameter it stands for (`BACKFILLTYPE` and `BACKFILLPOLICY`), the one later in
/// the table wins wherever the lines stand. Each such pair's lines of one file are put in
/// that order, in the places they hold; the lines of another file (a sweep's `--set`) keep
/// their place after them, and override them.
fn aliases_in_table_order(entries: &mut [Entry]) {
    // Only where both names are in the table (mauisim also reads names of the guide's that
    // 3.3.1 does not know, such as SYSTEMCFG).
    let in_table = maui_names::aliases()
        .filter(|&(old, new)| table_rank(old).is_some() && table_rank(new).is_some());
    for (old, new) in in_table {
        let files: std::collections::BTreeSet<std::sync::Arc<str>> = entries
            .iter()
            .filter(|e| e.name == old)
            .map(|e| e.location.file.clone())
            .collect();
        for file in files {
            let slots: Vec<usize> = (0..entries.len())
                .filter(|&i| entries[i].location.file == file)
                .filter(|&i| entries[i].name == old || entries[i].name == new)
                .collect();
            let mut pair: Vec<Entry> = slots.iter().map(|&i| entries[i].clone()).collect();
            pair.sort_by_key(|e| table_rank(&e.name));
            for (&i, e) in slots.iter().zip(pair) {
                entries[i] = e;
            }
        }
    }
}

/// 3.3.1 reads each old-style parameter's lines in file order and clears the index only
/// before the first (MConfig.c `MCfgProcessBuffer`): a line without an index after one
/// with an index takes that index (`RESERVATIONDEPTH[1] 2` then `RESERVATIONDEPTH 4` sets
/// group 1 twice). The entries so read, each such line warned.
fn sticky_indexes(entries: &[Entry], w: &mut Vec<String>) -> Vec<Entry> {
    let old_style = |name: &str| !name.ends_with("CFG") && table_rank(name).is_some();
    let mut last: std::collections::HashMap<(std::sync::Arc<str>, String), (String, usize)> =
        Default::default();
    entries
        .iter()
        .map(|e| {
            if !old_style(&e.name) {
                return e.clone();
            }
            let key = (e.location.file.clone(), e.name.clone());
            match e.index.as_deref() {
                Some(index) if !index.is_empty() => {
                    last.insert(key, (index.to_string(), e.location.line));
                    e.clone()
                }
                _ => match last.get(&key) {
                    Some((index, line)) => {
                        w.push(format!(
                            "{}: warning: {} without an index after {}[{index}] on line {line}: Maui 3.3.1 reads it as {}[{index}] (a parameter's index carries over to its later lines); give the index it is meant for, or put the line first",
                            e.location, e.name, e.name, e.name
                        ));
                        Entry {
                            index: Some(index.clone()),
                            ..e.clone()
                        }
                    }
                    None => e.clone(),
                },
            }
        })
        .collect()
}

type Apply = fn(&mut SimConfig, &Entry, &mut Vec<String>) -> Result<(), ConfigError>;

/// The old-style QOS parameters (`QOSPRIORITY[q] 100`, `QOSFLAGS[q] NOBF PREEMPTEE`): 3.3.1
/// sets the same field of QOS q as the `QOSCFG[q]` attribute (MQOS.c `MQOSProcessOConfig`),
/// so they are read as that attribute.
fn old_qos_param(c: &mut SimConfig, e: &Entry, w: &mut Vec<String>) -> Result<(), ConfigError> {
    let attribute = match e.name.as_str() {
        "QOSPRIORITY" => "PRIORITY",
        "QOSQTWEIGHT" => "QTWEIGHT",
        "QOSXFWEIGHT" => "XFWEIGHT",
        "QOSTARGETQT" | "QOSQTTARGET" => "QTTARGET",
        "QOSTARGETXF" | "QOSXFTARGET" => "XFTARGET",
        _ => "QFLAGS",
    };
    if let Some(own) = guide_spelling(&e.name) {
        w.push(format!(
            "{}: note: {} is the admin guide's name (5.1.2) of 3.3.1's {own}, read as the guide means it; Maui 3.3.1 itself knows no {} and would ignore the line: write {own} (or QOSCFG[q] {attribute}=…) for a real Maui",
            e.location, e.name, e.name
        ));
    }
    let Some(qos) = e.index.as_deref().filter(|q| !q.is_empty()) else {
        return Err(ConfigError::at(
            e.location.clone(),
            format!(
                "{} needs the QOS it sets: {}[name] VALUE (or QOSCFG[name] {attribute}=VALUE)",
                e.name, e.name
            ),
        ));
    };
    let Some(first) = e.values.first() else {
        return Err(ConfigError::at(
            e.location.clone(),
            format!("{}[{qos}] needs a value", e.name),
        ));
    };
    if attribute != "QFLAGS" && e.values.len() > 1 {
        return Err(ConfigError::at(
            e.values[1].location.clone(),
            format!("{}[{qos}] takes one value", e.name),
        ));
    }
    let value: Vec<&str> = e.values.iter().map(|t| t.text.as_str()).collect();
    let qos = if qos.eq_ignore_ascii_case(DEFAULT) {
        DEFAULT
    } else {
        qos
    };
    c.credentials.object_mut(CredKind::Qos, qos);
    let attr = Attr {
        name: attribute.to_string(),
        index: None,
        value: value.join(" "),
        location: first.location.clone(),
    };
    credential_attr(c, &attr, w, CredKind::Qos, qos)
}

/// The name Maui 3.3.1 has for a parameter the admin guide spells otherwise.
fn guide_spelling(name: &str) -> Option<&'static str> {
    match name {
        "QOSQTTARGET" => Some("QOSTARGETQT"),
        "QOSXFTARGET" => Some("QOSTARGETXF"),
        _ => None,
    }
}

/// PREEMPTPOLICY as 3.3.1 reads it (MSched.c: an exact, case-sensitive match, anything
/// else being NONE) and as its simulation carries it out (reports/research).
fn preemption_policy(c: &mut SimConfig, e: &Entry, w: &mut Vec<String>) -> Result<(), ConfigError> {
    let (text, at) = scalar(e)?;
    let text = text.trim();
    c.policy.preemption = match text {
        "REQUEUE" => Preemption::Requeue,
        "CHECKPOINT" => {
            w.push(format!(
                "{at}: note: PREEMPTPOLICY CHECKPOINT: Maui 3.3.1's simulation cannot checkpoint a job (no checkpoint interval is ever set), so no job is preempted, here as there"
            ));
            Preemption::Never
        }
        "SUSPEND" => Preemption::Suspend,
        "OVERCOMMIT" => {
            return Err(ConfigError::at(
                at.clone(),
                format!("PREEMPTPOLICY {text} (preemptors run on the class's OCNODE beside its jobs) changes what Maui schedules, and mauisim does not simulate it yet (REQUEUE and SUSPEND are): the schedule would not be your Maui's; use REQUEUE or remove the line"),
            ))
        }
        other => {
            w.push(format!(
                "{at}: warning: PREEMPTPOLICY `{other}`: Maui 3.3.1 knows REQUEUE, SUSPEND, CHECKPOINT and OVERCOMMIT, exactly so written; it reads anything else as NONE, and no job is preempted"
            ));
            Preemption::Never
        }
    };
    Ok(())
}

/// Parameters read (their values checked, and refused where they would act) that
/// otherwise change nothing in a simulation (see their readers). NODESETTOLERANCE acts
/// only on sets by processor speed (MSched.c `MJobSelectResourceSet`), which are refused.
const INERT_IN_SIMULATION: &[&str] = &[
    "NODEAVAILABILITYPOLICY",
    "RESOURCELIMITPOLICY",
    "NODESETTOLERANCE",
];

/// One understood parameter: its names (the first is canonical) and how it applies.
struct Param {
    names: &'static [&'static str],
    apply: Apply,
}

const PARAMS: &[Param] = &[
    Param {
        names: &["SIMWCACCURACY"],
        apply: |c, e, _| {
            let ok = |v: f64| (0.0..=1.0).contains(&v);
            c.sim_wc.accuracy = float_where(e, ok, "0 to 1 (0 = off)")?;
            Ok(())
        },
    },
    Param {
        names: &["SIMWCACCURACYCHANGE"],
        apply: |c, e, _| {
            let ok = |v: f64| (-100.0..=100.0).contains(&v);
            c.sim_wc.change = float_where(e, ok, "a percent from -100 to 100")?;
            Ok(())
        },
    },
    Param {
        names: &["SIMWCSCALINGPERCENT"],
        apply: |c, e, _| {
            c.sim_wc.scaling = float_where(e, |v| v > 0.0, "a positive percent")?;
            Ok(())
        },
    },
    Param {
        names: &["SIMJOBSUBMISSIONPOLICY"],
        apply: |c, e, _| {
            let text = e.value_text().trim().to_ascii_uppercase();
            c.submission_policy = Some(match text.as_str() {
                "NORMAL" => SubmissionPolicy::Normal,
                "CONSTANTJOBDEPTH" => SubmissionPolicy::ConstantJobDepth,
                "CONSTANTPSDEPTH" => SubmissionPolicy::ConstantPsDepth,
                other => {
                    return Err(ConfigError::at(
                        e.location.clone(),
                        format!(
                            "SIMJOBSUBMISSIONPOLICY: expected NORMAL, CONSTANTJOBDEPTH or \
                             CONSTANTPSDEPTH, found `{other}`"
                        ),
                    ))
                }
            });
            Ok(())
        },
    },
    Param {
        names: &["SIMINITIALQUEUEDEPTH"],
        apply: |c, e, _| {
            c.initial_queue_depth = count(e, i64::MAX)? as u64;
            Ok(())
        },
    },
    Param {
        names: &["WCVIOLATIONACTION"],
        apply: |_, e, _| match e.value_text().trim().to_ascii_uppercase().as_str() {
            "CANCEL" => Ok(()),
            "PREEMPT" => Err(ConfigError::at(
                e.location.clone(),
                "WCVIOLATIONACTION PREEMPT requeues the job, and mauisim does not requeue \
                 jobs: use CANCEL (jobs are stopped at their limit plus JOBMAXOVERRUN)",
            )),
            other => Err(ConfigError::at(
                e.location.clone(),
                format!("WCVIOLATIONACTION: expected CANCEL or PREEMPT, found `{other}`"),
            )),
        },
    },
    Param {
        names: &["NODEALLOCATIONPOLICY"],
        apply: |c, e, w| {
            node_cfg::allocation_policy(&mut c.nodes, e)?;
            note_capitals(e, w);
            Ok(())
        },
    },
    Param {
        names: &["NODEMAXLOAD"],
        // NODECFG[DEFAULT]'s MAXLOAD, read after it, replaces it (MSys.c).
        apply: |c, e, _| {
            c.nodes.node_max_load = Some(float_where(e, f64::is_finite, "a number")?);
            Ok(())
        },
    },
    Param {
        names: &["FEATUREPROCSPEEDHEADER", "FEATUREPARTITIONHEADER"],
        // 3.3.1 keeps the value's first word (MSched.c, `mdfString`).
        apply: |c, e, _| {
            let text = e.value_text();
            let header = text.split_whitespace().next().unwrap_or("");
            let set = Some((header.to_string(), e.location.clone()));
            match e.name.as_str() {
                "FEATUREPROCSPEEDHEADER" => c.nodes.feature_headers.proc_speed = set,
                _ => c.nodes.feature_headers.partition = set,
            }
            Ok(())
        },
    },
    Param {
        names: &["NODEACCESSPOLICY"],
        apply: |c, e, w| node_cfg::access_policy(&mut c.nodes, e, w),
    },
    Param {
        names: &[
            "NODESETPOLICY",
            "NODESETATTRIBUTE",
            "NODESETLIST",
            "NODESETPRIORITYTYPE",
            "NODESETDELAY",
            "NODESETTOLERANCE",
        ],
        apply: node_sets::read,
    },
    Param {
        names: &["JOBNODEMATCHPOLICY"],
        apply: |c, e, w| node_cfg::node_match_policy(&mut c.nodes, e, w),
    },
    Param {
        names: &["PREEMPTPOLICY"],
        apply: |c, e, w| preemption_policy(c, e, w),
    },
    Param {
        names: &["NODEAVAILABILITYPOLICY"],
        apply: |_, e, w| node_cfg::availability_policy(e, w),
    },
    Param {
        names: &["RESOURCELIMITPOLICY"],
        apply: |c, e, _| node_cfg::resource_limit_policy(&mut c.nodes, e),
    },
    Param {
        names: &["REJECTNEGPRIOJOBS"],
        apply: |c, e, _| {
            c.policy.priority.reject_negative = boolean(e)?;
            Ok(())
        },
    },
    Param {
        names: &["DEFERTIME", "DEFERCOUNT"],
        apply: |c, e, _| {
            let at = e.location.clone();
            if e.name == "DEFERTIME" {
                // 3.3.1 turns deferral off for a time of 0 (MJob.c `MJobSetHold`: "defer
                // disabled"), as mauisim has it.
                let off = matches!(
                    cfg::parse_duration(e.value_text().trim()),
                    Ok((Duration::Seconds(s), _)) if s <= 0
                );
                c.deferral.0 = Some((at, off));
            } else {
                c.deferral.1 = Some(at);
            }
            Ok(())
        },
    },
    Param {
        names: &["SRCFG"],
        apply: |c, e, w| standing::sr_cfg(&mut c.nodes.standing, e, w),
    },
    Param {
        names: &[
            "SRACCESS",
            "SRACCOUNTLIST",
            "SRCLASSLIST",
            "SRDAYS",
            "SRDEPTH",
            "SRENDTIME",
            "SRFEATURES",
            "SRFLAGS",
            "SRGROUPLIST",
            "SRHOSTLIST",
            "SRMAXTIME",
            "SRPARTITION",
            "SRPERIOD",
            "SRPRIORITY",
            "SRQOSLIST",
            "SRRESOURCES",
            "SRSTARTTIME",
            "SRTASKCOUNT",
            "SRTPN",
            "SRUSERLIST",
            "SRWENDTIME",
            "SRWSTARTTIME",
        ],
        apply: |c, e, w| standing::old_form(&mut c.nodes.standing, e, w),
    },
    Param {
        names: &["NODECFG"],
        apply: |c, e, w| node_cfg::node_cfg(&mut c.nodes, e, w),
    },
    Param {
        names: &["BACKFILLPOLICY"],
        apply: backfill_policy,
    },
    Param {
        names: &["BACKFILLMETRIC", "SCHEDULINGCRITERIA"],
        apply: |c, e, w| {
            let choices = BackfillMetric::ALL.map(|m| (m.name(), m));
            c.policy.backfill_metric = keyword_in_capitals(e, &choices, w)?;
            Ok(())
        },
    },
    Param {
        names: &["BACKFILLDEPTH"],
        apply: |c, e, _| {
            c.policy.backfill_depth = count(e, u32::MAX as i64)? as u32;
            Ok(())
        },
    },
    Param {
        names: &["BACKFILLMAXSCHEDULES"],
        apply: |c, e, _| {
            c.policy.backfill_max_schedules = count(e, i64::MAX)? as u64;
            Ok(())
        },
    },
    Param {
        names: &["BFCHUNKSIZE"],
        apply: |c, e, _| {
            c.policy.chunking.size = count(e, i64::MAX)? as u64;
            Ok(())
        },
    },
    Param {
        names: &["BFCHUNKDURATION"],
        apply: |c, e, w| {
            let (text, at) = scalar(e)?;
            c.policy.chunking.duration = finite_duration(&e.name, text, at, w)?;
            Ok(())
        },
    },
    Param {
        names: &["RESERVATIONDEPTH"],
        apply: reservation_depth,
    },
    Param {
        names: &["RESERVATIONQOSLIST"],
        apply: reservation_qos_list,
    },
    Param {
        names: &["RESERVATIONPOLICY"],
        apply: |c, e, w| {
            let choices = ReservationPolicy::ALL.map(|p| (p.name(), p));
            c.policy.reservation_policy = keyword_in_capitals(e, &choices, w)?;
            Ok(())
        },
    },
    Param {
        names: &["RESERVATIONTHRESHOLDTYPE"],
        apply: |c, e, _| {
            let (text, at) = scalar(e)?;
            c.threshold.kind = Some((text.to_ascii_uppercase(), at.clone()));
            Ok(())
        },
    },
    Param {
        names: &["RESERVATIONTHRESHOLDVALUE"],
        apply: |c, e, _| {
            let (_, at) = scalar(e)?;
            c.threshold.value = Some((float(e)?, at.clone()));
            Ok(())
        },
    },
    Param {
        names: &["ENABLENEGJOBPRIORITY"],
        apply: |c, e, _| {
            c.policy.priority.allow_negative = boolean(e)?;
            Ok(())
        },
    },
    Param {
        names: &["XFMINWCLIMIT"],
        apply: xf_min_wclimit,
    },
    Param {
        names: &["JOBPRIOACCRUALPOLICY"],
        apply: accrual_policy,
    },
    Param {
        names: &["JOBMAXOVERRUN"],
        apply: job_max_overrun,
    },
    Param {
        names: &["RMPOLLINTERVAL"],
        apply: rm_poll_interval,
    },
    Param {
        names: &["USERCFG"],
        apply: |c, e, w| credential_cfg(c, e, w, CredKind::User),
    },
    Param {
        names: &["GROUPCFG"],
        apply: |c, e, w| credential_cfg(c, e, w, CredKind::Group),
    },
    Param {
        names: &["ACCOUNTCFG"],
        apply: |c, e, w| credential_cfg(c, e, w, CredKind::Account),
    },
    Param {
        names: &["QOSCFG"],
        apply: |c, e, w| credential_cfg(c, e, w, CredKind::Qos),
    },
    Param {
        names: &["CLASSCFG"],
        apply: |c, e, w| credential_cfg(c, e, w, CredKind::Class),
    },
    Param {
        names: &["SYSTEMCFG"],
        apply: limits::system_cfg,
    },
    Param {
        names: &[
            "QOSPRIORITY",
            "QOSQTWEIGHT",
            "QOSXFWEIGHT",
            "QOSTARGETQT",
            "QOSTARGETXF",
            "QOSFLAGS",
            "QOSQTTARGET",
            "QOSXFTARGET",
        ],
        apply: old_qos_param,
    },
    Param {
        names: &["SYSTEMMAXPROCPERJOB"],
        apply: limits::system_per_job,
    },
    Param {
        names: &["SYSTEMMAXPROCSECONDPERJOB"],
        apply: limits::system_per_job,
    },
    Param {
        names: &["SYSTEMMAXJOBWALLTIME"],
        apply: limits::system_per_job,
    },
    Param {
        names: &["FSPOLICY"],
        apply: fs_policy,
    },
    Param {
        names: &["FSINTERVAL"],
        apply: fs_interval,
    },
    Param {
        names: &["FSDEPTH"],
        apply: fs_depth,
    },
    Param {
        names: &["FSDECAY"],
        apply: fs_decay,
    },
];

/// Whether `name` is a parameter mauisim simulates (not merely recognises).
pub fn is_simulated(name: &str) -> bool {
    PARAMS.iter().any(|p| p.names.contains(&name))
        || priority_param(name).is_some()
        || old_limits::names().any(|n| n == name)
}

/// All names the reader knows, for "did you mean" suggestions.
pub fn known_names() -> Vec<&'static str> {
    let priority = Component::ALL
        .iter()
        .flat_map(|c| c.weight_names().iter().chain(c.cap_names()))
        .chain(
            Sub::ALL
                .iter()
                .flat_map(|s| s.weight_names().iter().chain(s.cap_names())),
        )
        .copied();
    PARAMS
        .iter()
        .flat_map(|p| p.names.iter().copied())
        .chain(priority)
        .chain(old_limits::names())
        .chain(maui_names::UNSIMULATED.iter().map(|p| p.name))
        .collect()
}

/// What a priority weight or cap parameter sets.
#[derive(Debug, Clone, Copy)]
enum PriorityParam {
    ComponentWeight(Component),
    ComponentCap(Component),
    Weight(Sub),
    Cap(Sub),
}

fn priority_param(name: &str) -> Option<PriorityParam> {
    for c in Component::ALL {
        if c.weight_names().contains(&name) {
            return Some(PriorityParam::ComponentWeight(c));
        }
        if c.cap_names().contains(&name) {
            return Some(PriorityParam::ComponentCap(c));
        }
    }
    for s in Sub::ALL {
        if s.weight_names().contains(&name) {
            return Some(PriorityParam::Weight(s));
        }
        if s.cap_names().contains(&name) {
            return Some(PriorityParam::Cap(s));
        }
    }
    None
}

fn apply_priority_param(
    config: &mut SimConfig,
    entry: &Entry,
    param: PriorityParam,
    warnings: &mut Vec<String>,
) -> Result<(), ConfigError> {
    let p = &mut config.policy.priority;
    let text = entry.value_text();
    let text = text.trim();
    // 3.3.1 reads a component weight `N%` as a weight of 10 and keeps N as a percentage
    // that nothing reads (MFS.c `MFSProcessOConfig`).
    if let (PriorityParam::ComponentWeight(c), Some(percent)) = (param, text.strip_suffix('%')) {
        if percent.trim().parse::<i64>().is_ok() {
            p.component_weight[c as usize] = 10.0;
            warnings.push(format!(
                "{}: warning: {} {text}: Maui 3.3.1 reads a percentage here as a weight of 10 (the percentage itself is read by nothing); so does mauisim",
                entry.location, entry.name
            ));
            return Ok(());
        }
    }
    // Every priority weight and cap is a whole number to 3.3.1 (`strtol`).
    if let Ok(v) = text.parse::<f64>() {
        if v.is_finite() && v.fract() != 0.0 {
            warnings.push(format!(
                "{}: warning: {} {text}: Maui 3.3.1 reads whole numbers here and would use {}; mauisim uses {text}",
                entry.location,
                entry.name,
                v.trunc()
            ));
        }
    }
    match param {
        PriorityParam::ComponentWeight(c) => {
            p.component_weight[c as usize] = weight(entry)?;
            if c == Component::Attr && p.component_weight[c as usize] != 0.0 {
                warnings.push(format!(
                    "{}: warning: ATTRWEIGHT: the ATTR component has no factors (as in Maui 3.3.1); it adds nothing",
                    entry.location
                ));
            }
        }
        PriorityParam::ComponentCap(c) => p.component_cap[c as usize] = cap(entry)?,
        PriorityParam::Weight(s) => p.weight[s as usize] = weight(entry)?,
        PriorityParam::Cap(s) => p.cap[s as usize] = cap(entry)?,
    }
    Ok(())
}

/// The parameters of a file that have no effect on a simulation, told in one line.
#[derive(Debug, Default)]
struct NoEffect {
    file: Option<std::sync::Arc<str>>,
    names: Vec<String>,
}

impl NoEffect {
    fn add(&mut self, entry: &Entry) {
        self.add_name(&entry.location.file, &entry.name);
    }

    fn add_name(&mut self, file: &std::sync::Arc<str>, name: &str) {
        self.file.get_or_insert_with(|| file.clone());
        if !self.names.iter().any(|n| n == name) {
            self.names.push(name.to_string());
        }
    }

    fn summary(&self) -> Option<String> {
        let file = self.file.as_ref()?;
        Some(format!(
            "{file}: note: {} without effect on what Maui 3.3.1 schedules in a simulation ignored: {}",
            crate::units::count(self.names.len() as u64, "parameter"),
            self.names.join(", ")
        ))
    }
}

fn apply(
    config: &mut SimConfig,
    entry: &Entry,
    warnings: &mut Vec<String>,
    no_effect: &mut NoEffect,
) -> Result<(), ConfigError> {
    if let (Some(index), Some(_)) = (
        entry.index.as_deref().filter(|i| !i.is_empty()),
        partition_params::table_rank(&entry.name),
    ) {
        return match partition_params::read(config, entry, index, warnings)? {
            Some(global) => apply(config, &global, warnings, no_effect),
            None => Ok(()),
        };
    }
    let renamed;
    let entry = match maui_names::alias_of(&entry.name) {
        Some(name) => {
            renamed = Entry {
                name: name.to_string(),
                ..entry.clone()
            };
            &renamed
        }
        None => entry,
    };
    if let Some(param) = find_param(&entry.name) {
        let before = warnings.len();
        (param.apply)(config, entry, warnings)?;
        config
            .set_at
            .insert(entry.name.clone(), entry.location.clone());
        // Read and checked, but without effect in a simulation unless it warned: named in
        // the summary line of such parameters.
        if INERT_IN_SIMULATION.contains(&entry.name.as_str()) && warnings.len() == before {
            no_effect.add(entry);
        }
        return Ok(());
    }
    if let Some(param) = priority_param(&entry.name) {
        return apply_priority_param(config, entry, param, warnings);
    }
    if old_limits::names().any(|n| n == entry.name) {
        return old_limits::read(config, entry);
    }
    let location = &entry.location;
    if let Some(known) = maui_names::lookup(&entry.name) {
        match known.kind {
            maui_names::Kind::NoEffect => no_effect.add(entry),
            maui_names::Kind::Schedules
                if maui_names::keeps_default(&entry.name, entry.value_text().trim()) =>
            {
                // A later line at the default undoes an earlier one, as in 3.3.1.
                config.set_at.remove(&entry.name);
                no_effect.add(entry)
            }
            // Judged once every QOS's flags are read ([`system_queue_time`]), and once every
            // node's load limit is ([`node_load_policy`]).
            maui_names::Kind::Schedules
                if entry.name == "USESYSTEMQUEUETIME" || entry.name == "NODELOADPOLICY" =>
            {
                config
                    .set_at
                    .insert(entry.name.clone(), entry.location.clone());
            }
            maui_names::Kind::Schedules => {
                return Err(ConfigError::at(
                    location.clone(),
                    format!(
                        "{} ({}) changes what Maui schedules, and mauisim does not simulate it: the schedule would not be your Maui's; remove the line (or comment it out with #) to simulate without it",
                        entry.name, known.what
                    ),
                ));
            }
        }
    } else {
        let names = known_names();
        let hint = match (meant_by(&entry.name), cfg::closest(&entry.name, &names)) {
            (Some((meant, why)), _) => format!("; did you mean {meant} ({why})?"),
            (None, Some(near)) => format!("; did you mean {near}?"),
            (None, None) => String::new(),
        };
        warnings.push(format!(
            "{location}: warning: unknown parameter {}{hint}; ignored",
            entry.name
        ));
    }
    Ok(())
}

/// Names that are no Maui 3.3.1 parameter but that guides and site configs write for one,
/// where the closest spelling would suggest the wrong one: the parameter meant, and why.
fn meant_by(name: &str) -> Option<(&'static str, &'static str)> {
    const MEANT: &[(&str, &str, &str)] = &[(
        "CPUWEIGHT",
        "PROCWEIGHT",
        "the weight of a job's processors; Maui 3.3.1 has no CPUWEIGHT",
    )];
    MEANT
        .iter()
        .find(|(written, _, _)| written.eq_ignore_ascii_case(name))
        .map(|&(_, meant, why)| (meant, why))
}

fn find_param(name: &str) -> Option<&'static Param> {
    PARAMS.iter().find(|p| p.names.contains(&name))
}

/// Applies one entry of a parameter of [`PARAMS`] (by its own name or an old one 3.3.1
/// translates), as the file's reading does.
fn apply_param(c: &mut SimConfig, entry: &Entry, w: &mut Vec<String>) -> Result<(), ConfigError> {
    let name = maui_names::alias_of(&entry.name).unwrap_or(&entry.name);
    let entry = Entry {
        name: name.to_string(),
        ..entry.clone()
    };
    match find_param(name) {
        Some(param) => (param.apply)(c, &entry, w),
        None => Ok(()),
    }
}

/// The single value of a scalar parameter, which takes no index (or index 0).
fn scalar(entry: &Entry) -> Result<(&str, &Location), ConfigError> {
    if let Some(index) = &entry.index {
        if index != "0" {
            return Err(ConfigError::at(
                entry.location.clone(),
                format!("{} takes no index, found [{index}]", entry.name),
            ));
        }
    }
    match entry.values.as_slice() {
        [one] => Ok((one.text.as_str(), &one.location)),
        [] => Err(ConfigError::at(
            entry.location.clone(),
            format!("{} needs a value", entry.name),
        )),
        [_, extra, ..] => Err(ConfigError::at(
            extra.location.clone(),
            format!("{} takes one value, found more", entry.name),
        )),
    }
}

fn located<T>(
    result: Result<T, cfg::ValueError>,
    entry: &Entry,
    at: &Location,
) -> Result<T, ConfigError> {
    result.map_err(|e| ConfigError::at(at.clone(), format!("{}: {}", entry.name, e.0)))
}

fn float(entry: &Entry) -> Result<f64, ConfigError> {
    let (text, at) = scalar(entry)?;
    located(cfg::parse_float(text), entry, at)
}

/// The largest priority weight in magnitude: a component times two weights stays finite
/// (larger ones turned priorities into NaN), far above any weight a site uses.
const MAX_WEIGHT: f64 = 1e15;

/// A priority weight: a number within ±[`MAX_WEIGHT`].
fn weight(entry: &Entry) -> Result<f64, ConfigError> {
    float_where(
        entry,
        |w| w.abs() <= MAX_WEIGHT,
        "a weight within -1e15..=1e15",
    )
}

/// A number that must pass `ok`; else an error saying what was `expected`.
fn float_where(entry: &Entry, ok: fn(f64) -> bool, expected: &str) -> Result<f64, ConfigError> {
    let v = float(entry)?;
    if ok(v) {
        return Ok(v);
    }
    let (text, at) = scalar(entry)?;
    let found = format!("expected {expected}, found `{}`", text.trim());
    located(Err(cfg::ValueError(found)), entry, at)
}

fn cap(entry: &Entry) -> Result<f64, ConfigError> {
    let (_, at) = scalar(entry)?;
    let value = float(entry)?;
    if value < 0.0 {
        return Err(ConfigError::at(
            at.clone(),
            format!("{}: a cap cannot be negative", entry.name),
        ));
    }
    Ok(value)
}

fn boolean(entry: &Entry) -> Result<bool, ConfigError> {
    let (text, at) = scalar(entry)?;
    located(cfg::parse_bool(text), entry, at)
}

/// A time value of the parameter or attribute called `what`; a two-field value draws
/// the warning that says how it was read.
pub(crate) fn duration(
    what: &str,
    text: &str,
    at: &Location,
    warnings: &mut Vec<String>,
) -> Result<Duration, ConfigError> {
    let (value, warning) = cfg::parse_duration(text)
        .map_err(|e| ConfigError::at(at.clone(), format!("{what}: {}", e.0)))?;
    if let Some(w) = warning {
        warnings.push(format!("{at}: warning: {what}: {w}"));
    }
    Ok(value)
}

/// A time value that must be finite.
fn finite_duration(
    what: &str,
    text: &str,
    at: &Location,
    warnings: &mut Vec<String>,
) -> Result<Time, ConfigError> {
    match duration(what, text, at, warnings)? {
        Duration::Seconds(s) => Ok(s),
        Duration::Infinity => Err(ConfigError::at(
            at.clone(),
            format!("{what} cannot be INFINITY"),
        )),
    }
}

/// BACKFILLPOLICY: a policy's name; or, as Maui 3.3.1 reads any other word (MPar.c), a
/// boolean: OFF, FALSE, NO or 0 turn backfill off, ON, TRUE, YES or 1 keep the policy
/// set so far (FIRSTFIT unless an earlier line chose another).
fn backfill_policy(c: &mut SimConfig, e: &Entry, w: &mut Vec<String>) -> Result<(), ConfigError> {
    let (text, at) = scalar(e)?;
    match boolean_word(text) {
        Some(false) => c.policy.backfill = BackfillPolicy::None,
        Some(true) => w.push(format!(
            "{at}: note: BACKFILLPOLICY {text} keeps the backfill policy set so far, as Maui 3.3.1 reads it: {}",
            c.policy.backfill.name()
        )),
        None => match text.to_ascii_uppercase().as_str() {
            // 3.3.1 knows these and backfills with FIRSTFIT for them (MQueue.c
            // `MQueueBackFill`: "unexpected backfill policy").
            "BESTTIMEFIT" | "LAZY" => {
                w.push(format!(
                    "{at}: warning: BACKFILLPOLICY {text}: Maui 3.3.1 has no such backfill and uses FIRSTFIT instead; so does mauisim"
                ));
                c.policy.backfill = BackfillPolicy::FirstFit;
            }
            "PREEMPT" => {
                return Err(ConfigError::at(
                    at.clone(),
                    "BACKFILLPOLICY PREEMPT (backfilled jobs become PREEMPTEE, every priority job a PREEMPTOR, candidates ordered by BFPRIORITYPOLICY) changes what Maui schedules, and mauisim does not simulate it yet: the schedule would not be your Maui's; choose FIRSTFIT, BESTFIT, GREEDY or NONE".to_string(),
                ))
            }
            _ => {
                let choices = BackfillPolicy::ALL.map(|p| (p.name(), p));
                c.policy.backfill = keyword_in_capitals(e, &choices, w)?;
            }
        },
    }
    Ok(())
}

/// The words Maui 3.3.1 reads as a boolean where a parameter expects a keyword
/// (`MUBoolFromString`), case as in its lists.
fn boolean_word(text: &str) -> Option<bool> {
    match text {
        "1" | "true" | "True" | "TRUE" | "ON" | "yes" | "Yes" | "YES" => Some(true),
        "0" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" | "no" | "No" | "NO" => {
            Some(false)
        }
        _ => None,
    }
}

/// A keyword value out of `choices` (case-insensitive).
fn keyword<T: Copy>(e: &Entry, choices: &[(&str, T)]) -> Result<T, ConfigError> {
    let (text, at) = scalar(e)?;
    let upper = text.to_ascii_uppercase();
    if let Some((_, value)) = choices.iter().find(|(name, _)| *name == upper) {
        return Ok(*value);
    }
    let names: Vec<&str> = choices.iter().map(|(name, _)| *name).collect();
    let expected = match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    };
    Err(ConfigError::at(
        at.clone(),
        format!("{}: expected {expected}, found `{text}`", e.name),
    ))
}

/// [`keyword`], with a warning where the value matched only once put in capitals: 3.3.1
/// matches these values exactly (MGUtil.c `MUGetIndex`, `strcmp`) and leaves the parameter
/// as it was, where mauisim, as with names, reads the value meant.
fn keyword_in_capitals<T: Copy>(
    e: &Entry,
    choices: &[(&str, T)],
    w: &mut Vec<String>,
) -> Result<T, ConfigError> {
    let value = keyword(e, choices)?;
    note_capitals(e, w);
    Ok(value)
}

/// The warning of [`keyword_in_capitals`] for `e`'s value, if it is not in capitals.
pub(super) fn note_capitals(e: &Entry, w: &mut Vec<String>) {
    let text = e.value_text();
    let text = text.trim();
    if text != text.to_ascii_uppercase() {
        w.push(format!(
            "{}: warning: {} `{text}`: Maui 3.3.1 matches this value in capitals only and would leave {} as it was; mauisim reads it as {}",
            e.location,
            e.name,
            e.name,
            text.to_ascii_uppercase()
        ));
    }
}

/// A whole number from 0 to `max`.
fn count(e: &Entry, max: i64) -> Result<i64, ConfigError> {
    let (text, at) = scalar(e)?;
    let n = located(cfg::parse_int(text), e, at)?;
    if n < 0 {
        return Err(ConfigError::at(
            at.clone(),
            format!("{}: expected 0 or more, found {n}", e.name),
        ));
    }
    if n > max {
        return Err(ConfigError::at(
            at.clone(),
            format!("{}: expected at most {max}, found {n}", e.name),
        ));
    }
    Ok(n)
}

/// A RESERVATIONQOSLIST's QOS names and the line that gave them.
type QosList = (Vec<String>, Location);

/// Reservation groups Maui accepts: `RESERVATIONDEPTH[0]` to `[MAX_RESERVATION_GROUPS − 1]`.
const MAX_RESERVATION_GROUPS: usize = 16;

/// The `[i]` of RESERVATIONDEPTH / RESERVATIONQOSLIST (none = 0).
fn group_index(e: &Entry) -> Result<usize, ConfigError> {
    let Some(index) = &e.index else {
        return Ok(0);
    };
    match index.parse::<usize>() {
        Ok(i) if i < MAX_RESERVATION_GROUPS => Ok(i),
        _ => Err(ConfigError::at(
            e.location.clone(),
            format!(
                "{}[{index}]: the index must be a number from 0 to {}",
                e.name,
                MAX_RESERVATION_GROUPS - 1
            ),
        )),
    }
}

fn reservation_depth(c: &mut SimConfig, e: &Entry, _: &mut Vec<String>) -> Result<(), ConfigError> {
    let index = group_index(e)?;
    let unindexed = Entry {
        index: None,
        ..e.clone()
    };
    let depth = count(&unindexed, u32::MAX as i64)? as u32;
    c.reservation_indexes.entry(index).or_default().0 = Some(depth);
    Ok(())
}

/// `RESERVATIONQOSLIST[i] high,special` (commas or spaces) or `ALL`.
fn reservation_qos_list(
    c: &mut SimConfig,
    e: &Entry,
    warnings: &mut Vec<String>,
) -> Result<(), ConfigError> {
    let index = group_index(e)?;
    let names: Vec<String> = e
        .values
        .iter()
        .flat_map(|t| t.text.split(','))
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .collect();
    if names.is_empty() {
        return Err(ConfigError::at(
            e.location.clone(),
            format!("{} needs QOS names or ALL", e.name),
        ));
    }
    // 3.3.1's keyword is `[ALL]` (msched-common.h `ALL`): it reads `ALL` as the name of a QOS
    // no job has, so that the group holds no job (seen in its runs).
    let bare_all = names.iter().any(|n| n.eq_ignore_ascii_case("ALL"));
    if bare_all {
        warnings.push(format!(
            "{}: warning: {}[{index}] ALL: Maui 3.3.1 reads ALL as the name of a QOS, which no job has, so on a real Maui this group reserves for no job; its keyword for every QOS is [ALL] (mauisim reads both as every QOS)",
            e.location, e.name
        ));
    }
    let list = if bare_all || names.iter().any(|n| n.eq_ignore_ascii_case("[ALL]")) {
        None
    } else {
        Some((names, e.location.clone()))
    };
    c.reservation_indexes.entry(index).or_default().1 = list;
    Ok(())
}

/// The reservation groups, one per index from 0 to the highest given, as Maui 3.3.1 keeps
/// them (MPar.c `MParSetDefaults`): group 0 reserves 1 job of any QOS unless set, a later
/// group none of any QOS unless set. Which group a job's reservation counts against is the
/// scheduler's reading (`Scheduler::group_of`).
fn reservation_groups(c: &mut SimConfig, warnings: &mut Vec<String>) {
    let Some(&highest) = c.reservation_indexes.keys().next_back() else {
        return;
    };
    let known = c.credentials.objects(CredKind::Qos);
    let mut groups = Vec::new();
    let mut lists = Vec::new();
    for index in 0..=highest {
        let (depth, list) = c
            .reservation_indexes
            .get(&index)
            .cloned()
            .unwrap_or_default();
        if let Some((names, at)) = &list {
            for name in names.iter().filter(|n| !known.contains_key(*n)) {
                warnings.push(format!(
                    "{at}: warning: RESERVATIONQOSLIST[{index}]: no QOSCFG[{name}] is configured, so no job has QOS {name}"
                ));
            }
        }
        let default_depth = u32::from(index == 0);
        groups.push(ReservationGroup::all(depth.unwrap_or(default_depth)));
        lists.push(list.map(|(names, _)| names));
    }
    c.policy.reservation_groups = groups;
    c.reservation_qos = lists;
}

/// RESERVATIONTHRESHOLDTYPE with its VALUE (seconds for QUEUETIME).
fn reservation_threshold(c: &mut SimConfig, warnings: &mut Vec<String>) -> Result<(), ConfigError> {
    let ThresholdAsRead { kind, value } = c.threshold.clone();
    let Some((kind, at)) = kind else {
        if let Some((_, at)) = value {
            warnings.push(format!(
                "{at}: warning: RESERVATIONTHRESHOLDVALUE without RESERVATIONTHRESHOLDTYPE; ignored"
            ));
        }
        return Ok(());
    };
    let v = value.map_or(0.0, |(v, _)| v);
    c.policy.reservation_threshold = match kind.as_str() {
        "NONE" => ReservationThreshold::None,
        "BYPASS" => ReservationThreshold::Bypass(v),
        "QUEUETIME" => ReservationThreshold::QueueTime(v),
        "XFACTOR" => ReservationThreshold::XFactor(v),
        _ => {
            return Err(ConfigError::at(
                at,
                format!(
                    "RESERVATIONTHRESHOLDTYPE: expected NONE, BYPASS, QUEUETIME or XFACTOR, found `{kind}`"
                ),
            ))
        }
    };
    Ok(())
}

fn job_max_overrun(c: &mut SimConfig, e: &Entry, w: &mut Vec<String>) -> Result<(), ConfigError> {
    let (text, at) = scalar(e)?;
    c.max_overrun = match text.trim() {
        "-1" => None,
        _ => match duration(&e.name, text, at, w)? {
            Duration::Seconds(s) => Some(s),
            Duration::Infinity => None,
        },
    };
    Ok(())
}

fn rm_poll_interval(c: &mut SimConfig, e: &Entry, w: &mut Vec<String>) -> Result<(), ConfigError> {
    let (text, at) = scalar(e)?;
    c.poll_interval = finite_duration(&e.name, text, at, w)?;
    Ok(())
}

fn xf_min_wclimit(c: &mut SimConfig, e: &Entry, w: &mut Vec<String>) -> Result<(), ConfigError> {
    let (text, at) = scalar(e)?;
    // −1 (the guide's default) turns the floor off: the xfactor divides by the WCL itself.
    c.policy.priority.xf_min_wclimit = match text.trim() {
        "-1" => -1,
        _ => finite_duration(&e.name, text, at, w)?,
    };
    Ok(())
}

fn accrual_policy(c: &mut SimConfig, e: &Entry, w: &mut Vec<String>) -> Result<(), ConfigError> {
    c.policy.priority.accrual = keyword_in_capitals(
        e,
        &[
            ("ALWAYS", AccrualPolicy::Always),
            ("QUEUEPOLICY", AccrualPolicy::QueuePolicy),
            ("FULLPOLICY", AccrualPolicy::FullPolicy),
        ],
        w,
    )?;
    Ok(())
}

/// FSPOLICY: a metric, with an optional % (ratio); as in Maui 3.3.1, a true boolean word
/// is DEDICATEDPS. The guide's own example writes PSDEDICATED, which 3.3.1 does not know
/// (it leaves FSPOLICY as it was: no fairshare): read as the guide means it, DEDICATEDPS,
/// with a warning that the site's Maui differs.
fn fs_policy(c: &mut SimConfig, e: &Entry, w: &mut Vec<String>) -> Result<(), ConfigError> {
    let (text, at) = scalar(e)?;
    let upper = text.to_ascii_uppercase();
    let (name, ratio) = match upper.strip_suffix('%') {
        Some(name) => (name, true),
        None => (upper.as_str(), false),
    };
    let boolean = boolean_word(text.strip_suffix('%').unwrap_or(text));
    if name == "PSDEDICATED" {
        w.push(format!(
            "{at}: warning: FSPOLICY {text}: the guide's spelling of DEDICATEDPS, simulated as such; Maui 3.3.1 does not know it and tracks no fairshare (write DEDICATEDPS)"
        ));
    }
    let fs = &mut c.policy.fairshare;
    fs.metric = match name {
        "NONE" if !ratio => None,
        _ if boolean == Some(true) => Some(FsMetric::DedicatedPs),
        "DEDICATEDPS" | "PSDEDICATED" => Some(FsMetric::DedicatedPs),
        "DEDICATEDPES" => Some(FsMetric::DedicatedPes),
        "UTILIZEDPS" => Some(FsMetric::UtilizedPs),
        _ => {
            return Err(ConfigError::at(
                at.clone(),
                format!(
                    "FSPOLICY: expected DEDICATEDPS, DEDICATEDPES, UTILIZEDPS or NONE (with an optional %), found `{text}`"
                ),
            ))
        }
    };
    fs.ratio = ratio;
    Ok(())
}

fn fs_interval(c: &mut SimConfig, e: &Entry, w: &mut Vec<String>) -> Result<(), ConfigError> {
    let (text, at) = scalar(e)?;
    let interval = finite_duration(&e.name, text, at, w)?;
    if interval <= 0 {
        return Err(ConfigError::at(
            at.clone(),
            "FSINTERVAL must be longer than 0 seconds".to_string(),
        ));
    }
    c.policy.fairshare.interval = interval;
    Ok(())
}

fn fs_depth(c: &mut SimConfig, e: &Entry, w: &mut Vec<String>) -> Result<(), ConfigError> {
    let (text, at) = scalar(e)?;
    let mut depth = located(cfg::parse_int(text), e, at)?;
    if depth > FS_MAX_DEPTH as i64 {
        // MFSProcessOConfig: MIN(value, MAX_MFSDEPTH).
        w.push(format!(
            "{at}: warning: FSDEPTH {depth}: Maui 3.3.1 keeps at most {FS_MAX_DEPTH} windows; read as {FS_MAX_DEPTH}, as it does"
        ));
        depth = FS_MAX_DEPTH as i64;
    }
    if !(1..=FS_MAX_DEPTH as i64).contains(&depth) {
        return Err(ConfigError::at(
            at.clone(),
            format!(
                "FSDEPTH: expected 1 to {} windows, found {depth}",
                FS_MAX_DEPTH
            ),
        ));
    }
    c.policy.fairshare.depth = depth as usize;
    Ok(())
}

fn fs_decay(c: &mut SimConfig, e: &Entry, _: &mut Vec<String>) -> Result<(), ConfigError> {
    let (_, at) = scalar(e)?;
    let decay = float(e)?;
    if !(decay > 0.0 && decay <= 1.0) {
        return Err(ConfigError::at(
            at.clone(),
            format!("FSDECAY: expected a factor in (0, 1], found {decay}"),
        ));
    }
    c.policy.fairshare.decay = decay;
    Ok(())
}

/// `FSTARGET=25` (target), `25+` (floor), `25-` (ceiling), `25^` (absolute cap,
/// proc-seconds), `25%` (relative cap).
fn fs_target(text: &str) -> Result<FsTarget, String> {
    let text = text.trim();
    let (number, kind) = match text.char_indices().last() {
        Some((i, '+')) => (&text[..i], TargetKind::Floor),
        Some((i, '-')) => (&text[..i], TargetKind::Ceiling),
        Some((i, '^')) => (&text[..i], TargetKind::AbsoluteCap),
        Some((i, '%')) => (&text[..i], TargetKind::RelativeCap),
        _ => (text, TargetKind::Target),
    };
    let value = cfg::parse_float(number)
        .map_err(|_| format!("expected a number with an optional +, -, ^ or %, found `{text}`"))?;
    if value < 0.0 {
        return Err(format!(
            "a fairshare target cannot be negative, found `{text}`"
        ));
    }
    Ok(FsTarget { value, kind })
}

/// One warning for the `attr` of every object in `objects` (its name and where the
/// attribute was set) that has no effect `why`: the objects in file order, the first few
/// named, at the first one's line.
fn without_effect(mut objects: Vec<(String, &Location)>, attr: &str, why: &str) -> Option<String> {
    objects.sort_by_key(|(_, at)| (at.line, at.column));
    let (_, first) = objects.first()?;
    if objects.len() == 1 {
        return Some(format!(
            "{first}: warning: {} {attr} has no effect {why}",
            objects[0].0
        ));
    }
    const NAMED: usize = 4;
    let mut named: Vec<&str> = objects
        .iter()
        .take(NAMED)
        .map(|(n, _)| n.as_str())
        .collect();
    let more = objects.len().saturating_sub(NAMED);
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    let last = named.pop().unwrap_or_default();
    let list = if more.is_empty() {
        format!("{} and {last}", named.join(", "))
    } else {
        format!("{}, {last}{more}", named.join(", "))
    };
    Some(format!(
        "{first}: warning: the {attr} of {} objects ({list}) has no effect {why}",
        objects.len()
    ))
}

/// A credential's PRIORITY counts only through its kind's subcomponent weight (USERWEIGHT,
/// …; 0 unless set, as in Maui 3.3.1) and CREDWEIGHT: set where they are 0, it does
/// nothing, which is said once per kind.
fn check_cred_priorities(c: &SimConfig, warnings: &mut Vec<String>) {
    let p = &c.policy.priority;
    let cred_off = p.component_weight[Component::Cred as usize] == 0.0;
    for kind in CredKind::ALL {
        let sub = Sub::credential(kind);
        let weight = p.weight_of(sub);
        if weight != 0.0 && !cred_off {
            continue;
        }
        let set: Vec<(String, &Location)> = c
            .credentials
            .objects(kind)
            .iter()
            .filter(|(_, o)| o.settings.priority != 0.0)
            .filter_map(|(name, o)| {
                let at = o.priority_location.as_ref()?;
                Some((format!("{}[{name}]", kind.cfg_name()), at))
            })
            .collect();
        let off = if weight == 0.0 {
            sub.weight_names()[0]
        } else {
            Component::Cred.weight_names()[0]
        };
        let why = format!("while {off} is 0");
        warnings.extend(without_effect(set, "PRIORITY", &why));
    }
}

/// Fairshare settings that cannot work together, or that do nothing.
fn check_fairshare(c: &SimConfig, warnings: &mut Vec<String>) -> Result<(), ConfigError> {
    let fs = &c.policy.fairshare;
    let targets = CredKind::ALL.into_iter().flat_map(|kind| {
        c.credentials
            .objects(kind)
            .iter()
            .filter_map(move |(name, o)| {
                let at = o.fs_target_location.as_ref()?;
                o.settings.fs_target.map(|t| (kind, name, t, at))
            })
    });
    if fs.metric.is_none() {
        let idle: Vec<(String, &Location)> = targets
            .map(|(kind, name, _, at)| (format!("{}[{name}]", kind.cfg_name()), at))
            .collect();
        warnings.extend(without_effect(idle, "FSTARGET", "while FSPOLICY is NONE"));
        return Ok(());
    }
    for (kind, name, target, at) in targets {
        let object = format!("{}[{name}] FSTARGET", kind.cfg_name());
        if fs.ratio && target.value == 0.0 && !target.kind.is_cap() {
            return Err(ConfigError::at(
                at.clone(),
                format!("{object}=0 cannot be used with a ratio FSPOLICY (…%): 1 − usage/target divides by the target"),
            ));
        }
    }
    let fs_weights = CredKind::ALL
        .iter()
        .any(|&k| c.policy.priority.weight_of(Sub::fairshare(k)) != 0.0);
    if fs.metric.is_some() && !fs_weights {
        let caps = CredKind::ALL.iter().any(|&kind| {
            c.credentials
                .objects(kind)
                .values()
                .any(|o| o.settings.fs_target.is_some_and(|t| t.kind.is_cap()))
        });
        if !caps {
            let at = c
                .set_at
                .get("FSPOLICY")
                .map_or_else(String::new, |at| format!("{at}: "));
            warnings.push(format!(
                "{at}warning: FSPOLICY is set but every FS*WEIGHT (FSUSERWEIGHT, …) is 0 and no FSTARGET is a cap: fairshare changes nothing (guide 6.3.3.1)"
            ));
        }
    }
    Ok(())
}

/// Credential attributes mauisim reads: name and the kinds that accept it.
const CRED_ATTRS: &[(&str, &[CredKind])] = &[
    ("PRIORITY", &CredKind::ALL),
    (
        "QDEF",
        &[
            CredKind::User,
            CredKind::Group,
            CredKind::Account,
            CredKind::Class,
        ],
    ),
    (
        "QLIST",
        &[
            CredKind::User,
            CredKind::Group,
            CredKind::Account,
            CredKind::Class,
        ],
    ),
    ("ADEF", &[CredKind::User, CredKind::Group]),
    ("ALIST", &[CredKind::User, CredKind::Group]),
    ("CLASSWEIGHT", &[CredKind::Group]),
    ("QTWEIGHT", &[CredKind::Qos]),
    ("XFWEIGHT", &[CredKind::Qos]),
    ("QTTARGET", &[CredKind::Qos]),
    ("XFTARGET", &[CredKind::Qos]),
    ("DEFAULT.WCLIMIT", &[CredKind::Class]),
    ("OVERRUN", &[CredKind::Class]),
    ("FSTARGET", &CredKind::ALL),
];

/// Why Maui 3.3.1 ignores a credential attribute a site config may hold (MCred.c reads
/// `MCredAttr`, then the kind's own table; a name in neither, or one its switch does not
/// set from a config file, is dropped without a word).
fn ignored_by_3_3_1(kind: CredKind, attr: &str) -> Option<&'static str> {
    match (kind, attr) {
        (CredKind::Qos, "FLAGS") => Some("QOS flags are set with QFLAGS="),
        (_, "FLAGS") => Some("it is no credential attribute (job flags are JOBFLAGS=)"),
        (_, "MINPROC") => Some(
            "it stores it among the active limits (MCred.c) and no check reads it (MJob.c `MJobCheckLimits` and MPolicy.c test MAXJOB, MAXPROC, MAXNODE, MAXPS, MAXPE and MAXWC only)",
        ),
        (CredKind::Qos, _) => None,
        (_, "QFLAGS") => Some("QFLAGS is an attribute of QOSCFG only"),
        (_, "MAXPROCPERNODE" | "MAXPROCPERNODEPERQUEUE" | "ID") => {
            Some("it parses it and handles it nowhere (MCred.c: \"cred attribute not handled\")")
        }
        (CredKind::Class, "HOSTLIST") => {
            Some("MClassProcessConfig does not set a class's host list from the config")
        }
        (CredKind::Class, "STATE" | "NAME" | "OCDPROCFACTOR") => {
            Some("MClassProcessConfig does not set it from the config")
        }
        (k, "OCNODE" | "DEFAULT.FEATURES" | "NODEACCESSPOLICY" | "WCOVERRUN")
            if k != CredKind::Class =>
        {
            Some("it is an attribute of CLASSCFG only")
        }
        // The attributes of one kind's own table (MConst.c `MQOSAttr`, `MGroupAttr`),
        // which 3.3.1 looks up for that kind only.
        (_, "QTWEIGHT" | "XFWEIGHT" | "QTTARGET" | "XFTARGET") => {
            Some("it is an attribute of QOSCFG only")
        }
        (CredKind::User | CredKind::Account | CredKind::Class, "CLASSWEIGHT") => {
            Some("it is an attribute of GROUPCFG only")
        }
        (CredKind::User | CredKind::Group | CredKind::Account, "OVERRUN") => {
            Some("it reads a class's overrun only (MLimit.c)")
        }
        _ => None,
    }
}

/// A QLIST or ALIST value: names separated by `,` or `:`.
pub(crate) fn name_list(text: &str) -> Result<Vec<String>, String> {
    let list: Vec<String> = text
        .split([',', ':'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect();
    if list.is_empty() {
        return Err("expected a list of names".into());
    }
    Ok(list)
}

/// A QDEF or ADEF value: one name.
pub(crate) fn one_name(text: &str) -> Result<String, String> {
    let text = text.trim();
    if text.is_empty() || text.contains([',', ' ']) {
        return Err(format!("expected one name, found `{text}`"));
    }
    Ok(text.to_string())
}

/// The warning that a class's MAXNODEPERJOB holds no job where none asks for a node count
/// (an SWF trace has none; 3.3.1 compares the count asked, 0, and under EXACTNODE the
/// tasks): `None` where it can act.
pub(crate) fn node_count_unasked(c: &SimConfig, any_job_asks: bool) -> Option<String> {
    let at = c.set_at.get("MAXNODEPERJOB")?;
    (!c.nodes.exact_node && !any_job_asks).then(|| {
        format!(
            "{at}: warning: MAXNODEPERJOB holds no job here: Maui 3.3.1 compares it with the nodes a job asks for by count, and no job of this trace asks for any (an SWF trace cannot; a Maui workload trace's field 2, or the tasks under JOBNODEMATCHPOLICY EXACTNODE)"
        )
    })
}

/// The refusal of an attribute of Maui 3.3.1 that changes the schedule and that mauisim
/// does not simulate yet, with what it does.
fn not_simulated_yet(at: &Location, object_name: &str, what: &str) -> ConfigError {
    ConfigError::at(
        at.clone(),
        format!("{object_name} ({what}) changes what Maui schedules, and mauisim does not simulate it yet: the schedule would not be your Maui's; remove the attribute to simulate without it"),
    )
}

/// MAX.WCLIMIT, MAXNODEPERJOB and MAXPROCPERJOB, which 3.3.1 stores for every credential
/// (MCred.c) and reads only in its class check as a job is loaded (`mauisim_core`'s class
/// job limits): a class's and CLASSCFG[DEFAULT]'s, a user's or group's own MAX.WCLIMIT.
/// Elsewhere they are ignored, with a warning.
fn per_job_maximum(
    c: &mut SimConfig,
    attr: &Attr,
    w: &mut Vec<String>,
    kind: CredKind,
    name: &str,
) -> Result<(), ConfigError> {
    let object_name = format!("{}[{name}] {}", kind.cfg_name(), attr.name);
    let at = &attr.location;
    let walltime = attr.name == "MAX.WCLIMIT";
    let read = match kind {
        CredKind::Class => true,
        CredKind::User | CredKind::Group => walltime && name != DEFAULT,
        _ => false,
    };
    if !read {
        w.push(format!(
            "{at}: warning: {object_name} is ignored, as Maui 3.3.1 ignores it: its class check (MJob.c `MJobCheckClassJLimits`) reads a class's and CLASSCFG[DEFAULT]'s MAX.WCLIMIT, MAXNODEPERJOB and MAXPROCPERJOB, and a user's or group's own MAX.WCLIMIT, only"
        ));
        return Ok(());
    }
    let (metric, value) = if walltime {
        let value = match duration(&object_name, &attr.value, at, w)? {
            Duration::Seconds(s) => s.max(0) as u64,
            Duration::Infinity => 0,
        };
        (mauisim_core::Metric::Wc, value)
    } else {
        let v = cfg::parse_int(&attr.value)
            .map_err(|e| ConfigError::at(at.clone(), format!("{object_name}: {}", e.0)))?;
        let metric = if attr.name == "MAXNODEPERJOB" {
            mauisim_core::Metric::Node
        } else {
            mauisim_core::Metric::Proc
        };
        (metric, v.max(0) as u64)
    };
    // Where it was set, for the warning where no job asks for a node count.
    if metric == mauisim_core::Metric::Node {
        c.set_at.insert(attr.name.clone(), at.clone());
    }
    let limits = &mut c.credentials.object_mut(kind, name).settings.limits;
    limits.per_job[metric as usize] = (value > 0).then_some(value);
    Ok(())
}

/// CLASSCFG's own attributes that mauisim reads apart (MClass.c `MClassProcessConfig`):
/// `Some` when `attr` is one and has been dealt with.
fn class_attr(
    c: &mut SimConfig,
    attr: &Attr,
    w: &mut Vec<String>,
    name: &str,
) -> Option<Result<(), ConfigError>> {
    let object_name = format!("CLASSCFG[{name}] {}", attr.name);
    let at = &attr.location;
    match attr.name.as_str() {
        // 3.3.1 sets the class's overrun from it, as from OVERRUN.
        "WCOVERRUN" => {
            let renamed = Attr {
                name: "OVERRUN".into(),
                ..attr.clone()
            };
            Some(credential_attr(c, &renamed, w, CredKind::Class, name))
        }
        // Added to the class's features, as 3.3.1's `MUGetMAttr(…, mAdd, …)` adds them.
        // CLASSCFG[DEFAULT]'s would reach only the jobs 3.3.1 gives the DEFAULT class.
        "DEFAULT.FEATURES" if name == DEFAULT => Some(Err(not_simulated_yet(
            at,
            &object_name,
            "node features every job of class DEFAULT requires",
        ))),
        "DEFAULT.FEATURES" => {
            let (features, place) = c
                .class_features
                .entry(name.to_string())
                .or_insert_with(|| (Vec::new(), at.clone()));
            for f in node_cfg::feature_list(&attr.value) {
                if !features.contains(&f) {
                    features.push(f);
                }
            }
            *place = at.clone();
            Some(Ok(()))
        }
        "OCNODE" => {
            w.push(format!(
                "{at}: note: {object_name}: without effect here: only PREEMPTPOLICY OVERCOMMIT reads a class's overcommit node, and mauisim refuses that policy"
            ));
            Some(Ok(()))
        }
        // Matched in capitals exactly; any other name leaves the class without a policy
        // of its own (`MUGetIndex(…, MNAccessPolicy, FALSE, 0)`).
        "NODEACCESSPOLICY" => match attr.value.trim() {
            "SHARED" | "SINGLEJOB" | "SINGLETASK" | "SINGLEUSER" => {
                w.push(format!(
                    "{at}: note: {object_name}: without effect, as in Maui 3.3.1: a job takes its class's policy as it is loaded (MRM.c `MRMJobPostLoad`), and MJob.c `MJobUpdateFlags` then sets every job's policy anew from NODEACCESSPOLICY (SINGLEJOB for a DEDICATED QOS), so the class's jobs share nodes as every job does (checked against the real 3.3.1, reports/MAUI-AGREEMENT.md)"
                ));
                Some(Ok(()))
            }
            other => {
                w.push(format!(
                    "{at}: warning: {object_name}: Maui 3.3.1 knows SHARED, SINGLEJOB, SINGLETASK and SINGLEUSER, in capitals, and gives the class no policy of its own from `{other}`; ignored"
                ));
                Some(Ok(()))
            }
        },
        _ => None,
    }
}

fn credential_cfg(
    c: &mut SimConfig,
    e: &Entry,
    w: &mut Vec<String>,
    kind: CredKind,
) -> Result<(), ConfigError> {
    let cfg_name = kind.cfg_name();
    let name = match e.index.as_deref() {
        Some(n) if !n.is_empty() => n,
        _ => {
            return Err(ConfigError::at(
                e.location.clone(),
                format!("{cfg_name} needs a name: {cfg_name}[name] ATTR=VALUE"),
            ))
        }
    };
    // DEFAULT is the fallback object whatever its case; other names are case-sensitive.
    let name = if name.eq_ignore_ascii_case(DEFAULT) {
        DEFAULT
    } else {
        name
    };
    // The line defines the object whatever its attributes (a QOSCFG[q] with only QFLAGS
    // still makes q a QOS that a QDEF may name).
    c.credentials.object_mut(kind, name);
    for attr in object_attrs(e, w)? {
        credential_attr(c, &attr, w, kind, name)?;
    }
    Ok(())
}

/// An object line's attributes, as 3.3.1 reads them: a bare word among them is passed
/// over there (a list written with spaces keeps its first item), and warned of here.
pub(super) fn object_attrs(e: &Entry, w: &mut Vec<String>) -> Result<Vec<Attr>, ConfigError> {
    let (attrs, words) = e.attrs_skipping_words()?;
    for word in words {
        w.push(format!(
            "{}: warning: `{}` on a {} line is no ATTRIBUTE=VALUE, and Maui 3.3.1 passes over it: ignored, here as there (a list is one word: QLIST=high,low)",
            word.location, word.text, e.name
        ));
    }
    Ok(attrs)
}

fn credential_attr(
    c: &mut SimConfig,
    attr: &Attr,
    w: &mut Vec<String>,
    kind: CredKind,
    name: &str,
) -> Result<(), ConfigError> {
    let cfg_name = kind.cfg_name();
    let object_name = format!("{cfg_name}[{name}] {}", attr.name);
    let at = &attr.location;
    let err = |message: String| ConfigError::at(at.clone(), message);
    if limits::is_limit_attr(&attr.name) {
        let object = c.credentials.object_mut(kind, name);
        return limits::credential_limit(object, kind, name, attr, w);
    }
    if let Some(index) = &attr.index {
        return Err(err(format!(
            "{object_name}[{index}]: only limits (MAXJOB[USER]=…) take an index"
        )));
    }
    if kind == CredKind::Class {
        if let Some(done) = class_attr(c, attr, w, name) {
            return done;
        }
    }
    if matches!(
        attr.name.as_str(),
        "MAX.WCLIMIT" | "MAXNODEPERJOB" | "MAXPROCPERJOB"
    ) {
        return per_job_maximum(c, attr, w, kind, name);
    }
    if let Some(why) = ignored_by_3_3_1(kind, &attr.name) {
        w.push(format!(
            "{at}: warning: {object_name} is ignored, as Maui 3.3.1 ignores it: {why}"
        ));
        return Ok(());
    }
    if let Some((_, kinds)) = CRED_ATTRS.iter().find(|(n, _)| *n == attr.name) {
        if !kinds.contains(&kind) {
            let owners: Vec<&str> = kinds.iter().map(|k| k.cfg_name()).collect();
            return Err(err(format!(
                "{object_name}: {} is an attribute of {}, not of {cfg_name}",
                attr.name,
                owners.join(", ")
            )));
        }
    } else if matches!(attr.name.as_str(), "PLIST" | "PDEF") {
        partitions::record(c, Some((kind, name)), attr);
        return Ok(());
    } else if kind == CredKind::Qos && attr.name == "QFLAGS" {
        let object = c.credentials.object_mut(kind, name);
        qos_flags::apply(&mut object.settings, &attr.value, &object_name, at, w)?;
        for flag in qos_flags::set_in(&object.settings) {
            c.set_at.insert(flag.to_string(), at.clone());
        }
        return Ok(());
    } else if kind == CredKind::Qos && attr.name == "JOBFLAGS" {
        w.push(format!(
            "{at}: note: {object_name}: without effect, as in Maui 3.3.1: a job takes the flags of its own user, group, account and class (MJob.c `MJobUpdateFlags`), not its QOS's (QFLAGS= sets those)"
        ));
        return Ok(());
    } else if attr.name == "JOBFLAGS" {
        let object = c.credentials.object_mut(kind, name);
        let place = (object_name.as_str(), at);
        job_flags::apply(&mut object.settings, &attr.value, place, name == DEFAULT, w)?;
        if object.settings.dedicated {
            c.set_at.insert("DEDICATED".to_string(), at.clone());
        }
        return Ok(());
    } else {
        let mut known: Vec<&str> = CRED_ATTRS.iter().map(|(n, _)| *n).collect();
        known.extend(["JOBFLAGS", "DEFAULT.FEATURES"]);
        known.extend(limits::LIMIT_NAMES);
        let hint = match cfg::closest(&attr.name, &known) {
            Some(near) => format!(" (did you mean {near}?)"),
            None => String::new(),
        };
        // 3.3.1 drops a name it does not know without a word (MCred.c `MUGetPair`):
        // so does the simulation, but it says so.
        w.push(format!(
            "{at}: warning: {cfg_name}[{name}]: unknown attribute {}{hint}; ignored, as Maui 3.3.1 ignores it",
            attr.name
        ));
        return Ok(());
    }
    let number =
        |text: &str| cfg::parse_float(text).map_err(|e| err(format!("{object_name}: {}", e.0)));
    // A credential's PRIORITY and its QOS/class weights multiply the component weights, so
    // they share their bound: a larger value turned priorities into infinities and NaN.
    let weight = |text: &str| {
        let value = number(text)?;
        if value.abs() > MAX_WEIGHT {
            return Err(err(format!(
                "{object_name}: expected a number within -1e15..=1e15, found `{}`",
                text.trim()
            )));
        }
        Ok(value)
    };
    let names = |text: &str| name_list(text).map_err(|m| err(format!("{object_name}: {m}")));
    let one_name = |text: &str| one_name(text).map_err(|m| err(format!("{object_name}: {m}")));
    if attr.name == "DEFAULT.WCLIMIT" {
        let limit = match duration(&object_name, &attr.value, at, w)? {
            Duration::Seconds(s) if s > 0 => Some(s),
            _ => None,
        };
        match (name == DEFAULT, limit) {
            (true, _) => c.default_wclimit = limit,
            (false, Some(limit)) => {
                c.class_wclimit.insert(name.to_string(), limit);
            }
            (false, None) => {
                c.class_wclimit.remove(name);
            }
        }
        return Ok(());
    }
    if attr.name == "OVERRUN" {
        let overrun = match attr.value.trim() {
            "-1" => None,
            text => match duration(&object_name, text, at, w)? {
                Duration::Seconds(s) => Some(s.max(0)),
                Duration::Infinity => None,
            },
        };
        c.class_overrun.insert(name.to_string(), overrun);
        return Ok(());
    }
    let object = c.credentials.object_mut(kind, name);
    let settings = &mut object.settings;
    match attr.name.as_str() {
        "PRIORITY" => {
            settings.priority = weight(&attr.value)?;
            object.priority_location = Some(at.clone());
        }
        "QDEF" => {
            object.qdef = Some(one_name(&attr.value)?);
            object.qdef_location = Some(at.clone());
        }
        "QLIST" => object.qlist = Some(names(&attr.value)?),
        "ADEF" => object.adef = Some(one_name(&attr.value)?),
        "ALIST" => object.alist = Some(names(&attr.value)?),
        "CLASSWEIGHT" => settings.class_weight = Some(weight(&attr.value)?),
        "QTWEIGHT" => settings.qt_weight = weight(&attr.value)?,
        "XFWEIGHT" => settings.xf_weight = weight(&attr.value)?,
        "QTTARGET" => {
            let value = duration(&object_name, &attr.value, at, w)?;
            settings.qt_target = value.as_secs().filter(|s| *s > 0);
        }
        "XFTARGET" => {
            let target = number(&attr.value)?;
            if target < 1.0 {
                return Err(err(format!(
                    "{object_name}: an expansion factor target is at least 1, found {target}"
                )));
            }
            settings.xf_target = Some(target);
        }
        "FSTARGET" => {
            let target = fs_target(&attr.value).map_err(|m| err(format!("{object_name}: {m}")))?;
            if target.kind != TargetKind::AbsoluteCap && target.value > 100.0 {
                // Maui 3.3.1 takes the number as given (MFS.c `MFSTargetFromString`).
                w.push(format!(
                    "{at}: warning: {object_name}={}: above 100 % of the delivered usage, which usage never reaches; taken as given, as Maui 3.3.1 does",
                    attr.value.trim()
                ));
            }
            settings.fs_target = Some(target);
            object.fs_target_location = Some(at.clone());
        }
        other => unreachable!("attribute {other} is listed in CRED_ATTRS"),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mauisim_core::FsConfig;

    fn load(text: &str) -> Result<LoadedConfig, ConfigError> {
        from_str(text, "maui.cfg")
    }

    #[test]
    fn understood_parameters_set_the_config() {
        let c = load(
            "BACKFILLPOLICY none\nreservationdepth 4\nQUEUETIMEWEIGHT 2.5\nSERVICEWEIGHT 3\n\
             JOBMAXOVERRUN 00:10:00\nRMPOLLINTERVAL 30\nCLASSCFG[DEFAULT] DEFAULT.WCLIMIT=1:00:00\n",
        )
        .unwrap();
        let cfg = c.config;
        assert_eq!(cfg.policy.backfill, BackfillPolicy::None);
        assert_eq!(
            cfg.policy.reservation_groups,
            vec![ReservationGroup::all(4)]
        );
        assert_eq!(cfg.policy.priority.weight[Sub::QueueTime as usize], 2.5);
        assert_eq!(
            cfg.policy.priority.component_weight[Component::Serv as usize],
            3.0
        );
        assert_eq!(cfg.max_overrun, Some(600));
        assert_eq!(cfg.poll_interval, 30);
        assert_eq!(cfg.default_wclimit, Some(3600));
        // Names and values are read whatever their case; a value not in capitals, which
        // 3.3.1 would not take, is warned of.
        assert_eq!(
            c.warnings,
            [
                "maui.cfg:1:1: warning: BACKFILLPOLICY `none`: Maui 3.3.1 matches this value in capitals only and would leave BACKFILLPOLICY as it was; mauisim reads it as NONE",
                "maui.cfg:3:1: warning: QUEUETIMEWEIGHT 2.5: Maui 3.3.1 reads whole numbers here and would use 2; mauisim uses 2.5"
            ]
        );
    }

    /// 3.3.1 finds a parameter only at the start of a line: an indented one is read here
    /// with a warning; a continued line is not indented.
    #[test]
    fn an_indented_parameter_is_read_with_a_warning() {
        let c =
            load("  BACKFILLPOLICY NONE\nUSERCFG[DEFAULT] MAXJOB=4 \\\n   MAXPROC=8\n").unwrap();
        assert_eq!(c.config.policy.backfill, BackfillPolicy::None);
        assert_eq!(
            c.warnings,
            ["maui.cfg:1:3: warning: BACKFILLPOLICY: indented; Maui 3.3.1 reads a parameter only at the start of a line and would pass over this one; mauisim reads it"]
        );
    }

    /// 3.3.1 reads a component weight `N%` as a weight of 10 (MFS.c `MFSProcessOConfig`).
    #[test]
    fn a_component_weight_in_percent_is_a_weight_of_ten() {
        let c = load("FSWEIGHT 20%\nCREDWEIGHT 3\n").unwrap();
        let w = &c.config.policy.priority.component_weight;
        assert_eq!(
            (w[Component::Fs as usize], w[Component::Cred as usize]),
            (10.0, 3.0)
        );
        assert_eq!(
            c.warnings,
            ["maui.cfg:1:1: warning: FSWEIGHT 20%: Maui 3.3.1 reads a percentage here as a weight of 10 (the percentage itself is read by nothing); so does mauisim"]
        );
        // Not a component weight: still a number.
        assert!(load("QUEUETIMEWEIGHT 20%\n").is_err());
    }

    #[test]
    fn unbounded_overrun() {
        assert_eq!(load("JOBMAXOVERRUN -1").unwrap().config.max_overrun, None);
    }

    #[test]
    fn a_typo_is_a_located_warning_with_the_nearest_name() {
        let c = load("# site config\nRESERVATIONDEPT 2\n").unwrap();
        assert_eq!(
            c.warnings,
            vec!["maui.cfg:2:1: warning: unknown parameter RESERVATIONDEPT; did you mean RESERVATIONDEPTH?; ignored"]
        );
        assert_eq!(c.config, SimConfig::default());
    }

    #[test]
    fn fairshare_parameters_and_targets_read() {
        let c = load(
            "FSPOLICY dedicatedpes%\nFSINTERVAL 1:00:00:00\nFSDEPTH 7\nFSDECAY 0.8\nFSUSERWEIGHT 1\n\
             USERCFG[ann] FSTARGET=25.5+\nGROUPCFG[g] FSTARGET=10-\nACCOUNTCFG[a] FSTARGET=1e6^\n\
             QOSCFG[q] FSTARGET=30%\nCLASSCFG[DEFAULT] FSTARGET=50\n",
        )
        .unwrap();
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        let fs = &c.config.policy.fairshare;
        assert_eq!(
            (fs.metric, fs.ratio, fs.interval, fs.depth, fs.decay),
            (Some(FsMetric::DedicatedPes), true, 86_400, 7, 0.8)
        );
        let target = |kind, name: &str| {
            c.config.credentials.objects(kind)[name]
                .settings
                .fs_target
                .map(|t| (t.value, t.kind))
        };
        assert_eq!(
            target(CredKind::User, "ann"),
            Some((25.5, TargetKind::Floor))
        );
        assert_eq!(
            target(CredKind::Group, "g"),
            Some((10.0, TargetKind::Ceiling))
        );
        assert_eq!(
            target(CredKind::Account, "a"),
            Some((1e6, TargetKind::AbsoluteCap))
        );
        assert_eq!(
            target(CredKind::Qos, "q"),
            Some((30.0, TargetKind::RelativeCap))
        );
        assert_eq!(
            target(CredKind::Class, DEFAULT),
            Some((50.0, TargetKind::Target))
        );
        let d = FsConfig::default();
        assert_eq!(
            (d.metric, d.interval, d.depth, d.decay),
            (None, 43_200, 8, 1.0)
        );
    }

    #[test]
    fn fairshare_that_does_nothing_warns() {
        let c = load("USERCFG[ann] FSTARGET=25\n").unwrap();
        assert_eq!(
            c.warnings,
            vec!["maui.cfg:1:14: warning: USERCFG[ann] FSTARGET has no effect while FSPOLICY is NONE"]
        );
        let c = load("FSPOLICY DEDICATEDPS\n").unwrap();
        assert_eq!(c.warnings.len(), 1);
        assert!(
            c.warnings[0].contains("every FS*WEIGHT"),
            "{:?}",
            c.warnings
        );
    }

    /// Issue 4's bad input: each is a located error and nothing runs.
    #[test]
    fn bad_fairshare_input_is_a_located_error() {
        let err = |text: &str| load(text).unwrap_err().to_string();
        assert_eq!(
            err("FSDECAY 0\n"),
            "maui.cfg:1:9: FSDECAY: expected a factor in (0, 1], found 0"
        );
        assert_eq!(
            err("FSDECAY 1.5\n"),
            "maui.cfg:1:9: FSDECAY: expected a factor in (0, 1], found 1.5"
        );
        assert_eq!(
            err("FSDEPTH 0\n"),
            "maui.cfg:1:9: FSDEPTH: expected 1 to 24 windows, found 0"
        );
        let deep = load("FSDEPTH 25\n").unwrap();
        assert_eq!(deep.config.policy.fairshare.depth, 24);
        assert_eq!(
            deep.warnings,
            ["maui.cfg:1:9: warning: FSDEPTH 25: Maui 3.3.1 keeps at most 24 windows; read as 24, as it does"]
        );
        assert_eq!(
            err("FSINTERVAL 0\n"),
            "maui.cfg:1:12: FSINTERVAL must be longer than 0 seconds"
        );
        assert_eq!(
            err("FSPOLICY FAIR\n"),
            "maui.cfg:1:10: FSPOLICY: expected DEDICATEDPS, DEDICATEDPES, UTILIZEDPS or NONE (with an optional %), found `FAIR`"
        );
        assert_eq!(
            err("USERCFG[ann] FSTARGET=lots\n"),
            "maui.cfg:1:14: USERCFG[ann] FSTARGET: expected a number with an optional +, -, ^ or %, found `lots`"
        );
        assert_eq!(
            err("USERCFG[ann] FSTARGET=25*\n"),
            "maui.cfg:1:14: USERCFG[ann] FSTARGET: expected a number with an optional +, -, ^ or %, found `25*`"
        );
        assert_eq!(
            err("USERCFG[ann] FSTARGET=-5\n"),
            "maui.cfg:1:14: USERCFG[ann] FSTARGET: a fairshare target cannot be negative, found `-5`"
        );
        assert_eq!(
            err("FSPOLICY DEDICATEDPS%\nFSUSERWEIGHT 1\nUSERCFG[ann] FSTARGET=0\n"),
            "maui.cfg:3:14: USERCFG[ann] FSTARGET=0 cannot be used with a ratio FSPOLICY (…%): 1 − usage/target divides by the target"
        );
    }

    /// The guide's and 3.3.1's own spellings (issue 25, item 5), read as 3.3.1 reads them
    /// or, where 3.3.1 is broken against the guide, as the guide means them with a warning.
    #[test]
    fn the_guide_and_maui_spellings_are_read() {
        let c = load("BACKFILLPOLICY ON\n").unwrap();
        assert_eq!(c.config.policy.backfill, BackfillPolicy::FirstFit);
        assert_eq!(
            c.warnings,
            ["maui.cfg:1:16: note: BACKFILLPOLICY ON keeps the backfill policy set so far, as Maui 3.3.1 reads it: FIRSTFIT"]
        );
        let c = load("BACKFILLPOLICY BESTFIT\nBACKFILLPOLICY TRUE\n").unwrap();
        assert_eq!(c.config.policy.backfill, BackfillPolicy::BestFit);
        for off in ["OFF", "FALSE", "0", "no"] {
            let c = load(&format!("BACKFILLPOLICY {off}\n")).unwrap();
            assert_eq!(c.config.policy.backfill, BackfillPolicy::None, "{off}");
        }
        let c = load("FSPOLICY PSDEDICATED\nFSUSERWEIGHT 1\n").unwrap();
        assert_eq!(
            c.config.policy.fairshare.metric,
            Some(FsMetric::DedicatedPs)
        );
        assert_eq!(
            c.warnings,
            ["maui.cfg:1:10: warning: FSPOLICY PSDEDICATED: the guide's spelling of DEDICATEDPS, simulated as such; Maui 3.3.1 does not know it and tracks no fairshare (write DEDICATEDPS)"]
        );
        let c = load("FSPOLICY TRUE%\nFSUSERWEIGHT 1\n").unwrap();
        assert_eq!(
            c.config.policy.fairshare.metric,
            Some(FsMetric::DedicatedPs)
        );
        assert!(c.config.policy.fairshare.ratio);
        let c = load("FSPOLICY DEDICATEDPS\nFSUSERWEIGHT 1\nUSERCFG[ann] FSTARGET=120\n").unwrap();
        let ann = c.config.credentials.objects(CredKind::User)["ann"]
            .settings
            .fs_target;
        assert_eq!(ann.map(|t| t.value), Some(120.0));
        assert_eq!(
            c.warnings,
            ["maui.cfg:3:14: warning: USERCFG[ann] FSTARGET=120: above 100 % of the delivered usage, which usage never reaches; taken as given, as Maui 3.3.1 does"]
        );
    }

    /// Seen in 3.3.1's log: `BACKFILLPOLICY NONE` after `BACKFILLPOLICY[alpha] BESTFIT`
    /// is read as `BACKFILLPOLICY[alpha] NONE`; a reservation group's index carries over
    /// the same way.
    #[test]
    fn an_index_carries_over_to_the_parameters_later_lines() {
        let depths = |c: &LoadedConfig| -> Vec<u32> {
            let groups = c.config.policy.reservation_groups.iter();
            groups.map(|g| g.depth).collect()
        };
        // Group 1 set twice, the last time to 4; no line sets group 0, which keeps 1.
        let c = load("RESERVATIONDEPTH[1] 2\nRESERVATIONDEPTH 4\n").unwrap();
        assert_eq!(depths(&c), [1, 4]);
        let indexes: Vec<usize> = c.config.reservation_indexes.keys().copied().collect();
        assert_eq!(indexes, [1]);
        assert_eq!(
            c.warnings,
            ["maui.cfg:2:1: warning: RESERVATIONDEPTH without an index after RESERVATIONDEPTH[1] on line 1: Maui 3.3.1 reads it as RESERVATIONDEPTH[1] (a parameter's index carries over to its later lines); give the index it is meant for, or put the line first"]
        );
        // The global BACKFILLPOLICY stays FIRSTFIT; NONE is alpha's, which would act.
        let e = load("BACKFILLPOLICY[alpha] FIRSTFIT\nBACKFILLPOLICY NONE\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("maui.cfg:2:1: BACKFILLPOLICY[alpha] NONE"),
            "{e}"
        );
        // Unindexed lines first: nothing carries over.
        let c = load("RESERVATIONDEPTH 4\nRESERVATIONDEPTH[1] 2\n").unwrap();
        assert_eq!(depths(&c), [4, 2]);
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    }

    /// Maui 3.3.1's group table (MPar.c `MParSetDefaults`): one group per index up to the
    /// highest given; group 0 reserves 1 job of any QOS unless set, a later one none.
    #[test]
    fn reservation_groups_as_3_3_1_keeps_them() {
        let groups = |text: &str| -> (Vec<u32>, Vec<Option<Vec<String>>>) {
            let c = load(text).unwrap().config;
            let depths = c
                .policy
                .reservation_groups
                .iter()
                .map(|g| g.depth)
                .collect();
            (depths, c.reservation_qos)
        };
        let high = Some(vec!["high".to_string()]);
        let qos = "QOSCFG[high] PRIORITY=1\n";
        assert_eq!(
            groups(&format!("{qos}RESERVATIONQOSLIST[1] high\n")),
            (vec![1, 0], vec![None, high.clone()])
        );
        assert_eq!(
            groups("RESERVATIONDEPTH[2] 3\n"),
            (vec![1, 0, 3], vec![None, None, None])
        );
        assert_eq!(
            groups(&format!(
                "{qos}RESERVATIONDEPTH[0] 0\nRESERVATIONQOSLIST[0] high\n"
            )),
            (vec![0], vec![high])
        );
        assert_eq!(groups("RESERVATIONDEPTH 4\n"), (vec![4], vec![None]));
    }

    /// Every parameter of Maui 3.3.1's table (MConst.c `MCfg`, names as listed there)
    /// is either simulated or known with what a simulation does with it (issue 25, item
    /// 1): "unknown parameter" is left for true typos.
    #[test]
    fn every_maui_3_3_1_parameter_is_known() {
        let names = MAUI_3_3_1_PARAMETERS;
        let unknown: Vec<&str> = names
            .lines()
            .filter(|n| {
                let simulated =
                    is_simulated(n) || maui_names::alias_of(n).is_some_and(is_simulated);
                !simulated && maui_names::lookup(n).is_none()
            })
            .collect();
        assert_eq!(names.lines().count(), 359);
        assert!(unknown.is_empty(), "not known: {unknown:?}");
        let sorted = maui_names::UNSIMULATED
            .windows(2)
            .all(|w| w[0].name < w[1].name);
        assert!(sorted, "the table is searched by halving");
        let simulated_and_listed: Vec<&str> = maui_names::UNSIMULATED
            .iter()
            .map(|p| p.name)
            .filter(|n| is_simulated(n))
            .collect();
        assert!(simulated_and_listed.is_empty(), "{simulated_and_listed:?}");
    }

    /// A 3.3.1 parameter that changes the schedule and is not simulated is refused with
    /// what it does; one without effect is accepted and named once; a typo is still an
    /// unknown parameter with a suggestion only when one is close.
    #[test]
    fn unsimulated_parameters_are_refused_or_summed_up() {
        let e = load("NODECPUOVERCOMMITFACTOR 2\n").unwrap_err().to_string();
        assert!(
            e.starts_with("maui.cfg:1:1: NODECPUOVERCOMMITFACTOR ("),
            "{e}"
        );
        assert!(
            e.ends_with("remove the line (or comment it out with #) to simulate without it"),
            "{e}"
        );
        let c = load("LOGFILE maui.log\nLOGLEVEL 3\nLOGFILE other.log\n").unwrap();
        assert_eq!(
            c.warnings,
            ["maui.cfg: note: 2 parameters without effect on what Maui 3.3.1 schedules in a simulation ignored: LOGFILE, LOGLEVEL"]
        );
        // Untracked load is what a PBS node reports beyond its jobs' processors; a simulated
        // node's load is its jobs' (3.3.1's simulation never reads the factor).
        let c = load("NODEUNTRACKEDLOADFACTOR 2\n").unwrap();
        assert_eq!(
            c.warnings,
            ["maui.cfg: note: 1 parameter without effect on what Maui 3.3.1 schedules in a simulation ignored: NODEUNTRACKEDLOADFACTOR"]
        );
        // Never loaded by 3.3.1 (MSys.c `MSysLoadConfig`).
        let c = load("PARCFG[small] PRIORITY=10\nQUEUECFG[x] PRIORITY=1\n").unwrap();
        assert_eq!(
            c.warnings,
            ["maui.cfg: note: 2 parameters without effect on what Maui 3.3.1 schedules in a simulation ignored: PARCFG, QUEUECFG"]
        );
        // Read only by 3.3.1's PBS interface, never in its simulation.
        let c = load("DEFAULTCLASSLIST batch long\n").unwrap();
        assert_eq!(
            c.warnings,
            ["maui.cfg: note: 1 parameter without effect on what Maui 3.3.1 schedules in a simulation ignored: DEFAULTCLASSLIST"]
        );
        let c = load("QUEUETIMEWEIGTH 1\nZZZZ 1\nCPUWEIGHT 10\n").unwrap();
        assert_eq!(
            c.warnings,
            [
                "maui.cfg:1:1: warning: unknown parameter QUEUETIMEWEIGTH; did you mean QUEUETIMEWEIGHT?; ignored",
                "maui.cfg:2:1: warning: unknown parameter ZZZZ; ignored",
                // The closest spelling is PSWEIGHT (processor-seconds), not the weight meant.
                "maui.cfg:3:1: warning: unknown parameter CPUWEIGHT; did you mean PROCWEIGHT (the weight of a job's processors; Maui 3.3.1 has no CPUWEIGHT)?; ignored",
            ]
        );
    }

    /// What Maui 3.3.1's simulation does with node availability, resource usage limits
    /// and job aggregation (reports/research): nothing, except UTILIZED memory, swap or disk
    /// (a warning) and a PROC usage limit on whole dedicated nodes (refused).
    #[test]
    fn deferral_off_is_a_note_and_maui_3_2_names_are_known() {
        // DEFERTIME 0 turns 3.3.1's deferral off, as mauisim has none: a note, no warning,
        // and DEFERCOUNT is moot then.
        let c = load("DEFERCOUNT 99999\nDEFERTIME 0\nADMINHOST head.example.org\n").unwrap();
        assert_eq!(c.warnings.len(), 2, "{:?}", c.warnings);
        // Maui 3.2's ADMINHOST, which 3.3.1 ignores, is no typo: it joins the summary.
        assert!(
            c.warnings[0].contains("without effect") && c.warnings[0].contains("ADMINHOST"),
            "{:?}",
            c.warnings
        );
        assert!(
            c.warnings[1]
                .starts_with("maui.cfg:2:1: note: DEFERTIME 0: Maui 3.3.1 then defers no job"),
            "{:?}",
            c.warnings
        );
        // Without a RESERVEALWAYS QOS, 3.3.1's deferral changes no other job's schedule;
        // with one, the deferral of a RESERVEALWAYS job is not simulated, line or no line.
        let c = load("DEFERTIME 0:05:00\n").unwrap();
        assert_eq!(
            c.warnings,
            ["maui.cfg:1:1: note: DEFERTIME: Maui 3.3.1 defers a job that can never run, which mauisim holds for good (the other jobs' schedule is the same), and a RESERVEALWAYS job a soft limit stops at its reservation's start, which no QOS here has"]
        );
        for text in [
            "QOSCFG[ra] QFLAGS=RESERVEALWAYS\nDEFERTIME 0:05:00\n",
            "QOSCFG[ra] QFLAGS=RESERVEALWAYS\n",
        ] {
            let c = load(text).unwrap();
            let hiding = c.warnings.iter().filter(|w| {
                w.contains("warning:")
                    && w.contains(
                        "Maui 3.3.1 defers (DEFERTIME, by default 1:00:00) a RESERVEALWAYS job",
                    )
            });
            assert_eq!(hiding.count(), 1, "{text}: {:?}", c.warnings);
        }
    }

    #[test]
    fn parameters_inert_in_a_simulation_are_read_and_named() {
        let c = load(
            "NODEAVAILABILITYPOLICY DEDICATED:PROCS COMBINED:MEM\n\
             RESOURCELIMITPOLICY MEM:ALWAYS:CANCEL PROC:ALWAYS:CANCEL\nJOBAGGREGATIONTIME 0:00:10\n",
        )
        .unwrap();
        let summary = c.warnings.last().unwrap();
        for name in [
            "NODEAVAILABILITYPOLICY",
            "RESOURCELIMITPOLICY",
            "JOBAGGREGATIONTIME",
        ] {
            assert!(summary.contains(name), "{summary}");
        }
        assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
        // JOBNODEMATCHPOLICY: 3.3.1 looks for EXACTNODE and EXACTPROC in capitals.
        let c = load("JOBNODEMATCHPOLICY EXACTNODE\n").unwrap();
        assert!(
            c.config.nodes.exact_node && c.warnings.is_empty(),
            "{:?}",
            c.warnings
        );
        let c = load("JOBNODEMATCHPOLICY NONE\n").unwrap();
        assert!(
            !c.config.nodes.exact_node && c.warnings.is_empty(),
            "{:?}",
            c.warnings
        );
        let c = load("JOBNODEMATCHPOLICY exactnode\n").unwrap();
        assert!(!c.config.nodes.exact_node);
        assert!(
            c.warnings[0].starts_with("maui.cfg:1:1: warning: JOBNODEMATCHPOLICY `exactnode`"),
            "{:?}",
            c.warnings
        );
        let c = load("JOBNODEMATCHPOLICY EXACTPROC\n").unwrap();
        assert!(!c.config.nodes.exact_node);
        assert!(
            c.warnings[0].starts_with("maui.cfg:1:1: note: JOBNODEMATCHPOLICY EXACTPROC"),
            "{:?}",
            c.warnings
        );
        // `DEDICATED:PROCS` is 3.3.1's default for every resource (PROCS is no resource).
        let c = load("NODEAVAILABILITYPOLICY UTILIZED:PROCS COMBINED:MEM\n").unwrap();
        assert!(
            c.warnings[0].contains("UTILIZED for SWAP, DISK: not simulated"),
            "{:?}",
            c.warnings
        );
        let c =
            load("NODEAVAILABILITYPOLICY DEDICATED:PROCS COMBINED:MEM UTILIZED:SWAP\n").unwrap();
        assert!(c.warnings[0].contains("UTILIZED for SWAP: not simulated"));
        let e = load("NODEAVAILABILITYPOLICY SOMETIMES:MEM\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("maui.cfg:1:24: NODEAVAILABILITYPOLICY: expected COMBINED"),
            "{e}"
        );
        let e = load("RESOURCELIMITPOLICY PROC:ALWAYS:CANCEL\nNODEACCESSPOLICY SINGLEJOB\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(
                "maui.cfg:1:21: RESOURCELIMITPOLICY PROC with NODEACCESSPOLICY SINGLEJOB"
            ),
            "{e}"
        );
        // SINGLEUSER is simulated, without a word.
        let c = load("NODEACCESSPOLICY SINGLEUSER\n").unwrap();
        assert_eq!(c.config.nodes.access, mauisim_core::NodeAccess::SingleUser);
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    }

    /// The warnings of a file that has errors come with them: every problem in one run.
    #[test]
    fn warnings_come_with_the_errors() {
        let e = load("QUEUETIMEWEIGTH 1\nBACKFILLPOLICY SOMETIMES\nLOGLEVEL 3\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "maui.cfg:2:16: BACKFILLPOLICY: expected FIRSTFIT, BESTFIT, GREEDY or NONE, found `SOMETIMES`\n\
             maui.cfg:1:1: warning: unknown parameter QUEUETIMEWEIGTH; did you mean QUEUETIMEWEIGHT?; ignored\n\
             maui.cfg: note: 1 parameter without effect on what Maui 3.3.1 schedules in a simulation ignored: LOGLEVEL"
        );
        assert_eq!(
            e.location().map(|l| l.to_string()),
            Some("maui.cfg:2:16".to_string())
        );
    }

    /// A file's errors all come in one run, in file order, and nothing after them is
    /// checked across entries.
    #[test]
    fn every_error_of_a_file_is_reported_at_once() {
        let e =
            load("RESERVATIONDEPTH two\nBACKFILLPOLICY SOMETIMES\nQUEUETIMEWEIGHT 1\nFSDEPTH 0\n")
                .unwrap_err();
        assert_eq!(
            e.to_string(),
            "3 errors in the config:\n\
             maui.cfg:1:18: RESERVATIONDEPTH: expected an integer, found `two`\n\
             maui.cfg:2:16: BACKFILLPOLICY: expected FIRSTFIT, BESTFIT, GREEDY or NONE, found `SOMETIMES`\n\
             maui.cfg:4:9: FSDEPTH: expected 1 to 24 windows, found 0"
        );
        assert_eq!(
            e.location().map(|l| l.to_string()),
            Some("maui.cfg:1:18".to_string())
        );
    }

    /// The checks across entries each tell their problem, in one run, when no entry is
    /// refused; what they find is kept from the config read so far.
    #[test]
    fn every_check_across_entries_is_told_at_once() {
        let text = "FSPOLICY DEDICATEDPS%\nFSUSERWEIGHT 1\nUSERCFG[a] FSTARGET=0\n\
                    RESERVATIONTHRESHOLDTYPE SOMETIMES\nRESERVATIONDEPTH 3\n";
        let read = read(cfg::parse_str(text, "maui.cfg").unwrap());
        assert_eq!(read.loaded.config.policy.reservation_depth(), 3);
        assert_eq!(
            read.errors.unwrap().to_string(),
            "2 errors in the config:\n\
             maui.cfg:3:12: USERCFG[a] FSTARGET=0 cannot be used with a ratio FSPOLICY (…%): 1 − usage/target divides by the target\n\
             maui.cfg:4:26: RESERVATIONTHRESHOLDTYPE: expected NONE, BYPASS, QUEUETIME or XFACTOR, found `SOMETIMES`"
        );
    }
    #[test]
    fn bad_values_are_located_errors() {
        let e = load("RESERVATIONDEPTH two\n").unwrap_err().to_string();
        assert!(e.starts_with("maui.cfg:1:18: RESERVATIONDEPTH:"), "{e}");
        let e = load("\nBACKFILLPOLICY SOMETIMES\n")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "maui.cfg:2:16: BACKFILLPOLICY: expected FIRSTFIT, BESTFIT, GREEDY or NONE, found `SOMETIMES`");
        let e = load("BACKFILLMETRIC WIDTH\n").unwrap_err().to_string();
        assert_eq!(e, "maui.cfg:1:16: BACKFILLMETRIC: expected PROCS, PROCSECONDS, SECONDS, NODES, PE or PESECONDS, found `WIDTH`");
        let e = load("RESERVATIONDEPTH[16] 1\n").unwrap_err().to_string();
        assert_eq!(
            e,
            "maui.cfg:1:1: RESERVATIONDEPTH[16]: the index must be a number from 0 to 15"
        );
        let e = load("RESERVATIONTHRESHOLDTYPE AGE\n")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "maui.cfg:1:26: RESERVATIONTHRESHOLDTYPE: expected NONE, BYPASS, QUEUETIME or XFACTOR, found `AGE`");
        let e = load("BFCHUNKSIZE -4\n").unwrap_err().to_string();
        assert_eq!(
            e,
            "maui.cfg:1:13: BFCHUNKSIZE: expected 0 or more, found -4"
        );
        let e = load("RESERVATIONDEPTH 100000000000\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "maui.cfg:1:18: RESERVATIONDEPTH: expected at most 4294967295, found 100000000000"
        );
        let e = load("QUEUETIMECAP -3\n").unwrap_err().to_string();
        assert_eq!(e, "maui.cfg:1:14: QUEUETIMECAP: a cap cannot be negative");
        let e = load("RESERVATIONDEPTH 1 2\n").unwrap_err().to_string();
        assert_eq!(
            e,
            "maui.cfg:1:20: RESERVATIONDEPTH takes one value, found more"
        );
    }

    #[test]
    fn backfill_and_reservation_parameters_set_the_policy() {
        let c = load(
            "BACKFILLPOLICY greedy\nSCHEDULINGCRITERIA PROCSECONDS\nBACKFILLDEPTH 50\n\
             BACKFILLMAXSCHEDULES 500\nBFCHUNKSIZE 32\nBFCHUNKDURATION 00:05:00\n\
             RESERVATIONPOLICY highest\nRESERVATIONTHRESHOLDTYPE QUEUETIME\n\
             RESERVATIONTHRESHOLDVALUE 3600\nQOSCFG[high] PRIORITY=10\n\
             RESERVATIONDEPTH[0] 2\nRESERVATIONQOSLIST[0] high\nRESERVATIONQOSLIST[1] [ALL]\n",
        )
        .unwrap();
        let p = &c.config.policy;
        assert_eq!(p.backfill, BackfillPolicy::Greedy);
        assert_eq!(p.backfill_metric, BackfillMetric::ProcSeconds);
        assert_eq!((p.backfill_depth, p.backfill_max_schedules), (50, 500));
        assert_eq!((p.chunking.size, p.chunking.duration), (32, 300));
        assert_eq!(p.reservation_policy, ReservationPolicy::Highest);
        assert_eq!(
            p.reservation_threshold,
            ReservationThreshold::QueueTime(3600.0)
        );
        assert_eq!(
            p.reservation_groups,
            vec![ReservationGroup::all(2), ReservationGroup::all(0)],
            "group 1 takes 3.3.1's default depth for a group after the first, 0"
        );
        assert_eq!(
            c.config.reservation_qos,
            vec![Some(vec!["high".to_string()]), None]
        );
        assert_eq!(
            c.warnings,
            [
                "maui.cfg:1:1: warning: BACKFILLPOLICY `greedy`: Maui 3.3.1 matches this value in capitals only and would leave BACKFILLPOLICY as it was; mauisim reads it as GREEDY",
                "maui.cfg:7:1: warning: RESERVATIONPOLICY `highest`: Maui 3.3.1 matches this value in capitals only and would leave RESERVATIONPOLICY as it was; mauisim reads it as HIGHEST",
                "maui.cfg:10:14: warning: QOSCFG[high] PRIORITY has no effect while QOSWEIGHT is 0"
            ]
        );
        // 3.3.1 reads ALL as a QOS's name; mauisim as [ALL], and says so.
        let c = load("RESERVATIONQOSLIST[1] ALL\n").unwrap();
        assert_eq!(c.config.reservation_qos, vec![None, None]);
        assert!(
            c.warnings[0].starts_with("maui.cfg:1:1: warning: RESERVATIONQOSLIST[1] ALL: Maui 3.3.1 reads ALL as the name of a QOS"),
            "{:?}",
            c.warnings
        );
        let c = load("RESERVATIONQOSLIST low,high\nRESERVATIONTHRESHOLDVALUE 2\n").unwrap();
        assert_eq!(
            c.warnings,
            vec![
                "maui.cfg:1:1: warning: RESERVATIONQOSLIST[0]: no QOSCFG[low] is configured, so no job has QOS low",
                "maui.cfg:1:1: warning: RESERVATIONQOSLIST[0]: no QOSCFG[high] is configured, so no job has QOS high",
                "maui.cfg:2:27: warning: RESERVATIONTHRESHOLDVALUE without RESERVATIONTHRESHOLDTYPE; ignored",
            ]
        );
    }

    #[test]
    fn every_priority_weight_and_cap_is_read_by_either_name() {
        let c = load(
            "SERVWEIGHT 2\nTARGETWEIGHT 3\nTARGCAP 7\nCREDWEIGHT 4\nFSWEIGHT 5\nRESWEIGHT 6\n\
             USAGEWEIGHT 8\nXFACTORWEIGHT 9\nXFACTORCAP 10\nUSAGEEXECUTIONTIMEWEIGHT 11\n\
             USAGECONSUMEDWEIGHT 12\nPEWEIGHT 13\nFSACCOUNTWEIGHT 30\nXFMINWCLIMIT 00:05:00\n\
             JOBPRIOACCRUALPOLICY fullpolicy\nENABLENEGJOBPRIORITY true\n",
        )
        .unwrap();
        let p = &c.config.policy.priority;
        let cw = |comp: Component| p.component_weight[comp as usize];
        assert_eq!(
            [
                cw(Component::Serv),
                cw(Component::Targ),
                cw(Component::Cred),
                cw(Component::Fs)
            ],
            [2.0, 3.0, 4.0, 5.0]
        );
        assert_eq!([cw(Component::Res), cw(Component::Usage)], [6.0, 8.0]);
        assert_eq!(p.component_cap[Component::Targ as usize], 7.0);
        let w = |s: Sub| p.weight[s as usize];
        assert_eq!(
            [
                w(Sub::XFactor),
                w(Sub::ExecutionTime),
                w(Sub::Consumed),
                w(Sub::Pe),
                w(Sub::FsAccount)
            ],
            [9.0, 11.0, 12.0, 13.0, 30.0]
        );
        assert_eq!(p.cap[Sub::XFactor as usize], 10.0);
        assert_eq!(p.xf_min_wclimit, 300);
        assert_eq!(p.accrual, AccrualPolicy::FullPolicy);
        assert!(p.allow_negative);
        assert_eq!(
            c.warnings,
            ["maui.cfg:15:1: warning: JOBPRIOACCRUALPOLICY `fullpolicy`: Maui 3.3.1 matches this value in capitals only and would leave JOBPRIOACCRUALPOLICY as it was; mauisim reads it as FULLPOLICY"]
        );
        assert_eq!(
            load("XFMINWCLIMIT -1")
                .unwrap()
                .config
                .policy
                .priority
                .xf_min_wclimit,
            -1
        );
    }

    #[test]
    fn credential_objects_are_read_by_kind_and_name() {
        let c = load(
            "USERCFG[17] PRIORITY=-1000 QDEF=high ADEF=physics ALIST=physics,chem\n\
             USERCFG[default] PRIORITY=5\n\
             GROUPCFG[staff] PRIORITY=20 CLASSWEIGHT=3 QLIST=high:low\n\
             ACCOUNTCFG[physics] PRIORITY=30\n\
             QOSCFG[high] PRIORITY=100 QTWEIGHT=5000 XFWEIGHT=10 QTTARGET=1:00:00 XFTARGET=2.5\n\
             QOSCFG[low] PRIORITY=-100\n\
             CLASSCFG[batch] PRIORITY=7\n",
        )
        .unwrap();
        let creds = &c.config.credentials;
        let steve = &creds.user["17"];
        assert_eq!(steve.settings.priority, -1000.0);
        assert_eq!(steve.qdef.as_deref(), Some("high"));
        assert_eq!(steve.adef.as_deref(), Some("physics"));
        assert_eq!(
            steve.alist,
            Some(vec!["physics".to_string(), "chem".to_string()])
        );
        assert_eq!(creds.user[DEFAULT].settings.priority, 5.0);
        let staff = &creds.group["staff"];
        assert_eq!(
            (staff.settings.priority, staff.settings.class_weight),
            (20.0, Some(3.0))
        );
        assert_eq!(
            staff.qlist,
            Some(vec!["high".to_string(), "low".to_string()])
        );
        assert_eq!(creds.account["physics"].settings.priority, 30.0);
        let high = &creds.qos["high"].settings;
        assert_eq!(
            (
                high.priority,
                high.qt_weight,
                high.xf_weight,
                high.qt_target,
                high.xf_target
            ),
            (100.0, 5000.0, 10.0, Some(3600), Some(2.5))
        );
        assert_eq!(creds.class["batch"].settings.priority, 7.0);
        // No subcomponent weight is set: each kind's PRIORITY is said to do nothing, once.
        assert_eq!(
            c.warnings,
            [
                "maui.cfg:1:13: warning: the PRIORITY of 2 objects (USERCFG[17] and USERCFG[DEFAULT]) has no effect while USERWEIGHT is 0",
                "maui.cfg:3:17: warning: GROUPCFG[staff] PRIORITY has no effect while GROUPWEIGHT is 0",
                "maui.cfg:4:21: warning: ACCOUNTCFG[physics] PRIORITY has no effect while ACCOUNTWEIGHT is 0",
                "maui.cfg:5:14: warning: the PRIORITY of 2 objects (QOSCFG[high] and QOSCFG[low]) has no effect while QOSWEIGHT is 0",
                "maui.cfg:7:17: warning: CLASSCFG[batch] PRIORITY has no effect while CLASSWEIGHT is 0",
            ]
        );
    }

    #[test]
    fn two_field_times_in_attributes_warn_how_they_were_read() {
        let c =
            load("CLASSCFG[DEFAULT] DEFAULT.WCLIMIT=30:00\nQOSCFG[q] QTTARGET=10:00\n").unwrap();
        assert_eq!(c.config.default_wclimit, Some(1800));
        assert_eq!(c.config.credentials.qos["q"].settings.qt_target, Some(600));
        assert_eq!(c.warnings.len(), 2, "{:?}", c.warnings);
        assert!(
            c.warnings[0]
                .starts_with("maui.cfg:1:19: warning: CLASSCFG[DEFAULT] DEFAULT.WCLIMIT: "),
            "{:?}",
            c.warnings
        );
        assert!(
            c.warnings[1].starts_with("maui.cfg:2:11: warning: QOSCFG[q] QTTARGET: "),
            "{:?}",
            c.warnings
        );
        let e = load("RMPOLLINTERVAL INFINITY\n").unwrap_err().to_string();
        assert_eq!(e, "maui.cfg:1:16: RMPOLLINTERVAL cannot be INFINITY");
        let e = load("XFMINWCLIMIT INFINITY\n").unwrap_err().to_string();
        assert_eq!(e, "maui.cfg:1:14: XFMINWCLIMIT cannot be INFINITY");
    }

    /// A node attribute that changes the schedule and is not simulated is refused with
    /// what it does; OS and ARCH, which no trace's job asks for, only warn.
    #[test]
    fn unsimulated_node_attributes_are_refused_or_warn() {
        let e = load("NODECFG[n1] PROCS=4 RADISK=2\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "maui.cfg:1:21: NODECFG[n1] RADISK (the node's disk available to jobs) changes what Maui schedules, and mauisim does not simulate it yet: the schedule would not be your Maui's; remove the attribute to simulate without it"
        );
        let c = load("NODECFG[n1] PROCS=4 OS=linux\n").unwrap();
        assert_eq!(
            c.warnings,
            ["maui.cfg:1:21: warning: NODECFG[n1] OS binds no job of a trace; ignored"]
        );
    }

    /// Where a file writes an old name and the parameter it stands for, the one later in
    /// 3.3.1's table wins wherever the lines stand (BACKFILLTYPE after BACKFILLPOLICY,
    /// FSACCOUNTWEIGHT after AFSWEIGHT); a line of another file (a sweep's `--set`)
    /// still overrides both.
    #[test]
    fn an_old_name_and_its_parameter_in_the_tables_order() {
        use mauisim_core::BackfillPolicy;
        for text in [
            "BACKFILLTYPE BESTFIT\nBACKFILLPOLICY FIRSTFIT\n",
            "BACKFILLPOLICY FIRSTFIT\nBACKFILLTYPE BESTFIT\n",
        ] {
            let c = load(text).unwrap();
            assert_eq!(c.config.policy.backfill, BackfillPolicy::BestFit, "{text}");
        }
        let weights = |text: &str| {
            let c = load(text).unwrap();
            c.config.policy.priority.weight[Sub::FsAccount as usize]
        };
        assert_eq!(weights("FSACCOUNTWEIGHT 5\nAFSWEIGHT 7\n"), 5.0);
        assert_eq!(weights("AFSWEIGHT 7\nFSACCOUNTWEIGHT 5\n"), 5.0);
        let mut parsed = cfg::parse_str(
            "BACKFILLPOLICY FIRSTFIT\nBACKFILLTYPE BESTFIT\n",
            "maui.cfg",
        )
        .unwrap();
        let set = cfg::parse_str("BACKFILLPOLICY GREEDY\n", "--set").unwrap();
        parsed.entries.extend(set.entries);
        let c = interpret(parsed).unwrap();
        assert_eq!(c.config.policy.backfill, BackfillPolicy::Greedy);
    }

    /// NODECFG ACCESS, whose case in 3.3.1's config switch is "NYI", has no effect; CLASSES
    /// is Moab's, which 3.3.1's parser skips: a warning says it is ignored as there. LOAD,
    /// which 3.3.1's parser also skips, is mauisim's way to give a node the load its
    /// resource manager would report: read, with a note saying so.
    #[test]
    fn node_attributes_maui_does_not_apply_are_accepted() {
        let c = load("NODECFG[n1] PROCS=4 ACCESS=SINGLEJOB\n").unwrap();
        assert_eq!(
            c.warnings,
            ["maui.cfg: note: 1 parameter without effect on what Maui 3.3.1 schedules in a simulation ignored: NODECFG ACCESS"]
        );
        let c = load("NODECFG[n1] PROCS=4 CLASSES=batch\n").unwrap();
        assert_eq!(
            c.warnings,
            ["maui.cfg:1:21: warning: NODECFG[n1] CLASSES is Moab's (the classes the node accepts; 3.3.1's nodes accept the classes the resource manager reports), not an attribute of Maui 3.3.1's NODECFG, which skips it: ignored, as 3.3.1 ignores it"]
        );
        let c = load("NODECFG[n1] PROCS=4 LOAD=0.5\n").unwrap();
        assert_eq!(
            c.warnings,
            ["maui.cfg:1:21: note: NODECFG[n1] LOAD: Maui 3.3.1's NODECFG skips LOAD (a node's load comes from its resource manager, and in its simulation from the processors its jobs hold); mauisim reads it as the load the resource manager reports, for LOAD in PRIORITYF and for CPULOAD"]
        );
        assert_eq!(c.config.nodes.object("n1").and_then(|o| o.load), Some(0.5));
    }

    /// An attribute that changes the schedule and is not simulated (QOS flags, JOBFLAGS)
    /// is refused with what it does, not quietly dropped (issue 25); the line still
    /// defines its QOS, so the only error is the attribute's, not the QDEF naming it.
    /// MINPROC, which 3.3.1 stores and no check of its reads, is ignored with a warning.
    #[test]
    fn unsimulated_attributes_are_refused_with_what_they_do() {
        let e =
            load("USERCFG[steve] MAXJOB=2,4 JOBFLAGS=PREEMPTEE:ADVRES PRIORITY=3\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "maui.cfg:1:27: USERCFG[steve] JOBFLAGS: ADVRES (its jobs run only inside reservations they may use) changes what Maui schedules, and mauisim does not simulate it yet: the schedule would not be your Maui's; remove the flag to simulate without it"
        );
        assert!(load("QOSCFG[q] MINPROC=2\n").unwrap().warnings[0].contains("MINPROC is ignored"));
        let loaded = load("USERCFG[steve] MAXJOB=2,4 MINPROC=2\n").unwrap();
        assert_eq!(
            loaded.warnings,
            ["maui.cfg:1:27: warning: USERCFG[steve] MINPROC is ignored, as Maui 3.3.1 ignores it: it stores it among the active limits (MCred.c) and no check reads it (MJob.c `MJobCheckLimits` and MPolicy.c test MAXJOB, MAXPROC, MAXNODE, MAXPS, MAXPE and MAXWC only)"]
        );
        let e = load("QOSCFG[high] QFLAGS=USERESERVED\nUSERCFG[DEFAULT] QDEF=high\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "maui.cfg:1:14: QOSCFG[high] QFLAGS: USERESERVED (its jobs run only inside reservations they may use) changes what Maui schedules, and mauisim does not simulate it yet: the schedule would not be your Maui's; remove the flag to simulate without it"
        );
    }

    /// JOBFLAGS as 3.3.1 reads it (flag names found anywhere, in capitals, added up): a
    /// user's, group's, account's or class's PREEMPTOR, PREEMPTEE and DEDICATEDNODE act as
    /// the QOS flags do; a DEFAULT object's and a QOS's are read by nothing (a note); a flag
    /// without effect here is a note, DEDICATED (a QOS flag) a warning.
    #[test]
    fn job_flags_of_credentials_are_read_as_3_3_1_reads_them() {
        let c = load(
            "USERCFG[u1] JOBFLAGS=PREEMPTOR\nGROUPCFG[g] JOBFLAGS=[PREEMPTEE][RESTARTABLE]\n\
             CLASSCFG[c] JOBFLAGS=DEDICATEDNODE\nUSERCFG[u1] JOBFLAGS=preemptee\n",
        )
        .unwrap();
        let settings = |kind, name: &str| &c.config.credentials.objects(kind)[name].settings;
        let user = settings(CredKind::User, "u1");
        assert!(user.preemptor && !user.preemptee);
        let group = settings(CredKind::Group, "g");
        assert!(group.preemptee && !group.preemptor);
        assert!(settings(CredKind::Class, "c").dedicated);
        assert_eq!(c.warnings.len(), 2, "{:?}", c.warnings);
        assert!(c.warnings[0]
            .contains("note: GROUPCFG[g] JOBFLAGS: RESTARTABLE changes no schedule here"));
        assert!(c.warnings[1].contains("no job flag Maui 3.3.1 knows in `preemptee` (3.3.1 matches flag names in capitals only)"));
        for (text, said) in [
            (
                "USERCFG[DEFAULT] JOBFLAGS=PREEMPTOR\n",
                "never a DEFAULT object's",
            ),
            (
                "QOSCFG[q] JOBFLAGS=PREEMPTOR\n",
                "not its QOS's (QFLAGS= sets those)",
            ),
            (
                "USERCFG[u] JOBFLAGS=DEDICATED\n",
                "(the job flag is DEDICATEDNODE; DEDICATED is a QOS flag, QFLAGS=)",
            ),
        ] {
            let c = load(text).unwrap();
            assert!(
                c.warnings.iter().any(|w| w.contains(said)),
                "{text}: {:?}",
                c.warnings
            );
            let every = c.config.credentials.objects(CredKind::User).values();
            assert!(every
                .clone()
                .all(|o| !o.settings.preemptor && !o.settings.dedicated));
        }
    }

    /// BACKFILLPOLICY values 3.3.1 knows but backfills with FIRSTFIT for, and PREEMPT
    /// refused; BFPRIORITYPOLICY orders only PREEMPT's candidates.
    #[test]
    fn backfill_policies_3_3_1_knows() {
        let c = load("BACKFILLPOLICY BESTFIT\nBACKFILLPOLICY LAZY\nBFPRIORITYPOLICY DURATION\n")
            .unwrap();
        assert_eq!(c.config.policy.backfill, BackfillPolicy::FirstFit);
        assert!(c.warnings[0].starts_with("maui.cfg:2:16: warning: BACKFILLPOLICY LAZY: Maui 3.3.1 has no such backfill and uses FIRSTFIT"), "{:?}", c.warnings);
        assert!(
            c.warnings[1].contains("BFPRIORITYPOLICY"),
            "{:?}",
            c.warnings
        );
        let e = load("BACKFILLPOLICY PREEMPT\n").unwrap_err().to_string();
        assert!(
            e.starts_with("maui.cfg:1:16: BACKFILLPOLICY PREEMPT ("),
            "{e}"
        );
    }

    /// The old-style QOS parameters set what the QOSCFG attributes set (3.3.1's
    /// `MQOSProcessOConfig`), and need the QOS they set.
    #[test]
    fn old_style_qos_parameters_set_the_qos() {
        let c = load(
            "QOSPRIORITY[high] 100\nQOSQTWEIGHT[high] 5\nQOSXFWEIGHT[high] 7\n\
             QOSTARGETQT[high] 1:00:00\nQOSTARGETXF[high] 2.5\nQOSFLAGS[low] NOBF PREEMPTEE\n",
        )
        .unwrap();
        let high = &c.config.credentials.qos["high"].settings;
        assert_eq!(
            (high.priority, high.qt_weight, high.xf_weight),
            (100.0, 5.0, 7.0)
        );
        assert_eq!((high.qt_target, high.xf_target), (Some(3600), Some(2.5)));
        let low = &c.config.credentials.qos["low"].settings;
        assert!(low.no_backfill && low.preemptee);
        let e = load("QOSPRIORITY 100\n").unwrap_err().to_string();
        assert_eq!(
            e,
            "maui.cfg:1:1: QOSPRIORITY needs the QOS it sets: QOSPRIORITY[name] VALUE (or QOSCFG[name] PRIORITY=VALUE)"
        );
        // The guide's spellings (5.1.2) set the same targets, with a note that 3.3.1
        // itself would pass over them.
        let c = load("QOSQTTARGET[hi] 2:00:00\nQOSXFTARGET[hi] 4\n").unwrap();
        let hi = &c.config.credentials.qos["hi"].settings;
        assert_eq!((hi.qt_target, hi.xf_target), (Some(7200), Some(4.0)));
        assert_eq!(
            c.warnings,
            [
                "maui.cfg:1:1: note: QOSQTTARGET is the admin guide's name (5.1.2) of 3.3.1's QOSTARGETQT, read as the guide means it; Maui 3.3.1 itself knows no QOSQTTARGET and would ignore the line: write QOSTARGETQT (or QOSCFG[q] QTTARGET=…) for a real Maui",
                "maui.cfg:2:1: note: QOSXFTARGET is the admin guide's name (5.1.2) of 3.3.1's QOSTARGETXF, read as the guide means it; Maui 3.3.1 itself knows no QOSXFTARGET and would ignore the line: write QOSTARGETXF (or QOSCFG[q] XFTARGET=…) for a real Maui",
            ]
        );
    }

    /// A bare word on an object line (a list written with spaces) is passed over, as 3.3.1
    /// passes over it, and warned of; PARTITIONMODE, which 3.3.1 never reads, is without
    /// effect.
    #[test]
    fn bare_words_on_object_lines_are_passed_over() {
        let c = load("QOSCFG[high] PRIORITY=10\nQOSCFG[low] PRIORITY=1\nUSERCFG[u1] QLIST=high low MAXJOB=2\nPARTITIONMODE SINGLE\n").unwrap();
        let u1 = &c.config.credentials.user["u1"];
        assert_eq!(u1.qlist.as_deref(), Some(&["high".to_string()][..]));
        assert!(u1.settings.limits.active[mauisim_core::Metric::Job as usize].is_some());
        assert_eq!(
            c.warnings,
            [
                "maui.cfg:3:24: warning: `low` on a USERCFG line is no ATTRIBUTE=VALUE, and Maui 3.3.1 passes over it: ignored, here as there (a list is one word: QLIST=high,low)",
                "maui.cfg: note: 1 parameter without effect on what Maui 3.3.1 schedules in a simulation ignored: PARTITIONMODE",
                "maui.cfg:1:14: warning: the PRIORITY of 2 objects (QOSCFG[high] and QOSCFG[low]) has no effect while QOSWEIGHT is 0",
            ]
        );
    }

    #[test]
    fn an_fspolicy_that_changes_nothing_is_warned_of_at_its_line() {
        let c = load("FSINTERVAL 12:00:00\nFSPOLICY DEDICATEDPS\n").unwrap();
        assert_eq!(
            c.warnings,
            ["maui.cfg:2:1: warning: FSPOLICY is set but every FS*WEIGHT (FSUSERWEIGHT, …) is 0 and no FSTARGET is a cap: fairshare changes nothing (guide 6.3.3.1)"]
        );
        assert!(load("FSPOLICY DEDICATEDPS\nFSUSERWEIGHT 10\n")
            .unwrap()
            .warnings
            .is_empty());
    }

    /// QFLAGS as 3.3.1 reads it: names found anywhere, in capitals; IGN* flags set the
    /// QOS's override limits to none; the last QFLAGS replaces NOBF but not a lifted limit.
    #[test]
    fn qos_flags_are_read_as_3_3_1_reads_them() {
        let c = load("QOSCFG[q] QFLAGS=IGNJOBQUEUEDPERUSER|NOBF\nQOSCFG[r] QFLAGS=NORESERVATION\n")
            .unwrap();
        let q = &c.config.credentials.qos["q"].settings;
        assert!(q.no_backfill);
        assert_eq!(
            q.limits.override_idle[mauisim_core::Metric::Job as usize],
            Some(mauisim_core::LimitPair::both(0))
        );
        assert_eq!(
            q.limits.override_active[mauisim_core::Metric::Job as usize],
            None
        );
        assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
        assert!(
            c.warnings[0].contains("Maui 3.3.1 cannot set NORESERVATION"),
            "{:?}",
            c.warnings
        );
        let c = load("QOSCFG[q] QFLAGS=NOBF:IGNALL\nQOSCFG[q] QFLAGS=IGNNODEPERUSER\n").unwrap();
        let q = &c.config.credentials.qos["q"].settings;
        assert!(!q.no_backfill, "the last QFLAGS replaces the flags");
        // A word holding no flag beside one that does (the sample maui.cfg's IGNMAXJOB).
        let c = load("QOSCFG[q] QFLAGS=PREEMPTOR:IGNMAXJOB:nobf\n").unwrap();
        assert!(c.config.credentials.qos["q"].settings.preemptor);
        assert_eq!(
            c.warnings,
            ["maui.cfg:1:11: warning: QOSCFG[q] QFLAGS: `IGNMAXJOB`, `nobf` not a QOS flag Maui 3.3.1 knows (in capitals); no effect"]
        );
        // PREEMPTEE holds PREEMPT but not PREEMPTOR: 3.3.1's substring search tells them apart.
        let c = load(
            "QOSCFG[a] QFLAGS=PREEMPTOR\nQOSCFG[b] QFLAGS=PREEMPTEE,NOBF\nQOSCFG[a] QFLAGS=NOBF\n",
        )
        .unwrap();
        let (a, b) = (
            &c.config.credentials.qos["a"].settings,
            &c.config.credentials.qos["b"].settings,
        );
        assert!(
            !a.preemptor && a.no_backfill,
            "the last QFLAGS replaces PREEMPTOR too"
        );
        assert!(b.preemptee && !b.preemptor);
        // PREEMPTPOLICY: exact, case-sensitive; CHECKPOINT and unknown words preempt nothing.
        for (text, expected, note) in [
            (
                "PREEMPTPOLICY REQUEUE\n",
                mauisim_core::Preemption::Requeue,
                None,
            ),
            (
                "PREEMPTPOLICY CHECKPOINT\n",
                mauisim_core::Preemption::Never,
                Some("cannot checkpoint"),
            ),
            (
                "PREEMPTPOLICY requeue\n",
                mauisim_core::Preemption::Never,
                Some("reads anything else as NONE"),
            ),
        ] {
            let c = load(text).unwrap();
            assert_eq!(c.config.policy.preemption, expected, "{text}");
            match note {
                Some(n) => assert!(c.warnings[0].contains(n), "{:?}", c.warnings),
                None => assert!(c.warnings.is_empty(), "{:?}", c.warnings),
            }
        }
        let lifted = mauisim_core::LimitPair::both(0);
        assert_eq!(
            q.limits.override_active[mauisim_core::Metric::Job as usize],
            Some(lifted)
        );
    }

    /// A credential attribute of another kind's own table, or one 3.3.1's config switch
    /// never sets, is dropped by 3.3.1 without a word: so it is here, with one. CLASSCFG's
    /// own attributes are read as 3.3.1 reads them.
    #[test]
    fn attributes_maui_ignores_are_warned_and_class_attributes_read() {
        let c = load(
            "USERCFG[DEFAULT] QTTARGET=4:00:00\nGROUPCFG[g] OVERRUN=10\nUSERCFG[u] OCNODE=n1\nCLASSCFG[c] STATE=open\n",
        )
        .unwrap();
        let why: Vec<&str> = c
            .warnings
            .iter()
            .map(|w| w.split(": ").last().unwrap())
            .collect();
        assert_eq!(
            why,
            [
                "it is an attribute of QOSCFG only",
                "it reads a class's overrun only (MLimit.c)",
                "it is an attribute of CLASSCFG only",
                "MClassProcessConfig does not set it from the config",
            ]
        );
        assert!(c
            .warnings
            .iter()
            .all(|w| w.contains("is ignored, as Maui 3.3.1 ignores it")));
        let c = load("CLASSCFG[c] WCOVERRUN=60 OCNODE=n1 NODEACCESSPOLICY=dedicated\n").unwrap();
        assert_eq!(c.config.class_overrun.get("c"), Some(&Some(60)));
        assert_eq!(c.warnings.len(), 2, "{:?}", c.warnings);
        assert!(c.warnings[0].contains("note: CLASSCFG[c] OCNODE: without effect here"));
        assert!(c.warnings[1].contains("gives the class no policy of its own from `dedicated`"));
        // 3.3.1's MJobUpdateFlags sets every job's access policy over its class's.
        for value in ["SHARED", "SINGLEJOB", "SINGLETASK", "SINGLEUSER"] {
            let c = load(&format!("CLASSCFG[c] NODEACCESSPOLICY={value}\n")).unwrap();
            assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
            assert!(c.warnings[0].starts_with(
                "maui.cfg:1:13: note: CLASSCFG[c] NODEACCESSPOLICY: without effect, as in Maui 3.3.1"
            ));
        }
        // A class's default features add up, as 3.3.1 adds them; CLASSCFG[DEFAULT]'s refused.
        let c =
            load("CLASSCFG[c] DEFAULT.FEATURES=fast\nCLASSCFG[c] DEFAULT.FEATURES=[ib][fast]\n")
                .unwrap();
        assert_eq!(c.config.class_features["c"].0, ["fast", "ib"]);
        let e = load("CLASSCFG[DEFAULT] DEFAULT.FEATURES=fast\n")
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("changes what Maui schedules, and mauisim does not simulate it yet"),
            "{e}"
        );
    }

    /// A parameter mauisim refuses is accepted where its value leaves 3.3.1's default in
    /// place, read as 3.3.1 reads it ("On" is no true word there: its list lacks a comma).
    #[test]
    fn refused_parameters_at_maui_s_default_are_without_effect() {
        let c = load(
            "ENABLEMULTINODEJOBS TRUE\nUSEMACHINESPEED OFF\nTASKDISTRIBUTIONPOLICY DEFAULT\n\
             NODELOADPOLICY ADJUSTSTATE\nUSESYSTEMQUEUETIME On\nNODEUNTRACKEDLOADFACTOR 1.2\n\
             MAXSLEEPITERATION 1\nMETAMAXTASKS 0\nUJOBWEIGHT 0\nUPROCWEIGHT 0\n\
             NODECPUOVERCOMMITFACTOR 1.0\nNODEMEMOVERCOMMITFACTOR 0\nNODEALLOCMAXPS FALSE\n\
             SIMRANDOMIZEJOBSIZE FALSE\nSIMNODECONFIGURATION NORMAL\nMINADMINSTIME 0:10:00\n",
        )
        .unwrap();
        assert_eq!(
            c.warnings,
            ["maui.cfg: note: 16 parameters without effect on what Maui 3.3.1 schedules in a simulation ignored: ENABLEMULTINODEJOBS, USEMACHINESPEED, TASKDISTRIBUTIONPOLICY, NODELOADPOLICY, USESYSTEMQUEUETIME, NODEUNTRACKEDLOADFACTOR, MAXSLEEPITERATION, METAMAXTASKS, UJOBWEIGHT, UPROCWEIGHT, NODECPUOVERCOMMITFACTOR, NODEMEMOVERCOMMITFACTOR, NODEALLOCMAXPS, SIMRANDOMIZEJOBSIZE, SIMNODECONFIGURATION, MINADMINSTIME"]
        );
        for text in [
            "MAXSLEEPITERATION 5\n",
            "METAMAXTASKS 4\n",
            "UJOBWEIGHT 10\n",
            "NODECPUOVERCOMMITFACTOR 1.5\n",
            "NODEALLOCMAXPS TRUE\n",
            "SIMRANDOMIZEJOBSIZE TRUE\n",
            "SIMNODECONFIGURATION PARTITIONED\n",
            "ENABLEMULTINODEJOBS FALSE\n",
            "USEMACHINESPEED TRUE\n",
            "TASKDISTRIBUTIONPOLICY PACK\n",
        ] {
            let e = load(text).map(|_| ()).unwrap_err().to_string();
            assert!(e.contains("changes what Maui schedules"), "{text}: {e}");
        }
    }

    /// A load limit that is not a number is a located error, every one of the file told.
    #[test]
    fn bad_load_limits_are_located_errors() {
        let e = load("NODEMAXLOAD lots\nNODECFG[n1] PROCS=4 MAXLOAD=high\nNODEMAXLOAD inf\n")
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "3 errors in the config:\n\
             maui.cfg:1:13: NODEMAXLOAD: expected a number, found `lots`\n\
             maui.cfg:2:21: NODECFG[n1] MAXLOAD: expected a number, found `high`\n\
             maui.cfg:3:13: NODEMAXLOAD: expected a finite number, found `inf`"
        );
    }

    /// NODELOADPOLICY ADJUSTPROCS acts in 3.3.1's simulation only where a node has a load
    /// limit: a note without one (a later ADJUSTSTATE line undoes it), refused with one.
    #[test]
    fn adjust_procs_counts_only_with_a_load_limit() {
        let c = load("NODELOADPOLICY ADJUSTPROCS\nNODEMAXLOAD 0.01\n").unwrap();
        assert_eq!(
            c.warnings,
            ["maui.cfg:1:1: note: NODELOADPOLICY ADJUSTPROCS: Maui 3.3.1's simulation reads it only for a node with a load limit (NODEMAXLOAD, NODECFG MAXLOAD), which this config has none of: it changes nothing"]
        );
        for limit in ["NODEMAXLOAD 2\n", "NODECFG[n1] PROCS=4 MAXLOAD=3\n"] {
            let e = load(&format!("NODELOADPOLICY ADJUSTPROCS\n{limit}"))
                .map(|_| ())
                .unwrap_err()
                .to_string();
            assert!(
                e.starts_with("maui.cfg:1:1: NODELOADPOLICY ADJUSTPROCS (a node's available processors set from its load limit and load) changes what Maui schedules where a node has a load limit"),
                "{limit}: {e}"
            );
        }
        // NODECFG[DEFAULT]'s MAXLOAD of 0 replaces NODEMAXLOAD: no node has a limit.
        let c = load("NODELOADPOLICY ADJUSTPROCS\nNODEMAXLOAD 2\nNODECFG[DEFAULT] MAXLOAD=0\n")
            .unwrap();
        assert!(
            c.warnings[0].contains("which this config has none of"),
            "{:?}",
            c.warnings
        );
        let c = load("NODELOADPOLICY ADJUSTPROCS\nNODELOADPOLICY ADJUSTSTATE\nNODEMAXLOAD 2\n")
            .unwrap();
        assert!(
            c.warnings[0].contains("ignored: NODELOADPOLICY"),
            "{:?}",
            c.warnings
        );
    }

    /// USESYSTEMQUEUETIME on is 3.3.1's default; off changes nothing in its simulation
    /// unless a job's system queue time can move from its submit time (a limit's block, a
    /// preemption, a RESERVEALWAYS deferral): a note without any, simulated with one (given
    /// after the line too), refused where mauisim does not follow 3.3.1's passes; a later
    /// line turning it on undoes it.
    #[test]
    fn system_queue_time_counts_only_where_the_system_queue_time_moves() {
        // On is 3.3.1's default (`ptOFF` is 1): without effect.
        let on = load("USESYSTEMQUEUETIME TRUE\nUSERCFG[a] MAXJOB=1\n").unwrap();
        assert!(on.config.policy.priority.system_queue_time);
        assert!(on.warnings[0]
            .contains("without effect on what Maui 3.3.1 schedules in a simulation ignored: USESYSTEMQUEUETIME"));
        let off = load("USESYSTEMQUEUETIME FALSE\nQOSCFG[hi] PRIORITY=5\nQOSWEIGHT 1\n").unwrap();
        assert_eq!(off.warnings.len(), 1, "{:?}", off.warnings);
        assert!(off.warnings[0].starts_with(
            "maui.cfg:1:1: note: USESYSTEMQUEUETIME off: Maui 3.3.1 then counts the queue time"
        ));
        let on_again =
            load("USESYSTEMQUEUETIME FALSE\nUSESYSTEMQUEUETIME TRUE\nUSERCFG[a] MAXJOB=1\n")
                .unwrap();
        assert!(on_again.config.policy.priority.system_queue_time);
        for also in [
            "QOSCFG[hi] QFLAGS=PREEMPTOR",
            "QOSCFG[hi] QFLAGS=RESERVEALWAYS",
            "USERCFG[DEFAULT] MAXJOB=2",
            "GROUPCFG[g] MAXIPROC=8",
            "QOSCFG[q] OMAXIPROC=8",
            "SYSCFG MAXIJOB=4",
            "SYSTEMMAXPROCPERJOB 4",
            "JOBPRIOACCRUALPOLICY FULLPOLICY",
        ] {
            let c = load(&format!("USESYSTEMQUEUETIME OFF\n{also}\n")).unwrap();
            assert!(!c.config.policy.priority.system_queue_time, "{also}");
            let told = c.warnings.iter().any(|w| w.contains("USESYSTEMQUEUETIME"));
            assert!(!told, "{also}: {:?}", c.warnings);
        }
        // Without 3.3.1's passes mauisim does not follow `EffQueueDuration`: refused.
        let e = load("USESYSTEMQUEUETIME FALSE\nUSERCFG[a] MAXJOB=1\nBACKFILLPOLICY NONE\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("maui.cfg:1:1: USESYSTEMQUEUETIME off with a limit (USERCFG[a]) and BACKFILLPOLICY NONE at maui.cfg:3:"),
            "{e}"
        );
        // Under accrual ALWAYS a limit resets nothing.
        let always =
            load("USESYSTEMQUEUETIME FALSE\nJOBPRIOACCRUALPOLICY ALWAYS\nUSERCFG[a] MAXJOB=1\n")
                .unwrap();
        assert!(always.config.policy.priority.system_queue_time);
        assert!(always.warnings[0].contains("it changes nothing"));
    }

    /// The issue's bad-input list: each is a located error and nothing runs.
    #[test]
    fn bad_credential_and_weight_input_is_a_located_error() {
        let cases = [
            (
                "XFACTORWEIGHT lots\n",
                "maui.cfg:1:15: XFACTORWEIGHT: expected a number, found `lots`",
            ),
            ("\nRESCAP -1\n", "maui.cfg:2:8: RESCAP: a cap cannot be negative"),
            (
                "QOSCFG[high] QTWEIGHT=1\nCLASSCFG[batch] QDEF=gold\n",
                "maui.cfg:2:17: CLASSCFG[batch] QDEF=gold: no QOS gold is defined (add a QOSCFG[gold] line)",
            ),
            (
                "USERCFG[steve] DEFAULT.WCLIMIT=1:00:00\n",
                "maui.cfg:1:16: USERCFG[steve] DEFAULT.WCLIMIT: DEFAULT.WCLIMIT is an attribute of CLASSCFG, not of USERCFG",
            ),
            (
                "GROUPCFG PRIORITY=5\n",
                "maui.cfg:1:1: GROUPCFG needs a name: GROUPCFG[name] ATTR=VALUE",
            ),
            (
                "QOSCFG[high] XFTARGET=0.5\n",
                "maui.cfg:1:14: QOSCFG[high] XFTARGET: an expansion factor target is at least 1, found 0.5",
            ),
            (
                "USERCFG[a] PRIORITY=high\n",
                "maui.cfg:1:12: USERCFG[a] PRIORITY: expected a number, found `high`",
            ),
            (
                "QOSCFG[high] QTWEIGHT=1e308\n",
                "maui.cfg:1:14: QOSCFG[high] QTWEIGHT: expected a number within -1e15..=1e15, found `1e308`",
            ),
            (
                "USERCFG[a] PRIORITY=-2e15\nQUEUETIMEWEIGHT 1\n",
                "maui.cfg:1:12: USERCFG[a] PRIORITY: expected a number within -1e15..=1e15, found `-2e15`",
            ),
            (
                "QUEUETIMEWEIGHT 1e308\n",
                "maui.cfg:1:17: QUEUETIMEWEIGHT: expected a weight within -1e15..=1e15, found `1e308`",
            ),
            (
                "JOBPRIOACCRUALPOLICY SOMETIMES\n",
                "maui.cfg:1:22: JOBPRIOACCRUALPOLICY: expected ALWAYS, QUEUEPOLICY or FULLPOLICY, found `SOMETIMES`",
            ),
        ];
        for (text, want) in cases {
            let got = load(text).map(|_| ()).unwrap_err().to_string();
            assert_eq!(got, want, "for {text:?}");
        }
    }

    /// A standing reservation's time entry: TIMELIMIT has a name and counts with the whole
    /// list; MAXTIME and SRMAXTIME have none, so 3.3.1's first pass over the list sees only
    /// the entries before them, and SRMAXTIME comes before every SRCFG line's.
    #[test]
    fn standing_time_entries_are_read_with_what_3_3_1_sees_before_them() {
        let time = |text: &str| {
            let c = load(text).unwrap();
            let limit = c.config.nodes.standing[0].time_limit.unwrap();
            (limit.seconds, limit.required, limit.seen_before)
        };
        let srcfg = "SRCFG[s] TASKCOUNT=1 USERLIST=u1,bad!";
        assert_eq!(
            time(&format!("{srcfg} TIMELIMIT=1:00:00\n")),
            (3600, false, None)
        );
        assert_eq!(
            time(&format!("{srcfg} TIMELIMIT=<=30*\n")),
            (30, true, None)
        );
        assert_eq!(
            time(&format!("{srcfg} MAXTIME=2:00:00*\n")),
            (7200, true, Some((true, true)))
        );
        assert_eq!(
            time("SRCFG[s] TASKCOUNT=1 MAXTIME=2:00:00 USERLIST=u1\n"),
            (7200, false, Some((false, false)))
        );
        assert_eq!(
            time(&format!("{srcfg}\nSRMAXTIME[s] 0:30:00\n")),
            (1800, true, Some((false, false)))
        );
        assert_eq!(
            time("SRUSERLIST[s] u1\nSRMAXTIME[s] 0:30:00\nSRTASKCOUNT[s] 1\n"),
            (1800, true, Some((true, false)))
        );
        let e = load(&format!("{srcfg} TIMELIMIT=>=1:00:00\n"))
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(e.contains("mauisim simulates one duration"), "{e}");
    }

    /// SRCFG and the older SR* forms: 3.3.1's defaults, its readings of DAYS and PERIOD
    /// with a warning where they surprise, every problem located.
    #[test]
    fn standing_reservations_are_read_as_3_3_1_reads_them() {
        let c = load(
            "SRCFG[day] HOSTLIST=n[0-3],gpu STARTTIME=9:00 ENDTIME=17:00:00\n\
             SRCFG[day] DAYS=Mon-Fri CLASSLIST=interactive,debug! USERLIST=bob*\n\
             SRPERIOD[old] week\nSRTASKCOUNT[old] 4\nSRRESOURCES[old] PROCS=2\n",
        )
        .unwrap();
        let srs = &c.config.nodes.standing;
        assert_eq!(srs.len(), 2);
        let day = &srs[0];
        assert_eq!((day.start, day.end, day.depth), (9 * 3600, 17 * 3600, 2));
        assert_eq!(
            day.days, 0b010_0010,
            "Mon-Fri is Monday and Friday in 3.3.1"
        );
        assert_eq!(
            day.hosts.as_deref(),
            Some(&["n[0-3]".to_string(), "gpu".into()][..])
        );
        let class = &day.access[CredKind::Class.index()];
        assert_eq!(class[0], ("interactive".into(), standing::Acl::Any));
        assert_eq!(class[1], ("debug".into(), standing::Acl::Denied));
        assert_eq!(
            day.access[CredKind::User.index()],
            [("bob".to_string(), standing::Acl::Required)]
        );
        let old = &srs[1];
        assert_eq!(
            old.period,
            standing::Period::Day,
            "lowercase falls back to DAY"
        );
        assert_eq!(old.task_count, 4);
        assert!(
            old.holds_nothing.is_some(),
            "SRRESOURCES disables it in 3.3.1"
        );
        assert_eq!(c.warnings.len(), 3, "{:?}", c.warnings);
        assert!(
            c.warnings[0].contains("Monday and Friday only")
                || c.warnings[0].contains("Mon and Fri only"),
            "{}",
            c.warnings[0]
        );
        let e = load("SRCFG[x] PERIODE=DAY DEPTH=0 HOSTLIST=n[\nSRCFG MAXTIME=1:00:00\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("3 errors in the config:"), "{e}");
        let c = load("SRCFG[x] PERIODE=DAY TASKCOUNT=1 USERLIST=a\n").unwrap();
        assert_eq!(
            c.warnings,
            ["maui.cfg:1:10: warning: SRCFG[x]: unknown attribute PERIODE (did you mean PERIOD?); ignored, as Maui 3.3.1 ignores it"]
        );
        assert!(
            e.contains("SRCFG[x] DEPTH: expected 1 to 64 periods"),
            "{e}"
        );
        assert!(
            e.contains("SRCFG[x] HOSTLIST: `n[`: not a regular expression"),
            "{e}"
        );
        assert!(
            e.contains("maui.cfg:2:1: SRCFG needs a reservation name"),
            "{e}"
        );
    }
}
