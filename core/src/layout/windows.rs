//! Windowing: cutting one call into pieces whose bound ranges fit the device.
//!
//! A storage binding holds at most `max_storage_buffer_binding_size` bytes (128 MiB by WebGPU
//! default) and starts at a multiple of `min_storage_buffer_offset_alignment`. A piece is a
//! box of the iteration space; since strides are never negative, its footprint in each
//! operand is one byte range that is easy to compute. The split walks from the outermost
//! dimension in, taking the longest range that fits with every inner dimension whole, and
//! descends a dimension where a single index is already too large. Where that is so because
//! an operand reaches furthest along an inner dimension (a transposed input or output), what
//! is left is cut into blocks with ranges along several dimensions instead (`split_block`),
//! so that a call twice a window's size takes a few pieces rather than one or two per row.
//! A block across the output's rows leaves a dense output strided; the kernel choice reads
//! each piece's own strides.

use super::{Layout, Widths};
use crate::error::Error;

/// What a piece must respect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most bytes one binding may span.
    pub max_window: u64,
    /// Binding offsets are multiples of this (a power of two, at least 16).
    pub offset_alignment: u64,
    /// The most dimensions a kernel takes.
    pub max_rank: usize,
}

/// One dispatch's share of the work.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Piece<const N: usize = 3> {
    /// Sizes of the box, outermost first (at most `max_rank`).
    pub sizes: Vec<u64>,
    /// Element strides per operand over `sizes`.
    pub strides: [Vec<u64>; N],
    /// Element offset of each operand's first element, from the operand's base.
    pub origin: [u64; N],
    /// Per binding slot, the byte range `[start, end)` the piece reads or writes, with `start`
    /// aligned down to `offset_alignment` and `end` exact; `end` rounded up to 16 still lies
    /// within `max_window` of `start`. `None` for a slot that no operand uses.
    pub windows: [Option<(u64, u64)>; N],
}

impl<const N: usize> Piece<N> {
    /// The whole of `layout` as one piece, bound nowhere yet: what a plan's kernel choices
    /// and pipelines are judged on before any call is cut into windows.
    pub(crate) fn whole(layout: &Layout<N>) -> Piece<N> {
        Piece {
            sizes: layout.sizes.clone(),
            strides: layout.strides.clone(),
            origin: [0; N],
            windows: [None; N],
        }
    }

    /// A piece of `sizes` and `strides` at the start of 1 MiB windows, for unit tests.
    #[cfg(test)]
    pub(crate) fn test(sizes: &[u64], strides: [&[u64]; N]) -> Piece<N> {
        Piece {
            sizes: sizes.to_vec(),
            strides: strides.map(<[u64]>::to_vec),
            origin: [0; N],
            windows: [Some((0, 1 << 20)); N],
        }
    }

    /// Elements from operand `o`'s first element in the piece to its last (the sum over the
    /// dimensions of `(size - 1) * stride`).
    pub(crate) fn reach(&self, o: usize) -> u64 {
        self.sizes
            .iter()
            .zip(&self.strides[o])
            .map(|(&n, &s)| (n - 1) * s)
            .sum()
    }
}

/// Splits `layout` into pieces.
///
/// `base[o]` is operand `o`'s byte offset in its buffer, `slot[o]` the binding slot it is
/// bound through, `widths` the element sizes. Fails when one element of each operand that
/// shares a slot already spans more than a window (the operands are too far apart in their
/// buffer), or with [`Error::SizeOverflow`] when an operand's last byte, rounded up to 16,
/// does not fit in 64 bits (bindings checked against their buffers never do).
pub(crate) fn split<const N: usize>(
    layout: &Layout<N>,
    base: [u64; N],
    slot: [usize; N],
    widths: impl Into<Widths<N>>,
    limits: Limits,
) -> Result<Vec<Piece<N>>, Error> {
    let widths = widths.into();
    let mut pieces = Vec::new();
    if layout.element_count() == 0 {
        return Ok(pieces);
    }
    // Every offset, window end and rounding below is at most this end: checked once here,
    // the arithmetic of the split cannot overflow.
    for (o, (strides, &start)) in layout.strides.iter().zip(&base).enumerate() {
        let width = widths.of(o);
        let end = layout
            .sizes
            .iter()
            .zip(strides)
            .try_fold(1u64, |acc, (&n, &s)| {
                (n - 1).checked_mul(s)?.checked_add(acc)
            })
            .and_then(|elements| elements.checked_mul(width))
            .and_then(|bytes| bytes.checked_add(start))
            .and_then(|end| end.checked_next_multiple_of(16));
        if end.is_none() {
            return Err(Error::SizeOverflow {
                what: "operand end in its buffer",
                value: layout
                    .sizes
                    .iter()
                    .zip(strides)
                    .fold(1u128, |acc, (&n, &s)| {
                        acc.saturating_add(u128::from(n - 1) * u128::from(s))
                    })
                    .saturating_mul(u128::from(width))
                    .saturating_add(u128::from(start)),
            });
        }
    }
    let splitter = Splitter {
        layout,
        base,
        slot,
        widths,
        limits,
    };
    splitter.split_dim(0, [0; N], &mut pieces)?;
    Ok(pieces)
}

struct Splitter<'a, const N: usize> {
    layout: &'a Layout<N>,
    base: [u64; N],
    slot: [usize; N],
    widths: Widths<N>,
    limits: Limits,
}

impl<const N: usize> Splitter<'_, N> {
    fn split_dim(&self, k: usize, origin: [u64; N], out: &mut Vec<Piece<N>>) -> Result<(), Error> {
        let n = self.layout.sizes[k];
        let rank = self.layout.rank();
        let mut i = 0;
        while i < n {
            let at = self.advance(origin, k, i);
            let mut count = if rank - k <= self.limits.max_rank {
                self.longest_fit(k, at, n - i)
            } else {
                0
            };
            if k + 1 == rank && count < n - i {
                count = self.on_granule(count);
            }
            if count > 0 {
                out.push(self.piece(k, at, count));
                i += count;
            } else if k + 1 < rank && rank - k <= self.limits.max_rank {
                // One index of this dimension with every inner one whole is too wide. Where
                // that is so because an operand takes its widest steps along an inner
                // dimension (a transposed or permuted operand), fixing this dimension's
                // indices one by one would cut the call into a piece per index and per chunk
                // of that inner dimension; the rest is cut into blocks instead.
                let mut n = vec![n - i];
                n.extend_from_slice(&self.layout.sizes[k + 1..]);
                self.split_block(Block { k, at, n }, out)?;
                break;
            } else if k + 1 < rank {
                self.split_dim(k + 1, at, out)?;
                i += 1;
            } else {
                let (_, span) = self.windows(k, at, 1);
                return Err(Error::SharedBufferSpanTooLarge {
                    span,
                    limit: self.limits.max_window,
                });
            }
        }
        Ok(())
    }

    /// `count` elements of a run cut short, fewer where that keeps the next piece on a
    /// 64-byte boundary (so that a dense run stays on the vec4 path after a seam).
    fn on_granule(&self, count: u64) -> u64 {
        let widest = self.widths.0.into_iter().max().unwrap_or(1);
        let granule = (64 / widest).max(1);
        if count >= granule {
            count - count % granule
        } else {
            count
        }
    }

    fn advance(&self, origin: [u64; N], k: usize, i: u64) -> [u64; N] {
        let mut at = origin;
        for (o, slot) in at.iter_mut().enumerate() {
            *slot += i * self.layout.strides[o][k];
        }
        at
    }

    /// The largest `count <= max` with a box of `count` indices on dimension `k` fitting.
    fn longest_fit(&self, k: usize, at: [u64; N], max: u64) -> u64 {
        longest(max, |c| self.windows(k, at, c).1 <= self.limits.max_window)
    }

    /// Per-slot windows of a box, and the widest span among them.
    fn windows(&self, k: usize, at: [u64; N], count: u64) -> ([Option<(u64, u64)>; N], u64) {
        let reach = std::array::from_fn(|o| {
            let s = &self.layout.strides[o];
            (count - 1) * s[k]
                + (k + 1..self.layout.rank())
                    .map(|d| (self.layout.sizes[d] - 1) * s[d])
                    .sum::<u64>()
        });
        self.windows_of(at, reach)
    }

    /// Per-slot windows of a block, and the widest span among them.
    fn block_windows(&self, block: &Block<N>) -> ([Option<(u64, u64)>; N], u64) {
        let reach = std::array::from_fn(|o| block.reach(&self.layout.strides[o]));
        self.windows_of(block.at, reach)
    }

    /// Per-slot windows of the elements from each operand's `at` to `reach` elements past it,
    /// and the widest span among them.
    fn windows_of(&self, at: [u64; N], reach: [u64; N]) -> ([Option<(u64, u64)>; N], u64) {
        let mut windows: [Option<(u64, u64)>; N] = [None; N];
        for o in 0..N {
            let reach = reach[o];
            let width = self.widths.of(o);
            let lo = self.base[o] + at[o] * width;
            let hi = self.base[o] + (at[o] + reach + 1) * width;
            let w = &mut windows[self.slot[o]];
            *w = Some(match *w {
                None => (lo, hi),
                Some((l, h)) => (l.min(lo), h.max(hi)),
            });
        }
        let mut widest = 0;
        for (start, end) in windows.iter_mut().flatten() {
            *start -= *start % self.limits.offset_alignment;
            widest = widest.max(end.div_ceil(16) * 16 - *start);
        }
        (windows, widest)
    }

    fn piece(&self, k: usize, at: [u64; N], count: u64) -> Piece<N> {
        let mut sizes = vec![count];
        sizes.extend_from_slice(&self.layout.sizes[k + 1..]);
        let strides = std::array::from_fn(|o| {
            let s = &self.layout.strides[o];
            let mut v = vec![if count == 1 { 0 } else { s[k] }];
            v.extend_from_slice(&s[k + 1..]);
            v
        });
        Piece {
            sizes,
            strides,
            origin: at,
            windows: self.windows(k, at, count).0,
        }
    }
}

/// The largest `count <= max` for which `fits(count)` holds, `fits` holding for every count
/// below one it holds for (0 where it holds for none from 1).
fn longest(max: u64, fits: impl Fn(u64) -> bool) -> u64 {
    if fits(max) {
        return max;
    }
    let (mut lo, mut hi) = (0u64, max);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// A block of the iteration space: every dimension before `k` fixed, and `n[j]` indices of
/// dimension `k + j` from those of its first element, which lies `at[o]` elements into each
/// operand `o`.
#[derive(Clone, Debug)]
struct Block<const N: usize> {
    k: usize,
    at: [u64; N],
    n: Vec<u64>,
}

impl<const N: usize> Block<N> {
    /// Elements from an operand's first element in the block to its last, `strides` being
    /// the operand's over every dimension of the layout.
    fn reach(&self, strides: &[u64]) -> u64 {
        self.n
            .iter()
            .zip(&strides[self.k..])
            .map(|(&n, &s)| (n - 1) * s)
            .sum()
    }
}

impl<const N: usize> Splitter<'_, N> {
    /// The part of `block` whose indices along its dimension `j` are `from .. from + count`.
    fn along(&self, block: &Block<N>, j: usize, from: u64, count: u64) -> Block<N> {
        let d = block.k + j;
        let mut part = block.clone();
        for (o, at) in part.at.iter_mut().enumerate() {
            *at += from * self.layout.strides[o][d];
        }
        part.n[j] = count;
        part
    }

    /// The widest window of the part [`Splitter::along`] gives, without making it.
    fn span_along(&self, block: &Block<N>, j: usize, from: u64, count: u64) -> u64 {
        let d = block.k + j;
        let s = &self.layout.strides;
        let at = std::array::from_fn(|o| block.at[o] + from * s[o][d]);
        let reach = std::array::from_fn(|o| {
            block.reach(&s[o]) - (block.n[j] - 1) * s[o][d] + (count - 1) * s[o][d]
        });
        self.windows_of(at, reach).1
    }

    /// The largest `count <= max` whose part of `block` from index `from` along `j` fits.
    fn longest_along(&self, block: &Block<N>, j: usize, from: u64, max: u64) -> u64 {
        longest(max, |c| {
            self.span_along(block, j, from, c) <= self.limits.max_window
        })
    }

    /// Cuts `block` into pieces that fit. Along the outermost of its dimensions where some
    /// run of indices fits with the other dimensions as they are, it takes the longest runs
    /// (a single index that does not fit is cut again). Where no dimension has such a run
    /// (two operands widest along different dimensions, as in a transpose), the dimension
    /// along which the widest window grows most is cut into the fewest equal parts that could
    /// bring that window within reach (two where nothing could), and each part is cut again:
    /// a transpose twice a window's size takes four pieces, where fixing its outer indices one
    /// by one took two per row.
    fn split_block(&self, block: Block<N>, out: &mut Vec<Piece<N>>) -> Result<(), Error> {
        let (windows, span) = self.block_windows(&block);
        if span <= self.limits.max_window {
            out.push(self.block_piece(&block));
            return Ok(());
        }
        let last = self.layout.rank() - 1;
        for j in 0..block.n.len() {
            let n = block.n[j];
            let first = if n == 1 {
                0
            } else {
                self.longest_along(&block, j, 0, n)
            };
            if first == 0 {
                continue;
            }
            // A run of one dimension keeps its later pieces on 64-byte boundaries, as the
            // walk's do; blocks are cut into parts of about one size.
            let run = (0..block.n.len()).all(|d| d == j || block.n[d] == 1);
            let even = n.div_ceil(n.div_ceil(first));
            let mut i = 0;
            while i < n {
                let mut count = self.longest_along(&block, j, i, n - i);
                if run && block.k + j == last && count < n - i {
                    count = self.on_granule(count);
                } else if !run {
                    count = count.min(even);
                }
                if count > 0 {
                    out.push(self.block_piece(&self.along(&block, j, i, count)));
                    i += count;
                } else {
                    self.split_block(self.along(&block, j, i, 1), out)?;
                    i += 1;
                }
            }
            return Ok(());
        }
        // The widest slot, and how far its operands reach along each dimension, in bytes.
        let widest = (0..N)
            .filter_map(|slot| {
                windows[slot].map(|(start, end)| (slot, end.div_ceil(16) * 16 - start))
            })
            .reduce(|best, slot| if slot.1 > best.1 { slot } else { best })
            .map_or(0, |(slot, _)| slot);
        let grows = |j: usize| {
            (0..N)
                .filter(|&o| self.slot[o] == widest)
                .map(|o| (block.n[j] - 1) * self.layout.strides[o][block.k + j] * self.widths.of(o))
                .max()
                .unwrap_or(0)
        };
        let Some(j) = (0..block.n.len())
            .filter(|&j| grows(j) > 0)
            .reduce(|best, j| if grows(j) > grows(best) { j } else { best })
        else {
            return Err(Error::SharedBufferSpanTooLarge {
                span,
                limit: self.limits.max_window,
            });
        };
        // Each index along `j` widens that slot by `step` bytes; the rest of its span is
        // the other dimensions'.
        let n = block.n[j];
        let step = grows(j) / (n - 1);
        let rest = span - grows(j).min(span);
        let room = self
            .limits
            .max_window
            .saturating_sub(self.limits.offset_alignment + 16);
        let parts = if rest < room {
            n.div_ceil((room - rest) / step + 1)
        } else {
            2
        }
        .clamp(2, n);
        let size = n.div_ceil(parts);
        let mut from = 0;
        while from < n {
            self.split_block(self.along(&block, j, from, size.min(n - from)), out)?;
            from += size;
        }
        Ok(())
    }

    /// The piece of `block`: its dimensions of more than one index (or its last, where it has
    /// one element).
    fn block_piece(&self, block: &Block<N>) -> Piece<N> {
        let mut keep: Vec<usize> = (0..block.n.len()).filter(|&j| block.n[j] > 1).collect();
        if keep.is_empty() {
            keep.push(block.n.len() - 1);
        }
        let sizes = keep.iter().map(|&j| block.n[j]).collect();
        let strides = std::array::from_fn(|o| {
            keep.iter()
                .map(|&j| {
                    if block.n[j] == 1 {
                        0
                    } else {
                        self.layout.strides[o][block.k + j]
                    }
                })
                .collect()
        });
        Piece {
            sizes,
            strides,
            origin: block.at,
            windows: self.block_windows(block).0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const ROOMY: Limits = Limits {
        max_window: 1 << 27,
        offset_alignment: 256,
        max_rank: 8,
    };

    fn dense(n: u64) -> Layout {
        Layout {
            sizes: vec![n],
            strides: [vec![1], vec![1], vec![1]],
        }
    }

    #[test]
    fn small_calls_are_one_piece() {
        let p = split(&dense(1000), [0, 4096, 8192], [0, 1, 2], 4, ROOMY).unwrap();
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].sizes, vec![1000]);
        assert_eq!(p[0].windows[1], Some((4096, 4096 + 4000)));
    }

    #[test]
    fn a_300_mib_run_takes_three_windows() {
        let n = 300 << 20;
        let p = split(&dense(n), [0, 0, 0], [0, 1, 2], 1, ROOMY).unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(p.iter().map(|p| p.sizes[0]).sum::<u64>(), n);
        for piece in &p {
            for (start, end) in piece.windows.iter().flatten() {
                assert_eq!(start % 256, 0);
                assert!(end - start <= ROOMY.max_window);
            }
            assert_eq!(piece.origin[0] % 64, 0);
        }
    }

    #[test]
    fn operands_too_far_apart_in_one_buffer_are_an_error() {
        let limits = Limits {
            max_window: 1024,
            ..ROOMY
        };
        let e = split(&dense(16), [0, 4096, 0], [0, 0, 1], 4, limits).unwrap_err();
        assert_eq!(e.rule(), "shared_buffer_span_too_large");
    }

    #[test]
    fn operands_ending_past_64_bits_are_an_error() {
        let l = Layout {
            sizes: vec![1 << 44, 1 << 20],
            strides: [vec![1 << 20, 1], vec![1 << 20, 1], vec![0, 0]],
        };
        let e = split(&l, [0, 0, 0], [0, 1, 2], 8, ROOMY).unwrap_err();
        assert_eq!(e.rule(), "size_overflow");
        let e = split(&dense(16), [0, u64::MAX - 16, 0], [0, 1, 2], 1, ROOMY).unwrap_err();
        assert_eq!(
            e,
            Error::SizeOverflow {
                what: "operand end in its buffer",
                value: u128::from(u64::MAX)
            }
        );
        assert!(split(&dense(16), [0, u64::MAX - 31, 0], [0, 1, 2], 1, ROOMY).is_ok());
    }

    #[test]
    fn rank_above_the_kernel_limit_is_cut_into_lower_rank_pieces() {
        let sizes = vec![2u64; 10];
        let out: Vec<u64> = (0..10).rev().map(|k| 1u64 << k).collect();
        let l = Layout {
            sizes,
            strides: [out.clone(), out.clone(), out],
        };
        let p = split(&l, [0; 3], [0, 1, 2], 4, ROOMY).unwrap();
        assert_eq!(p.len(), 4);
        assert!(p.iter().all(|p| p.sizes.len() == 8));
    }

    /// Every element of every operand lands in exactly one piece, inside that piece's window.
    fn check_cover(l: &Layout, base: [u64; 3], slot: [usize; 3], width: u64, limits: Limits) {
        let pieces = split(l, base, slot, width, limits).unwrap();
        let mut seen = Vec::new();
        for p in &pieces {
            assert!(p.sizes.len() <= limits.max_rank);
            let n: u64 = p.sizes.iter().product();
            for mut i in 0..n {
                let mut off = p.origin;
                for d in (0..p.sizes.len()).rev() {
                    let idx = i % p.sizes[d];
                    i /= p.sizes[d];
                    for (o, x) in off.iter_mut().enumerate() {
                        *x += idx * p.strides[o][d];
                    }
                }
                for o in 0..3 {
                    let (start, end) = p.windows[slot[o]].unwrap();
                    let byte = base[o] + off[o] * width;
                    assert!(start <= byte && byte + width <= end);
                    assert!(end.div_ceil(16) * 16 - start <= limits.max_window);
                    assert_eq!(start % limits.offset_alignment, 0);
                }
                seen.push(off[0]);
            }
        }
        seen.sort_unstable();
        let mut expected: Vec<u64> = Vec::new();
        let total = l.element_count();
        for mut i in 0..total {
            let mut off = 0;
            for d in (0..l.rank()).rev() {
                off += (i % l.sizes[d]) * l.strides[0][d];
                i /= l.sizes[d];
            }
            expected.push(off);
        }
        expected.sort_unstable();
        assert_eq!(seen, expected);
    }

    /// A packed `sizes` tensor and its copy read in the order of `perm` (input dimension
    /// `perm[d]` at output dimension `d`), as A; B packed like the output.
    fn permuted(sizes: &[u64], perm: &[usize]) -> Layout {
        let packed = crate::desc::packed_strides(sizes);
        let input: Vec<u64> = perm.iter().map(|&d| sizes[d]).collect();
        let input_strides = crate::desc::packed_strides(&input);
        let mut a = vec![0; sizes.len()];
        for (d, &p) in perm.iter().enumerate() {
            a[p] = input_strides[d];
        }
        Layout {
            sizes: sizes.to_vec(),
            strides: [packed.clone(), a, packed],
        }
    }

    /// Windows of `1 / fraction` of each operand's bytes, and their alignment's slack.
    fn limits_for(bytes: u64, fraction: u64) -> Limits {
        Limits {
            max_window: bytes / fraction + 256 + 16,
            offset_alignment: 256,
            max_rank: 8,
        }
    }

    #[test]
    fn transposes_past_a_window_are_cut_into_blocks_not_rows() {
        // A transposed and an output transposed (the inputs read across their rows), twice
        // and three times a window: two and three parts each way.
        let n = 96u64;
        let bytes = n * n * 4;
        let a_t = permuted(&[n, n], &[1, 0]);
        let out_t = Layout {
            sizes: vec![n, n],
            strides: [vec![1, n], vec![n, 1], vec![n, 1]],
        };
        let base = [0, 1 << 20, 2 << 20];
        for (l, fraction, most) in [(&a_t, 2, 4), (&a_t, 3, 9), (&out_t, 2, 4), (&out_t, 3, 9)] {
            let limits = limits_for(bytes, fraction);
            let pieces = split(l, base, [0, 1, 2], 4, limits).unwrap();
            assert!(pieces.len() <= most, "{} pieces for {most}", pieces.len());
            assert!(pieces.iter().all(|p| p.sizes.len() == 2));
            check_cover(l, base, [0, 1, 2], 4, limits);
        }
    }

    #[test]
    fn permutations_past_a_window_take_few_pieces() {
        // Every permutation of a 4-D tensor, each operand twice a window: one cut along a
        // dimension of the output's, one along one of A's (one where they agree).
        let sizes = [6u64, 10, 7, 9];
        let bytes = sizes.iter().product::<u64>() * 4;
        let base = [0, 1 << 20, 2 << 20];
        let mut perm = [0usize, 1, 2, 3];
        let limits = limits_for(bytes, 2);
        loop {
            let l = permuted(&sizes, &perm);
            let pieces = split(&l, base, [0, 1, 2], 4, limits).unwrap();
            assert!(pieces.len() <= 6, "{perm:?}: {} pieces", pieces.len());
            check_cover(&l, base, [0, 1, 2], 4, limits);
            if !next_permutation(&mut perm) {
                break;
            }
        }
        // The reversed 5-D permutation: four pieces, where fixing the outer indices one by one
        // took two for each of the 6^4 innermost rows.
        let l = permuted(&[6; 5], &[4, 3, 2, 1, 0]);
        let limits = limits_for(6u64.pow(5) * 4, 2);
        assert_eq!(split(&l, base, [0, 1, 2], 4, limits).unwrap().len(), 4);
        check_cover(&l, base, [0, 1, 2], 4, limits);
    }

    /// The next permutation in lexicographic order; false after the last.
    fn next_permutation(p: &mut [usize]) -> bool {
        let Some(i) = (1..p.len()).rev().find(|&i| p[i - 1] < p[i]) else {
            return false;
        };
        let j = (i..p.len())
            .rev()
            .find(|&j| p[j] > p[i - 1])
            .expect("a larger one");
        p.swap(i - 1, j);
        p[i..].reverse();
        true
    }

    proptest! {
        #![proptest_config(crate::property_config())]

        #[test]
        fn pieces_cover_every_element_once_within_their_windows(
            dims in proptest::collection::vec((1u64..5, 0u64..9, 0u64..9), 1..5),
            width in prop_oneof![Just(1u64), Just(2), Just(4), Just(8)],
            window in 64u64..512,
            max_rank in 1usize..4,
        ) {
            let sizes: Vec<u64> = dims.iter().map(|d| d.0).collect();
            let out = crate::desc::packed_strides(&sizes);
            let l = Layout {
                strides: [out, dims.iter().map(|d| d.1).collect(), dims.iter().map(|d| d.2).collect()],
                sizes,
            };
            let limits = Limits { max_window: window.max(16 + 16 + 8 * 16), offset_alignment: 16, max_rank };
            check_cover(&l, [0, 4096, 8192], [0, 1, 2], width, limits);
        }
    }
}
