//! NODECFG PRIORITYF expressions: parsed or refused, and a parsed one evaluates to a number
//! (or NaN/infinity, which the allocator orders) without panicking.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(f) = mauisim_core::PriorityFn::parse(text) {
        let _ = f.eval(&[1.5; mauisim_core::NodeVar::COUNT]);
    }
});
