//! What the schedule needs to know of the device: one value, read by lowering (windows, the
//! WebGPU aliasing rule) and by kernel choice (grid limits, tuning).

use std::sync::Arc;

use super::tune::KernelChoices;
use crate::layout::Limits;

/// What the schedule needs to know of the device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The largest binding and its offset alignment.
    pub windows: Limits,
    /// `max_compute_workgroups_per_dimension`.
    pub max_groups: u32,
    /// Whether no writable binding may overlap another binding of its buffer (WebGPU's rule).
    pub strict_aliasing: bool,
    /// Whether the fixed rule for CPU adapters applies
    /// ([`KernelTuning::cpu_rule`](super::KernelTuning::cpu_rule)).
    pub cpu: bool,
    /// The kernels measured fastest on the device, per layout class, where the context
    /// measures them ([`KernelTuning::Measured`](super::KernelTuning::Measured)); a class
    /// without a choice follows the rule.
    pub choices: Option<Arc<KernelChoices>>,
    /// Whether reductions shaped as contractions run the tiled kernel
    /// ([`KernelKind::FusedTiled`](crate::KernelKind::FusedTiled)); without it every
    /// reduction runs the untiled one.
    pub tiled: bool,
}
