//! Layer 5, reference: a plain CPU implementation of the three operators over strided views.
//!
//! It shares nothing with the GPU path but the description rules: no coalescing, no windows,
//! no lanes; one element at a time, in logical row-major order. It is the oracle of this
//! crate's tests, and a public API for checking a driver.
//!
//! ```
//! use gpu_xor::DataType;
//! use gpu_xor::reference::{StridedView, StridedViewMut, bit_xor};
//!
//! let a = [0u8, 128, 42, 255];
//! let b = [255u8; 4];
//! let mut out = [0u8; 4];
//! bit_xor(
//!     &StridedView::packed(DataType::U8, &[2, 2], &a),
//!     &StridedView::packed(DataType::U8, &[2, 2], &b),
//!     &mut StridedViewMut::packed(DataType::U8, &[2, 2], &mut out),
//! )
//! .unwrap();
//! assert_eq!(out, [255, 127, 213, 0]);
//! ```

use crate::desc::{AutoBroadcast, BitwiseXorDesc, DataType};
use crate::error::{Error, Operator, TensorName};

/// A read-only strided view of tensor bytes.
#[derive(Clone, Copy, Debug)]
pub struct StridedView<'a> {
    /// The bytes the view reads from.
    pub bytes: &'a [u8],
    /// Element type.
    pub data_type: DataType,
    /// Sizes, outermost first.
    pub sizes: &'a [usize],
    /// Element strides; `None` for packed row-major.
    pub strides: Option<&'a [usize]>,
    /// Byte offset of the first element in `bytes`.
    pub offset: usize,
}

/// A writable strided view of tensor bytes.
#[derive(Debug)]
pub struct StridedViewMut<'a> {
    /// The bytes the view writes to.
    pub bytes: &'a mut [u8],
    /// Element type.
    pub data_type: DataType,
    /// Sizes, outermost first.
    pub sizes: &'a [usize],
    /// Element strides; `None` for packed row-major.
    pub strides: Option<&'a [usize]>,
    /// Byte offset of the first element in `bytes`.
    pub offset: usize,
}

impl<'a> StridedView<'a> {
    /// A packed view from offset 0.
    pub fn packed(data_type: DataType, sizes: &'a [usize], bytes: &'a [u8]) -> StridedView<'a> {
        StridedView {
            bytes,
            data_type,
            sizes,
            strides: None,
            offset: 0,
        }
    }
}

impl<'a> StridedViewMut<'a> {
    /// A packed view from offset 0.
    pub fn packed(
        data_type: DataType,
        sizes: &'a [usize],
        bytes: &'a mut [u8],
    ) -> StridedViewMut<'a> {
        StridedViewMut {
            bytes,
            data_type,
            sizes,
            strides: None,
            offset: 0,
        }
    }
}

/// DirectML BIT_XOR of one element: the raw bits XORed, kept to the element width.
pub fn bit_xor_element(data_type: DataType, a: u64, b: u64) -> u64 {
    (a ^ b) & mask(data_type)
}

/// DirectML LOGICAL_XOR (and OpenVINO boolean XOR) of one element: 1 if exactly one of the
/// two is nonzero at full width, else 0.
pub fn logical_xor_element(data_type: DataType, a: u64, b: u64) -> u64 {
    let m = mask(data_type);
    u64::from(((a & m) != 0) != ((b & m) != 0))
}

/// DirectML BIT_XOR over strided views. A, B and the output must have one type and one
/// shape; every element must lie inside its bytes. Inputs are read in full before the output
/// is written.
pub fn bit_xor(
    a: &StridedView<'_>,
    b: &StridedView<'_>,
    out: &mut StridedViewMut<'_>,
) -> Result<(), Error> {
    elementwise(Operator::BitXor, a, b, out, bit_xor_element)
}

/// DirectML LOGICAL_XOR over strided views (any type; the operator's type table is not
/// applied here).
pub fn logical_xor(
    a: &StridedView<'_>,
    b: &StridedView<'_>,
    out: &mut StridedViewMut<'_>,
) -> Result<(), Error> {
    elementwise(Operator::LogicalXor, a, b, out, logical_xor_element)
}

/// OpenVINO BitwiseXor-13 of two packed tensors: returns the output shape and its packed
/// bytes. Integers are XORed bit by bit; booleans are read as `byte != 0` and written as 0/1.
pub fn bitwise_xor(
    data_type: DataType,
    a_shape: &[usize],
    a: &[u8],
    b_shape: &[usize],
    b: &[u8],
    broadcast: AutoBroadcast,
) -> Result<(Vec<usize>, Vec<u8>), Error> {
    let shape = BitwiseXorDesc::new(data_type, a_shape, b_shape)
        .with_broadcast(broadcast)
        .output_shape()?;
    let width = data_type.size_in_bytes() as usize;
    for (s, bytes) in [(a_shape, a), (b_shape, b)] {
        let n = checked_count(s, width)?;
        if bytes.len() != n * width {
            return Err(Error::DataLength {
                shape: s.to_vec(),
                expected: n,
                found: bytes.len() / width,
            });
        }
    }
    let a_axis = shape.len() - a_shape.len();
    let b_axis = match broadcast {
        AutoBroadcast::Pdpd { axis } if axis >= 0 => axis as usize,
        _ => shape.len() - b_shape.len(),
    };
    let count = checked_count(&shape, width)?;
    let mut out = vec![0u8; count * width];
    let mut index = vec![0usize; shape.len()];
    for i in 0..count {
        unravel(i, &shape, &mut index);
        let ia = source(&index, a_shape, a_axis);
        let ib = source(&index, b_shape, b_axis);
        let x = read(a, ia * width, width);
        let y = read(b, ib * width, width);
        let r = if data_type == DataType::Bool {
            logical_xor_element(data_type, x, y)
        } else {
            bit_xor_element(data_type, x, y)
        };
        write(&mut out, i * width, width, r);
    }
    Ok((shape, out))
}

/// The packed index of the input element that output index `index` reads, for an input of
/// `shape` lined up with the output from dimension `axis`; size-1 dimensions repeat.
fn source(index: &[usize], shape: &[usize], axis: usize) -> usize {
    shape.iter().enumerate().fold(0, |linear, (d, &n)| {
        let i = if n == 1 { 0 } else { index[axis + d] };
        linear * n + i
    })
}

fn elementwise(
    operator: Operator,
    a: &StridedView<'_>,
    b: &StridedView<'_>,
    out: &mut StridedViewMut<'_>,
    f: fn(DataType, u64, u64) -> u64,
) -> Result<(), Error> {
    let data_type = a.data_type;
    for (tensor, t) in [
        (TensorName::B, b.data_type),
        (TensorName::Output, out.data_type),
    ] {
        if t != data_type {
            return Err(Error::DataTypeMismatch {
                operator,
                tensor,
                found: t,
                expected: data_type,
            });
        }
    }
    for (tensor, sizes) in [(TensorName::B, b.sizes), (TensorName::Output, out.sizes)] {
        if sizes != a.sizes {
            return Err(Error::SizesMismatch {
                operator,
                tensor,
                sizes: sizes.iter().map(|&s| s as u32).collect(),
                expected: a.sizes.iter().map(|&s| s as u32).collect(),
            });
        }
    }
    let width = data_type.size_in_bytes() as usize;
    let a_offsets = offsets(
        TensorName::A,
        a.sizes,
        a.strides,
        a.offset,
        width,
        a.bytes.len(),
    )?;
    let b_offsets = offsets(
        TensorName::B,
        b.sizes,
        b.strides,
        b.offset,
        width,
        b.bytes.len(),
    )?;
    let o_offsets = offsets(
        TensorName::Output,
        out.sizes,
        out.strides,
        out.offset,
        width,
        out.bytes.len(),
    )?;
    let results: Vec<u64> = a_offsets
        .iter()
        .zip(&b_offsets)
        .map(|(&x, &y)| f(data_type, read(a.bytes, x, width), read(b.bytes, y, width)))
        .collect();
    for (&o, r) in o_offsets.iter().zip(results) {
        write(out.bytes, o, width, r);
    }
    Ok(())
}

/// Byte offsets of every element in row-major order, each checked to lie inside `len`.
fn offsets(
    tensor: TensorName,
    sizes: &[usize],
    strides: Option<&[usize]>,
    offset: usize,
    width: usize,
    len: usize,
) -> Result<Vec<usize>, Error> {
    let packed: Vec<usize>;
    let strides = match strides {
        Some(s) => {
            if s.len() != sizes.len() {
                return Err(Error::StridesLengthMismatch {
                    tensor,
                    strides: s.len(),
                    rank: sizes.len(),
                });
            }
            s
        }
        None => {
            let mut acc = 1;
            let mut v = vec![0; sizes.len()];
            for d in (0..sizes.len()).rev() {
                v[d] = acc;
                acc *= sizes[d];
            }
            packed = v;
            &packed
        }
    };
    let count = checked_count(sizes, width)?;
    // The last element is the furthest (strides are unsigned): checking it checks them all,
    // and bounds every sum below.
    if count > 0 {
        let last = sizes
            .iter()
            .zip(strides)
            .try_fold(offset as u128, |acc, (&n, &s)| {
                (n as u128 - 1)
                    .checked_mul(s as u128)?
                    .checked_mul(width as u128)?
                    .checked_add(acc)
            })
            .unwrap_or(u128::MAX);
        if last + width as u128 > len as u128 {
            return Err(Error::BindingTooSmall {
                tensor,
                size: len as u64,
                required: u64::try_from(last + width as u128).unwrap_or(u64::MAX),
            });
        }
    }
    let mut index = vec![0usize; sizes.len()];
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        unravel(i, sizes, &mut index);
        let element: usize = index.iter().zip(strides).map(|(i, s)| i * s).sum();
        out.push(offset + element * width);
    }
    Ok(out)
}

/// The element count of `shape`, refused when its bytes would not fit in memory's address
/// range.
fn checked_count(shape: &[usize], width: usize) -> Result<usize, Error> {
    shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .filter(|n| n.checked_mul(width).is_some())
        .ok_or(Error::SizeOverflow {
            what: "tensor bytes",
            value: shape.iter().map(|&d| d as u128).product::<u128>() * width as u128,
        })
}

fn unravel(mut i: usize, sizes: &[usize], index: &mut [usize]) {
    for d in (0..sizes.len()).rev() {
        index[d] = i % sizes[d];
        i /= sizes[d];
    }
}

fn mask(data_type: DataType) -> u64 {
    match data_type.size_in_bytes() {
        8 => u64::MAX,
        w => (1u64 << (8 * w)) - 1,
    }
}

fn read(bytes: &[u8], at: usize, width: usize) -> u64 {
    let mut v = [0u8; 8];
    v[..width].copy_from_slice(&bytes[at..at + width]);
    u64::from_le_bytes(v)
}

fn write(bytes: &mut [u8], at: usize, width: usize, value: u64) {
    bytes[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openvino_doc_examples() {
        let (shape, out) = bitwise_xor(
            DataType::U8,
            &[2],
            &[21, 120],
            &[2],
            &[3, 37],
            AutoBroadcast::Numpy,
        )
        .unwrap();
        assert_eq!((shape, out), (vec![2], vec![22, 93]));
        let (_, out) = bitwise_xor(
            DataType::Bool,
            &[3],
            &[1, 0, 0],
            &[3],
            &[1, 1, 0],
            AutoBroadcast::Numpy,
        )
        .unwrap();
        assert_eq!(out, vec![0, 1, 0]);
    }

    #[test]
    fn non_canonical_bools_normalise() {
        let (_, out) = bitwise_xor(
            DataType::Bool,
            &[2],
            &[2, 0x80],
            &[2],
            &[1, 0],
            AutoBroadcast::Numpy,
        )
        .unwrap();
        assert_eq!(out, vec![0, 1]);
    }

    #[test]
    fn logical_xor_reads_the_full_width() {
        assert_eq!(logical_xor_element(DataType::U32, 0x100, 0), 1);
        assert_eq!(logical_xor_element(DataType::U8, 0x80, 0x01), 0);
        assert_eq!(logical_xor_element(DataType::U64, 1 << 63, 0), 1);
    }

    #[test]
    fn strided_views_are_bounds_checked() {
        let a = [0u8; 3];
        let view = StridedView {
            bytes: &a,
            data_type: DataType::U8,
            sizes: &[2],
            strides: Some(&[3]),
            offset: 0,
        };
        let mut out = [0u8; 2];
        let e = bit_xor(
            &view,
            &view,
            &mut StridedViewMut::packed(DataType::U8, &[2], &mut out),
        )
        .unwrap_err();
        assert_eq!(e.rule(), "binding_too_small");
        // Strides so large that the offsets overflow are refused, not wrapped.
        let huge = StridedView {
            strides: Some(&[usize::MAX]),
            ..view
        };
        let e = bit_xor(
            &huge,
            &huge,
            &mut StridedViewMut::packed(DataType::U8, &[2], &mut out),
        )
        .unwrap_err();
        assert_eq!(e.rule(), "binding_too_small");
        let e = bitwise_xor(
            DataType::U8,
            &[usize::MAX, 2],
            &[],
            &[1],
            &[0],
            AutoBroadcast::Numpy,
        )
        .unwrap_err();
        assert_eq!(e.rule(), "size_overflow");
    }
}
