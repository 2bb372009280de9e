//! Fused expressions lowered to pieces: the structure their kernel is generated from
//! ([`FusedKernel`]), the metadata record it reads ([`FusedParams`]), and the binding rules,
//! slots, windows and records of one call ([`lower_fused`]). Pure CPU, as the operators'
//! lowering is.

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};

use super::Target;
use super::dispatch::{self, Dispatch, WORKGROUP_SIZE};
pub use super::key::{FusedKernel, KernelNode};
use super::key::{Overrides, PipelineKey};
use super::lower::{
    Access, Lowered, LoweredPiece, MAX_SLOTS, Operand, Range, RecordSummary, bind_range,
    check_binding, overlapping,
};
use super::params::{Divisor, Params};
use super::select::{nested, owned_pieces, spaced};
use crate::desc::{Affine, ExprNode, MAX_EXPR_CONSTANTS, MAX_EXPR_INPUTS, TensorName};
use crate::error::Error;
use crate::layout::{
    BindingPattern, BoundOperand, FUSED_OPERANDS, FusedPlan, KernelKind, Limits, OUT, Piece,
    Widths, alias, split,
};

/// Dimensions the fused kernels take; a call of more, once coalesced, is cut into pieces.
pub const FUSED_MAX_RANK: usize = 4;

/// The metadata record of a fused call (binding 0 of its kernel), 256 bytes as every record
/// is: the generated WGSL declares the same fields (`struct Params` there).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub struct FusedParams {
    /// Work units (blocks or elements), rank, invocations per grid row, elements.
    pub head: [u32; 4],
    /// Element offsets of the output and of each input inside their bound windows.
    pub base: [u32; 8],
    /// Sizes, outermost first (unused dimensions 0).
    pub sizes: [u32; FUSED_MAX_RANK],
    /// Element strides of the output, then of each input.
    pub strides: [[u32; FUSED_MAX_RANK]; FUSED_OPERANDS],
    /// Per dimension, the multiplier that divides by its size (`Divisor`).
    pub size_magic: [u32; FUSED_MAX_RANK],
    /// Per dimension, the two shifts of the size's divisor, a byte each.
    pub shifts: [u32; FUSED_MAX_RANK],
    /// The constants' bits, low word first.
    pub constants: [[u32; 2]; MAX_EXPR_CONSTANTS],
    /// A sum into a 32-bit output: the scale and the offset of its affine map (1 and 0
    /// without one), then two unused words (the record is 256 bytes).
    pub affine: [u32; 4],
}

impl Default for FusedParams {
    fn default() -> FusedParams {
        FusedParams::zeroed()
    }
}

/// The structure of `plan`'s expression: its live nodes renumbered, constants by slot.
fn kernel_nodes(plan: &FusedPlan) -> (Vec<KernelNode>, u8) {
    let expr = &plan.expr;
    let nodes = expr.nodes();
    let mut live = vec![false; nodes.len()];
    live[expr.result()] = true;
    for n in (0..nodes.len()).rev() {
        if let (true, ExprNode::Apply { a, b, op, .. }) = (live[n], nodes[n]) {
            live[a] = true;
            if op.inputs() == 2 {
                live[b] = true;
            }
        }
    }
    let mut index = vec![0u8; nodes.len()];
    let mut out = Vec::new();
    let mut constant = 0u8;
    for (n, &node) in nodes.iter().enumerate() {
        let slot = constant;
        if matches!(node, ExprNode::Constant { .. }) {
            constant += 1;
        }
        if !live[n] {
            continue;
        }
        index[n] = out.len() as u8;
        let width = |n: usize| expr.node_type(n).size_in_bytes() as u8;
        out.push(match node {
            ExprNode::Input(k) => KernelNode::Input(k as u8),
            ExprNode::Constant { data_type, .. } => KernelNode::Constant {
                slot,
                width: data_type.size_in_bytes() as u8,
            },
            ExprNode::Apply { op, a, b, .. } => {
                let b = if op.inputs() == 2 { b } else { a };
                KernelNode::Apply {
                    function: op.function(expr.node_type(a)),
                    width: width(a),
                    out_width: width(n),
                    a: index[a],
                    b: index[b],
                    b_constant: matches!(nodes[b], ExprNode::Constant { .. }),
                }
            }
        });
    }
    (out, index[expr.result()])
}

/// The record's constants: each constant node's bits, in node order.
fn constants(plan: &FusedPlan) -> [[u32; 2]; MAX_EXPR_CONSTANTS] {
    let mut out = [[0u32; 2]; MAX_EXPR_CONSTANTS];
    let bits = plan.expr.nodes().iter().filter_map(|n| match n {
        ExprNode::Constant { bits, .. } => Some(*bits),
        _ => None,
    });
    for (slot, bits) in out.iter_mut().zip(bits) {
        *slot = [bits as u32, (bits >> 32) as u32];
    }
    out
}

/// The name of operand `o` (the output, then the inputs) in errors.
fn name(o: usize) -> TensorName {
    if o == OUT {
        TensorName::Output
    } else {
        TensorName::Input((o - 1) as u8)
    }
}

/// Lowers one call of `plan` on `bound` (the output, then each input), as [`super::lower::lower_with`]
/// lowers an operator's call: the binding rules (each binding's offset, bounds and size; an
/// input in the output's buffer either apart from it or exactly on it, in place), the
/// binding slots (operands of one buffer share a binding where a window holds them all),
/// windows, the form of each piece and its record.
pub fn lower_fused(
    plan: &FusedPlan,
    bound: &[Operand],
    target: &Target,
    share: bool,
) -> Result<Lowered, Error> {
    let inputs = plan.expr.input_count();
    let spec = |o: usize| {
        if o == OUT {
            plan.expr.output()
        } else {
            plan.expr.input(o - 1)
        }
    };
    if bound.len() != 1 + inputs {
        return Err(Error::ExprCount {
            what: "bindings",
            count: bound.len(),
            min: 1 + inputs,
            max: 1 + inputs,
        });
    }
    for (o, b) in bound.iter().enumerate() {
        check_binding(name(o), b, spec(o))?;
    }
    let widths = plan.widths();
    let out_bound = BoundOperand {
        buffer: bound[OUT].buffer,
        offset: bound[OUT].offset,
    };
    let mut in_place = [false; MAX_EXPR_INPUTS];
    for (k, place) in in_place.iter_mut().enumerate().take(inputs) {
        let o = 1 + k;
        if bound[o].buffer == bound[OUT].buffer {
            *place = alias(
                name(o),
                (
                    BoundOperand {
                        buffer: bound[o].buffer,
                        offset: bound[o].offset,
                    },
                    spec(o),
                ),
                (out_bound, spec(OUT)),
                widths.of(o) == widths.out(),
            )?;
        }
    }
    let mut summary = RecordSummary {
        binding_pattern: pattern(bound),
        a_in_place: in_place.iter().any(|&p| p),
        b_in_place: false,
        dispatches: Vec::new(),
        overlapping_bindings: 0,
    };
    if plan.elements == 0 {
        return Ok(Lowered {
            summary,
            pieces: Vec::new(),
        });
    }
    // Unused operands stand where the first input does.
    let operand = |o: usize| if o <= inputs { o } else { 1 };
    let start: [u64; FUSED_OPERANDS] = std::array::from_fn(|o| bound[operand(o)].offset);
    let keys: [usize; FUSED_OPERANDS] = std::array::from_fn(|o| bound[operand(o)].buffer);
    let sizes: [u64; FUSED_OPERANDS] = std::array::from_fn(|o| bound[operand(o)].buffer_size);
    let (slot, inputs_rw, pieces, window) =
        choose_slots(plan, start, keys, sizes, &in_place, target)?;
    let buffers = |s: usize| {
        (0..FUSED_OPERANDS)
            .find(|&o| slot[o] == s)
            .map(|o| (keys[o], sizes[o]))
    };
    let (nodes, result) = kernel_nodes(plan);
    let constants = constants(plan);
    // A sum's affine map, the identity without one.
    let affine = plan.expr.affine().unwrap_or(Affine {
        scale: 1,
        offset: 0,
    });
    let affine = [affine.scale as u32, affine.offset as u32, 0, 0];
    let mut lowered = Vec::with_capacity(pieces.len());
    for whole in pieces {
        let ranges: [Option<Range>; MAX_SLOTS] = std::array::from_fn(|s| {
            let (used_start, used_end) = (*whole.windows.get(s)?)?;
            let (buffer, size) = buffers(s)?;
            let (start, end) = bind_range(size, used_start, used_end, window, share);
            Some(Range { buffer, start, end })
        });
        let window_start: [u64; FUSED_OPERANDS] =
            std::array::from_fn(|o| ranges[slot[o]].map_or(0, |r| r.start));
        let blocks = plan.kernel == KernelKind::FusedBlocks
            && block_form(&whole, start, window_start, widths, inputs);
        let vectors = blocks
            && ranges
                .iter()
                .flatten()
                .all(|r| (r.end - r.start).is_multiple_of(16))
            && (0..=inputs).all(|o| {
                whole.strides[o][0] == 0
                    || (start[o] + whole.origin[o] * widths.of(o) - window_start[o])
                        .is_multiple_of(16)
            });
        let parts = if blocks || widths.out() >= 4 {
            vec![whole]
        } else {
            owned_pieces(whole, widths.out())
        };
        for piece in parts {
            let sources = std::array::from_fn(|k| slot[1 + k] as u8);
            let kernel = FusedKernel {
                vectors,
                ..kernel_for(
                    plan,
                    (&nodes, result),
                    &piece,
                    (blocks, target.tiled.then_some(!target.cpu)),
                    sources,
                    inputs_rw,
                )
            };
            let kernel = FusedKernel {
                tail: blocks
                    && !piece
                        .sizes
                        .iter()
                        .product::<u64>()
                        .is_multiple_of(u64::from(kernel.block_elements())),
                ..kernel
            };
            debug_assert!(!kernel.shared_words || nested(&piece));
            let record = record(
                &kernel,
                &piece,
                start,
                window_start,
                widths,
                (constants, affine),
                target.max_groups,
            );
            if overlapping(&ranges, inputs_rw) {
                summary.overlapping_bindings += 1;
            }
            summary.dispatches.push(kernel.form);
            let accesses = (0..=inputs)
                .map(|o| {
                    let width = widths.of(o);
                    let first = start[o] + piece.origin[o] * width;
                    let end = first + (piece.reach(o) + 1) * width;
                    Access {
                        buffer: keys[o],
                        start: first - first % 16,
                        end: end.div_ceil(16) * 16,
                        write: o == OUT,
                    }
                })
                .collect();
            lowered.push(LoweredPiece {
                key: fused_key(kernel),
                records: vec![record],
                slots: ranges,
                inputs_rw,
                accesses,
            });
        }
    }
    Ok(Lowered {
        summary,
        pieces: lowered,
    })
}

/// Whether every piece of a reduction holds all of its reduced elements.
fn reduced_whole(plan: &FusedPlan, pieces: &[Piece<FUSED_OPERANDS>]) -> bool {
    let layout = &plan.layout;
    let all = reduced_elements(&layout.sizes, &layout.strides[OUT]);
    pieces
        .iter()
        .all(|p| reduced_elements(&p.sizes, &p.strides[OUT]) == all)
}

/// Every piece of a reduction must hold all of its reduced elements (a kernel combines them
/// in registers and writes its output once): where one output's elements span more than a
/// window, or more dimensions than a piece takes, the call is refused.
fn check_reduced_whole(
    plan: &FusedPlan,
    pieces: &[Piece<FUSED_OPERANDS>],
    window: u64,
) -> Result<(), Error> {
    if plan.expr.reduce().is_none() || reduced_whole(plan, pieces) {
        Ok(())
    } else {
        Err(past_window(plan, window))
    }
}

/// The refusal of a reduction whose pieces cut its reduced elements: the widest span of one
/// output's reduced elements, in bytes, over the operands, against the window.
fn past_window(plan: &FusedPlan, window: u64) -> Error {
    let layout = &plan.layout;
    let widths = plan.widths();
    let bytes = (0..FUSED_OPERANDS)
        .map(|o| {
            let reach: u64 = layout
                .sizes
                .iter()
                .zip(&layout.strides[o])
                .zip(&layout.strides[OUT])
                .filter(|&(_, &out)| out == 0)
                .map(|((&n, &s), _)| (n - 1) * s)
                .sum();
            (reach + 1) * widths.of(o)
        })
        .max()
        .unwrap_or(0);
    Error::ReducePastWindow { bytes, window }
}

/// The kernel of `plan` for `piece`, in the block form, the element form, or a reduction's
/// (tiled where `tiles` is given and the piece is a contraction; staged through workgroup
/// memory where it is true), each input read from its
/// binding slot in `sources`: every field but the block form's variants (`vectors`,
/// `direct`, `tail`), which start false.
fn kernel_for(
    plan: &FusedPlan,
    (nodes, result): (&[KernelNode], u8),
    piece: &Piece<FUSED_OPERANDS>,
    (blocks, tiles): (bool, Option<bool>),
    sources: [u8; MAX_EXPR_INPUTS],
    inputs_rw: bool,
) -> FusedKernel {
    let inputs = plan.expr.input_count();
    let widths = plan.widths();
    let reduced = reduced_dims(piece);
    let columns = if plan.expr.reduce().is_some() && tiles.is_some() {
        contraction(piece, inputs, widths)
    } else {
        None
    };
    let reduce = plan.expr.reduce().map(|(op, _)| {
        let signed = plan.expr.node_type(plan.expr.result()).is_signed_integer();
        (op, signed, reduced as u8)
    });
    let rank = if reduce.is_some() {
        piece.sizes.len() - reduced
    } else {
        piece.sizes.len().min(FUSED_MAX_RANK)
    };
    FusedKernel {
        form: if columns.is_some() {
            KernelKind::FusedTiled
        } else if reduce.is_some() {
            KernelKind::FusedReduce
        } else if blocks {
            KernelKind::FusedBlocks
        } else {
            KernelKind::FusedElements
        },
        nodes: nodes.to_vec(),
        result,
        input_widths: std::array::from_fn(|k| {
            if k < inputs {
                widths.of(1 + k) as u8
            } else {
                0
            }
        }),
        out_width: widths.out() as u8,
        sources,
        splat: std::array::from_fn(|k| blocks && piece.strides[1 + k][0] == 0),
        inputs_rw,
        rank: rank as u8,
        reduce,
        columns: columns.unwrap_or_default(),
        staged: columns.is_some() && tiles == Some(true),
        shared_words: !blocks && widths.out() < 4 && !spaced(piece, widths.out()),
        vectors: false,
        direct: false,
        tail: false,
    }
}

/// Rows and columns a tiled contraction's workgroup computes, each side.
pub const TILE: u64 = 64;

/// Reduced elements a tiled contraction stages at a time.
pub const DEPTH: u64 = 8;

/// Elements between two rows of a tiled contraction's staged inputs in workgroup memory:
/// `DEPTH` and one, so that the invocations of one row of the tile, reading one element of
/// 16 rows, read 16 distinct banks.
pub const PITCH: u64 = DEPTH + 1;

/// Workgroup memory the tiled contraction may stage in: WebGPU's least
/// `maxComputeWorkgroupStorageSize`.
const STAGED_BYTES: u64 = 16 << 10;

/// The fewest rows and columns a piece runs the tiled contraction with; narrower pieces run
/// the untiled reduction, whose invocations do no work for rows or columns past the piece.
pub const TILED_MIN: u64 = 8;

/// Whether `piece` of a reduction is a contraction the tiled kernel runs, and if so which
/// inputs it stages along the columns: at most one reduced dimension after the rows and the
/// columns (none where each output reduces one element), at most one batch dimension
/// before them, every input constant along the rows or along
/// the columns, at least one input varying along each, a 32- or 64-bit output, and at least
/// [`TILED_MIN`] rows and columns.
pub(crate) fn contraction(
    piece: &Piece<FUSED_OPERANDS>,
    inputs: usize,
    widths: Widths<FUSED_OPERANDS>,
) -> Option<[bool; MAX_EXPR_INPUTS]> {
    let n = piece.sizes.len();
    // Each input's staged rows, 64-bit values as two words.
    let staged: u64 = (1..=inputs)
        .map(|o| TILE * PITCH * widths.of(o).max(4))
        .sum();
    // Codes of one element each leave no reduced dimension: the kernel reduces one.
    let kept = n - reduced_dims(piece);
    if !(2..=3).contains(&kept) || n - kept > 1 || widths.out() < 4 || staged > STAGED_BYTES {
        return None;
    }
    let (y, x) = (kept - 2, kept - 1);
    if piece.sizes[y] < TILED_MIN || piece.sizes[x] < TILED_MIN {
        return None;
    }
    let mut columns = [false; MAX_EXPR_INPUTS];
    let (mut rows_vary, mut columns_vary) = (false, false);
    for (k, column) in columns.iter_mut().enumerate().take(inputs) {
        let (sy, sx) = (piece.strides[1 + k][y], piece.strides[1 + k][x]);
        match (sy, sx) {
            (0, 0) => {}
            (0, _) => {
                *column = true;
                columns_vary = true;
            }
            (_, 0) => rows_vary = true,
            _ => return None,
        }
    }
    (rows_vary && columns_vary).then_some(columns)
}

/// How many of a reduction's piece's dimensions, from the last, its kernel loops over: those
/// the output holds as one element (stride 0), and dimensions of one element among them.
/// The plan's coalescing puts every reduced dimension after the output's (their output
/// stride is 0, the output's never is), and a piece keeps the plan's order.
fn reduced_dims(piece: &Piece<FUSED_OPERANDS>) -> usize {
    (0..piece.sizes.len())
        .rev()
        .take_while(|&d| piece.strides[OUT][d] == 0 || piece.sizes[d] <= 1)
        .count()
}

/// Elements of the reduced dimensions (output stride 0) of `piece`, or of a whole plan.
fn reduced_elements(sizes: &[u64], out_strides: &[u64]) -> u64 {
    sizes
        .iter()
        .zip(out_strides)
        .filter(|&(_, &s)| s == 0)
        .map(|(&n, _)| n)
        .product()
}

/// The pipeline key of a fused kernel: its structure, and no override constants.
pub(crate) fn fused_key(kernel: FusedKernel) -> PipelineKey {
    PipelineKey {
        kernel: kernel.form,
        inputs_rw: kernel.inputs_rw,
        overrides: Overrides::none(),
        fused: Some(Arc::new(kernel)),
    }
}

/// How the call's buffers are shared, in the operators' terms: the output sharing an
/// input's buffer is [`BindingPattern::OutputSharesA`] whichever input it is, inputs sharing
/// one buffer among themselves [`BindingPattern::InputsShareBuffer`].
fn pattern(bound: &[Operand]) -> BindingPattern {
    let out = bound[OUT].buffer;
    let inputs = &bound[1..];
    let with_out = inputs.iter().filter(|b| b.buffer == out).count();
    if with_out == inputs.len() {
        return BindingPattern::AllShareBuffer;
    }
    if with_out > 0 {
        return BindingPattern::OutputSharesA;
    }
    let shared = (0..inputs.len()).any(|i| (0..i).any(|j| inputs[i].buffer == inputs[j].buffer));
    if shared {
        BindingPattern::InputsShareBuffer
    } else {
        BindingPattern::Distinct
    }
}

/// Whether `piece` runs the block form: one dimension, the output dense, every input dense
/// or one repeated element, and each dense operand's first element on a word of its binding.
fn block_form(
    piece: &Piece<FUSED_OPERANDS>,
    start: [u64; FUSED_OPERANDS],
    window_start: [u64; FUSED_OPERANDS],
    widths: Widths<FUSED_OPERANDS>,
    inputs: usize,
) -> bool {
    piece.sizes.len() == 1
        && piece.strides[OUT][0] == 1
        && (0..=inputs).all(|o| {
            let stride = piece.strides[o][0];
            let byte = start[o] + piece.origin[o] * widths.of(o) - window_start[o];
            stride == 0 || (stride == 1 && byte.is_multiple_of(4))
        })
}

/// The record and grid of one piece, with the call's constants and affine words.
fn record(
    kernel: &FusedKernel,
    piece: &Piece<FUSED_OPERANDS>,
    start: [u64; FUSED_OPERANDS],
    window_start: [u64; FUSED_OPERANDS],
    widths: Widths<FUSED_OPERANDS>,
    (constants, affine): ([[u32; 2]; MAX_EXPR_CONSTANTS], [u32; 4]),
    max_groups: u32,
) -> Dispatch {
    // The split keeps every offset, size and stride of a piece inside its window: below
    // 2^32 elements.
    let to_u32 = |v: u64| v as u32;
    // A reduction's invocations are its output's elements; the loops run over the rest.
    let counted = match kernel.form {
        KernelKind::FusedReduce | KernelKind::FusedTiled => {
            &piece.sizes[..usize::from(kernel.rank)]
        }
        _ => &piece.sizes[..],
    };
    let elements: u64 = counted.iter().product();
    let units = match kernel.form {
        KernelKind::FusedBlocks => elements.div_ceil(u64::from(kernel.block_elements())),
        // A workgroup a tile: the batches, then the tiles of the rows, then the columns'.
        KernelKind::FusedTiled => {
            let rank = usize::from(kernel.rank);
            let batches: u64 = piece.sizes[..rank - 2].iter().product();
            let tiles = |d: usize| piece.sizes[d].div_ceil(TILE);
            let groups = batches * tiles(rank - 2) * tiles(rank - 1);
            groups * u64::from(WORKGROUP_SIZE)
        }
        _ => elements,
    };
    let groups = units.div_ceil(u64::from(WORKGROUP_SIZE));
    let grid = dispatch::grid(groups, u64::from(max_groups.max(1)));
    let mut params = FusedParams {
        head: [
            to_u32(units),
            piece.sizes.len() as u32,
            to_u32(grid[0] * u64::from(WORKGROUP_SIZE)),
            to_u32(elements),
        ],
        constants,
        affine,
        ..FusedParams::default()
    };
    for o in 0..FUSED_OPERANDS {
        let w = widths.of(o);
        params.base[o] = to_u32((start[o] + piece.origin[o] * w - window_start[o]) / w);
    }
    for (d, &size) in piece.sizes.iter().enumerate() {
        params.sizes[d] = to_u32(size);
        for o in 0..FUSED_OPERANDS {
            params.strides[o][d] = if size > 1 {
                to_u32(piece.strides[o][d])
            } else {
                0
            };
        }
        let by_size = Divisor::new(params.sizes[d]);
        params.size_magic[d] = by_size.magic;
        params.shifts[d] = by_size.shift1 | by_size.shift2 << 8;
    }
    // A tiled contraction of one element an output reduces a dimension of one.
    if kernel.form == KernelKind::FusedTiled && piece.sizes.len() == usize::from(kernel.rank) {
        params.sizes[piece.sizes.len()] = 1;
    }
    Dispatch {
        params: bytemuck::cast(params),
        groups: [to_u32(grid[0]), to_u32(grid[1])],
    }
}

/// How many smaller windows [`choose_slots`] tries for one grouping of the operands.
const SHRINK_STEPS: usize = 8;

/// The binding slot of each operand, whether the input bindings are `read_write`, the
/// pieces and the window they were cut to, as the operators' lowering chooses them: operands
/// of one buffer share its binding where one window holds them all; else inputs in the
/// output's buffer take bindings of their own (`read_write`), then every input does, with
/// smaller windows until no writable binding overlaps another of its buffer; where none
/// keeps them apart, native backends take one binding per input (WebGPU's rule refuses it).
fn choose_slots(
    plan: &FusedPlan,
    start: [u64; FUSED_OPERANDS],
    keys: [usize; FUSED_OPERANDS],
    sizes: [u64; FUSED_OPERANDS],
    in_place: &[bool; MAX_EXPR_INPUTS],
    target: &Target,
) -> Result<
    (
        [usize; FUSED_OPERANDS],
        bool,
        Vec<Piece<FUSED_OPERANDS>>,
        u64,
    ),
    Error,
> {
    let inputs = plan.expr.input_count();
    let limits = Limits {
        max_rank: FUSED_MAX_RANK,
        ..target.windows
    };
    let widths = plan.widths();
    // Slots by grouping: `together(o)` says whether input `o` may share the slot of an
    // earlier operand of its buffer (the output's included when `with_out(o)`).
    let slots = |with_out: &dyn Fn(usize) -> bool, together: bool| {
        let mut slot = [0usize; FUSED_OPERANDS];
        let mut next = 1;
        for o in 1..=inputs {
            slot[o] = if keys[o] == keys[OUT] && (with_out(o) || in_place[o - 1]) {
                0
            } else if let Some(p) = (1..o).find(|&p| together && keys[p] == keys[o] && slot[p] != 0)
            {
                slot[p]
            } else {
                next += 1;
                next - 1
            };
        }
        for o in inputs + 1..FUSED_OPERANDS {
            slot[o] = slot[1];
        }
        slot
    };
    let rw =
        |slot: &[usize; FUSED_OPERANDS]| (1..=inputs).any(|o| slot[o] != 0 && keys[o] == keys[OUT]);
    // A reduction's pieces must hold all of its reduced elements: a grouping whose pieces
    // cut them is tried no further, as one whose span is too large.
    let whole = |pieces: &[Piece<FUSED_OPERANDS>]| {
        plan.expr.reduce().is_none() || reduced_whole(plan, pieces)
    };
    let shared = slots(&|_| true, true);
    let mut refused = None;
    let first = match split(&plan.layout, start, shared, widths, limits) {
        Ok(pieces) if whole(&pieces) => {
            return Ok((shared, rw(&shared), pieces, limits.max_window));
        }
        Ok(_) => {
            let e = past_window(plan, limits.max_window);
            refused = Some(e.clone());
            e
        }
        Err(e @ Error::SharedBufferSpanTooLarge { .. }) => e,
        Err(e) => return Err(e),
    };
    let apart = slots(&|_| false, true);
    let alone = slots(&|_| false, false);
    let least = limits.offset_alignment + 64;
    for slot in [apart, alone] {
        let mut window = limits.max_window;
        for _ in 0..SHRINK_STEPS {
            if window < least {
                break;
            }
            let cut = Limits {
                max_window: window,
                ..limits
            };
            let pieces = split(&plan.layout, start, slot, widths, cut)
                .ok()
                .filter(|pieces| whole(pieces));
            if let Some(pieces) = pieces {
                let clash = |p: &Piece<FUSED_OPERANDS>| {
                    let ranges: [Option<Range>; MAX_SLOTS] = std::array::from_fn(|s| {
                        let (a, b) = (*p.windows.get(s)?)?;
                        let o = (0..FUSED_OPERANDS).find(|&o| slot[o] == s)?;
                        let (start, end) = bind_range(sizes[o], a, b, window, true);
                        Some(Range {
                            buffer: keys[o],
                            start,
                            end,
                        })
                    });
                    overlapping(&ranges, rw(&slot))
                };
                if !pieces.iter().any(clash) {
                    return Ok((slot, rw(&slot), pieces, window));
                }
            }
            window = window / 4 * 3 / 16 * 16;
        }
    }
    if target.strict_aliasing {
        return Err(refused.unwrap_or(first));
    }
    let pieces = split(&plan.layout, start, alone, widths, limits)?;
    check_reduced_whole(plan, &pieces, limits.max_window)?;
    Ok((alone, rw(&alone), pieces, limits.max_window))
}

/// Every pipeline a call of `plan` that fits one window can need on distinct buffers, or
/// with one input in place (read through the output's binding), the block form's with and
/// without vectors: what warming a fused operator up compiles (a contraction's tiled kernel
/// where `tiles` is given, staged where it is true). Other bindings (inputs sharing buffers,
/// windows) may need more.
pub fn fused_pipeline_keys(plan: &FusedPlan, tiles: Option<bool>) -> Vec<PipelineKey> {
    let mut keys = Vec::new();
    if plan.elements == 0 {
        return keys;
    }
    let inputs = plan.expr.input_count();
    let (nodes, result) = kernel_nodes(plan);
    let piece = Piece::whole(&plan.layout);
    let blocks = plan.kernel == KernelKind::FusedBlocks;
    let distinct: [u8; MAX_EXPR_INPUTS] = std::array::from_fn(|k| (1 + k) as u8);
    let mut source_sets = vec![distinct];
    for k in 0..inputs {
        let (spec, out) = (plan.expr.input(k), plan.expr.output());
        if spec.sizes() == out.sizes() && spec.strides() == out.strides() {
            let mut s = distinct;
            s[k] = 0;
            source_sets.push(s);
        }
    }
    let vector_forms: &[bool] = if blocks { &[true, false] } else { &[false] };
    for (sources, &vectors) in source_sets
        .iter()
        .flat_map(|s| vector_forms.iter().map(move |v| (*s, v)))
    {
        let sources = std::array::from_fn(|k| if k < inputs { sources[k] } else { sources[0] });
        let kernel = FusedKernel {
            vectors,
            ..kernel_for(
                plan,
                (&nodes, result),
                &piece,
                (blocks, tiles),
                sources,
                false,
            )
        };
        let kernel = FusedKernel {
            tail: blocks
                && !plan
                    .elements
                    .is_multiple_of(u64::from(kernel.block_elements())),
            ..kernel
        };
        // A call alone on buffers it starts runs the direct form.
        if vectors && sources == distinct {
            let direct = FusedKernel {
                direct: true,
                ..kernel.clone()
            };
            keys.push(fused_key(direct));
        }
        let key = fused_key(kernel);
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys
}

// The record is 256 bytes, as every record in the metadata arena is.
const _: () = assert!(std::mem::size_of::<FusedParams>() == std::mem::size_of::<Params>());

#[cfg(test)]
mod tests {
    use super::*;
    use crate::desc::{DataType, Expr, ExprDesc, FeatureLevel, Operator, ReduceOp, TensorDesc};

    fn target(tiled: bool) -> Target {
        Target {
            windows: Limits {
                max_window: 1 << 27,
                offset_alignment: 256,
                max_rank: 8,
            },
            max_groups: 65535,
            strict_aliasing: false,
            cpu: false,
            choices: None,
            tiled,
        }
    }

    /// The kernels `desc` runs on distinct buffers of its own sizes.
    fn kernels(desc: &ExprDesc, tiled: bool) -> Vec<KernelKind> {
        let operands = desc.operands(FeatureLevel::Fl6_4).unwrap();
        let plan = FusedPlan::new(&operands);
        let tensors = std::iter::once(&desc.output).chain(&desc.inputs);
        let bound: Vec<Operand> = tensors
            .enumerate()
            .map(|(k, t)| Operand {
                buffer: k,
                buffer_size: t.total_size().unwrap().div_ceil(4) * 4,
                offset: 0,
                size: None,
            })
            .collect();
        let lowered = lower_fused(&plan, &bound, &target(tiled), false).unwrap();
        lowered.summary.dispatches
    }

    fn t(sizes: &[u32]) -> TensorDesc {
        TensorDesc::new(DataType::U32, sizes)
    }

    #[test]
    fn contractions_of_many_rows_and_columns_run_tiled() {
        let hamming = |m: u32, n: u32, w: u32| {
            ExprDesc::hamming_distances(t(&[m, w]), t(&[n, w]), t(&[m, n]))
        };
        let tiled = [KernelKind::FusedTiled];
        let untiled = [KernelKind::FusedReduce];
        assert_eq!(kernels(&hamming(8, 8, 8), true), tiled);
        // Codes of one word reduce one element each: still a contraction.
        assert_eq!(kernels(&hamming(100, 300, 1), true), tiled);
        assert_eq!(kernels(&hamming(100, 300, 8), false), untiled);
        // Fewer than 8 rows or columns.
        assert_eq!(kernels(&hamming(7, 300, 8), true), untiled);
        assert_eq!(kernels(&hamming(300, 7, 8), true), untiled);
        // An input that varies along both rows and columns is no contraction.
        let mut e = Expr::new();
        let (q, c, full) = (
            e.input(t(&[16, 1, 8])),
            e.input(t(&[1, 16, 8])),
            e.input(t(&[16, 16, 8])),
        );
        let x = e.apply(Operator::BitwiseXor, &[q, c]);
        let x = e.apply(Operator::BitwiseAnd, &[x, full]);
        let desc = e.reduce(x, ReduceOp::Or, &[2], t(&[16, 16]));
        assert_eq!(kernels(&desc, true), untiled);
        // A 16-bit output shares words between invocations: untiled.
        let mut e = Expr::new();
        let (q, c) = (
            e.input(TensorDesc::new(DataType::U16, &[16, 1, 8])),
            e.input(TensorDesc::new(DataType::U16, &[1, 16, 8])),
        );
        let x = e.apply(Operator::BitwiseXor, &[q, c]);
        let desc = e.clone().reduce(
            x,
            ReduceOp::Or,
            &[2],
            TensorDesc::new(DataType::U16, &[16, 16]),
        );
        assert_eq!(kernels(&desc, true), untiled);
        let desc = e.reduce(x, ReduceOp::Sum, &[2], t(&[16, 16]));
        assert_eq!(kernels(&desc, true), tiled);
    }
}
