//! Fairshare data files `FS.<epoch>` in the guide's format (6.3.2.3): one per window,
//! written from a run, and read back so that a run can start from a site's history.
//!
//! ```text
//! # Fairshare Data File (Duration: 172800 Seconds) Starting: Fri Aug 18 18:00:00
//!
//! User USERA 150000.000
//! Group GROUPA 350000.000
//! TOTAL 600000.000
//! ```

use crate::error::{Result, SimError};
use crate::output;
use crate::params::credentials::Names;
use mauisim_core::{CredKind, FsWindow, Time};
use std::fs;
use std::path::{Path, PathBuf};

/// The word that starts a credential's line.
fn label(kind: CredKind) -> &'static str {
    match kind {
        CredKind::User => "User",
        CredKind::Group => "Group",
        CredKind::Account => "Account",
        CredKind::Qos => "QOS",
        CredKind::Class => "Class",
    }
}

/// `FS.<epoch>`, the epoch being when the window began (trace time + `epoch_offset`).
pub(crate) fn file_name(window: &FsWindow, epoch_offset: Time) -> String {
    format!("FS.{}", window.start + epoch_offset)
}

/// The text of one window's file: credentials by kind, then by name; zero usage left out.
pub(crate) fn render(window: &FsWindow, names: &Names, epoch_offset: Time) -> String {
    let mut text = format!(
        "# Fairshare Data File (Duration: {} Seconds) Starting: {}\n\n",
        window.end - window.start,
        ctime(window.start + epoch_offset)
    );
    for kind in CredKind::ALL {
        let mut rows: Vec<(&str, f64)> = window.usage[kind.index()]
            .iter()
            .enumerate()
            .filter(|(_, u)| **u != 0.0)
            .map(|(i, u)| (names.name(kind, mauisim_core::CredId(i as u32)), *u))
            .collect();
        rows.sort_by(|a, b| a.0.cmp(b.0));
        for (name, usage) in rows {
            text += &format!("{} {name} {usage:.3}\n", label(kind));
        }
    }
    text += &format!("TOTAL {:.3}\n", window.total);
    text
}

/// Writes one file per window into `dir`, each complete or not at all: files are staged
/// and renamed into place only when all are written.
pub(crate) fn write_dir(
    dir: &Path,
    windows: &[FsWindow],
    names: &Names,
    epoch_offset: Time,
) -> Result<()> {
    let files: Vec<(String, String)> = windows
        .iter()
        .map(|w| (file_name(w, epoch_offset), render(w, names, epoch_offset)))
        .collect();
    output::write_files_atomically(dir, &files)
}

/// Reads every `FS.<epoch>` file of `dir`: the windows before the run, most recent first.
/// Names are interned into `names`; other files in `dir` are ignored.
pub(crate) fn load_dir(dir: &Path, names: &mut Names) -> Result<Vec<FsWindow>> {
    let io = |source| SimError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut files: Vec<(Time, PathBuf)> = Vec::new();
    for entry in fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        let epoch = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix("FS."))
            .and_then(|e| e.parse::<Time>().ok());
        if let Some(epoch) = epoch {
            files.push((epoch, path));
        }
    }
    if files.is_empty() {
        return Err(SimError::Input {
            path: dir.to_path_buf(),
            message: "no fairshare files (FS.<epoch>) in this directory".into(),
        });
    }
    files.sort_by(|a, b| b.cmp(a));
    files
        .iter()
        .map(|(epoch, path)| {
            let text = fs::read_to_string(path).map_err(|source| SimError::Io {
                path: path.clone(),
                source,
            })?;
            let mut window = parse(path, &text, names)?;
            window.start = *epoch;
            Ok(window)
        })
        .collect()
}

/// One FS file: `KIND NAME USAGE` lines and one `TOTAL USAGE` line; `#` comments.
pub(crate) fn parse(path: &Path, text: &str, names: &mut Names) -> Result<FsWindow> {
    let mut window = FsWindow::default();
    let mut total = None;
    for (n, line) in text.lines().enumerate() {
        let err = |message: String| SimError::Trace {
            path: path.to_path_buf(),
            line: n + 1,
            message,
        };
        let line = line.trim_start_matches('\u{feff}').trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let usage_of = |text: &str| -> Result<f64> {
            match text.parse::<f64>() {
                Ok(u) if u.is_finite() && u >= 0.0 => Ok(u),
                _ => Err(err(format!(
                    "usage: expected a number of proc-seconds ≥ 0, found `{text}`"
                ))),
            }
        };
        match fields.as_slice() {
            [word, value] if word.eq_ignore_ascii_case("TOTAL") => {
                if total.is_some() {
                    return Err(err("a second TOTAL line".into()));
                }
                total = Some(usage_of(value)?);
            }
            [word, name, value] => {
                let Some(kind) = CredKind::ALL
                    .into_iter()
                    .find(|k| label(*k).eq_ignore_ascii_case(word))
                else {
                    return Err(err(format!(
                        "expected User, Group, Account, QOS, Class or TOTAL, found `{word}`"
                    )));
                };
                let usage = usage_of(value)?;
                let id = names.intern(kind, name);
                let column = &mut window.usage[kind.index()];
                let i = id.0 as usize;
                if column.len() <= i {
                    column.resize(i + 1, 0.0);
                }
                column[i] += usage;
            }
            _ => {
                return Err(err(format!(
                    "expected `KIND NAME USAGE` or `TOTAL USAGE`, found `{line}`"
                )))
            }
        }
    }
    window.total = total.ok_or_else(|| SimError::Input {
        path: path.to_path_buf(),
        message: "no TOTAL line: the delivered total is what shares are relative to".into(),
    })?;
    Ok(window)
}

/// `Fri Aug 18 18:00:00` (UTC), as the guide's sample file shows a window's start.
fn ctime(epoch: Time) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = epoch.div_euclid(86_400);
    let secs = epoch.rem_euclid(86_400);
    let (_, month, day) = civil_from_days(days);
    format!(
        "{} {} {:2} {:02}:{:02}:{:02}",
        DAYS[days.rem_euclid(7) as usize],
        MONTHS[month as usize - 1],
        day,
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// (year, month 1–12, day 1–31) of a day count since 1970-01-01 (proleptic Gregorian;
/// Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc_calendar_dates() {
        assert_eq!(ctime(0), "Thu Jan  1 00:00:00");
        // 2000-08-18 18:00:00 UTC was a Friday, as in the guide's sample.
        assert_eq!(ctime(966_621_600), "Fri Aug 18 18:00:00");
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(ctime(-1), "Wed Dec 31 23:59:59");
    }

    #[test]
    fn a_file_round_trips_and_the_guides_sample_reads() {
        let sample = "# Fairshare Data File (Duration: 172800 Seconds) Starting: Fri Aug 18 18:00:00\n\n\
            User USERA 150000.000\nUser USERB 150000.000\nUser USERC 200000.000\nUser USERD 100000.000\n\
            Group GROUPA 350000.000\nGroup GROUPB 250000.000\nAccount ACCTA 300000.000\n\
            Account ACCTB 200000.000\nAccount ACCTC 100000.000\nQOS 0 50000.000\nQOS 1 450000.000\n\
            QOS 2 100000.000\nTOTAL 600000.00\n";
        let mut names = Names::default();
        let mut w = parse(Path::new("FS.966621600"), sample, &mut names).unwrap();
        assert_eq!(w.total, 600_000.0);
        for kind in [
            CredKind::User,
            CredKind::Group,
            CredKind::Account,
            CredKind::Qos,
        ] {
            let sum: f64 = w.usage[kind.index()].iter().sum();
            assert_eq!(sum, 600_000.0, "{kind:?}");
        }
        let usera = names.get(CredKind::User, "USERA").unwrap();
        assert_eq!(w.usage[0][usera.0 as usize], 150_000.0);
        w.start = 966_621_600;
        w.end = w.start + 172_800;
        let text = render(&w, &names, 0);
        assert!(text.starts_with(
            "# Fairshare Data File (Duration: 172800 Seconds) Starting: Fri Aug 18 18:00:00\n\nUser USERA 150000.000\n"
        ));
        let again = parse(Path::new("x"), &text, &mut names).unwrap();
        assert_eq!(again.usage, w.usage);
        assert_eq!(again.total, w.total);
    }

    #[test]
    fn malformed_files_name_the_line() {
        let mut names = Names::default();
        let mut bad = |text: &str| {
            parse(Path::new("FS.0"), text, &mut names)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            bad("User a 1\nPerson b 2\nTOTAL 3\n"),
            "FS.0:2: expected User, Group, Account, QOS, Class or TOTAL, found `Person`"
        );
        assert_eq!(
            bad("User a -1\nTOTAL 3\n"),
            "FS.0:1: usage: expected a number of proc-seconds ≥ 0, found `-1`"
        );
        assert_eq!(
            bad("User a NaN\n"),
            "FS.0:1: usage: expected a number of proc-seconds ≥ 0, found `NaN`"
        );
        assert_eq!(
            bad("User a 1 2\n"),
            "FS.0:1: expected `KIND NAME USAGE` or `TOTAL USAGE`, found `User a 1 2`"
        );
        assert_eq!(bad("TOTAL 1\nTOTAL 2\n"), "FS.0:2: a second TOTAL line");
        assert_eq!(
            bad("User a 1\n"),
            "FS.0: no TOTAL line: the delivered total is what shares are relative to"
        );
    }
}
