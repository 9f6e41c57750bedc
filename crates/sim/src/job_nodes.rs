//! Every job's nodes, by job index, in one arena.
//!
//! A run of CEA-Curie's 295,540 jobs held each job's node ranges in an allocation of its
//! own: a vector header of 24 bytes and a heap block of at least 32 per job, a fifth of
//! the run's memory. Here each job costs its ranges and 8 bytes of where they lie.

use std::fmt;
use std::ops::Index;

/// Inclusive node-index ranges of each job, pushed in job-index order.
///
/// The ranges lie in blocks of fixed room that never move: a vector grown by doubling
/// copied the whole arena each time, and the copies left their pages behind (CEA-Curie's
/// peak resident memory rose by 8 MB).
#[derive(Clone, Default)]
pub struct JobNodes {
    blocks: Vec<Vec<(u32, u32)>>,
    /// Per job: the block holding its ranges and where they end there (they begin where
    /// the job before's end, or at 0 if that one is in an earlier block).
    ends: Vec<(u32, u32)>,
}

/// Ranges per block: 512 KiB (a job with more gets a block of its own size).
const BLOCK: usize = 1 << 16;

impl JobNodes {
    /// Room for `jobs` jobs' entries (their ranges get blocks as pushed).
    pub fn with_capacity(jobs: usize) -> Self {
        JobNodes {
            blocks: Vec::new(),
            ends: Vec::with_capacity(jobs),
        }
    }

    /// The next job's ranges (empty for a job that never ran).
    pub fn push(&mut self, nodes: &[(u32, u32)]) {
        let room = self.blocks.last().map_or(0, |b| b.capacity() - b.len());
        if room < nodes.len() || self.blocks.is_empty() {
            self.blocks.push(Vec::with_capacity(BLOCK.max(nodes.len())));
        }
        let block = self.blocks.len() - 1;
        let ranges = &mut self.blocks[block];
        ranges.extend_from_slice(nodes);
        // 2^32 blocks or ranges in one would be past any run's memory.
        let to_u32 = |n: usize| u32::try_from(n).expect("fewer than 2^32 node ranges");
        self.ends.push((to_u32(block), to_u32(ranges.len())));
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    pub fn get(&self, job: usize) -> Option<&[(u32, u32)]> {
        let (block, end) = *self.ends.get(job)?;
        let begin = match job.checked_sub(1).map(|before| self.ends[before]) {
            Some((same, end_before)) if same == block => end_before,
            _ => 0,
        };
        Some(&self.blocks[block as usize][begin as usize..end as usize])
    }

    /// Each job's ranges, in job-index order.
    pub fn iter(&self) -> Iter<'_> {
        Iter { all: self, next: 0 }
    }
}

/// Equal when every job's ranges are (however they lie in blocks).
impl PartialEq for JobNodes {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for JobNodes {}

impl Index<usize> for JobNodes {
    type Output = [(u32, u32)];

    fn index(&self, job: usize) -> &[(u32, u32)] {
        match self.get(job) {
            Some(ranges) => ranges,
            None => panic!("job {job} of {} has no node entry", self.len()),
        }
    }
}

/// [`JobNodes::iter`].
pub struct Iter<'a> {
    all: &'a JobNodes,
    next: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a [(u32, u32)];

    fn next(&mut self) -> Option<&'a [(u32, u32)]> {
        let ranges = self.all.get(self.next)?;
        self.next += 1;
        Some(ranges)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.all.len() - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a JobNodes {
    type Item = &'a [(u32, u32)];
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl FromIterator<Vec<(u32, u32)>> for JobNodes {
    fn from_iter<I: IntoIterator<Item = Vec<(u32, u32)>>>(jobs: I) -> Self {
        let mut all = JobNodes::default();
        for nodes in jobs {
            all.push(&nodes);
        }
        all
    }
}

impl fmt::Debug for JobNodes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_job_gets_back_its_own_ranges() {
        let mut all = JobNodes::with_capacity(3);
        all.push(&[(0, 3), (7, 7)]);
        all.push(&[]);
        all.push(&[(4, 5)]);
        assert_eq!(all.len(), 3);
        assert_eq!(all[0], [(0, 3), (7, 7)]);
        assert!(all[1].is_empty());
        assert_eq!(all[2], [(4, 5)]);
        assert_eq!(all.get(3), None);
        let back: Vec<Vec<(u32, u32)>> = all.iter().map(<[_]>::to_vec).collect();
        assert_eq!(back, [vec![(0, 3), (7, 7)], vec![], vec![(4, 5)]]);
        assert_eq!(back.into_iter().collect::<JobNodes>(), all);
        assert_eq!(format!("{all:?}"), "[[(0, 3), (7, 7)], [], [(4, 5)]]");
    }

    #[test]
    fn a_job_that_does_not_fit_its_block_begins_the_next_whole() {
        let filler: Vec<(u32, u32)> = (0..BLOCK as u32 - 1).map(|n| (n, n)).collect();
        let wider: Vec<(u32, u32)> = (0..BLOCK as u32 + 5).map(|n| (n, n)).collect();
        let mut all = JobNodes::default();
        all.push(&filler);
        all.push(&[(1, 2), (4, 4)]);
        all.push(&[]);
        all.push(&[(9, 9)]);
        all.push(&wider);
        all.push(&[(3, 3)]);
        assert_eq!(all.blocks.len(), 4);
        assert_eq!(all[0], filler[..]);
        assert_eq!(all[1], [(1, 2), (4, 4)]);
        assert!(all[2].is_empty());
        assert_eq!(all[3], [(9, 9)]);
        assert_eq!(all[4], wider[..]);
        assert_eq!(all[5], [(3, 3)]);
        assert_eq!(all.iter().len(), 6);
    }
}
