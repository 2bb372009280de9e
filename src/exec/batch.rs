//! Recording: binding checks, the binding pattern, windows, kernel choice, and then one
//! metadata buffer, shared bind groups and one compute pass for any number of calls.

use std::collections::HashMap;
use std::num::NonZeroU64;

use super::binding::{TensorBinding, XorBindings};
use super::context::{Context, Shared};
use super::operator::XorOperator;
use crate::error::{Error, TensorName};
use crate::kernels::dispatch;
use crate::kernels::params::Params;
use crate::kernels::pipelines::PipelineKey;
use crate::kernels::select::{self, Bound};
use crate::kernels::shaders::Overrides;
use crate::layout::{
    A, B, BindingPattern, BoundOperand, ElementOp, KernelKind, OUT, OperandSpec, Plan,
    analyze_bindings, split,
};

/// Metadata records per uniform buffer (256 KiB at the usual 256-byte spacing).
const RECORDS_PER_BUFFER: usize = 1024;

/// What one recorded call did; tests use it to prove which path ran.
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

/// Many calls recorded together: one uniform buffer holds the metadata of every dispatch, one
/// bind group serves every call on the same buffers, and one compute pass holds them all.
///
/// Each [`Batch::push`] checks its bindings at once and records nothing on an error; calls
/// run in the order they were pushed, each seeing the results of the ones before.
///
/// ```no_run
/// use gpu_xor::{BitXor, BitXorDesc, Context, DataType, TensorBinding, XorBindings};
///
/// # fn main() -> Result<(), gpu_xor::Error> {
/// # let ctx = Context::from_env()?;
/// # let (a, b, out): (wgpu::Buffer, wgpu::Buffer, wgpu::Buffer) = unimplemented!();
/// let op = BitXor::new(&ctx, &BitXorDesc::packed(DataType::U32, &[1024]))?;
/// let mut batch = ctx.batch();
/// for i in 0..1000 {
///     let at = i * 4096;
///     batch.push(
///         &op,
///         &XorBindings::new(
///             TensorBinding::range(&a, at, 4096),
///             TensorBinding::range(&b, at, 4096),
///             TensorBinding::range(&out, at, 4096),
///         ),
///     )?;
/// }
/// let mut encoder = ctx.device().create_command_encoder(&Default::default());
/// batch.record(&mut encoder)?;
/// ctx.queue().submit([encoder.finish()]);
/// # Ok(())
/// # }
/// ```
pub struct Batch {
    ctx: Context,
    dispatches: Vec<Planned>,
    bind_sets: Vec<BindSet>,
    bind_index: HashMap<BindSet, usize>,
}

/// What one bind group binds: three ranges, with read-only or read-write inputs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct BindSet {
    slots: [Slot; 3],
    inputs_rw: bool,
}

/// One bound range: a buffer (or the unused-slot buffer) and its byte range.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Slot {
    buffer: Option<wgpu::Buffer>,
    start: u64,
    end: u64,
}

struct Planned {
    pipeline: wgpu::ComputePipeline,
    params: Params,
    groups: [u32; 3],
    bind: usize,
}

impl std::fmt::Debug for Batch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batch")
            .field("dispatches", &self.dispatches.len())
            .field("bind_groups", &self.bind_sets.len())
            .finish()
    }
}

impl Context {
    /// An empty batch on this context.
    pub fn batch(&self) -> Batch {
        Batch {
            ctx: self.clone(),
            dispatches: Vec::new(),
            bind_sets: Vec::new(),
            bind_index: HashMap::new(),
        }
    }
}

impl Batch {
    /// Adds one call of `op` on `bindings`. The bindings are checked now; on an error nothing
    /// is added.
    pub fn push(
        &mut self,
        op: &impl XorOperator,
        bindings: &XorBindings<'_>,
    ) -> Result<RecordSummary, Error> {
        self.push_plan(op.context(), op.plan(), bindings)
    }

    pub(crate) fn push_plan(
        &mut self,
        ctx: &Context,
        plan: &Plan,
        bindings: &XorBindings<'_>,
    ) -> Result<RecordSummary, Error> {
        if !std::sync::Arc::ptr_eq(&ctx.shared, &self.ctx.shared) {
            return Err(Error::ContextMismatch);
        }
        let shared = &*self.ctx.shared;
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
        let keys = [0, key_a, key_b];
        let sharing = analyze_bindings(
            &std::array::from_fn(|o| BoundOperand {
                buffer: keys[o],
                offset: bound[o].offset,
            }),
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
        let start = bound.map(|b| b.offset);
        // Operands in one buffer share its binding, unless they lie further apart than one
        // binding can reach: then each gets a binding of its own (read_write for inputs in the
        // output's buffer, since wgpu takes one buffer in several bindings only when all are
        // writable), and only an input that aliases the output exactly reads through it.
        let (slot, inputs_rw, pieces) =
            match split(&plan.layout, start, sharing.slot, width, shared.windows) {
                Ok(pieces) => (sharing.slot, false, pieces),
                Err(Error::SharedBufferSpanTooLarge { .. }) => {
                    let a = if sharing.in_place[0] { 0 } else { 1 };
                    let b = if sharing.in_place[1] { 0 } else { a + 1 };
                    let slot = [0, a, b];
                    let rw = (1..3).any(|o| slot[o] != 0 && keys[o] == 0);
                    (
                        slot,
                        rw,
                        split(&plan.layout, start, slot, width, shared.windows)?,
                    )
                }
                Err(e) => return Err(e),
            };
        let mut slot_buffer: [Option<&wgpu::Buffer>; 3] = [None; 3];
        for o in 0..3 {
            slot_buffer[slot[o]] = Some(bound[o].buffer);
        }

        // Everything is worked out before anything is added, so that an error leaves the
        // batch as it was.
        let mut planned = Vec::with_capacity(pieces.len());
        let mut new_sets: Vec<BindSet> = Vec::new();
        for piece in &pieces {
            let range: [Option<(u64, u64)>; 3] = std::array::from_fn(|s| {
                let buffer = slot_buffer[s]?;
                let (used_start, used_end) = piece.windows[s]?;
                Some(bind_range(
                    buffer,
                    used_start,
                    used_end,
                    shared.windows.max_window,
                ))
            });
            let choice = Bound {
                start,
                range,
                max_groups: shared.max_groups,
            };
            let kernel = select::choose(plan.kernel, piece, &choice, width);
            // An input read in place is read through a binding of its own (read_write, on the
            // same range as the output) rather than through the output's: compilers then keep
            // loads of it apart from stores to the output, which is sound because every
            // element is read by the one invocation that writes it, before it writes it. The
            // scatter kernel keeps reading through the output's atomic binding, since there
            // other invocations change the neighbouring lanes of a word concurrently.
            let own_bindings = kernel != KernelKind::Scatter && (1..3).any(|o| slot[o] == 0);
            let (piece_slot, piece_rw, piece_range, piece_buffer) = if own_bindings {
                let own = [0, 1, 2];
                let mut own_range = [None; 3];
                let mut own_buffer: [Option<&wgpu::Buffer>; 3] = [None; 3];
                for o in 0..3 {
                    own_range[own[o]] = range[slot[o]];
                    own_buffer[own[o]] = Some(bound[o].buffer);
                }
                let rw = (1..3).any(|o| keys[o] == 0);
                (own, rw, own_range, own_buffer)
            } else {
                (slot, inputs_rw, range, slot_buffer)
            };
            let window_start =
                std::array::from_fn(|o| piece_range[piece_slot[o]].map_or(0, |r| r.0));
            let d = dispatch::build(kernel, piece, start, window_start, width, shared.max_groups);
            let (a_mode, b_mode) = select::modes(kernel, piece);
            let pipeline = shared.kernels.pipeline(
                &shared.device,
                PipelineKey {
                    kernel,
                    inputs_rw: piece_rw,
                    overrides: Overrides {
                        width: width as u32,
                        logical: plan.op == ElementOp::Logical,
                        a_src: piece_slot[A] as u32,
                        b_src: piece_slot[B] as u32,
                        a_mode,
                        b_mode,
                        rank: select::rank_constant(kernel, piece.sizes.len()),
                    },
                },
            )?;
            let slots: [Slot; 3] =
                std::array::from_fn(|s| match (piece_buffer[s], piece_range[s]) {
                    (Some(buffer), Some((start, end))) => Slot {
                        buffer: Some(buffer.clone()),
                        start,
                        end,
                    },
                    _ => Slot {
                        buffer: None,
                        start: 0,
                        end: 0,
                    },
                });
            let set = BindSet {
                slots,
                inputs_rw: piece_rw,
            };
            let bind = match self.bind_index.get(&set) {
                Some(&i) => i,
                None => match new_sets.iter().position(|s| *s == set) {
                    Some(i) => self.bind_sets.len() + i,
                    None => {
                        new_sets.push(set);
                        self.bind_sets.len() + new_sets.len() - 1
                    }
                },
            };
            planned.push(Planned {
                pipeline,
                params: d.params,
                groups: d.groups,
                bind,
            });
            summary.dispatches.push(kernel);
        }
        for set in new_sets {
            self.bind_index.insert(set.clone(), self.bind_sets.len());
            self.bind_sets.push(set);
        }
        self.dispatches.extend(planned);
        Ok(summary)
    }

    /// The number of dispatches pushed so far.
    pub fn len(&self) -> usize {
        self.dispatches.len()
    }

    /// Whether nothing has been pushed (or only calls with empty outputs).
    pub fn is_empty(&self) -> bool {
        self.dispatches.is_empty()
    }

    /// How many distinct sets of bound ranges the pushed calls use: the number of bind groups
    /// [`Batch::record`] creates per metadata buffer. Calls on the same buffers share one
    /// whenever those buffers fit a binding whole.
    pub fn bind_group_count(&self) -> usize {
        self.bind_sets.len()
    }

    /// How many uniform buffers [`Batch::record`] creates for the metadata records (one per
    /// 1,024 dispatches).
    pub fn metadata_buffer_count(&self) -> usize {
        self.dispatches.len().div_ceil(RECORDS_PER_BUFFER)
    }

    /// Records every pushed call into `encoder`, in order, in one compute pass.
    pub fn record(self, encoder: &mut wgpu::CommandEncoder) -> Result<(), Error> {
        if self.dispatches.is_empty() {
            return Ok(());
        }
        let shared = &*self.ctx.shared;
        let stride = shared.record_stride;
        let chunks: Vec<wgpu::Buffer> = self
            .dispatches
            .chunks(RECORDS_PER_BUFFER)
            .map(|chunk| params_buffer(shared, chunk, stride))
            .collect::<Result<_, _>>()?;
        // One bind group per (metadata buffer, bound buffers) pair in use.
        let mut groups: HashMap<(usize, usize), wgpu::BindGroup> = HashMap::new();
        for (i, d) in self.dispatches.iter().enumerate() {
            let chunk = i / RECORDS_PER_BUFFER;
            groups
                .entry((chunk, d.bind))
                .or_insert_with(|| bind_group(shared, &chunks[chunk], &self.bind_sets[d.bind]));
        }
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("gpu-xor"),
            timestamp_writes: None,
        });
        let mut current: Option<&wgpu::ComputePipeline> = None;
        for (i, d) in self.dispatches.iter().enumerate() {
            if current != Some(&d.pipeline) {
                pass.set_pipeline(&d.pipeline);
                current = Some(&d.pipeline);
            }
            let chunk = i / RECORDS_PER_BUFFER;
            let offset = (i % RECORDS_PER_BUFFER) as u64 * stride;
            pass.set_bind_group(0, &groups[&(chunk, d.bind)], &[offset as u32]);
            pass.dispatch_workgroups(d.groups[0], d.groups[1], d.groups[2]);
        }
        Ok(())
    }
}

/// The range of `buffer` to bind for a piece that uses `[used_start, used_end)`: the whole
/// buffer when it fits one binding (so that calls on the same buffers share a bind group),
/// else the piece's window with its end rounded up to 16 where the buffer allows. `used_start`
/// is already aligned for a binding offset.
fn bind_range(
    buffer: &wgpu::Buffer,
    used_start: u64,
    used_end: u64,
    max_window: u64,
) -> (u64, u64) {
    let whole = buffer.size() - buffer.size() % 4;
    if whole <= max_window {
        (0, whole)
    } else {
        (used_start, (used_end.div_ceil(16) * 16).min(whole))
    }
}

/// The binding rules that need no other operand: usage, offset alignment, bounds, size.
fn check_binding(
    tensor: TensorName,
    binding: &TensorBinding<'_>,
    spec: &OperandSpec,
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

/// A uniform buffer holding the records of `dispatches`, `stride` bytes apart.
fn params_buffer(
    shared: &Shared,
    dispatches: &[Planned],
    stride: u64,
) -> Result<wgpu::Buffer, Error> {
    let size = stride * dispatches.len() as u64;
    let buffer = shared.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("gpu-xor params"),
        size,
        usage: wgpu::BufferUsages::UNIFORM,
        mapped_at_creation: true,
    });
    let mut bytes = vec![0u8; size as usize];
    for (i, d) in dispatches.iter().enumerate() {
        let at = i * stride as usize;
        bytes[at..at + std::mem::size_of::<Params>()]
            .copy_from_slice(bytemuck::bytes_of(&d.params));
    }
    buffer
        .get_mapped_range_mut(..)
        .map_err(|e| Error::Map(e.to_string()))?
        .copy_from_slice(&bytes);
    buffer.unmap();
    Ok(buffer)
}

fn bind_group(shared: &Shared, params: &wgpu::Buffer, set: &BindSet) -> wgpu::BindGroup {
    fn storage<'a>(slot: &'a Slot, dummy: &'a wgpu::Buffer) -> wgpu::BindingResource<'a> {
        match &slot.buffer {
            Some(buffer) => wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer,
                offset: slot.start,
                size: NonZeroU64::new(slot.end - slot.start),
            }),
            None => dummy.as_entire_binding(),
        }
    }
    shared.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("gpu-xor"),
        layout: shared.kernels.bind_group_layout(set.inputs_rw),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: params,
                    offset: 0,
                    size: NonZeroU64::new(std::mem::size_of::<Params>() as u64),
                }),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: storage(&set.slots[0], &shared.dummy),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: storage(&set.slots[1], &shared.dummy),
            },
            wgpu::BindGroupEntry {
                binding: 3,
                resource: storage(&set.slots[2], &shared.dummy),
            },
        ],
    })
}
