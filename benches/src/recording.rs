//! The recording benchmark: the CPU time of recording the same small calls in each [`Way`]
//! the API offers.

use gpu_xor::{Context, Prepared};

use crate::small::SmallCalls;
use crate::timing::record_time;

/// The ways of recording the same small calls that the recording benchmark compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// Every call prepared once (outside timing), each `Prepared::record`ed into the encoder:
    /// a compute pass per call.
    Prepared,
    /// The same prepared calls through `Prepared::record_in_pass`, in one compute pass.
    PreparedInPass,
    /// One `Batch` built and recorded: `push` of every call, then `Batch::record`.
    Batch,
    /// That batch prepared once (outside timing), its `Prepared` recorded.
    PreparedBatch,
    /// Every call through the one-shot `op.record`: lowered each time, its record taken from
    /// the context's one-shot metadata buffers and its bind group from those the context
    /// keeps (made by the first calls only).
    OneShot,
}

impl Way {
    /// The way's name in benchmark names.
    pub fn name(self) -> &'static str {
        match self {
            Way::Prepared => "prepared",
            Way::PreparedInPass => "prepared-in-pass",
            Way::Batch => "batch",
            Way::PreparedBatch => "prepared-batch",
            Way::OneShot => "record",
        }
    }

    /// What is timed, for the report's table.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Way::Prepared => "(a) prepared calls, `Prepared::record` each",
            Way::PreparedInPass => "(b) prepared calls, `record_in_pass` in one pass",
            Way::Batch => "(c) one `Batch`: `push` each, `Batch::record`",
            Way::PreparedBatch => "(d) that batch prepared once, its `Prepared` recorded",
            Way::OneShot => "(e) `op.record` each (one-shot)",
        }
    }
}

/// The small calls of [`SmallCalls`], ready to record in every [`Way`]: the pipelines warmed
/// up, every call prepared, and the batch of all of them prepared, all before any timing.
pub struct Recording {
    small: SmallCalls,
    prepared: Vec<Prepared>,
    batch: Prepared,
}

impl Recording {
    /// `calls` calls of `bytes` bytes ([`SmallCalls::new`]), made and prepared.
    pub fn new(ctx: &Context, calls: u64, bytes: u64) -> Recording {
        let small = SmallCalls::new(ctx, calls, bytes);
        small.op.warm_up().expect("warm up");
        let prepared = (0..calls)
            .map(|i| small.op.prepare(&small.bindings(i)).expect("prepare"))
            .collect();
        let batch = small.batch(ctx).prepare().expect("prepare");
        Recording {
            small,
            prepared,
            batch,
        }
    }

    /// Records every call into `encoder` in `way`.
    pub fn record(&self, ctx: &Context, way: Way, encoder: &mut wgpu::CommandEncoder) {
        match way {
            Way::Prepared => {
                for call in &self.prepared {
                    call.record(encoder).expect("record");
                }
            }
            Way::PreparedInPass => {
                let mut pass = encoder.begin_compute_pass(&Default::default());
                for call in &self.prepared {
                    call.record_in_pass(&mut pass).expect("record");
                }
            }
            Way::Batch => self.small.batch(ctx).record(encoder).expect("record"),
            Way::PreparedBatch => self.batch.record(encoder).expect("record"),
            Way::OneShot => {
                for i in 0..self.small.calls {
                    self.small
                        .op
                        .record(encoder, &self.small.bindings(i))
                        .expect("record");
                }
            }
        }
    }

    /// The metadata buffers and bind groups one recording in `way` makes
    /// (`Context::recording_objects`), recorded into an encoder of its own and dropped.
    pub(crate) fn objects(&self, ctx: &Context, way: Way) -> (u64, u64) {
        let before = ctx.recording_objects();
        record_time(ctx, &|e| self.record(ctx, way, e));
        let after = ctx.recording_objects();
        (
            after.buffers - before.buffers,
            after.bind_groups - before.bind_groups,
        )
    }

    /// The operator, and the bindings of its first call (for loops of one call).
    pub(crate) fn first_call(&self) -> (&gpu_xor::DmlBinary, gpu_xor::Bindings<'_>) {
        (&self.small.op, self.small.bindings(0))
    }

    /// The first call, prepared.
    pub(crate) fn first_prepared(&self) -> &Prepared {
        &self.prepared[0]
    }

    /// The dispatches one recording in `way` holds.
    pub(crate) fn dispatches(&self, way: Way) -> usize {
        match way {
            Way::Prepared | Way::PreparedInPass | Way::OneShot => {
                self.prepared.iter().map(Prepared::dispatch_count).sum()
            }
            Way::Batch | Way::PreparedBatch => self.batch.dispatch_count(),
        }
    }
}
