//! The SWF reader on arbitrary bytes: every record read or an error naming its line,
//! never a panic, never a line held beyond the reader's bound.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;

fuzz_target!(|data: &[u8]| {
    let mut reader = mauisim_sim::trace::swf::SwfReader::new(data, PathBuf::from("fuzz.swf"));
    if reader.read_header().is_err() {
        return;
    }
    for record in reader.by_ref() {
        if record.is_err() {
            return;
        }
    }
});
