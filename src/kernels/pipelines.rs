//! Shader modules and compute pipelines, created once per device and cached.

use std::collections::HashMap;
use std::num::NonZeroU64;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::{fused, shaders};
use crate::error::{Error, WgpuError};
use crate::layout::KernelKind;
use crate::schedule::PipelineKey;
use crate::schedule::fused::FusedKernel;
use crate::schedule::params::{RECORD_BYTES, RECORDS_PER_BINDING};
use crate::scope::{Late, capture};
use crate::sync::lock;

/// What one shader module is made from: a fixed kernel's source (its family, its inputs
/// read-write or not), or a fused expression's generated one.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum ModuleKey {
    Fixed(KernelKind, bool),
    Fused(Arc<FusedKernel>),
}

/// Shader modules and compute pipelines a context keeps besides those warmed up: past
/// these, the least recently used is dropped to make room (a prepared call holds its own
/// pipelines, and a call whose pipeline was dropped makes it again). The pipelines a warm-up
/// compiles, or finds, are kept for the context's life, as a warm-up promises. Without a
/// bound, a program that makes ever new operators or expressions would hold every kernel it
/// ever compiled; a CPU adapter's compiled kernel takes megabytes.
pub(crate) const KEPT_KERNELS: usize = 256;

/// One kept value: when it was last used, and whether it is kept for good.
struct Kept<V> {
    value: V,
    used: u64,
    pinned: bool,
}

/// A map of at most [`KEPT_KERNELS`] entries besides its pinned ones, which drops its least
/// recently used unpinned entry to make room for a new one.
struct Recent<K, V> {
    entries: HashMap<K, Kept<V>>,
    /// Entries not pinned.
    unpinned: usize,
    /// A use's number: each `get` and `insert` takes the next.
    clock: u64,
}

impl<K: std::hash::Hash + Eq + Clone, V: Clone> Recent<K, V> {
    fn new() -> Recent<K, V> {
        Recent {
            entries: HashMap::new(),
            unpinned: 0,
            clock: 0,
        }
    }

    #[cfg(test)]
    fn contains(&self, key: &K) -> bool {
        self.entries.contains_key(key)
    }

    /// Pins `key`'s entry where there is one; returns whether there is.
    fn pin(&mut self, key: &K) -> bool {
        match self.entries.get_mut(key) {
            Some(kept) => {
                if !kept.pinned {
                    kept.pinned = true;
                    self.unpinned -= 1;
                }
                true
            }
            None => false,
        }
    }

    fn get(&mut self, key: &K) -> Option<V> {
        self.clock += 1;
        let now = self.clock;
        self.entries.get_mut(key).map(|kept| {
            kept.used = now;
            kept.value.clone()
        })
    }

    /// Keeps `value` for `key`, pinned where `pin`; an entry for `key` already there stays
    /// (its value is the same kernel).
    fn insert(&mut self, key: K, value: V, pin: bool) {
        if self.pin_or_touch(&key, pin) {
            return;
        }
        if !pin && self.unpinned >= KEPT_KERNELS {
            let oldest = self
                .entries
                .iter()
                .filter(|(_, kept)| !kept.pinned)
                .min_by_key(|(_, kept)| kept.used)
                .map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                self.entries.remove(&oldest);
                self.unpinned -= 1;
            }
        }
        self.clock += 1;
        self.unpinned += usize::from(!pin);
        self.entries.insert(
            key,
            Kept {
                value,
                used: self.clock,
                pinned: pin,
            },
        );
    }

    /// Where `key` has an entry, marks it used (pinned too where `pin`); returns whether it
    /// has.
    fn pin_or_touch(&mut self, key: &K, pin: bool) -> bool {
        if pin {
            return self.pin(key);
        }
        self.get(key).is_some()
    }
}

/// The bind group layouts (the operators' four bindings and the fused kernels' six, each
/// with read-only and read-write inputs) and the modules and pipelines made and kept.
pub(crate) struct KernelCache {
    /// Indexed by [`layout_index`].
    layouts: [(wgpu::BindGroupLayout, wgpu::PipelineLayout); 4],
    modules: Mutex<Recent<ModuleKey, wgpu::ShaderModule>>,
    pipelines: Mutex<Recent<PipelineKey, wgpu::ComputePipeline>>,
    /// The caller's pipeline cache, when the device supports one.
    cache: Option<wgpu::PipelineCache>,
    /// Shader modules and pipelines made so far.
    made: [AtomicU64; 2],
}

impl KernelCache {
    pub fn new(device: &wgpu::Device, cache: Option<wgpu::PipelineCache>) -> KernelCache {
        let layout = |inputs_rw: bool, inputs: u32| {
            let storage = storage_entry;
            let mut entries = vec![
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        // One bind group serves many dispatches, each starting at
                        // its own records.
                        has_dynamic_offset: true,
                        min_binding_size: NonZeroU64::new(
                            RECORDS_PER_BINDING as u64 * RECORD_BYTES,
                        ),
                    },
                    count: None,
                },
                storage(1, false),
            ];
            entries.extend((0..inputs).map(|k| storage(2 + k, !inputs_rw)));
            let bind_group_layout =
                device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some("gpu-xor"),
                    entries: &entries,
                });
            let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("gpu-xor"),
                bind_group_layouts: &[Some(&bind_group_layout)],
                immediate_size: 0,
            });
            (bind_group_layout, pipeline_layout)
        };
        KernelCache {
            layouts: [
                layout(false, 2),
                layout(true, 2),
                layout(false, fused::INPUT_BINDINGS),
                layout(true, fused::INPUT_BINDINGS),
            ],
            modules: Mutex::new(Recent::new()),
            pipelines: Mutex::new(Recent::new()),
            cache,
            made: [AtomicU64::new(0), AtomicU64::new(0)],
        }
    }

    /// The bind group layout for read-only or read-write input bindings, of the operators'
    /// kernels or of the fused ones.
    pub fn bind_group_layout(&self, inputs_rw: bool, fused: bool) -> &wgpu::BindGroupLayout {
        &self.layouts[layout_index(inputs_rw, fused)].0
    }

    /// How many shader modules and compute pipelines have been made.
    pub fn made(&self) -> (u64, u64) {
        (
            self.made[0].load(Ordering::Relaxed),
            self.made[1].load(Ordering::Relaxed),
        )
    }

    /// Whether the pipeline for `key` is made already; if it is, it is kept from now on
    /// (a warm-up found it).
    pub fn keep(&self, key: &PipelineKey) -> bool {
        lock(&self.pipelines).pin(key)
    }

    /// [`KernelCache::pipeline`] for a warm-up: the pipeline is kept for the context's life.
    pub fn warm(
        &self,
        device: &wgpu::Device,
        late: &Late,
        key: &PipelineKey,
    ) -> Result<wgpu::ComputePipeline, Error> {
        self.made_or_kept(device, late, key, true)
    }

    /// The pipeline for `key`, created on first use. Errors that the device reports only
    /// later (in a browser) go to `late`.
    pub fn pipeline(
        &self,
        device: &wgpu::Device,
        late: &Late,
        key: &PipelineKey,
    ) -> Result<wgpu::ComputePipeline, Error> {
        self.made_or_kept(device, late, key, false)
    }

    fn made_or_kept(
        &self,
        device: &wgpu::Device,
        late: &Late,
        key: &PipelineKey,
        pin: bool,
    ) -> Result<wgpu::ComputePipeline, Error> {
        if pin {
            self.keep(key);
        }
        if let Some(p) = lock(&self.pipelines).get(key) {
            return Ok(p);
        }
        // A fixed kernel's source, or a fused expression's, generated from its structure.
        let (name, entry_point, module_key, text) = match &key.fused {
            Some(kernel) => (
                "fused expression",
                "main",
                ModuleKey::Fused(kernel.clone()),
                None,
            ),
            None => {
                let source = shaders::source(key.kernel, key.inputs_rw).ok_or_else(|| {
                    Error::Pipeline(WgpuError::message_only(format!(
                        "no kernel for {:?}",
                        key.kernel
                    )))
                })?;
                (
                    source.name,
                    source.entry_point,
                    ModuleKey::Fixed(key.kernel, key.inputs_rw),
                    Some(source.source),
                )
            }
        };
        let module = {
            let mut modules = lock(&self.modules);
            match modules.get(&module_key) {
                Some(m) => m,
                None => {
                    let text = match (text, &key.fused) {
                        (Some(text), _) => std::borrow::Cow::Borrowed(text),
                        (None, Some(kernel)) => std::borrow::Cow::Owned(fused::source(kernel)),
                        (None, None) => unreachable!("a fixed kernel has its source"),
                    };
                    let m = capture_errors(device, late, || {
                        device.create_shader_module(wgpu::ShaderModuleDescriptor {
                            label: Some(name),
                            source: wgpu::ShaderSource::Wgsl(text),
                        })
                    })?;
                    self.made[0].fetch_add(1, Ordering::Relaxed);
                    modules.insert(module_key, m.clone(), false);
                    m
                }
            }
        };
        let constants = key.overrides.constants();
        let constants: &[(&str, f64)] = if key.fused.is_some() { &[] } else { &constants };
        let layout = &self.layouts[layout_index(key.inputs_rw, key.fused.is_some())].1;
        let pipeline = capture_errors(device, late, || {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(name),
                layout: Some(layout),
                module: &module,
                entry_point: Some(entry_point),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants,
                    // Only the tile kernel and the tiled contraction use workgroup memory,
                    // and each reads back exactly the slots it wrote before the barrier
                    // (the contraction writes every staged slot, zero past its operands'
                    // ends, and reads the staged depth alone): nothing reads memory it did
                    // not write, so zeroing it first would only cost time.
                    zero_initialize_workgroup_memory: false,
                },
                cache: self.cache.as_ref(),
            })
        })?;
        self.made[1].fetch_add(1, Ordering::Relaxed);
        lock(&self.pipelines).insert(key.clone(), pipeline.clone(), pin);
        Ok(pipeline)
    }
}

/// A storage buffer binding of a compute kernel, with no dynamic offset.
pub(crate) fn storage_entry(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// The index of a bind group layout: the operators' or the fused kernels', inputs read-only
/// or read-write.
fn layout_index(inputs_rw: bool, fused: bool) -> usize {
    usize::from(inputs_rw) + 2 * usize::from(fused)
}

fn capture_errors<T>(
    device: &wgpu::Device,
    late: &Late,
    f: impl FnOnce() -> T,
) -> Result<T, Error> {
    capture(device, late, |e| Error::Pipeline(WgpuError::new(e)), f)
        .map_err(|e| Error::Pipeline(WgpuError::new(e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Past its bound the map drops the entry used least recently, a lookup counting as a
    /// use, and never more than one entry for one new one.
    #[test]
    fn kept_kernels_are_bounded_and_the_least_recently_used_goes() {
        let mut kept: Recent<usize, usize> = Recent::new();
        for k in 0..KEPT_KERNELS {
            kept.insert(k, 10 * k, false);
        }
        assert_eq!(kept.get(&0), Some(0));
        kept.insert(KEPT_KERNELS, 1, false);
        assert_eq!(kept.entries.len(), KEPT_KERNELS);
        assert!(kept.contains(&0), "used last, kept");
        assert!(!kept.contains(&1), "used least recently, dropped");
        assert_eq!(kept.get(&2), Some(20));
        // Inserting a key it holds keeps its entry, dropping nothing.
        kept.insert(2, 7, false);
        assert_eq!((kept.entries.len(), kept.get(&2)), (KEPT_KERNELS, Some(20)));
        for k in 0..10 * KEPT_KERNELS {
            kept.insert(1000 + k, k, false);
        }
        assert_eq!(kept.entries.len(), KEPT_KERNELS);
    }

    /// Pinned entries (a warm-up's) are never dropped and leave the bound to the others;
    /// pinning one already kept takes it out of the count.
    #[test]
    fn warmed_kernels_stay() {
        let mut kept: Recent<usize, usize> = Recent::new();
        kept.insert(0, 0, false);
        assert!(kept.pin(&0));
        assert!(!kept.pin(&1), "nothing to pin");
        for k in 1..=2 * KEPT_KERNELS {
            kept.insert(k, k, k <= KEPT_KERNELS);
        }
        // 0 and the first KEPT_KERNELS pinned, the last KEPT_KERNELS unpinned: all kept.
        assert_eq!(kept.entries.len(), 2 * KEPT_KERNELS + 1);
        for k in 0..3 * KEPT_KERNELS {
            kept.insert(10_000 + k, k, false);
        }
        assert_eq!(kept.entries.len(), 2 * KEPT_KERNELS + 1);
        assert!(
            (0..=KEPT_KERNELS).all(|k| kept.contains(&k)),
            "pinned, kept"
        );
        assert!(!kept.contains(&(KEPT_KERNELS + 1)), "unpinned, dropped");
    }
}
