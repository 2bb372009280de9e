//! The AND/OR/NOT section (`--and-or-not`): every AND, OR and NOT operator of the table against
//! the XOR operator of its standard.

use std::fmt::Write as _;

use gpu_xor::{Context, DataType};

use super::format::{size_name, verdict};
use super::suite::Suite;
use super::{Target, section_sizes};
use crate::{Op, Path};

/// Where each AND, OR and NOT operator runs in this section, and its type: DirectML's in
/// the contiguous, strided (a transposed input) and broadcast (a row) layouts; OpenVINO's
/// binary operations contiguous, broadcast along rows and along columns (their tensors are
/// dense: a broadcast is their only stride); their NOT contiguous (it has no other layout).
fn and_or_not_cases() -> Vec<(Op, Path, DataType)> {
    let mut cases = Vec::new();
    for op in Op::and_or_not() {
        let logical = match op {
            Op::Dml(f) => f.function().logical,
            Op::DmlNot(f) => f.function().logical,
            Op::Ov(f) => f.boolean_only(),
            Op::OvNot(f) => f.boolean_only(),
            _ => false,
        };
        let dt = match (op.openvino(), logical) {
            (true, true) => DataType::Bool,
            (false, true) => DataType::U8,
            (_, false) => DataType::U32,
        };
        let paths: &[Path] = match op {
            Op::OvNot(_) => &[Path::Contiguous],
            Op::Ov(_) => &[Path::Contiguous, Path::BroadcastColumn, Path::BroadcastRow],
            _ => &[Path::Contiguous, Path::Transposed, Path::BroadcastRow],
        };
        for &path in paths {
            cases.push((op, path, dt));
        }
    }
    cases
}

/// Every AND, OR and NOT operator against the XOR operator of its standard and kind on the
/// same layout, type and size, timed in one suite: time per call of XOR over time per call of
/// the operator (a NOT reads one input, XOR two).
pub(crate) fn and_or_not_section(ctx: &Context, quick: bool) -> (String, Vec<Target>) {
    // On a GPU, 64 MiB: past its L2.
    let bytes = section_sizes(ctx, quick, &[if quick { 4 << 20 } else { 16 << 20 }])[0];
    let cases = and_or_not_cases();
    let mut suite = Suite::default();
    suite.baselines(ctx, bytes);
    let mut measured: Vec<(Op, Path, DataType)> = Vec::new();
    for &(op, path, dt) in &cases {
        for op in [op.xor_twin(), op] {
            if !measured.contains(&(op, path, dt)) {
                suite.case(ctx, op, path, dt, bytes);
                measured.push((op, path, dt));
            }
        }
    }
    suite.run(ctx, if quick { 2 } else { 4 });
    let mut text = format!(
        "Every AND, OR and NOT operator of the table against the XOR operator of its standard and kind (DirectML BIT_XOR or LOGICAL_XOR, OpenVINO BitwiseXor-13 on the same type) on the same layout, type and buffers, {} per operand, timed in one suite (every row in turn each round, best round kept). `XOR / op` is XOR's time per call over the operator's: 1 is XOR's speed, above 1 faster (a NOT reads one input). Target: at least 0.9 (XOR's speed within this machine's noise).\n\n| operator | path | type | GB/s | kernel | XOR GB/s | XOR / op | target |\n|---|---|---|---:|---|---:|---:|---|\n",
        size_name(bytes)
    );
    let mut targets = Vec::new();
    let rows = suite.rows();
    let gbps = |op: Op, path: Path, dt: DataType| {
        rows.iter()
            .find(|r| r.op == op.name() && r.path == path.name() && r.data_type == dt.to_string())
            .map_or(0.0, |r| r.gbps)
    };
    for &(op, path, dt) in &cases {
        let twin = op.xor_twin();
        let dts = dt.to_string();
        let (Some((t, kernel)), Some((t_xor, _))) = (
            suite.best(op.name(), path.name(), &dts),
            suite.best(twin.name(), path.name(), &dts),
        ) else {
            continue;
        };
        let ratio = t_xor.as_secs_f64() / t.as_secs_f64();
        let met = ratio >= 0.9;
        let _ = writeln!(
            text,
            "| {} | {} | {dt} | {:.2} | {kernel} | {:.2} | {ratio:.2} | >= 0.9: {} |",
            op.name(),
            path.name(),
            gbps(op, path, dt),
            gbps(twin, path, dt),
            verdict(met)
        );
        targets.push((
            format!(
                "{} {} {dt} {}: at XOR's speed (XOR / op >= 0.9)",
                op.name(),
                path.name(),
                size_name(bytes)
            ),
            format!("{ratio:.2}"),
            met,
        ));
    }
    let _ = writeln!(text, "\n{}", crate::timing::clock_line());
    println!("{text}");
    (text, targets)
}
