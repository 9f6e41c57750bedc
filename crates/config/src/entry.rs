//! Entries (`NAME[INDEX] VALUE…`) and attributes (`KEY[SUB]=VAL`) built from raw tokens.

use std::sync::Arc;

use crate::error::{show, ConfigError, Location, Warning};
use crate::lexer::{text_of, Piece, Pos, RawToken};

/// One logical configuration line (after joining `\` continuations and stripping comments).
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Parameter name, ASCII-uppercased: `RESERVATIONDEPTH`, `USERCFG`.
    pub name: String,
    /// Text inside `[..]` right after the name, case preserved, trimmed: `1`, `steve`, `DEFAULT`.
    pub index: Option<String>,
    /// Remaining whitespace-separated tokens, quotes removed.
    pub values: Vec<Token>,
    /// Position of the name.
    pub location: Location,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub text: String,
    /// Where the token starts in the source (its opening quote, if it starts with one).
    pub location: Location,
}

/// `KEY=VAL` or `KEY[SUB]=VAL` attribute of a credential line such as `USERCFG[steve] MAXJOB=2,4`.
#[derive(Debug, Clone, PartialEq)]
pub struct Attr {
    /// Uppercased.
    pub name: String,
    /// Case preserved, trimmed: `USER`, `USER:steve`.
    pub index: Option<String>,
    pub value: String,
    /// Location of the token the attribute came from.
    pub location: Location,
}

impl Entry {
    /// Parse every value token as an attribute.
    ///
    /// `KEY=` and `KEY=''` both give an empty value.
    pub fn attrs(&self) -> Result<Vec<Attr>, ConfigError> {
        self.values.iter().map(parse_attr).collect()
    }

    /// The attributes as Maui 3.3.1 reads an object line (MCred.c `MCredProcessConfig`,
    /// `MUGetPair`): every value token an attribute, but a bare word (no `=`, no `[`), which
    /// 3.3.1 passes over; those words come back apart. `QLIST=high low` is `QLIST=high`.
    pub fn attrs_skipping_words(&self) -> Result<(Vec<Attr>, Vec<&Token>), ConfigError> {
        let mut attrs = Vec::new();
        let mut words = Vec::new();
        for token in &self.values {
            let text = token.text.as_str();
            if !text.is_empty() && text.chars().all(is_name_char) {
                words.push(token);
            } else {
                attrs.push(parse_attr(token)?);
            }
        }
        Ok((attrs, words))
    }

    /// The values joined by single spaces (for plain parameters), e.g. `FIRSTFIT`.
    pub fn value_text(&self) -> String {
        let texts: Vec<&str> = self.values.iter().map(|t| t.text.as_str()).collect();
        texts.join(" ")
    }
}

pub(crate) fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

fn parse_attr(token: &Token) -> Result<Attr, ConfigError> {
    let s = token.text.as_str();
    let err = |msg: String| ConfigError::at(token.location.clone(), msg);
    let key_end = s.find(|c| !is_name_char(c)).unwrap_or(s.len());
    let key = &s[..key_end];
    if key.is_empty() {
        return Err(err(format!(
            "expected an attribute `KEY=VALUE`, found {}",
            show(s)
        )));
    }
    let mut rest = &s[key_end..];
    let mut index = None;
    if let Some(after) = rest.strip_prefix('[') {
        let Some(close) = after.find(']') else {
            return Err(err(format!("unterminated `[` in attribute {}", show(s))));
        };
        let sub = after[..close].trim();
        if sub.is_empty() {
            return Err(err(format!("empty index `[]` in attribute {}", show(s))));
        }
        if sub.contains('[') {
            return Err(err(format!("unexpected `[` inside index of {}", show(s))));
        }
        index = Some(sub.to_string());
        rest = &after[close + 1..];
    }
    let Some(value) = rest.strip_prefix('=') else {
        return Err(err(format!(
            "expected `=` after attribute name `{}` in {} (attributes are KEY=VALUE)",
            key.to_ascii_uppercase(),
            show(s)
        )));
    };
    Ok(Attr {
        name: key.to_ascii_uppercase(),
        index,
        value: value.to_string(),
        location: token.location.clone(),
    })
}

/// Build an entry from the raw tokens of one logical line (at least one token).
pub(crate) fn build_entry(
    tokens: Vec<RawToken>,
    file: &Arc<str>,
    warnings: &mut Vec<Warning>,
) -> Result<Entry, ConfigError> {
    let mut tokens = tokens.into_iter();
    let Some(first) = tokens.next() else {
        return Err(ConfigError::at(
            Location::new(Arc::clone(file), 1, 1),
            "internal: empty logical line",
        ));
    };
    let p = &first.pieces;
    let start = p[0].pos();
    let err = |pos: Pos, msg: String| ConfigError::at(pos.at(file), msg);

    let name_len = p
        .iter()
        .take_while(|piece| piece.bare().is_some_and(is_name_char))
        .count();
    if name_len == 0 {
        return Err(err(
            start,
            format!("expected a parameter name, found {}", show(&text_of(p))),
        ));
    }
    let name: String = text_of(&p[..name_len]).to_ascii_uppercase();
    let mut i = name_len;

    let mut index = None;
    if p.get(i).and_then(Piece::bare) == Some('[') {
        let open = p[i].pos();
        let mut j = i + 1;
        loop {
            match p.get(j) {
                None => {
                    return Err(err(open, format!("unterminated `[` after `{name}`")));
                }
                Some(piece) => match piece.bare() {
                    Some(']') => break,
                    Some('[') => {
                        return Err(err(
                            piece.pos(),
                            format!("unexpected `[` inside the index of `{name}`"),
                        ));
                    }
                    _ => j += 1,
                },
            }
        }
        let text = text_of(&p[i + 1..j]);
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(err(open, format!("empty index `[]` after `{name}`")));
        }
        index = Some(trimmed.to_string());
        i = j + 1;
    }

    let mut values = Vec::new();
    let mut had_eq = false;
    if let Some(piece) = p.get(i) {
        if piece.bare() != Some('=') {
            let what = match *piece {
                Piece::Char { c, .. } => format!("`{c}`"),
                Piece::Quote { q, .. } => format!("quote `{q}`"),
            };
            let shown = match &index {
                Some(ix) => format!("{name}[{ix}]"),
                None => name.clone(),
            };
            return Err(err(
                piece.pos(),
                format!("unexpected {what} after parameter name `{shown}`"),
            ));
        }
        had_eq = true;
        let rest = &p[i + 1..];
        if !rest.is_empty() {
            values.push(value_token(rest, file)?);
        }
    }

    for (k, tok) in tokens.enumerate() {
        let mut pieces = tok.pieces.as_slice();
        // `NAME = VALUE` and `NAME =VALUE`: one `=` between name and first value is a space.
        if k == 0 && !had_eq && pieces[0].bare() == Some('=') {
            pieces = &pieces[1..];
            if pieces.is_empty() {
                continue;
            }
        }
        values.push(value_token(pieces, file)?);
    }

    // Maui's own name for none: its NONE macro is `[NONE]`, the spelling its keyword
    // tables hold and `showconfig` prints, so a config pasted from that output has it.
    for v in &mut values {
        if v.text == "[NONE]" {
            v.text = "NONE".into();
        }
    }
    if let Some(v) = values.first() {
        if index.is_none() && !had_eq && v.text.starts_with('[') {
            warnings.push(Warning {
                location: v.location.clone(),
                message: format!(
                    "{} is a value, not an index; write `{name}[...]` without a space",
                    show(&v.text)
                ),
            });
        }
    }

    Ok(Entry {
        name,
        index,
        values,
        location: start.at(file),
    })
}

/// A value token. `KEY=` is an empty value, as Maui reads it (configuration templates
/// write `PLIST=` when a site sets nothing); whoever reads the attribute decides whether
/// empty makes sense. A lone `=` is a stray one.
fn value_token(pieces: &[Piece], file: &Arc<str>) -> Result<Token, ConfigError> {
    let text = text_of(pieces);
    if let [only] = pieces {
        if only.bare() == Some('=') {
            return Err(ConfigError::at(
                only.pos().at(file),
                "stray `=`: write attributes as KEY=VALUE without spaces around `=`",
            ));
        }
    }
    Ok(Token {
        text,
        location: pieces[0].pos().at(file),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tok(text: &str, col: usize) -> Token {
        Token {
            text: text.into(),
            location: Location::new("t", 1, col),
        }
    }

    fn attr_err(text: &str) -> String {
        parse_attr(&tok(text, 7)).unwrap_err().to_string()
    }

    #[test]
    fn attr_forms() {
        let a = parse_attr(&tok("maxProc[ USER:steve ]=3", 5)).unwrap();
        assert_eq!(
            a,
            Attr {
                name: "MAXPROC".into(),
                index: Some("USER:steve".into()),
                value: "3".into(),
                location: Location::new("t", 1, 5),
            }
        );
        let a = parse_attr(&tok("default.wclimit=1:00:00", 1)).unwrap();
        assert_eq!(
            (a.name.as_str(), a.value.as_str()),
            ("DEFAULT.WCLIMIT", "1:00:00")
        );
        let a = parse_attr(&tok("F=a=b", 1)).unwrap();
        assert_eq!((a.name.as_str(), a.value.as_str()), ("F", "a=b"));
        let a = parse_attr(&tok("F=", 1)).unwrap();
        assert_eq!(a.value, "");
    }

    #[test]
    fn attr_errors_are_located_at_the_token() {
        assert_eq!(
            attr_err("MAXJOB"),
            "t:1:7: expected `=` after attribute name `MAXJOB` in `MAXJOB` (attributes are KEY=VALUE)"
        );
        assert_eq!(
            attr_err("=5"),
            "t:1:7: expected an attribute `KEY=VALUE`, found `=5`"
        );
        assert_eq!(
            attr_err(""),
            "t:1:7: expected an attribute `KEY=VALUE`, found ``"
        );
        assert_eq!(
            attr_err("A[x=1"),
            "t:1:7: unterminated `[` in attribute `A[x=1`"
        );
        assert_eq!(
            attr_err("A[ ]=1"),
            "t:1:7: empty index `[]` in attribute `A[ ]=1`"
        );
        assert_eq!(
            attr_err("A[[x]=1"),
            "t:1:7: unexpected `[` inside index of `A[[x]=1`"
        );
        assert_eq!(
            attr_err("A[x]y=1"),
            "t:1:7: expected `=` after attribute name `A` in `A[x]y=1` (attributes are KEY=VALUE)"
        );
    }

    #[test]
    fn value_text_joins_with_single_spaces() {
        let e = Entry {
            name: "X".into(),
            index: None,
            values: vec![tok("a", 3), tok("b c", 5)],
            location: Location::new("t", 1, 1),
        };
        assert_eq!(e.value_text(), "a b c");
        let empty = Entry {
            values: vec![],
            ..e
        };
        assert_eq!(empty.value_text(), "");
    }
}
