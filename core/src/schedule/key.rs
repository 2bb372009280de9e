//! What tells one compute pipeline from another: the kernel family, whether its inputs are
//! bound `read_write`, the override constants it is compiled with, and for a fused
//! expression the structure its source is generated from.

use std::sync::Arc;

use super::fused::FusedKernel;
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
    /// The contiguous kernel's direct form: the dispatch runs one record whose operands all
    /// start at the first block of their bindings, so the kernel reads record 0 and indexes
    /// every operand by the invocation alone (false elsewhere).
    pub direct: bool,
    /// Whether the contiguous kernel writes a last partial 16-byte block (through a mask);
    /// without it every block it writes is whole (false elsewhere).
    pub tail: bool,
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
            in_width: 0,
        }
    }

    /// The constants by name, as pipeline creation takes them.
    pub fn constants(&self) -> [(&'static str, f64); 11] {
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
            ("IN_WIDTH", f64::from(self.in_width)),
        ]
    }
}
