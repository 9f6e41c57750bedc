//! Property tests of the per-node machine: random heterogeneous nodes (processors,
//! memory, features), jobs asking for tasks, memory and features, every allocation policy
//! and access policy. Every run is checked after each iteration (no node over-committed
//! at any instant, reservations included), every job runs only on nodes that satisfy it,
//! and with exact estimates a reservation is a promise, as with pooled processors.

use mauisim_core::{
    AllocationPolicy, BackfillPolicy, CredId, CredKind, ListKind, MachineSpec, NodeAccess,
    NodeSetPolicy, NodeSetPriority, NodeSets, NodeSpec, PartitionList, Partitions, PolicyConfig,
    Recurrence, Request, Semantics, StandingAccess, StandingReservation, StartLimits, TimeEntry,
    EVERY_DAY,
};
use mauisim_sim::engine::{simulate, EngineOptions, EventOrder, Outcome, RunStats};
use mauisim_sim::params::credentials::Names;
use mauisim_sim::trace::workload::Job;
use proptest::prelude::*;
use std::sync::Arc;

mod common;

const FEATURES: u64 = 0b11;

fn machine() -> impl Strategy<Value = MachineSpec> {
    prop::collection::vec((1u64..=4, 0usize..3, 0u64..=FEATURES, 1u32..=3), 2..6).prop_map(
        |nodes| {
            let mut spec = MachineSpec::homogeneous(0, 1);
            spec.nodes = nodes
                .into_iter()
                .map(|(procs, mem, features, speed)| {
                    NodeSpec {
                        mem: [256, 1024, 4096][mem],
                        features,
                        ..NodeSpec::with_procs(procs)
                    }
                    .with_speed(f64::from(speed))
                })
                .collect();
            spec
        },
    )
}

/// A standing reservation on nodes 0 and 1: once over `[start, start + length)`, or
/// recurring every 300 s for `length` (at most 250 s) from `start`, kept one or two
/// periods ahead; `access` 0: no job may use it, 1: user 0's jobs, 2: jobs of at most 2
/// processors, 3: user 0's jobs and any job that runs inside a window for at most half
/// its length (TIMELIMIT), 4: such jobs of user 0 only (MAXTIME=…* after the list), 5:
/// such jobs of any user (SRMAXTIME, read before the list).
fn standing_reservation(
    start: i64,
    length: i64,
    recurring: bool,
    access: u8,
) -> StandingReservation {
    let when = if recurring {
        Recurrence::Every {
            period: 300,
            origin: start,
            open: 0,
            close: length.min(250),
            days: EVERY_DAY,
            first_weekday: 0,
            depth: 1 + (start % 2) as u32,
        }
    } else {
        Recurrence::Once {
            start,
            end: start + length,
        }
    };
    let mut list = StandingAccess::default();
    let half = (length.min(if recurring { 250 } else { length }) / 2).max(1);
    let time = |required, seen_before| {
        Some(TimeEntry {
            limit: half,
            required,
            seen_before,
        })
    };
    match access {
        1 => list.any[CredKind::User.index()] = vec![CredId(0)],
        2 => list.max_procs = Some(2),
        3..=5 => {
            list.any[CredKind::User.index()] = vec![CredId(0)];
            list.max_time = match access {
                3 => time(false, None),
                4 => time(true, Some((true, false))),
                _ => time(true, Some((false, false))),
            };
        }
        _ => {}
    }
    StandingReservation {
        name: "sr".into(),
        nodes: vec![0, 1],
        procs: Vec::new(),
        when,
        access: list,
    }
}

/// A standing reservation without end on `nodes`, from 0, for no one.
fn window_for_ever(nodes: Vec<u32>) -> StandingReservation {
    StandingReservation {
        nodes,
        when: Recurrence::Once {
            start: 0,
            end: mauisim_core::FOREVER,
        },
        ..standing_reservation(0, 1, false, 0)
    }
}

/// `jobs` on `spec` under the Maui semantics with FIRSTFIT and one reservation, every
/// invariant checked after each iteration.
fn simulate_maui_checked(
    jobs: &[Job],
    spec: MachineSpec,
    order: EventOrder,
) -> (Vec<Outcome>, RunStats) {
    let mut policy = PolicyConfig::with_backfill(BackfillPolicy::FirstFit, 1);
    policy.semantics = Semantics::Maui;
    let engine = EngineOptions {
        order,
        pooled: false,
        check: true,
        ..EngineOptions::default()
    };
    simulate(jobs, Arc::new(spec), policy, engine).unwrap()
}

/// Jobs as (submit, runtime, slack, tasks, procs per task, memory class, features).
fn jobs() -> impl Strategy<Value = Vec<Job>> {
    prop::collection::vec(
        (
            0i64..300,
            1i64..200,
            0i64..100,
            1u64..=4,
            1u32..=2,
            0usize..3,
            0u64..=FEATURES,
        ),
        1..25,
    )
    .prop_map(|raw| {
        let mut jobs: Vec<Job> = raw
            .into_iter()
            .enumerate()
            .map(|(i, (submit, runtime, slack, tasks, ppt, mem, features))| {
                let procs = tasks * u64::from(ppt);
                let mut j = Job::synthetic(i as u64 + 1, submit, runtime, runtime + slack, procs);
                j.request = Request {
                    procs_per_task: ppt,
                    mem: [0, 200, 900][mem],
                    features,
                    ..Request::default()
                };
                j
            })
            .collect();
        jobs.sort_by_key(|j| (j.submit, j.id));
        jobs
    })
}

fn allocation() -> impl Strategy<Value = AllocationPolicy> {
    prop::sample::select(
        AllocationPolicy::ALL
            .into_iter()
            .filter(|p| *p != AllocationPolicy::Local)
            .collect::<Vec<_>>(),
    )
}

fn backfill() -> impl Strategy<Value = BackfillPolicy> {
    prop_oneof![
        Just(BackfillPolicy::FirstFit),
        Just(BackfillPolicy::BestFit),
        Just(BackfillPolicy::Greedy),
        Just(BackfillPolicy::None),
    ]
}

/// A per-node run of `jobs`, checked after every iteration.
/// The jobs asking for no node feature (where the features make node sets).
fn without_features(jobs: Vec<Job>) -> Vec<Job> {
    jobs.into_iter()
        .map(|mut j| {
            j.request.features = 0;
            j
        })
        .collect()
}

/// Maui's semantics with `backfill` and RESERVATIONDEPTH `depth`.
fn maui_with_backfill(backfill: BackfillPolicy, depth: u32) -> PolicyConfig {
    let mut policy = PolicyConfig::with_backfill(backfill, depth);
    policy.semantics = Semantics::Maui;
    policy
}

/// NODESETPOLICY and NODESETPRIORITYTYPE.
fn node_set_rules() -> impl Strategy<Value = (NodeSetPolicy, NodeSetPriority)> {
    let policy = prop_oneof![
        Just(NodeSetPolicy::OneOf),
        Just(NodeSetPolicy::AnyOf),
        Just(NodeSetPolicy::FirstOf),
    ];
    let priority = prop_oneof![
        Just(NodeSetPriority::MinLoss),
        Just(NodeSetPriority::BestFit),
        Just(NodeSetPriority::WorstFit),
        Just(NodeSetPriority::BestResource),
    ];
    (policy, priority)
}

fn checked_run(
    jobs: &[Job],
    spec: &Arc<MachineSpec>,
    policy: &PolicyConfig,
    per_event: bool,
) -> (Vec<Outcome>, RunStats) {
    let order = if per_event {
        EventOrder::PerEvent
    } else {
        EventOrder::PerInstant
    };
    let engine = EngineOptions {
        order,
        pooled: false,
        check: true,
        ..EngineOptions::default()
    };
    simulate(jobs, spec.clone(), policy.clone(), engine).unwrap()
}

/// The run with every shortcut gives the schedule of the run without any
/// (`exhaustive_nodes`): starts, ends, backfill flags, nodes and reservations alike.
fn shortcuts_match_the_long_way(
    jobs: &[Job],
    spec: Arc<MachineSpec>,
    policy: PolicyConfig,
    per_event: bool,
    pooled: bool,
) -> Result<(), TestCaseError> {
    let order = if per_event {
        EventOrder::PerEvent
    } else {
        EventOrder::PerInstant
    };
    let run = |exhaustive_nodes| {
        let engine = EngineOptions {
            order,
            pooled,
            check: true,
            record_reservations: true,
            exhaustive_nodes,
            ..EngineOptions::default()
        };
        simulate(jobs, spec.clone(), policy.clone(), engine).unwrap()
    };
    let (fast, fast_stats) = run(false);
    let (long_way, long_way_stats) = run(true);
    prop_assert_eq!(fast, long_way);
    prop_assert_eq!(fast_stats.job_nodes, long_way_stats.job_nodes);
    prop_assert_eq!(fast_stats.reservations, long_way_stats.reservations);
    Ok(())
}

/// Found by `carried_reservations_match_searching_anew`: seven processors on nodes of 2,
/// 1, 2 and 2; a standing window on nodes 0 and 1 over [30, 35). At 10, job 1 (5
/// processors, 15 s) is reserved at 15: its search counts node 0's free processor there
/// and leaves out node 1, whose window the standing one closes just as the job would end,
/// but the placement takes nodes 3, 2 and 1 (it counts node 1). Backfill then fills node
/// 0, and the next iteration at 10 counts too few tasks at 15: job 1 is reserved at 35,
/// and at 15 again once a job on node 1 ends at 15 and so opens its window there. A
/// placement is not carried around such a start.
#[test]
fn a_start_beside_a_reservation_on_a_node_its_search_did_not_count() {
    let mut spec = MachineSpec::homogeneous(0, 1);
    spec.nodes = [2u64, 1, 2, 2]
        .into_iter()
        .map(NodeSpec::with_procs)
        .collect();
    spec.allocation = AllocationPolicy::LastAvailable;
    spec.standing = vec![StandingReservation {
        nodes: vec![0, 1],
        when: Recurrence::Once { start: 30, end: 35 },
        ..standing_reservation(0, 1, false, 0)
    }];
    // (submit, limit = runtime, processors)
    let raw = [
        (0, 15, 4),
        (0, 15, 5),
        (5, 5, 1),
        (5, 5, 4),
        (5, 15, 1),
        (5, 10, 2),
        (5, 5, 3),
        (5, 10, 2),
        (5, 5, 3),
        (5, 5, 3),
        (10, 10, 1),
        (10, 5, 1),
        (15, 5, 1),
    ];
    let jobs: Vec<Job> = raw
        .iter()
        .enumerate()
        .map(|(i, &(submit, wcl, procs))| Job::synthetic(i as u64 + 1, submit, wcl, wcl, procs))
        .collect();
    let mut policy = PolicyConfig::with_backfill(BackfillPolicy::FirstFit, 1);
    policy.semantics = Semantics::Maui;
    let spec = Arc::new(spec);
    for exhaustive_nodes in [false, true] {
        let engine = EngineOptions {
            order: EventOrder::PerEvent,
            pooled: false,
            check: true,
            record_reservations: true,
            exhaustive_nodes,
            ..EngineOptions::default()
        };
        let (_, stats) = simulate(&jobs, spec.clone(), policy.clone(), engine).unwrap();
        let at_10: Vec<(usize, i64)> = stats
            .reservations
            .iter()
            .filter(|r| r.0 == 10)
            .map(|r| (r.1, r.2))
            .collect();
        assert_eq!(
            at_10,
            [(1, 15), (1, 35), (1, 15)],
            "exhaustive: {exhaustive_nodes}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn per_node_schedules_are_feasible(
        mut spec in machine(),
        jobs in jobs(),
        allocation in allocation(),
        single in any::<bool>(),
        backfill in backfill(),
        depth in 0u32..4,
        per_event in any::<bool>(),
    ) {
        spec.allocation = allocation;
        spec.access = if single { NodeAccess::SingleJob } else { NodeAccess::Shared };
        let spec = Arc::new(spec);
        let policy = PolicyConfig::with_backfill(backfill, depth);
        let order = if per_event { EventOrder::PerEvent } else { EventOrder::PerInstant };
        let engine = EngineOptions { order, pooled: false, check: true, ..EngineOptions::default() };
        let (outcomes, stats) = simulate(&jobs, spec.clone(), policy, engine).unwrap();
        let held: Vec<usize> = stats.held.iter().map(|(i, _)| *i).collect();
        for (i, (j, o)) in jobs.iter().zip(&outcomes).enumerate() {
            if held.contains(&i) {
                // Held only when the empty machine cannot hold it.
                let ppt = u64::from(j.request.procs_per_task);
                let tasks: u64 = spec.nodes.iter().filter(|n| {
                    n.features & j.request.features == j.request.features
                        && u64::from(j.request.mem) <= n.mem
                }).map(|n| {
                    let by_mem = match j.request.mem { 0 => u64::MAX, m => n.mem / u64::from(m) };
                    (n.procs / ppt).min(by_mem)
                }).sum();
                prop_assert!(tasks * ppt < j.procs || allocation == AllocationPolicy::Contiguous,
                    "job {} held though the machine holds {} of its tasks", j.id, tasks);
                continue;
            }
            prop_assert!(o.start >= j.submit);
            prop_assert_eq!(o.end - o.start, j.runtime.min(j.wcl));
            for &(a, b) in &stats.job_nodes.of(i) {
                for n in a..=b {
                    let node = &spec.nodes[n as usize];
                    prop_assert_eq!(node.features & j.request.features, j.request.features,
                        "job {} on node {} without its features", j.id, n);
                    prop_assert!(u64::from(j.request.mem) <= node.mem,
                        "job {} on node {} without the memory", j.id, n);
                }
            }
            prop_assert!(!stats.job_nodes.of(i).is_empty(), "job {} ran nowhere", j.id);
        }
    }

    /// Under Maui's semantics (LASTAVAILABLE: the nodes free longest, then the last node),
    /// the node questions answered from the free-node index and the running jobs' planned
    /// ends give the schedule that visiting every node gives: starts, ends, backfill flags,
    /// reservations and nodes alike. One-processor tasks on any node take the shortcuts;
    /// memory, features and several processors per task take the exhaustive paths inside
    /// the same runs.
    #[test]
    fn maui_node_shortcuts_match_visiting_every_node(
        mut spec in machine(),
        uniform in prop::option::of(2usize..12),
        jobs in jobs(),
        plain in any::<bool>(),
        standing in prop::option::of((0i64..400, 1i64..400, any::<bool>(), 0u8..6)),
        backfill in backfill(),
        depth in 0u32..4,
        per_event in any::<bool>(),
    ) {
        if let Some(n) = uniform {
            spec.nodes = vec![NodeSpec::with_procs(1); n];
        }
        let mut jobs = jobs;
        if let Some((start, length, recurring, access)) = standing {
            spec.standing = vec![standing_reservation(start, length, recurring, access)];
            // Users 0 and 1, of which the access list may name user 0.
            for (i, j) in jobs.iter_mut().enumerate() {
                j.creds.set(CredKind::User, CredId(i as u32 % 2));
            }
        }
        let jobs: Vec<Job> = if plain {
            jobs.into_iter().map(|mut j| { j.request = Request::default(); j }).collect()
        } else {
            jobs
        };
        let spec = Arc::new(spec);
        let mut policy = PolicyConfig::with_backfill(backfill, depth);
        policy.semantics = Semantics::Maui;
        shortcuts_match_the_long_way(&jobs, spec, policy, per_event, false)?;
    }

    /// Under every semantics and allocation policy, a reservation's search that takes the
    /// running jobs' ends from their planned ends, and places at the start it found from
    /// what it counted on the nodes only running jobs claim, gives the schedule that
    /// collecting and sorting every node's events and asking every node again gives:
    /// starts, ends, backfill flags, reservations and nodes alike. Memory, features,
    /// several processors per task and a standing window (nodes with a claim ahead) mix
    /// the two kinds of nodes.
    #[test]
    fn node_searches_match_visiting_every_node_under_every_allocation(
        mut spec in machine(),
        jobs in jobs(),
        allocation in allocation(),
        semantics in prop::sample::select(Semantics::ALL.to_vec()),
        standing in prop::option::of((0i64..400, 1i64..400, any::<bool>(), 0u8..6)),
        backfill in backfill(),
        depth in 0u32..4,
        per_event in any::<bool>(),
    ) {
        spec.allocation = allocation;
        let mut jobs = jobs;
        if let Some((start, length, recurring, access)) = standing {
            spec.standing = vec![standing_reservation(start, length, recurring, access)];
            for (i, j) in jobs.iter_mut().enumerate() {
                j.creds.set(CredKind::User, CredId(i as u32 % 2));
            }
        }
        let mut policy = PolicyConfig::with_backfill(backfill, depth);
        policy.semantics = semantics;
        shortcuts_match_the_long_way(&jobs, Arc::new(spec), policy, per_event, false)?;
    }

    /// Maui 3.3.1's partitions: the first `split` nodes in DEFAULT, the others in a
    /// partition of their own; user 0 ONLY in the other, user 1 by default there, user 2
    /// AND'ed to DEFAULT, user 3 unlisted, with the system list ALL or DEFAULT alone.
    /// Every job that runs runs within one partition its list allows, one held has no
    /// such partition able to hold it, and the node shortcuts give the schedule visiting
    /// every node gives.
    #[test]
    fn jobs_run_within_one_partition_they_may_use(
        mut spec in machine(),
        split in 1usize..5,
        jobs in jobs(),
        narrowed in any::<bool>(),
        backfill in prop_oneof![Just(BackfillPolicy::FirstFit), Just(BackfillPolicy::BestFit)],
        depth in 1u32..3,
        per_event in any::<bool>(),
    ) {
        let split = split.min(spec.nodes.len() - 1);
        for (n, node) in spec.nodes.iter_mut().enumerate() {
            node.partition = if n < split { 1 } else { 2 };
        }
        let mut jobs = jobs;
        for (i, j) in jobs.iter_mut().enumerate() {
            j.creds.set(CredKind::User, CredId(i as u32 % 4));
        }
        let mut policy = PolicyConfig::with_backfill(backfill, depth);
        policy.semantics = Semantics::Maui;
        let list = |kind, bits| Some(PartitionList { kind, bits });
        policy.creds.own_mut(CredKind::User, CredId(0)).partitions = list(ListKind::Only, 0b100);
        let u1 = policy.creds.own_mut(CredKind::User, CredId(1));
        u1.partitions = list(ListKind::Or, 0b100);
        u1.default_partition = Some(2);
        policy.creds.own_mut(CredKind::User, CredId(2)).partitions = list(ListKind::And, 0b010);
        policy.partitions = Some(Partitions {
            node_partition: [0, 1, 2, 0],
            system: if narrowed { PartitionList { kind: ListKind::Or, bits: 0b010 } } else { PartitionList::EVERY },
            system_default: 1,
        });
        let allowed = |user: u32| match user {
            0 => vec![2],
            1 => vec![1, 2],
            2 => vec![1],
            _ => if narrowed { vec![1] } else { vec![1, 2] },
        };
        let spec = Arc::new(spec);
        let (outcomes, stats) = checked_run(&jobs, &spec, &policy, per_event);
        let held: Vec<usize> = stats.held.iter().map(|(i, _)| *i).collect();
        for (i, (j, o)) in jobs.iter().zip(&outcomes).enumerate() {
            let may = allowed(i as u32 % 4);
            if held.contains(&i) {
                let ppt = u64::from(j.request.procs_per_task);
                for &p in &may {
                    let tasks: u64 = spec.nodes.iter().filter(|n| {
                        n.partition == p
                            && n.features & j.request.features == j.request.features
                            && u64::from(j.request.mem) <= n.mem
                    }).map(|n| {
                        let by_mem = match j.request.mem { 0 => u64::MAX, m => n.mem / u64::from(m) };
                        (n.procs / ppt).min(by_mem)
                    }).sum();
                    prop_assert!(tasks * ppt < j.procs,
                        "job {} held though partition {} holds {} of its tasks", j.id, p, tasks);
                }
                continue;
            }
            prop_assert!(o.start >= j.submit);
            let parts: Vec<u32> = stats.job_nodes.of(i)
                .iter()
                .flat_map(|&(a, b)| a..=b)
                .map(|n| spec.nodes[n as usize].partition)
                .collect();
            prop_assert!(!parts.is_empty(), "job {} ran nowhere", j.id);
            prop_assert!(parts.iter().all(|&p| p == parts[0]), "job {} spans partitions: {:?}", j.id, parts);
            prop_assert!(may.contains(&parts[0]), "job {} of user {} ran in partition {}", j.id, i % 4, parts[0]);
        }
        shortcuts_match_the_long_way(&jobs, spec, policy, per_event, false)?;
    }

    /// Node sets by feature (best effort): a job the priority pass starts runs only on
    /// nodes of the features whose nodes can hold all its tasks, when some can (counting
    /// every feature, as 3.3.1 does; backfill judges by the window's nodes instead), and
    /// the node shortcuts give the schedule visiting every node gives.
    #[test]
    fn jobs_keep_to_the_node_sets_that_can_hold_them(
        mut spec in machine(),
        jobs in jobs(),
        (policy, priority) in node_set_rules(),
        reversed in any::<bool>(),
        backfill in prop_oneof![Just(BackfillPolicy::FirstFit), Just(BackfillPolicy::BestFit)],
        depth in 1u32..3,
        per_event in any::<bool>(),
    ) {
        spec.node_sets = Some(NodeSets {
            policy,
            priority,
            sets: if reversed { vec![0b10, 0b01] } else { vec![0b01, 0b10] },
            every_feature: FEATURES,
            mandatory: false,
        });
        // The sets here are the node features; jobs ask for none.
        let jobs = without_features(jobs);
        let spec = Arc::new(spec);
        let policy_config = maui_with_backfill(backfill, depth);
        let (outcomes, stats) = checked_run(&jobs, &spec, &policy_config, per_event);
        let held: Vec<usize> = stats.held.iter().map(|(i, _)| *i).collect();
        for (i, j) in jobs.iter().enumerate() {
            if held.contains(&i) || policy == NodeSetPolicy::AnyOf || outcomes[i].backfilled {
                continue;
            }
            let ppt = u64::from(j.request.procs_per_task);
            let tasks = j.procs / ppt;
            let holds = |n: &NodeSpec| {
                let by_mem = match j.request.mem { 0 => u64::MAX, m => n.mem / u64::from(m) };
                if n.procs >= ppt && u64::from(j.request.mem) <= n.mem { (n.procs / ppt).min(by_mem) } else { 0 }
            };
            let per_feature: Vec<u64> = (0..2)
                .map(|f| spec.nodes.iter().filter(|n| n.features & (1 << f) != 0).map(holds).sum())
                .collect();
            if per_feature.iter().sum::<u64>() < tasks {
                continue;
            }
            let may = (0..2).filter(|&f| per_feature[f] >= tasks).fold(0u64, |m, f| m | 1 << f);
            if may == 0 {
                continue;
            }
            for &(a, b) in &stats.job_nodes.of(i) {
                for n in a..=b {
                    prop_assert!(spec.nodes[n as usize].features & may != 0,
                        "job {} ({} tasks) on node {} outside the sets {:b} that hold it", j.id, tasks, n, may);
                }
            }
        }
        shortcuts_match_the_long_way(&jobs, spec, policy_config, per_event, false)?;
    }

    /// Mandatory node sets (NODESETDELAY above 0): every job that runs, started by the
    /// priority pass or backfilled, runs on the nodes of one set (ANYOF only waits until
    /// the sets' nodes could hold it, and takes any); one that no set (ANYOF: not all of
    /// them together) can hold on the empty machine is held; and the node shortcuts give
    /// the schedule visiting every node gives.
    #[test]
    fn mandatory_node_sets_hold_every_job_to_one_set(
        mut spec in machine(),
        jobs in jobs(),
        (policy, priority) in node_set_rules(),
        one_set in any::<bool>(),
        backfill in prop_oneof![Just(BackfillPolicy::FirstFit), Just(BackfillPolicy::BestFit)],
        depth in 1u32..3,
        per_event in any::<bool>(),
    ) {
        // Sets of the first feature only, or of both: a node of neither is in no set.
        let sets = if one_set { vec![0b01] } else { vec![0b01, 0b10] };
        spec.node_sets = Some(NodeSets {
            policy,
            priority,
            sets: sets.clone(),
            every_feature: FEATURES,
            mandatory: true,
        });
        let jobs = without_features(jobs);
        let spec = Arc::new(spec);
        let policy_config = maui_with_backfill(backfill, depth);
        let (_, stats) = checked_run(&jobs, &spec, &policy_config, per_event);
        let held: Vec<usize> = stats.held.iter().map(|(i, _)| *i).collect();
        let any_of = policy == NodeSetPolicy::AnyOf;
        let groups: Vec<u64> = if any_of { vec![sets.iter().fold(0, |m, s| m | s)] } else { sets };
        for (i, j) in jobs.iter().enumerate() {
            let ppt = u64::from(j.request.procs_per_task);
            let holds = |n: &NodeSpec| {
                let by_mem = match j.request.mem { 0 => u64::MAX, m => n.mem / u64::from(m) };
                if n.procs >= ppt && u64::from(j.request.mem) <= n.mem { (n.procs / ppt).min(by_mem) } else { 0 }
            };
            let fits_a_set = groups.iter().any(|&g| {
                let tasks: u64 = spec.nodes.iter().filter(|n| n.features & g != 0).map(holds).sum();
                tasks * ppt >= j.procs
            });
            if held.contains(&i) {
                continue;
            }
            prop_assert!(fits_a_set, "job {} ran though no node set holds it", j.id);
            let nodes: Vec<u64> = stats.job_nodes.of(i)
                .iter()
                .flat_map(|&(a, b)| a..=b)
                .map(|n| spec.nodes[n as usize].features)
                .collect();
            prop_assert!(!nodes.is_empty(), "job {} never ran", j.id);
            prop_assert!(
                any_of || groups.iter().any(|&g| nodes.iter().all(|f| f & g != 0)),
                "job {} ran on nodes of features {:?}, in no one set of {:?}", j.id, nodes, groups
            );
        }
        shortcuts_match_the_long_way(&jobs, spec, policy_config, per_event, false)?;
    }

    /// QOS DEDICATED: a job of such a QOS never shares a node with another job while it
    /// runs, and the node shortcuts give the schedule visiting every node gives.
    #[test]
    fn dedicated_jobs_run_alone_on_their_nodes(
        spec in machine(),
        jobs in jobs(),
        every in 2u32..4,
        backfill in prop_oneof![Just(BackfillPolicy::FirstFit), Just(BackfillPolicy::BestFit)],
        depth in 1u32..3,
        per_event in any::<bool>(),
    ) {
        let mut jobs = jobs;
        for (i, j) in jobs.iter_mut().enumerate() {
            j.creds.set(CredKind::Qos, CredId(u32::from((i as u32).is_multiple_of(every))));
        }
        let mut policy = PolicyConfig::with_backfill(backfill, depth);
        policy.semantics = Semantics::Maui;
        policy.creds.own_mut(CredKind::Qos, CredId(1)).dedicated = true;
        let spec = Arc::new(spec);
        let (outcomes, stats) = checked_run(&jobs, &spec, &policy, per_event);
        let held: Vec<usize> = stats.held.iter().map(|(i, _)| *i).collect();
        let nodes_of = |i: usize| -> Vec<u32> {
            stats.job_nodes.of(i).iter().flat_map(|&(a, b)| a..=b).collect()
        };
        for i in (0..jobs.len()).filter(|i| i.is_multiple_of(every as usize) && !held.contains(i)) {
            let (mine, o) = (nodes_of(i), &outcomes[i]);
            for k in (0..jobs.len()).filter(|&k| k != i && !held.contains(&k)) {
                let other = &outcomes[k];
                let together = other.start < o.end && o.start < other.end;
                let shared = nodes_of(k).iter().any(|n| mine.contains(n));
                prop_assert!(!(together && shared),
                    "dedicated job {} shares a node with job {}", jobs[i].id, jobs[k].id);
            }
        }
        shortcuts_match_the_long_way(&jobs, spec, policy, per_event, false)?;
    }

    /// NODEACCESSPOLICY SINGLEUSER: no two jobs of different users ever share a node while
    /// they run (a job of one user shares with the same user's), and the node shortcuts give
    /// the schedule visiting every node gives.
    #[test]
    fn single_user_nodes_never_run_two_users_at_once(
        mut spec in machine(),
        jobs in jobs(),
        users in 1u32..4,
        backfill in prop_oneof![Just(BackfillPolicy::FirstFit), Just(BackfillPolicy::BestFit)],
        depth in 1u32..3,
        per_event in any::<bool>(),
    ) {
        spec.access = NodeAccess::SingleUser;
        let mut jobs = jobs;
        for (i, j) in jobs.iter_mut().enumerate() {
            j.creds.set(CredKind::User, CredId(i as u32 % users));
        }
        let mut policy = PolicyConfig::with_backfill(backfill, depth);
        policy.semantics = Semantics::Maui;
        let spec = Arc::new(spec);
        let (outcomes, stats) = checked_run(&jobs, &spec, &policy, per_event);
        let held: Vec<usize> = stats.held.iter().map(|(i, _)| *i).collect();
        let nodes_of = |i: usize| -> Vec<u32> {
            stats.job_nodes.of(i).iter().flat_map(|&(a, b)| a..=b).collect()
        };
        let ran: Vec<usize> = (0..jobs.len()).filter(|i| !held.contains(i)).collect();
        for &i in &ran {
            for &k in ran.iter().filter(|&&k| k > i && !(k as u32 - i as u32).is_multiple_of(users)) {
                let (a, b) = (&outcomes[i], &outcomes[k]);
                let together = a.start < b.end && b.start < a.end;
                let shared = nodes_of(k).iter().any(|n| nodes_of(i).contains(n));
                prop_assert!(!(together && shared),
                    "jobs {} and {} of two users share a node", jobs[i].id, jobs[k].id);
            }
        }
        shortcuts_match_the_long_way(&jobs, spec, policy, per_event, false)?;
    }

    /// NODECFG MAXJOB: no node ever runs more jobs at once than its limit (`--check` counts
    /// its claims at every instant), and the node shortcuts give the schedule visiting every
    /// node gives.
    #[test]
    fn nodes_never_run_more_jobs_than_their_max_job(
        mut spec in machine(),
        limits in prop::collection::vec(0u32..3, 6),
        jobs in jobs(),
        backfill in prop_oneof![Just(BackfillPolicy::FirstFit), Just(BackfillPolicy::BestFit)],
        depth in 1u32..3,
        per_event in any::<bool>(),
        maui in any::<bool>(),
    ) {
        for (node, most) in spec.nodes.iter_mut().zip(limits) {
            node.max_jobs = most;
        }
        let mut policy = PolicyConfig::with_backfill(backfill, depth);
        policy.semantics = if maui { Semantics::Maui } else { Semantics::ResearchEasy };
        let spec = Arc::new(spec);
        let (outcomes, stats) = checked_run(&jobs, &spec, &policy, per_event);
        let nodes_of = |i: usize| -> Vec<u32> {
            stats.job_nodes.of(i).iter().flat_map(|&(a, b)| a..=b).collect()
        };
        for (n, node) in spec.nodes.iter().enumerate().filter(|(_, node)| node.max_jobs > 0) {
            let on: Vec<usize> = (0..jobs.len())
                .filter(|&i| nodes_of(i).contains(&(n as u32)))
                .collect();
            for &i in &on {
                let t = outcomes[i].start;
                let at_once = on
                    .iter()
                    .filter(|&&k| outcomes[k].start <= t && t < outcomes[k].end)
                    .count() as u64;
                prop_assert!(at_once <= u64::from(node.max_jobs),
                    "node {n} runs {at_once} jobs at {t}, MAXJOB {}", node.max_jobs);
            }
        }
        shortcuts_match_the_long_way(&jobs, spec, policy, per_event, false)?;
    }

    /// NODECFG MAXJOBPERUSER, MAXPROCPERUSER, MAXPROC, MAXLOAD and MAXPEPERJOB: a user never runs as
    /// many jobs on a node as its MAXJOBPERUSER (a job's processors per task count as its
    /// first job at its start), no job runs on fewer nodes than their MAXPEPERJOB caps allow,
    /// and the node shortcuts give the schedule visiting every node gives, under both Maui
    /// readings (3.3.1's simulated job lists too) and the research one.
    #[test]
    fn nodes_hold_users_to_their_start_limits(
        mut spec in machine(),
        limits in prop::collection::vec((0u32..4, 0u32..6, 0u32..6, 0u32..4), 6),
        caps in prop::option::of(prop::collection::vec(prop_oneof![Just(u32::MAX), 0u32..4], 6)),
        jobs in jobs(),
        users in 1u32..4,
        backfill in prop_oneof![Just(BackfillPolicy::FirstFit), Just(BackfillPolicy::BestFit)],
        depth in 1u32..3,
        per_event in any::<bool>(),
        semantics in prop_oneof![
            Just(Semantics::Maui),
            Just(Semantics::Maui331),
            Just(Semantics::ResearchEasy)
        ],
    ) {
        spec.start_limits = limits
            .into_iter()
            .take(spec.nodes.len())
            .map(|(jobs_per_user, procs_per_user, procs, busy_at_load)| StartLimits {
                max_jobs_per_user: jobs_per_user,
                max_procs_per_user: procs_per_user,
                max_procs: procs,
                busy_at_load,
            })
            .collect();
        if let Some(caps) = caps {
            spec.task_caps = caps.into_iter().take(spec.nodes.len()).collect();
            spec.task_caps.resize(spec.nodes.len(), u32::MAX);
        }
        let mut jobs = jobs;
        for (i, j) in jobs.iter_mut().enumerate() {
            j.creds.set(CredKind::User, CredId(i as u32 % users));
        }
        let mut policy = PolicyConfig::with_backfill(backfill, depth);
        policy.semantics = semantics;
        let spec = Arc::new(spec);
        let (outcomes, stats) = checked_run(&jobs, &spec, &policy, per_event);
        let nodes_of = |i: usize| -> Vec<u32> {
            stats.job_nodes.of(i).iter().flat_map(|&(a, b)| a..=b).collect()
        };
        let held: Vec<usize> = stats.held.iter().map(|(i, _)| *i).collect();
        let ran: Vec<usize> = (0..jobs.len()).filter(|i| !held.contains(i)).collect();
        // 3.3.1's simulated job lists may leave a running job out of the count.
        let counts_all = semantics != Semantics::Maui331;
        for (n, limits) in spec.start_limits.iter().enumerate() {
            let most = limits.max_jobs_per_user;
            if most == 0 || !counts_all {
                continue;
            }
            for &i in ran.iter().filter(|&&i| nodes_of(i).contains(&(n as u32))) {
                let t = outcomes[i].start;
                let theirs = ran
                    .iter()
                    .filter(|&&k| k % users as usize == i % users as usize)
                    .filter(|&&k| nodes_of(k).contains(&(n as u32)))
                    .filter(|&&k| outcomes[k].start <= t && t < outcomes[k].end)
                    .count() as u32;
                prop_assert!(theirs < most,
                    "node {n} runs {theirs} jobs of one user at {t}, MAXJOBPERUSER {most}");
            }
        }
        if !spec.task_caps.is_empty() {
            for &i in &ran {
                let tasks = jobs[i].procs / u64::from(jobs[i].request.procs_per_task.max(1));
                let most: u64 = nodes_of(i)
                    .iter()
                    .map(|&n| u64::from(spec.task_caps[n as usize]))
                    .fold(0u64, u64::saturating_add);
                prop_assert!(most >= tasks,
                    "job {i}'s {tasks} tasks on nodes {:?} capped at {most} in all", nodes_of(i));
            }
        }
        shortcuts_match_the_long_way(&jobs, spec, policy, per_event, false)?;
    }

    /// Research EASY's FIRSTFIT (and NONE) skip a candidate at least as wide and as long
    /// as one that found no room over time: the schedule is the one asking the profile for
    /// every candidate gives, on pooled processors and node by node, with any depth.
    #[test]
    fn dominated_backfill_candidates_are_skipped_exactly(
        mut spec in machine(),
        jobs in jobs(),
        pooled in any::<bool>(),
        strict in any::<bool>(),
        depth in 0u32..4,
        per_event in any::<bool>(),
    ) {
        let jobs: Vec<Job> = if pooled {
            spec.nodes = vec![NodeSpec::with_procs(1); 8];
            jobs.into_iter().map(|mut j| { j.request = Request::default(); j }).collect()
        } else {
            jobs
        };
        let spec = Arc::new(spec);
        let backfill = if strict { BackfillPolicy::None } else { BackfillPolicy::FirstFit };
        let mut policy = PolicyConfig::with_backfill(backfill, depth);
        policy.semantics = Semantics::ResearchEasy;
        shortcuts_match_the_long_way(&jobs, spec, policy, per_event, pooled)?;
    }

    /// FIRSTFIT through the queue's fit index (and BYPASS counted by marks) gives the
    /// schedule, BYPASS included, of visiting every candidate, on queues long enough for
    /// the index to be used, outgrown and made again, with jobs of a NOBF QOS among them
    /// (on pooled processors; node by node, where the scan is kept, the same schedule).
    #[test]
    fn indexed_backfill_matches_the_scan_on_long_queues(
        raw in prop::collection::vec((0i64..3000, 1i64..400, 0i64..300, 1u64..=8, any::<bool>()), 60..400),
        per_event in any::<bool>(),
        pooled in any::<bool>(),
        depth in 1u32..3,
    ) {
        let mut jobs: Vec<Job> = raw
            .iter()
            .enumerate()
            .map(|(i, &(submit, runtime, slack, procs, nobf))| {
                let mut j = Job::synthetic(i as u64 + 1, submit, runtime, runtime + slack, procs);
                j.creds.set(CredKind::Qos, CredId(u32::from(nobf && i % 5 == 0)));
                j
            })
            .collect();
        jobs.sort_by_key(|j| (j.submit, j.id));
        let mut spec = MachineSpec::homogeneous(0, 1);
        spec.nodes = vec![NodeSpec::with_procs(1); 8];
        let mut policy = PolicyConfig::with_backfill(BackfillPolicy::FirstFit, depth);
        policy.semantics = Semantics::ResearchEasy;
        policy.creds.own_mut(CredKind::Qos, CredId(1)).no_backfill = true;
        shortcuts_match_the_long_way(&jobs, Arc::new(spec), policy, per_event, pooled)?;
    }

    /// With exact estimates, queue-time priority and one reservation (EASY), a
    /// reservation laid on nodes is a promise: the job never starts after it. (Deeper,
    /// a reservation re-laid by the policy on other nodes can take nodes a lower job's
    /// reservation was counting on, as in Maui; pooled processors have no such case.)
    #[test]
    fn per_node_reservations_are_kept(
        mut spec in machine(),
        jobs in jobs(),
        allocation in allocation(),
        backfill in prop_oneof![
            Just(BackfillPolicy::FirstFit),
            Just(BackfillPolicy::BestFit),
            Just(BackfillPolicy::Greedy),
        ],
    ) {
        spec.allocation = allocation;
        let depth = 1;
        let jobs: Vec<Job> = jobs
            .into_iter()
            .map(|j| {
                let mut e = Job::synthetic(j.id, j.submit, j.runtime, j.runtime, j.procs);
                e.request = j.request;
                e
            })
            .collect();
        // A promise of the research reading: under Maui's, a job selected with no queue
        // time counts its whole queue time later and can overtake one that waited longer.
        let policy = PolicyConfig {
            semantics: Semantics::ResearchEasy,
            ..PolicyConfig::with_backfill(backfill, depth)
        };
        let engine = EngineOptions { pooled: false, check: true, record_reservations: true, ..EngineOptions::default() };
        let (outcomes, stats) = simulate(&jobs, Arc::new(spec), policy, engine).unwrap();
        // Never later than any promise. (Unlike pooled processors, a job may start before
        // its last promise: the nodes it finally gets, chosen at its start, can differ
        // from those its reservation was laid on, e.g. CPULOAD reserves by MINRESOURCE.)
        for &(_, i, promised) in &stats.reservations {
            prop_assert!(outcomes[i].start <= promised, "job {} promised {} started {}", jobs[i].id, promised, outcomes[i].start);
        }
    }
}

/// NODESETDELAY above 0, worked by hand: nodes 0 and 1 are set a, 2 and 3 set b, WORSTFIT
/// (the set with the most available tasks, the first on a tie). At 0, job 1 (one task) goes
/// to a (two each, a first), on node 1 (LASTAVAILABLE), and job 2 (one task) to b (one in
/// a, two in b), on node 3. At 1 job 3 asks two tasks: nodes 0 and 2 are free, one of each
/// set. Best effort starts it there across the sets; mandatory sets hold it until job 1
/// ends at 10 and set a has both its nodes.
#[test]
fn mandatory_node_sets_hold_a_job_until_one_set_has_room() {
    let mut spec = MachineSpec::homogeneous(4, 1);
    for (n, node) in spec.nodes.iter_mut().enumerate() {
        node.features = if n < 2 { 0b01 } else { 0b10 };
    }
    spec.allocation = AllocationPolicy::LastAvailable;
    let jobs = vec![
        Job::synthetic(1, 0, 10, 10, 1),
        Job::synthetic(2, 0, 100, 100, 1),
        Job::synthetic(3, 1, 50, 50, 2),
    ];
    let mut policy = PolicyConfig::with_backfill(BackfillPolicy::FirstFit, 1);
    policy.semantics = Semantics::Maui;
    for (mandatory, third_starts) in [(false, 1), (true, 10)] {
        spec.node_sets = Some(NodeSets {
            policy: NodeSetPolicy::OneOf,
            priority: NodeSetPriority::WorstFit,
            sets: vec![0b01, 0b10],
            every_feature: 0b11,
            mandatory,
        });
        let (outcomes, stats) = checked_run(&jobs, &Arc::new(spec.clone()), &policy, false);
        let starts: Vec<i64> = outcomes.iter().map(|o| o.start).collect();
        assert_eq!(starts, [0, 0, third_starts], "mandatory: {mandatory}");
        assert_eq!(stats.job_nodes.of(0), [(1, 1)], "mandatory: {mandatory}");
        assert_eq!(stats.job_nodes.of(1), [(3, 3)], "mandatory: {mandatory}");
        let third: &[(u32, u32)] = if mandatory {
            &[(0, 1)]
        } else {
            &[(0, 0), (2, 2)]
        };
        assert_eq!(&stats.job_nodes.of(2), third, "mandatory: {mandatory}");
    }
}

fn config_error(text: &str) -> String {
    mauisim_sim::params::from_str(text, "maui.cfg")
        .map(|_| ())
        .unwrap_err()
        .to_string()
}

#[test]
fn bad_node_config_is_a_located_error() {
    let cases = [
        ("NODECFG[a] PROCS=0\n", "maui.cfg:1:12: NODECFG[a] PROCS: a node needs at least one processor"),
        ("NODECFG[a] MEM=lots\n", "maui.cfg:1:12: NODECFG[a] MEM:"),
        ("NODECFG[a] SPEED=-1\n", "maui.cfg:1:12: NODECFG[a] SPEED: speed must be positive"),
        ("NODECFG[a] FOO=1\n", "maui.cfg:1:12: NODECFG[a]: unknown attribute FOO"),
        ("NODECFG[a] PRIORITYF='SPEED + FOO'\n", "maui.cfg:1:12: NODECFG[a] PRIORITYF: column 9 of `SPEED + FOO`: unknown node attribute 'FOO'"),
        ("NODECFG[a] PRIORITYF='SPEED -'\n", "maui.cfg:1:12: NODECFG[a] PRIORITYF: column 8 of `SPEED -`: expected a node attribute name, found the end"),
        ("NODEALLOCATIONPOLICY BOGUS\n", "maui.cfg:1:1: NODEALLOCATIONPOLICY: unknown policy `BOGUS`"),
        ("NODECFG PROCS=2\n", "maui.cfg:1:1: NODECFG needs a node name"),
    ];
    for (text, expected) in cases {
        let e = config_error(text);
        assert!(e.starts_with(expected), "expected `{expected}…`, got `{e}`");
    }
}

/// Maui 3.3.1's node attributes that a simulation cannot feel are accepted and named once
/// in the summary line; those that would change the schedule are refused with what they
/// do; an access policy 3.3.1 does not know (it matches capitals exactly) is its default.
#[test]
fn maui_node_attributes_are_known_by_name() {
    let loaded = mauisim_sim::params::from_str(
        "NODECFG[a] FRAME=2 SLOT=1 NODETYPE=thin CFGMEM=512\nNODECFG[b] FRAME=3\n",
        "maui.cfg",
    )
    .unwrap();
    assert_eq!(
        loaded.warnings,
        ["maui.cfg: note: 3 parameters without effect on what Maui 3.3.1 schedules in a simulation ignored: NODECFG FRAME, NODECFG SLOT, NODECFG NODETYPE"]
    );
    let a = loaded.config.nodes.objects.iter().find(|o| o.name == "a");
    assert_eq!(a.unwrap().mem, Some(512));
    let e = config_error("NODECFG[a] RADISK=1\n");
    assert!(
        e.starts_with("maui.cfg:1:12: NODECFG[a] RADISK (the node's disk available to jobs) changes what Maui schedules"),
        "{e}"
    );
    let loaded = mauisim_sim::params::from_str("NODECFG[a] GRES=tape:2\n", "maui.cfg").unwrap();
    assert_eq!(
        loaded.warnings,
        ["maui.cfg:1:12: warning: NODECFG[a] GRES binds no job of a trace; ignored"]
    );
    for (text, access) in [
        ("DEDICATED", "SHARED"),
        ("singlejob", "SHARED"),
        ("SINGLEJOB", "SINGLEJOB"),
    ] {
        let loaded =
            mauisim_sim::params::from_str(&format!("NODEACCESSPOLICY {text}\n"), "maui.cfg")
                .unwrap();
        let read = serde_json::to_value(&loaded.config.nodes).unwrap();
        assert_eq!(read["access"], access, "{text}");
        assert_eq!(loaded.warnings.len(), usize::from(access != text), "{text}");
    }
}

#[test]
fn node_config_builds_the_machine() {
    use mauisim_sim::nodes;
    use mauisim_sim::params::credentials::Names;
    use mauisim_sim::trace::workload::Machine;
    let read = |text: &str| {
        mauisim_sim::params::from_str(text, "maui.cfg")
            .unwrap()
            .config
            .nodes
    };
    let machine = Machine {
        nodes: 4,
        procs_per_node: 1,
    };
    // DEFAULT PROCS splits the machine's processors into nodes; a named object overrides.
    let config =
        read("NODECFG[DEFAULT] PROCS=2 MEM=512\nNODECFG[n1] MEM=2048 FEATURES=[gpu][fast]\n");
    let built = nodes::build(None, machine, &config, &mut Names::default(), 0).unwrap();
    assert_eq!(built.names(), ["n0", "n1"]);
    let specs = &built.spec.nodes;
    assert_eq!(
        (specs[0].procs, specs[0].mem, specs[0].features),
        (2, 512, 0)
    );
    assert_eq!(
        (specs[1].procs, specs[1].mem, specs[1].features),
        (2, 2048, 0b11)
    );
    assert_eq!(built.features, ["gpu", "fast"]);
    // MAXJOB: a node's own, else NODECFG[DEFAULT]'s (0 or below is none of its own).
    let config = read("NODECFG[DEFAULT] PROCS=2 MAXJOB=3\nNODECFG[n1] MAXJOB=0\n");
    let built = nodes::build(None, machine, &config, &mut Names::default(), 0).unwrap();
    let most: Vec<u32> = built.spec.nodes.iter().map(|n| n.max_jobs).collect();
    assert_eq!(most, [3, 3]);
    let config = read("NODECFG[n1] MAXJOB=1\n");
    let built = nodes::build(None, machine, &config, &mut Names::default(), 0).unwrap();
    let most: Vec<u32> = built.spec.nodes.iter().map(|n| n.max_jobs).collect();
    assert_eq!(most, [0, 1, 0, 0]);
    // A load limit binds below a node's processors only: at or above them the node is full
    // when Busy (no limit, and one-processor nodes still pool). Likewise MAXPROC and
    // MAXPROCPERUSER: the jobs on a node never hold more than it has. MAXJOBPERUSER counts
    // jobs, and binds at any value (1 keeps every job off).
    let start = |text: &str| -> Vec<(u32, u32, u32, u32)> {
        let built = nodes::build(None, machine, &read(text), &mut Names::default(), 0).unwrap();
        let limits = &built.spec.start_limits;
        (0..built.len())
            .map(|n| limits.get(n).copied().unwrap_or_default())
            .map(|l| {
                (
                    l.busy_at_load,
                    l.max_jobs_per_user,
                    l.max_procs_per_user,
                    l.max_procs,
                )
            })
            .collect()
    };
    assert_eq!(start("NODEMAXLOAD 1\n"), [(0, 0, 0, 0); 4]);
    assert_eq!(start("NODEMAXLOAD 0.5\n"), [(0, 0, 0, 0); 4]);
    let two = "NODECFG[DEFAULT] PROCS=2";
    assert_eq!(start(&format!("{two}\nNODEMAXLOAD 1\n")), [(1, 0, 0, 0); 2]);
    assert_eq!(
        start(&format!("{two}\nNODEMAXLOAD 1.5\n")),
        [(0, 0, 0, 0); 2]
    );
    assert_eq!(
        start(&format!("{two} MAXPROC=2 MAXPROCPERUSER=3\n")),
        [(0, 0, 0, 0); 2]
    );
    assert_eq!(
        start(&format!("{two} MAXPROC=1 MAXPROCPERUSER=1\n")),
        [(0, 0, 1, 1); 2]
    );
    assert_eq!(
        start(&format!("{two} MAXJOBPERUSER=9\n")),
        [(0, 9, 0, 0); 2]
    );
    assert_eq!(start("NODECFG[DEFAULT] MAXPROC=1\n"), [(0, 0, 0, 0); 4]);
    // Named objects with PROCS define the machine.
    let config = read("NODECFG[big] PROCS=64 MEM=65536\nNODECFG[small] PROCS=8\n");
    let built = nodes::build(None, machine, &config, &mut Names::default(), 0).unwrap();
    assert_eq!(built.names(), ["big", "small"]);
    assert_eq!(built.procs(), 72);
    // A name that is not a node, and a DEFAULT PROCS that does not divide the machine.
    let config = read("NODECFG[gpu7] PRIORITY=5\n");
    let e = nodes::build(None, machine, &config, &mut Names::default(), 0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("NODECFG[gpu7]: no node of that name"), "{e}");
    let config = read("NODEALLOCATIONPOLICY LOCAL\n");
    let e = nodes::build(None, machine, &config, &mut Names::default(), 0)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("NODEALLOCATIONPOLICY LOCAL calls a site's own allocator"),
        "{e}"
    );
    let config = read("NODECFG[DEFAULT] PROCS=3\n");
    let e = nodes::build(None, machine, &config, &mut Names::default(), 0)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("PROCS=3 does not divide the machine's 4 processors"),
        "{e}"
    );
}

/// FEATUREPROCSPEEDHEADER and FEATUREPARTITIONHEADER read the features of a node file's
/// nodes, as 3.3.1 reads those its resource trace gives (MNode.c `MNodeProcessFeature`):
/// the speed and the partition after the header, a NODECFG PROCSPEED (read after the
/// trace) still winning. A partition named by number (3.3.1's old-style index) is refused
/// naming the node and feature. Without a node file the features they read are none: a
/// note says they change nothing.
#[test]
fn feature_headers_read_a_node_files_features() {
    use mauisim_sim::nodes::{self, BaseNode, NodeSource};
    use mauisim_sim::params::credentials::Names;
    use mauisim_sim::params::node_cfg::NodeCfg;
    use mauisim_sim::trace::workload::Machine;
    let read = |text: &str| {
        mauisim_sim::params::from_str(text, "maui.cfg")
            .unwrap()
            .config
            .nodes
    };
    let node = |name: &str, features: &[&str]| BaseNode {
        name: name.to_string(),
        cfg: NodeCfg {
            procs: Some(2),
            features: Some(features.iter().map(|f| f.to_string()).collect()),
            ..NodeCfg::default()
        },
    };
    let file = |nodes: Vec<BaseNode>| NodeSource {
        nodes,
        source: "nodes.trace".into(),
        standing: Vec::new(),
    };
    let machine = Machine {
        nodes: 2,
        procs_per_node: 2,
    };
    let headers = "FEATUREPROCSPEEDHEADER speed\nFEATUREPARTITIONHEADER part_\n";
    let config = read(&format!("{headers}NODECFG[c] PROCSPEED=500\n"));
    let nodes = vec![
        node("a", &["speed1000", "part_gpu"]),
        node("b", &["speed3000"]),
        node("c", &["speed2000"]),
    ];
    let built = nodes::build(
        Some(file(nodes)),
        machine,
        &config,
        &mut Names::default(),
        0,
    )
    .unwrap();
    let speeds: Vec<u64> = built.spec.nodes.iter().map(|n| n.procspeed()).collect();
    assert_eq!(speeds, [1000, 3000, 500]);
    let partitions: Vec<u32> = built.spec.nodes.iter().map(|n| n.partition).collect();
    assert!(
        partitions[0] != partitions[1] && partitions[1] == partitions[2],
        "{partitions:?}"
    );
    assert_eq!(
        built.features,
        ["speed1000", "part_gpu", "speed3000", "speed2000"]
    );
    let e = nodes::build(
        Some(file(vec![node("a", &["part_2"])])),
        machine,
        &config,
        &mut Names::default(),
        0,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains(
            "node a: feature `part_2` (FEATUREPARTITIONHEADER) names partition `2` by number"
        ),
        "{e}"
    );
    let built = nodes::build(None, machine, &read(headers), &mut Names::default(), 0).unwrap();
    assert!(built.spec.nodes.iter().all(|n| n.procspeed() == 0));
    assert_eq!(
        built.warnings,
        [
            "maui.cfg:1:1: note: FEATUREPROCSPEEDHEADER reads the names of the features a node file (--node-file) gives its nodes, as Maui 3.3.1 reads those its resource manager reports; this run's nodes come from 2 nodes x 2 processors, whose features it does not read (nor does 3.3.1 NODECFG's): it changes nothing",
            "maui.cfg:2:1: note: FEATUREPARTITIONHEADER reads the names of the features a node file (--node-file) gives its nodes, as Maui 3.3.1 reads those its resource manager reports; this run's nodes come from 2 nodes x 2 processors, whose features it does not read (nor does 3.3.1 NODECFG's): it changes nothing",
        ]
    );
}

/// Standing reservations Maui 3.3.1 makes no window of are warned of and left out, as it
/// leaves them out: an overnight ENDTIME before STARTTIME, and `HOSTLIST=ALL` (a regular
/// expression there) matching no node's name, which lays a TASKCOUNT reservation as if no
/// host list were given. Every problem binding a config to the nodes is told at once.
#[test]
fn standing_reservations_3_3_1_makes_no_window_of_are_warned_of() {
    use mauisim_sim::nodes;
    use mauisim_sim::params::credentials::Names;
    use mauisim_sim::trace::workload::Machine;
    let machine = Machine {
        nodes: 8,
        procs_per_node: 1,
    };
    let build = |text: &str| {
        let config = mauisim_sim::params::from_str(text, "maui.cfg")
            .unwrap()
            .config
            .nodes;
        nodes::build(None, machine, &config, &mut Names::default(), 0)
    };
    let built = build(
        "SRCFG[night] STARTTIME=20:00:00 ENDTIME=6:00:00 HOSTLIST=n1\n\
         SRCFG[all] HOSTLIST=ALL PERIOD=INFINITY\n\
         SRCFG[some] HOSTLIST=all TASKCOUNT=3 PERIOD=INFINITY\n\
         SRCFG[sam] PERIOD=INFINITY RESOURCES=PROCS:2 USERLIST=ops003\n\
         SRCFG[big] HOSTLIST=n2 RESOURCES=PROCS:2 PERIOD=INFINITY\n\
         SRCFG[ops] TASKCOUNT=1 RESOURCES=PROCS:2 GROUPLIST=ops PERIOD=INFINITY\n\
         SRCFG[pair] HOSTLIST=n[23] TASKCOUNT=2 RESOURCES=PROCS:2 PERIOD=INFINITY\n",
    )
    .unwrap();
    let laid: Vec<(&str, &[u32])> = built
        .spec
        .standing
        .iter()
        .map(|r| (r.name.as_str(), &r.nodes[..]))
        .collect();
    // TASKCOUNT's nodes: 3.3.1's MINRESOURCE order, the last node first.
    assert_eq!(laid, [("some", &[7u32, 6, 5][..])]);
    assert_eq!(
        built.warnings,
        [
            "maui.cfg:1:1: warning: SRCFG[night]: ENDTIME 6:00:00 is not after STARTTIME 20:00:00, and Maui 3.3.1 makes no window then (no wrap past midnight): no reservation, here as there; an overnight window is STARTTIME=18:00:00 ENDTIME=1:06:00:00",
            "maui.cfg:2:1: warning: SRCFG[all] HOSTLIST=ALL: Maui 3.3.1 reads a host list as regular expressions, with no keyword ALL, and no node's name here holds \"all\": it makes no reservation of it (no TASKCOUNT); write the nodes' names, or give a TASKCOUNT",
            "maui.cfg:3:1: warning: SRCFG[some] HOSTLIST=ALL: Maui 3.3.1 reads a host list as regular expressions, with no keyword ALL, and no node's name here holds \"all\": it lays it by TASKCOUNT alone, as if HOSTLIST were not given",
            "maui.cfg:4:1: warning: SRCFG[sam]: neither HOSTLIST nor TASKCOUNT, so it holds no node: Maui 3.3.1 makes no reservation of it, nor does mauisim; give one to hold nodes",
            "maui.cfg:5:1: warning: SRCFG[big] HOSTLIST: no node it lists can hold one of its tasks (2 processors each): Maui 3.3.1 makes no reservation of it, nor does mauisim",
            "maui.cfg:6:1: warning: SRCFG[ops] TASKCOUNT: no node can hold one of its tasks (2 processors each): Maui 3.3.1 makes no reservation of it, nor does mauisim",
            "maui.cfg:7:1: warning: SRCFG[pair] HOSTLIST: no node it lists can hold one of its tasks (2 processors each): Maui 3.3.1 makes no reservation of it, nor does mauisim",
        ]
    );
    let e = build(
        "NODECFG[gpu7] PRIORITY=5\nNODECFG[n3] PRIORITY=1\nNODECFG[gpu8] PRIORITY=5\n\
         SRCFG[a] HOSTLIST=cn[0-9]+ PERIOD=INFINITY\n",
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        e,
        "3 errors in the config:\n\
         maui.cfg:1:1: NODECFG[gpu7]: no node of that name in the generated nodes (8 nodes x 1 processor: n0, n1, …)\n\
         maui.cfg:3:1: NODECFG[gpu8]: no node of that name in the generated nodes (8 nodes x 1 processor: n0, n1, …)\n\
         maui.cfg:4:1: SRCFG[a] HOSTLIST: no node's name matches cn[0-9]+ (node names: n0, n1, n2, n3, …)\n\
         hint: the config names nodes this run does not have: give the site's nodes with \
         --node-file FILE (a Maui resource trace, 21 fields per node, guide 16.2), or each \
         with NODECFG[name] PROCS=… (the config then defines the machine)"
    );
    // The hint follows the error that names missing nodes, not whichever came last.
    let e = build(
        "SRCFG[a] HOSTLIST=cn[0-9]+ PERIOD=INFINITY\nNODECFG[n1] FEATURES=gpu\n\
         SRCFG[x] HOSTLIST=n0 NODEFEATURES=gpu PERIOD=INFINITY\n",
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        e,
        "2 errors in the config:\n\
         maui.cfg:1:1: SRCFG[a] HOSTLIST: no node's name matches cn[0-9]+ (node names: n0, n1, n2, n3, …)\n\
         hint: the config names nodes this run does not have: give the site's nodes with \
         --node-file FILE (a Maui resource trace, 21 fields per node, guide 16.2), or each \
         with NODECFG[name] PROCS=… (the config then defines the machine)\n\
         maui.cfg:3:1: SRCFG[x] HOSTLIST: the nodes it lists lack its NODEFEATURES or are outside its PARTITION"
    );
    // A machine the config defines names its own nodes: no hint then.
    let e = build("NODECFG[a1] PROCS=2\nSRCFG[a] HOSTLIST=cn[0-9]+ PERIOD=INFINITY\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("no node's name matches") && !e.contains("hint:"),
        "{e}"
    );
    // A node it names that lacks its features is there: said so, and no hint.
    let e =
        build("NODECFG[n1] FEATURES=gpu\nSRCFG[x] HOSTLIST=n0 NODEFEATURES=gpu PERIOD=INFINITY\n")
            .unwrap_err()
            .to_string();
    assert_eq!(
        e,
        "maui.cfg:2:1: SRCFG[x] HOSTLIST: the nodes it lists lack its NODEFEATURES or are outside its PARTITION"
    );
}

/// A config with refused entries and with entries the nodes do not bind tells both in one
/// run (issue 25: every problem of a file at once), in memory and streamed, with the
/// warnings of both stages; without refused entries the binding's problems come alone.
#[test]
fn refused_entries_and_binding_problems_are_told_in_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("jobs.swf");
    std::fs::write(
        &trace,
        "; MaxProcs: 4\n1 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n",
    )
    .unwrap();
    let config = dir.path().join("maui.cfg");
    let write = |text: &str| std::fs::write(&config, text).unwrap();
    let told = |stream: bool| {
        let options = mauisim_sim::RunOptions {
            config: Some(config.clone()),
            ..mauisim_sim::RunOptions::new(trace.clone())
        };
        let e = if stream {
            mauisim_sim::stream::run(&options, &dir.path().join("out"))
                .err()
                .unwrap()
        } else {
            mauisim_sim::prepare(&options).err().unwrap()
        };
        let text = e.to_string();
        text.strip_prefix(&format!(
            "streaming the run into {}: ",
            dir.path().join("out").display()
        ))
        .map_or(text.clone(), str::to_string)
    };
    let at = config.display();
    write(
        "BACKFILLPOLICY FOO\n\
         NODECFG[gpu1] PRIORITY=5\n\
         RESERVATIONDEPTH x\n\
         SRCFG[a] HOSTLIST=cn[0-9]+ PERIOD=INFINITY\n\
         LOGLEVEL 3\n",
    );
    let both = format!(
        "4 errors in the config:\n\
         {at}:1:16: BACKFILLPOLICY: expected FIRSTFIT, BESTFIT, GREEDY or NONE, found `FOO`\n\
         {at}:2:1: NODECFG[gpu1]: no node of that name in the generated nodes (4 nodes x 1 processor: n0, n1, …)\n\
         {at}:3:18: RESERVATIONDEPTH: expected an integer, found `x`\n\
         {at}:4:1: SRCFG[a] HOSTLIST: no node's name matches cn[0-9]+ (node names: n0, n1, n2, n3)\n"
    );
    let e = told(false);
    assert!(e.starts_with(&both), "{e}");
    assert!(e.contains("LOGLEVEL"), "the warnings are told too:\n{e}");
    assert_eq!(told(true), e, "streamed and in memory alike");
    // Without refused entries, the binding's problems alone, with the warnings.
    write("NODECFG[gpu1] PRIORITY=5\nSRCFG[a] HOSTLIST=cn[0-9]+ PERIOD=INFINITY\nLOGLEVEL 3\n");
    let e = told(false);
    assert!(e.starts_with("2 errors in the config:\n"), "{e}");
    assert!(e.contains("LOGLEVEL"), "{e}");
    assert_eq!(told(true), e);
    // A binding problem without a line (LOCAL) is told after the located ones.
    write("NODEALLOCATIONPOLICY LOCAL\nQOSCFG[q] QFLAGS=USERESERVED\n");
    let e = told(false);
    assert!(
        e.starts_with(&format!(
            "2 errors in the config:\n{at}:2:11: QOSCFG[q] QFLAGS: USERESERVED"
        )),
        "{e}"
    );
    assert!(e.ends_with("the command line has none"), "{e}");
    // A trace that cannot be read: the config's errors first.
    write("BACKFILLPOLICY FOO\nSRCFG[a] HOSTLIST=cn[0-9]+ PERIOD=INFINITY\n");
    std::fs::write(&trace, "not a trace\n").unwrap();
    assert_eq!(
        told(false),
        format!(
            "{at}:1:16: BACKFILLPOLICY: expected FIRSTFIT, BESTFIT, GREEDY or NONE, found `FOO`"
        )
    );
    std::fs::write(
        &trace,
        "; MaxProcs: 4\n1 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n",
    )
    .unwrap();
    // Refused entries the nodes bind: those alone.
    write("BACKFILLPOLICY FOO\nNODECFG[n1] PRIORITY=5\n");
    assert_eq!(
        told(false),
        format!(
            "{at}:1:16: BACKFILLPOLICY: expected FIRSTFIT, BESTFIT, GREEDY or NONE, found `FOO`"
        )
    );
}

/// A job asking for more memory per task than any node has is held and reported, not
/// dropped; the others run.
/// `jobs` on `spec`'s nodes tracked one by one, under Maui's default policy.
fn run_per_node(jobs: &[Job], spec: MachineSpec) -> (Vec<Outcome>, RunStats) {
    let engine = EngineOptions {
        pooled: false,
        ..EngineOptions::default()
    };
    simulate(jobs, Arc::new(spec), PolicyConfig::default(), engine).unwrap()
}

#[test]
fn a_job_no_node_can_hold_is_held_with_the_reason() {
    let mut spec = MachineSpec::homogeneous(2, 2);
    for n in &mut spec.nodes {
        n.mem = 1024;
    }
    let mut big = Job::synthetic(1, 0, 10, 10, 1);
    big.request.mem = 2048;
    let small = Job::synthetic(2, 0, 10, 10, 1);
    let (outcomes, stats) = run_per_node(&[big, small], spec);
    assert_eq!(stats.held.len(), 1);
    let (i, b) = &stats.held[0];
    assert_eq!(*i, 0);
    assert_eq!(mauisim_sim::params::limits::limit_name(b), "node memory");
    assert_eq!((b.amount, b.limit), (2048, 1024));
    assert_eq!(outcomes[1].start, 0);
}

/// Tasks of 2 processors on 1-processor nodes: held for the node size, not as a machine
/// with no processors.
#[test]
fn a_task_larger_than_every_node_is_held_for_the_node_size() {
    let spec = MachineSpec::homogeneous(4, 1);
    let mut wide = Job::synthetic(1, 0, 10, 10, 4);
    wide.request.procs_per_task = 2;
    let (_, stats) = run_per_node(&[wide], spec);
    let (_, b) = &stats.held[0];
    assert_eq!(
        mauisim_sim::params::limits::limit_name(b),
        "node processors"
    );
    assert_eq!((b.amount, b.limit), (2, 1));
    let names = mauisim_sim::params::credentials::Names::default();
    assert_eq!(
        mauisim_sim::params::limits::describe(b, &names),
        "node processors: each task needs 2 processors > 1 on the largest node"
    );
}

#[test]
fn scenario_node_errors_name_the_line() {
    let base = r#"title = "t"

[[node]]
name = "a"
procs = 2
features = ["gpu"]

[[job]]
name = "J"
procs = 1
limit = 10
features = ["gpu"]
"#;
    let run = |text: &str| -> String {
        let s = mauisim_sim::scenario::parse(text, std::path::Path::new("s.toml"));
        match s {
            Err(e) => e.to_string(),
            Ok(s) => match mauisim_sim::scenario::run(&s) {
                Err(e) => e.to_string(),
                Ok(r) => format!("ran, {} failures", r.failures()),
            },
        }
    };
    assert_eq!(run(base), "ran, 0 failures");
    let e = run(&base
        .replace("features = [\"gpu\"]\n\"#", "features = [\"tape\"]\n\"#")
        .replace(
            "limit = 10\nfeatures = [\"gpu\"]",
            "limit = 10\nfeatures = [\"tape\"]",
        ));
    assert!(
        e.contains("job 1: unknown feature `tape`: no node has it (nodes have: gpu)"),
        "{e}"
    );
    let e = run(&base.replace("procs = 2", "procs = 0"));
    assert!(
        e.starts_with("s.toml:5: node a: a node needs at least one processor"),
        "{e}"
    );
    let e = run(&base.replace("title = \"t\"", "title = \"t\"\nprocs = 4"));
    assert!(
        e.starts_with("s.toml:2: give either `procs` or `[[node]]` tables"),
        "{e}"
    );
    let e = run(&format!(
        "{base}\n[[reservation]]\nnodes = [\"zz\"]\nstart = 0\nend = 5\n"
    ));
    assert!(e.contains("reservation: no node is named `zz`"), "{e}");
}

/// A job waiting only for a standing reservation to end starts when it ends, though no
/// job ends or arrives then (the scheduler wakes up for it), in both event orders and
/// both semantics.
#[test]
fn a_job_waiting_for_a_standing_reservation_starts_when_it_ends() {
    for semantics in [Semantics::ResearchEasy, Semantics::Maui] {
        for order in [EventOrder::PerEvent, EventOrder::PerInstant] {
            let mut spec = MachineSpec::homogeneous(2, 1);
            let mut admin = standing_reservation(0, 100, false, 0);
            admin.nodes = vec![0];
            spec.standing = vec![admin];
            let jobs = vec![
                Job::synthetic(1, 0, 50, 50, 2),
                Job::synthetic(2, 10, 20, 20, 1),
            ];
            let mut policy = PolicyConfig::with_backfill(BackfillPolicy::FirstFit, 1);
            policy.semantics = semantics;
            let engine = EngineOptions {
                order,
                pooled: false,
                check: true,
                ..EngineOptions::default()
            };
            let (out, _) = simulate(&jobs, Arc::new(spec), policy, engine).unwrap();
            let starts: Vec<i64> = out.iter().map(|o| o.start).collect();
            // Job 2 backfills on node 1 until 30, inside job 1's reservation at 100.
            assert_eq!(starts, [100, 10], "{semantics:?}, {order:?}");
        }
    }
}

/// A job that no end of a standing reservation's window ever lets in (here one without
/// end on two of four nodes) is held with that reason, in both event orders, and the jobs
/// that fit beside it run.
#[test]
fn a_job_that_never_fits_beside_standing_reservations_is_held() {
    for order in [EventOrder::PerEvent, EventOrder::PerInstant] {
        let mut spec = MachineSpec::homogeneous(4, 1);
        spec.standing = vec![window_for_ever(vec![2, 3])];
        let jobs = vec![
            Job::synthetic(1, 0, 100, 100, 3),
            Job::synthetic(2, 0, 100, 100, 2),
        ];
        let (outcomes, stats) = simulate_maui_checked(&jobs, spec, order);
        assert_eq!(stats.held.len(), 1);
        assert_eq!(stats.held[0].0, 0, "job 1 is held");
        assert_eq!(
            stats.held[0].1.source,
            mauisim_core::Source::Machine(mauisim_core::Shortfall::StandingWindows)
        );
        assert_eq!(outcomes[1].start, 0);
        assert_eq!(stats.job_nodes.of(1), vec![(0, 1)]);
    }
}

/// NODEACCESSPOLICY SINGLETASK: a node holds one task, so a job of two one-processor
/// tasks takes two whole 4-processor nodes and a third job waits for one; under
/// SINGLEJOB the two tasks share a node and the third job takes the other at once.
#[test]
fn single_task_gives_each_task_a_whole_node() {
    for (access, b_start, a_nodes) in [
        (NodeAccess::SingleTask, 100, vec![(0, 1)]),
        (NodeAccess::SingleJob, 0, vec![(0, 0)]),
    ] {
        let mut spec = MachineSpec::homogeneous(2, 4);
        spec.access = access;
        spec.allocation = AllocationPolicy::FirstAvailable;
        let jobs = vec![
            Job::synthetic(1, 0, 100, 100, 2),
            Job::synthetic(2, 0, 50, 50, 1),
        ];
        let mut policy = PolicyConfig::with_backfill(BackfillPolicy::FirstFit, 1);
        policy.semantics = Semantics::Maui;
        let engine = EngineOptions {
            pooled: false,
            check: true,
            ..EngineOptions::default()
        };
        let (outcomes, stats) = simulate(&jobs, Arc::new(spec), policy, engine).unwrap();
        assert_eq!(outcomes[0].start, 0, "{access:?}");
        assert_eq!(stats.job_nodes.of(0), a_nodes, "{access:?}");
        assert_eq!(outcomes[1].start, b_start, "{access:?}");
    }
}

/// NODEACCESSPOLICY SINGLEUSER on one 4-processor node and one of 2, every job of one
/// processor for 100 s, all submitted at 0 in this order: job 1 (user 1) takes the last
/// node (LASTAVAILABLE: n1), job 2 (user 2) may not join it and takes n0; job 3 (user 1)
/// joins job 1 on n1, job 4 (user 2) joins job 2 on n0; job 5 (user 3) finds both nodes
/// held by other users and waits until 100, when both are free. Under SHARED, job 5 starts
/// at once beside the others.
#[test]
fn single_user_nodes_hold_the_jobs_of_one_user() {
    for (access, fifth_start) in [(NodeAccess::SingleUser, 100), (NodeAccess::Shared, 0)] {
        let mut spec = MachineSpec::homogeneous(0, 1);
        spec.nodes = vec![NodeSpec::with_procs(4), NodeSpec::with_procs(2)];
        spec.access = access;
        spec.allocation = AllocationPolicy::LastAvailable;
        let jobs: Vec<Job> = [1u32, 2, 1, 2, 3]
            .iter()
            .enumerate()
            .map(|(i, &user)| {
                let mut j = Job::synthetic(i as u64 + 1, 0, 100, 100, 1);
                j.creds.set(CredKind::User, CredId(user));
                j
            })
            .collect();
        let mut policy = PolicyConfig::with_backfill(BackfillPolicy::FirstFit, 1);
        policy.semantics = Semantics::Maui;
        let engine = EngineOptions {
            pooled: false,
            check: true,
            ..EngineOptions::default()
        };
        let (outcomes, stats) = simulate(&jobs, Arc::new(spec), policy, engine).unwrap();
        let starts: Vec<i64> = outcomes.iter().map(|o| o.start).collect();
        assert_eq!(starts, [0, 0, 0, 0, fifth_start], "{access:?}");
        if access == NodeAccess::SingleUser {
            let nodes = &stats.job_nodes;
            assert_eq!(nodes.of(0), [(1, 1)]);
            assert_eq!(nodes.of(1), [(0, 0)]);
            assert_eq!(nodes.of(2), [(1, 1)]);
            assert_eq!(nodes.of(3), [(0, 0)]);
        }
    }
}

/// A checked run of the maui.cfg text `config` over the SWF text `trace`, both written
/// into a fresh directory (returned, so that it lives as long as the caller needs it),
/// with the options it ran with.
fn checked_run_of(
    config: &str,
    trace: &str,
) -> (
    tempfile::TempDir,
    mauisim_sim::RunOptions,
    mauisim_sim::RunReport,
) {
    let dir = tempfile::tempdir().unwrap();
    let (config_path, trace_path) = (dir.path().join("maui.cfg"), dir.path().join("jobs.swf"));
    std::fs::write(&config_path, config).unwrap();
    std::fs::write(&trace_path, trace).unwrap();
    let options = mauisim_sim::RunOptions {
        config: Some(config_path),
        check: true,
        ..mauisim_sim::RunOptions::new(trace_path)
    };
    let report = mauisim_sim::run(options.clone()).unwrap();
    (dir, options, report)
}

/// Each held job's trace id and the reason, in words.
fn held_reasons(report: &mauisim_sim::RunReport) -> Vec<(u64, String)> {
    let names = &report.workload.names;
    let reason = |b| mauisim_sim::params::limits::describe(b, names);
    report.held.iter().map(|(j, b)| (j.id, reason(b))).collect()
}

/// Each job's trace id and start, in the order of the run's jobs.
fn id_starts(report: &mauisim_sim::RunReport) -> Vec<(u64, i64)> {
    let jobs = report.workload.jobs.iter().zip(&report.outcomes);
    jobs.map(|(j, o)| (j.id, o.start)).collect()
}

/// CLASSCFG DEFAULT.FEATURES: every job of the class requires the features (3.3.1 adds them
/// to the job's own). Four one-processor nodes, n2 and n3 fat; all jobs of 1 processor for
/// 100 s but job 3 (2). Job 1 (class 1) takes the last node, n3 (LASTAVAILABLE); job 2 (class
/// 2, fat) takes the other fat node, n2, though n0 and n1 are idle; job 3 (class 2) waits
/// for both fat nodes until 100; job 4 (class 3, whose feature gpu no node has) is held,
/// with a warning. Streamed, the same jobs.csv.
#[test]
fn a_class_default_features_bind_its_jobs() {
    use mauisim_sim::RunOptions;
    let (dir, options, report) = checked_run_of(
        "NODECFG[n2] FEATURES=fat\nNODECFG[n3] FEATURES=fat\n\
         CLASSCFG[2] DEFAULT.FEATURES=[fat]\nCLASSCFG[3] DEFAULT.FEATURES=gpu\n",
        "; MaxProcs: 4\n\
         1 0 -1 100 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1\n\
         2 0 -1 100 1 -1 -1 1 100 -1 1 1 1 -1 2 -1 -1 -1\n\
         3 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 2 -1 -1 -1\n\
         4 0 -1 100 1 -1 -1 1 100 -1 1 1 1 -1 3 -1 -1 -1\n",
    );
    assert_eq!(id_starts(&report), [(1, 0), (2, 0), (3, 100)]);
    assert_eq!(report.stats.job_nodes.of(0), [(3, 3)]);
    assert_eq!(report.stats.job_nodes.of(1), [(2, 2)]);
    assert_eq!(report.stats.job_nodes.of(2), [(2, 3)]);
    let held: Vec<u64> = report.held.iter().map(|(j, _)| j.id).collect();
    assert_eq!(held, [4]);
    let warned = |w: &[String]| {
        w.iter()
            .any(|w| w.contains("warning: CLASSCFG[3] DEFAULT.FEATURES: no node has feature `gpu`"))
    };
    assert!(
        warned(&report.config.warnings),
        "{:?}",
        report.config.warnings
    );
    let out = dir.path().join("streamed");
    let unchecked = RunOptions {
        check: false,
        ..options.clone()
    };
    let streamed = mauisim_sim::stream::run(&unchecked, &out).unwrap();
    assert!(warned(&streamed.warnings), "{:?}", streamed.warnings);
    let in_memory = dir.path().join("in-memory");
    mauisim_sim::output::write_all(&in_memory, &report).unwrap();
    let jobs = |d: &std::path::Path| std::fs::read_to_string(d.join("jobs.csv")).unwrap();
    assert_eq!(jobs(&out), jobs(&in_memory));
}

/// NODECFG MAXJOB: one four-processor node n0 of MAXJOB 2 and a two-processor n1, jobs of
/// one processor for 100 s submitted together. LASTAVAILABLE takes n1 first: jobs 1 and 2
/// fill it; jobs 3 and 4 go to n0, which then holds its two jobs: job 5 waits until 100
/// though two processors of n0 are idle. Without the limit it starts at once.
#[test]
fn a_node_max_job_holds_back_a_job_it_has_room_for() {
    for (most, fifth_start) in [(2, 100), (0, 0)] {
        let mut spec = MachineSpec::homogeneous(0, 1);
        spec.nodes = vec![
            NodeSpec {
                max_jobs: most,
                ..NodeSpec::with_procs(4)
            },
            NodeSpec::with_procs(2),
        ];
        spec.allocation = AllocationPolicy::LastAvailable;
        let jobs: Vec<Job> = (1..=5).map(|i| Job::synthetic(i, 0, 100, 100, 1)).collect();
        let mut policy = PolicyConfig::with_backfill(BackfillPolicy::FirstFit, 1);
        policy.semantics = Semantics::Maui;
        let engine = EngineOptions {
            pooled: false,
            check: true,
            ..EngineOptions::default()
        };
        let (outcomes, stats) = simulate(&jobs, Arc::new(spec), policy, engine).unwrap();
        let starts: Vec<i64> = outcomes.iter().map(|o| o.start).collect();
        assert_eq!(starts, [0, 0, 0, 0, fifth_start], "MAXJOB {most}");
        assert_eq!(stats.job_nodes.of(0), [(1, 1)]);
        assert_eq!(stats.job_nodes.of(2), [(0, 0)]);
    }
}

/// NODECFG MAXJOBPERUSER, MAXPROCPERUSER and MAXPROC, read from the config (NODECFG[DEFAULT]
/// splits the 8 processors into two nodes of 4) and held as 3.3.1 holds a job starting now,
/// jobs of 100 s submitted together (trace lines: id, processors, user):
/// - MAXJOBPERUSER=2: a user's job counts its processor as its first job there, so user 1's
///   jobs 1 and 2 take a node each and job 3 waits until they end; user 2's job 4 starts.
/// - MAXPROCPERUSER=3: user 1's job 1 of 4 takes 3 + 1; its job 2 of 3 finds 0 + 2 tasks
///   and waits.
/// - MAXPROC=3: job 1 of 5 takes 3 + 2; user 2's job 2 of 2 finds 0 + 1 tasks and waits.
///
/// Without the limit every job starts at once.
#[test]
fn nodes_start_limits_hold_a_job_back_as_3_3_1_counts() {
    let trace = |jobs: &[(u64, u64, u32)]| {
        let mut t = String::from("; MaxProcs: 8\n");
        for &(id, procs, user) in jobs {
            t += &format!("{id} 0 -1 100 {procs} -1 -1 {procs} 100 -1 1 {user} 1 -1 1 -1 -1 -1\n");
        }
        t
    };
    // (the limit, the jobs as (id, processors, user), each job's (id, start)).
    type Case = (&'static str, Vec<(u64, u64, u32)>, Vec<(u64, i64)>);
    let cases: [Case; 3] = [
        (
            "MAXJOBPERUSER=2",
            vec![(1, 1, 1), (2, 1, 1), (3, 1, 1), (4, 1, 2)],
            vec![(1, 0), (2, 0), (3, 100), (4, 0)],
        ),
        (
            "MAXPROCPERUSER=3",
            vec![(1, 4, 1), (2, 3, 1)],
            vec![(1, 0), (2, 100)],
        ),
        (
            "MAXPROC=3",
            vec![(1, 5, 1), (2, 2, 2)],
            vec![(1, 0), (2, 100)],
        ),
    ];
    for (limit, jobs, starts) in cases {
        let config = format!("NODECFG[DEFAULT] PROCS=4 {limit}\n");
        let (_dir, _, report) = checked_run_of(&config, &trace(&jobs));
        assert_eq!(id_starts(&report), starts, "{limit}");
        let notes = &report.config.warnings;
        let expected_notes = usize::from(limit.starts_with("MAXJOBPERUSER"));
        assert_eq!(notes.len(), expected_notes, "{notes:?}");
        assert!(
            notes
                .iter()
                .all(|n| n.ends_with("only while the user runs no other job there")),
            "{notes:?}"
        );
        let (_dir, _, free) = checked_run_of("NODECFG[DEFAULT] PROCS=4\n", &trace(&jobs));
        assert!(
            id_starts(&free).iter().all(|&(_, start)| start == 0),
            "{limit}"
        );
    }
    // A job of 7 processors under MAXPROCPERUSER=3 can never start (3 + 3 on idle nodes):
    // held with the reason, as 3.3.1 leaves it idle for ever; the other job runs.
    let (_dir, _, report) = checked_run_of(
        "NODECFG[DEFAULT] PROCS=4 MAXPROCPERUSER=3\n",
        &trace(&[(1, 7, 1), (2, 2, 1)]),
    );
    assert_eq!(id_starts(&report), [(2, 0)]);
    let held = held_reasons(&report);
    assert_eq!(
        held,
        [(1, "node start limits: NODECFG MAXJOBPERUSER, MAXPROCPERUSER, MAXPROC and MAXPEPERJOB let at most 6 of its 7 processors start together, even on idle nodes; Maui 3.3.1 leaves such a job idle for ever".to_string())]
    );
}

/// NODECFG MAXPEPERJOB as 3.3.1 applies it (MNode.c `MNodeCheckPolicies`): a job starting
/// now takes at most that many tasks of a node (a count above 1, else a share of the node's
/// processors: 1 is the whole node), while a reservation takes the node's room (the
/// nodemaxpe cases of `maui_agreement.rs`). Two nodes of 4 processors, one user's jobs of
/// 100 s submitted together. Under a cap of 2: job 1 (4) starts on 2 + 2; job 2 (3) on 3 of
/// the 2 + 2 left; job 3 (2) finds one processor free and starts at 100; job 4 (5) can never
/// start (2 + 2 on idle nodes) and is held with the reason. Under 1, as without it: jobs 1
/// and 2 take a node each, jobs 3 and 4 start at 100. A job of a DEDICATED QOS is free of it.
#[test]
fn nodes_max_pe_per_job_caps_a_starting_jobs_tasks_per_node() {
    let trace = |jobs: &[(u64, u64)]| {
        let mut t = String::from("; MaxProcs: 8\n");
        for &(id, procs) in jobs {
            t += &format!("{id} 0 -1 100 {procs} -1 -1 {procs} 100 -1 1 1 1 -1 1 -1 -1 -1\n");
        }
        t
    };
    let jobs = [(1, 4), (2, 3), (3, 2), (4, 5)];
    for cap in ["2", "50%", "0.5"] {
        let config = format!("NODECFG[DEFAULT] PROCS=4 MAXPEPERJOB={cap}\n");
        let (_dir, _, report) = checked_run_of(&config, &trace(&jobs));
        assert_eq!(id_starts(&report), [(1, 0), (2, 0), (3, 100)], "{cap}");
        let ran = |k: usize| report.stats.job_nodes.of(k).to_vec();
        assert_eq!(ran(0), [(0, 1)], "{cap}: two tasks on each node");
        assert_eq!(
            held_reasons(&report),
            [(4, "node start limits: NODECFG MAXJOBPERUSER, MAXPROCPERUSER, MAXPROC and MAXPEPERJOB let at most 4 of its 5 processors start together, even on idle nodes; Maui 3.3.1 leaves such a job idle for ever".to_string())],
            "{cap}"
        );
    }
    // 1 is a share, the whole node: as without the attribute, job 4 waits for the others.
    for config in [
        "NODECFG[DEFAULT] PROCS=4 MAXPEPERJOB=1\n",
        "NODECFG[DEFAULT] PROCS=4\n",
    ] {
        let (_dir, _, report) = checked_run_of(config, &trace(&jobs));
        assert_eq!(
            id_starts(&report),
            [(1, 0), (2, 0), (3, 100), (4, 100)],
            "{config}"
        );
        assert!(report.held.is_empty(), "{config}");
    }
    let (_dir, _, report) = checked_run_of(
        "NODECFG[DEFAULT] PROCS=4 MAXPEPERJOB=2\nNODECFG[n1] MAXPEPERJOB=3\n",
        &trace(&[(1, 5)]),
    );
    assert_eq!(id_starts(&report), [(1, 0)], "2 on n0 and 3 on n1");
    // A DEDICATED QOS's job is free of it: job 1 (4) takes n1 whole, job 2 (5) both nodes
    // at 100 (admitted, not held as one that could never start).
    let (_dir, _, report) = checked_run_of(
        "NODECFG[DEFAULT] PROCS=4 MAXPEPERJOB=2\nQOSCFG[d] QFLAGS=DEDICATED\nUSERCFG[DEFAULT] QDEF=d\n",
        &trace(&[(1, 4), (2, 5)]),
    );
    assert_eq!(id_starts(&report), [(1, 0), (2, 100)]);
    assert_eq!(report.stats.job_nodes.of(0), [(1, 1)]);
    assert!(report.held.is_empty());
    for bad in ["-1", "two", "%"] {
        let config = format!("NODECFG[DEFAULT] PROCS=4 MAXPEPERJOB={bad}\n");
        let dir = tempfile::tempdir().unwrap();
        let (config_path, trace_path) = (dir.path().join("maui.cfg"), dir.path().join("jobs.swf"));
        std::fs::write(&config_path, config).unwrap();
        std::fs::write(&trace_path, trace(&jobs)).unwrap();
        let e = mauisim_sim::run(mauisim_sim::RunOptions {
            config: Some(config_path),
            ..mauisim_sim::RunOptions::new(trace_path)
        })
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("maui.cfg:1:")
                && e.contains("MAXPEPERJOB")
                && e.contains(&format!("found `{bad}`")),
            "{e}"
        );
    }
}

/// Maui 3.3.1's partitions end to end: an empty SYSCFG PLIST leaves jobs only the
/// partitions their credentials' lists add, a job no such partition can hold is held with
/// the reason (3.3.1 leaves it idle for ever), the rest run within their partition; and the
/// research reading refuses partition lists.
#[test]
fn partition_lists_hold_the_jobs_no_partition_takes() {
    use mauisim_core::Semantics;
    use mauisim_sim::{run, RunOptions};
    // Group 1's jobs of 2 and 3 processors, and one of group 2.
    let (_dir, options, report) = checked_run_of(
        "NODECFG[n2] PARTITION=fast\nNODECFG[n3] PARTITION=fast\n\
         SYSCFG[base] PLIST=\nGROUPCFG[1] PLIST=fast\n",
        "; MaxProcs: 4\n\
         1 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n\
         2 0 -1 100 3 -1 -1 3 100 -1 1 1 1 -1 1 -1 -1 -1\n\
         3 0 -1 100 1 -1 -1 1 100 -1 1 1 2 -1 1 -1 -1 -1\n\
         4 10 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n",
    );
    let held = held_reasons(&report);
    assert_eq!(
        held,
        [
            (2, "partitions: no partition it may use has nodes that can hold its 3 processors (a job runs within one partition); Maui 3.3.1 leaves such a job idle for ever".to_string()),
            (3, "partitions: its credentials' PLISTs (with SYSCFG's) let it into no partition; Maui 3.3.1 leaves such a job idle for ever".to_string()),
        ]
    );
    // Jobs 1 and 4 take the two fast nodes one after the other.
    assert_eq!(id_starts(&report), [(1, 0), (4, 100)]);
    let on_fast = |i: usize| report.stats.job_nodes.of(i) == [(2, 3)];
    assert!(on_fast(0) && on_fast(1), "{:?}", report.stats.job_nodes);
    let research = run(RunOptions {
        semantics: Semantics::ResearchEasy,
        ..options.clone()
    })
    .unwrap_err()
    .to_string();
    assert!(
        research.contains("maui.cfg:3:14: PLIST/PDEF: partitions are simulated as Maui 3.3.1 schedules them, under --semantics maui or maui-3.3.1 only"),
        "{research}"
    );
    // Without the backfill pass, refused at the line that leaves it out.
    let path = options.config.clone().unwrap();
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("BACKFILLPOLICY NONE\n");
    std::fs::write(&path, text).unwrap();
    let no_backfill = run(options).unwrap_err().to_string();
    assert!(
        no_backfill.contains("nodes in several partitions with BACKFILLPOLICY NONE at "),
        "{no_backfill}"
    );
    assert!(
        no_backfill.contains("maui.cfg:5:1: mauisim does not"),
        "{no_backfill}"
    );
}

proptest! {
    // The corners these reach (ends and claims meeting at one instant) are rare: many
    // small cases.
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    /// Reservations carried between iterations and left laid for the next (Maui's
    /// LASTAVAILABLE), on a grid of few instants where planned ends, reservation starts
    /// and limits coincide often: every job asks one processor per task of one-processor
    /// or two-processor nodes (or of one-processor nodes alone), ends at its limit or before, may use a standing reservation
    /// or not, may preempt (PREEMPTOR QOS) or be preempted (PREEMPTEE), and may be held to
    /// its user's job limits; backfill may try few jobs per window. The schedule
    /// and every iteration's reservations are those of searching every reservation anew
    /// on every node.
    #[test]
    fn carried_reservations_match_searching_anew(
        nodes in prop::collection::vec(1u64..=2, 3..9),
        raw in prop::collection::vec((0i64..6, 1i64..5, 0i64..3, 1u64..=5), 2..30),
        standing in prop::option::of((0i64..20, 1i64..20, 0u8..6)),
        depth in 1u32..4,
        preemption in prop::option::of(any::<bool>()),
        limits in prop::option::of(1u32..3),
        backfill_depth in prop::option::of(1u32..3),
        per_event in any::<bool>(),
        one_processor in any::<bool>(),
    ) {
        let mut spec = MachineSpec::homogeneous(0, 1);
        // Nodes of one processor alone: 3.3.1's merge of start ranges at an instant.
        let procs = |p: u64| if one_processor { 1 } else { p };
        spec.nodes = nodes.into_iter().map(|p| NodeSpec::with_procs(procs(p))).collect();
        spec.allocation = AllocationPolicy::LastAvailable;
        let total: u64 = spec.nodes.iter().map(|n| n.procs).sum();
        let mut names = Names::default();
        let mut jobs: Vec<Job> = raw
            .into_iter()
            .enumerate()
            .map(|(i, (submit, wcl, early, procs))| {
                let runtime = (wcl - early).max(1);
                let procs = procs.min(total);
                let mut j = Job::synthetic(i as u64 + 1, submit * 5, runtime * 5, wcl * 5, procs);
                // Users 0 and 1 (the standing reservation's list may name user 0); a
                // preemptor, a preemptee and a plain job in turn.
                j.creds.set(CredKind::User, names.intern(CredKind::User, ["u0", "u1"][i % 2]));
                let class = ["hi", "lo", "plain"][i % 3];
                j.creds.set(CredKind::Class, names.intern(CredKind::Class, class));
                // A trace's partition number, on a machine no partition divides.
                if i % 4 == 3 {
                    j.creds.partition = CredId(0);
                }
                j
            })
            .collect();
        jobs.sort_by_key(|j| (j.submit, j.id));
        if let Some((start, length, access)) = standing {
            spec.standing = vec![standing_reservation(start * 5, length * 5, false, access)];
        }
        let config = match preemption {
            None => String::new(),
            Some(suspend) => format!(
                "QOSWEIGHT 1\nCLASSCFG[lo] QDEF=low\nCLASSCFG[hi] QDEF=high\n\
                 QOSCFG[low] QFLAGS=PREEMPTEE\nQOSCFG[high] QFLAGS=PREEMPTOR PRIORITY=1000\n\
                 PREEMPTPOLICY {}\n",
                if suspend { "SUSPEND" } else { "REQUEUE" }
            ),
        };
        let mut config = format!("{config}BACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH {depth}\n");
        // A job over its user's soft limit is reserved from now on (3.3.1).
        if let Some(jobs) = limits {
            config += &format!("USERCFG[DEFAULT] MAXJOB={jobs},{}\n", jobs + 2);
        }
        if let Some(d) = backfill_depth {
            config += &format!("BACKFILLDEPTH {d}\n");
        }
        let mut policy = common::resolve(&config, &mut jobs, &mut names);
        policy.semantics = Semantics::Maui;
        shortcuts_match_the_long_way(&jobs, Arc::new(spec), policy, per_event, false)?;
    }
}

/// NODEMAXLOAD and NODECFG MAXLOAD as 3.3.1's simulation applies them (MSim.c
/// `__MSimNodeUpdate`): each iteration's node update marks Busy a node whose jobs hold at
/// least the limit's processors, and it takes no job until one of its jobs ends. One node
/// of 4 processors, iterations every 30 s (RMPOLLINTERVAL) from 0. Job 1 (2 processors,
/// 1000 s) and job 2 (1, 100 s) start at 0; job 3 (1, 50 s) is submitted at 10, but from
/// the update at 30 on the node holds 3 ≥ 2: it starts at 120, the poll after job 2's end;
/// job 4 (1, 50 s), submitted at 130, waits for job 3's end at 170: 180. Without a limit,
/// or where NODECFG[DEFAULT] MAXLOAD (read after NODEMAXLOAD, and replacing it) makes it 3.5
/// or 0.01 (none: only a limit above 0.01 counts), jobs 3 and 4 start at the first poll.
#[test]
fn a_node_at_its_load_limit_takes_no_job_until_one_of_its_jobs_ends() {
    let trace = "; MaxProcs: 4\n\
                 1 0 -1 1000 2 -1 -1 2 1000 -1 1 1 1 -1 1 -1 -1 -1\n\
                 2 0 -1 100 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1\n\
                 3 10 -1 50 1 -1 -1 1 50 -1 1 1 1 -1 1 -1 -1 -1\n\
                 4 130 -1 50 1 -1 -1 1 50 -1 1 1 1 -1 1 -1 -1 -1\n";
    let base = "NODECFG[DEFAULT] PROCS=4\nRMPOLLINTERVAL 00:00:30\n";
    let limited = [(1, 0), (2, 0), (3, 120), (4, 180)];
    let free = [(1, 0), (2, 0), (3, 30), (4, 150)];
    let cases: [(&str, &[(u64, i64)]); 6] = [
        ("", &free),
        ("NODEMAXLOAD 4\n", &free),
        ("NODEMAXLOAD 2\n", &limited),
        ("NODEMAXLOAD 1.5\n", &limited),
        ("NODEMAXLOAD 2\nNODECFG[DEFAULT] MAXLOAD=3.5\n", &free),
        ("NODECFG[DEFAULT] MAXLOAD=0.01\nNODEMAXLOAD 2\n", &free),
    ];
    for (lines, starts) in cases {
        let (_dir, _, report) = checked_run_of(&format!("{base}{lines}"), trace);
        assert_eq!(id_starts(&report), starts, "{lines}");
        assert!(
            report.config.warnings.is_empty(),
            "{lines}: {:?}",
            report.config.warnings
        );
    }
    // The node's own limit above 0.01 before the default's.
    let (_dir, _, report) = checked_run_of(
        &format!("{base}NODEMAXLOAD 3.5\nNODECFG[n0] MAXLOAD=2\n"),
        trace,
    );
    assert_eq!(id_starts(&report), limited);
    // Different PROCSPEEDs scale 3.3.1's load: refused with the reason.
    let dir = tempfile::tempdir().unwrap();
    let (config, jobs) = (dir.path().join("maui.cfg"), dir.path().join("jobs.swf"));
    std::fs::write(
        &config,
        "NODEMAXLOAD 2\nNODECFG[a] PROCS=4 PROCSPEED=1\nNODECFG[b] PROCS=4 PROCSPEED=2\n",
    )
    .unwrap();
    std::fs::write(&jobs, trace).unwrap();
    let options = mauisim_sim::RunOptions {
        config: Some(config),
        ..mauisim_sim::RunOptions::new(jobs)
    };
    let e = mauisim_sim::run(options.clone()).unwrap_err().to_string();
    assert!(
        e.contains("NODEMAXLOAD or MAXLOAD on nodes of different PROCSPEED"),
        "{e}"
    );
    // One speed, beside nodes without one (which turn 3.3.1's scaling off), scales nothing.
    std::fs::write(
        options.config.as_ref().unwrap(),
        "NODEMAXLOAD 2\nNODECFG[a] PROCS=4\nNODECFG[b] PROCS=4 PROCSPEED=2\n",
    )
    .unwrap();
    assert!(mauisim_sim::run(options).is_ok());
}

/// A HOSTLIST window with RESOURCES and no TASKCOUNT holds one task on each listed node, as
/// 3.3.1 lays it (shortmixed-s1: "N[n1]->RE[006] S part.0.0(0) … R: 'PROCS: 2'x1", and a job
/// reserved on n3 × 2 inside the window), not every task the node could hold.
#[test]
fn a_host_list_window_without_task_count_holds_one_task_per_node() {
    use mauisim_sim::nodes;
    use mauisim_sim::params::credentials::Names;
    use mauisim_sim::trace::workload::Machine;
    let machine = Machine {
        nodes: 4,
        procs_per_node: 4,
    };
    let config = mauisim_sim::params::from_str(
        "SRCFG[part] HOSTLIST=n[1-2] RESOURCES=PROCS:2 PERIOD=INFINITY\n\
         SRCFG[whole] HOSTLIST=n3 PERIOD=INFINITY\n",
        "maui.cfg",
    )
    .unwrap()
    .config
    .nodes;
    let built = nodes::build(None, machine, &config, &mut Names::default(), 0).unwrap();
    let held: Vec<(&str, Vec<u32>, Vec<u64>)> = built
        .spec
        .standing
        .iter()
        .map(|r| {
            let procs = (0..r.nodes.len()).map(|i| r.procs_held(i, 4)).collect();
            (r.name.as_str(), r.nodes.clone(), procs)
        })
        .collect();
    assert_eq!(
        held,
        [
            ("part", vec![1, 2], vec![2, 2]),
            ("whole", vec![3], vec![4]),
        ]
    );
}

/// A NODECFG or HOSTLIST naming no node is an error naming where the nodes came from; the
/// hint to give the site's nodes comes only where the nodes were generated.
#[test]
fn names_of_no_node_are_refused_with_a_hint_only_for_generated_nodes() {
    use mauisim_sim::nodes::{self, BaseNode, NodeSource};
    use mauisim_sim::params::credentials::Names;
    use mauisim_sim::params::node_cfg::NodeCfg;
    use mauisim_sim::trace::workload::Machine;
    let config = mauisim_sim::params::from_str("NODECFG[gpu1] PRIORITY=5\n", "maui.cfg")
        .unwrap()
        .config
        .nodes;
    let machine = Machine {
        nodes: 2,
        procs_per_node: 2,
    };
    let file = NodeSource {
        nodes: vec![BaseNode {
            name: "cn1".into(),
            cfg: NodeCfg {
                procs: Some(2),
                ..NodeCfg::default()
            },
        }],
        source: "nodes.trace".into(),
        standing: Vec::new(),
    };
    let refused = |base| {
        nodes::build(base, machine, &config, &mut Names::default(), 0)
            .err()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        refused(Some(file)),
        "maui.cfg:1:1: NODECFG[gpu1]: no node of that name in the node list (nodes.trace)"
    );
    let generated = refused(None);
    assert!(
        generated.starts_with(
            "maui.cfg:1:1: NODECFG[gpu1]: no node of that name in the generated nodes \
             (2 nodes x 2 processors: n0, n1, …)\nhint: "
        ),
        "{generated}"
    );
}

/// A standing window that holds part of a node (RESOURCES=PROCS:2 of 4) leaves a job it
/// keeps out the rest, and one that holds two nodes whole leaves nothing there, under the
/// Maui semantics, in both event orders: A (two processors) starts beside the partial
/// window at 0, B (three) fits nowhere beside it and waits for the whole nodes' window to
/// end at 100.
#[test]
fn a_partial_standing_window_leaves_the_rest_of_its_node() {
    for order in [EventOrder::PerEvent, EventOrder::PerInstant] {
        let mut spec = MachineSpec::homogeneous(3, 4);
        let partial = StandingReservation {
            procs: vec![2],
            ..window_for_ever(vec![0])
        };
        let mut whole = standing_reservation(0, 100, false, 0);
        whole.nodes = vec![1, 2];
        spec.standing = vec![partial, whole];
        let jobs = vec![
            Job::synthetic(1, 0, 50, 50, 2),
            Job::synthetic(2, 0, 50, 50, 3),
        ];
        let (outcomes, stats) = simulate_maui_checked(&jobs, spec, order);
        let starts: Vec<i64> = outcomes.iter().map(|o| o.start).collect();
        assert_eq!(starts, [0, 100], "{order:?}");
        assert_eq!(
            stats.job_nodes.of(0),
            vec![(0, 0)],
            "{order:?}: node 0 only"
        );
    }
}
