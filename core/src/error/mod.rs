//! The crate's one error type, [`Error`]; the rule each error broke, [`ErrorKind`]; and what
//! that rule is about, [`ErrorCategory`].
//!
//! # One table
//!
//! [`Error`] and [`ErrorKind`] are declared together, in one table in this file. A row per
//! variant of [`Error`] gives its docs, its message (`#[error(...)]`), its fields, and after
//! `=>` its kind; a row per kind gives its docs, its stable name ([`ErrorKind::rule`]) and its
//! category:
//!
//! ```text
//! pub enum Error {
//!     ...
//!     /// Every size must be at least 1 ("a size of zero in any dimension is invalid").
//!     #[error("{tensor} Sizes {} contain a zero", Dims(sizes))]
//!     ZeroSize {
//!         /// The offending tensor.
//!         tensor: TensorName,
//!         /// Its sizes.
//!         sizes: Vec<u32>,
//!     } => ZeroSizeDim,
//!     ...
//! }
//!
//! pub enum ErrorKind {
//!     ...
//!     /// [`Error::ZeroSize`].
//!     ZeroSizeDim => "zero_size_dim", Description,
//!     ...
//! }
//! ```
//!
//! From it come the enum [`Error`], [`Error::kind`], the enum [`ErrorKind`] with
//! [`ErrorKind::ALL`], [`ErrorKind::rule`], its `Display` (the rule's name) and
//! [`ErrorKind::category`]. A new rule is one variant row, and one kind row where its kind is
//! new. A variant that names a kind with no row does not compile, nor does a kind row without a
//! category; the tests catch a kind that no variant names.
//!
//! # Kinds
//!
//! An [`ErrorKind`] is the rule without its values, to match on; [`Error::rule`] is its name,
//! stable across releases (the `error_kind` of the conformance format where one exists).
//! Several variants share a kind where DirectML and OpenVINO state one rule in their own words:
//! [`Error::DataTypeMismatch`] and [`Error::ElementTypeMismatch`] are both
//! [`ErrorKind::DtypeMismatch`]; [`Error::UnsupportedDataType`],
//! [`Error::NotIntegerOrBoolean`], [`Error::NotInteger`] and [`Error::NotBoolean`] are all
//! [`ErrorKind::UnsupportedDtype`].
//!
//! # Categories
//!
//! Each kind belongs to one [`ErrorCategory`], which says where the fix lies:
//!
//! - [`ErrorCategory::Description`]: the operator's or a tensor's description (types, ranks,
//!   sizes, strides, alignment, broadcasts, flags, an output that overlaps itself);
//! - [`ErrorCategory::Binding`]: a call's bindings (offsets, ranges, usages, in-place aliasing,
//!   owned inputs, a binding too many or too few, a shared buffer's span, another context);
//! - [`ErrorCategory::HostData`]: data on the host side (a slice's length, a tensor read as
//!   another type, a read-back or a view past its buffer, a strided view where a dense tensor is
//!   needed, a size past what its type holds, host memory that cannot be had);
//! - [`ErrorCategory::Device`]: the device or wgpu (no adapter, a refused device or pipeline, a
//!   failed poll or map, a lost device, an unusable buffer, a buffer the device cannot hold or
//!   allocate, any other refusal of wgpu);
//! - [`ErrorCategory::Options`]: a setting of the context or of the environment.
//!
//! [`Error::category`] gives it, so that a caller can handle whole groups of rules without
//! naming each kind (both enums are `#[non_exhaustive]`: new kinds and categories may come):
//!
//! ```
//! use gpu_xor_core::reference::ov_unary;
//! use gpu_xor_core::{
//!     BitXorDesc, DataType, Error, ErrorCategory, ErrorKind, FeatureLevel, OvUnaryOp,
//! };
//!
//! fn advice(err: &Error) -> &'static str {
//!     match err.category() {
//!         ErrorCategory::Description => "fix the operator's description",
//!         ErrorCategory::Binding => "fix the call's bindings",
//!         ErrorCategory::HostData => "fix the data given",
//!         ErrorCategory::Device => "try again, or on another device",
//!         _ => "see the message",
//!     }
//! }
//!
//! let err = BitXorDesc::packed(DataType::U8, &[3, 0])
//!     .validate(FeatureLevel::Fl4_1)
//!     .unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::ZeroSizeDim);
//! assert_eq!(advice(&err), "fix the operator's description");
//!
//! // Three bytes for a shape of four elements.
//! let err = ov_unary(OvUnaryOp::BitwiseNot, DataType::U8, &[4], &[1, 2, 3]).unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::DataLength);
//! assert_eq!(err.category(), ErrorCategory::HostData);
//! assert_eq!(err.category(), err.kind().category());
//! assert_eq!(err.category().to_string(), "host_data");
//! assert_eq!(advice(&err), "fix the data given");
//! ```

use std::fmt;
use std::sync::Arc;

use crate::desc::{AutoBroadcast, DataType, FeatureLevel, ReduceOp};
// The vocabulary lives with the descriptions; these paths stay for the execution layer.
use crate::desc::{Operator, TensorName};

/// An error that wgpu (or the device beneath it) reported, kept whole.
///
/// `Display` gives wgpu's message on one line; [`std::error::Error::source`] and
/// [`WgpuError::downcast_ref`] give wgpu's own error (`wgpu::Error`, `wgpu::PollError`,
/// `wgpu::BufferAsyncError`, `wgpu::RequestDeviceError`) to match on. A few failures that wgpu
/// reports with no error value (a map whose callback never ran) have only the message.
/// Cheap to clone; two are equal when their messages are.
///
/// ```
/// use gpu_xor_core::{Error, WgpuError};
///
/// // What `gpu-xor` makes of a call wgpu refused (there the source is a `wgpu::Error`).
/// let e = Error::Wgpu { call: "Queue::submit", source: WgpuError::new(std::io::Error::other("refused")) };
/// if let Error::Wgpu { source, .. } = &e {
///     assert!(source.downcast_ref::<std::io::Error>().is_some());
///     assert_eq!(source.message(), "refused");
/// }
/// ```
#[derive(Clone)]
pub struct WgpuError {
    message: String,
    source: Option<Arc<Source>>,
}

#[cfg(not(target_arch = "wasm32"))]
type Source = dyn std::error::Error + Send + Sync + 'static;
#[cfg(target_arch = "wasm32")]
type Source = dyn std::error::Error + 'static;

impl WgpuError {
    /// Keeps `error`, with its message on one line.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new<E: std::error::Error + Send + Sync + 'static>(error: E) -> WgpuError {
        WgpuError {
            message: one_line(&error.to_string()),
            source: Some(Arc::new(error)),
        }
    }

    /// Keeps `error`, with its message on one line.
    #[cfg(target_arch = "wasm32")]
    pub fn new<E: std::error::Error + 'static>(error: E) -> WgpuError {
        WgpuError {
            message: one_line(&error.to_string()),
            source: Some(Arc::new(error)),
        }
    }

    /// A failure that wgpu reported with no error value.
    pub fn message_only(message: impl Into<String>) -> WgpuError {
        WgpuError {
            message: message.into(),
            source: None,
        }
    }

    /// wgpu's message, on one line.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// wgpu's own error, when it is a `T`.
    pub fn downcast_ref<T: std::error::Error + 'static>(&self) -> Option<&T> {
        let source: &(dyn std::error::Error + 'static) = self.source.as_deref()?;
        source.downcast_ref()
    }
}

/// wgpu's multi-line messages joined with ": " (`Validation Error: In Device::create_bind_group,
/// label = 'gpu-xor': Buffer with 'x' label has been destroyed`).
fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && *l != "Caused by:")
        .collect::<Vec<_>>()
        .join(": ")
}

impl PartialEq for WgpuError {
    fn eq(&self, other: &WgpuError) -> bool {
        self.message == other.message
    }
}

impl fmt::Debug for WgpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.source {
            Some(source) => fmt::Debug::fmt(source, f),
            None => f.debug_tuple("WgpuError").field(&self.message).finish(),
        }
    }
}

impl fmt::Display for WgpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for WgpuError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        let source: &(dyn std::error::Error + 'static) = self.source.as_deref()?;
        Some(source)
    }
}

/// Declares [`Error`], [`Error::kind`] and [`ErrorKind`] (its [`ErrorKind::ALL`],
/// [`ErrorKind::rule`] and [`ErrorKind::category`]) from one table, so that a variant, its kind,
/// the kind's name and its category cannot drift apart (the module docs show a row).
///
/// `pub enum Error` lists the variants as they are declared, each followed by `=> Kind`, the
/// [`ErrorKind`] it reports. `pub enum ErrorKind` lists the kinds, in the order in which the
/// variants first name them, each as `Kind => "rule_name", Category`. The docs of every variant
/// and kind end with a line the macro writes: the variant's kind, the kind's name and category.
macro_rules! errors {
    (
        $(#[$error_attr:meta])*
        pub enum Error {
            $(
                $(#[$variant_attr:meta])*
                $variant:ident $({ $($field:tt)* })? $(( $($tuple:tt)* ))? => $variant_kind:ident,
            )*
        }

        $(#[$kind_attr:meta])*
        pub enum ErrorKind {
            $(
                $(#[$kind_doc:meta])*
                $kind:ident => $rule:literal, $category:ident,
            )*
        }
    ) => {
        $(#[$error_attr])*
        #[derive(Clone, Debug, PartialEq, thiserror::Error)]
        #[non_exhaustive]
        pub enum Error {
            $(
                $(#[$variant_attr])*
                #[doc = ""]
                #[doc = concat!("Kind [`ErrorKind::", stringify!($variant_kind), "`].")]
                $variant $({ $($field)* })? $(( $($tuple)* ))?,
            )*
        }

        impl Error {
            /// The rule that failed, as a value to match on.
            pub fn kind(&self) -> ErrorKind {
                // `{ .. }` matches unit and tuple variants too.
                match self {
                    $(Error::$variant { .. } => ErrorKind::$variant_kind,)*
                }
            }

            /// Every variant's name, in the order of the table.
            #[cfg(test)]
            const VARIANTS: &[&str] = &[$(stringify!($variant),)*];

            /// This error's variant, as its name.
            #[cfg(test)]
            fn variant(&self) -> &'static str {
                match self {
                    $(Error::$variant { .. } => stringify!($variant),)*
                }
            }
        }

        $(#[$kind_attr])*
        #[non_exhaustive]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ErrorKind {
            $(
                $(#[$kind_doc])*
                #[doc = ""]
                #[doc = concat!(
                    "Rule name `", $rule, "`, category [`ErrorCategory::",
                    stringify!($category), "`]."
                )]
                $kind,
            )*
        }

        impl ErrorKind {
            /// Every kind, in the order of [`Error`]'s variants.
            pub const ALL: &[ErrorKind] = &[$(ErrorKind::$kind,)*];

            /// The kind's stable short name, the one [`Error::rule`] returns.
            pub const fn rule(self) -> &'static str {
                match self {
                    $(ErrorKind::$kind => $rule,)*
                }
            }

            /// What the rule is about: where the fix lies.
            pub const fn category(self) -> ErrorCategory {
                match self {
                    $(ErrorKind::$kind => ErrorCategory::$category,)*
                }
            }
        }
    };
}

errors! {
    /// Everything that can go wrong, with the values that broke the rule.
    ///
    /// [`Error::rule`] gives a stable short name for the rule (the `error_kind` of the
    /// conformance format where one exists), so that callers can match on it without parsing
    /// messages; [`Error::kind`] gives the rule as an [`ErrorKind`], and [`Error::category`]
    /// what it is about. Validation errors are returned before anything is recorded: when a
    /// call returns one of them, no command was recorded and no byte of any buffer changed.
    pub enum Error {
        // ----- DirectML descriptor rules ---------------------------------------------------------
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
        } => DtypeMismatch,

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
        } => UnsupportedDtype,

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
        } => RankOutOfRange,

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
        } => RankMismatch,

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
        } => ShapeMismatch,

        /// Every size must be at least 1 ("a size of zero in any dimension is invalid").
        #[error("{tensor} Sizes {} contain a zero", Dims(sizes))]
        ZeroSize {
            /// The offending tensor.
            tensor: TensorName,
            /// Its sizes.
            sizes: Vec<u32>,
        } => ZeroSizeDim,

        /// A DirectML tensor may not exceed 2^32 - 1 elements.
        #[error("{tensor} has {elements} elements, more than 2^32 - 1")]
        TooManyElements {
            /// The offending tensor.
            tensor: TensorName,
            /// Its element count, saturated at `u128::MAX`.
            elements: u128,
        } => TooManyElements,

        /// Strides, when given, have exactly one entry per dimension.
        #[error("{tensor} has {strides} strides for {rank} dimensions")]
        StridesLengthMismatch {
            /// The offending tensor.
            tensor: TensorName,
            /// The number of strides given.
            strides: usize,
            /// Its DimensionCount.
            rank: usize,
        } => StridesLengthMismatch,

        /// TotalTensorSizeInBytes is below DMLCalcBufferTensorSize.
        #[error("{tensor} TotalTensorSizeInBytes {total} < DMLCalcBufferTensorSize {minimum}")]
        TotalSizeTooSmall {
            /// The offending tensor.
            tensor: TensorName,
            /// The TotalTensorSizeInBytes given.
            total: u64,
            /// The minimum implied size.
            minimum: u64,
        } => TotalBytesTooSmall,

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
        } => InvalidAlignment,

        /// DML_TENSOR_FLAG_OWNED_BY_DML "can only be used on input tensors".
        #[error("DML_TENSOR_FLAG_OWNED_BY_DML is set on the OutputTensor; it is for inputs only")]
        OwnedByDmlOnOutput => OwnedByDmlOnOutput,

        /// An input flagged DML_TENSOR_FLAG_OWNED_BY_DML is bound once, when the operator is made
        /// (DirectML's operator initializer): its bytes were not given.
        #[error(
            "{tensor} has DML_TENSOR_FLAG_OWNED_BY_DML: bind its bytes when the operator is made (with_owned_inputs)"
        )]
        OwnedInputMissing {
            /// The flagged input.
            tensor: TensorName,
        } => OwnedInputMissing,

        /// An input the operator owns (flagged DML_TENSOR_FLAG_OWNED_BY_DML) is bound again in a
        /// call (DirectML asks for DML_BINDING_TYPE_NONE there), or an input that is not flagged
        /// is given as owned.
        #[error(
            "{tensor}: only an input flagged DML_TENSOR_FLAG_OWNED_BY_DML is bound when the operator is made, and such an input is not bound again in a call"
        )]
        OwnedInputBound {
            /// The input.
            tensor: TensorName,
        } => OwnedInputBound,

        /// A call leaves unbound an input that the operator does not own.
        #[error(
            "{tensor} is not bound, and the operator does not own it (no DML_TENSOR_FLAG_OWNED_BY_DML)"
        )]
        MissingBinding {
            /// The unbound input.
            tensor: TensorName,
        } => MissingBinding,

        /// A call binds B for an operator of one input (NOT): its input is A alone.
        #[error("{operator} takes one input, bound as A; {tensor} is bound too")]
        ExtraBinding {
            /// The operator.
            operator: Operator,
            /// The binding it does not take.
            tensor: TensorName,
        } => ExtraBinding,

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
        } => OutputOverlap,

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
        } => OutputOverlapUndecided,

        // ----- OpenVINO rules --------------------------------------------------------------------
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
        } => DtypeMismatch,

        /// OpenVINO: "The element type of the input tensor must be integer or boolean."
        #[error(
            "The element type of the input tensor must be integer or boolean. (got {})",
            data_type.openvino_name()
        )]
        NotIntegerOrBoolean {
            /// The refused type.
            data_type: DataType,
        } => UnsupportedDtype,

        /// The OutputTensor's type is not one the operator writes (DirectML's `BIT_COUNT`:
        /// `UINT8` or `UINT32`).
        #[error(
            "{operator} does not support OutputTensor type {} (it writes {})",
            data_type.directml_name(),
            Types(allowed)
        )]
        UnsupportedOutputDataType {
            /// The operator.
            operator: Operator,
            /// The refused type.
            data_type: DataType,
            /// The types it writes.
            allowed: &'static [DataType],
        } => UnsupportedDtype,

        /// OpenVINO's `Bitwise*Shift-15` take "any supported integer element type": not
        /// `boolean`, not a float.
        #[error(
            "{operator}: The element type of the input tensor must be integer. (got {})",
            data_type.openvino_name()
        )]
        NotInteger {
            /// The operation.
            operator: Operator,
            /// The refused type.
            data_type: DataType,
        } => UnsupportedDtype,

        /// OpenVINO's `Logical*-1` operations take `boolean` only ("Operands for logical
        /// operators must have boolean element type").
        #[error(
            "{operator}: Operands for logical operators must have boolean element type but have element type {}.",
            data_type.openvino_name()
        )]
        NotBoolean {
            /// The operation.
            operator: Operator,
            /// The refused type.
            data_type: DataType,
        } => UnsupportedDtype,

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
        } => ShapeInconsistent,

        /// OpenVINO: "Unsupported auto broadcast specification".
        #[error(
            "Unsupported auto broadcast specification: {broadcast} (BitwiseXor takes none, numpy or pdpd)"
        )]
        UnsupportedBroadcast {
            /// The refused broadcast.
            broadcast: AutoBroadcast,
        } => UnsupportedBroadcast,

        // ----- Binding rules ---------------------------------------------------------------------
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
        } => BindingOffsetMisaligned,

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
        } => BindingOutOfBounds,

        /// The bound range is smaller than the tensor (TotalTensorSizeInBytes for DirectML).
        #[error("{tensor} binding holds {size} bytes; the tensor needs {required}")]
        BindingTooSmall {
            /// The tensor bound.
            tensor: TensorName,
            /// The size of the bound range.
            size: u64,
            /// The bytes the tensor needs.
            required: u64,
        } => BindingTooSmall,

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
        } => MissingUsage,

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
        } => AliasDescMismatch,

        /// The operator does not run in place (DirectML's `BIT_COUNT` page lists no in-place
        /// execution): the output is bound on an input's range.
        #[error(
            "{operator} does not support in-place execution: {tensor} is bound at the OutputTensor's offset in the same buffer"
        )]
        InPlaceNotSupported {
            /// The operator.
            operator: Operator,
            /// The input the output is bound on.
            tensor: TensorName,
        } => InPlaceNotSupported,

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
        } => PartialOverlap,

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
        } => SharedBufferSpanTooLarge,

        // ----- Fused expressions ------------------------------------------------------------
        /// An expression holds too few or too many inputs, nodes or constants
        /// ([`crate::desc::MAX_EXPR_INPUTS`], [`crate::desc::MAX_EXPR_NODES`], [`crate::desc::MAX_EXPR_CONSTANTS`]).
        #[error("an expression holds {count} {what}; it takes {min} to {max}")]
        ExprCount {
            /// What was counted: `inputs`, `nodes` or `constants`.
            what: &'static str,
            /// How many it holds.
            count: usize,
            /// The fewest it takes.
            min: usize,
            /// The most it takes.
            max: usize,
        } => ExprCount,

        /// A node of an expression names something that is not there: an input past the last,
        /// a node that is not before it (the nodes are in an order they can be evaluated in),
        /// an operand too many for its operator, or a result node past the last.
        #[error("expression node {node} refers to {refers}: {what}")]
        ExprReference {
            /// The node.
            node: usize,
            /// The index it names.
            refers: usize,
            /// What is wrong with it.
            what: &'static str,
        } => ExprReference,

        /// A constant of an expression has bits above its type's width.
        #[error(
            "expression node {node}: the constant {bits:#x} does not fit {}",
            data_type.directml_name()
        )]
        ExprConstant {
            /// The constant's node.
            node: usize,
            /// Its bits.
            bits: u64,
            /// Its type.
            data_type: DataType,
        } => ExprConstant,

        /// The two operands of an expression's operator have different types (each operator
        /// of the table takes operands of one type).
        #[error(
            "expression node {node}: {operator} takes operands of one type, not {} and {}",
            a.directml_name(), b.directml_name()
        )]
        ExprTypeMismatch {
            /// The node.
            node: usize,
            /// Its operator.
            operator: Operator,
            /// The first operand's type.
            a: DataType,
            /// The second operand's type.
            b: DataType,
        } => DtypeMismatch,

        /// An expression's operator does not take its operands' type (at the expression's
        /// feature level, for DirectML's operators), or `BIT_COUNT` is asked for an output
        /// type it does not write (`UINT8` or `UINT32`).
        #[error(
            "expression node {node}: {operator} does not take {}{}",
            data_type.directml_name(),
            if operator.is_directml() { format!(" at {feature_level}") } else { String::new() }
        )]
        ExprUnsupportedType {
            /// The node.
            node: usize,
            /// Its operator.
            operator: Operator,
            /// The refused type.
            data_type: DataType,
            /// The feature level the expression was checked at.
            feature_level: FeatureLevel,
        } => UnsupportedDtype,

        /// The type of an expression's result is not its output tensor's.
        #[error(
            "the expression's result (node {result}) is {}, its OutputTensor {}",
            data_type.directml_name(), output.directml_name()
        )]
        ExprOutputType {
            /// The result node.
            result: usize,
            /// Its type.
            data_type: DataType,
            /// The output tensor's type.
            output: DataType,
        } => DtypeMismatch,

        /// An input of an expression does not broadcast to the output's sizes by numpy's rule
        /// (aligned from the right, each size the output's or 1, no more dimensions than the
        /// output's).
        #[error(
            "expression input {input} Sizes {} do not broadcast to the OutputTensor Sizes {}",
            Dims(sizes), Dims(output)
        )]
        ExprBroadcast {
            /// The input.
            input: usize,
            /// Its sizes.
            sizes: Vec<u32>,
            /// The output's sizes.
            output: Vec<u32>,
        } => ShapeMismatch,

        /// A tensor of an expression has no dimension or more than eight.
        #[error("expression {tensor} has {rank} dimensions; it takes 1 to 8")]
        ExprRank {
            /// The tensor.
            tensor: TensorName,
            /// Its DimensionCount.
            rank: usize,
        } => RankOutOfRange,

        /// A reduced expression's axes are not the trailing axes of its space (the inputs'
        /// shapes broadcast together): none, one out of range, repeated, out of order, or
        /// followed by an axis that is not reduced.
        #[error(
            "expression reduce: axes {axes:?} are not the last axes of its {rank}-dimensional space"
        )]
        ReduceAxes {
            /// The axes given.
            axes: Vec<usize>,
            /// The space's rank.
            rank: usize,
        } => ReduceAxes,

        /// A reduced expression's output sizes are neither its space's without the reduced
        /// axes nor its space's with those axes of size 1.
        #[error(
            "expression reduce: OutputTensor Sizes {} are not the space {} without its reduced axes {axes:?}, nor with them of size 1",
            Dims(output), Dims(space)
        )]
        ReduceOutputShape {
            /// The output's sizes.
            output: Vec<u32>,
            /// The space's sizes.
            space: Vec<u32>,
            /// The reduced axes.
            axes: Vec<usize>,
        } => ShapeMismatch,

        /// A reduced expression's output type does not hold its reduction: a sum goes into
        /// `UINT32`, `UINT64`, `INT32` or `INT64` from an integer or boolean result no wider; a bitwise or
        /// logical reduction into the result's own type.
        #[error(
            "expression reduce: {op:?} of a {} result (node {result}) cannot go into a {} OutputTensor",
            data_type.directml_name(), output.directml_name()
        )]
        ReduceType {
            /// The reduction.
            op: ReduceOp,
            /// The result node.
            result: usize,
            /// Its type.
            data_type: DataType,
            /// The output's type.
            output: DataType,
        } => ReduceType,

        /// An affine map follows a reduction other than a sum, or a sum into an output other
        /// than `INT32` or `UINT32`.
        #[error(
            "expression reduce: an affine map follows a sum into INT32 or UINT32, not {op:?} into {}",
            output.directml_name()
        )]
        ReduceAffine {
            /// The reduction.
            op: ReduceOp,
            /// The output's type.
            output: DataType,
        } => ReduceAffine,

        /// One output element of a reduced expression reads more than one binding window
        /// can hold: every piece of a reduction holds all of its reduced elements.
        #[error(
            "expression reduce: one output element reads {bytes} bytes of an operand, more than a window of {window} bytes"
        )]
        ReducePastWindow {
            /// The bytes one output's reduced elements span in the widest operand.
            bytes: u64,
            /// The largest window the device binds.
            window: u64,
        } => ReducePastWindow,

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
        } => ReadOutOfBounds,

        /// An operator was pushed into a batch of another context, or a prepared call
        /// joined a graph of another context.
        #[error("the operator or prepared call belongs to another Context than the batch's or graph's")]
        ContextMismatch => ContextMismatch,

        /// A range of a graph's calls to record does not lie within its calls.
        #[error("calls {start}..{end} are not a range of the graph's {calls} calls")]
        CallRangeOutOfBounds {
            /// The first call asked for.
            start: usize,
            /// One past the last call asked for.
            end: usize,
            /// The calls the graph holds.
            calls: usize,
        } => CallRangeOutOfBounds,

        // ----- Host data -------------------------------------------------------------------------
        /// Host data does not have the length the shape implies.
        #[error("expected {expected} elements for shape {}, got {found}", Shape(shape))]
        DataLength {
            /// The shape given.
            shape: Vec<usize>,
            /// The element count the shape implies.
            expected: usize,
            /// The element count given.
            found: usize,
        } => DataLength,

        /// A tensor was read or written as a type other than its own.
        #[error("the tensor holds {actual}, not {requested}")]
        TensorTypeMismatch {
            /// The tensor's type.
            actual: DataType,
            /// The type asked for.
            requested: DataType,
        } => TensorTypeMismatch,

        /// A size does not fit the type that must hold it (a shape too large for the device or
        /// for a DirectML `UINT` size).
        #[error("{what} {value} is too large")]
        SizeOverflow {
            /// What overflowed.
            what: &'static str,
            /// Its value, saturated at `u128::MAX`.
            value: u128,
        } => SizeOverflow,

        /// The host could not allocate `bytes` bytes (a failed `try_reserve`, as for the CPU
        /// reference's output). A buffer the device cannot allocate is [`Error::Allocation`].
        #[error("allocating {bytes} bytes of host memory failed")]
        HostAllocation {
            /// The bytes asked for.
            bytes: u64,
        } => HostAllocation,

        // ----- Device and execution --------------------------------------------------------------
        /// A buffer would exceed the device's `max_buffer_size`.
        #[error("a {bytes}-byte buffer exceeds the device's max_buffer_size of {limit} bytes")]
        BufferTooLarge {
            /// The size asked for.
            bytes: u64,
            /// The device's limit.
            limit: u64,
        } => BufferTooLarge,

        /// The device could not allocate a buffer.
        #[error("buffer allocation failed: {0}")]
        Allocation(#[source] WgpuError) => Allocation,

        /// No adapter could be found or opened.
        #[error("no GPU adapter: {0}")]
        NoAdapter(String) => NoAdapter,

        /// The adapter refused to open a device.
        #[error("request_device failed: {0}")]
        RequestDevice(#[source] WgpuError) => RequestDevice,

        /// A pipeline failed to compile on this device.
        #[error("pipeline creation failed: {0}")]
        Pipeline(#[source] WgpuError) => Pipeline,

        /// Waiting for the device failed (device lost, timeout).
        #[error("device poll failed: {0}")]
        Poll(#[source] WgpuError) => Poll,

        /// Mapping a read-back buffer failed.
        #[error("buffer mapping failed: {0}")]
        Map(#[source] WgpuError) => Map,

        /// The device is lost or was destroyed (`wgpu::Device::destroy`, a driver reset, a
        /// browser that took the GPU back). Nothing more runs on it: make a new `Context`
        /// on a new device.
        #[error("the device is lost: {0}")]
        DeviceLost(String) => DeviceLost,

        /// A buffer the call uses cannot be used: it was destroyed (`wgpu::Buffer::destroy`), it
        /// is mapped, or it belongs to another device.
        #[error("{} buffer cannot be used: {reason}", match tensor { Some(t) => format!("the {t}"), None => "the".to_string() })]
        InvalidBuffer {
            /// The tensor bound to it, when the call binds it as one.
            tensor: Option<TensorName>,
            /// Why, in wgpu's words.
            reason: String,
        } => InvalidBuffer,

        /// wgpu refused a call for a reason this crate could not attribute to the device or to one
        /// of the buffers (see the caller's duties on `TensorBinding` in `gpu-xor`).
        #[error("wgpu refused {call}: {source}")]
        Wgpu {
            /// The wgpu call refused.
            call: &'static str,
            /// wgpu's error.
            #[source]
            source: WgpuError,
        } => Wgpu,

        // ----- k nearest in Hamming space ---------------------------------------------------
        /// `k` of a search is 0, above [`crate::desc::MAX_K`], or above the number of codes.
        #[error("k = {k}: a search returns 1 to {max} results, and at most one per code ({codes} codes)")]
        KnnK {
            /// The `k` asked for.
            k: u64,
            /// The most a search returns ([`crate::desc::MAX_K`]).
            max: u32,
            /// The codes searched (in each batch).
            codes: u64,
        } => KnnK,

        /// A tensor of a search does not fit the others: queries and codes of different words,
        /// batch sizes that do not broadcast, outputs that are not `[.., M, k]`, a rank
        /// outside 1 to 8, or a strided allow-list.
        #[error("{tensor} sizes {}: {what}", Dims(sizes))]
        KnnShape {
            /// The tensor.
            tensor: TensorName,
            /// Its sizes.
            sizes: Vec<u32>,
            /// What is wrong with them.
            what: &'static str,
        } => KnnShape,

        /// A tensor of a search has a type the search does not take: codes are integers of one
        /// type in queries and codes, distances `UINT32` or `INT32`, indices `UINT32`, `INT32`,
        /// `UINT64` or `INT64`, an allow-list an integer type.
        #[error("{tensor} has type {}: {what}", data_type.directml_name())]
        KnnType {
            /// The tensor.
            tensor: TensorName,
            /// Its type.
            data_type: DataType,
            /// What the search takes there.
            what: &'static str,
        } => KnnType,

        /// Codes longer than a search takes ([`crate::desc::MAX_CODE_BITS`]).
        #[error("codes of {bits} bits: a search takes codes of at most {max} bits")]
        KnnCodeBits {
            /// Bits in one code.
            bits: u64,
            /// The most a search takes.
            max: u64,
        } => KnnCodeBits,

        /// The index type cannot number every code and keep its sentinel (all bits set) apart.
        #[error(
            "{} indices cannot number {codes} codes: at most {max} (all bits set is the sentinel)",
            data_type.directml_name()
        )]
        KnnIndexType {
            /// The indices' type.
            data_type: DataType,
            /// The codes searched (in each batch).
            codes: u64,
            /// The most codes it numbers.
            max: u64,
        } => KnnIndexType,

        /// An allow-list holds fewer bits than there are codes.
        #[error("an allow-list of {bits} bits for {codes} codes: it needs one bit a code")]
        KnnAllowList {
            /// Bits it holds.
            bits: u64,
            /// The codes searched (in each batch).
            codes: u64,
        } => KnnAllowList,

        /// An output of a search overlaps an input or the other output: a search's outputs are
        /// written while its inputs are read, by kernels that run after one another.
        #[error(
            "the {tensor} range [{}, {}) overlaps the {other} range [{}, {}) of the same buffer",
            range.0, range.1, other_range.0, other_range.1
        )]
        KnnOverlap {
            /// The output.
            tensor: TensorName,
            /// Its byte range.
            range: (u64, u64),
            /// The tensor it overlaps.
            other: TensorName,
            /// That tensor's byte range.
            other_range: (u64, u64),
        } => KnnOverlap,

        // ----- Tensor views and options ----------------------------------------------------------
        /// A tensor view (`Tensor::view` in `gpu-xor`) reaches past the end of its buffer.
        #[error(
            "a view of {size} bytes at offset {offset} does not fit its buffer of {buffer_size} bytes"
        )]
        ViewOutOfBounds {
            /// The view's byte offset.
            offset: u64,
            /// The bytes it binds (or reads back, in whole words) from there.
            size: u64,
            /// The buffer's size.
            buffer_size: u64,
        } => ViewOutOfBounds,

        /// OpenVINO tensors are dense: a strided view cannot be an operand of BitwiseXor-13.
        #[error(
            "BitwiseXor-13 takes dense tensors; the {tensor} is a strided view (strides {strides:?})"
        )]
        NotDense {
            /// The strided tensor.
            tensor: TensorName,
            /// Its element strides.
            strides: Vec<u64>,
        } => NotDense,

        /// A setting of `ContextOptions` or an environment variable is invalid.
        #[error("invalid option {name}: {reason}")]
        InvalidOption {
            /// The setting.
            name: &'static str,
            /// What is wrong with it.
            reason: String,
        } => InvalidOption,

        /// Saved kernel choices are not a table of kernel choices, or are damaged.
        #[error("the kernel choices cannot be read: {reason}")]
        KernelChoicesCorrupt {
            /// What is wrong with them.
            reason: String,
        } => KernelChoicesCorrupt,

        /// Saved kernel choices were measured on another adapter (or driver): they are never
        /// used on this one.
        #[error("the kernel choices were measured on {found:?}, not on this adapter ({expected:?})")]
        KernelChoicesForeign {
            /// The adapter they were measured on.
            found: String,
            /// This context's adapter.
            expected: String,
        } => KernelChoicesForeign,

        /// Saved kernel choices were written by another version of the crate.
        #[error("the kernel choices were saved by version {found}, not by this one ({expected})")]
        KernelChoicesStale {
            /// Their version.
            found: String,
            /// This crate's.
            expected: String,
        } => KernelChoicesStale,

    }

    /// The rule an [`Error`] broke, without its values: one kind per name that
    /// [`Error::rule`] returns, to match on.
    ///
    /// Several [`Error`] variants can share a kind where DirectML and OpenVINO state the
    /// same rule in their own words (a type mismatch, an unsupported type).
    ///
    /// ```
    /// use gpu_xor_core::{BitXorDesc, DataType, ErrorKind, FeatureLevel};
    ///
    /// let err = BitXorDesc::packed(DataType::F16, &[4])
    ///     .validate(FeatureLevel::Fl3_0)
    ///     .unwrap_err();
    /// let advice = match err.kind() {
    ///     ErrorKind::UnsupportedDtype => "pick another type or a higher feature level",
    ///     ErrorKind::ShapeMismatch | ErrorKind::RankMismatch => "fix the shapes",
    ///     _ => "see the message",
    /// };
    /// assert_eq!(advice, "pick another type or a higher feature level");
    /// assert_eq!(err.kind().to_string(), "unsupported_dtype");
    /// assert_eq!(err.kind().rule(), err.rule());
    /// ```
    pub enum ErrorKind {
        /// The tensors' types differ: [`Error::DataTypeMismatch`] (DirectML),
        /// [`Error::ElementTypeMismatch`] (OpenVINO).
        DtypeMismatch => "dtype_mismatch", Description,
        /// The operator does not take the type: [`Error::UnsupportedDataType`] (DirectML, at a
        /// feature level), [`Error::NotIntegerOrBoolean`], [`Error::NotInteger`] and
        /// [`Error::NotBoolean`] (OpenVINO).
        UnsupportedDtype => "unsupported_dtype", Description,
        /// [`Error::RankOutOfRange`].
        RankOutOfRange => "rank_out_of_range", Description,
        /// [`Error::RankMismatch`].
        RankMismatch => "rank_mismatch", Description,
        /// [`Error::SizesMismatch`].
        ShapeMismatch => "shape_mismatch", Description,
        /// [`Error::ZeroSize`].
        ZeroSizeDim => "zero_size_dim", Description,
        /// [`Error::TooManyElements`].
        TooManyElements => "too_many_elements", Description,
        /// [`Error::StridesLengthMismatch`].
        StridesLengthMismatch => "strides_length_mismatch", Description,
        /// [`Error::TotalSizeTooSmall`].
        TotalBytesTooSmall => "total_bytes_too_small", Description,
        /// [`Error::InvalidAlignment`].
        InvalidAlignment => "invalid_alignment", Description,
        /// [`Error::OwnedByDmlOnOutput`].
        OwnedByDmlOnOutput => "owned_by_dml_on_output", Description,
        /// [`Error::OwnedInputMissing`].
        OwnedInputMissing => "owned_input_missing", Binding,
        /// [`Error::OwnedInputBound`].
        OwnedInputBound => "owned_input_bound", Binding,
        /// [`Error::MissingBinding`].
        MissingBinding => "missing_binding", Binding,
        /// [`Error::ExtraBinding`].
        ExtraBinding => "extra_binding", Binding,
        /// [`Error::OutputOverlap`].
        OutputOverlap => "output_overlap", Description,
        /// [`Error::OutputOverlapUndecided`].
        OutputOverlapUndecided => "output_overlap_undecided", Description,
        /// [`Error::ShapeInconsistent`].
        ShapeInconsistent => "shape_inconsistent", Description,
        /// [`Error::UnsupportedBroadcast`].
        UnsupportedBroadcast => "unsupported_broadcast", Description,
        /// [`Error::BindingOffsetMisaligned`].
        BindingOffsetMisaligned => "binding_offset_misaligned", Binding,
        /// [`Error::BindingOutOfBounds`].
        BindingOutOfBounds => "binding_out_of_bounds", Binding,
        /// [`Error::BindingTooSmall`].
        BindingTooSmall => "binding_too_small", Binding,
        /// [`Error::MissingUsage`].
        MissingUsage => "missing_usage", Binding,
        /// [`Error::AliasDescMismatch`].
        AliasDescMismatch => "alias_desc_mismatch", Binding,
        /// [`Error::InPlaceNotSupported`].
        InPlaceNotSupported => "in_place_not_supported", Binding,
        /// [`Error::PartialOverlap`].
        PartialOverlap => "partial_overlap", Binding,
        /// [`Error::SharedBufferSpanTooLarge`].
        SharedBufferSpanTooLarge => "shared_buffer_span_too_large", Binding,
        /// [`Error::ExprCount`].
        ExprCount => "expr_count", Description,
        /// [`Error::ExprReference`].
        ExprReference => "expr_reference", Description,
        /// [`Error::ExprConstant`].
        ExprConstant => "expr_constant", Description,
        /// [`Error::ReduceAxes`].
        ReduceAxes => "reduce_axes", Description,
        /// [`Error::ReduceType`].
        ReduceType => "reduce_type", Description,
        /// [`Error::ReduceAffine`].
        ReduceAffine => "reduce_affine", Description,
        /// [`Error::ReducePastWindow`].
        ReducePastWindow => "reduce_past_window", Binding,
        /// [`Error::ReadOutOfBounds`].
        ReadOutOfBounds => "read_out_of_bounds", HostData,
        /// [`Error::ContextMismatch`].
        ContextMismatch => "context_mismatch", Binding,
        /// [`Error::CallRangeOutOfBounds`].
        CallRangeOutOfBounds => "call_range_out_of_bounds", Binding,
        /// [`Error::DataLength`].
        DataLength => "data_length", HostData,
        /// [`Error::TensorTypeMismatch`].
        TensorTypeMismatch => "tensor_type_mismatch", HostData,
        /// [`Error::SizeOverflow`].
        SizeOverflow => "size_overflow", HostData,
        /// [`Error::HostAllocation`]: host memory (a buffer on the device is
        /// [`ErrorKind::Allocation`]).
        HostAllocation => "host_allocation", HostData,
        /// [`Error::BufferTooLarge`].
        BufferTooLarge => "buffer_too_large", Device,
        /// [`Error::Allocation`]: a buffer on the device (host memory is
        /// [`ErrorKind::HostAllocation`]).
        Allocation => "allocation", Device,
        /// [`Error::NoAdapter`].
        NoAdapter => "no_adapter", Device,
        /// [`Error::RequestDevice`].
        RequestDevice => "request_device", Device,
        /// [`Error::Pipeline`].
        Pipeline => "pipeline", Device,
        /// [`Error::Poll`].
        Poll => "poll", Device,
        /// [`Error::Map`].
        Map => "map", Device,
        /// [`Error::DeviceLost`].
        DeviceLost => "device_lost", Device,
        /// [`Error::InvalidBuffer`].
        InvalidBuffer => "invalid_buffer", Device,
        /// [`Error::Wgpu`].
        Wgpu => "wgpu", Device,
        /// [`Error::KnnK`].
        KnnK => "knn_k", Description,
        /// [`Error::KnnShape`].
        KnnShape => "knn_shape", Description,
        /// [`Error::KnnType`].
        KnnType => "knn_type", Description,
        /// [`Error::KnnCodeBits`].
        KnnCodeBits => "knn_code_bits", Description,
        /// [`Error::KnnIndexType`].
        KnnIndexType => "knn_index_type", Description,
        /// [`Error::KnnAllowList`].
        KnnAllowList => "knn_allow_list", Description,
        /// [`Error::KnnOverlap`].
        KnnOverlap => "knn_overlap", Binding,
        /// [`Error::ViewOutOfBounds`].
        ViewOutOfBounds => "view_out_of_bounds", HostData,
        /// [`Error::NotDense`].
        NotDense => "not_dense", HostData,
        /// [`Error::InvalidOption`].
        InvalidOption => "invalid_option", Options,
        /// [`Error::KernelChoicesCorrupt`].
        KernelChoicesCorrupt => "kernel_choices_corrupt", Options,
        /// [`Error::KernelChoicesForeign`].
        KernelChoicesForeign => "kernel_choices_foreign", Options,
        /// [`Error::KernelChoicesStale`].
        KernelChoicesStale => "kernel_choices_stale", Options,
    }
}

impl Error {
    /// A stable short name of the rule that failed: `self.kind().rule()`.
    ///
    /// For the rules of the conformance format this is its `error_kind` (`dtype_mismatch`,
    /// `unsupported_dtype`, `shape_mismatch`, `rank_mismatch`, `rank_out_of_range`,
    /// `zero_size_dim`, `strides_length_mismatch`, `total_bytes_too_small`,
    /// `invalid_alignment`, `binding_offset_misaligned`, `owned_by_dml_on_output`,
    /// `output_overlap`, `alias_desc_mismatch`, `too_many_elements`, `shape_inconsistent`,
    /// `unsupported_broadcast`); the others have names of the same style.
    pub fn rule(&self) -> &'static str {
        self.kind().rule()
    }

    /// What the rule that failed is about: `self.kind().category()`.
    pub fn category(&self) -> ErrorCategory {
        self.kind().category()
    }
}

impl fmt::Display for ErrorKind {
    /// The rule's name, as [`ErrorKind::rule`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.rule())
    }
}

/// What a rule is about, and so where the fix lies: in a description, in a call's bindings, in
/// host data, in the device, or in an option. Every [`ErrorKind`] belongs to one category
/// ([`ErrorKind::category`], [`Error::category`]).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCategory {
    /// A rule of an operator or tensor description: types, ranks, sizes, strides, total size,
    /// alignment, broadcasts, the owned flag on the output, an output that overlaps itself.
    Description,
    /// A rule of a call's bindings: offsets, ranges and usages, in-place aliasing, owned inputs
    /// bound again or missing, a binding the operator does not take, a shared buffer's span, an
    /// operator of another context.
    Binding,
    /// Data on the host side: a slice whose length the shape does not imply, a tensor read as
    /// another type, a read-back or a view past its buffer, a strided view where a dense tensor
    /// is needed, a size past what its type holds, host memory that cannot be allocated.
    HostData,
    /// The device or wgpu: no adapter, a device or pipeline refused, a failed poll or map, a lost
    /// device, an unusable buffer, a buffer past `max_buffer_size` or that the device cannot
    /// allocate, any other call that wgpu refuses.
    Device,
    /// A setting of `ContextOptions` or an environment variable.
    Options,
}

impl ErrorCategory {
    /// Every category.
    pub const ALL: &[ErrorCategory] = &[
        ErrorCategory::Description,
        ErrorCategory::Binding,
        ErrorCategory::HostData,
        ErrorCategory::Device,
        ErrorCategory::Options,
    ];

    /// The category's short name, in the style of [`ErrorKind::rule`] (`description`,
    /// `binding`, `host_data`, `device`, `options`).
    pub const fn name(self) -> &'static str {
        match self {
            ErrorCategory::Description => "description",
            ErrorCategory::Binding => "binding",
            ErrorCategory::HostData => "host_data",
            ErrorCategory::Device => "device",
            ErrorCategory::Options => "options",
        }
    }
}

impl fmt::Display for ErrorCategory {
    /// The category's name, as [`ErrorCategory::name`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
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

/// `UINT8 or UINT32`, DirectML's names of a list of types.
struct Types(&'static [DataType]);

impl fmt::Display for Types {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, t) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" or ")?;
            }
            f.write_str(t.directml_name())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
