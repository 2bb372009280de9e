//! The cases: which operator runs on which layout ([`Path`]) of which type and size, their
//! buffers (filled with random bytes, a shift's B mostly with amounts in range), their
//! compiled operator, and the recording of their calls.

use gpu_xor::desc::OperatorGroup;
use gpu_xor::{
    AutoBroadcast, Bindings, BitFunction, BitXorDesc, BitwiseXorDesc, CompiledOperator, Context,
    DataType, DmlBinary, DmlBinaryDesc, DmlBinaryOp, DmlUnary, DmlUnaryDesc, DmlUnaryOp,
    LogicalXorDesc, Operator, OvBinary, OvBinaryDesc, OvBinaryOp, OvUnary, OvUnaryDesc, OvUnaryOp,
    TensorBinding, TensorDesc,
};

use crate::buffers::{read, shift_amounts, storage};
use crate::plain::{PlainLayout, PlainStrided};

/// Which shape of work a case is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// Three packed tensors.
    Contiguous,
    /// Output bound on A's range.
    InPlace,
    /// `[rows, cols] ^ [cols]` (B repeated over rows).
    BroadcastRow,
    /// `[rows, cols] ^ [rows, 1]` (B's one element repeated along each row).
    BroadcastColumn,
    /// `[n] ^ [1]` (B one element, repeated over the whole output: a tensor and a scalar).
    BroadcastScalar,
    /// A transposed: `[n, n]` read with strides `[1, n]`.
    Transposed,
    /// The output in rows padded by one element (`[rows, cols]`, row stride `cols + 1`).
    PaddedOutput,
    /// The output a slice of a wider tensor, as when writing one piece of a concatenation
    /// along the last axis: `[rows, cols]` with row stride `16 / w + cols + 7` elements (the
    /// piece before it 16 bytes wide, the one after it 7 elements), bound 16 bytes into its
    /// buffer (`SLICE_OFFSET`).
    SlicedOutput,
    /// The output transposed: `[n, n]` written with strides `[1, n]`, the inputs packed.
    TransposedOutput,
    /// A a cube read with axes (2, 0, 1): `[n, n, n]` with strides `[1, n², n]`.
    Permuted3,
    /// A a cube read with its two inner axes swapped, axes (0, 2, 1): strides `[n², 1, n]`.
    Permuted3Inner,
    /// A a 4-D cube read with axes (0, 2, 1, 3) (heads and tokens swapped): strides
    /// `[n³, n, n², 1]`.
    Permuted4,
    /// A a 4-D cube read with axes (0, 3, 1, 2) (NHWC read as NCHW): strides `[n³, 1, n², n]`.
    Permuted4Channels,
    /// A a cube read with its axes reversed, axes (2, 1, 0): strides `[1, n, n²]`; its
    /// matrices are interleaved, the batch axis between the two that swap.
    Permuted3Reversed,
    /// A a 4-D cube read with axes (0, 3, 2, 1) (the last three reversed): strides
    /// `[n³, 1, n, n²]`; two batch axes that do not merge.
    Permuted4Reversed,
    /// A 5-D cube read with its axes reversed, axes (4, 3, 2, 1, 0): strides
    /// `[1, n, n², n³, n⁴]`; a matrix and a batch of three axes that do not merge.
    Permuted5Reversed,
    /// Many small transposes: `[m, 64, 64]` with A read with axes (0, 2, 1), strides
    /// `[4096, 1, 64]` (a batch of a model's per-head transposes, 4,096 of them at 64 MiB of
    /// 32-bit elements).
    BatchedTransposes,
    /// ONNX's DepthToSpace (DCR, block 2) as a permutation: A packed as `[2, 2, C, H, W]`
    /// (C = 16, H = W) read as `[C, H, 2, W, 2]`, axes (2, 3, 0, 4, 1); five dimensions that
    /// do not merge, a matrix of W rows by 2 columns and a batch of three.
    DepthToSpace,
    /// The output a cube written with axes (2, 0, 1), the inputs packed.
    PermutedOutput,
    /// A read with a step of two elements: `[n]` with stride `[2]`.
    SteppedInput,
    /// The output written with a step of two elements (every other element): `[n]`, stride 2.
    SteppedOutput,
    /// The output in short padded rows: `[rows, 3]` with a row stride of 5 elements.
    ShortRows,
}

/// The permutations of the permuted paths: `axes[k]` is the source axis that axis `k` reads.
fn axes(path: Path) -> &'static [usize] {
    match path {
        Path::Permuted3 | Path::PermutedOutput => &[2, 0, 1],
        Path::Permuted3Inner => &[0, 2, 1],
        Path::Permuted4 => &[0, 2, 1, 3],
        Path::Permuted4Channels => &[0, 3, 1, 2],
        Path::Permuted3Reversed => &[2, 1, 0],
        Path::Permuted4Reversed => &[0, 3, 2, 1],
        Path::Permuted5Reversed => &[4, 3, 2, 1, 0],
        Path::DepthToSpace => &[2, 3, 0, 4, 1],
        _ => &[],
    }
}

/// The strides of a packed cube of `rank` sides of `side` read with `axes`.
fn permuted_strides(side: u64, axes: &[usize]) -> Vec<u32> {
    let rank = axes.len();
    axes.iter()
        .map(|&k| side.pow((rank - 1 - k) as u32) as u32)
        .collect()
}

/// The channels of [`Path::DepthToSpace`]'s output.
const DEPTH_CHANNELS: u64 = 16;

/// The shape of [`Path::DepthToSpace`]'s input in `n` elements, `[2, 2, C, s, s]` with the
/// largest side `s` that fits (at least one).
fn depth_to_space_input(n: u64) -> [u64; 5] {
    let s = root(n / (4 * DEPTH_CHANNELS), 2).max(1);
    [2, 2, DEPTH_CHANNELS, s, s]
}

/// The side of each matrix of [`Path::BatchedTransposes`].
const BATCHED_SIDE: u64 = 64;

/// The matrices of [`Path::BatchedTransposes`] in `n` elements: as many as fit, at least one.
fn batched_matrices(n: u64) -> u64 {
    (n / (BATCHED_SIDE * BATCHED_SIDE)).max(1)
}

/// Where a [`Path::SlicedOutput`] output starts in its buffer: a `TensorDesc` has no element
/// offset, so a slice starts where its binding does, and 16 bytes is the smallest binding
/// offset past 0 that DirectML allows (one wgpu cannot bind directly, its storage offsets
/// being multiples of 256 on most adapters).
const SLICE_OFFSET: u64 = 16;

/// Elements after a [`Path::SlicedOutput`] slice in each row of its wider tensor.
const SLICE_AFTER: u64 = 7;

impl Path {
    /// The path's name in group names and tables.
    pub fn name(self) -> &'static str {
        match self {
            Path::Contiguous => "contiguous",
            Path::InPlace => "in-place",
            Path::BroadcastRow => "broadcast-row",
            Path::BroadcastColumn => "broadcast-column",
            Path::BroadcastScalar => "broadcast-scalar",
            Path::Transposed => "transposed",
            Path::PaddedOutput => "padded-output",
            Path::SlicedOutput => "sliced-output",
            Path::TransposedOutput => "transposed-output",
            Path::Permuted3 => "permuted-3d (2,0,1)",
            Path::Permuted3Inner => "permuted-3d (0,2,1)",
            Path::Permuted4 => "permuted-4d (0,2,1,3)",
            Path::Permuted4Channels => "permuted-4d (0,3,1,2)",
            Path::Permuted3Reversed => "permuted-3d (2,1,0)",
            Path::Permuted4Reversed => "permuted-4d (0,3,2,1)",
            Path::Permuted5Reversed => "permuted-5d (4,3,2,1,0)",
            Path::BatchedTransposes => "batched-transposes 64x64",
            Path::DepthToSpace => "depth-to-space 2x2",
            Path::PermutedOutput => "permuted-output (2,0,1)",
            Path::SteppedInput => "stepped-input",
            Path::SteppedOutput => "stepped-output",
            Path::ShortRows => "short-rows-output",
        }
    }

    /// Whether the path has a strided operand: measured against the plain strided kernel.
    pub fn strided(self) -> bool {
        !matches!(
            self,
            Path::Contiguous
                | Path::InPlace
                | Path::BroadcastRow
                | Path::BroadcastColumn
                | Path::BroadcastScalar
        )
    }
}

/// The operator a case runs: the XOR operators through their own descriptions, the rest of the
/// family through the family's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(clippy::enum_variant_names)] // the operators' own names
pub enum Op {
    /// DirectML's `BIT_XOR`.
    BitXor,
    /// DirectML's `LOGICAL_XOR`.
    LogicalXor,
    /// OpenVINO's `BitwiseXor-13`.
    BitwiseXor,
    /// A binary DirectML operator of the family.
    Dml(DmlBinaryOp),
    /// A DirectML NOT.
    DmlNot(DmlUnaryOp),
    /// A binary OpenVINO operation of the family.
    Ov(OvBinaryOp),
    /// An OpenVINO NOT.
    OvNot(OvUnaryOp),
    /// DirectML's `BIT_COUNT` into an output of this type (`u8` or `u32`, whatever the
    /// input's): a case's type is its input's.
    BitCount(DataType),
}

impl Op {
    /// Every AND, OR and NOT operator of the operator table (the word-wide ones but the three
    /// XOR operators, which the other sections measure through their own descriptions), in
    /// the table's order; the shifts are [`Op::shifts`], and an operator of any other function
    /// joins neither.
    pub(crate) fn and_or_not() -> Vec<Op> {
        Op::table()
            .into_iter()
            .filter(|op| op.function().is_word_wide())
            .collect()
    }

    /// Every shift of the operator table (DirectML's `BIT_SHIFT_*`, OpenVINO's
    /// `Bitwise*Shift-15`), in the table's order.
    pub(crate) fn shifts() -> Vec<Op> {
        Op::table().into_iter().filter(|op| op.shift()).collect()
    }

    /// Every operator of the operator table but the three XOR operators and `BIT_COUNT`
    /// (whose output type is a case's own: [`Op::BitCount`]).
    fn table() -> Vec<Op> {
        Operator::ALL
            .into_iter()
            .filter_map(|op| match op.group() {
                OperatorGroup::DmlBinaryOp(DmlBinaryOp::BitXor | DmlBinaryOp::LogicalXor)
                | OperatorGroup::OvBinaryOp(OvBinaryOp::BitwiseXor)
                | OperatorGroup::DmlUnaryOp(DmlUnaryOp::BitCount) => None,
                OperatorGroup::DmlBinaryOp(f) => Some(Op::Dml(f)),
                OperatorGroup::DmlUnaryOp(f) => Some(Op::DmlNot(f)),
                OperatorGroup::OvBinaryOp(f) => Some(Op::Ov(f)),
                OperatorGroup::OvUnaryOp(f) => Some(Op::OvNot(f)),
                _ => None,
            })
            .collect()
    }

    /// Its element function (on `u32`: the right shifts logical).
    fn function(self) -> BitFunction {
        match self {
            Op::BitXor | Op::LogicalXor | Op::BitwiseXor => BitFunction::Xor,
            Op::Dml(f) => f.function().function,
            Op::DmlNot(f) => f.function().function,
            Op::Ov(f) => f.function(DataType::U32).function,
            Op::OvNot(f) => f.function(DataType::U32).function,
            Op::BitCount(_) => BitFunction::CountOnes,
        }
    }

    /// Whether it shifts A's elements by B's: B's buffer holds shift amounts, mostly in range.
    pub(crate) fn shift(self) -> bool {
        matches!(
            self.function(),
            BitFunction::ShiftLeft | BitFunction::ShiftRight | BitFunction::ShiftRightArithmetic
        )
    }

    /// The operator's name in group names and tables.
    pub fn name(self) -> &'static str {
        match self {
            Op::BitXor => "bit_xor",
            Op::LogicalXor => "logical_xor",
            Op::BitwiseXor => "bitwise_xor",
            // The rest by the name of their one-call form, from the operator table.
            Op::Dml(op) => op.operator().spec().call,
            Op::DmlNot(op) => op.operator().spec().call,
            Op::Ov(op) => op.operator().spec().call,
            Op::OvNot(op) => op.operator().spec().call,
            Op::BitCount(_) => DmlUnaryOp::BitCount.operator().spec().call,
        }
    }

    /// How many inputs it reads.
    pub fn inputs(self) -> u64 {
        match self {
            Op::DmlNot(_) | Op::OvNot(_) | Op::BitCount(_) => 1,
            _ => 2,
        }
    }

    /// The output's type on inputs of `data_type`: theirs, but for `BIT_COUNT`.
    pub fn output_type(self, data_type: DataType) -> DataType {
        match self {
            Op::BitCount(output) => output,
            _ => data_type,
        }
    }

    /// The type of a case of it on inputs of `data_type` in tables and suites: the type, or
    /// `input -> output` for `BIT_COUNT` (`u64 -> u8`), whose output has a type of its own.
    pub fn type_name(self, data_type: DataType) -> String {
        match self {
            Op::BitCount(output) => format!("{data_type} -> {output}"),
            _ => data_type.to_string(),
        }
    }

    /// Whether it is an OpenVINO operation (dense tensors, broadcast by shape).
    pub(crate) fn openvino(self) -> bool {
        matches!(self, Op::BitwiseXor | Op::Ov(_) | Op::OvNot(_))
    }

    /// The XOR operator of the same standard and kind (bitwise or logical), whose speed this
    /// one's is compared with.
    pub(crate) fn xor_twin(self) -> Op {
        match self {
            Op::BitwiseXor | Op::Ov(_) | Op::OvNot(_) => Op::BitwiseXor,
            Op::LogicalXor => Op::LogicalXor,
            Op::Dml(f) if f.function().logical => Op::LogicalXor,
            Op::DmlNot(f) if f.function().logical => Op::LogicalXor,
            _ => Op::BitXor,
        }
    }
}

/// The element counts of a case: `n` elements of `w` bytes; for the 2-D paths a square-ish
/// shape, rows of 4096 elements where possible, and a square of `side`.
struct Dims {
    w: u64,
    n: u64,
    cols: u64,
    rows: u64,
    side: u64,
    /// Sides of the 3-D, 4-D and 5-D cubes.
    cube3: u64,
    cube4: u64,
    cube5: u64,
}

/// The largest `s` with `s^rank <= n`.
fn root(n: u64, rank: u32) -> u64 {
    let mut s = (n as f64).powf(1.0 / f64::from(rank)).round() as u64 + 1;
    while s > 1 && s.pow(rank) > n {
        s -= 1;
    }
    s.max(1)
}

impl Dims {
    fn new(data_type: DataType, bytes: u64) -> Dims {
        let w = u64::from(data_type.size_in_bytes());
        let n = bytes / w;
        let cols = if n >= 4096 * 4 {
            4096
        } else {
            (n as f64).sqrt().max(1.0) as u64
        };
        Dims {
            w,
            n,
            cols,
            rows: (n / cols).max(1),
            side: (n as f64).sqrt().max(1.0) as u64,
            cube3: root(n, 3),
            cube4: root(n, 4),
            cube5: root(n, 5),
        }
    }
}

/// One benchmark case, ready to record.
pub struct Case {
    pub(crate) op: Op,
    pub(crate) path: Path,
    pub(crate) data_type: DataType,
    /// The bytes per operand asked of [`Case::new`] (`bytes` holds the case's own).
    asked: u64,
    /// Bytes of one operand of the inputs' type over the output's elements (the output's
    /// bytes but for `BIT_COUNT`, whose size is its input's).
    pub(crate) bytes: u64,
    /// Bytes read plus bytes written by one call.
    pub(crate) traffic: u64,
    buffers: Vec<wgpu::Buffer>,
    ranges: [(usize, u64, u64); 3],
    compiled: Compiled,
    layout: PlainLayout,
}

/// A case's compiled operator, of whichever type its [`Op`] has.
enum Compiled {
    Bit(DmlBinary),
    Logical(DmlBinary),
    Bitwise(OvBinary),
    DmlBinary(DmlBinary),
    DmlUnary(DmlUnary),
    OvBinary(OvBinary),
    OvUnary(OvUnary),
}

/// `$body` with `$op` bound to the compiled operator of any kind.
macro_rules! each {
    ($compiled:expr, |$op:ident| $body:expr) => {
        match $compiled {
            Compiled::Bit($op) => $body,
            Compiled::Logical($op) => $body,
            Compiled::Bitwise($op) => $body,
            Compiled::DmlBinary($op) => $body,
            Compiled::DmlUnary($op) => $body,
            Compiled::OvBinary($op) => $body,
            Compiled::OvUnary($op) => $body,
        }
    };
}

impl Case {
    /// Builds a case of about `bytes` bytes per operand.
    pub fn new(ctx: &Context, op: Op, path: Path, data_type: DataType, bytes: u64) -> Case {
        Case::build(ctx, op, path, data_type, bytes, None)
    }

    /// The same case on another context of the same device (another kernel tuning), its
    /// operator made on `ctx` and its buffers this case's own, not copies: the same bytes,
    /// no more memory.
    pub fn twin(&self, ctx: &Context) -> Case {
        Case::build(
            ctx,
            self.op,
            self.path,
            self.data_type,
            self.asked,
            Some(&self.buffers),
        )
    }

    /// The case's compiled operator, for `Context::warm_up` and `Context::tune`.
    pub fn operator(&self) -> &dyn CompiledOperator {
        each!(&self.compiled, |op| op as &dyn CompiledOperator)
    }

    /// [`Case::new`], on `shared` buffers where given (a [`Case::twin`]).
    fn build(
        ctx: &Context,
        op: Op,
        path: Path,
        data_type: DataType,
        bytes: u64,
        shared: Option<&[wgpu::Buffer]>,
    ) -> Case {
        let Dims {
            w,
            n,
            cols,
            rows,
            side,
            cube3,
            cube4,
            cube5,
        } = Dims::new(data_type, bytes);
        let t = |sizes: &[u64]| {
            TensorDesc::new(
                data_type,
                &sizes.iter().map(|&s| s as u32).collect::<Vec<_>>(),
            )
        };
        let slice_stride = SLICE_OFFSET / w + cols + SLICE_AFTER;
        let (a, b, out, shape_elems) = match path {
            Path::Contiguous | Path::InPlace => (t(&[n]), t(&[n]), t(&[n]), n),
            Path::BroadcastRow => (
                t(&[rows, cols]),
                t(&[rows, cols]).with_strides(&[0, 1]),
                t(&[rows, cols]),
                rows * cols,
            ),
            Path::BroadcastColumn => (
                t(&[rows, cols]),
                t(&[rows, cols]).with_strides(&[1, 0]),
                t(&[rows, cols]),
                rows * cols,
            ),
            Path::BroadcastScalar => (t(&[n]), t(&[n]).with_strides(&[0]), t(&[n]), n),
            Path::Transposed => (
                t(&[side, side]).with_strides(&[1, side as u32]),
                t(&[side, side]),
                t(&[side, side]),
                side * side,
            ),
            Path::PaddedOutput => (
                t(&[rows, cols]),
                t(&[rows, cols]),
                t(&[rows, cols]).with_strides(&[cols as u32 + 1, 1]),
                rows * cols,
            ),
            Path::SlicedOutput => (
                t(&[rows, cols]),
                t(&[rows, cols]),
                t(&[rows, cols]).with_strides(&[slice_stride as u32, 1]),
                rows * cols,
            ),
            Path::TransposedOutput => (
                t(&[side, side]),
                t(&[side, side]),
                t(&[side, side]).with_strides(&[1, side as u32]),
                side * side,
            ),
            Path::Permuted3
            | Path::Permuted3Inner
            | Path::Permuted4
            | Path::Permuted4Channels
            | Path::Permuted3Reversed
            | Path::Permuted4Reversed
            | Path::Permuted5Reversed => {
                let r = axes(path).len();
                let n = match r {
                    3 => cube3,
                    4 => cube4,
                    _ => cube5,
                };
                let shape = vec![n; r];
                (
                    t(&shape).with_strides(&permuted_strides(n, axes(path))),
                    t(&shape),
                    t(&shape),
                    n.pow(r as u32),
                )
            }
            Path::BatchedTransposes => {
                let m = batched_matrices(n);
                let side = BATCHED_SIDE as u32;
                let shape = [m, BATCHED_SIDE, BATCHED_SIDE];
                (
                    t(&shape).with_strides(&[side * side, 1, side]),
                    t(&shape),
                    t(&shape),
                    m * BATCHED_SIDE * BATCHED_SIDE,
                )
            }
            Path::DepthToSpace => {
                let input = depth_to_space_input(n);
                let mut packed = [1u64; 5];
                for d in (0..4).rev() {
                    packed[d] = packed[d + 1] * input[d + 1];
                }
                let shape: Vec<u64> = axes(path).iter().map(|&k| input[k]).collect();
                let strides: Vec<u32> = axes(path).iter().map(|&k| packed[k] as u32).collect();
                (
                    t(&shape).with_strides(&strides),
                    t(&shape),
                    t(&shape),
                    input.iter().product(),
                )
            }
            Path::PermutedOutput => {
                let shape = [cube3; 3];
                (
                    t(&shape),
                    t(&shape),
                    t(&shape).with_strides(&permuted_strides(cube3, axes(path))),
                    cube3.pow(3),
                )
            }
            Path::SteppedInput => (
                t(&[n / 2]).with_strides(&[2]),
                t(&[n / 2]),
                t(&[n / 2]),
                n / 2,
            ),
            Path::SteppedOutput => (
                t(&[n / 2]),
                t(&[n / 2]),
                t(&[n / 2]).with_strides(&[2]),
                n / 2,
            ),
            Path::ShortRows => {
                let rows = n / 5;
                (
                    t(&[rows, 3]),
                    t(&[rows, 3]),
                    t(&[rows, 3]).with_strides(&[5, 1]),
                    rows * 3,
                )
            }
        };
        // A NOT or BIT_COUNT reads one input, A: on the broadcast paths it is the broadcast
        // operand.
        let (a, b) =
            if op.inputs() == 1 && matches!(path, Path::BroadcastRow | Path::BroadcastScalar) {
                (b, a)
            } else {
                (a, b)
            };
        // BIT_COUNT's output has a type of its own, its elements and strides A's.
        let out = TensorDesc {
            data_type: op.output_type(data_type),
            ..out
        };
        let size = |d: &TensorDesc| d.total_size().expect("size");
        let compiled = match op {
            Op::BitXor => Compiled::Bit(
                DmlBinary::new(ctx, &BitXorDesc::new(a.clone(), b.clone(), out.clone()))
                    .expect("desc"),
            ),
            Op::LogicalXor => Compiled::Logical(
                DmlBinary::new(ctx, &LogicalXorDesc::new(a.clone(), b.clone(), out.clone()))
                    .expect("desc"),
            ),
            Op::Dml(f) => Compiled::DmlBinary(
                DmlBinary::new(
                    ctx,
                    &DmlBinaryDesc::new(f, a.clone(), b.clone(), out.clone()),
                )
                .expect("desc"),
            ),
            Op::DmlNot(f) => Compiled::DmlUnary(
                DmlUnary::new(ctx, &DmlUnaryDesc::new(f, a.clone(), out.clone())).expect("desc"),
            ),
            Op::BitCount(_) => Compiled::DmlUnary(
                DmlUnary::new(
                    ctx,
                    &DmlUnaryDesc::new(DmlUnaryOp::BitCount, a.clone(), out.clone()),
                )
                .expect("desc"),
            ),
            Op::BitwiseXor | Op::Ov(_) | Op::OvNot(_) => {
                let shape: Vec<usize> = a.sizes.iter().map(|&s| s as usize).collect();
                let b_shape = match path {
                    Path::BroadcastRow => vec![cols as usize],
                    Path::BroadcastColumn => vec![rows as usize, 1],
                    Path::BroadcastScalar => vec![1],
                    _ => shape.clone(),
                };
                let f = match op {
                    Op::Ov(f) => f,
                    _ => OvBinaryOp::BitwiseXor,
                };
                let desc = OvBinaryDesc::new(f, data_type, &shape, &b_shape)
                    .with_broadcast(AutoBroadcast::Numpy);
                match op {
                    Op::BitwiseXor => Compiled::Bitwise(
                        OvBinary::new(
                            ctx,
                            &BitwiseXorDesc::new(data_type, &shape, &b_shape)
                                .with_broadcast(AutoBroadcast::Numpy),
                        )
                        .expect("desc"),
                    ),
                    Op::OvNot(f) => Compiled::OvUnary(
                        OvUnary::new(ctx, &OvUnaryDesc::new(f, data_type, &shape)).expect("desc"),
                    ),
                    _ => Compiled::OvBinary(OvBinary::new(ctx, &desc).expect("desc")),
                }
            }
        };
        let b_bytes = match path {
            Path::BroadcastRow => cols * w,
            Path::BroadcastColumn => rows * w,
            Path::BroadcastScalar => w,
            _ => size(&b),
        };
        let out_offset = if path == Path::SlicedOutput {
            SLICE_OFFSET
        } else {
            0
        };
        let buffers = match shared {
            Some(buffers) => buffers.to_vec(),
            None => vec![
                storage(ctx, size(&a), 1),
                if op.shift() {
                    shift_amounts(ctx, b_bytes.max(16), 2, w)
                } else {
                    storage(ctx, b_bytes.max(16), 2)
                },
                storage(ctx, out_offset + size(&out), 3),
            ],
        };
        let out_slot = if path == Path::InPlace { 0 } else { 2 };
        let ranges = [
            (0, 0, size(&a)),
            (1, 0, b_bytes.max(4).div_ceil(4) * 4),
            (out_slot, out_offset, size(&out)),
        ];
        debug_assert_eq!(shape_elems, Case::elements(path, data_type, bytes));
        let layout = PlainLayout {
            width: w,
            sizes: out.sizes.iter().map(|&x| u64::from(x)).collect(),
            strides: [
                a.effective_strides(),
                b.effective_strides(),
                out.effective_strides(),
            ],
            base: [0, 0, out_offset / w],
        };
        Case {
            op,
            path,
            data_type,
            asked: bytes,
            bytes: shape_elems * w,
            traffic: Case::traffic(op, path, data_type, bytes),
            buffers,
            ranges,
            compiled,
            layout,
        }
    }

    /// The plain strided kernel over this case's buffers and layout (the output bound whole,
    /// so the layout's base places it): [`PlainStrided`]; `None` where a buffer is larger than
    /// one storage binding may be on the device.
    pub fn plain(&self, ctx: &Context) -> Option<PlainStrided> {
        let out = &self.buffers[self.ranges[2].0];
        PlainStrided::new(ctx, &self.layout, [&self.buffers[0], &self.buffers[1], out])
    }

    /// The bytes of the output's bound range after one call of the library and after one call
    /// of `plain` (the output refilled in between, so that a byte either leaves alone differs):
    /// the check that the baseline does the case's work.
    pub(crate) fn outputs(&self, ctx: &Context, plain: &PlainStrided) -> (Vec<u8>, Vec<u8>) {
        (
            self.output(ctx),
            self.output_after(ctx, &|e| plain.record(e, 1)),
        )
    }

    /// The bytes of the output's bound range after one call of the library (the output
    /// refilled first).
    pub(crate) fn output(&self, ctx: &Context) -> Vec<u8> {
        self.output_after(ctx, &|e| {
            self.record_summary(e);
        })
    }

    /// The bytes of the output's bound range after the output is refilled and `record` runs.
    fn output_after(&self, ctx: &Context, record: &dyn Fn(&mut wgpu::CommandEncoder)) -> Vec<u8> {
        let (slot, offset, size) = self.ranges[2];
        let fill = storage(ctx, self.buffers[slot].size(), 99);
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&fill, 0, &self.buffers[slot], 0, fill.size());
        record(&mut encoder);
        ctx.queue().submit([encoder.finish()]);
        read(ctx, &self.buffers[slot], offset, size)
    }

    /// For a `BIT_COUNT` case, the bits set in each element of A that each output element
    /// reads (row-major over the output's elements), and the output's elements after one
    /// call: the check that the case counts bits where its layouts say.
    #[cfg(test)]
    pub(crate) fn bit_counts(&self, ctx: &Context) -> (Vec<u64>, Vec<u64>) {
        let Op::BitCount(out_type) = self.op else {
            panic!("{} is not BIT_COUNT", self.op.name());
        };
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        self.record_summary(&mut encoder);
        ctx.queue().submit([encoder.finish()]);
        let out = &self.buffers[self.ranges[2].0];
        let (input, output) = (
            read(ctx, &self.buffers[0], 0, self.buffers[0].size()),
            read(ctx, out, 0, out.size()),
        );
        let element = |bytes: &[u8], i: u64, w: u64| {
            let (at, w) = ((i * w) as usize, w as usize);
            let mut le = [0u8; 8];
            le[..w].copy_from_slice(&bytes[at..at + w]);
            u64::from_le_bytes(le)
        };
        let l = &self.layout;
        let out_w = u64::from(out_type.size_in_bytes());
        let (mut want, mut got) = (Vec::new(), Vec::new());
        for i in 0..l.sizes.iter().product::<u64>() {
            let (mut rest, mut a_at, mut out_at) = (i, l.base[0], l.base[2]);
            for k in (0..l.sizes.len()).rev() {
                let index = rest % l.sizes[k];
                rest /= l.sizes[k];
                a_at += index * l.strides[0][k];
                out_at += index * l.strides[2][k];
            }
            want.push(u64::from(element(&input, a_at, l.width).count_ones()));
            got.push(element(&output, out_at, out_w));
        }
        (want, got)
    }

    /// The output's elements in the case [`Case::new`] builds from these arguments.
    fn elements(path: Path, data_type: DataType, bytes: u64) -> u64 {
        let d = Dims::new(data_type, bytes);
        match path {
            Path::Contiguous | Path::InPlace | Path::BroadcastScalar => d.n,
            Path::BroadcastRow
            | Path::BroadcastColumn
            | Path::PaddedOutput
            | Path::SlicedOutput => d.rows * d.cols,
            Path::Transposed | Path::TransposedOutput => d.side * d.side,
            Path::Permuted3
            | Path::Permuted3Inner
            | Path::Permuted3Reversed
            | Path::PermutedOutput => d.cube3.pow(3),
            Path::Permuted4 | Path::Permuted4Channels | Path::Permuted4Reversed => d.cube4.pow(4),
            Path::Permuted5Reversed => d.cube5.pow(5),
            Path::BatchedTransposes => batched_matrices(d.n) * BATCHED_SIDE * BATCHED_SIDE,
            Path::DepthToSpace => depth_to_space_input(d.n).iter().product(),
            Path::SteppedInput | Path::SteppedOutput => d.n / 2,
            Path::ShortRows => d.n / 5 * 3,
        }
    }

    /// The bytes read plus bytes written by one call of the case [`Case::new`] builds from
    /// these arguments, known without making it: the inputs at their width, the output at its
    /// own (`BIT_COUNT`'s may be narrower or wider); an operator of one input (a NOT,
    /// `BIT_COUNT`) reads only the broadcast operand on a broadcast path, A elsewhere.
    pub fn traffic(op: Op, path: Path, data_type: DataType, bytes: u64) -> u64 {
        let elems = Case::elements(path, data_type, bytes);
        let d = Dims::new(data_type, bytes);
        let w = u64::from(data_type.size_in_bytes());
        let out = elems * u64::from(op.output_type(data_type).size_in_bytes());
        let broadcast_read = match path {
            Path::BroadcastRow => d.cols * w,
            Path::BroadcastColumn => d.rows * w,
            Path::BroadcastScalar => w,
            _ => elems * w,
        };
        if op.inputs() == 1 {
            broadcast_read + out
        } else {
            elems * w + broadcast_read + out
        }
    }

    /// The bindings of one call.
    fn bindings(&self) -> Bindings<'_> {
        let b = |i: usize| {
            let (buf, off, size) = self.ranges[i];
            TensorBinding::range(&self.buffers[buf], off, size)
        };
        if self.op.inputs() == 1 {
            Bindings::unary(b(0), b(2))
        } else {
            Bindings::new(b(0), b(1), b(2))
        }
    }

    /// Records one call; returns what it recorded.
    pub(crate) fn record_summary(
        &self,
        encoder: &mut wgpu::CommandEncoder,
    ) -> gpu_xor::inspect::RecordSummary {
        let bindings = self.bindings();
        each!(&self.compiled, |op| op.record(encoder, &bindings)).expect("record")
    }

    /// Records `n` calls through one batch (one metadata buffer per 1,024 calls; the calls all
    /// write the same output, so each keeps a dispatch of its own).
    pub fn record_many(&self, ctx: &Context, encoder: &mut wgpu::CommandEncoder, n: u64) {
        let bindings = self.bindings();
        let mut batch = ctx.batch();
        for _ in 0..n {
            each!(&self.compiled, |op| batch.push(op, &bindings)).expect("push");
        }
        batch.record(encoder).expect("record");
    }
}

/// The kernels a recorded call runs, as the tables name them: each kernel once, in the
/// order of its dispatches, and the number of dispatches (`Tile x1`, `Rows+Gather x3`).
pub(crate) fn kernel_names(summary: &gpu_xor::inspect::RecordSummary) -> String {
    let mut kernels: Vec<String> = summary
        .dispatches
        .iter()
        .map(|k| format!("{k:?}"))
        .collect();
    kernels.dedup();
    format!("{} x{}", kernels.join("+"), summary.dispatches.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shifts are the shifts-and-count section's, and none is in the AND/OR/NOT section's.
    #[test]
    fn the_shifts_are_apart_from_and_or_not() {
        assert_eq!(
            Op::shifts(),
            [
                Op::Dml(DmlBinaryOp::BitShiftLeft),
                Op::Dml(DmlBinaryOp::BitShiftRight),
                Op::Ov(OvBinaryOp::BitwiseLeftShift),
                Op::Ov(OvBinaryOp::BitwiseRightShift),
            ]
        );
        let others = Op::and_or_not();
        assert!(others.iter().all(|op| !op.shift()), "{others:?}");
        assert!(others.contains(&Op::Dml(DmlBinaryOp::BitAnd)));
        assert!(others.contains(&Op::OvNot(OvUnaryOp::BitwiseNot)));
    }
}
