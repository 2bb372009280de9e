//! Dispatch sizing: from one piece of the work to its metadata record and grid.

use super::params::Params;
use crate::layout::{KernelKind, Piece};

/// Invocations per workgroup (`@workgroup_size(256)` in every kernel).
pub(crate) const WORKGROUP_SIZE: u32 = 256;

/// One dispatch, ready to record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Dispatch {
    pub params: Params,
    /// Workgroups in x and y.
    pub groups: (u32, u32),
}

/// Builds the record and the grid of one piece.
///
/// `base[o]` is operand `o`'s byte offset in its buffer, `window_start[o]` the offset at which
/// the binding it is read through starts, `width` the element size and `max_groups` the
/// device's `max_compute_workgroups_per_dimension`. The split guarantees that every offset
/// and count here fits in 32 bits.
pub(crate) fn build(
    kernel: KernelKind,
    piece: &Piece,
    base: [u64; 3],
    window_start: [u64; 3],
    width: u64,
    max_groups: u32,
) -> Dispatch {
    let elements: u64 = piece.sizes.iter().product();
    let rel: [u64; 3] =
        std::array::from_fn(|o| (base[o] + piece.origin[o] * width - window_start[o]) / width);
    let units = match kernel {
        KernelKind::Contiguous => (elements * width).div_ceil(16),
        KernelKind::Gather if width < 4 => {
            let first = rel[0] * width / 4;
            let end = ((rel[0] + elements) * width).div_ceil(4);
            end - first
        }
        _ => elements,
    };
    let groups = units.div_ceil(u64::from(WORKGROUP_SIZE)).max(1);
    let x = groups.min(u64::from(max_groups.max(1)));
    let y = groups.div_ceil(x);

    let mut params = Params {
        head: [
            to_u32(units),
            piece.sizes.len() as u32,
            to_u32(x * u64::from(WORKGROUP_SIZE)),
            to_u32(elements),
        ],
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
    }
    Dispatch {
        params,
        groups: (to_u32(x), to_u32(y)),
    }
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

    fn piece(n: u64, origin: [u64; 3]) -> Piece {
        Piece {
            sizes: vec![n],
            strides: [vec![1], vec![1], vec![1]],
            origin,
            windows: [Some((0, 0)), Some((0, 0)), Some((0, 0))],
        }
    }

    #[test]
    fn contiguous_counts_16_byte_blocks() {
        let d = build(
            KernelKind::Contiguous,
            &piece(9, [0; 3]),
            [0, 0, 0],
            [0; 3],
            1,
            65535,
        );
        assert_eq!(d.params.head, [1, 1, 256, 9]);
        assert_eq!(d.groups, (1, 1));
    }

    #[test]
    fn gather_counts_the_words_a_run_touches() {
        // Elements 3..12 of u8: bytes 3..12, words 0..3.
        let d = build(
            KernelKind::Gather,
            &piece(9, [3, 3, 3]),
            [0, 0, 0],
            [0; 3],
            1,
            65535,
        );
        assert_eq!(d.params.head[0], 3);
        assert_eq!(d.params.base, [3, 3, 3, 0]);
    }

    #[test]
    fn large_grids_go_two_dimensional() {
        let n = 65535u64 * 256 * 3;
        let d = build(
            KernelKind::Scatter,
            &piece(n, [0; 3]),
            [0; 3],
            [0; 3],
            4,
            65535,
        );
        assert_eq!(d.groups, (65535, 3));
        assert_eq!(d.params.head[2], 65535 * 256);
    }

    #[test]
    fn offsets_are_relative_to_the_window() {
        let d = build(
            KernelKind::Gather,
            &piece(4, [10, 0, 0]),
            [1024 + 16, 512, 0],
            [1024, 256, 0],
            4,
            65535,
        );
        assert_eq!(d.params.base, [14, 64, 0, 0]);
    }
}
