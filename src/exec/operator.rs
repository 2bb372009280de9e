//! Compiled operators: validated once, recorded many times.

use super::batch::{CompiledOperator, NamedBuffers, sealed};
use super::binding::{Bindings, OwnedInputs, TensorBinding, require_usage};
use super::context::Context;
use super::encode::Prepared;
use crate::desc::TensorName;
use crate::desc::{DmlBinaryDesc, DmlUnaryDesc, OvBinaryDesc, OvUnaryDesc, TensorFlags};
use crate::error::{Error, WgpuError};
use crate::layout::Plan;
use crate::schedule::lower::{RecordSummary, pipeline_keys};
use crate::scope::capture;

/// What the compiled operators share.
#[derive(Clone, Debug)]
struct Compiled {
    ctx: Context,
    plan: Plan,
    /// The storage of the inputs it owns (A, B), filled when it was made.
    owned: [Option<wgpu::Buffer>; 2],
}

impl Compiled {
    /// Keeps the plan. Pipelines are made when a call first needs them (the kernel and its
    /// constants depend on the bindings too) and cached on the context.
    ///
    /// `flagged` says which inputs the description flags owned, `given` their bytes: each
    /// flagged input is copied into storage of the operator's own, and an input given but
    /// not flagged (or flagged but not given) is an error.
    fn new(
        ctx: &Context,
        plan: Plan,
        flagged: [bool; 2],
        given: &OwnedInputs<'_>,
    ) -> Result<Compiled, Error> {
        let given = [given.a, given.b];
        let names = [TensorName::A, TensorName::B];
        for i in 0..2 {
            match (flagged[i], given[i]) {
                (true, None) => return Err(Error::OwnedInputMissing { tensor: names[i] }),
                (false, Some(_)) => return Err(Error::OwnedInputBound { tensor: names[i] }),
                _ => {}
            }
        }
        let mut owned = [None, None];
        for i in 0..2 {
            if let Some(binding) = given[i] {
                owned[i] = Some(own(ctx, plan.operand(names[i]), names[i], &binding)?);
            }
        }
        Ok(Compiled {
            ctx: ctx.clone(),
            plan,
            owned,
        })
    }

    fn owned(&self) -> [Option<&wgpu::Buffer>; 2] {
        [self.owned[0].as_ref(), self.owned[1].as_ref()]
    }

    fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        bindings: &Bindings<'_>,
    ) -> Result<RecordSummary, Error> {
        self.record_named(encoder, bindings)
            .map(|(summary, _)| summary)
    }

    /// [`Compiled::record`], giving back each bound buffer with its tensor too: the bindings
    /// are resolved once, by the batch.
    fn record_named<'a>(
        &'a self,
        encoder: &mut wgpu::CommandEncoder,
        bindings: &Bindings<'a>,
    ) -> Result<(RecordSummary, NamedBuffers<'a>), Error> {
        let mut batch = self.ctx.one_shot();
        let (summary, named) = batch.push_plan(&self.ctx, &self.plan, self.owned(), bindings)?;
        batch.record_named(encoder, &named)?;
        Ok((summary, named))
    }

    fn prepare(&self, bindings: &Bindings<'_>) -> Result<Prepared, Error> {
        let mut batch = self.ctx.single_call();
        let (_, named) = batch.push_plan(&self.ctx, &self.plan, self.owned(), bindings)?;
        batch.prepare_named(&named)
    }

    /// Compiles every pipeline a call that fits one window may need; returns how many were
    /// compiled now.
    fn warm_up(&self) -> Result<usize, Error> {
        let shared = &*self.ctx.shared;
        if let Some(lost) = shared.lost() {
            return Err(lost);
        }
        let mut compiled = 0;
        for key in pipeline_keys(&self.plan, shared.max_groups) {
            if !shared.kernels.keep(&key) {
                shared.kernels.warm(&shared.device, &shared.late, &key)?;
                compiled += 1;
            }
        }
        Ok(compiled)
    }

    /// Records into a new encoder and submits it, without waiting.
    fn submit(
        &self,
        bindings: &Bindings<'_>,
    ) -> Result<(RecordSummary, wgpu::SubmissionIndex), Error> {
        submit_recorded(&self.ctx, |encoder| {
            self.record_named(encoder, bindings)
                .map(|(summary, named)| (summary, named.map(|(t, b)| (Some(t), b))))
        })
    }

    async fn run_async(&self, bindings: &Bindings<'_>) -> Result<RecordSummary, Error> {
        let (summary, _) = self.submit(bindings)?;
        self.ctx.wait_async().await?;
        Ok(summary)
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn run(&self, bindings: &Bindings<'_>) -> Result<RecordSummary, Error> {
        let (summary, index) = self.submit(bindings)?;
        wait_for(&self.ctx, index)?;
        Ok(summary)
    }
}

/// Records with `record` into a new encoder and submits it, without waiting; a refusal at
/// submission names the first of the buffers `record` gives back that wgpu refuses.
pub(super) fn submit_recorded<'a, const N: usize>(
    ctx: &Context,
    record: impl FnOnce(
        &mut wgpu::CommandEncoder,
    )
        -> Result<(RecordSummary, [(Option<TensorName>, &'a wgpu::Buffer); N]), Error>,
) -> Result<(RecordSummary, wgpu::SubmissionIndex), Error> {
    let shared = &*ctx.shared;
    let device = &shared.device;
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("gpu-xor run"),
    });
    let (summary, named) = record(&mut encoder)?;
    // wgpu checks at submission that no bound buffer has been destroyed or mapped since it
    // was recorded; the scope turns a refusal into an error instead of a panic in the
    // device's uncaptured-error handler.
    let index = capture(
        device,
        &shared.late,
        |e| Error::Wgpu {
            call: "Queue::submit",
            source: WgpuError::new(e),
        },
        || shared.queue.submit([encoder.finish()]),
    )
    .map_err(|e| shared.fault("Queue::submit", e, &named))?;
    Ok((summary, index))
}

/// Blocks until submission `index` has finished.
#[cfg(not(target_arch = "wasm32"))]
#[expect(
    clippy::disallowed_methods,
    reason = "the blocking form, for native callers"
)]
pub(super) fn wait_for(ctx: &Context, index: wgpu::SubmissionIndex) -> Result<(), Error> {
    let shared = &*ctx.shared;
    shared
        .device
        .poll(wgpu::PollType::Wait {
            submission_index: Some(index),
            timeout: None,
        })
        .map_err(|e| shared.lost_or(Error::Poll(WgpuError::new(e))))?;
    Ok(())
}

/// Copies the bytes of an owned input (`TotalTensorSizeInBytes` from its binding offset) into
/// a buffer of the operator's own. The copy is submitted now, so every later submission on
/// the queue sees it; the caller's buffer may change or go afterwards.
pub(super) fn own(
    ctx: &Context,
    spec: &crate::desc::Operand,
    tensor: TensorName,
    binding: &TensorBinding<'_>,
) -> Result<wgpu::Buffer, Error> {
    let shared = &*ctx.shared;
    require_usage(binding.buffer, Some(tensor), wgpu::BufferUsages::COPY_SRC)?;
    check_binding(tensor, binding, spec)?;
    if let Some(lost) = shared.lost() {
        return Err(lost);
    }
    // DirectML sizes are multiples of 4, and at least 4: a valid copy size. The storage is
    // rounded up to 16 bytes so that the vec4 kernels can read the last block whole.
    let size = spec.required_binding_size().max(4);
    let storage = size.div_ceil(16) * 16;
    let buffer = shared.create_buffer(&wgpu::BufferDescriptor {
        label: Some("gpu-xor owned input"),
        size: storage,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })?;
    let named = [(Some(tensor), binding.buffer)];
    capture(
        &shared.device,
        &shared.late,
        |e| Error::Wgpu {
            call: "Queue::submit",
            source: WgpuError::new(e),
        },
        || {
            let mut encoder =
                shared
                    .device
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: Some("gpu-xor owned input"),
                    });
            encoder.copy_buffer_to_buffer(binding.buffer, binding.offset, &buffer, 0, size);
            shared.queue.submit([encoder.finish()]);
        },
    )
    .map_err(|e| shared.fault("Queue::submit", e, &named))?;
    Ok(buffer)
}

/// The binding rules of an owned input's initializer binding (offset, bounds, size).
fn check_binding(
    tensor: TensorName,
    binding: &TensorBinding<'_>,
    spec: &crate::desc::Operand,
) -> Result<(), Error> {
    crate::schedule::lower::check_binding(
        tensor,
        &crate::schedule::lower::Operand {
            buffer: 0,
            buffer_size: binding.buffer.size(),
            offset: binding.offset,
            size: binding.size,
        },
        spec,
    )
}

macro_rules! compiled_operator {
    (
        $(#[$doc:meta])* $name:ident, $desc:ty, |$ctx:ident, $d:ident| $plan:expr,
        owned: |$o:ident| $flagged:expr
    ) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $name {
            compiled: Compiled,
            desc: $desc,
        }

        impl $name {
            /// Validates `desc` (at the context's feature level for the DirectML operators)
            /// and prepares the operator. Every description rule is checked here, once.
            ///
            /// This makes no wgpu call (pipelines are made when a call first needs them, or by
            /// [`Self::warm_up`]), so it succeeds on a lost device too; recording then reports
            /// the loss.
            ///
            /// A description that flags an input `OWNED_BY_DML` needs that input's bytes when
            /// the operator is made: see `with_owned_inputs`; here it is
            /// [`Error::OwnedInputMissing`].
            ///
            /// It takes the group's description, or anything that becomes one: an XOR
            /// operator's own description ([`BitXorDesc`](crate::BitXorDesc) and the others)
            /// is a thin constructor of its group's.
            pub fn new(
                $ctx: &Context,
                $d: &(impl Into<$desc> + Clone),
            ) -> Result<$name, Error> {
                $name::make($ctx, $d.clone().into(), &OwnedInputs::default())
            }

            fn make(
                $ctx: &Context,
                desc: $desc,
                owned: &OwnedInputs<'_>,
            ) -> Result<$name, Error> {
                let $d = &desc;
                let plan = $plan?;
                let $o = $d;
                Ok($name {
                    compiled: Compiled::new($ctx, plan, $flagged, owned)?,
                    desc,
                })
            }

            /// Records the operator into the caller's encoder, on the caller's buffers.
            ///
            /// The bindings are checked first (usage, offsets, sizes, how they share buffers);
            /// on an error nothing is recorded. Only the output's elements are written: every
            /// other byte of every buffer keeps its value.
            ///
            /// A lost device is [`Error::DeviceLost`] and a bound buffer that was destroyed
            /// (or belongs to another device) [`Error::InvalidBuffer`], with nothing
            /// recorded, where the call makes its bind group. A buffer destroyed after this
            /// call, or still mapped when the caller submits, is wgpu's to report at the
            /// caller's `Queue::submit` (the caller's duty; see [`crate::TensorBinding`]), and
            /// so is a buffer destroyed after an earlier one-shot call on the same bindings
            /// kept the bind group this call reuses.
            ///
            /// It makes no buffer and, after the first call on the same buffers, no bind
            /// group: its metadata record comes from the context's one-shot metadata buffers
            /// and goes back once the GPU has run the submission of `encoder` (or `encoder` is
            /// dropped unsubmitted), and its bind group is one the context keeps (see
            /// [`crate::RecordingObjects`]). Preparing the call ([`Self::prepare`]) saves the
            /// lowering too.
            pub fn record(
                &self,
                encoder: &mut wgpu::CommandEncoder,
                bindings: &Bindings<'_>,
            ) -> Result<RecordSummary, Error> {
                self.compiled.record(encoder, bindings)
            }

            /// Checks, lowers and binds one call once, and makes its metadata buffer, bind
            /// groups and pipelines: the [`Prepared`] call records into any number of encoders
            /// (or open compute passes) with no further cost. The recommended way to embed the
            /// operator in a program that runs the same call many times.
            ///
            /// Errors are those of [`Self::record`]; on an error nothing is made.
            pub fn prepare(&self, bindings: &Bindings<'_>) -> Result<Prepared, Error> {
                self.compiled.prepare(bindings)
            }

            /// Compiles, now, every pipeline a call of this operator can need when it fits one
            /// binding window: every way of binding its operands (distinct buffers, in place,
            /// inputs sharing a buffer) and every kernel their alignment can select. Returns how
            /// many pipelines were compiled (0 when all were already). After it, preparing or
            /// recording such a call compiles nothing. Pipelines are shared by every operator
            /// on the context; with [`crate::ContextOptions::pipeline_cache`] they are compiled
            /// through the caller's cache.
            ///
            /// Under [`crate::KernelTuning::Measured`] it then measures the operator's layout
            /// class on the device where it has no choice yet, blocking until the candidates
            /// have run ([`Context::tune`]; in a browser nothing may block: await
            /// [`Context::warm_up_async`] there).
            ///
            /// A lost device is [`Error::DeviceLost`]; a kernel the driver refuses,
            /// [`Error::Pipeline`].
            pub fn warm_up(&self) -> Result<usize, Error> {
                let compiled = self.compiled.warm_up()?;
                #[cfg(not(target_arch = "wasm32"))]
                if self.compiled.ctx.kernel_tuning() == crate::KernelTuning::Measured {
                    self.compiled.ctx.tune(&[self])?;
                }
                Ok(compiled)
            }

            /// Records into a new encoder of its own and submits it, without waiting: a
            /// read-back (or [`Context::wait_async`]) that follows sees its writes.
            ///
            /// Faults are errors here, submission included: [`Error::DeviceLost`],
            /// [`Error::InvalidBuffer`] (destroyed, mapped or of another device), or
            /// [`Error::Wgpu`] for a refusal that names no buffer. In a browser, what the GPU
            /// process reports later is returned by the next asynchronous call on the context
            /// ([`Context::check_async`]).
            pub fn submit(&self, bindings: &Bindings<'_>) -> Result<RecordSummary, Error> {
                Ok(self.compiled.submit(bindings)?.0)
            }

            /// [`Self::submit`], then waits without blocking until the device has finished
            /// its work ([`Context::wait_async`]): every error of the call, on every platform,
            /// is returned here.
            pub async fn run_async(
                &self,
                bindings: &Bindings<'_>,
            ) -> Result<RecordSummary, Error> {
                self.compiled.run_async(bindings).await
            }

            /// [`Self::submit`], then blocks until the call has finished (native only: in a
            /// browser or an async runtime, await [`Self::run_async`]).
            ///
            /// Faults are errors here, submission included: [`Error::DeviceLost`],
            /// [`Error::InvalidBuffer`] (destroyed, mapped or of another device), or
            /// [`Error::Wgpu`] for a refusal that names no buffer.
            #[cfg(not(target_arch = "wasm32"))]
            pub fn run(&self, bindings: &Bindings<'_>) -> Result<RecordSummary, Error> {
                self.compiled.run(bindings)
            }

            /// The plan decided at creation.
            pub fn plan(&self) -> &Plan {
                &self.compiled.plan
            }

            /// The description it was made from.
            pub fn desc(&self) -> &$desc {
                &self.desc
            }

            /// The context it records on.
            pub fn context(&self) -> &Context {
                &self.compiled.ctx
            }
        }

        impl sealed::Sealed for $name {
            fn owned(&self) -> [Option<&wgpu::Buffer>; 2] {
                self.compiled.owned()
            }
        }

        impl CompiledOperator for $name {
            fn plan(&self) -> &Plan {
                &self.compiled.plan
            }

            fn context(&self) -> &Context {
                &self.compiled.ctx
            }

            fn prepare(&self, bindings: &Bindings<'_>) -> Result<Prepared, Error> {
                self.compiled.prepare(bindings)
            }

            fn warm_up(&self) -> Result<usize, Error> {
                $name::warm_up(self)
            }
        }
    };
}

/// DirectML's BIT_XOR, compiled: a [`DmlBinary`], which every DirectML operator of two
/// inputs is (made here from a [`BitXorDesc`](crate::BitXorDesc), or from a [`DmlBinaryDesc`]
/// with [`DmlBinaryOp::BitXor`](crate::DmlBinaryOp::BitXor)).
#[deprecated(
    since = "0.2.0",
    note = "the type is `DmlBinary`; this alias goes in 0.3"
)]
pub type BitXor = DmlBinary;

/// DirectML's LOGICAL_XOR, compiled: a [`DmlBinary`] (made from a
/// [`LogicalXorDesc`](crate::LogicalXorDesc)).
#[deprecated(
    since = "0.2.0",
    note = "the type is `DmlBinary`; this alias goes in 0.3"
)]
pub type LogicalXor = DmlBinary;

/// OpenVINO's BitwiseXor-13, compiled: an [`OvBinary`] (made from a
/// [`BitwiseXorDesc`](crate::BitwiseXorDesc)).
#[deprecated(
    since = "0.2.0",
    note = "the type is `OvBinary`; this alias goes in 0.3"
)]
pub type BitwiseXor = OvBinary;

compiled_operator!(
    /// A compiled DirectML operator of two inputs: any [`DmlBinaryOp`](crate::DmlBinaryOp) of
    /// the operator table ([`DmlBinaryDesc::op`]; BIT_XOR and LOGICAL_XOR also from
    /// [`BitXorDesc`](crate::BitXorDesc) and [`LogicalXorDesc`](crate::LogicalXorDesc)), each
    /// with strides, in place, windows past one binding, batches, prepared calls and owned
    /// inputs.
    ///
    /// ```no_run
    /// use gpu_xor::{BitXorDesc, Context, DataType, DmlBinary, DmlBinaryDesc, DmlBinaryOp, TensorBinding, Bindings};
    ///
    /// # fn main() -> Result<(), gpu_xor::Error> {
    /// # let ctx = Context::from_env()?;
    /// # let (a, b, out): (wgpu::Buffer, wgpu::Buffer, wgpu::Buffer) = unimplemented!();
    /// let and = DmlBinary::new(&ctx, &DmlBinaryDesc::packed(DmlBinaryOp::BitAnd, DataType::U16, &[64, 64]))?;
    /// and.submit(&Bindings::new(TensorBinding::new(&a), TensorBinding::new(&b), TensorBinding::new(&out)))?;
    /// let xor = DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::F32, &[1024]))?;
    /// # Ok(())
    /// # }
    /// ```
    DmlBinary,
    DmlBinaryDesc,
    |ctx, desc| desc.operands(ctx.feature_level).map(|o| Plan::new(&o)),
    owned: |d| [d.a.flags, d.b.flags].map(|f| f == TensorFlags::OwnedByDml)
);

compiled_operator!(
    /// A compiled DirectML operator of one input: any [`DmlUnaryOp`](crate::DmlUnaryOp) of the
    /// operator table ([`DmlUnaryDesc::op`]). Its calls bind the input as A and no B
    /// ([`Bindings::unary`]); it runs in place when the output is the input's range, where its
    /// row allows it (every one but `BIT_COUNT`, whose output has a type of its own).
    ///
    /// ```no_run
    /// use gpu_xor::{Context, DataType, DmlUnary, DmlUnaryDesc, DmlUnaryOp, TensorBinding, Bindings};
    ///
    /// # fn main() -> Result<(), gpu_xor::Error> {
    /// # let ctx = Context::from_env()?;
    /// # let (input, out): (wgpu::Buffer, wgpu::Buffer) = unimplemented!();
    /// let op = DmlUnary::new(&ctx, &DmlUnaryDesc::packed(DmlUnaryOp::BitNot, DataType::U8, &[1024]))?;
    /// op.submit(&Bindings::unary(TensorBinding::new(&input), TensorBinding::new(&out)))?;
    /// // In place: the output bound to the input's range.
    /// op.submit(&Bindings::unary(TensorBinding::new(&input), TensorBinding::new(&input)))?;
    /// # Ok(())
    /// # }
    /// ```
    DmlUnary,
    DmlUnaryDesc,
    |ctx, desc| desc.operands(ctx.feature_level).map(|o| Plan::new(&o)),
    owned: |d| [d.input.flags == TensorFlags::OwnedByDml, false]
);

compiled_operator!(
    /// A compiled OpenVINO operation of two inputs with `auto_broadcast`: any
    /// [`OvBinaryOp`](crate::OvBinaryOp) of the operator table ([`OvBinaryDesc::op`];
    /// BitwiseXor-13 also from [`BitwiseXorDesc`](crate::BitwiseXorDesc)). Allocate the output
    /// from [`OvBinary::output_shape`].
    OvBinary,
    OvBinaryDesc,
    |ctx, desc| {
        let _ = ctx;
        desc.operands().map(|o| Plan::new(&o))
    },
    owned: |d| {
        let _ = d;
        [false; 2]
    }
);

compiled_operator!(
    /// A compiled OpenVINO operation of one input: any [`OvUnaryOp`](crate::OvUnaryOp) of the
    /// operator table ([`OvUnaryDesc::op`]). Its calls bind the input as A and no B ([`Bindings::unary`]).
    OvUnary,
    OvUnaryDesc,
    |ctx, desc| {
        let _ = ctx;
        desc.operands().map(|o| Plan::new(&o))
    },
    owned: |d| {
        let _ = d;
        [false; 2]
    }
);

impl OvBinary {
    /// The broadcast output shape.
    pub fn output_shape(&self) -> Vec<usize> {
        self.desc
            .output_shape()
            .expect("validated when the operator was created")
    }
}

impl OvUnary {
    /// The output shape: the input's.
    pub fn output_shape(&self) -> Vec<usize> {
        self.desc.shape.clone()
    }
}

impl DmlBinary {
    /// Validates `desc`, makes the operator, and copies the bytes of the inputs that `desc`
    /// flags `OWNED_BY_DML` (`TotalTensorSizeInBytes` from each binding's offset) into storage
    /// the operator owns: DirectML's operator initializer. Later calls give those inputs as
    /// owned ([`Bindings::owned_a`], [`Bindings::owned_b`], [`Bindings::owned_ab`]) and read
    /// the owned bytes as they were now; the caller's buffer may change or go.
    ///
    /// The copy is submitted on the context's queue before this returns, so every later
    /// submission sees it. Each owned binding follows the rules of a call's binding (offset
    /// alignment, bounds, `TotalTensorSizeInBytes`) and its buffer needs `COPY_SRC`. An input
    /// flagged but not given is [`Error::OwnedInputMissing`]; one given but not flagged,
    /// [`Error::OwnedInputBound`].
    ///
    /// ```no_run
    /// use gpu_xor::{DmlBinary, BitXorDesc, Context, DataType, OwnedInputs, TensorBinding, TensorDesc, TensorFlags, Bindings};
    ///
    /// # fn main() -> Result<(), gpu_xor::Error> {
    /// # let ctx = Context::from_env()?;
    /// # let (weights, a, out): (wgpu::Buffer, wgpu::Buffer, wgpu::Buffer) = unimplemented!();
    /// let t = TensorDesc::new(DataType::U8, &[1024]);
    /// let mut desc = BitXorDesc::new(t.clone(), t.clone(), t);
    /// desc.b.flags = TensorFlags::OwnedByDml;
    /// let op = DmlBinary::with_owned_inputs(&ctx, &desc, &OwnedInputs::b(TensorBinding::new(&weights)))?;
    /// // B is the operator's now: calls bind A and the output only.
    /// op.submit(&Bindings::owned_b(TensorBinding::new(&a), TensorBinding::new(&out)))?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn with_owned_inputs(
        ctx: &Context,
        desc: &(impl Into<DmlBinaryDesc> + Clone),
        owned: &OwnedInputs<'_>,
    ) -> Result<DmlBinary, Error> {
        DmlBinary::make(ctx, desc.clone().into(), owned)
    }
}

impl DmlUnary {
    /// Validates `desc`, makes the operator, and, when `desc` flags the input
    /// `OWNED_BY_DML`, copies its bytes ([`OwnedInputs::a`]) into storage the operator owns,
    /// with the rules of [`DmlBinary::with_owned_inputs`]. Calls then bind the output alone
    /// ([`Bindings::owned_ab`]).
    pub fn with_owned_inputs(
        ctx: &Context,
        desc: &DmlUnaryDesc,
        owned: &OwnedInputs<'_>,
    ) -> Result<DmlUnary, Error> {
        DmlUnary::make(ctx, desc.clone(), owned)
    }
}
