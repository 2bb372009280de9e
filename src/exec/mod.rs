//! Execution: the context (the caller's device and queue, or one made from the
//! environment), compiled operators that record into the caller's encoder, blocking
//! convenience calls, and typed GPU tensors.
//!
//! Each file uses only files listed before it, lowest first (a test of the crate checks that
//! no file uses a file that uses it back):
//!
//! 1. `signal.rs`: callbacks as futures.
//! 2. `binding.rs`: where a tensor lives, the caller's buffer ranges.
//! 3. `arena.rs`: the metadata arena's allocator: runs of records in shared buffers (pure CPU,
//!    generic over the buffer).
//! 4. `kept.rs`: the bind groups kept for one-shot calls, and what each binds.
//! 5. `shared.rs`: the state every clone of a context shares (device, queue, kernel cache,
//!    metadata arena).
//! 6. `fault.rs`: the device's services on that state: loss and buffer checks, typed faults,
//!    buffer creation inside error scopes.
//! 7. `readback.rs`: copying a buffer back to the host, blocking or async.
//! 8. `env.rs`: the environment variables a context reads, parsed without a device.
//! 9. `context.rs`: the public [`Context`] and its options, above its services.
//! 10. `encode.rs`: a schedule's wgpu objects (lowered and merged without a device, in
//!     `gpu_xor_core::schedule`), made once, its records leased from the arena, and its
//!     recording ([`Prepared`]).
//! 11. `graph.rs`: prepared calls laid out flat for recording ([`Graph`]).
//! 12. `batch.rs`: [`Batch`], and [`CompiledOperator`], what it asks of an operator.
//! 13. `tune.rs`: warming up: pipelines compiled, kernel choices measured on the device.
//! 14. `operator.rs`: the compiled operators.
//! 15. `fused.rs`: fused expressions, compiled.
//! 16. `tensor.rs`: typed GPU tensors.
//! 17. `convenience.rs`: the one-call forms on tensors.
//! 18. `knn.rs`: searches in Hamming space, compiled and prepared, and their one-call forms.

mod arena;
mod batch;
mod binding;
mod context;
mod convenience;
mod encode;
mod env;
mod fault;
mod fused;
mod graph;
mod kept;
mod knn;
mod operator;
mod readback;
mod shared;
mod signal;
mod tensor;
mod tune;

pub use batch::{Batch, CompiledOperator};
pub use binding::{Bindings, ExprBindings, Input, OwnedInputs, TensorBinding};
pub use context::{Context, ContextOptions, RecordingObjects};
pub use encode::Prepared;
pub use env::LimitsChoice;
pub use fused::Fused;
pub use graph::Graph;
pub use knn::{Knn, KnnBindings, KnnCall};
// The XOR aliases of 0.1, deprecated: one name per operator type.
#[allow(deprecated)]
pub use operator::{BitXor, BitwiseXor, LogicalXor};
pub use operator::{DmlBinary, DmlUnary, OvBinary, OvUnary};
pub use tensor::{Element, Tensor};
pub use tune::TuningReport;
