//! Hamming distance matrices for the benchmarks: `M` queries against `N` codes of u32 words
//! (`ExprDesc::hamming_distances`), prepared tiled and untiled on the same buffers
//! ([`Distances`]), and the arithmetic roof, a bare kernel of XOR and count of ones on
//! registers ([`PopcountRoof`], `bare_xor_popcount.wgsl`).

use gpu_xor::inspect::KernelKind;
use gpu_xor::{
    Context, ContextOptions, DataType, ExprBindings, ExprDesc, Fused, Prepared, TensorBinding,
    TensorDesc,
};

use crate::baseline::Kernel;
use crate::buffers::{read, storage};

/// The bare XOR-popcount kernel: 16 word distances a round in each invocation.
pub struct PopcountRoof {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    groups: (u32, u32),
    /// Word distances one dispatch computes.
    pub words: u64,
}

impl PopcountRoof {
    /// `groups` workgroups of 256 invocations, `rounds` rounds each.
    pub fn new(ctx: &Context, groups: u32, rounds: u32) -> PopcountRoof {
        let device = ctx.device();
        let source = include_str!("../bare_xor_popcount.wgsl");
        let pipeline = Kernel::new(ctx, "bare xor popcount", source).pipeline;
        let max_x = device.limits().max_compute_workgroups_per_dimension.max(1);
        let y = groups.div_ceil(max_x);
        let x = groups.div_ceil(y);
        let out = storage(ctx, u64::from(x * y) * 256 * 4, 21);
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("bare xor popcount grid"),
            size: 16,
            usage: wgpu::BufferUsages::UNIFORM,
            mapped_at_creation: true,
        });
        uniform
            .get_mapped_range_mut(..)
            .expect("mapped")
            .copy_from_slice(bytemuck::cast_slice(&[rounds, x * 256, 0, 0]));
        uniform.unmap();
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("bare xor popcount"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: out.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: uniform.as_entire_binding(),
                },
            ],
        });
        PopcountRoof {
            pipeline,
            bind_group,
            groups: (x, y),
            words: u64::from(x * y) * 256 * 16 * u64::from(rounds),
        }
    }

    /// `n` dispatches in one compute pass.
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder, n: u64) {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        for _ in 0..n {
            pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
        }
    }
}

/// A context on `ctx`'s device whose reductions all run untiled.
pub fn untiled_context(ctx: &Context) -> Context {
    let options = ContextOptions {
        untiled_contractions: true,
        ..Default::default()
    };
    crate::report::same_device(ctx, options).expect("an untiled context on the same device")
}

/// The distances of `m` random queries against `n` random codes of `words` u32 words,
/// prepared on `ctx` (tiled where the shape is a contraction) and on `plain` (untiled), on
/// the same buffers.
pub struct Distances {
    /// Queries, codes and words a code.
    pub shape: (u32, u32, u32),
    /// The call on `ctx`.
    pub tiled: Prepared,
    /// The call on the untiled context.
    pub untiled: Prepared,
    /// The kernels each runs.
    pub kernels: (Vec<KernelKind>, Vec<KernelKind>),
    queries: wgpu::Buffer,
    codes: wgpu::Buffer,
    out: wgpu::Buffer,
}

impl Distances {
    /// The calls, each run once.
    pub fn new(ctx: &Context, plain: &Context, (m, n, words): (u32, u32, u32)) -> Distances {
        let (q, c, out) = (
            TensorDesc::new(DataType::U32, &[m, words]),
            TensorDesc::new(DataType::U32, &[n, words]),
            TensorDesc::new(DataType::U32, &[m, n]),
        );
        let desc = ExprDesc::hamming_distances(q.clone(), c.clone(), out.clone());
        let bytes = |t: &TensorDesc| t.total_size().expect("sizes");
        let (queries, codes, out) = (
            storage(ctx, bytes(&q), 31),
            storage(ctx, bytes(&c), 32),
            storage(ctx, bytes(&out), 33),
        );
        let bindings = ExprBindings::new(
            &[TensorBinding::new(&queries), TensorBinding::new(&codes)],
            TensorBinding::new(&out),
        );
        let prepare = |ctx: &Context| {
            let fused = Fused::new(ctx, &desc).expect("the distances");
            let summary = fused.run(&bindings).expect("a call");
            let call = fused.prepare(&bindings).expect("prepared");
            (call, summary.dispatches)
        };
        let (tiled, tiled_kernels) = prepare(ctx);
        let (untiled, untiled_kernels) = prepare(plain);
        Distances {
            shape: (m, n, words),
            tiled,
            untiled,
            kernels: (tiled_kernels, untiled_kernels),
            queries,
            codes,
            out,
        }
    }

    /// Bytes read (queries and codes, once) and written (the distances) by one call.
    pub fn traffic(&self) -> u64 {
        let (m, n, words) = self.shape;
        let (m, n, words) = (u64::from(m), u64::from(n), u64::from(words));
        4 * (m + n) * words + 4 * m * n
    }

    /// Runs `call` (either of this value's) once and checks the distances of the first and
    /// last query against the first and last 64 codes with a count on the CPU.
    pub fn check(&self, ctx: &Context, call: &Prepared) {
        let (m, n, words) = self.shape;
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        call.record(&mut encoder).expect("records");
        ctx.queue().submit([encoder.finish()]);
        let w = 4 * words as usize;
        let queries = read(ctx, &self.queries, 0, self.queries.size());
        let codes = read(ctx, &self.codes, 0, self.codes.size());
        let sample: Vec<u32> = (0..n.min(64))
            .chain(n.saturating_sub(64).max(64)..n)
            .collect();
        for at in [0, m - 1] {
            let row = read(
                ctx,
                &self.out,
                u64::from(at) * u64::from(n) * 4,
                u64::from(n) * 4,
            );
            let row: &[u32] = bytemuck::cast_slice(&row);
            let query = &queries[at as usize * w..][..w];
            for &code in &sample {
                let code_bytes = &codes[code as usize * w..][..w];
                let want: u32 = query
                    .iter()
                    .zip(code_bytes)
                    .map(|(a, b)| (a ^ b).count_ones())
                    .sum();
                assert_eq!(
                    row[code as usize], want,
                    "distance of query {at} to code {code}"
                );
            }
        }
    }

    /// `n` calls of `call` recorded into `encoder`.
    pub fn record(call: &Prepared, encoder: &mut wgpu::CommandEncoder, n: u64) {
        for _ in 0..n {
            call.record(encoder).expect("a prepared call records");
        }
    }
}
