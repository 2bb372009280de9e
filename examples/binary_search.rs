//! Binary embedding search, end to end on the GPU: `f32` embeddings (from a seeded
//! generator, in clusters, as real embeddings are) binarized by sign and packed into 256-bit
//! codes by one fused expression, then the 10 nearest codes of each query found by a
//! search in Hamming space. The codes and the results are checked against a plain CPU
//! packing and an exhaustive CPU search, and the time per query is printed.
//!
//! `cargo run --release --example binary_search`

#![allow(
    clippy::disallowed_methods,
    reason = "a program waits for the device; the lint keeps blocking calls out of the library"
)]

use std::time::Instant;

use gpu_xor::reference::k_nearest;
use gpu_xor::{
    Context, DataType, Error, Expr, ExprBindings, Fused, Knn, KnnBindings, KnnDesc, Operator,
    ReduceOp, Tensor, TensorDesc,
};

/// Dimensions of an embedding: 8 words of 32 bits once packed.
const DIMS: usize = 256;
const WORDS: usize = DIMS / 32;
const CODES: usize = 50_000;
const QUERIES: usize = 100;
const K: u32 = 10;

fn main() -> Result<(), Error> {
    let ctx = Context::from_env()?;
    let info = ctx.adapter_info();
    println!("adapter: {} ({:?})", info.name, info.backend);

    // Embeddings around 500 centres; each query a noisier copy of one embedding.
    let mut rng = SplitMix(0x5eed);
    let centres: Vec<f32> = (0..500 * DIMS).map(|_| rng.normal()).collect();
    let mut embeddings = Vec::with_capacity(CODES * DIMS);
    for _ in 0..CODES {
        let c = (rng.next() % 500) as usize;
        embeddings.extend((0..DIMS).map(|d| centres[c * DIMS + d] + 0.5 * rng.normal()));
    }
    let mut queries = Vec::with_capacity(QUERIES * DIMS);
    for _ in 0..QUERIES {
        let e = (rng.next() % CODES as u64) as usize;
        queries.extend((0..DIMS).map(|d| embeddings[e * DIMS + d] + 0.3 * rng.normal()));
    }

    // Binarized and packed on the device: bit d of a code is set where dimension d is not
    // negative (its sign bit clear), word d / 32, bit d % 32.
    let t0 = Instant::now();
    let codes = pack(&ctx, &embeddings, CODES)?;
    let query_codes = pack(&ctx, &queries, QUERIES)?;
    ctx.wait()?;
    println!(
        "packed {CODES} + {QUERIES} embeddings of {DIMS} dimensions in {:.1} ms",
        t0.elapsed().as_secs_f64() * 1e3
    );
    let (codes_host, queries_host) = (codes.to_vec::<u32>()?, query_codes.to_vec::<u32>()?);
    assert_eq!(codes_host, pack_on_cpu(&embeddings), "packed codes");
    assert_eq!(queries_host, pack_on_cpu(&queries), "packed queries");

    // The search, prepared once on the tensors' buffers and recorded as often as needed.
    let desc = KnnDesc::new(
        TensorDesc::new(DataType::U32, &[QUERIES as u32, WORDS as u32]),
        TensorDesc::new(DataType::U32, &[CODES as u32, WORDS as u32]),
        K,
        DataType::I64,
    );
    let search = Knn::new(&ctx, &desc)?;
    let distances = Tensor::zeros(&ctx, DataType::U32, &[QUERIES, K as usize])?;
    let indices = Tensor::zeros(&ctx, DataType::I64, &[QUERIES, K as usize])?;
    let call = search.prepare(&KnnBindings::new(
        query_codes.binding(),
        codes.binding(),
        distances.binding(),
        indices.binding(),
    ))?;
    let run = || -> Result<f64, Error> {
        let t = Instant::now();
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        call.record(&mut encoder)?;
        ctx.queue().submit([encoder.finish()]);
        ctx.wait()?;
        Ok(t.elapsed().as_secs_f64())
    };
    run()?; // The first run compiles nothing more, but warms the caches.
    let seconds = (0..3).map(|_| run()).collect::<Result<Vec<_>, _>>()?;
    let best = seconds.iter().copied().fold(f64::INFINITY, f64::min);
    println!(
        "searched {QUERIES} queries among {CODES} codes, k = {K}: {:.3} ms a query ({:.1} ms for all)",
        best * 1e3 / QUERIES as f64,
        best * 1e3
    );

    // The exhaustive search on the CPU, on the CPU's own codes.
    let bytes = |words: &[u32]| -> Vec<u8> { words.iter().flat_map(|w| w.to_le_bytes()).collect() };
    let (cb, qb) = (bytes(&codes_host), bytes(&queries_host));
    let rows = |b: &[u8]| -> Vec<Vec<u8>> { b.chunks(WORDS * 4).map(<[u8]>::to_vec).collect() };
    let (crow, qrow) = (rows(&cb), rows(&qb));
    let crefs: Vec<&[u8]> = crow.iter().map(Vec::as_slice).collect();
    let qrefs: Vec<&[u8]> = qrow.iter().map(Vec::as_slice).collect();
    let want = k_nearest(&qrefs, &crefs, K as usize, |_| true);
    let (d, i) = (distances.to_vec::<u32>()?, indices.to_vec::<i64>()?);
    for (m, want) in want.iter().enumerate() {
        for (j, &(wd, wi)) in want.iter().enumerate() {
            let e = m * K as usize + j;
            assert_eq!((d[e], i[e] as u64), (wd, wi), "query {m}, result {j}");
        }
    }
    println!("all {QUERIES} x {K} results equal the exhaustive CPU search's");
    println!(
        "query 0: distances {:?}, codes {:?}",
        &d[..K as usize],
        &i[..K as usize]
    );
    Ok(())
}

/// Packs `count` embeddings of `DIMS` floats into codes of `WORDS` words with one fused
/// expression: `OR` over each word's 32 dimensions of `(!x >> 31) << position`, the float's
/// bits read as `UINT32`.
fn pack(ctx: &Context, values: &[f32], count: usize) -> Result<Tensor, Error> {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let x = Tensor::from_bytes(ctx, DataType::U32, &[count, WORDS, 32], &bytes)?;
    let positions: Vec<u32> = (0..32).collect();
    let shifts = Tensor::from_slice(ctx, &[32], &positions)?;
    let out = Tensor::zeros(ctx, DataType::U32, &[count, WORDS])?;
    let mut e = Expr::new();
    let xs = e.input(x.dml_desc()?);
    let at = e.input(shifts.dml_desc()?);
    let not = e.apply(Operator::BitNot, &[xs]);
    let thirty_one = e.constant(DataType::U32, 31);
    let bit = e.apply(Operator::BitShiftRight, &[not, thirty_one]);
    let placed = e.apply(Operator::BitShiftLeft, &[bit, at]);
    let desc = e.reduce(placed, ReduceOp::Or, &[2], out.dml_desc()?);
    Fused::new(ctx, &desc)?.submit(&ExprBindings::new(
        &[x.binding(), shifts.binding()],
        out.binding(),
    ))?;
    Ok(out)
}

/// The same packing, one dimension at a time on the CPU: the check.
fn pack_on_cpu(values: &[f32]) -> Vec<u32> {
    values
        .chunks(32)
        .map(|dims| {
            dims.iter()
                .enumerate()
                .filter(|(_, v)| !v.is_sign_negative())
                .fold(0u32, |w, (d, _)| w | 1 << d)
        })
        .collect()
}

/// SplitMix64, and normal deviates from it (Box and Muller's transform).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn normal(&mut self) -> f32 {
        let u = ((self.next() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
        let v = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        ((-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()) as f32
    }
}
