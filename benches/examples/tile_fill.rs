//! How the tile kernels fare against the gather kernel as a matrix fills less of their
//! tiles: `cargo run --release -p gpu-xor-bench --example tile_fill` times every candidate
//! kernel of batches of `[m, s, s]`, `[m, 256, c]` and `[m, r, 256]` transposes (A read with
//! axes (0, 2, 1)) of 32-, 8- and 64-bit elements, about 16 MiB each (`BYTES` sets another
//! size), each kernel forced through a loaded table of kernel choices on a
//! `KernelTuning::Measured` context of the adapter `Context::from_env` picks, best of four
//! rounds of three calls, on the GPU's clock where the device has timestamps. GB/s counts
//! bytes read plus written.
//! Last, one square transpose of each width into rows 16 elements wider than it (the output
//! strided, its columns dense), where the tile kernels compete with the scatter kernel.
//! The measurements behind `select::MIN_TILE_FILL` and the CPU rule's block tile for 64-bit
//! transposes (ARCHITECTURE.md, CHANGELOG.md).

#![allow(
    clippy::disallowed_methods,
    reason = "a program waits for the device; the lint keeps blocking calls out of the library"
)]
use gpu_xor::{
    Bindings, Context, ContextOptions, DataType, DmlBinary, DmlBinaryDesc, DmlBinaryOp,
    KernelTuning, Tensor, TensorDesc,
};

/// A layout's name, type, sizes, A's strides, and the padding of the output's rows.
type Layout = (String, DataType, [u32; 3], [u32; 3], u32);

fn main() -> Result<(), gpu_xor::Error> {
    let base = Context::from_env()?;
    let ctx = Context::with_options(
        base.device().clone(),
        base.queue().clone(),
        &ContextOptions {
            kernel_tuning: KernelTuning::Measured,
            ..ContextOptions::default()
        },
    )?;
    let bytes: u64 = std::env::var("BYTES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(16 << 20);
    let mut shapes: Vec<Layout> = Vec::new();
    for dt in [DataType::U32, DataType::U8, DataType::U64] {
        let w = u64::from(dt.size_in_bytes());
        let n = bytes / w;
        for s in [4u32, 8, 12, 16, 24, 32, 48, 64, 128] {
            let m = (n / u64::from(s * s)) as u32;
            shapes.push((format!("square {s}"), dt, [m, s, s], [s * s, 1, s], 0));
        }
        for c in [2u32, 4, 8, 16, 32] {
            let r = 256u32;
            let m = (n / u64::from(r * c)) as u32;
            shapes.push((
                format!("cols {c} rows {r}"),
                dt,
                [m, r, c],
                [r * c, 1, r],
                0,
            ));
        }
        for r in [2u32, 4, 8, 16, 32] {
            let c = 256u32;
            let m = (n / u64::from(r * c)) as u32;
            shapes.push((
                format!("rows {r} cols {c}"),
                dt,
                [m, r, c],
                [r * c, 1, r],
                0,
            ));
        }
    }
    // One transpose into rows 16 elements apart wider (a slice of a concatenation).
    for dt in [DataType::U32, DataType::U16, DataType::U8] {
        let s = ((bytes / u64::from(dt.size_in_bytes())) as f64).sqrt() as u32 / 64 * 64;
        let name = format!("square {s} into padded rows");
        shapes.push((name, dt, [1, s, s], [s * s, 1, s], 16));
    }
    println!("| layout | type | GB/s of each candidate kernel |\n|---|---|---|");
    for (name, dt, sizes, a, pad) in shapes {
        let t = TensorDesc::new(dt, &sizes);
        let [m, r, c] = sizes;
        let row = c + pad;
        let desc = DmlBinaryDesc {
            op: DmlBinaryOp::BitXor,
            a: t.clone().with_strides(&a),
            b: t.clone(),
            output: t.clone().with_strides(&[r * row, row, 1]),
        };
        let op = DmlBinary::new(&ctx, &desc)?;
        let us: Vec<usize> = sizes.iter().map(|&s| s as usize).collect();
        let x = Tensor::zeros(&ctx, dt, &us)?;
        let y = Tensor::zeros(&ctx, dt, &us)?;
        let z = Tensor::zeros(&ctx, dt, &[m as usize, r as usize, row as usize])?;
        let bindings = Bindings::new(x.binding(), y.binding(), z.binding());
        let Some(key) = ctx.tuning_key(&op) else {
            println!("| {name} | {dt} | no class |");
            continue;
        };
        let elems: u64 = sizes.iter().map(|&s| u64::from(s)).product();
        let traffic = 3 * elems * u64::from(dt.size_in_bytes());
        let mut line = Vec::new();
        for kernel in key.kernels() {
            let mut table = ctx.kernel_choices();
            table.insert(key, kernel);
            ctx.load_kernel_choices(&table.to_bytes())?;
            let mut best = f64::MAX;
            for _ in 0..4 {
                let t = gpu_xor_bench::time(&ctx, 3, &|enc, n| {
                    for _ in 0..n {
                        op.record(enc, &bindings).expect("record");
                    }
                });
                best = best.min(t.as_secs_f64());
            }
            line.push(format!("{kernel:?} {:.2}", traffic as f64 / best / 1e9));
        }
        println!("| {name} {sizes:?} | {dt} | {} |", line.join(" / "));
    }
    Ok(())
}
