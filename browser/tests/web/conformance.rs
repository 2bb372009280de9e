//! Every case of `tests/data/xor.json`, `and_or_not.json`, `shifts_and_count.json` and
//! `onnx_nodes.json` through the conformance crate's async core, in the browser, none skipped (`owned_by_dml` included, as
//! natively); and proof that the runner fails broken cases here as well.

use gpu_xor_browser::{ctx, say};
use gpu_xor_conformance::{Outcome, SKIPPED_TAGS, run_cases_async};
use serde_json::Value;
use wasm_bindgen_test::wasm_bindgen_test;

const CASES: &str = include_str!("../../../tests/data/xor.json");

/// The family's cases (BIT_AND ... LogicalNot-1), written by `conformance/cases/and_or_not.py`.
const AND_OR_NOT_CASES: &str = include_str!("../../../tests/data/and_or_not.json");

/// The cases of the shifts and the count of ones, written by `conformance/cases/shifts_and_count.py`.
const SHIFTS_AND_COUNT_CASES: &str = include_str!("../../../tests/data/shifts_and_count.json");

/// ONNX's backend node tests, converted by `conformance/cases/onnx_nodes.py`.
const ONNX_NODE_CASES: &str = include_str!("../../../tests/data/onnx_nodes.json");

/// The fused expressions' cases (`conformance/cases/expressions.py`).
const EXPRESSION_CASES: &str = include_str!("../../../tests/data/expressions.json");

/// The ids of the file's cases tagged `tag`.
fn tagged(cases: &[Value], tag: &str) -> Vec<String> {
    cases
        .iter()
        .filter(|c| {
            c["tags"]
                .as_array()
                .is_some_and(|tags| tags.iter().any(|t| t.as_str() == Some(tag)))
        })
        .map(|c| c["id"].as_str().unwrap_or("?").to_string())
        .collect()
}

#[wasm_bindgen_test]
async fn every_conformance_case_passes() {
    let ctx = ctx().await;
    let cases: Vec<Value> = serde_json::from_str(CASES).expect("the case file is a JSON list");
    assert!(SKIPPED_TAGS.is_empty(), "the runner skips {SKIPPED_TAGS:?}");
    // The cases a runner may skip by the format: this one runs them.
    let owned = tagged(&cases, "owned_by_dml");
    assert!(!owned.is_empty(), "the file has no owned_by_dml case");

    let report = run_cases_async(&ctx, CASES)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let counts = report.counts();
    for (op, c) in report.counts_by_op() {
        say(&format!(
            "conformance {op}: {} passed, {} failed, {} skipped",
            c.passed, c.failed, c.skipped
        ));
    }
    say(&format!(
        "conformance in the browser: {}",
        report.summary_line()
    ));

    assert_eq!(report.cases.len(), cases.len(), "every case ran");
    assert_eq!(counts.failed, 0, "failed cases:\n{}", report.render());
    assert_eq!(counts.skipped, 0, "skipped cases:\n{}", report.render());
    assert_eq!(counts.passed, cases.len());
    for id in &owned {
        assert_eq!(report.outcome(id), Some(&Outcome::Passed), "{id}");
    }
    assert!(counts.passed >= 133, "{}", report.summary_line());
}

#[wasm_bindgen_test]
async fn every_family_case_passes() {
    let ctx = ctx().await;
    let cases: Vec<Value> =
        serde_json::from_str(AND_OR_NOT_CASES).expect("the case file is a JSON list");
    let owned = tagged(&cases, "owned_by_dml");
    assert!(
        owned.len() >= 2,
        "the file has an owned_by_dml case per arity"
    );

    let report = run_cases_async(&ctx, AND_OR_NOT_CASES)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let counts = report.counts();
    for (op, c) in report.counts_by_op() {
        say(&format!(
            "family {op}: {} passed, {} failed, {} skipped",
            c.passed, c.failed, c.skipped
        ));
    }
    say(&format!(
        "family conformance in the browser: {}",
        report.summary_line()
    ));

    assert_eq!(report.cases.len(), cases.len(), "every case ran");
    assert_eq!(counts.failed, 0, "failed cases:\n{}", report.render());
    assert_eq!(counts.skipped, 0, "skipped cases:\n{}", report.render());
    assert_eq!(counts.passed, cases.len());
    for id in &owned {
        assert_eq!(report.outcome(id), Some(&Outcome::Passed), "{id}");
    }
}

/// Every case of `text` runs and passes, none skipped; `name` heads what it prints.
async fn whole_file_passes(name: &str, text: &str) {
    let ctx = ctx().await;
    let cases: Vec<Value> = serde_json::from_str(text).expect("the case file is a JSON list");
    let report = run_cases_async(&ctx, text)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    for (op, c) in report.counts_by_op() {
        say(&format!(
            "{name} {op}: {} passed, {} failed, {} skipped",
            c.passed, c.failed, c.skipped
        ));
    }
    say(&format!("{name} in the browser: {}", report.summary_line()));
    let counts = report.counts();
    assert_eq!(report.cases.len(), cases.len(), "every case ran");
    assert_eq!(counts.failed, 0, "failed cases:\n{}", report.render());
    assert_eq!(counts.skipped, 0, "skipped cases:\n{}", report.render());
    assert_eq!(counts.passed, cases.len());
}

#[wasm_bindgen_test]
async fn every_shift_and_count_case_passes() {
    whole_file_passes("shifts_and_count", SHIFTS_AND_COUNT_CASES).await;
}

#[wasm_bindgen_test]
async fn every_onnx_node_test_passes() {
    whole_file_passes("onnx", ONNX_NODE_CASES).await;
}

#[wasm_bindgen_test]
async fn every_expression_case_passes() {
    whole_file_passes("expressions", EXPRESSION_CASES).await;
}

/// Broken cases in the conformance format fail, each with its reason; a good one passes.
#[wasm_bindgen_test]
async fn the_runner_fails_broken_cases_in_the_browser() {
    let ctx = ctx().await;
    let cases = r#"[
{"id": "ok_u16", "op": "bit_xor", "dtype": "u16", "a_shape": [3], "b_shape": [3], "out_shape": [3], "a": [1, 65535, 4660], "b": [3, 255, 4660], "expected": [2, 65280, 0], "tags": []},
{"id": "ok_owned_b", "op": "bit_xor", "dtype": "u8", "a_shape": [1], "b_shape": [1], "out_shape": [1], "b_flags": "OWNED_BY_DML", "a": [1], "b": [1], "expected": [0], "tags": ["owned_by_dml"]},
{"id": "ok_owned_a_logical", "op": "logical_xor", "dtype": "u8", "a_shape": [5], "b_shape": [5], "out_shape": [5], "a_flags": "OWNED_BY_DML", "a": [0, 3, 0, 128, 1], "b": [0, 0, 7, 2, 0], "expected": [0, 1, 1, 0, 1], "tags": ["owned_by_dml"]},
{"id": "wrong_owned_value", "op": "bit_xor", "dtype": "u16", "a_shape": [4], "b_shape": [4], "out_shape": [4], "b_flags": "OWNED_BY_DML", "a": [1, 2, 3, 4], "b": [16, 32, 48, 64], "expected": [17, 34, 51, 69], "tags": ["owned_by_dml"]},
{"id": "wrong_value", "op": "bit_xor", "dtype": "u16", "a_shape": [3], "b_shape": [3], "out_shape": [3], "a": [1, 65535, 4660], "b": [3, 255, 4660], "expected": [2, 65280, 1], "tags": []},
{"id": "wrong_strided_value", "op": "logical_xor", "dtype": "u32", "a_shape": [2, 2], "b_shape": [2, 2], "out_shape": [2, 2], "out_strides": [4, 1], "a": [0, 256, 0, 1], "b": [0, 0, 7, 1], "expected": [0, 1, 1, 1], "tags": []},
{"id": "wrong_rule", "op": "bit_xor", "dtype": "u8", "a_shape": [6], "b_shape": [2, 3], "out_shape": [6], "expect_error": "rank differs", "error_kind": "shape_mismatch", "tags": ["error"]},
{"id": "wrong_broadcast_shape", "op": "bitwise_xor_broadcast", "dtype": "bool", "a_shape": [2, 1], "b_shape": [3], "broadcast": "numpy", "out_shape": [2, 1], "a": [1, 0], "b": [1, 0, 1], "expected": [0, 1], "tags": []},
{"id": "ok_bit_not_in_place", "op": "bit_not", "dtype": "u16", "a_shape": [3], "out_shape": [3], "alias": "out=a", "a": [0, 65535, 4660], "expected": [65535, 0, 60875], "tags": ["in_place"]},
{"id": "ok_ov_logical_and_bool", "op": "logical_and_broadcast", "dtype": "bool", "a_shape": [2, 1], "b_shape": [3], "out_shape": [2, 3], "a": [2, 0], "b": [1, 0, 128], "expected": [1, 0, 1, 0, 0, 0], "tags": ["noncanonical_bool"]},
{"id": "wrong_bit_or_value", "op": "bit_or", "dtype": "u8", "a_shape": [2], "b_shape": [2], "out_shape": [2], "a": [1, 2], "b": [4, 8], "expected": [5, 11], "tags": []},
{"id": "wrong_unary_with_b", "op": "logical_not", "dtype": "u8", "a_shape": [2], "b_shape": [2], "out_shape": [2], "a": [0, 1], "expected": [1, 0], "tags": []}
]"#;
    let report = run_cases_async(&ctx, cases).await.unwrap();
    for case in &report.cases {
        match (&case.outcome, case.id.as_str()) {
            (Outcome::Passed, id) if id.starts_with("ok_") => {}
            (Outcome::Failed(reason), id) if id.starts_with("wrong_") => {
                say(&format!("broken case {id} failed as it must: {reason}"));
            }
            (outcome, id) => panic!("{id}: {outcome:?}"),
        }
    }
    let c = report.counts();
    assert_eq!(
        (c.passed, c.failed, c.skipped),
        (5, 7, 0),
        "{}",
        report.render()
    );
    let Some(Outcome::Failed(reason)) = report.outcome("wrong_value") else {
        panic!("wrong_value did not fail");
    };
    assert!(reason.contains("element 2"), "{reason}");
    let Some(Outcome::Failed(reason)) = report.outcome("wrong_strided_value") else {
        panic!("wrong_strided_value did not fail");
    };
    assert!(reason.contains("element 3"), "{reason}");
    let Some(Outcome::Failed(reason)) = report.outcome("wrong_owned_value") else {
        panic!("wrong_owned_value did not fail");
    };
    assert!(reason.contains("got 0x44, expected 0x45"), "{reason}");
    let Some(Outcome::Failed(reason)) = report.outcome("wrong_unary_with_b") else {
        panic!("wrong_unary_with_b did not fail");
    };
    assert!(
        reason.starts_with("b_shape: logical_not takes one input"),
        "{reason}"
    );
    assert!(run_cases_async(&ctx, "{\"id\": ").await.is_err());
}
