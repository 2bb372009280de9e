//! The element functions of the word-wide family, and which operator applies which.

use crate::desc::{DataType, Operator};

/// A word-wide function: every bit of the result is the function of the same bit of the
/// inputs, so one kernel runs it on bytes, halves, words, pairs of words and 16-byte blocks
/// alike. [`BitFunction::Not`] takes one input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BitFunction {
    /// `a ^ b`.
    Xor,
    /// `a & b`.
    And,
    /// `a | b`.
    Or,
    /// `!a`, of one input.
    Not,
}

impl BitFunction {
    /// Every function, in the order of the kernels' `FUNC` constant.
    pub const ALL: [BitFunction; 4] = [
        BitFunction::Xor,
        BitFunction::And,
        BitFunction::Or,
        BitFunction::Not,
    ];

    /// How many inputs it takes: 1 for [`BitFunction::Not`], else 2.
    pub fn inputs(self) -> usize {
        match self {
            BitFunction::Not => 1,
            _ => 2,
        }
    }

    /// The function on 64 bits (`b` is ignored by [`BitFunction::Not`]).
    pub fn apply(self, a: u64, b: u64) -> u64 {
        match self {
            BitFunction::Xor => a ^ b,
            BitFunction::And => a & b,
            BitFunction::Or => a | b,
            BitFunction::Not => !a,
        }
    }

    /// The value of the kernels' `FUNC` override (`shaders/shared/common.wgsl`).
    pub(crate) fn code(self) -> u32 {
        match self {
            BitFunction::Xor => 0,
            BitFunction::And => 1,
            BitFunction::Or => 2,
            BitFunction::Not => 3,
        }
    }
}

/// What the kernels compute per element: a [`BitFunction`], on the raw bits or on truth values.
///
/// Bitwise (`logical: false`) applies the function to the element's bits, whatever its type
/// (floats are never loaded as floats). Logical (`logical: true`) reads each element as
/// `x != 0` at its full width (`0x100` in a `u32` is true) and writes 0 or 1 in the element's
/// width: DirectML's `LOGICAL_*`, OpenVINO's `Logical*` and its `Bitwise*` on `boolean`.
///
/// ```
/// use gpu_xor_core::{BitFunction, ElementFunction};
///
/// let and = ElementFunction::bitwise(BitFunction::And);
/// assert_eq!(and.apply(0xf0f0, 0xff00, 2), 0xf000);
/// let not = ElementFunction::logical(BitFunction::Not);
/// assert_eq!((not.apply(0x100, 0, 4), not.apply(0, 0, 4)), (0, 1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ElementFunction {
    /// The function.
    pub function: BitFunction,
    /// On truth values (`x != 0`, written as 0 or 1) rather than raw bits.
    pub logical: bool,
}

impl ElementFunction {
    /// The function on raw bits.
    pub const fn bitwise(function: BitFunction) -> ElementFunction {
        ElementFunction {
            function,
            logical: false,
        }
    }

    /// The function on truth values.
    pub const fn logical(function: BitFunction) -> ElementFunction {
        ElementFunction {
            function,
            logical: true,
        }
    }

    /// How many inputs it takes.
    pub fn inputs(self) -> usize {
        self.function.inputs()
    }

    /// One element of `width` bytes (1, 2, 4 or 8), right-aligned in `a` and `b`; the result
    /// has nothing set above the element. Bits above the element in `a` and `b` are ignored.
    pub fn apply(self, a: u64, b: u64, width: u32) -> u64 {
        let mask = match width {
            8.. => u64::MAX,
            w => (1u64 << (w * 8)) - 1,
        };
        let (a, b) = (a & mask, b & mask);
        if self.logical {
            self.function.apply(u64::from(a != 0), u64::from(b != 0)) & 1
        } else {
            self.function.apply(a, b) & mask
        }
    }
}

/// A DirectML operator of two inputs: `DML_OPERATOR_ELEMENT_WISE_{BIT,LOGICAL}_{AND,OR,XOR}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DmlBinaryOp {
    /// `DML_OPERATOR_ELEMENT_WISE_BIT_AND`.
    BitAnd,
    /// `DML_OPERATOR_ELEMENT_WISE_BIT_OR`.
    BitOr,
    /// `DML_OPERATOR_ELEMENT_WISE_BIT_XOR`.
    BitXor,
    /// `DML_OPERATOR_ELEMENT_WISE_LOGICAL_AND`.
    LogicalAnd,
    /// `DML_OPERATOR_ELEMENT_WISE_LOGICAL_OR`.
    LogicalOr,
    /// `DML_OPERATOR_ELEMENT_WISE_LOGICAL_XOR`.
    LogicalXor,
}

/// A DirectML operator of one input: `DML_OPERATOR_ELEMENT_WISE_{BIT,LOGICAL}_NOT`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DmlUnaryOp {
    /// `DML_OPERATOR_ELEMENT_WISE_BIT_NOT`.
    BitNot,
    /// `DML_OPERATOR_ELEMENT_WISE_LOGICAL_NOT`.
    LogicalNot,
}

/// An OpenVINO operation of two inputs with `auto_broadcast`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OvBinaryOp {
    /// `BitwiseAnd-13`: integer or boolean.
    BitwiseAnd,
    /// `BitwiseOr-13`: integer or boolean.
    BitwiseOr,
    /// `BitwiseXor-13`: integer or boolean.
    BitwiseXor,
    /// `LogicalAnd-1`: boolean.
    LogicalAnd,
    /// `LogicalOr-1`: boolean.
    LogicalOr,
    /// `LogicalXor-1`: boolean.
    LogicalXor,
}

/// An OpenVINO operation of one input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OvUnaryOp {
    /// `BitwiseNot-13`: integer or boolean (on boolean, logical not).
    BitwiseNot,
    /// `LogicalNot-1`: boolean.
    LogicalNot,
}

impl DmlBinaryOp {
    /// All six.
    pub const ALL: [DmlBinaryOp; 6] = [
        DmlBinaryOp::BitAnd,
        DmlBinaryOp::BitOr,
        DmlBinaryOp::BitXor,
        DmlBinaryOp::LogicalAnd,
        DmlBinaryOp::LogicalOr,
        DmlBinaryOp::LogicalXor,
    ];

    /// The operator, for errors and plans.
    pub fn operator(self) -> Operator {
        match self {
            DmlBinaryOp::BitAnd => Operator::BitAnd,
            DmlBinaryOp::BitOr => Operator::BitOr,
            DmlBinaryOp::BitXor => Operator::BitXor,
            DmlBinaryOp::LogicalAnd => Operator::LogicalAnd,
            DmlBinaryOp::LogicalOr => Operator::LogicalOr,
            DmlBinaryOp::LogicalXor => Operator::LogicalXor,
        }
    }

    /// The element function.
    pub fn function(self) -> ElementFunction {
        use BitFunction::*;
        match self {
            DmlBinaryOp::BitAnd => ElementFunction::bitwise(And),
            DmlBinaryOp::BitOr => ElementFunction::bitwise(Or),
            DmlBinaryOp::BitXor => ElementFunction::bitwise(Xor),
            DmlBinaryOp::LogicalAnd => ElementFunction::logical(And),
            DmlBinaryOp::LogicalOr => ElementFunction::logical(Or),
            DmlBinaryOp::LogicalXor => ElementFunction::logical(Xor),
        }
    }
}

impl DmlUnaryOp {
    /// Both.
    pub const ALL: [DmlUnaryOp; 2] = [DmlUnaryOp::BitNot, DmlUnaryOp::LogicalNot];

    /// The operator, for errors and plans.
    pub fn operator(self) -> Operator {
        match self {
            DmlUnaryOp::BitNot => Operator::BitNot,
            DmlUnaryOp::LogicalNot => Operator::LogicalNot,
        }
    }

    /// The element function.
    pub fn function(self) -> ElementFunction {
        match self {
            DmlUnaryOp::BitNot => ElementFunction::bitwise(BitFunction::Not),
            DmlUnaryOp::LogicalNot => ElementFunction::logical(BitFunction::Not),
        }
    }
}

impl OvBinaryOp {
    /// All six.
    pub const ALL: [OvBinaryOp; 6] = [
        OvBinaryOp::BitwiseAnd,
        OvBinaryOp::BitwiseOr,
        OvBinaryOp::BitwiseXor,
        OvBinaryOp::LogicalAnd,
        OvBinaryOp::LogicalOr,
        OvBinaryOp::LogicalXor,
    ];

    /// The operator, for errors and plans.
    pub fn operator(self) -> Operator {
        match self {
            OvBinaryOp::BitwiseAnd => Operator::BitwiseAnd,
            OvBinaryOp::BitwiseOr => Operator::BitwiseOr,
            OvBinaryOp::BitwiseXor => Operator::BitwiseXor,
            OvBinaryOp::LogicalAnd => Operator::OvLogicalAnd,
            OvBinaryOp::LogicalOr => Operator::OvLogicalOr,
            OvBinaryOp::LogicalXor => Operator::OvLogicalXor,
        }
    }

    /// Whether it takes `boolean` only (the `Logical*-1` operations).
    pub fn boolean_only(self) -> bool {
        matches!(
            self,
            OvBinaryOp::LogicalAnd | OvBinaryOp::LogicalOr | OvBinaryOp::LogicalXor
        )
    }

    /// The element function on `data_type`: logical on `boolean`, bitwise on integers.
    pub fn function(self, data_type: DataType) -> ElementFunction {
        let function = match self {
            OvBinaryOp::BitwiseAnd | OvBinaryOp::LogicalAnd => BitFunction::And,
            OvBinaryOp::BitwiseOr | OvBinaryOp::LogicalOr => BitFunction::Or,
            OvBinaryOp::BitwiseXor | OvBinaryOp::LogicalXor => BitFunction::Xor,
        };
        ElementFunction {
            function,
            logical: data_type == DataType::Bool,
        }
    }
}

impl OvUnaryOp {
    /// Both.
    pub const ALL: [OvUnaryOp; 2] = [OvUnaryOp::BitwiseNot, OvUnaryOp::LogicalNot];

    /// The operator, for errors and plans.
    pub fn operator(self) -> Operator {
        match self {
            OvUnaryOp::BitwiseNot => Operator::BitwiseNot,
            OvUnaryOp::LogicalNot => Operator::OvLogicalNot,
        }
    }

    /// Whether it takes `boolean` only (`LogicalNot-1`).
    pub fn boolean_only(self) -> bool {
        self == OvUnaryOp::LogicalNot
    }

    /// The element function on `data_type`: logical not on `boolean`, bitwise on integers.
    pub fn function(self, data_type: DataType) -> ElementFunction {
        ElementFunction {
            function: BitFunction::Not,
            logical: data_type == DataType::Bool,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logical_functions_read_the_whole_element_and_write_zero_or_one() {
        for function in BitFunction::ALL {
            let f = ElementFunction::logical(function);
            for width in [1, 2, 4, 8] {
                let high = 1u64 << (width * 8 - 1);
                for (a, b) in [(0, 0), (high, 0), (0, high), (high, 1)] {
                    let (ta, tb) = (a != 0, b != 0);
                    let want = match function {
                        BitFunction::Xor => ta != tb,
                        BitFunction::And => ta && tb,
                        BitFunction::Or => ta || tb,
                        BitFunction::Not => !ta,
                    };
                    assert_eq!(f.apply(a, b, width), u64::from(want), "{f:?} {width}");
                }
            }
        }
    }

    #[test]
    fn bitwise_not_stays_inside_the_element() {
        let not = ElementFunction::bitwise(BitFunction::Not);
        assert_eq!(not.apply(0x0f, 0, 1), 0xf0);
        assert_eq!(not.apply(0xffff_0000, 0, 2), 0xffff);
        assert_eq!(not.apply(0, 0, 8), u64::MAX);
    }
}
