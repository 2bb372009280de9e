//! The bind groups a context keeps for one-shot calls (on its metadata arena's slabs), and
//! what each binds: a call recorded once and dropped finds the one an earlier call on the
//! same buffers made, instead of making its own.

use crate::schedule::lower::MAX_SLOTS;
use crate::schedule::merge::BindSet;

/// A bind group kept on a slab of the arena for one-shot calls, and what it binds besides
/// the slab: the layout and each slot's buffer and range.
pub(crate) struct KeptGroup {
    pub inputs_rw: bool,
    pub fused: bool,
    pub slots: [Option<(wgpu::Buffer, u64, u64)>; MAX_SLOTS],
    pub group: wgpu::BindGroup,
}

impl KeptGroup {
    /// Whether it binds `set` on `buffers` (the slab being the one it is kept on).
    pub(crate) fn binds_set(&self, set: &BindSet, buffers: &[wgpu::Buffer]) -> bool {
        self.inputs_rw == set.inputs_rw
            && self.fused == set.fused
            && self
                .slots
                .iter()
                .zip(&set.slots)
                .all(|(kept, slot)| match (kept, slot) {
                    (None, None) => true,
                    (Some((buffer, start, end)), Some(r)) => {
                        *start == r.start && *end == r.end && *buffer == buffers[r.buffer]
                    }
                    _ => false,
                })
    }

    /// Whether it names `buffer`.
    pub(crate) fn names(&self, buffer: &wgpu::Buffer) -> bool {
        self.slots.iter().flatten().any(|(b, _, _)| b == buffer)
    }
}

impl std::fmt::Debug for KeptGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeptGroup")
            .field("inputs_rw", &self.inputs_rw)
            .field("fused", &self.fused)
            .finish_non_exhaustive()
    }
}
