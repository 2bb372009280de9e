//! Where a tensor's elements sit in a buffer: a byte offset, an element width, and element
//! sizes and strides, walked in logical row-major order.

use crate::element::read_le;

/// Where an output tensor's elements sit (or an input's): a buffer, a byte offset, the
/// element width, and element sizes and strides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputLayout {
    /// Index of the buffer that holds the tensor.
    pub buffer: usize,
    /// Byte offset of element 0 in that buffer.
    pub offset: u64,
    /// Element size in bytes (1 to 8).
    pub width: u64,
    /// Sizes, outermost first.
    pub sizes: Vec<u64>,
    /// Element strides, one per dimension.
    pub strides: Vec<u64>,
}

impl OutputLayout {
    /// A packed row-major tensor.
    pub fn packed(buffer: usize, offset: u64, width: u64, sizes: &[u64]) -> OutputLayout {
        OutputLayout {
            buffer,
            offset,
            width,
            sizes: sizes.to_vec(),
            strides: packed_strides(sizes),
        }
    }

    /// The number of elements.
    pub fn element_count(&self) -> u64 {
        self.sizes.iter().product()
    }

    /// The byte offset of each element in the buffer, in logical row-major order.
    pub fn byte_offsets(&self) -> Vec<u64> {
        positions(&self.sizes, &self.strides)
            .into_iter()
            .map(|p| self.offset + p * self.width)
            .collect()
    }

    /// The row-major multi-index of element `i`.
    pub fn index_of(&self, i: u64) -> Vec<u64> {
        unravel(i, &self.sizes)
    }

    /// The element values (little-endian, zero-extended) found in `image`, in logical order.
    pub fn read_values(&self, image: &[u8]) -> Vec<u64> {
        self.byte_offsets()
            .into_iter()
            .map(|at| read_le(image, at, self.width))
            .collect()
    }

    /// Writes `values` (each cut to the element width) into the element positions of
    /// `image`, in logical order.
    pub fn write_values(&self, image: &mut [u8], values: &[u64]) {
        let width = self.width as usize;
        for (at, v) in self.byte_offsets().into_iter().zip(values) {
            let at = at as usize;
            image[at..at + width].copy_from_slice(&v.to_le_bytes()[..width]);
        }
    }
}

/// Element position (`dot(index, strides)`) of each logical index, in row-major order; none
/// when a size is 0, one (position 0) for rank 0.
pub fn positions(sizes: &[u64], strides: &[u64]) -> Vec<u64> {
    let count: u64 = sizes.iter().product();
    let mut out = Vec::with_capacity(count as usize);
    if count == 0 {
        return out;
    }
    let mut index = vec![0u64; sizes.len()];
    let mut position = 0u64;
    for _ in 0..count {
        out.push(position);
        for d in (0..sizes.len()).rev() {
            index[d] += 1;
            position += strides[d];
            if index[d] < sizes[d] {
                break;
            }
            position -= strides[d] * sizes[d];
            index[d] = 0;
        }
    }
    out
}

/// Packed row-major element strides of `sizes` (`u64` sizes, or DirectML's `u32` ones),
/// saturating, so that a shape past 64 bits gives huge strides rather than a panic.
pub fn packed_strides<T: Copy + Into<u64>>(sizes: &[T]) -> Vec<u64> {
    let mut strides = vec![0u64; sizes.len()];
    let mut acc = 1u64;
    for (d, &n) in sizes.iter().enumerate().rev() {
        strides[d] = acc;
        acc = acc.saturating_mul(n.into());
    }
    strides
}

/// The row-major multi-index of element `i` of a tensor of `sizes`.
pub fn unravel(mut i: u64, sizes: &[u64]) -> Vec<u64> {
    let mut index = vec![0; sizes.len()];
    for d in (0..sizes.len()).rev() {
        if sizes[d] > 0 {
            index[d] = i % sizes[d];
            i /= sizes[d];
        }
    }
    index
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_walk_in_row_major_order() {
        assert_eq!(packed_strides(&[2u64, 3, 4]), [12, 4, 1]);
        assert_eq!(packed_strides(&[2u32, 3, 4]), [12, 4, 1]);
        assert_eq!(packed_strides(&[2, u64::MAX, 4]), [u64::MAX, 4, 1]);
        assert!(packed_strides::<u64>(&[]).is_empty());
        assert_eq!(positions(&[2, 2], &[1, 3]), [0, 3, 1, 4]);
        assert_eq!(positions(&[], &[]), [0]);
        assert!(positions(&[3, 0], &[1, 1]).is_empty());
        assert_eq!(unravel(5, &[2, 3]), [1, 2]);
        assert_eq!(unravel(0, &[]), Vec::<u64>::new());
    }

    #[test]
    fn strided_values_are_written_and_read_back_in_place() {
        let out = OutputLayout {
            buffer: 0,
            offset: 4,
            width: 2,
            sizes: vec![2],
            strides: vec![2],
        };
        assert_eq!(out.element_count(), 2);
        assert_eq!(out.byte_offsets(), [4, 8]);
        let mut image = vec![0u8; 12];
        out.write_values(&mut image, &[0x1234, 0xabcd]);
        assert_eq!(image, [0, 0, 0, 0, 0x34, 0x12, 0, 0, 0xcd, 0xab, 0, 0]);
        assert_eq!(out.read_values(&image), [0x1234, 0xabcd]);
    }

    #[test]
    fn a_packed_layout_indexes_its_elements() {
        let out = OutputLayout::packed(1, 8, 4, &[2, 3]);
        assert_eq!(out.strides, [3, 1]);
        assert_eq!(out.byte_offsets(), [8, 12, 16, 20, 24, 28]);
        assert_eq!(out.index_of(4), [1, 1]);
    }
}
