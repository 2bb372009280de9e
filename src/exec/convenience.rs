//! One-call forms on [`Tensor`]s: validate, allocate the output (or take the caller's), record
//! and submit. Nothing waits: the read-back of the output (`to_vec_async`, or `to_vec` on
//! native) sees the call's writes.

use super::binding::XorBindings;
use super::context::Context;
use super::operator::{BitXor, BitwiseXor, LogicalXor};
use super::tensor::Tensor;
use crate::desc::{AutoBroadcast, BitXorDesc, BitwiseXorDesc, LogicalXorDesc};
use crate::error::{Error, TensorName};

impl Context {
    /// DirectML BIT_XOR of two tensors of one type and shape, into a new packed tensor.
    ///
    /// The inputs may be views ([`Tensor::view`]) at offsets that are multiples of 16, with
    /// any strides DirectML allows. The call is submitted when this returns, not finished:
    /// read the output back with [`Tensor::to_vec_async`] (or [`Tensor::to_vec`] on native),
    /// which sees its writes.
    pub fn bit_xor(&self, a: &Tensor, b: &Tensor) -> Result<Tensor, Error> {
        let desc = BitXorDesc::new(a.dml_desc()?, b.dml_desc()?, a.packed_desc()?);
        let op = BitXor::new(self, &desc)?;
        let out = Tensor::zeros(self, a.data_type(), a.shape())?;
        op.submit(&bindings(a, b, &out))?;
        Ok(out)
    }

    /// DirectML BIT_XOR of `a` and `b` into `out`, an existing tensor: no allocation.
    ///
    /// `out` has the inputs' type and DirectML Sizes: a wrong type is
    /// [`Error::DataTypeMismatch`], wrong sizes [`Error::SizesMismatch`], each naming the
    /// `OutputTensor`, with nothing written. Any tensor may be a view ([`Tensor::view`]) at an
    /// offset that is a multiple of 16, with strides (an output's may pad, not overlap).
    /// Only `out`'s elements are written: its padding and the rest of its buffer keep their
    /// bytes. `out` may be `a` or `b` itself, or a view of exactly the same range, offset,
    /// sizes and strides, to run in place (DirectML's rule); a partial overlap is refused.
    ///
    /// Submitted when this returns, not finished, like [`Context::bit_xor`].
    ///
    /// ```no_run
    /// use gpu_xor::{Context, Tensor};
    ///
    /// # fn main() -> Result<(), gpu_xor::Error> {
    /// let ctx = Context::from_env()?;
    /// let a = Tensor::from_slice(&ctx, &[4], &[1u32, 2, 3, 4])?;
    /// let b = Tensor::from_slice(&ctx, &[4], &[0xffu32; 4])?;
    /// let out = Tensor::zeros(&ctx, gpu_xor::DataType::U32, &[4])?;
    /// ctx.bit_xor_into(&a, &b, &out)?;
    /// ctx.bit_xor_into(&a, &b, &a)?; // in place: a ^= b
    /// assert_eq!(out.to_vec::<u32>()?, [0xfe, 0xfd, 0xfc, 0xfb]);
    /// assert_eq!(a.to_vec::<u32>()?, [0xfe, 0xfd, 0xfc, 0xfb]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn bit_xor_into(&self, a: &Tensor, b: &Tensor, out: &Tensor) -> Result<(), Error> {
        let desc = BitXorDesc::new(a.dml_desc()?, b.dml_desc()?, out.dml_desc()?);
        BitXor::new(self, &desc)?.submit(&bindings(a, b, out))?;
        Ok(())
    }

    /// DirectML LOGICAL_XOR of two tensors of one type and shape, into a new packed tensor.
    /// The inputs may be views, as for [`Context::bit_xor`].
    pub fn logical_xor(&self, a: &Tensor, b: &Tensor) -> Result<Tensor, Error> {
        let desc = LogicalXorDesc::new(a.dml_desc()?, b.dml_desc()?, a.packed_desc()?);
        let op = LogicalXor::new(self, &desc)?;
        let out = Tensor::zeros(self, a.data_type(), a.shape())?;
        op.submit(&bindings(a, b, &out))?;
        Ok(out)
    }

    /// DirectML LOGICAL_XOR of `a` and `b` into `out`, an existing tensor: the rules of
    /// [`Context::bit_xor_into`] (type and sizes checked, only `out`'s elements written, in
    /// place when `out` is `a` or `b`), without waiting.
    ///
    /// ```no_run
    /// use gpu_xor::{Context, Tensor};
    ///
    /// # fn main() -> Result<(), gpu_xor::Error> {
    /// let ctx = Context::from_env()?;
    /// let a = Tensor::from_slice(&ctx, &[4], &[0u8, 0, 3, 9])?;
    /// let b = Tensor::from_slice(&ctx, &[4], &[0u8, 7, 0, 1])?;
    /// ctx.logical_xor_into(&a, &b, &b)?; // in place into b
    /// assert_eq!(b.to_vec::<u8>()?, [0, 1, 1, 0]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn logical_xor_into(&self, a: &Tensor, b: &Tensor, out: &Tensor) -> Result<(), Error> {
        let desc = LogicalXorDesc::new(a.dml_desc()?, b.dml_desc()?, out.dml_desc()?);
        LogicalXor::new(self, &desc)?.submit(&bindings(a, b, out))?;
        Ok(())
    }

    /// OpenVINO BitwiseXor-13 of two tensors under `broadcast`, into a new tensor of the
    /// broadcast shape.
    ///
    /// OpenVINO's tensors are dense: the inputs may be views at an offset that is a multiple
    /// of 4 and of the element size ([`Tensor::view`] without strides), and a strided view is
    /// refused with [`Error::NotDense`] naming the tensor (use [`Context::bit_xor`] for
    /// strided layouts: its XOR is the same on integers).
    pub fn bitwise_xor(
        &self,
        a: &Tensor,
        b: &Tensor,
        broadcast: AutoBroadcast,
    ) -> Result<Tensor, Error> {
        let op = bitwise_operator(self, a, b, broadcast)?;
        let out = Tensor::zeros(self, a.data_type(), &op.output_shape())?;
        op.submit(&bindings(a, b, &out))?;
        Ok(out)
    }

    /// OpenVINO BitwiseXor-13 of `a` and `b` under `broadcast`, into `out`, an existing
    /// tensor of the broadcast shape: no allocation.
    ///
    /// The inputs' rules are checked first, as for [`Context::bitwise_xor`]; then `out` must
    /// hold the inputs' type ([`Error::TensorTypeMismatch`]) and have the broadcast shape
    /// ([`Error::ShapeInconsistent`], with the broadcast shape first and `out`'s second).
    /// Every tensor is dense: views at offsets that are multiples of 4 and of the element
    /// size are taken, strided views refused ([`Error::NotDense`]). Only `out`'s
    /// elements are written. `out` may be `a` or `b` itself when that input has the output's
    /// shape (in place); submitted without waiting.
    ///
    /// ```no_run
    /// use gpu_xor::{AutoBroadcast, Context, Tensor};
    ///
    /// # fn main() -> Result<(), gpu_xor::Error> {
    /// let ctx = Context::from_env()?;
    /// let a = Tensor::from_slice(&ctx, &[2, 3], &[1i32, 2, 3, 4, 5, 6])?;
    /// let b = Tensor::from_slice(&ctx, &[3], &[-1i32, 0, 7])?;
    /// ctx.bitwise_xor_into(&a, &b, &a, AutoBroadcast::Numpy)?; // a ^= b, broadcast
    /// assert_eq!(a.to_vec::<i32>()?, [-2, 2, 4, -5, 5, 1]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn bitwise_xor_into(
        &self,
        a: &Tensor,
        b: &Tensor,
        out: &Tensor,
        broadcast: AutoBroadcast,
    ) -> Result<(), Error> {
        let op = bitwise_operator(self, a, b, broadcast)?;
        dense(out, TensorName::Output)?;
        if out.data_type() != a.data_type() {
            return Err(Error::TensorTypeMismatch {
                actual: out.data_type(),
                requested: a.data_type(),
            });
        }
        let shape = op.output_shape();
        if out.shape() != shape {
            return Err(Error::ShapeInconsistent {
                a: shape,
                b: out.shape().to_vec(),
                broadcast,
                reason: "the output tensor (second) does not have the broadcast shape (first)",
            });
        }
        op.submit(&bindings(a, b, out))?;
        Ok(())
    }
}

/// The three tensors' bindings: each buffer from its tensor's offset.
fn bindings<'a>(a: &'a Tensor, b: &'a Tensor, out: &'a Tensor) -> XorBindings<'a> {
    XorBindings::new(a.binding(), b.binding(), out.binding())
}

/// The BitwiseXor of two dense tensors, validated.
fn bitwise_operator(
    ctx: &Context,
    a: &Tensor,
    b: &Tensor,
    broadcast: AutoBroadcast,
) -> Result<BitwiseXor, Error> {
    dense(a, TensorName::A)?;
    dense(b, TensorName::B)?;
    let desc = BitwiseXorDesc {
        a_type: a.data_type(),
        b_type: b.data_type(),
        a_shape: a.shape().to_vec(),
        b_shape: b.shape().to_vec(),
        auto_broadcast: broadcast,
    };
    BitwiseXor::new(ctx, &desc)
}

/// Refuses a strided view for BitwiseXor: OpenVINO's tensors are dense and `BitwiseXorDesc`
/// has no strides. (Views at an offset are dense; the binding checks their alignment.)
fn dense(tensor: &Tensor, name: TensorName) -> Result<(), Error> {
    match tensor.strides() {
        None => Ok(()),
        Some(strides) => Err(Error::NotDense {
            tensor: name,
            strides: strides.iter().map(|&s| s as u64).collect(),
        }),
    }
}
