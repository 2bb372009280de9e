//! Test harness: the shared context, sentinel-filled buffers, and a case runner that checks
//! every byte against the CPU reference.

#![allow(dead_code)]

use std::sync::OnceLock;

use gpu_xor::reference::{StridedView, StridedViewMut};
use gpu_xor::{
    BitXor, BitXorDesc, Context, ContextOptions, DataType, Error, LogicalXor, LogicalXorDesc,
    RecordSummary, TensorBinding, TensorDesc, XorBindings,
};

/// The context every GPU test uses, made from the environment (`WGPU_BACKEND`,
/// `WGPU_ADAPTER_NAME`, `GPU_XOR_LIMITS`, `GPU_XOR_MAX_WINDOW`). Without an adapter the
/// suite fails here, loudly.
pub fn ctx() -> &'static Context {
    static CTX: OnceLock<Context> = OnceLock::new();
    CTX.get_or_init(|| {
        let ctx = Context::from_env().unwrap_or_else(|e| {
            panic!(
                "no usable GPU adapter ({e}); on a headless Linux machine install Mesa's \
                 lavapipe: apt-get install -y mesa-vulkan-drivers libvulkan1"
            )
        });
        let info = ctx.adapter_info();
        eprintln!(
            "gpu-xor tests on: {} ({:?}, {:?}), max window {} bytes",
            info.name,
            info.backend,
            info.device_type,
            ctx.max_window_bytes()
        );
        ctx
    })
}

/// The same device with 4 KiB windows, so that every path crosses window seams.
pub fn small_windows() -> &'static Context {
    static CTX: OnceLock<Context> = OnceLock::new();
    CTX.get_or_init(|| {
        let base = ctx();
        Context::with_options(
            base.device().clone(),
            base.queue().clone(),
            &ContextOptions {
                max_window_bytes: Some(4096),
                ..ContextOptions::default()
            },
        )
        .expect("4 KiB windows")
    })
}

/// Deterministic bytes (SplitMix64).
pub fn random_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        out.extend_from_slice(&z.to_le_bytes());
    }
    out.truncate(len);
    out
}

/// A storage buffer (also a copy source and destination) holding `bytes`.
pub fn buffer(ctx: &Context, bytes: &[u8]) -> wgpu::Buffer {
    let buffer = ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("test"),
        size: bytes.len() as u64,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    ctx.queue().write_buffer(&buffer, 0, bytes);
    buffer
}

/// Which operator a case runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DmlOp {
    BitXor,
    LogicalXor,
}

/// Where a tensor lives: buffer index and byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    pub buffer: usize,
    pub offset: u64,
}

pub const fn place(buffer: usize, offset: u64) -> Place {
    Place { buffer, offset }
}

/// A DirectML case: three descriptions, where each tensor lives, and the initial contents
/// of every buffer (inputs included; everything else is the sentinel).
#[derive(Clone)]
pub struct DmlCase {
    pub op: DmlOp,
    pub a: TensorDesc,
    pub b: TensorDesc,
    pub out: TensorDesc,
    /// A, B, Output.
    pub places: [Place; 3],
    pub buffers: Vec<Vec<u8>>,
}

impl DmlCase {
    /// Three packed tensors in three buffers, each at `offset` with `margin` bytes after,
    /// filled with random bytes (inputs) and a sentinel (everything else).
    pub fn packed(op: DmlOp, dt: DataType, sizes: &[u32], seed: u64) -> DmlCase {
        let t = TensorDesc::new(dt, sizes);
        DmlCase::distinct(op, t.clone(), t.clone(), t, seed)
    }

    /// Three tensors in three buffers at offset 32, 48 bytes of sentinel after each.
    pub fn distinct(
        op: DmlOp,
        a: TensorDesc,
        b: TensorDesc,
        out: TensorDesc,
        seed: u64,
    ) -> DmlCase {
        let size = |t: &TensorDesc| (32 + t.total_size().unwrap() + 48).div_ceil(4) * 4;
        let buffers = vec![
            random_bytes(seed, size(&a) as usize),
            random_bytes(seed ^ 0x5151, size(&b) as usize),
            random_bytes(seed ^ 0xA5A5, size(&out) as usize),
        ];
        DmlCase {
            op,
            a,
            b,
            out,
            places: [place(0, 32), place(1, 32), place(2, 32)],
            buffers,
        }
    }

    /// Runs the case on `ctx` and checks every byte of every buffer against the reference.
    pub fn check_on(&self, ctx: &Context) -> RecordSummary {
        let gpu = self.upload(ctx);
        let summary = self.run(ctx, &gpu).unwrap_or_else(|e| panic!("{e}"));
        let expected = self.expected();
        for (i, (buffer, want)) in gpu.iter().zip(&expected).enumerate() {
            let got = ctx.read_buffer(buffer, 0, want.len() as u64).unwrap();
            compare(i, &got, want, self);
        }
        summary
    }

    /// [`DmlCase::check_on`] on the shared context.
    pub fn check(&self) -> RecordSummary {
        self.check_on(ctx())
    }

    /// Runs the case expecting `rule` to be refused; checks that no byte changed.
    pub fn check_error(&self, rule: &str) -> Error {
        let ctx = ctx();
        let gpu = self.upload(ctx);
        let err = self
            .run(ctx, &gpu)
            .expect_err("the call should have been refused");
        assert_eq!(err.rule(), rule, "{err}");
        for (i, (buffer, want)) in gpu.iter().zip(&self.buffers).enumerate() {
            let got = ctx.read_buffer(buffer, 0, want.len() as u64).unwrap();
            assert!(
                got == *want,
                "buffer {i} changed although the call was refused"
            );
        }
        err
    }

    pub fn upload(&self, ctx: &Context) -> Vec<wgpu::Buffer> {
        self.buffers
            .iter()
            .map(|bytes| buffer(ctx, bytes))
            .collect()
    }

    pub fn run(&self, ctx: &Context, gpu: &[wgpu::Buffer]) -> Result<RecordSummary, Error> {
        let binding = |p: Place, t: &TensorDesc| {
            TensorBinding::range(
                &gpu[p.buffer],
                p.offset,
                t.total_size()
                    .unwrap_or(0)
                    .min(gpu[p.buffer].size().saturating_sub(p.offset)),
            )
        };
        let bindings = XorBindings::new(
            binding(self.places[0], &self.a),
            binding(self.places[1], &self.b),
            binding(self.places[2], &self.out),
        );
        match self.op {
            DmlOp::BitXor => BitXor::new(
                ctx,
                &BitXorDesc::new(self.a.clone(), self.b.clone(), self.out.clone()),
            )?
            .run(&bindings),
            DmlOp::LogicalXor => LogicalXor::new(
                ctx,
                &LogicalXorDesc::new(self.a.clone(), self.b.clone(), self.out.clone()),
            )?
            .run(&bindings),
        }
    }

    /// Every buffer after the call, by the reference: inputs are read from the initial
    /// contents, and only the output's elements change.
    pub fn expected(&self) -> Vec<Vec<u8>> {
        let mut after = self.buffers.clone();
        let sizes: Vec<usize> = self.a.sizes.iter().map(|&s| s as usize).collect();
        let strides = |t: &TensorDesc| {
            t.strides
                .as_ref()
                .map(|s| s.iter().map(|&x| x as usize).collect::<Vec<_>>())
        };
        let (sa, sb, so) = (strides(&self.a), strides(&self.b), strides(&self.out));
        let a = StridedView {
            bytes: &self.buffers[self.places[0].buffer],
            data_type: self.a.data_type,
            sizes: &sizes,
            strides: sa.as_deref(),
            offset: self.places[0].offset as usize,
        };
        let b = StridedView {
            bytes: &self.buffers[self.places[1].buffer],
            data_type: self.b.data_type,
            sizes: &sizes,
            strides: sb.as_deref(),
            offset: self.places[1].offset as usize,
        };
        let p = self.places[2];
        let mut out = StridedViewMut {
            bytes: &mut after[p.buffer],
            data_type: self.out.data_type,
            sizes: &sizes,
            strides: so.as_deref(),
            offset: p.offset as usize,
        };
        match self.op {
            DmlOp::BitXor => gpu_xor::reference::bit_xor(&a, &b, &mut out),
            DmlOp::LogicalXor => gpu_xor::reference::logical_xor(&a, &b, &mut out),
        }
        .expect("reference");
        after
    }
}

/// Compares one buffer byte for byte; on a mismatch names the byte and what it belongs to.
pub fn compare(buffer: usize, got: &[u8], want: &[u8], case: &DmlCase) {
    if got == want {
        return;
    }
    let first = got.iter().zip(want).position(|(g, w)| g != w).unwrap();
    let p = case.places[2];
    let width = case.out.data_type.size_in_bytes() as u64;
    let role = if buffer == p.buffer && first as u64 >= p.offset {
        let element = (first as u64 - p.offset) / width;
        format!("element offset {element} from the output's start")
    } else {
        "a byte outside the output".to_string()
    };
    let bad = got.iter().zip(want).filter(|(g, w)| g != w).count();
    panic!(
        "buffer {buffer}: {bad} bytes differ; first at byte {first} ({role}): got {:#04x}, expected {:#04x}\n\
         case: {:?}\n  A {:?}\n  B {:?}\n  Output {:?}\n  places {:?}",
        got[first], want[first], case.op, case.a, case.b, case.out, case.places
    );
}

/// Calls `$body` (an expression using `$dt`) once per listed type, as separate tests.
#[macro_export]
macro_rules! per_type {
    ($name:ident, |$dt:ident| $body:expr, [$($t:ident),* $(,)?]) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            $(
                #[test]
                #[allow(non_snake_case)]
                fn $t() {
                    let $dt = gpu_xor::DataType::$t;
                    $body
                }
            )*
        }
    };
}

/// An OpenVINO BitwiseXor-13 call: inputs in sentinel-filled buffers at the given offsets,
/// the output in its own sentinel-filled buffer (or on A's range with `out_on_a`).
pub struct OvCase {
    pub data_type: DataType,
    pub a_shape: Vec<usize>,
    pub b_shape: Vec<usize>,
    pub a: Vec<u8>,
    pub b: Vec<u8>,
    pub broadcast: gpu_xor::AutoBroadcast,
    /// Byte offsets of A, B and the output in their buffers.
    pub offsets: [u64; 3],
    /// Bind the output to exactly A's range (in place).
    pub out_on_a: bool,
}

impl OvCase {
    pub fn new(
        data_type: DataType,
        a_shape: &[usize],
        b_shape: &[usize],
        broadcast: gpu_xor::AutoBroadcast,
        seed: u64,
    ) -> OvCase {
        let w = data_type.size_in_bytes() as usize;
        let n = |s: &[usize]| s.iter().product::<usize>() * w;
        let mut a = random_bytes(seed, n(a_shape));
        let mut b = random_bytes(seed ^ 0x77, n(b_shape));
        if data_type == DataType::Bool {
            // Mostly canonical 0/1, with some non-canonical nonzero bytes.
            for (i, x) in a.iter_mut().chain(b.iter_mut()).enumerate() {
                *x = match *x % 8 {
                    0..=2 => 0,
                    3..=5 => 1,
                    _ => (*x | 2) & if i % 2 == 0 { 0xff } else { 0x82 },
                };
            }
        }
        OvCase {
            data_type,
            a_shape: a_shape.to_vec(),
            b_shape: b_shape.to_vec(),
            a,
            b,
            broadcast,
            offsets: [16, 32, 48],
            out_on_a: false,
        }
    }

    /// Runs on `ctx`; checks output elements against the reference and every other byte
    /// against what it held. Returns the output shape and the summary.
    pub fn check_on(&self, ctx: &Context) -> (Vec<usize>, RecordSummary) {
        let (shape, want) = gpu_xor::reference::bitwise_xor(
            self.data_type,
            &self.a_shape,
            &self.a,
            &self.b_shape,
            &self.b,
            self.broadcast,
        )
        .expect("reference");
        let op = gpu_xor::BitwiseXor::new(
            ctx,
            &gpu_xor::BitwiseXorDesc {
                a_type: self.data_type,
                b_type: self.data_type,
                a_shape: self.a_shape.clone(),
                b_shape: self.b_shape.clone(),
                auto_broadcast: self.broadcast,
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(op.output_shape(), shape);
        let pad = |x: usize| x.div_ceil(4) * 4;
        let mut host: Vec<Vec<u8>> = Vec::new();
        let fill = |data: &[u8], offset: u64, seed: u64| {
            let mut buf =
                random_bytes(seed, offset as usize + pad(data.len().max(want.len())) + 40);
            buf[offset as usize..offset as usize + data.len()].copy_from_slice(data);
            buf
        };
        host.push(fill(&self.a, self.offsets[0], 1));
        host.push(fill(&self.b, self.offsets[1], 2));
        host.push(fill(&[], self.offsets[2], 3));
        let case_like = DmlCase {
            op: DmlOp::BitXor,
            a: TensorDesc::new(self.data_type, &[1]),
            b: TensorDesc::new(self.data_type, &[1]),
            out: TensorDesc::new(self.data_type, &[1]),
            places: [
                place(0, self.offsets[0]),
                place(1, self.offsets[1]),
                if self.out_on_a {
                    place(0, self.offsets[0])
                } else {
                    place(2, self.offsets[2])
                },
            ],
            buffers: host.clone(),
        };
        let gpu = case_like.upload(ctx);
        let out_place = case_like.places[2];
        let bytes = |s: &[usize]| {
            pad(s.iter().product::<usize>() * self.data_type.size_in_bytes() as usize) as u64
        };
        let bindings = XorBindings::new(
            TensorBinding::range(&gpu[0], self.offsets[0], bytes(&self.a_shape)),
            TensorBinding::range(&gpu[1], self.offsets[1], bytes(&self.b_shape)),
            TensorBinding::range(&gpu[out_place.buffer], out_place.offset, bytes(&shape)),
        );
        let summary = op.run(&bindings).unwrap_or_else(|e| panic!("{e}"));
        let mut expected = host;
        let at = out_place.offset as usize;
        expected[out_place.buffer][at..at + want.len()].copy_from_slice(&want);
        for (i, (buffer, want)) in gpu.iter().zip(&expected).enumerate() {
            let got = ctx.read_buffer(buffer, 0, want.len() as u64).unwrap();
            if got != *want {
                let first = got.iter().zip(want).position(|(g, w)| g != w).unwrap();
                panic!(
                    "{:?} {:?} x {:?} ({}): buffer {i} byte {first}: got {:#04x}, expected {:#04x} (output starts at byte {at} of buffer {})",
                    self.data_type,
                    self.a_shape,
                    self.b_shape,
                    self.broadcast,
                    got[first],
                    want[first],
                    out_place.buffer
                );
            }
        }
        (shape, summary)
    }

    pub fn check(&self) -> (Vec<usize>, RecordSummary) {
        self.check_on(ctx())
    }
}

/// Every dispatch of the call ran `kernel` (there may be several, one per window).
pub fn assert_kernel(summary: &RecordSummary, kernel: gpu_xor::KernelKind) {
    assert!(
        !summary.dispatches.is_empty() && summary.dispatches.iter().all(|&k| k == kernel),
        "expected only {kernel:?}: {summary:?}"
    );
}
