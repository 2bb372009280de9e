//! Fused expressions: a small graph of the table's element functions over up to four input
//! tensors and scalar constants, into one output tensor, run as one kernel over memory.
//!
//! An expression is a list of nodes ([`ExprNode`]), each an input, a constant or an operator
//! of the table applied to earlier nodes, and the node that is its result. Each node has a
//! type, by its operator's own rule: a DirectML operator or an OpenVINO operation takes
//! operands of one type that it accepts (at the expression's feature level, for DirectML's
//! tables) and gives that type, `BIT_COUNT` gives `UINT8` or `UINT32` whatever it counts, a
//! logical function gives 0 or 1 of its type, and a shift takes its amounts as the operators
//! define them (out of range as ONNX `BitShift-28`: 0, or all ones for an arithmetic shift of
//! a negative value). The inputs are DirectML tensor descriptions (sizes, strides, total
//! size, alignment, `OWNED_BY_DML`), each broadcast to the output's sizes by numpy's rule
//! (aligned from the right, each size the output's or 1). Every rule broken is a typed error
//! that names the node or the input, before anything runs.
//!
//! ```
//! use gpu_xor_core::{DataType, Expr, FeatureLevel, Operator, TensorDesc};
//!
//! // int4 weights unpacked: the high nibble of each byte, `(w >> 4) & 0xF`.
//! let mut e = Expr::new();
//! let w = e.input(TensorDesc::new(DataType::U8, &[1024]));
//! let four = e.constant(DataType::U8, 4);
//! let high = e.apply(Operator::BitShiftRight, &[w, four]);
//! let nibble = e.constant(DataType::U8, 0xF);
//! let unpacked = e.apply(Operator::BitAnd, &[high, nibble]);
//! let desc = e.output(unpacked, TensorDesc::new(DataType::U8, &[1024]));
//! assert!(desc.validate(FeatureLevel::default()).is_ok());
//!
//! // Hamming distance of 64-bit codes: BIT_COUNT(a ^ b), into bytes.
//! let mut e = Expr::new();
//! let a = e.input(TensorDesc::new(DataType::U64, &[256]));
//! let b = e.input(TensorDesc::new(DataType::U64, &[256]));
//! let x = e.apply(Operator::BitXor, &[a, b]);
//! let d = e.bit_count(x, DataType::U8);
//! let desc = e.output(d, TensorDesc::new(DataType::U8, &[256]));
//! assert!(desc.validate(FeatureLevel::default()).is_ok());
//!
//! // Operands of two types meet only where an operator allows it.
//! let mut e = Expr::new();
//! let a = e.input(TensorDesc::new(DataType::U8, &[4]));
//! let b = e.input(TensorDesc::new(DataType::U16, &[4]));
//! let bad = e.apply(Operator::BitAnd, &[a, b]);
//! let desc = e.output(bad, TensorDesc::new(DataType::U8, &[4]));
//! let err = desc.validate(FeatureLevel::default()).unwrap_err();
//! assert_eq!(err.rule(), "dtype_mismatch");
//! ```

use super::ops::check_tensor;
use super::self_overlap::{SELF_OVERLAP_STEP_LIMIT, self_overlaps};
use super::{
    DataType, FeatureLevel, MAX_DIMENSIONS, Operand, Operator, TensorDesc, TensorFlags, TensorName,
    min_feature_level,
};
use crate::error::Error;

/// The most inputs an expression reads.
pub const MAX_EXPR_INPUTS: usize = 4;

/// The most constants an expression holds (they travel in the call's metadata record).
pub const MAX_EXPR_CONSTANTS: usize = 8;

/// The most nodes an expression holds: inputs, constants and operators.
pub const MAX_EXPR_NODES: usize = 64;

/// One node of an expression, named by its index in [`ExprDesc::nodes`]. An operator's
/// operands are nodes before it, so the list is in an order the graph can be evaluated in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ExprNode {
    /// Input tensor `k` ([`ExprDesc::inputs`]), broadcast to the output's sizes.
    Input(usize),
    /// A scalar of `data_type` whose bits are `bits` (no bit above the type's width).
    Constant {
        /// The value's bits, zero-extended (a negative value of a signed type in two's
        /// complement at its own width).
        bits: u64,
        /// Its type.
        data_type: DataType,
    },
    /// An operator of the table on one node (`a`; `b` is not read) or two (`a`, `b`).
    Apply {
        /// The operator, DirectML's or OpenVINO's.
        op: Operator,
        /// Its first operand (DirectML's `ATensor`, the shifted value of a shift).
        a: usize,
        /// Its second operand (`BTensor`, a shift's amounts); ignored by an operator of one
        /// input.
        b: usize,
        /// `BIT_COUNT`'s output type, `UINT8` or `UINT32` (`None` means `UINT32`); `None` for
        /// every other operator.
        out_type: Option<DataType>,
    },
}

/// A fused expression: its input tensors, its nodes, which node is its result, and the
/// output tensor the result is written to. Build one with [`Expr`], or write the fields.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ExprDesc {
    /// The input tensors, 1 to [`MAX_EXPR_INPUTS`], each broadcast to the output's sizes.
    pub inputs: Vec<TensorDesc>,
    /// The nodes, each after the nodes it reads.
    pub nodes: Vec<ExprNode>,
    /// The node whose values the output receives.
    pub result: usize,
    /// The output tensor.
    pub output: TensorDesc,
}

/// The operand [`Expr::apply`] records where too few were given.
const MISSING: usize = usize::MAX;

/// The operand [`Expr::apply`] records where too many were given.
const EXTRA: usize = usize::MAX - 1;

/// A node of an expression being built by [`Expr`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Node(usize);

impl Node {
    /// Its index in [`ExprDesc::nodes`].
    pub fn index(self) -> usize {
        self.0
    }
}

/// Builds an [`ExprDesc`] node by node; nothing is checked until the description is
/// validated (or an operator is made from it), so every rule's error names its node.
#[derive(Clone, Debug, Default)]
pub struct Expr {
    inputs: Vec<TensorDesc>,
    nodes: Vec<ExprNode>,
}

impl Expr {
    /// An empty expression.
    pub fn new() -> Expr {
        Expr::default()
    }

    /// A new input tensor.
    pub fn input(&mut self, desc: TensorDesc) -> Node {
        self.inputs.push(desc);
        self.push(ExprNode::Input(self.inputs.len() - 1))
    }

    /// A scalar of `data_type` whose bits are `bits`.
    pub fn constant(&mut self, data_type: DataType, bits: u64) -> Node {
        self.push(ExprNode::Constant { bits, data_type })
    }

    /// `op` applied to `args`: one node for an operator of one input, two for the others
    /// (any other count is refused when the expression is validated).
    pub fn apply(&mut self, op: Operator, args: &[Node]) -> Node {
        let at = |k: usize| args.get(k).map_or(MISSING, |n| n.0);
        let a = at(0);
        let b = match (op.inputs(), args.len()) {
            (1, 0 | 1) => a,
            (2, 0..=2) => at(1),
            _ => EXTRA,
        };
        self.push(ExprNode::Apply {
            op,
            a,
            b,
            out_type: None,
        })
    }

    /// DirectML's `BIT_COUNT` of `input` into `out_type` (`UINT8` or `UINT32`).
    pub fn bit_count(&mut self, input: Node, out_type: DataType) -> Node {
        self.push(ExprNode::Apply {
            op: Operator::BitCount,
            a: input.0,
            b: input.0,
            out_type: Some(out_type),
        })
    }

    /// The description: `result` written to `output`.
    pub fn output(self, result: Node, output: TensorDesc) -> ExprDesc {
        ExprDesc {
            inputs: self.inputs,
            nodes: self.nodes,
            result: result.0,
            output,
        }
    }

    fn push(&mut self, node: ExprNode) -> Node {
        self.nodes.push(node);
        Node(self.nodes.len() - 1)
    }
}

/// A validated expression, wgpu-free: what layout analysis and the kernel's generator take.
/// Only [`ExprDesc::operands`] makes one, so every value guarantees the rules of
/// [`ExprDesc::validate`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ExprOperands {
    /// Each input's operand (its own sizes and strides, and its axis among the output's).
    pub(crate) inputs: Vec<Operand>,
    /// The output's operand.
    pub(crate) output: Operand,
    /// Each input's element type.
    pub(crate) input_types: Vec<DataType>,
    /// The nodes, and each node's type.
    pub(crate) nodes: Vec<ExprNode>,
    pub(crate) types: Vec<DataType>,
    /// The result node.
    pub(crate) result: usize,
    /// The output's element type (the result's).
    pub(crate) out_type: DataType,
}

impl ExprOperands {
    /// The output's sizes: the index space of the call.
    pub fn sizes(&self) -> &[u64] {
        self.output.sizes()
    }

    /// Input `k`'s operand.
    pub fn input(&self, k: usize) -> &Operand {
        &self.inputs[k]
    }

    /// How many inputs the expression reads.
    pub fn input_count(&self) -> usize {
        self.inputs.len()
    }

    /// The output's operand.
    pub fn output(&self) -> &Operand {
        &self.output
    }

    /// Input `k`'s element type.
    pub fn input_type(&self, k: usize) -> DataType {
        self.input_types[k]
    }

    /// The nodes.
    pub fn nodes(&self) -> &[ExprNode] {
        &self.nodes
    }

    /// Node `n`'s type.
    pub fn node_type(&self, n: usize) -> DataType {
        self.types[n]
    }

    /// The result node.
    pub fn result(&self) -> usize {
        self.result
    }

    /// The output's element type.
    pub fn out_type(&self) -> DataType {
        self.out_type
    }
}

impl ExprDesc {
    /// Checks every rule at `feature_level` (for DirectML's operators' type tables); the
    /// first that fails is returned.
    ///
    /// 1. 1 to [`MAX_EXPR_INPUTS`] inputs, 1 to [`MAX_EXPR_NODES`] nodes, at most
    ///    [`MAX_EXPR_CONSTANTS`] constants (`expr_inputs`, `expr_nodes`, `expr_constants`).
    /// 2. Every node names inputs that exist and nodes before it, and the result a node that
    ///    exists; an operator has as many operands as it takes (`expr_reference`).
    /// 3. A constant's bits fit its type (`expr_constant`).
    /// 4. An operator's operands have one type (`dtype_mismatch`), which it takes at the
    ///    feature level (`unsupported_dtype`); `BIT_COUNT` writes `UINT8` or `UINT32`.
    /// 5. The result's type is the output's (`dtype_mismatch`).
    /// 6. Every input and the output follow DirectML's tensor rules (sizes, strides, total
    ///    size, alignment); the output is not `OWNED_BY_DML` and does not overlap itself.
    /// 7. Every input broadcasts to the output's sizes by numpy's rule (`shape_mismatch`).
    pub fn validate(&self, feature_level: FeatureLevel) -> Result<(), Error> {
        self.operands(feature_level).map(|_| ())
    }

    /// Checks every rule, as [`ExprDesc::validate`] does, and describes the operands and the
    /// nodes' types for layout analysis and the kernel.
    pub fn operands(&self, feature_level: FeatureLevel) -> Result<ExprOperands, Error> {
        // Check 1.
        let count = |what, count, max| {
            if (1..=max).contains(&count) || (what == "constants" && count == 0) {
                Ok(())
            } else {
                Err(Error::ExprCount {
                    what,
                    count,
                    min: usize::from(what != "constants"),
                    max,
                })
            }
        };
        let inputs = self.inputs.len();
        count("inputs", inputs, MAX_EXPR_INPUTS)?;
        count("nodes", self.nodes.len(), MAX_EXPR_NODES)?;
        let constants = self
            .nodes
            .iter()
            .filter(|n| matches!(n, ExprNode::Constant { .. }))
            .count();
        count("constants", constants, MAX_EXPR_CONSTANTS)?;

        // Checks 2 to 4, node by node.
        let mut types: Vec<DataType> = Vec::with_capacity(self.nodes.len());
        for (node, &n) in self.nodes.iter().enumerate() {
            let reference =
                |refers: usize, what: &'static str| Error::ExprReference { node, refers, what };
            let data_type = match n {
                ExprNode::Input(k) => {
                    if k >= inputs {
                        return Err(reference(k, "an input that is not there"));
                    }
                    self.inputs[k].data_type
                }
                ExprNode::Constant { bits, data_type } => {
                    let width = data_type.size_in_bytes();
                    if width < 8 && bits >> (8 * width) != 0 {
                        return Err(Error::ExprConstant {
                            node,
                            bits,
                            data_type,
                        });
                    }
                    data_type
                }
                ExprNode::Apply { op, a, b, out_type } => {
                    let operands: &[usize] = if op.inputs() == 1 { &[a] } else { &[a, b] };
                    for &arg in operands {
                        match arg {
                            MISSING => return Err(reference(arg, "an operand that was not given")),
                            EXTRA => return Err(reference(arg, "an operand too many")),
                            _ if arg >= node => {
                                return Err(reference(arg, "a node that is not before it"));
                            }
                            _ => {}
                        }
                    }
                    if op.inputs() == 1 && b != a {
                        let what = if b == EXTRA {
                            "an operand too many"
                        } else {
                            "a second operand of an operator of one input (b must be a)"
                        };
                        return Err(reference(b, what));
                    }
                    let data_type = types[a];
                    if op.inputs() == 2 && types[b] != data_type {
                        return Err(Error::ExprTypeMismatch {
                            node,
                            operator: op,
                            a: data_type,
                            b: types[b],
                        });
                    }
                    let required = min_feature_level(op, data_type);
                    let level = if op.is_directml() {
                        feature_level
                    } else {
                        FeatureLevel::default()
                    };
                    if required.is_none_or(|r| r > level) {
                        return Err(Error::ExprUnsupportedType {
                            node,
                            operator: op,
                            data_type,
                            feature_level,
                        });
                    }
                    match (op.spec().types.output_types(), out_type) {
                        (Some(allowed), out) => {
                            let out = out.unwrap_or(DataType::U32);
                            if !allowed.contains(&out) {
                                return Err(Error::ExprUnsupportedType {
                                    node,
                                    operator: op,
                                    data_type: out,
                                    feature_level,
                                });
                            }
                            out
                        }
                        (None, Some(_)) => {
                            return Err(reference(
                                node,
                                "an output type of an operator that has none",
                            ));
                        }
                        (None, None) => data_type,
                    }
                }
            };
            types.push(data_type);
        }
        if self.result >= self.nodes.len() {
            return Err(Error::ExprReference {
                node: self.result,
                refers: self.result,
                what: "a result node that is not there",
            });
        }

        // Check 5.
        let out_type = types[self.result];
        if out_type != self.output.data_type {
            return Err(Error::ExprOutputType {
                result: self.result,
                data_type: out_type,
                output: self.output.data_type,
            });
        }

        // Check 6.
        let mut operands = Vec::with_capacity(inputs);
        for (k, t) in self.inputs.iter().enumerate() {
            let name = TensorName::Input(k as u8);
            if t.rank() == 0 || t.rank() > MAX_DIMENSIONS {
                return Err(Error::ExprRank {
                    tensor: name,
                    rank: t.rank(),
                });
            }
            let mut operand = check_tensor(name, t)?;
            // Check 7: numpy's rule, aligned from the right.
            let out = &self.output.sizes;
            let fits = t.rank() <= out.len()
                && t.sizes
                    .iter()
                    .zip(&out[out.len() - t.rank()..])
                    .all(|(&s, &o)| s == o || s == 1);
            if !fits {
                return Err(Error::ExprBroadcast {
                    input: k,
                    sizes: t.sizes.clone(),
                    output: out.clone(),
                });
            }
            operand.axis = out.len() - t.rank();
            operands.push(operand);
        }
        if self.output.rank() == 0 || self.output.rank() > MAX_DIMENSIONS {
            return Err(Error::ExprRank {
                tensor: TensorName::Output,
                rank: self.output.rank(),
            });
        }
        if self.output.flags == TensorFlags::OwnedByDml {
            return Err(Error::OwnedByDmlOnOutput);
        }
        let output = check_tensor(TensorName::Output, &self.output)?;
        let out_strides = self.output.effective_strides();
        let strides_u32 = || {
            out_strides
                .iter()
                .map(|&s| u32::try_from(s).unwrap_or(u32::MAX))
                .collect()
        };
        match self_overlaps(output.sizes(), &out_strides) {
            Some(false) => {}
            Some(true) => {
                return Err(Error::OutputOverlap {
                    sizes: self.output.sizes.clone(),
                    strides: strides_u32(),
                });
            }
            None => {
                return Err(Error::OutputOverlapUndecided {
                    sizes: self.output.sizes.clone(),
                    strides: strides_u32(),
                    steps: SELF_OVERLAP_STEP_LIMIT,
                });
            }
        }
        Ok(ExprOperands {
            inputs: operands,
            output,
            input_types: self.inputs.iter().map(|t| t.data_type).collect(),
            nodes: self.nodes.clone(),
            types,
            result: self.result,
            out_type,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(data_type: DataType, sizes: &[u32]) -> TensorDesc {
        TensorDesc::new(data_type, sizes)
    }

    fn rule(desc: &ExprDesc) -> &'static str {
        match desc.validate(FeatureLevel::Fl6_4) {
            Ok(()) => "ok",
            Err(e) => e.rule(),
        }
    }

    /// `a op b` on u32 [8] tensors.
    fn binary(op: Operator) -> ExprDesc {
        let mut e = Expr::new();
        let a = e.input(t(DataType::U32, &[8]));
        let b = e.input(t(DataType::U32, &[8]));
        let r = e.apply(op, &[a, b]);
        e.output(r, t(DataType::U32, &[8]))
    }

    #[test]
    fn a_valid_expression_validates_and_keeps_its_types() {
        let mut e = Expr::new();
        let a = e.input(t(DataType::U64, &[4, 8]));
        let b = e.input(t(DataType::U64, &[8]));
        let x = e.apply(Operator::BitXor, &[a, b]);
        let c = e.bit_count(x, DataType::U8);
        let desc = e.output(c, t(DataType::U8, &[4, 8]));
        let ops = desc.operands(FeatureLevel::Fl6_4).unwrap();
        assert_eq!(ops.input_count(), 2);
        assert_eq!(ops.node_type(2), DataType::U64);
        assert_eq!(ops.out_type(), DataType::U8);
        assert_eq!(ops.sizes(), &[4, 8]);
        assert_eq!(ops.input(1).axis, 1);
    }

    #[test]
    fn counts_are_bounded() {
        let mut e = Expr::new();
        let ins: Vec<Node> = (0..=MAX_EXPR_INPUTS)
            .map(|_| e.input(t(DataType::U8, &[4])))
            .collect();
        let r = e.apply(Operator::BitXor, &[ins[0], ins[1]]);
        assert_eq!(rule(&e.output(r, t(DataType::U8, &[4]))), "expr_count");

        let mut e = Expr::new();
        let a = e.input(t(DataType::U8, &[4]));
        let mut last = a;
        for k in 0..=MAX_EXPR_CONSTANTS {
            let c = e.constant(DataType::U8, k as u64);
            last = e.apply(Operator::BitXor, &[last, c]);
        }
        assert_eq!(rule(&e.output(last, t(DataType::U8, &[4]))), "expr_count");

        let mut e = Expr::new();
        let mut last = e.input(t(DataType::U8, &[4]));
        for _ in 0..MAX_EXPR_NODES {
            last = e.apply(Operator::BitNot, &[last]);
        }
        assert_eq!(rule(&e.output(last, t(DataType::U8, &[4]))), "expr_count");

        let desc = ExprDesc {
            inputs: vec![],
            nodes: vec![ExprNode::Constant {
                bits: 0,
                data_type: DataType::U8,
            }],
            result: 0,
            output: t(DataType::U8, &[4]),
        };
        assert_eq!(rule(&desc), "expr_count");
    }

    #[test]
    fn references_must_name_earlier_nodes_and_the_right_operand_count() {
        let mut e = Expr::new();
        let a = e.input(t(DataType::U32, &[8]));
        let r = e.apply(Operator::BitXor, &[a]);
        assert_eq!(rule(&e.output(r, t(DataType::U32, &[8]))), "expr_reference");

        let mut e = Expr::new();
        let a = e.input(t(DataType::U32, &[8]));
        let r = e.apply(Operator::BitXor, &[a, a, a]);
        assert_eq!(rule(&e.output(r, t(DataType::U32, &[8]))), "expr_reference");

        let mut e = Expr::new();
        let a = e.input(t(DataType::U32, &[8]));
        let r = e.apply(Operator::BitNot, &[a, a]);
        assert_eq!(rule(&e.output(r, t(DataType::U32, &[8]))), "expr_reference");

        let mut desc = binary(Operator::BitAnd);
        desc.nodes[2] = ExprNode::Apply {
            op: Operator::BitAnd,
            a: 0,
            b: 2,
            out_type: None,
        };
        assert_eq!(rule(&desc), "expr_reference");

        let mut desc = binary(Operator::BitAnd);
        desc.nodes[1] = ExprNode::Input(7);
        assert_eq!(rule(&desc), "expr_reference");

        let mut desc = binary(Operator::BitAnd);
        desc.result = 9;
        assert_eq!(rule(&desc), "expr_reference");

        // An output type for an operator that has none.
        let mut desc = binary(Operator::BitAnd);
        desc.nodes[2] = ExprNode::Apply {
            op: Operator::BitAnd,
            a: 0,
            b: 1,
            out_type: Some(DataType::U8),
        };
        assert_eq!(rule(&desc), "expr_reference");
    }

    #[test]
    fn constants_fit_their_type() {
        let mut e = Expr::new();
        let a = e.input(t(DataType::U8, &[4]));
        let c = e.constant(DataType::U8, 0x100);
        let r = e.apply(Operator::BitXor, &[a, c]);
        assert_eq!(rule(&e.output(r, t(DataType::U8, &[4]))), "expr_constant");
        let mut e = Expr::new();
        let a = e.input(t(DataType::U64, &[4]));
        let c = e.constant(DataType::U64, u64::MAX);
        let r = e.apply(Operator::BitXor, &[a, c]);
        assert_eq!(rule(&e.output(r, t(DataType::U64, &[4]))), "ok");
    }

    #[test]
    fn types_follow_the_operator_table() {
        // Operands of two types.
        let mut e = Expr::new();
        let a = e.input(t(DataType::U32, &[8]));
        let b = e.input(t(DataType::U16, &[8]));
        let r = e.apply(Operator::BitXor, &[a, b]);
        assert_eq!(rule(&e.output(r, t(DataType::U32, &[8]))), "dtype_mismatch");
        // A shift of floats.
        let mut e = Expr::new();
        let a = e.input(t(DataType::F32, &[8]));
        let r = e.apply(Operator::BitShiftLeft, &[a, a]);
        assert_eq!(
            rule(&e.output(r, t(DataType::F32, &[8]))),
            "unsupported_dtype"
        );
        // A count into u16.
        let mut e = Expr::new();
        let a = e.input(t(DataType::U32, &[8]));
        let r = e.bit_count(a, DataType::U16);
        assert_eq!(
            rule(&e.output(r, t(DataType::U16, &[8]))),
            "unsupported_dtype"
        );
        // The result's type is not the output's.
        let mut e = Expr::new();
        let a = e.input(t(DataType::U32, &[8]));
        let r = e.bit_count(a, DataType::U8);
        assert_eq!(rule(&e.output(r, t(DataType::U32, &[8]))), "dtype_mismatch");
        // A DirectML operator's types at a feature level that lacks them.
        let mut e = Expr::new();
        let a = e.input(t(DataType::U64, &[8]));
        let r = e.apply(Operator::BitShiftLeft, &[a, a]);
        let desc = e.output(r, t(DataType::U64, &[8]));
        assert_eq!(
            desc.validate(FeatureLevel::Fl1_0).map_err(|e| e.rule()),
            Err("unsupported_dtype")
        );
    }

    #[test]
    fn shapes_broadcast_by_numpy_rule_and_ranks_are_bounded() {
        let mut e = Expr::new();
        let a = e.input(t(DataType::U32, &[3, 8]));
        let b = e.input(t(DataType::U32, &[4]));
        let r = e.apply(Operator::BitXor, &[a, b]);
        assert_eq!(
            rule(&e.output(r, t(DataType::U32, &[3, 8]))),
            "shape_mismatch"
        );
        let mut e = Expr::new();
        let a = e.input(t(DataType::U32, &[9; 1]));
        let b = e.input(t(DataType::U32, &[1, 1, 1, 1, 1, 1, 1, 1, 9]));
        let r = e.apply(Operator::BitXor, &[a, b]);
        assert_eq!(
            rule(&e.output(r, t(DataType::U32, &[9]))),
            "rank_out_of_range"
        );
        let mut desc = binary(Operator::BitOr);
        desc.output.flags = TensorFlags::OwnedByDml;
        assert_eq!(rule(&desc), "owned_by_dml_on_output");
        let mut desc = binary(Operator::BitOr);
        desc.output = desc.output.clone().with_strides(&[0]);
        assert_eq!(rule(&desc), "output_overlap");
    }

    #[test]
    fn errors_name_the_input() {
        let mut e = Expr::new();
        let a = e.input(t(DataType::U32, &[8]));
        let b = e.input(t(DataType::U32, &[0]));
        let r = e.apply(Operator::BitXor, &[a, b]);
        let err = e
            .output(r, t(DataType::U32, &[8]))
            .validate(FeatureLevel::Fl6_4)
            .unwrap_err();
        assert!(err.to_string().contains("input 1"), "{err}");
    }
}
