//! The device-free test kit of `gpu-xor`: what the native test suite, the conformance runner,
//! the description fuzz run and the browser suite share and that needs no GPU.
//!
//! - [`SplitMix64`] and [`random_bytes`]: the generator of the conformance format, the one
//!   source of test data and sentinel bytes;
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
//! Nothing here fails except the comparisons, whose `Err` is the message a test panics with.
//! The crate has no dependencies, wgpu least of all: buffers, uploads and read-backs belong to
//! the conformance crate's `engine`, which builds on this one.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod compare;
mod element;
mod layout;
mod splitmix64;

pub use compare::{compare_buffer, compare_buffers};
pub use element::{le_bytes, shift_amounts, width_mask};
pub use layout::{OutputLayout, packed_strides, positions, unravel};
pub use splitmix64::{SplitMix64, random_bytes};
