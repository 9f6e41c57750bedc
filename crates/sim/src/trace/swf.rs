//! Standard Workload Format: a streaming reader and a writer.
//!
//! A record is 18 whitespace-separated numbers; any may be non-integer (`552.21`) or −1
//! ("unknown"). Header lines start with `;` and carry `Key: value` pairs such as
//! `MaxProcs`. Gzip input is recognised by its magic bytes, not its file name.

use crate::error::{Result, SimError};
use flate2::read::MultiGzDecoder;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

pub const FIELD_COUNT: usize = 18;

/// Field names, 1-based in the SWF definition, 0-based here.
pub const FIELD_NAMES: [&str; FIELD_COUNT] = [
    "job number",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average CPU time used",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user id",
    "group id",
    "executable number",
    "queue number",
    "partition number",
    "preceding job number",
    "think time",
];

/// Bytes read ahead from a trace file, and from its gunzipped text.
const READ_BUFFER: usize = 64 * 1024;
/// Longest line accepted: real records are under 200 bytes.
const MAX_LINE: usize = 64 * 1024;
/// Magnitude bound on any field: beyond it times and counts overflow arithmetic.
const MAX_ABS: f64 = 1e15;

/// One job record: the 18 fields as numbers, and where it came from.
///
/// Nearly every field of every real trace is an integer of 32 bits: such a record keeps
/// them so (72 bytes rather than 144; every job holds its record for the written schedule,
/// and reading a large trace is mostly moving jobs). A record with any other value keeps
/// its numbers exactly, boxed.
#[derive(Debug, Clone, PartialEq)]
pub struct SwfRecord {
    whole: [i32; FIELD_COUNT],
    exact: Option<Box<[f64; FIELD_COUNT]>>,
    pub line: usize,
}

impl SwfRecord {
    pub fn new(fields: [f64; FIELD_COUNT], line: usize) -> Self {
        let mut whole = [0; FIELD_COUNT];
        for (w, &f) in whole.iter_mut().zip(&fields) {
            *w = f as i32;
            // Bit for bit, so that -0 and 0.5 stay as written.
            if f64::from(*w).to_bits() != f.to_bits() {
                return SwfRecord {
                    whole: [0; FIELD_COUNT],
                    exact: Some(Box::new(fields)),
                    line,
                };
            }
        }
        SwfRecord {
            whole,
            exact: None,
            line,
        }
    }

    /// The fields, 0-based.
    pub fn fields(&self) -> [f64; FIELD_COUNT] {
        match &self.exact {
            Some(fields) => **fields,
            None => self.whole.map(f64::from),
        }
    }

    /// Field `n` (1-based, as the SWF definition numbers them).
    pub fn field(&self, n: usize) -> f64 {
        match &self.exact {
            Some(fields) => fields[n - 1],
            None => f64::from(self.whole[n - 1]),
        }
    }

    /// Field `n` (1-based) rounded to an integer.
    pub fn int(&self, n: usize) -> i64 {
        match &self.exact {
            Some(fields) => fields[n - 1].round() as i64,
            None => i64::from(self.whole[n - 1]),
        }
    }
}

/// A job's record as the written schedule needs it: every field but the three it writes
/// anew (3, 4 and 5: wait, runtime and allocated processors), and its line.
///
/// The line and the fields of an all-integer record are kept as varints (LEB128, the
/// fields zigzag-encoded: −1 takes one byte, a job number or submit time of a real trace
/// three or four): 40 bytes rather than [`SwfRecord`]'s 88, as a job holds one and a
/// trace millions of jobs. Every record of the bundled and reference traces fits (22–26
/// bytes on average, 31 at most with the line); one that does not keeps its numbers
/// exactly, boxed, as a non-integer record does.
#[derive(Debug, Clone, PartialEq)]
pub struct KeptRecord {
    /// The line, then (unless `exact`) fields 1, 2 and 6 to 18 (1-based), in
    /// `packed[..len]`; the rest zero (so that equal records compare equal).
    packed: [u8; PACKED],
    len: u8,
    exact: Option<Box<[f64; FIELD_COUNT]>>,
}

/// The 0-based fields the written schedule writes anew.
const REWRITTEN: std::ops::Range<usize> = 2..5;
/// Bytes of varints a record keeps in place (the line's up to 5 always fit).
const PACKED: usize = 31;

impl KeptRecord {
    /// The line it was read from (only error messages and notes name one: a file of 2^32
    /// lines is named at the last one this holds).
    pub fn line(&self) -> u32 {
        read_varint(&self.packed, 0).0
    }

    /// The fields, 0-based; those of [`REWRITTEN`] are −1 (not recorded), as the schedule
    /// writes them anew.
    pub fn fields(&self) -> [f64; FIELD_COUNT] {
        if let Some(fields) = &self.exact {
            let mut fields = **fields;
            fields[REWRITTEN].fill(-1.0);
            return fields;
        }
        match self.integers() {
            Some(integers) => integers.map(|i| i as f64),
            None => [-1.0; FIELD_COUNT],
        }
    }

    /// [`Self::fields`] of an all-integer record as integers (`None` for another).
    pub fn integers(&self) -> Option<[i64; FIELD_COUNT]> {
        if self.exact.is_some() {
            return None;
        }
        let mut fields = [-1; FIELD_COUNT];
        let (_, mut at) = read_varint(&self.packed, 0);
        let (head, tail) = fields.split_at_mut(REWRITTEN.start);
        for f in head.iter_mut().chain(&mut tail[REWRITTEN.len()..]) {
            let (value, next) = read_varint(&self.packed, at);
            (*f, at) = (i64::from(unzigzag(value)), next);
        }
        Some(fields)
    }
}

/// Most bytes the line and the kept fields take as varints: five each.
const MOST_PACKED: usize = 5 * (1 + FIELD_COUNT - (REWRITTEN.end - REWRITTEN.start));

/// Writes `value` as a varint at `at` (five bytes at most); where it ends.
#[inline]
fn write_varint(mut value: u32, into: &mut [u8; MOST_PACKED], mut at: usize) -> usize {
    while value >= 0x80 {
        if let Some(b) = into.get_mut(at) {
            *b = (value as u8) | 0x80;
        }
        value >>= 7;
        at += 1;
    }
    if let Some(b) = into.get_mut(at) {
        *b = value as u8;
    }
    at + 1
}

/// Reads the varint at `at` that [`write_varint`] wrote; it and where it ends (a byte
/// past the end reads as 0).
#[inline]
fn read_varint(bytes: &[u8], mut at: usize) -> (u32, usize) {
    let mut value = 0u32;
    let mut shift = 0;
    loop {
        let b = bytes.get(at).copied().unwrap_or(0);
        at += 1;
        value |= u32::from(b & 0x7f) << shift;
        if b < 0x80 || shift >= 28 {
            return (value, at);
        }
        shift += 7;
    }
}

/// Small magnitudes, negative or not, to small numbers: 0, −1, 1, −2 … to 0, 1, 2, 3 …
fn zigzag(value: i32) -> u32 {
    ((value << 1) ^ (value >> 31)) as u32
}

fn unzigzag(value: u32) -> i32 {
    ((value >> 1) as i32) ^ -((value & 1) as i32)
}

impl From<SwfRecord> for KeptRecord {
    fn from(record: SwfRecord) -> Self {
        let line = u32::try_from(record.line).unwrap_or(u32::MAX);
        let mut bytes = [0; MOST_PACKED];
        let after_line = write_varint(line, &mut bytes, 0);
        let mut len = after_line;
        if record.exact.is_none() {
            let (head, tail) = record.whole.split_at(REWRITTEN.start);
            for &w in head.iter().chain(&tail[REWRITTEN.len()..]) {
                len = write_varint(zigzag(w), &mut bytes, len);
            }
        }
        let mut packed = [0; PACKED];
        if record.exact.is_none() && len <= PACKED {
            packed.copy_from_slice(&bytes[..PACKED]);
            return KeptRecord {
                packed,
                len: len as u8,
                exact: None,
            };
        }
        packed[..after_line].copy_from_slice(&bytes[..after_line]);
        let fields = record.fields();
        KeptRecord {
            packed,
            len: after_line as u8,
            exact: Some(record.exact.unwrap_or_else(|| Box::new(fields))),
        }
    }
}

/// Header `Key: value` pairs (keys as written), in file order of first appearance.
#[derive(Debug, Clone, Default)]
pub struct SwfHeader {
    pub pairs: BTreeMap<String, String>,
}

impl SwfHeader {
    /// A positive integer header value such as `MaxProcs`, if present.
    pub(crate) fn positive(&self, key: &str) -> Option<u64> {
        let value = self.pairs.get(key)?;
        let n: i64 = value.split_whitespace().next()?.parse().ok()?;
        (n > 0).then_some(n as u64)
    }

    fn absorb(&mut self, comment: &str) {
        if let Some((key, value)) = comment.split_once(':') {
            let key = key.trim();
            if !key.is_empty() && !key.contains(char::is_whitespace) {
                self.pairs
                    .entry(key.to_string())
                    .or_insert_with(|| value.trim().to_string());
            }
        }
    }
}

/// Opens a trace, plain or gzip.
pub fn open(path: &Path) -> Result<SwfReader<Box<dyn BufRead>>> {
    Ok(SwfReader::new(open_text(path)?, path.to_path_buf()))
}

/// How many bytes of text a trace file holds, if it says: a plain file's length, or a
/// gzip file's trailer (ISIZE: its last member's length modulo 2^32). A hint for sizing,
/// never trusted as a count.
pub(crate) fn text_size_hint(path: &Path) -> Option<u64> {
    use std::io::{Seek, SeekFrom};
    let mut file = File::open(path).ok()?;
    let mut magic = [0u8; 2];
    file.read_exact(&mut magic).ok()?;
    if magic != [0x1f, 0x8b] {
        return file.metadata().ok().map(|m| m.len());
    }
    file.seek(SeekFrom::End(-4)).ok()?;
    let mut trailer = [0u8; 4];
    file.read_exact(&mut trailer).ok()?;
    Some(u64::from(u32::from_le_bytes(trailer)))
}

/// A trace file's text, gunzipped when it is gzip (detected by content).
pub(crate) fn open_text(path: &Path) -> Result<Box<dyn BufRead>> {
    let io = |source| SimError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = BufReader::with_capacity(READ_BUFFER, File::open(path).map_err(io)?);
    let is_gzip = file.fill_buf().map_err(io)?.starts_with(&[0x1f, 0x8b]);
    Ok(if is_gzip {
        Box::new(BufReader::with_capacity(
            READ_BUFFER,
            MultiGzDecoder::new(file),
        ))
    } else {
        Box::new(file)
    })
}

/// A text file's lines, bounded: each is at most [`MAX_LINE`] bytes (a longer one is an
/// error, never an allocation as large as the file), valid UTF-8, without a leading byte
/// order mark; errors name the line.
///
/// A line lying whole in the reader's buffer (nearly all of them) is handed out from
/// there; only one that crosses the buffer's end is copied (reading is most of a short
/// run's time, issue 26).
pub struct TextLines<R> {
    input: R,
    pub path: PathBuf,
    /// The line last read, from 1.
    pub line: usize,
    /// Bytes read so far.
    pub bytes: u64,
    buf: Vec<u8>,
    /// Bytes of the input's buffer handed out as the last line, consumed at the next call.
    lent: usize,
}

impl<R: BufRead> TextLines<R> {
    pub(crate) fn new(input: R, path: PathBuf) -> Self {
        TextLines {
            input,
            path,
            line: 0,
            bytes: 0,
            buf: Vec::new(),
            lent: 0,
        }
    }

    pub(crate) fn error(&self, message: impl Into<String>) -> SimError {
        SimError::Trace {
            path: self.path.clone(),
            line: self.line,
            message: message.into(),
        }
    }

    fn read_error(&self, e: std::io::Error) -> SimError {
        read_error(&self.path, self.line + 1, e)
    }

    /// The next line, trimmed, with its number; `None` at the end.
    pub(crate) fn next_text(&mut self) -> Result<Option<(usize, &str)>> {
        self.input.consume(std::mem::take(&mut self.lent));
        let whole_line = match self.input.fill_buf() {
            Ok(buffered) => memchr_newline(buffered).filter(|&end| end < MAX_LINE),
            Err(e) => return Err(self.read_error(e)),
        };
        let n = match whole_line {
            Some(end) => {
                self.lent = end + 1;
                self.lent
            }
            None => {
                self.buf.clear();
                let limit = (MAX_LINE + 1) as u64;
                let n = (&mut self.input)
                    .take(limit)
                    .read_until(b'\n', &mut self.buf)
                    .map_err(|e| self.read_error(e))?;
                if n == 0 {
                    return Ok(None);
                }
                n
            }
        };
        self.line += 1;
        self.bytes += n as u64;
        let bytes = match whole_line {
            // Asked again for what it holds, the buffer reads nothing.
            Some(_) => match self.input.fill_buf() {
                Ok(buffered) => &buffered[..n],
                Err(e) => return Err(read_error(&self.path, self.line, e)),
            },
            None => {
                if self.buf.len() > MAX_LINE && !self.buf.ends_with(b"\n") {
                    return Err(self.error(format!("line longer than {MAX_LINE} bytes")));
                }
                &self.buf[..]
            }
        };
        let Ok(text) = std::str::from_utf8(bytes) else {
            return Err(SimError::Trace {
                path: self.path.clone(),
                line: self.line,
                message: "not text (invalid UTF-8)".into(),
            });
        };
        let text = if self.line == 1 {
            text.strip_prefix('\u{feff}').unwrap_or(text)
        } else {
            text
        };
        Ok(Some((self.line, text.trim())))
    }
}

fn read_error(path: &Path, line: usize, e: std::io::Error) -> SimError {
    let hint = if e.kind() == std::io::ErrorKind::UnexpectedEof
        || e.kind() == std::io::ErrorKind::InvalidInput
        || e.kind() == std::io::ErrorKind::InvalidData
    {
        " (corrupt or truncated gzip stream?)"
    } else {
        ""
    };
    SimError::Trace {
        path: path.to_path_buf(),
        line,
        message: format!("read error: {e}{hint}"),
    }
}

/// Where the first line feed in `bytes` is.
#[inline]
fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', bytes)
}

/// Reads header and records; records come from [`Iterator::next`], the header fills as
/// comment lines pass (all of a file's header precedes its first record in practice).
pub struct SwfReader<R> {
    lines: TextLines<R>,
    pub header: SwfHeader,
}

impl<R: BufRead> SwfReader<R> {
    pub fn new(input: R, path: PathBuf) -> Self {
        SwfReader {
            lines: TextLines::new(input, path),
            header: SwfHeader::default(),
        }
    }

    /// Bytes of text read so far.
    pub fn bytes_read(&self) -> u64 {
        self.lines.bytes
    }

    /// Reads the header: everything up to the first record, which is kept for `next`.
    pub fn read_header(&mut self) -> Result<Option<SwfRecord>> {
        self.next_record()
    }

    fn next_record(&mut self) -> Result<Option<SwfRecord>> {
        while let Some((line, text)) = self.lines.next_text()? {
            if text.is_empty() {
                continue;
            }
            if let Some(comment) = text.strip_prefix(';') {
                let comment = comment.to_string();
                self.header.absorb(&comment);
                continue;
            }
            let parsed = parse_record(text, line);
            crate::engine::COUNTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            return parsed.map(Some).map_err(|m| self.lines.error(m));
        }
        Ok(None)
    }
}

impl<R: BufRead> Iterator for SwfReader<R> {
    type Item = Result<SwfRecord>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_record().transpose()
    }
}

fn parse_record(text: &str, line: usize) -> std::result::Result<SwfRecord, String> {
    let mut whole = [0i32; FIELD_COUNT];
    // Set from the first field that is not a 32-bit integer on.
    let mut exact: Option<[f64; FIELD_COUNT]> = None;
    let bytes = text.as_bytes();
    let mut count = 0;
    let mut at = 0;
    // One pass over the bytes: each token is read as an integer while it is scanned, and
    // only one that turns out not to be a plain 32-bit integer is parsed again as a float.
    loop {
        while at < bytes.len() && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        if at == bytes.len() {
            break;
        }
        if count == FIELD_COUNT {
            let found = text.split_ascii_whitespace().count();
            return Err(format!("expected {FIELD_COUNT} fields, found {found}"));
        }
        let start = at;
        let (value, end) = whole_token(bytes, at);
        at = end;
        match (value, &mut exact) {
            (Some(value), None) => whole[count] = value,
            (Some(value), Some(fields)) => fields[count] = f64::from(value),
            (None, _) => {
                while at < bytes.len() && !bytes[at].is_ascii_whitespace() {
                    at += 1;
                }
                // Token ends are ASCII, so they fall on character boundaries.
                let value = float_field(&text[start..at], count)?;
                let fields = exact.get_or_insert_with(|| whole.map(f64::from));
                fields[count] = value;
            }
        }
        count += 1;
    }
    if count != FIELD_COUNT {
        return Err(format!("expected {FIELD_COUNT} fields, found {count}"));
    }
    Ok(match exact {
        Some(fields) => SwfRecord::new(fields, line),
        None => SwfRecord {
            whole,
            exact: None,
            line,
        },
    })
}

/// The token starting at `at` as a plain integer of 32 bits (nearly every field of every
/// real trace), and where reading it stopped: at the token's end when it is one, else
/// somewhere inside it.
#[inline]
fn whole_token(bytes: &[u8], mut at: usize) -> (Option<i32>, usize) {
    let negative = bytes[at] == b'-';
    at += usize::from(negative);
    let digits = at;
    let mut magnitude = 0i64;
    // Eleven digits at most: beyond 32 bits either way, and far from overflowing.
    while at < bytes.len() && at - digits < 11 && bytes[at].is_ascii_digit() {
        magnitude = magnitude * 10 + i64::from(bytes[at] - b'0');
        at += 1;
    }
    let ends = at == bytes.len() || bytes[at].is_ascii_whitespace();
    if at == digits || !ends {
        return (None, at);
    }
    let value = i32::try_from(if negative { -magnitude } else { magnitude }).ok();
    (value, at)
}

/// Field `index` (0-based) that is not a 32-bit integer: any finite number within
/// [`MAX_ABS`].
fn float_field(token: &str, index: usize) -> std::result::Result<f64, String> {
    let name = FIELD_NAMES[index];
    let value: f64 = token.parse().map_err(|_| {
        format!(
            "field {} ({name}): expected a number, found `{}`",
            index + 1,
            truncate(token)
        )
    })?;
    if !value.is_finite() || value.abs() > MAX_ABS {
        return Err(format!(
            "field {} ({name}): value `{}` is out of range",
            index + 1,
            truncate(token)
        ));
    }
    Ok(value)
}

fn truncate(token: &str) -> String {
    token.chars().take(40).collect()
}

/// Formats a field the way SWF files write it: integers plainly, others shortest.
#[cfg(test)]
fn format_field(value: f64) -> String {
    let mut text = String::new();
    push_field(&mut text, value);
    text
}

/// Appends a field as SWF files write it: integers plainly, others shortest.
fn push_field(line: &mut String, value: f64) {
    use std::fmt::Write as _;
    if value.fract() == 0.0 {
        line.push_str(itoa::Buffer::new().format(value as i64));
    } else {
        // Writing to a String cannot fail.
        let _ = write!(line, "{value}");
    }
}

/// Writes one record line, made in `line` (a buffer the caller keeps, so that writing a
/// schedule allocates nothing per record).
pub(crate) fn write_record(
    out: &mut impl Write,
    fields: &[f64; FIELD_COUNT],
    line: &mut String,
) -> std::io::Result<()> {
    write_fields(out, fields, line, push_field)
}

/// [`write_record`] of a record of integers, written as it writes them.
pub(crate) fn write_integer_record(
    out: &mut impl Write,
    fields: &[i64; FIELD_COUNT],
    line: &mut String,
) -> std::io::Result<()> {
    let mut digits = itoa::Buffer::new();
    write_fields(out, fields, line, |line, f| line.push_str(digits.format(f)))
}

fn write_fields<T: Copy>(
    out: &mut impl Write,
    fields: &[T; FIELD_COUNT],
    line: &mut String,
    mut push: impl FnMut(&mut String, T),
) -> std::io::Result<()> {
    line.clear();
    for (i, &f) in fields.iter().enumerate() {
        if i > 0 {
            line.push(' ');
        }
        push(line, f);
    }
    line.push('\n');
    out.write_all(line.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> (SwfHeader, Vec<Result<SwfRecord>>) {
        let mut r = SwfReader::new(text.as_bytes(), PathBuf::from("t.swf"));
        let records: Vec<_> = r.by_ref().collect();
        (r.header, records)
    }

    #[test]
    fn reads_header_pairs_and_records_with_decimals() {
        let text = "; MaxProcs: 100\n;MaxNodes:  50 \n\n1 0 5 10 4 552.21 -1 4 60 -1 1 3 2 -1 1 -1 -1 -1\n   \n";
        let (h, recs) = read(text);
        assert_eq!(h.positive("MaxProcs"), Some(100));
        assert_eq!(h.positive("MaxNodes"), Some(50));
        assert_eq!(recs.len(), 1);
        let r = recs[0].as_ref().unwrap();
        assert_eq!(r.line, 4);
        assert_eq!(r.field(6), 552.21);
        assert_eq!(r.int(9), 60);
    }

    #[test]
    fn a_short_line_names_line_and_count() {
        let (_, recs) = read("1 0 5 10 4 -1 -1 4 60 -1 1 3 2 -1 1 -1 -1\n");
        let e = recs[0].as_ref().unwrap_err().to_string();
        assert_eq!(e, "t.swf:1: expected 18 fields, found 17");
    }

    #[test]
    fn text_in_a_numeric_field_names_the_field() {
        let (_, recs) = read("; x\n1 0 5 ten 4 -1 -1 4 60 -1 1 3 2 -1 1 -1 -1 -1\n");
        let e = recs[0].as_ref().unwrap_err().to_string();
        assert_eq!(
            e,
            "t.swf:2: field 4 (run time): expected a number, found `ten`"
        );
    }

    #[test]
    fn non_finite_and_huge_values_are_rejected() {
        let (_, recs) = read("1 0 5 NaN 4 -1 -1 4 60 -1 1 3 2 -1 1 -1 -1 -1\n");
        assert!(recs[0]
            .as_ref()
            .unwrap_err()
            .to_string()
            .contains("field 4 (run time): value `NaN` is out of range"));
        let (_, recs) = read("1 1e300 5 1 4 -1 -1 4 60 -1 1 3 2 -1 1 -1 -1 -1\n");
        assert!(recs[0]
            .as_ref()
            .unwrap_err()
            .to_string()
            .contains("field 2 (submit time)"));
    }

    #[test]
    fn records_keep_every_value_as_written() {
        let text = "7 3000000000 -2147483648 2147483647 4 552.21 -0 4 60 -1 1 3 2 -1 1 -1 -1 1e3\n\
                    8 0 5 10 4 -1 -1 4 60 -1 1 3 2 -1 1 -1 -1 -1\n";
        let (_, recs) = read(text);
        let exact = recs[0].as_ref().unwrap();
        assert_eq!(exact.field(2), 3e9);
        assert_eq!(exact.int(2), 3_000_000_000);
        assert_eq!(exact.int(3), i64::from(i32::MIN));
        assert_eq!(exact.int(4), i64::from(i32::MAX));
        assert_eq!(exact.field(6), 552.21);
        assert_eq!(exact.int(6), 552);
        assert_eq!(exact.field(18), 1000.0);
        let whole = recs[1].as_ref().unwrap();
        assert!(
            whole.exact.is_none(),
            "an all-integer record is kept compact"
        );
        assert_eq!(whole.fields()[3], 10.0);
        assert_eq!(whole.int(9), 60);
        assert_eq!(SwfRecord::new(whole.fields(), 2), *whole);
        assert_eq!(SwfRecord::new(exact.fields(), 1), *exact);
        assert!(std::mem::size_of::<SwfRecord>() <= 88);
        // Kept by a job: all but the fields the schedule writes anew, exact values too.
        for record in [whole, exact] {
            let mut expected = record.fields();
            expected[2..5].fill(-1.0);
            let kept = KeptRecord::from(record.clone());
            assert_eq!(kept.fields().map(f64::to_bits), expected.map(f64::to_bits));
            assert_eq!(kept.line() as usize, record.line);
        }
        assert!(std::mem::size_of::<KeptRecord>() <= 40);
    }

    /// Lines handed out from the reader's buffer and lines copied across its end read the
    /// same: every buffer size from one byte up gives the records, header and errors of
    /// reading the text whole.
    #[test]
    fn lines_read_the_same_whatever_the_buffer() {
        let text = "\u{feff}; MaxProcs: 100\r\n;MaxNodes: 50\n\n\
                    1 0 5 10 4 552.21 -1 4 60 -1 1 3 2 -1 1 -1 -1 -1\r\n\
                    2 3000000000 -0 10 4 -1 -1 4 60 -1 1 3 2 -1 1 -1 -1 1e3\n   \n\
                    3 0 5 10 4 -1 -1 4 60 -1 1 3 2 -1 1 -1 -1\n\
                    4 0 5 1x 4 -1 -1 4 60 -1 1 3 2 -1 1 -1 -1 -1\n\
                    5 0 5 10 4 -1 -1 4 60 -1 1 3 2 -1 1 -1 -1 -1";
        let describe = |(header, records): (SwfHeader, Vec<Result<SwfRecord>>)| {
            let records: Vec<String> = records
                .into_iter()
                .map(|r| match r {
                    Ok(r) => format!("{}: {:?}", r.line, r.fields()),
                    Err(e) => e.to_string(),
                })
                .collect();
            (header.pairs, records)
        };
        let whole = describe(read(text));
        assert_eq!(whole.1.len(), 5, "{whole:?}");
        for capacity in 1..=text.len() + 1 {
            let input = BufReader::with_capacity(capacity, text.as_bytes());
            let mut r = SwfReader::new(input, PathBuf::from("t.swf"));
            let records: Vec<_> = r.by_ref().collect();
            assert_eq!(describe((r.header, records)), whole, "buffer of {capacity}");
        }
    }

    proptest::proptest! {
        /// A kept record gives back every field it keeps, bit for bit, whatever the
        /// integers (the extremes of 32 bits, which do not fit in place, included) or
        /// non-integers.
        #[test]
        fn a_kept_record_gives_its_fields_back(
            ints in proptest::collection::vec(
                // Weighted so that about half the records fit in place.
                proptest::prop_oneof![
                    16 => -2i64..1000,
                    2 => 0i64..100_000_000,
                    1 => proptest::prelude::Just(i64::from(i32::MIN)),
                    1 => proptest::prelude::Just(i64::from(i32::MAX)),
                ],
                FIELD_COUNT,
            ),
            fraction in proptest::option::weighted(0.2, 0usize..FIELD_COUNT),
            read_at in proptest::prop_oneof![
                1usize..1_000_000,
                proptest::prelude::Just(u32::MAX as usize),
                proptest::prelude::Just(usize::MAX),
            ],
        ) {
            let mut fields = [0.0; FIELD_COUNT];
            for (f, &i) in fields.iter_mut().zip(&ints) {
                *f = i as f64;
            }
            if let Some(k) = fraction {
                fields[k] += 0.25;
            }
            let record = SwfRecord::new(fields, read_at);
            let line = u32::try_from(read_at).unwrap_or(u32::MAX);
            let mut expected = fields;
            expected[REWRITTEN].fill(-1.0);
            let kept = KeptRecord::from(record);
            proptest::prop_assert_eq!(kept.fields().map(f64::to_bits), expected.map(f64::to_bits));
            if let Some(integers) = kept.integers() {
                let (mut by_f64, mut by_i64) = (Vec::new(), Vec::new());
                write_record(&mut by_f64, &kept.fields(), &mut String::new()).unwrap();
                write_integer_record(&mut by_i64, &integers, &mut String::new()).unwrap();
                proptest::prop_assert_eq!(by_i64, by_f64, "an integer record writes the same");
            }
            proptest::prop_assert_eq!(kept.line(), line);
            let small = fraction.is_none() && ints.iter().all(|&i| (-64..64).contains(&i));
            if small {
                proptest::prop_assert!(kept.exact.is_none(), "fields of one byte each fit in place");
            }
        }
    }

    #[test]
    fn crlf_and_bom_are_accepted() {
        let (_, recs) =
            read("\u{feff}; MaxProcs: 4\r\n1 0 5 10 4 -1 -1 4 60 -1 1 3 2 -1 1 -1 -1 -1\r\n");
        assert_eq!(recs.len(), 1);
        assert!(recs[0].is_ok());
    }

    #[test]
    fn format_field_keeps_integers_plain() {
        assert_eq!(format_field(-1.0), "-1");
        assert_eq!(format_field(552.21), "552.21");
        assert_eq!(format_field(1e6), "1000000");
    }
}
