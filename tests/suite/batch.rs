//! Batches that merge calls of different shapes into one dispatch, on every kernel: the same
//! calls recorded in one batch and run one by one must leave every byte of every buffer as
//! the reference does, calls applied in order.
//!
//! A merged dispatch runs one call per workgroup layer, each reading its own metadata record;
//! calls of different shapes share a dispatch whenever their grids agree. A kernel that read a
//! record before it knew its call would read another call's sizes and strides: these tests
//! catch that on every kernel, for every element width, for LOGICAL_XOR, in place, and across
//! window seams.
//!
//! The element function is part of the pipeline: every operator of the table merges as XOR
//! does, calls of different functions never share a dispatch, on every kernel, and a batch
//! that chains every operator, each reading what the one before wrote, runs them in order.

use gpu_xor::inspect::{KernelKind, RecordSummary};
use gpu_xor::{Context, DataType, KernelTuning, TensorDesc};
use gpu_xor_testkit::compare_buffers;
use gpu_xor_testkit::dml::{Call, Calls};
use gpu_xor_testkit::engine;

use crate::common::{
    Check, DIRECTML, Operator, OperatorExt, Place, ctx, family_of, place, small_windows, speckle,
    tuned,
};

/// The calls with their operators taken in turn from `ops`.
fn with_ops(calls: &[Call], ops: &[Operator]) -> Vec<Call> {
    calls
        .iter()
        .zip(ops.iter().cycle())
        .map(|(call, &op)| Call { op, ..call.clone() })
        .collect()
}

/// The same description for A, B and the output, except A's strides.
fn call(op: Operator, t: TensorDesc, a_strides: Option<&[u32]>, places: [Place; 3]) -> Call {
    let mut call = Call::same(op, t, places);
    if let Some(s) = a_strides {
        call.a = call.a.with_strides(s);
    }
    call
}

/// How this suite runs a set of [`Calls`]: one by one and in one batch, blocking.
trait CheckCalls {
    fn run_batched(&self, ctx: &Context) -> (Vec<RecordSummary>, usize);
    fn run_one_by_one(&self, ctx: &Context);
    fn run_prepared(&self, ctx: &Context);
    fn compare(&self, how: &str, got: &[Vec<u8>]);
    fn check(&self, ctx: &Context, kernel: Option<KernelKind>, merges: bool) -> (usize, usize);
    fn check_family(
        &self,
        ctx: &Context,
        kernel: Option<KernelKind>,
        merges: bool,
        ops: &[Operator],
    );
}

impl CheckCalls for Calls {
    /// Runs the calls one batch, checks every byte, and returns the summaries and the number
    /// of dispatches.
    fn run_batched(&self, ctx: &Context) -> (Vec<RecordSummary>, usize) {
        let gpu = engine::upload(ctx, &self.names(), &self.buffers);
        let mut batch = ctx.batch();
        let summaries = self
            .push_all(ctx, &mut batch, &gpu)
            .unwrap_or_else(|e| panic!("{e}\n{}", self.describe()));
        let dispatches = batch.dispatch_count();
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        batch.record(&mut encoder).unwrap();
        ctx.queue().submit([encoder.finish()]);
        self.compare("batched", &engine::read_back_blocking(ctx, &gpu).unwrap());
        (summaries, dispatches)
    }

    /// Runs the calls one by one, each in its own submission, and checks every byte.
    fn run_one_by_one(&self, ctx: &Context) {
        let gpu = engine::upload(ctx, &self.names(), &self.buffers);
        for call in &self.calls {
            call.case(&[]).run(ctx, &gpu).unwrap();
        }
        self.compare(
            "one by one",
            &engine::read_back_blocking(ctx, &gpu).unwrap(),
        );
    }

    /// Runs the calls as prepared calls, twice over: each call prepared on its own and all of
    /// them recorded into one compute pass that the test opened, in order, and then the calls
    /// prepared as one batch and that batch recorded twice more. Every byte must be what the
    /// calls applied three times in order give.
    fn run_prepared(&self, ctx: &Context) {
        let gpu = engine::upload(ctx, &self.names(), &self.buffers);
        let (singles, batched) = self
            .prepare_all(ctx, &gpu)
            .unwrap_or_else(|e| panic!("{e}\n{}", self.describe()));
        assert_eq!(batched.summaries().len(), self.calls.len());
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            for p in &singles {
                p.record_in_pass(&mut pass).unwrap();
            }
        }
        batched.record(&mut encoder).unwrap();
        batched.record(&mut encoder).unwrap();
        ctx.queue().submit([encoder.finish()]);
        self.repeated(3).compare(
            "prepared, recorded three times",
            &engine::read_back_blocking(ctx, &gpu).unwrap(),
        );
    }

    fn compare(&self, how: &str, got: &[Vec<u8>]) {
        if let Err(e) = compare_buffers(&self.names(), got, &self.expected(), None) {
            panic!("{how}: {e}\n{}", self.describe());
        }
    }

    /// Both runs; the batch must merge (fewer dispatches than records) when `merges`, and
    /// every call must run on `kernel` where one is given. Returns the batch's dispatches and
    /// the calls' pieces.
    fn check(&self, ctx: &Context, kernel: Option<KernelKind>, merges: bool) -> (usize, usize) {
        self.run_one_by_one(ctx);
        self.run_prepared(ctx);
        let (summaries, dispatches) = self.run_batched(ctx);
        let pieces: usize = summaries.iter().map(|s| s.dispatches.len()).sum();
        for s in summaries.iter().filter(|_| kernel.is_some()) {
            let kernel = kernel.unwrap();
            assert!(
                s.dispatches.iter().all(|&k| k == kernel),
                "expected {kernel:?}, ran {:?}\n{}",
                s.dispatches,
                self.describe()
            );
        }
        if merges {
            assert!(
                dispatches < pieces,
                "{pieces} pieces in {dispatches} dispatches: nothing merged\n{}",
                self.describe()
            );
        }
        (dispatches, pieces)
    }

    /// [`CheckCalls::check`] with the calls' operator replaced by each of `ops` in turn (on
    /// speckled bytes, so that the logical ones see both truth values), and then by all of
    /// them in rotation: no two neighbours share a function, so no two calls may share a
    /// dispatch, and every piece must be a dispatch of its own.
    fn check_family(
        &self,
        ctx: &Context,
        kernel: Option<KernelKind>,
        merges: bool,
        ops: &[Operator],
    ) {
        assert!(ops.len() >= 3, "{ops:?}");
        for (i, &op) in ops.iter().enumerate() {
            let mut calls = self.clone();
            calls.calls = with_ops(&self.calls, &[op]);
            speckle(&mut calls.buffers, i as u64);
            calls.check(ctx, kernel, merges);
        }
        for shift in [0, 1] {
            let mut mixed = self.clone();
            let mut rotated = ops.to_vec();
            rotated.rotate_left(shift + 2);
            mixed.calls = with_ops(&self.calls, &rotated);
            speckle(&mut mixed.buffers, 99 + shift as u64);
            let (dispatches, pieces) = mixed.check(ctx, kernel, false);
            assert_eq!(
                dispatches,
                pieces,
                "calls of different functions shared a dispatch\n{}",
                mixed.describe()
            );
        }
    }
}

/// Rank-2 calls with A transposed (strides `[1, rows]`), each in the three buffers at its
/// own offset.
fn transposed(op: Operator, dt: DataType, shapes: &[[u32; 2]], offsets: &[u64]) -> Vec<Call> {
    shapes
        .iter()
        .zip(offsets)
        .map(|(&[rows, cols], &at)| {
            call(
                op,
                TensorDesc::new(dt, &[rows, cols]),
                Some(&[1, rows]),
                [place(0, at), place(1, at), place(2, at)],
            )
        })
        .collect()
}

/// The defect as reported: two u32 / u64 calls of shapes [40, 40] and [40, 33], transposed
/// A, on the same three buffers at offsets 0 and 65536. Here [40, 41], whose rows are not
/// whole 16-byte blocks, keeps every width on the tile kernel; 32-bit transposes of
/// whole blocks in two shapes ([40, 40] and [48, 36], one 64 x 64 tile each) run the block
/// tile kernel, and merge the same way.
#[test]
fn tile_calls_of_two_shapes_merge_exactly() {
    use DataType::{F32, I32, I64, U32, U64};
    // The kernel, its types, the two shapes and the seed.
    type Case = (KernelKind, &'static [DataType], [[u32; 2]; 2], u64);
    let cases: [Case; 2] = [
        (
            KernelKind::Tile,
            &[U32, U64, F32, I64],
            [[40, 41], [40, 33]],
            11,
        ),
        (
            KernelKind::BlockTile,
            &[U32, I32, F32],
            [[40, 40], [48, 36]],
            14,
        ),
    ];
    for (kernel, types, shapes, seed) in cases {
        for &dt in types {
            let calls = transposed(Operator::BitXor, dt, &shapes, &[0, 65536]);
            Calls::new(3, 65536 + 16384, seed, calls).check_family(
                tuned(KernelTuning::Gpu),
                Some(kernel),
                true,
                &family_of(dt),
            );
        }
    }
}

/// Three shapes, one of them smaller than one tile.
#[test]
fn tile_calls_of_three_shapes_merge_exactly() {
    for dt in [DataType::U32, DataType::U64] {
        let calls = transposed(
            Operator::BitXor,
            dt,
            &[[33, 40], [40, 41], [17, 30]],
            &[0, 16384, 32768],
        );
        Calls::new(3, 49152, 12, calls).check_family(
            tuned(KernelTuning::Gpu),
            Some(KernelKind::Tile),
            false,
            &family_of(dt),
        );
    }
}

#[test]
fn tile_logical_calls_merge_exactly() {
    let calls = transposed(
        Operator::LogicalXor,
        DataType::U32,
        &[[64, 42], [50, 64], [33, 33]],
        &[0, 16384, 32768],
    );
    Calls::new(3, 49152, 13, calls).check_family(
        tuned(KernelTuning::Gpu),
        Some(KernelKind::Tile),
        true,
        &DIRECTML
            .into_iter()
            .filter(|o| o.logical())
            .collect::<Vec<_>>(),
    );
}

/// Packed calls of different lengths (within one workgroup of blocks, so that their grids
/// agree), every element width, every operator of the family.
#[test]
fn contiguous_calls_of_different_lengths_merge_exactly() {
    let types = [
        DataType::U8,
        DataType::F16,
        DataType::I32,
        DataType::U64,
        DataType::U32,
    ];
    for (i, dt) in types.into_iter().enumerate() {
        let calls: Vec<Call> = [1000u32, 1003, 17, 1]
            .iter()
            .enumerate()
            .map(|(k, &n)| {
                let at = k as u64 * 8192;
                call(
                    Operator::BitXor,
                    TensorDesc::new(dt, &[n]),
                    None,
                    [place(0, at), place(1, at), place(2, at)],
                )
            })
            .collect();
        Calls::new(3, 32768, 20 + i as u64, calls).check_family(
            ctx(),
            Some(KernelKind::Contiguous),
            true,
            &family_of(dt),
        );
    }
}

/// Padded rows of at least 128 bytes: the same number of rows, different row lengths and
/// paddings.
#[test]
fn rows_calls_of_different_row_lengths_merge_exactly() {
    for (i, dt) in [DataType::U8, DataType::U16, DataType::U32, DataType::U64]
        .into_iter()
        .enumerate()
    {
        let w = dt.size_in_bytes();
        // Row lengths in elements: 160 and 144 bytes, and 208 with a longer pitch.
        let shapes = [(160 / w, 176 / w), (144 / w, 160 / w), (208 / w, 256 / w)];
        let calls: Vec<Call> = shapes
            .iter()
            .enumerate()
            .map(|(k, &(cols, pitch))| {
                let at = k as u64 * 4096;
                let t = TensorDesc::new(dt, &[6, cols]).with_strides(&[pitch, 1]);
                let mut call = call(
                    Operator::BitXor,
                    t,
                    None,
                    [place(0, at), place(1, at), place(2, at)],
                );
                call.a = TensorDesc::new(dt, &[6, cols]);
                call
            })
            .collect();
        Calls::new(3, 16384, 30 + i as u64, calls).check_family(
            ctx(),
            Some(KernelKind::Rows),
            true,
            &family_of(dt),
        );
    }
}

/// A row broadcast across the row (A's inner stride 0) and a dense output: the gather kernel.
#[test]
fn gather_calls_of_different_shapes_merge_exactly() {
    for (i, dt) in [DataType::U8, DataType::I16, DataType::F32, DataType::I64]
        .into_iter()
        .enumerate()
    {
        let calls: Vec<Call> = [[6u32, 7], [5, 9], [3, 3]]
            .iter()
            .enumerate()
            .map(|(k, &[r, c])| {
                let at = k as u64 * 1024;
                call(
                    Operator::BitXor,
                    TensorDesc::new(dt, &[r, c]),
                    Some(&[c + 1, 2]),
                    [place(0, at), place(1, at), place(2, at)],
                )
            })
            .collect();
        Calls::new(3, 4096, 40 + i as u64, calls).check_family(
            ctx(),
            Some(KernelKind::Gather),
            true,
            &family_of(dt),
        );
    }
}

/// Padded output rows of sub-word elements, shorter than the rows kernel takes: the scatter
/// kernel.
#[test]
fn scatter_calls_of_different_shapes_merge_exactly() {
    for (i, dt) in [DataType::U8, DataType::I16].into_iter().enumerate() {
        let calls: Vec<Call> = [[9u32, 10], [10, 9], [4, 5]]
            .iter()
            .enumerate()
            .map(|(k, &[r, c])| {
                let at = k as u64 * 1024;
                let mut call = call(
                    Operator::BitXor,
                    TensorDesc::new(dt, &[r, c]),
                    None,
                    [place(0, at), place(1, at), place(2, at)],
                );
                call.out = TensorDesc::new(dt, &[r, c]).with_strides(&[c + 3, 1]);
                call
            })
            .collect();
        Calls::new(3, 4096, 50 + i as u64, calls).check_family(
            ctx(),
            Some(KernelKind::Scatter),
            true,
            &family_of(dt),
        );
    }
}

/// Calls in place (the output is A) at different offsets of one buffer, on every kernel
/// family that runs in place.
#[test]
fn in_place_calls_of_different_shapes_merge_exactly() {
    let at = |k: u64| {
        [
            place(0, k * 16384),
            place(1, k * 16384),
            place(0, k * 16384),
        ]
    };
    // Contiguous.
    let calls = [1000u32, 999, 5]
        .iter()
        .zip(0..)
        .map(|(&n, k)| {
            call(
                Operator::BitXor,
                TensorDesc::new(DataType::U16, &[n]),
                None,
                at(k),
            )
        })
        .collect();
    Calls::new(2, 49152, 60, calls).check_family(
        ctx(),
        Some(KernelKind::Contiguous),
        true,
        &family_of(DataType::U16),
    );
    // B broadcast along rows: rows of at least 16 bytes are a channel broadcast (the
    // contiguous kernel, B splat per row, each call's offsets read from its record in the
    // merged dispatch); shorter rows are gathered.
    let broadcast = |shapes: [[u32; 2]; 2]| -> Vec<Call> {
        shapes
            .iter()
            .zip(0..)
            .map(|(&[r, c], k)| {
                let mut call = call(
                    Operator::BitXor,
                    TensorDesc::new(DataType::U32, &[r, c]),
                    None,
                    at(k),
                );
                call.b = TensorDesc::new(DataType::U32, &[r, c]).with_strides(&[1, 0]);
                call
            })
            .collect()
    };
    // A NOT has no B to broadcast: only the two-input operators.
    let binary: Vec<Operator> = family_of(DataType::U32)
        .into_iter()
        .filter(|op| op.inputs() == 2)
        .collect();
    Calls::new(2, 32768, 61, broadcast([[6, 7], [5, 9]])).check_family(
        ctx(),
        Some(KernelKind::Contiguous),
        true,
        &binary,
    );
    Calls::new(2, 32768, 62, broadcast([[12, 3], [10, 2]])).check_family(
        ctx(),
        Some(KernelKind::Gather),
        true,
        &binary,
    );
}

/// Calls larger than a 4 KiB window: pieces of several calls, merged where they can be.
#[test]
fn windowed_calls_merge_exactly() {
    let ctx = small_windows();
    for (i, dt) in [DataType::U8, DataType::U32, DataType::U64]
        .into_iter()
        .enumerate()
    {
        let w = dt.size_in_bytes();
        let calls: Vec<Call> = [10000 / w, 9000 / w, 5000 / w]
            .iter()
            .zip(0..)
            .map(|(&n, k)| {
                let at = k * 16384;
                call(
                    Operator::BitXor,
                    TensorDesc::new(dt, &[n]),
                    None,
                    [place(0, at), place(1, at), place(2, at)],
                )
            })
            .collect();
        Calls::new(3, 49152, 70 + i as u64, calls).check_family(
            ctx,
            Some(KernelKind::Contiguous),
            false,
            &family_of(dt),
        );
    }
    // Transposed inputs larger than a window are cut into blocks of their matrices, each on
    // the kernel its own layout calls for under the device's tuning.
    let calls = transposed(
        Operator::BitXor,
        DataType::U32,
        &[[40, 40], [40, 33]],
        &[0, 16384],
    );
    Calls::new(3, 32768, 75, calls).check_family(ctx, None, false, &family_of(DataType::U32));
}

/// A call that reads what the one before it wrote does not share its dispatch, and sees its
/// result.
#[test]
fn dependent_calls_keep_their_order() {
    let t = TensorDesc::new(DataType::U32, &[40, 40]);
    let first = call(
        Operator::BitXor,
        t.clone(),
        Some(&[1, 40]),
        [place(0, 0), place(1, 0), place(2, 0)],
    );
    // Reads the first call's output as A, transposed.
    let second = call(
        Operator::BitXor,
        t,
        Some(&[1, 40]),
        [place(2, 0), place(1, 0), place(0, 8192)],
    );
    let (dispatches, _) = Calls::new(3, 16384, 80, vec![first, second]).check(
        tuned(KernelTuning::Gpu),
        Some(KernelKind::BlockTile),
        false,
    );
    assert_eq!(dispatches, 2);
}

/// AND, then OR of its output, then NOT of that in place, then LOGICAL_AND and LOGICAL_NOT,
/// on the same buffers, each reading what the one before wrote: one dispatch each, and every
/// byte as the calls applied in order leave it, in a batch, prepared, and one by one.
#[test]
fn dependent_calls_of_different_functions_keep_their_order() {
    let t = TensorDesc::new(DataType::U32, &[40, 40]);
    let at = |a, b, o| [place(a, 0), place(b, 0), place(o, 0)];
    let chain = vec![
        call(Operator::BitAnd, t.clone(), Some(&[1, 40]), at(0, 1, 2)),
        call(Operator::BitOr, t.clone(), Some(&[1, 40]), at(2, 1, 0)),
        call(Operator::BitNot, t.clone(), Some(&[1, 40]), at(0, 0, 1)),
        call(Operator::LogicalAnd, t.clone(), Some(&[1, 40]), at(1, 2, 0)),
        // In place: A's description is the output's.
        call(Operator::LogicalNot, t, None, at(0, 0, 0)),
    ];
    let mut calls = Calls::new(3, 8192, 81, chain);
    speckle(&mut calls.buffers, 81);
    let (dispatches, pieces) = calls.check(tuned(KernelTuning::Gpu), None, false);
    assert_eq!((dispatches, pieces), (5, 5));
    // The same functions on independent outputs of the same inputs: still one dispatch each,
    // though a batch of five ANDs there is one.
    let apart = |ops: &[Operator]| {
        let calls = ops
            .iter()
            .enumerate()
            .map(|(k, &op)| {
                let out = 8192 * (k as u64 + 1);
                call(
                    op,
                    TensorDesc::new(DataType::U32, &[40, 40]),
                    Some(&[1, 40]),
                    [place(0, 0), place(1, 0), place(0, out)],
                )
            })
            .collect();
        let mut calls = Calls::new(2, 8192 * 6, 82, calls);
        speckle(&mut calls.buffers, 82);
        calls
            .check(tuned(KernelTuning::Gpu), Some(KernelKind::BlockTile), false)
            .0
    };
    assert_eq!(apart(&[Operator::BitAnd; 5]), 1);
    let family = [
        Operator::BitAnd,
        Operator::BitOr,
        Operator::BitNot,
        Operator::LogicalAnd,
        Operator::LogicalNot,
    ];
    assert_eq!(apart(&family), 5);
}

/// Zeroes two bytes of every three in every buffer, so that the logical functions see zero
/// and nonzero elements alike.
fn sparse_for_logical(mut calls: Calls) -> Calls {
    for buffer in &mut calls.buffers {
        for (i, byte) in buffer.iter_mut().enumerate() {
            if i % 3 != 0 {
                *byte = 0;
            }
        }
    }
    calls
}

/// Every DirectML operator of the table in turn on the same three buffers, each reading what
/// the one before wrote (the output of one is an input of the next, in place included), in
/// one batch and as prepared calls, on u8 (every operator takes it) with padded and
/// transposed operands, on the default windows and on small ones.
#[test]
fn a_batch_chaining_every_function_matches_the_calls_in_order() {
    let t = TensorDesc::new(DataType::U8, &[24, 40]);
    let padded = t.clone().with_strides(&[48, 1]);
    let transposed = t.clone().with_strides(&[1, 24]);
    let mut calls = Vec::new();
    for (k, &op) in DIRECTML.iter().enumerate() {
        // Rotate the roles of the three buffers; every fourth call runs in place on A.
        let r = k % 3;
        let (a, b, o) = (r, (r + 1) % 3, (r + 2) % 3);
        let mut call = Call::same(op, t.clone(), [place(a, 0), place(b, 0), place(o, 0)]);
        match k % 4 {
            1 => call.a = padded.clone(),
            2 => call.b = transposed.clone(),
            3 => {
                call.out = call.a.clone();
                call.places[2] = call.places[0];
            }
            _ => {}
        }
        calls.push(call);
    }
    for ctx in [ctx(), small_windows()] {
        let calls = sparse_for_logical(Calls::new(3, 4096, 61, calls.clone()));
        calls.run_batched(ctx);
        calls.run_prepared(ctx);
    }
}

/// Independent calls of one kernel on the same bindings merge into one dispatch only when
/// their function is the same: the function is part of the pipeline.
#[test]
fn calls_of_different_functions_never_share_a_dispatch() {
    let t = TensorDesc::new(DataType::U32, &[256]);
    // Each call writes its own 1 KiB of buffer 2 from the same inputs.
    let dispatches = |ops: &[Operator]| -> usize {
        let calls = ops
            .iter()
            .enumerate()
            .map(|(k, &op)| {
                let at = k as u64 * 1024;
                Call::same(op, t.clone(), [place(0, 0), place(1, 0), place(2, at)])
            })
            .collect();
        Calls::new(3, (1024 * (ops.len() + 1)).max(8192), 62, calls)
            .run_batched(ctx())
            .1
    };
    assert_eq!(dispatches(&[Operator::BitAnd; 4]), 1, "like calls merge");
    let mixed = [
        Operator::BitAnd,
        Operator::BitAnd,
        Operator::BitOr,
        Operator::BitOr,
    ];
    assert_eq!(dispatches(&mixed), 2);
    let every = [
        Operator::BitXor,
        Operator::BitAnd,
        Operator::BitOr,
        Operator::BitNot,
        Operator::BitXor,
    ];
    assert_eq!(dispatches(&every), 5);
    // Every operator of the table, and the first again after them: one dispatch each.
    let mut table = DIRECTML.to_vec();
    table.push(DIRECTML[0]);
    assert_eq!(dispatches(&table), table.len());
}

/// `BIT_COUNT` of two output widths in one batch with the family, each call reading what one
/// before it wrote: u32 counted into u8, that u8 into u32, u64 into u8, and a transposed u16
/// into u32, beside XOR and a shift on the same buffers. Merging judges each operand's bytes
/// at its own width: batched, one by one and prepared agree byte for byte, on the default
/// windows and on small ones.
#[test]
fn bit_count_calls_of_other_widths_chain_with_the_family_in_one_batch() {
    let count = Operator::BitCount;
    let shift = Operator::BitShiftLeft;
    let t = |dt: DataType| TensorDesc::new(dt, &[24, 40]);
    let counted = |input: DataType, output: DataType, places: [Place; 3]| Call {
        op: count,
        a: t(input),
        b: t(input),
        out: t(output),
        places,
    };
    let calls = vec![
        Call::same(
            Operator::BitXor,
            t(DataType::U32),
            [place(0, 0), place(1, 0), place(2, 0)],
        ),
        counted(
            DataType::U32,
            DataType::U8,
            [place(2, 0), place(2, 0), place(0, 8192)],
        ),
        counted(
            DataType::U8,
            DataType::U32,
            [place(0, 8192), place(0, 8192), place(1, 8192)],
        ),
        counted(
            DataType::U64,
            DataType::U8,
            [place(1, 0), place(1, 0), place(2, 12288)],
        ),
        Call::same(
            shift,
            t(DataType::U8),
            [place(2, 12288), place(0, 8192), place(0, 9216)],
        ),
        Call {
            a: t(DataType::U16).with_strides(&[1, 24]),
            b: t(DataType::U16).with_strides(&[1, 24]),
            ..counted(
                DataType::U16,
                DataType::U32,
                [place(0, 0), place(0, 0), place(2, 16384)],
            )
        },
    ];
    for ctx in [ctx(), small_windows()] {
        let calls = Calls::new(3, 24576, 71, calls.clone());
        calls.run_batched(ctx);
        calls.run_one_by_one(ctx);
        calls.run_prepared(ctx);
    }
}
