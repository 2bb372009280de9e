//! DirectML's `ELEMENT_WISE_BIT_XOR` and `ELEMENT_WISE_LOGICAL_XOR` and OpenVINO's
//! `BitwiseXor-13` on any GPU that wgpu reaches (Vulkan, Metal, DX12, GL, and WebGPU in the
//! browser), exact to the bit.
//!
//! # Basics
//!
//! Describe the operator, compile it once on a [`Context`], and record it into your own
//! command encoder on your own buffers as often as you like:
//!
//! ```no_run
//! use gpu_xor::{BitXor, BitXorDesc, Context, DataType, TensorBinding, XorBindings};
//!
//! # fn main() -> Result<(), gpu_xor::Error> {
//! # let (device, queue): (wgpu::Device, wgpu::Queue) = unimplemented!();
//! # let (a, b, out): (wgpu::Buffer, wgpu::Buffer, wgpu::Buffer) = unimplemented!();
//! let ctx = Context::new(device.clone(), queue.clone());
//! let op = BitXor::new(&ctx, &BitXorDesc::packed(DataType::U16, &[64, 64]))?;
//! let mut encoder = device.create_command_encoder(&Default::default());
//! op.record(
//!     &mut encoder,
//!     &XorBindings::new(TensorBinding::new(&a), TensorBinding::new(&b), TensorBinding::new(&out)),
//! )?;
//! queue.submit([encoder.finish()]);
//! # Ok(())
//! # }
//! ```
//!
//! Or let the crate make the device and the buffers:
//!
//! ```no_run
//! use gpu_xor::{Context, Tensor};
//!
//! # fn main() -> Result<(), gpu_xor::Error> {
//! let ctx = Context::from_env()?;
//! let a = Tensor::from_slice(&ctx, &[4], &[1u32, 2, 3, 4])?;
//! let b = Tensor::from_slice(&ctx, &[4], &[0xffu32; 4])?;
//! assert_eq!(ctx.bit_xor(&a, &b)?.to_vec::<u32>()?, [0xfe, 0xfd, 0xfc, 0xfb]);
//! # Ok(())
//! # }
//! ```
//!
//! # Async, and the web
//!
//! Nothing that records or uploads ever waits: [`BitXor::record`], [`BitXor::submit`],
//! [`Batch::record`], [`Tensor::from_slice`] and the one-call forms ([`Context::bit_xor`])
//! return as soon as the work is recorded or submitted. What has to wait for the GPU is
//! `async`: [`Tensor::to_vec_async`] (and `to_bytes_async`, `to_bools_async`),
//! [`Context::read_buffer_async`], [`BitXor::run_async`], [`Context::wait_async`],
//! [`Context::check_async`] and [`Context::from_env_async`]. This is the only form in a
//! browser (`wasm32-unknown-unknown` on WebGPU), and the one to use inside an async runtime.
//! The blocking forms ([`Tensor::to_vec`], [`BitXor::run`], [`Context::wait`],
//! [`Context::from_env`]) are thin wrappers for native callers and are not compiled for
//! `wasm32`.
//!
//! ```
//! use gpu_xor::{AutoBroadcast, Context, Tensor};
//!
//! async fn xor_on_any_gpu() -> Result<Vec<i32>, gpu_xor::Error> {
//!     // In a browser: the page's WebGPU adapter. Natively: what the environment picks.
//!     let ctx = Context::from_env_async().await?;
//!     let a = Tensor::from_slice(&ctx, &[2, 3], &[1i32, 2, 3, 4, 5, 6])?;
//!     let b = Tensor::from_slice(&ctx, &[3], &[-1i32, 0, 7])?;
//!     let out = ctx.bitwise_xor(&a, &b, AutoBroadcast::Numpy)?; // submitted, not waited for
//!     out.to_vec_async::<i32>().await
//! }
//!
//! // Any executor drives it; natively, even one that only polls.
//! # #[cfg(not(target_arch = "wasm32"))]
//! assert_eq!(pollster::block_on(xor_on_any_gpu())?, [-2, 2, 4, -5, 5, 1]);
//! # Ok::<(), gpu_xor::Error>(())
//! ```
//!
//! In a browser the device answers error scopes only asynchronously. Errors that native
//! backends return from the recording call itself (a kernel the driver refuses, an allocation
//! it cannot make, a submission of a destroyed buffer) are then returned, typed, by the next
//! asynchronous call on the context ([`Context::check_async`], which every read-back and
//! wait runs).
//!
//! # Failures
//!
//! Every rule of the operators' specifications is checked on the CPU, when the operator is
//! created (descriptions) or recorded (bindings), and a broken rule is an [`Error`] that names
//! it ([`Error::rule`]) with the values that broke it. A call that fails records nothing and
//! changes no byte. Nothing in this crate panics on user input.
//!
//! # What it promises beyond DirectML
//!
//! - Only the output's elements are written: padding between strided elements, bytes around
//!   the tensor, and the other lanes of a word that an 8- or 16-bit element shares keep their
//!   values.
//! - All eleven DirectML types on every adapter with no optional feature: the kernels see
//!   only `u32` words.
//! - Tensors larger than one storage binding, and than 65,535 workgroups per dimension.
//!
//! # Layers
//!
//! [`desc`] (descriptions and rules, which hand out validated [`Operands`]) → layout analysis
//! ([`Plan::new`]: broadcasts as zero strides, coalescing, the kernel family) → the WGSL
//! kernels (private; [`KernelKind`] names them) → execution ([`Context`], [`BitXor`],
//! [`Tensor`]) → [`mod@reference`] (the CPU oracle). Each layer reads only the ones above it.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod desc;
mod error;
mod exec;
mod kernels;
mod layout;
pub mod reference;
mod scope;

pub use desc::{
    AutoBroadcast, BitXorDesc, BitwiseXorDesc, DataType, ElementOp, FeatureLevel, LogicalXorDesc,
    Operand, Operands, Operator, TensorDesc, TensorFlags, TensorName, infer_output_shape,
};
pub use error::{Error, ErrorKind, WgpuError};
pub use exec::{
    Batch, BitXor, BitwiseXor, Context, ContextOptions, Element, LimitsChoice, LogicalXor,
    OwnedInputs, Prepared, RecordSummary, RecordingObjects, Tensor, TensorBinding, XorBindings,
    XorOperator,
};
pub use layout::{BindingPattern, KernelKind, Plan};

/// DESIGN §3: data flows one way. Descriptions know nothing below them, and layout analysis
/// reads the descriptions' output ([`desc::Operands`]), never the operator descriptions, and
/// nothing below it. Checked on the source text, comments left out.
#[cfg(test)]
mod layering {
    use std::path::{Path, PathBuf};

    /// What `src/desc` may not name: the layers below it, by any path.
    const BELOW_DESC: &[&str] = &[
        "crate::layout",
        "crate::kernels",
        "crate::exec",
        "layout::",
        "kernels::",
        "exec::",
        "super::super",
        "wgpu",
    ];

    /// What `src/layout` may not name: the layers below it, and the operator descriptions.
    const BELOW_LAYOUT: &[&str] = &[
        "crate::kernels",
        "crate::exec",
        "kernels::",
        "exec::",
        "wgpu",
        "BitXorDesc",
        "LogicalXorDesc",
        "BitwiseXorDesc",
    ];

    /// Every `.rs` file under `src/<dir>`, nested folders included.
    fn sources(dir: &str) -> Vec<PathBuf> {
        let mut files = Vec::new();
        let mut pending = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(dir)];
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(&dir).expect("a source folder") {
                let path = entry.expect("a folder entry").path();
                if path.is_dir() {
                    pending.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    files.push(path);
                }
            }
        }
        assert!(!files.is_empty(), "no sources under src/{dir}");
        files
    }

    /// `(line number, forbidden text)` for each forbidden text in the code of `source`: every
    /// line up to its `//` (comments and doc comments left out).
    fn violations(source: &str, forbidden: &[&str]) -> Vec<(usize, String)> {
        let mut found = Vec::new();
        for (n, line) in source.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for text in forbidden {
                if code.contains(text) {
                    found.push((n + 1, text.to_string()));
                }
            }
        }
        found
    }

    fn check(dir: &str, forbidden: &[&str]) {
        let mut found = Vec::new();
        for path in sources(dir) {
            let source = std::fs::read_to_string(&path).expect("a readable source");
            for (line, text) in violations(&source, forbidden) {
                found.push(format!("{}:{line}: {text}", path.display()));
            }
        }
        assert!(
            found.is_empty(),
            "src/{dir} names a layer below it: {found:#?}"
        );
    }

    /// Lowering and merging are pure: no wgpu type, nothing of the context or the encoder.
    #[test]
    fn lowering_and_merging_touch_no_device() {
        let forbidden = &[
            "wgpu",
            "super::context",
            "super::encode",
            "Context",
            "&Shared",
        ];
        let mut found = Vec::new();
        for file in ["exec/lower.rs", "exec/merge.rs"] {
            let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(file);
            let source = std::fs::read_to_string(&path).expect("a readable source");
            for (line, text) in violations(&source, forbidden) {
                found.push(format!("{file}:{line}: {text}"));
            }
        }
        assert!(
            found.is_empty(),
            "lowering or merging needs a device: {found:#?}"
        );
    }

    #[test]
    fn descriptions_name_nothing_below_them() {
        check("desc", BELOW_DESC);
    }

    #[test]
    fn layout_names_neither_the_layers_below_nor_the_operator_descriptions() {
        check("layout", BELOW_LAYOUT);
    }

    #[test]
    fn the_check_sees_code_and_skips_comments() {
        let source = "//! Planned with crate::layout.\n\
                      /// [`crate::layout::Plan`]\n\
                      use crate::error::Error; // not crate::layout\n\
                      use crate::{desc::DataType, layout::Plan};\n\
                      fn f(_: &wgpu::Buffer) {}\n";
        assert_eq!(
            violations(source, BELOW_DESC),
            [(4, "layout::".to_string()), (5, "wgpu".to_string())]
        );
        assert_eq!(
            violations("let d: BitwiseXorDesc;", BELOW_LAYOUT),
            [(1, "BitwiseXorDesc".to_string())]
        );
    }
}

/// The README's code blocks, compiled as doc tests so that they stay true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
