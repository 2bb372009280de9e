//! Faults outside the description rules: a destroyed device, destroyed buffers, allocations
//! past the device's limits, garbage in the environment. Each ends in a typed error (or, where
//! wgpu reports a fault only at the caller's own submit, in wgpu's report there), never in a
//! panic or a hang, for every operator of the operator table, one-input ones included.
//!
//! Every test that destroys something opens a device of its own: the suite's shared device
//! must stay alive for the other tests.

use gpu_xor::{
    AutoBroadcast, Bindings, BitXorDesc, Context, DataType, DmlBinary, DmlBinaryDesc, DmlBinaryOp,
    DmlUnary, DmlUnaryDesc, DmlUnaryOp, Error, OvBinary, OvBinaryDesc, OvBinaryOp, OvUnary,
    OvUnaryDesc, OvUnaryOp, OwnedInputs, Tensor, TensorBinding, TensorDesc, TensorName,
};
use gpu_xor_testkit::engine::AnyOperator;

use crate::common::{DIRECTML, OPENVINO, OperatorExt, buffer, ctx, random_bytes, takes};

/// An operator of the family on `ctx`: BIT_AND (`"and"`), BIT_NOT (`"not"`), OpenVINO's
/// BitwiseOr (`"ov or"`) or LogicalNot on bool (`"ov not"`), packed, of `count` elements of
/// `dt` (`"ov not"` ignores `dt`).
fn family(ctx: &Context, which: &str, dt: DataType, count: u32) -> AnyOperator {
    let n = [count];
    let shape = [count as usize];
    match which {
        "and" => DmlBinary::new(ctx, &DmlBinaryDesc::packed(DmlBinaryOp::BitAnd, dt, &n))
            .unwrap()
            .into(),
        "not" => DmlUnary::new(ctx, &DmlUnaryDesc::packed(DmlUnaryOp::BitNot, dt, &n))
            .unwrap()
            .into(),
        "ov or" => OvBinary::new(
            ctx,
            &OvBinaryDesc::new(OvBinaryOp::BitwiseOr, dt, &shape, &shape),
        )
        .unwrap()
        .into(),
        "ov not" => OvUnary::new(
            ctx,
            &OvUnaryDesc::new(OvUnaryOp::LogicalNot, DataType::Bool, &shape),
        )
        .unwrap()
        .into(),
        _ => unreachable!("{which}"),
    }
}

/// Every operator of the operator table on `ctx`, packed: the DirectML ones that take `dt`
/// on `count` elements of it, the OpenVINO ones that take `dt` on `count` elements of it,
/// or, where they take booleans only, on as many `bool` elements as fill the same bytes.
fn every_operator(ctx: &Context, dt: DataType, count: u32) -> Vec<AnyOperator> {
    let t = TensorDesc::new(dt, &[count]);
    let mut ops: Vec<AnyOperator> = DIRECTML
        .into_iter()
        .filter(|&op| takes(op, dt))
        .map(|op| {
            gpu_xor_testkit::dml::operator(
                op,
                ctx,
                [t.clone(), t.clone(), t.clone()],
                &OwnedInputs::default(),
            )
            .unwrap_or_else(|e| panic!("{op:?} {dt}: {e}"))
        })
        .collect();
    for op in OPENVINO
        .into_iter()
        .filter(|op| op.takes(dt) || op.boolean_only())
    {
        let (dt, len) = if op.boolean_only() {
            (DataType::Bool, (count * dt.size_in_bytes()) as usize)
        } else {
            (dt, count as usize)
        };
        let shape = [len];
        ops.push(
            gpu_xor_testkit::ov::operator(op, ctx, dt, &shape, &shape, AutoBroadcast::Numpy)
                .unwrap_or_else(|e| panic!("{op:?} {dt}: {e}")),
        );
    }
    ops
}

/// Whether `op` takes one input.
fn unary(op: &AnyOperator) -> bool {
    matches!(op, AnyOperator::DmlUnary(_) | AnyOperator::OvUnary(_))
}

/// The bindings of `op` on `x`, `y` (B, unbound for a one-input operator) and `out`.
fn bind<'a>(
    op: &AnyOperator,
    x: &'a wgpu::Buffer,
    y: &'a wgpu::Buffer,
    out: &'a wgpu::Buffer,
) -> Bindings<'a> {
    let (x, y, out) = (
        TensorBinding::new(x),
        TensorBinding::new(y),
        TensorBinding::new(out),
    );
    if unary(op) {
        Bindings::unary(x, out)
    } else {
        Bindings::new(x, y, out)
    }
}

/// A context on a device of its own.
fn fresh() -> Context {
    Context::from_env().expect("a device of its own")
}

/// Contexts on devices of their own, all from one adapter of one instance, the first of
/// which may not have buffers past `max_buffer_size` bytes.
fn devices(count: usize, max_buffer_size: Option<u64>) -> Vec<Context> {
    pollster::block_on(async {
        let adapter = crate::common::suite_adapter().await;
        let mut contexts = Vec::new();
        for k in 0..count {
            let base = adapter.limits();
            let max = max_buffer_size
                .filter(|_| k == 0)
                .unwrap_or(base.max_buffer_size);
            let (device, queue) = adapter
                .request_device(&wgpu::DeviceDescriptor {
                    label: Some("gpu-xor faults"),
                    required_limits: wgpu::Limits {
                        max_buffer_size: max,
                        max_storage_buffer_binding_size: base
                            .max_storage_buffer_binding_size
                            .min(max),
                        ..base
                    },
                    ..Default::default()
                })
                .await
                .expect("a device");
            contexts.push(Context::new(device, queue));
        }
        contexts
    })
}

/// A context on a device of its own whose buffers may not exceed `max_buffer_size` bytes.
fn limited(max_buffer_size: u64) -> Context {
    devices(1, Some(max_buffer_size)).remove(0)
}

fn rule<T: std::fmt::Debug>(r: Result<T, Error>) -> &'static str {
    match r {
        Ok(v) => panic!("expected an error, got {v:?}"),
        Err(e) => {
            // Every message is one readable line or more, never empty.
            assert!(!e.to_string().is_empty());
            e.rule()
        }
    }
}

fn u32_bytes(words: &[u32]) -> Vec<u8> {
    bytemuck::cast_slice(words).to_vec()
}

#[test]
fn every_call_on_a_destroyed_device_is_device_lost() {
    // A context on a device it did not make (no device-lost callback of its own): the loss is
    // found by checking the device, not told by wgpu.
    let owner = fresh();
    let ctx = Context::new(owner.device().clone(), owner.queue().clone());
    let a = Tensor::from_slice(&ctx, &[8], &[1u32; 8]).unwrap();
    let b = Tensor::from_slice(&ctx, &[8], &[6u32; 8]).unwrap();
    let out = Tensor::zeros(&ctx, DataType::U32, &[8]).unwrap();
    let op = DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::U32, &[8])).unwrap();
    let bindings = Bindings::new(a.binding(), b.binding(), out.binding());
    op.run(&bindings).unwrap();
    assert_eq!(out.to_vec::<u32>().unwrap(), [7; 8]);
    // The family, each run once before the loss.
    let ops: Vec<AnyOperator> = ["and", "not", "ov or"]
        .map(|w| family(&ctx, w, DataType::U32, 8))
        .into();
    for (op, want) in ops.iter().zip([0, !1, 7]) {
        op.run(&bind(op, a.buffer(), b.buffer(), out.buffer()))
            .unwrap();
        assert_eq!(out.to_vec::<u32>().unwrap(), [want; 8], "{op:?}");
    }
    // AND and LOGICAL_NOT on values with zeros give their exact results.
    let z = Tensor::from_slice(&ctx, &[8], &[0u32, 1, 2, 3, 0, 5, 0, 7]).unwrap();
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
    and.run(&Bindings::new(z.binding(), b.binding(), out.binding()))
        .unwrap();
    assert_eq!(out.to_vec::<u32>().unwrap(), [0, 0, 2, 2, 0, 4, 0, 6]);
    not.run(&Bindings::unary(z.binding(), out.binding()))
        .unwrap();
    assert_eq!(out.to_vec::<u32>().unwrap(), [1, 0, 0, 0, 1, 0, 1, 0]);
    // Every operator of the table, each run once before the loss.
    let table = every_operator(&ctx, DataType::U32, 8);
    for op in &table {
        op.run(&bind(op, a.buffer(), b.buffer(), out.buffer()))
            .unwrap_or_else(|e| panic!("{op:?}: {e}"));
    }
    // Boolean tensors for the one-call forms of the operations that take booleans only.
    let p = Tensor::from_bools(&ctx, &[4], &[true, false, true, true]).unwrap();
    let q = Tensor::from_bools(&ctx, &[4], &[true, true, false, false]).unwrap();

    ctx.device().destroy();

    // Before anything has looked at the device, a push makes no wgpu call (its pipeline is
    // cached) and cannot know; recording the batch finds the loss.
    let mut batch = ctx.batch();
    batch.push(&op, &bindings).unwrap();
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    assert_eq!(rule(batch.record(&mut encoder)), "device_lost");
    // From then on the loss is known, and a push reports it too.
    assert_eq!(rule(ctx.batch().push(&op, &bindings)), "device_lost");

    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    assert_eq!(rule(op.record(&mut encoder, &bindings)), "device_lost");
    assert_eq!(rule(op.run(&bindings)), "device_lost");
    assert_eq!(rule(out.to_vec::<u32>()), "device_lost");
    assert_eq!(rule(out.to_bytes()), "device_lost");
    assert_eq!(rule(ctx.read_buffer(out.buffer(), 0, 32)), "device_lost");
    assert_eq!(
        rule(pollster::block_on(ctx.read_buffer_async(
            out.buffer(),
            0,
            32
        ))),
        "device_lost"
    );
    assert_eq!(rule(Tensor::zeros(&ctx, DataType::U8, &[4])), "device_lost");
    assert_eq!(
        rule(Tensor::from_slice(&ctx, &[4], &[1u16, 2, 3, 4])),
        "device_lost"
    );
    assert_eq!(
        rule(Tensor::from_bytes(&ctx, DataType::I8, &[2], &[1, 2])),
        "device_lost"
    );
    assert_eq!(rule(Tensor::from_bools(&ctx, &[1], &[true])), "device_lost");
    assert_eq!(rule(ctx.bit_xor(&a, &b)), "device_lost");
    assert_eq!(rule(ctx.logical_xor(&a, &b)), "device_lost");
    assert_eq!(
        rule(ctx.bitwise_xor(&a, &b, AutoBroadcast::Numpy)),
        "device_lost"
    );
    assert_eq!(rule(ctx.bit_and(&a, &b)), "device_lost");
    assert_eq!(rule(ctx.logical_or_into(&a, &b, &out)), "device_lost");
    assert_eq!(rule(ctx.bit_not(&a)), "device_lost");
    assert_eq!(rule(ctx.logical_not_into(&a, &out)), "device_lost");
    assert_eq!(
        rule(ctx.bitwise_or(&a, &b, AutoBroadcast::Numpy)),
        "device_lost"
    );
    assert_eq!(rule(ctx.bitwise_not_into(&a, &a)), "device_lost");
    assert_eq!(rule(ctx.bit_or_into(&a, &b, &out)), "device_lost");
    assert_eq!(rule(ctx.logical_not_into(&a, &a)), "device_lost");
    assert_eq!(
        rule(ctx.bitwise_and(&a, &b, AutoBroadcast::Numpy)),
        "device_lost"
    );
    assert_eq!(rule(ctx.bitwise_not(&a)), "device_lost");
    // The one-call forms of every operator of the table, new output and in place.
    for op in DmlBinaryOp::ALL {
        assert_eq!(rule(ctx.dml_binary(op, &a, &b)), "device_lost", "{op:?}");
        assert_eq!(
            rule(ctx.dml_binary_into(op, &a, &b, &a)),
            "device_lost",
            "{op:?}"
        );
    }
    for op in DmlUnaryOp::ALL {
        assert_eq!(rule(ctx.dml_unary(op, &a)), "device_lost", "{op:?}");
        assert_eq!(
            rule(ctx.dml_unary_into(op, &a, &a)),
            "device_lost",
            "{op:?}"
        );
    }
    for op in OvBinaryOp::ALL {
        let (x, y) = if op.boolean_only() {
            (&p, &q)
        } else {
            (&a, &b)
        };
        assert_eq!(
            rule(ctx.ov_binary(op, x, y, AutoBroadcast::Numpy)),
            "device_lost",
            "{op:?}"
        );
    }
    for op in OvUnaryOp::ALL {
        let x = if op.boolean_only() { &p } else { &a };
        assert_eq!(rule(ctx.ov_unary(op, x)), "device_lost", "{op:?}");
        assert_eq!(rule(ctx.ov_unary_into(op, x, x)), "device_lost", "{op:?}");
    }
    // Every operator of the table: recorded, run, prepared, pushed into a batch.
    for op in &table {
        let bindings = bind(op, a.buffer(), b.buffer(), out.buffer());
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        assert_eq!(
            rule(op.record(&mut encoder, &bindings)),
            "device_lost",
            "{op:?}"
        );
        assert_eq!(rule(op.run(&bindings)), "device_lost", "{op:?}");
        assert_eq!(rule(op.prepare(&bindings)), "device_lost", "{op:?}");
        assert_eq!(
            rule(op.push(&mut ctx.batch(), &bindings)),
            "device_lost",
            "{op:?}"
        );
    }
    assert_eq!(rule(ctx.wait()), "device_lost");
    // Validating a description makes no wgpu call: it still succeeds.
    DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::U16, &[8])).unwrap();
    // A context made on the device after its loss does not panic, and finds the loss.
    let late = Context::new(ctx.device().clone(), ctx.queue().clone());
    assert_eq!(
        rule(Tensor::zeros(&late, DataType::U8, &[4])),
        "device_lost"
    );
    let late_op = DmlBinary::new(&late, &BitXorDesc::packed(DataType::U32, &[8])).unwrap();
    assert_eq!(rule(late_op.run(&bindings)), "device_lost");
    // A new pipeline on the lost device does not panic either.
    let op16 = DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::U16, &[16])).unwrap();
    assert_eq!(rule(op16.run(&bindings)), "device_lost");
    // Every operator of the table made after the loss: on u16 (pipelines never compiled
    // here) and on u32.
    for (dt, count) in [(DataType::U16, 16), (DataType::U32, 8)] {
        for op in every_operator(&ctx, dt, count) {
            let bindings = bind(&op, a.buffer(), b.buffer(), out.buffer());
            assert_eq!(rule(op.warm_up()), "device_lost", "{op:?}");
            assert_eq!(rule(op.run(&bindings)), "device_lost", "{op:?}");
        }
    }
}

#[test]
fn a_context_from_env_reports_wgpus_reason_for_the_loss() {
    let ctx = fresh();
    let t = Tensor::from_slice(&ctx, &[4], &[1u8, 2, 3, 4]).unwrap();
    ctx.device().destroy();
    // The first poll runs the device-lost callback that `from_env` installed.
    let e = ctx.wait().unwrap_err();
    assert!(
        matches!(&e, Error::DeviceLost(why) if why.contains("destroyed")),
        "{e}"
    );
    assert_eq!(rule(t.to_vec::<u8>()), "device_lost");
}

#[test]
fn a_lost_device_fails_every_thread_without_a_hang() {
    let owner = fresh();
    let ctx = Context::new(owner.device().clone(), owner.queue().clone());
    // XOR and three of the family, one a thread.
    let ops: Vec<AnyOperator> = vec![
        DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::U8, &[64]))
            .unwrap()
            .into(),
        family(&ctx, "and", DataType::U8, 64),
        family(&ctx, "not", DataType::U8, 64),
        family(&ctx, "ov not", DataType::U8, 64),
    ];
    let tensors: Vec<Tensor> = (0..3)
        .map(|k| Tensor::from_slice(&ctx, &[64], &[k as u8; 64]).unwrap())
        .collect();
    let (tx, rx) = std::sync::mpsc::channel();
    let workers: Vec<_> = ops
        .iter()
        .map(|op| {
            let (ctx, op, tx) = (ctx.clone(), op.clone(), tx.clone());
            let bufs: Vec<wgpu::Buffer> = tensors.iter().map(|t| t.buffer().clone()).collect();
            std::thread::spawn(move || {
                let bindings = bind(&op, &bufs[0], &bufs[1], &bufs[2]);
                // Run until the device is gone; every result is Ok or DeviceLost.
                for _ in 0..10_000 {
                    match op
                        .run(&bindings)
                        .and_then(|_| ctx.read_buffer(&bufs[2], 0, 64))
                    {
                        Ok(_) => {}
                        Err(e) => {
                            tx.send(e.rule()).unwrap();
                            return;
                        }
                    }
                }
                tx.send("never lost").unwrap();
            })
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(50));
    ctx.device().destroy();
    for _ in 0..workers.len() {
        let got = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("a worker hung on the destroyed device");
        assert_eq!(got, "device_lost");
    }
    for w in workers {
        w.join().unwrap();
    }
}

#[test]
fn a_destroyed_buffer_is_invalid_buffer_naming_its_tensor() {
    let ctx = fresh();
    let ops = every_operator(&ctx, DataType::U32, 8);
    for (op, (k, name)) in ops.iter().flat_map(|op| {
        [TensorName::A, TensorName::B, TensorName::Output]
            .into_iter()
            .enumerate()
            // A one-input operator binds no B.
            .filter(|&(k, _)| k != 1 || !unary(op))
            .map(move |kn| (op, kn))
    }) {
        let images: Vec<Vec<u8>> = (0..3).map(|i| random_bytes(i + 10, 32)).collect();
        let bufs: Vec<wgpu::Buffer> = images.iter().map(|b| buffer(&ctx, b)).collect();
        let bindings = bind(op, &bufs[0], &bufs[1], &bufs[2]);
        bufs[k].destroy();

        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        let e = op.record(&mut encoder, &bindings).unwrap_err();
        assert_eq!(
            e,
            Error::InvalidBuffer {
                tensor: Some(name),
                reason: "Buffer with 'test' label has been destroyed".to_string()
            },
            "{op:?}"
        );
        assert!(e.to_string().contains(&name.to_string()), "{e}");
        // Nothing was recorded: the encoder submits cleanly.
        let scope = ctx.device().push_error_scope(wgpu::ErrorFilter::Validation);
        ctx.queue().submit([encoder.finish()]);
        assert!(pollster::block_on(scope.pop()).is_none());

        let e = op.run(&bindings).unwrap_err();
        assert!(
            matches!(e, Error::InvalidBuffer { tensor: Some(t), .. } if t == name),
            "{e}"
        );
        // A batch does not know tensor names; it names the reason.
        let mut batch = ctx.batch();
        op.push(&mut batch, &bindings).unwrap();
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        let e = batch.record(&mut encoder).unwrap_err();
        assert!(
            matches!(&e, Error::InvalidBuffer { tensor: None, reason } if reason.contains("destroyed")),
            "{e}"
        );
        // Reading it back is refused at the copy's submission.
        let e = ctx.read_buffer(&bufs[k], 0, 32).unwrap_err();
        assert!(
            matches!(&e, Error::InvalidBuffer { tensor: None, reason } if reason.contains("destroyed")),
            "{e}"
        );
        assert_eq!(
            rule(pollster::block_on(ctx.read_buffer_async(&bufs[k], 0, 32))),
            "invalid_buffer"
        );
        // The other buffers kept every byte.
        for i in (0..3).filter(|&i| i != k) {
            assert_eq!(ctx.read_buffer(&bufs[i], 0, 32).unwrap(), images[i]);
        }
    }
    // The device is fine afterwards.
    let a = Tensor::from_slice(&ctx, &[8], &[3u32; 8]).unwrap();
    let b = Tensor::from_slice(&ctx, &[8], &[5u32; 8]).unwrap();
    assert_eq!(
        ctx.bit_xor(&a, &b).unwrap().to_vec::<u32>().unwrap(),
        [6; 8]
    );
}

#[test]
fn a_destroyed_tensor_buffer_fails_read_back_and_the_convenience_calls() {
    let ctx = fresh();
    let a = Tensor::from_slice(&ctx, &[4], &[1u32, 2, 3, 4]).unwrap();
    let b = Tensor::from_slice(&ctx, &[4], &[4u32, 3, 2, 1]).unwrap();
    b.buffer().destroy();
    assert_eq!(rule(b.to_vec::<u32>()), "invalid_buffer");
    let e = ctx.bit_xor(&a, &b).unwrap_err();
    assert!(
        matches!(
            e,
            Error::InvalidBuffer {
                tensor: Some(TensorName::B),
                ..
            }
        ),
        "{e}"
    );
    // The family's calls name the destroyed tensor too: B of an AND, the one input of a NOT.
    let named = |r: Result<Tensor, Error>| match r {
        Err(Error::InvalidBuffer { tensor, .. }) => tensor,
        other => panic!("expected invalid_buffer, got {other:?}"),
    };
    assert_eq!(named(ctx.bit_and(&a, &b)), Some(TensorName::B));
    assert_eq!(
        named(ctx.bitwise_or(&a, &b, AutoBroadcast::Numpy)),
        Some(TensorName::B)
    );
    assert_eq!(named(ctx.bit_not(&b)), Some(TensorName::A));
    assert_eq!(named(ctx.bitwise_not(&b)), Some(TensorName::A));
    let e = ctx.logical_not_into(&a, &b).unwrap_err();
    assert!(
        matches!(
            e,
            Error::InvalidBuffer {
                tensor: Some(TensorName::Output),
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(a.to_vec::<u32>().unwrap(), [1, 2, 3, 4]);
}

#[test]
fn a_buffer_destroyed_after_record_is_reported_at_the_callers_submit() {
    // The caller's duty: wgpu checks a destroyed buffer again at submission, and a submit
    // belongs to the caller. wgpu reports it to the caller's error scope (or the device's
    // uncaptured-error handler), and nothing runs.
    let ctx = fresh();
    let op = DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::U8, &[16])).unwrap();
    let bufs: Vec<wgpu::Buffer> = (0..3).map(|i| buffer(&ctx, &random_bytes(i, 16))).collect();
    let before = ctx.read_buffer(&bufs[2], 0, 16).unwrap();
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    op.record(
        &mut encoder,
        &Bindings::new(
            TensorBinding::new(&bufs[0]),
            TensorBinding::new(&bufs[1]),
            TensorBinding::new(&bufs[2]),
        ),
    )
    .unwrap();
    bufs[0].destroy();
    let scope = ctx.device().push_error_scope(wgpu::ErrorFilter::Validation);
    ctx.queue().submit([encoder.finish()]);
    let e = pollster::block_on(scope.pop()).expect("wgpu refuses the submission");
    assert!(e.to_string().contains("destroyed"), "{e}");
    ctx.wait().unwrap();
    assert_eq!(ctx.read_buffer(&bufs[2], 0, 16).unwrap(), before);
}

#[test]
fn a_mapped_buffer_is_refused_at_run_without_a_panic() {
    let ctx = fresh();
    let op = DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::U32, &[4])).unwrap();
    let a = buffer(&ctx, &u32_bytes(&[1, 2, 3, 4]));
    let b = buffer(&ctx, &u32_bytes(&[1, 1, 1, 1]));
    // Still mapped from its creation.
    let out = ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("mapped"),
        size: 16,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: true,
    });
    let e = op
        .run(&Bindings::new(
            TensorBinding::new(&a),
            TensorBinding::new(&b),
            TensorBinding::new(&out),
        ))
        .unwrap_err();
    assert_eq!(
        e,
        Error::InvalidBuffer {
            tensor: Some(TensorName::Output),
            reason: "it is mapped".to_string()
        }
    );
    // A NOT into it, and a NOT of it.
    let not = family(&ctx, "not", DataType::U32, 4);
    for (bindings, tensor) in [
        (bind(&not, &a, &b, &out), TensorName::Output),
        (bind(&not, &out, &b, &a), TensorName::A),
    ] {
        let e = not.run(&bindings).unwrap_err();
        assert_eq!(
            e,
            Error::InvalidBuffer {
                tensor: Some(tensor),
                reason: "it is mapped".to_string()
            }
        );
    }
    assert_eq!(
        ctx.read_buffer(&a, 0, 16).unwrap(),
        u32_bytes(&[1, 2, 3, 4])
    );
    let e = ctx.read_buffer(&out, 0, 16).unwrap_err();
    assert_eq!(e.rule(), "invalid_buffer", "{e}");
    out.unmap();
    assert_eq!(ctx.read_buffer(&out, 0, 16).unwrap(), [0; 16]);
}

#[test]
fn allocations_past_max_buffer_size_are_buffer_too_large() {
    const LIMIT: u64 = 1 << 20;
    let ctx = limited(LIMIT);
    assert_eq!(ctx.device().limits().max_buffer_size, LIMIT);
    let too_large = |r: Result<Tensor, Error>| match r {
        Err(Error::BufferTooLarge { bytes, limit }) => {
            assert_eq!(limit, LIMIT);
            assert!(bytes > LIMIT);
        }
        other => panic!("expected buffer_too_large, got {other:?}"),
    };
    too_large(Tensor::zeros(
        &ctx,
        DataType::U32,
        &[(LIMIT / 4) as usize + 1],
    ));
    too_large(Tensor::zeros(&ctx, DataType::U64, &[1 << 20, 1 << 20]));
    too_large(Tensor::from_slice(
        &ctx,
        &[LIMIT as usize + 1],
        &vec![0u8; LIMIT as usize + 1],
    ));
    // At the limit it works.
    let full = Tensor::zeros(&ctx, DataType::U8, &[LIMIT as usize]).unwrap();
    assert_eq!(full.element_count() as u64, LIMIT);
    // A broadcast whose output is past the limit: the inputs are small, the output is
    // refused before anything is allocated.
    let col = Tensor::from_slice(&ctx, &[2048, 1], &vec![1u8; 2048]).unwrap();
    let row = Tensor::from_slice(&ctx, &[1, 2048], &vec![2u8; 2048]).unwrap();
    too_large(ctx.bitwise_xor(&col, &row, AutoBroadcast::Numpy));
    too_large(ctx.bitwise_and(&col, &row, AutoBroadcast::Numpy));
    too_large(ctx.bitwise_or(&col, &row, AutoBroadcast::Numpy));
    // A DirectML call on inputs at the limit needs an output at the limit: fine.
    let ones = Tensor::from_slice(&ctx, &[LIMIT as usize], &vec![1u8; LIMIT as usize]).unwrap();
    let out = ctx.bit_xor(&ones, &full).unwrap();
    assert!(out.to_vec::<u8>().unwrap().iter().all(|&x| x == 1));
    drop(out);
    let out = ctx.bit_not(&ones).unwrap();
    assert!(out.to_vec::<u8>().unwrap().iter().all(|&x| x == 0xfe));
}

#[test]
fn a_huge_broadcast_output_on_the_shared_device_is_refused_without_allocating() {
    // 2^32 u64 elements (32 GiB) from two 512 KiB inputs.
    let ctx = ctx();
    let col = Tensor::from_slice(ctx, &[65536, 1], &vec![1u64; 65536]).unwrap();
    let row = Tensor::from_slice(ctx, &[1, 65536], &vec![2u64; 65536]).unwrap();
    let e = ctx
        .bitwise_xor(&col, &row, AutoBroadcast::Numpy)
        .unwrap_err();
    assert_eq!(e.rule(), "buffer_too_large", "{e}");
}

/// The variable that tells [`from_env_child_reports_invalid_option`] it runs as the child, and
/// which variable it must see named.
const CHILD: &str = "GPU_XOR_FAULTS_CHILD";

/// Runs only as the child of [`from_env_refuses_garbage_variables_in_a_child_process`]:
/// `Context::from_env` must refuse the garbage variable with `invalid_option` naming it.
#[test]
fn from_env_child_reports_invalid_option() {
    let Ok(expected) = std::env::var(CHILD) else {
        return;
    };
    let e = Context::from_env().expect_err("garbage in the environment must be refused");
    match &e {
        Error::InvalidOption { name, .. } => assert_eq!(*name, expected, "{e}"),
        other => panic!("expected invalid_option for {expected}, got {other:?}"),
    }
    println!("child refused: {e}");
}

#[test]
fn from_env_refuses_garbage_variables_in_a_child_process() {
    let exe = std::env::current_exe().expect("the test binary");
    for (var, value) in [
        ("GPU_XOR_MAX_WINDOW", "-4096"),
        ("GPU_XOR_MAX_WINDOW", "0"),
        ("GPU_XOR_LIMITS", "lots"),
        ("WGPU_BACKEND", "vulkan,vulkn"),
        ("WGPU_POWER_PREF", "fastest"),
    ] {
        let out = std::process::Command::new(&exe)
            .args([
                "--exact",
                "faults::from_env_child_reports_invalid_option",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD, var)
            .env(var, value)
            .output()
            .expect("the child runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && stdout.contains("1 passed") && stdout.contains("child refused"),
            "{var}={value:?}: the child failed\n{stdout}\n{stderr}"
        );
    }
}

#[test]
fn a_buffer_of_another_device_is_invalid_buffer() {
    // Two devices of one instance: wgpu tells buffers apart by an id that is unique within an
    // instance only (see `TensorBinding`).
    let mut two = devices(2, None);
    let (ctx, other) = (two.remove(0), two.remove(0));
    let op = DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::U8, &[16])).unwrap();
    let mine: Vec<wgpu::Buffer> = (0..2).map(|i| buffer(&ctx, &random_bytes(i, 16))).collect();
    let foreign = buffer(&other, &random_bytes(9, 16));
    let bindings = Bindings::new(
        TensorBinding::new(&mine[0]),
        TensorBinding::new(&foreign),
        TensorBinding::new(&mine[1]),
    );
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    let e = op.record(&mut encoder, &bindings).unwrap_err();
    assert!(
        matches!(
            e,
            Error::InvalidBuffer {
                tensor: Some(TensorName::B),
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(rule(op.run(&bindings)), "invalid_buffer");
    // A NOT of it names its one input.
    let not = family(&ctx, "not", DataType::U8, 16);
    let e = not
        .run(&bind(&not, &foreign, &mine[0], &mine[1]))
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::InvalidBuffer {
                tensor: Some(TensorName::A),
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(rule(ctx.read_buffer(&foreign, 0, 16)), "invalid_buffer");
    // Both devices carry on.
    assert_eq!(
        ctx.read_buffer(&mine[1], 0, 16).unwrap(),
        random_bytes(1, 16)
    );
    assert_eq!(
        other.read_buffer(&foreign, 0, 16).unwrap(),
        random_bytes(9, 16)
    );
}

#[test]
fn waiting_makes_no_buffer_and_finds_a_loss_by_itself() {
    // A context on a device it did not make: no device-lost callback tells it of the loss.
    let owner = fresh();
    let ctx = Context::new(owner.device().clone(), owner.queue().clone());
    let t = Tensor::from_slice(&ctx, &[4], &[1u8, 2, 3, 4]).unwrap();
    ctx.wait().unwrap();
    // The first wait makes the buffer every wait maps to check the device; no wait after
    // it makes another.
    let checks = || ctx.recording_objects().device_check_buffers;
    let before = checks();
    for _ in 0..100 {
        ctx.wait().unwrap();
        pollster::block_on(ctx.wait_async()).unwrap();
    }
    assert!(
        checks() <= before + 1,
        "waits made {} buffers",
        checks() - before
    );
    ctx.device().destroy();
    // The first thing to look at the device after its loss is a wait.
    assert_eq!(rule(ctx.wait()), "device_lost");
    assert_eq!(rule(pollster::block_on(ctx.wait_async())), "device_lost");
    assert_eq!(rule(t.to_vec::<u8>()), "device_lost");
}
