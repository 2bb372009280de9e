//! Layer 4, execution: the context (the caller's device and queue, or one made from the
//! environment), compiled operators that record into the caller's encoder, blocking
//! convenience calls, and typed GPU tensors.
//!
//! Each file uses only files listed before it (the crate's layering test fails on any
//! circle), lowest first:
//!
//! 1. `signal.rs`: callbacks as futures.
//! 2. `binding.rs`: where a tensor lives, the caller's buffer ranges.
//! 3. `shared.rs`: the state every clone of a context shares (device, queue, kernel cache).
//! 4. `fault.rs`: the device's services on that state: loss and buffer checks, typed faults,
//!    buffer creation inside error scopes.
//! 5. `readback.rs`: copying a buffer back to the host, blocking or async.
//! 6. `env.rs`: the environment variables a context reads, parsed without a device.
//! 7. `context.rs`: the public [`Context`] and its options, above its services.
//! 8. `lower.rs`: one call lowered to pieces (pure CPU).
//! 9. `merge.rs`: pieces merged into dispatches (pure CPU).
//! 10. `encode.rs`: a schedule's wgpu objects, made once, and its recording ([`Prepared`]).
//! 11. `batch.rs`: [`Batch`], and [`XorOperator`], what it asks of an operator.
//! 12. `operator.rs`: the compiled operators.
//! 13. `tensor.rs`: typed GPU tensors.
//! 14. `convenience.rs`: the one-call forms on tensors.

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
mod shared;
mod signal;
mod tensor;

pub use batch::{Batch, XorOperator};
pub use binding::{OwnedInputs, TensorBinding, XorBindings};
pub use context::{Context, ContextOptions, RecordingObjects};
pub use encode::Prepared;
pub use env::LimitsChoice;
pub use lower::RecordSummary;
pub use operator::{BitXor, BitwiseXor, LogicalXor};
pub use tensor::{Element, Tensor};
