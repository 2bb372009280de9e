//! The reference: a plain CPU implementation of every operator over strided views.
//!
//! It shares nothing with the GPU path but the description rules: no coalescing, no windows,
//! no lanes; one element at a time, in logical row-major order. It is the oracle of this
//! crate's tests, and a public API for checking a driver.
//!
//! ```
//! use gpu_xor_core::DataType;
//! use gpu_xor_core::reference::{StridedView, StridedViewMut, bit_xor};
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

use crate::desc::{
    AutoBroadcast, DataType, DmlBinaryOp, DmlUnaryOp, ElementFunction, ExprDesc, ExprNode,
    FeatureLevel, Operator, OvBinaryDesc, OvBinaryOp, OvUnaryOp, ReduceOp, TensorName,
    check_operand_type,
};
use crate::error::Error;

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

/// One element of `function` in `data_type`: the bits above the type's width are ignored,
/// and a logical function writes 0 or 1.
pub fn element(function: ElementFunction, data_type: DataType, a: u64, b: u64) -> u64 {
    function.apply(a, b, data_type.size_in_bytes())
}

/// DirectML BIT_XOR over strided views. A, B and the output must have one type and one
/// shape; every element must lie inside its bytes. Inputs are read in full before the output
/// is written.
pub fn bit_xor(
    a: &StridedView<'_>,
    b: &StridedView<'_>,
    out: &mut StridedViewMut<'_>,
) -> Result<(), Error> {
    dml_binary(DmlBinaryOp::BitXor, a, b, out)
}

/// DirectML LOGICAL_XOR over strided views (any type; the operator's type table is not
/// applied here).
pub fn logical_xor(
    a: &StridedView<'_>,
    b: &StridedView<'_>,
    out: &mut StridedViewMut<'_>,
) -> Result<(), Error> {
    dml_binary(DmlBinaryOp::LogicalXor, a, b, out)
}

/// A DirectML operator of two inputs over strided views: the rules of [`bit_xor`] (one type
/// and shape, every element inside its bytes; the operator's type table is not applied).
///
/// ```
/// use gpu_xor_core::{DataType, DmlBinaryOp};
/// use gpu_xor_core::reference::{StridedView, StridedViewMut, dml_binary};
///
/// let (a, b, mut out) = ([0u8, 2, 0, 7], [0u8, 0, 9, 1], [0u8; 4]);
/// let view = |bytes| StridedView::packed(DataType::U8, &[4], bytes);
/// let mut o = StridedViewMut::packed(DataType::U8, &[4], &mut out);
/// dml_binary(DmlBinaryOp::LogicalOr, &view(&a), &view(&b), &mut o).unwrap();
/// assert_eq!(out, [0, 1, 1, 1]);
/// ```
pub fn dml_binary(
    op: DmlBinaryOp,
    a: &StridedView<'_>,
    b: &StridedView<'_>,
    out: &mut StridedViewMut<'_>,
) -> Result<(), Error> {
    elementwise(op.operator(), op.function(), a, b, out)
}

/// A DirectML operator of one input (BIT_NOT, LOGICAL_NOT) over strided views.
pub fn dml_unary(
    op: DmlUnaryOp,
    input: &StridedView<'_>,
    out: &mut StridedViewMut<'_>,
) -> Result<(), Error> {
    elementwise(op.operator(), op.function(), input, input, out)
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
    ov_binary(
        OvBinaryOp::BitwiseXor,
        data_type,
        a_shape,
        a,
        b_shape,
        b,
        broadcast,
    )
}

/// An OpenVINO operation of two packed tensors under `broadcast`, its rules checked: returns
/// the output shape and its packed bytes.
pub fn ov_binary(
    op: OvBinaryOp,
    data_type: DataType,
    a_shape: &[usize],
    a: &[u8],
    b_shape: &[usize],
    b: &[u8],
    broadcast: AutoBroadcast,
) -> Result<(Vec<usize>, Vec<u8>), Error> {
    let shape = OvBinaryDesc::new(op, data_type, a_shape, b_shape)
        .with_broadcast(broadcast)
        .output_shape()?;
    let function = op.function(data_type);
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
    let mut out = Vec::new();
    out.try_reserve_exact(count * width)
        .map_err(|_| Error::HostAllocation {
            bytes: (count * width) as u64,
        })?;
    out.resize(count * width, 0);
    let mut index = vec![0usize; shape.len()];
    for i in 0..count {
        unravel(i, &shape, &mut index);
        let ia = source(&index, a_shape, a_axis);
        let ib = source(&index, b_shape, b_axis);
        let x = read(a, ia * width, width);
        let y = read(b, ib * width, width);
        write(
            &mut out,
            i * width,
            width,
            element(function, data_type, x, y),
        );
    }
    Ok((shape, out))
}

/// An OpenVINO operation of one packed tensor (BitwiseNot-13, LogicalNot-1), its type rule
/// checked: the output's packed bytes (its shape is the input's).
pub fn ov_unary(
    op: OvUnaryOp,
    data_type: DataType,
    shape: &[usize],
    input: &[u8],
) -> Result<Vec<u8>, Error> {
    crate::desc::OvUnaryDesc::new(op, data_type, shape).validate()?;
    let width = data_type.size_in_bytes() as usize;
    let n = checked_count(shape, width)?;
    if input.len() != n * width {
        return Err(Error::DataLength {
            shape: shape.to_vec(),
            expected: n,
            found: input.len() / width,
        });
    }
    let function = op.function(data_type);
    let mut out = Vec::new();
    out.try_reserve_exact(n * width)
        .map_err(|_| Error::HostAllocation {
            bytes: (n * width) as u64,
        })?;
    out.resize(n * width, 0);
    for i in 0..n {
        let x = read(input, i * width, width);
        write(
            &mut out,
            i * width,
            width,
            element(function, data_type, x, 0),
        );
    }
    Ok(out)
}

/// A fused expression ([`ExprDesc`]) over the bytes of its inputs and output, each from its
/// tensor's first element (its binding offset) on, laid out by its description's strides:
/// the nodes evaluated one by one per output element, each by the reference's function of
/// its operator ([`element`]). Every rule of the description is checked first (at
/// `feature_level`), and each tensor's bytes must hold its `TotalTensorSizeInBytes`
/// ([`Error::BindingTooSmall`] names the tensor). Bytes of `output` that no element occupies
/// keep their values.
///
/// ```
/// use gpu_xor_core::reference::expression;
/// use gpu_xor_core::{DataType, Expr, FeatureLevel, Operator, TensorDesc};
///
/// // (w >> 4) & 0xF: the high nibbles of int4 pairs.
/// let mut e = Expr::new();
/// let w = e.input(TensorDesc::new(DataType::U8, &[16]));
/// let four = e.constant(DataType::U8, 4);
/// let mask = e.constant(DataType::U8, 0xF);
/// let high = e.apply(Operator::BitShiftRight, &[w, four]);
/// let nibble = e.apply(Operator::BitAnd, &[high, mask]);
/// let desc = e.output(nibble, TensorDesc::new(DataType::U8, &[16]));
/// let weights: Vec<u8> = (0..16).map(|i| i * 17).collect();
/// let mut out = [0u8; 16];
/// expression(&desc, FeatureLevel::default(), &[&weights], &mut out).unwrap();
/// assert_eq!(out[3], 3);
/// ```
pub fn expression(
    desc: &ExprDesc,
    feature_level: FeatureLevel,
    inputs: &[&[u8]],
    output: &mut [u8],
) -> Result<(), Error> {
    let operands = desc.operands(feature_level)?;
    if inputs.len() != desc.inputs.len() {
        return Err(Error::ExprCount {
            what: "input byte slices",
            count: inputs.len(),
            min: desc.inputs.len(),
            max: desc.inputs.len(),
        });
    }
    let required = |tensor, spec: &crate::desc::Operand, len: usize| {
        if (len as u64) < spec.required_binding_size() {
            return Err(Error::BindingTooSmall {
                tensor,
                size: len as u64,
                required: spec.required_binding_size(),
            });
        }
        Ok(())
    };
    for (k, bytes) in inputs.iter().enumerate() {
        required(TensorName::Input(k as u8), operands.input(k), bytes.len())?;
    }
    required(TensorName::Output, operands.output(), output.len())?;

    // Every size and stride fits in usize: the tensors' bytes are in memory, and every
    // element lies inside them (validation bounds the last element by the total size).
    let sizes: Vec<usize> = operands.sizes().iter().map(|&n| n as usize).collect();
    let rank = sizes.len();
    // Per input, its strides over the output's dimensions: 0 where it has no dimension or a
    // size of 1 (numpy's broadcast).
    let strides: Vec<Vec<usize>> = (0..inputs.len())
        .map(|k| {
            let input = operands.input(k);
            let mut v = vec![0usize; rank];
            for (d, (&n, &s)) in input.sizes().iter().zip(input.strides()).enumerate() {
                if n != 1 {
                    v[input.axis() + d] = s as usize;
                }
            }
            v
        })
        .collect();
    let out_strides: Vec<usize> = operands
        .output()
        .strides()
        .iter()
        .map(|&s| s as usize)
        .collect();
    let widths: Vec<usize> = (0..inputs.len())
        .map(|k| operands.input_type(k).size_in_bytes() as usize)
        .collect();
    let out_width = operands.out_type().size_in_bytes() as usize;
    let count: usize = sizes.iter().product();
    // A reduction's values for one output element are the consecutive indices of its
    // trailing axes; an expression without one has one value per output element.
    let (reduce, reduced) = match operands.reduce() {
        Some((op, axes)) => (Some(op), sizes[rank - axes..].iter().product::<usize>()),
        None => (None, 1),
    };
    let result_type = operands.node_type(operands.result());
    let mut index = vec![0usize; rank];
    let mut values = vec![0u64; operands.nodes().len()];
    for first in (0..count).step_by(reduced.max(1)) {
        let mut total = reduce.map_or(0, |op| reduction_identity(op, result_type));
        let mut out_at = 0;
        for i in first..first + reduced {
            unravel(i, &sizes, &mut index);
            let at = |strides: &[usize]| -> usize {
                index.iter().zip(strides).map(|(&i, &s)| i * s).sum()
            };
            if i == first {
                out_at = at(&out_strides);
            }
            for (n, node) in operands.nodes().iter().enumerate() {
                values[n] = match *node {
                    ExprNode::Input(k) => read(inputs[k], at(&strides[k]) * widths[k], widths[k]),
                    ExprNode::Constant { bits, .. } => bits,
                    ExprNode::Apply { op, a, b, .. } => {
                        let data_type = operands.node_type(a);
                        element(op.function(data_type), data_type, values[a], values[b])
                    }
                };
            }
            let value = values[operands.result()];
            total = match reduce {
                Some(op) => reduction_step(op, result_type, total, value),
                None => value,
            };
        }
        // A sum's affine map, on the low 32 bits (its output is 32-bit).
        if let Some(affine) = operands.affine() {
            total = u64::from(affine.apply(total as u32));
        }
        write(output, out_at * out_width, out_width, total);
    }
    Ok(())
}

/// What a reduction of no values gives: 0, all ones of the result's width for `and`, 1
/// (true) for `all`.
fn reduction_identity(op: ReduceOp, result_type: DataType) -> u64 {
    match op {
        ReduceOp::And => mask(result_type),
        ReduceOp::All => 1,
        _ => 0,
    }
}

/// `total` combined with one more `value` of `result_type` by `op`: a sum of the values as
/// integers (a signed type's sign-extended) modulo 2^64 (the output's width keeps its low
/// bits), the bitwise functions on the bits, `any` and `all` on the truth values.
fn reduction_step(op: ReduceOp, result_type: DataType, total: u64, value: u64) -> u64 {
    let truth = u64::from(value != 0);
    match op {
        ReduceOp::Sum => {
            let bits = 8 * result_type.size_in_bytes();
            let value = if result_type.is_signed_integer() && bits < 64 {
                (((value << (64 - bits)) as i64) >> (64 - bits)) as u64
            } else {
                value
            };
            total.wrapping_add(value)
        }
        ReduceOp::Or => total | value,
        ReduceOp::And => total & value,
        ReduceOp::Xor => total ^ value,
        ReduceOp::Any => total | truth,
        ReduceOp::All => total & truth,
    }
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
    function: ElementFunction,
    a: &StridedView<'_>,
    b: &StridedView<'_>,
    out: &mut StridedViewMut<'_>,
) -> Result<(), Error> {
    let data_type = a.data_type;
    for (tensor, t) in [
        (TensorName::B, b.data_type),
        (TensorName::Output, out.data_type),
    ] {
        check_operand_type(operator, tensor, t, data_type)?;
    }
    for (tensor, sizes) in [(TensorName::B, b.sizes), (TensorName::Output, out.sizes)] {
        if sizes != a.sizes {
            let dims = |s: &[usize]| -> Vec<u32> {
                s.iter()
                    .map(|&d| u32::try_from(d).unwrap_or(u32::MAX))
                    .collect()
            };
            return Err(Error::SizesMismatch {
                operator,
                tensor,
                sizes: dims(sizes),
                expected: dims(a.sizes),
            });
        }
    }
    let width = data_type.size_in_bytes() as usize;
    let out_width = out.data_type.size_in_bytes() as usize;
    let count = checked_count(a.sizes, width)?;
    let a_strides = view_strides(
        TensorName::A,
        a.sizes,
        a.strides,
        a.offset,
        width,
        a.bytes.len(),
    )?;
    let b_strides = view_strides(
        TensorName::B,
        b.sizes,
        b.strides,
        b.offset,
        width,
        b.bytes.len(),
    )?;
    let o_strides = view_strides(
        TensorName::Output,
        out.sizes,
        out.strides,
        out.offset,
        out_width,
        out.bytes.len(),
    )?;
    // Every offset below is at most the last element's, which `view_strides` bounded by the
    // length of its bytes: no sum or product can overflow. Nothing is allocated per element.
    let at = |i: usize, strides: &[usize], offset: usize, width: usize| -> usize {
        let mut rest = i;
        let mut element = 0;
        for (&n, &s) in a.sizes.iter().zip(strides).rev() {
            element += (rest % n) * s;
            rest /= n;
        }
        offset + element * width
    };
    for i in 0..count {
        let x = read(a.bytes, at(i, &a_strides, a.offset, width), width);
        let y = read(b.bytes, at(i, &b_strides, b.offset, width), width);
        write(
            out.bytes,
            at(i, &o_strides, out.offset, out_width),
            out_width,
            element(function, data_type, x, y),
        );
    }
    Ok(())
}

/// A view's element strides (packed row-major when `None`), after checking that every
/// element lies inside `len` bytes.
fn view_strides(
    tensor: TensorName,
    sizes: &[usize],
    strides: Option<&[usize]>,
    offset: usize,
    width: usize,
    len: usize,
) -> Result<Vec<usize>, Error> {
    let count = checked_count(sizes, width)?;
    let strides = match strides {
        Some(s) => {
            if s.len() != sizes.len() {
                return Err(Error::StridesLengthMismatch {
                    tensor,
                    strides: s.len(),
                    rank: sizes.len(),
                });
            }
            s.to_vec()
        }
        None => {
            // Each packed stride is a product of some sizes, at most `count`.
            let mut acc = 1usize;
            let mut v = vec![0; sizes.len()];
            for d in (0..sizes.len()).rev() {
                v[d] = acc;
                acc = acc.saturating_mul(sizes[d]);
            }
            v
        }
    };
    // The last element is the furthest (strides are unsigned): checking it checks them all,
    // and bounds every offset.
    if count > 0 {
        let last = sizes
            .iter()
            .zip(&strides)
            .try_fold(offset as u128, |acc, (&n, &s)| {
                (n as u128 - 1)
                    .checked_mul(s as u128)?
                    .checked_mul(width as u128)?
                    .checked_add(acc)
            })
            .unwrap_or(u128::MAX);
        let end = last.saturating_add(width as u128);
        if end > len as u128 {
            return Err(Error::BindingTooSmall {
                tensor,
                size: len as u64,
                required: u64::try_from(end).unwrap_or(u64::MAX),
            });
        }
    }
    Ok(strides)
}

/// The element count of `shape`, refused when its bytes would not fit in memory's address
/// range.
fn checked_count(shape: &[usize], width: usize) -> Result<usize, Error> {
    shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .filter(|n| n.checked_mul(width).is_some())
        .ok_or_else(|| Error::SizeOverflow {
            what: "tensor bytes",
            value: shape
                .iter()
                .try_fold(width as u128, |acc, &d| acc.checked_mul(d as u128))
                .unwrap_or(u128::MAX),
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

/// The `k` codes nearest each query in Hamming space, by exhaustive search: for each query
/// (a row of bytes), the pairs (distance, index) of the `k` smallest distances to `codes`
/// (rows of the same length), ascending, ties broken by the lower index, over the codes for
/// which `allowed` holds; past the allowed codes, the sentinel `(u32::MAX, u64::MAX)`.
///
/// ```
/// use gpu_xor_core::reference::k_nearest;
///
/// let codes: [&[u8]; 4] = [&[0b1111], &[0b0001], &[0b0011], &[0b0001]];
/// let found = k_nearest(&[&[0b0000]], &codes, 3, |_| true);
/// assert_eq!(found[0], [(1, 1), (1, 3), (2, 2)]);
/// let found = k_nearest(&[&[0b0000]], &codes, 3, |n| n % 2 == 0);
/// assert_eq!(found[0], [(2, 2), (4, 0), (u32::MAX, u64::MAX)]);
/// ```
pub fn k_nearest(
    queries: &[&[u8]],
    codes: &[&[u8]],
    k: usize,
    allowed: impl Fn(usize) -> bool,
) -> Vec<Vec<(u32, u64)>> {
    queries
        .iter()
        .map(|q| {
            let mut found: Vec<(u32, u64)> = codes
                .iter()
                .enumerate()
                .filter(|&(n, _)| allowed(n))
                .map(|(n, c)| {
                    let d = q.iter().zip(*c).map(|(a, b)| (a ^ b).count_ones()).sum();
                    (d, n as u64)
                })
                .collect();
            found.sort_unstable();
            found.truncate(k);
            found.resize(k, (u32::MAX, u64::MAX));
            found
        })
        .collect()
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

    #[test]
    fn huge_shapes_are_typed_errors_not_overflows() {
        // The product of the sizes passes 2^128: the error value saturates.
        let e = bitwise_xor(
            DataType::U8,
            &[usize::MAX; 3],
            &[],
            &[1],
            &[0],
            AutoBroadcast::Numpy,
        )
        .unwrap_err();
        assert_eq!(
            e,
            Error::SizeOverflow {
                what: "tensor bytes",
                value: u128::MAX
            }
        );
        // Packed strides of a view whose element count overflows.
        let bytes = [0u8; 4];
        let view = StridedView::packed(DataType::U8, &[usize::MAX, 2], &bytes);
        let mut out = [0u8; 4];
        let mut out_view = StridedViewMut::packed(DataType::U8, &[usize::MAX, 2], &mut out);
        let e = bit_xor(&view, &view, &mut out_view).unwrap_err();
        assert_eq!(e.rule(), "size_overflow");
        // A furthest offset near the top of the address space is refused, not wrapped.
        let view = StridedView {
            strides: Some(&[usize::MAX / 2, 1]),
            ..StridedView::packed(DataType::U8, &[3, 2], &bytes)
        };
        let mut out_view = StridedViewMut::packed(DataType::U8, &[3, 2], &mut out);
        let e = bit_xor(&view, &view, &mut out_view).unwrap_err();
        assert_eq!(e.rule(), "binding_too_small");
    }

    #[test]
    fn broadcast_views_are_not_expanded_in_memory() {
        // 2^40 elements read from one byte each: refused for the output's bytes, not
        // allocated per element.
        let one = [7u8; 1];
        let huge: &[usize] = &[1 << 20, 1 << 20];
        let view = StridedView {
            strides: Some(&[0, 0]),
            ..StridedView::packed(DataType::U8, huge, &one)
        };
        let mut out = [0u8; 16];
        let mut out_view = StridedViewMut::packed(DataType::U8, huge, &mut out);
        let e = logical_xor(&view, &view, &mut out_view).unwrap_err();
        assert_eq!(e.rule(), "binding_too_small");
        // Strided views still read and write the right elements.
        let a = [1u8, 0, 2, 0, 3, 0];
        let b = [0xf0u8; 1];
        let mut out = [0u8; 3];
        bit_xor(
            &StridedView {
                strides: Some(&[2]),
                ..StridedView::packed(DataType::U8, &[3], &a)
            },
            &StridedView {
                strides: Some(&[0]),
                ..StridedView::packed(DataType::U8, &[3], &b)
            },
            &mut StridedViewMut::packed(DataType::U8, &[3], &mut out),
        )
        .unwrap();
        assert_eq!(out, [0xf1, 0xf2, 0xf3]);
    }

    /// `a | a` of `data_type` elements `values` reduced by `op` over its one axis into one
    /// element of `out`.
    fn reduce_values(data_type: DataType, values: &[u64], op: ReduceOp, out: DataType) -> u64 {
        use crate::desc::{Expr, TensorDesc};
        let w = data_type.size_in_bytes() as usize;
        let mut e = Expr::new();
        let a = e.input(TensorDesc::new(data_type, &[values.len() as u32]));
        let r = e.apply(Operator::BitOr, &[a, a]);
        let desc = e.reduce(r, op, &[0], TensorDesc::new(out, &[1]));
        let bytes: Vec<u8> = values
            .iter()
            .flat_map(|v| v.to_le_bytes()[..w].to_vec())
            .collect();
        let mut padded = bytes.clone();
        padded.resize(bytes.len().div_ceil(4) * 4, 0);
        let mut output = vec![0u8; 8];
        expression(&desc, FeatureLevel::default(), &[&padded], &mut output).unwrap();
        read(&output, 0, out.size_in_bytes() as usize)
    }

    #[test]
    fn sums_wrap_at_the_output_width_and_extend_signed_values() {
        use DataType::{I8, I64, U8, U32, U64};
        // Signed values are summed as integers: -1 - 2 + 3.
        assert_eq!(reduce_values(I8, &[0xff, 0xfe, 3], ReduceOp::Sum, U32), 0);
        assert_eq!(reduce_values(I8, &[0xff], ReduceOp::Sum, U64), u64::MAX);
        assert_eq!(reduce_values(U8, &[0xff, 0xff], ReduceOp::Sum, U32), 0x1fe);
        // An overflow wraps modulo the output's width.
        assert_eq!(
            reduce_values(U32, &[u64::from(u32::MAX), 2], ReduceOp::Sum, U32),
            1
        );
        assert_eq!(
            reduce_values(U32, &[u64::from(u32::MAX), 2], ReduceOp::Sum, U64),
            (1 << 32) + 1
        );
        assert_eq!(reduce_values(I64, &[u64::MAX, 2], ReduceOp::Sum, U64), 1);
        // The bitwise and logical ones.
        assert_eq!(
            reduce_values(U8, &[0b1100, 0b1010], ReduceOp::Or, U8),
            0b1110
        );
        assert_eq!(
            reduce_values(U8, &[0b1100, 0b1010], ReduceOp::And, U8),
            0b1000
        );
        assert_eq!(
            reduce_values(U8, &[0b1100, 0b1010], ReduceOp::Xor, U8),
            0b0110
        );
        assert_eq!(reduce_values(U8, &[0, 0x80, 0], ReduceOp::Any, U8), 1);
        assert_eq!(reduce_values(U8, &[0, 0], ReduceOp::Any, U8), 0);
        assert_eq!(reduce_values(U8, &[1, 0x80, 0], ReduceOp::All, U8), 0);
        assert_eq!(reduce_values(U8, &[1, 0x80], ReduceOp::All, U8), 1);
    }
}
