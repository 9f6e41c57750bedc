//! Parameters Maui 3.3.1 keeps per partition (its `mxoPar` parameters: weights, backfill,
//! node allocation, node sets, reservations), given a partition index: `BACKFILLPOLICY[fast]`
//! (reports/research/maui-3.3.1-partitions-and-node-sets.md, "partition-indexed
//! parameters"). 3.3.1 creates the partition named there (MConfig.c `MCfgProcessLine`,
//! `MParAdd`) before any credential line, in the order of its parameter table, and writes
//! the value into that partition's copy, which its scheduling reads for three parameters
//! only: BACKFILLPOLICY (as gates on the partition's backfill), RESERVATIONPOLICY and
//! NODEALLOCATIONPOLICY (in the partition's backfill). Everything else is read from the
//! global copy alone (priority is always computed for partition 0).

use super::SimConfig;
use mauisim_config::{ConfigError, Entry, Location};

/// The `mxoPar` parameters, in the order of 3.3.1's parameter table (MConst.c `MCfg`).
const IN_TABLE_ORDER: &str = include_str!("maui-3.3.1-partition-parameters.txt");

/// The place of `name` among the `mxoPar` parameters, if it is one.
pub(super) fn table_rank(name: &str) -> Option<usize> {
    IN_TABLE_ORDER.lines().position(|n| n == name)
}

/// What a partition index names (MPar.c `MParAdd`).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    /// `ALL` or a number read as 0: the global copy, as without an index.
    Global,
    /// `DEFAULT` or 1: the DEFAULT partition's copy.
    DefaultPartition,
    /// A number from 2 (3 at most): a slot written without a name, which no partition
    /// scheduled with nodes keeps (a later partition's creation clears it).
    Slot(u32),
    /// Any other name: that partition, created if a slot is left.
    Named(String),
}

fn target_of(index: &str) -> Target {
    match index {
        "ALL" => Target::Global,
        "DEFAULT" => Target::DefaultPartition,
        _ if index.starts_with(|c: char| c.is_ascii_digit()) => {
            let digits = index.len() - index.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            match index[..digits].parse::<u64>().map_or(3, |n| n.min(3)) {
                0 => Target::Global,
                1 => Target::DefaultPartition,
                n => Target::Slot(n as u32),
            }
        }
        name => Target::Named(name.to_string()),
    }
}

/// A per-partition value whose effect is judged once the file is read: (parameter,
/// partition as written, the line read without its index).
pub(crate) type PartitionValue = (String, String, Entry);

/// Reads `entry`, an `mxoPar` parameter with a partition index. Returns the entry to apply
/// as a global setting (the index names the global copy, or 3.3.1 writes the value there
/// whatever the index), or `None` when the line only creates a partition and sets that
/// partition's copy.
pub(super) fn read(
    c: &mut SimConfig,
    entry: &Entry,
    index: &str,
    w: &mut Vec<String>,
) -> Result<Option<Entry>, ConfigError> {
    let global = Entry {
        index: None,
        ..entry.clone()
    };
    let target = target_of(index);
    if target == Target::Global {
        return Ok(Some(global));
    }
    if let Target::Named(name) = &target {
        let rank = table_rank(&entry.name).unwrap_or(usize::MAX);
        super::partitions::record_indexed(c, rank, name, &entry.location);
    }
    let at = &entry.location;
    let name = entry.name.as_str();
    match name {
        "SYSTEMMAXJOBWALLTIME" | "SYSTEMMAXPROCPERJOB" | "SYSTEMMAXPROCSECONDPERJOB" => {
            w.push(format!(
                "{at}: note: {name}[{index}]: Maui 3.3.1 sets the system's limit whatever the index (MPar.c); read as {name}"
            ));
            return Ok(Some(global));
        }
        "BACKFILLPOLICY" | "BACKFILLTYPE" | "RESERVATIONPOLICY" | "NODEALLOCATIONPOLICY" => {
            if let Target::Slot(n) = target {
                w.push(unnamed_slot(at, name, index, n));
                return Ok(None);
            }
            // BACKFILLTYPE is 3.3.1's old name of BACKFILLPOLICY.
            let canonical = super::maui_names::alias_of(name).unwrap_or(name);
            c.partition_values
                .push((canonical.to_string(), index.to_string(), global));
            return Ok(None);
        }
        "FSPOLICY" if entry.value_text().trim_end().ends_with('%') => {
            // MFS.c turns on percent-based fairshare for the scheduler whatever the index.
            c.policy.fairshare.ratio = true;
            w.push(format!(
                "{at}: warning: FSPOLICY[{index}]: Maui 3.3.1 reads FSPOLICY from the global settings only, but its `%` turns on percent-based fairshare for all (MFS.c): so does mauisim; the rest of the line changes nothing"
            ));
            return Ok(None);
        }
        _ => {}
    }
    w.push(match target {
        Target::Slot(n) => unnamed_slot(at, name, index, n),
        _ => format!(
            "{at}: warning: {name}[{index}]: Maui 3.3.1 reads {name} from the global settings only (a partition's own copy is read by BACKFILLPOLICY, RESERVATIONPOLICY and NODEALLOCATIONPOLICY alone); this line {}and changes nothing else",
            match &target {
                Target::Named(p) => format!("creates partition {p} (while a slot is left) "),
                _ => String::new(),
            }
        ),
    });
    Ok(None)
}

fn unnamed_slot(at: &Location, name: &str, index: &str, n: u32) -> String {
    format!(
        "{at}: warning: {name}[{index}]: Maui 3.3.1 writes this into partition slot {n} without naming a partition (an old-style numeric index); no partition with nodes keeps it; ignored"
    )
}

/// Judges the per-partition values once the file is read and the partitions made: a line
/// naming a partition 3.3.1 could not make is dropped, as 3.3.1 drops it (MConfig.c
/// `MCfgProcessLine` returns when `MParAdd` fails); a value the partition would have anyway
/// changes nothing (a note); another one changes how 3.3.1 schedules that partition, which
/// mauisim does not simulate yet (refused).
pub(super) fn settle(c: &SimConfig, w: &mut Vec<String>) -> Result<(), ConfigError> {
    let mut errors = Vec::new();
    for (param, partition, entry) in &c.partition_values {
        let made = |table: &Vec<String>| table.iter().any(|p| p == partition);
        if target_of(partition) != Target::DefaultPartition
            && c.nodes.partition_table.as_ref().is_some_and(|t| !made(t))
        {
            w.push(format!(
                "{}: warning: {param}[{partition}]: Maui 3.3.1 holds two partitions besides DEFAULT and does not make `{partition}`, so it drops this line; so does mauisim",
                entry.location
            ));
            continue;
        }
        let mut scratch = SimConfig::default();
        let mut ignored = Vec::new();
        super::apply_param(&mut scratch, entry, &mut ignored)?;
        let at = &entry.location;
        let value = entry.value_text();
        let same = match param.as_str() {
            // A partition's own copy starts as FIRSTFIT, which gates nothing.
            "BACKFILLPOLICY" => scratch.policy.backfill == mauisim_core::BackfillPolicy::FirstFit,
            "RESERVATIONPOLICY" => scratch.policy.reservation_policy == c.policy.reservation_policy,
            _ if partition == "DEFAULT" || partition == "1" => {
                scratch.nodes.allocation == c.nodes.allocation
            }
            // A site partition's backfill allocates LASTAVAILABLE unless told otherwise.
            _ => scratch.nodes.allocation == mauisim_core::AllocationPolicy::LastAvailable,
        };
        if same {
            w.push(format!(
                "{at}: note: {param}[{partition}] {value}: what Maui 3.3.1 does in that partition anyway; no effect"
            ));
            continue;
        }
        let does = match param.as_str() {
            "BACKFILLPOLICY" => "a partition's own BACKFILLPOLICY turns its soft backfill on (anything but FIRSTFIT) or its hard backfill off (NONE), with the global algorithm",
            "RESERVATIONPOLICY" => "the partition's reservations follow its own RESERVATIONPOLICY",
            _ => "the partition's backfill places jobs by its own NODEALLOCATIONPOLICY",
        };
        errors.push(ConfigError::at(
            at.clone(),
            format!(
                "{param}[{partition}] {value}: in Maui 3.3.1 {does}; mauisim does not simulate per-partition settings yet: the schedule would not be your Maui's; remove the index (a global setting) or the line"
            ),
        ));
    }
    match ConfigError::all(errors) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::{target_of, Target};
    use crate::params::from_str;

    #[test]
    fn indexes_name_partitions_as_mparadd_reads_them() {
        assert_eq!(target_of("ALL"), Target::Global);
        assert_eq!(target_of("0"), Target::Global);
        assert_eq!(target_of("DEFAULT"), Target::DefaultPartition);
        assert_eq!(target_of("1"), Target::DefaultPartition);
        assert_eq!(target_of("2"), Target::Slot(2));
        assert_eq!(target_of("17x"), Target::Slot(3));
        assert_eq!(target_of("fast"), Target::Named("fast".into()));
    }

    /// Seen in 3.3.1's log: indexed lines create their partitions before any credential
    /// line, in the parameter table's order (BACKFILLPOLICY before NODESETPOLICY whatever
    /// the file says), and a third is dropped.
    #[test]
    fn indexed_parameters_create_partitions_first_in_table_order() {
        let text =
            "GROUPCFG[g1] PLIST=p1\nNODESETPOLICY[zeta] ONEOF\nBACKFILLPOLICY[alpha] FIRSTFIT\n\
                    QUEUETIMEWEIGHT[beta] 10\nQUEUETIMEWEIGHT[ALL] 7\n";
        let loaded = from_str(text, "maui.cfg").unwrap();
        let c = &loaded.config;
        assert_eq!(
            c.nodes.partition_table.as_deref(),
            Some(&["ALL", "DEFAULT", "alpha", "zeta"].map(String::from)[..])
        );
        let w = loaded.warnings.join("\n");
        assert!(w.contains("`beta`"), "{w}");
        assert!(w.contains("`p1` is dropped"), "{w}");
        assert!(
            w.contains(
                "BACKFILLPOLICY[alpha] FIRSTFIT: what Maui 3.3.1 does in that partition anyway"
            ),
            "{w}"
        );
        assert!(w.contains("QUEUETIMEWEIGHT[beta]: Maui 3.3.1 reads QUEUETIMEWEIGHT from the global settings only"), "{w}");
        // `[ALL]` is the global copy.
        let queue_time = mauisim_core::Sub::QueueTime as usize;
        assert_eq!(c.policy.priority.weight[queue_time], 7.0);
    }

    /// A line naming a partition 3.3.1 cannot make (a third of the site's) is dropped, not
    /// judged: NONE there would be refused if the partition existed.
    #[test]
    fn a_line_of_a_partition_never_made_is_dropped() {
        let text =
            "BACKFILLPOLICY[a] FIRSTFIT\nBACKFILLPOLICY[b] FIRSTFIT\nBACKFILLPOLICY[c] NONE\n";
        let loaded = from_str(text, "maui.cfg").unwrap();
        let w = loaded.warnings.join("\n");
        assert!(
            w.contains("maui.cfg:3:1: warning: BACKFILLPOLICY[c]: Maui 3.3.1 holds two partitions besides DEFAULT and does not make `c`, so it drops this line"),
            "{w}"
        );
        let e = from_str("BACKFILLPOLICY[a] NONE\n", "maui.cfg")
            .unwrap_err()
            .to_string();
        assert!(e.contains("maui.cfg:1:1: BACKFILLPOLICY[a] NONE"), "{e}");
    }

    #[test]
    fn a_percent_on_an_indexed_fspolicy_reaches_the_global_one() {
        let loaded = from_str(
            "FSPOLICY DEDICATEDPS\nFSPOLICY[DEFAULT] DEDICATEDPS%\n",
            "maui.cfg",
        )
        .unwrap();
        assert!(loaded.config.policy.fairshare.ratio);
        let plain = from_str(
            "FSPOLICY DEDICATEDPS\nFSPOLICY[DEFAULT] DEDICATEDPS\n",
            "maui.cfg",
        )
        .unwrap();
        assert!(!plain.config.policy.fairshare.ratio);
    }

    #[test]
    fn per_partition_values_that_would_act_are_refused_and_system_limits_read() {
        let e = from_str("BACKFILLPOLICY[fast] BESTFIT\n", "maui.cfg")
            .unwrap_err()
            .to_string();
        assert!(e.contains("maui.cfg:1:1: BACKFILLPOLICY[fast] BESTFIT: in Maui 3.3.1 a partition's own BACKFILLPOLICY"), "{e}");
        let e = from_str("NODEALLOCATIONPOLICY[fast] MINRESOURCE\n", "maui.cfg")
            .unwrap_err()
            .to_string();
        assert!(e.contains("NODEALLOCATIONPOLICY[fast] MINRESOURCE"), "{e}");
        let ok = from_str(
            "RESERVATIONPOLICY CURRENTHIGHEST\nRESERVATIONPOLICY[DEFAULT] CURRENTHIGHEST\nNODEALLOCATIONPOLICY[fast] LASTAVAILABLE\nSYSTEMMAXPROCPERJOB[fast] 8\n",
            "maui.cfg",
        )
        .unwrap();
        let procs = mauisim_core::Metric::Proc as usize;
        assert_eq!(ok.config.policy.system_limits.per_job[procs], Some(8));
    }
}
