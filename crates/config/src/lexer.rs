//! Physical lines to logical lines: BOM and CRLF, `\` continuations, `#` comments, quotes,
//! `#INCLUDE` directives, and splitting into raw tokens that remember where every character was.

use std::sync::Arc;

use crate::error::{ConfigError, Location, Warning};

/// Longest logical line accepted, in bytes of source text (continuations included).
pub const MAX_LINE_BYTES: usize = 1 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pos {
    pub line: usize,
    pub col: usize,
}

impl Pos {
    pub fn at(self, file: &Arc<str>) -> Location {
        Location {
            file: Arc::clone(file),
            line: self.line,
            column: self.col,
        }
    }
}

/// One character of a token, or a quote mark. Quote marks are kept (not just dropped) because
/// `KEY=''` must stay distinguishable from `KEY=` after the quotes are gone.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Piece {
    Char { c: char, pos: Pos, quoted: bool },
    Quote { q: char, pos: Pos },
}

impl Piece {
    pub fn pos(&self) -> Pos {
        match *self {
            Piece::Char { pos, .. } | Piece::Quote { pos, .. } => pos,
        }
    }

    /// The character if it is syntax (not inside quotes and not a quote mark).
    pub fn bare(&self) -> Option<char> {
        match *self {
            Piece::Char {
                c, quoted: false, ..
            } => Some(c),
            _ => None,
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct RawToken {
    pub pieces: Vec<Piece>,
}

/// Text with quote marks removed.
pub(crate) fn text_of(pieces: &[Piece]) -> String {
    pieces
        .iter()
        .filter_map(|p| match *p {
            Piece::Char { c, .. } => Some(c),
            Piece::Quote { .. } => None,
        })
        .collect()
}

pub(crate) enum Line {
    Params { tokens: Vec<RawToken> },
    Include { at: Pos, tokens: Vec<RawToken> },
}

struct Pending {
    start: Pos,
    bytes: usize,
    chars: Vec<(char, Pos)>,
    quote: Option<(char, Pos)>,
    include: Option<Pos>,
    last_backslash: Pos,
}

pub(crate) struct Lexer<'a> {
    file: Arc<str>,
    lines: std::iter::Enumerate<std::str::Split<'a, char>>,
}

impl<'a> Lexer<'a> {
    pub fn new(text: &'a str, file: Arc<str>) -> Self {
        let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
        Self {
            file,
            lines: text.split('\n').enumerate(),
        }
    }

    /// The next non-empty logical line, or `None` at end of input.
    pub fn next_line(&mut self, warnings: &mut Vec<Warning>) -> Result<Option<Line>, ConfigError> {
        let mut pending: Option<Pending> = None;
        loop {
            let Some((idx, raw)) = self.lines.next() else {
                let Some(p) = pending else {
                    return Ok(None);
                };
                warnings.push(Warning {
                    location: p.last_backslash.at(&self.file),
                    message: "line continuation `\\` at end of file".into(),
                });
                return self.finish(p);
            };
            let line = idx + 1;
            let raw = raw.strip_suffix('\r').unwrap_or(raw);
            let so_far = pending.as_ref().map_or(0, |p| p.bytes);
            if so_far.saturating_add(raw.len()) > MAX_LINE_BYTES {
                // Checked before scanning so a gigantic line costs nothing.
                let start = pending.as_ref().map_or(Pos { line, col: 1 }, |p| p.start);
                return Err(ConfigError::at(
                    start.at(&self.file),
                    format!("logical line is longer than {MAX_LINE_BYTES} bytes (1 MiB)"),
                ));
            }
            let continues = match pending.as_mut() {
                Some(p) => {
                    p.bytes += raw.len();
                    scan(p, raw, line, 1)
                }
                None => {
                    if raw.trim().is_empty() {
                        continue;
                    }
                    let (p, continues) = start_line(raw, line);
                    pending = Some(p);
                    continues
                }
            };
            if !continues {
                if let Some(p) = pending.take() {
                    if let Some(done) = self.finish(p)? {
                        return Ok(Some(done));
                    }
                }
            }
        }
    }

    fn finish(&self, p: Pending) -> Result<Option<Line>, ConfigError> {
        if let Some((q, pos)) = p.quote {
            return Err(ConfigError::at(
                pos.at(&self.file),
                format!("unterminated quote `{q}`"),
            ));
        }
        let tokens = tokenize(&p.chars, p.include.is_none());
        Ok(match p.include {
            Some(at) => Some(Line::Include { at, tokens }),
            None if tokens.is_empty() => None,
            None => Some(Line::Params { tokens }),
        })
    }
}

/// Begin a logical line; recognises `#INCLUDE`, which only counts at the start of one.
fn start_line(raw: &str, line: usize) -> (Pending, bool) {
    let trimmed = raw.trim_start();
    let lead = raw[..raw.len() - trimmed.len()].chars().count();
    let directive = trimmed
        .get(..8)
        .is_some_and(|d| d.eq_ignore_ascii_case("#INCLUDE"))
        && match trimmed[8..].chars().next() {
            None => true,
            Some(c) => c.is_whitespace(),
        };
    let mut p = Pending {
        start: Pos { line, col: 1 },
        bytes: raw.len(),
        chars: Vec::new(),
        quote: None,
        include: None,
        last_backslash: Pos { line, col: 1 },
    };
    let continues = if directive {
        p.include = Some(Pos {
            line,
            col: lead + 1,
        });
        scan(&mut p, &trimmed[8..], line, lead + 9)
    } else {
        scan(&mut p, raw, line, 1)
    };
    (p, continues)
}

/// Append one physical line's content (comment removed); returns whether it continues.
fn scan(p: &mut Pending, seg: &str, line: usize, first_col: usize) -> bool {
    let line_start = p.chars.len();
    for (i, c) in seg.chars().enumerate() {
        let pos = Pos {
            line,
            col: first_col + i,
        };
        match p.quote {
            Some((q, _)) => {
                if c == q {
                    p.quote = None;
                }
            }
            None => {
                if c == '#' {
                    break;
                }
                if c == '\'' || c == '"' {
                    p.quote = Some((c, pos));
                }
            }
        }
        p.chars.push((c, pos));
    }
    let last = p.chars[line_start..]
        .iter()
        .rposition(|(c, _)| !c.is_whitespace());
    if let Some(k) = last.map(|k| line_start + k) {
        let (c, pos) = p.chars[k];
        if c == '\\' {
            // The joint acts as whitespace so `A=1 \` + `B=2` stays two tokens.
            p.chars.truncate(k);
            p.chars.push((' ', pos));
            p.last_backslash = pos;
            return true;
        }
    }
    false
}

/// Split on unquoted whitespace. In the first token (the parameter name) whitespace inside
/// `[...]` does not split, so `USERCFG[ steve ]` is one name with a trimmed index.
fn tokenize(chars: &[(char, Pos)], group_first_bracket: bool) -> Vec<RawToken> {
    let mut tokens = Vec::new();
    let mut cur: Option<RawToken> = None;
    let mut quote: Option<char> = None;
    let mut in_bracket = false;
    for &(c, pos) in chars {
        if let Some(q) = quote {
            let tok = cur.get_or_insert_with(|| RawToken { pieces: Vec::new() });
            if c == q {
                quote = None;
                tok.pieces.push(Piece::Quote { q, pos });
            } else {
                tok.pieces.push(Piece::Char {
                    c,
                    pos,
                    quoted: true,
                });
            }
            continue;
        }
        if c.is_whitespace() && !in_bracket {
            if let Some(t) = cur.take() {
                tokens.push(t);
            }
            continue;
        }
        let tok = cur.get_or_insert_with(|| RawToken { pieces: Vec::new() });
        if c == '\'' || c == '"' {
            quote = Some(c);
            tok.pieces.push(Piece::Quote { q: c, pos });
            continue;
        }
        if group_first_bracket && tokens.is_empty() {
            match c {
                '[' => in_bracket = true,
                ']' => in_bracket = false,
                _ => {}
            }
        }
        tok.pieces.push(Piece::Char {
            c,
            pos,
            quoted: false,
        });
    }
    tokens.extend(cur);
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Result<(Vec<Vec<String>>, Vec<Warning>), ConfigError> {
        let mut lx = Lexer::new(text, Arc::from("t.cfg"));
        let mut warnings = Vec::new();
        let mut out = Vec::new();
        while let Some(line) = lx.next_line(&mut warnings)? {
            match line {
                Line::Params { tokens } => {
                    out.push(tokens.iter().map(|t| text_of(&t.pieces)).collect())
                }
                Line::Include { tokens, .. } => {
                    let mut v = vec!["#INCLUDE".to_string()];
                    v.extend(tokens.iter().map(|t| text_of(&t.pieces)));
                    out.push(v);
                }
            }
        }
        Ok((out, warnings))
    }

    fn toks(text: &str) -> Vec<Vec<String>> {
        lines(text).unwrap().0
    }

    #[test]
    fn comments_blank_lines_and_whitespace() {
        assert_eq!(
            toks("# header\n\n  A 1\t2 # trailing\n\t\n#B 3\nC#x\n"),
            vec![vec!["A", "1", "2"], vec!["C"]]
        );
    }

    #[test]
    fn hash_inside_quotes_is_text() {
        assert_eq!(toks("A '#1' \"x # y\"\n"), vec![vec!["A", "#1", "x # y"]]);
    }

    #[test]
    fn quotes_join_one_token_and_nest_the_other_kind() {
        assert_eq!(
            toks("N PRIORITYF='SPEED + .01 * AMEM' X=\"it's\" ''\n"),
            vec![vec!["N", "PRIORITYF=SPEED + .01 * AMEM", "X=it's", ""]]
        );
    }

    #[test]
    fn continuation_joins_with_a_space() {
        assert_eq!(
            toks("A 1 \\\n  2\\  \n3\nB"),
            vec![vec!["A", "1", "2", "3"], vec!["B"]]
        );
    }

    #[test]
    fn continuation_inside_quotes_keeps_the_quote_open() {
        assert_eq!(toks("A 'x \\\ny'\n"), vec![vec!["A", "x  y"]]);
    }

    #[test]
    fn backslash_in_comment_does_not_continue() {
        assert_eq!(
            toks("A 1 # C:\\\nB 2\n"),
            vec![vec!["A", "1"], vec!["B", "2"]]
        );
    }

    #[test]
    fn comment_line_ends_a_continuation() {
        assert_eq!(toks("A 1 \\\n# note\nB\n"), vec![vec!["A", "1"], vec!["B"]]);
    }

    #[test]
    fn continuation_at_end_of_file_warns() {
        let (l, w) = lines("A 1 \\").unwrap();
        assert_eq!(l, vec![vec!["A", "1"]]);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].location, Location::new("t.cfg", 1, 5));
        assert_eq!(w[0].message, "line continuation `\\` at end of file");
    }

    #[test]
    fn crlf_and_bom() {
        assert_eq!(
            toks("\u{FEFF}A 1\r\nB 2\r\n"),
            vec![vec!["A", "1"], vec!["B", "2"]]
        );
    }

    #[test]
    fn bracket_groups_whitespace_only_in_the_name() {
        assert_eq!(
            toks("USERCFG[ steve ] MAXJOB[ a ]=1\n"),
            vec![vec!["USERCFG[ steve ]", "MAXJOB[", "a", "]=1"]]
        );
    }

    #[test]
    fn include_directive_is_case_insensitive_and_needs_a_word_break() {
        assert_eq!(
            toks("  #include a.cfg\n#INCLUDEx b\n#INCLUDE\t'c d.cfg' # c\n"),
            vec![vec!["#INCLUDE", "a.cfg"], vec!["#INCLUDE", "c d.cfg"]]
        );
    }

    #[test]
    fn include_only_at_start_of_logical_line() {
        assert_eq!(toks("A \\\n#INCLUDE x\n"), vec![vec!["A"]]);
    }

    #[test]
    fn unterminated_quote_is_located_at_the_quote() {
        let e = lines("A 1\nB  x='abc\n").unwrap_err();
        assert_eq!(e.location(), Some(&Location::new("t.cfg", 2, 6)));
        assert_eq!(e.to_string(), "t.cfg:2:6: unterminated quote `'`");
    }

    #[test]
    fn unterminated_quote_swallows_hash() {
        let e = lines("A don't # it\n").unwrap_err();
        assert_eq!(e.location(), Some(&Location::new("t.cfg", 1, 6)));
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        let e = lines("Ä é 'x\n").unwrap_err();
        assert_eq!(e.location(), Some(&Location::new("t.cfg", 1, 5)));
    }

    #[test]
    fn overlong_line_is_an_error_at_its_start() {
        let text = format!("A 1\nB {}\n", "x".repeat(MAX_LINE_BYTES));
        let e = lines(&text).unwrap_err();
        assert_eq!(e.location(), Some(&Location::new("t.cfg", 2, 1)));
        assert!(e.to_string().contains("1 MiB"), "{e}");
    }

    #[test]
    fn overlong_continued_line_is_an_error_at_its_first_line() {
        let chunk = format!("{} \\\n", "x".repeat(1000));
        let text = format!("\nA {}", chunk.repeat(1100));
        let e = lines(&text).unwrap_err();
        assert_eq!(e.location(), Some(&Location::new("t.cfg", 2, 1)));
    }

    #[test]
    fn line_of_exactly_the_limit_is_fine() {
        let text = format!("A {}", "x".repeat(MAX_LINE_BYTES - 2));
        assert_eq!(toks(&text)[0].len(), 2);
    }
}
