//! `parse_file`: includes, cycles, depth, missing files, invalid UTF-8.

use std::fs;
use std::path::{Path, PathBuf};

use mauisim_config::{parse_file, ConfigError, Location, MAX_INCLUDE_DEPTH};

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    fs::write(&p, text).unwrap();
    p
}

fn name(p: &Path) -> String {
    p.display().to_string()
}

#[test]
fn include_splices_entries_in_place_with_their_own_locations() {
    let dir = tempfile::tempdir().unwrap();
    let main = write(dir.path(), "maui.cfg", "A 1\n#INCLUDE sub/users.cfg\nC 3\n");
    let users = write(dir.path(), "sub/users.cfg", "\n  B 2\n");
    let parsed = parse_file(&main).unwrap();
    let got: Vec<(String, String, Location)> = parsed
        .entries
        .iter()
        .map(|e| (e.name.clone(), e.value_text(), e.location.clone()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("A".into(), "1".into(), Location::new(name(&main), 1, 1)),
            ("B".into(), "2".into(), Location::new(name(&users), 2, 3)),
            ("C".into(), "3".into(), Location::new(name(&main), 3, 1)),
        ]
    );
}

#[test]
fn include_paths_are_relative_to_the_including_file_and_may_be_quoted() {
    let dir = tempfile::tempdir().unwrap();
    let main = write(
        dir.path(),
        "maui.cfg",
        "#include \"sub dir/a.cfg\" # note\n",
    );
    write(dir.path(), "sub dir/a.cfg", "#INCLUDE 'b.cfg'\n");
    let b = write(dir.path(), "sub dir/b.cfg", "B x\n");
    let parsed = parse_file(&main).unwrap();
    assert_eq!(parsed.entries.len(), 1);
    assert_eq!(parsed.entries[0].location, Location::new(name(&b), 1, 1));
}

#[test]
fn absolute_include_path() {
    let dir = tempfile::tempdir().unwrap();
    let abs = write(dir.path(), "abs.cfg", "Z 9\n");
    let main = write(
        dir.path(),
        "other/maui.cfg",
        &format!("#INCLUDE {}\n", abs.display()),
    );
    assert_eq!(parse_file(&main).unwrap().entries[0].name, "Z");
}

#[test]
fn same_file_included_twice_is_not_a_cycle() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "c.cfg", "C 1\n");
    let main = write(dir.path(), "maui.cfg", "#INCLUDE c.cfg\n#INCLUDE c.cfg\n");
    assert_eq!(parse_file(&main).unwrap().entries.len(), 2);
}

#[test]
fn self_include_is_a_cycle_error_naming_the_chain() {
    let dir = tempfile::tempdir().unwrap();
    let main = write(dir.path(), "maui.cfg", "A 1\n\n #INCLUDE maui.cfg\n");
    let err = parse_file(&main).unwrap_err();
    let ConfigError::Include { location, message } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(*location, Location::new(name(&main), 3, 2));
    let included = name(&dir.path().join("maui.cfg"));
    assert_eq!(
        *message,
        format!("include cycle: {} -> {}", name(&main), included)
    );
}

#[test]
fn indirect_cycle_names_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.cfg", "#INCLUDE b.cfg\n");
    let b = write(dir.path(), "b.cfg", "X 1\n#INCLUDE ./a.cfg\n");
    let err = parse_file(&a).unwrap_err();
    let ConfigError::Include { location, message } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(*location, Location::new(name(&b), 2, 1));
    let a_again = name(&dir.path().join("./a.cfg"));
    assert_eq!(
        *message,
        format!("include cycle: {} -> {} -> {}", name(&a), name(&b), a_again)
    );
    assert!(err.to_string().contains("a.cfg") && err.to_string().contains("b.cfg"));
}

/// As Maui 3.3.1 passes over an include it cannot load, the file reads on: a warning at
/// the directive, and the lines after it are read.
#[test]
fn missing_include_is_warned_of_at_the_directive_and_reading_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let main = write(
        dir.path(),
        "maui.cfg",
        "A 1\nB 2\n\t#INCLUDE nope.cfg\nC 3\n",
    );
    let parsed = parse_file(&main).unwrap();
    let names: Vec<&str> = parsed.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["A", "B", "C"]);
    let [warning] = &parsed.warnings[..] else {
        panic!("{:?}", parsed.warnings);
    };
    assert_eq!(warning.location, Location::new(name(&main), 3, 2));
    let missing = name(&dir.path().join("nope.cfg"));
    assert!(
        warning
            .message
            .starts_with(&format!("cannot read included file `{missing}`: ")),
        "{}",
        warning.message
    );
    assert!(warning.message.ends_with(
        "its lines are not read (Maui 3.3.1 too passes over an include it cannot load)"
    ));
}

#[test]
fn missing_top_file_is_an_io_error() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("absent.cfg");
    let err = parse_file(&p).unwrap_err();
    let ConfigError::Io { path, source } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(*path, name(&p));
    assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
}

#[test]
fn include_argument_errors() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("#INCLUDE\n", 1, 1, "#INCLUDE needs a file name"),
        ("\n  #INCLUDE ''\n", 2, 3, "#INCLUDE needs a file name"),
        (
            "#INCLUDE a b\n",
            1,
            12,
            "#INCLUDE takes one file name; unexpected `b` (quote names with spaces)",
        ),
    ];
    for (text, line, col, msg) in cases {
        let main = write(dir.path(), "maui.cfg", text);
        let err = parse_file(&main).unwrap_err();
        let ConfigError::Include { location, message } = &err else {
            panic!("{err:?}");
        };
        assert_eq!(*location, Location::new(name(&main), line, col), "{text:?}");
        assert_eq!(message, msg);
    }
}

#[test]
fn depth_limit() {
    let dir = tempfile::tempdir().unwrap();
    // f0 includes f1 ... includes fN; fN is at depth N.
    let chain = |n: usize| {
        for i in 0..n {
            write(
                dir.path(),
                &format!("f{i}.cfg"),
                &format!("#INCLUDE f{}.cfg\n", i + 1),
            );
        }
        write(dir.path(), &format!("f{n}.cfg"), "LEAF 1\n");
        dir.path().join("f0.cfg")
    };
    let ok = parse_file(&chain(MAX_INCLUDE_DEPTH)).unwrap();
    assert_eq!(ok.entries.len(), 1);

    let err = parse_file(&chain(MAX_INCLUDE_DEPTH + 1)).unwrap_err();
    let ConfigError::Include { location, message } = &err else {
        panic!("{err:?}");
    };
    let last_includer = dir.path().join(format!("f{MAX_INCLUDE_DEPTH}.cfg"));
    assert_eq!(*location, Location::new(name(&last_includer), 1, 1));
    assert!(message.contains("deeper than 16"), "{message}");
}

#[test]
fn errors_inside_included_files_name_that_file() {
    let dir = tempfile::tempdir().unwrap();
    let main = write(dir.path(), "maui.cfg", "A 1\n#INCLUDE bad.cfg\n");
    let bad = write(dir.path(), "bad.cfg", "\nX 'open\n");
    let err = parse_file(&main).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("{}:2:3: unterminated quote `'`", name(&bad))
    );
}

#[test]
fn warnings_from_all_files_are_collected() {
    let dir = tempfile::tempdir().unwrap();
    let main = write(dir.path(), "maui.cfg", "#INCLUDE w.cfg\nUSERCFG [a]\n");
    let w = write(dir.path(), "w.cfg", "A 1 \\");
    let parsed = parse_file(&main).unwrap();
    let locs: Vec<&Location> = parsed.warnings.iter().map(|w| &w.location).collect();
    assert_eq!(
        locs,
        vec![
            &Location::new(name(&w), 1, 5),
            &Location::new(name(&main), 2, 9)
        ]
    );
}

#[test]
fn invalid_utf8_names_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bin.cfg");
    fs::write(&p, b"A 1\nB \xC3\xA9 \xFF\xFE\n").unwrap();
    let err = parse_file(&p).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}:2:5: file is not valid UTF-8 (byte 0xFF on line 2)",
            name(&p)
        )
    );
    fs::write(&p, b"\xEF\xBB\xBFA \x80").unwrap();
    let err = parse_file(&p).unwrap_err();
    assert_eq!(err.location(), Some(&Location::new(name(&p), 1, 3)));
}

#[test]
fn crlf_file_with_bom() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("win.cfg");
    fs::write(&p, b"\xEF\xBB\xBFFSDEPTH 4\r\nFSDECAY 0.5\r\n").unwrap();
    let parsed = parse_file(&p).unwrap();
    let got: Vec<(&str, String)> = parsed
        .entries
        .iter()
        .map(|e| (e.name.as_str(), e.value_text()))
        .collect();
    assert_eq!(got, [("FSDEPTH", "4".into()), ("FSDECAY", "0.5".into())]);
}
