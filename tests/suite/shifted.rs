//! The shifted-rows kernel: rows dense in the output at any byte offset. Every test checks
//! every byte of every buffer against the reference, so a byte written outside the output's
//! elements (padding between rows, the bytes around the tensor) or a lane lost where two rows
//! share a word fails it.
//!
//! Rows of odd pitch start at every byte phase of a 16-byte block in turn; gaps of 0 to 4
//! elements between rows put the end of one row and the start of the next in one word (for
//! 8- and 16-bit elements), which only the later row may write.
//!
//! Every case runs under both fixed rules, for the kernel's two forms (`SPREAD`): a CPU
//! adapter's, each invocation a run of consecutive blocks, and a GPU's, each invocation's
//! blocks spread a row's invocations apart.

use gpu_xor::inspect::{KernelKind, RecordSummary};
use gpu_xor::{AutoBroadcast, Context, DataType, TensorDesc};

use crate::common::{
    Check, CheckOv, DmlCase, Operator, OvCase, assert_kernel, both_rules, ctx, few_groups,
    small_windows,
};
use gpu_xor_testkit::expect::channel_broadcast;

const TYPES: [DataType; 5] = [
    DataType::U8,
    DataType::I16,
    DataType::U32,
    DataType::F64,
    DataType::F16,
];

/// Elements in a row of at least 64 bytes and 67 bytes for `u8` (an odd row length).
fn row_len(dt: DataType) -> u32 {
    67u32
        .div_ceil(dt.size_in_bytes())
        .max(64 / dt.size_in_bytes())
}

/// Runs `case` on the device and windows of `on` under both fixed rules, asserting that each
/// ran `kernel`.
fn check_forms(case: &DmlCase, on: &Context, kernel: KernelKind) -> [RecordSummary; 2] {
    both_rules(on).map(|rule| {
        let r = case.check_on(&rule);
        assert_kernel(&r, kernel);
        r
    })
}

/// 17 padded rows: with an odd pitch, row starts run through every byte phase.
#[test]
fn padded_rows_of_every_gap_and_phase_write_only_their_elements() {
    for dt in TYPES {
        let c = row_len(dt);
        for gap in 1..=4u32 {
            let t = TensorDesc::new(dt, &[17, c]);
            let out = t.clone().with_strides(&[c + gap, 1]);
            for op in [Operator::BitXor, Operator::LogicalXor] {
                if op == Operator::LogicalXor && !matches!(dt, DataType::U8 | DataType::U32) {
                    continue;
                }
                let case = DmlCase::distinct(op, t.clone(), t.clone(), out.clone(), 7 + gap as u64);
                check_forms(&case, ctx(), KernelKind::ShiftedRows);
            }
        }
    }
}

/// A packed output whose rows are off 16-byte boundaries, with inputs that keep the rows
/// apart: padded, a repeated row, a repeated element per row (with a dense input, a channel
/// broadcast that the contiguous kernel takes).
#[test]
fn packed_outputs_with_unaligned_rows_read_inputs_at_any_offset() {
    for dt in TYPES {
        let c = row_len(dt);
        let t = TensorDesc::new(dt, &[9, c]);
        let inputs = [
            t.clone().with_strides(&[c + 3, 1]),
            t.clone().with_strides(&[0, 1]),
            t.clone().with_strides(&[1, 0]),
        ];
        for (i, a) in inputs.iter().enumerate() {
            for b in [t.clone(), inputs[(i + 1) % 3].clone()] {
                // A repeated element per row beside a dense row is a channel broadcast: the
                // contiguous kernel runs it, its rows off 16-byte boundaries or not.
                let kernel = if channel_broadcast(&t, [a, &b]) {
                    KernelKind::Contiguous
                } else {
                    KernelKind::ShiftedRows
                };
                let case =
                    DmlCase::distinct(Operator::BitXor, a.clone(), b, t.clone(), 30 + i as u64);
                check_forms(&case, ctx(), kernel);
            }
        }
    }
}

/// Rank 3, padded at both outer levels, and a slice of a wider tensor (rows 5 elements in).
#[test]
fn nested_padding_and_slices() {
    for dt in TYPES {
        let c = row_len(dt);
        let t = TensorDesc::new(dt, &[3, 5, c]);
        let pitch = c + 1;
        let out = t.clone().with_strides(&[5 * pitch + 2, pitch, 1]);
        let case = DmlCase::distinct(Operator::BitXor, t.clone(), t.clone(), out, 50);
        check_forms(&case, ctx(), KernelKind::ShiftedRows);

        // Columns 5 .. 5 + c of a [6, c + 9] tensor: the binding starts at the tensor, the
        // description's strides step over the other columns.
        let wide = c + 9;
        let slice = TensorDesc::new(dt, &[6, c]).with_strides(&[wide, 1]);
        let mut case = DmlCase::distinct(
            Operator::BitXor,
            TensorDesc::new(dt, &[6, c]),
            TensorDesc::new(dt, &[6, c]),
            slice,
            51,
        );
        // Move the output's binding 16 bytes on, so that row 0 is not the buffer's first.
        case.places[2].offset += 16;
        check_forms(&case, ctx(), KernelKind::ShiftedRows);
    }
}

/// In place on a padded output: A is the output, and the later row of a shared word reads the
/// earlier row's lanes through the output's binding.
#[test]
fn in_place_on_padded_rows() {
    for dt in TYPES {
        let c = row_len(dt);
        for gap in [1, 2] {
            let t = TensorDesc::new(dt, &[17, c]).with_strides(&[c + gap, 1]);
            let packed = TensorDesc::new(dt, &[17, c]);
            let mut case = DmlCase::distinct(Operator::BitXor, t.clone(), packed, t, 60);
            case.places[2] = case.places[0];
            for r in check_forms(&case, ctx(), KernelKind::ShiftedRows) {
                assert!(r.a_in_place, "{dt}");
            }
        }
    }
}

/// Cut into 4 KiB windows: every piece is checked, and seams fall inside rows.
#[test]
fn across_window_seams() {
    for dt in [DataType::U8, DataType::U16, DataType::U64] {
        let c = 301u32.div_ceil(dt.size_in_bytes());
        let t = TensorDesc::new(dt, &[40, c]);
        let out = t.clone().with_strides(&[c + 1, 1]);
        let case = DmlCase::distinct(Operator::BitXor, t.clone(), t, out, 70);
        assert!(case.out.total_size().unwrap() > small_windows().max_window_bytes());
        for rule in both_rules(small_windows()) {
            case.check_on(&rule);
        }
    }
}

/// A device whose grids are at most 3 workgroups a side: the flat grid of 400 rows goes
/// two-dimensional, and rows that share a word meet across grid rows and workgroups.
#[test]
fn two_dimensional_grids() {
    for dt in [DataType::U8, DataType::U16, DataType::U32] {
        let c = row_len(dt);
        let t = TensorDesc::new(dt, &[400, c]);
        for gap in [1, 2] {
            let out = t.clone().with_strides(&[c + gap, 1]);
            let case =
                DmlCase::distinct(Operator::BitXor, t.clone(), t.clone(), out, 80 + gap as u64);
            check_forms(&case, few_groups(), KernelKind::ShiftedRows);
        }
    }
}

/// One run off a 16-byte boundary, and one element XORed into a run off one, through
/// BitwiseXor-13 (its bindings may start at any multiple of the element size, 4 bytes at
/// least); on 16-byte boundaries the scalar broadcast is the contiguous kernel's.
#[test]
fn single_runs_off_a_boundary_and_scalar_broadcasts() {
    for dt in [DataType::U8, DataType::I16, DataType::I32, DataType::U64] {
        let w = dt.size_in_bytes() as usize;
        let n = 1000 / w;
        let unit = w.max(4) as u64;
        for (b_shape, offsets, kernel) in [
            (vec![n], [unit, 2 * unit, 3 * unit], KernelKind::ShiftedRows),
            (vec![], [3 * unit, unit, 2 * unit], KernelKind::ShiftedRows),
            (vec![1], [0, 0, 0], KernelKind::Contiguous),
            (vec![], [0, unit, 16], KernelKind::Contiguous),
        ] {
            let mut case = OvCase::new(dt, &[n], &b_shape, AutoBroadcast::Numpy, 90);
            case.offsets = offsets;
            for rule in both_rules(ctx()) {
                let (shape, r) = case.check_on(&rule);
                assert_eq!(shape, [n]);
                assert_kernel(&r, kernel);
            }
        }
    }
}
