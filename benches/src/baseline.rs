//! The baselines measured on the same adapter in the same run as the cases: a `vec4<u32>`
//! copy kernel, `copy_buffer_to_buffer`, and a bare `vec4<u32>` XOR kernel (no metadata, no
//! masks), out of place and, for the in-place cases, in place.

use gpu_xor::Context;

use crate::buffers::storage;

/// A baseline kernel (`copy.wgsl`, `bare_xor.wgsl`): `vec4<u32>` storage bindings, one
/// 16-byte block per invocation, then a uniform with the block count and the grid's row
/// stride ([`Grid`]).
pub(crate) struct Kernel {
    pub(crate) pipeline: wgpu::ComputePipeline,
}

/// The grid of a baseline kernel over `len` bytes: the uniform its kernels read, and the
/// workgroup counts, at most the adapter's limit in x (the contiguous XOR kernel's rule).
pub(crate) struct Grid {
    len: u64,
    uniform: wgpu::Buffer,
    groups: (u32, u32),
}

/// One dispatch of a baseline kernel: its bind group and workgroup counts.
pub(crate) struct Dispatch {
    bind_group: wgpu::BindGroup,
    groups: (u32, u32),
}

impl Kernel {
    /// The `vec4<u32>` copy: bindings src, dst.
    pub(crate) fn copy(ctx: &Context) -> Kernel {
        Kernel::new(ctx, "copy", include_str!("../copy.wgsl"))
    }

    /// The bare `vec4<u32>` XOR, no metadata and no masks: bindings a, b, out.
    pub(crate) fn bare_xor(ctx: &Context) -> Kernel {
        Kernel::new(ctx, "bare xor", include_str!("../bare_xor.wgsl"))
    }

    /// The bare `vec4<u32>` XOR in place, `a ^= b`: bindings a (read and written), b.
    pub(crate) fn bare_xor_in_place(ctx: &Context) -> Kernel {
        Kernel::new(
            ctx,
            "bare xor in place",
            include_str!("../bare_xor_in_place.wgsl"),
        )
    }

    /// The kernel of this WGSL source, entry point `main`, its layout derived from the shader.
    pub(crate) fn new(ctx: &Context, label: &str, source: &str) -> Kernel {
        let device = ctx.device();
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(label),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        Kernel { pipeline }
    }

    /// A dispatch over `grid.len` bytes of each of `buffers` from `offset` (a multiple of the
    /// adapter's storage offset alignment), in binding order, the grid's uniform last.
    pub(crate) fn bind(
        &self,
        ctx: &Context,
        buffers: &[&wgpu::Buffer],
        offset: u64,
        grid: &Grid,
    ) -> Dispatch {
        let mut entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .zip(0..)
            .map(|(buffer, binding)| wgpu::BindGroupEntry {
                binding,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer,
                    offset,
                    size: std::num::NonZeroU64::new(grid.len),
                }),
            })
            .collect();
        entries.push(wgpu::BindGroupEntry {
            binding: buffers.len() as u32,
            resource: grid.uniform.as_entire_binding(),
        });
        Dispatch {
            bind_group: ctx.device().create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("baseline"),
                layout: &self.pipeline.get_bind_group_layout(0),
                entries: &entries,
            }),
            groups: grid.groups,
        }
    }

    /// `n` rounds of `dispatches` in one compute pass, the pipeline set once.
    pub(crate) fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        dispatches: &[Dispatch],
        n: u64,
    ) {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&self.pipeline);
        for _ in 0..n {
            for d in dispatches {
                d.record(&mut pass);
            }
        }
    }
}

impl Grid {
    /// The grid over `len` bytes (a multiple of 16).
    pub(crate) fn new(ctx: &Context, len: u64) -> Grid {
        let device = ctx.device();
        let max_x = u64::from(device.limits().max_compute_workgroups_per_dimension);
        let blocks = len / 16;
        let groups = blocks.div_ceil(256).max(1);
        // The library's balanced split: as few rows as fit, fewer than `y` groups empty.
        let y = groups.div_ceil(max_x);
        let x = groups.div_ceil(y);
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("baseline blocks"),
            size: 16,
            usage: wgpu::BufferUsages::UNIFORM,
            mapped_at_creation: true,
        });
        uniform
            .get_mapped_range_mut(..)
            .expect("mapped")
            .copy_from_slice(bytemuck::cast_slice(&[
                blocks as u32,
                (x * 256) as u32,
                0,
                0,
            ]));
        uniform.unmap();
        Grid {
            len,
            uniform,
            groups: (x as u32, y as u32),
        }
    }
}

impl Dispatch {
    /// Sets the bind group and dispatches, in a pass whose pipeline is the kernel's.
    pub(crate) fn record(&self, pass: &mut wgpu::ComputePass<'_>) {
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
    }
}

/// The baselines over `bytes` bytes: the `vec4<u32>` copy kernel (src to dst),
/// `copy_buffer_to_buffer` (the same), the bare `vec4<u32>` XOR kernel (src ^ b to dst) and
/// the same in place (dst ^= b). The kernels run in windows of at most the binding limit,
/// like the XOR kernels.
pub struct Baselines {
    /// Bytes of each buffer: the `bytes` asked for, rounded up to 16.
    pub(crate) bytes: u64,
    src: wgpu::Buffer,
    dst: wgpu::Buffer,
    copy: Kernel,
    bare: Kernel,
    in_place: Kernel,
    copies: Vec<Dispatch>,
    xors: Vec<Dispatch>,
    in_place_xors: Vec<Dispatch>,
}

impl Baselines {
    /// The baselines over `bytes` bytes, their buffers filled with random bytes.
    pub fn new(ctx: &Context, bytes: u64) -> Baselines {
        let bytes = bytes.div_ceil(16) * 16;
        let src = storage(ctx, bytes, 9);
        let dst = storage(ctx, bytes, 10);
        let b = storage(ctx, bytes, 14);
        let copy = Kernel::copy(ctx);
        let bare = Kernel::bare_xor(ctx);
        let in_place = Kernel::bare_xor_in_place(ctx);
        let window = ctx
            .device()
            .limits()
            .max_storage_buffer_binding_size
            .min(1 << 31)
            / 256
            * 256;
        let (mut copies, mut xors, mut in_place_xors) = (Vec::new(), Vec::new(), Vec::new());
        let mut at = 0;
        while at < bytes {
            let grid = Grid::new(ctx, window.min(bytes - at));
            copies.push(copy.bind(ctx, &[&src, &dst], at, &grid));
            xors.push(bare.bind(ctx, &[&src, &b, &dst], at, &grid));
            in_place_xors.push(in_place.bind(ctx, &[&dst, &b], at, &grid));
            at += grid.len;
        }
        Baselines {
            bytes,
            src,
            dst,
            copy,
            bare,
            in_place,
            copies,
            xors,
            in_place_xors,
        }
    }

    /// `n` `vec4<u32>` copies of `bytes` (traffic: 2 x bytes each).
    pub fn record_copy_kernel(&self, encoder: &mut wgpu::CommandEncoder, n: u64) {
        self.copy.record(encoder, &self.copies, n);
    }

    /// `n` bare `vec4<u32>` XORs of `bytes` (traffic: 3 x bytes each).
    pub fn record_bare_xor(&self, encoder: &mut wgpu::CommandEncoder, n: u64) {
        self.bare.record(encoder, &self.xors, n);
    }

    /// `n` bare `vec4<u32>` XORs of `bytes` in place, `dst ^= b` (traffic: 3 x bytes each, as
    /// an in-place call counts its own).
    pub fn record_bare_xor_in_place(&self, encoder: &mut wgpu::CommandEncoder, n: u64) {
        self.in_place.record(encoder, &self.in_place_xors, n);
    }

    /// `n` `vec4<u32>` copies, each in a compute pass of its own that sets the pipeline and the
    /// bind group: what wgpu alone costs to record `n` one-dispatch passes.
    pub fn record_copy_passes(&self, encoder: &mut wgpu::CommandEncoder, n: u64) {
        for _ in 0..n {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            for d in &self.copies {
                pass.set_pipeline(&self.copy.pipeline);
                d.record(&mut pass);
            }
        }
    }

    /// `n` `vec4<u32>` copies in one compute pass, each setting the pipeline and the bind
    /// group again: what wgpu alone costs to record `n` dispatches.
    pub fn record_copy_dispatches(&self, encoder: &mut wgpu::CommandEncoder, n: u64) {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        for _ in 0..n {
            for d in &self.copies {
                pass.set_pipeline(&self.copy.pipeline);
                d.record(&mut pass);
            }
        }
    }

    /// `n` empty compute passes: what wgpu alone costs to record `n` passes.
    pub fn record_empty_passes(&self, encoder: &mut wgpu::CommandEncoder, n: u64) {
        for _ in 0..n {
            encoder.begin_compute_pass(&Default::default());
        }
    }

    /// `n` `copy_buffer_to_buffer` of `bytes` (traffic: 2 x bytes each).
    pub fn record_copy_buffer(&self, encoder: &mut wgpu::CommandEncoder, n: u64) {
        for _ in 0..n {
            encoder.copy_buffer_to_buffer(&self.src, 0, &self.dst, 0, self.bytes);
        }
    }
}
