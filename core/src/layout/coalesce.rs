//! Dimension coalescing.
//!
//! An element-wise operator does not care in which order it visits indices, so the
//! dimensions may be reordered and merged as long as all three operands agree:
//! 1. size-1 dimensions are dropped (their strides never matter);
//! 2. dimensions are sorted by the output's stride, largest first, so that an output stored
//!    transposed is visited in memory order and becomes dense;
//! 3. neighbouring dimensions `k, k + 1` merge when, for every operand,
//!    `stride[k] == stride[k + 1] * size[k + 1]`.
//!
//! Most "strided" calls become one dense dimension this way, and ranks above 8 fold.

use super::Layout;

/// Coalesces `layout`. The result visits exactly the same (out, a, b) offset triples. An empty
/// layout (a zero size) is returned with its zero; a single element becomes one dimension of
/// size 1 with unit strides.
pub(crate) fn coalesce<const N: usize>(layout: &Layout<N>) -> Layout<N> {
    let unit = || std::array::from_fn(|_| vec![1]);
    if layout.sizes.contains(&0) {
        return Layout {
            sizes: vec![0],
            strides: unit(),
        };
    }
    // Step 1.
    let mut dims: Vec<usize> = (0..layout.rank())
        .filter(|&d| layout.sizes[d] != 1)
        .collect();
    // Step 2 (stable, so equal output strides keep their logical order).
    dims.sort_by(|&x, &y| layout.strides[0][y].cmp(&layout.strides[0][x]));

    let mut sizes: Vec<u64> = Vec::with_capacity(dims.len());
    let mut strides: [Vec<u64>; N] = std::array::from_fn(|_| Vec::new());
    for d in dims {
        let size = layout.sizes[d];
        let merges = !sizes.is_empty()
            && (0..N).all(|o| {
                let outer = *strides[o].last().expect("non-empty");
                layout.strides[o][d].checked_mul(size) == Some(outer)
            });
        if merges {
            // Step 3.
            // At most the element count, which a validated plan keeps below 2^64.
            let merged = sizes.last_mut().expect("non-empty");
            *merged = merged.saturating_mul(size);
            for (o, s) in strides.iter_mut().enumerate() {
                *s.last_mut().expect("non-empty") = layout.strides[o][d];
            }
        } else {
            sizes.push(size);
            for (o, s) in strides.iter_mut().enumerate() {
                s.push(layout.strides[o][d]);
            }
        }
    }
    if sizes.is_empty() {
        return Layout {
            sizes: vec![1],
            strides: unit(),
        };
    }
    Layout { sizes, strides }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn layout(sizes: &[u64], s: [&[u64]; 3]) -> Layout {
        Layout {
            sizes: sizes.to_vec(),
            strides: [s[0].to_vec(), s[1].to_vec(), s[2].to_vec()],
        }
    }

    /// Every (out, a, b) offset triple, sorted.
    fn triples(l: &Layout) -> Vec<[u64; 3]> {
        let n = l.element_count();
        let mut v: Vec<[u64; 3]> = (0..n)
            .map(|mut i| {
                let mut t = [0u64; 3];
                for d in (0..l.rank()).rev() {
                    let idx = i % l.sizes[d];
                    i /= l.sizes[d];
                    for (o, slot) in t.iter_mut().enumerate() {
                        *slot += idx * l.strides[o][d];
                    }
                }
                t
            })
            .collect();
        v.sort();
        v
    }

    #[test]
    fn packed_tensors_become_one_dimension() {
        let l = layout(&[2, 3, 4], [&[12, 4, 1], &[12, 4, 1], &[12, 4, 1]]);
        assert_eq!(coalesce(&l), layout(&[24], [&[1], &[1], &[1]]));
    }

    #[test]
    fn scalar_broadcast_folds_with_zero_strides() {
        let l = layout(&[2, 2], [&[2, 1], &[2, 1], &[0, 0]]);
        assert_eq!(coalesce(&l), layout(&[4], [&[1], &[1], &[0]]));
    }

    #[test]
    fn row_broadcast_keeps_two_dimensions() {
        let l = layout(&[4096, 4096], [&[4096, 1], &[4096, 1], &[0, 1]]);
        assert_eq!(coalesce(&l), l);
    }

    #[test]
    fn transposed_output_is_reordered_to_be_dense() {
        let l = layout(&[3, 5], [&[1, 3], &[5, 1], &[5, 1]]);
        let c = coalesce(&l);
        assert_eq!(c, layout(&[5, 3], [&[3, 1], &[1, 5], &[1, 5]]));
        assert!(c.is_dense(0));
    }

    #[test]
    fn size_one_dimensions_drop_and_single_elements_survive() {
        let l = layout(&[1, 1, 1], [&[9, 9, 9], &[0, 0, 0], &[7, 7, 7]]);
        assert_eq!(coalesce(&l), layout(&[1], [&[1], &[1], &[1]]));
        let l = layout(&[3, 1, 2], [&[2, 100, 1], &[2, 0, 1], &[2, 5, 1]]);
        assert_eq!(coalesce(&l), layout(&[6], [&[1], &[1], &[1]]));
    }

    #[test]
    fn rank_ten_alternating_broadcast_stays_unfolded() {
        let sizes = [2u64; 10];
        let out: Vec<u64> = (0..10).rev().map(|k| 1u64 << k).collect();
        let a: Vec<u64> = (0..10)
            .map(|d| if d % 2 == 0 { out[d] } else { 0 })
            .collect();
        let b: Vec<u64> = (0..10)
            .map(|d| if d % 2 == 1 { out[d] } else { 0 })
            .collect();
        let l = layout(&sizes, [&out, &a, &b]);
        assert_eq!(coalesce(&l).rank(), 10);
    }

    proptest! {
        #![proptest_config(crate::property_config())]

        #[test]
        fn coalescing_visits_the_same_offsets(
            dims in proptest::collection::vec((1u64..4, 0u64..6, 0u64..6, 0u64..6), 0..6)
        ) {
            let l = Layout {
                sizes: dims.iter().map(|d| d.0).collect(),
                strides: [
                    dims.iter().map(|d| d.1).collect(),
                    dims.iter().map(|d| d.2).collect(),
                    dims.iter().map(|d| d.3).collect(),
                ],
            };
            let c = coalesce(&l);
            prop_assert!(c.rank() <= l.rank().max(1));
            prop_assert_eq!(triples(&c), triples(&l));
        }
    }
}
