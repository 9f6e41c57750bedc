//! The priority order of the idle queue, kept from one iteration to the next.
//!
//! Priorities change little between iterations, so the order is carried over: the keys of
//! the last iteration follow the caller's removal of the jobs it started and take the new
//! jobs in, and the sort sees nearly sorted input. Where the policy looks no deeper than
//! the jobs that fit and the first RESERVATIONDEPTH others, the order is built from
//! priority bounds instead of evaluating every job ([`PriorityOrder::order_by_bounds`]).
//! The scheduler asks for an order and reports back what the iteration started and
//! backfilled; nothing else of it is visible.

use crate::fairshare::{Fairshare, FsAt};
use crate::job::{JobIdx, JobTerms, QueuedJob};
use crate::priority::PriorityConfig;
use crate::queue::Queue;
use crate::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What evaluating priorities at one instant needs.
#[derive(Clone, Copy)]
pub(crate) struct Evaluation<'a> {
    pub priority: &'a PriorityConfig,
    /// Brought up to `now` ([`Fairshare::advance`]).
    pub fairshare: &'a Fairshare,
    pub now: Time,
}

impl Evaluation<'_> {
    /// The fairshare deltas at `now`, worked out once per pass; `None` when fairshare is
    /// off, so that the caller can skip them.
    fn deltas(&self) -> Option<FsAt<'_>> {
        self.fairshare
            .enabled()
            .then(|| self.fairshare.at(self.now))
    }
}

/// The priority order and what is carried to compute the next one cheaply.
#[derive(Debug, Clone)]
pub(crate) struct PriorityOrder {
    /// The priority order is the queue order whenever no queued job breaks it
    /// ([`QueuedJob::breaks_queue_order`]): sorting can be skipped.
    queue_order: bool,
    /// Queued jobs that break the queue order, counted as they are admitted and started,
    /// so the fast path needs no scan of the queue.
    out_of_queue_order: usize,
    /// Queue positions in priority order, highest first.
    order: Vec<usize>,
    /// Whether `order` is every queue position in queue order (rank = position).
    identity: bool,
    /// Priority sort keys, kept in the last iteration's order (so the next iteration's
    /// sort sees nearly sorted input); in bounded iterations, in queue order.
    keys: Vec<Key>,
    /// Whether iterations may order the jobs from priority bounds.
    bounded: bool,
    /// Evaluate every priority in every iteration (to check the bounded path against).
    exhaustive: bool,
    /// Iterations the bounded path decided.
    bounded_iterations: u64,
    /// Scratch of bounded iterations: the backfilled jobs' keys; the jobs to order
    /// exactly; the highest lower bounds of the jobs that do not fit.
    backfilled_keys: Vec<Key>,
    newcomers: Vec<usize>,
    top_lows: BinaryHeap<Reverse<i64>>,
    /// In bounded iterations: the positions of the last iteration's exactly ordered jobs,
    /// in that order, carried like the keys.
    ranked: Vec<usize>,
    /// The queue as the last iteration left it: its length and the positions it started
    /// (ascending), so that `keys` can follow the caller's removal of started jobs.
    last_len: usize,
    last_started: Vec<usize>,
    /// Queued jobs without a key: parked ones ([`Self::forget_ranks`]).
    unkeyed: usize,
    /// How many keys at the front came from the last order (the rest were added since).
    carried: usize,
    /// Scratch of the merge in [`Self::sort_keys`].
    merged: Vec<Key>,
}

impl PriorityOrder {
    /// `queue_order`: priority is a non-decreasing function of queue time alone
    /// ([`PriorityConfig::is_queue_order`]); `bounded`: the policy allows ordering from
    /// bounds (see [`Self::order_by_bounds`]).
    pub(crate) fn new(queue_order: bool, bounded: bool) -> Self {
        PriorityOrder {
            queue_order,
            out_of_queue_order: 0,
            order: Vec::new(),
            identity: false,
            keys: Vec::new(),
            bounded,
            exhaustive: false,
            bounded_iterations: 0,
            backfilled_keys: Vec::new(),
            newcomers: Vec::new(),
            top_lows: BinaryHeap::new(),
            ranked: Vec::new(),
            last_len: 0,
            last_started: Vec::new(),
            unkeyed: 0,
            carried: 0,
            merged: Vec::new(),
        }
    }

    #[inline]
    pub(crate) fn set_exhaustive(&mut self, exhaustive: bool) {
        self.exhaustive = exhaustive;
    }

    #[inline]
    pub(crate) fn bounded_iterations(&self) -> u64 {
        self.bounded_iterations
    }

    #[inline]
    pub(crate) fn is_queue_order(&self) -> bool {
        self.queue_order
    }

    /// Whether the priority order is the queue order now: priority is a function of queue
    /// time alone and no queued job breaks the queue order.
    #[inline]
    fn in_queue_order(&self) -> bool {
        self.queue_order && self.out_of_queue_order == 0
    }

    /// A job joined the queue.
    #[inline]
    pub(crate) fn admitted(&mut self, job: &QueuedJob) {
        if job.breaks_queue_order() {
            self.out_of_queue_order += 1;
        }
    }

    /// A queued job started.
    #[inline]
    pub(crate) fn started(&mut self, job: &QueuedJob) {
        if job.breaks_queue_order() {
            self.out_of_queue_order -= 1;
        }
    }

    /// Moves a queued job's effective queue start to `now` (JOBPRIOACCRUALPOLICY),
    /// keeping the count of jobs out of queue order.
    #[inline]
    pub(crate) fn restart_queue_time(&mut self, job: &mut QueuedJob, now: Time) {
        if job.eff_queue_start == now {
            return;
        }
        let was_in_order = !job.breaks_queue_order();
        job.eff_queue_start = now;
        if was_in_order && job.breaks_queue_order() {
            self.out_of_queue_order += 1;
        }
    }

    /// The order the last call to [`Self::prioritize`] or [`Self::order_by_bounds`] made,
    /// lent out for the iteration; give it back with [`Self::finish_iteration`].
    #[inline]
    pub(crate) fn take(&mut self) -> Vec<usize> {
        std::mem::take(&mut self.order)
    }

    /// The iteration is over: `order` (from [`Self::take`]) comes back and the queue
    /// positions it started are noted, so the keys can follow their removal.
    #[inline]
    pub(crate) fn finish_iteration(
        &mut self,
        order: Vec<usize>,
        started: impl Iterator<Item = usize>,
    ) {
        self.order = order;
        self.last_started.extend(started);
        self.last_started.sort_unstable();
    }

    /// The priority of each job of the order [`Self::prioritize`] made, highest first
    /// (empty where the order came without evaluating every priority).
    pub(crate) fn evaluated_priorities(&self) -> impl Iterator<Item = i64> + '_ {
        self.keys.iter().map(|k| -k.neg_priority)
    }

    /// The current order.
    #[inline]
    pub(crate) fn current(&self) -> &[usize] {
        &self.order
    }

    /// Whether the order [`Self::prioritize`] made is every queue position in queue
    /// order, so that a job's rank is its position.
    #[inline]
    pub(crate) fn is_identity(&self) -> bool {
        self.identity
    }

    /// Brings the last iteration's keys up to date with the queue, assuming the caller
    /// removed exactly the jobs started then and appended new ones (the evaluation in
    /// [`Self::prioritize`] checks that every key still names its job), and gives a key to
    /// each job of `unparked` (positions that came back from parking). Parked jobs have
    /// none. False when even the counts disagree.
    fn carry_keys_over(&mut self, queue: &Queue, unparked: &[usize]) -> bool {
        let kept = self.last_len - self.last_started.len().min(self.last_len);
        if self.keys.len() + self.unkeyed != self.last_len || queue.len() < kept {
            return false;
        }
        if !self.last_started.is_empty() {
            // A job's position falls by the number of started jobs before it.
            let started = &self.last_started;
            let carry = |pos: &mut usize| {
                let before = started.partition_point(|&s| s < *pos);
                let was_started = started.get(before) == Some(pos);
                *pos -= before;
                !was_started
            };
            self.keys.retain_mut(|key| carry(&mut key.pos));
            self.ranked.retain_mut(carry);
        }
        self.carried = self.keys.len();
        // (After a start over, every job is new: the unparked among them too.)
        let returning = unparked.iter().filter(|&&pos| pos < kept);
        let back = returning.clone().count();
        if back > self.unkeyed {
            return false;
        }
        self.unkeyed -= back;
        self.keys
            .extend(returning.map(|&pos| Key::fresh(pos, &queue[pos])));
        for pos in kept..queue.len() {
            let j = &queue[pos];
            if j.parked.is_some() {
                self.unkeyed += 1;
            } else {
                self.keys.push(Key::fresh(pos, j));
            }
        }
        self.last_len = queue.len();
        self.last_started.clear();
        true
    }

    /// The jobs at these `ranks` of the order just made (ascending) were parked: their
    /// keys go until they come back.
    pub(crate) fn forget_ranks(&mut self, ranks: &[usize]) {
        debug_assert!(!self.bounded, "parking beside a bounded order");
        let mut next = ranks.iter().peekable();
        let mut rank = 0;
        self.keys.retain(|_| {
            let parked = next.peek() == Some(&&rank);
            if parked {
                next.next();
            }
            rank += 1;
            !parked
        });
        self.unkeyed += ranks.len();
    }

    /// Sorts the keys: those carried from the last order come nearly sorted; the keys
    /// added after them (new jobs, jobs back from parking: many at once where a user's
    /// usage moved) are sorted apart and merged in.
    fn sort_keys(&mut self) {
        let carried = self.carried.min(self.keys.len());
        let (old, new) = self.keys.split_at_mut(carried);
        sort_nearly_sorted(old);
        new.sort_unstable();
        if new.is_empty() || old.last() <= new.first() {
            return;
        }
        self.merged.clear();
        let (mut a, mut b) = (0, carried);
        while a < carried && b < self.keys.len() {
            if self.keys[b] < self.keys[a] {
                self.merged.push(self.keys[b]);
                b += 1;
            } else {
                self.merged.push(self.keys[a]);
                a += 1;
            }
        }
        self.merged.extend_from_slice(&self.keys[a..carried]);
        self.merged.extend_from_slice(&self.keys[b..]);
        std::mem::swap(&mut self.keys, &mut self.merged);
    }

    /// Forgets every carried key: the next order evaluates every job afresh.
    pub(crate) fn forget_keys(&mut self) {
        self.start_over();
    }

    /// Forgets every carried key: the next order starts over.
    fn start_over(&mut self) {
        self.keys.clear();
        self.ranked.clear();
        self.last_len = 0;
        self.unkeyed = 0;
    }

    /// Computes every key's priority; false if a key no longer names its job.
    fn evaluate_keys(&mut self, at: Evaluation, queue: &mut Queue) -> bool {
        let per_bypass = at.priority.gain_per_bypass();
        let deltas = at.deltas();
        let fs = deltas.as_ref();
        for key in &mut self.keys {
            let j = &mut queue[key.pos];
            if j.idx != key.job {
                return false;
            }
            evaluate_exactly(key, j, at, fs, per_bypass);
        }
        true
    }

    /// Whether [`Self::order_by_bounds`] may decide the next order (the caller can skip
    /// preparing its arguments when not).
    #[inline]
    pub fn may_bound(&self) -> bool {
        self.bounded && !self.exhaustive && !self.in_queue_order()
    }

    /// Orders the idle `queue` but its parked jobs (positions into `self.order`), highest
    /// priority first, evaluating every priority at `at.now`. `unparked`: the positions
    /// of the jobs back from parking since the last order; `parked`: how many are parked.
    pub(crate) fn prioritize(
        &mut self,
        at: Evaluation,
        queue: &mut Queue,
        unparked: &[usize],
        parked: usize,
    ) {
        let was_identity = std::mem::replace(&mut self.identity, false);
        if self.in_queue_order() {
            debug_assert!(
                !queue.iter().any(|job| job.breaks_queue_order()),
                "a job breaking the queue order was not admitted"
            );
            if was_identity && parked == 0 {
                // The last order (lent out and given back as it was) holds 0..its length:
                // only the length moves, not a pass over the queue.
                debug_assert!(self.order.iter().enumerate().all(|(r, &p)| r == p));
                let (had, wanted) = (self.order.len(), queue.len());
                self.order.truncate(wanted);
                self.order.extend(had..wanted);
            } else {
                self.order.clear();
                self.order.extend(0..queue.len());
                if parked > 0 {
                    self.order.retain(|&pos| queue[pos].parked.is_none());
                }
            }
            self.identity = parked == 0;
            self.start_over();
            self.last_started.clear();
            return;
        }
        self.order.clear();
        let carried = self.carry_keys_over(queue, unparked)
            && self.keys.len() + parked == queue.len()
            && self.evaluate_keys(at, queue);
        if !carried {
            self.start_over();
            self.carry_keys_over(queue, &[]);
            self.evaluate_keys(at, queue);
        }
        debug_assert_eq!(self.keys.len() + parked, queue.len(), "a job without a key");
        self.sort_keys();
        self.order.extend(self.keys.iter().map(|k| k.pos));
        self.last_len = queue.len();
        self.last_started.clear();
    }

    /// Fills the order for an iteration without evaluating every priority, where the
    /// policy allows it (`bounded` at construction): what the iteration does depends on
    /// the exact order of the jobs that fit the `free` processors (they may start) and of
    /// the highest max(`depth`, 1) of the others (the priority pass ends by the last of
    /// them), and, for BYPASS, on which jobs are ahead of a backfilled one.
    ///
    /// A job's priority never falls while its state (effective queue start, bypass,
    /// SPVIOLATION, system priority) stays the same, so its last exact value is a lower
    /// bound and its value [`BOUND_HORIZON`] ahead an upper bound until then. The jobs
    /// that fit are evaluated; of the others, only those whose upper bound reaches the
    /// D-th highest lower bound. The order is those, sorted; the rest cannot start and
    /// are left out of it (their BYPASS: [`Self::count_bypasses_beyond_exact`]). False,
    /// with nothing changed that [`Self::prioritize`] relies on, when the full evaluation
    /// must decide.
    pub(crate) fn order_by_bounds(
        &mut self,
        at: Evaluation,
        queue: &mut Queue,
        free: i64,
        depth: usize,
    ) -> bool {
        if !self.may_bound() || !self.carry_keys_over(queue, &[]) {
            return false;
        }
        // Here the keys stay in queue order, so that positions index them (appends and
        // removals keep that order), and `ranked` carries the last exact order.
        if !self.keys.iter().enumerate().all(|(i, k)| k.pos == i) {
            self.keys.sort_unstable_by_key(|k| k.pos);
        }
        let now = at.now;
        let deltas = at.deltas();
        let fs = deltas.as_ref();
        let ahead = now.saturating_add(BOUND_HORIZON);
        let per_bypass = at.priority.gain_per_bypass();
        // The D-th highest lower bound so far only rises: a job whose upper bound stays
        // below it cannot be among the D highest.
        let need = depth.max(1);
        let mut top_lows = std::mem::take(&mut self.top_lows);
        top_lows.clear();
        let threshold = |top: &BinaryHeap<Reverse<i64>>| match top.peek() {
            Some(&Reverse(low)) if top.len() == need => low,
            _ => i64::MIN,
        };
        self.newcomers.clear();
        for (pos, (key, j)) in self.keys.iter_mut().zip(queue.iter_mut()).enumerate() {
            if j.idx != key.job {
                // Not the queue the keys follow: the full evaluation starts them over.
                self.start_over();
                self.top_lows = top_lows;
                return false;
            }
            key.ordered = false;
            let fits = j.procs as i64 <= free;
            if fits || !key.bounds_hold(now, j, per_bypass) {
                let terms = evaluate_exactly(key, j, at, fs, per_bypass);
                if !fits {
                    key.upper = if terms.grows_with_time() {
                        at.priority.priority_from_terms(j, &terms, ahead, fs)
                    } else {
                        i64::MAX
                    };
                    key.until = ahead;
                }
            }
            if fits {
                self.newcomers.push(pos);
                continue;
            }
            if key.upper < threshold(&top_lows) {
                continue;
            }
            self.newcomers.push(pos);
            top_lows.push(Reverse(-key.neg_priority));
            if top_lows.len() > need {
                top_lows.pop();
            }
        }
        let threshold = threshold(&top_lows);
        self.top_lows = top_lows;
        let keys = &mut self.keys;
        self.newcomers.retain(|&pos| {
            let (key, j) = (&mut keys[pos], &mut queue[pos]);
            if j.procs as i64 > free && key.upper < threshold {
                return false;
            }
            if !key.is_exact(now, j) {
                evaluate_exactly(key, j, at, fs, per_bypass);
            }
            key.contends = true;
            true
        });
        self.rank_contenders();
        self.bounded_iterations += 1;
        true
    }

    /// Fills the order with the contending jobs (`newcomers`, keys marked `contends`)
    /// in exact priority order, and sets `ranked` to it: those still ranked from the last
    /// iteration come nearly sorted, the others are sorted apart and merged in.
    fn rank_contenders(&mut self) {
        let keys = &mut self.keys;
        self.identity = false;
        self.order.clear();
        for &pos in &self.ranked {
            if keys[pos].contends {
                keys[pos].contends = false;
                self.order.push(pos);
            }
        }
        self.newcomers
            .retain(|&pos| std::mem::take(&mut keys[pos].contends));
        let keys = &self.keys;
        sort_nearly_sorted_by(&mut self.order, |&a, &b| keys[a] < keys[b]);
        self.newcomers
            .sort_unstable_by(|&a, &b| keys[a].cmp(&keys[b]));
        self.ranked.clear();
        let (mut a, mut b) = (
            self.order.iter().peekable(),
            self.newcomers.iter().peekable(),
        );
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(&&x), Some(&&y)) if keys[y] < keys[x] => b.next(),
                (Some(_), _) => a.next(),
                (None, Some(_)) => b.next(),
                (None, None) => break,
            };
            self.ranked.extend(next);
        }
        self.order.clear();
        self.order.extend_from_slice(&self.ranked);
        for &pos in &self.order {
            self.keys[pos].ordered = true;
        }
    }

    /// BYPASS for the jobs a bounded order ([`Self::order_by_bounds`]) left out: each is
    /// ahead of the `backfilled` jobs (queue positions, in priority order) of lower
    /// priority. Its bounds settle most comparisons; the rest take its exact priority.
    pub(crate) fn count_bypasses_beyond_exact(
        &mut self,
        at: Evaluation,
        backfilled: impl Iterator<Item = usize>,
        queue: &mut Queue,
    ) {
        let mut keys_of_backfilled = std::mem::take(&mut self.backfilled_keys);
        keys_of_backfilled.clear();
        keys_of_backfilled.extend(backfilled.map(|pos| self.keys[pos]));
        let backfilled = keys_of_backfilled;
        let (Some(&highest), Some(&lowest)) = (backfilled.first(), backfilled.last()) else {
            self.backfilled_keys = backfilled;
            return;
        };
        let per_bypass = at.priority.gain_per_bypass();
        let deltas = at.deltas();
        let fs = deltas.as_ref();
        for (key, j) in self.keys.iter_mut().zip(queue.iter_mut()) {
            if key.ordered {
                continue;
            }
            let (low, high) = (-key.neg_priority, key.upper);
            let ahead_of = if low > -highest.neg_priority {
                backfilled.len()
            } else if high < -lowest.neg_priority {
                0
            } else {
                let below = backfilled.iter().filter(|b| -b.neg_priority < low);
                let above = backfilled.iter().filter(|b| -b.neg_priority > high);
                let below = below.count();
                if below + above.count() == backfilled.len() {
                    below
                } else {
                    if !key.is_exact(at.now, j) {
                        evaluate_exactly(key, j, at, fs, per_bypass);
                    }
                    backfilled.iter().filter(|b| *b > key).count()
                }
            };
            j.bypass += ahead_of as u32;
        }
        self.backfilled_keys = backfilled;
    }

    #[cfg(test)]
    pub(crate) fn last_started_len(&self) -> usize {
        self.last_started.len()
    }
}

/// Sorts `v`, which is usually in nearly the right order already (the last iteration's
/// priority order, with a few jobs moved by the time elapsed): an insertion sort costs one
/// pass plus the inversions and needs no scratch buffer. Once the inversions pass a
/// budget of a few per element it hands over to the general sort. The keys are unique,
/// so stability does not matter.
fn sort_nearly_sorted<T: Ord + Copy>(v: &mut [T]) {
    sort_nearly_sorted_by(v, |a, b| a < b);
}

/// [`sort_nearly_sorted`] by `less`, a strict total order.
fn sort_nearly_sorted_by<T: Copy>(v: &mut [T], less: impl Fn(&T, &T) -> bool) {
    let mut budget = 4 * v.len() + 64;
    for i in 1..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && less(&x, &v[j - 1]) {
            if budget == 0 {
                v[j] = x;
                v.sort_unstable_by(|a, b| {
                    if less(a, b) {
                        std::cmp::Ordering::Less
                    } else if less(b, a) {
                        std::cmp::Ordering::Greater
                    } else {
                        std::cmp::Ordering::Equal
                    }
                });
                return;
            }
            budget -= 1;
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}

/// Evaluates `job`'s priority exactly at `at.now` (fairshare deltas `fs`) into `key`;
/// returns its terms, worked out on first use and kept on the job.
#[inline]
fn evaluate_exactly(
    key: &mut Key,
    job: &mut QueuedJob,
    at: Evaluation,
    fs: Option<&FsAt>,
    per_bypass: Option<f64>,
) -> JobTerms {
    let terms = match job.priority_terms {
        Some(terms) => terms,
        None => *job.priority_terms.insert(at.priority.job_terms(job)),
    };
    let p = at.priority.priority_from_terms(job, &terms, at.now, fs);
    key.evaluated(p, at.now, job, per_bypass);
    terms
}

/// How far ahead an upper bound of a job's priority is evaluated: a longer horizon
/// spares evaluations but loosens the bound.
const BOUND_HORIZON: Time = 900;

/// What a job's priority depends on besides the time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct WaitState {
    eff_queue_start: Time,
    /// The queue time 3.3.1's last selection recorded (Maui semantics): it moves at an
    /// iteration's end, so two iterations at one instant may see different priorities.
    selected_queued: Option<Time>,
    bypass: u32,
    soft_violation: bool,
    system_priority: u32,
}

impl WaitState {
    fn of(job: &QueuedJob) -> Self {
        WaitState {
            eff_queue_start: job.eff_queue_start,
            selected_queued: job.selected_queued,
            bypass: job.bypass,
            soft_violation: job.soft_violation,
            system_priority: job.system_priority,
        }
    }
}

/// A job's place in the priority order, ordered by `(−priority, submit, id, queue
/// position)`, with what is known of its priority between exact evaluations.
#[derive(Debug, Clone, Copy)]
struct Key {
    /// −priority, evaluated exactly at `exact_at` with the job in `state`.
    neg_priority: i64,
    submit: Time,
    id: u64,
    pos: usize,
    job: JobIdx,
    exact_at: Time,
    state: WaitState,
    /// An upper bound of the priority while the job stays in `state`, up to `until`.
    upper: i64,
    until: Time,
    /// Scratch of a bounded iteration: the job is among the jobs to order exactly; it is
    /// in the order.
    contends: bool,
    ordered: bool,
}

impl Key {
    /// The key of the job at `pos`, its priority still to be computed.
    fn fresh(pos: usize, job: &QueuedJob) -> Self {
        Key {
            neg_priority: 0,
            submit: job.submit,
            id: job.id,
            pos,
            job: job.idx,
            exact_at: Time::MIN,
            state: WaitState::of(job),
            upper: i64::MAX,
            until: Time::MIN,
            contends: false,
            ordered: false,
        }
    }

    /// Records the priority evaluated at `now`.
    #[inline]
    fn evaluated(&mut self, priority: i64, now: Time, job: &QueuedJob, per_bypass: Option<f64>) {
        self.follow(WaitState::of(job), per_bypass);
        self.neg_priority = -priority;
        self.exact_at = now;
    }

    /// Takes the job's state on, keeping the upper bound where it can: a job bypassed
    /// `n` more times gains at most `per_bypass · n` (SERV weight times BYPASSWEIGHT,
    /// caps only lower it), plus one for truncation. Any other change voids it.
    fn follow(&mut self, state: WaitState, per_bypass: Option<f64>) {
        if state == self.state {
            return;
        }
        // The last priority stays a lower bound, no longer the priority: a job bypassed
        // once more at the same instant gains BYPASSWEIGHT at once.
        self.exact_at = Time::MIN;
        let only_bypassed = WaitState {
            bypass: self.state.bypass,
            ..state
        } == self.state
            && state.bypass > self.state.bypass;
        match per_bypass {
            Some(per) if only_bypassed => {
                let gain = (per * f64::from(state.bypass - self.state.bypass)).ceil();
                self.upper = self.upper.saturating_add(gain as i64).saturating_add(1);
            }
            _ => self.until = Time::MIN,
        }
        self.state = state;
    }

    /// Whether the last exact priority (a lower bound, as priority only grows) and
    /// `upper` bound the priority at `now`, the job's state taken on.
    fn bounds_hold(&mut self, now: Time, job: &QueuedJob, per_bypass: Option<f64>) -> bool {
        self.follow(WaitState::of(job), per_bypass);
        now <= self.until && self.exact_at <= now
    }

    /// Whether the priority was evaluated at `now` with the job as it is.
    fn is_exact(&self, now: Time, job: &QueuedJob) -> bool {
        self.exact_at == now && self.state == WaitState::of(job)
    }

    fn rank(&self) -> (i64, Time, u64, usize) {
        (self.neg_priority, self.submit, self.id, self.pos)
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.rank() == other.rank()
    }
}

impl Eq for Key {}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.rank().cmp(&other.rank())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Nearly sorted input (sorted, then a few elements moved) and any input (over the
        /// inversion budget) come out as the general sort leaves them.
        #[test]
        fn sort_nearly_sorted_sorts(
            mut v in proptest::collection::vec(0..50u32, 0..300),
            moves in proptest::collection::vec((0..300usize, 0..300usize), 0..6),
            presorted: bool,
        ) {
            if presorted {
                v.sort_unstable();
                for (from, to) in moves {
                    if from < v.len() && to < v.len() {
                        let x = v.remove(from);
                        v.insert(to, x);
                    }
                }
            }
            let mut expected = v.clone();
            expected.sort();
            sort_nearly_sorted(&mut v);
            proptest::prop_assert_eq!(v, expected);
        }
    }
}
