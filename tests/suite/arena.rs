//! The metadata arena: prepared calls share a few uniform buffers, hold about one 256-byte
//! record each, give their records back when dropped, and never have the records of a call
//! that an encoder still holds overwritten.
//!
//! Each test runs on a device of its own, so that the counts are the test's alone.

use gpu_xor::{Bindings, BitXorDesc, Context, DataType, DmlBinary, TensorBinding};

use crate::common::{buffer, random_bytes, submit_in_one_pass};

fn own_context() -> Context {
    Context::from_env().expect("an adapter")
}

/// wgpu's live buffers on the device (every buffer: the arena's, the tests' and wgpu's own
/// staging buffers).
fn live_buffers(ctx: &Context) -> isize {
    ctx.device().get_internal_counters().hal.buffers.read()
}

fn read(ctx: &Context, b: &wgpu::Buffer) -> Vec<u8> {
    ctx.read_buffer(b, 0, b.size()).unwrap()
}

/// Three buffers of `len` random bytes (the output's a sentinel pattern), and their bytes.
struct Buffers {
    a: wgpu::Buffer,
    b: wgpu::Buffer,
    out: wgpu::Buffer,
    ha: Vec<u8>,
    hb: Vec<u8>,
    sentinel: Vec<u8>,
}

impl Buffers {
    fn new(ctx: &Context, len: usize, seed: u64) -> Buffers {
        let (ha, hb) = (random_bytes(seed, len), random_bytes(seed + 1, len));
        let sentinel = vec![0xa5; len];
        Buffers {
            a: buffer(ctx, &ha),
            b: buffer(ctx, &hb),
            out: buffer(ctx, &sentinel),
            ha,
            hb,
            sentinel,
        }
    }

    /// The bindings of `bytes` bytes at `at` in each buffer.
    fn at(&self, at: u64, bytes: u64) -> Bindings<'_> {
        Bindings::new(
            TensorBinding::range(&self.a, at, bytes),
            TensorBinding::range(&self.b, at, bytes),
            TensorBinding::range(&self.out, at, bytes),
        )
    }

    /// The output expected when the calls at `ranges` (byte start, length) ran, and nothing
    /// else was written.
    fn expected(&self, ranges: &[(usize, usize)]) -> Vec<u8> {
        let mut want = self.sentinel.clone();
        for &(at, n) in ranges {
            let xor = self.ha[at..at + n].iter().zip(&self.hb[at..at + n]);
            for (w, (x, y)) in want[at..at + n].iter_mut().zip(xor) {
                *w = x ^ y;
            }
        }
        want
    }
}

/// The most records the arena grows one buffer to, and the room after each (the arena's
/// rules, restated here so that a change to them is a change to this test).
const LARGEST_SLAB: u64 = 4096;
const ROOM: u64 = 64;

#[test]
fn a_graph_of_prepared_calls_holds_about_one_record_per_call() {
    for calls in [300u64, 2000, 10_000] {
        graph_of(calls);
    }
}

fn graph_of(calls: u64) {
    let ctx = own_context();
    let op = DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::U32, &[16])).unwrap();
    let bufs = Buffers::new(&ctx, (calls * 64) as usize, 11);
    let before = ctx.recording_objects();
    assert_eq!(before.metadata_records_alive, 0);
    let prepared: Vec<_> = (0..calls)
        .map(|i| op.prepare(&bufs.at(i * 64, 64)).unwrap())
        .collect();
    let held = ctx.recording_objects();
    assert_eq!(held.metadata_records_alive, calls);
    // Buffers grow by four up to LARGEST_SLAB records: at most the live records, the
    // unused part of the newest buffer, and the room after each.
    let bound = 256 * (calls + LARGEST_SLAB.min(3 * calls) + ROOM * held.metadata_buffers_alive);
    assert!(
        held.metadata_bytes_alive <= bound,
        "{calls} calls: {held:?} over {bound}"
    );
    // The graphs, 300 and 10,000 calls: at most 512 bytes each.
    let per_call = held.metadata_bytes_alive / calls;
    assert!(
        calls == 2000 || per_call <= 512,
        "{per_call} bytes of metadata per prepared call ({held:?})"
    );
    assert!(
        // 64, 256, 1,024 and 4,096 records, then 4,096 each.
        held.metadata_buffers_alive <= 4 + calls / LARGEST_SLAB,
        "{} metadata buffers for {calls} calls",
        held.metadata_buffers_alive
    );
    // One pass of every call computes every output.
    submit_in_one_pass(&ctx, &prepared);
    assert_eq!(
        read(&ctx, &bufs.out),
        bufs.expected(&[(0, (calls * 64) as usize)])
    );
    drop(prepared);
    ctx.wait().unwrap();
    let after = ctx.recording_objects();
    assert_eq!(after.metadata_records_alive, 0);
    assert_eq!(after.metadata_buffers_alive, 0, "{after:?}");
}

#[test]
fn preparing_and_dropping_100_000_calls_holds_a_bounded_arena() {
    let ctx = own_context();
    let op = DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::U32, &[16])).unwrap();
    let bufs = Buffers::new(&ctx, 64 * 64, 21);
    ctx.wait().unwrap();
    let start = live_buffers(&ctx);
    let mut most = (0u64, 0u64, 0isize);
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    for i in 0..100_000u64 {
        let call = op.prepare(&bufs.at((i % 64) * 64, 64)).unwrap();
        // A third of the calls are recorded before they are dropped (their records then
        // stay with the encoder), the rest dropped unrecorded (their records are reused).
        if i % 3 == 0 {
            call.record(&mut encoder).unwrap();
        }
        drop(call);
        if i % 1000 == 999 {
            let done = std::mem::replace(
                &mut encoder,
                ctx.device().create_command_encoder(&Default::default()),
            );
            ctx.queue().submit([done.finish()]);
            ctx.wait().unwrap();
            let now = ctx.recording_objects();
            most.0 = most.0.max(now.metadata_buffers_alive);
            most.1 = most.1.max(now.metadata_bytes_alive);
            most.2 = most.2.max(live_buffers(&ctx) - start);
        }
    }
    ctx.queue().submit([encoder.finish()]);
    ctx.wait().unwrap();
    assert!(most.0 <= 3, "{} metadata buffers at once", most.0);
    assert!(most.1 <= 3 << 20, "{} bytes of metadata at once", most.1);
    assert!(most.2 <= 8, "{} more live wgpu buffers", most.2);
    assert_eq!(ctx.recording_objects().metadata_records_alive, 0);
    // Every output was written by calls of its own range only.
    assert_eq!(read(&ctx, &bufs.out), bufs.expected(&[(0, 64 * 64)]));
}

#[test]
fn calls_dropped_unrecorded_give_their_records_back_at_once() {
    let ctx = own_context();
    let op = DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::U32, &[16])).unwrap();
    let bufs = Buffers::new(&ctx, 1024, 31);
    let first = op.prepare(&bufs.at(0, 64)).unwrap();
    let held = ctx.recording_objects();
    for i in 0..10_000u64 {
        drop(op.prepare(&bufs.at((i % 16) * 64, 64)).unwrap());
    }
    let after = ctx.recording_objects();
    assert_eq!(after.buffers, held.buffers, "a metadata buffer was made");
    assert_eq!(after.metadata_bytes_alive, held.metadata_bytes_alive);
    assert_eq!(after.metadata_records_alive, 1);
    drop(first);
}

/// A caller may drop a prepared call while an encoder that holds it is unsubmitted: the
/// records it reads must still be its own when the encoder runs, whatever is prepared after.
#[test]
fn a_call_dropped_while_its_encoder_is_unsubmitted_keeps_its_records() {
    let ctx = own_context();
    let op = DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::U32, &[64])).unwrap();
    let bufs = Buffers::new(&ctx, 34 * 512, 41);
    let mut encoders = Vec::new();
    let mut ran = Vec::new();
    // Call k covers bytes [k * 512, k * 512 + 256): a call that read another call's record
    // would write the other's range and leave its own as the sentinel.
    for k in 0..32u64 {
        let call = op.prepare(&bufs.at(k * 512, 256)).unwrap();
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        call.record(&mut encoder).unwrap();
        drop(call);
        // Churn: calls prepared and dropped unrecorded, and calls on the ranges in between
        // whose records are written through the queue before these encoders run.
        for j in 0..5 {
            drop(
                op.prepare(&bufs.at(((k + j) % 32) * 512 + 256, 256))
                    .unwrap(),
            );
        }
        encoders.push(encoder);
        ran.push(((k * 512) as usize, 256));
    }
    // The one-shot form drops its preparation before the caller submits, too.
    let mut last = ctx.device().create_command_encoder(&Default::default());
    op.record(&mut last, &bufs.at(32 * 512, 256)).unwrap();
    drop(op.prepare(&bufs.at(33 * 512, 256)).unwrap());
    encoders.push(last);
    ran.push((32 * 512, 256));
    ctx.queue()
        .submit(encoders.into_iter().map(|e| e.finish()).collect::<Vec<_>>());
    assert_eq!(read(&ctx, &bufs.out), bufs.expected(&ran));
}

#[test]
fn preparing_allocates_nothing_on_the_device_per_call() {
    let ctx = own_context();
    let op = DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::U32, &[16])).unwrap();
    let bufs = Buffers::new(&ctx, 1000 * 64, 51);
    // One call first, so that the arena's first buffers exist.
    let first = op.prepare(&bufs.at(0, 64)).unwrap();
    ctx.wait().unwrap();
    let before = live_buffers(&ctx);
    let calls: Vec<_> = (1..1000u64)
        .map(|i| op.prepare(&bufs.at(i * 64, 64)).unwrap())
        .collect();
    // The arena grows by a few buffers for 1,000 records; no staging buffer per call.
    let grown = live_buffers(&ctx) - before;
    assert!(grown <= 4, "{grown} buffers for 999 preparations");
    submit_in_one_pass(&ctx, std::iter::once(&first).chain(&calls));
    assert_eq!(read(&ctx, &bufs.out), bufs.expected(&[(0, 1000 * 64)]));
}

#[test]
fn calls_prepared_on_one_thread_run_when_recorded_on_another() {
    let ctx = own_context();
    let op = DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::U32, &[16])).unwrap();
    let bufs = std::sync::Arc::new(Buffers::new(&ctx, 300 * 64, 61));
    let (tx, rx) = std::sync::mpsc::channel();
    let preparer = {
        let bufs = bufs.clone();
        std::thread::spawn(move || {
            for i in 0..300u64 {
                tx.send(op.prepare(&bufs.at(i * 64, 64)).unwrap()).unwrap();
            }
        })
    };
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        for call in rx.iter() {
            call.record_in_pass(&mut pass).unwrap();
        }
    }
    preparer.join().unwrap();
    ctx.queue().submit([encoder.finish()]);
    assert_eq!(read(&ctx, &bufs.out), bufs.expected(&[(0, 300 * 64)]));
}
