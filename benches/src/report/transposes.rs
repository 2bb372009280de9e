//! The transpose probe's section (`--transposes`; on a GPU also ahead of `--strided
//! --tunings`): the forms of `crate::probe` against the library's kernels under the Gpu rule
//! and under kernels measured on the device, and the copy kernel, on the same adapter, each
//! checked against the host before it is timed.

use std::fmt::Write as _;
use std::time::Duration;

use gpu_xor::inspect::KernelKind;
use gpu_xor::{Context, KernelTuning};

use super::format::size_name;
use super::{on_gpu, tuned_context};
use crate::baseline::Baselines;
use crate::probe::Probe;
use crate::timing::{gbps, iterations, time};

/// The sides of the probe's matrices: on a GPU 4096 and 8192 (64 MiB and 256 MiB an operand,
/// past an H200's 60 MB of L2), and 16384 (1 GiB) without `--quick`; on a CPU adapter 2048
/// (16 MiB), 1024 with `--quick`.
/// The library's kernels for a transpose of whole 16-byte blocks, each timed as the choice
/// for its layout: the block tile, the 32 x 32 tile and the gather kernel.
const FORCED: [KernelKind; 3] = [KernelKind::BlockTile, KernelKind::Tile, KernelKind::Gather];

fn sides(ctx: &Context, quick: bool) -> Vec<u64> {
    match (on_gpu(ctx), quick) {
        (true, false) => vec![4096, 8192, 16384],
        (true, true) => vec![4096, 8192],
        (false, false) => vec![2048],
        (false, true) => vec![1024],
    }
}

/// Records `n` calls of a row into an encoder.
type Record<'a> = Box<dyn Fn(&mut wgpu::CommandEncoder, u64) + 'a>;

/// One row being measured: its name, the kernel it runs, and how to record `n` calls.
struct Entry<'a> {
    name: String,
    kernel: String,
    traffic: u64,
    record: Record<'a>,
    best: Duration,
}

/// The section's text: one table per size, every row timed in turn each round, best of the
/// rounds kept.
pub(crate) fn transposes_section(ctx: &Context, quick: bool) -> Result<String, gpu_xor::Error> {
    let rounds = if quick { 3 } else { 5 };
    let gpu = tuned_context(ctx, KernelTuning::Gpu)?;
    let measured = tuned_context(ctx, KernelTuning::Measured)?;
    // Each of the library's kernels for the layout, loaded as the measured choice.
    let forced = tuned_context(ctx, KernelTuning::Measured)?;
    let mut text = String::from(
        "C = Aᵀ ^ B over n x n matrices of 32-bit words (the strided section's `transposed` case), written several ways outside the library (`benches/transpose_words.wgsl`, `benches/transpose_vec4.wgsl`: each form differs from the next in one design choice) and run by the library (BIT_XOR, A with strides `[1, n]`) under the Gpu rule, under the kernel measured on this device, and on each of its kernels for the layout (the block tile, the 32 x 32 tile, the gather kernel) loaded as the measured choice, on the same buffers; the copy kernel on buffers of one operand's size. Every form's output is checked against the host's transpose first (a form that fails is not timed). GB/s counts bytes read plus bytes written; each round times every row in turn, best of ",
    );
    let _ = writeln!(text, "{rounds} rounds.\n");
    text.push_str(
        "| n | MiB an operand | form | GB/s | / copy kernel | / library, Gpu rule | kernel |\n|---:|---:|---|---:|---:|---:|---|\n",
    );
    let mut failures = Vec::new();
    // Bytes a measurement moves: enough for a GPU's clock to see the kernels, and a few
    // tenths of a second on a CPU adapter.
    let target = if on_gpu(ctx) { 4 << 30 } else { 256 << 20 };
    let most = ctx.device().limits().max_storage_buffer_binding_size;
    for n in sides(ctx, quick) {
        let bytes = n * n * 4;
        // The forms bind each matrix whole (they have no windows).
        if bytes > most {
            failures.push(format!(
                "n = {n}: not run, {} an operand is more than one binding ({} on this device)",
                size_name(bytes),
                size_name(most)
            ));
            continue;
        }
        let probe = Probe::new(ctx, n);
        let baselines = Baselines::new(ctx, bytes);
        let forms = probe.forms(ctx);
        let (gpu_op, gpu_prepared) = probe.library(&gpu)?;
        let (measured_op, measured_prepared) = probe.library(&measured)?;
        let kernels = FORCED.map(|kernel| (kernel, probe.library_forced(&forced, kernel)));
        let mut libraries = vec![
            (
                "library, Gpu rule".to_string(),
                &gpu,
                &gpu_prepared,
                probe.kernels(&gpu, &gpu_op),
            ),
            (
                "library, Measured".to_string(),
                &measured,
                &measured_prepared,
                probe.kernels(&measured, &measured_op),
            ),
        ];
        for (kernel, made) in &kernels {
            match made {
                Ok((prepared, ran)) => libraries.push((
                    format!("library, {kernel:?} kernel"),
                    &forced,
                    prepared,
                    ran.clone(),
                )),
                Err(e) => failures.push(format!("n = {n}, library, {kernel:?} kernel: {e}")),
            }
        }
        let mut entries = vec![Entry {
            name: "copy kernel (`vec4<u32>`, one operand in, one out)".into(),
            kernel: "-".into(),
            traffic: 2 * bytes,
            record: Box::new(|e, k| baselines.record_copy_kernel(e, k)),
            best: Duration::MAX,
        }];
        for (name, ctx, prepared, kernel) in libraries {
            match probe.check(ctx, &|e| prepared.record(e).expect("record")) {
                Ok(()) => entries.push(Entry {
                    name,
                    kernel,
                    traffic: probe.traffic(),
                    record: Box::new(move |e, k| {
                        for _ in 0..k {
                            prepared.record(e).expect("record");
                        }
                    }),
                    best: Duration::MAX,
                }),
                Err(why) => failures.push(format!("n = {n}, {name}: {why}")),
            }
        }
        let mut passed = Vec::new();
        for form in &forms {
            // A form without runtime checks runs only after its checked twin wrote the right
            // bytes.
            if let Some(twin) = form.after
                && !passed.contains(&twin)
            {
                failures.push(format!("n = {n}, {}: not run ({twin} failed)", form.name));
                continue;
            }
            match probe.check(ctx, &|e| form.record(e, 1)) {
                Ok(()) => {
                    passed.push(form.name);
                    entries.push(Entry {
                        name: form.name.into(),
                        kernel: "-".into(),
                        traffic: probe.traffic(),
                        record: Box::new(move |e, k| form.record(e, k)),
                        best: Duration::MAX,
                    });
                }
                Err(why) => failures.push(format!("n = {n}, {}: {why}", form.name)),
            }
        }
        // Touch every row's buffers before timing (the first calls on new buffers can run
        // slower on a GPU), then the rounds.
        for entry in &entries {
            time(ctx, 1, &*entry.record);
        }
        for _ in 0..rounds {
            for entry in &mut entries {
                let t = time(ctx, iterations(entry.traffic, target), &*entry.record);
                entry.best = entry.best.min(t);
            }
        }
        let copy = gbps(entries[0].traffic, entries[0].best);
        let library = entries
            .iter()
            .find(|e| e.name == "library, Gpu rule")
            .map(|e| gbps(e.traffic, e.best));
        for entry in &entries {
            let rate = gbps(entry.traffic, entry.best);
            let _ = writeln!(
                text,
                "| {n} | {} | {} | {} | {:.2} | {} | {} |",
                size_name(bytes).trim_end_matches(" MiB"),
                entry.name,
                if rate < 100.0 {
                    format!("{rate:.2}")
                } else {
                    format!("{rate:.0}")
                },
                rate / copy,
                library.map_or("-".into(), |l| format!("{:.2}", rate / l)),
                entry.kernel,
            );
        }
    }
    let _ = writeln!(text, "\n{}", crate::timing::clock_line());
    if failures.is_empty() {
        text.push_str("\nEvery form wrote the host's transpose.\n");
    } else {
        text.push_str("\nNot timed (a form that did not write the host's transpose, or a size the forms cannot bind):\n\n");
        for f in &failures {
            let _ = writeln!(text, "- {f}");
        }
    }
    println!("{text}");
    Ok(text)
}
