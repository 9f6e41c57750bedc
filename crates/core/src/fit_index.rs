//! The idle queue's jobs by processors and wallclock limit, over ranges of the queue in
//! queue order: a FIRSTFIT scan finds its next candidate that may fit without visiting the
//! jobs that cannot (issue 26: an iteration's cost independent of the queue's length).
//!
//! A segment tree over slots (each queued job holds one, in queue order). A backfill
//! candidate fits only within a [`Bound`] of the plan's answer (no wider than the
//! processors free now; and no wider than those free from their first fall, or ending
//! before it). Each tree node keeps, per band of limits (doubling from a minute), the
//! fewest processors a job below it asks: a range holding no job the bound admits is
//! passed over whole, whatever mix of narrow long jobs and wide short ones it holds.

use crate::Time;

/// The key of a slot no job holds, or whose job backfill never considers: it fits nothing.
pub(crate) const EMPTY: (u64, Time) = (u64::MAX, Time::MAX);

/// Leaves below which a search reads them one by one rather than walking the tree.
const SCANNED: usize = 64;

/// Bands of limits a node keeps its fewest processors by: up to a minute, two, four, …
/// and the last for every limit beyond 2^14 minutes (eleven days).
const BANDS: usize = 16;

/// The band of a limit: limits of a lower band are shorter.
#[inline]
fn band(wcl: Time) -> usize {
    let minutes = (wcl.max(1) as u64).div_ceil(60);
    ((u64::BITS - (minutes - 1).leading_zeros()) as usize).min(BANDS - 1)
}

/// The jobs that may fit: no wider than `now` processors, and either no wider than
/// `then` or of a limit of at most `within` seconds (`then` at most `now`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bound {
    pub now: u64,
    pub then: u64,
    pub within: Time,
}

impl Bound {
    #[inline]
    pub(crate) fn admits(&self, (procs, wcl): (u64, Time)) -> bool {
        procs <= self.now && (procs <= self.then || wcl <= self.within)
    }
}

#[derive(Debug, Clone)]
pub(crate) struct FitIndex {
    /// Leaves, a power of two; leaf `i` is slot `i`.
    leaves: usize,
    /// Per slot: its job's processors and limit.
    procs: Vec<u64>,
    wcl: Vec<Time>,
    /// Per inner node (the root is 1, node k's children 2k and 2k + 1; the nodes from
    /// `leaves` on are the slots): per band, the fewest processors below it, held to 32
    /// bits (a count past them reads as `u32::MAX`, which only lets more ranges be looked
    /// into): half the memory, and the minima are taken several at a time.
    fewest: Vec<[u32; BANDS]>,
}

impl FitIndex {
    /// An index of `leaves` slots (at least that many, a power of two), all empty.
    pub(crate) fn new(leaves: usize) -> Self {
        let leaves = leaves.max(1).next_power_of_two();
        FitIndex {
            leaves,
            procs: vec![EMPTY.0; leaves],
            wcl: vec![EMPTY.1; leaves],
            fewest: vec![[u32::MAX; BANDS]; leaves],
        }
    }

    /// How many slots it holds.
    pub(crate) fn slots(&self) -> usize {
        self.leaves
    }

    /// Sets the leaves from `keys` (slot 0 first) and every node above them, in one pass.
    pub(crate) fn fill(&mut self, keys: impl Iterator<Item = (u64, Time)>) {
        for (i, (procs, wcl)) in keys.enumerate() {
            self.procs[i] = procs;
            self.wcl[i] = wcl;
        }
        for node in (1..self.leaves).rev() {
            self.pull(node);
        }
    }

    /// Sets slot `slot`'s key.
    pub(crate) fn set(&mut self, slot: usize, (procs, wcl): (u64, Time)) {
        self.procs[slot] = procs;
        self.wcl[slot] = wcl;
        let mut node = (self.leaves + slot) / 2;
        // Above a node whose bands did not change, none do.
        while node >= 1 && self.pull(node) {
            node /= 2;
        }
    }

    /// A node's bands from its children's (a child past the inner nodes is a slot);
    /// whether they changed.
    fn pull(&mut self, node: usize) -> bool {
        let mut fewest = [u32::MAX; BANDS];
        for child in [2 * node, 2 * node + 1] {
            if child >= self.leaves {
                let slot = child - self.leaves;
                let b = band(self.wcl[slot]);
                let procs = u32::try_from(self.procs[slot]).unwrap_or(u32::MAX);
                fewest[b] = fewest[b].min(procs);
            } else {
                for (f, &c) in fewest.iter_mut().zip(&self.fewest[child]) {
                    *f = (*f).min(c);
                }
            }
        }
        let changed = self.fewest[node] != fewest;
        self.fewest[node] = fewest;
        changed
    }

    /// Whether some job below inner node `node` may be admitted: exactly where one is no
    /// wider than `then` or of a band of limits all within the bound; taking the band that
    /// holds `within` whole otherwise.
    #[inline]
    fn may_admit(&self, node: usize, bound: &Bound, within_band: usize) -> bool {
        let fewest = &self.fewest[node];
        // Minima over the bands, taken several at a time, rather than a test per band.
        let fewest_of = |bands: &[u32]| u64::from(bands.iter().copied().min().unwrap_or(u32::MAX));
        fewest_of(fewest) <= bound.then || fewest_of(&fewest[..=within_band]) <= bound.now
    }

    /// The first slot at or after `from` whose key `bound` admits.
    pub(crate) fn first(&self, from: usize, bound: &Bound) -> Option<usize> {
        let within_band = band(bound.within);
        self.first_below(1, 0, self.leaves, from, bound, within_band)
    }

    fn first_below(
        &self,
        node: usize,
        lo: usize,
        hi: usize,
        from: usize,
        bound: &Bound,
        within_band: usize,
    ) -> Option<usize> {
        if hi <= from {
            return None;
        }
        if hi - lo <= SCANNED {
            // A few slots side by side are read faster than their subtrees are walked.
            let first = lo.max(from);
            let procs = &self.procs[first..hi];
            let wcl = &self.wcl[first..hi];
            let found = procs
                .iter()
                .zip(wcl)
                .position(|(&p, &w)| bound.admits((p, w)));
            return found.map(|i| first + i);
        }
        if !self.may_admit(node, bound, within_band) {
            return None;
        }
        let mid = lo + (hi - lo) / 2;
        self.first_below(2 * node, lo, mid, from, bound, within_band)
            .or_else(|| self.first_below(2 * node + 1, mid, hi, from, bound, within_band))
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
        /// The first slot found is the first a scan of every slot finds, for any bound.
        #[test]
        fn the_first_admitted_slot_is_the_scans(
            keys in prop::collection::vec(prop::option::of((1u64..40, 1i64..200_000)), 0..300),
            sets in prop::collection::vec((0usize..300, prop::option::of((1u64..40, 1i64..200_000))), 0..30),
            (now, then, within) in (0u64..40, 0u64..40, 0i64..250_000),
            from in 0usize..310,
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
            let bound = Bound { now, then: then.min(now), within };
            let scan = (from..keys.len()).find(|&s| bound.admits(keys[s]));
            prop_assert_eq!(index.first(from, &bound), scan);
        }

        /// Bands rise with the limit.
        #[test]
        fn bands_rise_with_the_limit(a in 0i64..10_000_000, b in 0i64..10_000_000) {
            if band(a) < band(b) {
                prop_assert!(a < b);
            }
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
