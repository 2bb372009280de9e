//! OpenVINO calls as data (any operation of the table, [`crate::OPENVINO`]): packed inputs at
//! offsets of buffers of random bytes, the output in a buffer of its own or on exactly A's
//! range, and what every buffer must hold after the call by the CPU reference. The native test suite and the browser suite run the
//! same cases, each with its own way of waiting.

use crate::{OutputLayout, random_bytes, shift_amounts};
use gpu_xor::desc::OperatorGroup;
use gpu_xor::{
    AutoBroadcast, Bindings, Context, DataType, Error, Input, Operator, OvBinary, OvBinaryDesc,
    OvUnary, OvUnaryDesc,
};

use crate::engine::AnyOperator;
use crate::operators::OperatorExt;

/// The compiled OpenVINO operation `op` (a one-input operation takes A's type and shape),
/// made from its group's description (`BitwiseXorDesc`, a thin constructor of
/// [`OvBinaryDesc`], has tests of its own).
///
/// # Panics
///
/// Where `op` is not an OpenVINO operation.
pub fn operator(
    op: Operator,
    ctx: &Context,
    data_type: DataType,
    a_shape: &[usize],
    b_shape: &[usize],
    broadcast: AutoBroadcast,
) -> Result<AnyOperator, Error> {
    Ok(match op.group() {
        OperatorGroup::OvBinaryOp(op) => OvBinary::new(
            ctx,
            &OvBinaryDesc::new(op, data_type, a_shape, b_shape).with_broadcast(broadcast),
        )?
        .into(),
        OperatorGroup::OvUnaryOp(op) => {
            OvUnary::new(ctx, &OvUnaryDesc::new(op, data_type, a_shape))?.into()
        }
        _ => panic!("{op} is not an OpenVINO operation"),
    })
}

/// The output shape and packed bytes of the OpenVINO operation `op` by the reference.
///
/// # Panics
///
/// Where `op` is not an OpenVINO operation.
pub fn reference(
    op: Operator,
    data_type: DataType,
    (a_shape, a): (&[usize], &[u8]),
    (b_shape, b): (&[usize], &[u8]),
    broadcast: AutoBroadcast,
) -> Result<(Vec<usize>, Vec<u8>), Error> {
    match op.group() {
        OperatorGroup::OvBinaryOp(op) => {
            gpu_xor::reference::ov_binary(op, data_type, a_shape, a, b_shape, b, broadcast)
        }
        OperatorGroup::OvUnaryOp(op) => gpu_xor::reference::ov_unary(op, data_type, a_shape, a)
            .map(|out| (a_shape.to_vec(), out)),
        _ => panic!("{op} is not an OpenVINO operation"),
    }
}

/// A BitwiseXor-13 call: packed inputs bound at offsets of buffers of random bytes, the output
/// in a buffer of its own (or on exactly A's range, in place).
#[derive(Clone, Debug)]
pub struct OvCase {
    /// The operation.
    pub op: Operator,
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
            op: Operator::BitwiseXor,
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
    pub fn with_op(mut self, op: Operator) -> OvCase {
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
        operator(
            self.op,
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
        let (shape, want) = reference(
            self.op,
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
