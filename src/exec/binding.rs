//! Where a tensor lives: a range of a caller's buffer.

use crate::desc::TensorName;
use crate::error::Error;

/// One tensor's binding: a buffer, the byte offset of the tensor in it, and the size of the
/// bound range (`DML_BUFFER_BINDING`).
///
/// The buffer needs `wgpu::BufferUsages::STORAGE`. For the DirectML operators the offset is a
/// multiple of 16 (and of the tensor's `GuaranteedBaseOffsetAlignment`) and the size at least
/// `TotalTensorSizeInBytes`; for BitwiseXor the offset is a multiple of 4 and of the element
/// size, and the size at least the tensor's bytes rounded up to 4. All of this is checked when
/// recording, with a typed error.
///
/// Three things wgpu checks and that stay the caller's to keep: the buffer belongs to the
/// context's device, it is not destroyed, and it is not mapped when the commands are
/// submitted. Where this crate makes the wgpu call that finds a breach, the breach is a typed
/// error ([`crate::Error::InvalidBuffer`]): recording finds a destroyed buffer or one of
/// another device, `run` and read-back find all three. A buffer destroyed after recording, or
/// mapped when the caller submits the encoder, is found only by the caller's own
/// `Queue::submit`, which wgpu reports to the caller's error scope or to the device's
/// uncaptured-error handler (by default a panic).
///
/// "Another device" means another device of the same `wgpu::Instance`. wgpu compares buffers,
/// and finds them, by an id that is unique within one instance only: a buffer of another
/// instance can stand for one of this instance's buffers, and neither wgpu nor this crate can
/// tell. Keep every buffer of a call on the context's instance.
#[derive(Clone, Copy, Debug)]
pub struct TensorBinding<'a> {
    /// The buffer.
    pub buffer: &'a wgpu::Buffer,
    /// Byte offset of the tensor's first element.
    pub offset: u64,
    /// Bytes bound from `offset`; `None` for the rest of the buffer.
    pub size: Option<u64>,
}

impl<'a> TensorBinding<'a> {
    /// The whole buffer, from offset 0.
    pub fn new(buffer: &'a wgpu::Buffer) -> TensorBinding<'a> {
        TensorBinding {
            buffer,
            offset: 0,
            size: None,
        }
    }

    /// `size` bytes of the buffer from `offset`.
    pub fn range(buffer: &'a wgpu::Buffer, offset: u64, size: u64) -> TensorBinding<'a> {
        TensorBinding {
            buffer,
            offset,
            size: Some(size),
        }
    }

    /// The rest of the buffer from `offset`.
    pub fn at(buffer: &'a wgpu::Buffer, offset: u64) -> TensorBinding<'a> {
        TensorBinding {
            buffer,
            offset,
            size: None,
        }
    }
}

/// How a call gives one input: bound in the call, owned by the operator, or absent (the B of
/// an operator of one input). Owned and absent are different answers: an operator that owns
/// its B is still an operator of two inputs.
#[derive(Clone, Copy, Debug)]
pub enum Input<'a> {
    /// Bound in this call.
    Bound(TensorBinding<'a>),
    /// Owned by the operator: flagged [`crate::TensorFlags::OwnedByDml`] and bound once when
    /// the operator was made ([`crate::DmlBinary::with_owned_inputs`]), so not bound again
    /// (DirectML's `DML_BINDING_TYPE_NONE`).
    Owned,
    /// Not an input of the operator: B of an operator of one input (NOT).
    Absent,
}

impl<'a> Input<'a> {
    /// The binding, when the input is bound in the call.
    pub fn binding(self) -> Option<TensorBinding<'a>> {
        match self {
            Input::Bound(binding) => Some(binding),
            Input::Owned | Input::Absent => None,
        }
    }
}

impl<'a> From<TensorBinding<'a>> for Input<'a> {
    fn from(binding: TensorBinding<'a>) -> Input<'a> {
        Input::Bound(binding)
    }
}

/// The bindings of one call: A, B and the output; an operator of one input (NOT) binds its
/// input as A, and its B is [`Input::Absent`] ([`Bindings::unary`]).
///
/// Any of them may name the same buffer: ranges that do not overlap are fine, an output
/// bound to exactly an input's range runs in place, and inputs may overlap each other.
///
/// An input that the operator owns (flagged [`crate::TensorFlags::OwnedByDml`] and bound
/// once when the operator was made, see [`crate::DmlBinary::with_owned_inputs`]) is not bound
/// again: it is [`Input::Owned`], as DirectML's `DML_BINDING_TYPE_NONE`. An input the
/// operator does not own cannot be given as owned (`owned_input_bound`), and an operator of
/// one input has no B to give (`extra_binding`).
#[derive(Clone, Copy, Debug)]
pub struct Bindings<'a> {
    /// Input A.
    pub a: Input<'a>,
    /// Input B.
    pub b: Input<'a>,
    /// The output.
    pub output: TensorBinding<'a>,
}

impl<'a> Bindings<'a> {
    /// Bindings from three tensor bindings.
    pub fn new(
        a: TensorBinding<'a>,
        b: TensorBinding<'a>,
        output: TensorBinding<'a>,
    ) -> Bindings<'a> {
        Bindings {
            a: Input::Bound(a),
            b: Input::Bound(b),
            output,
        }
    }

    /// The bindings of an operator of one input (NOT): the input as A, no B.
    pub fn unary(input: TensorBinding<'a>, output: TensorBinding<'a>) -> Bindings<'a> {
        Bindings {
            a: Input::Bound(input),
            b: Input::Absent,
            output,
        }
    }

    /// The output's binding alone, for an operator of one input that owns its input.
    pub fn owned_input(output: TensorBinding<'a>) -> Bindings<'a> {
        Bindings {
            a: Input::Owned,
            b: Input::Absent,
            output,
        }
    }

    /// Bindings of B and the output, for an operator that owns A.
    pub fn owned_a(b: TensorBinding<'a>, output: TensorBinding<'a>) -> Bindings<'a> {
        Bindings {
            a: Input::Owned,
            b: Input::Bound(b),
            output,
        }
    }

    /// Bindings of A and the output, for an operator that owns B.
    pub fn owned_b(a: TensorBinding<'a>, output: TensorBinding<'a>) -> Bindings<'a> {
        Bindings {
            a: Input::Bound(a),
            b: Input::Owned,
            output,
        }
    }

    /// The output's binding alone, for an operator of two inputs that owns both.
    pub fn owned_ab(output: TensorBinding<'a>) -> Bindings<'a> {
        Bindings {
            a: Input::Owned,
            b: Input::Owned,
            output,
        }
    }
}

/// The inputs an operator owns, bound once when it is made (DirectML's operator initializer
/// bindings for tensors flagged `DML_TENSOR_FLAG_OWNED_BY_DML`): see
/// [`crate::DmlBinary::with_owned_inputs`]. An input the operator does not own is `None`.
#[derive(Clone, Copy, Debug, Default)]
pub struct OwnedInputs<'a> {
    /// A's bytes, when A is flagged owned.
    pub a: Option<TensorBinding<'a>>,
    /// B's bytes, when B is flagged owned.
    pub b: Option<TensorBinding<'a>>,
}

impl<'a> OwnedInputs<'a> {
    /// A owned, B bound with each call.
    pub fn a(a: TensorBinding<'a>) -> OwnedInputs<'a> {
        OwnedInputs {
            a: Some(a),
            b: None,
        }
    }

    /// B owned, A bound with each call.
    pub fn b(b: TensorBinding<'a>) -> OwnedInputs<'a> {
        OwnedInputs {
            a: None,
            b: Some(b),
        }
    }

    /// Both inputs owned.
    pub fn both(a: TensorBinding<'a>, b: TensorBinding<'a>) -> OwnedInputs<'a> {
        OwnedInputs {
            a: Some(a),
            b: Some(b),
        }
    }
}

/// [`Error::MissingUsage`] unless `buffer` has every usage in `needed` (`tensor` names it, when
/// it is one of a call's).
pub(crate) fn require_usage(
    buffer: &wgpu::Buffer,
    tensor: Option<TensorName>,
    needed: wgpu::BufferUsages,
) -> Result<(), Error> {
    let usage = buffer.usage();
    match (needed - usage).iter_names().next() {
        None => Ok(()),
        Some((name, _)) => Err(Error::MissingUsage {
            tensor,
            needed: name,
            usage: format!("{usage:?}"),
        }),
    }
}

/// The bindings of one call of a fused expression ([`crate::Fused`]): each input, in the
/// order the expression declared them ([`crate::Expr::input`]), and the output. Made without
/// allocating, and `Copy`: a call in a loop costs nothing to describe.
///
/// An input the fused operator owns (flagged [`crate::TensorFlags::OwnedByDml`], its bytes
/// given to [`crate::Fused::with_owned_inputs`]) is [`Input::Owned`]; every other input is
/// bound, and the count must be the expression's (`expr_count` otherwise).
#[derive(Clone, Copy, Debug)]
pub struct ExprBindings<'a> {
    inputs: [Input<'a>; crate::desc::MAX_EXPR_INPUTS],
    count: usize,
    /// The output.
    pub output: TensorBinding<'a>,
}

impl<'a> ExprBindings<'a> {
    /// Every input bound in this call, in the expression's order, and the output.
    ///
    /// ```
    /// # fn f(a: &wgpu::Buffer, b: &wgpu::Buffer, out: &wgpu::Buffer) {
    /// use gpu_xor::{ExprBindings, TensorBinding};
    /// let call = ExprBindings::new(&[TensorBinding::new(a), TensorBinding::new(b)], TensorBinding::new(out));
    /// assert_eq!(call.input_count(), 2);
    /// # }
    /// ```
    pub fn new(inputs: &[TensorBinding<'a>], output: TensorBinding<'a>) -> ExprBindings<'a> {
        ExprBindings::collect(inputs.iter().map(|&b| Input::Bound(b)), output)
    }

    /// Inputs given each as bound or owned ([`Input::Owned`] for an input the operator
    /// owns), in the expression's order, and the output.
    pub fn with_inputs(inputs: &[Input<'a>], output: TensorBinding<'a>) -> ExprBindings<'a> {
        ExprBindings::collect(inputs.iter().copied(), output)
    }

    /// The first inputs of `inputs` in the slots, all of them counted (more than an
    /// expression takes is refused when the call is pushed).
    fn collect(
        inputs: impl ExactSizeIterator<Item = Input<'a>>,
        output: TensorBinding<'a>,
    ) -> ExprBindings<'a> {
        let count = inputs.len();
        let mut all = [Input::Absent; crate::desc::MAX_EXPR_INPUTS];
        for (slot, input) in all.iter_mut().zip(inputs) {
            *slot = input;
        }
        ExprBindings {
            inputs: all,
            count,
            output,
        }
    }

    /// How many inputs were given.
    pub fn input_count(&self) -> usize {
        self.count
    }

    /// Input `k` as given ([`Input::Absent`] past the last).
    pub fn input(&self, k: usize) -> Input<'a> {
        self.inputs.get(k).copied().unwrap_or(Input::Absent)
    }
}
