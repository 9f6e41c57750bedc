//! Value parsers: durations, integers, floats, booleans, soft/hard limit pairs.
//!
//! They return unlocated [`ValueError`]s because the text may come from a token, part of an
//! attribute or a command line; the caller knows where it was.

use crate::error::{show, ValueError};

/// A time value: `[[[DD:]HH:]MM:]SS`, plain seconds, or `INFINITY` (case-insensitive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Duration {
    Seconds(i64),
    Infinity,
}

impl Duration {
    /// Seconds, or `None` for [`Duration::Infinity`].
    pub fn as_secs(self) -> Option<i64> {
        match self {
            Duration::Seconds(s) => Some(s),
            Duration::Infinity => None,
        }
    }
}

const DURATION_FORM: &str = "[[[DD:]HH:]MM:]SS or INFINITY";

/// Parses a duration.
///
/// Fields other than the leading one must be in range (seconds and minutes below 60, hours
/// below 24) because an out-of-range inner field is far more likely a typo than intent; the
/// leading field is unbounded so `72:00:00` means 72 hours, as in the guide.
///
/// Two-field values `A:B` are read as MM:SS (the guide's grammar) and come with a warning text,
/// because Maui 3.3.1 reads them as HH:MM.
pub fn parse_duration(text: &str) -> Result<(Duration, Option<String>), ValueError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(ValueError(format!(
            "expected a duration ({DURATION_FORM}), found nothing"
        )));
    }
    if t.eq_ignore_ascii_case("INFINITY") {
        return Ok((Duration::Infinity, None));
    }
    if t.starts_with('-') {
        return Err(ValueError(format!(
            "a duration cannot be negative: {}",
            show(t)
        )));
    }
    let fields: Vec<&str> = t.split(':').collect();
    if fields.len() > 4 {
        return Err(ValueError(format!(
            "too many `:` fields in duration {}; expected {DURATION_FORM}",
            show(t)
        )));
    }
    const UNITS: [(i64, i64, &str); 4] = [
        (1, 60, "seconds"),
        (60, 60, "minutes"),
        (3600, 24, "hours"),
        (86400, i64::MAX, "days"),
    ];
    let leading = fields.len() - 1;
    let mut total: i64 = 0;
    for (k, field) in fields.iter().rev().enumerate() {
        if field.is_empty() || !field.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ValueError(format!(
                "expected a duration ({DURATION_FORM}), found {}",
                show(t)
            )));
        }
        let too_large = || ValueError(format!("duration {} is too large", show(t)));
        let v: i64 = field.parse().map_err(|_| too_large())?;
        let (scale, limit, unit) = UNITS[k];
        if k != leading && v >= limit {
            return Err(ValueError(format!(
                "{unit} field `{field}` in duration {} must be below {limit}",
                show(t)
            )));
        }
        total = v
            .checked_mul(scale)
            .and_then(|x| x.checked_add(total))
            .ok_or_else(too_large)?;
    }
    let warning = (fields.len() == 2)
        .then(|| format!("read as MM:SS = {total} s; Maui 3.3.1 reads two fields as HH:MM"));
    Ok((Duration::Seconds(total), warning))
}

/// Soft,hard limit pair: `2,8` -> (2,8); `5` -> (5,5).
///
/// A soft limit above the hard one is clamped to the hard one with a warning text, as the
/// guide says ("the soft limit is set equal to the hard limit").
pub fn parse_limit_pair(text: &str) -> Result<((i64, i64), Option<String>), ValueError> {
    let t = text.trim();
    let parts: Vec<&str> = t.split(',').collect();
    let form_err = || {
        ValueError(format!(
            "expected a limit `HARD` or `SOFT,HARD` (non-negative integers), found {}",
            show(t)
        ))
    };
    if parts.len() > 2 {
        return Err(form_err());
    }
    let mut nums = Vec::with_capacity(2);
    for part in &parts {
        let part = part.trim();
        let digits = part.strip_prefix('+').unwrap_or(part);
        if part.starts_with('-') && part.len() > 1 {
            return Err(ValueError(format!(
                "a limit cannot be negative, found {}",
                show(t)
            )));
        }
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(form_err());
        }
        let v: i64 = digits
            .parse()
            .map_err(|_| ValueError(format!("limit {} is out of range", show(t))))?;
        nums.push(v);
    }
    match nums[..] {
        [v] => Ok(((v, v), None)),
        [soft, hard] if soft > hard => Ok((
            (hard, hard),
            Some(format!(
                "soft limit {soft} is above hard limit {hard}; using {hard} for both"
            )),
        )),
        [soft, hard] => Ok(((soft, hard), None)),
        _ => Err(form_err()),
    }
}

/// A signed 64-bit integer (optional `+`/`-`).
pub fn parse_int(text: &str) -> Result<i64, ValueError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(ValueError("expected an integer, found nothing".into()));
    }
    t.parse::<i64>().map_err(|e| {
        use std::num::IntErrorKind::{NegOverflow, PosOverflow};
        match e.kind() {
            PosOverflow | NegOverflow => ValueError(format!("integer {} is out of range", show(t))),
            _ => ValueError(format!("expected an integer, found {}", show(t))),
        }
    })
}

/// A finite floating-point number; NaN and infinities are rejected because no Maui weight,
/// factor or decay is meaningful as one.
pub fn parse_float(text: &str) -> Result<f64, ValueError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(ValueError("expected a number, found nothing".into()));
    }
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => Err(ValueError(format!(
            "expected a finite number, found {}",
            show(t)
        ))),
        Err(_) => Err(ValueError(format!("expected a number, found {}", show(t)))),
    }
}

/// TRUE/FALSE, YES/NO, ON/OFF, 1/0, case-insensitive.
pub fn parse_bool(text: &str) -> Result<bool, ValueError> {
    let t = text.trim();
    match t.to_ascii_uppercase().as_str() {
        "TRUE" | "YES" | "ON" | "1" => Ok(true),
        "FALSE" | "NO" | "OFF" | "0" => Ok(false),
        _ => Err(ValueError(format!(
            "expected a boolean (TRUE/FALSE, YES/NO, ON/OFF, 1/0), found {}",
            show(t)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(t: &str) -> i64 {
        let (d, w) = parse_duration(t).unwrap();
        assert_eq!(w, None, "{t}");
        d.as_secs().unwrap()
    }

    fn derr(t: &str) -> String {
        parse_duration(t).unwrap_err().0
    }

    #[test]
    fn durations() {
        assert_eq!(secs("12:00:00"), 43200);
        assert_eq!(secs("1:00:00:00"), 86400);
        assert_eq!(secs("90"), 90);
        assert_eq!(secs("0"), 0);
        assert_eq!(secs("72:00:00"), 259200);
        assert_eq!(secs("2:23:59:59"), 2 * 86400 + 23 * 3600 + 59 * 60 + 59);
        assert_eq!(secs(" 00:01:05 "), 65);
        assert_eq!(secs("100000"), 100000);
        assert_eq!(
            parse_duration("INFINITY").unwrap(),
            (Duration::Infinity, None)
        );
        assert_eq!(
            parse_duration("infinity").unwrap(),
            (Duration::Infinity, None)
        );
        assert_eq!(Duration::Infinity.as_secs(), None);
    }

    #[test]
    fn two_field_duration_is_mm_ss_with_warning() {
        assert_eq!(
            parse_duration("12:00").unwrap(),
            (
                Duration::Seconds(720),
                Some("read as MM:SS = 720 s; Maui 3.3.1 reads two fields as HH:MM".into())
            )
        );
        // The leading field is unbounded, also for minutes.
        assert_eq!(parse_duration("90:30").unwrap().0, Duration::Seconds(5430));
    }

    #[test]
    fn duration_errors() {
        assert_eq!(
            derr("1:2:3:4:5"),
            "too many `:` fields in duration `1:2:3:4:5`; expected [[[DD:]HH:]MM:]SS or INFINITY"
        );
        assert_eq!(derr("-5"), "a duration cannot be negative: `-5`");
        assert_eq!(
            derr("abc"),
            "expected a duration ([[[DD:]HH:]MM:]SS or INFINITY), found `abc`"
        );
        assert_eq!(
            derr(""),
            "expected a duration ([[[DD:]HH:]MM:]SS or INFINITY), found nothing"
        );
        assert_eq!(
            derr("1:60"),
            "seconds field `60` in duration `1:60` must be below 60"
        );
        assert_eq!(
            derr("1:60:00"),
            "minutes field `60` in duration `1:60:00` must be below 60"
        );
        assert_eq!(
            derr("1:24:00:00"),
            "hours field `24` in duration `1:24:00:00` must be below 24"
        );
        for bad in [
            "1::2", ":5", "5:", "1.5", "+5", "1 2", "INF", "0x10", "１２",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert_eq!(
            derr("99999999999999999999"),
            "duration `99999999999999999999` is too large"
        );
        assert_eq!(
            derr("106751991167301:00:00:00"),
            "duration `106751991167301:00:00:00` is too large"
        );
    }

    #[test]
    fn limit_pairs() {
        assert_eq!(parse_limit_pair("2,8").unwrap(), ((2, 8), None));
        assert_eq!(parse_limit_pair("5").unwrap(), ((5, 5), None));
        assert_eq!(parse_limit_pair("0").unwrap(), ((0, 0), None));
        assert_eq!(parse_limit_pair(" 3 , 3 ").unwrap(), ((3, 3), None));
        assert_eq!(
            parse_limit_pair("8,2").unwrap(),
            (
                (2, 2),
                Some("soft limit 8 is above hard limit 2; using 2 for both".into())
            )
        );
        assert_eq!(
            parse_limit_pair("-1").unwrap_err().0,
            "a limit cannot be negative, found `-1`"
        );
        assert_eq!(
            parse_limit_pair("2,-4").unwrap_err().0,
            "a limit cannot be negative, found `2,-4`"
        );
        let form = "expected a limit `HARD` or `SOFT,HARD` (non-negative integers), found";
        assert_eq!(
            parse_limit_pair("5,2,1").unwrap_err().0,
            format!("{form} `5,2,1`")
        );
        assert_eq!(
            parse_limit_pair("abc").unwrap_err().0,
            format!("{form} `abc`")
        );
        for bad in ["", "5,", ",5", "1.5", "-", "2;4"] {
            assert!(parse_limit_pair(bad).is_err(), "{bad}");
        }
        assert_eq!(
            parse_limit_pair("99999999999999999999").unwrap_err().0,
            "limit `99999999999999999999` is out of range"
        );
    }

    #[test]
    fn ints() {
        assert_eq!(parse_int("42"), Ok(42));
        assert_eq!(parse_int("-1000"), Ok(-1000));
        assert_eq!(parse_int("+7"), Ok(7));
        assert_eq!(
            parse_int("abc").unwrap_err().0,
            "expected an integer, found `abc`"
        );
        assert_eq!(
            parse_int("").unwrap_err().0,
            "expected an integer, found nothing"
        );
        assert_eq!(
            parse_int("1.0").unwrap_err().0,
            "expected an integer, found `1.0`"
        );
        assert_eq!(
            parse_int("9223372036854775808").unwrap_err().0,
            "integer `9223372036854775808` is out of range"
        );
        assert_eq!(parse_int("-9223372036854775808"), Ok(i64::MIN));
    }

    #[test]
    fn floats() {
        assert_eq!(parse_float("0.5"), Ok(0.5));
        assert_eq!(parse_float(".01"), Ok(0.01));
        assert_eq!(parse_float("-3"), Ok(-3.0));
        assert_eq!(parse_float("1e3"), Ok(1000.0));
        assert_eq!(
            parse_float("x").unwrap_err().0,
            "expected a number, found `x`"
        );
        assert_eq!(
            parse_float("").unwrap_err().0,
            "expected a number, found nothing"
        );
        for bad in ["NaN", "inf", "-infinity", "1e999"] {
            assert_eq!(
                parse_float(bad).unwrap_err().0,
                format!("expected a finite number, found `{bad}`")
            );
        }
    }

    #[test]
    fn bools() {
        for t in ["TRUE", "true", "Yes", "ON", "1"] {
            assert_eq!(parse_bool(t), Ok(true), "{t}");
        }
        for t in ["FALSE", "false", "no", "Off", "0"] {
            assert_eq!(parse_bool(t), Ok(false), "{t}");
        }
        assert_eq!(
            parse_bool("maybe").unwrap_err().0,
            "expected a boolean (TRUE/FALSE, YES/NO, ON/OFF, 1/0), found `maybe`"
        );
    }
}
