//! When a job Maui 3.3.1's hard selection blocks may be parked.
//!
//! Parking ([`super::parking`]) rests on a block that stands while the usage the job was
//! judged against stays. 3.3.1's hard selection judges a job against the running jobs
//! ranked above it only, so under it the block also rests on the order: a running job
//! falling below the job would take its usage out of the count. A job is parked here only
//! when it ranks below every running job of each credential it was judged against (then it
//! was judged against their whole usage), and only where that stays so while it is parked:
//!
//! - a running job's priority never falls ([`may_park`]: the weights of what grows with
//!   time are nonnegative, for every QOS too, and fairshare is not in it);
//! - a parked job's priority is held below the running jobs' lowest: blocked in every
//!   iteration, its queue time restarts in each, so it has either the queue time its last
//!   selection froze (3.3.1's `EffQueueDuration`), and with it a priority that stands
//!   still, or the time since the last iteration. For the latter the job is parked with
//!   the longest such gap that keeps it below ([`tolerance`]); an iteration after a longer
//!   gap brings it back.
//!
//! The set of running jobs does not change while a job is parked: a start or an end of one
//! of them moves the usage, which brings it back.

use crate::cred::CredKind;
use crate::cred_settings::CredTables;
use crate::fairshare::{Fairshare, FsAt};
use crate::job::QueuedJob;
use crate::policy::PolicyConfig;
use crate::priority::Sub;
use crate::throttle::{Throttle, WaitsOn};
use crate::Time;

/// The longest gap between iterations a parked job's priority is bounded for: an
/// iteration after a longer one brings it back.
const LONGEST_GAP: Time = 86_400;

/// A place in the hard selection's order: (−priority, submit, id), the running jobs' and
/// the idle ones' merged.
pub(super) type RankKey = (i64, Time, u64);

/// Whether the policy keeps the order between a parked job and the running jobs it was
/// judged against (see the module's notes); `fairshare_static` says that fairshare does
/// not weigh in the priority.
pub(super) fn may_park(
    policy: &PolicyConfig,
    fairshare: &Fairshare,
    fairshare_static: bool,
) -> bool {
    let p = &policy.priority;
    let w = |s: Sub| p.weight[s as usize];
    let tables: &CredTables = &policy.creds;
    let qos = CredKind::Qos.index();
    let qos_weights_keep_growing = tables.settings[qos]
        .iter()
        .chain([&tables.defaults[qos]])
        .all(|s| w(Sub::QueueTime) + s.qt_weight >= 0.0 && w(Sub::XFactor) + s.xf_weight >= 0.0);
    !p.reject_negative
        && !fairshare.has_caps()
        && fairshare_static
        && p.accrual.restarts_on_limits()
        && p.system_queue_time
        && p.grows_with_time()
        && w(Sub::QueueTime) >= 0.0
        && w(Sub::XFactor) >= 0.0
        && qos_weights_keep_growing
}

/// How `job`, just found blocked (its queue time restarted, its SPViolation set), may
/// stay parked below `bar` (the lowest-ranked running job it was judged against):
/// `Some(None)` for good (its queue time is the one its last selection froze, so its
/// priority stands still), `Some(Some(gap))` while no two iterations are more than `gap`
/// apart (its queue time is at most that gap), `None` if not even at one instant.
pub(super) fn tolerance(
    policy: &PolicyConfig,
    job: &QueuedJob,
    now: Time,
    bar: Option<RankKey>,
) -> Option<Option<Time>> {
    let Some(bar) = bar else {
        // No running job to fall below it.
        return Some(None);
    };
    let p = &policy.priority;
    let terms = job.priority_terms.unwrap_or_else(|| p.job_terms(job));
    let priority_after = |gap: Time| p.priority_from_terms(job, &terms, now + gap, None::<&FsAt>);
    let below = |priority: i64| bar < (-priority, job.submit, job.id);
    let at_once = priority_after(0);
    if !below(at_once) {
        return None;
    }
    if matches!(job.selected_queued, Some(d) if d > 0) {
        return Some(None);
    }
    let at_longest = priority_after(LONGEST_GAP);
    if below(at_longest) {
        return Some(Some(LONGEST_GAP));
    }
    // The priority grows with the gap, about linearly where no cap or target bends it:
    // the guess is checked, and searched from where it is wrong.
    let highest_below = if below(-bar.0) { -bar.0 } else { -bar.0 - 1 };
    let share = (highest_below - at_once) as f64 / (at_longest - at_once) as f64;
    let guess = (share * LONGEST_GAP as f64) as Time;
    let ok = |gap: Time| below(priority_after(gap));
    Some(Some(last_true(ok, 0, LONGEST_GAP, guess)))
}

/// The last `x` in `[fits, breaks)` for which `ok` holds, where `ok` holds up to some
/// point and not after it, `ok(fits)` and not `ok(breaks)`: galloping from `guess`, so
/// that a guess one short of the answer costs two calls.
pub(super) fn last_true(
    ok: impl Fn(Time) -> bool,
    mut fits: Time,
    mut breaks: Time,
    guess: Time,
) -> Time {
    if breaks - fits <= 1 {
        return fits;
    }
    let guess = guess.clamp(fits + 1, breaks - 1);
    let mut step = 1;
    if ok(guess) {
        fits = guess;
        while fits + step < breaks {
            if !ok(fits + step) {
                breaks = fits + step;
                break;
            }
            fits += step;
            step *= 2;
        }
    } else {
        breaks = guess;
        while breaks - step > fits {
            if ok(breaks - step) {
                fits = breaks - step;
                break;
            }
            breaks -= step;
            step *= 2;
        }
    }
    while breaks - fits > 1 {
        let mid = fits + (breaks - fits) / 2;
        if ok(mid) {
            fits = mid;
        } else {
            breaks = mid;
        }
    }
    fits
}

/// The lowest-ranked running job of each credential of a kind with active limits, and of
/// all of them, in one selection's order.
#[derive(Debug, Clone, Default)]
pub(super) struct LowestRunning {
    built: bool,
    per_kind: [Vec<Option<RankKey>>; 5],
    touched: Vec<(usize, usize)>,
    system: Option<RankKey>,
}

impl LowestRunning {
    /// Forgets the last selection's.
    pub(super) fn clear(&mut self) {
        for &(kind, id) in &self.touched {
            self.per_kind[kind][id] = None;
        }
        self.touched.clear();
        self.system = None;
        self.built = false;
    }

    /// From `running` (sorted by key; the last field indexes `jobs`), once per selection.
    pub(super) fn build_once(
        &mut self,
        running: &[(i64, Time, u64, usize)],
        jobs: &[QueuedJob],
        throttle: &Throttle,
    ) {
        if self.built {
            return;
        }
        self.built = true;
        let limited: Vec<CredKind> = CredKind::ALL
            .into_iter()
            .filter(|&k| throttle.limits_active(k))
            .collect();
        for &(p, submit, id, k) in running {
            let job = &jobs[k];
            for &kind in &limited {
                let Some(cred) = job.creds.get(kind).get() else {
                    continue;
                };
                let slots = &mut self.per_kind[kind.index()];
                if slots.len() <= cred {
                    slots.resize(cred + 1, None);
                }
                if slots[cred].is_none() {
                    self.touched.push((kind.index(), cred));
                }
                // Sorted ascending: the last one written is the lowest ranked.
                slots[cred] = Some((p, submit, id));
            }
            self.system = Some((p, submit, id));
        }
    }

    /// The lowest-ranked running job of the usages `on` names (of `job`'s credentials,
    /// and the system's), `None` if none runs.
    pub(super) fn bar(&self, job: &QueuedJob, on: WaitsOn) -> Option<RankKey> {
        let creds = on
            .creds(job)
            .filter_map(|(kind, id)| self.per_kind[kind].get(id).copied().flatten());
        let system = self.system.filter(|_| on.system());
        creds.chain(system).max()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The gallop from any guess finds what a scan finds.
        #[test]
        fn the_gallop_finds_the_last_gap_that_fits(
            last in 0i64..5000,
            span in 1i64..5000,
            guess in -10i64..10_000,
        ) {
            let breaks = last + span;
            let calls = std::cell::Cell::new(0);
            let ok = |x: Time| {
                calls.set(calls.get() + 1);
                x <= last
            };
            proptest::prop_assert_eq!(last_true(ok, 0, breaks.max(last + 1), guess), last);
            if guess == last && span > 1 {
                proptest::prop_assert_eq!(calls.get(), 2);
            }
        }
    }
}
