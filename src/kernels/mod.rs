//! The kernels on the device: the WGSL sources and their table, and the pipeline cache. What
//! a kernel is chosen for, its metadata record and its dispatch sizes are decided without a
//! device, in `gpu_xor_core::schedule`. Every kernel sees only `u32` words, so no optional
//! device feature (SHADER_INT64, SHADER_F16) is ever needed.

pub(crate) mod fused;
pub(crate) mod knn;
pub(crate) mod pipelines;
pub(crate) mod shaders;
