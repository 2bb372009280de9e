//! OpenVINO calls (BitwiseXor-13 and its family) checked byte for byte against the CPU reference, without
//! blocking.

use gpu_xor::Context;
use gpu_xor::inspect::RecordSummary;
use gpu_xor_testkit::compare_buffers;
use gpu_xor_testkit::engine;
pub use gpu_xor_testkit::ov::OvCase;

use crate::{assert_accepted, watched};

/// How the browser suite runs an [`OvCase`]: without blocking.
// The future is awaited on the page's one thread; nothing needs it `Send`.
#[allow(async_fn_in_trait)]
pub trait CheckOv {
    /// Runs the call on `ctx` and compares every byte of every buffer with the reference's
    /// image. Returns the output shape and what was recorded.
    async fn check_on(&self, ctx: &Context) -> (Vec<usize>, RecordSummary);
}

impl CheckOv for OvCase {
    async fn check_on(&self, ctx: &Context) -> (Vec<usize>, RecordSummary) {
        let run = self.prepare();
        let op = self
            .operator(ctx)
            .unwrap_or_else(|e| panic!("{e}\n{self:?}"));
        assert_eq!(op.output_shape(), Some(run.shape.clone()), "{self:?}");
        let gpu = engine::upload(ctx, &run.names, &run.host);
        let bindings = self.bindings(&run, &gpu);
        let (summary, answer) = watched(ctx, || engine::submit(ctx, &op, &bindings));
        let summary = summary.unwrap_or_else(|e| panic!("{e}\n{self:?}"));
        let got = engine::read_back(ctx, &gpu)
            .await
            .unwrap_or_else(|e| panic!("read-back: {e}\n{self:?}"));
        assert_accepted(answer, self).await;
        if let Err(e) = compare_buffers(&run.names, &got, &run.expected, Some(&run.layout)) {
            panic!("{}: {e}", self.describe());
        }
        (run.shape, summary)
    }
}
