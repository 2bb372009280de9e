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
            .map(|bytes| {
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
            })
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
