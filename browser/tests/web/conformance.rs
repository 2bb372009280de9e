//! Every case of `tests/data/conformance.json` through the conformance crate's async core, in
//! the browser; and proof that the runner fails broken cases here as well.

use gpu_xor_browser::{ctx, say};
use gpu_xor_conformance::{Outcome, SKIPPED_TAGS, run_cases_async};
use serde_json::Value;
use wasm_bindgen_test::wasm_bindgen_test;

const CASES: &str = include_str!("../../../tests/data/conformance.json");

/// The ids of the file's cases whose tags the runner skips (natively as well): the one skip
/// the native run reports.
fn skipped_by_tag(cases: &[Value]) -> Vec<String> {
    cases
        .iter()
        .filter(|c| {
            c["tags"].as_array().is_some_and(|tags| {
                tags.iter().any(|t| {
                    SKIPPED_TAGS
                        .iter()
                        .any(|(skip, _)| t.as_str() == Some(skip))
                })
            })
        })
        .map(|c| c["id"].as_str().unwrap_or("?").to_string())
        .collect()
}

#[wasm_bindgen_test]
async fn every_conformance_case_passes() {
    let ctx = ctx().await;
    let cases: Vec<Value> = serde_json::from_str(CASES).expect("the case file is a JSON list");
    let want_skipped = skipped_by_tag(&cases);
    assert_eq!(
        want_skipped.len(),
        1,
        "native skips one case: {want_skipped:?}"
    );

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
    for case in report.skips() {
        if let Outcome::Skipped(reason) = &case.outcome {
            say(&format!("conformance skipped {}: {reason}", case.id));
        }
    }
    say(&format!(
        "conformance in the browser: {}",
        report.summary_line()
    ));

    assert_eq!(report.cases.len(), cases.len(), "every case ran");
    assert_eq!(counts.failed, 0, "failed cases:\n{}", report.render());
    let skipped: Vec<String> = report.skips().map(|c| c.id.clone()).collect();
    assert_eq!(skipped, want_skipped, "skipped exactly what native skips");
    assert_eq!(counts.passed, cases.len() - want_skipped.len());
    assert!(counts.passed >= 132, "{}", report.summary_line());
}

/// Broken cases in the conformance format fail, each with its reason; a good one passes.
#[wasm_bindgen_test]
async fn the_runner_fails_broken_cases_in_the_browser() {
    let ctx = ctx().await;
    let cases = r#"[
{"id": "ok_u16", "op": "bit_xor", "dtype": "u16", "a_shape": [3], "b_shape": [3], "out_shape": [3], "a": [1, 65535, 4660], "b": [3, 255, 4660], "expected": [2, 65280, 0], "tags": []},
{"id": "ok_skip", "op": "bit_xor", "dtype": "u8", "a_shape": [1], "b_shape": [1], "out_shape": [1], "b_flags": "OWNED_BY_DML", "a": [1], "b": [1], "expected": [0], "tags": ["owned_by_dml"]},
{"id": "wrong_value", "op": "bit_xor", "dtype": "u16", "a_shape": [3], "b_shape": [3], "out_shape": [3], "a": [1, 65535, 4660], "b": [3, 255, 4660], "expected": [2, 65280, 1], "tags": []},
{"id": "wrong_strided_value", "op": "logical_xor", "dtype": "u32", "a_shape": [2, 2], "b_shape": [2, 2], "out_shape": [2, 2], "out_strides": [4, 1], "a": [0, 256, 0, 1], "b": [0, 0, 7, 1], "expected": [0, 1, 1, 1], "tags": []},
{"id": "wrong_rule", "op": "bit_xor", "dtype": "u8", "a_shape": [6], "b_shape": [2, 3], "out_shape": [6], "expect_error": "rank differs", "error_kind": "shape_mismatch", "tags": ["error"]},
{"id": "wrong_broadcast_shape", "op": "bitwise_xor_broadcast", "dtype": "bool", "a_shape": [2, 1], "b_shape": [3], "broadcast": "numpy", "out_shape": [2, 1], "a": [1, 0], "b": [1, 0, 1], "expected": [0, 1], "tags": []}
]"#;
    let report = run_cases_async(&ctx, cases).await.unwrap();
    for case in &report.cases {
        match (&case.outcome, case.id.as_str()) {
            (Outcome::Passed, "ok_u16") | (Outcome::Skipped(_), "ok_skip") => {}
            (Outcome::Failed(reason), id) if id.starts_with("wrong_") => {
                say(&format!("broken case {id} failed as it must: {reason}"));
            }
            (outcome, id) => panic!("{id}: {outcome:?}"),
        }
    }
    let c = report.counts();
    assert_eq!(
        (c.passed, c.failed, c.skipped),
        (1, 4, 1),
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
    assert!(run_cases_async(&ctx, "{\"id\": ").await.is_err());
}
