//! The WGSL sources, one table of them.
//!
//! Each kernel is `shaders/shared/common.wgsl`, then its input bindings
//! (`shaders/shared/inputs_{blocks,words}_{read,read_write}.wgsl`), then its output binding
//! and loaders (`shaders/shared/blocks.wgsl`, `words.wgsl` or `atomic.wgsl`), then its own
//! file; WGSL has no includes, so the static parts are joined at compile time. Pipelines
//! specialise them through `override` constants only.

use crate::layout::KernelKind;

/// `shaders/shared/common.wgsl`: overrides, metadata layout, lane helpers.
pub const COMMON: &str = include_str!("../../shaders/shared/common.wgsl");

/// One kernel's complete WGSL source.
#[derive(Clone, Copy, Debug)]
pub struct ShaderSource {
    /// The kernel family it implements.
    pub kernel: KernelKind,
    /// Whether its input bindings are `read_write` (for inputs in the output's buffer that
    /// cannot share the output's binding).
    pub inputs_read_write: bool,
    /// File name under `shaders/`.
    pub name: &'static str,
    /// The entry point.
    pub entry_point: &'static str,
    /// Complete source: the shared part, the bindings and loaders, then the kernel.
    pub source: &'static str,
}

macro_rules! kernel {
    ($kernel:ident, $file:literal, $output:literal, $inputs:literal, $rw:literal) => {
        ShaderSource {
            kernel: KernelKind::$kernel,
            inputs_read_write: $rw,
            name: $file,
            entry_point: "main",
            source: concat!(
                include_str!("../../shaders/shared/common.wgsl"),
                "\n",
                include_str!(concat!("../../shaders/shared/inputs_", $inputs, ".wgsl")),
                "\n",
                include_str!(concat!("../../shaders/shared/", $output, ".wgsl")),
                "\n",
                include_str!(concat!("../../shaders/", $file))
            ),
        }
    };
}

/// Every kernel, each with read-only and read-write input bindings.
pub const KERNELS: [ShaderSource; 10] = [
    kernel!(
        Contiguous,
        "contiguous.wgsl",
        "blocks",
        "blocks_read",
        false
    ),
    kernel!(
        Contiguous,
        "contiguous.wgsl",
        "blocks",
        "blocks_read_write",
        true
    ),
    kernel!(Rows, "rows.wgsl", "blocks", "blocks_read", false),
    kernel!(Rows, "rows.wgsl", "blocks", "blocks_read_write", true),
    kernel!(Gather, "gather.wgsl", "words", "words_read", false),
    kernel!(Gather, "gather.wgsl", "words", "words_read_write", true),
    kernel!(Tile, "tile.wgsl", "words", "words_read", false),
    kernel!(Tile, "tile.wgsl", "words", "words_read_write", true),
    kernel!(Scatter, "scatter.wgsl", "atomic", "words_read", false),
    kernel!(Scatter, "scatter.wgsl", "atomic", "words_read_write", true),
];

/// The source of one kernel family (`None` for [`KernelKind::Empty`]).
pub fn source(kernel: KernelKind, inputs_read_write: bool) -> Option<&'static ShaderSource> {
    KERNELS
        .iter()
        .find(|s| s.kernel == kernel && s.inputs_read_write == inputs_read_write)
}

/// The override constants of one pipeline (see `shaders/shared/common.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Overrides {
    /// Element size in bytes: 1, 2, 4 or 8.
    pub width: u32,
    /// LOGICAL_XOR's function instead of bitwise XOR.
    pub logical: bool,
    /// The binding A is read from (0 output, 1 and 2 inputs).
    pub a_src: u32,
    /// The binding B is read from.
    pub b_src: u32,
    /// How A is read, for the rows and tile kernels (0 elsewhere).
    pub a_mode: u32,
    /// How B is read.
    pub b_mode: u32,
    /// The rank compiled in (1 or 2), or 0 to read it from the metadata.
    pub rank: u32,
}

impl Overrides {
    /// The constants by name, as pipeline creation takes them.
    pub fn constants(&self) -> [(&'static str, f64); 7] {
        [
            ("WIDTH", f64::from(self.width)),
            ("LOGICAL", if self.logical { 1.0 } else { 0.0 }),
            ("A_SRC", f64::from(self.a_src)),
            ("B_SRC", f64::from(self.b_src)),
            ("A_MODE", f64::from(self.a_mode)),
            ("B_MODE", f64::from(self.b_mode)),
            ("RANK", f64::from(self.rank)),
        ]
    }
}

/// The (A, B) source pairs of the five binding patterns, in the order of
/// [`crate::BindingPattern`]: distinct, inputs share, output shares A, output shares B, all
/// share.
pub const SOURCE_PAIRS: [(u32, u32); 5] = [(1, 2), (1, 1), (0, 1), (1, 0), (0, 0)];
