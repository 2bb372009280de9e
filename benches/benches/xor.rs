//! Criterion benchmarks: `cargo bench -p gpu-xor-bench`.
//!
//! One group per (operator, path); in each, one benchmark per (type, size) and, at every
//! size, the three baselines on the same adapter: a `vec4<u32>` copy kernel and
//! `copy_buffer_to_buffer` of the same bytes, and a bare `vec4<u32>` XOR kernel (no metadata,
//! no masks) over the same bytes; the groups of strided layouts add, per type, the plain
//! strided kernel (`plain-strided-<type>`: one element per invocation, offsets from a strides
//! uniform) on the same layout and buffers. Throughput is bytes read plus bytes written. The `batching`
//! group compares 1,000 calls of 4 KiB in one batch with 1,000 single submits; `small-calls`,
//! the latency of one 4 KiB call alone and of one call in a batch of 1,000 against the bare
//! kernel on the same ranges; `contractions/hamming-256`, Hamming distance matrices tiled
//! and untiled against the bare XOR-popcount kernel; the `recording` group (run first), the CPU time of recording
//! 1,000 calls of 4 KiB in each way the API offers (prepared calls, a batch, one-shot
//! `record`); the `graph` group (run last), a model's worth of prepared calls recorded into one
//! pass per frame against the same frame of bare dispatches (`gpu_xor_bench::graph`). Set
//! `GPU_XOR_BENCH_QUICK=1` (or run under `CI`) for small sizes only. `benches/README.md` says
//! what each group measures.

#![allow(
    clippy::disallowed_methods,
    reason = "benchmarks wait for the device; the lint keeps blocking calls out of the library"
)]

use std::cell::OnceCell;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use gpu_xor::{Context, DataType};
use gpu_xor_bench::{
    Baselines, Case, Distances, Latency, Op, Path, PopcountRoof, Recording, SmallCalls, Way, graph,
    record_time, time, untiled_context,
};

fn size_name(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{}MiB", bytes >> 20)
    } else {
        format!("{}KiB", bytes >> 10)
    }
}

fn sizes(ctx: &Context) -> Vec<u64> {
    let quick =
        std::env::var_os("GPU_XOR_BENCH_QUICK").is_some() || std::env::var_os("CI").is_some();
    if quick {
        return vec![4 << 10, 1 << 20];
    }
    let window = ctx.max_window_bytes();
    vec![
        4 << 10,
        1 << 20,
        16 << 20,
        64 << 20,
        (window + window / 4).next_multiple_of(1 << 20),
    ]
}

fn group(c: &mut Criterion, ctx: &Context, op: Op, path: Path, types: &[DataType]) {
    let mut g = c.benchmark_group(format!("{}/{}", op.name(), path.name()));
    g.sample_size(10);
    // Buffers are made on first use, so that a filtered run (`cargo bench -- recording`) makes
    // none of the cases it skips.
    for bytes in sizes(ctx) {
        let baselines = OnceCell::new();
        let base = || baselines.get_or_init(|| Baselines::new(ctx, bytes));
        g.throughput(Throughput::Bytes(2 * bytes.div_ceil(16) * 16));
        g.bench_function(BenchmarkId::new("copy-kernel", size_name(bytes)), |b| {
            let base = base();
            b.iter_custom(|iters| {
                time(ctx, iters, &|e, n| base.record_copy_kernel(e, n)) * iters as u32
            })
        });
        g.bench_function(
            BenchmarkId::new("copy_buffer_to_buffer", size_name(bytes)),
            |b| {
                let base = base();
                b.iter_custom(|iters| {
                    time(ctx, iters, &|e, n| base.record_copy_buffer(e, n)) * iters as u32
                })
            },
        );
        g.throughput(Throughput::Bytes(3 * bytes.div_ceil(16) * 16));
        g.bench_function(BenchmarkId::new("bare-xor", size_name(bytes)), |b| {
            let base = base();
            b.iter_custom(|iters| {
                time(ctx, iters, &|e, n| base.record_bare_xor(e, n)) * iters as u32
            })
        });
        drop(baselines);
        for &dt in types {
            let made = OnceCell::new();
            let case = || made.get_or_init(|| Case::new(ctx, op, path, dt, bytes));
            g.throughput(Throughput::Bytes(Case::traffic(op, path, dt, bytes)));
            g.bench_function(BenchmarkId::new(dt.to_string(), size_name(bytes)), |b| {
                let case = case();
                b.iter_custom(|iters| {
                    time(ctx, iters, &|e, n| case.record_many(ctx, e, n)) * iters as u32
                })
            });
            // The fourth baseline: the plain strided kernel on the same layout and buffers,
            // where they fit one binding (it has no windows): every size but the one above a
            // window.
            if path.strided() && bytes < ctx.max_window_bytes() {
                let id = BenchmarkId::new(format!("plain-strided-{dt}"), size_name(bytes));
                g.bench_function(id, |b| {
                    let plain = case()
                        .plain(ctx)
                        .expect("a case below one window fits one binding");
                    b.iter_custom(|iters| {
                        time(ctx, iters, &|e, n| plain.record(e, n)) * iters as u32
                    })
                });
            }
        }
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    let ctx = Context::from_env().expect("a GPU adapter");
    let info = ctx.adapter_info();
    eprintln!("adapter: {} ({:?})", info.name, info.backend);
    // First: wgpu-core sizes each compute pass's resource tracking to the most buffers ever
    // alive at once, which the other groups raise.
    recording(c, &ctx);
    let all = [
        DataType::U8,
        DataType::U16,
        DataType::U32,
        DataType::U64,
        DataType::F16,
        DataType::F32,
        DataType::F64,
    ];
    group(c, &ctx, Op::BitXor, Path::Contiguous, &all);
    group(c, &ctx, Op::BitXor, Path::InPlace, &[DataType::U32]);
    group(
        c,
        &ctx,
        Op::BitXor,
        Path::BroadcastRow,
        &[DataType::U8, DataType::U32],
    );
    group(
        c,
        &ctx,
        Op::BitXor,
        Path::BroadcastScalar,
        &[DataType::U8, DataType::U32, DataType::U64],
    );
    group(
        c,
        &ctx,
        Op::BitXor,
        Path::Transposed,
        &[DataType::U32, DataType::U64],
    );
    group(
        c,
        &ctx,
        Op::BitXor,
        Path::PaddedOutput,
        &[DataType::U8, DataType::U16, DataType::U32],
    );
    group(
        c,
        &ctx,
        Op::BitXor,
        Path::SlicedOutput,
        &[DataType::U8, DataType::U16],
    );
    group(
        c,
        &ctx,
        Op::BitXor,
        Path::TransposedOutput,
        &[DataType::U8, DataType::U16, DataType::U32],
    );
    for path in [
        Path::Permuted3,
        Path::Permuted3Inner,
        Path::Permuted4,
        Path::Permuted4Channels,
        Path::Permuted3Reversed,
        Path::Permuted4Reversed,
        Path::Permuted5Reversed,
        Path::BatchedTransposes,
        Path::DepthToSpace,
        Path::SteppedInput,
    ] {
        group(c, &ctx, Op::BitXor, path, &[DataType::U32]);
    }
    group(
        c,
        &ctx,
        Op::BitXor,
        Path::PermutedOutput,
        &[DataType::U8, DataType::U32, DataType::U64],
    );
    for path in [Path::SteppedOutput, Path::ShortRows] {
        group(c, &ctx, Op::BitXor, path, &[DataType::U8, DataType::U16]);
    }
    group(
        c,
        &ctx,
        Op::LogicalXor,
        Path::Contiguous,
        &[DataType::U8, DataType::U32],
    );
    group(
        c,
        &ctx,
        Op::BitwiseXor,
        Path::BroadcastRow,
        &[DataType::U8, DataType::Bool, DataType::I64],
    );

    let mut g = c.benchmark_group("batching");
    g.sample_size(10);
    let small = SmallCalls::new(&ctx, 1000, 4096);
    g.throughput(Throughput::Bytes(small.calls * small.bytes * 3));
    g.bench_function("1000x4KiB/one-batch", |b| b.iter(|| small.batched(&ctx)));
    g.bench_function("1000x4KiB/single-submits", |b| {
        b.iter(|| small.single_submits(&ctx))
    });
    g.finish();
    drop(small);
    contractions(c, &ctx);
    small_calls(c, &ctx);
    // Last: its tens of thousands of buffers raise the cost of every later compute pass.
    graph_frames(c, &ctx);
}

/// Hamming distances of 256-bit codes (8 u32 words), `M` = 1, 16 and 1,000 queries against
/// `N` codes (10^6, 10^5 against 1,000 queries; 10^4 under `GPU_XOR_BENCH_QUICK` or `CI`),
/// tiled and untiled (`ContextOptions::untiled_contractions`), beside the bare XOR-popcount
/// kernel on registers. Throughput is distances (word distances over 8 for the roof).
fn contractions(c: &mut Criterion, ctx: &Context) {
    let quick =
        std::env::var_os("GPU_XOR_BENCH_QUICK").is_some() || std::env::var_os("CI").is_some();
    let plain = untiled_context(ctx);
    let mut g = c.benchmark_group("contractions/hamming-256");
    g.sample_size(10);
    let roof = PopcountRoof::new(ctx, 1024, 16);
    g.throughput(Throughput::Elements(roof.words / 8));
    g.bench_function("bare-xor-popcount", |b| {
        b.iter_custom(|iters| time(ctx, iters, &|e, n| roof.record(e, n)) * iters as u32)
    });
    for m in [1u32, 16, 1000] {
        let n = match (quick, m) {
            (true, _) => 10_000,
            (false, 1000) => 100_000,
            _ => 1_000_000,
        };
        let made = OnceCell::new();
        let distances = || made.get_or_init(|| Distances::new(ctx, &plain, (m, n, 8)));
        g.throughput(Throughput::Elements(u64::from(m) * u64::from(n)));
        for (name, untiled) in [("tiled", false), ("untiled", true)] {
            g.bench_function(BenchmarkId::new(name, format!("{m}x{n}")), |b| {
                let d = distances();
                let call = if untiled { &d.untiled } else { &d.tiled };
                b.iter_custom(|iters| {
                    time(ctx, iters, &|e, k| Distances::record(call, e, k)) * iters as u32
                })
            });
        }
    }
    g.finish();
}

/// The graph mixes of [`graph`]: a frame of every node prepared and recorded into one pass
/// (`prepared`) against the same frame of bare dispatches (`bare-xor`), submitted and waited
/// for; and the CPU time of recording the 300-node pass alone (`record-prepared`,
/// `record-bare`). Throughput is bytes read and written a frame (nodes, for the recording).
/// Under `GPU_XOR_BENCH_QUICK` or `CI` the 10,000-node mix is left out.
fn graph_frames(c: &mut Criterion, ctx: &Context) {
    let quick =
        std::env::var_os("GPU_XOR_BENCH_QUICK").is_some() || std::env::var_os("CI").is_some();
    let mut g = c.benchmark_group("graph");
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(5));
    let mixes: &[graph::Mix] = if quick {
        &[graph::MODEL]
    } else {
        &[graph::MODEL, graph::SMALL]
    };
    for &mix in mixes {
        let graph = graph::Graph::new(ctx, mix);
        ctx.wait().expect("the uploads");
        let name = format!("{}-nodes", mix.nodes);
        g.throughput(Throughput::Bytes(graph.traffic()));
        g.bench_function(format!("{name}/prepared"), |b| {
            b.iter_custom(|iters| (0..iters).map(|_| graph.frame(ctx)).sum())
        });
        g.bench_function(format!("{name}/bare-xor"), |b| {
            b.iter_custom(|iters| (0..iters).map(|_| graph.bare_frame(ctx)).sum())
        });
        if mix.nodes == graph::MODEL.nodes {
            g.throughput(Throughput::Elements(mix.nodes as u64));
            g.bench_function(format!("{name}/record-prepared"), |b| {
                b.iter_custom(|iters| (0..iters).map(|_| graph.record_prepared(ctx).0).sum())
            });
            g.bench_function(format!("{name}/record-bare"), |b| {
                b.iter_custom(|iters| (0..iters).map(|_| graph.record_bare(ctx).0).sum())
            });
        }
    }
    g.finish();
}

/// Per-call latency of 4 KiB BIT_XOR u32 calls against the bare XOR kernel on the same ranges
/// (three 4 MiB buffers, call `i` at offset `i * 4096`; everything prepared and every bind
/// group made outside the timing). `4KiB/alone`: one call (`Prepared::record`) in a new
/// encoder, submitted and waited for; `4KiB/alone-bare-xor`: the same with one bare-kernel
/// dispatch. `1000x4KiB/in-batch`: the 1,000 calls' prepared batch recorded, submitted and
/// waited for; `1000x4KiB/bare-xor-dispatches`: 1,000 bare-kernel dispatches in one pass, the
/// same way. Throughput is calls.
fn small_calls(c: &mut Criterion, ctx: &Context) {
    let latency = Latency::new(ctx, 1000, 4096);
    let mut g = c.benchmark_group("small-calls");
    g.sample_size(10);
    let timed = |b: &mut criterion::Bencher, run: &dyn Fn() -> Duration| {
        b.iter_custom(|iters| (0..iters).map(|_| run()).sum())
    };
    g.throughput(Throughput::Elements(1));
    g.bench_function("4KiB/alone", |b| timed(b, &|| latency.alone(ctx)));
    g.bench_function("4KiB/alone-bare-xor", |b| {
        timed(b, &|| latency.bare_alone(ctx))
    });
    g.throughput(Throughput::Elements(latency.small.calls));
    g.bench_function("1000x4KiB/in-batch", |b| timed(b, &|| latency.batched(ctx)));
    g.bench_function("1000x4KiB/bare-xor-dispatches", |b| {
        timed(b, &|| latency.bare_batched(ctx))
    });
    g.finish();
}

/// The CPU time of recording 1,000 BIT_XOR u32 calls of 4 KiB (three 4 MiB buffers, call `i`
/// at offset `i * 4096`) into one encoder, `finish` included, nothing submitted: in each
/// [`Way`], and, for scale, wgpu alone recording as many one-dispatch passes, as many
/// dispatches in one pass (the `vec4<u32>` copy kernel on 4 KiB) and as many empty passes.
/// Throughput is calls.
fn recording(c: &mut Criterion, ctx: &Context) {
    let calls = 1000;
    let rec = Recording::new(ctx, calls, 4096);
    let base = Baselines::new(ctx, 4096);
    let mut g = c.benchmark_group("recording");
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(3));
    g.throughput(Throughput::Elements(calls));
    let timed = |b: &mut criterion::Bencher, record: &dyn Fn(&mut wgpu::CommandEncoder)| {
        b.iter_custom(|iters| (0..iters).map(|_| record_time(ctx, record)).sum())
    };
    let way = |g: &mut criterion::BenchmarkGroup<_>, way: Way| {
        g.bench_function(format!("1000x4KiB/{}", way.name()), |b| {
            timed(b, &|e| rec.record(ctx, way, e))
        });
    };
    for w in [
        Way::Prepared,
        Way::PreparedInPass,
        Way::Batch,
        Way::PreparedBatch,
    ] {
        way(&mut g, w);
    }
    g.bench_function("1000x4KiB/wgpu-passes", |b| {
        timed(b, &|e| base.record_copy_passes(e, calls))
    });
    g.bench_function("1000x4KiB/wgpu-dispatches", |b| {
        timed(b, &|e| base.record_copy_dispatches(e, calls))
    });
    g.bench_function("1000x4KiB/wgpu-empty-passes", |b| {
        timed(b, &|e| base.record_empty_passes(e, calls))
    });
    // Last: its 1,000 metadata buffers, alive together, raise the high-water mark of wgpu-core's
    // buffer indices, and with it the cost of every later pass.
    way(&mut g, Way::OneShot);
    g.finish();
}

criterion_group!(xor, benches);
criterion_main!(xor);
