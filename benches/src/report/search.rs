//! The search section (`--search`): k nearest in Hamming space ([`gpu_xor::Knn`]), prepared
//! and recorded, each result checked against an exhaustive search on the CPU before it is
//! timed: `M` = 1 against the copy kernel (latency: the codes' bytes per second over the copy
//! kernel's), `M` = 1,000 in distances per second; and, with `--peer DIR`, the searches that
//! `benches/faiss/peer.py` ran with FAISS's `IndexBinaryFlat` on the same codes, queries and
//! `k`, their results compared exactly and their queries per second side by side.

use std::fmt::Write as _;

use gpu_xor::reference::k_nearest;
use gpu_xor::{Context, DataType, Knn, KnnBindings, KnnCall, KnnDesc, TensorBinding, TensorDesc};
use gpu_xor_testkit::engine::{read_back_blocking, storage_buffer};
use gpu_xor_testkit::random_bytes;

use super::Target;
use super::format::verdict;
use crate::Baselines;
use crate::timing::{clock_line, iterations, time};

/// `M` = 1: the codes' bytes per second over the copy kernel's.
const LATENCY_TARGET: f64 = 0.7;
/// `M` = 1,000, `k` = 10, 256 bits: queries per second over FAISS's.
const PEER_TARGET: f64 = 0.5;

/// One search on its own buffers, prepared.
struct Search {
    call: KnnCall,
    outputs: [wgpu::Buffer; 2],
    m: usize,
    k: usize,
}

impl Search {
    fn new(ctx: &Context, queries: &[u8], codes: &[u8], bytes: usize, k: u32) -> Search {
        let (m, n) = (queries.len() / bytes, codes.len() / bytes);
        let words = (bytes / 4) as u32;
        let desc = KnnDesc::new(
            TensorDesc::new(DataType::U32, &[m as u32, words]),
            TensorDesc::new(DataType::U32, &[n as u32, words]),
            k,
            DataType::I64,
        );
        let op = Knn::new(ctx, &desc).expect("a search");
        let q = storage_buffer(ctx, "queries", queries);
        let c = storage_buffer(ctx, "codes", codes);
        let d = storage_buffer(ctx, "distances", &vec![0; m * k as usize * 4]);
        let i = storage_buffer(ctx, "indices", &vec![0; m * k as usize * 8]);
        let call = op
            .prepare(&KnnBindings::new(
                TensorBinding::new(&q),
                TensorBinding::new(&c),
                TensorBinding::new(&d),
                TensorBinding::new(&i),
            ))
            .expect("prepared");
        Search {
            call,
            outputs: [d, i],
            m,
            k: k as usize,
        }
    }

    /// Runs once and reads the results back: (distance, index) per query.
    fn results(&self, ctx: &Context) -> Vec<Vec<(u32, u64)>> {
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        self.call.record(&mut encoder).expect("recorded");
        ctx.queue().submit([encoder.finish()]);
        let back = read_back_blocking(ctx, &self.outputs).expect("read back");
        (0..self.m)
            .map(|q| {
                (0..self.k)
                    .map(|j| {
                        let e = q * self.k + j;
                        (
                            u32::from_le_bytes(back[0][4 * e..][..4].try_into().unwrap()),
                            u64::from_le_bytes(back[1][8 * e..][..8].try_into().unwrap()),
                        )
                    })
                    .collect()
            })
            .collect()
    }

    /// Seconds per search, the best of `rounds`.
    fn seconds(&self, ctx: &Context, rounds: usize, iters: u64) -> f64 {
        (0..rounds)
            .map(|_| {
                time(ctx, iters, &|e, n| {
                    for _ in 0..n {
                        self.call.record(e).expect("recorded");
                    }
                })
                .as_secs_f64()
            })
            .fold(f64::MAX, f64::min)
    }
}

fn rows(bytes: &[u8], width: usize) -> Vec<&[u8]> {
    bytes.chunks(width).collect()
}

/// Runs the section on `ctx`; returns its text and targets.
pub(crate) fn search_section(
    ctx: &Context,
    quick: bool,
    peer: Option<&str>,
) -> (String, Vec<Target>) {
    let gpu = super::on_gpu(ctx);
    let rounds = if quick { 2 } else { 3 };
    let mut targets = Vec::new();
    let mut text = String::new();
    // The copy kernel over the codes' bytes.
    let n: usize = if gpu || !quick { 1_000_000 } else { 200_000 };
    let bytes = 32;
    let copy_bytes = (n * bytes) as u64;
    let baselines = Baselines::new(ctx, copy_bytes);
    let iters = iterations(2 * copy_bytes, 1 << 28);
    let copy = (0..rounds + 1)
        .map(|_| time(ctx, iters, &|e, k| baselines.record_copy_kernel(e, k)).as_secs_f64())
        .fold(f64::MAX, f64::min);
    let copy_gbps = 2.0 * copy_bytes as f64 / copy / 1e9;
    drop(baselines);
    let _ = writeln!(
        text,
        "k nearest in Hamming space (`Knn`, prepared), codes of 256 bits as u32 words, random; every result checked against an exhaustive search on the CPU first. The copy kernel over {} MB: {copy_gbps:.2} GB/s (bytes read and written). `GB/s` counts the codes' bytes once per search.\n\n| M | N | k | searches/s | queries/s | distances/s | GB/s | / copy |\n|---:|---:|---:|---:|---:|---:|---:|---:|",
        copy_bytes / 1_000_000
    );
    let codes = random_bytes(0xc0de, n * bytes);
    for (m, k) in [
        (1usize, 10u32),
        (1, 100),
        (if gpu { 1000 } else { 100 }, 10),
    ] {
        let queries = random_bytes(m as u64, m * bytes);
        let s = Search::new(ctx, &queries, &codes, bytes, k);
        // The exhaustive check on the CPU, on a few queries.
        let got = s.results(ctx);
        let checked = m.min(4);
        let want = k_nearest(
            &rows(&queries[..checked * bytes], bytes),
            &rows(&codes, bytes),
            k as usize,
            |_| true,
        );
        assert_eq!(&got[..checked], &want[..], "M = {m}, k = {k}");
        let t = s.seconds(ctx, rounds, if gpu { 10 } else { 1 });
        let gbps = copy_bytes as f64 / t / 1e9;
        let over = gbps / copy_gbps;
        let _ = writeln!(
            text,
            "| {m} | {n} | {k} | {:.1} | {:.1} | {:.3e} | {gbps:.2} | {over:.2} |",
            1.0 / t,
            m as f64 / t,
            (m * n) as f64 / t
        );
        if m == 1 && k == 10 {
            targets.push((
                format!(
                    "search, M = 1, k = 10: codes' GB/s over the copy kernel's >= {LATENCY_TARGET}"
                ),
                format!("{over:.2}"),
                over >= LATENCY_TARGET,
            ));
        }
    }
    let _ = writeln!(text, "\n{}", clock_line());
    if let Some(dir) = peer {
        let (table, peer_targets) = peer_table(ctx, dir, rounds);
        text.push('\n');
        text.push_str(&table);
        targets.extend(peer_targets);
    }
    println!("{text}");
    for (name, figure, met) in &targets {
        println!("{name}: {figure} ({})", verdict(*met));
    }
    (text, targets)
}

/// The searches `benches/faiss/peer.py` ran with FAISS, read from `dir`: for each, the same
/// search here, its results compared exactly, and both rates.
fn peer_table(ctx: &Context, dir: &str, rounds: usize) -> (String, Vec<Target>) {
    let read = |name: &str| {
        std::fs::read(format!("{dir}/{name}")).unwrap_or_else(|e| panic!("{dir}/{name}: {e}"))
    };
    let list = String::from_utf8(read("runs.txt")).expect("runs.txt");
    let mut text = String::from(
        "Against FAISS's `IndexBinaryFlat` (`benches/faiss/peer.py`, the same codes, queries and `k`, FAISS on the CPU's cores): distances and indices compared exactly, queries per second of each in one run.\n\n| bits | M | N | k | equal | FAISS queries/s | library queries/s | library / FAISS |\n|---:|---:|---:|---:|---|---:|---:|---:|\n",
    );
    let mut targets = Vec::new();
    for line in list.lines().filter(|l| !l.trim().is_empty()) {
        // name bits m n k faiss_seconds
        let f: Vec<&str> = line.split_whitespace().collect();
        let (name, bits, m, n, k): (&str, usize, usize, usize, u32) = (
            f[0],
            f[1].parse().unwrap(),
            f[2].parse().unwrap(),
            f[3].parse().unwrap(),
            f[4].parse().unwrap(),
        );
        let faiss_seconds: f64 = f[5].parse().unwrap();
        let bytes = bits / 8;
        let queries = read(&format!("{name}.queries"));
        let codes = read(&format!("{name}.codes"));
        let want_d = read(&format!("{name}.distances"));
        let want_i = read(&format!("{name}.indices"));
        assert_eq!(
            (queries.len(), codes.len()),
            (m * bytes, n * bytes),
            "{name}"
        );
        let s = Search::new(ctx, &queries, &codes, bytes, k);
        let got = s.results(ctx);
        let mut equal = true;
        for (q, row) in got.iter().enumerate() {
            for (j, &(d, i)) in row.iter().enumerate() {
                let e = q * k as usize + j;
                let wd = i32::from_le_bytes(want_d[4 * e..][..4].try_into().unwrap());
                let wi = i64::from_le_bytes(want_i[8 * e..][..8].try_into().unwrap());
                if i64::from(d) != i64::from(wd) || i as i64 != wi {
                    if equal {
                        println!(
                            "{name}: query {q} result {j}: ({d}, {}) here, ({wd}, {wi}) by FAISS",
                            i as i64
                        );
                    }
                    equal = false;
                }
            }
        }
        let t = s.seconds(ctx, rounds, 1);
        let (ours, theirs) = (m as f64 / t, m as f64 / faiss_seconds);
        let _ = writeln!(
            text,
            "| {bits} | {m} | {n} | {k} | {} | {theirs:.1} | {ours:.1} | {:.3} |",
            if equal { "yes" } else { "NO" },
            ours / theirs
        );
        targets.push((
            format!("{bits}-bit codes, M = {m}, N = {n}, k = {k}: results equal FAISS's"),
            (if equal { "equal" } else { "differ" }).to_string(),
            equal,
        ));
        if bits == 256 && m == 1000 && n == 1_000_000 && k == 10 {
            targets.push((
                format!("256-bit codes, M = 1,000, N = 10^6, k = 10: queries/s over FAISS's >= {PEER_TARGET}"),
                format!("{:.3}", ours / theirs),
                ours / theirs >= PEER_TARGET,
            ));
        }
    }
    (text, targets)
}
