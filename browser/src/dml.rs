//! DirectML calls checked byte for byte against the CPU reference, without blocking.

use gpu_xor::inspect::RecordSummary;
use gpu_xor::{Context, Error};
use gpu_xor_testkit::engine;
use gpu_xor_testkit::{compare_buffer, compare_buffers};

use crate::{assert_accepted, watched};

pub use gpu_xor_testkit::dml::{DmlCase, Place, place};

/// How the browser suite runs a [`DmlCase`]: without blocking.
// The futures are awaited on the page's one thread; nothing needs them `Send`.
#[allow(async_fn_in_trait)]
pub trait Check {
    /// Creates the operator, records the call into an encoder of its own and submits it,
    /// without waiting (a later read-back sees its writes).
    fn submit(&self, ctx: &Context, gpu: &[wgpu::Buffer]) -> Result<RecordSummary, Error>;
    /// Runs the call on `ctx` and compares every byte of every buffer with the reference's
    /// image. Returns what was recorded.
    async fn check_on(&self, ctx: &Context) -> RecordSummary;
    /// Runs the call expecting it to be refused with `rule`; checks that no byte of any
    /// buffer changed and returns the error.
    async fn check_error_on(&self, ctx: &Context, rule: &str) -> Error;
}

impl Check for DmlCase {
    /// Creates the operator, records the call into an encoder of its own and submits it,
    /// without waiting (a later read-back sees its writes).
    fn submit(&self, ctx: &Context, gpu: &[wgpu::Buffer]) -> Result<RecordSummary, Error> {
        engine::submit(ctx, &self.operator(ctx)?, &self.bindings(gpu))
    }

    /// Runs the call on `ctx` and compares every byte of every buffer with the reference's
    /// image: the output's elements (named by element, index and byte on a mismatch), then
    /// every other byte. Returns what was recorded.
    async fn check_on(&self, ctx: &Context) -> RecordSummary {
        let names = self.names();
        let gpu = engine::upload(ctx, &names, &self.buffers);
        let (summary, answer) = watched(ctx, || self.submit(ctx, &gpu));
        let summary = summary.unwrap_or_else(|e| panic!("{e}\n{self:?}"));
        // The browser's WebGPU refuses overlapping writable bindings; the context never
        // makes them here.
        assert_eq!(summary.overlapping_bindings, 0, "{self:?}");
        let got = engine::read_back(ctx, &gpu)
            .await
            .unwrap_or_else(|e| panic!("read-back: {e}\n{self:?}"));
        assert_accepted(answer, self).await;
        let want = self.expected();
        let layout = self.output_layout();
        for (k, (got, want)) in got.iter().zip(&want).enumerate() {
            let output = (layout.buffer == k).then_some(&layout);
            if let Err(e) = compare_buffer(&names[k], got, want, output) {
                panic!("{e}\n{self:?}");
            }
        }
        summary
    }

    /// Runs the call expecting it to be refused with `rule`; checks that no byte of any
    /// buffer changed (after every earlier submission has finished) and returns the error.
    async fn check_error_on(&self, ctx: &Context, rule: &str) -> Error {
        let names = self.names();
        let gpu = engine::upload(ctx, &names, &self.buffers);
        let err = match self.submit(ctx, &gpu) {
            Ok(summary) => panic!("the call was recorded ({summary:?}), not refused\n{self:?}"),
            Err(e) => e,
        };
        assert_eq!(err.rule(), rule, "{err}\n{self:?}");
        ctx.wait_async()
            .await
            .unwrap_or_else(|e| panic!("wait: {e}"));
        let got = engine::read_back(ctx, &gpu)
            .await
            .unwrap_or_else(|e| panic!("read-back: {e}"));
        if let Err(e) = compare_buffers(&names, &got, &self.buffers, None) {
            panic!("the refused call changed a byte: {e}\n{self:?}");
        }
        err
    }
}
