//! The sweep's Slurm job-array script on a real Slurm (issue 26): `scripts/slurm-local.sh
//! check` installs Debian's slurm-wlm and munge where they are missing, starts a one-node
//! cluster on localhost, runs a sweep as three array tasks and a merge job, compares the
//! merged results with the same sweep on one machine byte for byte, and stops the cluster.

use std::path::Path;
use std::process::Command;

#[test]
#[cfg_attr(
    not(slurm_possible),
    ignore = "Slurm is not installed and cannot be installed here (needs root and apt-get)"
)]
fn a_sweep_sharded_on_a_real_slurm_merges_to_one_machines_results() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = tempfile::tempdir().unwrap();
    let run = Command::new(repo.join("scripts/slurm-local.sh"))
        .arg("check")
        .arg(dir.path().join("slurm"))
        .env("MAUISIM", env!("CARGO_BIN_EXE_mauisim"))
        .current_dir(&repo)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    let verdict = stdout.lines().last().unwrap_or("");
    assert!(
        run.status.success() && verdict.starts_with("slurm check: PASS"),
        "{verdict}\n{stderr}"
    );
}
