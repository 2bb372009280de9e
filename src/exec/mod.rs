//! Layer 4, execution: the context (the caller's device and queue, or one made from the
//! environment), compiled operators that record into the caller's encoder, blocking
//! convenience calls, and typed GPU tensors.

mod binding;
mod context;
mod convenience;
mod operator;
mod record;
mod tensor;

pub use binding::{TensorBinding, XorBindings};
pub use context::{Context, ContextOptions, LimitsChoice};
pub use operator::{BitXor, BitwiseXor, LogicalXor};
pub use record::RecordSummary;
pub use tensor::{Element, Tensor};
