//! DirectML calls as data: three descriptions, where each tensor is bound, the bytes of every
//! buffer before the call, and what every buffer must hold after it by the CPU reference.
//! The native test suite and the browser suite run the same cases, each with its own way of
//! waiting (blocking or `async`).
//!
//! An input whose description is flagged [`TensorFlags::OwnedByDml`] belongs to the operator:
//! [`DmlCase::operator_owning`] copies it from its place when the operator is made, and
//! [`DmlCase::bindings`] leaves it unbound, as DirectML binds such a tensor at initialization
//! and not at execution.

use crate::{OutputLayout, random_bytes, shift_amounts};
use gpu_xor::desc::OperatorGroup;
use gpu_xor::inspect::RecordSummary;
use gpu_xor::reference::{StridedView, StridedViewMut};
use gpu_xor::{
    Batch, Bindings, Context, DataType, DmlBinary, DmlBinaryDesc, DmlUnary, DmlUnaryDesc, Error,
    Input, Operator, OwnedInputs, TensorDesc, TensorFlags,
};

use crate::engine::{self, AnyOperator, Spoil};
use crate::operators::OperatorExt;

/// The compiled DirectML operator `op` of three descriptions on `ctx`'s feature level, made
/// from its group's description (the XOR descriptions, thin constructors of
/// [`DmlBinaryDesc`], have tests of their own): `new` when `owned` gives no input,
/// `with_owned_inputs` (which copies the given inputs) otherwise. A one-input operator takes
/// A's and the output's descriptions and ignores B's.
///
/// # Panics
///
/// Where `op` is not a DirectML operator.
pub fn operator(
    op: Operator,
    ctx: &Context,
    [a, b, out]: [TensorDesc; 3],
    owned: &OwnedInputs<'_>,
) -> Result<AnyOperator, Error> {
    let none = owned.a.is_none() && owned.b.is_none();
    Ok(match op.group() {
        OperatorGroup::DmlBinaryOp(op) => {
            let desc = DmlBinaryDesc::new(op, a, b, out);
            if none {
                DmlBinary::new(ctx, &desc)?
            } else {
                DmlBinary::with_owned_inputs(ctx, &desc, owned)?
            }
            .into()
        }
        OperatorGroup::DmlUnaryOp(op) => {
            let desc = DmlUnaryDesc::new(op, a, out);
            if none {
                DmlUnary::new(ctx, &desc)?
            } else {
                DmlUnary::with_owned_inputs(ctx, &desc, owned)?
            }
            .into()
        }
        _ => panic!("{op} is not a DirectML operator"),
    })
}

/// Validates three descriptions of the DirectML operator `op` at `level` (a one-input
/// operator ignores B's).
///
/// # Panics
///
/// Where `op` is not a DirectML operator.
pub fn validate(
    op: Operator,
    [a, b, out]: [TensorDesc; 3],
    level: gpu_xor::FeatureLevel,
) -> Result<(), Error> {
    match op.group() {
        OperatorGroup::DmlBinaryOp(op) => DmlBinaryDesc::new(op, a, b, out).validate(level),
        OperatorGroup::DmlUnaryOp(op) => DmlUnaryDesc::new(op, a, out).validate(level),
        _ => panic!("{op} is not a DirectML operator"),
    }
}

/// Which of two input descriptions (A, B) are flagged `OWNED_BY_DML`.
pub fn owned_flags(a: &TensorDesc, b: &TensorDesc) -> [bool; 2] {
    [a, b].map(|t| t.flags == TensorFlags::OwnedByDml)
}

/// Where a tensor lives: a buffer index and a byte offset in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// Index into [`DmlCase::buffers`].
    pub buffer: usize,
    /// Byte offset of the binding.
    pub offset: u64,
}

/// A [`Place`].
pub const fn place(buffer: usize, offset: u64) -> Place {
    Place { buffer, offset }
}

/// A DirectML call: three descriptions, where each tensor is bound, and the bytes every buffer
/// holds before the call (inputs, padding and sentinel alike: SplitMix64 bytes).
#[derive(Clone)]
pub struct DmlCase {
    /// The operator.
    pub op: Operator,
    /// A's description.
    pub a: TensorDesc,
    /// B's description.
    pub b: TensorDesc,
    /// The output's description.
    pub out: TensorDesc,
    /// Where A, B and the output are bound.
    pub places: [Place; 3],
    /// Every buffer's bytes before the call.
    pub buffers: Vec<Vec<u8>>,
}

impl std::fmt::Debug for DmlCase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let lens: Vec<usize> = self.buffers.iter().map(Vec::len).collect();
        f.debug_struct("DmlCase")
            .field("op", &self.op)
            .field("a", &self.a)
            .field("b", &self.b)
            .field("out", &self.out)
            .field("places", &self.places)
            .field("buffer_lengths", &lens)
            .finish()
    }
}

impl DmlCase {
    /// Three packed tensors of one type and shape in three buffers.
    pub fn packed(op: Operator, data_type: DataType, sizes: &[u32], seed: u64) -> DmlCase {
        let t = TensorDesc::new(data_type, sizes);
        DmlCase::distinct(op, t.clone(), t.clone(), t, seed)
    }

    /// Three tensors in three buffers of random bytes, each bound at byte 32 with 48 bytes
    /// after its total size.
    pub fn distinct(
        op: Operator,
        a: TensorDesc,
        b: TensorDesc,
        out: TensorDesc,
        seed: u64,
    ) -> DmlCase {
        let len = |t: &TensorDesc| {
            let total = t.total_size().expect("a valid description's size");
            (32 + total + 48).next_multiple_of(4) as usize
        };
        let mut buffers = vec![
            random_bytes(seed, len(&a)),
            random_bytes(seed ^ 0x5151, len(&b)),
            random_bytes(seed ^ 0xA5A5, len(&out)),
        ];
        if op.shifts() {
            shift_amounts(
                &mut buffers[1],
                u64::from(b.data_type.size_in_bytes()),
                seed,
            );
        }
        DmlCase {
            op,
            a,
            b,
            out,
            places: [place(0, 32), place(1, 32), place(2, 32)],
            buffers,
        }
    }

    /// The same descriptions with the tensors moved to `places` in buffers of `len` random
    /// bytes each (as many buffers as the places name).
    pub fn placed(mut self, len: usize, places: [(usize, u64); 3], seed: u64) -> DmlCase {
        let count = places.iter().map(|p| p.0).max().unwrap_or(0) + 1;
        self.buffers = (0..count)
            .map(|k| random_bytes(seed.wrapping_add(977 * k as u64), len))
            .collect();
        if self.op.shifts() && places[1].0 != places[0].0 {
            let width = u64::from(self.b.data_type.size_in_bytes());
            shift_amounts(&mut self.buffers[places[1].0], width, seed);
        }
        self.places = places.map(|(b, o)| place(b, o));
        self
    }

    /// Zeroes every byte of every buffer except one in `keep_every`, so that LOGICAL_XOR sees
    /// zeros, and nonzero values other than 1, in every lane.
    pub fn sparse(mut self, keep_every: usize) -> DmlCase {
        for buffer in &mut self.buffers {
            for (i, byte) in buffer.iter_mut().enumerate() {
                if i % keep_every != 0 {
                    *byte = 0;
                }
            }
        }
        self
    }

    /// The compiled operator, on `ctx`'s feature level, made with `new` (an input flagged
    /// `OWNED_BY_DML` makes it `owned_input_missing`: see [`DmlCase::operator_owning`]).
    pub fn operator(&self, ctx: &Context) -> Result<AnyOperator, Error> {
        operator(self.op, ctx, self.descs(), &OwnedInputs::default())
    }

    /// The compiled operator, on `ctx`'s feature level, owning the flagged inputs: each is
    /// copied from its place in `gpu` (bound as [`DmlCase::all_bindings`] binds it) by
    /// `with_owned_inputs`. With no flagged input, [`DmlCase::operator`].
    pub fn operator_owning(
        &self,
        ctx: &Context,
        gpu: &[wgpu::Buffer],
    ) -> Result<AnyOperator, Error> {
        let all = self.all_bindings(gpu);
        let [a, b] = self.owned();
        let owned = OwnedInputs {
            a: all.a.binding().filter(|_| a),
            b: all.b.binding().filter(|_| b),
        };
        operator(self.op, ctx, self.descs(), &owned)
    }

    /// The three descriptions.
    pub fn descs(&self) -> [TensorDesc; 3] {
        [self.a.clone(), self.b.clone(), self.out.clone()]
    }

    /// Which inputs (A, B) the descriptions flag `OWNED_BY_DML`.
    pub fn owned(&self) -> [bool; 2] {
        let [a, b] = owned_flags(&self.a, &self.b);
        [a, b && self.op.inputs() == 2]
    }

    /// The bindings of a call: each tensor bound at its place over its total size, cut at the
    /// buffer's end, except the inputs flagged `OWNED_BY_DML`, which the operator owns and a
    /// call leaves unbound.
    pub fn bindings<'a>(&self, gpu: &'a [wgpu::Buffer]) -> Bindings<'a> {
        let all = self.all_bindings(gpu);
        let [a, b] = self.owned();
        let unary = self.op.inputs() == 1;
        Bindings {
            a: if a { Input::Owned } else { all.a },
            b: match (unary, b) {
                (true, _) => Input::Absent,
                (false, true) => Input::Owned,
                (false, false) => all.b,
            },
            output: all.output,
        }
    }

    /// Each tensor bound at its place over its total size, cut at the buffer's end, owned or
    /// not.
    pub fn all_bindings<'a>(&self, gpu: &'a [wgpu::Buffer]) -> Bindings<'a> {
        let range = |p: Place, t: &TensorDesc| {
            let room = gpu[p.buffer].size().saturating_sub(p.offset);
            (p.buffer, p.offset, t.total_size().unwrap_or(0).min(room))
        };
        engine::bindings(
            gpu,
            [
                range(self.places[0], &self.a),
                range(self.places[1], &self.b),
                range(self.places[2], &self.out),
            ],
        )
    }

    /// Where an input's elements sit (`input` 0 is A, 1 is B).
    pub fn input_layout(&self, input: usize) -> OutputLayout {
        let (p, t) = [(self.places[0], &self.a), (self.places[1], &self.b)][input];
        OutputLayout {
            buffer: p.buffer,
            offset: p.offset,
            width: u64::from(t.data_type.size_in_bytes()),
            sizes: t.sizes.iter().map(|&s| u64::from(s)).collect(),
            strides: t.effective_strides(),
        }
    }

    /// The buffers with every buffer that holds an owned input [`engine::spoil`]ed: what to
    /// write over the caller's copies once the operator has made its own, so that a library
    /// that read them would give another answer (each input as [`Spoil::for_input`] says).
    pub fn spoiled(&self) -> Vec<Vec<u8>> {
        let owned = self.owned();
        let mut after = self.buffers.clone();
        for (k, image) in after.iter_mut().enumerate() {
            let layouts: Vec<(OutputLayout, Spoil)> = (0..2)
                .filter(|&i| owned[i] && self.places[i].buffer == k)
                .map(|i| (self.input_layout(i), Spoil::for_input(i, owned)))
                .collect();
            // A buffer that an input bound with the call reads too is left as it is.
            let read_by_call =
                (0..self.op.inputs()).any(|i| !owned[i] && self.places[i].buffer == k);
            if !layouts.is_empty() && !read_by_call {
                let inputs: Vec<(&OutputLayout, Spoil)> =
                    layouts.iter().map(|(l, how)| (l, *how)).collect();
                *image = engine::spoil(&self.buffers[k], &inputs);
            }
        }
        after
    }

    /// Every buffer after the call when the buffers held `state` at the call: the output's
    /// elements by the reference on [`DmlCase::buffers`] (the bytes the operator copied its
    /// owned inputs from), every other byte as in `state`. For calls whose bound inputs hold
    /// in `state` what they held in `buffers`, as after [`DmlCase::spoiled`].
    pub fn expected_on(&self, state: &[Vec<u8>]) -> Vec<Vec<u8>> {
        let layout = self.output_layout();
        let values = layout.read_values(&self.expected()[layout.buffer]);
        let mut after = state.to_vec();
        layout.write_values(&mut after[layout.buffer], &values);
        after
    }

    /// Where the output's elements sit.
    pub fn output_layout(&self) -> OutputLayout {
        let p = self.places[2];
        OutputLayout {
            buffer: p.buffer,
            offset: p.offset,
            width: u64::from(self.out.data_type.size_in_bytes()),
            sizes: self.out.sizes.iter().map(|&s| u64::from(s)).collect(),
            strides: self.out.effective_strides(),
        }
    }

    /// A name for each buffer: its index and the tensors bound in it (`0 (a=out)`).
    pub fn names(&self) -> Vec<String> {
        (0..self.buffers.len())
            .map(|k| {
                let held: Vec<&str> = ["a", "b", "out"]
                    .into_iter()
                    .zip(self.places)
                    .filter(|(_, p)| p.buffer == k)
                    .map(|(t, _)| t)
                    .collect();
                format!("{k} ({})", held.join("="))
            })
            .collect()
    }

    /// The case, for failure messages.
    pub fn describe(&self) -> String {
        format!(
            "case: {:?}\n  A {:?}\n  B {:?}\n  Output {:?}\n  places {:?}",
            self.op, self.a, self.b, self.out, self.places
        )
    }

    /// Every buffer after the call by the CPU reference: the inputs are read from the bytes
    /// before the call, and only the output's elements change.
    pub fn expected(&self) -> Vec<Vec<u8>> {
        let sizes: Vec<usize> = self.a.sizes.iter().map(|&s| s as usize).collect();
        let strides = |t: &TensorDesc| {
            t.strides
                .as_ref()
                .map(|s| s.iter().map(|&x| x as usize).collect::<Vec<_>>())
        };
        let (sa, sb, so) = (strides(&self.a), strides(&self.b), strides(&self.out));
        let [pa, pb, po] = self.places;
        let a = StridedView {
            bytes: &self.buffers[pa.buffer],
            data_type: self.a.data_type,
            sizes: &sizes,
            strides: sa.as_deref(),
            offset: pa.offset as usize,
        };
        let b = StridedView {
            bytes: &self.buffers[pb.buffer],
            data_type: self.b.data_type,
            sizes: &sizes,
            strides: sb.as_deref(),
            offset: pb.offset as usize,
        };
        let mut after = self.buffers.clone();
        let mut out = StridedViewMut {
            bytes: &mut after[po.buffer],
            data_type: self.out.data_type,
            sizes: &sizes,
            strides: so.as_deref(),
            offset: po.offset as usize,
        };
        match self.op.group() {
            OperatorGroup::DmlBinaryOp(op) => gpu_xor::reference::dml_binary(op, &a, &b, &mut out),
            OperatorGroup::DmlUnaryOp(op) => gpu_xor::reference::dml_unary(op, &a, &mut out),
            _ => panic!("{} is not a DirectML operator", self.op),
        }
        .unwrap_or_else(|e| panic!("reference: {e}\n{self:?}"));
        after
    }
}

/// One DirectML call of a [`Calls`] set: an operator, its three descriptions and where its
/// tensors are bound.
#[derive(Clone, Debug)]
pub struct Call {
    /// The operator.
    pub op: Operator,
    /// A's description.
    pub a: TensorDesc,
    /// B's description.
    pub b: TensorDesc,
    /// The output's description.
    pub out: TensorDesc,
    /// Where A, B and the output are bound.
    pub places: [Place; 3],
}

impl Call {
    /// One description for A, B and the output.
    pub fn same(op: Operator, t: TensorDesc, places: [Place; 3]) -> Call {
        Call {
            op,
            a: t.clone(),
            b: t.clone(),
            out: t,
            places,
        }
    }

    /// The call as a single case on `buffers`.
    pub fn case(&self, buffers: &[Vec<u8>]) -> DmlCase {
        DmlCase {
            op: self.op,
            a: self.a.clone(),
            b: self.b.clone(),
            out: self.out.clone(),
            places: self.places,
            buffers: buffers.to_vec(),
        }
    }
}

/// Calls applied in order to a set of buffers of random bytes: what a merged batch must
/// leave, as the same calls run one by one.
#[derive(Clone, Debug)]
pub struct Calls {
    /// Every buffer before the first call.
    pub buffers: Vec<Vec<u8>>,
    /// The calls, in order.
    pub calls: Vec<Call>,
}

impl Calls {
    /// `count` buffers of `len` random bytes; where a call shifts, mostly shift amounts of
    /// the first shift's type, so that its shifts are mostly in range.
    pub fn new(count: usize, len: usize, seed: u64, calls: Vec<Call>) -> Calls {
        let mut buffers: Vec<Vec<u8>> = (0..count)
            .map(|k| random_bytes(seed ^ (k as u64).wrapping_mul(0x9E37_79B9), len))
            .collect();
        if let Some(call) = calls.iter().find(|call| call.op.shifts()) {
            let width = u64::from(call.b.data_type.size_in_bytes());
            for (k, buffer) in buffers.iter_mut().enumerate() {
                shift_amounts(buffer, width, seed ^ k as u64);
            }
        }
        Calls { buffers, calls }
    }

    /// Every buffer after the calls by the reference, applied in order.
    pub fn expected(&self) -> Vec<Vec<u8>> {
        self.calls.iter().fold(self.buffers.clone(), |state, call| {
            call.case(&state).expected()
        })
    }

    /// Each buffer's name: its index.
    pub fn names(&self) -> Vec<String> {
        (0..self.buffers.len()).map(|k| k.to_string()).collect()
    }

    /// The calls, for failure messages.
    pub fn describe(&self) -> String {
        self.calls
            .iter()
            .map(|c| c.case(&[]).describe())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Each call prepared on its own on `gpu`, and all of them as one prepared batch.
    pub fn prepare_all(
        &self,
        ctx: &Context,
        gpu: &[wgpu::Buffer],
    ) -> Result<(Vec<gpu_xor::Prepared>, gpu_xor::Prepared), Error> {
        let singles = self
            .calls
            .iter()
            .map(|call| {
                let case = call.case(&[]);
                case.operator(ctx)?.prepare(&case.bindings(gpu))
            })
            .collect::<Result<_, _>>()?;
        let mut batch = ctx.batch();
        self.push_all(ctx, &mut batch, gpu)?;
        Ok((singles, batch.prepare()?))
    }

    /// The same calls applied `times` times over, in order, to the same buffers.
    pub fn repeated(&self, times: usize) -> Calls {
        Calls {
            buffers: self.buffers.clone(),
            calls: (0..times)
                .flat_map(|_| self.calls.iter().cloned())
                .collect(),
        }
    }

    /// Compiles every call on `ctx` and pushes it into `batch` on `gpu`; each call's summary.
    pub fn push_all(
        &self,
        ctx: &Context,
        batch: &mut Batch,
        gpu: &[wgpu::Buffer],
    ) -> Result<Vec<RecordSummary>, Error> {
        self.calls
            .iter()
            .map(|call| {
                let case = call.case(&[]);
                case.operator(ctx)?.push(batch, &case.bindings(gpu))
            })
            .collect()
    }
}
