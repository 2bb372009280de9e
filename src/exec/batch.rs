//! A batch: many calls checked and lowered as they are pushed, merged into as few dispatches
//! as their independence allows, and encoded once when prepared; and [`CompiledOperator`], what a
//! batch asks of the operators it records (defined here, implemented by the operators above).

use std::collections::HashMap;
use std::sync::Arc;

use super::binding::{Bindings, ExprBindings, Input, TensorBinding, require_usage};
use super::context::Context;
use super::encode::Prepared;
use super::shared::Shared;
use crate::desc::{MAX_EXPR_INPUTS, TensorName};
use crate::error::Error;
use crate::layout::{FusedPlan, Plan};
use crate::schedule::KernelChoices;
use crate::schedule::PipelineKey;
use crate::schedule::Target;
use crate::schedule::fused::lower_fused;
use crate::schedule::lower::{
    Lowered, MAX_SLOTS, Operand, RecordSummary, lower_with, pipeline_keys,
};
use crate::schedule::merge::{Schedule, direct_form};

/// Many calls recorded together, as few dispatches as their independence allows.
///
/// One uniform buffer holds the metadata of every call, one bind group serves every call on
/// the same buffers, and one compute pass holds them all. Consecutive calls of one kernel on
/// the same bindings with the same grid share a dispatch (one call per workgroup layer), as
/// long as none of them writes bytes that another of them reads or writes; a call that
/// depends on an earlier one starts a new dispatch, and wgpu orders dispatches.
///
/// Each [`Batch::push`] checks its bindings at once and adds nothing on an error; calls take
/// effect in the order they were pushed.
///
/// ```no_run
/// use gpu_xor::{DmlBinary, BitXorDesc, Context, DataType, TensorBinding, Bindings};
///
/// # fn main() -> Result<(), gpu_xor::Error> {
/// # let ctx = Context::from_env()?;
/// # let (a, b, out): (wgpu::Buffer, wgpu::Buffer, wgpu::Buffer) = unimplemented!();
/// let op = DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::U32, &[1024]))?;
/// let mut batch = ctx.batch();
/// for i in 0..1000 {
///     let at = i * 4096;
///     batch.push(
///         &op,
///         &Bindings::new(
///             TensorBinding::range(&a, at, 4096),
///             TensorBinding::range(&b, at, 4096),
///             TensorBinding::range(&out, at, 4096),
///         ),
///     )?;
/// }
/// // Prepared once (metadata, bind groups, pipelines), recorded as often as needed.
/// let prepared = batch.prepare()?;
/// let mut encoder = ctx.device().create_command_encoder(&Default::default());
/// prepared.record(&mut encoder)?;
/// ctx.queue().submit([encoder.finish()]);
/// # Ok(())
/// # }
/// ```
pub struct Batch {
    ctx: Context,
    /// Every distinct buffer the pushed calls bind, and its index.
    buffers: Vec<wgpu::Buffer>,
    buffer_index: HashMap<wgpu::Buffer, usize>,
    schedule: Schedule,
    summaries: Vec<RecordSummary>,
    /// Whether calls on the same buffers bind them whole, to share bind groups (false for
    /// the batch of one call that `prepare` and `record` of an operator make).
    share: bool,
    /// Kernel choices that replace the context's for this batch (a measurement's candidate).
    pub(crate) choices: Option<Arc<KernelChoices>>,
}

impl std::fmt::Debug for Batch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batch")
            .field("calls", &self.summaries.len())
            .field("records", &self.schedule.records.len())
            .field("dispatches", &self.schedule.groups.len())
            .field("bind_groups", &self.schedule.bind_sets.len())
            .finish()
    }
}

impl Context {
    /// Compiles every pipeline that calls of `ops` can need when they fit one binding window,
    /// each distinct pipeline once ([`Context::warm_up`]); returns how many were compiled.
    pub(crate) fn compile_for(&self, ops: &[&dyn CompiledOperator]) -> Result<usize, Error> {
        let shared = &*self.shared;
        if ops
            .iter()
            .any(|op| !std::sync::Arc::ptr_eq(&op.context().shared, &self.shared))
        {
            return Err(Error::ContextMismatch);
        }
        if let Some(lost) = shared.lost() {
            return Err(lost);
        }
        let mut keys = Vec::new();
        for op in ops {
            for key in pipeline_keys(op.plan(), shared.max_groups) {
                if !shared.kernels.keep(&key) && !keys.contains(&key) {
                    keys.push(key);
                }
            }
        }
        compile_all(shared, &keys)?;
        Ok(keys.len())
    }

    /// An empty batch on this context.
    pub fn batch(&self) -> Batch {
        Batch {
            ctx: self.clone(),
            buffers: Vec::new(),
            buffer_index: HashMap::new(),
            schedule: Schedule::with_max_groups(self.shared.max_groups),
            summaries: Vec::new(),
            share: true,
            choices: None,
        }
    }

    /// An empty batch for one call prepared alone, with bind groups of its own: each
    /// operand's range is bound rather than its whole buffer, so that an operand at an aligned
    /// offset starts its binding.
    pub(crate) fn single_call(&self) -> Batch {
        Batch {
            share: false,
            ..self.batch()
        }
    }

    /// An empty batch for a call recorded once and dropped (`record`, `submit`, `run`): each
    /// buffer bound whole where it fits one binding, so that calls on the same buffers, at
    /// any offsets, find the bind group an earlier one kept on its records' slab.
    pub(crate) fn one_shot(&self) -> Batch {
        self.batch()
    }

    /// What lowering needs to know of the device.
    pub(crate) fn target(&self) -> Target {
        let shared = &*self.shared;
        Target {
            windows: shared.windows,
            max_groups: shared.max_groups,
            strict_aliasing: shared.strict_aliasing,
            cpu: shared.cpu_rule,
            choices: shared.choices.lock().ok().and_then(|c| c.clone()),
            tiled: !shared.untiled_contractions,
        }
    }
}

/// Each bound buffer of one call with its tensor (A, B, output), so that a buffer wgpu refuses
/// can be named.
pub(crate) type NamedBuffers<'a> = [(TensorName, &'a wgpu::Buffer); 3];

/// Each bound buffer of one fused call with its tensor (the output, then each input; the
/// slots past the expression's inputs repeat the output).
pub(crate) type ExprNamedBuffers<'a> =
    [(Option<TensorName>, &'a wgpu::Buffer); 1 + MAX_EXPR_INPUTS];

impl Batch {
    /// Adds one call of `op` on `bindings`. The bindings are checked now, and the pipelines
    /// the call needs alone are compiled now (where the batch merges it into one dispatch
    /// with other calls, [`Batch::prepare`] compiles that dispatch's form if no call has
    /// yet; [`Context::warm_up`] compiles every form ahead); on an error nothing is added.
    pub fn push(
        &mut self,
        op: &impl CompiledOperator,
        bindings: &Bindings<'_>,
    ) -> Result<RecordSummary, Error> {
        let (summary, _) = self.push_plan(op.context(), op.plan(), op.owned(), bindings)?;
        Ok(summary)
    }

    /// Adds one call of `plan`; `owned` holds the buffers of the inputs the operator owns.
    /// Gives back the call's summary and each bound buffer with its tensor (A, B, output),
    /// resolved once here, so that a caller can name a buffer that a later step refuses.
    pub(crate) fn push_plan<'a>(
        &mut self,
        ctx: &Context,
        plan: &Plan,
        owned: [Option<&'a wgpu::Buffer>; 2],
        bindings: &Bindings<'a>,
    ) -> Result<(RecordSummary, NamedBuffers<'a>), Error> {
        self.ready(ctx)?;
        let [a, b] = resolve(plan, owned, bindings)?;
        let bound = [bindings.output, a, b];
        let names = [TensorName::Output, TensorName::A, TensorName::B];
        let (keys, operands) = operands(&bound, |o| names[o])?;
        let mut target = self.ctx.target();
        if let Some(forced) = &self.choices {
            target.choices = Some(forced.clone());
        }
        let lowered = lower_with(
            plan,
            [operands[0], operands[1], operands[2]],
            &target,
            self.share,
        )?;
        self.join(&lowered, &bound, &keys)?;
        let named = [
            (TensorName::A, a.buffer),
            (TensorName::B, b.buffer),
            (TensorName::Output, bindings.output.buffer),
        ];
        Ok((lowered.summary, named))
    }

    /// Adds one call of the fused expression `plan`; `owned` holds the buffers of the inputs
    /// the operator owns. Gives back the call's summary, each bound buffer with its tensor
    /// (the output, then each input), and how many of those there are.
    pub(crate) fn push_expr<'a>(
        &mut self,
        ctx: &Context,
        plan: &FusedPlan,
        owned: [Option<&'a wgpu::Buffer>; MAX_EXPR_INPUTS],
        bindings: &ExprBindings<'a>,
    ) -> Result<(RecordSummary, ExprNamedBuffers<'a>, usize), Error> {
        self.ready(ctx)?;
        let inputs = plan.expr().input_count();
        if bindings.input_count() != inputs {
            return Err(Error::ExprCount {
                what: "input bindings",
                count: bindings.input_count(),
                min: inputs,
                max: inputs,
            });
        }
        let mut bound = [bindings.output; 1 + MAX_EXPR_INPUTS];
        for k in 0..inputs {
            let tensor = TensorName::Input(k as u8);
            bound[1 + k] = match (owned[k], bindings.input(k)) {
                (Some(buffer), Input::Owned) => TensorBinding::new(buffer),
                (None, Input::Bound(binding)) => binding,
                (Some(_), Input::Bound(_)) | (None, Input::Owned) => {
                    return Err(Error::OwnedInputBound { tensor });
                }
                (_, Input::Absent) => return Err(Error::MissingBinding { tensor }),
            };
        }
        let count = 1 + inputs;
        let name = |o: usize| {
            if o == 0 {
                TensorName::Output
            } else {
                TensorName::Input((o - 1) as u8)
            }
        };
        let (keys, operands) = operands(&bound[..count], name)?;
        let target = self.ctx.target();
        let lowered = lower_fused(plan, &operands[..count], &target, self.share)?;
        self.join(&lowered, &bound[..count], &keys)?;
        let named = std::array::from_fn(|o| (Some(name(o)), bound[o].buffer));
        Ok((lowered.summary, named, count))
    }

    /// Whether a call on `ctx` may be pushed: the batch's context, and no loss already seen
    /// (checking the device on every push would cost an allocation per call; preparing
    /// always finds a lost device).
    fn ready(&self, ctx: &Context) -> Result<(), Error> {
        if !std::sync::Arc::ptr_eq(&ctx.shared, &self.ctx.shared) {
            return Err(Error::ContextMismatch);
        }
        match self.ctx.shared.known_lost() {
            Some(lost) => Err(lost),
            None => Ok(()),
        }
    }

    /// Adds a lowered call whose operands are `bound`, known by `keys`: the pipelines its
    /// pieces run alone are compiled, then (nothing having failed) its buffers join the
    /// table and its pieces the schedule.
    fn join(
        &mut self,
        lowered: &Lowered,
        bound: &[TensorBinding<'_>],
        keys: &[usize],
    ) -> Result<(), Error> {
        compile(&self.ctx.shared, &lowered.pieces)?;
        let mut table = [0usize; MAX_SLOTS];
        for (b, &key) in bound.iter().zip(keys) {
            table[key] = self.index_of(b.buffer);
        }
        self.schedule.add_call(&lowered.pieces, &table);
        self.summaries.push(lowered.summary.clone());
        Ok(())
    }

    /// The index of `buffer` in the batch's table, added if it is new.
    fn index_of(&mut self, buffer: &wgpu::Buffer) -> usize {
        match self.buffer_index.get(buffer) {
            Some(&i) => i,
            None => {
                self.buffers.push(buffer.clone());
                self.buffer_index
                    .insert(buffer.clone(), self.buffers.len() - 1);
                self.buffers.len() - 1
            }
        }
    }

    /// The number of metadata records so far: one per piece of each pushed call (a call
    /// larger than one binding is several pieces, a tile piece of more than 65,535 tile rows
    /// several records, an empty output none).
    pub fn len(&self) -> usize {
        self.schedule.records.len()
    }

    /// Whether nothing has been pushed (or only calls with empty outputs).
    pub fn is_empty(&self) -> bool {
        self.schedule.records.is_empty()
    }

    /// The number of dispatches a recording records: consecutive independent calls of one
    /// kernel on the same bindings whose grids agree (shapes may differ) share one.
    pub fn dispatch_count(&self) -> usize {
        self.schedule.groups.len()
    }

    /// How many distinct sets of bound ranges the pushed calls use: the number of bind groups
    /// a preparation creates per metadata buffer. Calls on the same buffers share one
    /// whenever those buffers fit a binding whole.
    pub fn bind_group_count(&self) -> usize {
        self.schedule.bind_sets.len()
    }

    /// Makes the metadata buffer, the bind groups and the pipelines of every pushed call, once:
    /// the [`Prepared`] batch records any number of times with no further cost.
    ///
    /// Every wgpu object is made inside error scopes: a lost device is
    /// [`Error::DeviceLost`], and a bound buffer that was destroyed (or belongs to another
    /// device) is [`Error::InvalidBuffer`].
    pub fn prepare(&self) -> Result<Prepared, Error> {
        self.prepare_named(&[])
    }

    pub(crate) fn prepare_named(
        &self,
        named: &[(TensorName, &wgpu::Buffer)],
    ) -> Result<Prepared, Error> {
        self.encode(named, false)
    }

    /// The wgpu objects of every pushed call ([`Prepared::new`]), for a prepared call or a
    /// `one_shot` one.
    fn encode(
        &self,
        named: &[(TensorName, &wgpu::Buffer)],
        one_shot: bool,
    ) -> Result<Prepared, Error> {
        Prepared::new(
            &self.ctx,
            &self.schedule,
            &self.buffers,
            self.summaries.clone(),
            named,
            one_shot,
        )
    }

    /// Records every pushed call into `encoder`, in order, in one compute pass: a
    /// [`Batch::prepare`] and one recording of what it prepared. To record the same calls
    /// again, keep the [`Prepared`] batch instead.
    ///
    /// Its records come from the context's one-shot metadata buffers and go back once the GPU
    /// has run the submission of `encoder` (or `encoder` is dropped unsubmitted); its bind
    /// groups are those the context keeps where one binds the same, and those it makes are
    /// kept (see [`crate::RecordingObjects`]).
    ///
    /// Every wgpu object is made inside error scopes before anything is recorded: a lost
    /// device is [`Error::DeviceLost`], a bound buffer that was destroyed (or belongs to
    /// another device) is [`Error::InvalidBuffer`] where a bind group naming it is made, and
    /// on these errors nothing is recorded. What wgpu checks only at submission (a buffer
    /// destroyed or mapped after this call, or destroyed after an earlier one-shot call kept
    /// the bind group this one reuses) is reported by the caller's `Queue::submit`, to the
    /// device's uncaptured-error handler or the caller's error scope.
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder) -> Result<(), Error> {
        self.record_named(encoder, &[])
    }

    /// [`Batch::record`], naming the tensor of a refused buffer found in `named`.
    pub(crate) fn record_named(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        named: &[(TensorName, &wgpu::Buffer)],
    ) -> Result<(), Error> {
        if self.schedule.groups.is_empty() {
            return Ok(());
        }
        let call = self.encode(named, true)?;
        call.record_checked(encoder, named)?;
        call.retire_after(encoder);
        Ok(())
    }
}

/// Compiles `keys` for a warm-up, which keeps them for the context's life, on several
/// threads where the platform has them.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn compile_all(shared: &Shared, keys: &[PipelineKey]) -> Result<(), Error> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8)
        .min(keys.len());
    if threads <= 1 {
        for key in keys {
            shared.kernels.warm(&shared.device, &shared.late, key)?;
        }
        return Ok(());
    }
    // Each thread takes every `threads`-th key; error scopes are per thread in wgpu.
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    for key in keys.iter().skip(t).step_by(threads) {
                        shared.kernels.warm(&shared.device, &shared.late, key)?;
                    }
                    Ok::<(), Error>(())
                })
            })
            .collect();
        let mut result = Ok(());
        for worker in workers {
            let done = worker.join().unwrap_or_else(|_| {
                Err(Error::Pipeline(crate::error::WgpuError::message_only(
                    "a thread compiling a pipeline panicked",
                )))
            });
            if result.is_ok() {
                result = done;
            }
        }
        result
    })
}

#[cfg(target_arch = "wasm32")]
pub(crate) fn compile_all(shared: &Shared, keys: &[PipelineKey]) -> Result<(), Error> {
    for key in keys {
        shared.kernels.warm(&shared.device, &shared.late, key)?;
    }
    Ok(())
}

/// The operands of a call bound to `bound` (the output first), each buffer checked for
/// `STORAGE` (`name` gives each operand's tensor) and known by a key: the output's is 0, an
/// input's that of the first earlier operand in its buffer, else the next.
fn operands(
    bound: &[TensorBinding<'_>],
    name: impl Fn(usize) -> TensorName,
) -> Result<([usize; MAX_SLOTS], [Operand; MAX_SLOTS]), Error> {
    let mut keys = [0usize; MAX_SLOTS];
    let mut next = 0;
    for (o, b) in bound.iter().enumerate() {
        require_usage(b.buffer, Some(name(o)), wgpu::BufferUsages::STORAGE)?;
        keys[o] = match (0..o).find(|&p| bound[p].buffer == b.buffer) {
            Some(p) => keys[p],
            None => {
                next += 1;
                next - 1
            }
        };
    }
    let operands = std::array::from_fn(|o| {
        let b = bound.get(o).unwrap_or(&bound[0]);
        Operand {
            buffer: keys[o],
            buffer_size: b.buffer.size(),
            offset: b.offset,
            size: b.size,
        }
    });
    Ok((keys, operands))
}

/// Compiles the pipeline each of `pieces` runs alone: the contiguous kernel's direct form
/// where its one record has one (`Schedule::dispatch_key` gives it to a dispatch of that
/// record alone, as every call prepared or recorded alone is), else the key it was lowered
/// with. A dispatch that merges it with other calls runs the lowered key, compiled when
/// the batch is prepared if it is not yet.
fn compile(shared: &Shared, pieces: &[crate::schedule::lower::LoweredPiece]) -> Result<(), Error> {
    for piece in pieces {
        let direct = match &piece.records[..] {
            [one] => direct_form(&piece.key, &one.params),
            _ => None,
        };
        let key = direct.as_ref().unwrap_or(&piece.key);
        shared.kernels.pipeline(&shared.device, &shared.late, key)?;
    }
    Ok(())
}

/// The bindings of A and B: the caller's, or the operator's own storage for an input it owns
/// (which the caller must not bind: DirectML's `DML_BINDING_TYPE_NONE`).
fn resolve<'a>(
    plan: &Plan,
    owned: [Option<&'a wgpu::Buffer>; 2],
    bindings: &Bindings<'a>,
) -> Result<[TensorBinding<'a>; 2], Error> {
    let inputs = plan.operator().inputs();
    let given = [bindings.a, bindings.b];
    let names = [TensorName::A, TensorName::B];
    let mut out = [bindings.output; 2];
    for i in 0..2 {
        out[i] = match (i < inputs, owned[i], given[i]) {
            (true, Some(buffer), Input::Owned | Input::Absent) => TensorBinding::new(buffer),
            (true, None, Input::Bound(binding)) => binding,
            // Bound again, or given as owned where the operator owns nothing.
            (true, Some(_), Input::Bound(_)) | (true, None, Input::Owned) => {
                return Err(Error::OwnedInputBound { tensor: names[i] });
            }
            (true, None, Input::Absent) => {
                return Err(Error::MissingBinding { tensor: names[i] });
            }
            // One input, read in B's place too (the kernels never use the value).
            (false, _, Input::Absent) => out[0],
            (false, _, Input::Bound(_) | Input::Owned) => {
                return Err(Error::ExtraBinding {
                    operator: plan.operator(),
                    tensor: names[i],
                });
            }
        };
    }
    Ok(out)
}

pub(super) mod sealed {
    /// Not nameable outside the crate: what the crate asks of an operator beyond the trait.
    pub trait Sealed {
        /// The buffers of the inputs it owns (A, B).
        fn owned(&self) -> [Option<&wgpu::Buffer>; 2];
    }
}

/// A compiled operator that a [`crate::Batch`] can record: any of the crate's
/// ([`DmlBinary`](crate::DmlBinary), [`DmlUnary`](crate::DmlUnary),
/// [`OvBinary`](crate::OvBinary), [`OvUnary`](crate::OvUnary)).
pub trait CompiledOperator: sealed::Sealed {
    /// The plan decided at creation.
    fn plan(&self) -> &Plan;
    /// The context it records on.
    fn context(&self) -> &Context;
    /// Checks, lowers and binds one call once: see [`DmlBinary::prepare`](crate::DmlBinary::prepare).
    fn prepare(&self, bindings: &Bindings<'_>) -> Result<Prepared, Error>;
    /// Compiles every pipeline a call may need: see [`DmlBinary::warm_up`](crate::DmlBinary::warm_up).
    fn warm_up(&self) -> Result<usize, Error>;
}
