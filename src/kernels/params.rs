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
/// eight are `array<vec4<u32>, 2>` there.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::shaders::KERNELS;

    /// The Rust struct and every shader's `Params` agree on size and field offsets.
    #[test]
    fn params_layout_matches_wgsl() {
        assert_eq!(std::mem::size_of::<Params>() as u64, RECORD_BYTES);
        for k in KERNELS {
            let module = naga::front::wgsl::parse_str(k.source).expect(k.name);
            let mut layouter = naga::proc::Layouter::default();
            layouter.update(module.to_ctx()).unwrap();
            let (handle, ty) = module
                .types
                .iter()
                .find(|(_, t)| t.name.as_deref() == Some("Params"))
                .expect("Params");
            assert_eq!(
                layouter[handle].size as usize,
                std::mem::size_of::<Params>(),
                "{}",
                k.name
            );
            let naga::TypeInner::Struct { members, .. } = &ty.inner else {
                panic!("Params is a struct");
            };
            let offsets: Vec<u32> = members.iter().map(|m| m.offset).collect();
            assert_eq!(offsets, vec![0, 16, 32, 64, 96, 128, 160], "{}", k.name);
        }
        assert_eq!(std::mem::offset_of!(Params, base), 16);
        assert_eq!(std::mem::offset_of!(Params, sizes), 32);
        assert_eq!(std::mem::offset_of!(Params, out_strides), 64);
        assert_eq!(std::mem::offset_of!(Params, a_strides), 96);
        assert_eq!(std::mem::offset_of!(Params, b_strides), 128);
        assert_eq!(std::mem::offset_of!(Params, pad), 160);
    }
}
