//! `parse_str`: entries, attributes and every syntax error with its exact location.

use mauisim_config::{parse_str, Attr, ConfigError, Entry, Location, Token};

const F: &str = "maui.cfg";

fn loc(line: usize, column: usize) -> Location {
    Location::new(F, line, column)
}

fn tok(text: &str, line: usize, column: usize) -> Token {
    Token {
        text: text.into(),
        location: loc(line, column),
    }
}

fn entries(text: &str) -> Vec<Entry> {
    let parsed = parse_str(text, F).unwrap();
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    parsed.entries
}

fn one(text: &str) -> Entry {
    let mut e = entries(text);
    assert_eq!(e.len(), 1, "{e:?}");
    e.remove(0)
}

/// The error's full display text, and that it is a Syntax error.
fn syntax_err(text: &str) -> String {
    match parse_str(text, F) {
        Err(e @ ConfigError::Syntax { .. }) => e.to_string(),
        other => panic!("expected a syntax error for {text:?}, got {other:?}"),
    }
}

fn attr(name: &str, index: Option<&str>, value: &str, line: usize, column: usize) -> Attr {
    Attr {
        name: name.into(),
        index: index.map(Into::into),
        value: value.into(),
        location: loc(line, column),
    }
}

// ---- the guide's example lines ----

#[test]
fn guide_usercfg_limits() {
    let e = one("USERCFG[steve] MAXJOB=2,4 MAXNODE=15,30\n");
    assert_eq!(
        e,
        Entry {
            name: "USERCFG".into(),
            index: Some("steve".into()),
            values: vec![tok("MAXJOB=2,4", 1, 16), tok("MAXNODE=15,30", 1, 27)],
            location: loc(1, 1),
        }
    );
    assert_eq!(
        e.attrs().unwrap(),
        vec![
            attr("MAXJOB", None, "2,4", 1, 16),
            attr("MAXNODE", None, "15,30", 1, 27)
        ]
    );
}

#[test]
fn guide_nodecfg_priority_function() {
    let e = one("NODECFG[DEFAULT] PRIORITYF='SPEED+ .01 * AMEM - 10 * JOBCOUNT'\n");
    assert_eq!(e.name, "NODECFG");
    assert_eq!(e.index.as_deref(), Some("DEFAULT"));
    assert_eq!(
        e.values,
        vec![tok("PRIORITYF=SPEED+ .01 * AMEM - 10 * JOBCOUNT", 1, 18)]
    );
    assert_eq!(
        e.attrs().unwrap(),
        vec![attr(
            "PRIORITYF",
            None,
            "SPEED+ .01 * AMEM - 10 * JOBCOUNT",
            1,
            18
        )]
    );
}

#[test]
fn guide_classcfg_two_dimensional_limit() {
    let e = one("CLASSCFG[fast] MAXPROC[USER:steve]=3\n");
    assert_eq!(
        e.attrs().unwrap(),
        vec![attr("MAXPROC", Some("USER:steve"), "3", 1, 16)]
    );
}

#[test]
fn guide_reservationdepth_and_fsinterval() {
    let e = entries("RESERVATIONDEPTH[1] 2\nFSINTERVAL 12:00:00\n");
    assert_eq!(
        e,
        vec![
            Entry {
                name: "RESERVATIONDEPTH".into(),
                index: Some("1".into()),
                values: vec![tok("2", 1, 21)],
                location: loc(1, 1),
            },
            Entry {
                name: "FSINTERVAL".into(),
                index: None,
                values: vec![tok("12:00:00", 2, 12)],
                location: loc(2, 1),
            },
        ]
    );
    assert_eq!(e[1].value_text(), "12:00:00");
}

#[test]
fn guide_throttling_block() {
    let text = "\
# maui.cfg
USERCFG[steve]    MAXJOB=2,4 MAXNODE=15,30
GROUPCFG[staff]   MAXJOB=2,5
CLASSCFG[batch]   MAXNODE=12,32
QOSCFG[hiprio]    MAXJOB=3,5 MAXNODE=32,64
USERCFG[paul]   PRIORITY=-1000
";
    let e = entries(text);
    let names: Vec<(&str, &str)> = e
        .iter()
        .map(|e| (e.name.as_str(), e.index.as_deref().unwrap()))
        .collect();
    assert_eq!(
        names,
        [
            ("USERCFG", "steve"),
            ("GROUPCFG", "staff"),
            ("CLASSCFG", "batch"),
            ("QOSCFG", "hiprio"),
            ("USERCFG", "paul")
        ]
    );
    assert_eq!(
        e[3].attrs().unwrap(),
        vec![
            attr("MAXJOB", None, "3,5", 5, 19),
            attr("MAXNODE", None, "32,64", 5, 30)
        ]
    );
    assert_eq!(
        e[4].attrs().unwrap(),
        vec![attr("PRIORITY", None, "-1000", 6, 17)]
    );
}

// ---- names, indexes and `=` ----

#[test]
fn names_are_uppercased_and_indexes_keep_case() {
    let e = one("userCfg[Steve] maxJob=1\n");
    assert_eq!(e.name, "USERCFG");
    assert_eq!(e.index.as_deref(), Some("Steve"));
    assert_eq!(e.attrs().unwrap()[0].name, "MAXJOB");
}

#[test]
fn index_is_trimmed_and_may_contain_spaces_inside_brackets() {
    let e = one("USERCFG[ steve ] MAXJOB=1\n");
    assert_eq!(e.index.as_deref(), Some("steve"));
    assert_eq!(e.values, vec![tok("MAXJOB=1", 1, 18)]);
}

#[test]
fn name_characters_include_digits_underscore_and_dot() {
    let e = one("A_B.C9 x\n");
    assert_eq!(e.name, "A_B.C9");
}

#[test]
fn name_without_values() {
    let e = one("SYSTEMCFG\n");
    assert_eq!(e.values, vec![]);
    assert_eq!(e.index, None);
    assert_eq!(e.value_text(), "");
}

#[test]
fn equals_between_name_and_value_means_a_space() {
    for (text, col) in [
        ("BACKFILLPOLICY FIRSTFIT", 16),
        ("BACKFILLPOLICY=FIRSTFIT", 16),
        ("BACKFILLPOLICY = FIRSTFIT", 18),
        ("BACKFILLPOLICY =FIRSTFIT", 17),
        ("BACKFILLPOLICY= FIRSTFIT", 17),
    ] {
        let e = one(text);
        assert_eq!(e.name, "BACKFILLPOLICY", "{text}");
        assert_eq!(e.values, vec![tok("FIRSTFIT", 1, col)], "{text}");
        assert_eq!(e.value_text(), "FIRSTFIT");
    }
    let e = one("RESERVATIONDEPTH[2]=4");
    assert_eq!(e.index.as_deref(), Some("2"));
    assert_eq!(e.values, vec![tok("4", 1, 21)]);
    assert_eq!(one("FOO=").values, vec![]);
    assert_eq!(one("FOO =").values, vec![]);
}

#[test]
fn only_one_equals_is_dropped() {
    let e = one("FOO= =x");
    assert_eq!(e.values, vec![tok("=x", 1, 6)]);
}

#[test]
fn quoted_first_value_after_equals() {
    let e = one("FOO='a b' c");
    assert_eq!(e.values, vec![tok("a b", 1, 5), tok("c", 1, 11)]);
}

#[test]
fn value_text_joins_multiple_values() {
    assert_eq!(one("QOSLIST a  b\tc").value_text(), "a b c");
}

#[test]
fn empty_quoted_attribute_value_is_allowed() {
    let e = one("USERCFG[x] QLIST='' PLIST=\"\"\n");
    assert_eq!(
        e.attrs().unwrap(),
        vec![
            attr("QLIST", None, "", 1, 12),
            attr("PLIST", None, "", 1, 21)
        ]
    );
}

#[test]
fn quotes_inside_an_attribute_value() {
    let e = one(r#"NODECFG[a] FEATURES="x y"z'#'"#);
    assert_eq!(e.attrs().unwrap()[0].value, "x yz#");
}

#[test]
fn space_before_index_warns() {
    let parsed = parse_str("USERCFG [steve] MAXJOB=1\n", F).unwrap();
    assert_eq!(parsed.entries[0].index, None);
    assert_eq!(parsed.warnings.len(), 1);
    assert_eq!(
        parsed.warnings[0].to_string(),
        "maui.cfg:1:9: warning: `[steve]` is a value, not an index; write `USERCFG[...]` without a space"
    );
}

/// `[NONE]` is Maui's own spelling of NONE (its NONE macro, printed by `showconfig`):
/// read as NONE, without the warning about an index written after a space.
#[test]
fn maui_none_in_brackets_is_none() {
    let parsed = parse_str("FSPOLICY [NONE]\nBACKFILLPOLICY  [NONE]\n", F).unwrap();
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let values: Vec<&str> = parsed
        .entries
        .iter()
        .map(|e| e.values[0].text.as_str())
        .collect();
    assert_eq!(values, ["NONE", "NONE"]);
}

// ---- lines: comments, continuation, CRLF, BOM, blank lines ----

#[test]
fn comments_and_blank_lines() {
    let e = entries("# c\n\n   \nFSDEPTH 4 # four windows\n\t# indented\nFSDECAY 0.5#x\n");
    assert_eq!(e.len(), 2);
    assert_eq!(e[0].location, loc(4, 1));
    assert_eq!(e[0].value_text(), "4");
    assert_eq!(e[1].location, loc(6, 1));
    assert_eq!(e[1].value_text(), "0.5");
}

#[test]
fn hash_in_quotes_is_not_a_comment() {
    assert_eq!(one("X '# not a comment'").value_text(), "# not a comment");
}

#[test]
fn continuation_keeps_first_line_location_and_token_locations() {
    let e = one("USERCFG[steve] MAXJOB=2,4 \\\n    MAXNODE=15,30\n");
    assert_eq!(e.location, loc(1, 1));
    assert_eq!(
        e.values,
        vec![tok("MAXJOB=2,4", 1, 16), tok("MAXNODE=15,30", 2, 5)]
    );
}

#[test]
fn continuation_with_trailing_whitespace_and_crlf() {
    let e = entries("A 1 \\ \t\r\n 2\r\nB 3\r\n");
    assert_eq!(e.len(), 2);
    assert_eq!(e[0].value_text(), "1 2");
    assert_eq!(e[1].location, loc(3, 1));
    assert_eq!(e[1].value_text(), "3");
}

#[test]
fn continuation_at_end_of_input_is_a_warning() {
    let parsed = parse_str("A 1 \\", F).unwrap();
    assert_eq!(parsed.entries.len(), 1);
    assert_eq!(
        parsed.warnings[0].to_string(),
        "maui.cfg:1:5: warning: line continuation `\\` at end of file"
    );
}

#[test]
fn bom_is_skipped_and_columns_start_after_it() {
    let e = one("\u{FEFF}FSDEPTH 4");
    assert_eq!(e.name, "FSDEPTH");
    assert_eq!(e.values, vec![tok("4", 1, 9)]);
}

#[test]
fn tabs_are_whitespace() {
    let e = one("\tFSDEPTH\t\t4\t");
    assert_eq!(e.location, loc(1, 2));
    assert_eq!(e.values, vec![tok("4", 1, 11)]);
}

#[test]
fn empty_input() {
    assert_eq!(parse_str("", F).unwrap().entries, vec![]);
    assert_eq!(parse_str("\n\n# only\n", F).unwrap().entries, vec![]);
}

// ---- errors, each with exact line and column ----

#[test]
fn unterminated_quote() {
    assert_eq!(
        syntax_err("A 1\nNODECFG[x] PRIORITYF='SPEED + 1\n"),
        "maui.cfg:2:22: unterminated quote `'`"
    );
    assert_eq!(syntax_err("A \"x"), "maui.cfg:1:3: unterminated quote `\"`");
}

#[test]
fn bad_parameter_names() {
    assert_eq!(
        syntax_err("\n  [x] 1"),
        "maui.cfg:2:3: expected a parameter name, found `[x]`"
    );
    assert_eq!(
        syntax_err("]]"),
        "maui.cfg:1:1: expected a parameter name, found `]]`"
    );
    assert_eq!(
        syntax_err("["),
        "maui.cfg:1:1: expected a parameter name, found `[`"
    );
    assert_eq!(
        syntax_err("=5"),
        "maui.cfg:1:1: expected a parameter name, found `=5`"
    );
    assert_eq!(
        syntax_err("'A' 1"),
        "maui.cfg:1:1: expected a parameter name, found `A`"
    );
    assert_eq!(
        syntax_err("A-B 1"),
        "maui.cfg:1:2: unexpected `-` after parameter name `A`"
    );
    assert_eq!(
        syntax_err("A'x' 1"),
        "maui.cfg:1:2: unexpected quote `'` after parameter name `A`"
    );
    assert_eq!(
        syntax_err("USERCFG[x]] 1"),
        "maui.cfg:1:11: unexpected `]` after parameter name `USERCFG[x]`"
    );
    assert_eq!(
        syntax_err("USERCFG[x]y 1"),
        "maui.cfg:1:11: unexpected `y` after parameter name `USERCFG[x]`"
    );
}

#[test]
fn bad_indexes() {
    assert_eq!(
        syntax_err("X 1\n USERCFG[steve MAXJOB=1"),
        "maui.cfg:2:9: unterminated `[` after `USERCFG`"
    );
    assert_eq!(syntax_err("A["), "maui.cfg:1:2: unterminated `[` after `A`");
    assert_eq!(
        syntax_err("A[] 1"),
        "maui.cfg:1:2: empty index `[]` after `A`"
    );
    assert_eq!(
        syntax_err("A[  ] 1"),
        "maui.cfg:1:2: empty index `[]` after `A`"
    );
    assert_eq!(
        syntax_err("A[[x]] 1"),
        "maui.cfg:1:3: unexpected `[` inside the index of `A`"
    );
}

/// `KEY=` is an empty value, as in Maui (templates write `PLIST=`); a lone `=` is not.
#[test]
fn bare_equals_without_value() {
    let e = one("USERCFG[x] MAXJOB=2 QLIST=\n");
    let attrs = e.attrs().unwrap();
    assert_eq!(
        (attrs[1].name.as_str(), attrs[1].value.as_str()),
        ("QLIST", "")
    );
    assert_eq!(
        syntax_err("USERCFG[x] MAXJOB = 2"),
        "maui.cfg:1:19: stray `=`: write attributes as KEY=VALUE without spaces around `=`"
    );
}

#[test]
fn attribute_errors_are_located_at_their_token() {
    let e = one("USERCFG[steve] MAXJOB=2 \\\n   bogus =3");
    let err = e.attrs().unwrap_err();
    assert_eq!(
        err.to_string(),
        "maui.cfg:2:4: expected `=` after attribute name `BOGUS` in `bogus` (attributes are KEY=VALUE)"
    );
    let e = one("USERCFG[steve] =3");
    assert_eq!(e.values, vec![tok("3", 1, 17)]);
    let e = one("USERCFG[steve] MAXJOB=1 =3");
    assert_eq!(
        e.attrs().unwrap_err().to_string(),
        "maui.cfg:1:25: expected an attribute `KEY=VALUE`, found `=3`"
    );
    let e = one("CLASSCFG[fast] MAXPROC[USER:steve=3");
    assert_eq!(
        e.attrs().unwrap_err().to_string(),
        "maui.cfg:1:16: unterminated `[` in attribute `MAXPROC[USER:steve=3`"
    );
}

#[test]
fn include_in_a_string_is_an_error() {
    match parse_str("A 1\n  #INCLUDE other.cfg\n", F) {
        Err(e @ ConfigError::Include { .. }) => {
            assert_eq!(e.location(), Some(&loc(2, 3)));
            assert!(e.to_string().contains("#INCLUDE is not supported"), "{e}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn overlong_logical_line() {
    let text = format!("A 1\n\nB {}", "x".repeat(2 << 20));
    let err = syntax_err(&text);
    assert!(
        err.starts_with("maui.cfg:3:1: logical line is longer than"),
        "{err}"
    );
}

#[test]
fn errors_stop_at_the_first_problem_in_file_order() {
    assert_eq!(
        syntax_err("A 1\nB[ 2\nC 'x\n"),
        "maui.cfg:2:2: unterminated `[` after `B`"
    );
}

#[test]
fn garbage_does_not_panic() {
    let junk = [
        "\0\0\0",
        "[",
        "]]",
        "[[[]]]",
        "=",
        "= = =",
        "'",
        "\"",
        "\\",
        "\\\\\n\\",
        "#INCLUDE",
        "A[\\\n]",
        "\u{FEFF}\u{FEFF}",
        "\r\r\r",
        "A ''=",
        "Ω[Ω]=Ω",
        "A[x]=",
    ];
    for j in junk {
        let _ = parse_str(j, F);
    }
    let bytes: Vec<u8> = (0u8..=255).cycle().take(10_000).collect();
    let _ = parse_str(&String::from_utf8_lossy(&bytes), F);
}
