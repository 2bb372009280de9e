//! Recording one call into a command encoder: binding checks, the binding pattern, windows,
//! metadata, bind groups and dispatches.

use super::binding::XorBindings;
use super::context::Shared;
use crate::error::{Error, TensorName};
use crate::kernels::dispatch::{self, Dispatch};
use crate::kernels::pipelines::PipelineKey;
use crate::layout::{
    A, B, BindingPattern, BoundOperand, KernelKind, OUT, Piece, Plan, analyze_bindings, split,
};

/// What one `record` call did; tests use it to prove which path ran.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RecordSummary {
    /// How the three buffers were bound.
    pub binding_pattern: BindingPattern,
    /// Whether the output aliased A exactly (in place).
    pub a_in_place: bool,
    /// Whether the output aliased B exactly (in place).
    pub b_in_place: bool,
    /// The kernel of each dispatch, in recording order (empty for an empty output).
    pub dispatches: Vec<KernelKind>,
}

impl RecordSummary {
    /// Whether the output aliased an input exactly.
    pub fn in_place(&self) -> bool {
        self.a_in_place || self.b_in_place
    }
}

/// Checks the bindings against the plan and records the dispatches. Nothing is recorded
/// unless every check passes.
pub(crate) fn record(
    shared: &Shared,
    plan: &Plan,
    bindings: &XorBindings<'_>,
    encoder: &mut wgpu::CommandEncoder,
) -> Result<RecordSummary, Error> {
    let bound = [&bindings.output, &bindings.a, &bindings.b];
    let names = [TensorName::Output, TensorName::A, TensorName::B];
    for o in 0..3 {
        check_binding(names[o], bound[o], &plan.operands[o])?;
    }

    let key_a = usize::from(bound[A].buffer != bound[OUT].buffer);
    let key_b = if bound[B].buffer == bound[OUT].buffer {
        0
    } else if bound[B].buffer == bound[A].buffer {
        key_a
    } else {
        2
    };
    let sharing = analyze_bindings(
        &[
            BoundOperand {
                buffer: 0,
                offset: bound[OUT].offset,
            },
            BoundOperand {
                buffer: key_a,
                offset: bound[A].offset,
            },
            BoundOperand {
                buffer: key_b,
                offset: bound[B].offset,
            },
        ],
        &plan.operands,
    )?;
    let mut summary = RecordSummary {
        binding_pattern: sharing.pattern,
        a_in_place: sharing.in_place[0],
        b_in_place: sharing.in_place[1],
        dispatches: Vec::new(),
    };
    if plan.elements == 0 {
        return Ok(summary);
    }

    let width = u64::from(plan.data_type.size_in_bytes());
    let base = [bound[OUT].offset, bound[A].offset, bound[B].offset];
    let pieces = split(&plan.layout, base, sharing.slot, width, shared.windows)?;
    let mut slot_buffer: [Option<&wgpu::Buffer>; 3] = [None; 3];
    for o in 0..3 {
        slot_buffer[sharing.slot[o]] = Some(bound[o].buffer);
    }

    // Work out every dispatch before touching the device or the encoder.
    let mut planned = Vec::with_capacity(pieces.len());
    for piece in &pieces {
        let kernel = piece_kernel(plan.kernel, piece, base, width, &slot_buffer);
        let round = if kernel == KernelKind::Contiguous {
            16
        } else {
            4
        };
        let ranges: [Option<(u64, u64)>; 3] = std::array::from_fn(|s| {
            piece.windows[s].map(|(start, end)| (start, end.div_ceil(round) * round))
        });
        let window_start = std::array::from_fn(|o| ranges[sharing.slot[o]].map_or(0, |r| r.0));
        let d = dispatch::build(kernel, piece, base, window_start, width, shared.max_groups);
        planned.push((kernel, ranges, d));
    }
    let mut pipelines = Vec::with_capacity(planned.len());
    for (kernel, _, _) in &planned {
        pipelines.push(shared.kernels.pipeline(
            &shared.device,
            PipelineKey {
                kernel: *kernel,
                op: plan.op,
                width: width as u32,
                a_src: sharing.slot[A] as u32,
                b_src: sharing.slot[B] as u32,
            },
        )?);
    }

    let stride = shared.record_stride;
    let params = shared.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("gpu-xor params"),
        size: stride * planned.len() as u64,
        usage: wgpu::BufferUsages::UNIFORM,
        mapped_at_creation: true,
    });
    {
        let mut bytes = vec![0u8; (stride * planned.len() as u64) as usize];
        for (i, (_, _, d)) in planned.iter().enumerate() {
            let at = i * stride as usize;
            bytes[at..at + std::mem::size_of_val(&d.params)]
                .copy_from_slice(bytemuck::bytes_of(&d.params));
        }
        params
            .get_mapped_range_mut(..)
            .map_err(|e| Error::Map(e.to_string()))?
            .copy_from_slice(&bytes);
    }
    params.unmap();

    let bind_groups: Vec<wgpu::BindGroup> = planned
        .iter()
        .map(|(_, ranges, _)| bind_group(shared, &params, &slot_buffer, ranges))
        .collect();

    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some("gpu-xor"),
        timestamp_writes: None,
    });
    for (i, ((kernel, _, Dispatch { groups, .. }), pipeline)) in
        planned.iter().zip(&pipelines).enumerate()
    {
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &bind_groups[i], &[(i as u64 * stride) as u32]);
        pass.dispatch_workgroups(groups.0, groups.1, 1);
        summary.dispatches.push(*kernel);
    }
    Ok(summary)
}

/// The binding rules that need no other operand: usage, offset alignment, bounds, size.
fn check_binding(
    tensor: TensorName,
    binding: &super::TensorBinding<'_>,
    spec: &crate::layout::OperandSpec,
) -> Result<(), Error> {
    let buffer = binding.buffer;
    if !buffer.usage().contains(wgpu::BufferUsages::STORAGE) {
        return Err(Error::MissingUsage {
            tensor: Some(tensor),
            needed: "STORAGE",
            usage: format!("{:?}", buffer.usage()),
        });
    }
    if !binding.offset.is_multiple_of(spec.offset_alignment) {
        return Err(Error::BindingOffsetMisaligned {
            tensor,
            offset: binding.offset,
            required: spec.offset_alignment,
        });
    }
    let buffer_size = buffer.size();
    let size = binding
        .size
        .unwrap_or_else(|| buffer_size.saturating_sub(binding.offset));
    if binding
        .offset
        .checked_add(size)
        .is_none_or(|end| end > buffer_size)
    {
        return Err(Error::BindingOutOfBounds {
            tensor,
            offset: binding.offset,
            size,
            buffer_size,
        });
    }
    if size < spec.required_bytes {
        return Err(Error::BindingTooSmall {
            tensor,
            size,
            required: spec.required_bytes,
        });
    }
    Ok(())
}

/// The contiguous kernel reads and writes whole 16-byte blocks: every operand must start on
/// a 16-byte boundary and every window must be able to end on one inside its buffer.
/// Otherwise the gather kernel does the same work word by word.
fn piece_kernel(
    planned: KernelKind,
    piece: &Piece,
    base: [u64; 3],
    width: u64,
    slot_buffer: &[Option<&wgpu::Buffer>; 3],
) -> KernelKind {
    if planned != KernelKind::Contiguous {
        return planned;
    }
    let aligned = (0..3).all(|o| (base[o] + piece.origin[o] * width).is_multiple_of(16));
    let room = piece
        .windows
        .iter()
        .zip(slot_buffer)
        .all(|(w, b)| match (w, b) {
            (Some((_, end)), Some(buffer)) => end.div_ceil(16) * 16 <= buffer.size(),
            _ => true,
        });
    if aligned && room {
        KernelKind::Contiguous
    } else {
        KernelKind::Gather
    }
}

fn bind_group(
    shared: &Shared,
    params: &wgpu::Buffer,
    slot_buffer: &[Option<&wgpu::Buffer>; 3],
    ranges: &[Option<(u64, u64)>; 3],
) -> wgpu::BindGroup {
    let storage = |s: usize| match (slot_buffer[s], ranges[s]) {
        (Some(buffer), Some((start, end))) => wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer,
            offset: start,
            size: std::num::NonZeroU64::new(end - start),
        }),
        _ => shared.dummy.as_entire_binding(),
    };
    shared.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("gpu-xor"),
        layout: &shared.kernels.bind_group_layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: params,
                    offset: 0,
                    size: std::num::NonZeroU64::new(std::mem::size_of::<
                        crate::kernels::params::Params,
                    >() as u64),
                }),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: storage(0),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: storage(1),
            },
            wgpu::BindGroupEntry {
                binding: 3,
                resource: storage(2),
            },
        ],
    })
}
