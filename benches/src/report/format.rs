//! The report's text: its table of cases, sizes, verdicts, the date and the machine's load.

use std::fmt::Write as _;

/// One row of the table of cases: a case or a baseline, its GB/s and its ratios to the
/// baselines of its size.
pub(crate) struct Row {
    pub(crate) op: &'static str,
    pub(crate) path: &'static str,
    pub(crate) data_type: String,
    pub(crate) bytes: u64,
    pub(crate) gbps: f64,
    pub(crate) kernel: f64,
    pub(crate) copy: f64,
    pub(crate) bare: f64,
    /// Against the plain strided kernel on the same layout, for the strided paths.
    pub(crate) plain: Option<f64>,
    pub(crate) dispatch: String,
}

/// `bytes` in whole MiB or KiB, rounded to the nearest (the square cases are a little under
/// the size asked for).
pub(crate) fn size_name(bytes: u64) -> String {
    let kib = (bytes + (1 << 9)) >> 10;
    if kib >= 1 << 10 {
        format!("{} MiB", (bytes + (1 << 19)) >> 20)
    } else {
        format!("{kib} KiB")
    }
}

/// The table of `rows`, one line each.
pub(crate) fn table(rows: &[Row]) -> String {
    let mut t = String::from(
        "| operator | path | type | size | GB/s | / copy kernel | / copy_buffer_to_buffer | / bare xor | / plain strided | kernel |\n|---|---|---|---|---:|---:|---:|---:|---:|---|\n",
    );
    for r in rows {
        let _ = writeln!(
            t,
            "| {} | {} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {} | {} |",
            r.op,
            r.path,
            r.data_type,
            size_name(r.bytes),
            r.gbps,
            r.kernel,
            r.copy,
            r.bare,
            r.plain.map_or("-".to_string(), |p| format!("{p:.2}")),
            r.dispatch
        );
    }
    let clock = crate::timing::clock_line();
    if !clock.is_empty() {
        let _ = writeln!(t, "\n{clock}");
    }
    t
}

/// A target's verdict: `met` or `short`.
pub(crate) fn verdict(ok: bool) -> &'static str {
    if ok { "met" } else { "short" }
}

/// The 1-minute load average, where the system reports one (`/proc/loadavg`).
pub(crate) fn load() -> Option<String> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace().next().map(str::to_string)
}

/// Today's date from the system clock, as YYYY-MM-DD (civil calendar from days since 1970).
pub(crate) fn today() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() / 86_400)
        .unwrap_or(0) as i64;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}
