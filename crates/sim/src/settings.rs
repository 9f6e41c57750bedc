//! What differs between runs: every setting of their `summary.json` (the run options and the
//! whole effective config) that is not the same in all of them, named as a site would write
//! it (`RESERVATIONDEPTH[0]`, `--semantics`) where there is such a name.

use serde_json::Value;

/// The run options of `summary.json` that are settings, not results, with their flags.
const OPTIONS: &[(&str, &str)] = &[
    ("trace", "trace"),
    ("nodes_from", "machine"),
    ("machine_procs", "processors"),
    ("machine_nodes", "nodes"),
    ("event_order", "--event-order"),
    ("estimate", "--estimate"),
    ("seed", "--seed"),
    ("predictor", "--predictor"),
    ("filter", "--filter"),
];

/// One setting that differs, with its value in each run (`–` where a run has none).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Difference {
    pub setting: String,
    pub values: Vec<String>,
}

/// The settings whose values are not all equal across `summaries`, in the order of the
/// first summary (then those only later ones have).
pub fn differences(summaries: &[&Value]) -> Vec<Difference> {
    let flat: Vec<Vec<(String, String)>> = summaries.iter().map(|s| settings_of(s)).collect();
    let mut names: Vec<&String> = Vec::new();
    for run in &flat {
        for (name, _) in run {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names
        .into_iter()
        .filter_map(|name| {
            let values: Vec<String> = flat
                .iter()
                .map(|run| {
                    run.iter()
                        .find(|(n, _)| n == name)
                        .map_or_else(|| "–".to_string(), |(_, v)| v.clone())
                })
                .collect();
            // A credential's PRIORITY, QTWEIGHT and XFWEIGHT of 0 are what no object gives
            // it (an own 0 falls back to its DEFAULT's): an object only one run has differs
            // only where it sets something. A limit of 0 is no such thing (it replaces the
            // DEFAULT's limit), nor is a CLASSWEIGHT or an FSTARGET of 0.
            let as_read = |v: &str| -> String {
                let neutral = name.contains("CFG[")
                    && [" priority", " qt_weight", " xf_weight"]
                        .iter()
                        .any(|attr| name.ends_with(attr))
                    && matches!(v, "0" | "0.0");
                if neutral { "–" } else { v }.to_string()
            };
            let all_equal = values.windows(2).all(|w| as_read(&w[0]) == as_read(&w[1]));
            (!all_equal).then(|| Difference {
                setting: name.clone(),
                values,
            })
        })
        .collect()
}

/// Every setting of one `summary.json`, as (name, value text).
fn settings_of(summary: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for &(key, name) in OPTIONS {
        if let Some(v) = summary.get(key) {
            out.push((name.to_string(), text(v)));
        }
    }
    if let Some(config) = summary.get("config") {
        flatten("", config, &mut out);
    }
    for (name, _) in &mut out {
        if let Some(maui) = maui_name(name) {
            *name = maui;
        }
    }
    out
}

fn flatten(path: &str, value: &Value, out: &mut Vec<(String, String)>) {
    let join = |key: &str| {
        if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        }
    };
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                flatten(&join(key), v, out);
            }
        }
        // A limit's soft and hard values, written as maui.cfg writes them (`MAXJOB=4,8`).
        Value::Array(items) if is_limit(path) && items.iter().all(|v| !v.is_object()) => {
            let pair: Vec<String> = items.iter().map(text).collect();
            out.push((path.to_string(), pair.join(",")));
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                flatten(&format!("{path}[{i}]"), v, out);
            }
        }
        leaf => out.push((path.to_string(), text(leaf))),
    }
}

/// Whether a config path names a credential's limit (`….limits.MAXJOB`).
fn is_limit(path: &str) -> bool {
    path.rsplit_once(".limits.")
        .is_some_and(|(_, name)| name.starts_with("MAX") || name.starts_with("OMAX"))
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "–".to_string(),
        other => other.to_string(),
    }
}

/// The maui.cfg parameter (or command-line flag) a flattened config path stands for.
fn maui_name(path: &str) -> Option<String> {
    let fixed = match path {
        "policy.backfill" => "BACKFILLPOLICY",
        "policy.backfill_metric" => "BACKFILLMETRIC",
        "policy.backfill_depth" => "BACKFILLDEPTH",
        "policy.backfill_max_schedules" => "BACKFILLMAXSCHEDULES",
        "policy.chunking.size" => "BFCHUNKSIZE",
        "policy.chunking.duration" => "BFCHUNKDURATION",
        "policy.reservation_policy" => "RESERVATIONPOLICY",
        "policy.reservation_threshold.type" => "RESERVATIONTHRESHOLDTYPE",
        "policy.reservation_threshold.value" => "RESERVATIONTHRESHOLDVALUE",
        "policy.fairshare.metric" => "FSPOLICY",
        "policy.fairshare.ratio" => "FSPOLICY %",
        "policy.fairshare.interval" => "FSINTERVAL",
        "policy.fairshare.depth" => "FSDEPTH",
        "policy.fairshare.decay" => "FSDECAY",
        "policy.semantics" => "--semantics",
        "poll_interval" => "RMPOLLINTERVAL",
        "max_overrun" => "JOBMAXOVERRUN",
        "default_wclimit" => "DEFAULTWCLIMIT",
        "nodes.allocation" => "NODEALLOCATIONPOLICY",
        "nodes.access" => "NODEACCESSPOLICY",
        "submission_policy" => "SIMJOBSUBMISSIONPOLICY",
        "initial_queue_depth" => "SIMINITIALQUEUEDEPTH",
        "sim_wc.accuracy" => "SIMWCACCURACY",
        "sim_wc.change" => "SIMWCACCURACYCHANGE",
        "sim_wc.scaling" => "SIMWCSCALINGPERCENT",
        _ => "",
    };
    if !fixed.is_empty() {
        return Some(fixed.to_string());
    }
    if let Some(limit) = path.strip_prefix("policy.system_limits.") {
        return Some(match limit {
            "MAXJPROC" => "SYSTEMMAXPROCPERJOB".to_string(),
            "MAXJPS" => "SYSTEMMAXPROCSECONDPERJOB".to_string(),
            "MAXJWC" => "SYSTEMMAXJOBWALLTIME".to_string(),
            other => format!("SYSTEMCFG {other}"),
        });
    }
    if let Some(rest) = path.strip_prefix("policy.reservation_groups[") {
        let (i, field) = rest.split_once("].")?;
        return (field == "depth").then(|| format!("RESERVATIONDEPTH[{i}]"));
    }
    if let Some(rest) = path.strip_prefix("reservation_qos[") {
        let (i, _) = rest.split_once(']')?;
        return Some(format!("RESERVATIONQOSLIST[{i}]"));
    }
    for prefix in [
        "policy.priority.components.",
        "policy.priority.subcomponents.",
    ] {
        if let Some(rest) = path.strip_prefix(prefix) {
            let (name, field) = rest.split_once('.')?;
            let name = match name {
                "SERV" => "SERVICE",
                "TARG" => "TARGET",
                other => other,
            };
            return match field {
                "weight" => Some(format!("{name}WEIGHT")),
                "cap" => Some(format!("{name}CAP")),
                _ => None,
            };
        }
    }
    if let Some(rest) = path.strip_prefix("credentials.") {
        let (kind, rest) = rest.split_once('.')?;
        let (cred, attr) = rest.split_once('.').unwrap_or((rest, ""));
        let line = format!("{}CFG[{cred}]", kind.to_ascii_uppercase());
        let attr = attr.strip_prefix("limits.").unwrap_or(attr);
        return Some(if attr.is_empty() {
            line
        } else {
            format!("{line} {attr}")
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn summary(depth: u32, backfill: &str, seed: u64) -> Value {
        json!({
            "trace": "t.swf", "seed": seed, "avg_wait": 12.5,
            "config": {
                "policy": {
                    "backfill": backfill,
                    "reservation_groups": [{"depth": depth}],
                    "priority": {"components": {"SERV": {"weight": 1.0, "cap": 0.0}}},
                },
                "credentials": {"user": {"steve": {"max_job": [2, 4]}}},
            }
        })
    }

    #[test]
    fn only_settings_that_differ_are_listed_by_their_maui_names() {
        let a = summary(1, "FIRSTFIT", 1);
        let b = summary(4, "FIRSTFIT", 1);
        assert_eq!(
            differences(&[&a, &b]),
            [Difference {
                setting: "RESERVATIONDEPTH[0]".into(),
                values: vec!["1".into(), "4".into()],
            }]
        );
        let c = summary(4, "BESTFIT", 2);
        let mut listed: Vec<String> = differences(&[&a, &b, &c])
            .into_iter()
            .map(|d| format!("{} {}", d.setting, d.values.join("/")))
            .collect();
        listed.sort();
        assert_eq!(
            listed,
            [
                "--seed 1/1/2",
                "BACKFILLPOLICY FIRSTFIT/FIRSTFIT/BESTFIT",
                "RESERVATIONDEPTH[0] 1/4/4"
            ]
        );
        assert!(
            differences(&[&a, &a]).is_empty(),
            "results are not settings"
        );
    }

    /// What differs from `a` to `b`, a line each, sorted: the order follows the JSON
    /// maps', which depends on serde_json's features.
    fn listed(a: &Value, b: &Value) -> Vec<String> {
        let mut listed: Vec<String> = differences(&[a, b])
            .into_iter()
            .map(|d| format!("{}: {}", d.setting, d.values.join(" -> ")))
            .collect();
        listed.sort();
        listed
    }

    #[test]
    fn a_setting_only_one_run_has_shows_a_dash_for_the_other() {
        let a = summary(1, "FIRSTFIT", 1);
        let mut b = a.clone();
        b["config"]["credentials"]["user"]["ann"] = json!({"max_job": [1, 1]});
        b["config"]["policy"]["priority"]["components"]["SERV"]["weight"] = json!(10.0);
        assert_eq!(
            listed(&a, &b),
            [
                "SERVICEWEIGHT: 1.0 -> 10.0",
                "USERCFG[ann] max_job[0]: – -> 1",
                "USERCFG[ann] max_job[1]: – -> 1"
            ]
        );
    }

    /// A limit reads as maui.cfg writes it (soft,hard), and an object only one run has
    /// differs only where it sets something.
    #[test]
    fn limits_read_as_written_and_neutral_attributes_are_no_difference() {
        let a = summary(1, "FIRSTFIT", 1);
        let mut b = a.clone();
        b["config"]["credentials"]["user"]["DEFAULT"] = json!({
            "priority": 0.0, "qt_weight": 0.0, "class_weight": null,
            "limits": {"MAXJOB": [4, 8], "MAXIJOB": 6, "MAXJOB[CLASS]": [0, 2], "MAXPROC": 0},
        });
        assert_eq!(
            listed(&a, &b),
            [
                "USERCFG[DEFAULT] MAXIJOB: – -> 6",
                "USERCFG[DEFAULT] MAXJOB: – -> 4,8",
                "USERCFG[DEFAULT] MAXJOB[CLASS]: – -> 0,2",
                "USERCFG[DEFAULT] MAXPROC: – -> 0",
            ]
        );
        b["config"]["credentials"]["user"]["DEFAULT"]["priority"] = json!(5.0);
        let priority = differences(&[&a, &b]);
        assert!(
            priority
                .iter()
                .any(|d| d.setting == "USERCFG[DEFAULT] priority" && d.values == ["–", "5.0"]),
            "{priority:?}"
        );
    }
}
