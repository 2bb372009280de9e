//! The execution context: a device, its queue, and what this crate caches on them.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, OnceLock};

use crate::desc::FeatureLevel;
use crate::error::{Error, WgpuError};
use crate::kernels::pipelines::KernelCache;
use crate::layout::Limits;
use crate::schedule::dispatch::WORKGROUP_SIZE;
use crate::schedule::params::{MAX_KERNEL_RANK, RECORD_BYTES, RECORDS_PER_BINDING};
use crate::schedule::{KernelChoices, KernelTuning};

use super::arena::SharedArena;
use super::env::{EnvOptions, LimitsChoice, options_from};
use super::readback::PendingRead;
use super::shared::{Created, MIN_WINDOW, Shared};
use super::signal::{Signal, Unanswered};
use crate::scope::Late;

/// Largest window bound at once even where the device allows more, so that every byte
/// offset inside a window fits in 32 bits in the kernels.
const MAX_WINDOW_CAP: u64 = 1 << 31;

/// Settings of a [`Context`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContextOptions {
    /// The DirectML feature level whose type and rank tables the DirectML operators follow.
    pub feature_level: FeatureLevel,
    /// The most bytes one storage binding may span; `None` for the device's
    /// `max_storage_buffer_binding_size`. A small value makes every path cross window seams
    /// on any adapter (tests use it); it must be at least twice the device's
    /// `min_storage_buffer_offset_alignment` (and at least 64). Larger values than the device
    /// allows are capped, as is the device's own on a device whose compute grids are small:
    /// at 256 bytes per workgroup a grid holds (`max_compute_workgroups_per_dimension`
    /// squared, 2,304 bytes at 3 a side; none from 2,897 a side, and WebGPU's default is
    /// 65,535), so that every dispatch fits the device.
    pub max_window_bytes: Option<u64>,
    /// Bind operands only as WebGPU allows, on every backend: no writable binding may overlap
    /// another binding of the same buffer in one dispatch. A browser's WebGPU checks this and
    /// the context there always follows it; native backends do not check it, and by default
    /// the context uses such overlapping bindings there in the one case that needs them
    /// (operands of one buffer too close together to be bound apart, too far apart to share a
    /// binding: [`crate::inspect::RecordSummary::overlapping_bindings`] counts them). With this set,
    /// that case is [`Error::SharedBufferSpanTooLarge`] natively too, as it is in a browser.
    pub webgpu_binding_rules: bool,
    /// A pipeline cache to compile every pipeline through (`wgpu::Device::create_pipeline_cache`,
    /// which needs `wgpu::Features::PIPELINE_CACHE`; wgpu implements it on Vulkan). Save its
    /// `get_data()` after [`crate::DmlBinary::warm_up`] and pass it back when the program starts
    /// again, and the driver can skip compiling the kernels. A device without the feature
    /// cannot have made one: the option is then [`Error::InvalidOption`].
    pub pipeline_cache: Option<wgpu::PipelineCache>,
    /// Which class of adapter the kernel choices are tuned for where the kernel measured best
    /// differs between classes: by default from the adapter's device type. Every tuning is
    /// exact on every adapter; another one only trades speed.
    pub kernel_tuning: KernelTuning,
    /// Run every reduction with the untiled kernel ([`crate::inspect::KernelKind::FusedReduce`]),
    /// contractions included, which otherwise run tiled
    /// ([`crate::inspect::KernelKind::FusedTiled`]): the tiled kernel's fallback, to compare
    /// against (both are exact; the tiled one is faster where rows and columns are many).
    pub untiled_contractions: bool,
}

/// The wgpu objects a context has made to record calls, counted since it was created:
/// metadata buffers, bind groups, shader modules and compute pipelines (tensors and read-back
/// staging buffers are not counted; device checks have a count of their own); and the
/// metadata it holds now.
///
/// A [`crate::Prepared`] call makes all of its objects when it is prepared: recording it again
/// leaves these counts as they were.
///
/// # How metadata memory is accounted
///
/// Every call's metadata is one 256-byte record per dispatch piece (most calls have one),
/// and the records of every prepared call on a context live in a few shared uniform buffers
/// (the metadata arena), not in a buffer per call. The arena's buffers grow geometrically
/// (16 KiB of records first, up to 1 MiB each), each with 16 KiB of room after its records
/// so that a dispatch can bind 64 records from any of them. A prepared call's records go
/// back to the arena when its last clone is dropped: at once for reuse if it was never
/// recorded, otherwise (an encoder that holds its dispatches may still be submitted) when
/// every record of that buffer has gone back, when the buffer itself is dropped. So a graph
/// of `n` prepared calls holds about `256 * n` bytes of metadata, and preparing and dropping
/// calls forever holds a bounded arena. Bind groups (one per prepared call on distinct
/// buffers) are the driver's descriptors, not buffer memory; pipelines and bind group
/// layouts are shared by every call of the context.
///
/// A one-shot call (`record`, `submit`, `run`, a one-call form, a [`crate::Batch`] recorded
/// once) takes its records from metadata buffers of their own, and gives them back when the
/// GPU has finished the submission that ran them (or the encoder they were recorded into is
/// dropped unsubmitted): a steady loop of one-shot calls reuses the same records, and a
/// record that already holds the call's bytes is not written again. Each binds its buffers
/// whole where they fit one binding, and takes its bind group from those the context keeps
/// on that metadata buffer (at most 16 each, least recently used dropped first): a loop on
/// the same buffers, at any offsets, makes one bind group. So after the first few calls a
/// one-shot call makes no buffer and no bind group. [`crate::Context::trim`] drops what is
/// kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RecordingObjects {
    /// Uniform buffers holding calls' metadata.
    pub buffers: u64,
    /// Bind groups.
    pub bind_groups: u64,
    /// Shader modules.
    pub shader_modules: u64,
    /// Compute pipelines.
    pub pipelines: u64,
    /// Metadata buffers of the arena alive now.
    pub metadata_buffers_alive: u64,
    /// Bytes of those buffers, the room after each one's records included.
    pub metadata_bytes_alive: u64,
    /// Records lent to prepared calls alive now (256 bytes each).
    pub metadata_records_alive: u64,
    /// Records of one-shot calls (`record`, `submit`, `run`, the one-call forms, a
    /// [`crate::Batch`] recorded once) whose work may not have finished: they go back to
    /// the arena when the submission of the encoder they were recorded into has finished,
    /// or when that encoder is dropped unsubmitted.
    pub metadata_records_pending: u64,
    /// Bind groups kept for one-shot calls now (at most 16 on each metadata buffer): a call
    /// on the same buffers and ranges takes one instead of making its own.
    pub bind_groups_kept: u64,
    /// Buffers made to check whether the device is lost: one that waits map to check it
    /// (made by the first wait), and one per check where a call that failed, or made a
    /// tensor or an owned input, needed to know. Waits make none.
    pub device_check_buffers: u64,
}

/// A device and queue with this crate's shared state: the bind group layout, the compiled
/// pipelines, and the settings. Cheap to clone (an `Arc` inside).
///
/// Bring your own device and queue with [`Context::new`], or let [`Context::from_env`] make
/// them.
///
/// `Context`, the compiled operators, [`crate::Batch`] and [`crate::Tensor`] are `Send` and
/// `Sync` on native targets: threads may share one context, and record the same compiled
/// operator into their own encoders at the same time.
///
/// When the device is lost or destroyed, every call that uses it returns
/// [`Error::DeviceLost`] (see the crate's fault rules in the README).
#[derive(Clone)]
pub struct Context {
    pub(crate) shared: Arc<Shared>,
    pub(crate) feature_level: FeatureLevel,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("adapter", &self.shared.device.adapter_info().name)
            .field("feature_level", &self.feature_level)
            .field("max_window", &self.shared.windows.max_window)
            .finish()
    }
}

impl Context {
    /// A context on the caller's device and queue, with default options.
    pub fn new(device: wgpu::Device, queue: wgpu::Queue) -> Context {
        Context::with_options(device, queue, &ContextOptions::default())
            .expect("default options are valid")
    }

    /// A context on the caller's device and queue.
    // In a browser wgpu's objects are neither `Send` nor `Sync` (a page's WebGPU belongs to its
    // thread), and neither is a context; the `Arc` is what native targets share across threads.
    #[cfg_attr(
        target_arch = "wasm32",
        expect(
            clippy::arc_with_non_send_sync,
            reason = "one thread in a browser; Send and Sync on native"
        )
    )]
    pub fn with_options(
        device: wgpu::Device,
        queue: wgpu::Queue,
        options: &ContextOptions,
    ) -> Result<Context, Error> {
        let limits = device.limits();
        let offset_alignment = u64::from(limits.min_storage_buffer_offset_alignment).max(16);
        let device_window = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size)
            .min(MAX_WINDOW_CAP);
        let max_window = match options.max_window_bytes {
            None => device_window,
            Some(w) => {
                let least = (2 * offset_alignment).max(MIN_WINDOW);
                if w < least {
                    return Err(Error::InvalidOption {
                        name: "max_window_bytes",
                        reason: format!("{w} is below {least} (twice the offset alignment)"),
                    });
                }
                w.min(device_window)
            }
        };
        // A flat kernel's piece has at most one unit (an element, a word, a 16-byte block, a
        // row's block or run) per byte of its output's window, and its grid holds at most
        // `max_groups` squared workgroups (`dispatch::grid`): on a device of small grids the
        // windows are no larger than that many workgroups' units, so that every piece's grid
        // fits. (65,535 a side, WebGPU's default, allows over a terabyte.)
        let max_groups = u64::from(limits.max_compute_workgroups_per_dimension.max(1));
        let grid_window = max_groups * max_groups * u64::from(WORKGROUP_SIZE);
        let max_window = max_window.min(grid_window);
        let max_window = max_window - max_window % 16;
        if options.pipeline_cache.is_some()
            && !device.features().contains(wgpu::Features::PIPELINE_CACHE)
        {
            return Err(Error::InvalidOption {
                name: "pipeline_cache",
                reason: "the device lacks wgpu::Features::PIPELINE_CACHE, so the cache is of \
                         another device"
                    .to_string(),
            });
        }
        let kernels = KernelCache::new(&device, options.pipeline_cache.clone());
        let info = device.adapter_info();
        let backend = info.backend;
        let cpu_adapter = info.device_type == wgpu::DeviceType::Cpu;
        let tuning = options.kernel_tuning.resolve(cpu_adapter);
        let identity = adapter_identity(&info);
        let choices = (tuning == KernelTuning::Measured)
            .then(|| Arc::new(KernelChoices::new(identity.clone())));
        let dummy = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("gpu-xor unused slot"),
            size: 16,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let shared = Shared {
            windows: Limits {
                max_window,
                offset_alignment,
                max_rank: MAX_KERNEL_RANK,
            },
            max_groups: limits.max_compute_workgroups_per_dimension,
            kernels,
            knn: Default::default(),
            dummy,
            device,
            queue,
            lost: Arc::new(OnceLock::new()),
            check_layout: OnceLock::new(),
            map_check: OnceLock::new(),
            map_checking: Default::default(),
            late: Late::default(),
            strict_aliasing: options.webgpu_binding_rules
                || backend == wgpu::Backend::BrowserWebGpu,
            tuning,
            cpu_rule: options.kernel_tuning.cpu_rule(cpu_adapter),
            untiled_contractions: options.untiled_contractions,
            identity,
            choices: Mutex::new(choices),
            created: Created::default(),
            arena: SharedArena::new(RECORDS_PER_BINDING, RECORD_BYTES as usize),
        };
        Ok(Context {
            shared: Arc::new(shared),
            feature_level: options.feature_level,
        })
    }

    /// A context on a device made from the environment, blocking until it is ready (native
    /// only: in a browser, await [`Context::from_env_async`]).
    ///
    /// - `WGPU_BACKEND` picks the backends (a comma-separated list of `vulkan`, `gl`,
    ///   `metal`, `dx12`, `webgpu`, `noop`, with wgpu's aliases);
    /// - `WGPU_ADAPTER_NAME` picks the first adapter whose name contains it (any case);
    /// - `WGPU_POWER_PREF` (`low` / `high` / `none`) is honoured otherwise;
    /// - `GPU_XOR_LIMITS` = `adapter` (default), `webgpu` or `downlevel` picks the limits
    ///   requested ([`LimitsChoice`]);
    /// - `GPU_XOR_MAX_WINDOW` = a decimal byte count sets
    ///   [`ContextOptions::max_window_bytes`];
    /// - `GPU_XOR_KERNELS` = `auto` (default), `gpu` or `cpu` sets
    ///   [`ContextOptions::kernel_tuning`].
    ///
    /// An unset, empty or blank variable means the default; any other value that does not
    /// parse entirely (an unknown backend name among good ones included, which wgpu itself
    /// would skip) is [`Error::InvalidOption`] naming the variable, before any adapter is
    /// opened. Other variables that wgpu reads for its instance (`WGPU_DEBUG`,
    /// `WGPU_VALIDATION`, `WGPU_GL_*`, ...) are wgpu's to interpret.
    ///
    /// The context installs a device-lost callback on the device it makes, so that
    /// [`Error::DeviceLost`] carries wgpu's reason.
    #[cfg(not(target_arch = "wasm32"))]
    #[expect(
        clippy::disallowed_methods,
        reason = "the blocking form, for native callers"
    )]
    pub fn from_env() -> Result<Context, Error> {
        pollster::block_on(Context::from_env_async())
    }

    /// The asynchronous form of [`Context::from_env`], and the one a browser uses: there the
    /// environment is empty, and the context opens the page's WebGPU (`navigator.gpu`) with
    /// the adapter's limits, or WebGL where the browser has no WebGPU.
    pub async fn from_env_async() -> Result<Context, Error> {
        let env =
            options_from(|name| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned()))?;
        let adapter = adapter_from_env(&env).await?;
        let (device, queue) = open_device(&adapter, env.limits).await?;
        let ctx = Context::with_options(
            device,
            queue,
            &ContextOptions {
                max_window_bytes: env.max_window_bytes,
                kernel_tuning: env.kernel_tuning,
                ..ContextOptions::default()
            },
        )?;
        let lost = ctx.shared.lost.clone();
        ctx.shared
            .device
            .set_device_lost_callback(move |reason, message| {
                let what = match reason {
                    wgpu::DeviceLostReason::Destroyed => "the device was destroyed",
                    _ => "the device was lost",
                };
                let _ = lost.set(if message.is_empty() {
                    what.to_string()
                } else {
                    format!("{what}: {message}")
                });
            });
        Ok(ctx)
    }

    /// The class of adapter this context's kernel choices are tuned for:
    /// [`ContextOptions::kernel_tuning`], `Auto` resolved from the adapter.
    pub fn kernel_tuning(&self) -> KernelTuning {
        self.shared.tuning
    }

    /// The same device and caches at another feature level.
    pub fn with_feature_level(&self, feature_level: FeatureLevel) -> Context {
        Context {
            shared: self.shared.clone(),
            feature_level,
        }
    }

    /// The feature level the DirectML operators are checked against.
    pub fn feature_level(&self) -> FeatureLevel {
        self.feature_level
    }

    /// The device.
    pub fn device(&self) -> &wgpu::Device {
        &self.shared.device
    }

    /// The queue.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.shared.queue
    }

    /// The adapter behind the device.
    pub fn adapter_info(&self) -> wgpu::AdapterInfo {
        self.shared.device.adapter_info()
    }

    /// The wgpu objects this context has made to record calls so far.
    pub fn recording_objects(&self) -> RecordingObjects {
        let (shader_modules, pipelines) = self.shared.kernels.made();
        let arena = self.shared.arena.usage();
        RecordingObjects {
            buffers: self.shared.created.buffers.load(Ordering::Relaxed),
            bind_groups: self.shared.created.bind_groups.load(Ordering::Relaxed),
            shader_modules,
            pipelines,
            metadata_buffers_alive: arena.buffers,
            metadata_bytes_alive: arena.records * RECORD_BYTES,
            metadata_records_alive: arena.live_records,
            metadata_records_pending: arena.pending_records,
            bind_groups_kept: arena.groups,
            device_check_buffers: self.shared.created.check_buffers.load(Ordering::Relaxed),
        }
    }

    /// Drops what the context keeps for one-shot calls and no call holds now: the bind
    /// groups kept for them (and with them their references to the caller's buffers), and
    /// every metadata buffer with no record lent, pending or dead. Nothing a prepared call
    /// holds is dropped. The next one-shot call makes what it needs again.
    ///
    /// A context keeps at most 16 bind groups on each metadata buffer, and one idle metadata
    /// buffer of each kind (prepared and one-shot calls): call it after dropping large buffers
    /// that one-shot calls bound, so that the memory goes at once, or when the program goes
    /// idle.
    pub fn trim(&self) {
        self.shared.arena.trim();
    }

    /// The most bytes one binding spans; larger tensors are processed in windows.
    pub fn max_window_bytes(&self) -> u64 {
        self.shared.windows.max_window
    }

    /// Blocks until the work submitted so far has finished; [`Error::DeviceLost`] when the
    /// device is lost (a lost device has no work left, so the poll alone would succeed).
    /// Native only: in a browser, or inside an async runtime, await [`Context::wait_async`].
    #[cfg(not(target_arch = "wasm32"))]
    #[expect(
        clippy::disallowed_methods,
        reason = "the blocking form, for native callers"
    )]
    pub fn wait(&self) -> Result<(), Error> {
        self.shared
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| self.shared.lost_or(Error::Poll(WgpuError::new(e))))?;
        match pollster::block_on(self.shared.lost_by_map()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Completes, without blocking, when the work submitted so far has finished; then
    /// returns what [`Context::check_async`] returns, or [`Error::DeviceLost`] when the device
    /// is lost.
    ///
    /// In a browser the queue answers from the event loop. On native, the future drives the
    /// device with non-blocking polls each time it is polled, so any executor brings it to an
    /// end (it asks to be polled again until then: it does not park the thread).
    pub async fn wait_async(&self) -> Result<(), Error> {
        let shared = &*self.shared;
        let done = Signal::new();
        let finished = done.setter();
        shared.queue.on_submitted_work_done(move || finished(()));
        match done.wait(&shared.device).await {
            // A queue that stays empty with the callback unrun has no work left either.
            Ok(()) | Err(Unanswered::Silent) => {}
            Err(Unanswered::Poll(e)) => return Err(shared.lost_or(Error::Poll(WgpuError::new(e)))),
        }
        self.check_async().await?;
        match shared.lost_by_map().await {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Returns the first error that the device reported late for work this context made or
    /// recorded, awaiting the answers that are still due.
    ///
    /// On native backends every error is known when the call that caused it returns, and this
    /// completes at once with `Ok(())` (or [`Error::DeviceLost`] when the loss is known). In a
    /// browser, the GPU process answers error scopes asynchronously, and recording never
    /// waits for it: a kernel the browser's compiler refuses, an allocation it cannot make, a
    /// submission it refuses are kept and reported here, each once, with the same typed
    /// error the native call returns (a refused submission as [`Error::Wgpu`]). Every
    /// `*_async` read-back and [`Context::wait_async`] runs this check.
    pub async fn check_async(&self) -> Result<(), Error> {
        let shared = &*self.shared;
        if let Some(e) = shared.late.settle().await {
            return Err(shared.known_lost().unwrap_or(e));
        }
        match shared.known_lost() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Copies `size` bytes at `offset` of `buffer` back to the host, blocking until they are
    /// there (native only; [`Context::read_buffer_async`] is the form that never blocks).
    ///
    /// The buffer needs `wgpu::BufferUsages::COPY_SRC`. Work submitted before this call is
    /// seen by the copy.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn read_buffer(
        &self,
        buffer: &wgpu::Buffer,
        offset: u64,
        size: u64,
    ) -> Result<Vec<u8>, Error> {
        match PendingRead::start(&self.shared, buffer, offset, size)? {
            Some(pending) => pending.wait(),
            None => Ok(Vec::new()),
        }
    }

    /// Copies `size` bytes at `offset` of `buffer` back to the host, without blocking.
    ///
    /// The copy is submitted when this is called; the future completes when the bytes are
    /// mapped. In a browser the map completes from the event loop. On native, the future
    /// drives the device with non-blocking polls each time it is polled, so any executor
    /// (`pollster::block_on` included) brings it to an end.
    ///
    /// Errors of earlier work on this context that the device reports only now (in a
    /// browser; see [`Context::check_async`]) are returned instead of the bytes.
    ///
    /// ```no_run
    /// # async fn f(ctx: gpu_xor::Context, out: wgpu::Buffer) -> Result<(), gpu_xor::Error> {
    /// let bytes = ctx.read_buffer_async(&out, 0, 16).await?;
    /// assert_eq!(bytes.len(), 16);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn read_buffer_async(
        &self,
        buffer: &wgpu::Buffer,
        offset: u64,
        size: u64,
    ) -> Result<Vec<u8>, Error> {
        let pending = PendingRead::start(&self.shared, buffer, offset, size);
        let bytes = match pending {
            Ok(Some(pending)) => pending.finish().await,
            Ok(None) => Ok(Vec::new()),
            Err(e) => Err(e),
        };
        self.check_async().await?;
        bytes
    }
}

async fn adapter_from_env(env: &EnvOptions) -> Result<wgpu::Adapter, Error> {
    // wgpu reads its other instance variables itself; the backends are the ones parsed here,
    // so that a blank WGPU_BACKEND means the default as for every other variable.
    let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    descriptor.backends = env
        .backends
        .unwrap_or(wgpu::InstanceDescriptor::new_without_display_handle().backends);
    // In a browser, WebGPU support is known only asynchronously; elsewhere this is
    // `Instance::new`.
    let instance = wgpu::util::new_instance_with_webgpu_detection(descriptor).await;
    if let Some(name) = &env.adapter_name {
        let wanted = name.to_lowercase();
        let adapters = instance.enumerate_adapters(wgpu::Backends::all()).await;
        let names: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
        return adapters
            .into_iter()
            .find(|a| a.get_info().name.to_lowercase().contains(&wanted))
            .ok_or_else(|| {
                Error::NoAdapter(format!(
                    "WGPU_ADAPTER_NAME={name:?} matches none of {names:?}"
                ))
            });
    }
    instance
        .request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: env.power_preference.unwrap_or_default(),
            ..Default::default()
        })
        .await
        .map_err(|e| Error::NoAdapter(e.to_string()))
}

async fn open_device(
    adapter: &wgpu::Adapter,
    choice: LimitsChoice,
) -> Result<(wgpu::Device, wgpu::Queue), Error> {
    let required_limits = match choice {
        LimitsChoice::Adapter => adapter.limits(),
        LimitsChoice::WebGpuDefault => wgpu::Limits::default(),
        LimitsChoice::Downlevel => wgpu::Limits::downlevel_defaults(),
    };
    adapter
        .request_device(&wgpu::DeviceDescriptor {
            label: Some("gpu-xor"),
            // The GPU's own clock for measured kernel choices, where the adapter has one.
            required_features: adapter.features() & wgpu::Features::TIMESTAMP_QUERY,
            required_limits,
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        })
        .await
        .map_err(|e| Error::RequestDevice(WgpuError::new(e)))
}

/// What names an adapter in saved kernel choices: its name, vendor and device ids, type,
/// driver and backend. Another driver version is another adapter: its kernels may rank
/// differently.
fn adapter_identity(info: &wgpu::AdapterInfo) -> String {
    format!(
        "{} | vendor {:#06x} device {:#06x} | {:?} | {} {} | {:?}",
        info.name,
        info.vendor,
        info.device,
        info.device_type,
        info.driver,
        info.driver_info,
        info.backend
    )
}
