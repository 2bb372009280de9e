//! DirectML's `ELEMENT_WISE_BIT_XOR` and `ELEMENT_WISE_LOGICAL_XOR` and OpenVINO's
//! `BitwiseXor-13`, and the rest of their family (AND, OR and NOT, bitwise and logical; the
//! shifts, DirectML's `BIT_SHIFT_*` and OpenVINO's `Bitwise*Shift-15`; DirectML's
//! `BIT_COUNT`: [`DmlBinary`], [`DmlUnary`], [`OvBinary`], [`OvUnary`]), on any GPU that wgpu
//! reaches (Vulkan, Metal, DX12, GL, and WebGPU in the browser), exact to the bit.
//!
//! Every operator shares the same kernels, rules and guarantees; the element function
//! ([`ElementFunction`]) is a constant of the pipeline. A NOT binds its input as A
//! ([`Bindings::unary`]):
//!
//! ```no_run
//! use gpu_xor::{Context, DataType, DmlUnary, DmlUnaryDesc, DmlUnaryOp, Tensor, Bindings};
//!
//! # fn main() -> Result<(), gpu_xor::Error> {
//! let ctx = Context::from_env()?;
//! let x = Tensor::from_slice(&ctx, &[4], &[0u16, 1, 0xff00, 0xffff])?;
//! let not = DmlUnary::new(&ctx, &DmlUnaryDesc::packed(DmlUnaryOp::BitNot, DataType::U16, &[4]))?;
//! not.submit(&Bindings::unary(x.binding(), x.binding()))?; // in place
//! assert_eq!(x.to_vec::<u16>()?, [0xffff, 0xfffe, 0x00ff, 0]);
//! // The LOGICAL_* operators take u8 and u32 only.
//! assert_eq!(ctx.logical_and(&x, &x).unwrap_err().rule(), "unsupported_dtype");
//! # Ok(())
//! # }
//! ```
//!
//! # Basics
//!
//! Describe the operator, compile it once on a [`Context`], and record it into your own
//! command encoder on your own buffers as often as you like:
//!
//! ```no_run
//! use gpu_xor::{DmlBinary, BitXorDesc, Context, DataType, TensorBinding, Bindings};
//!
//! # fn main() -> Result<(), gpu_xor::Error> {
//! # let (device, queue): (wgpu::Device, wgpu::Queue) = unimplemented!();
//! # let (a, b, out): (wgpu::Buffer, wgpu::Buffer, wgpu::Buffer) = unimplemented!();
//! let ctx = Context::new(device.clone(), queue.clone());
//! let op = DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::U16, &[64, 64]))?;
//! let mut encoder = device.create_command_encoder(&Default::default());
//! op.record(
//!     &mut encoder,
//!     &Bindings::new(TensorBinding::new(&a), TensorBinding::new(&b), TensorBinding::new(&out)),
//! )?;
//! queue.submit([encoder.finish()]);
//! # Ok(())
//! # }
//! ```
//!
//! Or let the crate make the device and the buffers:
//!
//! ```no_run
//! use gpu_xor::{Context, Tensor};
//!
//! # fn main() -> Result<(), gpu_xor::Error> {
//! let ctx = Context::from_env()?;
//! let a = Tensor::from_slice(&ctx, &[4], &[1u32, 2, 3, 4])?;
//! let b = Tensor::from_slice(&ctx, &[4], &[0xffu32; 4])?;
//! assert_eq!(ctx.bit_xor(&a, &b)?.to_vec::<u32>()?, [0xfe, 0xfd, 0xfc, 0xfb]);
//! # Ok(())
//! # }
//! ```
//!
//! # Async, and the web
//!
//! Nothing that records or uploads ever waits: [`DmlBinary::record`], [`DmlBinary::submit`],
//! [`Batch::record`], [`Tensor::from_slice`] and the one-call forms ([`Context::bit_xor`])
//! return as soon as the work is recorded or submitted. What has to wait for the GPU is
//! `async`: [`Tensor::to_vec_async`] (and `to_bytes_async`, `to_bools_async`),
//! [`Context::read_buffer_async`], [`DmlBinary::run_async`], [`Context::wait_async`],
//! [`Context::check_async`] and [`Context::from_env_async`]. This is the only form in a
//! browser (`wasm32-unknown-unknown` on WebGPU), and the one to use inside an async runtime.
//! The blocking forms ([`Tensor::to_vec`], [`DmlBinary::run`], [`Context::wait`],
//! [`Context::from_env`]) are thin wrappers for native callers and are not compiled for
//! `wasm32`.
//!
//! ```
//! use gpu_xor::{AutoBroadcast, Context, Tensor};
//!
//! async fn xor_on_any_gpu() -> Result<Vec<i32>, gpu_xor::Error> {
//!     // In a browser: the page's WebGPU adapter. Natively: what the environment picks.
//!     let ctx = Context::from_env_async().await?;
//!     let a = Tensor::from_slice(&ctx, &[2, 3], &[1i32, 2, 3, 4, 5, 6])?;
//!     let b = Tensor::from_slice(&ctx, &[3], &[-1i32, 0, 7])?;
//!     let out = ctx.bitwise_xor(&a, &b, AutoBroadcast::Numpy)?; // submitted, not waited for
//!     out.to_vec_async::<i32>().await
//! }
//!
//! // Any executor drives it; natively, even one that only polls.
//! # #[cfg(not(target_arch = "wasm32"))]
//! assert_eq!(pollster::block_on(xor_on_any_gpu())?, [-2, 2, 4, -5, 5, 1]);
//! # Ok::<(), gpu_xor::Error>(())
//! ```
//!
//! In a browser the device answers error scopes only asynchronously. Errors that native
//! backends return from the recording call itself (a kernel the driver refuses, an allocation
//! it cannot make, a submission of a destroyed buffer) are then returned, typed, by the next
//! asynchronous call on the context ([`Context::check_async`], which every read-back and
//! wait runs).
//!
//! # Failures
//!
//! Every rule of the operators' specifications is checked on the CPU, when the operator is
//! created (descriptions) or recorded (bindings), and a broken rule is an [`Error`] that names
//! it ([`Error::rule`]) with the values that broke it. A call that fails records nothing and
//! changes no byte. Nothing in this crate panics on user input.
//!
//! # What it promises beyond DirectML
//!
//! - Only the output's elements are written: padding between strided elements, bytes around
//!   the tensor, and the other lanes of a word that an 8- or 16-bit element shares keep their
//!   values.
//! - All eleven DirectML types on every adapter with no optional feature: the kernels see
//!   only `u32` words.
//! - Tensors larger than one storage binding, and than 65,535 workgroups per dimension.
//!
//! # Layers
//!
//! Everything that needs no device lives in the `gpu-xor-core` crate, which does not depend
//! on wgpu, so the build keeps it apart: [`desc`] (descriptions and rules, which hand out
//! validated [`desc::Operands`]) → layout analysis ([`inspect::Plan`]: broadcasts as zero
//! strides, coalescing, the kernel family) → the schedule (the kernel for each piece, dispatch
//! sizes, metadata records, merged calls) → [`mod@reference`] (the CPU oracle). This crate
//! records what the schedule decides: the WGSL kernels (private; [`inspect::KernelKind`] names
//! them) and execution ([`Context`], [`DmlBinary`], [`Tensor`]). The repository's
//! `ARCHITECTURE.md` walks through a call.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod exec;
mod kernels;
mod scope;
mod sync;

// The device-free layers live in `gpu-xor-core`, which has no wgpu dependency: the build keeps
// them from naming anything that needs a device.
pub use gpu_xor_core::{desc, reference};
use gpu_xor_core::{error, layout, schedule};

pub use desc::{
    Affine, AutoBroadcast, BitFunction, BitXorDesc, BitwiseXorDesc, DataType, DmlBinaryDesc,
    DmlBinaryOp, DmlUnaryDesc, DmlUnaryOp, ElementFunction, Expr, ExprDesc, ExprNode, ExprOperands,
    FeatureLevel, KnnDesc, LogicalXorDesc, Operator, OvBinaryDesc, OvBinaryOp, OvUnaryDesc,
    OvUnaryOp, Reduce, ReduceOp, TensorDesc, TensorFlags, TensorName, infer_output_shape,
};
pub use error::{Error, ErrorCategory, ErrorKind, WgpuError};
pub use exec::{
    Batch, Bindings, CompiledOperator, Context, ContextOptions, DmlBinary, DmlUnary, Element,
    ExprBindings, Fused, Graph, Input, Knn, KnnBindings, KnnCall, LimitsChoice, OvBinary, OvUnary,
    OwnedInputs, Prepared, RecordingObjects, Tensor, TensorBinding, TuningReport,
};
// The XOR aliases of 0.1, deprecated for one release: the types are `DmlBinary` and `OvBinary`.
#[allow(deprecated)]
pub use exec::{BitXor, BitwiseXor, LogicalXor};
pub use schedule::KernelTuning;

/// What the library decided for an operator or a call, for tests, tools and the curious:
/// the [`Plan`](inspect::Plan) made when an operator is compiled, the kernel families
/// ([`KernelKind`](inspect::KernelKind)), how a call's buffers are bound
/// ([`BindingPattern`](inspect::BindingPattern)) and what one call recorded
/// ([`RecordSummary`](inspect::RecordSummary)). Nothing here is needed to run an operator.
pub mod inspect {
    pub use gpu_xor_core::layout::{BindingPattern, FusedPlan, KernelKind, Plan};
    pub use gpu_xor_core::schedule::RecordSummary;
    pub use gpu_xor_core::schedule::tune::{KernelChoices, TuningKey};
}

/// The README's code blocks, compiled as doc tests so that they stay true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
