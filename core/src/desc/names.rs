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
    /// `DML_OPERATOR_ELEMENT_WISE_BIT_AND`.
    BitAnd,
    /// `DML_OPERATOR_ELEMENT_WISE_BIT_OR`.
    BitOr,
    /// `DML_OPERATOR_ELEMENT_WISE_BIT_NOT`.
    BitNot,
    /// `DML_OPERATOR_ELEMENT_WISE_LOGICAL_AND`.
    LogicalAnd,
    /// `DML_OPERATOR_ELEMENT_WISE_LOGICAL_OR`.
    LogicalOr,
    /// `DML_OPERATOR_ELEMENT_WISE_LOGICAL_NOT`.
    LogicalNot,
    /// OpenVINO `BitwiseAnd-13`.
    BitwiseAnd,
    /// OpenVINO `BitwiseOr-13`.
    BitwiseOr,
    /// OpenVINO `BitwiseNot-13`.
    BitwiseNot,
    /// OpenVINO `LogicalAnd-1`.
    OvLogicalAnd,
    /// OpenVINO `LogicalOr-1`.
    OvLogicalOr,
    /// OpenVINO `LogicalXor-1`.
    OvLogicalXor,
    /// OpenVINO `LogicalNot-1`.
    OvLogicalNot,
}

impl Operator {
    /// Every operator.
    pub const ALL: [Operator; 16] = [
        Operator::BitXor,
        Operator::LogicalXor,
        Operator::BitwiseXor,
        Operator::BitAnd,
        Operator::BitOr,
        Operator::BitNot,
        Operator::LogicalAnd,
        Operator::LogicalOr,
        Operator::LogicalNot,
        Operator::BitwiseAnd,
        Operator::BitwiseOr,
        Operator::BitwiseNot,
        Operator::OvLogicalAnd,
        Operator::OvLogicalOr,
        Operator::OvLogicalXor,
        Operator::OvLogicalNot,
    ];

    /// How many inputs it takes: 1 for the NOT operators, else 2.
    pub fn inputs(self) -> usize {
        match self {
            Operator::BitNot
            | Operator::LogicalNot
            | Operator::BitwiseNot
            | Operator::OvLogicalNot => 1,
            _ => 2,
        }
    }

    /// Whether it is a DirectML operator (explicit strides, feature levels, no broadcast
    /// rule) rather than an OpenVINO operation.
    pub fn is_directml(self) -> bool {
        matches!(
            self,
            Operator::BitXor
                | Operator::LogicalXor
                | Operator::BitAnd
                | Operator::BitOr
                | Operator::BitNot
                | Operator::LogicalAnd
                | Operator::LogicalOr
                | Operator::LogicalNot
        )
    }
}

impl fmt::Display for Operator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Operator::BitXor => "ELEMENT_WISE_BIT_XOR",
            Operator::LogicalXor => "ELEMENT_WISE_LOGICAL_XOR",
            Operator::BitwiseXor => "BitwiseXor-13",
            Operator::BitAnd => "ELEMENT_WISE_BIT_AND",
            Operator::BitOr => "ELEMENT_WISE_BIT_OR",
            Operator::BitNot => "ELEMENT_WISE_BIT_NOT",
            Operator::LogicalAnd => "ELEMENT_WISE_LOGICAL_AND",
            Operator::LogicalOr => "ELEMENT_WISE_LOGICAL_OR",
            Operator::LogicalNot => "ELEMENT_WISE_LOGICAL_NOT",
            Operator::BitwiseAnd => "BitwiseAnd-13",
            Operator::BitwiseOr => "BitwiseOr-13",
            Operator::BitwiseNot => "BitwiseNot-13",
            Operator::OvLogicalAnd => "LogicalAnd-1",
            Operator::OvLogicalOr => "LogicalOr-1",
            Operator::OvLogicalXor => "LogicalXor-1",
            Operator::OvLogicalNot => "LogicalNot-1",
        })
    }
}

/// One of an operator's three tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TensorName {
    /// The first input (`ATensor`, OpenVINO's `arg0`); the one input of a NOT operator
    /// (DirectML's `InputTensor`).
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
