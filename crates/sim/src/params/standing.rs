//! maui.cfg's standing reservations, as read: `SRCFG[name] ATTR=VALUE …` and the older
//! `SR<ATTR>[name] value` forms (Maui 3.3.1's MSRProcessConfig and MSRProcessOConfig,
//! with its defaults: PERIOD DAY, DEPTH 2, every day, the whole day, whole nodes).
//! [`crate::nodes`] lays them on the machine.

use mauisim_config::{ConfigError, Entry, Location};
use mauisim_core::{CredKind, Time};
use serde::Serialize;

/// One `SRCFG[name]` object (several lines for one name add up).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StandingCfg {
    pub name: String,
    pub period: Period,
    /// Bit `d` (0 = Sunday): the days a daily reservation holds its nodes.
    pub days: u8,
    /// STARTTIME and ENDTIME (daily, from midnight; ENDTIME 0 = midnight after).
    pub start: Time,
    pub end: Time,
    /// WSTARTTIME and WENDTIME (weekly, from Sunday midnight; WENDTIME 0 = a week).
    pub week_start: Time,
    pub week_end: Time,
    pub depth: u32,
    pub task_count: u64,
    /// TPN: the most tasks on one node (0: no bound).
    pub tasks_per_node: u64,
    /// HOSTLIST: each an unanchored, case-insensitive regular expression, as 3.3.1 reads
    /// them (`node1` also matches `node10`).
    pub hosts: Option<Vec<String>>,
    /// RESOURCES=PROCS:n (`None`: whole nodes).
    pub procs_per_task: Option<u64>,
    pub features: Vec<String>,
    pub partition: Option<String>,
    /// Per credential kind ([`CredKind::index`]): the access list's names.
    pub access: [Vec<(String, Acl)>; 5],
    /// PROCLIMIT: jobs of at most this many processors may use it (one more entry of
    /// the access list).
    pub proc_limit: Option<u64>,
    /// TIMELIMIT, MAXTIME or SRMAXTIME: jobs that run inside a window for at most this
    /// long may use it; one more entry of the access list, or a required one (`*`, and
    /// SRMAXTIME always).
    pub time_limit: Option<TimeLimit>,
    /// Why 3.3.1 makes no window of it at all, if it makes none.
    pub holds_nothing: Option<String>,
    /// Whether the older `SR*` forms gave it an entry neither required nor denied, and a
    /// denied one: 3.3.1 reads those forms before every SRCFG line.
    #[serde(skip)]
    pub old_form_entries: (bool, bool),
    #[serde(skip)]
    pub location: Option<Location>,
}

/// A standing reservation's time entry as read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TimeLimit {
    pub seconds: Time,
    pub required: bool,
    /// MAXTIME and SRMAXTIME set an entry without a name, where 3.3.1's first pass over
    /// the access list stops (MACL.c `MACLCheckAccess` loops while `Name[0] != '\0'`):
    /// whether the entries before it hold one that is neither required nor denied, and
    /// one denied. TIMELIMIT's entry has its text as a name: `None`.
    #[serde(skip)]
    pub seen_before: Option<(bool, bool)>,
}

/// How one access-list name counts (Maui's ACL suffixes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Acl {
    /// Matching it (or any other such entry) gives access.
    Any,
    /// `name*`: a job must match it.
    Required,
    /// `name!`: a job matching it never has access.
    Denied,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Period {
    Day,
    Week,
    Infinity,
}

impl StandingCfg {
    fn new(name: &str, at: &Location) -> Self {
        StandingCfg {
            name: name.to_string(),
            period: Period::Day,
            days: mauisim_core::EVERY_DAY,
            start: 0,
            end: 0,
            week_start: 0,
            week_end: 0,
            depth: 2,
            task_count: 0,
            tasks_per_node: 0,
            hosts: None,
            procs_per_task: None,
            features: Vec::new(),
            partition: None,
            access: Default::default(),
            proc_limit: None,
            time_limit: None,
            holds_nothing: None,
            old_form_entries: (false, false),
            location: Some(at.clone()),
        }
    }
}

const DAY_NAMES: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

pub const SR_ATTRS: &[&str] = &[
    "ACCESS",
    "ACCOUNTLIST",
    "CHARGEACCOUNT",
    "CLASSLIST",
    "DAYS",
    "DEPTH",
    "ENDTIME",
    "FLAGS",
    "GROUPLIST",
    "HOSTLIST",
    "IDLETIME",
    "JOBATTRLIST",
    "MAXTIME",
    "NAME",
    "NODEFEATURES",
    "OWNER",
    "PARTITION",
    "PERIOD",
    "PRIORITY",
    "PROCLIMIT",
    "QOSLIST",
    "RESOURCES",
    "STARTTIME",
    "STIDLETIME",
    "STTOTALTIME",
    "TASKCOUNT",
    "TASKLIMIT",
    "TIMELIMIT",
    "TPN",
    "USERLIST",
    "WENDTIME",
    "WSTARTTIME",
];

/// The older parameter forms `SR<ATTR>[name] value` and the attribute each stands for.
pub const OLD_FORMS: &[(&str, &str)] = &[
    ("SRACCESS", "ACCESS"),
    ("SRACCOUNTLIST", "ACCOUNTLIST"),
    ("SRCLASSLIST", "CLASSLIST"),
    ("SRDAYS", "DAYS"),
    ("SRDEPTH", "DEPTH"),
    ("SRENDTIME", "ENDTIME"),
    ("SRFEATURES", "NODEFEATURES"),
    ("SRFLAGS", "FLAGS"),
    ("SRGROUPLIST", "GROUPLIST"),
    ("SRHOSTLIST", "HOSTLIST"),
    ("SRMAXTIME", "MAXTIME"),
    ("SRPARTITION", "PARTITION"),
    ("SRPERIOD", "PERIOD"),
    ("SRPRIORITY", "PRIORITY"),
    ("SRQOSLIST", "QOSLIST"),
    ("SRRESOURCES", "RESOURCES"),
    ("SRSTARTTIME", "STARTTIME"),
    ("SRTASKCOUNT", "TASKCOUNT"),
    ("SRTPN", "TPN"),
    ("SRUSERLIST", "USERLIST"),
    ("SRWENDTIME", "WENDTIME"),
    ("SRWSTARTTIME", "WSTARTTIME"),
];

fn object<'a>(all: &'a mut Vec<StandingCfg>, name: &str, at: &Location) -> &'a mut StandingCfg {
    match all.iter().position(|o| o.name == name) {
        Some(i) => &mut all[i],
        None => {
            all.push(StandingCfg::new(name, at));
            all.last_mut().expect("just pushed")
        }
    }
}

fn name_of(e: &Entry, form: &str) -> Result<String, ConfigError> {
    match e.index.as_deref() {
        Some(n) if !n.is_empty() => Ok(n.to_string()),
        _ => Err(ConfigError::at(
            e.location.clone(),
            format!("{form} needs a reservation name: {form}[name] …"),
        )),
    }
}

/// `SRCFG[name] ATTR=VALUE …`.
pub(crate) fn sr_cfg(
    all: &mut Vec<StandingCfg>,
    e: &Entry,
    w: &mut Vec<String>,
) -> Result<(), ConfigError> {
    let name = name_of(e, "SRCFG")?;
    let mut errors = Vec::new();
    for attr in super::object_attrs(e, w)? {
        let sr = object(all, &name, &e.location);
        let what = format!("SRCFG[{name}] {}", attr.name);
        let value = attr.value.trim();
        if let Err(err) = set(sr, &attr.name, value, &what, &attr.location, false, w) {
            errors.push(err);
        }
    }
    ConfigError::all(errors).map_or(Ok(()), Err)
}

/// `SR<ATTR>[name] value …`: lists are separated by white space.
pub(crate) fn old_form(
    all: &mut Vec<StandingCfg>,
    e: &Entry,
    w: &mut Vec<String>,
) -> Result<(), ConfigError> {
    let attr = OLD_FORMS
        .iter()
        .find(|(form, _)| *form == e.name)
        .map(|&(_, attr)| attr)
        .expect("registered for the old forms only");
    let name = name_of(e, &e.name)?;
    let sr = object(all, &name, &e.location);
    let what = format!("{}[{name}]", e.name);
    let value = e.value_text();
    set(sr, attr, value.trim(), &what, &e.location, true, w)
}

/// One attribute of a standing reservation.
fn set(
    sr: &mut StandingCfg,
    attr: &str,
    value: &str,
    what: &str,
    at: &Location,
    old_form: bool,
    w: &mut Vec<String>,
) -> Result<(), ConfigError> {
    let err = |m: String| ConfigError::at(at.clone(), format!("{what}: {m}"));
    let warn = |w: &mut Vec<String>, m: String| w.push(format!("{at}: warning: {what}: {m}"));
    let count = |text: &str| -> Result<u64, ConfigError> {
        let v = mauisim_config::parse_int(text).map_err(|e| err(e.0))?;
        u64::try_from(v).map_err(|_| err(format!("expected a non-negative number, found {v}")))
    };
    let time = |text: &str| sr_time(text).map_err(err);
    match attr {
        "PERIOD" => {
            let word = value.to_ascii_uppercase();
            let period = match word.as_str() {
                "DAY" => Period::Day,
                "WEEK" => Period::Week,
                "INFINITY" => Period::Infinity,
                _ => {
                    return Err(err(format!(
                        "expected DAY, WEEK or INFINITY, found `{value}`"
                    )))
                }
            };
            if value != word {
                // MSRProcessConfig compares in capitals and falls back to DAY.
                warn(
                    w,
                    format!("Maui 3.3.1 reads only DAY, WEEK or INFINITY in capitals: `{value}` is read as DAY, as it does"),
                );
                sr.period = Period::Day;
            } else {
                sr.period = period;
            }
        }
        "DAYS" => {
            sr.days = days_of(value);
            if value.contains('-') {
                let named: Vec<&str> = (0..7)
                    .filter(|d| sr.days & (1 << d) != 0)
                    .map(|d| DAY_NAMES[d])
                    .collect();
                warn(
                    w,
                    format!(
                        "Maui 3.3.1 expands no range of days: `{value}` is {} only, as it reads it; list every day (Mon,Tue,Wed,Thu,Fri)",
                        if named.is_empty() { "no day".to_string() } else { named.join(" and ") }
                    ),
                );
            } else if sr.days == 0 {
                warn(
                    w,
                    format!("no day Maui 3.3.1 recognises in `{value}` (Sun … Sat, SUN … SAT or ALL): the reservation never holds its nodes"),
                );
            }
        }
        "STARTTIME" => sr.start = time(value)?,
        "ENDTIME" => sr.end = time(value)?,
        "WSTARTTIME" => sr.week_start = time(value)?,
        "WENDTIME" => sr.week_end = time(value)?,
        "DEPTH" => {
            let depth = count(value)?;
            if !(1..=64).contains(&depth) {
                return Err(err(format!(
                    "expected 1 to 64 periods (Maui's MAX_SRES_DEPTH), found {depth}"
                )));
            }
            sr.depth = depth as u32;
        }
        "TASKCOUNT" => sr.task_count = count(value)?,
        "TPN" => sr.tasks_per_node = count(value)?,
        "HOSTLIST" => {
            let hosts: Vec<String> = value
                .split([',', ' ', '\t'])
                .filter(|h| !h.is_empty())
                .map(String::from)
                .collect();
            for h in &hosts {
                host_pattern(h).map_err(|m| err(format!("`{h}`: {m}")))?;
            }
            sr.hosts = Some(hosts);
        }
        "RESOURCES" => {
            if old_form {
                // MSRProcessOConfig reads SRRESOURCES into an empty list, so the
                // reservation asks for no processor and 3.3.1 never makes a window.
                warn(
                    w,
                    format!("Maui 3.3.1 reads this form as no processor at all and never makes a window of reservation {} (write SRCFG[{}] RESOURCES=…)", sr.name, sr.name),
                );
                sr.holds_nothing = Some("its SRRESOURCES asks for no processor in 3.3.1".into());
                return Ok(());
            }
            sr.procs_per_task = resources(value, &mut |m| warn(w, m)).map_err(err)?;
        }
        "USERLIST" | "GROUPLIST" | "ACCOUNTLIST" | "CLASSLIST" | "QOSLIST" => {
            let kind = match attr {
                "USERLIST" => CredKind::User,
                "GROUPLIST" => CredKind::Group,
                "ACCOUNTLIST" => CredKind::Account,
                "CLASSLIST" => CredKind::Class,
                _ => CredKind::Qos,
            };
            for item in value.split([',', ':', '|', ' ']).filter(|s| !s.is_empty()) {
                let (name, acl) = acl_entry(item, &mut |m| warn(w, m));
                if name.is_empty() {
                    return Err(err(format!("`{item}` names no {}", kind.label())));
                }
                if name.eq_ignore_ascii_case("ALL") {
                    warn(
                        w,
                        format!("`{name}` is not a wildcard in Maui 3.3.1: it names a {} called {name}", kind.label()),
                    );
                }
                if old_form {
                    sr.old_form_entries.0 |= acl == Acl::Any;
                    sr.old_form_entries.1 |= acl == Acl::Denied;
                }
                sr.access[kind.index()].push((name, acl));
            }
        }
        "PROCLIMIT" => {
            let limit = value.trim_start_matches("<=");
            sr.proc_limit = Some(count(limit)?);
        }
        "TASKLIMIT" => warn(
            w,
            "Maui 3.3.1 never matches a task limit (a job's credentials hold no task count): no job gets in by it".into(),
        ),
        "NODEFEATURES" => {
            sr.features = crate::params::node_cfg::feature_list(value);
        }
        "PARTITION" => {
            if !value.eq_ignore_ascii_case("ALL") {
                sr.partition = Some(value.to_string());
            }
        }
        "ACCESS" => match value.to_ascii_uppercase().as_str() {
            "SHARED" => {}
            "DEDICATED" => {
                if sr.hosts.is_none() {
                    warn(
                        w,
                        "DEDICATED: mauisim chooses the reservation's nodes once, as for a shared one; Maui 3.3.1 would avoid nodes busy at each window's start".into(),
                    );
                }
            }
            other => return Err(err(format!("expected SHARED or DEDICATED, found `{other}`"))),
        },
        "FLAGS" => {
            for flag in value.split([',', ':', '|', ' ']).filter(|s| !s.is_empty()) {
                match flag.to_ascii_uppercase().as_str() {
                    "BYNAME" => {
                        warn(
                            w,
                            "BYNAME: only jobs asking for the reservation by name may use it, and no trace job does".into(),
                        );
                        sr.access = Default::default();
                        sr.proc_limit = None;
                    }
                    "STANDINGRES" | "PREEMPTEE" | "OWNERPREEMPT" | "ADVRES" | "META" => {}
                    "SINGLEUSE" | "TIMEFLEX" | "SPACEFLEX" | "DEDICATEDNODE"
                    | "DEDICATEDRESOURCE" | "FORCE" => warn(
                        w,
                        format!("flag {flag}: mauisim chooses the reservation's nodes once, from the config, whatever runs on them"),
                    ),
                    other => {
                        return Err(err(format!(
                            "unknown reservation flag `{other}` (Maui 3.3.1's: STANDINGRES, SINGLEUSE, BYNAME, META, PREEMPTEE, TIMEFLEX, SPACEFLEX, DEDICATEDNODE, DEDICATEDRESOURCE, ADVRES, FORCE, OWNERPREEMPT)"
                        )))
                    }
                }
            }
        }
        // MSR.c: MAXTIME and SRMAXTIME set one duration entry (`MACLSet`, `<=`), required
        // with a `*` in the value and always from SRMAXTIME; TIMELIMIT adds one as an
        // access list does (MACL.c `MACLLoadConfig`: `<=` unless another comparison is
        // given, `*` at either end for required).
        "MAXTIME" | "TIMELIMIT" => {
            let mut text = value;
            if attr == "TIMELIMIT" {
                text = text.strip_prefix("<=").unwrap_or(text);
                if text.starts_with(['<', '>', '=', '!', '%', '^'])
                    || text.ends_with(['!', '^', '-', '+', '=', '%'])
                    || text.contains([',', '|'])
                {
                    return Err(err(format!(
                        "`{value}`: mauisim simulates one duration a job's run inside a window may reach (`<=`, optionally required with `*`); remove the attribute to simulate without it"
                    )));
                }
            }
            let required = text.contains('*') || old_form;
            let seconds = time(text.trim_matches('*'))?;
            let entries = sr.access.iter().flatten().map(|&(_, acl)| acl);
            let seen_before = match (attr, old_form) {
                ("TIMELIMIT", _) => None,
                (_, true) => Some(sr.old_form_entries),
                (_, false) => Some((
                    entries.clone().any(|a| a == Acl::Any)
                        || sr.proc_limit.is_some()
                        || sr.time_limit.is_some_and(|t| !t.required),
                    entries.clone().any(|a| a == Acl::Denied),
                )),
            };
            sr.time_limit = Some(TimeLimit {
                seconds,
                required,
                seen_before,
            });
        }
        "JOBATTRLIST" => {
            return Err(err(
                "access by job attribute changes who may use the reservation, and mauisim does not simulate it yet: remove the attribute to simulate without it".into(),
            ))
        }
        // Accounting, ownership and idle release: no effect on a simulated schedule.
        "CHARGEACCOUNT" | "OWNER" | "IDLETIME" | "NAME" | "STIDLETIME" | "STTOTALTIME"
        | "PRIORITY" => {}
        // 3.3.1 skips a name it does not know ("cannot parse SR[…] config attribute",
        // MSR.c `MSRProcessConfig`): so does the simulation, but it says so.
        other => {
            let hint = match mauisim_config::closest(other, SR_ATTRS) {
                Some(near) => format!(" (did you mean {near}?)"),
                None => String::new(),
            };
            w.push(format!(
                "{at}: warning: SRCFG[{}]: unknown attribute {other}{hint}; ignored, as Maui 3.3.1 ignores it",
                sr.name
            ));
        }
    }
    Ok(())
}

/// Days as 3.3.1 finds them: each of `Sun` … `Sat` (or in capitals) anywhere in the
/// text, or `ALL`.
fn days_of(value: &str) -> u8 {
    if value.contains("ALL") {
        return mauisim_core::EVERY_DAY;
    }
    (0..7)
        .filter(|&d| {
            let name = DAY_NAMES[d];
            value.contains(name) || value.contains(&name.to_ascii_uppercase())
        })
        .fold(0, |days, d| days | 1 << d)
}

/// A time within a period as 3.3.1's MUTimeFromString reads it: seconds, `HH:MM`,
/// `HH:MM:SS` or `D:HH:MM:SS`.
fn sr_time(text: &str) -> Result<Time, String> {
    let fields: Vec<&str> = text.split(':').collect();
    let numbers: Option<Vec<i64>> = fields.iter().map(|f| f.parse::<i64>().ok()).collect();
    let expected = || {
        format!("expected a time of day (HH:MM:SS, HH:MM, D:HH:MM:SS or seconds), found `{text}`")
    };
    let n = numbers
        .filter(|n| n.iter().all(|&v| v >= 0))
        .ok_or_else(expected)?;
    let secs = match n.as_slice() {
        [s] => *s,
        [h, m] => h * 3600 + m * 60,
        [h, m, s] => h * 3600 + m * 60 + s,
        [d, h, m, s] => d * 86_400 + h * 3600 + m * 60 + s,
        _ => return Err(expected()),
    };
    if secs > 64 * 7 * 86_400 {
        return Err(format!("`{text}` is longer than any period"));
    }
    Ok(secs)
}

/// `RESOURCES=PROCS:2` (also `PROCS=2`, several kinds separated by `;` `,` or `+`): the
/// processors per task. Memory, swap and disk are not held (3.3.1 holds none of them
/// for a whole-node reservation and accounts them inconsistently otherwise).
fn resources(value: &str, warn: &mut dyn FnMut(String)) -> Result<Option<u64>, String> {
    let mut procs = None;
    for part in value.split([';', ',', '+']).filter(|s| !s.is_empty()) {
        let (kind, amount) = part
            .split_once([':', '='])
            .ok_or_else(|| format!("expected KIND:AMOUNT (PROCS:2), found `{part}`"))?;
        let amount: i64 = amount
            .trim()
            .parse()
            .map_err(|_| format!("expected a number in `{part}`"))?;
        match kind.trim().to_ascii_uppercase().as_str() {
            "PROCS" => procs = (amount > 0).then_some(amount as u64),
            "MEM" | "SWAP" | "DISK" => warn(format!(
                "{kind} is not held: mauisim's standing reservations hold processors only"
            )),
            other => {
                return Err(format!(
                    "unknown resource `{other}` (PROCS, MEM, SWAP, DISK)"
                ))
            }
        }
    }
    Ok(procs)
}

/// An access-list name with 3.3.1's suffixes: `*` required, `!` denied; the affinity
/// marks `+` `=` `-` and `^` are read as a plain entry.
fn acl_entry(item: &str, warn: &mut dyn FnMut(String)) -> (String, Acl) {
    let mut name = item;
    let mut acl = Acl::Any;
    while let Some(last) = name.chars().last().filter(|c| "*!^+=-".contains(*c)) {
        name = &name[..name.len() - 1];
        match last {
            '*' => acl = Acl::Required,
            '!' => acl = Acl::Denied,
            '^' | '-' => warn(format!(
                "`{item}`: the mark `{last}` is read as a plain access entry"
            )),
            _ => {}
        }
    }
    (name.to_string(), acl)
}

/// A HOSTLIST entry as 3.3.1 matches it: an unanchored regular expression, case ignored.
pub(crate) fn host_pattern(text: &str) -> Result<regex::Regex, String> {
    regex::RegexBuilder::new(text)
        .case_insensitive(true)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| format!("not a regular expression Maui could match hosts with: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_are_found_as_3_3_1_finds_them() {
        assert_eq!(days_of("Mon,Tue,Wed,Thu,Fri"), 0b011_1110);
        // No range: Monday and Friday only.
        assert_eq!(days_of("Mon-Fri"), 0b010_0010);
        assert_eq!(days_of("SAT SUN"), 0b100_0001);
        assert_eq!(days_of("mon"), 0);
        assert_eq!(days_of("ALL"), 0x7f);
    }

    #[test]
    fn times_of_day() {
        assert_eq!(sr_time("9:00:00"), Ok(9 * 3600));
        assert_eq!(sr_time("17:30"), Ok(17 * 3600 + 1800));
        assert_eq!(sr_time("1:06:00:00"), Ok(30 * 3600));
        assert_eq!(sr_time("3600"), Ok(3600));
        assert!(sr_time("9am").is_err());
        assert!(sr_time("-1").is_err());
    }

    #[test]
    fn access_marks() {
        let mut warnings = Vec::new();
        let mut warn = |m: String| warnings.push(m);
        assert_eq!(acl_entry("bob", &mut warn), ("bob".into(), Acl::Any));
        assert_eq!(acl_entry("bob*", &mut warn), ("bob".into(), Acl::Required));
        assert_eq!(acl_entry("bob!", &mut warn), ("bob".into(), Acl::Denied));
        assert_eq!(acl_entry("bob+", &mut warn), ("bob".into(), Acl::Any));
        assert!(warnings.is_empty());
        let mut warn = |m: String| warnings.push(m);
        assert_eq!(acl_entry("bob-", &mut warn), ("bob".into(), Acl::Any));
        assert_eq!(warnings.len(), 1);
    }

    #[test]
    fn hosts_match_anywhere_in_the_name() {
        let p = host_pattern("node1").unwrap();
        assert!(p.is_match("node1") && p.is_match("NODE10") && !p.is_match("node2"));
        assert!(host_pattern("node[").is_err());
    }
}
