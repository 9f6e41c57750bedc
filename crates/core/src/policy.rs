//! Policy parameters of one scheduler instance (the meaning of maui.cfg, already validated).

use crate::priority::PriorityWeights;
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
    pub priority: PriorityWeights,
}

impl Default for PolicyConfig {
    /// Maui's defaults: FIRSTFIT, RESERVATIONDEPTH 1, priority by queue time.
    fn default() -> Self {
        PolicyConfig {
            backfill: BackfillPolicy::FirstFit,
            reservation_depth: 1,
            priority: PriorityWeights::default(),
        }
    }
}
