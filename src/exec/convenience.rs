//! One-call forms on [`Tensor`]s: validate, allocate the output (or take the caller's), record
//! and submit. Nothing waits: the read-back of the output (`to_vec_async`, or `to_vec` on
//! native) sees the call's writes.

use super::binding::{Bindings, ExprBindings};
use super::context::Context;
use super::fused::Fused;
use super::operator::{DmlBinary, DmlUnary, OvBinary, OvUnary};
use super::tensor::Tensor;
use crate::desc::TensorName;
use crate::desc::{
    AutoBroadcast, DataType, DmlBinaryDesc, DmlBinaryOp, DmlUnaryDesc, DmlUnaryOp, ExprDesc,
    OvBinaryDesc, OvBinaryOp, OvUnaryDesc, OvUnaryOp,
};
use crate::error::Error;

impl Context {
    /// A DirectML operator of two inputs ([`DmlBinaryOp`]) on tensors of one type and shape,
    /// into a new packed tensor.
    ///
    /// The inputs may be views ([`Tensor::view`]) at offsets that are multiples of 16, with
    /// any strides DirectML allows. The call is submitted when this returns, not finished:
    /// read the output back with [`Tensor::to_vec_async`] (or [`Tensor::to_vec`] on native),
    /// which sees its writes.
    ///
    /// ```no_run
    /// use gpu_xor::{Context, DmlBinaryOp, Tensor};
    ///
    /// # fn main() -> Result<(), gpu_xor::Error> {
    /// let ctx = Context::from_env()?;
    /// let a = Tensor::from_slice(&ctx, &[4], &[0u32, 5, 0, 0x100])?;
    /// let b = Tensor::from_slice(&ctx, &[4], &[0u32, 0, 3, 1])?;
    /// let out = ctx.dml_binary(DmlBinaryOp::LogicalAnd, &a, &b)?;
    /// assert_eq!(out.to_vec::<u32>()?, [0, 0, 0, 1]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn dml_binary(&self, op: DmlBinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, Error> {
        let desc = DmlBinaryDesc::new(op, a.dml_desc()?, b.dml_desc()?, a.packed_desc()?);
        let operator = DmlBinary::new(self, &desc)?;
        let out = Tensor::zeros(self, a.data_type(), a.shape())?;
        operator.submit(&bindings(a, b, &out))?;
        Ok(out)
    }

    /// A DirectML operator of two inputs into `out`, an existing tensor: no allocation.
    ///
    /// `out` has the inputs' type and DirectML Sizes: a wrong type is
    /// [`Error::DataTypeMismatch`], wrong sizes [`Error::SizesMismatch`], each naming the
    /// `OutputTensor`, with nothing written. Any tensor may be a view ([`Tensor::view`]) at an
    /// offset that is a multiple of 16, with strides (an output's may pad, not overlap).
    /// Only `out`'s elements are written: its padding and the rest of its buffer keep their
    /// bytes. `out` may be `a` or `b` itself, or a view of exactly the same range, offset,
    /// sizes and strides, to run in place (DirectML's rule); a partial overlap is refused.
    ///
    /// Submitted when this returns, not finished, like [`Context::dml_binary`].
    ///
    /// ```no_run
    /// use gpu_xor::{Context, DmlBinaryOp, Tensor};
    ///
    /// # fn main() -> Result<(), gpu_xor::Error> {
    /// let ctx = Context::from_env()?;
    /// let a = Tensor::from_slice(&ctx, &[4], &[1u32, 2, 3, 4])?;
    /// let b = Tensor::from_slice(&ctx, &[4], &[0xffu32; 4])?;
    /// let out = Tensor::zeros(&ctx, gpu_xor::DataType::U32, &[4])?;
    /// ctx.dml_binary_into(DmlBinaryOp::BitXor, &a, &b, &out)?;
    /// ctx.bit_xor_into(&a, &b, &a)?; // in place: a ^= b
    /// assert_eq!(out.to_vec::<u32>()?, [0xfe, 0xfd, 0xfc, 0xfb]);
    /// assert_eq!(a.to_vec::<u32>()?, [0xfe, 0xfd, 0xfc, 0xfb]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn dml_binary_into(
        &self,
        op: DmlBinaryOp,
        a: &Tensor,
        b: &Tensor,
        out: &Tensor,
    ) -> Result<(), Error> {
        let desc = DmlBinaryDesc::new(op, a.dml_desc()?, b.dml_desc()?, out.dml_desc()?);
        DmlBinary::new(self, &desc)?.submit(&bindings(a, b, out))?;
        Ok(())
    }

    /// A DirectML operator of one input ([`DmlUnaryOp`]: BIT_NOT, LOGICAL_NOT, BIT_COUNT) into
    /// a new packed tensor of the input's type, or of `u32` for BIT_COUNT (whose output is
    /// `u8` or `u32`; [`Context::dml_unary_into`] writes into a `u8` tensor). The input may be
    /// a view, as for [`Context::dml_binary`].
    ///
    /// ```no_run
    /// use gpu_xor::{Context, DmlUnaryOp, Tensor};
    ///
    /// # fn main() -> Result<(), gpu_xor::Error> {
    /// let ctx = Context::from_env()?;
    /// let a = Tensor::from_slice(&ctx, &[3], &[0u8, 0x0f, 0xff])?;
    /// assert_eq!(ctx.dml_unary(DmlUnaryOp::BitNot, &a)?.to_vec::<u8>()?, [0xff, 0xf0, 0]);
    /// assert_eq!(ctx.dml_unary(DmlUnaryOp::LogicalNot, &a)?.to_vec::<u8>()?, [1, 0, 0]);
    /// assert_eq!(ctx.dml_unary(DmlUnaryOp::BitCount, &a)?.to_vec::<u32>()?, [0, 4, 8]);
    /// let wide = Tensor::from_slice(&ctx, &[2], &[u64::MAX, 1 << 40])?;
    /// let counts = Tensor::zeros(&ctx, gpu_xor::DataType::U8, &[2])?;
    /// ctx.bit_count_into(&wide, &counts)?;
    /// assert_eq!(counts.to_vec::<u8>()?, [64, 1]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn dml_unary(&self, op: DmlUnaryOp, input: &Tensor) -> Result<Tensor, Error> {
        let out_type = match op.operator().spec().types.output_types() {
            Some(_) => DataType::U32,
            None => input.data_type(),
        };
        let mut out_desc = input.packed_desc()?;
        out_desc.data_type = out_type;
        let desc = DmlUnaryDesc::new(op, input.dml_desc()?, out_desc);
        let operator = DmlUnary::new(self, &desc)?;
        let out = Tensor::zeros(self, out_type, input.shape())?;
        operator.submit(&Bindings::unary(input.binding(), out.binding()))?;
        Ok(out)
    }

    /// A DirectML operator of one input into `out`, an existing tensor: the rules of
    /// [`Context::dml_binary_into`]; `out` may be `input` itself (in place).
    pub fn dml_unary_into(
        &self,
        op: DmlUnaryOp,
        input: &Tensor,
        out: &Tensor,
    ) -> Result<(), Error> {
        let desc = DmlUnaryDesc::new(op, input.dml_desc()?, out.dml_desc()?);
        DmlUnary::new(self, &desc)?.submit(&Bindings::unary(input.binding(), out.binding()))?;
        Ok(())
    }

    /// An OpenVINO operation of two inputs ([`OvBinaryOp`]) under `broadcast`, into a new
    /// tensor of the broadcast shape.
    ///
    /// OpenVINO's tensors are dense: the inputs may be views at an offset that is a multiple
    /// of 4 and of the element size ([`Tensor::view`] without strides), and a strided view is
    /// refused with [`Error::NotDense`] naming the tensor (the DirectML operators take
    /// strided layouts, and compute the same on integers).
    ///
    /// ```no_run
    /// use gpu_xor::{AutoBroadcast, Context, OvBinaryOp, Tensor};
    ///
    /// # fn main() -> Result<(), gpu_xor::Error> {
    /// let ctx = Context::from_env()?;
    /// let a = Tensor::from_bools(&ctx, &[2, 2], &[true, false, true, false])?;
    /// let b = Tensor::from_bools(&ctx, &[2], &[true, true])?;
    /// let out = ctx.ov_binary(OvBinaryOp::LogicalAnd, &a, &b, AutoBroadcast::Numpy)?;
    /// assert_eq!(out.to_bools()?, [true, false, true, false]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn ov_binary(
        &self,
        op: OvBinaryOp,
        a: &Tensor,
        b: &Tensor,
        broadcast: AutoBroadcast,
    ) -> Result<Tensor, Error> {
        let operator = ov_binary_operator(self, op, a, b, broadcast)?;
        let out = Tensor::zeros(self, a.data_type(), &operator.output_shape())?;
        operator.submit(&bindings(a, b, &out))?;
        Ok(out)
    }

    /// An OpenVINO operation of two inputs into `out`, an existing tensor of the broadcast
    /// shape: no allocation.
    ///
    /// The inputs' rules are checked first, as for [`Context::ov_binary`]; then `out` must
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
    pub fn ov_binary_into(
        &self,
        op: OvBinaryOp,
        a: &Tensor,
        b: &Tensor,
        out: &Tensor,
        broadcast: AutoBroadcast,
    ) -> Result<(), Error> {
        let operator = ov_binary_operator(self, op, a, b, broadcast)?;
        check_ov_output(out, a, &operator.output_shape(), broadcast)?;
        operator.submit(&bindings(a, b, out))?;
        Ok(())
    }

    /// An OpenVINO operation of one input ([`OvUnaryOp`]: BitwiseNot-13, LogicalNot-1) into a
    /// new tensor of its shape. The input is dense ([`Error::NotDense`] for a strided view).
    pub fn ov_unary(&self, op: OvUnaryOp, input: &Tensor) -> Result<Tensor, Error> {
        let operator = ov_unary_operator(self, op, input)?;
        let out = Tensor::zeros(self, input.data_type(), input.shape())?;
        operator.submit(&Bindings::unary(input.binding(), out.binding()))?;
        Ok(out)
    }

    /// An OpenVINO operation of one input into `out`, an existing dense tensor of its type
    /// and shape ([`Error::TensorTypeMismatch`], [`Error::ShapeInconsistent`]); `out` may be
    /// `input` itself (in place).
    pub fn ov_unary_into(&self, op: OvUnaryOp, input: &Tensor, out: &Tensor) -> Result<(), Error> {
        let operator = ov_unary_operator(self, op, input)?;
        check_ov_output(out, input, input.shape(), AutoBroadcast::None)?;
        operator.submit(&Bindings::unary(input.binding(), out.binding()))?;
        Ok(())
    }
}

/// The named one-call forms, one pair per row of the operator table
/// ([`gpu_xor_core::for_each_operator!`]): each gives its operator to the general form of its
/// group.
macro_rules! one_call_forms {
    ($(
        $group:ident: $group_doc:literal {
            $(
                $(#[$doc:meta])*
                $variant:ident as $operator:ident {
                    $standard:ident, $name:literal, $function:ident, $truth:ident, $types:ident,
                    $conformance:literal, $call:ident, $call_into:ident, [$($onnx:literal),*]
                }
            )*
        }
    )*) => {
        $( one_call_forms!(@ $group $( $variant $name $call $call_into )*); )*
    };
    (@ DmlBinaryOp $($op:ident $name:literal $call:ident $into:ident)*) => {
        impl Context {
            $(
                #[doc = concat!("DirectML ", $name, " of two tensors of one type and shape, into a new packed tensor: [`Context::dml_binary`] with [`DmlBinaryOp::", stringify!($op), "`].")]
                pub fn $call(&self, a: &Tensor, b: &Tensor) -> Result<Tensor, Error> {
                    self.dml_binary(DmlBinaryOp::$op, a, b)
                }

                #[doc = concat!("DirectML ", $name, " into `out`, an existing tensor (in place when `out` is `a` or `b`): [`Context::dml_binary_into`] with [`DmlBinaryOp::", stringify!($op), "`].")]
                pub fn $into(&self, a: &Tensor, b: &Tensor, out: &Tensor) -> Result<(), Error> {
                    self.dml_binary_into(DmlBinaryOp::$op, a, b, out)
                }
            )*
        }
    };
    (@ DmlUnaryOp $($op:ident $name:literal $call:ident $into:ident)*) => {
        impl Context {
            $(
                #[doc = concat!("DirectML ", $name, " of one tensor, into a new packed tensor: [`Context::dml_unary`] with [`DmlUnaryOp::", stringify!($op), "`].")]
                pub fn $call(&self, input: &Tensor) -> Result<Tensor, Error> {
                    self.dml_unary(DmlUnaryOp::$op, input)
                }

                #[doc = concat!("DirectML ", $name, " into `out`, an existing tensor (in place when `out` is `input`): [`Context::dml_unary_into`] with [`DmlUnaryOp::", stringify!($op), "`].")]
                pub fn $into(&self, input: &Tensor, out: &Tensor) -> Result<(), Error> {
                    self.dml_unary_into(DmlUnaryOp::$op, input, out)
                }
            )*
        }
    };
    (@ OvBinaryOp $($op:ident $name:literal $call:ident $into:ident)*) => {
        impl Context {
            $(
                #[doc = concat!("OpenVINO ", $name, " of two dense tensors under `broadcast`, into a new tensor of the broadcast shape: [`Context::ov_binary`] with [`OvBinaryOp::", stringify!($op), "`].")]
                pub fn $call(&self, a: &Tensor, b: &Tensor, broadcast: AutoBroadcast) -> Result<Tensor, Error> {
                    self.ov_binary(OvBinaryOp::$op, a, b, broadcast)
                }

                #[doc = concat!("OpenVINO ", $name, " into `out`, an existing tensor of the broadcast shape: [`Context::ov_binary_into`] with [`OvBinaryOp::", stringify!($op), "`].")]
                pub fn $into(&self, a: &Tensor, b: &Tensor, out: &Tensor, broadcast: AutoBroadcast) -> Result<(), Error> {
                    self.ov_binary_into(OvBinaryOp::$op, a, b, out, broadcast)
                }
            )*
        }
    };
    (@ OvUnaryOp $($op:ident $name:literal $call:ident $into:ident)*) => {
        impl Context {
            $(
                #[doc = concat!("OpenVINO ", $name, " of a dense tensor, into a new tensor: [`Context::ov_unary`] with [`OvUnaryOp::", stringify!($op), "`].")]
                pub fn $call(&self, input: &Tensor) -> Result<Tensor, Error> {
                    self.ov_unary(OvUnaryOp::$op, input)
                }

                #[doc = concat!("OpenVINO ", $name, " into `out`, an existing tensor (in place when `out` is `input`): [`Context::ov_unary_into`] with [`OvUnaryOp::", stringify!($op), "`].")]
                pub fn $into(&self, input: &Tensor, out: &Tensor) -> Result<(), Error> {
                    self.ov_unary_into(OvUnaryOp::$op, input, out)
                }
            )*
        }
    };
}

gpu_xor_core::for_each_operator!(one_call_forms);

/// The three tensors' bindings: each buffer from its tensor's offset.
impl Context {
    /// The Hamming distances between the packed binary codes of `queries` (`[.., M, W]`) and
    /// of `codes` (`[.., N, W]`), into a new `UINT32` tensor `[.., M, N]` (batch dimensions
    /// broadcast): the bits in which each query and each code differ. The codes are words
    /// of any integer type, the same in both; either may be a strided view. The expression
    /// is [`ExprDesc::hamming_distances`], run as a [`Fused`] call; to record it many times
    /// on your own buffers, prepare that instead.
    ///
    /// ```no_run
    /// use gpu_xor::{Context, Tensor};
    ///
    /// # fn main() -> Result<(), gpu_xor::Error> {
    /// let ctx = Context::from_env()?;
    /// // Two queries and three codes of 64 bits, as two 32-bit words each.
    /// let queries = Tensor::from_slice(&ctx, &[2, 2], &[0u32, 0, u32::MAX, 0])?;
    /// let codes = Tensor::from_slice(&ctx, &[3, 2], &[0u32, 0, 1, 1, u32::MAX, u32::MAX])?;
    /// let d = ctx.hamming_distances(&queries, &codes)?;
    /// assert_eq!(d.shape(), [2, 3]);
    /// assert_eq!(d.to_vec::<u32>()?, [0, 2, 64, 32, 32, 32]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn hamming_distances(&self, queries: &Tensor, codes: &Tensor) -> Result<Tensor, Error> {
        self.contraction(queries, codes, DataType::U32, ExprDesc::hamming_distances)
    }

    /// A binary dense layer: `inputs` (`[.., M, W]`) against `weights` (`[.., N, W]`), rows
    /// of bits packed in words of one integer type, into a new `INT32` tensor `[.., M, N]`
    /// (batch dimensions broadcast) of `2 * popcount(xnor(input, weight)) - bits`, each
    /// pair of rows' dot product with every bit read as +1 (set) or -1, over the `bits` of
    /// `W` words. The expression is [`ExprDesc::binary_dense`], run as a [`Fused`] call;
    /// to record it many times on your own buffers, prepare that instead.
    ///
    /// ```no_run
    /// use gpu_xor::{Context, Tensor};
    ///
    /// # fn main() -> Result<(), gpu_xor::Error> {
    /// let ctx = Context::from_env()?;
    /// // One row of 8 bits against three weight rows: equal, opposite, half equal.
    /// let inputs = Tensor::from_slice(&ctx, &[1, 1], &[0b1010_1010u8])?;
    /// let weights = Tensor::from_slice(&ctx, &[3, 1], &[0b1010_1010u8, 0b0101_0101, 0x0f])?;
    /// let y = ctx.binary_dense(&inputs, &weights)?;
    /// assert_eq!(y.to_vec::<i32>()?, [8, -8, 0]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn binary_dense(&self, inputs: &Tensor, weights: &Tensor) -> Result<Tensor, Error> {
        self.contraction(inputs, weights, DataType::I32, ExprDesc::binary_dense)
    }

    /// A contraction of `queries` and `codes` described by `desc` into a new tensor of
    /// `out_type` and sizes `[.., M, N]`, submitted.
    fn contraction(
        &self,
        queries: &Tensor,
        codes: &Tensor,
        out_type: DataType,
        desc: fn(crate::TensorDesc, crate::TensorDesc, crate::TensorDesc) -> ExprDesc,
    ) -> Result<Tensor, Error> {
        let (q, c) = (queries.shape(), codes.shape());
        // [.., M, N]: the batches broadcast (validation names sizes that do not), M and N.
        let rows = |shape: &[usize]| match shape.len() {
            0 | 1 => 1,
            n => shape[n - 2],
        };
        let batch = |shape: &[usize]| shape[..shape.len().saturating_sub(2)].to_vec();
        let (bq, bc) = (batch(q), batch(c));
        let rank = bq.len().max(bc.len());
        let mut shape: Vec<usize> = (0..rank)
            .map(|d| {
                let at = |b: &[usize]| (d + b.len()).checked_sub(rank).map_or(1, |i| b[i]);
                at(&bq).max(at(&bc))
            })
            .collect();
        shape.extend([rows(q), rows(c)]);
        let out = Tensor::zeros(self, out_type, &shape)?;
        let desc = desc(queries.dml_desc()?, codes.dml_desc()?, out.dml_desc()?);
        let fused = Fused::new(self, &desc)?;
        fused.submit(&ExprBindings::new(
            &[queries.binding(), codes.binding()],
            out.binding(),
        ))?;
        Ok(out)
    }
}

fn bindings<'a>(a: &'a Tensor, b: &'a Tensor, out: &'a Tensor) -> Bindings<'a> {
    Bindings::new(a.binding(), b.binding(), out.binding())
}

/// Refuses a strided view for an OpenVINO operation: its tensors are dense and its
/// description has no strides. (Views at an offset are dense; the binding checks their alignment.)
fn dense(tensor: &Tensor, name: TensorName) -> Result<(), Error> {
    match tensor.strides() {
        None => Ok(()),
        Some(strides) => Err(Error::NotDense {
            tensor: name,
            strides: strides.iter().map(|&s| s as u64).collect(),
        }),
    }
}

/// An OpenVINO operation of two inputs on dense tensors, validated.
fn ov_binary_operator(
    ctx: &Context,
    op: OvBinaryOp,
    a: &Tensor,
    b: &Tensor,
    broadcast: AutoBroadcast,
) -> Result<OvBinary, Error> {
    dense(a, TensorName::A)?;
    dense(b, TensorName::B)?;
    let desc = OvBinaryDesc {
        op,
        a_type: a.data_type(),
        b_type: b.data_type(),
        a_shape: a.shape().to_vec(),
        b_shape: b.shape().to_vec(),
        auto_broadcast: broadcast,
    };
    OvBinary::new(ctx, &desc)
}

/// An OpenVINO operation of one input on a dense tensor, validated.
fn ov_unary_operator(ctx: &Context, op: OvUnaryOp, input: &Tensor) -> Result<OvUnary, Error> {
    dense(input, TensorName::A)?;
    OvUnary::new(ctx, &OvUnaryDesc::new(op, input.data_type(), input.shape()))
}

/// The rules of an OpenVINO output given by the caller: dense, the input's type, the output
/// shape (`ShapeInconsistent` with the expected shape first and `out`'s second).
fn check_ov_output(
    out: &Tensor,
    input: &Tensor,
    shape: &[usize],
    broadcast: AutoBroadcast,
) -> Result<(), Error> {
    dense(out, TensorName::Output)?;
    if out.data_type() != input.data_type() {
        return Err(Error::TensorTypeMismatch {
            actual: out.data_type(),
            requested: input.data_type(),
        });
    }
    if out.shape() != shape {
        return Err(Error::ShapeInconsistent {
            a: shape.to_vec(),
            b: out.shape().to_vec(),
            broadcast,
            reason: "the output tensor (second) does not have the output shape (first)",
        });
    }
    Ok(())
}
