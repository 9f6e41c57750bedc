//! The bundled font (DejaVu Sans, see `fonts/LICENSE-DejaVu.txt`): PNG text needs no
//! system font library, and text is measured the same way on every machine.

use plotters::style::FontStyle;
use std::sync::Once;

const DEJAVU_SANS: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");

/// Makes the font plotters' `sans-serif`; once per process, before any drawing.
pub fn register() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for style in [FontStyle::Normal, FontStyle::Bold] {
            // The bytes are a valid TrueType file, checked by the tests; a failure here
            // would only leave plotters without a font, reported when it draws text.
            let _ = plotters::style::register_font("sans-serif", style, DEJAVU_SANS);
        }
    });
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_bundled_font_parses() {
        assert!(plotters::style::register_font(
            "test-font",
            plotters::style::FontStyle::Normal,
            super::DEJAVU_SANS
        )
        .is_ok());
    }
}
