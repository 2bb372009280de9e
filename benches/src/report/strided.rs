//! The strided section: every strided layout against contiguous BIT_XOR of its type and the
//! plain strided kernel.

use std::fmt::Write as _;

use gpu_xor::{Context, DataType};

use super::Target;
use super::format::{size_name, verdict};
use super::suite::Suite;
use crate::{Op, Path};

/// What a strided case must reach: the least fraction of contiguous BIT_XOR of its type per
/// output byte, and the least fraction of the plain strided kernel on its layout.
fn strided_target(path: Path) -> (f64, f64) {
    match path {
        Path::Transposed => (0.8, 1.1),
        Path::Permuted3 | Path::Permuted3Inner | Path::Permuted4 | Path::Permuted4Channels => {
            (0.7, 1.1)
        }
        Path::TransposedOutput | Path::PermutedOutput | Path::SteppedOutput | Path::ShortRows => {
            (0.5, 1.0)
        }
        // Padded, sliced and stepped layouts: no fraction of contiguous asked, at least the
        // plain kernel.
        _ => (0.0, 1.0),
    }
}

/// The strided layouts at 64 MiB and 1 MiB (16 MiB and 1 MiB with `--quick`), each against
/// contiguous BIT_XOR of its type and the plain strided kernel on the same layout, measured in
/// one suite per size; the table and the targets.
pub(crate) fn strided_section(ctx: &Context, quick: bool) -> (String, Vec<Target>) {
    let every = [DataType::U8, DataType::U16, DataType::U32, DataType::U64];
    let mut cases: Vec<(Path, DataType)> = Vec::new();
    for dt in every {
        cases.push((Path::Transposed, dt));
    }
    for path in [
        Path::Permuted3,
        Path::Permuted3Inner,
        Path::Permuted4,
        Path::Permuted4Channels,
    ] {
        cases.push((path, DataType::U32));
    }
    cases.push((Path::Permuted3, DataType::U8));
    cases.push((Path::SteppedInput, DataType::U8));
    cases.push((Path::SteppedInput, DataType::U32));
    for dt in every {
        cases.push((Path::TransposedOutput, dt));
    }
    for dt in every {
        cases.push((Path::PermutedOutput, dt));
    }
    for dt in [DataType::U8, DataType::U16] {
        cases.push((Path::PaddedOutput, dt));
        cases.push((Path::SlicedOutput, dt));
    }
    cases.push((Path::SteppedOutput, DataType::U8));
    cases.push((Path::SteppedOutput, DataType::U16));
    cases.push((Path::ShortRows, DataType::U8));
    cases.push((Path::ShortRows, DataType::U16));

    let sizes: [u64; 2] = [if quick { 16 << 20 } else { 64 << 20 }, 1 << 20];
    let mut text = String::from(
        "Every strided layout against contiguous BIT_XOR of its type (per output byte: every case reads two operands and writes one, as contiguous does) and against the plain strided kernel (`benches/plain_strided.wgsl`: one element per invocation, offsets from a strides uniform; one output word per invocation for a dense 8- or 16-bit output) on the same layout and buffers, checked to write the same bytes. One suite per size, every row timed in turn each round, best round kept.\n\n| path | type | size | GB/s | / contiguous | plain GB/s | / plain strided | kernel | target (contiguous, plain) |\n|---|---|---|---:|---:|---:|---:|---|---|\n",
    );
    let mut targets = Vec::new();
    for bytes in sizes {
        let mut suite = Suite::default();
        suite.baselines(ctx, bytes);
        for dt in every {
            suite.case(ctx, Op::BitXor, Path::Contiguous, dt, bytes);
        }
        for &(path, dt) in &cases {
            suite.case(ctx, Op::BitXor, path, dt, bytes);
        }
        suite.run(ctx, if quick { 2 } else { 4 });
        let rows = suite.rows();
        let find = |path: &str, dt: &str| {
            rows.iter()
                .find(|r| r.op == "bit_xor" && r.path == path && r.data_type == dt)
        };
        for &(path, dt) in &cases {
            let Some(r) = find(path.name(), &dt.to_string()) else {
                continue;
            };
            let contiguous = find("contiguous", &dt.to_string()).map_or(0.0, |c| c.gbps);
            let of_contiguous = r.gbps / contiguous;
            let of_plain = r.plain.unwrap_or(0.0);
            let plain_gbps = if of_plain > 0.0 {
                r.gbps / of_plain
            } else {
                0.0
            };
            let (least_contiguous, least_plain) = strided_target(path);
            let met = of_contiguous >= least_contiguous && of_plain >= least_plain;
            let _ = writeln!(
                text,
                "| {} | {dt} | {} | {:.2} | {of_contiguous:.2} | {plain_gbps:.2} | {of_plain:.2} | {} | >= {least_contiguous}, >= {least_plain}: {} |",
                path.name(),
                size_name(r.bytes),
                r.gbps,
                r.dispatch,
                verdict(met)
            );
            targets.push((
                format!(
                    "{} {dt} {}: >= {least_contiguous} of contiguous, >= {least_plain} x plain strided",
                    path.name(),
                    size_name(bytes)
                ),
                format!("{of_contiguous:.2}, {of_plain:.2}"),
                met,
            ));
        }
    }
    println!("{text}");
    (text, targets)
}
