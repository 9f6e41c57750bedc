//! What `--check` found wrong: the rule broken, and where (job, node), precisely enough to
//! start debugging from.

use crate::job::JobIdx;
use std::fmt;

/// The invariants `--check` verifies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// A node's processors, memory, swap or disk are claimed beyond its capacity (or a
    /// SINGLEJOB node holds two jobs).
    NodeOverAllocated,
    /// A job started before it was submitted.
    StartedBeforeSubmit,
    /// A job started a second time.
    StartedTwice,
    /// A job ran past its wallclock limit plus the overrun allowance.
    RanPastLimit,
    /// The active usage per credential differs from a recount of the running jobs.
    UsageRecount,
    /// A started job's credential is over a hard throttling limit.
    LimitBroken,
    /// A credential kind's fairshare usage does not add up to the system total.
    FairshareTotals,
    /// With exact estimates and a stable priority order, a reserved job started (or was
    /// reserved) later than it had been promised.
    ReservationBroken,
}

impl Rule {
    pub fn name(self) -> &'static str {
        match self {
            Rule::NodeOverAllocated => "node over-allocated",
            Rule::StartedBeforeSubmit => "started before submission",
            Rule::StartedTwice => "started twice",
            Rule::RanPastLimit => "ran past its limit",
            Rule::UsageRecount => "usage differs from a recount",
            Rule::LimitBroken => "throttling limit broken",
            Rule::FairshareTotals => "fairshare totals do not add up",
            Rule::ReservationBroken => "reservation not kept",
        }
    }
}

/// One broken invariant.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    pub time: crate::Time,
    pub rule: Rule,
    pub job: Option<JobIdx>,
    /// Node index.
    pub node: Option<usize>,
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at {}: {}", self.time, self.rule.name())?;
        if let Some(j) = self.job {
            write!(f, ", job index {}", j.0)?;
        }
        if let Some(n) = self.node {
            write!(f, ", node index {n}")?;
        }
        write!(f, ": {}", self.detail)
    }
}
