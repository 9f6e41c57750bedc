//! The limits a job of one set of credentials is held to, looked up once.
//!
//! Which limit applies to a credential (the job's QOS override, the credential's own
//! value, its kind's DEFAULT) depends on the job's credentials and on tables that never
//! change during a run. A selection judges every queued job at every iteration, so the
//! lookups are made once per set of credentials, as a [`Plan`]: the checks in the order
//! the limits are tested, each a usage, an amount and a limit to compare.

use super::{lookup, pair_limits, qos_limits, Test, Throttle};
use crate::cred::{CredKind, JobCreds};
use crate::cred_settings::CredTables;
use crate::limits::{Blocked, Level, Limits, Metric, Owner, Scope, Source};

/// One limit of a plan: the owner's usage of `metric` plus the job's amount may not pass
/// `limit` (never 0, which is no limit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Check {
    pub owner: Owner,
    pub metric: Metric,
    pub limit: u64,
    pub source: Source,
}

/// The checks of one set of credentials: per level, the active limits (the credentials'
/// in kind order, the system's, the per-credential pairs'), then the idle ones (the
/// credentials', the system's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Plan {
    pub creds: JobCreds,
    checks: Vec<Check>,
    /// Where hard active, hard idle, soft active and soft idle end in `checks`.
    ends: [u32; 4],
}

impl Plan {
    pub fn active(&self, level: Level) -> &[Check] {
        self.part(level, 0)
    }

    pub fn idle(&self, level: Level) -> &[Check] {
        self.part(level, 1)
    }

    fn part(&self, level: Level, scope: usize) -> &[Check] {
        let i = 2 * (level == Level::Soft) as usize + scope;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.checks[start as usize..self.ends[i] as usize]
    }
}

/// The first check of `checks` (of limits at `scope` and `level`) that `usage` of its owner
/// plus the job's `amount` breaks.
pub(super) fn first_break(
    checks: &[Check],
    scope: Scope,
    level: Level,
    usage: impl Fn(Owner, Metric) -> u64,
    amount: impl Fn(Metric) -> u64,
) -> Option<Blocked> {
    for c in checks {
        let (used, asked) = (usage(c.owner, c.metric), amount(c.metric));
        if used.saturating_add(asked) > c.limit {
            let at = Test::new(scope, level, c.owner, c.source);
            return at.breaks(c.metric, used, asked, c.limit);
        }
    }
    None
}

impl Throttle {
    /// The plan of a job with `creds`, made from the limit tables.
    pub(super) fn plan_for(&self, tables: &CredTables, system: &Limits, creds: &JobCreds) -> Plan {
        let mut checks = Vec::new();
        let mut ends = [0; 4];
        for (i, level) in [Level::Hard, Level::Soft].into_iter().enumerate() {
            self.plan_active(tables, system, creds, level, &mut checks);
            ends[2 * i] = checks.len() as u32;
            self.plan_idle(tables, system, creds, level, &mut checks);
            ends[2 * i + 1] = checks.len() as u32;
        }
        Plan {
            creds: *creds,
            checks,
            ends,
        }
    }

    fn plan_active(
        &self,
        tables: &CredTables,
        system: &Limits,
        creds: &JobCreds,
        level: Level,
        out: &mut Vec<Check>,
    ) {
        self.plan_creds(tables, creds, Scope::Active, level, out);
        for metric in Metric::ALL {
            if let Some(limit) = system.active[metric as usize] {
                push(out, Owner::System, metric, limit.at(level), Source::Own);
            }
        }
        if self.has_pairs {
            for (owner, p, source) in pair_limits(tables, creds) {
                push(out, owner, p.metric, p.limit.at(level), source);
            }
        }
    }

    fn plan_idle(
        &self,
        tables: &CredTables,
        system: &Limits,
        creds: &JobCreds,
        level: Level,
        out: &mut Vec<Check>,
    ) {
        if !self.has_idle {
            return;
        }
        self.plan_creds(tables, creds, Scope::Idle, level, out);
        for metric in Metric::ALL {
            if let Some(limit) = system.idle[metric as usize] {
                push(out, Owner::System, metric, limit.at(level), Source::Own);
            }
        }
    }

    /// The limits at `scope` of the job's own credentials, kind by kind, metric by metric.
    fn plan_creds(
        &self,
        tables: &CredTables,
        creds: &JobCreds,
        scope: Scope,
        level: Level,
        out: &mut Vec<Check>,
    ) {
        let qos = qos_limits(tables, creds);
        let set = match scope {
            Scope::Idle => &self.idle_set,
            _ => &self.active_set,
        };
        for kind in CredKind::ALL {
            let id = creds.get(kind);
            if id.get().is_none() {
                continue;
            }
            let set = &set[kind.index()];
            for metric in Metric::ALL.into_iter().filter(|m| set[*m as usize]) {
                let Some((limit, source)) = lookup(tables, qos, kind, id, scope, metric, level)
                else {
                    continue;
                };
                if source == Source::Default && self.skips_default_idle(tables, kind, id, scope) {
                    continue;
                }
                push(out, Owner::Cred(kind, id), metric, limit, source);
            }
        }
    }
}

fn push(out: &mut Vec<Check>, owner: Owner, metric: Metric, limit: u64, source: Source) {
    if limit > 0 {
        out.push(Check {
            owner,
            metric,
            limit,
            source,
        });
    }
}
