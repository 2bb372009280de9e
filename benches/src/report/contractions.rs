//! The contractions' section (`--contractions`): Hamming distances between `M` queries and
//! `N` packed codes ([`crate::Distances`]), tiled and untiled, against two roofs measured in
//! the same run: the copy kernel over the codes' bytes (memory) and a bare kernel of XOR and
//! count of ones on registers (arithmetic, [`crate::PopcountRoof`]).

use std::fmt::Write as _;

use gpu_xor::Context;

use super::Target;
use super::format::verdict;
use crate::timing::{clock_line, iterations, paired, time};
use crate::{Baselines, Distances, PopcountRoof, untiled_context};

/// `M` = 1: the call's bytes per second over the copy kernel's.
const MEMORY_TARGET: f64 = 0.8;
/// `M` = 1,000: distances per second over the bare kernel's.
const ARITHMETIC_TARGET: f64 = 0.7;
/// `M` = 1,000: the tiled kernel over the untiled one.
const TILED_TARGET: f64 = 5.0;

/// Seconds per call of the tiled call and, where the tiled kernel runs the shape, of the
/// untiled one, after checking both against a count on the CPU.
fn measure(ctx: &Context, d: &Distances, rounds: usize) -> (f64, Option<f64>) {
    d.check(ctx, &d.tiled);
    d.check(ctx, &d.untiled);
    let iters = iterations(d.traffic(), 1 << 28).min(20);
    let tiled = || time(ctx, iters, &|e, i| Distances::record(&d.tiled, e, i));
    if d.kernels.0 == d.kernels.1 {
        let t = (0..rounds)
            .map(|_| tiled().as_secs_f64())
            .fold(f64::MAX, f64::min);
        return (t, None);
    }
    let (t, u) = paired(rounds, tiled, || {
        time(ctx, iters, &|e, i| Distances::record(&d.untiled, e, i))
    });
    (t, Some(u))
}

/// Runs the section on `ctx`; returns its text and targets.
pub(crate) fn contractions_section(ctx: &Context, quick: bool) -> (String, Vec<Target>) {
    let gpu = super::on_gpu(ctx);
    let rounds = if quick { 2 } else { 3 };
    let plain = untiled_context(ctx);
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
    let iters = iterations(2 * copy_bytes, 1 << 29);
    let copy = (0..rounds + 2)
        .map(|_| time(ctx, iters, &|e, n| baselines.record_copy_kernel(e, n)).as_secs_f64())
        .fold(f64::MAX, f64::min);
    let copy_gbps = 2.0 * copy_bytes as f64 / copy / 1e9;
    drop(baselines);
    let roof = PopcountRoof::new(ctx, 4096, if gpu { 1024 } else { 16 });
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
            let d = Distances::new(ctx, &plain, (m, n, words));
            let (tiled, untiled) = measure(ctx, &d, rounds);
            let distances = f64::from(m) * f64::from(n);
            let gbps = d.traffic() as f64 / tiled / 1e9;
            let over_copy = gbps / copy_gbps;
            let over_bare = distances * f64::from(words) / tiled / bare_words;
            let (untiled_rate, ratio) = match untiled {
                Some(u) => (
                    format!("{:.3e}", distances / u),
                    format!("{:.2}", u / tiled),
                ),
                None => ("-".to_string(), "-".to_string()),
            };
            let _ = writeln!(
                text,
                "| {bits} | {m} | {n} | {:?} | {:.3e} | {gbps:.2} | {over_copy:.2} | {over_bare:.2} | {untiled_rate} | {ratio} |",
                d.kernels.0[0],
                distances / tiled
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
                let ratio = untiled.map_or(0.0, |u| u / tiled);
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
