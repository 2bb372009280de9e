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

/// How a reduced expression combines its result's values along the reduced axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ReduceOp {
    /// The sum of the values as integers (signed types sign-extended), modulo 2^32 into
    /// `UINT32` or `INT32` (two's complement) or 2^64 into `UINT64` or `INT64`: an overflow
    /// wraps, as integer sums do in ONNX's
    /// `ReduceSum` and DirectML's `REDUCE_SUM`, and the result is the same in any order.
    Sum,
    /// Bitwise OR of the values: a union of bit sets. All zeros over nothing.
    Or,
    /// Bitwise AND of the values: an intersection of bit sets.
    And,
    /// Bitwise XOR of the values: the parity of each bit.
    Xor,
    /// 1 where any value is nonzero, else 0, in the result's type (read at full width, as
    /// the logical functions read).
    Any,
    /// 1 where every value is nonzero, else 0, in the result's type.
    All,
}

impl ReduceOp {
    /// Its name in the conformance format: `sum`, `or`, `and`, `xor`, `any`, `all`.
    pub const fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Or => "or",
            ReduceOp::And => "and",
            ReduceOp::Xor => "xor",
            ReduceOp::Any => "any",
            ReduceOp::All => "all",
        }
    }

    /// The reduction named `name` ([`ReduceOp::name`]).
    pub fn from_name(name: &str) -> Option<ReduceOp> {
        ReduceOp::ALL.into_iter().find(|op| op.name() == name)
    }

    /// Every reduction, in declaration order.
    pub const ALL: [ReduceOp; 6] = [
        ReduceOp::Sum,
        ReduceOp::Or,
        ReduceOp::And,
        ReduceOp::Xor,
        ReduceOp::Any,
        ReduceOp::All,
    ];
}

/// The last stage of a reduced expression: its result combined by `op` over `axes`, the
/// trailing axes of its space, into the output.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Reduce {
    /// How the values combine.
    pub op: ReduceOp,
    /// The reduced axes of the space, in order: its last `axes.len()` axes.
    pub axes: Vec<usize>,
    /// A sum's total mapped to `total * scale + offset` before it is written (a 32-bit
    /// output only; `None` writes the total).
    pub affine: Option<Affine>,
}

/// The map a sum's total goes through before it is written to a 32-bit output:
/// `total * scale + offset`, modulo 2^32 as the sum itself (two's complement for `INT32`).
/// A binary dense layer's `2 * popcount(xnor(a, w)) - bits` is the sum of
/// `popcount(xnor(a, w))` through `scale` 2 and `offset` `-bits`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Affine {
    /// The total's factor.
    pub scale: i32,
    /// Added after the factor.
    pub offset: i32,
}

impl Affine {
    /// `total * scale + offset` modulo 2^32.
    pub fn apply(self, total: u32) -> u32 {
        total
            .wrapping_mul(self.scale as u32)
            .wrapping_add(self.offset as u32)
    }
}

/// A fused expression: its input tensors, its nodes, which node is its result, and the
/// output tensor the result is written to, element by element or reduced. Build one with
/// [`Expr`], or write the fields.
///
/// Without a reduction the space of the expression is the output's sizes, and each input
/// broadcasts to it. With one ([`ExprDesc::reduce`]) the space is the inputs' sizes
/// broadcast together (numpy's rule, aligned from the right), the result is reduced over the
/// space's trailing axes, and the output's sizes are the space's without them (or with them
/// of size 1).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ExprDesc {
    /// The input tensors, 1 to [`MAX_EXPR_INPUTS`], each broadcast to the space.
    pub inputs: Vec<TensorDesc>,
    /// The nodes, each after the nodes it reads.
    pub nodes: Vec<ExprNode>,
    /// The node whose values the output receives.
    pub result: usize,
    /// The output tensor.
    pub output: TensorDesc,
    /// The reduction of the result over the space's trailing axes, if any.
    pub reduce: Option<Reduce>,
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
            reduce: None,
        }
    }

    /// The description of a reduction: `result` combined by `op` over `axes` (the trailing
    /// axes of the inputs' broadcast space) into `output`.
    ///
    /// ```
    /// use gpu_xor_core::{DataType, Expr, FeatureLevel, Operator, ReduceOp, TensorDesc};
    ///
    /// // Hamming distances of 3 queries against 5 codes of 4 words: [3, 1, 4] against
    /// // [5, 4], XOR, count, summed over the words into [3, 5].
    /// let mut e = Expr::new();
    /// let q = e.input(TensorDesc::new(DataType::U32, &[3, 1, 4]));
    /// let c = e.input(TensorDesc::new(DataType::U32, &[5, 4]));
    /// let x = e.apply(Operator::BitXor, &[q, c]);
    /// let bits = e.bit_count(x, DataType::U32);
    /// let desc = e.reduce(bits, ReduceOp::Sum, &[2], TensorDesc::new(DataType::U32, &[3, 5]));
    /// assert!(desc.validate(FeatureLevel::default()).is_ok());
    /// ```
    pub fn reduce(
        self,
        result: Node,
        op: ReduceOp,
        axes: &[usize],
        output: TensorDesc,
    ) -> ExprDesc {
        ExprDesc {
            reduce: Some(Reduce {
                op,
                axes: axes.to_vec(),
                affine: None,
            }),
            ..self.output(result, output)
        }
    }

    /// The expression's description with `result` summed over `axes` of its space, each
    /// total mapped by `affine` (`total * scale + offset`) into `output`, of a 32-bit
    /// integer type (`INT32` or `UINT32`; another is `reduce_affine`).
    ///
    /// ```
    /// use gpu_xor_core::{Affine, DataType, Expr, FeatureLevel, Operator, TensorDesc};
    ///
    /// // 2 * popcount(xnor(a, w)) - 64 over two 32-bit words: a binary dense layer.
    /// let mut e = Expr::new();
    /// let a = e.input(TensorDesc::new(DataType::U32, &[3, 1, 2]));
    /// let w = e.input(TensorDesc::new(DataType::U32, &[5, 2]));
    /// let x = e.apply(Operator::BitXor, &[a, w]);
    /// let xnor = e.apply(Operator::BitNot, &[x]);
    /// let ones = e.bit_count(xnor, DataType::U32);
    /// let affine = Affine { scale: 2, offset: -64 };
    /// let desc = e.sum_affine(ones, &[2], affine, TensorDesc::new(DataType::I32, &[3, 5]));
    /// assert!(desc.validate(FeatureLevel::default()).is_ok());
    /// ```
    pub fn sum_affine(
        self,
        result: Node,
        axes: &[usize],
        affine: Affine,
        output: TensorDesc,
    ) -> ExprDesc {
        ExprDesc {
            reduce: Some(Reduce {
                op: ReduceOp::Sum,
                axes: axes.to_vec(),
                affine: Some(affine),
            }),
            ..self.output(result, output)
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
    /// The output's element type (the result's, or the reduction's).
    pub(crate) out_type: DataType,
    /// The index space: the output's sizes, or the inputs' broadcast together where the
    /// result is reduced.
    pub(crate) space: Vec<u64>,
    /// The reduction and how many trailing axes of the space it takes.
    pub(crate) reduce: Option<(ReduceOp, usize)>,
    /// A sum's affine map.
    pub(crate) affine: Option<Affine>,
}

impl ExprOperands {
    /// The index space of the call: the output's sizes, or for a reduction the inputs'
    /// broadcast together (the output's then lacks the reduced axes or holds them as 1).
    pub fn sizes(&self) -> &[u64] {
        &self.space
    }

    /// The reduction, and how many trailing axes of [`ExprOperands::sizes`] it takes.
    pub fn reduce(&self) -> Option<(ReduceOp, usize)> {
        self.reduce
    }

    /// The map a sum's totals go through before they are written, if any.
    pub fn affine(&self) -> Option<Affine> {
        self.affine
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
    /// The Hamming distances between two sets of packed binary codes: `queries` of sizes
    /// `[.., M, W]` and `codes` of sizes `[.., N, W]` (the same integer type, 8 to 64 bits a
    /// word, `W` words a code; any strides; batch dimensions broadcast by numpy's rule) into
    /// `output`, `UINT32` of sizes `[.., M, N]`: `output[.., m, n]` is the number of bits in
    /// which code `m` of the queries and code `n` of the codes differ, the sum over the words
    /// of `BIT_COUNT(q ^ c)`.
    ///
    /// It is an expression like any other (OpenVINO's `BitwiseXor`, DirectML's `BIT_COUNT`,
    /// summed over the last axis), so it runs, records, prepares and batches as one: the
    /// queries are read as `[.., M, 1, W]` and the codes as `[.., 1, N, W]`. Its rules are the
    /// expression's: a float or boolean code type is `unsupported_dtype`, types that differ
    /// `dtype_mismatch`, word counts or batches that do not broadcast and outputs of other
    /// sizes `shape_mismatch`, an output other than a 32- or 64-bit integer `reduce_type`, a tensor of more
    /// than seven dimensions `rank_out_of_range`. A tensor of one dimension is one code.
    ///
    /// ```
    /// use gpu_xor_core::{DataType, ExprDesc, FeatureLevel, TensorDesc};
    ///
    /// // 1,000 queries against a million 256-bit codes, as 32-bit words.
    /// let desc = ExprDesc::hamming_distances(
    ///     TensorDesc::new(DataType::U32, &[1000, 8]),
    ///     TensorDesc::new(DataType::U32, &[1_000_000, 8]),
    ///     TensorDesc::new(DataType::U32, &[1000, 1_000_000]),
    /// );
    /// assert!(desc.validate(FeatureLevel::default()).is_ok());
    /// ```
    pub fn hamming_distances(
        queries: TensorDesc,
        codes: TensorDesc,
        output: TensorDesc,
    ) -> ExprDesc {
        let (mut e, q, c, axis) = rows_against_rows(queries, codes);
        let x = e.apply(Operator::BitwiseXor, &[q, c]);
        let bits = e.bit_count(x, DataType::U32);
        e.reduce(bits, ReduceOp::Sum, &[axis], output)
    }

    /// A binary dense layer: `inputs` of sizes `[.., M, W]` and `weights` of sizes
    /// `[.., N, W]`, both of bits packed in one integer type, into `output`, `INT32` of sizes
    /// `[.., M, N]`: `output[.., m, n] = 2 * popcount(xnor(input m, weight n)) - bits`, with
    /// `bits` the bits of `W` words, the dot product of the two rows read as +1 and -1 per bit
    /// (a set bit +1). The XNOR is OpenVINO's `BitwiseNot` of `BitwiseXor`; the count is summed over the words
    /// and mapped by [`Affine`] `{ scale: 2, offset: -bits }`. Rules as
    /// [`ExprDesc::hamming_distances`]'s, the output `INT32` (or `UINT32`, the same bits).
    ///
    /// ```
    /// use gpu_xor_core::{DataType, ExprDesc, FeatureLevel, TensorDesc};
    ///
    /// // 16 activations of 512 bits against 64 neurons, as bytes.
    /// let desc = ExprDesc::binary_dense(
    ///     TensorDesc::new(DataType::U8, &[16, 64]),
    ///     TensorDesc::new(DataType::U8, &[64, 64]),
    ///     TensorDesc::new(DataType::I32, &[16, 64]),
    /// );
    /// assert!(desc.validate(FeatureLevel::default()).is_ok());
    /// ```
    pub fn binary_dense(inputs: TensorDesc, weights: TensorDesc, output: TensorDesc) -> ExprDesc {
        let word_bits = 8 * inputs.data_type.size_in_bytes();
        let words = inputs.sizes.last().copied().unwrap_or(1);
        // More bits than an INT32 counts leave the offset's rule to the output: none wraps
        // below 2^31 bits.
        let bits = i32::try_from(u64::from(words) * u64::from(word_bits)).unwrap_or(i32::MAX);
        let (mut e, a, w, axis) = rows_against_rows(inputs, weights);
        let x = e.apply(Operator::BitwiseXor, &[a, w]);
        let xnor = e.apply(Operator::BitwiseNot, &[x]);
        let ones = e.bit_count(xnor, DataType::U32);
        let affine = Affine {
            scale: 2,
            offset: bits.wrapping_neg(),
        };
        e.sum_affine(ones, &[axis], affine, output)
    }

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
        let result_type = types[self.result];
        let out_type = self.output.data_type;
        match &self.reduce {
            None if result_type != out_type => {
                return Err(Error::ExprOutputType {
                    result: self.result,
                    data_type: result_type,
                    output: out_type,
                });
            }
            None => {}
            Some(reduce) => {
                let holds = match reduce.op {
                    ReduceOp::Sum => {
                        matches!(
                            out_type,
                            DataType::U32 | DataType::U64 | DataType::I32 | DataType::I64
                        ) && !result_type.is_float()
                            && result_type.size_in_bytes() <= out_type.size_in_bytes()
                    }
                    _ => result_type == out_type,
                };
                let affine_holds =
                    reduce.op == ReduceOp::Sum && matches!(out_type, DataType::U32 | DataType::I32);
                if reduce.affine.is_some() && !affine_holds {
                    return Err(Error::ReduceAffine {
                        op: reduce.op,
                        output: out_type,
                    });
                }
                if !holds {
                    return Err(Error::ReduceType {
                        op: reduce.op,
                        result: self.result,
                        data_type: result_type,
                        output: out_type,
                    });
                }
            }
        }

        // Check 6.
        for (k, t) in self.inputs.iter().enumerate() {
            if t.rank() == 0 || t.rank() > MAX_DIMENSIONS {
                return Err(Error::ExprRank {
                    tensor: TensorName::Input(k as u8),
                    rank: t.rank(),
                });
            }
        }
        // Check 8: the reduction's space, axes and output sizes.
        let space = match &self.reduce {
            None => self.output.sizes.clone(),
            Some(reduce) => self.reduced_space(reduce)?,
        };
        let mut operands = Vec::with_capacity(inputs);
        for (k, t) in self.inputs.iter().enumerate() {
            let name = TensorName::Input(k as u8);
            let mut operand = check_tensor(name, t)?;
            // Check 7: numpy's rule, aligned from the right.
            let out = &space;
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
        let mut output = check_tensor(TensorName::Output, &self.output)?;
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
        // A reduced output lines up with the space's leading axes, and holds each reduced
        // axis as one element (a size of 1, broadcast: the reduction's values meet in it).
        output.sizes.resize(space.len(), 1);
        output.strides.resize(space.len(), 0);
        Ok(ExprOperands {
            inputs: operands,
            output,
            input_types: self.inputs.iter().map(|t| t.data_type).collect(),
            nodes: self.nodes.clone(),
            types,
            result: self.result,
            out_type,
            space: space.iter().map(|&s| u64::from(s)).collect(),
            reduce: self.reduce.as_ref().map(|r| (r.op, r.axes.len())),
            affine: self.reduce.as_ref().and_then(|r| r.affine),
        })
    }

    /// The space of a reduced expression, its inputs' sizes broadcast together (check 7's
    /// shape error where they do not), once its axes (`reduce_axes`) and its output's sizes
    /// (`shape_mismatch`) are checked against it.
    fn reduced_space(&self, reduce: &Reduce) -> Result<Vec<u32>, Error> {
        let rank = self.inputs.iter().map(TensorDesc::rank).max().unwrap_or(0);
        let mut space = vec![1u32; rank];
        for t in &self.inputs {
            for (s, &n) in space[rank - t.rank()..].iter_mut().zip(&t.sizes) {
                if *s == 1 {
                    *s = n;
                }
            }
        }
        // Each input must then broadcast to the space (check 7 names the first that does
        // not).
        let k = reduce.axes.len();
        let trailing = k >= 1 && k <= rank && reduce.axes.iter().copied().eq(rank - k..rank);
        if !trailing {
            return Err(Error::ReduceAxes {
                axes: reduce.axes.clone(),
                rank,
            });
        }
        let out = &self.output.sizes;
        let kept = &space[..rank - k];
        let dropped = out.as_slice() == kept;
        let kept_as_one = out.len() == rank
            && out[..rank - k] == *kept
            && out[rank - k..].iter().all(|&n| n == 1);
        if !(dropped || kept_as_one) || out.is_empty() {
            return Err(Error::ReduceOutputShape {
                output: out.clone(),
                space,
                axes: reduce.axes.clone(),
            });
        }
        Ok(space)
    }
}

/// An expression whose inputs are `rows` read as `[.., M, 1, W]` and `columns` read as
/// `[.., 1, N, W]`, and the axis of the words in the space the two broadcast to (its last).
fn rows_against_rows(rows: TensorDesc, columns: TensorDesc) -> (Expr, Node, Node, usize) {
    let (rows, columns) = (
        with_unit_dimension(rows, 1),
        with_unit_dimension(columns, 2),
    );
    let axis = rows.rank().max(columns.rank()).saturating_sub(1);
    let mut e = Expr::new();
    let r = e.input(rows);
    let c = e.input(columns);
    (e, r, c, axis)
}

/// `desc` with a dimension of one element inserted `from_end` dimensions before its last
/// (its stride is never used), and its total size as it was: the same elements, read with
/// one more dimension. A tensor without dimensions is left as it is (validation refuses it).
fn with_unit_dimension(desc: TensorDesc, from_end: usize) -> TensorDesc {
    if desc.rank() < from_end.max(1) {
        return desc;
    }
    let at = desc.rank() - from_end;
    let total = desc.total_size().ok();
    let mut strides: Vec<u32> = desc
        .effective_strides()
        .iter()
        .map(|&s| u32::try_from(s).unwrap_or(u32::MAX))
        .collect();
    let mut sizes = desc.sizes.clone();
    sizes.insert(at, 1);
    strides.insert(at, 0);
    TensorDesc {
        sizes,
        strides: Some(strides),
        total_tensor_size_in_bytes: desc.total_tensor_size_in_bytes.or(total),
        ..desc
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
            reduce: None,
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

    /// `bit_count(q ^ c)` of u32 codes `q` and `c` reduced by `op` over `axes` into `output`.
    fn reduced(
        q: &[u32],
        c: &[u32],
        count: DataType,
        op: ReduceOp,
        axes: &[usize],
        output: TensorDesc,
    ) -> ExprDesc {
        let mut e = Expr::new();
        let q = e.input(t(DataType::U32, q));
        let c = e.input(t(DataType::U32, c));
        let x = e.apply(Operator::BitXor, &[q, c]);
        let bits = e.bit_count(x, count);
        e.reduce(bits, op, axes, output)
    }

    #[test]
    fn a_reduction_is_over_the_trailing_axes_of_the_inputs_space() {
        let u32_out = |sizes: &[u32]| t(DataType::U32, sizes);
        let sum = |axes: &[usize], out: &[u32]| {
            rule(&reduced(
                &[3, 1, 4],
                &[5, 4],
                DataType::U32,
                ReduceOp::Sum,
                axes,
                u32_out(out),
            ))
        };
        // Space [3, 5, 4]: the last axis, the last two, or all three, dropped or kept as 1.
        assert_eq!(sum(&[2], &[3, 5]), "ok");
        assert_eq!(sum(&[2], &[3, 5, 1]), "ok");
        assert_eq!(sum(&[1, 2], &[3]), "ok");
        assert_eq!(sum(&[0, 1, 2], &[1, 1, 1]), "ok");
        // Axes: none, out of range, not the last, repeated, out of order.
        for axes in [&[][..], &[3], &[1], &[0, 2], &[2, 2], &[2, 1]] {
            assert_eq!(sum(axes, &[3, 5]), "reduce_axes", "{axes:?}");
        }
        // Outputs whose sizes are not the space's kept axes.
        for out in [&[5, 3][..], &[3, 5, 4], &[3, 1], &[15], &[3, 5, 2]] {
            assert_eq!(sum(&[2], out), "shape_mismatch", "{out:?}");
        }
        // All axes reduced into nothing: DirectML tensors have a dimension at least.
        assert_eq!(sum(&[0, 1, 2], &[]), "shape_mismatch");
        // Inputs that do not broadcast together.
        let bad = reduced(
            &[3, 2, 4],
            &[5, 4],
            DataType::U32,
            ReduceOp::Sum,
            &[2],
            u32_out(&[3, 5]),
        );
        assert_eq!(rule(&bad), "shape_mismatch");
    }

    #[test]
    fn a_reduction_goes_into_a_type_that_holds_it() {
        let case = |count: DataType, op: ReduceOp, out: DataType| {
            rule(&reduced(
                &[2, 1, 4],
                &[3, 4],
                count,
                op,
                &[2],
                t(out, &[2, 3]),
            ))
        };
        // A sum into a 32- or 64-bit integer from a result no wider.
        assert_eq!(case(DataType::U8, ReduceOp::Sum, DataType::U32), "ok");
        assert_eq!(case(DataType::U32, ReduceOp::Sum, DataType::U64), "ok");
        assert_eq!(case(DataType::U32, ReduceOp::Sum, DataType::I32), "ok");
        assert_eq!(case(DataType::U8, ReduceOp::Sum, DataType::I64), "ok");
        for out in [DataType::U8, DataType::I16, DataType::F32] {
            assert_eq!(case(DataType::U32, ReduceOp::Sum, out), "reduce_type");
        }
        // An affine map follows a sum into 32 bits only.
        let affine = |op: ReduceOp, out: DataType| {
            let mut desc = reduced(&[2, 1, 4], &[3, 4], DataType::U8, op, &[2], t(out, &[2, 3]));
            if let Some(r) = desc.reduce.as_mut() {
                r.affine = Some(Affine {
                    scale: -2,
                    offset: 7,
                });
            }
            rule(&desc)
        };
        assert_eq!(affine(ReduceOp::Sum, DataType::I32), "ok");
        assert_eq!(affine(ReduceOp::Sum, DataType::U32), "ok");
        assert_eq!(affine(ReduceOp::Sum, DataType::I64), "reduce_affine");
        assert_eq!(affine(ReduceOp::Or, DataType::U8), "reduce_affine");
        // The others into the result's own type.
        for op in [
            ReduceOp::Or,
            ReduceOp::And,
            ReduceOp::Xor,
            ReduceOp::Any,
            ReduceOp::All,
        ] {
            assert_eq!(case(DataType::U8, op, DataType::U8), "ok", "{op:?}");
            assert_eq!(
                case(DataType::U8, op, DataType::U32),
                "reduce_type",
                "{op:?}"
            );
        }
        // A 64-bit result sums into UINT64 only; a float result not at all.
        let wide = |out: DataType, data_type: DataType| {
            let mut e = Expr::new();
            let a = e.input(t(data_type, &[2, 4]));
            let b = e.input(t(data_type, &[4]));
            let x = e.apply(Operator::BitXor, &[a, b]);
            rule(&e.reduce(x, ReduceOp::Sum, &[1], t(out, &[2])))
        };
        assert_eq!(wide(DataType::U64, DataType::I64), "ok");
        assert_eq!(wide(DataType::U32, DataType::I64), "reduce_type");
        assert_eq!(wide(DataType::U64, DataType::F32), "reduce_type");
    }

    #[test]
    fn reduction_names_round_trip() {
        for op in ReduceOp::ALL {
            assert_eq!(ReduceOp::from_name(op.name()), Some(op));
        }
        assert_eq!(ReduceOp::from_name("mean"), None);
    }
}
