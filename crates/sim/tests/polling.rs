//! Maui's polled iterations (RMPOLLINTERVAL): a job that runs past its wallclock limit. Maui
//! checks limits at each poll, cancels a job only once it has run strictly longer than its
//! limit (plus JOBMAXOVERRUN), frees its nodes at the poll after, and meanwhile plans it to
//! end at every poll, so a reservation may begin on its nodes at once. Event-driven, and
//! under the research reading, a job is stopped exactly at its limit. Found on the first
//! 5,000 jobs of KTH-SP2 against the real Maui 3.3.1 (reports/MAUI-AGREEMENT.md).

use mauisim_core::{PolicyConfig, Semantics};
use mauisim_sim::engine::{machine_of, simulate, EngineOptions, EventOrder};
use mauisim_sim::trace::workload::Job;

/// On 4 one-processor nodes, polls every 30 s from 0: A (4 processors, limit 60 s) runs
/// 120 s; B (4 processors, 60 s) waits for A's nodes, and C (2 processors, 60 s, at 50 s)
/// for B. Under Maui with polls, A reaches its limit at 60 but is cancelled only at 90 (60
/// is not past it) and frees its nodes at 120, where B starts; C follows at 180. Stopped
/// at the limit (research reading, or no polls), A ends at 60, B runs 60-120, C from 120.
#[test]
fn maui_cancels_a_job_past_its_limit_at_the_poll_after_and_frees_it_one_poll_later() {
    let jobs = vec![
        Job::synthetic(1, 0, 120, 60, 4),
        Job::synthetic(2, 0, 60, 60, 4),
        Job::synthetic(3, 50, 60, 60, 2),
    ];
    let run = |semantics, poll| {
        let policy = PolicyConfig {
            semantics,
            ..PolicyConfig::default()
        };
        let options = EngineOptions {
            order: EventOrder::PerInstant,
            poll_interval: poll,
            max_overrun: Some(0),
            check: true,
            ..EngineOptions::default()
        };
        let (outcomes, _) = simulate(&jobs, machine_of(4), policy, options).unwrap();
        outcomes
            .iter()
            .map(|o| (o.start, o.end, o.cancelled))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        run(Semantics::Maui, 30),
        [(0, 120, true), (120, 180, false), (180, 240, false)]
    );
    assert_eq!(
        run(Semantics::ResearchEasy, 30),
        [(0, 60, true), (60, 120, false), (120, 180, false)]
    );
    assert_eq!(
        run(Semantics::Maui, 0),
        [(0, 60, true), (60, 120, false), (120, 180, false)]
    );
}
