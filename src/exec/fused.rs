//! Fused expressions, compiled: one kernel generated from an expression of the table's
//! operators, recorded, prepared, batched and run as the operators are.

use super::batch::{Batch, ExprNamedBuffers, compile_all};
use super::binding::{ExprBindings, TensorBinding};
use super::context::Context;
use super::encode::Prepared;
use super::operator::{own, submit_recorded};
use crate::desc::{ExprDesc, MAX_EXPR_INPUTS, TensorFlags, TensorName};
use crate::error::Error;
use crate::layout::FusedPlan;
use crate::schedule::fused::fused_pipeline_keys;
use crate::schedule::lower::RecordSummary;

/// A fused expression, compiled: every node of an [`ExprDesc`] computed by one kernel that
/// reads each input once and writes the output once, with no intermediate tensor in memory.
///
/// The expression is validated once, at the context's feature level (`Fused::new`); its
/// kernel is generated from its structure (the constants' values are the call's, so
/// expressions that differ only in them share a pipeline) and compiled when a call first
/// needs it, or by [`Fused::warm_up`]. Inputs may broadcast to the output's shape (a size of
/// 1, or a shorter shape aligned at the end, as [`crate::DmlBinaryDesc`]'s inputs cannot but
/// OpenVINO's NUMPY rule can), and every operand may have strides; an input bound to exactly
/// the output's range with the output's type and layout is read in place.
///
/// ```no_run
/// use gpu_xor::{Context, DataType, Expr, ExprBindings, Fused, Operator, TensorBinding, TensorDesc};
///
/// # fn main() -> Result<(), gpu_xor::Error> {
/// # let ctx = Context::from_env()?;
/// # let (a, b, out): (wgpu::Buffer, wgpu::Buffer, wgpu::Buffer) = unimplemented!();
/// // (a ^ b) & (a | b), in one pass over memory.
/// let t = TensorDesc::new(DataType::U32, &[1 << 20]);
/// let mut e = Expr::new();
/// let (x, y) = (e.input(t.clone()), e.input(t.clone()));
/// let xor = e.apply(Operator::BitXor, &[x, y]);
/// let or = e.apply(Operator::BitOr, &[x, y]);
/// let and = e.apply(Operator::BitAnd, &[xor, or]);
/// let fused = Fused::new(&ctx, &e.output(and, t))?;
/// fused.run(&ExprBindings::new(
///     &[TensorBinding::new(&a), TensorBinding::new(&b)],
///     TensorBinding::new(&out),
/// ))?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Fused {
    ctx: Context,
    plan: FusedPlan,
    desc: ExprDesc,
    /// The storage of the inputs it owns, filled when it was made.
    owned: [Option<wgpu::Buffer>; MAX_EXPR_INPUTS],
}

impl Fused {
    /// Validates `desc` at the context's feature level and prepares the operator. Every rule
    /// of the expression is checked here, once (see [`ExprDesc::validate`]).
    ///
    /// This makes no wgpu call. An input flagged [`TensorFlags::OwnedByDml`] needs its bytes
    /// now: see [`Fused::with_owned_inputs`]; here it is [`Error::OwnedInputMissing`].
    pub fn new(ctx: &Context, desc: &ExprDesc) -> Result<Fused, Error> {
        Fused::with_owned_inputs(ctx, desc, &[])
    }

    /// [`Fused::new`], copying the bytes of the inputs that `desc` flags
    /// [`TensorFlags::OwnedByDml`] into storage the operator owns: `owned[k]` is input `k`'s
    /// binding (`None` for an input bound with each call). Calls then give those inputs as
    /// [`crate::Input::Owned`] ([`ExprBindings::with_inputs`]). The rules are those of
    /// [`crate::DmlBinary::with_owned_inputs`]: an input flagged but not given is
    /// [`Error::OwnedInputMissing`], one given but not flagged [`Error::OwnedInputBound`].
    pub fn with_owned_inputs(
        ctx: &Context,
        desc: &ExprDesc,
        owned: &[Option<TensorBinding<'_>>],
    ) -> Result<Fused, Error> {
        let operands = desc.operands(ctx.feature_level)?;
        let plan = FusedPlan::new(&operands);
        let inputs = operands.input_count();
        if owned.len() > inputs {
            return Err(Error::ExprCount {
                what: "owned inputs",
                count: owned.len(),
                min: 0,
                max: inputs,
            });
        }
        let mut storage: [Option<wgpu::Buffer>; MAX_EXPR_INPUTS] = Default::default();
        for (k, slot) in storage.iter_mut().enumerate().take(inputs) {
            let tensor = TensorName::Input(k as u8);
            let flagged = desc.inputs[k].flags == TensorFlags::OwnedByDml;
            match (flagged, owned.get(k).copied().flatten()) {
                (true, None) => return Err(Error::OwnedInputMissing { tensor }),
                (false, Some(_)) => return Err(Error::OwnedInputBound { tensor }),
                (true, Some(binding)) => {
                    *slot = Some(own(ctx, operands.input(k), tensor, &binding)?);
                }
                (false, None) => {}
            }
        }
        Ok(Fused {
            ctx: ctx.clone(),
            plan,
            desc: desc.clone(),
            owned: storage,
        })
    }

    fn owned(&self) -> [Option<&wgpu::Buffer>; MAX_EXPR_INPUTS] {
        std::array::from_fn(|k| self.owned[k].as_ref())
    }

    fn push<'a>(
        &'a self,
        batch: &mut Batch,
        bindings: &ExprBindings<'a>,
    ) -> Result<(RecordSummary, ExprNamedBuffers<'a>, usize), Error> {
        batch.push_expr(&self.ctx, &self.plan, self.owned(), bindings)
    }

    /// Records the expression into the caller's encoder, on the caller's buffers, as
    /// [`crate::DmlBinary::record`] records an operator: the bindings are checked first and
    /// nothing is recorded on an error; only the output's elements are written.
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        bindings: &ExprBindings<'_>,
    ) -> Result<RecordSummary, Error> {
        let mut batch = self.ctx.one_shot();
        let (summary, named, count) = self.push(&mut batch, bindings)?;
        batch.record_named(encoder, &names(&named)[..count])?;
        Ok(summary)
    }

    /// Checks, lowers and binds one call once, and makes its metadata, bind groups and
    /// pipeline: the [`Prepared`] call records any number of times with no further cost, and
    /// joins a [`crate::Graph`] as an operator's does.
    pub fn prepare(&self, bindings: &ExprBindings<'_>) -> Result<Prepared, Error> {
        let mut batch = self.ctx.single_call();
        let (_, named, count) = self.push(&mut batch, bindings)?;
        batch.prepare_named(&names(&named)[..count])
    }

    /// Compiles, now, the pipelines a call that fits one binding window needs on distinct
    /// buffers or with an input in place; returns how many were compiled.
    pub fn warm_up(&self) -> Result<usize, Error> {
        let shared = &*self.ctx.shared;
        if let Some(lost) = shared.lost() {
            return Err(lost);
        }
        let keys: Vec<_> = fused_pipeline_keys(
            &self.plan,
            (!shared.untiled_contractions).then_some(!shared.cpu_rule),
        )
        .into_iter()
        .filter(|k| !shared.kernels.keep(k))
        .collect();
        compile_all(shared, &keys)?;
        Ok(keys.len())
    }

    /// Records into a new encoder of its own and submits it, without waiting (see
    /// [`crate::DmlBinary::submit`]).
    pub fn submit(&self, bindings: &ExprBindings<'_>) -> Result<RecordSummary, Error> {
        Ok(self.submit_indexed(bindings)?.0)
    }

    fn submit_indexed(
        &self,
        bindings: &ExprBindings<'_>,
    ) -> Result<(RecordSummary, wgpu::SubmissionIndex), Error> {
        submit_recorded(&self.ctx, |encoder| {
            let mut batch = self.ctx.one_shot();
            let (summary, named, count) = self.push(&mut batch, bindings)?;
            batch.record_named(encoder, &names(&named)[..count])?;
            Ok((summary, named))
        })
    }

    /// [`Fused::submit`], then waits without blocking until the device has finished.
    pub async fn run_async(&self, bindings: &ExprBindings<'_>) -> Result<RecordSummary, Error> {
        let summary = self.submit(bindings)?;
        self.ctx.wait_async().await?;
        Ok(summary)
    }

    /// [`Fused::submit`], then blocks until the call has finished (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn run(&self, bindings: &ExprBindings<'_>) -> Result<RecordSummary, Error> {
        let (summary, index) = self.submit_indexed(bindings)?;
        super::operator::wait_for(&self.ctx, index)?;
        Ok(summary)
    }

    /// The plan decided at creation.
    pub fn plan(&self) -> &FusedPlan {
        &self.plan
    }

    /// The description it was made from.
    pub fn desc(&self) -> &ExprDesc {
        &self.desc
    }

    /// The context it records on.
    pub fn context(&self) -> &Context {
        &self.ctx
    }
}

/// The named buffers of a call, as the batch's recording names a refused one.
fn names<'a>(
    named: &ExprNamedBuffers<'a>,
) -> [(TensorName, &'a wgpu::Buffer); 1 + MAX_EXPR_INPUTS] {
    named.map(|(t, b)| (t.unwrap_or(TensorName::Output), b))
}

impl Batch {
    /// Adds one call of the fused expression `op` on `bindings`, as [`Batch::push`] adds an
    /// operator's: checked and lowered now, nothing added on an error.
    pub fn push_fused(
        &mut self,
        op: &Fused,
        bindings: &ExprBindings<'_>,
    ) -> Result<RecordSummary, Error> {
        Ok(op.push(self, bindings)?.0)
    }
}
