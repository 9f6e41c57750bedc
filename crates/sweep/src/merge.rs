//! `sweep merge`: the shards of one sweep, run anywhere, joined into the result set the
//! unsharded sweep would have written.

use crate::error::{Result, SweepError};
use crate::plan::Manifest;
use crate::results;
use crate::store::{self, Store, Stored};
use std::path::Path;

/// Joins the shard directories `shards` into `out`.
pub fn merge(out: &Path, shards: &[&Path]) -> Result<usize> {
    let mut manifests: Vec<(Manifest, &Path)> = Vec::new();
    for &dir in shards {
        let manifest = store::read_manifest(dir)?.ok_or_else(|| {
            SweepError::Usage(format!(
                "{} is not a sweep directory (no {})",
                dir.display(),
                store::MANIFEST
            ))
        })?;
        manifests.push((manifest, dir));
    }
    let Some((first, first_dir)) = manifests.first().cloned() else {
        return Err(SweepError::Usage(
            "sweep merge: no shard directories given".into(),
        ));
    };
    let Some([_, n]) = first.shard else {
        return Err(SweepError::Usage(format!(
            "{} holds a whole sweep, not a shard",
            first_dir.display()
        )));
    };
    let mut seen = vec![None::<&Path>; n];
    for (manifest, dir) in &manifests {
        if !manifest.same_sweep(&first) {
            return Err(SweepError::Usage(format!(
                "{} and {} are shards of different sweeps (not the same: {}); nothing was written",
                first_dir.display(),
                dir.display(),
                manifest.difference(&first)
            )));
        }
        match manifest.shard {
            Some([k, m]) if m == n && (1..=n).contains(&k) => {
                if let Some(other) = seen[k - 1] {
                    return Err(SweepError::Usage(format!(
                        "{} and {} both hold shard {k}/{n}",
                        other.display(),
                        dir.display()
                    )));
                }
                seen[k - 1] = Some(dir);
            }
            Some([k, m]) => {
                return Err(SweepError::Usage(format!(
                    "{} holds shard {k}/{m}, but {} is of {n} shards",
                    dir.display(),
                    first_dir.display()
                )))
            }
            None => {
                return Err(SweepError::Usage(format!(
                    "{} holds a whole sweep, not a shard",
                    dir.display()
                )))
            }
        }
    }
    let missing: Vec<String> = (1..=n)
        .filter(|k| seen[k - 1].is_none())
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        return Err(SweepError::Usage(format!(
            "shards {} are missing; nothing was written",
            missing.join(", ")
        )));
    }
    let grid = &first.grid;
    // Every run of every shard must be there before anything is written.
    let mut results = Vec::with_capacity(grid.len());
    for (k, dir) in seen.iter().enumerate() {
        let dir = dir.expect("every shard was seen");
        let shard_store = Store::new(dir, grid.len());
        for index in grid.shard(k + 1, n) {
            match shard_store.read(index)? {
                Stored::Ok(text) => results.push((index, Ok(text))),
                Stored::Failed(message) => results.push((index, Err(message))),
                Stored::Missing => {
                    return Err(SweepError::Usage(format!(
                        "shard {}/{n} in {} has not finished (run {index} has no result): run its \
                         command again to complete it; nothing was written",
                        k + 1,
                        dir.display()
                    )))
                }
            }
        }
    }
    let mut whole = first.clone();
    whole.shard = None;
    let out_store = Store::open(out, &whole)?;
    for (index, result) in &results {
        out_store.write(*index, result)?;
    }
    let indexes: Vec<usize> = (0..grid.len()).collect();
    let rows = results::collect(grid, &out_store, &indexes)?;
    results::write(grid, &out_store, &rows)?;
    Ok(grid.len())
}
