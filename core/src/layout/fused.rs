//! The plan of a fused expression: its operands' strides over the output's coalesced index
//! space, as an operator's [`Plan`](super::Plan) has them, for the output and every input.

use super::broadcast::broadcast_strides;
use super::coalesce::coalesce;
use super::{KernelKind, Layout, OUT, Widths};
use crate::desc::{ExprOperands, MAX_EXPR_INPUTS, TensorName};

/// Operands of a fused call: the output, then the inputs (an expression of fewer inputs
/// repeats its first input's strides in the slots it does not use).
pub(crate) const FUSED_OPERANDS: usize = 1 + MAX_EXPR_INPUTS;

/// What a fused expression does, decided once when it is created: the expression's nodes
/// and types, the coalesced iteration space and each operand's strides in it.
///
/// Made from a validated expression's [`ExprOperands`] by [`FusedPlan::new`]; read-only.
///
/// ```
/// use gpu_xor_core::layout::FusedPlan;
/// use gpu_xor_core::{DataType, Expr, FeatureLevel, KernelKind, Operator, TensorDesc, TensorName};
///
/// // A row of masks against a matrix of values: the row is repeated down the matrix.
/// let mut e = Expr::new();
/// let values = e.input(TensorDesc::new(DataType::U32, &[64, 32]));
/// let masks = e.input(TensorDesc::new(DataType::U32, &[32]));
/// let kept = e.apply(Operator::BitAnd, &[values, masks]);
/// let desc = e.output(kept, TensorDesc::new(DataType::U32, &[64, 32]));
/// let plan = FusedPlan::new(&desc.operands(FeatureLevel::default())?);
/// assert_eq!(plan.shape(), &[64, 32]);
/// assert_eq!(plan.strides(TensorName::Input(1)), &[0, 1]);
/// assert_eq!(plan.kernel(), KernelKind::FusedElements);
/// # Ok::<(), gpu_xor_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FusedPlan {
    pub(crate) expr: ExprOperands,
    /// Indexed by `OUT`, then `1 + k` for input `k`.
    pub(crate) layout: Layout<FUSED_OPERANDS>,
    pub(crate) elements: u64,
    pub(crate) kernel: KernelKind,
}

impl FusedPlan {
    /// Lowers the operands of a validated expression: broadcasts become zero strides and
    /// dimensions are coalesced across the output and every input.
    pub fn new(expr: &ExprOperands) -> FusedPlan {
        let sizes = expr.sizes().to_vec();
        // Unused slots repeat the first input, so that they neither keep dimensions apart
        // nor widen a window.
        let strides = std::array::from_fn(|o| {
            let operand = match o {
                OUT => expr.output(),
                o if o <= expr.input_count() => expr.input(o - 1),
                _ => expr.input(0),
            };
            broadcast_strides(operand, &sizes)
        });
        let layout = coalesce(&Layout { sizes, strides });
        let elements = layout.element_count();
        let kernel = if elements == 0 {
            KernelKind::Empty
        } else if expr.reduce().is_some() {
            KernelKind::FusedReduce
        } else if layout.rank() == 1
            && layout.strides[OUT][0] == 1
            && layout.strides.iter().all(|s| s[0] <= 1)
        {
            KernelKind::FusedBlocks
        } else {
            KernelKind::FusedElements
        };
        FusedPlan {
            expr: expr.clone(),
            layout,
            elements,
            kernel,
        }
    }

    /// The expression: its nodes, their types, its operands.
    pub fn expr(&self) -> &ExprOperands {
        &self.expr
    }

    /// The kernel form the layout names: [`KernelKind::FusedBlocks`] where every operand is
    /// dense or one repeated element over one dimension, [`KernelKind::FusedElements`]
    /// otherwise, [`KernelKind::FusedReduce`] for a reduction (whose pieces shaped as
    /// contractions run [`KernelKind::FusedTiled`]), [`KernelKind::Empty`] for an empty
    /// output. A piece whose bindings leave a dense operand off a 4-byte boundary runs the
    /// element form.
    pub fn kernel(&self) -> KernelKind {
        self.kernel
    }

    /// The coalesced sizes the kernel iterates over.
    pub fn shape(&self) -> &[u64] {
        &self.layout.sizes
    }

    /// The element strides over [`FusedPlan::shape`] of the output ([`TensorName::Output`])
    /// or of input `k` ([`TensorName::Input`]); A and B name inputs 0 and 1, and an input the
    /// expression does not have reads as input 0.
    pub fn strides(&self, tensor: TensorName) -> &[u64] {
        &self.layout.strides[self.slot(tensor)]
    }

    /// The number of output elements.
    pub fn element_count(&self) -> u64 {
        self.elements
    }

    /// Each operand's element size: the output's, then each input's (unused slots the first
    /// input's).
    pub(crate) fn widths(&self) -> Widths<FUSED_OPERANDS> {
        Widths(std::array::from_fn(|o| {
            let data_type = match o {
                OUT => self.expr.out_type(),
                o if o <= self.expr.input_count() => self.expr.input_type(o - 1),
                _ => self.expr.input_type(0),
            };
            u64::from(data_type.size_in_bytes())
        }))
    }

    fn slot(&self, tensor: TensorName) -> usize {
        let k = match tensor {
            TensorName::Output => return OUT,
            TensorName::A => 0,
            TensorName::B | TensorName::Search(_) => 1,
            TensorName::Input(k) => usize::from(k),
        };
        if k < self.expr.input_count() {
            1 + k
        } else {
            1
        }
    }
}
