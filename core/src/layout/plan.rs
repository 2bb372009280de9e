//! The plan: what an operator will do, decided once when it is created.

use super::broadcast::broadcast_strides;
use super::coalesce::coalesce;
use super::{A, B, Layout, OUT, Widths};
#[allow(deprecated)]
use crate::desc::{DataType, ElementFunction, Operand, Operands, Operator, TensorName};

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
    /// Rows dense in the output and dense or repeated in each input at any byte offset
    /// (padded rows whose pitch is not a multiple of 16 bytes, a slice of a wider tensor,
    /// operands off a 16-byte boundary; a rank-1 call is one row): 16-byte output blocks,
    /// inputs read as whole blocks and shifted into place. Only the first and last word of a
    /// row are written through a mask; a word two rows share is written once, by the later
    /// row. Chosen per piece where the rows kernel's alignment does not hold.
    ShiftedRows,
    /// Dense output, strided or broadcast inputs: each invocation owns whole output words and
    /// gathers their lanes.
    Gather,
    /// Two dimensions with a transposed input (a transposed output is reordered into one):
    /// 32- and 64-bit elements in 32 x 32 tiles staged through workgroup memory, so that reads
    /// and writes both run along memory; 8- and 16-bit ones in blocks of 4 x 4 or 2 x 2
    /// elements transposed in registers, whole words read and written, where the output's
    /// rows hold whole words. Chosen per piece.
    Tile,
    /// The tile kernel's transposes, every width, where every block of 16 bytes they touch is
    /// whole and aligned (rows and columns multiples of the elements a block holds, operands
    /// on 16-byte boundaries, a staged input's columns dense along the rows): tiles of 64 rows
    /// by 64 words through workgroup memory, every global load and store a 16-byte block, four
    /// per invocation. Chosen per piece.
    BlockTile,
    /// Strided output: each invocation starts from one output element. 8- and 16-bit elements
    /// that share words are written by the word's owner, the invocation of its first element,
    /// which gathers the word's other lanes; no atomics. Runs on pieces whose output is nested
    /// (addresses rising with the index); others are cut into such pieces first.
    Scatter,
    /// Strided output whose elements never share a word (32- and 64-bit elements, or 8- and
    /// 16-bit ones at least 4 bytes apart, such as one channel of interleaved data): the
    /// scatter kernel with plain stores, each lane through a mask, no atomics. Chosen per
    /// piece.
    Spaced,
    /// A fused expression ([`crate::ExprDesc`]) over one dimension where every operand is
    /// dense or one repeated element: each invocation a block of elements, 16 bytes of the
    /// widest operand, read and written as whole words, the expression evaluated word by
    /// word where its functions allow. Its kernel is generated from the expression.
    FusedBlocks,
    /// A fused expression over any layout: each invocation one output element, its inputs'
    /// elements found by unravelling its index; 8- and 16-bit outputs whose elements share
    /// words are written word by word by each word's owner, as [`KernelKind::Scatter`]
    /// writes them. Its kernel is generated from the expression.
    FusedElements,
    /// A reduced fused expression ([`crate::ExprDesc::reduce`]): each invocation one output
    /// element, the expression evaluated over every element of the reduced axes and combined
    /// in registers, the output written once (8- and 16-bit outputs word by word by each
    /// word's owner). Its kernel is generated from the expression.
    FusedReduce,
    /// A reduced fused expression shaped as a contraction: one reduced dimension after the
    /// output's rows and columns (and at most one batch dimension before them), every input
    /// constant along the rows or along the columns (queries against codes), a 32- or 64-bit
    /// output. Tiles of 64 rows by 64 columns, each invocation combining 4 x 4 outputs in
    /// registers; under the rule for GPUs each workgroup stages 8 reduced elements of the
    /// tile's rows of every input in workgroup memory at a time, so an input's element is
    /// read from memory once per tile, not once per output; under the rule for CPU adapters
    /// each invocation reads its rows' elements itself, with no barrier. Chosen per piece
    /// where the rows and the columns both number at least 8; the other reductions run
    /// [`KernelKind::FusedReduce`].
    FusedTiled,
}

impl KernelKind {
    /// Every kernel that dispatches work (all but [`KernelKind::Empty`]), in declaration
    /// order: what a test that must reach every kernel iterates.
    pub const DISPATCHING: [KernelKind; 8] = [
        KernelKind::Contiguous,
        KernelKind::Rows,
        KernelKind::ShiftedRows,
        KernelKind::Gather,
        KernelKind::Tile,
        KernelKind::BlockTile,
        KernelKind::Scatter,
        KernelKind::Spaced,
    ];
}

/// What an operator does, decided once when it is created: the element function, the
/// coalesced iteration space, each operand's strides in it, and the kernel family.
///
/// Made from a validated description's [`Operands`] by [`Plan::new`]; read-only; useful to
/// check which path a description takes.
///
/// ```
/// use gpu_xor_core::{BitXorDesc, DataType, FeatureLevel, KernelKind, Plan, TensorDesc};
///
/// // A padded input still coalesces with the packed output into rows.
/// let mut desc = BitXorDesc::packed(DataType::U32, &[4, 8]);
/// desc.a = TensorDesc::new(DataType::U32, &[4, 8]).with_strides(&[16, 1]);
/// let plan = Plan::new(&desc.operands(FeatureLevel::Fl4_1)?);
/// assert_eq!(plan.kernel(), KernelKind::Gather);
/// assert_eq!(plan.shape(), &[4, 8]);
/// # Ok::<(), gpu_xor_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub(crate) operator: Operator,
    pub(crate) function: ElementFunction,
    pub(crate) data_type: DataType,
    pub(crate) out_type: DataType,
    pub(crate) kernel: KernelKind,
    pub(crate) layout: Layout,
    pub(crate) elements: u64,
    /// Indexed by `OUT`, `A`, `B`.
    pub(crate) operands: [Operand; 3],
}

impl Plan {
    /// Lowers the operands of a validated description: broadcasts become zero strides,
    /// dimensions are coalesced, and the kernel family is chosen.
    pub fn new(operands: &Operands) -> Plan {
        let sizes = operands.sizes().to_vec();
        let strides = SLOTS.map(|t| broadcast_strides(operands.operand(t), &sizes));
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
            operator: operands.operator(),
            function: operands.function(),
            data_type: operands.data_type(),
            out_type: operands.out_type(),
            kernel,
            layout,
            elements,
            operands: SLOTS.map(|t| operands.operand(t).clone()),
        }
    }

    /// The operator.
    pub fn operator(&self) -> Operator {
        self.operator
    }

    /// The element function.
    pub fn function(&self) -> ElementFunction {
        self.function
    }

    /// The inputs' element type.
    pub fn data_type(&self) -> DataType {
        self.data_type
    }

    /// The output's element type: [`Plan::data_type`] but for `BIT_COUNT`.
    pub fn out_type(&self) -> DataType {
        self.out_type
    }

    /// Each operand's element size, indexed by `OUT`, `A`, `B`.
    pub(crate) fn widths(&self) -> Widths {
        let (i, o) = (
            u64::from(self.data_type.size_in_bytes()),
            u64::from(self.out_type.size_in_bytes()),
        );
        Widths([o, i, i])
    }

    /// The kernel family the layout names. Each piece of a call may still record another one
    /// that its bindings and shape allow ([`RecordSummary::dispatches`] says which ran): a
    /// [`KernelKind::Contiguous`] plan whose bindings do not start on 16-byte boundaries, or
    /// leave no room to read whole 16-byte blocks at the end, runs the shifted-rows kernel
    /// (the gather kernel under 64 bytes); gather and scatter plans run the rows,
    /// shifted-rows, tile or spaced kernels where those apply.
    ///
    /// [`RecordSummary::dispatches`]: crate::RecordSummary::dispatches
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

    /// One operand's description, as validation handed it out: its sizes and strides before
    /// layout analysis, and the bytes a binding of it needs.
    pub fn operand(&self, tensor: TensorName) -> &Operand {
        &self.operands[slot(tensor)]
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

/// The tensors in slot order: [`OUT`], [`A`], [`B`].
const SLOTS: [TensorName; 3] = [TensorName::Output, TensorName::A, TensorName::B];

/// The slot of `tensor`, the inverse of `SLOTS`.
pub fn slot(tensor: TensorName) -> usize {
    match tensor {
        TensorName::Output => OUT,
        TensorName::A | TensorName::Input(0) => A,
        TensorName::B | TensorName::Input(_) | TensorName::Search(_) => B,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::desc::packed_strides;

    /// A packed operand of these sizes whose first dimension lines up with output dimension
    /// `axis`.
    fn operand(sizes: &[u64], axis: usize) -> Operand {
        let bytes = if sizes.contains(&0) {
            0
        } else {
            sizes.iter().product::<u64>() * 4
        };
        Operand {
            sizes: sizes.to_vec(),
            strides: packed_strides(sizes),
            axis,
            required_bytes: bytes,
            touched_bytes: bytes,
            offset_alignment: 4,
        }
    }

    fn operands(out: &[u64], a: Operand, b: Operand) -> Operands {
        Operands {
            operator: Operator::BitwiseXor,
            function: ElementFunction::bitwise(crate::desc::BitFunction::Xor),
            data_type: DataType::U32,
            out_type: DataType::U32,
            operands: [a, b, operand(out, 0)],
        }
    }

    #[test]
    fn empty_outputs_plan_to_nothing_whatever_their_other_dimensions() {
        let out = [3, 1, 4, 7120310469467933835, 1, 0];
        let plan = Plan::new(&operands(&out, operand(&out, 0), operand(&[], 6)));
        assert_eq!(plan.element_count(), 0);
        assert_eq!(plan.kernel(), KernelKind::Empty);
        assert_eq!(plan.required_binding_size(TensorName::Output), 0);
        assert_eq!(plan.required_binding_size(TensorName::A), 0);
        assert_eq!(plan.required_binding_size(TensorName::B), 4);
        let plan = Plan::new(&operands(
            &[u64::MAX, u64::MAX, 0],
            operand(&[u64::MAX, u64::MAX, 0], 0),
            operand(&[1], 2),
        ));
        assert_eq!(plan.kernel(), KernelKind::Empty);
    }

    #[test]
    fn broadcasts_lower_to_zero_strides_before_coalescing() {
        // A scalar B folds with the packed A and output into one dimension.
        let plan = Plan::new(&operands(&[2, 3], operand(&[2, 3], 0), operand(&[], 2)));
        assert_eq!(plan.shape(), &[6]);
        assert_eq!(plan.strides(TensorName::B), &[0]);
        assert_eq!(plan.kernel(), KernelKind::Gather);
        // Row broadcasting keeps two dimensions.
        let plan = Plan::new(&operands(&[4, 8], operand(&[4, 8], 0), operand(&[8], 1)));
        assert_eq!(plan.shape(), &[4, 8]);
        assert_eq!(plan.strides(TensorName::B), &[0, 1]);
        // Column broadcasting: [4, 1] against [4, 8].
        let plan = Plan::new(&operands(&[4, 8], operand(&[4, 8], 0), operand(&[4, 1], 0)));
        assert_eq!(plan.strides(TensorName::B), &[1, 0]);
        // No broadcast: one contiguous dimension, and the operands kept in slot order.
        let ops = operands(&[4, 8], operand(&[4, 8], 0), operand(&[4, 8], 0));
        let plan = Plan::new(&ops);
        assert_eq!(plan.kernel(), KernelKind::Contiguous);
        for t in TensorName::ALL {
            assert_eq!(&plan.operands[slot(t)], ops.operand(t));
        }
    }

    #[test]
    fn a_strided_output_scatters() {
        let mut ops = operands(&[4, 8], operand(&[4, 8], 0), operand(&[4, 8], 0));
        ops.operands[2].strides = vec![16, 1];
        assert_eq!(Plan::new(&ops).kernel(), KernelKind::Scatter);
    }
}
