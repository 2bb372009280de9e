//! The core-path section (`--core`): the figures of the path every runtime hits most, each
//! against the bare kernel or bare recording of the same run: contiguous calls of every type
//! and function at 64 MiB (on a GPU at 64 MiB, 256 MiB and 1 GiB), the graph's frames and its recording per node, and one prepared
//! call recorded in its own pass against one batch.

use std::fmt::Write as _;

use gpu_xor::{Context, DataType, DmlBinaryOp, DmlUnaryOp};

use super::format::{size_name, table, verdict};
use super::graph::graph_section;
use super::recording::{RecordingReport, recording};
use super::suite::{BARE_XOR, Suite};
use super::{Target, large_sizes};
use crate::{Op, Path};

/// The section: recording first (before the other sections' buffers raise wgpu's per-pass
/// cost), then the contiguous table, then both graph mixes; the targets last.
/// Returns the section's text: its tables under headings, then the targets.
pub(crate) fn core_section(ctx: &Context, quick: bool) -> String {
    let rec = recording(ctx, if quick { 8 } else { 30 });
    println!("{}", rec.text);
    let mut tables = String::new();
    let mut targets = Vec::new();
    for bytes in large_sizes(ctx, quick, 64 << 20) {
        let (table, size_targets) = contiguous(ctx, bytes, if quick { 3 } else { 10 });
        let _ = writeln!(tables, "### {} per operand\n\n{table}", size_name(bytes));
        targets.extend(size_targets);
    }
    targets.push(prepared_record_target(&rec));
    targets.extend(super::recording::one_shot_targets(&rec));
    let graph = graph_section(ctx, quick);
    targets.extend(graph.targets);
    let mut target_table = String::from("| target | figure | verdict |\n|---|---|---|\n");
    for (name, figure, met) in &targets {
        let _ = writeln!(target_table, "| {name} | {figure} | {} |", verdict(*met));
    }
    println!("{target_table}");
    format!(
        "## Recording\n\n{}\n## Contiguous calls\n\nEvery type, in place, the logical form and every other function, in one suite per size with the bare XOR kernel and the copies; the NOT reads one input and writes one, so its bare kernel is the copy kernel, and the in-place call's is the bare XOR kernel in place (`a ^= b`: some adapters read and write one buffer slower than they read one and write another).\n\n{tables}\n## Graph\n\n{}\n## Targets\n\n{target_table}",
        rec.text, graph.text
    )
}

/// `Prepared::record` of one call in a pass of its own, 1,000 times, against one batch of
/// the same calls: at most 1.2 of it, or what wgpu alone costs for as many passes.
pub(crate) fn prepared_record_target(r: &RecordingReport) -> Target {
    (
        "1,000 prepared calls recorded <= 1.2 x one Batch: (a) `Prepared::record` each / (c); \
         wgpu alone recording 1,000 one-dispatch passes / (c) for scale"
            .to_string(),
        format!(
            "{:.2} ({:.2} µs per call); wgpu alone {:.2}, (a) / wgpu alone {:.2}",
            r.prepared / r.batch,
            r.prepared,
            r.wgpu_passes / r.batch,
            r.prepared / r.wgpu_passes
        ),
        r.prepared / r.batch <= 1.2,
    )
}

/// The contiguous table at `bytes` per operand: every DirectML type of BIT_XOR, in place, the
/// logical form and every other function, each against the bare XOR kernel of the same run
/// (in place, the bare kernel in place; NOT, the copy kernel).
/// Returns the table and the lowest ratio with the row that gave it.
pub(crate) fn contiguous(ctx: &Context, bytes: u64, rounds: usize) -> (String, Vec<Target>) {
    let mut suite = Suite::default();
    suite.baselines(ctx, bytes);
    for dt in DataType::DIRECTML {
        suite.case(ctx, Op::BitXor, Path::Contiguous, dt, bytes);
    }
    suite.case(ctx, Op::BitXor, Path::InPlace, DataType::U32, bytes);
    suite.case(ctx, Op::LogicalXor, Path::Contiguous, DataType::U8, bytes);
    suite.case(ctx, Op::LogicalXor, Path::Contiguous, DataType::U32, bytes);
    for f in [DmlBinaryOp::BitAnd, DmlBinaryOp::BitOr] {
        suite.case(ctx, Op::Dml(f), Path::Contiguous, DataType::U32, bytes);
    }
    suite.case(
        ctx,
        Op::DmlNot(DmlUnaryOp::BitNot),
        Path::Contiguous,
        DataType::U32,
        bytes,
    );
    suite.run(ctx, rounds);
    let rows = suite.rows();
    let text = table(&rows);
    println!("{text}");
    // A NOT reads one input and writes one: its bare kernel is the copy kernel, which moves
    // the same bytes the same way; the others against the bare XOR kernel (in place, the
    // bare kernel in place: `Suite::rows`).
    let lowest = rows
        .iter()
        .filter(|r| r.op != BARE_XOR.0 && r.op != "copy")
        .map(|r| {
            let ratio = if r.op.ends_with("not") {
                r.kernel
            } else {
                r.bare
            };
            (format!("{} {} {}", r.op, r.path, r.data_type), ratio)
        })
        .min_by(|x, y| x.1.total_cmp(&y.1));
    let mut targets = Vec::new();
    let size = size_name(bytes);
    if let Some((row, ratio)) = lowest {
        targets.push((
            format!(
                "contiguous {size} over the bare kernel (XOR; in place, the bare kernel in place; \
                 the copy kernel for NOT), every type and function >= 0.97"
            ),
            format!("lowest {ratio:.2} ({row})"),
            ratio >= 0.97,
        ));
    }
    // Every type of BIT_XOR against the copy ceiling of the same run, in GB/s (bytes read
    // plus written), as a GPU's roofline is stated.
    let lowest_of_copy = rows
        .iter()
        .filter(|r| r.op == "bit_xor" && r.path == "contiguous")
        .map(|r| (r.data_type.clone(), r.kernel))
        .min_by(|x, y| x.1.total_cmp(&y.1));
    if let Some((dt, ratio)) = lowest_of_copy {
        targets.push((
            format!("contiguous BIT_XOR {size}, every type, GB/s over the copy kernel's >= 0.97"),
            format!("lowest {ratio:.2} ({dt})"),
            ratio >= 0.97,
        ));
    }
    (text, targets)
}
