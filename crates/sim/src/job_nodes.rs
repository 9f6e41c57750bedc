//! Every job's nodes, by job index, in one arena of bytes.
//!
//! A run of CEA-Curie's 295,540 jobs held each job's node ranges in an allocation of its
//! own: a vector header of 24 bytes and a heap block of at least 32 per job, a fifth of
//! the run's memory. Then as 8-byte ranges in one arena (1.8 million ranges, 14 MB). Here
//! a range is two varints, of its gap from the range before and its length, a few bytes
//! each; a job costs those and 8 bytes of where they lie.

use std::fmt;

/// Inclusive node-index ranges of each job, pushed in job-index order.
///
/// The bytes lie in blocks of fixed room that never move: a vector grown by doubling
/// copied the whole arena each time, and the copies left their pages behind (CEA-Curie's
/// peak resident memory rose by 8 MB).
#[derive(Clone, Default)]
pub struct JobNodes {
    blocks: Vec<Vec<u8>>,
    /// Per job: the block holding its bytes and where they end there (they begin where
    /// the job before's end, or at 0 if that one is in an earlier block).
    ends: Vec<(u32, u32)>,
}

/// Bytes per block (a job with more gets a block of its own size).
const BLOCK: usize = 1 << 19;
/// Most bytes one range takes: two varints of 33 bits' zigzag (a gap or length of u32s).
const MOST_PER_RANGE: usize = 10;

impl JobNodes {
    /// Room for `jobs` jobs' entries (their ranges get blocks as pushed).
    pub fn with_capacity(jobs: usize) -> Self {
        JobNodes {
            blocks: Vec::new(),
            ends: Vec::with_capacity(jobs),
        }
    }

    /// The next job's ranges (empty for a job that never ran), as the node order gave
    /// them (any order, kept as given).
    pub fn push(&mut self, nodes: &[(u32, u32)]) {
        let most = nodes.len() * MOST_PER_RANGE;
        let room = self.blocks.last().map_or(0, |b| b.capacity() - b.len());
        if room < most || self.blocks.is_empty() {
            self.blocks.push(Vec::with_capacity(BLOCK.max(most)));
        }
        let block = self.blocks.len() - 1;
        let bytes = &mut self.blocks[block];
        let mut after = 0i64;
        for &(first, last) in nodes {
            write_varint(bytes, i64::from(first) - after);
            write_varint(bytes, i64::from(last) - i64::from(first));
            after = i64::from(last);
        }
        // 2^32 blocks or bytes in one would be past any run's memory.
        let to_u32 = |n: usize| u32::try_from(n).expect("fewer than 2^32 bytes of node ranges");
        self.ends.push((to_u32(block), to_u32(bytes.len())));
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Job `job`'s ranges, if it has an entry.
    pub fn get(&self, job: usize) -> Option<Ranges<'_>> {
        let (block, end) = *self.ends.get(job)?;
        let begin = match job.checked_sub(1).map(|before| self.ends[before]) {
            Some((same, end_before)) if same == block => end_before,
            _ => 0,
        };
        Some(Ranges {
            bytes: &self.blocks[block as usize][begin as usize..end as usize],
            after: 0,
        })
    }

    /// Job `job`'s ranges as a vector.
    ///
    /// # Panics
    /// If the job has no entry (an index past those pushed).
    pub fn of(&self, job: usize) -> Vec<(u32, u32)> {
        match self.get(job) {
            Some(ranges) => ranges.collect(),
            None => panic!("job {job} of {} has no node entry", self.len()),
        }
    }

    /// Each job's ranges, in job-index order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Ranges<'_>> + '_ {
        (0..self.len()).map(|job| self.get(job).expect("an entry below len"))
    }
}

/// One job's ranges, decoded as read.
#[derive(Clone)]
pub struct Ranges<'a> {
    bytes: &'a [u8],
    after: i64,
}

impl Ranges<'_> {
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

impl Iterator for Ranges<'_> {
    type Item = (u32, u32);

    fn next(&mut self) -> Option<(u32, u32)> {
        if self.bytes.is_empty() {
            return None;
        }
        let first = self.after + read_varint(&mut self.bytes);
        let last = first + read_varint(&mut self.bytes);
        self.after = last;
        // Written from u32s, so they come back as u32s.
        Some((first as u32, last as u32))
    }
}

fn write_varint(bytes: &mut Vec<u8>, value: i64) {
    let mut rest = ((value << 1) ^ (value >> 63)) as u64;
    while rest >= 0x80 {
        bytes.push((rest as u8) | 0x80);
        rest >>= 7;
    }
    bytes.push(rest as u8);
}

fn read_varint(bytes: &mut &[u8]) -> i64 {
    let mut zigzag = 0u64;
    let mut shift = 0;
    while let Some((&b, rest)) = bytes.split_first() {
        *bytes = rest;
        zigzag |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            break;
        }
        shift += 7;
    }
    ((zigzag >> 1) as i64) ^ -((zigzag & 1) as i64)
}

/// Equal when every job's ranges are (however they lie in blocks).
impl PartialEq for JobNodes {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other.iter()).all(|(a, b)| a.eq(b))
    }
}

impl Eq for JobNodes {}

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
        f.debug_list()
            .entries(self.iter().map(Iterator::collect::<Vec<_>>))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn each_job_gets_back_its_own_ranges() {
        let mut all = JobNodes::with_capacity(3);
        all.push(&[(0, 3), (7, 7)]);
        all.push(&[]);
        all.push(&[(4, 5)]);
        assert_eq!(all.len(), 3);
        assert_eq!(all.of(0), [(0, 3), (7, 7)]);
        assert!(all.get(1).unwrap().is_empty());
        assert_eq!(all.of(2), [(4, 5)]);
        assert!(all.get(3).is_none());
        let back: Vec<Vec<(u32, u32)>> = all.iter().map(Iterator::collect).collect();
        assert_eq!(back, [vec![(0, 3), (7, 7)], vec![], vec![(4, 5)]]);
        assert_eq!(back.into_iter().collect::<JobNodes>(), all);
        assert_eq!(format!("{all:?}"), "[[(0, 3), (7, 7)], [], [(4, 5)]]");
    }

    #[test]
    fn a_job_that_does_not_fit_its_block_begins_the_next_whole() {
        // Ranges of the most bytes each, filling the first block to 12 bytes short.
        let filler = vec![(0, u32::MAX); BLOCK / MOST_PER_RANGE];
        let per_block = (BLOCK / MOST_PER_RANGE) as u32;
        let wider: Vec<(u32, u32)> = (0..per_block + 5).map(|n| (2 * n, 2 * n)).collect();
        let mut all = JobNodes::default();
        all.push(&filler);
        assert_eq!(all.blocks[0].len(), BLOCK - 12);
        all.push(&[(1, 2), (4, 4)]);
        all.push(&[]);
        all.push(&[(9, 9)]);
        all.push(&wider);
        all.push(&[(3, 3)]);
        let blocks: Vec<u32> = all.ends.iter().map(|e| e.0).collect();
        assert_eq!(blocks, [0, 1, 1, 1, 2, 2]);
        assert_eq!(all.of(0), filler);
        assert_eq!(all.of(1), [(1, 2), (4, 4)]);
        assert!(all.of(2).is_empty());
        assert_eq!(all.of(3), [(9, 9)]);
        assert_eq!(all.of(4), wider);
        assert_eq!(all.of(5), [(3, 3)]);
        assert_eq!(all.iter().len(), 6);
    }

    proptest! {
        /// Every job's ranges come back as pushed, in their order, whatever the node
        /// indexes (the extremes of 32 bits, ranges out of order and overlapping).
        #[test]
        fn ranges_come_back_as_pushed(
            jobs in prop::collection::vec(
                prop::collection::vec(
                    prop_oneof![
                        (0u32..100, 0u32..4).prop_map(|(a, l)| (a, a + l)),
                        (any::<u32>(), any::<u32>()),
                        Just((u32::MAX, u32::MAX)),
                        Just((0, u32::MAX)),
                    ],
                    0..6,
                ),
                0..40,
            ),
        ) {
            let all: JobNodes = jobs.iter().cloned().collect();
            prop_assert_eq!(all.len(), jobs.len());
            for (i, ranges) in jobs.iter().enumerate() {
                prop_assert_eq!(&all.of(i), ranges);
            }
        }
    }
}
