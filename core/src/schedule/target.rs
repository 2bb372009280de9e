//! What the schedule needs to know of the device: one value, read by lowering (windows, the
//! WebGPU aliasing rule) and by kernel choice (grid limits, tuning).

use crate::layout::Limits;

/// What the schedule needs to know of the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    /// The largest binding and its offset alignment.
    pub windows: Limits,
    /// `max_compute_workgroups_per_dimension`.
    pub max_groups: u32,
    /// Whether no writable binding may overlap another binding of its buffer (WebGPU's rule).
    pub strict_aliasing: bool,
    /// Whether kernel choices are tuned for a CPU adapter
    /// ([`KernelTuning`](super::KernelTuning)).
    pub cpu: bool,
}
