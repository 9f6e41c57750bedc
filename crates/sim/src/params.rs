//! The meaning of maui.cfg parameters: one registry, one line per parameter.
//!
//! Syntax (comments, continuations, `NAME[INDEX]`, attributes, time values) is
//! `mauisim_config`'s job; this module maps entries onto [`SimConfig`]. To support a new
//! parameter, add one row to [`PARAMS`].

use mauisim_config::{self as cfg, ConfigError, Duration, Entry, Location};
use mauisim_core::{BackfillPolicy, PolicyConfig, Time};
use serde::Serialize;
use std::path::Path;

/// Everything a config file can set.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimConfig {
    pub policy: PolicyConfig,
    /// JOBMAXOVERRUN: how long a job may run past its limit; `None` = without bound (−1).
    pub max_overrun: Option<Time>,
    /// RMPOLLINTERVAL: 0 = event-driven iterations.
    pub poll_interval: Time,
    /// CLASSCFG[DEFAULT] DEFAULT.WCLIMIT: the limit of jobs that request none.
    pub default_wclimit: Option<Time>,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            policy: PolicyConfig::default(),
            max_overrun: Some(0),
            poll_interval: 0,
            default_wclimit: None,
        }
    }
}

/// A config and the warnings reading it produced (already formatted with locations).
#[derive(Debug, Clone)]
pub struct LoadedConfig {
    pub config: SimConfig,
    pub warnings: Vec<String>,
}

pub fn from_file(path: &Path) -> Result<LoadedConfig, ConfigError> {
    interpret(cfg::parse_file(path)?)
}

pub fn from_str(text: &str, name: &str) -> Result<LoadedConfig, ConfigError> {
    interpret(cfg::parse_str(text, name)?)
}

fn interpret(parsed: cfg::Parsed) -> Result<LoadedConfig, ConfigError> {
    let mut warnings: Vec<String> = parsed.warnings.iter().map(|w| w.to_string()).collect();
    let mut config = SimConfig::default();
    for entry in &parsed.entries {
        apply(&mut config, entry, &mut warnings)?;
    }
    Ok(LoadedConfig { config, warnings })
}

type Apply = fn(&mut SimConfig, &Entry, &mut Vec<String>) -> Result<(), ConfigError>;

/// One understood parameter: its names (the first is canonical) and how it applies.
struct Param {
    names: &'static [&'static str],
    apply: Apply,
}

const PARAMS: &[Param] = &[
    Param {
        names: &["BACKFILLPOLICY"],
        apply: backfill_policy,
    },
    Param {
        names: &["RESERVATIONDEPTH"],
        apply: reservation_depth,
    },
    Param {
        names: &["QUEUETIMEWEIGHT"],
        apply: |c, e, _| {
            c.policy.priority.queue_time = float(e)?;
            Ok(())
        },
    },
    Param {
        names: &["QUEUETIMECAP"],
        apply: |c, e, _| {
            c.policy.priority.queue_time_cap = cap(e)?;
            Ok(())
        },
    },
    Param {
        names: &["SERVWEIGHT", "SERVICEWEIGHT"],
        apply: |c, e, _| {
            c.policy.priority.service = float(e)?;
            Ok(())
        },
    },
    Param {
        names: &["SERVCAP", "SERVICECAP"],
        apply: |c, e, _| {
            c.policy.priority.service_cap = cap(e)?;
            Ok(())
        },
    },
    Param {
        names: &["ENABLENEGJOBPRIORITY"],
        apply: |c, e, _| {
            c.policy.priority.allow_negative = boolean(e)?;
            Ok(())
        },
    },
    Param {
        names: &["JOBMAXOVERRUN"],
        apply: job_max_overrun,
    },
    Param {
        names: &["RMPOLLINTERVAL"],
        apply: rm_poll_interval,
    },
    Param {
        names: &["CLASSCFG"],
        apply: class_cfg,
    },
];

/// Maui parameters that are understood by name but not simulated yet: a warning, not an
/// "unknown parameter" guess.
const NOT_YET_SIMULATED: &[&str] = &[
    "ACCOUNTCFG",
    "ACCOUNTWEIGHT",
    "ATTRWEIGHT",
    "BACKFILLDEPTH",
    "BACKFILLMAXSCHEDULES",
    "BACKFILLMETRIC",
    "BFCHUNKDURATION",
    "BFCHUNKSIZE",
    "BYPASSCAP",
    "BYPASSWEIGHT",
    "CLASSWEIGHT",
    "CONSUMEDWEIGHT",
    "CREDWEIGHT",
    "DEFERTIME",
    "DISKWEIGHT",
    "FSACCOUNTWEIGHT",
    "FSCAP",
    "FSCLASSWEIGHT",
    "FSDECAY",
    "FSDEPTH",
    "FSGROUPWEIGHT",
    "FSINTERVAL",
    "FSPOLICY",
    "FSQOSWEIGHT",
    "FSUSERWEIGHT",
    "FSWEIGHT",
    "GROUPCFG",
    "GROUPWEIGHT",
    "JOBPRIOACCRUALPOLICY",
    "MEMWEIGHT",
    "NODEACCESSPOLICY",
    "NODEALLOCATIONPOLICY",
    "NODECFG",
    "NODEWEIGHT",
    "PEWEIGHT",
    "PERCENTWEIGHT",
    "PROCWEIGHT",
    "PSWEIGHT",
    "QOSCFG",
    "QOSWEIGHT",
    "REMAININGWEIGHT",
    "RESERVATIONPOLICY",
    "RESERVATIONQOSLIST",
    "RESERVATIONTHRESHOLDTYPE",
    "RESERVATIONTHRESHOLDVALUE",
    "RESWEIGHT",
    "SCHEDULINGCRITERIA",
    "SPVIOLATIONWEIGHT",
    "SWAPWEIGHT",
    "SYSTEMCFG",
    "SYSTEMMAXJOBWALLTIME",
    "SYSTEMMAXPROCPERJOB",
    "SYSTEMMAXPROCSECONDPERJOB",
    "TARGETQUEUETIMEWEIGHT",
    "TARGETWEIGHT",
    "TARGETXFACTORWEIGHT",
    "TARGWEIGHT",
    "USAGEEXECUTIONTIMEWEIGHT",
    "USAGEWEIGHT",
    "USERCFG",
    "USERWEIGHT",
    "WALLTIMEWEIGHT",
    "WCVIOLATIONACTION",
    "XFACTORCAP",
    "XFACTORWEIGHT",
    "XFMINWCLIMIT",
    "SIMWCACCURACY",
    "SIMWCACCURACYCHANGE",
    "SIMWCSCALINGPERCENT",
    "SIMJOBSUBMISSIONPOLICY",
    "SIMINITIALQUEUEDEPTH",
    "SERVERHOST",
    "SERVERPORT",
    "SERVERMODE",
    "ADMIN1",
    "ADMIN2",
    "ADMIN3",
    "LOGFILE",
    "LOGLEVEL",
    "RMCFG",
    "SCHEDCFG",
    "STATDIR",
    "SIMRESOURCETRACEFILE",
    "SIMWORKLOADTRACEFILE",
];

/// All names the reader knows, for "did you mean" suggestions.
pub fn known_names() -> Vec<&'static str> {
    PARAMS
        .iter()
        .flat_map(|p| p.names.iter().copied())
        .chain(NOT_YET_SIMULATED.iter().copied())
        .collect()
}

fn apply(
    config: &mut SimConfig,
    entry: &Entry,
    warnings: &mut Vec<String>,
) -> Result<(), ConfigError> {
    if let Some(param) = PARAMS
        .iter()
        .find(|p| p.names.contains(&entry.name.as_str()))
    {
        return (param.apply)(config, entry, warnings);
    }
    let location = &entry.location;
    if NOT_YET_SIMULATED.contains(&entry.name.as_str()) {
        warnings.push(format!(
            "{location}: warning: {} is a Maui parameter mauisim does not simulate yet; ignored",
            entry.name
        ));
    } else {
        let names = known_names();
        let hint = match cfg::closest(&entry.name, &names) {
            Some(near) => format!("; did you mean {near}?"),
            None => String::new(),
        };
        warnings.push(format!(
            "{location}: warning: unknown parameter {}{hint}; ignored",
            entry.name
        ));
    }
    Ok(())
}

/// The single value of a scalar parameter, which takes no index (or index 0).
fn scalar(entry: &Entry) -> Result<(&str, &Location), ConfigError> {
    if let Some(index) = &entry.index {
        if index != "0" {
            return Err(ConfigError::at(
                entry.location.clone(),
                format!("{} takes no index, found [{index}]", entry.name),
            ));
        }
    }
    match entry.values.as_slice() {
        [one] => Ok((one.text.as_str(), &one.location)),
        [] => Err(ConfigError::at(
            entry.location.clone(),
            format!("{} needs a value", entry.name),
        )),
        [_, extra, ..] => Err(ConfigError::at(
            extra.location.clone(),
            format!("{} takes one value, found more", entry.name),
        )),
    }
}

fn located<T>(
    result: Result<T, cfg::ValueError>,
    entry: &Entry,
    at: &Location,
) -> Result<T, ConfigError> {
    result.map_err(|e| ConfigError::at(at.clone(), format!("{}: {}", entry.name, e.0)))
}

fn float(entry: &Entry) -> Result<f64, ConfigError> {
    let (text, at) = scalar(entry)?;
    located(cfg::parse_float(text), entry, at)
}

fn cap(entry: &Entry) -> Result<f64, ConfigError> {
    let (_, at) = scalar(entry)?;
    let value = float(entry)?;
    if value < 0.0 {
        return Err(ConfigError::at(
            at.clone(),
            format!("{}: a cap cannot be negative", entry.name),
        ));
    }
    Ok(value)
}

fn boolean(entry: &Entry) -> Result<bool, ConfigError> {
    let (text, at) = scalar(entry)?;
    located(cfg::parse_bool(text), entry, at)
}

fn duration(
    entry: &Entry,
    text: &str,
    at: &Location,
    warnings: &mut Vec<String>,
) -> Result<Duration, ConfigError> {
    let (value, warning) = located(cfg::parse_duration(text), entry, at)?;
    if let Some(w) = warning {
        warnings.push(format!("{at}: warning: {}: {w}", entry.name));
    }
    Ok(value)
}

fn backfill_policy(c: &mut SimConfig, e: &Entry, _: &mut Vec<String>) -> Result<(), ConfigError> {
    let (text, at) = scalar(e)?;
    c.policy.backfill = match text.to_ascii_uppercase().as_str() {
        "FIRSTFIT" => BackfillPolicy::FirstFit,
        "NONE" => BackfillPolicy::None,
        "BESTFIT" | "GREEDY" => {
            return Err(ConfigError::at(
                at.clone(),
                format!("BACKFILLPOLICY {text} is not simulated yet (FIRSTFIT and NONE are)"),
            ))
        }
        _ => {
            return Err(ConfigError::at(
                at.clone(),
                format!(
                    "BACKFILLPOLICY: expected FIRSTFIT, BESTFIT, GREEDY or NONE, found `{text}`"
                ),
            ))
        }
    };
    Ok(())
}

fn reservation_depth(c: &mut SimConfig, e: &Entry, _: &mut Vec<String>) -> Result<(), ConfigError> {
    let (text, at) = scalar(e)?;
    let depth = located(cfg::parse_int(text), e, at)?;
    if !(0..=u32::MAX as i64).contains(&depth) {
        return Err(ConfigError::at(
            at.clone(),
            format!("RESERVATIONDEPTH: expected 0 or more, found {depth}"),
        ));
    }
    c.policy.reservation_depth = depth as u32;
    Ok(())
}

fn job_max_overrun(c: &mut SimConfig, e: &Entry, w: &mut Vec<String>) -> Result<(), ConfigError> {
    let (text, at) = scalar(e)?;
    c.max_overrun = match text.trim() {
        "-1" => None,
        _ => match duration(e, text, at, w)? {
            Duration::Seconds(s) => Some(s),
            Duration::Infinity => None,
        },
    };
    Ok(())
}

fn rm_poll_interval(c: &mut SimConfig, e: &Entry, w: &mut Vec<String>) -> Result<(), ConfigError> {
    let (text, at) = scalar(e)?;
    c.poll_interval = match duration(e, text, at, w)? {
        Duration::Seconds(s) => s,
        Duration::Infinity => {
            return Err(ConfigError::at(
                at.clone(),
                "RMPOLLINTERVAL cannot be INFINITY",
            ));
        }
    };
    Ok(())
}

fn class_cfg(c: &mut SimConfig, e: &Entry, w: &mut Vec<String>) -> Result<(), ConfigError> {
    let class = e.index.as_deref().unwrap_or("DEFAULT");
    for attr in e.attrs()? {
        match (class.eq_ignore_ascii_case("DEFAULT"), attr.name.as_str()) {
            (true, "DEFAULT.WCLIMIT") => {
                c.default_wclimit = match duration(e, &attr.value, &attr.location, w)? {
                    Duration::Seconds(s) if s > 0 => Some(s),
                    _ => None,
                };
            }
            (_, name) => w.push(format!(
                "{}: warning: CLASSCFG[{class}] {name} is not simulated yet; ignored",
                attr.location
            )),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<LoadedConfig, ConfigError> {
        from_str(text, "maui.cfg")
    }

    #[test]
    fn understood_parameters_set_the_config() {
        let c = load(
            "BACKFILLPOLICY none\nreservationdepth 4\nQUEUETIMEWEIGHT 2.5\nSERVICEWEIGHT 3\n\
             JOBMAXOVERRUN 00:10:00\nRMPOLLINTERVAL 30\nCLASSCFG[DEFAULT] DEFAULT.WCLIMIT=1:00:00\n",
        )
        .unwrap();
        let cfg = c.config;
        assert_eq!(cfg.policy.backfill, BackfillPolicy::None);
        assert_eq!(cfg.policy.reservation_depth, 4);
        assert_eq!(cfg.policy.priority.queue_time, 2.5);
        assert_eq!(cfg.policy.priority.service, 3.0);
        assert_eq!(cfg.max_overrun, Some(600));
        assert_eq!(cfg.poll_interval, 30);
        assert_eq!(cfg.default_wclimit, Some(3600));
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    }

    #[test]
    fn unbounded_overrun() {
        assert_eq!(load("JOBMAXOVERRUN -1").unwrap().config.max_overrun, None);
    }

    #[test]
    fn a_typo_is_a_located_warning_with_the_nearest_name() {
        let c = load("# site config\nRESERVATIONDEPT 2\n").unwrap();
        assert_eq!(
            c.warnings,
            vec!["maui.cfg:2:1: warning: unknown parameter RESERVATIONDEPT; did you mean RESERVATIONDEPTH?; ignored"]
        );
        assert_eq!(c.config, SimConfig::default());
    }

    #[test]
    fn not_yet_simulated_parameters_warn_by_name() {
        let c = load("FSPOLICY DEDICATEDPS\n").unwrap();
        assert_eq!(
            c.warnings,
            vec!["maui.cfg:1:1: warning: FSPOLICY is a Maui parameter mauisim does not simulate yet; ignored"]
        );
    }

    #[test]
    fn bad_values_are_located_errors() {
        let e = load("RESERVATIONDEPTH two\n").unwrap_err().to_string();
        assert!(e.starts_with("maui.cfg:1:18: RESERVATIONDEPTH:"), "{e}");
        let e = load("\nBACKFILLPOLICY SOMETIMES\n")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "maui.cfg:2:16: BACKFILLPOLICY: expected FIRSTFIT, BESTFIT, GREEDY or NONE, found `SOMETIMES`");
        let e = load("BACKFILLPOLICY BESTFIT\n").unwrap_err().to_string();
        assert!(e.contains("not simulated yet"), "{e}");
        let e = load("QUEUETIMECAP -3\n").unwrap_err().to_string();
        assert_eq!(e, "maui.cfg:1:14: QUEUETIMECAP: a cap cannot be negative");
        let e = load("RESERVATIONDEPTH 1 2\n").unwrap_err().to_string();
        assert_eq!(
            e,
            "maui.cfg:1:20: RESERVATIONDEPTH takes one value, found more"
        );
    }
}
