//! The DirectML buffer tensor description.

use crate::desc::DataType;
use crate::error::{Error, TensorName};

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
/// use gpu_xor::{DataType, TensorDesc};
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

    /// The number of elements: the product of the sizes (1 for no dimensions).
    pub fn element_count(&self) -> u128 {
        self.sizes.iter().map(|&s| u128::from(s)).product()
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
    /// helper uses 32); fails on a zero size, on strides of the wrong length, or on overflow.
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
        let elements_spanned: u128 = match &self.strides {
            None => self.element_count(),
            Some(strides) => {
                if strides.len() != self.sizes.len() {
                    return Err(Error::StridesLengthMismatch {
                        tensor,
                        strides: strides.len(),
                        rank: self.sizes.len(),
                    });
                }
                let last: u128 = self
                    .sizes
                    .iter()
                    .zip(strides)
                    .map(|(&n, &s)| u128::from(n - 1) * u128::from(s))
                    .sum();
                last + 1
            }
        };
        let bytes = (elements_spanned * width).div_ceil(4) * 4;
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
        // SEMANTICS 1.2.
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
    fn packed_strides_are_row_major() {
        assert_eq!(packed_strides(&[2u32, 3, 4]), vec![12, 4, 1]);
        assert_eq!(packed_strides::<u32>(&[]), Vec::<u64>::new());
    }
}
