//! Job priority (guide 5.1.2, MAUI-SEMANTICS §1).
//!
//! `Prio = SERVWEIGHT · cap(QUEUETIMEWEIGHT · cap(minutes queued, QUEUETIMECAP), SERVCAP)`,
//! floored at 1 unless negative priorities are enabled, capped at 1e9, truncated to an
//! integer. Ties break by submit time, then job id.

use crate::job::QueuedJob;
use crate::Time;
use serde::Serialize;

/// Largest priority Maui assigns (before admin system priority).
pub const MAX_PRIORITY: f64 = 1e9;

/// `cap(x, C)`: caps are upper bounds only, and 0 means "no cap".
fn cap(x: f64, c: f64) -> f64 {
    if c > 0.0 {
        x.min(c)
    } else {
        x
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PriorityWeights {
    /// SERVWEIGHT / SERVICEWEIGHT (component weight).
    pub service: f64,
    /// SERVCAP / SERVICECAP.
    pub service_cap: f64,
    /// QUEUETIMEWEIGHT.
    pub queue_time: f64,
    /// QUEUETIMECAP.
    pub queue_time_cap: f64,
    /// ENABLENEGJOBPRIORITY.
    pub allow_negative: bool,
}

impl Default for PriorityWeights {
    fn default() -> Self {
        PriorityWeights {
            service: 1.0,
            service_cap: 0.0,
            queue_time: 1.0,
            queue_time_cap: 0.0,
            allow_negative: false,
        }
    }
}

impl PriorityWeights {
    /// The job's start priority at `now`.
    pub fn priority(&self, job: &QueuedJob, now: Time) -> i64 {
        let minutes = ((now - job.submit).max(0)) as f64 / 60.0;
        let service = cap(
            self.queue_time * cap(minutes, self.queue_time_cap),
            self.service_cap,
        );
        let mut prio = self.service * service;
        if !self.allow_negative {
            prio = prio.max(1.0);
        }
        prio.min(MAX_PRIORITY) as i64
    }

    /// True when priority never decreases with time queued and depends on nothing else,
    /// so the `(submit, id)` order *is* the priority order and sorting can be skipped.
    pub fn is_queue_order(&self) -> bool {
        // A decreasing priority is clamped to the constant 1 unless negatives are allowed.
        !self.allow_negative || self.service * self.queue_time >= 0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::JobIdx;

    fn job(submit: Time) -> QueuedJob {
        QueuedJob::new(JobIdx(0), 1, submit, 1, 60)
    }

    #[test]
    fn default_priority_is_whole_minutes_queued_floored_at_one() {
        let w = PriorityWeights::default();
        assert_eq!(w.priority(&job(0), 0), 1);
        assert_eq!(w.priority(&job(0), 119), 1);
        assert_eq!(w.priority(&job(0), 120), 2);
        assert_eq!(w.priority(&job(0), 3600), 60);
    }

    #[test]
    fn weights_caps_and_clamps_apply_in_order() {
        let w = PriorityWeights {
            service: 10.0,
            service_cap: 500.0,
            queue_time: 2.0,
            queue_time_cap: 30.0,
            allow_negative: false,
        };
        // 100 min → capped to 30 → ×2 = 60 → ×10 = 600
        assert_eq!(w.priority(&job(0), 6000), 600);
        let w = PriorityWeights {
            service_cap: 50.0,
            ..w
        };
        assert_eq!(w.priority(&job(0), 6000), 500);
        let neg = PriorityWeights {
            queue_time: -1.0,
            allow_negative: true,
            ..PriorityWeights::default()
        };
        assert_eq!(neg.priority(&job(0), 600), -10);
        let clamped = PriorityWeights {
            allow_negative: false,
            ..neg
        };
        assert_eq!(clamped.priority(&job(0), 600), 1);
        let huge = PriorityWeights {
            queue_time: 1e12,
            ..PriorityWeights::default()
        };
        assert_eq!(huge.priority(&job(0), 60), 1_000_000_000);
    }
}
