//! The test kit of `gpu-xor`: what the native test suite, the description fuzz run, the
//! conformance runner, the benchmarks and the browser suite share, so that each of them only
//! says what to run.
//!
//! On a device:
//!
//! - [`operators`]: the operators of the table as the kit draws them ([`DIRECTML`],
//!   [`OPENVINO`], each a [`gpu_xor::Operator`]) and what a test asks of a row
//!   ([`OperatorExt`]);
//! - [`dml`] and [`ov`]: calls of a DirectML operator or an OpenVINO operation as data
//!   (descriptions or shapes, where each tensor is bound, the bytes of every buffer before the
//!   call and, by the CPU reference, after it);
//! - [`engine`]: sentinel-filled buffers, one call recorded and submitted, whole buffers read
//!   back, owned inputs spoiled; `async` where it waits, with blocking wrappers for native
//!   callers, so that the same cases run natively and in a browser;
//! - [`expect`]: the kernel a layout calls for, read off the tensors themselves rather than
//!   from the library's choice.
//!
//! Device-free:
//!
//! - [`SplitMix64`] and [`random_bytes`]: the generator of the conformance format, the one
//!   source of test data and sentinel bytes;
//! - [`seeds`]: every randomized test's seed and case count, fixed unless `GPU_XOR_SEED` or
//!   `GPU_XOR_CASES` says otherwise, so that a failing run replays from its log;
//! - [`width_mask`] and [`le_bytes`]: elements of 1 to 8 bytes as zero-extended `u64` values
//!   and as little-endian bytes;
//! - [`OutputLayout`], with [`positions`], [`packed_strides`] and [`unravel`]: where a
//!   tensor's elements sit in a buffer;
//! - [`compare_buffers`] and [`compare_buffer`]: every byte of every buffer read back against
//!   what it must hold, the first difference named by buffer, element, index and byte, with
//!   both values.
//!
//! ```
//! use gpu_xor_testkit::{OutputLayout, compare_buffer, random_bytes};
//!
//! let want = random_bytes(7, 16);
//! let mut got = want.clone();
//! got[5] ^= 1;
//! let output = OutputLayout::packed(0, 4, 4, &[2]); // two u32 elements at bytes 4 to 11
//! let e = compare_buffer("out", &got, &want, Some(&output)).unwrap_err();
//! assert!(e.starts_with("buffer out: output element 0 (index [0], byte 4)"), "{e}");
//! ```
//!
//! The comparisons fail with the message a test panics with; the engine's calls fail with the
//! library's own errors.

#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![allow(
    clippy::disallowed_methods,
    reason = "the engine's native wrappers wait for the device; its async paths never block"
)]

mod compare;
pub mod dml;
mod element;
pub mod engine;
pub mod expect;
mod layout;
pub mod operators;
pub mod ov;
pub mod seeds;
mod splitmix64;

pub use compare::{compare_buffer, compare_buffers};
pub use element::{le_bytes, shift_amounts, width_mask};
pub use layout::{OutputLayout, packed_strides, positions, unravel};
pub use operators::{DIRECTML, OPENVINO, OperatorExt};
pub use splitmix64::{SplitMix64, random_bytes};
