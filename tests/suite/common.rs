//! Test harness: the shared context, and cases that check every byte of every buffer against
//! the CPU reference.
//!
//! Sentinel-filled buffers, recording and submitting a call and reading buffers back are the
//! conformance runner's engine ([`gpu_xor_testkit::engine`]); random bytes and the
//! comparison of every byte are the test kit's ([`gpu_xor_testkit`]). This file builds the
//! suite's cases on them.
use std::sync::OnceLock;

use gpu_xor::inspect::RecordSummary;
use gpu_xor::{Context, ContextOptions, Error, KernelTuning};
use gpu_xor_testkit::engine;
use gpu_xor_testkit::seeds::Seeded;
use gpu_xor_testkit::{SplitMix64, compare_buffer, compare_buffers};
use proptest::test_runner::{Config as ProptestConfig, RngSeed};

/// The seed every property test of the suite draws from, unless `GPU_XOR_SEED` moves it
/// ([`gpu_xor_testkit::seeds`]).
const PROPERTY_SEED: u64 = 0x9e09_e271;

/// A property test's configuration: `cases` draws (or `GPU_XOR_CASES`) from the suite's fixed
/// seed (or one `GPU_XOR_SEED` gives), so that every run draws the same cases and a failure
/// replays with the variables its run had. The committed regression files
/// (`tests/proptest-regressions/`) run first.
pub fn property(cases: u32) -> ProptestConfig {
    let run = Seeded::new(PROPERTY_SEED, cases.into());
    ProptestConfig {
        cases: u32::try_from(run.cases).unwrap_or(u32::MAX),
        rng_seed: RngSeed::Fixed(run.seed),
        ..ProptestConfig::default()
    }
}

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

/// A context on the suite's device and queue with other options.
pub fn on_suite_device(options: &ContextOptions) -> Context {
    let base = ctx();
    Context::with_options(base.device().clone(), base.queue().clone(), options)
        .unwrap_or_else(|e| panic!("{options:?}: {e}"))
}

/// The same device with 4 KiB windows, so that every path crosses window seams.
pub fn small_windows() -> &'static Context {
    static CTX: OnceLock<Context> = OnceLock::new();
    CTX.get_or_init(|| {
        on_suite_device(&ContextOptions {
            max_window_bytes: Some(4096),
            ..ContextOptions::default()
        })
    })
}

/// The suite's device with every reduction run by the untiled kernel, contractions
/// included: the tiled kernel's fallback, to compare with.
pub fn untiled() -> &'static Context {
    static CTX: OnceLock<Context> = OnceLock::new();
    CTX.get_or_init(|| {
        on_suite_device(&ContextOptions {
            untiled_contractions: true,
            ..ContextOptions::default()
        })
    })
}

/// The suite's device with the kernel choices tuned for `tuning` (`Gpu` or `Cpu`), whatever
/// the adapter: every candidate runs on every adapter the suite runs on.
pub fn tuned(tuning: KernelTuning) -> &'static Context {
    static GPU: OnceLock<Context> = OnceLock::new();
    static CPU: OnceLock<Context> = OnceLock::new();
    let cell = match tuning {
        KernelTuning::Cpu => &CPU,
        _ => &GPU,
    };
    cell.get_or_init(|| {
        on_suite_device(&ContextOptions {
            kernel_tuning: tuning,
            ..ContextOptions::default()
        })
    })
}

/// A device of the suite's adapter whose grids are at most 3 workgroups a side, so that the
/// rows and tile kernels split a piece into records of a few rows, and the flat kernels' grids
/// go two-dimensional after 768 invocations. Its windows are of 2,304 bytes, 9 workgroups'
/// units, the most a flat grid of it holds.
pub fn few_groups() -> &'static Context {
    static CTX: OnceLock<Context> = OnceLock::new();
    CTX.get_or_init(|| small_grids(3, KernelTuning::Auto))
}

/// A device of the suite's adapter whose grids are at most 16 workgroups a side, its kernels
/// tuned for GPUs (a batch of matrices counted on one grid): windows of 64 KiB hold tile
/// pieces of many tile rows, which run in records of 16.
pub fn grids_of_16() -> &'static Context {
    static CTX: OnceLock<Context> = OnceLock::new();
    CTX.get_or_init(|| small_grids(16, KernelTuning::Gpu))
}

/// The adapter that the suite's devices of their own come from: the default request to a
/// new instance of the environment's backends (`WGPU_BACKEND`).
pub async fn suite_adapter() -> wgpu::Adapter {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    instance
        .request_adapter(&Default::default())
        .await
        .expect("an adapter")
}

/// A context of `kernel_tuning` on a device of the suite's adapter whose grids are at most
/// `groups` workgroups a side.
fn small_grids(groups: u32, kernel_tuning: KernelTuning) -> Context {
    let (device, queue) = pollster::block_on(async {
        let adapter = suite_adapter().await;
        adapter
            .request_device(&wgpu::DeviceDescriptor {
                required_limits: wgpu::Limits {
                    max_compute_workgroups_per_dimension: groups,
                    ..adapter.limits()
                },
                ..Default::default()
            })
            .await
            .unwrap_or_else(|e| panic!("a device with {groups} workgroups a side: {e}"))
    });
    let options = ContextOptions {
        kernel_tuning,
        ..ContextOptions::default()
    };
    Context::with_options(device, queue, &options).expect("a context")
}

pub use gpu_xor_testkit::random_bytes;

/// A storage buffer (also a copy source and destination) holding `bytes`.
pub fn buffer(ctx: &Context, bytes: &[u8]) -> wgpu::Buffer {
    engine::storage_buffer(ctx, "test", bytes)
}

/// The device and windows of `ctx`, binding operands only as WebGPU allows
/// ([`ContextOptions::webgpu_binding_rules`]), its kernels tuned as `ctx`'s.
pub fn webgpu_rules(ctx: &Context) -> Context {
    twin(ctx, true, ctx.kernel_tuning())
}

/// The device and windows of `ctx` under each fixed rule, the CPU adapters' first: for the
/// kernels whose form follows the rule (the shifted-rows kernel's), so that every form runs
/// on every adapter.
pub fn both_rules(ctx: &Context) -> [Context; 2] {
    [KernelTuning::Cpu, KernelTuning::Gpu].map(|tuning| twin(ctx, false, tuning))
}

/// A context on the device and queue of `ctx`, with its windows, binding operands as WebGPU
/// allows where `webgpu`, its kernels tuned for `tuning` (`Cpu`, `Gpu` or `Measured`): one
/// per combination, made once.
fn twin(ctx: &Context, webgpu: bool, tuning: KernelTuning) -> Context {
    static TWINS: OnceLock<std::sync::Mutex<Vec<(bool, Context)>>> = OnceLock::new();
    let mut twins = TWINS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    let same = |(w, t): &&(bool, Context)| {
        *w == webgpu
            && t.device() == ctx.device()
            && t.max_window_bytes() == ctx.max_window_bytes()
            && t.kernel_tuning() == tuning
    };
    if let Some((_, t)) = twins.iter().find(same) {
        return t.clone();
    }
    let twin = Context::with_options(
        ctx.device().clone(),
        ctx.queue().clone(),
        &ContextOptions {
            max_window_bytes: Some(ctx.max_window_bytes()),
            webgpu_binding_rules: webgpu,
            kernel_tuning: tuning,
            ..ContextOptions::default()
        },
    )
    .expect("the options of a working context");
    twins.push((webgpu, twin.clone()));
    twin
}

pub use gpu_xor::Operator;
pub use gpu_xor_testkit::dml::{DmlCase, Place, place};
pub use gpu_xor_testkit::expect::{scatter_kind, tile_kernel};
pub use gpu_xor_testkit::{DIRECTML, OPENVINO, OperatorExt};

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
                compare_buffers(&self.names(), &got, &self.buffers, None)
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
        if let Err(e) = compare_buffers(&self.names(), &got, &self.buffers, None) {
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
    if let Err(e) = compare_buffer(&name, got, want, output) {
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

pub use gpu_xor_testkit::ov::OvCase;

/// How the native suite runs an [`OvCase`]: blocking.
pub trait CheckOv {
    /// Runs on `ctx`; checks output elements against the reference and every other byte
    /// against what it held. Returns the output shape and the summary.
    fn check_on(&self, ctx: &Context) -> (Vec<usize>, RecordSummary);
    /// [`CheckOv::check_on`] on the shared context.
    fn check(&self) -> (Vec<usize>, RecordSummary);
}

impl CheckOv for OvCase {
    fn check_on(&self, ctx: &Context) -> (Vec<usize>, RecordSummary) {
        let run = self.prepare();
        let op = self.operator(ctx).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(op.output_shape(), Some(run.shape.clone()));
        let gpu = engine::upload(ctx, &run.names, &run.host);
        let bindings = self.bindings(&run, &gpu);
        let summary = engine::submit(ctx, &op, &bindings).unwrap_or_else(|e| panic!("{e}"));
        // Distinct buffers, or an output exactly on A: nothing to bind apart.
        assert_eq!(summary.overlapping_bindings, 0);
        let got = engine::read_back_blocking(ctx, &gpu).unwrap();
        if let Err(e) = compare_buffers(&run.names, &got, &run.expected, Some(&run.layout)) {
            panic!("{}: {e}", self.describe());
        }
        (run.shape, summary)
    }

    fn check(&self) -> (Vec<usize>, RecordSummary) {
        self.check_on(ctx())
    }
}

/// The kernel a DirectML call of a layout that `otherwise` would run takes instead where it
/// is a channel broadcast ([`gpu_xor_testkit::expect::channel_broadcast`]) with its dense
/// operands on 16-byte boundaries: the contiguous kernel, the repeated input splat per row.
/// Window pieces of one row are no channel broadcast, and a window piece of a larger call may
/// be one where the whole is not: a call cut into windows may mix both either way (a call of
/// one piece runs the first kernel of the list).
pub fn channel_or(
    case: &DmlCase,
    otherwise: gpu_xor::inspect::KernelKind,
) -> Vec<gpu_xor::inspect::KernelKind> {
    use gpu_xor_testkit::expect::{channel_broadcast, repeats_along_rows};
    let inputs = [&case.a, &case.b];
    // Places are A's, B's and the output's.
    let aligned = case.places[2].offset.is_multiple_of(16)
        && (0..2).all(|i| {
            repeats_along_rows(&case.out, inputs[i]) || case.places[i].offset.is_multiple_of(16)
        });
    if channel_broadcast(&case.out, inputs) && aligned {
        vec![gpu_xor::inspect::KernelKind::Contiguous, otherwise]
    } else {
        vec![otherwise, gpu_xor::inspect::KernelKind::Contiguous]
    }
}

/// Every dispatch of the call ran one of `kernels`, the first where the call is one piece.
pub fn assert_kernels(summary: &RecordSummary, kernels: &[gpu_xor::inspect::KernelKind]) {
    let first = kernels[0];
    assert!(
        !summary.dispatches.is_empty()
            && summary.dispatches.iter().all(|k| kernels.contains(k))
            && (summary.dispatches.len() > 1 || summary.dispatches[0] == first),
        "expected {kernels:?}: {summary:?}"
    );
}

/// Records `calls` in order with `record_in_pass` into one compute pass of a new encoder, and
/// submits it.
pub fn submit_in_one_pass<'a>(
    ctx: &Context,
    calls: impl IntoIterator<Item = &'a gpu_xor::Prepared>,
) {
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        for call in calls {
            call.record_in_pass(&mut pass).unwrap();
        }
    }
    ctx.queue().submit([encoder.finish()]);
}

/// Every dispatch of the call ran `kernel` (there may be several, one per window).
pub fn assert_kernel(summary: &RecordSummary, kernel: gpu_xor::inspect::KernelKind) {
    assert!(
        !summary.dispatches.is_empty() && summary.dispatches.iter().all(|&k| k == kernel),
        "expected only {kernel:?}: {summary:?}"
    );
}

/// Whether the DirectML operator `op` takes `data_type` on the suite's feature level (the
/// default, 4.1): the bitwise ones every DirectML type, the logical ones `u8` and `u32`, the
/// shifts the unsigned types.
pub fn takes(op: Operator, data_type: gpu_xor::DataType) -> bool {
    op.takes(data_type)
}

/// Every DirectML operator that takes `data_type`, XOR first.
pub fn family_of(data_type: gpu_xor::DataType) -> Vec<Operator> {
    DIRECTML
        .into_iter()
        .filter(|&op| takes(op, data_type))
        .collect()
}

/// Zeroes about half the 4-byte words of every buffer, each buffer in a pattern of its own,
/// so that a logical function sees every pair of truth values (A and B zero or not
/// independently, also where they sit at the same offset of different buffers) and nonzero
/// values other than 1.
pub fn speckle(buffers: &mut [Vec<u8>], seed: u64) {
    for (k, buffer) in buffers.iter_mut().enumerate() {
        let mut rng = SplitMix64::new(seed ^ (k as u64 + 1).wrapping_mul(0xA076_1D64));
        for word in buffer.chunks_mut(4) {
            if rng.next_u64() & 1 == 0 {
                word.fill(0);
            }
        }
    }
}
