//! The whole report: every section in turn, the targets, and the files `--save` writes.

use std::fmt::Write as _;
use std::time::Duration;

use gpu_xor::{Context, DataType};

use super::Report;
use super::and_or_not::and_or_not_section;
use super::chart::{Series, svg};
use super::format::{load, size_name, table, today, verdict};
use super::graph::graph_section;
use super::recording::recording;
use super::shifts_and_count::shifts_and_count_section;
use super::strided::strided_section;
use super::suite::{BARE_XOR, BARE_XOR_IN_PLACE, COPY_KERNEL, Suite};
use crate::{Latency, Op, Path, SmallCalls};

/// Runs every section on the adapter `Context::from_env` picks, printing each table as it is
/// measured: see `report::full`.
pub(crate) fn full(quick: bool) -> Result<Report, gpu_xor::Error> {
    let ctx = Context::from_env()?;
    let info = ctx.adapter_info();
    let adapter = format!(
        "{} ({:?}, {:?}, driver {} {})",
        info.name, info.backend, info.device_type, info.driver, info.driver_info
    );
    let date = today();
    let load_start = load();
    let clock = super::clock_name(&ctx);
    println!("adapter: {adapter}\ndate: {date}\nclock: {clock}\n");

    // Recording is measured first: every buffer a section makes raises the high-water mark of
    // wgpu-core's buffer indices, to which it sizes each compute pass's resource tracking.
    let recording = recording(&ctx, if quick { 8 } else { 30 });

    // 1. The size sweep.
    let window = ctx.max_window_bytes();
    let above = (window + window / 4).next_multiple_of(1 << 20);
    // On a GPU the sweep goes on past its L2 (60 MB on an H200) to 1 GiB.
    let sizes: Vec<u64> = match (super::on_gpu(&ctx), quick) {
        (true, false) => vec![4 << 10, 1 << 20, 16 << 20, 64 << 20, 256 << 20, 1 << 30],
        (true, true) => vec![1 << 20, 64 << 20, 256 << 20],
        (false, true) => vec![4 << 10, 1 << 20, 16 << 20],
        (false, false) => vec![4 << 10, 1 << 20, 16 << 20, 64 << 20, above],
    };
    let rounds = if quick { 2 } else { 4 };
    let sweep_cases = [
        (Op::BitXor, Path::Contiguous, DataType::U32),
        (Op::BitXor, Path::Contiguous, DataType::U8),
        (Op::BitXor, Path::BroadcastRow, DataType::U32),
    ];
    let mut series: Vec<Series> = vec![
        ("copy kernel", "#888888", vec![]),
        ("copy_buffer", "#bbbbbb", vec![]),
        ("bare xor", "#9467bd", vec![]),
        ("bit_xor u32", "#1f77b4", vec![]),
        ("bit_xor u8", "#2ca02c", vec![]),
        ("row broadcast u32", "#d62728", vec![]),
    ];
    let mut sweep_rows = Vec::new();
    for &bytes in &sizes {
        let mut suite = Suite::default();
        suite.baselines(&ctx, bytes);
        for (op, path, dt) in sweep_cases {
            suite.case(&ctx, op, path, dt, bytes);
        }
        suite.run(&ctx, rounds);
        let rows = suite.rows();
        for (line, row) in series.iter_mut().zip(&rows) {
            line.2.push((bytes, row.gbps));
        }
        sweep_rows.extend(rows);
    }
    let sweep_table = table(&sweep_rows);
    println!("{sweep_table}");

    // 2. Every path and type at 64 MiB (16 MiB with --quick).
    let at: u64 = if quick { 16 << 20 } else { 64 << 20 };
    let types = DataType::DIRECTML;
    let mut suite = Suite::default();
    suite.baselines(&ctx, at);
    for dt in types {
        suite.case(&ctx, Op::BitXor, Path::Contiguous, dt, at);
    }
    suite.case(&ctx, Op::BitXor, Path::InPlace, DataType::U32, at);
    suite.case(&ctx, Op::BitXor, Path::BroadcastRow, DataType::U32, at);
    suite.case(&ctx, Op::BitwiseXor, Path::BroadcastRow, DataType::U8, at);
    suite.case(&ctx, Op::BitXor, Path::BroadcastScalar, DataType::U32, at);
    suite.case(
        &ctx,
        Op::BitwiseXor,
        Path::BroadcastScalar,
        DataType::U8,
        at,
    );
    suite.case(&ctx, Op::BitXor, Path::Transposed, DataType::U32, at);
    for dt in [DataType::U8, DataType::U16] {
        suite.case(&ctx, Op::BitXor, Path::PaddedOutput, dt, at);
        suite.case(&ctx, Op::BitXor, Path::SlicedOutput, dt, at);
    }
    for dt in [DataType::U8, DataType::U16, DataType::U32] {
        suite.case(&ctx, Op::BitXor, Path::TransposedOutput, dt, at);
    }
    suite.case(&ctx, Op::LogicalXor, Path::Contiguous, DataType::U8, at);
    suite.case(&ctx, Op::LogicalXor, Path::Contiguous, DataType::U32, at);
    suite.run(&ctx, rounds);
    let paths = suite.rows();
    let paths_table = table(&paths);
    println!("{paths_table}");
    let rate = |op: &str, path: &str, dt: DataType| {
        paths
            .iter()
            .find(|r| r.op == op && r.path == path && r.data_type == dt.to_string())
            .map_or(0.0, |r| r.gbps)
    };
    let baseline = |(op, path): (&str, &str)| {
        paths
            .iter()
            .find(|r| r.op == op && r.path == path)
            .map_or(0.0, |r| r.gbps)
    };
    let base_kernel = baseline(COPY_KERNEL);
    let bare = baseline(BARE_XOR);
    let contiguous: Vec<(DataType, f64)> = types
        .iter()
        .map(|&dt| (dt, rate("bit_xor", "contiguous", dt)))
        .collect();
    let in_place = rate("bit_xor", "in-place", DataType::U32);
    let bare_in_place = baseline(BARE_XOR_IN_PLACE);
    let bcast = rate("bit_xor", "broadcast-row", DataType::U32);
    let transposed = rate("bit_xor", "transposed", DataType::U32);
    drop(suite);

    // 2a. The core path: contiguous calls of every type and function against the bare kernel.
    let (core_table, core_targets) =
        super::core_path::contiguous(&ctx, at, if quick { 3 } else { 10 });

    // 2b. The strided layouts against contiguous and the plain strided kernel, two sizes.
    let (strided_text, strided_targets) = strided_section(&ctx, quick);

    // 2c. AND, OR and NOT against XOR.
    let (and_or_not_text, and_or_not_targets) = and_or_not_section(&ctx, quick);

    // 2d. The shifts and BIT_COUNT against XOR.
    let (shifts_text, shifts_targets) = shifts_and_count_section(&ctx, quick);

    // 2e. Fused expressions against their operators one by one.
    let (fused_text, fused_targets) = super::fused::fused_section(&ctx, quick);

    // 2f. Contractions: Hamming distance matrices, tiled and untiled, against two roofs.
    let (contractions_text, contractions_targets) =
        super::contractions::contractions_section(&ctx, quick);

    // 3. Batched against single submits.
    let small = SmallCalls::new(&ctx, 1000, 4096);
    small.batched(&ctx);
    small.single_submits(&ctx);
    let batched = (0..3).map(|_| small.batched(&ctx)).min().expect("repeats");
    let single = (0..3)
        .map(|_| small.single_submits(&ctx))
        .min()
        .expect("repeats");
    let batch_text = format!(
        "1,000 BIT_XOR calls of 4 KiB: one batch {:.2} ms, 1,000 single submits {:.2} ms (batched / single = {:.3})\n",
        batched.as_secs_f64() * 1e3,
        single.as_secs_f64() * 1e3,
        batched.as_secs_f64() / single.as_secs_f64()
    );
    println!("{batch_text}");

    // 3b. Small calls against the bare kernel.
    let latency = Latency::new(&ctx, 1000, 4096);
    let calls = latency.small.calls;
    // Every round runs each row three times in a row, so that the first run takes whatever the
    // previous row left to the next submit (wgpu frees a finished submission's resources then).
    let latency_rounds = if quick { 10 } else { 30 };
    let runs: [&dyn Fn() -> Duration; 4] = [
        &|| latency.alone(&ctx),
        &|| latency.bare_alone(&ctx),
        &|| latency.batched(&ctx),
        &|| latency.bare_batched(&ctx),
    ];
    let mut best = [Duration::MAX; 4];
    for _ in 0..latency_rounds {
        for (b, run) in best.iter_mut().zip(runs) {
            for _ in 0..3 {
                *b = (*b).min(run());
            }
        }
    }
    let us = |d: Duration, n: u64| d.as_secs_f64() * 1e6 / n as f64;
    let (alone, bare_alone) = (us(best[0], 1), us(best[1], 1));
    let (in_batch, bare_in_batch) = (us(best[2], calls), us(best[3], calls));
    let small_text = format!(
        "Per-call latency of 4 KiB BIT_XOR u32 calls (three 4 MiB buffers, call `i` at offset `i * 4096`) against the bare `vec4<u32>` XOR kernel on the same ranges. Timed: a new encoder, the recording, `finish`, one submit and a wait for the device; the call prepared (`op.prepare`, `Batch::prepare`), the pipelines warmed up and every bare-kernel bind group made before any timing. Best of {latency_rounds} rounds, each running every row three times in a row.\n\n| per call | timed | library µs | bare xor µs | library / bare |\n|---|---|---:|---:|---:|\n| one 4 KiB call alone | library: `Prepared::record` of one call; bare: one dispatch in one pass | {alone:.1} | {bare_alone:.1} | {:.2} |\n| one call in a batch of {calls} | library: the prepared batch of {calls} calls recorded ({} dispatches); bare: {calls} dispatches in one pass; the total over {calls} | {in_batch:.2} | {bare_in_batch:.2} | {:.2} |\n",
        alone / bare_alone,
        latency.batch_dispatches(),
        in_batch / bare_in_batch,
    );
    println!("{small_text}");

    // 4. Recording (measured first, above).
    println!("{}", recording.text);

    // 5. The graph, last: its buffers make every later compute pass cost more.
    let graph_report = graph_section(&ctx, quick);

    // 6. The targets.
    let u32_rate = rate("bit_xor", "contiguous", DataType::U32);
    let worst = contiguous
        .iter()
        .map(|&(dt, g)| (dt, g / base_kernel))
        .fold(
            (DataType::U32, f64::MAX),
            |a, b| if b.1 < a.1 { b } else { a },
        );
    let per_byte =
        |dt: DataType| contiguous.iter().find(|c| c.0 == dt).map_or(0.0, |c| c.1) / u32_rate;
    // Broadcast moves two bytes per output byte, contiguous three: compare output bytes.
    let bcast_ratio = (bcast / 2.0) / (u32_rate / 3.0);
    let batch_ratio = batched.as_secs_f64() / single.as_secs_f64();
    let mut targets = String::from("| target | figure | verdict |\n|---|---|---|\n");
    let mut target = |name: &str, figure: String, verdict: &str| {
        let _ = writeln!(targets, "| {name} | {figure} | {verdict} |");
    };
    let lowest_bare =
        contiguous
            .iter()
            .map(|&(dt, g)| (dt, g / bare))
            .fold(
                (DataType::U32, f64::MAX),
                |a, b| if b.1 < a.1 { b } else { a },
            );
    target(
        &format!(
            "BIT_XOR contiguous {}, every type, >= 0.97 of the bare XOR kernel",
            size_name(at)
        ),
        format!(
            "lowest {:.2} ({}); u32 {:.2}",
            lowest_bare.1,
            lowest_bare.0,
            u32_rate / bare
        ),
        verdict(lowest_bare.1 >= 0.97),
    );
    // A target for GPUs: on a CPU adapter the copy kernel is not the limit a GPU's is.
    let on_cpu = info.device_type == wgpu::DeviceType::Cpu;
    target(
        &format!(
            "BIT_XOR contiguous {}, every type, >= 0.9 of the copy kernel (on a GPU)",
            size_name(at)
        ),
        format!(
            "lowest {:.2} ({}); u32 {:.2}",
            worst.1,
            worst.0,
            u32_rate / base_kernel
        ),
        match (worst.1 >= 0.9, on_cpu) {
            (true, _) => "met",
            (false, true) => "short (a GPU target; this adapter is a CPU)",
            (false, false) => "short",
        },
    );
    let of_contiguous =
        |path: &str, dt: DataType| rate("bit_xor", path, dt) / rate("bit_xor", "contiguous", dt);
    for (path, what, least) in [
        ("padded-output", "padded output (rows of cols + 1)", 0.7),
        (
            "sliced-output",
            "sliced output (a slice of a wider tensor, 16 bytes in)",
            0.7,
        ),
    ] {
        for dt in [DataType::U8, DataType::U16] {
            let r = of_contiguous(path, dt);
            target(
                &format!("{what} {dt} >= {least} of contiguous {dt} per output byte"),
                format!("{r:.2}"),
                verdict(r >= least),
            );
        }
    }
    for dt in [DataType::U8, DataType::U16] {
        let r = of_contiguous("transposed-output", dt);
        target(
            &format!("transposed output [n, n] {dt} >= 0.3 of contiguous {dt}"),
            format!(
                "{r:.2} (u32 for reference: {:.2})",
                of_contiguous("transposed-output", DataType::U32)
            ),
            verdict(r >= 0.3),
        );
    }
    target(
        "u8 within 10% of u32 per byte",
        format!("{:.2}", per_byte(DataType::U8)),
        verdict((per_byte(DataType::U8) - 1.0).abs() <= 0.1),
    );
    target(
        "u16 within 10% of u32 per byte",
        format!("{:.2}", per_byte(DataType::U16)),
        verdict((per_byte(DataType::U16) - 1.0).abs() <= 0.1),
    );
    target(
        "[4096, 4096] ^ [4096] >= 0.7 of contiguous per output byte",
        format!("{bcast_ratio:.2}"),
        verdict(bcast_ratio >= 0.7),
    );
    target(
        "transposed 2-D u32 >= 0.3 of contiguous",
        format!("{:.2}", transposed / u32_rate),
        verdict(transposed / u32_rate >= 0.3),
    );
    // The adapter's own cost of reading and writing one buffer (the bare kernel in place
    // against itself out of place) is not the library's: the verdict is against the bare
    // kernel in place, and the figure shows both.
    target(
        "in place at least as fast as out of place, as far as the adapter allows: over the bare \
         XOR kernel in place >= 0.97",
        format!(
            "{:.2} (over out of place {:.2}; the bare kernel in place over itself out of place {:.2})",
            in_place / bare_in_place,
            in_place / u32_rate,
            bare_in_place / bare
        ),
        // Not met where the bare kernel in place has no row (a ratio over 0 would pass).
        verdict(bare_in_place > 0.0 && in_place / bare_in_place >= 0.97),
    );
    target(
        "1,000 batched 4 KiB calls <= 1/4 of 1,000 single submits",
        format!("{batch_ratio:.3}"),
        verdict(batch_ratio <= 0.25),
    );
    let r = &recording;
    let (name, figure, met) = super::core_path::prepared_record_target(r);
    target(&name, figure, verdict(met));
    target(
        "1,000 prepared calls recorded <= 1.5 x one Batch: (b) `record_in_pass` / (c)",
        format!("{:.2} ({:.2} µs per call)", r.in_pass / r.batch, r.in_pass),
        verdict(r.in_pass / r.batch <= 1.5),
    );
    for (name, figure, met) in super::recording::one_shot_targets(r) {
        target(&name, figure, verdict(met));
    }
    target(
        "small calls: one 4 KiB call alone, against the bare kernel alone (no target)",
        format!(
            "{alone:.1} µs / {bare_alone:.1} µs = {:.2}",
            alone / bare_alone
        ),
        "-",
    );
    target(
        &format!(
            "small calls: one call in a batch of {calls}, against {calls} bare dispatches in one pass (no target)"
        ),
        format!(
            "{in_batch:.2} µs / {bare_in_batch:.2} µs = {:.2}",
            in_batch / bare_in_batch
        ),
        "-",
    );
    for (name, figure, met) in core_targets
        .iter()
        .chain(&strided_targets)
        .chain(&and_or_not_targets)
        .chain(&shifts_targets)
        .chain(&fused_targets)
        .chain(&contractions_targets)
        .chain(&graph_report.targets)
    {
        target(name, figure.clone(), verdict(*met));
    }
    println!("{targets}");

    // Timings on a software adapter move with whatever else the CPUs run.
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let load_line = match (load_start, load()) {
        (Some(a), Some(b)) => format!(
            "\n- other work on the machine: 1-minute load average {a} at the start and {b} at the end (the run's own threads count in the second), on {cores} cores."
        ),
        _ => String::new(),
    };
    println!("{}", load_line.trim_start());

    let doc = format!(
        "# Benchmark results\n\nMeasured with `cargo run --release --example bench_report -- --save`.\n\n- adapter: {adapter}\n- date: {date}\n- clock: {clock}\n- GB/s counts bytes read plus bytes written; the copy baselines move the same bytes on the same adapter in the same run, and the bare XOR kernel reads two operands of those bytes and writes one, as a contiguous XOR does (the in-place call against the same kernel in place, `a ^= b`).{load_line}\n\n## Size sweep\n\n{sweep_table}\n![GB/s against size](throughput.svg)\n\n## Paths and types at {}\n\n{paths_table}\n## Core path\n\nContiguous calls at {} of every type, in place, the logical form and every other function, in one suite with the bare XOR kernel (its own rounds, so its ratios are not the table's above): the NOT reads one input and writes one, so its bare kernel is the copy kernel, and the in-place call's is the bare XOR kernel in place.\n\n{core_table}\n## Strided layouts\n\n{strided_text}\n## AND, OR and NOT against XOR\n\n{and_or_not_text}\n## Shifts and BIT_COUNT against XOR\n\n{shifts_text}\n## Fused expressions\n\n{fused_text}\n## Contractions\n\n{contractions_text}\n## Batching\n\n{batch_text}\n## Small calls\n\n{small_text}\n## Recording\n\n{}\n## Graph\n\n{}\n## Targets\n\n{targets}",
        size_name(at),
        size_name(at),
        recording.text,
        graph_report.text
    );
    let chart = svg(&format!("XOR against copy on {}", info.name), &series);
    Ok(Report {
        results: doc,
        chart,
    })
}
