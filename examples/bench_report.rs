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
//!   and the plain strided kernel, with the targets of each (`--strided` runs this alone);
//! - every operator of the word-wide family (AND, OR, NOT; DirectML and OpenVINO) against
//!   the XOR operator of its standard on the same layouts: contiguous, strided and
//!   broadcast (`--family` runs this alone);
//! - 1,000 small calls batched against 1,000 single submits;
//! - the latency of one 4 KiB call alone and of one call in a batch of 1,000, against the
//!   bare kernel on the same ranges;
//! - the CPU time of recording those 1,000 calls in each way the API offers (prepared calls,
//!   a batch, one-shot `record`), with wgpu alone recording as many passes and dispatches;
//! - the graph: a model's worth of prepared calls (300 nodes, and 10,000 small ones)
//!   recorded into one compute pass per frame, against the same frame of bare dispatches:
//!   frame time, recording, warm and cold preparation, memory per prepared call, pipelines
//!   and the first frame of a new context (`benches/graph.rs`); measured last, because its
//!   tens of thousands of buffers make every later compute pass cost more;
//! - each target of the performance issues with the figure reached.
//!
//! GB/s counts bytes read plus bytes written. With `--save` it also writes the tables to
//! `benches/RESULTS.md` and the size sweep to `benches/throughput.svg`. `--graph` runs the
//! graph section alone (its tables and targets, about a minute), `--quick` fewer sizes and
//! rounds. For cold figures that include compiling, run with `MESA_SHADER_CACHE_DISABLE=true`
//! on Mesa's drivers (lavapipe keeps compiled shaders on disk otherwise).

#![allow(
    clippy::disallowed_methods,
    reason = "a program waits for the device; the lint keeps blocking calls out of the library"
)]

#[path = "../benches/graph.rs"]
mod graph;
#[path = "../benches/harness.rs"]
mod harness;

use std::fmt::Write as _;
use std::time::Duration;

use gpu_xor::{Context, DataType};
use harness::{
    Baselines, Case, Latency, Op, Path, Recording, SmallCalls, Way, gbps, iterations, record_split,
    time,
};

struct Row {
    op: &'static str,
    path: &'static str,
    data_type: String,
    bytes: u64,
    gbps: f64,
    kernel: f64,
    copy: f64,
    bare: f64,
    /// Against the plain strided kernel on the same layout, for the strided paths.
    plain: Option<f64>,
    dispatch: String,
}

/// `bytes` in whole MiB or KiB, rounded to the nearest (the square cases are a little under
/// the size asked for).
fn size_name(bytes: u64) -> String {
    let kib = (bytes + (1 << 9)) >> 10;
    if kib >= 1 << 10 {
        format!("{} MiB", (bytes + (1 << 19)) >> 20)
    } else {
        format!("{kib} KiB")
    }
}

fn table(rows: &[Row]) -> String {
    let mut t = String::from(
        "| operator | path | type | size | GB/s | / copy kernel | / copy_buffer_to_buffer | / bare xor | / plain strided | kernel |\n|---|---|---|---|---:|---:|---:|---:|---:|---|\n",
    );
    for r in rows {
        let _ = writeln!(
            t,
            "| {} | {} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {} | {} |",
            r.op,
            r.path,
            r.data_type,
            size_name(r.bytes),
            r.gbps,
            r.kernel,
            r.copy,
            r.bare,
            r.plain.map_or("-".to_string(), |p| format!("{p:.2}")),
            r.dispatch
        );
    }
    t
}

/// Records `n` calls of one case into an encoder.
type Recorder = Box<dyn Fn(&mut wgpu::CommandEncoder, u64)>;

/// Cases measured together: every round times each once, in turn, so that slow drifts of a
/// shared machine touch all of them alike; each keeps its best round.
#[derive(Default)]
struct Suite {
    entries: Vec<Entry>,
}

struct Entry {
    /// One of the baselines, not a case.
    baseline: bool,
    op: &'static str,
    path: &'static str,
    data_type: String,
    bytes: u64,
    traffic: u64,
    dispatch: String,
    record: Recorder,
    best: Duration,
}

/// The copy kernel's row (operator, path).
const COPY_KERNEL: (&str, &str) = ("copy", "vec4<u32> kernel");
/// `copy_buffer_to_buffer`'s row (operator, path).
const COPY_BUFFER: (&str, &str) = ("copy", "copy_buffer_to_buffer");
/// The bare XOR kernel's row (operator, path).
const BARE_XOR: (&str, &str) = ("bare xor", "vec4<u32> kernel");
/// The operator name of the plain strided kernel's rows (their path is the case's).
const PLAIN: &str = "plain strided";

impl Suite {
    /// The three baselines over `bytes` bytes: the copies count 2 x bytes of traffic, the bare
    /// XOR 3 x bytes, as the XOR cases count theirs.
    fn baselines(&mut self, ctx: &Context, bytes: u64) {
        let base = std::rc::Rc::new(Baselines::new(ctx, bytes));
        let entry = |(op, path): (&'static str, &'static str), traffic, record| Entry {
            baseline: true,
            op,
            path,
            data_type: "-".into(),
            bytes,
            traffic,
            dispatch: "-".into(),
            record,
            best: Duration::MAX,
        };
        let (b, c) = (base.clone(), base.clone());
        self.entries.push(entry(
            COPY_KERNEL,
            2 * base.bytes,
            Box::new(move |e, n| b.record_copy_kernel(e, n)),
        ));
        self.entries.push(entry(
            COPY_BUFFER,
            2 * base.bytes,
            Box::new(move |e, n| c.record_copy_buffer(e, n)),
        ));
        self.entries.push(entry(
            BARE_XOR,
            3 * base.bytes,
            Box::new(move |e, n| base.record_bare_xor(e, n)),
        ));
    }

    fn case(&mut self, ctx: &Context, op: Op, path: Path, dt: DataType, bytes: u64) {
        let case = Case::new(ctx, op, path, dt, bytes);
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        let summary = case.record_summary(&mut encoder);
        let mut kernels: Vec<String> = summary
            .dispatches
            .iter()
            .map(|k| format!("{k:?}"))
            .collect();
        kernels.dedup();
        if path.strided() && op == Op::BitXor {
            // The fourth baseline, on the same buffers and layout, checked to write the same
            // bytes as the library's call (it computes XOR).
            let plain = case.plain(ctx);
            let (ours, theirs) = case.outputs(ctx, &plain);
            assert!(
                ours == theirs,
                "the plain strided kernel disagrees with {} {} {dt}",
                op.name(),
                path.name()
            );
            self.entries.push(Entry {
                baseline: false,
                op: PLAIN,
                path: path.name(),
                data_type: dt.to_string(),
                bytes: case.bytes,
                traffic: case.traffic,
                dispatch: "plain x1".into(),
                record: Box::new(move |e, n| plain.record(e, n)),
                best: Duration::MAX,
            });
        }
        let ctx = ctx.clone();
        self.entries.push(Entry {
            baseline: false,
            op: op.name(),
            path: path.name(),
            data_type: dt.to_string(),
            bytes: case.bytes,
            traffic: case.traffic,
            dispatch: format!("{} x{}", kernels.join("+"), summary.dispatches.len()),
            record: Box::new(move |e, n| case.record_many(&ctx, e, n)),
            best: Duration::MAX,
        });
    }

    fn run(&mut self, ctx: &Context, rounds: usize) {
        for e in &self.entries {
            time(ctx, 1, &*e.record);
        }
        for _ in 0..rounds {
            for e in &mut self.entries {
                let t = time(ctx, iterations(e.traffic, 256 << 20), &*e.record);
                e.best = e.best.min(t);
            }
        }
    }

    fn gbps(&self, op: &str, path: &str, data_type: &str, bytes: u64) -> f64 {
        self.entries
            .iter()
            .find(|e| e.op == op && e.path == path && e.data_type == data_type && e.bytes == bytes)
            .map_or(0.0, |e| gbps(e.traffic, e.best))
    }

    /// The best time of one call of a case, and its kernels.
    fn best(&self, op: &str, path: &str, data_type: &str) -> Option<(Duration, String)> {
        self.entries
            .iter()
            .find(|e| !e.baseline && e.op == op && e.path == path && e.data_type == data_type)
            .map(|e| (e.best, e.dispatch.clone()))
    }

    /// The GB/s of a baseline for a case of `bytes` bytes: the baseline of that size or of the
    /// closest one, whichever is faster.
    fn baseline(&self, (op, path): (&str, &str), bytes: u64) -> f64 {
        self.gbps(op, path, "-", bytes)
            .max(self.gbps(op, path, "-", self.baseline_size(bytes)))
    }

    /// The table, each row against the baselines of its own size.
    fn rows(&self) -> Vec<Row> {
        self.entries
            .iter()
            .map(|e| {
                let g = gbps(e.traffic, e.best);
                Row {
                    op: e.op,
                    path: e.path,
                    data_type: e.data_type.clone(),
                    bytes: e.bytes,
                    gbps: g,
                    kernel: g / self.baseline(COPY_KERNEL, e.bytes),
                    copy: g / self.baseline(COPY_BUFFER, e.bytes),
                    bare: g / self.baseline(BARE_XOR, e.bytes),
                    plain: (e.op != PLAIN)
                        .then(|| self.gbps(PLAIN, e.path, &e.data_type, e.bytes))
                        .filter(|&p| p > 0.0)
                        .map(|p| g / p),
                    dispatch: e.dispatch.clone(),
                }
            })
            .collect()
    }

    /// The baseline size closest to `bytes` (2-D cases round their sizes).
    fn baseline_size(&self, bytes: u64) -> u64 {
        self.entries
            .iter()
            .filter(|e| e.baseline)
            .map(|e| e.bytes)
            .min_by_key(|&b| b.abs_diff(bytes))
            .unwrap_or(bytes)
    }
}

/// One way of recording the 1,000 small calls, and its best time.
struct Recorded<'a> {
    name: String,
    dispatches: String,
    /// Metadata buffers and bind groups one recording makes.
    objects: String,
    record: RecordFn<'a>,
    /// (total, of which `finish`), from the round with the best total.
    best: (Duration, Duration),
}

type RecordFn<'a> = Box<dyn Fn(&mut wgpu::CommandEncoder) + 'a>;

impl<'a> Recorded<'a> {
    fn new(name: String, dispatches: u64, objects: String, record: RecordFn<'a>) -> Self {
        Recorded {
            name,
            dispatches: dispatches.to_string(),
            objects,
            record,
            best: (Duration::MAX, Duration::ZERO),
        }
    }

    /// A row of wgpu alone, for scale.
    fn wgpu_alone(name: &str, dispatches: u64, record: RecordFn<'a>) -> Self {
        Recorded::new(
            format!("wgpu alone: {name}"),
            dispatches,
            "-".into(),
            record,
        )
    }
}

/// The recording section: its text (notes and table) and the totals the targets use, in µs
/// per call.
struct RecordingReport {
    text: String,
    prepared: f64,
    in_pass: f64,
    batch: f64,
    one_shot: f64,
}

/// Times each way of recording 1,000 BIT_XOR u32 calls of 4 KiB: every round times each row
/// of a phase once, in turn, and each row keeps its best round (round 0 warms up).
///
/// The phases follow wgpu-core's cost model: it sizes each compute pass's resource tracking
/// to the high-water mark of its buffer indices (`UsageScope::new_pooled`), so a pass costs
/// more the more buffers have ever been alive at once on the device, while a dispatch inside
/// a pass does not. wgpu alone is measured first, before anything is prepared; then the ways
/// that make at most one buffer; then the one-shot `record` calls, whose 1,000 metadata
/// buffers, alive together until the encoder is dropped, raise the mark; then (a), (c) and
/// wgpu alone again. Each phase times wgpu's one-dispatch passes next to its dispatches in
/// one pass, whose ratio shows the per-pass cost whatever the machine's speed at the time.
fn recording(ctx: &Context, rounds: usize) -> RecordingReport {
    let calls = 1000;
    let measure = |rows: &mut [Recorded]| {
        for round in 0..=rounds {
            for row in rows.iter_mut() {
                let t = record_split(ctx, &*row.record);
                if round > 0 && t.0 < row.best.0 {
                    row.best = t;
                }
            }
        }
    };
    let base = Baselines::new(ctx, 4096);
    let passes = || {
        Recorded::wgpu_alone(
            "1,000 passes of one dispatch (copy kernel)",
            calls,
            Box::new(|e| base.record_copy_passes(e, calls)),
        )
    };
    let dispatches = || {
        Recorded::wgpu_alone(
            "1,000 dispatches in one pass (copy kernel)",
            calls,
            Box::new(|e| base.record_copy_dispatches(e, calls)),
        )
    };
    let mut before = [passes(), dispatches()];
    measure(&mut before);

    let made_before = ctx.recording_objects();
    let rec = Recording::new(ctx, calls, 4096);
    let made = ctx.recording_objects();
    let row = |way: Way| {
        let (buffers, bind_groups) = rec.objects(ctx, way);
        let rec = &rec;
        Recorded::new(
            way.describe().to_string(),
            rec.dispatches(way) as u64,
            format!("{buffers} + {bind_groups}"),
            Box::new(move |e| rec.record(ctx, way, e)),
        )
    };
    let mut main: Vec<Recorded> = [
        Way::Prepared,
        Way::PreparedInPass,
        Way::Batch,
        Way::PreparedBatch,
    ]
    .into_iter()
    .map(row)
    .collect();
    main.push(passes());
    main.push(dispatches());
    main.push(Recorded::wgpu_alone(
        "1,000 empty passes",
        0,
        Box::new(|e| base.record_empty_passes(e, calls)),
    ));
    measure(&mut main);
    let mut one_shot = [row(Way::OneShot)];
    measure(&mut one_shot);
    let mut after = [row(Way::Prepared), row(Way::Batch), passes(), dispatches()];
    measure(&mut after);

    let ms = |r: &Recorded| r.best.0.as_secs_f64() * 1e3;
    let us = |r: &Recorded| ms(r) * 1e3 / calls as f64;
    let batch = us(&main[2]);
    let mut table = String::from(
        "| recording 1,000 calls of 4 KiB | dispatches | buffers + bind groups made | total ms | µs per call | / (c) | of which `finish` ms |\n|---|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in main[..4].iter().chain(&one_shot).chain(&main[4..]) {
        let _ = writeln!(
            table,
            "| {} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} |",
            r.name,
            r.dispatches,
            r.objects,
            ms(r),
            us(r),
            us(r) / batch,
            r.best.1.as_secs_f64() * 1e3
        );
    }
    let mut passes_table = String::from(
        "| wgpu alone (copy kernel) | 1,000 one-dispatch passes ms | 1,000 dispatches in one pass ms | passes / dispatches | (a) / (c), same rounds |\n|---|---:|---:|---:|---:|\n",
    );
    let after_preparing = format!(
        "after preparing them ({} metadata buffers and the 3 operand buffers alive)",
        made.buffers - made_before.buffers
    );
    let phases: [(&str, &[Recorded], Option<f64>); 3] = [
        ("before the calls were prepared", &before, None),
        (&after_preparing, &main[4..6], Some(us(&main[0]) / batch)),
        (
            "after (e) (1,000 more metadata buffers alive at once)",
            &after[2..],
            Some(us(&after[0]) / us(&after[1])),
        ),
    ];
    for (name, rows, prepared) in phases {
        let _ = writeln!(
            passes_table,
            "| {name} | {:.2} | {:.2} | {:.2} | {} |",
            ms(&rows[0]),
            ms(&rows[1]),
            ms(&rows[0]) / ms(&rows[1]),
            prepared.map_or("-".to_string(), |r| format!("{r:.2}"))
        );
    }
    let text = format!(
        "CPU time of recording 1,000 BIT_XOR u32 calls of 4 KiB (three 4 MiB buffers, call `i` at offset `i * 4096`, pipelines warmed up with `warm_up`): a new encoder, the recording, `CommandEncoder::finish`; nothing submitted. Best of {rounds} rounds, measured before the other sections; rows (a) to (d) and wgpu alone timed together, round by round, and (e) after them. Ratios are to (c), one `Batch` built and recorded. Preparing the 1,000 calls one by one and their batch once made {} metadata buffers and {} bind groups (`Context::recording_objects`).\n\n{table}\nwgpu-core sizes each compute pass's resource tracking to the high-water mark of its buffer indices, so a pass costs more the more buffers have ever been alive at once on the device; a dispatch in a pass does not. Timed in three phases, each with its own rounds:\n\n{passes_table}",
        made.buffers - made_before.buffers,
        made.bind_groups - made_before.bind_groups,
    );
    RecordingReport {
        text,
        prepared: us(&main[0]),
        in_pass: us(&main[1]),
        batch,
        one_shot: us(&one_shot[0]),
    }
}

/// The 1-minute load average, where the system reports one (`/proc/loadavg`).
fn load() -> Option<String> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace().next().map(str::to_string)
}

/// Today's date from the system clock, as YYYY-MM-DD (civil calendar from days since 1970).
fn today() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() / 86_400)
        .unwrap_or(0) as i64;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// One line of the chart: name, colour, (bytes, GB/s) points.
type Series = (&'static str, &'static str, Vec<(u64, f64)>);

/// A line chart of GB/s against size, both axes logarithmic (so that equal ratios are equal
/// distances), one line per series.
fn svg(title: &str, series: &[Series]) -> String {
    let (w, h, left, right, top, bottom) = (760.0, 440.0, 60.0, 190.0, 40.0, 50.0);
    let points = || series.iter().flat_map(|s| s.2.iter());
    let x0 = points()
        .map(|p| (p.0 as f64).log2())
        .fold(f64::MAX, f64::min);
    let x1 = points()
        .map(|p| (p.0 as f64).log2())
        .fold(f64::MIN, f64::max);
    let lo = points()
        .map(|p| p.1)
        .filter(|&y| y > 0.0)
        .fold(f64::MAX, f64::min);
    let hi = points().map(|p| p.1).fold(0.0, f64::max);
    let (y0, y1) = ((lo / 1.5).log10().floor(), (hi * 1.5).log10().ceil());
    let px = |x: f64| left + (x - x0) / (x1 - x0).max(1e-9) * (w - left - right);
    let py =
        |y: f64| h - bottom - (y.max(1e-9).log10() - y0) / (y1 - y0).max(1e-9) * (h - top - bottom);
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"{left}\" y=\"24\" font-size=\"14\">{title}</text>\n"
    );
    let mut decade = y0;
    while decade <= y1 {
        for m in [1.0, 3.0] {
            let y = m * 10f64.powf(decade);
            if y.log10() > y1 + 1e-9 {
                continue;
            }
            let _ = writeln!(
                out,
                "<line x1=\"{left}\" x2=\"{}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
                w - right,
                py(y),
                py(y),
                left - 6.0,
                py(y) + 4.0,
                tick(y)
            );
        }
        decade += 1.0;
    }
    let mut sizes: Vec<u64> = points().map(|p| p.0).collect();
    sizes.sort_unstable();
    sizes.dedup();
    for (i, s) in sizes.iter().enumerate() {
        let x = px((*s as f64).log2());
        // Alternate label rows so that neighbouring sizes do not overlap.
        let y = h - bottom + 16.0 + 13.0 * (i % 2) as f64;
        let _ = writeln!(
            out,
            "<text x=\"{x:.1}\" y=\"{y}\" text-anchor=\"middle\">{}</text>",
            size_name(*s)
        );
    }
    let _ = writeln!(
        out,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">bytes per operand</text><text x=\"14\" y=\"{}\" transform=\"rotate(-90 14 {})\" text-anchor=\"middle\">GB/s (read + written)</text>",
        (left + w - right) / 2.0,
        h - 6.0,
        h / 2.0,
        h / 2.0
    );
    for (i, (name, color, points)) in series.iter().enumerate() {
        // Odd lines dashed, so that lines lying on each other both show.
        let dash = if i % 2 == 1 {
            " stroke-dasharray=\"6 4\""
        } else {
            ""
        };
        let path: Vec<String> = points
            .iter()
            .map(|p| format!("{:.1},{:.1}", px((p.0 as f64).log2()), py(p.1)))
            .collect();
        let _ = writeln!(
            out,
            "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\"{dash} points=\"{}\"/>",
            path.join(" ")
        );
        for p in points {
            let _ = writeln!(
                out,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{color}\"/>",
                px((p.0 as f64).log2()),
                py(p.1)
            );
        }
        let ly = top + 10.0 + 20.0 * i as f64;
        let _ = writeln!(
            out,
            "<line x1=\"{}\" x2=\"{}\" y1=\"{ly}\" y2=\"{ly}\" stroke=\"{color}\" stroke-width=\"3\"/><text x=\"{}\" y=\"{}\">{name}</text>",
            w - right + 10.0,
            w - right + 30.0,
            w - right + 36.0,
            ly + 4.0
        );
    }
    out.push_str("</svg>\n");
    out
}

/// An axis label: 0.03, 0.3, 3, 30.
fn tick(y: f64) -> String {
    let digits = (-y.log10().floor()).max(0.0) as usize;
    format!("{y:.digits$}")
}

fn verdict(ok: bool) -> &'static str {
    if ok { "met" } else { "short" }
}

/// The graph section: its table, and its target rows (name, figure, met).
struct GraphReport {
    text: String,
    targets: Vec<(String, String, bool)>,
}

fn graph_section(ctx: &Context, quick: bool) -> GraphReport {
    let mut text = String::from(
        "Every node prepared once and recorded with `record_in_pass` into one compute pass per \
         frame, against the same frame of bare `vec4<u32>` XOR dispatches on the same buffers \
         (one pipeline, one bind group and one dispatch per node); `benches/graph.rs` gives \
         the generator. Frames: median of interleaved rounds (new encoder, the pass, `finish`, \
         submit, wait). Recording: the CPU time of the pass alone (begin, every node, end), \
         and of `finish`. Cold: new contexts from the environment.\n\n\
         | figure | 300 nodes | 10,000 nodes |\n|---|---|---|\n",
    );
    let mut targets = Vec::new();
    let mut columns: Vec<Vec<String>> = Vec::new();
    let mut frames = Vec::new();
    for mix in [graph::MODEL, graph::SMALL] {
        let g = graph::Graph::new(ctx, mix);
        ctx.wait().expect("the uploads");
        let n = mix.nodes as f64;
        let rounds = match (quick, mix.nodes) {
            (true, _) => 5,
            (false, 300) => 21,
            _ => 15,
        };
        let (lib, bare) = graph::paired(rounds, || g.frame(ctx), || g.bare_frame(ctx));
        let rec_rounds = if quick { 5 } else { 15 };
        let mut rec = Vec::new();
        let mut rec_bare = Vec::new();
        let mut fin = Vec::new();
        let mut fin_bare = Vec::new();
        let mut rec_piped = Vec::new();
        for _ in 0..rec_rounds {
            let (r, f) = g.record_prepared(ctx);
            rec.push(r.as_secs_f64());
            fin.push(f.as_secs_f64());
            let (r, f) = g.record_bare(ctx);
            rec_bare.push(r.as_secs_f64());
            fin_bare.push(f.as_secs_f64());
            rec_piped.push(g.record_bare_each_with_pipeline(ctx).0.as_secs_f64());
        }
        let (rec, rec_bare) = (graph::median(rec), graph::median(rec_bare));
        let rec_piped = graph::median(rec_piped);
        let (fin, fin_bare) = (graph::median(fin), graph::median(fin_bare));
        let warm = graph::median((0..5).map(|_| g.prepare_again(ctx).as_secs_f64()).collect());
        let traffic = g.traffic() as f64;
        drop(g);
        ctx.wait().expect("the graph's frames");
        let cold = graph::cold(mix);
        let us = |s: f64| format!("{:.2} µs", s * 1e6);
        columns.push(vec![
            format!(
                "{:.2} ms / {:.2} ms = **{:.3}**",
                lib * 1e3,
                bare * 1e3,
                lib / bare
            ),
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
                "{} ({:.2} of bare; prepared / this = {:.2})",
                us(rec_piped / n),
                rec_piped / rec_bare,
                rec / rec_piped
            ),
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
        "GPU frame: prepared / bare",
        "bytes read and written a frame, over its time: prepared / bare",
        "recording a node into the open pass: prepared / bare (`set_bind_group` + dispatch)",
        "bare recording with `set_pipeline` before every dispatch (what a call between a caller's own dispatches must do)",
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
    let (model, small) = (&frames[0], &frames[1]);
    targets.push((
        "300-node frame <= 1.05 x the bare frame".to_string(),
        format!("{:.3}", model.1),
        model.1 <= 1.05,
    ));
    targets.push((
        "10,000-node frame <= 1.10 x the bare frame".to_string(),
        format!("{:.3}", small.1),
        small.1 <= 1.10,
    ));
    for (mix, _, rec, _, _) in &frames {
        targets.push((
            format!(
                "{}: recording a prepared node <= 1.5 x bare recording",
                mix.name
            ),
            format!("{rec:.2}"),
            *rec <= 1.5,
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
    println!("{text}");
    GraphReport { text, targets }
}

/// What a strided case must reach: the least fraction of contiguous BIT_XOR of its type per
/// output byte, and the least fraction of the plain strided kernel on its layout.
fn strided_target(path: Path) -> (f64, f64) {
    match path {
        Path::Transposed => (0.8, 1.1),
        Path::Permuted3 | Path::Permuted3Inner | Path::Permuted4 | Path::Permuted4Channels => {
            (0.7, 1.1)
        }
        Path::TransposedOutput | Path::PermutedOutput | Path::SteppedOutput | Path::ShortRows => {
            (0.5, 1.0)
        }
        // Padded, sliced and stepped layouts: no fraction of contiguous asked, at least the
        // plain kernel.
        _ => (0.0, 1.0),
    }
}

/// The strided layouts at 64 MiB and 1 MiB (16 MiB and 1 MiB with `--quick`), each against
/// contiguous BIT_XOR of its type and the plain strided kernel on the same layout, measured in
/// one suite per size; the table and the targets.
fn strided_section(ctx: &Context, quick: bool) -> (String, Vec<(String, String, bool)>) {
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

    let sizes: [u64; 2] = [if quick { 16 << 20 } else { 64 << 20 }, 1 << 20];
    let mut text = String::from(
        "Every strided layout against contiguous BIT_XOR of its type (per output byte: every case reads two operands and writes one, as contiguous does) and against the plain strided kernel (`benches/plain_strided.wgsl`: one element per invocation, offsets from a strides uniform; one output word per invocation for a dense 8- or 16-bit output) on the same layout and buffers, checked to write the same bytes. One suite per size, every row timed in turn each round, best round kept.\n\n| path | type | size | GB/s | / contiguous | plain GB/s | / plain strided | kernel | target (contiguous, plain) |\n|---|---|---|---:|---:|---:|---:|---|---|\n",
    );
    let mut targets = Vec::new();
    for bytes in sizes {
        let mut suite = Suite::default();
        suite.baselines(ctx, bytes);
        for dt in every {
            suite.case(ctx, Op::BitXor, Path::Contiguous, dt, bytes);
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
                "| {} | {dt} | {} | {:.2} | {of_contiguous:.2} | {plain_gbps:.2} | {of_plain:.2} | {} | >= {least_contiguous}, >= {least_plain}: {} |",
                path.name(),
                size_name(r.bytes),
                r.gbps,
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
    println!("{text}");
    (text, targets)
}

/// Where each operator of the family runs in the family section, and its type: DirectML's in
/// the contiguous, strided (a transposed input) and broadcast (a row) layouts; OpenVINO's
/// binary operations contiguous, broadcast along rows and along columns (their tensors are
/// dense: a broadcast is their only stride); their NOT contiguous (it has no other layout).
fn family_cases() -> Vec<(Op, Path, DataType)> {
    let mut cases = Vec::new();
    for op in Op::FAMILY {
        let logical = match op {
            Op::Dml(f) => f.function().logical,
            Op::DmlNot(f) => f.function().logical,
            Op::Ov(f) => f.boolean_only(),
            Op::OvNot(f) => f.boolean_only(),
            _ => false,
        };
        let dt = match (op.openvino(), logical) {
            (true, true) => DataType::Bool,
            (false, true) => DataType::U8,
            (_, false) => DataType::U32,
        };
        let paths: &[Path] = match op {
            Op::OvNot(_) => &[Path::Contiguous],
            Op::Ov(_) => &[Path::Contiguous, Path::BroadcastColumn, Path::BroadcastRow],
            _ => &[Path::Contiguous, Path::Transposed, Path::BroadcastRow],
        };
        for &path in paths {
            cases.push((op, path, dt));
        }
    }
    cases
}

/// Every operator of the family against the XOR operator of its standard and kind on the
/// same layout, type and size, timed in one suite: time per call of XOR over time per call of
/// the operator (a NOT reads one input, XOR two).
fn family_section(ctx: &Context, quick: bool) -> (String, Vec<(String, String, bool)>) {
    let bytes: u64 = if quick { 4 << 20 } else { 16 << 20 };
    let cases = family_cases();
    let mut suite = Suite::default();
    suite.baselines(ctx, bytes);
    let mut measured: Vec<(Op, Path, DataType)> = Vec::new();
    for &(op, path, dt) in &cases {
        for op in [op.xor_twin(), op] {
            if !measured.contains(&(op, path, dt)) {
                suite.case(ctx, op, path, dt, bytes);
                measured.push((op, path, dt));
            }
        }
    }
    suite.run(ctx, if quick { 2 } else { 4 });
    let mut text = format!(
        "Every operator of the word-wide family against the XOR operator of its standard and kind (DirectML BIT_XOR or LOGICAL_XOR, OpenVINO BitwiseXor-13 on the same type) on the same layout, type and buffers, {} per operand, timed in one suite (every row in turn each round, best round kept). `XOR / op` is XOR's time per call over the operator's: 1 is XOR's speed, above 1 faster (a NOT reads one input). Target: at least 0.9 (XOR's speed within this machine's noise).\n\n| operator | path | type | GB/s | kernel | XOR GB/s | XOR / op | target |\n|---|---|---|---:|---|---:|---:|---|\n",
        size_name(bytes)
    );
    let mut targets = Vec::new();
    let rows = suite.rows();
    let gbps = |op: Op, path: Path, dt: DataType| {
        rows.iter()
            .find(|r| r.op == op.name() && r.path == path.name() && r.data_type == dt.to_string())
            .map_or(0.0, |r| r.gbps)
    };
    for &(op, path, dt) in &cases {
        let twin = op.xor_twin();
        let dts = dt.to_string();
        let (Some((t, kernel)), Some((t_xor, _))) = (
            suite.best(op.name(), path.name(), &dts),
            suite.best(twin.name(), path.name(), &dts),
        ) else {
            continue;
        };
        let ratio = t_xor.as_secs_f64() / t.as_secs_f64();
        let met = ratio >= 0.9;
        let _ = writeln!(
            text,
            "| {} | {} | {dt} | {:.2} | {kernel} | {:.2} | {ratio:.2} | >= 0.9: {} |",
            op.name(),
            path.name(),
            gbps(op, path, dt),
            gbps(twin, path, dt),
            verdict(met)
        );
        targets.push((
            format!(
                "{} {} {dt} {}: at XOR's speed (XOR / op >= 0.9)",
                op.name(),
                path.name(),
                size_name(bytes)
            ),
            format!("{ratio:.2}"),
            met,
        ));
    }
    println!("{text}");
    (text, targets)
}

fn main() -> Result<(), gpu_xor::Error> {
    let save = std::env::args().any(|a| a == "--save");
    let quick = std::env::args().any(|a| a == "--quick");
    // The header of a section run alone.
    let alone = || -> Result<Context, gpu_xor::Error> {
        let ctx = Context::from_env()?;
        let info = ctx.adapter_info();
        println!(
            "adapter: {} ({:?}, {:?})\ndate: {}\nMESA_SHADER_CACHE_DISABLE={:?}\n",
            info.name,
            info.backend,
            info.device_type,
            today(),
            std::env::var("MESA_SHADER_CACHE_DISABLE").ok()
        );
        Ok(ctx)
    };
    if std::env::args().any(|a| a == "--graph") {
        let ctx = alone()?;
        let report = graph_section(&ctx, quick);
        let mut targets = String::from("| target | figure | verdict |\n|---|---|---|\n");
        for (name, figure, met) in &report.targets {
            let _ = writeln!(targets, "| {name} | {figure} | {} |", verdict(*met));
        }
        println!("{targets}");
        return Ok(());
    }
    if std::env::args().any(|a| a == "--family") {
        let ctx = alone()?;
        let (_, targets) = family_section(&ctx, quick);
        let met = targets.iter().filter(|t| t.2).count();
        println!("{met} of {} family targets met", targets.len());
        return Ok(());
    }
    if std::env::args().any(|a| a == "--strided") {
        let ctx = alone()?;
        let (_, targets) = strided_section(&ctx, quick);
        let met = targets.iter().filter(|t| t.2).count();
        println!("{met} of {} strided targets met", targets.len());
        return Ok(());
    }
    let ctx = Context::from_env()?;
    let info = ctx.adapter_info();
    let adapter = format!(
        "{} ({:?}, {:?}, driver {} {})",
        info.name, info.backend, info.device_type, info.driver, info.driver_info
    );
    let date = today();
    let load_start = load();
    println!("adapter: {adapter}\ndate: {date}\n");

    // Recording is measured first: every buffer a section makes raises the high-water mark of
    // wgpu-core's buffer indices, to which it sizes each compute pass's resource tracking.
    let recording = recording(&ctx, if quick { 8 } else { 30 });

    // 1. The size sweep.
    let window = ctx.max_window_bytes();
    let above = (window + window / 4).next_multiple_of(1 << 20);
    let sizes: Vec<u64> = if quick {
        vec![4 << 10, 1 << 20, 16 << 20]
    } else {
        vec![4 << 10, 1 << 20, 16 << 20, 64 << 20, above]
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
    let bcast = rate("bit_xor", "broadcast-row", DataType::U32);
    let transposed = rate("bit_xor", "transposed", DataType::U32);
    drop(suite);

    // 2b. The strided layouts against contiguous and the plain strided kernel, two sizes.
    let (strided_text, strided_targets) = strided_section(&ctx, quick);

    // 2c. The word-wide family against XOR.
    let (family_text, family_targets) = family_section(&ctx, quick);

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
            "BIT_XOR contiguous {}, every type, >= 0.95 of the bare XOR kernel",
            size_name(at)
        ),
        format!(
            "lowest {:.2} ({}); u32 {:.2}",
            lowest_bare.1,
            lowest_bare.0,
            u32_rate / bare
        ),
        verdict(lowest_bare.1 >= 0.95),
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
    target(
        "in place at least as fast as out of place",
        format!("{:.2}", in_place / u32_rate),
        verdict(in_place / u32_rate >= 0.97),
    );
    target(
        "1,000 batched 4 KiB calls <= 1/4 of 1,000 single submits",
        format!("{batch_ratio:.3}"),
        verdict(batch_ratio <= 0.25),
    );
    let r = &recording;
    target(
        "1,000 prepared calls recorded <= 1.5 x one Batch: (a) `Prepared::record` each / (c)",
        format!(
            "{:.2} ({:.2} µs per call)",
            r.prepared / r.batch,
            r.prepared
        ),
        verdict(r.prepared / r.batch <= 1.5),
    );
    target(
        "1,000 prepared calls recorded <= 1.5 x one Batch: (b) `record_in_pass` / (c)",
        format!("{:.2} ({:.2} µs per call)", r.in_pass / r.batch, r.in_pass),
        verdict(r.in_pass / r.batch <= 1.5),
    );
    target(
        "1,000 prepared calls far below 1,000 record() calls: (a) / (e) <= 0.25",
        format!("{:.3}", r.prepared / r.one_shot),
        verdict(r.prepared / r.one_shot <= 0.25),
    );
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
    for (name, figure, met) in strided_targets
        .iter()
        .chain(&family_targets)
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

    if save {
        let doc = format!(
            "# Benchmark results\n\nMeasured with `cargo run --release --example bench_report -- --save`.\n\n- adapter: {adapter}\n- date: {date}\n- GB/s counts bytes read plus bytes written; the copy baselines move the same bytes on the same adapter in the same run, and the bare XOR kernel reads two operands of those bytes and writes one, as a contiguous XOR does.{load_line}\n\n## Size sweep\n\n{sweep_table}\n![GB/s against size](throughput.svg)\n\n## Paths and types at {}\n\n{paths_table}\n## Strided layouts\n\n{strided_text}\n## The word-wide family\n\n{family_text}\n## Batching\n\n{batch_text}\n## Small calls\n\n{small_text}\n## Recording\n\n{}\n## Graph\n\n{}\n## Targets\n\n{targets}",
            size_name(at),
            recording.text,
            graph_report.text
        );
        std::fs::write(
            concat!(env!("CARGO_MANIFEST_DIR"), "/benches/RESULTS.md"),
            doc,
        )
        .expect("write RESULTS.md");
        std::fs::write(
            concat!(env!("CARGO_MANIFEST_DIR"), "/benches/throughput.svg"),
            svg(&format!("XOR against copy on {}", info.name), &series),
        )
        .expect("write throughput.svg");
        println!("wrote benches/RESULTS.md and benches/throughput.svg");
    }
    Ok(())
}
