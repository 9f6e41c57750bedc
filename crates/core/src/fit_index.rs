//! The least processors and the shortest wallclock limit over ranges of the idle queue, in
//! queue order: a FIRSTFIT scan finds its next candidate that fits without visiting the
//! jobs that cannot (issue 26: an iteration's cost independent of the queue's length).
//!
//! A segment tree over slots (each queued job holds one, in queue order). Whether a job
//! fits is monotone in its shape (a job no wider and no longer than one that fits, fits
//! too), so a range whose least processors and shortest limit together do not fit holds
//! no job that fits, and the search passes it over whole.

use crate::Time;

/// The key of a slot no job holds, or whose job backfill never considers: it fits nothing.
pub(crate) const EMPTY: (u64, Time) = (u64::MAX, Time::MAX);

/// Leaves below which a search reads them one by one rather than walking the tree.
const SCANNED: usize = 64;

#[derive(Debug, Clone)]
pub(crate) struct FitIndex {
    /// Leaves, a power of two; leaf `i` is slot `i`.
    leaves: usize,
    /// Per tree node (the root is 1, node k's children 2k and 2k + 1, leaf i is node
    /// `leaves + i`): the least processors and the shortest limit below it.
    procs: Vec<u64>,
    wcl: Vec<Time>,
}

impl FitIndex {
    /// An index of `leaves` slots (at least that many, a power of two), all empty.
    pub(crate) fn new(leaves: usize) -> Self {
        let leaves = leaves.max(1).next_power_of_two();
        FitIndex {
            leaves,
            procs: vec![EMPTY.0; 2 * leaves],
            wcl: vec![EMPTY.1; 2 * leaves],
        }
    }

    /// How many slots it holds.
    pub(crate) fn slots(&self) -> usize {
        self.leaves
    }

    /// Sets the leaves from `keys` (slot 0 first) and every node above them, in one pass.
    pub(crate) fn fill(&mut self, keys: impl Iterator<Item = (u64, Time)>) {
        for (i, (procs, wcl)) in keys.enumerate() {
            self.procs[self.leaves + i] = procs;
            self.wcl[self.leaves + i] = wcl;
        }
        for node in (1..self.leaves).rev() {
            self.pull(node);
        }
    }

    /// Sets slot `slot`'s key.
    pub(crate) fn set(&mut self, slot: usize, (procs, wcl): (u64, Time)) {
        let mut node = self.leaves + slot;
        self.procs[node] = procs;
        self.wcl[node] = wcl;
        while node > 1 {
            node /= 2;
            self.pull(node);
        }
    }

    fn pull(&mut self, node: usize) {
        let (l, r) = (2 * node, 2 * node + 1);
        self.procs[node] = self.procs[l].min(self.procs[r]);
        self.wcl[node] = self.wcl[l].min(self.wcl[r]);
    }

    /// The first slot at or after `from` whose key `fits`, where `fits` is monotone: a key
    /// no larger in either part than one that fits, fits too.
    pub(crate) fn first(&self, from: usize, fits: &impl Fn(u64, Time) -> bool) -> Option<usize> {
        self.first_below(1, 0, self.leaves, from, fits)
    }

    fn first_below(
        &self,
        node: usize,
        lo: usize,
        hi: usize,
        from: usize,
        fits: &impl Fn(u64, Time) -> bool,
    ) -> Option<usize> {
        if hi <= from || !fits(self.procs[node], self.wcl[node]) {
            return None;
        }
        if hi - lo <= SCANNED {
            // A few leaves side by side are read faster than their subtrees are walked.
            let first = lo.max(from);
            let procs = &self.procs[self.leaves + first..self.leaves + hi];
            let wcl = &self.wcl[self.leaves + first..self.leaves + hi];
            let found = procs.iter().zip(wcl).position(|(&p, &w)| fits(p, w));
            return found.map(|i| first + i);
        }
        let mid = lo + (hi - lo) / 2;
        self.first_below(2 * node, lo, mid, from, fits)
            .or_else(|| self.first_below(2 * node + 1, mid, hi, from, fits))
    }
}

/// How many marks each slot holds, summed over prefixes (a Fenwick tree): BYPASS counted
/// lazily, each backfilled job a mark at its slot that every job queued ahead of it
/// (a smaller slot) counts.
#[derive(Debug, Clone)]
pub(crate) struct Marks {
    /// Fenwick sums, 1-based: `tree[i]` holds the marks of slots `(i - lowbit(i), i]`
    /// shifted by one.
    tree: Vec<u32>,
    total: u32,
}

impl Marks {
    pub(crate) fn new(slots: usize) -> Self {
        Marks {
            tree: vec![0; slots + 1],
            total: 0,
        }
    }

    /// Whether any mark is held.
    pub(crate) fn any(&self) -> bool {
        self.total > 0
    }

    /// One mark at `slot`.
    pub(crate) fn mark(&mut self, slot: usize) {
        let mut i = slot + 1;
        while i < self.tree.len() {
            self.tree[i] += 1;
            i += i & i.wrapping_neg();
        }
        self.total += 1;
    }

    /// The marks at slots after `slot`.
    pub(crate) fn after(&self, slot: usize) -> u32 {
        let mut up_to = 0;
        let mut i = (slot + 1).min(self.tree.len() - 1);
        while i > 0 {
            up_to += self.tree[i];
            i -= i & i.wrapping_neg();
        }
        self.total - up_to
    }

    /// Drops every mark.
    pub(crate) fn clear(&mut self) {
        if self.total > 0 {
            self.tree.fill(0);
            self.total = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The first slot found is the first a scan of every slot finds, for any
        /// staircase of what fits (processors allowed falling with the limit).
        #[test]
        fn the_first_fitting_slot_is_the_scans(
            keys in prop::collection::vec(prop::option::of((1u64..40, 1i64..50)), 0..120),
            sets in prop::collection::vec((0usize..120, prop::option::of((1u64..40, 1i64..50))), 0..30),
            stairs in prop::collection::vec((1i64..50, 0u64..40), 1..4),
            from in 0usize..130,
        ) {
            let mut keys: Vec<(u64, Time)> = keys.into_iter().map(|k| k.unwrap_or(EMPTY)).collect();
            let mut index = FitIndex::new(keys.len() + 5);
            index.fill(keys.iter().copied());
            for (slot, key) in sets {
                if slot < keys.len() {
                    keys[slot] = key.unwrap_or(EMPTY);
                    index.set(slot, keys[slot]);
                }
            }
            // Free processors over time: a job fits if every step it overlaps has room.
            let fits = |procs: u64, wcl: Time| stairs.iter().all(|&(t, free)| wcl <= t || procs <= free);
            let scan = (from..keys.len()).find(|&s| fits(keys[s].0, keys[s].1));
            prop_assert_eq!(index.first(from, &fits), scan);
        }

        /// The marks after a slot are those of every later slot.
        #[test]
        fn marks_after_a_slot_are_counted(marked in prop::collection::vec(0usize..50, 0..40), at in 0usize..60) {
            let mut marks = Marks::new(50);
            for &m in &marked {
                marks.mark(m);
            }
            let expected = marked.iter().filter(|&&m| m > at).count() as u32;
            prop_assert_eq!(marks.after(at), expected);
            prop_assert_eq!(marks.any(), !marked.is_empty());
            marks.clear();
            prop_assert_eq!(marks.after(0), 0);
        }
    }
}
