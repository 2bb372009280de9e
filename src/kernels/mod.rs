//! Layer 3, kernels: the WGSL sources and their table, the metadata record, kernel choice,
//! dispatch sizing, and the pipeline cache. Every kernel sees only `u32` words, so no
//! optional device feature (SHADER_INT64, SHADER_F16) is ever needed.

pub(crate) mod dispatch;
pub(crate) mod params;
pub(crate) mod pipelines;
pub(crate) mod select;

pub use select::KernelTuning;
pub mod shaders;
