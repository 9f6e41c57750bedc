//! The scenario files of `scenarios/guide/`: every expectation holds, a wrong one is
//! reported, and bad scenario input is a located error.

use mauisim_sim::scenario::{self, Check};
use std::path::{Path, PathBuf};

fn guide_scenarios() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/guide");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("scenarios/guide exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
}

/// Each scenario in its own trigger mode (per-instant unless it says otherwise): under
/// per-event, simultaneous submissions are scheduled one at a time, so a window's choice
/// among jobs submitted together is not the same question.
#[test]
fn every_guide_scenario_holds() {
    let files = guide_scenarios();
    assert!(files.len() >= 13, "{files:?}");
    for file in files {
        let s = scenario::load(&file).unwrap();
        let result = scenario::run(&s).unwrap();
        for v in &result.variants {
            assert!(
                !v.checks.is_empty(),
                "{}: {} checks nothing",
                file.display(),
                v.name
            );
        }
        assert_eq!(
            result.failures(),
            0,
            "{}:\n{}",
            file.display(),
            scenario::to_text(&result)
        );
    }
}

const SMALL: &str = r#"
title = "two jobs"
procs = 2

[[job]]
name = "A"
procs = 2
limit = 100

[[job]]
name = "B"
procs = 1
limit = "0:01:00"
submit = 10

[[expect]]
job = "B"
start = 100
"#;

fn parse(text: &str) -> Result<scenario::Scenario, String> {
    scenario::parse(text, Path::new("s.toml")).map_err(|e| e.to_string())
}

#[test]
fn a_wrong_expectation_fails_and_says_what_happened() {
    let s = parse(&SMALL.replace("start = 100", "start = 99")).unwrap();
    let result = scenario::run(&s).unwrap();
    assert_eq!(result.failures(), 1);
    let c = &result.variants[0].checks[0];
    assert_eq!(
        (c.line, c.expected.as_str(), c.actual.as_str()),
        (17, "0:01:39", "0:01:40")
    );
    assert!(
        scenario::to_text(&result).contains("FAIL line  17: B starts = 0:01:40 (expected 0:01:39)")
    );
    let s = parse(SMALL).unwrap();
    assert_eq!(
        s.variants[0].expect[0].check,
        Check::Start { job: 2, at: 100 }
    );
    assert_eq!(scenario::run(&s).unwrap().failures(), 0);
}

/// A job running from before the simulation's start is started where it ran, beside a
/// reservation an earlier iteration left laid (B's, from -100 on A's end at 800): the
/// reservation is released first, and C starts on the free processor.
#[test]
fn a_job_running_from_before_starts_beside_a_reservation_left_laid() {
    let text = r#"
title = "a job running from before"
procs = 4

[[job]]
name = "A"
procs = 3
limit = 1000
started = -200

[[job]]
name = "B"
procs = 4
limit = 100
submit = -100

[[job]]
name = "C"
procs = 1
limit = 100
started = -50

[[expect]]
job = "B"
start = 800

[[expect]]
job = "C"
start = -50
"#;
    let s = parse(text).unwrap();
    let result = scenario::run(&s).unwrap();
    assert_eq!(result.failures(), 0, "{}", scenario::to_text(&result));
}

#[test]
fn bad_scenarios_are_errors_naming_file_and_line() {
    let cases = [
        (SMALL.replace("limit = 100", "limit = 100\nwalltime = 5"), "s.toml:9: unknown field `walltime`"),
        (SMALL.replace("job = \"B\"\nstart", "job = \"Z\"\nstart"), "s.toml:17: no job is named `Z`"),
        (SMALL.replace("\"0:01:00\"", "\"1:xx\""), "s.toml:13: limit:"),
        (SMALL.replace("procs = 1", "procs = 3"), "s.toml:12: job B: procs must be 1 to the machine's 2"),
        (SMALL.replace("name = \"B\"", "name = \"A\""), "s.toml:11: job `A`: names must be unique"),
        (SMALL.replace("submit = 10", "started = 10"), "s.toml:11: job B: started must be at or before 0"),
        (
            SMALL.replace("limit = 100", "limit = 100\nstarted = -5").replace("submit = 10", "started = -1"),
            "s.toml:12: job B: the jobs running when it started need 3 processors, more than the machine's 2",
        ),
        (SMALL.replace("start = 100", "start = 100\nend = 3"), "s.toml:17: an expectation checks exactly one of"),
        (SMALL.replace("job = \"B\"\nstart = 100", "windows = [[1, 5]]"), "s.toml:17: this expectation needs `at`"),
        (SMALL.replace("procs = 2\n\n[[job]]", "procs = 2\nconfig = 5\n[[job]]"), "s.toml:4: invalid type"),
        (
            SMALL.replace("submit = 10", "submit = 10\nutilized = 1.5"),
            "s.toml:15: job B: utilized is a share of its processors, 0 to 1, found 1.5",
        ),
    ];
    for (text, expected) in cases {
        let e = parse(&text).map(|_| ()).unwrap_err();
        assert!(e.starts_with(expected), "expected `{expected}…`, got `{e}`");
    }
    // Config errors name the scenario and the variant.
    let s = parse(&SMALL.replace(
        "procs = 2\n\n[[job]]",
        "procs = 2\nconfig = \"RESERVATIONDEPTH x\"\n[[job]]",
    ))
    .unwrap();
    let e = scenario::run(&s).unwrap_err().to_string();
    assert!(
        e.starts_with("s.toml (config of `as written`):1:18: RESERVATIONDEPTH:"),
        "{e}"
    );
}

/// A reservation expectation looks at one iteration: "none" holds where an iteration ran
/// and reserved nothing (even if nothing started then), and an instant without an
/// iteration says so instead of passing for "none".
#[test]
fn reservation_expectations_need_an_iteration_at_their_instant() {
    let text = format!(
        "{SMALL}\n[[expect]]\nat = 10\njob = \"B\"\nreservation = 100\n\
         \n[[expect]]\nat = 50\njob = \"B\"\nreservation = \"none\"\n\
         \n[[variant]]\nname = \"never\"\nconfig = \"RESERVATIONPOLICY NEVER\"\n\
         [[variant.expect]]\nat = 10\njob = \"B\"\nreservation = \"none\"\n"
    );
    let result = scenario::run(&parse(&text).unwrap()).unwrap();
    let actual: Vec<(&str, bool)> = result
        .variants
        .iter()
        .flat_map(|v| &v.checks)
        .map(|c| (c.actual.as_str(), c.ok))
        .collect();
    assert_eq!(
        actual,
        vec![
            ("0:01:40", true),
            ("0:01:40", true),
            ("no iteration at that instant", false),
            ("none", true),
        ]
    );
}

/// The estimate model and the predictor from a scenario file. Tsafrir's predictor, as in
/// `tests/estimates.rs`: J1 (user u1, 2 procs) ends at 100; J2 (u1, 1 proc) is predicted
/// from it at 100 s and ends at 150; J3 (2 procs) is then reserved at 200, so J4 (500 s)
/// may not backfill and starts after J3. With the limits (default) J4 backfills at once.
/// `estimate = "exact"` sets each limit to its runtime: J2's limit is 50 s, J3 is
/// reserved at 150 and J4 waits as well.
#[test]
fn scenarios_choose_the_predictor_and_the_estimate_model() {
    let text = |head: &str| {
        format!(
            r#"title = "predictions"
procs = 2
{head}
[[job]]
name = "J1"
procs = 2
limit = 10000
runtime = 100
user = "u1"
[[job]]
name = "J2"
procs = 1
limit = 10000
runtime = 50
submit = 100
user = "u1"
[[job]]
name = "J3"
procs = 2
limit = 100
submit = 100
user = "u2"
[[job]]
name = "J4"
procs = 1
limit = 500
submit = 100
user = "u3"
"#
        )
    };
    let starts = |head: &str| {
        let s = parse(&text(head)).unwrap();
        let r = scenario::run(&s).unwrap();
        let mut rows: Vec<(String, i64)> = r.variants[0]
            .jobs
            .iter()
            .map(|j| (j.name.clone(), j.start))
            .collect();
        rows.sort();
        rows.into_iter().map(|(_, start)| start).collect::<Vec<_>>()
    };
    assert_eq!(starts(""), [0, 100, 600, 100]);
    assert_eq!(starts("predictor = \"tsafrir\""), [0, 100, 150, 250]);
    assert_eq!(starts("estimate = \"exact\""), [0, 100, 150, 250]);
    let e = parse(&text("predictor = \"oracle\""))
        .map(|_| ())
        .unwrap_err();
    assert!(
        e.starts_with("s.toml:3: predictor: expected limit or tsafrir"),
        "{e}"
    );
    let e = parse(&text("estimate = \"f-model:0.5\""))
        .map(|_| ())
        .unwrap_err();
    assert!(
        e.starts_with("s.toml:3: estimate: f-model:F needs F >= 1"),
        "{e}"
    );
}

/// `semantics` chooses whose reading a scenario follows: Maui 3.3.1 packs jobs from the
/// last node, the research reading from the first.
#[test]
fn scenarios_choose_the_semantics() {
    let text = |head: &str| {
        format!(
            r#"title = "semantics"
procs = 4
{head}
[[job]]
name = "A"
procs = 2
limit = 100
[[job]]
name = "B"
procs = 1
limit = 100
"#
        )
    };
    let nodes = |head: &str| {
        let s = parse(&text(head)).unwrap();
        let r = scenario::run(&s).unwrap();
        let rows = &r.variants[0].jobs;
        rows.iter()
            .map(|j| format!("{} {} {}", j.name, j.start, j.nodes))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        nodes("semantics = \"research-easy\""),
        ["A 0 n[0-1]", "B 0 n2"]
    );
    assert_eq!(nodes("semantics = \"maui\""), ["A 0 n[2-3]", "B 0 n1"]);
    assert_eq!(
        nodes("semantics = \"maui-3.3.1\""),
        ["A 0 n[2-3]", "B 0 n1"]
    );
    let e = parse(&text("semantics = \"slurm\""))
        .map(|_| ())
        .unwrap_err();
    assert!(
        e.starts_with("s.toml:3: semantics: expected maui, maui-3.3.1 or research-easy"),
        "{e}"
    );
    // Maui's is the default; a variant may choose its own.
    assert_eq!(nodes(""), ["A 0 n[2-3]", "B 0 n1"]);
    let with_variant = |semantics: &str| {
        format!(
            "{}[[variant]]\nname = \"v\"\nsemantics = \"{semantics}\"\n",
            text("")
        )
    };
    let s = parse(&with_variant("research-easy")).unwrap();
    let r = scenario::run(&s).unwrap();
    let nodes_of = |v: usize| -> Vec<String> {
        r.variants[v]
            .jobs
            .iter()
            .map(|j| format!("{} {}", j.name, j.nodes))
            .collect()
    };
    assert_eq!(nodes_of(0), ["A n[2-3]", "B n1"]);
    assert_eq!(nodes_of(1), ["A n[0-1]", "B n2"]);
    let e = parse(&with_variant("slurm")).map(|_| ()).unwrap_err();
    assert!(
        e.starts_with("s.toml:")
            && e.contains("semantics: expected maui, maui-3.3.1 or research-easy, found `slurm`"),
        "{e}"
    );
}
