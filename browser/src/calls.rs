//! Several calls on shared buffers: run one by one, and pushed into one merged batch.

use gpu_xor::{Batch, Context, KernelKind, RecordSummary, TensorDesc};
use gpu_xor_conformance::engine::{self, AnyOperator};

use crate::dml::{Check, DmlCase, DmlOp, Place};
use crate::{assert_accepted, random_bytes, watched};

/// One DirectML call of a [`Calls`] set.
#[derive(Clone, Debug)]
pub struct Call {
    /// The operator.
    pub op: DmlOp,
    /// A's description.
    pub a: TensorDesc,
    /// B's description.
    pub b: TensorDesc,
    /// The output's description.
    pub out: TensorDesc,
    /// Where A, B and the output are bound.
    pub places: [Place; 3],
}

impl Call {
    /// One description for A, B and the output.
    pub fn same(op: DmlOp, t: TensorDesc, places: [Place; 3]) -> Call {
        Call {
            op,
            a: t.clone(),
            b: t.clone(),
            out: t,
            places,
        }
    }

    /// The call as a single case on `buffers`.
    pub fn case(&self, buffers: &[Vec<u8>]) -> DmlCase {
        DmlCase {
            op: self.op,
            a: self.a.clone(),
            b: self.b.clone(),
            out: self.out.clone(),
            places: self.places,
            buffers: buffers.to_vec(),
        }
    }
}

/// Calls applied in order to a set of buffers of random bytes.
#[derive(Clone)]
pub struct Calls {
    /// Every buffer before the first call.
    pub buffers: Vec<Vec<u8>>,
    /// The calls, in order.
    pub calls: Vec<Call>,
}

/// What [`Calls::check`] found.
#[derive(Clone, Debug)]
pub struct Merged {
    /// Each call's summary, from [`Batch::push`].
    pub summaries: Vec<RecordSummary>,
    /// The pieces the calls were cut into (the sum of their dispatches when recorded alone).
    pub pieces: usize,
    /// The dispatches the batch recorded.
    pub dispatches: usize,
}

impl Calls {
    /// `count` buffers of `len` random bytes.
    pub fn new(count: usize, len: usize, seed: u64, calls: Vec<Call>) -> Calls {
        Calls {
            buffers: (0..count)
                .map(|k| random_bytes(seed ^ (k as u64).wrapping_mul(0x9E37_79B9), len))
                .collect(),
            calls,
        }
    }

    /// Every buffer after the calls by the reference, applied in order.
    pub fn expected(&self) -> Vec<Vec<u8>> {
        self.calls.iter().fold(self.buffers.clone(), |state, call| {
            call.case(&state).expected()
        })
    }

    fn names(&self) -> Vec<String> {
        (0..self.buffers.len()).map(|k| k.to_string()).collect()
    }

    /// Reads every buffer back, checks that the device took the work (`answer`), and compares
    /// every byte with the reference.
    async fn compare(
        &self,
        ctx: &Context,
        how: &str,
        gpu: &[wgpu::Buffer],
        answer: impl std::future::Future<Output = Option<wgpu::Error>>,
    ) {
        let got = engine::read_back(ctx, gpu)
            .await
            .unwrap_or_else(|e| panic!("{how}: read-back: {e}"));
        assert_accepted(answer, &(how, &self.calls)).await;
        if let Err(e) = engine::compare_buffers(&self.names(), &got, &self.expected(), None) {
            panic!("{how}: {e}\n{:#?}", self.calls);
        }
    }

    /// Runs the calls one by one (each in a submission of its own), then all of them in one
    /// batch on fresh buffers; both must leave every byte of every buffer as the reference
    /// does. Every call must run on `kernel`.
    pub async fn check(&self, ctx: &Context, kernel: KernelKind) -> Merged {
        let names = self.names();
        let gpu = engine::upload(ctx, &names, &self.buffers);
        let ((), answer) = watched(ctx, || {
            for call in &self.calls {
                call.case(&[])
                    .submit(ctx, &gpu)
                    .unwrap_or_else(|e| panic!("one by one: {e}\n{call:?}"));
            }
        });
        self.compare(ctx, "one by one", &gpu, answer).await;

        let gpu = engine::upload(ctx, &names, &self.buffers);
        let ops: Vec<AnyOperator> = self
            .calls
            .iter()
            .map(|c| {
                c.case(&[])
                    .operator(ctx)
                    .unwrap_or_else(|e| panic!("{e}\n{c:?}"))
            })
            .collect();
        let mut batch = ctx.batch();
        let summaries: Vec<RecordSummary> = self
            .calls
            .iter()
            .zip(&ops)
            .map(|(call, op)| push(&mut batch, op, &call.case(&[]), &gpu))
            .collect();
        let dispatches = batch.dispatch_count();
        let mut encoder = ctx
            .device()
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("gpu-xor-browser batch"),
            });
        let ((), answer) = watched(ctx, || {
            batch
                .record(&mut encoder)
                .unwrap_or_else(|e| panic!("batch: {e}"));
            ctx.queue().submit([encoder.finish()]);
        });
        self.compare(ctx, "batched", &gpu, answer).await;

        for (s, call) in summaries.iter().zip(&self.calls) {
            assert!(
                !s.dispatches.is_empty() && s.dispatches.iter().all(|&k| k == kernel),
                "expected {kernel:?}, ran {:?}\n{call:?}",
                s.dispatches
            );
        }
        let pieces = summaries.iter().map(|s| s.dispatches.len()).sum();
        Merged {
            summaries,
            pieces,
            dispatches,
        }
    }
}

fn push(
    batch: &mut Batch,
    op: &AnyOperator,
    case: &DmlCase,
    gpu: &[wgpu::Buffer],
) -> RecordSummary {
    let bindings = case.bindings(gpu);
    match op {
        AnyOperator::BitXor(op) => batch.push(op, &bindings),
        AnyOperator::LogicalXor(op) => batch.push(op, &bindings),
        AnyOperator::BitwiseXor(op) => batch.push(op, &bindings),
    }
    .unwrap_or_else(|e| panic!("push: {e}\n{case:?}"))
}
