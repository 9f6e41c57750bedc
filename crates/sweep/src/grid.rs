//! The grid of a sweep: named axes of values, and seeds, expanded in a fixed order.
//!
//! Grid order is the order of nested loops over the axes as given, the first axis outermost,
//! with seeds innermost. A run's index in that order names it everywhere (its directory,
//! its row in the results), so every way of running a sweep (any thread count, resumed,
//! sharded and merged) ends with the same files.

use crate::error::{Result, SweepError};
use serde::{Deserialize, Serialize};

/// What an axis changes in a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AxisKind {
    /// A maui.cfg line: `NAME VALUE`, `NAME[INDEX] VALUE` or `OBJECT[NAME] ATTR=VALUE`.
    Config,
    /// `--estimate`: the wallclock-limit model.
    Estimate,
    /// `--predictor`: what backfill plans job lengths with.
    Predictor,
    /// `--target-load`: inter-arrival times scaled to this offered load.
    TargetLoad,
    /// `--compress`: inter-arrival times divided by this factor.
    Compress,
}

/// The run options an axis may name (lowercase, so they never clash with Maui's names).
pub const RUN_OPTION_AXES: &[(&str, AxisKind)] = &[
    ("estimate", AxisKind::Estimate),
    ("predictor", AxisKind::Predictor),
    ("target-load", AxisKind::TargetLoad),
    ("compress", AxisKind::Compress),
];

/// One swept dimension: a parameter and the values it takes, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Axis {
    pub name: String,
    pub values: Vec<String>,
}

impl Axis {
    pub fn kind(&self) -> AxisKind {
        RUN_OPTION_AXES
            .iter()
            .find(|(name, _)| *name == self.name)
            .map_or(AxisKind::Config, |(_, kind)| *kind)
    }

    /// The maui.cfg line that sets this axis to `value` (config axes only).
    pub fn config_line(&self, value: &str) -> String {
        match self.name.split_once(' ') {
            // `USERCFG[DEFAULT] MAXJOB` takes `MAXJOB=value`.
            Some((object, attribute)) => format!("{object} {}={value}", attribute.trim()),
            None => format!("{} {value}", self.name),
        }
    }
}

/// Axes and seeds: the cartesian product is the sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Grid {
    pub axes: Vec<Axis>,
    pub seeds: Vec<u64>,
}

/// One run of the grid.
#[derive(Debug, Clone, PartialEq)]
pub struct Point<'a> {
    /// Position in grid order.
    pub index: usize,
    /// Position of its setting (the run without the seed) among the grid's settings.
    pub setting: usize,
    /// Each axis with the value it takes in this run.
    pub values: Vec<(&'a Axis, &'a str)>,
    pub seed: u64,
}

impl Grid {
    /// Checks axes and seeds; an axis given twice or without values is an error.
    pub fn new(axes: Vec<Axis>, seeds: Vec<u64>) -> Result<Grid> {
        if seeds.is_empty() {
            return Err(SweepError::Usage("no seeds to run".into()));
        }
        for (i, axis) in axes.iter().enumerate() {
            if axis.values.is_empty() {
                return Err(SweepError::Usage(format!("{}: no values", axis.name)));
            }
            if axes[..i].iter().any(|a| a.name == axis.name) {
                return Err(SweepError::Usage(format!(
                    "{} is set twice; give its values in one --set",
                    axis.name
                )));
            }
            for (j, value) in axis.values.iter().enumerate() {
                if axis.values[..j].contains(value) {
                    return Err(SweepError::Usage(format!(
                        "{}: the value `{value}` is given twice",
                        axis.name
                    )));
                }
            }
        }
        for (i, seed) in seeds.iter().enumerate() {
            if seeds[..i].contains(seed) {
                return Err(SweepError::Usage(format!("seed {seed} is given twice")));
            }
        }
        let grid = Grid { axes, seeds };
        grid.settings()
            .checked_mul(grid.seeds.len())
            .filter(|&n| n <= MAX_RUNS)
            .ok_or_else(|| SweepError::Usage(format!("the grid has more than {MAX_RUNS} runs")))?;
        Ok(grid)
    }

    /// How many settings (runs without the seed).
    pub fn settings(&self) -> usize {
        self.axes
            .iter()
            .try_fold(1usize, |n, a| n.checked_mul(a.values.len()))
            .unwrap_or(usize::MAX)
    }

    /// How many runs.
    pub fn len(&self) -> usize {
        self.settings() * self.seeds.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The run at `index` in grid order.
    pub fn point(&self, index: usize) -> Point<'_> {
        let setting = index / self.seeds.len();
        let seed = self.seeds[index % self.seeds.len()];
        let mut rest = setting;
        let mut values = Vec::with_capacity(self.axes.len());
        for axis in self.axes.iter().rev() {
            values.push((axis, axis.values[rest % axis.values.len()].as_str()));
            rest /= axis.values.len();
        }
        values.reverse();
        Point {
            index,
            setting,
            values,
            seed,
        }
    }

    /// The runs of shard `k` of `n` (1-based): every n-th run, so that each shard gets its
    /// share of every part of the grid.
    pub fn shard(&self, k: usize, n: usize) -> impl Iterator<Item = usize> {
        (k - 1..self.len()).step_by(n)
    }
}

/// No sweep may have more runs than this.
pub const MAX_RUNS: usize = 10_000_000;

/// `NAME=VALUES` from `--set`: values separated by `,` (or by `;` when a value itself holds
/// commas, as Maui's soft,hard limits do); `START:END:STEP` expands to a range.
pub fn parse_set(text: &str) -> Result<Axis> {
    let (name, values) = text.split_once('=').ok_or_else(|| {
        SweepError::Usage(format!("--set `{text}`: expected NAME=VALUE[,VALUE…]"))
    })?;
    let name = normalize_name(name)?;
    let separator = if values.contains(';') { ';' } else { ',' };
    let mut expanded = Vec::new();
    for item in values.split(separator) {
        expanded.extend(parse_value(&name, item.trim())?);
    }
    Ok(Axis {
        name,
        values: expanded,
    })
}

/// A parameter name as Maui writes it: config names in upper case, run options in lower.
pub fn normalize_name(name: &str) -> Result<String> {
    let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
    if name.is_empty() {
        return Err(SweepError::Usage("--set: a parameter name is empty".into()));
    }
    let lower = name.to_ascii_lowercase();
    if RUN_OPTION_AXES.iter().any(|(n, _)| *n == lower) {
        return Ok(lower);
    }
    Ok(match name.split_once('[') {
        // Object names inside brackets keep their case (`USERCFG[steve]`).
        Some((head, rest)) => match rest.split_once(']') {
            Some((index, tail)) => format!(
                "{}[{index}]{}",
                head.to_ascii_uppercase(),
                tail.to_ascii_uppercase()
            ),
            None => name.to_ascii_uppercase(),
        },
        None => name.to_ascii_uppercase(),
    })
}

/// One item of a value list: a value, or a `START:END:STEP` range of numbers.
pub fn parse_value(name: &str, item: &str) -> Result<Vec<String>> {
    if item.is_empty() {
        return Err(SweepError::Usage(format!("--set {name}: an empty value")));
    }
    let parts: Vec<&str> = item.split(':').collect();
    let numbers: Option<Vec<f64>> = if parts.len() == 3 {
        parts.iter().map(|p| p.parse::<f64>().ok()).collect()
    } else {
        None
    };
    let Some(numbers) = numbers else {
        return Ok(vec![item.to_string()]);
    };
    let (start, end, step) = (numbers[0], numbers[1], numbers[2]);
    if !(start.is_finite() && end.is_finite() && step.is_finite()) {
        return Err(SweepError::Usage(format!(
            "--set {name}: `{item}` is not a range of finite numbers"
        )));
    }
    if step <= 0.0 || end < start {
        return Err(SweepError::Usage(format!(
            "--set {name}: the range `{item}` (START:END:STEP) is empty; a time of day is \
             written in seconds or as DD:HH:MM:SS"
        )));
    }
    let count = ((end - start) / step + 1e-9).floor() + 1.0;
    if count > 100_000.0 {
        return Err(SweepError::Usage(format!(
            "--set {name}: the range `{item}` has {count} values, more than 100000"
        )));
    }
    let decimals = parts
        .iter()
        .map(|p| p.split_once('.').map_or(0, |(_, d)| d.len()))
        .max()
        .unwrap_or(0);
    Ok((0..count as usize)
        .map(|i| format!("{:.*}", decimals, start + i as f64 * step))
        .collect())
}

/// `--seeds`: `A..B` (inclusive), a comma-separated list, or one seed.
pub fn parse_seeds(text: &str) -> Result<Vec<u64>> {
    let number = |s: &str| {
        s.trim().parse::<u64>().map_err(|_| {
            SweepError::Usage(format!("--seeds `{text}`: `{s}` is not a seed (0 or more)"))
        })
    };
    if let Some((a, b)) = text.split_once("..") {
        let (a, b) = (number(a)?, number(b.trim_start_matches('='))?);
        if b < a {
            return Err(SweepError::Usage(format!(
                "--seeds `{text}`: the range is empty"
            )));
        }
        if b - a >= MAX_RUNS as u64 {
            return Err(SweepError::Usage(format!(
                "--seeds `{text}`: more than {MAX_RUNS} seeds"
            )));
        }
        return Ok((a..=b).collect());
    }
    text.split(',').map(number).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axis(name: &str, values: &[&str]) -> Axis {
        Axis {
            name: name.into(),
            values: values.iter().map(|v| v.to_string()).collect(),
        }
    }

    #[test]
    fn the_issue_s_example_expands_as_written() {
        assert_eq!(
            parse_set("RESERVATIONDEPTH=1,2,4,8").unwrap(),
            axis("RESERVATIONDEPTH", &["1", "2", "4", "8"])
        );
        assert_eq!(
            parse_set("FSDECAY=0.5:1.0:0.1").unwrap().values,
            ["0.5", "0.6", "0.7", "0.8", "0.9", "1.0"]
        );
        assert_eq!(
            parse_set("BFCHUNKSIZE=0:8:4").unwrap().values,
            ["0", "4", "8"]
        );
        assert_eq!(parse_seeds("1..10").unwrap(), (1..=10).collect::<Vec<_>>());
        assert_eq!(parse_seeds("3,1,7").unwrap(), [3, 1, 7]);
    }

    #[test]
    fn attribute_axes_and_soft_hard_values() {
        let a = parse_set("usercfg[DEFAULT]  maxjob=2,4;8,16").unwrap();
        assert_eq!(a.name, "USERCFG[DEFAULT] MAXJOB");
        assert_eq!(a.values, ["2,4", "8,16"]);
        assert_eq!(a.config_line("2,4"), "USERCFG[DEFAULT] MAXJOB=2,4");
        assert_eq!(a.kind(), AxisKind::Config);
        let e = parse_set("Estimate=trace,f-model:2").unwrap();
        assert_eq!(e.kind(), AxisKind::Estimate);
        assert_eq!(e.values, ["trace", "f-model:2"]);
        assert_eq!(
            parse_set("RESERVATIONDEPTH[1]=2").unwrap().config_line("2"),
            "RESERVATIONDEPTH[1] 2"
        );
    }

    #[test]
    fn bad_sets_say_what_is_wrong() {
        let message = |t: &str| parse_set(t).unwrap_err().to_string();
        assert!(message("RESERVATIONDEPTH").contains("expected NAME=VALUE"));
        assert!(message("FSDECAY=1.0:0.5:0.1").contains("is empty"));
        assert!(message("FSDECAY=0.5:1.0:0").contains("is empty"));
        assert!(message("FSINTERVAL=1:00:00").contains("DD:HH:MM:SS"));
        assert!(message("X=1,,2").contains("empty value"));
        assert!(message("=1").contains("name is empty"));
        assert!(parse_seeds("10..1")
            .unwrap_err()
            .to_string()
            .contains("empty"));
        assert!(parse_seeds("a")
            .unwrap_err()
            .to_string()
            .contains("not a seed"));
        let twice = Grid::new(vec![axis("A", &["1"]), axis("A", &["2"])], vec![1]);
        assert!(twice.unwrap_err().to_string().contains("set twice"));
        let repeated = Grid::new(vec![axis("A", &["1", "1"])], vec![1]);
        assert!(repeated.unwrap_err().to_string().contains("given twice"));
        assert!(Grid::new(vec![], vec![]).is_err());
    }

    #[test]
    fn grid_order_is_nested_loops_with_seeds_innermost() {
        let grid = Grid::new(
            vec![axis("A", &["a1", "a2"]), axis("B", &["b1", "b2", "b3"])],
            vec![7, 9],
        )
        .unwrap();
        assert_eq!(grid.len(), 12);
        let listed: Vec<(String, u64, usize)> = (0..grid.len())
            .map(|i| {
                let p = grid.point(i);
                let names: Vec<&str> = p.values.iter().map(|(_, v)| *v).collect();
                (names.join(" "), p.seed, p.setting)
            })
            .collect();
        assert_eq!(listed[0], ("a1 b1".into(), 7, 0));
        assert_eq!(listed[1], ("a1 b1".into(), 9, 0));
        assert_eq!(listed[2], ("a1 b2".into(), 7, 1));
        assert_eq!(listed[5], ("a1 b3".into(), 9, 2));
        assert_eq!(listed[6], ("a2 b1".into(), 7, 3));
        assert_eq!(listed[11], ("a2 b3".into(), 9, 5));
    }

    #[test]
    fn shards_are_disjoint_and_cover_the_grid() {
        let grid = Grid::new(vec![axis("A", &["1", "2", "3", "4", "5"])], vec![1, 2]).unwrap();
        for n in 1..=12 {
            let mut all: Vec<usize> = (1..=n).flat_map(|k| grid.shard(k, n)).collect();
            all.sort();
            assert_eq!(all, (0..grid.len()).collect::<Vec<_>>(), "n = {n}");
        }
    }
}
