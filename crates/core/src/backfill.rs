//! Choosing jobs inside one backfill window (guide 8.2.2, MAUI-SEMANTICS §4.4).
//!
//! Every candidate handed in already fits the window's duration, so inside a window the
//! only constraint left is its processors: BESTFIT and GREEDY are two answers to the same
//! knapsack, one greedy and one searched.

/// A backfill candidate: its processors and its BACKFILLMETRIC value. Candidates are given
/// in priority order, which breaks ties between equal metrics.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    pub procs: u64,
    pub metric: f64,
}

/// Positions of `candidates`, best metric first, ties to higher priority (lower position).
fn by_metric(candidates: &[Candidate]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..candidates.len()).collect();
    order.sort_by(|&a, &b| {
        candidates[b]
            .metric
            .total_cmp(&candidates[a].metric)
            .then(a.cmp(&b))
    });
    order
}

/// BESTFIT: repeatedly the best candidate that still fits `capacity`, as long as
/// `try_start` accepts it (a job refused by a limit is passed over). Returns the started
/// positions in the order they started.
///
/// Taking the best that fits, again and again, is one pass over the candidates in metric
/// order: a candidate that did not fit never fits later, as capacity only shrinks.
pub(crate) fn best_fit(
    candidates: &[Candidate],
    capacity: u64,
    mut try_start: impl FnMut(usize) -> bool,
) -> Vec<usize> {
    let mut left = capacity;
    let mut started = Vec::new();
    for i in by_metric(candidates) {
        if candidates[i].procs <= left && try_start(i) {
            left -= candidates[i].procs;
            started.push(i);
        }
    }
    started
}

/// What BESTFIT would choose with every candidate accepted: positions and summed metric.
fn best_fit_choice(candidates: &[Candidate], order: &[usize], capacity: u64) -> (Vec<usize>, f64) {
    let mut left = capacity;
    let (mut chosen, mut value) = (Vec::new(), 0.0);
    for &i in order {
        if candidates[i].procs <= left {
            left -= candidates[i].procs;
            value += candidates[i].metric;
            chosen.push(i);
        }
    }
    (chosen, value)
}

/// The outcome of a GREEDY search over one window.
#[derive(Debug, Clone, PartialEq)]
pub struct Search {
    /// Positions of the chosen candidates, best metric first.
    pub chosen: Vec<usize>,
    pub value: f64,
    /// Combinations tried (BESTFIT's, the starting point, not counted).
    pub tried: u64,
    /// The search ended because `max_schedules` was reached, not because it was complete.
    pub truncated: bool,
}

/// GREEDY: the combination of candidates with the largest summed metric whose processors
/// fit `capacity`, by depth-first branch and bound over candidates in metric order, trying
/// at most `max_schedules` combinations. It starts from BESTFIT's choice, so its value is
/// never below BESTFIT's, however small the bound.
pub(crate) fn greedy(candidates: &[Candidate], capacity: u64, max_schedules: u64) -> Search {
    let order = by_metric(candidates);
    let (mut best, mut best_value) = best_fit_choice(candidates, &order, capacity);
    let n = order.len();
    // The best value per processor among the candidates from each position on: no
    // combination of them can add more than that times the processors left.
    let mut density_from = vec![0.0f64; n + 1];
    for k in (0..n).rev() {
        let c = candidates[order[k]];
        density_from[k] = density_from[k + 1].max(c.metric / c.procs.max(1) as f64);
    }
    let mut search = Search {
        chosen: Vec::new(),
        value: 0.0,
        tried: 0,
        truncated: false,
    };
    if best_value >= capacity as f64 * density_from[0] {
        // BESTFIT already reaches the bound: nothing can beat it.
        search.chosen = best;
        search.value = best_value;
        return search;
    }
    struct Frame {
        next: usize,
        left: u64,
        value: f64,
        /// The last candidate tried at this level: an identical one adds nothing new.
        last: Option<(u64, f64)>,
    }
    let mut path: Vec<usize> = Vec::new();
    let mut stack = vec![Frame {
        next: 0,
        left: capacity,
        value: 0.0,
        last: None,
    }];
    'search: while let Some(top) = stack.last_mut() {
        let mut child = None;
        while top.next < n {
            let k = top.next;
            top.next += 1;
            if top.value + top.left as f64 * density_from[k] <= best_value {
                top.next = n;
                break;
            }
            let c = candidates[order[k]];
            if c.procs > top.left || top.last == Some((c.procs, c.metric)) {
                continue;
            }
            top.last = Some((c.procs, c.metric));
            child = Some(k);
            break;
        }
        let Some(k) = child else {
            stack.pop();
            path.pop();
            continue;
        };
        if search.tried == max_schedules {
            search.truncated = true;
            break 'search;
        }
        search.tried += 1;
        let c = candidates[order[k]];
        let (left, value) = (top.left - c.procs, top.value + c.metric);
        path.push(order[k]);
        if value > best_value {
            best_value = value;
            best.clone_from(&path);
        }
        stack.push(Frame {
            next: k + 1,
            left,
            value,
            last: None,
        });
    }
    search.chosen = best;
    search.value = best_value;
    search
}

/// GREEDY as an iteration runs it: search, then start the chosen candidates (best metric
/// first) through `try_start`; if a limit refuses any, search again among the candidates
/// not yet tried, with the processors still left. Returns the started positions.
pub(crate) fn greedy_start(
    candidates: &[Candidate],
    capacity: u64,
    max_schedules: u64,
    mut try_start: impl FnMut(usize) -> bool,
) -> Vec<usize> {
    let mut open: Vec<usize> = (0..candidates.len()).collect();
    let mut left = capacity;
    let mut started = Vec::new();
    loop {
        let sub: Vec<Candidate> = open.iter().map(|&i| candidates[i]).collect();
        let search = greedy(&sub, left, max_schedules);
        let mut refused = false;
        let mut tried = Vec::with_capacity(search.chosen.len());
        for &k in &search.chosen {
            let i = open[k];
            tried.push(i);
            if try_start(i) {
                left -= candidates[i].procs;
                started.push(i);
            } else {
                refused = true;
            }
        }
        if !refused {
            return started;
        }
        open.retain(|i| !tried.contains(i));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cands(raw: &[(u64, f64)]) -> Vec<Candidate> {
        raw.iter()
            .map(|&(procs, metric)| Candidate { procs, metric })
            .collect()
    }

    fn value(c: &[Candidate], chosen: &[usize]) -> f64 {
        chosen.iter().map(|&i| c[i].metric).sum()
    }

    fn procs(c: &[Candidate], chosen: &[usize]) -> u64 {
        chosen.iter().map(|&i| c[i].procs).sum()
    }

    #[test]
    fn best_fit_takes_the_largest_metric_first_and_ties_go_to_priority() {
        // PROCS metric on a 6-processor window.
        let c = cands(&[(2, 2.0), (4, 4.0), (3, 3.0), (4, 4.0), (1, 1.0)]);
        assert_eq!(best_fit(&c, 6, |_| true), vec![1, 0]);
        // A refused candidate is passed over; the next best takes its place.
        assert_eq!(best_fit(&c, 6, |i| i != 1), vec![3, 0]);
    }

    /// The case BESTFIT gets wrong: 5 processors, candidates of 3, 2 and 2 (PROCS). BESTFIT
    /// takes 3 then one 2 (5, full); with 4 processors it takes 3 and wastes 1, where 2 + 2
    /// fills the window.
    #[test]
    fn greedy_fills_what_best_fit_wastes() {
        let c = cands(&[(3, 3.0), (2, 2.0), (2, 2.0)]);
        assert_eq!(value(&c, &best_fit(&c, 4, |_| true)), 3.0);
        let s = greedy(&c, 4, 10_000);
        assert_eq!(s.value, 4.0);
        assert_eq!(s.chosen, vec![1, 2]);
        assert!(!s.truncated);
        // A bound of one combination leaves BESTFIT's choice.
        let s = greedy(&c, 4, 0);
        assert_eq!(
            (s.value, s.chosen.clone(), s.truncated),
            (3.0, vec![0], true)
        );
    }

    #[test]
    fn greedy_start_searches_again_around_a_refused_candidate() {
        let c = cands(&[(3, 3.0), (2, 2.0), (2, 2.0), (2, 2.0)]);
        // The search picks 2 + 2 for 4 processors; the first is refused (a limit), so the
        // rest is searched again with 4 − 2 = 2 processors left: the last 2 takes them.
        let mut calls = Vec::new();
        let started = greedy_start(&c, 4, 100, |i| {
            calls.push(i);
            i != 1
        });
        assert_eq!(started, vec![2, 3]);
        assert_eq!(calls, vec![1, 2, 3]);
    }

    #[test]
    fn greedy_stops_at_once_when_best_fit_is_provably_optimal() {
        let c = cands(&[(2, 2.0), (2, 2.0), (1, 1.0)]);
        let s = greedy(&c, 4, 10_000);
        assert_eq!((s.value, s.tried), (4.0, 0));
    }

    /// Exhaustive optimum for small inputs.
    fn optimum(c: &[Candidate], capacity: u64) -> f64 {
        (0u32..1 << c.len())
            .map(|mask| {
                let chosen: Vec<usize> = (0..c.len()).filter(|i| mask >> i & 1 == 1).collect();
                if procs(c, &chosen) <= capacity {
                    value(c, &chosen)
                } else {
                    0.0
                }
            })
            .fold(0.0, f64::max)
    }

    fn candidates() -> impl Strategy<Value = Vec<Candidate>> {
        prop::collection::vec((1u64..9, 1u32..50), 0..12).prop_map(|raw| {
            raw.into_iter()
                .map(|(procs, m)| Candidate {
                    procs,
                    metric: f64::from(m),
                })
                .collect()
        })
    }

    proptest! {
        /// On every window GREEDY sees it is at least as good as BESTFIT, it never exceeds
        /// the window, and, given room to search, it finds the optimum.
        #[test]
        fn greedy_never_loses_to_best_fit(c in candidates(), capacity in 0u64..20, budget in 0u64..40) {
            let bf = value(&c, &best_fit(&c, capacity, |_| true));
            let bounded = greedy(&c, capacity, budget);
            prop_assert!(bounded.value >= bf);
            prop_assert!(procs(&c, &bounded.chosen) <= capacity);
            prop_assert_eq!(value(&c, &bounded.chosen), bounded.value);
            let full = greedy(&c, capacity, u64::MAX);
            prop_assert!(!full.truncated);
            prop_assert_eq!(full.value, optimum(&c, capacity));
        }
    }
}
