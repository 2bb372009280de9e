//! The one-call forms of every operator of the table, and the conveniences that reuse memory:
//! `*_into` outputs, tensors over the caller's buffers (`Tensor::from_buffer`) and views at an
//! offset with strides (`Tensor::view`), against the reference, with every byte of every
//! buffer checked.

use gpu_xor::reference::{self, StridedView, StridedViewMut};
use gpu_xor::{
    AutoBroadcast, Context, DataType, DmlBinaryOp, Error, OvBinaryOp, OvUnaryOp, Tensor,
};
use gpu_xor_testkit::{OutputLayout, compare_buffer};

use crate::common::{buffer, ctx, random_bytes};
use crate::per_type;

// ----- Helpers ---------------------------------------------------------------------------------

/// Random bytes in which about a quarter of the `width`-byte elements are zero, so that
/// LOGICAL_XOR meets both truth values on both sides.
fn data(seed: u64, len: usize, width: usize) -> Vec<u8> {
    let mut bytes = random_bytes(seed, len);
    let coins = random_bytes(seed ^ 0x5eed, len.div_ceil(width));
    for (chunk, coin) in bytes.chunks_mut(width).zip(coins) {
        if coin < 64 {
            chunk.fill(0);
        }
    }
    bytes
}

/// The whole buffer, read back after the work submitted so far.
fn read(buffer: &wgpu::Buffer) -> Vec<u8> {
    ctx().read_buffer(buffer, 0, buffer.size()).unwrap()
}

/// A buffer of `usage` only, `size` bytes, never written.
fn bare(size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    ctx().device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("bare"),
        size,
        usage,
        mapped_at_creation: false,
    })
}

/// Checks one buffer: the output's elements (when it holds the output), then every byte.
fn check_buffer(name: &str, got: &[u8], want: &[u8], output: Option<&OutputLayout>) {
    if let Err(e) = compare_buffer(name, got, want, output) {
        panic!("{e}");
    }
}

/// The DirectML operators, by convenience.
#[derive(Clone, Copy, Debug)]
enum Dml {
    Bit,
    Logical,
}

impl Dml {
    fn run_into(self, a: &Tensor, b: &Tensor, out: &Tensor) -> Result<(), Error> {
        match self {
            Dml::Bit => ctx().bit_xor_into(a, b, out),
            Dml::Logical => ctx().logical_xor_into(a, b, out),
        }
    }

    fn allocating(self, a: &Tensor, b: &Tensor) -> Result<Tensor, Error> {
        match self {
            Dml::Bit => ctx().bit_xor(a, b),
            Dml::Logical => ctx().logical_xor(a, b),
        }
    }

    fn reference(self, a: &StridedView<'_>, b: &StridedView<'_>, out: &mut StridedViewMut<'_>) {
        match self {
            Dml::Bit => reference::bit_xor(a, b, out),
            Dml::Logical => reference::logical_xor(a, b, out),
        }
        .unwrap_or_else(|e| panic!("reference: {e}"));
    }
}

/// Where a view lies: its buffer, its byte offset, its element strides (empty for packed).
#[derive(Clone, Debug)]
struct At {
    buffer: usize,
    offset: u64,
    strides: Vec<usize>,
}

fn at(buffer: usize, offset: u64, strides: &[usize]) -> At {
    At {
        buffer,
        offset,
        strides: strides.to_vec(),
    }
}

impl At {
    fn strides(&self) -> Option<&[usize]> {
        (!self.strides.is_empty()).then_some(self.strides.as_slice())
    }

    fn layout(&self, dt: DataType, shape: &[usize]) -> OutputLayout {
        let sizes: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
        let width = u64::from(dt.size_in_bytes());
        let mut layout = OutputLayout::packed(self.buffer, self.offset, width, &sizes);
        if let Some(s) = self.strides() {
            layout.strides = s.iter().map(|&x| x as u64).collect();
        }
        layout
    }

    fn view<'a>(
        &'a self,
        images: &'a [Vec<u8>],
        dt: DataType,
        shape: &'a [usize],
    ) -> StridedView<'a> {
        StridedView {
            bytes: &images[self.buffer],
            data_type: dt,
            sizes: shape,
            strides: self.strides(),
            offset: self.offset as usize,
        }
    }
}

/// A DirectML call on three views of sentinel-filled buffers: each buffer's host image and
/// the place of A, B and the output.
struct ViewCase {
    op: Dml,
    dt: DataType,
    shape: Vec<usize>,
    images: Vec<Vec<u8>>,
    places: [At; 3],
}

impl ViewCase {
    fn new(op: Dml, dt: DataType, shape: &[usize], buffers: &[usize], places: [At; 3]) -> Self {
        let width = dt.size_in_bytes() as usize;
        let images = buffers
            .iter()
            .enumerate()
            .map(|(k, &len)| data(100 + k as u64 + 10 * width as u64, len, width))
            .collect();
        ViewCase {
            op,
            dt,
            shape: shape.to_vec(),
            images,
            places,
        }
    }

    fn upload(&self) -> Vec<wgpu::Buffer> {
        self.images.iter().map(|i| buffer(ctx(), i)).collect()
    }

    fn views(&self, gpu: &[wgpu::Buffer]) -> [Tensor; 3] {
        self.places.clone().map(|p| {
            Tensor::view(
                ctx(),
                gpu[p.buffer].clone(),
                self.dt,
                &self.shape,
                p.offset,
                p.strides(),
            )
            .unwrap_or_else(|e| panic!("view {p:?}: {e}"))
        })
    }

    /// What every buffer holds after the call: the reference's output elements in the output
    /// buffer, every other byte as it was.
    fn expected(&self) -> Vec<Vec<u8>> {
        let [a, b, out] = &self.places;
        let mut image = self.images[out.buffer].clone();
        let mut dst = StridedViewMut {
            bytes: &mut image,
            data_type: self.dt,
            sizes: &self.shape,
            strides: out.strides(),
            offset: out.offset as usize,
        };
        self.op.reference(
            &a.view(&self.images, self.dt, &self.shape),
            &b.view(&self.images, self.dt, &self.shape),
            &mut dst,
        );
        let mut expected = self.images.clone();
        expected[out.buffer] = image;
        expected
    }

    /// The output's elements in row-major order, from `image`.
    fn elements(&self, place: &At, image: &[u8]) -> Vec<u8> {
        let layout = place.layout(self.dt, &self.shape);
        let width = layout.width as usize;
        layout
            .byte_offsets()
            .into_iter()
            .flat_map(|at| image[at as usize..at as usize + width].to_vec())
            .collect()
    }

    fn compare(&self, gpu: &[wgpu::Buffer], expected: &[Vec<u8>]) {
        let out = &self.places[2];
        let layout = out.layout(self.dt, &self.shape);
        for (k, (buffer, want)) in gpu.iter().zip(expected).enumerate() {
            let name = format!("{:?} {:?} buffer {k}", self.op, self.dt);
            check_buffer(
                &name,
                &read(buffer),
                want,
                (k == out.buffer).then_some(&layout),
            );
        }
    }

    /// `*_into` on the views; every byte of every buffer checked, and the output read back
    /// through the view in row-major order.
    fn check(&self) {
        let gpu = self.upload();
        let [a, b, out] = self.views(&gpu);
        self.op
            .run_into(&a, &b, &out)
            .unwrap_or_else(|e| panic!("{:?} {:?} {:?}: {e}", self.op, self.dt, self.places));
        let expected = self.expected();
        self.compare(&gpu, &expected);
        let place = &self.places[2];
        assert_eq!(
            out.to_bytes().unwrap(),
            self.elements(place, &expected[place.buffer]),
            "the output view read back"
        );
    }

    /// The allocating form on the input views: a new packed tensor; no buffer changes.
    fn check_allocating(&self) {
        let gpu = self.upload();
        let [a, b, _] = self.views(&gpu);
        let out = self.op.allocating(&a, &b).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((out.offset(), out.strides()), (0, None));
        assert_eq!(out.shape(), self.shape.as_slice());
        let expected = self.expected();
        let place = &self.places[2];
        assert_eq!(
            out.to_bytes().unwrap(),
            self.elements(place, &expected[place.buffer])
        );
        self.compare(&gpu, &self.images);
    }

    /// `*_into` refused with `rule`; no byte of any buffer changed.
    fn check_refused(&self, rule: &str) -> Error {
        let gpu = self.upload();
        let [a, b, out] = self.views(&gpu);
        let e = self.op.run_into(&a, &b, &out).expect_err("refused");
        assert_eq!(e.rule(), rule, "{e}");
        self.compare(&gpu, &self.images);
        e
    }
}

// ----- *_into on tensors that already hold data ----------------------------------------------

/// `*_into` on three packed tensors of their own, the output holding random data first: the
/// output buffer must hold the reference's elements and its zero padding, every byte of it.
fn into_existing_output(op: Dml, dt: DataType) {
    let ctx = ctx();
    let shape = [3, 7];
    let width = dt.size_in_bytes() as usize;
    let bytes = 21 * width;
    let host: Vec<Vec<u8>> = (0..3).map(|k| data(7 + k, bytes, width)).collect();
    let [a, b, out] = [0, 1, 2].map(|k| Tensor::from_bytes(ctx, dt, &shape, &host[k]).unwrap());
    op.run_into(&a, &b, &out).unwrap_or_else(|e| panic!("{e}"));

    let mut want = host[2].clone();
    let view = |k: usize| StridedView::packed(dt, &shape, &host[k]);
    op.reference(
        &view(0),
        &view(1),
        &mut StridedViewMut::packed(dt, &shape, &mut want),
    );
    // A tensor's own buffer is its bytes rounded up to 16, the rest zeros.
    let whole = |b: &[u8]| [b, &vec![0; bytes.div_ceil(16) * 16 - bytes][..]].concat();
    let layout = OutputLayout::packed(0, 0, width as u64, &[3, 7]);
    check_buffer("output", &read(out.buffer()), &whole(&want), Some(&layout));
    check_buffer("A", &read(a.buffer()), &whole(&host[0]), None);
    check_buffer("B", &read(b.buffer()), &whole(&host[1]), None);
}

per_type!(
    bit_xor_into_writes_an_existing_output,
    |dt| into_existing_output(Dml::Bit, dt),
    [U8, I8, U16, F16, U32, F32, I64, F64]
);

per_type!(
    logical_xor_into_writes_an_existing_output,
    |dt| into_existing_output(Dml::Logical, dt),
    [U8, U32]
);

/// BitwiseXor into an existing tensor under numpy broadcasting, every byte checked.
fn bitwise_into_existing_output(dt: DataType) {
    let ctx = ctx();
    let (a_shape, b_shape, shape) = ([2, 3, 5], [3, 1], [2, 3, 5]);
    let width = dt.size_in_bytes() as usize;
    let a_host = data(21, 30 * width, width);
    let b_host = data(22, 3 * width, width);
    let out_host = data(23, 30 * width, width);
    let a = Tensor::from_bytes(ctx, dt, &a_shape, &a_host).unwrap();
    let b = Tensor::from_bytes(ctx, dt, &b_shape, &b_host).unwrap();
    let out = Tensor::from_bytes(ctx, dt, &shape, &out_host).unwrap();
    ctx.bitwise_xor_into(&a, &b, &out, AutoBroadcast::Numpy)
        .unwrap_or_else(|e| panic!("{e}"));
    let (s, want) = reference::bitwise_xor(
        dt,
        &a_shape,
        &a_host,
        &b_shape,
        &b_host,
        AutoBroadcast::Numpy,
    )
    .unwrap();
    assert_eq!(s, shape);
    let bytes = want.len();
    let whole = [want, vec![0; bytes.div_ceil(16) * 16 - bytes]].concat();
    let layout = OutputLayout::packed(0, 0, width as u64, &[2, 3, 5]);
    check_buffer("output", &read(out.buffer()), &whole, Some(&layout));
}

per_type!(
    bitwise_xor_into_writes_an_existing_output,
    |dt| bitwise_into_existing_output(dt),
    [U8, I16, U32, I64, Bool]
);

// ----- In place --------------------------------------------------------------------------------

#[test]
fn bit_xor_into_runs_in_place_into_a_and_into_b() {
    let ctx = ctx();
    for dt in [DataType::U8, DataType::U16, DataType::F64] {
        let width = dt.size_in_bytes() as usize;
        let (ha, hb) = (data(31, 13 * width, width), data(32, 13 * width, width));
        let mut want = ha.clone();
        reference::bit_xor(
            &StridedView::packed(dt, &[13], &ha),
            &StridedView::packed(dt, &[13], &hb),
            &mut StridedViewMut::packed(dt, &[13], &mut want),
        )
        .unwrap();
        // Into A: a ^= b.
        let a = Tensor::from_bytes(ctx, dt, &[13], &ha).unwrap();
        let b = Tensor::from_bytes(ctx, dt, &[13], &hb).unwrap();
        ctx.bit_xor_into(&a, &b, &a).unwrap();
        assert_eq!(a.to_bytes().unwrap(), want, "{dt:?} into A");
        assert_eq!(b.to_bytes().unwrap(), hb);
        // Into B: b = a ^ b.
        let a = Tensor::from_bytes(ctx, dt, &[13], &ha).unwrap();
        let b = Tensor::from_bytes(ctx, dt, &[13], &hb).unwrap();
        ctx.bit_xor_into(&a, &b, &b).unwrap();
        assert_eq!(b.to_bytes().unwrap(), want, "{dt:?} into B");
        assert_eq!(a.to_bytes().unwrap(), ha);
    }
}

#[test]
fn logical_xor_into_runs_in_place_into_b() {
    let ctx = ctx();
    let a = Tensor::from_slice(ctx, &[6], &[0u32, 0, 5, 0x100, 7, 0]).unwrap();
    let b = Tensor::from_slice(ctx, &[6], &[0u32, 9, 0, 0x100, 0, 0]).unwrap();
    ctx.logical_xor_into(&a, &b, &b).unwrap();
    assert_eq!(b.to_vec::<u32>().unwrap(), [0, 1, 1, 0, 1, 0]);
    ctx.logical_xor_into(&a, &a, &a).unwrap();
    assert_eq!(a.to_vec::<u32>().unwrap(), [0; 6]);
}

#[test]
fn bitwise_xor_into_runs_in_place_into_a_and_into_b() {
    let ctx = ctx();
    let (ha, hb) = ([1i32, 2, 3, 4, 5, 6], [-1i32, 0, 7]);
    // Into A, B broadcast onto it.
    let a = Tensor::from_slice(ctx, &[2, 3], &ha).unwrap();
    let b = Tensor::from_slice(ctx, &[3], &hb).unwrap();
    ctx.bitwise_xor_into(&a, &b, &a, AutoBroadcast::Numpy)
        .unwrap();
    assert_eq!(a.to_vec::<i32>().unwrap(), [-2, 2, 4, -5, 5, 1]);
    assert_eq!(b.to_vec::<i32>().unwrap(), hb);
    // Into B, A broadcast onto it.
    let a = Tensor::from_slice(ctx, &[3], &hb).unwrap();
    let b = Tensor::from_slice(ctx, &[2, 3], &ha).unwrap();
    ctx.bitwise_xor_into(&a, &b, &b, AutoBroadcast::Numpy)
        .unwrap();
    assert_eq!(b.to_vec::<i32>().unwrap(), [-2, 2, 4, -5, 5, 1]);
    // Booleans in place: bytes normalised, 0/1 written.
    let p = Tensor::from_bytes(ctx, DataType::Bool, &[4], &[0, 2, 0, 255]).unwrap();
    let q = Tensor::from_bytes(ctx, DataType::Bool, &[4], &[0, 0, 9, 1]).unwrap();
    ctx.bitwise_xor_into(&p, &q, &p, AutoBroadcast::None)
        .unwrap();
    assert_eq!(p.to_bytes().unwrap(), [0, 1, 1, 0]);
}

#[test]
fn in_place_on_strided_views_of_one_range() {
    for (op, dt) in [
        (Dml::Bit, DataType::U8),
        (Dml::Bit, DataType::U16),
        (Dml::Bit, DataType::F64),
        (Dml::Logical, DataType::U8),
    ] {
        // A and the output: two views of the same padded rows; B packed in a buffer of its own.
        let padded = at(0, 32, &[7, 2]);
        ViewCase::new(
            op,
            dt,
            &[3, 3],
            &[256, 128],
            [padded.clone(), at(1, 16, &[]), padded],
        )
        .check();
        // The output is B's range.
        let padded = at(1, 48, &[5, 1]);
        ViewCase::new(
            op,
            dt,
            &[3, 4],
            &[128, 256],
            [at(0, 0, &[]), padded.clone(), padded],
        )
        .check();
    }
}

// ----- Wrong outputs ---------------------------------------------------------------------------

#[test]
fn wrong_output_type_or_shape_is_refused_and_nothing_is_written() {
    let ctx = ctx();
    let a = Tensor::from_slice(ctx, &[3, 5], &[3u8; 15]).unwrap();
    let b = Tensor::from_slice(ctx, &[3, 5], &[5u8; 15]).unwrap();
    let unchanged = |t: &Tensor, want: &[u8]| {
        ctx.wait().unwrap();
        assert_eq!(read(t.buffer()), want, "the refused call wrote");
    };
    for op in [Dml::Bit, Dml::Logical] {
        let wrong_type = Tensor::from_slice(ctx, &[3, 5], &[9u16; 15]).unwrap();
        let e = op.run_into(&a, &b, &wrong_type).unwrap_err();
        assert!(
            matches!(
                e,
                Error::DataTypeMismatch {
                    tensor: gpu_xor::TensorName::Output,
                    found: DataType::U16,
                    expected: DataType::U8,
                    ..
                }
            ),
            "{e:?}"
        );
        unchanged(&wrong_type, &[[9u8, 0].repeat(15), vec![0; 2]].concat());

        let wrong_shape = Tensor::from_slice(ctx, &[3, 4], &[9u8; 12]).unwrap();
        let e = op.run_into(&a, &b, &wrong_shape).unwrap_err();
        assert_eq!(e.rule(), "shape_mismatch", "{e}");
        unchanged(&wrong_shape, &[vec![9; 12], vec![0; 4]].concat());
    }

    let wrong_type = Tensor::from_slice(ctx, &[3, 5], &[9i8; 15]).unwrap();
    let e = ctx
        .bitwise_xor_into(&a, &b, &wrong_type, AutoBroadcast::Numpy)
        .unwrap_err();
    assert_eq!(
        e,
        Error::TensorTypeMismatch {
            actual: DataType::I8,
            requested: DataType::U8
        }
    );
    unchanged(&wrong_type, &[vec![9; 15], vec![0; 1]].concat());

    let wrong_shape = Tensor::from_slice(ctx, &[5, 3], &[9u8; 15]).unwrap();
    let e = ctx
        .bitwise_xor_into(&a, &b, &wrong_shape, AutoBroadcast::Numpy)
        .unwrap_err();
    assert!(
        matches!(&e, Error::ShapeInconsistent { a, b, .. } if a == &[3, 5] && b == &[5, 3]),
        "{e:?}"
    );
    unchanged(&wrong_shape, &[vec![9; 15], vec![0; 1]].concat());

    // A broadcast input's shape is not the output's: in place into it is refused.
    let row = Tensor::from_slice(ctx, &[5], &[9u8; 5]).unwrap();
    let e = ctx
        .bitwise_xor_into(&a, &row, &row, AutoBroadcast::Numpy)
        .unwrap_err();
    assert_eq!(e.rule(), "shape_inconsistent", "{e}");
    unchanged(&row, &[vec![9; 5], vec![0; 11]].concat());
}

// ----- Tensors over the caller's buffers ---------------------------------------------------------

#[test]
fn from_buffer_output_keeps_the_bytes_after_it() {
    let ctx = ctx();
    for dt in [DataType::U8, DataType::U16, DataType::U32] {
        let case = ViewCase::new(
            Dml::Bit,
            dt,
            &[3, 7],
            &[128, 128, 128],
            [at(0, 0, &[]), at(1, 0, &[]), at(2, 0, &[])],
        );
        let gpu = case.upload();
        // A and B from `view` at offset 0, the output from `from_buffer`: the same thing.
        let [a, b, _] = case.views(&gpu);
        let out = Tensor::from_buffer(ctx, gpu[2].clone(), dt, &[3, 7]).unwrap();
        assert_eq!((out.offset(), out.strides()), (0, None));
        ctx.bit_xor_into(&a, &b, &out).unwrap();
        // 21 elements: with 8-bit ones, the last word is shared with 3 sentinel bytes.
        case.compare(&gpu, &case.expected());
    }
}

#[test]
fn from_buffer_inputs_read_in_place_of_a_copy() {
    let ctx = ctx();
    let ha = data(41, 40, 4);
    let gpu = buffer(ctx, &ha);
    let a = Tensor::from_buffer(ctx, gpu.clone(), DataType::I32, &[2, 5]).unwrap();
    let b = Tensor::from_slice(ctx, &[5], &[-1i32; 5]).unwrap();
    let out = ctx.bitwise_xor(&a, &b, AutoBroadcast::Numpy).unwrap();
    let want: Vec<i32> = ha
        .chunks_exact(4)
        .map(|c| !i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(out.to_vec::<i32>().unwrap(), want);
    // The caller's buffer is the tensor's: a write to it is what the tensor holds.
    ctx.queue().write_buffer(&gpu, 0, &[0u8; 40]);
    assert_eq!(a.to_vec::<i32>().unwrap(), [0; 10]);
}

#[test]
fn from_buffer_refuses_a_small_buffer_or_one_without_storage() {
    let ctx = ctx();
    let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
    let e = Tensor::from_buffer(ctx, bare(20, storage), DataType::U8, &[3, 7]).unwrap_err();
    assert_eq!(
        e,
        Error::ViewOutOfBounds {
            offset: 0,
            size: 24,
            buffer_size: 20
        }
    );
    // 21 bytes are there, but not the whole last word a call binds.
    let e = Tensor::from_buffer(ctx, bare(22, storage), DataType::U8, &[21]).unwrap_err();
    assert_eq!(e.rule(), "view_out_of_bounds", "{e}");
    assert!(Tensor::from_buffer(ctx, bare(24, storage), DataType::U8, &[21]).is_ok());

    let copy_only = wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
    let e = Tensor::from_buffer(ctx, bare(64, copy_only), DataType::U8, &[4]).unwrap_err();
    assert!(
        matches!(
            &e,
            Error::MissingUsage {
                tensor: None,
                needed: "STORAGE",
                ..
            }
        ),
        "{e:?}"
    );
    let e =
        Tensor::from_buffer(ctx, bare(64, storage), DataType::U64, &[usize::MAX, 2]).unwrap_err();
    assert_eq!(e.rule(), "size_overflow", "{e}");
}

#[test]
fn read_back_without_copy_src_is_a_typed_error() {
    let ctx = ctx();
    let t = Tensor::from_buffer(
        ctx,
        bare(64, wgpu::BufferUsages::STORAGE),
        DataType::U32,
        &[16],
    )
    .unwrap();
    let missing = |e: Error| {
        assert!(
            matches!(
                &e,
                Error::MissingUsage {
                    needed: "COPY_SRC",
                    ..
                }
            ),
            "{e:?}"
        );
    };
    missing(t.to_bytes().unwrap_err());
    missing(t.to_vec::<u32>().unwrap_err());
    missing(pollster::block_on(t.to_vec_async::<u32>()).unwrap_err());
    missing(pollster::block_on(t.to_bytes_async()).unwrap_err());
    // The tensor still works as an operand: only reading it back needs COPY_SRC.
    let ones = Tensor::from_slice(ctx, &[16], &[1u32; 16]).unwrap();
    ctx.bit_xor_into(&ones, &ones, &t).unwrap();
    let copy = ctx.bit_xor(&t, &ones).unwrap();
    assert_eq!(copy.to_vec::<u32>().unwrap(), [1; 16]);
}

// ----- Views at an offset, with strides --------------------------------------------------------

/// Strided and offset inputs, a padded output at an offset: the padding keeps its sentinel.
fn strided_views(op: Dml, dt: DataType) {
    let buffers = [256, 256, 256];
    // A: every other element of rows 9 apart; B: packed at an offset; output: rows padded to 6.
    ViewCase::new(
        op,
        dt,
        &[3, 4],
        &buffers,
        [at(0, 16, &[9, 2]), at(1, 48, &[]), at(2, 32, &[6, 1])],
    )
    .check();
    // A transposed, B a row repeated by a zero stride, the output's columns interleaved.
    ViewCase::new(
        op,
        dt,
        &[4, 3],
        &buffers,
        [at(0, 0, &[1, 4]), at(1, 64, &[0, 1]), at(2, 16, &[1, 5])],
    )
    .check();
    // All three in one buffer, apart; rank 3 with a size-1 dimension.
    ViewCase::new(
        op,
        dt,
        &[2, 1, 3],
        &[768],
        [
            at(0, 0, &[4, 100, 1]),
            at(0, 256, &[]),
            at(0, 512, &[6, 3, 2]),
        ],
    )
    .check();
}

per_type!(
    bit_xor_into_strided_views_matches_reference,
    |dt| strided_views(Dml::Bit, dt),
    [U8, I8, U16, F16, U32, F32, U64, F64]
);

per_type!(
    logical_xor_into_strided_views_matches_reference,
    |dt| strided_views(Dml::Logical, dt),
    [U8, U32]
);

#[test]
fn allocating_forms_take_views_and_give_packed_tensors() {
    for (op, dt) in [
        (Dml::Bit, DataType::U8),
        (Dml::Bit, DataType::F32),
        (Dml::Logical, DataType::U32),
    ] {
        // The output place is only where the reference writes; the call allocates.
        ViewCase::new(
            op,
            dt,
            &[3, 4],
            &[256, 256, 64],
            [at(0, 16, &[9, 2]), at(1, 32, &[0, 1]), at(2, 0, &[])],
        )
        .check_allocating();
    }
}

#[test]
fn dml_views_off_the_16_byte_alignment_are_refused() {
    let e = ViewCase::new(
        Dml::Bit,
        DataType::U32,
        &[4],
        &[64, 64, 64],
        [at(0, 4, &[]), at(1, 0, &[]), at(2, 0, &[])],
    )
    .check_refused("binding_offset_misaligned");
    assert_eq!(
        e,
        Error::BindingOffsetMisaligned {
            tensor: gpu_xor::TensorName::A,
            offset: 4,
            required: 16
        }
    );
    ViewCase::new(
        Dml::Logical,
        DataType::U8,
        &[2, 2],
        &[64, 64, 64],
        [at(0, 0, &[]), at(1, 0, &[]), at(2, 40, &[3, 1])],
    )
    .check_refused("binding_offset_misaligned");
}

#[test]
fn dml_output_view_partly_over_an_input_is_refused() {
    ViewCase::new(
        Dml::Bit,
        DataType::U16,
        &[16],
        &[128, 64],
        [at(0, 0, &[]), at(1, 0, &[]), at(0, 16, &[])],
    )
    .check_refused("partial_overlap");
    // Same range, other strides: not in place, refused.
    ViewCase::new(
        Dml::Bit,
        DataType::U16,
        &[2, 3],
        &[128, 64],
        [at(0, 16, &[4, 1]), at(1, 0, &[]), at(0, 16, &[3, 1])],
    )
    .check_refused("alias_desc_mismatch");
}

#[test]
fn a_view_past_the_end_of_its_buffer_is_refused() {
    let ctx = ctx();
    let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
    let gpu = bare(128, storage);
    let view = |offset, shape: &[usize], strides: Option<&[usize]>| {
        Tensor::view(ctx, gpu.clone(), DataType::U32, shape, offset, strides)
    };
    // (1*12 + 3 + 1) * 4 = 64 bytes from 64: fits exactly; one more column does not.
    assert!(view(64, &[2, 4], Some(&[12, 1])).is_ok());
    let e = view(64, &[2, 5], Some(&[12, 1])).unwrap_err();
    assert_eq!(
        e,
        Error::ViewOutOfBounds {
            offset: 64,
            size: 68,
            buffer_size: 128
        }
    );
    assert_eq!(
        view(128, &[1], None).unwrap_err().rule(),
        "view_out_of_bounds"
    );
    assert_eq!(
        view(u64::MAX - 3, &[1], None).unwrap_err().rule(),
        "view_out_of_bounds"
    );
    // An empty view anywhere inside is fine.
    assert!(view(128, &[0, 3], None).is_ok());
    let e = view(0, &[2, 2], Some(&[1])).unwrap_err();
    assert_eq!(
        e,
        Error::StridesLengthMismatch {
            tensor: gpu_xor::TensorName::A,
            strides: 1,
            rank: 2
        }
    );
    let e = view(0, &[2, 2], Some(&[usize::MAX, 1])).unwrap_err();
    assert_eq!(e.rule(), "size_overflow", "{e}");
}

#[test]
fn strides_that_describe_the_packed_layout_are_packed() {
    let ctx = ctx();
    let gpu = bare(256, wgpu::BufferUsages::STORAGE);
    let view = |shape: &[usize], strides: &[usize]| {
        Tensor::view(ctx, gpu.clone(), DataType::U16, shape, 16, Some(strides)).unwrap()
    };
    assert_eq!(view(&[3, 5], &[5, 1]).strides(), None);
    assert_eq!(view(&[1, 5], &[1000, 1]).strides(), None);
    assert_eq!(view(&[3, 0], &[7, 7]).strides(), None);
    assert_eq!(view(&[3, 5], &[6, 1]).strides(), Some(&[6, 1][..]));
    let t = view(&[2, 3], &[5, 1]);
    let desc = t.dml_desc().unwrap();
    assert_eq!(desc.strides, Some(vec![5, 1]));
    assert_eq!(desc.total_size(), Ok(16));
    assert_eq!((t.binding().offset, t.binding().size), (16, Some(16)));
}

// ----- BitwiseXor on views ---------------------------------------------------------------------

/// BitwiseXor on dense views at offsets (multiples of 4 and of the element size) in
/// sentinel-filled buffers, into a view and into a new tensor.
fn bitwise_offset_views(dt: DataType) {
    let ctx = ctx();
    let width = dt.size_in_bytes() as usize;
    let (a_shape, b_shape, shape) = ([2, 3, 5], [3, 1], [2, 3, 5]);
    let offsets = [4, 8, 12].map(|o: usize| o.next_multiple_of(width));
    let images: Vec<Vec<u8>> = (0..3).map(|k| data(51 + k, 320, width)).collect();
    let gpu: Vec<wgpu::Buffer> = images.iter().map(|i| buffer(ctx, i)).collect();
    let view = |k: usize, shape: &[usize]| {
        Tensor::view(ctx, gpu[k].clone(), dt, shape, offsets[k] as u64, None).unwrap()
    };
    let (a, b, out) = (view(0, &a_shape), view(1, &b_shape), view(2, &shape));
    let host = |k: usize, n: usize| &images[k][offsets[k]..offsets[k] + n * width];
    let (_, want) = reference::bitwise_xor(
        dt,
        &a_shape,
        host(0, 30),
        &b_shape,
        host(1, 3),
        AutoBroadcast::Numpy,
    )
    .unwrap();

    let new = ctx.bitwise_xor(&a, &b, AutoBroadcast::Numpy).unwrap();
    assert_eq!(new.to_bytes().unwrap(), want);
    ctx.bitwise_xor_into(&a, &b, &out, AutoBroadcast::Numpy)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut expected = images.clone();
    expected[2][offsets[2]..offsets[2] + want.len()].copy_from_slice(&want);
    let layout = OutputLayout::packed(2, offsets[2] as u64, width as u64, &[2, 3, 5]);
    for (k, (buffer, want)) in gpu.iter().zip(&expected).enumerate() {
        let output = (k == 2).then_some(&layout);
        check_buffer(&format!("{dt:?} buffer {k}"), &read(buffer), want, output);
    }
    assert_eq!(out.to_bytes().unwrap(), want);
}

per_type!(
    bitwise_xor_on_offset_views_matches_reference,
    |dt| bitwise_offset_views(dt),
    [U8, I16, U32, I64, Bool]
);

#[test]
fn bitwise_xor_refuses_strided_views_and_misaligned_offsets() {
    let ctx = ctx();
    let image = data(61, 128, 1);
    let gpu = buffer(ctx, &image);
    let packed = Tensor::from_slice(ctx, &[2, 3], &[1u8; 6]).unwrap();
    let strided = Tensor::view(ctx, gpu.clone(), DataType::U8, &[2, 3], 16, Some(&[4, 1])).unwrap();
    for (a, b, out, name) in [
        (&strided, &packed, &packed, "ATensor"),
        (&packed, &strided, &packed, "BTensor"),
        (&packed, &packed, &strided, "OutputTensor"),
    ] {
        let e = ctx
            .bitwise_xor_into(a, b, out, AutoBroadcast::Numpy)
            .unwrap_err();
        assert_eq!(e.rule(), "not_dense", "{e}");
        assert!(e.to_string().contains(name), "{e}");
    }
    let e = ctx
        .bitwise_xor(&strided, &packed, AutoBroadcast::Numpy)
        .unwrap_err();
    assert_eq!(e.rule(), "not_dense", "{e}");
    // Offsets: multiples of 4 (and of the element size) only.
    let off = Tensor::view(ctx, gpu.clone(), DataType::U8, &[2, 3], 2, None).unwrap();
    let e = ctx
        .bitwise_xor_into(&packed, &packed, &off, AutoBroadcast::Numpy)
        .unwrap_err();
    assert_eq!(
        e,
        Error::BindingOffsetMisaligned {
            tensor: gpu_xor::TensorName::Output,
            offset: 2,
            required: 4
        }
    );
    let wide = Tensor::view(ctx, gpu.clone(), DataType::I64, &[2], 4, None).unwrap();
    let e = ctx
        .bitwise_xor_into(&wide, &wide, &wide, AutoBroadcast::None)
        .unwrap_err();
    assert_eq!(e.rule(), "binding_offset_misaligned", "{e}");
    ctx.wait().unwrap();
    assert_eq!(read(&gpu), image, "a refused call wrote");
}

// ----- Read-back of views ----------------------------------------------------------------------

#[test]
fn views_read_back_in_row_major_order() {
    let ctx = ctx();
    let image = data(71, 256, 1);
    let gpu = buffer(ctx, &image);
    // u16 [3, 4] at byte 10, rows 7 apart, every other element: element (i, j) at byte
    // 10 + (7 i + 2 j) * 2.
    let t = Tensor::view(ctx, gpu.clone(), DataType::U16, &[3, 4], 10, Some(&[7, 2])).unwrap();
    let want: Vec<u16> = (0..3)
        .flat_map(|i| (0..4).map(move |j| 10 + (7 * i + 2 * j) * 2))
        .map(|at| u16::from_le_bytes([image[at], image[at + 1]]))
        .collect();
    assert_eq!(t.to_vec::<u16>().unwrap(), want);
    assert_eq!(pollster::block_on(t.to_vec_async::<u16>()).unwrap(), want);
    assert_eq!(
        t.to_bytes().unwrap(),
        bytemuck::cast_slice::<u16, u8>(&want)
    );
    assert_eq!(
        pollster::block_on(t.to_bytes_async()).unwrap(),
        bytemuck::cast_slice::<u16, u8>(&want)
    );
    assert_eq!(
        t.to_vec::<i16>().unwrap_err(),
        Error::TensorTypeMismatch {
            actual: DataType::U16,
            requested: DataType::I16
        }
    );
    // Transposed booleans at an odd offset; a broadcast dimension repeats.
    let flags = Tensor::view(
        ctx,
        gpu.clone(),
        DataType::Bool,
        &[2, 3, 2],
        33,
        Some(&[1, 0, 5]),
    )
    .unwrap();
    let want: Vec<bool> = (0..2)
        .flat_map(|i| (0..3).flat_map(move |_| (0..2).map(move |k| 33 + i + 5 * k)))
        .map(|at| image[at] != 0)
        .collect();
    assert_eq!(flags.to_bools().unwrap(), want);
    assert_eq!(pollster::block_on(flags.to_bools_async()).unwrap(), want);
    // An empty view reads nothing.
    let empty = Tensor::view(ctx, gpu, DataType::U32, &[3, 0], 16, Some(&[9, 1])).unwrap();
    assert_eq!(empty.to_vec::<u32>().unwrap(), Vec::<u32>::new());
}

fn rule<T: std::fmt::Debug>(r: Result<T, Error>) -> &'static str {
    r.expect_err("the call should have been refused").rule()
}

/// The one-call forms of the operators beyond XOR against the reference, new output and
/// `_into` (in place too), and the forms that take the operator for every two-input
/// DirectML operator of the table, on values that reach every truth value and bit pattern.
#[test]
fn every_one_call_form_matches_the_reference() {
    let ctx = ctx();
    let xs = [0u8, 1, 2, 0x80, 0xff, 0, 0x0f, 0x10];
    let ys = [0u8, 0, 3, 0x80, 0x0f, 9, 0xf0, 0];
    let a = Tensor::from_slice(ctx, &[2, 4], &xs).unwrap();
    let b = Tensor::from_slice(ctx, &[2, 4], &ys).unwrap();
    let f = |op: DmlBinaryOp| -> Vec<u8> {
        xs.iter()
            .zip(&ys)
            .map(|(&x, &y)| op.function().apply(x.into(), y.into(), 1) as u8)
            .collect()
    };
    type OneCall = fn(&Context, &Tensor, &Tensor) -> Result<Tensor, Error>;
    let calls: [(&str, OneCall, DmlBinaryOp); 4] = [
        ("bit_and", |c, a, b| c.bit_and(a, b), DmlBinaryOp::BitAnd),
        ("bit_or", |c, a, b| c.bit_or(a, b), DmlBinaryOp::BitOr),
        (
            "logical_and",
            |c, a, b| c.logical_and(a, b),
            DmlBinaryOp::LogicalAnd,
        ),
        (
            "logical_or",
            |c, a, b| c.logical_or(a, b),
            DmlBinaryOp::LogicalOr,
        ),
    ];
    for (name, call, op) in calls {
        let got = call(ctx, &a, &b).unwrap().to_vec::<u8>().unwrap();
        assert_eq!(got, f(op), "{name}");
        let out = Tensor::zeros(ctx, DataType::U8, &[2, 4]).unwrap();
        ctx.dml_binary_into(op, &a, &b, &out).unwrap();
        assert_eq!(out.to_vec::<u8>().unwrap(), f(op), "{name}_into");
    }
    // The forms that take the operator, for every two-input operator of the table.
    for op in DmlBinaryOp::ALL {
        let got = ctx.dml_binary(op, &a, &b).unwrap().to_vec::<u8>().unwrap();
        assert_eq!(got, f(op), "{op:?}");
        let out = Tensor::zeros(ctx, DataType::U8, &[2, 4]).unwrap();
        ctx.dml_binary_into(op, &a, &b, &out).unwrap();
        assert_eq!(out.to_vec::<u8>().unwrap(), f(op), "{op:?} into");
    }
    let not: Vec<u8> = xs.iter().map(|x| !x).collect();
    let lnot: Vec<u8> = xs.iter().map(|&x| u8::from(x == 0)).collect();
    assert_eq!(ctx.bit_not(&a).unwrap().to_vec::<u8>().unwrap(), not);
    assert_eq!(ctx.logical_not(&a).unwrap().to_vec::<u8>().unwrap(), lnot);
    // In place: a = a & b, then a = !a.
    let c = Tensor::from_slice(ctx, &[2, 4], &xs).unwrap();
    ctx.bit_and_into(&c, &b, &c).unwrap();
    ctx.bit_not_into(&c, &c).unwrap();
    let want: Vec<u8> = f(DmlBinaryOp::BitAnd).iter().map(|v| !v).collect();
    assert_eq!(c.to_vec::<u8>().unwrap(), want);
    let c = Tensor::from_slice(ctx, &[2, 4], &xs).unwrap();
    ctx.logical_or_into(&b, &c, &c).unwrap();
    ctx.logical_not_into(&c, &c).unwrap();
    let want: Vec<u8> = f(DmlBinaryOp::LogicalOr).iter().map(|v| 1 - v).collect();
    assert_eq!(c.to_vec::<u8>().unwrap(), want);
    // LOGICAL_* refuse i8; OpenVINO's Logical* refuse u8.
    let i = Tensor::from_slice(ctx, &[2], &[1i8, 0]).unwrap();
    assert_eq!(rule(ctx.logical_and(&i, &i)), "unsupported_dtype");
    assert_eq!(
        rule(ctx.ov_binary(OvBinaryOp::LogicalOr, &a, &b, AutoBroadcast::Numpy)),
        "unsupported_dtype"
    );

    // OpenVINO: integers bit by bit, broadcast; booleans normalised (2 is true).
    let xi = Tensor::from_slice(ctx, &[2, 3], &[1i32, -2, 3, -4, 5, 0x7fff_ffff]).unwrap();
    let yi = Tensor::from_slice(ctx, &[3], &[-1i32, 6, 0]).unwrap();
    let and = ctx.bitwise_and(&xi, &yi, AutoBroadcast::Numpy).unwrap();
    assert_eq!(and.to_vec::<i32>().unwrap(), [1, 6, 0, -4, 4, 0]);
    let or = ctx.bitwise_or(&xi, &yi, AutoBroadcast::Numpy).unwrap();
    assert_eq!(or.to_vec::<i32>().unwrap(), [-1, -2, 3, -1, 7, 0x7fff_ffff]);
    ctx.bitwise_not_into(&xi, &xi).unwrap();
    assert_eq!(
        xi.to_vec::<i32>().unwrap(),
        [!1, !-2, !3, !-4, !5, !0x7fff_ffff]
    );
    let p = Tensor::from_bytes(ctx, DataType::Bool, &[4], &[0, 1, 2, 0x80]).unwrap();
    let q = Tensor::from_bools(ctx, &[1], &[true]).unwrap();
    let land = ctx
        .ov_binary(OvBinaryOp::LogicalAnd, &p, &q, AutoBroadcast::Numpy)
        .unwrap();
    assert_eq!(land.to_bytes().unwrap(), [0, 1, 1, 1]);
    let band = ctx.bitwise_and(&p, &q, AutoBroadcast::Numpy).unwrap();
    assert_eq!(band.to_bytes().unwrap(), [0, 1, 1, 1]);
    assert_eq!(
        ctx.bitwise_not(&p).unwrap().to_bytes().unwrap(),
        [1, 0, 0, 0]
    );
    let lxor = ctx
        .ov_binary(OvBinaryOp::LogicalXor, &p, &q, AutoBroadcast::Numpy)
        .unwrap();
    assert_eq!(lxor.to_bytes().unwrap(), [1, 0, 0, 0]);
    let out = Tensor::zeros(ctx, DataType::Bool, &[4]).unwrap();
    ctx.ov_unary_into(OvUnaryOp::LogicalNot, &p, &out).unwrap();
    assert_eq!(out.to_bytes().unwrap(), [1, 0, 0, 0]);
    // The output of an `_into` must have the input's shape and type.
    let wrong = Tensor::zeros(ctx, DataType::Bool, &[5]).unwrap();
    assert_eq!(
        rule(ctx.ov_unary_into(OvUnaryOp::LogicalNot, &p, &wrong)),
        "shape_inconsistent"
    );
}

/// The shifts' one-call forms on the README's values and on the edges of every width: in
/// range an ordinary shift (a left shift wraps, a right shift of a signed type keeps the
/// sign), an amount outside `[0, bits)` 0, or -1 for a right shift of a negative value.
#[test]
fn shift_one_call_forms_keep_one_definition_of_the_amount() {
    let ctx = ctx();
    let numpy = AutoBroadcast::Numpy;
    // The README's example.
    let v = Tensor::from_slice(ctx, &[4], &[-8i8, 4, -1, 64]).unwrap();
    let s = Tensor::from_slice(ctx, &[4], &[1i8, 9, -1, 1]).unwrap();
    let right = ctx.bitwise_right_shift(&v, &s, numpy).unwrap();
    assert_eq!(right.to_vec::<i8>().unwrap(), [-4, 0, -1, 32]);
    let left = ctx.bitwise_left_shift(&v, &s, numpy).unwrap();
    assert_eq!(left.to_vec::<i8>().unwrap(), [-16, 0, 0, -128]);

    // u16 lanes, two to a word, with amounts 15, 16, 17 and 0 beside each other: a kernel
    // that masks the amount to 32 bits gets the 16 and 17 wrong.
    let v = Tensor::from_slice(ctx, &[4], &[0x8001u16, 0x8001, 0xffff, 0x1234]).unwrap();
    let s = Tensor::from_slice(ctx, &[4], &[15u16, 16, 17, 0]).unwrap();
    let left = ctx.bit_shift_left(&v, &s).unwrap().to_vec::<u16>().unwrap();
    assert_eq!(left, [0x8000, 0, 0, 0x1234]);
    let right = ctx
        .bit_shift_right(&v, &s)
        .unwrap()
        .to_vec::<u16>()
        .unwrap();
    assert_eq!(right, [1, 0, 0, 0x1234]);

    // 64-bit elements: bits carried across the two words, and amounts 63, 64 and 2^32.
    let x = [1u64 << 31, 0x8000_0000_0000_0001, u64::MAX, 5];
    let v = Tensor::from_slice(ctx, &[4], &x).unwrap();
    let s = Tensor::from_slice(ctx, &[4], &[1u64, 63, 64, 1 << 32]).unwrap();
    let left = ctx.bit_shift_left(&v, &s).unwrap().to_vec::<u64>().unwrap();
    assert_eq!(left, [1 << 32, 1 << 63, 0, 0]);
    let right = ctx
        .bit_shift_right(&v, &s)
        .unwrap()
        .to_vec::<u64>()
        .unwrap();
    assert_eq!(right, [1 << 30, 1, 0, 0]);
    let v = Tensor::from_slice(ctx, &[4], &[i64::MIN, -5, i64::MIN, 7]).unwrap();
    let s = Tensor::from_slice(ctx, &[4], &[33i64, 1, 64, -1]).unwrap();
    let right = ctx.bitwise_right_shift(&v, &s, numpy).unwrap();
    assert_eq!(right.to_vec::<i64>().unwrap(), [i64::MIN >> 33, -3, -1, 0]);

    // The DirectML shifts take unsigned types only; OpenVINO's every integer but boolean.
    let f = Tensor::from_slice(ctx, &[2], &[1i32, 2]).unwrap();
    assert_eq!(
        ctx.bit_shift_left(&f, &f).unwrap_err().rule(),
        "unsupported_dtype"
    );
    let b = Tensor::from_bools(ctx, &[2], &[true, false]).unwrap();
    let e = ctx.bitwise_left_shift(&b, &b, numpy).unwrap_err();
    assert!(matches!(e, Error::NotInteger { .. }), "{e}");
}

/// `BIT_COUNT`'s one-call forms: a new `u32` tensor from any input type, or an existing `u8`
/// or `u32` one; another output type, and the input itself as output, are refused.
#[test]
fn bit_count_one_call_forms_write_u32_or_the_given_type() {
    let ctx = ctx();
    let wide = Tensor::from_slice(ctx, &[3], &[u64::MAX, 1 << 40, 0x8000_0000_8000_0001]).unwrap();
    assert_eq!(
        ctx.bit_count(&wide).unwrap().to_vec::<u32>().unwrap(),
        [64, 1, 3]
    );
    let floats = Tensor::from_slice(ctx, &[3], &[-0.0f32, 1.0, f32::NAN]).unwrap();
    let want: Vec<u32> = [-0.0f32, 1.0, f32::NAN]
        .iter()
        .map(|x| x.to_bits().count_ones())
        .collect();
    assert_eq!(
        ctx.bit_count(&floats).unwrap().to_vec::<u32>().unwrap(),
        want
    );
    let narrow = Tensor::zeros(ctx, DataType::U8, &[3]).unwrap();
    ctx.bit_count_into(&wide, &narrow).unwrap();
    assert_eq!(narrow.to_vec::<u8>().unwrap(), [64, 1, 3]);
    let halves = Tensor::zeros(ctx, DataType::U16, &[3]).unwrap();
    let e = ctx.bit_count_into(&wide, &halves).unwrap_err();
    assert!(matches!(e, Error::UnsupportedOutputDataType { .. }), "{e}");
    let bytes = Tensor::from_slice(ctx, &[4], &[0u8, 1, 0x7f, 0xff]).unwrap();
    let e = ctx.bit_count_into(&bytes, &bytes).unwrap_err();
    assert_eq!(e.rule(), "in_place_not_supported", "{e}");
    assert_eq!(bytes.to_vec::<u8>().unwrap(), [0, 1, 0x7f, 0xff]);
}
