//! Real maui.cfg files published by HPC sites (`maui_cfg_corpus/`, sources in its
//! SOURCES.md), run as they are on a small trace and on nodes named as those sites name
//! them. Each must load without an error and without a warning that hides a scheduling
//! effect, except for the parameters mauisim does not simulate yet, which each file lists
//! here exactly: when one becomes simulated its entry must go, and a new refusal fails.

use mauisim_sim::{run, RunOptions};
use std::path::{Path, PathBuf};

/// Refusals still expected, per file: the names that start its error lines.
const NOT_YET: &[(&str, &[&str])] = &[];

/// Warnings that say a setting is read as something else, still expected per file (the
/// same rule: when the setting is simulated the entry must go).
const READ_AS_OTHER: &[(&str, &str)] = &[
    // Binds only jobs that ask for swap, which no SWF job does (the corpus trace).
    (
        "07-Arctur-hpc-puppet.cfg",
        "NODEAVAILABILITYPOLICY UTILIZED for SWAP",
    ),
];

/// Warnings that would hide a scheduling effect: anything read as something else.
const HIDING: &[&str] = &[
    "not simulated",
    "read as SINGLEJOB",
    "Maui 3.3.1 defers (DEFERTIME",
];

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/maui_cfg_corpus")
}

/// 42 two-processor nodes named as the corpus' clusters name theirs (Rocks'
/// compute-R-N), the 44 four-processor ones its partition configs name, and an SWF trace
/// of 30 jobs on them.
fn inputs(dir: &Path) -> (PathBuf, PathBuf) {
    let mut nodes = String::new();
    for rack in 0..3 {
        for n in 0..14 {
            nodes.push_str(&format!(
                "COMPUTENODE AVAILABLE 0 compute-{rack}-{n} rm 4096 2048 10000 2 1 1 1 LINUX x86 [] [batch:2] - 1.0 - - -\n"
            ));
        }
    }
    // And the nodes the partition configs name (10: grid workers with standing
    // reservations of 4 processors, 11: a cluster's compute and login nodes, 19: grid
    // workers kept by standing reservations).
    let named = [
        "wn.example.org",
        "wn2.example.org",
        "nigol1",
        "nigol2",
        "wn010.localdomain",
        "wn011.localdomain",
        "wn013.localdomain",
    ];
    let numbered = (1..=40).map(|i| format!("node{i}"));
    for name in named.iter().map(|n| n.to_string()).chain(numbered) {
        nodes.push_str(&format!(
            "COMPUTENODE AVAILABLE 0 {name} rm 4096 2048 10000 4 1 1 1 LINUX x86 [] [batch:4] - 1.0 - - -\n"
        ));
    }
    let node_file = dir.join("nodes.trace");
    std::fs::write(&node_file, nodes).unwrap();
    let mut swf = String::from("; MaxNodes: 42\n; MaxProcs: 84\n; UnixStartTime: 1262304000\n");
    for i in 1..=30 {
        let (submit, run, procs) = (i * 300, 600 + 97 * i % 3000, 1 + i % 8);
        swf.push_str(&format!(
            "{i} {submit} -1 {run} {procs} -1 -1 {procs} {} -1 1 {} {} -1 {} -1 -1 -1\n",
            run * 2,
            1 + i % 4,
            1 + i % 3,
            1 + i % 2
        ));
    }
    let trace = dir.join("jobs.swf");
    std::fs::write(&trace, swf).unwrap();
    (trace, node_file)
}

#[test]
fn published_site_configs_load_as_maui_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, node_file) = inputs(dir.path());
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "cfg"))
        .collect();
    files.sort();
    assert!(files.len() >= 17, "the corpus holds {} files", files.len());
    let mut problems = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let expected: &[&str] = NOT_YET
            .iter()
            .find(|(f, _)| *f == name)
            .map_or(&[], |(_, names)| names);
        let result = run(RunOptions {
            config: Some(file.clone()),
            node_file: Some(node_file.clone()),
            check: true,
            ..RunOptions::new(trace.clone())
        });
        match result {
            Ok(report) => {
                if !expected.is_empty() {
                    problems.push(format!("{name}: loads now; remove its NOT_YET entry"));
                }
                let warnings = &report.config.warnings;
                let allowed = READ_AS_OTHER.iter().find(|(f, _)| *f == name);
                for w in warnings
                    .iter()
                    .filter(|w| HIDING.iter().any(|h| w.contains(h)))
                {
                    if !allowed.is_some_and(|(_, what)| w.contains(what)) {
                        problems.push(format!("{name}: hiding warning: {w}"));
                    }
                }
                if let Some((_, what)) = allowed {
                    if !warnings.iter().any(|w| w.contains(what)) {
                        problems.push(format!(
                            "{name}: {what} is simulated now; update READ_AS_OTHER"
                        ));
                    }
                }
                assert_eq!(report.outcomes.len(), report.workload.jobs.len());
            }
            Err(e) => {
                let text = e.to_string();
                let refused: Vec<&str> = text
                    .lines()
                    .filter(|l| !l.contains(": warning:") && !l.contains(": note:"))
                    .filter_map(|l| l.split(": ").nth(1))
                    .filter(|rest| !rest.starts_with(char::is_numeric))
                    .collect();
                for r in &refused {
                    if !expected.iter().any(|x| r.starts_with(x)) {
                        problems.push(format!("{name}: unexpected refusal: {r}"));
                    }
                }
                for x in expected {
                    if !refused.iter().any(|r| r.starts_with(x)) {
                        problems.push(format!("{name}: {x} is no longer refused; update NOT_YET"));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
