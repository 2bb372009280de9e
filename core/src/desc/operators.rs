//! The operator table: every operator of the library declared once, in one place.
//!
//! A row gives the operator's typed name in its group (the description it takes), its name in
//! the library ([`Operator`]), its name in its standard, its element function, its type table,
//! its name in the conformance format, the names of its one-call forms and the ONNX operators
//! that map onto it. Everything operator-specific derives from the rows: the [`Operator`]
//! enum and its properties, the four groups ([`DmlBinaryOp`], [`DmlUnaryOp`], [`OvBinaryOp`],
//! [`OvUnaryOp`]), validation's type and rank tables, the conformance runner's dispatch, and
//! (through [`for_each_operator!`](crate::for_each_operator)) the one-call forms of `gpu-xor`.
//!
//! Adding an operator of this kind (a function of the same bits of its inputs) is one row here,
//! and one arm of the kernels' element function (`shaders/shared/common.wgsl`, with the
//! [`BitFunction`] it names) where the function is new.

use std::fmt;

use crate::desc::{BitFunction, DataType, ElementFunction, FeatureLevel, MAX_DIMENSIONS};

/// The standard an operator comes from: what its description looks like and which rules it
/// keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Standard {
    /// A DirectML operator: described tensors with strides, a feature level, no broadcasting.
    DirectMl,
    /// An OpenVINO operation: dense shapes with `auto_broadcast`, any rank.
    OpenVino,
}

/// When an operator computes on truth values (`x != 0`, written as 0 or 1) rather than on raw
/// bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Truth {
    /// Never: the function of the raw bits, whatever the type.
    Never,
    /// Always (DirectML's `LOGICAL_*`, OpenVINO's `Logical*`).
    Always,
    /// On `boolean` only (OpenVINO's `Bitwise*` on `boolean` are logical; on integers bitwise).
    OnBool,
}

/// Which types an operator takes, and from which feature level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TypeTable {
    /// DirectML's `BIT_*`: `UINT8`, `UINT16`, `UINT32` from feature level 3.0, the other
    /// DirectML types from 4.1; DimensionCount 1 to 8.
    DmlBit,
    /// DirectML's `LOGICAL_*`: `UINT32` from 1.0, `UINT8` from 2.0, nothing else ever;
    /// DimensionCount exactly 4 below 3.0, then 1 to 8.
    DmlLogical,
    /// OpenVINO's `Bitwise*-13`: every integer type and `boolean`; any rank.
    OvIntegerOrBool,
    /// OpenVINO's `Logical*-1`: `boolean` only; any rank.
    OvBool,
    /// DirectML's `BIT_SHIFT_*`: `UINT8`, `UINT16`, `UINT32` from feature level 2.1 (exactly
    /// 4-D below 3.0), `UINT64` from 4.1, no other type; then DimensionCount 1 to 8.
    DmlShift,
    /// OpenVINO's `Bitwise*Shift-15`: every integer type, not `boolean`; any rank.
    OvInteger,
    /// DirectML's `BIT_COUNT`: the input `UINT8`, `UINT16`, `UINT32` from feature level 3.0,
    /// the other DirectML types from 4.1; the output `UINT8` or `UINT32`
    /// ([`TypeTable::output_types`]); DimensionCount 1 to 8.
    DmlBitCount,
}

impl TypeTable {
    /// The lowest feature level at which the table takes `data_type`, or `None` when no level
    /// does. OpenVINO has no feature levels: a type it takes gives [`FeatureLevel::Fl1_0`].
    pub fn min_feature_level(self, data_type: DataType) -> Option<FeatureLevel> {
        use DataType::*;
        match self {
            TypeTable::DmlBit | TypeTable::DmlBitCount => match data_type {
                U8 | U16 | U32 => Some(FeatureLevel::Fl3_0),
                Bool => None,
                _ => Some(FeatureLevel::Fl4_1),
            },
            TypeTable::DmlLogical => match data_type {
                U32 => Some(FeatureLevel::Fl1_0),
                U8 => Some(FeatureLevel::Fl2_0),
                _ => None,
            },
            TypeTable::OvIntegerOrBool => (!data_type.is_float()).then_some(FeatureLevel::Fl1_0),
            TypeTable::OvBool => (data_type == Bool).then_some(FeatureLevel::Fl1_0),
            TypeTable::DmlShift => match data_type {
                U8 | U16 | U32 => Some(FeatureLevel::Fl2_1),
                U64 => Some(FeatureLevel::Fl4_1),
                _ => None,
            },
            TypeTable::OvInteger => {
                (!data_type.is_float() && data_type != Bool).then_some(FeatureLevel::Fl1_0)
            }
        }
    }

    /// The DimensionCounts the table allows at `feature_level`, as `(min, max)`.
    pub fn rank_range(self, feature_level: FeatureLevel) -> (usize, usize) {
        match self {
            TypeTable::DmlLogical | TypeTable::DmlShift if feature_level < FeatureLevel::Fl3_0 => {
                (4, 4)
            }
            TypeTable::DmlBit
            | TypeTable::DmlLogical
            | TypeTable::DmlShift
            | TypeTable::DmlBitCount => (1, MAX_DIMENSIONS),
            TypeTable::OvIntegerOrBool | TypeTable::OvBool | TypeTable::OvInteger => {
                (0, usize::MAX)
            }
        }
    }

    /// The types the output may have, where they are not the input's: `UINT8` and `UINT32`
    /// for `BIT_COUNT`; `None` for every other table (the output has the inputs' type).
    pub const fn output_types(self) -> Option<&'static [DataType]> {
        match self {
            TypeTable::DmlBitCount => Some(&[DataType::U8, DataType::U32]),
            _ => None,
        }
    }

    /// Whether an operator of the table may run in place (its output bound on an input's
    /// range): every one but `BIT_COUNT`, whose DirectML page lists no in-place execution.
    pub const fn in_place(self) -> bool {
        !matches!(self, TypeTable::DmlBitCount)
    }
}

/// One row of the table, as data: what [`Operator::spec`] returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperatorSpec {
    /// The operator.
    pub operator: Operator,
    /// Its standard.
    pub standard: Standard,
    /// Its name in its standard (`ELEMENT_WISE_BIT_AND`, `BitwiseAnd-13`).
    pub name: &'static str,
    /// The word-wide function; its inputs are the operator's.
    pub function: BitFunction,
    /// When it works on truth values.
    pub truth: Truth,
    /// The types it takes.
    pub types: TypeTable,
    /// Its `op` in the conformance format (`bit_and`, `bitwise_and_broadcast`).
    pub conformance: &'static str,
    /// The name of its one-call form on `gpu-xor`'s `Context` (`bit_and`; `bit_and_into`
    /// writes into a given tensor).
    pub call: &'static str,
    /// The ONNX operators (with their opset) that a runtime runs as this operator.
    pub onnx: &'static [&'static str],
}

/// The operator table, handed to `$callback` as rows grouped by the description each group
/// takes. Each row reads
/// `Group::Variant as Operator { standard, name, function, truth, types, conformance, call,
/// call_into, onnx }`, with the row's documentation first.
///
/// The crate builds [`Operator`] and the four groups from it; `gpu-xor` builds its one-call
/// forms from it, so that no operator is listed anywhere else.
#[macro_export]
macro_rules! for_each_operator {
    ($callback:ident) => {
        $callback! {
            DmlBinaryOp: "A DirectML operator of two inputs: `DML_OPERATOR_ELEMENT_WISE_{BIT,LOGICAL}_{AND,OR,XOR}`, `BIT_SHIFT_{LEFT,RIGHT}`." {
                /// `DML_OPERATOR_ELEMENT_WISE_BIT_AND`.
                BitAnd as BitAnd {
                    DirectMl, "ELEMENT_WISE_BIT_AND", And, Never, DmlBit,
                    "bit_and", bit_and, bit_and_into, []
                }
                /// `DML_OPERATOR_ELEMENT_WISE_BIT_OR`.
                BitOr as BitOr {
                    DirectMl, "ELEMENT_WISE_BIT_OR", Or, Never, DmlBit,
                    "bit_or", bit_or, bit_or_into, []
                }
                /// `DML_OPERATOR_ELEMENT_WISE_BIT_XOR`.
                BitXor as BitXor {
                    DirectMl, "ELEMENT_WISE_BIT_XOR", Xor, Never, DmlBit,
                    "bit_xor", bit_xor, bit_xor_into, []
                }
                /// `DML_OPERATOR_ELEMENT_WISE_LOGICAL_AND`.
                LogicalAnd as LogicalAnd {
                    DirectMl, "ELEMENT_WISE_LOGICAL_AND", And, Always, DmlLogical,
                    "logical_and", logical_and, logical_and_into, []
                }
                /// `DML_OPERATOR_ELEMENT_WISE_LOGICAL_OR`.
                LogicalOr as LogicalOr {
                    DirectMl, "ELEMENT_WISE_LOGICAL_OR", Or, Always, DmlLogical,
                    "logical_or", logical_or, logical_or_into, []
                }
                /// `DML_OPERATOR_ELEMENT_WISE_LOGICAL_XOR`.
                LogicalXor as LogicalXor {
                    DirectMl, "ELEMENT_WISE_LOGICAL_XOR", Xor, Always, DmlLogical,
                    "logical_xor", logical_xor, logical_xor_into, []
                }
                /// `DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_LEFT`: `A << B`, unsigned.
                BitShiftLeft as BitShiftLeft {
                    DirectMl, "ELEMENT_WISE_BIT_SHIFT_LEFT", ShiftLeft, Never, DmlShift,
                    "bit_shift_left", bit_shift_left, bit_shift_left_into, []
                }
                /// `DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_RIGHT`: `A >> B`, logical (unsigned).
                BitShiftRight as BitShiftRight {
                    DirectMl, "ELEMENT_WISE_BIT_SHIFT_RIGHT", ShiftRight, Never, DmlShift,
                    "bit_shift_right", bit_shift_right, bit_shift_right_into, []
                }
            }
            DmlUnaryOp: "A DirectML operator of one input: `DML_OPERATOR_ELEMENT_WISE_{BIT,LOGICAL}_NOT`, `BIT_COUNT`." {
                /// `DML_OPERATOR_ELEMENT_WISE_BIT_NOT`.
                BitNot as BitNot {
                    DirectMl, "ELEMENT_WISE_BIT_NOT", Not, Never, DmlBit,
                    "bit_not", bit_not, bit_not_into, []
                }
                /// `DML_OPERATOR_ELEMENT_WISE_LOGICAL_NOT`.
                LogicalNot as LogicalNot {
                    DirectMl, "ELEMENT_WISE_LOGICAL_NOT", Not, Always, DmlLogical,
                    "logical_not", logical_not, logical_not_into, []
                }
                /// `DML_OPERATOR_ELEMENT_WISE_BIT_COUNT`: the bits set in each element, into
                /// a `UINT8` or `UINT32` output.
                BitCount as BitCount {
                    DirectMl, "ELEMENT_WISE_BIT_COUNT", CountOnes, Never, DmlBitCount,
                    "bit_count", bit_count, bit_count_into, []
                }
            }
            OvBinaryOp: "An OpenVINO operation of two inputs with `auto_broadcast`." {
                /// `BitwiseAnd-13`: integer or boolean.
                BitwiseAnd as BitwiseAnd {
                    OpenVino, "BitwiseAnd-13", And, OnBool, OvIntegerOrBool,
                    "bitwise_and_broadcast", bitwise_and, bitwise_and_into, ["BitwiseAnd-18"]
                }
                /// `BitwiseOr-13`: integer or boolean.
                BitwiseOr as BitwiseOr {
                    OpenVino, "BitwiseOr-13", Or, OnBool, OvIntegerOrBool,
                    "bitwise_or_broadcast", bitwise_or, bitwise_or_into, ["BitwiseOr-18"]
                }
                /// `BitwiseXor-13`: integer or boolean.
                BitwiseXor as BitwiseXor {
                    OpenVino, "BitwiseXor-13", Xor, OnBool, OvIntegerOrBool,
                    "bitwise_xor_broadcast", bitwise_xor, bitwise_xor_into, ["BitwiseXor-18"]
                }
                /// `LogicalAnd-1`: boolean.
                LogicalAnd as OvLogicalAnd {
                    OpenVino, "LogicalAnd-1", And, Always, OvBool,
                    "logical_and_broadcast", ov_logical_and, ov_logical_and_into, ["And-7"]
                }
                /// `LogicalOr-1`: boolean.
                LogicalOr as OvLogicalOr {
                    OpenVino, "LogicalOr-1", Or, Always, OvBool,
                    "logical_or_broadcast", ov_logical_or, ov_logical_or_into, ["Or-7"]
                }
                /// `LogicalXor-1`: boolean.
                LogicalXor as OvLogicalXor {
                    OpenVino, "LogicalXor-1", Xor, Always, OvBool,
                    "logical_xor_broadcast", ov_logical_xor, ov_logical_xor_into, ["Xor-7"]
                }
                /// `BitwiseLeftShift-15`: integers; a left shift wraps in two's complement.
                BitwiseLeftShift as BitwiseLeftShift {
                    OpenVino, "BitwiseLeftShift-15", ShiftLeft, Never, OvInteger,
                    "bitwise_left_shift_broadcast", bitwise_left_shift, bitwise_left_shift_into,
                    ["BitShift-11 LEFT", "BitShift-28 LEFT"]
                }
                /// `BitwiseRightShift-15`: integers; arithmetic on signed types, logical on
                /// unsigned ones.
                BitwiseRightShift as BitwiseRightShift {
                    OpenVino, "BitwiseRightShift-15", ShiftRight, Never, OvInteger,
                    "bitwise_right_shift_broadcast", bitwise_right_shift, bitwise_right_shift_into,
                    ["BitShift-11 RIGHT", "BitShift-28 RIGHT"]
                }
            }
            OvUnaryOp: "An OpenVINO operation of one input." {
                /// `BitwiseNot-13`: integer or boolean (on boolean, logical not).
                BitwiseNot as BitwiseNot {
                    OpenVino, "BitwiseNot-13", Not, OnBool, OvIntegerOrBool,
                    "bitwise_not", bitwise_not, bitwise_not_into, ["BitwiseNot-18"]
                }
                /// `LogicalNot-1`: boolean.
                LogicalNot as OvLogicalNot {
                    OpenVino, "LogicalNot-1", Not, Always, OvBool,
                    "logical_not_bool", ov_logical_not, ov_logical_not_into, ["Not-1"]
                }
            }
        }
    };
}

/// Builds [`Operator`], its table lookups and the four groups from the rows of
/// [`for_each_operator!`](crate::for_each_operator).
#[doc(hidden)]
#[macro_export]
macro_rules! declare_operators {
    ($(
        $group:ident: $group_doc:literal {
            $(
                $(#[$doc:meta])*
                $variant:ident as $operator:ident {
                    $standard:ident, $name:literal, $function:ident, $truth:ident, $types:ident,
                    $conformance:literal, $call:ident, $call_into:ident, [$($onnx:literal),*]
                }
            )*
        }
    )*) => {
        /// Which operator a description belongs to: one per row of the operator table
        /// (`core/src/desc/operators.rs`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Operator {
            $($( $(#[$doc])* $operator, )*)*
        }

        impl Operator {
            /// Every operator, in the table's order.
            pub const ALL: [Operator; [$($(stringify!($operator),)*)*].len()] =
                [$($(Operator::$operator,)*)*];

            /// The operator's row of the table.
            pub const fn spec(self) -> &'static OperatorSpec {
                match self {
                    $($(
                        Operator::$operator => &OperatorSpec {
                            operator: Operator::$operator,
                            standard: Standard::$standard,
                            name: $name,
                            function: BitFunction::$function,
                            truth: Truth::$truth,
                            types: TypeTable::$types,
                            conformance: $conformance,
                            call: stringify!($call),
                            onnx: &[$($onnx),*],
                        },
                    )*)*
                }
            }

            /// The operator in its group, which names the description it takes.
            pub const fn group(self) -> OperatorGroup {
                match self {
                    $($( Operator::$operator => OperatorGroup::$group($group::$variant), )*)*
                }
            }
        }

        /// An operator in its group: the group names the description the operator takes.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum OperatorGroup {
            $(
                #[doc = $group_doc]
                $group($group),
            )*
        }

        $(
            #[doc = $group_doc]
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
            #[non_exhaustive]
            pub enum $group {
                $( $(#[$doc])* $variant, )*
            }

            impl $group {
                /// Every operator of the group, in the table's order.
                pub const ALL: [$group; [$(stringify!($variant),)*].len()] = [$($group::$variant,)*];

                /// The operator, for its row of the table, errors and plans.
                pub const fn operator(self) -> Operator {
                    match self {
                        $( $group::$variant => Operator::$operator, )*
                    }
                }
            }
        )*
    };
}

crate::for_each_operator!(declare_operators);

impl Operator {
    /// Its standard.
    pub const fn standard(self) -> Standard {
        self.spec().standard
    }

    /// How many inputs it takes: 1 for the NOT operators and `BIT_COUNT`, else 2.
    pub const fn inputs(self) -> usize {
        self.spec().function.inputs()
    }

    /// Whether it is a DirectML operator (explicit strides, feature levels, no broadcast
    /// rule) rather than an OpenVINO operation.
    pub const fn is_directml(self) -> bool {
        matches!(self.spec().standard, Standard::DirectMl)
    }

    /// How many operators of the table come from `standard` (a constant, for arrays sized by
    /// the table).
    pub const fn count_of(standard: Standard) -> usize {
        let (mut i, mut n) = (0, 0);
        while i < Operator::ALL.len() {
            if matches!(
                (Operator::ALL[i].standard(), standard),
                (Standard::DirectMl, Standard::DirectMl) | (Standard::OpenVino, Standard::OpenVino)
            ) {
                n += 1;
            }
            i += 1;
        }
        n
    }

    /// Its `op` in the conformance format.
    pub const fn conformance_name(self) -> &'static str {
        self.spec().conformance
    }

    /// The operator whose `op` in the conformance format is `name`.
    pub fn from_conformance_name(name: &str) -> Option<Operator> {
        Operator::ALL
            .iter()
            .copied()
            .find(|op| op.conformance_name() == name)
    }

    /// What the kernels compute per element on `data_type`: the row's function, whose right
    /// shift is arithmetic on signed types.
    pub const fn function(self, data_type: DataType) -> ElementFunction {
        let spec = self.spec();
        ElementFunction {
            function: match spec.function {
                BitFunction::ShiftRight if data_type.is_signed_integer() => {
                    BitFunction::ShiftRightArithmetic
                }
                function => function,
            },
            logical: match spec.truth {
                Truth::Never => false,
                Truth::Always => true,
                Truth::OnBool => matches!(data_type, DataType::Bool),
            },
        }
    }

    /// Whether it takes `boolean` only (OpenVINO's `Logical*-1`).
    pub fn boolean_only(self) -> bool {
        self.spec().types == TypeTable::OvBool
    }
}

impl fmt::Display for Operator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.spec().name)
    }
}

impl DmlBinaryOp {
    /// The element function (DirectML's operators compute the same whatever the type).
    pub const fn function(self) -> ElementFunction {
        self.operator().function(DataType::U32)
    }
}

impl DmlUnaryOp {
    /// The element function (DirectML's operators compute the same whatever the type).
    pub const fn function(self) -> ElementFunction {
        self.operator().function(DataType::U32)
    }
}

impl OvBinaryOp {
    /// The element function on `data_type`: logical on `boolean` for the `Bitwise*`
    /// operations, always for the `Logical*` ones.
    pub const fn function(self, data_type: DataType) -> ElementFunction {
        self.operator().function(data_type)
    }

    /// Whether it takes `boolean` only (the `Logical*-1` operations).
    pub fn boolean_only(self) -> bool {
        self.operator().boolean_only()
    }
}

impl OvUnaryOp {
    /// The element function on `data_type`: logical not on `boolean`, bitwise on integers.
    pub const fn function(self, data_type: DataType) -> ElementFunction {
        self.operator().function(data_type)
    }

    /// Whether it takes `boolean` only (`LogicalNot-1`).
    pub fn boolean_only(self) -> bool {
        self.operator().boolean_only()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operator_has_one_row_and_unique_names() {
        let mut names = std::collections::HashSet::new();
        let mut conformance = std::collections::HashSet::new();
        let mut calls = std::collections::HashSet::new();
        for op in Operator::ALL {
            assert_eq!(op.spec().operator, op);
            assert!(names.insert(op.spec().name), "{op:?}");
            assert!(conformance.insert(op.conformance_name()), "{op:?}");
            assert!(calls.insert(op.spec().call), "{op:?}");
            assert_eq!(
                Operator::from_conformance_name(op.conformance_name()),
                Some(op)
            );
            let grouped = match op.group() {
                OperatorGroup::DmlBinaryOp(g) => g.operator(),
                OperatorGroup::DmlUnaryOp(g) => g.operator(),
                OperatorGroup::OvBinaryOp(g) => g.operator(),
                OperatorGroup::OvUnaryOp(g) => g.operator(),
            };
            assert_eq!(grouped, op);
        }
        let groups = DmlBinaryOp::ALL.len()
            + DmlUnaryOp::ALL.len()
            + OvBinaryOp::ALL.len()
            + OvUnaryOp::ALL.len();
        assert_eq!(groups, Operator::ALL.len());
        assert_eq!(
            Operator::count_of(Standard::DirectMl),
            DmlBinaryOp::ALL.len() + DmlUnaryOp::ALL.len()
        );
        assert_eq!(
            Operator::count_of(Standard::OpenVino),
            OvBinaryOp::ALL.len() + OvUnaryOp::ALL.len()
        );
    }

    #[test]
    fn a_group_is_its_standard_and_arity() {
        for op in Operator::ALL {
            let (directml, inputs) = match op.group() {
                OperatorGroup::DmlBinaryOp(_) => (true, 2),
                OperatorGroup::DmlUnaryOp(_) => (true, 1),
                OperatorGroup::OvBinaryOp(_) => (false, 2),
                OperatorGroup::OvUnaryOp(_) => (false, 1),
            };
            assert_eq!(
                (op.is_directml(), op.inputs()),
                (directml, inputs),
                "{op:?}"
            );
            let dml_table = matches!(
                op.spec().types,
                TypeTable::DmlBit
                    | TypeTable::DmlLogical
                    | TypeTable::DmlShift
                    | TypeTable::DmlBitCount
            );
            assert_eq!(dml_table, directml, "{op:?}");
        }
    }

    #[test]
    fn logical_operators_compute_on_truth_values() {
        for op in Operator::ALL {
            for dt in DataType::ALL {
                let logical = op.function(dt).logical;
                let name = op.spec().name;
                let expected = name.contains("LOGICAL")
                    || name.starts_with("Logical")
                    || (name.starts_with("Bitwise")
                        && !name.contains("Shift")
                        && dt == DataType::Bool);
                assert_eq!(logical, expected, "{op:?} on {dt:?}");
            }
        }
    }
}
