//! "Did you mean" suggestions for misspelt names.

/// The closest candidate by case-insensitive edit distance (Damerau, optimal string alignment),
/// only if close enough: distance <= max(2, len/3) where len is `name`'s length in characters.
/// Ties go to the first candidate in order.
///
/// A candidate that shares nothing with `name` (distance equal to the longer length, e.g.
/// `AB` vs `XY`) is never suggested, since that would be a replacement, not a correction.
pub fn closest<'a>(name: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let name = fold(name);
    let limit = (name.chars().count() / 3).max(2);
    let mut best: Option<(usize, &'a str)> = None;
    for &cand in candidates {
        let folded = fold(cand);
        // Distance is at least the length difference; skipping early bounds the work when
        // `name` is huge garbage.
        let (len, cand_len) = (name.chars().count(), folded.chars().count());
        if cand_len.abs_diff(len) > limit {
            continue;
        }
        // Levenshtein plus adjacent transpositions (`MAXJBO` -> `MAXJOB` is one edit).
        let d = strsim::osa_distance(&name, &folded);
        let useful = d == 0 || d < len.max(cand_len);
        let better = match best {
            None => true,
            Some((b, _)) => d < b,
        };
        if d <= limit && useful && better {
            best = Some((d, cand));
        }
    }
    if best.is_some_and(|(d, _)| d <= 1) {
        return best.map(|(_, c)| c);
    }
    abbreviated(&name, candidates).or(best.map(|(_, c)| c))
}

/// The shortest candidate `name` abbreviates: its letters in order, from the same first
/// four (`NODEALLOCPOLICY` for NODEALLOCATIONPOLICY, `MAXJOBPERUSER` for
/// MAXJOBPERUSERCOUNT), for names of six letters or more; ties go to the first.
fn abbreviated<'a>(name: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let len = name.chars().count();
    if len < 6 {
        return None;
    }
    let head: String = name.chars().take(4).collect();
    let mut best: Option<(usize, &'a str)> = None;
    for &cand in candidates {
        let folded = fold(cand);
        let cand_len = folded.chars().count();
        if cand_len <= len || cand_len > 2 * len || !folded.starts_with(&head) {
            continue;
        }
        let mut rest = folded.chars();
        let holds = name.chars().all(|c| rest.any(|d| d == c));
        if holds && best.is_none_or(|(b, _)| cand_len < b) {
            best = Some((cand_len, cand));
        }
    }
    best.map(|(_, c)| c)
}

fn fold(s: &str) -> String {
    s.chars().flat_map(char::to_uppercase).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: &[&str] = &[
        "RESERVATIONDEPTH",
        "RESERVATIONPOLICY",
        "BACKFILLPOLICY",
        "FSINTERVAL",
        "FSDEPTH",
        "FSDECAY",
        "MAXJOB",
        "MAXNODE",
    ];

    fn dist(a: &str, b: &str) -> usize {
        strsim::osa_distance(&fold(a), &fold(b))
    }

    #[test]
    fn distances() {
        assert_eq!(dist("", ""), 0);
        assert_eq!(dist("abc", ""), 3);
        assert_eq!(dist("kitten", "sitting"), 3);
        assert_eq!(dist("MAXJBO", "MAXJOB"), 1);
        assert_eq!(dist("maxjob", "MAXJOB"), 0);
    }

    #[test]
    fn suggests_close_names_case_insensitively() {
        assert_eq!(closest("reservationdepth", NAMES), Some("RESERVATIONDEPTH"));
        assert_eq!(closest("RESERVATONDEPTH", NAMES), Some("RESERVATIONDEPTH"));
        assert_eq!(closest("BACKFILPOLICY", NAMES), Some("BACKFILLPOLICY"));
        assert_eq!(closest("FSINTERVALL", NAMES), Some("FSINTERVAL"));
        assert_eq!(closest("MAXJBO", NAMES), Some("MAXJOB"));
        assert_eq!(closest("FSDEPT", NAMES), Some("FSDEPTH"));
    }

    /// A name that leaves letters out of a longer one is taken for it, where no candidate
    /// is one edit away (the edit distance alone offers NODELOADPOLICY for the first).
    #[test]
    fn abbreviations_suggest_the_name_they_shorten() {
        let names = [
            "NODELOADPOLICY",
            "NODEALLOCATIONPOLICY",
            "MAXJOBPERUSERCOUNT",
            "MAXJOB",
        ];
        assert_eq!(
            closest("NODEALLOCPOLICY", &names),
            Some("NODEALLOCATIONPOLICY")
        );
        assert_eq!(closest("maxjobperuser", &names), Some("MAXJOBPERUSERCOUNT"));
        // One edit still wins, and short names are not read as abbreviations.
        assert_eq!(closest("NODELODPOLICY", &names), Some("NODELOADPOLICY"));
        assert_eq!(closest("MAXJB", &names), Some("MAXJOB"));
        // An abbreviation keeps the name's first four letters.
        assert_eq!(closest("ALLOCPOLICY", &["NODEALLOCATIONPOLICY"]), None);
    }

    #[test]
    fn ties_go_to_the_first_candidate() {
        assert_eq!(closest("MAXJOBX", &["MAXJOBA", "MAXJOBB"]), Some("MAXJOBA"));
        assert_eq!(closest("MAXJOBX", &["MAXJOBB", "MAXJOBA"]), Some("MAXJOBB"));
        // A strictly closer later candidate still wins.
        assert_eq!(closest("FSDEPAY", NAMES), Some("FSDECAY"));
    }

    #[test]
    fn rejects_far_names() {
        assert_eq!(closest("NODEALLOCATIONPOLICY", NAMES), None);
        assert_eq!(closest("XYZ", NAMES), None);
        assert_eq!(closest("AB", &["XY"]), None);
        assert_eq!(closest("A", &["B"]), None);
        assert_eq!(closest("A", &["AB"]), Some("AB"));
        assert_eq!(closest("anything", &[]), None);
        assert_eq!(closest(&"Q".repeat(100_000), NAMES), None);
    }

    #[test]
    fn limit_grows_with_length() {
        // Limit is max(2, len/3): 3 for 10 characters, 4 for 13 or 14.
        assert_eq!(closest("RESERVXXXDEPTH", &["RESERVATIONDEPTH"]), None);
        assert_eq!(closest("FSINTXXXAL", &["FSINTERVAL"]), Some("FSINTERVAL"));
        assert_eq!(closest("BACKFXXXXXICY", &["BACKFILLPOLICY"]), None);
    }
}
