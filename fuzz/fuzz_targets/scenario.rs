//! Scenario files (TOML): read and checked, or refused with file:line.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = mauisim_sim::scenario::parse(text, Path::new("fuzz.toml"));
});
