//! Layout analysis: lowering the operands of a validated description
//! ([`crate::desc::Operands`]) to a [`Plan`] (broadcasts as zero strides, coalesced
//! dimensions, per-operand strides, the kernel family), deciding how operands that share a
//! buffer may be bound, and cutting large tensors into windows. Pure CPU: no wgpu types. It
//! reads the descriptions' output, never the operator descriptions themselves.

mod broadcast;
mod coalesce;
mod fused;
mod overlap;
mod plan;
mod windows;

/// The execution layer's names for what the descriptions define.
pub(crate) use crate::desc::Operand as OperandSpec;
pub use overlap::BindingPattern;
pub(crate) use overlap::{BoundOperand, Sharing, alias, analyze_bindings};
// The scheduling machinery's (`crate::schedule`), not this crate's API.
pub(crate) use fused::FUSED_OPERANDS;
pub use fused::FusedPlan;
#[doc(hidden)]
pub use plan::slot;
pub use plan::{KernelKind, Plan};
#[doc(hidden)]
pub use windows::Limits;
pub(crate) use windows::{Piece, split};

/// Operand slots, in the order the kernels and `Layout` use: output first.
#[doc(hidden)]
pub const OUT: usize = 0;
/// Operand A.
#[doc(hidden)]
pub const A: usize = 1;
/// Operand B.
#[doc(hidden)]
pub const B: usize = 2;

/// Each operand's element size in bytes, indexed by [`OUT`], [`A`], [`B`]: the same for every
/// operator but `BIT_COUNT`, whose output's type is not its input's. A single width converts
/// into three equal ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Widths<const N: usize = 3>(pub [u64; N]);

impl<const N: usize> Widths<N> {
    /// Operand `o`'s element size.
    pub fn of(self, o: usize) -> u64 {
        self.0[o]
    }

    /// The output's element size: what the kernels' `WIDTH` and their output lanes follow.
    pub fn out(self) -> u64 {
        self.0[OUT]
    }

    /// Whether every operand has the same element size, so that every kernel applies; where
    /// they differ, only the contiguous kernel (aligned dense runs) and those that load and
    /// store element by element do (gather, scatter, spaced).
    pub fn uniform(self) -> bool {
        self.0.iter().all(|&w| w == self.0[OUT])
    }
}

impl<const N: usize> From<u64> for Widths<N> {
    fn from(width: u64) -> Widths<N> {
        Widths([width; N])
    }
}

/// A strided iteration space shared by the operands (three for an operator, the output and
/// the inputs for a fused expression): one size per dimension and, per operand, one element
/// stride per dimension (0 repeats an element).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Layout<const N: usize = 3> {
    /// Sizes, outermost first.
    pub sizes: Vec<u64>,
    /// Element strides per operand, indexed by [`OUT`], [`A`], [`B`] (the output first).
    pub strides: [Vec<u64>; N],
}

impl<const N: usize> Layout<N> {
    pub fn rank(&self) -> usize {
        self.sizes.len()
    }

    /// The product of the sizes, saturated at `u64::MAX` (exact whenever it fits, so 0 for any
    /// zero size); a validated plan's count always fits.
    pub fn element_count(&self) -> u64 {
        if self.sizes.contains(&0) {
            return 0;
        }
        self.sizes
            .iter()
            .fold(1u64, |acc, &n| acc.saturating_mul(n))
    }

    /// Whether operand `o` is packed row-major over these sizes.
    pub fn is_dense(&self, o: usize) -> bool {
        let mut expected = 1u64;
        for (&size, &stride) in self.sizes.iter().zip(&self.strides[o]).rev() {
            if size != 1 && stride != expected {
                return false;
            }
            expected = expected.saturating_mul(size);
        }
        true
    }
}
