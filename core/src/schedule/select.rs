//! Which kernel runs one piece, once its bindings are known.
//!
//! The plan names a family from the layout alone; the bindings decide whether the faster
//! `vec4<u32>` kernels may run (every dense run on a 16-byte boundary, and room in the bound
//! range to read whole 16-byte blocks at its end; the shifted-rows kernel reads and writes
//! words and takes rows at any byte offset) and the piece's shape picks the 2-D kernels.

use super::dispatch::{block_tile_shape, splat_input, tile_shape};
use super::params::MAX_KERNEL_RANK;
use super::target::Target;
use super::tune::TuningKey;
use crate::layout::{KernelKind, Piece, Plan, Widths};

/// Rows shorter than this many 16-byte blocks spend too much of the rows kernel on the
/// masked block at each row's end and the row's offsets; the gather or shifted-rows kernel
/// takes them.
const MIN_ROW_BLOCKS: u64 = 8;

/// Rows shorter than this many bytes spend too much of the shifted-rows kernel on the masked
/// words at their ends; the gather or scatter kernel takes them.
const MIN_SHIFTED_ROW_BYTES: u64 = 64;

/// How a context chooses among the kernels that can run a layout, where more than one can
/// (`ContextOptions::kernel_tuning` in `gpu-xor`).
///
/// Transposed and permuted inputs (tile, gather, or the spaced kernel in the inputs' order),
/// strided outputs (scatter, spaced, shifted rows, tile) and broadcasts (rows, shifted rows,
/// the contiguous kernel's splat) each have several exact kernels, and which is fastest
/// depends on the adapter. Every choice is exact on every adapter: a tuning only trades
/// speed.
///
/// The fixed rules differ in one choice, a two-dimensional call with 32- or 64-bit elements
/// and an input read across its rows (a transposed or permuted input; a transposed output is
/// reordered into one with both inputs read across their rows):
/// - GPUs: the tile kernel, the transposed inputs staged through workgroup memory so that
///   reads and writes both run along memory; where its 16-byte blocks are whole and aligned,
///   its block form (tiles of 64 rows by 64 words, every global access 16 bytes);
/// - CPU adapters (lavapipe, llvmpipe, SwiftShader): the same block form where it applies,
///   but for 64-bit elements with both inputs read across their rows; otherwise, for
///   64-bit elements and for 32-bit ones up to 16 MiB of output, no workgroup memory. Both
///   inputs read across their rows: the scatter kernel in the inputs' order (reads along
///   memory, writes across it). One input: the gather kernel.
///
/// The measurements behind the rules are in the repository's `benches/RESULTS.md` ("Strided
/// layouts").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum KernelTuning {
    /// From the adapter: [`KernelTuning::Cpu`] where the adapter is a CPU (wgpu's
    /// `DeviceType::Cpu`), else [`KernelTuning::Gpu`].
    #[default]
    Auto,
    /// The fixed rule for GPUs, on any adapter.
    Gpu,
    /// The fixed rule for CPU adapters, on any adapter.
    Cpu,
    /// Measured on the adapter itself: each layout class ([`TuningKey`]) that more than one
    /// kernel can run has its candidates timed when an operator is warmed up
    /// (`Context::warm_up` and `warm_up_async` in `gpu-xor`), and the fastest is kept in the
    /// context for every operator made on it; its table can be saved and loaded
    /// ([`KernelChoices`](super::tune::KernelChoices)). A class not yet measured follows
    /// the fixed rule of the adapter's class, as [`KernelTuning::Auto`] does.
    Measured,
}

impl KernelTuning {
    /// The tuning an adapter gets: `Auto` resolved by whether the adapter is a CPU, the
    /// others as they are.
    pub fn resolve(self, cpu_adapter: bool) -> KernelTuning {
        match self {
            KernelTuning::Auto if cpu_adapter => KernelTuning::Cpu,
            KernelTuning::Auto => KernelTuning::Gpu,
            other => other,
        }
    }

    /// Whether the fixed rule for CPU adapters applies: under [`KernelTuning::Cpu`], and
    /// under `Auto` and `Measured` (for the classes not measured) on a CPU adapter.
    pub fn cpu_rule(self, cpu_adapter: bool) -> bool {
        match self {
            KernelTuning::Cpu => true,
            KernelTuning::Gpu => false,
            KernelTuning::Auto | KernelTuning::Measured => cpu_adapter,
        }
    }
}

/// What the choice needs to know of a piece's bindings, and of the device.
pub(crate) struct Bound {
    /// Byte offset of each operand's first element in its buffer (`OUT`, `A`, `B`).
    pub start: [u64; 3],
    /// Per slot, the bound byte range in its buffer (its start is a multiple of 16).
    pub range: [Option<(u64, u64)>; 3],
    /// The device: its grid limit, the rule it is tuned for, and its measured choices
    /// ([`KernelTuning`]).
    pub target: Target,
}

/// The one place a call's kernels are chosen: each piece of the call with the kernel that
/// runs it (from the plan's family, `planned`), in the order that kernel iterates it. A piece
/// the scatter kernel would write without owning its words (an 8- or 16-bit output whose rows
/// interleave) is cut into nested parts first, each chosen for on its own, so that no two
/// invocations write one word. `bound` gives what the choice needs of a piece's bindings,
/// with whatever the caller keeps of them (`R`).
pub(crate) fn kernels<R: Clone>(
    planned: KernelKind,
    pieces: Vec<Piece>,
    widths: impl Into<Widths>,
    mut bound: impl FnMut(&Piece) -> (R, Bound),
) -> Vec<(Piece, R, KernelKind)> {
    let widths = widths.into();
    let width = widths.out();
    let mut pick = |piece: &Piece| {
        let (kept, b) = bound(piece);
        let kernel = choose(family(planned, piece), piece, &b, widths);
        let cut = (kernel == KernelKind::Contiguous)
            .then(|| cut_tail(piece, width, &b))
            .flatten();
        (kept, kernel, cut)
    };
    let mut chosen = Vec::with_capacity(pieces.len());
    for piece in pieces {
        let (kept, kernel, cut) = pick(&piece);
        if let Some((whole, tail)) = cut {
            chosen.push((whole, kept.clone(), KernelKind::Contiguous));
            chosen.push((tail, kept, KernelKind::Gather));
        } else if kernel == KernelKind::Scatter && width < 4 && !nested(&piece) {
            for part in owned_pieces(piece, width) {
                let (kept, kernel, _) = pick(&part);
                chosen.push((part, kept, kernel));
            }
        } else {
            chosen.push((piece, kept, kernel));
        }
    }
    for (piece, _, kernel) in &mut chosen {
        order_for(family(planned, piece), *kernel, piece);
    }
    chosen
}

/// The kernel family a piece of a plan of family `planned` runs under: the scatter family
/// where the plan's output is dense but the piece's is not (a block cut from a call wider
/// than a window across its output's rows, `windows::split`), whose kernels write at any
/// strides; else the plan's.
fn family(planned: KernelKind, piece: &Piece) -> KernelKind {
    if planned == KernelKind::Gather && !dense_output(piece) {
        KernelKind::Scatter
    } else {
        planned
    }
}

/// Whether the piece's output (operand 0) elements lie one after the other in its order.
fn dense_output(piece: &Piece) -> bool {
    let mut next = 1;
    for (&n, &s) in piece.sizes.iter().zip(&piece.strides[0]).rev() {
        if n > 1 && s != next {
            return false;
        }
        next *= n;
    }
    true
}

impl Bound {
    /// Whether every slot can read whole 16-byte blocks up to the end of what the piece uses.
    fn room_for_blocks(&self, piece: &Piece) -> bool {
        piece
            .windows
            .iter()
            .zip(&self.range)
            .all(|(used, bound)| match (used, bound) {
                (Some((_, end)), Some((_, bound_end))) => end.div_ceil(16) * 16 <= *bound_end,
                _ => true,
            })
    }
}

/// Contiguous runs of at least this many bytes whose last 16-byte block is partial run that
/// block as a dispatch of its own on CPU adapters, so that the contiguous kernel compiles
/// without its masked tail: CPU adapters run every path of a branch under their execution
/// mask, and a 64 MiB u8 call with the tail compiled in ran at 0.93 of one without on
/// lavapipe and 0.66 on SwiftShader. Below it, and on GPUs (where only the last block's
/// invocations take that branch), the kernel writes the block itself: one dispatch instead
/// of two. Cutting from 4 KiB instead made the benchmark graphs' frames slower on lavapipe
/// (1.15 and 1.16 of the bare frames against 1.06 and 1.00) and mixed on SwiftShader
/// (1.21 and 1.24 against 1.24 and 1.13): the extra dispatch costs more than the tail there.
pub(crate) const TAIL_CUT_BYTES: u64 = 1 << 20;

/// A one-dimensional contiguous piece cut into its whole 16-byte blocks (for the contiguous
/// kernel without a tail) and the elements of its partial last block (for the gather kernel),
/// where a CPU adapter runs it and it is long enough ([`TAIL_CUT_BYTES`]). Both keep the
/// piece's windows, so they share its bindings.
fn cut_tail(piece: &Piece, width: u64, bound: &Bound) -> Option<(Piece, Piece)> {
    let [n] = piece.sizes[..] else {
        return None;
    };
    let bytes = n * width;
    if !bound.target.cpu || bytes.is_multiple_of(16) || bytes < TAIL_CUT_BYTES {
        return None;
    }
    let whole = bytes / 16 * 16 / width;
    let mut head = piece.clone();
    head.sizes = vec![whole];
    let mut tail = piece.clone();
    tail.sizes = vec![n - whole];
    for o in 0..3 {
        tail.origin[o] += whole * piece.strides[o][0];
    }
    Some((head, tail))
}

/// The kernel of one piece: the measured choice for its layout where the context holds one
/// ([`KernelTuning::Measured`]) and that kernel can run the piece with its bindings, else the
/// fixed rule ([`rule`]).
pub(crate) fn choose(
    planned: KernelKind,
    piece: &Piece,
    bound: &Bound,
    widths: impl Into<Widths>,
) -> KernelKind {
    let widths = widths.into();
    let rule = rule(planned, piece, bound, widths);
    let Some(choices) = &bound.target.choices else {
        return rule;
    };
    let key = key_of(planned, piece, widths, bound.target.max_groups);
    match key.and_then(|key| choices.get(&key)) {
        Some(kernel) if kernel != rule && fits(kernel, planned, piece, bound, widths) => kernel,
        _ => rule,
    }
}

/// What the bindings allow the block kernels (contiguous, rows) of a gather or scatter piece.
struct Alignment {
    /// Every dense run starts on a 16-byte boundary.
    runs: bool,
    /// ... and so does every row.
    rows: bool,
    /// Every slot can read whole 16-byte blocks to the end of what the piece uses.
    room: bool,
    /// The output's first element starts a word.
    out_word: bool,
}

impl Alignment {
    fn of(piece: &Piece, bound: &Bound, widths: Widths) -> Alignment {
        let width = widths.out();
        let first = |o: usize| bound.start[o] + piece.origin[o] * widths.of(o);
        let inner = piece.sizes.len() - 1;
        let stride = |o: usize, d: usize| piece.strides[o][d];
        let runs = (0..3)
            .filter(|&o| stride(o, inner) == 1)
            .all(|o| first(o).is_multiple_of(16));
        let rows = runs
            && (0..3).filter(|&o| stride(o, inner) == 1).all(|o| {
                (0..inner).all(|d| piece.sizes[d] == 1 || (stride(o, d) * width).is_multiple_of(16))
            });
        Alignment {
            runs,
            rows,
            room: bound.room_for_blocks(piece),
            out_word: first(0).is_multiple_of(4),
        }
    }
}

/// Whether `kernel` can run `piece` of a gather or scatter plan with its bindings: exactness,
/// not speed. Every kernel [`rule`] picks fits; a measured choice is taken only where it does.
fn fits(
    kernel: KernelKind,
    planned: KernelKind,
    piece: &Piece,
    bound: &Bound,
    widths: Widths,
) -> bool {
    let width = widths.out();
    if !matches!(planned, KernelKind::Gather | KernelKind::Scatter) || !widths.uniform() {
        return false;
    }
    let at = Alignment::of(piece, bound, widths);
    let tile = tile_layout(planned, piece, width, bound.target.max_groups);
    match kernel {
        KernelKind::Contiguous => channel_layout(piece, width) && at.runs && at.room,
        KernelKind::Rows => rows_layout(piece, width) && at.rows && at.room,
        KernelKind::Tile => tile && (width >= 4 || (at.out_word && whole_word_rows(piece, width))),
        KernelKind::BlockTile => block_tile(planned, piece, bound, widths),
        // A batch is never written in its inputs' order (`candidates`).
        KernelKind::Spaced => {
            (planned == KernelKind::Gather
                && width >= 4
                && piece.sizes.len() == 2
                && tile
                && both_transposed(piece))
                || (planned == KernelKind::Scatter && spaced(piece, width))
        }
        KernelKind::ShiftedRows => shifted_layout(piece, width),
        KernelKind::Gather | KernelKind::Scatter => kernel == planned,
        KernelKind::Empty
        | KernelKind::FusedBlocks
        | KernelKind::FusedElements
        | KernelKind::FusedReduce
        | KernelKind::FusedTiled => false,
    }
}

/// The fixed rule: the kernel measured best for the piece's layout class on the adapter
/// class the context is tuned for ([`KernelTuning::Gpu`] or [`KernelTuning::Cpu`]).
fn rule(planned: KernelKind, piece: &Piece, bound: &Bound, widths: Widths) -> KernelKind {
    let width = widths.out();
    let first = |o: usize| bound.start[o] + piece.origin[o] * widths.of(o);
    match planned {
        // With an output of another width (`BIT_COUNT`) too: each output block counted from
        // its input elements (u8 into u32 on lavapipe: 8.9 GB/s against 1.2 on the gather
        // kernel, XOR 10.3).
        KernelKind::Contiguous => {
            let aligned = (0..3).all(|o| first(o).is_multiple_of(16));
            if aligned && bound.room_for_blocks(piece) {
                KernelKind::Contiguous
            } else if widths.uniform() && shifted_layout(piece, width) {
                KernelKind::ShiftedRows
            } else {
                KernelKind::Gather
            }
        }
        KernelKind::Gather | KernelKind::Scatter if !widths.uniform() => {
            per_element(planned, piece, width)
        }
        KernelKind::Gather | KernelKind::Scatter => {
            let at = Alignment::of(piece, bound, widths);
            // Layouts the rule for CPU adapters keeps off the tile kernel (`untiled_on_cpu`).
            let untiled = bound.target.cpu && untiled_on_cpu(piece, width);
            // An input that repeats one element across each row (a channel or column
            // broadcast) runs faster through the shifted-rows kernel, four blocks per
            // invocation (1.4 to 1.9 times on lavapipe, benches/RESULTS.md); rows dense in
            // every operand stay with the rows kernel (about 1.1 times the shifted-rows
            // kernel on 16 KiB rows).
            // Rows one after the other in the output, an input repeating one element across
            // each: the contiguous kernel, that input splat per block (the benchmark graph's
            // broadcast nodes at 1.16 of the bare frame on lavapipe, against 1.50 on the
            // shifted-rows kernel; ARCHITECTURE.md, "Performance").
            if channel_layout(piece, width) && at.runs && at.room {
                KernelKind::Contiguous
            } else if rows_layout(piece, width)
                && at.rows
                && at.room
                && !(repeats_element(piece) && shifted_layout(piece, width))
            {
                KernelKind::Rows
            } else if block_tile(planned, piece, bound, widths)
                && !(bound.target.cpu && width == 8 && both_across(piece))
                && fills_tiles(piece, block_tile_shape(width))
            {
                // On both adapter classes but for 64-bit elements with both inputs read
                // across their rows on CPU adapters. On lavapipe (`bench_report --
                // --strided --tunings`) it ran 32-bit transposes and permutations at 1.8 to
                // 2.7 times the gather kernel at 1 and 16 MiB, two transposed 32-bit inputs
                // at 1.29 times the scatter kernel in their order at 1 MiB and 0.90 at
                // 16 MiB (one rule for both), 8- and 16-bit transposes at 1.5 to 2.2 times
                // the tile kernel's register blocks at 16 MiB; one transposed input of
                // 64-bit elements at 1.06 to 1.33 times gathering it at 1 and 64 MiB, and
                // batches of 64 x 64 to 256 x 256 at 1.2 to 2.0 times (`tile_fill` with
                // 64-bit elements); two transposed 64-bit inputs at 0.87 of the scatter
                // kernel in their order at 1 MiB and 0.95 to 1.02 at 64 MiB, which keeps
                // those.
                KernelKind::BlockTile
            } else if untiled
                && planned == KernelKind::Gather
                && tile_layout(planned, piece, width, bound.target.max_groups)
            {
                // Both inputs across their rows: written in their order; else gathered.
                if both_transposed(piece) && piece.sizes.len() == 2 {
                    KernelKind::Spaced
                } else {
                    KernelKind::Gather
                }
            } else if !untiled
                && tile_layout(planned, piece, width, bound.target.max_groups)
                && (width >= 4 || (at.out_word && whole_word_rows(piece, width)))
                && fills_tiles(piece, tile_shape(width, !bound.target.cpu))
            {
                KernelKind::Tile
            } else if shifted_layout(piece, width) {
                KernelKind::ShiftedRows
            } else if planned == KernelKind::Scatter && spaced(piece, width) {
                KernelKind::Spaced
            } else {
                planned
            }
        }
        other => other,
    }
}

/// Every kernel that can run calls of `plan` that fit one binding window, under some
/// bindings, each once: what a measured choice for its key may be. A measurement times the
/// ones of them that run on bindings at the buffers' start, the key's own
/// ([`TuningKey::kernels`]). `max_groups` is the device's
/// `max_compute_workgroups_per_dimension`.
pub fn plan_candidates(plan: &Plan, max_groups: u32) -> Vec<KernelKind> {
    let piece = Piece::whole(&plan.layout);
    let mut kernels = candidates(plan.kernel, &piece, plan.widths(), max_groups);
    let mut seen = Vec::with_capacity(kernels.len());
    kernels.retain(|k| {
        let new = !seen.contains(k);
        seen.push(*k);
        new
    });
    kernels
}

/// The layout class of calls of `plan` that fit one binding window, under which a measured
/// choice for them is kept, where more than one kernel can run them; `None` where one kernel
/// does. `max_groups` is the device's `max_compute_workgroups_per_dimension`, which bounds
/// the tile kernels' grids.
pub fn tuning_key(plan: &Plan, max_groups: u32) -> Option<TuningKey> {
    key_of(
        plan.kernel,
        &Piece::whole(&plan.layout),
        plan.widths(),
        max_groups,
    )
}

/// The layout class of one piece under a plan of family `planned` ([`tuning_key`]).
pub(crate) fn key_of(
    planned: KernelKind,
    piece: &Piece,
    widths: impl Into<Widths>,
    max_groups: u32,
) -> Option<TuningKey> {
    let widths = widths.into();
    TuningKey::of_piece(planned, piece, widths, || {
        runnable_at_start(planned, piece, widths, max_groups)
    })
}

/// The kernels of [`candidates`] that can run `piece` where every operand starts its own
/// buffer, with room to read whole 16-byte blocks to its end: the most any bindings allow,
/// and what a measurement binds (its scratch buffers). The kernels of a [`TuningKey`].
pub(crate) fn runnable_at_start(
    planned: KernelKind,
    piece: &Piece,
    widths: impl Into<Widths>,
    max_groups: u32,
) -> Vec<KernelKind> {
    let widths = widths.into();
    let at_start = Bound {
        start: [0; 3],
        range: [None; 3],
        // `fits` reads the target's grid limit alone.
        target: Target {
            windows: crate::layout::Limits {
                max_window: u64::MAX,
                offset_alignment: 256,
                max_rank: 8,
            },
            max_groups,
            strict_aliasing: false,
            cpu: false,
            choices: None,
            tiled: true,
        },
    };
    let whole = Piece {
        origin: [0; 3],
        windows: [None; 3],
        ..piece.clone()
    };
    let mut kernels = candidates(planned, &whole, widths, max_groups);
    kernels.retain(|&k| fits(k, planned, &whole, &at_start, widths));
    kernels
}

/// Every kernel [`choose`] can pick for `piece` under some bindings: what the layout allows,
/// whatever the alignment of the bound ranges.
pub(crate) fn candidates(
    planned: KernelKind,
    piece: &Piece,
    widths: impl Into<Widths>,
    max_groups: u32,
) -> Vec<KernelKind> {
    let widths = widths.into();
    let width = widths.out();
    match planned {
        KernelKind::Empty => Vec::new(),
        KernelKind::Contiguous => {
            let mut kernels = vec![KernelKind::Contiguous, KernelKind::Gather];
            if widths.uniform() && shifted_layout(piece, width) {
                kernels.push(KernelKind::ShiftedRows);
            }
            kernels
        }
        KernelKind::Gather | KernelKind::Scatter if !widths.uniform() => {
            vec![per_element(planned, piece, width)]
        }
        KernelKind::Gather | KernelKind::Scatter => {
            let mut kernels = vec![planned];
            if channel_layout(piece, width) {
                kernels.push(KernelKind::Contiguous);
            }
            if rows_layout(piece, width) {
                kernels.push(KernelKind::Rows);
            }
            if tile_layout(planned, piece, width, max_groups) {
                kernels.push(KernelKind::Tile);
            }
            if block_tile_layout(planned, piece, width, max_groups) {
                kernels.push(KernelKind::BlockTile);
            }
            if width >= 4
                && piece.sizes.len() == 2
                && tile_layout(planned, piece, width, max_groups)
                && both_transposed(piece)
            {
                kernels.push(KernelKind::Spaced);
            }
            if shifted_layout(piece, width) {
                kernels.push(KernelKind::ShiftedRows);
            }
            if planned == KernelKind::Scatter && spaced(piece, width) {
                kernels.push(KernelKind::Spaced);
            }
            kernels
        }
        other => vec![other],
    }
}

/// The kernel of a gather or scatter piece whose output has another element size than its
/// inputs (`BIT_COUNT`): only the kernels that load each input element and store each output
/// element on their own apply. A dense output is gathered; a strided one scattered, or stored
/// lane by lane where its elements never share a word.
fn per_element(planned: KernelKind, piece: &Piece, out_width: u64) -> KernelKind {
    match planned {
        KernelKind::Scatter if spaced(piece, out_width) => KernelKind::Spaced,
        other => other,
    }
}

/// Whether the layout of `piece` suits the rows kernel, alignment aside: rank 2 or more,
/// rows dense in the output and dense or repeated in each input, and long enough that the
/// masked block at a row's end is a small part of it. Its grid is flat, so row length and
/// row count are not bounded by a grid dimension.
fn rows_layout(piece: &Piece, width: u64) -> bool {
    let inner = piece.sizes.len() - 1;
    let row_blocks = (piece.sizes[inner] * width).div_ceil(16);
    inner >= 1
        && (0..3).all(|o| piece.strides[o][inner] <= 1)
        && piece.strides[0][inner] == 1
        && row_blocks >= MIN_ROW_BLOCKS
}

/// Whether `piece` is what the contiguous kernel runs with an input splat ([`modes`]):
/// either one dense run (`[n]`) with an input that repeats one element over all of it (a
/// tensor and a scalar, mode 3), or rows of at least 16 bytes one after the other in the
/// output (`[rows, L]`, dense), each input dense in the same way or repeating one element
/// across each row, at least one of them repeating (a channel broadcast such as
/// `[1, C, H, W] ^ [1, C, 1, 1]`, mode 1 or 2).
fn channel_layout(piece: &Piece, width: u64) -> bool {
    match piece.sizes[..] {
        [n] => {
            let dense = |o: usize| piece.strides[o] == [1];
            let repeated = |o: usize| piece.strides[o] == [0];
            n > 1 && dense(0) && (1..3).all(|o| dense(o) || repeated(o)) && (1..3).any(repeated)
        }
        [_, l] => {
            let dense = |o: usize| piece.strides[o] == [l, 1];
            let repeated = |o: usize| piece.strides[o][1] == 0;
            l * width >= 16
                && dense(0)
                && (1..3).all(|o| dense(o) || repeated(o))
                && (1..3).any(repeated)
        }
        _ => false,
    }
}

/// Whether an input repeats one element across each row of `piece` (innermost stride 0 over
/// more than one element).
fn repeats_element(piece: &Piece) -> bool {
    let inner = piece.sizes.len() - 1;
    piece.sizes[inner] > 1 && (1..3).any(|o| piece.strides[o][inner] == 0)
}

/// Whether the layout of `piece` suits the shifted-rows kernel (at any alignment): rows (a
/// rank-1 piece is one) dense in the output and dense or repeated in each input, long enough
/// that the masked words at their ends are few, and the output's rows in memory in their
/// index order without interleaving, so that a word can be shared by neighbouring rows only
/// (the kernel writes such a word once, from the later row). Its grid is flat, like the
/// gather kernel's, so row length is not bounded by a grid dimension.
fn shifted_layout(piece: &Piece, width: u64) -> bool {
    let inner = piece.sizes.len() - 1;
    (0..3).all(|o| piece.strides[o][inner] <= 1)
        && piece.strides[0][inner] == 1
        && piece.sizes[inner].saturating_mul(width) >= MIN_SHIFTED_ROW_BYTES
        && nested(piece)
}

/// Whether the output of `piece` moves along dimension `d`: more than one element, at a
/// stride. (A valid output has no stride of 0 but along the dimensions a reduction's values
/// meet in one element: those are not the output's.)
fn visits<const N: usize>(piece: &Piece<N>, d: usize) -> bool {
    piece.sizes[d] > 1 && piece.strides[0][d] > 0
}

/// Whether the output of `piece` is nested: from the innermost dimension outward, each stride
/// spans the whole block inside it, so that output addresses rise with the index (the
/// dimensions being sorted by output stride) and rows lie in memory in index order, each
/// after the whole of the one before. The scatter kernel's owner of a shared word finds the
/// word's other elements right after its own in index order only there, and the
/// shifted-rows kernel needs its rows so.
pub(crate) fn nested<const N: usize>(piece: &Piece<N>) -> bool {
    // Elements from the first to the last of the block inside the dimension, plus one.
    let mut extent = 1u64;
    for d in (0..piece.sizes.len()).rev().filter(|&d| visits(piece, d)) {
        let stride = piece.strides[0][d];
        if stride < extent {
            return false;
        }
        extent = (piece.sizes[d] - 1)
            .saturating_mul(stride)
            .saturating_add(extent);
    }
    true
}

/// `piece` cut into pieces the scatter kernel can run without atomics: itself where its output
/// is nested or its elements never share a word; else the pieces of each index of its
/// innermost dimension of more than one element (a piece of one element is nested), each cut
/// again until nested. The pieces run as dispatches of their own, one after another, so a
/// word two of them share is written by each in turn.
pub(crate) fn owned_pieces<const N: usize>(piece: Piece<N>, width: u64) -> Vec<Piece<N>> {
    if nested(&piece) || spaced(&piece, width) {
        return vec![piece];
    }
    let d = (0..piece.sizes.len())
        .rev()
        .find(|&d| visits(&piece, d))
        .expect("a piece that is not nested has a dimension of more than one element");
    (0..piece.sizes[d])
        .flat_map(|i| {
            let mut part = piece.clone();
            part.sizes[d] = 1;
            for o in 0..N {
                part.origin[o] += i * piece.strides[o][d];
            }
            owned_pieces(part, width)
        })
        .collect()
}

/// Whether no two output elements of `piece` share a word: always for 32- and 64-bit
/// elements (a valid output never overlaps itself); for 8- and 16-bit ones, where the output
/// visits memory in index order without interleaving (dimensions are sorted by output stride)
/// and each element starts at least 4 bytes after the one before it.
pub(crate) fn spaced<const N: usize>(piece: &Piece<N>, width: u64) -> bool {
    if width >= 4 {
        return true;
    }
    // From the innermost dimension outward: the step from the last element of one block to
    // the first of the next, and the span of a block from its first element to its last.
    let mut span = 0u64;
    for d in (0..piece.sizes.len()).rev().filter(|&d| visits(piece, d)) {
        let stride = piece.strides[0][d];
        match stride.checked_sub(span) {
            Some(step) if step.saturating_mul(width) >= 4 => {}
            _ => return false,
        }
        span = span.saturating_add((piece.sizes[d] - 1).saturating_mul(stride));
    }
    true
}

/// The dimension that a tile kernel runs as its matrix's rows: the one along which the first
/// input read across its rows (its innermost stride above 1; A's, else B's) has its smallest
/// stride (the innermost of equals), where that stride is below its innermost one; the
/// last but one where no input qualifies. `None` below two dimensions.
fn matrix_rows(piece: &Piece) -> Option<usize> {
    let rank = piece.sizes.len();
    let c = rank.checked_sub(1).filter(|&c| c > 0)?;
    let staged_rows = |o: usize| {
        let strides = &piece.strides[o];
        (0..c)
            .rev()
            .filter(|&d| piece.sizes[d] > 1 && strides[d] > 0)
            .min_by_key(|&d| strides[d])
            .filter(|&d| strides[c] > 1 && strides[d] < strides[c])
    };
    Some(staged_rows(1).or_else(|| staged_rows(2)).unwrap_or(c - 1))
}

/// `piece` in the order the tile kernels run it: its batch dimensions first, in their order,
/// then the matrix's rows ([`matrix_rows`]) and columns (the output's innermost dimension).
/// A piece whose rows already come last but one is itself. Reordering the dimensions of a
/// piece changes the order its elements are visited, never which ones, and the tile kernels
/// address every operand through its strides alone.
pub(crate) fn in_matrix_order(piece: &Piece) -> std::borrow::Cow<'_, Piece> {
    let rank = piece.sizes.len();
    match matrix_rows(piece) {
        Some(r) if r != rank - 2 => {
            let order: Vec<usize> = (0..rank - 1)
                .filter(|&d| d != r)
                .chain([r, rank - 1])
                .collect();
            let mut reordered = piece.clone();
            reordered.sizes = order.iter().map(|&d| piece.sizes[d]).collect();
            for (to, from) in reordered.strides.iter_mut().zip(&piece.strides) {
                *to = order.iter().map(|&d| from[d]).collect();
            }
            std::borrow::Cow::Owned(reordered)
        }
        _ => std::borrow::Cow::Borrowed(piece),
    }
}

/// The least fraction of the tiles covering a matrix that the matrix must fill for the fixed
/// rules to run it on a tile kernel ([`fills_tiles`]): a quarter. A tile kernel's workgroup
/// moves only the part of its tile inside the matrix, and each of its invocations does a
/// share of the tile whatever that part is, while the gather kernel does one element per
/// invocation, reading along memory where the matrix is narrow (a warp reading a matrix of
/// at most four 32-bit columns reads whole 32-byte runs of each). On lavapipe
/// (`bench_report -- --strided --tunings`, and a probe of every candidate forced on batches
/// of `[m, s, s]`, `[m, 256, c]` and `[m, r, 256]` transposes at 16 MiB) the 32-bit block
/// tile ran at 0.84 to 0.93 of the gather kernel at a quarter filled and 1.6 times at half;
/// the 8-bit tile kernel 0.75 to 0.82 at an eighth and 1.4 times at a quarter; below an
/// eighth every tile kernel ran at 0.02 to 0.5 of the gather kernel (12 x 12 matrices on
/// the block tile 0.19 GB/s against 0.89; two columns on the tile kernel 0.14 against
/// 1.43).
pub(crate) const MIN_TILE_FILL: (u64, u64) = (1, 4);

/// Whether the matrix of `piece` (in its matrix order: its last two dimensions) fills at
/// least [`MIN_TILE_FILL`] of the `shape` (rows, columns) tiles that cover it.
pub(crate) fn fills_tiles(piece: &Piece, shape: (u64, u64)) -> bool {
    let piece = in_matrix_order(piece);
    let rank = piece.sizes.len();
    if rank < 2 {
        return false;
    }
    let (rows, cols) = (piece.sizes[rank - 2], piece.sizes[rank - 1]);
    let covered = |n: u64, side: u64| n.div_ceil(side.max(1)) * side.max(1);
    let (num, den) = MIN_TILE_FILL;
    u128::from(rows * cols) * u128::from(den)
        >= u128::from(covered(rows, shape.0)) * u128::from(covered(cols, shape.1)) * u128::from(num)
}

/// The most matrices a CPU-tuned context runs as one record each (a 2-D call of its own,
/// whose operands' first elements the host steps by the batch strides) rather than counting
/// them on one grid: the kernels then compile in no batch arithmetic (`RANK` 2), which on
/// lavapipe cost the block tile kernel 0.80 to 0.83 of its speed on a `(0, 2, 1)`
/// permutation of 256 matrices of 256 x 256 32-bit elements, at 1 and 64 MiB. A GPU
/// counts every batch on one grid: a dispatch runs at most 64 records, and the grid of one
/// small matrix is a few workgroups, too few to fill a GPU. (1,024 records are 256 KiB of
/// metadata.)
pub(crate) const MAX_RECORDED_MATRICES: u64 = 1024;

/// Whether a tile piece (in its matrix order) runs one record per matrix
/// ([`MAX_RECORDED_MATRICES`]): a batch of at most that many matrices under the fixed rule
/// for CPU adapters (`cpu`).
pub(crate) fn tile_per_matrix(piece: &Piece, cpu: bool) -> bool {
    let rank = piece.sizes.len();
    let matrices: u64 = piece.sizes[..rank.saturating_sub(2)].iter().product();
    cpu && rank > 2 && matrices <= MAX_RECORDED_MATRICES
}

/// Whether `piece` suits the tile kernel, alignment aside: in its matrix order
/// ([`in_matrix_order`]), a matrix whose output columns lie one after the other (its rows and
/// batch at any strides: a dense output, a padded or sliced one, or a block of a call cut
/// into windows) with an input read across its rows, alone or in a
/// batch of any rank a piece has, however many matrices and wherever the batch dimensions
/// lie in memory (the grid counts the batch's tile rows, so its size is bounded by nothing
/// but the grid's columns). 8- and 16-bit elements also need every
/// output row to start on a word and hold whole words, which [`choose`] checks.
fn tile_layout(planned: KernelKind, piece: &Piece, width: u64, max_groups: u32) -> bool {
    let piece = in_matrix_order(piece);
    let rank = piece.sizes.len();
    matches!(planned, KernelKind::Gather | KernelKind::Scatter)
        && rank >= 2
        // The output's columns one after the other (its rows and matrices at any strides).
        && piece.strides[0][rank - 1] == 1
        && (transposed(&piece, 1) || transposed(&piece, 2))
        // The narrowest tile a grid row holds (`tile_shape`): the staged form's.
        && piece.sizes[rank - 1].div_ceil(tile_shape(width, true).1) <= u64::from(max_groups)
}

/// Whether the layout of `piece` suits the block tile kernel, its bindings aside: a tile
/// layout whose every 16-byte block (E = 16 / `width` elements) is whole, in its matrix
/// order: rows and columns multiples of E, the output's rows dense and a multiple of E
/// elements apart, each staged input (read across its rows) dense along the rows, its
/// columns a multiple of E apart, and in a batch every matrix of the output and of a staged
/// input a multiple of E elements after the one before along each batch dimension.
fn block_tile_layout(planned: KernelKind, piece: &Piece, width: u64, max_groups: u32) -> bool {
    if !matches!(width, 1 | 2 | 4 | 8) || !tile_layout(planned, piece, width, max_groups) {
        return false;
    }
    let piece = in_matrix_order(piece);
    let rank = piece.sizes.len();
    let (r, c) = (rank - 2, rank - 1);
    let whole = |x: u64| x.is_multiple_of(16 / width);
    let strides = |o: usize| &piece.strides[o];
    let batch = |o: usize| strides(o)[..r].iter().all(|&s| whole(s));
    whole(piece.sizes[r])
        && whole(piece.sizes[c])
        && strides(0)[c] == 1
        && whole(strides(0)[r])
        && batch(0)
        && (1..3)
            .filter(|&o| transposed(&piece, o))
            .all(|o| strides(o)[r] == 1 && whole(strides(o)[c]) && batch(o))
}

/// Whether input `o` of a block tile piece of `width`-byte elements (in its matrix order)
/// that is not staged can be read by 16-byte blocks (`B_MODE` 2), its start aside: its rows
/// dense and a multiple of E = 16 / `width` elements apart, and in a batch its matrices too.
/// Otherwise (a broadcast, padded or sliding rows) the kernel reads it element by element.
fn block_rows(piece: &Piece, o: usize, width: u64) -> bool {
    let rank = piece.sizes.len();
    let strides = &piece.strides[o];
    let whole = |x: u64| x.is_multiple_of(16 / width.clamp(1, 16));
    strides[rank - 1] == 1 && strides[..rank - 1].iter().all(|&s| whole(s))
}

/// Whether the block tile kernel can run `piece` with its bindings: its layout
/// ([`block_tile_layout`]), every operand it reads or writes by blocks (the output, the
/// staged inputs, the others whose rows allow it: [`block_rows`]) starting on a 16-byte
/// boundary, and every slot holding whole blocks to the end of what the piece uses (the
/// kernel binds 16-byte blocks).
fn block_tile(planned: KernelKind, piece: &Piece, bound: &Bound, widths: Widths) -> bool {
    let first = |o: usize| bound.start[o] + piece.origin[o] * widths.of(o);
    let ordered = in_matrix_order(piece);
    widths.uniform()
        && block_tile_layout(planned, piece, widths.out(), bound.target.max_groups)
        && (0..3)
            .filter(|&o| o == 0 || transposed(&ordered, o) || block_rows(&ordered, o, widths.out()))
            .all(|o| first(o).is_multiple_of(16))
        && bound.room_for_blocks(piece)
}

/// Whether every output row of a tile piece starts a word where the first does and holds
/// whole words: in its matrix order, its row stride, each batch stride and its columns in
/// bytes multiples of 4 (a padded or sliced output's rows may end inside a word whose other
/// bytes are not the output's). 8- and 16-bit tiles write whole words, one owner each.
fn whole_word_rows(piece: &Piece, width: u64) -> bool {
    let piece = in_matrix_order(piece);
    let rank = piece.sizes.len();
    (piece.sizes[rank - 1] * width).is_multiple_of(4)
        && piece.strides[0][..rank - 1]
            .iter()
            .all(|&s| (s * width).is_multiple_of(4))
}

/// Up to how many bytes of output a CPU-tuned context gathers a 32-bit transpose rather than
/// staging it through tiles ([`KernelTuning`]).
const CPU_UNTILED_32_BIT_BYTES: u64 = 16 << 20;

/// Whether a CPU-tuned context runs a transpose of `piece` without the tile kernel's 32 x 32
/// tiles (the block tile aside, which it takes first where it applies): 64-bit elements
/// always, 32-bit ones up to [`CPU_UNTILED_32_BIT_BYTES`] of output and batches of 32-bit
/// matrices at every size; narrower ones never (their tile path there has no workgroup
/// memory). On lavapipe the tiles lose to gathering (or writing in the inputs' order) for
/// 64-bit transposes at every size measured and for 32-bit ones up to 16 MiB, and win for
/// 32-bit ones at 64 MiB, where the columns of a 4096-row transpose no longer stay in the
/// caches between neighbouring rows (`benches/RESULTS.md`, "Strided layouts"). A batch of
/// 256 matrices of 256 x 256 (the `(0, 2, 1)` permutation of a 64 MiB cube) ran at 0.80 of
/// gathering it on the tiles (1.33 against 1.66 GB/s), and NHWC read as NCHW at 0.99: each
/// matrix's columns fit the caches.
fn untiled_on_cpu(piece: &Piece, width: u64) -> bool {
    let bytes = piece.sizes.iter().product::<u64>().saturating_mul(width);
    width >= 8 || (width == 4 && (bytes <= CPU_UNTILED_32_BIT_BYTES || piece.sizes.len() > 2))
}

/// Whether both inputs of a two-dimensional piece are read across their rows: a tile a
/// CPU-tuned context writes in its inputs' order ([`KernelTuning`]).
fn both_transposed(piece: &Piece) -> bool {
    transposed(piece, 1) && transposed(piece, 2)
}

/// Whether both inputs of a piece of any rank are read across the rows of its matrices
/// ([`in_matrix_order`]): 64-bit tiles a CPU-tuned context keeps off the block tile.
fn both_across(piece: &Piece) -> bool {
    both_transposed(&in_matrix_order(piece))
}

/// Puts `piece` in the order its kernel runs it: as it is; for the tile kernels in its matrix
/// order ([`in_matrix_order`]); or for the scatter kernel chosen under a gather plan (a tile
/// written in its inputs' order, [`KernelTuning`]) with its two dimensions swapped, so that
/// the index runs along the inputs' memory and the output is written across its rows.
pub(crate) fn order_for(planned: KernelKind, kernel: KernelKind, piece: &mut Piece) {
    if matches!(kernel, KernelKind::Tile | KernelKind::BlockTile) {
        if let std::borrow::Cow::Owned(ordered) = in_matrix_order(piece) {
            *piece = ordered;
        }
    } else if planned == KernelKind::Gather && kernel == KernelKind::Spaced {
        piece.sizes.reverse();
        for strides in &mut piece.strides {
            strides.reverse();
        }
    }
}

/// Whether operand `o` of a piece of two or more dimensions runs across memory along its
/// inner dimension (its inner stride is the larger of the last two): what the tile kernel
/// stages. A piece of one row (a window's cut) has no such direction.
fn transposed(piece: &Piece, o: usize) -> bool {
    let rank = piece.sizes.len();
    if rank < 2 {
        return false;
    }
    let (r, c) = (rank - 2, rank - 1);
    piece.sizes[r] > 1 && piece.strides[o][c] > 1 && piece.strides[o][r] < piece.strides[o][c]
}

/// The read mode of A and B (the `A_MODE` / `B_MODE` overrides): for the rows, shifted-rows
/// and contiguous kernels 1 where the input repeats one element across each row (for the
/// contiguous kernel 2 where its rows are whole 16-byte blocks, 3 where one element repeats
/// over its whole one-dimensional run), for the tile kernel 1 where it is staged through
/// workgroup memory, for the block tile kernel 1 where staged and 2 where read by blocks
/// ([`block_rows`]); 0 otherwise.
///
/// The tile kernel stages a transposed input of 8- or 16-bit elements only for a GPU (`cpu`
/// false): there the staged form reads along the input's memory and writes along the
/// output's, each through a tile in workgroup memory; a CPU adapter keeps the form without
/// workgroup memory (each invocation transposes its block in registers, reading across the
/// input's memory), which it runs faster (`benches/RESULTS.md`).
pub(crate) fn modes(kernel: KernelKind, piece: &Piece, width: u64, cpu: bool) -> (u32, u32) {
    if kernel == KernelKind::Tile && width < 4 && cpu {
        return (0, 0);
    }
    let inner = piece.sizes.len() - 1;
    let mode = |o: usize| match kernel {
        KernelKind::Rows | KernelKind::ShiftedRows => u32::from(piece.strides[o][inner] == 0),
        // A repeated input of the contiguous kernel: 3 where one element repeats over the
        // whole run, else 2 where a row is whole 16-byte blocks (one element a block), 1
        // where a block may meet two rows.
        KernelKind::Contiguous if splat_input(piece, o) && inner == 0 => 3,
        KernelKind::Contiguous if splat_input(piece, o) => {
            if (piece.sizes[inner] * width).is_multiple_of(16) {
                2
            } else {
                1
            }
        }
        KernelKind::Tile => u32::from(transposed(piece, o)),
        KernelKind::BlockTile if transposed(piece, o) => 1,
        KernelKind::BlockTile => 2 * u32::from(block_rows(piece, o, width)),
        _ => 0,
    };
    (mode(1), mode(2))
}

/// The `RANK` override: the piece's rank where the kernel has a path for it without a loop
/// of unknown length (1 to 4 for the gather, scatter (spaced or not) and shifted-rows
/// kernels, 2 to 4 for the rows kernel, whose rows have one dimension fewer), else 0; for
/// the tile kernels always (2 to 8: their matrix is two, their batch the rest, and the loop
/// over the batch, once a workgroup, has the constant's length). On lavapipe, rows of rank
/// 4 (a (0, 2, 1, 3) permutation, 64 MiB) ran in 0.86 of the time with it than with the
/// rank read from the record; the tile kernels compile in no batch arithmetic for a single
/// matrix.
pub(crate) fn rank_constant(kernel: KernelKind, rank: usize) -> u32 {
    match (kernel, rank) {
        (
            KernelKind::Gather | KernelKind::Scatter | KernelKind::Spaced | KernelKind::ShiftedRows,
            1..=4,
        )
        | (KernelKind::Rows, 2..=4)
        | (KernelKind::Tile | KernelKind::BlockTile, 2..=MAX_KERNEL_RANK) => rank as u32,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(sizes: &[u64], strides: [&[u64]; 3]) -> Piece {
        Piece::test(sizes, strides)
    }

    /// A GPU-tuned device with WebGPU's grid limit.
    const GPU: Target = Target {
        windows: crate::layout::Limits {
            max_window: 1 << 27,
            offset_alignment: 256,
            max_rank: 8,
        },
        max_groups: 65535,
        strict_aliasing: false,
        cpu: false,
        choices: None,
        tiled: true,
    };

    fn bound(start: [u64; 3]) -> Bound {
        Bound {
            start,
            range: [Some((0, 1 << 21)); 3],
            target: GPU,
        }
    }

    /// [`bound`] at the buffers' start under the fixed rule for CPU adapters.
    fn cpu_bound() -> Bound {
        Bound {
            target: Target { cpu: true, ..GPU },
            ..bound([0; 3])
        }
    }

    #[test]
    fn rows_off_16_byte_boundaries_take_the_shifted_rows_kernel() {
        // Padded u8 rows of 200 with a pitch of 201: no row after the first is aligned.
        let padded = piece(&[8, 200], [&[201, 1], &[200, 1], &[0, 1]]);
        let b = bound([0; 3]);
        assert_eq!(
            choose(KernelKind::Scatter, &padded, &b, 1),
            KernelKind::ShiftedRows
        );
        // A pitch of 208 keeps every row on a boundary: the rows kernel.
        let aligned = piece(&[8, 200], [&[208, 1], &[208, 1], &[0, 1]]);
        assert_eq!(
            choose(KernelKind::Scatter, &aligned, &b, 1),
            KernelKind::Rows
        );
        // One dense run off a boundary, and a run repeating one element.
        let run = piece(&[100], [&[1], &[1], &[1]]);
        let off = bound([4, 0, 0]);
        assert_eq!(
            choose(KernelKind::Contiguous, &run, &off, 1),
            KernelKind::ShiftedRows
        );
        // A run repeating one element whose dense operands are off a boundary.
        let scalar = piece(&[100], [&[1], &[1], &[0]]);
        assert_eq!(
            choose(KernelKind::Gather, &scalar, &bound([0, 4, 0]), 1),
            KernelKind::ShiftedRows
        );
    }

    #[test]
    fn a_run_and_a_repeated_element_take_the_contiguous_kernel_with_the_element_splat() {
        let b = bound([0; 3]);
        for width in [1, 2, 4, 8] {
            // B one element, A one element, both: each repeated input read in mode 3.
            for (strides, read) in [
                ([[1], [1], [0]], (0, 3)),
                ([[1], [0], [1]], (3, 0)),
                ([[1], [0], [0]], (3, 3)),
            ] {
                let p = piece(&[1000], strides.each_ref().map(|s| &s[..]));
                assert_eq!(
                    choose(KernelKind::Gather, &p, &b, width),
                    KernelKind::Contiguous,
                    "{width} {strides:?}"
                );
                assert_eq!(modes(KernelKind::Contiguous, &p, width, false), read);
                assert!(
                    candidates(KernelKind::Gather, &p, width, 65535)
                        .contains(&KernelKind::Contiguous)
                );
            }
        }
        let mut scalar = piece(&[100], [&[1], &[1], &[0]]);
        // Short runs too: the kernel writes a partial block through its mask.
        let short = piece(&[3], [&[1], &[1], &[0]]);
        assert_eq!(
            choose(KernelKind::Gather, &short, &b, 1),
            KernelKind::Contiguous
        );
        // The element's binding must hold its whole 16-byte block, as every binding of the
        // kernel must: a scalar bound alone in 4 bytes goes to the shifted-rows kernel.
        scalar.windows[2] = Some((0, 4));
        let tight = Bound {
            start: [0; 3],
            range: [Some((0, 1 << 21)), Some((0, 1 << 21)), Some((0, 4))],
            target: GPU,
        };
        assert_eq!(
            choose(KernelKind::Gather, &scalar, &tight, 1),
            KernelKind::ShiftedRows
        );
        // Neither a stepped input nor a strided output.
        for strides in [[[1], [2], [0]], [[2], [1], [0]]] {
            let p = piece(&[100], strides.each_ref().map(|s| &s[..]));
            assert!(!channel_layout(&p, 4), "{strides:?}");
        }
        // A dense call has no repeated input: the plan's own contiguous kernel, mode 0.
        assert!(!channel_layout(&piece(&[100], [&[1], &[1], &[1]]), 4));
        // Nor has a call of one element, whose strides are 0: it reads blocks, so that its
        // pipeline is the longer calls' and merges with them.
        for strides in [[[0], [0], [0]], [[1], [0], [1]]] {
            let one = piece(&[1], strides.each_ref().map(|s| &s[..]));
            assert!(!channel_layout(&one, 4));
            assert_eq!(modes(KernelKind::Contiguous, &one, 4, false), (0, 0));
        }
    }

    #[test]
    fn the_shifted_rows_kernel_needs_long_ordered_rows_and_room_for_blocks() {
        let b = bound([0; 3]);
        // Rows shorter than 64 bytes.
        let short = piece(&[8, 63], [&[64, 1], &[63, 1], &[63, 1]]);
        assert_eq!(
            choose(KernelKind::Scatter, &short, &b, 1),
            KernelKind::Scatter
        );
        // An input read with a step.
        let stepped = piece(&[8, 100], [&[101, 1], &[200, 2], &[100, 1]]);
        assert_eq!(
            choose(KernelKind::Scatter, &stepped, &b, 1),
            KernelKind::Scatter
        );
        // Interleaved output rows: row 1 starts inside row 0.
        let interleaved = piece(&[2, 100], [&[50, 1], &[100, 1], &[100, 1]]);
        assert!(!nested(&interleaved));
        assert_eq!(
            choose(KernelKind::Scatter, &interleaved, &b, 1),
            KernelKind::Scatter
        );
        // Outer dimensions in order only when each stride spans the block inside it.
        let outer = |s0: u64| piece(&[3, 2, 100], [&[s0, 101, 1], &[0; 3], &[0; 3]]);
        assert!(nested(&outer(201)));
        assert!(!nested(&outer(200)));
        // The shifted-rows kernel touches only words that hold the operands' bytes, so it
        // needs no room after them; the contiguous kernel does.
        let mut run = piece(&[100], [&[1], &[1], &[1]]);
        run.windows = [Some((0, 100)), Some((0, 100)), Some((0, 100))];
        let tight = Bound {
            start: [0; 3],
            range: [Some((0, 100)); 3],
            target: GPU,
        };
        assert_eq!(
            choose(KernelKind::Contiguous, &run, &tight, 1),
            KernelKind::ShiftedRows
        );
    }

    #[test]
    fn outputs_whose_elements_never_share_a_word_are_spaced() {
        let b = bound([0; 3]);
        let kernel = |sizes: [u64; 2], strides: [u64; 2], width: u64| {
            let packed = [sizes[1], 1];
            choose(
                KernelKind::Scatter,
                &piece(&sizes, [&strides, &packed, &packed]),
                &b,
                width,
            )
        };
        // One channel of interleaved RGBA u8 (a step of 4 bytes), and every other u16.
        assert_eq!(kernel([8, 10], [40, 4], 1), KernelKind::Spaced);
        assert_eq!(kernel([8, 10], [20, 2], 2), KernelKind::Spaced);
        // Every other u8 shares words; so do rows whose last and first elements are 2 bytes
        // apart, and interleaved rows.
        assert_eq!(kernel([8, 10], [20, 2], 1), KernelKind::Scatter);
        assert_eq!(kernel([8, 10], [38, 4], 1), KernelKind::Scatter);
        assert_eq!(kernel([2, 10], [2, 8], 2), KernelKind::Scatter);
        // 32- and 64-bit elements always own their words.
        assert_eq!(kernel([4, 5], [10, 2], 4), KernelKind::Spaced);
        assert_eq!(kernel([4, 5], [7, 1], 8), KernelKind::Spaced);
    }

    #[test]
    fn batches_anywhere_in_memory_run_the_tile_kernels_in_matrix_order() {
        let gpu = bound([0; 3]);
        let cpu = cpu_bound();
        // A (2, 1, 0) permutation: A's rows (stride 1) are the output's outer dimension, the
        // batch lies between them and the columns.
        let reversed = piece(&[64, 8, 64], [&[512, 64, 1], &[1, 64, 512], &[512, 64, 1]]);
        let ordered = in_matrix_order(&reversed);
        assert_eq!(ordered.sizes, [8, 64, 64]);
        assert_eq!(
            ordered.strides,
            [vec![64, 512, 1], vec![64, 1, 512], vec![64, 512, 1]]
        );
        // A (0, 3, 2, 1) permutation: two batch dimensions that do not merge.
        let swapped = piece(
            &[2, 64, 4, 64],
            [
                &[16384, 256, 64, 1],
                &[16384, 1, 64, 256],
                &[16384, 256, 64, 1],
            ],
        );
        let ordered = in_matrix_order(&swapped);
        assert_eq!(ordered.sizes, [2, 4, 64, 64]);
        assert_eq!(ordered.strides[1], [16384, 64, 1, 256]);
        for width in [1, 2, 4, 8] {
            for p in [&reversed, &swapped] {
                assert_eq!(
                    choose(KernelKind::Gather, p, &gpu, width),
                    KernelKind::BlockTile
                );
                // One input read across its rows: the block tile on CPUs too.
                assert_eq!(
                    choose(KernelKind::Gather, p, &cpu, width),
                    KernelKind::BlockTile
                );
                // In the order lowering gives the kernel, the staged input is read along
                // its rows.
                let mut run = p.clone();
                order_for(KernelKind::Gather, KernelKind::BlockTile, &mut run);
                assert_eq!(modes(KernelKind::BlockTile, &run, width, false), (1, 2));
            }
        }
        // Not whole blocks (rows of 30): the tile kernel, also in matrix order; an output
        // batch whose matrices start inside a word keeps 8-bit elements off it.
        let odd = piece(&[30, 8, 64], [&[512, 64, 1], &[1, 30, 240], &[512, 64, 1]]);
        assert_eq!(choose(KernelKind::Gather, &odd, &gpu, 4), KernelKind::Tile);
        let mid_word = piece(&[32, 2, 34], [&[68, 34, 1], &[1, 32, 64], &[68, 34, 1]]);
        assert_eq!(
            choose(KernelKind::Gather, &mid_word, &gpu, 2),
            KernelKind::Tile
        );
        assert_eq!(
            choose(KernelKind::Gather, &mid_word, &gpu, 1),
            KernelKind::Gather
        );
        // Three batch dimensions and more, as many as a piece has: permutations that
        // reverse every dimension (none merging) tile, in matrix order.
        let deep = reversed_piece(&[64, 4, 4, 4, 64]);
        assert_eq!(in_matrix_order(&deep).sizes, [4, 4, 4, 64, 64]);
        assert_eq!(in_matrix_order(&deep).strides[1], [64, 256, 1024, 1, 4096]);
        assert_eq!(
            choose(KernelKind::Gather, &deep, &gpu, 4),
            KernelKind::BlockTile
        );
        let odd_deep = reversed_piece(&[33, 2, 3, 2, 3, 2, 3, 35]);
        assert_eq!(
            choose(KernelKind::Gather, &odd_deep, &gpu, 4),
            KernelKind::Tile
        );
        // Small matrices (a sixteenth of a tile) are gathered, on either rule.
        let small = reversed_piece(&[8, 4, 4, 8]);
        for bound in [&gpu, &cpu] {
            assert_eq!(
                choose(KernelKind::Gather, &small, bound, 4),
                KernelKind::Gather
            );
        }
        // A matrix or a batch already in order is itself.
        assert!(matches!(
            in_matrix_order(&swapped_back()),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    /// A packed output of `sizes` whose A reads every dimension reversed (its first
    /// dimension innermost in memory), and B packed.
    fn reversed_piece(sizes: &[u64]) -> Piece {
        let rank = sizes.len();
        let (mut packed, mut reversed) = (vec![1; rank], vec![1; rank]);
        for d in (0..rank - 1).rev() {
            packed[d] = packed[d + 1] * sizes[d + 1];
        }
        for d in 1..rank {
            reversed[d] = reversed[d - 1] * sizes[d - 1];
        }
        piece(sizes, [&packed, &reversed, &packed])
    }

    /// A (0, 2, 1) permutation of a batch of 4 matrices: in matrix order already.
    fn swapped_back() -> Piece {
        piece(&[4, 16, 16], [&[256, 16, 1], &[256, 1, 16], &[256, 16, 1]])
    }

    #[test]
    fn batches_of_transposes_run_the_tile_kernel() {
        let gpu = bound([0; 3]);
        let cpu = cpu_bound();
        // A (0, 2, 1) permutation of a [b, 64, 64] cube, and both inputs so.
        let one = |b: u64| {
            piece(
                &[b, 64, 64],
                [&[4096, 64, 1], &[4096, 1, 64], &[4096, 64, 1]],
            )
        };
        let both = |b: u64| {
            piece(
                &[b, 64, 64],
                [&[4096, 64, 1], &[4096, 1, 64], &[4096, 1, 64]],
            )
        };
        for width in [1, 2, 4, 8] {
            // Matrices of whole blocks: the block tile.
            let tile = KernelKind::BlockTile;
            assert_eq!(choose(KernelKind::Gather, &one(3), &gpu, width), tile);
            assert_eq!(choose(KernelKind::Gather, &both(3), &gpu, width), tile);
            // However many matrices: the grid counts them.
            assert_eq!(choose(KernelKind::Gather, &one(4096), &gpu, width), tile);
            // Tuned for CPUs, batches of whole blocks run the block tile but for 64-bit
            // elements with both inputs transposed, which gather at any size; a batch is
            // never written in its inputs' order (the spaced kernel), one matrix at a time.
            let untiled = if width == 8 {
                KernelKind::Gather
            } else {
                KernelKind::BlockTile
            };
            assert_eq!(choose(KernelKind::Gather, &one(3), &cpu, width), tile);
            assert_eq!(choose(KernelKind::Gather, &both(3), &cpu, width), untiled);
            assert_eq!(choose(KernelKind::Gather, &one(1000), &cpu, width), tile);
            assert!(
                !candidates(KernelKind::Gather, &both(3), width, 65535)
                    .contains(&KernelKind::Spaced)
            );
        }
    }

    /// Transposes of one and two inputs, as matrices and batches, of whole blocks and not;
    /// broadcasts by rows and columns, padded and short rows, a stepped output.
    fn varied_pieces() -> Vec<Piece> {
        vec![
            piece(&[64, 48], [&[48, 1], &[1, 64], &[48, 1]]),
            piece(&[64, 48], [&[48, 1], &[1, 64], &[1, 64]]),
            piece(&[62, 46], [&[46, 1], &[1, 62], &[1, 62]]),
            piece(
                &[3, 64, 48],
                [&[3072, 48, 1], &[3072, 1, 64], &[3072, 1, 64]],
            ),
            piece(
                &[3, 62, 46],
                [&[2852, 46, 1], &[2852, 1, 62], &[2852, 48, 1]],
            ),
            piece(&[64, 48], [&[96, 2], &[48, 1], &[0, 1]]),
            piece(&[8, 200], [&[201, 1], &[200, 1], &[0, 1]]),
            piece(&[8, 256], [&[256, 1], &[256, 1], &[0, 1]]),
            piece(&[8, 256], [&[256, 1], &[256, 1], &[1, 0]]),
            piece(&[4, 8, 64], [&[512, 64, 1], &[512, 64, 1], &[0, 64, 1]]),
            piece(&[100, 3], [&[5, 1], &[3, 1], &[3, 1]]),
            piece(&[4096], [&[2], &[1], &[1]]),
        ]
    }

    #[test]
    fn a_kernel_fits_a_piece_only_where_it_is_a_candidate() {
        // Measured choices are taken only where `fits` says so, and measured only among the
        // candidates: a kernel that fits must be one. Every width, both plan families.
        let pieces = varied_pieces();
        for p in &pieces {
            for planned in [KernelKind::Gather, KernelKind::Scatter] {
                for width in [1, 2, 4, 8] {
                    let listed = candidates(planned, p, width, 65535);
                    for kernel in KernelKind::DISPATCHING {
                        if fits(kernel, planned, p, &bound([0; 3]), Widths::from(width)) {
                            assert!(
                                listed.contains(&kernel),
                                "{kernel:?} fits {planned:?} {width} {p:?}, not among {listed:?}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn keys_tell_layouts_sizes_widths_and_kernels_apart() {
        let transposed = |n: u64| piece(&[n, n], [&[n, 1], &[1, n], &[n, 1]]);
        let key = |p: &Piece, w: u64| key_of(KernelKind::Gather, p, w, 65535).unwrap();
        // One class: u32 4096^2 (64 MiB, 4^13 bytes) and 5000^2 (under 4^14).
        assert_eq!(key(&transposed(4096), 4).size_class(), 13);
        assert_eq!(key(&transposed(5000), 4), key(&transposed(4096), 4));
        assert_ne!(key(&transposed(2048), 4), key(&transposed(4096), 4));
        assert_ne!(key(&transposed(4096), 4), key(&transposed(4096), 8));
        let rows = piece(&[4096, 4096], [&[4096, 1], &[4096, 1], &[0, 1]]);
        assert_ne!(key(&rows, 4), key(&transposed(4096), 4));
        assert_eq!(key(&transposed(64), 4).rank(), 2);
        assert_eq!(key(&transposed(64), 4).element_bytes(), 4);
        assert_eq!(
            key(&transposed(64), 4).to_string(),
            "gather rank 2, 4-byte elements, 4^7 bytes, strides out [n 1] a [1 n] b [n 1], \
             kernels [Gather, Tile, BlockTile]"
        );
        // The kernels set apart what the rest cannot: 16-bit transposes of sides 720 and
        // 724 share a size class, but only the first has sides of whole 16-byte blocks.
        let (whole, ragged) = (key(&transposed(720), 2), key(&transposed(724), 2));
        assert_eq!(whole.size_class(), ragged.size_class());
        assert_ne!(whole, ragged);
        assert!(whole.kernels().contains(&KernelKind::BlockTile));
        assert!(!ragged.kernels().contains(&KernelKind::BlockTile));
        assert!(ragged.kernels().contains(&KernelKind::Tile));
        // A grid too small for the tiles' rows leaves them out.
        let narrow = key_of(KernelKind::Gather, &transposed(4096), 4, 16).unwrap();
        assert_eq!(narrow.kernels(), [KernelKind::Gather]);
        // No key for a dense call or for two element sizes.
        assert_eq!(
            key_of(KernelKind::Contiguous, &transposed(8), 4, 65535),
            None
        );
        assert_eq!(
            key_of(KernelKind::Gather, &transposed(8), Widths([4, 1, 1]), 65535),
            None
        );
    }

    #[test]
    fn a_piece_s_rule_is_among_the_kernels_of_its_class() {
        // A measured choice is timed against the kernels of its class (`runnable_at_start`,
        // the kernels of a `TuningKey`): wherever a call is bound, under either adapter
        // class, its rule's kernel must be one of them, or a choice would replace a kernel
        // it was never timed against.
        let pieces = varied_pieces();
        for p in &pieces {
            for planned in [KernelKind::Gather, KernelKind::Scatter] {
                for width in [1, 2, 4, 8] {
                    let class = runnable_at_start(planned, p, width, 65535);
                    for start in [[0; 3], [4, 0, 0], [0, 2, 6], [16, 48, 32], [1, 3, 5]] {
                        for cpu in [false, true] {
                            let b = Bound {
                                target: Target { cpu, ..GPU },
                                ..bound(start)
                            };
                            let ruled = rule(planned, p, &b, Widths::from(width));
                            assert!(
                                class.contains(&ruled),
                                "{ruled:?} for {planned:?} {width} {p:?} at {start:?} \
                                 (cpu {cpu}), not among {class:?}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn block_tiles_run_only_where_every_block_is_whole_and_aligned() {
        let gpu = bound([0; 3]);
        let tile = |p: &Piece, b: &Bound| choose(KernelKind::Gather, p, b, 4);
        // A 64 x 48 transpose, B dense or repeating one element per row.
        let a_t = piece(&[64, 48], [&[48, 1], &[1, 64], &[48, 1]]);
        let broadcast = piece(&[64, 48], [&[48, 1], &[1, 64], &[1, 0]]);
        let both = piece(&[64, 48], [&[48, 1], &[1, 64], &[1, 68]]);
        for p in [&a_t, &broadcast, &both] {
            assert_eq!(tile(p, &gpu), KernelKind::BlockTile);
            assert!(candidates(KernelKind::Gather, p, 4, 65535).contains(&KernelKind::BlockTile));
        }
        // B read by blocks (mode 2), or by words where its rows are not (mode 0).
        assert_eq!(modes(KernelKind::BlockTile, &a_t, 4, false), (1, 2));
        assert_eq!(modes(KernelKind::BlockTile, &broadcast, 4, true), (1, 0));
        assert_eq!(modes(KernelKind::BlockTile, &both, 4, false), (1, 1));
        // B dense off a block boundary: the tile kernel; B read by words may start anywhere.
        assert_eq!(tile(&a_t, &bound([0, 0, 4])), KernelKind::Tile);
        assert_eq!(tile(&broadcast, &bound([0, 0, 4])), KernelKind::BlockTile);
        // Rows or columns not multiples of 4, A's rows two elements apart, its columns or
        // the output's rows not 4 apart: the tile kernel, and no block tile candidate.
        for p in [
            piece(&[62, 48], [&[48, 1], &[1, 62], &[48, 1]]),
            piece(&[64, 46], [&[46, 1], &[1, 64], &[46, 1]]),
            piece(&[64, 48], [&[48, 1], &[2, 130], &[48, 1]]),
            piece(&[64, 48], [&[48, 1], &[1, 66], &[48, 1]]),
            piece(&[64, 48], [&[50, 1], &[1, 64], &[48, 1]]),
            // A batch whose matrices of A are 2 elements apart.
            piece(
                &[2, 64, 48],
                [&[3072, 48, 1], &[3074, 1, 64], &[3072, 48, 1]],
            ),
        ] {
            assert_eq!(tile(&p, &gpu), KernelKind::Tile, "{p:?}");
            assert!(!candidates(KernelKind::Gather, &p, 4, 65535).contains(&KernelKind::BlockTile));
        }
        // The output or a staged input off a 16-byte boundary, or a binding that ends
        // inside the last block: the tile kernel.
        for start in [[4, 0, 0], [0, 8, 0]] {
            assert_eq!(tile(&a_t, &bound(start)), KernelKind::Tile);
        }
        let short = Bound {
            range: [
                Some((0, 64 * 48 * 4)),
                Some((0, 64 * 48 * 4 - 4)),
                Some((0, 1 << 21)),
            ],
            ..bound([0; 3])
        };
        assert_eq!(tile(&a_t, &short), KernelKind::Tile);
        // Every width whose blocks (16 / width elements) divide the sides: 64 x 48 for each,
        // 64 x 40 for all but 8-bit elements (16 to a block); 8-bit ones of either fill less
        // than a quarter of a block tile of 64 x 256 and take the tile kernel.
        let forty = piece(&[64, 40], [&[40, 1], &[1, 64], &[40, 1]]);
        for width in [1, 2, 4, 8] {
            let kernel = if width == 1 {
                KernelKind::Tile
            } else {
                KernelKind::BlockTile
            };
            assert_eq!(choose(KernelKind::Gather, &a_t, &gpu, width), kernel);
            assert_eq!(choose(KernelKind::Gather, &forty, &gpu, width), kernel);
        }
    }

    #[test]
    fn tile_kernels_run_matrices_that_fill_a_quarter_of_their_tiles() {
        let matrix = |r: u64, c: u64| piece(&[r, c], [&[c, 1], &[1, r], &[c, 1]]);
        // A quarter exactly, just under, a narrow and a flat one, one over many tiles.
        for (r, c, fills) in [
            (16, 16, true),
            (15, 16, false),
            (33, 8, false),
            (2048, 2, false),
            (2, 2048, false),
            (40, 40, true),
            (4096, 8, true),
        ] {
            assert_eq!(fills_tiles(&matrix(r, c), (32, 32)), fills, "{r} x {c}");
        }
        // Judged in matrix order: a (2, 1, 0) permutation's rows are its outer dimension.
        let reversed = reversed_piece(&[64, 100, 2]);
        assert_eq!(in_matrix_order(&reversed).sizes, [100, 64, 2]);
        assert!(!fills_tiles(&reversed, (32, 32)));
        assert!(fills_tiles(&reversed_piece(&[64, 100, 16]), (32, 32)));
        // The fixed rules gather what no tile kernel fills: two columns of 2,048 rows.
        for bound in [&bound([0; 3]), &cpu_bound()] {
            assert_eq!(
                choose(KernelKind::Gather, &matrix(2048, 2), bound, 4),
                KernelKind::Gather
            );
        }
        assert!(
            candidates(KernelKind::Gather, &matrix(2048, 2), 4, 65535).contains(&KernelKind::Tile)
        );
    }

    #[test]
    fn narrow_tiles_stage_their_transposed_inputs_on_gpus_only() {
        let p = piece(&[64, 64], [&[64, 1], &[1, 64], &[64, 1]]);
        for width in [1, 2] {
            assert_eq!(modes(KernelKind::Tile, &p, width, false), (1, 0));
            assert_eq!(modes(KernelKind::Tile, &p, width, true), (0, 0));
        }
        // 32- and 64-bit tiles always stage them.
        for width in [4, 8] {
            assert_eq!(modes(KernelKind::Tile, &p, width, true), (1, 0));
        }
    }

    #[test]
    fn cpu_tuning_gathers_small_wide_transposes_that_no_block_tile_takes() {
        let cpu = cpu_bound();
        let transposed = |n: u64| piece(&[n, n], [&[n, 1], &[1, n], &[n, 1]]);
        let both = |n: u64| piece(&[n, n], [&[n, 1], &[1, n], &[1, n]]);
        let gpu = bound([0; 3]);
        for (n, width) in [(2048, 4), (4096, 4), (2048, 8), (4096, 8)] {
            // Whole blocks: the block tile, but two transposed inputs of 64-bit elements on
            // CPUs, which are written in their order at every size.
            let (one, two) = if width == 8 {
                (KernelKind::BlockTile, KernelKind::Spaced)
            } else {
                (KernelKind::BlockTile, KernelKind::BlockTile)
            };
            assert_eq!(choose(KernelKind::Gather, &transposed(n), &cpu, width), one);
            assert_eq!(choose(KernelKind::Gather, &both(n), &cpu, width), two);
            // Tuned for GPUs: the block tile at every size.
            assert_eq!(
                choose(KernelKind::Gather, &transposed(n), &gpu, width),
                KernelKind::BlockTile
            );
        }
        // Off whole blocks, 32-bit transposes up to 16 MiB gather on CPUs and tile above;
        // 8-bit ones keep the tile kernel's register blocks where they fill a quarter of its
        // 32 x 128 tiles (a 40 x 40 one fills 0.20 of them, and is gathered).
        for (n, width, kernel) in [
            (2046, 4, KernelKind::Gather),
            (4094, 4, KernelKind::Tile),
            (72, 1, KernelKind::Tile),
            (40, 1, KernelKind::Gather),
        ] {
            assert_eq!(
                choose(KernelKind::Gather, &transposed(n), &cpu, width),
                kernel
            );
        }
    }

    #[test]
    fn interleaved_outputs_are_cut_into_nested_parts() {
        // Every other u8 and short padded rows are nested: one piece.
        let stepped = piece(&[100], [&[2], &[1], &[1]]);
        assert!(nested(&stepped));
        assert_eq!(owned_pieces(stepped.clone(), 1), [stepped]);
        let rows = piece(&[10, 3], [&[5, 1], &[3, 1], &[3, 1]]);
        assert!(nested(&rows));
        // Rows at offsets 3i + 2j: row 1 starts inside row 0. Cut along the inner dimension
        // into three parts of stride 3, at element offsets 0, 2 and 4 (inputs 0, 1 and 2).
        let interleaved = piece(&[7, 3], [&[3, 2], &[3, 1], &[0, 1]]);
        assert!(!nested(&interleaved));
        let parts = owned_pieces(interleaved, 1);
        assert_eq!(parts.len(), 3);
        for (i, part) in parts.iter().enumerate() {
            assert!(nested(part));
            assert_eq!(part.sizes, [7, 1]);
            assert_eq!(part.origin, [2 * i as u64, i as u64, i as u64]);
        }
        // 16-bit elements 6 bytes apart never share a word: no cut needed for those parts,
        // and a spaced whole is not cut at all.
        let spaced_whole = piece(&[7, 3], [&[6, 2], &[3, 1], &[3, 1]]);
        assert_eq!(owned_pieces(spaced_whole.clone(), 2), [spaced_whole]);
    }

    #[test]
    fn candidates_hold_every_choice() {
        let padded = piece(&[8, 200], [&[201, 1], &[200, 1], &[0, 1]]);
        let all = candidates(KernelKind::Scatter, &padded, 1, 65535);
        assert_eq!(
            all,
            [
                KernelKind::Scatter,
                KernelKind::Rows,
                KernelKind::ShiftedRows
            ]
        );
        let run = piece(&[100], [&[1], &[1], &[1]]);
        let all = candidates(KernelKind::Contiguous, &run, 1, 65535);
        assert_eq!(
            all,
            [
                KernelKind::Contiguous,
                KernelKind::Gather,
                KernelKind::ShiftedRows
            ]
        );
    }
}
