//! Reading files and following `#INCLUDE`.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::entry::build_entry;
use crate::error::{show, ConfigError, Location};
use crate::lexer::{text_of, Lexer, Line, Pos, RawToken};
use crate::Parsed;

/// Deepest allowed `#INCLUDE` nesting (the top file is depth 0).
pub const MAX_INCLUDE_DEPTH: usize = 16;

/// The largest config file read (a site's maui.cfg is kilobytes; `#INCLUDE /dev/zero`
/// must not read without end).
pub const MAX_CONFIG_BYTES: u64 = 16 << 20;

/// The file's bytes, at most [`MAX_CONFIG_BYTES`] of them.
fn read_bounded(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    fs::File::open(path)?
        .take(MAX_CONFIG_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(std::io::Error::other(format!(
            "larger than {MAX_CONFIG_BYTES} bytes: not a config file"
        )));
    }
    Ok(bytes)
}

/// Read and parse a file, following `#INCLUDE <path>` (relative to the including file's
/// directory, quotes optional). Included entries appear where the directive was.
pub fn parse_file(path: &Path) -> Result<Parsed, ConfigError> {
    let mut out = Parsed::default();
    load(path, None, &mut Vec::new(), &mut out)?;
    Ok(out)
}

struct Frame {
    key: PathBuf,
    name: String,
}

fn load(
    path: &Path,
    site: Option<&Location>,
    stack: &mut Vec<Frame>,
    out: &mut Parsed,
) -> Result<(), ConfigError> {
    let name = path.display().to_string();
    let include_err = |message: String| match site {
        Some(location) => ConfigError::Include {
            location: location.clone(),
            message,
        },
        None => ConfigError::Io {
            path: name.clone(),
            source: std::io::Error::other(message),
        },
    };
    // Canonical paths make `a.cfg` and `./sub/../a.cfg` the same file for cycle detection.
    let key = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    if let Some(k) = stack.iter().position(|f| f.key == key) {
        let mut chain: Vec<&str> = stack[k..].iter().map(|f| f.name.as_str()).collect();
        chain.push(&name);
        return Err(include_err(format!(
            "include cycle: {}",
            chain.join(" -> ")
        )));
    }
    if stack.len() > MAX_INCLUDE_DEPTH {
        return Err(include_err(format!(
            "#INCLUDE nested deeper than {MAX_INCLUDE_DEPTH} levels (at `{name}`)"
        )));
    }
    let bytes = match read_bounded(path) {
        Ok(b) => b,
        // Maui 3.3.1 passes over an include it cannot load (MConfig.c `MCfgAdjustBuffer`)
        // and reads on: so does this for a file that is not there or not readable, saying
        // so. Anything else (a device, a file too large) is refused.
        Err(source) => match site {
            Some(location)
                if matches!(
                    source.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied
                ) =>
            {
                out.warnings.push(crate::error::Warning {
                    location: location.clone(),
                    message: format!(
                        "cannot read included file `{name}`: {source}; its lines are not read (Maui 3.3.1 too passes over an include it cannot load)"
                    ),
                });
                return Ok(());
            }
            Some(location) => {
                return Err(ConfigError::Include {
                    location: location.clone(),
                    message: format!("cannot read included file `{name}`: {source}"),
                })
            }
            None => return Err(ConfigError::Io { path: name, source }),
        },
    };
    let file: Arc<str> = Arc::from(name.as_str());
    let text = decode(&bytes, &file)?;
    stack.push(Frame {
        key,
        name: name.clone(),
    });
    let dir = path.parent().unwrap_or(Path::new(""));
    let mut lexer = Lexer::new(&text, Arc::clone(&file));
    while let Some(line) = lexer.next_line(&mut out.warnings)? {
        match line {
            Line::Params { tokens } => {
                out.entries
                    .push(build_entry(tokens, &file, &mut out.warnings)?)
            }
            Line::Include { at, tokens } => {
                let target = include_target(at, &tokens, &file)?;
                load(&dir.join(target), Some(&at.at(&file)), stack, out)?;
            }
        }
    }
    stack.pop();
    Ok(())
}

/// The single file name after `#INCLUDE`.
pub(crate) fn include_target(
    at: Pos,
    tokens: &[RawToken],
    file: &Arc<str>,
) -> Result<String, ConfigError> {
    let err = |pos: Pos, msg: String| ConfigError::Include {
        location: pos.at(file),
        message: msg,
    };
    match tokens {
        [] => Err(err(at, "#INCLUDE needs a file name".into())),
        [one] => {
            let target = text_of(&one.pieces);
            if target.trim().is_empty() {
                Err(err(at, "#INCLUDE needs a file name".into()))
            } else {
                Ok(target)
            }
        }
        [_, second, ..] => Err(err(
            second.pieces[0].pos(),
            format!(
                "#INCLUDE takes one file name; unexpected {} (quote names with spaces)",
                show(&text_of(&second.pieces))
            ),
        )),
    }
}

/// UTF-8 text, or an error at the line and column of the first bad byte.
fn decode(bytes: &[u8], file: &Arc<str>) -> Result<String, ConfigError> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(s.to_string()),
        Err(e) => {
            let good = &bytes[..e.valid_up_to()];
            // The prefix is valid by construction; the fallback only avoids an unwrap.
            let good = std::str::from_utf8(good).unwrap_or("");
            let line = good.matches('\n').count() + 1;
            let line_text = good.rsplit('\n').next().unwrap_or("");
            let line_text = if line == 1 {
                line_text.strip_prefix('\u{FEFF}').unwrap_or(line_text)
            } else {
                line_text
            };
            let column = line_text.chars().count() + 1;
            let byte = bytes[e.valid_up_to()];
            Err(ConfigError::at(
                Location::new(Arc::clone(file), line, column),
                format!("file is not valid UTF-8 (byte 0x{byte:02X} on line {line})"),
            ))
        }
    }
}
