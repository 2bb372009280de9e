//! One test binary for the whole suite (`cargo test`): GPU tests share one device.
//!
//! Every GPU test runs on a real adapter (lavapipe in CI) and compares every byte of every
//! buffer it used with the CPU reference: output elements must match, and every other byte
//! (padding, bytes around the tensor, other lanes of shared words, inputs) must still hold
//! what it held before. A missing adapter fails the suite; nothing is skipped.

#![allow(
    clippy::disallowed_methods,
    reason = "tests wait for the device; the lint keeps blocking calls out of the library"
)]

mod common;

mod arena;
mod asynchronous;
mod batch;
mod bit_xor;
mod broadcast;
mod concurrency;
mod conformance;
mod contractions;
mod conveniences;
mod core_path;
mod errors;
mod faults;
mod files;
mod fused;
mod in_place;
mod knn;
mod large;
mod logical_xor;
mod one_shot;
mod owned;
mod prepared;
mod properties;
mod shifted;
mod shifts_and_count;
mod transposes;
mod tuning;
