//! Maui's old-style default limits: `MAXJOBPERUSERCOUNT 8`, `SMAXPROCPERUSERCOUNT 32`,
//! `MAXJOBPERUSERPOLICY FALSE` and their group and account forms, as Maui 3.3.1 reads them
//! (MSched.c `MSchedProcessConfig`, MConst.c): each sets the hard (`MAX…COUNT`) or soft
//! (`SMAX…COUNT`) value of one limit of the kind's DEFAULT object, and `…POLICY FALSE`
//! clears both. 3.3.1 reads a file parameter by parameter in its table's order, each
//! parameter's lines in file order (MConfig.c `MCfgProcessBuffer`), and the table holds
//! `MAX…COUNT`, then `MAX…POLICY`, then `SMAX…COUNT`: a POLICY FALSE clears the hard value
//! wherever the lines stand, and never the soft one. It processes parameters before the
//! `*CFG` objects, so a
//! `USERCFG[DEFAULT] MAXJOB=` anywhere in the file wins over them; then it squares the
//! DEFAULT objects' limits: a soft value of 0 is the hard one, a soft value above the hard
//! one (or alone) raises the hard one to it (MConfig.c `MCfgEnforceConstraints`; checked
//! against the real 3.3.1 in `crates/sim/tests/maui_cases/oldlimits-s*`). `MAXPROCPERGROUPCOUNT` and
//! `MAXPROCPERACCOUNTCOUNT` (and their S and POLICY forms) set MAXNODE, not MAXPROC, in
//! 3.3.1's table: so they do here.

use crate::params::credentials::DEFAULT;
use crate::params::SimConfig;
use mauisim_config::{ConfigError, Entry};
use mauisim_core::{CredKind, LimitPair, Metric};

/// Which value of which limit a parameter sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sets {
    Hard,
    Soft,
    /// `…POLICY`: FALSE clears both values; TRUE changes nothing.
    Policy,
}

/// One old-style parameter's line as read, kept until the file is read: 3.3.1 applies
/// them in its table's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct OldLimitLine {
    /// The parameter's place in 3.3.1's table.
    rank: usize,
    kind: CredKind,
    /// An idle limit (MAXIJOB) rather than an active one.
    idle: bool,
    metric: Metric,
    sets: Sets,
    /// The count; `None` for a POLICY FALSE.
    value: Option<u64>,
}

/// One default limit as the old-style parameters leave it, before the `*CFG` objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct OldLimit {
    kind: CredKind,
    idle: bool,
    metric: Metric,
    soft: u64,
    hard: u64,
}

/// Every name, with what it sets.
const NAMES: &[(&str, CredKind, bool, Metric, Sets)] = {
    use CredKind::{Account, Group, User};
    use Metric::{Job, Node, Proc, Ps};
    use Sets::{Hard, Policy, Soft};
    &[
        ("MAXJOBPERUSERCOUNT", User, false, Job, Hard),
        ("SMAXJOBPERUSERCOUNT", User, false, Job, Soft),
        ("MAXJOBPERUSERPOLICY", User, false, Job, Policy),
        ("MAXNODEPERUSERCOUNT", User, false, Node, Hard),
        ("SMAXNODEPERUSERCOUNT", User, false, Node, Soft),
        ("MAXNODEPERUSERPOLICY", User, false, Node, Policy),
        ("MAXPROCPERUSERCOUNT", User, false, Proc, Hard),
        ("SMAXPROCPERUSERCOUNT", User, false, Proc, Soft),
        ("MAXPROCPERUSERPOLICY", User, false, Proc, Policy),
        ("MAXPROCSECONDPERUSERCOUNT", User, false, Ps, Hard),
        ("SMAXPROCSECONDPERUSERCOUNT", User, false, Ps, Soft),
        ("MAXPROCSECONDPERUSERPOLICY", User, false, Ps, Policy),
        ("MAXJOBQUEUEDPERUSERCOUNT", User, true, Job, Hard),
        ("SMAXJOBQUEUEDPERUSERCOUNT", User, true, Job, Soft),
        ("MAXJOBQUEUEDPERUSERPOLICY", User, true, Job, Policy),
        ("MAXJOBPERGROUPCOUNT", Group, false, Job, Hard),
        ("SMAXJOBPERGROUPCOUNT", Group, false, Job, Soft),
        ("MAXJOBPERGROUPPOLICY", Group, false, Job, Policy),
        ("MAXPROCPERGROUPCOUNT", Group, false, Node, Hard),
        ("SMAXPROCPERGROUPCOUNT", Group, false, Node, Soft),
        ("MAXPROCPERGROUPPOLICY", Group, false, Node, Policy),
        ("MAXPROCSECONDPERGROUPCOUNT", Group, false, Ps, Hard),
        ("SMAXPROCSECONDPERGROUPCOUNT", Group, false, Ps, Soft),
        ("MAXPROCSECONDPERGROUPPOLICY", Group, false, Ps, Policy),
        ("MAXJOBQUEUEDPERGROUPCOUNT", Group, true, Job, Hard),
        ("SMAXJOBQUEUEDPERGROUPCOUNT", Group, true, Job, Soft),
        ("MAXJOBQUEUEDPERGROUPPOLICY", Group, true, Job, Policy),
        ("MAXJOBPERACCOUNTCOUNT", Account, false, Job, Hard),
        ("SMAXJOBPERACCOUNTCOUNT", Account, false, Job, Soft),
        ("MAXJOBPERACCOUNTPOLICY", Account, false, Job, Policy),
        ("MAXPROCPERACCOUNTCOUNT", Account, false, Node, Hard),
        ("SMAXPROCPERACCOUNTCOUNT", Account, false, Node, Soft),
        ("MAXPROCPERACCOUNTPOLICY", Account, false, Node, Policy),
        ("MAXPROCSECONDPERACCOUNTCOUNT", Account, false, Ps, Hard),
        ("SMAXPROCSECONDPERACCOUNTCOUNT", Account, false, Ps, Soft),
        ("MAXPROCSECONDPERACCOUNTPOLICY", Account, false, Ps, Policy),
        ("MAXJOBQUEUEDPERACCOUNTCOUNT", Account, true, Job, Hard),
        ("SMAXJOBQUEUEDPERACCOUNTCOUNT", Account, true, Job, Soft),
        ("MAXJOBQUEUEDPERACCOUNTPOLICY", Account, true, Job, Policy),
    ]
};

/// The parameter names this module reads.
pub(super) fn names() -> impl Iterator<Item = &'static str> {
    NAMES.iter().map(|n| n.0)
}

/// Notes one old-style parameter, in file order.
pub(super) fn read(c: &mut SimConfig, e: &Entry) -> Result<(), ConfigError> {
    let name = e.name.to_ascii_uppercase();
    let &(_, kind, idle, metric, sets) = NAMES
        .iter()
        .find(|n| n.0 == name)
        .expect("called for its own names only");
    let value = match sets {
        Sets::Policy => {
            if super::boolean(e)? {
                return Ok(());
            }
            None
        }
        _ => Some(super::count(e, i64::MAX)? as u64),
    };
    let rank = super::table_rank(&name).expect("every old-style name is in 3.3.1's table");
    c.old_limits.push(OldLimitLine {
        rank,
        kind,
        idle,
        metric,
        sets,
        value,
    });
    Ok(())
}

/// The default limits the lines leave, applied in 3.3.1's table order (the sort is stable:
/// one parameter's lines stay in file order).
fn applied(mut lines: Vec<OldLimitLine>) -> Vec<OldLimit> {
    lines.sort_by_key(|l| l.rank);
    let mut limits: Vec<OldLimit> = Vec::new();
    for line in lines {
        let key = (line.kind, line.idle, line.metric);
        let at = limits
            .iter()
            .position(|l| (l.kind, l.idle, l.metric) == key);
        let limit = match at {
            Some(i) => &mut limits[i],
            None => {
                limits.push(OldLimit {
                    kind: line.kind,
                    idle: line.idle,
                    metric: line.metric,
                    soft: 0,
                    hard: 0,
                });
                limits.last_mut().expect("just pushed")
            }
        };
        match (line.sets, line.value) {
            (Sets::Hard, Some(v)) => limit.hard = v,
            (Sets::Soft, Some(v)) => limit.soft = v,
            _ => (limit.soft, limit.hard) = (0, 0),
        }
    }
    limits
}

/// Puts the old-style limits on the DEFAULT objects, under whatever the `*CFG` objects set
/// (3.3.1 reads those afterwards). 3.3.1 then squares each DEFAULT limit
/// (MConfig.c `MCfgEnforceConstraints`): a soft value of 0 becomes the hard one, and a
/// hard value below the soft one (or none) becomes the soft one.
pub(super) fn settle(c: &mut SimConfig) {
    for l in applied(std::mem::take(&mut c.old_limits)) {
        let (soft, hard) = if l.soft == 0 {
            (l.hard, l.hard)
        } else {
            (l.soft, l.hard.max(l.soft))
        };
        if hard == 0 {
            continue;
        }
        let limits = &mut c.credentials.object_mut(l.kind, DEFAULT).settings.limits;
        let m = l.metric as usize;
        if l.idle {
            limits.idle[m].get_or_insert(LimitPair { soft, hard });
        } else {
            limits.active[m].get_or_insert(LimitPair { soft, hard });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mauisim_core::Limits;

    fn defaults(text: &str, kind: CredKind) -> Limits {
        let c = crate::params::from_str(text, "maui.cfg").unwrap();
        c.config
            .credentials
            .objects(kind)
            .get(DEFAULT)
            .map_or(Limits::NONE, |o| o.settings.limits.clone())
    }

    fn active(text: &str, kind: CredKind, metric: Metric) -> Option<LimitPair> {
        defaults(text, kind).active[metric as usize]
    }

    #[test]
    fn hard_and_soft_values_land_on_the_default_object() {
        let (user, job) = (CredKind::User, Metric::Job);
        assert_eq!(
            active("MAXJOBPERUSERCOUNT 4\n", user, job),
            Some(LimitPair::both(4))
        );
        assert_eq!(
            active("SMAXJOBPERUSERCOUNT 2\nMAXJOBPERUSERCOUNT 4\n", user, job),
            Some(LimitPair { soft: 2, hard: 4 })
        );
        assert_eq!(
            active(
                "SMAXPROCSECONDPERGROUPCOUNT 100\nMAXPROCSECONDPERGROUPCOUNT 900\n",
                CredKind::Group,
                Metric::Ps
            ),
            Some(LimitPair {
                soft: 100,
                hard: 900
            })
        );
        let idle = defaults("MAXJOBQUEUEDPERACCOUNTCOUNT 3\n", CredKind::Account);
        assert_eq!(idle.idle[Metric::Job as usize], Some(LimitPair::both(3)));
        // The soft idle forms: the soft value holds in the first pass's selection.
        let text = "SMAXJOBQUEUEDPERUSERCOUNT 2\nMAXJOBQUEUEDPERUSERCOUNT 5\n";
        let idle = defaults(text, CredKind::User);
        let two_five = LimitPair { soft: 2, hard: 5 };
        assert_eq!(idle.idle[Metric::Job as usize], Some(two_five));
        let idle = defaults("SMAXJOBQUEUEDPERGROUPCOUNT 4\n", CredKind::Group);
        assert_eq!(idle.idle[Metric::Job as usize], Some(LimitPair::both(4)));
    }

    /// 3.3.1 squares a DEFAULT limit after reading the file: a soft value alone, or above
    /// the hard one, raises the hard one to it.
    #[test]
    fn a_soft_value_alone_is_the_hard_one_too() {
        let (user, job) = (CredKind::User, Metric::Job);
        assert_eq!(
            active("SMAXJOBPERUSERCOUNT 2\n", user, job),
            Some(LimitPair::both(2))
        );
        assert_eq!(
            active("SMAXJOBPERUSERCOUNT 6\nMAXJOBPERUSERCOUNT 4\n", user, job),
            Some(LimitPair::both(6))
        );
    }

    /// POLICY FALSE clears the hard value wherever the lines stand, and never the soft
    /// one: 3.3.1 reads the parameters in its table's order, MAX…COUNT, MAX…POLICY,
    /// SMAX…COUNT (OSCAR's own maui.cfg writes each POLICY OFF before its COUNT).
    #[test]
    fn policy_false_clears_in_the_tables_order() {
        let (user, proc) = (CredKind::User, Metric::Proc);
        for text in [
            "MAXPROCPERUSERCOUNT 8\nMAXPROCPERUSERPOLICY FALSE\n",
            "MAXPROCPERUSERPOLICY FALSE\nMAXPROCPERUSERCOUNT 8\n",
            "MAXPROCPERUSERPOLICY OFF\nMAXPROCPERUSERCOUNT 8\nMAXPROCPERUSERCOUNT 9\n",
        ] {
            assert_eq!(active(text, user, proc), None, "{text}");
        }
        // The soft value comes after the POLICY in the table: it stays, and squared it is
        // the hard one too (OSCAR's group MAXPROC lines, which set MAXNODE).
        let text =
            "MAXPROCPERGROUPPOLICY OFF\nSMAXPROCPERGROUPCOUNT 128\nMAXPROCPERGROUPCOUNT 160\n";
        assert_eq!(
            active(text, CredKind::Group, Metric::Node),
            Some(LimitPair::both(128))
        );
        // One parameter's lines in file order: the last count wins.
        assert_eq!(
            active("MAXPROCPERUSERCOUNT 9\nMAXPROCPERUSERCOUNT 8\n", user, proc),
            Some(LimitPair::both(8))
        );
        assert_eq!(
            active(
                "MAXPROCPERUSERCOUNT 8\nMAXPROCPERUSERPOLICY TRUE\n",
                user,
                proc
            ),
            Some(LimitPair::both(8))
        );
    }

    /// Every name has its place in 3.3.1's table, which orders their lines.
    #[test]
    fn every_name_is_in_the_table() {
        for name in names() {
            assert!(crate::params::table_rank(name).is_some(), "{name}");
        }
    }

    /// OSCAR's own maui.cfg (the corpus file) writes every POLICY OFF before its COUNT:
    /// as 3.3.1 reads it, no user limit is left, and the group's MAXNODE is its soft 128.
    #[test]
    fn oscars_config_leaves_only_the_groups_soft_count() {
        let text = include_str!("../../tests/maui_cfg_corpus/18-oscar-cluster-oscar.cfg");
        let user = defaults(text, CredKind::User);
        assert!(user.active.iter().all(Option::is_none), "{user:?}");
        assert!(user.idle.iter().all(Option::is_none), "{user:?}");
        let group = defaults(text, CredKind::Group);
        assert_eq!(
            group.active[Metric::Node as usize],
            Some(LimitPair::both(128))
        );
    }

    /// The `*CFG` objects are read after the parameters, wherever they stand in the file.
    #[test]
    fn a_default_object_in_the_file_wins_over_them() {
        let (user, job) = (CredKind::User, Metric::Job);
        for text in [
            "USERCFG[DEFAULT] MAXJOB=5\nMAXJOBPERUSERCOUNT 4\n",
            "MAXJOBPERUSERCOUNT 4\nUSERCFG[DEFAULT] MAXJOB=5\n",
        ] {
            assert_eq!(active(text, user, job), Some(LimitPair::both(5)), "{text}");
        }
        // Another limit of the same object is left to the parameter.
        let text = "USERCFG[DEFAULT] MAXJOB=5\nMAXPROCPERUSERCOUNT 16\n";
        assert_eq!(active(text, user, Metric::Proc), Some(LimitPair::both(16)));
    }

    /// 3.3.1's table maps the group and account MAXPROC parameters to MAXNODE.
    #[test]
    fn group_and_account_proc_counts_limit_nodes() {
        for (text, kind) in [
            ("MAXPROCPERGROUPCOUNT 16\n", CredKind::Group),
            ("MAXPROCPERACCOUNTCOUNT 16\n", CredKind::Account),
        ] {
            let limits = defaults(text, kind);
            assert_eq!(
                limits.active[Metric::Node as usize],
                Some(LimitPair::both(16))
            );
            assert_eq!(limits.active[Metric::Proc as usize], None);
        }
    }

    #[test]
    fn bad_values_are_located_errors() {
        let err = |text| {
            crate::params::from_str(text, "maui.cfg")
                .unwrap_err()
                .to_string()
        };
        assert!(
            err("MAXJOBPERUSERCOUNT lots\n").starts_with("maui.cfg:1:20:"),
            "{}",
            err("MAXJOBPERUSERCOUNT lots\n")
        );
        assert!(err("MAXJOBPERUSERPOLICY maybe\n").starts_with("maui.cfg:1:21:"));
        assert!(err("MAXJOBPERUSERCOUNT -3\n").contains("expected 0 or more"));
    }
}
