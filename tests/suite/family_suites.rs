//! The word-wide family through the machinery the XOR operators proved: batches that mix
//! functions, prepared calls and warm-up, faults, owned inputs, the binding rules of a
//! one-input operator, the type tables, and the one-call forms. Every GPU check compares
//! every byte of every buffer with the CPU reference.

use gpu_xor::{
    AutoBroadcast, Bindings, Context, DataType, DmlBinary, DmlBinaryDesc, DmlBinaryOp, DmlUnary,
    DmlUnaryDesc, DmlUnaryOp, Error, FeatureLevel, Input, Operator, OvBinary, OvBinaryDesc,
    OvBinaryOp, OvUnary, OvUnaryDesc, OvUnaryOp, OwnedInputs, Tensor, TensorBinding, TensorDesc,
    TensorFlags,
};
use gpu_xor_conformance::dml::{Call, Calls};
use gpu_xor_conformance::engine::{self, AnyOperator};
use gpu_xor_testkit::compare_buffers;
use proptest::prelude::*;

use crate::common::{DmlOp, buffer, ctx, place, random_bytes, small_windows};

fn rule<T: std::fmt::Debug>(r: Result<T, Error>) -> &'static str {
    r.expect_err("the call should have been refused").rule()
}

/// Runs `calls` in one batch on `ctx` and checks every byte against the calls applied in
/// order by the reference; returns the batch's dispatch count.
fn run_batched(ctx: &Context, calls: &Calls) -> usize {
    let gpu = engine::upload(ctx, &calls.names(), &calls.buffers);
    let mut batch = ctx.batch();
    calls
        .push_all(ctx, &mut batch, &gpu)
        .unwrap_or_else(|e| panic!("{e}\n{}", calls.describe()));
    let dispatches = batch.dispatch_count();
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    batch.record(&mut encoder).unwrap();
    ctx.queue().submit([encoder.finish()]);
    let got = engine::read_back_blocking(ctx, &gpu).unwrap();
    if let Err(e) = compare_buffers(&calls.names(), &got, &calls.expected(), None) {
        panic!("batched: {e}\n{}", calls.describe());
    }
    dispatches
}

/// Runs `calls` prepared (one batch, recorded twice) and checks every byte against the calls
/// applied twice in order.
fn run_prepared(ctx: &Context, calls: &Calls) {
    let gpu = engine::upload(ctx, &calls.names(), &calls.buffers);
    let (singles, batched) = calls
        .prepare_all(ctx, &gpu)
        .unwrap_or_else(|e| panic!("{e}\n{}", calls.describe()));
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        for p in &singles {
            p.record_in_pass(&mut pass).unwrap();
        }
    }
    batched.record(&mut encoder).unwrap();
    ctx.queue().submit([encoder.finish()]);
    let got = engine::read_back_blocking(ctx, &gpu).unwrap();
    let twice = calls.repeated(2);
    if let Err(e) = compare_buffers(&twice.names(), &got, &twice.expected(), None) {
        panic!("prepared: {e}\n{}", calls.describe());
    }
}

/// Every DirectML operator in turn on the same three buffers, each reading what the one
/// before wrote (the output of one is an input of the next, in place included), in one
/// batch and as prepared calls, on u8 (every operator takes it) with padded and transposed
/// operands.
#[test]
fn a_batch_chaining_every_function_matches_the_calls_in_order() {
    let t = TensorDesc::new(DataType::U8, &[24, 40]);
    let padded = t.clone().with_strides(&[48, 1]);
    let transposed = t.clone().with_strides(&[1, 24]);
    let mut calls = Vec::new();
    for (k, &op) in DmlOp::ALL.iter().enumerate() {
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
        let calls = Calls::new(3, 4096, 61, calls.clone()).sparse_for_logical();
        run_batched(ctx, &calls);
        run_prepared(ctx, &calls);
    }
}

/// Independent calls of one kernel on the same bindings merge into one dispatch only when
/// their function is the same: the function is part of the pipeline.
#[test]
fn calls_of_different_functions_never_share_a_dispatch() {
    let t = TensorDesc::new(DataType::U32, &[256]);
    // Each call writes its own 1 KiB of buffer 2 from the same inputs.
    let calls = |ops: &[DmlOp]| -> Calls {
        let calls = ops
            .iter()
            .enumerate()
            .map(|(k, &op)| {
                let at = k as u64 * 1024;
                Call::same(op, t.clone(), [place(0, 0), place(1, 0), place(2, at)])
            })
            .collect();
        Calls::new(3, 8192, 62, calls)
    };
    let same = [DmlOp::BitAnd; 4];
    assert_eq!(run_batched(ctx(), &calls(&same)), 1, "like calls merge");
    let mixed = [DmlOp::BitAnd, DmlOp::BitAnd, DmlOp::BitOr, DmlOp::BitOr];
    assert_eq!(run_batched(ctx(), &calls(&mixed)), 2);
    let every = [
        DmlOp::BitXor,
        DmlOp::BitAnd,
        DmlOp::BitOr,
        DmlOp::BitNot,
        DmlOp::BitXor,
    ];
    assert_eq!(run_batched(ctx(), &calls(&every)), 5);
}

/// Sparse bytes for the calls' buffers, so that the logical functions see zero and nonzero
/// elements alike.
trait SparseForLogical {
    fn sparse_for_logical(self) -> Calls;
}

impl SparseForLogical for Calls {
    fn sparse_for_logical(mut self) -> Calls {
        for buffer in &mut self.buffers {
            for (i, byte) in buffer.iter_mut().enumerate() {
                if i % 3 != 0 {
                    *byte = 0;
                }
            }
        }
        self
    }
}

/// A one-input operator's operands, as the tests bind them.
enum Unary {
    Dml(DmlUnary),
    Ov(OvUnary),
}

impl Unary {
    fn any(&self) -> AnyOperator {
        match self {
            Unary::Dml(op) => op.clone().into(),
            Unary::Ov(op) => op.clone().into(),
        }
    }
}

/// After `warm_up`, no binding of a one-input operator compiles anything: apart, in place, and
/// input and output apart in one buffer, at two offsets.
#[test]
fn warm_up_covers_every_binding_of_a_one_input_operator() {
    type Make = fn(&Context) -> Unary;
    let subjects: [(&str, Make, u64); 4] = [
        (
            "BIT_NOT u16",
            |ctx| {
                Unary::Dml(
                    DmlUnary::new(
                        ctx,
                        &DmlUnaryDesc::packed(DmlUnaryOp::BitNot, DataType::U16, &[512]),
                    )
                    .unwrap(),
                )
            },
            1024,
        ),
        (
            "LOGICAL_NOT u8, padded rows",
            |ctx| {
                let t = TensorDesc::new(DataType::U8, &[16, 40]);
                Unary::Dml(
                    DmlUnary::new(
                        ctx,
                        &DmlUnaryDesc::new(
                            DmlUnaryOp::LogicalNot,
                            t.clone().with_strides(&[48, 1]),
                            t.with_strides(&[48, 1]),
                        ),
                    )
                    .unwrap(),
                )
            },
            768,
        ),
        (
            "BitwiseNot i32",
            |ctx| {
                Unary::Ov(
                    OvUnary::new(
                        ctx,
                        &OvUnaryDesc::new(OvUnaryOp::BitwiseNot, DataType::I32, &[64, 64]),
                    )
                    .unwrap(),
                )
            },
            64 * 64 * 4,
        ),
        (
            "LogicalNot bool",
            |ctx| {
                Unary::Ov(
                    OvUnary::new(
                        ctx,
                        &OvUnaryDesc::new(OvUnaryOp::LogicalNot, DataType::Bool, &[4096]),
                    )
                    .unwrap(),
                )
            },
            4096,
        ),
    ];
    for (name, make, bytes) in subjects {
        let ctx = Context::with_options(
            ctx().device().clone(),
            ctx().queue().clone(),
            &Default::default(),
        )
        .unwrap();
        let op = make(&ctx).any();
        assert!(op.warm_up().unwrap() > 0, "{name}: nothing to compile?");
        assert_eq!(op.warm_up().unwrap(), 0, "{name}: compiled twice");
        let before = ctx.recording_objects();
        for pattern in 0..6u64 {
            let at = 16 * (pattern / 3);
            let span = (bytes + at).div_ceil(256) * 256;
            let bufs: Vec<wgpu::Buffer> = (0..2)
                .map(|i| buffer(&ctx, &random_bytes(i, 2 * span as usize)))
                .collect();
            let t = |b, k: u64| TensorBinding::range(b, k * span + at, bytes);
            let bindings = match pattern % 3 {
                0 => Bindings::unary(t(&bufs[0], 0), t(&bufs[1], 0)),
                1 => Bindings::unary(t(&bufs[0], 0), t(&bufs[0], 0)),
                _ => Bindings::unary(t(&bufs[0], 0), t(&bufs[0], 1)),
            };
            let mut encoder = ctx.device().create_command_encoder(&Default::default());
            op.prepare(&bindings)
                .unwrap_or_else(|e| panic!("{name} {pattern}: {e}"))
                .record(&mut encoder)
                .unwrap();
            ctx.queue().submit([encoder.finish()]);
        }
        let after = ctx.recording_objects();
        assert_eq!(
            (after.pipelines, after.shader_modules),
            (before.pipelines, before.shader_modules),
            "{name}: a call compiled after warm-up"
        );
        ctx.wait().unwrap();
    }
}

/// On a destroyed device every operator of the family, and every one-call form, is
/// `device_lost`; a destroyed input buffer is `invalid_buffer` naming A for a NOT.
#[test]
fn family_calls_on_a_destroyed_device_or_buffer_are_typed_errors() {
    let ctx = Context::from_env().expect("a device of its own");
    let a = Tensor::from_slice(&ctx, &[8], &[0u32, 1, 2, 3, 0, 5, 0, 7]).unwrap();
    let b = Tensor::from_slice(&ctx, &[8], &[6u32; 8]).unwrap();
    let out = Tensor::zeros(&ctx, DataType::U32, &[8]).unwrap();
    let and = DmlBinary::new(
        &ctx,
        &DmlBinaryDesc::packed(DmlBinaryOp::BitAnd, DataType::U32, &[8]),
    )
    .unwrap();
    let not = DmlUnary::new(
        &ctx,
        &DmlUnaryDesc::packed(DmlUnaryOp::LogicalNot, DataType::U32, &[8]),
    )
    .unwrap();
    let binary = Bindings::new(a.binding(), b.binding(), out.binding());
    let unary = Bindings::unary(a.binding(), out.binding());
    and.run(&binary).unwrap();
    assert_eq!(out.to_vec::<u32>().unwrap(), [0, 0, 2, 2, 0, 4, 0, 6]);
    not.run(&unary).unwrap();
    assert_eq!(out.to_vec::<u32>().unwrap(), [1, 0, 0, 0, 1, 0, 1, 0]);

    // A destroyed input: named, nothing recorded.
    let doomed = Tensor::from_slice(&ctx, &[8], &[1u32; 8]).unwrap();
    doomed.buffer().destroy();
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    let e = not
        .record(
            &mut encoder,
            &Bindings::unary(doomed.binding(), out.binding()),
        )
        .unwrap_err();
    assert_eq!(e.rule(), "invalid_buffer", "{e}");
    assert!(e.to_string().contains("ATensor"), "{e}");

    ctx.device().destroy();
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    assert_eq!(rule(and.record(&mut encoder, &binary)), "device_lost");
    assert_eq!(rule(not.run(&unary)), "device_lost");
    assert_eq!(rule(ctx.bit_and(&a, &b)), "device_lost");
    assert_eq!(rule(ctx.bit_or_into(&a, &b, &out)), "device_lost");
    assert_eq!(rule(ctx.bit_not(&a)), "device_lost");
    assert_eq!(rule(ctx.logical_not_into(&a, &a)), "device_lost");
    assert_eq!(
        rule(ctx.bitwise_and(&a, &b, AutoBroadcast::Numpy)),
        "device_lost"
    );
    assert_eq!(rule(ctx.bitwise_not(&a)), "device_lost");
    let ov = OvUnary::new(
        &ctx,
        &OvUnaryDesc::new(OvUnaryOp::BitwiseNot, DataType::U32, &[8]),
    )
    .unwrap();
    assert_eq!(rule(ov.run(&unary)), "device_lost");
    let mut batch = ctx.batch();
    assert_eq!(rule(batch.push(&and, &binary)), "device_lost");
}

/// The DirectML operators own their flagged inputs: a NOT its one input, AND its B; the
/// caller's copies are overwritten after the operator is made and the results still come
/// from the bytes given at creation.
#[test]
fn family_operators_own_their_flagged_inputs() {
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

/// The binding rules of a one-input call, each refused with nothing written: B bound too,
/// the input left unbound, and an output that partly overlaps the input.
#[test]
fn one_input_calls_refuse_bad_bindings_and_write_nothing() {
    let ctx = ctx();
    let op = DmlUnary::new(
        ctx,
        &DmlUnaryDesc::packed(DmlUnaryOp::BitNot, DataType::U32, &[64]),
    )
    .unwrap();
    let bytes = random_bytes(71, 1024);
    let buf = buffer(ctx, &bytes);
    let at = |offset| TensorBinding::range(&buf, offset, 256);
    let cases: [(Bindings<'_>, &str); 5] = [
        (Bindings::new(at(0), at(256), at(512)), "extra_binding"),
        (
            Bindings {
                b: Input::Owned,
                ..Bindings::unary(at(0), at(512))
            },
            "extra_binding",
        ),
        (
            Bindings {
                a: Input::Absent,
                ..Bindings::unary(at(0), at(512))
            },
            "missing_binding",
        ),
        (Bindings::owned_input(at(512)), "owned_input_bound"),
        (Bindings::unary(at(0), at(128)), "partial_overlap"),
    ];
    for (bindings, want) in cases {
        let e = op.run(&bindings).unwrap_err();
        assert_eq!(e.rule(), want, "{e}");
        assert_eq!(ctx.read_buffer(&buf, 0, 1024).unwrap(), bytes, "{want}");
    }
    let e = op.run(&Bindings::new(at(0), at(256), at(512))).unwrap_err();
    assert_eq!(
        e,
        Error::ExtraBinding {
            operator: Operator::BitNot,
            tensor: gpu_xor::TensorName::B,
        }
    );
    // In place is the one overlap allowed.
    op.run(&Bindings::unary(at(0), at(0))).unwrap();
    let got = ctx.read_buffer(&buf, 0, 256).unwrap();
    let want: Vec<u8> = bytes[..256].iter().map(|b| !b).collect();
    assert_eq!(got, want);
}

/// The type tables, written out from the specifications, against every operator, type and
/// feature level: what validation accepts, and what it refuses with which rule.
#[test]
fn every_operator_takes_exactly_the_types_of_its_table() {
    use DataType::*;
    let levels = [
        FeatureLevel::Fl1_0,
        FeatureLevel::Fl2_0,
        FeatureLevel::Fl3_0,
        FeatureLevel::Fl4_1,
    ];
    // DirectML BIT_*: FL 3.0 u8, u16, u32; FL 4.1 the eleven DirectML types.
    let bitwise = |dt: DataType, fl: FeatureLevel| match dt {
        U8 | U16 | U32 => fl >= FeatureLevel::Fl3_0,
        Bool => false,
        _ => fl >= FeatureLevel::Fl4_1,
    };
    // DirectML LOGICAL_*: FL 1.0 u32; FL 2.0 u8 too; never another type.
    let logical = |dt: DataType, fl: FeatureLevel| match dt {
        U32 => true,
        U8 => fl >= FeatureLevel::Fl2_0,
        _ => false,
    };
    for dt in DataType::ALL {
        for fl in levels {
            // 4-D, which every level takes.
            let sizes = [2, 1, 3, 2];
            for op in DmlBinaryOp::ALL {
                let want = if op.function().logical {
                    logical(dt, fl)
                } else {
                    bitwise(dt, fl)
                };
                let got = DmlBinaryDesc::packed(op, dt, &sizes).validate(fl);
                match got {
                    Ok(()) => assert!(want, "{op:?} {dt} {fl:?} accepted"),
                    Err(e) => {
                        assert!(!want, "{op:?} {dt} {fl:?}: {e}");
                        assert_eq!(e.rule(), "unsupported_dtype");
                    }
                }
            }
            for op in DmlUnaryOp::ALL {
                let want = if op.function().logical {
                    logical(dt, fl)
                } else {
                    bitwise(dt, fl)
                };
                let got = DmlUnaryDesc::packed(op, dt, &sizes).validate(fl);
                assert_eq!(got.is_ok(), want, "{op:?} {dt} {fl:?}: {got:?}");
            }
        }
        // OpenVINO: Bitwise* integers and boolean; Logical* boolean.
        for op in OvBinaryOp::ALL {
            let want = if op.boolean_only() {
                dt == Bool
            } else {
                !dt.is_float()
            };
            let got = OvBinaryDesc::new(op, dt, &[2, 3], &[3]).validate();
            assert_eq!(got.is_ok(), want, "{op:?} {dt}: {got:?}");
            if let Err(e) = got {
                assert_eq!(e.rule(), "unsupported_dtype");
            }
        }
        for op in OvUnaryOp::ALL {
            let want = if op.boolean_only() {
                dt == Bool
            } else {
                !dt.is_float()
            };
            let got = OvUnaryDesc::new(op, dt, &[2, 3]).validate();
            assert_eq!(got.is_ok(), want, "{op:?} {dt}: {got:?}");
        }
    }
    // The DirectML logical operators take 4-D only below FL 3.0.
    for op in [DmlBinaryOp::LogicalAnd, DmlBinaryOp::LogicalOr] {
        let d = DmlBinaryDesc::packed(op, U32, &[2, 3]);
        assert_eq!(
            d.validate(FeatureLevel::Fl2_0).unwrap_err().rule(),
            "rank_out_of_range"
        );
        assert!(d.validate(FeatureLevel::Fl3_0).is_ok());
    }
    let d = DmlUnaryDesc::packed(DmlUnaryOp::LogicalNot, U8, &[5]);
    assert_eq!(
        d.validate(FeatureLevel::Fl2_0).unwrap_err().rule(),
        "rank_out_of_range"
    );
    // OpenVINO's message for a non-boolean Logical* operation.
    let e = OvBinaryDesc::new(OvBinaryOp::LogicalAnd, U8, &[2], &[2])
        .validate()
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("must have boolean element type but have element type u8"),
        "{e}"
    );
}

/// Every one-call form of the family against the reference, new output and `_into` (in
/// place too), on values that reach every truth value and bit pattern.
#[test]
fn every_one_call_form_matches_the_reference() {
    let ctx = ctx();
    let xs = [0u8, 1, 2, 0x80, 0xff, 0, 0x0f, 0x10];
    let ys = [0u8, 0, 3, 0x80, 0x0f, 9, 0xf0, 0];
    let a = Tensor::from_slice(ctx, &[2, 4], &xs).unwrap();
    let b = Tensor::from_slice(ctx, &[2, 4], &ys).unwrap();
    let f = |op: DmlBinaryOp| -> Vec<u8> {
        xs.iter()
            .zip(&ys)
            .map(|(&x, &y)| op.function().apply(x.into(), y.into(), 1) as u8)
            .collect()
    };
    type OneCall = fn(&Context, &Tensor, &Tensor) -> Result<Tensor, Error>;
    let calls: [(&str, OneCall, DmlBinaryOp); 4] = [
        ("bit_and", |c, a, b| c.bit_and(a, b), DmlBinaryOp::BitAnd),
        ("bit_or", |c, a, b| c.bit_or(a, b), DmlBinaryOp::BitOr),
        (
            "logical_and",
            |c, a, b| c.logical_and(a, b),
            DmlBinaryOp::LogicalAnd,
        ),
        (
            "logical_or",
            |c, a, b| c.logical_or(a, b),
            DmlBinaryOp::LogicalOr,
        ),
    ];
    for (name, call, op) in calls {
        let got = call(ctx, &a, &b).unwrap().to_vec::<u8>().unwrap();
        assert_eq!(got, f(op), "{name}");
        let out = Tensor::zeros(ctx, DataType::U8, &[2, 4]).unwrap();
        ctx.dml_binary_into(op, &a, &b, &out).unwrap();
        assert_eq!(out.to_vec::<u8>().unwrap(), f(op), "{name}_into");
    }
    let not: Vec<u8> = xs.iter().map(|x| !x).collect();
    let lnot: Vec<u8> = xs.iter().map(|&x| u8::from(x == 0)).collect();
    assert_eq!(ctx.bit_not(&a).unwrap().to_vec::<u8>().unwrap(), not);
    assert_eq!(ctx.logical_not(&a).unwrap().to_vec::<u8>().unwrap(), lnot);
    // In place: a = a & b, then a = !a.
    let c = Tensor::from_slice(ctx, &[2, 4], &xs).unwrap();
    ctx.bit_and_into(&c, &b, &c).unwrap();
    ctx.bit_not_into(&c, &c).unwrap();
    let want: Vec<u8> = f(DmlBinaryOp::BitAnd).iter().map(|v| !v).collect();
    assert_eq!(c.to_vec::<u8>().unwrap(), want);
    let c = Tensor::from_slice(ctx, &[2, 4], &xs).unwrap();
    ctx.logical_or_into(&b, &c, &c).unwrap();
    ctx.logical_not_into(&c, &c).unwrap();
    let want: Vec<u8> = f(DmlBinaryOp::LogicalOr).iter().map(|v| 1 - v).collect();
    assert_eq!(c.to_vec::<u8>().unwrap(), want);
    // LOGICAL_* refuse i8; OpenVINO's Logical* refuse u8.
    let i = Tensor::from_slice(ctx, &[2], &[1i8, 0]).unwrap();
    assert_eq!(rule(ctx.logical_and(&i, &i)), "unsupported_dtype");
    assert_eq!(
        rule(ctx.ov_binary(OvBinaryOp::LogicalOr, &a, &b, AutoBroadcast::Numpy)),
        "unsupported_dtype"
    );

    // OpenVINO: integers bit by bit, broadcast; booleans normalised (2 is true).
    let xi = Tensor::from_slice(ctx, &[2, 3], &[1i32, -2, 3, -4, 5, 0x7fff_ffff]).unwrap();
    let yi = Tensor::from_slice(ctx, &[3], &[-1i32, 6, 0]).unwrap();
    let and = ctx.bitwise_and(&xi, &yi, AutoBroadcast::Numpy).unwrap();
    assert_eq!(and.to_vec::<i32>().unwrap(), [1, 6, 0, -4, 4, 0]);
    let or = ctx.bitwise_or(&xi, &yi, AutoBroadcast::Numpy).unwrap();
    assert_eq!(or.to_vec::<i32>().unwrap(), [-1, -2, 3, -1, 7, 0x7fff_ffff]);
    ctx.bitwise_not_into(&xi, &xi).unwrap();
    assert_eq!(
        xi.to_vec::<i32>().unwrap(),
        [!1, !-2, !3, !-4, !5, !0x7fff_ffff]
    );
    let p = Tensor::from_bytes(ctx, DataType::Bool, &[4], &[0, 1, 2, 0x80]).unwrap();
    let q = Tensor::from_bools(ctx, &[1], &[true]).unwrap();
    let land = ctx
        .ov_binary(OvBinaryOp::LogicalAnd, &p, &q, AutoBroadcast::Numpy)
        .unwrap();
    assert_eq!(land.to_bytes().unwrap(), [0, 1, 1, 1]);
    let band = ctx.bitwise_and(&p, &q, AutoBroadcast::Numpy).unwrap();
    assert_eq!(band.to_bytes().unwrap(), [0, 1, 1, 1]);
    assert_eq!(
        ctx.bitwise_not(&p).unwrap().to_bytes().unwrap(),
        [1, 0, 0, 0]
    );
    let lxor = ctx
        .ov_binary(OvBinaryOp::LogicalXor, &p, &q, AutoBroadcast::Numpy)
        .unwrap();
    assert_eq!(lxor.to_bytes().unwrap(), [1, 0, 0, 0]);
    let out = Tensor::zeros(ctx, DataType::Bool, &[4]).unwrap();
    ctx.ov_unary_into(OvUnaryOp::LogicalNot, &p, &out).unwrap();
    assert_eq!(out.to_bytes().unwrap(), [1, 0, 0, 0]);
    // The output of an `_into` must have the input's shape and type.
    let wrong = Tensor::zeros(ctx, DataType::Bool, &[5]).unwrap();
    assert_eq!(
        rule(ctx.ov_unary_into(OvUnaryOp::LogicalNot, &p, &wrong)),
        "shape_inconsistent"
    );
}

/// OpenVINO's family operators on the suite's device: the compiled forms, prepared, on
/// broadcasts that reach the rows, shifted-rows and gather kernels.
#[test]
fn openvino_family_operators_broadcast_on_their_kernels() {
    let ctx = ctx();
    for (op, dt) in [
        (OvBinaryOp::BitwiseAnd, DataType::U16),
        (OvBinaryOp::BitwiseOr, DataType::I64),
        (OvBinaryOp::LogicalAnd, DataType::Bool),
        (OvBinaryOp::LogicalOr, DataType::Bool),
        (OvBinaryOp::LogicalXor, DataType::Bool),
    ] {
        for (a_shape, b_shape) in [
            (&[33, 130][..], &[130][..]),
            (&[33, 130][..], &[33, 1][..]),
            (&[4, 1, 9][..], &[5, 1][..]),
        ] {
            let case = gpu_xor_conformance::ov::OvCase::new(
                dt,
                a_shape,
                b_shape,
                AutoBroadcast::Numpy,
                81,
            )
            .with_op(gpu_xor_conformance::ov::OvOp::Binary(op));
            crate::common::CheckOv::check_on(&case, ctx);
        }
    }
    for op in OvUnaryOp::ALL {
        for dt in [DataType::Bool, DataType::U8, DataType::I64] {
            if op.boolean_only() && dt != DataType::Bool {
                continue;
            }
            let case =
                gpu_xor_conformance::ov::OvCase::new(dt, &[7, 33], &[1], AutoBroadcast::Numpy, 82)
                    .with_op(gpu_xor_conformance::ov::OvOp::Unary(op));
            crate::common::CheckOv::check_on(&case, ctx);
            let mut in_place = case.clone();
            in_place.out_on_a = true;
            crate::common::CheckOv::check_on(&in_place, ctx);
        }
    }
    // Compiled, prepared and recorded twice: NOT of NOT is the input.
    let x = Tensor::from_slice(ctx, &[100], &(0..100u16).collect::<Vec<_>>()).unwrap();
    let op = OvUnary::new(
        ctx,
        &OvUnaryDesc::new(OvUnaryOp::BitwiseNot, DataType::U16, &[100]),
    )
    .unwrap();
    let prepared = op
        .prepare(&Bindings::unary(x.binding(), x.binding()))
        .unwrap();
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    prepared.record(&mut encoder).unwrap();
    ctx.queue().submit([encoder.finish()]);
    assert_eq!(
        x.to_vec::<u16>().unwrap(),
        (0..100u16).map(|v| !v).collect::<Vec<_>>()
    );
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    prepared.record(&mut encoder).unwrap();
    ctx.queue().submit([encoder.finish()]);
    assert_eq!(x.to_vec::<u16>().unwrap(), (0..100u16).collect::<Vec<_>>());
    let _: &OvBinary = &OvBinary::new(
        ctx,
        &OvBinaryDesc::new(OvBinaryOp::BitwiseAnd, DataType::U8, &[2], &[2]),
    )
    .unwrap();
}

/// Random descriptions of every family operator, valid and not: validation and planning end
/// in `Ok` or a typed error, never a panic, and small valid ones run on the CPU reference.
mod fuzz {
    use super::*;
    use gpu_xor::inspect::Plan;

    fn any_type() -> impl Strategy<Value = DataType> {
        proptest::sample::select(DataType::ALL.to_vec())
    }

    fn dims() -> impl Strategy<Value = Vec<u32>> {
        proptest::collection::vec(
            prop_oneof![3 => 1u32..6, 1 => Just(0u32), 1 => Just(u32::MAX)],
            0..10,
        )
    }

    fn strides(rank: usize) -> impl Strategy<Value = Option<Vec<u32>>> {
        proptest::option::of(proptest::collection::vec(
            prop_oneof![3 => 0u32..8, 1 => Just(u32::MAX)],
            rank.saturating_sub(1)..=rank + 1,
        ))
    }

    fn tensor() -> impl Strategy<Value = TensorDesc> {
        (any_type(), dims())
            .prop_flat_map(|(dt, sizes)| {
                let rank = sizes.len();
                (Just(dt), Just(sizes), strides(rank), any::<bool>())
            })
            .prop_map(|(dt, sizes, strides, owned)| {
                let mut t = TensorDesc::new(dt, &sizes);
                if let Some(s) = strides {
                    t.strides = Some(s);
                }
                if owned {
                    t.flags = TensorFlags::OwnedByDml;
                }
                t
            })
    }

    fn level() -> impl Strategy<Value = FeatureLevel> {
        proptest::sample::select(vec![
            FeatureLevel::Fl1_0,
            FeatureLevel::Fl2_0,
            FeatureLevel::Fl3_0,
            FeatureLevel::Fl4_1,
        ])
    }

    fn shape() -> impl Strategy<Value = Vec<usize>> {
        proptest::collection::vec(
            prop_oneof![4 => 1usize..5, 1 => Just(0usize), 1 => Just(usize::MAX)],
            0..12,
        )
    }

    fn broadcast() -> impl Strategy<Value = AutoBroadcast> {
        prop_oneof![
            Just(AutoBroadcast::None),
            Just(AutoBroadcast::Numpy),
            (-3i64..12).prop_map(|axis| AutoBroadcast::Pdpd { axis }),
            Just(AutoBroadcast::Explicit),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

        #[test]
        fn dml_family_descriptions_never_panic(
            f in 0usize..6,
            u in 0usize..2,
            a in tensor(),
            b in tensor(),
            out in tensor(),
            same in any::<bool>(),
            fl in level(),
        ) {
            let (b, out) = if same { (a.clone(), a.clone()) } else { (b, out) };
            let binary = DmlBinaryDesc::new(DmlBinaryOp::ALL[f], a.clone(), b, out.clone());
            if let Ok(operands) = binary.operands(fl) {
                let _ = Plan::new(&operands);
            }
            let unary = DmlUnaryDesc::new(DmlUnaryOp::ALL[u], a, out);
            if let Ok(operands) = unary.operands(fl) {
                let plan = Plan::new(&operands);
                prop_assert_eq!(plan.function(), DmlUnaryOp::ALL[u].function());
            }
        }

        #[test]
        fn openvino_family_descriptions_never_panic(
            f in 0usize..6,
            u in 0usize..2,
            dt in any_type(),
            a in shape(),
            b in shape(),
            mode in broadcast(),
            seed in any::<u64>(),
        ) {
            let desc = OvBinaryDesc::new(OvBinaryOp::ALL[f], dt, &a, &b).with_broadcast(mode);
            if let Ok(operands) = desc.operands() {
                let _ = Plan::new(&operands);
                let small = |s: &[usize]| {
                    s.iter()
                        .try_fold(1usize, |n, &d| n.checked_mul(d))
                        .is_some_and(|n| n <= 4096)
                };
                let out_shape = desc.output_shape().unwrap();
                if small(&a) && small(&b) && small(&out_shape) {
                    let w = dt.size_in_bytes() as usize;
                    let bytes = |s: &[usize]| random_bytes(seed, s.iter().product::<usize>() * w);
                    let r = gpu_xor::reference::ov_binary(
                        OvBinaryOp::ALL[f], dt, &a, &bytes(&a), &b, &bytes(&b), mode,
                    );
                    prop_assert_eq!(r.map(|(shape, _)| shape), Ok(out_shape));
                }
            }
            let unary = OvUnaryDesc::new(OvUnaryOp::ALL[u], dt, &a);
            match unary.operands() {
                Ok(operands) => {
                    let _ = Plan::new(&operands);
                }
                Err(e) => prop_assert!(matches!(e.rule(), "unsupported_dtype" | "size_overflow"), "{e}"),
            }
        }
    }
}
