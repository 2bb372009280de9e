//! The browser test suite of `gpu-xor` (see `browser/README.md`): the harness its tests share.
//!
//! The tests (`tests/web/`) run as `wasm32-unknown-unknown` in headless Chromium, on the
//! page's WebGPU, through `wasm-bindgen-test`. Nothing in them may block: every read-back is
//! [`gpu_xor::Context::read_buffer_async`] (through
//! [`gpu_xor_testkit::engine::read_back`]), every wait is awaited.
//!
//! What this crate gives them:
//!
//! - [`ctx`] and [`windowed`]: the page's context, made once, and the same device with small
//!   windows;
//! - [`DmlCase`] and [`OvCase`]: a call with every buffer filled with SplitMix64 bytes, the
//!   expected image of every buffer from the CPU reference ([`gpu_xor::reference`]), and a
//!   comparison of every byte ([`gpu_xor_testkit::compare_buffer`]);
//! - [`watched`] and [`assert_accepted`]: a validation error scope around a submission, so that
//!   work the browser refuses fails with its own message rather than as stale bytes;
//! - [`Calls`]: several calls on shared buffers, one by one and merged in one [`gpu_xor::Batch`];
//! - [`specials`]: the special bit patterns of each type;
//! - [`random_bytes`] and [`le_bytes`]: test data, from the test kit ([`gpu_xor_testkit`]);
//! - [`say`]: a line in the runner's output (the page's `#output`, which the runner prints).
//!
//! The crate compiles natively as well (it is a workspace member), where the same async
//! harness runs on any executor; only the tests are browser-only.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod calls;
mod dml;
mod ov;
pub mod specials;
mod web;

use std::cell::OnceCell;

use gpu_xor::inspect::{KernelKind, RecordSummary};
use gpu_xor::{Context, ContextOptions};

pub use calls::{CheckCalls, Merged};
pub use dml::{Check, DmlCase, Place, place};
pub use gpu_xor::Operator;
pub use gpu_xor_testkit::dml::{Call, Calls};
pub use gpu_xor_testkit::expect::{scatter_kind, tile_kernel, transposed_kernel};
pub use gpu_xor_testkit::random_bytes;
pub use gpu_xor_testkit::{DIRECTML, OPENVINO, OperatorExt};
pub use ov::{CheckOv, OvCase};
pub use web::{browser_adapter_report, say};

thread_local! {
    // Leaked, so that no destructor runs when a native thread ends (wgpu's own thread-locals
    // may be gone by then); a browser page has one thread and never ends it.
    static CONTEXT: OnceCell<&'static Context> = const { OnceCell::new() };
}

/// The page's context with its kernel choices tuned for `tuning` (`Gpu` or `Cpu`), whatever
/// the adapter (Chromium's WebGPU here reports a CPU device): every candidate runs in the
/// browser too.
pub async fn tuned(tuning: gpu_xor::KernelTuning) -> Context {
    let base = ctx().await;
    Context::with_options(
        base.device().clone(),
        base.queue().clone(),
        &gpu_xor::ContextOptions {
            kernel_tuning: tuning,
            ..gpu_xor::ContextOptions::default()
        },
    )
    .expect("a tuned context")
}

/// The context every test uses: the page's WebGPU adapter with its own limits
/// ([`Context::from_env_async`]), made on first use and printed once. Without an adapter the
/// test fails here, loudly.
pub async fn ctx() -> Context {
    if let Some(ctx) = CONTEXT.with(|c| c.get().copied()) {
        return ctx.clone();
    }
    let made = Context::from_env_async().await.unwrap_or_else(|e| {
        panic!(
            "no usable WebGPU adapter ({e}); Chromium needs --enable-unsafe-webgpu \
             (browser/webdriver.json)"
        )
    });
    // Tests run one at a time, but an await above lets another test in first: keep the
    // context that got there first.
    CONTEXT.with(|c| {
        if c.get().is_none() {
            let info = made.adapter_info();
            say(&format!(
                "gpu-xor browser tests on: {:?} adapter {:?} ({:?}), max window {} bytes",
                info.backend,
                info.name,
                info.device_type,
                made.max_window_bytes()
            ));
            let _ = c.set(Box::leak(Box::new(made)));
        }
        c.get().map(|&ctx| ctx.clone()).expect("set above")
    })
}

/// The same device as [`ctx`], with windows of at most `bytes`, so that every path crosses
/// window seams (at least twice the storage offset alignment: 512 bytes on Chromium).
pub async fn windowed(bytes: u64) -> Context {
    let base = ctx().await;
    Context::with_options(
        base.device().clone(),
        base.queue().clone(),
        &ContextOptions {
            max_window_bytes: Some(bytes),
            ..ContextOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{bytes}-byte windows: {e}"))
}

/// Runs `submit` (which records and submits work on `ctx`) inside a validation error scope,
/// and returns its result with the scope's answer: what the device refused of the submitted
/// work (in a browser a refused submission is otherwise only a console message, and the
/// buffers simply keep their bytes). Await the answer after reading back.
pub fn watched<T>(
    ctx: &Context,
    submit: impl FnOnce() -> T,
) -> (T, impl std::future::Future<Output = Option<wgpu::Error>>) {
    let scope = ctx.device().push_error_scope(wgpu::ErrorFilter::Validation);
    let result = submit();
    (result, scope.pop())
}

/// Panics with the device's own words when it refused the work of `what`.
pub async fn assert_accepted(
    answer: impl std::future::Future<Output = Option<wgpu::Error>>,
    what: &dyn std::fmt::Debug,
) {
    if let Some(e) = answer.await {
        panic!("the device refused the submitted work: {e}\n{what:?}");
    }
}

/// Every dispatch of the call ran `kernel` (one per window or piece; at least one).
pub fn assert_kernel(summary: &RecordSummary, kernel: KernelKind) {
    assert!(
        !summary.dispatches.is_empty() && summary.dispatches.iter().all(|&k| k == kernel),
        "expected only {kernel:?}: {summary:?}"
    );
}

/// Little-endian bytes of `values`, each cut to `width` bytes: [`gpu_xor_testkit::le_bytes`]
/// for the `usize` widths the browser tests compute with.
pub fn le_bytes(values: &[u64], width: usize) -> Vec<u8> {
    gpu_xor_testkit::le_bytes(values, width as u64)
}
