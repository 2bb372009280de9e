//! Test harness: the shared context, and cases that check every byte of every buffer against
//! the CPU reference.
//!
//! Random bytes, sentinel-filled buffers, recording and submitting a call, reading buffers
//! back and comparing them are the conformance runner's engine
//! ([`gpu_xor_conformance::engine`]); this file builds the suite's cases on it.

#![allow(dead_code)]

use std::sync::OnceLock;

use gpu_xor::{Context, ContextOptions, DataType, Error, RecordSummary};
use gpu_xor_conformance::engine::{self, OutputLayout};

/// The context every GPU test uses, made from the environment (`WGPU_BACKEND`,
/// `WGPU_ADAPTER_NAME`, `GPU_XOR_LIMITS`, `GPU_XOR_MAX_WINDOW`). Without an adapter the
/// suite fails here, loudly.
pub fn ctx() -> &'static Context {
    static CTX: OnceLock<Context> = OnceLock::new();
    CTX.get_or_init(|| {
        let ctx = Context::from_env().unwrap_or_else(|e| {
            panic!(
                "no usable GPU adapter ({e}); on a headless Linux machine install Mesa's \
                 lavapipe: apt-get install -y mesa-vulkan-drivers libvulkan1"
            )
        });
        let info = ctx.adapter_info();
        eprintln!(
            "gpu-xor tests on: {} ({:?}, {:?}), max window {} bytes",
            info.name,
            info.backend,
            info.device_type,
            ctx.max_window_bytes()
        );
        ctx
    })
}

/// The same device with 4 KiB windows, so that every path crosses window seams.
pub fn small_windows() -> &'static Context {
    static CTX: OnceLock<Context> = OnceLock::new();
    CTX.get_or_init(|| {
        let base = ctx();
        Context::with_options(
            base.device().clone(),
            base.queue().clone(),
            &ContextOptions {
                max_window_bytes: Some(4096),
                ..ContextOptions::default()
            },
        )
        .expect("4 KiB windows")
    })
}

/// Deterministic bytes: the SplitMix64 stream of the conformance format.
pub fn random_bytes(seed: u64, len: usize) -> Vec<u8> {
    engine::random_bytes(seed, len)
}

/// A storage buffer (also a copy source and destination) holding `bytes`.
pub fn buffer(ctx: &Context, bytes: &[u8]) -> wgpu::Buffer {
    engine::storage_buffer(ctx, "test", bytes)
}

/// The device and windows of `ctx`, binding operands only as WebGPU allows
/// ([`ContextOptions::webgpu_binding_rules`]): one context per window size, made once.
pub fn webgpu_rules(ctx: &Context) -> Context {
    static TWINS: OnceLock<std::sync::Mutex<Vec<Context>>> = OnceLock::new();
    let mut twins = TWINS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    let same =
        |t: &Context| t.device() == ctx.device() && t.max_window_bytes() == ctx.max_window_bytes();
    if let Some(t) = twins.iter().find(|t| same(t)) {
        return t.clone();
    }
    let twin = Context::with_options(
        ctx.device().clone(),
        ctx.queue().clone(),
        &ContextOptions {
            max_window_bytes: Some(ctx.max_window_bytes()),
            webgpu_binding_rules: true,
            ..ContextOptions::default()
        },
    )
    .expect("the options of a working context");
    twins.push(twin.clone());
    twin
}

pub use gpu_xor_conformance::dml::{DmlCase, DmlOp, Place, place};

/// How the native suite runs a [`DmlCase`]: blocking, on the suite's contexts.
pub trait Check {
    /// Runs the case on `ctx` and checks every byte of every buffer against the reference.
    fn check_on(&self, ctx: &Context) -> RecordSummary;
    /// [`Check::check_on`] on the shared context.
    fn check(&self) -> RecordSummary;
    /// Runs the case expecting `rule` to be refused; checks that no byte changed.
    fn check_error(&self, rule: &str) -> Error;
    /// One storage buffer per entry of `buffers`, labelled with the tensors it holds.
    fn upload(&self, ctx: &Context) -> Vec<wgpu::Buffer>;
    /// Creates the operator, records the call and submits it (without waiting).
    fn run(&self, ctx: &Context, gpu: &[wgpu::Buffer]) -> Result<RecordSummary, Error>;
}

impl Check for DmlCase {
    /// Runs the case on `ctx` and checks every byte of every buffer against the reference.
    ///
    /// Where tensors share a buffer, the case runs again under WebGPU's binding rule (no
    /// writable binding overlapping another binding of its buffer, which a browser's WebGPU
    /// enforces and native backends do not): it must give the same bytes with no overlapping
    /// binding, or be refused as `shared_buffer_span_too_large` exactly when the native call
    /// needed overlapping bindings.
    fn check_on(&self, ctx: &Context) -> RecordSummary {
        let gpu = self.upload(ctx);
        let summary = self.run(ctx, &gpu).unwrap_or_else(|e| panic!("{e}"));
        let expected = self.expected();
        let got = engine::read_back_blocking(ctx, &gpu).unwrap();
        for (i, (got, want)) in got.iter().zip(&expected).enumerate() {
            compare(i, got, want, self);
        }
        let p = self.places;
        let shared =
            p[0].buffer == p[1].buffer || p[0].buffer == p[2].buffer || p[1].buffer == p[2].buffer;
        if !shared {
            assert_eq!(summary.overlapping_bindings, 0, "{}", self.describe());
            return summary;
        }
        let twin = webgpu_rules(ctx);
        let gpu = self.upload(&twin);
        match self.run(&twin, &gpu) {
            Ok(strict) => {
                assert_eq!(
                    (strict.overlapping_bindings, summary.overlapping_bindings),
                    (0, 0),
                    "overlapping bindings under WebGPU's rule, or natively where they can be \
                     avoided\n{}",
                    self.describe()
                );
                let got = engine::read_back_blocking(&twin, &gpu).unwrap();
                for (i, (got, want)) in got.iter().zip(&expected).enumerate() {
                    compare(i, got, want, self);
                }
            }
            Err(e) => {
                assert_eq!(e.rule(), "shared_buffer_span_too_large", "{e}");
                assert!(
                    summary.overlapping_bindings > 0,
                    "refused under WebGPU's rule, though natively it was bound apart\n{}",
                    self.describe()
                );
                let got = engine::read_back_blocking(&twin, &gpu).unwrap();
                engine::compare_buffers(&self.names(), &got, &self.buffers, None)
                    .unwrap_or_else(|e| panic!("the refused call changed a byte: {e}"));
            }
        }
        summary
    }

    /// [`DmlCase::check_on`] on the shared context.
    fn check(&self) -> RecordSummary {
        self.check_on(ctx())
    }

    /// Runs the case expecting `rule` to be refused; checks that no byte changed.
    fn check_error(&self, rule: &str) -> Error {
        let ctx = ctx();
        let gpu = self.upload(ctx);
        let err = self
            .run(ctx, &gpu)
            .expect_err("the call should have been refused");
        assert_eq!(err.rule(), rule, "{err}");
        let got = engine::read_back_blocking(ctx, &gpu).unwrap();
        if let Err(e) = engine::compare_buffers(&self.names(), &got, &self.buffers, None) {
            panic!("the refused call changed a byte: {e}\n{}", self.describe());
        }
        err
    }

    /// One storage buffer per entry of `buffers`, labelled with the tensors it holds.
    fn upload(&self, ctx: &Context) -> Vec<wgpu::Buffer> {
        engine::upload(ctx, &self.names(), &self.buffers)
    }

    /// Creates the operator, records the call into an encoder of its own and submits it
    /// (without waiting: a read-back sees its writes).
    fn run(&self, ctx: &Context, gpu: &[wgpu::Buffer]) -> Result<RecordSummary, Error> {
        let op = self.operator(ctx)?;
        engine::submit(ctx, &op, &self.bindings(gpu))
    }
}

/// Compares buffer `buffer` of `case` with what it must hold: the output's elements (named by
/// element, index and byte on a mismatch), then every other byte.
pub fn compare(buffer: usize, got: &[u8], want: &[u8], case: &DmlCase) {
    let layout = case.output_layout();
    let output = (layout.buffer == buffer).then_some(&layout);
    let name = case
        .names()
        .get(buffer)
        .cloned()
        .unwrap_or_else(|| buffer.to_string());
    if let Err(e) = engine::compare_buffer(&name, got, want, output) {
        panic!("{e}\n{}", case.describe());
    }
}

/// Calls `$body` (an expression using `$dt`) once per listed type, as separate tests.
#[macro_export]
macro_rules! per_type {
    ($name:ident, |$dt:ident| $body:expr, [$($t:ident),* $(,)?]) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            $(
                #[test]
                #[allow(non_snake_case)]
                fn $t() {
                    let $dt = gpu_xor::DataType::$t;
                    $body
                }
            )*
        }
    };
}

/// An OpenVINO BitwiseXor-13 call: inputs in sentinel-filled buffers at the given offsets,
/// the output in its own sentinel-filled buffer (or on A's range with `out_on_a`).
pub struct OvCase {
    pub data_type: DataType,
    pub a_shape: Vec<usize>,
    pub b_shape: Vec<usize>,
    pub a: Vec<u8>,
    pub b: Vec<u8>,
    pub broadcast: gpu_xor::AutoBroadcast,
    /// Byte offsets of A, B and the output in their buffers.
    pub offsets: [u64; 3],
    /// Bind the output to exactly A's range (in place).
    pub out_on_a: bool,
}

impl OvCase {
    pub fn new(
        data_type: DataType,
        a_shape: &[usize],
        b_shape: &[usize],
        broadcast: gpu_xor::AutoBroadcast,
        seed: u64,
    ) -> OvCase {
        let w = data_type.size_in_bytes() as usize;
        let n = |s: &[usize]| s.iter().product::<usize>() * w;
        let mut a = random_bytes(seed, n(a_shape));
        let mut b = random_bytes(seed ^ 0x77, n(b_shape));
        if data_type == DataType::Bool {
            // Mostly canonical 0/1, with some non-canonical nonzero bytes.
            for (i, x) in a.iter_mut().chain(b.iter_mut()).enumerate() {
                *x = match *x % 8 {
                    0..=2 => 0,
                    3..=5 => 1,
                    _ => (*x | 2) & if i % 2 == 0 { 0xff } else { 0x82 },
                };
            }
        }
        OvCase {
            data_type,
            a_shape: a_shape.to_vec(),
            b_shape: b_shape.to_vec(),
            a,
            b,
            broadcast,
            offsets: [16, 32, 48],
            out_on_a: false,
        }
    }

    /// Runs on `ctx`; checks output elements against the reference and every other byte
    /// against what it held. Returns the output shape and the summary.
    pub fn check_on(&self, ctx: &Context) -> (Vec<usize>, RecordSummary) {
        let (shape, want) = gpu_xor::reference::bitwise_xor(
            self.data_type,
            &self.a_shape,
            &self.a,
            &self.b_shape,
            &self.b,
            self.broadcast,
        )
        .expect("reference");
        let op = gpu_xor::BitwiseXor::new(
            ctx,
            &gpu_xor::BitwiseXorDesc {
                a_type: self.data_type,
                b_type: self.data_type,
                a_shape: self.a_shape.clone(),
                b_shape: self.b_shape.clone(),
                auto_broadcast: self.broadcast,
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(op.output_shape(), shape);
        let pad = |x: usize| x.div_ceil(4) * 4;
        let fill = |data: &[u8], offset: u64, seed: u64| {
            let mut buf =
                random_bytes(seed, offset as usize + pad(data.len().max(want.len())) + 40);
            buf[offset as usize..offset as usize + data.len()].copy_from_slice(data);
            buf
        };
        let host = vec![
            fill(&self.a, self.offsets[0], 1),
            fill(&self.b, self.offsets[1], 2),
            fill(&[], self.offsets[2], 3),
        ];
        let (out_buffer, out_offset) = if self.out_on_a {
            (0, self.offsets[0])
        } else {
            (2, self.offsets[2])
        };
        let names = if self.out_on_a {
            ["a=out", "b", "unused"]
        } else {
            ["a", "b", "out"]
        }
        .map(String::from);
        let gpu = engine::upload(ctx, &names, &host);
        let width = self.data_type.size_in_bytes() as usize;
        let bytes = |s: &[usize]| pad(s.iter().product::<usize>() * width) as u64;
        let bindings = engine::bindings(
            &gpu,
            [
                (0, self.offsets[0], bytes(&self.a_shape)),
                (1, self.offsets[1], bytes(&self.b_shape)),
                (out_buffer, out_offset, bytes(&shape)),
            ],
        );
        let summary = engine::submit(ctx, &op.into(), &bindings).unwrap_or_else(|e| panic!("{e}"));
        // Distinct buffers, or an output exactly on A: nothing to bind apart.
        assert_eq!(summary.overlapping_bindings, 0);
        let mut expected = host;
        let at = out_offset as usize;
        expected[out_buffer][at..at + want.len()].copy_from_slice(&want);
        let got = engine::read_back_blocking(ctx, &gpu).unwrap();
        let sizes: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
        let layout = OutputLayout::packed(out_buffer, out_offset, width as u64, &sizes);
        if let Err(e) = engine::compare_buffers(&names, &got, &expected, Some(&layout)) {
            panic!(
                "{:?} {:?} x {:?} ({}): {e}",
                self.data_type, self.a_shape, self.b_shape, self.broadcast
            );
        }
        (shape, summary)
    }

    pub fn check(&self) -> (Vec<usize>, RecordSummary) {
        self.check_on(ctx())
    }
}

/// Every dispatch of the call ran `kernel` (there may be several, one per window).
pub fn assert_kernel(summary: &RecordSummary, kernel: gpu_xor::KernelKind) {
    assert!(
        !summary.dispatches.is_empty() && summary.dispatches.iter().all(|&k| k == kernel),
        "expected only {kernel:?}: {summary:?}"
    );
}
