//! The bad-input corpus (`tests/bad_input/` at the repository root, listed in `cases.toml`): each file gives
//! exactly the message it should, the command fails, and nothing is written; the inputs
//! mauisim accepts (BOM, CRLF, unsorted records, duplicate ids) say what they adjusted.

use serde::Deserialize;
use std::path::Path;
use std::process::Command;

#[derive(Deserialize)]
struct Cases {
    case: Vec<Case>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    file: String,
    #[serde(rename = "as")]
    used_as: String,
    error: Option<String>,
    #[serde(default)]
    ok: bool,
    stdout: Option<String>,
    stderr: Option<String>,
}

#[test]
fn every_bad_input_gives_its_message_and_writes_nothing() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/bad_input");
    let text = std::fs::read_to_string(corpus.join("cases.toml")).unwrap();
    let cases: Cases = toml::from_str(&text).unwrap();
    let listed: Vec<&str> = cases.case.iter().map(|c| c.file.as_str()).collect();
    for entry in std::fs::read_dir(&corpus).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            name == "cases.toml" || listed.contains(&name.as_str()),
            "{name} has no case"
        );
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (k, case) in cases.case.iter().enumerate() {
        let out = tmp.path().join(format!("out-{k}"));
        let out_arg = out.to_str().unwrap();
        let args: Vec<&str> = match case.used_as.as_str() {
            "trace" => vec!["run", &case.file, "--procs", "8", "-o", out_arg],
            "config" => vec![
                "run", "bom.swf", "--config", &case.file, "--procs", "8", "-o", out_arg,
            ],
            "scenario" => vec!["scenario", &case.file],
            other => panic!("{}: unknown use `{other}`", case.file),
        };
        let output = Command::new(env!("CARGO_BIN_EXE_mauisim"))
            .current_dir(&corpus)
            .args(&args)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let mut problem = |what: String| failures.push(format!("{}: {what}", case.file));
        if case.ok {
            if !output.status.success() {
                problem(format!("failed: {stderr}"));
            }
            for (want, got) in [(&case.stdout, &stdout), (&case.stderr, &stderr)] {
                if let Some(line) = want {
                    if !got.lines().any(|l| l == line) {
                        problem(format!("no line `{line}` in:\n{got}"));
                    }
                }
            }
        } else {
            let expected = format!("Error: {}", case.error.as_deref().expect("an error or ok"));
            if output.status.success() {
                problem("succeeded".into());
            }
            if stderr.trim_end() != expected {
                problem(format!(
                    "said `{}`, expected `{expected}`",
                    stderr.trim_end()
                ));
            }
            if out.exists() {
                problem("left an output directory".into());
            }
        }
    }
    let leftovers: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "staging left behind: {leftovers:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
