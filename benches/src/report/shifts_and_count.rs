//! The shifts-and-count section (`--shifts-and-count`): every shift operator, and
//! DirectML's `BIT_COUNT`, against the XOR operator of its standard.

use std::fmt::Write as _;

use gpu_xor::{Context, DataType};

use super::format::{size_name, verdict};
use super::suite::Suite;
use super::{Target, section_sizes};
use crate::{Op, Path};

/// Where each shift runs in this section, and its types: DirectML's contiguous, strided
/// (a transposed input) and broadcast (a row) on its four unsigned types; OpenVINO's
/// contiguous and broadcast along rows and along columns (their tensors are dense: a
/// broadcast is their only stride) on a signed type of every width and `u16` (the right shift
/// is arithmetic on the signed ones, logical on `u16`).
fn shift_cases() -> Vec<(Op, Path, DataType)> {
    let mut cases = Vec::new();
    for op in Op::shifts() {
        let (paths, types): (&[Path], &[DataType]) = if op.openvino() {
            (
                &[Path::Contiguous, Path::BroadcastColumn, Path::BroadcastRow],
                &[
                    DataType::I8,
                    DataType::I16,
                    DataType::U16,
                    DataType::I32,
                    DataType::I64,
                ],
            )
        } else {
            (
                &[Path::Contiguous, Path::Transposed, Path::BroadcastRow],
                &[DataType::U8, DataType::U16, DataType::U32, DataType::U64],
            )
        };
        for &path in paths {
            for &dt in types {
                cases.push((op, path, dt));
            }
        }
    }
    cases
}

/// Where `BIT_COUNT` runs in this section, and its types (the input's, the output's
/// in the operator): DirectML's layouts of the shifts (contiguous, a transposed input, a
/// broadcast row as the input), `u64 -> u8` and `u8 -> u32` (widths that differ, narrower
/// and wider), `u32 -> u32` and `u8 -> u8` (widths that agree).
fn count_cases() -> Vec<(Op, Path, DataType)> {
    let mut cases = Vec::new();
    for path in [Path::Contiguous, Path::Transposed, Path::BroadcastRow] {
        for (input, output) in [
            (DataType::U64, DataType::U8),
            (DataType::U8, DataType::U32),
            (DataType::U32, DataType::U32),
            (DataType::U8, DataType::U8),
        ] {
            cases.push((Op::BitCount(output), path, input));
        }
    }
    cases
}

/// The shifts' text and table header.
const SHIFT_TEXT: &str = "Every shift operator against the XOR operator of its standard on the same layout, type and size: DirectML `BIT_SHIFT_LEFT` and `BIT_SHIFT_RIGHT` against `BIT_XOR` on its four types (`u8`, `u16`, `u32`, `u64`), contiguous, strided (a transposed input) and broadcast (a row); OpenVINO `BitwiseLeftShift-15` and `BitwiseRightShift-15` against `BitwiseXor-13` on `i8`, `i16`, `u16`, `i32` and `i64` (the right shift arithmetic on the signed types, logical on `u16`), contiguous and B broadcast along rows and along columns. B holds shift amounts for the shifts: about three elements in four from 0 to the element's bits plus one, the rest random bits (out of range, negative on signed types; `gpu_xor_testkit::shift_amounts`), so that most elements are really shifted; XOR's B is random bytes, which its time does not depend on. One suite per size, every row of this table and of `BIT_COUNT`'s below timed in turn each round, best round kept. `XOR / op` is XOR's time per call over the shift's: 1 is XOR's speed, above 1 faster. Target: at least 0.9 (XOR's speed within this machine's noise).\n\n| operator | against | path | type | size | XOR µs | op µs | XOR / op | kernel | target |\n|---|---|---|---|---|---:|---:|---:|---|---|\n";

/// `BIT_COUNT`'s text and table header.
const COUNT_TEXT: &str = "DirectML `BIT_COUNT` (the bits set in each element) against `BIT_XOR` of its input's type, in the same suites as the shifts, on the layouts of the DirectML shifts: contiguous, strided (a transposed input) and broadcast (the input a row, `[rows, cols]` with strides `[0, 1]`, read once). `type` is the input's type, then the output's: `u64 -> u8` and `u8 -> u32`, whose widths differ, and `u32 -> u32` and `u8 -> u8`, whose widths agree; XOR runs on the input's type. `size` is the input's bytes (its elements at its width), as it is each of XOR's operands'. `XOR GB/s` and `op GB/s` are the bytes a call reads plus the bytes it writes over its time per call, in 10^9 bytes per second: XOR reads A and B and writes an output of their width, `BIT_COUNT` reads its input and writes the output at the output's width (contiguous, 9 bytes an element for `u64 -> u8` against XOR's 24 on `u64`, 5 for `u8 -> u32` against XOR's 3 on `u8`). `XOR / op` is XOR's time per call over `BIT_COUNT`'s. Where the widths differ `BIT_COUNT` moves other bytes than XOR, so the time ratio is not the target: the GB/s columns are what to compare. The target, `XOR / op` at least 0.9, is the same-width rows'.\n\n| operator | against | path | type | size | XOR µs | op µs | XOR GB/s | op GB/s | XOR / op | kernel | target |\n|---|---|---|---|---|---:|---:|---:|---:|---:|---|---|\n";

/// One operator against its XOR twin in a suite that timed both.
struct Versus {
    /// The best time per call of XOR and of the operator, in µs.
    xor_us: f64,
    op_us: f64,
    /// The bytes read plus bytes written per second of XOR and of the operator, in GB/s.
    xor_gbps: f64,
    op_gbps: f64,
    /// The operator's kernels.
    kernel: String,
}

impl Versus {
    /// `op` on `path`, `dt` against its XOR twin on the same layout and input type, or `None`
    /// where the suite lacks either.
    fn new(suite: &Suite, op: Op, path: Path, dt: DataType) -> Option<Versus> {
        let twin = op.xor_twin();
        let (name, twin_type) = (op.type_name(dt), twin.type_name(dt));
        let (t, kernel) = suite.best(op.name(), path.name(), &name)?;
        let (t_xor, _) = suite.best(twin.name(), path.name(), &twin_type)?;
        Some(Versus {
            xor_us: t_xor.as_secs_f64() * 1e6,
            op_us: t.as_secs_f64() * 1e6,
            xor_gbps: suite.case_gbps(twin.name(), path.name(), &twin_type)?,
            op_gbps: suite.case_gbps(op.name(), path.name(), &name)?,
            kernel,
        })
    }

    /// XOR's time per call over the operator's.
    fn ratio(&self) -> f64 {
        self.xor_us / self.op_us
    }
}

/// Every shift, and `BIT_COUNT`, against the XOR operator of its standard on the same layout,
/// type (the input's, for `BIT_COUNT`) and size, at 16 MiB and 1 MiB per operand (4 MiB and
/// 1 MiB with `--quick`; `BIT_COUNT`'s input of that size), timed in one suite per size: time
/// per call of XOR over time per call of the operator, and for `BIT_COUNT`, whose output may
/// be of another width, the GB/s of both. B holds shift amounts for the shifts
/// (`gpu_xor_testkit::shift_amounts`), random bytes for XOR, whose time does not depend on
/// them. Returns the two tables and the targets: every shift's, and `BIT_COUNT`'s where its
/// widths agree.
pub(crate) fn shifts_and_count_section(ctx: &Context, quick: bool) -> (String, Vec<Target>) {
    let sizes = section_sizes(
        ctx,
        quick,
        &[if quick { 4 << 20 } else { 16 << 20 }, 1 << 20],
    );
    let (shifts, counts) = (shift_cases(), count_cases());
    let mut shift_table = String::from(SHIFT_TEXT);
    let mut count_table = String::from(COUNT_TEXT);
    let mut targets = Vec::new();
    let target = |op: Op, path: Path, dt: DataType, bytes: u64, ratio: f64| {
        (
            format!(
                "{} {} {} {}: at XOR's speed (XOR / op >= 0.9)",
                op.name(),
                path.name(),
                op.type_name(dt),
                size_name(bytes)
            ),
            format!("{ratio:.2}"),
            ratio >= 0.9,
        )
    };
    for bytes in sizes {
        let mut suite = Suite::default();
        let mut measured: Vec<(Op, Path, DataType)> = Vec::new();
        for &(op, path, dt) in shifts.iter().chain(&counts) {
            for op in [op.xor_twin(), op] {
                if !measured.contains(&(op, path, dt)) {
                    suite.case(ctx, op, path, dt, bytes);
                    measured.push((op, path, dt));
                }
            }
        }
        suite.run(ctx, if quick { 2 } else { 4 });
        for &(op, path, dt) in &shifts {
            let Some(v) = Versus::new(&suite, op, path, dt) else {
                continue;
            };
            let ratio = v.ratio();
            let _ = writeln!(
                shift_table,
                "| {} | {} | {} | {dt} | {} | {:.1} | {:.1} | {ratio:.2} | {} | >= 0.9: {} |",
                op.name(),
                op.xor_twin().name(),
                path.name(),
                size_name(bytes),
                v.xor_us,
                v.op_us,
                v.kernel,
                verdict(ratio >= 0.9)
            );
            targets.push(target(op, path, dt, bytes, ratio));
        }
        for &(op, path, dt) in &counts {
            let Some(v) = Versus::new(&suite, op, path, dt) else {
                continue;
            };
            let ratio = v.ratio();
            let same_width = op.output_type(dt).size_in_bytes() == dt.size_in_bytes();
            let verdict = if same_width {
                targets.push(target(op, path, dt, bytes, ratio));
                format!(">= 0.9: {}", verdict(ratio >= 0.9))
            } else {
                "none: widths differ, compare GB/s".to_string()
            };
            let _ = writeln!(
                count_table,
                "| {} | {} | {} | {} | {} | {:.1} | {:.1} | {:.2} | {:.2} | {ratio:.2} | {} | {verdict} |",
                op.name(),
                op.xor_twin().name(),
                path.name(),
                op.type_name(dt),
                size_name(bytes),
                v.xor_us,
                v.op_us,
                v.xor_gbps,
                v.op_gbps,
                v.kernel,
            );
        }
    }
    let text = format!(
        "{shift_table}\n{count_table}\n{}\n",
        crate::timing::clock_line()
    );
    println!("{text}");
    (text, targets)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Case;

    /// `BIT_COUNT` runs on the DirectML shifts' layouts, on both output types, its widths
    /// differing and agreeing, against `BIT_XOR` of its input's type.
    #[test]
    fn bit_count_runs_where_the_dml_shifts_do() {
        let counts = count_cases();
        assert_eq!(counts.len(), 12);
        let shift_paths: Vec<Path> = shift_cases()
            .iter()
            .filter(|(op, ..)| !op.openvino())
            .map(|&(_, path, _)| path)
            .collect();
        for &(op, path, _) in &counts {
            assert!(shift_paths.contains(&path), "{path:?}");
            assert_eq!(op.xor_twin(), Op::BitXor);
            assert_eq!(op.inputs(), 1);
        }
        let names: Vec<String> = counts[..4]
            .iter()
            .map(|&(op, _, dt)| op.type_name(dt))
            .collect();
        assert_eq!(names, ["u64 -> u8", "u8 -> u32", "u32 -> u32", "u8 -> u8"]);
    }

    /// `BIT_COUNT`'s bytes a call: its input at the input's width, its output at the output's
    /// (the size is the input's); on the row broadcast the input is one row.
    #[test]
    fn bit_count_traffic_counts_each_width() {
        let mib = 1 << 20;
        let count = |out| Op::BitCount(out);
        let traffic = |op, path, dt| Case::traffic(op, path, dt, 16 * mib);
        assert_eq!(
            traffic(count(DataType::U8), Path::Contiguous, DataType::U64),
            16 * mib + 2 * mib
        );
        assert_eq!(
            traffic(count(DataType::U32), Path::Contiguous, DataType::U8),
            16 * mib + 64 * mib
        );
        assert_eq!(
            traffic(count(DataType::U32), Path::Contiguous, DataType::U32),
            32 * mib
        );
        assert_eq!(
            traffic(Op::BitXor, Path::Contiguous, DataType::U64),
            48 * mib
        );
        // A row of 4,096 u64 read once, 2 Mi elements written as u8.
        assert_eq!(
            traffic(count(DataType::U8), Path::BroadcastRow, DataType::U64),
            4096 * 8 + 2 * mib
        );
    }

    /// Every `BIT_COUNT` case of the section, at a small size, writes the bits set in each
    /// element its input's layout reads.
    #[test]
    fn bit_count_cases_count_bits() {
        let ctx = Context::from_env().expect("an adapter");
        for (op, path, dt) in count_cases() {
            let case = Case::new(&ctx, op, path, dt, 64 << 10);
            let (want, got) = case.bit_counts(&ctx);
            assert!(!want.is_empty());
            assert!(
                want == got,
                "{} {} {}: the output is not the bits set",
                op.name(),
                path.name(),
                op.type_name(dt)
            );
        }
    }
}
