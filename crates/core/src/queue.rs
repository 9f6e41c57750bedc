//! The idle queue: jobs in `(submit, id)` order, and beside them, in one compact array,
//! what a backfill scan reads of each.
//!
//! A backfill scan visits every waiting job of a long queue in every iteration, and most
//! do not fit. Reading a few bytes per job from one array, rather than a record of a few
//! hundred bytes each, is what keeps such a scan cheap (issue 26). Jobs leave the queue
//! from anywhere in it, most often from its head (the priority pass) and its tail (backfill
//! of the jobs submitted last): both arrays are double-ended, so removing a job moves the
//! entries on its shorter side only, and those are pointers, not records.

use crate::fit_index::{self, Bound, FitIndex, Marks};
use crate::job::QueuedJob;
use crate::Time;
use std::collections::VecDeque;
use std::ops::{Index, IndexMut, Range};

/// What a backfill scan reads of a queued job. None of it changes while the job waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    pub procs: u64,
    pub wcl: Time,
    /// QOS flag NOBF: never a backfill candidate.
    pub no_backfill: bool,
}

impl Shape {
    fn of(job: &QueuedJob) -> Self {
        Shape {
            procs: job.procs,
            wcl: job.wcl,
            no_backfill: job.cred_factors.no_backfill,
        }
    }

    /// What the fit index holds of it: nothing for a job backfill never considers.
    fn key(self) -> (u64, Time) {
        if self.no_backfill {
            fit_index::EMPTY
        } else {
            (self.procs, self.wcl)
        }
    }
}

/// The idle queue. A job's processors, wallclock limit and QOS flags must not change
/// while it is queued (the scan reads their copies); its other fields may.
#[derive(Debug, Clone, Default)]
pub struct Queue {
    // Boxed on purpose: removals move pointers, not records (see the module's note).
    jobs: VecDeque<Box<QueuedJob>>,
    shapes: VecDeque<Shape>,
    /// A job entered out of `(submit, id)` order (jobs submitted together at one instant
    /// keep their trace order, whose ids need not rise): binary search by that key may
    /// miss. Removals never set it, nor clear it.
    out_of_order: bool,
    /// Each job's slot in the fit index, rising with the position (a job entering
    /// anywhere but at the back numbers them anew).
    slots: VecDeque<usize>,
    next_slot: usize,
    /// Kept up to date once a FIRSTFIT scan asked for it ([`Self::first_fitting`]),
    /// until the slots outgrow it or are numbered anew.
    index: Option<FitIndex>,
    /// BYPASS not yet added to the jobs: a mark at the slot of each job backfilled since
    /// (beside the index, over its slots); a queued job's BYPASS is its own count plus
    /// the marks behind its slot ([`Self::count_bypasses_lazily`]).
    bypass_marks: Option<Marks>,
}

impl Queue {
    pub fn new() -> Self {
        Queue::default()
    }

    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    pub fn push(&mut self, job: QueuedJob) {
        self.out_of_order |= self.jobs.back().is_some_and(|last| key(last) > key(&job));
        let shape = Shape::of(&job);
        self.shapes.push_back(shape);
        self.jobs.push_back(Box::new(job));
        let slot = self.next_slot;
        self.next_slot += 1;
        self.slots.push_back(slot);
        match &mut self.index {
            Some(index) if slot < index.slots() => index.set(slot, shape.key()),
            // Made again, larger, when next asked for.
            _ => self.drop_index(),
        }
    }

    /// Puts `job` at position `at`, moving the later ones back.
    pub fn insert(&mut self, at: usize, job: QueuedJob) {
        let before = at.checked_sub(1).and_then(|p| self.jobs.get(p));
        self.out_of_order |= before.is_some_and(|b| key(b) > key(&job))
            || self.jobs.get(at).is_some_and(|a| key(&job) > key(a));
        self.shapes.insert(at, Shape::of(&job));
        self.jobs.insert(at, Box::new(job));
        self.slots.insert(at, 0);
        self.number_slots_anew();
    }

    pub fn remove(&mut self, at: usize) -> QueuedJob {
        self.shapes.remove(at);
        self.leave_slot(at);
        *self.jobs.remove(at).expect("a position in the queue")
    }

    pub fn swap(&mut self, a: usize, b: usize) {
        self.out_of_order |= a != b;
        self.shapes.swap(a, b);
        self.jobs.swap(a, b);
        if a != b {
            self.number_slots_anew();
        }
    }

    /// Frees the slot of the job at `at`, which leaves the queue.
    fn leave_slot(&mut self, at: usize) {
        let slot = self.slots.remove(at).expect("a position in the queue");
        if let Some(index) = &mut self.index {
            index.set(slot, fit_index::EMPTY);
        }
    }

    /// Slots 0, 1, … in queue order, and no index until the next scan asks for one.
    fn number_slots_anew(&mut self) {
        self.drop_index();
        for (k, slot) in self.slots.iter_mut().enumerate() {
            *slot = k;
        }
        self.next_slot = self.slots.len();
    }

    /// No index (nor marks) until the next scan asks for one; the marks are added to
    /// the jobs first.
    fn drop_index(&mut self) {
        self.settle_bypasses();
        self.index = None;
        self.bypass_marks = None;
    }

    /// Whether BYPASS may be held as marks ([`Self::count_bypasses_lazily`]): the index
    /// is there.
    pub(crate) fn counts_bypasses_lazily(&self) -> bool {
        self.bypass_marks.is_some()
    }

    /// Adds each job's BYPASS still held as marks to the job.
    pub(crate) fn settle_bypasses(&mut self) {
        let Some(marks) = self.bypass_marks.as_mut().filter(|m| m.any()) else {
            return;
        };
        for (job, &slot) in self.jobs.iter_mut().zip(&self.slots) {
            job.bypass += marks.after(slot);
        }
        marks.clear();
    }

    /// BYPASS (MAUI-SEMANTICS §1) of an iteration whose priority order is the queue order
    /// and whose backfill found its jobs through the index: each job at `backfilled` adds
    /// one to every job waiting ahead of it, which is marked rather than added (one mark,
    /// not a visit to every job ahead). The jobs at `started` (all the iteration started,
    /// ascending) leave the queue: their BYPASS is settled first, without this
    /// iteration's.
    pub(crate) fn count_bypasses_lazily(&mut self, started: &[usize], backfilled: &[usize]) {
        let Some(marks) = self.bypass_marks.as_mut() else {
            assert!(
                backfilled.is_empty(),
                "backfill found its jobs by the index"
            );
            return;
        };
        for &pos in started {
            self.jobs[pos].bypass += marks.after(self.slots[pos]);
        }
        for &pos in backfilled {
            marks.mark(self.slots[pos]);
        }
    }

    /// The first position at or after `from` whose job backfill considers (not NOBF) and
    /// `bound` admits. Costs what it passes over in ranges of jobs the bound keeps out,
    /// not a visit to each.
    pub(crate) fn first_fitting(&mut self, from: usize, bound: &Bound) -> Option<usize> {
        if from >= self.slots.len() {
            return None;
        }
        if self.index.is_none() {
            // Numbered anew, with room for as many jobs again to enter at the back.
            self.number_slots_anew();
            let mut index = FitIndex::new((2 * self.slots.len()).max(64));
            index.fill(self.shapes.iter().map(|s| s.key()));
            self.bypass_marks = Some(Marks::new(index.slots()));
            self.index = Some(index);
        }
        let index = self.index.as_ref().expect("made above");
        let slot = index.first(self.slots[from], bound)?;
        let pos = self
            .slots
            .binary_search(&slot)
            .expect("the index holds only the queue's slots");
        Some(pos)
    }

    /// Removes the jobs at the positions `sorted` lists (ascending), keeping the order of
    /// the others. A few removals each move the entries on their shorter side; many are
    /// made in one pass over the queue.
    pub fn remove_positions(&mut self, sorted: &[usize]) {
        debug_assert!(
            sorted.windows(2).all(|w| w[0] < w[1]),
            "positions not ascending"
        );
        const ONE_BY_ONE: usize = 8;
        if sorted.len() <= ONE_BY_ONE {
            // From the back, so that the positions still to remove stay where they were.
            for &pos in sorted.iter().rev() {
                self.shapes.remove(pos);
                self.jobs.remove(pos);
                self.leave_slot(pos);
            }
        } else {
            if let Some(index) = &mut self.index {
                for &pos in sorted {
                    index.set(self.slots[pos], fit_index::EMPTY);
                }
            }
            retain_except(&mut self.shapes, sorted);
            retain_except(&mut self.jobs, sorted);
            retain_except(&mut self.slots, sorted);
        }
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &QueuedJob> + ExactSizeIterator {
        self.jobs.iter().map(|j| &**j)
    }

    pub fn iter_mut(
        &mut self,
    ) -> impl DoubleEndedIterator<Item = &mut QueuedJob> + ExactSizeIterator {
        self.jobs.iter_mut().map(|j| &mut **j)
    }

    pub fn last(&self) -> Option<&QueuedJob> {
        self.jobs.back().map(|j| &**j)
    }

    /// The first position whose job `before` is false for (the queue partitioned by it).
    pub fn partition_point(&self, mut before: impl FnMut(&QueuedJob) -> bool) -> usize {
        self.jobs.partition_point(|j| before(j))
    }

    /// Whether every job entered in `(submit, id)` order, so that [`Self::positions_of`]
    /// finds them.
    pub(crate) fn in_key_order(&self) -> bool {
        !self.out_of_order
    }

    /// The positions of the jobs submitted at `submit` with trace id `id` (the queue
    /// being in `(submit, id)` order, [`Self::in_key_order`]; a trace may repeat an id).
    pub(crate) fn positions_of(&self, submit: Time, id: u64) -> Range<usize> {
        let wanted = (submit, id);
        self.jobs_from(self.jobs.partition_point(|j| key(j) < wanted), wanted)
    }

    /// The positions from `first` on of the jobs with key `wanted`.
    fn jobs_from(&self, first: usize, wanted: (Time, u64)) -> Range<usize> {
        let same = self.jobs.range(first..);
        first..first + same.take_while(|j| key(j) == wanted).count()
    }

    /// [`Self::positions_of`] for lookups made in ascending key order: `from` is where the
    /// last one found its jobs. Gallops from there (a job record is large, and a binary
    /// search over the whole queue misses the cache at nearly every probe), or searches
    /// the whole queue if the jobs lie before it.
    pub(crate) fn positions_of_from(&self, submit: Time, id: u64, from: usize) -> Range<usize> {
        let wanted = (submit, id);
        let n = self.jobs.len();
        if from >= n || key(&self.jobs[from]) >= wanted {
            if from == 0 || from >= n || key(&self.jobs[from - 1]) >= wanted {
                return self.positions_of(submit, id);
            }
            // Just before `from` is below it: the jobs start at `from`, if anywhere.
            return self.jobs_from(from, wanted);
        }
        // key(from) < wanted: find the first at or past it by doubling steps.
        let (mut below, mut step) = (from, 1);
        let mut at_or_past = loop {
            let probe = below + step;
            if probe >= n {
                break n;
            }
            if key(&self.jobs[probe]) >= wanted {
                break probe;
            }
            below = probe;
            step *= 2;
        };
        while at_or_past - below > 1 {
            let mid = below + (at_or_past - below) / 2;
            if key(&self.jobs[mid]) < wanted {
                below = mid;
            } else {
                at_or_past = mid;
            }
        }
        self.jobs_from(at_or_past, wanted)
    }

    /// Lays the shapes out as one slice, for [`Self::shapes`].
    pub(crate) fn gather_shapes(&mut self) {
        self.shapes.make_contiguous();
    }

    /// Every job's shape, by position (all of them once [`Self::gather_shapes`] ran and
    /// nothing entered the queue since).
    pub(crate) fn shapes(&self) -> &[Shape] {
        self.shapes.as_slices().0
    }
}

impl Index<usize> for Queue {
    type Output = QueuedJob;
    #[inline]
    fn index(&self, pos: usize) -> &QueuedJob {
        &self.jobs[pos]
    }
}

impl IndexMut<usize> for Queue {
    #[inline]
    fn index_mut(&mut self, pos: usize) -> &mut QueuedJob {
        &mut self.jobs[pos]
    }
}

impl FromIterator<QueuedJob> for Queue {
    fn from_iter<I: IntoIterator<Item = QueuedJob>>(jobs: I) -> Self {
        let mut queue = Queue::new();
        for job in jobs {
            queue.push(job);
        }
        queue
    }
}

/// A job's place in the queue order.
fn key(job: &QueuedJob) -> (Time, u64) {
    (job.submit, job.id)
}

/// Removes the elements at the ascending positions `sorted` from `items`, in one pass.
fn retain_except<T>(items: &mut VecDeque<T>, sorted: &[usize]) {
    let (mut pos, mut next) = (0, 0);
    items.retain(|_| {
        let removed = sorted.get(next) == Some(&pos);
        next += usize::from(removed);
        pos += 1;
        !removed
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::JobIdx;

    fn job(i: u32) -> QueuedJob {
        QueuedJob::new(
            JobIdx(i),
            u64::from(i),
            i64::from(i),
            1 + u64::from(i % 7),
            60 * i64::from(i % 5),
        )
    }

    proptest::proptest! {
        /// Searching from any position finds what the search over the whole queue finds.
        #[test]
        fn a_search_from_a_hint_finds_what_the_whole_search_finds(
            keys in proptest::collection::vec((0i64..40, 0u64..4), 0..60),
            wanted in (0i64..42, 0u64..5),
            from in 0usize..70,
        ) {
            let mut keys = keys;
            keys.sort_unstable();
            let queue: Queue = keys
                .iter()
                .enumerate()
                .map(|(i, &(submit, id))| {
                    QueuedJob::new(JobIdx(i as u32), id, submit, 1, 60)
                })
                .collect();
            let (submit, id) = wanted;
            let whole = queue.positions_of(submit, id);
            let hinted = queue.positions_of_from(submit, id, from);
            if whole.is_empty() {
                proptest::prop_assert!(hinted.is_empty());
            } else {
                proptest::prop_assert_eq!(hinted, whole);
            }
        }
    }

    #[test]
    fn a_job_is_found_by_its_submit_time_and_id_repeated_ids_too() {
        let mut queue: Queue = (0..6).map(job).collect();
        let mut twin = job(3);
        twin.idx = JobIdx(99);
        queue.insert(4, twin);
        assert_eq!(queue.positions_of(3, 3), 3..5);
        assert_eq!(queue.positions_of(5, 5), 6..7);
        assert!(queue.positions_of(4, 9).is_empty());
        assert!(queue.positions_of(9, 9).is_empty());
        assert!(queue.in_key_order(), "a twin beside its twin is in order");
        // Jobs submitted together keep their trace order, whose ids need not rise.
        let mut late = job(1);
        late.submit = 9;
        queue.insert(2, late);
        assert!(!queue.in_key_order());
        let mut pushed: Queue = (0..3).map(job).collect();
        assert!(pushed.in_key_order());
        let mut lower = job(0);
        lower.submit = 2;
        pushed.push(lower);
        assert!(!pushed.in_key_order());
    }

    proptest::proptest! {
        /// Whatever the queue goes through, each position's shape is its job's, and the
        /// jobs keep their order.
        #[test]
        fn shapes_follow_their_jobs(ops in proptest::collection::vec((0u8..4, 0usize..40), 1..80)) {
            let mut queue = Queue::new();
            let mut model: Vec<u32> = Vec::new();
            for (next, (op, at)) in (0u32..).zip(ops) {
                match op {
                    0 | 1 => {
                        queue.push(job(next));
                        model.push(next);
                    }
                    2 if !model.is_empty() => {
                        let at = at % (model.len() + 1);
                        queue.insert(at, job(next));
                        model.insert(at, next);
                    }
                    _ => {
                        let gone: Vec<usize> = (0..model.len()).filter(|p| (p + at) % (1 + at % 4) == 0).collect();
                        queue.remove_positions(&gone);
                        let mut k = 0;
                        model.retain(|_| { k += 1; !gone.contains(&(k - 1)) });
                    }
                }
                let ids: Vec<u32> = queue.iter().map(|j| j.idx.0).collect();
                proptest::prop_assert_eq!(&ids, &model);
                for pos in 0..queue.len() {
                    let j = &queue[pos];
                    proptest::prop_assert_eq!(queue.shapes.get(pos), Some(&Shape::of(j)));
                }
            }
        }
    }
}
