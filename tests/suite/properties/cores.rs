//! The DirectML calls of the per-kernel properties: a core layout built to land on one kernel
//! family (its rules are `core/src/schedule/select.rs`), dressed with split and size-1
//! dimensions, an operator and type of the table, a binding, windows; and the broad generator
//! that knows none of those rules.

use super::*;

/// Tensor slots in a [`DmlCase`]'s order.
pub(super) const TA: usize = 0;
pub(super) const TB: usize = 1;
pub(super) const TO: usize = 2;

/// Elements in one 16-byte block: rows on 16-byte boundaries have pitches that are multiples
/// of this.
pub(super) fn per_block(w: u32) -> u32 {
    16 / w
}

/// Which tensors a binding makes one (same description, same range).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tie {
    None,
    AOut,
    BOut,
    AB,
}

/// Where the three tensors live. Every offset is a multiple of 16 (DirectML rule 4).
#[derive(Clone, Copy, Debug)]
pub(super) enum Binding {
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
    pub(super) fn apart(self) -> bool {
        matches!(
            self,
            Binding::Distinct(_)
                | Binding::InPlaceA(false)
                | Binding::InPlaceB(false)
                | Binding::SameInputs(false)
        )
    }

    pub(super) fn tie(self) -> Tie {
        match self {
            Binding::InPlaceA(_) => Tie::AOut,
            Binding::InPlaceB(_) => Tie::BOut,
            Binding::SameInputs(_) => Tie::AB,
            _ => Tie::None,
        }
    }
}

pub(super) fn steps() -> impl Strategy<Value = [u8; 3]> {
    proptest::array::uniform3(0u8..4)
}

pub(super) fn binding() -> impl Strategy<Value = Binding> {
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
pub(super) struct Core {
    pub(super) sizes: Vec<u32>,
    pub(super) strides: [Vec<u32>; 3],
}

impl Core {
    /// A core whose tied tensors take the strides of the tensor they are tied to.
    pub(super) fn tied(sizes: Vec<u32>, strides: [Vec<u32>; 3], tie: Tie) -> Core {
        let mut core = Core { sizes, strides };
        core.retie(tie);
        core
    }

    pub(super) fn retie(&mut self, tie: Tie) {
        match tie {
            Tie::None => {}
            Tie::AOut => self.strides[TA] = self.strides[TO].clone(),
            Tie::BOut => self.strides[TB] = self.strides[TO].clone(),
            Tie::AB => self.strides[TB] = self.strides[TA].clone(),
        }
    }

    /// Whether dimensions `k` and `k + 1` merge for every tensor (coalescing step 3).
    pub(super) fn merges(&self, k: usize) -> bool {
        self.strides
            .iter()
            .all(|s| s[k] == s[k + 1] * self.sizes[k + 1])
    }

    /// Keeps the two innermost dimensions apart, where every tensor would merge them, by
    /// padding the rows of the inputs not tied to the output by one element.
    pub(super) fn keep_inner_apart(&mut self, tie: Tie) {
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
pub(super) fn pitched(
    sizes: &[u32],
    inner: u32,
    align: u32,
    pads: &[u32],
    zero: &[bool],
) -> Vec<u32> {
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
pub(super) enum Input {
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

pub(super) fn strides_of(sizes: &[u32], input: Input) -> Vec<u32> {
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
pub(super) fn any_input() -> impl Strategy<Value = Input> + Clone {
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
pub(super) fn row_input() -> impl Strategy<Value = Input> + Clone {
    prop_oneof![
        2 => Just(Input::Packed),
        1 => (1u32..5).prop_map(Input::Padded),
        2 => any::<u8>().prop_map(Input::Broadcast),
        1 => (1u32..5).prop_map(Input::Sliding),
    ]
}

/// Outer sizes (each at least 2, so that coalescing keeps them).
pub(super) fn outer(
    ranks: std::ops::RangeInclusive<usize>,
    most: u32,
) -> impl Strategy<Value = Vec<u32>> {
    vec(2u32..=most, ranks)
}

/// What dressing does to a core.
#[derive(Clone, Debug)]
pub(super) struct Dress {
    /// Per core dimension, a factor to split it by (used where it divides the size and lies
    /// strictly between 1 and the size).
    pub(super) splits: Vec<u32>,
    /// Size-1 dimensions to insert: position and stride (the stride of a size-1 dimension
    /// never matters, so it may be anything).
    pub(super) ones: Vec<(usize, u32)>,
    /// Seed of the permutation applied to the dimensions of every tensor alike.
    pub(super) shuffle: u64,
    /// Whether a tensor whose strides are the packed ones is given none (DirectML's default).
    pub(super) implicit: bool,
}

pub(super) fn dress() -> impl Strategy<Value = Dress> {
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
    pub(super) fn apply(&self, core: &Core) -> (Vec<u32>, [Option<Vec<u32>>; 3]) {
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
pub(super) fn permutation(n: usize, seed: u64) -> Vec<usize> {
    let mut rng = gpu_xor_testkit::SplitMix64::new(seed);
    let mut p: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        p.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
    }
    p
}

/// A DirectML call: the dressed descriptions, where they live, and how it runs.
#[derive(Clone, Debug)]
pub(super) struct DmlSpec {
    pub(super) op: Operator,
    pub(super) dt: DataType,
    pub(super) sizes: Vec<u32>,
    /// A, B, Output (`None`: packed, no strides given).
    pub(super) strides: [Option<Vec<u32>>; 3],
    pub(super) binding: Binding,
    pub(super) seed: u64,
    /// Run with 4 KiB windows, so that the call is cut into pieces.
    pub(super) windows: bool,
    /// Mostly zero inputs, so that LOGICAL_XOR sees both truth values.
    pub(super) sparse: bool,
}

impl DmlSpec {
    pub(super) fn desc(&self, t: usize) -> TensorDesc {
        let desc = TensorDesc::new(self.dt, &self.sizes);
        match &self.strides[t] {
            Some(s) => desc.with_strides(s),
            None => desc,
        }
    }

    pub(super) fn case(&self) -> DmlCase {
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
    pub(super) fn run(&self) -> RecordSummary {
        self.case().check_on(self.context())
    }

    /// [`Self::run`] under both fixed rules (CPU adapters' first), for the kernels whose form
    /// follows the rule.
    pub(super) fn run_under_both_rules(&self) -> [RecordSummary; 2] {
        let case = self.case();
        both_rules(self.context()).map(|rule| case.check_on(&rule))
    }

    /// The context the call runs on: the suite's, with small windows where drawn.
    fn context(&self) -> &'static Context {
        if self.windows { small_windows() } else { ctx() }
    }
}

/// An operator of two inputs and a type it takes, drawn from the table: a type of `types`,
/// then any DirectML operator of two inputs that takes it (on `u8` and `u32` the logical
/// ones too, on the unsigned types the shifts, which need each element's width and lanes).
/// The one-input operators have [`not_runs_every_kernel_as_its_binary_twin`].
pub(super) fn op_and_type(
    types: &[DataType],
) -> impl Strategy<Value = (Operator, DataType)> + use<> {
    let by_type: Vec<(DataType, Vec<Operator>)> = types
        .iter()
        .map(|&dt| {
            let ops: Vec<Operator> = DIRECTML
                .into_iter()
                .filter(|op| op.inputs() == 2 && op.takes(dt))
                .collect();
            (dt, ops)
        })
        .filter(|(_, ops)| !ops.is_empty())
        .collect();
    proptest::sample::select(by_type)
        .prop_flat_map(|(dt, ops)| proptest::sample::select(ops).prop_map(move |op| (op, dt)))
}

/// A DirectML call whose core comes from `core` (given the element width and the binding);
/// `core` also says whether the layout stays on its kernel when cut into windows.
pub(super) fn dml_call<F, S>(
    types: &[DataType],
    core: F,
) -> impl Strategy<Value = DmlSpec> + use<F, S>
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
pub(super) fn contiguous_core(_w: u32, binding: Binding) -> BoxedStrategy<(Core, bool)> {
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
pub(super) fn rows_core(w: u32, binding: Binding) -> BoxedStrategy<(Core, bool)> {
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

/// A core of `sizes` with a packed output and one input of `special` strides: A, or B where
/// `swap` or where A is the output (`Tie::AOut`), both where A and B are one tensor; the
/// other input of `other`'s strides, or the output's where tied to it. `windows` is whether
/// the core may be cut into windows.
fn special_core(
    tie: Tie,
    sizes: Vec<u32>,
    special: Vec<u32>,
    other: Input,
    swap: bool,
    windows: bool,
) -> (Core, bool) {
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
}

/// Tile: rank 2, or a batch of 2 to 4 matrices (rank 3, each matrix's span apart in every
/// tensor, by a few elements more in the tiled input), a dense output and an input whose
/// inner stride is above 1 and above the one before it (transposed, transposed every other
/// element, or one row read with a step and repeated); the other input anything that keeps
/// the rank. For 8- and 16-bit elements the row length is a multiple of the elements in a
/// word, so that output rows hold whole words. A fifth of the draws are deep instead: an
/// input with fully reversed strides over five dimensions, none of which merge (a matrix and
/// a batch of three), of any element width and row length (the test kit's oracle says which
/// kernel takes it). These run whole: 4 KiB windows would cut most of them into pieces of
/// part of a row, which the gather kernel takes.
pub(super) fn tile_core(w: u32, binding: Binding) -> BoxedStrategy<(Core, bool)> {
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
    let tied = move |sizes: Vec<u32>, tiled: Vec<u32>, other: Input, swap: bool| {
        special_core(tie, sizes, tiled, other, swap, false)
    };
    let deep = (outer(5..=5, 4), 0u32..3, other.clone(), any::<bool>()).prop_map(
        move |(sizes, p, other, swap)| {
            let tiled = strides_of(&sizes, Input::Transposed(p));
            tied(sizes, tiled, other, swap)
        },
    );
    // For 32-bit elements, half the draws keep every 16-byte block whole (the block tile's
    // layouts): sides multiples of 4, a transposed input dense along the rows, its columns
    // and matrices 4 elements apart.
    let matrices = (
        side(),
        side(),
        tiled,
        other,
        any::<bool>(),
        batch,
        any::<bool>(),
    )
        .prop_map(move |(r, c, (kind, p), other, swap, batch, blocks)| {
            let blocks = blocks && w == 4;
            let (r, c, kind, p) = if blocks {
                (r.next_multiple_of(4), c.next_multiple_of(4), 0, 0)
            } else {
                (r, c, kind, p)
            };
            let c = if w < 4 { c.next_multiple_of(4 / w) } else { c };
            let mut sizes = vec![r, c];
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
                let stride = span(&tiled) + extra;
                tiled.insert(
                    0,
                    if blocks {
                        stride.next_multiple_of(4)
                    } else {
                        stride
                    },
                );
            }
            tied(sizes, tiled, other, swap)
        });
    prop_oneof![4 => matrices, 1 => deep].boxed()
}

/// Scatter: an output that stays strided after coalescing and that neither the rows nor the
/// shifted-rows kernel can take: every k-th element (k from 2), rows of less than 64 bytes
/// with padding (inputs anything), or longer padded rows whose pitch is not a multiple of 16
/// bytes with inputs that are not read along their rows. The first two stay scatter in every
/// window; a one-row piece of the third may start on a 16-byte boundary, so it runs whole.
pub(super) fn scatter_core(w: u32, binding: Binding) -> BoxedStrategy<(Core, bool)> {
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
pub(super) fn misaligned_rows(sizes: &[u32], q: u32, row_pad: u32, pad: u32) -> Vec<u32> {
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
pub(super) fn shifted_core(w: u32, binding: Binding) -> BoxedStrategy<(Core, bool)> {
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
///   (rank 2).
///
/// Windows keep the first two and the stepped inputs on the gather kernel; elsewhere a piece
/// may go to the rows, shifted-rows or tile kernel, so those run whole.
pub(super) fn gather_core(w: u32, binding: Binding) -> BoxedStrategy<(Core, bool)> {
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
        special_core(tie, sizes, special, other, swap, windows)
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
    // An odd row length: output rows that do not hold whole words, which the tile kernel
    // leaves to the gather kernel. (The tile kernels take every transposed input of 32- and
    // 64-bit elements, of any rank.)
    let transposed = (outer(2..=2, 60), 0u32..3, any_input(), any::<bool>()).prop_map(
        move |(mut sizes, p, other, swap)| {
            sizes[1] |= 1;
            let s = strides_of(&sizes, Input::Transposed(p));
            // A window piece may hold whole words per row and take the tile kernel.
            special(sizes, s, other, swap, false)
        },
    );
    if narrow {
        prop_oneof![one_dim, short, stepped, transposed].boxed()
    } else {
        prop_oneof![one_dim, short, stepped].boxed()
    }
}

/// One generator for all layouts, written without the kernel rules: random types, ranks,
/// row lengths (short, long, on and off 16-byte multiples), output and input layouts,
/// bindings and windows.
pub(super) fn broad_call() -> impl Strategy<Value = DmlSpec> {
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
