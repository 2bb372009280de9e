//! One context shared by many threads: random calls of every operator (the XOR operators and
//! the word-wide family, DirectML and OpenVINO) and small batches that mix their functions,
//! each on its own buffers and checked byte for byte against the CPU reference, and one
//! compiled operator recorded by two threads at once. A watchdog turns a hang or a deadlock
//! into a failure that says so.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Barrier, mpsc};
use std::time::{Duration, Instant};

use gpu_xor::{
    AutoBroadcast, Batch, BitXor, BitXorDesc, BitwiseXor, Context, DataType, LogicalXor, Tensor,
    TensorDesc,
};
use gpu_xor_conformance::engine::{self, AnyOperator};
use gpu_xor_conformance::ov::OvOp;
use gpu_xor_testkit::SplitMix64;

use crate::common::{Check, CheckOv, DmlCase, DmlOp, OvCase, compare, ctx, speckle, takes};

// What is documented as shareable between threads (`Context`'s documentation) is checked when
// the suite compiles.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Context>();
    send_sync::<BitXor>();
    send_sync::<LogicalXor>();
    send_sync::<BitwiseXor>();
    send_sync::<gpu_xor::DmlBinary>();
    send_sync::<gpu_xor::DmlUnary>();
    send_sync::<gpu_xor::OvBinary>();
    send_sync::<gpu_xor::OvUnary>();
    send_sync::<Batch>();
    send_sync::<Tensor>();
    send_sync::<gpu_xor::Error>();
};

/// Threads sharing the context.
const THREADS: usize = 8;
/// Random calls (single calls and batches) per thread.
const CALLS_PER_THREAD: usize = 500;
/// The most a test may take before the watchdog calls it a hang.
const DEADLINE: Duration = Duration::from_secs(180);

/// Runs each job on a thread of its own and waits for all of them, at most `deadline`. A job
/// that panics fails the test with its message; jobs still running at the deadline fail it as
/// a hang (they are left behind: a stuck thread cannot be stopped, but the test does not wait
/// for it). Returns each job's report, in order.
fn run_watched(
    what: &str,
    jobs: Vec<Box<dyn FnOnce() -> String + Send>>,
    deadline: Duration,
) -> Vec<String> {
    let start = Instant::now();
    let (tx, rx) = mpsc::channel();
    let count = jobs.len();
    for (i, job) in jobs.into_iter().enumerate() {
        let tx = tx.clone();
        std::thread::Builder::new()
            .name(format!("{what} {i}"))
            .spawn(move || {
                let result = catch_unwind(AssertUnwindSafe(job)).map_err(|p| {
                    p.downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_else(|| "a panic without a message".to_string())
                });
                let _ = tx.send((i, result));
            })
            .expect("a thread");
    }
    let mut reports: Vec<Option<String>> = vec![None; count];
    for _ in 0..count {
        let left = deadline.saturating_sub(start.elapsed());
        match rx.recv_timeout(left) {
            Ok((i, Ok(report))) => reports[i] = Some(report),
            Ok((i, Err(message))) => panic!("{what}: thread {i} failed: {message}"),
            Err(_) => {
                let stuck: Vec<usize> = (0..count).filter(|&i| reports[i].is_none()).collect();
                panic!(
                    "{what}: threads {stuck:?} still running after {deadline:?}: a hang or a \
                     deadlock (their stacks show where)"
                );
            }
        }
    }
    reports.into_iter().map(Option::unwrap).collect()
}

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

/// A random DirectML call: any operator of the family (XOR included), a bitwise one on any
/// DirectML type or a logical one on u8 / u32 (on speckled bytes, so that both truth values
/// are common), rank 1 to 4, packed, padded or broadcast inputs, a packed or padded output.
fn dml_case(rng: &mut Rng, seed: u64) -> DmlCase {
    let op = rng.pick(&DmlOp::ALL);
    let types: Vec<DataType> = DataType::DIRECTML
        .into_iter()
        .filter(|&dt| takes(op, dt))
        .collect();
    let dt = rng.pick(&types);
    let rank = 1 + rng.below(4) as usize;
    let sizes: Vec<u32> = (0..rank).map(|_| 1 + rng.below(6) as u32).collect();
    let a = input_desc(rng, dt, &sizes);
    let b = input_desc(rng, dt, &sizes);
    let out = if rng.chance(2) {
        TensorDesc::new(dt, &sizes)
    } else {
        let s = padded(rng, &sizes);
        TensorDesc::new(dt, &sizes).with_strides(&s)
    };
    let mut case = DmlCase::distinct(op, a, b, out, seed);
    if op.logical() {
        speckle(&mut case.buffers, seed);
    }
    case
}

/// A random OpenVINO call: any operation (the `Logical*` ones on bool, the others on any
/// integer type or bool), shapes of rank 0 to 4 that broadcast under `none`, `numpy` or
/// `pdpd`, now and then with a zero-size dimension (a one-input operation reads A alone).
fn ov_case(rng: &mut Rng, seed: u64) -> OvCase {
    let op = rng.pick(&OvOp::ALL);
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

/// Pushes `op` into `batch` (a batch takes every compiled operator).
fn push(batch: &mut Batch, op: &AnyOperator, bindings: &gpu_xor::Bindings<'_>) {
    op.push(batch, bindings).unwrap_or_else(|e| panic!("{e}"));
}

/// `count` random DirectML calls on buffers of their own, recorded as one batch, submitted
/// once, every buffer compared with the reference.
fn check_batch(ctx: &Context, rng: &mut Rng, seed: u64, count: usize) {
    let cases: Vec<DmlCase> = (0..count)
        .map(|k| dml_case(rng, seed ^ (k as u64) << 32))
        .collect();
    let gpu: Vec<Vec<wgpu::Buffer>> = cases.iter().map(|c| c.upload(ctx)).collect();
    let ops: Vec<AnyOperator> = cases
        .iter()
        .map(|c| {
            c.operator(ctx)
                .unwrap_or_else(|e| panic!("{e}\n{}", c.describe()))
        })
        .collect();
    let mut batch = ctx.batch();
    for ((case, buffers), op) in cases.iter().zip(&gpu).zip(&ops) {
        push(&mut batch, op, &case.bindings(buffers));
    }
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    batch.record(&mut encoder).unwrap_or_else(|e| panic!("{e}"));
    ctx.queue().submit([encoder.finish()]);
    for (case, buffers) in cases.iter().zip(&gpu) {
        let got = engine::read_back_blocking(ctx, buffers).unwrap();
        for (i, (got, want)) in got.iter().zip(&case.expected()).enumerate() {
            compare(i, got, want, case);
        }
    }
}

/// One thread's share: random single calls of every operator and small batches.
fn random_calls(ctx: &Context, thread: usize, calls: usize) -> String {
    let mut rng = Rng(SplitMix64::new(0xC0FF_EE00 + thread as u64));
    let (mut dml, mut ov, mut batched) = (0, 0, 0);
    for i in 0..calls {
        let seed = ((thread as u64) << 48) | i as u64;
        match rng.below(10) {
            0..=4 => {
                dml_case(&mut rng, seed).check_on(ctx);
                dml += 1;
            }
            5..=7 => {
                ov_case(&mut rng, seed).check_on(ctx);
                ov += 1;
            }
            _ => {
                let count = 2 + rng.below(4) as usize;
                check_batch(ctx, &mut rng, seed, count);
                batched += count;
            }
        }
    }
    format!("{dml} DirectML, {ov} OpenVINO, {batched} batched")
}

#[test]
fn eight_threads_share_one_context_and_every_result_matches_the_reference() {
    let ctx = ctx().clone();
    let start = Instant::now();
    let jobs: Vec<Box<dyn FnOnce() -> String + Send>> = (0..THREADS)
        .map(|t| {
            let ctx = ctx.clone();
            Box::new(move || random_calls(&ctx, t, CALLS_PER_THREAD)) as Box<_>
        })
        .collect();
    let reports = run_watched("random calls", jobs, DEADLINE);
    eprintln!(
        "{THREADS} threads x {CALLS_PER_THREAD} random calls in {:.1?}: {}",
        start.elapsed(),
        reports.join("; ")
    );
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
    let op =
        Arc::new(BitXor::new(&ctx, &BitXorDesc::new(a.clone(), b.clone(), out.clone())).unwrap());
    let barrier = Arc::new(Barrier::new(2));
    let jobs: Vec<Box<dyn FnOnce() -> String + Send>> = (0..2u64)
        .map(|t| {
            let (ctx, op, barrier) = (ctx.clone(), op.clone(), barrier.clone());
            let (a, b, out) = (a.clone(), b.clone(), out.clone());
            Box::new(move || {
                barrier.wait();
                for round in 0..ROUNDS as u64 {
                    let case = DmlCase::distinct(
                        DmlOp::BitXor,
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
                }
                format!("{ROUNDS} rounds")
            }) as Box<_>
        })
        .collect();
    run_watched("one operator", jobs, DEADLINE);
}

#[test]
fn the_watchdog_reports_a_stuck_thread_instead_of_waiting() {
    let (tx, rx) = mpsc::channel::<()>();
    let jobs: Vec<Box<dyn FnOnce() -> String + Send>> = vec![
        Box::new(|| "done".to_string()),
        Box::new(move || {
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
    assert!(message.contains("threads [1] still running"), "{message}");
    drop(tx);
}
