//! maui.cfg's node parameters: NODEALLOCATIONPOLICY, NODEACCESSPOLICY and `NODECFG[name]`
//! objects (guide 5.2, MAUI-SEMANTICS §5 and §8), as read; [`crate::nodes`] applies them
//! to the machine.

use mauisim_config::{self as cfg, ConfigError, Entry, Location};
use mauisim_core::{AllocationPolicy, NodeAccess, PriorityFn, StartLimits};
use serde::Serialize;
use std::sync::Arc;

/// The node part of a config.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NodeConfig {
    #[serde(serialize_with = "policy_name")]
    pub allocation: AllocationPolicy,
    #[serde(serialize_with = "access_name")]
    pub access: NodeAccess,
    /// JOBNODEMATCHPOLICY EXACTNODE: one task of each job per node.
    pub exact_node: bool,
    /// `NODECFG[name]` objects in the order first seen; `DEFAULT` applies to every node
    /// for what the node itself does not set.
    pub objects: Vec<NodeCfg>,
    /// `SRCFG[name]` standing reservations (and the older `SR*[name]` forms), in the
    /// order first seen.
    pub standing: Vec<super::standing::StandingCfg>,
    /// Where RESOURCELIMITPOLICY enforces a PROC limit: in 3.3.1's simulation that cancels,
    /// requeues or suspends jobs only when nodes are dedicated whole (checked with
    /// NODEACCESSPOLICY once the file is read).
    #[serde(skip)]
    pub proc_usage_limit: Option<Location>,
    /// Maui 3.3.1's partition table by index (ALL, DEFAULT, the site's), when the config
    /// names partitions and they are simulated: every node is then in one of them.
    #[serde(skip)]
    pub partition_table: Option<Vec<String>>,
    /// Whether node partitions are Maui 3.3.1's (Maui semantics): a partition on a node
    /// from elsewhere (a scenario) then starts the table too.
    #[serde(skip)]
    pub maui_partitions: bool,
    /// NODESETPOLICY & co. as read.
    #[serde(skip)]
    pub node_sets: super::node_sets::NodeSetsAsRead,
    /// `NODECFG ATTR` for each attribute read that has no effect on a simulated
    /// schedule, taken into the config's summary line of such names (which names each
    /// once) after every entry.
    #[serde(skip)]
    pub no_effect: Vec<String>,
    /// NODEMAXLOAD as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_max_load: Option<f64>,
    /// FEATUREPROCSPEEDHEADER and FEATUREPARTITIONHEADER: read from the names of the
    /// features a node file gives its nodes.
    #[serde(skip)]
    pub feature_headers: super::feature_headers::FeatureHeaders,
}

fn policy_name<S: serde::Serializer>(p: &AllocationPolicy, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(p.name())
}

fn access_name<S: serde::Serializer>(a: &NodeAccess, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(match a {
        NodeAccess::Shared => "SHARED",
        NodeAccess::SingleJob => "SINGLEJOB",
        NodeAccess::SingleTask => "SINGLETASK",
        NodeAccess::SingleUser => "SINGLEUSER",
    })
}

/// A node's job and processor limits, each 0 where the object sets none: then
/// NODECFG[DEFAULT]'s, as 3.3.1 reads a limit of 0 or below (MNode.c).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct NodeLimits {
    /// MAXJOB: the most jobs the node runs at once.
    pub max_jobs: u32,
    /// MAXJOBPERUSER, MAXPROCPERUSER and MAXPROC.
    pub start: StartLimits,
    /// MAXPEPERJOB as 3.3.1 reads it (MNode.c): a count above 1, else a share of the
    /// node's processors (`50%` is 0.5; 1 is the whole node); 0 = none.
    pub max_pe_per_job: f64,
}

impl NodeLimits {
    /// The most tasks of one job a node of `procs` processors takes under MAXPEPERJOB, as
    /// 3.3.1 caps a job's tasks there (MNode.c `MNodeCheckPolicies`, truncated to whole
    /// tasks; 0 keeps every job off the node); `None` without the attribute. 3.3.1 caps
    /// the task count times the processor-equivalents of a task, which for tasks of one
    /// processor (every SWF job's) is the tasks.
    pub fn pe_task_cap(&self, procs: u64) -> Option<u32> {
        let most = self.max_pe_per_job;
        if most <= 0.0 {
            return None;
        }
        let tasks = if most > 1.0 {
            most
        } else {
            most * procs as f64
        };
        Some(tasks.min(f64::from(u32::MAX)) as u32)
    }
}

impl NodeLimits {
    /// Each limit of `self` that is 0 taken from `fallback`.
    pub fn or(self, fallback: NodeLimits) -> NodeLimits {
        NodeLimits {
            max_jobs: if self.max_jobs > 0 {
                self.max_jobs
            } else {
                fallback.max_jobs
            },
            start: self.start.or(fallback.start),
            max_pe_per_job: if self.max_pe_per_job > 0.0 {
                self.max_pe_per_job
            } else {
                fallback.max_pe_per_job
            },
        }
    }
}

/// One `NODECFG[name]` object: only what it sets.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NodeCfg {
    pub name: String,
    pub procs: Option<u64>,
    pub mem: Option<u64>,
    pub swap: Option<u64>,
    pub disk: Option<u64>,
    pub speed: Option<f64>,
    pub procspeed: Option<u64>,
    pub features: Option<Vec<String>>,
    pub priority: Option<f64>,
    pub partition: Option<String>,
    pub load: Option<f64>,
    /// MAXLOAD as written (its own, not NODECFG[DEFAULT]'s: see [`busy_at_load`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_load: Option<f64>,
    /// MAXJOB, MAXJOBPERUSER, MAXPROCPERUSER and MAXPROC, when the object sets any (out of
    /// line: most nodes have none, and a machine's generated nodes are many).
    pub limits: Option<Box<NodeLimits>>,
    #[serde(skip)]
    pub priority_f: Option<Arc<PriorityFn>>,
    /// Where the object was first named, for errors about it.
    #[serde(skip)]
    pub location: Option<Location>,
}

impl NodeCfg {
    fn limits_mut(&mut self) -> &mut NodeLimits {
        self.limits.get_or_insert_with(Box::default)
    }

    /// The limits it sets (0 where none).
    pub fn limits(&self) -> NodeLimits {
        self.limits.as_deref().copied().unwrap_or_default()
    }
}

impl NodeConfig {
    pub(crate) fn object(&self, name: &str) -> Option<&NodeCfg> {
        self.objects.iter().find(|o| o.name == name)
    }

    fn object_mut(&mut self, name: &str, at: &Location) -> &mut NodeCfg {
        match self.objects.iter().position(|o| o.name == name) {
            Some(i) => &mut self.objects[i],
            None => {
                self.objects.push(NodeCfg {
                    name: name.to_string(),
                    location: Some(at.clone()),
                    ..NodeCfg::default()
                });
                self.objects.last_mut().expect("just pushed")
            }
        }
    }

    /// The load limit of a node without its own: NODECFG[DEFAULT]'s MAXLOAD if written (read
    /// after the parameters, MSys.c), else NODEMAXLOAD.
    pub(crate) fn default_max_load(&self) -> Option<f64> {
        self.object("DEFAULT")
            .and_then(|d| d.max_load)
            .or(self.node_max_load)
    }

    /// Whether some node may have a load limit ([`busy_at_load`] above 0): the default's, or
    /// a named object's own.
    pub(crate) fn has_load_limit(&self) -> bool {
        busy_at_load(None, self.default_max_load()) > 0
            || self.named().any(|o| busy_at_load(o.max_load, None) > 0)
    }

    /// The named objects (not DEFAULT).
    pub(crate) fn named(&self) -> impl Iterator<Item = &NodeCfg> {
        self.objects.iter().filter(|o| o.name != "DEFAULT")
    }
}

pub const NODE_ATTRS: &[&str] = &[
    "PROCS",
    "MEM",
    "SWAP",
    "DISK",
    "SPEED",
    "PROCSPEED",
    "FEATURES",
    "PRIORITY",
    "PRIORITYF",
    "PARTITION",
    "LOAD",
    "MAXJOB",
    "MAXJOBPERUSER",
    "MAXPROCPERUSER",
    "MAXPROC",
    "MAXPEPERJOB",
    "MAXLOAD",
];

/// Node attributes of Maui 3.3.1 that mauisim does not simulate yet, with what they do:
/// refused when they change the schedule, as the parameters of the kind are. OS and ARCH
/// bind only jobs that ask for an operating system or architecture, which no trace
/// mauisim reads can: accepted with a warning.
const NODE_ATTRS_NOT_YET: &[(&str, &str)] = &[
    ("RADISK", "the node's disk available to jobs"),
    (
        "AVLMEMWEIGHT",
        "the node's own weight of available memory in its allocation priority",
    ),
    (
        "AVLPROCWEIGHT",
        "the node's own weight of available processors in its allocation priority",
    ),
    (
        "CFGMEMWEIGHT",
        "the node's own weight of configured memory in its allocation priority",
    ),
    (
        "LOADWEIGHT",
        "the node's own weight of load in its allocation priority",
    ),
    (
        "PRIOWEIGHT",
        "the node's own weight of PRIORITY in its allocation priority",
    ),
    (
        "SPEEDWEIGHT",
        "the node's own weight of speed in its allocation priority",
    ),
    (
        "USAGEWEIGHT",
        "the node's own weight of usage in its allocation priority",
    ),
    ("OS", ""),
    ("ARCH", ""),
    ("NETWORK", ""),
    ("GRES", ""),
    ("RESOURCES", ""),
];

/// Node attributes of Maui 3.3.1 without effect on a simulated schedule (MNode.c
/// `MNodeProcessConfig`): where the node stands (FRAME, SLOT, SIZE), read only by
/// ALLOCLOCALITYPOLICY, which mauisim refuses; NODETYPE, read only by accounting; and
/// the names 3.3.1's table holds but its config switch never sets (ACCESS's case there
/// is marked "NYI" and does nothing).
const NODE_ATTRS_NO_EFFECT: &[&str] = &[
    "ACCESS",
    "FRAME",
    "SLOT",
    "SIZE",
    "NODETYPE",
    "CFGPROCWEIGHT",
    "AVLCLASS",
    "CFGCLASS",
    "EXTLOAD",
    "MAXPROCPERCLASS",
    "NODEID",
    "NODESTATE",
    "RAMEM",
    "RAPROC",
    "RASWAP",
    "RCDISK",
    "RCMEM",
    "RCPROC",
    "RCSWAP",
    "STATACTIVETIME",
    "STATTOTALTIME",
    "STATUPTIME",
    "TASKCOUNT",
];

/// Node attributes of Moab that Maui 3.3.1's NODECFG does not have: its parser skips a
/// pair it does not know without a word (MNode.c `MNodeProcessConfig`, `MUGetPair`), so
/// they change nothing; a warning says so, as a site may expect their effect.
const NODE_ATTRS_OF_MOAB: &[(&str, &str)] = &[(
    "CLASSES",
    "the classes the node accepts; 3.3.1's nodes accept the classes the resource manager reports",
)];

/// The processors a node's jobs hold at which Maui 3.3.1 marks it Busy, from its load
/// limit: a node's own MAXLOAD above 0.01, else the default's (NODECFG[DEFAULT] MAXLOAD if
/// written, else NODEMAXLOAD) above 0.01 (MSim.c `__MSimNodeUpdate`). Its simulation's load
/// is the processors its jobs hold, a whole number, so `load >= limit` is `held >=
/// ceil(limit)`. 0: none.
pub(crate) fn busy_at_load(own: Option<f64>, default: Option<f64>) -> u32 {
    let counts = |v: &f64| *v > 0.01;
    match own.filter(counts).or(default.filter(counts)) {
        Some(v) => v.ceil().min(f64::from(u32::MAX)) as u32,
        None => 0,
    }
}

pub(crate) fn allocation_policy(c: &mut NodeConfig, e: &Entry) -> Result<(), ConfigError> {
    let text = e.value_text();
    c.allocation = AllocationPolicy::from_name(text.trim()).ok_or_else(|| {
        let known: Vec<&str> = AllocationPolicy::ALL.iter().map(|p| p.name()).collect();
        ConfigError::at(
            e.location.clone(),
            format!(
                "NODEALLOCATIONPOLICY: unknown policy `{text}` (known: {})",
                known.join(", ")
            ),
        )
    })?;
    Ok(())
}

/// JOBNODEMATCHPOLICY as 3.3.1 reads it (MPar.c): every whitespace-separated token is
/// searched, case-sensitively, for `EXACTNODE` and `EXACTPROC`. EXACTNODE gives each trace
/// job a node count equal to its task count (MTrace.c), so one task per node. EXACTPROC
/// asks for nodes of exactly the job's tasks-per-node processors, which a trace job
/// without a tasks-per-node request (every SWF job) never has: no effect (research notes).
pub(crate) fn node_match_policy(
    c: &mut NodeConfig,
    e: &Entry,
    w: &mut Vec<String>,
) -> Result<(), ConfigError> {
    let text = e.value_text();
    c.exact_node = text.contains("EXACTNODE");
    let exact_proc = text.contains("EXACTPROC");
    if exact_proc {
        w.push(format!(
            "{}: note: JOBNODEMATCHPOLICY EXACTPROC: Maui 3.3.1 applies it only to a job that asks for a number of tasks per node, which no trace job here does; no effect",
            e.location
        ));
    }
    if !c.exact_node && !exact_proc && !text.split_whitespace().all(|t| t == "NONE") {
        w.push(format!(
            "{}: warning: JOBNODEMATCHPOLICY `{}`: Maui 3.3.1 finds neither EXACTNODE nor EXACTPROC in it (they are matched in capitals), so it has no effect",
            e.location,
            text.trim()
        ));
    }
    Ok(())
}

pub(crate) fn access_policy(
    c: &mut NodeConfig,
    e: &Entry,
    w: &mut Vec<String>,
) -> Result<(), ConfigError> {
    // 3.3.1 matches the name exactly, in capitals, and reads any other as its default,
    // SHARED (MSched.c `MUGetIndex(…, MNAccessPolicy, FALSE, mnacShared)`).
    let text = e.value_text();
    c.access = match text.trim() {
        "SHARED" => NodeAccess::Shared,
        "SINGLEJOB" => NodeAccess::SingleJob,
        "SINGLETASK" => NodeAccess::SingleTask,
        "SINGLEUSER" => NodeAccess::SingleUser,
        other => {
            w.push(format!(
                "{}: warning: NODEACCESSPOLICY `{other}`: Maui 3.3.1 knows SHARED, SINGLEJOB, SINGLETASK and SINGLEUSER, in capitals, and reads any other name as SHARED, as mauisim does",
                e.location
            ));
            NodeAccess::Shared
        }
    };
    Ok(())
}

pub(crate) fn node_cfg(
    c: &mut NodeConfig,
    e: &Entry,
    w: &mut Vec<String>,
) -> Result<(), ConfigError> {
    let name = match e.index.as_deref() {
        Some(n) if !n.is_empty() => {
            if n.eq_ignore_ascii_case("DEFAULT") {
                "DEFAULT"
            } else {
                n
            }
        }
        _ => {
            return Err(ConfigError::at(
                e.location.clone(),
                "NODECFG needs a node name: NODECFG[name] ATTR=VALUE",
            ))
        }
    };
    for attr in super::object_attrs(e, w)? {
        let at = attr.location.clone();
        let what = format!("NODECFG[{name}] {}", attr.name);
        let err = |m: String| ConfigError::at(at.clone(), format!("{what}: {m}"));
        let amount = |text: &str, zero_ok: bool| -> Result<u64, ConfigError> {
            let v = cfg::parse_int(text).map_err(|e| err(e.0))?;
            if v < 0 || (v == 0 && !zero_ok) {
                return Err(err(format!(
                    "expected a {} number, found {v}",
                    if zero_ok { "non-negative" } else { "positive" }
                )));
            }
            Ok(v as u64)
        };
        let real = |text: &str| -> Result<f64, ConfigError> {
            let v = cfg::parse_float(text).map_err(|e| err(e.0))?;
            if !v.is_finite() {
                return Err(err(format!("expected a number, found {text}")));
            }
            Ok(v)
        };
        let value = attr.value.trim();
        if NODE_ATTRS_NO_EFFECT.contains(&attr.name.as_str()) {
            c.no_effect.push(format!("NODECFG {}", attr.name));
            continue;
        }
        let object = c.object_mut(name, &e.location);
        match attr.name.as_str() {
            "PROCS" => {
                let v = amount(value, true)?;
                if v == 0 {
                    return Err(err("a node needs at least one processor".into()));
                }
                object.procs = Some(v);
            }
            // CFG* are 3.3.1's own names of the configured amounts.
            "MEM" | "CFGMEM" => object.mem = Some(amount(value, true)?),
            "SWAP" | "CFGSWAP" => object.swap = Some(amount(value, true)?),
            "DISK" | "CFGDISK" => object.disk = Some(amount(value, true)?),
            "SPEED" => {
                let v = real(value)?;
                if v <= 0.0 {
                    return Err(err(format!("speed must be positive, found {v}")));
                }
                object.speed = Some(v);
            }
            "PROCSPEED" => object.procspeed = Some(amount(value, true)?),
            "FEATURES" => object.features = Some(feature_list(value)),
            "PRIORITY" => object.priority = Some(real(value)?),
            // 3.3.1 reads it with strtol; 0 or below is no limit of the node's own
            // (MNode.c), which leaves NODECFG[DEFAULT]'s.
            "MAXJOB" => object.limits_mut().max_jobs = node_limit(value).map_err(err)?.unwrap_or(0),
            "MAXJOBPERUSER" => {
                object.limits_mut().start.max_jobs_per_user =
                    node_limit(value).map_err(err)?.unwrap_or(0);
                if let Some(most) = node_limit(value).map_err(err)? {
                    let so = match most {
                        1 => "no job starts on the node at all".to_string(),
                        2 => "a user's one-processor job starts there only while the user runs no other job there".to_string(),
                        _ => format!("a user's one-processor job starts there only while the user runs at most {} other jobs there", most - 2),
                    };
                    w.push(format!(
                        "{at}: note: {what}={most}: as Maui 3.3.1 counts it (MNode.c `MNodeCheckPolicies`), a job's processors per task count as its first job on the node: {so}"
                    ));
                }
            }
            "MAXPROCPERUSER" => {
                object.limits_mut().start.max_procs_per_user =
                    node_limit(value).map_err(err)?.unwrap_or(0)
            }
            "MAXPROC" => {
                object.limits_mut().start.max_procs = node_limit(value).map_err(err)?.unwrap_or(0)
            }
            "MAXPEPERJOB" => object.limits_mut().max_pe_per_job = pe_per_job(value).map_err(err)?,
            "MAXLOAD" => object.max_load = Some(real(value)?),
            "LOAD" => {
                let v = real(value)?;
                if v < 0.0 {
                    return Err(err(format!("load cannot be negative, found {v}")));
                }
                object.load = Some(v);
                // A site's file has no reason to set it; a scenario's does, and should know.
                w.push(format!(
                    "{at}: note: {what}: Maui 3.3.1's NODECFG skips LOAD (a node's load comes from its resource manager, and in its simulation from the processors its jobs hold); mauisim reads it as the load the resource manager reports, for LOAD in PRIORITYF and for CPULOAD"
                ));
            }
            "PARTITION" => {
                if value.is_empty() || value.contains([' ', ',']) {
                    return Err(err(format!("expected one partition name, found `{value}`")));
                }
                object.partition = Some(value.to_string());
            }
            "PRIORITYF" => {
                let f = PriorityFn::parse(value)
                    .map_err(|e| err(format!("column {} of `{value}`: {}", e.column, e.message)))?;
                object.priority_f = Some(Arc::new(f));
            }
            other => {
                if let Some((_, what_in_moab)) =
                    NODE_ATTRS_OF_MOAB.iter().find(|(n, _)| *n == other)
                {
                    w.push(format!(
                        "{at}: warning: {what} is Moab's ({what_in_moab}), not an attribute of Maui 3.3.1's NODECFG, which skips it: ignored, as 3.3.1 ignores it"
                    ));
                    continue;
                }
                if let Some((_, does)) = NODE_ATTRS_NOT_YET.iter().find(|(n, _)| *n == other) {
                    if does.is_empty() {
                        w.push(format!(
                            "{at}: warning: {what} binds no job of a trace; ignored"
                        ));
                        continue;
                    }
                    return Err(ConfigError::at(
                        at,
                        format!("{what} ({does}) changes what Maui schedules, and mauisim does not simulate it yet: the schedule would not be your Maui's; remove the attribute to simulate without it"),
                    ));
                }
                let mut known: Vec<&str> = NODE_ATTRS.to_vec();
                known.extend(NODE_ATTRS_NOT_YET.iter().map(|(n, _)| *n));
                known.extend(NODE_ATTRS_NO_EFFECT);
                known.extend(NODE_ATTRS_OF_MOAB.iter().map(|(n, _)| *n));
                let hint = match cfg::closest(other, &known) {
                    Some(near) => format!("; did you mean {near}?"),
                    None => String::new(),
                };
                return Err(ConfigError::at(
                    at,
                    format!("NODECFG[{name}]: unknown attribute {other}{hint}"),
                ));
            }
        }
    }
    Ok(())
}

/// `[a][b]`, `a,b`, `a:b` or `a b` → `["a", "b"]`.
pub(crate) fn feature_list(text: &str) -> Vec<String> {
    text.split(['[', ']', ',', ':', ' ', '\t'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

/// NODEAVAILABILITYPOLICY `POLICY[:RES] …` as 3.3.1 reads it (MPar.c): an unknown or
/// missing resource sets the default of every resource, so `DEDICATED:PROCS` is the
/// default. In a simulation a node's utilized processors are its dedicated ones and
/// DEDICATED, COMBINED and UTILIZED agree on processors, and DEDICATED and COMBINED on
/// everything: only UTILIZED memory, swap or disk differs (3.3.1 resets a node's utilized
/// amount to the whole node whenever a job on it ends, and may over-commit it).
pub(crate) fn availability_policy(e: &Entry, w: &mut Vec<String>) -> Result<(), ConfigError> {
    const RESOURCES: [&str; 5] = ["NODE", "PROC", "MEM", "SWAP", "DISK"];
    // The default, then per resource; 3.3.1's default is COMBINED.
    let mut default = "COMBINED";
    let mut set: [Option<&str>; 5] = [None; 5];
    for token in &e.values {
        let (policy, resource) = match token.text.split_once(':') {
            Some((p, r)) => (p, Some(r)),
            None => (token.text.as_str(), None),
        };
        let Some(policy) = ["COMBINED", "DEDICATED", "UTILIZED"]
            .into_iter()
            .find(|p| *p == policy)
        else {
            return Err(ConfigError::at(
                token.location.clone(),
                format!(
                    "NODEAVAILABILITYPOLICY: expected COMBINED, DEDICATED or UTILIZED (then :PROC, :MEM, :SWAP or :DISK), found `{}`",
                    token.text
                ),
            ));
        };
        match resource.and_then(|r| RESOURCES.iter().position(|x| *x == r)) {
            Some(k) => set[k] = Some(policy),
            None => default = policy,
        }
    }
    let utilized: Vec<&str> = ["MEM", "SWAP", "DISK"]
        .into_iter()
        .filter(|r| {
            let k = RESOURCES.iter().position(|x| x == r).expect("a resource");
            set[k].unwrap_or(default) == "UTILIZED"
        })
        .collect();
    if !utilized.is_empty() {
        w.push(format!(
            "{}: warning: NODEAVAILABILITYPOLICY UTILIZED for {}: not simulated (read as DEDICATED); it changes what Maui 3.3.1 starts only for jobs that request {} (Maui workload traces), whose nodes it may over-commit",
            e.location,
            utilized.join(", "),
            utilized.join(" or ").to_ascii_lowercase()
        ));
    }
    Ok(())
}

/// RESOURCELIMITPOLICY `RES[:POLICY[:ACTION[:VTIME]]] …` (MPar.c, MLimit.c): limits on a
/// job's utilized resources against its request. In 3.3.1's simulation a job uses no
/// memory, swap or disk and exactly its dedicated processors, so only a PROC limit on
/// nodes dedicated whole (NODEACCESSPOLICY SINGLEJOB or SINGLETASK) ever acts.
pub(crate) fn resource_limit_policy(c: &mut NodeConfig, e: &Entry) -> Result<(), ConfigError> {
    for token in &e.values {
        let mut parts = token.text.split(':');
        let resource = parts.next().unwrap_or_default();
        let policy = parts.next().unwrap_or("ALWAYS");
        if !["NODE", "PROC", "MEM", "SWAP", "DISK"].contains(&resource) {
            // 3.3.1 skips a token whose resource it does not know.
            continue;
        }
        if resource == "PROC" && ["ALWAYS", "EXTENDEDVIOLATION"].contains(&policy) {
            c.proc_usage_limit = Some(token.location.clone());
        }
    }
    Ok(())
}

/// A PROC usage limit acts in 3.3.1's simulation on whole dedicated nodes only.
pub(crate) fn check_proc_usage_limit(c: &NodeConfig) -> Result<(), ConfigError> {
    match (&c.proc_usage_limit, c.access) {
        (Some(at), NodeAccess::SingleJob | NodeAccess::SingleTask) => Err(ConfigError::at(
            at.clone(),
            "RESOURCELIMITPOLICY PROC with NODEACCESSPOLICY SINGLEJOB or SINGLETASK: Maui 3.3.1 counts a job's whole nodes as its utilized processors and acts on every such job (cancel, requeue or suspend), which mauisim does not simulate: the schedule would not be your Maui's; remove the PROC limit to simulate without it",
        )),
        _ => Ok(()),
    }
}

/// MAXPEPERJOB's `<count>` or `<percent>%` (3.3.1 reads either with `strtod`).
fn pe_per_job(value: &str) -> Result<f64, String> {
    let (number, share) = match value.strip_suffix('%') {
        Some(number) => (number, true),
        None => (value, false),
    };
    match number.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(if share { v / 100.0 } else { v }),
        _ => Err(format!(
            "expected a number of processor-equivalents or a percentage (2, 50%), found `{value}`"
        )),
    }
}

/// A node limit as 3.3.1 reads it (strtol): 0 or below is no limit of the node's own
/// (MNode.c), which leaves NODECFG[DEFAULT]'s.
fn node_limit(value: &str) -> Result<Option<u32>, String> {
    let v = cfg::parse_int(value).map_err(|e| e.0)?;
    Ok((v > 0).then_some(v.min(i64::from(u32::MAX)) as u32))
}
