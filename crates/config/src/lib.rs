//! The syntax layer for Maui Scheduler configuration files (`maui.cfg`).
//!
//! This crate turns config text into located [`Entry`]s (`NAME[INDEX] VALUE…`, with
//! `#` comments, `\` continuations, quotes and `#INCLUDE`), splits credential lines into
//! [`Attr`]s (`KEY[SUB]=VAL`), and parses the value forms Maui uses (durations, soft/hard limit
//! pairs, numbers, booleans). Every problem is reported with `file:line:column`; no input
//! makes it panic.
//!
//! It is *not* the meaning of the parameters: it does not know which names exist, what their
//! defaults are, or which value type each takes. That lives in `mauisim-sim`, which uses
//! [`closest`] to suggest a known name for an unknown one and the value parsers here to read
//! values.

mod entry;
mod error;
mod include;
mod lexer;
mod suggest;
mod value;

use std::sync::Arc;

pub use entry::{Attr, Entry, Token};
pub use error::{ConfigError, Location, ValueError, Warning};
pub use include::{parse_file, MAX_CONFIG_BYTES, MAX_INCLUDE_DEPTH};
pub use lexer::MAX_LINE_BYTES;
pub use suggest::closest;
pub use value::{parse_bool, parse_duration, parse_float, parse_int, parse_limit_pair, Duration};

/// The entries of a config file (includes spliced in place) and syntax-level warnings.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Parsed {
    pub entries: Vec<Entry>,
    pub warnings: Vec<Warning>,
}

/// Parse config text. `file` is the name used in locations.
///
/// `#INCLUDE` lines are an error here: there is no file system to resolve them against.
pub fn parse_str(text: &str, file: &str) -> Result<Parsed, ConfigError> {
    let file: Arc<str> = Arc::from(file);
    let mut out = Parsed::default();
    let mut lexer = lexer::Lexer::new(text, Arc::clone(&file));
    while let Some(line) = lexer.next_line(&mut out.warnings)? {
        match line {
            lexer::Line::Params { tokens } => {
                out.entries
                    .push(entry::build_entry(tokens, &file, &mut out.warnings)?)
            }
            lexer::Line::Include { at, .. } => {
                return Err(ConfigError::Include {
                    location: at.at(&file),
                    message: "#INCLUDE is not supported when parsing a string (no file system); \
                              use parse_file"
                        .into(),
                })
            }
        }
    }
    Ok(out)
}
