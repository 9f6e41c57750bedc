//! The parameters of Maui 3.3.1's parameter table (MConst.c `MCfg`, 359 names, and the `*CFG` objects) that
//! mauisim does not simulate, each with what a simulation does with it: accepted when it
//! has no effect on which job starts when and where (logging, servers, resource and
//! accounting managers, files, Maui's own simulation settings that command-line options
//! replace), refused when it changes the schedule, so that no site config is quietly
//! simulated as something else. The names mauisim simulates are in the parameter table of
//! the parent module; a test checks that the two together hold every name of 3.3.1's.

/// What a simulation does with a parameter it does not simulate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// No effect on the schedule: accepted, named once in a summary line.
    NoEffect,
    /// Changes the schedule: refused, with what it does.
    Schedules,
}

/// One parameter and what it controls, in a few words.
#[derive(Debug)]
pub(super) struct Unsimulated {
    pub name: &'static str,
    pub kind: Kind,
    pub what: &'static str,
}

/// The parameter `name` (uppercase) if 3.3.1 has it and mauisim does not simulate it.
pub(super) fn lookup(name: &str) -> Option<&'static Unsimulated> {
    UNSIMULATED
        .binary_search_by(|p| p.name.cmp(name))
        .ok()
        .map(|i| &UNSIMULATED[i])
}

const fn no_effect(name: &'static str, what: &'static str) -> Unsimulated {
    Unsimulated {
        name,
        kind: Kind::NoEffect,
        what,
    }
}

const fn schedules(name: &'static str, what: &'static str) -> Unsimulated {
    Unsimulated {
        name,
        kind: Kind::Schedules,
        what,
    }
}

/// In name order (for the binary search).
pub(super) const UNSIMULATED: &[Unsimulated] = &[
    no_effect("ADMIN1", "security: admin level 1 users"),
    no_effect("ADMIN2", "security: admin level 2 users"),
    no_effect("ADMIN3", "security: admin level 3 users"),
    no_effect("ADMIN4", "security: admin level 4 users"),
    no_effect(
        "ADMINHOST",
        "ignored by 3.3.1 (Maui 3.2's name of ADMINHOSTS: hosts allowed admin commands)",
    ),
    no_effect("ADMINHOSTS", "security: hosts allowed admin commands"),
    no_effect("ADMINS", "security: admin users"),
    schedules(
        "ALLOCLOCALITYPOLICY",
        "node allocation locality (RMSPECIFIC asks RM for proximate nodes)",
    ),
    no_effect("AMCFG", "accounting manager connection"),
    no_effect(
        "APIFAILURETHRESHHOLD",
        "resource manager connection: API failure count before reset",
    ),
    no_effect(
        "ATTRATTRCAP",
        "ignored by 3.3.1: ATTR subcomponent cap never parsed, factor NYI",
    ),
    no_effect(
        "ATTRATTRWEIGHT",
        "ignored by 3.3.1: ATTR subcomponent weight never parsed, factor NYI",
    ),
    no_effect(
        "ATTRSTATECAP",
        "ignored by 3.3.1: ATTR subcomponent cap never parsed, factor NYI",
    ),
    no_effect(
        "ATTRSTATEWEIGHT",
        "ignored by 3.3.1: ATTR subcomponent weight never parsed, factor NYI",
    ),
    no_effect(
        "BACKFILLPROCFACTOR",
        "ignored by 3.3.1: stored, never read (meant: favour large backfill jobs)",
    ),
    no_effect("BANKAPPENDMACHINENAME", "accounting manager connection"),
    no_effect("BANKCHARGEPOLICY", "accounting manager: charging policy"),
    no_effect(
        "BANKDEFERONJOBFAILURE",
        "accounting manager: defer jobs when bank fails",
    ),
    no_effect(
        "BANKFALLBACKACCOUNT",
        "accounting manager: account used when allocation exhausted",
    ),
    no_effect("BANKFLUSHINTERVAL", "accounting manager connection"),
    no_effect("BANKHOST", "accounting manager connection"),
    no_effect("BANKPORT", "accounting manager connection"),
    no_effect("BANKPROTOCOL", "accounting manager connection"),
    no_effect(
        "BANKSERVER",
        "old name of BANKHOST: accounting manager connection",
    ),
    no_effect("BANKTIMEOUT", "accounting manager connection"),
    no_effect("BANKTYPE", "accounting manager connection"),
    no_effect(
        "BFPRIORITYPOLICY",
        "orders backfill candidates only under BACKFILLPOLICY PREEMPT (MBF.c `MBFPreempt`)",
    ),
    no_effect(
        "CHECKPOINTEXPIRATIONTIME",
        "Maui state checkpoint: data expiry",
    ),
    no_effect("CHECKPOINTFILE", "Maui state checkpoint: file path"),
    no_effect("CHECKPOINTINTERVAL", "Maui state checkpoint: interval"),
    no_effect("CLIENTCFG", "security: client keys/config"),
    no_effect("CLIENTTIMEOUT", "client commands: timeout"),
    no_effect(
        "COMINTERFRAMECOST",
        "Maui simulation statistics: communication cost between frames",
    ),
    no_effect(
        "COMINTRAFRAMECOST",
        "Maui simulation statistics: communication cost within frame",
    ),
    no_effect("COMPUTEHOSTS", "server/hosts: list shown only"),
    no_effect(
        "DEFAULTACCOUNT",
        "ignored by 3.3.1: never parsed (meant: default AM account)",
    ),
    // Read only by the PBS interface (MPBSI.c), for a node whose server reports no queue;
    // a simulation's nodes come from the trace (3.3.1's MSim.c never reads it).
    no_effect(
        "DEFAULTCLASSLIST",
        "resource manager: classes a PBS node accepts when its server reports none",
    ),
    no_effect("DEFAULTDOMAIN", "server/hosts: default DNS domain"),
    no_effect(
        "DEFAULTQMHOST",
        "ignored by 3.3.1: queue manager host, never parsed",
    ),
    no_effect(
        "DEFERSTARTCOUNT",
        "start failures before a job is deferred: a simulated start never fails",
    ),
    no_effect("DIRECTORYSERVER", "server connection: directory service"),
    no_effect("DISPLAYFLAGS", "client display options"),
    schedules(
        "ENABLEMULTINODEJOBS",
        "whether jobs may span multiple nodes",
    ),
    no_effect(
        "ENABLEMULTIREQJOBS",
        "whether jobs of several requirements are accepted: no trace job has several",
    ),
    no_effect("EVENTSERVER", "server connection: event service"),
    no_effect(
        "FEATURENODETYPEHEADER",
        "node type from feature name; used only for accounting charges",
    ),
    no_effect("FEEDBACKPROGRAM", "notification: job feedback script"),
    no_effect("FSCONFIGFILE", "ignored by 3.3.1: file path, never parsed"),
    no_effect(
        "FSENFORCEMENT",
        "ignored by 3.3.1: never parsed (fairshare enforcement)",
    ),
    no_effect(
        "FSSECONDARYGROUPS",
        "PBS RM interface: secondary group lookup for fairshare",
    ),
    no_effect(
        "IGNPBSGROUPLIST",
        "PBS RM interface: ignore -W group_list when mapping group",
    ),
    no_effect(
        "JOBAGGREGATIONTIME",
        "wall-clock wait for client requests after a real RM's submissions; a simulation iterates every RMPOLLINTERVAL",
    ),
    no_effect(
        "JOBMAXSTARTTIME",
        "RM: cancel PBS jobs stuck starting (prolog hang)",
    ),
    no_effect(
        "JOBPRIOF",
        "ignored by 3.3.1: job attribute priority function, never parsed",
    ),
    no_effect("JOBPURGETIME", "RM: how long vanished job records are kept"),
    no_effect(
        "JOBSIZEPOLICY",
        "ignored by 3.3.1: stored, never read (job size policy)",
    ),
    no_effect(
        "JOBSYNCTIME",
        "ignored by 3.3.1: RM job sync deadline, never read",
    ),
    no_effect("LOCKFILE", "file path: scheduler lock file"),
    no_effect("LOGDIR", "logging"),
    no_effect("LOGFACILITY", "logging"),
    no_effect("LOGFILE", "logging"),
    no_effect("LOGFILEMAXSIZE", "logging"),
    no_effect("LOGFILEROLLDEPTH", "logging"),
    no_effect("LOGLEVEL", "logging"),
    no_effect(
        "MACHINECONFIGFILE",
        "ignored by 3.3.1: file path, never parsed",
    ),
    no_effect("MAILPROGRAM", "notification: mail program"),
    no_effect(
        "MAXJOBPERITERATION",
        "ignored by 3.3.1: stored, never read (jobs started per iteration)",
    ),
    no_effect(
        "MAXPEPERUSERCOUNT",
        "ignored by 3.3.1: never parsed (old per-user MAXPE limit)",
    ),
    no_effect(
        "MAXPEPERUSERPOLICY",
        "ignored by 3.3.1: never parsed (old per-user MAXPE policy)",
    ),
    schedules(
        "MAXSLEEPITERATION",
        "force full scheduling pass every N iterations (non-sim)",
    ),
    no_effect("MCSOCKETPROTOCOL", "server connection: socket protocol"),
    schedules(
        "METAMAXTASKS",
        "max tasks per meta-job/reservation allocation",
    ),
    no_effect(
        "MINADMINSTIME",
        "minimum suspend time after a RESOURCELIMITPOLICY suspension, which no simulated job meets",
    ),
    no_effect(
        "MINDISPATCHTIME",
        "ignored by 3.3.1: stored, never read (min time between dispatches)",
    ),
    schedules(
        "NODEALLOCMAXPS",
        "charge jobs whole allocated nodes' procs in PS limits",
    ),
    schedules(
        "NODECPUOVERCOMMITFACTOR",
        "scales node processor count (applied in PBS interface)",
    ),
    no_effect(
        "NODEDOWNSTATEDELAYTIME",
        "ignored by 3.3.1: never parsed; built-in default used",
    ),
    schedules(
        "NODELOADPOLICY",
        "ADJUSTPROCS: node load reduces available processors",
    ),
    schedules(
        "NODEMEMOVERCOMMITFACTOR",
        "scales node memory/swap (applied in PBS interface)",
    ),
    no_effect(
        "NODEPOLLFREQUENCY",
        "resource manager: PBS node polling interval",
    ),
    no_effect(
        "NODEPURGETIME",
        "resource manager: remove nodes not reported",
    ),
    no_effect(
        "NODESYNCTIME",
        "resource manager: node expected-state sync deadline",
    ),
    no_effect(
        "NODEUNTRACKEDLOADFACTOR",
        "resource manager: a node's load beyond its jobs' processors, scaled, kept from jobs \
         (MNode.c reads it only for a PBS node's reported load; a simulated node's load is its \
         jobs')",
    ),
    no_effect(
        "NOTIFICATIONINTERVAL",
        "notification: admin notification interval",
    ),
    no_effect(
        "NOTIFICATIONPROGRAM",
        "notification: admin notification program",
    ),
    no_effect(
        "PARCFG",
        "ignored by 3.3.1: its objects are never loaded (MSys.c `MSysLoadConfig` loads SYS, QOS, USER, GROUP, ACCOUNT and CLASS lines only)",
    ),
    no_effect(
        "PARIGNQUEUELIST",
        "ignored by 3.3.1: stored, never read (queues ignoring partitions)",
    ),
    no_effect(
        "PARTITIONMODE",
        "ignored by 3.3.1: not in its parameter table (the partition mode is compiled in, DEFAULT_PARTITIONMODE)",
    ),
    no_effect("PLOTMAXPROC", "statistics display matrix bounds"),
    no_effect("PLOTMAXTIME", "statistics display matrix bounds"),
    no_effect("PLOTMINPROC", "statistics display matrix bounds"),
    no_effect("PLOTMINTIME", "statistics display matrix bounds"),
    no_effect("PLOTPROCSCALE", "statistics display matrix scale"),
    no_effect("PLOTTIMESCALE", "statistics display matrix scale"),
    no_effect("QOSNAME", "ignored by 3.3.1 (no longer supported)"),
    no_effect(
        "QUEUECFG",
        "ignored by 3.3.1: its objects are never loaded (MSys.c `MSysLoadConfig` loads SYS, QOS, USER, GROUP, ACCOUNT and CLASS lines only)",
    ),
    no_effect(
        "QUEUETIMETARGETWEIGHT",
        "ignored by 3.3.1 (old name, not translated)",
    ),
    no_effect(
        "REMOTESTARTCOMMAND",
        "ignored by 3.3.1: never parsed (remote start command)",
    ),
    no_effect(
        "RESCTLPOLICY",
        "security: who may create reservations via client",
    ),
    no_effect(
        "RESDEPTH",
        "cap on reservations per node (default 24); mauisim has no such cap",
    ),
    no_effect(
        "RESERVATIONRETRYTIME",
        "RM race: retry reserved start while LL/PBS node state lags",
    ),
    no_effect(
        "RESLIMITPOLICY",
        "security: limit policy for user-created reservations",
    ),
    no_effect(
        "RESOURCECOLLECTIONPOLICY",
        "ignored by 3.3.1: resource daemon setting, never parsed",
    ),
    no_effect(
        "RESOURCEDAEMON",
        "ignored by 3.3.1: resource daemon setting, never parsed",
    ),
    no_effect(
        "RESOURCEDATAFILE",
        "ignored by 3.3.1: resource daemon file, never parsed",
    ),
    no_effect(
        "RESOURCELOCKFILE",
        "ignored by 3.3.1: resource daemon file, never parsed",
    ),
    no_effect(
        "RESOURCEPORT",
        "ignored by 3.3.1: resource daemon port, never parsed",
    ),
    no_effect(
        "RESOURCEREPORTWAIT",
        "ignored by 3.3.1: resource daemon setting, never parsed",
    ),
    no_effect(
        "RESOURCESAMPLEINTERVAL",
        "ignored by 3.3.1: resource daemon setting, never parsed",
    ),
    no_effect("RMAUTHTYPE", "resource manager connection"),
    no_effect("RMCFG", "resource manager connection"),
    no_effect("RMCONFIGFILE", "resource manager connection"),
    no_effect("RMEPORT", "resource manager connection"),
    no_effect("RMHOST", "resource manager connection"),
    no_effect(
        "RMLOCALDISKFS",
        "resource manager: filesystem reported as node disk",
    ),
    no_effect("RMNAME", "resource manager connection"),
    no_effect("RMNMPORT", "resource manager connection"),
    no_effect("RMPORT", "resource manager connection"),
    no_effect(
        "RMSERVER",
        "old name of RMHOST: resource manager connection",
    ),
    no_effect("RMTIMEOUT", "resource manager connection"),
    no_effect("RMTYPE", "resource manager connection"),
    no_effect("SCHEDCFG", "scheduler server settings"),
    no_effect(
        "SERVERCONFIGFILE",
        "file path: config file (environment only)",
    ),
    no_effect("SERVERHOMEDIR", "directory path: Maui home"),
    no_effect("SERVERHOST", "server connection"),
    no_effect(
        "SERVERMODE",
        "Maui run mode (NORMAL/TEST/SIMULATION); mauisim always simulates",
    ),
    no_effect("SERVERNAME", "server connection"),
    no_effect("SERVERPORT", "server connection"),
    no_effect(
        "SIMAUTOSHUTDOWN",
        "Maui simulation mode setting: exit when queue empties",
    ),
    no_effect(
        "SIMCHECKPOINTINTERVAL",
        "ignored by 3.3.1: Maui simulation setting, never parsed",
    ),
    no_effect(
        "SIMCOMRATE",
        "Maui simulation statistics: communication cost rate",
    ),
    no_effect(
        "SIMCOMTYPE",
        "Maui simulation statistics: communication model (value discarded)",
    ),
    schedules(
        "SIMDEFAULTJOBFLAGS",
        "Maui simulation: flags added to every trace job",
    ),
    no_effect(
        "SIMEXITITERATION",
        "Maui simulation: exit at iteration; mauisim --window/--first",
    ),
    schedules(
        "SIMFLAGS",
        "Maui simulation: trace fields to ignore (class, hostlist, mode…)",
    ),
    schedules(
        "SIMIGNOREJOBFLAGS",
        "Maui simulation: trace job flags to drop",
    ),
    schedules(
        "SIMNODECONFIGURATION",
        "Maui simulation: node config (PARTITIONED splits by memory)",
    ),
    no_effect(
        "SIMNODECOUNT",
        "Maui simulation: node count; mauisim --nodes/--node-file",
    ),
    schedules(
        "SIMRANDOMIZEJOBSIZE",
        "Maui simulation: randomize job task counts",
    ),
    no_effect(
        "SIMRESOURCETRACEFILE",
        "Maui simulation: resource trace; mauisim --node-file",
    ),
    no_effect(
        "SIMSCALEJOBRUNTIME",
        "Maui simulation: runtime scaled by speed; mauisim --scale-by-speed",
    ),
    no_effect(
        "SIMSTARTTIME",
        "Maui simulation clock start; mauisim uses trace times (--shift)",
    ),
    no_effect(
        "SIMSTOPITERATION",
        "Maui simulation mode setting: pause at iteration",
    ),
    no_effect(
        "SIMTIMEPOLICY",
        "Maui simulation clock mode (REAL); mauisim's event clock replaces it",
    ),
    no_effect(
        "SIMWORKLOADTRACEFILE",
        "Maui simulation: workload trace; mauisim TRACE argument",
    ),
    no_effect(
        "SMAXPEPERUSERCOUNT",
        "ignored by 3.3.1: never parsed (old soft per-user MAXPE)",
    ),
    no_effect(
        "SRCHARGEACCOUNT",
        "accounting: account charged for idle standing-reservation time",
    ),
    no_effect(
        "SRIDLETIME",
        "ignored by 3.3.1: stored, never read (SR idle release time)",
    ),
    no_effect(
        "SRMAXTASKS",
        "ignored by 3.3.1: never parsed (SR max tasks)",
    ),
    no_effect("SRMINLOAD", "ignored by 3.3.1: never parsed (SR min load)"),
    no_effect(
        "SRMINTASKS",
        "ignored by 3.3.1: never parsed (SR min tasks)",
    ),
    no_effect("SRNAME", "ignored by 3.3.1 (no longer supported)"),
    no_effect(
        "SRTIMELOGIC",
        "ignored by 3.3.1: never parsed (SR ACL time logic)",
    ),
    no_effect("STATDIR", "directory path: statistics"),
    no_effect(
        "STEPCOUNT",
        "Maui run control: iterations in SINGLESTEP mode",
    ),
    schedules(
        "TASKDISTRIBUTIONPOLICY",
        "how tasks are spread over allocated nodes",
    ),
    no_effect("TOOLSDIR", "directory path: tools"),
    no_effect("TRAPFUNCTION", "debugging trap"),
    no_effect("TRAPJOB", "debugging trap"),
    no_effect("TRAPNODE", "debugging trap"),
    no_effect("TRAPRES", "debugging trap"),
    schedules(
        "UJOBWEIGHT",
        "RES priority subcomponent: user's active job count",
    ),
    schedules(
        "UPROCWEIGHT",
        "RES priority subcomponent: user's active processors",
    ),
    no_effect(
        "USECPUTIME",
        "client display: show CPU limit instead of walltime",
    ),
    no_effect("USEJOBREGEX", "client commands: job name regex matching"),
    no_effect(
        "USELOCALMACHINEPRIORITY",
        "ignored by 3.3.1: never parsed (local machine priority)",
    ),
    schedules(
        "USEMACHINESPEED",
        "node speed used for job walltime/allocation",
    ),
    schedules(
        "USEMACHINESPEEDFORFS",
        "fairshare usage scaled by node speed",
    ),
    no_effect("USESYSLOG", "logging"),
    schedules(
        "USESYSTEMQUEUETIME",
        "queue time counted from system-eligible time",
    ),
    no_effect(
        "XFACTORTARGETWEIGHT",
        "ignored by 3.3.1 (old name, not translated)",
    ),
];

/// Whether `value` leaves a parameter mauisim refuses at Maui 3.3.1's own default, so that
/// the line changes nothing and is accepted as without effect (MPar.c; a value 3.3.1 does
/// not know leaves the default in place too).
pub(super) fn keeps_default(name: &str, value: &str) -> bool {
    match name {
        // Read with a TRUE default: only one of 3.3.1's false words turns it off.
        "ENABLEMULTINODEJOBS" => !MAUI_FALSE.contains(&value),
        // Read with a FALSE default: only one of its true words turns it on.
        "USEMACHINESPEED" | "USEMACHINESPEEDFORFS" => !MAUI_TRUE.contains(&value),
        // Its default is `ptOFF`, which is 1, TRUE (msched.h): only a false word turns it off.
        "USESYSTEMQUEUETIME" => !MAUI_FALSE.contains(&value),
        "TASKDISTRIBUTIONPOLICY" => !["LOCAL", "ARBGEO", "PACK", "ROUNDROBIN"].contains(&value),
        "NODELOADPOLICY" => value != "ADJUSTPROCS",
        // Server.c forces a scheduling pass every MAXSLEEPITERATION iterations: 1, every one.
        "MAXSLEEPITERATION" => value.parse::<i64>() == Ok(1),
        // Each acts only above 0 (MJob.c `MRLLimitTC`; MPBSI.c scales nodes by a factor > 0;
        // a factor of 1 scales nothing).
        "METAMAXTASKS" | "UJOBWEIGHT" | "UPROCWEIGHT" => value.parse::<i64>().is_ok_and(|v| v <= 0),
        "NODECPUOVERCOMMITFACTOR" | "NODEMEMOVERCOMMITFACTOR" => {
            value.parse::<f64>().is_ok_and(|v| v <= 0.0 || v == 1.0)
        }
        "NODEALLOCMAXPS" | "SIMRANDOMIZEJOBSIZE" => !MAUI_TRUE.contains(&value),
        // MSim.c reads only PARTITIONED (UNIFORM is never tested).
        "SIMNODECONFIGURATION" => value != "PARTITIONED",
        _ => false,
    }
}

/// The words MUtil.c `MUBoolFromString` reads as true, matched exactly ("onOn" is 3.3.1's:
/// a comma is missing between "on" and "On" in its list).
const MAUI_TRUE: &[&str] = &[
    "1", "true", "True", "TRUE", "onOn", "ON", "yes", "Yes", "YES",
];

/// The words it reads as false.
const MAUI_FALSE: &[&str] = &[
    "0", "false", "False", "FALSE", "off", "Off", "OFF", "no", "No", "NO",
];

/// Old names 3.3.1 reads as another parameter that mauisim simulates (MConfig.c).
const ALIASES: &[(&str, &str)] = &[
    ("AFSWEIGHT", "FSACCOUNTWEIGHT"),
    ("BACKFILLTYPE", "BACKFILLPOLICY"),
    ("DIRECTSPECWEIGHT", "CREDWEIGHT"),
    ("GFSWEIGHT", "FSGROUPWEIGHT"),
    ("SERVICETARGETWEIGHT", "SERVICEWEIGHT"),
    ("SERVICEWCAP", "SERVICECAP"),
    ("SYSCFG", "SYSTEMCFG"),
    ("UFSWEIGHT", "FSUSERWEIGHT"),
];

/// Every old name 3.3.1 reads as another parameter, with that parameter.
pub(super) fn aliases() -> impl Iterator<Item = (&'static str, &'static str)> {
    ALIASES.iter().copied()
}

/// The parameter an old name stands for, if it is one.
pub(super) fn alias_of(name: &str) -> Option<&'static str> {
    ALIASES
        .iter()
        .find(|(old, _)| *old == name)
        .map(|&(_, new)| new)
}
