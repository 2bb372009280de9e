//! DirectML BIT_XOR on the GPU against the reference: every type, special values, awkward
//! sizes, ranks, strides and offsets.

use gpu_xor::inspect::KernelKind;
use gpu_xor::{BitXorDesc, DataType, DmlBinary, KernelTuning, Tensor, TensorDesc};
use half::f16;

use crate::common::{
    Check, DmlCase, Operator, assert_kernel, ctx, place, random_bytes, scatter_kind, small_windows,
    tile_kernel, tuned,
};
use crate::per_type;

#[test]
fn bit_xor_dml_doc_example_holds_with_b_all_255() {
    let ctx = ctx();
    let a = Tensor::from_slice(ctx, &[2, 2], &[0u8, 128, 42, 255]).unwrap();
    let b = Tensor::from_slice(ctx, &[2, 2], &[255u8; 4]).unwrap();
    let out = ctx.bit_xor(&a, &b).unwrap();
    assert_eq!(out.to_vec::<u8>().unwrap(), [255, 127, 213, 0]);
    assert_eq!(out.shape(), &[2, 2]);
}

/// Special bit patterns of each type, as raw little-endian bits.
fn specials(dt: DataType) -> Vec<u64> {
    match dt {
        DataType::F64 => [
            0.0f64.to_bits(),
            (-0.0f64).to_bits(),
            f64::INFINITY.to_bits(),
            f64::NEG_INFINITY.to_bits(),
            0x7ff8_0000_0000_0001, // quiet NaN with payload
            0x7ff0_0000_0000_0001, // signalling NaN
            0xfff4_dead_beef_0042, // negative signalling NaN with payload
            1,                     // smallest subnormal
            0x000f_ffff_ffff_ffff, // largest subnormal
            f64::MAX.to_bits(),
            1.0f64.to_bits(),
        ]
        .to_vec(),
        DataType::F32 => [
            0.0f32.to_bits(),
            (-0.0f32).to_bits(),
            f32::INFINITY.to_bits(),
            f32::NEG_INFINITY.to_bits(),
            0x7fc0_0001,
            0x7f80_0001,
            0xffa0_beef,
            1,
            0x007f_ffff,
            f32::MAX.to_bits(),
            1.0f32.to_bits(),
        ]
        .iter()
        .map(|&b| u64::from(b))
        .collect(),
        DataType::F16 => [
            0x0000u16,
            f16::NEG_ZERO.to_bits(),
            f16::INFINITY.to_bits(),
            f16::NEG_INFINITY.to_bits(),
            0x7e01,
            0x7c01,
            0xfd55,
            0x0001,
            0x03ff,
            f16::MAX.to_bits(),
            f16::ONE.to_bits(),
        ]
        .iter()
        .map(|&b| u64::from(b))
        .collect(),
        _ => {
            let w = dt.size_in_bytes() * 8;
            let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
            let min = 1u64 << (w - 1);
            [
                0,
                1,
                mask,
                min,
                min - 1,
                0x5555_5555_5555_5555,
                0xaaaa_aaaa_aaaa_aaaa,
                0x0f0f_0f0f_0f0f_0f0f,
                2,
                mask - 1,
            ]
            .iter()
            .map(|v| v & mask)
            .collect()
        }
    }
}

fn to_bytes(values: &[u64], width: usize) -> Vec<u8> {
    values
        .iter()
        .flat_map(|v| v.to_le_bytes()[..width].to_vec())
        .collect()
}

/// Every pair of special values, XORed on the GPU, equals the XOR of the bits on the host:
/// NaN payloads, signalling NaNs, -0.0, infinities, subnormals and extreme integers pass
/// through bit for bit.
fn specials_pass_through(dt: DataType) {
    let s = specials(dt);
    let n = s.len();
    let a: Vec<u64> = (0..n * n).map(|i| s[i / n]).collect();
    let b: Vec<u64> = (0..n * n).map(|i| s[i % n]).collect();
    let width = dt.size_in_bytes() as usize;
    let ctx = ctx();
    let ta = Tensor::from_bytes(ctx, dt, &[n, n], &to_bytes(&a, width)).unwrap();
    let tb = Tensor::from_bytes(ctx, dt, &[n, n], &to_bytes(&b, width)).unwrap();
    let got = ctx.bit_xor(&ta, &tb).unwrap().to_bytes().unwrap();
    let want: Vec<u64> = a.iter().zip(&b).map(|(x, y)| x ^ y).collect();
    for (i, (g, w)) in got
        .chunks(width)
        .zip(to_bytes(&want, width).chunks(width))
        .enumerate()
    {
        assert_eq!(g, w, "{dt}: element {i}: {:#x} ^ {:#x}", a[i], b[i]);
    }
    // And through the sentinel-checked path, with the same values in a padded layout.
    let mut case = DmlCase::packed(Operator::BitXor, dt, &[n as u32, n as u32], 7);
    case.buffers[0][32..32 + n * n * width].copy_from_slice(&to_bytes(&a, width));
    case.buffers[1][32..32 + n * n * width].copy_from_slice(&to_bytes(&b, width));
    case.check();
}

per_type!(
    bit_xor_specials_pass_through_bit_exact,
    |dt| specials_pass_through(dt),
    [F64, F32, F16, I64, I32, I16, I8, U64, U32, U16, U8]
);

/// Word tails: counts that leave 1, 2 or 3 bytes of the last word, and 4095 / 4097.
fn awkward_counts(dt: DataType) {
    for n in (1..=9).chain([4095, 4097]) {
        let r = DmlCase::packed(Operator::BitXor, dt, &[n], u64::from(n)).check();
        assert_kernel(&r, KernelKind::Contiguous);
    }
}

per_type!(
    bit_xor_awkward_counts_match_reference,
    |dt| awkward_counts(dt),
    [U8, U16, U32, U64]
);

fn all_ranks(dt: DataType) {
    for rank in 1..=8usize {
        let sizes: Vec<u32> = (0..rank).map(|d| [3, 2, 5, 1, 2, 3, 2, 2][d]).collect();
        DmlCase::packed(Operator::BitXor, dt, &sizes, rank as u64).check();
        // The same rank with padded strides on every tensor (no coalescing possible).
        let mut strides = vec![0u32; rank];
        let mut acc = 1u32;
        for d in (0..rank).rev() {
            strides[d] = acc;
            acc = acc * sizes[d] + 1;
        }
        let t = TensorDesc::new(dt, &sizes).with_strides(&strides);
        DmlCase::distinct(Operator::BitXor, t.clone(), t.clone(), t, 100 + rank as u64).check();
    }
}

per_type!(
    bit_xor_ranks_1_to_8_match_reference,
    |dt| all_ranks(dt),
    [U8, U16, F32, I64]
);

fn strided(dt: DataType, a: TensorDesc, b: TensorDesc, out: TensorDesc, kernel: KernelKind) {
    let r = DmlCase::distinct(Operator::BitXor, a, b, out, 42).check();
    assert!(r.dispatches.iter().all(|&k| k == kernel), "{dt}: {r:?}");
}

fn zero_strides(dt: DataType) {
    let t = TensorDesc::new(dt, &[5, 7]);
    // Scalar broadcast (one run of 35 elements: the contiguous kernel, the element splat over
    // the run), row broadcast, column broadcast (rows of 7 elements: the contiguous kernel
    // from 16 bytes a row, the element splat per row, else gathered).
    let column = if 7 * dt.size_in_bytes() >= 16 {
        KernelKind::Contiguous
    } else {
        KernelKind::Gather
    };
    for (s, kernel) in [
        ([0, 0], KernelKind::Contiguous),
        ([0, 1], KernelKind::Gather),
        ([1, 0], column),
    ] {
        strided(dt, t.clone(), t.clone().with_strides(&s), t.clone(), kernel);
    }
}

per_type!(
    bit_xor_zero_strides_broadcast_inputs,
    |dt| zero_strides(dt),
    [U8, U16, U32, F64]
);

fn padded_and_transposed_inputs(dt: DataType) {
    let t = TensorDesc::new(dt, &[6, 5]);
    strided(
        dt,
        t.clone().with_strides(&[9, 1]),
        t.clone(),
        t.clone(),
        KernelKind::Gather,
    );
    let transposed = t.clone().with_strides(&[1, 6]);
    strided(
        dt,
        t.clone(),
        transposed.clone(),
        t.clone(),
        tile_kernel(&t, [&t, &transposed], ctx().kernel_tuning()),
    );
    // Overlapping input (sliding window): row r starts at element r.
    strided(
        dt,
        t.clone().with_strides(&[1, 1]),
        t.clone().with_strides(&[2, 1]),
        t.clone(),
        KernelKind::Gather,
    );
}

per_type!(
    bit_xor_padded_transposed_and_overlapping_inputs,
    |dt| padded_and_transposed_inputs(dt),
    [U8, U16, U32, I64, F16]
);

fn strided_outputs(dt: DataType) {
    let t = TensorDesc::new(dt, &[4, 5]);
    // Padded output rows too short for the shifted-rows kernel, and every other element: the
    // scatter kernel, words that elements share written by one owner.
    for strides in [[7, 1], [10, 2]] {
        let out = t.clone().with_strides(&strides);
        strided(dt, t.clone(), t.clone(), out.clone(), scatter_kind(&out));
    }
    // A transposed output is reordered to be dense ([5, 4]), which transposes the inputs: the
    // tile kernel, or the scatter kernel in the inputs' order where the context is tuned for
    // a CPU adapter. Both tunings, on every adapter.
    let out = t.clone().with_strides(&[1, 4]);
    for tuning in [KernelTuning::Gpu, KernelTuning::Cpu] {
        let r = DmlCase::distinct(Operator::BitXor, t.clone(), t.clone(), out.clone(), 43)
            .check_on(tuned(tuning));
        assert_kernel(&r, tile_kernel(&out, [&t, &t], tuning));
    }
}

/// One channel of interleaved 4-channel data: each u8 element alone in its word, written
/// through a mask with no atomics; the other channels keep their bytes.
#[test]
fn one_channel_of_interleaved_data() {
    for op in [Operator::BitXor, Operator::LogicalXor] {
        let t = TensorDesc::new(DataType::U8, &[16, 10]);
        let out = t.clone().with_strides(&[40, 4]);
        let r = DmlCase::distinct(op, t.clone(), t.clone().with_strides(&[0, 1]), out, 12).check();
        assert_kernel(&r, KernelKind::Spaced);
    }
}

per_type!(
    bit_xor_strided_outputs_touch_only_their_elements,
    |dt| strided_outputs(dt),
    [U8, U16, U32, U64]
);

#[test]
fn bit_xor_u16_rank8_strided_matches_reference() {
    let sizes = [2u32, 1, 3, 2, 1, 2, 3, 2];
    let strides = [300u32, 7, 90, 40, 3, 17, 5, 2];
    let t = TensorDesc::new(DataType::U16, &sizes);
    DmlCase::distinct(
        Operator::BitXor,
        t.clone().with_strides(&strides),
        t.clone(),
        t.clone().with_strides(&strides),
        9,
    )
    .check();
}

#[test]
fn bit_xor_binding_offsets_inside_larger_buffers() {
    for (dt, n) in [
        (DataType::U8, 37u32),
        (DataType::U16, 19),
        (DataType::F64, 5),
    ] {
        for offsets in [[16u64, 48, 4096 + 16], [4096, 0, 272], [0, 16, 32]] {
            let mut case = DmlCase::packed(Operator::BitXor, dt, &[n], n.into());
            let len = (8192 + 64) as usize;
            case.buffers = (0..3)
                .map(|i| random_bytes(i * 31 + u64::from(n), len))
                .collect();
            case.places = [
                place(0, offsets[0]),
                place(1, offsets[1]),
                place(2, offsets[2]),
            ];
            case.check();
        }
    }
}

#[test]
fn bit_xor_with_guaranteed_alignment_and_larger_total_size() {
    let t = TensorDesc::new(DataType::U32, &[3, 3])
        .with_alignment(64)
        .with_total_size(100);
    let mut case = DmlCase::distinct(Operator::BitXor, t.clone(), t.clone(), t, 5);
    for b in &mut case.buffers {
        b.resize(256, 0x5a);
    }
    case.places = [place(0, 64), place(1, 128), place(2, 64)];
    case.check();
}

#[test]
fn bit_xor_crosses_window_seams_on_every_path() {
    let w = small_windows();
    // Contiguous: 10 KiB of u8 in 4 KiB windows.
    DmlCase::packed(Operator::BitXor, DataType::U8, &[10_001], 1).check_on(w);
    // Gather with a broadcast row and a transposed input.
    let t = TensorDesc::new(DataType::U16, &[40, 50]);
    DmlCase::distinct(
        Operator::BitXor,
        t.clone(),
        t.clone().with_strides(&[0, 1]),
        t.clone(),
        2,
    )
    .check_on(w);
    DmlCase::distinct(
        Operator::BitXor,
        t.clone().with_strides(&[1, 40]),
        t.clone(),
        t.clone(),
        3,
    )
    .check_on(w);
    // Scatter: padded output rows, 6 KiB of output.
    let t = TensorDesc::new(DataType::U16, &[60, 50]);
    let r = DmlCase::distinct(
        Operator::BitXor,
        t.clone(),
        t.clone(),
        t.clone().with_strides(&[51, 1]),
        4,
    )
    .check_on(w);
    assert!(r.dispatches.len() > 1, "{r:?}");
    // 64-bit elements.
    DmlCase::packed(Operator::BitXor, DataType::I64, &[3001], 5).check_on(w);
}

#[test]
fn bit_xor_compiled_once_records_many_times() {
    let ctx = ctx();
    let op = DmlBinary::new(ctx, &BitXorDesc::packed(DataType::U32, &[64])).unwrap();
    let bufs: Vec<Tensor> = (0..4)
        .map(|i| Tensor::from_bytes(ctx, DataType::U32, &[64], &random_bytes(i, 256)).unwrap())
        .collect();
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    // out0 = a ^ b, then out1 = out0 ^ b (== a), in one encoder.
    op.record(
        &mut encoder,
        &gpu_xor::Bindings::new(bufs[0].binding(), bufs[1].binding(), bufs[2].binding()),
    )
    .unwrap();
    op.record(
        &mut encoder,
        &gpu_xor::Bindings::new(bufs[2].binding(), bufs[1].binding(), bufs[3].binding()),
    )
    .unwrap();
    ctx.queue().submit([encoder.finish()]);
    assert_eq!(
        bufs[3].to_vec::<u32>().unwrap(),
        bufs[0].to_vec::<u32>().unwrap()
    );
}

#[test]
fn bit_xor_row_broadcasts_run_the_rows_kernel_and_column_broadcasts_the_contiguous_kernel() {
    for (dt, rows, cols) in [
        (DataType::U8, 37u32, 320u32),
        (DataType::U16, 9, 200),
        (DataType::U32, 5, 100),
        (DataType::I64, 3, 50),
    ] {
        let t = TensorDesc::new(dt, &[rows, cols]);
        // [rows, cols] ^ [cols] (rows kernel) and [rows, 1] ^ [rows, cols] (A repeats one
        // element across each row of a packed output: the contiguous kernel, A splat).
        for (a, b, kernel) in [
            (t.clone(), t.clone().with_strides(&[0, 1]), KernelKind::Rows),
            (
                t.clone().with_strides(&[1, 0]),
                t.clone(),
                KernelKind::Contiguous,
            ),
        ] {
            assert_eq!(gpu_xor_testkit::expect::rows_kernel(&t, [&a, &b]), kernel);
            let r = DmlCase::distinct(Operator::BitXor, a, b, t.clone(), 21).check();
            assert_kernel(&r, kernel);
        }
    }
}

/// The rows kernel's repeated-element mode still runs where the shifted-rows kernel cannot:
/// output rows that interleave in memory. Rows (i, j) of `c` elements start at element
/// `j * 2c + i * 3c`: 0, 2c, 4c, then 3c, 5c, 7c, so no two overlap, but the second row of
/// the outer dimension starts before the first one's rows end.
#[test]
fn bit_xor_rows_kernel_repeats_an_element_where_output_rows_interleave() {
    for dt in [DataType::U8, DataType::U16, DataType::U32, DataType::I64] {
        let c = 128 / dt.size_in_bytes();
        let out = TensorDesc::new(dt, &[2, 3, c]).with_strides(&[3 * c, 2 * c, 1]);
        let a = TensorDesc::new(dt, &[2, 3, c]);
        for b in [
            TensorDesc::new(dt, &[2, 3, c]).with_strides(&[3, 1, 0]),
            TensorDesc::new(dt, &[2, 3, c]).with_strides(&[0, 1, 0]),
        ] {
            let r = DmlCase::distinct(Operator::BitXor, a.clone(), b, out.clone(), 23).check();
            assert_kernel(&r, KernelKind::Rows);
        }
    }
}

/// Rows of rank 3 and 4, whose offsets the rows kernel unravels with the rank compiled in:
/// A read with its two middle axes swapped (axes (0, 2, 1, 3), heads and tokens; at rank 3,
/// (1, 0, 2)), rows of 128 bytes at every width, B packed or repeated along the outermost
/// axis.
#[test]
fn bit_xor_rows_kernel_runs_rows_of_rank_three_and_four() {
    for dt in [DataType::U8, DataType::U16, DataType::U32, DataType::I64] {
        let c = 128 / dt.size_in_bytes();
        let cases = [
            (
                vec![3u32, 5, 4, c],
                vec![20 * c, c, 5 * c, 1],
                vec![0, 4 * c, c, 1],
            ),
            (vec![5, 4, c], vec![c, 5 * c, 1], vec![0, c, 1]),
        ];
        for (sizes, swapped, repeated) in cases {
            let out = TensorDesc::new(dt, &sizes);
            let a = out.clone().with_strides(&swapped);
            for b in [out.clone(), out.clone().with_strides(&repeated)] {
                let r = DmlCase::distinct(Operator::BitXor, a.clone(), b, out.clone(), 24).check();
                assert_kernel(&r, KernelKind::Rows);
            }
        }
    }
}

#[test]
fn bit_xor_rows_kernel_writes_padded_rows_and_leaves_the_padding() {
    for (dt, cols, stride) in [
        (DataType::U8, 300u32, 304u32),
        (DataType::U16, 130, 136),
        (DataType::F32, 67, 68),
    ] {
        let t = TensorDesc::new(dt, &[11, cols]);
        let padded = t.clone().with_strides(&[stride, 1]);
        let b = t.clone().with_strides(&[0, 1]);
        let r = DmlCase::distinct(Operator::BitXor, padded.clone(), b, padded, 22).check();
        assert_kernel(&r, KernelKind::Rows);
    }
}

#[test]
fn bit_xor_tile_kernel_on_odd_transposes() {
    for dt in [DataType::U32, DataType::F32, DataType::U64, DataType::F64] {
        for (rows, cols) in [(33u32, 17u32), (16, 16), (1, 40), (70, 3)] {
            let t = TensorDesc::new(dt, &[rows, cols]);
            let transposed = t.clone().with_strides(&[1, rows]);
            DmlCase::distinct(
                Operator::BitXor,
                transposed.clone(),
                t.clone(),
                t.clone(),
                23,
            )
            .check();
            DmlCase::distinct(
                Operator::BitXor,
                transposed.clone(),
                transposed.clone(),
                t.clone(),
                24,
            )
            .check();
        }
    }
    // Across window seams a transposed operand spans every window, so the call is cut into
    // blocks of the matrix; the values are the same.
    let t = TensorDesc::new(DataType::U32, &[40, 60]);
    let transposed = t.clone().with_strides(&[1, 40]);
    let r =
        DmlCase::distinct(Operator::BitXor, t.clone(), transposed, t, 25).check_on(small_windows());
    assert!(r.dispatches.len() > 1, "{r:?}");
}

/// Strided 8- and 16-bit outputs whose elements share words, through both element functions:
/// every word has one writer (the scatter kernel's owner gathers the word's lanes), the bytes
/// between elements keep their values, and an output whose rows interleave is cut into
/// nested parts, each a dispatch of its own. Also through windows of a few hundred bytes.
#[test]
fn bit_xor_shared_output_words_have_one_writer() {
    let layouts: [(&[u32], &[u32], bool); 8] = [
        // Every other element, every third, short padded rows, rows that touch: one
        // invocation per word of the output.
        (&[1001], &[2], true),
        (&[999], &[3], true),
        (&[300, 3], &[5, 1], true),
        (&[64, 2, 3], &[13, 6, 2], true),
        // Short rows far apart, and pairs far apart: more words than elements, one
        // invocation per element.
        (&[50, 3], &[40, 1], true),
        (&[20, 7, 2], &[200, 20, 1], true),
        // Interleaved rows: row 1 starts inside row 0 (offsets 3i + 2j).
        (&[7, 3], &[3, 2], false),
        (&[5, 3, 2], &[8, 2, 3], false),
    ];
    let mut seed = 700;
    for dt in [DataType::U8, DataType::U16] {
        for (sizes, strides, nested) in layouts {
            let t = TensorDesc::new(dt, sizes);
            let out = t.clone().with_strides(strides);
            // LOGICAL_XOR takes 8-bit tensors only.
            let ops: &[Operator] = if dt == DataType::U8 {
                &[Operator::BitXor, Operator::LogicalXor]
            } else {
                &[Operator::BitXor]
            };
            for &op in ops {
                seed += 1;
                let case = DmlCase::distinct(op, t.clone(), t.clone(), out.clone(), seed);
                let r = case.check();
                assert!(
                    r.dispatches
                        .iter()
                        .all(|k| matches!(k, KernelKind::Scatter | KernelKind::Spaced)),
                    "{sizes:?} {strides:?} {dt}: {r:?}"
                );
                if nested {
                    assert_kernel(&r, scatter_kind(&out));
                } else {
                    assert!(r.dispatches.len() > 1, "{sizes:?} {strides:?}: {r:?}");
                }
                case.check_on(small_windows());
            }
        }
    }
}
