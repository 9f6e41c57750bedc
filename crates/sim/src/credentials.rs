//! Credentials by name: the `*CFG[name]` objects of maui.cfg, the names a trace uses, and
//! how each job gets its account and QOS (guide 3.x: ADEF/ALIST, QDEF/QLIST).
//!
//! Names become dense ids here, once; the core only ever sees ids and settings.

use mauisim_config::{ConfigError, Location};
use mauisim_core::{CredId, CredKind, CredSettings, CredTables, JobCreds};
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
}

/// Every configured credential object, by kind and name (`DEFAULT` included).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CredConfig {
    pub user: BTreeMap<String, CredObject>,
    pub group: BTreeMap<String, CredObject>,
    pub account: BTreeMap<String, CredObject>,
    pub qos: BTreeMap<String, CredObject>,
    pub class: BTreeMap<String, CredObject>,
}

impl CredConfig {
    pub fn objects(&self, kind: CredKind) -> &BTreeMap<String, CredObject> {
        match kind {
            CredKind::User => &self.user,
            CredKind::Group => &self.group,
            CredKind::Account => &self.account,
            CredKind::Qos => &self.qos,
            CredKind::Class => &self.class,
        }
    }

    pub fn object_mut(&mut self, kind: CredKind, name: &str) -> &mut CredObject {
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
    pub fn check(&self) -> Result<(), ConfigError> {
        for kind in CredKind::ALL {
            for (name, object) in self.objects(kind) {
                if let Some(qdef) = &object.qdef {
                    if qdef != DEFAULT && !self.qos.contains_key(qdef) {
                        let at = object
                            .qdef_location
                            .clone()
                            .unwrap_or_else(|| Location::new("<config>", 0, 0));
                        return Err(ConfigError::at(
                            at,
                            format!(
                                "{}[{name}] QDEF={qdef}: no QOS {qdef} is defined (add a QOSCFG[{qdef}] line)",
                                kind.cfg_name()
                            ),
                        ));
                    }
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
    numbers: HashMap<i64, u32>,
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

    pub fn intern_number(&mut self, kind: CredKind, n: i64) -> CredId {
        self.kinds[kind.index()].intern_number(n)
    }

    pub fn intern_partition(&mut self, n: i64) -> CredId {
        self.partitions.intern_number(n)
    }

    pub fn get(&self, kind: CredKind, name: &str) -> Option<CredId> {
        self.kinds[kind.index()].get(name)
    }

    /// The credential's name, `-` for none.
    pub fn name(&self, kind: CredKind, id: CredId) -> &str {
        self.kinds[kind.index()].name(id)
    }

    pub fn partition_name(&self, id: CredId) -> &str {
        self.partitions.name(id)
    }

    pub fn count(&self, kind: CredKind) -> usize {
        self.kinds[kind.index()].names.len()
    }
}

/// Where a trace job's requested account comes from (SWF has no account field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AccountFrom {
    /// No requested account: ADEF decides, else the job has none.
    #[default]
    None,
    User,
    Group,
    Class,
}

/// The config's credential objects as id-indexed tables, plus what account and QOS
/// selection needs.
#[derive(Debug, Clone, Default)]
pub struct Resolver {
    pub tables: CredTables,
    /// Per kind, per id: QDEF / ADEF as ids, QLIST / ALIST as id lists.
    qdef: [Vec<Option<CredId>>; 5],
    adef: [Vec<Option<CredId>>; 5],
    qlist: [Vec<Option<Vec<CredId>>>; 5],
    alist: [Vec<Option<Vec<CredId>>>; 5],
    /// The same for each kind's DEFAULT object.
    default_qdef: [Option<CredId>; 5],
    default_adef: [Option<CredId>; 5],
    default_qlist: [Option<Vec<CredId>>; 5],
    default_alist: [Option<Vec<CredId>>; 5],
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
            let k = kind.index();
            for (name, object) in config.objects(kind) {
                let qdef = object
                    .qdef
                    .as_deref()
                    .map(|q| names.intern(CredKind::Qos, q));
                let adef = object
                    .adef
                    .as_deref()
                    .map(|a| names.intern(CredKind::Account, a));
                let list = |names: &mut Names, kind, list: &Option<Vec<String>>| {
                    list.as_ref()
                        .map(|l| l.iter().map(|n| names.intern(kind, n)).collect::<Vec<_>>())
                };
                let qlist = list(names, CredKind::Qos, &object.qlist);
                let alist = list(names, CredKind::Account, &object.alist);
                let is_default = name == DEFAULT;
                if is_default {
                    r.tables.defaults[k] = object.settings.clone();
                    r.default_qdef[k] = qdef;
                    r.default_adef[k] = adef;
                    r.default_qlist[k] = qlist.clone();
                    r.default_alist[k] = alist.clone();
                    // Only the QOS named DEFAULT is also a credential jobs can have.
                    if kind != CredKind::Qos {
                        continue;
                    }
                }
                let id = names.intern(kind, name);
                *r.tables.own_mut(kind, id) = object.settings.clone();
                let i = id.0 as usize;
                for table in [&mut r.qdef[k], &mut r.adef[k]] {
                    if table.len() <= i {
                        table.resize(i + 1, None);
                    }
                }
                for table in [&mut r.qlist[k], &mut r.alist[k]] {
                    if table.len() <= i {
                        table.resize(i + 1, None);
                    }
                }
                r.qdef[k][i] = qdef;
                r.adef[k][i] = adef;
                r.qlist[k][i] = qlist;
                r.alist[k][i] = alist;
            }
        }
        r
    }

    fn own<T: Clone>(table: &[Option<T>], id: CredId) -> Option<T> {
        id.get().and_then(|i| table.get(i).cloned().flatten())
    }

    /// The credential's own value, else its kind's DEFAULT object's.
    fn lookup<T: Clone>(own: &[Option<T>], default: &Option<T>, id: CredId) -> Option<T> {
        Self::own(own, id).or_else(|| default.clone())
    }

    /// Gives the job its account and QOS: the requested one when the credentials' lists
    /// allow it, else the first default found on user, group (account, class for QOS).
    /// Returns what was denied, if anything.
    pub fn assign(
        &self,
        creds: &mut JobCreds,
        requested_account: CredId,
        requested_qos: CredId,
    ) -> Option<Denied> {
        let mut denied = None;
        let user = creds.get(CredKind::User);
        let group = creds.get(CredKind::Group);
        let class = creds.get(CredKind::Class);
        let holders = [(CredKind::User, user), (CredKind::Group, group)];
        let account = if requested_account != CredId::NONE
            && self.allowed(
                &self.alist,
                &self.default_alist,
                &holders,
                requested_account,
            ) {
            requested_account
        } else {
            if requested_account != CredId::NONE {
                denied = Some(Denied::Account);
            }
            holders
                .iter()
                .find_map(|&(kind, id)| {
                    let k = kind.index();
                    Self::lookup(&self.adef[k], &self.default_adef[k], id)
                })
                .unwrap_or(CredId::NONE)
        };
        creds.set(CredKind::Account, account);
        let holders = [
            (CredKind::User, user),
            (CredKind::Group, group),
            (CredKind::Account, account),
            (CredKind::Class, class),
        ];
        let qos = if requested_qos != CredId::NONE
            && self.allowed(&self.qlist, &self.default_qlist, &holders, requested_qos)
        {
            requested_qos
        } else {
            if requested_qos != CredId::NONE {
                denied = Some(Denied::Qos);
            }
            holders
                .iter()
                .find_map(|&(kind, id)| {
                    let k = kind.index();
                    Self::lookup(&self.qdef[k], &self.default_qdef[k], id)
                })
                .unwrap_or(self.default_qos)
        };
        creds.set(CredKind::Qos, qos);
        denied
    }

    /// Access lists (QLIST, ALIST) grant a name if any holder's list has it; when no
    /// holder has a list at all, everything is allowed.
    fn allowed(
        &self,
        own: &[Vec<Option<Vec<CredId>>>; 5],
        default: &[Option<Vec<CredId>>; 5],
        holders: &[(CredKind, CredId)],
        wanted: CredId,
    ) -> bool {
        let mut any_list = false;
        for &(kind, id) in holders {
            let k = kind.index();
            if let Some(list) = Self::lookup(&own[k], &default[k], id) {
                any_list = true;
                if list.contains(&wanted) {
                    return true;
                }
            }
        }
        !any_list
    }
}

/// Gives every job its requested account (per `account_from`), then its account and QOS
/// per the config. Denied requests are counted in `adjusted`.
pub fn assign_all(
    jobs: &mut [crate::workload::Job],
    names: &mut Names,
    resolver: &Resolver,
    account_from: AccountFrom,
    adjusted: &mut crate::workload::Counts,
) {
    let source = match account_from {
        AccountFrom::None => None,
        AccountFrom::User => Some(CredKind::User),
        AccountFrom::Group => Some(CredKind::Group),
        AccountFrom::Class => Some(CredKind::Class),
    };
    // The account named like each source credential, computed once per credential.
    let mut mapped: Vec<CredId> = Vec::new();
    if let Some(kind) = source {
        for i in 0..names.count(kind) {
            let name = names.name(kind, CredId(i as u32)).to_string();
            mapped.push(names.intern(CredKind::Account, &name));
        }
    }
    for job in jobs {
        if let Some(kind) = source {
            if let Some(i) = job.creds.get(kind).get() {
                job.requested_account = mapped[i];
            }
        }
        match resolver.assign(&mut job.creds, job.requested_account, job.requested_qos) {
            Some(Denied::Account) => *adjusted.entry("account_request_denied").or_default() += 1,
            Some(Denied::Qos) => *adjusted.entry("qos_request_denied").or_default() += 1,
            None => {}
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
