//! The execution engine the conformance runner and the test suite share: SplitMix64,
//! sentinel-filled buffers, one call recorded and submitted, whole buffers read back, and the
//! comparison of every byte.
//!
//! Nothing here blocks except the functions named `*_blocking` (native only): a call is
//! recorded into an encoder of its own and submitted, and [`read_back`] awaits
//! [`Context::read_buffer_async`], whose copy is ordered after that submission.

use gpu_xor::inspect::RecordSummary;
use gpu_xor::{
    Bindings, BitXor, BitwiseXor, Context, DmlBinary, DmlUnary, Error, LogicalXor, OvBinary,
    OvUnary, TensorBinding,
};

// ----- SplitMix64 ------------------------------------------------------------------------------

/// SplitMix64 as the conformance format gives it: each step adds the golden gamma to the
/// state and mixes. Seed 0 gives `0xE220A8397B1DCDAF` on the first step.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose state starts at `seed`.
    pub const fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The output `z` of the next step.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// `len` bytes of the SplitMix64 stream from `seed`, each step's output in little-endian
/// order: test data, and a sentinel that no constant pattern or stale value is likely to
/// match.
pub fn random_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut rng = SplitMix64::new(seed);
    let mut bytes = Vec::with_capacity(len.next_multiple_of(8));
    while bytes.len() < len {
        bytes.extend_from_slice(&rng.next_u64().to_le_bytes());
    }
    bytes.truncate(len);
    bytes
}

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
    /// DirectML BIT_XOR.
    BitXor(BitXor),
    /// DirectML LOGICAL_XOR.
    LogicalXor(LogicalXor),
    /// OpenVINO BitwiseXor-13.
    BitwiseXor(BitwiseXor),
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
            AnyOperator::BitXor($op) => $body,
            AnyOperator::LogicalXor($op) => $body,
            AnyOperator::BitwiseXor($op) => $body,
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

    /// Records the operator into `encoder` (see [`BitXor::record`]).
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        bindings: &Bindings<'_>,
    ) -> Result<RecordSummary, Error> {
        each!(self, |op| op.record(encoder, bindings))
    }

    /// Prepares one call of the operator (see [`BitXor::prepare`]).
    pub fn prepare(&self, bindings: &Bindings<'_>) -> Result<gpu_xor::Prepared, Error> {
        each!(self, |op| op.prepare(bindings))
    }

    /// Records the operator into an encoder of its own, submits it and blocks until it has
    /// finished (see [`BitXor::run`]; native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn run(&self, bindings: &Bindings<'_>) -> Result<RecordSummary, Error> {
        each!(self, |op| op.run(bindings))
    }

    /// Records the operator into an encoder of its own, submits it and waits without
    /// blocking until the device has finished (see [`BitXor::run_async`]).
    pub async fn run_async(&self, bindings: &Bindings<'_>) -> Result<RecordSummary, Error> {
        each!(self, |op| op.run_async(bindings).await)
    }

    /// Compiles every pipeline the operator may need (see [`BitXor::warm_up`]); how many.
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
    /// [`BitXor::submit`]).
    pub fn submit(&self, bindings: &Bindings<'_>) -> Result<RecordSummary, Error> {
        each!(self, |op| op.submit(bindings))
    }

    /// The output shape of an OpenVINO operation; `None` for a DirectML operator (its output
    /// is described, not inferred).
    pub fn output_shape(&self) -> Option<Vec<usize>> {
        match self {
            AnyOperator::BitwiseXor(op) => Some(op.output_shape()),
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

any_from!(
    BitXor, LogicalXor, BitwiseXor, DmlBinary, DmlUnary, OvBinary, OvUnary
);

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

/// The bindings of one call of an operator that owns the inputs `owned` marks (A, B): those
/// are left unbound (DirectML's `DML_BINDING_TYPE_NONE`), the others as in [`bindings`].
pub fn call_bindings<'a>(
    buffers: &'a [wgpu::Buffer],
    ranges: [(usize, u64, u64); 3],
    owned: [bool; 2],
) -> Bindings<'a> {
    let all = bindings(buffers, ranges);
    Bindings {
        a: all.a.filter(|_| !owned[0]),
        b: all.b.filter(|_| !owned[1]),
        output: all.output,
    }
}

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
        let width = tensor.width as usize;
        let mask = crate::generator::width_mask(tensor.width);
        for at in tensor.byte_offsets() {
            let v = read_le(image, at, tensor.width);
            let w = match (how, v) {
                (_, 0) => mask,
                (Spoil::Flip, _) => 0,
                (Spoil::KeepTruth, v) if v == mask => 1,
                (Spoil::KeepTruth, v) => !v & mask,
            };
            let at = at as usize;
            out[at..at + width].copy_from_slice(&w.to_le_bytes()[..width]);
        }
    }
    out
}

// ----- Output layout and comparison ------------------------------------------------------------

/// Where an output tensor's elements sit (or an input's, for [`spoil`]): a buffer, a byte
/// offset, the element width, and element sizes and strides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputLayout {
    /// Index of the buffer that holds the output.
    pub buffer: usize,
    /// Byte offset of element 0 in that buffer.
    pub offset: u64,
    /// Element size in bytes (1 to 8).
    pub width: u64,
    /// Sizes, outermost first.
    pub sizes: Vec<u64>,
    /// Element strides, one per dimension.
    pub strides: Vec<u64>,
}

impl OutputLayout {
    /// A packed row-major output.
    pub fn packed(buffer: usize, offset: u64, width: u64, sizes: &[u64]) -> OutputLayout {
        OutputLayout {
            buffer,
            offset,
            width,
            sizes: sizes.to_vec(),
            strides: packed_strides(sizes),
        }
    }

    /// The number of elements.
    pub fn element_count(&self) -> u64 {
        self.sizes.iter().product()
    }

    /// The byte offset of each element in the buffer, in logical row-major order.
    pub fn byte_offsets(&self) -> Vec<u64> {
        positions(&self.sizes, &self.strides)
            .into_iter()
            .map(|p| self.offset + p * self.width)
            .collect()
    }

    /// The row-major multi-index of element `i`.
    pub fn index_of(&self, i: u64) -> Vec<u64> {
        unravel(i, &self.sizes)
    }

    /// The element values (little-endian, zero-extended) found in `image`.
    pub fn read_values(&self, image: &[u8]) -> Vec<u64> {
        self.byte_offsets()
            .into_iter()
            .map(|at| read_le(image, at, self.width))
            .collect()
    }

    /// Writes `values` into the element positions of `image`.
    pub fn write_values(&self, image: &mut [u8], values: &[u64]) {
        let width = self.width as usize;
        for (at, v) in self.byte_offsets().into_iter().zip(values) {
            let at = at as usize;
            image[at..at + width].copy_from_slice(&v.to_le_bytes()[..width]);
        }
    }
}

fn read_le(image: &[u8], at: u64, width: u64) -> u64 {
    let (at, width) = (at as usize, width as usize);
    let mut v = [0u8; 8];
    v[..width].copy_from_slice(&image[at..at + width]);
    u64::from_le_bytes(v)
}

/// Compares every buffer read back (`got`) with what it must hold (`want`): each output
/// element first, in logical order, then every other byte. The error names the buffer, the
/// byte, the element and its index where the byte belongs to one, both values, and how many
/// differ.
pub fn compare_buffers(
    names: &[String],
    got: &[Vec<u8>],
    want: &[Vec<u8>],
    output: Option<&OutputLayout>,
) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "read {} buffers back, expected {}",
            got.len(),
            want.len()
        ));
    }
    for (k, (got, want)) in got.iter().zip(want).enumerate() {
        let name = names.get(k).cloned().unwrap_or_else(|| k.to_string());
        let output = output.filter(|o| o.buffer == k);
        compare_buffer(&name, got, want, output)?;
    }
    Ok(())
}

/// [`compare_buffers`] for one buffer; `output` is the output tensor when this buffer holds
/// it.
pub fn compare_buffer(
    name: &str,
    got: &[u8],
    want: &[u8],
    output: Option<&OutputLayout>,
) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "buffer {name}: read {} bytes back, expected {}",
            got.len(),
            want.len()
        ));
    }
    if got == want {
        return Ok(());
    }
    let mut is_output = vec![false; got.len()];
    if let Some(out) = output {
        let width = out.width as usize;
        let offsets = out.byte_offsets();
        let element = |at: u64| read_le(got, at, out.width) != read_le(want, at, out.width);
        let bad: Vec<usize> = (0..offsets.len())
            .filter(|&i| element(offsets[i]))
            .collect();
        if let Some(&i) = bad.first() {
            let at = offsets[i];
            return Err(format!(
                "buffer {name}: output element {i} (index {:?}, byte {at}): got {:#x}, \
                 expected {:#x} ({} of {} elements differ)",
                out.index_of(i as u64),
                read_le(got, at, out.width),
                read_le(want, at, out.width),
                bad.len(),
                offsets.len()
            ));
        }
        for at in offsets {
            is_output[at as usize..at as usize + width].fill(true);
        }
    }
    let differs = |i: &usize| got[*i] != want[*i] && !is_output[*i];
    match (0..got.len()).find(differs) {
        None => Ok(()),
        Some(i) => Err(format!(
            "buffer {name}: byte {i}, outside the output, holds {:#04x}, expected {:#04x} \
             ({} such bytes)",
            got[i],
            want[i],
            (0..got.len()).filter(differs).count()
        )),
    }
}

// ----- Shapes ----------------------------------------------------------------------------------

/// Element position (`dot(index, strides)`) of each logical index, in row-major order.
pub fn positions(sizes: &[u64], strides: &[u64]) -> Vec<u64> {
    let count: u64 = sizes.iter().product();
    let mut out = Vec::with_capacity(count as usize);
    if count == 0 {
        return out;
    }
    let mut index = vec![0u64; sizes.len()];
    let mut position = 0u64;
    for _ in 0..count {
        out.push(position);
        for d in (0..sizes.len()).rev() {
            index[d] += 1;
            position += strides[d];
            if index[d] < sizes[d] {
                break;
            }
            position -= strides[d] * sizes[d];
            index[d] = 0;
        }
    }
    out
}

/// Packed row-major element strides.
pub fn packed_strides(sizes: &[u64]) -> Vec<u64> {
    let mut strides = vec![0u64; sizes.len()];
    let mut acc = 1u64;
    for (d, &n) in sizes.iter().enumerate().rev() {
        strides[d] = acc;
        acc = acc.saturating_mul(n);
    }
    strides
}

/// The row-major multi-index of element `i`.
pub fn unravel(mut i: u64, sizes: &[u64]) -> Vec<u64> {
    let mut index = vec![0; sizes.len()];
    for d in (0..sizes.len()).rev() {
        if sizes[d] > 0 {
            index[d] = i % sizes[d];
            i /= sizes[d];
        }
    }
    index
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_known_answer() {
        assert_eq!(SplitMix64::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(random_bytes(0, 3), [0xAF, 0xCD, 0x1D]);
        assert_eq!(random_bytes(7, 20)[..16], random_bytes(7, 16)[..]);
    }

    #[test]
    fn layouts() {
        assert_eq!(packed_strides(&[2, 3, 4]), [12, 4, 1]);
        assert_eq!(positions(&[2, 2], &[1, 3]), [0, 3, 1, 4]);
        assert_eq!(unravel(5, &[2, 3]), [1, 2]);
        let out = OutputLayout {
            buffer: 0,
            offset: 4,
            width: 2,
            sizes: vec![2],
            strides: vec![2],
        };
        let mut image = vec![0u8; 12];
        out.write_values(&mut image, &[0x1234, 0xabcd]);
        assert_eq!(image, [0, 0, 0, 0, 0x34, 0x12, 0, 0, 0xcd, 0xab, 0, 0]);
        assert_eq!(out.read_values(&image), [0x1234, 0xabcd]);
    }

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

    #[test]
    fn comparison_names_element_and_byte() {
        let out = OutputLayout::packed(1, 2, 1, &[4]);
        let want = vec![vec![1, 2, 3], vec![9, 9, 10, 11, 12, 13, 9, 9]];
        assert_eq!(compare_buffers(&[], &want, &want, Some(&out)), Ok(()));

        let mut got = want.clone();
        got[1][5] = 0xfe;
        let e = compare_buffers(&["a".into(), "out".into()], &got, &want, Some(&out)).unwrap_err();
        assert!(
            e.contains("buffer out: output element 3 (index [3], byte 5)"),
            "{e}"
        );
        assert!(e.contains("got 0xfe, expected 0xd"), "{e}");

        let mut got = want.clone();
        got[1][7] = 0;
        got[0][0] = 0;
        let e = compare_buffers(&[], &got, &want, Some(&out)).unwrap_err();
        assert!(e.contains("buffer 0: byte 0, outside the output"), "{e}");
        let e = compare_buffer("out", &got[1], &want[1], Some(&out)).unwrap_err();
        assert!(
            e.contains("byte 7, outside the output, holds 0x00, expected 0x09"),
            "{e}"
        );
    }
}
