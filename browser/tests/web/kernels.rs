//! Each kernel family, chosen by the layout and asserted from the record summary: contiguous,
//! rows, shifted rows, gather, tile, scatter (shared words or spaced), and the empty call that
//! dispatches nothing.

use gpu_xor::inspect::KernelKind;
use gpu_xor::{AutoBroadcast, DataType, KernelTuning, TensorDesc};
use gpu_xor_browser::{
    Check, CheckOv, DmlCase, Operator, OvCase, assert_kernel, ctx, scatter_kind, tile_kernel, tuned,
};
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
async fn contiguous() {
    let ctx = ctx().await;
    for (op, dt) in [
        (Operator::BitXor, DataType::U8),
        (Operator::BitXor, DataType::F16),
        (Operator::BitXor, DataType::I32),
        (Operator::BitXor, DataType::U64),
        (Operator::LogicalXor, DataType::U8),
        (Operator::LogicalXor, DataType::U32),
    ] {
        // Strides that coalesce to one dense run are contiguous too.
        let t = TensorDesc::new(dt, &[3, 1, 50]).with_strides(&[50, 7, 1]);
        for case in [
            DmlCase::packed(op, dt, &[1023], 1),
            DmlCase::distinct(op, t.clone(), t.clone(), t, 2),
        ] {
            let r = case.sparse(2).check_on(&ctx).await;
            assert_kernel(&r, KernelKind::Contiguous);
        }
    }
}

#[wasm_bindgen_test]
async fn rows() {
    let ctx = ctx().await;
    // [rows, cols] ^ [cols] (the rows kernel) and [rows, 1] ^ [rows, cols] (A repeats one
    // element across each row: the shifted-rows kernel).
    for (dt, rows, cols) in [
        (DataType::U8, 37u32, 320u32),
        (DataType::U16, 9, 200),
        (DataType::U32, 5, 100),
        (DataType::I64, 3, 50),
    ] {
        let t = TensorDesc::new(dt, &[rows, cols]);
        for (a, b) in [
            (t.clone(), t.clone().with_strides(&[0, 1])),
            (t.clone().with_strides(&[1, 0]), t.clone()),
        ] {
            let kernel = gpu_xor_testkit::expect::rows_kernel(&t, [&a, &b]);
            let r = DmlCase::distinct(Operator::BitXor, a, b, t.clone(), 21)
                .check_on(&ctx)
                .await;
            assert_kernel(&r, kernel);
        }
    }
    // The rows kernel's repeated element, where output rows interleave in memory (rows
    // (i, j) of c elements at j * 2c + i * 3c) and the shifted-rows kernel cannot run.
    for dt in [DataType::U8, DataType::U16, DataType::U32, DataType::I64] {
        let c = 128 / dt.size_in_bytes();
        let out = TensorDesc::new(dt, &[2, 3, c]).with_strides(&[3 * c, 2 * c, 1]);
        let a = TensorDesc::new(dt, &[2, 3, c]);
        let b = TensorDesc::new(dt, &[2, 3, c]).with_strides(&[3, 1, 0]);
        let r = DmlCase::distinct(Operator::BitXor, a, b, out, 24)
            .check_on(&ctx)
            .await;
        assert_kernel(&r, KernelKind::Rows);
    }
    // Padded rows in and out, the padding left as it was.
    for (dt, cols, pitch) in [
        (DataType::U8, 300u32, 304u32),
        (DataType::U16, 130, 136),
        (DataType::F32, 67, 68),
    ] {
        let padded = TensorDesc::new(dt, &[11, cols]).with_strides(&[pitch, 1]);
        let b = TensorDesc::new(dt, &[11, cols]).with_strides(&[0, 1]);
        let r = DmlCase::distinct(Operator::BitXor, padded.clone(), b, padded, 22)
            .check_on(&ctx)
            .await;
        assert_kernel(&r, KernelKind::Rows);
    }
    // OpenVINO row broadcast.
    let (_, r) = OvCase::new(DataType::U8, &[37, 320], &[320], AutoBroadcast::Numpy, 23)
        .check_on(&ctx)
        .await;
    assert_kernel(&r, KernelKind::Rows);
}

#[wasm_bindgen_test]
async fn gather() {
    let ctx = ctx().await;
    for dt in [DataType::U8, DataType::I16, DataType::F32, DataType::I64] {
        let t = TensorDesc::new(dt, &[6, 5]);
        for a in [
            t.clone().with_strides(&[9, 1]),
            t.clone().with_strides(&[1, 1]),
            t.clone().with_strides(&[6, 2]),
        ] {
            let r = DmlCase::distinct(Operator::BitXor, a, t.clone(), t.clone(), 31)
                .check_on(&ctx)
                .await;
            assert_kernel(&r, KernelKind::Gather);
        }
    }
    // Narrow transposed inputs whose output rows do not hold whole words are gathered lane by
    // lane.
    for (op, dt) in [
        (Operator::LogicalXor, DataType::U8),
        (Operator::BitXor, DataType::U16),
    ] {
        let t = TensorDesc::new(dt, &[33, 41]);
        let r = DmlCase::distinct(op, t.clone().with_strides(&[1, 33]), t.clone(), t, 32)
            .sparse(3)
            .check_on(&ctx)
            .await;
        assert_kernel(&r, KernelKind::Gather);
    }
}

#[wasm_bindgen_test]
async fn tile() {
    // The tile kernel as chosen for GPUs; tuned for CPUs, 32- and 64-bit elements gather;
    // ones of whole 16-byte blocks ([40, 40], [64, 96]) run the block tile on both.
    let ctx = tuned(KernelTuning::Gpu).await;
    let cpu = tuned(KernelTuning::Cpu).await;
    let mut reached = Vec::new();
    for dt in [DataType::U32, DataType::F32, DataType::I64, DataType::F64] {
        for [rows, cols] in [[40u32, 40], [40, 33], [7, 9], [64, 17], [64, 96]] {
            let t = TensorDesc::new(dt, &[rows, cols]);
            let a = t.clone().with_strides(&[1, rows]);
            let case = DmlCase::distinct(Operator::BitXor, a.clone(), t.clone(), t.clone(), 41);
            for (ctx, tuning) in [(&ctx, KernelTuning::Gpu), (&cpu, KernelTuning::Cpu)] {
                let kernel = tile_kernel(&t, [&a, &t], tuning);
                assert_kernel(&case.check_on(ctx).await, kernel);
                reached.push(kernel);
            }
        }
    }
    for kernel in [KernelKind::Tile, KernelKind::BlockTile, KernelKind::Gather] {
        assert!(reached.contains(&kernel), "no call reached {kernel:?}");
    }
    // 8- and 16-bit: blocks transposed in registers, rows not a multiple of the block.
    for (op, dt) in [
        (Operator::BitXor, DataType::U8),
        (Operator::LogicalXor, DataType::U8),
        (Operator::BitXor, DataType::F16),
    ] {
        for [rows, cols] in [[41u32, 40], [130, 64], [24, 44]] {
            let t = TensorDesc::new(dt, &[rows, cols]);
            let r = DmlCase::distinct(op, t.clone().with_strides(&[1, rows]), t.clone(), t, 43)
                .sparse(3)
                .check_on(&ctx)
                .await;
            assert_kernel(&r, KernelKind::Tile);
        }
    }
    let t = TensorDesc::new(DataType::U32, &[50, 64]);
    let r = DmlCase::distinct(
        Operator::LogicalXor,
        t.clone(),
        t.clone().with_strides(&[1, 50]),
        t,
        42,
    )
    .sparse(5)
    .check_on(&ctx)
    .await;
    assert_kernel(&r, KernelKind::Tile);
}

#[wasm_bindgen_test]
async fn tile_batches_anywhere_in_memory() {
    // A (2, 1, 0) permutation (the batch between the rows and the columns), a (0, 3, 2, 1)
    // one (two batch dimensions that do not merge), a (4, 3, 2, 1, 0) one (three) and 1,025
    // transposes of 16 x 64, on each width and both tunings: the tile kernels in their matrix
    // order, counting the batch on one grid (tuned for GPUs, and for CPUs beyond 1,024
    // matrices) or one record per matrix.
    let gpu = tuned(KernelTuning::Gpu).await;
    let cpu = tuned(KernelTuning::Cpu).await;
    let cases: [(&[u32], &[u32]); 4] = [
        (&[32, 3, 64], &[1, 32, 96]),
        (&[2, 32, 3, 64], &[6144, 1, 32, 96]),
        (&[32, 2, 3, 2, 64], &[1, 32, 64, 192, 384]),
        (&[1025, 16, 64], &[1024, 1, 16]),
    ];
    for dt in [DataType::U8, DataType::F16, DataType::U32, DataType::I64] {
        for (sizes, a) in cases {
            let t = TensorDesc::new(dt, sizes);
            let a = t.clone().with_strides(a);
            let case = DmlCase::distinct(Operator::BitXor, a.clone(), t.clone(), t.clone(), 44);
            for (ctx, tuning) in [(&gpu, KernelTuning::Gpu), (&cpu, KernelTuning::Cpu)] {
                let kernel = tile_kernel(&t, [&a, &t], tuning);
                assert_kernel(&case.check_on(ctx).await, kernel);
                if tuning == KernelTuning::Gpu {
                    assert!(
                        matches!(kernel, KernelKind::Tile | KernelKind::BlockTile),
                        "{dt} {sizes:?}: {kernel:?}"
                    );
                }
            }
        }
    }
}

/// The operators and types the strided-output kernels run: each width, both DirectML
/// operators.
const STRIDED_SUBJECTS: [(Operator, DataType); 6] = [
    (Operator::BitXor, DataType::U8),
    (Operator::BitXor, DataType::I16),
    (Operator::BitXor, DataType::F32),
    (Operator::BitXor, DataType::U64),
    (Operator::LogicalXor, DataType::U8),
    (Operator::LogicalXor, DataType::U32),
];

#[wasm_bindgen_test]
async fn scatter() {
    let ctx = ctx().await;
    for (op, dt) in STRIDED_SUBJECTS {
        // Padded rows under 64 bytes, every other element, every fourth: atomic lanes where
        // elements share words (8- and 16-bit elements less than 4 bytes apart), plain stores
        // where none does.
        for [r, c] in [[9u32, 7], [10, 5], [4, 3]] {
            let t = TensorDesc::new(dt, &[r, c]);
            for (step, pad) in [(1, 3), (2, 1), (4, 3)] {
                let out = t.clone().with_strides(&[step * (c - 1) + 1 + pad, step]);
                let kernel = scatter_kind(&out);
                let summary = DmlCase::distinct(op, t.clone(), t.clone(), out, 51)
                    .sparse(2)
                    .check_on(&ctx)
                    .await;
                assert_kernel(&summary, kernel);
            }
        }
    }
}

#[wasm_bindgen_test]
async fn shifted_rows() {
    // Both of the kernel's forms: runs of consecutive blocks (the rule for CPU adapters) and
    // blocks spread over a row's invocations (the rule for GPUs).
    for tuning in [KernelTuning::Cpu, KernelTuning::Gpu] {
        let ctx = tuned(tuning).await;
        for (op, dt) in STRIDED_SUBJECTS {
            let c = 67u32
                .div_ceil(dt.size_in_bytes())
                .max(64 / dt.size_in_bytes());
            let t = TensorDesc::new(dt, &[17, c]);
            // Padded rows of every gap from 1 to 3 elements (rows sharing a word where the
            // gap is under a word), and a packed output with unaligned rows and a padded
            // input.
            for gap in 1..=3 {
                let out = t.clone().with_strides(&[c + gap, 1]);
                let summary = DmlCase::distinct(op, t.clone(), t.clone(), out, 70 + u64::from(gap))
                    .sparse(2)
                    .check_on(&ctx)
                    .await;
                assert_kernel(&summary, KernelKind::ShiftedRows);
            }
            let packed = TensorDesc::new(dt, &[9, c | 1]);
            let padded = packed.clone().with_strides(&[(c | 1) + 3, 1]);
            let summary = DmlCase::distinct(op, padded, packed.clone(), packed, 74)
                .check_on(&ctx)
                .await;
            assert_kernel(&summary, KernelKind::ShiftedRows);
        }
        // One run off a 16-byte boundary repeating one element (OpenVINO, offsets 4 bytes
        // in).
        let mut case = OvCase::new(DataType::U8, &[5, 40], &[1], AutoBroadcast::Numpy, 75);
        case.offsets = [4, 8, 12];
        let (_, r) = case.check_on(&ctx).await;
        assert_kernel(&r, KernelKind::ShiftedRows);
    }
}

#[wasm_bindgen_test]
async fn empty_output_dispatches_nothing_and_writes_nothing() {
    let ctx = ctx().await;
    for dt in [DataType::U8, DataType::I64, DataType::Bool] {
        let (shape, r) = OvCase::new(dt, &[3, 0], &[1, 0], AutoBroadcast::Numpy, 61)
            .check_on(&ctx)
            .await;
        assert_eq!(shape, [3, 0]);
        assert!(r.dispatches.is_empty(), "{r:?}");
    }
    let op = gpu_xor::OvBinary::new(
        &ctx,
        &gpu_xor::BitwiseXorDesc::new(DataType::U8, &[3, 0], &[1, 0]),
    )
    .unwrap();
    assert_eq!(op.plan().kernel(), KernelKind::Empty);
}

#[wasm_bindgen_test]
async fn measured_choice() {
    // Measured in the browser without blocking: the warm-up times the transpose's candidates
    // on the page's WebGPU, keeps one, and a call then runs it exactly.
    let ctx = tuned(KernelTuning::Measured).await;
    let t = TensorDesc::new(DataType::U32, &[128, 96]);
    let a = t.clone().with_strides(&[1, 128]);
    let mut desc =
        gpu_xor::DmlBinaryDesc::packed(gpu_xor::DmlBinaryOp::BitXor, DataType::U32, &[128, 96]);
    desc.a = a.clone();
    let op = gpu_xor::DmlBinary::new(&ctx, &desc).unwrap();
    let graph: [&dyn gpu_xor::CompiledOperator; 1] = [&op];
    ctx.warm_up_async(&graph).await.unwrap();
    let report = ctx.tune_async(&graph).await.unwrap();
    assert_eq!((report.measured, report.known), (0, 1));
    let choices = ctx.kernel_choices();
    assert_eq!(choices.len(), 1);
    let (_, choice) = choices.iter().next().unwrap();
    assert!(
        matches!(
            choice,
            KernelKind::Tile | KernelKind::BlockTile | KernelKind::Gather
        ),
        "{choice:?}"
    );
    let case = DmlCase::distinct(Operator::BitXor, a, t.clone(), t, 44);
    assert_kernel(&case.check_on(&ctx).await, choice);
}
