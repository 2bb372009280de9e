//! Prints one table of XOR throughput against the copy limit of the same adapter, measured in
//! the same run. `cargo run --release --example bench_report` (about a minute on lavapipe).

#[path = "../benches/harness.rs"]
mod harness;

use gpu_xor::{Context, DataType};
use harness::{Baselines, Case, Op, Path, gbps, iterations, time};

fn best(
    ctx: &Context,
    repeats: usize,
    iters: u64,
    record: &dyn Fn(&mut wgpu::CommandEncoder),
) -> std::time::Duration {
    time(ctx, 1, record); // warm-up: pipelines, first touch of memory
    (0..repeats)
        .map(|_| time(ctx, iters, record))
        .min()
        .expect("repeats")
}

fn main() -> Result<(), gpu_xor::Error> {
    let ctx = Context::from_env()?;
    let info = ctx.adapter_info();
    println!(
        "adapter: {} ({:?}, {:?})",
        info.name, info.backend, info.device_type
    );
    let sizes: Vec<u64> = std::env::args()
        .skip(1)
        .map(|s| s.parse::<u64>().expect("size in MiB") << 20)
        .collect();
    let sizes = if sizes.is_empty() {
        vec![64 << 20]
    } else {
        sizes
    };
    let cases = [
        (Op::BitXor, Path::Contiguous, DataType::U32),
        (Op::BitXor, Path::Contiguous, DataType::U8),
        (Op::BitXor, Path::Contiguous, DataType::U16),
        (Op::BitXor, Path::Contiguous, DataType::F64),
        (Op::BitXor, Path::InPlace, DataType::U32),
        (Op::BitXor, Path::BroadcastRow, DataType::U32),
        (Op::BitXor, Path::Transposed, DataType::U32),
        (Op::BitXor, Path::PaddedOutput, DataType::U8),
        (Op::LogicalXor, Path::Contiguous, DataType::U8),
        (Op::BitwiseXor, Path::BroadcastRow, DataType::U8),
    ];
    println!(
        "{:<12} {:<14} {:<5} {:>8} {:>9} {:>9} {:>9}",
        "op", "path", "type", "MiB", "GB/s", "/kernel", "/copybuf"
    );
    for &bytes in &sizes {
        let base = Baselines::new(&ctx, bytes);
        let target = 4 * bytes.max(64 << 20);
        let k = best(&ctx, 3, iterations(2 * bytes, target), &|e| {
            base.record_copy_kernel(e)
        });
        let c = best(&ctx, 3, iterations(2 * bytes, target), &|e| {
            base.record_copy_buffer(e)
        });
        let (gk, gc) = (gbps(2 * bytes, k), gbps(2 * bytes, c));
        println!(
            "{:<12} {:<14} {:<5} {:>8} {:>9.2} {:>9} {:>9}",
            "copy",
            "vec4 kernel",
            "",
            bytes >> 20,
            gk,
            "1.00",
            format!("{:.2}", gk / gc)
        );
        println!(
            "{:<12} {:<14} {:<5} {:>8} {:>9.2} {:>9} {:>9}",
            "copy",
            "copy_buffer",
            "",
            bytes >> 20,
            gc,
            format!("{:.2}", gc / gk),
            "1.00"
        );
        for (op, path, dt) in cases {
            let case = Case::new(&ctx, op, path, dt, bytes);
            if std::env::var("BENCH_KERNELS").is_ok() {
                let mut e = ctx.device().create_command_encoder(&Default::default());
                eprintln!("{:?}", case.record_summary(&mut e).dispatches);
            }
            let t = best(&ctx, 3, iterations(case.traffic, target), &|e| {
                case.record(e)
            });
            let g = gbps(case.traffic, t);
            println!(
                "{:<12} {:<14} {:<5} {:>8} {:>9.2} {:>9.2} {:>9.2}",
                op.name(),
                path.name(),
                dt.to_string(),
                case.bytes >> 20,
                g,
                g / gk,
                g / gc
            );
        }
    }
    Ok(())
}
