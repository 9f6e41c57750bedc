//! NODESETPOLICY, NODESETATTRIBUTE, NODESETLIST, NODESETPRIORITYTYPE, NODESETDELAY and
//! NODESETTOLERANCE as Maui 3.3.1 reads them (MPar.c, MGUtil.c `MUGetIndex`: exact,
//! case-sensitive values; an unknown value leaves the last one).

use super::{duration, SimConfig};
use mauisim_config::{ConfigError, Duration, Entry, Location};
use mauisim_core::{NodeSetPolicy, NodeSetPriority};

/// What set attribute the sets are of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SetAttribute {
    #[default]
    None,
    Feature,
    /// 3.3.1 finds no set of MEMORY (its switch fails): best effort, nothing changes.
    Memory,
    ProcSpeed,
}

/// The node-set parameters as read.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NodeSetsAsRead {
    pub policy: Option<NodeSetPolicy>,
    pub attribute: SetAttribute,
    pub priority: Option<NodeSetPriority>,
    pub list: Vec<String>,
    /// NODESETDELAY above 0, where it was set: the sets become mandatory.
    pub mandatory: Option<Location>,
    /// Where NODESETATTRIBUTE PROCSPEED was set, and NODESETPOLICY.
    procspeed_at: Option<Location>,
    policy_at: Option<Location>,
}

impl NodeSetsAsRead {
    /// Whether jobs are held to sets of node features.
    pub fn by_feature(&self) -> bool {
        self.policy.is_some() && self.attribute == SetAttribute::Feature
    }
}

/// Reads one NODESET* parameter.
pub(crate) fn read(c: &mut SimConfig, e: &Entry, w: &mut Vec<String>) -> Result<(), ConfigError> {
    let text = e.value_text();
    let value = text.trim();
    let at = &e.location;
    let sets = &mut c.nodes.node_sets;
    let unknown = |w: &mut Vec<String>, known: &str| {
        w.push(format!(
            "{at}: warning: {} {value}: not a value Maui 3.3.1 knows ({known}, in capitals); the setting stays as it was",
            e.name
        ));
    };
    if e.name == "NODESETPOLICY" {
        sets.policy_at = Some(at.clone());
    }
    match e.name.as_str() {
        "NODESETPOLICY" => match value {
            "NONE" => sets.policy = None,
            "ONEOF" => sets.policy = Some(NodeSetPolicy::OneOf),
            "ANYOF" => sets.policy = Some(NodeSetPolicy::AnyOf),
            "FIRSTOF" => sets.policy = Some(NodeSetPolicy::FirstOf),
            _ => unknown(w, "NONE, ONEOF, ANYOF, FIRSTOF"),
        },
        "NODESETATTRIBUTE" => match value {
            "NONE" => sets.attribute = SetAttribute::None,
            "FEATURE" => sets.attribute = SetAttribute::Feature,
            "MEMORY" => sets.attribute = SetAttribute::Memory,
            "PROCSPEED" => {
                sets.attribute = SetAttribute::ProcSpeed;
                sets.procspeed_at = Some(at.clone());
            }
            _ => unknown(w, "NONE, FEATURE, MEMORY, PROCSPEED"),
        },
        "NODESETPRIORITYTYPE" => {
            sets.priority = Some(match value {
                "BESTFIT" => NodeSetPriority::BestFit,
                "WORSTFIT" => NodeSetPriority::WorstFit,
                "BESTRESOURCE" => NodeSetPriority::BestResource,
                "MINLOSS" => NodeSetPriority::MinLoss,
                _ => {
                    // An unknown value is NONE, which on FEATURE sets acts as MINLOSS.
                    w.push(format!(
                        "{at}: warning: NODESETPRIORITYTYPE {value}: not a value Maui 3.3.1 knows (BESTFIT, WORSTFIT, BESTRESOURCE, MINLOSS, in capitals); it reads NONE, which picks sets as MINLOSS does"
                    ));
                    NodeSetPriority::MinLoss
                }
            })
        }
        // Split on white space only: `a,b` is one name (MConfig.c).
        "NODESETLIST" => sets.list = value.split_whitespace().map(String::from).collect(),
        "NODESETDELAY" => {
            let delay = duration("NODESETDELAY", value, at, w)?;
            // Only ever tested as > 0: a delay makes the sets mandatory for ever.
            sets.mandatory = (delay != Duration::Seconds(0)).then(|| at.clone());
        }
        // NODESETTOLERANCE applies to PROCSPEED sets only (`INERT_IN_SIMULATION`).
        _ => {}
    }
    Ok(())
}

/// Once the file is read: what is refused, and what 3.3.1 turns into nothing.
pub(crate) fn settle(c: &SimConfig, w: &mut Vec<String>) -> Result<(), ConfigError> {
    let sets = &c.nodes.node_sets;
    if sets.policy.is_none() {
        return Ok(());
    }
    let not_yet = |at: &Location, what: &str| {
        ConfigError::at(
            at.clone(),
            format!(
                "{what} changes what Maui schedules, and mauisim does not simulate it yet: the schedule would not be your Maui's; remove the line (or comment it out with #) to simulate without it"
            ),
        )
    };
    let policy_at = sets
        .policy_at
        .clone()
        .unwrap_or_else(|| Location::new("maui.cfg", 0, 0));
    match (sets.attribute, &sets.mandatory) {
        (SetAttribute::ProcSpeed, _) => {
            let at = sets.procspeed_at.as_ref().unwrap_or(&policy_at);
            return Err(not_yet(at, "NODESETATTRIBUTE PROCSPEED (node sets by processor speed)"));
        }
        (SetAttribute::Memory, Some(at)) => {
            return Err(ConfigError::at(
                at.clone(),
                "NODESETDELAY above 0 with NODESETATTRIBUTE MEMORY: Maui 3.3.1 forms no set of memory (its switch fails), and mandatory node sets then start no job at all; set NODESETDELAY 0 (best effort, where MEMORY changes nothing) or NODESETATTRIBUTE FEATURE".to_string(),
            ));
        }
        (SetAttribute::Feature, _) => {}
        (SetAttribute::Memory, None) => w.push(format!(
            "{policy_at}: note: NODESETATTRIBUTE MEMORY: Maui 3.3.1 forms no set of memory (its switch fails), and best effort then takes any node: node sets change nothing, here as there"
        )),
        (SetAttribute::None, _) => w.push(format!(
            "{policy_at}: note: NODESETPOLICY without NODESETATTRIBUTE: Maui 3.3.1 forms no node set, so node sets change nothing, here as there"
        )),
    }
    Ok(())
}

/// Node sets are simulated as 3.3.1 applies them, under Maui semantics only.
pub(crate) fn for_semantics(c: &SimConfig) -> Result<(), String> {
    let sets = &c.nodes.node_sets;
    if !sets.by_feature() || c.policy.semantics.is_maui() {
        return Ok(());
    }
    let at = sets
        .policy_at
        .as_ref()
        .map_or("maui.cfg".to_string(), |l| l.to_string());
    Err(format!(
        "{at}: NODESETPOLICY: node sets are simulated as Maui 3.3.1 applies them, under --semantics maui or maui-3.3.1 only"
    ))
}

#[cfg(test)]
mod tests {
    use crate::params::from_str;
    use mauisim_core::{NodeSetPolicy, NodeSetPriority};

    #[test]
    fn node_set_parameters_are_read_as_3_3_1_reads_them() {
        let c = from_str(
            "NODESETPOLICY ONEOF\nNODESETATTRIBUTE FEATURE\nNODESETLIST normal fat,big\n\
             NODESETPRIORITYTYPE WORSTFIT\nNODESETDELAY 0:00:00\nNODESETTOLERANCE 0.5\n",
            "maui.cfg",
        )
        .unwrap();
        let sets = &c.config.nodes.node_sets;
        assert!(sets.by_feature());
        assert_eq!(sets.policy, Some(NodeSetPolicy::OneOf));
        assert_eq!(sets.priority, Some(NodeSetPriority::WorstFit));
        // White space separates names, a comma does not.
        assert_eq!(sets.list, ["normal", "fat,big"]);
        // The tolerance acts only on sets by processor speed, which are refused.
        assert_eq!(
            c.warnings,
            ["maui.cfg: note: 1 parameter without effect on what Maui 3.3.1 schedules in a simulation ignored: NODESETTOLERANCE"]
        );
        // Values are case-sensitive: a lowercase one leaves the last value.
        let c = from_str("NODESETPOLICY ANYOF\nNODESETPOLICY oneof\n", "maui.cfg").unwrap();
        assert_eq!(c.config.nodes.node_sets.policy, Some(NodeSetPolicy::AnyOf));
        assert!(
            c.warnings[0].starts_with(
                "maui.cfg:2:1: warning: NODESETPOLICY oneof: not a value Maui 3.3.1 knows"
            ),
            "{:?}",
            c.warnings
        );
        // Without FEATURE (or with NETWORK, which 3.3.1 does not know) no set forms.
        let c = from_str(
            "NODESETPOLICY ONEOF\nNODESETATTRIBUTE NETWORK\n",
            "maui.cfg",
        )
        .unwrap();
        assert!(!c.config.nodes.node_sets.by_feature());
        assert!(
            c.warnings
                .iter()
                .any(|w| w.contains("node sets change nothing")),
            "{:?}",
            c.warnings
        );
    }

    #[test]
    fn mandatory_memory_and_speed_sets_are_refused() {
        let c = from_str(
            "NODESETPOLICY ONEOF\nNODESETATTRIBUTE FEATURE\nNODESETDELAY 1:00:00\n",
            "maui.cfg",
        )
        .unwrap();
        assert!(c.config.nodes.node_sets.mandatory.is_some());
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        let e = from_str(
            "NODESETPOLICY ONEOF\nNODESETATTRIBUTE MEMORY\nNODESETDELAY 1:00:00\n",
            "maui.cfg",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("maui.cfg:3:1: NODESETDELAY above 0 with NODESETATTRIBUTE MEMORY"),
            "{e}"
        );
        let e = from_str(
            "NODESETPOLICY FIRSTOF\nNODESETATTRIBUTE PROCSPEED\n",
            "maui.cfg",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("maui.cfg:2:1: NODESETATTRIBUTE PROCSPEED"),
            "{e}"
        );
        // A partition's own node-set setting is never read.
        let c = from_str("NODESETPOLICY[p1] ONEOF\n", "maui.cfg").unwrap();
        assert!(c.config.nodes.node_sets.policy.is_none());
        assert!(
            c.warnings[0].contains("NODESETPOLICY[p1]"),
            "{:?}",
            c.warnings
        );
    }
}
