//! Locations, warnings and errors shared by every part of the crate.

use std::fmt;
use std::sync::Arc;

/// Where something is in a config file. Display: `path:line:column` (1-based line and column).
///
/// Columns count Unicode scalar values, not bytes, so they match what an editor shows for
/// non-ASCII text; a tab counts as one column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: Arc<str>,
    pub line: usize,
    pub column: usize,
}

impl Location {
    pub fn new(file: impl Into<Arc<str>>, line: usize, column: usize) -> Self {
        Self {
            file: file.into(),
            line,
            column,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// Something suspicious but usable. Display: `path:line:col: warning: message`.
#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    pub location: Location,
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: warning: {}", self.location, self.message)
    }
}

/// A malformed value, without location: the value parsers do not know where their text came
/// from. Callers attach a [`Location`] with [`ValueError::at`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ValueError(pub String);

impl ValueError {
    /// Turn into a located [`ConfigError::Syntax`].
    pub fn at(self, location: Location) -> ConfigError {
        ConfigError::at(location, self.0)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{location}: {message}")]
    Syntax { location: Location, message: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{location}: {message}")]
    Include { location: Location, message: String },
    /// Every error of one file, in file order (a site fixes them all in one go).
    #[error("{}", list(.0))]
    Several(Vec<ConfigError>),
    /// An error, and the warnings the same file drew, so that one run tells every problem.
    #[error("{error}\n{}", warnings.join("\n"))]
    WithWarnings {
        error: Box<ConfigError>,
        warnings: Vec<String>,
    },
}

fn list(errors: &[ConfigError]) -> String {
    let lines: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    format!(
        "{} errors in the config:\n{}",
        errors.len(),
        lines.join("\n")
    )
}

impl ConfigError {
    /// A [`ConfigError::Syntax`] at `location`.
    pub fn at(location: Location, message: impl Into<String>) -> Self {
        ConfigError::Syntax {
            location,
            message: message.into(),
        }
    }

    /// The location, for every variant except [`ConfigError::Io`] (which names only a path).
    pub fn location(&self) -> Option<&Location> {
        match self {
            ConfigError::Syntax { location, .. } | ConfigError::Include { location, .. } => {
                Some(location)
            }
            ConfigError::Io { .. } => None,
            ConfigError::Several(errors) => errors.first().and_then(|e| e.location()),
            ConfigError::WithWarnings { error, .. } => error.location(),
        }
    }

    /// The error with `warnings` told after it (itself when there are none).
    pub fn with_warnings(self, warnings: Vec<String>) -> ConfigError {
        if warnings.is_empty() {
            return self;
        }
        ConfigError::WithWarnings {
            error: Box::new(self),
            warnings,
        }
    }

    /// Every error as its own line, in file order, for telling them with problems found
    /// later (binding the config to a machine's nodes). Warnings attached are left out: the
    /// caller tells a file's warnings once.
    pub fn into_lines(self) -> Vec<String> {
        match self {
            ConfigError::Several(errors) => errors.into_iter().flat_map(Self::into_lines).collect(),
            ConfigError::WithWarnings { error, .. } => error.into_lines(),
            one => vec![one.to_string()],
        }
    }

    /// One error as itself, several as [`ConfigError::Several`]; `None` for none.
    pub fn all(mut errors: Vec<ConfigError>) -> Option<ConfigError> {
        match errors.len() {
            0 => None,
            1 => errors.pop(),
            _ => Some(ConfigError::Several(errors)),
        }
    }
}

/// Quote user text in a message, shortened so that a megabyte of garbage cannot produce a
/// megabyte-long diagnostic.
pub(crate) fn show(text: &str) -> String {
    const MAX_CHARS: usize = 40;
    match text.char_indices().nth(MAX_CHARS) {
        Some((cut, _)) => format!("`{}…`", &text[..cut]),
        None => format!("`{text}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn location_and_warning_display() {
        let loc = Location::new("maui.cfg", 3, 14);
        assert_eq!(loc.to_string(), "maui.cfg:3:14");
        let w = Warning {
            location: loc.clone(),
            message: "unknown parameter".into(),
        };
        assert_eq!(w.to_string(), "maui.cfg:3:14: warning: unknown parameter");
        let e = ConfigError::at(loc.clone(), "bad");
        assert_eq!(e.to_string(), "maui.cfg:3:14: bad");
        assert_eq!(e.location(), Some(&loc));
        assert_eq!(
            ValueError("nope".into()).at(loc.clone()).to_string(),
            "maui.cfg:3:14: nope"
        );
    }

    #[test]
    fn lines_flatten_nested_errors_without_their_warnings() {
        let at = |line| Location::new("maui.cfg", line, 1);
        let e = ConfigError::Several(vec![
            ConfigError::at(at(1), "first"),
            ConfigError::at(at(4), "second").with_warnings(vec!["inner".into()]),
        ])
        .with_warnings(vec!["outer".into()]);
        assert_eq!(
            e.into_lines(),
            ["maui.cfg:1:1: first", "maui.cfg:4:1: second"]
        );
    }

    #[test]
    fn io_error_display_names_path() {
        let e = ConfigError::Io {
            path: "x.cfg".into(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "gone"),
        };
        assert_eq!(e.to_string(), "x.cfg: gone");
        assert!(e.location().is_none());
        assert!(std::error::Error::source(&e).is_some());
    }

    #[test]
    fn show_truncates_long_text() {
        assert_eq!(show("abc"), "`abc`");
        let long = "é".repeat(100);
        assert_eq!(show(&long), format!("`{}…`", "é".repeat(40)));
    }
}
