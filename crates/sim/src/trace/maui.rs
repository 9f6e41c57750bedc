//! Maui's workload trace format (guide 16.3, version 230: 44 whitespace-separated fields per
//! job; MAUI-SEMANTICS §6), so a site's own Maui simulation traces run as they are.
//!
//! Used: 1 job id, 3 tasks, 4 user, 5 group, 6 wallclock limit, 7 state, 8 class
//! (`[batch:1]`), 9 submit, 11 start, 12 completion, 20 required features (`[a][b]`),
//! 24 QOS, 26 account, 32 processors per task, 33–35 memory, disk and swap per task (MB).
//! Runtime = completion − start. Jobs that never ran (state other than Completed, or no
//! start) are skipped and counted. The others are read but not simulated; of those, the asks
//! that would change where or when a job runs (25 job flags, 40 required hosts, 41 a
//! reservation) are counted, and the run says how many jobs made each.

use crate::error::{Result, SimError};
use crate::trace::swf::TextLines;
use crate::trace::swf::{SwfRecord, FIELD_COUNT};
use mauisim_core::Time;
use std::path::Path;

pub const MAUI_FIELDS: usize = 44;

/// One job of a Maui trace: an SWF record of what both formats share, and the rest.
#[derive(Debug, Clone, PartialEq)]
pub struct MauiJob {
    pub record: SwfRecord,
    pub user: String,
    pub group: String,
    pub class: Option<String>,
    pub qos: Option<String>,
    pub account: Option<String>,
    pub procs_per_task: u32,
    /// Nodes asked for by count (field 2; 0 for none).
    pub nodes: u32,
    pub mem: u32,
    pub disk: u32,
    pub swap: u32,
    pub features: Vec<String>,
    /// What it asks that mauisim does not simulate: (field, value) of job flags (25),
    /// required hosts (40) and a reservation (41), where set.
    pub unsimulated: Vec<(usize, String)>,
}

/// The fields of asks mauisim reads but does not simulate, and what each asks for.
pub const UNSIMULATED_FIELDS: [(usize, &str); 3] = [
    (25, "job flags"),
    (40, "required hosts"),
    (41, "a reservation"),
];

/// Whether the first job line of `path` has Maui's 44 fields (SWF has 18).
pub(crate) fn is_maui_trace(path: &Path) -> Result<bool> {
    let mut lines = TextLines::new(crate::trace::swf::open_text(path)?, path.to_path_buf());
    // A file that is not text, or whose first line is too long, is no Maui trace: the
    // SWF reader then says what is wrong with it, and where.
    while let Ok(Some((_, text))) = lines.next_text() {
        if text.is_empty() || text.starts_with('#') || text.starts_with(';') {
            continue;
        }
        return Ok(text.split_whitespace().count() == MAUI_FIELDS);
    }
    Ok(false)
}

/// Reads every line: the jobs that ran, and how many were skipped because they did not.
pub fn read(path: &Path) -> Result<(Vec<MauiJob>, u64)> {
    let mut lines = TextLines::new(crate::trace::swf::open_text(path)?, path.to_path_buf());
    let mut jobs = Vec::new();
    let mut not_run = 0;
    while let Some((number, text)) = lines.next_text()? {
        let parsed = parse_line(text, number, jobs.len() as u64 + 1);
        match parsed.map_err(|message| SimError::Input {
            path: path.to_path_buf(),
            message,
        })? {
            Line::Job(job) => jobs.push(*job),
            Line::NotRun => not_run += 1,
            Line::Blank => {}
        }
    }
    Ok((jobs, not_run))
}

enum Line {
    Job(Box<MauiJob>),
    NotRun,
    Blank,
}

/// `[batch:1]` → `batch`; `[NONE]`, `-`, `DEFAULT` and empty → none.
fn bracket_name(text: &str) -> Option<String> {
    let name = text
        .trim_matches(|c| c == '[' || c == ']')
        .split([':', ']'])
        .next()
        .unwrap_or("")
        .trim();
    match name {
        "" | "-" | "NONE" | "DEFAULT" => None,
        n => Some(n.to_string()),
    }
}

fn parse_line(text: &str, line: usize, sequence: u64) -> std::result::Result<Line, String> {
    let text = text.trim();
    if text.is_empty() || text.starts_with('#') || text.starts_with(';') {
        return Ok(Line::Blank);
    }
    let f: Vec<&str> = text.split_whitespace().collect();
    if f.len() != MAUI_FIELDS {
        return Err(format!(
            "line {line}: a Maui workload trace line has {MAUI_FIELDS} fields, found {}",
            f.len()
        ));
    }
    let int = |n: usize| -> std::result::Result<i64, String> {
        let v = f[n - 1];
        v.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .map(|x| x as i64)
            .ok_or_else(|| format!("line {line}, field {n}: expected a number, found `{v}`"))
    };
    let small = |n: usize| -> std::result::Result<u32, String> {
        let v = int(n)?;
        u32::try_from(v.max(0)).map_err(|_| format!("line {line}, field {n}: {v} is too large"))
    };
    let state = f[6];
    let (submit, start, completion) = (int(9)?, int(11)?, int(12)?);
    if !state.eq_ignore_ascii_case("Completed") || start <= 0 || completion < start {
        return Ok(Line::NotRun);
    }
    let tasks = int(3)?;
    let procs_per_task = small(32)?.max(1);
    let wcl = int(6)?;
    let id = f[0]
        .split(|c: char| !c.is_ascii_digit())
        .find(|s| !s.is_empty())
        .and_then(|d| d.parse::<u64>().ok())
        .unwrap_or(sequence);
    let mut fields = [-1.0; FIELD_COUNT];
    let runtime: Time = completion - start;
    fields[0] = id as f64;
    fields[1] = submit as f64;
    fields[2] = (start - submit) as f64;
    fields[3] = runtime as f64;
    let procs = (tasks.max(0) as f64) * f64::from(procs_per_task);
    fields[4] = procs;
    fields[7] = procs;
    fields[8] = wcl as f64;
    fields[10] = 1.0;
    let name = |n: usize| match f[n - 1] {
        "-" | "[NONE]" | "DEFAULT" | "[DEFAULT]" => None,
        s => Some(s.to_string()),
    };
    Ok(Line::Job(Box::new(MauiJob {
        record: SwfRecord::new(fields, line),
        user: f[3].to_string(),
        group: f[4].to_string(),
        class: bracket_name(f[7]),
        qos: name(24),
        account: name(26),
        procs_per_task,
        nodes: small(2)?,
        mem: small(33)?,
        disk: small(34)?,
        swap: small(35)?,
        features: match f[19] {
            "-" | "[NONE]" => Vec::new(),
            x => crate::params::node_cfg::feature_list(x),
        },
        unsimulated: UNSIMULATED_FIELDS
            .iter()
            .filter(|&&(n, _)| !matches!(f[n - 1], "-" | "0" | "[NONE]" | "NONE" | "[]"))
            .map(|&(n, _)| (n, f[n - 1].to_string()))
            .collect(),
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line with the given (1-based) fields set, the rest `0` or `-`.
    pub(crate) fn line(set: &[(usize, &str)]) -> String {
        let mut f = vec!["0"; MAUI_FIELDS];
        for n in [13, 14, 15, 16, 18, 20, 24, 26] {
            f[n - 1] = "-";
        }
        for &(n, v) in set {
            f[n - 1] = v;
        }
        f.join(" ")
    }

    #[test]
    fn reads_the_fields_maui_simulates() {
        let text = line(&[
            (1, "job.42"),
            (3, "4"),
            (4, "alice"),
            (5, "staff"),
            (6, "3600"),
            (7, "Completed"),
            (8, "[batch:1]"),
            (9, "100"),
            (11, "160"),
            (12, "1160"),
            (20, "[gpu][fast]"),
            (24, "high"),
            (26, "proj1"),
            (32, "2"),
            (33, "512"),
        ]);
        let Line::Job(j) = parse_line(&text, 3, 9).unwrap() else {
            panic!("a job")
        };
        assert_eq!(j.record.int(1), 42);
        assert_eq!((j.record.int(2), j.record.int(4)), (100, 1000));
        assert_eq!((j.record.int(8), j.record.int(9)), (8, 3600));
        assert_eq!((j.user.as_str(), j.group.as_str()), ("alice", "staff"));
        assert_eq!(j.class.as_deref(), Some("batch"));
        assert_eq!(
            (j.qos.as_deref(), j.account.as_deref()),
            (Some("high"), Some("proj1"))
        );
        assert_eq!((j.procs_per_task, j.mem), (2, 512));
        assert_eq!(j.features, ["gpu", "fast"]);
        assert!(j.unsimulated.is_empty());
        let asks = line(&[
            (7, "Completed"),
            (11, "5"),
            (12, "9"),
            (25, "PREEMPTEE"),
            (40, "n1:n2"),
            (41, "[NONE]"),
        ]);
        let Line::Job(j) = parse_line(&asks, 1, 1).unwrap() else {
            panic!("a job")
        };
        let expected = [(25, "PREEMPTEE".to_string()), (40, "n1:n2".to_string())];
        assert_eq!(j.unsimulated, expected);
        let removed = line(&[(7, "Removed"), (11, "0")]);
        assert!(matches!(parse_line(&removed, 1, 1).unwrap(), Line::NotRun));
    }

    #[test]
    fn bad_lines_name_line_and_field() {
        let e = parse_line("a b c", 7, 1).err().unwrap();
        assert_eq!(
            e,
            "line 7: a Maui workload trace line has 44 fields, found 3"
        );
        let e = parse_line(&line(&[(7, "Completed"), (9, "soon")]), 2, 1)
            .err()
            .unwrap();
        assert_eq!(e, "line 2, field 9: expected a number, found `soon`");
        let e = parse_line(
            &line(&[(7, "Completed"), (11, "5"), (12, "9"), (33, "1e12")]),
            4,
            1,
        )
        .err()
        .unwrap();
        assert!(e.starts_with("line 4, field 33:"), "{e}");
    }
}
