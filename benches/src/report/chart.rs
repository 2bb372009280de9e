//! The size sweep's chart (`throughput.svg`).

use std::fmt::Write as _;

use super::format::size_name;

/// One line of the chart: name, colour, (bytes, GB/s) points.
pub(crate) type Series = (&'static str, &'static str, Vec<(u64, f64)>);

/// A line chart of GB/s against size, both axes logarithmic (so that equal ratios are equal
/// distances), one line per series.
pub(crate) fn svg(title: &str, series: &[Series]) -> String {
    let (w, h, left, right, top, bottom) = (760.0, 440.0, 60.0, 190.0, 40.0, 50.0);
    let points = || series.iter().flat_map(|s| s.2.iter());
    let x0 = points()
        .map(|p| (p.0 as f64).log2())
        .fold(f64::MAX, f64::min);
    let x1 = points()
        .map(|p| (p.0 as f64).log2())
        .fold(f64::MIN, f64::max);
    let lo = points()
        .map(|p| p.1)
        .filter(|&y| y > 0.0)
        .fold(f64::MAX, f64::min);
    let hi = points().map(|p| p.1).fold(0.0, f64::max);
    let (y0, y1) = ((lo / 1.5).log10().floor(), (hi * 1.5).log10().ceil());
    let px = |x: f64| left + (x - x0) / (x1 - x0).max(1e-9) * (w - left - right);
    let py =
        |y: f64| h - bottom - (y.max(1e-9).log10() - y0) / (y1 - y0).max(1e-9) * (h - top - bottom);
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"{left}\" y=\"24\" font-size=\"14\">{title}</text>\n"
    );
    let mut decade = y0;
    while decade <= y1 {
        for m in [1.0, 3.0] {
            let y = m * 10f64.powf(decade);
            if y.log10() > y1 + 1e-9 {
                continue;
            }
            let _ = writeln!(
                out,
                "<line x1=\"{left}\" x2=\"{}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
                w - right,
                py(y),
                py(y),
                left - 6.0,
                py(y) + 4.0,
                tick(y)
            );
        }
        decade += 1.0;
    }
    let mut sizes: Vec<u64> = points().map(|p| p.0).collect();
    sizes.sort_unstable();
    sizes.dedup();
    for (i, s) in sizes.iter().enumerate() {
        let x = px((*s as f64).log2());
        // Alternate label rows so that neighbouring sizes do not overlap.
        let y = h - bottom + 16.0 + 13.0 * (i % 2) as f64;
        let _ = writeln!(
            out,
            "<text x=\"{x:.1}\" y=\"{y}\" text-anchor=\"middle\">{}</text>",
            size_name(*s)
        );
    }
    let _ = writeln!(
        out,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">bytes per operand</text><text x=\"14\" y=\"{}\" transform=\"rotate(-90 14 {})\" text-anchor=\"middle\">GB/s (read + written)</text>",
        (left + w - right) / 2.0,
        h - 6.0,
        h / 2.0,
        h / 2.0
    );
    for (i, (name, color, points)) in series.iter().enumerate() {
        // Odd lines dashed, so that lines lying on each other both show.
        let dash = if i % 2 == 1 {
            " stroke-dasharray=\"6 4\""
        } else {
            ""
        };
        let path: Vec<String> = points
            .iter()
            .map(|p| format!("{:.1},{:.1}", px((p.0 as f64).log2()), py(p.1)))
            .collect();
        let _ = writeln!(
            out,
            "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\"{dash} points=\"{}\"/>",
            path.join(" ")
        );
        for p in points {
            let _ = writeln!(
                out,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{color}\"/>",
                px((p.0 as f64).log2()),
                py(p.1)
            );
        }
        let ly = top + 10.0 + 20.0 * i as f64;
        let _ = writeln!(
            out,
            "<line x1=\"{}\" x2=\"{}\" y1=\"{ly}\" y2=\"{ly}\" stroke=\"{color}\" stroke-width=\"3\"/><text x=\"{}\" y=\"{}\">{name}</text>",
            w - right + 10.0,
            w - right + 30.0,
            w - right + 36.0,
            ly + 4.0
        );
    }
    out.push_str("</svg>\n");
    out
}

/// An axis label: 0.03, 0.3, 3, 30.
fn tick(y: f64) -> String {
    let digits = (-y.log10().floor()).max(0.0) as usize;
    format!("{y:.digits$}")
}
