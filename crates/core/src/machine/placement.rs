//! Where a job's tasks go: the nodes free now for a start under each allocation policy
//! (Maui 3.3.1's LASTAVAILABLE rankings among them), and the earliest placement of a
//! reservation, node by node.

use super::*;

impl Machine {
    /// Nodes that may have processors free at `now`: those no running job fills, and those
    /// of jobs whose planned end has come.
    pub(super) fn nodes_free_now(&self, now: Time) -> Vec<u32> {
        let mut nodes: Vec<u32> = self.free_nodes_now(now).collect();
        nodes.sort_unstable();
        nodes
    }

    /// [`Machine::nodes_free_now`] one at a time, in no particular order, so that a caller
    /// that stops early does not visit them all.
    pub(super) fn free_nodes_now(&self, now: Time) -> impl Iterator<Item = u32> + '_ {
        self.free_set.iter().chain(self.freed_by_expired_jobs(now))
    }

    /// The nodes of running jobs whose planned end has come that no running job leaves
    /// processors free on, in node order.
    pub(super) fn freed_by_expired_jobs(&self, now: Time) -> Vec<u32> {
        let mut freed: Vec<u32> = self
            .expired_jobs(now)
            .flat_map(|p| p.nodes.iter().map(|&(n, _)| n))
            .filter(|&n| !self.free_set.contains(n))
            .collect();
        freed.sort_unstable();
        freed.dedup();
        freed
    }

    /// The running jobs whose planned end has come by `now`.
    fn expired_jobs(&self, now: Time) -> impl Iterator<Item = &Placement> + '_ {
        self.by_end
            .range(..(now + 1, JobIdx(0)))
            .map(|(_, j)| &self.running[j])
    }

    /// Processors of node `n` that jobs past their planned end at `now` still hold.
    pub(super) fn expired_on(&self, now: Time) -> BTreeMap<u32, i64> {
        let mut extra = BTreeMap::new();
        for p in self.expired_jobs(now) {
            for &(n, tasks) in &p.nodes {
                *extra.entry(n).or_insert(0) +=
                    self.taken(p.whole, p.per_task, tasks, n).procs as i64;
            }
        }
        extra
    }

    /// Tasks of `job` node `n` can host over `[a, b)` around every claim.
    pub(super) fn hostable(
        &self,
        n: usize,
        a: Time,
        b: Time,
        job: &QueuedJob,
        per_task: Res,
    ) -> u64 {
        self.spec
            .tasks_per_node(self.hostable_by_room(n, a, b, job, per_task))
    }

    /// [`Self::hostable`] by the node's room alone, before the caps of NODEACCESSPOLICY
    /// and EXACTNODE ([`MachineSpec::tasks_per_node`]).
    fn hostable_by_room(&self, n: usize, a: Time, b: Time, job: &QueuedJob, per_task: Res) -> u64 {
        if self.node_checks {
            return self.hostable_by_room_checked(n, a, b, job, per_task);
        }
        self.room_for(n, a, b, job, per_task)
    }

    /// [`Self::hostable_by_room`] where node sets, Maui's windows on nodes of several
    /// processors or the nodes' start limits may keep the job off node `n`, or 3.3.1's
    /// start ranges cut what a reservation's search counts on it.
    fn hostable_by_room_checked(
        &self,
        n: usize,
        a: Time,
        b: Time,
        job: &QueuedJob,
        per_task: Res,
    ) -> u64 {
        if !self.in_node_set(n, job) {
            return 0;
        }
        if self.several_procs && self.maui_order && !self.in_window_nodes(n) {
            return 0;
        }
        let room = self.room_for(n, a, b, job, per_task);
        if room > 0 && self.start_capped && self.starting_now.get() {
            return room.min(self.start_limit_tasks(n, job, per_task));
        }
        if room > 1 && self.counts_start_ranges(n, job) {
            let offered = self.start_range_tasks(n, a, b, job, per_task);
            if offered < room {
                self.fewer_than_a_start.set(true);
            }
            return room.min(offered);
        }
        room
    }

    /// Whether a reservation's search counts node `n`'s tasks for `job` by 3.3.1's start
    /// ranges ([`Self::start_range_tasks`]): under Maui's order, on a node of several
    /// processors shared by tasks.
    fn counts_start_ranges(&self, n: usize, job: &QueuedJob) -> bool {
        self.maui_order
            && self.searching_reservation.get()
            && !self.placing_found_start.get()
            && self.spec.nodes[n].procs > 1
            && !self.spec.access.is_exclusive()
            && !self.holds_whole_nodes(job)
    }

    /// Whether job or reservation claim `c` on node `n` ends inside a standing window there
    /// that it may be inside of, changing what the window holds: 3.3.1 splits a window into
    /// pieces where the processors it holds beside the jobs inside it change, each piece a
    /// reservation (a window of one processor with two jobs inside holds none before and
    /// after one of them ends: no piece begins there).
    fn ends_inside_a_window(&self, n: usize, c: &Claim) -> bool {
        let e = c.end;
        let claims = &self.claims[n];
        claims.iter().any(|w| match w.owner {
            Owner::Standing(k) => {
                let limit = self.standing_limit(k);
                if !(w.start < e && e < w.end && self.claim_uses_window(c, k, w, limit)) {
                    return false;
                }
                let inside = |active: &dyn Fn(&Claim) -> bool| -> u64 {
                    claims
                        .iter()
                        .filter(|o| !matches!(o.owner, Owner::Standing(_)) && active(o))
                        .filter(|o| self.claim_uses_window(o, k, w, limit))
                        .map(|o| o.takes.procs)
                        .sum()
                };
                let before = inside(&|o: &Claim| o.start < e && e <= o.end);
                let after = inside(&|o: &Claim| o.start <= e && e < o.end);
                w.takes.procs.saturating_sub(before) != w.takes.procs.saturating_sub(after)
            }
            _ => false,
        })
    }

    /// Whether 3.3.1's start ranges cut what a reservation's search from `now` counts on
    /// node `n` for `job` starting at `at` ([`Self::start_range_tasks`]).
    pub(super) fn start_range_cuts(&self, now: Time, n: usize, at: Time, job: &QueuedJob) -> bool {
        let per_task = self.need(job);
        let b = at + job.wcl.max(1);
        let searching = self.searching_reservation.replace(true);
        let search_now = self.search_now.replace(now);
        let cuts = self.counts_start_ranges(n, job) && {
            let room = self.room_for(n, at, b, job, per_task);
            room > 1 && self.start_range_tasks(n, at, b, job, per_task) < room
        };
        self.searching_reservation.set(searching);
        self.search_now.set(search_now);
        cuts
    }

    /// The tasks node `n` offers a job of limit `b − a` starting at `a` in 3.3.1's
    /// reservation search. Its free tasks (none where a node rule keeps the job off) are cut
    /// into ranges from the search's start where they change, as `MJobGetSNRange` (MJob.c)
    /// cuts them ([`next_range_count`]); each range becomes a range of starts (MRes.c
    /// `MRLSFromA`) offering the fewest tasks of the connected ranges that begin by its end
    /// plus the limit. So a start at `a` is offered the fewest from the range holding `a`
    /// up to that range's end plus the limit, not only over its own run; an instant with
    /// nothing free ends the walk. `u64::MAX` where no claim begins after the run: the walk
    /// then offers no fewer than the run's tasks, or (a range kept at a lower count) still
    /// all the job's.
    fn start_range_tasks(&self, n: usize, a: Time, b: Time, job: &QueuedJob, per_task: Res) -> u64 {
        let claims = &self.claims[n];
        // Free tasks fall only where a claim begins (a job inside a window that ends gives
        // back at least what the window takes again): with none after the run, the walk
        // adds no fewer. A range kept at a lower count than is free (`next_range_count`)
        // holds the job's tasks anyway.
        if claims.iter().all(|c| c.start < b) {
            return u64::MAX;
        }
        let masks = (job.standing_access, job.standing_short);
        let judged = self.judged_run(n, a, b, job);
        let free_at = |t: Time| {
            let active = claims.iter().filter(|c| c.start <= t && t < c.end);
            if self.node_rules && self.keeps_off(n, active.clone(), (t, t + 1), job) {
                return 0;
            }
            self.tasks_free_at(n, active, t, masks, judged, per_task)
        };
        let now = self.search_now.get();
        let bounds = self.range_walk_bounds(n, now, masks, judged);
        let tasks = job.procs / per_task.procs.max(1);
        let mut bounds = bounds.into_iter().peekable();
        let mut count = free_at(now);
        while let Some((t, removes)) = bounds.next_if(|&(t, _)| t <= a) {
            count = next_range_count(count, free_at(t), removes, tasks);
        }
        let mut fewest = count;
        let mut reach = None;
        for (t, removes) in bounds {
            if count == 0 || reach.is_some_and(|r| t > r) {
                break;
            }
            let next = next_range_count(count, free_at(t), removes, tasks);
            if next != count {
                reach.get_or_insert(t + (b - a));
                count = next;
                if next > 0 {
                    fewest = fewest.min(next);
                }
            }
        }
        fewest
    }

    /// Each instant after `now` a claim on node `n` begins or ends, in time order, and
    /// whether 3.3.1's range walk (MJob.c `MJobGetSNRange`) sees resources removed there for
    /// a job that may use the standing reservations of `masks`, judged over `judged`: where
    /// a claim that binds the job begins, where a window it may use ends, and where a job
    /// inside a window ends as the window then holds more (`ends_inside_a_window`). Where a
    /// window the job may use begins, 3.3.1 counts it and sets neither its "resources
    /// added" nor "removed" flag (MJob.c: `IResCount++`), so no range changes there: alone,
    /// that instant is none of the walk's.
    pub(super) fn range_walk_bounds(
        &self,
        n: usize,
        now: Time,
        masks: (u64, u64),
        judged: (Time, Time),
    ) -> Vec<(Time, bool)> {
        let removes = |c: &Claim| -> [Option<(Time, bool)>; 2] {
            match c.owner {
                Owner::Standing(_)
                    if !self.binds_over(n, c, masks.0, masks.1, judged.0, judged.1) =>
                {
                    [None, Some((c.end, true))]
                }
                Owner::Standing(_) => [Some((c.start, true)), Some((c.end, false))],
                _ => [
                    Some((c.start, true)),
                    Some((c.end, self.ends_inside_a_window(n, c))),
                ],
            }
        };
        let mut bounds: Vec<(Time, bool)> = self.claims[n]
            .iter()
            .flat_map(removes)
            .flatten()
            .filter(|&(t, _)| t > now && t < FOREVER)
            .collect();
        bounds.sort_unstable();
        bounds.dedup_by(|later, first| {
            let same = later.0 == first.0;
            first.1 |= same && later.1;
            same
        });
        bounds
    }

    /// Sets [`Machine::node_checks`] from what it depends on.
    pub(super) fn refresh_node_checks(&mut self) {
        self.node_checks = self.spec.node_sets.is_some()
            || (self.several_procs && self.maui_order)
            || self.start_capped;
    }

    /// Whether a job over `[a, b)` on node `n` would end just as a later claim on it
    /// begins, its free window opening before `a`: 3.3.1's reservation search does not
    /// count the node for that start. It turns each free window `[open, close)` into the
    /// starts `[open, close − limit]` and merges them as half-open ranges (MRes.c
    /// `MRLFromA`, `MRLMerge`), so the last start is lost, unless the window is exactly as
    /// long as the limit (a single start, kept). Where some node's window is exactly the
    /// limit long, 3.3.1's merge counts such nodes at that instant by its own rules
    /// ([`Self::merged_start`], `start_merge.rs`). Placing the job at the start found, and
    /// backfill, do count it.
    fn ends_as_a_claim_begins(&self, n: usize, a: Time, b: Time, job: &QueuedJob) -> bool {
        let (may_use, short) = (job.standing_access, job.standing_short);
        let (ja, jb) = self.judged_run(n, a, b, job);
        let claims = self.claims[n]
            .iter()
            .filter(|c| self.binds_over(n, c, may_use, short, ja, jb));
        let touches = claims.clone().any(|c| c.start == b);
        let opens_at_a = a == self.search_now.get() || claims.clone().any(|c| c.end == a);
        touches && !opens_at_a
    }

    /// [`Self::hostable_by_room`] whatever the node sets say. Inlined into both of its
    /// callers: the usual machine's node question is this alone.
    #[inline(always)]
    fn room_for(&self, n: usize, a: Time, b: Time, job: &QueuedJob, per_task: Res) -> u64 {
        let spec = &self.spec;
        if !spec.can_host(n, per_task, job.request.features, self.partition_of(job)) {
            return 0;
        }
        let counting = self.searching_reservation.get() && !self.placing_found_start.get();
        if counting && spec.nodes[n].procs == 1 && self.ends_as_a_claim_begins(n, a, b, job) {
            return 0;
        }
        if self.holds_whole_nodes(job) {
            // SINGLEJOB for this job: a node nothing else claims over `[a, b)`. A
            // reservation's search offers it one task on a node with any claim at all
            // (3.3.1's `MJobGetSNRange` leaves it nothing after its first task there);
            // placed at the start found (`MJobGetEStartTime` asks again from there, the
            // claims ended by then skipped), one task on a node with a claim ending later.
            let (may_use, short) = (job.standing_access, job.standing_short);
            let (ja, jb) = self.judged_run(n, a, b, job);
            let claimed = |c: &Claim| {
                c.start < b && a < c.end && self.binds_over(n, c, may_use, short, ja, jb)
            };
            if self.claims[n].iter().any(claimed) {
                return 0;
            }
            let tasks = tasks_within(spec.nodes[n].capacity(), per_task);
            let one_task = if self.placing_found_start.get() {
                self.claims[n].iter().any(|c| c.end > a)
            } else {
                self.searching_reservation.get() && !self.claims[n].is_empty()
            };
            return if one_task { tasks.min(1) } else { tasks };
        }
        let cap = spec.nodes[n].capacity();
        let claims = &self.claims[n];
        let (may_use, short) = (job.standing_access, job.standing_short);
        let (ja, jb) = self.judged_run(n, a, b, job);
        let overlapping = claims
            .iter()
            .filter(|c| c.start < b && a < c.end && self.binds_over(n, c, may_use, short, ja, jb));
        if self.node_rules && self.keeps_off(n, overlapping.clone(), (a, b), job) {
            return 0;
        }
        let standing_overlaps = self.ahead[n] > 0
            && overlapping
                .clone()
                .any(|c| matches!(c.owner, Owner::Standing(_)));
        if standing_overlaps && !spec.access.is_exclusive() {
            // A window the job may not use holds its processors less what the jobs inside
            // take, and those take theirs: one that holds the whole node leaves nothing.
            let whole_node =
                |c: &Claim| matches!(c.owner, Owner::Standing(_)) && c.takes.procs >= cap.procs;
            if overlapping.clone().any(whole_node) {
                return 0;
            }
            let masks = (may_use, short);
            return self.hostable_around_standing(n, (a, b), (ja, jb), masks, per_task, job);
        }
        if spec.access.is_exclusive() {
            return if overlapping.clone().next().is_some() {
                0
            } else {
                tasks_within(cap, per_task)
            };
        }
        // Usually nothing starts inside [a, b): what is taken at `a` decides.
        let mut at_a = Res::default();
        let mut starts_inside = false;
        for c in overlapping.clone() {
            if c.start <= a {
                at_a.add(c.takes);
            } else {
                starts_inside = true;
            }
        }
        let free_at_a = cap.less(at_a);
        let first = tasks_within(free_at_a, per_task);
        if !starts_inside || first == 0 {
            return first;
        }
        let mut fewest = first;
        let points = overlapping.clone().map(|c| c.start).filter(|&s| s > a);
        for t in points {
            let mut used = Res::default();
            for c in overlapping.clone().filter(|c| c.start <= t && t < c.end) {
                used.add(c.takes);
            }
            let free = cap.less(used);
            fewest = fewest.min(tasks_within(free, per_task));
            if fewest == 0 {
                break;
            }
        }
        self.tasks_at_start(n, job, first, fewest)
    }

    /// Whether a reservation placed on node `n` holds the tasks free at its start rather
    /// than the fewest free over its run, while `at_found_start` is set: 3.3.1 places a
    /// reservation at the start its search found by each node's first available range from
    /// that start (`MJobGetEStartTime` asks `MJobGetSNRange` again from there and takes
    /// `ARange[0].TaskCount`), on nodes shared by tasks of several processors. So it may
    /// hold more of a node than a window or a reservation that begins later in its run
    /// leaves (seen in LOGLEVEL 7 logs: MAUI-AGREEMENT, "Windows on part of a node").
    pub(super) fn holds_free_at_start(&self, n: usize, job: &QueuedJob) -> bool {
        self.maui_order
            && self.spec.nodes[n].procs > 1
            && !self.spec.access.is_exclusive()
            && !self.holds_whole_nodes(job)
    }

    /// The tasks node `n` offers `job`, with `first` free at the start and `fewest` over
    /// its run: `first` where [`Self::holds_free_at_start`], while placing at a found start,
    /// and a task is free throughout (the placement then counts as cut, so that it is not
    /// carried where it would move).
    #[inline(always)]
    fn tasks_at_start(&self, n: usize, job: &QueuedJob, first: u64, fewest: u64) -> u64 {
        if fewest == 0 || first == fewest || !self.at_found_start.get() {
            return fewest;
        }
        self.tasks_at_found_start(n, job, first, fewest)
    }

    /// [`Self::tasks_at_start`] while a reservation is placed at its found start.
    #[inline(never)]
    fn tasks_at_found_start(&self, n: usize, job: &QueuedJob, first: u64, fewest: u64) -> u64 {
        if !self.holds_free_at_start(n, job) {
            return fewest;
        }
        self.fewer_than_a_start.set(true);
        first
    }

    /// A job that may use a standing reservation takes that reservation's nodes first, by
    /// the allocation policy, and the others only for what they cannot host (Maui's
    /// positive affinity, MJobAllocMNL): the nodes whose window overlaps `[t, end)`, or
    /// begins while the node stays free to the job from `t` (3.3.1's range walk,
    /// MJobGetSNRange, sets the affinity at each reservation it checks on the way). `None`
    /// when no such window is held now.
    #[allow(clippy::too_many_arguments)]
    fn place_with_affinity(
        &self,
        t: Time,
        now: Time,
        end: Time,
        job: &QueuedJob,
        per_task: Res,
        tasks: u64,
        reserving: bool,
    ) -> Option<Option<Allocation>> {
        let mut preferred: Vec<u32> = Vec::new();
        for &(k, start, stop) in &self.standing_held {
            let window = Claim {
                start,
                end: stop,
                takes: Res::default(),
                owner: Owner::Standing(k),
                may_use: 0,
            };
            if stop <= t {
                continue;
            }
            let (access, short) = (job.standing_access, job.standing_short);
            let uses = |n: u32| !self.binds_over(n as usize, &window, access, short, t, end);
            let nodes = &self.spec.standing[k as usize].nodes;
            if start < end {
                preferred.extend(nodes.iter().filter(|&&n| uses(n)));
            } else {
                let reached = |&&n: &&u32| {
                    uses(n) && self.free_stretch_passes(n as usize, t, end, job, start)
                };
                preferred.extend(nodes.iter().filter(reached));
            }
        }
        if preferred.is_empty() {
            return None;
        }
        preferred.sort_unstable();
        preferred.dedup();
        let (inside, outside): (Vec<u32>, Vec<u32>) = self
            .nodes_to_visit(t, now)
            .into_iter()
            .partition(|n| preferred.binary_search(n).is_ok());
        let inside = self.candidates(inside, t, end, job, per_task);
        let inside_tasks: u64 = inside.iter().map(|c| c.tasks).sum();
        if inside_tasks >= tasks {
            return Some(self.choose(t, now, end, job, tasks, inside, reserving));
        }
        let outside = self.candidates(outside, t, end, job, per_task);
        let rest = self.choose(t, now, end, job, tasks - inside_tasks, outside, reserving);
        Some(rest.map(|rest| {
            let mut all: Allocation = inside.iter().map(|c| (c.node, c.tasks)).collect();
            all.extend(rest);
            all
        }))
    }

    /// Whether node `n`'s stretch free to `job` from `t` runs past `by`, as 3.3.1's range
    /// walk finds it (MJobGetSNRange, one task asked, the job judged as starting at `t` and
    /// ending at `end`): no claim the job may not use that begins in `[t, by]` leaves it
    /// without a task.
    fn free_stretch_passes(&self, n: usize, t: Time, end: Time, job: &QueuedJob, by: Time) -> bool {
        let per_task = self.need(job);
        let masks = (job.standing_access, job.standing_short);
        let claims = &self.claims[n];
        claims
            .iter()
            .filter(|c| (t..=by).contains(&c.start))
            .filter(|c| self.binds_over(n, c, masks.0, masks.1, t, end))
            .all(|c| self.tasks_free_at(n, claims.iter(), c.start, masks, (t, end), per_task) > 0)
    }

    /// The tasks of `per_task` node `n` has free at instant `t` around those of `claims`
    /// active then, as a job judged over `judged` that may use the standing reservations
    /// of `masks` counts them ([`Self::taken_at`]).
    fn tasks_free_at<'c>(
        &self,
        n: usize,
        claims: impl Iterator<Item = &'c Claim>,
        t: Time,
        masks: (u64, u64),
        judged: (Time, Time),
        per_task: Res,
    ) -> u64 {
        let active: Vec<&Claim> = claims.filter(|c| c.start <= t && t < c.end).collect();
        let used = self.taken_at(n, &active, masks, judged);
        tasks_within(self.spec.nodes[n].capacity().less(used), per_task)
    }

    /// [`Machine::hostable`] where a standing reservation's window the job may not use
    /// overlaps `[a, b)`: the fewest tasks at any instant a claim begins.
    fn hostable_around_standing(
        &self,
        n: usize,
        (a, b): (Time, Time),
        judged: (Time, Time),
        masks: (u64, u64),
        per_task: Res,
        job: &QueuedJob,
    ) -> u64 {
        let claims: Vec<&Claim> = self.claims[n]
            .iter()
            .filter(|c| c.start < b && a < c.end)
            .collect();
        let first = self.tasks_free_at(n, claims.iter().copied(), a, masks, judged, per_task);
        let mut fewest = first;
        for t in claims.iter().map(|c| c.start).filter(|&s| s > a) {
            if fewest == 0 {
                break;
            }
            let free = self.tasks_free_at(n, claims.iter().copied(), t, masks, judged, per_task);
            fewest = fewest.min(free);
        }
        self.tasks_at_start(n, job, first, fewest)
    }

    /// What the claims active at one instant take of a node from a job over `[a, b)` that
    /// may use the standing reservations of `may_use` (and of `short` by its overlap). A
    /// window it may not use holds its processors less what the jobs that may use it take
    /// there (Maui's MResAdjustDRes: those jobs consume the reservation rather than add
    /// to it).
    pub(super) fn taken_at(
        &self,
        n: usize,
        active: &[&Claim],
        (may_use, short): (u64, u64),
        (a, b): (Time, Time),
    ) -> Res {
        let mut used = Res::default();
        for c in active {
            match c.owner {
                Owner::Standing(k) => {
                    if !self.binds_over(n, c, may_use, short, a, b) {
                        continue;
                    }
                    let limit = self.standing_limit(k);
                    let inside: u64 = active
                        .iter()
                        .filter(|o| !matches!(o.owner, Owner::Standing(_)))
                        .filter(|o| self.claim_uses_window(o, k, c, limit))
                        .map(|o| o.takes.procs)
                        .sum();
                    used.procs += c.takes.procs.saturating_sub(inside);
                }
                _ => used.add(c.takes),
            }
        }
        used
    }

    /// The node-set features `job` may use (0: any node; MJob.c `MReqGetFNL` with 3.3.1's
    /// best-effort node sets): those whose nodes in its partition can hold all its tasks,
    /// counting every feature, under ONEOF and FIRSTOF; none under ANYOF, or when no
    /// feature's nodes can.
    pub(super) fn node_set_features(&self, job: &QueuedJob) -> u64 {
        let Some(sets) = &self.spec.node_sets else {
            return 0;
        };
        // Mandatory sets are held at the start instead (MJob.c `MReqGetFNL` skips them).
        if sets.policy == crate::node::NodeSetPolicy::AnyOf || sets.mandatory {
            return 0;
        }
        if let Some((now, shorter)) = self.backfill_window.get() {
            return self.window_set_features(job, now, shorter);
        }
        let need = self.need(job);
        let tasks = job.procs / need.procs.max(1);
        let part = self.partition_of(job);
        let key = (job.request, part, tasks);
        if let Some(&mask) = self.set_features.borrow().get(&key) {
            return mask;
        }
        let spec = &self.spec;
        let offers = (0..spec.nodes.len())
            .filter(|&n| spec.can_host(n, need, job.request.features, part))
            .map(|n| {
                let held = spec.tasks_per_node(tasks_within(spec.nodes[n].capacity(), need));
                (spec.nodes[n].features, held)
            });
        let mask = features_that_hold(offers, sets.every_feature, tasks);
        self.set_features.borrow_mut().insert(key, mask);
        mask
    }

    /// [`Self::node_set_features`] in a backfill window: judged by the tasks of the job
    /// the window's nodes held when it opened (3.3.1 applies `MReqGetFNL` to the window's
    /// node list, which the starts in the window do not update).
    fn window_set_features(&self, job: &QueuedJob, now: Time, shorter: Time) -> u64 {
        let key = (job.idx, now, shorter, self.within);
        if let Some((k, mask)) = *self.window_sets.borrow() {
            if k == key {
                return mask;
            }
        }
        let Some(sets) = &self.spec.node_sets else {
            return 0;
        };
        let need = self.need(job);
        let tasks = job.procs / need.procs.max(1);
        let part = self.partition_of(job);
        let spec = &self.spec;
        let offers = self
            .window_nodes
            .iter()
            .filter(|&&(n, _)| spec.can_host(n as usize, need, job.request.features, part))
            .map(|&(n, free)| {
                let held = spec.tasks_per_node(tasks_within(free, need));
                (spec.nodes[n as usize].features, held)
            });
        let mask = features_that_hold(offers, sets.every_feature, tasks);
        *self.window_sets.borrow_mut() = Some((key, mask));
        mask
    }

    /// Whether node `n` is in the backfill window after `shorter`: processors free now,
    /// and free for longer than `shorter`.
    fn in_window(&self, n: usize, now: Time, shorter: Time) -> bool {
        let (free, until) = self.node_window(n as u32, now);
        free > 0 && until - now > shorter && !self.busy_by_load(n)
    }

    /// Fills one backfill window from now on (`None`: backfill is over): with node sets,
    /// jobs are offered the window's nodes only.
    pub(crate) fn set_backfill_window(&mut self, window: Option<(Time, Time)>) {
        self.backfill_window.set(None);
        self.window_nodes.clear();
        *self.window_sets.borrow_mut() = None;
        self.window_members = None;
        if let (Some((now, shorter)), true) = (window, self.ranks_windows()) {
            self.window_members = Some((self.ranked_windows(now), now, shorter));
        }
        if let (Some((now, shorter)), true) = (window, self.keeps_window_nodes()) {
            // From the ranking, the nodes themselves only where node sets judge by them.
            let nodes: Vec<u32> = match &self.window_members {
                Some(_) if self.spec.node_sets.is_none() => Vec::new(),
                Some((ranking, _, _)) => {
                    let longer = ranking.nodes.iter().filter(|w| w.0 - now > shorter);
                    let ended = longer.map(|w| w.2);
                    let idle = ranking.idle.iter().flat_map(NodeBitmap::iter);
                    ranking
                        .forever
                        .iter()
                        .map(|&(n, _)| n)
                        .chain(idle)
                        .chain(ended)
                        .collect()
                }
                None => {
                    let free = self.free_nodes_now(now);
                    free.filter(|&n| self.in_window(n as usize, now, shorter))
                        .collect()
                }
            };
            for n in nodes {
                let cap = self.spec.nodes[n as usize].capacity();
                let free = cap.less(self.used_at(n as usize, now).0);
                self.window_nodes.push((n, free));
            }
            self.window_nodes.sort_unstable_by_key(|&(n, _)| n);
        }
        self.backfill_window.set(window);
    }

    /// Whether a backfill window's jobs are offered its nodes only, as they stood when it
    /// opened (3.3.1's BFNodeList): with node sets, and on nodes of several processors,
    /// where a node's window can end before a job's limit that it could still host. (On
    /// nodes of one processor a node outside the window cannot host a job the window
    /// admits.)
    fn keeps_window_nodes(&self) -> bool {
        self.spec.node_sets.is_some() || (self.several_procs && self.maui_order)
    }

    /// Whether node `n` was in the backfill window when it opened (see
    /// [`Self::keeps_window_nodes`]); true outside backfill.
    fn in_window_nodes(&self, n: usize) -> bool {
        if self.backfill_window.get().is_none() {
            return true;
        }
        if let Some((ranking, now, shorter)) = &self.window_members {
            let rank = ranking.rank_of[n];
            let longer = |rank: u32| ranking.nodes[rank as usize].0 - now > *shorter;
            let idle = ranking
                .idle
                .as_ref()
                .is_some_and(|idle| idle.contains(n as u32));
            return idle
                || ranking.is_forever(n)
                || (rank != WindowRanking::NEITHER && longer(rank));
        }
        self.window_nodes
            .binary_search_by_key(&(n as u32), |&(m, _)| m)
            .is_ok()
    }

    /// Whether node `n` is in the node set `job` may use, and in the one its placement is
    /// held to, if any.
    fn in_node_set(&self, n: usize, job: &QueuedJob) -> bool {
        let Some(sets) = &self.spec.node_sets else {
            return true;
        };
        if sets.policy == crate::node::NodeSetPolicy::AnyOf {
            return true;
        }
        if !self.in_window_nodes(n) {
            return false;
        }
        let features = self.spec.nodes[n].features;
        let may = self.node_set_features(job);
        let placing = self.placing_in.get();
        (may == 0 || features & may != 0) && (placing == 0 || features & placing != 0)
    }

    /// The NODESETLIST set a placement of `job` at `t` takes its nodes from (MSched.c
    /// `MJobAllocMNL` and `MJobSelectResourceSet`: FIRSTOF, ONEOF read as FIRSTOF): among the
    /// sets whose nodes available over `[t, end)` hold all its tasks, the one
    /// NODESETPRIORITYTYPE picks. `Ok(0)`: any node (ANYOF; best effort when no set holds
    /// them); `Err` when mandatory sets leave no node to the job.
    fn node_set_for(
        &self,
        t: Time,
        now: Time,
        end: Time,
        job: &QueuedJob,
        per_task: Res,
    ) -> Result<u64, NoNodeSet> {
        let Some(sets) = self.spec.node_sets.as_ref() else {
            return Ok(0);
        };
        let any_of = sets.policy == crate::node::NodeSetPolicy::AnyOf;
        if !sets.mandatory && (any_of || sets.sets.is_empty()) {
            return Ok(0);
        }
        let tasks = job.procs / per_task.procs.max(1);
        let mut available = vec![0u64; sets.sets.len()];
        // ANYOF counts a node in its first set only, and then only asks that the sets
        // hold all the tasks together.
        let mut in_some_set = 0;
        for n in self.nodes_to_visit(t, now) {
            let h = self.hostable(n as usize, t, end, job, per_task);
            if h == 0 {
                continue;
            }
            let features = self.spec.nodes[n as usize].features;
            if any_of {
                if sets.sets.iter().any(|&set| features & set != 0) {
                    in_some_set += h;
                }
                continue;
            }
            for (k, &set) in sets.sets.iter().enumerate() {
                if features & set != 0 {
                    available[k] += h;
                }
            }
        }
        if any_of {
            return if in_some_set >= tasks {
                Ok(0)
            } else {
                Err(NoNodeSet)
            };
        }
        let adequate = (0..sets.sets.len()).filter(|&k| available[k] >= tasks);
        use crate::node::NodeSetPriority as P;
        let chosen = match sets.priority {
            P::BestResource => adequate.clone().next(),
            P::MinLoss => adequate.clone().next_back(),
            // The first of the smallest (largest): min_by_key keeps the first of equals,
            // max_by_key the last, hence the reversed key.
            P::BestFit => adequate.clone().min_by_key(|&k| available[k]),
            P::WorstFit => adequate
                .clone()
                .min_by_key(|&k| std::cmp::Reverse(available[k])),
        };
        match chosen {
            Some(k) => Ok(sets.sets[k]),
            None if sets.mandatory => Err(NoNodeSet),
            None => Ok(0),
        }
    }

    /// The nodes for `job` starting at `t` (`now` ≤ `t`), chosen by the allocation policy
    /// for a start or, when `reserving`, a reservation, or `None` if too few can host it
    /// for its whole WCL; within one node set when one has room for it (only then, when
    /// node sets are mandatory).
    pub(super) fn place(
        &self,
        t: Time,
        now: Time,
        job: &QueuedJob,
        reserving: bool,
    ) -> Option<Allocation> {
        self.assert_settled();
        if !self.pooled && self.spec.node_sets.is_some() && self.placing_in.get() == 0 {
            let per_task = self.need(job);
            let end = t + job.wcl.max(1);
            let set = self.node_set_for(t, now, end, job, per_task).ok()?;
            if set != 0 {
                self.placing_in.set(set);
                let placed = self.place_in_sets(t, now, job, reserving);
                self.placing_in.set(0);
                if placed.is_some() || self.mandatory_node_sets() {
                    return placed;
                }
            }
        }
        self.place_in_sets(t, now, job, reserving)
    }

    /// Whether jobs start only within a node set (NODESETDELAY above 0).
    pub(super) fn mandatory_node_sets(&self) -> bool {
        self.spec.node_sets.as_ref().is_some_and(|s| s.mandatory)
    }

    /// [`Machine::place`] among the nodes of the node set being placed in, if any.
    fn place_in_sets(
        &self,
        t: Time,
        now: Time,
        job: &QueuedJob,
        reserving: bool,
    ) -> Option<Allocation> {
        let per_task = self.need(job);
        let tasks = job.procs / per_task.procs.max(1);
        if self.pooled {
            return self.place_pooled(now, job, tasks);
        }
        let end = t + job.wcl.max(1);
        if t == now && self.keeps_promises {
            if let Some(promise) = self.promised.get(&job.idx) {
                let holds = promise
                    .iter()
                    .all(|&(n, k)| self.hostable(n as usize, t, end, job, per_task) >= k);
                if holds {
                    return Some(promise.clone());
                }
            }
        }
        if job.standing_access | job.standing_short != 0 {
            let placed = self.place_with_affinity(t, now, end, job, per_task, tasks, reserving);
            if let Some(placed) = placed {
                return placed;
            }
        }
        let last_node_first =
            self.maui_order && self.allocation() == AllocationPolicy::LastAvailable;
        if last_node_first && !self.exhaustive {
            return if t == now && !reserving {
                self.place_now_free_longest(now, end, job, per_task, tasks)
            } else {
                self.place_later_last_node_first(t, end, job, per_task, tasks)
            };
        }
        let cands = self.candidates(self.nodes_to_visit(t, now), t, end, job, per_task);
        if cands.iter().map(|c| c.tasks).sum::<u64>() < tasks {
            return None;
        }
        self.choose(t, now, end, job, tasks, cands, reserving)
    }

    /// The nodes a placement starting at `t` visits: those free now for a start now,
    /// every node for a later one.
    fn nodes_to_visit(&self, t: Time, now: Time) -> Vec<u32> {
        if t == now {
            self.nodes_free_now(now)
        } else {
            (0..self.spec.nodes.len() as u32).collect()
        }
    }

    /// The nodes of `nodes` that can host some task of `job` over `[t, end)`, as the
    /// allocation policy's candidates.
    fn candidates(
        &self,
        nodes: Vec<u32>,
        t: Time,
        end: Time,
        job: &QueuedJob,
        per_task: Res,
    ) -> Vec<NodeCandidate> {
        let candidate = |n: u32| {
            let h = self.hostable(n as usize, t, end, job, per_task);
            (h > 0).then(|| NodeCandidate {
                node: n,
                tasks: h,
                free_procs: self.free_procs_at(n as usize, t),
            })
        };
        nodes.into_iter().filter_map(candidate).collect()
    }

    /// Maui's LASTAVAILABLE starting now (see `allocate::maui_key`): the nodes free for
    /// longest first, the last node first among equals. Every free node without a claim
    /// ahead is free for ever, so those come in reverse node order straight from the index;
    /// the nodes with a claim ahead come from their ranking (made once per instant and set
    /// of claims ahead, as the backfill starts one job after another around the same
    /// reservations), and the few freed by a job past its planned end are ranked one by
    /// one. The three are merged, and the walk stops once the job is placed.
    fn place_now_free_longest(
        &self,
        now: Time,
        end: Time,
        job: &QueuedJob,
        per_task: Res,
        tasks: u64,
    ) -> Option<Allocation> {
        if self.several_procs {
            return self.place_now_longest_available(now, end, job, per_task, tasks);
        }
        let mut expired: Vec<u32> = self
            .expired_jobs(now)
            .flat_map(|p| p.nodes.iter().map(|&(n, _)| n))
            .collect();
        expired.sort_unstable();
        expired.dedup();
        let is_expired = |n: u32| expired.binary_search(&n).is_ok();
        let mut expired_plain: Vec<(Time, u32)> = expired
            .iter()
            .filter(|&&n| self.ahead[n as usize] == 0)
            .map(|&n| (self.free_for(n as usize, now, job.standing_access), n))
            .collect();
        expired_plain.sort_unstable_by(|a, b| b.cmp(a));
        self.rank_ahead(now, job.standing_access);
        let ranking = self.ranked_ahead.borrow();
        let free_for = |next_claim: Time| match next_claim {
            FOREVER => FOREVER,
            t => t - now,
        };
        let ahead = ranking
            .nodes
            .iter()
            .map(|&(next_claim, n)| (free_for(next_claim), n))
            .filter(|&(_, n)| self.free[n as usize] > 0 || is_expired(n));
        let forever = self
            .free_plain
            .iter()
            .rev()
            .filter(|&n| !is_expired(n))
            .map(|n| (FOREVER, n));
        let ranked = merge_descending(merge_descending(ahead, expired_plain.into_iter()), forever);
        let in_bulk = self.plain_in_bulk(job);
        let cands = ranked.map(|(free_for, n)| NodeCandidate {
            node: n,
            tasks: (in_bulk && free_for == FOREVER && !is_expired(n))
                .then(|| self.claimless_free_tasks(n))
                .flatten()
                .unwrap_or_else(|| self.hostable(n as usize, now, end, job, per_task)),
            free_procs: 0,
        });
        take_in_order(cands.filter(|c| c.tasks > 0), tasks)
    }

    /// [`Self::place_now_free_longest`] on nodes of several processors: every node free
    /// now ranked by 3.3.1's available time for this job (the longest first, the last
    /// node first among equals), which depends on the job's tasks and limit.
    fn place_now_longest_available(
        &self,
        now: Time,
        end: Time,
        job: &QueuedJob,
        per_task: Res,
        tasks: u64,
    ) -> Option<Allocation> {
        let cands = self
            .by_availability(now, job, tasks, per_task)
            .map(|n| NodeCandidate {
                node: n,
                tasks: self.hostable(n as usize, now, end, job, per_task),
                free_procs: 0,
            });
        take_in_order(cands.filter(|c| c.tasks > 0), tasks)
    }

    /// The nodes free now by how long each stays available to `job` (see
    /// `maui_available`), the longest first, the last node first among equals; ranked
    /// lazily, as a start usually takes a node or two of many.
    pub(super) fn by_availability<'a>(
        &'a self,
        now: Time,
        job: &'a QueuedJob,
        tasks: u64,
        per_task: Res,
    ) -> impl Iterator<Item = u32> + 'a {
        let available = |n: u32| {
            (
                self.maui_available(n as usize, now, job, tasks, per_task),
                n,
            )
        };
        let idle_for_ever = self.several_procs
            && !self.exhaustive
            && per_task.procs <= 1
            && self.per_user(user_of(job)) == NO_USER
            && !self.job_capped;
        let (others, idle): (Vec<u32>, Option<&NodeBitmap>) = if idle_for_ever {
            // To such a job an idle node is available for ever (`maui_available`: tasks
            // free now, and no claim to end the range): those come from the index in
            // node order, and only the other free nodes are ranked.
            let freed = self.freed_by_expired_jobs(now);
            let busy = self.free_set.iter_without(&self.idle).chain(freed);
            (busy.collect(), Some(&self.idle))
        } else {
            (self.free_nodes_now(now).collect(), None)
        };
        let mut ranked: std::collections::BinaryHeap<(Time, u32)> =
            others.into_iter().map(available).collect();
        let ranked = std::iter::from_fn(move || ranked.pop());
        let idle = idle
            .into_iter()
            .flat_map(|set| set.iter().rev().map(|n| (FOREVER, n)));
        merge_descending(ranked, idle).map(|(_, n)| n)
    }

    /// How long node `n` stays available to `job` after `now` as 3.3.1's LASTAVAILABLE
    /// start ranks it: the time until its next claim on a node of one processor, 3.3.1's
    /// available time on one of several.
    pub(super) fn maui_available(
        &self,
        n: usize,
        now: Time,
        job: &QueuedJob,
        tasks: u64,
        per_task: Res,
    ) -> Time {
        if self.spec.nodes[n].procs > 1 {
            let asker = (job.standing_access, user_of(job));
            self.maui_available_for(n, now, (tasks, job.wcl.max(1)), per_task, asker)
        } else {
            self.free_for(n, now, job.standing_access)
        }
    }

    /// Ranks the nodes with a claim ahead by how long they stay free after `now` (the
    /// longest first, the last node first among equals), unless the ranking is already
    /// of this instant and of these claims ahead.
    pub(super) fn rank_ahead(&self, now: Time, may_use: u64) {
        let mut cache = self.ranked_ahead.borrow_mut();
        let same_claims = (cache.ahead_version, cache.may_use) == (self.ahead_version, may_use);
        if same_claims && cache.at <= now && now < cache.horizon {
            return;
        }
        let cache = &mut *cache;
        for &(_, n) in &cache.nodes {
            cache.run_of[n as usize] = NOT_RANKED;
        }
        cache.run_of.resize(self.free.len(), NOT_RANKED);
        let ranking = &mut cache.nodes;
        ranking.clear();
        let ahead = self.ahead_nodes.iter();
        ranking.extend(ahead.map(|n| {
            let next = self.next_claim_after(n as usize, now + 1, may_use);
            (next.unwrap_or(FOREVER), n)
        }));
        ranking.sort_unstable_by(|a, b| b.cmp(a));
        cache.runs.clear();
        for &(next_claim, n) in ranking.iter() {
            if cache.runs.last().is_none_or(|r| r.0 != next_claim) {
                cache.runs.push((next_claim, 0));
            }
            let run = cache.runs.len() - 1;
            cache.run_of[n as usize] = run as u32;
            cache.runs[run].1 += self.free[n as usize].max(0);
        }
        cache.horizon = ranking.last().map_or(FOREVER, |r| r.0);
        cache.ahead_version = self.ahead_version;
        cache.at = now;
        cache.may_use = may_use;
    }

    /// Maui's LASTAVAILABLE starting at `t` after now: the last node first. A node can
    /// host a task at `t` only if it is free now, a running job on it ends by `t`, or it
    /// has a claim ahead; only those are visited, the free ones straight from the index in
    /// reverse node order, and the walk stops once the job is placed.
    fn place_later_last_node_first(
        &self,
        t: Time,
        end: Time,
        job: &QueuedJob,
        per_task: Res,
        tasks: u64,
    ) -> Option<Allocation> {
        // The nodes of the jobs past their planned end by `t`: at a later start, many.
        let mut ending = NodeBitmap::new(self.spec.nodes.len());
        for p in self.expired_jobs(t) {
            for &(n, _) in &p.nodes {
                ending.insert(n);
            }
        }
        // Each in descending node order, and apart: no node comes twice.
        let ahead = self.ahead_nodes.iter().rev();
        let ending = ending.iter().rev();
        let others = merge_descending(
            ahead.filter(|&n| !self.free_set.contains(n)),
            ending.filter(|&n| !self.free_set.contains(n) && !self.ahead_nodes.contains(n)),
        );
        let nodes = merge_descending(self.free_set.iter().rev(), others);
        // A free node of one processor without a claim ahead has no claim at all.
        let in_bulk = !self.several_procs && self.plain_in_bulk(job);
        let cands = nodes.map(|n| NodeCandidate {
            node: n,
            tasks: in_bulk
                .then(|| self.claimless_free_tasks(n))
                .flatten()
                .unwrap_or_else(|| self.hostable(n as usize, t, end, job, per_task)),
            free_procs: 0,
        });
        take_in_order(cands.filter(|c| c.tasks > 0), tasks)
    }

    /// Pooled processors: the free nodes (and those of jobs past their planned end) are
    /// enough by the profile; the policy only orders them.
    fn place_pooled(&self, now: Time, job: &QueuedJob, tasks: u64) -> Option<Allocation> {
        let expired = self.expired_on(now);
        let mut alloc = Vec::new();
        let mut left = tasks;
        let mut take = |n: u32, free: i64, alloc: &mut Allocation| {
            let k = (free.max(0) as u64).min(left);
            if k > 0 {
                alloc.push((n, k));
                left -= k;
            }
            left == 0
        };
        let policy = self.allocation();
        if expired.is_empty() && policy == AllocationPolicy::FirstAvailable {
            for n in self.free_set.iter() {
                if take(n, self.free[n as usize], &mut alloc) {
                    return Some(alloc);
                }
            }
            return None;
        }
        if expired.is_empty() && policy == AllocationPolicy::LastAvailable {
            for bucket in &self.by_free {
                for &n in bucket {
                    if take(n, self.free[n as usize], &mut alloc) {
                        return Some(alloc);
                    }
                }
            }
            return None;
        }
        let mut nodes: Vec<u32> = self.free_set.iter().collect();
        nodes.extend(expired.keys().copied());
        nodes.sort_unstable_by(|a, b| b.cmp(a));
        nodes.dedup();
        let cands: Vec<NodeCandidate> = nodes
            .into_iter()
            .map(|n| {
                let free = self.free[n as usize].max(0) + expired.get(&n).copied().unwrap_or(0);
                NodeCandidate {
                    node: n,
                    tasks: free.max(0) as u64,
                    free_procs: free.max(0) as u64,
                }
            })
            .filter(|c| c.tasks > 0)
            .collect();
        let end = now + job.wcl.max(1);
        self.choose(now, now, end, job, tasks, cands, false)
    }

    /// Per node: the earliest start at which the policy can place `job` for its WCL.
    ///
    /// A sweep over time: each node's tasks for a start at `t` change only when `t`
    /// passes the end of one of its claims (more) or when `t + WCL` passes the start of
    /// one (fewer), so only those nodes are re-evaluated, and the total is checked at
    /// each such instant. For a job of one-processor tasks that any node may host, only
    /// the nodes with a claim ahead are followed one by one; the others are summed by
    /// [`PlainNodes`] from the running jobs' planned ends.
    pub(super) fn earliest_placement(
        &self,
        now: Time,
        job: &QueuedJob,
    ) -> Option<(Time, Allocation)> {
        self.searching_reservation.set(true);
        self.search_now.set(now);
        self.fewer_than_a_start.set(false);
        self.search_merged.set(false);
        let found = self.search_earliest(now, job);
        self.searching_reservation.set(false);
        found
    }

    /// Whether a reservation's search for `job` takes the nodes without a claim ahead in
    /// bulk, from the running jobs' planned ends: one-processor tasks asking for nothing
    /// else, on any node, shared, no node sets.
    pub(super) fn searched_by_jobs(&self, job: &QueuedJob) -> bool {
        let one_processor = self.need(job)
            == Res {
                procs: 1,
                ..Res::default()
            };
        one_processor
            && job.standing_short == 0
            && job.request.features == 0
            && (!self.divided || self.partition_of(job) == 0)
            && self.spec.node_sets.is_none()
            && !job.cred_factors.dedicated
            && !self.exhaustive
            && self.spec.access == NodeAccess::Shared
            && !self.job_capped
            && !self.start_capped
            && !self.spec.one_task_per_node
    }

    /// Where 3.3.1's merge of the nodes' start ranges decides a reservation's start
    /// otherwise than counting them half-open ([`super::start_merge`]): on nodes of one
    /// processor, where some node's free window is exactly the job's limit long. The start
    /// the merge finds; `None` where the sweep decides (no such window, or a machine or job
    /// the merge's rules were not worked out for: windows, node rules, node sets,
    /// partitions, jobs past their planned end, DEDICATED jobs).
    #[inline(never)]
    fn merged_start(&self, now: Time, job: &QueuedJob, per_task: Res, tasks: u64) -> Option<Time> {
        if !self.merges_starts(now, job, per_task) {
            return None;
        }
        let w = job.wcl.max(1);
        if !self.has_an_exact_window(now, w) {
            return None;
        }
        let (features, part) = (job.request.features, self.partition_of(job));
        let mut merged = super::start_merge::MergedStarts::default();
        for n in 0..self.spec.nodes.len() {
            if !self.spec.can_host(n, per_task, features, part) {
                continue;
            }
            let starts: Vec<(Time, Time)> = self
                .free_windows(n, now)
                .into_iter()
                .filter(|&(open, close)| close - open >= w)
                .map(|(open, close)| (open, if close >= FOREVER { FOREVER } else { close - w }))
                .collect();
            merged.add_node(&starts);
        }
        merged.earliest(tasks)
    }

    /// Whether 3.3.1's merge of start ranges ([`Self::merged_start`]) may decide `job`'s
    /// search at `now`: on nodes of one processor, where the rules were worked out.
    pub(super) fn merges_starts(&self, now: Time, job: &QueuedJob, per_task: Res) -> bool {
        // (On a node of one processor a task takes it whole, whatever memory it asks.)
        self.maui_order
            && !self.several_procs
            && per_task.procs == 1
            && !self.has_standing()
            && !self.node_rules
            && !self.start_capped
            && !self.divided
            && self.spec.node_sets.is_none()
            && self.spec.access == NodeAccess::Shared
            && !job.cred_factors.dedicated
            && self.expired_jobs(now).next().is_none()
    }

    /// Whether some node has a free window from `now` on exactly `w` long (only a node
    /// with a claim ahead has a window that ends).
    pub(super) fn has_an_exact_window(&self, now: Time, w: Time) -> bool {
        // On nodes of one processor only reservations begin after now: such a window ends
        // where one begins, and begins now or where a running job or a reservation ends.
        let reservations = || self.held.iter().chain(&self.laid).filter(|h| h.live);
        let opens = |open: Time| {
            open == now
                || self
                    .by_end
                    .range((open, JobIdx(0))..(open + 1, JobIdx(0)))
                    .next()
                    .is_some()
                || reservations().any(|h| h.end == open)
        };
        let may_be = reservations().any(|h| h.start - w >= now && opens(h.start - w));
        may_be
            && self
                .ahead_nodes
                .iter()
                .any(|n| self.has_exact_window(n as usize, now, w))
    }

    /// Whether one-processor node `n` has a free window from `now` on exactly `w` long:
    /// one that ends where a claim begins, and begins where another ends (or now), with no
    /// claim between (its claims do not overlap).
    pub(super) fn has_exact_window(&self, n: usize, now: Time, w: Time) -> bool {
        // Reservations left laid from the last iteration at this rank and after are not
        // what a search here sees (`keeps_laid` asks before they settle).
        let placed = self.held.len();
        let seen = |c: &&Claim| !matches!(c.owner, Owner::Held(id) if id as usize >= placed);
        let claims = || self.claims[n].iter().filter(seen);
        claims().any(|c| {
            let open = c.start - w;
            open >= now
                && c.start < FOREVER
                && (open == now || claims().any(|p| p.end == open))
                && !claims().any(|p| p.start < c.start && p.end > open)
        })
    }

    /// The free windows `[open, close)` of one-processor node `n` from `now` on, between
    /// its claims (the last one without end: `FOREVER`).
    fn free_windows(&self, n: usize, now: Time) -> Vec<(Time, Time)> {
        let mut claims: Vec<(Time, Time)> = self.claims[n]
            .iter()
            .filter(|c| c.end > now)
            .map(|c| (c.start, c.end))
            .collect();
        claims.sort_unstable();
        let mut windows = Vec::new();
        let mut open = now;
        for (start, end) in claims {
            if start > open {
                windows.push((open, start));
            }
            open = open.max(end);
        }
        if open < FOREVER {
            windows.push((open, FOREVER));
        }
        windows
    }

    /// `job`'s placement at the start `t` its search found, if the processors and its
    /// nodes hold it there.
    fn place_at_found_start(&self, t: Time, now: Time, job: &QueuedJob) -> Option<Allocation> {
        if !self.profile.fits(t, job.wcl, job.procs) {
            return None;
        }
        self.placing_found_start.set(true);
        self.at_found_start.set(true);
        let placed = self.place(t, now, job, true);
        self.at_found_start.set(false);
        self.placing_found_start.set(false);
        placed
    }

    /// Whether a placement at a start the sweep found later than now visits the nodes the
    /// sweep followed and chooses among them by the allocation policy alone
    /// ([`Self::place_in_sets`] without node sets, promises, windows, whole nodes or
    /// Maui's LASTAVAILABLE order), so that [`Self::place_at_swept_start`] may take what
    /// the sweep counted.
    fn places_from_the_sweep(&self, job: &QueuedJob) -> bool {
        !self.pooled
            && self.spec.node_sets.is_none()
            && job.standing_access | job.standing_short == 0
            && !self.holds_whole_nodes(job)
            && !(self.maui_order && self.allocation() == AllocationPolicy::LastAvailable)
    }

    /// [`Self::place_at_found_start`] at `t` after now, where the sweep left what each
    /// node it followed hosts from `t` (`swept`: the nodes, their tasks, and each node's
    /// index among them where only running jobs claim it, else `u32::MAX`). On such a node
    /// the placement's count is the sweep's (it differs only around claims that begin
    /// later); the others are asked again.
    fn place_at_swept_start(
        &self,
        t: Time,
        now: Time,
        job: &QueuedJob,
        (followed, hosts, streamed): (&[u32], &[u64], &[u32]),
    ) -> Option<Allocation> {
        if !self.profile.fits(t, job.wcl, job.procs) {
            return None;
        }
        let per_task = self.need(job);
        let tasks = job.procs / per_task.procs.max(1);
        let end = t + job.wcl.max(1);
        self.placing_found_start.set(true);
        self.at_found_start.set(true);
        let candidate = |(&n, &swept): (&u32, &u64)| {
            let h = if is_streamed(streamed, n) {
                swept
            } else {
                self.hostable(n as usize, t, end, job, per_task)
            };
            (h > 0).then(|| NodeCandidate {
                node: n,
                tasks: h,
                free_procs: self.free_procs_at(n as usize, t),
            })
        };
        let cands: Vec<NodeCandidate> = followed.iter().zip(hosts).filter_map(candidate).collect();
        let placed = if cands.iter().map(|c| c.tasks).sum::<u64>() < tasks {
            None
        } else {
            self.choose(t, now, end, job, tasks, cands, true)
        };
        self.at_found_start.set(false);
        self.placing_found_start.set(false);
        placed
    }

    /// Whether what a node only running jobs claim hosts of `job` from `now` on is what
    /// their claims leave of its capacity (`running_use`), as [`Self::room_for`] counts it
    /// there: no node rule or check, shared access, not whole nodes, and no running job past
    /// its planned end (whose claim a run from now no longer meets).
    pub(super) fn hosts_by_running_use(&self, now: Time, job: &QueuedJob) -> bool {
        !self.node_checks
            && !self.node_rules
            && !self.spec.access.is_exclusive()
            && !self.holds_whole_nodes(job)
            && self.by_end.first().is_none_or(|&(end, _)| end > now)
    }

    /// What node `n`, which only running jobs claim and which can host the job's tasks,
    /// hosts of tasks of `per_task` from now on, where [`Self::hosts_by_running_use`].
    pub(super) fn hosts_by_use(&self, n: usize, per_task: Res) -> u64 {
        let free = self.spec.nodes[n].capacity().less(self.running_use[n]);
        self.spec.tasks_per_node(tasks_within(free, per_task))
    }

    /// [`Self::earliest_placement`]'s sweep.
    fn search_earliest(&self, now: Time, job: &QueuedJob) -> Option<(Time, Allocation)> {
        let per_task = self.need(job);
        let tasks = job.procs / per_task.procs.max(1);
        let (features, part) = (job.request.features, self.partition_of(job));
        let by_jobs = self.searched_by_jobs(job);
        let followed: Vec<u32> = if by_jobs {
            self.ahead_nodes.iter().collect()
        } else {
            (0..self.spec.nodes.len() as u32)
                .filter(|&n| self.spec.can_host(n as usize, per_task, features, part))
                .collect()
        };
        let plain = by_jobs.then(|| PlainNodes::new(self, now, &followed));
        let w = job.wcl.max(1);
        // A node with only running jobs' claims changes where one of them ends: those
        // events come in order from the planned ends, as far as the sweep goes.
        let streams_ends = !by_jobs && !self.exhaustive;
        let mut streamed: Vec<u32> = Vec::new();
        let mut events: Vec<(Time, usize)> = Vec::new();
        let mut touches_now = false;
        for (i, &n) in followed.iter().enumerate() {
            if streams_ends && self.ahead[n as usize] == 0 {
                if streamed.is_empty() {
                    streamed = vec![u32::MAX; self.spec.nodes.len()];
                }
                streamed[n as usize] = i as u32;
                continue;
            }
            // 3.3.1's start ranges change where any of the node's ranges begins.
            let by_ranges = self.maui_order && self.spec.nodes[n as usize].procs > 1;
            for c in &self.claims[n as usize] {
                if c.end > now && c.end < FOREVER {
                    events.push((c.end, i));
                }
                if by_ranges && c.start > now && c.start < FOREVER {
                    events.push((c.start, i));
                }
                let overlaps_from = c.start.saturating_sub(w).saturating_add(1);
                if overlaps_from > now {
                    events.push((overlaps_from, i));
                }
                // The start that would end as the claim begins (`ends_as_a_claim_begins`).
                let touches_at = c.start.saturating_sub(w);
                if touches_at > now && c.start < FOREVER {
                    events.push((touches_at, i));
                }
                touches_now |= touches_at == now && c.start < FOREVER;
            }
        }
        sort_events(&mut events, now);
        // A window exactly the limit long shows as a claim's end on a node at the start
        // that would end as another claim there begins (or as that start being now).
        let may_be_exact = touches_now || events.windows(2).any(|pair| pair[0] == pair[1]);
        if may_be_exact {
            if let Some(t) = self.merged_start(now, job, per_task, tasks) {
                if let Some(nodes) = self.place_at_found_start(t, now, job) {
                    // Not carried or left laid: the merge depends on every node's windows.
                    self.fewer_than_a_start.set(true);
                    self.search_merged.set(true);
                    self.search_most.set(0);
                    return Some((t, nodes));
                }
            }
        }
        events.dedup();
        let from_use = streams_ends && self.hosts_by_running_use(now, job);
        let h: Vec<u64> = followed
            .iter()
            .map(|&n| {
                if from_use && is_streamed(&streamed, n) {
                    self.hosts_by_use(n as usize, per_task)
                } else {
                    self.hostable(n as usize, now, now + w, job, per_task)
                }
            })
            .collect();
        let mut sweep = Sweep {
            followed: &followed,
            streamed: &streamed,
            events: &events,
            h,
            plain,
            streams_ends,
            per_task,
            tasks,
            w,
        };
        // Two copies of the loop: the one without streamed ends pays nothing for them.
        if streams_ends {
            self.run_sweep(
                now,
                job,
                &mut sweep,
                self.ends_on(now, &streamed).peekable(),
            )
        } else {
            self.run_sweep(now, job, &mut sweep, std::iter::empty().peekable())
        }
    }

    /// [`Self::search_earliest`]'s sweep from now over the nodes' events and the running
    /// jobs' ends `ends` streams, until the nodes host the job's tasks.
    fn run_sweep<I: Iterator<Item = (Time, usize)>>(
        &self,
        now: Time,
        job: &QueuedJob,
        sweep: &mut Sweep<'_>,
        mut ends: std::iter::Peekable<I>,
    ) -> Option<(Time, Allocation)> {
        let Sweep {
            followed,
            streamed,
            events,
            h,
            plain,
            streams_ends,
            per_task,
            tasks,
            w,
        } = sweep;
        let (streams_ends, per_task, tasks, w) = (*streams_ends, *per_task, *tasks, *w);
        let mut total: u64 = h.iter().sum();
        let mut next = 0;
        let mut t = now;
        let mut most = 0;
        loop {
            let plain_tasks = plain.as_ref().map_or(0, PlainNodes::tasks);
            if plain_tasks + total >= tasks {
                let placed = if streams_ends && t > now && self.places_from_the_sweep(job) {
                    self.place_at_swept_start(t, now, job, (followed, h, streamed))
                } else {
                    self.place_at_found_start(t, now, job)
                };
                if let Some(nodes) = placed {
                    self.search_most.set(most);
                    return Some((t, nodes));
                }
            }
            most = most.max(plain_tasks + total);
            let job_end = plain.as_ref().and_then(PlainNodes::next_change);
            let node_event = match (events.get(next), ends.peek()) {
                (Some(&(a, _)), Some(&(b, _))) => Some(a.min(b)),
                (Some(&(a, _)), None) | (None, Some(&(a, _))) => Some(a),
                (None, None) => None,
            };
            t = match (job_end, node_event) {
                (Some(a), Some(b)) => a.min(b),
                (Some(a), None) | (None, Some(a)) => a,
                (None, None) => return None,
            };
            if let Some(p) = plain {
                p.advance_to(t);
            }
            while let Some(&(at, i)) = events.get(next) {
                if at != t {
                    break;
                }
                total -= h[i];
                h[i] = self.hostable(followed[i] as usize, t, t + w, job, per_task);
                total += h[i];
                next += 1;
            }
            while let Some((_, i)) = ends.next_if(|&(at, _)| at == t) {
                total -= h[i];
                h[i] = self.hostable(followed[i] as usize, t, t + w, job, per_task);
                total += h[i];
            }
        }
    }

    /// The running jobs' planned ends after `now` on the nodes `index_of` follows (a
    /// node's index in the sweep, `u32::MAX` for one not followed), in time order: (end,
    /// index), one per job and node.
    fn ends_on<'a>(
        &'a self,
        now: Time,
        index_of: &'a [u32],
    ) -> impl Iterator<Item = (Time, usize)> + 'a {
        let planned = if index_of.is_empty() {
            self.by_end
                .range((FOREVER, JobIdx(0))..(FOREVER, JobIdx(0)))
        } else {
            self.by_end
                .range((now + 1, JobIdx(0))..(FOREVER, JobIdx(0)))
        };
        planned.flat_map(move |&(end, j)| {
            self.running[&j].nodes.iter().filter_map(move |&(n, _)| {
                let i = index_of[n as usize];
                (i != u32::MAX).then_some((end, i as usize))
            })
        })
    }
}

/// Whether the sweep takes node `n`'s events from the running jobs' planned ends (`streamed`:
/// each node's index among those followed, `u32::MAX` for the others; empty for none).
fn is_streamed(streamed: &[u32], n: u32) -> bool {
    streamed.get(n as usize).is_some_and(|&i| i != u32::MAX)
}

/// What [`Machine::search_earliest`] hands its sweep: the nodes followed, each one's index
/// among them where only running jobs claim it (`u32::MAX` otherwise; empty where none is
/// streamed), the other nodes' sorted events, what each followed node hosts from now, the
/// nodes taken in bulk, and the job's per-task need, tasks and limit.
struct Sweep<'s> {
    followed: &'s [u32],
    streamed: &'s [u32],
    events: &'s [(Time, usize)],
    h: Vec<u64>,
    plain: Option<PlainNodes>,
    streams_ends: bool,
    per_task: Res,
    tasks: u64,
    w: Time,
}

/// Sorts a sweep's events (instant, index of the node followed) as tuples are ordered: as
/// one word each (the instant after `now` above the index) where they fit, which sorts
/// several times faster.
fn sort_events(events: &mut [(Time, usize)], now: Time) {
    const INDEX_BITS: u32 = 24;
    let fits =
        |&(at, i): &(Time, usize)| (at - now) < (1 << (64 - INDEX_BITS)) && i < (1 << INDEX_BITS);
    if !events.iter().all(fits) {
        events.sort_unstable();
        return;
    }
    let mut words: Vec<u64> = events
        .iter()
        .map(|&(at, i)| ((at - now) as u64) << INDEX_BITS | i as u64)
        .collect();
    words.sort_unstable();
    for (e, w) in events.iter_mut().zip(words) {
        *e = (
            now + (w >> INDEX_BITS) as Time,
            (w & ((1 << INDEX_BITS) - 1)) as usize,
        );
    }
}

/// The count of the availability range that holds an instant where a node's free tasks become
/// `free`, the range before it holding `count` (0: none), for a job of `tasks` tasks, as
/// 3.3.1's `MJobGetSNRange` (MJob.c) cuts its ranges: nothing free ends a range; at an
/// instant where it sees resources removed (`removes`, [`Machine::range_walk_bounds`]), a
/// change cuts the range unless the tasks grew and the range already held all the job's
/// tasks (it goes on at its count); where resources are only added, a growth always cuts, a
/// fall only below the job's tasks. The start ranges and the available time
/// (`machine/available.rs`) cut by it alike.
pub(super) fn next_range_count(count: u64, free: u64, removes: bool, tasks: u64) -> u64 {
    let cuts = if count == 0 || free == 0 {
        true
    } else if removes {
        free != count && (free < tasks || free < count || count < tasks)
    } else {
        free > count || (free < count && (free < tasks || count < tasks))
    };
    if cuts {
        free
    } else {
        count
    }
}

#[cfg(test)]
mod tests {
    use super::sort_events;
    use crate::Time;

    proptest::proptest! {
        /// Sorted as words or, past what a word holds, as tuples: the order of the tuples.
        #[test]
        fn events_sort_as_their_tuples(
            now in 0i64..1_000_000,
            offsets in proptest::collection::vec((1i64..100, 0usize..8), 0..60),
            far in proptest::bool::ANY,
        ) {
            let mut events: Vec<(Time, usize)> =
                offsets.iter().map(|&(d, i)| (now + d, i)).collect();
            if far {
                events.push((now + (1 << 45), 3));
            }
            let mut expected = events.clone();
            expected.sort_unstable();
            sort_events(&mut events, now);
            proptest::prop_assert_eq!(events, expected);
        }
    }
}
