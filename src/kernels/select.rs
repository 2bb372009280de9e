//! Which kernel runs one piece, once its bindings are known.
//!
//! The plan names a family from the layout alone; the bindings decide whether the faster
//! `vec4<u32>` kernels may run (every dense run on a 16-byte boundary, and room in the bound
//! range to read whole 16-byte blocks at its end) and the piece's shape picks the 2-D kernels.

use super::dispatch::{TILE, WORKGROUP_SIZE};
use crate::layout::{KernelKind, Piece};

/// Rows shorter than this many 16-byte blocks leave too many idle invocations for the rows
/// kernel; the gather kernel takes them.
const MIN_ROW_BLOCKS: u64 = 8;

/// What the choice needs to know of the bindings.
pub(crate) struct Bound {
    /// Byte offset of each operand's first element in its buffer (`OUT`, `A`, `B`).
    pub start: [u64; 3],
    /// Per slot, the bound byte range in its buffer (its start is a multiple of 16).
    pub range: [Option<(u64, u64)>; 3],
    /// The device's `max_compute_workgroups_per_dimension`.
    pub max_groups: u32,
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

pub(crate) fn choose(planned: KernelKind, piece: &Piece, bound: &Bound, width: u64) -> KernelKind {
    let first = |o: usize| bound.start[o] + piece.origin[o] * width;
    match planned {
        KernelKind::Contiguous => {
            let aligned = (0..3).all(|o| first(o).is_multiple_of(16));
            if aligned && bound.room_for_blocks(piece) {
                KernelKind::Contiguous
            } else {
                KernelKind::Gather
            }
        }
        KernelKind::Gather | KernelKind::Scatter if piece.sizes.len() >= 2 => {
            let inner = piece.sizes.len() - 1;
            let stride = |o: usize, d: usize| piece.strides[o][d];
            // Every dense run starts on a 16-byte boundary, and so does every row.
            let rows_aligned = (0..3).filter(|&o| stride(o, inner) == 1).all(|o| {
                first(o).is_multiple_of(16)
                    && (0..inner)
                        .all(|d| piece.sizes[d] == 1 || (stride(o, d) * width).is_multiple_of(16))
            });
            if rows_layout(piece, width, bound.max_groups)
                && rows_aligned
                && bound.room_for_blocks(piece)
            {
                KernelKind::Rows
            } else if tile_layout(planned, piece, width, bound.max_groups) {
                KernelKind::Tile
            } else {
                planned
            }
        }
        other => other,
    }
}

/// Every kernel [`choose`] can pick for `piece` under some bindings: what the layout allows,
/// whatever the alignment of the bound ranges.
pub(crate) fn candidates(
    planned: KernelKind,
    piece: &Piece,
    width: u64,
    max_groups: u32,
) -> Vec<KernelKind> {
    match planned {
        KernelKind::Empty => Vec::new(),
        KernelKind::Contiguous => vec![KernelKind::Contiguous, KernelKind::Gather],
        KernelKind::Gather | KernelKind::Scatter if piece.sizes.len() >= 2 => {
            let mut kernels = vec![planned];
            if rows_layout(piece, width, max_groups) {
                kernels.push(KernelKind::Rows);
            }
            if tile_layout(planned, piece, width, max_groups) {
                kernels.push(KernelKind::Tile);
            }
            kernels
        }
        other => vec![other],
    }
}

/// Whether the layout of `piece` (rank 2 or more) suits the rows kernel, alignment aside:
/// rows dense in the output and dense or repeated in each input, long enough to keep a
/// workgroup busy, and few enough blocks per row for one grid dimension.
fn rows_layout(piece: &Piece, width: u64, max_groups: u32) -> bool {
    let inner = piece.sizes.len() - 1;
    let row_blocks = (piece.sizes[inner] * width).div_ceil(16);
    (0..3).all(|o| piece.strides[o][inner] <= 1)
        && piece.strides[0][inner] == 1
        && row_blocks >= MIN_ROW_BLOCKS
        && row_blocks.div_ceil(u64::from(WORKGROUP_SIZE)) <= u64::from(max_groups)
}

/// Whether `piece` suits the tile kernel: two dimensions of 32- or 64-bit elements with a
/// transposed input, under a gather plan.
fn tile_layout(planned: KernelKind, piece: &Piece, width: u64, max_groups: u32) -> bool {
    planned == KernelKind::Gather
        && piece.sizes.len() == 2
        && width >= 4
        && (transposed(piece, 1) || transposed(piece, 2))
        && piece.sizes[1].div_ceil(TILE) <= u64::from(max_groups)
}

/// Whether operand `o` of a two-dimensional piece runs across memory along its inner
/// dimension (its inner stride is the larger): what the tile kernel stages.
fn transposed(piece: &Piece, o: usize) -> bool {
    piece.strides[o][1] > 1 && piece.strides[o][0] < piece.strides[o][1]
}

/// The read mode of A and B (the `A_MODE` / `B_MODE` overrides): for the rows kernel 1 where
/// the input repeats one element across each row, for the tile kernel 1 where it is staged
/// through workgroup memory; 0 otherwise.
pub(crate) fn modes(kernel: KernelKind, piece: &Piece) -> (u32, u32) {
    let inner = piece.sizes.len() - 1;
    let mode = |o: usize| match kernel {
        KernelKind::Rows => u32::from(piece.strides[o][inner] == 0),
        KernelKind::Tile => u32::from(transposed(piece, o)),
        _ => 0,
    };
    (mode(1), mode(2))
}

/// The `RANK` override: the piece's rank where the kernel has a loop-free path for it (1 or 2
/// for the gather and scatter kernels, 2 for the rows kernel), else 0.
pub(crate) fn rank_constant(kernel: KernelKind, rank: usize) -> u32 {
    match (kernel, rank) {
        (KernelKind::Gather | KernelKind::Scatter, 1 | 2) | (KernelKind::Rows, 2) => rank as u32,
        _ => 0,
    }
}
