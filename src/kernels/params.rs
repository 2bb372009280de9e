//! The metadata record each dispatch reads (binding 0).

use bytemuck::{Pod, Zeroable};

/// Dimensions a kernel takes; higher ranks are cut into pieces by the host.
pub(crate) const MAX_KERNEL_RANK: usize = 8;

/// Mirrors `struct Params` of `shaders/shared/common.wgsl`, field for field; the arrays of
/// eight are `array<vec4<u32>, 2>` there (uniform arrays need 16-byte strides).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub(crate) struct Params {
    /// Work units, rank, invocations per grid row, elements.
    pub head: [u32; 4],
    /// Element offsets of out, a, b in their windows; the fourth is unused.
    pub base: [u32; 4],
    pub sizes: [u32; MAX_KERNEL_RANK],
    pub out_strides: [u32; MAX_KERNEL_RANK],
    pub a_strides: [u32; MAX_KERNEL_RANK],
    pub b_strides: [u32; MAX_KERNEL_RANK],
}

/// Bytes between two records in the metadata buffer: the record rounded up to the device's
/// `min_uniform_buffer_offset_alignment`.
pub(crate) fn record_stride(min_uniform_offset_alignment: u32) -> u64 {
    let align = u64::from(min_uniform_offset_alignment.max(16));
    (std::mem::size_of::<Params>() as u64).div_ceil(align) * align
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::shaders::KERNELS;

    /// The Rust struct and every shader's `Params` agree on size and field offsets.
    #[test]
    fn params_layout_matches_wgsl() {
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
            assert_eq!(offsets, vec![0, 16, 32, 64, 96, 128], "{}", k.name);
            assert_eq!(std::mem::offset_of!(Params, sizes), 32);
            assert_eq!(std::mem::offset_of!(Params, out_strides), 64);
            assert_eq!(std::mem::offset_of!(Params, a_strides), 96);
            assert_eq!(std::mem::offset_of!(Params, b_strides), 128);
        }
    }

    #[test]
    fn records_are_spaced_by_the_uniform_alignment() {
        assert_eq!(record_stride(256), 256);
        assert_eq!(record_stride(64), 192);
        assert_eq!(record_stride(1), 160);
    }
}
