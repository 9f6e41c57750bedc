//! Processors of a uniform machine as numbered slots (node × processor), free ones kept
//! as bits: on a machine of identical nodes whose processors are pooled, this is all the
//! node bookkeeping needed, at a cost per decision of the free runs and the 64-slot words
//! it touches rather than the processors or nodes.

/// `(first slot, count)`.
pub type SlotRange = (u64, u64);

/// Free slots as bits (1 = free), with a summary bit per word that has a free slot, so
/// that the lowest free slot is found in a few word reads and a range is taken or given
/// back a word at a time.
#[derive(Debug, Clone)]
pub struct SlotPool {
    procs_per_node: u64,
    free: Vec<u64>,
    /// Bit `w` of word `w / 64`: word `w` of `free` has a free slot.
    any_free: Vec<u64>,
    free_count: u64,
}

impl SlotPool {
    pub(crate) fn new(total: u64, procs_per_node: u64) -> Self {
        let words = total.div_ceil(64) as usize;
        let mut pool = SlotPool {
            procs_per_node: procs_per_node.max(1),
            free: vec![0; words],
            any_free: vec![0; words.div_ceil(64)],
            free_count: 0,
        };
        pool.give((0, total));
        pool
    }

    pub(crate) fn free_count(&self) -> u64 {
        self.free_count
    }

    /// The lowest free slot in word `word` of `free` or after it, if any.
    fn first_free_from(&self, word: usize) -> Option<u64> {
        let mut s = word / 64;
        let mut mask = u64::MAX << (word % 64);
        while let Some(&summary) = self.any_free.get(s) {
            let bits = summary & mask;
            if bits != 0 {
                let w = s * 64 + bits.trailing_zeros() as usize;
                return Some(w as u64 * 64 + u64::from(self.free[w].trailing_zeros()));
            }
            s += 1;
            mask = u64::MAX;
        }
        None
    }

    /// How many slots from `start` on are free in a row (`start` free), at most `most`.
    fn run_from(&self, start: u64, most: u64) -> u64 {
        let mut len = 0;
        let mut at = start;
        while len < most {
            let w = (at / 64) as usize;
            let Some(&word) = self.free.get(w) else { break };
            let free_here = (!(word >> (at % 64))).trailing_zeros() as u64;
            let free_here = free_here.min(64 - at % 64);
            len += free_here;
            if free_here < 64 - at % 64 {
                break;
            }
            at += free_here;
        }
        len.min(most)
    }

    /// Sets the slots `[start, start + len)` free (`to_free`) or taken.
    fn set(&mut self, start: u64, len: u64, to_free: bool) {
        if len == 0 {
            return;
        }
        let (start, end) = (start as usize, (start + len) as usize);
        set_bits(&mut self.free, start, end, to_free);
        let (first, last) = (start / 64, (end - 1) / 64);
        // The words between the first and the last are now all free or all taken.
        if last > first + 1 {
            set_bits(&mut self.any_free, first + 1, last, to_free);
        }
        for w in [first, last] {
            let summary = 1u64 << (w % 64);
            if self.free[w] != 0 {
                self.any_free[w / 64] |= summary;
            } else {
                self.any_free[w / 64] &= !summary;
            }
        }
    }

    /// Takes up to `n` slots, lowest numbers first; returns the ranges taken (each free run
    /// whole, in order, the last cut to what was left to take).
    pub(crate) fn take(&mut self, mut n: u64, into: &mut Vec<SlotRange>) {
        let mut from = 0;
        while n > 0 {
            let Some(start) = self.first_free_from(from) else {
                return;
            };
            let k = self.run_from(start, n);
            self.set(start, k, false);
            into.push((start, k));
            self.free_count -= k;
            n -= k;
            from = ((start + k) / 64) as usize;
        }
    }

    /// Returns a range taken earlier.
    pub(crate) fn give(&mut self, (start, len): SlotRange) {
        if len == 0 {
            return;
        }
        self.free_count += len;
        self.set(start, len, true);
    }

    /// The nodes of some slot ranges as inclusive, merged node-index ranges.
    pub(crate) fn node_ranges(&self, slots: &[SlotRange]) -> Vec<(u32, u32)> {
        let mut nodes: Vec<(u32, u32)> = slots
            .iter()
            .map(|&(s, l)| {
                let first = (s / self.procs_per_node) as u32;
                let last = ((s + l - 1) / self.procs_per_node) as u32;
                (first, last)
            })
            .collect();
        merge_ranges(&mut nodes);
        nodes
    }
}

/// Sets (`on`) or clears bits `[from, to)` of `words`: the words between the first and
/// the last whole.
fn set_bits(words: &mut [u64], from: usize, to: usize, on: bool) {
    if from >= to {
        return;
    }
    let (first, last) = (from / 64, (to - 1) / 64);
    // Bits `[lo, hi)` of a word, 0 ≤ lo < hi ≤ 64.
    let bits = |lo: usize, hi: usize| (u64::MAX >> (64 - (hi - lo))) << lo;
    let apply = |word: &mut u64, bits: u64| {
        if on {
            *word |= bits;
        } else {
            *word &= !bits;
        }
    };
    let end_bit = (to - 1) % 64 + 1;
    if first == last {
        apply(&mut words[first], bits(from % 64, end_bit));
        return;
    }
    apply(&mut words[first], bits(from % 64, 64));
    words[first + 1..last].fill(if on { u64::MAX } else { 0 });
    apply(&mut words[last], bits(0, end_bit));
}

/// Sorts and merges overlapping or adjacent inclusive ranges, in as little memory.
pub(crate) fn merge_ranges(ranges: &mut Vec<(u32, u32)>) {
    ranges.sort_unstable();
    let mut out: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
    for &(a, b) in ranges.iter() {
        match out.last_mut() {
            Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    // Kept for a job's whole run and after: a wide job's nodes are often a few ranges.
    out.shrink_to_fit();
    *ranges = out;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_lowest_first_and_coalesces_on_return() {
        let mut p = SlotPool::new(10, 2);
        let mut a = Vec::new();
        p.take(3, &mut a);
        assert_eq!(a, vec![(0, 3)]);
        let mut b = Vec::new();
        p.take(4, &mut b);
        assert_eq!(b, vec![(3, 4)]);
        p.give(a[0]);
        let mut c = Vec::new();
        p.take(5, &mut c);
        assert_eq!(c, vec![(0, 3), (7, 2)]);
        assert_eq!(p.free_count(), 1);
        assert_eq!(p.node_ranges(&c), vec![(0, 1), (3, 4)]);
        for r in b.into_iter().chain(c) {
            p.give(r);
        }
        assert_eq!(p.free_count(), 10);
        let mut all = Vec::new();
        p.take(10, &mut all);
        assert_eq!(all, vec![(0, 10)], "coalesced");
    }

    /// The free ranges as the pool kept them before bits: a map of coalesced ranges.
    #[derive(Default)]
    struct Ranges(std::collections::BTreeMap<u64, u64>);

    impl Ranges {
        fn take(&mut self, mut n: u64, into: &mut Vec<SlotRange>) {
            while n > 0 {
                let Some((&start, &len)) = self.0.iter().next() else {
                    return;
                };
                let k = len.min(n);
                self.0.remove(&start);
                if k < len {
                    self.0.insert(start + k, len - k);
                }
                into.push((start, k));
                n -= k;
            }
        }

        fn give(&mut self, (mut start, mut len): SlotRange) {
            if let Some((&ps, &pl)) = self.0.range(..start).next_back() {
                if ps + pl == start {
                    self.0.remove(&ps);
                    start = ps;
                    len += pl;
                }
            }
            if let Some(next) = self.0.remove(&(start + len)) {
                len += next;
            }
            self.0.insert(start, len);
        }
    }

    proptest::proptest! {
        /// Taking and giving back in any order, the pool takes exactly the ranges a map of
        /// coalesced free ranges takes (word edges, sizes not a multiple of 64 included).
        #[test]
        fn takes_what_coalesced_ranges_take(
            // Past 4,096 slots the summary has more than one word.
            total in proptest::prop_oneof![1u64..400, 4000u64..9000],
            steps in proptest::collection::vec(
                (proptest::bool::ANY, proptest::prop_oneof![1u64..150, 150u64..3000], 0usize..8),
                1..60,
            ),
        ) {
            let mut pool = SlotPool::new(total, 4);
            let mut model = Ranges::default();
            model.give((0, total));
            let mut held: Vec<Vec<SlotRange>> = Vec::new();
            for (take, n, which) in steps {
                if take || held.is_empty() {
                    let (mut got, mut expected) = (Vec::new(), Vec::new());
                    pool.take(n, &mut got);
                    model.take(n, &mut expected);
                    proptest::prop_assert_eq!(&got, &expected);
                    held.push(got);
                } else {
                    for r in held.remove(which % held.len()) {
                        pool.give(r);
                        model.give(r);
                    }
                }
                let free: u64 = model.0.values().sum();
                proptest::prop_assert_eq!(pool.free_count(), free);
            }
        }
    }

    #[test]
    fn merges_ranges() {
        let mut r = vec![(5, 6), (0, 1), (2, 3), (9, 9)];
        merge_ranges(&mut r);
        assert_eq!(r, vec![(0, 3), (5, 6), (9, 9)]);
    }
}
