//! The machine's state over time: which node holds which job's tasks, and what every
//! running job and reservation takes, now and in the future.
//!
//! Two modes, chosen once per run ([`MachineSpec::pools_processors`]):
//! - **pooled**: every job can use every node as interchangeable processors (SHARED
//!   access, one processor per task, no memory, swap, disk or feature that binds). Then a
//!   processor count over time ([`Profile`]) decides every start exactly, because a
//!   running job only ever releases processors and the tasks of jobs starting at or after
//!   `now` can always be laid on whichever processors are free when they start. Nodes are
//!   bookkeeping: the allocation policy picks, among the nodes free now, where the tasks
//!   go. Reservations are processor counts.
//! - **per node**: every node keeps its claims (running jobs, reservations, standing
//!   reservations) as intervals with the resources they take; a job fits where enough
//!   nodes can host its tasks for its whole planned interval, and reservations are laid
//!   on the nodes the allocation policy picks. The pooled profile is kept as well: its
//!   processor count bounds every node question from above and rejects most at once.
//!
//! In both modes the nodes with free processors are indexed (all of them, and by how many
//! processors are free) so that a decision visits the free nodes, not the machine.

mod allocate;
mod available;
mod busy_by_load;
mod carried;
mod free_index;
mod node_bitmap;
mod placement;
mod start_merge;

use crate::check::{Rule, Violation};
use crate::job::{JobIdx, QueuedJob};
use crate::node::{
    tasks_within, AllocationPolicy, FeatureMask, MachineSpec, NodeAccess, NodeCandidate, Res,
};
use crate::profile::{Profile, Window, FOREVER};
use crate::slots::{merge_ranges, SlotPool, SlotRange};
use crate::Time;
use allocate::{contiguous, largest_block, take_in_order};
use carried::{Carried, CarriedSearches, Found, LaidCarried, NoNodeSet, SearchKey};
use node_bitmap::NodeBitmap;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use std::sync::Arc;

/// Where a job's tasks are: (node, tasks) in the order the policy chose the nodes.
pub type Allocation = Vec<(u32, u64)>;

/// What decides where a job fits besides its size: its request, partition, the standing
/// reservations it may use, the node sets it may use, the backfill window it is offered,
/// whether it holds nodes whole, and its user where nodes are SINGLEUSER.
type MisfitShape = (crate::node::Request, u32, (u64, u64), u64, Time, bool, u32);

/// A node's claims: a running job and a reservation or two, in place (a node of many
/// processors spills to the heap).
type NodeClaims = smallvec::SmallVec<[Claim; 2]>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owner {
    Job(JobIdx),
    Held(u32),
    /// A window of standing reservation `k` of [`MachineSpec::standing`].
    Standing(u32),
}

/// What one job, reservation or standing reservation takes on one node over an interval.
#[derive(Debug, Clone, Copy)]
struct Claim {
    start: Time,
    end: Time,
    takes: Res,
    owner: Owner,
    /// A job's or reservation's claim: the standing reservations its job may use (bit `k`
    /// for reservation `k`), whose windows it may overlap.
    may_use: u64,
}

/// The user of a claim that is no job's, and of a question asked for every user (a backfill
/// window's pseudo-job).
const NO_USER: u32 = u32::MAX;

/// The user `job` runs as, for NODEACCESSPOLICY SINGLEUSER.
fn user_of(job: &QueuedJob) -> u32 {
    job.creds.get(crate::cred::CredKind::User).0
}

impl Claim {
    /// Whether the claim keeps a job that may use the standing reservations of `may_use`
    /// off the node: a standing reservation's window does not keep its own jobs off.
    fn binds(&self, may_use: u64) -> bool {
        match self.owner {
            Owner::Standing(k) => may_use & (1 << k) == 0,
            _ => true,
        }
    }
}

#[derive(Debug, Clone)]
struct Placement {
    start: Time,
    end: Time,
    procs: u64,
    per_task: Res,
    nodes: Allocation,
    /// On a uniform pooled machine: the processor slots instead of `nodes`.
    slots: Vec<SlotRange>,
    /// A DEDICATED job's: it holds its nodes whole.
    whole: bool,
    /// The standing reservations its job may use for a short run only.
    short: u64,
    /// Its job's user, which NODEACCESSPOLICY SINGLEUSER keeps other users off by.
    user: u32,
}

/// A job's tasks placed for this iteration only (a reservation).
#[derive(Debug, Clone)]
struct Held {
    start: Time,
    end: Time,
    procs: u64,
    nodes: Allocation,
    live: bool,
    /// The node partition it was placed within (0: none asked).
    within: u32,
    /// The standing reservations its job may use for a short run only.
    short: u64,
    /// Its job's user, as [`Placement::user`].
    user: u32,
    /// A DEDICATED job's: it holds its nodes whole, and never lies over another claim.
    whole: bool,
}

/// Handle of a reservation made by [`Machine::reserve`], valid until released.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeldId(u32);

/// Why a job can never run on this machine, even empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unfit {
    /// Fewer processors (in nodes that satisfy the job) than it asks for.
    Procs {
        asked: u64,
        available: u64,
    },
    /// No node has as many processors as one of its tasks asks for.
    TaskProcs {
        per_task: u64,
        largest: u64,
    },
    /// No node has the memory one of its tasks asks for.
    Mem {
        per_task: u64,
        largest: u64,
    },
    Swap {
        per_task: u64,
        largest: u64,
    },
    Disk {
        per_task: u64,
        largest: u64,
    },
    /// No node has all the features it requires (or is in its partition).
    Features,
    /// No node set holds all its tasks, where node sets are mandatory (`largest`: the most
    /// processors one holds).
    NodeSets {
        asked: u64,
        largest: u64,
    },
    /// The nodes' start limits let fewer of its processors start together, with nothing
    /// running, than it asks for.
    StartLimits {
        asked: u64,
        available: u64,
    },
}

#[derive(Debug, Clone)]
pub struct Machine {
    spec: Arc<MachineSpec>,
    pooled: bool,
    origin: Time,
    profile: Profile,
    /// Processors of each node no running job holds (a job past its planned end still
    /// holds them until it ends; it may go negative for that instant).
    free: Vec<i64>,
    jobs_on: Vec<u32>,
    /// Nodes with free processors, in node order, and (pooled processors on unlike nodes
    /// only) by free processors.
    free_set: NodeBitmap,
    by_free: Vec<BTreeSet<u32>>,
    /// The nodes of `free_set` without a claim ahead (free until a job takes them), and
    /// their free processors summed.
    free_plain: NodeBitmap,
    plain_procs: i64,
    /// Per node (per-node mode): claims that are not running jobs (reservations and
    /// standing reservations), the only claims that can start after now.
    ahead: Vec<u32>,
    /// Per node (per-node mode): what the running jobs' claims take, summed.
    running_use: Vec<Res>,
    /// The nodes with a claim ahead. Every other node is free from when its running jobs
    /// end until a job takes it, so that node questions visit these nodes one by one and
    /// take the others in bulk.
    ahead_nodes: NodeBitmap,
    running: BTreeMap<JobIdx, Placement>,
    /// Running jobs by planned end, to find those whose end has come but not been told.
    by_end: BTreeSet<(Time, JobIdx)>,
    busy_since: Vec<Option<Time>>,
    busy_total: Vec<Time>,
    /// Per node: claims (per-node mode only).
    claims: Vec<NodeClaims>,
    /// The standing reservations' windows that hold nodes now: (reservation, start, end).
    standing_held: Vec<(u32, Time, Time)>,
    /// The standing reservations with an access list (bit `k` for reservation `k`).
    listed_standing: u64,
    held: Vec<Held>,
    /// The last iteration's reservations, left laid (claims, processor count, claims
    /// ahead) for this iteration to take again as they were (see [`Machine::keeps_laid`]):
    /// `held[i]` is `laid[i]` taken again, and the rest are released before any other
    /// question is asked ([`Machine::settle`]).
    laid: Vec<Held>,
    /// Whether the scheduler lets reservations stay laid between iterations.
    leaves_laid: bool,
    /// Some node of several processors has a MAXJOB.
    job_capped: bool,
    /// Some node has a MAXJOBPERUSER, MAXPROCPERUSER, MAXPROC or load limit
    /// ([`crate::node::StartLimits`]).
    start_capped: bool,
    /// The nodes Busy by their load, where some node has a load limit.
    busy_by_load: Option<Box<busy_by_load::BusyByLoad>>,
    /// A question about starting a job now is being answered: the nodes' start limits
    /// count (see [`crate::node::StartLimits`]).
    starting_now: std::cell::Cell<bool>,
    /// Nodes are SINGLEUSER, `job_capped` or `start_capped`: a node question checks
    /// [`Self::keeps_off`].
    node_rules: bool,
    /// Node sets, Maui's order on nodes of several processors or start limits: a node
    /// question checks them ([`Self::hostable_by_room_checked`]); one flag, so that the
    /// usual machine pays one test per node question.
    node_checks: bool,
    /// Per node: the nodes each job's reservation held in the last iteration, so that a
    /// reserved job starts where it was promised while they can still host it (another
    /// job placed by the policy around that promise relies on it).
    promised: BTreeMap<JobIdx, Allocation>,
    promising: BTreeMap<JobIdx, Allocation>,
    /// Nodes ordered as Maui 3.3.1 orders them (see `allocate::order_key`).
    maui_order: bool,
    /// Whether a reserved job starts where it was promised (see `promised`); Maui 3.3.1
    /// drops a CURRENTHIGHEST reservation before the next iteration places the job anew.
    keeps_promises: bool,
    /// Every node question answered by visiting every node (the shortcuts' reference, for
    /// differential tests).
    exhaustive: bool,
    /// Whether some node belongs to a partition (else a job's partition restricts nothing).
    divided: bool,
    /// [`Machine::keeps_laid`]'s last answer (rank, job, instant, version of the machine,
    /// the carried bound and moved nodes), for the reservation that follows it.
    laid_verdict: Option<(usize, JobIdx, Time, u64, LaidCarried)>,
    /// Changes to claims so far: what `misfits` is valid for.
    version: u64,
    /// Changes to claims ahead so far: what `ranked_ahead` is valid for.
    ahead_version: u64,
    /// Changes to running jobs so far (starts, ends, extensions), and to the standing
    /// reservations' windows: what carried reservation searches are valid for.
    running_version: u64,
    /// The changes of `running_version` other than starts.
    running_changes_but_starts: u64,
    /// The reservations of the last iteration, carried to this one (see
    /// [`CarriedSearches`]).
    carried: CarriedSearches,
    /// Maui 3.3.1's simulation-mode job lists of the nodes, which the start limits count
    /// under `maui-3.3.1` (see [`JobLists`]).
    job_lists: Option<JobLists>,
    /// The nodes with a claim ahead ranked at an instant (see [`Machine::rank_ahead`]).
    ranked_ahead: std::cell::RefCell<RankedAhead>,
    /// Job shapes that did not fit at (version, now): (shape, procs, wcl).
    #[allow(clippy::type_complexity)]
    misfits: std::cell::RefCell<((u64, Time), Vec<(MisfitShape, u64, Time)>)>,
    /// Identical nodes with pooled processors: slot ranges replace the node index.
    slots: Option<SlotPool>,
    /// Which of memory, swap and disk bind ([`MachineSpec::tracked`]).
    tracked: Res,
    /// The most memory, swap and disk any node has.
    largest: Res,
    /// Processor-seconds each node ran jobs for (per node; on a uniform pooled machine
    /// a difference array over processor slots).
    busy: Vec<i64>,
    /// The node partition every question about a job is asked within (0: the job's own,
    /// from the trace): Maui 3.3.1 schedules one partition at a time.
    within: u32,
    /// Whether the machine is divided into Maui partitions (no search is carried then:
    /// a reservation is searched for in each partition the job may use).
    partitioned: bool,
    /// The node-set features a job may use (0: any node), by (request, partition, tasks).
    #[allow(clippy::type_complexity)]
    set_features:
        std::cell::RefCell<std::collections::HashMap<(crate::node::Request, u32, u64), u64>>,
    /// While a placement is held to one node set: its feature (0: none).
    placing_in: std::cell::Cell<u64>,
    /// While a reservation's earliest placement is searched for.
    searching_reservation: std::cell::Cell<bool>,
    /// While that search places the job at the start it found (rather than counts the
    /// tasks each node could hold from some start).
    placing_found_start: std::cell::Cell<bool>,
    /// While a reservation is placed at a start found, or held again as it was: 3.3.1
    /// gives each node of several processors the tasks free at the start
    /// ([`Machine::holds_free_at_start`]).
    at_found_start: std::cell::Cell<bool>,
    /// The instant that search is made at.
    search_now: std::cell::Cell<Time>,
    /// Whether the current reservation search counted, at any instant, fewer tasks than a
    /// start then would find, by 3.3.1's start ranges ([`Machine::start_range_tasks`]).
    fewer_than_a_start: std::cell::Cell<bool>,
    /// The most tasks the last search counted at any instant before the start it found.
    search_most: std::cell::Cell<u64>,
    /// Whether 3.3.1's merge of start ranges decided the last search (`merged_start`).
    search_merged: std::cell::Cell<bool>,
    /// While backfill fills one window, (now, `shorter`): with node sets, a job is offered
    /// only the window's nodes (3.3.1's BFNodeList, those free now for longer than
    /// `shorter`), and its sets are judged by what they hold there.
    backfill_window: std::cell::Cell<Option<(Time, Time)>>,
    /// The window's nodes with what each had free when the window opened (3.3.1 judges
    /// sets by that list all through the window, starts in it notwithstanding), and the
    /// sets a job may use there, by (job, window).
    window_nodes: Vec<(u32, Res)>,
    #[allow(clippy::type_complexity)]
    window_sets: std::cell::RefCell<Option<((JobIdx, Time, Time, u32), u64)>>,
    /// [`Machine::can_ever_run`] by (request, partition): jobs repeat a few shapes.
    capacity: std::collections::HashMap<(crate::node::Request, u32), u64>,
    /// The allocation policy in place of NODEALLOCATIONPOLICY for the questions asked now
    /// (see [`Machine::allocate_by`]).
    allocation_override: Option<AllocationPolicy>,
    /// Whether some node has several processors: there 3.3.1's available time of a node
    /// ([`Machine::maui_available_for`]) is not simply the time until its next claim.
    several_procs: bool,
    /// On nodes of several processors under Maui's order, the backfill windows' nodes
    /// ranked (see [`Machine::ranked_windows`]).
    window_ranking: std::cell::RefCell<Option<Rc<WindowRanking>>>,
    /// While backfill fills a window on such nodes: the ranking it opened with, and the
    /// instant and the limit the nodes' windows must last longer than to be in it (3.3.1's
    /// BFNodeList).
    window_members: Option<(Rc<WindowRanking>, Time, Time)>,
    /// Per node: a stamp that changes whenever its claims or free processors do, and the
    /// last window computed for it with the stamp, the instants it holds for (until its
    /// next claim starts or ends), its free processors and its end.
    node_stamp: Vec<u64>,
    touches: u64,
    /// The nodes touched since `touches` was `touch_log_from`, in order (cleared when it
    /// grows as long as the machine; kept on nodes of several processors only): what a
    /// window ranking made since has to look at again.
    touch_log: Vec<u32>,
    touch_log_from: u64,
    /// Empty until first asked: only Maui's per-node windows use it (48 bytes a node).
    window_cache: std::cell::RefCell<Vec<Option<CachedWindow>>>,
    /// Per-node mode on nodes of several processors: the nodes (of at least one
    /// processor) without any claim, and their processors summed. Such a node is free for
    /// ever with all its processors, so that Maui's rankings of the free nodes, which
    /// only such machines make, take them in bulk.
    idle: NodeBitmap,
    idle_procs: i64,
}

/// Every node with processors free now and the end of its backfill window, for the
/// instant, partition and claims it was taken at. A window holds the nodes whose window
/// lasts longer than its limit: they are filtered, not sorted (a window's processors are a
/// sum and its length a minimum).
#[derive(Debug, Clone)]
struct WindowRanking {
    version: u64,
    /// [`Machine::touches`] when the ranking was made.
    touches: u64,
    at: Time,
    /// Until when every node's window and place stand without a touch (the first instant a
    /// claim on a node visited begins or ends), and the nodes of jobs past their planned
    /// end at `at`.
    valid_until: Time,
    freed: Vec<u32>,
    within: u32,
    /// The nodes whose window ends: (end, free processors, node), in no order.
    nodes: Vec<(Time, i64, u32)>,
    /// The nodes whose window never ends (in no order) but those of `idle`, with their
    /// free processors.
    forever: Vec<(u32, i64)>,
    /// The idle nodes when the ranking was made, where it took them in bulk.
    idle: Option<NodeBitmap>,
    /// The free processors of `forever`, and those with the processors of `idle`'s nodes.
    forever_free: i64,
    forever_procs: i64,
    /// Each node's place in `nodes`, or ([`WindowRanking::IN_FOREVER`] set) in `forever`
    /// ([`WindowRanking::NEITHER`]: neither).
    rank_of: Vec<u32>,
}

impl WindowRanking {
    const IN_FOREVER: u32 = 1 << 31;
    const NEITHER: u32 = u32::MAX;

    /// Whether node `n` is in `forever`.
    fn is_forever(&self, n: usize) -> bool {
        let rank = self.rank_of[n];
        rank != Self::NEITHER && rank & Self::IN_FOREVER != 0
    }

    /// Adds node `n` with its window (free processors and end).
    fn add(&mut self, n: u32, (free, until): (i64, Time)) {
        if until >= FOREVER {
            // Most free nodes: one sum, not a sort.
            self.rank_of[n as usize] = Self::IN_FOREVER | self.forever.len() as u32;
            self.forever.push((n, free));
            self.forever_free += free;
        } else {
            self.rank_of[n as usize] = self.nodes.len() as u32;
            self.nodes.push((until, free, n));
        }
    }

    /// Takes node `n` out, if in.
    fn remove(&mut self, n: u32) {
        let rank = std::mem::replace(&mut self.rank_of[n as usize], Self::NEITHER);
        if rank == Self::NEITHER {
            return;
        }
        if rank & Self::IN_FOREVER != 0 {
            let k = (rank & !Self::IN_FOREVER) as usize;
            self.forever_free -= self.forever[k].1;
            self.forever.swap_remove(k);
            if let Some(&(moved, _)) = self.forever.get(k) {
                self.rank_of[moved as usize] = Self::IN_FOREVER | k as u32;
            }
        } else {
            let k = rank as usize;
            self.nodes.swap_remove(k);
            if let Some(&(_, _, moved)) = self.nodes.get(k) {
                self.rank_of[moved as usize] = k as u32;
            }
        }
    }
}

/// A node's backfill window as [`Machine::node_window`] found it (see `window_cache`).
#[derive(Debug, Clone, Copy)]
struct CachedWindow {
    stamp: u64,
    from: Time,
    to: Time,
    free: i64,
    until: Time,
}

impl Machine {
    /// The machine of `spec`, empty from `origin` on; `pooled` as decided by
    /// [`MachineSpec::pools_processors`] over the jobs it will run.
    pub(crate) fn new(spec: Arc<MachineSpec>, origin: Time, pooled: bool) -> Self {
        let pooled = pooled && spec.standing.is_empty();
        let n = spec.nodes.len();
        let uniform = pooled && spec.nodes.windows(2).all(|w| w[0] == w[1]);
        let max_procs = spec.nodes.iter().map(|s| s.procs).max().unwrap_or(0) as usize;
        let job_capped = spec.nodes.iter().any(|n| n.max_jobs > 0 && n.procs > 1);
        let start_capped =
            spec.start_limits.iter().any(|l| !l.is_none()) || !spec.task_caps.is_empty();
        let slots = uniform.then(|| {
            let ppn = spec.nodes.first().map_or(1, |n| n.procs);
            SlotPool::new(spec.total_procs(), ppn)
        });
        let mut m = Machine {
            profile: Profile::new(spec.total_procs(), origin),
            pooled,
            origin,
            free: spec.nodes.iter().map(|s| s.procs as i64).collect(),
            jobs_on: vec![0; n],
            free_set: NodeBitmap::new(n),
            by_free: vec![BTreeSet::new(); if pooled && !uniform { max_procs + 1 } else { 0 }],
            free_plain: NodeBitmap::new(n),
            plain_procs: 0,
            ahead: if pooled { Vec::new() } else { vec![0; n] },
            running_use: if pooled {
                Vec::new()
            } else {
                vec![Res::default(); n]
            },
            ahead_nodes: NodeBitmap::new(n),
            running: BTreeMap::new(),
            by_end: BTreeSet::new(),
            busy_since: vec![None; n],
            busy_total: vec![0; n],
            claims: if pooled {
                Vec::new()
            } else {
                vec![NodeClaims::new(); n]
            },
            standing_held: Vec::new(),
            listed_standing: spec.standing.iter().enumerate().fold(0, |mask, (k, sr)| {
                mask | u64::from(sr.has_access_list()) << k
            }),
            held: Vec::new(),
            laid: Vec::new(),
            leaves_laid: false,
            job_capped,
            start_capped,
            busy_by_load: busy_by_load::BusyByLoad::new(&spec),
            starting_now: Default::default(),
            node_checks: true,
            node_rules: spec.access == NodeAccess::SingleUser || job_capped || start_capped,
            promised: BTreeMap::new(),
            promising: BTreeMap::new(),
            maui_order: false,
            keeps_promises: true,
            exhaustive: false,
            divided: spec.nodes.iter().any(|n| n.partition != 0),
            laid_verdict: None,
            version: 0,
            ahead_version: 0,
            running_version: 0,
            running_changes_but_starts: 0,
            carried: CarriedSearches::default(),
            job_lists: None,
            ranked_ahead: std::cell::RefCell::new(RankedAhead {
                ahead_version: 0,
                at: Time::MIN,
                horizon: Time::MIN,
                may_use: 0,
                nodes: Vec::new(),
                runs: Vec::new(),
                run_of: Vec::new(),
            }),
            misfits: std::cell::RefCell::new(((0, Time::MIN), Vec::new())),
            slots,
            busy: vec![
                0;
                if uniform {
                    spec.total_procs() as usize + 1
                } else {
                    n
                }
            ],
            tracked: spec.tracked(),
            largest: spec.nodes.iter().fold(Res::default(), |m, n| Res {
                procs: m.procs.max(n.procs),
                mem: m.mem.max(n.mem),
                swap: m.swap.max(n.swap),
                disk: m.disk.max(n.disk),
            }),
            within: 0,
            partitioned: false,
            set_features: Default::default(),
            placing_in: Default::default(),
            searching_reservation: Default::default(),
            placing_found_start: Default::default(),
            at_found_start: Default::default(),
            search_now: Default::default(),
            fewer_than_a_start: Default::default(),
            search_merged: Default::default(),
            search_most: Default::default(),
            backfill_window: Default::default(),
            window_nodes: Vec::new(),
            window_sets: Default::default(),
            capacity: std::collections::HashMap::new(),
            several_procs: max_procs > 1,
            allocation_override: None,
            window_ranking: Default::default(),
            window_members: None,
            node_stamp: vec![0; n],
            touch_log: Vec::new(),
            touch_log_from: 0,
            touches: 0,
            window_cache: std::cell::RefCell::new(Vec::new()),
            idle: NodeBitmap::new(if pooled || max_procs <= 1 { 0 } else { n }),
            idle_procs: 0,
            spec,
        };
        if m.slots.is_none() {
            for i in 0..n {
                m.index(i as u32);
            }
        }
        if m.several_procs && !pooled {
            for i in 0..n {
                m.note_claims(i as u32);
            }
        }
        m.refresh_standing(origin);
        m.refresh_node_checks();
        m
    }

    /// Brings the standing reservations' windows up to `now`: those that exist at `now`
    /// (see [`StandingReservation::reserved_at`]) hold their nodes, the ended ones no more.
    fn refresh_standing(&mut self, now: Time) {
        if self.spec.standing.is_empty() {
            return;
        }
        let spec = Arc::clone(&self.spec);
        let wanted: Vec<(u32, Time, Time)> = spec
            .standing
            .iter()
            .enumerate()
            .flat_map(|(k, sr)| {
                let windows = sr.reserved_at(now);
                windows.into_iter().map(move |(s, e)| (k as u32, s, e))
            })
            .collect();
        if wanted == self.standing_held {
            return;
        }
        self.settle();
        let old = std::mem::take(&mut self.standing_held);
        // The processor count leaves the windows out (it bounds every job's node question
        // from above, and a window may be laid over jobs already running).
        for &(k, start, _) in old.iter().filter(|w| !wanted.contains(w)) {
            let sr = &spec.standing[k as usize];
            for &n in &sr.nodes {
                let same = |c: &Claim| c.owner == Owner::Standing(k) && c.start == start;
                self.claims[n as usize].retain(|c| !same(c));
                self.note_claims(n);
                self.touch(n);
                self.unclaim_ahead(n);
            }
        }
        for &(k, start, end) in wanted.iter().filter(|w| !old.contains(w)) {
            let sr = &spec.standing[k as usize];
            for (i, &n) in sr.nodes.iter().enumerate() {
                // Processors only: Maui's standing reservation holds no memory.
                let takes = Res {
                    procs: held_procs(&spec, sr, i),
                    ..Res::default()
                };
                self.claims[n as usize].push(Claim {
                    start,
                    end,
                    takes,
                    owner: Owner::Standing(k),
                    may_use: 0,
                });
                self.note_claims(n);
                self.touch(n);
                self.claim_ahead(n);
            }
        }
        self.standing_held = wanted;
        self.version += 1;
        // Carried reservation searches were made around the old windows.
        self.running_version += 1;
        self.running_changes_but_starts += 1;
    }

    /// The standing reservations `job` may use, as masks (bit `k` for reservation `k`):
    /// those it may use over any window, and those it may use over a window it runs
    /// inside for at most their time limit only (its whole run may take longer).
    pub(crate) fn standing_access(&self, job: &QueuedJob) -> (u64, u64) {
        let mut always = 0;
        let mut short = 0;
        for (k, sr) in self.spec.standing.iter().enumerate() {
            if sr.allows(&job.creds, job.procs, job.wcl) {
                always |= 1 << k;
            } else if let Some(t) = sr.access.max_time {
                if sr.allows(&job.creds, job.procs, t.limit) {
                    short |= 1 << k;
                }
            }
        }
        (always, short)
    }

    /// Whether `c` keeps off node `n` a job that may use the standing reservations of
    /// `may_use`, and of `short` over a window it runs inside for at most their time
    /// limit, over `[a, b)`: 3.3.1 judges the overlap with the claim's window of a run as
    /// long from where the node's range holding the window's start began
    /// ([`Self::range_start_before`]; MJob.c `MJobGetSNRange`).
    #[inline]
    fn binds_over(&self, n: usize, c: &Claim, may_use: u64, short: u64, a: Time, b: Time) -> bool {
        match c.owner {
            Owner::Standing(k) if short & (1 << k) != 0 => {
                self.short_run_binds(n, c, k, (may_use, short), (a, b))
            }
            _ => c.binds(may_use),
        }
    }

    /// [`Self::binds_over`] for a window the job may use for a short run only: out of line,
    /// so that the node questions, which ask `binds_over` of every claim, stay small.
    #[inline(never)]
    fn short_run_binds(
        &self,
        n: usize,
        c: &Claim,
        k: u32,
        masks: (u64, u64),
        (a, b): (Time, Time),
    ) -> bool {
        let from = self.range_start_before(n, c.start, (a, b), masks);
        self.runs_inside_too_long(c, k, from, from + (b - a))
    }

    /// Whether a run over `[a, b)` lies inside window `c` of standing reservation `k`
    /// for longer than its time limit (a window the run does not overlap is judged by
    /// its length, as 3.3.1 does).
    fn runs_inside_too_long(&self, c: &Claim, k: u32, a: Time, b: Time) -> bool {
        let overlap = b.min(c.end) - a.max(c.start);
        let inside = (b - a).min(if overlap > 0 {
            overlap
        } else {
            c.end - c.start
        });
        inside > self.standing_limit(k)
    }

    /// Where the available range that a walk of node `n` from `a` is building at instant
    /// `at` began: the last instant after `a` and before `at` where the claims on the node
    /// change what it offers (a job's or a reservation's start or end, a bound of a window
    /// that binds the job's run over `[a, b)`). 3.3.1 judges a job's access to a window it
    /// may use for a short run only (SRMAXTIME, TIMELIMIT) by the overlap from there, not
    /// from the job's start (MJob.c `MJobGetSNRange`: `ARange[rindex].StartTime +
    /// JDuration`), so a job whose run reaches only a little into a window is kept out of
    /// it where its range began after a job on the node ended. Its walk begins a range only
    /// once every event of an instant is counted: a change at `at` itself comes after the
    /// window's start is judged. (Every such change is taken as a cut; 3.3.1 goes on with a
    /// range where the free tasks stay the same, or grow past all the job asks at an
    /// instant it sees resources removed: not modelled.)
    fn range_start_before(
        &self,
        n: usize,
        at: Time,
        (a, b): (Time, Time),
        (may_use, short): (u64, u64),
    ) -> Time {
        let mut from = a;
        if at <= a {
            return from;
        }
        for c in &self.claims[n] {
            let changes = match c.owner {
                Owner::Standing(k) if short & (1 << k) != 0 => {
                    self.runs_inside_too_long(c, k, a, b)
                }
                Owner::Standing(_) => c.binds(may_use),
                _ => true,
            };
            if changes {
                for t in [c.start, c.end] {
                    if t > from && t < at {
                        from = t;
                    }
                }
            }
        }
        from
    }

    /// The run by which a job over `[a, b)` on node `n` is judged for the standing
    /// reservations it may use for a short run only. A reservation's search judges it as
    /// if it started where the node's free stretch holding `a` begins (3.3.1's
    /// `MJobGetSNRange` takes the overlap from the start of the available range it is
    /// building: from now on a node free now), so a node it may use only late in a window
    /// counts from a start now, when the node is still free then.
    fn judged_run(&self, n: usize, a: Time, b: Time, job: &QueuedJob) -> (Time, Time) {
        let counting = self.searching_reservation.get() && !self.placing_found_start.get();
        if job.standing_short == 0 || !counting {
            return (a, b);
        }
        let opens = self.claims[n]
            .iter()
            .filter(|c| !matches!(c.owner, Owner::Standing(_)) && c.end <= a)
            .map(|c| c.end)
            .fold(self.search_now.get(), Time::max);
        (opens, opens + (b - a))
    }

    /// Whether job or reservation claim `c` may be inside the window `w` of standing
    /// reservation `k` with time limit `limit` (by its overlap with it, for a job that may
    /// use the reservation for a short run only).
    fn claim_uses_window(&self, c: &Claim, k: u32, w: &Claim, limit: Time) -> bool {
        if c.may_use & (1 << k) != 0 {
            return true;
        }
        // Kept beside the claims (which stay one cache line each): the job's own mask.
        let short = match c.owner {
            Owner::Job(j) => self.running.get(&j).map_or(0, |p| p.short),
            Owner::Held(id) => {
                let held = self.held.get(id as usize).or(self.laid.get(id as usize));
                held.map_or(0, |h| h.short)
            }
            Owner::Standing(_) => 0,
        };
        if short & (1 << k) == 0 {
            return false;
        }
        let overlap = c.end.min(w.end) - c.start.max(w.start);
        (c.end - c.start).min(overlap.max(0)) <= limit
    }

    /// The time limit of standing reservation `k` (TIMELIMIT & co.); `Time::MAX` without one.
    fn standing_limit(&self, k: u32) -> Time {
        let access = &self.spec.standing[k as usize].access;
        access.max_time.map_or(Time::MAX, |t| t.limit)
    }

    /// Places jobs by `policy` instead of NODEALLOCATIONPOLICY until told otherwise
    /// (`None`): 3.3.1's backfill in a partition of the site's allocates by that
    /// partition's own setting, which the global one never reaches (MPar.c), so
    /// LASTAVAILABLE.
    pub(crate) fn allocate_by(&mut self, policy: Option<AllocationPolicy>) {
        self.allocation_override = policy;
    }

    fn allocation(&self) -> AllocationPolicy {
        self.allocation_override.unwrap_or(self.spec.allocation)
    }

    /// Orders nodes as Maui 3.3.1 does, and whether a reserved job is started on the nodes
    /// its last reservation held.
    pub(crate) fn set_node_order(&mut self, maui: bool, keeps_promises: bool) {
        self.maui_order = maui;
        self.keeps_promises = keeps_promises;
        self.refresh_node_checks();
    }

    /// Whether every question is answered the long way (to check the shortcuts against).
    /// Divides the machine into Maui partitions: from now on the scheduler says which one
    /// each question is asked within ([`Machine::restrict_to`]).
    pub(crate) fn set_partitioned(&mut self) {
        self.partitioned = true;
    }

    /// Asks every later question about a job within the nodes of partition number `p`
    /// (0: the job's own partition, from the trace).
    pub(crate) fn restrict_to(&mut self, p: u32) {
        self.within = p;
    }

    /// The node partition a question about `job` is asked within (0: none).
    fn partition_of(&self, job: &QueuedJob) -> u32 {
        if self.within != 0 {
            return self.within;
        }
        job.creds.partition.get().map_or(0, |p| p as u32 + 1)
    }

    pub(crate) fn is_exhaustive(&self) -> bool {
        self.exhaustive
    }

    /// Answers every node question by visiting every node (no shortcut).
    pub(crate) fn set_exhaustive(&mut self, exhaustive: bool) {
        self.exhaustive = exhaustive;
    }

    /// The first end of a standing reservation after `t`: nodes it held become free then
    /// without any job ending.
    ///
    /// A recurring reservation's windows count only for one cycle of them after
    /// `last_change`, the last instant the queue or the running jobs changed: a job that
    /// no window's end let in over a whole cycle never gets in.
    pub(crate) fn standing_end_after(&self, t: Time, last_change: Time) -> Option<Time> {
        let cycle = self.standing_cycle();
        let ends = self.spec.standing.iter().filter_map(|sr| {
            let end = sr.end_after(t)?;
            let recurring = sr.cycle() > 0;
            (!recurring || end <= last_change.saturating_add(cycle)).then_some(end)
        });
        ends.filter(|&end| end < FOREVER).min()
    }

    /// Whether the machine has standing reservations (a job may then never fit: one that
    /// no window's end lets in).
    pub fn has_standing(&self) -> bool {
        !self.spec.standing.is_empty()
    }

    /// After how long the standing reservations' windows repeat (0 without recurring
    /// ones).
    pub(crate) fn standing_cycle(&self) -> Time {
        let cycles = self.spec.standing.iter().map(|sr| sr.cycle());
        cycles.fold(0, |all, c| {
            if all == 0 {
                c
            } else if c == 0 {
                all
            } else {
                lcm(all, c)
            }
        })
    }

    /// The windows of the standing reservations that exist now: (reservation, start, end).
    pub fn standing_windows(&self) -> &[(u32, Time, Time)] {
        &self.standing_held
    }

    /// Whether processors are pooled (see the module documentation).
    pub(crate) fn is_pooled(&self) -> bool {
        self.pooled
    }

    /// Free processors over time, summed over nodes.
    pub(crate) fn profile(&self) -> &Profile {
        &self.profile
    }

    pub(crate) fn total_procs(&self) -> u64 {
        self.profile.total() as u64
    }

    /// Whether some node has start limits ([`crate::node::StartLimits`]).
    pub(crate) fn has_start_limits(&self) -> bool {
        self.start_capped
    }

    /// Counts the running jobs of a node's start limits as 3.3.1's simulation mode lists
    /// them ([`JobLists`]), not all of them.
    pub(crate) fn follow_job_lists(&mut self) {
        if self.start_capped && !self.pooled {
            self.job_lists = Some(JobLists::new(self.spec.nodes.len()));
        }
    }

    /// 3.3.1's simulation adds every running job to its nodes' lists again at the start of
    /// each iteration, in the order jobs were loaded, before it takes the ended ones out.
    #[inline]
    fn relist_running_jobs(&mut self, now: Time) {
        if self.job_lists.is_some() {
            self.relist_running_jobs_at(now);
        }
    }

    #[cold]
    fn relist_running_jobs_at(&mut self, now: Time) {
        let Some(lists) = &mut self.job_lists else {
            return;
        };
        if lists.relisted_at >= now {
            return;
        }
        lists.relisted_at = now;
        for (&j, p) in &self.running {
            for &(n, _) in &p.nodes {
                lists.add(n, j);
            }
        }
    }

    pub(crate) fn advance(&mut self, now: Time) {
        self.relist_running_jobs(now);
        self.settle_begun_by(now);
        self.profile.advance(now);
        self.refresh_standing(now);
    }

    /// Processors free at `now` by the plan, summed over nodes.
    pub(crate) fn free_now(&self, now: Time) -> i64 {
        self.assert_settled();
        self.profile.free_at(now)
    }

    /// What a task of `job` needs of a node (resources no node configures do not bind).
    fn need(&self, job: &QueuedJob) -> Res {
        MachineSpec::per_task_need(&job.request, self.tracked)
    }

    /// Whether `job` holds its nodes whole (QOS DEDICATED: SINGLEJOB access for it alone).
    fn holds_whole_nodes(&self, job: &QueuedJob) -> bool {
        job.cred_factors.dedicated && !self.pooled
    }

    /// The user a node question's answer depends on: `job`'s where nodes are SINGLEUSER or
    /// have start limits, else none.
    fn user_that_binds(&self, job: &QueuedJob) -> u32 {
        if self.start_capped {
            user_of(job)
        } else {
            self.per_user(user_of(job))
        }
    }

    /// The user of the job a claim is for ([`NO_USER`] for a standing reservation's
    /// window). A reservation's claims are this iteration's reservation of that rank, or
    /// the one left laid from the last.
    fn claim_user(&self, c: &Claim) -> u32 {
        match c.owner {
            Owner::Standing(_) => NO_USER,
            Owner::Job(j) => self.running.get(&j).map_or(NO_USER, |p| p.user),
            Owner::Held(id) => {
                let this = self.held.get(id as usize).filter(|h| h.live);
                this.or_else(|| self.laid.get(id as usize))
                    .map_or(NO_USER, |h| h.user)
            }
        }
    }

    /// Whether claim `c` keeps a job of `user` off its node under NODEACCESSPOLICY
    /// SINGLEUSER: it is another user's job or job reservation.
    fn foreign_to(&self, c: &Claim, user: u32) -> bool {
        if user == NO_USER {
            return false;
        }
        let theirs = self.claim_user(c);
        theirs != NO_USER && theirs != user
    }

    /// Whether NODEACCESSPOLICY SINGLEUSER or node `n`'s MAXJOB keeps `job` off it over
    /// `[a, b)`, given the `claims` overlapping that interval.
    fn keeps_off<'c>(
        &self,
        n: usize,
        claims: impl Iterator<Item = &'c Claim> + Clone,
        (a, b): (Time, Time),
        job: &QueuedJob,
    ) -> bool {
        let user = self.per_user(user_of(job));
        claims.clone().any(|c| self.foreign_to(c, user))
            || (self.job_capped && self.holds_too_many_jobs(n, claims.clone(), a, b))
            || (self.start_capped && self.holds_too_many_of_users_jobs(n, claims, (a, b), job))
    }

    /// Whether node `n`, of a MAXJOB, holds that many jobs' claims (running jobs' and
    /// reservations') at some instant of `[a, b)` among `claims` (those overlapping it):
    /// 3.3.1's range search blocks the node then ("policy", MJob.c `MJobGetSNRange`).
    fn holds_too_many_jobs<'c>(
        &self,
        n: usize,
        claims: impl Iterator<Item = &'c Claim> + Clone,
        a: Time,
        b: Time,
    ) -> bool {
        holds_at_once(claims, a, b, self.spec.nodes[n].max_jobs)
    }

    /// Whether node `n`, of a MAXJOBPERUSER, holds that many claims of `job`'s user's
    /// jobs and job reservations at some instant of `[a, b)` (the same "policy" block of
    /// `MJobGetSNRange`, counting the user's only). A backfill window's pseudo-job has no
    /// user, so the windows never see it.
    fn holds_too_many_of_users_jobs<'c>(
        &self,
        n: usize,
        claims: impl Iterator<Item = &'c Claim> + Clone,
        (a, b): (Time, Time),
        job: &QueuedJob,
    ) -> bool {
        let most = self.spec.start_limits_of(n).max_jobs_per_user;
        let user = user_of(job);
        if most == 0 || user == NO_USER {
            return false;
        }
        let theirs = claims.filter(|c| self.claim_user(c) == user);
        holds_at_once(theirs, a, b, most)
    }

    /// How many tasks of `job` node `n` lets start now by its [`crate::node::StartLimits`], against the
    /// running jobs there (MNode.c `MNodeCheckPolicies`, with its counts).
    fn start_limit_tasks(&self, n: usize, job: &QueuedJob, per_task: Res) -> u64 {
        if self.busy_by_load(n) {
            return 0;
        }
        let limits = self.spec.start_limits_of(n);
        let user = user_of(job);
        let per_task_procs = per_task.procs.max(1);
        let mut here = RunningHere::default();
        let mut count = |j: JobIdx| {
            let Some(p) = self.running.get(&j) else {
                return;
            };
            let tasks = p
                .nodes
                .iter()
                .find(|&&(m, _)| m as usize == n)
                .map_or(0, |x| x.1);
            let taken = p.per_task.procs * tasks;
            here.procs += taken;
            if p.user == user && user != NO_USER {
                here.user_jobs += 1;
                here.user_procs += taken;
            }
        };
        match &self.job_lists {
            Some(lists) => lists.listed(n).for_each(&mut count),
            None => self.claims[n]
                .iter()
                .filter_map(|c| match c.owner {
                    Owner::Job(j) => Some(j),
                    _ => None,
                })
                .for_each(&mut count),
        }
        let cap = self.spec.task_cap_of(n, job.cred_factors.dedicated);
        start_limit_tasks_of(limits, per_task_procs, here).min(cap)
    }

    /// Whether node `n` is at its MAXJOB at `t` (see [`Self::holds_too_many_jobs`]).
    pub(super) fn at_job_limit(&self, n: usize, t: Time) -> bool {
        let claims = self.claims[n].iter().filter(|c| c.start <= t && t < c.end);
        self.holds_too_many_jobs(n, claims, t, t + 1)
    }

    /// What `tasks` of a job take of node `n`: the whole node if it holds nodes whole.
    fn taken(&self, whole: bool, per_task: Res, tasks: u64, n: u32) -> Res {
        if whole {
            self.spec.nodes[n as usize].capacity()
        } else {
            per_task.times(tasks)
        }
    }

    /// The processors a placement on `nodes` takes (`procs` unless it holds them whole).
    fn taken_procs(&self, whole: bool, per_task: Res, nodes: &Allocation, procs: u64) -> u64 {
        if !whole {
            return procs;
        }
        nodes
            .iter()
            .map(|&(n, k)| self.taken(true, per_task, k, n).procs)
            .sum()
    }

    /// Whether `job` could run on the empty machine (before reservations).
    pub(crate) fn can_ever_run(&mut self, job: &QueuedJob) -> Result<(), Unfit> {
        let spec = &*self.spec;
        let part = self.partition_of(job);
        let r = job.request;
        let need = self.need(job);
        let largest = self.largest;
        if need.procs > largest.procs {
            return Err(Unfit::TaskProcs {
                per_task: need.procs,
                largest: largest.procs,
            });
        }
        if need.mem > largest.mem {
            return Err(Unfit::Mem {
                per_task: need.mem,
                largest: largest.mem,
            });
        }
        if need.swap > largest.swap {
            return Err(Unfit::Swap {
                per_task: need.swap,
                largest: largest.swap,
            });
        }
        if need.disk > largest.disk {
            return Err(Unfit::Disk {
                per_task: need.disk,
                largest: largest.disk,
            });
        }
        let tasks = *self.capacity.entry((r, part)).or_insert_with(|| {
            tasks_when_empty(spec, need, r.features, part, |_| true, |_| u64::MAX)
        });
        if tasks == 0 && job.procs > 0 {
            // A node that satisfies the job when it asks for nothing else.
            let features_anywhere =
                (0..spec.nodes.len()).any(|n| spec.can_host(n, Res::default(), r.features, part));
            if !features_anywhere {
                return Err(Unfit::Features);
            }
        }
        if tasks * need.procs < job.procs {
            return Err(Unfit::Procs {
                asked: job.procs,
                available: tasks * need.procs,
            });
        }
        if let Some(largest) = self.largest_mandatory_set(job) {
            if largest < job.procs {
                return Err(Unfit::NodeSets {
                    asked: job.procs,
                    largest,
                });
            }
        }
        if self.start_capped {
            // Nothing running is the most a start may find: every count at zero.
            let dedicated = job.cred_factors.dedicated;
            let start_cap = |n| {
                let cap = spec.task_cap_of(n, dedicated);
                start_limit_tasks_when_idle(spec.start_limits_of(n), need).min(cap)
            };
            let on_idle_nodes = tasks_when_empty(spec, need, r.features, part, |_| true, start_cap);
            if on_idle_nodes * need.procs < job.procs {
                return Err(Unfit::StartLimits {
                    asked: job.procs,
                    available: on_idle_nodes * need.procs,
                });
            }
        }
        if spec.allocation == AllocationPolicy::Contiguous {
            let cands: Vec<NodeCandidate> = (0..spec.nodes.len())
                .filter(|&n| spec.can_host(n, need, r.features, part))
                .map(|n| NodeCandidate {
                    node: n as u32,
                    tasks: spec.tasks_per_node(tasks_within(spec.nodes[n].capacity(), need)),
                    free_procs: spec.nodes[n].procs,
                })
                .collect();
            if contiguous(&cands, job.procs / need.procs.max(1)).is_none() {
                return Err(Unfit::Procs {
                    asked: job.procs,
                    available: largest_block(&cands) * need.procs,
                });
            }
        }
        Ok(())
    }

    /// Where node sets are mandatory, the most processors of `job`'s tasks the nodes of
    /// one set (ANYOF: of all the sets) hold on the empty machine.
    fn largest_mandatory_set(&self, job: &QueuedJob) -> Option<u64> {
        let spec = &*self.spec;
        let sets = spec.node_sets.as_ref().filter(|s| s.mandatory)?;
        let (need, part) = (self.need(job), self.partition_of(job));
        let held = |set: u64| {
            let in_set = |n: usize| spec.nodes[n].features & set != 0;
            let all = |_| u64::MAX;
            tasks_when_empty(spec, need, job.request.features, part, in_set, all) * need.procs
        };
        Some(if sets.policy == crate::node::NodeSetPolicy::AnyOf {
            held(sets.sets.iter().fold(0, |m, &s| m | s))
        } else {
            sets.sets.iter().map(|&s| held(s)).max().unwrap_or(0)
        })
    }

    /// Whether `job` can start at `now` and hold its nodes for its whole WCL without
    /// touching any reservation.
    #[inline]
    pub(crate) fn fits(&self, now: Time, job: &QueuedJob) -> bool {
        self.fits_shape(now, job.procs, job.wcl) && self.fits_nodes(now, job)
    }

    /// Whether `procs` processors are free from `now` for `wcl` seconds by the plan: the
    /// first half of [`Self::fits`], from a job's shape alone.
    #[inline]
    pub(crate) fn fits_shape(&self, now: Time, procs: u64, wcl: Time) -> bool {
        self.assert_settled();
        self.profile.fits_from(now, wcl, procs)
    }

    /// [`Profile::first_fall`] from `now`.
    pub(crate) fn first_fall(&self, now: Time) -> Option<(Time, i64)> {
        self.assert_settled();
        self.profile.first_fall(now)
    }

    /// The second half of [`Self::fits`]: whether nodes host `job` now, once the
    /// processors are known to be free.
    #[inline]
    pub(crate) fn fits_nodes(&self, now: Time, job: &QueuedJob) -> bool {
        self.pooled || self.fits_on_nodes(now, job)
    }

    /// Per node: whether enough nodes host `job` now. A job of the same shape, no larger
    /// and no longer than one that did not fit since the machine last changed, does not
    /// fit either, which spares backfill most node scans.
    fn fits_on_nodes(&self, now: Time, job: &QueuedJob) -> bool {
        self.assert_settled();
        let key = (
            job.request,
            self.partition_of(job),
            (job.standing_access, job.standing_short),
            self.node_set_features(job),
            self.backfill_window
                .get()
                .map_or(-1, |(_, shorter)| shorter),
            job.cred_factors.dedicated,
            self.user_that_binds(job),
        );
        {
            let mut memo = self.misfits.borrow_mut();
            if memo.0 != (self.version, now) {
                *memo = ((self.version, now), Vec::new());
            }
            if memo
                .1
                .iter()
                .any(|&(k, procs, wcl)| job.procs >= procs && job.wcl >= wcl && k == key)
            {
                return false;
            }
        }
        let _now = StartingNow::begin(&self.starting_now);
        let fits = match self.allocation() {
            // These policies decide feasibility themselves, as mandatory node sets do.
            AllocationPolicy::Contiguous
            | AllocationPolicy::Local
            | AllocationPolicy::MaxBalance => self.place(now, now, job, false).is_some(),
            _ if self.mandatory_node_sets() => self.place(now, now, job, false).is_some(),
            _ if self.plain_in_bulk(job) => self.fits_plain_in_bulk(now, job),
            _ => {
                let per_task = self.need(job);
                let tasks = job.procs / per_task.procs.max(1);
                let end = now + job.wcl.max(1);
                let mut total = 0;
                // Where only running jobs claim a node, their summed use tells.
                let by_use = !self.exhaustive && self.hosts_by_running_use(now, job);
                let (features, part) = (job.request.features, self.partition_of(job));
                self.free_nodes_now(now).any(|n| {
                    let n = n as usize;
                    total += if by_use && self.ahead[n] == 0 {
                        if self.spec.can_host(n, per_task, features, part) {
                            self.hosts_by_use(n, per_task)
                        } else {
                            0
                        }
                    } else {
                        self.hostable(n, now, end, job, per_task)
                    };
                    total >= tasks
                })
            }
        };
        if !fits {
            self.misfits.borrow_mut().1.push((key, job.procs, job.wcl));
        }
        fits
    }

    /// Whether a node without a claim ahead, free now, hosts as many of `job`'s tasks as it
    /// has processors free, until a job takes them: a reservation's search takes such
    /// nodes in bulk ([`Self::searched_by_jobs`]), and no node question checks more
    /// (node sets, Maui's windows on nodes of several processors, start limits).
    fn plain_in_bulk(&self, job: &QueuedJob) -> bool {
        self.searched_by_jobs(job) && !self.node_checks
    }

    /// What a free node without a claim ahead hosts of a job counted in bulk (see
    /// [`Self::plain_in_bulk`]): one task per free processor, without asking the node.
    fn claimless_free_tasks(&self, n: u32) -> Option<u64> {
        let free = self.free[n as usize];
        (free > 0 && self.ahead[n as usize] == 0).then_some(free as u64)
    }

    /// [`Self::fits_on_nodes`] where [`Self::plain_in_bulk`]: the processors of the nodes
    /// without a claim ahead summed from the index, and only the nodes with one asked.
    fn fits_plain_in_bulk(&self, now: Time, job: &QueuedJob) -> bool {
        let expired = self.expired_on(now);
        let tasks = job.procs;
        let mut total = self.plain_free_procs(&expired).max(0) as u64;
        if total >= tasks {
            return true;
        }
        let (end, per_task) = (now + job.wcl.max(1), self.need(job));
        if expired.is_empty() && self.hosts_by_next_claim(now) {
            self.rank_ahead(now, self.listed_standing);
            let ranking = self.ranked_ahead.borrow();
            let runs = ranking.runs.iter().take_while(|r| r.0 >= end);
            return total + runs.map(|r| r.1 as u64).sum::<u64>() >= tasks;
        }
        self.ahead_nodes
            .iter()
            .filter(|&n| self.free[n as usize] > 0 || expired.contains_key(&n))
            .any(|n| {
                total += self.hostable(n as usize, now, end, job, per_task);
                total >= tasks
            })
    }

    /// Whether a free node with a claim ahead hosts one task of a job counted in bulk
    /// ([`Self::plain_in_bulk`]: every node can host it) from `now` exactly when its next
    /// claim begins no earlier than the job would end: one-processor nodes, every claim
    /// binding every job (no standing reservation), none held now, no node rule, and not
    /// a reservation's search (which counts a node differently where a claim begins as
    /// the job would end).
    fn hosts_by_next_claim(&self, now: Time) -> bool {
        !self.several_procs
            && self.spec.standing.is_empty()
            && !self.node_rules
            && !self.searching_reservation.get()
            && self.nothing_held_now(now)
    }

    /// Whether no claim holds a node now but those of running jobs: no standing window
    /// held and no reservation from now on. Then a free node's window ends at its next
    /// claim.
    fn nothing_held_now(&self, now: Time) -> bool {
        self.standing_held.is_empty() && self.held.iter().all(|h| h.start > now)
    }

    /// The processors free now, counting those of running jobs whose planned end has come
    /// (`expired`, from [`Self::expired_on`]), on the nodes without a claim ahead: free
    /// from now until a job takes them.
    fn plain_free_procs(&self, expired: &BTreeMap<u32, i64>) -> i64 {
        let mut procs = self.plain_procs;
        for (&n, &extra) in expired {
            if self.ahead[n as usize] == 0 {
                let f = self.free[n as usize];
                procs += (f + extra).max(0) - f.max(0);
            }
        }
        procs
    }

    /// Starts `job` at `now` on the nodes the allocation policy picks; false (nothing
    /// changes) if it does not fit. On a uniform pooled machine the caller must have found
    /// that it [`Machine::fits`].
    pub(crate) fn start(&mut self, now: Time, job: &QueuedJob) -> bool {
        self.settle();
        if self.slots.is_some() {
            // The caller asked `fits` (one profile scan per start is enough).
            debug_assert!(self.profile.fits(now, job.wcl, job.procs));
            self.start_on_slots(now, job);
            return true;
        }
        if !self.profile.fits(now, job.wcl, job.procs) {
            return false;
        }
        let placed = {
            let _now = StartingNow::begin(&self.starting_now);
            self.place(now, now, job, false)
        };
        let Some(nodes) = placed else {
            return false;
        };
        self.commit(now, job, nodes);
        true
    }

    /// Takes `nodes` for `job` from `now` to its planned end.
    fn commit(&mut self, now: Time, job: &QueuedJob, nodes: Allocation) {
        self.version += 1;
        self.running_version += 1;
        let end = now + job.wcl;
        self.carried.started(end);
        let per_task = self.need(job);
        let whole = self.holds_whole_nodes(job);
        let procs = self.taken_procs(whole, per_task, &nodes, job.procs);
        self.profile.occupy(now, end, procs);
        for &(n, tasks) in &nodes {
            let takes = self.taken(whole, per_task, tasks, n);
            self.take_node(n, takes.procs as i64, now);
            if !self.pooled {
                self.claims[n as usize].push(Claim {
                    start: now,
                    end,
                    takes,
                    owner: Owner::Job(job.idx),
                    may_use: job.standing_access,
                });
                self.running_use[n as usize].add(takes);
                self.note_claims(n);
            }
        }
        self.by_end.insert((end, job.idx));
        self.promised.remove(&job.idx);
        if let Some(lists) = &mut self.job_lists {
            for &(n, _) in &nodes {
                lists.add(n, job.idx);
            }
        }
        self.running.insert(
            job.idx,
            Placement {
                start: now,
                end,
                procs,
                per_task,
                nodes,
                slots: Vec::new(),
                whole,
                short: job.standing_short,
                user: user_of(job),
            },
        );
    }

    /// Uniform pooled machine: the lowest free slots, then (for an instant where a job's
    /// planned end has come before its end is told) slots handed over from such jobs.
    fn start_on_slots(&mut self, now: Time, job: &QueuedJob) {
        let pool = self.slots.as_mut().expect("uniform machine");
        let mut slots = Vec::new();
        pool.take(job.procs, &mut slots);
        let mut short = job.procs - slots.iter().map(|r| r.1).sum::<u64>();
        let expired: Vec<JobIdx> = self
            .by_end
            .range(..(now + 1, JobIdx(0)))
            .map(|&(_, j)| j)
            .collect();
        for j in expired {
            let p = self.running.get_mut(&j).expect("indexed job runs");
            // The job keeps running on what it hands over until it is told to end:
            // charge that time to those slots now.
            let ran = (now - p.start).max(0);
            while short > 0 {
                let Some((s, l)) = p.slots.pop() else { break };
                let k = l.min(short);
                if k < l {
                    p.slots.push((s, l - k));
                }
                let first = s + l - k;
                slots.push((first, k));
                self.busy[first as usize] += ran;
                self.busy[(first + k) as usize] -= ran;
                short -= k;
            }
        }
        debug_assert_eq!(short, 0, "the profile said job {} fits", job.id);
        let end = now + job.wcl;
        self.profile.occupy(now, end, job.procs);
        self.by_end.insert((end, job.idx));
        self.running.insert(
            job.idx,
            Placement {
                start: now,
                end,
                procs: job.procs,
                per_task: Res::default(),
                nodes: Vec::new(),
                slots,
                whole: false,
                short: 0,
                user: user_of(job),
            },
        );
    }

    /// Reserves `job` at its earliest start for this iteration, on the nodes the policy
    /// picks there (CPULOAD places reservations by MINRESOURCE).
    pub(crate) fn reserve(&mut self, now: Time, job: &QueuedJob) -> Option<(Time, HeldId)> {
        if let Some(kept) = self.take_laid_again(now, job) {
            return Some(kept);
        }
        self.settle();
        let (at, nodes) = if self.pooled {
            (
                self.profile.earliest_start(now, job.wcl, job.procs)?,
                Vec::new(),
            )
        } else {
            let carried = self.carried_placement(now, job);
            // A later placement was searched around this one's nodes as they were.
            let is_carried = carried
                .as_ref()
                .is_some_and(|c| matches!(c.nodes, Cow::Borrowed(_)));
            let (at, nodes, most, fewer_than_a_start, merged) = match carried {
                Some(c) => (
                    c.at,
                    c.nodes.into_owned(),
                    c.most,
                    c.fewer_than_a_start,
                    false,
                ),
                None => {
                    let (at, nodes) = self.earliest_placement(now, job)?;
                    let fewer = self.fewer_than_a_start.get();
                    let merged = self.search_merged.get();
                    (at, nodes, self.search_most.get(), fewer, merged)
                }
            };
            if self.carries_searches() {
                let rank = self.held.len();
                let versions = (self.running_version, self.running_changes_but_starts);
                let key = SearchKey::of(job, self.partition_of(job));
                let found = Found {
                    key,
                    at,
                    nodes: nodes.clone(),
                    most,
                    fewer_than_a_start,
                    merged,
                };
                self.carried.record(rank, versions, now, found, is_carried);
            }
            (at, nodes)
        };
        Some((at, self.lay(at, job, nodes)))
    }

    /// Reserves `job` in whichever of the node partitions `within` gives it the earliest
    /// start, the first of them on a tie (3.3.1's `MJobGetEStartTime` scans the job's
    /// partitions in index order, whichever partition is being scheduled).
    pub(crate) fn reserve_in_earliest(
        &mut self,
        now: Time,
        job: &QueuedJob,
        within: &[u32],
    ) -> Option<(Time, HeldId)> {
        self.settle();
        let asked_within = self.within;
        let mut best: Option<(Time, Allocation, u32)> = None;
        for &p in within {
            self.within = p;
            if let Some((at, nodes)) = self.earliest_placement(now, job) {
                if best.as_ref().is_none_or(|b| at < b.0) {
                    best = Some((at, nodes, p));
                }
            }
        }
        let reserved = best.map(|(at, nodes, p)| {
            self.within = p;
            (at, self.lay(at, job, nodes))
        });
        self.within = asked_within;
        reserved
    }

    /// Holds `nodes` for `job` from `at` for this iteration.
    fn lay(&mut self, at: Time, job: &QueuedJob, nodes: Allocation) -> HeldId {
        let end = at + job.wcl;
        self.version += 1;
        let per_task = self.need(job);
        let whole = self.holds_whole_nodes(job);
        let procs = self.taken_procs(whole, per_task, &nodes, job.procs)
            - self.procs_beyond_the_free(at, end, job, &nodes);
        self.profile.occupy(at, end, procs);
        let id = self.held.len() as u32;
        if !self.pooled {
            for &(n, tasks) in &nodes {
                let takes = self.taken(whole, per_task, tasks, n);
                self.lay_claim(
                    n,
                    Claim {
                        start: at,
                        end,
                        takes,
                        owner: Owner::Held(id),
                        may_use: job.standing_access,
                    },
                );
            }
        }
        if !self.pooled && self.keeps_promises {
            self.promising.insert(job.idx, nodes.clone());
        }
        self.held.push(Held {
            start: at,
            end,
            procs,
            nodes,
            live: true,
            within: self.within,
            short: job.standing_short,
            user: user_of(job),
            whole,
        });
        HeldId(id)
    }

    /// The processors a reservation of `job` over `[at, end)` on `nodes` holds beyond what
    /// its nodes have free throughout (3.3.1 places it by the tasks free at its start,
    /// [`Machine::holds_free_at_start`]). The processor count leaves them out, so that it
    /// never counts fewer free than the nodes have (a node's claims may then take more
    /// than it has; its free tasks count as none).
    fn procs_beyond_the_free(
        &self,
        at: Time,
        end: Time,
        job: &QueuedJob,
        nodes: &Allocation,
    ) -> u64 {
        if self.pooled || !self.maui_order || !self.several_procs {
            return 0;
        }
        let per_task = self.need(job);
        // Free tasks fall only where a claim begins.
        let falls_inside = |n: u32| {
            self.claims[n as usize]
                .iter()
                .any(|c| at < c.start && c.start < end)
        };
        nodes
            .iter()
            .filter(|&&(n, _)| falls_inside(n) && self.holds_free_at_start(n as usize, job))
            .map(|&(n, tasks)| {
                let free = self.hostable(n as usize, at, end, job, per_task);
                tasks.saturating_sub(free) * per_task.procs
            })
            .sum()
    }

    /// A reservation's start and the node partition it was placed within.
    pub(crate) fn held_start_within(&self, id: HeldId) -> (Time, u32) {
        let h = &self.held[id.0 as usize];
        (h.start, h.within)
    }

    /// The earliest placement of `job` as the last iteration found it, when it must be the
    /// same now (see [`CarriedSearches`]): the running jobs are those it saw, less jobs
    /// ended by their planned end and with jobs started around its reservation since (as
    /// checked here); every reservation made before this one in this iteration is the one
    /// it made; no running job's planned end has passed since; and the placement still lies
    /// after now (a start now picks nodes by another rule). The start, the nodes (moved onto
    /// nodes freed early where LASTAVAILABLE takes them) and the most tasks a search now
    /// could count before the start.
    fn carried_placement(&self, now: Time, job: &QueuedJob) -> Option<Carried<'_>> {
        // A job that may use a standing reservation for a short run only is judged from
        // where each node's free stretch begins, which moves with now (`judged_run`).
        if !self.carries_searches() || job.standing_short != 0 {
            return None;
        }
        let found = self.carried.find(
            self.held.len(),
            self.running_version,
            SearchKey::of(job, self.partition_of(job)),
        )?;
        if found.merged {
            return None;
        }
        let (at, nodes, most) = (found.at, &found.nodes, found.most);
        // Where a node's window is exactly the limit long, 3.3.1's merge decides the start
        // (`merged_start`), and a start or an end since may have opened such a window
        // (or now, moving on, made one so): searched anew.
        let w = job.wcl.max(1);
        if self.merges_starts(now, job, self.need(job)) && self.has_an_exact_window(now, w) {
            return None;
        }
        let since = self.carried.found_at;
        let end_passed = self
            .by_end
            .range((since + 1, JobIdx(0))..(now + 1, JobIdx(0)))
            .next()
            .is_some();
        // Around jobs started since, only the search of one-processor tasks counts what
        // their claims leave (a DEDICATED job's counts one task on a node with any claim,
        // ended or not), with two exceptions of 3.3.1's count (`ends_as_a_claim_begins`):
        // a node whose window a claim closes just as the job would end is left out of the
        // count at the placement's start but used by the placement, so a start elsewhere
        // may leave too few counted there; and a started job's end opens a node's window,
        // where the search counts such a node. On nodes of several processors, 3.3.1's
        // start ranges (`start_range_tasks`) offer a node the fewest tasks up to a limit
        // past the range holding a start, and a started job's end cuts a range short: an
        // instant before the placement's start may then be offered more than the search
        // counted. Where the rule cut no count of the search, its counts were a start's,
        // and a job started since takes as much from every instant it runs past the
        // placement's limit as from the placement's run, so the rule cuts none at the
        // start either; unless its end falls where a claim begins, so that the node's
        // free tasks no longer change there and the range holding the start reaches
        // further.
        let ends = &self.carried.found_started_ends;
        let around_starts = ends.is_empty()
            || (self.searched_by_jobs(job)
                && !self.claim_begins_at(at + w)
                && !ends.iter().any(|&e| self.claim_begins_at(e + w))
                && (!self.several_procs
                    || (!found.fewer_than_a_start
                        && !ends.iter().any(|&e| self.claim_begins_at(e)))));
        // Jobs ended by their planned end since: those ended early free their processors
        // sooner, yet no earlier start can count enough tasks if the search counted fewer
        // than the job's less what they freed before its start (one task per processor
        // freed); those ended as planned change no count from now on, but an instant
        // before the start that counted enough tasks (and failed for another reason) may
        // be now, under a start's rule. The nodes of those planned to end by the start
        // hosted the job there already; those of the others may host it now, and
        // LASTAVAILABLE takes them where they come before some of its nodes
        // (`with_nodes_freed`). A node whose job was planned to end where a claim would
        // begin as the job ends was counted then as its window opened
        // (`ends_as_a_claim_begins`); now its window is open.
        let ended = &self.carried.ended_by_plan;
        let freed: u64 = ended.iter().map(|e| e.procs).sum();
        let around_ends = ended.is_empty()
            || (self.searched_by_jobs(job)
                && most + freed < job.procs
                && ended
                    .iter()
                    .all(|e| e.planned > at || !self.claim_begins_at(e.planned + w)));
        // A job ended early that was planned to end after the start joins two of its nodes'
        // ranges there: 3.3.1's start ranges may reach further from the start now and cut
        // what a search counts there, so that the start may no longer be found.
        let joins_ranges = self.several_procs
            && ended
                .iter()
                .filter(|e| e.procs > 0 && e.planned > at)
                .flat_map(|e| &e.nodes)
                .any(|&n| self.start_range_cuts(now, n as usize, at, job));
        if !(at > now && !end_passed && around_starts && around_ends && !joins_ranges) {
            return None;
        }
        let nodes = if ended.iter().any(|e| e.planned > at) {
            Cow::Owned(self.with_nodes_freed(at, job, nodes)?)
        } else {
            Cow::Borrowed(nodes)
        };
        Some(Carried {
            at,
            nodes,
            most: most + freed,
            fewer_than_a_start: found.fewer_than_a_start,
        })
    }

    /// LASTAVAILABLE's placement of `job` at `at` on `placed` (its placement at `at`
    /// before) and the nodes of the jobs ended early since that were planned to end after
    /// `at` (none of them in `placed`): the only nodes that can host more at `at` than when
    /// `placed` was made. The nodes not in `placed` come after all of them in its order or
    /// could host nothing, and only these gained, so a placement now takes from the two
    /// merged in its order (the last node first). Only the last node of `placed` may have
    /// hosted more tasks than it took: there, what is left of the job is taken anyway.
    fn with_nodes_freed(
        &self,
        at: Time,
        job: &QueuedJob,
        placed: &Allocation,
    ) -> Option<Allocation> {
        // A job with access to a standing reservation is placed in its nodes first.
        if job.standing_access | job.standing_short != 0
            || !placed.windows(2).all(|w| w[0].0 > w[1].0)
        {
            return None;
        }
        let per_task = self.need(job);
        let end = at + job.wcl.max(1);
        let mut gained: Vec<u32> = self
            .carried
            .ended_by_plan
            .iter()
            .filter(|e| e.planned > at)
            .flat_map(|e| e.nodes.iter().copied())
            .collect();
        gained.sort_unstable_by(|a, b| b.cmp(a));
        gained.dedup();
        // A node of both would be asked with this job's own claim on it, if laid.
        if gained
            .iter()
            .any(|n| placed.binary_search_by(|p| n.cmp(&p.0)).is_ok())
        {
            return None;
        }
        // A search anew places the job on a gained node by the tasks free at its start,
        // where 3.3.1 does (`holds_free_at_start`): where those are more than the fewest
        // over its run, the placement is searched anew.
        let counts_otherwise = |n: u32| {
            let fewest = self.hostable(n as usize, at, end, job, per_task);
            let cut = self.fewer_than_a_start.get();
            self.at_found_start.set(true);
            let at_start = self.hostable(n as usize, at, end, job, per_task);
            self.at_found_start.set(false);
            self.fewer_than_a_start.set(cut);
            at_start != fewest
        };
        let by_start = |n: &u32| self.holds_free_at_start(*n as usize, job);
        if gained
            .iter()
            .filter(|n| by_start(n))
            .any(|&n| counts_otherwise(n))
        {
            return None;
        }
        let (mut i, mut j) = (0, 0);
        let merged = std::iter::from_fn(|| {
            let before = placed.get(i).map(|&(n, _)| n);
            let now_free = gained.get(j).copied();
            let node = before.max(now_free)?;
            let tasks = if now_free == Some(node) {
                j += 1;
                self.hostable(node as usize, at, end, job, per_task)
            } else {
                i += 1;
                placed[i - 1].1
            };
            Some(NodeCandidate {
                node,
                tasks,
                free_procs: 0,
            })
        });
        take_in_order(
            merged.filter(|c| c.tasks > 0),
            job.procs / per_task.procs.max(1),
        )
    }

    /// Whether a reservation or a standing reservation's window begins at `t`.
    fn claim_begins_at(&self, t: Time) -> bool {
        let held = self.held.iter().chain(&self.laid);
        held.filter(|h| h.live).any(|h| h.start == t)
            || self.standing_held.iter().any(|&(_, start, _)| start == t)
    }

    /// Lets the reservations of an iteration stay laid for the next to take again
    /// (see [`Machine::keeps_laid`]), or not.
    pub(crate) fn leave_laid(&mut self, leaves: bool) {
        self.leaves_laid = leaves;
    }

    /// Whether `job`, the next to be reserved in this iteration, holds the reservation the
    /// last iteration made for it at this rank, still laid, as this iteration would make
    /// it again; then it cannot start now either, and [`Machine::reserve`] takes that
    /// reservation again, sparing the release and the laying of its claims. Otherwise the
    /// reservations left laid are released here.
    ///
    /// The carried search ([`CarriedSearches`]) says the placement is the same. That the
    /// job cannot start now follows from the search's count: at the instant it was made,
    /// it counted the tasks a start there would find (for a job of one processor per task
    /// asking for nothing else; a DEDICATED job's search counts fewer, and 3.3.1's start
    /// ranges may: not taken again where they cut a count, `Found::fewer_than_a_start`)
    /// and found too few.
    /// With the same claims a later instant finds no more: no running job's planned end
    /// passed since, and claims ahead only begin later. Jobs started since only take
    /// away, and jobs ended early add what the carried bound already counts.
    pub(crate) fn keeps_laid(&mut self, now: Time, job: &QueuedJob) -> bool {
        let Some(carried) = self.laid_carried(now, job) else {
            self.settle();
            return false;
        };
        // For `take_laid_again`, unless anything changes before.
        self.laid_verdict = Some((self.held.len(), job.idx, now, self.version, carried));
        true
    }

    /// The carried search's bound (see [`Self::carried_placement`]) when `job`'s
    /// reservation left laid at this rank stands, and its nodes if they moved.
    fn laid_carried(&mut self, now: Time, job: &QueuedJob) -> Option<LaidCarried> {
        let rank = self.held.len();
        let start = self.laid.get(rank)?.start;
        // Its nodes may move onto nodes freed early (`with_nodes_freed`), asked what they
        // host without the later reservations: those are not carried past a move.
        if self.carried.ended_by_plan.iter().any(|e| e.planned > start) {
            self.settle_later_than(rank);
        }
        let laid = &self.laid[rank];
        let carried = self.carried_placement(now, job)?;
        let moved = matches!(carried.nodes, Cow::Owned(_));
        debug_assert!(moved || laid.start != carried.at || laid.nodes == *carried.nodes);
        let stands = laid.start == carried.at
            && !carried.fewer_than_a_start
            && (moved || laid.nodes.len() == carried.nodes.len())
            && laid.within == self.within
            && self.searched_by_jobs(job);
        stands.then(|| (carried.most, moved.then(|| carried.nodes.into_owned())))
    }

    /// Releases the reservations left laid after the one at `rank`.
    fn settle_later_than(&mut self, rank: usize) {
        if self.laid.len() > rank + 1 {
            let later = self.laid.split_off(rank + 1);
            for (k, h) in later.iter().enumerate() {
                self.unlay((rank + 1 + k) as u32, h);
            }
        }
    }

    /// Takes `job`'s reservation of the last iteration again (see
    /// [`Machine::keeps_laid`]), if it stands, moving its claims where its nodes moved.
    fn take_laid_again(&mut self, now: Time, job: &QueuedJob) -> Option<(Time, HeldId)> {
        let rank = self.held.len();
        let (most, moved) = match self.laid_verdict.take() {
            Some((r, idx, at, version, carried))
                if (r, idx, at, version) == (rank, job.idx, now, self.version) =>
            {
                carried
            }
            _ => self.laid_carried(now, job)?,
        };
        let versions = (self.running_version, self.running_changes_but_starts);
        self.carried
            .carry_over(rank, versions, now, most, moved.clone());
        let laid = &mut self.laid[rank];
        let laid = Held {
            nodes: std::mem::take(&mut laid.nodes),
            ..*laid
        };
        let nodes = match moved {
            Some(nodes) => {
                self.move_claims(rank as u32, job, &laid, &nodes);
                nodes
            }
            None => laid.nodes,
        };
        if self.keeps_promises {
            self.promising.insert(job.idx, nodes.clone());
        }
        let at = laid.start;
        self.held.push(Held { nodes, ..laid });
        Some((at, HeldId(rank as u32)))
    }

    /// Moves reservation `id`'s claims from the nodes `laid` holds to `nodes` (both in
    /// descending node order, the same processors in all).
    fn move_claims(&mut self, id: u32, job: &QueuedJob, laid: &Held, nodes: &Allocation) {
        self.version += 1;
        let per_task = self.need(job);
        let whole = self.holds_whole_nodes(job);
        let (mut i, mut j) = (0, 0);
        loop {
            let (before, after) = (laid.nodes.get(i).copied(), nodes.get(j).copied());
            let Some(n) = before.map(|b| b.0).max(after.map(|a| a.0)) else {
                break;
            };
            let took = before.filter(|b| b.0 == n).map_or(0, |b| b.1);
            let takes = after.filter(|a| a.0 == n).map_or(0, |a| a.1);
            i += usize::from(took > 0);
            j += usize::from(takes > 0);
            if took == takes {
                continue;
            }
            if took > 0 {
                self.unlay_claim(n, id);
            }
            if takes > 0 {
                let takes = self.taken(whole, per_task, takes, n);
                self.lay_claim(
                    n,
                    Claim {
                        start: laid.start,
                        end: laid.end,
                        takes,
                        owner: Owner::Held(id),
                        may_use: job.standing_access,
                    },
                );
            }
        }
    }

    /// Releases the reservations left laid that this iteration did not take again.
    pub(crate) fn settle(&mut self) {
        if self.laid.is_empty() {
            return;
        }
        let laid = std::mem::take(&mut self.laid);
        for (id, h) in laid.iter().enumerate().skip(self.held.len()) {
            self.unlay(id as u32, h);
        }
    }

    /// Settles when a reservation left laid begins by `t`: its processors would be
    /// released after the processor count moved past its start.
    fn settle_begun_by(&mut self, t: Time) {
        if self.laid.iter().any(|h| h.start <= t) {
            self.settle();
        }
    }

    /// Panics if reservations are left laid that this iteration did not take again: a
    /// question asked then would see them.
    #[inline]
    fn assert_settled(&self) {
        assert!(
            self.laid.is_empty(),
            "a node question asked before the reservations left laid were settled"
        );
    }

    /// Whether reservations' searches are carried between iterations: for Maui's
    /// LASTAVAILABLE on nodes tracked one by one, whose placements the argument of
    /// [`CarriedSearches`] covers (not when every node question is answered exhaustively,
    /// the reference of the differential tests).
    fn carries_searches(&self) -> bool {
        !self.pooled
            && !self.exhaustive
            // An end frees a whole node for the jobs of other users, or a node at its
            // MAXJOB: more than its processors, which the carried bounds count.
            && self.spec.access != NodeAccess::SingleUser
            && !self.job_capped
            && !self.start_capped
            && !self.partitioned
            && self.maui_order
            && self.spec.allocation == AllocationPolicy::LastAvailable
    }

    /// Holds `nodes` for `job` from `start` again, within node partition `within`: a
    /// reservation of an earlier iteration, as it was.
    pub(crate) fn hold_again(
        &mut self,
        start: Time,
        job: &QueuedJob,
        nodes: Allocation,
        within: u32,
    ) -> Option<HeldId> {
        self.settle();
        let per_task = self.need(job);
        let end = start + job.wcl.max(1);
        let asked_within = std::mem::replace(&mut self.within, within);
        // A job run past its planned end since may hold some of them now.
        self.at_found_start.set(true);
        let still = nodes
            .iter()
            .all(|&(n, k)| self.hostable(n as usize, start, end, job, per_task) >= k);
        self.at_found_start.set(false);
        if !still {
            self.within = asked_within;
            return None;
        }
        // No search of the last iteration was made beside it: none is carried over it.
        self.running_version += 1;
        self.running_changes_but_starts += 1;
        let held = self.lay(start, job, nodes);
        self.within = asked_within;
        Some(held)
    }

    /// The nodes a reservation holds (empty when processors are pooled).
    pub(crate) fn held_nodes(&self, id: HeldId) -> &[(u32, u64)] {
        &self.held[id.0 as usize].nodes
    }

    pub(crate) fn release(&mut self, id: HeldId) {
        self.settle();
        self.carried.stop_recording();
        self.release_one(id);
    }

    fn release_one(&mut self, id: HeldId) {
        let h = &mut self.held[id.0 as usize];
        if !h.live {
            return;
        }
        h.live = false;
        let h = Held {
            nodes: std::mem::take(&mut h.nodes),
            ..*h
        };
        self.unlay(id.0, &h);
    }

    /// Takes reservation `id`'s claims off its nodes and its processors off the count.
    fn unlay(&mut self, id: u32, h: &Held) {
        self.version += 1;
        self.profile.release(h.start, h.end, h.procs);
        if !self.pooled {
            for &(n, _) in &h.nodes {
                self.unlay_claim(n, id);
            }
        }
    }

    /// Lays a reservation's `claim` on node `n`.
    fn lay_claim(&mut self, n: u32, claim: Claim) {
        self.claims[n as usize].push(claim);
        self.note_claims(n);
        self.touch(n);
        self.claim_ahead(n);
    }

    /// Takes reservation `id`'s claim off node `n`.
    fn unlay_claim(&mut self, n: u32, id: u32) {
        self.claims[n as usize].retain(|c| c.owner != Owner::Held(id));
        self.note_claims(n);
        self.touch(n);
        self.unclaim_ahead(n);
    }

    /// Ends the iteration's reservations; their nodes are remembered as the promises the
    /// next iteration honours. They are released, or left laid when the next iteration
    /// may take them again as they are (every one made by the search it carries).
    pub(crate) fn release_all(&mut self) {
        self.settle();
        let changes_but_starts = self.running_changes_but_starts;
        self.carried
            .end_iteration(self.running_version, changes_but_starts);
        let carried_all = self.carried.found_version.is_some()
            && self.carried.found.len() == self.held.len()
            && self.held.iter().all(|h| h.live);
        if self.leaves_laid && self.carries_searches() && carried_all {
            self.laid = std::mem::take(&mut self.held);
        }
        for i in 0..self.held.len() {
            self.release_one(HeldId(i as u32));
        }
        self.held.clear();
        std::mem::swap(&mut self.promised, &mut self.promising);
        self.promising.clear();
    }

    /// `job` ended at `ended`; its processors are free from `freed` on.
    pub(crate) fn ended(&mut self, job: JobIdx, ended: Time, freed: Time) {
        self.settle_begun_by(freed);
        self.relist_running_jobs(ended);
        let Some(p) = self.running.remove(&job) else {
            return;
        };
        if let Some(lists) = &mut self.job_lists {
            for &(n, _) in &p.nodes {
                lists.remove(n, job);
            }
        }
        self.version += 1;
        self.carried.ended(self.running_version, freed, &p);
        self.running_version += 1;
        self.running_changes_but_starts += 1;
        self.by_end.remove(&(p.end, job));
        self.profile.advance(freed);
        self.profile.release(freed, p.end, p.procs);
        let ran = (ended - p.start).max(0);
        if let Some(pool) = &mut self.slots {
            for &(first, count) in &p.slots {
                pool.give((first, count));
                self.busy[first as usize] += ran;
                self.busy[(first + count) as usize] -= ran;
            }
            return;
        }
        for &(n, tasks) in &p.nodes {
            let takes = self.taken(p.whole, p.per_task, tasks, n);
            self.busy[n as usize] += ran * takes.procs as i64;
        }
        for &(n, tasks) in &p.nodes {
            let takes = self.taken(p.whole, p.per_task, tasks, n);
            self.give_node(n, takes.procs as i64, freed);
            self.job_left_node(n);
            if !self.pooled {
                self.claims[n as usize].retain(|c| c.owner != Owner::Job(job));
                let used = &mut self.running_use[n as usize];
                debug_assert_eq!(used.less(takes).plus(takes), *used, "node {n} gives back");
                *used = used.less(takes);
                self.note_claims(n);
                self.touch(n);
            }
        }
    }

    /// Running `job` passed its planned end at `from` and holds its nodes until `until`.
    pub(crate) fn extended(&mut self, job: JobIdx, from: Time, until: Time) {
        self.settle();
        let Some(p) = self.running.get_mut(&job) else {
            return;
        };
        self.version += 1;
        self.running_version += 1;
        self.running_changes_but_starts += 1;
        self.by_end.remove(&(p.end, job));
        p.end = until;
        self.by_end.insert((until, job));
        self.profile.advance(from);
        self.profile.occupy(from, until, p.procs);
        if !self.pooled {
            let nodes: Vec<u32> = p.nodes.iter().map(|&(n, _)| n).collect();
            for n in nodes {
                self.touch(n);
                for c in &mut self.claims[n as usize] {
                    if c.owner == Owner::Job(job) {
                        c.end = until;
                    }
                }
            }
        }
    }

    /// Processor-seconds each node has run jobs for, counting the jobs that ended.
    pub fn node_busy(&self) -> Vec<u64> {
        if self.slots.is_none() {
            return self.busy.iter().map(|&b| b.max(0) as u64).collect();
        }
        let ppn = self.spec.nodes.first().map_or(1, |n| n.procs).max(1) as usize;
        let mut per_node = vec![0u64; self.spec.nodes.len()];
        let mut level = 0i64;
        for (slot, d) in self.busy.iter().enumerate().take(self.busy.len() - 1) {
            level += d;
            per_node[slot / ppn] += level.max(0) as u64;
        }
        per_node
    }

    /// Starts `job` at `now` on the given nodes, filling each in turn (a job running when
    /// a scenario begins); false, and nothing changes, if they cannot host it now. Only
    /// on a per-node machine.
    pub(crate) fn start_on(&mut self, now: Time, job: &QueuedJob, on: &[u32]) -> bool {
        self.settle();
        if self.pooled || !self.profile.fits(now, job.wcl, job.procs) {
            return false;
        }
        let per_task = self.need(job);
        let mut left = job.procs / per_task.procs.max(1);
        let end = now + job.wcl.max(1);
        let mut nodes: Allocation = Vec::new();
        for &n in on {
            if nodes.iter().any(|&(m, _)| m == n) {
                // Its room was counted the first time.
                continue;
            }
            let k = self.hostable(n as usize, now, end, job, per_task).min(left);
            if k > 0 {
                nodes.push((n, k));
                left -= k;
            }
        }
        if left > 0 {
            return false;
        }
        self.commit(now, job, nodes);
        true
    }

    /// The nodes free now in the order Maui's LASTAVAILABLE takes them for `job` starting
    /// now (see `place_now_free_longest`), all of them; `None` under another policy or
    /// order, or with processors pooled.
    pub(crate) fn start_now_order(&self, now: Time, job: &QueuedJob) -> Option<Vec<u32>> {
        self.assert_settled();
        let maui_last = self.maui_order && self.allocation() == AllocationPolicy::LastAvailable;
        if self.pooled || !maui_last {
            return None;
        }
        let per_task = self.need(job);
        let tasks = job.procs / per_task.procs.max(1);
        Some(self.by_availability(now, job, tasks, per_task).collect())
    }

    /// The nodes a reservation of `job` from `now` would take, in the order it takes them
    /// (under Maui's LASTAVAILABLE the last node first), if it fits now.
    pub(crate) fn reservation_nodes_now(&self, now: Time, job: &QueuedJob) -> Option<Vec<u32>> {
        self.assert_settled();
        if self.pooled {
            return None;
        }
        let placed = self.place(now, now, job, true)?;
        Some(placed.into_iter().map(|(n, _)| n).collect())
    }

    /// The processors running job `victim` would free for `job` (3.3.1's
    /// `MJobSelectPJobList`): on each of its nodes that could host a task of `job`, its
    /// tasks there times `job`'s processors per task, at most the node's processors; its
    /// own processors where nodes are not followed one by one.
    pub(crate) fn procs_freed_for(
        &self,
        job: &QueuedJob,
        victim: JobIdx,
        victim_procs: u64,
    ) -> u64 {
        let placement = self.placement(victim);
        if self.pooled || placement.is_empty() {
            return victim_procs;
        }
        let per_task = self.need(job);
        let ppt = u64::from(job.request.procs_per_task.max(1));
        placement
            .iter()
            .filter(|&&(n, _)| {
                self.spec.can_host(
                    n as usize,
                    per_task,
                    job.request.features,
                    self.partition_of(job),
                )
            })
            .map(|&(n, tasks)| (tasks * ppt).min(self.spec.nodes[n as usize].procs))
            .sum()
    }

    /// Starts `job` at `now` with exactly `placement`'s tasks on each of its nodes (a
    /// suspended job resuming as it was); false, and nothing changes, if a node cannot
    /// take its share until the job's planned end.
    pub(crate) fn start_exactly(
        &mut self,
        now: Time,
        job: &QueuedJob,
        placement: &[(u32, u64)],
    ) -> bool {
        self.settle();
        if self.pooled || placement.is_empty() {
            return false;
        }
        let per_task = self.need(job);
        let end = now + job.wcl.max(1);
        let fits = placement
            .iter()
            .all(|&(n, k)| self.hostable(n as usize, now, end, job, per_task) >= k);
        if !fits {
            return false;
        }
        self.commit(now, job, placement.to_vec());
        true
    }

    /// [`Machine::idle`] and its processor sum against the nodes' claims: the node and
    /// what is wrong where they differ.
    fn verify_idle(&self) -> Result<(), (Option<usize>, String)> {
        let mut idle_procs = 0;
        for (n, claims) in self.claims.iter().enumerate() {
            let procs = self.spec.nodes[n].procs;
            let idle = claims.is_empty() && procs > 0;
            let free_whole = self.free[n] == procs as i64 && self.free_set.contains(n as u32);
            if self.idle.contains(n as u32) != idle || (idle && !free_whole) {
                return Err((
                    Some(n),
                    format!(
                        "indexed as idle: {}; {} claims, {} of {procs} processors free",
                        self.idle.contains(n as u32),
                        claims.len(),
                        self.free[n]
                    ),
                ));
            }
            idle_procs += if idle { procs as i64 } else { 0 };
        }
        if idle_procs != self.idle_procs {
            return Err((
                None,
                format!(
                    "{} idle processors counted, {idle_procs} idle",
                    self.idle_procs
                ),
            ));
        }
        Ok(())
    }

    /// Checks the machine's books at `now`: no node holds more processors, memory, swap or
    /// disk than it has at any instant from `now` on (running jobs, reservations, standing
    /// reservations), no SINGLEJOB node holds two claims at once, a SINGLEUSER one claims
    /// of two users, nor a node more jobs than its MAXJOB, every running job's
    /// nodes satisfy its request, and the free-processor index agrees with the running
    /// jobs. Costly: for tests and `--check` runs.
    pub(crate) fn verify(&self, now: Time) -> Result<(), Violation> {
        let over = |node: Option<usize>, job: Option<JobIdx>, detail: String| Violation {
            time: now,
            rule: Rule::NodeOverAllocated,
            job,
            node,
            detail,
        };
        let total: u64 = self.running.values().map(|p| p.procs).sum();
        if let Some((t, free)) = self.profile().steps().find(|&(t, f)| f < 0 && t >= now) {
            return Err(over(
                None,
                None,
                format!("{free} processors free from {t} on"),
            ));
        }
        if self.slots.is_some() || self.pooled {
            let free = match &self.slots {
                Some(pool) => pool.free_count() as i64,
                None => self.free.iter().map(|&f| f.max(0)).sum(),
            };
            let expected = self.total_procs() as i64 - total as i64;
            if free < expected {
                return Err(over(
                    None,
                    None,
                    format!(
                        "{free} processors free on the nodes, the running jobs leave {expected}"
                    ),
                ));
            }
            return Ok(());
        }
        if self.several_procs {
            self.verify_idle()
                .map_err(|(node, detail)| over(node, None, detail))?;
        }
        for (n, claims) in self.claims.iter().enumerate() {
            let cap = self.spec.nodes[n].capacity();
            let cap_jobs = self.spec.nodes[n].max_jobs;
            let single = self.spec.access.is_exclusive();
            // Where 3.3.1 places reservations by the tasks free at their start
            // (`holds_free_at_start`), a reservation may hold more than a claim beginning
            // later in its run leaves: each fits at its own start beside the running jobs,
            // the windows and the reservations laid before it (the lower ids), and the
            // running jobs and windows fit at every instant.
            let overlaps = self.maui_order && !single && self.spec.nodes[n].procs > 1;
            self.verify_starts_of_reservations(n, now, overlaps)
                .map_err(|detail| over(Some(n), None, detail))?;
            let points =
                std::iter::once(now).chain(claims.iter().map(|c| c.start).filter(|&s| s > now));
            for t in points {
                let active: Vec<&Claim> = claims
                    .iter()
                    .filter(|c| c.start <= t && t < c.end)
                    .collect();
                // A standing reservation's window holds its processors (the node's, or
                // RESOURCES=PROCS:n of them) against the jobs that may not use it, and
                // against nothing else: the node holds its jobs and, of each window, what
                // the jobs inside it leave (as `taken_at` counts them). Under exclusive
                // access a window keeps every other job off its node.
                let jobs: Vec<&Claim> = active
                    .iter()
                    .copied()
                    .filter(|o| !matches!(o.owner, Owner::Standing(_)))
                    .collect();
                let uses = |o: &Claim, k: u32, w: &Claim| {
                    self.claim_uses_window(o, k, w, self.standing_limit(k))
                };
                // Claims that must fit together: reservations that may overlap are
                // checked at their starts above.
                let fixed = |c: &Claim| !overlaps || !self.may_overlap(c);
                let counted: Vec<&Claim> = active.iter().copied().filter(|c| fixed(c)).collect();
                // As a job that may use no window counts them.
                let held = self.taken_at(n, &counted, (0, 0), (t, t + 1)).procs;
                let crowded = single || held > cap.procs;
                for c in active.iter().filter(|_| crowded) {
                    let Owner::Standing(k) = c.owner else {
                        continue;
                    };
                    // A job that began before the window may run into it: the window was
                    // not kept yet when it started (beyond DEPTH), or it overran.
                    let intruder = jobs.iter().filter(|o| fixed(o)).find(|o| {
                        let began_inside = match o.owner {
                            Owner::Held(_) => true,
                            Owner::Job(_) => o.start >= c.start,
                            Owner::Standing(_) => false,
                        };
                        began_inside && !uses(o, k, c)
                    });
                    if let Some(o) = intruder {
                        let job = match o.owner {
                            Owner::Job(j) => Some(j),
                            _ => None,
                        };
                        let name = &self.spec.standing[k as usize].name;
                        return Err(over(
                            Some(n),
                            job,
                            format!(
                                "at {t}: inside standing reservation {name}, which it may not use"
                            ),
                        ));
                    }
                }
                let mut used = Res::default();
                for c in jobs.iter().filter(|c| fixed(c)) {
                    used.add(c.takes);
                }
                let tracked = self.tracked;
                let too_much = used.procs > cap.procs
                    || (tracked.mem > 0 && used.mem > cap.mem)
                    || (tracked.swap > 0 && used.swap > cap.swap)
                    || (tracked.disk > 0 && used.disk > cap.disk);
                let two_users = self.spec.access == NodeAccess::SingleUser
                    && jobs
                        .iter()
                        .any(|c| jobs.iter().any(|o| self.foreign_to(c, self.claim_user(o))));
                let count = jobs.len() as u64;
                let over_job_limit = cap_jobs > 0 && count > u64::from(cap_jobs);
                if too_much || (single && jobs.len() > 1) || two_users || over_job_limit {
                    return Err(over(
                        Some(n),
                        None,
                        format!("at {t}: {} claims take {used:?} of {cap:?}", jobs.len()),
                    ));
                }
            }
        }
        for (job, p) in &self.running {
            let held: u64 = p
                .nodes
                .iter()
                .map(|&(n, k)| self.taken(p.whole, p.per_task, k, n).procs)
                .sum();
            if held != p.procs && p.end > now {
                return Err(over(
                    None,
                    Some(*job),
                    format!("{held} processors on its nodes, {} asked", p.procs),
                ));
            }
        }
        Ok(())
    }

    /// Where reservations may overlap (see [`Machine::verify`]): that each reservation on
    /// node `n` fits at its start beside the running jobs, the windows and the
    /// reservations laid before it, as its job counts them (a window it may use does not
    /// bind it).
    fn verify_starts_of_reservations(
        &self,
        n: usize,
        now: Time,
        overlaps: bool,
    ) -> Result<(), String> {
        if !overlaps {
            return Ok(());
        }
        let claims = &self.claims[n];
        let cap = self.spec.nodes[n].capacity();
        for h in claims.iter().filter(|c| c.end > now && self.may_overlap(c)) {
            let Owner::Held(id) = h.owner else {
                continue;
            };
            let t = h.start.max(now);
            let laid_before = |c: &&Claim| match c.owner {
                Owner::Held(other) => other < id,
                _ => true,
            };
            let others: Vec<&Claim> = claims
                .iter()
                .filter(|c| c.start <= t && t < c.end)
                .filter(laid_before)
                .collect();
            let reservation = self.held.get(id as usize).or(self.laid.get(id as usize));
            let short = reservation.map_or(0, |r| r.short);
            let taken = self.taken_at(n, &others, (h.may_use, short), (h.start, h.end));
            let free = cap.less(taken).procs;
            if h.takes.procs > free {
                return Err(format!(
                    "at {t}: reservation {id} takes {} processors where those laid before it leave {free}",
                    h.takes.procs
                ));
            }
        }
        Ok(())
    }

    /// Whether `c` is a reservation that may lie over claims beginning later in its run
    /// ([`Machine::holds_free_at_start`]): any but a DEDICATED job's, which holds its nodes
    /// whole.
    fn may_overlap(&self, c: &Claim) -> bool {
        let Owner::Held(id) = c.owner else {
            return false;
        };
        let reservation = self.held.get(id as usize).or(self.laid.get(id as usize));
        !reservation.is_some_and(|r| r.whole)
    }

    /// Where the scheduler plans a running job to end (its limit, a prediction, or an
    /// extension past either).
    pub fn planned_end(&self, job: JobIdx) -> Option<Time> {
        self.running.get(&job).map(|p| p.end)
    }

    /// The nodes of a running job as inclusive, merged node-index ranges.
    pub fn node_ranges(&self, job: JobIdx) -> Vec<(u32, u32)> {
        let Some(p) = self.running.get(&job) else {
            return Vec::new();
        };
        match &self.slots {
            Some(pool) => pool.node_ranges(&p.slots),
            None => {
                let mut r: Vec<(u32, u32)> = p.nodes.iter().map(|&(n, _)| (n, n)).collect();
                merge_ranges(&mut r);
                r
            }
        }
    }

    /// Tasks per node of a running job, in the order the policy chose the nodes (empty
    /// on a uniform pooled machine, where only [`Machine::node_ranges`] is kept).
    pub(crate) fn placement(&self, job: JobIdx) -> &[(u32, u64)] {
        self.running.get(&job).map_or(&[], |p| p.nodes.as_slice())
    }

    /// The slowest SPEED among a running job's nodes.
    pub fn speed_of(&self, job: JobIdx) -> f64 {
        if self.slots.is_some() {
            return self
                .spec
                .nodes
                .first()
                .map_or(1.0, crate::node::NodeSpec::speed);
        }
        self.placement(job)
            .iter()
            .map(|&(n, _)| self.spec.nodes[n as usize].speed())
            .fold(f64::INFINITY, f64::min)
    }

    /// The backfill window for jobs longer than `shorter` (MAUI-SEMANTICS §4.4).
    pub(crate) fn window_after(&self, now: Time, shorter: Time) -> Option<Window> {
        self.assert_settled();
        if self.pooled {
            return self.profile.window_after(now, shorter);
        }
        let mut procs = 0;
        let mut duration = FOREVER;
        let mut visit = |free: i64, until: Time| {
            if free > 0 && until - now > shorter {
                procs += free;
                duration = duration.min(until - now);
            }
        };
        if self.ranks_windows() {
            // On nodes of several processors a free node without a claim ahead may still
            // have a window of its own length (see `node_window`).
            let ranking = self.ranked_windows(now);
            visit(ranking.forever_procs, FOREVER);
            for &(until, free, _) in &ranking.nodes {
                visit(free, until);
            }
        } else if self.exhaustive
            || self.spec.access.is_exclusive()
            || self.job_capped
            || self.within != 0
            || self.busy_by_load.is_some()
        {
            let within =
                |n: &u32| self.within == 0 || self.spec.nodes[*n as usize].partition == self.within;
            let open = |n: &u32| !self.busy_by_load(*n as usize);
            for n in self
                .nodes_free_now(now)
                .into_iter()
                .filter(within)
                .filter(open)
            {
                let (free, until) = self.node_window(n, now);
                visit(free, until);
            }
        } else {
            // A free node without a claim ahead is free until a job takes it: those are
            // summed from the index, and only the others are visited, those free for
            // longer than `shorter` (the first of their ranking).
            let expired = self.expired_on(now);
            visit(self.plain_free_procs(&expired), FOREVER);
            // As for a job of every credential, like `node_window`.
            self.rank_ahead(now, self.listed_standing);
            let ranking = self.ranked_ahead.borrow();
            let longer = ranking
                .nodes
                .iter()
                .take_while(|&&(next_claim, _)| next_claim - now > shorter);
            // A free node's window ends at its next claim, which ranked it, unless a claim
            // holds it now: a reservation from now on or a standing window. (Here, under
            // Maui's order, every node has one processor: `ranks_windows`.)
            let nothing_held_now = self.nothing_held_now(now);
            if nothing_held_now && expired.is_empty() {
                // Then each free node ranked adds its processors until its next claim:
                // its run's sum does the same.
                let runs = ranking.runs.iter();
                for &(next_claim, free) in runs.take_while(|r| r.0 - now > shorter) {
                    visit(free, next_claim);
                }
                return (procs > 0).then_some(Window { procs, duration });
            }
            for &(next_claim, n) in longer {
                let free = self.free[n as usize];
                if nothing_held_now && free > 0 {
                    visit(free, next_claim);
                } else if free > 0 || expired.contains_key(&n) {
                    let (free, until) = self.node_window(n, now);
                    visit(free, until);
                }
            }
        }
        (procs > 0).then_some(Window { procs, duration })
    }

    /// Whether backfill windows come from [`Self::ranked_windows`]: on nodes of several
    /// processors under Maui's order (not when every node question is answered the long
    /// way, nor under exclusive access, where every node is visited).
    fn ranks_windows(&self) -> bool {
        self.several_procs
            && self.maui_order
            && !self.exhaustive
            && !self.spec.access.is_exclusive()
    }

    /// The nodes with processors free now in the partition asked within, with their
    /// window's end (`node_window`), taken once per instant and set of claims: the windows
    /// of one backfill and the nodes of each come from it.
    fn ranked_windows(&self, now: Time) -> Rc<WindowRanking> {
        let key = (self.version, now, self.within);
        let last = self.window_ranking.borrow().clone();
        if let Some(r) = &last {
            if (r.version, r.at, r.within) == key {
                return Rc::clone(r);
            }
        }
        let again = last.as_deref().and_then(|r| {
            let touched = self.touched_since_ranked(r, now)?;
            Some(self.ranked_again(r, touched, now))
        });
        let ranking = again.unwrap_or_else(|| self.ranked_anew(now));
        let ranking = Rc::new(ranking);
        *self.window_ranking.borrow_mut() = Some(Rc::clone(&ranking));
        ranking
    }

    /// Whether node `n` is one [`Self::ranked_windows`] visits (`freed`: the nodes of jobs
    /// past their planned end, sorted), and its window if it has processors free in it.
    fn ranked_window_of(
        &self,
        n: u32,
        now: Time,
        idle: bool,
        freed: &[u32],
        valid_until: &mut Time,
    ) -> Option<(i64, Time)> {
        let free_or_freed = self.free_set.contains(n) || freed.binary_search(&n).is_ok();
        let visited = if idle {
            free_or_freed && !self.idle.contains(n)
        } else {
            free_or_freed
                && (self.within == 0 || self.spec.nodes[n as usize].partition == self.within)
        };
        if !visited || self.busy_by_load(n as usize) {
            return None;
        }
        let ((free, until), to) = self.node_window_lasting(n, now);
        *valid_until = (*valid_until).min(to);
        (free > 0).then_some((free, until))
    }

    /// The nodes touched since the ranking `r` was made, when it can be brought up to
    /// date by looking at those alone (and the nodes of jobs past their planned end):
    /// every other node's window and place stand (a node's window changes only with its
    /// stamp or when a claim on it begins or ends, and its place with its free processors
    /// or claims, which touch it), unless node loads set nodes Busy.
    fn touched_since_ranked(&self, r: &WindowRanking, now: Time) -> Option<&[u32]> {
        if r.within != self.within
            || !(r.at <= now && now < r.valid_until)
            || self.busy_by_load.is_some()
            || r.touches < self.touch_log_from
        {
            return None;
        }
        let touched = &self.touch_log[(r.touches - self.touch_log_from) as usize..];
        // Beyond this, looking at every free node again costs no more.
        (touched.len() <= self.spec.nodes.len() / 4).then_some(touched)
    }

    /// [`Self::ranked_windows`] from the ranking `old`, the nodes `touched` since and
    /// those of jobs past their planned end then or now looked at again.
    fn ranked_again(&self, old: &WindowRanking, touched: &[u32], now: Time) -> WindowRanking {
        let mut r = old.clone();
        r.version = self.version;
        r.touches = self.touches;
        r.at = now;
        let freed = self.freed_by_expired_jobs(now);
        let idle = r.idle.is_some();
        let mut nodes = touched.to_vec();
        nodes.extend_from_slice(&r.freed);
        nodes.extend_from_slice(&freed);
        nodes.sort_unstable();
        nodes.dedup();
        for n in nodes {
            r.remove(n);
            if let Some(window) = self.ranked_window_of(n, now, idle, &freed, &mut r.valid_until) {
                r.add(n, window);
            }
        }
        r.freed = freed;
        if idle {
            r.idle = Some(self.idle.clone());
            r.forever_procs = self.idle_procs + r.forever_free;
        } else {
            r.forever_procs = r.forever_free;
        }
        r
    }

    /// [`Self::ranked_windows`] made by visiting every free node.
    fn ranked_anew(&self, now: Time) -> WindowRanking {
        // An idle node's window is all its processors for ever (`node_window`): those are
        // summed from the index, and only the other free nodes are visited.
        let idle =
            (self.several_procs && self.within == 0 && !self.job_capped).then(|| self.idle.clone());
        let freed = self.freed_by_expired_jobs(now);
        let mut valid_until = FOREVER;
        let visited: Vec<u32> = match &idle {
            Some(idle) => self
                .free_set
                .iter_without(idle)
                .chain(freed.iter().copied())
                .collect(),
            None => self.free_set.iter().chain(freed.iter().copied()).collect(),
        };
        let mut r = WindowRanking {
            version: self.version,
            touches: self.touches,
            at: now,
            valid_until: FOREVER,
            freed: Vec::new(),
            within: self.within,
            nodes: Vec::new(),
            forever: Vec::new(),
            forever_free: 0,
            forever_procs: 0,
            rank_of: vec![WindowRanking::NEITHER; self.spec.nodes.len()],
            idle,
        };
        let is_idle = r.idle.is_some();
        for n in visited {
            if let Some(window) = self.ranked_window_of(n, now, is_idle, &freed, &mut valid_until) {
                r.add(n, window);
            }
        }
        r.valid_until = valid_until;
        r.freed = freed;
        r.forever_procs = r.forever_free + if is_idle { self.idle_procs } else { 0 };
        r
    }

    /// Every backfill window at `now`, widest first.
    pub(crate) fn windows(&self, now: Time) -> Vec<Window> {
        crate::profile::ladder(|shorter| self.window_after(now, shorter))
    }

    /// [`Self::node_window`], kept per node until the node changes or its next claim
    /// starts or ends: a window's end does not depend on the instant asked between (the
    /// answer the long way, which the differential tests compare with, does not keep it).
    /// With it, the first instant after `now` when a claim on the node begins or ends:
    /// until then the window stands unless the node is touched.
    fn node_window_lasting(&self, n: u32, now: Time) -> ((i64, Time), Time) {
        let i = n as usize;
        let stamp = self.node_stamp[i];
        if let Some(w) = self.window_cache.borrow().get(i).copied().flatten() {
            if w.stamp == stamp && w.from <= now && now < w.to {
                return ((w.free, w.until), w.to);
            }
        }
        let (free, until) = self.node_window(n, now);
        let to = self.claims[i]
            .iter()
            .flat_map(|c| [c.start, c.end])
            .filter(|&t| t > now)
            .min()
            .unwrap_or(FOREVER);
        let mut cache = self.window_cache.borrow_mut();
        if cache.is_empty() {
            cache.resize(self.spec.nodes.len(), None);
        }
        cache[i] = Some(CachedWindow {
            stamp,
            from: now,
            to,
            free,
            until,
        });
        ((free, until), to)
    }

    /// Node `n`'s processors free now, and until when nothing claims them; on a node of
    /// several processors under Maui's order, until 3.3.1's window ends (MBF.c
    /// `MBFGetWindow`: the node's available time for a job of one task and one second,
    /// which lasts only to the second change of its free processors when the first is a
    /// job's end).
    fn node_window(&self, n: u32, now: Time) -> (i64, Time) {
        let cap = self.spec.nodes[n as usize].procs as i64;
        // As Maui's MBFGetWindow: for a job of every credential, which a standing
        // reservation with an access list lets in; each job is then checked on its own.
        let claims = self.claims[n as usize]
            .iter()
            .filter(|c| c.binds(self.listed_standing));
        let single = self.spec.access.is_exclusive();
        let active = claims.clone().filter(|c| c.start <= now && now < c.end);
        let free = if (single && active.clone().next().is_some())
            || (self.job_capped && self.at_job_limit(n as usize, now))
        {
            0
        } else {
            cap - active.map(|c| c.takes.procs as i64).sum::<i64>()
        };
        if cap > 1 && self.maui_order {
            let one = Res {
                procs: 1,
                ..Res::default()
            };
            let every_user = (self.listed_standing, NO_USER);
            let length = self.maui_available_for(n as usize, now, (1, 1), one, every_user);
            return (free, now.saturating_add(length).min(FOREVER));
        }
        let until = claims
            .filter(|c| c.start > now)
            .map(|c| c.start)
            .min()
            .unwrap_or(FOREVER);
        (free, until)
    }
}

/// The nodes with a claim ahead, by how long they stay free after `at` (the longest
/// first, the last node first among equals), for the claims ahead of `ahead_version`:
/// (the start of the node's next claim after `at`, or FOREVER; node). The ranking holds
/// at every later instant before `horizon`, the earliest of those starts: until one of
/// them begins, each node's time free shortens by the same amount.
#[derive(Debug, Clone)]
struct RankedAhead {
    ahead_version: u64,
    at: Time,
    horizon: Time,
    /// The standing reservations the ranking's job may use.
    may_use: u64,
    nodes: Vec<(Time, u32)>,
    /// The ranking's runs of nodes with the same next claim, in its order, each with the
    /// processors free on its nodes (more than none), kept as nodes are taken and given
    /// back (`free_index`): a backfill window or a start now counts them without a visit
    /// to each node.
    runs: Vec<(Time, i64)>,
    /// Each ranked node's run, by node (`NOT_RANKED` for the others).
    run_of: Vec<u32>,
}

/// [`RankedAhead::run_of`] of a node not in the ranking.
const NOT_RANKED: u32 = u32::MAX;

/// The tasks of `need` the nodes `on` accepts hold on the empty machine, where they can
/// host such a task (`features`, partition `part`), at most `most_on(n)` on node `n`.
fn tasks_when_empty(
    spec: &MachineSpec,
    need: Res,
    features: FeatureMask,
    part: u32,
    on: impl Fn(usize) -> bool,
    most_on: impl Fn(usize) -> u64,
) -> u64 {
    (0..spec.nodes.len())
        .filter(|&n| on(n) && spec.can_host(n, need, features, part))
        .map(|n| {
            let room = spec.tasks_per_node(tasks_within(spec.nodes[n].capacity(), need));
            room.min(most_on(n))
        })
        .sum()
}

/// Each node's list of running jobs as Maui 3.3.1 keeps it in simulation mode (MNode.c
/// `MJobAddToNL`, `MJobRemoveFromNL`), which its node start limits count
/// (`MNodeCheckPolicies`). An ended job leaves an empty slot; the next job added to the
/// node takes the first empty slot and ends the list right after it, so the jobs listed
/// beyond it drop out until the next iteration adds every running job again. Outside
/// simulation mode 3.3.1 rebuilds the lists from the resource manager in every iteration
/// (MCluster.c `MClusterUpdateNodeState`), so that every running job counts: the
/// default semantics count them all.
#[derive(Debug, Clone)]
struct JobLists {
    /// Per node: the listed jobs, `None` for an empty slot.
    lists: Vec<Vec<Option<JobIdx>>>,
    relisted_at: Time,
}

impl JobLists {
    fn new(nodes: usize) -> Self {
        JobLists {
            lists: vec![Vec::new(); nodes],
            relisted_at: Time::MIN,
        }
    }

    fn add(&mut self, n: u32, job: JobIdx) {
        let list = &mut self.lists[n as usize];
        if list.contains(&Some(job)) {
            return;
        }
        match list.iter().position(Option::is_none) {
            Some(slot) => {
                list[slot] = Some(job);
                list.truncate(slot + 1);
            }
            None => list.push(Some(job)),
        }
    }

    fn remove(&mut self, n: u32, job: JobIdx) {
        for slot in &mut self.lists[n as usize] {
            if *slot == Some(job) {
                *slot = None;
            }
        }
    }

    fn listed(&self, n: usize) -> impl Iterator<Item = JobIdx> + '_ {
        self.lists[n].iter().flatten().copied()
    }
}

/// What a node's running jobs hold, as its start limits count them.
#[derive(Debug, Clone, Copy, Default)]
struct RunningHere {
    /// Jobs and processors of the starting job's user.
    user_jobs: u64,
    user_procs: u64,
    /// Processors of every job.
    procs: u64,
}

/// The tasks of `per_task_procs` processors each that `limits` let start on a node whose
/// running jobs hold `here` (MNode.c `MNodeCheckPolicies`): none when the job's processors
/// per task plus its user's jobs there reach MAXJOBPERUSER; at most `1 + (limit − 1 −
/// used) / per_task_procs` under MAXPROCPERUSER (the user's processors) and MAXPROC (all).
fn start_limit_tasks_of(
    limits: crate::node::StartLimits,
    per_task_procs: u64,
    here: RunningHere,
) -> u64 {
    let most_jobs = u64::from(limits.max_jobs_per_user);
    if most_jobs > 0 && per_task_procs + here.user_jobs >= most_jobs {
        return 0;
    }
    let cap = |limit: u32, used: u64| {
        let limit = u64::from(limit);
        if limit == 0 {
            return u64::MAX;
        }
        // The job's first processor counted once, as 3.3.1's count starts at 1.
        limit
            .checked_sub(1 + used)
            .map_or(0, |left| 1 + left / per_task_procs)
    };
    cap(limits.max_procs_per_user, here.user_procs).min(cap(limits.max_procs, here.procs))
}

/// [`start_limit_tasks_of`] on a node nothing runs on, for tasks needing `need`.
fn start_limit_tasks_when_idle(limits: crate::node::StartLimits, need: Res) -> u64 {
    start_limit_tasks_of(limits, need.procs.max(1), RunningHere::default())
}

/// Marks a question about starting a job now while it is answered (the nodes' start limits
/// count then, [`crate::node::StartLimits`]).
struct StartingNow<'a>(&'a std::cell::Cell<bool>);

impl<'a> StartingNow<'a> {
    fn begin(flag: &'a std::cell::Cell<bool>) -> Self {
        flag.set(true);
        StartingNow(flag)
    }
}

impl Drop for StartingNow<'_> {
    fn drop(&mut self) {
        self.0.set(false);
    }
}

/// Whether `most` (0: no limit) or more of `claims`' jobs and job reservations (not
/// standing reservations' windows) hold the node at once at some instant of `[a, b)`.
fn holds_at_once<'c>(
    claims: impl Iterator<Item = &'c Claim> + Clone,
    a: Time,
    b: Time,
    most: u32,
) -> bool {
    if most == 0 {
        return false;
    }
    let jobs = claims.filter(|c| !matches!(c.owner, Owner::Standing(_)));
    let starts = jobs.clone().map(|c| c.start.max(a)).filter(|&t| t < b);
    let holding = |t: Time| jobs.clone().filter(|c| c.start <= t && t < c.end).count();
    std::iter::once(a)
        .chain(starts)
        .any(|t| holding(t) >= most as usize)
}

fn lcm(a: Time, b: Time) -> Time {
    let gcd = |mut x: Time, mut y: Time| {
        while y != 0 {
            (x, y) = (y, x % y);
        }
        x
    };
    (a / gcd(a, b)).saturating_mul(b)
}

/// Processors standing reservation `sr` holds on its `i`-th node.
fn held_procs(spec: &MachineSpec, sr: &crate::standing::StandingReservation, i: usize) -> u64 {
    sr.procs_held(i, spec.nodes[sr.nodes[i] as usize].procs)
}

/// Two descending sequences without common items merged into one descending sequence.
fn merge_descending<T: Ord + Copy>(
    a: impl Iterator<Item = T>,
    b: impl Iterator<Item = T>,
) -> impl Iterator<Item = T> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some(x), Some(y)) if x >= y => a.next(),
        (Some(_), Some(_)) | (None, Some(_)) => b.next(),
        (Some(_), None) => a.next(),
        (None, None) => None,
    })
}

/// The one-processor tasks the nodes without a claim ahead can host at an instant of an
/// earliest-start sweep: their processors that no running job holds past it. They change
/// only when a running job's planned end passes.
struct PlainNodes {
    capacity: i64,
    /// Running jobs' planned ends after now, with their processors, in time order: of all
    /// jobs, and of their claims on the followed nodes (which the capacity leaves out).
    ends: Vec<(Time, i64)>,
    followed_ends: Vec<(Time, i64)>,
    passed: (usize, usize),
    /// Processors running jobs hold past the sweep's instant, likewise.
    held: i64,
    followed_held: i64,
}

impl PlainNodes {
    fn new(m: &Machine, now: Time, followed: &[u32]) -> Self {
        let cap = |n: u32| m.spec.nodes[n as usize].procs as i64;
        let ends: Vec<(Time, i64)> = m
            .by_end
            .range((now + 1, JobIdx(0))..)
            .map(|&(end, j)| (end, m.running[&j].procs as i64))
            .collect();
        let mut followed_ends: Vec<(Time, i64)> = followed
            .iter()
            .flat_map(|&n| &m.claims[n as usize])
            .filter(|c| matches!(c.owner, Owner::Job(_)) && c.end > now)
            .map(|c| (c.end, c.takes.procs as i64))
            .collect();
        followed_ends.sort_unstable();
        PlainNodes {
            capacity: m.profile.total() - followed.iter().map(|&n| cap(n)).sum::<i64>(),
            held: ends.iter().map(|&(_, p)| p).sum(),
            followed_held: followed_ends.iter().map(|&(_, p)| p).sum(),
            ends,
            followed_ends,
            passed: (0, 0),
        }
    }

    fn tasks(&self) -> u64 {
        (self.capacity - (self.held - self.followed_held)).max(0) as u64
    }

    /// The next planned end, if any before [`FOREVER`].
    fn next_change(&self) -> Option<Time> {
        let end = self.ends.get(self.passed.0)?.0;
        (end < FOREVER).then_some(end)
    }

    fn advance_to(&mut self, t: Time) {
        while let Some(&(_, procs)) = self.ends.get(self.passed.0).filter(|e| e.0 <= t) {
            self.held -= procs;
            self.passed.0 += 1;
        }
        while let Some(&(_, procs)) = self.followed_ends.get(self.passed.1).filter(|e| e.0 <= t) {
            self.followed_held -= procs;
            self.passed.1 += 1;
        }
    }
}

/// The node features whose nodes hold `tasks` tasks of a job, from what each node offers
/// it (its features, tasks), counting `every_feature` (MSched.c `MJobSelectResourceSet`,
/// ONEOF): 0, no restriction, when none does, or when all of them together cannot (3.3.1
/// leaves the node list as it is then).
fn features_that_hold(
    offers: impl Iterator<Item = (FeatureMask, u64)>,
    every_feature: FeatureMask,
    tasks: u64,
) -> FeatureMask {
    let mut per_feature = [0u64; 64];
    for (features, held) in offers {
        for (f, count) in per_feature.iter_mut().enumerate() {
            if features & every_feature & (1 << f) != 0 {
                *count += held;
            }
        }
    }
    if tasks == 0 || per_feature.iter().sum::<u64>() < tasks {
        return 0;
    }
    (0..64)
        .filter(|&f| per_feature[f] >= tasks)
        .fold(0, |m, f| m | 1 << f)
}

#[cfg(test)]
mod tests;
