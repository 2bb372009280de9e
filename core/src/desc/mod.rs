//! Descriptions: types, tensors, feature levels, the operator descriptions
//! and every rule of their specifications (DirectML's tensor and binding rules, OpenVINO's
//! types and broadcasts). Pure CPU: nothing here touches wgpu, and nothing here knows
//! the layers below. A validated description hands out its [`Operands`], which layout
//! analysis takes.

mod auto_broadcast;
mod broadcast;
mod data_type;
mod expr;
mod feature_level;
mod function;
mod knn;
mod names;
pub mod onnx;
mod operands;
mod operators;
mod ops;
mod self_overlap;
mod tensor;

pub use auto_broadcast::AutoBroadcast;
pub use broadcast::{BitwiseXorDesc, OvBinaryDesc, OvUnaryDesc, infer_output_shape};
pub use data_type::DataType;
pub use expr::{
    Affine, Expr, ExprDesc, ExprNode, ExprOperands, MAX_EXPR_CONSTANTS, MAX_EXPR_INPUTS,
    MAX_EXPR_NODES, Node, Reduce, ReduceOp,
};
pub use feature_level::FeatureLevel;
pub use function::{BitFunction, ElementFunction};
pub use knn::{KnnDesc, KnnLayout, MAX_CODE_BITS, MAX_K};
pub use names::{SearchTensor, TensorName};
pub use operands::{Operand, Operands};
pub use operators::{
    DmlBinaryOp, DmlUnaryOp, Operator, OperatorGroup, OperatorSpec, OvBinaryOp, OvUnaryOp,
    Standard, Truth, TypeTable,
};
pub(crate) use ops::check_operand_type;
pub use ops::{
    BitXorDesc, DmlBinaryDesc, DmlUnaryDesc, LogicalXorDesc, min_feature_level, rank_range,
};
#[cfg(test)]
pub(crate) use tensor::packed_strides;
pub use tensor::{MAX_DIMENSIONS, MINIMUM_BUFFER_TENSOR_ALIGNMENT, TensorDesc, TensorFlags};
