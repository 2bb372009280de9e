//! XOR throughput against the copy limit of the same adapter, measured in one run.
//!
//! `cargo run --release --example bench_report` prints, for the adapter `Context::from_env`
//! picks (about two minutes on lavapipe):
//! - a sweep of sizes (4 KiB to above one binding) for contiguous BIT_XOR, row broadcasting
//!   and the three baselines, a `vec4<u32>` copy kernel and `copy_buffer_to_buffer` of the
//!   same bytes, and a bare `vec4<u32>` XOR kernel (no metadata, no masks) over them;
//! - every path and type at 64 MiB per operand, each against the three baselines, and the
//!   strided paths against a fourth, the plain strided kernel on the same layout;
//! - every strided layout (transposed, permuted 3-D and 4-D, stepped, padded, sliced, short
//!   rows; inputs and outputs) at 64 MiB and 1 MiB against contiguous BIT_XOR of its type
//!   and the plain strided kernel, with the targets of each (`--strided` runs this alone;
//!   `--strided --tunings` runs the same layouts instead under three contexts of one device,
//!   `KernelTuning::Cpu`, `KernelTuning::Gpu` and `KernelTuning::Measured`, the last tuned on
//!   the device first, each row's Measured GB/s against the better fixed rule's, target 0.95,
//!   with the tuning's cost; with `--save` it writes them to
//!   `benches/strided-tunings-<adapter>.md`; on a GPU it runs the transpose probe first);
//! - the transpose probe (`--transposes`, alone): one transpose of 32-bit words written
//!   several ways outside the library (a gather, 32 x 32 tiles of 4- and 16-byte accesses,
//!   64 x 64 tiles of 16-byte accesses with and without wgpu's shader runtime checks) against
//!   the library's kernels under the Gpu rule and measured on the device, and the copy
//!   kernel, each checked against the host first (with `--save` it writes them to
//!   `benches/transposes-<adapter>.md`);
//! - every AND, OR and NOT operator (DirectML and OpenVINO) against the XOR operator of its
//!   standard on the same layouts: contiguous, strided and broadcast (`--and-or-not` runs
//!   this alone);
//! - the shifts and the count of ones: every shift (DirectML BIT_SHIFT_LEFT/RIGHT on u8 to u64, OpenVINO
//!   BitwiseLeftShift/RightShift-15 on i8, i16, u16, i32, i64) against the XOR operator of
//!   its standard on the same layouts, types and sizes, B mostly in-range shift amounts, and
//!   DirectML BIT_COUNT (u64 -> u8, u8 -> u32, u32 -> u32, u8 -> u8) against BIT_XOR of its
//!   input's type on the DirectML shifts' layouts, with the GB/s of both where the widths
//!   differ (`--shifts-and-count` runs this alone);
//! - fused expressions (`Fused`): `(a ^ b) & (a | b)` on u32 and `bit_count(a ^ b)` from u64
//!   into u8 as one generated kernel against the same operators one by one through
//!   intermediate tensors, the nibble unpack `(w >> 4) & 0xF` against the copy kernel, and
//!   the median time of preparing a fused call (`--fused` runs this alone);
//! - contractions: Hamming distances between `M` = 1, 16 and 1,000 queries and `N` = 10^6
//!   codes of 256 and 1,024 bits (10^5 against 1,000 queries on a CPU adapter), tiled and
//!   untiled, against the copy kernel and a bare XOR-popcount kernel on registers
//!   (`--contractions` runs this alone);
//! - search (`--search` alone, not in the full report): k nearest in Hamming space, `M` = 1
//!   against the copy kernel and `M` = 1,000; with `--peer DIR`, against the FAISS searches
//!   that `benches/faiss/peer.py` wrote to `DIR`;
//! - 1,000 small calls batched against 1,000 single submits;
//! - the latency of one 4 KiB call alone and of one call in a batch of 1,000, against the
//!   bare kernel on the same ranges;
//! - the CPU time of recording those 1,000 calls in each way the API offers (prepared calls,
//!   a batch, one-shot `record`), with wgpu alone recording as many passes and dispatches;
//! - the graph: a model's worth of prepared calls (300 nodes, and 10,000 small ones)
//!   recorded into one compute pass per frame, against the same frame of bare dispatches:
//!   frame time, recording, warm and cold preparation, memory per prepared call, pipelines
//!   and the first frame of a new context, and what measuring its kernels costs (one
//!   `Context::tune` of every node's operator on a new `KernelTuning::Measured` context of the
//!   same device: classes measured, candidates, milliseconds) (`benches/src/graph.rs`);
//!   measured last, because its tens of thousands of buffers make every later compute pass
//!   cost more;
//! - each target of the performance issues with the figure reached.
//!
//! GB/s counts bytes read plus bytes written. With `--save` it also writes the tables to
//! `benches/RESULTS.md` and the size sweep to `benches/throughput.svg`. `--core` runs the core
//! path's figures alone (recording, contiguous calls of every type and function against the
//! bare kernel, the graph), with their targets; with `--save` it writes them to
//! `benches/core-path-<adapter>.md` (`core-path-llvmpipe.md`, `core-path-swiftshader.md`).
//! `--shifts-and-count` runs the shifts and the count alone (about a minute on lavapipe);
//! with `--save` it writes them to `benches/shifts-and-count-<adapter>.md`. (`--family` and
//! `--chapter` are older names of `--and-or-not` and `--shifts-and-count`, still taken.)
//! `--graph` runs the graph section alone (its tables and targets, about a minute), `--quick`
//! fewer sizes and rounds. `--case TEXT` keeps, in the strided sections, only the layouts
//! whose path's name contains TEXT (`--strided --case depth-to-space`). For cold figures
//! that include compiling, run with `MESA_SHADER_CACHE_DISABLE=true`
//! on Mesa's drivers (lavapipe keeps compiled shaders on disk otherwise).
//!
//! The cases, baselines, timers and sections are the `gpu-xor-bench` crate's (`benches/`,
//! `gpu_xor_bench::report`); this binary belongs to the root package so that the paths it
//! writes, compiled in from its manifest directory, are the repository's `benches/`.

use gpu_xor_bench::report::{self, Section};

fn main() -> Result<(), gpu_xor::Error> {
    let flag = |name: &str| std::env::args().any(|a| a == name);
    let quick = flag("--quick");
    let args: Vec<String> = std::env::args().collect();
    let case = args
        .iter()
        .position(|a| a == "--case")
        .and_then(|at| args.get(at + 1).cloned());
    report::set_case_filter(case);
    let alone = if flag("--core") {
        Some(Section::Core)
    } else if flag("--graph") {
        Some(Section::Graph)
    } else if flag("--and-or-not") || flag("--family") {
        Some(Section::AndOrNot)
    } else if flag("--shifts-and-count") || flag("--chapter") {
        Some(Section::ShiftsAndCount)
    } else if flag("--fused") {
        Some(Section::Fused)
    } else if flag("--contractions") {
        Some(Section::Contractions)
    } else if flag("--search") {
        Some(Section::Search)
    } else if flag("--transposes") {
        Some(Section::Transposes)
    } else if flag("--strided") {
        Some(if flag("--tunings") {
            Section::StridedTunings
        } else {
            Section::Strided
        })
    } else {
        None
    };
    if let Some(section) = alone {
        if let Some((file, text)) = report::section(section, quick)?
            && flag("--save")
        {
            let path = format!("{}/benches/{file}", env!("CARGO_MANIFEST_DIR"));
            std::fs::write(&path, text).expect("write the section's file");
            println!("wrote benches/{file}");
        }
        return Ok(());
    }
    let report = report::full(quick)?;
    if flag("--save") {
        std::fs::write(
            concat!(env!("CARGO_MANIFEST_DIR"), "/benches/RESULTS.md"),
            report.results,
        )
        .expect("write RESULTS.md");
        std::fs::write(
            concat!(env!("CARGO_MANIFEST_DIR"), "/benches/throughput.svg"),
            report.chart,
        )
        .expect("write throughput.svg");
        println!("wrote benches/RESULTS.md and benches/throughput.svg");
    }
    Ok(())
}
