//! The DirectML buffer tensor description.

use crate::desc::{DataType, TensorName};
use crate::error::Error;

/// DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT: every binding offset of a DirectML tensor is a
/// multiple of this many bytes.
pub const MINIMUM_BUFFER_TENSOR_ALIGNMENT: u64 = 16;

/// DML_TENSOR_DIMENSION_COUNT_MAX1: the most dimensions a DirectML tensor has from feature
/// level 3.0 on.
pub const MAX_DIMENSIONS: usize = 8;

/// `DML_TENSOR_FLAGS`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum TensorFlags {
    /// `DML_TENSOR_FLAG_NONE`.
    #[default]
    None,
    /// `DML_TENSOR_FLAG_OWNED_BY_DML`: bound at initialization instead of execution. DirectML
    /// allows it on inputs only; this crate binds every tensor at record time and refuses it.
    OwnedByDml,
}

/// A DirectML buffer tensor (`DML_BUFFER_TENSOR_DESC`): type, sizes, optional element strides,
/// total size and guaranteed base offset alignment.
///
/// Strides are counted in elements, not bytes. A stride of 0 repeats an element (broadcast);
/// strides larger than the packed ones leave padding; input strides may even make elements
/// overlap (sliding windows). `None` means packed row-major, as `Strides = nullptr`.
///
/// ```
/// use gpu_xor_core::{DataType, TensorDesc};
///
/// let packed = TensorDesc::new(DataType::U16, &[2, 3]);
/// assert_eq!(packed.min_buffer_size().unwrap(), 12);
///
/// // Rows padded to 5 elements: (1*5 + 2*1 + 1) * 2 bytes = 16.
/// let padded = TensorDesc::new(DataType::U16, &[2, 3]).with_strides(&[5, 1]);
/// assert_eq!(padded.min_buffer_size().unwrap(), 16);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorDesc {
    /// `DataType`.
    pub data_type: DataType,
    /// `Sizes`, one per dimension, outermost first.
    pub sizes: Vec<u32>,
    /// `Strides` in elements, one per dimension; `None` for packed row-major.
    pub strides: Option<Vec<u32>>,
    /// `TotalTensorSizeInBytes`; `None` for the minimum ([`TensorDesc::min_buffer_size`]).
    pub total_tensor_size_in_bytes: Option<u64>,
    /// `GuaranteedBaseOffsetAlignment`: 0 for none, else a power of two at least the element
    /// size; binding offsets must then be multiples of it.
    pub guaranteed_base_offset_alignment: u32,
    /// `Flags`.
    pub flags: TensorFlags,
}

impl TensorDesc {
    /// A packed tensor of this type and these sizes, with the minimum total size.
    pub fn new(data_type: DataType, sizes: &[u32]) -> TensorDesc {
        TensorDesc {
            data_type,
            sizes: sizes.to_vec(),
            strides: None,
            total_tensor_size_in_bytes: None,
            guaranteed_base_offset_alignment: 0,
            flags: TensorFlags::None,
        }
    }

    /// The same tensor with these element strides.
    pub fn with_strides(mut self, strides: &[u32]) -> TensorDesc {
        self.strides = Some(strides.to_vec());
        self
    }

    /// The same tensor with this `TotalTensorSizeInBytes`.
    pub fn with_total_size(mut self, bytes: u64) -> TensorDesc {
        self.total_tensor_size_in_bytes = Some(bytes);
        self
    }

    /// The same tensor with this `GuaranteedBaseOffsetAlignment`.
    pub fn with_alignment(mut self, alignment: u32) -> TensorDesc {
        self.guaranteed_base_offset_alignment = alignment;
        self
    }

    /// DimensionCount.
    pub fn rank(&self) -> usize {
        self.sizes.len()
    }

    /// The number of elements: the product of the sizes (1 for no dimensions), saturated at
    /// `u128::MAX` (eight sizes near 2^32 multiply past it; any count above 2^32 - 1 breaks
    /// the same rule).
    pub fn element_count(&self) -> u128 {
        self.sizes
            .iter()
            .try_fold(1u128, |acc, &s| acc.checked_mul(u128::from(s)))
            .unwrap_or(if self.sizes.contains(&0) {
                0
            } else {
                u128::MAX
            })
    }

    /// The strides in effect: the given ones, or packed row-major ones.
    pub fn effective_strides(&self) -> Vec<u64> {
        match &self.strides {
            Some(s) => s.iter().map(|&x| u64::from(x)).collect(),
            None => packed_strides(&self.sizes),
        }
    }

    /// `DMLCalcBufferTensorSize`: the smallest allowed `TotalTensorSizeInBytes`,
    /// `roundup((dot(Sizes - 1, Strides) + 1) * ElementSize, 4)`, or
    /// `roundup(prod(Sizes) * ElementSize, 4)` without strides. Computed in 64 bits (DirectML's
    /// helper uses 32); fails on a zero size, on strides of the wrong length, and with
    /// [`Error::SizeOverflow`] when the size does not fit in 64 bits (its value saturated at
    /// `u128::MAX` when the product does not fit in 128 either).
    pub fn min_buffer_size(&self) -> Result<u64, Error> {
        self.min_buffer_size_for(TensorName::A)
    }

    pub(crate) fn min_buffer_size_for(&self, tensor: TensorName) -> Result<u64, Error> {
        if self.sizes.contains(&0) {
            return Err(Error::ZeroSize {
                tensor,
                sizes: self.sizes.clone(),
            });
        }
        let width = u128::from(self.data_type.size_in_bytes());
        let elements_spanned: Option<u128> = match &self.strides {
            None => self
                .sizes
                .iter()
                .try_fold(1u128, |acc, &n| acc.checked_mul(u128::from(n))),
            Some(strides) => {
                if strides.len() != self.sizes.len() {
                    return Err(Error::StridesLengthMismatch {
                        tensor,
                        strides: strides.len(),
                        rank: self.sizes.len(),
                    });
                }
                // At most 8 (or any number of) terms below 2^64 each.
                self.sizes
                    .iter()
                    .zip(strides)
                    .try_fold(1u128, |acc, (&n, &s)| {
                        acc.checked_add(u128::from(n - 1) * u128::from(s))
                    })
            }
        };
        let bytes = elements_spanned
            .and_then(|n| n.checked_mul(width))
            .and_then(|b| b.checked_next_multiple_of(4))
            .unwrap_or(u128::MAX);
        u64::try_from(bytes).map_err(|_| Error::SizeOverflow {
            what: "DMLCalcBufferTensorSize",
            value: bytes,
        })
    }

    /// `TotalTensorSizeInBytes` in effect: the given one, or the minimum.
    pub fn total_size(&self) -> Result<u64, Error> {
        match self.total_tensor_size_in_bytes {
            Some(t) => Ok(t),
            None => self.min_buffer_size(),
        }
    }
}

/// Packed row-major element strides for these sizes.
pub(crate) fn packed_strides<T: Copy + Into<u64>>(sizes: &[T]) -> Vec<u64> {
    let mut strides = vec![0u64; sizes.len()];
    let mut acc = 1u64;
    for (i, &s) in sizes.iter().enumerate().rev() {
        strides[i] = acc;
        acc = acc.saturating_mul(s.into());
    }
    strides
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_size_matches_the_directml_examples() {
        // DMLCalcBufferTensorSize's own examples: packed sizes round up to 4 bytes.
        assert_eq!(TensorDesc::new(DataType::U8, &[3]).min_buffer_size(), Ok(4));
        assert_eq!(
            TensorDesc::new(DataType::U16, &[2, 3])
                .with_strides(&[5, 1])
                .min_buffer_size(),
            Ok(16)
        );
        assert_eq!(
            TensorDesc::new(DataType::U8, &[2, 3])
                .with_strides(&[0, 1])
                .min_buffer_size(),
            Ok(4)
        );
        // A stride on a size-1 dimension contributes nothing.
        assert_eq!(
            TensorDesc::new(DataType::U32, &[1, 4])
                .with_strides(&[1000, 1])
                .min_buffer_size(),
            Ok(16)
        );
    }

    #[test]
    fn min_size_is_computed_in_64_bits() {
        let d = TensorDesc::new(DataType::F64, &[65536, 65535]).with_strides(&[65536, 1]);
        let expected = ((65535u64 * 65536 + 65534 + 1) * 8).div_ceil(4) * 4;
        assert_eq!(d.min_buffer_size(), Ok(expected));
        assert!(expected > u64::from(u32::MAX));
    }

    #[test]
    fn min_size_reports_zero_sizes_and_bad_stride_counts() {
        assert_eq!(
            TensorDesc::new(DataType::U8, &[2, 0]).min_buffer_size(),
            Err(Error::ZeroSize {
                tensor: TensorName::A,
                sizes: vec![2, 0]
            })
        );
        assert_eq!(
            TensorDesc::new(DataType::U8, &[2, 2])
                .with_strides(&[1])
                .min_buffer_size()
                .unwrap_err()
                .rule(),
            "strides_length_mismatch"
        );
    }

    #[test]
    fn min_size_overflow_is_an_error_not_a_wrapped_value() {
        // 2^128 elements: the product wraps to 0 in 128 bits.
        let e = TensorDesc::new(DataType::U8, &[65536; 8])
            .min_buffer_size()
            .unwrap_err();
        assert_eq!(e.rule(), "size_overflow");
        let e = TensorDesc::new(DataType::U64, &[u32::MAX; 8])
            .min_buffer_size()
            .unwrap_err();
        assert_eq!(
            e,
            Error::SizeOverflow {
                what: "DMLCalcBufferTensorSize",
                value: u128::MAX
            }
        );
        let e = TensorDesc::new(DataType::U64, &[u32::MAX; 8])
            .with_strides(&[u32::MAX; 8])
            .min_buffer_size()
            .unwrap_err();
        assert_eq!(e.rule(), "size_overflow");
        // Just past 2^64 bytes.
        let e = TensorDesc::new(DataType::U8, &[1 << 16; 4])
            .min_buffer_size()
            .unwrap_err();
        assert_eq!(
            e,
            Error::SizeOverflow {
                what: "DMLCalcBufferTensorSize",
                value: 1 << 64
            }
        );
        // The largest that fits.
        assert_eq!(
            TensorDesc::new(DataType::U8, &[1 << 16, 1 << 16, 1 << 16, (1 << 16) - 1])
                .min_buffer_size(),
            Ok((1u64 << 48) * ((1 << 16) - 1))
        );
        assert_eq!(
            TensorDesc::new(DataType::U8, &[65536; 8]).element_count(),
            u128::MAX
        );
        assert_eq!(
            TensorDesc::new(
                DataType::U8,
                &[65536, 65536, 65536, 65536, 65536, 65536, 65536, 65536, 0]
            )
            .element_count(),
            0
        );
    }

    #[test]
    fn packed_strides_are_row_major() {
        assert_eq!(packed_strides(&[2u32, 3, 4]), vec![12, 4, 1]);
        assert_eq!(packed_strides::<u32>(&[]), Vec::<u64>::new());
    }
}
