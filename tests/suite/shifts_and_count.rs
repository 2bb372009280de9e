//! The shifts and the count of ones on every kernel: `BIT_COUNT`, whose output has a width of
//! its own, on every layout for every pair of input and output widths, and the
//! shifts on every kernel where their lanes or 64-bit halves meet amounts at the edges of the
//! width. Every byte of every buffer is compared with the reference.

use std::collections::BTreeSet;

use gpu_xor::inspect::KernelKind;
use gpu_xor::{DataType, DmlBinaryOp, KernelTuning, TensorDesc};

use crate::common::{Check, DmlCase, Operator, ctx, place, small_windows, tuned};

/// The layouts of one operator's call over sizes `[rows, cols]`: each (input, output) pair
/// of descriptions, with a name.
fn layouts(
    input: DataType,
    output: DataType,
    [r, c]: [u32; 2],
) -> Vec<(&'static str, TensorDesc, TensorDesc)> {
    let t = |dt: DataType| TensorDesc::new(dt, &[r, c]);
    vec![
        ("packed", t(input), t(output)),
        (
            "padded input",
            t(input).with_strides(&[c + 3, 1]),
            t(output),
        ),
        (
            "transposed input",
            t(input).with_strides(&[1, r]),
            t(output),
        ),
        (
            "row broadcast input",
            t(input).with_strides(&[0, 1]),
            t(output),
        ),
        (
            "column broadcast input",
            t(input).with_strides(&[1, 0]),
            t(output),
        ),
        ("scalar input", t(input).with_strides(&[0, 0]), t(output)),
        (
            "padded output",
            t(input),
            t(output).with_strides(&[c + 5, 1]),
        ),
        (
            "transposed output",
            t(input),
            t(output).with_strides(&[1, r]),
        ),
        (
            "spread output",
            t(input),
            t(output).with_strides(&[4 * c, 4]),
        ),
        (
            "both transposed",
            t(input).with_strides(&[1, r]),
            t(output).with_strides(&[1, r]),
        ),
    ]
}

/// Every (input, output) pair of types `BIT_COUNT` takes at the default level, its narrowing
/// and widening extremes first.
fn count_pairs() -> Vec<(DataType, DataType)> {
    let mut pairs = vec![(DataType::U64, DataType::U8), (DataType::U8, DataType::U32)];
    for input in DataType::DIRECTML {
        for output in [DataType::U8, DataType::U32] {
            if !pairs.contains(&(input, output)) {
                pairs.push((input, output));
            }
        }
    }
    pairs
}

/// `BIT_COUNT` of every input type into both output types, on every layout, packed and at
/// odd sizes, its tensors in buffers of their own and in one buffer, on the default windows
/// and on small ones, with both tunings: the output of another width runs element by element
/// (gather, scatter, spaced), one of the same width on every kernel of the family.
#[test]
fn bit_count_runs_every_layout_for_every_pair_of_widths() {
    let op = Operator::BitCount;
    let mut reached = BTreeSet::new();
    let mut reached_uniform = BTreeSet::new();
    for (k, (input, output)) in count_pairs().into_iter().enumerate() {
        for sizes in [[7, 13], [64, 96]] {
            for (l, (name, a, out)) in layouts(input, output, sizes).into_iter().enumerate() {
                let seed = (k * 100 + l) as u64 + u64::from(sizes[0]);
                let case = DmlCase::distinct(op, a.clone(), a.clone(), out.clone(), seed);
                for ctx in [ctx(), small_windows(), tuned(KernelTuning::Gpu)] {
                    let summary = case.check_on(ctx);
                    for kernel in summary.dispatches {
                        if input.size_in_bytes() == output.size_in_bytes() {
                            reached_uniform.insert(kernel);
                        } else {
                            assert!(
                                matches!(
                                    kernel,
                                    KernelKind::Contiguous
                                        | KernelKind::Gather
                                        | KernelKind::Scatter
                                        | KernelKind::Spaced
                                ),
                                "{input} -> {output} {name}: {kernel:?}"
                            );
                            reached.insert(kernel);
                        }
                    }
                }
                // Input and output in one buffer, the output after the input.
                let span = |t: &TensorDesc| t.total_size().unwrap().next_multiple_of(16);
                let len = (32 + span(&a) + 48 + span(&out) + 64) as usize;
                let shared = case
                    .clone()
                    .placed(len, [(0, 32), (0, 32), (0, 80 + span(&a))], seed);
                shared.check_on(ctx());
            }
        }
    }
    let every = [
        KernelKind::Contiguous,
        KernelKind::Gather,
        KernelKind::Scatter,
        KernelKind::Spaced,
    ];
    assert_eq!(reached, BTreeSet::from(every), "widths that differ");
    for kernel in [
        KernelKind::Contiguous,
        KernelKind::Rows,
        KernelKind::Tile,
        KernelKind::Gather,
        KernelKind::Scatter,
    ] {
        assert!(
            reached_uniform.contains(&kernel),
            "u8 -> u8 and u32 -> u32 never ran {kernel:?}: {reached_uniform:?}"
        );
    }
}

/// `BIT_COUNT` never runs in place, whatever the types: the call is refused and writes
/// nothing, on its input's exact range and on a range that starts there.
#[test]
fn bit_count_refuses_in_place_and_writes_nothing() {
    let op = Operator::BitCount;
    for (input, output) in [
        (DataType::U32, DataType::U32),
        (DataType::U32, DataType::U8),
    ] {
        let a = TensorDesc::new(input, &[4, 8]);
        let out = TensorDesc::new(output, &[4, 8]);
        let mut case = DmlCase::distinct(op, a.clone(), a, out, 91);
        case.places[2] = place(0, 32);
        let e = case.check_error("in_place_not_supported");
        assert_eq!(
            e.rule(),
            "in_place_not_supported",
            "{input} -> {output}: {e}"
        );
    }
}

/// The shifts on every kernel and width: both DirectML shifts on each unsigned type over
/// the same layouts, amounts mostly in range and at the edges of the width (the kernels must
/// compare each amount with its lane's width, and carry bits across a 64-bit element's two
/// words); every kernel of the family is reached.
#[test]
fn shifts_run_every_kernel_on_every_width() {
    let mut reached = BTreeSet::new();
    for (k, dt) in [DataType::U8, DataType::U16, DataType::U32, DataType::U64]
        .into_iter()
        .enumerate()
    {
        for op in [DmlBinaryOp::BitShiftLeft, DmlBinaryOp::BitShiftRight] {
            for sizes in [[7, 13], [64, 96]] {
                for (l, (name, a, out)) in layouts(dt, dt, sizes).into_iter().enumerate() {
                    let seed = (k * 100 + l) as u64 + u64::from(sizes[0]);
                    let b = TensorDesc::new(dt, &sizes);
                    // B dense, mostly amounts from 0 to bits + 1 (`DmlCase::distinct` fills
                    // a shift's B so).
                    let case = DmlCase::distinct(op.operator(), a.clone(), b, out, seed);
                    for ctx in [ctx(), small_windows(), tuned(KernelTuning::Gpu)] {
                        let summary = case.check_on(ctx);
                        assert!(!summary.dispatches.is_empty(), "{op:?} {dt} {name}");
                        reached.extend(summary.dispatches);
                    }
                }
            }
        }
    }
    for kernel in KernelKind::DISPATCHING {
        assert!(
            reached.contains(&kernel),
            "no shift ran {kernel:?}: {reached:?}"
        );
    }
}
