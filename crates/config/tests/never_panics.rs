//! Property: `parse_str` never panics and always reports a location inside the input.

use mauisim_config::parse_str;
use proptest::prelude::*;

fn check(text: &str) {
    let lines = text.split('\n').count();
    match parse_str(text, "p.cfg") {
        Ok(parsed) => {
            for e in &parsed.entries {
                assert!(e.location.line >= 1 && e.location.line <= lines);
                assert!(e.location.column >= 1);
                let _ = e.attrs();
                let _ = e.value_text();
            }
        }
        Err(e) => {
            let loc = e.location().expect("parse_str errors are located");
            assert!(
                loc.line >= 1 && loc.line <= lines + 1,
                "{e} (input has {lines} lines)"
            );
            assert!(loc.column >= 1, "{e}");
            assert_eq!(&*loc.file, "p.cfg");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_strings(text in any::<String>()) {
        check(&text);
    }

    /// Biased towards the characters the lexer cares about, so the interesting paths run.
    #[test]
    fn syntax_heavy_strings(text in "[A-Za-z0-9_.\\[\\]=#'\" \t\\\\\r\n:,-]{0,80}") {
        check(&text);
    }
}
