//! What the config says about each credential: the settings of the `*CFG[name]` objects
//! (priority, QOS weights and targets, the group's class weight, FSTARGET, limits) as
//! id-indexed tables, and each job's credential-dependent priority inputs.

use crate::cred::{CredId, CredKind, JobCreds};
use crate::limits::Limits;
use crate::partition::PartitionList;
use crate::Time;
use serde::Serialize;

/// How an FSTARGET value acts (its suffix).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TargetKind {
    /// No suffix: priority rises below the target and falls above it.
    Target,
    /// `+`: priority only rises, below the target.
    Floor,
    /// `-`: priority only falls, above the target.
    Ceiling,
    /// `^`: jobs are not eligible once the usage (proc-seconds) would pass the value.
    AbsoluteCap,
    /// `%`: jobs are not eligible once the share (percent) would pass the value.
    RelativeCap,
}

impl TargetKind {
    pub fn suffix(self) -> &'static str {
        match self {
            TargetKind::Target => "",
            TargetKind::Floor => "+",
            TargetKind::Ceiling => "-",
            TargetKind::AbsoluteCap => "^",
            TargetKind::RelativeCap => "%",
        }
    }

    pub fn is_cap(self) -> bool {
        matches!(self, TargetKind::AbsoluteCap | TargetKind::RelativeCap)
    }
}

/// One FSTARGET: percent of delivered usage, or proc-seconds for an absolute cap.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FsTarget {
    pub value: f64,
    pub kind: TargetKind,
}

/// What one `*CFG[name]` object sets that the scheduling policy uses. Attributes that
/// only make sense for one kind (QOS targets, the group's class weight) stay at their
/// neutral values elsewhere.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CredSettings {
    /// PRIORITY: the CRED subcomponent's factor.
    pub priority: f64,
    /// QOSCFG QTWEIGHT: added to QUEUETIMEWEIGHT for this QOS's jobs.
    pub qt_weight: f64,
    /// QOSCFG XFWEIGHT: added to XFACTORWEIGHT.
    pub xf_weight: f64,
    /// QOSCFG QTTARGET (seconds): drives TARGETQUEUETIME.
    pub qt_target: Option<Time>,
    /// QOSCFG XFTARGET: drives TARGETXFACTOR.
    pub xf_target: Option<f64>,
    /// GROUPCFG CLASSWEIGHT: replaces CLASSWEIGHT for the group's jobs when > 0.
    pub class_weight: Option<f64>,
    /// FSTARGET: fairshare target, floor, ceiling or cap.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fs_target: Option<FsTarget>,
    /// Throttling limits (`MAXJOB=…`, `MAXIPROC=…`, QOS `OMAX*`, `MAXJOB[USER]=…`).
    #[serde(skip_serializing_if = "Limits::is_empty")]
    pub limits: Limits,
    /// QOSCFG QFLAGS=NOBF: backfill never starts this QOS's jobs.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub no_backfill: bool,
    /// QOSCFG QFLAGS=PREEMPTOR (or a credential's JOBFLAGS=PREEMPTOR): in the priority
    /// pass its jobs preempt PREEMPTEE jobs of lower priority when too few processors are
    /// free.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub preemptor: bool,
    /// QOSCFG QFLAGS=PREEMPTEE (or a credential's JOBFLAGS=PREEMPTEE): its running jobs
    /// may be preempted.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub preemptee: bool,
    /// QOSCFG QFLAGS=RESERVEALWAYS: its waiting jobs are reserved every iteration, beyond
    /// RESERVATIONDEPTH, and start when their reservation does.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub reserve_always: bool,
    /// QOSCFG QFLAGS=DEDICATED (or a credential's JOBFLAGS=DEDICATEDNODE): its jobs take
    /// their nodes whole (SINGLEJOB for them).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dedicated: bool,
    /// QOSCFG QFLAGS=PREEMPTSPV: its running jobs become PREEMPTEE once a selection finds
    /// them over a soft active limit.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub preempt_spv: bool,
    /// PLIST (with PDEF's partition added): the partitions its jobs may use.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partitions: Option<PartitionList>,
    /// PDEF's partition index (0: ALL, which names none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_partition: Option<u8>,
}

/// The settings of every configured credential, by kind and id, with each kind's
/// DEFAULT object. A credential the config never mentions has neutral settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CredTables {
    pub defaults: [CredSettings; 5],
    /// Indexed by [`CredId`]; shorter than the name table when the last names are
    /// unconfigured.
    pub settings: [Vec<CredSettings>; 5],
}

static NEUTRAL: CredSettings = CredSettings {
    priority: 0.0,
    qt_weight: 0.0,
    xf_weight: 0.0,
    qt_target: None,
    xf_target: None,
    class_weight: None,
    fs_target: None,
    limits: Limits::NONE,
    no_backfill: false,
    preemptor: false,
    preemptee: false,
    reserve_always: false,
    dedicated: false,
    preempt_spv: false,
    partitions: None,
    default_partition: None,
};

impl CredTables {
    /// The credential's own settings (neutral when unconfigured or absent).
    pub(crate) fn own(&self, kind: CredKind, id: CredId) -> &CredSettings {
        id.get()
            .and_then(|i| self.settings[kind.index()].get(i))
            .unwrap_or(&NEUTRAL)
    }

    pub fn own_mut(&mut self, kind: CredKind, id: CredId) -> &mut CredSettings {
        let i = id.get().expect("a configured credential has an id");
        let table = &mut self.settings[kind.index()];
        if table.len() <= i {
            table.resize(i + 1, CredSettings::default());
        }
        &mut table[i]
    }

    pub(crate) fn default_of(&self, kind: CredKind) -> &CredSettings {
        &self.defaults[kind.index()]
    }

    /// Resolves, once per job, the credential-dependent inputs of its priority.
    pub(crate) fn resolve(&self, creds: &JobCreds) -> ResolvedCreds {
        let mut priority = [0.0; 5];
        for kind in CredKind::ALL {
            let own = self.own(kind, creds.get(kind)).priority;
            // A credential without its own PRIORITY takes its kind's DEFAULT
            // (MAUI-SEMANTICS §1). The QOS has no such fallback in Maui.
            priority[kind.index()] = if own != 0.0 || kind == CredKind::Qos {
                own
            } else {
                self.default_of(kind).priority
            };
        }
        let qos = self.own(CredKind::Qos, creds.get(CredKind::Qos));
        // JOBFLAGS of the job's own user, group, account and class, ORed into its flags
        // as its QOS's (MJob.c `MJobUpdateFlags`).
        let (mut preemptor, mut preemptee, mut dedicated) =
            (qos.preemptor, qos.preemptee, qos.dedicated);
        for kind in [
            CredKind::User,
            CredKind::Group,
            CredKind::Account,
            CredKind::Class,
        ] {
            let own = self.own(kind, creds.get(kind));
            preemptor |= own.preemptor;
            preemptee |= own.preemptee;
            dedicated |= own.dedicated;
        }
        let class_weight = self
            .own(CredKind::Group, creds.get(CredKind::Group))
            .class_weight
            .or(self.default_of(CredKind::Group).class_weight)
            .filter(|w| *w > 0.0);
        ResolvedCreds {
            priority,
            qt_weight: qos.qt_weight,
            xf_weight: qos.xf_weight,
            qt_target: qos.qt_target,
            xf_target: qos.xf_target,
            class_weight,
            no_backfill: qos.no_backfill,
            preemptor,
            preemptee,
            reserve_always: qos.reserve_always,
            dedicated,
            preempt_spv: qos.preempt_spv,
        }
    }
}

/// A job's credential-dependent priority inputs, resolved when it is queued.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ResolvedCreds {
    /// PRIORITY of user, group, account, QOS, class (DEFAULT fallback applied).
    pub priority: [f64; 5],
    pub qt_weight: f64,
    pub xf_weight: f64,
    pub qt_target: Option<Time>,
    pub xf_target: Option<f64>,
    pub class_weight: Option<f64>,
    /// The job's QOS has the NOBF flag: backfill never starts it.
    pub no_backfill: bool,
    /// The job's QOS has the PREEMPTOR flag, or a credential of it that job flag.
    pub preemptor: bool,
    /// The job's QOS has the PREEMPTEE flag, or a credential of it that job flag.
    pub preemptee: bool,
    /// The job's QOS has the RESERVEALWAYS flag.
    pub reserve_always: bool,
    /// The job's QOS has the DEDICATED flag, or a credential of it DEDICATEDNODE.
    pub dedicated: bool,
    /// The job's QOS has the PREEMPTSPV flag.
    pub preempt_spv: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn creds(user: u32, group: u32, qos: u32) -> JobCreds {
        let mut c = JobCreds::default();
        c.set(CredKind::User, CredId(user));
        c.set(CredKind::Group, CredId(group));
        c.set(CredKind::Qos, CredId(qos));
        c
    }

    #[test]
    fn own_priority_wins_and_default_fills_zero() {
        let mut t = CredTables::default();
        t.own_mut(CredKind::User, CredId(1)).priority = -1000.0;
        t.defaults[CredKind::User.index()].priority = 50.0;
        t.defaults[CredKind::Qos.index()].priority = 7.0;
        t.own_mut(CredKind::Qos, CredId(2)).priority = 3.0;
        let a = t.resolve(&creds(1, 0, 2));
        assert_eq!(a.priority[CredKind::User.index()], -1000.0);
        assert_eq!(a.priority[CredKind::Qos.index()], 3.0);
        let b = t.resolve(&creds(0, 0, 0));
        assert_eq!(b.priority[CredKind::User.index()], 50.0);
        // The QOS takes its own priority only.
        assert_eq!(b.priority[CredKind::Qos.index()], 0.0);
        // No account at all: the DEFAULT account's priority (zero here).
        assert_eq!(b.priority[CredKind::Account.index()], 0.0);
    }

    #[test]
    fn qos_weights_targets_and_group_class_weight_resolve() {
        let mut t = CredTables::default();
        let q = t.own_mut(CredKind::Qos, CredId(4));
        q.qt_weight = 5000.0;
        q.xf_weight = 10.0;
        q.qt_target = Some(3600);
        q.xf_target = Some(2.5);
        t.own_mut(CredKind::Group, CredId(3)).class_weight = Some(9.0);
        let r = t.resolve(&creds(0, 3, 4));
        assert_eq!(
            (r.qt_weight, r.xf_weight, r.qt_target, r.xf_target),
            (5000.0, 10.0, Some(3600), Some(2.5))
        );
        assert_eq!(r.class_weight, Some(9.0));
        assert_eq!(t.resolve(&creds(0, 1, 0)).class_weight, None);
        assert_eq!(t.resolve(&JobCreds::default()).qt_target, None);
    }
}
