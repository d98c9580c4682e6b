//! Server-rendered SVG plots (no script, no external asset). Labels are
//! escaped like every other string on a page.

use super::html::esc;
use std::fmt::Write;

const WIDTH: f64 = 900.0;
const HEIGHT: f64 = 220.0;
const LEFT: f64 = 48.0;
const BOTTOM: f64 = 36.0;
const TOP: f64 = 12.0;
/// The colour of completed work.
pub const SUCCESS: [&str; 1] = ["#239b56"];
/// Series colours, in legend order (the last one is reused past the end).
pub const COLOURS: [&str; 8] = [
    "#c0392b", "#d68910", "#7d3c98", "#2471a3", "#17a589", "#839192", "#a04000", "#5d6d7e",
];

fn axis_max(max: f64) -> f64 {
    if max <= 0.0 {
        1.0
    } else {
        max.ceil()
    }
}

/// Stacked vertical bars: one bar per bucket, one segment per series.
/// `buckets` are the x labels; each series is (name, value per bucket).
/// `palette` colours the series in order (its last colour is reused).
pub fn stacked_bars(
    id: &str,
    title: &str,
    buckets: &[String],
    series: &[(String, Vec<f64>)],
    palette: &[&str],
) -> String {
    let colour = |s: usize| {
        palette
            .get(s)
            .or(palette.last())
            .copied()
            .unwrap_or("#839192")
    };
    let n = buckets.len().max(1);
    let totals: Vec<f64> = (0..buckets.len())
        .map(|b| {
            series
                .iter()
                .map(|(_, v)| v.get(b).copied().unwrap_or(0.0))
                .sum()
        })
        .collect();
    let max = axis_max(totals.iter().copied().fold(0.0, f64::max));
    let plot_w = WIDTH - LEFT - 8.0;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let slot = plot_w / n as f64;
    let bar = (slot * 0.8).max(1.0);
    let mut out = format!(
        "<figure class=\"plot\"><figcaption>{}</figcaption>\
         <svg id=\"{id}\" viewBox=\"0 0 {WIDTH} {}\" role=\"img\" aria-label=\"{}\">",
        esc(title),
        HEIGHT + 18.0 * series.len().div_ceil(4) as f64,
        esc(title)
    );
    // Axis and a mid gridline with their values.
    let _ = write!(
        out,
        "<line x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{}\" class=\"axis\"/>\
         <line x1=\"{LEFT}\" y1=\"{0}\" x2=\"{}\" y2=\"{0}\" class=\"axis\"/>\
         <text x=\"{}\" y=\"{}\" class=\"tick\" text-anchor=\"end\">{max}</text>\
         <text x=\"{}\" y=\"{}\" class=\"tick\" text-anchor=\"end\">0</text>",
        TOP + plot_h,
        WIDTH - 8.0,
        LEFT - 4.0,
        TOP + 8.0,
        LEFT - 4.0,
        TOP + plot_h
    );
    let label_every = (n / 12).max(1);
    for (b, label) in buckets.iter().enumerate() {
        let x = LEFT + slot * b as f64 + (slot - bar) / 2.0;
        let mut y = TOP + plot_h;
        for (s, (name, values)) in series.iter().enumerate() {
            let v = values.get(b).copied().unwrap_or(0.0);
            if v <= 0.0 {
                continue;
            }
            let h = v / max * plot_h;
            y -= h;
            let _ = write!(
                out,
                "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{bar:.1}\" height=\"{h:.1}\" fill=\"{}\"><title>{} · {}: {v}</title></rect>",
                colour(s),
                esc(label),
                esc(name)
            );
        }
        if b % label_every == 0 {
            let _ = write!(
                out,
                "<text x=\"{:.1}\" y=\"{}\" class=\"tick\" text-anchor=\"middle\">{}</text>",
                x + bar / 2.0,
                TOP + plot_h + 14.0,
                esc(label)
            );
        }
    }
    for (s, (name, _)) in series.iter().enumerate() {
        let x = LEFT + (s % 4) as f64 * 210.0;
        let y = HEIGHT + 18.0 * (s / 4) as f64 - 4.0;
        let _ = write!(
            out,
            "<rect x=\"{x}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{}\"/>\
             <text x=\"{}\" y=\"{y}\" class=\"legend\">{}</text>",
            y - 9.0,
            colour(s),
            x + 14.0,
            esc(name)
        );
    }
    out.push_str("</svg></figure>");
    out
}

/// Horizontal bars, one per labelled value (largest first as given).
pub fn horizontal_bars(id: &str, title: &str, bars: &[(String, f64)]) -> String {
    let row = 22.0;
    let height = TOP + row * bars.len().max(1) as f64 + 8.0;
    let label_w = 220.0;
    let max = axis_max(bars.iter().map(|b| b.1).fold(0.0, f64::max));
    let plot_w = WIDTH - label_w - 60.0;
    let mut out = format!(
        "<figure class=\"plot\"><figcaption>{}</figcaption>\
         <svg id=\"{id}\" viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" aria-label=\"{}\">",
        esc(title),
        esc(title)
    );
    if bars.is_empty() {
        let _ = write!(
            out,
            "<text x=\"{LEFT}\" y=\"{}\" class=\"tick\">none</text>",
            TOP + 12.0
        );
    }
    for (i, (label, v)) in bars.iter().enumerate() {
        let y = TOP + row * i as f64;
        let w = v / max * plot_w;
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"end\">{}</text>\
             <rect x=\"{label_w}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{}\" fill=\"{}\"><title>{}: {v}</title></rect>\
             <text x=\"{:.1}\" y=\"{:.1}\" class=\"tick\">{v}</text>",
            label_w - 6.0,
            y + 14.0,
            esc(label),
            row - 6.0,
            COLOURS[3],
            esc(label),
            label_w + w + 4.0,
            y + 14.0
        );
    }
    out.push_str("</svg></figure>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_escaped() {
        let svg = stacked_bars(
            "t",
            "<b>",
            &["<script>".into()],
            &[("<i>".into(), vec![1.0])],
            &COLOURS,
        );
        assert!(!svg.contains("<script>") && !svg.contains("<i>") && !svg.contains("<b>"));
        let svg = horizontal_bars("h", "x", &[("<script>".into(), 2.0)]);
        assert!(!svg.contains("<script>"));
    }
}
