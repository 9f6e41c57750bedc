//! What the run charts plot, computed from job records: binned time averages, per-bin means,
//! size × walltime matrices and distributions. No drawing here.

use crate::data::{JobRecord, TimelineRecord};
use mauisim_core::Time;

/// Equal bins over `[t0, t1)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bins {
    pub t0: Time,
    pub t1: Time,
    pub count: usize,
}

impl Bins {
    pub fn new(t0: Time, t1: Time, count: usize) -> Bins {
        Bins {
            t0,
            t1: t1.max(t0 + 1),
            count: count.max(1),
        }
    }

    pub fn width(&self) -> f64 {
        (self.t1 - self.t0) as f64 / self.count as f64
    }

    /// Start of bin `k` (seconds, fractional).
    pub fn start(&self, k: usize) -> f64 {
        self.t0 as f64 + k as f64 * self.width()
    }

    /// The middle of each bin.
    pub fn centers(&self) -> Vec<f64> {
        (0..self.count)
            .map(|k| self.start(k) + self.width() / 2.0)
            .collect()
    }

    fn index(&self, t: Time) -> Option<usize> {
        if t < self.t0 || t >= self.t1 {
            return None;
        }
        let k = ((t - self.t0) as f64 / self.width()) as usize;
        Some(k.min(self.count - 1))
    }
}

/// Per bin, the time average of the summed weights of the intervals `[a, b)` overlapping it.
pub fn time_average(intervals: impl Iterator<Item = (Time, Time, f64)>, bins: Bins) -> Vec<f64> {
    let w = bins.width();
    let mut area = vec![0.0; bins.count];
    for (a, b, weight) in intervals {
        let (a, b) = (a.max(bins.t0) as f64, b.min(bins.t1) as f64);
        if b <= a {
            continue;
        }
        let first = ((a - bins.t0 as f64) / w) as usize;
        let last = (((b - bins.t0 as f64) / w).ceil() as usize).min(bins.count);
        for (k, cell) in area.iter_mut().enumerate().take(last).skip(first) {
            let (lo, hi) = (bins.start(k), bins.start(k) + w);
            let overlap = b.min(hi) - a.max(lo);
            if overlap > 0.0 {
                *cell += overlap * weight;
            }
        }
    }
    area.into_iter().map(|x| x / w).collect()
}

/// Share of the machine's processors running jobs, per bin.
pub fn utilization(jobs: &[JobRecord], procs: u64, bins: Bins) -> Vec<f64> {
    let p = procs as f64;
    time_average(
        jobs.iter().map(|j| (j.start, j.end, j.procs as f64 / p)),
        bins,
    )
}

/// Processors asked for by waiting jobs, as a share of the machine, per bin.
pub fn queued_demand(jobs: &[JobRecord], procs: u64, bins: Bins) -> Vec<f64> {
    let p = procs as f64;
    time_average(
        jobs.iter().map(|j| (j.submit, j.start, j.procs as f64 / p)),
        bins,
    )
}

/// Waiting jobs, per bin (time average).
pub fn queue_length(jobs: &[JobRecord], bins: Bins) -> Vec<f64> {
    time_average(jobs.iter().map(|j| (j.submit, j.start, 1.0)), bins)
}

/// Jobs holding a reservation, per bin (time average): each iteration's count holds until
/// the next iteration.
pub fn reserved(timeline: &[TimelineRecord], bins: Bins) -> Vec<f64> {
    let steps = timeline.iter().enumerate().map(|(k, p)| {
        let until = timeline.get(k + 1).map_or(bins.t1, |next| next.time);
        (p.time, until, p.reserved as f64)
    });
    time_average(steps, bins)
}

/// Mean of `value` over the jobs ending in each bin (`None`: no job ended there).
pub fn mean_by_end(
    jobs: &[JobRecord],
    bins: Bins,
    value: impl Fn(&JobRecord) -> f64,
) -> Vec<Option<f64>> {
    let mut sum = vec![0.0; bins.count];
    let mut n = vec![0u64; bins.count];
    for j in jobs {
        // A job ending exactly at the last instant belongs to the last bin.
        let t = if j.end == bins.t1 { j.end - 1 } else { j.end };
        if let Some(k) = bins.index(t) {
            sum[k] += value(j);
            n[k] += 1;
        }
    }
    sum.iter()
        .zip(&n)
        .map(|(&s, &n)| (n > 0).then(|| s / n as f64))
        .collect()
}

/// Bucket bounds of a matrix: a job falls in the first bucket whose bound it does not
/// exceed; the last bucket has no bound.
#[derive(Debug, Clone, PartialEq)]
pub struct Buckets {
    pub bounds: Vec<u64>,
}

impl Buckets {
    /// Processors: 1, 4, 16, … (Maui's showstats steps by 4), up to the machine.
    pub fn procs(machine: u64) -> Buckets {
        let mut bounds = vec![1u64];
        let mut last = 1u64;
        while last < machine {
            last = last.saturating_mul(4).min(machine);
            bounds.push(last);
        }
        Buckets { bounds }
    }

    /// Requested walltime: 15 min, 1 h, 4 h, 16 h, 64 h, then longer.
    pub fn walltime() -> Buckets {
        Buckets {
            bounds: vec![900, 3_600, 14_400, 57_600, 230_400, u64::MAX],
        }
    }

    pub fn index(&self, v: u64) -> usize {
        self.bounds
            .iter()
            .position(|&b| v <= b)
            .unwrap_or(self.bounds.len() - 1)
    }

    /// `≤ 1`, `2–4`, `> 64h`: each bucket in words. `unit` writes a bound; a bucket's low
    /// end is shown as the previous bound plus `step` (1 for counts, 0 for times).
    pub fn labels(&self, unit: impl Fn(u64) -> String, step: u64) -> Vec<String> {
        let bounds = &self.bounds;
        (0..bounds.len())
            .map(|k| {
                let b = bounds[k];
                let prev = k.checked_sub(1).map(|p| bounds[p]);
                match prev {
                    _ if b == u64::MAX => format!("> {}", unit(prev.unwrap_or(0))),
                    None => format!("≤ {}", unit(b)),
                    Some(p) if p + step == b => unit(b),
                    Some(p) => format!("{}–{}", unit(p + step), unit(b)),
                }
            })
            .collect()
    }
}

/// A matrix cell: the jobs in it and the aggregate of their values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MatrixCell {
    pub jobs: u64,
    pub value: f64,
}

/// Rows by requested walltime (`rows`), columns by processors (`columns`); each cell the
/// mean of `value` over its jobs.
pub fn matrix(
    jobs: &[JobRecord],
    columns: &Buckets,
    rows: &Buckets,
    value: impl Fn(&JobRecord) -> f64,
) -> Vec<Vec<Option<MatrixCell>>> {
    let mut sum = vec![vec![(0u64, 0.0); columns.bounds.len()]; rows.bounds.len()];
    for j in jobs {
        let (r, c) = (rows.index(j.wcl.max(0) as u64), columns.index(j.procs));
        sum[r][c].0 += 1;
        sum[r][c].1 += value(j);
    }
    sum.into_iter()
        .map(|row| {
            row.into_iter()
                .map(|(n, s)| {
                    (n > 0).then(|| MatrixCell {
                        jobs: n,
                        value: s / n as f64,
                    })
                })
                .collect()
        })
        .collect()
}

/// The empirical CDF of `values` as a step line, at most about `points` points (evenly
/// spaced ranks, always the first and the last).
pub fn cdf(values: &mut [f64], points: usize) -> Vec<(f64, f64)> {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n == 0 {
        return Vec::new();
    }
    let step = n.div_ceil(points.max(1)).max(1);
    let mut ranks: Vec<usize> = (step - 1..n).step_by(step).collect();
    if ranks.first() != Some(&0) {
        ranks.insert(0, 0);
    }
    if ranks.last() != Some(&(n - 1)) {
        ranks.push(n - 1);
    }
    let mut out = Vec::with_capacity(ranks.len() * 2);
    let mut below = 0.0;
    for r in ranks {
        let v = values[r];
        // Last rank holding the value: the CDF's height at it.
        let at = values.partition_point(|x| *x <= v);
        let height = at as f64 / n as f64;
        out.push((v, below));
        out.push((v, height));
        below = height;
    }
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(submit: Time, start: Time, end: Time, wcl: Time, procs: u64) -> JobRecord {
        JobRecord {
            submit,
            start,
            end,
            wcl,
            procs,
            backfilled: false,
        }
    }

    #[test]
    fn time_averages_split_intervals_across_bins() {
        let bins = Bins::new(0, 100, 4); // bins of 25 s
        let avg = time_average([(10, 60, 2.0), (75, 200, 1.0)].into_iter(), bins);
        // Bin 0: 15 s of weight 2 = 30 / 25; bins 1: 50/25; bin 2: 10 s -> 20/25;
        // bin 3: 25 s of weight 1.
        assert_eq!(avg, vec![1.2, 2.0, 0.8, 1.0]);
    }

    #[test]
    fn utilization_and_demand_are_shares_of_the_machine() {
        // 4 processors; a 2-processor job waits 0..50 and runs 50..100.
        let jobs = [job(0, 50, 100, 100, 2)];
        let bins = Bins::new(0, 100, 2);
        assert_eq!(utilization(&jobs, 4, bins), vec![0.0, 0.5]);
        assert_eq!(queued_demand(&jobs, 4, bins), vec![0.5, 0.0]);
        assert_eq!(queue_length(&jobs, bins), vec![1.0, 0.0]);
    }

    #[test]
    fn reservations_hold_until_the_next_iteration() {
        let t = [
            TimelineRecord {
                time: 0,
                idle: 3,
                reserved: 2,
            },
            TimelineRecord {
                time: 30,
                idle: 1,
                reserved: 0,
            },
        ];
        assert_eq!(reserved(&t, Bins::new(0, 60, 2)), vec![2.0, 0.0]);
    }

    #[test]
    fn means_by_end_leave_empty_bins_empty() {
        let jobs = [
            job(0, 0, 10, 10, 1),
            job(0, 10, 20, 10, 1),
            job(0, 0, 100, 100, 1),
        ];
        let m = mean_by_end(&jobs, Bins::new(0, 100, 4), JobRecord::xfactor);
        assert_eq!(m, vec![Some(1.5), None, None, Some(1.0)]);
    }

    #[test]
    fn matrices_bucket_by_size_and_requested_walltime() {
        let cols = Buckets::procs(100);
        assert_eq!(cols.bounds, vec![1, 4, 16, 64, 100]);
        assert_eq!(Buckets::procs(u64::MAX).bounds.last(), Some(&u64::MAX));
        assert_eq!(Buckets::procs(1).bounds, vec![1]);
        assert_eq!(
            cols.labels(|b| b.to_string(), 1),
            ["≤ 1", "2–4", "5–16", "17–64", "65–100"]
        );
        let hours = Buckets::walltime().labels(|b| mauisim_sim::units::words(b as i64), 0);
        assert_eq!(
            hours,
            ["≤ 15m", "15m–1h", "1h–4h", "4h–16h", "16h–2d16h", "> 2d16h"]
        );
        let rows = Buckets::walltime();
        assert_eq!(rows.index(900), 0);
        assert_eq!(rows.index(901), 1);
        assert_eq!(rows.index(1_000_000), 5);
        let jobs = [
            job(0, 10, 20, 600, 1),
            job(0, 30, 40, 600, 1),
            job(0, 0, 7_200, 7_200, 64),
        ];
        let m = matrix(&jobs, &cols, &rows, |j| j.wait() as f64);
        assert_eq!(
            m[0][0],
            Some(MatrixCell {
                jobs: 2,
                value: 20.0
            })
        );
        assert_eq!(
            m[2][3],
            Some(MatrixCell {
                jobs: 1,
                value: 0.0
            })
        );
        assert_eq!(m[1][0], None);
    }

    #[test]
    fn cdfs_are_steps_through_every_kept_rank() {
        let mut v = vec![3.0, 1.0, 2.0, 2.0];
        assert_eq!(
            cdf(&mut v, 100),
            vec![
                (1.0, 0.0),
                (1.0, 0.25),
                (2.0, 0.25),
                (2.0, 0.75),
                (3.0, 0.75),
                (3.0, 1.0)
            ]
        );
        let mut many: Vec<f64> = (0..10_000).map(f64::from).collect();
        let c = cdf(&mut many, 100);
        assert!(c.len() <= 2 * 102);
        assert_eq!(c.last(), Some(&(9_999.0, 1.0)));
    }
}
