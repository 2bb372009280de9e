//! The names that descriptions, plans and errors share: which operator, which tensor.

use std::fmt;

/// Which operator a description belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Operator {
    /// `DML_OPERATOR_ELEMENT_WISE_BIT_XOR`.
    BitXor,
    /// `DML_OPERATOR_ELEMENT_WISE_LOGICAL_XOR`.
    LogicalXor,
    /// OpenVINO `BitwiseXor-13`.
    BitwiseXor,
}

impl fmt::Display for Operator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Operator::BitXor => "ELEMENT_WISE_BIT_XOR",
            Operator::LogicalXor => "ELEMENT_WISE_LOGICAL_XOR",
            Operator::BitwiseXor => "BitwiseXor-13",
        })
    }
}

/// One of an operator's three tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TensorName {
    /// The first input (`ATensor`, OpenVINO's `arg0`).
    A,
    /// The second input (`BTensor`, OpenVINO's `arg1`).
    B,
    /// The output (`OutputTensor`).
    Output,
}

impl TensorName {
    /// The three, in the order A, B, Output.
    pub const ALL: [TensorName; 3] = [TensorName::A, TensorName::B, TensorName::Output];
}

impl fmt::Display for TensorName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TensorName::A => "ATensor",
            TensorName::B => "BTensor",
            TensorName::Output => "OutputTensor",
        })
    }
}
