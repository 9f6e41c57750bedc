//! `mauisim generate`: seeded synthetic workloads in SWF, written as they are drawn, so
//! that traces of 10^7 jobs need no memory beyond a line.
//!
//! The distributions (every draw from one ChaCha8 stream seeded by `--seed`, job by job):
//! - **Size**: one processor with probability `serial`; otherwise 2^x processors with x
//!   uniform in [1, log2(machine)], rounded to a power of two with probability
//!   `power_of_two` (else to the nearest integer): log-uniform sizes, powers of two
//!   favoured, as in the Lublin–Feitelson model.
//! - **Runtime**: log-normal with median `runtime_median` seconds and log-standard
//!   deviation `runtime_sigma`, clamped to [1 s, `max_runtime`].
//! - **Requested time (estimate)**: runtime / a with accuracy a uniform in
//!   [`accuracy_min`, 1], rounded up to the next of 5, 10, 15, 30 min, 1, 2, 4, 8, 12, 24,
//!   36, 48 h (users pick round limits), at most `max_runtime`.
//! - **Arrivals**: a Poisson process whose rate offers `load` of the machine: the mean
//!   inter-arrival time is E[procs × runtime] / (load × machine), with the expectation
//!   taken over a calibration sample of 100,000 jobs drawn from a separate stream.
//! - **Users**: 1 + ⌊users · u²⌋ with u uniform in [0, 1) (a few heavy users, many
//!   light ones); group = 1 + user mod `groups`; queue 1.

use crate::error::{Result, SimError};
use rand::RngExt;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::io::Write;
use std::path::Path;

/// The parameters of a synthetic workload (defaults in [`Default`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub jobs: u64,
    /// Machine: nodes × processors per node.
    pub nodes: u64,
    pub procs_per_node: u64,
    /// Offered load (> 0).
    pub load: f64,
    pub seed: u64,
    pub serial: f64,
    pub power_of_two: f64,
    pub runtime_median: f64,
    pub runtime_sigma: f64,
    pub max_runtime: i64,
    pub accuracy_min: f64,
    pub users: u64,
    pub groups: u64,
}

impl Default for Model {
    fn default() -> Self {
        Model {
            jobs: 10_000,
            nodes: 128,
            procs_per_node: 1,
            load: 0.8,
            seed: 1,
            serial: 0.25,
            power_of_two: 0.75,
            runtime_median: 1200.0,
            runtime_sigma: 2.0,
            max_runtime: 36 * 3600,
            accuracy_min: 0.05,
            users: 200,
            groups: 20,
        }
    }
}

/// Limits users choose (seconds).
const ROUND_LIMITS: [i64; 12] = [
    300, 600, 900, 1800, 3600, 7200, 14400, 28800, 43200, 86400, 129600, 172800,
];

/// One job's draws.
struct Draw {
    procs: u64,
    runtime: i64,
    requested: i64,
    user: u64,
}

impl Model {
    fn procs(&self) -> u64 {
        self.nodes * self.procs_per_node
    }

    /// Checks the parameters; every problem is named.
    pub(crate) fn check(&self) -> Result<()> {
        let bad = |m: String| Err(SimError::Usage(format!("generate: {m}")));
        let unit = |x: f64| (0.0..=1.0).contains(&x);
        if self.jobs == 0 {
            return bad("--jobs must be at least 1".into());
        }
        if self.nodes == 0 || self.procs_per_node == 0 {
            return bad("the machine needs nodes and processors".into());
        }
        if !(self.load.is_finite() && self.load > 0.0) {
            return bad(format!("--load must be positive, found {}", self.load));
        }
        if !unit(self.serial) || !unit(self.power_of_two) {
            return bad("--serial and --power-of-two are probabilities (0 to 1)".into());
        }
        if !(self.runtime_median >= 1.0 && self.runtime_sigma >= 0.0 && self.max_runtime >= 1) {
            return bad("runtimes need median >= 1 s, sigma >= 0, max >= 1 s".into());
        }
        if !(self.accuracy_min > 0.0 && self.accuracy_min <= 1.0) {
            return bad("--accuracy-min must be in (0, 1]".into());
        }
        if self.users == 0 || self.groups == 0 {
            return bad("--users and --groups must be at least 1".into());
        }
        Ok(())
    }

    fn draw(&self, rng: &mut ChaCha8Rng) -> Draw {
        let machine = self.procs();
        let procs = if machine == 1 || rng.random_bool(self.serial) {
            1
        } else {
            let x = rng.random_range(1.0..=(machine as f64).log2());
            let size = if rng.random_bool(self.power_of_two) {
                2f64.powf(x.round())
            } else {
                2f64.powf(x).round()
            };
            (size as u64).clamp(1, machine)
        };
        // Box–Muller: one standard normal from two uniforms.
        let (u1, u2): (f64, f64) = (rng.random_range(f64::EPSILON..1.0), rng.random());
        let normal = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
        let runtime = (self.runtime_median * (self.runtime_sigma * normal).exp())
            .round()
            .clamp(1.0, self.max_runtime as f64) as i64;
        let accuracy = rng.random_range(self.accuracy_min..=1.0);
        let wanted = (runtime as f64 / accuracy).ceil() as i64;
        let requested = ROUND_LIMITS
            .iter()
            .copied()
            .find(|&l| l >= wanted)
            .unwrap_or(wanted)
            .min(self.max_runtime)
            .max(runtime);
        let u: f64 = rng.random();
        let user = 1 + ((self.users as f64) * u * u) as u64;
        Draw {
            procs,
            runtime,
            requested,
            user: user.min(self.users),
        }
    }

    /// The mean inter-arrival time that offers `load`.
    fn mean_interarrival(&self) -> f64 {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed ^ 0x5eed_ca11_b4a7_e000);
        let n = 100_000;
        let work: f64 = (0..n)
            .map(|_| {
                let d = self.draw(&mut rng);
                d.procs as f64 * d.runtime as f64
            })
            .sum();
        work / n as f64 / (self.load * self.procs() as f64)
    }

    /// Writes the workload as SWF to `out`, line by line.
    pub(crate) fn write(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let gap = self.mean_interarrival();
        writeln!(out, "; Version: 2.2")?;
        writeln!(out, "; Computer: synthetic (mauisim generate)")?;
        writeln!(out, "; Note: {}", self.describe())?;
        writeln!(out, "; MaxJobs: {}", self.jobs)?;
        writeln!(out, "; MaxRecords: {}", self.jobs)?;
        writeln!(out, "; MaxNodes: {}", self.nodes)?;
        writeln!(out, "; MaxProcs: {}", self.procs())?;
        writeln!(out, "; UnixStartTime: 0")?;
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        let mut clock = 0.0f64;
        for id in 1..=self.jobs {
            let d = self.draw(&mut rng);
            if id > 1 {
                let u: f64 = rng.random_range(f64::EPSILON..1.0);
                clock += -gap * u.ln();
            }
            let group = 1 + d.user % self.groups;
            writeln!(
                out,
                "{id} {} -1 {} {} -1 -1 {} {} -1 1 {} {group} -1 1 -1 -1 -1",
                clock as i64, d.runtime, d.procs, d.procs, d.requested, d.user
            )?;
            crate::engine::COUNTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(())
    }

    /// The parameters, for the trace's header.
    pub fn describe(&self) -> String {
        format!(
            "{} jobs, {} x {} processors, load {}, seed {}, serial {}, power-of-two {}, \
             runtime lognormal(median {} s, sigma {}) <= {} s, accuracy U({}, 1), {} users, {} groups",
            self.jobs,
            self.nodes,
            self.procs_per_node,
            self.load,
            self.seed,
            self.serial,
            self.power_of_two,
            self.runtime_median,
            self.runtime_sigma,
            self.max_runtime,
            self.accuracy_min,
            self.users,
            self.groups
        )
    }
}

/// Writes the workload to `path` (gzip-compressed when it ends in `.gz`), through a
/// temporary file: an interrupted run leaves no partial trace.
pub fn write_file(model: &Model, path: &Path) -> Result<()> {
    model.check()?;
    let io = |source| SimError::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map_or("trace".into(), |n| n.to_string_lossy().into_owned());
    let temporary = dir.join(format!(".{name}.partial-{}", std::process::id()));
    let _staged = crate::interrupt::Staged::new(&temporary);
    let written = (|| -> std::io::Result<()> {
        let file = std::io::BufWriter::new(std::fs::File::create(&temporary)?);
        if name.ends_with(".gz") {
            let mut gz = flate2::write::GzEncoder::new(file, flate2::Compression::fast());
            model.write(&mut gz)?;
            gz.finish()?.flush()?;
        } else {
            let mut file = file;
            model.write(&mut file)?;
            file.flush()?;
        }
        let _moving = crate::interrupt::publishing();
        std::fs::rename(&temporary, path)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temporary);
        return Err(io(e));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(model: &Model) -> String {
        let mut out = Vec::new();
        model.write(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn same_seed_same_trace_other_seed_other_trace() {
        let m = Model {
            jobs: 500,
            ..Model::default()
        };
        assert_eq!(text(&m), text(&m));
        let other = Model {
            seed: 2,
            ..m.clone()
        };
        assert_ne!(text(&m), text(&other));
    }

    #[test]
    fn draws_follow_the_documented_shapes() {
        let m = Model {
            jobs: 20_000,
            nodes: 256,
            ..Model::default()
        };
        let trace = text(&m);
        let rows: Vec<Vec<i64>> = trace
            .lines()
            .filter(|l| !l.starts_with(';'))
            .map(|l| l.split(' ').map(|f| f.parse().unwrap()).collect())
            .collect();
        assert_eq!(rows.len(), 20_000);
        let share = |f: &dyn Fn(&Vec<i64>) -> bool| {
            rows.iter().filter(|r| f(r)).count() as f64 / rows.len() as f64
        };
        // Serial 25 %; of the rest, at least the 75 % rounded are powers of two.
        assert!((share(&|r| r[4] == 1) - 0.25).abs() < 0.02);
        assert!(share(&|r| r[4] > 1 && (r[4] as u64).is_power_of_two()) > 0.75 * 0.75 - 0.02);
        assert!(rows
            .iter()
            .all(|r| (1..=256).contains(&r[4]) && r[4] == r[7]));
        // Runtime median near 1,200 s; every request covers its runtime.
        let mut runs: Vec<i64> = rows.iter().map(|r| r[3]).collect();
        runs.sort();
        let median = runs[runs.len() / 2] as f64;
        assert!((median / 1200.0 - 1.0).abs() < 0.1, "median {median}");
        assert!(rows.iter().all(|r| r[8] >= r[3] && r[8] <= 36 * 3600));
        // Submit times never decrease, and the offered load is near the asked one.
        assert!(rows.windows(2).all(|w| w[0][1] <= w[1][1]));
        let work: f64 = rows.iter().map(|r| (r[3] * r[4]) as f64).sum();
        let span = (rows.last().unwrap()[1] - rows[0][1]) as f64;
        let load = work / (256.0 * span);
        assert!((load / 0.8 - 1.0).abs() < 0.1, "offered load {load}");
    }

    #[test]
    fn bad_parameters_are_named() {
        let e = |m: Model| m.check().unwrap_err().to_string();
        assert!(e(Model {
            jobs: 0,
            ..Model::default()
        })
        .contains("--jobs"));
        assert!(e(Model {
            load: -1.0,
            ..Model::default()
        })
        .contains("--load"));
        assert!(e(Model {
            serial: 2.0,
            ..Model::default()
        })
        .contains("probabilities"));
        assert!(e(Model {
            accuracy_min: 0.0,
            ..Model::default()
        })
        .contains("--accuracy-min"));
    }
}
