//! Layer 4, execution: the context (the caller's device and queue, or one made from the
//! environment), compiled operators that record into the caller's encoder, blocking
//! convenience calls, and typed GPU tensors.

mod batch;
mod binding;
mod context;
mod convenience;
mod env;
mod fault;
mod operator;
mod readback;
mod signal;
mod tensor;

pub use batch::{Batch, RecordSummary};
pub use binding::{TensorBinding, XorBindings};
pub use context::{Context, ContextOptions, LimitsChoice};
pub use operator::{BitXor, BitwiseXor, LogicalXor, XorOperator};
pub use tensor::{Element, Tensor};
