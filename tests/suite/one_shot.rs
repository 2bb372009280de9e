//! One-shot calls (`record`, `submit`, `run`, the one-call forms, a `Batch` recorded once, a
//! fused expression's `record` and `run`): after their first few, a loop of them makes no
//! buffer and no bind group; their records go back to the arena only once the GPU has run
//! them (or their encoder was dropped unsubmitted); a destroyed buffer's kept bind groups are
//! never used again; and what the context keeps is bounded and can be dropped.
//!
//! Each test runs on a device of its own, so that the counts are the test's alone.

use gpu_xor::{
    Bindings, BitXorDesc, Context, DataType, DmlBinary, Error, Expr, ExprBindings, Fused, Operator,
    RecordingObjects, Tensor, TensorBinding, TensorDesc, TensorName,
};

use crate::common::{buffer, random_bytes};

fn own_context() -> Context {
    Context::from_env().expect("an adapter")
}

fn read(ctx: &Context, b: &wgpu::Buffer) -> Vec<u8> {
    ctx.read_buffer(b, 0, b.size()).unwrap()
}

fn xor(a: &[u8], b: &[u8]) -> Vec<u8> {
    a.iter().zip(b).map(|(x, y)| x ^ y).collect()
}

/// Metadata buffers and bind groups made between two counts.
fn made(before: RecordingObjects, after: RecordingObjects) -> (u64, u64) {
    (
        after.buffers - before.buffers,
        after.bind_groups - before.bind_groups,
    )
}

/// At most 4 metadata buffers and 4 bind groups made in a loop's first round, none in a later
/// one.
fn assert_made(round: usize, (buffers, groups): (u64, u64), what: &str) {
    if round == 0 {
        assert!(
            buffers <= 4 && groups <= 4,
            "{what}: {buffers} buffers, {groups} bind groups"
        );
    } else {
        assert_eq!((buffers, groups), (0, 0), "{what}, round {round}");
    }
}

/// Runs XOR of `a` and `b` into `out`, each bound whole.
fn run_xor(op: &DmlBinary, a: &wgpu::Buffer, b: &wgpu::Buffer, out: &wgpu::Buffer) {
    op.run(&Bindings::new(
        TensorBinding::new(a),
        TensorBinding::new(b),
        TensorBinding::new(out),
    ))
    .unwrap();
}

/// `CALLS` calls of 4 KiB at distinct offsets of three buffers, and their bytes.
const CALLS: u64 = 1000;
const BYTES: u64 = 4096;

struct Calls {
    op: DmlBinary,
    a: wgpu::Buffer,
    b: wgpu::Buffer,
    out: wgpu::Buffer,
    ha: Vec<u8>,
    hb: Vec<u8>,
}

impl Calls {
    fn new(ctx: &Context) -> Calls {
        let n = (CALLS * BYTES) as usize;
        let (ha, hb) = (random_bytes(41, n), random_bytes(42, n));
        let op =
            DmlBinary::new(ctx, &BitXorDesc::packed(DataType::U32, &[BYTES as u32 / 4])).unwrap();
        op.warm_up().unwrap();
        Calls {
            op,
            a: buffer(ctx, &ha),
            b: buffer(ctx, &hb),
            out: buffer(ctx, &vec![0; n]),
            ha,
            hb,
        }
    }

    fn at(&self, i: u64) -> Bindings<'_> {
        let r = |b| TensorBinding::range(b, i * BYTES, BYTES);
        Bindings::new(r(&self.a), r(&self.b), r(&self.out))
    }

    fn clear(&self, ctx: &Context) {
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        encoder.clear_buffer(&self.out, 0, None);
        ctx.queue().submit([encoder.finish()]);
    }

    fn check(&self, ctx: &Context, what: &str) {
        assert!(
            read(ctx, &self.out) == xor(&self.ha, &self.hb),
            "{what}: wrong output"
        );
    }
}

/// Every one-shot form, in a loop of `CALLS` calls at distinct offsets of the same buffers:
/// its first round makes at most 4 metadata buffers and 4 bind groups, every later round
/// none, and every round's output is exact.
#[test]
fn a_loop_of_one_shot_calls_makes_no_buffer_or_bind_group_after_its_first_round() {
    let ctx = own_context();
    let calls = Calls::new(&ctx);
    type Form = fn(&Context, &Calls);
    let forms: [(&str, Form); 4] = [
        ("record, one encoder", |ctx, c| {
            let mut encoder = ctx.device().create_command_encoder(&Default::default());
            for i in 0..CALLS {
                c.op.record(&mut encoder, &c.at(i)).unwrap();
            }
            ctx.queue().submit([encoder.finish()]);
        }),
        ("submit", |_, c| {
            for i in 0..CALLS {
                c.op.submit(&c.at(i)).unwrap();
            }
        }),
        ("run", |_, c| {
            for i in 0..CALLS {
                c.op.run(&c.at(i)).unwrap();
            }
        }),
        ("a batch recorded once", |ctx, c| {
            let mut batch = ctx.batch();
            for i in 0..CALLS {
                batch.push(&c.op, &c.at(i)).unwrap();
            }
            let mut encoder = ctx.device().create_command_encoder(&Default::default());
            batch.record(&mut encoder).unwrap();
            ctx.queue().submit([encoder.finish()]);
        }),
    ];
    for (name, form) in forms {
        for round in 0..3 {
            calls.clear(&ctx);
            let before = ctx.recording_objects();
            form(&ctx, &calls);
            ctx.wait().unwrap();
            assert_made(round, made(before, ctx.recording_objects()), name);
            calls.check(&ctx, name);
        }
    }
    let now = ctx.recording_objects();
    assert_eq!(now.metadata_records_pending, 0);
    assert_eq!(now.metadata_records_alive, 0);
}

/// The same for a fused expression's `record` and `run`, and the one-call forms on tensors.
#[test]
fn fused_calls_and_one_call_forms_reuse_their_records_and_bind_groups() {
    let ctx = own_context();
    let n = 4096u32;
    let mut e = Expr::new();
    let a = e.input(TensorDesc::new(DataType::U32, &[n]));
    let b = e.input(TensorDesc::new(DataType::U32, &[n]));
    let x = e.apply(Operator::BitXor, &[a, b]);
    let o = e.apply(Operator::BitOr, &[x, a]);
    let fused = Fused::new(&ctx, &e.output(o, TensorDesc::new(DataType::U32, &[n]))).unwrap();
    let (ha, hb) = (
        random_bytes(5, 4 * n as usize),
        random_bytes(6, 4 * n as usize),
    );
    let (ba, bb, out) = (
        buffer(&ctx, &ha),
        buffer(&ctx, &hb),
        buffer(&ctx, &[0; 16384]),
    );
    let want: Vec<u8> = ha.iter().zip(&hb).map(|(x, y)| (x ^ y) | x).collect();
    let inputs = [TensorBinding::new(&ba), TensorBinding::new(&bb)];
    let ta = Tensor::from_bytes(&ctx, DataType::U32, &[n as usize], &ha).unwrap();
    let tb = Tensor::from_bytes(&ctx, DataType::U32, &[n as usize], &hb).unwrap();
    let tout = Tensor::zeros(&ctx, DataType::U32, &[n as usize]).unwrap();
    for round in 0..3 {
        let before = ctx.recording_objects();
        for _ in 0..100 {
            fused
                .run(&ExprBindings::new(&inputs, TensorBinding::new(&out)))
                .unwrap();
            let mut encoder = ctx.device().create_command_encoder(&Default::default());
            fused
                .record(
                    &mut encoder,
                    &ExprBindings::new(&inputs, TensorBinding::new(&out)),
                )
                .unwrap();
            ctx.queue().submit([encoder.finish()]);
            ctx.bit_xor_into(&ta, &tb, &tout).unwrap();
        }
        ctx.wait().unwrap();
        assert_made(
            round,
            made(before, ctx.recording_objects()),
            "fused and one-call forms",
        );
        assert_eq!(read(&ctx, &out), want);
        assert_eq!(tout.to_bytes().unwrap(), xor(&ha, &hb));
    }
}

/// A one-shot call's records are pending while the encoder that holds it has not run: a
/// later call, recorded and run first, never takes them, so both outputs are exact.
#[test]
fn records_of_an_unsubmitted_call_are_not_reused_until_it_has_run() {
    let ctx = own_context();
    let calls = Calls::new(&ctx);
    let mut first = ctx.device().create_command_encoder(&Default::default());
    calls.op.record(&mut first, &calls.at(0)).unwrap();
    assert!(ctx.recording_objects().metadata_records_pending >= 1);
    // Many later calls, each run to completion, while the first waits unsubmitted.
    for i in 1..CALLS {
        calls.op.run(&calls.at(i)).unwrap();
    }
    assert!(ctx.recording_objects().metadata_records_pending >= 1);
    ctx.queue().submit([first.finish()]);
    ctx.wait().unwrap();
    calls.check(&ctx, "the first call run last");
    assert_eq!(ctx.recording_objects().metadata_records_pending, 0);
}

/// An encoder dropped unsubmitted gives its one-shot calls' records back at once, and none
/// of them ran.
#[test]
fn an_encoder_dropped_unsubmitted_gives_its_records_back() {
    let ctx = own_context();
    let calls = Calls::new(&ctx);
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    for i in 0..10 {
        calls.op.record(&mut encoder, &calls.at(i)).unwrap();
    }
    assert_eq!(ctx.recording_objects().metadata_records_pending, 10);
    drop(encoder);
    assert_eq!(ctx.recording_objects().metadata_records_pending, 0);
    assert!(read(&ctx, &calls.out).iter().all(|&b| b == 0));
    // The records come back for the next calls: no new metadata buffer.
    let before = ctx.recording_objects();
    for i in 0..10 {
        calls.op.run(&calls.at(i)).unwrap();
    }
    assert_eq!(made(before, ctx.recording_objects()).0, 0);
}

/// A buffer destroyed after a one-shot call kept a bind group naming it: the next call on it
/// is refused with a typed error, the kept bind groups naming it are dropped, and calls on a
/// new buffer run.
#[test]
fn a_destroyed_buffer_is_refused_and_its_kept_bind_groups_are_dropped() {
    let ctx = own_context();
    let (ha, hb) = (random_bytes(7, 4096), random_bytes(8, 4096));
    let (a, b) = (buffer(&ctx, &ha), buffer(&ctx, &hb));
    let op = DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::U32, &[1024])).unwrap();
    for tensor in [TensorName::Output, TensorName::A] {
        let out = buffer(&ctx, &[0; 4096]);
        let bind = |a, out| {
            Bindings::new(
                TensorBinding::new(a),
                TensorBinding::new(&b),
                TensorBinding::new(out),
            )
        };
        op.run(&bind(&a, &out)).unwrap();
        op.run(&bind(&a, &out)).unwrap();
        assert!(ctx.recording_objects().bind_groups_kept >= 1);
        let victim_a = buffer(&ctx, &ha);
        let (in_a, in_out) = match tensor {
            TensorName::Output => (&a, &out),
            _ => (&victim_a, &out),
        };
        op.run(&bind(in_a, in_out)).unwrap();
        let kept = ctx.recording_objects().bind_groups_kept;
        match tensor {
            TensorName::Output => out.destroy(),
            _ => victim_a.destroy(),
        }
        let e = op.run(&bind(in_a, in_out)).unwrap_err();
        assert!(
            matches!(e, Error::InvalidBuffer { tensor: Some(t), .. } if t == tensor),
            "{e:?}"
        );
        assert!(ctx.recording_objects().bind_groups_kept < kept);
        let fresh = buffer(&ctx, &[0; 4096]);
        op.run(&bind(&a, &fresh)).unwrap();
        assert_eq!(read(&ctx, &fresh), xor(&ha, &hb));
    }
}

/// What the context keeps for one-shot calls is bounded (16 bind groups a metadata buffer),
/// holds under 1 MiB of metadata once the loop is over, and `trim` drops it all.
#[test]
fn what_one_shot_calls_keep_is_bounded_and_trim_drops_it() {
    let ctx = own_context();
    let before = ctx.recording_objects();
    let op = DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::U32, &[64])).unwrap();
    let (ha, hb) = (random_bytes(9, 256), random_bytes(10, 256));
    let (a, b) = (buffer(&ctx, &ha), buffer(&ctx, &hb));
    // 40 outputs, each bound by 50 calls: more bind groups than a metadata buffer keeps.
    for _ in 0..50 {
        for _ in 0..40 {
            let out = buffer(&ctx, &[0; 256]);
            run_xor(&op, &a, &b, &out);
            let now = ctx.recording_objects();
            assert!(
                now.bind_groups_kept <= 16 * now.metadata_buffers_alive,
                "{now:?}"
            );
        }
    }
    ctx.wait().unwrap();
    let after = ctx.recording_objects();
    assert_eq!(after.metadata_records_pending, 0);
    assert!(
        after.metadata_bytes_alive <= before.metadata_bytes_alive + (1 << 20),
        "{after:?}"
    );
    ctx.trim();
    let trimmed = ctx.recording_objects();
    assert_eq!(trimmed.bind_groups_kept, 0);
    assert_eq!(trimmed.metadata_buffers_alive, 0, "{trimmed:?}");
    // And the next call makes what it needs again.
    let out = buffer(&ctx, &[0; 256]);
    run_xor(&op, &a, &b, &out);
    assert_eq!(read(&ctx, &out), xor(&ha, &hb));
}
