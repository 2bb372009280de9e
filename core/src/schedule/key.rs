//! What tells one compute pipeline from another: the kernel family, whether its inputs are
//! bound `read_write`, the override constants it is compiled with, and for a fused
//! expression the structure its source is generated from.

use std::sync::Arc;

use crate::desc::{ElementFunction, MAX_EXPR_INPUTS, ReduceOp};
use crate::layout::KernelKind;

/// What distinguishes one pipeline from another.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PipelineKey {
    /// The kernel family.
    pub kernel: KernelKind,
    /// Whether the input bindings are `read_write`.
    pub inputs_rw: bool,
    /// The override constants (none for a fused kernel).
    pub overrides: Overrides,
    /// A fused expression's kernel: what its source is generated from (`None` for the
    /// operators' kernels, whose sources are fixed).
    pub fused: Option<Arc<FusedKernel>>,
}

/// The override constants of one pipeline (see `shaders/shared/common.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Overrides {
    /// Element size in bytes: 1, 2, 4 or 8.
    pub width: u32,
    /// The element function (`BitFunction::code`: 0 XOR, 1 AND, 2 OR, 3 NOT, 4 shift left,
    /// 5 logical and 6 arithmetic shift right, 7 count of ones).
    pub function: u32,
    /// The function on truth values rather than raw bits.
    pub logical: bool,
    /// The binding A is read from (0 output, 1 and 2 inputs).
    pub a_src: u32,
    /// The binding B is read from.
    pub b_src: u32,
    /// How A is read, for the rows and tile kernels (0 elsewhere).
    pub a_mode: u32,
    /// How B is read.
    pub b_mode: u32,
    /// The rank compiled in (1 to 4), or 0 to read it from the metadata.
    pub rank: u32,
    /// The contiguous and rows kernels' direct form: the dispatch runs one record whose
    /// operands all start at the first block of their bindings, so the kernel reads record 0
    /// and no offsets (the contiguous kernel indexes every operand by the invocation alone;
    /// false elsewhere).
    pub direct: bool,
    /// Whether the contiguous kernel writes a last partial 16-byte block (through a mask),
    /// or the rows kernel a partial block at the end of each row; without it every block
    /// either writes is whole (false elsewhere).
    pub tail: bool,
    /// The shifted-rows kernel's GPU form: an invocation's blocks lie a row's invocations
    /// apart, so that neighbouring invocations write neighbouring blocks (false elsewhere).
    pub spread: bool,
    /// The input's element size where it is not the output's (`BIT_COUNT`; the gather,
    /// scatter and spaced kernels), else 0.
    pub in_width: u32,
}

impl Overrides {
    /// Every constant 0: a kernel that takes none (the fused kernels).
    pub const fn none() -> Overrides {
        Overrides {
            width: 0,
            function: 0,
            logical: false,
            a_src: 0,
            b_src: 0,
            a_mode: 0,
            b_mode: 0,
            rank: 0,
            direct: false,
            tail: false,
            spread: false,
            in_width: 0,
        }
    }

    /// The constants by name, as pipeline creation takes them.
    pub fn constants(&self) -> [(&'static str, f64); 12] {
        [
            ("WIDTH", f64::from(self.width)),
            ("FUNC", f64::from(self.function)),
            ("LOGICAL", if self.logical { 1.0 } else { 0.0 }),
            ("A_SRC", f64::from(self.a_src)),
            ("B_SRC", f64::from(self.b_src)),
            ("A_MODE", f64::from(self.a_mode)),
            ("B_MODE", f64::from(self.b_mode)),
            ("RANK", f64::from(self.rank)),
            ("DIRECT", if self.direct { 1.0 } else { 0.0 }),
            ("TAIL", if self.tail { 1.0 } else { 0.0 }),
            ("SPREAD", if self.spread { 1.0 } else { 0.0 }),
            ("IN_WIDTH", f64::from(self.in_width)),
        ]
    }
}

/// One node of a fused kernel, as its source computes it: the constants' values are not
/// part of it (they are the record's), so expressions that differ only in them share a
/// pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KernelNode {
    /// An element of input `k`.
    Input(u8),
    /// Constant `slot` of the record, `width` bytes.
    Constant {
        /// Its index among the record's constants.
        slot: u8,
        /// Its size in bytes.
        width: u8,
    },
    /// `function` of nodes `a` and `b` (`b` is `a` for a function of one input), on
    /// operands of `width` bytes, giving a value of `out_width` bytes.
    Apply {
        /// The element function.
        function: ElementFunction,
        /// The operands' size in bytes.
        width: u8,
        /// The value's size in bytes (the operands' but for a count of ones).
        out_width: u8,
        /// The first operand.
        a: u8,
        /// The second operand.
        b: u8,
        /// Whether `b` is a constant, so that a shift moves every lane by one amount.
        b_constant: bool,
    },
}

/// What a fused kernel's source is generated from: the live nodes of the expression, the
/// operands' widths, where each input is read from, and the form. Two calls with equal
/// values run one pipeline.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FusedKernel {
    /// [`KernelKind::FusedBlocks`], [`KernelKind::FusedElements`],
    /// [`KernelKind::FusedReduce`] or [`KernelKind::FusedTiled`].
    pub form: KernelKind,
    /// The nodes the result depends on, each after its operands.
    pub nodes: Vec<KernelNode>,
    /// The result node.
    pub result: u8,
    /// Each input's element size in bytes (0 for an input the expression does not have).
    pub input_widths: [u8; MAX_EXPR_INPUTS],
    /// The output's element size in bytes.
    pub out_width: u8,
    /// The binding each input is read from: 0 the output's, 1 to 4 the input bindings.
    pub sources: [u8; MAX_EXPR_INPUTS],
    /// Block form: whether each input is one element repeated over the whole piece.
    pub splat: [bool; MAX_EXPR_INPUTS],
    /// Whether the input bindings are `read_write`.
    pub inputs_rw: bool,
    /// The rank compiled in (element form; 1 for the block form); for a reduction, the rank
    /// of its output's dimensions, each invocation's index unravelled over them.
    pub rank: u8,
    /// A reduction ([`KernelKind::FusedReduce`], [`KernelKind::FusedTiled`]): how its values combine, whether its result's
    /// type is signed (a sum sign-extends it), and how many dimensions after the output's
    /// it loops over.
    pub reduce: Option<(ReduceOp, bool, u8)>,
    /// Tiled form: the inputs staged along the tile's columns (constant along its rows);
    /// the others are staged along its rows.
    pub columns: [bool; MAX_EXPR_INPUTS],
    /// Tiled form: the inputs are staged through workgroup memory, each element read from
    /// memory once per tile (the rule for GPUs); without it each invocation reads its rows'
    /// and columns' elements from their bindings, with no barrier (the rule for CPU
    /// adapters, whose caches serve the repeated reads and whose barriers are costly).
    pub staged: bool,
    /// Element form: the output's elements share words (8- and 16-bit elements closer than
    /// 4 bytes), so each word is written by its owner, the invocation of its first element.
    pub shared_words: bool,
    /// Block form: the output and the inputs are bound as `array<vec4<u32>>` and each dense
    /// operand's words are read and written four at a time (every dense operand's first
    /// element on 16 bytes of its binding, every binding a whole number of 16 bytes).
    pub vectors: bool,
    /// Block form, a dispatch of one record whose operands all start their bindings: the
    /// record is the first and the offsets are zero, so the kernel reads neither (as the
    /// contiguous kernel's direct form; given by [`super::merge::direct_form`]).
    pub direct: bool,
    /// Block form: whether the last block of the piece is partial, so that the kernel masks
    /// the output's words there (without it, every block is stored whole).
    pub tail: bool,
}

impl FusedKernel {
    /// Elements one invocation of the block form computes: 16 bytes of the narrowest value,
    /// so that every value is a whole number of `vec4<u32>`.
    pub fn block_elements(&self) -> u32 {
        let widths = self.value_widths();
        let narrowest = widths.iter().copied().min().unwrap_or(4);
        16 / narrowest
    }

    /// The sizes of every value the kernel holds: its inputs', its nodes', its output's.
    fn value_widths(&self) -> Vec<u32> {
        let mut widths = vec![u32::from(self.out_width)];
        for node in &self.nodes {
            match *node {
                KernelNode::Input(k) => widths.push(u32::from(self.input_widths[usize::from(k)])),
                KernelNode::Constant { width, .. } => widths.push(u32::from(width)),
                KernelNode::Apply { out_width, .. } => widths.push(u32::from(out_width)),
            }
        }
        widths
    }
}
