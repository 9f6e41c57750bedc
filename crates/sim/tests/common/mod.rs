//! Shared setup of the end-to-end policy tests: a workload of hand-written jobs with
//! credentials, a config read from text, runs in both trigger modes.
#![allow(dead_code)] // each test file uses its own subset

use mauisim_core::{CredKind, PolicyConfig, Semantics};
use mauisim_sim::engine::{
    machine_of, simulate, simulate_until, EngineOptions, EventOrder, Outcome, RunStats, Snapshot,
};
use mauisim_sim::params;
use mauisim_sim::params::credentials::{Names, Resolver};
use mauisim_sim::trace::accounts::{assign_all, AccountFrom};
use mauisim_sim::trace::workload::{Counts, Job};

pub const HOUR: i64 = 3600;

/// A job: (id, submit, runtime = WCL, procs, user, group, class).
pub type Spec<'a> = (u64, i64, i64, u64, &'a str, &'a str, &'a str);

pub struct World {
    pub jobs: Vec<Job>,
    pub names: Names,
    pub policy: PolicyConfig,
}

pub fn world(config: &str, specs: &[Spec]) -> World {
    let mut names = Names::default();
    let mut jobs: Vec<Job> = specs
        .iter()
        .map(|&(id, submit, run, procs, user, group, class)| {
            let mut job = Job::synthetic(id, submit, run, run, procs);
            for (kind, name) in [
                (CredKind::User, user),
                (CredKind::Group, group),
                (CredKind::Class, class),
            ] {
                if !name.is_empty() {
                    job.creds.set(kind, names.intern(kind, name));
                }
            }
            job
        })
        .collect();
    let policy = resolve(config, &mut jobs, &mut names);
    World {
        jobs,
        names,
        policy,
    }
}

/// Reads `config` and gives `jobs` (whose trace credentials are interned in `names`) their
/// accounts and QOS: the policy to simulate them with, under the research-EASY reading
/// (both trigger modes agree on it, which `run` asserts). The tests of the Maui
/// semantics set `policy.semantics` themselves.
pub fn resolve(config: &str, jobs: &mut [Job], names: &mut Names) -> PolicyConfig {
    let loaded = params::from_str(config, "maui.cfg").expect("config reads");
    let resolver = Resolver::new(&loaded.config.credentials, names);
    assign_all(
        jobs,
        names,
        &resolver,
        AccountFrom::None,
        &mut Counts::new(),
    );
    let mut policy = loaded.config.policy.clone();
    policy.creds = resolver.tables;
    policy.semantics = Semantics::ResearchEasy;
    policy
}

pub fn options(order: EventOrder) -> EngineOptions {
    EngineOptions {
        order,
        poll_interval: 0,
        max_overrun: Some(0),
        ..EngineOptions::default()
    }
}

/// Runs in both trigger modes, which must agree on every start; returns per-instant's.
pub fn run(w: &World, procs: u64) -> (Vec<Outcome>, RunStats) {
    let a = simulate(
        &w.jobs,
        machine_of(procs),
        w.policy.clone(),
        options(EventOrder::PerInstant),
    )
    .unwrap();
    let b = simulate(
        &w.jobs,
        machine_of(procs),
        w.policy.clone(),
        options(EventOrder::PerEvent),
    )
    .unwrap();
    assert_eq!(starts(&a.0), starts(&b.0), "the trigger modes disagree");
    a
}

pub fn starts(outcomes: &[Outcome]) -> Vec<i64> {
    outcomes.iter().map(|o| o.start).collect()
}

pub fn snapshot(w: &World, procs: u64, at: i64) -> Snapshot {
    simulate_until(
        &w.jobs,
        machine_of(procs),
        w.policy.clone(),
        options(EventOrder::PerInstant),
        at,
    )
}

/// Jobs from random `(submit, runtime, slack, procs)` draws: WCL is runtime plus slack, ids
/// in draw order, sorted by submission as a trace is.
pub fn synthetic_jobs(raw: Vec<(i64, i64, i64, u64)>) -> Vec<Job> {
    let mut jobs: Vec<Job> = raw
        .into_iter()
        .enumerate()
        .map(|(i, (submit, runtime, slack, procs))| {
            Job::synthetic(i as u64 + 1, submit, runtime, runtime + slack, procs)
        })
        .collect();
    jobs.sort_by_key(|j| (j.submit, j.id));
    jobs
}
