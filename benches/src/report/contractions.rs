//! The contractions' section (`--contractions`): Hamming distances between `M` queries and
//! `N` packed codes (`Context`'s `hamming_distances` expression, prepared on the section's
//! buffers), tiled and untiled, against two roofs measured in the same run: the copy kernel
//! over the codes' bytes (memory) and a bare kernel of XOR and count of ones on registers
//! (arithmetic, `bare_xor_popcount.wgsl`).

use std::fmt::Write as _;

use gpu_xor::{
    Context, ContextOptions, DataType, ExprBindings, ExprDesc, Fused, Prepared, TensorBinding,
    TensorDesc,
};

use super::Target;
use super::format::verdict;
use crate::Baselines;
use crate::buffers::{read, storage};
use crate::timing::{clock_line, paired, time};

/// `M` = 1: the call's bytes per second over the copy kernel's.
const MEMORY_TARGET: f64 = 0.8;
/// `M` = 1,000: distances per second over the bare kernel's.
const ARITHMETIC_TARGET: f64 = 0.7;
/// `M` = 1,000: the tiled kernel over the untiled one.
const TILED_TARGET: f64 = 5.0;

/// The bare XOR-popcount kernel: 16 word distances a round in each invocation.
struct Roof {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    groups: (u32, u32),
    /// Word distances one dispatch computes.
    words: u64,
}

impl Roof {
    /// `groups` workgroups of 256 invocations, `rounds` rounds each.
    fn new(ctx: &Context, groups: u32, rounds: u32) -> Roof {
        let device = ctx.device();
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("bare xor popcount"),
            source: wgpu::ShaderSource::Wgsl(include_str!("../../bare_xor_popcount.wgsl").into()),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("bare xor popcount"),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
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
        Roof {
            pipeline,
            bind_group,
            groups: (x, y),
            words: u64::from(x * y) * 256 * 16 * u64::from(rounds),
        }
    }

    fn record(&self, encoder: &mut wgpu::CommandEncoder, n: u64) {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        for _ in 0..n {
            pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
        }
    }
}

/// A context on `ctx`'s device whose reductions all run untiled.
fn untiled(ctx: &Context) -> Context {
    Context::with_options(
        ctx.device().clone(),
        ctx.queue().clone(),
        &ContextOptions {
            feature_level: ctx.feature_level(),
            max_window_bytes: Some(ctx.max_window_bytes()),
            untiled_contractions: true,
            ..Default::default()
        },
    )
    .expect("an untiled context on the same device")
}

/// One contraction's figures: seconds per call tiled and untiled (`None` where the tiled
/// kernel does not run this shape), and the kernels each ran.
struct Measured {
    tiled: f64,
    untiled: Option<f64>,
    kernel: String,
}

fn record_n(call: &Prepared, encoder: &mut wgpu::CommandEncoder, n: u64) {
    for _ in 0..n {
        call.record(encoder).expect("a prepared call records");
    }
}

/// The distances of `m` queries against `n` codes of `words` u32 words: both ways give the
/// same bytes, and sampled distances match a count on the CPU; then both are timed in
/// interleaved rounds (the untiled way where the tiled kernel runs the shape).
fn measure(
    ctx: &Context,
    plain: &Context,
    (m, n, words): (u32, u32, u32),
    rounds: usize,
) -> Measured {
    let (q, c, out) = (
        TensorDesc::new(DataType::U32, &[m, words]),
        TensorDesc::new(DataType::U32, &[n, words]),
        TensorDesc::new(DataType::U32, &[m, n]),
    );
    let desc = ExprDesc::hamming_distances(q.clone(), c.clone(), out.clone());
    let q_bytes = q.total_size().expect("sizes");
    let c_bytes = c.total_size().expect("sizes");
    let out_bytes = out.total_size().expect("sizes");
    let (qb, cb, ob) = (
        storage(ctx, q_bytes, 31),
        storage(ctx, c_bytes, 32),
        storage(ctx, out_bytes, 33),
    );
    let bindings = ExprBindings::new(
        &[TensorBinding::new(&qb), TensorBinding::new(&cb)],
        TensorBinding::new(&ob),
    );
    let prepare = |ctx: &Context| {
        let fused = Fused::new(ctx, &desc).expect("the distances");
        let summary = fused.run(&bindings).expect("a call");
        let call = fused.prepare(&bindings).expect("prepared");
        (call, summary.dispatches)
    };
    let (tiled, kernels) = prepare(ctx);
    let (untiled, plain_kernels) = prepare(plain);
    let kernel = format!("{:?}", kernels[0]);
    // Sampled distances against a count on the CPU: the first and last query against the
    // first and last 64 codes.
    let queries = read(ctx, &qb, 0, q_bytes);
    let codes = read(ctx, &cb, 0, c_bytes);
    let want_row = |at: u32| -> Vec<u32> {
        let w = words as usize;
        let query = &queries[at as usize * 4 * w..][..4 * w];
        let sample = (0..n.min(64)).chain(n.saturating_sub(64).max(64)..n);
        sample
            .map(|code| {
                let code = &codes[code as usize * 4 * w..][..4 * w];
                query
                    .iter()
                    .zip(code)
                    .map(|(a, b)| (a ^ b).count_ones())
                    .sum()
            })
            .collect()
    };
    let got_row = |ctx: &Context, at: u32| -> Vec<u32> {
        let row = read(ctx, &ob, u64::from(at) * u64::from(n) * 4, u64::from(n) * 4);
        let row: Vec<u32> = bytemuck::cast_slice(&row).to_vec();
        (0..n.min(64))
            .chain(n.saturating_sub(64).max(64)..n)
            .map(|code| row[code as usize])
            .collect()
    };
    for call in [&tiled, &untiled] {
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        call.record(&mut encoder).expect("records");
        ctx.queue().submit([encoder.finish()]);
        for at in [0, m - 1] {
            assert_eq!(got_row(ctx, at), want_row(at), "distances of query {at}");
        }
    }
    let traffic = q_bytes + c_bytes + out_bytes;
    let iters = crate::timing::iterations(traffic, 1 << 28).min(20);
    if kernels == plain_kernels {
        let t = (0..rounds)
            .map(|_| time(ctx, iters, &|e, i| record_n(&tiled, e, i)).as_secs_f64())
            .fold(f64::MAX, f64::min);
        return Measured {
            tiled: t,
            untiled: None,
            kernel,
        };
    }
    let (t, u) = paired(
        rounds,
        || time(ctx, iters, &|e, i| record_n(&tiled, e, i)),
        || time(ctx, iters, &|e, i| record_n(&untiled, e, i)),
    );
    Measured {
        tiled: t,
        untiled: Some(u),
        kernel,
    }
}

/// Runs the section on `ctx`; returns its text and targets.
pub(crate) fn contractions_section(ctx: &Context, quick: bool) -> (String, Vec<Target>) {
    let gpu = super::on_gpu(ctx);
    let rounds = if quick { 2 } else { 3 };
    let plain = untiled(ctx);
    // N = 10^6 codes; on a CPU adapter, 10^5 against 1,000 queries (10^8 distances a call),
    // and 10^5 throughout with --quick.
    let max_buffer = ctx.device().limits().max_buffer_size;
    let codes_for = |m: u32| -> u32 {
        let n: u32 = match (gpu, quick, m) {
            (true, _, _) | (false, false, 1 | 16) => 1_000_000,
            _ => 100_000,
        };
        // The distances must fit one buffer.
        n.min(u32::try_from(max_buffer / (4 * u64::from(m))).unwrap_or(u32::MAX))
    };
    // The roofs: the copy kernel over 1,000,000 codes of 256 bits, and the bare kernel.
    let copy_bytes = 32_000_000u64;
    let baselines = Baselines::new(ctx, copy_bytes);
    let iters = crate::timing::iterations(2 * copy_bytes, 1 << 29);
    let copy = (0..rounds + 2)
        .map(|_| time(ctx, iters, &|e, n| baselines.record_copy_kernel(e, n)).as_secs_f64())
        .fold(f64::MAX, f64::min);
    let copy_gbps = 2.0 * copy_bytes as f64 / copy / 1e9;
    drop(baselines);
    let roof = Roof::new(ctx, 4096, if gpu { 1024 } else { 16 });
    let bare = (0..rounds + 2)
        .map(|_| time(ctx, 4, &|e, n| roof.record(e, n)).as_secs_f64())
        .fold(f64::MAX, f64::min);
    let bare_words = roof.words as f64 / bare;
    let mut text = format!(
        "Hamming distances between `M` queries and `N` codes of u32 words (`ExprDesc::hamming_distances`, prepared), against the copy kernel over {} MB ({copy_gbps:.2} GB/s, bytes read and written) and the bare XOR-popcount kernel on registers ({:.2} G word distances/s). GB/s counts the queries and codes read and the distances written; `/ copy` is that over the copy kernel's; `/ bare` is the word distances per second (distances times words) over the bare kernel's. `untiled` runs the same call with `ContextOptions::untiled_contractions`.\n\n| bits | M | N | kernel | distances/s | GB/s | / copy | / bare | untiled distances/s | tiled / untiled |\n|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|\n",
        copy_bytes / 1_000_000,
        bare_words / 1e9
    );
    let mut targets = Vec::new();
    for bits in [256u32, 1024] {
        let words = bits / 32;
        for m in [1u32, 16, 1000] {
            let n = codes_for(m);
            let r = measure(ctx, &plain, (m, n, words), rounds);
            let distances = f64::from(m) * f64::from(n);
            let traffic = 4 * (u64::from(m) + u64::from(n)) * u64::from(words)
                + 4 * u64::from(m) * u64::from(n);
            let gbps = traffic as f64 / r.tiled / 1e9;
            let over_copy = gbps / copy_gbps;
            let over_bare = distances * f64::from(words) / r.tiled / bare_words;
            let (untiled_rate, ratio) = match r.untiled {
                Some(u) => (
                    format!("{:.3e}", distances / u),
                    format!("{:.2}", u / r.tiled),
                ),
                None => ("-".to_string(), "-".to_string()),
            };
            let _ = writeln!(
                text,
                "| {bits} | {m} | {n} | {} | {:.3e} | {gbps:.2} | {over_copy:.2} | {over_bare:.2} | {untiled_rate} | {ratio} |",
                r.kernel,
                distances / r.tiled
            );
            if m == 1 {
                targets.push((
                    format!(
                        "{bits}-bit codes, M = 1: GB/s over the copy kernel's >= {MEMORY_TARGET}"
                    ),
                    format!("{over_copy:.2}"),
                    over_copy >= MEMORY_TARGET,
                ));
            }
            if m == 1000 {
                targets.push((
                    format!(
                        "{bits}-bit codes, M = 1,000: word distances/s over the bare kernel's >= {ARITHMETIC_TARGET}"
                    ),
                    format!("{over_bare:.2}"),
                    over_bare >= ARITHMETIC_TARGET,
                ));
                let ratio = r.untiled.map_or(0.0, |u| u / r.tiled);
                targets.push((
                    format!("{bits}-bit codes, M = 1,000: tiled over untiled >= {TILED_TARGET}"),
                    format!("{ratio:.2}"),
                    ratio >= TILED_TARGET,
                ));
            }
        }
    }
    let _ = writeln!(text, "\n{}", clock_line());
    println!("{text}");
    for (name, figure, met) in &targets {
        println!("{name}: {figure} ({})", verdict(*met));
    }
    (text, targets)
}
