//! The sweep chart (`sweep.svg`), drawn with `plotters`' SVG backend.
//!
//! No font is needed: with `default-features = false` plotters uses its built-in naive
//! text metrics for layout, and the SVG backend writes labels as `<text>` elements that
//! the viewer renders with its own fonts — so the chart draws offline, without
//! `/usr/share/fonts`, font-kit or ab_glyph.
//!
//! Left panel: overall precision (solid) and recall (dashed) against the threshold, one
//! colour per margin. Right panel: F1 per domain against the threshold at the default
//! margin. Null values (nothing accepted) leave gaps in a line, never a drop to 0.

use crate::measure::sweep::{self, Cell, Sweep};
use plotters::prelude::*;

/// Consecutive runs of defined points: a null breaks the line.
pub fn segments(points: &[(f64, Option<f64>)]) -> Vec<Vec<(f64, f64)>> {
    let mut out: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut cur: Vec<(f64, f64)> = Vec::new();
    for &(x, y) in points {
        match y {
            Some(y) => cur.push((x, y)),
            None if !cur.is_empty() => out.push(std::mem::take(&mut cur)),
            None => {}
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn series_for(
    s: &Sweep,
    margin: f64,
    pick: impl Fn(&sweep::Point) -> Option<&Cell>,
    field: fn(&Cell) -> Option<f64>,
) -> Vec<(f64, Option<f64>)> {
    s.points
        .iter()
        .filter(|p| (p.margin - margin).abs() < 1e-9)
        .map(|p| (p.threshold, pick(p).and_then(field)))
        .collect()
}

type DrawResult<T> = Result<T, Box<dyn std::error::Error>>;

/// One legend entry: label, colour, dashed.
type Entry = (String, RGBAColor, bool);

/// Draws a legend in its own strip beside a plot, so it never hides a line.
fn legend<DB: DrawingBackend>(area: &DrawingArea<DB, plotters::coord::Shift>, items: &[Entry]) -> DrawResult<()>
where
    DB::ErrorType: 'static,
{
    for (i, (label, colour, dashed)) in items.iter().enumerate() {
        let y = 48 + 20 * i as i32;
        if *dashed {
            for x in [4, 14] {
                area.draw(&PathElement::new(vec![(x, y), (x + 6, y)], colour.stroke_width(2)))?;
            }
        } else {
            area.draw(&PathElement::new(vec![(4, y), (22, y)], colour.stroke_width(2)))?;
        }
        area.draw(&Text::new(label.clone(), (28, y - 6), ("sans-serif", 12)))?;
    }
    Ok(())
}

/// Draws the sweep chart as an SVG document.
pub fn render_svg(s: &Sweep) -> DrawResult<String> {
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (1320, 520)).into_drawing_area();
        root.fill(&WHITE)?;
        let (left, right) = root.split_horizontally(660);
        let (left, left_key) = left.split_horizontally(520);
        let (right, right_key) = right.split_horizontally(520);
        let mut left_items: Vec<Entry> = Vec::new();
        let mut right_items: Vec<Entry> = Vec::new();
        let (x0, x1) = s
            .thresholds
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), &t| (a.min(t), b.max(t)));
        let (x0, x1) = if x0 <= x1 { (x0 - 0.02, x1 + 0.02) } else { (0.0, 1.0) };

        let mut c = ChartBuilder::on(&left)
            .caption(
                "Overall precision (solid) / recall (dashed) by margin",
                ("sans-serif", 16),
            )
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(44)
            .build_cartesian_2d(x0..x1, 0.0f64..1.05f64)?;
        c.configure_mesh().x_desc("threshold").y_desc("rate").draw()?;
        for (i, &m) in s.margins.iter().enumerate() {
            let colour = Palette99::pick(i).to_rgba();
            let prec = series_for(s, m, |p| Some(&p.overall), |c| c.precision);
            let rec = series_for(s, m, |p| Some(&p.overall), |c| c.recall);
            left_items.push((format!("P, margin {m:.2}"), colour, false));
            left_items.push((format!("R, margin {m:.2}"), colour, true));
            for seg in segments(&prec) {
                c.draw_series(LineSeries::new(seg, colour.stroke_width(2)))?;
            }
            for seg in segments(&rec) {
                c.draw_series(DashedLineSeries::new(seg, 6, 4, colour.stroke_width(2)))?;
            }
        }
        legend(&left_key, &left_items)?;

        let mut c = ChartBuilder::on(&right)
            .caption(
                format!("F1 per domain (margin {:.2})", s.default_margin),
                ("sans-serif", 16),
            )
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(44)
            .build_cartesian_2d(x0..x1, 0.0f64..1.05f64)?;
        c.configure_mesh().x_desc("threshold").y_desc("F1").draw()?;
        // Domains with an F1 somewhere at the default margin (a line to draw), largest first.
        let drawn: Vec<String> = sweep::chart_domains(s, usize::MAX)
            .into_iter()
            .filter(|d| {
                series_for(s, s.default_margin, |p| p.domains.get(d), |c| c.f1)
                    .iter()
                    .any(|(_, y)| y.is_some())
            })
            .take(8)
            .collect();
        for (i, d) in drawn.iter().enumerate() {
            let colour = Palette99::pick(i + 1).to_rgba();
            let pts = series_for(s, s.default_margin, |p| p.domains.get(d), |c| c.f1);
            right_items.push((d.clone(), colour, false));
            for seg in segments(&pts) {
                c.draw_series(LineSeries::new(seg, colour.stroke_width(2)))?;
            }
        }
        // The default threshold, as a vertical guide.
        c.draw_series(DashedLineSeries::new(
            vec![(s.default_threshold, 0.0), (s.default_threshold, 1.05)],
            3,
            3,
            BLACK.mix(0.5).stroke_width(1),
        ))?;
        right_items.push((format!("default t {:.2}", s.default_threshold), BLACK.mix(0.5), true));
        legend(&right_key, &right_items)?;
        root.present()?;
    }
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nulls_break_lines() {
        let pts = [
            (0.1, Some(0.5)),
            (0.2, None),
            (0.3, Some(0.7)),
            (0.4, Some(0.8)),
            (0.5, None),
        ];
        assert_eq!(segments(&pts), vec![vec![(0.1, 0.5)], vec![(0.3, 0.7), (0.4, 0.8)]]);
        assert!(segments(&[(0.1, None)]).is_empty());
    }
}
