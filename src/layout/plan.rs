//! The plan: what an operator will do, decided once when it is created.

use super::coalesce::coalesce;
use super::{A, B, Layout, OUT};
use crate::desc::DataType;
use crate::error::{Operator, TensorName};

/// The element function the kernels apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElementOp {
    /// `a ^ b` on the raw bits.
    Xor,
    /// `(a != 0) != (b != 0)`, written as 0 or 1 in the element width.
    Logical,
}

/// The kernel family a plan uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum KernelKind {
    /// No elements: nothing is dispatched.
    Empty,
    /// All three operands dense: one invocation per 16 bytes, `vec4<u32>` loads and stores.
    Contiguous,
    /// Rows that are dense in the output and dense or repeated in each input (row
    /// broadcasting, padded rows): a 2-D grid of 16-byte blocks, no index division. Chosen per
    /// piece when every row starts on a 16-byte boundary.
    Rows,
    /// Dense output, strided or broadcast inputs: each invocation owns whole output words and
    /// gathers their lanes.
    Gather,
    /// Two dimensions with a transposed input, 32- or 64-bit elements: 16 x 16 tiles staged
    /// through workgroup memory so that reads and writes both run along memory. Chosen per
    /// piece.
    Tile,
    /// Strided output: each invocation owns one output element; 8- and 16-bit lanes are
    /// written with atomics so that no two invocations race on a word.
    Scatter,
}

/// What the binding of one operand must satisfy, and how it is laid out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct OperandSpec {
    /// Bytes the bound range must hold (TotalTensorSizeInBytes for DirectML).
    pub required_bytes: u64,
    /// Bytes from the binding offset that elements can reach, rounded up to 4.
    pub touched_bytes: u64,
    /// The binding offset must be a multiple of this.
    pub offset_alignment: u64,
    /// The operand's own sizes and element strides (before broadcasting), for the in-place
    /// rule: an output may alias an input only when these are identical.
    pub sizes: Vec<u64>,
    /// See `sizes`.
    pub strides: Vec<u64>,
}

/// What an operator does, decided once when it is created: the element function, the
/// coalesced iteration space, each operand's strides in it, and the kernel family.
///
/// Read-only; useful to check which path a description takes.
///
/// ```
/// use gpu_xor::{BitXorDesc, DataType, FeatureLevel, KernelKind, Plan, TensorDesc};
///
/// // A padded input still coalesces with the packed output into rows.
/// let mut desc = BitXorDesc::packed(DataType::U32, &[4, 8]);
/// desc.a = TensorDesc::new(DataType::U32, &[4, 8]).with_strides(&[16, 1]);
/// let plan = Plan::for_bit_xor(&desc, FeatureLevel::Fl4_1).unwrap();
/// assert_eq!(plan.kernel(), KernelKind::Gather);
/// assert_eq!(plan.shape(), &[4, 8]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub(crate) operator: Operator,
    pub(crate) op: ElementOp,
    pub(crate) data_type: DataType,
    pub(crate) kernel: KernelKind,
    pub(crate) layout: Layout,
    pub(crate) elements: u64,
    /// Indexed by `OUT`, `A`, `B`.
    pub(crate) operands: [OperandSpec; 3],
}

impl Plan {
    /// Builds a plan from a validated iteration space.
    pub(crate) fn new(
        operator: Operator,
        op: ElementOp,
        data_type: DataType,
        sizes: Vec<u64>,
        strides: [Vec<u64>; 3],
        operands: [OperandSpec; 3],
    ) -> Plan {
        let layout = coalesce(&Layout { sizes, strides });
        let elements = layout.element_count();
        let kernel = if elements == 0 {
            KernelKind::Empty
        } else if layout.rank() == 1 && layout.strides.iter().all(|s| s[0] == 1) {
            KernelKind::Contiguous
        } else if layout.is_dense(OUT) {
            KernelKind::Gather
        } else {
            KernelKind::Scatter
        };
        Plan {
            operator,
            op,
            data_type,
            kernel,
            layout,
            elements,
            operands,
        }
    }

    /// The plan of a BIT_XOR description at a feature level.
    pub fn for_bit_xor(
        desc: &crate::BitXorDesc,
        feature_level: crate::FeatureLevel,
    ) -> Result<Plan, crate::Error> {
        desc.plan(feature_level)
    }

    /// The plan of a LOGICAL_XOR description at a feature level.
    pub fn for_logical_xor(
        desc: &crate::LogicalXorDesc,
        feature_level: crate::FeatureLevel,
    ) -> Result<Plan, crate::Error> {
        desc.plan(feature_level)
    }

    /// The plan of a BitwiseXor-13 description.
    pub fn for_bitwise_xor(desc: &crate::BitwiseXorDesc) -> Result<Plan, crate::Error> {
        desc.plan()
    }

    /// The operator.
    pub fn operator(&self) -> Operator {
        self.operator
    }

    /// The element function.
    pub fn element_op(&self) -> ElementOp {
        self.op
    }

    /// The element type.
    pub fn data_type(&self) -> DataType {
        self.data_type
    }

    /// The kernel family. A [`KernelKind::Contiguous`] plan may still record the gather kernel
    /// when its bindings do not start on 16-byte boundaries or leave no room to read whole
    /// 16-byte blocks at the end.
    pub fn kernel(&self) -> KernelKind {
        self.kernel
    }

    /// The coalesced sizes the kernels iterate over.
    pub fn shape(&self) -> &[u64] {
        &self.layout.sizes
    }

    /// One operand's element strides over [`Plan::shape`].
    pub fn strides(&self, tensor: TensorName) -> &[u64] {
        &self.layout.strides[slot(tensor)]
    }

    /// The number of output elements.
    pub fn element_count(&self) -> u64 {
        self.elements
    }

    /// Bytes the binding of `tensor` must hold.
    pub fn required_binding_size(&self, tensor: TensorName) -> u64 {
        self.operands[slot(tensor)].required_bytes
    }

    /// The multiple that the binding offset of `tensor` must be.
    pub fn binding_alignment(&self, tensor: TensorName) -> u64 {
        self.operands[slot(tensor)].offset_alignment
    }
}

pub(crate) fn slot(tensor: TensorName) -> usize {
    match tensor {
        TensorName::Output => OUT,
        TensorName::A => A,
        TensorName::B => B,
    }
}
