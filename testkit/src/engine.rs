//! The execution engine the conformance runner and the test suite share: sentinel-filled
//! buffers, one call recorded and submitted, whole buffers read back, and owned inputs spoiled
//! once the operator has taken its copy. The device-free pieces it builds on (SplitMix64 data,
//! layouts, the comparison of every byte) are `gpu-xor-testkit`'s.
//!
//! Nothing here blocks except the functions named `*_blocking` (native only): a call is
//! recorded into an encoder of its own and submitted, and [`read_back`] awaits
//! [`Context::read_buffer_async`], whose copy is ordered after that submission.

use crate::{OutputLayout, width_mask};
use gpu_xor::inspect::RecordSummary;
use gpu_xor::{
    Bindings, Context, DmlBinary, DmlUnary, Error, Input, OvBinary, OvUnary, TensorBinding,
};

// ----- Buffers ---------------------------------------------------------------------------------

/// A storage buffer (also a copy source and destination) holding `bytes`, written through
/// the queue (no mapping, no wait).
pub fn storage_buffer(ctx: &Context, label: &str, bytes: &[u8]) -> wgpu::Buffer {
    let buffer = ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: bytes.len() as u64,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    ctx.queue().write_buffer(&buffer, 0, bytes);
    buffer
}

/// One storage buffer per host image, labelled with its name.
pub fn upload(ctx: &Context, names: &[String], images: &[Vec<u8>]) -> Vec<wgpu::Buffer> {
    images
        .iter()
        .enumerate()
        .map(|(k, image)| storage_buffer(ctx, names.get(k).map_or("buffer", |n| n), image))
        .collect()
}

/// Every buffer read back whole, after the work submitted so far.
pub async fn read_back(ctx: &Context, buffers: &[wgpu::Buffer]) -> Result<Vec<Vec<u8>>, Error> {
    let mut images = Vec::with_capacity(buffers.len());
    for buffer in buffers {
        images.push(ctx.read_buffer_async(buffer, 0, buffer.size()).await?);
    }
    Ok(images)
}

/// [`read_back`], blocking until the bytes are there (native only).
#[cfg(not(target_arch = "wasm32"))]
pub fn read_back_blocking(ctx: &Context, buffers: &[wgpu::Buffer]) -> Result<Vec<Vec<u8>>, Error> {
    pollster::block_on(read_back(ctx, buffers))
}

// ----- Running a call --------------------------------------------------------------------------

/// A compiled operator of any kind.
#[derive(Clone, Debug)]
pub enum AnyOperator {
    /// A DirectML operator of two inputs.
    DmlBinary(DmlBinary),
    /// A DirectML operator of one input.
    DmlUnary(DmlUnary),
    /// An OpenVINO operation of two inputs.
    OvBinary(OvBinary),
    /// An OpenVINO operation of one input.
    OvUnary(OvUnary),
}

/// `$body` with `$op` bound to the operator inside any variant of `$any`.
macro_rules! each {
    ($any:expr, |$op:ident| $body:expr) => {
        match $any {
            AnyOperator::DmlBinary($op) => $body,
            AnyOperator::DmlUnary($op) => $body,
            AnyOperator::OvBinary($op) => $body,
            AnyOperator::OvUnary($op) => $body,
        }
    };
}

impl AnyOperator {
    /// The operator as the trait object that [`Context::warm_up`] and batches take.
    pub fn as_dyn(&self) -> &dyn gpu_xor::CompiledOperator {
        each!(self, |op| op)
    }

    /// Records the operator into `encoder` (see [`DmlBinary::record`]).
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        bindings: &Bindings<'_>,
    ) -> Result<RecordSummary, Error> {
        each!(self, |op| op.record(encoder, bindings))
    }

    /// Prepares one call of the operator (see [`DmlBinary::prepare`]).
    pub fn prepare(&self, bindings: &Bindings<'_>) -> Result<gpu_xor::Prepared, Error> {
        each!(self, |op| op.prepare(bindings))
    }

    /// Records the operator into an encoder of its own, submits it and blocks until it has
    /// finished (see [`DmlBinary::run`]; native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn run(&self, bindings: &Bindings<'_>) -> Result<RecordSummary, Error> {
        each!(self, |op| op.run(bindings))
    }

    /// Records the operator into an encoder of its own, submits it and waits without
    /// blocking until the device has finished (see [`DmlBinary::run_async`]).
    pub async fn run_async(&self, bindings: &Bindings<'_>) -> Result<RecordSummary, Error> {
        each!(self, |op| op.run_async(bindings).await)
    }

    /// Compiles every pipeline the operator may need (see [`DmlBinary::warm_up`]); how many.
    pub fn warm_up(&self) -> Result<usize, Error> {
        each!(self, |op| op.warm_up())
    }

    /// Pushes the operator into `batch` (see [`gpu_xor::Batch::push`]).
    pub fn push(
        &self,
        batch: &mut gpu_xor::Batch,
        bindings: &Bindings<'_>,
    ) -> Result<RecordSummary, Error> {
        each!(self, |op| batch.push(op, bindings))
    }

    /// Records the operator into an encoder of its own and submits it, without waiting (see
    /// [`DmlBinary::submit`]).
    pub fn submit(&self, bindings: &Bindings<'_>) -> Result<RecordSummary, Error> {
        each!(self, |op| op.submit(bindings))
    }

    /// The output shape of an OpenVINO operation; `None` for a DirectML operator (its output
    /// is described, not inferred).
    pub fn output_shape(&self) -> Option<Vec<usize>> {
        match self {
            AnyOperator::OvBinary(op) => Some(op.output_shape()),
            AnyOperator::OvUnary(op) => Some(op.output_shape()),
            _ => None,
        }
    }

    /// The plan decided when the operator was made.
    pub fn plan(&self) -> &gpu_xor::inspect::Plan {
        each!(self, |op| op.plan())
    }
}

macro_rules! any_from {
    ($($variant:ident),*) => {
        $(
            impl From<$variant> for AnyOperator {
                fn from(op: $variant) -> AnyOperator {
                    AnyOperator::$variant(op)
                }
            }
        )*
    };
}

any_from!(DmlBinary, DmlUnary, OvBinary, OvUnary);

/// Records one call into an encoder of its own and submits it; never waits. A refused call
/// records and submits nothing. [`read_back`] sees the call's writes.
pub fn submit(
    ctx: &Context,
    op: &AnyOperator,
    bindings: &Bindings<'_>,
) -> Result<RecordSummary, Error> {
    let mut encoder = ctx
        .device()
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("gpu-xor-conformance call"),
        });
    let summary = op.record(&mut encoder, bindings)?;
    ctx.queue().submit([encoder.finish()]);
    Ok(summary)
}

/// The bindings of one call: each tensor's (buffer, byte offset, bound bytes).
pub fn bindings<'a>(buffers: &'a [wgpu::Buffer], ranges: [(usize, u64, u64); 3]) -> Bindings<'a> {
    let [a, b, out] =
        ranges.map(|(k, offset, size)| TensorBinding::range(&buffers[k], offset, size));
    Bindings::new(a, b, out)
}

/// The bindings of one call of an operator of `inputs` inputs that owns the inputs `owned`
/// marks (A, B): those are [`Input::Owned`] (DirectML's `DML_BINDING_TYPE_NONE`), a one-input
/// operator's B is [`Input::Absent`], and the others are bound as in [`bindings`].
pub fn call_bindings<'a>(
    buffers: &'a [wgpu::Buffer],
    ranges: [(usize, u64, u64); 3],
    owned: [bool; 2],
    inputs: usize,
) -> Bindings<'a> {
    let all = bindings(buffers, ranges);
    let given = |owned: bool, input: Input<'a>| if owned { Input::Owned } else { input };
    Bindings {
        a: given(owned[0], all.a),
        b: if inputs == 1 {
            Input::Absent
        } else {
            given(owned[1], all.b)
        },
        output: all.output,
    }
}

// ----- Owned inputs ----------------------------------------------------------------------------

/// How [`spoil`] changes the elements of an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spoil {
    /// Zero becomes all ones, any other value zero: every element differs, and so does its
    /// truth, so that BIT_XOR and LOGICAL_XOR both give another answer for every element.
    Flip,
    /// A nonzero value becomes another nonzero value (its complement, or 1 for all ones) and
    /// zero all ones: every element differs and a nonzero one keeps its truth. For B when A is
    /// spoiled with [`Spoil::Flip`] too, so that LOGICAL_XOR on both spoiled inputs still
    /// differs wherever B is nonzero.
    KeepTruth,
}

impl Spoil {
    /// How input `input` (0 is A, 1 is B) of an operator that owns the inputs `owned` marks
    /// is spoiled: [`Spoil::Flip`], except B when A is owned too ([`Spoil::KeepTruth`]), so
    /// that LOGICAL_XOR on both spoiled inputs still gives another answer where B is nonzero.
    pub fn for_input(input: usize, owned: [bool; 2]) -> Spoil {
        if input == 1 && owned[0] {
            Spoil::KeepTruth
        } else {
            Spoil::Flip
        }
    }
}

/// Different bytes for an input that an operator owns, written over the caller's copy once
/// the operator has taken its own: every byte of `image` inverted, then each element of each
/// tensor of `inputs` (its value read from `image`) changed as its [`Spoil`] says. A library
/// that read the caller's buffer instead of its own copy gives another answer.
pub fn spoil(image: &[u8], inputs: &[(&OutputLayout, Spoil)]) -> Vec<u8> {
    let mut out: Vec<u8> = image.iter().map(|b| !b).collect();
    for &(tensor, how) in inputs {
        let mask = width_mask(tensor.width);
        let spoiled: Vec<u64> = tensor
            .read_values(image)
            .into_iter()
            .map(|v| match (how, v) {
                (_, 0) => mask,
                (Spoil::Flip, _) => 0,
                (Spoil::KeepTruth, v) if v == mask => 1,
                (Spoil::KeepTruth, v) => !v & mask,
            })
            .collect();
        tensor.write_values(&mut out, &spoiled);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spoiled_inputs_differ_in_every_byte_and_element() {
        // Two u16 elements at bytes 2 and 6 (stride 2), padding around them.
        let t = OutputLayout {
            buffer: 0,
            offset: 2,
            width: 2,
            sizes: vec![2],
            strides: vec![2],
        };
        let image = [1, 2, 0, 0, 3, 4, 0xff, 0xff, 9];
        let flip = spoil(&image, &[(&t, Spoil::Flip)]);
        assert_eq!(flip, [0xfe, 0xfd, 0xff, 0xff, 0xfc, 0xfb, 0, 0, 0xf6]);
        let keep = spoil(&image, &[(&t, Spoil::KeepTruth)]);
        assert_eq!(keep, [0xfe, 0xfd, 0xff, 0xff, 0xfc, 0xfb, 1, 0, 0xf6]);
        let t = OutputLayout::packed(0, 0, 1, &[3]);
        assert_eq!(
            spoil(&[0, 5, 0xff], &[(&t, Spoil::KeepTruth)]),
            [0xff, 0xfa, 1]
        );
        assert_eq!(spoil(&[0, 5, 0xff], &[(&t, Spoil::Flip)]), [0xff, 0, 0]);
    }
}
