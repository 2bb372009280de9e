//! The WGSL sources, one table of them.
//!
//! Each kernel is `shaders/shared/common.wgsl`, then `shaders/shared/math.wgsl` (the index
//! arithmetic the fused kernels share), then its input bindings
//! (`shaders/shared/inputs_{blocks,words}_{read,read_write}.wgsl`), then its output binding
//! and loaders (`shaders/shared/blocks.wgsl` or `words.wgsl`), then the constants of its
//! table entry, then its own file; WGSL has no includes, so the static parts are joined at compile time. Pipelines
//! specialise them through `override` constants only. The fused expressions' kernels are
//! generated instead (`fused.rs`).

use crate::layout::KernelKind;

/// `shaders/shared/common.wgsl`: overrides, metadata layout, lane helpers. The kernels
/// include it by path (`concat!` takes literals only); the tests read it here.
#[cfg(test)]
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
        kernel!($kernel, $file, $output, $inputs, $rw, "")
    };
    ($kernel:ident, $file:literal, $output:literal, $inputs:literal, $rw:literal, $consts:literal) => {
        ShaderSource {
            kernel: KernelKind::$kernel,
            inputs_read_write: $rw,
            name: $file,
            entry_point: "main",
            source: concat!(
                include_str!("../../shaders/shared/common.wgsl"),
                "\n",
                include_str!("../../shaders/shared/math.wgsl"),
                "\n",
                include_str!(concat!("../../shaders/shared/inputs_", $inputs, ".wgsl")),
                "\n",
                include_str!(concat!("../../shaders/shared/", $output, ".wgsl")),
                "\n",
                $consts,
                "\n",
                include_str!(concat!("../../shaders/", $file))
            ),
        }
    };
}

/// Every kernel, each with read-only and read-write input bindings.
pub const KERNELS: [ShaderSource; 16] = [
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
    kernel!(ShiftedRows, "shifted.wgsl", "words", "words_read", false),
    kernel!(
        ShiftedRows,
        "shifted.wgsl",
        "words",
        "words_read_write",
        true
    ),
    kernel!(Gather, "gather.wgsl", "words", "words_read", false),
    kernel!(Gather, "gather.wgsl", "words", "words_read_write", true),
    kernel!(Tile, "tile.wgsl", "words", "words_read", false),
    kernel!(Tile, "tile.wgsl", "words", "words_read_write", true),
    kernel!(BlockTile, "block_tile.wgsl", "blocks", "blocks_read", false),
    kernel!(
        BlockTile,
        "block_tile.wgsl",
        "blocks",
        "blocks_read_write",
        true
    ),
    kernel!(
        Scatter,
        "scatter.wgsl",
        "words",
        "words_read",
        false,
        "const SHARED_WORDS: bool = true;"
    ),
    kernel!(
        Scatter,
        "scatter.wgsl",
        "words",
        "words_read_write",
        true,
        "const SHARED_WORDS: bool = true;"
    ),
    kernel!(
        Spaced,
        "scatter.wgsl",
        "words",
        "words_read",
        false,
        "const SHARED_WORDS: bool = false;"
    ),
    kernel!(
        Spaced,
        "scatter.wgsl",
        "words",
        "words_read_write",
        true,
        "const SHARED_WORDS: bool = false;"
    ),
];

/// The source of one kernel family (`None` for [`KernelKind::Empty`]).
pub fn source(kernel: KernelKind, inputs_read_write: bool) -> Option<&'static ShaderSource> {
    KERNELS
        .iter()
        .find(|s| s.kernel == kernel && s.inputs_read_write == inputs_read_write)
}

/// The constants the WGSL and the host share, read from the parsed modules rather than
/// compared by hand: records per binding, the metadata record's size and field offsets,
/// workgroup sizes, the tile's side and passes, and the rule that no kernel keeps
/// per-invocation state in a private global (the call index is passed to every accessor, so
/// no kernel can read metadata before it knows its call).
///
/// And every shader, with every combination of its override constants, parsed and validated
/// by naga and translated to SPIR-V (Vulkan), MSL (Metal), HLSL (DX12) and GLSL ES 3.1 (GL),
/// so that backends without hardware here are still checked. Pure CPU: no adapter needed.
#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::layout::BindingPattern;
    use crate::schedule::Overrides;
    use crate::schedule::dispatch::{BLOCK_TILE, ROWS_PER_PASS, TILE, WORD_ROWS, WORKGROUP_SIZE};
    use crate::schedule::params::{Params, RECORD_BYTES, RECORDS_PER_BINDING};
    use naga::back::{glsl, hlsl, msl, spv};
    use naga::valid::{Capabilities, ValidationFlags, Validator};

    fn parse(source: &ShaderSource) -> naga::Module {
        naga::front::wgsl::parse_str(source.source)
            .unwrap_or_else(|e| panic!("{}: {}", source.name, e.emit_to_string(source.source)))
    }

    /// The value of the module-scope `const name: u32`.
    fn const_u32(module: &naga::Module, name: &str) -> u32 {
        let (_, constant) = module
            .constants
            .iter()
            .find(|(_, c)| c.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no const {name}"));
        match module.global_expressions[constant.init] {
            naga::Expression::Literal(naga::Literal::U32(v)) => v,
            ref other => panic!("const {name} is {other:?}, not a u32 literal"),
        }
    }

    /// The byte size of a type of the module.
    fn size_of(module: &naga::Module, ty: naga::Handle<naga::Type>) -> u32 {
        let mut layouter = naga::proc::Layouter::default();
        layouter.update(module.to_ctx()).expect("layout");
        layouter[ty].size
    }

    /// No kernel uses atomics: every output word has one writer in a dispatch. Checked on the
    /// parsed modules (no atomic type, no atomic statement) and on the text outside comments.
    #[test]
    fn no_kernel_uses_atomics() {
        for source in KERNELS {
            let module = parse(&source);
            assert!(
                !module
                    .types
                    .iter()
                    .any(|(_, t)| matches!(t.inner, naga::TypeInner::Atomic(_))),
                "{} declares an atomic type",
                source.name
            );
            let code = source
                .source
                .lines()
                .map(|line| line.split("//").next().unwrap_or(""))
                .collect::<Vec<_>>()
                .join("\n");
            assert!(!code.contains("atomic"), "{} uses atomics", source.name);
        }
    }

    #[test]
    fn records_per_binding_and_record_size_match_the_wgsl() {
        for source in KERNELS {
            let module = parse(&source);
            assert_eq!(
                const_u32(&module, "RECORDS") as usize,
                RECORDS_PER_BINDING,
                "{}",
                source.name
            );
            let (_, records) = module
                .global_variables
                .iter()
                .find(|(_, g)| g.name.as_deref() == Some("records"))
                .expect("a `records` binding");
            assert_eq!(records.binding.as_ref().map(|b| b.binding), Some(0));
            match module.types[records.ty].inner {
                naga::TypeInner::Array {
                    base,
                    size: naga::ArraySize::Constant(n),
                    stride,
                } => {
                    assert_eq!(n.get() as usize, RECORDS_PER_BINDING, "{}", source.name);
                    assert_eq!(u64::from(stride), RECORD_BYTES, "{}", source.name);
                    assert_eq!(
                        u64::from(size_of(&module, base)),
                        RECORD_BYTES,
                        "{}",
                        source.name
                    );
                }
                ref other => panic!("{}: records is {other:?}", source.name),
            }
        }
    }

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
            assert_eq!(
                offsets,
                vec![0, 16, 32, 64, 96, 128, 160, 192, 224],
                "{}",
                k.name
            );
        }
        assert_eq!(std::mem::offset_of!(Params, base), 16);
        assert_eq!(std::mem::offset_of!(Params, sizes), 32);
        assert_eq!(std::mem::offset_of!(Params, out_strides), 64);
        assert_eq!(std::mem::offset_of!(Params, a_strides), 96);
        assert_eq!(std::mem::offset_of!(Params, b_strides), 128);
        assert_eq!(std::mem::offset_of!(Params, size_magic), 160);
        assert_eq!(std::mem::offset_of!(Params, stride_magic), 192);
        assert_eq!(std::mem::offset_of!(Params, shifts), 224);
    }

    #[test]
    fn workgroup_sizes_match_the_dispatch_arithmetic() {
        for source in KERNELS {
            let module = parse(&source);
            assert_eq!(const_u32(&module, "WORKGROUP"), WORKGROUP_SIZE);
            let entry = module
                .entry_points
                .iter()
                .find(|e| e.name == source.entry_point)
                .expect("the entry point");
            let expected = if source.kernel == KernelKind::Tile {
                assert_eq!(u64::from(const_u32(&module, "TILE")), TILE);
                assert_eq!(const_u32(&module, "ROWS_PER_PASS"), ROWS_PER_PASS);
                assert_eq!(u64::from(const_u32(&module, "WORD_ROWS")), WORD_ROWS);
                // The 32- and 64-bit form writes out its four passes one by one.
                assert_eq!(TILE as u32 / ROWS_PER_PASS, 4);
                // The staged narrow tile: one L x L block per invocation.
                assert_eq!(
                    WORD_ROWS * WORD_ROWS,
                    u64::from(TILE as u32 * ROWS_PER_PASS)
                );
                [TILE as u32, ROWS_PER_PASS, 1]
            } else if source.kernel == KernelKind::BlockTile {
                assert_eq!(u64::from(const_u32(&module, "ROWS")), BLOCK_TILE);
                // Four blocks of four words per invocation cover the tile's rows of 64 words,
                // 16 blocks each.
                assert_eq!(const_u32(&module, "PER_ROW") * 4, 64);
                assert_eq!(
                    u64::from(const_u32(&module, "BLOCKS") * WORKGROUP_SIZE) * 4,
                    BLOCK_TILE * 64
                );
                [WORKGROUP_SIZE, 1, 1]
            } else {
                [WORKGROUP_SIZE, 1, 1]
            };
            assert_eq!(entry.workgroup_size, expected, "{}", source.name);
        }
    }

    /// The sizes in bytes of the workgroup arrays of `kernel`'s module.
    fn workgroup_arrays(kernel: KernelKind) -> Vec<u64> {
        let module = parse(source(kernel, false).expect("a kernel"));
        module
            .global_variables
            .iter()
            .filter(|(_, g)| g.space == naga::AddressSpace::WorkGroup)
            .map(|(_, g)| u64::from(size_of(&module, g.ty)))
            .collect()
    }

    #[test]
    fn workgroup_memory_holds_the_tiles() {
        // The tile kernel: one 32 x 32 tile of words per array, A's and B's low and high
        // words; the block tile kernel: one 64 x 64 tile of words.
        for (kernel, arrays, bytes) in [
            (KernelKind::Tile, 4, TILE * TILE * 4),
            (KernelKind::BlockTile, 1, BLOCK_TILE * BLOCK_TILE * 4),
        ] {
            let sizes = workgroup_arrays(kernel);
            assert_eq!(sizes, vec![bytes; arrays], "{kernel:?}");
            // WebGPU's default `max_compute_workgroup_storage_size`.
            let total: u64 = sizes.iter().sum();
            assert!(
                total <= 16384,
                "{kernel:?}: {total} bytes of workgroup memory"
            );
        }
        // A staged tile of 8-bit elements (16 rows of 4 lanes by 16 words) fills one array.
        assert_eq!(WORD_ROWS * 4 * WORD_ROWS, TILE * TILE);
    }

    /// The block tile's workgroup-memory addressing, restated from block_tile.wgsl (`unit`,
    /// `twist`, `slot` and the stores of `park`): for every element width, each scalar store
    /// of phase 1 by a warp's 32 invocations falls on 32 distinct 4-byte banks, each 16-byte
    /// read of phase 2 by eight neighbouring invocations on eight distinct bank groups, and
    /// phase 1 writes every word of the tile exactly once. A GPU runs a store that meets k
    /// invocations on one bank k times; no CPU adapter shows it, so the mapping is checked
    /// here.
    #[test]
    fn block_tile_phase_one_stores_meet_no_bank_conflicts() {
        const ROWS: u32 = 64;
        for width in [1u32, 2, 4, 8] {
            let per_block = 16 / width;
            let lanes = (4 / width).max(1);
            let unit = |u: u32| {
                let groups = ROWS / per_block;
                let gw = groups.min(8);
                let warp = u / 32;
                let g = u % gw + gw * (warp % (groups / gw));
                let q = (u % 32) / gw + (32 / gw) * (warp / (groups / gw));
                (g, q)
            };
            let twist = |i: u32| match width {
                1 => 2 * (i / 16),
                2 => i / 8,
                8 => 2 * ((i / 4) % 4),
                _ => (i / 4) % 16,
            };
            let slot = |i: u32, j: u32| i * 16 + (j ^ twist(i));
            let bank = |(i, w): (u32, u32)| (4 * slot(i, w / 4) + w % 4) % 32;
            // Invocation li's phase-1 stores in program order: (tile row, word of the row).
            let stores = |li: u32| -> Vec<(u32, u32)> {
                let units_per_invocation = 4 / lanes;
                (0..units_per_invocation)
                    .flat_map(|n| {
                        let (g, q) = unit(li + 256 * n);
                        match width {
                            8 => {
                                let odd = g % 2;
                                vec![
                                    (2 * g, 2 * q + odd),
                                    (2 * g, 2 * q + 1 - odd),
                                    (2 * g + 1, 2 * q + odd),
                                    (2 * g + 1, 2 * q + 1 - odd),
                                ]
                            }
                            _ => (0..per_block).map(|k| (per_block * g + k, q)).collect(),
                        }
                    })
                    .collect()
            };
            let mut written = vec![0u32; (ROWS * 64) as usize];
            for warp in 0..256 / 32 {
                let lists: Vec<_> = (32 * warp..32 * warp + 32).map(stores).collect();
                for n in 0..lists[0].len() {
                    let mut banks: Vec<u32> = lists.iter().map(|l| bank(l[n])).collect();
                    banks.sort_unstable();
                    banks.dedup();
                    assert_eq!(banks.len(), 32, "width {width}, warp {warp}, store {n}");
                }
                for &(i, w) in lists.iter().flatten() {
                    written[(i * 64 + w) as usize] += 1;
                }
            }
            assert!(written.iter().all(|&n| n == 1), "width {width}");
            for li in (0..256u32).step_by(8) {
                for m in 0..4 {
                    let mut groups: Vec<u32> = (li..li + 8)
                        .map(|l| slot(l / 16 + 16 * m, l % 16) % 8)
                        .collect();
                    groups.sort_unstable();
                    groups.dedup();
                    assert_eq!(groups.len(), 8, "width {width}, phase 2 at {li}");
                }
            }
        }
    }

    #[test]
    fn no_kernel_keeps_state_in_a_private_global() {
        for source in KERNELS {
            let module = parse(&source);
            let private: Vec<_> = module
                .global_variables
                .iter()
                .filter(|(_, g)| g.space == naga::AddressSpace::Private)
                .map(|(_, g)| g.name.clone())
                .collect();
            assert!(private.is_empty(), "{}: {private:?}", source.name);
        }
    }

    /// Translates a validated module to SPIR-V, MSL, HLSL and GLSL ES 3.1, each checked for
    /// its entry point: what every kernel, fixed or generated, must pass.
    pub(crate) fn translate(
        module: &naga::Module,
        info: &naga::valid::ModuleInfo,
        entry_point: &str,
        what: &str,
    ) {
        let words = spv::write_vec(
            module,
            info,
            &spv::Options::default(),
            Some(&spv::PipelineOptions {
                shader_stage: naga::ShaderStage::Compute,
                entry_point: entry_point.to_string(),
            }),
        )
        .unwrap_or_else(|e| panic!("{what}: SPIR-V: {e}"));
        assert_eq!(words[0], 0x0723_0203, "{what}: SPIR-V magic");

        let (metal, _) = msl::write_string(
            module,
            info,
            &msl::Options {
                lang_version: (2, 1),
                ..msl::Options::default()
            },
            &msl::PipelineOptions {
                entry_point: Some((naga::ShaderStage::Compute, entry_point.to_string())),
                ..msl::PipelineOptions::default()
            },
        )
        .unwrap_or_else(|e| panic!("{what}: MSL: {e}"));
        assert!(metal.contains("kernel void"), "{what}: MSL has no kernel");

        let mut hlsl_out = String::new();
        hlsl::Writer::new(
            &mut hlsl_out,
            &hlsl::Options::default(),
            &hlsl::PipelineOptions {
                entry_point: Some((naga::ShaderStage::Compute, entry_point.to_string())),
            },
        )
        .write(module, info, None)
        .unwrap_or_else(|e| panic!("{what}: HLSL: {e}"));
        assert!(hlsl_out.contains("[numthreads("), "{what}: HLSL");

        let mut glsl_out = String::new();
        glsl::Writer::new(
            &mut glsl_out,
            module,
            info,
            &glsl::Options {
                version: glsl::Version::Embedded {
                    version: 310,
                    is_webgl: false,
                },
                ..glsl::Options::default()
            },
            &glsl::PipelineOptions {
                shader_stage: naga::ShaderStage::Compute,
                entry_point: entry_point.to_string(),
                multiview: None,
            },
            naga::proc::BoundsCheckPolicies::default(),
        )
        .and_then(|mut w| w.write().map(|_| ()))
        .unwrap_or_else(|e| panic!("{what}: GLSL: {e}"));
        assert!(glsl_out.contains("layout(local_size_x = "), "{what}: GLSL");
    }

    pub(crate) fn validator() -> Validator {
        // No optional capability: the kernels must run on every adapter.
        Validator::new(ValidationFlags::all(), Capabilities::empty())
    }

    /// `module` (of `kernel`, validated as `info`) with `overrides` set: it still validates,
    /// and translates to every backend.
    fn specialise_and_translate(
        kernel: &ShaderSource,
        module: &naga::Module,
        info: &naga::valid::ModuleInfo,
        overrides: Overrides,
    ) {
        let mut constants = naga::back::PipelineConstants::default();
        for (name, value) in overrides.constants() {
            constants.insert(name.to_string(), value);
        }
        let what = format!("{} {overrides:?}", kernel.name);
        let entry = (naga::ShaderStage::Compute, kernel.entry_point);
        let (module, info) = naga::back::pipeline_constants::process_overrides(
            module,
            info,
            Some(entry),
            &constants,
        )
        .unwrap_or_else(|e| panic!("{what}: overrides: {e}"));
        validator()
            .validate(&module)
            .unwrap_or_else(|e| panic!("{what}: {e:?}"));
        translate(&module, &info, kernel.entry_point, &what);
    }

    #[test]
    fn every_kernel_translates_to_every_backend_with_every_override_set() {
        let mut translated = 0;
        for kernel in KERNELS {
            let module = naga::front::wgsl::parse_str(kernel.source)
                .unwrap_or_else(|e| panic!("{}: {}", kernel.name, e.emit_to_string(kernel.source)));
            let info = validator()
                .validate(&module)
                .unwrap_or_else(|e| panic!("{}: {}", kernel.name, e.emit_to_string(kernel.source)));
            // Every element function (`FUNC` 0 to 7: the word-wide ones, the shifts, the count
            // of ones), the logical forms for the word-wide ones.
            for (width, function) in [1u32, 2, 4, 8]
                .into_iter()
                .flat_map(|w| (0u32..8).map(move |f| (w, f)))
            {
                // The count of ones with an input of another width, on the kernels that go
                // element by element.
                let per_element = matches!(
                    kernel.kernel,
                    KernelKind::Contiguous
                        | KernelKind::Gather
                        | KernelKind::Scatter
                        | KernelKind::Spaced
                );
                let in_widths: &[u32] = if function == 7 && per_element {
                    &[0, 1, 2, 4, 8]
                } else {
                    &[0]
                };
                for (logical, &in_width) in [false, true]
                    .into_iter()
                    .filter(|&logical| !logical || function <= 3)
                    .flat_map(|logical| in_widths.iter().map(move |w| (logical, w)))
                {
                    for (((a_src, b_src), (a_mode, b_mode)), rank) in BindingPattern::ALL
                        .map(|p| (p.slots()[1] as u32, p.slots()[2] as u32))
                        .into_iter()
                        .flat_map(|p| [(0, 0), (0, 1), (1, 0), (1, 1)].map(|m| (p, m)))
                        // The contiguous kernel's modes 2 (a repeated input of whole-block
                        // rows) and 3 (one element over the run), in A's place and in B's.
                        .chain(
                            (kernel.kernel == KernelKind::Contiguous)
                                .then_some([
                                    ((1, 2), (2, 0)),
                                    ((1, 2), (0, 2)),
                                    ((1, 2), (3, 0)),
                                    ((1, 2), (0, 3)),
                                ])
                                .into_iter()
                                .flatten(),
                        )
                        .flat_map(|pm| [0, 1, 2, 3, 4].map(|r| (pm, r)))
                        // XOR with every mode and rank; each other function (its own
                        // `apply` arm, independent of them) with two of each.
                        .filter(|&((_, m), r)| function == 0 || (m.0 == m.1 && r % 2 == 0))
                    {
                        // The contiguous and rows kernels' four forms (direct, tail), the
                        // shifted-rows kernel's two (spread); the others have one.
                        let forms: &[(bool, bool, bool)] = match kernel.kernel {
                            KernelKind::Contiguous | KernelKind::Rows => &[
                                (false, false, false),
                                (false, true, false),
                                (true, false, false),
                                (true, true, false),
                            ],
                            KernelKind::ShiftedRows => {
                                &[(false, false, false), (false, false, true)]
                            }
                            _ => &[(false, false, false)],
                        };
                        for &(direct, tail, spread) in forms {
                            let overrides = Overrides {
                                width,
                                function,
                                logical,
                                a_src,
                                b_src,
                                a_mode,
                                b_mode,
                                rank,
                                direct,
                                tail,
                                spread,
                                in_width,
                            };
                            specialise_and_translate(&kernel, &module, &info, overrides);
                            translated += 1;
                        }
                    }
                }
            }
        }
        let contiguous = KERNELS
            .iter()
            .filter(|k| k.kernel == KernelKind::Contiguous)
            .count();
        let rows = KERNELS
            .iter()
            .filter(|k| k.kernel == KernelKind::Rows)
            .count();
        let shifted = KERNELS
            .iter()
            .filter(|k| k.kernel == KernelKind::ShiftedRows)
            .count();
        let per_element = KERNELS
            .iter()
            .map(|k| match k.kernel {
                KernelKind::Gather | KernelKind::Scatter | KernelKind::Spaced => 1,
                // Its four forms.
                KernelKind::Contiguous => 4,
                _ => 0,
            })
            .sum::<usize>();
        assert_eq!(
            translated,
            // Every kernel once, the contiguous and rows kernels in three more forms and the
            // shifted-rows kernel in one more, at 4 widths: XOR with 4 modes and 5 ranks, AND,
            // OR and NOT with 2 modes and 3 ranks, each bitwise and logical; the three shifts
            // and the count of ones with 2 modes and 3 ranks, bitwise only, the count on the
            // per-element kernels at 4 more input widths; and the contiguous kernel's two
            // mode-2 and two mode-3 pairs with XOR, 5 ranks each, in its four forms.
            (KERNELS.len() + 3 * contiguous + 3 * rows + shifted)
                * 4
                * BindingPattern::ALL.len()
                * (2 * (4 * 5 + 3 * 2 * 3) + 4 * 2 * 3)
                + per_element * 4 * BindingPattern::ALL.len() * 4 * 2 * 3
                + 4 * contiguous * 4 * 2 * 4 * 5
        );
    }

    #[test]
    fn the_tile_kernels_translate_at_every_rank_a_batch_takes() {
        // Their batch loop (`tile_row`) at ranks 5 to 8, beyond the ranks above: every width,
        // staged or not in A's place, B by words, staged or (block tile) by blocks.
        let mut translated = 0;
        for kernel in KERNELS
            .iter()
            .filter(|k| matches!(k.kernel, KernelKind::Tile | KernelKind::BlockTile))
        {
            let module = naga::front::wgsl::parse_str(kernel.source)
                .unwrap_or_else(|e| panic!("{}: {}", kernel.name, e.emit_to_string(kernel.source)));
            let info = validator()
                .validate(&module)
                .unwrap_or_else(|e| panic!("{}: {e:?}", kernel.name));
            let b_modes: &[u32] = if kernel.kernel == KernelKind::BlockTile {
                &[0, 1, 2]
            } else {
                &[0, 1]
            };
            for (width, rank, a_mode, &b_mode) in [1u32, 2, 4, 8].into_iter().flat_map(|w| {
                (5u32..=8).flat_map(move |r| {
                    [0u32, 1]
                        .into_iter()
                        .flat_map(move |a| b_modes.iter().map(move |b| (w, r, a, b)))
                })
            }) {
                let overrides = Overrides {
                    width,
                    function: 0,
                    logical: false,
                    a_src: 1,
                    b_src: 2,
                    a_mode,
                    b_mode,
                    rank,
                    direct: false,
                    tail: false,
                    spread: false,
                    in_width: 0,
                };
                specialise_and_translate(kernel, &module, &info, overrides);
                translated += 1;
            }
        }
        // Two variants of each kernel (inputs read only, and read-write).
        assert_eq!(translated, 2 * 4 * 4 * 2 * (2 + 3));
    }

    #[test]
    fn every_kernel_documents_its_entry_points_bindings_and_metadata() {
        for kernel in KERNELS {
            assert!(
                kernel.source.contains("Entry point: `main`"),
                "{}",
                kernel.name
            );
            assert!(kernel.source.contains("Bindings:"), "{}", kernel.name);
        }
        assert!(COMMON.contains("Metadata"));
    }
}
