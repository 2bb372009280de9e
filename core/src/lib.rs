//! The device-free half of `gpu-xor`: everything about an operator call that needs no GPU.
//!
//! - [`desc`]: data types, tensor descriptions, feature levels, the operator table (every
//!   operator one row: [`Operator`], [`for_each_operator!`]) and the element functions, and
//!   every rule of their specifications (DirectML's buffer tensor rules, OpenVINO's
//!   broadcasts).
//! - [`error`]: the one error type, [`Error`], the kind of each rule, [`ErrorKind`], and what
//!   each is about, [`ErrorCategory`], all from one table.
//! - [`layout`]: layout analysis. Broadcasts become zero strides, neighbouring dimensions
//!   coalesce, operands that share a buffer get a binding pattern, and a [`layout::Plan`]
//!   names the kernel family.
//! - [`reference`](mod@reference): a plain CPU implementation of every operator over strided
//!   views, the oracle of every test.
//! - [`KernelTuning`], [`KernelChoices`], [`TuningKey`] and [`RecordSummary`]: how a context
//!   chooses among the kernels that can run a layout, the choices it measured, and what one
//!   call recorded.
//!
//! From a plan and the bindings of one call to the dispatches that run it (the kernel chosen
//! per piece, dispatch sizing, the metadata record, pipeline keys, lowering and merging) is
//! the scheduling machinery of `gpu-xor`'s device layer: its module is public for that crate
//! and for white-box tests, hidden from these docs, and not part of this crate's API (it may
//! change in any version).
//!
//! This crate has no wgpu dependency, so the build itself keeps these layers apart from the
//! device. Most users want `gpu-xor`, which re-exports the public items of this crate.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod desc;
pub mod error;
pub mod layout;
pub mod reference;
// The scheduling machinery of `gpu-xor`'s device layer (see its module docs): public for that
// crate and for white-box tests, not part of this crate's API.
#[doc(hidden)]
pub mod schedule;

pub use desc::{
    Affine, AutoBroadcast, BitFunction, BitXorDesc, BitwiseXorDesc, DataType, DmlBinaryDesc,
    DmlBinaryOp, DmlUnaryDesc, DmlUnaryOp, ElementFunction, Expr, ExprDesc, ExprNode, ExprOperands,
    FeatureLevel, LogicalXorDesc, Operand, Operands, Operator, OperatorGroup, OperatorSpec,
    OvBinaryDesc, OvBinaryOp, OvUnaryDesc, OvUnaryOp, Reduce, ReduceOp, Standard, TensorDesc,
    TensorFlags, TensorName, Truth, TypeTable, infer_output_shape,
};
pub use error::{Error, ErrorCategory, ErrorKind, WgpuError};
pub use layout::{BindingPattern, KernelKind, Plan};
pub use schedule::{KernelChoices, KernelTuning, RecordSummary, TuningKey};

/// The unit tests' property configuration: a fixed seed, so that every run draws the same
/// cases and a failure replays, which `GPU_XOR_SEED` moves and `GPU_XOR_CASES` replaces the
/// count of (decimal, or hexadecimal after `0x`), as for every randomized test of the
/// workspace.
#[cfg(test)]
pub(crate) fn property_config() -> proptest::test_runner::Config {
    use proptest::test_runner::{Config, RngSeed};
    let var = |name: &str| {
        let text = std::env::var(name).ok()?.trim().replace('_', "");
        if text.is_empty() {
            return None;
        }
        let parsed = match text.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => text.parse(),
        };
        Some(parsed.unwrap_or_else(|_| panic!("{name}={text:?} is not a number")))
    };
    let default = Config::default();
    Config {
        rng_seed: RngSeed::Fixed(0xc0de_5eed ^ var("GPU_XOR_SEED").unwrap_or(0)),
        cases: var("GPU_XOR_CASES").map_or(default.cases, |n| u32::try_from(n).unwrap_or(u32::MAX)),
        ..default
    }
}
