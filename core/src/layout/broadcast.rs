//! Broadcast lowering: each operand's own strides, placed in the output's index space.
//!
//! The kernels never see broadcast rules: a dimension an input lacks, or holds
//! as 1 against a larger output dimension, gets stride 0, so that one element is read for
//! every index along it. DirectML tensors already share the output's sizes and keep their
//! strides as they are.

use crate::desc::Operand;

/// `operand`'s element strides over `out_sizes`: its dimensions sit at
/// `axis..axis + rank`; dimensions it lacks, or holds as 1 against a larger output
/// dimension, get stride 0.
///
/// A validated operand fits (`axis + rank <= out_sizes.len()`, each size equal to the
/// output's or 1: invariant 2 of [`crate::desc::Operands`]).
pub(crate) fn broadcast_strides(operand: &Operand, out_sizes: &[u64]) -> Vec<u64> {
    let mut strides = vec![0u64; out_sizes.len()];
    let axis = operand.axis;
    for (i, (&size, &stride)) in operand.sizes.iter().zip(&operand.strides).enumerate() {
        if size == out_sizes[axis + i] {
            strides[axis + i] = stride;
        }
    }
    strides
}

#[cfg(test)]
mod tests {
    use super::*;

    fn operand(sizes: &[u64], strides: &[u64], axis: usize) -> Operand {
        Operand {
            sizes: sizes.to_vec(),
            strides: strides.to_vec(),
            axis,
            required_bytes: 0,
            touched_bytes: 0,
            offset_alignment: 4,
        }
    }

    #[test]
    fn missing_and_size_one_dimensions_get_zero_strides() {
        // numpy: [7, 1, 5] against [8, 7, 6, 5], right-aligned.
        let b = operand(&[7, 1, 5], &[5, 5, 1], 1);
        assert_eq!(broadcast_strides(&b, &[8, 7, 6, 5]), [0, 5, 0, 1]);
        // pdpd at axis 1: [3, 1] against [2, 3, 4, 5].
        let b = operand(&[3, 1], &[1, 1], 1);
        assert_eq!(broadcast_strides(&b, &[2, 3, 4, 5]), [0, 1, 0, 0]);
        // A scalar repeats everywhere.
        assert_eq!(broadcast_strides(&operand(&[], &[], 2), &[2, 2]), [0, 0]);
    }

    #[test]
    fn full_rank_operands_keep_their_strides() {
        // A DirectML tensor's own zero and padded strides are kept as they are.
        let a = operand(&[4, 3, 2], &[0, 16, 1], 0);
        assert_eq!(broadcast_strides(&a, &[4, 3, 2]), [0, 16, 1]);
        // A 1 against a 1 keeps its stride (coalescing drops the dimension later).
        let a = operand(&[1, 3], &[9, 1], 0);
        assert_eq!(broadcast_strides(&a, &[1, 3]), [9, 1]);
        // A 1 against a 0 is a broadcast too: the output is empty.
        let a = operand(&[1, 3], &[3, 1], 0);
        assert_eq!(broadcast_strides(&a, &[0, 3]), [0, 1]);
    }
}
