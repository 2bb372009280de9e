//! DirectML's `DML_TENSOR_FLAG_OWNED_BY_DML` on inputs: an operator made by
//! `with_owned_inputs` copies each flagged input when it is made, and its calls bind only the
//! other tensors.
//!
//! Once the operator is made, the caller's copy of each owned input is overwritten (with bytes
//! that give another answer on every element, [`DmlCase::spoiled`]) or destroyed; every call,
//! through `run`, through a prepared call recorded twice, and through a batch of two calls at
//! two output offsets, must still give the reference's answer for the bytes as they were, and
//! change no byte of any buffer outside the output's elements. Every refusal writes nothing.
//!
//! Every DirectML operator runs these checks: the XOR operators and the family's, whose
//! one-input operators (BIT_NOT, LOGICAL_NOT) may own their one input, A.

use gpu_xor::inspect::{KernelKind, RecordSummary};
use gpu_xor::{
    Bindings, Context, DataType, DmlBinary, DmlBinaryDesc, DmlBinaryOp, DmlUnary, DmlUnaryDesc,
    DmlUnaryOp, Error, Input, KernelTuning, OwnedInputs, TensorBinding, TensorDesc, TensorFlags,
    TensorName,
};
use gpu_xor_testkit::compare_buffers;
use gpu_xor_testkit::engine::{self, AnyOperator};

use crate::common::{
    Check, DIRECTML, DmlCase, Operator, OperatorExt, assert_kernel, buffer, compare, ctx, place,
    random_bytes, scatter_kind, small_windows, speckle, tuned,
};

// ----- Which inputs the operator owns, and how a call runs ----------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Owns {
    A,
    B,
    Both,
}

const OWNS: [Owns; 3] = [Owns::A, Owns::B, Owns::Both];

/// The case with A and/or B flagged `OWNED_BY_DML`.
fn owning(mut case: DmlCase, owns: Owns) -> DmlCase {
    if owns != Owns::B {
        case.a.flags = TensorFlags::OwnedByDml;
    }
    if owns != Owns::A {
        case.b.flags = TensorFlags::OwnedByDml;
    }
    case
}

#[derive(Clone, Copy, Debug)]
enum Path {
    /// `run`: recorded, submitted, waited for.
    Run,
    /// `prepare`, then the prepared call recorded twice into one encoder.
    PreparedTwice,
    /// A batch of two calls of the operator, the second with its output further on.
    Batch,
}

const PATHS: [Path; 3] = [Path::Run, Path::PreparedTwice, Path::Batch];

#[derive(Clone, Copy, Debug)]
enum Then {
    /// The caller's copy of each owned input is overwritten after the operator is made.
    Overwrite,
    /// The caller's buffer of each owned input is destroyed after the operator is made.
    Destroy,
}

/// Bytes between the end of the first output and the second (a batch's second call).
const GAP: u64 = 48;

/// Room in the output's buffer (buffer 2) for a second output after the first, with `GAP`
/// bytes of sentinel between them and after it; the second output's place.
fn with_second_output(mut case: DmlCase, seed: u64) -> (DmlCase, DmlCase) {
    assert_eq!(case.places[2].buffer, 2, "{}", case.describe());
    let total = case.out.total_size().expect("a valid output");
    let at = (case.places[2].offset + total + GAP).next_multiple_of(16);
    let len = (at + total + GAP) as usize;
    let have = case.buffers[2].len();
    if have < len {
        case.buffers[2].extend(random_bytes(seed ^ 0x0DD5, len - have));
    }
    let mut second = case.clone();
    second.places[2] = place(2, at);
    (case, second)
}

/// Makes the operator of `case` with its flagged inputs owned, then overwrites or destroys
/// the caller's copies, runs the call by `path` and checks every byte of every buffer that is
/// left against the reference on the bytes the operator copied.
fn check_owned(ctx: &Context, case: &DmlCase, path: Path, then: Then) -> RecordSummary {
    let owned = case.owned();
    assert_ne!(owned, [false; 2], "{}", case.describe());
    let (case, second) = with_second_output(case.clone(), 77);
    let context = || format!("{path:?}, {then:?}\n{}", case.describe());
    let gpu = case.upload(ctx);
    let op = case
        .operator_owning(ctx, &gpu)
        .unwrap_or_else(|e| panic!("with_owned_inputs: {e}\n{}", context()));

    // The operator has its copies: the caller's change, or go.
    let sources: Vec<usize> = (0..2)
        .filter(|&i| owned[i])
        .map(|i| case.places[i].buffer)
        .collect();
    let spoiled = case.spoiled();
    let state = match then {
        Then::Overwrite => {
            for &k in &sources {
                assert_ne!(spoiled[k], case.buffers[k]);
                ctx.queue().write_buffer(&gpu[k], 0, &spoiled[k]);
            }
            spoiled
        }
        Then::Destroy => {
            for &k in &sources {
                gpu[k].destroy();
            }
            case.buffers.clone()
        }
    };

    let bindings = case.bindings(&gpu);
    // (A one-input operator's call never binds B.)
    assert_eq!(
        [
            matches!(bindings.a, Input::Owned),
            matches!(bindings.b, Input::Owned),
            matches!(bindings.b, Input::Absent),
        ],
        [owned[0], owned[1], case.op.inputs() == 1],
        "a call binds only the inputs the operator does not own, and a one-input call no B"
    );
    let fail = |e: Error| -> ! { panic!("the call failed: [{}] {e}\n{}", e.rule(), context()) };
    let (summary, want) = match path {
        Path::Run => (
            op.run(&bindings).unwrap_or_else(|e| fail(e)),
            case.expected_on(&state),
        ),
        Path::PreparedTwice => {
            let prepared = op.prepare(&bindings).unwrap_or_else(|e| fail(e));
            let mut encoder = ctx.device().create_command_encoder(&Default::default());
            // The output aliases no input: a second recording writes the same bytes.
            prepared.record(&mut encoder).unwrap_or_else(|e| fail(e));
            prepared.record(&mut encoder).unwrap_or_else(|e| fail(e));
            ctx.queue().submit([encoder.finish()]);
            assert_eq!(prepared.summaries().len(), 1);
            (prepared.summaries()[0].clone(), case.expected_on(&state))
        }
        Path::Batch => {
            let mut batch = ctx.batch();
            let summary = op.push(&mut batch, &bindings).unwrap_or_else(|e| fail(e));
            op.push(&mut batch, &second.bindings(&gpu))
                .unwrap_or_else(|e| fail(e));
            let mut encoder = ctx.device().create_command_encoder(&Default::default());
            batch
                .prepare()
                .and_then(|p| p.record(&mut encoder))
                .unwrap_or_else(|e| fail(e));
            ctx.queue().submit([encoder.finish()]);
            (summary, second.expected_on(&case.expected_on(&state)))
        }
    };

    let mut checked = 0;
    for (k, buffer) in gpu.iter().enumerate() {
        if matches!(then, Then::Destroy) && sources.contains(&k) {
            continue;
        }
        let got = ctx
            .read_buffer(buffer, 0, buffer.size())
            .unwrap_or_else(|e| panic!("reading buffer {k} back: {e}\n{}", context()));
        compare(k, &got, &want[k], &case);
        checked += 1;
    }
    assert!(checked >= 1);
    // The batch's second output, element by element, to name it on a mismatch.
    if matches!(path, Path::Batch) {
        let got = ctx.read_buffer(&gpu[2], 0, gpu[2].size()).unwrap();
        compare(2, &got, &want[2], &second);
    }
    summary
}

/// [`check_owned`] for each owner, path and aftermath of `case` (whose inputs are not
/// flagged); each call's summary.
fn check_all(ctx: &Context, case: &DmlCase) -> Vec<RecordSummary> {
    assert_eq!(case.owned(), [false; 2]);
    let mut summaries = Vec::new();
    for owns in OWNS {
        if owns == Owns::B && case.op.inputs() == 1 {
            // A one-input operator has no B to own.
            continue;
        }
        let case = owning(case.clone(), owns);
        for path in PATHS {
            for then in [Then::Overwrite, Then::Destroy] {
                summaries.push(check_owned(ctx, &case, path, then));
            }
        }
    }
    summaries
}

/// [`check_all`] for a case of a kernel family: the same call with every input bound by the
/// caller runs `kernel` only (where given), and every call of an operator that owns inputs
/// runs the same dispatches (the operator's own storage is bound as the caller's buffers
/// were).
fn check_family(ctx: &Context, case: &DmlCase, kernel: Option<KernelKind>) -> Vec<RecordSummary> {
    let unowned = case.check_on(ctx);
    if let Some(kernel) = kernel {
        assert_kernel(&unowned, kernel);
    }
    let summaries = check_all(ctx, case);
    for summary in &summaries {
        assert_eq!(
            summary.dispatches,
            unowned.dispatches,
            "owning inputs changed the kernels\n{}",
            case.describe()
        );
    }
    summaries
}

/// A logical operator sees zeros as well as nonzero values in every lane, in A and B apart.
fn data_for(op: Operator, mut case: DmlCase) -> DmlCase {
    if op.logical() {
        let seed = case.buffers[0].len() as u64;
        speckle(&mut case.buffers, seed);
    }
    case
}

/// Every DirectML operator, XOR and the family.
const OPS: [Operator; DIRECTML.len()] = DIRECTML;

/// The operators of two inputs, for the checks about B.
fn binary() -> impl Iterator<Item = Operator> {
    OPS.into_iter().filter(|op| op.inputs() == 2)
}

/// The operators of one input.
fn unary() -> impl Iterator<Item = Operator> {
    OPS.into_iter().filter(|op| op.inputs() == 1)
}

// ----- The kernel families ------------------------------------------------------------------

// The `vec4<u32>` kernels read whole 16-byte blocks; the operator's own storage is rounded up
// to 16 bytes, so owning an input never changes the kernel a call gets.

#[test]
fn owned_inputs_packed_contiguous() {
    for op in OPS {
        for (dt, n) in [(DataType::U8, 1008u32), (DataType::U32, 260)] {
            let case = data_for(op, DmlCase::packed(op, dt, &[n], u64::from(n)));
            check_family(ctx(), &case, Some(KernelKind::Contiguous));
        }
    }
}

#[test]
fn owned_inputs_padded_rows() {
    for op in OPS {
        // Padded A and output rows, B broadcast along the rows.
        let t = TensorDesc::new(DataType::U8, &[11, 304]);
        let padded = t.clone().with_strides(&[320, 1]);
        let b = t.clone().with_strides(&[0, 1]);
        let case = data_for(op, DmlCase::distinct(op, padded.clone(), b, padded, 22));
        check_family(ctx(), &case, Some(KernelKind::Rows));
    }
}

#[test]
fn owned_inputs_transposed_a_tile_u32() {
    for op in OPS {
        let t = TensorDesc::new(DataType::U32, &[40, 33]);
        let a = t.clone().with_strides(&[1, 40]);
        let case = data_for(op, DmlCase::distinct(op, a, t.clone(), t, 31));
        // The tile kernel, as chosen for GPUs (a context tuned for CPUs gathers).
        check_family(tuned(KernelTuning::Gpu), &case, Some(KernelKind::Tile));
        // (A NOT reads its input as both of XOR's: the CPU's choice for two transposed inputs.)
        let cpu = (op.inputs() == 2).then_some(KernelKind::Gather);
        check_family(tuned(KernelTuning::Cpu), &case, cpu);
    }
}

/// Sizes that leave 1 to 3 bytes of the last word, or part of the last 16-byte block: the
/// operator's storage has room for the last block, so the kernels are those of the same call
/// on the caller's buffers, and so are the bytes.
#[test]
fn owned_inputs_of_awkward_sizes() {
    for op in OPS {
        for (dt, n) in [
            (DataType::U8, 1001u32),
            (DataType::U8, 7),
            (DataType::U32, 257),
        ] {
            let case = data_for(op, DmlCase::packed(op, dt, &[n], u64::from(n)));
            check_family(ctx(), &case, None);
        }
        let t = TensorDesc::new(DataType::U8, &[11, 300]);
        let padded = t.clone().with_strides(&[304, 1]);
        let b = t.clone().with_strides(&[0, 1]);
        let case = data_for(op, DmlCase::distinct(op, padded.clone(), b, padded, 23));
        check_family(ctx(), &case, None);
    }
    let case = DmlCase::packed(Operator::BitXor, DataType::U16, &[3, 5, 7], 24);
    check_family(ctx(), &case, None);
}

#[test]
fn owned_inputs_strided_output_scatter() {
    for (op, dt) in [
        (Operator::BitXor, DataType::U8),
        (Operator::BitXor, DataType::U16),
        (Operator::LogicalXor, DataType::U8),
        (Operator::BitAnd, DataType::U16),
        (Operator::LogicalOr, DataType::U8),
        (Operator::BitNot, DataType::I8),
        (Operator::LogicalNot, DataType::U8),
    ] {
        let t = TensorDesc::new(dt, &[4, 5]);
        for out in [
            t.clone().with_strides(&[7, 1]),
            t.clone().with_strides(&[10, 2]),
        ] {
            let kernel = scatter_kind(&out);
            let case = data_for(op, DmlCase::distinct(op, t.clone(), t.clone(), out, 41));
            check_family(ctx(), &case, Some(kernel));
        }
    }
}

/// Tensors larger than a 4 KiB window: the operator's own storage is bound window by window.
#[test]
fn owned_inputs_larger_than_a_window() {
    let ctx = small_windows();
    let window = ctx.max_window_bytes();
    for op in OPS {
        for (dt, n) in [(DataType::U32, 5000u32), (DataType::U8, 13_008)] {
            let case = data_for(op, DmlCase::packed(op, dt, &[n], 51));
            assert!(case.a.total_size().unwrap() > 2 * window);
            for summary in check_family(ctx, &case, Some(KernelKind::Contiguous)) {
                assert!(summary.dispatches.len() >= 3, "{summary:?}");
            }
        }
        // Awkward size, several windows.
        let case = data_for(op, DmlCase::packed(op, DataType::U8, &[13_001], 52));
        check_all(ctx, &case);
    }
}

/// A transposed input and a strided output larger than a window: the pieces of each window
/// read the operator's storage where they read the caller's buffer.
#[test]
fn owned_strided_inputs_larger_than_a_window() {
    let ctx = small_windows();
    let t = TensorDesc::new(DataType::U32, &[48, 40]);
    let a = t.clone().with_strides(&[1, 48]);
    let case = DmlCase::distinct(Operator::BitXor, a, t.clone(), t, 61);
    assert!(case.a.total_size().unwrap() > ctx.max_window_bytes());
    check_family(ctx, &case, None);
    let t = TensorDesc::new(DataType::U16, &[40, 60]);
    for (strides, kernel) in [
        ([65, 1], KernelKind::ShiftedRows),
        ([130, 2], KernelKind::Spaced),
    ] {
        let out = t.clone().with_strides(&strides);
        let case = DmlCase::distinct(Operator::BitXor, t.clone(), t.clone(), out, 62);
        assert!(case.out.total_size().unwrap() > ctx.max_window_bytes());
        check_family(ctx, &case, Some(kernel));
    }
}

// ----- Errors: each writes nothing -----------------------------------------------------------

/// A small packed u8 case with the inputs `owns` says flagged.
fn small(op: Operator, owns: Owns) -> DmlCase {
    owning(DmlCase::packed(op, DataType::U8, &[64], 5), owns)
}

/// Uploads the case, runs `attempt` on its buffers, and checks that it is refused with `rule`
/// and that no byte of any buffer changed.
fn refused(
    case: &DmlCase,
    rule: &str,
    attempt: impl FnOnce(&Context, &[wgpu::Buffer]) -> Result<(), Error>,
) -> Error {
    let ctx = ctx();
    let gpu = case.upload(ctx);
    let e = match attempt(ctx, &gpu) {
        Ok(()) => panic!("expected {rule}, but it succeeded\n{}", case.describe()),
        Err(e) => e,
    };
    assert_eq!(e.rule(), rule, "{e}\n{}", case.describe());
    ctx.wait().unwrap();
    let got = engine::read_back_blocking(ctx, &gpu).unwrap();
    if let Err(diff) = compare_buffers(&case.names(), &got, &case.buffers, None) {
        panic!(
            "refused with {rule}, yet a byte changed: {diff}\n{}",
            case.describe()
        );
    }
    e
}

/// The operator of `case`, owning what its descriptions flag.
fn owning_op(case: &DmlCase, gpu: &[wgpu::Buffer]) -> AnyOperator {
    case.operator_owning(ctx(), gpu)
        .unwrap_or_else(|e| panic!("with_owned_inputs: {e}\n{}", case.describe()))
}

#[test]
fn new_on_a_flagged_description_is_owned_input_missing() {
    for op in OPS {
        for (owns, tensor) in [
            (Owns::A, TensorName::A),
            (Owns::B, TensorName::B),
            (Owns::Both, TensorName::A),
        ] {
            if owns == Owns::B && op.inputs() == 1 {
                continue;
            }
            let case = small(op, owns);
            let e = case.check_error("owned_input_missing");
            assert_eq!(e, Error::OwnedInputMissing { tensor });
        }
    }
}

#[test]
fn with_owned_inputs_checks_what_is_given() {
    for op in binary() {
        // An input given as owned that the description does not flag.
        let case = small(op, Owns::B);
        let e = refused(&case, "owned_input_bound", |ctx, gpu| {
            let all = case.all_bindings(gpu);
            let given = OwnedInputs::both(all.a.binding().unwrap(), all.b.binding().unwrap());
            gpu_xor_testkit::dml::operator(case.op, ctx, case.descs(), &given).map(drop)
        });
        assert_eq!(
            e,
            Error::OwnedInputBound {
                tensor: TensorName::A
            }
        );
        let case = DmlCase::packed(op, DataType::U8, &[64], 6);
        let e = refused(&case, "owned_input_bound", |ctx, gpu| {
            let given = OwnedInputs::b(case.all_bindings(gpu).b.binding().unwrap());
            gpu_xor_testkit::dml::operator(case.op, ctx, case.descs(), &given).map(drop)
        });
        assert_eq!(
            e,
            Error::OwnedInputBound {
                tensor: TensorName::B
            }
        );

        // A flagged input not given.
        let case = small(op, Owns::Both);
        let e = refused(&case, "owned_input_missing", |ctx, gpu| {
            let given = OwnedInputs::a(case.all_bindings(gpu).a.binding().unwrap());
            gpu_xor_testkit::dml::operator(case.op, ctx, case.descs(), &given).map(drop)
        });
        assert_eq!(
            e,
            Error::OwnedInputMissing {
                tensor: TensorName::B
            }
        );
        let case = small(op, Owns::A);
        let e = refused(&case, "owned_input_missing", |ctx, _| {
            gpu_xor_testkit::dml::operator(case.op, ctx, case.descs(), &OwnedInputs::default())
                .map(drop)
        });
        assert_eq!(
            e,
            Error::OwnedInputMissing {
                tensor: TensorName::A
            }
        );
    }
}

#[test]
fn owned_binding_needs_copy_src() {
    for op in binary() {
        let case = small(op, Owns::B);
        let e = refused(&case, "missing_usage", |ctx, _| {
            // B's bytes in a buffer that cannot be copied from (and so cannot be read back:
            // the refusal's other buffers are checked).
            let source = ctx.device().create_buffer(&wgpu::BufferDescriptor {
                label: Some("no COPY_SRC"),
                size: case.buffers[1].len() as u64,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            ctx.queue().write_buffer(&source, 0, &case.buffers[1]);
            let given = OwnedInputs::b(TensorBinding::range(&source, 32, 64));
            gpu_xor_testkit::dml::operator(case.op, ctx, case.descs(), &given).map(drop)
        });
        match e {
            Error::MissingUsage { tensor, needed, .. } => {
                assert_eq!((tensor, needed), (Some(TensorName::B), "COPY_SRC"));
            }
            other => panic!("{other}"),
        }
    }
}

#[test]
fn owned_binding_follows_the_call_binding_rules() {
    for op in OPS {
        let case = small(op, Owns::A);
        let total = case.a.total_size().unwrap();
        // Offsets that are not a multiple of 16.
        for offset in [4, 8, 36] {
            refused(&case, "binding_offset_misaligned", |ctx, gpu| {
                let given = OwnedInputs::a(TensorBinding::range(&gpu[0], offset, total));
                gpu_xor_testkit::dml::operator(case.op, ctx, case.descs(), &given).map(drop)
            });
        }
        // A multiple of 16 that is not one of GuaranteedBaseOffsetAlignment.
        let mut aligned = case.clone();
        aligned.a = aligned.a.clone().with_alignment(64);
        refused(&aligned, "binding_offset_misaligned", |ctx, gpu| {
            let given = OwnedInputs::a(TensorBinding::range(&gpu[0], 32, total));
            gpu_xor_testkit::dml::operator(aligned.op, ctx, aligned.descs(), &given).map(drop)
        });
        // Fewer bytes than TotalTensorSizeInBytes.
        refused(&case, "binding_too_small", |ctx, gpu| {
            let given = OwnedInputs::a(TensorBinding::range(&gpu[0], 32, total - 4));
            gpu_xor_testkit::dml::operator(case.op, ctx, case.descs(), &given).map(drop)
        });
        // The rest of a buffer that ends too early.
        refused(&case, "binding_too_small", |ctx, gpu| {
            let end = gpu[0].size();
            let given = OwnedInputs::a(TensorBinding::at(&gpu[0], end - 16));
            gpu_xor_testkit::dml::operator(case.op, ctx, case.descs(), &given).map(drop)
        });
    }
}

/// One way of making a call.
type CallFn = fn(&AnyOperator, &Bindings<'_>) -> Result<(), Error>;

/// Every way of making a call, each refused with `rule` and writing nothing; through a batch
/// that already holds one good call, which the refused push leaves as it was.
fn every_call_refused(
    case: &DmlCase,
    bindings: impl Fn(&[wgpu::Buffer]) -> Bindings<'_>,
    rule: &str,
) {
    let calls: [(&str, CallFn); 5] = [
        ("record", |op, b| {
            engine::submit(crate::common::ctx(), op, b).map(drop)
        }),
        ("run", |op, b| op.run(b).map(drop)),
        ("run_async", |op, b| {
            pollster::block_on(op.run_async(b)).map(drop)
        }),
        ("prepare", |op, b| op.prepare(b).map(drop)),
        ("submit", |op, b| op.submit(b).map(drop)),
    ];
    for (how, call) in calls {
        let e = refused(case, rule, |_, gpu| {
            let op = owning_op(case, gpu);
            call(&op, &bindings(gpu))
        });
        println!("{how}: {e}");
    }

    // A batch with one good call; the refused push adds nothing.
    let ctx = ctx();
    let gpu = case.upload(ctx);
    let op = owning_op(case, &gpu);
    let mut batch = ctx.batch();
    op.push(&mut batch, &case.bindings(&gpu))
        .unwrap_or_else(|e| panic!("{e}"));
    let (len, dispatches) = (batch.len(), batch.dispatch_count());
    let e = op
        .push(&mut batch, &bindings(&gpu))
        .expect_err("the push should have been refused");
    assert_eq!(e.rule(), rule, "{e}");
    assert_eq!((batch.len(), batch.dispatch_count()), (len, dispatches));
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    batch.record(&mut encoder).unwrap();
    ctx.queue().submit([encoder.finish()]);
    let got = engine::read_back_blocking(ctx, &gpu).unwrap();
    let want = case.expected();
    for (k, (got, want)) in got.iter().zip(&want).enumerate() {
        compare(k, got, want, case);
    }
}

#[test]
fn a_call_that_binds_an_owned_input_is_owned_input_bound() {
    for op in unary() {
        // A owned, bound again as the one input.
        let case = small(op, Owns::A);
        every_call_refused(
            &case,
            |gpu| {
                let all = case.all_bindings(gpu);
                Bindings::unary(all.a.binding().unwrap(), all.output)
            },
            "owned_input_bound",
        );
    }
    for op in binary() {
        // B owned, bound again.
        let case = small(op, Owns::B);
        every_call_refused(&case, |gpu| case.all_bindings(gpu), "owned_input_bound");
        // Both owned, B bound again.
        let case = small(op, Owns::Both);
        every_call_refused(
            &case,
            |gpu| {
                let all = case.all_bindings(gpu);
                Bindings::owned_a(all.b.binding().unwrap(), all.output)
            },
            "owned_input_bound",
        );
    }
}

#[test]
fn a_call_that_leaves_an_input_unbound_is_missing_binding() {
    for op in binary() {
        // B owned, A left unbound.
        let case = small(op, Owns::B);
        every_call_refused(
            &case,
            |gpu| Bindings {
                a: Input::Absent,
                b: Input::Owned,
                output: case.all_bindings(gpu).output,
            },
            "missing_binding",
        );
        // A owned, B left unbound.
        let case = small(op, Owns::A);
        every_call_refused(
            &case,
            |gpu| Bindings {
                a: Input::Owned,
                b: Input::Absent,
                output: case.all_bindings(gpu).output,
            },
            "missing_binding",
        );
    }
    // An operator that owns nothing, called with an input unbound, or given as owned.
    let case = DmlCase::packed(Operator::BitXor, DataType::U16, &[40], 9);
    let gpu = case.upload(ctx());
    let op = case.operator(ctx()).unwrap();
    let all = case.all_bindings(&gpu);
    for (bindings, want) in [
        (
            Bindings {
                a: Input::Absent,
                ..all
            },
            Error::MissingBinding {
                tensor: TensorName::A,
            },
        ),
        (
            Bindings {
                b: Input::Absent,
                ..all
            },
            Error::MissingBinding {
                tensor: TensorName::B,
            },
        ),
        (
            Bindings::owned_a(all.b.binding().unwrap(), all.output),
            Error::OwnedInputBound {
                tensor: TensorName::A,
            },
        ),
        (
            Bindings::owned_b(all.a.binding().unwrap(), all.output),
            Error::OwnedInputBound {
                tensor: TensorName::B,
            },
        ),
    ] {
        let e = op.run(&bindings).expect_err("an unbound input");
        assert_eq!(e, want);
        let mut batch = ctx().batch();
        assert!(op.push(&mut batch, &bindings).is_err());
        assert!(batch.is_empty());
    }
    let got = engine::read_back_blocking(ctx(), &gpu).unwrap();
    compare_buffers(&case.names(), &got, &case.buffers, None)
        .unwrap_or_else(|e| panic!("a refused call changed a byte: {e}"));
}

#[test]
fn an_owned_output_is_refused() {
    for op in OPS {
        let mut case = small(op, Owns::A);
        case.out.flags = TensorFlags::OwnedByDml;
        let e = case.check_error("owned_by_dml_on_output");
        assert_eq!(e, Error::OwnedByDmlOnOutput);
        let e = refused(&case, "owned_by_dml_on_output", |ctx, gpu| {
            let given = OwnedInputs::a(case.all_bindings(gpu).a.binding().unwrap());
            gpu_xor_testkit::dml::operator(case.op, ctx, case.descs(), &given).map(drop)
        });
        assert_eq!(e, Error::OwnedByDmlOnOutput);
    }
}

/// A one-input operator given what it cannot own: B, or A when A is not flagged; its one
/// input flagged and not given; its one input in a buffer that cannot be copied from. Each
/// refused when made, with nothing written.
#[test]
fn a_one_input_operator_checks_what_is_given() {
    for op in unary() {
        let case = small(op, Owns::A);
        let e = refused(&case, "owned_input_bound", |ctx, gpu| {
            let all = case.all_bindings(gpu);
            let given = OwnedInputs::both(all.a.binding().unwrap(), all.b.binding().unwrap());
            gpu_xor_testkit::dml::operator(case.op, ctx, case.descs(), &given).map(drop)
        });
        assert_eq!(
            e,
            Error::OwnedInputBound {
                tensor: TensorName::B
            }
        );
        let plain = DmlCase::packed(op, DataType::U8, &[64], 7);
        let e = refused(&plain, "owned_input_bound", |ctx, gpu| {
            let given = OwnedInputs::a(plain.all_bindings(gpu).a.binding().unwrap());
            gpu_xor_testkit::dml::operator(plain.op, ctx, plain.descs(), &given).map(drop)
        });
        assert_eq!(
            e,
            Error::OwnedInputBound {
                tensor: TensorName::A
            }
        );
        let e = refused(&case, "owned_input_missing", |ctx, gpu| {
            let given = OwnedInputs::b(case.all_bindings(gpu).b.binding().unwrap());
            gpu_xor_testkit::dml::operator(case.op, ctx, case.descs(), &given).map(drop)
        });
        assert_eq!(
            e.rule(),
            "owned_input_missing",
            "A flagged and not given: {e}"
        );
        let e = refused(&case, "missing_usage", |ctx, _| {
            let source = ctx.device().create_buffer(&wgpu::BufferDescriptor {
                label: Some("no COPY_SRC"),
                size: case.buffers[0].len() as u64,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            ctx.queue().write_buffer(&source, 0, &case.buffers[0]);
            let given = OwnedInputs::a(TensorBinding::range(&source, 32, 64));
            gpu_xor_testkit::dml::operator(case.op, ctx, case.descs(), &given).map(drop)
        });
        match e {
            Error::MissingUsage { tensor, needed, .. } => {
                assert_eq!((tensor, needed), (Some(TensorName::A), "COPY_SRC"));
            }
            other => panic!("{other}"),
        }
    }
}

/// The owned copy is taken when the operator is made: two operators made from one buffer
/// before and after it changes each keep their own bytes.
#[test]
fn each_operator_keeps_the_bytes_it_was_made_with() {
    let ctx = ctx();
    let first = small(Operator::BitXor, Owns::B);
    let gpu = first.upload(ctx);
    let op_first = owning_op(&first, &gpu);
    let mut second = first.clone();
    second.buffers = first.spoiled();
    ctx.queue().write_buffer(&gpu[1], 0, &second.buffers[1]);
    let op_second = owning_op(&second, &gpu);
    gpu[1].destroy();
    for (case, op) in [(&first, &op_first), (&second, &op_second)] {
        op.run(&case.bindings(&gpu)).unwrap();
        let got = ctx.read_buffer(&gpu[2], 0, gpu[2].size()).unwrap();
        compare(2, &got, &case.expected_on(&case.buffers)[2], case);
    }
    assert_kernel(
        &op_first.run(&first.bindings(&gpu)).unwrap(),
        KernelKind::Contiguous,
    );
}

/// By hand, with the values written out: a BIT_NOT that owns its one input and a
/// LOGICAL_AND that owns its B; the caller's copies are overwritten after the operators are
/// made and the results still come from the bytes given at creation.
#[test]
fn a_not_and_a_logical_and_compute_from_the_bytes_given_at_creation() {
    let ctx = ctx();
    let x = [0u8, 1, 0x80, 0xff, 0, 7, 0, 0x10];
    let y = [0xf0u8, 0x0f, 0xff, 0, 3, 3, 0, 1];
    let input = buffer(ctx, &x);
    let other = buffer(ctx, &y);
    let out = buffer(ctx, &[0x55; 8]);

    let mut t = TensorDesc::new(DataType::U8, &[8]);
    t.flags = TensorFlags::OwnedByDml;
    let packed = TensorDesc::new(DataType::U8, &[8]);
    let not = DmlUnary::with_owned_inputs(
        ctx,
        &DmlUnaryDesc::new(DmlUnaryOp::BitNot, t.clone(), packed.clone()),
        &OwnedInputs::a(TensorBinding::new(&input)),
    )
    .unwrap();
    let and = DmlBinary::with_owned_inputs(
        ctx,
        &DmlBinaryDesc::new(DmlBinaryOp::LogicalAnd, packed.clone(), t, packed.clone()),
        &OwnedInputs::b(TensorBinding::new(&other)),
    )
    .unwrap();
    // The caller's copies change: the operators read what they copied.
    ctx.queue().write_buffer(&input, 0, &[0x33; 8]);
    ctx.queue().write_buffer(&other, 0, &[0; 8]);

    not.run(&Bindings::owned_input(TensorBinding::new(&out)))
        .unwrap();
    let got = ctx.read_buffer(&out, 0, 8).unwrap();
    assert_eq!(got, x.map(|v| !v));
    // A binds the changed `input` (0x33, true everywhere); B is the owned `y`.
    and.run(&Bindings::owned_b(
        TensorBinding::new(&input),
        TensorBinding::new(&out),
    ))
    .unwrap();
    let got = ctx.read_buffer(&out, 0, 8).unwrap();
    assert_eq!(got, y.map(|v| u8::from(v != 0)));

    // A NOT that owns its input takes no binding for it, and never a B.
    let e = not
        .run(&Bindings::unary(
            TensorBinding::new(&input),
            TensorBinding::new(&out),
        ))
        .unwrap_err();
    assert_eq!(e.rule(), "owned_input_bound");
    // Given bytes for B, which it does not have: refused when made.
    let mut flagged = TensorDesc::new(DataType::U8, &[8]);
    flagged.flags = TensorFlags::OwnedByDml;
    let e = DmlUnary::with_owned_inputs(
        ctx,
        &DmlUnaryDesc::new(DmlUnaryOp::BitNot, flagged, packed),
        &OwnedInputs::both(TensorBinding::new(&input), TensorBinding::new(&other)),
    )
    .unwrap_err();
    assert_eq!(e.rule(), "owned_input_bound");
}
