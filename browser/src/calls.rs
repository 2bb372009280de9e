//! Several calls on shared buffers (the conformance crate's [`Calls`]): run one by one, and
//! pushed into one merged batch, without blocking.

use gpu_xor::Context;
use gpu_xor::inspect::{KernelKind, RecordSummary};
use gpu_xor_testkit::compare_buffers;
use gpu_xor_testkit::dml::Calls;
use gpu_xor_testkit::engine;

use crate::dml::Check;
use crate::{assert_accepted, watched};

/// What [`CheckCalls::check`] found.
#[derive(Clone, Debug)]
pub struct Merged {
    /// Each call's summary, from [`gpu_xor::Batch::push`].
    pub summaries: Vec<RecordSummary>,
    /// The pieces the calls were cut into (the sum of their dispatches when recorded alone).
    pub pieces: usize,
    /// The dispatches the batch recorded.
    pub dispatches: usize,
}

/// How the browser suite runs a set of [`Calls`]: without blocking.
// The future is awaited on the page's one thread; nothing needs it `Send`.
#[allow(async_fn_in_trait)]
pub trait CheckCalls {
    /// Runs the calls one by one (each in a submission of its own), then all of them in one
    /// batch on fresh buffers; both must leave every byte of every buffer as the reference
    /// does. Every call must run on `kernel`. Then, on fresh buffers, the calls prepared
    /// (each alone, recorded into one compute pass the test opened, and as one prepared batch
    /// recorded twice more): every byte must be what the calls applied three times give.
    async fn check(&self, ctx: &Context, kernel: KernelKind) -> Merged;
}

impl CheckCalls for Calls {
    async fn check(&self, ctx: &Context, kernel: KernelKind) -> Merged {
        let names = self.names();
        let gpu = engine::upload(ctx, &names, &self.buffers);
        let ((), answer) = watched(ctx, || {
            for call in &self.calls {
                call.case(&[])
                    .submit(ctx, &gpu)
                    .unwrap_or_else(|e| panic!("one by one: {e}\n{call:?}"));
            }
        });
        compare(self, ctx, "one by one", &gpu, answer).await;

        let gpu = engine::upload(ctx, &names, &self.buffers);
        let mut batch = ctx.batch();
        let summaries = self
            .push_all(ctx, &mut batch, &gpu)
            .unwrap_or_else(|e| panic!("push: {e}\n{}", self.describe()));
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
        compare(self, ctx, "batched", &gpu, answer).await;

        for (s, call) in summaries.iter().zip(&self.calls) {
            assert!(
                !s.dispatches.is_empty() && s.dispatches.iter().all(|&k| k == kernel),
                "expected {kernel:?}, ran {:?}\n{call:?}",
                s.dispatches
            );
        }
        prepared(self, ctx).await;
        let pieces = summaries.iter().map(|s| s.dispatches.len()).sum();
        Merged {
            summaries,
            pieces,
            dispatches,
        }
    }
}

/// The calls as prepared calls, recorded three times over (see [`CheckCalls::check`]).
async fn prepared(calls: &Calls, ctx: &Context) {
    let gpu = engine::upload(ctx, &calls.names(), &calls.buffers);
    let (singles, batched) = calls
        .prepare_all(ctx, &gpu)
        .unwrap_or_else(|e| panic!("prepare: {e}\n{}", calls.describe()));
    let mut encoder = ctx
        .device()
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("gpu-xor-browser prepared"),
        });
    let ((), answer) = watched(ctx, || {
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            for p in &singles {
                p.record_in_pass(&mut pass)
                    .unwrap_or_else(|e| panic!("record_in_pass: {e}"));
            }
        }
        for _ in 0..2 {
            batched
                .record(&mut encoder)
                .unwrap_or_else(|e| panic!("prepared batch: {e}"));
        }
        ctx.queue().submit([encoder.finish()]);
    });
    compare(
        &calls.repeated(3),
        ctx,
        "prepared, recorded three times",
        &gpu,
        answer,
    )
    .await;
}

/// Reads every buffer back, checks that the device took the work (`answer`), and compares
/// every byte with the reference.
async fn compare(
    calls: &Calls,
    ctx: &Context,
    how: &str,
    gpu: &[wgpu::Buffer],
    answer: impl std::future::Future<Output = Option<wgpu::Error>>,
) {
    let got = engine::read_back(ctx, gpu)
        .await
        .unwrap_or_else(|e| panic!("{how}: read-back: {e}"));
    assert_accepted(answer, &(how, &calls.calls)).await;
    if let Err(e) = compare_buffers(&calls.names(), &got, &calls.expected(), None) {
        panic!("{how}: {e}\n{}", calls.describe());
    }
}
