//! The browser suite: one test binary, one page, one WebGPU device (see `browser/README.md`).
//!
//! Every test awaits; nothing blocks. Every GPU case fills every buffer it uses with
//! SplitMix64 bytes and compares every byte of every buffer with the image the CPU reference
//! gives: output elements must match, every other byte must hold what it held.

#![cfg(target_arch = "wasm32")]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod adapter;
mod and_or_not;
mod asynchronous;
mod batch;
mod bindings;
mod bit_xor;
mod broadcast;
mod conformance;
mod errors;
mod fused;
mod kernels;
mod knn;
mod logical_xor;
mod strided;
mod windows;
