//! The metadata record each call reads (binding 0).

use bytemuck::{Pod, Zeroable};

/// Dimensions a kernel takes; higher ranks are cut into pieces by the host.
pub(crate) const MAX_KERNEL_RANK: usize = 8;

/// Bytes of one record: a multiple of every device's `min_uniform_buffer_offset_alignment`
/// (WebGPU caps it at 256), so that any record can start a dispatch's binding.
pub(crate) const RECORD_BYTES: u64 = 256;

/// Records one binding holds (`RECORDS` in common.wgsl): 16 KiB, within every device's
/// `max_uniform_buffer_binding_size`. It is also the most calls one dispatch runs.
pub(crate) const RECORDS_PER_BINDING: usize = 64;

/// Mirrors `struct Params` of `shaders/shared/common.wgsl`, field for field; the arrays of
/// eight are `array<vec4<u32>, 2>` there. The tests of `shaders.rs`, where the WGSL is parsed,
/// check that the sizes and field offsets agree.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub(crate) struct Params {
    /// Work units, rank, invocations per grid row, elements (or rows).
    pub head: [u32; 4],
    /// Element offsets of out, a, b in their windows; first row or tile row.
    pub base: [u32; 4],
    pub sizes: [u32; MAX_KERNEL_RANK],
    pub out_strides: [u32; MAX_KERNEL_RANK],
    pub a_strides: [u32; MAX_KERNEL_RANK],
    pub b_strides: [u32; MAX_KERNEL_RANK],
    pub pad: [u32; 24],
}

impl Default for Params {
    fn default() -> Params {
        Params::zeroed()
    }
}
