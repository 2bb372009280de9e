//! What every clone of a context shares: the device, its queue, and what this crate keeps on
//! them. The device's services hang off it in the files above this one (fault checks and
//! buffer creation in `fault.rs`, read-back in `readback.rs`); the public [`crate::Context`]
//! holds it.

use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex, OnceLock};

use super::arena::SharedArena;
use super::kept::KeptGroup;
use crate::kernels::knn::KnnCache;
use crate::kernels::pipelines::KernelCache;
use crate::layout::Limits;
use crate::schedule::{KernelChoices, KernelTuning};
use crate::scope::Late;

/// The smallest window any device accepts (a device may ask for more: twice its storage
/// offset alignment).
pub(crate) const MIN_WINDOW: u64 = 64;

/// The state behind every clone of a [`crate::Context`], which holds it in an `Arc`.
pub(crate) struct Shared {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub kernels: KernelCache,
    /// The pipelines of searches, by their constants.
    pub knn: KnnCache,
    /// Bound in a slot that no operand uses (bind groups must fill every binding).
    pub dummy: wgpu::Buffer,
    pub windows: Limits,
    pub max_groups: u32,
    /// Why the device is lost, once that is known: set by the device-lost callback (on a
    /// device made by [`Context::from_env`](crate::Context::from_env)) or by the first check that finds its objects
    /// invalid.
    pub lost: Arc<OnceLock<String>>,
    /// The layout that checks whether a buffer can be bound, made when first needed.
    pub check_layout: OnceLock<wgpu::BindGroupLayout>,
    /// A 4-byte buffer that waits map to check the device, made by the first check (`None`
    /// if the device could not make it), and whether a check is mapping it now.
    pub map_check: OnceLock<Option<wgpu::Buffer>>,
    pub map_checking: AtomicBool,
    /// Error scopes that had not answered when their call returned (in a browser), for
    /// [`Context::check_async`](crate::Context::check_async).
    pub late: Late,
    /// Whether the device refuses a writable binding that overlaps another binding of the
    /// same buffer in one dispatch, as WebGPU's validation does (a browser's WebGPU).
    pub strict_aliasing: bool,
    /// The resolved kernel tuning (`Gpu`, `Cpu` or `Measured`, never `Auto`).
    pub tuning: KernelTuning,
    /// Whether the fixed rule for CPU adapters applies where nothing was measured.
    pub cpu_rule: bool,
    /// Whether every reduction runs the untiled kernel (`ContextOptions::untiled_contractions`).
    pub untiled_contractions: bool,
    /// The adapter's identity, inside saved kernel choices.
    pub identity: String,
    /// The kernels measured fastest, under `KernelTuning::Measured` (`None` otherwise):
    /// replaced whole when a measurement adds to them, so that lowering takes a snapshot
    /// without holding the lock.
    pub choices: Mutex<Option<Arc<KernelChoices>>>,
    /// Objects made to record calls, for [`Context::recording_objects`](crate::Context::recording_objects).
    pub created: Created,
    /// The metadata records of every call, prepared or one-shot, in shared uniform buffers;
    /// the bind groups kept for one-shot calls live on its slabs.
    pub arena: SharedArena<wgpu::Buffer, KeptGroup>,
}

/// Counts of the objects recording has made (shader modules and pipelines are counted by the
/// kernel cache).
#[derive(Default)]
pub(crate) struct Created {
    pub buffers: AtomicU64,
    pub bind_groups: AtomicU64,
    /// Buffers made to check whether the device is lost.
    pub check_buffers: AtomicU64,
}
