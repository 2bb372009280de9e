//! Property tests: random types, shapes, strides, offsets and binding patterns on the GPU,
//! every byte against the reference.
//!
//! The first two properties draw small layouts of every kind. The rest draw, per kernel
//! family, layouts that land on that family by construction (the rules are
//! `core/src/schedule/select.rs`), check every byte of every buffer against the reference, and
//! check from the [`gpu_xor::inspect::RecordSummary`] that the family's kernel is the one that ran.
//! A last test draws from one broad generator that knows nothing of those rules and counts
//! the calls that reach each kernel.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

use gpu_xor::inspect::{KernelKind, RecordSummary};
use gpu_xor::{AutoBroadcast, DataType, KernelTuning, TensorDesc};
use gpu_xor_testkit::shift_amounts;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;

use crate::common::{
    Check, CheckOv, DmlCase, Operator, OperatorExt, OvCase, assert_kernel, assert_kernels,
    channel_or, ctx, place, random_bytes, scatter_kind, small_windows, tile_kernel, tuned,
};

/// How one tensor is laid out over the shared sizes.
#[derive(Clone, Copy, Debug)]
enum Layout {
    Packed,
    /// Each row padded by this many elements.
    Padded(u32),
    /// Dimensions in reverse order.
    Transposed,
    /// Zero stride on every dimension whose bit is set (inputs only).
    Broadcast(u8),
}

fn strides(sizes: &[u32], layout: Layout) -> Option<Vec<u32>> {
    let rank = sizes.len();
    let mut s = vec![0u32; rank];
    match layout {
        Layout::Packed => return None,
        Layout::Padded(pad) => {
            let mut acc = 1;
            for d in (0..rank).rev() {
                s[d] = acc;
                acc = acc * sizes[d] + if d == rank - 1 { pad } else { 0 };
            }
        }
        Layout::Transposed => {
            let mut acc = 1;
            for d in 0..rank {
                s[d] = acc;
                acc *= sizes[d];
            }
        }
        Layout::Broadcast(mask) => {
            let mut acc = 1;
            for d in (0..rank).rev() {
                s[d] = if mask >> d & 1 == 1 { 0 } else { acc };
                acc *= sizes[d];
            }
        }
    }
    Some(s)
}

fn layout(input: bool) -> BoxedStrategy<Layout> {
    let common = prop_oneof![
        Just(Layout::Packed),
        (1u32..4).prop_map(Layout::Padded),
        Just(Layout::Transposed),
    ];
    if input {
        prop_oneof![common, any::<u8>().prop_map(Layout::Broadcast)].boxed()
    } else {
        common.boxed()
    }
}

#[derive(Clone, Copy, Debug)]
enum Pattern {
    Distinct,
    InPlaceA,
    InPlaceB,
    SameInputs,
    OneBufferDisjoint,
}

fn desc(dt: DataType, sizes: &[u32], layout: Layout) -> TensorDesc {
    let t = TensorDesc::new(dt, sizes);
    match strides(sizes, layout) {
        Some(s) => t.with_strides(&s),
        None => t,
    }
}

fn build(
    op: Operator,
    dt: DataType,
    sizes: &[u32],
    layouts: [Layout; 3],
    offsets: [u64; 3],
    pattern: Pattern,
    seed: u64,
) -> DmlCase {
    let mut a = desc(dt, sizes, layouts[0]);
    let mut b = desc(dt, sizes, layouts[1]);
    let out = desc(dt, sizes, layouts[2]);
    match pattern {
        Pattern::InPlaceA => a = out.clone(),
        Pattern::InPlaceB => b = out.clone(),
        Pattern::SameInputs => b = a.clone(),
        _ => {}
    }
    let mut case = DmlCase::distinct(op, a, b, out, seed);
    let span = |t: &TensorDesc| t.total_size().unwrap();
    match pattern {
        Pattern::Distinct => {
            for (i, b) in case.buffers.iter_mut().enumerate() {
                b.resize(offsets[i] as usize + b.len(), 0x77);
            }
            case.places = [
                place(0, offsets[0]),
                place(1, offsets[1]),
                place(2, offsets[2]),
            ];
        }
        Pattern::InPlaceA => case.places[2] = case.places[0],
        Pattern::InPlaceB => case.places[2] = case.places[1],
        Pattern::SameInputs => case.places[1] = case.places[0],
        Pattern::OneBufferDisjoint => {
            let (sa, sb, so) = (span(&case.a), span(&case.b), span(&case.out));
            let up = |x: u64| x.div_ceil(16) * 16;
            let pa = offsets[0];
            let po = up(pa + sa) + offsets[2];
            let pb = up(po + so) + offsets[1];
            case.buffers = vec![random_bytes(seed, (pb + sb + 64) as usize)];
            case.places = [place(0, pa), place(0, pb), place(0, po)];
        }
    }
    case
}

fn pattern() -> impl Strategy<Value = Pattern> {
    prop_oneof![
        Just(Pattern::Distinct),
        Just(Pattern::InPlaceA),
        Just(Pattern::InPlaceB),
        Just(Pattern::SameInputs),
        Just(Pattern::OneBufferDisjoint),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn bit_xor_matches_reference_everywhere(
        dt in proptest::sample::select(DataType::DIRECTML.to_vec()),
        sizes in proptest::collection::vec(1u32..6, 1..5),
        layouts in (layout(true), layout(true), layout(false)),
        offsets in proptest::array::uniform3((0u64..4).prop_map(|k| k * 16)),
        pattern in pattern(),
        seed in any::<u64>(),
        windows in any::<bool>(),
    ) {
        let case = build(Operator::BitXor, dt, &sizes, [layouts.0, layouts.1, layouts.2], offsets, pattern, seed);
        if windows {
            case.check_on(small_windows());
        } else {
            case.check();
        }
    }

    #[test]
    fn logical_xor_matches_reference_everywhere(
        dt in proptest::sample::select(vec![DataType::U8, DataType::U32]),
        sizes in proptest::collection::vec(1u32..6, 1..5),
        layouts in (layout(true), layout(true), layout(false)),
        pattern in pattern(),
        seed in any::<u64>(),
        sparse in any::<bool>(),
    ) {
        let mut case = build(Operator::LogicalXor, dt, &sizes, [layouts.0, layouts.1, layouts.2], [0, 16, 32], pattern, seed);
        if sparse {
            // Mostly zeros, so that both truth values are common.
            for buf in &mut case.buffers {
                for (i, byte) in buf.iter_mut().enumerate() {
                    if !(i as u64 ^ seed).is_multiple_of(3) { *byte = 0; }
                }
            }
        }
        case.check();
    }
}

// Layouts that land on one kernel family each.
//
// A layout is drawn in coalesced form (a `Core`: the dimensions the kernels will see, the
// output's strides decreasing), then dressed: dimensions split into factors, size-1
// dimensions with arbitrary strides inserted, all dimensions permuted alike. Coalescing undoes
// every one of those, so the dressed description reaches the same kernel as the core while
// the descriptions themselves vary in rank and order.

/// Tensor slots in a [`DmlCase`]'s order.
const TA: usize = 0;
const TB: usize = 1;
const TO: usize = 2;

/// Elements in one 16-byte block: rows on 16-byte boundaries have pitches that are multiples
/// of this.
fn per_block(w: u32) -> u32 {
    16 / w
}

/// Which tensors a binding makes one (same description, same range).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tie {
    None,
    AOut,
    BOut,
    AB,
}

/// Where the three tensors live. Every offset is a multiple of 16 (DirectML rule 4).
#[derive(Clone, Copy, Debug)]
enum Binding {
    /// Three buffers, each tensor this many 16-byte steps into its own.
    Distinct([u8; 3]),
    /// One buffer: A, the output, then B, disjoint, after gaps of this many 16-byte steps.
    OneBuffer([u8; 3]),
    /// A and B overlap in one buffer, B this many 16-byte steps after A (kept inside A's
    /// range); the output in a buffer of its own.
    InputsOverlap(u8),
    /// The output on exactly A's range; B in the same buffer after it when set.
    InPlaceA(bool),
    /// The output on exactly B's range; A in the same buffer after it when set.
    InPlaceB(bool),
    /// B is A; the output in the same buffer after it when set.
    SameInputs(bool),
}

impl Binding {
    /// Whether every buffer holds one range only (tied tensors share it). Cut into windows,
    /// tensors that share a buffer share a binding, and where their rows lie far apart in it
    /// a row no longer fits one window: the pieces then split rows, which only the gather
    /// and scatter kernels take.
    fn apart(self) -> bool {
        matches!(
            self,
            Binding::Distinct(_)
                | Binding::InPlaceA(false)
                | Binding::InPlaceB(false)
                | Binding::SameInputs(false)
        )
    }

    fn tie(self) -> Tie {
        match self {
            Binding::InPlaceA(_) => Tie::AOut,
            Binding::InPlaceB(_) => Tie::BOut,
            Binding::SameInputs(_) => Tie::AB,
            _ => Tie::None,
        }
    }
}

fn steps() -> impl Strategy<Value = [u8; 3]> {
    proptest::array::uniform3(0u8..4)
}

fn binding() -> impl Strategy<Value = Binding> {
    prop_oneof![
        3 => steps().prop_map(Binding::Distinct),
        1 => steps().prop_map(Binding::OneBuffer),
        1 => (0u8..6).prop_map(Binding::InputsOverlap),
        1 => any::<bool>().prop_map(Binding::InPlaceA),
        1 => any::<bool>().prop_map(Binding::InPlaceB),
        1 => any::<bool>().prop_map(Binding::SameInputs),
    ]
}

/// A layout in coalesced form: sizes outermost first, element strides of A, B and the output.
#[derive(Clone, Debug)]
struct Core {
    sizes: Vec<u32>,
    strides: [Vec<u32>; 3],
}

impl Core {
    /// A core whose tied tensors take the strides of the tensor they are tied to.
    fn tied(sizes: Vec<u32>, strides: [Vec<u32>; 3], tie: Tie) -> Core {
        let mut core = Core { sizes, strides };
        core.retie(tie);
        core
    }

    fn retie(&mut self, tie: Tie) {
        match tie {
            Tie::None => {}
            Tie::AOut => self.strides[TA] = self.strides[TO].clone(),
            Tie::BOut => self.strides[TB] = self.strides[TO].clone(),
            Tie::AB => self.strides[TB] = self.strides[TA].clone(),
        }
    }

    /// Whether dimensions `k` and `k + 1` merge for every tensor (coalescing step 3).
    fn merges(&self, k: usize) -> bool {
        self.strides
            .iter()
            .all(|s| s[k] == s[k + 1] * self.sizes[k + 1])
    }

    /// Keeps the two innermost dimensions apart, where every tensor would merge them, by
    /// padding the rows of the inputs not tied to the output by one element.
    fn keep_inner_apart(&mut self, tie: Tie) {
        let r = self.sizes.len();
        if r < 2 || !self.merges(r - 2) {
            return;
        }
        let padded = strides_of(&self.sizes, Input::Padded(1));
        match tie {
            Tie::AOut => self.strides[TB] = padded,
            Tie::AB => self.strides[TA..=TB].fill(padded),
            Tie::None | Tie::BOut => self.strides[TA] = padded,
        }
    }
}

/// Strides over `sizes` whose innermost is `inner` and each outer one the extent of the
/// dimensions inside it, rounded up to a multiple of `align`, plus `pads[d]`; 0 where
/// `zero[d]`.
fn pitched(sizes: &[u32], inner: u32, align: u32, pads: &[u32], zero: &[bool]) -> Vec<u32> {
    let r = sizes.len();
    let mut s = vec![0; r];
    s[r - 1] = if zero[r - 1] { 0 } else { inner };
    let mut extent = inner * sizes[r - 1];
    for d in (0..r - 1).rev() {
        let pitch = extent.div_ceil(align) * align + pads[d];
        s[d] = if zero[d] { 0 } else { pitch };
        extent = pitch * sizes[d];
    }
    s
}

/// How one tensor is laid out over the core's sizes.
#[derive(Clone, Copy, Debug)]
enum Input {
    Packed,
    /// Rows padded by this many elements.
    Padded(u32),
    /// Dimensions in reverse order, the first one's span padded by this many elements.
    Transposed(u32),
    /// Packed, with zero strides on the dimensions whose bit is set (inputs only).
    Broadcast(u8),
    /// Every `k`-th element, rows padded by `pad`: `Stepped(k, pad)`.
    Stepped(u32, u32),
    /// Each row this many elements after the one before: rows overlap (inputs only).
    Sliding(u32),
}

fn strides_of(sizes: &[u32], input: Input) -> Vec<u32> {
    let r = sizes.len();
    let flat = vec![false; r];
    let row_pad = |p: u32| {
        let mut pads = vec![0; r];
        if r >= 2 {
            pads[r - 2] = p;
        }
        pads
    };
    match input {
        Input::Packed => pitched(sizes, 1, 1, &row_pad(0), &flat),
        Input::Padded(p) => pitched(sizes, 1, 1, &row_pad(p), &flat),
        Input::Transposed(p) => {
            let mut s = vec![0; r];
            let mut acc = 1;
            for d in 0..r {
                s[d] = acc;
                acc = acc * sizes[d] + if d == 0 { p } else { 0 };
            }
            s
        }
        Input::Broadcast(mask) => {
            let zero: Vec<bool> = (0..r).map(|d| mask >> d & 1 == 1).collect();
            pitched(sizes, 1, 1, &row_pad(0), &zero)
        }
        Input::Stepped(k, p) => pitched(sizes, k, 1, &row_pad(p), &flat),
        Input::Sliding(step) => {
            let mut s = vec![step; r];
            s[r - 1] = 1;
            s
        }
    }
}

/// Any input layout.
fn any_input() -> impl Strategy<Value = Input> + Clone {
    prop_oneof![
        2 => Just(Input::Packed),
        1 => (1u32..5).prop_map(Input::Padded),
        2 => (0u32..3).prop_map(Input::Transposed),
        2 => any::<u8>().prop_map(Input::Broadcast),
        1 => (2u32..4, 0u32..3).prop_map(|(k, p)| Input::Stepped(k, p)),
        1 => (1u32..5).prop_map(Input::Sliding),
    ]
}

/// Input layouts that read each row forwards or repeat one element along it (innermost
/// stride 1 or 0): never the tile kernel's, and the rows kernel's where rows allow.
fn row_input() -> impl Strategy<Value = Input> + Clone {
    prop_oneof![
        2 => Just(Input::Packed),
        1 => (1u32..5).prop_map(Input::Padded),
        2 => any::<u8>().prop_map(Input::Broadcast),
        1 => (1u32..5).prop_map(Input::Sliding),
    ]
}

/// Outer sizes (each at least 2, so that coalescing keeps them).
fn outer(ranks: std::ops::RangeInclusive<usize>, most: u32) -> impl Strategy<Value = Vec<u32>> {
    vec(2u32..=most, ranks)
}

/// What dressing does to a core.
#[derive(Clone, Debug)]
struct Dress {
    /// Per core dimension, a factor to split it by (used where it divides the size and lies
    /// strictly between 1 and the size).
    splits: Vec<u32>,
    /// Size-1 dimensions to insert: position and stride (the stride of a size-1 dimension
    /// never matters, so it may be anything).
    ones: Vec<(usize, u32)>,
    /// Seed of the permutation applied to the dimensions of every tensor alike.
    shuffle: u64,
    /// Whether a tensor whose strides are the packed ones is given none (DirectML's default).
    implicit: bool,
}

fn dress() -> impl Strategy<Value = Dress> {
    (
        vec(prop_oneof![2 => Just(0u32), 1 => 2u32..6], 3),
        vec((0usize..8, any::<u32>()), 0..3),
        any::<u64>(),
        any::<bool>(),
    )
        .prop_map(|(splits, ones, shuffle, implicit)| Dress {
            splits,
            ones,
            shuffle,
            implicit,
        })
}

impl Dress {
    /// Sizes and, per tensor, strides of the dressed layout.
    fn apply(&self, core: &Core) -> (Vec<u32>, [Option<Vec<u32>>; 3]) {
        let mut sizes = Vec::new();
        let mut strides: [Vec<u32>; 3] = Default::default();
        for (k, &n) in core.sizes.iter().enumerate() {
            let f = self.splits.get(k).copied().unwrap_or(0);
            if f > 1 && f < n && n.is_multiple_of(f) {
                sizes.extend([n / f, f]);
                for (t, s) in strides.iter_mut().enumerate() {
                    let inner = core.strides[t][k];
                    s.extend([inner * f, inner]);
                }
            } else {
                sizes.push(n);
                for (t, s) in strides.iter_mut().enumerate() {
                    s.push(core.strides[t][k]);
                }
            }
        }
        for &(at, stride) in &self.ones {
            if sizes.len() < 8 {
                let at = at % (sizes.len() + 1);
                sizes.insert(at, 1);
                for s in &mut strides {
                    s.insert(at, stride);
                }
            }
        }
        let order = permutation(sizes.len(), self.shuffle);
        let sizes: Vec<u32> = order.iter().map(|&d| sizes[d]).collect();
        let packed = strides_of(&sizes, Input::Packed);
        let strides = strides.map(|s| {
            let s: Vec<u32> = order.iter().map(|&d| s[d]).collect();
            (!(self.implicit && s == packed)).then_some(s)
        });
        (sizes, strides)
    }
}

/// A permutation of `0..n` from a seed (Fisher-Yates over SplitMix64).
fn permutation(n: usize, seed: u64) -> Vec<usize> {
    let mut rng = gpu_xor_testkit::SplitMix64::new(seed);
    let mut p: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        p.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
    }
    p
}

/// A DirectML call: the dressed descriptions, where they live, and how it runs.
#[derive(Clone, Debug)]
struct DmlSpec {
    op: Operator,
    dt: DataType,
    sizes: Vec<u32>,
    /// A, B, Output (`None`: packed, no strides given).
    strides: [Option<Vec<u32>>; 3],
    binding: Binding,
    seed: u64,
    /// Run with 4 KiB windows, so that the call is cut into pieces.
    windows: bool,
    /// Mostly zero inputs, so that LOGICAL_XOR sees both truth values.
    sparse: bool,
}

impl DmlSpec {
    fn desc(&self, t: usize) -> TensorDesc {
        let desc = TensorDesc::new(self.dt, &self.sizes);
        match &self.strides[t] {
            Some(s) => desc.with_strides(s),
            None => desc,
        }
    }

    fn case(&self) -> DmlCase {
        let (a, b, out) = (self.desc(TA), self.desc(TB), self.desc(TO));
        let span = [&a, &b, &out].map(|t| t.total_size().unwrap());
        let up = |x: u64| x.div_ceil(16) * 16;
        // Random bytes up to `end`, and 48 more: every byte outside the output's elements
        // must keep what it held.
        let fresh = |k: u64, end: u64| random_bytes(self.seed ^ (k << 56), up(end + 48) as usize);
        let mut case = DmlCase::distinct(self.op, a, b, out, self.seed);
        match self.binding {
            Binding::Distinct(steps) => {
                for t in 0..3 {
                    let at = u64::from(steps[t]) * 16;
                    case.buffers[t] = fresh(t as u64, at + span[t]);
                    case.places[t] = place(t, at);
                }
            }
            Binding::OneBuffer(gaps) => {
                let gap = |k: usize| u64::from(gaps[k]) * 16;
                let pa = gap(0);
                let po = up(pa + span[TA]) + gap(1);
                let pb = up(po + span[TO]) + gap(2);
                case.buffers = vec![fresh(0, pb + span[TB])];
                case.places = [place(0, pa), place(0, pb), place(0, po)];
            }
            Binding::InputsOverlap(shift) => {
                let pb = 16 + 16 * (u64::from(shift) % span[TA].div_ceil(16));
                let end = (16 + span[TA]).max(pb + span[TB]);
                case.buffers = vec![fresh(0, end), fresh(1, 32 + span[TO])];
                case.places = [place(0, 16), place(0, pb), place(1, 32)];
            }
            Binding::InPlaceA(shared) | Binding::InPlaceB(shared) | Binding::SameInputs(shared) => {
                // The first tensor of the tie at 32 in buffer 0; the remaining one after it
                // in the same buffer, or in buffer 1.
                let (first, rest) = match self.binding {
                    Binding::InPlaceA(_) => (TA, TB),
                    Binding::InPlaceB(_) => (TB, TA),
                    _ => (TA, TO),
                };
                case.places = [place(0, 32); 3];
                if shared {
                    let at = up(32 + span[first]) + 16;
                    case.buffers = vec![fresh(0, at + span[rest])];
                    case.places[rest] = place(0, at);
                } else {
                    case.buffers = vec![fresh(0, 32 + span[first]), fresh(1, 32 + span[rest])];
                    case.places[rest] = place(1, 32);
                }
            }
        }
        if self.op.shifts() {
            // Mostly amounts in range, a few just past the width, some random.
            let width = u64::from(self.dt.size_in_bytes());
            shift_amounts(&mut case.buffers[case.places[TB].buffer], width, self.seed);
        }
        if self.sparse {
            // Two bytes in three zero, so that whole elements are often zero.
            for buf in &mut case.buffers {
                for (i, byte) in buf.iter_mut().enumerate() {
                    if !(i as u64 ^ self.seed).is_multiple_of(3) {
                        *byte = 0;
                    }
                }
            }
        }
        case
    }

    /// Runs the call and checks every byte of every buffer against the reference.
    fn run(&self) -> RecordSummary {
        let case = self.case();
        case.check_on(if self.windows { small_windows() } else { ctx() })
    }
}

/// An operator of two inputs and a type it takes: every element function of the family, on
/// raw bits for every type, on truth values for about a third of the `u8` and `u32` draws,
/// the shifts (which need each element's width and lanes) for about a third of the unsigned
/// draws (the one-input operators have [`not_runs_every_kernel_as_its_binary_twin`]).
fn op_and_type(types: &[DataType]) -> impl Strategy<Value = (Operator, DataType)> + use<> {
    (
        proptest::sample::select(types.to_vec()),
        0usize..3,
        0usize..3,
    )
        .prop_map(|(dt, kind, f)| {
            let unsigned = matches!(
                dt,
                DataType::U8 | DataType::U16 | DataType::U32 | DataType::U64
            );
            let ops = match kind {
                1 if matches!(dt, DataType::U8 | DataType::U32) => [
                    Operator::LogicalXor,
                    Operator::LogicalAnd,
                    Operator::LogicalOr,
                ],
                2 if unsigned => [
                    Operator::BitShiftLeft,
                    Operator::BitShiftRight,
                    Operator::BitShiftLeft,
                ],
                _ => [Operator::BitXor, Operator::BitAnd, Operator::BitOr],
            };
            (ops[f], dt)
        })
}

/// A DirectML call whose core comes from `core` (given the element width and the binding);
/// `core` also says whether the layout stays on its kernel when cut into windows.
fn dml_call<F, S>(types: &[DataType], core: F) -> impl Strategy<Value = DmlSpec> + use<F, S>
where
    F: Fn(u32, Binding) -> S + 'static,
    S: Strategy<Value = (Core, bool)> + 'static,
{
    (op_and_type(types), binding())
        .prop_flat_map(move |((op, dt), binding)| {
            (
                Just((op, dt, binding)),
                core(dt.size_in_bytes(), binding),
                dress(),
                any::<u64>(),
                any::<bool>(),
                any::<bool>(),
            )
        })
        .prop_map(
            |((op, dt, binding), (core, windows_keep), dress, seed, windows, sparse)| {
                let (sizes, strides) = dress.apply(&core);
                DmlSpec {
                    op,
                    dt,
                    sizes,
                    strides,
                    binding,
                    seed,
                    windows: windows && windows_keep,
                    sparse: sparse && op.logical(),
                }
            },
        )
}

/// Contiguous: all three tensors dense in the same order, so that coalescing leaves one
/// dense dimension; DirectML offsets are multiples of 16, so the vec4 kernel runs. Cut into
/// windows, pieces start on 64-byte boundaries, as long as each window can hold 64 bytes of
/// every tensor bound through it.
fn contiguous_core(_w: u32, binding: Binding) -> BoxedStrategy<(Core, bool)> {
    prop_oneof![1u32..=64, 65u32..=5000]
        .prop_map(move |n| {
            let one = vec![1];
            let core = Core {
                sizes: vec![n],
                strides: [one.clone(), one.clone(), one],
            };
            (core, binding.apart())
        })
        .boxed()
}

/// Rows: rows of 113 to 512 bytes (at least 8 blocks of 16), dense in the output and dense
/// or repeated (innermost stride 0) in each input; every tensor read along its rows has
/// 16-byte pitches (padding in whole blocks) and starts on a 16-byte boundary. Something
/// (padding or broadcasting) keeps the rows apart so that coalescing leaves rank 2 or 3.
/// Cut into windows, each piece keeps those rows and pitches, as long as whole rows fit.
fn rows_core(w: u32, binding: Binding) -> BoxedStrategy<(Core, bool)> {
    let (q, tie) = (per_block(w), binding.tie());
    // Per input: innermost stride 0 (else 1), zero outer strides, pads in blocks (or, for an
    // innermost stride of 0, the outer strides themselves: nothing is read along the row).
    let input = (any::<bool>(), vec(any::<bool>(), 2), vec(0u32..3, 2));
    (
        prop_oneof![outer(1..=1, 10), outer(2..=2, 4)],
        (112 / w + 1)..=(512 / w),
        vec(0u32..3, 2),
        input.clone(),
        input,
    )
        .prop_map(move |(mut sizes, c, out_pads, ia, ib)| {
            sizes.push(c);
            let r = sizes.len();
            let flat = vec![false; r];
            let blocks = |pads: &[u32]| -> Vec<u32> { pads.iter().map(|p| p * q).collect() };
            let input = |(repeat, zero, pads): (bool, Vec<bool>, Vec<u32>)| -> Vec<u32> {
                if repeat {
                    let mut s: Vec<u32> = (0..r - 1)
                        .map(|d| if zero[d] { 0 } else { pads[d] })
                        .collect();
                    s.push(0);
                    s
                } else {
                    let mut zero = zero[..r - 1].to_vec();
                    zero.push(false);
                    pitched(&sizes, 1, q, &blocks(&pads), &zero)
                }
            };
            let mut out_pads = blocks(&out_pads);
            let out = pitched(&sizes, 1, q, &out_pads, &flat);
            let mut core = Core::tied(sizes.clone(), [input(ia), input(ib), out], tie);
            if (0..r - 1).all(|k| core.merges(k)) {
                // Everything packed: pad the output's rows by one block.
                out_pads[r - 2] += q;
                core.strides[TO] = pitched(&sizes, 1, q, &out_pads, &flat);
                core.retie(tie);
            }
            (core, binding.apart())
        })
        .boxed()
}

/// Tile: rank 2, or a batch of 2 to 4 matrices (rank 3, each matrix's span apart in every
/// tensor, by a few elements more in the tiled input), a dense output and an input whose
/// inner stride is above 1 and above the one before it (transposed, transposed every other
/// element, or one row read with a step and repeated); the other input anything that keeps
/// the rank. For 8- and 16-bit elements the row length is a multiple of the elements in a
/// word, so that output rows hold whole words. These run whole: 4 KiB windows would cut most
/// of them into pieces of part of a row, which the gather kernel takes.
fn tile_core(w: u32, binding: Binding) -> BoxedStrategy<(Core, bool)> {
    let tie = binding.tie();
    let side = || prop_oneof![3 => 33u32..=80, 1 => 2u32..=32];
    let tiled = prop_oneof![
        (0u32..3).prop_map(|p| (0u8, p)),
        (0u32..3).prop_map(|p| (1u8, p)),
        (2u32..6).prop_map(|k| (2u8, k)),
    ];
    let other = prop_oneof![
        2 => Just(Input::Packed),
        1 => (1u32..5).prop_map(Input::Padded),
        2 => (0u32..4).prop_map(|m| Input::Broadcast(m as u8)),
        1 => (1u32..5).prop_map(Input::Sliding),
        2 => (0u32..3).prop_map(Input::Transposed),
    ];
    let batch = prop_oneof![3 => Just(None), 1 => (2u32..=4, 0u32..3).prop_map(Some)];
    (side(), side(), tiled, other, any::<bool>(), batch)
        .prop_map(move |(r, c, (kind, p), other, swap, batch)| {
            let c = if w < 4 { c.next_multiple_of(4 / w) } else { c };
            let mut sizes = vec![r, c];
            let mut out = vec![c, 1];
            let mut tiled = match kind {
                0 => vec![1, r + p],
                1 => vec![2, 2 * r + p],
                _ => vec![0, p],
            };
            if let Some((n, extra)) = batch {
                // Each matrix after the whole of the one before (a 3-D permutation that swaps
                // the two inner axes, its matrices padded apart).
                let span = |s: &[u32]| (r - 1) * s[0] + (c - 1) * s[1] + 1;
                sizes.insert(0, n);
                tiled.insert(0, span(&tiled) + extra);
                out.insert(0, r * c);
            }
            let other = strides_of(&sizes, other);
            let [a, b] = match tie {
                Tie::AOut => [out.clone(), tiled],
                Tie::BOut => [tiled, out.clone()],
                Tie::AB => [tiled.clone(), tiled],
                Tie::None if swap => [other, tiled],
                Tie::None => [tiled, other],
            };
            (Core::tied(sizes, [a, b, out], tie), false)
        })
        .boxed()
}

/// Scatter: an output that stays strided after coalescing and that neither the rows nor the
/// shifted-rows kernel can take: every k-th element (k from 2), rows of less than 64 bytes
/// with padding (inputs anything), or longer padded rows whose pitch is not a multiple of 16
/// bytes with inputs that are not read along their rows. The first two stay scatter in every
/// window; a one-row piece of the third may start on a 16-byte boundary, so it runs whole.
fn scatter_core(w: u32, binding: Binding) -> BoxedStrategy<(Core, bool)> {
    let (q, tie) = (per_block(w), binding.tie());
    let stepped = (
        prop_oneof![Just(vec![]), outer(1..=2, 6)],
        2u32..=200,
        2u32..=4,
        vec(0u32..3, 3),
        any_input(),
        any_input(),
    )
        .prop_map(|(mut sizes, c, k, pads, ia, ib)| {
            sizes.push(c);
            let out = pitched(&sizes, k, 1, &pads, &vec![false; sizes.len()]);
            (sizes, out, true, ia, ib)
        });
    let short = (
        outer(1..=2, 10),
        2u32..=(63 / w),
        1u32..4,
        0u32..3,
        any_input(),
        any_input(),
    )
        .prop_map(|(mut sizes, c, row_pad, pad, ia, ib)| {
            sizes.push(c);
            let r = sizes.len();
            let mut pads = vec![pad; r];
            pads[r - 2] = row_pad;
            let out = pitched(&sizes, 1, 1, &pads, &vec![false; r]);
            (sizes, out, true, ia, ib)
        });
    let across = prop_oneof![
        (0u32..3).prop_map(Input::Transposed),
        (2u32..4, 0u32..3).prop_map(|(k, p)| Input::Stepped(k, p)),
    ];
    let misaligned = (
        outer(1..=2, 5),
        (112 / w + 1)..=(512 / w),
        1u32..=32,
        0u32..3,
        across.clone(),
        across,
    )
        .prop_map(move |(mut sizes, c, row_pad, pad, ia, ib)| {
            sizes.push(c);
            let out = misaligned_rows(&sizes, q, row_pad, pad);
            (sizes, out, false, ia, ib)
        });
    prop_oneof![stepped, short, misaligned]
        .prop_map(move |(sizes, out, windows, ia, ib)| {
            let (a, b) = (strides_of(&sizes, ia), strides_of(&sizes, ib));
            (Core::tied(sizes, [a, b, out], tie), windows)
        })
        .boxed()
}

/// Output strides for rows of `sizes` padded so that the row pitch is not a multiple of
/// `q` elements (16 bytes): rows padded by `row_pad` (one more where that lands on a
/// multiple), outer dimensions by `pad`.
fn misaligned_rows(sizes: &[u32], q: u32, row_pad: u32, pad: u32) -> Vec<u32> {
    let r = sizes.len();
    let c = sizes[r - 1];
    let mut pads = vec![pad; r];
    pads[r - 2] = if (c + row_pad).is_multiple_of(q) {
        row_pad + 1
    } else {
        row_pad
    };
    pitched(sizes, 1, 1, &pads, &vec![false; r])
}

/// Shifted rows: rows of 113 to 512 bytes, dense in the output and read forwards or repeated
/// in each input, that do not all start on a 16-byte boundary: padded output rows whose
/// pitch is not a multiple of 16 bytes, or a packed output whose row length is not, with
/// inputs that keep the rows apart. A one-row window piece may start on a boundary and take
/// the rows kernel, so these run whole.
fn shifted_core(w: u32, binding: Binding) -> BoxedStrategy<(Core, bool)> {
    let (q, tie) = (per_block(w), binding.tie());
    let padded = (
        outer(1..=2, 5),
        (112 / w + 1)..=(512 / w),
        1u32..=32,
        0u32..3,
        row_input(),
        row_input(),
    )
        .prop_map(move |(mut sizes, c, row_pad, pad, ia, ib)| {
            sizes.push(c);
            let out = misaligned_rows(&sizes, q, row_pad, pad);
            let [a, b] = [ia, ib].map(|i| strides_of(&sizes, i));
            Core::tied(sizes, [a, b, out], tie)
        });
    let packed = (
        2u32..=8,
        (112 / w + 1)..=(512 / w),
        row_input(),
        row_input(),
    )
        .prop_map(move |(r, c, ia, ib)| {
            let c = if c.is_multiple_of(q) { c + 1 } else { c };
            let sizes = vec![r, c];
            let out = strides_of(&sizes, Input::Packed);
            let [a, b] = [ia, ib].map(|i| strides_of(&sizes, i));
            let mut core = Core::tied(sizes, [a, b, out], tie);
            core.keep_inner_apart(tie);
            core
        });
    prop_oneof![padded, packed]
        .prop_map(|core| (core, false))
        .boxed()
}

/// Gather: a dense output with inputs that neither the rows, the shifted-rows nor the tile
/// kernel takes:
/// - one dimension with a strided input, or with a broadcast one under 64 bytes;
/// - rows of less than 64 bytes (inputs read forwards or repeated);
/// - an input that reads every k-th element;
/// - a transposed input of 8- or 16-bit elements whose output rows do not hold whole words
///   (rank 2), or of any width at rank 4 (a batch of matrices, rank 3, tiles).
///
/// Windows keep the first two and the stepped inputs on the gather kernel; elsewhere a piece
/// may go to the rows, shifted-rows or tile kernel, so those run whole.
fn gather_core(w: u32, binding: Binding) -> BoxedStrategy<(Core, bool)> {
    let tie = binding.tie();
    let narrow = w < 4;
    let one_dim = (2u32..=2000, 0u32..4, 0u32..4).prop_map(move |(n, mut sa, mut sb)| {
        match tie {
            Tie::None if sa == 1 && sb == 1 => sb = 0,
            Tie::None => {}
            Tie::AOut | Tie::BOut => {
                // The tied input is dense; the other one must not be.
                sa = if sa == 1 { 0 } else { sa };
                sb = sa;
            }
            Tie::AB => sa = if sa == 1 { 2 } else { sa },
        }
        // Read forwards or repeated, one dimension takes the shifted-rows kernel from 64
        // bytes.
        let (ea, eb) = match tie {
            Tie::AOut => (1, sb),
            Tie::BOut => (sa, 1),
            Tie::AB => (sa, sa),
            Tie::None => (sa, sb),
        };
        let n = if ea <= 1 && eb <= 1 { n.min(63 / w) } else { n };
        let (a, b) = (vec![sa], vec![sb]);
        (Core::tied(vec![n], [a, b, vec![1]], tie), true)
    });
    let short = (outer(1..=2, 10), 2u32..=(63 / w), row_input(), row_input()).prop_map(
        move |(mut sizes, c, ia, ib)| {
            sizes.push(c);
            let out = strides_of(&sizes, Input::Packed);
            let [a, b] = [ia, ib].map(|i| strides_of(&sizes, i));
            let mut core = Core::tied(sizes, [a, b, out], tie);
            core.keep_inner_apart(tie);
            (core, true)
        },
    );
    let special = move |sizes: Vec<u32>, special: Vec<u32>, other: Input, swap: bool, windows| {
        let out = strides_of(&sizes, Input::Packed);
        let other = strides_of(&sizes, other);
        let [a, b] = match tie {
            Tie::AOut => [out.clone(), special],
            Tie::BOut => [special, out.clone()],
            Tie::AB => [special.clone(), special],
            Tie::None if swap => [other, special],
            Tie::None => [special, other],
        };
        (Core::tied(sizes, [a, b, out], tie), windows)
    };
    let non_tiled = prop_oneof![
        row_input(),
        (2u32..4, 0u32..3).prop_map(|(k, p)| Input::Stepped(k, p)),
    ];
    let stepped = (
        outer(1..=2, 8),
        2u32..=100,
        2u32..=4,
        0u32..3,
        non_tiled,
        any::<bool>(),
    )
        .prop_map(move |(mut sizes, c, k, p, other, swap)| {
            sizes.push(c);
            let s = strides_of(&sizes, Input::Stepped(k, p));
            special(sizes, s, other, swap, narrow)
        });
    let transposed = (
        if narrow {
            outer(2..=2, 60).boxed()
        } else {
            outer(4..=4, 6).boxed()
        },
        0u32..3,
        any_input(),
        any::<bool>(),
    )
        .prop_map(move |(mut sizes, p, other, swap)| {
            if narrow {
                // An odd row length: output rows that do not hold whole words, which the tile
                // kernel leaves to the gather kernel.
                sizes[1] |= 1;
            }
            let s = strides_of(&sizes, Input::Transposed(p));
            // A window piece may hold whole words per row and take the tile kernel.
            special(sizes, s, other, swap, false)
        });
    prop_oneof![one_dim, short, stepped, transposed].boxed()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn contiguous_layouts_run_the_contiguous_kernel(
        spec in dml_call(&DataType::DIRECTML, contiguous_core),
    ) {
        assert_kernel(&spec.run(), KernelKind::Contiguous);
    }

    #[test]
    fn long_aligned_rows_run_the_rows_kernel(spec in dml_call(&DataType::DIRECTML, rows_core)) {
        // Unless an input repeats one element across each row: then the contiguous kernel
        // (a channel broadcast) or the shifted-rows kernel. A window piece of one row is no
        // channel broadcast, and a piece may be one where the whole is not: a call cut into
        // windows may mix them (a call of one piece runs the oracle's kernel).
        let case = spec.case();
        let kernel = gpu_xor_testkit::expect::rows_kernel(&case.out, [&case.a, &case.b]);
        let kernels = if kernel == KernelKind::Contiguous {
            vec![kernel, KernelKind::ShiftedRows]
        } else {
            vec![kernel, KernelKind::Contiguous]
        };
        assert_kernels(&spec.run(), &kernels);
    }

    #[test]
    fn transposed_inputs_run_the_tile_kernel(spec in dml_call(&DataType::DIRECTML, tile_core)) {
        // Both tunings on every adapter: where both inputs are read across their rows, a
        // context tuned for a CPU writes 32- and 64-bit elements in the inputs' order.
        let case = spec.case();
        for tuning in [KernelTuning::Gpu, KernelTuning::Cpu] {
            let kernel = tile_kernel(&case.out, [&case.a, &case.b], tuning);
            assert_kernel(&case.check_on(tuned(tuning)), kernel);
        }
    }

    #[test]
    fn long_rows_off_16_byte_boundaries_run_the_shifted_rows_kernel(
        spec in dml_call(&DataType::DIRECTML, shifted_core),
    ) {
        // Unless the output's rows are packed and an input repeats one element per row.
        assert_kernels(&spec.run(), &channel_or(&spec.case(), KernelKind::ShiftedRows));
    }

    #[test]
    fn strided_outputs_run_the_scatter_kernel(
        spec in dml_call(&DataType::DIRECTML, scatter_core),
    ) {
        // Words that output elements share written by their owner, lanes stored alone where
        // no element shares a word; a window's piece may be spaced where the whole is not.
        let summary = spec.run();
        if spec.windows {
            prop_assert!(
                summary
                    .dispatches
                    .iter()
                    .all(|k| matches!(k, KernelKind::Scatter | KernelKind::Spaced)),
                "{summary:?}"
            );
        } else {
            assert_kernel(&summary, scatter_kind(&spec.case().out));
        }
    }

    #[test]
    fn other_strided_inputs_run_the_gather_kernel(
        spec in dml_call(&DataType::DIRECTML, gather_core),
    ) {
        assert_kernels(&spec.run(), &channel_or(&spec.case(), KernelKind::Gather));
    }

    #[test]
    fn bitwise_xor_broadcasts_run_their_kernel(spec in bitwise_xor_call()) {
        let (_, summary) = spec.case().check_on(if spec.windows { small_windows() } else { ctx() });
        assert_kernel(&summary, spec.kernel);
    }
}

/// An OpenVINO call and the kernel it must run.
#[derive(Clone, Debug)]
struct OvSpec {
    dt: DataType,
    a_shape: Vec<usize>,
    b_shape: Vec<usize>,
    broadcast: AutoBroadcast,
    /// Byte offsets of A, B and the output.
    offsets: [u64; 3],
    out_on_a: bool,
    seed: u64,
    windows: bool,
    kernel: KernelKind,
}

impl OvSpec {
    fn case(&self) -> OvCase {
        let mut case = OvCase::new(
            self.dt,
            &self.a_shape,
            &self.b_shape,
            self.broadcast,
            self.seed,
        );
        case.offsets = self.offsets;
        case.out_on_a = self.out_on_a;
        case
    }
}

/// A shape of `rank` dimensions of 1 to 9 (about a quarter of them 1).
fn shape(rank: std::ops::RangeInclusive<usize>) -> impl Strategy<Value = Vec<usize>> {
    vec(prop_oneof![1 => Just(1usize), 3 => 2usize..=9], rank)
}

/// A and B shapes, the broadcast rule, and whether the output's shape is A's.
type DensePair = (Vec<usize>, Vec<usize>, AutoBroadcast, bool);

/// Two shapes whose broadcast adds only size-1 dimensions: the tensors stay dense.
fn dense_pair() -> impl Strategy<Value = DensePair> {
    (shape(0..=4), 0usize..3, 0u8..5).prop_map(|(s, ones, form)| {
        let longer: Vec<usize> = std::iter::repeat_n(1, ones)
            .chain(s.iter().copied())
            .collect();
        match form {
            0 => (s.clone(), s, AutoBroadcast::None, true),
            1 => (s.clone(), s, AutoBroadcast::Numpy, true),
            2 => (longer, s, AutoBroadcast::PDPD, true),
            3 => (longer, s, AutoBroadcast::Numpy, true),
            _ => (s, longer, AutoBroadcast::Numpy, ones == 0),
        }
    })
}

/// Offsets of A, B and the output: multiples of 16, or (with `misaligned`) multiples of the
/// element size and 4 with at least one used offset off a 16-byte boundary.
fn ov_offsets(w: u32, misaligned: bool, out_on_a: bool, raw: [u64; 3]) -> [u64; 3] {
    let unit = u64::from(w.max(4));
    if !misaligned {
        return raw.map(|k| k % 4 * 16);
    }
    let mut offsets = raw.map(|k| k * unit);
    let used = if out_on_a { 2 } else { 3 };
    if offsets[..used].iter().all(|o| o.is_multiple_of(16)) {
        offsets[1] += unit;
    }
    offsets
}

/// The shapes of a BitwiseXor-13 call and what they lead to.
struct OvShapes {
    a: Vec<usize>,
    b: Vec<usize>,
    broadcast: AutoBroadcast,
    /// Whether the output's shape is A's (so that it may run in place).
    a_is_out: bool,
    /// Whether some offset must be off a 16-byte boundary.
    misalign: bool,
    kernel: KernelKind,
    /// Whether the call stays on `kernel` when cut into windows.
    windows: bool,
}

/// Sizes a BitwiseXor-13 form draws from.
#[derive(Clone, Copy, Debug)]
struct OvSizes {
    /// Rows (2 to 8).
    r: usize,
    /// An outer dimension (2 or 3).
    x: usize,
    /// Long rows in 16-byte blocks (8 to 32).
    blocks: usize,
    /// A free count (2 to 60).
    c: usize,
    /// Which of two variants.
    flip: bool,
}

/// Form `form` of a BitwiseXor-13 call with `w`-byte elements.
fn ov_shapes(form: u8, w: usize, dense: DensePair, z: OvSizes) -> OvShapes {
    let OvSizes { r, x, c, flip, .. } = z;
    // Rows of 8 to 32 blocks; rows of less than 64 bytes; longer rows off 16-byte pitches.
    let long = z.blocks * 16 / w;
    let short = 2 + c % (63 / w - 1);
    let misaligned = ((112 / w + 1) + c * 16 / w / 2) | 1;
    let shapes = |a: Vec<usize>, b: Vec<usize>, broadcast, a_is_out, kernel| OvShapes {
        a,
        b,
        broadcast,
        a_is_out,
        misalign: false,
        kernel,
        windows: true,
    };
    let numpy = AutoBroadcast::Numpy;
    match form {
        // Shapes that add only size-1 dimensions: one dense run.
        0 => shapes(dense.0, dense.1, dense.2, dense.3, KernelKind::Contiguous),
        // The same off 16-byte boundaries.
        1 => OvShapes {
            misalign: true,
            ..one_run(
                shapes(dense.0, dense.1, dense.2, dense.3, KernelKind::Gather),
                w,
            )
        },
        // A row repeated over rows, a column over columns, or both; either input the larger.
        2 => {
            let (a, b) = match r % 3 {
                0 => (vec![r, long], vec![long]),
                1 => (vec![r, long], vec![r, 1]),
                _ => (vec![r, 1], vec![1, long]),
            };
            let a_is_out = r % 3 != 2;
            // A column ([r, 1]) repeats one element across each row: against a dense input a
            // channel broadcast (the contiguous kernel), against a repeated row the
            // shifted-rows kernel (`expect::rows_kernel`); a row repeated over rows keeps the
            // rows kernel.
            let kernel = match r % 3 {
                0 => KernelKind::Rows,
                1 => KernelKind::Contiguous,
                _ => KernelKind::ShiftedRows,
            };
            // A window piece of one row is no channel broadcast: windows only elsewhere.
            let windows = kernel != KernelKind::Contiguous;
            if flip {
                OvShapes {
                    windows,
                    ..shapes(b, a, numpy, false, kernel)
                }
            } else {
                OvShapes {
                    windows,
                    ..shapes(a, b, numpy, a_is_out, kernel)
                }
            }
        }
        // Rank 3, B repeated along the outermost and the innermost dimension. A window piece
        // of one outer index is a channel broadcast (the contiguous kernel): no windows.
        3 => OvShapes {
            windows: false,
            ..shapes(
                vec![x, r, long],
                vec![r, 1],
                numpy,
                true,
                KernelKind::ShiftedRows,
            )
        },
        // pdpd: B lines up with A's first two dimensions, or with its last two. The latter
        // leaves rows of `r` rows, up to 4 KiB: windows of 4 KiB would cut them.
        4 => {
            let (b, axis) = if flip {
                (vec![x, r], 0)
            } else {
                (vec![r, long], -1)
            };
            let pdpd = AutoBroadcast::Pdpd { axis };
            // B on the first two dimensions repeats one element across each row: a channel
            // broadcast.
            let kernel = if flip {
                KernelKind::Contiguous
            } else {
                KernelKind::Rows
            };
            // A window piece of one row is no channel broadcast (`flip`); without `flip`,
            // windows of 4 KiB would cut rows of more.
            OvShapes {
                windows: !flip && r * long * w <= 2048,
                ..shapes(vec![x, r, long], b, pdpd, true, kernel)
            }
        }
        // One element against many, aligned or not.
        5 => {
            let b = if flip { vec![] } else { vec![1] };
            OvShapes {
                misalign: flip,
                ..one_run(shapes(vec![r, x, c], b, numpy, true, KernelKind::Gather), w)
            }
        }
        // Short rows, one input repeated along them or across them: a channel broadcast
        // where a row holds 16 bytes, else gathered.
        6 => {
            let b = if flip { vec![short] } else { vec![r, 1] };
            let kernel = if !flip && short * w >= 16 {
                KernelKind::Contiguous
            } else {
                KernelKind::Gather
            };
            OvShapes {
                windows: kernel != KernelKind::Contiguous,
                ..shapes(vec![r, short], b, numpy, true, kernel)
            }
        }
        // Long rows off 16-byte pitches; a one-row window piece may start on a 16-byte
        // boundary and take the rows kernel, so no windows.
        _ => OvShapes {
            windows: false,
            ..shapes(
                vec![r, misaligned],
                vec![misaligned],
                numpy,
                true,
                KernelKind::ShiftedRows,
            )
        },
    }
}

/// A call that coalesces to one run, off 16-byte boundaries or repeating one element: the
/// shifted-rows kernel from 64 bytes, run whole (a window piece may be shorter or aligned),
/// else the gather kernel.
fn one_run(shapes: OvShapes, w: usize) -> OvShapes {
    let elements: usize = shapes
        .a
        .iter()
        .product::<usize>()
        .max(shapes.b.iter().product());
    if elements * w >= 64 {
        OvShapes {
            kernel: KernelKind::ShiftedRows,
            windows: false,
            ..shapes
        }
    } else {
        shapes
    }
}

/// BitwiseXor-13 calls (OpenVINO types, broadcasting) that land on the contiguous, rows or
/// gather kernel. (The output is always packed, so the scatter kernel never runs; a packed
/// input, broadcast or not, is never read transposed, so the tile kernel never runs.)
fn bitwise_xor_call() -> impl Strategy<Value = OvSpec> {
    let sizes = (
        2usize..=8,
        2usize..=3,
        8usize..=32,
        2usize..=60,
        any::<bool>(),
    )
        .prop_map(|(r, x, blocks, c, flip)| OvSizes {
            r,
            x,
            blocks,
            c,
            flip,
        });
    (
        proptest::sample::select(DataType::OPENVINO.to_vec()),
        0u8..8,
        dense_pair(),
        sizes,
        proptest::array::uniform3(0u64..16),
        (any::<bool>(), any::<u64>(), any::<bool>()),
    )
        .prop_map(|(dt, form, dense, sizes, raw, (in_place, seed, windows))| {
            let w = dt.size_in_bytes();
            let shapes = ov_shapes(form, w as usize, dense, sizes);
            let out_on_a = in_place && shapes.a_is_out;
            OvSpec {
                dt,
                a_shape: shapes.a,
                b_shape: shapes.b,
                broadcast: shapes.broadcast,
                offsets: ov_offsets(w, shapes.misalign, out_on_a, raw),
                out_on_a,
                seed,
                windows: windows && shapes.windows,
                kernel: shapes.kernel,
            }
        })
}

/// One generator for all layouts, written without the kernel rules: random types, ranks,
/// row lengths (short, long, on and off 16-byte multiples), output and input layouts,
/// bindings and windows.
fn broad_call() -> impl Strategy<Value = DmlSpec> {
    let core = |w: u32, binding: Binding| {
        let (q, tie) = (per_block(w), binding.tie());
        let inner = prop_oneof![
            2 => 1u32..=12,
            1 => 13u32..=60,
            2 => (8u32..=32).prop_map(move |m| m * q),
            1 => (112 / w + 1)..=(520 / w),
        ];
        let out = prop_oneof![
            4 => Just(Input::Packed),
            2 => (1u32..=2).prop_map(move |k| Input::Padded(k * q)),
            1 => (1u32..=3).prop_map(Input::Padded),
            2 => Just(Input::Transposed(0)),
            1 => (2u32..=3).prop_map(|k| Input::Stepped(k, 0)),
        ];
        // Packed and broadcast inputs are the common ones.
        let input = || {
            prop_oneof![
                4 => Just(Input::Packed),
                3 => any::<u8>().prop_map(Input::Broadcast),
                1 => (1u32..=2).prop_map(move |k| Input::Padded(k * q)),
                1 => (1u32..5).prop_map(Input::Padded),
                2 => (0u32..3).prop_map(Input::Transposed),
                1 => (2u32..4, 0u32..3).prop_map(|(k, p)| Input::Stepped(k, p)),
                1 => (1u32..5).prop_map(Input::Sliding),
            ]
        };
        (
            vec(prop_oneof![1 => Just(1u32), 4 => 2u32..=10], 1..=2),
            inner,
            out,
            input(),
            input(),
        )
            .prop_map(move |(mut sizes, c, out, ia, ib)| {
                sizes.push(c);
                let [a, b, out] = [ia, ib, out].map(|i| strides_of(&sizes, i));
                (Core::tied(sizes, [a, b, out], tie), true)
            })
    };
    dml_call(&DataType::DIRECTML, core)
}

/// Draws calls from [`broad_call`] with a fixed seed, checks each against the reference, and
/// counts the calls that ran each kernel: every family must be reached.
#[test]
fn broad_layouts_reach_every_kernel() {
    const DRAWS: usize = 200;
    let strategy = broad_call();
    let mut runner = TestRunner::deterministic();
    let mut counts: BTreeMap<KernelKind, usize> = BTreeMap::new();
    for draw in 0..DRAWS {
        let spec = strategy.new_tree(&mut runner).expect("a draw").current();
        let summary = catch_unwind(AssertUnwindSafe(|| spec.run()))
            .unwrap_or_else(|_| panic!("draw {draw} failed: {spec:?}"));
        let mut kernels = summary.dispatches.clone();
        kernels.sort();
        kernels.dedup();
        for kernel in kernels {
            *counts.entry(kernel).or_default() += 1;
        }
    }
    eprintln!("calls per kernel over {DRAWS} broad draws: {counts:?}");
    for kernel in [
        KernelKind::Contiguous,
        KernelKind::Rows,
        KernelKind::ShiftedRows,
        KernelKind::Gather,
        KernelKind::Tile,
        KernelKind::Scatter,
    ] {
        assert!(
            counts.get(&kernel).is_some_and(|&n| n > 0),
            "no broad draw reached {kernel:?}: {counts:?}"
        );
    }
}

/// Draws calls from every kernel's generator and from [`broad_call`] with a fixed seed, and
/// runs each as BIT_NOT (or LOGICAL_NOT on `u8` and `u32`, for about half of them) of A, its
/// B made A (the library reads a one-input operator's input in B's place too): every byte
/// against the reference, the kernels those of the binary twin on the same bindings (XOR of
/// A with itself), and every kernel family reached.
#[test]
fn not_runs_every_kernel_as_its_binary_twin() {
    const DRAWS: usize = 160;
    let all = &DataType::DIRECTML;
    let strategy = prop_oneof![
        dml_call(all, contiguous_core).boxed(),
        dml_call(all, rows_core).boxed(),
        dml_call(all, tile_core).boxed(),
        dml_call(all, shifted_core).boxed(),
        dml_call(all, scatter_core).boxed(),
        dml_call(all, gather_core).boxed(),
        broad_call().boxed(),
    ];
    let mut runner = TestRunner::deterministic();
    let mut counts: BTreeMap<KernelKind, usize> = BTreeMap::new();
    for draw in 0..DRAWS {
        let spec = strategy.new_tree(&mut runner).expect("a draw").current();
        let mut case = spec.case();
        case.b = case.a.clone();
        case.places[TB] = case.places[TA];
        let logical = spec.seed % 2 == 0 && matches!(spec.dt, DataType::U8 | DataType::U32);
        let (not, twin) = if logical {
            (Operator::LogicalNot, Operator::LogicalXor)
        } else {
            (Operator::BitNot, Operator::BitXor)
        };
        let ctx = if spec.windows { small_windows() } else { ctx() };
        let run = |op: Operator| {
            let mut case = case.clone();
            case.op = op;
            catch_unwind(AssertUnwindSafe(|| case.check_on(ctx)))
                .unwrap_or_else(|_| panic!("draw {draw} failed as {op:?}: {spec:?}"))
        };
        let summary = run(not);
        assert_eq!(
            summary.dispatches,
            run(twin).dispatches,
            "draw {draw}: NOT and its binary twin ran other kernels\n{spec:?}"
        );
        let mut kernels = summary.dispatches.clone();
        kernels.sort();
        kernels.dedup();
        for kernel in kernels {
            *counts.entry(kernel).or_default() += 1;
        }
    }
    eprintln!("NOT calls per kernel over {DRAWS} draws: {counts:?}");
    for kernel in KernelKind::DISPATCHING {
        assert!(
            counts.get(&kernel).is_some_and(|&n| n > 0),
            "no NOT draw reached {kernel:?}: {counts:?}"
        );
    }
}
