//! PLIST, PDEF and node partitions as Maui 3.3.1 reads them
//! (reports/research/maui-3.3.1-partitions-and-node-sets.md): the partition table, in the
//! order 3.3.1 creates partitions, and each credential's list and default partition.

use super::credentials::DEFAULT;
use super::SimConfig;
use mauisim_config::{Attr, Location};
use mauisim_core::{
    CredKind, ListKind, PartitionList, Partitions, DEFAULT_PARTITION, PARTITION_SLOTS,
};
use std::collections::BTreeMap;

/// One PLIST or PDEF as read, with its owner (`None`: SYSCFG).
#[derive(Debug, Clone, PartialEq)]
struct Setting {
    owner: Option<(CredKind, String)>,
    is_default: bool,
    value: String,
    at: Location,
}

/// Every PLIST and PDEF of the file, in file order.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct PartitionsAsRead {
    settings: Vec<Setting>,
    /// Partitions named by an indexed parameter (`BACKFILLPOLICY[fast]`): (place of the
    /// parameter in 3.3.1's table, name, line), in file order.
    indexed: Vec<(usize, String, Location)>,
}

/// Notes a partition named by a parameter's index (see `partition_params`).
pub(crate) fn record_indexed(c: &mut SimConfig, table_rank: usize, name: &str, at: &Location) {
    c.partitions_read
        .indexed
        .push((table_rank, name.to_string(), at.clone()));
}

/// Notes a PLIST or PDEF of SYSCFG (`owner` `None`) or of a credential.
pub(crate) fn record(c: &mut SimConfig, owner: Option<(CredKind, &str)>, attr: &Attr) {
    c.partitions_read.settings.push(Setting {
        owner: owner.map(|(k, n)| (k, n.to_string())),
        is_default: attr.name == "PDEF",
        value: attr.value.trim().to_string(),
        at: attr.location.clone(),
    });
}

/// 3.3.1 reads SYSCFG, then QOSCFG[DEFAULT], the other QOSCFG lines, USERCFG[DEFAULT], the
/// other USERCFG lines, GROUPCFG[DEFAULT], ACCOUNTCFG[DEFAULT], CLASSCFG[DEFAULT], and then
/// the other GROUPCFG, ACCOUNTCFG and CLASSCFG lines (MSys.c `MSysLoadConfig`): partitions
/// named on them are created in that order.
fn load_rank(owner: &Option<(CredKind, String)>) -> u8 {
    let Some((kind, name)) = owner else {
        return 0;
    };
    let default = name == DEFAULT;
    match (kind, default) {
        (CredKind::Qos, true) => 1,
        (CredKind::Qos, false) => 2,
        (CredKind::User, true) => 3,
        (CredKind::User, false) => 4,
        (CredKind::Group, true) => 5,
        (CredKind::Account, true) => 6,
        (CredKind::Class, true) => 7,
        (CredKind::Group, false) => 8,
        (CredKind::Account, false) => 9,
        (CredKind::Class, false) => 10,
    }
}

/// `&` in the value makes an AND list, `^` an ONLY list (MCred.c).
fn list_kind(value: &str) -> ListKind {
    if value.contains('&') {
        ListKind::And
    } else if value.contains('^') {
        ListKind::Only
    } else {
        ListKind::Or
    }
}

/// The partition names one PLIST item stands for, as MPar.c `MParListBMFromString` reads
/// it: leading `&` and `^` dropped; a number, or a range `m-n` (to 31 at most), names the
/// partitions so numbered, in order; anything else is a name, cut at a `&` (else at a `^`).
fn plist_names(item: &str) -> Vec<String> {
    let item = item.trim_start_matches(['&', '^']);
    if let Some((start, tail)) = leading_integer(item) {
        if start != 0 || item.starts_with('0') {
            let end = match tail.strip_prefix('-') {
                Some(rest) => leading_integer(rest).map_or(0, |(end, _)| end),
                None => start,
            };
            // At most 32 numbers: 3.3.1's table holds far fewer partitions, and each number
            // past them is dropped (a range from a huge negative start would otherwise ask
            // for more memory than there is).
            let numbers = (start..=end.min(31)).take(32);
            return numbers.map(|i| i.to_string()).collect();
        }
    }
    // Cut at a `&` if there is one, else at a `^`.
    let cut = item
        .find('&')
        .or_else(|| item.find('^'))
        .unwrap_or(item.len());
    vec![item[..cut].to_string()]
}

/// The integer at the start of `text` as C's `strtol` base 10 reads it (leading blanks,
/// a sign, digits), and the rest; `None` without digits.
fn leading_integer(text: &str) -> Option<(i64, &str)> {
    let body = text.trim_start();
    let unsigned = body.trim_start_matches(['+', '-']);
    let sign_len = body.len() - unsigned.len();
    if sign_len > 1 {
        return None;
    }
    let digits = unsigned.len()
        - unsigned
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .len();
    if digits == 0 {
        return None;
    }
    let end = sign_len + digits;
    let value: i64 = body[..end].parse().unwrap_or(i64::MAX);
    Some((value, &body[end..]))
}

/// The partition table: ALL, DEFAULT and at most two of the site's (3.3.1's MAX_MPAR).
struct Table {
    names: Vec<String>,
}

impl Table {
    fn find(&self, name: &str) -> Option<u8> {
        self.names.iter().position(|n| n == name).map(|i| i as u8)
    }

    /// The index of `name`, creating the partition if a slot is left.
    fn find_or_add(&mut self, name: &str) -> Option<u8> {
        self.find(name).or_else(|| {
            (self.names.len() < PARTITION_SLOTS).then(|| {
                self.names.push(name.to_string());
                (self.names.len() - 1) as u8
            })
        })
    }
}

/// A list and default partition being read: (kind, bits, default index).
type ListState = (ListKind, u8, Option<u8>);

/// Builds the partition table and every credential's partition list once the whole file
/// is read; nothing when the file names no partition.
pub(crate) fn settle(c: &mut SimConfig, w: &mut Vec<String>) {
    let named_nodes = c.nodes.objects.iter().any(|o| o.partition.is_some());
    let read = &c.partitions_read;
    if read.settings.is_empty() && read.indexed.is_empty() && !named_nodes {
        return;
    }
    let mut table = Table {
        names: vec!["ALL".into(), "DEFAULT".into()],
    };
    // First the indexed parameters' (3.3.1 reads them before any credential line), in
    // its parameter table's order, each parameter's lines in file order.
    let mut indexed = c.partitions_read.indexed.clone();
    indexed.sort_by_key(|(rank, _, _)| *rank);
    for (_, name, at) in &indexed {
        if table.find_or_add(name).is_none() {
            w.push(format!(
                "{at}: warning: partition `{name}`: Maui 3.3.1 holds two partitions besides DEFAULT; it drops this line (\"cannot configure MPar\")"
            ));
        }
    }
    let mut settings = c.partitions_read.settings.clone();
    settings.sort_by_key(|s| load_rank(&s.owner));
    let system_start: ListState = (
        PartitionList::EVERY.kind,
        PartitionList::EVERY.bits,
        Some(DEFAULT_PARTITION),
    );
    let mut lists: BTreeMap<Option<(CredKind, String)>, (ListState, Location)> = BTreeMap::new();
    for s in &settings {
        let start = if s.owner.is_none() {
            system_start
        } else {
            (ListKind::Or, 0, None)
        };
        let entry = lists
            .entry(s.owner.clone())
            .or_insert((start, s.at.clone()));
        let (kind, bits, default) = &mut entry.0;
        let what = match &s.owner {
            None => "SYSCFG".to_string(),
            Some((k, n)) => format!("{}[{n}]", k.cfg_name()),
        };
        *kind = list_kind(&s.value);
        let name_of = |token: &str| token.trim_matches(|ch| ch == '&' || ch == '^').to_string();
        if s.is_default {
            let name = name_of(&s.value);
            // A PDEF creates its partition while a slot is left; else its default is
            // ALL, which names none (MCred.c: `MParFind` hands back the free slot).
            let index = table.find_or_add(&name).unwrap_or_else(|| {
                w.push(format!(
                    "{}: warning: {what} PDEF={name}: Maui 3.3.1 holds two partitions besides DEFAULT; `{name}` is not one of them, so the default partition is ALL (none)",
                    s.at
                ));
                0
            });
            *default = Some(index);
            *bits |= 1 << index;
        } else {
            *bits = 0;
            let names = s.value.split([',', ':']).flat_map(plist_names);
            for token in names {
                if token.is_empty() {
                    continue;
                }
                match table.find_or_add(&token) {
                    Some(i) => *bits |= 1 << i,
                    None => w.push(format!(
                        "{}: warning: {what} PLIST: Maui 3.3.1 holds two partitions besides DEFAULT; `{token}` is dropped from the list",
                        s.at
                    )),
                }
            }
            if let Some(d) = *default {
                if !s.value.is_empty() {
                    *bits |= 1 << d;
                }
            }
        }
    }
    // Then NODECFG[DEFAULT]'s, which only creates its partition; the nodes' own come
    // when the nodes are built, in node order (3.3.1 reads them from the resource trace).
    let default_node = c.nodes.objects.iter().find(|o| o.name == "DEFAULT");
    if let Some(p) = default_node.and_then(|o| o.partition.as_ref()) {
        if table.find_or_add(p).is_none() {
            w.push(format!(
                "warning: NODECFG[DEFAULT] PARTITION={p}: Maui 3.3.1 holds two partitions besides DEFAULT; `{p}` is not made"
            ));
        }
    }
    let mut system = Partitions::default();
    for (owner, ((kind, bits, default), at)) in lists {
        match owner {
            None => {
                system.system = PartitionList { kind, bits };
                system.system_default = default.unwrap_or(DEFAULT_PARTITION);
            }
            Some((cred, name)) if name == DEFAULT => w.push(format!(
                "{at}: warning: {}[DEFAULT] PLIST/PDEF: Maui 3.3.1 gives no other {} a DEFAULT object's partitions (MCredAdjustConfig copies none), and neither does mauisim",
                cred.cfg_name(),
                cred.label()
            )),
            Some((cred, name)) => {
                let object = c.credentials.object_mut(cred, &name);
                object.settings.partitions = Some(PartitionList { kind, bits });
                object.settings.default_partition = default;
            }
        }
    }
    c.nodes.partition_table = Some(table.names);
    c.policy.partitions = Some(system);
}

/// Partitions are simulated as 3.3.1 schedules them, under Maui semantics: elsewhere
/// a config that sets PLIST or PDEF is refused, and node partitions keep their research
/// meaning (a trace job of partition p runs on nodes of p or of none).
pub(crate) fn for_semantics(c: &mut SimConfig) -> Result<(), String> {
    c.nodes.maui_partitions = c.policy.semantics.is_maui();
    if c.policy.partitions.is_none() || c.policy.semantics.is_maui() {
        return Ok(());
    }
    if let Some(s) = c.partitions_read.settings.first() {
        return Err(format!(
            "{}: PLIST/PDEF: partitions are simulated as Maui 3.3.1 schedules them, under --semantics maui or maui-3.3.1 only",
            s.at
        ));
    }
    c.policy.partitions = None;
    c.nodes.partition_table = None;
    Ok(())
}

/// The partitions' node numbers, once the nodes are built; refuses what 3.3.1's
/// partition passes are not simulated with.
pub(crate) fn bind(
    policy: &mut mauisim_core::PolicyConfig,
    c: &SimConfig,
    nodes: &crate::nodes::Nodes,
) -> Result<(), String> {
    if nodes.partition_table.is_none() {
        return Ok(());
    }
    let without = crate::params::without_passes(policy, c);
    let p = policy.partitions.get_or_insert_with(Partitions::default);
    p.node_partition = nodes.partition_numbers;
    if let (true, Some(why)) = (p.divide_the_machine(), without) {
        return Err(format!(
            "nodes in several partitions with {why}: mauisim does not simulate 3.3.1's partition passes without its priority and backfill passes yet"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::params::from_str;
    use mauisim_core::{ListKind, PartitionList};

    #[test]
    fn partitions_are_created_in_3_3_1_order_and_lists_read_as_it_reads_them() {
        let text = "NODECFG[n1] PARTITION=fast\n\
                    GROUPCFG[g1] PLIST=slow PDEF=slow\n\
                    SYSCFG[base] PLIST=\n\
                    USERCFG[u1] PLIST=fast^\n\
                    USERCFG[u2] PDEF=DEFAULT PLIST=fast&\n";
        let loaded = from_str(text, "maui.cfg").unwrap();
        let c = &loaded.config;
        // SYSCFG first, then USERCFG, then GROUPCFG (the nodes' come with the nodes): u1's
        // `fast` is 2.
        assert_eq!(
            c.nodes.partition_table.as_deref(),
            Some(&["ALL", "DEFAULT", "fast", "slow"].map(String::from)[..])
        );
        let p = c.policy.partitions.as_ref().unwrap();
        assert_eq!(
            p.system,
            PartitionList {
                kind: ListKind::Or,
                bits: 0
            }
        );
        assert_eq!(p.system_default, 1);
        let u1 = &c.credentials.user["u1"].settings;
        assert_eq!(
            u1.partitions,
            Some(PartitionList {
                kind: ListKind::Only,
                bits: 0b0100
            })
        );
        // A PLIST after a PDEF keeps the default partition in the list.
        let u2 = &c.credentials.user["u2"].settings;
        assert_eq!(u2.default_partition, Some(1));
        assert_eq!(
            u2.partitions,
            Some(PartitionList {
                kind: ListKind::And,
                bits: 0b0110
            })
        );
        let g1 = &c.credentials.group["g1"].settings;
        assert_eq!(
            g1.partitions,
            Some(PartitionList {
                kind: ListKind::Or,
                bits: 0b1000
            })
        );
        assert_eq!(g1.default_partition, Some(3));
    }

    /// Seen in 3.3.1's log: ACCOUNTCFG[DEFAULT] is read before any GROUPCFG line but
    /// DEFAULT's, so p2 takes the slot before p1, which is dropped.
    #[test]
    fn default_objects_come_first_in_the_creation_order() {
        let text = "GROUPCFG[g1] PLIST=p1\nACCOUNTCFG[DEFAULT] PLIST=p2\nUSERCFG[u1] PLIST=p3\n";
        let loaded = from_str(text, "maui.cfg").unwrap();
        assert_eq!(
            loaded.config.nodes.partition_table.as_deref(),
            Some(&["ALL", "DEFAULT", "p3", "p2"].map(String::from)[..])
        );
        let w = loaded.warnings.join("\n");
        assert!(w.contains("`p1` is dropped"), "{w}");
    }

    #[test]
    fn a_third_partition_of_the_site_is_dropped_with_a_warning() {
        let text = "GROUPCFG[g1] PLIST=a,b,c\nNODECFG[n1] PARTITION=d\n";
        let loaded = from_str(text, "maui.cfg").unwrap();
        let w = loaded.warnings.join("\n");
        assert!(w.contains("`c` is dropped"), "{w}");
        let g1 = &loaded.config.credentials.group["g1"].settings;
        assert_eq!(g1.partitions.unwrap().bits, 0b1100);
    }

    /// MParListBMFromString: a number names the partition so called, a range each number
    /// up to 31, a name is cut at a `&`; so `1-2` makes partitions `1` and `2`.
    #[test]
    fn numbers_and_ranges_in_a_plist_name_partitions_by_number() {
        let loaded = from_str(
            "GROUPCFG[g1] PLIST=&1-2\nGROUPCFG[g2] PLIST=2:7b\n",
            "maui.cfg",
        )
        .unwrap();
        let c = &loaded.config;
        assert_eq!(
            c.nodes.partition_table.as_deref(),
            Some(&["ALL", "DEFAULT", "1", "2"].map(String::from)[..])
        );
        let bits = |g: &str| c.credentials.group[g].settings.partitions.unwrap().bits;
        assert_eq!(bits("g1"), 0b1100);
        // `7b` reads as 7, for which no slot is left.
        assert_eq!(bits("g2"), 0b1000);
        assert!(
            loaded.warnings.join("\n").contains("`7` is dropped"),
            "{:?}",
            loaded.warnings
        );
        let names = |item: &str| super::plist_names(item);
        assert_eq!(names("fast&"), ["fast"]);
        assert_eq!(names("^fast"), ["fast"]);
        assert_eq!(names("a^b&c"), ["a^b"]);
        assert_eq!(names("0"), ["0"]);
        assert_eq!(names("30-40"), ["30", "31"]);
        assert_eq!(names("40"), Vec::<String>::new());
        assert_eq!(names("3-"), Vec::<String>::new());
        assert_eq!(names("-1"), ["-1"]);
        let far = names("-9999999999-5");
        assert_eq!(far.len(), 32);
        assert_eq!(
            (far[0].as_str(), far[31].as_str()),
            ("-9999999999", "-9999999968")
        );
    }
}
