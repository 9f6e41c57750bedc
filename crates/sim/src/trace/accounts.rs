//! Each trace job's account and QOS: the account it requests (SWF has none, so it may be
//! named after its user, group or class), then what the config's ADEF/ALIST and
//! QDEF/QLIST let it have.

use crate::params::credentials::{Denied, Names, Resolver};
use crate::trace::workload::{Counts, Job};
use mauisim_core::{CredId, CredKind};
use serde::Serialize;

/// Where a trace job's requested account comes from (SWF has no account field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AccountFrom {
    /// No requested account: ADEF decides, else the job has none.
    #[default]
    None,
    User,
    Group,
    Class,
}

impl AccountFrom {
    /// The credential whose name becomes the requested account, if any.
    pub(crate) fn source(self) -> Option<CredKind> {
        match self {
            AccountFrom::None => None,
            AccountFrom::User => Some(CredKind::User),
            AccountFrom::Group => Some(CredKind::Group),
            AccountFrom::Class => Some(CredKind::Class),
        }
    }
}

/// Gives every job its requested account (per `account_from`), then its account and QOS
/// per the config. Denied requests are counted in `adjusted`.
pub fn assign_all(
    jobs: &mut [Job],
    names: &mut Names,
    resolver: &Resolver,
    account_from: AccountFrom,
    adjusted: &mut Counts,
) {
    let source = account_from.source();
    // The account named like each source credential, computed once per credential.
    let mut mapped: Vec<CredId> = Vec::new();
    if let Some(kind) = source {
        for i in 0..names.count(kind) {
            let name = names.name(kind, CredId(i as u32)).to_string();
            mapped.push(names.intern(CredKind::Account, &name));
        }
    }
    for job in jobs {
        if let Some(kind) = source {
            if let Some(i) = job.creds.get(kind).get() {
                job.requested_account = mapped[i];
            }
        }
        assign_requested(job, resolver, adjusted);
    }
}

/// Gives `job` its account and QOS from its requests and the config, counting a denied
/// request in `adjusted`.
pub(crate) fn assign_requested(job: &mut Job, resolver: &Resolver, adjusted: &mut Counts) {
    let (account, qos) = (job.requested_account, job.requested_qos());
    match resolver.assign(&mut job.creds, account, qos) {
        Some(Denied::Account) => *adjusted.entry("account_request_denied").or_default() += 1,
        Some(Denied::Qos) => *adjusted.entry("qos_request_denied").or_default() += 1,
        None => {}
    }
}
