//! OpenVINO calls (BitwiseXor-13 and its family) as data: packed inputs at offsets of buffers of random bytes,
//! the output in a buffer of its own or on exactly A's range, and what every buffer must hold
//! after the call by the CPU reference. The native test suite and the browser suite run the
//! same cases, each with its own way of waiting.

use gpu_xor::desc::{OperatorGroup, Standard};
use gpu_xor::{
    AutoBroadcast, Bindings, BitwiseXor, BitwiseXorDesc, Context, DataType, Error, Input, Operator,
    OvBinary, OvBinaryDesc, OvBinaryOp, OvUnary, OvUnaryDesc, OvUnaryOp,
};
use gpu_xor_testkit::{OutputLayout, random_bytes, shift_amounts};

use crate::engine::AnyOperator;

/// How many OpenVINO operations the operator table has.
const OV_OPERATORS: usize = Operator::count_of(Standard::OpenVino);

/// Which OpenVINO operation a case runs. BitwiseXor-13 is made from its own description
/// ([`BitwiseXorDesc`], a thin constructor of [`OvBinaryDesc`]), so that path is run too; the
/// rest from their group's ([`OvBinaryDesc`], [`OvUnaryDesc`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OvOp {
    /// BitwiseXor-13 from a [`BitwiseXorDesc`].
    BitwiseXor,
    /// An operation of two inputs through [`OvBinary`].
    Binary(OvBinaryOp),
    /// An operation of one input through [`OvUnary`]: A is its input, B is not bound.
    Unary(OvUnaryOp),
}

impl OvOp {
    /// Every OpenVINO operation of the operator table once, in the table's order,
    /// BitwiseXor-13 through its own description.
    pub const ALL: [OvOp; OV_OPERATORS] = {
        let mut all = [OvOp::BitwiseXor; OV_OPERATORS];
        let (mut i, mut k) = (0, 0);
        while i < Operator::ALL.len() {
            if let Some(op) = OvOp::of(Operator::ALL[i]) {
                all[k] = op;
                k += 1;
            }
            i += 1;
        }
        all
    };

    /// How a case of `operator` runs, if it is an OpenVINO operation.
    pub const fn of(operator: Operator) -> Option<OvOp> {
        match operator.group() {
            OperatorGroup::OvBinaryOp(OvBinaryOp::BitwiseXor) => Some(OvOp::BitwiseXor),
            OperatorGroup::OvBinaryOp(op) => Some(OvOp::Binary(op)),
            OperatorGroup::OvUnaryOp(op) => Some(OvOp::Unary(op)),
            _ => None,
        }
    }

    /// How many inputs it takes.
    pub fn inputs(self) -> usize {
        match self {
            OvOp::Unary(_) => 1,
            _ => 2,
        }
    }

    /// Its row of the operator table.
    pub const fn table_operator(self) -> Operator {
        match self {
            OvOp::BitwiseXor => Operator::BitwiseXor,
            OvOp::Binary(op) => op.operator(),
            OvOp::Unary(op) => op.operator(),
        }
    }

    /// Whether it takes `data_type`.
    pub fn takes(self, data_type: DataType) -> bool {
        gpu_xor::desc::min_feature_level(self.table_operator(), data_type).is_some()
    }

    /// Whether its function is a shift (its B holds amounts).
    pub fn shifts(self) -> bool {
        !self.table_operator().spec().function.is_word_wide()
    }

    /// Whether it takes `boolean` only (the `Logical*-1` operations).
    pub fn boolean_only(self) -> bool {
        match self {
            OvOp::BitwiseXor => false,
            OvOp::Binary(op) => op.boolean_only(),
            OvOp::Unary(op) => op.boolean_only(),
        }
    }

    /// The compiled operation (a one-input operation takes A's type and shape).
    pub fn operator(
        self,
        ctx: &Context,
        data_type: DataType,
        a_shape: &[usize],
        b_shape: &[usize],
        broadcast: AutoBroadcast,
    ) -> Result<AnyOperator, Error> {
        Ok(match self {
            OvOp::BitwiseXor => BitwiseXor::new(
                ctx,
                &BitwiseXorDesc::new(data_type, a_shape, b_shape).with_broadcast(broadcast),
            )?
            .into(),
            OvOp::Binary(op) => OvBinary::new(
                ctx,
                &OvBinaryDesc::new(op, data_type, a_shape, b_shape).with_broadcast(broadcast),
            )?
            .into(),
            OvOp::Unary(op) => OvUnary::new(ctx, &OvUnaryDesc::new(op, data_type, a_shape))?.into(),
        })
    }

    /// The output shape and packed bytes by the reference.
    pub fn reference(
        self,
        data_type: DataType,
        (a_shape, a): (&[usize], &[u8]),
        (b_shape, b): (&[usize], &[u8]),
        broadcast: AutoBroadcast,
    ) -> Result<(Vec<usize>, Vec<u8>), Error> {
        match self {
            OvOp::BitwiseXor => {
                gpu_xor::reference::bitwise_xor(data_type, a_shape, a, b_shape, b, broadcast)
            }
            OvOp::Binary(op) => {
                gpu_xor::reference::ov_binary(op, data_type, a_shape, a, b_shape, b, broadcast)
            }
            OvOp::Unary(op) => gpu_xor::reference::ov_unary(op, data_type, a_shape, a)
                .map(|out| (a_shape.to_vec(), out)),
        }
    }
}

/// A BitwiseXor-13 call: packed inputs bound at offsets of buffers of random bytes, the output
/// in a buffer of its own (or on exactly A's range, in place).
#[derive(Clone, Debug)]
pub struct OvCase {
    /// The operation.
    pub op: OvOp,
    /// The type of A, B and the output.
    pub data_type: DataType,
    /// A's shape.
    pub a_shape: Vec<usize>,
    /// B's shape.
    pub b_shape: Vec<usize>,
    /// A's packed bytes.
    pub a: Vec<u8>,
    /// B's packed bytes.
    pub b: Vec<u8>,
    /// `auto_broadcast`.
    pub broadcast: AutoBroadcast,
    /// Byte offsets of A, B and the output in their buffers.
    pub offsets: [u64; 3],
    /// Bind the output to exactly A's range (in place; the output shape must be A's).
    pub out_on_a: bool,
}

/// Everything a harness needs to run an [`OvCase`] and check it.
#[derive(Clone, Debug)]
pub struct OvRun {
    /// The output shape, by the reference.
    pub shape: Vec<usize>,
    /// Each buffer's name (`a=out` when the output is on A).
    pub names: Vec<String>,
    /// Each buffer's bytes before the call.
    pub host: Vec<Vec<u8>>,
    /// A's, B's and the output's bindings: (buffer, byte offset, bytes).
    pub ranges: [(usize, u64, u64); 3],
    /// Each buffer's bytes after the call.
    pub expected: Vec<Vec<u8>>,
    /// Where the output's elements sit.
    pub layout: OutputLayout,
}

impl OvCase {
    /// Random inputs of the given shapes; booleans are mostly 0 and 1, with some other
    /// nonzero bytes that must read as true.
    pub fn new(
        data_type: DataType,
        a_shape: &[usize],
        b_shape: &[usize],
        broadcast: AutoBroadcast,
        seed: u64,
    ) -> OvCase {
        let width = data_type.size_in_bytes() as usize;
        let bytes = |s: &[usize]| s.iter().product::<usize>() * width;
        let mut a = random_bytes(seed, bytes(a_shape));
        let mut b = random_bytes(seed ^ 0x7777, bytes(b_shape));
        if data_type == DataType::Bool {
            for (i, x) in a.iter_mut().chain(b.iter_mut()).enumerate() {
                *x = match *x % 8 {
                    0..=2 => 0,
                    3..=5 => 1,
                    _ => (*x | 4) & if i % 2 == 0 { 0xff } else { 0x86 },
                };
            }
        }
        OvCase {
            op: OvOp::BitwiseXor,
            data_type,
            a_shape: a_shape.to_vec(),
            b_shape: b_shape.to_vec(),
            a,
            b,
            broadcast,
            offsets: [16, 32, 48],
            out_on_a: false,
        }
    }

    /// The same case run by another operation (a one-input operation reads A alone); for a
    /// shift, B's bytes become mostly shift amounts, so that its shifts are mostly in range.
    pub fn with_op(mut self, op: OvOp) -> OvCase {
        if op.shifts() && !self.op.shifts() {
            let width = u64::from(self.data_type.size_in_bytes());
            let seed = self.b.len() as u64;
            shift_amounts(&mut self.b, width, seed);
        }
        self.op = op;
        self
    }

    /// The compiled operation on `ctx`.
    pub fn operator(&self, ctx: &Context) -> Result<AnyOperator, Error> {
        self.op.operator(
            ctx,
            self.data_type,
            &self.a_shape,
            &self.b_shape,
            self.broadcast,
        )
    }

    /// The bindings of `run` on `gpu`: B unbound for a one-input operation.
    pub fn bindings<'a>(&self, run: &OvRun, gpu: &'a [wgpu::Buffer]) -> Bindings<'a> {
        let mut bindings = crate::engine::bindings(gpu, run.ranges);
        if self.op.inputs() == 1 {
            bindings.b = Input::Absent;
        }
        bindings
    }

    /// The buffers, bindings and expected images of the call (panics if the reference refuses
    /// the shapes: a case is a valid call).
    pub fn prepare(&self) -> OvRun {
        let (shape, want) = self
            .op
            .reference(
                self.data_type,
                (&self.a_shape, &self.a),
                (&self.b_shape, &self.b),
                self.broadcast,
            )
            .unwrap_or_else(|e| panic!("reference: {e}\n{self:?}"));
        let pad4 = |n: usize| n.next_multiple_of(4);
        let room = pad4(self.a.len().max(self.b.len()).max(want.len())) + 40;
        let host: Vec<Vec<u8>> = [(&self.a, 0), (&self.b, 1), (&Vec::new(), 2)]
            .into_iter()
            .map(|(data, k)| {
                let at = self.offsets[k] as usize;
                let mut bytes = random_bytes(0xB0 + k as u64, at + room);
                bytes[at..at + data.len()].copy_from_slice(data);
                bytes
            })
            .collect();
        let (out_buffer, out_offset) = if self.out_on_a {
            (0, self.offsets[0])
        } else {
            (2, self.offsets[2])
        };
        let names = if self.out_on_a {
            ["a=out", "b", "unused"]
        } else {
            ["a", "b", "out"]
        }
        .map(String::from)
        .to_vec();
        let width = self.data_type.size_in_bytes() as usize;
        let bound = |s: &[usize]| pad4(s.iter().product::<usize>() * width) as u64;
        let ranges = [
            (0, self.offsets[0], bound(&self.a_shape)),
            (1, self.offsets[1], bound(&self.b_shape)),
            (out_buffer, out_offset, bound(&shape)),
        ];
        let mut expected = host.clone();
        let at = out_offset as usize;
        expected[out_buffer][at..at + want.len()].copy_from_slice(&want);
        let sizes: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
        let layout = OutputLayout::packed(out_buffer, out_offset, width as u64, &sizes);
        OvRun {
            shape,
            names,
            host,
            ranges,
            expected,
            layout,
        }
    }

    /// The case, for failure messages.
    pub fn describe(&self) -> String {
        format!(
            "{:?} {} {:?} x {:?} ({})",
            self.op, self.data_type, self.a_shape, self.b_shape, self.broadcast
        )
    }
}
