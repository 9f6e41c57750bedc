//! Every kept fuzz input (`fuzz/seeds/<target>/`, among them each input that once made
//! mauisim panic or read without end) replayed through the fuzz targets' own bodies, so a
//! regression shows in every `cargo test`, without nightly Rust or libFuzzer.

#[path = "../../../fuzz/bodies.rs"]
mod bodies;

use std::path::{Path, PathBuf};

fn seeds(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/seeds")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{}: no seeds", dir.display());
    files
}

fn replay(target: &str, body: fn(&[u8])) {
    for path in seeds(target) {
        let data = std::fs::read(&path).unwrap();
        // A panic names the input, so the failing seed is known from the test's output.
        eprintln!("{target}: {}", path.display());
        body(&data);
    }
}

#[test]
fn swf_seeds() {
    replay("swf", bodies::swf);
}

#[test]
fn maui_cfg_seeds() {
    replay("maui_cfg", bodies::maui_cfg);
}

#[test]
fn maui_trace_seeds() {
    replay("maui_trace", bodies::maui_trace);
}

#[test]
fn priorityf_seeds() {
    replay("priorityf", bodies::priorityf);
}

#[test]
fn scenario_seeds() {
    replay("scenario", bodies::scenario);
}

#[test]
fn config_run_seeds() {
    replay("config_run", bodies::config_run);
}
