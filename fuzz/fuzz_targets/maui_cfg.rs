//! maui.cfg on arbitrary text: syntax (lines, continuations, quotes, NAME[INDEX], attributes)
//! and meaning (every parameter's value) either read or refused with file:line.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = mauisim_config::parse_str(text, "fuzz.cfg");
    let _ = mauisim_sim::params::from_str(text, "fuzz.cfg");
});
