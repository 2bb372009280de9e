//! Dispatch sizing: from one piece of the work to its metadata record and grid.

use super::params::{Divisor, MAX_KERNEL_RANK, Params};
use crate::layout::{KernelKind, Piece, Widths};

/// Invocations per workgroup of the one-dimensional kernels (`@workgroup_size(256)`).
pub const WORKGROUP_SIZE: u32 = 256;

/// Side of the tile kernel's square tile (`TILE` in tile.wgsl): a TILE x TILE tile per
/// TILE x ROWS_PER_PASS workgroup (`@workgroup_size(32, 8)`).
pub const TILE: u64 = 32;

/// Rows of the block tile kernel's tile (`ROWS` in block_tile.wgsl); each row is 64 words, so
/// a 256-invocation workgroup moves 1,024 16-byte blocks, four each.
pub const BLOCK_TILE: u64 = 64;

/// The rows and columns of output one workgroup of the block tile kernel covers: 64 rows of
/// 64 words of `width`-byte elements.
pub(crate) fn block_tile_shape(width: u64) -> (u64, u64) {
    (BLOCK_TILE, BLOCK_TILE * 4 / width.clamp(1, 8))
}

/// Output rows of a tile each pass of the tile kernel covers (`ROWS_PER_PASS` in tile.wgsl),
/// and the workgroup's height.
pub const ROWS_PER_PASS: u32 = 8;

/// Word rows of the staged tile of 8- and 16-bit elements (`WORD_ROWS` in tile.wgsl): the
/// tile is `WORD_ROWS` words of L rows each by `WORD_ROWS` words of L columns.
pub const WORD_ROWS: u64 = 16;

/// The rows and columns of output one workgroup of the tile kernel covers: a TILE x TILE tile
/// for 32- and 64-bit elements; for narrower ones an L x L block per invocation (L elements
/// to a word), so 8L x 32L, or where a transposed input is staged through workgroup memory
/// (`staged`, a GPU's form) a square of 16L x 16L.
pub(crate) fn tile_shape(width: u64, staged: bool) -> (u64, u64) {
    if width >= 4 {
        (TILE, TILE)
    } else if staged {
        let side = WORD_ROWS * (4 / width);
        (side, side)
    } else {
        let lanes = 4 / width;
        (u64::from(ROWS_PER_PASS) * lanes, TILE * lanes)
    }
}

/// How the tile kernels run a piece: whether an input of 8- or 16-bit elements is staged
/// through workgroup memory (its tile's shape, [`tile_shape`]), and whether a batch runs one
/// record per matrix rather than on one grid (`select::tile_per_matrix`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct TileForm {
    pub staged: bool,
    pub per_matrix: bool,
}

/// One call's record and the grid it runs on (x and y; the dispatch's z picks the record).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dispatch {
    /// The call's metadata record.
    pub params: Params,
    /// Workgroups in x and y.
    pub groups: [u32; 2],
}

/// Builds the records and grids of one piece: one record, or for the tile kernels one per
/// `max_groups` tile rows of the piece's matrices, a batch of any rank counted into one grid
/// ([`tile_records`]), which then run as separate calls.
///
/// `start[o]` is operand `o`'s byte offset in its buffer, `window_start[o]` the offset at
/// which the binding it is read through starts, `widths` the element sizes and `max_groups`
/// the device's `max_compute_workgroups_per_dimension`; `tile` how a tile piece runs. The
/// split and the kernel choice guarantee that every offset and count here fits in 32 bits
/// and every grid dimension in `max_groups` (a window spans at most 256 bytes per workgroup
/// of a `max_groups` by `max_groups` grid, and a flat kernel has at most one unit a byte).
pub(crate) fn build(
    kernel: KernelKind,
    piece: &Piece,
    start: [u64; 3],
    window_start: [u64; 3],
    widths: impl Into<Widths>,
    max_groups: u32,
    tile: TileForm,
) -> Vec<Dispatch> {
    let widths = widths.into();
    // Every count below is of output elements, words or blocks: the kernels' WIDTH is the
    // output's. Each operand's base offset is in its own elements.
    let width = widths.out();
    let max_groups = u64::from(max_groups.max(1));
    let elements: u64 = piece.sizes.iter().product();
    let rank = piece.sizes.len();
    let rel: [u64; 3] = std::array::from_fn(|o| {
        let w = widths.of(o);
        (start[o] + piece.origin[o] * w - window_start[o]) / w
    });
    let mut params = Params {
        base: [to_u32(rel[0]), to_u32(rel[1]), to_u32(rel[2]), 0],
        ..Params::default()
    };
    for (d, &size) in piece.sizes.iter().enumerate() {
        params.sizes[d] = to_u32(size);
        // A stride only matters where the size is above 1; zero keeps unused ones in range.
        let keep = |s: u64| if size > 1 { to_u32(s) } else { 0 };
        params.out_strides[d] = keep(piece.strides[0][d]);
        params.a_strides[d] = keep(piece.strides[1][d]);
        params.b_strides[d] = keep(piece.strides[2][d]);
        let (by_size, by_stride) = (
            Divisor::new(params.sizes[d]),
            Divisor::new(params.out_strides[d]),
        );
        params.size_magic[d] = by_size.magic;
        params.stride_magic[d] = by_stride.magic;
        params.shifts[d] =
            by_size.shift1 | by_size.shift2 << 8 | by_stride.shift1 << 16 | by_stride.shift2 << 24;
    }
    match kernel {
        KernelKind::Tile | KernelKind::BlockTile => {
            let (tile_rows, tile_cols) = if kernel == KernelKind::BlockTile {
                block_tile_shape(width)
            } else {
                tile_shape(width, tile.staged)
            };
            if !tile.per_matrix || rank == 2 {
                return tile_records(&params, rank, tile_rows, tile_cols, max_groups);
            }
            // Each matrix a two-dimensional call of its own, its operands' first elements
            // stepped by the batch strides.
            let (r, c) = (rank - 2, rank - 1);
            let mut matrix = Params {
                base: params.base,
                ..Params::default()
            };
            for (slot, d) in [r, c].into_iter().enumerate() {
                move_dimension(&mut matrix, slot, &params, d);
            }
            let matrices: u64 = piece.sizes[..r].iter().product();
            (0..matrices)
                .flat_map(|mut i| {
                    let mut p = matrix;
                    for d in (0..r).rev() {
                        let index = i % piece.sizes[d];
                        i /= piece.sizes[d];
                        for (o, base) in p.base.iter_mut().take(3).enumerate() {
                            *base = to_u32(u64::from(*base) + index * piece.strides[o][d]);
                        }
                    }
                    tile_records(&p, 2, tile_rows, tile_cols, max_groups)
                })
                .collect()
        }
        _ => {
            // Units of work, and `head.w`: the elements, or the shifted-rows kernel's runs
            // per row.
            let (units, last) = match kernel {
                KernelKind::Contiguous => ((elements * width).div_ceil(16), elements),
                KernelKind::Rows => {
                    // Every (row, block) pair on the flat grid; `head.w` the blocks a row.
                    let blocks = (piece.sizes[rank - 1] * width).div_ceil(16);
                    (elements / piece.sizes[rank - 1] * blocks, blocks)
                }
                KernelKind::ShiftedRows => {
                    let inner = piece.sizes[rank - 1];
                    let runs = shifted_row_invocations(inner * width);
                    (elements / inner * runs, runs)
                }
                KernelKind::Gather if width < 4 => {
                    let first = rel[0] * width / 4;
                    let end = ((rel[0] + elements) * width).div_ceil(4);
                    (end - first, elements)
                }
                KernelKind::Scatter if width < 4 => {
                    // Elements share words: one invocation per word of the output's span
                    // where there are no more words than elements (`base.w` 1), else one
                    // per element (scatter.wgsl).
                    let first = rel[0] * width / 4;
                    let end = ((rel[0] + piece.reach(0) + 1) * width).div_ceil(4);
                    if end - first <= elements {
                        params.base[3] = 1;
                        (end - first, elements)
                    } else {
                        (elements, elements)
                    }
                }
                _ => (elements, elements),
            };
            if matches!(kernel, KernelKind::Rows | KernelKind::ShiftedRows) {
                // The row of a unit is its index over `head.w`, the units a row
                // (`div_row_units`): that divisor takes the last dimension's stride slot, whose
                // stride (the output's, 1) nothing divides by.
                let by_units = Divisor::new(to_u32(last));
                let inner = rank - 1;
                params.stride_magic[inner] = by_units.magic;
                params.shifts[inner] =
                    params.shifts[inner] & 0xffff | by_units.shift1 << 16 | by_units.shift2 << 24;
            }
            let groups = units.div_ceil(u64::from(WORKGROUP_SIZE)).max(1);
            let [x, y] = grid(groups, max_groups);
            params.head = [
                to_u32(units),
                rank as u32,
                to_u32(x * u64::from(WORKGROUP_SIZE)),
                to_u32(last),
            ];
            if kernel == KernelKind::Contiguous {
                // Bytes and whole 16-byte blocks (the grid covers a partial last block too),
                // so that the kernel needs the element width only for the logical function
                // (one pipeline serves every width of BIT_XOR).
                params.head[0] = to_u32(elements * width / 16);
                params.head[3] = to_u32(elements * width);
                // A dense operand's first block; an input that repeats one element over the
                // run or across each row of a two-dimensional piece (read in mode 1, 2 or 3,
                // `select::modes`), that element.
                let first = |o: usize| {
                    if splat_input(piece, o) {
                        rel[o]
                    } else {
                        rel[o] * widths.of(o) / 16
                    }
                };
                params.base = [to_u32(first(0)), to_u32(first(1)), to_u32(first(2)), 0];
            }
            vec![Dispatch {
                params,
                groups: [to_u32(x), to_u32(y)],
            }]
        }
    }
}

/// The records of a tile piece (in its matrix order, `select::in_matrix_order`) whose
/// dimensions are laid out in `params` as they come: the matrix's rows and columns in slots 0
/// and 1, its batch dimensions (any number the record holds, outermost first) in slots 2 and
/// on, unused ones of size 1 and stride 0. The grid's rows are the batch's tile rows, matrix
/// by matrix: `head.x` tile rows a matrix, their divisor kept in slot 1's stride divisor (the
/// output's columns are dense: nothing divides by their stride), so a kernel finds its matrix
/// and tile row from its grid row (`tile_row` in common.wgsl); records of at most
/// `max_groups` grid rows each, the first in `base.w`, which then run as separate calls.
fn tile_records(
    params: &Params,
    rank: usize,
    tile_rows: u64,
    tile_cols: u64,
    max_groups: u64,
) -> Vec<Dispatch> {
    debug_assert!(
        (2..=MAX_KERNEL_RANK).contains(&rank),
        "a tile piece of rank {rank}"
    );
    let (r, c) = (rank - 2, rank - 1);
    let mut p = Params {
        base: params.base,
        ..Params::default()
    };
    let unit = Divisor::new(1);
    for slot in 0..MAX_KERNEL_RANK {
        p.sizes[slot] = 1;
        p.size_magic[slot] = unit.magic;
        p.stride_magic[slot] = unit.magic;
        p.shifts[slot] = unit.shift1 | unit.shift2 << 8 | unit.shift1 << 16 | unit.shift2 << 24;
    }
    // Slot of each dimension: the matrix's in 0 and 1, the batch's from 2 in its order.
    let slots = [r, c]
        .into_iter()
        .zip([0, 1])
        .chain((0..r).map(|d| (d, d + 2)));
    for (d, slot) in slots {
        move_dimension(&mut p, slot, params, d);
    }
    let per_matrix = u64::from(p.sizes[0]).div_ceil(tile_rows);
    let by_tile_rows = Divisor::new(to_u32(per_matrix));
    p.stride_magic[1] = by_tile_rows.magic;
    p.shifts[1] = p.shifts[1] & 0xffff | by_tile_rows.shift1 << 16 | by_tile_rows.shift2 << 24;
    let matrices: u64 = (0..r).map(|d| u64::from(params.sizes[d])).product();
    let total = per_matrix * matrices;
    let columns = to_u32(u64::from(p.sizes[1]).div_ceil(tile_cols));
    (0..total)
        .step_by(max_groups as usize)
        .map(|first| {
            let count = (total - first).min(max_groups);
            let mut record = p;
            record.head = [to_u32(per_matrix), rank as u32, 0, to_u32(count)];
            record.base[3] = to_u32(first);
            Dispatch {
                params: record,
                groups: [columns, to_u32(count)],
            }
        })
        .collect()
}

/// Puts dimension `d` of `from` (its size, strides and divisors) in slot `slot` of `to`.
fn move_dimension(to: &mut Params, slot: usize, from: &Params, d: usize) {
    to.sizes[slot] = from.sizes[d];
    to.out_strides[slot] = from.out_strides[d];
    to.a_strides[slot] = from.a_strides[d];
    to.b_strides[slot] = from.b_strides[d];
    to.size_magic[slot] = from.size_magic[d];
    to.stride_magic[slot] = from.stride_magic[d];
    to.shifts[slot] = from.shifts[d];
}

/// Whether input `o` (1 or 2) of a piece the contiguous kernel runs is one element splat:
/// repeated over the whole run of a one-dimensional piece of more than one element, or
/// across each row of a two-dimensional one (modes 3, and 1 or 2, of `select::modes`); its
/// record then holds that element's offset, not a block's. (A piece of one element has
/// strides of 0 and is read by blocks: its calls keep the pipeline of, and so merge with,
/// longer ones.)
pub(crate) fn splat_input(piece: &Piece, o: usize) -> bool {
    o > 0
        && match piece.sizes[..] {
            [n] => n > 1 && piece.strides[o][0] == 0,
            [_, _] => piece.strides[o][1] == 0,
            _ => false,
        }
}

/// The two-dimensional grid of `groups` workgroups of a flat kernel, at most `max` a side:
/// as few rows as fit (`y = ceil(groups / max)`), then as few workgroups a row as cover the
/// work (`x = ceil(groups / y)`), so that fewer than `y` workgroups are left empty. (Filling
/// rows of `max` first would dispatch 131,070 workgroups for 65,536, half of them empty; on
/// an NVIDIA H200 that cost 16% at 256 MiB.) The kernels find their unit from the grid row
/// and the invocations per row, `head.z`.
pub(crate) fn grid(groups: u64, max: u64) -> [u64; 2] {
    let y = groups.div_ceil(max.max(1)).max(1);
    [groups.div_ceil(y).max(1), y]
}

/// Output blocks each invocation of the shifted-rows kernel writes (`RUN` in shifted.wgsl).
pub(crate) const SHIFTED_RUN: u64 = 4;

/// The shifted-rows kernel's invocations per row of `bytes` bytes: a run of [`SHIFTED_RUN`]
/// blocks each, over the most 16-byte blocks the row can touch wherever it starts.
pub(crate) fn shifted_row_invocations(bytes: u64) -> u64 {
    (bytes + 15).div_ceil(16).div_ceil(SHIFTED_RUN)
}

fn to_u32(v: u64) -> u32 {
    debug_assert!(
        v <= u64::from(u32::MAX),
        "window arithmetic exceeded 32 bits: {v}"
    );
    v as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(sizes: &[u64], origin: [u64; 3]) -> Piece {
        let packed = |s: &[u64]| {
            let mut v = vec![1; s.len()];
            for d in (0..s.len().saturating_sub(1)).rev() {
                v[d] = v[d + 1] * s[d + 1];
            }
            v
        };
        Piece {
            sizes: sizes.to_vec(),
            strides: [packed(sizes), packed(sizes), packed(sizes)],
            origin,
            windows: [Some((0, 0)), Some((0, 0)), Some((0, 0))],
        }
    }

    #[test]
    fn contiguous_counts_whole_16_byte_blocks_and_grids_the_partial_one() {
        // 9 bytes: no whole block, one invocation for the partial one.
        let d = build(
            KernelKind::Contiguous,
            &piece(&[9], [0; 3]),
            [0; 3],
            [0; 3],
            1,
            65535,
            TileForm::default(),
        )[0];
        assert_eq!(d.params.head, [0, 1, 256, 9]);
        assert_eq!(d.groups, [1, 1]);
        // 256 blocks and 4 bytes: 256 whole blocks, and a second workgroup for the last.
        let d = build(
            KernelKind::Contiguous,
            &piece(&[4100], [0; 3]),
            [0; 3],
            [0; 3],
            1,
            65535,
            TileForm::default(),
        )[0];
        assert_eq!(d.params.head, [256, 1, 512, 4100]);
        assert_eq!(d.groups, [2, 1]);
    }

    #[test]
    fn contiguous_records_count_bytes_and_blocks_whatever_the_width() {
        // 40 elements from element 8 (A at element 16, B at element 24) of each width: the
        // same bytes and blocks whatever the type, so one pipeline serves them all.
        for width in [1u64, 2, 4, 8] {
            let d = build(
                KernelKind::Contiguous,
                &piece(&[40], [8, 16, 24]),
                [0; 3],
                [0; 3],
                width,
                65535,
                TileForm::default(),
            )[0];
            assert_eq!(d.params.head[0] as u64, 40 * width / 16);
            assert_eq!(u64::from(d.groups[0]), 1);
            assert_eq!(d.params.head[3] as u64, 40 * width, "bytes of {width}");
            assert_eq!(
                d.params.base.map(u64::from),
                [8 * width / 16, 16 * width / 16, 24 * width / 16, 0]
            );
        }
    }

    #[test]
    fn gather_counts_the_words_a_run_touches() {
        // Elements 3..12 of u8: bytes 3..12, words 0..3.
        let d = build(
            KernelKind::Gather,
            &piece(&[9], [3, 3, 3]),
            [0; 3],
            [0; 3],
            1,
            65535,
            TileForm::default(),
        )[0];
        assert_eq!(d.params.head[0], 3);
        assert_eq!(d.params.base, [3, 3, 3, 0]);
    }

    #[test]
    fn large_grids_go_two_dimensional() {
        let n = 65535u64 * 256 * 3;
        let d = build(
            KernelKind::Scatter,
            &piece(&[n], [0; 3]),
            [0; 3],
            [0; 3],
            4,
            65535,
            TileForm::default(),
        )[0];
        assert_eq!(d.groups, [65535, 3]);
        assert_eq!(d.params.head[2], 65535 * 256);
    }

    #[test]
    fn grids_dispatch_fewer_empty_workgroups_than_rows() {
        // 65,536 workgroups: two rows of 32,768, none empty (not 65,535 + 65,535).
        assert_eq!(grid(65_536, 65_535), [32_768, 2]);
        assert_eq!(grid(65_535, 65_535), [65_535, 1]);
        assert_eq!(grid(1, 65_535), [1, 1]);
        for max in [1u64, 2, 3, 7, 1000, 65_535] {
            for groups in (1..5000u64).chain([65_535, 65_536, 131_071, 4_000_000]) {
                if groups > max * max {
                    continue;
                }
                let [x, y] = grid(groups, max);
                assert!(x <= max && y <= max, "{groups} in {max}: {x} x {y}");
                assert!(x * y >= groups, "{groups} in {max}: {x} x {y}");
                assert!(x * y - groups < y, "{groups} in {max}: {x} x {y}");
            }
        }
        // A kernel's grid, through `build`: 256 MiB of u32 blocks.
        let d = build(
            KernelKind::Contiguous,
            &piece(&[64 << 20], [0; 3]),
            [0; 3],
            [0; 3],
            4,
            65_535,
            TileForm::default(),
        )[0];
        assert_eq!(d.groups, [32_768, 2]);
        assert_eq!(d.params.head[2], 32_768 * 256);
    }

    #[test]
    fn rows_run_every_row_and_block_on_one_flat_grid() {
        // 70,000 rows of 100 u32: 25 blocks a row, 1,750,000 pairs, 6,836 workgroups.
        let d = build(
            KernelKind::Rows,
            &piece(&[70000, 100], [0; 3]),
            [0; 3],
            [0; 3],
            4,
            65535,
            TileForm::default(),
        );
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].params.head, [1_750_000, 2, 6836 * 256, 25]);
        assert_eq!(d[0].groups, [6836, 1]);
        // Under a small grid limit the flat grid goes two-dimensional.
        let d = build(
            KernelKind::Rows,
            &piece(&[70000, 100], [0; 3]),
            [0; 3],
            [0; 3],
            4,
            1000,
            TileForm::default(),
        );
        assert_eq!(d[0].groups, [977, 7]);
        assert_eq!(d[0].params.head[2], 977 * 256);
    }

    /// The divisor the kernel reads as `div_row_units`: the last dimension's stride slot.
    fn row_units_divisor(p: &Params, rank: usize) -> Divisor {
        let shifts = p.shifts[rank - 1];
        Divisor {
            magic: p.stride_magic[rank - 1],
            shift1: (shifts >> 16) & 0xff,
            shift2: shifts >> 24,
        }
    }

    #[test]
    fn flat_row_kernels_find_each_units_row_by_the_records_divisor() {
        // Units a row from 1 (a row of one block) to odd, even and power-of-two counts, at
        // ranks 1 to 3; every unit's row as the kernels compute it, and the other
        // dimensions' divisors as they were.
        for kernel in [KernelKind::Rows, KernelKind::ShiftedRows] {
            for sizes in [
                &[4][..],
                &[7, 4],
                &[300, 100],
                &[3, 50, 200],
                &[2, 9, 4096],
                &[1000, 257],
            ] {
                let rank = sizes.len();
                let d = build(
                    kernel,
                    &piece(sizes, [0; 3]),
                    [0; 3],
                    [0; 3],
                    4,
                    65535,
                    TileForm::default(),
                )[0];
                let [units, _, _, per_row] = d.params.head;
                let by = row_units_divisor(&d.params, rank);
                for u in (0..units).chain([units, u32::MAX - 1, u32::MAX]) {
                    assert_eq!(by.divide(u), u / per_row, "{kernel:?} {sizes:?} unit {u}");
                }
                // The size divisors keep their bytes; the outer stride divisors are untouched.
                for (dim, &size) in sizes.iter().enumerate() {
                    let by_size = Divisor::new(size as u32);
                    assert_eq!(d.params.size_magic[dim], by_size.magic);
                    assert_eq!(
                        d.params.shifts[dim] & 0xffff,
                        by_size.shift1 | by_size.shift2 << 8
                    );
                }
                for dim in 0..rank - 1 {
                    let stride = d.params.out_strides[dim];
                    assert_eq!(d.params.stride_magic[dim], Divisor::new(stride).magic);
                }
            }
        }
    }

    #[test]
    fn shifted_rows_cover_every_phase_in_runs_of_blocks() {
        // Rows of 100 u8 touch 8 blocks at most (from byte 15 to byte 114): two runs of 4.
        assert_eq!(shifted_row_invocations(100), 2);
        assert_eq!(shifted_row_invocations(16), 1);
        assert_eq!(shifted_row_invocations(1), 1);
        assert_eq!(shifted_row_invocations(49), 1);
        assert_eq!(shifted_row_invocations(50), 2);
        // Every row's runs in one flat grid: 70,000 rows of 2 runs.
        let d = build(
            KernelKind::ShiftedRows,
            &piece(&[70000, 100], [0; 3]),
            [0; 3],
            [0; 3],
            1,
            65535,
            TileForm::default(),
        );
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].params.head, [140000, 2, 547 * 256, 2]);
        assert_eq!(d[0].groups, [547, 1]);
        // A rank-1 call is one row.
        let d = build(
            KernelKind::ShiftedRows,
            &piece(&[5000], [3, 0, 0]),
            [0; 3],
            [0; 3],
            2,
            65535,
            TileForm::default(),
        );
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].params.head, [157, 1, 256, 157]);
        assert_eq!(d[0].groups, [1, 1]);
    }

    #[test]
    fn tiles_cover_the_matrix() {
        let d = build(
            KernelKind::Tile,
            &piece(&[65, 33], [0; 3]),
            [0; 3],
            [0; 3],
            4,
            65535,
            TileForm::default(),
        )[0];
        assert_eq!(d.groups, [2, 3]);
    }

    /// Where the tile kernels' workgroup of grid row `y` of `record` works, as `tile_row` in
    /// common.wgsl computes it at `RANK` = the record's rank: its tile row in its matrix, and
    /// the first element of each operand's matrix.
    fn tile_row(record: &Params, y: u32) -> (u32, [u32; 3]) {
        let g = record.base[3] + y;
        let rank = record.head[1] as usize;
        let mut first = [record.base[0], record.base[1], record.base[2]];
        if rank <= 2 {
            return (g, first);
        }
        let divisor = |magic: u32, shifts: u32| Divisor {
            magic,
            shift1: shifts & 0xff,
            shift2: (shifts >> 8) & 0xff,
        };
        let m = divisor(record.stride_magic[1], record.shifts[1] >> 16).divide(g);
        let strides = [record.out_strides, record.a_strides, record.b_strides];
        let mut rest = m;
        for k in (2..rank).rev() {
            let (q, i) = if k > 2 {
                let q = divisor(record.size_magic[k], record.shifts[k]).divide(rest);
                (q, rest - q * record.sizes[k])
            } else {
                (0, rest)
            };
            for o in 0..3 {
                first[o] += i * strides[o][k];
            }
            rest = q;
        }
        (g - m * record.head[0], first)
    }

    /// Every grid row's (tile row, first elements) over `p`'s matrices in their order, as the
    /// tile kernels must find them: `tile_rows` a matrix, the operands starting at `base`.
    fn every_tile_row(p: &Piece, base: [u32; 3], tile_rows: u32) -> Vec<(u32, [u32; 3])> {
        let r = p.sizes.len() - 2;
        let matrices: u64 = p.sizes[..r].iter().product();
        (0..matrices)
            .flat_map(|mut m| {
                let mut first = base;
                for d in (0..r).rev() {
                    let i = m % p.sizes[d];
                    m /= p.sizes[d];
                    for (o, f) in first.iter_mut().enumerate() {
                        *f += (i * p.strides[o][d]) as u32;
                    }
                }
                (0..tile_rows).map(move |row| (row, first))
            })
            .collect()
    }

    /// Every grid row of `d`'s records in order, as the kernels find them.
    fn grid_rows(d: &[Dispatch]) -> Vec<(u32, [u32; 3])> {
        d.iter()
            .flat_map(|record| (0..record.params.head[3]).map(|y| tile_row(&record.params, y)))
            .collect()
    }

    #[test]
    fn a_batch_of_matrices_runs_on_one_grid_whose_rows_find_their_matrix() {
        // 3 x 5 matrices of 65 x 33 u32 (two batch dimensions: A's inner one between its
        // rows and columns), A transposed and 100 elements into its window; grids of at most
        // 4 rows, so that records split matrices and matrices split records.
        let mut p = piece(&[3, 5, 65, 33], [0; 3]);
        p.strides[1] = vec![50_000, 65, 1, 65 * 5];
        let d = build(
            KernelKind::Tile,
            &p,
            [0, 400, 0],
            [0; 3],
            4,
            4,
            TileForm::default(),
        );
        // Three 32-row tile rows a matrix, 45 grid rows: 12 records.
        assert_eq!(d.len(), 12);
        for record in &d {
            let params = &record.params;
            assert_eq!(params.head[..2], [3, 4]);
            assert_eq!(record.groups, [2, params.head[3]]);
            assert_eq!(params.sizes[..4], [65, 33, 3, 5]);
            assert_eq!(params.a_strides[..4], [1, 325, 50_000, 65]);
            assert_eq!(params.out_strides[..4], [33, 1, 5 * 65 * 33, 65 * 33]);
        }
        let want = every_tile_row(&p, [0, 100, 0], 3);
        assert_eq!(
            want[3 * 7],
            (0, [7 * 65 * 33, 100 + 50_000 + 2 * 65, 7 * 65 * 33])
        );
        assert_eq!(grid_rows(&d), want);
        // One record per matrix (a CPU adapter's form): each a matrix alone, at the same
        // places, in the same order.
        let per_matrix = TileForm {
            staged: false,
            per_matrix: true,
        };
        let d = build(KernelKind::Tile, &p, [0, 400, 0], [0; 3], 4, 4, per_matrix);
        assert_eq!(d.len(), 15);
        for record in &d {
            assert_eq!(record.params.sizes[..4], [65, 33, 1, 1]);
            assert_eq!(record.params.head[1], 2);
        }
        assert_eq!(grid_rows(&d), want);
        // One matrix, or one batch dimension: unused slots are of size 1 and stride 0.
        let one = build(
            KernelKind::BlockTile,
            &piece(&[7, 64, 64], [0; 3]),
            [0; 3],
            [0; 3],
            4,
            65535,
            TileForm::default(),
        );
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].params.sizes[..4], [64, 64, 7, 1]);
        assert_eq!(one[0].groups, [1, 7]);
        assert_eq!(tile_row(&one[0].params, 5), (0, [5 * 4096; 3]));
        let matrix = build(
            KernelKind::Tile,
            &piece(&[100, 40], [0; 3]),
            [0; 3],
            [0; 3],
            4,
            65535,
            TileForm::default(),
        );
        assert_eq!(matrix[0].params.sizes[..4], [100, 40, 1, 1]);
        assert_eq!(tile_row(&matrix[0].params, 3), (3, [0; 3]));
    }

    #[test]
    fn batches_of_every_rank_the_records_hold_find_their_matrices() {
        // Batches of three to six dimensions (ranks 5 to 8), none of which merge: A's
        // strides reversed (a full reversal of the dimensions), B's a second order, sizes
        // mostly not powers of two (each divisor's magic and shifts at work) and one of 1;
        // grids of at most 5 rows, so that records split matrices; in both forms.
        for sizes in [
            &[3, 2, 5, 40, 33][..],
            &[2, 3, 2, 3, 70, 9],
            &[3, 2, 2, 1, 3, 2, 33, 65],
        ] {
            let rank = sizes.len();
            let mut p = piece(sizes, [0; 3]);
            let dense = |order: &mut dyn Iterator<Item = usize>| {
                let mut strides = vec![0; rank];
                let mut next = 1;
                for d in order {
                    strides[d] = next;
                    next *= sizes[d];
                }
                strides
            };
            p.strides[0] = dense(&mut (0..rank).rev());
            p.strides[1] = dense(&mut (0..rank));
            p.strides[2] = dense(&mut (0..rank).rev().skip(1).chain([rank - 1]));
            let tile_rows = sizes[rank - 2].div_ceil(TILE) as u32;
            let want = every_tile_row(&p, [7, 0, 3], tile_rows);
            for per_matrix in [false, true] {
                let form = TileForm {
                    staged: false,
                    per_matrix,
                };
                let d = build(KernelKind::Tile, &p, [28, 0, 12], [0; 3], 4, 5, form);
                let rank_compiled = if per_matrix { 2 } else { rank as u32 };
                assert!(d.iter().all(|r| r.params.head[1] == rank_compiled));
                assert_eq!(
                    grid_rows(&d),
                    want,
                    "{sizes:?}, one record a matrix: {per_matrix}"
                );
            }
        }
    }

    #[test]
    fn staged_narrow_tiles_are_square() {
        assert_eq!(tile_shape(1, true), (64, 64));
        assert_eq!(tile_shape(2, true), (32, 32));
        assert_eq!(tile_shape(1, false), (32, 128));
        assert_eq!(tile_shape(4, true), (32, 32));
        let d = build(
            KernelKind::Tile,
            &piece(&[100, 200], [0; 3]),
            [0; 3],
            [0; 3],
            1,
            65535,
            TileForm {
                staged: true,
                per_matrix: false,
            },
        );
        assert_eq!(d[0].groups, [4, 2]);
    }

    #[test]
    fn offsets_are_relative_to_the_window() {
        let d = build(
            KernelKind::Gather,
            &piece(&[4], [10, 0, 0]),
            [1024 + 16, 512, 0],
            [1024, 256, 0],
            4,
            65535,
            TileForm::default(),
        )[0];
        assert_eq!(d.params.base, [14, 64, 0, 0]);
    }
}
