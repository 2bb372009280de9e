//! Warming up: compiling the pipelines of a graph's operators and, under
//! [`KernelTuning::Measured`], timing the kernels that can run each of their layouts on the
//! device, keeping the fastest in the context ([`KernelChoices`]).

use std::future::Future;
use std::sync::Arc;

use super::batch::CompiledOperator;
use super::binding::{Bindings, TensorBinding};
use super::context::Context;
use super::encode::Prepared;
use crate::error::Error;
use crate::inspect::KernelKind;
use crate::layout::Plan;
use crate::schedule::KernelTuning;
use crate::schedule::select;
use crate::schedule::tune::{self, KernelChoices, TuningKey};

/// What one measurement did ([`Context::tune`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct TuningReport {
    /// Layout classes measured now, each with its choice kept.
    pub measured: usize,
    /// Classes that already had a choice (measured before, or loaded).
    pub known: usize,
    /// Classes not measured: a call larger than one binding window, or a layout only one
    /// kernel runs on the measurement's bindings. They follow the fixed rule.
    pub skipped: usize,
    /// Candidate kernels timed, over every class measured.
    pub candidates: usize,
    /// Seconds spent measuring (compiling the candidates' pipelines included).
    pub seconds: f64,
    /// Whether the candidates were timed by the GPU's own clock (timestamps at the start and
    /// end of a compute pass, where the device has `wgpu::Features::TIMESTAMP_QUERY`), rather
    /// than wall-clock over the submission and its wait.
    pub gpu_timestamps: bool,
}

/// Rounds of timing: each round times every candidate once, in turn, so that whatever else
/// the machine does touches them alike; each candidate's least time is kept
/// ([`tune::fastest`]).
const ROUNDS: usize = 5;
/// Rounds that run whatever they cost: a candidate judged on one sample loses to whatever
/// else the machine did during it. On lavapipe a 64 MiB call takes 50 to 150 ms, so a
/// quarter of a second allowed one round, and single samples chose the gather kernel over
/// the block tile kernel, 0.35 to 0.57 of its speed, for three of the benchmark's layouts.
const MIN_ROUNDS: usize = 3;
/// The most calls one timed submission holds.
const MAX_REPS: u32 = 256;
/// The time one submission aims at: enough calls that submitting and waiting are a small
/// part of it. A browser's clock counts milliseconds, so it aims higher there.
#[cfg(not(target_arch = "wasm32"))]
const SAMPLE_SECONDS: f64 = 2e-3;
#[cfg(target_arch = "wasm32")]
const SAMPLE_SECONDS: f64 = 20e-3;
/// Past this many seconds on one class, no further round starts (the first [`MIN_ROUNDS`]
/// always run).
const KEY_BUDGET_SECONDS: f64 = 0.25;

/// Seconds since an arbitrary start.
fn now() -> f64 {
    #[cfg(not(target_arch = "wasm32"))]
    {
        static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        START
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_secs_f64()
    }
    #[cfg(target_arch = "wasm32")]
    {
        js_sys::Date::now() / 1000.0
    }
}

/// How a measurement times one candidate.
pub(crate) trait Stopwatch {
    /// Seconds per call of `prepared` (a call run by `kernel`), recorded `reps` times into
    /// one encoder and submitted once.
    fn seconds(
        &self,
        ctx: &Context,
        prepared: &Prepared,
        kernel: KernelKind,
        reps: u32,
    ) -> impl Future<Output = Result<f64, Error>>;
}

/// An encoder for one timed submission.
fn measurement_encoder(ctx: &Context) -> wgpu::CommandEncoder {
    ctx.shared
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("gpu-xor measurement"),
        })
}

/// Submits `encoder` and waits for the device (blocking where `blocking`, natively); the
/// wall-clock seconds from the submission to the end of the wait.
async fn submit_and_wait(
    ctx: &Context,
    encoder: wgpu::CommandEncoder,
    blocking: bool,
) -> Result<f64, Error> {
    let start = now();
    ctx.shared.queue.submit([encoder.finish()]);
    #[cfg(not(target_arch = "wasm32"))]
    if blocking {
        ctx.wait()?;
        return Ok(now() - start);
    }
    #[cfg(target_arch = "wasm32")]
    let _ = blocking;
    ctx.wait_async().await?;
    Ok(now() - start)
}

/// The device's own time: wall-clock over the submission and the wait for it (the calls
/// are recorded before the clock starts). `blocking` waits with a blocking poll (the native
/// [`Context::tune`]): a CPU adapter's own threads then have the machine to themselves,
/// where the async wait's polling would take a core from them.
pub(crate) struct WallClock {
    pub blocking: bool,
}

impl Stopwatch for WallClock {
    async fn seconds(
        &self,
        ctx: &Context,
        prepared: &Prepared,
        _kernel: KernelKind,
        reps: u32,
    ) -> Result<f64, Error> {
        let mut encoder = measurement_encoder(ctx);
        for _ in 0..reps {
            prepared.record(&mut encoder)?;
        }
        Ok(submit_and_wait(ctx, encoder, self.blocking).await? / f64::from(reps.max(1)))
    }
}

/// The GPU's own clock: the calls recorded into one compute pass that writes a timestamp at
/// its start and its end (`wgpu::Features::TIMESTAMP_QUERY`), resolved and read back. A
/// driver whose timestamps do not advance gets the wall-clock time of the same submission.
pub(crate) struct Timestamps {
    query_set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    /// Whether the wait blocks ([`WallClock`]).
    blocking: bool,
}

impl Timestamps {
    /// The device's timestamps, where it has them.
    fn new(ctx: &Context, blocking: bool) -> Result<Option<Timestamps>, Error> {
        let shared = &*ctx.shared;
        if !shared
            .device
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY)
        {
            return Ok(None);
        }
        let query_set = shared.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("gpu-xor measurement"),
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        });
        let resolve = shared.create_buffer(&wgpu::BufferDescriptor {
            label: Some("gpu-xor measurement timestamps"),
            size: 16,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        })?;
        Ok(Some(Timestamps {
            query_set,
            resolve,
            blocking,
        }))
    }
}

impl Stopwatch for Timestamps {
    async fn seconds(
        &self,
        ctx: &Context,
        prepared: &Prepared,
        _kernel: KernelKind,
        reps: u32,
    ) -> Result<f64, Error> {
        let shared = &*ctx.shared;
        let mut encoder = measurement_encoder(ctx);
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("gpu-xor measurement"),
                timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                    query_set: &self.query_set,
                    beginning_of_pass_write_index: Some(0),
                    end_of_pass_write_index: Some(1),
                }),
            });
            for _ in 0..reps {
                prepared.record_in_pass(&mut pass)?;
            }
        }
        encoder.resolve_query_set(&self.query_set, 0..2, &self.resolve, 0);
        let wall = submit_and_wait(ctx, encoder, self.blocking).await? / f64::from(reps.max(1));
        let bytes = ctx.read_buffer_async(&self.resolve, 0, 16).await?;
        let tick = |at: usize| {
            bytes
                .get(at..at + 8)
                .and_then(|b| b.try_into().ok())
                .map_or(0, u64::from_le_bytes)
        };
        let ticks = tick(8).saturating_sub(tick(0));
        if ticks == 0 {
            return Ok(wall);
        }
        let period = f64::from(shared.queue.get_timestamp_period());
        Ok(ticks as f64 * period * 1e-9 / f64::from(reps.max(1)))
    }
}

/// The clock a measurement uses: the GPU's where the device has one, else the wall's.
enum Clock {
    Wall(WallClock),
    Gpu(Timestamps),
}

impl Clock {
    fn of(ctx: &Context, blocking: bool) -> Result<Clock, Error> {
        Ok(match Timestamps::new(ctx, blocking)? {
            Some(gpu) => Clock::Gpu(gpu),
            None => Clock::Wall(WallClock { blocking }),
        })
    }
}

impl Stopwatch for Clock {
    async fn seconds(
        &self,
        ctx: &Context,
        prepared: &Prepared,
        kernel: KernelKind,
        reps: u32,
    ) -> Result<f64, Error> {
        match self {
            Clock::Wall(wall) => wall.seconds(ctx, prepared, kernel, reps).await,
            Clock::Gpu(gpu) => gpu.seconds(ctx, prepared, kernel, reps).await,
        }
    }
}

impl Context {
    /// Compiles, now, every pipeline that calls of `ops` can need when they fit one binding
    /// window (what each operator's own `warm_up` compiles), each distinct pipeline once:
    /// a runtime warms a whole graph in one call. Returns how many were compiled (0 when all
    /// were already).
    ///
    /// Under [`KernelTuning::Measured`] it then measures every layout class of `ops` that has
    /// no choice yet ([`Context::tune`]), blocking until the device has run the candidates.
    /// In a browser nothing may block: await [`Context::warm_up_async`] there.
    ///
    /// On native targets the pipelines are compiled on as many threads as the machine has
    /// cores (at most 8): wgpu and the drivers compile pipelines of one device in parallel,
    /// so a cold start costs about the compile time divided by the cores. In a browser they
    /// are compiled in turn (the page's WebGPU compiles in its own process anyway).
    ///
    /// An operator of another context is [`Error::ContextMismatch`] (nothing is compiled);
    /// a lost device is [`Error::DeviceLost`]; a kernel the driver refuses,
    /// [`Error::Pipeline`].
    ///
    /// ```no_run
    /// use gpu_xor::{DmlBinary, BitXorDesc, OvBinary, BitwiseXorDesc, Context, DataType, CompiledOperator};
    ///
    /// # fn main() -> Result<(), gpu_xor::Error> {
    /// let ctx = Context::from_env()?;
    /// let conv = DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::F16, &[1, 64, 56, 56]))?;
    /// let bias = OvBinary::new(&ctx, &BitwiseXorDesc::new(DataType::I32, &[1, 64, 56, 56], &[1, 64, 1, 1]))?;
    /// let graph: [&dyn CompiledOperator; 2] = [&conv, &bias];
    /// let compiled = ctx.warm_up(&graph)?;
    /// assert_eq!(ctx.warm_up(&graph)?, 0); // everything is compiled now
    /// # let _ = compiled;
    /// # Ok(())
    /// # }
    /// ```
    pub fn warm_up(&self, ops: &[&dyn CompiledOperator]) -> Result<usize, Error> {
        let compiled = self.compile_for(ops)?;
        #[cfg(not(target_arch = "wasm32"))]
        if self.shared.tuning == KernelTuning::Measured {
            self.tune(ops)?;
        }
        Ok(compiled)
    }

    /// [`Context::warm_up`] without blocking: compiles the pipelines of `ops`, then, under
    /// [`KernelTuning::Measured`], awaits the measurement of their layout classes
    /// ([`Context::tune_async`]). The form for a browser and for async runtimes.
    pub async fn warm_up_async(&self, ops: &[&dyn CompiledOperator]) -> Result<usize, Error> {
        let compiled = self.compile_for(ops)?;
        if self.shared.tuning == KernelTuning::Measured {
            self.tune_async(ops).await?;
        }
        Ok(compiled)
    }

    /// Measures, blocking, the layout classes of `ops` that have no choice yet: see
    /// [`Context::tune_async`]. Native only.
    #[cfg(not(target_arch = "wasm32"))]
    #[expect(
        clippy::disallowed_methods,
        reason = "the blocking form, for native callers"
    )]
    pub fn tune(&self, ops: &[&dyn CompiledOperator]) -> Result<TuningReport, Error> {
        pollster::block_on(self.tune_clocked(ops, true))
    }

    /// Under [`KernelTuning::Measured`], measures on this device every layout class of `ops`
    /// ([`TuningKey`](crate::inspect::TuningKey)) that more than one kernel can run and that has no choice yet,
    /// and keeps the fastest kernel of each in the context, for every operator made on it
    /// and every call prepared from now on (calls prepared before keep their kernels).
    /// Under the fixed tunings it measures nothing.
    ///
    /// Each class is timed on scratch buffers of its operator's size, on the device's queue:
    /// the fixed rule's kernel and every other kernel that is exact for the layout. The
    /// rule's call runs once untimed (the buffers' first touch); then three to five rounds
    /// each time every candidate in turn, in submissions of up to 256 calls that aim at 2 ms,
    /// by the GPU's timestamps at the start and end of the submission's compute pass where
    /// the device has `wgpu::Features::TIMESTAMP_QUERY` (a device made by
    /// [`Context::from_env`] asks for it where the adapter has it), else wall-clock over the
    /// submission and its wait ([`TuningReport::gpu_timestamps`]); past the third, no round
    /// starts after a quarter of a second on the class. The least time wins (whatever else
    /// the device or the machine does only adds to a sample), a tie keeps the rule. A class
    /// whose call is larger than one binding window is not measured. Nothing is measured
    /// inside `record` or `prepare`.
    ///
    /// [`Error::ContextMismatch`] for an operator of another context; device errors as a
    /// call's.
    pub async fn tune_async(&self, ops: &[&dyn CompiledOperator]) -> Result<TuningReport, Error> {
        self.tune_clocked(ops, false).await
    }

    /// [`Context::tune_async`] on the device's best clock, waiting blocking where `blocking`.
    async fn tune_clocked(
        &self,
        ops: &[&dyn CompiledOperator],
        blocking: bool,
    ) -> Result<TuningReport, Error> {
        if self.shared.tuning != KernelTuning::Measured {
            return self.tune_with(ops, &WallClock { blocking }).await;
        }
        let clock = Clock::of(self, blocking)?;
        let mut report = self.tune_with(ops, &clock).await?;
        report.gpu_timestamps = matches!(clock, Clock::Gpu(_));
        Ok(report)
    }

    /// [`Context::tune_async`] with the candidates timed by `watch`.
    pub(crate) async fn tune_with(
        &self,
        ops: &[&dyn CompiledOperator],
        watch: &impl Stopwatch,
    ) -> Result<TuningReport, Error> {
        let shared = &*self.shared;
        if ops
            .iter()
            .any(|op| !Arc::ptr_eq(&op.context().shared, &self.shared))
        {
            return Err(Error::ContextMismatch);
        }
        let mut report = TuningReport::default();
        if shared.tuning != KernelTuning::Measured {
            return Ok(report);
        }
        if let Some(lost) = shared.lost() {
            return Err(lost);
        }
        let start = now();
        let mut done: Vec<TuningKey> = Vec::new();
        for op in ops {
            let plan = op.plan();
            let Some(key) = self.tuning_key(*op) else {
                continue;
            };
            if done.contains(&key) {
                continue;
            }
            done.push(key);
            if self.has_choice(&key) {
                report.known += 1;
                continue;
            }
            match self.measure(plan, key, watch).await? {
                Some((kernel, timed)) => {
                    report.measured += 1;
                    report.candidates += timed;
                    self.keep(|choices| {
                        choices.insert(key, kernel);
                    });
                }
                None => report.skipped += 1,
            }
        }
        report.seconds = now() - start;
        Ok(report)
    }

    /// Whether the context holds a choice for `key` (without copying its table).
    fn has_choice(&self, key: &TuningKey) -> bool {
        let guard = match self.shared.choices.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        guard.as_ref().is_some_and(|c| c.get(key).is_some())
    }

    /// Changes the context's choices through `change`, replacing the shared table.
    fn keep(&self, change: impl FnOnce(&mut KernelChoices)) {
        let mut guard = match self.shared.choices.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        if let Some(current) = guard.as_mut() {
            change(Arc::make_mut(current));
        }
    }

    /// Times every candidate of `key` on calls of `plan`; the fastest and how many were
    /// timed, or `None` where fewer than two can run the measurement's call.
    async fn measure(
        &self,
        plan: &Plan,
        key: TuningKey,
        watch: &impl Stopwatch,
    ) -> Result<Option<(KernelKind, usize)>, Error> {
        let shared = &*self.shared;
        let footprints = tune::footprints(plan);
        if footprints.iter().any(|&f| f > shared.windows.max_window) {
            return Ok(None);
        }
        let scratch = |size: u64| {
            shared.create_buffer(&wgpu::BufferDescriptor {
                label: Some("gpu-xor measurement"),
                size: size.max(16),
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            })
        };
        let [out, a, b] = [
            scratch(footprints[0])?,
            scratch(footprints[1])?,
            scratch(footprints[2])?,
        ];
        let bindings = if plan.operator().inputs() == 1 {
            Bindings::unary(TensorBinding::new(&a), TensorBinding::new(&out))
        } else {
            Bindings::new(
                TensorBinding::new(&a),
                TensorBinding::new(&b),
                TensorBinding::new(&out),
            )
        };
        let prepare = |choice: Option<KernelKind>| {
            let mut forced = KernelChoices::new(shared.identity.clone());
            if let Some(kernel) = choice {
                forced.insert(key, kernel);
            }
            let mut batch = self.single_call();
            batch.choices = Some(Arc::new(forced));
            let (summary, named) = batch.push_plan(self, plan, [None, None], &bindings)?;
            let prepared = batch.prepare_named(&named)?;
            Ok::<_, Error>((summary.dispatches, prepared))
        };
        // The rule's call (no choice) first, so that a tie keeps it.
        let (ruled, prepared) = prepare(None)?;
        let [rule] = ruled[..] else {
            return Ok(None);
        };
        let mut runs: Vec<(KernelKind, Prepared)> = vec![(rule, prepared)];
        for kernel in key.kernels() {
            if kernel == rule {
                continue;
            }
            let (ran, prepared) = prepare(Some(kernel))?;
            // A candidate the measurement's bindings do not allow falls back to the rule.
            if ran == [kernel] {
                runs.push((kernel, prepared));
            }
        }
        if runs.len() < 2 {
            return Ok(None);
        }
        // The first touch of the scratch buffers, untimed; a second call's time sizes the
        // submissions.
        watch.seconds(self, &runs[0].1, runs[0].0, 1).await?;
        let first = watch.seconds(self, &runs[0].1, runs[0].0, 1).await?;
        let reps = if first > 0.0 {
            (SAMPLE_SECONDS / first)
                .ceil()
                .clamp(1.0, f64::from(MAX_REPS)) as u32
        } else {
            MAX_REPS
        };
        let mut timings: Vec<(KernelKind, Vec<f64>)> = runs
            .iter()
            .map(|(kernel, _)| (*kernel, Vec::with_capacity(ROUNDS)))
            .collect();
        let start = now();
        for round in 1..=ROUNDS {
            for ((kernel, prepared), (_, samples)) in runs.iter().zip(&mut timings) {
                samples.push(watch.seconds(self, prepared, *kernel, reps).await?);
            }
            if round >= MIN_ROUNDS && now() - start > KEY_BUDGET_SECONDS {
                break;
            }
        }
        if timings.len() < 2 {
            return Ok(None);
        }
        Ok(tune::fastest(&timings).map(|k| (k, timings.len())))
    }

    /// The layout class ([`TuningKey`]) of `op`'s calls on this context's device, under
    /// which a measured choice for them is kept; `None` where one kernel runs them (dense
    /// calls, outputs of another width). Calls larger than one binding window are cut into
    /// pieces, each of its own class.
    ///
    /// ```no_run
    /// # use gpu_xor::{Context, DataType, DmlBinary, DmlBinaryDesc, DmlBinaryOp, TensorDesc};
    /// # fn main() -> Result<(), gpu_xor::Error> {
    /// let ctx = Context::from_env()?;
    /// let mut desc = DmlBinaryDesc::packed(DmlBinaryOp::BitXor, DataType::U16, &[720, 720]);
    /// desc.a = TensorDesc::new(DataType::U16, &[720, 720]).with_strides(&[1, 720]);
    /// let key = ctx.tuning_key(&DmlBinary::new(&ctx, &desc)?).expect("a transpose has a class");
    /// println!("{key}"); // gather rank 2, 2-byte elements, 4^9 bytes, ..., kernels [Gather, Tile, BlockTile]
    /// # Ok(())
    /// # }
    /// ```
    pub fn tuning_key(&self, op: &dyn CompiledOperator) -> Option<TuningKey> {
        select::tuning_key(op.plan(), self.shared.max_groups)
    }

    /// The kernel choices this context has measured or loaded, to save
    /// ([`KernelChoices::to_bytes`]) and load when the program starts again
    /// ([`Context::load_kernel_choices`]). Empty under the fixed tunings.
    pub fn kernel_choices(&self) -> KernelChoices {
        let guard = match self.shared.choices.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        match guard.as_ref() {
            Some(choices) => (**choices).clone(),
            None => KernelChoices::new(self.shared.identity.clone()),
        }
    }

    /// Loads kernel choices saved from a context on the same adapter by this version of the
    /// crate ([`Context::kernel_choices`], [`KernelChoices::to_bytes`]): their classes are
    /// not measured again, and calls prepared from now on run their kernels. Returns how
    /// many choices were loaded; a loaded choice replaces one the context holds.
    ///
    /// Refused, with nothing loaded: bytes of another adapter or driver
    /// ([`Error::KernelChoicesForeign`]), of another version of the crate
    /// ([`Error::KernelChoicesStale`]), damaged ones ([`Error::KernelChoicesCorrupt`]), and
    /// any on a context whose tuning is not [`KernelTuning::Measured`]
    /// ([`Error::InvalidOption`]: its rule is fixed).
    ///
    /// ```no_run
    /// use gpu_xor::{Context, ContextOptions, KernelTuning};
    /// # fn main() -> Result<(), gpu_xor::Error> {
    /// # let (device, queue): (wgpu::Device, wgpu::Queue) = todo!();
    /// let options = ContextOptions { kernel_tuning: KernelTuning::Measured, ..Default::default() };
    /// let ctx = Context::with_options(device, queue, &options)?;
    /// if let Ok(saved) = std::fs::read("kernel-choices.bin") {
    ///     // Another adapter's or an older version's choices are refused: measure anew.
    ///     let _ = ctx.load_kernel_choices(&saved);
    /// }
    /// // ... make the graph's operators, ctx.warm_up(&graph)? ...
    /// std::fs::write("kernel-choices.bin", ctx.kernel_choices().to_bytes()).ok();
    /// # Ok(())
    /// # }
    /// ```
    pub fn load_kernel_choices(&self, bytes: &[u8]) -> Result<usize, Error> {
        if self.shared.tuning != KernelTuning::Measured {
            return Err(Error::InvalidOption {
                name: "kernel_tuning",
                reason: format!(
                    "kernel choices are loaded only under KernelTuning::Measured; this \
                     context's tuning is {:?}",
                    self.shared.tuning
                ),
            });
        }
        let loaded = KernelChoices::from_bytes(bytes, &self.shared.identity)?;
        self.keep(|choices| choices.extend(&loaded));
        Ok(loaded.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ContextOptions, DataType, DmlBinary, DmlBinaryDesc, DmlBinaryOp, TensorDesc};

    /// A stopwatch that answers from a table: the times a kernel "takes".
    struct Fake(Vec<(KernelKind, f64)>);

    impl Stopwatch for Fake {
        async fn seconds(
            &self,
            _: &Context,
            _: &Prepared,
            kernel: KernelKind,
            _: u32,
        ) -> Result<f64, Error> {
            Ok(self
                .0
                .iter()
                .find(|(k, _)| *k == kernel)
                .map_or(1.0, |(_, t)| *t))
        }
    }

    fn measured() -> Option<Context> {
        let base = Context::from_env().ok()?;
        let options = ContextOptions {
            kernel_tuning: KernelTuning::Measured,
            ..Default::default()
        };
        Context::with_options(base.device().clone(), base.queue().clone(), &options).ok()
    }

    /// A u32 XOR with A transposed: the tile, gather and (none: one input transposed)
    /// kernels can run it.
    fn transposed(ctx: &Context, n: u32) -> DmlBinary {
        let mut desc = DmlBinaryDesc::packed(DmlBinaryOp::BitXor, DataType::U32, &[n, n]);
        desc.a = TensorDesc::new(DataType::U32, &[n, n]).with_strides(&[1, n]);
        DmlBinary::new(ctx, &desc).unwrap()
    }

    #[test]
    #[expect(clippy::disallowed_methods, reason = "a test waits for the device")]
    fn the_choice_follows_the_timings_and_the_table_round_trips() {
        let Some(ctx) = measured() else {
            eprintln!("no adapter: skipped");
            return;
        };
        let op = transposed(&ctx, 64);
        let key = ctx.tuning_key(&op).unwrap();
        let candidates = key.kernels();
        assert!(candidates.contains(&KernelKind::Tile), "{candidates:?}");
        assert!(candidates.contains(&KernelKind::Gather), "{candidates:?}");
        // Whichever kernel the fake clock makes fastest is chosen.
        for fast in [KernelKind::Tile, KernelKind::Gather] {
            let fresh = measured().unwrap();
            let op = transposed(&fresh, 64);
            let times = candidates
                .iter()
                .map(|&k| (k, if k == fast { 1e-4 } else { 1e-3 }))
                .collect();
            let ops: [&dyn CompiledOperator; 1] = [&op];
            let report = pollster::block_on(fresh.tune_with(&ops, &Fake(times))).unwrap();
            assert_eq!((report.measured, report.known), (1, 0));
            assert_eq!(fresh.kernel_choices().get(&key), Some(fast));
            // Measured once: a second warm-up knows the class.
            let again = pollster::block_on(fresh.tune_with(&ops, &Fake(Vec::new()))).unwrap();
            assert_eq!((again.measured, again.known), (0, 1));
            // A new context on the same adapter loads the table and runs its choice.
            let bytes = fresh.kernel_choices().to_bytes();
            let other = measured().unwrap();
            assert_eq!(other.load_kernel_choices(&bytes).unwrap(), 1);
            assert_eq!(other.kernel_choices(), fresh.kernel_choices());
            let op = transposed(&other, 64);
            let n = 64 * 64 * 4;
            let [a, b, out] = [(); 3].map(|()| {
                other.device().create_buffer(&wgpu::BufferDescriptor {
                    label: None,
                    size: n,
                    usage: wgpu::BufferUsages::STORAGE,
                    mapped_at_creation: false,
                })
            });
            let prepared = op
                .prepare(&Bindings::new(
                    TensorBinding::new(&a),
                    TensorBinding::new(&b),
                    TensorBinding::new(&out),
                ))
                .unwrap();
            assert_eq!(prepared.summaries()[0].dispatches, [fast]);
        }
        // Another adapter's table, or any table on a context of a fixed tuning, is refused.
        let foreign = {
            let mut t = KernelChoices::new("another adapter");
            t.insert(key, KernelKind::Gather);
            t.to_bytes()
        };
        let err = ctx.load_kernel_choices(&foreign).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::KernelChoicesForeign);
        assert!(ctx.kernel_choices().is_empty());
        let options = ContextOptions {
            kernel_tuning: KernelTuning::Gpu,
            ..Default::default()
        };
        let fixed =
            Context::with_options(ctx.device().clone(), ctx.queue().clone(), &options).unwrap();
        let err = fixed
            .load_kernel_choices(&ctx.kernel_choices().to_bytes())
            .unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::InvalidOption);
    }
}
