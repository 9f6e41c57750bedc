//! The schedule as a picture: processors (grouped by node) down, time across, one bar per
//! job, like the guide's figures. A job's bar sits on the nodes it ran on when they are
//! known, else on the lowest processors free for its whole interval.

use crate::chart::{color, Figure};
use crate::error::{ReportError, Result};
use crate::units::TimeUnit;
use mauisim_core::{Time, FOREVER};
use mauisim_sim::inspect::gantt::{Bar, BarKind, Picture};
use mauisim_sim::units::clock;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Where each bar is drawn: runs of consecutive processor rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    pub lanes: u64,
    /// First row of each node.
    pub node_first_lane: Vec<u64>,
    /// Per bar: `(first row, rows)`, in row order.
    pub bar_lanes: Vec<Vec<(u64, u64)>>,
    /// Bars that did not find rows for all their processors (an over-full picture).
    pub short: usize,
}

/// Assigns rows in start order: on a bar's own nodes first (spread evenly over them), then
/// anywhere free. A valid schedule always finds room, since at any instant the bars
/// together hold at most the machine's processors.
pub fn lay_out(picture: &Picture) -> Layout {
    let mut node_first_lane = Vec::with_capacity(picture.node_procs.len());
    let mut lanes = 0;
    for &p in &picture.node_procs {
        node_first_lane.push(lanes);
        lanes += p;
    }
    let mut busy_until = vec![Time::MIN; lanes as usize];
    let mut order: Vec<usize> = (0..picture.bars.len()).collect();
    order.sort_by_key(|&i| (picture.bars[i].start, picture.bars[i].end, i));
    let mut bar_lanes = vec![Vec::new(); picture.bars.len()];
    let mut short = 0;
    for i in order {
        let bar = &picture.bars[i];
        let mut taken: Vec<u64> = Vec::new();
        let mut rem = bar.procs;
        let own: Vec<usize> = bar
            .nodes
            .iter()
            .flat_map(|&(a, b)| a as usize..=b as usize)
            .filter(|&n| n < picture.node_procs.len())
            .collect();
        let rows_of = |n: usize| node_first_lane[n]..node_first_lane[n] + picture.node_procs[n];
        for (k, &n) in own.iter().enumerate() {
            let share = rem.div_ceil((own.len() - k) as u64);
            rem -= take(rows_of(n), share, bar, &mut busy_until, &mut taken);
        }
        for &n in &own {
            rem -= take(rows_of(n), rem, bar, &mut busy_until, &mut taken);
        }
        rem -= take(0..lanes, rem, bar, &mut busy_until, &mut taken);
        short += (rem > 0) as usize;
        taken.sort_unstable();
        bar_lanes[i] = runs(&taken);
    }
    Layout {
        lanes,
        node_first_lane,
        bar_lanes,
        short,
    }
}

/// Takes up to `want` rows of `rows` free at the bar's start until its end; how many.
fn take(
    rows: std::ops::Range<u64>,
    want: u64,
    bar: &Bar,
    busy_until: &mut [Time],
    taken: &mut Vec<u64>,
) -> u64 {
    let mut got = 0;
    for lane in rows {
        if got == want {
            break;
        }
        if busy_until[lane as usize] <= bar.start {
            busy_until[lane as usize] = bar.end;
            taken.push(lane);
            got += 1;
        }
    }
    got
}

/// Sorted rows as `(first, count)` runs.
fn runs(sorted: &[u64]) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for &l in sorted {
        match out.last_mut() {
            Some((first, count)) if *first + *count == l => *count += 1,
            _ => out.push((l, 1)),
        }
    }
    out
}

pub struct GanttChart {
    pub picture: Picture,
    pub layout: Layout,
}

/// A figure of `picture`, sized to its processor count.
pub fn figure(name: &str, picture: Picture) -> Figure {
    let layout = lay_out(&picture);
    let row = if layout.lanes <= 16 { 34 } else { 20 };
    let height = (layout.lanes as u32 * row).clamp(260, 900) + 170;
    let caption = match picture.now {
        None => format!("{}: every job where and when it ran.", picture.title),
        Some(_) => format!(
            "{}: what ran, what runs (to its planned end), what this iteration starts, \
             backfills and reserves; the free area after the iteration is what backfill \
             had to work with.",
            picture.title
        ),
    };
    Figure {
        name: name.to_string(),
        caption,
        width: 1000,
        height,
        chart: crate::chart::Chart::Gantt(GanttChart { picture, layout }),
    }
}

struct Look {
    fill: RGBColor,
    border: RGBColor,
    /// Border width in pixels.
    width: u32,
}

const BLUE_BORDER: RGBColor = RGBColor(20, 60, 110);
const ORANGE_BORDER: RGBColor = RGBColor(150, 70, 0);

fn look(kind: BarKind, backfilled: bool) -> Look {
    let (fill, border) = if backfilled {
        (color(1), ORANGE_BORDER)
    } else {
        (color(0), BLUE_BORDER)
    };
    match kind {
        BarKind::Ran | BarKind::Running => Look {
            fill,
            border,
            width: 1,
        },
        BarKind::StartsNow => Look {
            fill,
            border: BLACK,
            width: 3,
        },
        BarKind::Done => Look {
            fill: RGBColor(205, 205, 205),
            border: RGBColor(130, 130, 130),
            width: 1,
        },
        BarKind::Reserved => Look {
            fill: RGBColor(255, 235, 235),
            border: color(3),
            width: 2,
        },
        BarKind::AdminReservation => Look {
            fill: RGBColor(225, 215, 240),
            border: color(4),
            width: 2,
        },
    }
}

/// The legend's entries present in `p`: what each look means.
fn legend(p: &Picture) -> Vec<(Look, &'static str)> {
    let has = |f: &dyn Fn(&Bar) -> bool| p.bars.iter().any(f);
    let mut out = Vec::new();
    let ran = |b: &Bar| matches!(b.kind, BarKind::Ran | BarKind::Running | BarKind::StartsNow);
    if has(&|b| ran(b) && !b.backfilled) {
        out.push((look(BarKind::Ran, false), "started in priority order"));
    }
    if has(&|b| ran(b) && b.backfilled) {
        out.push((look(BarKind::Ran, true), "backfilled"));
    }
    if has(&|b| b.kind == BarKind::Running) {
        let mut l = look(BarKind::Running, false);
        l.fill = lighten(l.fill);
        out.push((l, "running: until planned end"));
    }
    if has(&|b| b.kind == BarKind::StartsNow) {
        out.push((look(BarKind::StartsNow, false), "started by this iteration"));
    }
    if has(&|b| b.kind == BarKind::Done) {
        out.push((look(BarKind::Done, false), "ended before the iteration"));
    }
    if has(&|b| b.kind == BarKind::Reserved) {
        out.push((look(BarKind::Reserved, false), "reservation"));
    }
    if has(&|b| b.kind == BarKind::AdminReservation) {
        out.push((
            look(BarKind::AdminReservation, false),
            "administrative reservation",
        ));
    }
    if p.now.is_some() {
        out.push((
            Look {
                fill: FREE,
                border: FREE,
                width: 1,
            },
            "free after the iteration",
        ));
    }
    out
}

const FREE: RGBColor = RGBColor(220, 242, 220);

/// The color a third as strong, on white: the planned rest of a running job.
fn lighten(c: RGBColor) -> RGBColor {
    let f = |x: u8| (x as f64 * 0.35 + 255.0 * 0.65).round() as u8;
    RGBColor(f(c.0), f(c.1), f(c.2))
}

fn draw_err(e: impl std::fmt::Display) -> ReportError {
    ReportError::Draw(e.to_string())
}

fn bar_end(bar: &Bar, horizon: Time) -> Time {
    if bar.end >= FOREVER {
        horizon
    } else {
        bar.end
    }
}

pub fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, g: &GanttChart) -> Result<()> {
    let p = &g.picture;
    let layout = &g.layout;
    let finite_ends = p.bars.iter().map(|b| b.end).filter(|&e| e < FOREVER);
    let t0 = p
        .bars
        .iter()
        .map(|b| b.start)
        .chain(p.now)
        .min()
        .unwrap_or(0);
    let mut t1 = finite_ends.chain(p.now).max().unwrap_or(t0 + 1);
    if t1 <= t0 {
        t1 = t0 + 1;
    }
    let unit = TimeUnit::for_span(t1 - t0);
    let pad = (t1 - t0) / 50;
    let (x0, x1) = (unit.of(t0 - pad), unit.of(t1 + pad));
    let lanes = layout.lanes.max(1) as f64;
    let (width, height) = root.dim_in_pixel();
    let (main, side) = root.split_horizontally(width as i32 - 240);
    let (body, foot) = main.split_vertically(height as i32 - 40);
    let single = p.node_procs.iter().all(|&n| n == 1);
    // Few nodes: each named beside its rows. Many: processor numbers, from the top.
    let named = p.node_procs.len() <= 48;
    let y_desc = match (single, named) {
        (true, _) => "node",
        (false, true) => "node (one row per processor)",
        (false, false) => "processor (nodes separated by lines)",
    };
    // Row 0 at the top, as in the guide's figures.
    let mut chart = ChartBuilder::on(&body)
        .caption(&p.title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(80)
        .build_cartesian_2d(x0..x1, lanes..0f64)
        .map_err(draw_err)?;
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(format!("time ({})", unit.name()))
        .y_desc(y_desc)
        .disable_y_mesh()
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.08))
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 14))
        .x_label_formatter(&|v| crate::chart::number_label(*v))
        .y_label_formatter(&|v| format!("{}", v.round() as i64));
    if named {
        mesh.y_labels(0);
    }
    mesh.draw().map_err(draw_err)?;
    if named {
        let font = ("sans-serif", 13)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Right, VPos::Center));
        for (n, name) in p.node_names.iter().enumerate() {
            let first = layout.node_first_lane[n] as f64;
            let center = first + p.node_procs[n] as f64 / 2.0;
            let (px, py) = chart.backend_coord(&(x0, center));
            root.draw(&Text::new(name.clone(), (px - 8, py), font.clone()))
                .map_err(draw_err)?;
        }
    }
    let y_of = |lane: u64| lane as f64;
    if let Some(now) = p.now {
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(unit.of(now), 0.0), (x1, lanes)],
                FREE.filled(),
            )))
            .map_err(draw_err)?;
    }
    let horizon = t1 + pad;
    let (plot_w, plot_h) = chart.plotting_area().dim_in_pixel();
    let px_per_x = plot_w as f64 / (x1 - x0);
    let px_per_lane = plot_h as f64 / lanes;
    for (bar, runs) in p.bars.iter().zip(&layout.bar_lanes) {
        let style = look(bar.kind, bar.backfilled);
        let (a, b) = (unit.of(bar.start), unit.of(bar_end(bar, horizon)));
        for &(first, count) in runs {
            let inset = 0.06;
            let (top, bottom) = (y_of(first) + inset, y_of(first + count) - inset);
            let mut shapes = Vec::new();
            match (bar.kind, p.now) {
                (BarKind::Running, Some(now)) if bar.start < now => {
                    let n = unit.of(now).min(b);
                    shapes.push(Rectangle::new([(a, bottom), (n, top)], style.fill.filled()));
                    shapes.push(Rectangle::new(
                        [(n, bottom), (b, top)],
                        lighten(style.fill).filled(),
                    ));
                }
                _ => shapes.push(Rectangle::new([(a, bottom), (b, top)], style.fill.filled())),
            }
            shapes.push(Rectangle::new(
                [(a, bottom), (b, top)],
                style.border.stroke_width(style.width),
            ));
            chart.draw_series(shapes).map_err(draw_err)?;
        }
        let Some(&(first, count)) = runs.iter().max_by_key(|r| r.1) else {
            continue;
        };
        let text = match bar.kind {
            BarKind::Reserved => format!("{} (reserved)", bar.label),
            _ => bar.label.clone(),
        };
        // A running bar is cut by the iteration's line: the label goes in the wider part,
        // in ink that reads on it.
        let (la, lb, light) = match (bar.kind, p.now.map(|n| unit.of(n))) {
            (BarKind::Running, Some(n)) if a < n && n < b => {
                if n - a >= b - n {
                    (a, n, false)
                } else {
                    (n, b, true)
                }
            }
            _ => (a, b, false),
        };
        let wide = (lb - la) * px_per_x > 8.0 * text.chars().count() as f64 + 6.0;
        let tall = count as f64 * px_per_lane >= 14.0;
        if wide && tall {
            let ink = match bar.kind {
                BarKind::Done | BarKind::Reserved | BarKind::AdminReservation => BLACK,
                _ if light => BLACK,
                _ => WHITE,
            };
            let font = ("sans-serif", 13)
                .into_font()
                .color(&ink)
                .pos(Pos::new(HPos::Center, VPos::Center));
            let y = y_of(first) + count as f64 / 2.0;
            chart
                .draw_series(std::iter::once(Text::new(text, ((la + lb) / 2.0, y), font)))
                .map_err(draw_err)?;
        }
    }
    if !single {
        let lines = layout
            .node_first_lane
            .iter()
            .skip(1)
            .map(|&l| PathElement::new(vec![(x0, y_of(l)), (x1, y_of(l))], BLACK.mix(0.35)));
        chart.draw_series(lines).map_err(draw_err)?;
    }
    if let Some(now) = p.now {
        let x = unit.of(now);
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(x, 0.0), (x, lanes)],
                BLACK.stroke_width(2),
            )))
            .map_err(draw_err)?;
    }
    draw_legend(&side, p)?;
    let mut foot_text = match p.now {
        Some(now) => windows_text(p, now),
        None => String::new(),
    };
    if layout.short > 0 {
        foot_text.push_str(&format!(
            "  ({} bars found no free rows: the picture is over-full)",
            layout.short
        ));
    }
    foot.draw(&Text::new(
        foot_text,
        (90, 10),
        ("sans-serif", 13).into_font(),
    ))
    .map_err(draw_err)?;
    Ok(())
}

fn draw_legend<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, p: &Picture) -> Result<()> {
    let mut y = 60;
    let font = ("sans-serif", 13).into_font();
    for (style, name) in legend(p) {
        area.draw(&Rectangle::new([(4, y), (26, y + 14)], style.fill.filled()))
            .map_err(draw_err)?;
        area.draw(&Rectangle::new(
            [(4, y), (26, y + 14)],
            style.border.stroke_width(style.width.min(2)),
        ))
        .map_err(draw_err)?;
        area.draw(&Text::new(name, (34, y), font.clone()))
            .map_err(draw_err)?;
        y += 24;
    }
    if p.now.is_some() {
        area.draw(&PathElement::new(
            vec![(15, y), (15, y + 16)],
            BLACK.stroke_width(2),
        ))
        .map_err(draw_err)?;
        area.draw(&Text::new("the iteration", (34, y + 1), font))
            .map_err(draw_err)?;
    }
    Ok(())
}

fn windows_text(p: &Picture, now: Time) -> String {
    let windows: Vec<String> = p
        .windows
        .iter()
        .map(|w| {
            let unit = if w.procs == 1 { "proc" } else { "procs" };
            format!("{} {unit} for {}", w.procs, clock(w.duration))
        })
        .collect();
    if windows.is_empty() {
        format!(
            "Backfill windows left after the iteration at {}: none.",
            clock(now)
        )
    } else {
        format!(
            "Backfill windows left after the iteration at {}: {}.",
            clock(now),
            windows.join("; ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar(start: Time, end: Time, procs: u64, nodes: Vec<(u32, u32)>) -> Bar {
        Bar {
            label: String::new(),
            start,
            end,
            procs,
            kind: BarKind::Ran,
            backfilled: false,
            nodes,
        }
    }

    fn picture(node_procs: Vec<u64>, bars: Vec<Bar>) -> Picture {
        Picture {
            title: String::new(),
            node_names: (0..node_procs.len()).map(|i| format!("n{i}")).collect(),
            node_procs,
            bars,
            now: None,
            windows: Vec::new(),
        }
    }

    #[test]
    fn bars_take_the_lowest_free_rows_in_start_order() {
        let p = picture(
            vec![1; 4],
            vec![
                bar(0, 10, 2, vec![]),
                bar(0, 5, 1, vec![]),
                bar(5, 20, 2, vec![]),
                bar(10, 12, 2, vec![]),
            ],
        );
        let l = lay_out(&p);
        assert_eq!(l.lanes, 4);
        assert_eq!(l.short, 0);
        assert_eq!(l.bar_lanes[1], vec![(0, 1)]);
        assert_eq!(l.bar_lanes[0], vec![(1, 2)]);
        // At 5 rows 0 and 3 are free; at 10 rows 1 and 2 are free again.
        assert_eq!(l.bar_lanes[2], vec![(0, 1), (3, 1)]);
        assert_eq!(l.bar_lanes[3], vec![(1, 2)]);
    }

    #[test]
    fn bars_sit_on_their_own_nodes_spread_evenly() {
        // Two 4-processor nodes; a 4-processor job on both nodes takes 2 rows of each.
        let p = picture(vec![4, 4], vec![bar(0, 10, 4, vec![(0, 1)])]);
        let l = lay_out(&p);
        assert_eq!(l.node_first_lane, vec![0, 4]);
        assert_eq!(l.bar_lanes[0], vec![(0, 2), (4, 2)]);
        // A job on node 1 alone.
        let p = picture(vec![4, 4], vec![bar(0, 10, 3, vec![(1, 1)])]);
        assert_eq!(lay_out(&p).bar_lanes[0], vec![(4, 3)]);
    }

    #[test]
    fn an_over_full_picture_is_counted_not_hidden() {
        let p = picture(
            vec![1; 2],
            vec![bar(0, 10, 2, vec![]), bar(5, 8, 1, vec![])],
        );
        let l = lay_out(&p);
        assert_eq!(l.short, 1);
        assert!(l.bar_lanes[1].is_empty());
    }
}
