//! Policy parameters of one scheduler instance (the meaning of maui.cfg, already validated).

use crate::cred::{CredKind, CredTables};
use crate::fairshare::FsConfig;
use crate::limits::Limits;
use crate::priority::PriorityConfig;
use serde::Serialize;

/// BACKFILLPOLICY.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum BackfillPolicy {
    /// Jobs below the blocked ones start in priority order wherever they fit without
    /// touching a reservation.
    FirstFit,
    /// Strict priority: nothing below the first blocked job starts.
    None,
}

/// Everything that shapes a scheduling iteration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PolicyConfig {
    pub backfill: BackfillPolicy,
    /// RESERVATIONDEPTH: how many blocked jobs get a reservation each iteration.
    pub reservation_depth: u32,
    pub priority: PriorityConfig,
    /// FSPOLICY, FSINTERVAL, FSDEPTH, FSDECAY (targets are in `creds`).
    pub fairshare: FsConfig,
    /// `*CFG` credential objects by id (the caller shows them by name).
    #[serde(skip)]
    pub creds: CredTables,
    /// SYSTEMCFG limits (every job together) and SYSTEMMAX*PERJOB (each job alone).
    #[serde(skip_serializing_if = "Limits::is_empty")]
    pub system_limits: Limits,
}

impl Default for PolicyConfig {
    /// Maui's defaults: FIRSTFIT, RESERVATIONDEPTH 1, priority by queue time.
    fn default() -> Self {
        PolicyConfig {
            backfill: BackfillPolicy::FirstFit,
            reservation_depth: 1,
            priority: PriorityConfig::default(),
            fairshare: FsConfig::default(),
            creds: CredTables::default(),
            system_limits: Limits::NONE,
        }
    }
}

impl PolicyConfig {
    /// True when the priority order is the queue order (see
    /// [`PriorityConfig::is_queue_order`]) for every job that has no system priority and
    /// whose queue time accrued from submission.
    pub fn priority_is_queue_order(&self) -> bool {
        let qos = CredKind::Qos.index();
        let neutral = self.creds.settings[qos]
            .iter()
            .chain([&self.creds.defaults[qos]])
            .all(|s| s.qt_weight == 0.0 && s.xf_weight == 0.0);
        self.priority.is_queue_order(neutral)
    }
}
