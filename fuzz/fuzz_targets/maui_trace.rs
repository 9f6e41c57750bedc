//! Maui's workload trace format (44 fields per line): read or refused with its line.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    // The reader takes a path (it sniffs gzip); a per-process scratch file.
    let path = std::env::temp_dir().join(format!("mauisim-fuzz-{}.trace", std::process::id()));
    let Ok(mut file) = std::fs::File::create(&path) else {
        return;
    };
    if file.write_all(data).is_err() {
        return;
    }
    drop(file);
    let _ = mauisim_sim::trace::maui::read(&path);
});
