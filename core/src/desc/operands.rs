//! The operand description: what a validated operator description hands to layout analysis.

use crate::desc::{DataType, ElementFunction, Operator, TensorName};

/// One operand of a validated description: its own sizes and element strides (before
/// broadcasting), where its dimensions sit among the output's, and what its binding must
/// satisfy.
///
/// Made only by validation (see [`Operands`] for what it guarantees).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Operand {
    /// The operand's own sizes, outermost first.
    pub(crate) sizes: Vec<u64>,
    /// The operand's own element strides, one per size.
    pub(crate) strides: Vec<u64>,
    /// The output dimension that the operand's first dimension lines up with.
    pub(crate) axis: usize,
    /// Bytes the bound range must hold (TotalTensorSizeInBytes for DirectML).
    pub(crate) required_bytes: u64,
    /// Bytes from the binding offset that elements can reach, rounded up to 4.
    pub(crate) touched_bytes: u64,
    /// The binding offset must be a multiple of this.
    pub(crate) offset_alignment: u64,
}

impl Operand {
    /// The operand's own sizes, outermost first. For an OpenVINO input, its shape (which may
    /// be shorter than the output's, or hold 1 where the output does not).
    pub fn sizes(&self) -> &[u64] {
        &self.sizes
    }

    /// The operand's own element strides, one per entry of [`Operand::sizes`]: DirectML's
    /// `Strides` (or the packed ones), packed row-major for OpenVINO. Broadcasting between
    /// shapes is not lowered here: layout analysis gives the dimensions an input lacks or
    /// holds as 1 a stride of 0.
    pub fn strides(&self) -> &[u64] {
        &self.strides
    }

    /// The output dimension that this operand's first dimension lines up with: 0 for the
    /// output and for every DirectML tensor; `rank(output) - rank(input)` under OpenVINO's
    /// `numpy` rule; the resolved `axis` of `pdpd` for B.
    pub fn axis(&self) -> usize {
        self.axis
    }

    /// Bytes the bound range must hold: TotalTensorSizeInBytes for DirectML, the packed size
    /// rounded up to 4 for OpenVINO.
    pub fn required_binding_size(&self) -> u64 {
        self.required_bytes
    }

    /// Bytes from the binding offset that elements can reach, rounded up to 4
    /// (DMLCalcBufferTensorSize for DirectML); at most [`Operand::required_binding_size`].
    pub fn touched_bytes(&self) -> u64 {
        self.touched_bytes
    }

    /// The multiple that the binding offset must be: 16 or the tensor's
    /// GuaranteedBaseOffsetAlignment for DirectML, 4 or the element size for OpenVINO.
    pub fn binding_alignment(&self) -> u64 {
        self.offset_alignment
    }
}

/// The operands of a validated description, wgpu-free: the operator, the element function,
/// the type, and per tensor its [`Operand`]. What layout analysis ([`crate::Plan::new`])
/// takes.
///
/// Only validation makes one (the `operands` method of every description), so every value
/// guarantees:
/// 1. The output's sizes are the index space of the call ([`Operands::sizes`]), its axis is 0.
/// 2. Each input's dimensions fit in the output's from its axis on
///    (`axis + rank(input) <= rank(output)`), and each of its sizes equals the output's size
///    there or is 1 (DirectML: the same rank and sizes as the output, axis 0).
/// 3. The output does not overlap itself: no two of its indices reach one element.
/// 4. Every byte count fits in 64 bits, the output's element count too, and each binding
///    alignment is a power of two.
///
/// ```
/// use gpu_xor_core::{AutoBroadcast, BitwiseXorDesc, DataType, KernelKind, Plan, TensorName};
///
/// let desc = BitwiseXorDesc::new(DataType::I32, &[2, 3, 4, 5], &[3, 1])
///     .with_broadcast(AutoBroadcast::Pdpd { axis: 1 });
/// let operands = desc.operands()?;
/// assert_eq!(operands.sizes(), &[2, 3, 4, 5]);
/// let b = operands.operand(TensorName::B);
/// assert_eq!((b.sizes(), b.strides(), b.axis()), (&[3, 1][..], &[1, 1][..], 1));
/// assert_eq!(b.required_binding_size(), 12);
///
/// // Layout analysis lowers the broadcast to zero strides and merges what it can.
/// let plan = Plan::new(&operands);
/// assert_eq!(plan.shape(), &[2, 3, 20]);
/// assert_eq!(plan.strides(TensorName::B), &[0, 1, 0]);
/// assert_eq!(plan.kernel(), KernelKind::Gather);
/// # Ok::<(), gpu_xor_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Operands {
    pub(crate) operator: Operator,
    pub(crate) function: ElementFunction,
    pub(crate) data_type: DataType,
    /// The output's type: the inputs' but for `BIT_COUNT`.
    pub(crate) out_type: DataType,
    /// Indexed in the order of [`TensorName::ALL`]: A, B, Output. A one-input operator's B
    /// is its A again: the kernels read the input in B's place too and never use the value.
    pub(crate) operands: [Operand; 3],
}

impl Operands {
    /// The operator described.
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

    /// The output's element type: [`Operands::data_type`] but for `BIT_COUNT`, which writes
    /// `UINT8` or `UINT32`.
    pub fn out_type(&self) -> DataType {
        self.out_type
    }

    /// The output's sizes: the index space every operand is read or written over.
    pub fn sizes(&self) -> &[u64] {
        &self.operand(TensorName::Output).sizes
    }

    /// One tensor's operand.
    pub fn operand(&self, tensor: TensorName) -> &Operand {
        &self.operands[match tensor {
            TensorName::A | TensorName::Input(0) => 0,
            TensorName::B | TensorName::Input(_) | TensorName::Search(_) => 1,
            TensorName::Output => 2,
        }]
    }
}
