//! Maui 3.3.1's merge of the nodes' start ranges in a reservation's search, on nodes of one
//! processor, where some node's free window is exactly as long as the job's limit.
//!
//! 3.3.1 turns each node's free window `[open, close)` at least the limit `W` long into the
//! starts `[open, close − W]` and merges the nodes' lists one node after another, in node
//! order (MJob.c `MJobGetRange`, MRes.c `MRLMerge`). The merge counts a range on `[a, b)`,
//! so a node's last start is lost ([`Machine::ends_as_a_claim_begins`] states that alone),
//! except where the window is exactly `W` long: its single start is an *instant*, which the
//! merge counts with rules of its own that depend on the order of the nodes. This module
//! states those rules (worked out from LOGLEVEL 7 logs of the real-Maui cases
//! `reservealways-s{1,2,3}`, where they give the start of every one of 25,124 searches;
//! reports/MAUI-AGREEMENT.md, "QOS RESERVEALWAYS"):
//!
//! - a node's range *covers* an instant `T` when it has `a ≤ T < b`, *spans* it when
//!   `a < T < b`, *touches* it when `a < T = b`;
//! - the first node exact at `T` opens it at 1 + the earlier nodes covering `T`, or, when
//!   none does, the earlier nodes touching it; each later exact or covering node adds 1;
//! - once `T` is open, a touching node adds 1 only while no earlier node's range spans or
//!   touches `T` (the *edge*), and makes that edge;
//! - a node spanning an open `T` without an edge loses its starts from the last instant
//!   before `T` where an earlier node's range begins or ends, or an earlier instant lies
//!   (else from its own start), up to `T`: the merged list shadows them.
//!
//! The count at an instant is its own, never below the ranges covering it; elsewhere, the
//! ranges covering the time. The search's start is the earliest time the count reaches
//! the job's tasks.
//!
//! [`Machine::ends_as_a_claim_begins`]: super::Machine

use crate::Time;
use std::collections::{BTreeMap, BTreeSet};

/// The merged start ranges of a search: the ranges left (`a ≤ t < b`) and the instants'
/// counts.
#[derive(Debug, Default)]
pub(super) struct MergedStarts {
    ranges: Vec<(Time, Time)>,
    instants: BTreeMap<Time, u64>,
    /// Per instant, whether a range of the nodes merged so far spans or touches it (its
    /// edge), kept as ranges are added.
    edges: BTreeMap<Time, bool>,
    /// Where a kept range begins or ends, for the shadow's bound.
    bounds: BTreeSet<Time>,
}

impl MergedStarts {
    /// Merges one more node's start ranges (`a ≤ b`, inclusive of `b`; `a == b` is an
    /// instant), after those of every node before it.
    pub(super) fn add_node(&mut self, starts: &[(Time, Time)]) {
        let before = self.ranges.len();
        let open_before: Vec<Time> = self.instants.keys().copied().collect();
        let mut kept: Vec<(Time, Time)> = Vec::new();
        for &(a, b) in starts {
            if a == b {
                self.add_instant(a, before);
                continue;
            }
            let mut pieces = vec![(a, b)];
            for &t in open_before.iter().filter(|&&t| a <= t && t <= b) {
                let edge = self.edges[&t];
                if t < b {
                    *self.instants.get_mut(&t).expect("an open instant") += 1;
                    if a < t && !edge {
                        let from = self
                            .last_bound_before(t, &open_before)
                            .map_or(a, |g| g.max(a));
                        pieces = cut(&pieces, from, t);
                    }
                } else if !edge {
                    *self.instants.get_mut(&t).expect("an open instant") += 1;
                }
            }
            kept.extend(pieces.into_iter().filter(|&(x, y)| y > x));
        }
        for &(a, b) in &kept {
            self.bounds.insert(a);
            self.bounds.insert(b);
            for (_, edge) in self.edges.range_mut(a + 1..=b) {
                *edge = true;
            }
        }
        self.ranges.extend(kept);
    }

    /// An instant at `t` from a node whose window is exactly the limit long: opened at 1 +
    /// the earlier ranges covering it (or, none covering, touching it), else one more.
    fn add_instant(&mut self, t: Time, before: usize) {
        if let Some(count) = self.instants.get_mut(&t) {
            *count += 1;
            return;
        }
        let earlier = &self.ranges[..before];
        let covering = earlier.iter().filter(|&&(a, b)| a <= t && t < b).count() as u64;
        let touching = earlier.iter().filter(|&&(a, b)| a < t && t == b).count() as u64;
        let count = 1 + if covering > 0 { covering } else { touching };
        self.instants.insert(t, count);
        let edge = earlier.iter().any(|&(a, b)| a < t && t <= b);
        self.edges.insert(t, edge);
    }

    /// The last instant before `t` where a range of the nodes merged before begins or
    /// ends, or one of their instants (`open_before`, in order) lies.
    fn last_bound_before(&self, t: Time, open_before: &[Time]) -> Option<Time> {
        let bound = self.bounds.range(..t).next_back().copied();
        let instant = open_before.iter().rev().find(|&&i| i < t).copied();
        bound.max(instant)
    }

    /// The earliest start where the count reaches `tasks`.
    pub(super) fn earliest(&self, tasks: u64) -> Option<Time> {
        let mut starts: Vec<Time> = self.ranges.iter().map(|&(a, _)| a).collect();
        let mut ends: Vec<Time> = self.ranges.iter().map(|&(_, b)| b).collect();
        starts.sort_unstable();
        ends.sort_unstable();
        let mut times: Vec<Time> = starts.clone();
        times.extend(self.instants.keys());
        times.sort_unstable();
        times.dedup();
        // The ranges covering `t`: begun by it, less those ended by it (`a ≤ t < b`).
        let (mut begun, mut ended) = (0, 0);
        times.into_iter().find(|&t| {
            while begun < starts.len() && starts[begun] <= t {
                begun += 1;
            }
            while ended < ends.len() && ends[ended] <= t {
                ended += 1;
            }
            let covering = (begun - ended) as u64;
            let count = self.instants.get(&t).map_or(covering, |&i| i.max(covering));
            count >= tasks
        })
    }
}

/// `pieces` less the starts in `[from, to)`.
fn cut(pieces: &[(Time, Time)], from: Time, to: Time) -> Vec<(Time, Time)> {
    let mut left = Vec::new();
    for &(x, y) in pieces {
        if y <= from || x >= to {
            left.push((x, y));
            continue;
        }
        if x < from {
            left.push((x, from));
        }
        if y > to {
            left.push((to, y));
        }
    }
    left
}

#[cfg(test)]
mod tests {
    use super::{cut, MergedStarts};
    use crate::Time;
    use std::collections::BTreeMap;

    /// The rules as written, every question a scan of what was merged before: the
    /// reference the kept edges and the sweep of [`MergedStarts`] are checked against.
    fn merged_by_scans(nodes: &[Vec<(Time, Time)>], tasks: u64) -> Option<Time> {
        let mut ranges: Vec<(Time, Time)> = Vec::new();
        let mut instants: BTreeMap<Time, u64> = BTreeMap::new();
        for starts in nodes {
            let before = ranges.clone();
            let open_before = instants.clone();
            let mut kept = Vec::new();
            for &(a, b) in starts {
                if a == b {
                    let covering = before.iter().filter(|&&(x, y)| x <= a && a < y).count();
                    let touching = before.iter().filter(|&&(x, y)| x < a && a == y).count();
                    let opened = 1 + if covering > 0 { covering } else { touching } as u64;
                    instants.entry(a).and_modify(|c| *c += 1).or_insert(opened);
                    continue;
                }
                let mut pieces = vec![(a, b)];
                for &t in open_before.keys().filter(|&&t| a <= t && t <= b) {
                    let edge = before.iter().any(|&(x, y)| x < t && t <= y);
                    if t < b || !edge {
                        *instants.get_mut(&t).unwrap() += 1;
                    }
                    if t < b && a < t && !edge {
                        let bounds = before.iter().flat_map(|&(x, y)| [x, y]);
                        let g = bounds
                            .chain(open_before.keys().copied())
                            .filter(|&p| p < t)
                            .max();
                        pieces = cut(&pieces, g.map_or(a, |g| g.max(a)), t);
                    }
                }
                kept.extend(pieces.into_iter().filter(|&(x, y)| y > x));
            }
            ranges.extend(kept);
        }
        let mut times: Vec<Time> = ranges.iter().map(|&(a, _)| a).collect();
        times.extend(instants.keys());
        times.sort_unstable();
        times.into_iter().find(|&t| {
            let covering = ranges.iter().filter(|&&(a, b)| a <= t && t < b).count() as u64;
            instants.get(&t).map_or(covering, |&i| i.max(covering)) >= tasks
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

        /// Nodes' start ranges as free windows give them (apart by at least the limit and
        /// a claim, some exactly the limit long): the kept edges and the sweep give the
        /// start the rules' scans give.
        #[test]
        fn the_merge_matches_its_rules_by_scans(
            nodes in proptest::collection::vec(
                proptest::collection::vec((0i64..4, 0i64..2), 0..4), 1..16),
            tasks in 1u64..10,
        ) {
            let w = 4;
            // Per node: windows from gaps and lengths on a grid, as `free_windows` makes them.
            let starts: Vec<Vec<(Time, Time)>> = nodes
                .iter()
                .map(|windows| {
                    let mut at = 0;
                    let mut starts = Vec::new();
                    for &(gap, extra) in windows {
                        let open = at + gap;
                        let close = open + w + extra;
                        starts.push((open, close - w));
                        at = close + 1;
                    }
                    starts
                })
                .collect();
            let mut merged = MergedStarts::default();
            for s in &starts {
                merged.add_node(s);
            }
            proptest::prop_assert_eq!(merged.earliest(tasks), merged_by_scans(&starts, tasks));
        }
    }

    fn merged(nodes: &[&[(Time, Time)]]) -> MergedStarts {
        let mut m = MergedStarts::default();
        for starts in nodes {
            m.add_node(starts);
        }
        m
    }

    /// Without an instant, the count is the ranges covering the time, each losing its
    /// last start.
    #[test]
    fn ranges_alone_count_half_open() {
        let m = merged(&[&[(0, 10)], &[(5, 20)]]);
        assert_eq!(m.earliest(1), Some(0));
        assert_eq!(m.earliest(2), Some(5));
        let touching = merged(&[&[(0, 5)], &[(5, 20)]]);
        assert_eq!(touching.earliest(2), None);
    }

    /// s1's job 1103 at 43,980 s: ten nodes touch +3,990 before eight exact there; none
    /// covers it, so the instant opens at 1 + 10 and reaches 18.
    #[test]
    fn an_instant_opens_with_the_touching_nodes_where_none_covers_it() {
        let touch: Vec<[(Time, Time); 1]> = (0..10).map(|_| [(0, 3990)]).collect();
        let exact: Vec<[(Time, Time); 1]> = (0..8).map(|_| [(3990, 3990)]).collect();
        let nodes: Vec<&[(Time, Time)]> = touch
            .iter()
            .map(|r| &r[..])
            .chain(exact.iter().map(|r| &r[..]))
            .collect();
        assert_eq!(merged(&nodes).earliest(18), Some(3990));
        // s1's job 1103 at 43,530 s: a node opening at the instant first, so the touching
        // ones no longer count: 1 + 1, and the seven other exact nodes, 9.
        let mut first: Vec<&[(Time, Time)]> = vec![&[(3990, 10_000)]];
        first.extend(nodes.iter().copied());
        let m = merged(&first);
        assert_eq!(m.instants[&3990], 9);
        assert_eq!(m.earliest(11), None);
    }

    /// After the instant is open, one touching node counts, and none after a node that
    /// spans or touches it.
    #[test]
    fn a_touching_node_counts_once_an_instant_is_open_until_an_edge() {
        let m = merged(&[&[(100, 100)], &[(0, 100)], &[(0, 100)]]);
        assert_eq!(m.instants[&100], 2);
        let m = merged(&[&[(0, 200)], &[(100, 100)], &[(0, 100)]]);
        // Opened at 1 + 1 covering; the spanning node made an edge before: no more.
        assert_eq!(m.instants[&100], 2);
    }

    /// s3's job 1167 at 59,970 s: an instant at +5,790 from an earlier node shadows the
    /// later nodes' starts from now, so the earliest start is the instant.
    #[test]
    fn a_node_spanning_an_open_instant_loses_its_starts_before_it() {
        let mut nodes: Vec<Vec<(Time, Time)>> = vec![vec![(5790, 5790)]];
        nodes.extend((0..16).map(|_| vec![(0, 6720)]));
        let refs: Vec<&[(Time, Time)]> = nodes.iter().map(|v| &v[..]).collect();
        let m = merged(&refs);
        assert_eq!(m.earliest(16), Some(5790));
        // Without the instant, now.
        let refs: Vec<&[(Time, Time)]> = nodes[1..].iter().map(|v| &v[..]).collect();
        assert_eq!(merged(&refs).earliest(16), Some(0));
    }
}
