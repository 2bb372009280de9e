//! OpenVINO's `auto_broadcast` attribute, in a file of its own: [`crate::Error`] carries it,
//! and the BitwiseXor-13 description and its shape rules (`broadcast.rs`) return that error.

use std::fmt;

/// OpenVINO's `auto_broadcast` attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum AutoBroadcast {
    /// `none`: the shapes must be identical.
    None,
    /// `numpy` (the default): right-align the shapes, pad the shorter with 1s on the left;
    /// each pair must be equal or contain a 1, and the result takes the other value. A 1
    /// against a 0 gives 0.
    #[default]
    Numpy,
    /// `pdpd`: B broadcasts onto A only, starting at dimension `axis` of A. `axis = -1` means
    /// `rank(A) - rank(B)`; any other negative axis is refused.
    Pdpd {
        /// The first dimension of A that B's first dimension lines up with.
        axis: i64,
    },
    /// `explicit`: a value of OpenVINO's enum that elementwise operators refuse
    /// ("Unsupported auto broadcast specification").
    Explicit,
}

impl AutoBroadcast {
    /// `pdpd` with its default axis, -1.
    pub const PDPD: AutoBroadcast = AutoBroadcast::Pdpd { axis: -1 };
}

impl fmt::Display for AutoBroadcast {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AutoBroadcast::None => f.write_str("none"),
            AutoBroadcast::Numpy => f.write_str("numpy"),
            AutoBroadcast::Pdpd { axis } => write!(f, "pdpd(axis={axis})"),
            AutoBroadcast::Explicit => f.write_str("explicit"),
        }
    }
}
