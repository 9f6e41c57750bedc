//! Fairshare (guide 6.3, MAUI-SEMANTICS §2): usage per credential in FSINTERVAL windows,
//! the decayed share of what the system delivered, the priority deltas of FSTARGET and
//! the feasibility caps.
//!
//! ```text
//! E_X   = U_X[0] + Σ_{i=1}^{FSDEPTH−1} U_X[i] · FSDECAY^i
//! share = 100 · E_X / E_total                       (percent of delivered usage)
//! delta = T − share   (or 1 − share/T with FSPOLICY …%), floored (+) or ceilinged (−)
//! ```
//!
//! Usage accrues exactly between events: each credential keeps the rate its running jobs
//! charge (processors, PEs or utilized processors per second), so its usage at any
//! instant is `current + rate · (now − since)` without a per-iteration update. Windows roll
//! at multiples of FSINTERVAL on the trace clock.

use crate::cred::{CredId, CredKind, JobCreds};
use crate::cred_settings::{CredTables, FsTarget, TargetKind};
use crate::job::{JobIdx, QueuedJob};
use crate::limits::{Blocked, Level, Metric, Owner, Scope, Source};
use crate::Time;
use serde::Serialize;
use std::collections::HashMap;

/// Most fairshare windows Maui keeps (FSDEPTH's upper bound).
pub const MAX_DEPTH: usize = 24;

/// FSPOLICY: what a running job charges per second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum FsMetric {
    /// Dedicated processors.
    DedicatedPs,
    /// Dedicated processor equivalents.
    DedicatedPes,
    /// Processors actually busy (the trace's average CPU time over the runtime).
    UtilizedPs,
}

/// FSPOLICY, FSINTERVAL, FSDEPTH and FSDECAY, validated; plus the usage history the run
/// starts from (FS files of a real site).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FsConfig {
    /// `None`: FSPOLICY NONE, fairshare off.
    pub metric: Option<FsMetric>,
    /// FSPOLICY ends in `%`: the delta is `1 − share/target`.
    pub ratio: bool,
    /// FSINTERVAL, seconds.
    pub interval: Time,
    /// FSDEPTH: windows counted, 1 ..= [`MAX_DEPTH`].
    pub depth: usize,
    /// FSDECAY, in (0, 1].
    pub decay: f64,
    /// Closed windows before the run starts, most recent first.
    #[serde(skip)]
    pub history: Vec<FsWindow>,
}

impl Default for FsConfig {
    /// DECISIONS.md: FSPOLICY NONE, FSINTERVAL 12:00:00, FSDEPTH 8, FSDECAY 1.0.
    fn default() -> Self {
        FsConfig {
            metric: None,
            ratio: false,
            interval: 12 * 3600,
            depth: 8,
            decay: 1.0,
            history: Vec::new(),
        }
    }
}

/// The usage of one window: per credential kind, indexed by [`CredId`], and the total.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FsWindow {
    pub start: Time,
    pub end: Time,
    pub usage: [Vec<f64>; 5],
    pub total: f64,
}

/// The usage record of one credential (or of the whole system).
#[derive(Debug, Clone, Default, PartialEq)]
struct Account {
    /// Running jobs charging this account: at zero the rate is reset to exactly 0, so
    /// floating-point residue never accrues.
    running: u32,
    rate: f64,
    /// Usage of the current window up to `since`.
    current: f64,
    since: Time,
    /// Closed windows, most recent first (window 1, 2, …), at most FSDEPTH − 1.
    closed: Vec<f64>,
    /// `Σ closed[i] · FSDECAY^(i+1)`.
    past: f64,
}

impl Account {
    fn current_at(&self, now: Time) -> f64 {
        self.current + self.rate * (now - self.since) as f64
    }

    fn effective(&self, now: Time) -> f64 {
        self.current_at(now) + self.past
    }

    fn bring_to(&mut self, now: Time) {
        self.current = self.current_at(now);
        self.since = now;
    }

    fn charge(&mut self, now: Time, rate: f64) {
        self.bring_to(now);
        self.running += 1;
        self.rate += rate;
    }

    fn discharge(&mut self, now: Time, rate: f64) {
        self.bring_to(now);
        self.running -= 1;
        self.rate = if self.running == 0 {
            0.0
        } else {
            self.rate - rate
        };
    }

    /// Takes back a job's usage at `rate` over `[from, to)` that it was charged for but is
    /// not to count: the part since `window_start` from the current window, the earlier
    /// parts from the closed windows they were rolled into (each `interval` long).
    fn take_back(
        &mut self,
        rate: f64,
        (from, to): (Time, Time),
        (window_start, interval): (Time, Time),
        weights: &[f64],
    ) {
        let in_current = (to - from.max(window_start)).max(0);
        self.current = (self.current - rate * in_current as f64).max(0.0);
        if from >= window_start {
            return;
        }
        let mut end = window_start;
        for closed in &mut self.closed {
            if from >= end {
                break;
            }
            let start = end - interval;
            let seconds = (end.min(to) - from.max(start)).max(0);
            *closed = (*closed - rate * seconds as f64).max(0.0);
            end = start;
        }
        self.past = decayed(&self.closed, weights);
    }

    fn is_idle(&self) -> bool {
        self.rate == 0.0 && self.current == 0.0 && self.past == 0.0
    }

    /// Closes the current window at `at`; returns its usage.
    fn roll(&mut self, at: Time, weights: &[f64]) -> f64 {
        self.bring_to(at);
        let closed = self.current;
        self.current = 0.0;
        if weights.len() > 1 {
            self.closed.insert(0, closed);
            self.closed.truncate(weights.len() - 1);
        }
        self.past = decayed(&self.closed, weights);
        closed
    }
}

/// `Σ closed[i] · weights[i + 1]`, oldest last.
fn decayed(closed: &[f64], weights: &[f64]) -> f64 {
    closed.iter().zip(&weights[1..]).map(|(u, w)| u * w).sum()
}

/// A source of fairshare priority deltas, one per credential.
pub trait FsDeltaSource {
    fn fs_delta(&self, kind: CredKind, id: CredId) -> f64;
}

/// Fixed deltas per credential (tests, reports).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FsDeltas {
    pub per_kind: [Vec<f64>; 5],
}

impl FsDeltaSource for FsDeltas {
    fn fs_delta(&self, kind: CredKind, id: CredId) -> f64 {
        id.get()
            .and_then(|i| self.per_kind[kind.index()].get(i))
            .copied()
            .unwrap_or(0.0)
    }
}

/// One credential's fairshare standing at an instant (`diagnose -f`).
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    /// Usage per window, current first (FSDEPTH values).
    pub windows: Vec<f64>,
    /// The decay-weighted usage E.
    pub effective: f64,
    /// Percent of the delivered total (0 when nothing was delivered).
    pub share: f64,
    pub target: Option<(FsTarget, Source)>,
    /// The priority factor of its FS subcomponent.
    pub delta: f64,
}

/// Fairshare usage and targets.
#[derive(Debug, Clone)]
pub struct Fairshare {
    config: FsConfig,
    /// `FSDECAY^i` for window i < FSDEPTH.
    weights: Vec<f64>,
    window_start: Time,
    next_roll: Time,
    accounts: [Vec<Account>; 5],
    /// Per kind, the usage of jobs without a credential of that kind: with it, each kind's
    /// accounts add up to the total (`verify`).
    unowned: [Account; 5],
    total: Account,
    /// The highest total rate so far: the scale of the rounding `verify` tolerates.
    peak_rate: f64,
    targets: [Vec<Option<FsTarget>>; 5],
    default_targets: [Option<FsTarget>; 5],
    has_caps: bool,
    running: HashMap<JobIdx, (JobCreds, f64)>,
    /// Closed windows, kept when asked for (FS files).
    recorded: Option<Vec<FsWindow>>,
}

impl Fairshare {
    /// Fairshare from `origin` on, with the config's history as the closed windows.
    pub(crate) fn new(config: &FsConfig, creds: &CredTables, origin: Time) -> Fairshare {
        let depth = config.depth.clamp(1, MAX_DEPTH);
        let weights: Vec<f64> = (0..depth).map(|i| config.decay.powi(i as i32)).collect();
        let interval = config.interval.max(1);
        let window_start = origin.div_euclid(interval) * interval;
        let targets = CredKind::ALL.map(|kind| {
            creds.settings[kind.index()]
                .iter()
                .map(|s| s.fs_target)
                .collect()
        });
        let default_targets = CredKind::ALL.map(|kind| creds.default_of(kind).fs_target);
        let has_caps = config.metric.is_some()
            && targets
                .iter()
                .flatten()
                .chain(&default_targets)
                .flatten()
                .any(|t| t.kind.is_cap());
        let mut fs = Fairshare {
            // The history is read into the accounts below, not kept twice.
            config: FsConfig {
                metric: config.metric,
                ratio: config.ratio,
                interval,
                depth,
                decay: config.decay,
                history: Vec::new(),
            },
            weights,
            window_start,
            next_roll: window_start + interval,
            accounts: Default::default(),
            unowned: Default::default(),
            total: Account::default(),
            peak_rate: 0.0,
            targets,
            default_targets,
            has_caps,
            running: HashMap::new(),
            recorded: None,
        };
        fs.total.since = origin;
        for account in &mut fs.unowned {
            account.since = origin;
        }
        for (age, window) in config.history.iter().enumerate().take(depth - 1) {
            for kind in CredKind::ALL {
                for (i, &u) in window.usage[kind.index()].iter().enumerate() {
                    if u != 0.0 {
                        let account = fs.account_mut(kind, CredId(i as u32), origin);
                        account.closed.resize(age + 1, 0.0);
                        account.closed[age] = u;
                    }
                }
            }
            fs.total.closed.push(window.total);
        }
        let weights = &fs.weights;
        for account in fs.accounts.iter_mut().flatten().chain([&mut fs.total]) {
            account.past = decayed(&account.closed, weights);
        }
        fs
    }

    pub(crate) fn enabled(&self) -> bool {
        self.config.metric.is_some()
    }

    pub fn config(&self) -> &FsConfig {
        &self.config
    }

    /// Whether any FSTARGET is a cap, so that jobs must be checked against it.
    pub fn has_caps(&self) -> bool {
        self.has_caps
    }

    /// `FSDECAY^i` for each counted window.
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }

    /// Start of the current window.
    pub fn window_start(&self) -> Time {
        self.window_start
    }

    /// Keeps every closed window from now on, for [`Fairshare::take_windows`].
    pub fn record(&mut self) {
        self.recorded.get_or_insert_with(Vec::new);
    }

    fn account_mut(&mut self, kind: CredKind, id: CredId, now: Time) -> &mut Account {
        let i = id.get().expect("only real credentials have accounts");
        let table = &mut self.accounts[kind.index()];
        if table.len() <= i {
            let fresh = Account {
                since: now,
                ..Account::default()
            };
            table.resize(i + 1, fresh);
        }
        &mut table[i]
    }

    fn account(&self, kind: CredKind, id: CredId) -> Option<&Account> {
        id.get().and_then(|i| self.accounts[kind.index()].get(i))
    }

    /// When the current window closes, while that can still change anything: `None`
    /// when fairshare is off, or when nothing runs and every window is empty.
    pub(crate) fn next_change(&self) -> Option<Time> {
        let settled = self.running.is_empty() && self.total.is_idle();
        (self.enabled() && !settled).then_some(self.next_roll)
    }

    /// Closes every window that ends at or before `now`.
    pub(crate) fn advance(&mut self, now: Time) {
        if !self.enabled() {
            return;
        }
        while now >= self.next_roll {
            let at = self.next_roll;
            let weights = &self.weights;
            let mut window = self.recorded.is_some().then(|| FsWindow {
                start: self.window_start,
                end: at,
                ..FsWindow::default()
            });
            for kind in CredKind::ALL {
                let accounts = &mut self.accounts[kind.index()];
                if let Some(w) = &mut window {
                    w.usage[kind.index()] = vec![0.0; accounts.len()];
                }
                for (i, account) in accounts.iter_mut().enumerate() {
                    if account.is_idle() {
                        account.since = at;
                        continue;
                    }
                    let used = account.roll(at, weights);
                    if let Some(w) = &mut window {
                        w.usage[kind.index()][i] = used;
                    }
                }
            }
            for account in &mut self.unowned {
                if account.is_idle() {
                    account.since = at;
                } else {
                    account.roll(at, weights);
                }
            }
            let total = self.total.roll(at, weights);
            if let (Some(mut w), Some(recorded)) = (window, self.recorded.as_mut()) {
                w.total = total;
                recorded.push(w);
            }
            self.window_start = at;
            self.next_roll = at + self.config.interval;
        }
    }

    /// What a job charges per second under FSPOLICY.
    fn rate(&self, job: &QueuedJob) -> f64 {
        match self.config.metric {
            None => 0.0,
            Some(FsMetric::DedicatedPs) => job.procs as f64,
            Some(FsMetric::DedicatedPes) => job.resources.pe,
            Some(FsMetric::UtilizedPs) => job.procs as f64 * job.utilized,
        }
    }

    /// What a job would add to a cap: its dedicated amount over its whole limit.
    fn planned_usage(&self, job: &QueuedJob) -> f64 {
        let per_second = match self.config.metric {
            Some(FsMetric::DedicatedPes) => job.resources.pe,
            _ => job.procs as f64,
        };
        per_second * job.wcl as f64
    }

    /// `job` started at `now`: its credentials and the total accrue its rate from now on.
    pub(crate) fn job_started(&mut self, now: Time, job: &QueuedJob) {
        if !self.enabled() {
            return;
        }
        self.advance(now);
        let rate = self.rate(job);
        for kind in CredKind::ALL {
            let id = job.creds.get(kind);
            if id.get().is_some() {
                self.account_mut(kind, id, now).charge(now, rate);
            } else {
                self.unowned[kind.index()].charge(now, rate);
            }
        }
        self.total.charge(now, rate);
        self.peak_rate = self.peak_rate.max(self.total.rate.abs());
        self.running.insert(job.idx, (job.creds, rate));
    }

    /// `job` ended at `now`: it stops accruing.
    #[cfg(test)]
    pub(crate) fn job_ended(&mut self, now: Time, job: JobIdx) {
        self.job_ended_charged_until(now, now, job);
    }

    /// `job` ended at `now` but counts only up to `until` (≤ `now`): Maui 3.3.1 charges
    /// running jobs once per iteration and terminates a job before charging the interval
    /// in which it ended.
    pub(crate) fn job_ended_charged_until(&mut self, now: Time, until: Time, job: JobIdx) {
        if !self.enabled() {
            return;
        }
        self.advance(now);
        let Some((creds, rate)) = self.running.remove(&job) else {
            return;
        };
        let unused = (until.min(now), now);
        let window = (self.window_start, self.config.interval);
        let weights = std::mem::take(&mut self.weights);
        for kind in CredKind::ALL {
            let id = creds.get(kind);
            let account = if id.get().is_some() {
                self.account_mut(kind, id, now)
            } else {
                &mut self.unowned[kind.index()]
            };
            account.discharge(now, rate);
            account.take_back(rate, unused, window, &weights);
        }
        self.total.discharge(now, rate);
        self.total.take_back(rate, unused, window, &weights);
        self.weights = weights;
    }

    /// Whether, for every credential kind, the current window's usage of the credentials
    /// (and of jobs without one) adds up to the system's total, and so do their rates
    /// (`--check`). History read from FS files is left out: it need not add up.
    pub(crate) fn verify(&self, now: Time) -> Result<(), String> {
        if !self.enabled() {
            return Ok(());
        }
        // Rates are added and taken away job by job: their rounding is relative to the
        // largest rates seen, not to what is left now.
        let rate_scale = self.peak_rate.max(1.0);
        let usage_scale = (self.peak_rate * self.config.interval as f64).max(1.0);
        let close =
            |a: f64, b: f64, scale: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(scale);
        let total = self.total.current_at(now);
        for kind in CredKind::ALL {
            let accounts = self.accounts[kind.index()].iter();
            let unowned = &self.unowned[kind.index()];
            let (usage, rate) = accounts
                .chain([unowned])
                .fold((0.0, 0.0), |(u, r), a| (u + a.current_at(now), r + a.rate));
            if !close(usage, total, usage_scale) || !close(rate, self.total.rate, rate_scale) {
                return Err(format!(
                    "fairshare: the {}s' usage adds up to {usage} at rate {rate}, the total is {total} at rate {}",
                    kind.label(),
                    self.total.rate
                ));
            }
        }
        Ok(())
    }

    /// The windows closed so far and the current one up to `now` (which closes it).
    pub fn take_windows(&mut self, now: Time) -> Vec<FsWindow> {
        self.advance(now);
        let Some(mut windows) = self.recorded.take() else {
            return Vec::new();
        };
        if now > self.window_start {
            let usage = CredKind::ALL.map(|kind| {
                self.accounts[kind.index()]
                    .iter()
                    .map(|a| a.current_at(now))
                    .collect()
            });
            windows.push(FsWindow {
                start: self.window_start,
                end: now,
                usage,
                total: self.total.current_at(now),
            });
        }
        windows
    }

    /// The FSTARGET that applies to a credential (own, else its kind's DEFAULT).
    pub(crate) fn target(&self, kind: CredKind, id: CredId) -> Option<(FsTarget, Source)> {
        let own = id
            .get()
            .and_then(|i| self.targets[kind.index()].get(i))
            .copied()
            .flatten();
        match own {
            Some(t) => Some((t, Source::Own)),
            None => self.default_targets[kind.index()].map(|t| (t, Source::Default)),
        }
    }

    /// Decay-weighted usage of the whole system at `now`.
    pub fn total_effective(&self, now: Time) -> f64 {
        self.total.effective(now)
    }

    /// Usage per window of the whole system, current first.
    pub fn total_windows(&self, now: Time) -> Vec<f64> {
        windows_of(&self.total, now, self.weights.len())
    }

    /// Decay-weighted usage of one credential at `now`.
    pub(crate) fn effective(&self, kind: CredKind, id: CredId, now: Time) -> f64 {
        self.account(kind, id).map_or(0.0, |a| a.effective(now))
    }

    /// The deltas at `now` (after [`Fairshare::advance`] to `now`).
    pub fn at(&self, now: Time) -> FsAt<'_> {
        FsAt {
            fs: self,
            now,
            total: self.total.effective(now),
        }
    }

    /// One credential's standing at `now`.
    pub fn standing(&self, kind: CredKind, id: CredId, now: Time) -> Standing {
        let at = self.at(now);
        let effective = self.effective(kind, id, now);
        Standing {
            windows: self.account(kind, id).map_or_else(
                || vec![0.0; self.weights.len()],
                |a| windows_of(a, now, self.weights.len()),
            ),
            effective,
            share: at.share_of(effective),
            target: self.target(kind, id),
            delta: at.fs_delta(kind, id),
        }
    }

    /// The first fairshare cap `job` would break by starting at `now`.
    pub(crate) fn check_caps(&self, job: &QueuedJob, now: Time) -> Option<Blocked> {
        if !self.has_caps {
            return None;
        }
        let planned = self.planned_usage(job);
        let total = self.total.effective(now);
        for kind in CredKind::ALL {
            let id = job.creds.get(kind);
            let Some((target, source)) = self.target(kind, id) else {
                continue;
            };
            let (scope, limit) = match target.kind {
                TargetKind::AbsoluteCap => (Scope::FsCap, target.value),
                // A share of nothing delivered cannot be exceeded.
                TargetKind::RelativeCap if total > 0.0 => {
                    (Scope::FsRelativeCap, target.value * total / 100.0)
                }
                _ => continue,
            };
            let used = self.effective(kind, id, now);
            if used + planned > limit {
                return Some(Blocked {
                    scope,
                    level: Level::Hard,
                    owner: Owner::Cred(kind, id),
                    metric: Metric::Ps,
                    source,
                    usage: used.round() as u64,
                    amount: planned.round() as u64,
                    limit: limit.round() as u64,
                });
            }
        }
        None
    }

    /// When the relative caps that block `job` at `now` would all lift if the running
    /// jobs kept running: others' usage raises the delivered total, so a share cap can
    /// lift between events. `None` if the rates never lift one of them. Valid until the
    /// next start, end or window roll.
    pub(crate) fn relative_caps_lift_at(&self, job: &QueuedJob, now: Time) -> Option<Time> {
        let planned = self.planned_usage(job);
        let total = self.total.effective(now);
        let mut lift = now;
        for kind in CredKind::ALL {
            let id = job.creds.get(kind);
            let Some((target, _)) = self.target(kind, id) else {
                continue;
            };
            if target.kind != TargetKind::RelativeCap || total <= 0.0 {
                continue;
            }
            // used + rate·dt + planned ≤ T·(total + R·dt)/100
            let (used, rate) = self
                .account(kind, id)
                .map_or((0.0, 0.0), |a| (a.effective(now), a.rate));
            let need = used + planned - target.value * total / 100.0;
            if need <= 0.0 {
                continue;
            }
            let slope = target.value * self.total.rate / 100.0 - rate;
            if slope <= 0.0 {
                return None;
            }
            lift = lift.max(now + (need / slope).ceil().max(1.0) as Time);
        }
        (lift > now).then_some(lift)
    }
}

fn windows_of(account: &Account, now: Time, depth: usize) -> Vec<f64> {
    let mut windows = vec![0.0; depth];
    windows[0] = account.current_at(now);
    for (w, u) in windows[1..].iter_mut().zip(&account.closed) {
        *w = *u;
    }
    windows
}

/// Fairshare deltas at one instant.
pub struct FsAt<'a> {
    fs: &'a Fairshare,
    now: Time,
    total: f64,
}

impl FsAt<'_> {
    /// Percent of the delivered total that `effective` usage is.
    pub(crate) fn share_of(&self, effective: f64) -> f64 {
        if self.total > 0.0 {
            100.0 * effective / self.total
        } else {
            0.0
        }
    }
}

impl FsDeltaSource for FsAt<'_> {
    fn fs_delta(&self, kind: CredKind, id: CredId) -> f64 {
        // Before any usage is delivered there is no share to compare with a target: Maui
        // 3.3.1 leaves the fairshare component out (MPriority.c, total usage > 0).
        if !self.fs.enabled() || self.total <= 0.0 {
            return 0.0;
        }
        let Some((target, _)) = self.fs.target(kind, id) else {
            return 0.0;
        };
        if target.kind.is_cap() {
            return 0.0;
        }
        let share = self.share_of(self.fs.effective(kind, id, self.now));
        let delta = if self.fs.config.ratio {
            1.0 - share / target.value
        } else {
            target.value - share
        };
        match target.kind {
            TargetKind::Floor => delta.max(0.0),
            TargetKind::Ceiling => delta.min(0.0),
            _ => delta,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOUR: Time = 3600;

    fn config(depth: usize, decay: f64) -> FsConfig {
        FsConfig {
            metric: Some(FsMetric::DedicatedPs),
            interval: 12 * HOUR,
            depth,
            decay,
            ..FsConfig::default()
        }
    }

    fn job(idx: u32, user: u32, procs: u64, wcl: Time) -> QueuedJob {
        let mut j = QueuedJob::new(JobIdx(idx), u64::from(idx), 0, procs, wcl);
        j.creds.set(CredKind::User, CredId(user));
        j
    }

    fn window(john: f64, total: f64) -> FsWindow {
        FsWindow {
            usage: [vec![john], vec![], vec![], vec![], vec![]],
            total,
            ..FsWindow::default()
        }
    }

    /// The guide's decay table (6.3.2.2): FSDECAY^i as a percentage of window 0.
    #[test]
    fn decay_weights_match_the_guide_table() {
        let rows: [(f64, [u32; 8]); 3] = [
            (0.80, [100, 80, 64, 51, 41, 33, 26, 21]),
            (0.75, [100, 75, 56, 42, 31, 23, 17, 12]),
            (0.50, [100, 50, 25, 13, 6, 3, 2, 1]),
        ];
        for (decay, guide) in rows {
            let fs = Fairshare::new(&config(8, decay), &CredTables::default(), 0);
            let ours: Vec<u32> = fs
                .weights()
                .iter()
                .map(|w| (100.0 * w).round() as u32)
                .collect();
            if decay == 0.75 {
                // The guide's 0.75 row from window 4 on is 100·0.75^i truncated step by
                // step (42 → 31 → 23 → 17 → 12); the exact powers round to 32, 24, 18, 13.
                assert_eq!(ours[..4], guide[..4]);
                assert_eq!(ours[4..], [32, 24, 18, 13]);
                let mut truncated = 42;
                for (i, &g) in guide.iter().enumerate().skip(4) {
                    truncated = truncated * 3 / 4;
                    assert_eq!(truncated, g, "window {i}");
                }
            } else {
                assert_eq!(ours, guide, "FSDECAY {decay}");
            }
        }
    }

    /// The guide's worked example (6.3.2.3): John = 68.75 / 216.25 = 31.79 %.
    #[test]
    fn johns_usage_is_the_guides() {
        let mut c = config(4, 0.5);
        c.history = vec![window(0.0, 125.0), window(10.0, 100.0), window(50.0, 150.0)];
        let mut fs = Fairshare::new(&c, &CredTables::default(), 0);
        // Window 0: John uses 60 proc-seconds of 110 (another user the other 50).
        fs.job_started(0, &job(0, 0, 6, 10));
        fs.job_started(0, &job(1, 1, 5, 10));
        fs.job_ended(10, JobIdx(0));
        fs.job_ended(10, JobIdx(1));
        let john = fs.standing(CredKind::User, CredId(0), 100);
        assert_eq!(john.windows, vec![60.0, 0.0, 10.0, 50.0]);
        assert_eq!(john.effective, 68.75);
        assert_eq!(fs.total_effective(100), 216.25);
        assert!((john.share - 31.79).abs() < 0.005, "{}", john.share);
    }

    #[test]
    fn usage_accrues_exactly_between_events_and_rolls_at_boundaries() {
        let mut fs = Fairshare::new(&config(3, 0.5), &CredTables::default(), 0);
        fs.record();
        // 4 processors from 11:00 to 13:00: 1 h in window 0, 1 h in window 1.
        fs.job_started(11 * HOUR, &job(0, 0, 4, 2 * HOUR));
        assert_eq!(
            fs.effective(CredKind::User, CredId(0), 11 * HOUR + 30),
            120.0
        );
        fs.job_ended(13 * HOUR, JobIdx(0));
        let at = 13 * HOUR;
        fs.advance(at);
        // Current window: 4·3600; window 1 (decay 0.5): 4·3600.
        assert_eq!(
            fs.effective(CredKind::User, CredId(0), at),
            14400.0 + 7200.0
        );
        assert_eq!(fs.total_effective(at), 21600.0);
        // Two windows later the first hour has dropped out (FSDEPTH 3).
        let later = 36 * HOUR;
        fs.advance(later);
        assert_eq!(
            fs.standing(CredKind::User, CredId(0), later).windows,
            vec![0.0, 0.0, 14400.0]
        );
        let windows = fs.take_windows(later + 60);
        let starts: Vec<Time> = windows.iter().map(|w| w.start).collect();
        assert_eq!(starts, vec![0, 12 * HOUR, 24 * HOUR, 36 * HOUR]);
        assert_eq!(windows[0].usage[0], vec![14400.0]);
        assert_eq!(windows[1].total, 14400.0);
        assert_eq!(windows[3].end, later + 60);
    }

    /// Maui 3.3.1 leaves out a job's last poll interval. Where a window rolled inside
    /// it, the part before the roll comes out of the closed window and the rest out of
    /// the current one, so every account still adds up to the total.
    #[test]
    fn usage_left_out_across_a_window_roll_comes_out_of_both_windows() {
        let mut fs = Fairshare::new(&config(3, 0.5), &CredTables::default(), 0);
        // User 0: 4 processors from 11:00, its end seen at 12:30 and counted to 11:45.
        fs.job_started(11 * HOUR, &job(0, 0, 4, 2 * HOUR));
        // User 1, who has another job too: 1 processor from 10:00 to 14:00.
        fs.job_started(10 * HOUR, &job(1, 1, 1, 4 * HOUR));
        fs.job_ended_charged_until(12 * HOUR + 1800, 11 * HOUR + 2700, JobIdx(0));
        let now = 12 * HOUR + 1800;
        let user0 = fs.standing(CredKind::User, CredId(0), now);
        assert_eq!(user0.windows, vec![0.0, 4.0 * 2700.0, 0.0]);
        let user1 = fs.standing(CredKind::User, CredId(1), now);
        assert_eq!(user1.windows, vec![1800.0, 7200.0, 0.0]);
        // Window 1 at FSDECAY 0.5: (10,800 + 7,200) / 2, plus 1,800 now.
        assert_eq!(fs.total_effective(now), 9000.0 + 1800.0);
        fs.verify(now).expect("the accounts add up to the total");
    }

    #[test]
    fn each_fspolicy_charges_its_metric() {
        let mut j = job(0, 0, 8, 100);
        j.resources.pe = 12.0;
        j.utilized = 0.25;
        for (metric, expected) in [
            (FsMetric::DedicatedPs, 800.0),
            (FsMetric::DedicatedPes, 1200.0),
            (FsMetric::UtilizedPs, 200.0),
        ] {
            let c = FsConfig {
                metric: Some(metric),
                ..config(2, 1.0)
            };
            let mut fs = Fairshare::new(&c, &CredTables::default(), 0);
            fs.job_started(0, &j);
            fs.job_ended(100, JobIdx(0));
            assert_eq!(fs.total_effective(100), expected, "{metric:?}");
        }
    }

    fn tables(target: FsTarget, default: Option<FsTarget>) -> CredTables {
        let mut t = CredTables::default();
        t.own_mut(CredKind::User, CredId(0)).fs_target = Some(target);
        t.defaults[CredKind::User.index()].fs_target = default;
        t
    }

    fn loaded(target: FsTarget, ratio: bool) -> Fairshare {
        let mut c = config(2, 1.0);
        c.ratio = ratio;
        // User 0 used 30 % of what was delivered, user 1 the other 70 %.
        c.history = vec![FsWindow {
            usage: [vec![30.0, 70.0], vec![], vec![], vec![], vec![]],
            total: 100.0,
            ..FsWindow::default()
        }];
        let default = FsTarget {
            value: 50.0,
            kind: TargetKind::Target,
        };
        Fairshare::new(&c, &tables(target, Some(default)), 0)
    }

    #[test]
    fn targets_floors_and_ceilings_shape_the_delta() {
        let t = |kind| FsTarget { value: 20.0, kind };
        let user = |fs: &Fairshare, id| fs.at(1).fs_delta(CredKind::User, CredId(id));
        assert_eq!(user(&loaded(t(TargetKind::Target), false), 0), -10.0);
        assert_eq!(user(&loaded(t(TargetKind::Floor), false), 0), 0.0);
        assert_eq!(user(&loaded(t(TargetKind::Ceiling), false), 0), -10.0);
        assert_eq!(user(&loaded(t(TargetKind::AbsoluteCap), false), 0), 0.0);
        let high = FsTarget {
            value: 40.0,
            kind: TargetKind::Floor,
        };
        assert_eq!(user(&loaded(high, false), 0), 10.0);
        assert_eq!(user(&loaded(high, true), 0), 0.25);
        // User 1 has no target of its own: DEFAULT's 50 applies.
        assert_eq!(user(&loaded(high, false), 1), -20.0);
        assert_eq!(
            loaded(high, false).target(CredKind::User, CredId(1)),
            Some((
                FsTarget {
                    value: 50.0,
                    kind: TargetKind::Target
                },
                Source::Default
            ))
        );
    }

    #[test]
    fn caps_block_jobs_that_would_pass_them() {
        let abs = FsTarget {
            value: 100.0,
            kind: TargetKind::AbsoluteCap,
        };
        let fs = loaded(abs, false);
        // 30 used + 7·10 = 100: not over the cap; 30 + 71 is.
        assert_eq!(fs.check_caps(&job(0, 0, 7, 10), 1), None);
        let b = fs.check_caps(&job(0, 0, 71, 1), 1).unwrap();
        assert_eq!(
            (b.scope, b.usage, b.amount, b.limit),
            (Scope::FsCap, 30, 71, 100)
        );
        let rel = FsTarget {
            value: 40.0,
            kind: TargetKind::RelativeCap,
        };
        let fs = loaded(rel, false);
        assert_eq!(fs.check_caps(&job(0, 0, 10, 1), 1), None);
        let b = fs.check_caps(&job(0, 0, 11, 1), 1).unwrap();
        assert_eq!((b.scope, b.limit), (Scope::FsRelativeCap, 40));
        // Nothing delivered yet: a share cap cannot be passed.
        let empty = Fairshare::new(&config(2, 1.0), &tables(rel, None), 0);
        assert_eq!(empty.check_caps(&job(0, 0, 1000, 1000), 0), None);
    }

    #[test]
    fn settles_when_nothing_runs_and_the_windows_are_empty() {
        let mut fs = Fairshare::new(&config(2, 1.0), &CredTables::default(), 0);
        assert_eq!(fs.next_change(), None);
        fs.job_started(0, &job(0, 0, 1, 10));
        assert_eq!(fs.next_change(), Some(12 * HOUR));
        fs.job_ended(10, JobIdx(0));
        fs.advance(12 * HOUR);
        assert_eq!(fs.next_change(), Some(24 * HOUR));
        fs.advance(24 * HOUR);
        assert_eq!(fs.next_change(), None);
        let off = Fairshare::new(&FsConfig::default(), &CredTables::default(), 0);
        assert_eq!(off.next_change(), None);
    }

    #[test]
    fn credentials_add_up_to_the_total_and_a_drift_is_caught() {
        let mut fs = Fairshare::new(&config(3, 0.5), &CredTables::default(), 0);
        fs.job_started(0, &job(0, 1, 4, 20 * HOUR));
        // A job without a user still counts in the total.
        let anonymous = QueuedJob::new(JobIdx(1), 1, 0, 2, HOUR);
        fs.job_started(HOUR, &anonymous);
        assert_eq!(fs.verify(HOUR / 2), Ok(()));
        fs.job_ended(2 * HOUR, JobIdx(1));
        fs.advance(13 * HOUR);
        assert_eq!(fs.verify(13 * HOUR), Ok(()), "across a window roll");
        fs.accounts[CredKind::User.index()][1].current += 1.0;
        let e = fs.verify(13 * HOUR).unwrap_err();
        assert!(
            e.starts_with("fairshare: the users' usage adds up to"),
            "{e}"
        );
    }
}
