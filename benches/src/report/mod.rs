//! The report `examples/bench_report.rs` prints: every case, baseline and target in one run
//! on one adapter, as the tables of `benches/RESULTS.md`.
//!
//! Each section is a file: [`full()`] runs them in turn (`full.rs`: the size sweep, every path
//! and type, batching, small calls and the targets), and [`section()`] runs one alone.
//! Sections print their tables as they are measured and return their text and targets.
//! `suite.rs` measures cases together against the baselines of their size, `format.rs` and
//! `chart.rs` turn figures into the tables and the size sweep's chart.

mod and_or_not;
mod chart;
mod contractions;
mod core_path;
mod format;
mod full;
mod fused;
mod graph;
mod recording;
mod search;
mod shifts_and_count;
mod strided;
mod suite;
mod transposes;

use std::fmt::Write as _;

use gpu_xor::{Context, ContextOptions, KernelTuning};

use format::{today, verdict};

/// A target of the performance issues: what it asks, the figure reached, whether it is met.
type Target = (String, String, bool);

/// A section that runs alone (`--core`, `--graph`, `--and-or-not`, `--shifts-and-count`, `--fused`, `--contractions`, `--strided`,
/// `--strided --tunings`, `--transposes`), with its own header and targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    /// The core path: contiguous calls of every type and function against the bare kernel,
    /// the graph's frames and recording, one prepared call against one batch.
    Core,
    /// Both graph mixes: frames, recording, preparation and memory, with their targets.
    Graph,
    /// Every AND, OR and NOT operator against the XOR operator of its standard.
    AndOrNot,
    /// The shifts and the count of ones: every shift, and DirectML's `BIT_COUNT`, against the XOR operator
    /// of its standard.
    ShiftsAndCount,
    /// Every strided layout against contiguous BIT_XOR and the plain strided kernel.
    Strided,
    /// Fused expressions against their operators one by one, the nibble unpack against the
    /// copy kernel, and a fused call's preparation (`--fused`).
    Fused,
    /// Hamming distances between packed codes, tiled and untiled, against the copy kernel
    /// and the bare XOR-popcount kernel (`--contractions`).
    Contractions,
    /// k nearest in Hamming space against the copy kernel and, given `--peer DIR`, against
    /// the FAISS searches `benches/faiss/peer.py` wrote there (`--search`).
    Search,
    /// Every strided layout under the fixed kernel rules (`KernelTuning::Cpu`, `Gpu`) and
    /// under the kernels measured on the device (`KernelTuning::Measured`), with the
    /// measurement's cost (`--strided --tunings`); on a GPU, the transpose probe first.
    StridedTunings,
    /// The transpose probe: one transpose written several ways outside the library, against
    /// the library's kernels and the copy kernel (`--transposes`).
    Transposes,
}

/// The directory after `--peer` on the command line, if any.
fn peer_dir() -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    let at = args.iter().position(|a| a == "--peer")?;
    args.get(at + 1).cloned()
}

/// The files `bench_report -- --save` writes, as text.
pub struct Report {
    /// `RESULTS.md`: the adapter, the date and every table.
    pub results: String,
    /// `throughput.svg`: GB/s against size for the size sweep.
    pub chart: String,
}

/// Runs every section on the adapter `Context::from_env` picks (recording first, the graph
/// last), printing each table as it is measured, then the targets and the machine's load;
/// `quick` measures fewer sizes and rounds. Returns the files `--save` writes.
pub fn full(quick: bool) -> Result<Report, gpu_xor::Error> {
    full::full(quick)
}

/// Runs `section` alone on the adapter `Context::from_env` picks, after a header with the
/// adapter, the date and `MESA_SHADER_CACHE_DISABLE`, and prints its targets (the graph) or
/// how many it met (the others); `quick` measures fewer sizes and rounds.
///
/// Returns the section's text with that header where the section is one that `--save` keeps
/// (the core path, the shifts and count, the strided tunings and the transpose probe, one
/// file per adapter: see [`core_path_file`], [`shifts_and_count_file`],
/// [`strided_tunings_file`] and [`transposes_file`]).
pub fn section(section: Section, quick: bool) -> Result<Option<(String, String)>, gpu_xor::Error> {
    let ctx = Context::from_env()?;
    let info = ctx.adapter_info();
    let header = format!(
        "adapter: {} ({:?}, {:?}, driver {} {})\ndate: {}\nMESA_SHADER_CACHE_DISABLE={:?}\nclock: {}\n",
        info.name,
        info.backend,
        info.device_type,
        info.driver,
        info.driver_info,
        today(),
        std::env::var("MESA_SHADER_CACHE_DISABLE").ok(),
        clock_name(&ctx)
    );
    println!("{header}");
    match section {
        Section::Core => {
            let text = core_path::core_section(&ctx, quick);
            let doc = format!(
                "# Core path on {}\n\nMeasured with `cargo run --release --example bench_report -- --core --save`.\n\n{header}\n{text}",
                info.name
            );
            return Ok(Some((core_path_file(&info.name), doc)));
        }
        Section::Graph => {
            let report = graph::graph_section(&ctx, quick);
            let mut targets = String::from("| target | figure | verdict |\n|---|---|---|\n");
            for (name, figure, met) in &report.targets {
                let _ = writeln!(targets, "| {name} | {figure} | {} |", verdict(*met));
            }
            println!("{targets}");
        }
        Section::AndOrNot => {
            let (_, targets) = and_or_not::and_or_not_section(&ctx, quick);
            let met = targets.iter().filter(|t| t.2).count();
            println!("{met} of {} AND/OR/NOT targets met", targets.len());
        }
        Section::ShiftsAndCount => {
            let (text, targets) = shifts_and_count::shifts_and_count_section(&ctx, quick);
            let met = targets.iter().filter(|t| t.2).count();
            let count = format!("{met} of {} shifts-and-count targets met", targets.len());
            println!("{count}");
            let doc = format!(
                "# The shifts and the count of ones on {}\n\nMeasured with `cargo run --release --example bench_report -- --shifts-and-count --save`.\n\n{header}\n## Shifts and BIT_COUNT against XOR\n\n{text}\n{count}.\n",
                info.name
            );
            return Ok(Some((shifts_and_count_file(&info.name), doc)));
        }
        Section::Fused => {
            let (_, targets) = fused::fused_section(&ctx, quick);
            for (name, figure, met) in &targets {
                println!("{name}: {figure} ({})", verdict(*met));
            }
        }
        Section::Contractions => {
            contractions::contractions_section(&ctx, quick);
        }
        Section::Search => {
            search::search_section(&ctx, quick, peer_dir().as_deref());
        }
        Section::Strided => {
            let (_, targets) = strided::strided_section(&ctx, quick);
            let met = targets.iter().filter(|t| t.2).count();
            println!("{met} of {} strided targets met", targets.len());
        }
        Section::Transposes => {
            let text = transposes::transposes_section(&ctx, quick)?;
            let doc = format!(
                "# The transpose probe on {}\n\nMeasured with `cargo run --release --example bench_report -- --transposes{} --save`.\n\n{header}\n{text}",
                info.name,
                if quick { " --quick" } else { "" }
            );
            return Ok(Some((transposes_file(&info.name), doc)));
        }
        Section::StridedTunings => {
            // On a GPU, the probe first: it is what a GPU's run is for, and it is short.
            if on_gpu(&ctx) {
                transposes::transposes_section(&ctx, true)?;
            }
            let (text, targets) = strided::tunings_section(&ctx, quick)?;
            let met = targets.iter().filter(|t| t.2).count();
            let count = format!(
                "{met} of {} rows with Measured at least {} of the better fixed rule",
                targets.len(),
                strided::MEASURED_TARGET
            );
            println!("{count}");
            let doc = format!(
                "# Kernel tunings on the strided layouts on {}\n\nMeasured with `cargo run --release --example bench_report -- --strided --tunings{} --save`.\n\n{header}\n## Fixed kernel rules against kernels measured on the device\n\n{text}\n{count}.\n",
                info.name,
                if quick { " --quick" } else { "" }
            );
            return Ok(Some((strided_tunings_file(&info.name), doc)));
        }
    }
    Ok(None)
}

/// Whether the report measures at a GPU's sizes: on a GPU rather than a CPU adapter
/// (lavapipe, SwiftShader), whose figures are taken past its last-level cache, or where
/// `GPU_XOR_BENCH_SIZES=gpu` asks for them on any adapter (a dry run of a GPU's sections:
/// every section completes and checks its outputs at those sizes, slowly, on a CPU adapter
/// with memory for them).
/// The text that the strided sections' paths must contain to run (`--case TEXT`), set once
/// before any section runs ([`set_case_filter`]); `None` runs every path.
pub(crate) fn case_filter() -> Option<&'static str> {
    CASE_FILTER.get().and_then(|text| text.as_deref())
}

static CASE_FILTER: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();

/// Runs only the strided layouts whose path's name contains `text` (`permuted`,
/// `depth-to-space`, `(2,1,0)`) in the strided sections (`--strided`, `--strided --tunings`),
/// for a quicker measurement of a few rows; the baselines and contiguous rows still run.
/// The first call decides.
pub fn set_case_filter(text: Option<String>) {
    let _ = CASE_FILTER.set(text);
}

pub(crate) fn on_gpu(ctx: &Context) -> bool {
    std::env::var("GPU_XOR_BENCH_SIZES").as_deref() == Ok("gpu")
        || ctx.adapter_info().device_type != wgpu::DeviceType::Cpu
}

/// The sizes per operand of the tables of large calls: on a GPU 64 MiB, 256 MiB and 1 GiB
/// (an NVIDIA H200's L2 holds 60 MB; `--quick` leaves out 1 GiB), on a CPU adapter `cpu`
/// alone, as the section always measured it there.
pub(crate) fn large_sizes(ctx: &Context, quick: bool, cpu: u64) -> Vec<u64> {
    match (on_gpu(ctx), quick) {
        (true, false) => vec![64 << 20, 256 << 20, 1 << 30],
        (true, true) => vec![64 << 20, 256 << 20],
        (false, _) => vec![cpu],
    }
}

/// The sizes per operand of a section of many cases (every operator against XOR): on a GPU
/// 64 MiB, and 256 MiB too without `--quick` (all of a size's cases hold their buffers at
/// once, so 1 GiB is left to the tables of few cases); on a CPU adapter `cpu`, as the section
/// always measured it there.
pub(crate) fn section_sizes(ctx: &Context, quick: bool, cpu: &[u64]) -> Vec<u64> {
    match (on_gpu(ctx), quick) {
        (true, false) => vec![64 << 20, 256 << 20],
        (true, true) => vec![64 << 20],
        (false, _) => cpu.to_vec(),
    }
}

/// A context on `ctx`'s device and queue under `tuning`, with `ctx`'s binding window and
/// feature level: the same adapter, another kernel rule.
pub(crate) fn tuned_context(
    ctx: &Context,
    tuning: KernelTuning,
) -> Result<Context, gpu_xor::Error> {
    let options = ContextOptions {
        kernel_tuning: tuning,
        ..Default::default()
    };
    same_device(ctx, options)
}

/// A context on `ctx`'s device and queue with `options`, `ctx`'s binding window and feature
/// level in place of theirs.
pub(crate) fn same_device(
    ctx: &Context,
    options: ContextOptions,
) -> Result<Context, gpu_xor::Error> {
    Context::with_options(
        ctx.device().clone(),
        ctx.queue().clone(),
        &ContextOptions {
            feature_level: ctx.feature_level(),
            max_window_bytes: Some(ctx.max_window_bytes()),
            ..options
        },
    )
}

/// Which clock the device's throughput figures are timed by, for a report's header.
pub(crate) fn clock_name(ctx: &Context) -> &'static str {
    if ctx
        .device()
        .features()
        .contains(wgpu::Features::TIMESTAMP_QUERY)
    {
        "GPU timestamps (TIMESTAMP_QUERY) around the calls; the wall clock where they do not advance"
    } else {
        "the wall clock around one submit and its wait (the device has no TIMESTAMP_QUERY)"
    }
}

/// The file `--core --save` writes for an adapter, in `benches/`: `core-path-` and the
/// adapter name's first word in lower case (`core-path-llvmpipe.md`,
/// `core-path-swiftshader.md`).
pub fn core_path_file(adapter: &str) -> String {
    format!("core-path-{}.md", adapter_word(adapter))
}

/// The file `--shifts-and-count --save` writes for an adapter, in `benches/`:
/// `shifts-and-count-` and the adapter name's first word in lower case
/// (`shifts-and-count-llvmpipe.md`, `shifts-and-count-swiftshader.md`).
pub fn shifts_and_count_file(adapter: &str) -> String {
    format!("shifts-and-count-{}.md", adapter_word(adapter))
}

/// The file `--strided --tunings --save` writes for an adapter, in `benches/`:
/// `strided-tunings-` and the adapter name's first word in lower case
/// (`strided-tunings-llvmpipe.md`).
pub fn strided_tunings_file(adapter: &str) -> String {
    format!("strided-tunings-{}.md", adapter_word(adapter))
}

/// The file `--transposes --save` writes for an adapter, in `benches/`: `transposes-` and
/// the adapter name's first word in lower case (`transposes-llvmpipe.md`).
pub fn transposes_file(adapter: &str) -> String {
    format!("transposes-{}.md", adapter_word(adapter))
}

/// The adapter name's first word in lower case (`llvmpipe`, `swiftshader`), or `adapter`.
fn adapter_word(adapter: &str) -> String {
    adapter
        .split(|c: char| !c.is_ascii_alphanumeric())
        .find(|w| !w.is_empty())
        .unwrap_or("adapter")
        .to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--core --save`, `--shifts-and-count --save` and `--strided --tunings --save` name their files
    /// by the adapter's first word.
    #[test]
    fn files_are_named_by_the_adapter() {
        let lavapipe = "llvmpipe (LLVM 15.0.6, 256 bits)";
        let swiftshader = "SwiftShader Device (Subzero)";
        assert_eq!(core_path_file(lavapipe), "core-path-llvmpipe.md");
        assert_eq!(core_path_file(swiftshader), "core-path-swiftshader.md");
        assert_eq!(
            shifts_and_count_file(lavapipe),
            "shifts-and-count-llvmpipe.md"
        );
        assert_eq!(
            shifts_and_count_file(swiftshader),
            "shifts-and-count-swiftshader.md"
        );
        assert_eq!(shifts_and_count_file(""), "shifts-and-count-adapter.md");
        assert_eq!(
            strided_tunings_file(lavapipe),
            "strided-tunings-llvmpipe.md"
        );
        assert_eq!(transposes_file(swiftshader), "transposes-swiftshader.md");
    }
}
