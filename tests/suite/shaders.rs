//! Every shader, with every combination of its override constants, parsed and validated by
//! naga and translated to SPIR-V (Vulkan), MSL (Metal), HLSL (DX12) and GLSL ES 3.1 (GL), so
//! that backends without hardware here are still checked. Pure CPU: no adapter needed.

use gpu_xor::kernels::shaders::{KERNELS, Overrides, SOURCE_PAIRS};
use naga::back::{glsl, hlsl, msl, spv};
use naga::valid::{Capabilities, ValidationFlags, Validator};

fn validator() -> Validator {
    // No optional capability: the kernels must run on every adapter.
    Validator::new(ValidationFlags::all(), Capabilities::empty())
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
        for width in [1u32, 2, 4, 8] {
            for logical in [false, true] {
                for (((a_src, b_src), (a_mode, b_mode)), rank) in SOURCE_PAIRS
                    .into_iter()
                    .flat_map(|p| [(0, 0), (0, 1), (1, 0), (1, 1)].map(|m| (p, m)))
                    .flat_map(|pm| [0, 1, 2].map(|r| (pm, r)))
                {
                    let overrides = Overrides {
                        width,
                        logical,
                        a_src,
                        b_src,
                        a_mode,
                        b_mode,
                        rank,
                    };
                    let mut constants = naga::back::PipelineConstants::default();
                    for (name, value) in overrides.constants() {
                        constants.insert(name.to_string(), value);
                    }
                    let what = format!("{} {overrides:?}", kernel.name);
                    let entry = (naga::ShaderStage::Compute, kernel.entry_point);
                    let (module, info) = naga::back::pipeline_constants::process_overrides(
                        &module,
                        &info,
                        Some(entry),
                        &constants,
                    )
                    .unwrap_or_else(|e| panic!("{what}: overrides: {e}"));
                    // The specialised module still validates.
                    let info_again = validator()
                        .validate(&module)
                        .unwrap_or_else(|e| panic!("{what}: {e:?}"));
                    drop(info_again);

                    let words = spv::write_vec(
                        &module,
                        &info,
                        &spv::Options::default(),
                        Some(&spv::PipelineOptions {
                            shader_stage: naga::ShaderStage::Compute,
                            entry_point: kernel.entry_point.to_string(),
                        }),
                    )
                    .unwrap_or_else(|e| panic!("{what}: SPIR-V: {e}"));
                    assert_eq!(words[0], 0x0723_0203, "{what}: SPIR-V magic");

                    let (metal, _) = msl::write_string(
                        &module,
                        &info,
                        &msl::Options {
                            lang_version: (2, 1),
                            ..msl::Options::default()
                        },
                        &msl::PipelineOptions {
                            entry_point: Some((
                                naga::ShaderStage::Compute,
                                kernel.entry_point.to_string(),
                            )),
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
                            entry_point: Some((
                                naga::ShaderStage::Compute,
                                kernel.entry_point.to_string(),
                            )),
                        },
                    )
                    .write(&module, &info, None)
                    .unwrap_or_else(|e| panic!("{what}: HLSL: {e}"));
                    assert!(hlsl_out.contains("[numthreads("), "{what}: HLSL");

                    let mut glsl_out = String::new();
                    glsl::Writer::new(
                        &mut glsl_out,
                        &module,
                        &info,
                        &glsl::Options {
                            version: glsl::Version::Embedded {
                                version: 310,
                                is_webgl: false,
                            },
                            ..glsl::Options::default()
                        },
                        &glsl::PipelineOptions {
                            shader_stage: naga::ShaderStage::Compute,
                            entry_point: kernel.entry_point.to_string(),
                            multiview: None,
                        },
                        naga::proc::BoundsCheckPolicies::default(),
                    )
                    .and_then(|mut w| w.write().map(|_| ()))
                    .unwrap_or_else(|e| panic!("{what}: GLSL: {e}"));
                    assert!(glsl_out.contains("layout(local_size_x = "), "{what}: GLSL");
                    translated += 1;
                }
            }
        }
    }
    assert_eq!(
        translated,
        KERNELS.len() * 4 * 2 * SOURCE_PAIRS.len() * 4 * 3
    );
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
    assert!(gpu_xor::kernels::shaders::COMMON.contains("Metadata"));
}
