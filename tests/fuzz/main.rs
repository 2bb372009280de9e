//! Description fuzzing (`cargo test --release --test fuzz -- --nocapture`).
//!
//! Random and boundary descriptions of every operator (DirectML `BitXorDesc`,
//! `LogicalXorDesc` and the family's `DmlBinaryDesc` and `DmlUnaryDesc` with every function,
//! on `TensorDesc`s with strides, total sizes, alignments, flags and feature levels; OpenVINO
//! `BitwiseXorDesc`, `OvBinaryDesc` and `OvUnaryDesc` under every broadcast rule), driven by
//! SplitMix64. Each
//! case is validated and planned (`Plan::new` of the description's `operands` is all that
//! `BitXor::new` and its siblings do besides keeping the context, so no device is needed),
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
//! `GPU_XOR_FUZZ_CASES` sets the number of random cases (default 100,000),
//! `GPU_XOR_FUZZ_SEED` the seed (decimal or `0x` hex).

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
use gpu_xor_testkit::{SplitMix64, packed_strides};

/// The longest one case may take.
const CASE_TIME_LIMIT: Duration = Duration::from_millis(50);

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

// ----- Draws ----------------------------------------------------------------------------------

/// The draws every case is made of, from the test kit's SplitMix64 (Steele, Lea and Flood).
trait Draws {
    /// Uniform in `0..n` (`n > 0`; the bias is irrelevant here).
    fn below(&mut self, n: u64) -> u64;

    /// True with probability `1 / n`.
    fn one_in(&mut self, n: u64) -> bool;

    /// One of `items`, uniformly.
    fn pick<T: Copy>(&mut self, items: &[T]) -> T;

    /// A value up to `max`: small ones, powers of two and their neighbours, values near
    /// `max`, or anything.
    fn edge(&mut self, max: u64) -> u64;
}

impl Draws for SplitMix64 {
    fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }

    fn edge(&mut self, max: u64) -> u64 {
        let bits = 64 - max.leading_zeros() as u64;
        match self.below(8) {
            0 => self.below(4).min(max),
            1 | 2 => self.below(17).min(max),
            3 | 4 => {
                let p = 1u64 << self.below(bits);
                match self.below(3) {
                    0 => p - 1,
                    1 => p,
                    _ => p.saturating_add(1).min(max),
                }
            }
            5 => max - self.below(3).min(max),
            _ => self.next_u64() & max,
        }
    }
}

// ----- Cases ----------------------------------------------------------------------------------

/// One description, named by its operator.
#[derive(Clone, Debug)]
enum Case {
    Bit(BitXorDesc, FeatureLevel),
    Logical(LogicalXorDesc, FeatureLevel),
    OpenVino(BitwiseXorDesc),
    /// The family's DirectML operators of two inputs, every function.
    Dml(DmlBinaryDesc, FeatureLevel),
    /// The DirectML NOTs.
    DmlNot(DmlUnaryDesc, FeatureLevel),
    /// The family's OpenVINO operations of two inputs, every function.
    Ov(OvBinaryDesc),
    /// The OpenVINO NOTs.
    OvNot(OvUnaryDesc),
}

impl Case {
    /// The operator of the table that the case describes.
    fn table_operator(&self) -> Operator {
        match self {
            Case::Bit(..) => Operator::BitXor,
            Case::Logical(..) => Operator::LogicalXor,
            Case::OpenVino(..) => Operator::BitwiseXor,
            Case::Dml(d, _) => d.op.operator(),
            Case::DmlNot(d, _) => d.op.operator(),
            Case::Ov(d) => d.op.operator(),
            Case::OvNot(d) => d.op.operator(),
        }
    }

    fn operator(&self) -> usize {
        match self {
            Case::Bit(..) => 0,
            Case::Logical(..) => 1,
            Case::OpenVino(..) => 2,
            Case::Dml(..) => 3,
            Case::DmlNot(..) => 4,
            Case::Ov(..) => 5,
            Case::OvNot(..) => 6,
        }
    }
}

const OPERATORS: [&str; 7] = [
    "BitXor",
    "LogicalXor",
    "BitwiseXor",
    "DmlBinary",
    "DmlUnary",
    "OvBinary",
    "OvUnary",
];

/// The descriptions of issue 7 and of the self-overlap rule, with the outcome each must have.
fn fixed_cases() -> Vec<(Case, &'static str)> {
    let fl = FeatureLevel::default();
    let huge = TensorDesc::new(DataType::U64, &[u32::MAX; 8]).with_strides(&[u32::MAX; 8]);
    let interleaved = |strides: &[u32]| {
        let mut d = BitXorDesc::packed(DataType::U8, &[3, 2, 1 << 21]);
        d.output = d.output.with_strides(strides);
        Case::Bit(d, fl)
    };
    let undecided = {
        let mut d = BitXorDesc::packed(DataType::U8, &[15; 8]);
        d.output = d.output.with_strides(&[
            1568077936, 3031016130, 1854190884, 3488247531, 1026796918, 3258132284, 3599911344,
            2728997477,
        ]);
        Case::Bit(d, fl)
    };
    vec![
        (
            Case::Bit(BitXorDesc::packed(DataType::U8, &[65536; 8]), fl),
            "too_many_elements",
        ),
        (
            Case::Bit(BitXorDesc::new(huge.clone(), huge.clone(), huge), fl),
            "too_many_elements",
        ),
        (
            Case::Logical(LogicalXorDesc::packed(DataType::U8, &[65536; 8]), fl),
            "too_many_elements",
        ),
        (
            Case::OpenVino(BitwiseXorDesc::new(DataType::U8, &[usize::MAX], &[1])),
            "size_overflow",
        ),
        (
            Case::OpenVino(BitwiseXorDesc::new(
                DataType::U8,
                &[3, 1, 4, 7120310469467933835, 1, 0],
                &[],
            )),
            "ok",
        ),
        (
            Case::OpenVino(BitwiseXorDesc::new(
                DataType::U8,
                &[usize::MAX; 3],
                &[usize::MAX; 3],
            )),
            "size_overflow",
        ),
        (interleaved(&[2, 3, 6]), "ok"),
        (interleaved(&[2, 3, 5]), "output_overlap"),
        (undecided, "output_overlap_undecided"),
    ]
}

const DML_TYPES: [DataType; 12] = DataType::ALL;

/// A DirectML description: mostly valid ones with one thing changed, so that every rule is
/// reached from a description that passes the others.
fn dml_tensors(rng: &mut SplitMix64) -> ([TensorDesc; 3], FeatureLevel) {
    let level = if rng.one_in(3) {
        rng.pick(&FeatureLevel::ALL)
    } else {
        FeatureLevel::default()
    };
    let data_type = if rng.one_in(4) {
        rng.pick(&DML_TYPES)
    } else {
        rng.pick(&[DataType::U8, DataType::U32])
    };
    let rank = match rng.below(10) {
        0 => rng.below(13) as usize,
        1..=3 => 4,
        _ => 1 + rng.below(8) as usize,
    };
    let sizes = dml_sizes(rng, rank);
    let base = TensorDesc::new(data_type, &sizes);
    let mut tensors = [base.clone(), base.clone(), base];
    for t in &mut tensors {
        shape_tensor(rng, t);
    }
    // One rule broken now and then.
    if rng.one_in(12) {
        let t = &mut tensors[1 + rng.below(2) as usize];
        match rng.below(4) {
            0 => t.data_type = rng.pick(&DML_TYPES),
            1 => {
                let r = rng.below(10) as usize;
                *t = TensorDesc::new(t.data_type, &dml_sizes(rng, r));
            }
            2 if !t.sizes.is_empty() => {
                let d = rng.below(t.sizes.len() as u64) as usize;
                t.sizes[d] = rng.edge(u64::from(u32::MAX)) as u32;
            }
            _ => t.flags = TensorFlags::OwnedByDml,
        }
    }
    if rng.one_in(40) {
        tensors[rng.below(3) as usize].flags = TensorFlags::OwnedByDml;
    }
    (tensors, level)
}

/// Sizes: small ones, products near the 2^32 - 1 element limit, or boundary values.
fn dml_sizes(rng: &mut SplitMix64, rank: usize) -> Vec<u32> {
    match rng.below(8) {
        0..=3 => (0..rank).map(|_| 1 + rng.below(6) as u32).collect(),
        4 | 5 => {
            // Powers of two whose product is 2^31 or 2^32, one of them nudged by one.
            let total = 31 + rng.below(2) as u32;
            let mut bits = vec![0u32; rank];
            for _ in 0..total {
                if rank > 0 {
                    bits[rng.below(rank as u64) as usize] += 1;
                }
            }
            let mut sizes: Vec<u32> = bits
                .iter()
                .map(|&b| if b >= 32 { u32::MAX } else { 1 << b })
                .collect();
            if rank > 0 && rng.one_in(2) {
                let d = rng.below(rank as u64) as usize;
                sizes[d] = if rng.one_in(2) {
                    sizes[d].saturating_add(1)
                } else {
                    sizes[d] - 1
                };
            }
            sizes
        }
        _ => (0..rank)
            .map(|_| rng.edge(u64::from(u32::MAX)) as u32)
            .collect(),
    }
}

/// `DMLCalcBufferTensorSize` written out in 128 bits: `None` for a zero size, strides of the
/// wrong length, or a size past 64 bits.
fn expected_min_size(t: &TensorDesc) -> Option<u64> {
    if t.sizes.contains(&0) {
        return None;
    }
    let spanned = match &t.strides {
        None => t
            .sizes
            .iter()
            .try_fold(1u128, |acc, &n| acc.checked_mul(u128::from(n)))?,
        Some(s) if s.len() == t.sizes.len() => {
            t.sizes
                .iter()
                .zip(s)
                .map(|(&n, &s)| u128::from(n - 1) * u128::from(s))
                .sum::<u128>()
                + 1
        }
        Some(_) => return None,
    };
    let bytes = spanned.checked_mul(u128::from(t.data_type.size_in_bytes()))?;
    u64::try_from(bytes.checked_next_multiple_of(4)?).ok()
}

/// Strides, total size, alignment and flags for one tensor.
fn shape_tensor(rng: &mut SplitMix64, t: &mut TensorDesc) {
    let rank = t.rank();
    let packed = packed_strides(&t.sizes);
    t.strides = match rng.below(14) {
        0..=4 => None,
        5 | 6 => Some(
            packed
                .iter()
                .map(|&s| s.min(u64::from(u32::MAX)) as u32)
                .collect(),
        ),
        7 | 8 => {
            // Padded rows or a transposed order.
            let mut s: Vec<u32> = packed
                .iter()
                .map(|&s| s.saturating_mul(1 + rng.below(3)).min(u64::from(u32::MAX)) as u32)
                .collect();
            if rank > 1 && rng.one_in(2) {
                let (x, y) = (
                    rng.below(rank as u64) as usize,
                    rng.below(rank as u64) as usize,
                );
                s.swap(x, y);
            }
            Some(s)
        }
        9 => Some((0..rank).map(|_| rng.below(13) as u32).collect()),
        10 => Some(
            (0..rank)
                .map(|_| rng.edge(u64::from(u32::MAX)) as u32)
                .collect(),
        ),
        11 | 12 => {
            // Interleaved: small strides that may or may not overlap.
            Some((0..rank).map(|_| 1 + rng.below(12) as u32).collect())
        }
        _ => {
            // The wrong length, or zeros.
            let r = if rng.one_in(2) {
                rng.below(10) as usize
            } else {
                rank
            };
            Some((0..r).map(|_| rng.below(2) as u32).collect())
        }
    };
    if rng.one_in(6) {
        let minimum = expected_min_size(t).unwrap_or(u64::MAX);
        t.total_tensor_size_in_bytes = Some(match rng.below(6) {
            0 => minimum,
            1 => minimum.saturating_sub(1 + rng.below(4)),
            2 => minimum.saturating_add(rng.below(64)),
            3 => 0,
            4 => u64::MAX - rng.below(2),
            _ => rng.edge(u64::MAX),
        });
    }
    if rng.one_in(6) {
        t.guaranteed_base_offset_alignment = match rng.below(5) {
            0 | 1 => 1 << rng.below(32),
            2 => rng.pick(&[3, 6, 12, 24, 48]),
            3 => u32::MAX,
            _ => rng.edge(u64::from(u32::MAX)) as u32,
        };
    }
}

/// An OpenVINO description: shapes that broadcast (B drawn from A), with boundary dimensions,
/// or random shapes.
fn openvino_desc(rng: &mut SplitMix64) -> BitwiseXorDesc {
    let data_type = if rng.one_in(4) {
        rng.pick(&DataType::ALL)
    } else {
        rng.pick(&[DataType::U8, DataType::I32, DataType::Bool, DataType::U64])
    };
    let rank = rng.below(13) as usize;
    let dim = |rng: &mut SplitMix64| -> usize {
        match rng.below(8) {
            0..=4 => rng.below(6) as usize,
            _ => rng.edge(u64::MAX) as usize,
        }
    };
    let a: Vec<usize> = (0..rank).map(|_| dim(rng)).collect();
    let broadcast = match rng.below(8) {
        0 => AutoBroadcast::None,
        1..=4 => AutoBroadcast::Numpy,
        5 | 6 => AutoBroadcast::Pdpd {
            axis: match rng.below(6) {
                0 => -1,
                1 => i64::MIN,
                2 => i64::MAX,
                3 => -2 - rng.below(3) as i64,
                _ => rng.below(rank as u64 + 3) as i64,
            },
        },
        _ => AutoBroadcast::Explicit,
    };
    let b: Vec<usize> = match rng.below(4) {
        0 => (0..rng.below(13)).map(|_| dim(rng)).collect(),
        _ => {
            // A part of A (its tail for numpy, any window for pdpd), some dimensions made 1.
            let len = rng.below(rank as u64 + 1) as usize;
            let start = match broadcast {
                AutoBroadcast::Pdpd { axis } if axis >= 0 && (axis as usize) <= rank - len => {
                    axis as usize
                }
                _ => rank - len,
            };
            let mut b = a[start..start + len].to_vec();
            for d in &mut b {
                if rng.one_in(3) {
                    *d = 1;
                }
            }
            if rng.one_in(3) {
                // Numpy broadcasts both ways: give B leading dimensions too.
                let mut lead: Vec<usize> = (0..rng.below(3)).map(|_| dim(rng)).collect();
                lead.extend(b);
                b = lead;
            }
            b
        }
    };
    let mut desc = BitwiseXorDesc::new(data_type, &a, &b).with_broadcast(broadcast);
    if rng.one_in(16) {
        desc.b_type = rng.pick(&DataType::ALL);
    }
    if rng.one_in(2) {
        std::mem::swap(&mut desc.a_shape, &mut desc.b_shape);
    }
    desc
}

fn random_case(rng: &mut SplitMix64) -> Case {
    match rng.below(7) {
        0 => {
            let ([a, b, output], level) = dml_tensors(rng);
            Case::Bit(BitXorDesc::new(a, b, output), level)
        }
        1 => {
            let ([a, b, output], level) = dml_tensors(rng);
            Case::Logical(LogicalXorDesc::new(a, b, output), level)
        }
        2 => Case::OpenVino(openvino_desc(rng)),
        3 => {
            let ([a, b, output], level) = dml_tensors(rng);
            let op = rng.pick(&DmlBinaryOp::ALL);
            Case::Dml(DmlBinaryDesc::new(op, a, b, output), level)
        }
        4 => {
            // The one input is A; B's description is drawn and dropped.
            let ([a, _, mut output], level) = dml_tensors(rng);
            let op = rng.pick(&DmlUnaryOp::ALL);
            // BIT_COUNT's output has types of its own: mostly one of them, whatever A's.
            if op == DmlUnaryOp::BitCount && !rng.one_in(4) {
                output.data_type = rng.pick(&[DataType::U8, DataType::U32]);
            }
            Case::DmlNot(DmlUnaryDesc::new(op, a, output), level)
        }
        5 => {
            let d = openvino_desc(rng);
            Case::Ov(OvBinaryDesc {
                op: rng.pick(&OvBinaryOp::ALL),
                ..OvBinaryDesc::from(d)
            })
        }
        _ => {
            let d = openvino_desc(rng);
            Case::OvNot(OvUnaryDesc::new(
                rng.pick(&OvUnaryOp::ALL),
                d.a_type,
                &d.a_shape,
            ))
        }
    }
}

// ----- Running a case -------------------------------------------------------------------------

/// Every call the case reaches; returns its outcome: `ok` or the rule of the validation error.
/// A disagreement between calls that must agree is a panic, caught as a failure.
fn run_case(case: &Case, rng: &mut SplitMix64) -> &'static str {
    match case {
        Case::Bit(desc, level) => {
            let validated = desc.validate(*level);
            let planned = desc.operands(*level).map(|o| Plan::new(&o));
            if let Ok(plan) = &planned {
                tuned_lowering(plan, rng);
            }
            dml_common(
                &[&desc.a, &desc.b, &desc.output],
                &validated,
                planned.as_ref(),
            );
            dml_reference(&[&desc.a, &desc.b, &desc.output], DmlBinaryOp::BitXor, rng);
            outcome(&validated)
        }
        Case::Logical(desc, level) => {
            let validated = desc.validate(*level);
            let planned = desc.operands(*level).map(|o| Plan::new(&o));
            if let Ok(plan) = &planned {
                tuned_lowering(plan, rng);
            }
            dml_common(
                &[&desc.a, &desc.b, &desc.output],
                &validated,
                planned.as_ref(),
            );
            dml_reference(
                &[&desc.a, &desc.b, &desc.output],
                DmlBinaryOp::LogicalXor,
                rng,
            );
            outcome(&validated)
        }
        Case::Dml(desc, level) => {
            let validated = desc.validate(*level);
            let planned = desc.operands(*level).map(|o| Plan::new(&o));
            if let Ok(plan) = &planned {
                tuned_lowering(plan, rng);
            }
            if let Ok(plan) = &planned {
                assert_eq!(plan.function(), desc.op.function());
            }
            dml_common(
                &[&desc.a, &desc.b, &desc.output],
                &validated,
                planned.as_ref(),
            );
            dml_reference(&[&desc.a, &desc.b, &desc.output], desc.op, rng);
            outcome(&validated)
        }
        Case::DmlNot(desc, level) => {
            let validated = desc.validate(*level);
            let planned = desc.operands(*level).map(|o| Plan::new(&o));
            if let Ok(plan) = &planned {
                tuned_lowering(plan, rng);
            }
            if let Ok(plan) = &planned {
                assert_eq!(plan.function(), desc.op.function());
                // The input is read in B's place too.
                assert_eq!(plan.strides(TensorName::A), plan.strides(TensorName::B));
            }
            // B is the input again: the common checks hold with it in B's place.
            dml_common(
                &[&desc.input, &desc.input, &desc.output],
                &validated,
                planned.as_ref(),
            );
            dml_unary_reference(desc, rng);
            outcome(&validated)
        }
        Case::Ov(desc) => {
            let validated = desc.validate();
            let shape = desc.output_shape();
            let planned = desc.operands().map(|o| Plan::new(&o));
            assert_eq!(validated.clone().map(|_| ()), shape.clone().map(|_| ()));
            if let Ok(plan) = &planned {
                assert_eq!(plan.function(), desc.op.function(desc.a_type));
            }
            if desc.a_type == desc.b_type {
                let inferred =
                    infer_output_shape(&desc.a_shape, &desc.b_shape, desc.auto_broadcast);
                assert_eq!(
                    inferred.as_ref().err(),
                    shape
                        .as_ref()
                        .err()
                        .filter(|e| e.rule() != "unsupported_dtype")
                );
            }
            openvino_family_reference(desc, rng);
            match (&validated, &planned) {
                (Ok(()), Err(e)) => e.rule(),
                _ => outcome(&validated),
            }
        }
        Case::OvNot(desc) => {
            let validated = desc.validate();
            let planned = desc.operands().map(|o| Plan::new(&o));
            match (&validated, &planned) {
                (Err(e), planned) => assert_eq!(planned.as_ref().err(), Some(e)),
                (Ok(()), Ok(plan)) => {
                    assert_eq!(plan.function(), desc.op.function(desc.data_type))
                }
                (Ok(()), Err(e)) => assert_eq!(e.rule(), "size_overflow", "{e}"),
            }
            if desc
                .shape
                .iter()
                .try_fold(1usize, |n, &d| n.checked_mul(d))
                .is_some_and(|n| n <= 4096)
            {
                let n: usize = desc.shape.iter().product();
                let len = n * desc.data_type.size_in_bytes() as usize;
                let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
                let r = reference::ov_unary(desc.op, desc.data_type, &desc.shape, &bytes);
                assert_eq!(r.as_ref().err(), validated.as_ref().err());
            }
            match (&validated, &planned) {
                (Ok(()), Err(e)) => e.rule(),
                _ => outcome(&validated),
            }
        }
        Case::OpenVino(desc) => {
            let validated = desc.validate();
            let shape = desc.output_shape();
            let inferred = infer_output_shape(&desc.a_shape, &desc.b_shape, desc.auto_broadcast);
            let planned = desc.operands().map(|o| Plan::new(&o));
            assert_eq!(validated.clone().map(|_| ()), shape.clone().map(|_| ()));
            if desc.a_type == desc.b_type {
                assert_eq!(
                    inferred.as_ref().err(),
                    shape
                        .as_ref()
                        .err()
                        .filter(|e| { e.rule() != "unsupported_dtype" })
                );
            }
            match (&shape, &planned) {
                (Ok(shape), Ok(plan)) => {
                    let count = shape
                        .iter()
                        .try_fold(1u64, |acc, &d| acc.checked_mul(d as u64));
                    let count = if shape.contains(&0) { Some(0) } else { count };
                    assert_eq!(Some(plan.element_count()), count, "{shape:?}");
                    if plan.element_count() == 0 {
                        assert_eq!(plan.kernel(), KernelKind::Empty);
                        assert_eq!(plan.required_binding_size(TensorName::Output), 0);
                    }
                }
                (Ok(_), Err(e)) => assert_eq!(e.rule(), "size_overflow", "{e}"),
                (Err(e), planned) => assert_eq!(planned.as_ref().err(), Some(e)),
            }
            openvino_reference(desc, rng);
            match (&validated, &planned) {
                (Ok(()), Err(e)) => e.rule(),
                _ => outcome(&validated),
            }
        }
    }
}

fn outcome(result: &Result<(), Error>) -> &'static str {
    match result {
        Ok(()) => "ok",
        Err(e) => e.rule(),
    }
}

/// What every DirectML case checks: the plan agrees with validation, and each tensor's sizes
/// are measured without a panic.
fn dml_common(
    tensors: &[&TensorDesc; 3],
    validated: &Result<(), Error>,
    planned: Result<&Plan, &Error>,
) {
    assert_eq!(validated.as_ref().err(), planned.err());
    for t in tensors {
        match expected_min_size(t) {
            Some(bytes) => assert_eq!(t.min_buffer_size(), Ok(bytes)),
            None => assert!(t.min_buffer_size().is_err()),
        }
        let _ = t.total_size();
        let _ = t.element_count();
        let _ = t.effective_strides();
    }
    if let Ok(plan) = planned {
        let count = tensors[2].element_count();
        assert_eq!(u128::from(plan.element_count()), count);
        assert!(count <= u128::from(u32::MAX));
        for (name, t) in [TensorName::A, TensorName::B, TensorName::Output]
            .into_iter()
            .zip(tensors)
        {
            assert_eq!(Ok(plan.required_binding_size(name)), t.total_size());
            assert!(plan.binding_alignment(name).is_power_of_two());
        }
    }
}

/// Lowers a small call of `plan` on distinct buffers under a drawn tuning: the fixed rule of
/// either adapter class, alone or with a measured choice of any kernel for the plan's layout
/// class (one the layout allows or not). The choice changes nothing but kernels: the same
/// outcome, the same pieces, and each piece on its rule's kernel or on the choice, which
/// must be one of the layout's candidates.
fn tuned_lowering(plan: &Plan, rng: &mut SplitMix64) {
    use gpu_xor_core::layout::Limits;
    use gpu_xor_core::schedule::Target;
    use gpu_xor_core::schedule::lower::{Operand, lower};
    use gpu_xor_core::schedule::select;
    use gpu_xor_core::schedule::tune::{KernelChoices, TuningKey};
    if plan.element_count() > 1 << 16 {
        return;
    }
    let max_window = [1u64 << 27, 4096, 1024][(rng.next_u64() % 3) as usize];
    let rule = Target {
        windows: Limits {
            max_window,
            offset_alignment: 256,
            max_rank: 8,
        },
        max_groups: 65535,
        strict_aliasing: rng.next_u64().is_multiple_of(2),
        cpu: rng.next_u64().is_multiple_of(2),
        choices: None,
    };
    let key = TuningKey::of_plan(plan);
    // Mostly one of the layout's candidates, sometimes any kernel.
    let candidates = select::plan_candidates(plan, 65535);
    let choice = if rng.next_u64().is_multiple_of(4) || candidates.is_empty() {
        KernelKind::DISPATCHING[(rng.next_u64() % KernelKind::DISPATCHING.len() as u64) as usize]
    } else {
        candidates[(rng.next_u64() % candidates.len() as u64) as usize]
    };
    let mut choices = KernelChoices::new("fuzz");
    if let Some(key) = key {
        choices.insert(key, choice);
    }
    let measured = Target {
        choices: Some(Arc::new(choices)),
        ..rule.clone()
    };
    let unary = plan.operator().inputs() == 1;
    let names = [TensorName::Output, TensorName::A, TensorName::B];
    if names
        .iter()
        .any(|&name| plan.required_binding_size(name) > 1 << 32)
    {
        return;
    }
    let bound: [Operand; 3] = std::array::from_fn(|o| {
        let bytes = plan.required_binding_size(names[o]).div_ceil(16) * 16 + 16;
        Operand {
            buffer: if unary && o == 2 { 1 } else { o },
            buffer_size: bytes,
            offset: 0,
            size: None,
        }
    });
    let by_rule = lower(plan, bound, &rule);
    let by_choice = lower(plan, bound, &measured);
    assert_eq!(by_rule.is_ok(), by_choice.is_ok());
    if let (Ok(by_rule), Ok(by_choice)) = (by_rule, by_choice) {
        let (ruled, chosen) = (&by_rule.summary.dispatches, &by_choice.summary.dispatches);
        assert_eq!(ruled.len(), chosen.len(), "{ruled:?} {chosen:?}");
        for (r, c) in ruled.iter().zip(chosen) {
            assert!(
                r == c || (*c == choice && candidates.contains(c)),
                "{r:?} {c:?}"
            );
        }
    }
}

/// Runs the reference on small DirectML views (whatever the rules say; the reference applies
/// only its own) with random bytes, sometimes too few.
fn dml_reference(tensors: &[&TensorDesc; 3], op: DmlBinaryOp, rng: &mut SplitMix64) {
    const SMALL: u128 = 4096;
    if tensors.iter().any(|t| t.element_count() > SMALL) {
        return;
    }
    let usize_dims = |v: &[u32]| -> Vec<usize> { v.iter().map(|&x| x as usize).collect() };
    let sizes: Vec<Vec<usize>> = tensors.iter().map(|t| usize_dims(&t.sizes)).collect();
    let strides: Vec<Option<Vec<usize>>> = tensors
        .iter()
        .map(|t| t.strides.as_deref().map(usize_dims))
        .collect();
    let mut bytes: Vec<Vec<u8>> = tensors
        .iter()
        .map(|t| {
            let len = match t.min_buffer_size() {
                Ok(n) if n <= 1 << 16 && !rng.one_in(8) => n as usize,
                _ => rng.below(64) as usize,
            };
            (0..len).map(|_| rng.next_u64() as u8).collect()
        })
        .collect();
    let out_bytes = bytes.pop().expect("three tensors");
    let mut out_bytes = out_bytes;
    let view = |i: usize| StridedView {
        bytes: &bytes[i],
        data_type: tensors[i].data_type,
        sizes: &sizes[i],
        strides: strides[i].as_deref(),
        offset: 0,
    };
    let mut out = StridedViewMut {
        bytes: &mut out_bytes,
        data_type: tensors[2].data_type,
        sizes: &sizes[2],
        strides: strides[2].as_deref(),
        offset: 0,
    };
    let _ = match op {
        DmlBinaryOp::BitXor => reference::bit_xor(&view(0), &view(1), &mut out),
        DmlBinaryOp::LogicalXor => reference::logical_xor(&view(0), &view(1), &mut out),
        op => reference::dml_binary(op, &view(0), &view(1), &mut out),
    };
}

/// Runs the reference of a NOT on small views, with random bytes, sometimes too few.
fn dml_unary_reference(desc: &DmlUnaryDesc, rng: &mut SplitMix64) {
    const SMALL: u128 = 4096;
    let tensors = [&desc.input, &desc.output];
    if tensors.iter().any(|t| t.element_count() > SMALL) {
        return;
    }
    let usize_dims = |v: &[u32]| -> Vec<usize> { v.iter().map(|&x| x as usize).collect() };
    let mut bytes: Vec<Vec<u8>> = tensors
        .iter()
        .map(|t| {
            let len = match t.min_buffer_size() {
                Ok(n) if n <= 1 << 16 && !rng.one_in(8) => n as usize,
                _ => rng.below(64) as usize,
            };
            (0..len).map(|_| rng.next_u64() as u8).collect()
        })
        .collect();
    let mut out_bytes = bytes.pop().expect("two tensors");
    let (in_sizes, out_sizes) = (
        usize_dims(&desc.input.sizes),
        usize_dims(&desc.output.sizes),
    );
    let (in_strides, out_strides) = (
        desc.input.strides.as_deref().map(usize_dims),
        desc.output.strides.as_deref().map(usize_dims),
    );
    let input = StridedView {
        bytes: &bytes[0],
        data_type: desc.input.data_type,
        sizes: &in_sizes,
        strides: in_strides.as_deref(),
        offset: 0,
    };
    let mut out = StridedViewMut {
        bytes: &mut out_bytes,
        data_type: desc.output.data_type,
        sizes: &out_sizes,
        strides: out_strides.as_deref(),
        offset: 0,
    };
    let _ = reference::dml_unary(desc.op, &input, &mut out);
}

/// Runs the reference of the family's OpenVINO operations on small inputs, with the right
/// byte counts or not.
fn openvino_family_reference(desc: &OvBinaryDesc, rng: &mut SplitMix64) {
    let xor = BitwiseXorDesc {
        a_type: desc.a_type,
        b_type: desc.b_type,
        a_shape: desc.a_shape.clone(),
        b_shape: desc.b_shape.clone(),
        auto_broadcast: desc.auto_broadcast,
    };
    openvino_reference_of(&xor, desc.op, rng);
}

/// Runs the reference on small OpenVINO inputs, with the right byte counts or not.
fn openvino_reference(desc: &BitwiseXorDesc, rng: &mut SplitMix64) {
    openvino_reference_of(desc, OvBinaryOp::BitwiseXor, rng);
}

/// Runs the reference of `op` on small inputs of `desc`'s types and shapes.
fn openvino_reference_of(desc: &BitwiseXorDesc, op: OvBinaryOp, rng: &mut SplitMix64) {
    const SMALL: u64 = 4096;
    let count = |shape: &[usize]| -> Option<u64> {
        if shape.contains(&0) {
            return Some(0);
        }
        shape
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d as u64))
            .filter(|&n| n <= SMALL)
    };
    let (Some(a), Some(b)) = (count(&desc.a_shape), count(&desc.b_shape)) else {
        return;
    };
    if let Ok(shape) = desc.output_shape() {
        if count(&shape).is_none() {
            return;
        }
    }
    let width = u64::from(desc.a_type.size_in_bytes());
    let mut data = |n: u64| -> Vec<u8> {
        let len = if rng.one_in(8) {
            rng.below(64)
        } else {
            n * width
        };
        (0..len).map(|_| rng.next_u64() as u8).collect()
    };
    let (a_bytes, b_bytes) = (data(a), data(b));
    let _ = if op == OvBinaryOp::BitwiseXor {
        reference::bitwise_xor(
            desc.a_type,
            &desc.a_shape,
            &a_bytes,
            &desc.b_shape,
            &b_bytes,
            desc.auto_broadcast,
        )
    } else {
        reference::ov_binary(
            op,
            desc.a_type,
            &desc.a_shape,
            &a_bytes,
            &desc.b_shape,
            &b_bytes,
            desc.auto_broadcast,
        )
    };
}

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

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(text) => {
            let text = text.trim().replace('_', "");
            let parsed = match text.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => text.parse(),
            };
            parsed.unwrap_or_else(|_| panic!("{name}={text:?} is not a number"))
        }
        Err(_) => default,
    }
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
    let cases = env_u64("GPU_XOR_FUZZ_CASES", DEFAULT_CASES);
    let seed = env_u64("GPU_XOR_FUZZ_SEED", DEFAULT_SEED);
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
    let mut rng = SplitMix64::new(seed);
    for index in 0..cases {
        let case = random_case(&mut rng);
        let case_seed = rng.next_u64();
        check(&mut stats, index, &case, None, case_seed);
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
        assert!(drawn > 0 && valid > 0, "{op}: {drawn} drawn, {valid} valid");
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
