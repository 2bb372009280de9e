//! Small ONNX graphs of bitwise nodes fused into one expression: each node's operator found
//! in the operator table by the ONNX names its row lists (`BitwiseAnd-18`, `And-7`,
//! `BitShift-11 LEFT`, ...), scalar initializers as constants, graph inputs as the
//! expression's inputs.

use super::expr::{Expr, ExprDesc, Node};
use super::{DataType, FeatureLevel, Operator, TensorDesc};
use crate::error::Error;

/// One ONNX node: its operator type, its inputs and its output by name, and the `direction`
/// attribute of a `BitShift` (`LEFT` or `RIGHT`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OnnxNode {
    /// `op_type`: `BitShift`, `BitwiseAnd`, `BitwiseOr`, `BitwiseXor`, `BitwiseNot`, `And`,
    /// `Or`, `Xor` or `Not`.
    pub op_type: String,
    /// The names of its inputs.
    pub inputs: Vec<String>,
    /// The name of its output.
    pub output: String,
    /// `BitShift`'s `direction` attribute.
    pub direction: Option<String>,
}

impl OnnxNode {
    /// A node of `op_type` on `inputs`, giving `output`.
    pub fn new(op_type: &str, inputs: &[&str], output: &str) -> OnnxNode {
        OnnxNode {
            op_type: op_type.to_string(),
            inputs: inputs.iter().map(|s| s.to_string()).collect(),
            output: output.to_string(),
            direction: None,
        }
    }

    /// A `BitShift` node: `direction` is `LEFT` or `RIGHT`.
    pub fn bit_shift(direction: &str, inputs: &[&str], output: &str) -> OnnxNode {
        OnnxNode {
            direction: Some(direction.to_string()),
            ..OnnxNode::new("BitShift", inputs, output)
        }
    }
}

/// A small ONNX graph: its inputs (each with its tensor), its scalar initializers (each a
/// type and bits), its nodes in topological order (as ONNX requires), and its one output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OnnxGraph {
    /// The graph's inputs by name, in order: the expression's inputs.
    pub inputs: Vec<(String, TensorDesc)>,
    /// Scalar initializers by name: a type and the bits of its one element.
    pub initializers: Vec<(String, DataType, u64)>,
    /// The nodes, each after the nodes whose outputs it reads.
    pub nodes: Vec<OnnxNode>,
    /// The graph's output: a node's output name, and its tensor.
    pub output: (String, TensorDesc),
}

/// Why a graph cannot be fused: a node (by its index among the graph's nodes) that is not an
/// operator of the table or names what is not there, or a rule of the expression broken.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum OnnxFuseError {
    /// Node `node` cannot be fused, for `reason`.
    #[error("node {node} ({op_type}) cannot be fused: {reason}")]
    Node {
        /// The node's index in [`OnnxGraph::nodes`].
        node: usize,
        /// Its `op_type`.
        op_type: String,
        /// Why.
        reason: String,
    },
    /// The graph's output is no node's output.
    #[error("the graph's output {0:?} is no node's output")]
    Output(String),
    /// The fused expression breaks a rule (a type an operator does not take, more inputs
    /// than an expression holds, shapes that do not broadcast...): the node that made it,
    /// where one did, and the error.
    #[error("{}{source}", node.map(|n| format!("node {n}: ")).unwrap_or_default())]
    Invalid {
        /// The ONNX node of the expression's node the error names, if it names one.
        node: Option<usize>,
        /// The rule broken.
        source: Error,
    },
}

/// The operator of the table whose row lists the ONNX operator `op_type` (with `direction`
/// for `BitShift`), whatever the opset.
fn operator(op_type: &str, direction: Option<&str>) -> Option<Operator> {
    Operator::ALL.into_iter().find(|op| {
        op.spec().onnx.iter().any(|entry| {
            let (name, rest) = entry.split_once('-').unwrap_or((entry, ""));
            let dir = rest.split_once(' ').map(|(_, d)| d);
            name == op_type && dir == direction
        })
    })
}

/// Fuses `graph` into one expression: every node an operator of the table, every node's
/// input a graph input, a scalar initializer or an earlier node's output. The expression is
/// validated before it is returned (ONNX's operators are OpenVINO's rows, which have no
/// feature levels); [`crate::ExprDesc`]'s rules apply (at most four inputs, eight constants).
///
/// ```
/// use gpu_xor_core::desc::onnx::{OnnxGraph, OnnxNode, fuse_onnx};
/// use gpu_xor_core::{DataType, TensorDesc};
///
/// // The high nibble of int4 pairs: BitShift RIGHT by 4, then BitwiseAnd with 0x0F.
/// let t = TensorDesc::new(DataType::U8, &[64]);
/// let graph = OnnxGraph {
///     inputs: vec![("w".into(), t.clone())],
///     initializers: vec![("four".into(), DataType::U8, 4), ("mask".into(), DataType::U8, 0x0F)],
///     nodes: vec![
///         OnnxNode::bit_shift("RIGHT", &["w", "four"], "shifted"),
///         OnnxNode::new("BitwiseAnd", &["shifted", "mask"], "high"),
///     ],
///     output: ("high".into(), t),
/// };
/// let expr = fuse_onnx(&graph)?;
/// assert_eq!(expr.nodes.len(), 5);
/// # Ok::<(), gpu_xor_core::desc::onnx::OnnxFuseError>(())
/// ```
pub fn fuse_onnx(graph: &OnnxGraph) -> Result<ExprDesc, OnnxFuseError> {
    let mut e = Expr::new();
    // Each named value and its node.
    let mut values: Vec<(&str, Node)> = Vec::new();
    // For each expression node, the ONNX node that made it.
    let mut made_by: Vec<Option<usize>> = Vec::new();
    for (name, desc) in &graph.inputs {
        values.push((name, e.input(desc.clone())));
        made_by.push(None);
    }
    let mut constants: Vec<(&str, Node)> = Vec::new();
    for (index, node) in graph.nodes.iter().enumerate() {
        let fail = |reason: String| OnnxFuseError::Node {
            node: index,
            op_type: node.op_type.clone(),
            reason,
        };
        let op = operator(&node.op_type, node.direction.as_deref()).ok_or_else(|| {
            fail(match (&node.direction, node.op_type.as_str()) {
                (None, "BitShift") => "a BitShift without its direction attribute".to_string(),
                (Some(d), "BitShift") => format!("a BitShift direction {d:?}, not LEFT or RIGHT"),
                _ => {
                    "not an operator of the table (BitShift, BitwiseAnd/Or/Xor/Not, And/Or/Xor/Not)"
                        .to_string()
                }
            })
        })?;
        if node.inputs.len() != op.inputs() {
            return Err(fail(format!(
                "{} inputs, where {} takes {}",
                node.inputs.len(),
                node.op_type,
                op.inputs()
            )));
        }
        let mut args = Vec::with_capacity(2);
        for input in &node.inputs {
            let found = values
                .iter()
                .chain(&constants)
                .rev()
                .find(|v| v.0 == input.as_str())
                .map(|v| v.1);
            let arg = match found {
                Some(n) => n,
                None => match graph.initializers.iter().find(|i| &i.0 == input) {
                    Some((name, data_type, bits)) => {
                        let c = e.constant(*data_type, *bits);
                        made_by.push(Some(index));
                        constants.push((name, c));
                        c
                    }
                    None => {
                        return Err(fail(format!(
                            "its input {input:?} is no graph input, scalar initializer or earlier node's output"
                        )));
                    }
                },
            };
            args.push(arg);
        }
        let out = e.apply(op, &args);
        made_by.push(Some(index));
        values.push((&node.output, out));
    }
    let (name, desc) = &graph.output;
    let result = values
        .iter()
        .rev()
        .find(|v| v.0 == name.as_str() && made_by[v.1.index()].is_some())
        .map(|v| v.1)
        .ok_or_else(|| OnnxFuseError::Output(name.clone()))?;
    let expr = e.output(result, desc.clone());
    expr.validate(FeatureLevel::default()).map_err(|source| {
        let node = match &source {
            Error::ExprTypeMismatch { node, .. }
            | Error::ExprUnsupportedType { node, .. }
            | Error::ExprConstant { node, .. }
            | Error::ExprReference { node, .. } => made_by.get(*node).copied().flatten(),
            _ => None,
        };
        OnnxFuseError::Invalid { node, source }
    })?;
    Ok(expr)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(data_type: DataType) -> TensorDesc {
        TensorDesc::new(data_type, &[8])
    }

    fn graph(nodes: Vec<OnnxNode>, data_type: DataType) -> OnnxGraph {
        OnnxGraph {
            inputs: vec![("a".into(), t(data_type)), ("b".into(), t(data_type))],
            initializers: vec![("two".into(), data_type, 2)],
            nodes,
            output: ("y".into(), t(data_type)),
        }
    }

    #[test]
    fn every_onnx_name_of_the_table_is_found() {
        for op in Operator::ALL {
            for entry in op.spec().onnx {
                let (name, rest) = entry.split_once('-').unwrap();
                let dir = rest.split_once(' ').map(|(_, d)| d);
                assert_eq!(operator(name, dir), Some(op), "{entry}");
            }
        }
        assert_eq!(operator("BitShift", None), None);
        assert_eq!(operator("Add", None), None);
    }

    #[test]
    fn a_chain_fuses_and_a_foreign_node_is_named() {
        let g = graph(
            vec![
                OnnxNode::new("BitwiseXor", &["a", "b"], "x"),
                OnnxNode::bit_shift("LEFT", &["x", "two"], "s"),
                OnnxNode::new("BitwiseNot", &["s"], "y"),
            ],
            DataType::U32,
        );
        let expr = fuse_onnx(&g).unwrap();
        assert_eq!(expr.inputs.len(), 2);
        let mut foreign = g.clone();
        foreign.nodes[1] = OnnxNode::new("Add", &["x", "two"], "s");
        assert!(matches!(
            fuse_onnx(&foreign),
            Err(OnnxFuseError::Node { node: 1, .. })
        ));
        let mut undirected = g.clone();
        undirected.nodes[1].direction = None;
        assert!(matches!(
            fuse_onnx(&undirected),
            Err(OnnxFuseError::Node { node: 1, .. })
        ));
        let mut dangling = g.clone();
        dangling.nodes[2] = OnnxNode::new("BitwiseNot", &["nowhere"], "y");
        assert!(matches!(
            fuse_onnx(&dangling),
            Err(OnnxFuseError::Node { node: 2, .. })
        ));
        let mut arity = g.clone();
        arity.nodes[0] = OnnxNode::new("BitwiseXor", &["a"], "x");
        assert!(matches!(
            fuse_onnx(&arity),
            Err(OnnxFuseError::Node { node: 0, .. })
        ));
        let mut no_output = g;
        no_output.output.0 = "z".into();
        assert!(matches!(
            fuse_onnx(&no_output),
            Err(OnnxFuseError::Output(_))
        ));
    }

    #[test]
    fn a_rule_broken_names_its_node() {
        // ONNX's And takes booleans only: on u32 its node is named.
        let g = graph(
            vec![
                OnnxNode::new("BitwiseXor", &["a", "b"], "x"),
                OnnxNode::new("And", &["x", "b"], "y"),
            ],
            DataType::U32,
        );
        match fuse_onnx(&g) {
            Err(OnnxFuseError::Invalid {
                node: Some(1),
                source,
            }) => assert_eq!(source.rule(), "unsupported_dtype"),
            other => panic!("{other:?}"),
        }
    }
}
