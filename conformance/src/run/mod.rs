//! Running cases: every check of one case, as `async fn`s that never block.
//!
//! What one case checks:
//!
//! 1. The case parses: every enumerated value is known, every integer is an integer.
//! 2. The description is built from the case (types, Sizes, Strides, TotalTensorSizeInBytes,
//!    GuaranteedBaseOffsetAlignment, flags; or OpenVINO shapes and `auto_broadcast`), and the
//!    operator is created at the case's feature level (4.1 when it names none).
//! 3. Error cases: the operator is refused when it is created or recorded, with
//!    [`gpu_xor::Error::rule`] equal to `error_kind`; a refused call changes no byte.
//! 4. Valid DirectML cases: the description validates at `min_feature_level` and fails at the
//!    level just below it (with `unsupported_dtype` or `rank_out_of_range`); `*_min_bytes`
//!    equals `DMLCalcBufferTensorSize`; `*_physical_len` equals the span of Sizes and Strides.
//! 5. Valid OpenVINO cases: the inferred output shape equals `out_shape`, both from the
//!    operator and from the description.
//! 6. Cases with data (literal, or SplitMix64 checked against `a_sha256` and `b_sha256`):
//!    every distinct buffer is filled with a pseudo-random sentinel, the inputs are written at
//!    the positions their strides give, the call is recorded and submitted, and every buffer
//!    is read back whole. Each output element must equal the expected bit pattern (or, for a
//!    generator case, the output's count, head, tail and SHA-256 must match), and every other
//!    byte must hold what it held before the call. An output bound to an input's range must
//!    run in place.
//! 7. Inputs flagged `OWNED_BY_DML` (DirectML's initializer-owned tensors): `new` must refuse
//!    the description with `owned_input_missing`. Once the buffers hold the case's bytes, the
//!    operator is made by `with_owned_inputs` with each flagged input bound at its place, and
//!    then the runner writes other bytes over that input's buffer ([`engine::spoil`]: each
//!    byte inverted, each element's truth flipped), so that a library that read the caller's
//!    buffer instead of its own copy fails the case. The call binds only the other tensors;
//!    the output must be the answer for the bytes the operator copied, and the flagged
//!    input's buffer must hold what the runner wrote last. (A buffer that an input bound with
//!    the call reads too, as with `alias` `a=b` and one input flagged, is left as it is.)
//!
//! No case is skipped: [`SKIPPED_TAGS`] is empty, every tag of the format runs. An unknown
//! operator, type or field value is a failure, never a skip. A wgpu error caught by the
//! case's error scopes, or a panic, fails the case.

use std::collections::HashSet;
use std::panic::AssertUnwindSafe;

use futures_util::FutureExt;
use gpu_xor::desc::OperatorGroup;
use gpu_xor::reference::{StridedView, StridedViewMut};
use gpu_xor::{
    AutoBroadcast, Context, DataType, Error, FeatureLevel, Operator, OvBinary, OvBinaryDesc,
    OvUnary, OvUnaryDesc, OwnedInputs, TensorDesc, TensorFlags,
};
use gpu_xor_testkit::dml::owned_flags;
use gpu_xor_testkit::engine::{self, AnyOperator, Spoil};
use gpu_xor_testkit::{
    OutputLayout, compare_buffers, le_bytes, packed_strides, positions, random_bytes, width_mask,
};
use serde_json::Value;

use crate::case::{Alias, Broadcast, Case, Generator, Op, kind_of, split_cases};
use crate::generator::{generate, sha256_hex};
use crate::report::{CaseReport, Outcome, Report};

/// The tags whose cases are skipped, each with the reason printed for it: none. The format
/// lets a runner skip a tag it names as unsupported (`owned_by_dml` only); this one runs every
/// case, `owned_by_dml` included (DirectML's initializer-owned inputs are
/// `with_owned_inputs`).
pub const SKIPPED_TAGS: &[(&str, &str)] = &[];

/// Bytes of sentinel after the last tensor of each buffer.
const TRAILING_BYTES: u64 = 64;

/// The largest buffer the runner allocates on the host and the device for one case.
const MAX_CASE_BUFFER: u64 = 1 << 30;

/// Expected values listed in a generator case (`expected_head`, `expected_tail`).
const HEAD_TAIL: usize = 16;

const TENSORS: [&str; 3] = ["a", "b", "out"];

/// Parses case text (a JSON list of case objects; one object, or one object per line, is
/// accepted too) and runs every case. Only text that is not JSON is an error; a malformed
/// case is a failed case.
pub async fn run_cases_async(ctx: &Context, json_text: &str) -> Result<Report, String> {
    let cases = split_cases(json_text)?;
    let mut seen = HashSet::new();
    let mut report = Report::default();
    for (index, value) in cases.iter().enumerate() {
        let mut entry = run_case_value(ctx, value, index).await;
        if !seen.insert(entry.id.clone()) && !matches!(entry.outcome, Outcome::Failed(_)) {
            entry.outcome = Outcome::Failed(format!("duplicate id {:?}", entry.id));
        }
        report.cases.push(entry);
    }
    Ok(report)
}

/// Runs one case value (the `index`-th of its file). A panic inside fails the case where
/// panics unwind.
pub async fn run_case_value(ctx: &Context, value: &Value, index: usize) -> CaseReport {
    let text = |key: &str| value.get(key).and_then(Value::as_str);
    let mut report = CaseReport {
        id: text("id").map_or_else(|| format!("#{index}"), str::to_string),
        op: text("op").unwrap_or("?").to_string(),
        tags: Vec::new(),
        outcome: Outcome::Passed,
    };
    if !value.is_object() {
        report.outcome = Outcome::Failed(format!(
            "case #{index} is {}, not an object",
            kind_of(value)
        ));
        return report;
    }
    if is_expression(value) {
        report.tags = value
            .get("tags")
            .and_then(Value::as_array)
            .map(|t| {
                t.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        let seed = fnv1a(report.id.as_bytes());
        let device = ctx.device();
        let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let result = AssertUnwindSafe(run_expression(ctx, value, seed))
            .catch_unwind()
            .await;
        let validation = validation.pop().await;
        report.outcome = match (result, validation) {
            (Err(_), _) => Outcome::Failed("panicked".to_string()),
            (Ok(_), Some(e)) => Outcome::Failed(format!("wgpu reported an error: {e}")),
            (Ok(Ok(())), None) => Outcome::Passed,
            (Ok(Err(reason)), None) => Outcome::Failed(reason),
        };
        return report;
    }
    let case = match Case::from_value(value) {
        Ok(case) => case,
        Err(e) => {
            report.outcome = Outcome::Failed(e);
            return report;
        }
    };
    report.tags = case.tags.clone();
    if let Some((tag, reason)) = SKIPPED_TAGS
        .iter()
        .find(|(tag, _)| case.tags.iter().any(|t| t == tag))
    {
        report.outcome = Outcome::Skipped(format!("tag {tag}: {reason}"));
        return report;
    }

    let device = ctx.device();
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let seed = fnv1a(case.id.as_bytes());
    let result = AssertUnwindSafe(run_case(ctx, &case, seed))
        .catch_unwind()
        .await;
    let memory = memory.pop().await;
    let validation = validation.pop().await;
    report.outcome = match (result, validation.or(memory)) {
        (Err(panic), _) => {
            let message = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("(no message)");
            Outcome::Failed(format!("panicked: {message}"))
        }
        (Ok(_), Some(wgpu_error)) => {
            Outcome::Failed(format!("wgpu reported an error: {wgpu_error}"))
        }
        (Ok(Ok(())), None) => Outcome::Passed,
        (Ok(Err(reason)), None) => Outcome::Failed(reason),
    };
    report
}

async fn run_case(ctx: &Context, case: &Case, seed: u64) -> Result<(), String> {
    match family(case.op) {
        Some(Family::Dml(op)) => run_dml(ctx, case, op, seed).await,
        Some(Family::Ov(op)) => run_openvino(ctx, case, op, seed).await,
        None => Err(format!("no runner for {}'s group", case.op.name())),
    }
}

/// The library's operator for a case's `op`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// A DirectML operator: described tensors, strides, feature levels.
    Dml(Operator),
    /// An OpenVINO operation: shapes and `auto_broadcast`.
    Ov(Operator),
}

/// How the cases of `op` run, from its group in the operator table; `None` for a group this
/// runner does not know.
pub fn family(op: Op) -> Option<Family> {
    match op.0.group() {
        OperatorGroup::DmlBinaryOp(_) | OperatorGroup::DmlUnaryOp(_) => Some(Family::Dml(op.0)),
        OperatorGroup::OvBinaryOp(_) | OperatorGroup::OvUnaryOp(_) => Some(Family::Ov(op.0)),
        _ => None,
    }
}

mod dml;
mod execute;
mod expr;
mod ov;
mod reference_check;

use dml::*;
use execute::*;
use expr::run_expression;
pub use expr::{ExprCase, expression_reference_check, is_expression};
use ov::*;
pub use reference_check::reference_check;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every valid case of a repository file, by the CPU reference.
    fn reference_agrees(path: &str) -> usize {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let mut checked = 0;
        let mut failures = Vec::new();
        for value in split_cases(&text).unwrap() {
            if is_expression(&value) {
                let case = ExprCase::from_value(&value).unwrap();
                match expression_reference_check(&case) {
                    Ok(true) => checked += 1,
                    Ok(false) => {}
                    Err(e) => failures.push(format!("{:?}: {e}", value.get("id"))),
                }
                continue;
            }
            let case = Case::from_value(&value).unwrap();
            match reference_check(&case) {
                Ok(true) => checked += 1,
                Ok(false) => {}
                Err(e) => failures.push(format!("{}: {e}", case.id)),
            }
        }
        assert!(failures.is_empty(), "{path}:\n{}", failures.join("\n"));
        checked
    }

    #[test]
    fn the_reference_reproduces_every_expected_output() {
        assert!(reference_agrees(crate::XOR_CASES) > 100);
        assert!(reference_agrees(crate::AND_OR_NOT_CASES) > 100);
        assert!(reference_agrees(crate::SHIFTS_AND_COUNT_CASES) > 100);
        assert!(reference_agrees(crate::ONNX_NODE_CASES) > 50);
        assert!(reference_agrees(crate::EXPRESSION_CASES) >= 15);
    }

    #[test]
    fn the_reference_check_fails_a_wrong_output() {
        let case = Case::from_value(&serde_json::json!({
            "id": "x", "op": "bit_not", "dtype": "u16", "a_shape": [2, 2], "a_strides": [3, 1],
            "a": [0, 1, 0xffff, 7, 0x8000], "expected": [0xffff, 0xfffe, 0xfff8, 0x7fff]
        }))
        .unwrap();
        assert_eq!(reference_check(&case), Ok(true));
        let mut wrong = case.clone();
        wrong.expected = Some(vec![0xffff, 0xfffe, 0xfff8, 0x7ffe]);
        let e = reference_check(&wrong).unwrap_err();
        assert!(e.starts_with("output element 3"), "{e}");
    }
}
