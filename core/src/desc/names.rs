//! The names that descriptions, plans and errors share for an operator's tensors.

use std::fmt;

/// One of an operator's three tensors, or an input of a fused expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TensorName {
    /// The first input (`ATensor`, OpenVINO's `arg0`); the one input of a NOT operator
    /// (DirectML's `InputTensor`).
    A,
    /// The second input (`BTensor`, OpenVINO's `arg1`).
    B,
    /// The output (`OutputTensor`).
    Output,
    /// Input `k` of a fused expression ([`crate::ExprDesc::inputs`]). Where an operator's
    /// tensors are looked up by name ([`crate::Plan::strides`], [`crate::Operands::operand`]),
    /// input 0 is A and every later input B (an operator has two at most).
    Input(u8),
    /// A tensor of a search ([`crate::desc::KnnDesc`]); looked up as an operator's tensor, it
    /// is B.
    Search(SearchTensor),
}

/// The tensors of a search in Hamming space ([`crate::desc::KnnDesc`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SearchTensor {
    /// The queries, `[.., M, W]`.
    Queries,
    /// The codes searched, `[.., N, W]`.
    Codes,
    /// The allow-list, one bit a code.
    AllowList,
    /// The distances found, `[.., M, k]`.
    Distances,
    /// The indices of the codes found, `[.., M, k]`.
    Indices,
}

impl TensorName {
    /// The three, in the order A, B, Output.
    pub const ALL: [TensorName; 3] = [TensorName::A, TensorName::B, TensorName::Output];
}

impl fmt::Display for TensorName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TensorName::A => f.write_str("ATensor"),
            TensorName::B => f.write_str("BTensor"),
            TensorName::Output => f.write_str("OutputTensor"),
            TensorName::Input(k) => write!(f, "input {k}"),
            TensorName::Search(t) => f.write_str(match t {
                SearchTensor::Queries => "queries",
                SearchTensor::Codes => "codes",
                SearchTensor::AllowList => "allow-list",
                SearchTensor::Distances => "distances",
                SearchTensor::Indices => "indices",
            }),
        }
    }
}
