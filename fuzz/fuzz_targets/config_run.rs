//! Any config that reads must schedule a small fixed workload without a panic and without
//! breaking an invariant (`--check` is on in scenarios): the policy code on arbitrary
//! parameter combinations.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::Path;

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

fuzz_target!(|data: &[u8]| {
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
    if let Err(mauisim_sim::error::SimError::Check(failure)) = mauisim_sim::scenario::run(&scenario) {
        panic!("invariant broken: {failure:?}\nconfig:\n{config}");
    }
});
