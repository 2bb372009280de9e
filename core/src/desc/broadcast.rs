//! The OpenVINO operations (BitwiseXor-13 and its family) and their broadcast rules (OpenVINO's
//! `AutoBroadcastSpec`: none, numpy and pdpd).

use crate::desc::tensor::packed_strides;
use crate::desc::{AutoBroadcast, DataType, Operand, Operands, Operator, OvBinaryOp, OvUnaryOp};
use crate::error::Error;

/// OpenVINO `BitwiseXor-13`: bitwise XOR of two integer tensors, or logical XOR of two boolean
/// tensors, with `auto_broadcast`.
///
/// Types: `u8`, `i8`, `u16`, `i16`, `u32`, `i32`, `u64`, `i64` and `bool`. Boolean inputs are
/// read as `byte != 0` and the output is a 0/1 byte. Shapes may have any rank (0 is a scalar)
/// and zero-size dimensions (an empty output, for which nothing is dispatched).
///
/// ```
/// use gpu_xor_core::{AutoBroadcast, BitwiseXorDesc, DataType};
///
/// let desc = BitwiseXorDesc::new(DataType::I32, &[8, 1, 6, 1], &[7, 1, 5]);
/// assert_eq!(desc.output_shape().unwrap(), vec![8, 7, 6, 5]);
///
/// let pdpd = BitwiseXorDesc::new(DataType::I32, &[2, 3, 4, 5], &[3, 4])
///     .with_broadcast(AutoBroadcast::Pdpd { axis: 1 });
/// assert_eq!(pdpd.output_shape().unwrap(), vec![2, 3, 4, 5]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BitwiseXorDesc {
    /// Element type of input 0.
    pub a_type: DataType,
    /// Element type of input 1; must equal `a_type`.
    pub b_type: DataType,
    /// Shape of input 0.
    pub a_shape: Vec<usize>,
    /// Shape of input 1.
    pub b_shape: Vec<usize>,
    /// The broadcast rule.
    pub auto_broadcast: AutoBroadcast,
}

impl BitwiseXorDesc {
    /// Two inputs of one type, with numpy broadcasting.
    pub fn new(data_type: DataType, a_shape: &[usize], b_shape: &[usize]) -> BitwiseXorDesc {
        BitwiseXorDesc {
            a_type: data_type,
            b_type: data_type,
            a_shape: a_shape.to_vec(),
            b_shape: b_shape.to_vec(),
            auto_broadcast: AutoBroadcast::Numpy,
        }
    }

    /// The same description with another broadcast rule.
    pub fn with_broadcast(mut self, auto_broadcast: AutoBroadcast) -> BitwiseXorDesc {
        self.auto_broadcast = auto_broadcast;
        self
    }

    /// The output shape, after every rule has been checked.
    pub fn output_shape(&self) -> Result<Vec<usize>, Error> {
        self.family().output_shape()
    }

    /// Checks every rule, in OpenVINO's order: the element types merge, the shapes broadcast,
    /// the type is integer or boolean.
    pub fn validate(&self) -> Result<(), Error> {
        self.family().validate()
    }

    /// Checks every rule, as [`BitwiseXorDesc::validate`] does, and describes the three
    /// operands for layout analysis ([`crate::Plan::new`]): packed tensors, each input placed
    /// among the output's dimensions by the broadcast rule. Fails with
    /// [`Error::SizeOverflow`] where a valid description's tensors have more bytes than 64
    /// bits count.
    pub fn operands(&self) -> Result<Operands, Error> {
        self.family().operands()
    }

    fn family(&self) -> OvBinaryDesc {
        OvBinaryDesc::from(self.clone())
    }
}

impl From<BitwiseXorDesc> for OvBinaryDesc {
    fn from(d: BitwiseXorDesc) -> OvBinaryDesc {
        OvBinaryDesc {
            op: OvBinaryOp::BitwiseXor,
            a_type: d.a_type,
            b_type: d.b_type,
            a_shape: d.a_shape,
            b_shape: d.b_shape,
            auto_broadcast: d.auto_broadcast,
        }
    }
}

/// An OpenVINO operation of two inputs with `auto_broadcast`: `BitwiseAnd-13`,
/// `BitwiseOr-13`, `BitwiseXor-13` (integer or boolean types; on boolean the logical
/// function) or `LogicalAnd-1`, `LogicalOr-1`, `LogicalXor-1` (boolean only), the operation a
/// field. Boolean inputs are read as `byte != 0` and the output is a 0/1 byte.
///
/// ```
/// use gpu_xor_core::{AutoBroadcast, DataType, OvBinaryDesc, OvBinaryOp};
///
/// let and = OvBinaryDesc::new(OvBinaryOp::BitwiseAnd, DataType::I16, &[8, 1, 6, 1], &[7, 1, 5]);
/// assert_eq!(and.output_shape().unwrap(), vec![8, 7, 6, 5]);
/// let or = OvBinaryDesc::new(OvBinaryOp::LogicalOr, DataType::U8, &[2], &[2]);
/// assert_eq!(or.validate().unwrap_err().rule(), "unsupported_dtype");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OvBinaryDesc {
    /// The operation.
    pub op: OvBinaryOp,
    /// Element type of input 0.
    pub a_type: DataType,
    /// Element type of input 1; must equal `a_type`.
    pub b_type: DataType,
    /// Shape of input 0.
    pub a_shape: Vec<usize>,
    /// Shape of input 1.
    pub b_shape: Vec<usize>,
    /// The broadcast rule.
    pub auto_broadcast: AutoBroadcast,
}

impl OvBinaryDesc {
    /// Two inputs of one type, with numpy broadcasting (every operation's default).
    pub fn new(
        op: OvBinaryOp,
        data_type: DataType,
        a_shape: &[usize],
        b_shape: &[usize],
    ) -> OvBinaryDesc {
        OvBinaryDesc {
            op,
            a_type: data_type,
            b_type: data_type,
            a_shape: a_shape.to_vec(),
            b_shape: b_shape.to_vec(),
            auto_broadcast: AutoBroadcast::Numpy,
        }
    }

    /// The same description with another broadcast rule.
    pub fn with_broadcast(mut self, auto_broadcast: AutoBroadcast) -> OvBinaryDesc {
        self.auto_broadcast = auto_broadcast;
        self
    }

    /// The output shape, after every rule has been checked.
    pub fn output_shape(&self) -> Result<Vec<usize>, Error> {
        self.checked().map(|(shape, _)| shape)
    }

    /// Checks every rule, in OpenVINO's order: the element types merge, the shapes broadcast,
    /// the type is one the operation takes (integer or boolean; boolean for `Logical*`).
    pub fn validate(&self) -> Result<(), Error> {
        self.checked().map(|_| ())
    }

    fn checked(&self) -> Result<(Vec<usize>, DataType), Error> {
        if self.a_type != self.b_type {
            return Err(Error::ElementTypeMismatch {
                a: self.a_type,
                b: self.b_type,
            });
        }
        let shape = infer_output_shape(&self.a_shape, &self.b_shape, self.auto_broadcast)?;
        check_type(self.op.operator(), self.a_type)?;
        Ok((shape, self.a_type))
    }

    /// Checks every rule, as [`OvBinaryDesc::validate`] does, and describes the three
    /// operands for layout analysis ([`crate::Plan::new`]): packed tensors, each input placed
    /// among the output's dimensions by the broadcast rule. Fails with
    /// [`Error::SizeOverflow`] where a valid description's tensors have more bytes than 64
    /// bits count.
    pub fn operands(&self) -> Result<Operands, Error> {
        let (shape, data_type) = self.checked()?;
        let width = u64::from(data_type.size_in_bytes());
        // Numpy right-aligns both inputs; pdpd places B at its axis (A has the output's
        // rank). The shapes were checked to fit.
        let b_axis = match self.auto_broadcast {
            AutoBroadcast::Pdpd { axis } if axis != -1 => axis as usize,
            _ => shape.len() - self.b_shape.len(),
        };
        let a_axis = shape.len() - self.a_shape.len();
        // The output's bytes are counted first, then A's, then B's.
        let output = packed_operand(&shape, 0, width)?;
        Ok(Operands {
            operator: self.op.operator(),
            function: self.op.function(data_type),
            data_type,
            out_type: data_type,
            operands: [
                packed_operand(&self.a_shape, a_axis, width)?,
                packed_operand(&self.b_shape, b_axis, width)?,
                output,
            ],
        })
    }
}

/// An OpenVINO operation of one input: `BitwiseNot-13` (integer or boolean; on boolean,
/// logical not) or `LogicalNot-1` (boolean), the operation a field. The output has the
/// input's type and shape.
///
/// ```
/// use gpu_xor_core::{DataType, OvUnaryDesc, OvUnaryOp};
///
/// assert!(OvUnaryDesc::new(OvUnaryOp::BitwiseNot, DataType::I8, &[2, 3]).validate().is_ok());
/// let err = OvUnaryDesc::new(OvUnaryOp::LogicalNot, DataType::I8, &[2, 3]).validate();
/// assert_eq!(err.unwrap_err().rule(), "unsupported_dtype");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OvUnaryDesc {
    /// The operation.
    pub op: OvUnaryOp,
    /// Element type of the input (and the output).
    pub data_type: DataType,
    /// Shape of the input (and the output).
    pub shape: Vec<usize>,
}

impl OvUnaryDesc {
    /// One input of this type and shape.
    pub fn new(op: OvUnaryOp, data_type: DataType, shape: &[usize]) -> OvUnaryDesc {
        OvUnaryDesc {
            op,
            data_type,
            shape: shape.to_vec(),
        }
    }

    /// The output shape: the input's, once the type has been checked.
    pub fn output_shape(&self) -> Result<Vec<usize>, Error> {
        self.validate().map(|()| self.shape.clone())
    }

    /// Checks the one rule: the type is one the operation takes.
    pub fn validate(&self) -> Result<(), Error> {
        check_type(self.op.operator(), self.data_type)
    }

    /// Checks the type, as [`OvUnaryDesc::validate`] does, and describes the operands for
    /// layout analysis ([`crate::Plan::new`]): B is the input again.
    pub fn operands(&self) -> Result<Operands, Error> {
        self.validate()?;
        let width = u64::from(self.data_type.size_in_bytes());
        let output = packed_operand(&self.shape, 0, width)?;
        let input = packed_operand(&self.shape, 0, width)?;
        Ok(Operands {
            operator: self.op.operator(),
            function: self.op.function(self.data_type),
            data_type: self.data_type,
            out_type: self.data_type,
            operands: [input.clone(), input, output],
        })
    }
}

/// The type rule of an OpenVINO operation: `Logical*-1` take `boolean`, `Bitwise*-13`
/// integers and `boolean`, `Bitwise*Shift-15` integers.
fn check_type(operator: Operator, data_type: DataType) -> Result<(), Error> {
    if crate::desc::min_feature_level(operator, data_type).is_some() {
        return Ok(());
    }
    Err(if operator.boolean_only() {
        Error::NotBoolean {
            operator,
            data_type,
        }
    } else if operator.spec().types == crate::desc::TypeTable::OvInteger {
        Error::NotInteger {
            operator,
            data_type,
        }
    } else {
        Error::NotIntegerOrBoolean { data_type }
    })
}

/// A packed OpenVINO tensor of these dimensions, its first at the output's dimension `axis`.
fn packed_operand(dims: &[usize], axis: usize, width: u64) -> Result<Operand, Error> {
    let sizes: Vec<u64> = dims.iter().map(|&d| d as u64).collect();
    let bytes = packed_bytes(&sizes, width)?;
    Ok(Operand {
        strides: packed_strides(&sizes),
        sizes,
        axis,
        required_bytes: bytes,
        touched_bytes: bytes,
        offset_alignment: width.max(4),
    })
}

/// Bytes of a packed tensor of these sizes, rounded up to whole 4-byte words: 0 for an empty
/// tensor, whatever its other dimensions, and [`Error::SizeOverflow`] when the count does not
/// fit in 64 bits.
fn packed_bytes(sizes: &[u64], width: u64) -> Result<u64, Error> {
    if sizes.contains(&0) {
        return Ok(0);
    }
    sizes
        .iter()
        .try_fold(1u64, |acc, &d| acc.checked_mul(d))
        .and_then(|n| n.checked_mul(width))
        .and_then(|b| b.checked_next_multiple_of(4))
        .ok_or_else(|| Error::SizeOverflow {
            what: "tensor bytes",
            value: sizes
                .iter()
                .try_fold(u128::from(width), |acc, &d| acc.checked_mul(u128::from(d)))
                .unwrap_or(u128::MAX),
        })
}

/// The output shape of two inputs under `broadcast`, following OpenVINO's shape inference
/// (`PartialShape::broadcast_merge_into` for static shapes).
///
/// ```
/// use gpu_xor_core::{AutoBroadcast, infer_output_shape};
///
/// assert_eq!(infer_output_shape(&[2, 1], &[1, 0], AutoBroadcast::Numpy).unwrap(), vec![2, 0]);
/// assert_eq!(infer_output_shape(&[], &[], AutoBroadcast::Numpy).unwrap(), Vec::<usize>::new());
/// assert!(infer_output_shape(&[1, 3], &[3], AutoBroadcast::None).is_err());
/// ```
pub fn infer_output_shape(
    a: &[usize],
    b: &[usize],
    broadcast: AutoBroadcast,
) -> Result<Vec<usize>, Error> {
    let fail = |reason: &'static str| Error::ShapeInconsistent {
        a: a.to_vec(),
        b: b.to_vec(),
        broadcast,
        reason,
    };
    match broadcast {
        AutoBroadcast::None => {
            if a == b {
                Ok(a.to_vec())
            } else {
                Err(fail("auto_broadcast none requires identical shapes"))
            }
        }
        AutoBroadcast::Numpy => {
            let rank = a.len().max(b.len());
            let pad = |s: &[usize], i: usize| -> usize {
                let lead = rank - s.len();
                if i < lead { 1 } else { s[i - lead] }
            };
            (0..rank)
                .map(|i| {
                    merge_dim(pad(a, i), pad(b, i))
                        .ok_or_else(|| fail("a dimension pair is unequal and neither is 1"))
                })
                .collect()
        }
        AutoBroadcast::Pdpd { axis } => {
            if b.len() > a.len() {
                return Err(fail("pdpd needs rank(B) <= rank(A)"));
            }
            if axis < -1 {
                return Err(fail("pdpd axis is below -1"));
            }
            let axis = if axis == -1 {
                a.len() - b.len()
            } else {
                usize::try_from(axis).map_err(|_| fail("pdpd axis is out of range"))?
            };
            if axis.checked_add(b.len()).is_none_or(|end| end > a.len()) {
                return Err(fail("pdpd needs axis + rank(B) <= rank(A)"));
            }
            let mut out = a.to_vec();
            for (i, &bd) in b.iter().enumerate() {
                let ad = a[axis + i];
                if bd > ad {
                    return Err(fail("pdpd: a B dimension is larger than its A dimension"));
                }
                out[axis + i] = merge_dim(ad, bd)
                    .ok_or_else(|| fail("pdpd: a B dimension is neither its A dimension nor 1"))?;
            }
            Ok(out)
        }
        AutoBroadcast::Explicit => Err(Error::UnsupportedBroadcast { broadcast }),
    }
}

/// `Dimension::broadcast_merge` for static dimensions: equal, or one of them is 1 and the
/// result is the other (so 1 against 0 gives 0).
fn merge_dim(x: usize, y: usize) -> Option<usize> {
    if x == y || y == 1 {
        Some(x)
    } else if x == 1 {
        Some(y)
    } else {
        None
    }
}

/// Shapes of OpenVINO's doc and type_prop tests, checked against the rules written out.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::desc::TensorName;

    fn ok(a: &[usize], b: &[usize], m: AutoBroadcast) -> Vec<usize> {
        infer_output_shape(a, b, m).unwrap()
    }

    fn bad(a: &[usize], b: &[usize], m: AutoBroadcast) {
        assert_eq!(
            infer_output_shape(a, b, m).unwrap_err().rule(),
            "shape_inconsistent",
            "{a:?} {b:?} {m}"
        );
    }

    #[test]
    fn numpy_follows_the_doc_examples() {
        let np = AutoBroadcast::Numpy;
        assert_eq!(ok(&[8, 1, 6, 1], &[7, 1, 5], np), vec![8, 7, 6, 5]);
        assert_eq!(ok(&[2, 3, 4, 5], &[1], np), vec![2, 3, 4, 5]);
        assert_eq!(ok(&[4, 5], &[2, 3, 4, 5], np), vec![2, 3, 4, 5]);
        assert_eq!(ok(&[1, 4, 5], &[2, 3, 1, 1], np), vec![2, 3, 4, 5]);
        assert_eq!(ok(&[1], &[0], np), vec![0]);
        assert_eq!(ok(&[], &[], np), Vec::<usize>::new());
        bad(&[3], &[4], np);
        bad(&[2, 0], &[3], np);
        bad(&[389, 112, 12], &[389, 112, 19], np);
    }

    #[test]
    fn pdpd_follows_the_doc_examples() {
        let pd = |axis| AutoBroadcast::Pdpd { axis };
        let a = [2, 3, 4, 5];
        assert_eq!(ok(&a, &[3, 4], pd(1)), a);
        assert_eq!(ok(&a, &[3, 1], pd(1)), a);
        assert_eq!(ok(&a, &[4, 5], pd(-1)), a);
        assert_eq!(ok(&a, &[4, 5], pd(2)), a);
        assert_eq!(ok(&a, &[1, 3], pd(0)), a);
        assert_eq!(ok(&a, &[], pd(-1)), a);
        assert_eq!(ok(&a, &[5], pd(3)), a);
        assert_eq!(ok(&[8, 7, 6, 5], &[7, 1, 5], pd(-1)), vec![8, 7, 6, 5]);
        bad(&[8, 1, 6, 1], &[7, 1, 5], pd(1));
        bad(&a, &[3, 1], pd(-2));
        bad(&[2, 3, 4, 1], &[2, 3, 4, 5], pd(-1));
        bad(&a, &[4, 5, 1], pd(2));
        // A 1 in A against a 0 in B merges to 0, as shape inference does.
        assert_eq!(ok(&[2, 1], &[0], pd(-1)), vec![2, 0]);
    }

    #[test]
    fn none_needs_identical_shapes() {
        assert_eq!(ok(&[2, 2], &[2, 2], AutoBroadcast::None), vec![2, 2]);
        bad(&[1, 3], &[3], AutoBroadcast::None);
    }

    #[test]
    fn explicit_is_unsupported() {
        assert_eq!(
            infer_output_shape(&[2], &[2], AutoBroadcast::Explicit)
                .unwrap_err()
                .rule(),
            "unsupported_broadcast"
        );
    }

    #[test]
    fn operands_refuse_byte_counts_past_64_bits() {
        // usize::MAX bytes round up to 2^64: once wrapped to a 0-byte binding.
        let e = BitwiseXorDesc::new(DataType::U8, &[usize::MAX], &[1])
            .operands()
            .unwrap_err();
        assert_eq!(
            e,
            Error::SizeOverflow {
                what: "tensor bytes",
                value: u128::from(u64::MAX)
            }
        );
        let e = BitwiseXorDesc::new(DataType::U64, &[1 << 61], &[1])
            .operands()
            .unwrap_err();
        assert_eq!(e.rule(), "size_overflow");
        // Past 2^128 the reported value saturates instead of overflowing.
        let e = BitwiseXorDesc::new(DataType::U8, &[usize::MAX; 3], &[1])
            .operands()
            .unwrap_err();
        assert_eq!(
            e,
            Error::SizeOverflow {
                what: "tensor bytes",
                value: u128::MAX
            }
        );
        let operands = BitwiseXorDesc::new(DataType::U32, &[(1 << 60) - 1], &[1])
            .operands()
            .unwrap();
        assert_eq!(
            operands.operand(TensorName::Output).required_binding_size(),
            ((1u64 << 60) - 1) * 4
        );
    }

    #[test]
    fn empty_outputs_need_no_bytes_whatever_their_other_dimensions() {
        let d = BitwiseXorDesc::new(DataType::I64, &[3, 1, 4, 7120310469467933835, 1, 0], &[]);
        d.validate().unwrap();
        let operands = d.operands().unwrap();
        assert!(operands.sizes().contains(&0));
        let bytes = TensorName::ALL.map(|t| operands.operand(t).required_binding_size());
        assert_eq!(bytes, [0, 8, 0]);
        let d = BitwiseXorDesc::new(DataType::U8, &[usize::MAX, usize::MAX, 0], &[1]);
        assert_eq!(d.operands().unwrap().sizes(), &[u64::MAX, u64::MAX, 0]);
        // An input that is not empty must still fit in 64 bits, even against an empty output.
        let d = BitwiseXorDesc::new(DataType::U8, &[usize::MAX, usize::MAX, 1], &[0]);
        assert_eq!(d.output_shape().unwrap(), vec![usize::MAX, usize::MAX, 0]);
        assert_eq!(d.operands().unwrap_err().rule(), "size_overflow");
    }

    #[test]
    fn inputs_sit_where_the_broadcast_rule_places_them() {
        let axes = |d: BitwiseXorDesc| {
            let operands = d.operands().unwrap();
            TensorName::ALL.map(|t| operands.operand(t).axis())
        };
        let np = BitwiseXorDesc::new(DataType::U8, &[8, 1, 6, 1], &[7, 1, 5]);
        assert_eq!(axes(np), [0, 1, 0]);
        let np = BitwiseXorDesc::new(DataType::U8, &[5], &[2, 3, 1]);
        assert_eq!(axes(np), [2, 0, 0]);
        let same = BitwiseXorDesc::new(DataType::U8, &[2, 3], &[2, 3]);
        assert_eq!(axes(same.with_broadcast(AutoBroadcast::None)), [0, 0, 0]);
        let pd = BitwiseXorDesc::new(DataType::U8, &[2, 3, 4, 5], &[3, 1]);
        let pd_at = |axis| pd.clone().with_broadcast(AutoBroadcast::Pdpd { axis });
        assert_eq!(axes(pd_at(1)), [0, 1, 0]);
        let pd = BitwiseXorDesc::new(DataType::U8, &[2, 3, 4, 5], &[4, 5]);
        let pd_at = |axis| pd.clone().with_broadcast(AutoBroadcast::Pdpd { axis });
        assert_eq!(axes(pd_at(-1)), [0, 2, 0]);
        let operands = BitwiseXorDesc::new(DataType::Bool, &[2, 3], &[3])
            .operands()
            .unwrap();
        assert!(operands.function().logical);
        assert_eq!(operands.operator(), Operator::BitwiseXor);
        let b = operands.operand(TensorName::B);
        assert_eq!((b.sizes(), b.strides()), (&[3][..], &[1][..]));
        assert_eq!((b.required_binding_size(), b.binding_alignment()), (4, 4));
    }

    #[test]
    fn openvino_checks_types_then_shapes_then_integrality() {
        let mut d = BitwiseXorDesc::new(DataType::U8, &[3], &[4]);
        d.b_type = DataType::Bool;
        assert_eq!(d.validate().unwrap_err().rule(), "dtype_mismatch");
        let d = BitwiseXorDesc::new(DataType::F32, &[3], &[4]);
        assert_eq!(d.validate().unwrap_err().rule(), "shape_inconsistent");
        let d = BitwiseXorDesc::new(DataType::F32, &[2, 2], &[2, 2]);
        assert_eq!(d.validate().unwrap_err().rule(), "unsupported_dtype");
        assert_eq!(
            d.validate().unwrap_err().to_string(),
            "The element type of the input tensor must be integer or boolean. (got f32)"
        );
    }
}
