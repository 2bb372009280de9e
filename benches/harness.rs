//! What the criterion benches (`benches/xor.rs`) and `examples/bench_report.rs` share: the
//! cases, their buffers, and the three baselines measured on the same adapter in the same run
//! (a `vec4<u32>` copy kernel, `copy_buffer_to_buffer`, and a bare `vec4<u32>` XOR kernel).
//!
//! Time is measured by recording `iters` repetitions of one call into one encoder, submitting
//! once and waiting: on a software adapter (lavapipe) this is the CPU time of the kernels; on
//! a GPU it is the kernels plus one submission, which is noise at the sizes reported. The
//! recording benchmark instead times the CPU cost of recording alone ([`record_time`]), in
//! each [`Way`] of recording the same small calls.

#![allow(dead_code)]

use std::time::{Duration, Instant};

use gpu_xor::{
    AutoBroadcast, Bindings, BitXor, BitXorDesc, BitwiseXor, BitwiseXorDesc, Context, DataType,
    DmlBinary, DmlBinaryDesc, DmlBinaryOp, DmlUnary, DmlUnaryDesc, DmlUnaryOp, LogicalXor,
    LogicalXorDesc, OvBinary, OvBinaryDesc, OvBinaryOp, OvUnary, OvUnaryDesc, OvUnaryOp, Prepared,
    TensorBinding, TensorDesc,
};

/// Which shape of work a case is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// Three packed tensors.
    Contiguous,
    /// Output bound on A's range.
    InPlace,
    /// `[rows, cols] ^ [cols]` (B repeated over rows).
    BroadcastRow,
    /// `[rows, cols] ^ [rows, 1]` (B's one element repeated along each row).
    BroadcastColumn,
    /// A transposed: `[n, n]` read with strides `[1, n]`.
    Transposed,
    /// The output in rows padded by one element (`[rows, cols]`, row stride `cols + 1`).
    PaddedOutput,
    /// The output a slice of a wider tensor, as when writing one piece of a concatenation
    /// along the last axis: `[rows, cols]` with row stride `16 / w + cols + 7` elements (the
    /// piece before it 16 bytes wide, the one after it 7 elements), bound 16 bytes into its
    /// buffer ([`SLICE_OFFSET`]).
    SlicedOutput,
    /// The output transposed: `[n, n]` written with strides `[1, n]`, the inputs packed.
    TransposedOutput,
    /// A a cube read with axes (2, 0, 1): `[n, n, n]` with strides `[1, n², n]`.
    Permuted3,
    /// A a cube read with its two inner axes swapped, axes (0, 2, 1): strides `[n², 1, n]`.
    Permuted3Inner,
    /// A a 4-D cube read with axes (0, 2, 1, 3) (heads and tokens swapped): strides
    /// `[n³, n, n², 1]`.
    Permuted4,
    /// A a 4-D cube read with axes (0, 3, 1, 2) (NHWC read as NCHW): strides `[n³, 1, n², n]`.
    Permuted4Channels,
    /// The output a cube written with axes (2, 0, 1), the inputs packed.
    PermutedOutput,
    /// A read with a step of two elements: `[n]` with stride `[2]`.
    SteppedInput,
    /// The output written with a step of two elements (every other element): `[n]`, stride 2.
    SteppedOutput,
    /// The output in short padded rows: `[rows, 3]` with a row stride of 5 elements.
    ShortRows,
}

/// The permutations of the permuted paths: `axes[k]` is the source axis that axis `k` reads.
fn axes(path: Path) -> &'static [usize] {
    match path {
        Path::Permuted3 | Path::PermutedOutput => &[2, 0, 1],
        Path::Permuted3Inner => &[0, 2, 1],
        Path::Permuted4 => &[0, 2, 1, 3],
        Path::Permuted4Channels => &[0, 3, 1, 2],
        _ => &[],
    }
}

/// The strides of a packed cube of `rank` sides of `side` read with `axes`.
fn permuted_strides(side: u64, axes: &[usize]) -> Vec<u32> {
    let rank = axes.len();
    axes.iter()
        .map(|&k| side.pow((rank - 1 - k) as u32) as u32)
        .collect()
}

/// Where a [`Path::SlicedOutput`] output starts in its buffer: a `TensorDesc` has no element
/// offset, so a slice starts where its binding does, and 16 bytes is the smallest binding
/// offset past 0 that DirectML allows (one wgpu cannot bind directly, its storage offsets
/// being multiples of 256 on most adapters).
const SLICE_OFFSET: u64 = 16;

/// Elements after a [`Path::SlicedOutput`] slice in each row of its wider tensor.
const SLICE_AFTER: u64 = 7;

impl Path {
    pub fn name(self) -> &'static str {
        match self {
            Path::Contiguous => "contiguous",
            Path::InPlace => "in-place",
            Path::BroadcastRow => "broadcast-row",
            Path::BroadcastColumn => "broadcast-column",
            Path::Transposed => "transposed",
            Path::PaddedOutput => "padded-output",
            Path::SlicedOutput => "sliced-output",
            Path::TransposedOutput => "transposed-output",
            Path::Permuted3 => "permuted-3d (2,0,1)",
            Path::Permuted3Inner => "permuted-3d (0,2,1)",
            Path::Permuted4 => "permuted-4d (0,2,1,3)",
            Path::Permuted4Channels => "permuted-4d (0,3,1,2)",
            Path::PermutedOutput => "permuted-output (2,0,1)",
            Path::SteppedInput => "stepped-input",
            Path::SteppedOutput => "stepped-output",
            Path::ShortRows => "short-rows-output",
        }
    }

    /// Whether the path has a strided operand: measured against the plain strided kernel.
    pub fn strided(self) -> bool {
        !matches!(
            self,
            Path::Contiguous | Path::InPlace | Path::BroadcastRow | Path::BroadcastColumn
        )
    }
}

/// The operator a case runs: the XOR operators through their own types, the rest of the
/// family through the family's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(clippy::enum_variant_names)] // the operators' own names
pub enum Op {
    BitXor,
    LogicalXor,
    BitwiseXor,
    Dml(DmlBinaryOp),
    DmlNot(DmlUnaryOp),
    Ov(OvBinaryOp),
    OvNot(OvUnaryOp),
}

impl Op {
    /// Every operator of the family but the three XOR ones.
    pub const FAMILY: [Op; 13] = [
        Op::Dml(DmlBinaryOp::BitAnd),
        Op::Dml(DmlBinaryOp::BitOr),
        Op::DmlNot(DmlUnaryOp::BitNot),
        Op::Dml(DmlBinaryOp::LogicalAnd),
        Op::Dml(DmlBinaryOp::LogicalOr),
        Op::DmlNot(DmlUnaryOp::LogicalNot),
        Op::Ov(OvBinaryOp::BitwiseAnd),
        Op::Ov(OvBinaryOp::BitwiseOr),
        Op::OvNot(OvUnaryOp::BitwiseNot),
        Op::Ov(OvBinaryOp::LogicalAnd),
        Op::Ov(OvBinaryOp::LogicalOr),
        Op::Ov(OvBinaryOp::LogicalXor),
        Op::OvNot(OvUnaryOp::LogicalNot),
    ];

    pub fn name(self) -> &'static str {
        match self {
            Op::BitXor => "bit_xor",
            Op::LogicalXor => "logical_xor",
            Op::BitwiseXor => "bitwise_xor",
            // The rest by the name of their one-call form, from the operator table.
            Op::Dml(op) => op.operator().spec().call,
            Op::DmlNot(op) => op.operator().spec().call,
            Op::Ov(op) => op.operator().spec().call,
            Op::OvNot(op) => op.operator().spec().call,
        }
    }

    /// How many inputs it reads.
    pub fn inputs(self) -> u64 {
        match self {
            Op::DmlNot(_) | Op::OvNot(_) => 1,
            _ => 2,
        }
    }

    /// Whether it is an OpenVINO operation (dense tensors, broadcast by shape).
    pub fn openvino(self) -> bool {
        matches!(self, Op::BitwiseXor | Op::Ov(_) | Op::OvNot(_))
    }

    /// The XOR operator of the same standard and kind (bitwise or logical), whose speed this
    /// one's is compared with.
    pub fn xor_twin(self) -> Op {
        match self {
            Op::BitwiseXor | Op::Ov(_) | Op::OvNot(_) => Op::BitwiseXor,
            Op::LogicalXor => Op::LogicalXor,
            Op::Dml(f) if f.function().logical => Op::LogicalXor,
            Op::DmlNot(f) if f.function().logical => Op::LogicalXor,
            _ => Op::BitXor,
        }
    }
}

/// The element counts of a case: `n` elements of `w` bytes; for the 2-D paths a square-ish
/// shape, rows of 4096 elements where possible, and a square of `side`.
struct Dims {
    w: u64,
    n: u64,
    cols: u64,
    rows: u64,
    side: u64,
    /// Sides of the 3-D and 4-D cubes.
    cube3: u64,
    cube4: u64,
}

/// The largest `s` with `s^rank <= n`.
fn root(n: u64, rank: u32) -> u64 {
    let mut s = (n as f64).powf(1.0 / f64::from(rank)).round() as u64 + 1;
    while s > 1 && s.pow(rank) > n {
        s -= 1;
    }
    s.max(1)
}

impl Dims {
    fn new(data_type: DataType, bytes: u64) -> Dims {
        let w = u64::from(data_type.size_in_bytes());
        let n = bytes / w;
        let cols = if n >= 4096 * 4 {
            4096
        } else {
            (n as f64).sqrt().max(1.0) as u64
        };
        Dims {
            w,
            n,
            cols,
            rows: (n / cols).max(1),
            side: (n as f64).sqrt().max(1.0) as u64,
            cube3: root(n, 3),
            cube4: root(n, 4),
        }
    }
}

/// One benchmark case, ready to record.
pub struct Case {
    pub op: Op,
    pub path: Path,
    pub data_type: DataType,
    /// Bytes of one operand (the output).
    pub bytes: u64,
    /// Bytes read plus bytes written by one call.
    pub traffic: u64,
    buffers: Vec<wgpu::Buffer>,
    ranges: [(usize, u64, u64); 3],
    compiled: Compiled,
    layout: PlainLayout,
}

/// A case's layout as the plain strided kernel reads it: element size, sizes, the element
/// strides of a, b and out, and the element offset of each in its buffer.
pub struct PlainLayout {
    pub width: u64,
    pub sizes: Vec<u64>,
    pub strides: [Vec<u64>; 3],
    pub base: [u64; 3],
}

/// `size` bytes of `buffer` from `offset` (multiples of 4), read back.
pub fn read(ctx: &Context, buffer: &wgpu::Buffer, offset: u64, size: u64) -> Vec<u8> {
    let staging = ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("bench readback"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(buffer, offset, &staging, 0, size);
    ctx.queue().submit([encoder.finish()]);
    staging
        .slice(..)
        .map_async(wgpu::MapMode::Read, |r| r.expect("map"));
    ctx.device()
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("poll");
    staging
        .slice(..)
        .get_mapped_range()
        .expect("mapped")
        .to_vec()
}

/// The plain strided XOR kernel (`plain_strided.wgsl`) bound to one case: one output element
/// per invocation (one output word for a dense 8- or 16-bit output), offsets unravelled from a
/// strides uniform, the whole buffers bound.
pub struct PlainStrided {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    groups: (u32, u32),
}

impl PlainStrided {
    pub fn new(ctx: &Context, layout: &PlainLayout, buffers: [&wgpu::Buffer; 3]) -> PlainStrided {
        let device = ctx.device();
        let w = layout.width;
        let elements: u64 = layout.sizes.iter().product();
        let rank = layout.sizes.len();
        // A dense output of 8- or 16-bit elements starting on a word: one word per invocation.
        let packed_strides: Vec<u64> = (0..rank)
            .map(|d| layout.sizes[d + 1..].iter().product())
            .collect();
        let packed =
            w < 4 && layout.strides[2] == packed_strides && (layout.base[2] * w).is_multiple_of(4);
        let words = (elements * w).div_ceil(4);
        let units = if packed { words } else { elements };
        let (out_type, stores) = if w < 4 && !packed {
            (
                "array<atomic<u32>>",
                "fn load_out(w: u32) -> u32 { return atomicLoad(&out_buf[w]); }\n\
                 fn store_word(w: u32, v: u32) { atomicStore(&out_buf[w], v); }\n\
                 fn store_lane(w: u32, shift: u32, v: u32) {\n\
                     let old = (atomicLoad(&out_buf[w]) >> shift) & lane_mask();\n\
                     atomicXor(&out_buf[w], (old ^ v) << shift);\n\
                 }\n",
            )
        } else {
            (
                "array<u32>",
                "fn load_out(w: u32) -> u32 { return out_buf[w]; }\n\
                 fn store_word(w: u32, v: u32) { out_buf[w] = v; }\n\
                 fn store_lane(w: u32, shift: u32, v: u32) {\n\
                     let m = lane_mask() << shift;\n\
                     out_buf[w] = (out_buf[w] & ~m) | (v << shift);\n\
                 }\n",
            )
        };
        let source = include_str!("plain_strided.wgsl").replace("OUT_TYPE", out_type) + stores;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("plain strided"),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let constants = [
            ("WIDTH", w as f64),
            ("PACKED_OUT", f64::from(u8::from(packed))),
        ];
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("plain strided"),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants: &constants,
                ..Default::default()
            },
            cache: None,
        });
        let max_x = u64::from(device.limits().max_compute_workgroups_per_dimension);
        let groups = units.div_ceil(256).max(1);
        let x = groups.min(max_x);
        let y = groups.div_ceil(x);
        let mut shape = [0u32; 40];
        shape[..4].copy_from_slice(&[elements as u32, rank as u32, (x * 256) as u32, words as u32]);
        for (i, &b) in layout.base.iter().enumerate() {
            shape[4 + i] = b as u32;
        }
        for d in 0..rank {
            shape[8 + d] = layout.sizes[d] as u32;
            for o in 0..3 {
                shape[16 + 8 * o + d] = layout.strides[o][d] as u32;
            }
        }
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("plain strided shape"),
            size: std::mem::size_of_val(&shape) as u64,
            usage: wgpu::BufferUsages::UNIFORM,
            mapped_at_creation: true,
        });
        uniform
            .get_mapped_range_mut(..)
            .expect("mapped")
            .copy_from_slice(bytemuck::cast_slice(&shape));
        uniform.unmap();
        let entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .map(|b| b.as_entire_binding())
            .chain([uniform.as_entire_binding()])
            .zip(0..)
            .map(|(resource, binding)| wgpu::BindGroupEntry { binding, resource })
            .collect();
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("plain strided"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        });
        PlainStrided {
            pipeline,
            bind_group,
            groups: (x as u32, y as u32),
        }
    }

    /// `n` dispatches in one compute pass.
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder, n: u64) {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        for _ in 0..n {
            pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
        }
    }
}

enum Compiled {
    Bit(BitXor),
    Logical(LogicalXor),
    Bitwise(BitwiseXor),
    DmlBinary(DmlBinary),
    DmlUnary(DmlUnary),
    OvBinary(OvBinary),
    OvUnary(OvUnary),
}

/// `$body` with `$op` bound to the compiled operator of any kind.
macro_rules! each {
    ($compiled:expr, |$op:ident| $body:expr) => {
        match $compiled {
            Compiled::Bit($op) => $body,
            Compiled::Logical($op) => $body,
            Compiled::Bitwise($op) => $body,
            Compiled::DmlBinary($op) => $body,
            Compiled::DmlUnary($op) => $body,
            Compiled::OvBinary($op) => $body,
            Compiled::OvUnary($op) => $body,
        }
    };
}

fn storage(ctx: &Context, size: u64, seed: u64) -> wgpu::Buffer {
    let buffer = ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("bench"),
        size: size.div_ceil(16) * 16,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: true,
    });
    {
        let mut view = buffer.get_mapped_range_mut(..).expect("mapped");
        let mut rng = gpu_xor_testkit::SplitMix64::new(seed);
        let mut chunk = vec![0u8; 1 << 16];
        let len = buffer.size() as usize;
        let mut at = 0;
        while at < len {
            for word in chunk.chunks_mut(8) {
                word.copy_from_slice(&rng.next_u64().to_le_bytes());
            }
            let n = chunk.len().min(len - at);
            view.slice(at..at + n).copy_from_slice(&chunk[..n]);
            at += n;
        }
    }
    buffer.unmap();
    buffer
}

impl Case {
    /// Builds a case of about `bytes` bytes per operand.
    pub fn new(ctx: &Context, op: Op, path: Path, data_type: DataType, bytes: u64) -> Case {
        let Dims {
            w,
            n,
            cols,
            rows,
            side,
            cube3,
            cube4,
        } = Dims::new(data_type, bytes);
        let t = |sizes: &[u64]| {
            TensorDesc::new(
                data_type,
                &sizes.iter().map(|&s| s as u32).collect::<Vec<_>>(),
            )
        };
        let slice_stride = SLICE_OFFSET / w + cols + SLICE_AFTER;
        let (a, b, out, shape_elems) = match path {
            Path::Contiguous | Path::InPlace => (t(&[n]), t(&[n]), t(&[n]), n),
            Path::BroadcastRow => (
                t(&[rows, cols]),
                t(&[rows, cols]).with_strides(&[0, 1]),
                t(&[rows, cols]),
                rows * cols,
            ),
            Path::BroadcastColumn => (
                t(&[rows, cols]),
                t(&[rows, cols]).with_strides(&[1, 0]),
                t(&[rows, cols]),
                rows * cols,
            ),
            Path::Transposed => (
                t(&[side, side]).with_strides(&[1, side as u32]),
                t(&[side, side]),
                t(&[side, side]),
                side * side,
            ),
            Path::PaddedOutput => (
                t(&[rows, cols]),
                t(&[rows, cols]),
                t(&[rows, cols]).with_strides(&[cols as u32 + 1, 1]),
                rows * cols,
            ),
            Path::SlicedOutput => (
                t(&[rows, cols]),
                t(&[rows, cols]),
                t(&[rows, cols]).with_strides(&[slice_stride as u32, 1]),
                rows * cols,
            ),
            Path::TransposedOutput => (
                t(&[side, side]),
                t(&[side, side]),
                t(&[side, side]).with_strides(&[1, side as u32]),
                side * side,
            ),
            Path::Permuted3 | Path::Permuted3Inner | Path::Permuted4 | Path::Permuted4Channels => {
                let (r, n) = (
                    axes(path).len(),
                    if axes(path).len() == 3 { cube3 } else { cube4 },
                );
                let shape = vec![n; r];
                (
                    t(&shape).with_strides(&permuted_strides(n, axes(path))),
                    t(&shape),
                    t(&shape),
                    n.pow(r as u32),
                )
            }
            Path::PermutedOutput => {
                let shape = [cube3; 3];
                (
                    t(&shape),
                    t(&shape),
                    t(&shape).with_strides(&permuted_strides(cube3, axes(path))),
                    cube3.pow(3),
                )
            }
            Path::SteppedInput => (
                t(&[n / 2]).with_strides(&[2]),
                t(&[n / 2]),
                t(&[n / 2]),
                n / 2,
            ),
            Path::SteppedOutput => (
                t(&[n / 2]),
                t(&[n / 2]),
                t(&[n / 2]).with_strides(&[2]),
                n / 2,
            ),
            Path::ShortRows => {
                let rows = n / 5;
                (
                    t(&[rows, 3]),
                    t(&[rows, 3]),
                    t(&[rows, 3]).with_strides(&[5, 1]),
                    rows * 3,
                )
            }
        };
        // A NOT reads one input, A: on the broadcast paths it is the broadcast operand.
        let (a, b) = if op.inputs() == 1 && path == Path::BroadcastRow {
            (b, a)
        } else {
            (a, b)
        };
        let size = |d: &TensorDesc| d.total_size().expect("size");
        let compiled = match op {
            Op::BitXor => Compiled::Bit(
                BitXor::new(ctx, &BitXorDesc::new(a.clone(), b.clone(), out.clone()))
                    .expect("desc"),
            ),
            Op::LogicalXor => Compiled::Logical(
                LogicalXor::new(ctx, &LogicalXorDesc::new(a.clone(), b.clone(), out.clone()))
                    .expect("desc"),
            ),
            Op::Dml(f) => Compiled::DmlBinary(
                DmlBinary::new(
                    ctx,
                    &DmlBinaryDesc::new(f, a.clone(), b.clone(), out.clone()),
                )
                .expect("desc"),
            ),
            Op::DmlNot(f) => Compiled::DmlUnary(
                DmlUnary::new(ctx, &DmlUnaryDesc::new(f, a.clone(), out.clone())).expect("desc"),
            ),
            Op::BitwiseXor | Op::Ov(_) | Op::OvNot(_) => {
                let shape: Vec<usize> = a.sizes.iter().map(|&s| s as usize).collect();
                let b_shape = match path {
                    Path::BroadcastRow => vec![cols as usize],
                    Path::BroadcastColumn => vec![rows as usize, 1],
                    _ => shape.clone(),
                };
                let f = match op {
                    Op::Ov(f) => f,
                    _ => OvBinaryOp::BitwiseXor,
                };
                let desc = OvBinaryDesc::new(f, data_type, &shape, &b_shape)
                    .with_broadcast(AutoBroadcast::Numpy);
                match op {
                    Op::BitwiseXor => Compiled::Bitwise(
                        BitwiseXor::new(
                            ctx,
                            &BitwiseXorDesc::new(data_type, &shape, &b_shape)
                                .with_broadcast(AutoBroadcast::Numpy),
                        )
                        .expect("desc"),
                    ),
                    Op::OvNot(f) => Compiled::OvUnary(
                        OvUnary::new(ctx, &OvUnaryDesc::new(f, data_type, &shape)).expect("desc"),
                    ),
                    _ => Compiled::OvBinary(OvBinary::new(ctx, &desc).expect("desc")),
                }
            }
        };
        let b_bytes = match path {
            Path::BroadcastRow => cols * w,
            Path::BroadcastColumn => rows * w,
            _ => size(&b),
        };
        let out_offset = if path == Path::SlicedOutput {
            SLICE_OFFSET
        } else {
            0
        };
        let buffers = vec![
            storage(ctx, size(&a), 1),
            storage(ctx, b_bytes.max(16), 2),
            storage(ctx, out_offset + size(&out), 3),
        ];
        let out_slot = if path == Path::InPlace { 0 } else { 2 };
        let ranges = [
            (0, 0, size(&a)),
            (1, 0, b_bytes.max(4).div_ceil(4) * 4),
            (out_slot, out_offset, size(&out)),
        ];
        debug_assert_eq!(shape_elems * w, Case::output_bytes(path, data_type, bytes));
        let layout = PlainLayout {
            width: w,
            sizes: out.sizes.iter().map(|&x| u64::from(x)).collect(),
            strides: [
                a.effective_strides(),
                b.effective_strides(),
                out.effective_strides(),
            ],
            base: [0, 0, out_offset / w],
        };
        Case {
            op,
            path,
            data_type,
            bytes: shape_elems * w,
            traffic: Case::traffic(path, data_type, bytes, op.inputs()),
            buffers,
            ranges,
            compiled,
            layout,
        }
    }

    /// The plain strided kernel over this case's buffers and layout (the output bound whole,
    /// so the layout's base places it): [`PlainStrided`].
    pub fn plain(&self, ctx: &Context) -> PlainStrided {
        let out = &self.buffers[self.ranges[2].0];
        PlainStrided::new(ctx, &self.layout, [&self.buffers[0], &self.buffers[1], out])
    }

    /// The bytes of the output's bound range after one call of the library and after one call
    /// of `plain` (the output refilled in between, so that a byte either leaves alone differs):
    /// the check that the baseline does the case's work.
    pub fn outputs(&self, ctx: &Context, plain: &PlainStrided) -> (Vec<u8>, Vec<u8>) {
        let (slot, offset, size) = self.ranges[2];
        let run = |record: &dyn Fn(&mut wgpu::CommandEncoder)| {
            let fill = storage(ctx, self.buffers[slot].size(), 99);
            let mut encoder = ctx.device().create_command_encoder(&Default::default());
            encoder.copy_buffer_to_buffer(&fill, 0, &self.buffers[slot], 0, fill.size());
            record(&mut encoder);
            ctx.queue().submit([encoder.finish()]);
            read(ctx, &self.buffers[slot], offset, size)
        };
        let ours = run(&|e| {
            self.record_summary(e);
        });
        let theirs = run(&|e| plain.record(e, 1));
        (ours, theirs)
    }

    /// The bytes of the output of the case [`Case::new`] builds from these arguments.
    pub fn output_bytes(path: Path, data_type: DataType, bytes: u64) -> u64 {
        let d = Dims::new(data_type, bytes);
        let elems = match path {
            Path::Contiguous | Path::InPlace => d.n,
            Path::BroadcastRow
            | Path::BroadcastColumn
            | Path::PaddedOutput
            | Path::SlicedOutput => d.rows * d.cols,
            Path::Transposed | Path::TransposedOutput => d.side * d.side,
            Path::Permuted3 | Path::Permuted3Inner | Path::PermutedOutput => d.cube3.pow(3),
            Path::Permuted4 | Path::Permuted4Channels => d.cube4.pow(4),
            Path::SteppedInput | Path::SteppedOutput => d.n / 2,
            Path::ShortRows => d.n / 5 * 3,
        };
        elems * d.w
    }

    /// The bytes read plus bytes written by one call of the case [`Case::new`] builds from
    /// these arguments, known without making it (`inputs`: 1 for a NOT, which reads only the
    /// broadcast operand on a broadcast path, A elsewhere).
    pub fn traffic(path: Path, data_type: DataType, bytes: u64, inputs: u64) -> u64 {
        let out = Case::output_bytes(path, data_type, bytes);
        let d = Dims::new(data_type, bytes);
        let w = u64::from(data_type.size_in_bytes());
        let broadcast_read = match path {
            Path::BroadcastRow => d.cols * w,
            Path::BroadcastColumn => d.rows * w,
            _ => out,
        };
        if inputs == 1 {
            out + broadcast_read
        } else {
            2 * out + broadcast_read
        }
    }

    /// The bindings of one call.
    fn bindings(&self) -> Bindings<'_> {
        let b = |i: usize| {
            let (buf, off, size) = self.ranges[i];
            TensorBinding::range(&self.buffers[buf], off, size)
        };
        if self.op.inputs() == 1 {
            Bindings::unary(b(0), b(2))
        } else {
            Bindings::new(b(0), b(1), b(2))
        }
    }

    /// Records one call; returns what it recorded.
    pub fn record_summary(
        &self,
        encoder: &mut wgpu::CommandEncoder,
    ) -> gpu_xor::inspect::RecordSummary {
        let bindings = self.bindings();
        each!(&self.compiled, |op| op.record(encoder, &bindings)).expect("record")
    }

    /// Records `n` calls through one batch (one metadata buffer per 1,024 calls; the calls all
    /// write the same output, so each keeps a dispatch of its own).
    pub fn record_many(&self, ctx: &Context, encoder: &mut wgpu::CommandEncoder, n: u64) {
        let bindings = self.bindings();
        let mut batch = ctx.batch();
        for _ in 0..n {
            each!(&self.compiled, |op| batch.push(op, &bindings)).expect("push");
        }
        batch.record(encoder).expect("record");
    }
}

/// A baseline kernel (`copy.wgsl`, `bare_xor.wgsl`): `vec4<u32>` storage bindings, one
/// 16-byte block per invocation, then a uniform with the block count and the grid's row
/// stride ([`Grid`]).
pub struct Kernel {
    pipeline: wgpu::ComputePipeline,
}

/// The grid of a baseline kernel over `len` bytes: the uniform its kernels read, and the
/// workgroup counts, at most the adapter's limit in x (the contiguous XOR kernel's rule).
pub struct Grid {
    len: u64,
    uniform: wgpu::Buffer,
    groups: (u32, u32),
}

/// One dispatch of a baseline kernel: its bind group and workgroup counts.
pub struct Dispatch {
    bind_group: wgpu::BindGroup,
    groups: (u32, u32),
}

impl Kernel {
    /// The `vec4<u32>` copy: bindings src, dst.
    pub fn copy(ctx: &Context) -> Kernel {
        Kernel::new(ctx, "copy", include_str!("copy.wgsl"))
    }

    /// The bare `vec4<u32>` XOR, no metadata and no masks: bindings a, b, out.
    pub fn bare_xor(ctx: &Context) -> Kernel {
        Kernel::new(ctx, "bare xor", include_str!("bare_xor.wgsl"))
    }

    /// The kernel of this WGSL source, entry point `main`, its layout derived from the shader.
    fn new(ctx: &Context, label: &str, source: &str) -> Kernel {
        let device = ctx.device();
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(label),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        Kernel { pipeline }
    }

    /// A dispatch over `grid.len` bytes of each of `buffers` from `offset` (a multiple of the
    /// adapter's storage offset alignment), in binding order, the grid's uniform last.
    pub fn bind(
        &self,
        ctx: &Context,
        buffers: &[&wgpu::Buffer],
        offset: u64,
        grid: &Grid,
    ) -> Dispatch {
        let mut entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .zip(0..)
            .map(|(buffer, binding)| wgpu::BindGroupEntry {
                binding,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer,
                    offset,
                    size: std::num::NonZeroU64::new(grid.len),
                }),
            })
            .collect();
        entries.push(wgpu::BindGroupEntry {
            binding: buffers.len() as u32,
            resource: grid.uniform.as_entire_binding(),
        });
        Dispatch {
            bind_group: ctx.device().create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("baseline"),
                layout: &self.pipeline.get_bind_group_layout(0),
                entries: &entries,
            }),
            groups: grid.groups,
        }
    }

    /// `n` rounds of `dispatches` in one compute pass, the pipeline set once.
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder, dispatches: &[Dispatch], n: u64) {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&self.pipeline);
        for _ in 0..n {
            for d in dispatches {
                d.record(&mut pass);
            }
        }
    }
}

impl Grid {
    /// The grid over `len` bytes (a multiple of 16).
    pub fn new(ctx: &Context, len: u64) -> Grid {
        let device = ctx.device();
        let max_x = u64::from(device.limits().max_compute_workgroups_per_dimension);
        let blocks = len / 16;
        let groups = blocks.div_ceil(256).max(1);
        let x = groups.min(max_x);
        let y = groups.div_ceil(x);
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("baseline blocks"),
            size: 16,
            usage: wgpu::BufferUsages::UNIFORM,
            mapped_at_creation: true,
        });
        uniform
            .get_mapped_range_mut(..)
            .expect("mapped")
            .copy_from_slice(bytemuck::cast_slice(&[
                blocks as u32,
                (x * 256) as u32,
                0,
                0,
            ]));
        uniform.unmap();
        Grid {
            len,
            uniform,
            groups: (x as u32, y as u32),
        }
    }
}

impl Dispatch {
    /// Sets the bind group and dispatches, in a pass whose pipeline is the kernel's.
    pub fn record(&self, pass: &mut wgpu::ComputePass<'_>) {
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
    }
}

/// The three baselines over `bytes` bytes: the `vec4<u32>` copy kernel (src to dst),
/// `copy_buffer_to_buffer` (the same) and the bare `vec4<u32>` XOR kernel (src ^ b to dst).
/// The kernels run in windows of at most the binding limit, like the XOR kernels.
pub struct Baselines {
    /// Bytes of each buffer: the `bytes` asked for, rounded up to 16.
    pub bytes: u64,
    src: wgpu::Buffer,
    dst: wgpu::Buffer,
    copy: Kernel,
    bare: Kernel,
    copies: Vec<Dispatch>,
    xors: Vec<Dispatch>,
}

impl Baselines {
    /// The baselines over `bytes` bytes, their buffers filled with random bytes.
    pub fn new(ctx: &Context, bytes: u64) -> Baselines {
        let bytes = bytes.div_ceil(16) * 16;
        let src = storage(ctx, bytes, 9);
        let dst = storage(ctx, bytes, 10);
        let b = storage(ctx, bytes, 14);
        let copy = Kernel::copy(ctx);
        let bare = Kernel::bare_xor(ctx);
        let window = ctx
            .device()
            .limits()
            .max_storage_buffer_binding_size
            .min(1 << 31)
            / 256
            * 256;
        let (mut copies, mut xors) = (Vec::new(), Vec::new());
        let mut at = 0;
        while at < bytes {
            let grid = Grid::new(ctx, window.min(bytes - at));
            copies.push(copy.bind(ctx, &[&src, &dst], at, &grid));
            xors.push(bare.bind(ctx, &[&src, &b, &dst], at, &grid));
            at += grid.len;
        }
        Baselines {
            bytes,
            src,
            dst,
            copy,
            bare,
            copies,
            xors,
        }
    }

    /// `n` `vec4<u32>` copies of `bytes` (traffic: 2 x bytes each).
    pub fn record_copy_kernel(&self, encoder: &mut wgpu::CommandEncoder, n: u64) {
        self.copy.record(encoder, &self.copies, n);
    }

    /// `n` bare `vec4<u32>` XORs of `bytes` (traffic: 3 x bytes each).
    pub fn record_bare_xor(&self, encoder: &mut wgpu::CommandEncoder, n: u64) {
        self.bare.record(encoder, &self.xors, n);
    }

    /// `n` `vec4<u32>` copies, each in a compute pass of its own that sets the pipeline and the
    /// bind group: what wgpu alone costs to record `n` one-dispatch passes.
    pub fn record_copy_passes(&self, encoder: &mut wgpu::CommandEncoder, n: u64) {
        for _ in 0..n {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            for d in &self.copies {
                pass.set_pipeline(&self.copy.pipeline);
                d.record(&mut pass);
            }
        }
    }

    /// `n` `vec4<u32>` copies in one compute pass, each setting the pipeline and the bind
    /// group again: what wgpu alone costs to record `n` dispatches.
    pub fn record_copy_dispatches(&self, encoder: &mut wgpu::CommandEncoder, n: u64) {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        for _ in 0..n {
            for d in &self.copies {
                pass.set_pipeline(&self.copy.pipeline);
                d.record(&mut pass);
            }
        }
    }

    /// `n` empty compute passes: what wgpu alone costs to record `n` passes.
    pub fn record_empty_passes(&self, encoder: &mut wgpu::CommandEncoder, n: u64) {
        for _ in 0..n {
            encoder.begin_compute_pass(&Default::default());
        }
    }

    /// `n` `copy_buffer_to_buffer` of `bytes` (traffic: 2 x bytes each).
    pub fn record_copy_buffer(&self, encoder: &mut wgpu::CommandEncoder, n: u64) {
        for _ in 0..n {
            encoder.copy_buffer_to_buffer(&self.src, 0, &self.dst, 0, self.bytes);
        }
    }
}

/// Time per call, from `record` putting `iters` calls into one encoder, one submit and one
/// wait (only the submit and the wait are timed).
pub fn time(
    ctx: &Context,
    iters: u64,
    record: &dyn Fn(&mut wgpu::CommandEncoder, u64),
) -> Duration {
    let device = ctx.device();
    let mut encoder = device.create_command_encoder(&Default::default());
    record(&mut encoder, iters);
    let buffer = encoder.finish();
    let start = Instant::now();
    ctx.queue().submit([buffer]);
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("poll");
    start.elapsed() / iters.max(1) as u32
}

/// `calls` small calls of `bytes` bytes each (u32 BIT_XOR at distinct offsets of three
/// buffers), for the batched-against-single comparison.
pub struct SmallCalls {
    pub op: BitXor,
    buffers: [wgpu::Buffer; 3],
    pub calls: u64,
    pub bytes: u64,
}

impl SmallCalls {
    pub fn new(ctx: &Context, calls: u64, bytes: u64) -> SmallCalls {
        let op = BitXor::new(
            ctx,
            &BitXorDesc::packed(DataType::U32, &[(bytes / 4) as u32]),
        )
        .expect("desc");
        let total = calls * bytes;
        SmallCalls {
            op,
            buffers: [
                storage(ctx, total, 11),
                storage(ctx, total, 12),
                storage(ctx, total, 13),
            ],
            calls,
            bytes,
        }
    }

    pub fn bindings(&self, i: u64) -> Bindings<'_> {
        let at = i * self.bytes;
        let b = |k: usize| TensorBinding::range(&self.buffers[k], at, self.bytes);
        Bindings::new(b(0), b(1), b(2))
    }

    /// Every call pushed into one batch.
    pub fn batch(&self, ctx: &Context) -> gpu_xor::Batch {
        let mut batch = ctx.batch();
        for i in 0..self.calls {
            batch.push(&self.op, &self.bindings(i)).expect("push");
        }
        batch
    }

    /// Every call pushed into one batch, recorded into one encoder, one submit, one wait.
    pub fn batched(&self, ctx: &Context) -> Duration {
        let start = Instant::now();
        let batch = self.batch(ctx);
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        batch.record(&mut encoder).expect("record");
        ctx.queue().submit([encoder.finish()]);
        ctx.device()
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("poll");
        start.elapsed()
    }

    /// Every call in an encoder and a submit of its own, one wait at the end.
    pub fn single_submits(&self, ctx: &Context) -> Duration {
        let start = Instant::now();
        for i in 0..self.calls {
            let mut encoder = ctx.device().create_command_encoder(&Default::default());
            self.op
                .record(&mut encoder, &self.bindings(i))
                .expect("record");
            ctx.queue().submit([encoder.finish()]);
        }
        ctx.device()
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("poll");
        start.elapsed()
    }
}

/// Per-call latency of small calls against the bare XOR kernel on the same ranges: one 4 KiB
/// BIT_XOR u32 call alone, and a call among `calls` in one batch. Everything is made before
/// any timing: the pipelines warmed up, call 0 prepared (`op.prepare`), the batch of every
/// call prepared (`Batch::prepare`), and a bare-kernel bind group per call's range.
pub struct Latency {
    pub small: SmallCalls,
    one: Prepared,
    batch: Prepared,
    bare: Kernel,
    dispatches: Vec<Dispatch>,
}

impl Latency {
    /// `calls` calls of `bytes` bytes (a multiple of the storage offset alignment).
    pub fn new(ctx: &Context, calls: u64, bytes: u64) -> Latency {
        let small = SmallCalls::new(ctx, calls, bytes);
        small.op.warm_up().expect("warm up");
        let one = small.op.prepare(&small.bindings(0)).expect("prepare");
        let batch = small.batch(ctx).prepare().expect("prepare");
        let bare = Kernel::bare_xor(ctx);
        let grid = Grid::new(ctx, bytes);
        let [a, b, out] = &small.buffers;
        let dispatches = (0..calls)
            .map(|i| bare.bind(ctx, &[a, b, out], i * bytes, &grid))
            .collect();
        Latency {
            small,
            one,
            batch,
            bare,
            dispatches,
        }
    }

    /// The dispatches of the prepared batch (its calls merge where their ranges meet).
    pub fn batch_dispatches(&self) -> usize {
        self.batch.dispatch_count()
    }

    /// Call 0 alone: a new encoder, `Prepared::record`, submit, wait.
    pub fn alone(&self, ctx: &Context) -> Duration {
        submitted(ctx, &|e| self.one.record(e).expect("record"))
    }

    /// The bare kernel on call 0's range alone: a new encoder, one dispatch in one pass,
    /// submit, wait.
    pub fn bare_alone(&self, ctx: &Context) -> Duration {
        submitted(ctx, &|e| self.bare.record(e, &self.dispatches[..1], 1))
    }

    /// Every call in the prepared batch: a new encoder, its `Prepared::record`, submit, wait;
    /// the total.
    pub fn batched(&self, ctx: &Context) -> Duration {
        submitted(ctx, &|e| self.batch.record(e).expect("record"))
    }

    /// The bare kernel on every call's range, one dispatch each in one pass: a new encoder,
    /// the pass, submit, wait; the total.
    pub fn bare_batched(&self, ctx: &Context) -> Duration {
        submitted(ctx, &|e| self.bare.record(e, &self.dispatches, 1))
    }
}

/// The wall time of a new encoder, `record`, `finish`, one submit and one wait.
pub fn submitted(ctx: &Context, record: &dyn Fn(&mut wgpu::CommandEncoder)) -> Duration {
    let start = Instant::now();
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    record(&mut encoder);
    ctx.queue().submit([encoder.finish()]);
    ctx.device()
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("poll");
    start.elapsed()
}

/// The ways of recording the same small calls that the recording benchmark compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// Every call prepared once (outside timing), each `Prepared::record`ed into the encoder:
    /// a compute pass per call.
    Prepared,
    /// The same prepared calls through `Prepared::record_in_pass`, in one compute pass.
    PreparedInPass,
    /// One `Batch` built and recorded: `push` of every call, then `Batch::record`.
    Batch,
    /// That batch prepared once (outside timing), its `Prepared` recorded.
    PreparedBatch,
    /// Every call through the one-shot `op.record` (lowered, with a metadata buffer and a
    /// bind group of its own, each time).
    OneShot,
}

impl Way {
    pub fn name(self) -> &'static str {
        match self {
            Way::Prepared => "prepared",
            Way::PreparedInPass => "prepared-in-pass",
            Way::Batch => "batch",
            Way::PreparedBatch => "prepared-batch",
            Way::OneShot => "record",
        }
    }

    /// What is timed, for the report's table.
    pub fn describe(self) -> &'static str {
        match self {
            Way::Prepared => "(a) prepared calls, `Prepared::record` each",
            Way::PreparedInPass => "(b) prepared calls, `record_in_pass` in one pass",
            Way::Batch => "(c) one `Batch`: `push` each, `Batch::record`",
            Way::PreparedBatch => "(d) that batch prepared once, its `Prepared` recorded",
            Way::OneShot => "(e) `op.record` each (one-shot)",
        }
    }
}

/// The small calls of [`SmallCalls`], ready to record in every [`Way`]: the pipelines warmed
/// up, every call prepared, and the batch of all of them prepared, all before any timing.
pub struct Recording {
    pub small: SmallCalls,
    prepared: Vec<Prepared>,
    batch: Prepared,
}

impl Recording {
    pub fn new(ctx: &Context, calls: u64, bytes: u64) -> Recording {
        let small = SmallCalls::new(ctx, calls, bytes);
        small.op.warm_up().expect("warm up");
        let prepared = (0..calls)
            .map(|i| small.op.prepare(&small.bindings(i)).expect("prepare"))
            .collect();
        let batch = small.batch(ctx).prepare().expect("prepare");
        Recording {
            small,
            prepared,
            batch,
        }
    }

    /// Records every call into `encoder` in `way`.
    pub fn record(&self, ctx: &Context, way: Way, encoder: &mut wgpu::CommandEncoder) {
        match way {
            Way::Prepared => {
                for call in &self.prepared {
                    call.record(encoder).expect("record");
                }
            }
            Way::PreparedInPass => {
                let mut pass = encoder.begin_compute_pass(&Default::default());
                for call in &self.prepared {
                    call.record_in_pass(&mut pass).expect("record");
                }
            }
            Way::Batch => self.small.batch(ctx).record(encoder).expect("record"),
            Way::PreparedBatch => self.batch.record(encoder).expect("record"),
            Way::OneShot => {
                for i in 0..self.small.calls {
                    self.small
                        .op
                        .record(encoder, &self.small.bindings(i))
                        .expect("record");
                }
            }
        }
    }

    /// The CPU time of recording every call in `way`: see [`record_time`].
    pub fn time(&self, ctx: &Context, way: Way) -> Duration {
        record_time(ctx, &|e| self.record(ctx, way, e))
    }

    /// The metadata buffers and bind groups one recording in `way` makes
    /// (`Context::recording_objects`), recorded into an encoder of its own and dropped.
    pub fn objects(&self, ctx: &Context, way: Way) -> (u64, u64) {
        let before = ctx.recording_objects();
        record_time(ctx, &|e| self.record(ctx, way, e));
        let after = ctx.recording_objects();
        (
            after.buffers - before.buffers,
            after.bind_groups - before.bind_groups,
        )
    }

    /// The dispatches one recording in `way` holds.
    pub fn dispatches(&self, way: Way) -> usize {
        match way {
            Way::Prepared | Way::PreparedInPass | Way::OneShot => {
                self.prepared.iter().map(Prepared::dispatch_count).sum()
            }
            Way::Batch | Way::PreparedBatch => self.batch.dispatch_count(),
        }
    }
}

/// The CPU time of recording: a new encoder, `record`, `CommandEncoder::finish`. After the
/// clock stops, the command buffer is dropped unsubmitted, and an empty submit and a wait
/// follow: a buffer made `mapped_at_creation` (a metadata buffer) reaches the device through a
/// copy wgpu keeps, with its staging buffer, until the next submit, so without one the paths
/// that make metadata buffers would hold memory from every measurement (about 16 KiB a call
/// for `op.record`), and every later recording would slow down.
pub fn record_time(ctx: &Context, record: &dyn Fn(&mut wgpu::CommandEncoder)) -> Duration {
    record_split(ctx, record).0
}

/// [`record_time`], and the part of it that `CommandEncoder::finish` took (where wgpu-core
/// encodes the recorded passes for the driver).
pub fn record_split(
    ctx: &Context,
    record: &dyn Fn(&mut wgpu::CommandEncoder),
) -> (Duration, Duration) {
    let start = Instant::now();
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    record(&mut encoder);
    let finishing = Instant::now();
    let buffer = encoder.finish();
    let end = Instant::now();
    drop(buffer);
    ctx.queue().submit([]);
    ctx.device()
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("poll");
    (end - start, end - finishing)
}

/// GB/s for `traffic` bytes per `per_call`.
pub fn gbps(traffic: u64, per_call: Duration) -> f64 {
    traffic as f64 / per_call.as_secs_f64() / 1e9
}

/// Repetitions so that one measurement moves about `target` bytes (at least 2).
pub fn iterations(traffic: u64, target: u64) -> u64 {
    (target / traffic.max(1)).clamp(2, 10_000)
}
