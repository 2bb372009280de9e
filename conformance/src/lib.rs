//! The conformance cases of `gpu-xor`: their format, their files and their runner, on the
//! test kit (`gpu-xor-testkit`) that runs every call.
//!
//! - [`case`]: the case format of `conformance/README.md` as `serde` types;
//! - [`generator`]: the large cases' SplitMix64 streams and SHA-256 digests;
//! - [`run`]: every check of a case, as `async fn`s that never block, so that the same cases
//!   run natively and in a browser;
//! - [`report`]: outcomes, counts, and the printed report.
//!
//! Native callers use the blocking wrappers [`run_cases`] and [`run_file`]; where blocking is
//! impossible (wasm32 in a browser), await [`run_cases_async`].
//!
//! ```no_run
//! let ctx = gpu_xor::Context::from_env()?;
//! let report = gpu_xor_conformance::run_file(&ctx, "tests/data/xor.json".as_ref())?;
//! print!("{}", report.render()); // ends with `N passed, N failed, N skipped`
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![allow(
    clippy::disallowed_methods,
    reason = "the native runner waits for the device; the engine's async paths never block"
)]

pub mod case;
pub mod generator;
pub mod report;
pub mod run;

pub use report::{CaseReport, Counts, Outcome, Report, operators};
pub use run::{SKIPPED_TAGS, reference_check, run_case_value, run_cases_async};

/// Parses case text and runs every case, blocking until the last one has finished (native
/// only). See [`run_cases_async`].
#[cfg(not(target_arch = "wasm32"))]
pub fn run_cases(ctx: &gpu_xor::Context, json_text: &str) -> Result<Report, String> {
    pollster::block_on(run_cases_async(ctx, json_text))
}

/// Reads a case file and runs every case in it (native only).
#[cfg(not(target_arch = "wasm32"))]
pub fn run_file(ctx: &gpu_xor::Context, path: &std::path::Path) -> Result<Report, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    run_cases(ctx, &text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The cases of the XOR operators (BIT_XOR, LOGICAL_XOR, BitwiseXor-13), the repository's copy
/// of the cases the library was created from.
pub const XOR_CASES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/xor.json");

/// The cases of the AND, OR and NOT operators (BIT_AND, BIT_OR, BIT_NOT, LOGICAL_AND,
/// LOGICAL_OR, LOGICAL_NOT; BitwiseAnd/Or/Not-13, LogicalAnd/Or/Xor/Not-1), written by
/// `conformance/cases/and_or_not.py`.
pub const AND_OR_NOT_CASES: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/and_or_not.json");

/// The cases of the shifts and the count of ones (BIT_SHIFT_LEFT, BIT_SHIFT_RIGHT, BIT_COUNT;
/// BitwiseLeftShift-15, BitwiseRightShift-15), written by
/// `conformance/cases/shifts_and_count.py`.
pub const SHIFTS_AND_COUNT_CASES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/data/shifts_and_count.json"
);

/// ONNX's own backend node tests of the operators the README maps (And, Or, Xor, Not,
/// BitwiseAnd/Or/Xor/Not-18, BitShift), converted by `conformance/cases/onnx_nodes.py`.
pub const ONNX_NODE_CASES: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/onnx_nodes.json");

/// Fused expressions (`"op": "expression"`): int4 and int2 unpacking, Hamming distances,
/// masked blends, strided and broadcast operands and the rules an expression can break,
/// written by `conformance/cases/expressions.py`.
pub const EXPRESSION_CASES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/data/expressions.json"
);

/// Every case file of the repository, in the order the runner runs them with no argument.
pub const REPO_CASE_FILES: [&str; 5] = [
    XOR_CASES,
    AND_OR_NOT_CASES,
    SHIFTS_AND_COUNT_CASES,
    ONNX_NODE_CASES,
    EXPRESSION_CASES,
];
