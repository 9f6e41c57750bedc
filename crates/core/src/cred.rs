//! Credentials: who a job runs as (kinds, dense ids). What the config says about each
//! credential is in [`crate::cred_settings`].
//!
//! Names are the caller's business (the simulator interns them); the core sees dense ids,
//! so no string work happens per iteration.

use serde::Serialize;

/// The five credential kinds that carry priorities, fairshare targets and limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CredKind {
    User,
    Group,
    Account,
    Qos,
    Class,
}

impl CredKind {
    pub const ALL: [CredKind; 5] = [
        CredKind::User,
        CredKind::Group,
        CredKind::Account,
        CredKind::Qos,
        CredKind::Class,
    ];

    pub fn index(self) -> usize {
        self as usize
    }

    /// The maui.cfg object that configures this kind.
    pub fn cfg_name(self) -> &'static str {
        match self {
            CredKind::User => "USERCFG",
            CredKind::Group => "GROUPCFG",
            CredKind::Account => "ACCOUNTCFG",
            CredKind::Qos => "QOSCFG",
            CredKind::Class => "CLASSCFG",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            CredKind::User => "user",
            CredKind::Group => "group",
            CredKind::Account => "account",
            CredKind::Qos => "qos",
            CredKind::Class => "class",
        }
    }
}

/// Index of a credential in its kind's name table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CredId(pub u32);

impl Default for CredId {
    fn default() -> Self {
        CredId::NONE
    }
}

impl CredId {
    /// The job has no credential of this kind (e.g. no account in an SWF trace).
    pub const NONE: CredId = CredId(u32::MAX);

    pub fn get(self) -> Option<usize> {
        (self != CredId::NONE).then_some(self.0 as usize)
    }
}

/// A job's credentials, one per kind, plus its partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct JobCreds {
    pub ids: [CredId; 5],
    pub partition: CredId,
}

impl Default for JobCreds {
    fn default() -> Self {
        JobCreds {
            ids: [CredId::NONE; 5],
            partition: CredId::NONE,
        }
    }
}

impl JobCreds {
    pub fn get(&self, kind: CredKind) -> CredId {
        self.ids[kind.index()]
    }

    pub fn set(&mut self, kind: CredKind, id: CredId) {
        self.ids[kind.index()] = id;
    }
}
