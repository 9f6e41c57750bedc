//! The free-node index: the nodes with free processors (all of them, by how many on a
//! pooled machine of mixed nodes, and those without a claim ahead, whose processors are
//! also summed for the bulk count), kept after every change to a node's free processors
//! or claims ahead; and the idle nodes of several processors (no claim at all).

use super::*;

impl Machine {
    pub(super) fn index(&mut self, n: u32) {
        self.count_in_ranking(n, 1);
        let f = self.free[n as usize];
        if f > 0 {
            self.free_set.insert(n);
            if let Some(bucket) = self.by_free.get_mut(f as usize) {
                bucket.insert(n);
            }
            if self.ahead.get(n as usize).is_none_or(|&k| k == 0) {
                self.free_plain.insert(n);
                self.plain_procs += f;
            }
        }
    }

    fn unindex(&mut self, n: u32) {
        self.count_in_ranking(n, -1);
        let f = self.free[n as usize];
        if f > 0 {
            self.free_set.remove(n);
            if let Some(bucket) = self.by_free.get_mut(f as usize) {
                bucket.remove(&n);
            }
            if self.free_plain.remove(n) {
                self.plain_procs -= f;
            }
        }
    }

    /// Adds (`sign` 1) or takes off (-1) node `n`'s free processors in its run of the
    /// ranking of nodes with a claim ahead, if ranked (see `RankedAhead::runs`).
    fn count_in_ranking(&mut self, n: u32, sign: i64) {
        let f = self.free[n as usize];
        let ranking = self.ranked_ahead.get_mut();
        match ranking.run_of.get(n as usize) {
            Some(&run) if f > 0 && run != NOT_RANKED => ranking.runs[run as usize].1 += sign * f,
            _ => {}
        }
    }

    pub(super) fn claim_ahead(&mut self, n: u32) {
        self.ahead_version += 1;
        let k = &mut self.ahead[n as usize];
        *k += 1;
        if *k == 1 {
            self.ahead_nodes.insert(n);
            if self.free_plain.remove(n) {
                self.plain_procs -= self.free[n as usize];
            }
        }
    }

    pub(super) fn unclaim_ahead(&mut self, n: u32) {
        self.ahead_version += 1;
        let k = &mut self.ahead[n as usize];
        *k -= 1;
        if *k == 0 {
            self.ahead_nodes.remove(n);
            let f = self.free[n as usize];
            if f > 0 {
                self.free_plain.insert(n);
                self.plain_procs += f;
            }
        }
    }

    /// Keeps [`Machine::idle`] after a change to node `n`'s claims.
    pub(super) fn note_claims(&mut self, n: u32) {
        if !self.several_procs {
            return;
        }
        let procs = self.spec.nodes[n as usize].procs;
        let idle = self.claims[n as usize].is_empty() && procs > 0;
        if idle && self.idle.insert(n) {
            self.idle_procs += procs as i64;
        } else if !idle && self.idle.remove(n) {
            self.idle_procs -= procs as i64;
        }
    }

    /// Notes a change to node `n`'s claims or free processors (see `node_stamp`).
    pub(super) fn touch(&mut self, n: u32) {
        // Only window rankings read the log, and only on nodes of several processors.
        if self.several_procs {
            if self.touch_log.len() >= self.node_stamp.len().max(64) {
                self.touch_log.clear();
                self.touch_log_from = self.touches;
            }
            self.touch_log.push(n);
        }
        self.touches += 1;
        self.node_stamp[n as usize] = self.touches;
    }

    pub(super) fn take_node(&mut self, n: u32, procs: i64, now: Time) {
        self.touch(n);
        self.load_moved(n);
        self.unindex(n);
        self.free[n as usize] -= procs;
        self.index(n);
        let i = n as usize;
        self.jobs_on[i] += 1;
        if self.jobs_on[i] == 1 {
            self.busy_since[i] = Some(now);
        }
    }

    pub(super) fn give_node(&mut self, n: u32, procs: i64, at: Time) {
        self.touch(n);
        self.load_moved(n);
        self.unindex(n);
        self.free[n as usize] += procs;
        self.index(n);
        let i = n as usize;
        self.jobs_on[i] -= 1;
        if self.jobs_on[i] == 0 {
            if let Some(s) = self.busy_since[i].take() {
                self.busy_total[i] += (at - s).max(0);
            }
        }
    }
}
