//! Small calls: 1,000 calls of 4 KiB batched against single submits, and their per-call
//! latency against the bare XOR kernel on the same ranges.

use std::time::{Duration, Instant};

use gpu_xor::{Bindings, BitXorDesc, Context, DataType, DmlBinary, Prepared, TensorBinding};

use crate::baseline::{Dispatch, Grid, Kernel};
use crate::buffers::storage;
use crate::timing::submitted;

/// `calls` small calls of `bytes` bytes each (u32 BIT_XOR at distinct offsets of three
/// buffers), for the batched-against-single comparison.
pub struct SmallCalls {
    /// The one operator every call runs.
    pub(crate) op: DmlBinary,
    buffers: [wgpu::Buffer; 3],
    /// How many calls.
    pub calls: u64,
    /// Bytes of each operand of one call.
    pub bytes: u64,
}

impl SmallCalls {
    /// `calls` calls of `bytes` bytes, their buffers filled with random bytes.
    pub fn new(ctx: &Context, calls: u64, bytes: u64) -> SmallCalls {
        let op = DmlBinary::new(
            ctx,
            &BitXorDesc::packed(DataType::U32, &[(bytes / 4) as u32]),
        )
        .expect("desc");
        let total = calls * bytes;
        SmallCalls {
            op,
            buffers: [
                storage(ctx, total, 11),
                storage(ctx, total, 12),
                storage(ctx, total, 13),
            ],
            calls,
            bytes,
        }
    }

    /// The bindings of call `i`: bytes `i * bytes..(i + 1) * bytes` of each buffer.
    pub(crate) fn bindings(&self, i: u64) -> Bindings<'_> {
        let at = i * self.bytes;
        let b = |k: usize| TensorBinding::range(&self.buffers[k], at, self.bytes);
        Bindings::new(b(0), b(1), b(2))
    }

    /// Every call pushed into one batch.
    pub(crate) fn batch(&self, ctx: &Context) -> gpu_xor::Batch {
        let mut batch = ctx.batch();
        for i in 0..self.calls {
            batch.push(&self.op, &self.bindings(i)).expect("push");
        }
        batch
    }

    /// Every call pushed into one batch, recorded into one encoder, one submit, one wait.
    pub fn batched(&self, ctx: &Context) -> Duration {
        let start = Instant::now();
        let batch = self.batch(ctx);
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        batch.record(&mut encoder).expect("record");
        ctx.queue().submit([encoder.finish()]);
        ctx.device()
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("poll");
        start.elapsed()
    }

    /// Every call in an encoder and a submit of its own, one wait at the end.
    pub fn single_submits(&self, ctx: &Context) -> Duration {
        let start = Instant::now();
        for i in 0..self.calls {
            let mut encoder = ctx.device().create_command_encoder(&Default::default());
            self.op
                .record(&mut encoder, &self.bindings(i))
                .expect("record");
            ctx.queue().submit([encoder.finish()]);
        }
        ctx.device()
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("poll");
        start.elapsed()
    }
}

/// Per-call latency of small calls against the bare XOR kernel on the same ranges: one 4 KiB
/// BIT_XOR u32 call alone, and a call among `calls` in one batch. Everything is made before
/// any timing: the pipelines warmed up, call 0 prepared (`op.prepare`), the batch of every
/// call prepared (`Batch::prepare`), and a bare-kernel bind group per call's range.
pub struct Latency {
    /// The calls, the operator and their buffers.
    pub small: SmallCalls,
    one: Prepared,
    batch: Prepared,
    bare: Kernel,
    dispatches: Vec<Dispatch>,
}

impl Latency {
    /// `calls` calls of `bytes` bytes (a multiple of the storage offset alignment).
    pub fn new(ctx: &Context, calls: u64, bytes: u64) -> Latency {
        let small = SmallCalls::new(ctx, calls, bytes);
        small.op.warm_up().expect("warm up");
        let one = small.op.prepare(&small.bindings(0)).expect("prepare");
        let batch = small.batch(ctx).prepare().expect("prepare");
        let bare = Kernel::bare_xor(ctx);
        let grid = Grid::new(ctx, bytes);
        let [a, b, out] = &small.buffers;
        let dispatches = (0..calls)
            .map(|i| bare.bind(ctx, &[a, b, out], i * bytes, &grid))
            .collect();
        Latency {
            small,
            one,
            batch,
            bare,
            dispatches,
        }
    }

    /// The dispatches of the prepared batch (its calls merge where their ranges meet).
    pub(crate) fn batch_dispatches(&self) -> usize {
        self.batch.dispatch_count()
    }

    /// Call 0 alone: a new encoder, `Prepared::record`, submit, wait.
    pub fn alone(&self, ctx: &Context) -> Duration {
        submitted(ctx, &|e| self.one.record(e).expect("record"))
    }

    /// The bare kernel on call 0's range alone: a new encoder, one dispatch in one pass,
    /// submit, wait.
    pub fn bare_alone(&self, ctx: &Context) -> Duration {
        submitted(ctx, &|e| self.bare.record(e, &self.dispatches[..1], 1))
    }

    /// Every call in the prepared batch: a new encoder, its `Prepared::record`, submit, wait;
    /// the total.
    pub fn batched(&self, ctx: &Context) -> Duration {
        submitted(ctx, &|e| self.batch.record(e).expect("record"))
    }

    /// The bare kernel on every call's range, one dispatch each in one pass: a new encoder,
    /// the pass, submit, wait; the total.
    pub fn bare_batched(&self, ctx: &Context) -> Duration {
        submitted(ctx, &|e| self.bare.record(e, &self.dispatches, 1))
    }
}
