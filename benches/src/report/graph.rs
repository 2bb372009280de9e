//! The graph section: a model's worth of prepared calls against the same frame of bare
//! dispatches ([`crate::graph`]).

use std::fmt::Write as _;

use gpu_xor::{Context, KernelTuning};

use super::{Target, tuned_context};
use crate::graph::{self, Graph, MODEL, SMALL, TuningCost};
use crate::timing::{median, paired};

/// The graph section: its table, and its target rows (name, figure, met).
pub(crate) struct GraphReport {
    /// The notes and the table.
    pub(crate) text: String,
    /// The graph's targets.
    pub(crate) targets: Vec<Target>,
}

/// Measures both mixes and prints the section.
pub(crate) fn graph_section(ctx: &Context, quick: bool) -> GraphReport {
    let mut text = String::from(
        "Every node prepared once, the prepared calls laid out flat in one `gpu_xor::Graph`, \
         recorded with `Graph::record_in_pass` into one compute pass per frame, against the \
         same frame of bare `vec4<u32>` XOR dispatches on the same buffers (one pipeline, one \
         bind group and one dispatch per node); `benches/src/graph.rs` gives the generator. \
         Recording is also timed node by node (`Prepared::record_in_pass` each). Frames: median of interleaved rounds, each the frame's compute pass between \
         its own GPU timestamps where the device has them (else the wall time of a new \
         encoder, the pass, `finish`, submit and wait; the line under the table says which). Recording: the CPU time of the pass alone (begin, every node, end), \
         and of `finish`. Cold: new contexts from the environment.\n\n\
         | figure | 300 nodes | 10,000 nodes |\n|---|---|---|\n",
    );
    let mut targets = Vec::new();
    let mut columns: Vec<Vec<String>> = Vec::new();
    let mut frames = Vec::new();
    let mut tunings: Vec<TuningCost> = Vec::new();
    for mix in [MODEL, SMALL] {
        let g = Graph::new(ctx, mix);
        ctx.wait().expect("the uploads");
        let n = mix.nodes as f64;
        let rounds = match (quick, mix.nodes) {
            (true, _) => 5,
            (false, 300) => 21,
            _ => 15,
        };
        let (lib, bare) = paired(rounds, || g.frame(ctx), || g.bare_frame(ctx));
        let kinds = g.frames_by_kind(ctx, if quick { 3 } else { 11 });
        let rec_rounds = if quick { 5 } else { 15 };
        let mut rec = Vec::new();
        let mut rec_bare = Vec::new();
        let mut fin = Vec::new();
        let mut fin_bare = Vec::new();
        let mut rec_piped = Vec::new();
        let mut rec_each = Vec::new();
        for _ in 0..rec_rounds {
            let (r, f) = g.record_flat(ctx);
            rec.push(r.as_secs_f64());
            fin.push(f.as_secs_f64());
            rec_each.push(g.record_prepared(ctx).0.as_secs_f64());
            let (r, f) = g.record_bare(ctx);
            rec_bare.push(r.as_secs_f64());
            fin_bare.push(f.as_secs_f64());
            rec_piped.push(g.record_bare_switching(ctx).0.as_secs_f64());
        }
        let (rec, rec_bare) = (median(rec), median(rec_bare));
        let rec_piped = median(rec_piped);
        let rec_each = median(rec_each);
        let (pipelines, changes) = g.pipelines();
        let (fin, fin_bare) = (median(fin), median(fin_bare));
        let warm = median((0..5).map(|_| g.prepare_again(ctx).as_secs_f64()).collect());
        let traffic = g.traffic() as f64;
        drop(g);
        ctx.wait().expect("the graph's frames");
        let cold = graph::cold(mix);
        // What measuring the graph's layout classes costs, on a new context of this device.
        let measured = tuned_context(ctx, KernelTuning::Measured).expect("a measured context");
        tunings.push(graph::tuning_cost(&measured, mix));
        drop(measured);
        let us = |s: f64| format!("{:.2} µs", s * 1e6);
        columns.push(vec![
            format!(
                "{:.2} ms / {:.2} ms = **{:.3}**",
                lib * 1e3,
                bare * 1e3,
                lib / bare
            ),
            kinds
                .iter()
                .map(|(name, lib, bare)| format!("{name} {:.3}", lib / bare))
                .collect::<Vec<_>>()
                .join("; "),
            format!(
                "{:.2} / {:.2} GB/s ({:.0} MB a frame)",
                traffic / lib / 1e9,
                traffic / bare / 1e9,
                traffic / 1e6
            ),
            format!(
                "{} / {} = **{:.2}**",
                us(rec / n),
                us(rec_bare / n),
                rec / rec_bare
            ),
            format!(
                "{} / {} = {:.2}",
                us(rec_each / n),
                us(rec_bare / n),
                rec_each / rec_bare
            ),
            format!(
                "{} ({:.2} of bare; the `Graph` / this = {:.2})",
                us(rec_piped / n),
                rec_piped / rec_bare,
                rec / rec_piped
            ),
            format!("{pipelines} ({changes} changes a frame)"),
            format!(
                "{} / {} = {:.2}",
                us(fin / n),
                us(fin_bare / n),
                fin / fin_bare
            ),
            us(warm),
            us(cold.prepare_per_node.as_secs_f64()),
            us(cold.warmed_per_node.as_secs_f64()),
            format!("{}", cold.pipelines),
            format!("{:.0} ms", cold.first_frame.as_secs_f64() * 1e3),
            format!("{:.0} B", cold.gpu_bytes_per_node),
            format!("{:.0} B", cold.arena_bytes_per_node),
            format!(
                "{:.2} / {:.2}",
                cold.bind_groups_per_node, cold.buffers_per_node
            ),
        ]);
        frames.push((mix, lib / bare, rec / rec_bare, warm, cold));
    }
    let names = [
        "GPU frame: prepared (a `Graph`) / bare",
        "GPU frame of each kind of node alone: prepared / bare",
        "bytes read and written a frame, over its time: prepared / bare",
        "recording a node into the open pass: a `Graph` / bare (`set_bind_group` + dispatch)",
        "recording a node with `Prepared::record_in_pass` each / bare",
        "bare recording switching between two pipelines before every dispatch (wgpu's cost of a graph whose pipeline changes at every node)",
        "pipelines the `Graph`'s dispatches use (it sets one only where it changes)",
        "`finish` per node: prepared / bare",
        "warm preparation per node (pipelines compiled)",
        "cold preparation per node (new context; operators made and every node prepared, compiling on the way)",
        "cold, after one `Context::warm_up` of the whole graph (compiling on every core), per node",
        "pipelines compiled for the graph",
        "first frame of a new context (context, tensors, operators, preparation, one frame, wait)",
        "GPU buffer memory per prepared call (wgpu's `hal.buffer_memory`, after the first frame)",
        "metadata arena per prepared call (`RecordingObjects::metadata_bytes_alive`)",
        "bind groups / buffers per prepared call",
    ];
    for (i, name) in names.iter().enumerate() {
        let _ = writeln!(text, "| {name} | {} | {} |", columns[0][i], columns[1][i]);
    }
    let _ = write!(
        text,
        "\nThe cost of measuring the graph's kernels (`KernelTuning::Measured`): on a new context of the same device and queue, every node's operator made and one `Context::tune` of them all, timed on the wall clock. A layout class (`TuningKey`) is a strided or broadcast layout that more than one kernel can run; packed and in-place nodes are dense and have none. `tune` measures each class once, whichever nodes share it; classes already known are those the context held a choice for before the call (none on a new context); classes skipped do not fit one binding window, or only one kernel runs them on the measurement's bindings.\n\n| tuning figure | 300 nodes | 10,000 nodes |\n|---|---|---|\n"
    );
    let tuning_names = [
        "nodes with a layout class",
        "distinct classes among them",
        "classes measured",
        "classes already known",
        "nodes whose class was met before in the call (not measured again)",
        "classes skipped",
        "candidate kernels timed",
        "total ms (wall; `TuningReport::seconds`)",
        "ms per measured class",
    ];
    let tuning_columns: Vec<[String; 9]> = tunings.iter().map(tuning_figures).collect();
    for (i, name) in tuning_names.iter().enumerate() {
        let _ = writeln!(
            text,
            "| {name} | {} | {} |",
            tuning_columns[0][i], tuning_columns[1][i]
        );
    }
    let (model, small) = (&frames[0], &frames[1]);
    targets.push((
        "300-node frame <= 1.02 x the bare frame".to_string(),
        format!("{:.3}", model.1),
        model.1 <= 1.02,
    ));
    targets.push((
        "10,000-node frame <= 1.05 x the bare frame".to_string(),
        format!("{:.3}", small.1),
        small.1 <= 1.05,
    ));
    for (mix, _, rec, _, _) in &frames {
        targets.push((
            format!(
                "{}: recording a prepared node (a `Graph`) <= 1.2 x bare recording",
                mix.name
            ),
            format!("{rec:.2}"),
            *rec <= 1.2,
        ));
    }
    for (mix, _, _, warm, cold) in &frames {
        let most = cold.gpu_bytes_per_node.max(cold.arena_bytes_per_node);
        targets.push((
            format!(
                "{}: library-owned GPU memory per prepared call <= 512 B",
                mix.name
            ),
            format!("{most:.0} B"),
            most <= 512.0,
        ));
        targets.push((
            format!("{}: warm preparation <= 10 µs per node", mix.name),
            format!("{:.2} µs", warm * 1e6),
            *warm <= 10e-6,
        ));
    }
    let _ = writeln!(text, "\nFrames: {}", crate::timing::clock_line());
    println!("{text}");
    GraphReport { text, targets }
}

/// The figures of the graph's tuning-cost table, in its rows' order.
fn tuning_figures(t: &TuningCost) -> [String; 9] {
    let wall_ms = t.wall.as_secs_f64() * 1e3;
    [
        t.keyed.to_string(),
        t.classes.to_string(),
        t.report.measured.to_string(),
        t.report.known.to_string(),
        (t.keyed - t.classes).to_string(),
        t.report.skipped.to_string(),
        t.report.candidates.to_string(),
        format!("{wall_ms:.1} ms; {:.1} ms", t.report.seconds * 1e3),
        if t.report.measured > 0 {
            format!("{:.1} ms", wall_ms / t.report.measured as f64)
        } else {
            "- (no class measured)".to_string()
        },
    ]
}
