use super::*;
use crate::node::NodeSpec;

fn job(i: u32, procs: u64, wcl: Time) -> QueuedJob {
    QueuedJob::new(JobIdx(i), u64::from(i), 0, procs, wcl)
}

/// A claim of `procs` processors on node 0 over `[start, end)`, laid behind the machine's
/// back, for `verify` to find.
fn claim_behind_the_back(m: &mut Machine, (start, end): (Time, Time), procs: u64, owner: Owner) {
    m.claims[0].push(Claim {
        start,
        end,
        takes: Res {
            procs,
            ..Res::default()
        },
        owner,
        may_use: 0,
    });
}

/// A machine of `spec` under Maui's node order and promises, from 0.
pub(super) fn maui_machine(spec: Arc<MachineSpec>) -> Machine {
    let mut m = Machine::new(spec, 0, false);
    m.set_node_order(true, true);
    m.advance(0);
    m
}

fn machine(nodes: Vec<NodeSpec>, policy: AllocationPolicy) -> Machine {
    let mut spec = MachineSpec::homogeneous(0, 1);
    spec.nodes = nodes;
    spec.allocation = policy;
    Machine::new(Arc::new(spec), 0, false)
}

fn speeds(s: &[f64]) -> Vec<NodeSpec> {
    s.iter()
        .map(|&speed| NodeSpec::with_procs(1).with_speed(speed))
        .collect()
}

#[test]
fn contiguous_takes_the_first_run_of_consecutive_free_nodes() {
    let mut m = machine(
        vec![NodeSpec::with_procs(1); 6],
        AllocationPolicy::Contiguous,
    );
    assert!(m.start(0, &job(0, 1, 100)));
    assert!(m.start(0, &job(1, 1, 100)));
    assert_eq!(m.placement(JobIdx(1)), &[(1, 1)]);
    // Free: 2 3 4 5. Hole at 3 makes 2..=5 non-contiguous for 3 nodes after this:
    assert!(m.start(0, &job(2, 1, 100)));
    m.ended(JobIdx(1), 10, 10);
    // Free now: 1, 3, 4, 5: three contiguous nodes are 3-5.
    assert!(m.start(10, &job(3, 3, 100)));
    assert_eq!(m.node_ranges(JobIdx(3)), vec![(3, 5)]);
    // Only node 1 is left: two nodes are not contiguous anywhere, so it does not fit.
    assert!(!m.fits(10, &job(4, 2, 100)));
}

#[test]
fn max_balance_prefers_equal_speeds_then_the_smallest_span() {
    let mut m = machine(
        speeds(&[1.0, 2.0, 3.0, 2.0, 1.5]),
        AllocationPolicy::MaxBalance,
    );
    assert!(m.start(0, &job(0, 2, 100)));
    assert_eq!(
        m.node_ranges(JobIdx(0)),
        vec![(1, 1), (3, 3)],
        "the two 2.0 nodes"
    );
    // Left: 1.0, 3.0, 1.5: spans 0.5 (1.0,1.5) beat 1.5 (1.5,3.0).
    assert!(m.start(0, &job(1, 2, 100)));
    assert_eq!(m.node_ranges(JobIdx(1)), vec![(0, 0), (4, 4)]);
}

#[test]
fn fastest_and_priority_order_nodes() {
    let mut m = machine(speeds(&[1.0, 3.0, 2.0]), AllocationPolicy::Fastest);
    assert!(m.start(0, &job(0, 2, 100)));
    assert_eq!(m.placement(JobIdx(0)), &[(1, 1), (2, 1)]);
    let mut nodes = vec![NodeSpec::with_procs(1); 3];
    nodes[0].tuning_mut().priority = 5.0;
    nodes[2].tuning_mut().priority = 9.0;
    let mut m = machine(nodes, AllocationPolicy::Priority);
    assert!(m.start(0, &job(0, 2, 100)));
    assert_eq!(m.placement(JobIdx(0)), &[(2, 1), (0, 1)]);
}

#[derive(Debug)]
struct LastNodesFirst;

impl crate::node::NodeAllocator for LastNodesFirst {
    fn select(&self, _: &MachineSpec, tasks: u64, cands: &[NodeCandidate]) -> Option<Allocation> {
        take_in_order(cands.iter().rev().copied(), tasks)
    }
}

#[derive(Debug)]
struct Cheater;

impl crate::node::NodeAllocator for Cheater {
    fn select(&self, _: &MachineSpec, tasks: u64, _: &[NodeCandidate]) -> Option<Allocation> {
        Some(vec![(0, tasks + 1)])
    }
}

#[test]
fn local_policy_is_a_site_plug_in_and_bad_choices_are_refused() {
    let mut spec = MachineSpec::homogeneous(4, 1);
    spec.allocation = AllocationPolicy::Local;
    spec.local = Some(Arc::new(LastNodesFirst));
    let mut m = Machine::new(Arc::new(spec.clone()), 0, false);
    assert!(m.start(0, &job(0, 2, 100)));
    assert_eq!(m.placement(JobIdx(0)), &[(3, 1), (2, 1)]);
    spec.local = Some(Arc::new(Cheater));
    let m = Machine::new(Arc::new(spec), 0, false);
    assert!(!m.fits(0, &job(0, 1, 100)));
}

#[test]
fn reservations_on_nodes_shape_the_windows() {
    // Two 2-processor nodes; a job holds one processor of n0 until 100.
    let mut m = machine(
        vec![NodeSpec::with_procs(2); 2],
        AllocationPolicy::FirstAvailable,
    );
    assert!(m.start(0, &job(0, 1, 100)));
    // A 4-processor job is reserved at 100 on both nodes.
    let (at, id) = m.reserve(0, &job(1, 4, 50)).unwrap();
    assert_eq!(at, 100);
    assert_eq!(m.held_nodes(id), &[(0, 2), (1, 2)]);
    // Windows: 3 processors for 100 s; nothing is free after the reservation.
    assert_eq!(
        m.windows(0),
        vec![Window {
            procs: 3,
            duration: 100
        }]
    );
    assert!(m.fits(0, &job(2, 3, 100)));
    assert!(!m.fits(0, &job(2, 1, 101)));
    m.release_all();
    assert!(m.fits(0, &job(2, 1, 1000)));
    assert_eq!(m.verify(0), Ok(()));
}

#[test]
fn memory_binds_per_node_over_time() {
    let mut nodes = vec![NodeSpec::with_procs(4); 2];
    nodes[0].mem = 1000;
    nodes[1].mem = 4000;
    let mut m = machine(nodes, AllocationPolicy::MinResource);
    let mut j = job(0, 2, 100);
    j.request.mem = 600;
    assert!(m.start(0, &j));
    // 600 MB per task: n0 holds one, so the second goes to n1.
    assert_eq!(m.placement(JobIdx(0)), &[(0, 1), (1, 1)]);
    let mut k = job(1, 5, 100);
    k.request.mem = 600;
    // Empty, the nodes hold 1 + 4 tasks. Now n0 has 400 MB left (no task) and n1 3
    // processors: 3 tasks, so k waits for job 0.
    assert!(!m.fits(0, &k));
    assert_eq!(m.reserve(0, &k).map(|r| r.0), Some(100));
    assert_eq!(m.verify(0), Ok(()));
}

/// A node named twice in the list a job is started on (a preemptor's: idle in part and
/// a victim's) gives its room once.
#[test]
fn a_node_named_twice_is_counted_once() {
    let mut m = machine(
        vec![NodeSpec::with_procs(4); 2],
        AllocationPolicy::LastAvailable,
    );
    assert!(m.start_on(0, &job(0, 6, 100), &[1, 1, 0]));
    assert_eq!(m.placement(JobIdx(0)), &[(1, 4), (0, 2)]);
    assert_eq!(m.verify(0), Ok(()));
    assert!(!m.start_on(0, &job(1, 3, 100), &[0, 0]));
}

#[test]
fn verify_names_the_over_allocated_node() {
    let mut m = machine(
        vec![NodeSpec::with_procs(2); 2],
        AllocationPolicy::FirstAvailable,
    );
    assert!(m.start(0, &job(0, 2, 100)));
    assert_eq!(m.verify(0), Ok(()));
    // A claim taken behind the machine's back: node 0 now holds 3 of its 2 processors.
    let mut extra = m.claims[0][0];
    extra.takes.procs = 1;
    m.claims[0].push(extra);
    let v = m.verify(0).unwrap_err();
    assert_eq!((v.rule, v.node), (Rule::NodeOverAllocated, Some(0)));
    // Pooled: a profile that goes below zero is caught too.
    let mut pooled = Machine::new(Arc::new(MachineSpec::homogeneous(4, 1)), 0, true);
    assert!(pooled.start(0, &job(0, 4, 10)));
    pooled.profile.occupy(5, 20, 1);
    let v = pooled.verify(0).unwrap_err();
    assert_eq!(v.rule, Rule::NodeOverAllocated);
    assert!(
        v.detail.contains("-1 processors free from 5"),
        "{}",
        v.detail
    );
}

#[test]
fn pooled_uniform_machines_track_slots_and_hand_over_at_a_planned_end() {
    let spec = Arc::new(MachineSpec::homogeneous(4, 2));
    let mut m = Machine::new(spec, 0, true);
    assert!(m.start(0, &job(0, 3, 10)));
    assert_eq!(m.node_ranges(JobIdx(0)), vec![(0, 1)]);
    assert!(m.start(0, &job(1, 5, 20)));
    assert_eq!(m.node_ranges(JobIdx(1)), vec![(1, 3)]);
    // At 10 job 0's planned end has come but its end is not told yet (per-event
    // order): a job can take its processors.
    m.advance(10);
    assert!(m.fits(10, &job(2, 3, 10)));
    assert!(m.start(10, &job(2, 3, 10)));
    m.ended(JobIdx(0), 10, 10);
    assert_eq!(m.verify(10), Ok(()));
    m.ended(JobIdx(1), 20, 20);
    m.ended(JobIdx(2), 20, 20);
    assert_eq!(m.slots.as_ref().unwrap().free_count(), 8);
    let busy: u64 = m.node_busy().iter().sum();
    assert_eq!(busy, 3 * 10 + 5 * 20 + 3 * 10);
}

/// A job of `procs` processors (`per_task` each) of user `user`.
fn users_job(i: u32, user: u32, procs: u64, per_task: u32) -> QueuedJob {
    let mut j = job(i, procs, 100);
    j.creds
        .set(crate::cred::CredKind::User, crate::CredId(user));
    j.request.procs_per_task = per_task;
    j
}

/// `nodes` nodes of 4 processors, each with `limits`, FIRSTAVAILABLE.
fn limited(nodes: usize, limits: crate::node::StartLimits) -> Machine {
    let mut spec = MachineSpec::homogeneous(nodes as u64, 4);
    spec.allocation = AllocationPolicy::FirstAvailable;
    spec.start_limits = vec![limits; nodes];
    Machine::new(Arc::new(spec), 0, false)
}

fn start_limits(jobs_per_user: u32, procs_per_user: u32, procs: u32) -> crate::node::StartLimits {
    crate::node::StartLimits {
        max_jobs_per_user: jobs_per_user,
        max_procs_per_user: procs_per_user,
        max_procs: procs,
        ..Default::default()
    }
}

#[test]
fn max_job_per_user_counts_the_job_as_3_3_1_does() {
    // MAXJOBPERUSER=2: a one-processor job starts on a node only while its user runs
    // no job there (its processors per task count as its first job).
    let mut m = limited(2, start_limits(2, 0, 0));
    assert!(m.start(0, &users_job(0, 0, 1, 1)));
    assert_eq!(m.placement(JobIdx(0)), &[(0, 1)]);
    assert!(m.start(0, &users_job(1, 0, 1, 1)));
    assert_eq!(m.placement(JobIdx(1)), &[(1, 1)]);
    assert!(!m.fits(0, &users_job(2, 0, 1, 1)));
    assert!(!m.start(0, &users_job(2, 0, 1, 1)));
    assert!(m.start(0, &users_job(3, 1, 1, 1)));
    assert_eq!(m.placement(JobIdx(3)), &[(0, 1)]);
    // Two processors per task reach the limit alone: no node at all.
    let m = limited(2, start_limits(2, 0, 0));
    assert!(!m.fits(0, &users_job(0, 0, 2, 2)));
    // Once its user's job there ends, the node takes the user's job again.
    let mut m = limited(1, start_limits(2, 0, 0));
    assert!(m.start(0, &users_job(0, 0, 1, 1)));
    assert!(!m.fits(0, &users_job(1, 0, 1, 1)));
    m.ended(JobIdx(0), 10, 10);
    m.advance(10);
    assert!(m.start(10, &users_job(1, 0, 1, 1)));
}

#[test]
fn max_proc_per_user_and_max_proc_cap_the_tasks_of_a_start() {
    // MAXPROCPERUSER=3 with two of the user's processors busy on node 0: one task
    // there, three on node 1.
    let mut m = limited(2, start_limits(0, 3, 0));
    assert!(m.start(0, &users_job(0, 0, 2, 1)));
    assert_eq!(m.placement(JobIdx(0)), &[(0, 2)]);
    assert!(m.start(0, &users_job(1, 0, 4, 1)));
    assert_eq!(m.placement(JobIdx(1)), &[(0, 1), (1, 3)]);
    // Another user is not held to it: node 0's last processor.
    assert!(m.start(0, &users_job(2, 1, 1, 1)));
    assert_eq!(m.placement(JobIdx(2)), &[(0, 1)]);
    // Tasks of two processors: 1 + (3 − 1 − 0) / 2 = 2 of them, four processors
    // (3.3.1's count of the first processor once).
    let mut m = limited(1, start_limits(0, 3, 0));
    assert!(m.start(0, &users_job(0, 0, 4, 2)));
    assert_eq!(m.placement(JobIdx(0)), &[(0, 2)]);
    // MAXPROC=3 counts every user's processors.
    let mut m = limited(2, start_limits(0, 0, 3));
    assert!(m.start(0, &users_job(0, 1, 2, 1)));
    assert!(m.start(0, &users_job(1, 0, 3, 1)));
    assert_eq!(m.placement(JobIdx(1)), &[(0, 1), (1, 2)]);
    assert!(!m.fits(0, &users_job(2, 2, 3, 1)));
}

#[test]
fn a_job_added_to_an_empty_slot_ends_3_3_1_s_simulated_job_list() {
    let mut lists = JobLists::new(1);
    for j in 0..3 {
        lists.add(0, JobIdx(j));
    }
    lists.remove(0, JobIdx(0));
    lists.add(0, JobIdx(3));
    assert_eq!(lists.listed(0).collect::<Vec<_>>(), [JobIdx(3)]);
    lists.add(0, JobIdx(1));
    lists.add(0, JobIdx(3));
    assert_eq!(lists.listed(0).collect::<Vec<_>>(), [JobIdx(3), JobIdx(1)]);
}

#[test]
fn under_the_simulated_job_lists_a_dropped_job_does_not_count_until_relisted() {
    // MAXJOBPERUSER=2 on one node: user 0's job 1 keeps user 0 off it, until job 0's
    // end leaves an empty slot that job 2 takes, which drops job 1 from the list.
    for follows_lists in [false, true] {
        let mut m = limited(1, start_limits(2, 0, 0));
        if follows_lists {
            m.follow_job_lists();
        }
        m.advance(0);
        assert!(m.start(0, &users_job(0, 1, 1, 1)));
        assert!(m.start(0, &users_job(1, 0, 1, 1)));
        m.ended(JobIdx(0), 10, 10);
        m.advance(10);
        assert!(m.start(10, &users_job(2, 2, 1, 1)));
        assert_eq!(m.fits(10, &users_job(3, 0, 1, 1)), follows_lists);
        // The next iteration lists every running job again.
        m.advance(20);
        assert!(!m.fits(20, &users_job(3, 0, 1, 1)));
    }
}

fn load_limit(busy_at_load: u32) -> crate::node::StartLimits {
    crate::node::StartLimits {
        busy_at_load,
        ..Default::default()
    }
}

#[test]
fn a_node_at_its_load_limit_is_busy_from_the_next_node_update_until_a_job_of_it_ends() {
    // One node of 4 processors, Busy once its jobs hold 2.
    let mut m = limited(1, load_limit(2));
    m.advance(0);
    m.update_node_states();
    // Within the iteration the node takes jobs beyond its limit, as 3.3.1's does.
    assert!(m.start(0, &job(0, 2, 100)));
    assert!(m.start(0, &job(1, 1, 50)));
    m.iteration_over();
    m.advance(30);
    m.update_node_states();
    assert!(!m.fits(30, &job(2, 1, 10)));
    assert!(!m.start(30, &job(2, 1, 10)));
    // Its backfill windows leave it out.
    m.set_backfill_window(Some((30, 0)));
    assert_eq!(m.window_after(30, 0), None);
    m.set_backfill_window(None);
    m.iteration_over();
    // Job 1 ends between iterations: the next update leaves the node open, though its
    // jobs still hold 2 processors (3.3.1 updates nodes before it ends the jobs).
    m.ended(JobIdx(1), 50, 60);
    m.advance(60);
    m.update_node_states();
    assert!(m.start(60, &job(2, 1, 10)));
    m.iteration_over();
    // The update after marks it Busy again.
    m.advance(90);
    m.update_node_states();
    assert!(!m.fits(90, &job(3, 1, 10)));
    m.iteration_over();
    // A job ending within an iteration (preempted) opens the node for that iteration
    // only: the next update sees the load again.
    m.advance(120);
    m.update_node_states();
    m.ended(JobIdx(2), 120, 120);
    assert!(m.fits(120, &job(3, 1, 10)));
    m.iteration_over();
    m.advance(150);
    m.update_node_states();
    assert!(!m.fits(150, &job(3, 1, 10)));
    // Below its limit it is open: job 0 alone holds 2, job 2 is gone; end job 0.
    m.iteration_over();
    m.ended(JobIdx(0), 160, 180);
    m.advance(180);
    m.update_node_states();
    m.iteration_over();
    m.advance(210);
    m.update_node_states();
    assert!(m.fits(210, &job(3, 1, 10)));
}

/// A standing window for ever on two processors of node 0, that no job may use.
fn two_procs_of_node_0(name: &str) -> crate::standing::StandingReservation {
    crate::standing::StandingReservation::once(name, vec![0], vec![2], 0, crate::profile::FOREVER)
}

/// `verify`: a standing window that holds two of a node's four processors leaves the other
/// two to jobs that may not use it; a third processor taken beside it is caught.
#[test]
fn verify_lets_jobs_beside_a_partial_standing_window_and_no_more() {
    let mut spec = MachineSpec::homogeneous(1, 4);
    spec.standing = vec![two_procs_of_node_0("half")];
    let mut m = Machine::new(Arc::new(spec), 0, false);
    m.advance(0);
    assert!(
        m.start(0, &job(0, 2, 100)),
        "two processors fit beside the window"
    );
    assert_eq!(m.verify(0), Ok(()));
    assert!(
        !m.fits(0, &job(1, 1, 100)),
        "the window holds the other two"
    );
    // A processor taken behind the machine's back, inside the window.
    let mut extra = *m.claims[0]
        .iter()
        .find(|c| matches!(c.owner, Owner::Job(_)))
        .unwrap();
    extra.owner = Owner::Job(JobIdx(1));
    extra.takes.procs = 1;
    m.claims[0].push(extra);
    let v = m.verify(0).unwrap_err();
    assert_eq!((v.rule, v.node), (Rule::NodeOverAllocated, Some(0)));
    assert!(
        v.detail.contains("inside standing reservation half"),
        "{}",
        v.detail
    );
}

/// `verify` counts every window on a node (two of two processors each leave a four-processor
/// node nothing), and under exclusive access a window keeps any other job off its node.
#[test]
fn verify_counts_every_window_of_a_node_and_exclusive_access() {
    use crate::node::NodeAccess;
    use crate::standing::StandingReservation;
    let window = two_procs_of_node_0;
    let intruded = |windows: Vec<StandingReservation>, access: NodeAccess| {
        let mut spec = MachineSpec::homogeneous(1, 4);
        spec.standing = windows;
        spec.access = access;
        let mut m = Machine::new(Arc::new(spec), 0, false);
        m.advance(0);
        assert_eq!(m.verify(0), Ok(()));
        // One processor taken behind the machine's back.
        claim_behind_the_back(&mut m, (0, 100), 1, Owner::Job(JobIdx(0)));
        m.verify(0)
    };
    assert_eq!(intruded(vec![window("a")], NodeAccess::Shared), Ok(()));
    let both = intruded(vec![window("a"), window("b")], NodeAccess::Shared).unwrap_err();
    assert!(
        both.detail.contains("inside standing reservation"),
        "{}",
        both.detail
    );
    let single = intruded(vec![window("a")], NodeAccess::SingleJob).unwrap_err();
    assert!(
        single.detail.contains("inside standing reservation a"),
        "{}",
        single.detail
    );
}

/// One node of 8 processors, in Maui's order or not, with `running` (job, processors,
/// limit) started at 0.
fn node_of_8(maui: bool, running: &[(u32, u64, Time)]) -> Machine {
    let mut m = machine(
        vec![NodeSpec::with_procs(8)],
        AllocationPolicy::LastAvailable,
    );
    m.set_node_order(maui, true);
    m.advance(0);
    for &(i, procs, wcl) in running {
        assert!(m.start(0, &job(i, procs, wcl)));
    }
    m
}

/// 3.3.1's start ranges in a reservation's search, on one node of 8 processors: Y holds 1
/// processor to 1000, X1 1 to 10, X2 2 to 40, so 4 are free over [0, 10), 5 over [10, 40)
/// and 7 from 40; R, reserved first, then takes `r` from 40 to 90. A start in [0, 10) is
/// offered the fewest tasks of the ranges that begin by 10 plus the limit: Q (3 tasks) for
/// 30 s reaches the range R begins at 40, where 1 is free, and is reserved at 90 when R
/// ends; for 29 s it does not, and starts at 0. Where R takes all 7 nothing is free from 40:
/// the walk stops there, and Q starts at 0 for 30 s too. Without Maui's order the job's own
/// run decides: 0.
#[test]
fn a_reservation_search_offers_the_fewest_tasks_of_a_start_range() {
    let reserved_at = |maui: bool, r: u64, limit: Time| {
        let mut m = node_of_8(maui, &[(0, 1, 1000), (1, 1, 10), (2, 2, 40)]);
        let (r_at, _) = m.reserve(0, &job(3, r, 50)).unwrap();
        assert_eq!(r_at, 40);
        m.reserve(0, &job(4, 3, limit)).unwrap().0
    };
    assert_eq!(reserved_at(true, 6, 30), 90);
    assert_eq!(reserved_at(true, 6, 29), 0);
    assert_eq!(reserved_at(true, 7, 30), 0);
    assert_eq!(reserved_at(false, 6, 30), 0);
    // The walk ends at a gap even before its reach: with X2 to 30, A (7 processors) reserved
    // over [30, 35) and B (6) from 35 leave 0 then 1 free; Q for 30 s from 0 reaches 40, but
    // its ranges stop at 30: 4 tasks, a start at 0.
    let mut m = node_of_8(true, &[(0, 1, 1000), (1, 1, 10), (2, 2, 30)]);
    assert_eq!(m.reserve(0, &job(3, 7, 5)).unwrap().0, 30);
    assert_eq!(m.reserve(0, &job(4, 6, 50)).unwrap().0, 35);
    assert_eq!(m.reserve(0, &job(5, 3, 30)).unwrap().0, 0);
}

/// 3.3.1 cuts a node's ranges where its free tasks change, except where a claim begins and
/// the tasks grow while the range already held all of the job's: then the range goes on at
/// its count. One node of 8 processors: X holds 5 to 10, R1 4 over [10, 50), R2 7 from 50
/// to 150; 3, 4, then 1 free. Q (2 tasks for 30 s) from 0: as R1 begins where X ends, the
/// range [0, 10) of 3 tasks goes on to 50, whose reach (80) takes in the 1 task from 50:
/// no start before R2 ends, at 150 (cut at 10, the reach would be 40 and Q start at 0).
#[test]
fn a_range_goes_on_where_a_claim_begins_as_the_free_tasks_grow() {
    let mut m = node_of_8(true, &[(0, 5, 10)]);
    assert_eq!(m.reserve(0, &job(1, 4, 40)).unwrap().0, 10);
    assert_eq!(m.reserve(0, &job(2, 7, 100)).unwrap().0, 50);
    assert_eq!(m.reserve(0, &job(3, 2, 30)).unwrap().0, 150);
}

/// An instant where a node rule keeps the job off ends 3.3.1's range walk, as nothing free
/// does. One node of 8 processors, NODEACCESSPOLICY SINGLEUSER: X (user 0) holds 2 to 10, R1
/// (user 1) 1 over [10, 20), R2 (user 0) 7 from 20. Q (user 0, 2 tasks for 5 s) from 0:
/// R1 keeps it off the node from 10, which ends the walk there: 6 tasks, a start at 0 (were
/// R1's instant counted by its processor alone, the range would go on to 20, whose reach
/// takes in the 1 task R2 leaves, and Q would wait).
#[test]
fn a_node_rule_ends_the_range_walk() {
    let mut spec = MachineSpec::homogeneous(1, 8);
    spec.access = crate::node::NodeAccess::SingleUser;
    spec.allocation = AllocationPolicy::LastAvailable;
    let mut m = maui_machine(Arc::new(spec));
    let with_limit = |mut j: QueuedJob, wcl: Time| {
        j.wcl = wcl;
        j
    };
    assert!(m.start(0, &with_limit(users_job(0, 0, 2, 1), 10)));
    let r1 = with_limit(users_job(1, 1, 1, 1), 10);
    assert_eq!(m.reserve(0, &r1).unwrap().0, 10);
    let r2 = with_limit(users_job(2, 0, 7, 1), 100);
    assert_eq!(m.reserve(0, &r2).unwrap().0, 20);
    let q = with_limit(users_job(3, 0, 2, 1), 5);
    assert_eq!(m.reserve(0, &q).unwrap().0, 0);
}

/// Where a standing window the job may use ends, 3.3.1 sees resources removed (MJob.c counts
/// the window's end so), and a range that held all the job's tasks goes on at its count as
/// the tasks grow. One node of 8 processors under a window over [0, 10) that X, Y and Q may
/// use: X holds 4 to 10, Y 2 to 50, R 7 from 50 to 150; 2, 6, then 1 free. Q (2 tasks for
/// 30 s) from 0: at 10 X ends as the window does, the range [0, 10) goes on to 50, whose
/// reach takes in the 1 task from 50: Q waits for R's end, at 150 (without the window the
/// range is cut at 10, its reach is 40, and Q starts at 0).
#[test]
fn a_range_goes_on_where_a_window_the_job_may_use_ends() {
    use crate::standing::StandingReservation;
    let reserved_at = |window: bool| {
        let mut spec = MachineSpec::homogeneous(1, 8);
        spec.allocation = AllocationPolicy::LastAvailable;
        if window {
            spec.standing = vec![StandingReservation::once("w", vec![0], vec![8], 0, 10)];
        }
        let mut m = maui_machine(Arc::new(spec));
        let inside = |i: u32, procs: u64, wcl: Time| {
            let mut j = job(i, procs, wcl);
            j.standing_access = 1;
            j
        };
        assert!(m.start(0, &inside(0, 4, 10)));
        assert!(m.start(0, &inside(1, 2, 50)));
        assert_eq!(m.reserve(0, &job(2, 7, 100)).unwrap().0, 50);
        m.reserve(0, &inside(3, 2, 30)).unwrap().0
    };
    assert_eq!(reserved_at(true), 150);
    assert_eq!(reserved_at(false), 0);
}

/// 3.3.1 splits a standing window where the jobs inside it change, so where a job inside one
/// ends it sees resources removed, and a range that held all the job's tasks goes on at its
/// count. One node of 8 processors, window w holding 2 over [0, 1000) for J: J (inside w)
/// holds 3 to 10, K 2 to 50, R 5 from 50 to 150; 3, 4, 6 then 1 free to a job outside w.
/// Q (outside, 2 tasks for 30 s) from 0: at 10 J ends inside w, the range [0, 10) goes on to
/// 50, whose reach takes in the 1 task from 50: Q waits for R's end, at 150 (cut at 10, the
/// reach would be 40 and Q start at 0).
#[test]
fn a_range_goes_on_where_a_job_inside_a_window_ends() {
    use crate::standing::StandingReservation;
    let mut spec = MachineSpec::homogeneous(1, 8);
    spec.allocation = AllocationPolicy::LastAvailable;
    spec.standing = vec![StandingReservation::once("w", vec![0], vec![2], 0, 1000)];
    let mut m = maui_machine(Arc::new(spec));
    let mut inside = job(0, 3, 10);
    inside.standing_access = 1;
    assert!(m.start(0, &inside));
    assert!(m.start(0, &job(1, 2, 50)));
    assert_eq!(m.reserve(0, &job(2, 5, 100)).unwrap().0, 50);
    assert_eq!(m.reserve(0, &job(3, 2, 30)).unwrap().0, 150);
}

/// 3.3.1 places a reservation at the start its search found by the tasks each node has free
/// at that start, where a task stays free throughout: it may hold more of a node than a
/// window beginning later in its run leaves. Two nodes of 4 processors; window w holds 2 of
/// node 0's from 20 on, for no job; X holds node 0 to 10, Y 3 of node 1's to 1000. Q (3
/// tasks for 30 s) from 0: at 10 node 0 offers the 2 that w leaves and node 1 one, so Q is
/// reserved at 10. Placed there, node 0 offers the 4 free at 10, and FIRSTAVAILABLE takes
/// all 3 there, 1 beyond what w leaves from 20 (without Maui's order: 2 there, 1 on node
/// 1). `verify` lets that be; the processor count leaves the third out (it never counts
/// fewer free than the nodes have); a reservation laid after Q on node 0 is held to what
/// Q leaves at its start.
#[test]
fn a_reservation_holds_the_tasks_free_at_its_start() {
    use crate::standing::StandingReservation;
    let placed = |maui: bool| {
        let mut spec = MachineSpec::homogeneous(2, 4);
        spec.allocation = AllocationPolicy::FirstAvailable;
        spec.standing = vec![StandingReservation::once(
            "w",
            vec![0],
            vec![2],
            20,
            crate::profile::FOREVER,
        )];
        let mut m = Machine::new(Arc::new(spec), 0, false);
        m.set_node_order(maui, true);
        m.advance(0);
        assert!(m.start_on(0, &job(0, 4, 10), &[0]));
        assert!(m.start_on(0, &job(1, 3, 1000), &[1]));
        let (at, q) = m.reserve(0, &job(2, 3, 30)).unwrap();
        assert_eq!(at, 10);
        let nodes = m.held_nodes(q).to_vec();
        (m, nodes)
    };
    let (_, without) = placed(false);
    assert_eq!(without, vec![(0, 2), (1, 1)]);
    let (mut m, nodes) = placed(true);
    assert_eq!(nodes, vec![(0, 3)]);
    assert_eq!(m.verify(0), Ok(()));
    // From 20: Y's 3 and, of Q's 3, the 2 that w leaves (windows are not in the count).
    assert_eq!(m.profile().free_at(25), 8 - 3 - 2);
    // A later reservation on node 0 taking 2 at 15, where Q leaves 1.
    claim_behind_the_back(&mut m, (15, 16), 2, Owner::Held(1));
    let v = m.verify(0).unwrap_err();
    assert_eq!((v.rule, v.node), (Rule::NodeOverAllocated, Some(0)));
    assert!(v.detail.contains("reservation 1 takes 2"), "{}", v.detail);
}

/// A DEDICATED job's reservation holds its nodes whole and never lies over another claim,
/// so `--check` holds it against the running jobs at every instant of its run, where other
/// reservations on nodes of several processors are checked at their start only
/// (`a_reservation_holds_the_tasks_free_at_its_start`). One node of 4 processors: X holds
/// one until 10; D (DEDICATED, one processor for 30 s) is reserved at 10 and holds the node
/// whole. A job claim over [15, 30) beside it is caught; before, only D's start was.
#[test]
fn a_dedicated_reservation_is_checked_over_its_whole_run() {
    let mut m = maui_machine(Arc::new(MachineSpec::homogeneous(1, 4)));
    assert!(m.start_on(0, &job(0, 1, 10), &[0]));
    let mut d = job(1, 1, 30);
    d.cred_factors.dedicated = true;
    let (at, held) = m.reserve(0, &d).unwrap();
    assert_eq!((at, m.held_nodes(held).to_vec()), (10, vec![(0, 1)]));
    assert_eq!(m.verify(0), Ok(()));
    claim_behind_the_back(&mut m, (15, 30), 1, Owner::Job(JobIdx(7)));
    let v = m.verify(0).unwrap_err();
    assert_eq!((v.rule, v.node), (Rule::NodeOverAllocated, Some(0)));
}

/// A placement carried to the next iteration onto a node freed early counts that node's
/// tasks as a search anew places them: those free at the start, where 3.3.1 holds them
/// (`holds_free_at_start`), not the fewest over the run. Three nodes of 4 processors; window
/// w holds 2 of node 2's over [250, 450); J0, J1 and J2 hold nodes 0, 1 and 2 until 100, 100
/// and 150. B (6 tasks for 200 s) is reserved at 100 on nodes 1 and 0; J2 then ends at 10,
/// and B, searched anew, goes on node 2 × 4 (free at 100, 2 of them w's from 250) and node
/// 1 × 2; carried, it would take node 2 × 2 (found by a review).
#[test]
fn a_placement_carried_onto_a_node_freed_early_holds_the_tasks_free_at_its_start() {
    use crate::standing::StandingReservation;
    let placed = |exhaustive: bool| {
        let mut spec = MachineSpec::homogeneous(3, 4);
        spec.allocation = AllocationPolicy::LastAvailable;
        spec.standing = vec![StandingReservation::once("w", vec![2], vec![2], 250, 450)];
        let mut m = Machine::new(Arc::new(spec), 0, false);
        m.set_node_order(true, true);
        m.set_exhaustive(exhaustive);
        m.leave_laid(true);
        m.advance(0);
        assert!(m.start_on(0, &job(0, 4, 100), &[0]));
        assert!(m.start_on(0, &job(1, 4, 100), &[1]));
        assert!(m.start_on(0, &job(2, 4, 150), &[2]));
        let b = job(3, 6, 200);
        let (at, _) = m.reserve(0, &b).unwrap();
        assert_eq!(at, 100);
        m.release_all();
        m.ended(JobIdx(2), 10, 10);
        m.advance(10);
        let (at, id) = m.reserve(10, &b).unwrap();
        (at, m.held_nodes(id).to_vec())
    };
    assert_eq!(placed(true), (100, vec![(2, 4), (1, 2)]));
    assert_eq!(placed(false), placed(true));
}
