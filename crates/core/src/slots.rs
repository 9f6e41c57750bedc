//! Processors of a uniform machine as numbered slots (node × processor), free ones kept
//! as coalesced ranges: on a machine of identical nodes whose processors are pooled, this
//! is all the node bookkeeping needed, at a cost per decision of the ranges it touches
//! rather than the processors or nodes.

use std::collections::BTreeMap;

/// `(first slot, count)`.
pub type SlotRange = (u64, u64);

#[derive(Debug, Clone)]
pub struct SlotPool {
    procs_per_node: u64,
    /// Free ranges by first slot, never adjacent (always coalesced).
    free: BTreeMap<u64, u64>,
    free_count: u64,
}

impl SlotPool {
    pub(crate) fn new(total: u64, procs_per_node: u64) -> Self {
        let mut free = BTreeMap::new();
        if total > 0 {
            free.insert(0, total);
        }
        SlotPool {
            procs_per_node: procs_per_node.max(1),
            free,
            free_count: total,
        }
    }

    pub(crate) fn free_count(&self) -> u64 {
        self.free_count
    }

    /// Takes up to `n` slots, lowest numbers first; returns the ranges taken.
    pub(crate) fn take(&mut self, mut n: u64, into: &mut Vec<SlotRange>) {
        while n > 0 {
            let Some((&start, &len)) = self.free.iter().next() else {
                return;
            };
            let k = len.min(n);
            self.free.remove(&start);
            if k < len {
                self.free.insert(start + k, len - k);
            }
            into.push((start, k));
            self.free_count -= k;
            n -= k;
        }
    }

    /// Returns a range taken earlier.
    pub(crate) fn give(&mut self, (mut start, mut len): SlotRange) {
        if len == 0 {
            return;
        }
        self.free_count += len;
        if let Some((&ps, &pl)) = self.free.range(..start).next_back() {
            if ps + pl == start {
                self.free.remove(&ps);
                start = ps;
                len += pl;
            }
        }
        if let Some(next) = self.free.remove(&(start + len)) {
            len += next;
        }
        self.free.insert(start, len);
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
        assert_eq!(p.free.len(), 1, "{:?}", p.free);
    }

    #[test]
    fn merges_ranges() {
        let mut r = vec![(5, 6), (0, 1), (2, 3), (9, 9)];
        merge_ranges(&mut r);
        assert_eq!(r, vec![(0, 3), (5, 6), (9, 9)]);
    }
}
