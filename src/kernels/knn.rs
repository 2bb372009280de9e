//! The kernels of a search in Hamming space (`knn.wgsl`): their constants, their source,
//! and their pipelines, made once per context for each set of constants.

use std::collections::HashMap;
use std::num::NonZeroU64;
use std::sync::{Arc, Mutex};

use crate::error::{Error, WgpuError};
use crate::scope::{Late, capture};
use crate::sync::lock;

/// The kernels' entry points (a search runs `bound` first, then the others in order).
pub(crate) const ENTRY_POINTS: [&str; 7] = [
    "histogram",
    "threshold",
    "nearer",
    "ties",
    "tied",
    "finish",
    "bound",
];
pub(crate) const HISTOGRAM: usize = 0;
pub(crate) const THRESHOLD: usize = 1;
pub(crate) const NEARER: usize = 2;
pub(crate) const TIES: usize = 3;
pub(crate) const TIED: usize = 4;
pub(crate) const FINISH: usize = 5;
pub(crate) const BOUND: usize = 6;

/// Invocations of a workgroup.
pub(crate) const WORKGROUP: u32 = 256;
/// Results a query's finishing sort holds.
pub(crate) const SORT: u64 = 1024;
/// Candidates a query keeps from its histograms.
pub(crate) const CANDIDATES: u64 = 4096;
/// Bytes of one dispatch's parameters in the uniform buffer (a dynamic offset's alignment).
pub(crate) const PARAMS_BYTES: u64 = 256;
/// Words a workgroup stages of its queries, at most.
const STAGE_WORDS: u32 = 1024;
/// Staged words per query up to which the distances' loop is unrolled.
const UNROLLED: u32 = 16;
/// Counters of a workgroup's own histograms, at most (10 KiB, with the staged queries under
/// WebGPU's 16 KiB of workgroup memory).
const LOCAL_BINS: u32 = 2560;

/// The constants a search's kernels are compiled with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct KnnKernel {
    /// Bytes of an element as the kernels read it: 1, 2, 4 or 8.
    pub width: u32,
    /// Elements of a code.
    pub words: u32,
    /// Queries a workgroup compares with each code it reads.
    pub queries: u32,
    /// Distances 0 to the bits of a code.
    pub bins: u32,
    /// Whether each workgroup counts in workgroup memory first.
    pub local: bool,
    /// Whether the inputs are bound `read_write` (they share a buffer with an output).
    pub inputs_rw: bool,
}

impl KnnKernel {
    /// The constants for codes of `words` elements of `width` bytes, searched for `m`
    /// queries: as many queries a workgroup as its staged words and counters hold, up to 8
    /// and no more than `m` (rounded up to a power of two).
    pub fn new(width: u32, words: u32, m: u64, inputs_rw: bool) -> KnnKernel {
        let stage = words * width.div_ceil(4);
        let bins = words * width * 8 + 1;
        let fits = |q: u32| q * stage <= STAGE_WORDS && q * bins <= LOCAL_BINS;
        let most = m.clamp(1, 8).next_power_of_two() as u32;
        let queries = [8, 4, 2, 1]
            .into_iter()
            .find(|&q| q <= most && fits(q))
            .unwrap_or(1);
        KnnKernel {
            width,
            words,
            queries,
            bins,
            local: queries * bins <= LOCAL_BINS,
            inputs_rw,
        }
    }

    /// The WGSL source.
    pub fn source(&self) -> String {
        let ew = self.width.div_ceil(4);
        let read = |buffer: &str| match self.width {
            8 => format!("    return {buffer}[2u * e + part];"),
            4 => format!("    return {buffer}[e];"),
            2 => format!("    return ({buffer}[e >> 1u] >> ((e & 1u) * 16u)) & 0xffffu;"),
            _ => format!("    return ({buffer}[e >> 2u] >> ((e & 3u) * 8u)) & 0xffu;"),
        };
        let stage = self.words * ew;
        let u = |v: u32| format!("{v}u");
        // The distances of code `n` to the Q staged queries, one variable each, so that they
        // stay in registers: d0, d1, ...
        let qs = 0..self.queries;
        let (mut preload, mut distances) = (String::new(), String::new());
        distances += "        let row = p.c_base + n * p.c_row;\n";
        for qi in qs.clone() {
            distances += &format!("        var d{qi} = 0u;\n");
        }
        if stage <= UNROLLED {
            // Short codes: every staged word in a register before the codes' loop, and the
            // words' loop unrolled (a CPU adapter's gathers from workgroup memory cost more
            // than the registers; on a GPU the reads were broadcasts).
            for qi in qs.clone() {
                for j in 0..stage {
                    preload += &format!("    let s{qi}_{j} = stage[{}u];\n", qi * stage + j);
                }
            }
            for j in 0..stage {
                let (w, part) = (j / ew, j % ew);
                distances +=
                    &format!("        let c{j} = code_word(row + {w}u * p.c_word, {part}u);\n");
                for qi in qs.clone() {
                    distances += &format!("        d{qi} += countOneBits(s{qi}_{j} ^ c{j});\n");
                }
            }
        } else {
            distances += "        for (var w = 0u; w < WORDS; w++) {\n            for (var part = 0u; part < EW; part++) {\n                let c = code_word(row + w * p.c_word, part);\n                let s = w * EW + part;\n";
            for qi in qs.clone() {
                distances += &format!(
                    "                d{qi} += countOneBits(stage[{qi}u * STAGE + s] ^ c);\n"
                );
            }
            distances += "            }\n        }";
        }
        let count: String = qs
            .clone()
            .map(|qi| format!("        count(q0, {qi}u, d{qi}, n);\n"))
            .collect();
        let take: String = qs
            .clone()
            .map(|qi| format!("        take(q0, {qi}u, d{qi}, n);\n"))
            .collect();
        // The loop over a workgroup's chunk of codes: each allowed code's distances, then
        // `each` of them.
        let chunk = |each: &str| {
            format!(
                "{preload}    let first = g.x * p.chunk;\n    let end = min(first + p.chunk, p.n);\n    for (var n = first + t; n < end; n += WG) {{\n        if (!allowed(n)) {{\n            continue;\n        }}\n{distances}\n{each}    }}"
            )
        };
        include_str!("knn.wgsl")
            .replace("$CODES_COUNTED", &chunk(&count))
            .replace("$CODES_TAKEN", &chunk(&take))
            .replace("$READ_QUERY", &read("queries"))
            .replace("$READ_CODE", &read("codes"))
            .replace("$STAGE_ALL", &u(stage * self.queries))
            .replace("$STAGE", &u(stage))
            .replace("$Q", &u(self.queries))
            .replace("$WORDS", &u(self.words))
            .replace("$EW", &u(ew))
            .replace(
                "$LOCAL_BINS",
                &u(if self.local {
                    self.queries * self.bins
                } else {
                    1
                }),
            )
            .replace("$BINS", &u(self.bins))
            .replace("$LOCAL", if self.local { "true" } else { "false" })
            .replace(
                "$ACCESS",
                if self.inputs_rw { "read_write" } else { "read" },
            )
    }
}

/// The pipelines of one set of constants, and their bind group layout.
pub(crate) struct KnnPipelines {
    pub layout: wgpu::BindGroupLayout,
    pub pipelines: Vec<wgpu::ComputePipeline>,
}

/// The pipelines made so far on a context, by their constants.
#[derive(Default)]
pub(crate) struct KnnCache {
    made: Mutex<HashMap<KnnKernel, Arc<KnnPipelines>>>,
}

impl KnnCache {
    /// The pipelines for `kernel`, made on first use.
    pub fn pipelines(
        &self,
        device: &wgpu::Device,
        late: &Late,
        kernel: &KnnKernel,
    ) -> Result<Arc<KnnPipelines>, Error> {
        if let Some(p) = lock(&self.made).get(kernel) {
            return Ok(p.clone());
        }
        let made = capture(
            device,
            late,
            |e| Error::Pipeline(WgpuError::new(e)),
            || make(device, kernel),
        )
        .map_err(|e| Error::Pipeline(WgpuError::new(e)))?;
        let made = Arc::new(made);
        lock(&self.made).insert(*kernel, made.clone());
        Ok(made)
    }
}

fn make(device: &wgpu::Device, kernel: &KnnKernel) -> KnnPipelines {
    let storage = super::pipelines::storage_entry;
    let mut entries = vec![wgpu::BindGroupLayoutEntry {
        binding: 0,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: true,
            min_binding_size: NonZeroU64::new(PARAMS_BYTES),
        },
        count: None,
    }];
    entries.extend((1..4).map(|b| storage(b, !kernel.inputs_rw)));
    entries.extend((4..7).map(|b| storage(b, false)));
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("gpu-xor search"),
        entries: &entries,
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("gpu-xor search"),
        bind_group_layouts: &[Some(&layout)],
        immediate_size: 0,
    });
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("gpu-xor search"),
        source: wgpu::ShaderSource::Wgsl(kernel.source().into()),
    });
    let pipelines = ENTRY_POINTS
        .iter()
        .map(|entry| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("gpu-xor search"),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some(entry),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &[],
                    // Every kernel writes the workgroup memory it reads first.
                    zero_initialize_workgroup_memory: false,
                },
                cache: None,
            })
        })
        .collect();
    KnnPipelines { layout, pipelines }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::shaders::tests::translate;

    /// Every form of the kernels is valid WGSL and translates to every backend, and each
    /// entry point stays within WebGPU's 16 KiB of workgroup memory.
    #[test]
    fn every_form_validates() {
        for width in [1, 2, 4, 8] {
            for words in [1, 3, 8, 32, 8192 / (8 * width)] {
                for inputs_rw in [false, true] {
                    let kernel = KnnKernel::new(width, words, 8, inputs_rw);
                    let source = kernel.source();
                    let module = naga::front::wgsl::parse_str(&source)
                        .unwrap_or_else(|e| panic!("{kernel:?}: {}", e.emit_to_string(&source)));
                    let info = naga::valid::Validator::new(
                        naga::valid::ValidationFlags::all(),
                        naga::valid::Capabilities::default(),
                    )
                    .validate(&module)
                    .unwrap_or_else(|e| panic!("{kernel:?}: {e:?}"));
                    // Every entry point to SPIR-V, MSL, HLSL and GLSL ES (for a few forms:
                    // the translations take a while).
                    if words == 8 || words == 3 {
                        for entry in ENTRY_POINTS {
                            translate(&module, &info, entry, &format!("{kernel:?} {entry}"));
                        }
                    }
                    let stage = kernel.queries * words * width.div_ceil(4);
                    let local = if kernel.local {
                        kernel.queries * kernel.bins
                    } else {
                        1
                    };
                    assert!(4 * (stage + local) <= 16384, "{kernel:?}");
                }
            }
        }
    }
}
