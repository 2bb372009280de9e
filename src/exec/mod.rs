//! Layer 4, execution: the context (the caller's device and queue, or one made from the
//! environment), compiled operators that record into the caller's encoder, blocking
//! convenience calls, and typed GPU tensors.

mod arena;
mod batch;
mod binding;
mod context;
mod convenience;
mod encode;
mod env;
mod fault;
mod lower;
mod merge;
mod operator;
mod readback;
mod signal;
mod tensor;

pub use batch::Batch;
pub use binding::{OwnedInputs, TensorBinding, XorBindings};
pub use context::{Context, ContextOptions, LimitsChoice, RecordingObjects};
pub use encode::Prepared;
pub use lower::RecordSummary;
pub use operator::{BitXor, BitwiseXor, LogicalXor, XorOperator};
pub use tensor::{Element, Tensor};
