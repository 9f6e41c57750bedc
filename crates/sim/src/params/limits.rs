//! Throttling limits in maui.cfg (guide 6.2): `*CFG` limit attributes, SYSTEMCFG and the
//! SYSTEMMAX*PERJOB parameters.
//!
//! Names: `MAX<M>` (active, `soft,hard`), `MAXI<M>` (idle, hard only), `OMAX<M>`,
//! `OMAXI<M>`, `OMAXJ<M>` (QOS overrides), `MAX<M>[USER]` / `MAX<M>[USER:steve]` and
//! `MAX{JOB,NODE,PROC}PERUSER` (per credential inside a credential), where `<M>` is JOB,
//! PROC, NODE, PS, PE, WC or MEM. MAXWC takes time values, the others integers.

use crate::params::credentials::{CredObject, Names};
use crate::params::{duration, SimConfig};
use mauisim_config::{self as cfg, Attr, ConfigError, Duration, Entry, Location};
use mauisim_core::{
    Blocked, CredKind, Level, LimitPair, Limits, Metric, Owner, Scope, Shortfall, Source,
};

/// A limit attribute's meaning, from its name alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LimitName {
    scope: Scope,
    metric: Metric,
    /// `O` prefix: a QOS override.
    overriding: bool,
    /// `MAXJOBPERUSER` & co.: per user within the credential.
    per_user: bool,
}

fn parse_name(name: &str) -> Option<LimitName> {
    let (overriding, base) = match name.strip_prefix('O') {
        Some(rest) => (true, rest),
        None => (false, name),
    };
    let rest = base.strip_prefix("MAX")?;
    if !overriding {
        if let Some(m) = rest.strip_suffix("PERUSER") {
            return match Metric::from_suffix(m)? {
                metric @ (Metric::Job | Metric::Node | Metric::Proc) => Some(LimitName {
                    scope: Scope::Active,
                    metric,
                    overriding,
                    per_user: true,
                }),
                _ => None,
            };
        }
    }
    let (scope, metric) = if let Some(m) = Metric::from_suffix(rest) {
        (Scope::Active, m)
    } else if let Some(m) = rest.strip_prefix('I').and_then(Metric::from_suffix) {
        (Scope::Idle, m)
    } else if let Some(m) = rest.strip_prefix('J').and_then(Metric::from_suffix) {
        (Scope::PerJob, m)
    } else {
        return None;
    };
    Some(LimitName {
        scope,
        metric,
        overriding,
        per_user: false,
    })
}

/// True for every name this module understands (for the unknown-attribute check).
pub(crate) fn is_limit_attr(name: &str) -> bool {
    parse_name(name).is_some()
}

/// The names a "did you mean" may suggest.
pub const LIMIT_NAMES: &[&str] = &[
    "MAXJOB",
    "MAXPROC",
    "MAXNODE",
    "MAXPS",
    "MAXPE",
    "MAXWC",
    "MAXMEM",
    "MAXIJOB",
    "MAXIPROC",
    "MAXINODE",
    "MAXIPS",
    "MAXIPE",
    "MAXIWC",
    "MAXIMEM",
    "OMAXJOB",
    "OMAXPROC",
    "OMAXNODE",
    "OMAXIJOB",
    "OMAXJPROC",
    "MAXJOBPERUSER",
    "MAXNODEPERUSER",
    "MAXPROCPERUSER",
];

/// `soft,hard` (or one value for both) of `metric`: integers, or time values for WC.
/// A soft value of 0 (none) or above the hard one becomes the hard one (guide 6.2.4).
fn limit_pair(
    what: &str,
    metric: Metric,
    text: &str,
    at: &Location,
    warnings: &mut Vec<String>,
) -> Result<LimitPair, ConfigError> {
    let err = |m: String| ConfigError::at(at.clone(), format!("{what}: {m}"));
    let (soft, hard) = if metric == Metric::Wc {
        let parts: Vec<&str> = text.split(',').collect();
        if parts.len() > 2 {
            return Err(err(format!(
                "expected a limit `HARD` or `SOFT,HARD` (time values), found `{text}`"
            )));
        }
        let mut secs = Vec::new();
        for part in parts {
            secs.push(match duration(what, part.trim(), at, warnings)? {
                Duration::Seconds(s) if s >= 0 => s as u64,
                Duration::Seconds(_) => {
                    return Err(err(format!("a limit cannot be negative, found `{text}`")))
                }
                Duration::Infinity => 0,
            });
        }
        (secs[0], *secs.last().expect("one part at least"))
    } else {
        let ((soft, hard), warning) = cfg::parse_limit_pair(text).map_err(|e| err(e.0))?;
        if let Some(w) = warning {
            warnings.push(format!("{at}: warning: {what}: {w}"));
        }
        (soft as u64, hard as u64)
    };
    let pair = if soft == 0 || (hard > 0 && soft > hard) {
        if soft > hard && hard > 0 {
            warnings.push(format!(
                "{at}: warning: {what}: soft limit {soft} is above hard limit {hard}; using {hard} for both"
            ));
        }
        LimitPair::both(hard)
    } else {
        LimitPair { soft, hard }
    };
    Ok(pair)
}

/// A single (hard) value: per-job limits have no soft value. (Idle limits do in 3.3.1,
/// though guide 6.2.3 says a soft one is ignored: its soft selection holds jobs to it.)
fn hard_only(
    what: &str,
    metric: Metric,
    text: &str,
    at: &Location,
    warnings: &mut Vec<String>,
) -> Result<u64, ConfigError> {
    let pair = limit_pair(what, metric, text, at, warnings)?;
    if pair.soft != pair.hard {
        warnings.push(format!(
            "{at}: warning: {what}: per-job limits take one value; soft {} ignored, using {}",
            pair.soft, pair.hard
        ));
    }
    Ok(pair.hard)
}

fn cred_kind(label: &str) -> Option<CredKind> {
    CredKind::ALL
        .into_iter()
        .find(|k| k.label().eq_ignore_ascii_case(label))
}

/// Applies a limit attribute of `kind`'s object `name` (already known to be one).
pub(crate) fn credential_limit(
    object: &mut CredObject,
    kind: CredKind,
    name: &str,
    attr: &Attr,
    warnings: &mut Vec<String>,
) -> Result<(), ConfigError> {
    let at = &attr.location;
    let what = match &attr.index {
        Some(i) => format!("{}[{name}] {}[{i}]", kind.cfg_name(), attr.name),
        None => format!("{}[{name}] {}", kind.cfg_name(), attr.name),
    };
    let err = |m: String| ConfigError::at(at.clone(), format!("{what}: {m}"));
    let limit = parse_name(&attr.name).expect("checked by is_limit_attr");
    if limit.overriding && kind != CredKind::Qos {
        return Err(err(
            "override limits (OMAX…) belong to QOSCFG: they let a QOS's jobs pass other credentials' limits".into(),
        ));
    }
    if limit.scope == Scope::PerJob && !limit.overriding {
        return Err(err(
            "per-job limits are SYSTEMMAXPROCPERJOB, SYSTEMMAXPROCSECONDPERJOB and SYSTEMMAXJOBWALLTIME, or QOSCFG OMAXJ…".into(),
        ));
    }
    let per = match (&attr.index, limit.per_user) {
        (Some(_), true) => return Err(err("takes no index".into())),
        (Some(_), false) if limit.scope != Scope::Active || limit.overriding => {
            return Err(err(
                "only active limits (MAX…) take a credential index such as [USER]".into(),
            ))
        }
        (Some(index), false) => {
            let (label, who) = match index.split_once(':') {
                Some((l, w)) => (l.trim(), Some(w.trim())),
                None => (index.as_str(), None),
            };
            let Some(per_kind) = cred_kind(label) else {
                return Err(err(format!(
                    "unknown credential type `{label}`: expected USER, GROUP, ACCOUNT, QOS or CLASS"
                )));
            };
            if who.is_some_and(str::is_empty) {
                return Err(err(format!("`{label}:` needs a name after the colon")));
            }
            Some((per_kind, who.map(String::from)))
        }
        (None, true) => Some((CredKind::User, None)),
        (None, false) => None,
    };
    let m = limit.metric as usize;
    let limits: &mut Limits = &mut object.settings.limits;
    match (limit.scope, limit.overriding, per) {
        (Scope::Active, false, Some((per_kind, who))) => {
            let pair = limit_pair(&what, limit.metric, &attr.value, at, warnings)?;
            object.per_cred.push((limit.metric, per_kind, who, pair));
        }
        (Scope::Active, false, None) => {
            limits.active[m] = Some(limit_pair(&what, limit.metric, &attr.value, at, warnings)?)
        }
        (Scope::Active, true, _) => {
            limits.override_active[m] =
                Some(limit_pair(&what, limit.metric, &attr.value, at, warnings)?)
        }
        (Scope::Idle, false, _) => {
            limits.idle[m] = Some(limit_pair(&what, limit.metric, &attr.value, at, warnings)?)
        }
        (Scope::Idle, true, _) => {
            limits.override_idle[m] =
                Some(limit_pair(&what, limit.metric, &attr.value, at, warnings)?)
        }
        (Scope::PerJob, _, _) => {
            limits.override_per_job[m] =
                Some(hard_only(&what, limit.metric, &attr.value, at, warnings)?)
        }
        (Scope::FsCap | Scope::FsRelativeCap | Scope::NegativePriority, _, _) => {
            unreachable!("limit names parse to limit scopes only")
        }
    }
    Ok(())
}

/// `SYSTEMCFG MAXJOB=… MAXIPROC=…`: limits on all jobs together.
pub(crate) fn system_cfg(
    c: &mut SimConfig,
    e: &Entry,
    w: &mut Vec<String>,
) -> Result<(), ConfigError> {
    for attr in super::object_attrs(e, w)? {
        let at = &attr.location;
        let what = format!("SYSTEMCFG {}", attr.name);
        if matches!(attr.name.as_str(), "PLIST" | "PDEF") {
            super::partitions::record(c, None, &attr);
            continue;
        }
        match attr.name.as_str() {
            "QDEF" | "QLIST" => {
                let bad = |m: String| ConfigError::at(at.clone(), format!("{what}: {m}"));
                let system = &mut c.credentials.system;
                if attr.name == "QDEF" {
                    system.qdef = Some(super::one_name(&attr.value).map_err(bad)?);
                    system.qdef_location = Some(at.clone());
                } else {
                    system.qlist = Some(super::name_list(&attr.value).map_err(bad)?);
                }
                continue;
            }
            // MJob.c chooses an account from the credentials and their DEFAULT objects only.
            "ADEF" | "ALIST" => {
                w.push(format!(
                    "{at}: warning: {what} is ignored, as Maui 3.3.1 ignores it: no job's account is chosen from the system's"
                ));
                continue;
            }
            _ => {}
        }
        let limit = match parse_name(&attr.name) {
            Some(l) if !l.overriding && !l.per_user && l.scope != Scope::PerJob => l,
            _ => {
                let system_names: Vec<&str> = LIMIT_NAMES
                    .iter()
                    .copied()
                    .filter(|n| parse_name(n).is_some_and(|l| !l.overriding && !l.per_user))
                    .collect();
                let hint = match cfg::closest(&attr.name, &system_names) {
                    Some(near) => format!("; did you mean {near}?"),
                    None => String::new(),
                };
                return Err(ConfigError::at(
                    at.clone(),
                    format!("{what}: SYSTEMCFG takes active (MAX…) and idle (MAXI…) limits{hint}"),
                ));
            }
        };
        if attr.index.is_some() {
            return Err(ConfigError::at(
                at.clone(),
                format!("{what}: per-credential limits belong to a credential (e.g. CLASSCFG[c] MAXJOB[USER]=n)"),
            ));
        }
        let m = limit.metric as usize;
        let limits = &mut c.policy.system_limits;
        match limit.scope {
            Scope::Active => {
                limits.active[m] = Some(limit_pair(&what, limit.metric, &attr.value, at, w)?)
            }
            _ => limits.idle[m] = Some(limit_pair(&what, limit.metric, &attr.value, at, w)?),
        }
    }
    Ok(())
}

/// SYSTEMMAXPROCPERJOB, SYSTEMMAXPROCSECONDPERJOB, SYSTEMMAXJOBWALLTIME: the largest job
/// the system runs; larger jobs are held.
pub(crate) fn system_per_job(
    c: &mut SimConfig,
    e: &Entry,
    w: &mut Vec<String>,
) -> Result<(), ConfigError> {
    let metric = match e.name.as_str() {
        "SYSTEMMAXPROCPERJOB" => Metric::Proc,
        "SYSTEMMAXPROCSECONDPERJOB" => Metric::Ps,
        _ => Metric::Wc,
    };
    let text = e.value_text();
    let at = e.values.first().map_or(&e.location, |v| &v.location);
    if text.trim().is_empty() {
        return Err(ConfigError::at(
            e.location.clone(),
            format!("{} needs a value", e.name),
        ));
    }
    let value = hard_only(&e.name, metric, &text, at, w)?;
    c.policy.system_limits.per_job[metric as usize] = Some(value);
    Ok(())
}

// Limits in words: how held.csv, summary.json and `inspect … blocked` name a broken limit.

/// The maui.cfg name of the limit: `MAXJOB`, `MAXIPROC`, `OMAXNODE`, `MAXJOB[USER]`,
/// `SYSTEMMAXPROCPERJOB`, or `machine size`.
pub fn limit_name(b: &Blocked) -> String {
    if let Source::Machine(lacks) = b.source {
        return match lacks {
            Shortfall::Procs => "machine size",
            Shortfall::TaskProcs => "node processors",
            Shortfall::Mem => "node memory",
            Shortfall::Swap => "node swap",
            Shortfall::Disk => "node disk",
            Shortfall::Features => "node features",
            Shortfall::StandingWindows => "standing reservations",
            Shortfall::Partitions => "partitions",
            Shortfall::NodeSets => "node sets",
            Shortfall::StartLimits => "node start limits",
        }
        .into();
    }
    if b.scope == Scope::PerJob && matches!(b.owner, Owner::Cred(..)) {
        return match b.metric {
            Metric::Wc => "MAX.WCLIMIT",
            Metric::Node => "MAXNODEPERJOB",
            _ => "MAXPROCPERJOB",
        }
        .into();
    }
    if b.scope == Scope::PerJob && b.source != Source::QosOverride {
        return match b.metric {
            Metric::Proc => "SYSTEMMAXPROCPERJOB",
            Metric::Ps => "SYSTEMMAXPROCSECONDPERJOB",
            _ => "SYSTEMMAXJOBWALLTIME",
        }
        .into();
    }
    let prefix = if b.source == Source::QosOverride {
        "O"
    } else {
        ""
    };
    let per = match b.owner {
        Owner::Pair(_, _, kind, _) => format!("[{}]", kind.label().to_uppercase()),
        _ => String::new(),
    };
    format!("{prefix}{}{per}", b.scope.limit_name(b.metric))
}

/// Whose usage the limit counts: `user steve`, `class batch, user steve`, `system`.
pub(crate) fn owner_name(owner: &Owner, names: &Names) -> String {
    match *owner {
        Owner::Cred(kind, id) => format!("{} {}", kind.label(), names.name(kind, id)),
        Owner::System => "system".into(),
        Owner::Pair(kind, id, per, per_id) => format!(
            "{} {}, {} {}",
            kind.label(),
            names.name(kind, id),
            per.label(),
            names.name(per, per_id)
        ),
    }
}

pub(crate) fn source_name(source: Source) -> &'static str {
    match source {
        Source::Own => "own",
        Source::Default => "DEFAULT",
        Source::QosOverride => "QOS override",
        Source::Machine(_) => "machine",
    }
}

/// One line of explanation: `user steve MAXJOB (soft): 2 in use + 1 > 2`.
pub fn describe(b: &Blocked, names: &Names) -> String {
    let soft = if b.scope == Scope::Active && b.level == Level::Soft {
        " (soft)"
    } else {
        ""
    };
    let who = owner_name(&b.owner, names);
    match (b.scope, b.source) {
        (_, Source::Machine(Shortfall::Features)) => {
            "node features: no node has every feature the job requires".into()
        }
        (_, Source::Machine(Shortfall::StandingWindows)) => format!(
            "standing reservations: its {} processors never fit for its limit between the windows of the standing reservations it may not use",
            b.amount
        ),
        (_, Source::Machine(Shortfall::Partitions)) if b.usage == 0 => {
            "partitions: its credentials' PLISTs (with SYSCFG's) let it into no partition; Maui 3.3.1 leaves such a job idle for ever".into()
        }
        (_, Source::Machine(Shortfall::Partitions)) => format!(
            "partitions: no partition it may use has nodes that can hold its {} processors (a job runs within one partition); Maui 3.3.1 leaves such a job idle for ever",
            b.amount
        ),
        (_, Source::Machine(Shortfall::NodeSets)) => format!(
            "node sets: no node set holds its {} processors, and NODESETDELAY above 0 keeps a job within one; Maui 3.3.1 leaves such a job idle for ever",
            b.amount
        ),
        (_, Source::Machine(Shortfall::StartLimits)) => format!(
            "node start limits: NODECFG MAXJOBPERUSER, MAXPROCPERUSER, MAXPROC and MAXPEPERJOB let at most {} of its {} processors start together, even on idle nodes; Maui 3.3.1 leaves such a job idle for ever",
            b.limit, b.amount
        ),
        (_, Source::Machine(Shortfall::TaskProcs)) => format!(
            "{}: each task needs {} processors > {} on the largest node",
            limit_name(b),
            b.amount,
            b.limit
        ),
        (_, Source::Machine(Shortfall::Mem | Shortfall::Swap | Shortfall::Disk)) => format!(
            "{}: each task needs {} MB > {} MB on the largest node",
            limit_name(b),
            b.amount,
            b.limit
        ),
        (Scope::PerJob, _) if matches!(b.owner, Owner::Cred(..)) => format!(
            "{who} {}: job needs {} > {} ({}; Maui 3.3.1 holds it as it is loaded)",
            limit_name(b),
            b.amount,
            b.limit,
            source_name(b.source)
        ),
        (Scope::PerJob, _) => format!("{}: job needs {} > {}", limit_name(b), b.amount, b.limit),
        (Scope::NegativePriority, _) => format!("REJECTNEGPRIOJOBS: priority -{} < 0", b.amount),
        _ => format!(
            "{who} {}{soft}: {} in use + {} > {} ({})",
            limit_name(b),
            b.usage,
            b.amount,
            b.limit,
            source_name(b.source)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_to_scope_and_metric() {
        let n = |s| parse_name(s).map(|l| (l.scope, l.metric, l.overriding, l.per_user));
        assert_eq!(
            n("MAXJOB"),
            Some((Scope::Active, Metric::Job, false, false))
        );
        assert_eq!(n("MAXIJOB"), Some((Scope::Idle, Metric::Job, false, false)));
        assert_eq!(
            n("MAXJPROC"),
            Some((Scope::PerJob, Metric::Proc, false, false))
        );
        assert_eq!(
            n("OMAXNODE"),
            Some((Scope::Active, Metric::Node, true, false))
        );
        assert_eq!(n("OMAXIPS"), Some((Scope::Idle, Metric::Ps, true, false)));
        assert_eq!(n("OMAXJWC"), Some((Scope::PerJob, Metric::Wc, true, false)));
        assert_eq!(
            n("MAXPROCPERUSER"),
            Some((Scope::Active, Metric::Proc, false, true))
        );
        assert_eq!(n("MAXPSPERUSER"), None);
        assert_eq!(n("MAXFOO"), None);
        assert_eq!(n("PRIORITY"), None);
    }

    fn load(text: &str) -> Result<crate::params::LoadedConfig, ConfigError> {
        crate::params::from_str(text, "maui.cfg")
    }

    #[test]
    fn limits_land_on_their_objects() {
        let c = load(
            "USERCFG[steve] MAXJOB=2,4 MAXNODE=30 MAXIJOB=3 MAXWC=2:00:00,4:00:00\n\
             USERCFG[DEFAULT] MAXPROC=8,4\n\
             QOSCFG[hiprio] MAXJOB=3 OMAXNODE=64 OMAXIJOB=9 OMAXJPROC=128 OMAXIPROC=4,8\n\
             CLASSCFG[fast] MAXJOB[GROUP]=5 MAXPROC[USER:steve]=3 MAXNODEPERUSER=7\n\
             SYSTEMCFG MAXJOB=100 MAXIPROC=500\nSYSTEMMAXPROCPERJOB 64\n\
             SYSTEMMAXJOBWALLTIME 1:00:00:00\nSYSTEMMAXPROCSECONDPERJOB 360000\n",
        )
        .unwrap();
        let creds = &c.config.credentials;
        let steve = &creds.objects(CredKind::User)["steve"].settings.limits;
        assert_eq!(
            steve.active[Metric::Job as usize],
            Some(LimitPair { soft: 2, hard: 4 })
        );
        assert_eq!(
            steve.active[Metric::Node as usize],
            Some(LimitPair::both(30))
        );
        assert_eq!(steve.idle[Metric::Job as usize], Some(LimitPair::both(3)));
        assert_eq!(
            steve.active[Metric::Wc as usize],
            Some(LimitPair {
                soft: 7200,
                hard: 14400
            })
        );
        // A soft value above the hard one becomes the hard one, with a warning.
        let default = &creds.objects(CredKind::User)["DEFAULT"].settings.limits;
        assert_eq!(
            default.active[Metric::Proc as usize],
            Some(LimitPair::both(4))
        );
        assert_eq!(
            c.warnings,
            ["maui.cfg:2:18: warning: USERCFG[DEFAULT] MAXPROC: soft limit 8 is above hard limit 4; using 4 for both"]
        );
        let hiprio = &creds.objects(CredKind::Qos)["hiprio"].settings.limits;
        assert_eq!(
            hiprio.override_active[Metric::Node as usize],
            Some(LimitPair::both(64))
        );
        assert_eq!(
            hiprio.override_idle[Metric::Job as usize],
            Some(LimitPair::both(9))
        );
        // Idle limits take a soft value too, as 3.3.1 reads them.
        let four_eight = LimitPair { soft: 4, hard: 8 };
        assert_eq!(
            hiprio.override_idle[Metric::Proc as usize],
            Some(four_eight)
        );
        assert_eq!(hiprio.override_per_job[Metric::Proc as usize], Some(128));
        let fast = &creds.objects(CredKind::Class)["fast"].per_cred;
        assert_eq!(
            fast,
            &[
                (Metric::Job, CredKind::Group, None, LimitPair::both(5)),
                (
                    Metric::Proc,
                    CredKind::User,
                    Some("steve".to_string()),
                    LimitPair::both(3)
                ),
                (Metric::Node, CredKind::User, None, LimitPair::both(7)),
            ]
        );
        let system = &c.config.policy.system_limits;
        assert_eq!(
            system.active[Metric::Job as usize],
            Some(LimitPair::both(100))
        );
        assert_eq!(
            system.idle[Metric::Proc as usize],
            Some(LimitPair::both(500))
        );
        assert_eq!(system.per_job[Metric::Proc as usize], Some(64));
        assert_eq!(system.per_job[Metric::Wc as usize], Some(86400));
        assert_eq!(system.per_job[Metric::Ps as usize], Some(360000));
        // summary.json shows them by their maui.cfg names.
        let json = serde_json::to_value(&c.config).unwrap();
        assert_eq!(
            json["credentials"]["user"]["steve"]["limits"]["MAXJOB"],
            serde_json::json!([2, 4])
        );
        assert_eq!(
            json["credentials"]["class"]["fast"]["per_cred"]["MAXPROC[USER:steve]"],
            3
        );
        assert_eq!(json["policy"]["system_limits"]["MAXJPROC"], 64);
    }

    /// The bad-input list: each is a located error.
    #[test]
    fn bad_limits_are_located_errors() {
        let cases = [
            (
                "USERCFG[a] MAXJOB=abc\n",
                "maui.cfg:1:12: USERCFG[a] MAXJOB: expected a limit `HARD` or `SOFT,HARD` (non-negative integers), found `abc`",
            ),
            (
                "USERCFG[a] MAXJOB=5,2,1\n",
                "maui.cfg:1:12: USERCFG[a] MAXJOB: expected a limit `HARD` or `SOFT,HARD` (non-negative integers), found `5,2,1`",
            ),
            (
                "USERCFG[a] MAXJOB=-1\n",
                "maui.cfg:1:12: USERCFG[a] MAXJOB: a limit cannot be negative, found `-1`",
            ),
            (
                "CLASSCFG[c] MAXJOB[PROJECT]=2\n",
                "maui.cfg:1:13: CLASSCFG[c] MAXJOB[PROJECT]: unknown credential type `PROJECT`: expected USER, GROUP, ACCOUNT, QOS or CLASS",
            ),
            (
                "USERCFG[a] OMAXJOB=2\n",
                "maui.cfg:1:12: USERCFG[a] OMAXJOB: override limits (OMAX…) belong to QOSCFG: they let a QOS's jobs pass other credentials' limits",
            ),
            (
                "USERCFG[a] MAXJPROC=2\n",
                "maui.cfg:1:12: USERCFG[a] MAXJPROC: per-job limits are SYSTEMMAXPROCPERJOB, SYSTEMMAXPROCSECONDPERJOB and SYSTEMMAXJOBWALLTIME, or QOSCFG OMAXJ…",
            ),
            (
                "SYSTEMCFG OMAXJOB=2\n",
                "maui.cfg:1:11: SYSTEMCFG OMAXJOB: SYSTEMCFG takes active (MAX…) and idle (MAXI…) limits; did you mean MAXJOB?",
            ),
            (
                "USERCFG[a] MAXWC=soon\n",
                "maui.cfg:1:12: USERCFG[a] MAXWC: expected a duration ([[[DD:]HH:]MM:]SS or INFINITY), found `soon`",
            ),
            (
                "SYSTEMMAXPROCPERJOB many\n",
                "maui.cfg:1:21: SYSTEMMAXPROCPERJOB: expected a limit `HARD` or `SOFT,HARD` (non-negative integers), found `many`",
            ),
            (
                "USERCFG[a] PRIORITY[USER]=2\n",
                "maui.cfg:1:12: USERCFG[a] PRIORITY[USER]: only limits (MAXJOB[USER]=…) take an index",
            ),
        ];
        for (text, want) in cases {
            let got = load(text).map(|_| ()).unwrap_err().to_string();
            assert_eq!(got, want, "for {text:?}");
        }
        // An empty system partition list is read as 3.3.1 reads it (no partition but
        // those the credentials' lists add), without a word.
        let c = load("SYSTEMCFG PLIST=\n").unwrap();
        assert!(c.warnings.is_empty());
        assert_eq!(c.config.policy.partitions.unwrap().system.bits, 0);
        // A credential attribute 3.3.1 does not know (a site's MAXNODES) is dropped, as
        // 3.3.1 drops it, with the nearest name it might mean.
        let c = load("USERCFG[a] MAXJOBS=2 PRIORTY=5\n").unwrap();
        assert_eq!(
            c.warnings,
            [
                "maui.cfg:1:12: warning: USERCFG[a]: unknown attribute MAXJOBS (did you mean MAXJOB?); ignored, as Maui 3.3.1 ignores it",
                "maui.cfg:1:22: warning: USERCFG[a]: unknown attribute PRIORTY (did you mean PRIORITY?); ignored, as Maui 3.3.1 ignores it",
            ]
        );
        assert_eq!(c.config.credentials.user["a"].settings.limits, Limits::NONE);
    }
}
