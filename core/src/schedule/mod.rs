//! From a [`Plan`](crate::layout::Plan) and the bindings of one call to the dispatches that
//! run it, without a device: the scheduling machinery of `gpu-xor`'s device layer. It is
//! public for that crate and for white-box tests, hidden from this crate's docs, and not part
//! of its API: it may change in any version.
//!
//! - `select.rs`: which kernel runs one piece, once its bindings are known ([`KernelTuning`]).
//! - `dispatch.rs`: dispatch sizing and the metadata records of one piece.
//! - `params.rs`: the metadata record, byte for byte as the WGSL reads it.
//! - `key.rs`: what tells one pipeline from another ([`PipelineKey`]).
//! - `target.rs`: what the schedule needs to know of the device ([`Target`]).
//! - `tune.rs`: measured kernel choices: their key, their table and its bytes, the rule
//!   that turns timings into a choice.
//! - `lower.rs`: one call lowered to pieces, each with its pipeline, records and bindings.
//! - `fused.rs`: fused expressions lowered to pieces, the structure their kernels are
//!   generated from ([`fused::FusedKernel`]) and their records.
//! - `merge.rs`: pieces of many calls merged into shared dispatches.

pub mod dispatch;
pub mod fused;
pub mod key;
pub mod lower;
pub mod merge;
pub mod params;
pub mod select;
pub mod target;
pub mod tune;

pub use key::{Overrides, PipelineKey};
pub use lower::RecordSummary;
pub use select::KernelTuning;
pub use target::Target;
pub use tune::{KernelChoices, TuningKey};
