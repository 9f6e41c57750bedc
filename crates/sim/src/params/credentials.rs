//! Credentials by name: the `*CFG[name]` objects of maui.cfg, the names a trace uses, and
//! how each job gets its account and QOS (guide 3.x: ADEF/ALIST, QDEF/QLIST).
//!
//! Names become dense ids here, once; the core only ever sees ids and settings.

use mauisim_config::{ConfigError, Location};
use mauisim_core::{
    CredId, CredKind, CredSettings, CredTables, JobCreds, LimitPair, Metric, PerCredLimit,
};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// The name of the fallback object of every kind (`USERCFG[DEFAULT]`) and of the QOS a
/// job gets when nothing else names one.
pub const DEFAULT: &str = "DEFAULT";

/// One `*CFG[name]` object as configured, before names become ids.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CredObject {
    #[serde(flatten)]
    pub settings: CredSettings,
    /// QDEF: the QOS of jobs that request none (or one they may not use).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qdef: Option<String>,
    /// QLIST: the QOSs this credential's jobs may request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qlist: Option<Vec<String>>,
    /// ADEF: the account of jobs that request none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adef: Option<String>,
    /// ALIST: the accounts this credential's jobs may request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alist: Option<Vec<String>>,
    /// Where QDEF was set, to point at it if it names an undefined QOS.
    #[serde(skip)]
    pub qdef_location: Option<Location>,
    /// Where FSTARGET was set.
    #[serde(skip)]
    pub fs_target_location: Option<Location>,
    /// Where PRIORITY was last set.
    #[serde(skip)]
    pub priority_location: Option<Location>,
    /// Limits per credential inside this one, by the other credential's kind and (if
    /// given) name: `MAXJOB[USER]=2`, `MAXPROC[USER:steve]=3`, `MAXJOBPERUSER=2`.
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "serialize_per_cred"
    )]
    pub per_cred: Vec<NamedPerCred>,
}

/// A per-credential limit as the config names it (resolved to ids by [`Resolver`]).
pub type NamedPerCred = (Metric, CredKind, Option<String>, LimitPair);

fn serialize_per_cred<S: serde::Serializer>(
    list: &[NamedPerCred],
    s: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = s.serialize_map(Some(list.len()))?;
    for (metric, kind, who, pair) in list {
        let kind = kind.label().to_uppercase();
        let index = match who {
            Some(name) => format!("{kind}:{name}"),
            None => kind,
        };
        map.serialize_entry(&format!("MAX{}[{index}]", metric.suffix()), pair)?;
    }
    map.end()
}

/// Every configured credential object, by kind and name (`DEFAULT` included).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CredConfig {
    pub user: BTreeMap<String, CredObject>,
    pub group: BTreeMap<String, CredObject>,
    pub account: BTreeMap<String, CredObject>,
    pub qos: BTreeMap<String, CredObject>,
    pub class: BTreeMap<String, CredObject>,
    /// SYSCFG's QDEF and QLIST: the QOS every job may have, and the one it gets when
    /// no credential of its own gives one (MQOS.c `MQOSGetAccess`, after the class's).
    #[serde(skip_serializing_if = "CredObject::is_empty")]
    pub system: CredObject,
}

impl CredObject {
    fn is_empty(&self) -> bool {
        self == &CredObject::default()
    }
}

impl CredConfig {
    pub(crate) fn objects(&self, kind: CredKind) -> &BTreeMap<String, CredObject> {
        match kind {
            CredKind::User => &self.user,
            CredKind::Group => &self.group,
            CredKind::Account => &self.account,
            CredKind::Qos => &self.qos,
            CredKind::Class => &self.class,
        }
    }

    pub(crate) fn object_mut(&mut self, kind: CredKind, name: &str) -> &mut CredObject {
        let map = match kind {
            CredKind::User => &mut self.user,
            CredKind::Group => &mut self.group,
            CredKind::Account => &mut self.account,
            CredKind::Qos => &mut self.qos,
            CredKind::Class => &mut self.class,
        };
        map.entry(name.to_string()).or_default()
    }

    /// A QDEF must name a QOS the config defines (`QOSCFG[name]`); DEFAULT always exists.
    pub(crate) fn check(&self) -> Result<(), ConfigError> {
        let objects = CredKind::ALL.into_iter().flat_map(|kind| {
            let objects = self.objects(kind).iter();
            objects.map(move |(name, o)| (format!("{}[{name}]", kind.cfg_name()), o))
        });
        let system = std::iter::once(("SYSCFG".to_string(), &self.system));
        for (owner, object) in objects.chain(system) {
            if let Some(qdef) = &object.qdef {
                if qdef != DEFAULT && !self.qos.contains_key(qdef) {
                    let at = object
                        .qdef_location
                        .clone()
                        .unwrap_or_else(|| Location::new("<config>", 0, 0));
                    return Err(ConfigError::at(
                        at,
                        format!("{owner} QDEF={qdef}: no QOS {qdef} is defined (add a QOSCFG[{qdef}] line)"),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Names to dense ids, one table per credential kind plus partitions.
#[derive(Debug, Clone, Default)]
pub struct Names {
    kinds: [Interner; 5],
    partitions: Interner,
}

#[derive(Debug, Clone, Default)]
struct Interner {
    names: Vec<String>,
    index: HashMap<String, u32>,
    /// Trace credentials are numbers: skip formatting them again for every job.
    numbers: HashMap<i64, u32, foldhash::fast::FixedState>,
}

impl Interner {
    fn intern(&mut self, name: &str) -> CredId {
        if let Some(&i) = self.index.get(name) {
            return CredId(i);
        }
        let i = self.names.len() as u32;
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), i);
        CredId(i)
    }

    /// SWF's −1 (and any negative number) means "not recorded": no credential.
    fn intern_number(&mut self, n: i64) -> CredId {
        if n < 0 {
            return CredId::NONE;
        }
        if let Some(&i) = self.numbers.get(&n) {
            return CredId(i);
        }
        let id = self.intern(&n.to_string());
        self.numbers.insert(n, id.0);
        id
    }

    fn name(&self, id: CredId) -> &str {
        id.get().map_or("-", |i| &self.names[i])
    }

    fn get(&self, name: &str) -> Option<CredId> {
        self.index.get(name).map(|&i| CredId(i))
    }
}

impl Names {
    pub fn intern(&mut self, kind: CredKind, name: &str) -> CredId {
        self.kinds[kind.index()].intern(name)
    }

    pub(crate) fn intern_number(&mut self, kind: CredKind, n: i64) -> CredId {
        self.kinds[kind.index()].intern_number(n)
    }

    pub(crate) fn intern_partition(&mut self, n: i64) -> CredId {
        self.partitions.intern_number(n)
    }

    pub fn get(&self, kind: CredKind, name: &str) -> Option<CredId> {
        self.kinds[kind.index()].get(name)
    }

    /// The credential's name, `-` for none.
    pub fn name(&self, kind: CredKind, id: CredId) -> &str {
        self.kinds[kind.index()].name(id)
    }

    /// A node partition's number as nodes carry it (1 for the first named), if known.
    pub(crate) fn partition_number(&self, name: &str) -> Option<u32> {
        self.partitions
            .get(name)
            .and_then(|id| id.get())
            .map(|i| i as u32 + 1)
    }

    pub(crate) fn intern_partition_name(&mut self, name: &str) -> CredId {
        self.partitions.intern(name)
    }

    pub(crate) fn count(&self, kind: CredKind) -> usize {
        self.kinds[kind.index()].names.len()
    }
}

/// How one credential (account or QOS) is chosen: each holder credential's default
/// (ADEF / QDEF) and access list (ALIST / QLIST), by kind and id, with each kind's DEFAULT
/// object's values apart.
#[derive(Debug, Clone, Default)]
struct Selection {
    default: [Vec<Option<CredId>>; 5],
    list: [Vec<Option<Vec<CredId>>>; 5],
    default_of_kind: [Option<CredId>; 5],
    list_of_kind: [Option<Vec<CredId>>; 5],
    /// SYSCFG's: the default after every holder's, and a list every job has.
    system_default: Option<CredId>,
    system_list: Option<Vec<CredId>>,
}

impl Selection {
    fn set(
        &mut self,
        kind: CredKind,
        id: Option<CredId>,
        default: Option<CredId>,
        list: Option<Vec<CredId>>,
    ) {
        let k = kind.index();
        match id.and_then(CredId::get) {
            None => {
                self.default_of_kind[k] = default;
                self.list_of_kind[k] = list;
            }
            Some(i) => {
                if self.default[k].len() <= i {
                    self.default[k].resize(i + 1, None);
                    self.list[k].resize(i + 1, None);
                }
                self.default[k][i] = default;
                self.list[k][i] = list;
            }
        }
    }

    /// The holder's own value, else its kind's DEFAULT object's.
    fn lookup<'a, T>(own: &'a [Option<T>], of_kind: &'a Option<T>, id: CredId) -> Option<&'a T> {
        id.get()
            .and_then(|i| own.get(i).and_then(Option::as_ref))
            .or(of_kind.as_ref())
    }

    /// Access lists grant a name if any holder's list has it; when no holder has a list
    /// at all, everything is allowed.
    fn allowed(&self, holders: &[(CredKind, CredId)], wanted: CredId) -> bool {
        let mut any_list = false;
        if let Some(list) = &self.system_list {
            any_list = true;
            if list.contains(&wanted) {
                return true;
            }
        }
        for &(kind, id) in holders {
            let k = kind.index();
            if let Some(list) = Self::lookup(&self.list[k], &self.list_of_kind[k], id) {
                any_list = true;
                if list.contains(&wanted) {
                    return true;
                }
            }
        }
        !any_list
    }

    /// The requested credential when the lists allow it, else the first holder's default,
    /// else `fallback`; and whether a request was denied.
    fn choose(
        &self,
        holders: &[(CredKind, CredId)],
        requested: CredId,
        fallback: CredId,
    ) -> (CredId, bool) {
        if requested != CredId::NONE && self.allowed(holders, requested) {
            return (requested, false);
        }
        let default = holders
            .iter()
            .find_map(|&(kind, id)| {
                let k = kind.index();
                Self::lookup(&self.default[k], &self.default_of_kind[k], id).copied()
            })
            .or(self.system_default)
            .unwrap_or(fallback);
        (default, requested != CredId::NONE)
    }
}

/// The config's credential objects as id-indexed tables, plus what account and QOS
/// selection needs.
#[derive(Debug, Clone, Default)]
pub struct Resolver {
    pub tables: CredTables,
    account: Selection,
    qos: Selection,
    default_qos: CredId,
}

/// Why a job did not get what it asked for, for the run's counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Denied {
    Account,
    Qos,
}

impl Resolver {
    /// Registers every configured name and builds the tables. Call before jobs are
    /// assigned, with the same `names`.
    pub fn new(config: &CredConfig, names: &mut Names) -> Resolver {
        let mut r = Resolver {
            default_qos: names.intern(CredKind::Qos, DEFAULT),
            ..Resolver::default()
        };
        for kind in CredKind::ALL {
            for (name, object) in config.objects(kind) {
                let one = |names: &mut Names, target, name: &Option<String>| {
                    name.as_deref().map(|n| names.intern(target, n))
                };
                let list = |names: &mut Names, target, list: &Option<Vec<String>>| {
                    list.as_ref().map(|l| {
                        l.iter()
                            .map(|n| names.intern(target, n))
                            .collect::<Vec<_>>()
                    })
                };
                let qdef = one(names, CredKind::Qos, &object.qdef);
                let qlist = list(names, CredKind::Qos, &object.qlist);
                let adef = one(names, CredKind::Account, &object.adef);
                let alist = list(names, CredKind::Account, &object.alist);
                let mut settings = object.settings.clone();
                settings.limits.per_cred.extend(object.per_cred.iter().map(
                    |(metric, other, who, limit)| PerCredLimit {
                        metric: *metric,
                        kind: *other,
                        id: who.as_deref().map(|n| names.intern(*other, n)),
                        limit: *limit,
                    },
                ));
                if name == DEFAULT {
                    r.tables.defaults[kind.index()] = settings.clone();
                    r.account.set(kind, None, adef, alist.clone());
                    r.qos.set(kind, None, qdef, qlist.clone());
                    // Only the QOS named DEFAULT is also a credential jobs can have.
                    if kind != CredKind::Qos {
                        continue;
                    }
                }
                let id = names.intern(kind, name);
                *r.tables.own_mut(kind, id) = settings;
                r.account.set(kind, Some(id), adef, alist);
                r.qos.set(kind, Some(id), qdef, qlist);
            }
        }
        let system = &config.system;
        r.qos.system_default = system
            .qdef
            .as_deref()
            .map(|n| names.intern(CredKind::Qos, n));
        r.qos.system_list = system
            .qlist
            .as_ref()
            .map(|l| l.iter().map(|n| names.intern(CredKind::Qos, n)).collect());
        r
    }

    /// Gives the job its account and QOS: the requested one when the credentials' lists
    /// allow it, else the first default found on user, group (account, class for QOS).
    /// Returns what was denied, if anything.
    pub(crate) fn assign(
        &self,
        creds: &mut JobCreds,
        requested_account: CredId,
        requested_qos: CredId,
    ) -> Option<Denied> {
        let user = (CredKind::User, creds.get(CredKind::User));
        let group = (CredKind::Group, creds.get(CredKind::Group));
        let (account, account_denied) =
            self.account
                .choose(&[user, group], requested_account, CredId::NONE);
        creds.set(CredKind::Account, account);
        let holders = [
            user,
            group,
            (CredKind::Account, account),
            (CredKind::Class, creds.get(CredKind::Class)),
        ];
        let (qos, qos_denied) = self.qos.choose(&holders, requested_qos, self.default_qos);
        creds.set(CredKind::Qos, qos);
        // One reason per job: when both requests are denied, the QOS is the one counted.
        if qos_denied {
            Some(Denied::Qos)
        } else if account_denied {
            Some(Denied::Account)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(f: impl FnOnce(&mut CredObject)) -> CredObject {
        let mut o = CredObject::default();
        f(&mut o);
        o
    }

    fn job(names: &mut Names, user: &str, group: &str) -> JobCreds {
        let mut c = JobCreds::default();
        c.set(CredKind::User, names.intern(CredKind::User, user));
        c.set(CredKind::Group, names.intern(CredKind::Group, group));
        c
    }

    #[test]
    fn qos_and_account_defaults_follow_user_then_group_then_default() {
        let mut config = CredConfig::default();
        config.qos.insert("high".into(), CredObject::default());
        config.qos.insert("low".into(), CredObject::default());
        config.user.insert(
            "steve".into(),
            object(|o| {
                o.qdef = Some("high".into());
                o.adef = Some("physics".into());
            }),
        );
        config
            .group
            .insert(DEFAULT.into(), object(|o| o.qdef = Some("low".into())));
        let mut names = Names::default();
        let r = Resolver::new(&config, &mut names);
        let mut steve = job(&mut names, "steve", "staff");
        assert_eq!(r.assign(&mut steve, CredId::NONE, CredId::NONE), None);
        assert_eq!(names.name(CredKind::Qos, steve.get(CredKind::Qos)), "high");
        assert_eq!(
            names.name(CredKind::Account, steve.get(CredKind::Account)),
            "physics"
        );
        let mut ann = job(&mut names, "ann", "staff");
        r.assign(&mut ann, CredId::NONE, CredId::NONE);
        assert_eq!(names.name(CredKind::Qos, ann.get(CredKind::Qos)), "low");
        assert_eq!(ann.get(CredKind::Account), CredId::NONE);
        // Nothing configured at all: the DEFAULT QOS.
        let mut names = Names::default();
        let r = Resolver::new(&CredConfig::default(), &mut names);
        let mut bob = job(&mut names, "bob", "g");
        r.assign(&mut bob, CredId::NONE, CredId::NONE);
        assert_eq!(names.name(CredKind::Qos, bob.get(CredKind::Qos)), DEFAULT);
    }

    #[test]
    fn access_lists_grant_or_deny_requests() {
        let mut config = CredConfig::default();
        for q in ["high", "low"] {
            config.qos.insert(q.into(), CredObject::default());
        }
        config.user.insert(
            "steve".into(),
            object(|o| {
                o.qlist = Some(vec!["low".into()]);
                o.qdef = Some("low".into());
                o.alist = Some(vec!["chem".into()]);
            }),
        );
        let mut names = Names::default();
        let r = Resolver::new(&config, &mut names);
        let high = names.intern(CredKind::Qos, "high");
        let chem = names.intern(CredKind::Account, "chem");
        let bio = names.intern(CredKind::Account, "bio");
        let mut steve = job(&mut names, "steve", "staff");
        assert_eq!(r.assign(&mut steve, chem, high), Some(Denied::Qos));
        assert_eq!(names.name(CredKind::Qos, steve.get(CredKind::Qos)), "low");
        assert_eq!(steve.get(CredKind::Account), chem);
        assert_eq!(
            r.assign(&mut steve, bio, CredId::NONE),
            Some(Denied::Account)
        );
        assert_eq!(steve.get(CredKind::Account), CredId::NONE);
        // A user without lists may ask for anything.
        let mut ann = job(&mut names, "ann", "staff");
        assert_eq!(r.assign(&mut ann, bio, high), None);
        assert_eq!(
            (ann.get(CredKind::Account), ann.get(CredKind::Qos)),
            (bio, high)
        );
    }

    /// SYSCFG's QDEF comes after every credential's (MQOS.c: user, group, account,
    /// class, then the system's), and its QLIST grants what no credential's list does.
    #[test]
    fn the_system_qos_default_and_list_come_last() {
        let config = crate::params::from_str(
            "QOSCFG[high] PRIORITY=1\nQOSCFG[low] PRIORITY=1\nQOSCFG[mid] PRIORITY=1\n\
             SYSCFG QDEF=low QLIST=high\nUSERCFG[steve] QDEF=mid QLIST=mid\n",
            "maui.cfg",
        )
        .unwrap()
        .config
        .credentials;
        let mut names = Names::default();
        let r = Resolver::new(&config, &mut names);
        let high = names.intern(CredKind::Qos, "high");
        let low = names.intern(CredKind::Qos, "low");
        let mut ann = job(&mut names, "ann", "staff");
        assert_eq!(r.assign(&mut ann, CredId::NONE, CredId::NONE), None);
        assert_eq!(ann.get(CredKind::Qos), low);
        assert_eq!(r.assign(&mut ann, CredId::NONE, high), None);
        assert_eq!(ann.get(CredKind::Qos), high);
        let mut steve = job(&mut names, "steve", "staff");
        assert_eq!(r.assign(&mut steve, CredId::NONE, high), None);
        assert_eq!(r.assign(&mut steve, CredId::NONE, low), Some(Denied::Qos));
        assert_eq!(names.name(CredKind::Qos, steve.get(CredKind::Qos)), "mid");
        let e = crate::params::from_str("SYSCFG QDEF=gold\n", "maui.cfg")
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "maui.cfg:1:8: SYSCFG QDEF=gold: no QOS gold is defined (add a QOSCFG[gold] line)"
        );
    }

    #[test]
    fn a_qdef_naming_an_undefined_qos_is_an_error() {
        let mut config = CredConfig::default();
        config.user.insert(
            "steve".into(),
            object(|o| {
                o.qdef = Some("gold".into());
                o.qdef_location = Some(Location::new("maui.cfg", 3, 16));
            }),
        );
        let e = config.check().unwrap_err().to_string();
        assert_eq!(
            e,
            "maui.cfg:3:16: USERCFG[steve] QDEF=gold: no QOS gold is defined (add a QOSCFG[gold] line)"
        );
    }
}
