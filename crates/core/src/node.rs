//! The machine as the policy sees it (guide 5.2): nodes with their configured resources
//! and attributes, what a job asks of a node, and how nodes are chosen.

use crate::priorityf::PriorityFn;
use std::fmt;
use std::sync::Arc;

/// Node features as bits; the caller interns feature names (at most 64 distinct).
pub type FeatureMask = u64;

/// Amounts of the per-node resources: processors and MB of memory, swap and disk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Res {
    pub procs: u64,
    pub mem: u64,
    pub swap: u64,
    pub disk: u64,
}

impl Res {
    pub(crate) fn times(self, n: u64) -> Res {
        Res {
            procs: self.procs * n,
            mem: self.mem * n,
            swap: self.swap * n,
            disk: self.disk * n,
        }
    }

    pub(crate) fn plus(self, o: Res) -> Res {
        Res {
            procs: self.procs + o.procs,
            mem: self.mem + o.mem,
            swap: self.swap + o.swap,
            disk: self.disk + o.disk,
        }
    }

    /// What is left of `self` once `used` is taken (none below zero).
    pub(crate) fn less(self, used: Res) -> Res {
        Res {
            procs: self.procs.saturating_sub(used.procs),
            mem: self.mem.saturating_sub(used.mem),
            swap: self.swap.saturating_sub(used.swap),
            disk: self.disk.saturating_sub(used.disk),
        }
    }

    pub(crate) fn add(&mut self, o: Res) {
        *self = self.plus(o);
    }
}

/// One compute node (`NODECFG[name]`, a resource trace line, or a generated node).
/// 56 bytes: a machine may have tens of thousands.
#[derive(Debug, Clone)]
pub struct NodeSpec {
    pub procs: u64,
    /// MB; 0 = not configured.
    pub mem: u64,
    pub swap: u64,
    pub disk: u64,
    pub features: FeatureMask,
    /// Partition id (0 = none); a job of partition p runs only on nodes of p or of none.
    pub partition: u32,
    /// MAXJOB: the most jobs (running, or reserved) the node holds at once; 0 = no limit.
    /// As Maui 3.3.1 does it (MJob.c `MJobGetSNRange`), a job finds the node unavailable
    /// while that many other jobs' claims on it overlap its run there.
    pub max_jobs: u32,
    /// What most nodes leave as it is, out of line: set with [`NodeSpec::tuned`], read
    /// with [`NodeSpec::tuning`] (`None` is the untuned node).
    pub tuning: Option<Box<NodeTuning>>,
}

/// Equal nodes, however their tuning is held.
impl PartialEq for NodeSpec {
    fn eq(&self, other: &Self) -> bool {
        (self.procs, self.mem, self.swap, self.disk)
            == (other.procs, other.mem, other.swap, other.disk)
            && (self.features, self.partition, self.max_jobs)
                == (other.features, other.partition, other.max_jobs)
            && self.tuning() == other.tuning()
    }
}

/// A node's SPEED, PROCSPEED, PRIORITY, LOAD and PRIORITYF.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeTuning {
    /// Relative speed (SPEED), 1.0 unless configured.
    pub speed: f64,
    /// Processor speed (PROCSPEED), 0 unless configured.
    pub procspeed: u64,
    /// Admin node priority (PRIORITY).
    pub priority: f64,
    /// Background load (LOAD) for CPULOAD and PRIORITYF.
    pub load: f64,
    /// This node's own PRIORITYF, overriding the machine's default.
    pub priority_f: Option<Arc<PriorityFn>>,
}

static UNTUNED: NodeTuning = NodeTuning {
    speed: 1.0,
    procspeed: 0,
    priority: 0.0,
    load: 0.0,
    priority_f: None,
};

impl Default for NodeTuning {
    fn default() -> Self {
        UNTUNED.clone()
    }
}

/// A node's NODECFG MAXJOBPERUSER, MAXPROCPERUSER and MAXPROC (0 = no limit), as Maui
/// 3.3.1 applies them. Only a job starting now is held to them against the running jobs
/// (MNode.c `MNodeCheckPolicies`, from `MJobGetINL`), and with 3.3.1's counts: a job is
/// kept off the node when its processors per task plus the jobs its user runs there
/// reach MAXJOBPERUSER (so a user starts at most MAXJOBPERUSER − 1 one-processor jobs
/// there), and it takes at most the tasks that keep its user's processors there within
/// MAXPROCPERUSER and all jobs' within MAXPROC (a first task of one processor counted
/// once, `1 + (limit − 1 − used) / per task`). A reservation's search sees MAXJOBPERUSER
/// only, as it sees MAXJOB: the node is unavailable while that many of the user's jobs and
/// job reservations overlap the run there (MJob.c `MJobGetSNRange`); the backfill windows,
/// measured for no user, see none of them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct StartLimits {
    pub max_jobs_per_user: u32,
    pub max_procs_per_user: u32,
    pub max_procs: u32,
    /// NODEMAXLOAD or NODECFG MAXLOAD as the processors the node's jobs hold at which
    /// 3.3.1 marks it Busy (0: none). Its simulation's load is those processors (MJob.c,
    /// MSim.c), and each iteration's node update marks a node Busy whose load reaches the
    /// limit (`__MSimNodeUpdate`, NODELOADPOLICY ADJUSTSTATE); a job of the node ending
    /// sets its state again from its processors (`MNodeAdjustState`). A Busy node takes no
    /// job starting now and is out of the backfill windows (MBF.c `MBFGetWindow`);
    /// reservations are laid over it as over any node (their searches accept a Busy node,
    /// MJob.c `MJobGetSNRange`).
    #[serde(skip_serializing_if = "is_zero")]
    pub busy_at_load: u32,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

impl StartLimits {
    pub fn is_none(&self) -> bool {
        *self == StartLimits::default()
    }

    /// Each limit of `self` that is 0 (none of its own) taken from `fallback`, as 3.3.1
    /// takes NODECFG[DEFAULT]'s (MNode.c `MNodeCheckPolicies`).
    pub fn or(self, fallback: StartLimits) -> StartLimits {
        let pick = |own: u32, other: u32| if own > 0 { own } else { other };
        StartLimits {
            max_jobs_per_user: pick(self.max_jobs_per_user, fallback.max_jobs_per_user),
            max_procs_per_user: pick(self.max_procs_per_user, fallback.max_procs_per_user),
            max_procs: pick(self.max_procs, fallback.max_procs),
            busy_at_load: pick(self.busy_at_load, fallback.busy_at_load),
        }
    }
}

impl NodeSpec {
    /// A node with `procs` processors and nothing else configured.
    pub fn with_procs(procs: u64) -> Self {
        NodeSpec {
            procs,
            mem: 0,
            swap: 0,
            disk: 0,
            features: 0,
            partition: 0,
            max_jobs: 0,
            tuning: None,
        }
    }

    /// The node with `tuning` (kept out of line only where it differs from none).
    pub fn tuned(mut self, tuning: NodeTuning) -> Self {
        self.tuning = (tuning != UNTUNED).then(|| Box::new(tuning));
        self
    }

    /// The node with SPEED `speed`.
    pub fn with_speed(self, speed: f64) -> Self {
        let tuning = NodeTuning {
            speed,
            ..self.tuning().clone()
        };
        self.tuned(tuning)
    }

    /// [`Self::tuning`] to change (held out of line from then on).
    pub fn tuning_mut(&mut self) -> &mut NodeTuning {
        self.tuning.get_or_insert_with(Box::default)
    }

    /// SPEED, PROCSPEED, PRIORITY, LOAD and PRIORITYF.
    pub fn tuning(&self) -> &NodeTuning {
        self.tuning.as_deref().unwrap_or(&UNTUNED)
    }

    pub fn speed(&self) -> f64 {
        self.tuning().speed
    }

    pub fn procspeed(&self) -> u64 {
        self.tuning().procspeed
    }

    pub(crate) fn capacity(&self) -> Res {
        Res {
            procs: self.procs,
            mem: self.mem,
            swap: self.swap,
            disk: self.disk,
        }
    }
}

/// Maui 3.3.1's MINRESOURCE memory tier of a node of `mem` MB (MSched.c `MJobAllocMNL`
/// walks 64, 128, ... 8192 MB and takes every node left at 8192): the tiers are taken
/// smallest first.
pub fn maui_memory_tier(mem: u64) -> u64 {
    (6..=13)
        .map(|b| 1u64 << b)
        .find(|&m| mem <= m)
        .unwrap_or(8192)
}

/// NODEACCESSPOLICY.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NodeAccess {
    /// Tasks of different jobs may share a node.
    #[default]
    Shared,
    /// A node runs one job at a time.
    SingleJob,
    /// A node runs one task at a time: a job takes a whole node for each task.
    SingleTask,
    /// A node runs the jobs of one user at a time, any number of them. As Maui 3.3.1 does it
    /// (MJob.c `MJobGetSNRange`), a job finds a node unavailable for as long as a job or job
    /// reservation of another user overlaps its run there; the backfill windows, measured
    /// for a pseudo-job of every user, do not see it.
    SingleUser,
}

impl NodeAccess {
    /// Whether a node runs one job at a time (SINGLEJOB or SINGLETASK).
    pub fn is_exclusive(self) -> bool {
        matches!(self, NodeAccess::SingleJob | NodeAccess::SingleTask)
    }

    /// The tasks of a job a node may hold, of the `fit` its resources allow.
    pub(crate) fn tasks_per_node(self, fit: u64) -> u64 {
        if self == NodeAccess::SingleTask {
            fit.min(1)
        } else {
            fit
        }
    }
}

/// NODEALLOCATIONPOLICY (guide 5.2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AllocationPolicy {
    FirstAvailable,
    /// Best fit in time: the smallest gap between the job's end and the node's next
    /// reservation; then the fewest free processors (best fit in space); then node order.
    #[default]
    LastAvailable,
    MinResource,
    CpuLoad,
    Priority,
    Fastest,
    MaxBalance,
    Contiguous,
    /// The site's own [`NodeAllocator`].
    Local,
}

impl AllocationPolicy {
    pub const ALL: [AllocationPolicy; 9] = [
        AllocationPolicy::FirstAvailable,
        AllocationPolicy::LastAvailable,
        AllocationPolicy::MinResource,
        AllocationPolicy::CpuLoad,
        AllocationPolicy::Priority,
        AllocationPolicy::Fastest,
        AllocationPolicy::MaxBalance,
        AllocationPolicy::Contiguous,
        AllocationPolicy::Local,
    ];

    pub fn name(self) -> &'static str {
        match self {
            AllocationPolicy::FirstAvailable => "FIRSTAVAILABLE",
            AllocationPolicy::LastAvailable => "LASTAVAILABLE",
            AllocationPolicy::MinResource => "MINRESOURCE",
            AllocationPolicy::CpuLoad => "CPULOAD",
            AllocationPolicy::Priority => "PRIORITY",
            AllocationPolicy::Fastest => "FASTEST",
            AllocationPolicy::MaxBalance => "MAXBALANCE",
            AllocationPolicy::Contiguous => "CONTIGUOUS",
            AllocationPolicy::Local => "LOCAL",
        }
    }

    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(s))
    }
}

/// What each task of a job needs from the node it runs on, beyond the job's total
/// processors (`QueuedJob::procs` = tasks × `procs_per_task`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Request {
    pub procs_per_task: u32,
    /// MB per task of memory, swap and disk (0 = none asked).
    pub mem: u32,
    pub swap: u32,
    pub disk: u32,
    /// Features every node of the job must have.
    pub features: FeatureMask,
    /// Features the job prefers (PREF): the PRIORITYF `PREF` term.
    pub pref: FeatureMask,
}

impl Default for Request {
    fn default() -> Self {
        Request {
            procs_per_task: 1,
            mem: 0,
            swap: 0,
            disk: 0,
            features: 0,
            pref: 0,
        }
    }
}

impl Request {
    pub(crate) fn per_task(&self) -> Res {
        Res {
            procs: u64::from(self.procs_per_task.max(1)),
            mem: u64::from(self.mem),
            swap: u64::from(self.swap),
            disk: u64::from(self.disk),
        }
    }
}

/// A node the LOCAL policy may choose, with how many of the job's tasks it can host for
/// the whole of the job's planned interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeCandidate {
    pub node: u32,
    pub tasks: u64,
    /// Processors free on the node at the planned start.
    pub free_procs: u64,
}

/// The LOCAL node allocation policy: a site's own choice among the nodes that can host
/// the job (guide 5.2.2.9). Returned pairs are (node, tasks); the tasks must sum to
/// `tasks`, and each node must be a candidate with at least that many. A choice that
/// breaks these rules is ignored, and the job is treated as not fitting there.
pub trait NodeAllocator: Send + Sync + fmt::Debug {
    fn select(
        &self,
        spec: &MachineSpec,
        tasks: u64,
        candidates: &[NodeCandidate],
    ) -> Option<Vec<(u32, u64)>>;
}

/// The whole machine and how it is allocated.
#[derive(Debug, Clone)]
pub struct MachineSpec {
    pub nodes: Vec<NodeSpec>,
    pub access: NodeAccess,
    pub allocation: AllocationPolicy,
    /// NODECFG[DEFAULT] PRIORITYF: the function of nodes without their own.
    pub priority_f: Option<Arc<PriorityFn>>,
    pub local: Option<Arc<dyn NodeAllocator>>,
    /// Standing reservations (and a scenario's admin reservations), holding whole nodes.
    pub standing: Vec<crate::standing::StandingReservation>,
    /// JOBNODEMATCHPOLICY EXACTNODE: every job takes one task per node (Maui 3.3.1 sets a
    /// trace job's node count to its task count), the rest of each node staying shared.
    pub one_task_per_node: bool,
    /// NODESETPOLICY & co. (FEATURE sets, as Maui 3.3.1 applies them), when on.
    pub node_sets: Option<NodeSets>,
    /// Per node, its start limits (MAXJOBPERUSER, MAXPROCPERUSER, MAXPROC); empty when no
    /// node has any, so that a node's record does not grow for them.
    pub start_limits: Vec<StartLimits>,
    /// Per node, NODECFG MAXPEPERJOB's cap on the tasks of a job starting there now
    /// (`u32::MAX`: none; 0: no job starts there), which 3.3.1 applies as it applies the
    /// start limits, but not to a job of a DEDICATED QOS (MNode.c `MNodeCheckPolicies`):
    /// its reservations take the node's room. Empty unless a node has one.
    pub task_caps: Vec<u32>,
}

/// NODESETPOLICY: how a job's nodes are held to one node set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeSetPolicy {
    OneOf,
    AnyOf,
    FirstOf,
}

/// NODESETPRIORITYTYPE: which adequate set a job's nodes come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeSetPriority {
    /// The set with the fewest available tasks (the first on a tie).
    BestFit,
    /// The set with the most (the first on a tie).
    WorstFit,
    /// The first in NODESETLIST order.
    BestResource,
    /// MINLOSS (the default): on FEATURE sets 3.3.1 takes the last adequate set in list
    /// order (its `break` leaves only the switch, MSched.c `MJobSelectResourceSet`).
    MinLoss,
}

/// Node sets by node feature as Maui 3.3.1 applies them
/// (reports/research/maui-3.3.1-partitions-and-node-sets.md, B). Best effort (NODESETDELAY
/// 0): a job may use only the nodes of the features whose nodes can hold all its tasks
/// (every feature counts, not only NODESETLIST's, a 3.3.1 defect), any node when none can;
/// and where it starts or is reserved, its nodes come from one NODESETLIST set with room for
/// all its tasks, when one has, chosen by NODESETPRIORITYTYPE. Mandatory (NODESETDELAY above
/// 0, for ever in 3.3.1): a job starts or is reserved only where one set has room for all
/// its tasks (ANYOF: where the nodes of the sets together have), and takes its nodes from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeSets {
    pub policy: NodeSetPolicy,
    pub priority: NodeSetPriority,
    /// NODESETLIST's features that some node has, in list order.
    pub sets: Vec<FeatureMask>,
    /// Every feature some node has.
    pub every_feature: FeatureMask,
    /// NODESETDELAY above 0.
    pub mandatory: bool,
}

impl MachineSpec {
    /// `nodes` identical nodes of `procs_per_node` processors, nothing else configured.
    pub fn homogeneous(nodes: u64, procs_per_node: u64) -> Self {
        MachineSpec {
            nodes: vec![NodeSpec::with_procs(procs_per_node); nodes as usize],
            access: NodeAccess::Shared,
            allocation: AllocationPolicy::default(),
            priority_f: None,
            local: None,
            standing: Vec::new(),
            one_task_per_node: false,
            node_sets: None,
            start_limits: Vec::new(),
            task_caps: Vec::new(),
        }
    }

    /// Node `n`'s MAXPEPERJOB cap on the tasks of a job starting there now
    /// ([`MachineSpec::task_caps`]); none for a job of a DEDICATED QOS.
    pub(crate) fn task_cap_of(&self, n: usize, dedicated: bool) -> u64 {
        match (dedicated, self.task_caps.get(n)) {
            (false, Some(&cap)) => u64::from(cap),
            _ => u64::MAX,
        }
    }

    /// Node `n`'s start limits ([`MachineSpec::start_limits`]).
    pub(crate) fn start_limits_of(&self, n: usize) -> StartLimits {
        self.start_limits.get(n).copied().unwrap_or_default()
    }

    /// The tasks of a job a node may hold, of the `fit` its resources allow: NODEACCESSPOLICY
    /// and JOBNODEMATCHPOLICY EXACTNODE cap them.
    pub(crate) fn tasks_per_node(&self, fit: u64) -> u64 {
        let tasks = self.access.tasks_per_node(fit);
        if self.one_task_per_node {
            tasks.min(1)
        } else {
            tasks
        }
    }

    pub fn total_procs(&self) -> u64 {
        self.nodes.iter().map(|n| n.procs).sum()
    }

    /// Which of memory, swap and disk some node configures: a request for a resource no
    /// node configures is not modelled (traces ask for memory the machine file never
    /// mentions), one for a configured resource binds on every node.
    pub(crate) fn tracked(&self) -> Res {
        let any = |f: fn(&NodeSpec) -> u64| u64::from(self.nodes.iter().any(|n| f(n) > 0));
        Res {
            procs: 1,
            mem: any(|n| n.mem),
            swap: any(|n| n.swap),
            disk: any(|n| n.disk),
        }
    }

    /// What a task of `request` needs of a node, counting only the `tracked` resources.
    pub(crate) fn per_task_need(request: &Request, tracked: Res) -> Res {
        let r = request.per_task();
        Res {
            procs: r.procs,
            mem: r.mem * tracked.mem,
            swap: r.swap * tracked.swap,
            disk: r.disk * tracked.disk,
        }
    }

    /// Whether node `n` could ever host a task needing `need` (features, partition, size).
    #[inline]
    pub(crate) fn can_host(
        &self,
        n: usize,
        need: Res,
        features: FeatureMask,
        partition: u32,
    ) -> bool {
        let node = &self.nodes[n];
        node.features & features == features
            && (partition == 0 || node.partition == 0 || node.partition == partition)
            && need.procs <= node.procs
            && need.mem <= node.mem
            && need.swap <= node.swap
            && need.disk <= node.disk
    }

    /// Whether every job of the given requests can use every node as a pool of
    /// interchangeable processors: then a processor count over time decides every start
    /// exactly (any set of free processors will do), and nodes are only bookkeeping.
    pub fn pools_processors<'a>(
        &self,
        mut requests: impl Iterator<Item = (&'a Request, u32)>,
    ) -> bool {
        let uniform = |f: fn(&NodeSpec) -> u64| self.nodes.windows(2).all(|w| f(&w[0]) == f(&w[1]));
        let common_features = self.nodes.iter().fold(!0, |acc, n| acc & n.features);
        let one_partition = uniform(|n| u64::from(n.partition));
        let single_proc_nodes = self.nodes.iter().all(|n| n.procs == 1);
        let t = self.tracked();
        self.standing.is_empty()
            && self.node_sets.is_none()
            && self.nodes.iter().all(|n| n.max_jobs == 0 || n.procs == 1)
            && self.start_limits.iter().all(StartLimits::is_none)
            && self.task_caps.is_empty()
            && (self.access == NodeAccess::Shared || single_proc_nodes)
            && (!self.one_task_per_node || single_proc_nodes)
            && !matches!(
                self.allocation,
                AllocationPolicy::Contiguous | AllocationPolicy::Local
            )
            && requests.all(|(r, partition)| {
                let need = Self::per_task_need(r, t);
                need.procs <= 1
                    && need.mem == 0
                    && need.swap == 0
                    && need.disk == 0
                    && r.features & common_features == r.features
                    && (partition == 0 || one_partition)
            })
    }
}

/// How many tasks needing `per_task` fit in `free`.
#[inline]
pub(crate) fn tasks_within(free: Res, per_task: Res) -> u64 {
    let mut n = free.procs / per_task.procs.max(1);
    for (have, need) in [
        (free.mem, per_task.mem),
        (free.swap, per_task.swap),
        (free.disk, per_task.disk),
    ] {
        if let Some(k) = have.checked_div(need) {
            n = n.min(k);
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A machine may have tens of thousands of nodes: one stays within 56 bytes.
    #[test]
    fn a_node_stays_small() {
        assert!(std::mem::size_of::<NodeSpec>() <= 56);
    }

    #[test]
    fn a_nodes_tuning_is_kept_only_where_it_differs_from_none() {
        let plain = NodeSpec::with_procs(4);
        assert_eq!((plain.speed(), plain.procspeed()), (1.0, 0));
        let untuned = plain.clone().tuned(NodeTuning::default());
        assert!(untuned.tuning.is_none());
        let fast = plain.clone().with_speed(2.0);
        assert_eq!((fast.speed(), fast.tuning().load), (2.0, 0.0));
        assert_ne!(fast, plain);
        assert_eq!(fast.clone().with_speed(1.0), plain, "back to none");
        let boxed_default = NodeSpec {
            tuning: Some(Box::default()),
            ..plain.clone()
        };
        assert_eq!(boxed_default, plain, "equal however the tuning is held");
    }
}
