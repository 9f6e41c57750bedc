//! Maui 3.3.1's partitions (reports/research/maui-3.3.1-partitions-and-node-sets.md):
//! a partition table of ALL (index 0), DEFAULT (1) and at most two of the site's (2, 3);
//! each job's partition access list, computed once from its credentials' PLIST/PDEF
//! (MPar.c `MJobGetPAL`, `MJobFindDefPart`); and the rule that a job runs within one
//! partition, never across two.

use crate::cred::{CredKind, JobCreds};
use crate::cred_settings::CredTables;
use serde::Serialize;

/// Partition indices: ALL, DEFAULT and the site's two (3.3.1's `MAX_MPAR` is 4).
pub const PARTITION_SLOTS: usize = 4;
/// The index of DEFAULT, where every node without a partition of its own is.
pub const DEFAULT_PARTITION: u8 = 1;
/// Every index set: the system list when SYSCFG sets no PLIST.
const EVERY: u8 = (1 << PARTITION_SLOTS) - 1;

/// How a credential's list combines with the others (`&` in the value: AND, `^`: ONLY).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum ListKind {
    #[default]
    Or,
    And,
    Only,
}

/// A PLIST (with the partition of a PDEF added, as 3.3.1 adds it): bit `i` for index `i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct PartitionList {
    pub kind: ListKind,
    pub bits: u8,
}

impl PartitionList {
    /// SYSCFG's list when the config sets none: every partition.
    pub const EVERY: PartitionList = PartitionList {
        kind: ListKind::Or,
        bits: EVERY,
    };
}

/// The partition table of a run, as the policy sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Partitions {
    /// Per index (DEFAULT and the site's), the partition number its nodes carry
    /// ([`crate::NodeSpec::partition`]); 0 for ALL and for a partition without nodes.
    pub node_partition: [u32; PARTITION_SLOTS],
    /// SYSCFG PLIST: the system list every OR list adds to.
    pub system: PartitionList,
    /// SYSCFG PDEF's index (DEFAULT unless set; 0 is ALL, which names no partition).
    pub system_default: u8,
}

/// Where a job may run: its partitions (bit per index), and the one of its first pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Access {
    pub allowed: u8,
    pub default: u8,
}

impl Default for Partitions {
    fn default() -> Self {
        Partitions {
            node_partition: [0; PARTITION_SLOTS],
            system: PartitionList::EVERY,
            system_default: DEFAULT_PARTITION,
        }
    }
}

impl Partitions {
    /// The indices of the partitions that have nodes, in 3.3.1's scheduling order.
    pub fn with_nodes(&self) -> impl Iterator<Item = u8> + Clone + '_ {
        (1..PARTITION_SLOTS as u8).filter(|&i| self.node_partition[i as usize] != 0)
    }

    /// Whether jobs must be kept within one of several partitions (more than one has
    /// nodes); otherwise partitions only decide which jobs may run at all.
    pub fn divide_the_machine(&self) -> bool {
        self.with_nodes().count() > 1
    }

    /// The node partition number of index `i`.
    pub fn nodes_of(&self, i: u8) -> u32 {
        self.node_partition[i as usize]
    }

    /// The job's partition access list and default partition (MPar.c `MJobGetPAL` and
    /// `MJobFindDefPart`): the system list, OR every OR list of its user, group,
    /// account, class and QOS; an AND list (QOS, class, account, group, user) replaces
    /// that and the next ones narrow it; the first ONLY list (user, group, account,
    /// class, QOS) replaces everything. A DEFAULT object's list is not inherited (3.3.1
    /// copies no PLIST from it). The default partition is the first PDEF of user, group,
    /// account and QOS (not the class: 3.3.1 passes none), else SYSCFG's.
    pub fn access(&self, tables: &CredTables, creds: &JobCreds) -> Access {
        let list = |kind: CredKind| {
            let id = creds.get(kind);
            id.get().and_then(|_| tables.own(kind, id).partitions)
        };
        let or_order = [
            CredKind::User,
            CredKind::Group,
            CredKind::Account,
            CredKind::Class,
            CredKind::Qos,
        ];
        let mut allowed = self.system.bits;
        let mut and_mask = self.system.kind == ListKind::And;
        if !and_mask {
            for l in or_order.iter().filter_map(|&k| list(k)) {
                if l.kind == ListKind::Or {
                    allowed |= l.bits;
                }
            }
        }
        let and_order = [
            CredKind::Qos,
            CredKind::Class,
            CredKind::Account,
            CredKind::Group,
            CredKind::User,
        ];
        for l in and_order.iter().filter_map(|&k| list(k)) {
            if l.kind == ListKind::And && l.bits != 0 {
                if and_mask {
                    allowed &= l.bits;
                } else {
                    allowed = l.bits;
                    and_mask = true;
                }
            }
        }
        let only = or_order
            .iter()
            .filter_map(|&k| list(k))
            .find(|l| l.kind == ListKind::Only && l.bits != 0);
        if let Some(l) = only {
            allowed = l.bits;
        }
        let default_order = [
            CredKind::User,
            CredKind::Group,
            CredKind::Account,
            CredKind::Qos,
        ];
        let default = default_order
            .iter()
            .filter(|&&k| creds.get(k).get().is_some())
            .find_map(|&k| {
                let own = tables.own(k, creds.get(k)).default_partition;
                own.filter(|&p| p != 0)
            })
            .unwrap_or(self.system_default);
        // ALL (bit 0) takes only jobs that span partitions, which no trace job asks to.
        Access {
            allowed: allowed & !1,
            default,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cred::CredId;

    fn table(lists: &[(CredKind, u32, ListKind, u8, Option<u8>)]) -> CredTables {
        let mut t = CredTables::default();
        for &(kind, id, list_kind, bits, pdef) in lists {
            let s = t.own_mut(kind, CredId(id));
            s.partitions = Some(PartitionList {
                kind: list_kind,
                bits,
            });
            s.default_partition = pdef;
        }
        t
    }

    fn job(user: u32, group: u32) -> JobCreds {
        let mut c = JobCreds::default();
        c.set(CredKind::User, CredId(user));
        c.set(CredKind::Group, CredId(group));
        c
    }

    fn narrowed(bits: u8) -> Partitions {
        Partitions {
            node_partition: [0, 1, 2, 3],
            system: PartitionList {
                kind: ListKind::Or,
                bits,
            },
            system_default: DEFAULT_PARTITION,
        }
    }

    #[test]
    fn or_lists_add_to_the_system_list_and_restrict_nothing_by_default() {
        let t = table(&[(CredKind::Group, 0, ListKind::Or, 0b1000, Some(3))]);
        let every = Partitions::default();
        assert_eq!(every.access(&t, &job(0, 0)).allowed, 0b1110);
        // SYSCFG PLIST= (empty): only what the credentials add.
        let none = narrowed(0);
        assert_eq!(
            none.access(&t, &job(0, 0)),
            Access {
                allowed: 0b1000,
                default: 3
            }
        );
        assert_eq!(
            none.access(&t, &job(0, 1)),
            Access {
                allowed: 0,
                default: DEFAULT_PARTITION
            }
        );
    }

    #[test]
    fn and_lists_narrow_and_the_first_only_list_replaces() {
        let t = table(&[
            (CredKind::User, 0, ListKind::And, 0b0110, None),
            (CredKind::Group, 0, ListKind::And, 0b0100, None),
            (CredKind::User, 1, ListKind::Only, 0b1000, None),
            (CredKind::Group, 1, ListKind::Only, 0b0010, Some(2)),
        ]);
        let p = narrowed(0b0010);
        assert_eq!(p.access(&t, &job(0, 0)).allowed, 0b0100);
        // The user's ONLY list comes before the group's; the group's PDEF still counts.
        assert_eq!(
            p.access(&t, &job(1, 1)),
            Access {
                allowed: 0b1000,
                default: 2
            }
        );
    }

    #[test]
    fn the_user_default_partition_comes_first_and_all_names_none() {
        let t = table(&[
            (CredKind::User, 0, ListKind::Or, 0b0100, Some(2)),
            (CredKind::Group, 0, ListKind::Or, 0b1000, Some(3)),
            (CredKind::User, 1, ListKind::Or, 0b0001, Some(0)),
        ]);
        let p = Partitions::default();
        assert_eq!(p.access(&t, &job(0, 0)).default, 2);
        assert_eq!(p.access(&t, &job(1, 0)).default, 3);
    }
}
