//! Description fuzzing (`cargo test --release --test fuzz -- --nocapture`).
//!
//! Random and boundary descriptions of every operator (DirectML `BitXorDesc`,
//! `LogicalXorDesc` and the family's `DmlBinaryDesc` and `DmlUnaryDesc` with every function,
//! on `TensorDesc`s with strides, total sizes, alignments, flags and feature levels; OpenVINO
//! `BitwiseXorDesc`, `OvBinaryDesc` and `OvUnaryDesc` under every broadcast rule), driven by
//! SplitMix64. Each
//! case is validated and planned (`Plan::new` of the description's `operands` is all that
//! `DmlBinary::new` and its siblings do besides keeping the context, so no device is needed),
//! its tensors are measured, the CPU reference runs it where the data is small, and a small
//! call of it is lowered under a drawn tuning (`tuned_lowering`). Every
//! case must end in `Ok` or a typed error:
//! - never a panic (each case runs under `catch_unwind`; the library is built with overflow
//!   checks in release, so an overflow is a panic too);
//! - within [`CASE_TIME_LIMIT`] (the least of three runs, so that a preempted run on a busy
//!   machine does not count);
//! - with at most [`CASE_MEMORY_LIMIT`] bytes allocated beyond what was live when it started
//!   (a counting global allocator tracks the peak).
//!
//! The outcomes are tallied by `Error::rule()` (and `ok`) per operator and printed.
//!
//! Fused expressions are drawn too (`exprs.rs`, a fifth as many cases): validated, planned,
//! lowered on drawn bindings under drawn windows and aliasing rules, and run by the reference
//! where small, each ending in `Ok` or a typed error.
//!
//! `GPU_XOR_FUZZ_CASES` sets the number of random cases (default 100,000),
//! `GPU_XOR_FUZZ_SEED` the seed (decimal or `0x` hex; unset, `GPU_XOR_SEED` moves the default
//! as it moves every randomized test's), and `GPU_XOR_FUZZ_ONLY` the index of
//! the one drawn case to check (the others are drawn, not run: to profile or debug a case).
//! The limits hold for the release build that CI runs.

#![allow(
    clippy::disallowed_methods,
    reason = "tests wait for the device; the lint keeps blocking calls out of the library"
)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};
use std::panic::PanicHookInfo;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gpu_xor::inspect::{KernelKind, Plan};
use gpu_xor::reference::{self, StridedView, StridedViewMut};
use gpu_xor::{
    AutoBroadcast, BitXorDesc, BitwiseXorDesc, DataType, DmlBinaryDesc, DmlBinaryOp, DmlUnaryDesc,
    DmlUnaryOp, Error, FeatureLevel, LogicalXorDesc, Operator, OvBinaryDesc, OvBinaryOp,
    OvUnaryDesc, OvUnaryOp, TensorDesc, TensorFlags, TensorName, infer_output_shape,
};
use gpu_xor_testkit::seeds::{Seeded, env_u64};
use gpu_xor_testkit::{SplitMix64, packed_strides};

/// The longest one case may take. The slowest drawn cases lower a call four times into some
/// ten thousand one-element pieces (1 KiB windows over a scattered operand), 40 to 70 ms on
/// a 2-core machine (CI included); the limit leaves them twice that and still catches a
/// lowering that grows faster than its pieces.
const CASE_TIME_LIMIT: Duration = Duration::from_millis(150);

/// The most bytes one case may allocate beyond what was live when it started.
const CASE_MEMORY_LIMIT: usize = 64 << 20;

/// Random cases by default.
const DEFAULT_CASES: u64 = 100_000;

/// The default seed.
const DEFAULT_SEED: u64 = 0x9e37_79b9_7f4a_7c15;

// ----- Counting allocator ---------------------------------------------------------------------

/// The system allocator, counting the bytes live on each thread and their peak.
struct Counting;

thread_local! {
    /// Bytes allocated minus bytes freed by this thread.
    static LIVE: Cell<isize> = const { Cell::new(0) };
    /// The highest `LIVE` since the last [`reset_peak`].
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn grow(bytes: usize) {
    // `try_with`: a thread being torn down has no counters left; its allocations go uncounted.
    let _ = LIVE.try_with(|live| {
        let now = live.get() + bytes as isize;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

fn shrink(bytes: usize) {
    let _ = LIVE.try_with(|live| live.set(live.get() - bytes as isize));
}

/// Starts a new peak at the bytes live now; returns them.
fn reset_peak() -> isize {
    let live = LIVE.with(Cell::get);
    PEAK.with(|peak| peak.set(live));
    live
}

fn peak() -> isize {
    PEAK.with(Cell::get)
}

// SAFETY: every call is forwarded to `System` with the caller's own arguments, so `System`'s
// guarantees hold; the counters are const-initialised thread-locals without destructors,
// which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which `System` shares.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` with `layout` (every allocation goes there).
        unsafe { System.dealloc(ptr, layout) };
        shrink(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for `dealloc`, and the caller upholds `realloc`'s contract.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            shrink(layout.size());
            grow(new_size);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

mod cases;
mod exprs;
mod run;

use cases::*;
use run::*;

// ----- The test ---------------------------------------------------------------------------------

type PanicHook = dyn Fn(&PanicHookInfo<'_>) + Sync + Send + 'static;

/// What went wrong in one case.
struct Failure {
    index: u64,
    case: Case,
    problem: String,
}

#[derive(Default)]
struct Stats {
    /// Per rule (or `ok`), per operator.
    tally: BTreeMap<&'static str, [u64; 7]>,
    /// Per operator of the table: cases drawn, and those that validated.
    drawn: HashMap<Operator, (u64, u64)>,
    panics: u64,
    failures: Vec<Failure>,
    slowest: Duration,
    largest: isize,
}

/// The random cases' count and seed: `GPU_XOR_FUZZ_CASES` and `GPU_XOR_FUZZ_SEED`, else the
/// defaults, the seed moved by `GPU_XOR_SEED` as every randomized test's is.
fn draws() -> (u64, u64) {
    let cases = env_u64("GPU_XOR_FUZZ_CASES").unwrap_or(DEFAULT_CASES);
    let seed = env_u64("GPU_XOR_FUZZ_SEED").unwrap_or(Seeded::new(DEFAULT_SEED, cases).seed);
    (cases, seed)
}

/// The message of the last panic inside a case, recorded by the hook installed in the test.
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

thread_local! {
    /// Whether this thread is running a case: its panics are recorded, not printed.
    static IN_CASE: Cell<bool> = const { Cell::new(false) };
}

fn check(stats: &mut Stats, index: u64, case: &Case, expected: Option<&str>, seed: u64) {
    let run = |seed: u64| {
        let mut rng = SplitMix64::new(seed);
        let start_live = reset_peak();
        let started = Instant::now();
        IN_CASE.with(|c| c.set(true));
        let result = panic::catch_unwind(AssertUnwindSafe(|| run_case(case, &mut rng)));
        IN_CASE.with(|c| c.set(false));
        let elapsed = started.elapsed();
        (result, elapsed, peak() - start_live)
    };
    let (result, mut elapsed, grown) = run(seed);
    // A preempted run is not the case's fault: the least of three runs counts.
    for _ in 0..2 {
        if elapsed <= CASE_TIME_LIMIT {
            break;
        }
        elapsed = elapsed.min(run(seed).1);
    }
    stats.slowest = stats.slowest.max(elapsed);
    stats.largest = stats.largest.max(grown);
    let mut fail = |problem: String| {
        stats.failures.push(Failure {
            index,
            case: case.clone(),
            problem,
        })
    };
    match result {
        Ok(rule) => {
            stats.tally.entry(rule).or_default()[case.operator()] += 1;
            let drawn = stats.drawn.entry(case.table_operator()).or_default();
            drawn.0 += 1;
            drawn.1 += u64::from(rule == "ok");
            if let Some(expected) = expected.filter(|&e| e != rule) {
                fail(format!("ended in {rule}, expected {expected}"));
            }
        }
        Err(_) => {
            stats.panics += 1;
            let message = LAST_PANIC.lock().unwrap().take().unwrap_or_default();
            fail(format!("panicked: {message}"));
        }
    }
    if elapsed > CASE_TIME_LIMIT {
        fail(format!("took {elapsed:?}, more than {CASE_TIME_LIMIT:?}"));
    }
    if grown > CASE_MEMORY_LIMIT as isize {
        fail(format!(
            "allocated {grown} bytes, more than {CASE_MEMORY_LIMIT}"
        ));
    }
}

#[test]
fn descriptions_end_in_ok_or_a_typed_error_in_bounded_time_and_memory() {
    let (cases, seed) = draws();
    let started = Instant::now();

    let default_hook: Arc<PanicHook> = Arc::from(panic::take_hook());
    let outside_cases = Arc::clone(&default_hook);
    panic::set_hook(Box::new(move |info| {
        if !IN_CASE.with(Cell::get) {
            return outside_cases(info);
        }
        let location = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let payload = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        *LAST_PANIC.lock().unwrap() = Some(format!("{payload}{location}"));
    }));

    let mut stats = Stats::default();
    for (i, (case, expected)) in fixed_cases().into_iter().enumerate() {
        check(&mut stats, i as u64, &case, Some(expected), seed);
    }
    // `GPU_XOR_FUZZ_ONLY=index` checks one drawn case alone (to profile or debug it).
    let only = env_u64("GPU_XOR_FUZZ_ONLY");
    let mut rng = SplitMix64::new(seed);
    for index in 0..cases {
        let case = random_case(&mut rng);
        let case_seed = rng.next_u64();
        if only.is_none_or(|only| only == index) {
            check(&mut stats, index, &case, None, case_seed);
        }
    }

    let _ = panic::take_hook();
    panic::set_hook(Box::new(move |info| default_hook(info)));

    let fixed = fixed_cases().len();
    println!(
        "\nfuzz: {cases} random cases (seed {seed:#x}) and {fixed} fixed ones in {:.1?}",
        started.elapsed()
    );
    let row = |name: &str, counts: &[u64]| {
        let cells: String = counts.iter().map(|c| format!(" {c:>11}")).collect();
        println!("{name:<24}{cells}");
    };
    let header: String = OPERATORS.iter().map(|o| format!(" {o:>11}")).collect();
    println!("{:<24}{header}", "outcome");
    let mut totals = [0u64; 7];
    for (rule, counts) in &stats.tally {
        row(rule, counts);
        for (t, c) in totals.iter_mut().zip(counts) {
            *t += c;
        }
    }
    row("total", &totals);
    println!(
        "panics {}, slowest case {:.2?}, largest allocation growth {} bytes",
        stats.panics, stats.slowest, stats.largest
    );
    // Every operator of the table is drawn, and some of its descriptions are valid: a row
    // added to the table reaches the fuzz run through its group.
    for op in Operator::ALL {
        let (drawn, valid) = stats.drawn.get(&op).copied().unwrap_or_default();
        println!("{op:<26} drawn {drawn:>7}, valid {valid:>7}");
        assert!(
            only.is_some() || (drawn > 0 && valid > 0),
            "{op}: {drawn} drawn, {valid} valid"
        );
    }
    for f in stats.failures.iter().take(10) {
        println!("case {} failed: {}\n  {:?}", f.index, f.problem, f.case);
    }
    assert!(
        stats.failures.is_empty(),
        "{} failing cases ({} panics); rerun with GPU_XOR_FUZZ_SEED={seed:#x} GPU_XOR_FUZZ_CASES={cases}",
        stats.failures.len(),
        stats.panics
    );
}
