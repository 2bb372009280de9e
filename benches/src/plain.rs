//! The fourth baseline, for the strided layouts: the plain strided XOR kernel
//! (`plain_strided.wgsl`), as a framework writes it.

use gpu_xor::Context;

/// A case's layout as the plain strided kernel reads it: element size, sizes, the element
/// strides of a, b and out, and the element offset of each in its buffer.
pub(crate) struct PlainLayout {
    /// Bytes of one element.
    pub(crate) width: u64,
    /// The output's sizes, which every operand is read and written in.
    pub(crate) sizes: Vec<u64>,
    /// The element strides of a, b and out.
    pub(crate) strides: [Vec<u64>; 3],
    /// The element offsets of a, b and out in their buffers.
    pub(crate) base: [u64; 3],
}

/// The plain strided XOR kernel (`plain_strided.wgsl`) bound to one case: one output element
/// per invocation (one output word for a dense 8- or 16-bit output), offsets unravelled from a
/// strides uniform, the whole buffers bound.
pub struct PlainStrided {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    groups: (u32, u32),
}

impl PlainStrided {
    /// The kernel specialised to `layout` (its element width, and whether its output is dense),
    /// bound to `buffers` (a, b, out) whole; `None` where a buffer is larger than one storage
    /// binding may be on the device (the kernel has no windows).
    pub(crate) fn new(
        ctx: &Context,
        layout: &PlainLayout,
        buffers: [&wgpu::Buffer; 3],
    ) -> Option<PlainStrided> {
        let device = ctx.device();
        let most = device.limits().max_storage_buffer_binding_size;
        if buffers.iter().any(|b| b.size() > most) {
            return None;
        }
        let w = layout.width;
        let elements: u64 = layout.sizes.iter().product();
        let rank = layout.sizes.len();
        // A dense output of 8- or 16-bit elements starting on a word: one word per invocation.
        let packed_strides: Vec<u64> = (0..rank)
            .map(|d| layout.sizes[d + 1..].iter().product())
            .collect();
        let packed =
            w < 4 && layout.strides[2] == packed_strides && (layout.base[2] * w).is_multiple_of(4);
        let words = (elements * w).div_ceil(4);
        let units = if packed { words } else { elements };
        let (out_type, stores) = if w < 4 && !packed {
            (
                "array<atomic<u32>>",
                "fn load_out(w: u32) -> u32 { return atomicLoad(&out_buf[w]); }\n\
                 fn store_word(w: u32, v: u32) { atomicStore(&out_buf[w], v); }\n\
                 fn store_lane(w: u32, shift: u32, v: u32) {\n\
                     let old = (atomicLoad(&out_buf[w]) >> shift) & lane_mask();\n\
                     atomicXor(&out_buf[w], (old ^ v) << shift);\n\
                 }\n",
            )
        } else {
            (
                "array<u32>",
                "fn load_out(w: u32) -> u32 { return out_buf[w]; }\n\
                 fn store_word(w: u32, v: u32) { out_buf[w] = v; }\n\
                 fn store_lane(w: u32, shift: u32, v: u32) {\n\
                     let m = lane_mask() << shift;\n\
                     out_buf[w] = (out_buf[w] & ~m) | (v << shift);\n\
                 }\n",
            )
        };
        let source = include_str!("../plain_strided.wgsl").replace("OUT_TYPE", out_type) + stores;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("plain strided"),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let constants = [
            ("WIDTH", w as f64),
            ("PACKED_OUT", f64::from(u8::from(packed))),
        ];
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("plain strided"),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants: &constants,
                ..Default::default()
            },
            cache: None,
        });
        let max_x = u64::from(device.limits().max_compute_workgroups_per_dimension);
        let groups = units.div_ceil(256).max(1);
        // The library's balanced split: as few rows as fit, fewer than `y` groups empty.
        let y = groups.div_ceil(max_x);
        let x = groups.div_ceil(y);
        let mut shape = [0u32; 40];
        shape[..4].copy_from_slice(&[elements as u32, rank as u32, (x * 256) as u32, words as u32]);
        for (i, &b) in layout.base.iter().enumerate() {
            shape[4 + i] = b as u32;
        }
        for d in 0..rank {
            shape[8 + d] = layout.sizes[d] as u32;
            for o in 0..3 {
                shape[16 + 8 * o + d] = layout.strides[o][d] as u32;
            }
        }
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("plain strided shape"),
            size: std::mem::size_of_val(&shape) as u64,
            usage: wgpu::BufferUsages::UNIFORM,
            mapped_at_creation: true,
        });
        uniform
            .get_mapped_range_mut(..)
            .expect("mapped")
            .copy_from_slice(bytemuck::cast_slice(&shape));
        uniform.unmap();
        let entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .map(|b| b.as_entire_binding())
            .chain([uniform.as_entire_binding()])
            .zip(0..)
            .map(|(resource, binding)| wgpu::BindGroupEntry { binding, resource })
            .collect();
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("plain strided"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        });
        Some(PlainStrided {
            pipeline,
            bind_group,
            groups: (x as u32, y as u32),
        })
    }

    /// `n` dispatches in one compute pass.
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder, n: u64) {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        for _ in 0..n {
            pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
        }
    }
}
