//! The core path: the contiguous kernel in each of its forms (direct or through the record's
//! offsets, with its partial last block written by itself or by a dispatch of its own), for
//! every function, on both kernel tunings; and prepared calls laid out flat in a `Graph`.

use gpu_xor::inspect::KernelKind;
use gpu_xor::{
    Bindings, BitXorDesc, Context, DataType, DmlBinary, Error, Graph, KernelTuning, TensorBinding,
};

use crate::common::{
    Check, DmlCase, buffer, family_of, random_bytes, small_windows, submit_in_one_pass, tuned,
};
use gpu_xor_testkit::engine;

/// Elements of `data_type` in a run of `bytes` bytes and a few more, so that the last 16-byte
/// block is partial (8 bytes of it for 64-bit elements).
fn odd_elements(data_type: DataType, bytes: u64) -> u32 {
    let width = u64::from(data_type.size_in_bytes());
    (bytes / width + if width == 8 { 1 } else { 3 }) as u32
}

/// Every function on runs whose last block is partial, below and above the length from which
/// a CPU adapter writes that block in a dispatch of its own, and on whole blocks: bound at
/// the start of buffers of their own (the direct form), and at byte 32 (direct where the
/// adapter's binding alignment divides 32, else through the record's offsets). Every byte of every buffer is
/// checked, the bytes after the output included; the kernels are the ones each tuning picks.
#[test]
fn every_function_runs_every_contiguous_form_exactly_on_both_tunings() {
    for tuning in [KernelTuning::Cpu, KernelTuning::Gpu] {
        let ctx = tuned(tuning);
        for data_type in [DataType::U8, DataType::U16, DataType::U32, DataType::U64] {
            for op in family_of(data_type) {
                for bytes in [48u64, (1 << 20) + 4096] {
                    let whole = (bytes / u64::from(data_type.size_in_bytes())) as u32;
                    for n in [whole, odd_elements(data_type, bytes)] {
                        let case = DmlCase::packed(op, data_type, &[n], u64::from(n) ^ bytes);
                        let len = case.buffers[0].len();
                        for at in [0, 32] {
                            let placed = case.clone().placed(
                                len,
                                [(0, at), (1, at), (2, at)],
                                u64::from(n) + at,
                            );
                            let summary = placed.check_on(ctx);
                            let last_partial =
                                (u64::from(n) * u64::from(data_type.size_in_bytes())) % 16 != 0;
                            let cut = tuning == KernelTuning::Cpu
                                && last_partial
                                && u64::from(n) * u64::from(data_type.size_in_bytes()) >= 1 << 20;
                            let want: &[KernelKind] = if cut {
                                &[KernelKind::Contiguous, KernelKind::Gather]
                            } else {
                                &[KernelKind::Contiguous]
                            };
                            assert_eq!(
                                summary.dispatches,
                                want,
                                "{tuning:?} {}",
                                placed.describe()
                            );
                        }
                    }
                }
            }
        }
    }
}

/// The same calls through one batch, several on the same buffers at different offsets, so that
/// they share bind groups and read their offsets from their records (the general form), with
/// a call of each length and one that starts a buffer.
#[test]
fn batched_contiguous_calls_on_shared_buffers_run_through_their_offsets() {
    for tuning in [KernelTuning::Cpu, KernelTuning::Gpu] {
        let ctx = tuned(tuning);
        for data_type in [DataType::U8, DataType::U64] {
            for op in family_of(data_type) {
                let n = odd_elements(data_type, 1 << 20);
                let small = odd_elements(data_type, 48);
                let case = DmlCase::packed(op, data_type, &[n], 7);
                let bytes = case.buffers[0].len() as u64;
                let len = (2 * bytes + 4096) as usize;
                // Three calls on the same three buffers: at 0, at 256 + bytes (the long
                // ones) and a short one after them.
                let first = case.clone().placed(len, [(0, 0), (1, 0), (2, 0)], 11);
                let second_at = (bytes + 256).next_multiple_of(256);
                let gpu = engine::upload(ctx, &first.names(), &first.buffers);
                let mut state = first.buffers.clone();
                let mut batch = ctx.batch();
                let third_at = (second_at + bytes + 512).next_multiple_of(256);
                let calls = [(n, 0u64), (n, second_at), (small, third_at)];
                for (count, at) in calls {
                    let call = DmlCase::packed(op, data_type, &[count], 0).placed(
                        len,
                        [(0, at), (1, at), (2, at)],
                        0,
                    );
                    let operator = call.operator(ctx).unwrap();
                    operator.push(&mut batch, &call.bindings(&gpu)).unwrap();
                    state = DmlCase {
                        buffers: state,
                        ..call
                    }
                    .expected();
                }
                let mut encoder = ctx.device().create_command_encoder(&Default::default());
                batch.record(&mut encoder).unwrap();
                ctx.queue().submit([encoder.finish()]);
                let got = engine::read_back_blocking(ctx, &gpu).unwrap();
                for (i, (got, want)) in got.iter().zip(&state).enumerate() {
                    assert!(
                        got == want,
                        "{tuning:?} {op:?} {data_type}: buffer {i} differs from the three calls in order"
                    );
                }
            }
        }
    }
}

/// Channel broadcasts (`[1, C, H, W] ^ [1, C, 1, 1]` and the input repeated in A's place) of
/// every function and width, rows under, at and over a 16-byte multiple, whole and cut into
/// 4 KiB windows (a window piece of one row runs another kernel), in place too: every byte
/// checked.
#[test]
fn channel_broadcasts_run_exactly_whole_and_across_window_seams() {
    use gpu_xor::TensorDesc;
    for data_type in [DataType::U8, DataType::U16, DataType::U32, DataType::U64] {
        for op in family_of(data_type)
            .into_iter()
            .filter(|op| op.inputs() == 2)
        {
            for (c, side) in [(5u32, 7u32), (3, 4), (40, 13)] {
                let t = TensorDesc::new(data_type, &[1, c, side, side]);
                let column =
                    TensorDesc::new(data_type, &[1, c, side, side]).with_strides(&[c, 1, 0, 0]);
                for (a, b) in [(t.clone(), column.clone()), (column, t.clone())] {
                    let case = DmlCase::distinct(op, a, b, t.clone(), u64::from(c * side));
                    let summary = case.check();
                    if side * side * data_type.size_in_bytes() >= 16 {
                        assert_eq!(
                            summary.dispatches,
                            [KernelKind::Contiguous],
                            "{}",
                            case.describe()
                        );
                    }
                    case.check_on(small_windows());
                    let mut in_place = case.clone();
                    in_place.places[2] = in_place.places[if case.a == t { 0 } else { 1 }];
                    in_place.check();
                }
            }
        }
    }
}

fn bit_xor_calls(ctx: &Context, calls: usize) -> (Vec<gpu_xor::Prepared>, Vec<[wgpu::Buffer; 3]>) {
    let mut prepared = Vec::new();
    let mut buffers = Vec::new();
    for i in 0..calls {
        // Lengths of every kind: whole blocks, a partial last block, a long one.
        let n = [1024usize, 37, 300_001][i % 3];
        let op = DmlBinary::new(ctx, &BitXorDesc::packed(DataType::U32, &[n as u32])).unwrap();
        let bytes = n * 4 + 12;
        let (a, b, out) = (
            buffer(ctx, &random_bytes(3 * i as u64, bytes)),
            buffer(ctx, &random_bytes(3 * i as u64 + 1, bytes)),
            buffer(ctx, &random_bytes(3 * i as u64 + 2, bytes)),
        );
        // In place (A ^= B), so that recording a call twice gives its buffers back.
        prepared.push(
            op.prepare(&Bindings::new(
                TensorBinding::new(&a),
                TensorBinding::new(&b),
                TensorBinding::new(&a),
            ))
            .unwrap(),
        );
        buffers.push([a, b, out]);
    }
    (prepared, buffers)
}

fn read_all(ctx: &Context, buffers: &[[wgpu::Buffer; 3]]) -> Vec<Vec<u8>> {
    buffers
        .iter()
        .flat_map(|set| {
            set.iter()
                .map(|b| ctx.read_buffer(b, 0, b.size()).unwrap())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// A graph recorded whole, in ranges with the caller's own work between them, and call by
/// call with `Prepared::record_in_pass` gives the same bytes; recording it makes nothing.
#[test]
fn a_graph_records_what_its_calls_record_in_order() {
    let ctx = Context::from_env().unwrap();
    let (prepared, buffers) = bit_xor_calls(&ctx, 7);
    let before = read_all(&ctx, &buffers);
    let graph = Graph::new(&ctx, &prepared).unwrap();
    assert_eq!(graph.call_count(), 7);
    assert!(graph.dispatch_count() >= 7);
    let made = ctx.recording_objects();
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    graph.record(&mut encoder).unwrap();
    ctx.queue().submit([encoder.finish()]);
    let once = read_all(&ctx, &buffers);
    assert!(once != before, "the graph changed nothing");
    submit_in_one_pass(&ctx, &prepared);
    assert_eq!(
        read_all(&ctx, &buffers),
        before,
        "record_in_pass undoes the graph"
    );
    // In ranges (an empty one among them), in one pass.
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        for range in [0..2, 2..2, 2..5, 5..7] {
            graph.record_calls_in_pass(&mut pass, range).unwrap();
        }
    }
    ctx.queue().submit([encoder.finish()]);
    assert_eq!(
        read_all(&ctx, &buffers),
        once,
        "the ranges record the whole graph"
    );
    assert_eq!(ctx.recording_objects(), made, "recording made an object");
}

#[test]
fn a_graph_refuses_ranges_past_its_calls_and_calls_of_another_context() {
    let ctx = Context::from_env().unwrap();
    let (prepared, _buffers) = bit_xor_calls(&ctx, 2);
    let graph = Graph::new(&ctx, &prepared).unwrap();
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    let mut pass = encoder.begin_compute_pass(&Default::default());
    // Past the end, empty past the end, and reversed.
    let reversed = std::ops::Range { start: 2, end: 1 };
    for range in [0..3, 3..3, reversed] {
        let e = graph
            .record_calls_in_pass(&mut pass, range.clone())
            .unwrap_err();
        assert!(
            matches!(e, Error::CallRangeOutOfBounds { calls: 2, .. }),
            "{range:?}: {e}"
        );
        assert_eq!(e.rule(), "call_range_out_of_bounds");
    }
    drop(pass);
    let other = Context::from_env().unwrap();
    let e = Graph::new(&other, &prepared).unwrap_err();
    assert!(matches!(e, Error::ContextMismatch), "{e}");
    // An empty graph records nothing, and refuses every range but 0..0.
    let empty = Graph::new(&ctx, []).unwrap();
    assert_eq!((empty.call_count(), empty.dispatch_count()), (0, 0));
    let mut pass = encoder.begin_compute_pass(&Default::default());
    empty.record_in_pass(&mut pass).unwrap();
    empty.record_calls_in_pass(&mut pass, 0..0).unwrap();
    assert!(empty.record_calls_in_pass(&mut pass, 0..1).is_err());
}
