//! The transpose probe: one transpose, `C = Aᵀ ^ B` over `n x n` matrices of 32-bit words (the
//! strided section's `transposed` case), written several ways outside the library
//! (`transpose_words.wgsl`, `transpose_vec4.wgsl`) and timed against the library's own kernels
//! on the same buffers. The forms differ in one design choice each (tiles or none, 4- or
//! 16-byte accesses, tile side, the shader runtime checks wgpu adds), so that one run on a GPU
//! says which of them the GPU rewards. Every form's output is checked against the host's
//! transpose before it is timed.

use gpu_xor::inspect::KernelKind;
use gpu_xor::{
    Bindings, BitXorDesc, CompiledOperator, Context, DataType, DmlBinary, Prepared, TensorBinding,
    TensorDesc,
};

use crate::buffers::{flush_uploads, read};
use crate::case::kernel_names;

/// One probe size: A, B and C of `n x n` words, on the device and (A and B) on the host.
pub(crate) struct Probe {
    /// The matrices' side, a multiple of 256.
    pub(crate) n: u64,
    a: wgpu::Buffer,
    b: wgpu::Buffer,
    c: wgpu::Buffer,
    params: wgpu::Buffer,
    host_a: Vec<u32>,
    host_b: Vec<u32>,
}

/// A form of the transpose outside the library: its pipeline, bind group and grid.
pub(crate) struct Form {
    /// What the form is, for the table.
    pub(crate) name: &'static str,
    /// The form that must have written the right bytes before this one runs: the checked
    /// twin of a form without runtime checks.
    pub(crate) after: Option<&'static str>,
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    groups: (u32, u32),
}

/// The 64 x 64 tile of 16-byte accesses, which also runs without runtime checks.
const TILE_64_VEC4: &str = "tile 64, 16-byte accesses";

/// How a form's shader module is made.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Checks {
    /// `Device::create_shader_module`: wgpu's runtime checks (bounds, loop bounding, integer
    /// division) compiled in, as the library's kernels have them.
    Checked,
    /// `Device::create_shader_module_trusted` with `ShaderRuntimeChecks::unchecked()`.
    Unchecked,
}

impl Probe {
    /// A, B and C of `n x n` words (`n` a multiple of 256), A and B random.
    pub(crate) fn new(ctx: &Context, n: u64) -> Probe {
        assert!(
            n.is_multiple_of(256),
            "the probe's side is a multiple of 256"
        );
        let words = (n * n) as usize;
        let random = |seed: u64| {
            let mut rng = gpu_xor_testkit::SplitMix64::new(seed);
            (0..words)
                .map(|_| rng.next_u64() as u32)
                .collect::<Vec<u32>>()
        };
        let (host_a, host_b) = (random(21), random(22));
        let device = ctx.device();
        let buffer = |label, contents: Option<&[u32]>| {
            let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: words as u64 * 4,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: contents.is_some(),
            });
            if let Some(words) = contents {
                buffer
                    .get_mapped_range_mut(..)
                    .expect("mapped")
                    .copy_from_slice(bytemuck::cast_slice(words));
                buffer.unmap();
            }
            buffer
        };
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("transpose probe n"),
            size: 16,
            usage: wgpu::BufferUsages::UNIFORM,
            mapped_at_creation: true,
        });
        params
            .get_mapped_range_mut(..)
            .expect("mapped")
            .copy_from_slice(bytemuck::cast_slice(&[n as u32, 0, 0, 0]));
        params.unmap();
        let (a, b) = (
            buffer("transpose probe A", Some(&host_a)),
            buffer("transpose probe B", Some(&host_b)),
        );
        flush_uploads(ctx);
        Probe {
            n,
            a,
            b,
            c: buffer("transpose probe C", None),
            params,
            host_a,
            host_b,
        }
    }

    /// Bytes read plus bytes written by one transpose.
    pub(crate) fn traffic(&self) -> u64 {
        3 * self.n * self.n * 4
    }

    /// The forms outside the library: a gather, the classic 32 x 32 tile of 4-byte accesses
    /// (in loops over private arrays, as the library's tile kernel has it, and in straight-line
    /// code), a 64 x 64 tile of 4-byte accesses, tiles of 32 and 64 with 16-byte accesses, and
    /// the 64 tile again without wgpu's runtime checks.
    pub(crate) fn forms(&self, ctx: &Context) -> Vec<Form> {
        let words = include_str!("../transpose_words.wgsl");
        let vec4 = include_str!("../transpose_vec4.wgsl");
        let (n, t32, t64) = (self.n as u32, self.n as u32 / 32, self.n as u32 / 64);
        vec![
            self.form(
                ctx,
                "gather (one element per invocation)",
                words,
                "gather",
                &[],
                Checks::Checked,
                (n / 256, n),
            ),
            self.form(
                ctx,
                "tile 32, 4-byte accesses, loops",
                words,
                "tile32_loops",
                &[],
                Checks::Checked,
                (t32, t32),
            ),
            self.form(
                ctx,
                "tile 32, 4-byte accesses",
                words,
                "tile32",
                &[],
                Checks::Checked,
                (t32, t32),
            ),
            self.form(
                ctx,
                "tile 64, 4-byte accesses, loops",
                words,
                "tile64",
                &[],
                Checks::Checked,
                (t64, t64),
            ),
            self.form(
                ctx,
                "tile 32, 16-byte accesses",
                vec4,
                "main",
                &[("T", 32.0)],
                Checks::Checked,
                (t32, t32),
            ),
            self.form(
                ctx,
                TILE_64_VEC4,
                vec4,
                "main",
                &[("T", 64.0)],
                Checks::Checked,
                (t64, t64),
            ),
            self.form(
                ctx,
                "tile 64, 16-byte accesses, no runtime checks",
                vec4,
                "main",
                &[("T", 64.0)],
                Checks::Unchecked,
                (t64, t64),
            ),
        ]
    }

    #[allow(clippy::too_many_arguments, reason = "one line per form in `forms`")]
    fn form(
        &self,
        ctx: &Context,
        name: &'static str,
        source: &str,
        entry_point: &str,
        constants: &[(&str, f64)],
        checks: Checks,
        groups: (u32, u32),
    ) -> Form {
        let device = ctx.device();
        let descriptor = wgpu::ShaderModuleDescriptor {
            label: Some(name),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        };
        let (module, after) = match checks {
            Checks::Checked => (device.create_shader_module(descriptor), None),
            Checks::Unchecked => (unchecked_module(device, descriptor), Some(TILE_64_VEC4)),
        };
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(name),
            layout: None,
            module: &module,
            entry_point: Some(entry_point),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants,
                // Every slot is written before the barrier that precedes its read.
                zero_initialize_workgroup_memory: false,
            },
            cache: None,
        });
        let entries: Vec<wgpu::BindGroupEntry> = [&self.a, &self.b, &self.c, &self.params]
            .into_iter()
            .zip(0..)
            .map(|(buffer, binding)| wgpu::BindGroupEntry {
                binding,
                resource: buffer.as_entire_binding(),
            })
            .collect();
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(name),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        });
        Form {
            name,
            after,
            pipeline,
            bind_group,
            groups,
        }
    }

    /// The library's BIT_XOR on the same buffers (A as `[n, n]` with strides `[1, n]`),
    /// prepared on `ctx`: under `KernelTuning::Measured`, tuned first.
    pub(crate) fn library(&self, ctx: &Context) -> Result<(DmlBinary, Prepared), gpu_xor::Error> {
        let op = self.operator(ctx)?;
        ctx.tune(&[&op as &dyn CompiledOperator])?;
        let prepared = op.prepare(&self.bindings())?;
        Ok((op, prepared))
    }

    /// The library's BIT_XOR as [`Probe::library`] makes it, on `ctx` (a context tuned
    /// `KernelTuning::Measured`), with `kernel` loaded as the choice for its layout class
    /// instead of measured: what the library's kernel runs at on this device, kernel by
    /// kernel. A kernel that cannot run the call leaves it to the rule; the kernels it runs
    /// are named as [`Probe::kernels`] names them, read before another choice is loaded.
    pub(crate) fn library_forced(
        &self,
        ctx: &Context,
        kernel: KernelKind,
    ) -> Result<(Prepared, String), gpu_xor::Error> {
        let op = self.operator(ctx)?;
        if let Some(key) = ctx.tuning_key(&op) {
            let mut table = ctx.kernel_choices();
            table.insert(key, kernel);
            ctx.load_kernel_choices(&table.to_bytes())?;
        }
        let prepared = op.prepare(&self.bindings())?;
        Ok((prepared, self.kernels(ctx, &op)))
    }

    /// The library's BIT_XOR of the probe: A as `[n, n]` with strides `[1, n]`.
    fn operator(&self, ctx: &Context) -> Result<DmlBinary, gpu_xor::Error> {
        let side = self.n as u32;
        let t = || TensorDesc::new(DataType::U32, &[side, side]);
        DmlBinary::new(
            ctx,
            &BitXorDesc::new(t().with_strides(&[1, side]), t(), t()),
        )
    }

    /// The kernels the library's call runs, as the strided table names them.
    pub(crate) fn kernels(&self, ctx: &Context, op: &DmlBinary) -> String {
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        kernel_names(&op.record(&mut encoder, &self.bindings()).expect("record"))
    }

    fn bindings(&self) -> Bindings<'_> {
        Bindings::new(
            TensorBinding::new(&self.a),
            TensorBinding::new(&self.b),
            TensorBinding::new(&self.c),
        )
    }

    /// Clears C, records one call with `record`, and compares C with the host's `Aᵀ ^ B`;
    /// the first wrong element where they differ.
    pub(crate) fn check(
        &self,
        ctx: &Context,
        record: &dyn Fn(&mut wgpu::CommandEncoder),
    ) -> Result<(), String> {
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        encoder.clear_buffer(&self.c, 0, None);
        record(&mut encoder);
        ctx.queue().submit([encoder.finish()]);
        let bytes = read(ctx, &self.c, 0, self.c.size());
        let got: &[u32] = bytemuck::cast_slice(&bytes);
        let n = self.n as usize;
        for r in 0..n {
            for c in 0..n {
                let want = self.host_a[c * n + r] ^ self.host_b[r * n + c];
                if got[r * n + c] != want {
                    return Err(format!(
                        "C[{r}][{c}] is {:#010x}, not {want:#010x}",
                        got[r * n + c]
                    ));
                }
            }
        }
        Ok(())
    }
}

impl Form {
    /// `n` dispatches in one compute pass.
    pub(crate) fn record(&self, encoder: &mut wgpu::CommandEncoder, n: u64) {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        for _ in 0..n {
            pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
        }
    }
}

/// A shader module without wgpu's runtime checks: no bounds checks on buffer and workgroup
/// indices, no loop bounding, no guarded integer division.
#[allow(
    unsafe_code,
    reason = "measures what wgpu's runtime checks cost the probe's kernels on the device"
)]
fn unchecked_module(
    device: &wgpu::Device,
    descriptor: wgpu::ShaderModuleDescriptor<'_>,
) -> wgpu::ShaderModule {
    // SAFETY: the only sources passed here are the probe's own (`transpose_vec4.wgsl`), whose
    // loads and stores stay inside A, B and C (each `n x n` words, the grid `n / T` tiles a
    // side, `n` a multiple of 256, every index below `n * n / 4` blocks) and inside the
    // workgroup array (slots below `T * T / 4 <= 1024`); it has no loops and no division by a
    // value that can be zero (divisors are 4, 8, 32 and `T / 4` with T 32 or 64). Its output is
    // checked against the host before it is timed, after the same source ran checked.
    unsafe {
        device.create_shader_module_trusted(descriptor, wgpu::ShaderRuntimeChecks::unchecked())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every form of the probe, and the library's call (under the context's rule, and with
    /// each of its kernels loaded as the choice, which must then run), writes the host's
    /// transpose at n = 256 and 512 (four and eight 64 x 64 tiles a side): the report's
    /// check, on the test adapter; the form without runtime checks follows its checked
    /// twin.
    #[test]
    fn every_form_writes_the_transpose() {
        let ctx = Context::from_env().expect("an adapter");
        for n in [256, 512] {
            let probe = Probe::new(&ctx, n);
            let forms = probe.forms(&ctx);
            assert_eq!(forms.len(), 7);
            let unchecked = &forms[6];
            assert_eq!(unchecked.after, Some(forms[5].name));
            for form in &forms {
                if let Err(why) = probe.check(&ctx, &|e| form.record(e, 1)) {
                    panic!("{} at n = {n}: {why}", form.name);
                }
            }
            let (_, prepared) = probe.library(&ctx).expect("the library's call");
            probe
                .check(&ctx, &|e| prepared.record(e).expect("record"))
                .expect("the library's call writes the transpose");
            let measured = crate::report::tuned_context(&ctx, gpu_xor::KernelTuning::Measured)
                .expect("a measured context");
            for kernel in [KernelKind::BlockTile, KernelKind::Tile, KernelKind::Gather] {
                let (prepared, ran) = probe
                    .library_forced(&measured, kernel)
                    .expect("the library's call");
                assert_eq!(ran, format!("{kernel:?} x1"), "n = {n}");
                probe
                    .check(&measured, &|e| prepared.record(e).expect("record"))
                    .unwrap_or_else(|why| panic!("{kernel:?} at n = {n}: {why}"));
            }
        }
    }
}
