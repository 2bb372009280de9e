//! The strided section: every strided layout against contiguous BIT_XOR of its type and the
//! plain strided kernel; and the same layouts under the fixed kernel rules against the kernels
//! measured on the device (`--strided --tunings`).

use std::fmt::Write as _;
use std::time::Instant;

use gpu_xor::{CompiledOperator, Context, DataType, KernelTuning};

use super::format::{size_name, verdict};
use super::suite::Suite;
use super::{Target, on_gpu, tuned_context};
use crate::{Case, Op, Path};

/// What a strided case must reach: the least fraction of contiguous BIT_XOR of its type per
/// output byte, and the least fraction of the plain strided kernel on its layout.
fn strided_target(path: Path) -> (f64, f64) {
    match path {
        Path::Transposed => (0.8, 1.1),
        Path::Permuted3
        | Path::Permuted3Inner
        | Path::Permuted4
        | Path::Permuted4Channels
        | Path::Permuted3Reversed
        | Path::Permuted4Reversed
        | Path::Permuted5Reversed
        | Path::BatchedTransposes
        | Path::DepthToSpace => (0.7, 1.1),
        Path::TransposedOutput | Path::PermutedOutput | Path::SteppedOutput | Path::ShortRows => {
            (0.5, 1.0)
        }
        // Padded, sliced and stepped layouts: no fraction of contiguous asked, at least the
        // plain kernel.
        _ => (0.0, 1.0),
    }
}

/// The strided layouts of the section, each with its type.
fn strided_cases() -> Vec<(Path, DataType)> {
    let every = [DataType::U8, DataType::U16, DataType::U32, DataType::U64];
    let mut cases: Vec<(Path, DataType)> = Vec::new();
    for dt in every {
        cases.push((Path::Transposed, dt));
    }
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
    ] {
        cases.push((path, DataType::U32));
    }
    cases.push((Path::Permuted3, DataType::U8));
    cases.push((Path::SteppedInput, DataType::U8));
    cases.push((Path::SteppedInput, DataType::U32));
    for dt in every {
        cases.push((Path::TransposedOutput, dt));
    }
    for dt in every {
        cases.push((Path::PermutedOutput, dt));
    }
    for dt in [DataType::U8, DataType::U16] {
        cases.push((Path::PaddedOutput, dt));
        cases.push((Path::SlicedOutput, dt));
    }
    cases.push((Path::SteppedOutput, DataType::U8));
    cases.push((Path::SteppedOutput, DataType::U16));
    cases.push((Path::ShortRows, DataType::U8));
    cases.push((Path::ShortRows, DataType::U16));
    cases
}

/// The sizes of the section, each with whether every case runs at it: on a CPU adapter 64 MiB
/// and 1 MiB (16 MiB and 1 MiB with `--quick`); on a GPU 64 MiB and 256 MiB, and 1 GiB for
/// the transposes and permutations of 32-bit elements (the roofline's rows; 256 MiB has them
/// alone with `--quick`), past the GPU's L2 and within its memory.
fn strided_sizes(ctx: &Context, quick: bool) -> Vec<(u64, bool)> {
    match (on_gpu(ctx), quick) {
        (true, false) => vec![(64 << 20, true), (256 << 20, true), (1 << 30, false)],
        (true, true) => vec![(64 << 20, true), (256 << 20, false)],
        (false, _) => vec![
            (if quick { 16 << 20 } else { 64 << 20 }, true),
            (1 << 20, true),
        ],
    }
}

/// The cases a size runs: all, or the transposes and permutations of 32-bit elements; of
/// them, those whose path's name contains the case filter's text, if any
/// ([`super::case_filter`]).
fn cases_at(all: bool) -> Vec<(Path, DataType)> {
    strided_cases()
        .into_iter()
        .filter(|&(path, dt)| all || (dt == DataType::U32 && strided_target(path).0 >= 0.7))
        .filter(|&(path, _)| super::case_filter().is_none_or(|text| path.name().contains(text)))
        .collect()
}

/// The strided layouts at 64 MiB and 1 MiB (16 MiB and 1 MiB with `--quick`), each against
/// contiguous BIT_XOR of its type and the plain strided kernel on the same layout, measured in
/// one suite per size; the table and the targets.
pub(crate) fn strided_section(ctx: &Context, quick: bool) -> (String, Vec<Target>) {
    let every = [DataType::U8, DataType::U16, DataType::U32, DataType::U64];
    let sizes = strided_sizes(ctx, quick);
    let mut text = String::from(
        "Every strided layout against contiguous BIT_XOR of its type (per output byte: every case reads two operands and writes one, as contiguous does) and against the plain strided kernel (`benches/plain_strided.wgsl`: one element per invocation, offsets from a strides uniform; one output word per invocation for a dense 8- or 16-bit output) on the same layout and buffers, checked to write the same bytes. One suite per size, every row timed in turn each round, best round kept.\n\n| path | type | size | GB/s | / copy kernel | / contiguous | plain GB/s | / plain strided | kernel | target (contiguous, plain) |\n|---|---|---|---:|---:|---:|---:|---:|---|---|\n",
    );
    let mut targets = Vec::new();
    for (bytes, all) in sizes {
        let cases = cases_at(all);
        let mut suite = Suite::default();
        suite.baselines(ctx, bytes);
        for dt in every {
            if all || dt == DataType::U32 {
                suite.case(ctx, Op::BitXor, Path::Contiguous, dt, bytes);
            }
        }
        for &(path, dt) in &cases {
            suite.case(ctx, Op::BitXor, path, dt, bytes);
        }
        suite.run(ctx, if quick { 2 } else { 4 });
        let rows = suite.rows();
        let find = |path: &str, dt: &str| {
            rows.iter()
                .find(|r| r.op == "bit_xor" && r.path == path && r.data_type == dt)
        };
        for &(path, dt) in &cases {
            let Some(r) = find(path.name(), &dt.to_string()) else {
                continue;
            };
            let contiguous = find("contiguous", &dt.to_string()).map_or(0.0, |c| c.gbps);
            let of_contiguous = r.gbps / contiguous;
            let of_plain = r.plain.unwrap_or(0.0);
            let plain_gbps = if of_plain > 0.0 {
                r.gbps / of_plain
            } else {
                0.0
            };
            let (least_contiguous, least_plain) = strided_target(path);
            let met = of_contiguous >= least_contiguous && of_plain >= least_plain;
            let _ = writeln!(
                text,
                "| {} | {dt} | {} | {:.2} | {:.2} | {of_contiguous:.2} | {plain_gbps:.2} | {of_plain:.2} | {} | >= {least_contiguous}, >= {least_plain}: {} |",
                path.name(),
                size_name(r.bytes),
                r.gbps,
                r.kernel,
                r.dispatch,
                verdict(met)
            );
            targets.push((
                format!(
                    "{} {dt} {}: >= {least_contiguous} of contiguous, >= {least_plain} x plain strided",
                    path.name(),
                    size_name(bytes)
                ),
                format!("{of_contiguous:.2}, {of_plain:.2}"),
                met,
            ));
        }
    }
    let _ = writeln!(text, "\n{}", crate::timing::clock_line());
    println!("{text}");
    (text, targets)
}

/// The kernel tunings `--strided --tunings` compares: each with its column's name and the tag
/// of its cases in the suite.
const TUNINGS: [(KernelTuning, &str, &str); 3] = [
    (KernelTuning::Cpu, "Cpu rule", "cpu"),
    (KernelTuning::Gpu, "Gpu rule", "gpu"),
    (KernelTuning::Measured, "Measured", "measured"),
];

/// The least fraction of the better fixed rule's GB/s that the measured kernels must reach.
pub(super) const MEASURED_TARGET: f64 = 0.95;

/// The strided layouts of the strided section at its sizes under three contexts of the same
/// device and queue: `KernelTuning::Cpu`, `KernelTuning::Gpu` (the fixed rules) and
/// `KernelTuning::Measured`, whose case operators of each size are measured with one
/// `Context::tune` before any of their calls is recorded. One suite per size, the three rows
/// of a case timed in turn each round; the table, the tuning's cost, the choices kept, and a
/// target per row (Measured at least 0.95 of the better fixed rule).
pub(crate) fn tunings_section(
    ctx: &Context,
    quick: bool,
) -> Result<(String, Vec<Target>), gpu_xor::Error> {
    let contexts = TUNINGS
        .iter()
        .map(|&(tuning, _, _)| tuned_context(ctx, tuning))
        .collect::<Result<Vec<_>, _>>()?;
    let measured = &contexts[2];
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let rounds = if quick { 2 } else { 4 };
    let mut table = String::from(
        "| path | type | size | GB/s Cpu rule | GB/s Gpu rule | GB/s Measured | Measured / better fixed rule | kernel under each (Cpu rule / Gpu rule / Measured) | target |\n|---|---|---|---:|---:|---:|---:|---|---|\n",
    );
    let mut cost = String::from(
        "| size | operators | classes measured | classes already known | classes skipped | candidates timed | tuning ms (wall) | `TuningReport::seconds` ms | ms per measured class |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut targets = Vec::new();
    let mut short = Vec::new();
    for (bytes, all) in strided_sizes(ctx, quick) {
        let cases = cases_at(all);
        // The fixed rules' cases, and the same cases on the other two contexts, sharing
        // their buffers.
        let fixed: Vec<Case> = cases
            .iter()
            .map(|&(path, dt)| Case::new(&contexts[0], Op::BitXor, path, dt, bytes))
            .collect();
        let twins: Vec<(Case, Case)> = fixed
            .iter()
            .map(|c| (c.twin(&contexts[1]), c.twin(&contexts[2])))
            .collect();
        ctx.wait()?;
        let ops: Vec<&dyn CompiledOperator> = twins.iter().map(|(_, m)| m.operator()).collect();
        let start = Instant::now();
        let report = measured.tune(&ops)?;
        let wall = start.elapsed().as_secs_f64();
        let per_class = if report.measured > 0 {
            format!("{:.1}", wall * 1e3 / report.measured as f64)
        } else {
            "-".to_string()
        };
        let _ = writeln!(
            cost,
            "| {} | {} | {} | {} | {} | {} | {:.0} | {:.0} | {per_class} |",
            size_name(bytes),
            ops.len(),
            report.measured,
            report.known,
            report.skipped,
            report.candidates,
            wall * 1e3,
            report.seconds * 1e3,
        );
        drop(ops);
        // The measured kernels write what the plain strided kernel writes, or where a buffer
        // is larger than one binding (the plain kernel has no windows), what the Cpu rule's
        // kernels write.
        for (case, (_, m)) in fixed.iter().zip(&twins) {
            let (ours, theirs, other) = match case.plain(ctx) {
                Some(plain) => {
                    let (ours, theirs) = m.outputs(ctx, &plain);
                    (ours, theirs, "the plain strided kernel")
                }
                None => (m.output(ctx), case.output(ctx), "the Cpu rule's kernels"),
            };
            assert!(
                ours == theirs,
                "the measured kernel disagrees with {other} on {} {}",
                case.path.name(),
                case.data_type
            );
        }
        let mut suite = Suite::default();
        for (case, (gpu, m)) in fixed.into_iter().zip(twins) {
            suite.add(&contexts[0], TUNINGS[0].2, case);
            suite.add(&contexts[1], TUNINGS[1].2, gpu);
            suite.add(&contexts[2], TUNINGS[2].2, m);
        }
        suite.run(ctx, rounds);
        for &(path, dt) in &cases {
            let dt_name = dt.to_string();
            let [cpu, gpu, tuned] = TUNINGS
                .map(|(_, _, tag)| suite.tagged(tag, Op::BitXor.name(), path.name(), &dt_name));
            let (Some(cpu), Some(gpu), Some(tuned)) = (cpu, gpu, tuned) else {
                continue;
            };
            let (better, better_kernel, _) = if cpu.0 >= gpu.0 { &cpu } else { &gpu };
            let ratio = tuned.0 / better;
            let met = ratio >= MEASURED_TARGET;
            let _ = writeln!(
                table,
                "| {} | {dt} | {} | {:.2} | {:.2} | {:.2} | {ratio:.3} | {} / {} / {} | >= {MEASURED_TARGET}: {} |",
                path.name(),
                size_name(cpu.2),
                cpu.0,
                gpu.0,
                tuned.0,
                cpu.1,
                gpu.1,
                tuned.1,
                verdict(met)
            );
            if !met {
                let why = if tuned.1 != *better_kernel {
                    "another kernel than the better fixed rule's: the measurement chose it"
                } else if better_kernel.contains("ShiftedRows") {
                    "the better fixed rule's kernel, in the form of the adapter's class: the \
                     shifted-rows kernel spreads its blocks under the Gpu rule and runs them \
                     under the Cpu rule, and Measured does not time forms"
                } else {
                    "the better fixed rule's kernel: the gap is the rounds' noise"
                };
                short.push(format!(
                    "{} {dt} {}: {ratio:.3} (Cpu rule {}, Gpu rule {}, Measured {}; {why})",
                    path.name(),
                    size_name(cpu.2),
                    cpu.1,
                    gpu.1,
                    tuned.1
                ));
            }
            targets.push((
                format!(
                    "{} {dt} {}: Measured >= {MEASURED_TARGET} x the better fixed rule",
                    path.name(),
                    size_name(bytes)
                ),
                format!("{ratio:.3}"),
                met,
            ));
        }
    }
    let choices = measured.kernel_choices();
    let mut kept = format!(
        "The Measured context's choices after both sizes ({} classes: `Context::kernel_choices`):\n\n| layout class (`TuningKey`) | kernel kept |\n|---|---|\n",
        choices.len()
    );
    for (key, kernel) in choices.iter() {
        let _ = writeln!(kept, "| {key} | {kernel:?} |");
    }
    let short_text = if short.is_empty() {
        format!("Every row reaches {MEASURED_TARGET} of the better fixed rule.\n")
    } else {
        let mut t = format!(
            "Rows below {MEASURED_TARGET} of the better fixed rule (ratio; kernel under each):\n\n"
        );
        for row in &short {
            let _ = writeln!(t, "- {row}");
        }
        t
    };
    let _ = writeln!(table, "\n{}", crate::timing::clock_line());
    let text = format!(
        "Every strided layout of the strided section (BIT_XOR) under three contexts made on one device and queue: `KernelTuning::Cpu` and `KernelTuning::Gpu`, the two fixed rules, and `KernelTuning::Measured`, which times the kernels that can run each layout class on the device and keeps the fastest. The shifted-rows kernel (padded and sliced outputs) runs in each fixed rule's form: runs of consecutive blocks per invocation under the Cpu rule, blocks spread over a row's invocations under the Gpu rule; Measured takes the form of the adapter's class. The three cases of a layout share their buffers. For each size, every Measured case's operator goes through one `Context::tune` before any of its calls is recorded (calls take the choice when they are recorded or prepared), and each Measured case's output is checked against the plain strided kernel's. One suite per size; every round times each row in turn, the three tunings of a case one after the other; best of {rounds} rounds. GB/s counts bytes read plus bytes written. Target: Measured at least {MEASURED_TARGET} of the better fixed rule, the noise between runs of one case on this machine ({cores} cores, shared, timing a software adapter): a measured choice may be the same kernel as a fixed rule's, and then only noise sets them apart.\n\n{table}\n{short_text}\nWhat the measurement cost, per size: one `Context::tune` of the size's Measured operators (a class met twice is measured once; a class whose call does not fit one binding window, or that one kernel alone runs, is skipped), timed on the wall clock around the call; it compiles the candidates' pipelines and times each on scratch buffers of its operator's size.\n\n{cost}\n{kept}"
    );
    println!("{text}");
    Ok((text, targets))
}
