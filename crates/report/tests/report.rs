//! Reports end to end: from real runs, sweeps and scenarios to files, checked by parsing
//! index.html and the SVGs, and by drawing twice.

use mauisim_report::{report, scenario_report, Options};
use mauisim_sim::inspect::gantt::BarKind;
use mauisim_sim::RunOptions;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs the bundled HPC2N excerpt with `config` into `dir`, iterations recorded.
fn run_into(dir: &Path, config: &str) {
    let cfg = dir.with_extension("cfg");
    std::fs::write(&cfg, config).unwrap();
    let report = mauisim_sim::run(RunOptions {
        config: Some(cfg),
        timeline: true,
        ..RunOptions::new(repo().join("traces/HPC2N-2002-2.2-excerpt-from-Alea.swf.gz"))
    })
    .unwrap();
    mauisim_sim::output::write_all(dir, &report).unwrap();
}

/// A sweep of the HPC2N excerpt over `axes` (`NAME=VALUES`) and `seeds`, stored in `dir`.
fn sweep_into(dir: &Path, axes: &[&str], seeds: Vec<u64>, estimate: Option<&str>) {
    let mut base = RunOptions::new(repo().join("traces/HPC2N-2002-2.2-excerpt-from-Alea.swf.gz"));
    if let Some(e) = estimate {
        base.estimate = e.parse().unwrap();
    }
    let axes = axes
        .iter()
        .map(|a| mauisim_sweep::grid::parse_set(a).unwrap())
        .collect();
    let plan = mauisim_sweep::Plan {
        base,
        grid: mauisim_sweep::Grid::new(axes, seeds).unwrap(),
        metric: mauisim_sweep::Metric::named("avg_wait").unwrap(),
    };
    let checked = mauisim_sweep::plan::check(plan).unwrap();
    mauisim_sweep::execute(&checked, dir, 1, None, &mauisim_sweep::Silent).unwrap();
}

fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect()
}

/// Parses index.html and checks it is self-contained: every image is a file of the report,
/// every chart file is shown, nothing is fetched. Returns the images' file names.
fn check_index(dir: &Path) -> Vec<String> {
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    let dom = tl::parse(&html, tl::ParserOptions::default()).unwrap();
    let parser = dom.parser();
    let count = |selector: &str| dom.query_selector(selector).map_or(0, |q| q.count());
    assert_eq!(count("title"), 1);
    assert_eq!(count("script"), 0, "no scripts");
    assert_eq!(count("link"), 0, "no stylesheets or fonts from elsewhere");
    assert!(count("table") >= 1, "summary tables");
    let mut images = Vec::new();
    for img in dom.query_selector("img").unwrap() {
        let tag = img.get(parser).unwrap().as_tag().unwrap();
        let attr = |name: &str| {
            tag.attributes()
                .get(name)
                .flatten()
                .map(|v| v.as_utf8_str().into_owned())
                .unwrap_or_default()
        };
        let src = attr("src");
        assert!(
            !src.contains(':') && !src.starts_with('/'),
            "relative: {src}"
        );
        assert!(dir.join(&src).is_file(), "{src} is in the report");
        assert!(!attr("alt").is_empty(), "{src} has alternative text");
        images.push(src);
    }
    assert_eq!(
        count("figcaption"),
        images.len(),
        "every chart has a caption"
    );
    for (name, _) in files(dir) {
        if name.ends_with(".svg") {
            assert!(images.contains(&name), "{name} is shown");
        }
    }
    assert!(!html.contains("http://") && !html.contains("https://"));
    images
}

/// The texts of an SVG's `<text>` elements.
fn svg_texts(path: &Path) -> Vec<String> {
    let svg = std::fs::read_to_string(path).unwrap();
    let dom = tl::parse(&svg, tl::ParserOptions::default()).unwrap();
    let parser = dom.parser();
    dom.query_selector("text")
        .unwrap()
        .map(|h| h.get(parser).unwrap().inner_text(parser).trim().to_string())
        .collect()
}

#[test]
fn a_run_report_has_every_chart_with_titles_axes_and_legends() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("easy");
    run_into(&run, "BACKFILLPOLICY FIRSTFIT\n");
    let written = report(std::slice::from_ref(&run), &run, Options { png: true }).unwrap();
    let images = check_index(&run);
    for chart in [
        "utilization.svg",
        "queue.svg",
        "xfactor-time.svg",
        "wait-cdf.svg",
        "slowdown-cdf.svg",
        "xfactor-matrix.svg",
        "wait-matrix.svg",
        "backfill-matrix.svg",
    ] {
        assert!(images.contains(&chart.to_string()), "{chart}");
        let png = chart.replace(".svg", ".png");
        assert!(written.files.contains(&png), "{png}");
        assert_eq!(&std::fs::read(run.join(&png)).unwrap()[..4], b"\x89PNG");
    }
    let texts = svg_texts(&run.join("utilization.svg"));
    for expected in [
        "Utilization and queued demand",
        "utilization (%)",
        "time since the first submission (days)",
        "queued processors (% of machine)",
    ] {
        assert!(
            texts.iter().any(|t| t == expected),
            "{expected} in {texts:?}"
        );
    }
    // One run, one series: no legend to sit on the data.
    assert!(!texts.iter().any(|t| t == "easy"), "{texts:?}");
    // The matrices carry a colour bar whose ends read as the cells do.
    let texts = svg_texts(&run.join("backfill-matrix.svg"));
    assert!(
        texts.iter().any(|t| t == "0 %") && texts.iter().any(|t| t == "100 %"),
        "{texts:?}"
    );
    let html = std::fs::read_to_string(run.join("index.html")).unwrap();
    // The trace's header gives UnixStartTime: the period is in calendar dates.
    assert!(html.contains("<th>period</th><td>2002-"), "calendar period");
    assert!(html.contains(" UTC</td>"), "calendar period");
    let texts = svg_texts(&run.join("queue.svg"));
    assert!(
        texts.iter().any(|t| t == "jobs with a reservation"),
        "{texts:?}"
    );
    let texts = svg_texts(&run.join("xfactor-matrix.svg"));
    assert!(texts.iter().any(|t| t == "processors requested"));
    assert!(texts.iter().any(|t| t == "requested walltime"));
    assert!(
        texts.iter().any(|t| t.ends_with(" jobs")),
        "job counts in the cells"
    );
    let texts = svg_texts(&run.join("wait-cdf.svg"));
    assert!(texts.iter().any(|t| t == "wait ([D:]H:M:S, log scale)"));
    // Ticks read as durations are written everywhere: 100 s is 0:01:40.
    assert!(texts.iter().any(|t| t == "0:01:40"), "{texts:?}");
    assert!(texts.iter().any(|t| t == "jobs at or below (%)"));
}

#[test]
fn reports_are_the_same_bytes_every_time() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("easy");
    run_into(&run, "BACKFILLPOLICY FIRSTFIT\n");
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    report(std::slice::from_ref(&run), &a, Options { png: true }).unwrap();
    report(std::slice::from_ref(&run), &b, Options { png: true }).unwrap();
    let (fa, fb) = (files(&a), files(&b));
    assert!(fa.len() > 10);
    assert_eq!(fa, fb);
}

#[test]
fn runs_side_by_side_share_line_charts_and_get_a_matrix_each() {
    let tmp = tempfile::tempdir().unwrap();
    let (first, none) = (tmp.path().join("FIRSTFIT"), tmp.path().join("NONE"));
    run_into(&first, "BACKFILLPOLICY FIRSTFIT\n");
    run_into(&none, "BACKFILLPOLICY NONE\n");
    let out = tmp.path().join("report");
    report(&[first.clone(), none.clone()], &out, Options::default()).unwrap();
    let images = check_index(&out);
    for chart in [
        "xfactor-matrix-firstfit.svg",
        "xfactor-matrix-none.svg",
        "wait-cdf.svg",
    ] {
        assert!(images.contains(&chart.to_string()), "{chart}");
    }
    let texts = svg_texts(&out.join("wait-cdf.svg"));
    assert!(texts.iter().any(|t| t == "FIRSTFIT") && texts.iter().any(|t| t == "NONE"));
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    // Two runs: the change beside them, in the metric's unit.
    assert!(
        html.contains("<th>NONE − FIRSTFIT</th><th>NONE − FIRSTFIT (%)</th>"),
        "B − A columns"
    );
    assert!(
        html.contains("<th>backfilled</th><td>%</td>"),
        "a unit column"
    );
    assert!(
        html.contains("<th>FIRSTFIT</th><th>NONE</th>"),
        "one column per run"
    );
    // Without backfill nothing is backfilled: the summary table says 0.00 %.
    assert!(html.contains("<th>backfilled</th>"));
}

#[test]
fn bad_inputs_are_refused_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = tmp.path().join("out");
    let e = report(std::slice::from_ref(&empty), &out, Options::default()).unwrap_err();
    assert!(e.to_string().contains("neither a run directory"), "{e}");
    assert!(!out.exists());
    let run = tmp.path().join("run");
    run_into(&run, "");
    let jobs = std::fs::read_to_string(run.join("jobs.csv")).unwrap();
    let broken = jobs.replacen("\n1,", "\n1,x", 1);
    assert_ne!(broken, jobs);
    std::fs::write(run.join("jobs.csv"), broken).unwrap();
    let e = report(std::slice::from_ref(&run), &out, Options::default()).unwrap_err();
    assert!(
        e.to_string().contains("jobs.csv:2: field 2 (submit)"),
        "{e}"
    );
    assert!(!out.exists());
    std::fs::write(run.join("jobs.csv"), jobs).unwrap();
    let same = [run.clone(), run.clone()];
    let e = report(&same, &out, Options::default()).unwrap_err();
    assert!(e.to_string().contains("same name"), "{e}");
}

#[test]
fn a_sweep_report_draws_each_metric_against_each_parameter_with_heatmaps() {
    let tmp = tempfile::tempdir().unwrap();
    let sweep = tmp.path().join("sweep");
    sweep_into(
        &sweep,
        &["RESERVATIONDEPTH=1,2", "BACKFILLPOLICY=FIRSTFIT,NONE"],
        vec![1, 2, 3],
        Some("f-model:2"),
    );
    report(std::slice::from_ref(&sweep), &sweep, Options::default()).unwrap();
    let images = check_index(&sweep);
    for chart in [
        "sweep-avg-wait-vs-reservationdepth.svg",
        "sweep-avg-wait-vs-backfillpolicy.svg",
        "sweep-avg-wait-heatmap.svg",
        "sweep-utilization-heatmap.svg",
    ] {
        assert!(images.contains(&chart.to_string()), "{chart}");
    }
    let texts = svg_texts(&sweep.join("sweep-avg-wait-vs-reservationdepth.svg"));
    assert!(
        texts.iter().any(|t| t == "BACKFILLPOLICY=NONE"),
        "{texts:?}"
    );
    assert!(texts.iter().any(|t| t == "average wait (hours)"));
    let heat = svg_texts(&sweep.join("sweep-avg-wait-heatmap.svg"));
    assert!(
        heat.iter().any(|t| t.starts_with("± ")),
        "intervals over 3 seeds: {heat:?}"
    );
}

/// Three axes whose combinations exceed a chart's lines: every metric is still drawn
/// against every parameter (the least influential other parameter pooled, and said so),
/// with a heatmap of the two that move it most; no "not drawn" sentences.
#[test]
fn a_sweep_of_three_parameters_draws_every_chart() {
    let tmp = tempfile::tempdir().unwrap();
    let sweep = tmp.path().join("sweep");
    sweep_into(
        &sweep,
        &[
            "RESERVATIONDEPTH=1,2,3,4",
            "BACKFILLPOLICY=FIRSTFIT,BESTFIT,GREEDY,NONE",
            "BFCHUNKSIZE=0,4",
        ],
        vec![1],
        None,
    );
    let written = report(std::slice::from_ref(&sweep), &sweep, Options::default()).unwrap();
    let images = check_index(&sweep);
    let metrics = mauisim_report::sweep_report::METRICS;
    assert_eq!(images.len(), metrics.len() * (3 + 1), "{images:?}");
    assert!(written.files.len() >= images.len());
    let html = std::fs::read_to_string(sweep.join("index.html")).unwrap();
    assert!(!html.contains("not drawn"));
    // Against BFCHUNKSIZE the other two make 16 lines: the less influential is pooled.
    assert!(
        html.contains("avg_wait against BFCHUNKSIZE: mean over 1 seed and every value of"),
        "pooled caption"
    );
    // Against RESERVATIONDEPTH the other two make 8 lines: nothing pooled.
    assert!(html.contains("avg_wait against RESERVATIONDEPTH: mean over 1 seed."));
    assert!(html.contains("the two parameters that move it most"));
    // Units in every metric's column header.
    assert!(html.contains("<th>average wait ([D:]H:M:S)</th>"));
    assert!(html.contains("<th>utilization (%)</th>"));
}

#[test]
fn the_post_game_show_at_its_iterations() {
    let scenario =
        mauisim_sim::scenario::load(&repo().join("scenarios/guide/post-game-show.toml")).unwrap();
    let result = mauisim_sim::scenario::run_at(&scenario, &[0, 3600]).unwrap();
    let with_backfill = &result.variants[0];
    assert_eq!(
        with_backfill.pictures.len(),
        3,
        "the schedule and two iterations"
    );
    let kind_of = |p: &mauisim_sim::inspect::gantt::Picture, label: &str| {
        let bars: Vec<_> = p.bars.iter().filter(|b| b.label == label).collect();
        assert_eq!(bars.len(), 1, "{label} once");
        (bars[0].kind, bars[0].start, bars[0].end, bars[0].backfilled)
    };
    let at0 = &with_backfill.pictures[1];
    assert_eq!(at0.now, Some(0));
    // A runs to its 4 h limit as planned; C was just backfilled; B is reserved at 3:00:00.
    assert_eq!(
        kind_of(at0, "A"),
        (BarKind::Running, -3600, 3 * 3600, false)
    );
    assert_eq!(kind_of(at0, "C"), (BarKind::StartsNow, 0, 2 * 3600, true));
    assert_eq!(
        kind_of(at0, "B"),
        (BarKind::Reserved, 3 * 3600, 4 * 3600, false)
    );
    let at1 = &with_backfill.pictures[2];
    // A ended early; B's reservation slid to C's end; one processor is free for an hour.
    assert_eq!(kind_of(at1, "A"), (BarKind::Done, -3600, 3600, false));
    assert_eq!(
        kind_of(at1, "B"),
        (BarKind::Reserved, 2 * 3600, 3 * 3600, false)
    );
    assert_eq!(at1.windows.len(), 1);
    assert_eq!((at1.windows[0].procs, at1.windows[0].duration), (1, 3600));
    let layout = mauisim_report::gantt::lay_out(at1);
    assert_eq!(layout.short, 0);
    let b = at1.bars.iter().position(|b| b.label == "B").unwrap();
    assert_eq!(layout.bar_lanes[b], vec![(0, 2)], "B takes both nodes");

    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("charts");
    scenario_report(&result, &out, Options { png: true }).unwrap();
    let images = check_index(&out);
    assert!(images.contains(&"gantt-1-at-3600.svg".to_string()));
    let texts = svg_texts(&out.join("gantt-1-at-3600.svg"));
    for expected in [
        "B (reserved)",
        "reservation",
        "backfilled",
        "time (hours)",
        "node",
    ] {
        assert!(
            texts.iter().any(|t| t == expected),
            "{expected} in {texts:?}"
        );
    }
    assert!(texts
        .iter()
        .any(|t| t == "Backfill windows left after the iteration at 1:00:00: 1 proc for 1:00:00."));
}

#[test]
fn runs_whose_names_differ_only_in_case_get_separate_charts() {
    let tmp = tempfile::tempdir().unwrap();
    let (upper, lower) = (tmp.path().join("EASY"), tmp.path().join("sub/easy"));
    std::fs::create_dir_all(tmp.path().join("sub")).unwrap();
    run_into(&upper, "BACKFILLPOLICY FIRSTFIT\n");
    run_into(&lower, "BACKFILLPOLICY NONE\n");
    let out = tmp.path().join("report");
    report(&[upper, lower], &out, Options::default()).unwrap();
    let images = check_index(&out);
    assert!(images.contains(&"xfactor-matrix-easy.svg".to_string()));
    assert!(images.contains(&"xfactor-matrix-easy-2.svg".to_string()));
}
