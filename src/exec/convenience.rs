//! One-call forms on [`Tensor`]s: validate, allocate the output, record and submit. Nothing
//! waits: the read-back of the output (`to_vec_async`, or `to_vec` on native) sees the call's
//! writes.

use super::binding::XorBindings;
use super::context::Context;
use super::operator::{BitXor, BitwiseXor, LogicalXor};
use super::tensor::Tensor;
use crate::desc::{AutoBroadcast, BitXorDesc, BitwiseXorDesc, LogicalXorDesc};
use crate::error::Error;

impl Context {
    /// DirectML BIT_XOR of two packed tensors of one type and shape, into a new tensor.
    ///
    /// The call is submitted when this returns, not finished: read the output back with
    /// [`Tensor::to_vec_async`] (or [`Tensor::to_vec`] on native), which sees its writes.
    pub fn bit_xor(&self, a: &Tensor, b: &Tensor) -> Result<Tensor, Error> {
        let desc = BitXorDesc::new(a.dml_desc()?, b.dml_desc()?, a.dml_desc()?);
        let op = BitXor::new(self, &desc)?;
        let out = Tensor::zeros(self, a.data_type(), a.shape())?;
        op.submit(&XorBindings::new(a.binding(), b.binding(), out.binding()))?;
        Ok(out)
    }

    /// DirectML LOGICAL_XOR of two packed tensors of one type and shape, into a new tensor.
    pub fn logical_xor(&self, a: &Tensor, b: &Tensor) -> Result<Tensor, Error> {
        let desc = LogicalXorDesc::new(a.dml_desc()?, b.dml_desc()?, a.dml_desc()?);
        let op = LogicalXor::new(self, &desc)?;
        let out = Tensor::zeros(self, a.data_type(), a.shape())?;
        op.submit(&XorBindings::new(a.binding(), b.binding(), out.binding()))?;
        Ok(out)
    }

    /// OpenVINO BitwiseXor-13 of two tensors under `broadcast`, into a new tensor of the
    /// broadcast shape.
    pub fn bitwise_xor(
        &self,
        a: &Tensor,
        b: &Tensor,
        broadcast: AutoBroadcast,
    ) -> Result<Tensor, Error> {
        let desc = BitwiseXorDesc {
            a_type: a.data_type(),
            b_type: b.data_type(),
            a_shape: a.shape().to_vec(),
            b_shape: b.shape().to_vec(),
            auto_broadcast: broadcast,
        };
        let op = BitwiseXor::new(self, &desc)?;
        let out = Tensor::zeros(self, a.data_type(), &op.output_shape())?;
        op.submit(&XorBindings::new(a.binding(), b.binding(), out.binding()))?;
        Ok(out)
    }
}
