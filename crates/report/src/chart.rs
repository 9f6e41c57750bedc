//! Charts as data, drawn with plotters into SVG (text left to the viewer's sans-serif) or
//! PNG (text rasterized from the bundled font). Same chart ⇒ same bytes.

use crate::error::{ReportError, Result};
use crate::font;
use plotters::coord::ranged1d::{AsRangedCoord, Ranged, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Qualitative colors (Tableau 10), distinguishable in print and for most color vision.
pub const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

pub fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// One chart file: `name.svg` (and `name.png`).
pub struct Figure {
    pub name: String,
    /// What the chart shows, for the report's caption.
    pub caption: String,
    pub width: u32,
    pub height: u32,
    pub chart: Chart,
}

pub enum Chart {
    Lines(Lines),
    /// Line charts stacked top to bottom under one title.
    Panels {
        title: String,
        panels: Vec<Lines>,
    },
    Heatmap(Heatmap),
    Gantt(crate::gantt::GanttChart),
}

#[derive(Debug, Clone)]
pub struct Axis {
    pub label: String,
    pub log: bool,
    pub range: (f64, f64),
}

impl Axis {
    /// An axis over `values` (with 5 % headroom at the top; from 0 unless `log`).
    pub fn fit(label: impl Into<String>, log: bool, values: impl Iterator<Item = f64>) -> Axis {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for v in values.filter(|v| v.is_finite() && (!log || *v > 0.0)) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if !lo.is_finite() {
            (lo, hi) = (if log { 1.0 } else { 0.0 }, 1.0);
        }
        let range = if log {
            let hi = if hi <= lo { lo * 10.0 } else { hi };
            (lo, hi * 1.2)
        } else {
            let lo = lo.min(0.0);
            let hi = if hi <= lo { lo + 1.0 } else { hi };
            (lo, hi + (hi - lo) * 0.05)
        };
        Axis {
            label: label.into(),
            log,
            range,
        }
    }

    /// A linear axis over the values alone, not stretched to zero: a change of a few
    /// percent between settings shows as one, not as a flat line.
    pub fn fit_tight(label: impl Into<String>, values: impl Iterator<Item = f64>) -> Axis {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for v in values.filter(|v| v.is_finite()) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if !lo.is_finite() {
            (lo, hi) = (0.0, 1.0);
        }
        let pad = if hi > lo {
            (hi - lo) * 0.08
        } else {
            lo.abs().max(1.0) * 0.05
        };
        Axis {
            label: label.into(),
            log: false,
            range: (lo - pad, hi + pad),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Line,
    /// Filled down to zero.
    Area,
    /// Markers, no line.
    Points,
}

#[derive(Debug, Clone)]
pub struct Series {
    pub label: String,
    pub color: RGBColor,
    pub style: Style,
    pub points: Vec<(f64, f64)>,
    /// An interval `(x, low, high)` around each point (95 % confidence): shaded around a
    /// line, error bars on points.
    pub band: Vec<(f64, f64, f64)>,
}

impl Series {
    pub fn line(label: impl Into<String>, color: RGBColor, points: Vec<(f64, f64)>) -> Series {
        Series {
            label: label.into(),
            color,
            style: Style::Line,
            points,
            band: Vec::new(),
        }
    }
}

pub struct Lines {
    pub title: String,
    pub x: Axis,
    pub y: Axis,
    pub series: Vec<Series>,
    /// Names of the x positions 0, 1, … when x is categorical.
    pub categories: Option<Vec<String>>,
    /// The x values are durations in seconds, labelled as text writes them (`0:16:40`).
    pub x_clock: bool,
}

/// A matrix of values with the numbers written in the cells.
pub struct Heatmap {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub columns: Vec<String>,
    /// Top to bottom.
    pub rows: Vec<String>,
    /// `cells[row][column]`; `None` for an empty cell.
    pub cells: Vec<Vec<Option<Cell>>>,
    /// Color by the logarithm of the value (values spanning decades).
    pub log_color: bool,
    /// Values at the light and dark ends of the colors (default: the smallest and largest
    /// value shown), so that matrices of several runs compare.
    pub color_range: Option<(f64, f64)>,
    /// What the color and the numbers mean, drawn under the matrix.
    pub legend: String,
    /// The values at the light and the dark end of the colour bar, as the cells write them.
    pub color_ends: [String; 2],
}

#[derive(Debug, Clone)]
pub struct Cell {
    pub value: f64,
    pub text: String,
    /// A second, smaller line (e.g. the job count).
    pub note: String,
}

fn draw_err(e: impl std::fmt::Display) -> ReportError {
    ReportError::Draw(e.to_string())
}

impl Figure {
    pub fn svg(&self) -> Result<String> {
        font::register();
        let mut text = String::new();
        {
            let root =
                SVGBackend::with_string(&mut text, (self.width, self.height)).into_drawing_area();
            self.draw(&root)?;
            root.present().map_err(draw_err)?;
        }
        Ok(text)
    }

    pub fn png(&self) -> Result<Vec<u8>> {
        font::register();
        let (w, h) = (self.width, self.height);
        let mut pixels = vec![0u8; (w * h * 3) as usize];
        {
            let root = BitMapBackend::with_buffer(&mut pixels, (w, h)).into_drawing_area();
            self.draw(&root)?;
            root.present().map_err(draw_err)?;
        }
        let image = image::RgbImage::from_raw(w, h, pixels)
            .ok_or_else(|| ReportError::Draw("pixel buffer of the wrong size".into()))?;
        let mut png = Vec::new();
        image
            .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
            .map_err(draw_err)?;
        Ok(png)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<()> {
        root.fill(&WHITE).map_err(draw_err)?;
        match &self.chart {
            Chart::Lines(lines) => draw_lines(root, lines, 20),
            Chart::Panels { title, panels } => {
                let area = root.titled(title, ("sans-serif", 20)).map_err(draw_err)?;
                let parts = area.split_evenly((panels.len().max(1), 1));
                for (part, lines) in parts.iter().zip(panels) {
                    draw_lines(part, lines, 15)?;
                }
                Ok(())
            }
            Chart::Heatmap(h) => draw_heatmap(root, h),
            Chart::Gantt(g) => crate::gantt::draw(root, g),
        }
    }
}

fn draw_lines<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    lines: &Lines,
    title_size: u32,
) -> Result<()> {
    let (x0, x1) = lines.x.range;
    let (y0, y1) = lines.y.range;
    // The legend goes below the plot, never over the data; one series needs none.
    let labelled: Vec<&Series> = lines
        .series
        .iter()
        .filter(|s| !s.label.is_empty())
        .collect();
    let (width, height) = area.dim_in_pixel();
    let layout = (labelled.len() > 1).then(|| LegendLayout::new(&labelled, width));
    let legend_height = layout.as_ref().map_or(0, |l| l.height());
    let (plot, legend) = area.split_vertically(height.saturating_sub(legend_height) as i32);
    if let Some(layout) = &layout {
        layout.draw(&legend, &labelled)?;
    }
    let area = &plot;
    match (lines.x.log, lines.y.log) {
        (false, false) => lines_in(area, lines, title_size, x0..x1, y0..y1),
        (true, false) => lines_in(area, lines, title_size, (x0..x1).log_scale(), y0..y1),
        (false, true) => lines_in(area, lines, title_size, x0..x1, (y0..y1).log_scale()),
        (true, true) => lines_in(
            area,
            lines,
            title_size,
            (x0..x1).log_scale(),
            (y0..y1).log_scale(),
        ),
    }
}

/// Legend entries in rows of equal columns, under the plot.
struct LegendLayout {
    columns: usize,
    column_width: u32,
    rows: usize,
}

impl LegendLayout {
    const ROW: u32 = 18;
    const LEFT: u32 = 82;

    fn new(entries: &[&Series], width: u32) -> LegendLayout {
        // About 7 pixels per character at 13 px, plus the swatch and a gap.
        let longest = entries
            .iter()
            .map(|s| s.label.chars().count())
            .max()
            .unwrap_or(0);
        let column_width = 7 * longest as u32 + 40;
        let usable = width.saturating_sub(Self::LEFT + 12).max(column_width);
        let columns = ((usable / column_width) as usize).clamp(1, entries.len());
        LegendLayout {
            columns,
            column_width,
            rows: entries.len().div_ceil(columns),
        }
    }

    fn height(&self) -> u32 {
        self.rows as u32 * Self::ROW + 10
    }

    fn draw<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        entries: &[&Series],
    ) -> Result<()> {
        for (i, s) in entries.iter().enumerate() {
            let x = (Self::LEFT + (i % self.columns) as u32 * self.column_width) as i32;
            let y = ((i / self.columns) as u32 * Self::ROW + 4) as i32;
            area.draw(&Rectangle::new(
                [(x, y + 3), (x + 16, y + 13)],
                s.color.filled(),
            ))
            .map_err(draw_err)?;
            area.draw(&Text::new(
                s.label.clone(),
                (x + 22, y + 1),
                ("sans-serif", 13).into_font(),
            ))
            .map_err(draw_err)?;
        }
        Ok(())
    }
}

fn lines_in<DB, X, Y>(
    area: &DrawingArea<DB, Shift>,
    lines: &Lines,
    title_size: u32,
    x: X,
    y: Y,
) -> Result<()>
where
    DB: DrawingBackend,
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let mut chart = ChartBuilder::on(area)
        .caption(&lines.title, ("sans-serif", title_size))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(x, y)
        .map_err(draw_err)?;
    let categories = lines.categories.clone();
    let x_clock = lines.x_clock;
    let category = move |v: &f64| -> String {
        let Some(names) = &categories else {
            if x_clock {
                return mauisim_sim::units::clock_of(v.round());
            }
            return number_label(*v);
        };
        let i = v.round();
        if (v - i).abs() > 1e-6 || i < 0.0 {
            return String::new();
        }
        names.get(i as usize).cloned().unwrap_or_default()
    };
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(&lines.x.label)
        .y_desc(&lines.y.label)
        .x_label_formatter(&category)
        .y_label_formatter(&|v| number_label(*v))
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.08))
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 14));
    if let Some(names) = &lines.categories {
        mesh.x_labels(names.len().max(2));
    }
    mesh.draw().map_err(draw_err)?;
    for s in &lines.series {
        if s.style == Style::Points {
            // Categories: an interval per point (a band between categories would suggest
            // values in between).
            let half = (lines.x.range.1 - lines.x.range.0) / 150.0;
            let bars = s.band.iter().flat_map(|&(x, lo, hi)| {
                let stroke = s.color.stroke_width(2);
                [
                    PathElement::new(vec![(x, lo), (x, hi)], stroke),
                    PathElement::new(vec![(x - half, lo), (x + half, lo)], stroke),
                    PathElement::new(vec![(x - half, hi), (x + half, hi)], stroke),
                ]
            });
            chart.draw_series(bars).map_err(draw_err)?;
        } else if !s.band.is_empty() {
            let upper = s.band.iter().map(|&(x, _, hi)| (x, hi));
            let lower = s.band.iter().rev().map(|&(x, lo, _)| (x, lo));
            let outline: Vec<(f64, f64)> = upper.chain(lower).collect();
            chart
                .draw_series(std::iter::once(Polygon::new(
                    outline,
                    s.color.mix(0.18).filled(),
                )))
                .map_err(draw_err)?;
        }
        let color = s.color;
        match s.style {
            Style::Line => chart
                .draw_series(LineSeries::new(
                    s.points.iter().copied(),
                    color.stroke_width(2),
                ))
                .map_err(draw_err)?,
            Style::Area => {
                let floor = lines.y.range.0;
                chart
                    .draw_series(
                        AreaSeries::new(s.points.iter().copied(), floor, color.mix(0.35))
                            .border_style(color.stroke_width(1)),
                    )
                    .map_err(draw_err)?
            }
            Style::Points => chart
                .draw_series(s.points.iter().map(|&p| Circle::new(p, 4, color.filled())))
                .map_err(draw_err)?,
        };
    }
    Ok(())
}

/// Tick labels without float noise: `0.25`, `12`, `1e6`.
pub fn number_label(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if !(1e-3..1e6).contains(&a) {
        return format!("{v:.0e}");
    }
    let text = format!("{v:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A sequential ramp (light yellow → green → dark blue) at `t` in [0, 1].
pub fn ramp(t: f64) -> RGBColor {
    const STOPS: [(f64, (f64, f64, f64)); 4] = [
        (0.0, (255.0, 255.0, 204.0)),
        (0.35, (161.0, 218.0, 180.0)),
        (0.7, (44.0, 127.0, 184.0)),
        (1.0, (37.0, 52.0, 148.0)),
    ];
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let k = STOPS.iter().rposition(|s| s.0 <= t).unwrap_or(0).min(2);
    let (a, b) = (STOPS[k], STOPS[k + 1]);
    let f = (t - a.0) / (b.0 - a.0);
    let mix = |x: f64, y: f64| (x + (y - x) * f).round() as u8;
    RGBColor(
        mix(a.1 .0, b.1 .0),
        mix(a.1 .1, b.1 .1),
        mix(a.1 .2, b.1 .2),
    )
}

fn draw_heatmap<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, h: &Heatmap) -> Result<()> {
    let (cols, rows) = (h.columns.len().max(1), h.rows.len().max(1));
    let (body, foot) = root.split_vertically(root.dim_in_pixel().1 as i32 - 34);
    let mut chart = ChartBuilder::on(&body)
        .caption(&h.title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(80)
        .build_cartesian_2d(0f64..cols as f64, 0f64..rows as f64)
        .map_err(draw_err)?;
    let columns = h.columns.clone();
    let row_names = h.rows.clone();
    let at_center = |names: &[String], v: f64, flip: bool| -> String {
        let i = v - 0.5;
        if (i - i.round()).abs() > 1e-6 || i < 0.0 {
            return String::new();
        }
        let i = i.round() as usize;
        let i = if flip {
            names.len().wrapping_sub(1 + i)
        } else {
            i
        };
        names.get(i).cloned().unwrap_or_default()
    };
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc(&h.x_label)
        .y_desc(&h.y_label)
        .x_labels(cols * 2 + 1)
        .y_labels(rows * 2 + 1)
        .x_label_formatter(&|v| at_center(&columns, *v, false))
        .y_label_formatter(&|v| at_center(&row_names, *v, true))
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 14))
        .draw()
        .map_err(draw_err)?;
    let values: Vec<f64> = h
        .cells
        .iter()
        .flatten()
        .flatten()
        .map(|c| c.value)
        .filter(|v| v.is_finite() && (!h.log_color || *v > 0.0))
        .collect();
    let scale = |v: f64| if h.log_color { v.max(1e-12).ln() } else { v };
    let (lo, hi) = match h.color_range {
        Some((lo, hi)) => (scale(lo), scale(hi)),
        None => (
            values
                .iter()
                .map(|&v| scale(v))
                .fold(f64::INFINITY, f64::min),
            values
                .iter()
                .map(|&v| scale(v))
                .fold(f64::NEG_INFINITY, f64::max),
        ),
    };
    for (r, row) in h.cells.iter().enumerate() {
        let y = (rows - 1 - r) as f64;
        for (c, cell) in row.iter().enumerate() {
            let x = c as f64;
            let Some(cell) = cell else {
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(x, y), (x + 1.0, y + 1.0)],
                        RGBColor(240, 240, 240).filled(),
                    )))
                    .map_err(draw_err)?;
                continue;
            };
            let t = if hi > lo {
                (scale(cell.value) - lo) / (hi - lo)
            } else {
                0.5
            };
            let fill = ramp(t);
            chart
                .draw_series([
                    Rectangle::new([(x, y), (x + 1.0, y + 1.0)], fill.filled()),
                    Rectangle::new([(x, y), (x + 1.0, y + 1.0)], WHITE.stroke_width(1)),
                ])
                .map_err(draw_err)?;
            let ink = if t > 0.55 { WHITE } else { BLACK };
            let big = ("sans-serif", 15)
                .into_font()
                .color(&ink)
                .pos(Pos::new(HPos::Center, VPos::Center));
            let small = ("sans-serif", 11)
                .into_font()
                .color(&ink)
                .pos(Pos::new(HPos::Center, VPos::Center));
            let (main_y, note_y) = if cell.note.is_empty() {
                (y + 0.5, y + 0.5)
            } else {
                (y + 0.6, y + 0.3)
            };
            chart
                .draw_series(std::iter::once(Text::new(
                    cell.text.clone(),
                    (x + 0.5, main_y),
                    big,
                )))
                .map_err(draw_err)?;
            if !cell.note.is_empty() {
                chart
                    .draw_series(std::iter::once(Text::new(
                        cell.note.clone(),
                        (x + 0.5, note_y),
                        small,
                    )))
                    .map_err(draw_err)?;
            }
        }
    }
    foot.draw(&Text::new(
        h.legend.clone(),
        (12, 8),
        ("sans-serif", 13).into_font(),
    ))
    .map_err(draw_err)?;
    draw_color_bar(&foot, h)
}

/// The colour scale at the right of the foot: the ramp, its two ends labelled.
fn draw_color_bar<DB: DrawingBackend>(foot: &DrawingArea<DB, Shift>, h: &Heatmap) -> Result<()> {
    const WIDTH: i32 = 180;
    const STEPS: i32 = 60;
    let right = foot.dim_in_pixel().0 as i32 - 16;
    let left = right - WIDTH;
    for k in 0..STEPS {
        let x0 = left + k * WIDTH / STEPS;
        let x1 = left + (k + 1) * WIDTH / STEPS;
        let t = (k as f64 + 0.5) / STEPS as f64;
        foot.draw(&Rectangle::new([(x0, 4), (x1, 16)], ramp(t).filled()))
            .map_err(draw_err)?;
    }
    foot.draw(&Rectangle::new([(left, 4), (right, 16)], BLACK.mix(0.4)))
        .map_err(draw_err)?;
    let small = ("sans-serif", 11).into_font().color(&BLACK);
    let [low, high] = &h.color_ends;
    foot.draw(&Text::new(
        low.clone(),
        (left, 19),
        small.clone().pos(Pos::new(HPos::Left, VPos::Top)),
    ))
    .map_err(draw_err)?;
    foot.draw(&Text::new(
        high.clone(),
        (right, 19),
        small.pos(Pos::new(HPos::Right, VPos::Top)),
    ))
    .map_err(draw_err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_labels_have_no_float_noise() {
        assert_eq!(number_label(0.0), "0");
        assert_eq!(number_label(0.1 + 0.2), "0.3");
        assert_eq!(number_label(12.0), "12");
        assert_eq!(number_label(3.0e6), "3e6");
        assert_eq!(number_label(-3.25), "-3.25");
    }

    #[test]
    fn ramp_runs_from_light_to_dark() {
        assert_eq!(ramp(0.0), RGBColor(255, 255, 204));
        assert_eq!(ramp(1.0), RGBColor(37, 52, 148));
        assert_eq!(ramp(f64::NAN), ramp(0.0));
        let light = |c: RGBColor| c.0 as u32 + c.1 as u32 + c.2 as u32;
        assert!(light(ramp(0.2)) > light(ramp(0.5)));
        assert!(light(ramp(0.5)) > light(ramp(0.9)));
    }

    #[test]
    fn fitted_axes_start_at_zero_unless_logarithmic() {
        let a = Axis::fit("x", false, [2.0, 4.0].into_iter());
        assert_eq!(a.range, (0.0, 4.2));
        let l = Axis::fit("x", true, [0.0, 10.0, 1000.0].into_iter());
        assert_eq!(l.range, (10.0, 1200.0));
        let empty = Axis::fit("x", false, std::iter::empty());
        assert_eq!(empty.range, (0.0, 1.05));
    }
}
