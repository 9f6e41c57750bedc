//! Nodes Busy by their load (NODEMAXLOAD, NODECFG MAXLOAD), as Maui 3.3.1's simulation
//! marks them ([`crate::node::StartLimits::busy_at_load`]): set at each iteration's node
//! update from the processors the node's jobs hold, cleared when one of its jobs ends.

use super::*;

/// Which nodes are Busy by their load, and which had a job end since the last node update.
#[derive(Debug, Clone)]
pub(super) struct BusyByLoad {
    busy: Vec<bool>,
    /// A job ended on the node between iterations: 3.3.1 updates nodes before it ends the
    /// iteration's jobs, and the end sets the node's state again from its processors.
    ended_since_update: Vec<bool>,
    /// Within an iteration: a job ending now (preempted) clears the state, but the next
    /// update sees the node's load again.
    iterating: bool,
    /// The nodes whose state the next update may change (listed once each): a job started
    /// or ended there, or the last update let it off for an end. Every other node's state
    /// stands, so an update costs what changed, not the machine's size.
    pending: Vec<u32>,
    listed: Vec<bool>,
    /// Scratch: the nodes an update visits.
    visiting: Vec<u32>,
}

impl BusyByLoad {
    /// `None` unless some node has a load limit.
    pub(super) fn new(spec: &MachineSpec) -> Option<Box<Self>> {
        let n = spec.nodes.len();
        spec.start_limits
            .iter()
            .any(|l| l.busy_at_load > 0)
            .then(|| {
                Box::new(BusyByLoad {
                    busy: vec![false; n],
                    ended_since_update: vec![false; n],
                    iterating: false,
                    pending: Vec::new(),
                    listed: vec![false; n],
                    visiting: Vec::new(),
                })
            })
    }

    pub(super) fn is_busy(&self, n: usize) -> bool {
        self.busy[n]
    }

    /// Node `n` for the next update to look at.
    fn list(&mut self, n: u32) {
        if !std::mem::replace(&mut self.listed[n as usize], true) {
            self.pending.push(n);
        }
    }
}

impl Machine {
    /// An iteration begins: 3.3.1's node update marks Busy each node whose jobs hold its
    /// limit, unless one of them has ended since (MSim.c `__MSimNodeUpdate`, then
    /// `MSimJobTerminate`).
    #[inline]
    pub(crate) fn update_node_states(&mut self) {
        if self.busy_by_load.is_some() {
            self.update_busy_by_load();
        }
    }

    #[cold]
    fn update_busy_by_load(&mut self) {
        let Some(mut b) = self.busy_by_load.take() else {
            return;
        };
        let mut changed = false;
        let mut visiting = std::mem::take(&mut b.visiting);
        visiting.clear();
        if self.exhaustive {
            // Every node: the reference the list is tested against.
            b.pending.clear();
            visiting.extend(0..self.spec.nodes.len() as u32);
        } else {
            std::mem::swap(&mut visiting, &mut b.pending);
        }
        for &n in &visiting {
            let n = n as usize;
            b.listed[n] = false;
            let held = self.spec.nodes[n].procs as i64 - self.free[n];
            let ended = std::mem::take(&mut b.ended_since_update[n]);
            let limit = self.spec.start_limits.get(n).map_or(0, |l| l.busy_at_load);
            let busy = limit > 0 && held >= i64::from(limit) && !ended;
            changed |= busy != std::mem::replace(&mut b.busy[n], busy);
            if ended {
                // Let off for the end only in this update.
                b.list(n as u32);
            }
        }
        b.visiting = visiting;
        b.iterating = true;
        self.busy_by_load = Some(b);
        if changed {
            self.version += 1;
        }
    }

    /// The iteration is over: ends from here on come before the next node update.
    #[inline]
    pub(crate) fn iteration_over(&mut self) {
        if let Some(b) = &mut self.busy_by_load {
            b.iterating = false;
        }
    }

    /// A job started or ended on node `n`: the next update looks at it.
    #[inline]
    pub(super) fn load_moved(&mut self, n: u32) {
        if let Some(b) = &mut self.busy_by_load {
            b.list(n);
        }
    }

    /// A job of node `n` ended: its state is set again from its processors.
    #[inline]
    pub(super) fn job_left_node(&mut self, n: u32) {
        if let Some(b) = &mut self.busy_by_load {
            b.busy[n as usize] = false;
            if !b.iterating {
                b.ended_since_update[n as usize] = true;
            }
        }
    }

    /// Whether node `n` is Busy by its load: no job starts there now, and no backfill window
    /// holds it (MBF.c `MBFGetWindow` takes Idle and Active nodes only).
    #[inline]
    pub(super) fn busy_by_load(&self, n: usize) -> bool {
        self.busy_by_load.as_ref().is_some_and(|b| b.is_busy(n))
    }
}
