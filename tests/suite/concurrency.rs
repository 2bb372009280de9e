//! Threads that share contexts, as a runtime's worker threads do.
//!
//! Eight threads share one context, then two contexts of one device. Each draws calls of
//! every operator of the table (DirectML and OpenVINO), with inputs bound or owned by the
//! operator, on packed, padded and broadcast layouts, some larger than the contexts' 4 KiB
//! windows, and runs them every way a caller can: a one-shot record and submit, `run`, a
//! prepared call recorded once or twice (or dropped before its encoder is submitted), a batch,
//! and a graph recorded again for a second frame with new inputs. Operators made once and
//! shared by every thread (their owned inputs' sources destroyed at once) are recorded by
//! several threads at a time. As callers do, each thread overwrites or destroys its own
//! buffers as soon as an operator has copied its owned inputs and as soon as each call
//! returns; every byte of every buffer left is then compared with the CPU reference on the
//! bytes the call was given. A watchdog turns a hang or a deadlock into a failure that says
//! so.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier, mpsc};
use std::time::{Duration, Instant};

use gpu_xor::{
    AutoBroadcast, Batch, BitXorDesc, Context, ContextOptions, DataType, DmlBinary, Graph,
    OvBinary, Tensor, TensorDesc, TensorFlags,
};
use gpu_xor_testkit::engine::{self, AnyOperator};
use gpu_xor_testkit::ov::OvRun;
use gpu_xor_testkit::seeds::Seeded;
use gpu_xor_testkit::{OutputLayout, SplitMix64, compare_buffer, random_bytes, shift_amounts};

use crate::common::{
    Check, DIRECTML, DmlCase, OPENVINO, Operator, OperatorExt, OvCase, compare, ctx,
    on_suite_device, speckle, takes,
};

// What is documented as shareable between threads (`Context`'s documentation) is checked when
// the suite compiles.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Context>();
    send_sync::<DmlBinary>();
    send_sync::<DmlBinary>();
    send_sync::<OvBinary>();
    send_sync::<gpu_xor::DmlBinary>();
    send_sync::<gpu_xor::DmlUnary>();
    send_sync::<gpu_xor::OvBinary>();
    send_sync::<gpu_xor::OvUnary>();
    send_sync::<Batch>();
    send_sync::<Graph>();
    send_sync::<gpu_xor::Prepared>();
    send_sync::<Tensor>();
    send_sync::<gpu_xor::Error>();
};

/// Threads sharing the contexts.
const THREADS: usize = 8;
/// Rounds per thread: each round is one call, a batch, or a graph of several.
const ROUNDS_PER_THREAD: usize = 300;
/// How long the threads may go without one of them finishing a round before the watchdog
/// calls it a hang: long enough for a loaded two-core machine running the rest of the suite.
const STALL: Duration = Duration::from_secs(120);
/// The windows of the contexts that cut calls into several bindings.
const SMALL_WINDOW: u64 = 4096;

// ----- The watchdog --------------------------------------------------------------------------

/// A job's count of finished rounds, which the watchdog reads.
type Progress = Arc<AtomicU64>;

/// A job run on a thread of its own; it counts its finished rounds.
type Job = Box<dyn FnOnce(&AtomicU64) -> String + Send>;

/// Runs each job on a thread of its own and waits for all of them. A job that panics fails
/// the test with its message; when no job has finished a round for `stall`, the test fails
/// as a hang, naming the threads still running and their counts (they are left behind: a
/// stuck thread cannot be stopped, but the test does not wait for it). Returns each job's
/// report, in order.
fn run_watched(what: &str, jobs: Vec<Job>, stall: Duration) -> Vec<String> {
    let (tx, rx) = mpsc::channel();
    let count = jobs.len();
    let progress: Vec<Progress> = (0..count).map(|_| Arc::default()).collect();
    for (i, job) in jobs.into_iter().enumerate() {
        let tx = tx.clone();
        let progress = progress[i].clone();
        std::thread::Builder::new()
            .name(format!("{what} {i}"))
            .spawn(move || {
                let result = catch_unwind(AssertUnwindSafe(|| job(&progress))).map_err(|p| {
                    p.downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_else(|| "a panic without a message".to_string())
                });
                let _ = tx.send((i, result));
            })
            .expect("a thread");
    }
    let total = || -> u64 { progress.iter().map(|p| p.load(Ordering::Relaxed)).sum() };
    let mut reports: Vec<Option<String>> = vec![None; count];
    let (mut seen, mut since) = (total(), Instant::now());
    let mut finished = 0;
    while finished < count {
        match rx.recv_timeout(Duration::from_millis(50).min(stall)) {
            Ok((i, Ok(report))) => {
                reports[i] = Some(report);
                finished += 1;
                since = Instant::now();
            }
            Ok((i, Err(message))) => panic!("{what}: thread {i} failed: {message}"),
            Err(_) => {
                let now = total();
                if now != seen {
                    (seen, since) = (now, Instant::now());
                } else if since.elapsed() >= stall {
                    let stuck: Vec<String> = (0..count)
                        .filter(|&i| reports[i].is_none())
                        .map(|i| format!("{i} ({} rounds)", progress[i].load(Ordering::Relaxed)))
                        .collect();
                    panic!(
                        "{what}: threads {stuck:?} still running, none has finished a round \
                         for {stall:?}: a hang or a deadlock (their stacks show where)"
                    );
                }
            }
        }
    }
    reports.into_iter().map(Option::unwrap).collect()
}

#[test]
fn the_watchdog_reports_a_stuck_thread_instead_of_waiting() {
    let (tx, rx) = mpsc::channel::<()>();
    let jobs: Vec<Job> = vec![
        Box::new(|_| "done".to_string()),
        Box::new(move |progress| {
            progress.fetch_add(1, Ordering::Relaxed);
            // Blocks until the test is over (the sender is dropped with it).
            let _ = rx.recv();
            "released".to_string()
        }),
    ];
    let caught = catch_unwind(AssertUnwindSafe(|| {
        run_watched("stuck", jobs, Duration::from_millis(200))
    }))
    .expect_err("the watchdog must fail the test");
    let message = caught.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        message.contains("threads [\"1 (1 rounds)\"] still running"),
        "{message}"
    );
    drop(tx);
}

#[test]
fn the_watchdog_waits_for_threads_that_keep_finishing_rounds() {
    // Each job takes longer than the stall, but finishes a round more often.
    let jobs: Vec<Job> = (0..2)
        .map(|_| {
            Box::new(|progress: &AtomicU64| {
                for _ in 0..8 {
                    std::thread::sleep(Duration::from_millis(50));
                    progress.fetch_add(1, Ordering::Relaxed);
                }
                "slow but alive".to_string()
            }) as Job
        })
        .collect();
    let reports = run_watched("slow", jobs, Duration::from_millis(200));
    assert_eq!(reports, ["slow but alive", "slow but alive"]);
}

// ----- Drawing calls -------------------------------------------------------------------------

/// A small random generator over SplitMix64.
struct Rng(SplitMix64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0.next_u64() % n
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }

    fn chance(&mut self, one_in: u64) -> bool {
        self.below(one_in) == 0
    }
}

/// Row-major strides with random padding between elements and rows.
fn padded(rng: &mut Rng, sizes: &[u32]) -> Vec<u32> {
    let mut strides = vec![0u32; sizes.len()];
    let mut next = 1 + rng.below(2) as u32;
    for d in (0..sizes.len()).rev() {
        strides[d] = next;
        next = next * sizes[d] + rng.below(3) as u32;
    }
    strides
}

/// A random input layout: packed, padded, or broadcast (zero strides) on some dimensions.
fn input_desc(rng: &mut Rng, dt: DataType, sizes: &[u32]) -> TensorDesc {
    let t = TensorDesc::new(dt, sizes);
    match rng.below(3) {
        0 => t,
        1 => {
            let s = padded(rng, sizes);
            t.with_strides(&s)
        }
        _ => {
            let mut s = padded(rng, sizes);
            for x in &mut s {
                if rng.chance(2) {
                    *x = 0;
                }
            }
            t.with_strides(&s)
        }
    }
}

/// Random sizes: rank 1 to 4 of up to 6 each, or now and then one or two dimensions of up to
/// 3,000 elements, beyond a 4 KiB window.
fn sizes(rng: &mut Rng) -> Vec<u32> {
    if rng.chance(5) {
        let rank = 1 + rng.below(2) as usize;
        let mut s: Vec<u32> = (0..rank).map(|_| 1 + rng.below(60) as u32).collect();
        s[rank - 1] = 1 + rng.below(3000) as u32 / s[0];
        s
    } else {
        let rank = 1 + rng.below(4) as usize;
        (0..rank).map(|_| 1 + rng.below(6) as u32).collect()
    }
}

/// A random DirectML call: any operator of the table, on any type it takes, with packed,
/// padded or broadcast inputs and a packed or padded output, each input owned by the operator
/// now and then (a one-input operator's B never).
fn dml_case(rng: &mut Rng, seed: u64) -> DmlCase {
    let op = rng.pick(&DIRECTML);
    let types: Vec<DataType> = DataType::DIRECTML
        .into_iter()
        .filter(|&dt| takes(op, dt))
        .collect();
    let dt = rng.pick(&types);
    let sizes = sizes(rng);
    let mut a = input_desc(rng, dt, &sizes);
    let mut b = input_desc(rng, dt, &sizes);
    let out = if rng.chance(2) {
        TensorDesc::new(dt, &sizes)
    } else {
        let s = padded(rng, &sizes);
        TensorDesc::new(dt, &sizes).with_strides(&s)
    };
    if rng.chance(3) {
        a.flags = TensorFlags::OwnedByDml;
    }
    if op.inputs() == 2 && rng.chance(3) {
        b.flags = TensorFlags::OwnedByDml;
    }
    let mut case = DmlCase::distinct(op, a, b, out, seed);
    if op.logical() {
        speckle(&mut case.buffers, seed);
    }
    case
}

/// A random OpenVINO call: any operation of the table (the `Logical*` ones on bool, the
/// others on any integer type or bool), shapes of rank 0 to 4 that broadcast under `none`,
/// `numpy` or `pdpd`, now and then with a zero-size dimension.
fn ov_case(rng: &mut Rng, seed: u64) -> OvCase {
    let op = rng.pick(&OPENVINO);
    let types: Vec<DataType> = DataType::OPENVINO
        .into_iter()
        .filter(|&dt| op.takes(dt))
        .collect();
    let dt = rng.pick(&types);
    let rank = rng.below(5) as usize;
    let full: Vec<usize> = (0..rank)
        .map(|_| {
            if rng.chance(25) {
                0
            } else {
                1 + rng.below(5) as usize
            }
        })
        .collect();
    let (a, b, broadcast) = match rng.below(3) {
        0 => (full.clone(), full, AutoBroadcast::None),
        1 => {
            // numpy: either side may hold the 1s, and B may have fewer dimensions.
            let mut a = full.clone();
            let mut b = full.clone();
            for d in 0..rank {
                match rng.below(3) {
                    0 => a[d] = 1,
                    1 => b[d] = 1,
                    _ => {}
                }
            }
            let drop = rng.below(rank as u64 + 1) as usize;
            (a, b[drop..].to_vec(), AutoBroadcast::Numpy)
        }
        _ => {
            // pdpd: B is a run of A's dimensions (or 1s) starting at `axis`.
            let len = rng.below(rank as u64 + 1) as usize;
            let axis = rng.below((rank - len) as u64 + 1) as usize;
            let b: Vec<usize> = full[axis..axis + len]
                .iter()
                // pdpd refuses a 1 against a 0 (B may not be larger than A).
                .map(|&d| if d > 0 && rng.chance(3) { 1 } else { d })
                .collect();
            let axis = if axis + len == rank && rng.chance(2) {
                -1
            } else {
                axis as i64
            };
            (full, b, AutoBroadcast::Pdpd { axis })
        }
    };
    OvCase::new(dt, &a, &b, broadcast, seed).with_op(op)
}

/// A drawn call: a DirectML case (which may own inputs) or an OpenVINO one.
#[derive(Clone)]
enum Drawn {
    Dml(DmlCase),
    Ov(OvCase, OvRun),
}

impl Drawn {
    fn draw(rng: &mut Rng, seed: u64) -> Drawn {
        if rng.chance(3) {
            let case = ov_case(rng, seed);
            let run = case.prepare();
            Drawn::Ov(case, run)
        } else {
            Drawn::Dml(dml_case(rng, seed))
        }
    }

    /// Every buffer's bytes before the call.
    fn host(&self) -> &[Vec<u8>] {
        match self {
            Drawn::Dml(case) => &case.buffers,
            Drawn::Ov(_, run) => &run.host,
        }
    }

    fn names(&self) -> Vec<String> {
        match self {
            Drawn::Dml(case) => case.names(),
            Drawn::Ov(_, run) => run.names.clone(),
        }
    }

    fn output_layout(&self) -> OutputLayout {
        match self {
            Drawn::Dml(case) => case.output_layout(),
            Drawn::Ov(_, run) => run.layout.clone(),
        }
    }

    /// Which inputs (A, B) the operator owns.
    fn owned(&self) -> [bool; 2] {
        match self {
            Drawn::Dml(case) => case.owned(),
            Drawn::Ov(..) => [false; 2],
        }
    }

    /// The buffers that hold only inputs the calls bind (never the output, never an owned
    /// input's source): what a caller may change or drop once a call has returned.
    fn bound_input_buffers(&self) -> Vec<usize> {
        let out = self.output_layout().buffer;
        match self {
            Drawn::Dml(case) => {
                let owned = case.owned();
                let mut ks: Vec<usize> = (0..case.op.inputs())
                    .filter(|&i| !owned[i])
                    .map(|i| case.places[i].buffer)
                    .filter(|&k| k != out)
                    .collect();
                ks.dedup();
                ks
            }
            Drawn::Ov(case, run) => (0..case.op.inputs())
                .map(|i| run.ranges[i].0)
                .filter(|&k| k != out)
                .collect(),
        }
    }

    /// The buffers that hold the sources of owned inputs.
    fn owned_sources(&self) -> Vec<usize> {
        match self {
            Drawn::Dml(case) => {
                let owned = case.owned();
                (0..2)
                    .filter(|&i| owned[i])
                    .map(|i| case.places[i].buffer)
                    .collect()
            }
            Drawn::Ov(..) => Vec::new(),
        }
    }

    /// The operator, owning the inputs its description flags (copied from `gpu`).
    fn operator(&self, ctx: &Context, gpu: &[wgpu::Buffer]) -> AnyOperator {
        match self {
            Drawn::Dml(case) => case.operator_owning(ctx, gpu),
            Drawn::Ov(case, _) => case.operator(ctx),
        }
        .unwrap_or_else(|e| panic!("[{}] {e}\n{}", e.rule(), self.describe()))
    }

    fn bindings<'a>(&self, gpu: &'a [wgpu::Buffer]) -> gpu_xor::Bindings<'a> {
        match self {
            Drawn::Dml(case) => case.bindings(gpu),
            Drawn::Ov(case, run) => case.bindings(run, gpu),
        }
    }

    /// The output's elements by the reference on [`Drawn::host`].
    fn output_values(&self) -> Vec<u64> {
        let layout = self.output_layout();
        match self {
            Drawn::Dml(case) => layout.read_values(&case.expected()[layout.buffer]),
            Drawn::Ov(_, run) => layout.read_values(&run.expected[layout.buffer]),
        }
    }

    /// The same call on new bytes in every buffer a call binds as an input (the operator's
    /// owned inputs stay what it copied): a caller's next frame. The output's buffer keeps
    /// its bytes.
    fn next_frame(&self, seed: u64) -> Drawn {
        match self {
            Drawn::Dml(case) => {
                let mut next = case.clone();
                for k in self.bound_input_buffers() {
                    let mut bytes = random_bytes(seed ^ k as u64, next.buffers[k].len());
                    if case.op.shifts() && k == case.places[1].buffer {
                        let width = u64::from(case.b.data_type.size_in_bytes());
                        shift_amounts(&mut bytes, width, seed);
                    }
                    if case.op.logical() {
                        speckle(std::slice::from_mut(&mut bytes), seed ^ k as u64);
                    }
                    next.buffers[k] = bytes;
                }
                Drawn::Dml(next)
            }
            Drawn::Ov(case, _) => {
                let mut next = OvCase::new(
                    case.data_type,
                    &case.a_shape,
                    &case.b_shape,
                    case.broadcast,
                    seed,
                )
                .with_op(case.op);
                next.offsets = case.offsets;
                next.out_on_a = case.out_on_a;
                let run = next.prepare();
                Drawn::Ov(next, run)
            }
        }
    }

    fn describe(&self) -> String {
        match self {
            Drawn::Dml(case) => case.describe(),
            Drawn::Ov(case, _) => case.describe(),
        }
    }
}

// ----- Running a call as callers do ----------------------------------------------------------

/// What the caller does with its own buffers once an operator has copied the inputs it owns,
/// and once a call has returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Then {
    Keep,
    Overwrite,
    Destroy,
}

/// How a call runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Path {
    /// Recorded into an encoder of its own and submitted, not waited for.
    Submit,
    /// `run`: recorded, submitted and waited for.
    Run,
    /// Prepared, recorded twice into one encoder, submitted.
    PreparedTwice,
    /// Prepared, recorded, dropped before its encoder is submitted.
    PreparedDropped,
    /// Several calls in one batch.
    Batch,
    /// Several prepared calls in a graph, recorded in one pass; again for a second frame.
    Graph,
}

const PATHS: [Path; 6] = [
    Path::Submit,
    Path::Run,
    Path::PreparedTwice,
    Path::PreparedDropped,
    Path::Batch,
    Path::Graph,
];

/// One call on its own buffers: what they hold on the device, what they must hold after the
/// call, and which were destroyed.
struct Live {
    drawn: Drawn,
    gpu: Vec<wgpu::Buffer>,
    op: AnyOperator,
    /// What each buffer holds now, as far as the host knows (the output's elements aside).
    state: Vec<Vec<u8>>,
    destroyed: Vec<bool>,
}

impl Live {
    /// Uploads the call's buffers and makes its operator (or takes `shared`, made on these
    /// layouts by another thread); then does `then` to the sources of the inputs the
    /// operator owns, as a caller may as soon as the operator is made.
    fn new(ctx: &Context, drawn: Drawn, shared: Option<&AnyOperator>, then: Then) -> Live {
        let gpu = engine::upload(ctx, &drawn.names(), drawn.host());
        let op = match shared {
            Some(op) => op.clone(),
            None => drawn.operator(ctx, &gpu),
        };
        let mut live = Live {
            state: drawn.host().to_vec(),
            destroyed: vec![false; gpu.len()],
            drawn,
            gpu,
            op,
        };
        if shared.is_none() {
            let spoiled = match &live.drawn {
                Drawn::Dml(case) => case.spoiled(),
                Drawn::Ov(..) => live.state.clone(),
            };
            for k in live.drawn.owned_sources() {
                live.change(ctx, k, then, &spoiled[k]);
            }
        }
        live
    }

    /// Overwrites buffer `k` with `bytes`, or destroys it, or leaves it.
    fn change(&mut self, ctx: &Context, k: usize, then: Then, bytes: &[u8]) {
        if self.destroyed[k] {
            return;
        }
        match then {
            Then::Keep => {}
            Then::Overwrite => {
                ctx.queue().write_buffer(&self.gpu[k], 0, bytes);
                self.state[k] = bytes.to_vec();
            }
            Then::Destroy => {
                self.gpu[k].destroy();
                self.destroyed[k] = true;
            }
        }
    }

    /// What the caller does once the call has returned: `then` to each buffer that holds
    /// only bound inputs (overwritten with the inputs of `next`'s frame).
    fn after_call(&mut self, ctx: &Context, then: Then, next: &Drawn) {
        for k in self.drawn.bound_input_buffers() {
            self.change(ctx, k, then, &next.host()[k]);
        }
    }

    /// Reads back every buffer not destroyed and compares it with what it must hold: the
    /// output's elements by the reference on the bytes `drawn` gave the call, every other
    /// byte as the host last wrote it.
    fn check(&self, ctx: &Context, drawn: &Drawn, what: &str) {
        let layout = drawn.output_layout();
        let mut want = self.state.clone();
        layout.write_values(&mut want[layout.buffer], &drawn.output_values());
        let names = drawn.names();
        for (k, buffer) in self.gpu.iter().enumerate() {
            if self.destroyed[k] {
                continue;
            }
            let got = ctx
                .read_buffer(buffer, 0, buffer.size())
                .unwrap_or_else(|e| panic!("{what}: reading buffer {k} back: {e}"));
            let output = (layout.buffer == k).then_some(&layout);
            if let Err(e) = compare_buffer(&names[k], &got, &want[k], output) {
                panic!("{what}: {e}\n{}", drawn.describe());
            }
        }
    }
}

/// The pieces of work a thread shares with the others: the contexts, and operators made once
/// (owning inputs whose sources are gone) with the calls they were made for.
struct Shared {
    contexts: Vec<Context>,
    operators: Vec<(usize, Drawn, AnyOperator)>,
}

impl Shared {
    /// `count` operators drawn on each context, those of DirectML owning their inputs, whose
    /// sources are destroyed once they are made.
    fn new(contexts: Vec<Context>, count: usize, seed: u64) -> Shared {
        let mut rng = Rng(SplitMix64::new(0x5AA4_ED00 ^ seed));
        let mut operators = Vec::new();
        for (c, ctx) in contexts.iter().enumerate() {
            for i in 0..count {
                let seed = 0x5AA4_0000 + (c * count + i) as u64;
                let mut drawn = Drawn::draw(&mut rng, seed);
                if let Drawn::Dml(case) = &mut drawn {
                    case.a.flags = TensorFlags::OwnedByDml;
                    if case.op.inputs() == 2 {
                        case.b.flags = TensorFlags::OwnedByDml;
                    }
                }
                let live = Live::new(ctx, drawn, None, Then::Destroy);
                operators.push((c, live.drawn, live.op));
            }
        }
        Shared {
            contexts,
            operators,
        }
    }
}

/// Runs `calls` (on one context) by `path`, doing `then` to each call's buffers once it has
/// returned; checks every buffer. A graph whose inputs were overwritten runs a second frame on
/// them and checks again.
fn run_calls(ctx: &Context, mut calls: Vec<Live>, path: Path, then: Then, seed: u64) {
    let what = |calls: &[Live]| {
        let ops: Vec<String> = calls.iter().map(|c| c.drawn.describe()).collect();
        format!(
            "{path:?}, then {then:?}, {} calls: {}",
            calls.len(),
            ops.join("; ")
        )
    };
    let fail =
        |e: gpu_xor::Error, calls: &[Live]| -> ! { panic!("[{}] {e}\n{}", e.rule(), what(calls)) };
    let record_all = |calls: &[Live]| -> Vec<gpu_xor::Prepared> {
        calls
            .iter()
            .map(|c| {
                c.op.prepare(&c.drawn.bindings(&c.gpu))
                    .unwrap_or_else(|e| fail(e, calls))
            })
            .collect()
    };
    let mut graph = None;
    match path {
        Path::Submit => {
            for c in &calls {
                engine::submit(ctx, &c.op, &c.drawn.bindings(&c.gpu))
                    .unwrap_or_else(|e| fail(e, &calls));
            }
        }
        Path::Run => {
            for c in &calls {
                c.op.run(&c.drawn.bindings(&c.gpu))
                    .unwrap_or_else(|e| fail(e, &calls));
            }
        }
        Path::PreparedTwice | Path::PreparedDropped => {
            let prepared = record_all(&calls);
            let mut encoder = ctx.device().create_command_encoder(&Default::default());
            for p in &prepared {
                p.record(&mut encoder).unwrap_or_else(|e| fail(e, &calls));
                if path == Path::PreparedTwice {
                    // Distinct buffers: a second recording writes the same bytes.
                    p.record(&mut encoder).unwrap_or_else(|e| fail(e, &calls));
                }
            }
            if path == Path::PreparedDropped {
                drop(prepared);
            }
            ctx.queue().submit([encoder.finish()]);
        }
        Path::Batch => {
            let mut batch = ctx.batch();
            for c in &calls {
                c.op.push(&mut batch, &c.drawn.bindings(&c.gpu))
                    .unwrap_or_else(|e| fail(e, &calls));
            }
            let mut encoder = ctx.device().create_command_encoder(&Default::default());
            batch
                .record(&mut encoder)
                .unwrap_or_else(|e| fail(e, &calls));
            ctx.queue().submit([encoder.finish()]);
        }
        Path::Graph => {
            let prepared = record_all(&calls);
            let g = Graph::new(ctx, &prepared).unwrap_or_else(|e| fail(e, &calls));
            drop(prepared);
            record_graph(ctx, &g).unwrap_or_else(|e| fail(e, &calls));
            graph = Some(g);
        }
    }
    // The calls have returned: the caller changes or drops its input buffers at once.
    let next: Vec<Drawn> = calls
        .iter()
        .enumerate()
        .map(|(i, c)| c.drawn.next_frame(seed ^ (i as u64) << 40))
        .collect();
    for (c, next) in calls.iter_mut().zip(&next) {
        c.after_call(ctx, then, next);
    }
    let description = what(&calls);
    for c in &calls {
        c.check(ctx, &c.drawn, &description);
    }
    // A graph's next frame on the new inputs.
    if let (Some(graph), Then::Overwrite) = (graph, then) {
        record_graph(ctx, &graph).unwrap_or_else(|e| fail(e, &calls));
        for (c, next) in calls.iter().zip(&next) {
            c.check(ctx, next, &format!("second frame: {description}"));
        }
    }
}

/// Records the graph in one pass of a new encoder and submits it.
fn record_graph(ctx: &Context, graph: &Graph) -> Result<(), gpu_xor::Error> {
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        graph.record_in_pass(&mut pass)?;
    }
    ctx.queue().submit([encoder.finish()]);
    Ok(())
}

/// One thread's share: `rounds` rounds, each one call, a batch or a graph of calls on one of
/// the shared contexts, drawn anew or on a shared operator.
fn rounds(shared: &Shared, seed: u64, rounds: usize, progress: &AtomicU64) -> String {
    let thread = seed as usize & 0xFF;
    let mut rng = Rng(SplitMix64::new(0xC0FF_EE00 ^ seed));
    let mut counts = [0usize; PATHS.len()];
    let mut owning = 0;
    for round in 0..rounds {
        let c = rng.below(shared.contexts.len() as u64) as usize;
        let ctx = &shared.contexts[c];
        let path = rng.pick(&PATHS);
        let then = rng.pick(&[Then::Keep, Then::Overwrite, Then::Destroy]);
        let count = match path {
            Path::Batch | Path::Graph => 2 + rng.below(3) as usize,
            _ => 1,
        };
        let calls: Vec<Live> = (0..count)
            .map(|i| {
                let seed = ((thread as u64) << 48) | ((round as u64) << 8) | i as u64;
                let ours: Vec<&(usize, Drawn, AnyOperator)> = shared
                    .operators
                    .iter()
                    .filter(|(on, ..)| *on == c)
                    .collect();
                if !ours.is_empty() && rng.chance(4) {
                    // A shared operator, on buffers of this thread's own.
                    let (_, drawn, op) = ours[rng.below(ours.len() as u64) as usize];
                    Live::new(ctx, drawn.next_frame(seed), Some(op), then)
                } else {
                    let drawn = Drawn::draw(&mut rng, seed);
                    owning += usize::from(drawn.owned() != [false; 2]);
                    Live::new(ctx, drawn, None, then)
                }
            })
            .collect();
        counts[PATHS.iter().position(|&p| p == path).unwrap()] += 1;
        run_calls(ctx, calls, path, then, rng.0.next_u64());
        progress.fetch_add(1, Ordering::Relaxed);
    }
    let by_path: Vec<String> = PATHS
        .iter()
        .zip(counts)
        .map(|(p, n)| format!("{p:?} {n}"))
        .collect();
    format!("{}, {owning} calls owning inputs", by_path.join(", "))
}

/// [`THREADS`] threads doing [`rounds`] on `contexts`, each thread's draws seeded from `seed`
/// and its number.
/// (`GPU_XOR_SEED` moves it, and `GPU_XOR_CASES` sets the rounds per thread).
fn threads_share(what: &str, seed: u64, contexts: Vec<Context>) {
    let draws = Seeded::new(seed, ROUNDS_PER_THREAD as u64);
    eprintln!("{what}: {}", draws.describe());
    let rounds_per_thread = usize::try_from(draws.cases).unwrap_or(usize::MAX);
    let shared = Arc::new(Shared::new(contexts, 4, draws.seed));
    let start = Instant::now();
    let jobs: Vec<Job> = (0..THREADS)
        .map(|t| {
            let shared = shared.clone();
            Box::new(move |progress: &AtomicU64| {
                rounds(
                    &shared,
                    draws.seed << 8 | t as u64,
                    rounds_per_thread,
                    progress,
                )
            }) as Job
        })
        .collect();
    let reports = run_watched(what, jobs, STALL);
    eprintln!(
        "{what}: {THREADS} threads x {rounds_per_thread} rounds in {:.1?}: {}",
        start.elapsed(),
        reports.join("; ")
    );
}

/// A context of its own on the suite's device, with 4 KiB windows: calls beyond 4 KiB cross
/// window seams.
fn windowed() -> Context {
    on_suite_device(&ContextOptions {
        max_window_bytes: Some(SMALL_WINDOW),
        ..ContextOptions::default()
    })
}

#[test]
fn eight_threads_share_one_context_and_every_byte_matches_the_reference() {
    threads_share("one context", 1, vec![windowed()]);
}

#[test]
fn eight_threads_share_two_contexts_of_one_device_and_every_byte_matches_the_reference() {
    let whole = on_suite_device(&ContextOptions::default());
    threads_share("two contexts", 2, vec![whole, windowed()]);
}

#[test]
fn two_threads_record_one_compiled_operator_at_once() {
    const ROUNDS: usize = 500;
    let ctx = ctx().clone();
    // A strided call with a broadcast input, so that the rows kernel and its metadata are
    // shared too.
    let sizes = [7u32, 5, 3];
    let a = TensorDesc::new(DataType::U16, &sizes).with_strides(&[20, 4, 1]);
    let b = TensorDesc::new(DataType::U16, &sizes).with_strides(&[0, 3, 1]);
    let out = TensorDesc::new(DataType::U16, &sizes);
    let op = Arc::new(
        DmlBinary::new(&ctx, &BitXorDesc::new(a.clone(), b.clone(), out.clone())).unwrap(),
    );
    let barrier = Arc::new(Barrier::new(2));
    let jobs: Vec<Job> = (0..2u64)
        .map(|t| {
            let (ctx, op, barrier) = (ctx.clone(), op.clone(), barrier.clone());
            let (a, b, out) = (a.clone(), b.clone(), out.clone());
            Box::new(move |progress: &AtomicU64| {
                barrier.wait();
                for round in 0..ROUNDS as u64 {
                    let case = DmlCase::distinct(
                        Operator::BitXor,
                        a.clone(),
                        b.clone(),
                        out.clone(),
                        (t << 32) | round,
                    );
                    let gpu = case.upload(&ctx);
                    let mut encoder = ctx.device().create_command_encoder(&Default::default());
                    op.record(&mut encoder, &case.bindings(&gpu))
                        .unwrap_or_else(|e| panic!("{e}"));
                    ctx.queue().submit([encoder.finish()]);
                    let got = engine::read_back_blocking(&ctx, &gpu).unwrap();
                    for (i, (got, want)) in got.iter().zip(&case.expected()).enumerate() {
                        compare(i, got, want, &case);
                    }
                    progress.fetch_add(1, Ordering::Relaxed);
                }
                format!("{ROUNDS} rounds")
            }) as Job
        })
        .collect();
    run_watched("one operator", jobs, STALL);
}
