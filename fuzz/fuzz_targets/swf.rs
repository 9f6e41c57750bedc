//! Fuzz target `swf`: see `../bodies.rs` for what it checks.
#![no_main]

#[path = "../bodies.rs"]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| bodies::swf(data));
