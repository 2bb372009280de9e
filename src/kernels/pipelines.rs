//! Shader modules and compute pipelines, created once per device and cached.

use std::collections::HashMap;
use std::num::NonZeroU64;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use super::shaders;
use crate::error::{Error, WgpuError};
use crate::layout::KernelKind;
use crate::schedule::PipelineKey;
use crate::schedule::params::{RECORD_BYTES, RECORDS_PER_BINDING};
use crate::scope::{Late, capture};
use crate::sync::lock;

/// The two bind group layouts (inputs read-only, inputs read-write) and the pipelines made
/// so far.
pub(crate) struct KernelCache {
    layouts: [(wgpu::BindGroupLayout, wgpu::PipelineLayout); 2],
    modules: Mutex<HashMap<(KernelKind, bool), wgpu::ShaderModule>>,
    pipelines: Mutex<HashMap<PipelineKey, wgpu::ComputePipeline>>,
    /// The caller's pipeline cache, when the device supports one.
    cache: Option<wgpu::PipelineCache>,
    /// Shader modules and pipelines made so far.
    made: [AtomicU64; 2],
}

impl KernelCache {
    pub fn new(device: &wgpu::Device, cache: Option<wgpu::PipelineCache>) -> KernelCache {
        let layout = |inputs_rw: bool| {
            let storage = |binding: u32, read_only: bool| wgpu::BindGroupLayoutEntry {
                binding,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            };
            let bind_group_layout =
                device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some("gpu-xor"),
                    entries: &[
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
                        storage(2, !inputs_rw),
                        storage(3, !inputs_rw),
                    ],
                });
            let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("gpu-xor"),
                bind_group_layouts: &[Some(&bind_group_layout)],
                immediate_size: 0,
            });
            (bind_group_layout, pipeline_layout)
        };
        KernelCache {
            layouts: [layout(false), layout(true)],
            modules: Mutex::new(HashMap::new()),
            pipelines: Mutex::new(HashMap::new()),
            cache,
            made: [AtomicU64::new(0), AtomicU64::new(0)],
        }
    }

    /// The bind group layout for read-only or read-write input bindings.
    pub fn bind_group_layout(&self, inputs_rw: bool) -> &wgpu::BindGroupLayout {
        &self.layouts[usize::from(inputs_rw)].0
    }

    /// How many shader modules and compute pipelines have been made.
    pub fn made(&self) -> (u64, u64) {
        (
            self.made[0].load(Ordering::Relaxed),
            self.made[1].load(Ordering::Relaxed),
        )
    }

    /// Whether the pipeline for `key` is made already.
    pub fn contains(&self, key: &PipelineKey) -> bool {
        lock(&self.pipelines).contains_key(key)
    }

    /// The pipeline for `key`, created on first use. Errors that the device reports only
    /// later (in a browser) go to `late`.
    pub fn pipeline(
        &self,
        device: &wgpu::Device,
        late: &Late,
        key: PipelineKey,
    ) -> Result<wgpu::ComputePipeline, Error> {
        if let Some(p) = lock(&self.pipelines).get(&key) {
            return Ok(p.clone());
        }
        let source = shaders::source(key.kernel, key.inputs_rw).ok_or_else(|| {
            Error::Pipeline(WgpuError::message_only(format!(
                "no kernel for {:?}",
                key.kernel
            )))
        })?;
        let module_key = (key.kernel, key.inputs_rw);
        let module = {
            let mut modules = lock(&self.modules);
            match modules.get(&module_key) {
                Some(m) => m.clone(),
                None => {
                    let m = capture_errors(device, late, || {
                        device.create_shader_module(wgpu::ShaderModuleDescriptor {
                            label: Some(source.name),
                            source: wgpu::ShaderSource::Wgsl(source.source.into()),
                        })
                    })?;
                    self.made[0].fetch_add(1, Ordering::Relaxed);
                    modules.insert(module_key, m.clone());
                    m
                }
            }
        };
        let constants = key.overrides.constants();
        let pipeline = capture_errors(device, late, || {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(source.name),
                layout: Some(&self.layouts[usize::from(key.inputs_rw)].1),
                module: &module,
                entry_point: Some(source.entry_point),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &constants,
                    // Only the tile kernel uses workgroup memory, and it reads back exactly
                    // the slots it wrote before the barrier, under the same bounds
                    // condition: nothing reads memory it did not write, so zeroing it first
                    // would only cost time.
                    zero_initialize_workgroup_memory: false,
                },
                cache: self.cache.as_ref(),
            })
        })?;
        self.made[1].fetch_add(1, Ordering::Relaxed);
        lock(&self.pipelines).insert(key, pipeline.clone());
        Ok(pipeline)
    }
}

fn capture_errors<T>(
    device: &wgpu::Device,
    late: &Late,
    f: impl FnOnce() -> T,
) -> Result<T, Error> {
    capture(device, late, |e| Error::Pipeline(WgpuError::new(e)), f)
        .map_err(|e| Error::Pipeline(WgpuError::new(e)))
}
