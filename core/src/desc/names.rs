//! The names that descriptions, plans and errors share for an operator's tensors.

use std::fmt;

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
