//! The simulated machine's nodes: where they come from (a resource trace file, scenario
//! nodes, `NODECFG[name]` objects, or generated identical from the trace header), how the
//! config's `NODECFG` objects apply to them, and node names for outputs.
//!
//! Precedence: the base list is the node file's (or the scenario's) nodes if given, else
//! the named `NODECFG` objects if any of them sets PROCS, else identical nodes generated
//! from the machine size. A named object then overrides what it sets on its node, and
//! `NODECFG[DEFAULT]` sets what neither the base nor the node's object set.

use crate::error::{Result, SimError};
use crate::params::credentials::Names;
use crate::params::node_cfg::{busy_at_load, feature_list, NodeCfg, NodeConfig};
use crate::params::standing::{Acl, Period, StandingCfg};
use crate::trace::workload::Machine;
use mauisim_core::{
    maui_memory_tier, CredKind, FeatureMask, MachineSpec, NodeSetPolicy, NodeSetPriority, NodeSets,
    NodeSpec, NodeTuning, Recurrence, StandingAccess, StandingReservation, StartLimits, Time, DAY,
    EVERY_DAY, WEEK,
};
use std::borrow::Borrow;
use std::path::Path;
use std::sync::Arc;

/// The machine, ready for the core, with the names the outputs use.
#[derive(Debug, Clone)]
pub struct Nodes {
    pub spec: Arc<MachineSpec>,
    /// Feature names: bit `i` of a [`FeatureMask`] is `features[i]`.
    pub features: Vec<String>,
    /// Where the node list came from, for the summary.
    pub source: String,
    /// Under Maui 3.3.1's partitions: per partition index, the partition number its
    /// nodes carry (0: no node is in it).
    pub partition_numbers: [u32; mauisim_core::PARTITION_SLOTS],
    /// Maui 3.3.1's partition table by index, when its partitions are simulated.
    pub partition_table: Option<Vec<String>>,
    /// What building the machine from the config warns of: a node whose partition found
    /// no slot left in the table, a standing reservation 3.3.1 makes no window of.
    pub warnings: Vec<String>,
    /// The nodes' names, kept as host lists fold them (no copy of each name:
    /// [`Nodes::name`]).
    hosts: HostNames,
}

const DEFAULT_PARTITION_NAME: &str = "DEFAULT";

/// Nodes given explicitly (a resource trace, a scenario), with admin reservations on
/// named nodes: `(nodes, start, end)`.
#[derive(Debug, Clone, Default)]
pub struct NodeSource {
    pub nodes: Vec<BaseNode>,
    pub source: String,
    pub standing: Vec<(Vec<String>, Time, Time)>,
}

/// A node before the config applies: what its source set.
#[derive(Debug, Clone, Default)]
pub struct BaseNode {
    pub name: String,
    pub cfg: NodeCfg,
}

impl Nodes {
    pub fn procs(&self) -> u64 {
        self.spec.total_procs()
    }

    pub fn len(&self) -> usize {
        self.spec.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spec.nodes.is_empty()
    }

    /// Node `n`'s name.
    pub fn name(&self, n: usize) -> String {
        let mut name = String::new();
        self.write_name(n, &mut name);
        name
    }

    /// [`Self::name`], appended to `out`.
    pub(crate) fn write_name(&self, n: usize, out: &mut String) {
        self.hosts.write_name(n, out);
    }

    /// The index of the node named `name`, if any.
    pub(crate) fn index_of(&self, name: &str) -> Option<u32> {
        let mut buffer = String::new();
        (0..self.len()).find_map(|n| {
            buffer.clear();
            self.write_name(n, &mut buffer);
            (buffer == name).then_some(n as u32)
        })
    }

    /// Every node's name, in node order.
    pub fn names(&self) -> Vec<String> {
        (0..self.len()).map(|n| self.name(n)).collect()
    }

    /// Feature names as a mask; an unknown name is an error naming it.
    pub(crate) fn feature_mask(
        &self,
        names: &[String],
    ) -> std::result::Result<FeatureMask, String> {
        feature_mask_of(&self.features, names)
    }

    /// Node-index ranges as a compact host list: `n[0-3,7],gpu1`.
    /// A check failure with the node's name in place of its `#index`.
    pub(crate) fn name_in(&self, e: crate::error::SimError) -> crate::error::SimError {
        match e {
            crate::error::SimError::Check(mut f) => {
                let index = f.node.as_deref().and_then(|n| n.strip_prefix('#'));
                if let Some(i) = index
                    .and_then(|i| i.parse::<usize>().ok())
                    .filter(|&i| i < self.len())
                {
                    f.node = Some(self.name(i));
                }
                crate::error::SimError::Check(f)
            }
            other => other,
        }
    }

    /// The nodes of inclusive index `ranges` as a host list (`n[0-3,7]`).
    pub(crate) fn host_list<R: Borrow<(u32, u32)>>(
        &self,
        ranges: impl IntoIterator<Item = R>,
    ) -> String {
        let mut out = String::new();
        self.hosts.write_list(ranges, &mut out);
        out
    }

    /// [`Self::host_list`], appended to `out`.
    pub(crate) fn write_host_list<R: Borrow<(u32, u32)>>(
        &self,
        ranges: impl IntoIterator<Item = R>,
        out: &mut String,
    ) {
        self.hosts.write_list(ranges, out);
    }
}

/// Generated node `i` of `machine`: `n<i>`, as the others.
fn generated_node(machine: Machine, i: u64) -> BaseNode {
    BaseNode {
        name: format!("{GENERATED_PREFIX}{i}"),
        cfg: NodeCfg {
            procs: Some(machine.procs_per_node),
            ..NodeCfg::default()
        },
    }
}

const GENERATED_PREFIX: &str = "n";

/// The error of a host list that names no node of the machine.
const NO_NAME_MATCHES: &str = " HOSTLIST: no node's name matches ";
const NO_NODE_NAMED: &str = ": no node of that name in ";

/// Builds the machine from `base` (or, when `base` is `None`, from the config's named
/// objects or `machine`), applying the config's `NODECFG` objects.
pub fn build(
    base: Option<NodeSource>,
    machine: Machine,
    config: &NodeConfig,
    names: &mut Names,
    calendar: Time,
) -> Result<Nodes> {
    let standing = base
        .as_ref()
        .map(|b| b.standing.clone())
        .unwrap_or_default();
    let base = base.map(|b| (b.nodes, b.source));
    if config.allocation == mauisim_core::AllocationPolicy::Local {
        return Err(usage(
            "NODEALLOCATIONPOLICY LOCAL calls a site's own allocator: a program using the \
             mauisim-core library sets one (MachineSpec::local, the NodeAllocator trait); \
             the command line has none"
                .into(),
        ));
    }
    let default = config.object("DEFAULT").cloned().unwrap_or_default();
    let default_max_load = config.default_max_load();
    let defined_by_config = config.named().any(|o| o.procs.is_some());
    let mut identical = None;
    let (mut base, source, from_file) = match base {
        Some((nodes, source)) => (nodes, source, true),
        None if defined_by_config => (
            config
                .named()
                .map(|o| BaseNode {
                    name: o.name.clone(),
                    cfg: NodeCfg::default(),
                })
                .collect(),
            "NODECFG".to_string(),
            false,
        ),
        None => {
            // NODECFG[DEFAULT] PROCS says how the machine's processors split into nodes.
            let machine = match default.procs {
                Some(ppn) if machine.procs().is_multiple_of(ppn) => Machine {
                    nodes: machine.procs() / ppn,
                    procs_per_node: ppn,
                },
                Some(ppn) => {
                    return Err(usage(format!(
                        "NODECFG[DEFAULT] PROCS={ppn} does not divide the machine's {} processors",
                        machine.procs()
                    )))
                }
                None => machine,
            };
            let source = format!(
                "{} x {}",
                crate::units::count(machine.nodes, "node"),
                crate::units::count(machine.procs_per_node, "processor")
            );
            if config.named().next().is_none() && config.standing.is_empty() {
                // Every node the same: built once, then copied (a machine of 80,640
                // nodes would otherwise build as many configurations and names).
                identical = Some(machine.nodes);
                (vec![generated_node(machine, 0)], source, false)
            } else {
                let nodes = (0..machine.nodes).map(|i| generated_node(machine, i));
                (nodes.collect(), source, false)
            }
        }
    };
    // Every problem binding the config to the nodes is told in one run.
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    let headers = &config.feature_headers;
    if from_file {
        for node in &mut base {
            if let Err(e) = headers.apply(&node.name, &mut node.cfg) {
                errors.push(e);
            }
        }
    } else {
        for (name, at) in headers.set() {
            warnings.push(format!(
                "{at}: note: {name} reads the names of the features a node file (--node-file) gives its nodes, as Maui 3.3.1 reads those its resource manager reports; this run's nodes come from {source}, whose features it does not read (nor does 3.3.1 NODECFG's): it changes nothing"
            ));
        }
    }
    let mut names_missed = false;
    for object in config.named() {
        match base.iter_mut().find(|b| b.name == object.name) {
            Some(node) => overlay(&mut node.cfg, object),
            None => {
                let at = object
                    .location
                    .as_ref()
                    .map_or(String::new(), |l| format!("{l}: "));
                let what = if from_file {
                    format!("the node list ({source})")
                } else {
                    format!("the generated nodes ({source}: n0, n1, …)")
                };
                errors.push(format!("{at}NODECFG[{}]{NO_NODE_NAMED}{what}", object.name));
                names_missed = true;
            }
        }
    }
    let mut features: Vec<String> = Vec::new();
    let mut partition_numbers = [0; mauisim_core::PARTITION_SLOTS];
    // Maui 3.3.1 creates the nodes' partitions after the config's, in node order, while
    // a slot is left (a node whose partition finds none stays in DEFAULT).
    let mut partition_table = config.partition_table.clone();
    let any_partition = base.iter().any(|b| b.cfg.partition.is_some());
    if partition_table.is_none() && config.maui_partitions && any_partition {
        partition_table = Some(vec!["ALL".into(), DEFAULT_PARTITION_NAME.into()]);
    }
    if let Some(table) = &mut partition_table {
        for b in &base {
            let Some(p) = &b.cfg.partition else { continue };
            if table.contains(p) {
                continue;
            }
            if table.len() < mauisim_core::PARTITION_SLOTS {
                table.push(p.clone());
            } else {
                warnings.push(format!(
                    "warning: node {} PARTITION={p}: Maui 3.3.1 holds two partitions besides DEFAULT; the node stays in DEFAULT",
                    b.name
                ));
            }
        }
    }
    let mut specs = Vec::with_capacity(base.len());
    let mut node_names = Vec::with_capacity(base.len());
    let mut start_limits = Vec::new();
    let mut load_limited = false;
    let mut task_caps = Vec::new();
    for node in base {
        let own_partition = node.cfg.partition.clone();
        let mut cfg = node.cfg;
        underlay(&mut cfg, &default);
        let Some(procs) = cfg.procs.filter(|&p| p > 0) else {
            return Err(usage(format!(
                "node {}: no processors (set PROCS on NODECFG[{}] or NODECFG[DEFAULT])",
                node.name, node.name
            )));
        };
        let mut mask = 0;
        for f in cfg.features.iter().flatten() {
            let bit = match features.iter().position(|x| x == f) {
                Some(i) => i,
                None => {
                    if features.len() == 64 {
                        return Err(usage(format!(
                            "node {}: more than 64 distinct node features",
                            node.name
                        )));
                    }
                    features.push(f.clone());
                    features.len() - 1
                }
            };
            mask |= 1u64 << bit;
        }
        let partition = match &partition_table {
            // Maui 3.3.1's partitions: a node's own PARTITION if the table holds it, else
            // DEFAULT (NODECFG[DEFAULT]'s is never copied to nodes).
            Some(table) => {
                let own = own_partition.as_ref().filter(|p| table.contains(p));
                let name = own.map_or(DEFAULT_PARTITION_NAME, String::as_str);
                let number = names
                    .intern_partition_name(name)
                    .get()
                    .map_or(0, |i| i as u32 + 1);
                if let Some(i) = table.iter().position(|t| t == name) {
                    partition_numbers[i] = number;
                }
                number
            }
            None => match &cfg.partition {
                Some(p) => names
                    .intern_partition_name(p)
                    .get()
                    .map_or(0, |i| i as u32 + 1),
                None => 0,
            },
        };
        let mut limits = cfg.limits();
        limits.start.busy_at_load = busy_at_load(cfg.max_load, default_max_load);
        load_limited |= limits.start.busy_at_load > 0;
        limits.start = binding(limits.start, procs);
        specs.push(
            NodeSpec {
                mem: cfg.mem.unwrap_or(0),
                swap: cfg.swap.unwrap_or(0),
                disk: cfg.disk.unwrap_or(0),
                features: mask,
                partition,
                max_jobs: limits.max_jobs,
                ..NodeSpec::with_procs(procs)
            }
            .tuned(NodeTuning {
                speed: cfg.speed.unwrap_or(1.0),
                procspeed: cfg.procspeed.unwrap_or(0),
                priority: cfg.priority.unwrap_or(0.0),
                load: cfg.load.unwrap_or(0.0),
                priority_f: cfg.priority_f,
            }),
        );
        // Kept per node only from the first node with one (MachineSpec::start_limits).
        if !limits.start.is_none() || !start_limits.is_empty() {
            start_limits.resize(node_names.len(), StartLimits::default());
            start_limits.push(limits.start);
        }
        // Likewise MAXPEPERJOB's caps (MachineSpec::task_caps).
        let cap = limits.pe_task_cap(procs);
        if cap.is_some() || !task_caps.is_empty() {
            task_caps.resize(node_names.len(), u32::MAX);
            task_caps.push(cap.unwrap_or(u32::MAX));
        }
        node_names.push(node.name);
    }
    let hosts = match identical {
        Some(count) => {
            let count = count as usize;
            specs.resize(count, specs[0].clone());
            if let Some(&first) = start_limits.first() {
                start_limits.resize(count, first);
            }
            if let Some(&first) = task_caps.first() {
                task_caps.resize(count, first);
            }
            HostNames::numbered(GENERATED_PREFIX, count)
        }
        None => HostNames::new(&node_names),
    };
    // 3.3.1 scales a job's load by its slowest node's PROCSPEED where every one of its nodes
    // has one (a node without one, 0, turns the scaling off); with one speed it scales by 1.
    let speeds = specs
        .iter()
        .map(|s| s.tuning().procspeed)
        .filter(|&s| s > 0);
    if load_limited && speeds.clone().min() != speeds.max() {
        return Err(usage(
            "NODEMAXLOAD or MAXLOAD on nodes of different PROCSPEED: Maui 3.3.1 scales a job's \
             load on a node by its slowest node's speed, and takes it off again scaled \
             differently (MJob.c, MSim.c); mauisim does not simulate that: give the nodes \
             one PROCSPEED, or drop the load limit"
                .into(),
        ));
    }
    let mut reservations = Vec::new();
    for (on, start, end) in standing {
        let ids = on
            .iter()
            .map(|n| {
                node_names
                    .iter()
                    .position(|x| x == n)
                    .map(|i| i as u32)
                    .ok_or_else(|| usage(format!("reservation: no node is named `{n}`")))
            })
            .collect::<Result<Vec<u32>>>()?;
        reservations.push(StandingReservation {
            name: "admin".into(),
            nodes: ids,
            when: Recurrence::Once { start, end },
            access: Default::default(),
            procs: Vec::new(),
        });
    }
    for sr in &config.standing {
        let laid = lay_standing(
            sr,
            &specs,
            &node_names,
            &features,
            names,
            calendar,
            &mut warnings,
        );
        match laid {
            Ok(Some(r)) => reservations.push(r),
            Ok(None) => {}
            Err(e) => {
                names_missed |= e.contains(NO_NAME_MATCHES);
                errors.push(e);
            }
        }
    }
    if names_missed && !from_file && !defined_by_config {
        // A site's own maui.cfg names its nodes: say how to give them, once, after the
        // last error that names a node this run does not have.
        if let Some(last) = errors
            .iter_mut()
            .rev()
            .find(|e| e.contains(NO_NAME_MATCHES) || e.contains(NO_NODE_NAMED))
        {
            last.push_str(
                "\nhint: the config names nodes this run does not have: give the site's nodes \
                 with --node-file FILE (a Maui resource trace, 21 fields per node, guide 16.2), \
                 or each with NODECFG[name] PROCS=… (the config then defines the machine)",
            );
        }
    }
    if !errors.is_empty() {
        return Err(SimError::ConfigErrors {
            errors,
            warnings: Vec::new(),
        });
    }
    if reservations.len() > mauisim_core::MAX_STANDING {
        return Err(usage(format!(
            "{} standing reservations: mauisim holds at most {}",
            reservations.len(),
            mauisim_core::MAX_STANDING
        )));
    }
    let sets = &config.node_sets;
    let node_sets = sets.by_feature().then(|| {
        let bit = |name: &String| features.iter().position(|f| f == name).map(|i| 1u64 << i);
        let mandatory = sets.mandatory.is_some();
        let listed: Vec<u64> = sets.list.iter().filter_map(bit).collect();
        NodeSets {
            policy: sets.policy.unwrap_or(NodeSetPolicy::OneOf),
            priority: sets.priority.unwrap_or(NodeSetPriority::MinLoss),
            // Without NODESETLIST, 3.3.1's mandatory step takes every feature for a set
            // (MSched.c `MJobSelectResourceSet`).
            sets: if mandatory && sets.list.is_empty() {
                (0..features.len()).map(|i| 1u64 << i).collect()
            } else {
                listed
            },
            every_feature: features.iter().fold(0, |m, f| m | bit(f).unwrap_or(0)),
            mandatory,
        }
    });
    let spec = MachineSpec {
        nodes: specs,
        access: config.access,
        allocation: config.allocation,
        priority_f: default.priority_f.clone(),
        local: None,
        standing: reservations,
        one_task_per_node: config.exact_node,
        node_sets,
        start_limits,
        task_caps,
    };
    Ok(Nodes {
        spec: Arc::new(spec),
        hosts,
        features,
        source,
        partition_numbers,
        partition_table,
        warnings,
    })
}

/// The start limits that can bind on a node of `procs` processors, the others none (so
/// that a machine whose limits cannot bind still pools its processors where nothing else
/// binds): a load limit at or above them (the node is full when Busy, and takes no job and
/// offers no window either way), and MAXPROC or MAXPROCPERUSER at or above them (the jobs
/// there never hold more: `1 + (limit − 1 − used) / per task` tasks are at least those
/// the free processors hold).
fn binding(mut start: StartLimits, procs: u64) -> StartLimits {
    for limit in [
        &mut start.busy_at_load,
        &mut start.max_procs,
        &mut start.max_procs_per_user,
    ] {
        if u64::from(*limit) >= procs {
            *limit = 0;
        }
    }
    start
}

/// What `top` sets replaces what `base` has.
fn overlay(base: &mut NodeCfg, top: &NodeCfg) {
    macro_rules! take {
        ($($f:ident),*) => { $( if top.$f.is_some() { base.$f = top.$f.clone(); } )* };
    }
    take!(
        procs, mem, swap, disk, speed, procspeed, features, priority, partition, load, max_load,
        priority_f
    );
    if top.limits.is_some() {
        base.limits = Some(Box::new(top.limits().or(base.limits())));
    }
}

/// What `base` does not set comes from `fallback`.
fn underlay(base: &mut NodeCfg, fallback: &NodeCfg) {
    macro_rules! fill {
        ($($f:ident),*) => { $( if base.$f.is_none() { base.$f = fallback.$f.clone(); } )* };
    }
    fill!(procs, mem, swap, disk, speed, procspeed, features, priority, partition, load);
    if fallback.limits.is_some() {
        base.limits = Some(Box::new(base.limits().or(fallback.limits())));
    }
}

fn usage(message: String) -> SimError {
    SimError::Usage(message)
}

/// Reads a Maui resource trace (guide 16.2): one node per line, 21 whitespace-separated
/// fields; `#` starts a comment. Used: 1 COMPUTENODE, 2 AVAILABLE (DEFINED or DRAINED
/// nodes are down: counted and left out), 4 name, 6 swap, 7 memory, 8 disk (MB), 9
/// processors, 15 features `[a][b]`, 18 relative speed. The others (frame, slot, OS,
/// architecture, classes, network adapters, reserved fields) are read but not simulated.
pub(crate) fn read_resource_trace(path: &Path) -> Result<(Vec<BaseNode>, u64)> {
    let text = std::fs::read_to_string(path).map_err(|source| SimError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_resource_trace(&text, path)
}

pub(crate) fn parse_resource_trace(text: &str, path: &Path) -> Result<(Vec<BaseNode>, u64)> {
    let mut nodes: Vec<BaseNode> = Vec::new();
    let mut down = 0;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let err = |field: usize, message: String| SimError::Input {
            path: path.to_path_buf(),
            message: format!("line {line}, field {field}: {message}"),
        };
        let fields: Vec<&str> = content.split_whitespace().collect();
        if fields.len() != 21 {
            return Err(SimError::Input {
                path: path.to_path_buf(),
                message: format!(
                    "line {line}: a resource trace line has 21 fields, found {}",
                    fields.len()
                ),
            });
        }
        if !fields[0].eq_ignore_ascii_case("COMPUTENODE") {
            return Err(err(
                1,
                format!("expected COMPUTENODE, found `{}`", fields[0]),
            ));
        }
        let state = fields[1].to_ascii_uppercase();
        let name = fields[3].to_string();
        if nodes.iter().any(|n| n.name == name) {
            return Err(err(4, format!("node `{name}` is defined twice")));
        }
        let amount = |f: usize| -> Result<u64> {
            fields[f - 1].parse::<u64>().map_err(|_| {
                err(
                    f,
                    format!("expected a non-negative integer, found `{}`", fields[f - 1]),
                )
            })
        };
        let procs = amount(9)?;
        if procs == 0 {
            return Err(err(9, format!("node `{name}` has 0 processors")));
        }
        let speed: f64 = fields[17]
            .parse()
            .ok()
            .filter(|s: &f64| s.is_finite() && *s > 0.0)
            .ok_or_else(|| {
                err(
                    18,
                    format!("expected a positive speed, found `{}`", fields[17]),
                )
            })?;
        let features = match fields[14] {
            "-" | "[NONE]" => Vec::new(),
            f => feature_list(f),
        };
        match state.as_str() {
            "AVAILABLE" => {}
            "DEFINED" | "DRAINED" => {
                down += 1;
                continue;
            }
            other => {
                return Err(err(
                    2,
                    format!("expected AVAILABLE, DEFINED or DRAINED, found `{other}`"),
                ))
            }
        }
        nodes.push(BaseNode {
            name,
            cfg: NodeCfg {
                procs: Some(procs),
                mem: Some(amount(7)?),
                swap: Some(amount(6)?),
                disk: Some(amount(8)?),
                speed: Some(speed),
                features: Some(features),
                ..NodeCfg::default()
            },
        });
    }
    if nodes.is_empty() {
        return Err(SimError::Input {
            path: path.to_path_buf(),
            message: "no available node in the resource trace".into(),
        });
    }
    Ok((nodes, down))
}

/// Node names, split once for host lists: `gpu07` is prefix `gpu`, number 7, width 2.
/// Nodes `i..=run_end[i]` have one prefix and width and consecutive numbers, so a range
/// of node indexes folds in O(runs), not O(nodes).
#[derive(Debug, Clone, Default)]
pub struct HostNames {
    prefixes: Vec<String>,
    /// Per node, 16 bytes (a machine of 80,640 generated nodes holds no copy of its names).
    parts: Vec<NamePart>,
    /// The names without a number, which are listed whole.
    unnumbered: Vec<String>,
    run_end: Vec<u32>,
}

/// A node name as a host list folds it: a prefix id, a padded width (0: not padded) and a
/// number; or, with prefix [`NamePart::UNNUMBERED`], the name's index in
/// [`HostNames::unnumbered`].
#[derive(Debug, Clone, Copy)]
struct NamePart {
    prefix: u32,
    width: u32,
    number: u64,
}

impl NamePart {
    const UNNUMBERED: u32 = u32::MAX;

    /// (prefix id, width, number) of a name with a number.
    fn numbered(self) -> Option<(u32, usize, u64)> {
        (self.prefix != Self::UNNUMBERED).then_some((self.prefix, self.width as usize, self.number))
    }
}

impl HostNames {
    pub(crate) fn new(names: &[String]) -> Self {
        let mut prefixes: Vec<String> = Vec::new();
        let mut unnumbered = Vec::new();
        let numbered = |name: &String, prefixes: &mut Vec<String>| {
            let split = name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
            let (prefix, digits) = name.split_at(split);
            let number = digits.parse::<u64>().ok()?;
            let width = if digits.starts_with('0') && digits.len() > 1 {
                digits.len()
            } else {
                0
            };
            let id = match prefixes.iter().position(|p| p == prefix) {
                Some(i) => i,
                None => {
                    prefixes.push(prefix.to_string());
                    prefixes.len() - 1
                }
            };
            // A prefix id or a width past 32 bits is past any machine's names.
            Some(NamePart {
                prefix: u32::try_from(id)
                    .ok()
                    .filter(|&p| p != NamePart::UNNUMBERED)?,
                width: u32::try_from(width).ok()?,
                number,
            })
        };
        let parts: Vec<NamePart> = names
            .iter()
            .map(|name| {
                numbered(name, &mut prefixes).unwrap_or_else(|| {
                    unnumbered.push(name.clone());
                    NamePart {
                        prefix: NamePart::UNNUMBERED,
                        width: 0,
                        number: (unnumbered.len() - 1) as u64,
                    }
                })
            })
            .collect();
        let mut run_end = vec![0u32; names.len()];
        for i in (0..names.len()).rev() {
            let next = parts.get(i + 1).and_then(|p| p.numbered());
            let continues = match (parts[i].numbered(), next) {
                (Some((p, w, n)), Some((q, v, m))) => p == q && same_width(w, v, m) && m == n + 1,
                _ => false,
            };
            run_end[i] = if continues { run_end[i + 1] } else { i as u32 };
        }
        HostNames {
            prefixes,
            parts,
            unnumbered,
            run_end,
        }
    }

    /// `prefix0` … `prefix<count − 1>`: what [`Self::new`] makes of those names, without
    /// them.
    pub(crate) fn numbered(prefix: &str, count: usize) -> Self {
        let part = |number: usize| NamePart {
            prefix: 0,
            width: 0,
            number: number as u64,
        };
        HostNames {
            prefixes: vec![prefix.to_string()],
            parts: (0..count).map(part).collect(),
            unnumbered: Vec::new(),
            run_end: vec![count.saturating_sub(1) as u32; count],
        }
    }

    /// Appends node `n`'s name to `out`, as it was given.
    pub(crate) fn write_name(&self, n: usize, out: &mut String) {
        let part = self.parts[n];
        match part.numbered() {
            Some((p, width, number)) => {
                out.push_str(&self.prefixes[p as usize]);
                push_padded(out, number, width);
            }
            None => out.push_str(&self.unnumbered[part.number as usize]),
        }
    }

    /// Node-index ranges as a host list: consecutive names `prefix<number>` with the same
    /// prefix (and zero padding) fold into `prefix[a-b,c]`; others are listed by name.
    #[cfg(test)]
    pub(crate) fn list(&self, ranges: &[(u32, u32)]) -> String {
        let mut out = String::new();
        self.write_list(ranges, &mut out);
        out
    }

    /// [`Self::list`], appended to `out` (one buffer for a whole `jobs.csv`).
    pub(crate) fn write_list<R: Borrow<(u32, u32)>>(
        &self,
        ranges: impl IntoIterator<Item = R>,
        out: &mut String,
    ) {
        let start = out.len();
        // The group being folded: ((prefix id, width), number ranges).
        let mut group: Option<Fold> = None;
        for range in ranges {
            let (first, last) = *range.borrow();
            let mut i = first;
            while i <= last {
                let end = self.run_end[i as usize].min(last).max(i);
                let part = self.parts[i as usize];
                match part.numbered() {
                    Some((p, w, n)) => {
                        let m = n + u64::from(end - i);
                        match &mut group {
                            Some(((q, v), nums)) if *q == p && same_width(*v, w, n) => {
                                let tail = nums.last_mut().expect("groups start with a number");
                                if n == tail.1 + 1 {
                                    tail.1 = m;
                                } else {
                                    nums.push((n, m));
                                }
                            }
                            _ => {
                                self.flush(group.take(), out, start);
                                group = Some(((p, w), vec![(n, m)]));
                            }
                        }
                    }
                    None => {
                        self.flush(group.take(), out, start);
                        if out.len() > start {
                            out.push(',');
                        }
                        out.push_str(&self.unnumbered[part.number as usize]);
                    }
                }
                i = end + 1;
            }
        }
        self.flush(group, out, start);
    }

    /// Appends a folded group, after a comma unless `out` holds nothing past `start`.
    fn flush(&self, group: Option<Fold>, out: &mut String, start: usize) {
        let Some(((p, width), nums)) = group else {
            return;
        };
        if out.len() > start {
            out.push(',');
        }
        out.push_str(&self.prefixes[p as usize]);
        if nums.len() == 1 && nums[0].0 == nums[0].1 {
            push_padded(out, nums[0].0, width);
            return;
        }
        out.push('[');
        for (k, &(a, b)) in nums.iter().enumerate() {
            if k > 0 {
                out.push(',');
            }
            push_padded(out, a, width);
            if a != b {
                out.push('-');
                push_padded(out, b, width);
            }
        }
        out.push(']');
    }
}

/// `number` in at least `width` digits, zeros before (as `{:0width$}` writes it).
fn push_padded(out: &mut String, number: u64, width: usize) {
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(number);
    for _ in digits.len()..width {
        out.push('0');
    }
    out.push_str(digits);
}

/// Names being folded: ((prefix id, padded width), number ranges).
type Fold = ((u32, usize), Vec<(u64, u64)>);

/// Whether a number of padded `width` `w` (0: not padded) prints the same under a
/// group's padded width `group`: `sp099` and `sp100` fold into `sp[099-100]`.
fn same_width(group: usize, w: usize, n: u64) -> bool {
    group == w || (w == 0 && n.to_string().len() >= group)
}

/// Node-index ranges of `names` as a host list (see [`HostNames::list`]).
#[cfg(test)]
fn host_list(names: &[String], ranges: &[(u32, u32)]) -> String {
    HostNames::new(names).list(ranges)
}

/// The local calendar's seconds since 1970-01-01 00:00 at simulated time 0: an SWF
/// trace's `UnixStartTime` plus its `TimeZone` offset (UTC without one; Maui itself
/// reads days in its own process's zone), or 0 for a Maui workload trace, whose times
/// are epochs already.
pub fn calendar_of(header: &crate::trace::swf::SwfHeader) -> Time {
    let start = header.positive("UnixStartTime").unwrap_or(0) as Time;
    let zone = header
        .pairs
        .get("TimeZone")
        .and_then(|v| v.trim().parse::<Time>().ok())
        .filter(|z| z.abs() <= 86_400)
        .unwrap_or(0);
    start + zone
}

/// A standing reservation laid on the machine: its nodes (every listed host Maui would
/// match, or TASKCOUNT tasks chosen as 3.3.1 chooses them), its windows in the trace's
/// calendar, its access list as credential ids; `None` when 3.3.1 makes no window of it.
fn lay_standing(
    sr: &StandingCfg,
    specs: &[NodeSpec],
    node_names: &[String],
    features: &[String],
    names: &mut Names,
    calendar: Time,
    warnings: &mut Vec<String>,
) -> std::result::Result<Option<StandingReservation>, String> {
    let at = sr
        .location
        .as_ref()
        .map_or(String::new(), |l| format!("{l}: "));
    let what = format!("{at}SRCFG[{}]", sr.name);
    let warn = |message: String| format!("{at}warning: SRCFG[{}]{message}", sr.name);
    if sr.holds_nothing.is_some() {
        return Ok(None);
    }
    let wanted =
        feature_mask_of(features, &sr.features).map_err(|e| format!("{what} NODEFEATURES: {e}"))?;
    let partition = match &sr.partition {
        Some(p) => match names.partition_number(p) {
            Some(number) => number,
            None => return Err(format!("{what} PARTITION: no node is in partition `{p}`")),
        },
        None => 0,
    };
    let feasible = |n: usize| {
        let node = &specs[n];
        node.features & wanted == wanted && (partition == 0 || node.partition == partition)
    };
    let per_task = sr.procs_per_task;
    let tasks_on = |n: usize| {
        let procs = specs[n].procs;
        let mut tasks = per_task.map_or(1, |p| procs / p.max(1));
        if sr.tasks_per_node > 0 {
            tasks = tasks.min(sr.tasks_per_node);
        }
        tasks
    };
    let held = |tasks: u64, n: usize| per_task.map_or(specs[n].procs, |p| p * tasks);
    let mut nodes = Vec::new();
    let mut procs = Vec::new();
    // 3.3.1 reads HOSTLIST as regular expressions (MUtil.c `MUREToList`): `ALL` is no
    // keyword there (Moab's), and matches only names holding "all" in any case. With no
    // node so named, the reservation is laid by TASKCOUNT alone, or not at all.
    let mut all_is_no_keyword = false;
    if let Some(hosts) = &sr.hosts {
        // Every feasible listed host, busy or not, one task on each (3.3.1 lays such a
        // window's job a task per listed node: its node events read "'PROCS: 2'x1" for
        // RESOURCES=PROCS:2 on nodes of four, and jobs use the rest); with a TASKCOUNT, that
        // many tasks in all (`tasks_within_count`).
        let patterns: Vec<regex::Regex> = hosts
            .iter()
            .map(|h| crate::params::standing::host_pattern(h))
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| format!("{what} HOSTLIST: {e}"))?;
        let listed: Vec<usize> = node_names
            .iter()
            .enumerate()
            .filter(|&(n, name)| feasible(n) && patterns.iter().any(|p| p.is_match(name)))
            .map(|(n, _)| n)
            .collect();
        let room: Vec<u64> = listed.iter().map(|&n| tasks_on(n)).collect();
        let tasks = if sr.task_count > 0 {
            let tier = |i: usize| maui_memory_tier(specs[listed[i]].mem);
            tasks_within_count(&room, sr.task_count, tier)
        } else {
            room.iter().map(|&room| room.min(1)).collect()
        };
        for (&n, &tasks) in listed.iter().zip(&tasks) {
            if tasks > 0 {
                nodes.push(n as u32);
                procs.push(held(tasks, n));
            }
        }
        let named = node_names
            .iter()
            .enumerate()
            .any(|(n, name)| feasible(n) && patterns.iter().any(|p| p.is_match(name)));
        all_is_no_keyword = !named && hosts.iter().all(|h| h.eq_ignore_ascii_case("ALL"));
        if nodes.is_empty() && !all_is_no_keyword {
            if named {
                // MSR.c `MSRSetRes`: the listed nodes' tasks sum to none, "empty hostlist",
                // and no reservation (`MSRRefresh`: "cannot create standing reservation",
                // and it schedules on).
                warnings.push(warn(format!(
                    " HOSTLIST: no node it lists can hold one of its tasks ({} processors each): Maui 3.3.1 makes no reservation of it, nor does mauisim",
                    per_task.unwrap_or(1)
                )));
                return Ok(None);
            }
            let listed = node_names
                .iter()
                .any(|name| patterns.iter().any(|p| p.is_match(name)));
            if listed {
                return Err(format!(
                    "{what} HOSTLIST: the nodes it lists lack its NODEFEATURES or are outside its PARTITION"
                ));
            }
            return Err(format!(
                "{what}{NO_NAME_MATCHES}{} (node names: {})",
                hosts.join(","),
                sample_names(node_names)
            ));
        }
    }
    if all_is_no_keyword {
        let laid = if sr.task_count > 0 {
            "lays it by TASKCOUNT alone, as if HOSTLIST were not given"
        } else {
            "makes no reservation of it (no TASKCOUNT); write the nodes' names, or give a TASKCOUNT"
        };
        warnings.push(warn(format!(
            " HOSTLIST=ALL: Maui 3.3.1 reads a host list as regular expressions, with no keyword ALL, and no node's name here holds \"all\": it {laid}"
        )));
        if sr.task_count == 0 {
            return Ok(None);
        }
    }
    if sr.hosts.is_some() && !all_is_no_keyword {
        // Laid on the listed hosts above.
    } else if sr.task_count > 0 {
        // 3.3.1 lays a TASKCOUNT reservation by MINRESOURCE whatever the allocation
        // policy: the smallest memory class first (64 MB … 8 GB), the last node first.
        let mut order: Vec<usize> = (0..specs.len()).filter(|&n| feasible(n)).collect();
        order.sort_by_key(|&n| (maui_memory_tier(specs[n].mem), std::cmp::Reverse(n)));
        let mut left = sr.task_count;
        for n in order {
            if left == 0 {
                break;
            }
            let tasks = tasks_on(n).min(left);
            if tasks > 0 {
                nodes.push(n as u32);
                procs.push(held(tasks, n));
                left -= tasks;
            }
        }
        if left == sr.task_count {
            // MSR.c `MSRRefresh`: "cannot create standing reservation", and it schedules on.
            warnings.push(warn(format!(
                " TASKCOUNT: no node can hold one of its tasks ({} processors each): Maui 3.3.1 makes no reservation of it, nor does mauisim",
                per_task.unwrap_or(1)
            )));
            return Ok(None);
        }
    } else {
        // MSR.c `MSRRefresh` passes over a reservation with neither ("SR[n] is empty").
        warnings.push(warn(
            ": neither HOSTLIST nor TASKCOUNT, so it holds no node: Maui 3.3.1 makes no reservation of it, nor does mauisim; give one to hold nodes".to_string()
        ));
        return Ok(None);
    }
    let when = match sr.period {
        Period::Day => {
            let close = if sr.end == 0 { DAY } else { sr.end };
            if close <= sr.start {
                // 3.3.1's window length wraps and the reservation is never made.
                warnings.push(warn(format!(
                    ": ENDTIME {} is not after STARTTIME {}, and Maui 3.3.1 makes no window then (no wrap past midnight): no reservation, here as there; an overnight window is STARTTIME=18:00:00 ENDTIME=1:06:00:00",
                    crate::units::clock(close),
                    crate::units::clock(sr.start)
                )));
                return Ok(None);
            }
            Recurrence::calendar(DAY, calendar, sr.start, close, sr.days, sr.depth)
        }
        Period::Week => {
            let close = if sr.week_end == 0 { WEEK } else { sr.week_end };
            if close <= sr.week_start {
                warnings.push(warn(
                    ": WENDTIME is not after WSTARTTIME, and Maui 3.3.1 makes no window then: no reservation, here as there".into(),
                ));
                return Ok(None);
            }
            Recurrence::calendar(WEEK, calendar, sr.week_start, close, EVERY_DAY, sr.depth)
        }
        Period::Infinity => Recurrence::Once {
            start: Time::MIN / 4,
            end: mauisim_core::FOREVER,
        },
    };
    let mut access = StandingAccess::default();
    for kind in CredKind::ALL {
        for (name, acl) in &sr.access[kind.index()] {
            let id = names.intern(kind, name);
            let list = match acl {
                Acl::Any => &mut access.any,
                Acl::Required => &mut access.required,
                Acl::Denied => &mut access.denied,
            };
            list[kind.index()].push(id);
        }
    }
    access.max_procs = sr.proc_limit;
    access.max_time = sr.time_limit.map(|t| mauisim_core::TimeEntry {
        limit: t.seconds,
        required: t.required,
        seen_before: t.seen_before,
    });
    Ok(Some(StandingReservation {
        name: sr.name.clone(),
        nodes,
        procs,
        when,
        access,
    }))
}

/// Feature `names` as a mask over the nodes' `known` features (bit `i` is `known[i]`); an
/// unknown name is an error naming it and the features there are.
fn feature_mask_of(known: &[String], names: &[String]) -> std::result::Result<FeatureMask, String> {
    let mut mask = 0;
    for n in names {
        match known.iter().position(|f| f == n) {
            Some(i) => mask |= 1 << i,
            None => {
                return Err(format!(
                    "unknown feature `{n}`: no node has it (nodes have: {})",
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(" ")
                    }
                ))
            }
        }
    }
    Ok(mask)
}

/// The first few node names, for an error that says which names there are.
fn sample_names(names: &[String]) -> String {
    let mut shown: Vec<&str> = names.iter().take(4).map(String::as_str).collect();
    if names.len() > shown.len() {
        shown.push("…");
    }
    shown.join(", ")
}

/// The tasks a standing reservation of `count` tasks in all (TASKCOUNT with HOSTLIST) holds on
/// each of its listed nodes, which hold `room` tasks each: 3.3.1 makes such a reservation
/// "space flex" (MSR.c `MSRSelectNodeList`): the smaller of TASKCOUNT and the listed nodes'
/// tasks, placed among them. Its log shows them one task per node (the real-Maui case
/// standingshort: "PROCS: 2" on each of n0 and n1 for `RESOURCES=PROCS:2 TASKCOUNT=2`), so
/// here one task per node a round, in 3.3.1's MINRESOURCE order (the smallest memory `tier`
/// first, the last node first), until `count`. (3.3.1 takes only the listed nodes available
/// when it lays the window, by the allocation policy: not modelled.)
fn tasks_within_count(room: &[u64], count: u64, tier: impl Fn(usize) -> u64) -> Vec<u64> {
    let mut order: Vec<usize> = (0..room.len()).collect();
    order.sort_by_key(|&i| (tier(i), std::cmp::Reverse(i)));
    let mut given = vec![0u64; room.len()];
    let mut left = count;
    while left > 0 {
        let before = left;
        for &i in &order {
            if left > 0 && given[i] < room[i] {
                given[i] += 1;
                left -= 1;
            }
        }
        if left == before {
            break;
        }
    }
    given
}

#[cfg(test)]
mod tests {
    use super::*;

    /// TASKCOUNT with HOSTLIST: one task per listed node a round, the last node first among
    /// those of one memory tier, the smaller tier first, never beyond a node's room.
    #[test]
    fn a_task_count_over_a_host_list_takes_one_task_per_node_a_round() {
        let same_tier = |_: usize| 0;
        assert_eq!(tasks_within_count(&[2, 2], 2, same_tier), [1, 1]);
        assert_eq!(tasks_within_count(&[2, 2, 2], 2, same_tier), [0, 1, 1]);
        assert_eq!(tasks_within_count(&[2, 2, 2], 4, same_tier), [1, 1, 2]);
        assert_eq!(tasks_within_count(&[1, 3], 4, same_tier), [1, 3]);
        assert_eq!(tasks_within_count(&[1, 3], 9, same_tier), [1, 3]);
        let first_smaller = |i: usize| if i == 0 { 0 } else { 1 };
        assert_eq!(tasks_within_count(&[2, 2, 2], 1, first_smaller), [1, 0, 0]);
    }

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    proptest::proptest! {
        /// The nodes keep their names only as host lists fold them: each comes back as given
        /// (padded numbers, numbers past 64 bits, names without one, any text).
        #[test]
        fn node_names_come_back_as_given(
            given in proptest::collection::vec(
                proptest::prop_oneof![
                    "[a-z]{0,3}[0-9]{0,4}",
                    "[a-z-]{0,2}0{0,3}[0-9]{0,25}",
                    "\\PC{0,6}",
                ],
                0..40,
            )
        ) {
            let hosts = HostNames::new(&given);
            for (n, name) in given.iter().enumerate() {
                let mut back = String::new();
                hosts.write_name(n, &mut back);
                proptest::prop_assert_eq!(&back, name);
            }
        }
    }

    /// The generated nodes' names, made without the names, are what the names would make.
    #[test]
    fn numbered_names_are_the_names_themselves() {
        for count in [0, 1, 2, 11, 1000] {
            let names: Vec<String> = (0..count).map(|i| format!("n{i}")).collect();
            let (made, given) = (HostNames::numbered("n", count), HostNames::new(&names));
            assert_eq!(made.run_end, given.run_end);
            for n in 0..count {
                let (mut a, mut b) = (String::new(), String::new());
                made.write_name(n, &mut a);
                given.write_name(n, &mut b);
                assert_eq!(a, b);
            }
            let ranges = [(0, count.saturating_sub(1) as u32), (3, 7), (9, 9)];
            let ranges: Vec<(u32, u32)> = ranges
                .into_iter()
                .filter(|&(_, b)| (b as usize) < count)
                .collect();
            assert_eq!(made.list(&ranges), given.list(&ranges));
        }
    }

    #[test]
    fn host_lists_fold_numbered_names() {
        let n = names(&["n0", "n1", "n2", "n3", "n7", "gpu01", "gpu02", "login"]);
        assert_eq!(host_list(&n, &[(0, 3)]), "n[0-3]");
        assert_eq!(host_list(&n, &[(0, 1), (4, 4)]), "n[0-1,7]");
        assert_eq!(host_list(&n, &[(4, 4)]), "n7");
        assert_eq!(host_list(&n, &[(3, 7)]), "n[3,7],gpu[01-02],login");
        let padded: Vec<String> = (98..=101).map(|i| format!("sp{i:03}")).collect();
        assert_eq!(host_list(&padded, &[(0, 3)]), "sp[098-101]");
        let many: Vec<String> = (0..1000).map(|i| format!("n{i}")).collect();
        assert_eq!(host_list(&many, &[(0, 499), (500, 998)]), "n[0-998]");
        assert_eq!(host_list(&many, &[(5, 9), (20, 20)]), "n[5-9,20]");
        let mixed = names(&["login", "n1", "head", "n2"]);
        assert_eq!(host_list(&mixed, &[(0, 3)]), "login,n1,head,n2");
        assert_eq!(host_list(&mixed, &[(2, 2), (0, 0)]), "head,login");
    }

    #[test]
    fn resource_traces_read_with_located_errors() {
        let line = |name: &str, state: &str, procs: &str, speed: &str| {
            format!("COMPUTENODE {state} 0 {name} rm 2048 1024 4096 {procs} 1 1 1 linux x86 [fast][gpu] [batch:1] - {speed} - - -\n")
        };
        let text =
            line("a", "AVAILABLE", "4", "1.5") + "# comment\n" + &line("b", "DRAINED", "4", "1.0");
        let (nodes, down) = parse_resource_trace(&text, Path::new("r.trace")).unwrap();
        assert_eq!(down, 1);
        assert_eq!(nodes.len(), 1);
        let c = &nodes[0].cfg;
        assert_eq!(
            (c.procs, c.mem, c.swap, c.disk),
            (Some(4), Some(1024), Some(2048), Some(4096))
        );
        assert_eq!(c.speed, Some(1.5));
        assert_eq!(
            c.features.as_deref(),
            Some(&["fast".to_string(), "gpu".to_string()][..])
        );
        let e = parse_resource_trace(&line("a", "AVAILABLE", "0", "1"), Path::new("r.trace"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("line 1, field 9") && e.contains("0 processors"),
            "{e}"
        );
        let e = parse_resource_trace(&line("a", "AVAILABLE", "x", "1"), Path::new("r.trace"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("field 9"), "{e}");
        let e = parse_resource_trace("COMPUTENODE AVAILABLE\n", Path::new("r.trace"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 1") && e.contains("21 fields"), "{e}");
        let e = parse_resource_trace(&line("a", "AVAILABLE", "4", "fast"), Path::new("r.trace"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("field 18"), "{e}");
    }
}
