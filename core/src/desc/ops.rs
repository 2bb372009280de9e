//! The DirectML operator descriptions and their rules (DirectML's `DML_BUFFER_TENSOR_DESC`
//! and each operator's "Tensor constraints" and "Tensor support" tables).

use super::self_overlap::{SELF_OVERLAP_STEP_LIMIT, self_overlaps};
use crate::desc::{
    DataType, DmlBinaryOp, DmlUnaryOp, ElementFunction, FeatureLevel, MAX_DIMENSIONS, Operand,
    Operands, Operator, TensorDesc, TensorFlags, TensorName,
};
use crate::error::Error;

/// `DML_ELEMENT_WISE_BIT_XOR_OPERATOR_DESC`: `Output = A ^ B` on the raw bits of each element.
///
/// The data type only sets the element width: floats are never loaded as floats, so NaN
/// payloads, signalling NaNs and `-0.0` pass through bit for bit.
///
/// ```
/// use gpu_xor_core::{BitXorDesc, DataType, FeatureLevel, TensorDesc};
///
/// let desc = BitXorDesc::packed(DataType::F16, &[2, 3]);
/// assert!(desc.validate(FeatureLevel::Fl4_1).is_ok());
/// // FLOAT16 needs feature level 4.1.
/// let err = desc.validate(FeatureLevel::Fl3_0).unwrap_err();
/// assert_eq!(err.rule(), "unsupported_dtype");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BitXorDesc {
    /// `ATensor`.
    pub a: TensorDesc,
    /// `BTensor`.
    pub b: TensorDesc,
    /// `OutputTensor`.
    pub output: TensorDesc,
}

/// `DML_ELEMENT_WISE_LOGICAL_XOR_OPERATOR_DESC`:
/// `Output = ((A != 0) != (B != 0)) ? 1 : 0`, in the input type.
///
/// Each element is read at its full width: `0x100` in a `UINT32` is true. Only `UINT32`
/// (from feature level 1.0) and `UINT8` (from 2.0) are accepted, and below 3.0 only 4-D
/// tensors.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LogicalXorDesc {
    /// `ATensor`.
    pub a: TensorDesc,
    /// `BTensor`.
    pub b: TensorDesc,
    /// `OutputTensor`.
    pub output: TensorDesc,
}

macro_rules! dml_desc_impl {
    ($desc:ident, $op:expr) => {
        impl $desc {
            /// A description from three tensor descriptions.
            pub fn new(a: TensorDesc, b: TensorDesc, output: TensorDesc) -> $desc {
                $desc { a, b, output }
            }

            /// Three packed tensors of one type and one shape.
            pub fn packed(data_type: DataType, sizes: &[u32]) -> $desc {
                let t = TensorDesc::new(data_type, sizes);
                $desc {
                    a: t.clone(),
                    b: t.clone(),
                    output: t,
                }
            }

            /// Checks every rule at this feature level; the first that fails is returned.
            pub fn validate(&self, feature_level: FeatureLevel) -> Result<(), Error> {
                self.operands(feature_level).map(|_| ())
            }

            /// Checks every rule at this feature level, as [`Self::validate`] does, and
            /// describes the three operands for layout analysis ([`crate::Plan::new`]).
            pub fn operands(&self, feature_level: FeatureLevel) -> Result<Operands, Error> {
                validate_dml(
                    $op.operator(),
                    $op.function(),
                    &[
                        (TensorName::A, &self.a),
                        (TensorName::B, &self.b),
                        (TensorName::Output, &self.output),
                    ],
                    feature_level,
                )
            }
        }

        impl From<$desc> for DmlBinaryDesc {
            fn from(d: $desc) -> DmlBinaryDesc {
                DmlBinaryDesc {
                    op: $op,
                    a: d.a,
                    b: d.b,
                    output: d.output,
                }
            }
        }
    };
}

dml_desc_impl!(BitXorDesc, DmlBinaryOp::BitXor);
dml_desc_impl!(LogicalXorDesc, DmlBinaryOp::LogicalXor);

/// A DirectML operator of two inputs: BIT_AND, BIT_OR, BIT_XOR, LOGICAL_AND, LOGICAL_OR or
/// LOGICAL_XOR, the operator a field. Every one has the same three tensors and the same rules
/// (A, B and Output of one DataType, DimensionCount and Sizes); they differ in their element
/// function and their type tables ([`min_feature_level`]).
///
/// ```
/// use gpu_xor_core::{DataType, DmlBinaryDesc, DmlBinaryOp, FeatureLevel};
///
/// let and = DmlBinaryDesc::packed(DmlBinaryOp::BitAnd, DataType::F32, &[2, 3]);
/// assert!(and.validate(FeatureLevel::Fl4_1).is_ok());
/// // LOGICAL_OR takes UINT8 and UINT32 only.
/// let or = DmlBinaryDesc::packed(DmlBinaryOp::LogicalOr, DataType::I32, &[2, 3]);
/// assert_eq!(or.validate(FeatureLevel::Fl4_1).unwrap_err().rule(), "unsupported_dtype");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DmlBinaryDesc {
    /// The operator.
    pub op: DmlBinaryOp,
    /// `ATensor`.
    pub a: TensorDesc,
    /// `BTensor`.
    pub b: TensorDesc,
    /// `OutputTensor`.
    pub output: TensorDesc,
}

impl DmlBinaryDesc {
    /// A description from three tensor descriptions.
    pub fn new(op: DmlBinaryOp, a: TensorDesc, b: TensorDesc, output: TensorDesc) -> Self {
        DmlBinaryDesc { op, a, b, output }
    }

    /// Three packed tensors of one type and one shape.
    pub fn packed(op: DmlBinaryOp, data_type: DataType, sizes: &[u32]) -> DmlBinaryDesc {
        let t = TensorDesc::new(data_type, sizes);
        DmlBinaryDesc::new(op, t.clone(), t.clone(), t)
    }

    /// Checks every rule at this feature level; the first that fails is returned.
    pub fn validate(&self, feature_level: FeatureLevel) -> Result<(), Error> {
        self.operands(feature_level).map(|_| ())
    }

    /// Checks every rule at this feature level, as [`Self::validate`] does, and describes the
    /// three operands for layout analysis ([`crate::Plan::new`]).
    pub fn operands(&self, feature_level: FeatureLevel) -> Result<Operands, Error> {
        validate_dml(
            self.op.operator(),
            self.op.function(),
            &[
                (TensorName::A, &self.a),
                (TensorName::B, &self.b),
                (TensorName::Output, &self.output),
            ],
            feature_level,
        )
    }
}

/// A DirectML operator of one input: BIT_NOT or LOGICAL_NOT (`InputTensor`, `OutputTensor`),
/// the operator a field. Input and Output have one DataType, DimensionCount and Sizes.
///
/// Errors name the input [`TensorName::A`] (it is read in A's place).
///
/// ```
/// use gpu_xor_core::{DataType, DmlUnaryDesc, DmlUnaryOp, FeatureLevel, TensorDesc};
///
/// let not = DmlUnaryDesc::packed(DmlUnaryOp::BitNot, DataType::U16, &[4, 4]);
/// assert!(not.validate(FeatureLevel::Fl3_0).is_ok());
/// // A padded output row: only its elements are written.
/// let mut padded = not.clone();
/// padded.output = padded.output.with_strides(&[8, 1]);
/// assert!(padded.validate(FeatureLevel::Fl3_0).is_ok());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DmlUnaryDesc {
    /// The operator.
    pub op: DmlUnaryOp,
    /// `InputTensor`.
    pub input: TensorDesc,
    /// `OutputTensor`.
    pub output: TensorDesc,
}

impl DmlUnaryDesc {
    /// A description from two tensor descriptions.
    pub fn new(op: DmlUnaryOp, input: TensorDesc, output: TensorDesc) -> DmlUnaryDesc {
        DmlUnaryDesc { op, input, output }
    }

    /// Two packed tensors of one type and one shape.
    pub fn packed(op: DmlUnaryOp, data_type: DataType, sizes: &[u32]) -> DmlUnaryDesc {
        let t = TensorDesc::new(data_type, sizes);
        DmlUnaryDesc::new(op, t.clone(), t)
    }

    /// The same description with the output's type set to `data_type` (`BIT_COUNT` writes
    /// `UINT8` or `UINT32` whatever its input's type).
    ///
    /// ```
    /// use gpu_xor_core::{DataType, DmlUnaryDesc, DmlUnaryOp, FeatureLevel};
    ///
    /// let count = DmlUnaryDesc::packed(DmlUnaryOp::BitCount, DataType::U64, &[4, 4])
    ///     .with_output_type(DataType::U8);
    /// assert!(count.validate(FeatureLevel::Fl4_1).is_ok());
    /// let wrong = count.clone().with_output_type(DataType::U16);
    /// assert_eq!(wrong.validate(FeatureLevel::Fl4_1).unwrap_err().rule(), "unsupported_dtype");
    /// ```
    pub fn with_output_type(mut self, data_type: DataType) -> DmlUnaryDesc {
        self.output.data_type = data_type;
        self
    }

    /// Checks every rule at this feature level; the first that fails is returned.
    pub fn validate(&self, feature_level: FeatureLevel) -> Result<(), Error> {
        self.operands(feature_level).map(|_| ())
    }

    /// Checks every rule at this feature level, as [`Self::validate`] does, and describes the
    /// operands for layout analysis ([`crate::Plan::new`]): B is the input again.
    pub fn operands(&self, feature_level: FeatureLevel) -> Result<Operands, Error> {
        validate_dml(
            self.op.operator(),
            self.op.function(),
            &[
                (TensorName::A, &self.input),
                (TensorName::Output, &self.output),
            ],
            feature_level,
        )
    }
}

/// The lowest feature level at which `operator` accepts `data_type`, or `None` if none does.
///
/// DirectML's `BIT_*` operators: `u8`, `u16`, `u32` from 3.0, the other DirectML types from
/// 4.1. Its `LOGICAL_*` operators: `u32` from 1.0, `u8` from 2.0, nothing else ever. Its
/// `BIT_SHIFT_*` operators: `u8`, `u16`, `u32` from 2.1, `u64` from 4.1, nothing else ever.
/// OpenVINO has no feature levels: the types an operation takes give [`FeatureLevel::Fl1_0`]
/// (`Bitwise*-13`: integers and boolean; `Bitwise*Shift-15`: integers; `Logical*-1`:
/// boolean).
pub fn min_feature_level(operator: Operator, data_type: DataType) -> Option<FeatureLevel> {
    operator.spec().types.min_feature_level(data_type)
}

/// The DimensionCounts `operator` accepts at `feature_level`, as `(min, max)`.
///
/// 1 to 8 (DML_TENSOR_DIMENSION_COUNT_MAX1), except the `LOGICAL_*` and `BIT_SHIFT_*`
/// operators below 3.0: exactly 4. OpenVINO's operations take any rank, 0 (a scalar) included.
pub fn rank_range(operator: Operator, feature_level: FeatureLevel) -> (usize, usize) {
    operator.spec().types.rank_range(feature_level)
}

/// The DirectML rules in the order they are checked, over the operator's tensors (A, B and
/// Output; Input and Output for a one-input operator, the input named A):
/// 1. A, B and Output have the same DataType; for an operator whose output has types of its
///    own (`BIT_COUNT`), the output has one of those instead.
/// 2. The operator takes that type at this feature level.
/// 3. Each DimensionCount is in range for this feature level.
/// 4. The three DimensionCounts are equal.
/// 5. The three Sizes are equal.
/// 6. Per tensor: no zero size, at most 2^32 - 1 elements, one stride per dimension, a valid
///    GuaranteedBaseOffsetAlignment, TotalTensorSizeInBytes at least DMLCalcBufferTensorSize,
///    and no OWNED_BY_DML flag.
/// 7. The output does not overlap itself.
fn validate_dml(
    operator: Operator,
    function: ElementFunction,
    named: &[(TensorName, &TensorDesc)],
    feature_level: FeatureLevel,
) -> Result<Operands, Error> {
    let a = named[0].1;
    let output = named[named.len() - 1].1;

    // Check 1.
    for (tensor, t) in &named[1..] {
        check_operand_type(operator, *tensor, t.data_type, a.data_type)?;
    }

    // Check 2.
    let data_type = a.data_type;
    let required = min_feature_level(operator, data_type);
    if required.is_none_or(|r| r > feature_level) {
        return Err(Error::UnsupportedDataType {
            operator,
            data_type,
            feature_level,
            required,
        });
    }

    // Check 3.
    let (min_rank, max_rank) = rank_range(operator, feature_level);
    for (tensor, t) in named {
        let rank = t.rank();
        if rank < min_rank || rank > max_rank {
            let required = (1..=MAX_DIMENSIONS)
                .contains(&rank)
                .then_some(FeatureLevel::Fl3_0)
                .filter(|&r| r > feature_level);
            return Err(Error::RankOutOfRange {
                operator,
                tensor: *tensor,
                rank,
                min: min_rank,
                max: max_rank,
                feature_level,
                required,
            });
        }
    }

    // Checks 4 and 5.
    for (tensor, t) in &named[1..] {
        if t.rank() != a.rank() {
            return Err(Error::RankMismatch {
                operator,
                tensor: *tensor,
                rank: t.rank(),
                expected: a.rank(),
            });
        }
    }
    for (tensor, t) in &named[1..] {
        if t.sizes != a.sizes {
            return Err(Error::SizesMismatch {
                operator,
                tensor: *tensor,
                sizes: t.sizes.clone(),
                expected: a.sizes.clone(),
            });
        }
    }

    // Check 6. A one-input operator reads its input in B's place too: its B is its A.
    let spec_a = check_tensor(named[0].0, a)?;
    let spec_b = match named {
        [_, (tensor, b), _] => check_tensor(*tensor, b)?,
        _ => spec_a.clone(),
    };
    let spec_out = check_tensor(TensorName::Output, output)?;

    // Check 7. After check 6 every packed stride is below 2^32 (at most 2^32 - 1 elements).
    let out_strides = output.effective_strides();
    let sizes: Vec<u64> = a.sizes.iter().map(|&s| u64::from(s)).collect();
    let strides_u32 = || {
        out_strides
            .iter()
            .map(|&s| u32::try_from(s).unwrap_or(u32::MAX))
            .collect()
    };
    match self_overlaps(&sizes, &out_strides) {
        Some(false) => {}
        Some(true) => {
            return Err(Error::OutputOverlap {
                sizes: output.sizes.clone(),
                strides: strides_u32(),
            });
        }
        None => {
            return Err(Error::OutputOverlapUndecided {
                sizes: output.sizes.clone(),
                strides: strides_u32(),
                steps: SELF_OVERLAP_STEP_LIMIT,
            });
        }
    }

    Ok(Operands {
        operator,
        function,
        data_type,
        out_type: output.data_type,
        operands: [spec_a, spec_b, spec_out],
    })
}

/// Check 1 for one tensor of type `found` beside A's `expected`: the same type, or for an
/// operator whose output has types of its own (`BIT_COUNT`), the output one of those. The
/// reference checks its views by the same rule.
pub(crate) fn check_operand_type(
    operator: Operator,
    tensor: TensorName,
    found: DataType,
    expected: DataType,
) -> Result<(), Error> {
    match operator.spec().types.output_types() {
        Some(allowed) if tensor == TensorName::Output => {
            if allowed.contains(&found) {
                Ok(())
            } else {
                Err(Error::UnsupportedOutputDataType {
                    operator,
                    data_type: found,
                    allowed,
                })
            }
        }
        _ if found != expected => Err(Error::DataTypeMismatch {
            operator,
            tensor,
            found,
            expected,
        }),
        _ => Ok(()),
    }
}

/// Check 6 for one tensor; returns its operand: its sizes and strides, and what its binding
/// needs.
pub(crate) fn check_tensor(tensor: TensorName, t: &TensorDesc) -> Result<Operand, Error> {
    if t.sizes.contains(&0) {
        return Err(Error::ZeroSize {
            tensor,
            sizes: t.sizes.clone(),
        });
    }
    let elements = t.element_count();
    if elements > u128::from(u32::MAX) {
        return Err(Error::TooManyElements { tensor, elements });
    }
    let minimum = t.min_buffer_size_for(tensor)?;
    let width = t.data_type.size_in_bytes();
    let alignment = t.guaranteed_base_offset_alignment;
    if alignment != 0 && (!alignment.is_power_of_two() || alignment < width) {
        return Err(Error::InvalidAlignment {
            tensor,
            alignment,
            element_size: width,
        });
    }
    let total = t.total_tensor_size_in_bytes.unwrap_or(minimum);
    if total < minimum {
        return Err(Error::TotalSizeTooSmall {
            tensor,
            total,
            minimum,
        });
    }
    // Inputs may be owned (bound once, when the operator is made); the output may not.
    if t.flags == TensorFlags::OwnedByDml && tensor == TensorName::Output {
        return Err(Error::OwnedByDmlOnOutput);
    }
    Ok(Operand {
        sizes: t.sizes.iter().map(|&s| u64::from(s)).collect(),
        strides: t.effective_strides(),
        axis: 0,
        required_bytes: total,
        touched_bytes: minimum,
        offset_alignment: super::MINIMUM_BUFFER_TENSOR_ALIGNMENT.max(u64::from(alignment)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(dt: DataType, sizes: &[u32]) -> TensorDesc {
        TensorDesc::new(dt, sizes)
    }

    /// `BitXorDesc` and `LogicalXorDesc` are thin constructors of their group's description:
    /// the same operator, and the same verdict on every description, valid or not, at every
    /// feature level.
    #[test]
    fn the_xor_descriptions_describe_what_their_group_does() {
        let shapes: [(TensorDesc, TensorDesc, TensorDesc); 4] = [
            (
                t(DataType::U8, &[4, 5]),
                t(DataType::U8, &[4, 5]),
                t(DataType::U8, &[4, 5]),
            ),
            (
                t(DataType::F16, &[3]),
                t(DataType::F16, &[3]),
                t(DataType::F16, &[3]),
            ),
            (
                t(DataType::U32, &[2, 3]),
                t(DataType::I32, &[2, 3]),
                t(DataType::U32, &[2, 3]),
            ),
            (
                t(DataType::U32, &[2]),
                t(DataType::U32, &[3]),
                t(DataType::U32, &[2]),
            ),
        ];
        for (a, b, out) in shapes {
            let xor = BitXorDesc::new(a.clone(), b.clone(), out.clone());
            let logical = LogicalXorDesc::new(a.clone(), b.clone(), out.clone());
            let group = |op| DmlBinaryDesc::new(op, a.clone(), b.clone(), out.clone());
            assert_eq!(DmlBinaryDesc::from(xor.clone()), group(DmlBinaryOp::BitXor));
            assert_eq!(
                DmlBinaryDesc::from(logical.clone()),
                group(DmlBinaryOp::LogicalXor)
            );
            for level in FeatureLevel::ALL {
                let rule = |r: Result<(), Error>| r.map_err(|e| e.rule());
                assert_eq!(
                    rule(xor.validate(level)),
                    rule(group(DmlBinaryOp::BitXor).validate(level))
                );
                assert_eq!(
                    rule(logical.validate(level)),
                    rule(group(DmlBinaryOp::LogicalXor).validate(level))
                );
            }
        }
    }

    #[test]
    fn feature_level_tables_match_directml() {
        use DataType::*;
        for dt in DataType::ALL {
            let bx = min_feature_level(Operator::BitXor, dt);
            let lx = min_feature_level(Operator::LogicalXor, dt);
            match dt {
                U8 | U16 | U32 => assert_eq!(bx, Some(FeatureLevel::Fl3_0)),
                Bool => assert_eq!(bx, None),
                _ => assert_eq!(bx, Some(FeatureLevel::Fl4_1)),
            }
            match dt {
                U32 => assert_eq!(lx, Some(FeatureLevel::Fl1_0)),
                U8 => assert_eq!(lx, Some(FeatureLevel::Fl2_0)),
                _ => assert_eq!(lx, None),
            }
        }
    }

    #[test]
    fn dtype_mismatch_is_checked_before_support() {
        let d = BitXorDesc::new(
            t(DataType::U32, &[4]),
            t(DataType::I32, &[4]),
            t(DataType::U32, &[4]),
        );
        assert_eq!(
            d.validate(FeatureLevel::Fl4_1),
            Err(Error::DataTypeMismatch {
                operator: Operator::BitXor,
                tensor: TensorName::B,
                found: DataType::I32,
                expected: DataType::U32
            })
        );
    }

    #[test]
    fn logical_xor_rank_rule_names_the_level_that_allows_it() {
        let d = LogicalXorDesc::packed(DataType::U8, &[2, 3, 4]);
        let e = d.validate(FeatureLevel::Fl2_0).unwrap_err();
        assert_eq!(
            e,
            Error::RankOutOfRange {
                operator: Operator::LogicalXor,
                tensor: TensorName::A,
                rank: 3,
                min: 4,
                max: 4,
                feature_level: FeatureLevel::Fl2_0,
                required: Some(FeatureLevel::Fl3_0)
            }
        );
        assert!(d.validate(FeatureLevel::Fl3_0).is_ok());
    }

    #[test]
    fn output_with_zero_stride_overlaps_itself() {
        let mut d = BitXorDesc::packed(DataType::U8, &[2, 3]);
        d.output = d.output.with_strides(&[0, 1]);
        assert_eq!(
            d.validate(FeatureLevel::Fl4_1).unwrap_err().rule(),
            "output_overlap"
        );
        // Zero stride on a size-1 dimension is harmless.
        let mut d = BitXorDesc::packed(DataType::U8, &[1, 3]);
        d.output = d.output.with_strides(&[0, 1]);
        assert!(d.validate(FeatureLevel::Fl4_1).is_ok());
    }

    #[test]
    fn element_counts_past_128_bits_are_too_many_not_wrapped() {
        // 2^128 elements wrapped to 0 and reached the self-overlap check.
        let e = BitXorDesc::packed(DataType::U8, &[65536; 8])
            .validate(FeatureLevel::default())
            .unwrap_err();
        assert_eq!(
            e,
            Error::TooManyElements {
                tensor: TensorName::A,
                elements: u128::MAX
            }
        );
        let t = TensorDesc::new(DataType::U64, &[u32::MAX; 8]).with_strides(&[u32::MAX; 8]);
        let d = BitXorDesc::new(t.clone(), t.clone(), t);
        assert_eq!(
            d.validate(FeatureLevel::default()).unwrap_err().rule(),
            "too_many_elements"
        );
        let d = LogicalXorDesc::packed(DataType::U32, &[65536, 65536, 65536, 65536]);
        assert_eq!(
            d.validate(FeatureLevel::Fl1_0).unwrap_err().rule(),
            "too_many_elements"
        );
    }

    #[test]
    fn spans_past_64_bits_are_size_overflow() {
        let t = TensorDesc::new(DataType::U64, &[u32::MAX]).with_strides(&[u32::MAX]);
        let d = BitXorDesc::new(t.clone(), t.clone(), t);
        assert_eq!(
            d.validate(FeatureLevel::default()).unwrap_err(),
            Error::SizeOverflow {
                what: "DMLCalcBufferTensorSize",
                value: ((u128::from(u32::MAX) - 1) * u128::from(u32::MAX) + 1) * 8
            }
        );
    }

    #[test]
    fn interleaved_output_beyond_four_million_elements_is_accepted() {
        // Offsets {0,2,3,4,5,7} + 6·j: no two indices meet, though 2 and 3 interleave.
        let mut d = BitXorDesc::packed(DataType::U8, &[3, 2, 1 << 21]);
        d.output = d.output.with_strides(&[2, 3, 6]);
        assert_eq!(d.validate(FeatureLevel::default()), Ok(()));
        d.output = d.output.with_strides(&[2, 3, 5]);
        assert_eq!(
            d.validate(FeatureLevel::default()).unwrap_err().rule(),
            "output_overlap"
        );
    }

    #[test]
    fn output_overlap_left_undecided_by_the_search_is_a_typed_error() {
        // Eight dimensions of 15 (2.6e9 elements) with unrelated 32-bit strides: no reduction
        // applies and the search stops at its step limit.
        let strides = [
            1568077936, 3031016130, 1854190884, 3488247531, 1026796918, 3258132284, 3599911344,
            2728997477,
        ];
        let mut d = BitXorDesc::packed(DataType::U8, &[15; 8]);
        d.output = d.output.with_strides(&strides);
        assert_eq!(
            d.validate(FeatureLevel::default()),
            Err(Error::OutputOverlapUndecided {
                sizes: vec![15; 8],
                strides: strides.to_vec(),
                steps: SELF_OVERLAP_STEP_LIMIT
            })
        );
    }

    #[test]
    fn owned_by_dml_is_for_inputs_only() {
        let mut d = BitXorDesc::packed(DataType::U8, &[4]);
        d.output.flags = TensorFlags::OwnedByDml;
        assert_eq!(
            d.validate(FeatureLevel::Fl4_1),
            Err(Error::OwnedByDmlOnOutput)
        );
        let mut d = BitXorDesc::packed(DataType::U8, &[4]);
        d.a.flags = TensorFlags::OwnedByDml;
        d.b.flags = TensorFlags::OwnedByDml;
        assert_eq!(d.validate(FeatureLevel::Fl4_1), Ok(()));
    }
}
