//! The WGSL sources, one table of them.
//!
//! Each kernel is `shaders/shared/common.wgsl` followed by its own file (WGSL has no
//! includes); both parts are static text, joined at compile time. Pipelines specialise them
//! through `override` constants only.

use crate::layout::KernelKind;

/// `shaders/shared/common.wgsl`: overrides, metadata layout, lane helpers.
pub const COMMON: &str = include_str!("../../shaders/shared/common.wgsl");

/// One kernel's complete WGSL source.
#[derive(Clone, Copy, Debug)]
pub struct ShaderSource {
    /// The kernel family it implements.
    pub kernel: KernelKind,
    /// File name under `shaders/`.
    pub name: &'static str,
    /// The entry point.
    pub entry_point: &'static str,
    /// Complete source: the shared part, then the kernel.
    pub source: &'static str,
}

/// Every kernel.
pub const KERNELS: [ShaderSource; 3] = [
    ShaderSource {
        kernel: KernelKind::Contiguous,
        name: "contiguous.wgsl",
        entry_point: "main",
        source: concat!(
            include_str!("../../shaders/shared/common.wgsl"),
            "\n",
            include_str!("../../shaders/contiguous.wgsl")
        ),
    },
    ShaderSource {
        kernel: KernelKind::Gather,
        name: "gather.wgsl",
        entry_point: "main",
        source: concat!(
            include_str!("../../shaders/shared/common.wgsl"),
            "\n",
            include_str!("../../shaders/gather.wgsl")
        ),
    },
    ShaderSource {
        kernel: KernelKind::Scatter,
        name: "scatter.wgsl",
        entry_point: "main",
        source: concat!(
            include_str!("../../shaders/shared/common.wgsl"),
            "\n",
            include_str!("../../shaders/scatter.wgsl")
        ),
    },
];

/// The source of one kernel family (`None` for [`KernelKind::Empty`]).
pub fn source(kernel: KernelKind) -> Option<&'static ShaderSource> {
    KERNELS.iter().find(|s| s.kernel == kernel)
}

/// The override constants one pipeline is created with, by name.
///
/// `width` is the element size in bytes, `logical` selects LOGICAL_XOR's function, and
/// `a_src` / `b_src` the binding each input is read from (0 output, 1 and 2 inputs).
pub fn override_constants(
    width: u32,
    logical: bool,
    a_src: u32,
    b_src: u32,
) -> [(&'static str, f64); 4] {
    [
        ("WIDTH", f64::from(width)),
        ("LOGICAL", if logical { 1.0 } else { 0.0 }),
        ("A_SRC", f64::from(a_src)),
        ("B_SRC", f64::from(b_src)),
    ]
}

/// The (A, B) source pairs of the five binding patterns, in the order of
/// [`crate::BindingPattern`]: distinct, inputs share, output shares A, output shares B, all
/// share.
pub const SOURCE_PAIRS: [(u32, u32); 5] = [(1, 2), (1, 1), (0, 1), (1, 0), (0, 0)];
