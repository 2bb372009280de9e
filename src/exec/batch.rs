//! Recording: binding checks, the binding pattern, windows, kernel choice, and then one
//! metadata buffer, shared bind groups and one compute pass for any number of calls.

use std::collections::HashMap;
use std::num::NonZeroU64;

use super::binding::{TensorBinding, XorBindings};
use super::context::{Context, Shared};
use super::fault::message;
use super::operator::XorOperator;
use crate::error::{Error, TensorName};
use crate::kernels::dispatch;
use crate::kernels::params::{Params, RECORD_BYTES, RECORDS_PER_BINDING};
use crate::kernels::pipelines::PipelineKey;
use crate::kernels::select::{self, Bound};
use crate::kernels::shaders::Overrides;
use crate::layout::{
    A, B, BindingPattern, BoundOperand, ElementOp, KernelKind, Limits, OUT, OperandSpec, Piece,
    Plan, Sharing, analyze_bindings, split,
};
use crate::scope::capture;

/// Calls one dispatch can hold (one per workgroup layer in z).
const MERGE_MAX: usize = RECORDS_PER_BINDING;

/// Records per metadata buffer (256 KiB), plus `MERGE_MAX` records of room after the last.
const CHUNK_RECORDS: usize = 1024;

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
    /// The kernel of each piece of the call, in order: one piece, or one per window for a
    /// call larger than one binding; none for an empty output. (In a [`Batch`], pieces of
    /// independent calls may then share a dispatch.)
    pub dispatches: Vec<KernelKind>,
    /// How many of those pieces bind a writable range that overlaps another binding of the
    /// same buffer. WebGPU forbids that, and a browser's WebGPU refuses it; the library binds
    /// apart wherever it can, and takes such bindings only on native backends (which allow
    /// them) when operands of one buffer lie too close together to be bound apart and too far
    /// apart to share a binding. Always 0 under [`crate::ContextOptions::webgpu_binding_rules`]
    /// and in a browser.
    pub overlapping_bindings: usize,
}

impl RecordSummary {
    /// Whether the output aliased an input exactly.
    pub fn in_place(&self) -> bool {
        self.a_in_place || self.b_in_place
    }
}

/// Many calls recorded together, as few dispatches as their independence allows.
///
/// One uniform buffer holds the metadata of every call, one bind group serves every call on
/// the same buffers, and one compute pass holds them all. Consecutive calls of one kernel on
/// the same bindings with the same grid share a dispatch (one call per workgroup layer), as
/// long as none of them writes bytes that another of them reads or writes; a call that
/// depends on an earlier one starts a new dispatch, and wgpu orders dispatches.
///
/// Each [`Batch::push`] checks its bindings at once and adds nothing on an error; calls take
/// effect in the order they were pushed.
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
    records: Vec<Params>,
    groups: Vec<Group>,
    bind_sets: Vec<BindSet>,
    bind_index: HashMap<BindSet, usize>,
}

/// One bound range: a buffer (or the unused-slot buffer) and its byte range.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Slot {
    buffer: Option<wgpu::Buffer>,
    start: u64,
    end: u64,
}

/// What one bind group binds: three ranges, with read-only or read-write inputs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct BindSet {
    slots: [Slot; 3],
    inputs_rw: bool,
}

impl BindSet {
    /// Whether a writable binding (the output's, or the inputs' when `read_write`) overlaps
    /// another binding of the same buffer.
    fn overlapping(&self) -> bool {
        let buffers = self.slots.each_ref().map(|s| s.buffer.as_ref());
        let ranges = self
            .slots
            .each_ref()
            .map(|s| s.buffer.as_ref().map(|_| (s.start, s.end)));
        overlapping(&buffers, &ranges, self.inputs_rw)
    }
}

/// One piece, worked out before anything is added to the batch.
struct Planned {
    key: PipelineKey,
    pipeline: wgpu::ComputePipeline,
    records: Vec<dispatch::Dispatch>,
    bind: usize,
    accesses: Vec<Access>,
}

/// One dispatch: consecutive records run by one pipeline on one bind group.
struct Group {
    key: PipelineKey,
    pipeline: wgpu::ComputePipeline,
    bind: usize,
    grid: [u32; 2],
    first: usize,
    count: usize,
    /// What its calls touch, to keep dependent calls out.
    accesses: Vec<Access>,
}

/// Bytes a call reads or writes in one buffer, widened to 16-byte blocks.
#[derive(Clone, Debug)]
struct Access {
    buffer: wgpu::Buffer,
    start: u64,
    end: u64,
    write: bool,
}

impl Access {
    fn conflicts(&self, other: &Access) -> bool {
        (self.write || other.write)
            && self.buffer == other.buffer
            && self.start < other.end
            && other.start < self.end
    }
}

impl std::fmt::Debug for Batch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batch")
            .field("records", &self.records.len())
            .field("dispatches", &self.groups.len())
            .field("bind_groups", &self.bind_sets.len())
            .finish()
    }
}

impl Context {
    /// An empty batch on this context.
    pub fn batch(&self) -> Batch {
        Batch {
            ctx: self.clone(),
            records: Vec::new(),
            groups: Vec::new(),
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
        // Only a loss already seen: checking the device on every push would cost an
        // allocation per call. `record` always finds a lost device.
        if let Some(lost) = shared.known_lost() {
            return Err(lost);
        }
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
            overlapping_bindings: 0,
        };
        if plan.elements == 0 {
            return Ok(summary);
        }

        let width = u64::from(plan.data_type.size_in_bytes());
        let start = bound.map(|b| b.offset);
        let (slot, inputs_rw, pieces, window) =
            choose_slots(plan, start, &sharing, keys, &bound, width, shared)?;
        let slot_buffer = slot_buffers(slot, &bound);

        // Everything is worked out before anything is added, so that an error leaves the
        // batch as it was.
        let mut planned = Vec::with_capacity(pieces.len());
        let mut new_sets: Vec<BindSet> = Vec::new();
        for piece in &pieces {
            let range = bound_ranges(piece, &slot_buffer, window);
            let choice = Bound {
                start,
                range,
                max_groups: shared.max_groups,
            };
            let kernel = select::choose(plan.kernel, piece, &choice, width);
            // An input read in place is read through the output's own binding (its slot is
            // 0): WebGPU forbids a writable binding that overlaps another binding of the same
            // buffer in one dispatch, so it cannot have a binding of its own.
            let window_start = std::array::from_fn(|o| range[slot[o]].map_or(0, |r| r.0));
            let records =
                dispatch::build(kernel, piece, start, window_start, width, shared.max_groups);
            let (a_mode, b_mode) = select::modes(kernel, piece);
            let key = PipelineKey {
                kernel,
                inputs_rw,
                overrides: Overrides {
                    width: width as u32,
                    logical: plan.op == ElementOp::Logical,
                    a_src: slot[A] as u32,
                    b_src: slot[B] as u32,
                    a_mode,
                    b_mode,
                    rank: select::rank_constant(kernel, piece.sizes.len()),
                },
            };
            let pipeline = shared.kernels.pipeline(&shared.device, &shared.late, key)?;
            let slots: [Slot; 3] = std::array::from_fn(|s| match (slot_buffer[s], range[s]) {
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
            let set = BindSet { slots, inputs_rw };
            summary.overlapping_bindings += usize::from(set.overlapping());
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
                key,
                pipeline,
                records,
                bind,
                accesses: accesses(piece, start, width, &bound),
            });
            summary.dispatches.push(kernel);
        }
        for set in new_sets {
            self.bind_index.insert(set.clone(), self.bind_sets.len());
            self.bind_sets.push(set);
        }
        for p in planned {
            self.add(p);
        }
        Ok(summary)
    }

    /// Appends one piece's records, joining the last dispatch where that is safe.
    fn add(&mut self, p: Planned) {
        let single = p.records.len() == 1;
        for (i, d) in p.records.into_iter().enumerate() {
            let index = self.records.len();
            self.records.push(d.params);
            let joins = self.groups.last().is_some_and(|g| {
                g.key == p.key
                    && g.bind == p.bind
                    && g.grid == d.groups
                    && g.count < MERGE_MAX
                    // A piece's own records touch disjoint rows; another call must not
                    // touch what this one writes, nor write what it reads.
                    && (i > 0
                        || (single
                            && !g
                                .accesses
                                .iter()
                                .any(|x| p.accesses.iter().any(|y| x.conflicts(y)))))
            });
            if joins {
                let g = self.groups.last_mut().expect("a last group");
                g.count += 1;
                if i == 0 {
                    g.accesses.extend(p.accesses.iter().cloned());
                }
            } else {
                self.groups.push(Group {
                    key: p.key,
                    pipeline: p.pipeline.clone(),
                    bind: p.bind,
                    grid: d.groups,
                    first: index,
                    count: 1,
                    accesses: p.accesses.clone(),
                });
            }
        }
    }

    /// The number of metadata records so far: one per piece of each pushed call (a call
    /// larger than one binding is several pieces, a rows or tile piece of more than 65,535 rows
    /// several records, an empty output none).
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether nothing has been pushed (or only calls with empty outputs).
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The number of dispatches [`Batch::record`] will record: consecutive independent calls
    /// of one kernel on the same bindings whose grids agree (shapes may differ) share one.
    pub fn dispatch_count(&self) -> usize {
        self.groups.len()
    }

    /// How many distinct sets of bound ranges the pushed calls use: the number of bind groups
    /// [`Batch::record`] creates per metadata buffer. Calls on the same buffers share one
    /// whenever those buffers fit a binding whole.
    pub fn bind_group_count(&self) -> usize {
        self.bind_sets.len()
    }

    /// Records every pushed call into `encoder`, in order, in one compute pass.
    ///
    /// Every wgpu object is made inside error scopes before anything is recorded: a lost
    /// device is [`Error::DeviceLost`], a bound buffer that was destroyed (or belongs to
    /// another device) is [`Error::InvalidBuffer`], and on these errors nothing is recorded.
    /// What wgpu checks only at submission (a buffer destroyed or mapped after this call) is
    /// reported by the caller's `Queue::submit`, to the device's uncaptured-error handler or
    /// the caller's error scope.
    pub fn record(self, encoder: &mut wgpu::CommandEncoder) -> Result<(), Error> {
        self.record_named(encoder, &[])
    }

    /// [`Batch::record`], naming the tensor of a refused buffer found in `named`.
    pub(crate) fn record_named(
        self,
        encoder: &mut wgpu::CommandEncoder,
        named: &[(TensorName, &wgpu::Buffer)],
    ) -> Result<(), Error> {
        if self.groups.is_empty() {
            return Ok(());
        }
        let shared = &*self.ctx.shared;
        // Metadata buffers of up to CHUNK_RECORDS records each; a dispatch never straddles two.
        let mut chunks: Vec<(usize, usize)> = Vec::new(); // (first record, records)
        let mut placed: Vec<(usize, usize)> = Vec::with_capacity(self.groups.len()); // (chunk, offset)
        for g in &self.groups {
            let last = chunks.len().wrapping_sub(1);
            match chunks.last_mut() {
                Some((_, n)) if *n + g.count <= CHUNK_RECORDS => {
                    placed.push((last, *n));
                    *n += g.count;
                }
                _ => {
                    chunks.push((g.first, g.count));
                    placed.push((chunks.len() - 1, 0));
                }
            }
        }
        let buffers: Vec<wgpu::Buffer> = chunks
            .iter()
            .map(|&(first, n)| records_buffer(shared, &self.records[first..first + n]))
            .collect::<Result<_, _>>()?;
        // A destroyed buffer, or one of another device, is refused here (wgpu-core checks
        // bindings when the bind group is made); the scope keeps it from the device's
        // uncaptured-error handler, and nothing has been recorded yet.
        let bind_groups = capture(
            &shared.device,
            &shared.late,
            |e| Error::Wgpu {
                call: "Device::create_bind_group",
                message: message(e),
            },
            || {
                let mut bind_groups: HashMap<(usize, usize), wgpu::BindGroup> = HashMap::new();
                for (g, &(chunk, _)) in self.groups.iter().zip(&placed) {
                    bind_groups.entry((chunk, g.bind)).or_insert_with(|| {
                        bind_group(shared, &buffers[chunk], &self.bind_sets[g.bind])
                    });
                }
                bind_groups
            },
        )
        .map_err(|e| shared.fault("Device::create_bind_group", &e, &self.bound(named)))?;
        // Pass commands are checked when the caller's encoder is finished; the scope catches
        // whatever wgpu reports while they are recorded.
        capture(
            &shared.device,
            &shared.late,
            |e| Error::Wgpu {
                call: "ComputePass",
                message: message(e),
            },
            || {
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("gpu-xor"),
                    timestamp_writes: None,
                });
                let mut current: Option<&wgpu::ComputePipeline> = None;
                for (g, &(chunk, at)) in self.groups.iter().zip(&placed) {
                    if current != Some(&g.pipeline) {
                        pass.set_pipeline(&g.pipeline);
                        current = Some(&g.pipeline);
                    }
                    let offset = at as u64 * RECORD_BYTES;
                    pass.set_bind_group(0, &bind_groups[&(chunk, g.bind)], &[offset as u32]);
                    pass.dispatch_workgroups(g.grid[0], g.grid[1], g.count as u32);
                }
            },
        )
        .map_err(|e| shared.fault("ComputePass", &e, &self.bound(named)))?;
        Ok(())
    }

    /// Every distinct buffer the batch binds, with the tensor `named` gives it.
    fn bound<'a>(
        &'a self,
        named: &[(TensorName, &'a wgpu::Buffer)],
    ) -> Vec<(Option<TensorName>, &'a wgpu::Buffer)> {
        let mut bound: Vec<(Option<TensorName>, &wgpu::Buffer)> = Vec::new();
        for buffer in self
            .bind_sets
            .iter()
            .flat_map(|s| &s.slots)
            .filter_map(|s| s.buffer.as_ref())
        {
            if bound.iter().all(|(_, b)| *b != buffer) {
                let tensor = named.iter().find(|(_, b)| *b == buffer).map(|(t, _)| *t);
                bound.push((tensor, buffer));
            }
        }
        bound
    }
}

/// What one piece reads and writes: each operand's elements from its first to its last,
/// widened to 16-byte blocks (kernels read whole blocks and write whole words).
fn accesses(
    piece: &Piece,
    start: [u64; 3],
    width: u64,
    bound: &[&TensorBinding<'_>; 3],
) -> Vec<Access> {
    (0..3)
        .map(|o| {
            let reach: u64 = piece
                .sizes
                .iter()
                .zip(&piece.strides[o])
                .map(|(&n, &s)| (n - 1) * s)
                .sum();
            let first = start[o] + piece.origin[o] * width;
            let end = first + (reach + 1) * width;
            Access {
                buffer: bound[o].buffer.clone(),
                start: first - first % 16,
                end: end.div_ceil(16) * 16,
                write: o == OUT,
            }
        })
        .collect()
}

/// How many smaller windows [`choose_slots`] tries for one grouping of the operands.
const SHRINK_STEPS: usize = 8;

/// How the operands are bound: the slot of each operand, whether the input bindings are
/// `read_write`, the pieces, and the window they were cut to.
type Slots = ([usize; 3], bool, Vec<Piece>, u64);

/// Chooses the binding slots and cuts the call into pieces.
///
/// Operands in one buffer share its binding when one window holds them all. Otherwise they
/// need bindings of their own, and WebGPU then asks that no writable binding overlap another
/// binding of the same buffer in one dispatch (inputs in the output's buffer are bound
/// `read_write`, since a buffer may not be both read-only and writable storage in one
/// dispatch): each way of grouping the operands of a buffer into bindings is tried, fewest
/// bindings first, each with windows of the device's size and then smaller ones (smaller
/// pieces bring the windows of operands that sit close together apart), and the first whose
/// bindings never overlap is taken.
///
/// Where no grouping keeps the bindings apart (an operand's bytes share an aligned block with
/// another operand's), native backends take one binding per operand, whose ranges then
/// overlap only in bytes that neither operand's elements occupy: wgpu's native backends and
/// the APIs beneath them allow it. A browser's WebGPU refuses it: there the call is
/// [`Error::SharedBufferSpanTooLarge`].
fn choose_slots(
    plan: &Plan,
    start: [u64; 3],
    sharing: &Sharing,
    keys: [usize; 3],
    bound: &[&TensorBinding<'_>; 3],
    width: u64,
    shared: &Shared,
) -> Result<Slots, Error> {
    let (limits, strict) = (shared.windows, shared.strict_aliasing);
    let first = match split(&plan.layout, start, sharing.slot, width, limits) {
        Ok(pieces) => return Ok((sharing.slot, false, pieces, limits.max_window)),
        Err(e @ Error::SharedBufferSpanTooLarge { .. }) => e,
        Err(e) => return Err(e),
    };
    // Groupings of A and B with the output (slot 0) or in slots of their own, fewest slots
    // first; operands share a slot only when they share a buffer, and an in-place input
    // always reads through the output's slot.
    let candidates = [[0, 0, 1], [0, 1, 0], [0, 1, 1], [0, 1, 2]]
        .into_iter()
        .filter(|slot| {
            *slot != sharing.slot
                && (0..3).all(|o| (0..3).all(|p| slot[o] != slot[p] || keys[o] == keys[p]))
                && (0..2).all(|i| !sharing.in_place[i] || slot[i + 1] == 0)
        });
    // A window must hold a whole aligned block's slack and some elements past it; shrinking
    // by a quarter at a time, a few steps reach the pieces that keep neighbours apart (those
    // that sit closer share a slot instead) without cutting a large call into a great many.
    let least = limits.offset_alignment + 64;
    // Inputs in the output's buffer but not in its slot are bound `read_write`.
    let rw = |slot: [usize; 3]| (1..3).any(|o| slot[o] != 0 && keys[o] == 0);
    for slot in candidates {
        let buffers = slot_buffers(slot, bound);
        let mut window = limits.max_window;
        for _ in 0..SHRINK_STEPS {
            if window < least {
                break;
            }
            let cut = Limits {
                max_window: window,
                ..limits
            };
            if let Ok(pieces) = split(&plan.layout, start, slot, width, cut) {
                let clash =
                    |p: &Piece| overlapping(&buffers, &bound_ranges(p, &buffers, window), rw(slot));
                if !pieces.iter().any(clash) {
                    return Ok((slot, rw(slot), pieces, window));
                }
            }
            window = window / 4 * 3 / 16 * 16;
        }
    }
    if strict {
        return Err(first);
    }
    // One slot per operand, but an in-place input reads through the output's.
    let a = if sharing.in_place[0] { 0 } else { 1 };
    let b = if sharing.in_place[1] { 0 } else { a + 1 };
    let slot = [0, a, b];
    let pieces = split(&plan.layout, start, slot, width, limits)?;
    Ok((slot, rw(slot), pieces, limits.max_window))
}

/// The buffer bound in each slot, when operands sit in `slot`.
fn slot_buffers<'a>(
    slot: [usize; 3],
    bound: &[&TensorBinding<'a>; 3],
) -> [Option<&'a wgpu::Buffer>; 3] {
    let mut buffer = [None; 3];
    for o in 0..3 {
        buffer[slot[o]] = Some(bound[o].buffer);
    }
    buffer
}

/// The range each slot of `piece` binds.
fn bound_ranges(
    piece: &Piece,
    buffers: &[Option<&wgpu::Buffer>; 3],
    window: u64,
) -> [Option<(u64, u64)>; 3] {
    std::array::from_fn(|s| {
        let (used_start, used_end) = piece.windows[s]?;
        Some(bind_range(buffers[s]?, used_start, used_end, window))
    })
}

/// Whether a writable binding (the output's slot 0, or the input slots when `inputs_rw`)
/// overlaps another binding of the same buffer: what WebGPU forbids in one dispatch.
fn overlapping(
    buffers: &[Option<&wgpu::Buffer>; 3],
    ranges: &[Option<(u64, u64)>; 3],
    inputs_rw: bool,
) -> bool {
    (0..3).any(|i| {
        (i + 1..3).any(|j| match (buffers[i], buffers[j], ranges[i], ranges[j]) {
            (Some(x), Some(y), Some((i0, i1)), Some((j0, j1))) => {
                (i == 0 || inputs_rw) && x == y && i0 < j1 && j0 < i1
            }
            _ => false,
        })
    })
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

/// A uniform buffer holding `records`, with `MERGE_MAX` records of zeros after them, so
/// that a binding of `MERGE_MAX` records fits at any record.
fn records_buffer(shared: &Shared, records: &[Params]) -> Result<wgpu::Buffer, Error> {
    let size = (records.len() + MERGE_MAX) as u64 * RECORD_BYTES;
    let buffer = capture(
        &shared.device,
        &shared.late,
        |e| Error::Allocation(e.to_string()),
        || {
            shared.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("gpu-xor records"),
                size,
                usage: wgpu::BufferUsages::UNIFORM,
                mapped_at_creation: true,
            })
        },
    )
    .map_err(|e| shared.lost_or(Error::Allocation(e.to_string())))?;
    {
        // On a lost device the buffer is invalid and its mapping fails: the first sign of the
        // loss that every recording meets.
        let mut view = buffer
            .get_mapped_range_mut(..)
            .map_err(|e| shared.lost_or(Error::Map(e.to_string())))?;
        let used = std::mem::size_of_val(records);
        view.slice(..used)
            .copy_from_slice(bytemuck::cast_slice(records));
        view.slice(used..).fill(0);
    }
    buffer.unmap();
    Ok(buffer)
}

fn bind_group(shared: &Shared, records: &wgpu::Buffer, set: &BindSet) -> wgpu::BindGroup {
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
                    buffer: records,
                    offset: 0,
                    size: NonZeroU64::new(MERGE_MAX as u64 * RECORD_BYTES),
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
