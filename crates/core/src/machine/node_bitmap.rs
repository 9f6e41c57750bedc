//! A set of node numbers kept in node order, for the free-node index: a bitmap with a
//! summary of its non-empty words. Insertion and removal take constant time (a node is
//! taken and given back at every start and end), and a walk in either direction skips
//! an empty stretch 4,096 nodes at a time, so that a walk that stops early (the last free
//! node first, say) costs what it visits, not the machine's size.

#[derive(Debug, Clone, Default)]
pub(super) struct NodeBitmap {
    words: Vec<u64>,
    /// Bit `i` set when `words[i]` is not zero.
    summary: Vec<u64>,
    len: usize,
}

impl NodeBitmap {
    /// An empty set of nodes below `nodes`.
    pub(super) fn new(nodes: usize) -> Self {
        let words = nodes.div_ceil(64);
        NodeBitmap {
            words: vec![0; words],
            summary: vec![0; words.div_ceil(64)],
            len: 0,
        }
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    pub(super) fn contains(&self, n: u32) -> bool {
        let n = n as usize;
        self.words
            .get(n / 64)
            .is_some_and(|&w| w & (1 << (n % 64)) != 0)
    }

    /// Adds node `n`; true if it was not there.
    pub(super) fn insert(&mut self, n: u32) -> bool {
        let n = n as usize;
        let w = &mut self.words[n / 64];
        let bit = 1 << (n % 64);
        if *w & bit != 0 {
            return false;
        }
        *w |= bit;
        self.summary[n / 4096] |= 1 << ((n / 64) % 64);
        self.len += 1;
        true
    }

    /// Removes node `n`; true if it was there.
    pub(super) fn remove(&mut self, n: u32) -> bool {
        let n = n as usize;
        let Some(w) = self.words.get_mut(n / 64) else {
            return false;
        };
        let bit = 1 << (n % 64);
        if *w & bit == 0 {
            return false;
        }
        *w &= !bit;
        if *w == 0 {
            self.summary[n / 4096] &= !(1 << ((n / 64) % 64));
        }
        self.len -= 1;
        true
    }

    /// The first node at or after `from`.
    fn first_from(&self, from: usize) -> Option<u32> {
        let w = from / 64;
        let here = self.words.get(w)? & (u64::MAX << (from % 64));
        if here != 0 {
            return Some((w * 64 + here.trailing_zeros() as usize) as u32);
        }
        let next = w + 1;
        let mut s = next / 64;
        let mut bits = self.summary.get(s)? & u64::MAX.checked_shl((next % 64) as u32).unwrap_or(0);
        loop {
            if bits != 0 {
                let word = s * 64 + bits.trailing_zeros() as usize;
                let lowest = self.words[word].trailing_zeros() as usize;
                return Some((word * 64 + lowest) as u32);
            }
            s += 1;
            bits = *self.summary.get(s)?;
        }
    }

    /// The last node at or before `upto`.
    fn last_upto(&self, upto: usize) -> Option<u32> {
        let w = upto / 64;
        let here = self.words.get(w)? & (u64::MAX >> (63 - upto % 64));
        if here != 0 {
            return Some((w * 64 + 63 - here.leading_zeros() as usize) as u32);
        }
        let prev = w.checked_sub(1)?;
        let mut s = prev / 64;
        let mut bits = self.summary[s] & (u64::MAX >> (63 - prev % 64));
        loop {
            if bits != 0 {
                let word = s * 64 + 63 - bits.leading_zeros() as usize;
                let highest = 63 - self.words[word].leading_zeros() as usize;
                return Some((word * 64 + highest) as u32);
            }
            s = s.checked_sub(1)?;
            bits = self.summary[s];
        }
    }

    /// The nodes of this set that are not in `other`, in node order (a word at a time:
    /// what this set holds, less what `other` does).
    pub(super) fn iter_without<'a>(
        &'a self,
        other: &'a NodeBitmap,
    ) -> impl Iterator<Item = u32> + 'a {
        let words = self
            .summary
            .iter()
            .enumerate()
            .flat_map(|(s, &summary)| SetBits(summary).map(move |b| s * 64 + b));
        words.flat_map(move |w| {
            let bits = self.words[w] & !other.words.get(w).copied().unwrap_or(0);
            SetBits(bits).map(move |b| (w * 64 + b) as u32)
        })
    }

    /// The nodes in node order.
    pub(super) fn iter(&self) -> impl DoubleEndedIterator<Item = u32> + Clone + '_ {
        Walk {
            set: self,
            front: 0,
            back: self.words.len() * 64,
        }
    }
}

/// The set bits of a word, lowest first.
struct SetBits(u64);

impl Iterator for SetBits {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let b = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(b)
    }
}

/// Nodes of a [`NodeBitmap`] in `[front, back)`, from either end.
#[derive(Clone)]
struct Walk<'a> {
    set: &'a NodeBitmap,
    front: usize,
    back: usize,
}

impl Iterator for Walk<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        if self.front >= self.back {
            return None;
        }
        let n = self.set.first_from(self.front)? as usize;
        if n >= self.back {
            self.front = self.back;
            return None;
        }
        self.front = n + 1;
        Some(n as u32)
    }
}

impl DoubleEndedIterator for Walk<'_> {
    fn next_back(&mut self) -> Option<u32> {
        if self.front >= self.back {
            return None;
        }
        let n = self.set.last_upto(self.back - 1)? as usize;
        if n < self.front {
            self.back = self.front;
            return None;
        }
        self.back = n;
        Some(n as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        /// Against a `BTreeSet`: membership, length and both walks, also from both ends
        /// at once, over sets that span several summary words.
        #[test]
        fn walks_like_an_ordered_set(
            size in 1usize..10_000,
            ops in prop::collection::vec((any::<bool>(), 0usize..10_000), 0..300),
            take_front in 0usize..50,
        ) {
            let mut set = NodeBitmap::new(size);
            let mut model = BTreeSet::new();
            for (add, n) in ops {
                let n = (n % size) as u32;
                if add {
                    prop_assert_eq!(set.insert(n), model.insert(n));
                } else {
                    prop_assert_eq!(set.remove(n), model.remove(&n));
                }
            }
            prop_assert_eq!(set.len(), model.len());
            prop_assert!(model.iter().all(|&n| set.contains(n)));
            prop_assert_eq!(set.iter().collect::<Vec<_>>(), model.iter().copied().collect::<Vec<_>>());
            prop_assert_eq!(set.iter().rev().collect::<Vec<_>>(), model.iter().rev().copied().collect::<Vec<_>>());
            let mut walk = set.iter();
            let front: Vec<u32> = walk.by_ref().take(take_front).collect();
            let back: Vec<u32> = walk.rev().collect();
            let expected: Vec<u32> = model.iter().copied().collect();
            let k = front.len();
            prop_assert_eq!(&front[..], &expected[..k]);
            prop_assert_eq!(back, expected[k..].iter().rev().copied().collect::<Vec<_>>());
        }

        /// Against `BTreeSet::difference`, with the other set of any size.
        #[test]
        fn iter_without_is_the_difference(
            size in 1usize..10_000,
            other_size in 1usize..10_000,
            ours in prop::collection::vec(0usize..10_000, 0..300),
            theirs in prop::collection::vec(0usize..10_000, 0..300),
        ) {
            let (mut set, mut other) = (NodeBitmap::new(size), NodeBitmap::new(other_size));
            let (mut model, mut other_model) = (BTreeSet::new(), BTreeSet::new());
            for n in ours {
                let n = (n % size) as u32;
                set.insert(n);
                model.insert(n);
            }
            for n in theirs {
                let n = (n % other_size) as u32;
                other.insert(n);
                other_model.insert(n);
            }
            let expected: Vec<u32> = model.difference(&other_model).copied().collect();
            prop_assert_eq!(set.iter_without(&other).collect::<Vec<_>>(), expected);
        }
    }

    #[test]
    fn the_last_node_of_a_summary_word_and_the_first_of_the_next() {
        let mut set = NodeBitmap::new(9000);
        for n in [0, 4095, 4096, 8999] {
            set.insert(n);
        }
        assert_eq!(set.iter().collect::<Vec<_>>(), [0, 4095, 4096, 8999]);
        assert_eq!(set.iter().rev().collect::<Vec<_>>(), [8999, 4096, 4095, 0]);
        set.remove(4095);
        set.remove(4096);
        assert_eq!(set.iter().rev().collect::<Vec<_>>(), [8999, 0]);
        assert!(!set.contains(9001) && !set.remove(70_000));
    }
}
