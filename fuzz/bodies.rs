//! What each fuzz target does with one input, shared by the targets (`fuzz_targets/`) and
//! by the stable test that replays the corpus (`crates/sim/tests/fuzz_corpus.rs`), so an
//! input kept in `corpus/<target>/` is checked by every `cargo test`, not only under libFuzzer.
//! Each function returns normally for an input read or refused; a panic is a finding.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};

/// The SWF reader on arbitrary bytes: every record read or an error naming its line,
/// never a panic, never a line held beyond the reader's bound. A trace that reads is then
/// prepared for a run as `mauisim run` prepares it (the header's machine, every job's
/// credentials), which is where a header's machine size once panicked.
pub fn swf(data: &[u8]) {
    let mut reader = mauisim_sim::trace::swf::SwfReader::new(data, PathBuf::from("fuzz.swf"));
    if reader.read_header().is_err() {
        return;
    }
    for record in reader.by_ref() {
        if record.is_err() {
            return;
        }
    }
    let Some(path) = scratch_file("swf", data) else {
        return;
    };
    let _ = mauisim_sim::prepare(&mauisim_sim::RunOptions::new(path));
}

/// `data` in a per-process scratch file (the trace readers take paths: they sniff gzip).
fn scratch_file(extension: &str, data: &[u8]) -> Option<PathBuf> {
    let name = format!("mauisim-fuzz-{}.{extension}", std::process::id());
    let path = std::env::temp_dir().join(name);
    let mut file = std::fs::File::create(&path).ok()?;
    file.write_all(data).ok()?;
    Some(path)
}

/// maui.cfg on arbitrary text: syntax (lines, continuations, quotes, NAME[INDEX], attributes)
/// and meaning (every parameter's value) either read or refused with file:line.
pub fn maui_cfg(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = mauisim_config::parse_str(text, "fuzz.cfg");
    let _ = mauisim_sim::params::from_str(text, "fuzz.cfg");
    // From a file, `#INCLUDE` is followed too (`#INCLUDE /dev/zero` once read without end).
    if let Some(path) = scratch_file("cfg", data) {
        let _ = mauisim_sim::params::from_file(&path);
    }
}

/// Maui's workload trace format (44 fields per line): read or refused with its line.
pub fn maui_trace(data: &[u8]) {
    if let Some(path) = scratch_file("trace", data) {
        let _ = mauisim_sim::trace::maui::read(&path);
    }
}

/// NODECFG PRIORITYF expressions: parsed or refused, and a parsed one evaluates to a number
/// (or NaN/infinity, which the allocator orders) without panicking.
pub fn priorityf(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(f) = mauisim_core::PriorityFn::parse(text) {
        let _ = f.eval(&[1.5; mauisim_core::NodeVar::COUNT]);
    }
}

/// Scenario files (TOML): read and checked, or refused with file:line.
pub fn scenario(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = mauisim_sim::scenario::parse(text, Path::new("fuzz.toml"));
}

const SCENARIO: &str = r#"
title = "fuzz"
[[node]]
name = "a"
procs = 2
[[node]]
name = "b"
procs = 2
[[node]]
name = "c"
procs = 4
[[job]]
name = "R"
procs = 2
limit = "2:00:00"
runtime = "1:00:00"
started = "-0:30:00"
user = "u1"
[[job]]
name = "A"
procs = 4
limit = "1:00:00"
runtime = "0:20:00"
user = "u1"
group = "g1"
[[job]]
name = "B"
procs = 2
limit = "3:00:00"
user = "u2"
group = "g1"
class = "batch"
[[job]]
name = "C"
procs = 8
limit = "0:30:00"
submit = "0:10:00"
user = "u3"
group = "g2"
[[job]]
name = "D"
procs = 1
limit = "0:05:00"
submit = "0:10:00"
user = "u2"
[[job]]
name = "E"
procs = 3
limit = "4:00:00"
runtime = "1:00:00"
submit = "0:15:00"
user = "u3"
class = "batch"
"#;

/// Any config that reads must schedule a small fixed workload without a panic and without
/// breaking an invariant (`--check` is on in scenarios): the policy code on arbitrary
/// parameter combinations.
pub fn config_run(data: &[u8]) {
    let Ok(config) = std::str::from_utf8(data) else {
        return;
    };
    if config.contains("'''") {
        return;
    }
    let text = format!("config = '''\n{config}\n'''\n{SCENARIO}");
    let Ok(scenario) = mauisim_sim::scenario::parse(&text, Path::new("fuzz.toml")) else {
        return;
    };
    if let Err(mauisim_sim::error::SimError::Check(failure)) = mauisim_sim::scenario::run(&scenario)
    {
        panic!("invariant broken: {failure:?}\nconfig:\n{config}");
    }
}
