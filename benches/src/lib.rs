//! The benchmarks of `gpu-xor`, as a library of shared set-up and measurement with two
//! binaries over it: the criterion benches (`cargo bench -p gpu-xor-bench`,
//! `benches/xor.rs` in this crate) and the report generator (`cargo run --release --example
//! bench_report` from the repository root, a thin binary of the root package over
//! [`report`]).
//!
//! Everything measures XOR against the copy limit of the same adapter, in the same run: a
//! [`Case`] (an operator on one [`Path`], type and size, its buffers filled with random
//! bytes) is timed next to the [`Baselines`] of its size (a `vec4<u32>` copy kernel,
//! `copy_buffer_to_buffer` and a bare `vec4<u32>` XOR kernel), and a strided case next to the
//! [`PlainStrided`] kernel on the same layout and buffers. Small calls ([`SmallCalls`],
//! [`Latency`]), the ways of recording them ([`Recording`], [`Way`]) and a model's worth of
//! prepared calls ([`graph`]) have their own set-ups. The timers are in `timing.rs`: [`time`]
//! for `n` calls in one submission, [`record_time`] for the CPU time of recording alone.
//!
//! Files: `case.rs` (the cases), `plain.rs` (the plain strided kernel), `probe.rs` (the
//! transpose probe: one transpose written several ways), `baseline.rs` (the three
//! baselines), `buffers.rs` (random-filled buffers, read-back), `small.rs`, `recording.rs`,
//! `graph.rs`, `timing.rs`, and `report/` (the report's sections). The WGSL
//! of the baselines sits next to `Cargo.toml`: `copy.wgsl`, `bare_xor.wgsl`,
//! `plain_strided.wgsl`, and the probe's `transpose_words.wgsl` and `transpose_vec4.wgsl`.

// Unsafe code only where a benchmark measures what wgpu's shader runtime checks cost
// (`probe.rs`, one function with its SAFETY comment).
#![deny(unsafe_code)]
#![warn(missing_docs)]
#![allow(
    clippy::disallowed_methods,
    reason = "benchmarks wait for the device; the lint keeps blocking calls out of the library"
)]

mod baseline;
mod buffers;
mod case;
mod contraction;
pub mod graph;
mod plain;
mod probe;
mod recording;
pub mod report;
mod small;
mod timing;

pub use baseline::Baselines;
pub use case::{Case, Op, Path};
pub use contraction::{Distances, PopcountRoof, untiled_context};
pub use plain::PlainStrided;
pub use recording::{Recording, Way};
pub use small::{Latency, SmallCalls};
pub use timing::{clock_used, frame, record_time, time};
