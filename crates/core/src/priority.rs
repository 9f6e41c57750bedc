//! Job priority (guide 5.1.2, MAUI-SEMANTICS §1).
//!
//! ```text
//! Prio = Σ_c CW_c · cap( Σ_{s∈c} SW_s · cap(F_s, SCAP_s), CCAP_c )
//! ```
//! over the components SERV, TARG, CRED, ATTR, FS, RES, USAGE; then floored at 1 unless
//! negative priorities are enabled, capped at 1e9, raised to 1e9 + s by an admin system
//! priority s, and truncated to an integer. Ties break by submit time, then job id.
//!
//! One function, [`PriorityConfig::breakdown`], computes every factor; the total the
//! scheduler sorts by and the `diagnose -p`-style report come from the same numbers.

use crate::cred::CredKind;
use crate::fairshare::{FsDeltaSource, FsDeltas};
use crate::job::{JobTerms, QueuedJob};
use crate::Time;
use serde::ser::{SerializeMap, SerializeStruct};
use serde::{Serialize, Serializer};

/// Largest priority Maui assigns (before admin system priority).
pub const MAX_PRIORITY: f64 = 1e9;

/// Smallest distance to a service target (TARG component) ...
const TARGET_EPSILON: f64 = 1e-4;
/// ... and its inverse square: the value once the target is reached
/// (DECISIONS.md "Target service").
const TARGET_REACHED: f64 = 1e8;

/// `cap(x, C)`: caps are upper bounds only, and 0 means "no cap".
fn cap(x: f64, c: f64) -> f64 {
    if c > 0.0 {
        x.min(c)
    } else {
        x
    }
}

/// The priority components of guide 5.1.2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Component {
    Serv,
    Targ,
    Cred,
    Attr,
    Fs,
    Res,
    Usage,
}

impl Component {
    pub const COUNT: usize = 7;
    pub const ALL: [Component; Component::COUNT] = [
        Component::Serv,
        Component::Targ,
        Component::Cred,
        Component::Attr,
        Component::Fs,
        Component::Res,
        Component::Usage,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Component::Serv => "SERV",
            Component::Targ => "TARG",
            Component::Cred => "CRED",
            Component::Attr => "ATTR",
            Component::Fs => "FS",
            Component::Res => "RES",
            Component::Usage => "USAGE",
        }
    }

    /// maui.cfg names of the component weight: Maui 3.3.1's first, the guide's alias next.
    pub fn weight_names(self) -> &'static [&'static str] {
        match self {
            Component::Serv => &["SERVICEWEIGHT", "SERVWEIGHT"],
            Component::Targ => &["TARGETWEIGHT", "TARGWEIGHT"],
            Component::Cred => &["CREDWEIGHT"],
            Component::Attr => &["ATTRWEIGHT"],
            Component::Fs => &["FSWEIGHT"],
            Component::Res => &["RESWEIGHT"],
            Component::Usage => &["USAGEWEIGHT"],
        }
    }

    pub fn cap_names(self) -> &'static [&'static str] {
        match self {
            Component::Serv => &["SERVICECAP", "SERVCAP"],
            Component::Targ => &["TARGETCAP", "TARGCAP"],
            Component::Cred => &["CREDCAP"],
            Component::Attr => &["ATTRCAP"],
            Component::Fs => &["FSCAP"],
            Component::Res => &["RESCAP"],
            Component::Usage => &["USAGECAP"],
        }
    }
}

/// The subcomponents of guide 5.1.2, grouped by component.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sub {
    QueueTime,
    XFactor,
    SpViolation,
    Bypass,
    TargetQueueTime,
    TargetXFactor,
    User,
    Group,
    Account,
    Qos,
    Class,
    FsUser,
    FsGroup,
    FsAccount,
    FsQos,
    FsClass,
    Node,
    Proc,
    Mem,
    Swap,
    Disk,
    Ps,
    Pe,
    Walltime,
    Consumed,
    Remaining,
    Percent,
    ExecutionTime,
}

impl Sub {
    pub const COUNT: usize = 28;
    pub const ALL: [Sub; Sub::COUNT] = [
        Sub::QueueTime,
        Sub::XFactor,
        Sub::SpViolation,
        Sub::Bypass,
        Sub::TargetQueueTime,
        Sub::TargetXFactor,
        Sub::User,
        Sub::Group,
        Sub::Account,
        Sub::Qos,
        Sub::Class,
        Sub::FsUser,
        Sub::FsGroup,
        Sub::FsAccount,
        Sub::FsQos,
        Sub::FsClass,
        Sub::Node,
        Sub::Proc,
        Sub::Mem,
        Sub::Swap,
        Sub::Disk,
        Sub::Ps,
        Sub::Pe,
        Sub::Walltime,
        Sub::Consumed,
        Sub::Remaining,
        Sub::Percent,
        Sub::ExecutionTime,
    ];

    pub fn component(self) -> Component {
        use Sub::*;
        match self {
            QueueTime | XFactor | SpViolation | Bypass => Component::Serv,
            TargetQueueTime | TargetXFactor => Component::Targ,
            User | Group | Account | Qos | Class => Component::Cred,
            FsUser | FsGroup | FsAccount | FsQos | FsClass => Component::Fs,
            Node | Proc | Mem | Swap | Disk | Ps | Pe | Walltime => Component::Res,
            Consumed | Remaining | Percent | ExecutionTime => Component::Usage,
        }
    }

    pub fn name(self) -> &'static str {
        use Sub::*;
        match self {
            QueueTime => "QUEUETIME",
            XFactor => "XFACTOR",
            SpViolation => "SPVIOLATION",
            Bypass => "BYPASS",
            TargetQueueTime => "TARGETQUEUETIME",
            TargetXFactor => "TARGETXFACTOR",
            User => "USER",
            Group => "GROUP",
            Account => "ACCOUNT",
            Qos => "QOS",
            Class => "CLASS",
            FsUser => "FSUSER",
            FsGroup => "FSGROUP",
            FsAccount => "FSACCOUNT",
            FsQos => "FSQOS",
            FsClass => "FSCLASS",
            Node => "NODE",
            Proc => "PROC",
            Mem => "MEM",
            Swap => "SWAP",
            Disk => "DISK",
            Ps => "PS",
            Pe => "PE",
            Walltime => "WALLTIME",
            Consumed => "CONSUMED",
            Remaining => "REMAINING",
            Percent => "PERCENT",
            ExecutionTime => "EXECUTIONTIME",
        }
    }

    /// maui.cfg names of the subcomponent weight (3.3.1's first, the guide's aliases next).
    pub fn weight_names(self) -> &'static [&'static str] {
        self.names().0
    }

    pub fn cap_names(self) -> &'static [&'static str] {
        self.names().1
    }

    fn names(self) -> (&'static [&'static str], &'static [&'static str]) {
        use Sub::*;
        match self {
            QueueTime => (&["QUEUETIMEWEIGHT"], &["QUEUETIMECAP"]),
            XFactor => (&["XFACTORWEIGHT"], &["XFACTORCAP"]),
            SpViolation => (&["SPVIOLATIONWEIGHT"], &["SPVIOLATIONCAP"]),
            Bypass => (&["BYPASSWEIGHT"], &["BYPASSCAP"]),
            TargetQueueTime => (&["TARGETQUEUETIMEWEIGHT"], &["TARGETQUEUETIMECAP"]),
            TargetXFactor => (&["TARGETXFACTORWEIGHT"], &["TARGETXFACTORCAP"]),
            User => (&["USERWEIGHT"], &["USERCAP"]),
            Group => (&["GROUPWEIGHT"], &["GROUPCAP"]),
            Account => (&["ACCOUNTWEIGHT"], &["ACCOUNTCAP"]),
            Qos => (&["QOSWEIGHT"], &["QOSCAP"]),
            Class => (&["CLASSWEIGHT"], &["CLASSCAP"]),
            FsUser => (&["FSUSERWEIGHT"], &["FSUSERCAP"]),
            FsGroup => (&["FSGROUPWEIGHT"], &["FSGROUPCAP"]),
            FsAccount => (&["FSACCOUNTWEIGHT"], &["FSACCOUNTCAP"]),
            FsQos => (&["FSQOSWEIGHT"], &["FSQOSCAP"]),
            FsClass => (&["FSCLASSWEIGHT"], &["FSCLASSCAP"]),
            Node => (&["NODEWEIGHT"], &["NODECAP"]),
            Proc => (&["PROCWEIGHT"], &["PROCCAP"]),
            Mem => (&["MEMWEIGHT"], &["MEMCAP"]),
            Swap => (&["SWAPWEIGHT"], &["SWAPCAP"]),
            Disk => (&["DISKWEIGHT"], &["DISKCAP"]),
            Ps => (&["PSWEIGHT"], &["PSCAP"]),
            Pe => (&["PEWEIGHT"], &["PECAP"]),
            Walltime => (&["WALLTIMEWEIGHT"], &["WALLTIMECAP"]),
            Consumed => (
                &["CONSUMEDWEIGHT", "USAGECONSUMEDWEIGHT"],
                &["CONSUMEDCAP", "USAGECONSUMEDCAP"],
            ),
            Remaining => (
                &["REMAININGWEIGHT", "USAGEREMAININGWEIGHT"],
                &["REMAININGCAP", "USAGEREMAININGCAP"],
            ),
            Percent => (
                &["PERCENTWEIGHT", "USAGEPERCENTWEIGHT"],
                &["PERCENTCAP", "USAGEPERCENTCAP"],
            ),
            ExecutionTime => (
                &["USAGEEXECUTIONTIMEWEIGHT", "EXECUTIONTIMEWEIGHT"],
                &["USAGEEXECUTIONTIMECAP", "EXECUTIONTIMECAP"],
            ),
        }
    }

    /// The fairshare subcomponent of a credential kind.
    pub fn fairshare(kind: CredKind) -> Sub {
        match kind {
            CredKind::User => Sub::FsUser,
            CredKind::Group => Sub::FsGroup,
            CredKind::Account => Sub::FsAccount,
            CredKind::Qos => Sub::FsQos,
            CredKind::Class => Sub::FsClass,
        }
    }

    /// The credential subcomponent of a credential kind.
    pub fn credential(kind: CredKind) -> Sub {
        match kind {
            CredKind::User => Sub::User,
            CredKind::Group => Sub::Group,
            CredKind::Account => Sub::Account,
            CredKind::Qos => Sub::Qos,
            CredKind::Class => Sub::Class,
        }
    }
}

/// JOBPRIOACCRUALPOLICY: when a queued job's effective queue time accrues.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum AccrualPolicy {
    /// From submission, whatever blocks the job.
    Always,
    /// Not while the job fails its hard idle, active or system limits (Maui's default).
    QueuePolicy,
    /// Not while anything blocks it: limits, holds, fairshare caps.
    FullPolicy,
}

impl AccrualPolicy {
    /// Whether a job's queue time starts again while a hard active or idle limit blocks it.
    pub(crate) fn restarts_on_limits(self) -> bool {
        self != AccrualPolicy::Always
    }
}

/// Weights, caps and switches of the priority function (maui.cfg, validated).
#[derive(Debug, Clone, PartialEq)]
pub struct PriorityConfig {
    pub component_weight: [f64; Component::COUNT],
    pub component_cap: [f64; Component::COUNT],
    pub weight: [f64; Sub::COUNT],
    pub cap: [f64; Sub::COUNT],
    /// XFMINWCLIMIT (s): the smallest limit the XFACTOR divides by.
    pub xf_min_wclimit: Time,
    /// ENABLENEGJOBPRIORITY.
    pub allow_negative: bool,
    /// REJECTNEGPRIOJOBS: a job of negative priority is not eligible (Maui 3.3.1,
    /// MPolicy.c `MQueueSelectJobs`); priorities are then not raised to 1 either
    /// (MPriority.c clips only when both this and ENABLENEGJOBPRIORITY are off).
    pub reject_negative: bool,
    /// JOBPRIOACCRUALPOLICY.
    pub accrual: AccrualPolicy,
    /// The target-service factors as Maui 3.3.1 computes them (`--semantics maui-3.3.1`),
    /// against the guide (DECISIONS.md "Target service"): TQT subtracts the absolute queue
    /// time stamp from the target, so it is always `ε^−2`; TXF stays `ε^−2` once the
    /// target is reached instead of growing.
    pub target_service_3_3_1: bool,
    /// USESYSTEMQUEUETIME. Maui 3.3.1's default is on: its DEFAULT_USESYSTEMQUEUETIME is
    /// `ptOFF`, which is 1, TRUE (msched.h), so a job never yet selected counts its queue
    /// time from its system queue time, which a block at the hard level sets anew
    /// (MPriority.c). Off, from its submission.
    pub system_queue_time: bool,
}

impl Default for PriorityConfig {
    /// Maui 3.3.1's defaults (DECISIONS.md): component weights 1, QUEUETIMEWEIGHT 1,
    /// every other subcomponent weight 0, no caps, XFMINWCLIMIT 120 s.
    fn default() -> Self {
        let mut weight = [0.0; Sub::COUNT];
        weight[Sub::QueueTime as usize] = 1.0;
        PriorityConfig {
            component_weight: [1.0; Component::COUNT],
            component_cap: [0.0; Component::COUNT],
            weight,
            cap: [0.0; Sub::COUNT],
            xf_min_wclimit: 120,
            allow_negative: false,
            reject_negative: false,
            accrual: AccrualPolicy::QueuePolicy,
            target_service_3_3_1: false,
            system_queue_time: true,
        }
    }
}

/// Every factor of one job's priority at one instant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Breakdown {
    /// The raw factor `F_s` of each subcomponent (minutes, ratio, MB, …).
    pub factor: [f64; Sub::COUNT],
    /// The effective subcomponent weight (after QOS QTWEIGHT / XFWEIGHT and the group's
    /// CLASSWEIGHT).
    pub weight: [f64; Sub::COUNT],
    /// `SW_s · cap(F_s, SCAP_s)`.
    pub sub: [f64; Sub::COUNT],
    /// `CW_c · cap(Σ sub, CCAP_c)`: what each component adds to the priority.
    pub component: [f64; Component::COUNT],
    /// Σ components, before the final clamps.
    pub raw: f64,
    /// The priority the scheduler sorts by.
    pub priority: i64,
}

impl Breakdown {
    fn new() -> Self {
        Breakdown {
            factor: [0.0; Sub::COUNT],
            weight: [0.0; Sub::COUNT],
            sub: [0.0; Sub::COUNT],
            component: [0.0; Component::COUNT],
            raw: 0.0,
            priority: 0,
        }
    }
}

impl JobTerms {
    /// Whether this job's own weights keep its priority nondecreasing over time (its QOS
    /// may add a negative QTWEIGHT or XFWEIGHT); see [`PriorityConfig::grows_with_time`].
    pub(crate) fn grows_with_time(&self) -> bool {
        self.qt_weight >= 0.0 && self.xf_weight >= 0.0
    }
}

/// `max(ε, target − value)^−2` while the target is ahead; once reached it keeps growing
/// linearly from `ε^−2` (DECISIONS.md "Target service").
///
/// Every branch is computed and one selected: which applies varies from job to job, and
/// a mispredicted branch costs more than the division. The approach is held to `ε^−2`
/// (rounding could take it an ulp past), so the factor never falls as `value` grows.
#[inline]
fn target_factor(value: f64, target: f64) -> f64 {
    let ahead = target - value;
    let approaching = (1.0 / (ahead * ahead)).min(TARGET_REACHED);
    let reached = if ahead > 0.0 {
        TARGET_REACHED
    } else {
        TARGET_REACHED - ahead
    };
    if ahead > TARGET_EPSILON {
        approaching
    } else {
        reached
    }
}

impl PriorityConfig {
    /// TQT of a job queued `minutes` against a QTTARGET of `target` minutes.
    #[inline]
    fn target_queue_time(&self, minutes: f64, target: f64) -> f64 {
        if self.target_service_3_3_1 {
            // MPrio.c takes QTTARGET minus the queue time's absolute stamp: always below ε.
            return TARGET_REACHED;
        }
        target_factor(minutes, target)
    }

    /// TXF of a job of expansion factor `xfactor` against an XFTARGET of `target`.
    #[inline]
    fn target_xfactor(&self, xfactor: f64, target: f64) -> f64 {
        let factor = target_factor(xfactor, target);
        if self.target_service_3_3_1 {
            return factor.min(TARGET_REACHED);
        }
        factor
    }

    pub fn weight_of(&self, sub: Sub) -> f64 {
        self.weight[sub as usize]
    }

    /// The start priority of an idle job at `now`.
    #[cfg(test)]
    pub(crate) fn priority(
        &self,
        job: &QueuedJob,
        now: Time,
        fs: &(impl FsDeltaSource + ?Sized),
    ) -> i64 {
        self.priority_from_terms(job, &self.job_terms(job), now, Some(fs))
    }

    /// Every factor of an idle job's start priority at `now` (USAGE is zero: it applies
    /// to running jobs only, see [`PriorityConfig::usage`]).
    pub(crate) fn breakdown(
        &self,
        job: &QueuedJob,
        now: Time,
        fs: &(impl FsDeltaSource + ?Sized),
    ) -> Breakdown {
        let mut b = Breakdown::new();
        b.weight = self.weight;
        let creds = &job.cred_factors;
        let queued = job.eff_queued(now) as f64;
        let wcl = job.wcl as f64;
        let xfactor = self.xfactor(job, now);
        let f = &mut b.factor;
        f[Sub::QueueTime as usize] = queued / 60.0;
        f[Sub::XFactor as usize] = xfactor;
        f[Sub::SpViolation as usize] = if job.soft_violation { 1.0 } else { 0.0 };
        f[Sub::Bypass as usize] = job.bypass as f64;
        if let Some(target) = creds.qt_target {
            f[Sub::TargetQueueTime as usize] =
                self.target_queue_time(queued / 60.0, target as f64 / 60.0);
        }
        if let Some(target) = creds.xf_target {
            f[Sub::TargetXFactor as usize] = self.target_xfactor(xfactor, target);
        }
        for kind in CredKind::ALL {
            f[Sub::credential(kind) as usize] = creds.priority[kind.index()];
            f[Sub::fairshare(kind) as usize] = fs.fs_delta(kind, job.creds.get(kind));
        }
        let r = &job.resources;
        let procs = job.procs as f64;
        f[Sub::Node as usize] = r.nodes as f64;
        f[Sub::Proc as usize] = procs;
        f[Sub::Mem as usize] = r.mem_mb;
        f[Sub::Swap as usize] = r.swap_mb;
        f[Sub::Disk as usize] = r.disk_mb;
        f[Sub::Ps as usize] = procs * wcl;
        f[Sub::Pe as usize] = r.pe;
        f[Sub::Walltime as usize] = wcl;
        b.weight[Sub::QueueTime as usize] += creds.qt_weight;
        b.weight[Sub::XFactor as usize] += creds.xf_weight;
        if let Some(w) = creds.class_weight {
            b.weight[Sub::Class as usize] = w;
        }
        self.finish(&mut b, job.system_priority);
        b
    }

    /// The USAGE component of a running job (guide 5.1.2: active jobs only).
    pub fn usage(&self, procs: u64, start: Time, wcl: Time, now: Time) -> Breakdown {
        let mut b = Breakdown::new();
        b.weight = self.weight;
        let ran = (now - start).max(0) as f64;
        let procs = procs as f64;
        let f = &mut b.factor;
        f[Sub::Consumed as usize] = procs * ran;
        f[Sub::Remaining as usize] = procs * ((start + wcl - now).max(0) as f64);
        f[Sub::Percent as usize] = 100.0 * ran / (wcl.max(1) as f64);
        f[Sub::ExecutionTime as usize] = ran;
        for sub in Sub::ALL {
            if sub.component() != Component::Usage {
                b.weight[sub as usize] = 0.0;
            }
        }
        self.finish(&mut b, 0);
        b
    }

    /// What one subcomponent adds before its component's weight: `SW · cap(F, SCAP)`.
    pub fn sub_term(&self, sub: Sub, factor: f64) -> f64 {
        self.term(sub, self.weight[sub as usize], || factor)
    }

    /// `SW · cap(F, SCAP)`; zero without computing `F` when the weight is zero (the TARG
    /// factors grow huge and must not turn 0 · x into something else). `+ 0.0` turns a
    /// weighted −0 into 0, so reports never print "-0".
    #[inline]
    fn term(&self, sub: Sub, weight: f64, factor: impl FnOnce() -> f64) -> f64 {
        if weight == 0.0 {
            0.0
        } else {
            weight * cap(factor(), self.cap[sub as usize]) + 0.0
        }
    }

    /// `CW · cap(Σ subcomponents, CCAP)`.
    #[inline]
    fn component_value(&self, c: Component, sum: f64) -> f64 {
        let weight = self.component_weight[c as usize];
        if weight == 0.0 {
            0.0
        } else {
            weight * cap(sum, self.component_cap[c as usize]) + 0.0
        }
    }

    /// Whether priorities below 1 stay as they are (ENABLENEGJOBPRIORITY or
    /// REJECTNEGPRIOJOBS) rather than being raised to 1.
    #[inline]
    pub fn negatives_kept(&self) -> bool {
        self.allow_negative || self.reject_negative
    }

    /// The floor at 1, the 1e9 ceiling, system priority, truncation.
    #[inline]
    fn clamp(&self, raw: f64, system_priority: u32) -> i64 {
        let mut prio = raw;
        if !self.negatives_kept() {
            prio = prio.max(1.0);
        }
        prio = prio.min(MAX_PRIORITY);
        if system_priority > 0 {
            prio = MAX_PRIORITY + system_priority as f64;
        }
        prio as i64
    }

    /// The components a queued job's priority does not change over time: CRED, ATTR,
    /// RES (and USAGE, zero while idle). Summed in the order [`Self::finish`] uses, so
    /// that the cached value gives bit-identical priorities.
    pub(crate) fn static_part(&self, job: &QueuedJob) -> f64 {
        let b = self.breakdown(job, job.submit, &FsDeltas::default());
        let c = |c: Component| b.component[c as usize];
        (c(Component::Cred) + c(Component::Attr)) + (c(Component::Res) + c(Component::Usage))
    }

    /// The XFACTOR factor: `(queued + WCL) / max(XFMINWCLIMIT, WCL)` with effective
    /// queue time.
    pub(crate) fn xfactor(&self, job: &QueuedJob, now: Time) -> f64 {
        let queued = job.eff_queued(now) as f64;
        (queued + job.wcl as f64) / (job.wcl.max(self.xf_min_wclimit) as f64)
    }

    /// What a queued job's priority needs besides the time and the state the scheduler
    /// changes (effective queue start, bypass, SPVIOLATION, fairshare), worked out once
    /// with the same operations [`Self::breakdown`] uses, so that cached priorities are
    /// bit-identical to reported ones.
    pub(crate) fn job_terms(&self, job: &QueuedJob) -> JobTerms {
        let creds = &job.cred_factors;
        JobTerms {
            static_part: self.static_part(job),
            wcl: job.wcl as f64,
            xf_divisor: job.wcl.max(self.xf_min_wclimit) as f64,
            qt_weight: self.weight[Sub::QueueTime as usize] + creds.qt_weight,
            xf_weight: self.weight[Sub::XFactor as usize] + creds.xf_weight,
            qt_target_minutes: creds.qt_target.map(|t| t as f64 / 60.0),
            xf_target: creds.xf_target,
        }
    }

    /// The start priority from a job's cached [`JobTerms`]: what the scheduler sorts by,
    /// every iteration. `fs` is `None` when every fairshare delta is zero (no FSPOLICY).
    #[inline]
    pub(crate) fn priority_from_terms<F: FsDeltaSource + ?Sized>(
        &self,
        job: &QueuedJob,
        terms: &JobTerms,
        now: Time,
        fs: Option<&F>,
    ) -> i64 {
        let queued = job.eff_queued(now) as f64;
        let minutes = queued / 60.0;
        let xfactor = (queued + terms.wcl) / terms.xf_divisor;
        let w = |s: Sub| self.weight[s as usize];
        let mut serv = 0.0;
        serv += self.term(Sub::QueueTime, terms.qt_weight, || minutes);
        serv += self.term(Sub::XFactor, terms.xf_weight, || xfactor);
        serv += self.term(Sub::SpViolation, w(Sub::SpViolation), || {
            if job.soft_violation {
                1.0
            } else {
                0.0
            }
        });
        serv += self.term(Sub::Bypass, w(Sub::Bypass), || job.bypass as f64);
        let mut targ = 0.0;
        targ += self.term(Sub::TargetQueueTime, w(Sub::TargetQueueTime), || {
            terms
                .qt_target_minutes
                .map_or(0.0, |t| self.target_queue_time(minutes, t))
        });
        targ += self.term(Sub::TargetXFactor, w(Sub::TargetXFactor), || {
            terms
                .xf_target
                .map_or(0.0, |t| self.target_xfactor(xfactor, t))
        });
        // With every delta zero each FS term, and so the component, is +0.
        let fair = match fs {
            None => 0.0,
            Some(fs) => {
                let mut fair = 0.0;
                for kind in CredKind::ALL {
                    let sub = Sub::fairshare(kind);
                    fair += self.term(sub, w(sub), || fs.fs_delta(kind, job.creds.get(kind)));
                }
                self.component_value(Component::Fs, fair)
            }
        };
        let raw = (self.component_value(Component::Serv, serv)
            + self.component_value(Component::Targ, targ))
            + fair
            + terms.static_part;
        self.clamp(raw, job.system_priority)
    }

    /// Weights, caps, component sums and the final clamps, in Maui's order.
    fn finish(&self, b: &mut Breakdown, system_priority: u32) {
        let mut sums = [0.0; Component::COUNT];
        for sub in Sub::ALL {
            let s = sub as usize;
            b.sub[s] = self.term(sub, b.weight[s], || b.factor[s]);
            sums[sub.component() as usize] += b.sub[s];
        }
        for c in Component::ALL {
            b.component[c as usize] = self.component_value(c, sums[c as usize]);
        }
        let v = |c: Component| b.component[c as usize];
        // The order [`Self::priority_from_terms`] adds them in.
        b.raw = ((v(Component::Serv) + v(Component::Targ)) + v(Component::Fs))
            + ((v(Component::Cred) + v(Component::Attr))
                + (v(Component::Res) + v(Component::Usage)));
        b.priority = self.clamp(b.raw, system_priority);
    }

    /// Whether a waiting job's priority never falls as time passes while nothing else
    /// about it changes (with fairshare left out: its usage moves on its own), given that
    /// the job's own QOS weights do not fall ([`JobTerms::grows_with_time`]): SERV and
    /// TARG weigh in nonnegatively and so do their time-dependent subcomponents. Every
    /// step of the evaluation (caps as minima, sums, clamps, truncation) is then monotone
    /// in floating point too.
    pub(crate) fn grows_with_time(&self) -> bool {
        let cw = |c: Component| self.component_weight[c as usize];
        let w = |s: Sub| self.weight[s as usize];
        cw(Component::Serv) >= 0.0
            && cw(Component::Targ) >= 0.0
            && w(Sub::TargetQueueTime) >= 0.0
            && w(Sub::TargetXFactor) >= 0.0
    }

    /// The most one more BYPASS can add to a priority: the SERV weight times
    /// BYPASSWEIGHT (caps only lower it); `None` when a bypass can lower it.
    pub(crate) fn gain_per_bypass(&self) -> Option<f64> {
        let gain =
            self.component_weight[Component::Serv as usize] * self.weight[Sub::Bypass as usize];
        (gain >= 0.0 && gain.is_finite()).then_some(gain)
    }

    /// True when every job's priority is the same nondecreasing function of its effective
    /// queue time alone, so that for jobs whose effective queue time started at submission
    /// the `(submit, id)` order *is* the priority order and sorting can be skipped.
    /// `creds_neutral` says no QOS adds queue-time or xfactor weight.
    pub(crate) fn is_queue_order(&self, creds_neutral: bool) -> bool {
        let only_queue_time = Sub::ALL
            .iter()
            .all(|&s| s == Sub::QueueTime || self.weight[s as usize] == 0.0);
        let serv = self.component_weight[Component::Serv as usize];
        // A decreasing priority is clamped to the constant 1 unless negatives are allowed.
        let monotone = !self.negatives_kept() || serv * self.weight[Sub::QueueTime as usize] >= 0.0;
        only_queue_time && creds_neutral && monotone
    }
}

/// Weight and cap of one component or subcomponent, as summary.json shows them.
#[derive(Serialize)]
struct WeightCap {
    weight: f64,
    cap: f64,
}

/// `{NAME: {weight, cap}, …}` in the guide's order.
struct Table<'a> {
    names: &'a [&'static str],
    weight: &'a [f64],
    cap: &'a [f64],
}

impl Serialize for Table<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.names.len()))?;
        for (i, name) in self.names.iter().enumerate() {
            let entry = WeightCap {
                weight: self.weight[i],
                cap: self.cap[i],
            };
            map.serialize_entry(name, &entry)?;
        }
        map.end()
    }
}

impl Serialize for PriorityConfig {
    /// Readable in summary.json: weights and caps by their maui.cfg names.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let component_names = Component::ALL.map(Component::name);
        let sub_names = Sub::ALL.map(Sub::name);
        let mut s = serializer.serialize_struct("PriorityConfig", 5)?;
        s.serialize_field(
            "components",
            &Table {
                names: &component_names,
                weight: &self.component_weight,
                cap: &self.component_cap,
            },
        )?;
        s.serialize_field(
            "subcomponents",
            &Table {
                names: &sub_names,
                weight: &self.weight,
                cap: &self.cap,
            },
        )?;
        s.serialize_field("xf_min_wclimit", &self.xf_min_wclimit)?;
        s.serialize_field("allow_negative", &self.allow_negative)?;
        s.serialize_field("reject_negative", &self.reject_negative)?;
        s.serialize_field("accrual", &self.accrual)?;
        s.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cred::{CredId, JobCreds};
    use crate::job::JobIdx;

    fn job(submit: Time, wcl: Time) -> QueuedJob {
        QueuedJob::new(JobIdx(0), 1, submit, 1, wcl)
    }

    fn only(sub: Sub, weight: f64) -> PriorityConfig {
        let mut c = PriorityConfig {
            weight: [0.0; Sub::COUNT],
            allow_negative: true,
            ..PriorityConfig::default()
        };
        c.weight[sub as usize] = weight;
        c
    }

    const NO_FS: FsDeltas = FsDeltas {
        per_kind: [Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new()],
    };

    #[test]
    fn default_priority_is_whole_minutes_queued_floored_at_one() {
        let w = PriorityConfig::default();
        assert_eq!(w.priority(&job(0, 60), 0, &NO_FS), 1);
        assert_eq!(w.priority(&job(0, 60), 119, &NO_FS), 1);
        assert_eq!(w.priority(&job(0, 60), 120, &NO_FS), 2);
        assert_eq!(w.priority(&job(0, 60), 3600, &NO_FS), 60);
    }

    #[test]
    fn weights_caps_and_clamps_apply_in_order() {
        let mut w = PriorityConfig::default();
        w.component_weight[Component::Serv as usize] = 10.0;
        w.component_cap[Component::Serv as usize] = 500.0;
        w.weight[Sub::QueueTime as usize] = 2.0;
        w.cap[Sub::QueueTime as usize] = 30.0;
        // 100 min → capped to 30 → ×2 = 60 (under the component cap) → ×10 = 600
        assert_eq!(w.priority(&job(0, 60), 6000, &NO_FS), 600);
        w.component_cap[Component::Serv as usize] = 50.0;
        assert_eq!(w.priority(&job(0, 60), 6000, &NO_FS), 500);
        let neg = only(Sub::QueueTime, -1.0);
        assert_eq!(neg.priority(&job(0, 60), 600, &NO_FS), -10);
        let clamped = PriorityConfig {
            allow_negative: false,
            ..neg
        };
        assert_eq!(clamped.priority(&job(0, 60), 600, &NO_FS), 1);
        // REJECTNEGPRIOJOBS keeps the negative value too (it is what makes a job rejected).
        let rejecting = PriorityConfig {
            reject_negative: true,
            ..clamped.clone()
        };
        assert_eq!(rejecting.priority(&job(0, 60), 600, &NO_FS), -10);
        let huge = only(Sub::QueueTime, 1e12);
        assert_eq!(huge.priority(&job(0, 60), 60, &NO_FS), 1_000_000_000);
    }

    #[test]
    fn system_priority_beats_every_computed_priority() {
        let w = only(Sub::QueueTime, 1e12);
        let mut j = job(0, 60);
        j.system_priority = 7;
        assert_eq!(w.priority(&j, 60, &NO_FS), 1_000_000_007);
    }

    /// The guide's table: xfactor of 1-hour and 4-hour jobs after 1 … 16 hours queued.
    #[test]
    fn guide_xfactor_table() {
        let w = only(Sub::XFactor, 1.0);
        let hour = 3600;
        let expected = [
            (1, [2.0, 3.0, 5.0, 9.0, 17.0]),
            (4, [1.25, 1.5, 2.0, 3.0, 5.0]),
        ];
        for (length, row) in expected {
            for (queued, want) in [1, 2, 4, 8, 16].into_iter().zip(row) {
                let b = w.breakdown(&job(0, length * hour), queued * hour, &NO_FS);
                assert_eq!(
                    b.factor[Sub::XFactor as usize],
                    want,
                    "{length} h job, {queued} h"
                );
            }
        }
    }

    #[test]
    fn xfactor_divides_by_at_least_xfminwclimit() {
        let w = only(Sub::XFactor, 1.0);
        // 60 s job queued 60 s: (60 + 60) / max(120, 60) = 1.
        let b = w.breakdown(&job(0, 60), 60, &NO_FS);
        assert_eq!(b.factor[Sub::XFactor as usize], 1.0);
        let w = PriorityConfig {
            xf_min_wclimit: -1,
            ..w
        };
        assert_eq!(
            w.breakdown(&job(0, 60), 60, &NO_FS).factor[Sub::XFactor as usize],
            2.0
        );
    }

    /// The guide's fairshare example: 100 · (10·5 + 20·0 + 30·(−10) + 40·0 + 0·0) = −25000.
    #[test]
    fn guide_fairshare_example() {
        let mut w = only(Sub::FsUser, 0.0);
        w.component_weight[Component::Fs as usize] = 100.0;
        for (sub, weight) in [
            (Sub::FsUser, 10.0),
            (Sub::FsGroup, 20.0),
            (Sub::FsAccount, 30.0),
            (Sub::FsQos, 40.0),
            (Sub::FsClass, 0.0),
        ] {
            w.weight[sub as usize] = weight;
        }
        let mut j = job(0, 60);
        let mut creds = JobCreds::default();
        for kind in CredKind::ALL {
            creds.set(kind, CredId(0));
        }
        j.creds = creds;
        // User A 5 below target; group B has no target; account C 10 over; the QOS floor
        // is not binding; class E has no target.
        let fs = FsDeltas {
            per_kind: [vec![5.0], vec![0.0], vec![-10.0], vec![0.0], vec![0.0]],
        };
        let b = w.breakdown(&j, 0, &fs);
        assert_eq!(b.component[Component::Fs as usize], -25000.0);
        assert_eq!(b.priority, -25000);
    }

    #[test]
    fn target_queue_time_grows_towards_the_target_then_linearly() {
        let w = only(Sub::TargetQueueTime, 1.0);
        let mut j = job(0, 60);
        j.cred_factors.qt_target = Some(3600);
        let f = |now| w.breakdown(&j, now, &NO_FS).factor[Sub::TargetQueueTime as usize];
        assert_eq!(f(0), 1.0 / 3600.0); // (60 min)^-2
        assert_eq!(f(1800), 1.0 / 900.0); // (30 min)^-2
        assert!(f(3540) > f(1800));
        assert_eq!(f(3600), 1e8);
        assert_eq!(f(3600 + 600), 1e8 + 10.0);
        // No QOS target: no term.
        assert_eq!(
            w.breakdown(&job(0, 60), 100, &NO_FS).factor[Sub::TargetQueueTime as usize],
            0.0
        );
    }

    #[test]
    fn target_xfactor_uses_the_xfactor() {
        let w = only(Sub::TargetXFactor, 1.0);
        let mut j = job(0, 3600);
        j.cred_factors.xf_target = Some(3.0);
        // After 1 h: xfactor 2, one below the target.
        assert_eq!(
            w.breakdown(&j, 3600, &NO_FS).factor[Sub::TargetXFactor as usize],
            1.0
        );
        // After 4 h: xfactor 5, two past it.
        assert_eq!(
            w.breakdown(&j, 4 * 3600, &NO_FS).factor[Sub::TargetXFactor as usize],
            1e8 + 2.0
        );
    }

    /// `--semantics maui-3.3.1`: TQT is `ε^−2` from the first second (3.3.1 subtracts the
    /// queue time's absolute stamp from the target), TXF grows towards the target as the
    /// guide's but stays at `ε^−2` past it; the priority agrees with the breakdown.
    #[test]
    fn maui_3_3_1_target_service_is_constant_past_reach() {
        let mut w = only(Sub::TargetQueueTime, 1.0);
        w.weight[Sub::TargetXFactor as usize] = 1.0;
        w.target_service_3_3_1 = true;
        let mut j = job(0, 3600);
        j.cred_factors.qt_target = Some(3600);
        j.cred_factors.xf_target = Some(3.0);
        let f = |now, sub: Sub| w.breakdown(&j, now, &NO_FS).factor[sub as usize];
        assert_eq!(f(0, Sub::TargetQueueTime), 1e8);
        assert_eq!(f(4 * 3600, Sub::TargetQueueTime), 1e8);
        assert_eq!(f(3600, Sub::TargetXFactor), 1.0);
        assert_eq!(f(4 * 3600, Sub::TargetXFactor), 1e8);
        assert_eq!(w.priority(&j, 4 * 3600, &NO_FS), 200_000_000);
    }

    #[test]
    fn qos_weights_add_and_group_class_weight_replaces() {
        let mut w = only(Sub::QueueTime, 1.0);
        w.weight[Sub::Class as usize] = 2.0;
        let mut j = job(0, 60);
        j.cred_factors.qt_weight = 4.0;
        j.cred_factors.priority[CredKind::Class.index()] = 100.0;
        let b = w.breakdown(&j, 600, &NO_FS);
        assert_eq!(b.sub[Sub::QueueTime as usize], 50.0);
        assert_eq!(b.sub[Sub::Class as usize], 200.0);
        j.cred_factors.class_weight = Some(3.0);
        let b = w.breakdown(&j, 600, &NO_FS);
        assert_eq!(b.sub[Sub::Class as usize], 300.0);
        assert_eq!(b.priority, 350);
    }

    #[test]
    fn resource_factors_and_caps() {
        let mut w = only(Sub::Node, 0.0);
        w.allow_negative = false;
        for (sub, weight) in [
            (Sub::Node, 1.0),
            (Sub::Proc, 10.0),
            (Sub::Mem, 0.5),
            (Sub::Ps, 0.001),
            (Sub::Walltime, 0.01),
        ] {
            w.weight[sub as usize] = weight;
        }
        let mut j = QueuedJob::new(JobIdx(0), 1, 0, 8, 1000);
        j.resources.nodes = 2;
        j.resources.mem_mb = 100.0;
        let b = w.breakdown(&j, 0, &NO_FS);
        // 2 + 80 + 50 + 8 + 10
        assert_eq!(b.component[Component::Res as usize], 150.0);
        w.cap[Sub::Proc as usize] = 4.0;
        w.component_cap[Component::Res as usize] = 100.0;
        let b = w.breakdown(&j, 0, &NO_FS);
        assert_eq!(b.sub[Sub::Proc as usize], 40.0);
        assert_eq!(b.component[Component::Res as usize], 100.0);
    }

    #[test]
    fn usage_applies_to_running_jobs() {
        let mut w = PriorityConfig::default();
        for sub in [
            Sub::Consumed,
            Sub::Remaining,
            Sub::Percent,
            Sub::ExecutionTime,
        ] {
            w.weight[sub as usize] = 1.0;
        }
        let b = w.usage(4, 100, 1000, 350);
        assert_eq!(b.factor[Sub::Consumed as usize], 1000.0);
        assert_eq!(b.factor[Sub::Remaining as usize], 3000.0);
        assert_eq!(b.factor[Sub::Percent as usize], 25.0);
        assert_eq!(b.factor[Sub::ExecutionTime as usize], 250.0);
        assert_eq!(b.raw, 4275.0);
        // Idle jobs have no usage.
        let idle = w.breakdown(&job(0, 60), 0, &NO_FS);
        assert_eq!(idle.component[Component::Usage as usize], 0.0);
    }

    proptest::proptest! {
        /// The cached fast path the scheduler sorts by and the full breakdown agree on
        /// every priority, whatever the weights, caps and job.
        #[test]
        fn fast_priority_equals_breakdown(
            weights in proptest::collection::vec(-1000.0..1000.0f64, Sub::COUNT),
            caps in proptest::collection::vec(0.0..500.0f64, Sub::COUNT),
            component_weights in proptest::collection::vec(-10.0..10.0f64, Component::COUNT),
            zero_mask in proptest::collection::vec(proptest::bool::ANY, Sub::COUNT),
            queued in 0i64..1_000_000,
            wcl in 1i64..200_000,
            procs in 1u64..5000,
            bypass in 0u32..50,
            qt_target in proptest::option::of(1i64..100_000),
            xf_target in proptest::option::of(1.0..50.0f64),
            fs_delta in -50.0..50.0f64,
            allow_negative in proptest::bool::ANY,
            system_priority in 0u32..3,
        ) {
            let mut w = PriorityConfig { allow_negative, ..PriorityConfig::default() };
            for s in 0..Sub::COUNT {
                w.weight[s] = if zero_mask[s] { 0.0 } else { weights[s] };
                w.cap[s] = caps[s];
            }
            w.component_weight.copy_from_slice(&component_weights);
            let mut j = QueuedJob::new(JobIdx(0), 1, 0, procs, wcl);
            j.bypass = bypass;
            j.system_priority = system_priority;
            j.cred_factors.qt_target = qt_target;
            j.cred_factors.xf_target = xf_target;
            j.cred_factors.priority = [3.0, -2.0, 7.5, 1.0, 4.0];
            j.cred_factors.qt_weight = 2.0;
            j.resources.mem_mb = 1000.0;
            let mut creds = JobCreds::default();
            for kind in CredKind::ALL {
                creds.set(kind, CredId(0));
            }
            j.creds = creds;
            let fs = FsDeltas { per_kind: [vec![fs_delta], vec![-fs_delta], vec![1.0], vec![0.0], vec![2.0]] };
            let fast = w.priority_from_terms(&j, &w.job_terms(&j), queued, Some(&fs));
            proptest::prop_assert_eq!(fast, w.breakdown(&j, queued, &fs).priority);
            let zero = FsDeltas { per_kind: [vec![0.0], vec![0.0], vec![0.0], vec![0.0], vec![0.0]] };
            let without_fs = w.priority_from_terms::<FsDeltas>(&j, &w.job_terms(&j), queued, None);
            proptest::prop_assert_eq!(without_fs, w.breakdown(&j, queued, &zero).priority);
        }
    }

    #[test]
    fn queue_order_fast_path_only_for_pure_queue_time() {
        let w = PriorityConfig::default();
        assert!(w.is_queue_order(true));
        assert!(!w.is_queue_order(false));
        assert!(!only(Sub::XFactor, 1.0).is_queue_order(true));
        assert!(!only(Sub::QueueTime, -1.0).is_queue_order(true));
        let mut zero_res = w.clone();
        zero_res.component_weight[Component::Res as usize] = 0.0;
        assert!(zero_res.is_queue_order(true));
    }
}
