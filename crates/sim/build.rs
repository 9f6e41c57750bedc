//! Whether the shared reference data sits beside the checkout (`../shared`, as in CI). The
//! tests that read it are ignored where it does not, so that the result line says they did
//! not run instead of counting them as passed.

use std::path::Path;

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it");
    let shared = Path::new(&manifest).join("../../../shared");
    let traces = shared.join("traces/reference_outputs");
    let cases = shared.join("maui-reference/cases");
    println!("cargo::rustc-check-cfg=cfg(shared_traces)");
    println!("cargo::rustc-check-cfg=cfg(maui_reference)");
    println!("cargo::rerun-if-changed={}", traces.display());
    println!("cargo::rerun-if-changed={}", cases.display());
    if traces.is_dir() {
        println!("cargo::rustc-cfg=shared_traces");
    }
    if cases.is_dir() {
        println!("cargo::rustc-cfg=maui_reference");
    }
}
