//! Lowering one call to pieces: the binding rules, the binding pattern, the binding slots,
//! windows, kernel choice and metadata records. Pure CPU: buffers are known by a key and a
//! size, so every rule here is tested without a device.

use crate::desc::TensorName;
use crate::error::Error;
use crate::layout::{
    A, B, BindingPattern, BoundOperand, KernelKind, Limits, OUT, OperandSpec, Piece, Plan, Sharing,
    Widths, analyze_bindings, split,
};
use crate::schedule::Target;
use crate::schedule::dispatch::{self, Dispatch};
use crate::schedule::key::Overrides;
use crate::schedule::key::PipelineKey;
use crate::schedule::select::{self, Bound};

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
    /// call larger than one binding, or one per nested part of an 8- or 16-bit output whose
    /// rows interleave (the scatter kernel's rule, [`KernelKind::Scatter`]); none for an
    /// empty output. (In a `Batch`, pieces
    /// of independent calls may then share a dispatch.)
    pub dispatches: Vec<KernelKind>,
    /// How many of those pieces bind a writable range that overlaps another binding of the
    /// same buffer. WebGPU forbids that, and a browser's WebGPU refuses it; the library binds
    /// apart wherever it can, and takes such bindings only on native backends (which allow
    /// them) when operands of one buffer lie too close together to be bound apart and too far
    /// apart to share a binding. Always 0 under `ContextOptions::webgpu_binding_rules`
    /// and in a browser.
    pub overlapping_bindings: usize,
}

impl RecordSummary {
    /// Whether the output aliased an input exactly.
    pub fn in_place(&self) -> bool {
        self.a_in_place || self.b_in_place
    }
}

/// One operand's binding as lowering sees it: its buffer by key (equal keys, same buffer;
/// the output's is 0), the buffer's size, and the bound range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operand {
    /// The buffer's key: operands with equal keys share a buffer.
    pub buffer: usize,
    /// The buffer's size in bytes.
    pub buffer_size: u64,
    /// The binding's byte offset in the buffer.
    pub offset: u64,
    /// Bytes bound from `offset`; `None` for the rest of the buffer.
    pub size: Option<u64>,
}

/// A bound byte range of one of the call's buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Range {
    /// The buffer's key.
    pub buffer: usize,
    /// The first byte.
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
}

/// Bytes a piece reads or writes in one buffer, widened to 16-byte blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// The buffer's key.
    pub buffer: usize,
    /// The first byte.
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
    /// Whether the piece writes these bytes.
    pub write: bool,
}

impl Access {
    /// Whether two accesses must not run in one dispatch: one writes bytes the other touches.
    pub fn conflicts(&self, other: &Access) -> bool {
        (self.write || other.write)
            && self.buffer == other.buffer
            && self.start < other.end
            && other.start < self.end
    }
}

/// Binding slots a piece may use: the output's and one per input of a fused expression
/// (an operator uses the first three).
pub const MAX_SLOTS: usize = 5;

/// One piece of a call, ready to merge and encode.
#[derive(Clone, Debug, PartialEq)]
pub struct LoweredPiece {
    /// The pipeline that runs it.
    pub key: PipelineKey,
    /// One record, or several for a tile piece of more than `max_groups` tile rows.
    pub records: Vec<Dispatch>,
    /// The range bound in each slot (`None` for an unused slot).
    pub slots: [Option<Range>; MAX_SLOTS],
    /// Whether the input slots are bound `read_write`.
    pub inputs_rw: bool,
    /// What the piece reads and writes (output first).
    pub accesses: Vec<Access>,
}

/// A call lowered to pieces.
#[derive(Clone, Debug, PartialEq)]
pub struct Lowered {
    /// What the call records, for callers and tests.
    pub summary: RecordSummary,
    /// The pieces, in the order they run.
    pub pieces: Vec<LoweredPiece>,
}

/// Lowers one call of `plan` on `bound` (indexed by `OUT`, `A`, `B`), each buffer bound whole
/// where it fits one binding, so that calls on the same buffers share bind groups.
pub fn lower(plan: &Plan, bound: [Operand; 3], target: &Target) -> Result<Lowered, Error> {
    lower_with(plan, bound, target, true)
}

/// [`lower`], binding each operand's own range instead of its whole buffer where `share` is
/// false: for a call that has bind groups of its own (a call prepared or recorded alone), so
/// that operands at aligned offsets start their bindings and the contiguous kernel runs in
/// its direct form.
pub fn lower_with(
    plan: &Plan,
    bound: [Operand; 3],
    target: &Target,
    share: bool,
) -> Result<Lowered, Error> {
    let names = [TensorName::Output, TensorName::A, TensorName::B];
    for o in 0..3 {
        check_binding(names[o], &bound[o], &plan.operands[o])?;
    }
    let keys = bound.map(|b| b.buffer);
    // An operator that does not run in place refuses its output on an input's offset before
    // anything else of the binding is judged (the ranges of different types differ in size).
    if !plan.operator.spec().types.in_place() {
        for (o, tensor) in [(A, TensorName::A), (B, TensorName::B)] {
            if keys[o] == keys[OUT] && bound[o].offset == bound[OUT].offset {
                return Err(Error::InPlaceNotSupported {
                    operator: plan.operator,
                    tensor,
                });
            }
        }
    }
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
        return Ok(Lowered {
            summary,
            pieces: Vec::new(),
        });
    }
    let widths = plan.widths();
    let start = bound.map(|b| b.offset);
    let (slot, inputs_rw, pieces, window) = choose_slots(plan, start, &sharing, &bound, target)?;
    let slot_buffer = slot_buffers(slot, &bound);
    let chosen = select::kernels(plan.kernel, pieces, widths, |piece| {
        let range = bound_ranges(piece, &slot_buffer, window, share);
        let bound = Bound {
            start,
            range: range.map(|r| r.map(|r| (r.start, r.end))),
            target: target.clone(),
        };
        (range, bound)
    });
    let mut lowered = Vec::with_capacity(chosen.len());
    for (piece, range, kernel) in chosen {
        let piece = &piece;
        // An input read in place is read through the output's own binding (its slot is 0):
        // WebGPU forbids a writable binding that overlaps another binding of the same buffer
        // in one dispatch, so it cannot have a binding of its own.
        let window_start = std::array::from_fn(|o| range[slot[o]].map_or(0, |r| r.start));
        let modes = select::modes(kernel, piece, widths.out(), target.cpu);
        let records = dispatch::build(
            kernel,
            piece,
            start,
            window_start,
            widths,
            target.max_groups,
            dispatch::TileForm {
                staged: modes != (0, 0),
                per_matrix: select::tile_per_matrix(piece, target.cpu),
            },
        );
        // The direct form is the schedule's to give, once it knows which dispatches run one
        // record (`Schedule::dispatch_key`).
        let form = kernel_form(kernel, piece, widths.out(), false, target.cpu);
        let key = pipeline_key(plan, kernel, slot, inputs_rw, form, modes);
        if overlapping(&range, inputs_rw) {
            summary.overlapping_bindings += 1;
        }
        summary.dispatches.push(kernel);
        lowered.push(LoweredPiece {
            key,
            records,
            slots: [range[0], range[1], range[2], None, None],
            inputs_rw,
            accesses: accesses(piece, start, widths, keys).to_vec(),
        });
    }
    Ok(Lowered {
        summary,
        pieces: lowered,
    })
}

/// A kernel's form: the override constants `DIRECT`, `TAIL` and `SPREAD` (common.wgsl).
#[derive(Clone, Copy, Debug)]
struct Form {
    direct: bool,
    tail: bool,
    spread: bool,
    rank: u32,
}

/// The form of `kernel` for `piece`: `direct` as given for the contiguous and rows kernels,
/// with a tail where the contiguous kernel's last block is partial or the rows kernel's rows
/// end in a partial block; the shifted-rows kernel's rows spread over their invocations
/// unless the fixed rule for CPU adapters applies (`cpu`), which run them faster as runs of
/// consecutive blocks (ARCHITECTURE.md, measured choices). All false for the other kernels.
/// The rank compiled in (`select::rank_constant`), 2 for a tile piece of one record per
/// matrix (`select::tile_per_matrix`).
fn kernel_form(kernel: KernelKind, piece: &Piece, width: u64, direct: bool, cpu: bool) -> Form {
    let partial = |bytes: u64| !bytes.is_multiple_of(16);
    let (direct, tail) = match kernel {
        KernelKind::Contiguous => (direct, partial(piece.sizes.iter().product::<u64>() * width)),
        KernelKind::Rows => (
            direct,
            partial(piece.sizes.last().map_or(0, |&n| n * width)),
        ),
        _ => (false, false),
    };
    let tiles = matches!(kernel, KernelKind::Tile | KernelKind::BlockTile);
    Form {
        direct,
        tail,
        spread: kernel == KernelKind::ShiftedRows && !cpu,
        // A tile piece of one record per matrix runs each as a matrix alone.
        rank: if tiles && select::tile_per_matrix(piece, cpu) {
            2
        } else {
            select::rank_constant(kernel, piece.sizes.len())
        },
    }
}

/// The pipeline that runs `kernel` with operands in `slot`, in `form` (of the piece it runs),
/// reading A and B in `modes` ([`select::modes`]).
fn pipeline_key(
    plan: &Plan,
    kernel: KernelKind,
    slot: [usize; 3],
    inputs_rw: bool,
    Form {
        direct,
        tail,
        spread,
        rank,
    }: Form,
    (a_mode, b_mode): (u32, u32),
) -> PipelineKey {
    let logical = plan.function.logical;
    // An output of another width than the input's (`BIT_COUNT`): WIDTH is the output's, the
    // input's is IN_WIDTH (0 where they agree).
    let widths = plan.widths();
    let in_width = if widths.uniform() {
        0
    } else {
        widths.of(A) as u32
    };
    // The contiguous kernel counts bytes and blocks: a word-wide bitwise function on dense
    // runs needs no element width, so every type shares its pipelines (fewer to compile, and
    // no pipeline switch between calls of different types). A shift needs the width.
    let word_wide = !logical && plan.function.function.is_word_wide();
    let width = match kernel {
        // A repeated input is splat element by element: it needs the width.
        KernelKind::Contiguous if word_wide && (a_mode, b_mode) == (0, 0) => 4,
        _ => plan.out_type.size_in_bytes(),
    };
    PipelineKey {
        kernel,
        inputs_rw,
        fused: None,
        overrides: Overrides {
            width,
            function: plan.function.function.code(),
            logical,
            a_src: slot[A] as u32,
            b_src: slot[B] as u32,
            a_mode,
            b_mode,
            rank,
            direct,
            tail,
            spread,
            in_width,
        },
    }
}

/// Every pipeline a call of `plan` can need when it fits one window, whatever its bindings:
/// each way of binding the operands (distinct buffers, in place, one input in the output's
/// buffer, both inputs in one buffer, all in one), with read-only or read-write inputs, and
/// each kernel the bindings' alignment can select. A call cut into windows may need more.
pub fn pipeline_keys(plan: &Plan, max_groups: u32) -> Vec<PipelineKey> {
    let mut keys: Vec<PipelineKey> = Vec::new();
    if plan.elements == 0 {
        return keys;
    }
    let layout = &plan.layout;
    let piece = Piece::whole(layout);
    let widths = plan.widths();
    let width = widths.out();
    for kernel in select::candidates(plan.kernel, &piece, widths, max_groups) {
        // In the order the kernel runs it, as lowering gives it (a tile's matrix order).
        let mut piece = piece.clone();
        select::order_for(plan.kernel, kernel, &mut piece);
        for slot in BindingPattern::ALL.map(BindingPattern::slots) {
            // A one-input operator reads its input in B's place: B is bound where A is.
            if plan.operator.inputs() == 1 && slot[A] != slot[B] {
                continue;
            }
            for inputs_rw in [false, true] {
                // Inputs are read-write only where one sits in the output's buffer in a slot
                // of its own; with every slot shared there is no input binding.
                if inputs_rw && slot == [0, 0, 0] {
                    continue;
                }
                for direct in [false, true] {
                    let tail = kernel_form(kernel, &piece, width, direct, false).tail;
                    // A long run with a partial last block may have that block cut off
                    // (on a CPU adapter), leaving the contiguous kernel without a tail.
                    let cut = tail
                        && kernel == KernelKind::Contiguous
                        && piece.sizes.len() == 1
                        && plan.elements * width >= select::TAIL_CUT_BYTES;
                    for tail in [tail, tail && !cut] {
                        // The modes and forms of both adapter classes: a narrow tile stages
                        // its transposed inputs on GPUs only, the shifted-rows kernel
                        // spreads its rows there.
                        for cpu in [false, true] {
                            let modes = select::modes(kernel, &piece, width, cpu);
                            let form = Form {
                                tail,
                                ..kernel_form(kernel, &piece, width, direct, cpu)
                            };
                            let key = pipeline_key(plan, kernel, slot, inputs_rw, form, modes);
                            if !keys.contains(&key) {
                                keys.push(key);
                            }
                        }
                    }
                }
            }
        }
    }
    keys
}

/// What one piece reads and writes: each operand's elements from its first to its last,
/// widened to 16-byte blocks (kernels read whole blocks and write whole words).
fn accesses(piece: &Piece, start: [u64; 3], widths: Widths, keys: [usize; 3]) -> [Access; 3] {
    std::array::from_fn(|o| {
        let width = widths.of(o);
        let reach = piece.reach(o);
        let first = start[o] + piece.origin[o] * width;
        let end = first + (reach + 1) * width;
        Access {
            buffer: keys[o],
            start: first - first % 16,
            end: end.div_ceil(16) * 16,
            write: o == OUT,
        }
    })
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
    bound: &[Operand; 3],
    target: &Target,
) -> Result<Slots, Error> {
    let limits = target.windows;
    let widths = plan.widths();
    let keys = bound.map(|b| b.buffer);
    let first = match split(&plan.layout, start, sharing.slot, widths, limits) {
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
    let rw = |slot: [usize; 3]| (1..3).any(|o| slot[o] != 0 && keys[o] == keys[OUT]);
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
            if let Ok(pieces) = split(&plan.layout, start, slot, widths, cut) {
                // Shared ranges hold the tight ones: where they keep apart, so do those.
                let clash =
                    |p: &Piece| overlapping(&bound_ranges(p, &buffers, window, true), rw(slot));
                if !pieces.iter().any(clash) {
                    return Ok((slot, rw(slot), pieces, window));
                }
            }
            window = window / 4 * 3 / 16 * 16;
        }
    }
    if target.strict_aliasing {
        return Err(first);
    }
    // One slot per operand, but an in-place input reads through the output's.
    let a = if sharing.in_place[0] { 0 } else { 1 };
    let b = if sharing.in_place[1] { 0 } else { a + 1 };
    let slot = [0, a, b];
    let pieces = split(&plan.layout, start, slot, widths, limits)?;
    Ok((slot, rw(slot), pieces, limits.max_window))
}

/// The buffer (key and size) bound in each slot, when operands sit in `slot`.
fn slot_buffers(slot: [usize; 3], bound: &[Operand; 3]) -> [Option<(usize, u64)>; 3] {
    let mut buffer = [None; 3];
    for o in 0..3 {
        buffer[slot[o]] = Some((bound[o].buffer, bound[o].buffer_size));
    }
    buffer
}

/// The range each slot of `piece` binds.
fn bound_ranges(
    piece: &Piece,
    buffers: &[Option<(usize, u64)>; 3],
    window: u64,
    share: bool,
) -> [Option<Range>; 3] {
    std::array::from_fn(|s| {
        let (used_start, used_end) = piece.windows[s]?;
        let (buffer, size) = buffers[s]?;
        let (start, end) = bind_range(size, used_start, used_end, window, share);
        Some(Range { buffer, start, end })
    })
}

/// Whether a writable binding (the output's slot 0, or the input slots when `inputs_rw`)
/// overlaps another binding of the same buffer: what WebGPU forbids in one dispatch.
pub(crate) fn overlapping(ranges: &[Option<Range>], inputs_rw: bool) -> bool {
    (0..ranges.len()).any(|i| {
        (i + 1..ranges.len()).any(|j| match (ranges[i], ranges[j]) {
            (Some(x), Some(y)) => {
                (i == 0 || inputs_rw) && x.buffer == y.buffer && x.start < y.end && y.start < x.end
            }
            _ => false,
        })
    })
}

/// The range of a buffer of `buffer_size` bytes to bind for a piece that uses
/// `[used_start, used_end)`: with `share`, the whole buffer when it fits one binding (so that
/// calls on the same buffers share a bind group); else the piece's window with its end
/// rounded up to 16 where the buffer allows, so that an operand at an aligned offset starts
/// its binding (the contiguous kernel's direct form). `used_start` is already aligned for a
/// binding offset.
pub(crate) fn bind_range(
    buffer_size: u64,
    used_start: u64,
    used_end: u64,
    max_window: u64,
    share: bool,
) -> (u64, u64) {
    let whole = buffer_size - buffer_size % 4;
    if share && whole <= max_window {
        (0, whole)
    } else {
        (used_start, (used_end.div_ceil(16) * 16).min(whole))
    }
}

/// The binding rules that need no other operand: offset alignment, bounds, size.
pub fn check_binding(
    tensor: TensorName,
    binding: &Operand,
    spec: &OperandSpec,
) -> Result<(), Error> {
    if !binding.offset.is_multiple_of(spec.offset_alignment) {
        return Err(Error::BindingOffsetMisaligned {
            tensor,
            offset: binding.offset,
            required: spec.offset_alignment,
        });
    }
    let buffer_size = binding.buffer_size;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::desc::{BitXorDesc, DataType, FeatureLevel, TensorDesc};

    fn plan(desc: &BitXorDesc) -> Plan {
        Plan::new(
            &desc
                .operands(FeatureLevel::Fl4_1)
                .expect("a valid description"),
        )
    }

    fn target(max_window: u64, strict_aliasing: bool) -> Target {
        Target {
            windows: Limits {
                max_window,
                offset_alignment: 256,
                max_rank: 8,
            },
            max_groups: 65535,
            strict_aliasing,
            cpu: false,
            choices: None,
            tiled: true,
        }
    }

    /// Operands at `offsets` of buffers `keys`, each buffer `size` bytes, bound to its end.
    fn bound(keys: [usize; 3], offsets: [u64; 3], size: u64) -> [Operand; 3] {
        std::array::from_fn(|o| Operand {
            buffer: keys[o],
            buffer_size: size,
            offset: offsets[o],
            size: None,
        })
    }

    #[test]
    fn binding_rules_are_checked_without_a_device() {
        let p = plan(&BitXorDesc::packed(DataType::U32, &[64]));
        let t = target(1 << 20, false);
        let rule = |b: [Operand; 3]| lower(&p, b, &t).unwrap_err().rule();
        assert_eq!(
            rule(bound([0, 1, 2], [8, 0, 0], 4096)),
            "binding_offset_misaligned"
        );
        assert_eq!(
            rule(bound([0, 1, 2], [0, 4096 - 128, 0], 4096)),
            "binding_too_small"
        );
        let mut b = bound([0, 1, 2], [0; 3], 4096);
        b[2].size = Some(4096);
        b[2].offset = 16;
        assert_eq!(rule(b), "binding_out_of_bounds");
        // A partial overlap of an input with the output.
        assert_eq!(rule(bound([0, 0, 2], [0, 16, 0], 4096)), "partial_overlap");
    }

    #[test]
    fn patterns_slots_and_kernels() {
        let p = plan(&BitXorDesc::packed(DataType::U8, &[256]));
        let t = target(1 << 20, false);
        let cases = [
            // keys, offsets, pattern, A in place
            ([0, 1, 2], [0, 0, 0], BindingPattern::Distinct, false),
            ([0, 0, 1], [0, 0, 0], BindingPattern::OutputSharesA, true),
            (
                [0, 1, 1],
                [0, 0, 0],
                BindingPattern::InputsShareBuffer,
                false,
            ),
            (
                [0, 0, 0],
                [0, 512, 1024],
                BindingPattern::AllShareBuffer,
                false,
            ),
        ];
        for (keys, offsets, pattern, in_place) in cases {
            let l = lower(&p, bound(keys, offsets, 4096), &t).unwrap();
            assert_eq!(l.summary.binding_pattern, pattern, "{keys:?}");
            assert_eq!(l.summary.a_in_place, in_place);
            assert_eq!(l.pieces.len(), 1);
            assert_eq!(l.summary.dispatches, [KernelKind::Contiguous]);
            assert_eq!(l.summary.overlapping_bindings, 0);
            // Every pipeline a call can need is among the warm-up's.
            assert!(pipeline_keys(&p, 65535).contains(&l.pieces[0].key));
        }
        // A transposed output of 64-bit elements (both inputs read across their rows; 23
        // columns, so no 16-byte block tile): the tile kernel tuned for GPUs, the scatter
        // kernel in the inputs' order tuned for CPU adapters, over the same elements; both
        // among the warm-up's pipelines.
        let mut desc = BitXorDesc::packed(DataType::U64, &[40, 23]);
        desc.output = desc.output.clone().with_strides(&[1, 40]);
        let p = plan(&desc);
        for (cpu, kernel) in [(false, KernelKind::Tile), (true, KernelKind::Spaced)] {
            let tuned = Target {
                cpu,
                ..target(1 << 20, false)
            };
            let l = lower(&p, bound([0, 1, 2], [0, 0, 0], 8192), &tuned).unwrap();
            assert_eq!(l.summary.dispatches, [kernel], "cpu {cpu}");
            assert!(pipeline_keys(&p, 65535).contains(&l.pieces[0].key));
        }
        // Off a 16-byte boundary, the contiguous plan runs the shifted-rows kernel, or the
        // gather kernel where the run is too short for it.
        for (n, kernel) in [(256, KernelKind::ShiftedRows), (48, KernelKind::Gather)] {
            let p = Plan::new(
                &crate::desc::BitwiseXorDesc::new(DataType::U8, &[n], &[n])
                    .operands()
                    .unwrap(),
            );
            let l = lower(&p, bound([0, 1, 2], [4, 0, 0], 4096), &t).unwrap();
            assert_eq!(l.summary.dispatches, [kernel]);
            assert!(pipeline_keys(&p, 65535).contains(&l.pieces[0].key));
        }
    }

    #[test]
    fn bitwise_contiguous_calls_of_every_type_share_one_pipeline_and_logical_ones_do_not() {
        let t = target(1 << 20, false);
        let key = |data_type: DataType, logical: bool| {
            let p = if logical {
                Plan::new(
                    &crate::desc::LogicalXorDesc::packed(data_type, &[64])
                        .operands(FeatureLevel::Fl4_1)
                        .unwrap(),
                )
            } else {
                plan(&BitXorDesc::packed(data_type, &[64]))
            };
            let l = lower(&p, bound([0, 1, 2], [0; 3], 4096), &t).unwrap();
            assert_eq!(l.summary.dispatches, [KernelKind::Contiguous]);
            l.pieces[0].key.clone()
        };
        let u8_key = key(DataType::U8, false);
        for data_type in DataType::DIRECTML {
            assert_eq!(key(data_type, false), u8_key, "{data_type:?}");
        }
        assert_ne!(key(DataType::U8, true), key(DataType::U32, true));
    }

    #[test]
    fn a_not_warms_up_only_pipelines_that_read_its_input_in_both_places() {
        let not = Plan::new(
            &crate::desc::DmlUnaryDesc::packed(
                crate::desc::DmlUnaryOp::BitNot,
                DataType::U16,
                &[8, 40],
            )
            .operands(FeatureLevel::Fl4_1)
            .unwrap(),
        );
        let keys = pipeline_keys(&not, 65535);
        assert!(!keys.is_empty());
        for key in &keys {
            assert_eq!(key.overrides.a_src, key.overrides.b_src, "{key:?}");
            assert_eq!(key.overrides.function, 3);
        }
        // The function is part of every key: AND's differ from XOR's, one for one.
        let and = Plan::new(
            &crate::desc::DmlBinaryDesc::packed(
                crate::desc::DmlBinaryOp::BitAnd,
                DataType::U16,
                &[8, 40],
            )
            .operands(FeatureLevel::Fl4_1)
            .unwrap(),
        );
        let xor = plan(&BitXorDesc::packed(DataType::U16, &[8, 40]));
        let (and_keys, xor_keys) = (pipeline_keys(&and, 65535), pipeline_keys(&xor, 65535));
        assert_eq!(and_keys.len(), xor_keys.len());
        assert!(and_keys.len() > keys.len());
        assert!(and_keys.iter().all(|k| !xor_keys.contains(k)));
    }

    #[test]
    fn large_calls_are_cut_into_windows_with_disjoint_accesses() {
        let p = plan(&BitXorDesc::packed(DataType::U32, &[4096]));
        let l = lower(&p, bound([0, 1, 2], [0; 3], 1 << 16), &target(4096, false)).unwrap();
        assert_eq!(l.pieces.len(), 4);
        for w in l.pieces.windows(2) {
            assert!(!w[0].accesses[0].conflicts(&w[1].accesses[0]));
            assert!(w[0].accesses[0].end <= w[1].accesses[0].start);
        }
        for piece in &l.pieces {
            for r in piece.slots.iter().flatten() {
                assert!(r.end - r.start <= 4096 && r.start % 256 == 0);
            }
        }
    }

    #[test]
    fn operands_too_close_to_bind_apart_overlap_natively_and_are_refused_under_webgpu_rules() {
        // The output and A in one buffer, 240 bytes apart (inside one 256-byte aligned block)
        // and too far apart for one small window to hold both: no grouping keeps the
        // bindings apart.
        let p = plan(&BitXorDesc::packed(DataType::U32, &[60]));
        let b = bound([0, 0, 1], [0, 240 + 4096, 0], 1 << 16);
        let native = lower(&p, b, &target(512, false));
        let strict = lower(&p, b, &target(512, true));
        match (native, strict) {
            (Ok(n), Ok(s)) => {
                assert_eq!(s.summary.overlapping_bindings, 0);
                assert!(n.summary.overlapping_bindings <= n.pieces.len());
            }
            (Ok(n), Err(e)) => {
                assert!(n.summary.overlapping_bindings > 0);
                assert_eq!(e.rule(), "shared_buffer_span_too_large");
            }
            (n, s) => panic!("{n:?} / {s:?}"),
        }
    }

    #[test]
    fn the_rows_kernel_compiles_its_partial_block_store_in_only_where_rows_end_in_one() {
        // [rows, cols] ^ [cols], A and the output in rows padded to a pitch of 16 bytes:
        // rows of 400 bytes (whole blocks) and of 260 or 300 (a partial last block), each
        // key among the warm-up's.
        for (data_type, cols, pitch, tail) in [
            (DataType::U32, 100u32, 100u32, false),
            (DataType::U16, 200, 208, false),
            (DataType::U16, 130, 136, true),
            (DataType::U8, 300, 304, true),
        ] {
            let t = TensorDesc::new(data_type, &[9, cols]);
            let padded = t.clone().with_strides(&[pitch, 1]);
            let b = t.with_strides(&[0, 1]);
            let p = plan(&BitXorDesc::new(padded.clone(), b, padded));
            let l = lower(
                &p,
                bound([0, 1, 2], [0; 3], 1 << 16),
                &target(1 << 20, false),
            )
            .unwrap();
            assert_eq!(
                l.summary.dispatches,
                [KernelKind::Rows],
                "{data_type:?} {cols}"
            );
            assert_eq!(l.pieces[0].key.overrides.tail, tail, "{data_type:?} {cols}");
            assert!(!l.pieces[0].key.overrides.direct);
            assert!(pipeline_keys(&p, 65535).contains(&l.pieces[0].key));
        }
    }

    #[test]
    fn the_shifted_rows_kernel_spreads_its_rows_on_gpus_only_and_warms_up_both_forms() {
        // A packed [9, 67] u8 call written into rows padded to a pitch of 68 bytes.
        let t = TensorDesc::new(DataType::U8, &[9, 67]);
        let p = plan(&BitXorDesc::new(
            t.clone(),
            t.clone(),
            t.with_strides(&[68, 1]),
        ));
        let keys = pipeline_keys(&p, 65535);
        for cpu in [false, true] {
            let l = lower(
                &p,
                bound([0, 1, 2], [0; 3], 1 << 16),
                &Target {
                    cpu,
                    ..target(1 << 20, false)
                },
            )
            .unwrap();
            assert_eq!(l.summary.dispatches, [KernelKind::ShiftedRows]);
            let o = l.pieces[0].key.overrides;
            assert_eq!(o.spread, !cpu);
            assert!(!o.direct && !o.tail);
            assert!(keys.contains(&l.pieces[0].key), "cpu {cpu}");
        }
        // No other kernel has the form.
        let packed = plan(&BitXorDesc::packed(DataType::U8, &[9, 67]));
        let l = lower(
            &packed,
            bound([0, 1, 2], [0; 3], 1 << 16),
            &target(1 << 20, false),
        )
        .unwrap();
        assert_eq!(l.summary.dispatches, [KernelKind::Contiguous]);
        assert!(!l.pieces[0].key.overrides.spread);
    }

    #[test]
    fn warm_up_keys_cover_transposed_and_padded_layouts() {
        let t = TensorDesc::new(DataType::U32, &[64, 64]);
        let desc = BitXorDesc::new(t.clone().with_strides(&[1, 64]), t.clone(), t);
        let p = plan(&desc);
        let keys = pipeline_keys(&p, 65535);
        for kernel in [KernelKind::BlockTile, KernelKind::Tile, KernelKind::Gather] {
            assert!(keys.iter().any(|k| k.kernel == kernel), "{kernel:?}");
        }
        let l = lower(
            &p,
            bound([0, 1, 2], [0; 3], 1 << 16),
            &target(1 << 20, false),
        )
        .unwrap();
        assert_eq!(l.summary.dispatches, [KernelKind::BlockTile]);
        assert!(keys.contains(&l.pieces[0].key));
    }

    #[test]
    fn warm_up_keys_cover_batches_of_either_form_in_matrix_order() {
        // A (2, 1, 0) permutation of 256 matrices (one grid on GPUs, a record per matrix on
        // CPU adapters), one of 4 matrices whose rows outnumber a batch of records (taken
        // before its matrix order, its outer 2,048 would have counted as the batch), a
        // (0, 3, 2, 1) one, and 1,100 matrices (one grid on both), of 8- and 32-bit
        // elements, each filling enough of its tiles: each lowering's pipeline is among the
        // warm-up's keys.
        let layouts: [(&[u32], &[u32]); 4] = [
            (&[64, 256, 64], &[1, 64, 16384]),
            (&[2048, 4, 64], &[1, 2048, 8192]),
            (&[2, 32, 3, 64], &[6144, 1, 32, 96]),
            (&[1100, 16, 64], &[1024, 1, 16]),
        ];
        for (sizes, a) in layouts {
            for dt in [DataType::U8, DataType::U32] {
                let t = TensorDesc::new(dt, sizes);
                let p = plan(&BitXorDesc::new(t.clone().with_strides(a), t.clone(), t));
                let keys = pipeline_keys(&p, 65535);
                for cpu in [false, true] {
                    let l = lower(
                        &p,
                        bound([0, 1, 2], [0; 3], 1 << 23),
                        &Target {
                            cpu,
                            ..target(1 << 23, false)
                        },
                    )
                    .unwrap();
                    assert!(
                        matches!(
                            l.summary.dispatches[..],
                            [KernelKind::Tile | KernelKind::BlockTile]
                        ),
                        "{sizes:?} {dt} {cpu}: {:?}",
                        l.summary
                    );
                    assert!(keys.contains(&l.pieces[0].key), "{sizes:?} {dt} {cpu}");
                }
            }
        }
    }

    /// Window pieces: a call cut by windows is lowered piece by piece, each piece a layout of
    /// its own. A dense output in the reverse of its dimensions' order, with its inputs in
    /// one buffer that no window holds, is cut into blocks whose outputs are not dense: they
    /// run the scatter family (spaced for 32-bit elements, which share no word; scatter for
    /// 8-bit ones, whose words the block's elements share), where the whole call gathers.
    #[test]
    fn window_pieces_of_a_gather_past_a_window_run_the_scatter_family() {
        let cases = [
            // Sizes; A's, B's and the output's strides; the element type; whether the output
            // is A in place; the blocks' kernel. (Two draws of the suite's gather property.)
            (
                [11u32, 10, 4, 2],
                [[1u32, 11, 0, 0], [0, 11, 0, 0], [1, 11, 110, 440]],
                DataType::U32,
                false,
                KernelKind::Spaced,
            ),
            (
                [49, 10, 8, 1],
                [[1, 49, 490, 0], [0, 49, 0, 0], [1, 49, 490, 0]],
                DataType::U8,
                true,
                KernelKind::Scatter,
            ),
        ];
        for (sizes, [a, b, out], dt, in_place, blocks) in cases {
            let t = |s: &[u32]| TensorDesc::new(dt, &sizes).with_strides(s);
            let p = plan(&BitXorDesc::new(t(&a), t(&b), t(&out)));
            // A, the output (or the output on A), then B, in one buffer, 32 or 48 bytes
            // apart (the draws' bindings).
            let span = |s: &[u32]| t(s).total_size().unwrap().div_ceil(16) * 16;
            let a_at = 48;
            let out_at = if in_place { a_at } else { a_at + span(&a) + 32 };
            let b_at = out_at + span(&out) + 32;
            let at = [out_at, a_at, b_at];
            let size = b_at + span(&b) + 48;
            // Windows of 4 KiB at offsets aligned to `alignment` bytes, under both rules.
            let windows = |max_window: u64, alignment: u64, cpu: bool| {
                let mut t = target(max_window, false);
                t.windows.offset_alignment = alignment;
                t.cpu = cpu;
                lower(&p, bound([0; 3], at, size), &t).unwrap().summary
            };
            for cpu in [false, true] {
                // One window holds the whole call: it gathers.
                let whole = windows(1 << 20, 64, cpu);
                assert_eq!(whole.dispatches, [KernelKind::Gather], "{dt}");
                // How 4 KiB windows cut it depends on the device's offset alignment: aligned
                // to 256 bytes, the output's binding takes in the inputs, and what pieces
                // there are keep dense outputs (runs of one on the contiguous kernel).
                let coarse = windows(4096, 256, cpu);
                let dense = [KernelKind::Gather, KernelKind::Contiguous];
                assert!(
                    coarse.dispatches.iter().all(|k| dense.contains(k)),
                    "{dt}: {coarse:?}"
                );
                for alignment in [16, 64] {
                    let cut = windows(4096, alignment, cpu);
                    assert!(cut.dispatches.len() > 1, "{dt}: {cut:?}");
                    assert!(cut.dispatches.iter().all(|&k| k == blocks), "{dt}: {cut:?}");
                }
            }
        }
    }
}
