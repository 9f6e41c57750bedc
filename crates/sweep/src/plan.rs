//! What a sweep runs: the base run, the grid, the metric to watch; read from flags or a
//! TOML sweep file, checked in full before any run starts.

use crate::error::{Result, SweepError};
use crate::grid::{self, Axis, AxisKind, Grid};
use mauisim_config::{self as cfg, Parsed};
use mauisim_sim::engine::Predictor;
use mauisim_sim::params;
use mauisim_sim::trace::workload::{Estimate, Trace};
use mauisim_sim::RunOptions;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A sweep as asked for.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The run every grid point starts from (its seed is replaced by the grid's).
    pub base: RunOptions,
    pub grid: Grid,
    pub metric: Metric,
}

/// The summary metric whose best value the progress line shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Metric {
    pub name: String,
    pub higher_is_better: bool,
}

/// Metrics where more is better; every other one is a cost (waits, slowdowns, …).
const HIGHER_IS_BETTER: &[&str] = &[
    "utilization",
    "backfilled_fraction",
    "reservations_kept_fraction",
    "avg_wallclock_accuracy",
    "jobs",
];

impl Metric {
    /// A summary metric by name; unknown names are an error that lists the known ones.
    pub fn named(name: &str) -> Result<Metric> {
        let known = crate::results::metric_names();
        if !known.iter().any(|k| k == name) {
            return Err(SweepError::Usage(format!(
                "--metric {name}: not a summary metric; one of {}",
                known.join(", ")
            )));
        }
        Ok(Metric {
            name: name.to_string(),
            higher_is_better: HIGHER_IS_BETTER.contains(&name),
        })
    }

    /// Whether `a` is better than `b`.
    pub fn better(&self, a: f64, b: f64) -> bool {
        if self.higher_is_better {
            a > b
        } else {
            a < b
        }
    }
}

impl Default for Metric {
    fn default() -> Self {
        Metric {
            name: "avg_wait".into(),
            higher_is_better: false,
        }
    }
}

/// A TOML sweep file (see scenarios/sweeps/README.md). Paths are relative to the file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SweepFile {
    trace: Option<PathBuf>,
    config: Option<PathBuf>,
    seeds: Option<Seeds>,
    metric: Option<String>,
    #[serde(default)]
    set: toml::Table,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Seeds {
    One(u64),
    List(Vec<u64>),
    Text(String),
}

/// What a sweep file gives: the trace and config (if it names them), axes, seeds, metric.
#[derive(Debug, Default)]
pub struct FromFile {
    pub trace: Option<PathBuf>,
    pub config: Option<PathBuf>,
    pub axes: Vec<Axis>,
    pub seeds: Option<Vec<u64>>,
    pub metric: Option<String>,
}

/// Reads a sweep file; its `[set]` table keeps its order, which is the grid's.
pub fn read_file(path: &Path) -> Result<FromFile> {
    let text = std::fs::read_to_string(path).map_err(SweepError::io(path))?;
    let bad = |message: String| SweepError::File {
        path: path.to_path_buf(),
        message,
    };
    let file: SweepFile = toml::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let dir = path.parent().unwrap_or(Path::new(""));
    let mut axes = Vec::new();
    for (name, value) in &file.set {
        let items = match value {
            toml::Value::Array(items) => items.clone(),
            other => vec![other.clone()],
        };
        let mut text = Vec::new();
        for item in items {
            match item {
                toml::Value::String(s) => text.push(s),
                toml::Value::Integer(i) => text.push(i.to_string()),
                toml::Value::Float(f) => text.push(f.to_string()),
                toml::Value::Boolean(b) => text.push(b.to_string().to_ascii_uppercase()),
                other => {
                    return Err(bad(format!(
                        "set.{name}: `{other}` is not a value (string, number or boolean)"
                    )))
                }
            }
        }
        // Each value on its own, so that values holding commas stay whole.
        let mut values = Vec::new();
        for t in text {
            values.extend(grid::parse_value(name, t.trim()).map_err(|e| bad(e.to_string()))?);
        }
        axes.push(Axis {
            name: grid::normalize_name(name)?,
            values,
        });
    }
    let seeds = match file.seeds {
        None => None,
        Some(Seeds::One(s)) => Some(vec![s]),
        Some(Seeds::List(list)) => Some(list),
        Some(Seeds::Text(t)) => Some(grid::parse_seeds(&t).map_err(|e| bad(e.to_string()))?),
    };
    Ok(FromFile {
        trace: file.trace.map(|p| dir.join(p)),
        config: file.config.map(|p| dir.join(p)),
        axes,
        seeds,
        metric: file.metric,
    })
}

/// A plan read and checked: the trace's records, the base config's entries, and every
/// axis value shown to make a valid run setting.
pub struct Checked {
    pub plan: Plan,
    pub trace: Trace,
    pub base_entries: Parsed,
    /// The base config's warnings, and notes on the sweep itself.
    pub warnings: Vec<String>,
    pub manifest: Manifest,
}

/// Reads the trace and the config once and checks every axis value against them.
pub fn check(plan: Plan) -> Result<Checked> {
    let base_entries = match &plan.base.config {
        Some(path) => cfg::parse_file(path)?,
        None => Parsed::default(),
    };
    let base = params::interpret(base_entries.clone())?;
    let mut warnings = base.warnings.clone();
    for axis in &plan.grid.axes {
        check_axis(axis, &base_entries)?;
    }
    let random = estimate_is_random(&plan.base.estimate)
        || base.config.sim_wc.accuracy > 0.0
        || plan.grid.axes.iter().any(|a| match a.kind() {
            AxisKind::Estimate => a
                .values
                .iter()
                .any(|v| v.parse().is_ok_and(|e| estimate_is_random(&e))),
            AxisKind::Config => a.name.starts_with("SIMWCACCURACY"),
            _ => false,
        });
    if plan.grid.seeds.len() > 1 && !random {
        warnings.push(
            "note: seeds only change random draws (--estimate f-model/accuracy, SIMWCACCURACY); \
             this sweep has none, so every seed gives the same run"
                .into(),
        );
    }
    let trace = Trace::read(&plan.base.trace)?;
    let manifest = Manifest::new(&plan, &trace, &base_entries)?;
    Ok(Checked {
        plan,
        trace,
        base_entries,
        warnings,
        manifest,
    })
}

fn estimate_is_random(e: &Estimate) -> bool {
    matches!(e, Estimate::FModel(f) if *f > 1.0) || matches!(e, Estimate::Accuracy(a) if *a < 1.0)
}

/// Every value of `axis` must make a valid run on its own.
fn check_axis(axis: &Axis, base: &Parsed) -> Result<()> {
    let bad = |value: &str, message: String| {
        SweepError::Usage(format!("--set {}={value}: {message}", axis.name))
    };
    match axis.kind() {
        AxisKind::Config => {
            let head = axis.name.split(['[', ' ']).next().unwrap_or("");
            if !params::is_simulated(head) {
                let known = params::known_names();
                let hint = match cfg::closest(head, &known) {
                    Some(near) if known.contains(&head) => {
                        format!("{near} is read but not simulated, so sweeping it changes nothing")
                    }
                    Some(near) => format!("unknown parameter; did you mean {near}?"),
                    None => "unknown parameter".into(),
                };
                return Err(SweepError::Usage(format!("--set {}: {hint}", axis.name)));
            }
            for value in &axis.values {
                let loaded =
                    config_with(base, &[(axis, value)]).map_err(|e| bad(value, e.to_string()))?;
                // A value Maui would ignore (an unknown attribute) sweeps nothing.
                if let Some(w) = loaded.warnings.iter().find(|w| w.starts_with("--set:")) {
                    return Err(bad(value, w.clone()));
                }
            }
        }
        AxisKind::Estimate => {
            for value in &axis.values {
                value.parse::<Estimate>().map_err(|e| bad(value, e))?;
            }
        }
        AxisKind::Predictor => {
            for value in &axis.values {
                value.parse::<Predictor>().map_err(|e| bad(value, e))?;
            }
        }
        AxisKind::TargetLoad | AxisKind::Compress => {
            for value in &axis.values {
                positive(value).map_err(|e| bad(value, e))?;
            }
        }
    }
    Ok(())
}

/// The base entries with the config axes' lines after them (a later line wins, as in Maui).
pub fn config_with(base: &Parsed, settings: &[(&Axis, &str)]) -> Result<params::LoadedConfig> {
    let mut parsed = base.clone();
    let lines: String = settings
        .iter()
        .filter(|(axis, _)| axis.kind() == AxisKind::Config)
        .map(|(axis, value)| axis.config_line(value) + "\n")
        .collect();
    if !lines.is_empty() {
        let extra = cfg::parse_str(&lines, "--set")?;
        parsed.entries.extend(extra.entries);
        parsed.warnings.extend(extra.warnings);
    }
    Ok(params::interpret(parsed)?)
}

/// `base` with the run-option axes of a point and its seed applied.
pub fn options_with(base: &RunOptions, settings: &[(&Axis, &str)], seed: u64) -> RunOptions {
    let mut options = base.clone();
    options.seed = seed;
    for (axis, value) in settings {
        // Values were checked by `check`; a failure here would be a bug in it.
        match axis.kind() {
            AxisKind::Config => {}
            AxisKind::Estimate => options.estimate = value.parse().expect("checked estimate"),
            AxisKind::Predictor => options.predictor = value.parse().expect("checked predictor"),
            AxisKind::TargetLoad => {
                options.transform.target_load = Some(positive(value).expect("checked"))
            }
            AxisKind::Compress => {
                options.transform.compress = Some(positive(value).expect("checked"))
            }
        }
    }
    options
}

fn positive(value: &str) -> std::result::Result<f64, String> {
    match value.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err("expected a positive number".into()),
    }
}

/// `DIR/sweep.json`: what the directory's runs are runs of. A sweep resumes, and shards
/// merge, only where everything but the file names and the shard agrees.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub mauisim: String,
    pub trace: String,
    /// FNV-1a of the trace file's bytes.
    pub trace_digest: String,
    pub config: Option<String>,
    /// FNV-1a of the base config's entries (includes spliced in).
    pub config_digest: String,
    /// The fixed run options, as mauisim prints them.
    pub options: String,
    pub grid: Grid,
    /// `[K, N]`: this directory holds shard K of N.
    pub shard: Option<[usize; 2]>,
}

impl Manifest {
    fn new(plan: &Plan, trace: &Trace, entries: &Parsed) -> Result<Manifest> {
        let bytes = std::fs::read(&trace.path).map_err(SweepError::io(&trace.path))?;
        let mut fixed = plan.base.clone();
        fixed.trace = PathBuf::new();
        fixed.config = None;
        fixed.seed = 0;
        Ok(Manifest {
            mauisim: env!("CARGO_PKG_VERSION").into(),
            trace: plan.base.trace.display().to_string(),
            trace_digest: format!("{:016x}", fnv1a(&bytes)),
            config: plan.base.config.as_ref().map(|p| p.display().to_string()),
            config_digest: format!(
                "{:016x}",
                fnv1a(format!("{:?}", entries.entries).as_bytes())
            ),
            options: format!("{fixed:?}"),
            grid: plan.grid.clone(),
            shard: None,
        })
    }

    /// Whether `other` describes the same sweep (file names and shard aside).
    pub fn same_sweep(&self, other: &Manifest) -> bool {
        self.mauisim == other.mauisim
            && self.trace_digest == other.trace_digest
            && self.config_digest == other.config_digest
            && self.options == other.options
            && self.grid == other.grid
    }

    /// What differs from `other`, for the error message.
    pub fn difference(&self, other: &Manifest) -> String {
        let mut parts = Vec::new();
        if self.mauisim != other.mauisim {
            parts.push("the mauisim version");
        }
        if self.trace_digest != other.trace_digest {
            parts.push("the trace");
        }
        if self.config_digest != other.config_digest {
            parts.push("the config");
        }
        if self.options != other.options {
            parts.push("the run options");
        }
        if self.grid != other.grid {
            parts.push("the grid");
        }
        parts.join(", ")
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
