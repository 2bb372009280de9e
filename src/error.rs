//! The crate's one error type.

use std::fmt;

use crate::desc::{AutoBroadcast, DataType, FeatureLevel};

/// Which operator a description belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Operator {
    /// `DML_OPERATOR_ELEMENT_WISE_BIT_XOR`.
    BitXor,
    /// `DML_OPERATOR_ELEMENT_WISE_LOGICAL_XOR`.
    LogicalXor,
    /// OpenVINO `BitwiseXor-13`.
    BitwiseXor,
}

impl fmt::Display for Operator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Operator::BitXor => "ELEMENT_WISE_BIT_XOR",
            Operator::LogicalXor => "ELEMENT_WISE_LOGICAL_XOR",
            Operator::BitwiseXor => "BitwiseXor-13",
        })
    }
}

/// One of an operator's three tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TensorName {
    /// The first input (`ATensor`, OpenVINO's `arg0`).
    A,
    /// The second input (`BTensor`, OpenVINO's `arg1`).
    B,
    /// The output (`OutputTensor`).
    Output,
}

impl TensorName {
    /// The three, in the order A, B, Output.
    pub const ALL: [TensorName; 3] = [TensorName::A, TensorName::B, TensorName::Output];
}

impl fmt::Display for TensorName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TensorName::A => "ATensor",
            TensorName::B => "BTensor",
            TensorName::Output => "OutputTensor",
        })
    }
}

/// Everything that can go wrong, with the values that broke the rule.
///
/// [`Error::rule`] gives a stable short name for the rule (the `error_kind` of the conformance
/// format where one exists), so that callers can match on it without parsing messages.
/// Validation errors are returned before anything is recorded: when a call returns one of them,
/// no command was recorded and no byte of any buffer changed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    // ----- DirectML descriptor rules -------------------------------------------------------
    /// A, B and Output must have the same DataType (DirectML "Tensor constraints"; a type of
    /// the same width is still a different type).
    #[error(
        "{operator}: {tensor} DataType {} differs from ATensor DataType {} (A, B and Output must have the same DataType)",
        found.directml_name(), expected.directml_name()
    )]
    DataTypeMismatch {
        /// The operator being described.
        operator: Operator,
        /// The tensor whose type differs from A's.
        tensor: TensorName,
        /// Its type.
        found: DataType,
        /// A's type.
        expected: DataType,
    },

    /// The operator does not take this type at this feature level ("Tensor support").
    #[error(
        "{operator} does not support {} at {feature_level}{}",
        data_type.directml_name(),
        match required { Some(l) => format!(" (it needs {l})"), None => " or any other feature level".to_string() }
    )]
    UnsupportedDataType {
        /// The operator being described.
        operator: Operator,
        /// The refused type.
        data_type: DataType,
        /// The level the call was made at.
        feature_level: FeatureLevel,
        /// The lowest level that accepts this type, if one does.
        required: Option<FeatureLevel>,
    },

    /// DimensionCount outside what the operator takes (1 to 8; exactly 4 for LOGICAL_XOR
    /// below feature level 3.0).
    #[error(
        "{operator}: {tensor} DimensionCount {rank} is outside {min}..={max} at {feature_level}{}",
        match required { Some(l) => format!(" (it needs {l})"), None => String::new() }
    )]
    RankOutOfRange {
        /// The operator being described.
        operator: Operator,
        /// The offending tensor.
        tensor: TensorName,
        /// Its DimensionCount.
        rank: usize,
        /// The smallest allowed count.
        min: usize,
        /// The largest allowed count.
        max: usize,
        /// The level the call was made at.
        feature_level: FeatureLevel,
        /// The lowest level that accepts this count, if one does.
        required: Option<FeatureLevel>,
    },

    /// A, B and Output must have the same DimensionCount (no implicit rank extension).
    #[error(
        "{operator}: {tensor} DimensionCount {rank} differs from ATensor DimensionCount {expected}"
    )]
    RankMismatch {
        /// The operator being described.
        operator: Operator,
        /// The tensor whose rank differs from A's.
        tensor: TensorName,
        /// Its rank.
        rank: usize,
        /// A's rank.
        expected: usize,
    },

    /// A, B and Output must have identical Sizes (DirectML never broadcasts implicitly).
    #[error(
        "{operator}: {tensor} Sizes {} differ from ATensor Sizes {}",
        Dims(sizes),
        Dims(expected)
    )]
    SizesMismatch {
        /// The operator being described.
        operator: Operator,
        /// The tensor whose sizes differ from A's.
        tensor: TensorName,
        /// Its sizes.
        sizes: Vec<u32>,
        /// A's sizes.
        expected: Vec<u32>,
    },

    /// Every size must be at least 1 ("a size of zero in any dimension is invalid").
    #[error("{tensor} Sizes {} contain a zero", Dims(sizes))]
    ZeroSize {
        /// The offending tensor.
        tensor: TensorName,
        /// Its sizes.
        sizes: Vec<u32>,
    },

    /// A DirectML tensor may not exceed 2^32 - 1 elements.
    #[error("{tensor} has {elements} elements, more than 2^32 - 1")]
    TooManyElements {
        /// The offending tensor.
        tensor: TensorName,
        /// Its element count, saturated at `u128::MAX`.
        elements: u128,
    },

    /// Strides, when given, have exactly one entry per dimension.
    #[error("{tensor} has {strides} strides for {rank} dimensions")]
    StridesLengthMismatch {
        /// The offending tensor.
        tensor: TensorName,
        /// The number of strides given.
        strides: usize,
        /// Its DimensionCount.
        rank: usize,
    },

    /// TotalTensorSizeInBytes is below DMLCalcBufferTensorSize.
    #[error("{tensor} TotalTensorSizeInBytes {total} < DMLCalcBufferTensorSize {minimum}")]
    TotalSizeTooSmall {
        /// The offending tensor.
        tensor: TensorName,
        /// The TotalTensorSizeInBytes given.
        total: u64,
        /// The minimum implied size.
        minimum: u64,
    },

    /// GuaranteedBaseOffsetAlignment must be 0 or a power of two at least the element size.
    #[error(
        "{tensor} GuaranteedBaseOffsetAlignment {alignment} is not 0 or a power of two >= the element size {element_size}"
    )]
    InvalidAlignment {
        /// The offending tensor.
        tensor: TensorName,
        /// The alignment given.
        alignment: u32,
        /// The element size of its type.
        element_size: u32,
    },

    /// DML_TENSOR_FLAG_OWNED_BY_DML "can only be used on input tensors".
    #[error("DML_TENSOR_FLAG_OWNED_BY_DML is set on the OutputTensor; it is for inputs only")]
    OwnedByDmlOnOutput,

    /// Initializer-owned inputs (DML_TENSOR_FLAG_OWNED_BY_DML) have no counterpart here: every
    /// tensor is bound when the operator is recorded.
    #[error(
        "{tensor} has DML_TENSOR_FLAG_OWNED_BY_DML: initializer-owned tensors are not supported; bind the data when recording"
    )]
    OwnedByDmlUnsupported {
        /// The flagged input.
        tensor: TensorName,
    },

    /// The output may not overlap itself: writes would race (library policy).
    #[error(
        "OutputTensor Strides {} with Sizes {} reach one element from two indices (writes would race)",
        Dims(strides),
        Dims(sizes)
    )]
    OutputOverlap {
        /// The output's sizes.
        sizes: Vec<u32>,
        /// The output's strides.
        strides: Vec<u32>,
    },

    /// Whether the output overlaps itself was not decided within the search's step limit
    /// (library policy: an output is accepted only when it provably does not overlap
    /// itself). The exact check drops and rewrites dimensions first and decides most
    /// interleaved layouts without searching; what is left is searched for at most `steps`
    /// steps, so that validation takes bounded time.
    #[error(
        "OutputTensor Strides {} with Sizes {}: whether two indices reach one element was not decided within {steps} search steps (an output must provably not overlap itself)",
        Dims(strides),
        Dims(sizes)
    )]
    OutputOverlapUndecided {
        /// The output's sizes.
        sizes: Vec<u32>,
        /// The output's strides.
        strides: Vec<u32>,
        /// The search's step limit.
        steps: u64,
    },

    // ----- OpenVINO rules ----------------------------------------------------------------
    /// OpenVINO: "Arguments do not have the same element type".
    #[error(
        "Arguments do not have the same element type (arg0 element type: {}, arg1 element type: {}).",
        a.openvino_name(), b.openvino_name()
    )]
    ElementTypeMismatch {
        /// arg0's type.
        a: DataType,
        /// arg1's type.
        b: DataType,
    },

    /// OpenVINO: "The element type of the input tensor must be integer or boolean."
    #[error(
        "The element type of the input tensor must be integer or boolean. (got {})",
        data_type.openvino_name()
    )]
    NotIntegerOrBoolean {
        /// The refused type.
        data_type: DataType,
    },

    /// OpenVINO: "Argument shapes are inconsistent."
    #[error(
        "Argument shapes are inconsistent. ({} and {} under auto_broadcast {broadcast}: {reason})",
        Shape(a),
        Shape(b)
    )]
    ShapeInconsistent {
        /// arg0's shape.
        a: Vec<usize>,
        /// arg1's shape.
        b: Vec<usize>,
        /// The broadcast rule applied.
        broadcast: AutoBroadcast,
        /// Which part of the rule failed.
        reason: &'static str,
    },

    /// OpenVINO: "Unsupported auto broadcast specification".
    #[error(
        "Unsupported auto broadcast specification: {broadcast} (BitwiseXor takes none, numpy or pdpd)"
    )]
    UnsupportedBroadcast {
        /// The refused broadcast.
        broadcast: AutoBroadcast,
    },

    // ----- Binding rules -----------------------------------------------------------------
    /// A binding offset must be a multiple of 16 (DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT) and of
    /// the tensor's GuaranteedBaseOffsetAlignment; for BitwiseXor, of 4 and the element size.
    #[error("{tensor} binding offset {offset} is not a multiple of {required}")]
    BindingOffsetMisaligned {
        /// The tensor bound.
        tensor: TensorName,
        /// The offset given.
        offset: u64,
        /// The alignment it must have.
        required: u64,
    },

    /// The bound range runs past the end of the buffer.
    #[error(
        "{tensor} binding [{offset}, {offset} + {size}) runs past the end of its {buffer_size}-byte buffer"
    )]
    BindingOutOfBounds {
        /// The tensor bound.
        tensor: TensorName,
        /// The offset given.
        offset: u64,
        /// The size given (or implied).
        size: u64,
        /// The buffer's size.
        buffer_size: u64,
    },

    /// The bound range is smaller than the tensor (TotalTensorSizeInBytes for DirectML).
    #[error("{tensor} binding holds {size} bytes; the tensor needs {required}")]
    BindingTooSmall {
        /// The tensor bound.
        tensor: TensorName,
        /// The size of the bound range.
        size: u64,
        /// The bytes the tensor needs.
        required: u64,
    },

    /// A buffer lacks a usage the call needs (`STORAGE` to bind a tensor, `COPY_SRC` to read
    /// one back).
    #[error("{} buffer lacks wgpu::BufferUsages::{needed} (it has {usage})", match tensor { Some(t) => t.to_string(), None => "the".to_string() })]
    MissingUsage {
        /// The tensor bound, if the buffer is bound as one.
        tensor: Option<TensorName>,
        /// The usage needed.
        needed: &'static str,
        /// The buffer's usages.
        usage: String,
    },

    /// In-place execution needs the input and the output to have the same Sizes, Strides,
    /// TotalTensorSizeInBytes and binding offset (DirectML's binding rules).
    #[error(
        "{tensor} is bound to the OutputTensor's range but its {field} differs; in-place execution needs identical sizes, strides, total size and offset"
    )]
    AliasDescMismatch {
        /// The aliased input.
        tensor: TensorName,
        /// The field that differs.
        field: &'static str,
    },

    /// An input's range partly overlaps the output's range in the same buffer.
    #[error(
        "{tensor} range [{}, {}) partly overlaps the OutputTensor range [{}, {}) of the same buffer",
        input.0, input.1, output.0, output.1
    )]
    PartialOverlap {
        /// The overlapping input.
        tensor: TensorName,
        /// The input's byte range.
        input: (u64, u64),
        /// The output's byte range.
        output: (u64, u64),
    },

    /// A binding window cannot hold what one piece of a call reads through it. Operands of one
    /// buffer that lie far apart are given bindings of their own first, so this is left only
    /// for a window too small for single elements.
    #[error(
        "a piece of the call needs {span} bytes in one binding, more than a window ({limit} bytes) holds"
    )]
    SharedBufferSpanTooLarge {
        /// The bytes one binding would have to cover.
        span: u64,
        /// The largest binding allowed.
        limit: u64,
    },

    /// A read-back range runs past the last whole word of the buffer (copies move 4-byte
    /// words and may not pass the buffer's declared size).
    #[error(
        "cannot read [{offset}, {offset} + {size}): only the first {readable} bytes can be copied"
    )]
    ReadOutOfBounds {
        /// The offset asked for.
        offset: u64,
        /// The size asked for.
        size: u64,
        /// Bytes a copy can reach.
        readable: u64,
    },

    /// An operator was pushed into a batch of another context.
    #[error("the operator was compiled on another Context than the batch's")]
    ContextMismatch,

    // ----- Host data -----------------------------------------------------------------------
    /// Host data does not have the length the shape implies.
    #[error("expected {expected} elements for shape {}, got {found}", Shape(shape))]
    DataLength {
        /// The shape given.
        shape: Vec<usize>,
        /// The element count the shape implies.
        expected: usize,
        /// The element count given.
        found: usize,
    },

    /// A tensor was read or written as a type other than its own.
    #[error("the tensor holds {actual}, not {requested}")]
    TensorTypeMismatch {
        /// The tensor's type.
        actual: DataType,
        /// The type asked for.
        requested: DataType,
    },

    /// A size does not fit the type that must hold it (a shape too large for the device or
    /// for a DirectML `UINT` size).
    #[error("{what} {value} is too large")]
    SizeOverflow {
        /// What overflowed.
        what: &'static str,
        /// Its value, saturated at `u128::MAX`.
        value: u128,
    },

    /// A buffer would exceed the device's `max_buffer_size`.
    #[error("a {bytes}-byte buffer exceeds the device's max_buffer_size of {limit} bytes")]
    BufferTooLarge {
        /// The size asked for.
        bytes: u64,
        /// The device's limit.
        limit: u64,
    },

    /// The device could not allocate a buffer.
    #[error("buffer allocation failed: {0}")]
    Allocation(String),

    // ----- Device and execution ---------------------------------------------------------------
    /// No adapter could be found or opened.
    #[error("no GPU adapter: {0}")]
    NoAdapter(String),

    /// The adapter refused to open a device.
    #[error("request_device failed: {0}")]
    RequestDevice(String),

    /// A pipeline failed to compile on this device.
    #[error("pipeline creation failed: {0}")]
    Pipeline(String),

    /// Waiting for the device failed (device lost, timeout).
    #[error("device poll failed: {0}")]
    Poll(String),

    /// Mapping a read-back buffer failed.
    #[error("buffer mapping failed: {0}")]
    Map(String),

    /// The device is lost or was destroyed (`wgpu::Device::destroy`, a driver reset, a
    /// browser that took the GPU back). Nothing more runs on it: make a new [`crate::Context`]
    /// on a new device.
    #[error("the device is lost: {0}")]
    DeviceLost(String),

    /// A buffer the call uses cannot be used: it was destroyed (`wgpu::Buffer::destroy`), it
    /// is mapped, or it belongs to another device.
    #[error("{} buffer cannot be used: {reason}", match tensor { Some(t) => format!("the {t}"), None => "the".to_string() })]
    InvalidBuffer {
        /// The tensor bound to it, when the call binds it as one.
        tensor: Option<TensorName>,
        /// Why, in wgpu's words.
        reason: String,
    },

    /// wgpu refused a call for a reason this crate could not attribute to the device or to one
    /// of the buffers (see the caller's duties on [`crate::TensorBinding`]).
    #[error("wgpu refused {call}: {message}")]
    Wgpu {
        /// The wgpu call refused.
        call: &'static str,
        /// wgpu's message.
        message: String,
    },

    /// A setting of [`crate::ContextOptions`] or an environment variable is invalid.
    #[error("invalid option {name}: {reason}")]
    InvalidOption {
        /// The setting.
        name: &'static str,
        /// What is wrong with it.
        reason: String,
    },
}

impl Error {
    /// A stable short name of the rule that failed.
    ///
    /// For the rules of the conformance format this is its `error_kind` (`dtype_mismatch`,
    /// `unsupported_dtype`, `shape_mismatch`, `rank_mismatch`, `rank_out_of_range`,
    /// `zero_size_dim`, `strides_length_mismatch`, `total_bytes_too_small`,
    /// `invalid_alignment`, `binding_offset_misaligned`, `owned_by_dml_on_output`,
    /// `output_overlap`, `alias_desc_mismatch`, `too_many_elements`, `shape_inconsistent`,
    /// `unsupported_broadcast`); the others have names of the same style.
    pub fn rule(&self) -> &'static str {
        match self {
            Error::DataTypeMismatch { .. } | Error::ElementTypeMismatch { .. } => "dtype_mismatch",
            Error::UnsupportedDataType { .. } | Error::NotIntegerOrBoolean { .. } => {
                "unsupported_dtype"
            }
            Error::RankOutOfRange { .. } => "rank_out_of_range",
            Error::RankMismatch { .. } => "rank_mismatch",
            Error::SizesMismatch { .. } => "shape_mismatch",
            Error::ZeroSize { .. } => "zero_size_dim",
            Error::TooManyElements { .. } => "too_many_elements",
            Error::StridesLengthMismatch { .. } => "strides_length_mismatch",
            Error::TotalSizeTooSmall { .. } => "total_bytes_too_small",
            Error::InvalidAlignment { .. } => "invalid_alignment",
            Error::OwnedByDmlOnOutput => "owned_by_dml_on_output",
            Error::OwnedByDmlUnsupported { .. } => "owned_by_dml_unsupported",
            Error::OutputOverlap { .. } => "output_overlap",
            Error::OutputOverlapUndecided { .. } => "output_overlap_undecided",
            Error::ShapeInconsistent { .. } => "shape_inconsistent",
            Error::UnsupportedBroadcast { .. } => "unsupported_broadcast",
            Error::BindingOffsetMisaligned { .. } => "binding_offset_misaligned",
            Error::BindingOutOfBounds { .. } => "binding_out_of_bounds",
            Error::BindingTooSmall { .. } => "binding_too_small",
            Error::MissingUsage { .. } => "missing_usage",
            Error::AliasDescMismatch { .. } => "alias_desc_mismatch",
            Error::PartialOverlap { .. } => "partial_overlap",
            Error::SharedBufferSpanTooLarge { .. } => "shared_buffer_span_too_large",
            Error::ReadOutOfBounds { .. } => "read_out_of_bounds",
            Error::ContextMismatch => "context_mismatch",
            Error::DataLength { .. } => "data_length",
            Error::TensorTypeMismatch { .. } => "tensor_type_mismatch",
            Error::SizeOverflow { .. } => "size_overflow",
            Error::BufferTooLarge { .. } => "buffer_too_large",
            Error::Allocation(_) => "allocation",
            Error::NoAdapter(_) => "no_adapter",
            Error::RequestDevice(_) => "request_device",
            Error::Pipeline(_) => "pipeline",
            Error::Poll(_) => "poll",
            Error::Map(_) => "map",
            Error::DeviceLost(_) => "device_lost",
            Error::InvalidBuffer { .. } => "invalid_buffer",
            Error::Wgpu { .. } => "wgpu",
            Error::InvalidOption { .. } => "invalid_option",
        }
    }
}

/// `{2,3}`, DirectML's way of writing Sizes and Strides.
struct Dims<'a>(&'a [u32]);

impl fmt::Display for Dims<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("}")
    }
}

/// `[2,3]`, OpenVINO's way of writing a shape.
struct Shape<'a>(&'a [usize]);

impl fmt::Display for Shape<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_rule_and_the_values() {
        let e = Error::SizesMismatch {
            operator: Operator::BitXor,
            tensor: TensorName::Output,
            sizes: vec![2, 4],
            expected: vec![2, 3],
        };
        assert_eq!(
            e.to_string(),
            "ELEMENT_WISE_BIT_XOR: OutputTensor Sizes {2,4} differ from ATensor Sizes {2,3}"
        );
        assert_eq!(e.rule(), "shape_mismatch");

        let e = Error::ShapeInconsistent {
            a: vec![3],
            b: vec![4],
            broadcast: AutoBroadcast::Numpy,
            reason: "3 against 4",
        };
        assert!(
            e.to_string()
                .starts_with("Argument shapes are inconsistent.")
        );

        let e = Error::UnsupportedDataType {
            operator: Operator::LogicalXor,
            data_type: DataType::U8,
            feature_level: FeatureLevel::Fl1_0,
            required: Some(FeatureLevel::Fl2_0),
        };
        assert_eq!(
            e.to_string(),
            "ELEMENT_WISE_LOGICAL_XOR does not support UINT8 at DML_FEATURE_LEVEL_1_0 (it needs DML_FEATURE_LEVEL_2_0)"
        );
    }
}
