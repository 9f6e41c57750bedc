//! Whether a real Slurm can be used for the scale-out test (`tests/slurm.rs`): installed
//! already, or installable (root with apt-get, as on Debian CI machines). Where neither holds
//! the test is ignored, so that the result line says it did not run.

use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(slurm_possible)");
    println!("cargo::rerun-if-changed=build.rs");
    let found = |program: &str| {
        Command::new("sh")
            .args(["-c", &format!("command -v {program}")])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.status.success() && o.stdout.trim_ascii() == b"0");
    if found("sbatch") || (root && found("apt-get")) {
        println!("cargo::rustc-cfg=slurm_possible");
    }
}
