//! The conformance cases (`tests/data/xor.json`, a copy of `conformance/cases.json`;
//! `tests/data/and_or_not.json` and `tests/data/shifts_and_count.json`, written by
//! `conformance/cases/and_or_not.py` and `shifts_and_count.py`; `tests/data/onnx_nodes.json`,
//! ONNX's backend node tests converted by `conformance/cases/onnx_nodes.py`) through the runner of the
//! `gpu-xor-conformance` crate, and proof that the runner can fail.

use std::path::Path;

use gpu_xor_conformance::{self as runner, Outcome};

#[test]
fn conformance_cases_all_pass() {
    let ctx = crate::common::ctx();
    let report =
        runner::run_file(ctx, Path::new(runner::XOR_CASES)).unwrap_or_else(|e| panic!("{e}"));
    let info = ctx.adapter_info();
    println!("conformance on {} ({:?})", info.name, info.backend);
    print!("{}", report.render());

    let counts = report.counts();
    assert!(counts.passed > 0, "no case ran");
    assert_eq!(counts.failed, 0, "failed cases:\n{}", report.render());
    assert_eq!(counts.skipped, 0, "skipped cases:\n{}", report.render());
    assert!(runner::SKIPPED_TAGS.is_empty());
    assert!(report.summary_line().ends_with(" 0 failed, 0 skipped"));
    // The file's OWNED_BY_DML case runs, and passes.
    assert_eq!(
        report.outcome("bx_owned_by_dml_input_u16"),
        Some(&Outcome::Passed)
    );
}

#[test]
fn family_cases_all_pass() {
    let ctx = crate::common::ctx();
    let report = runner::run_file(ctx, Path::new(runner::AND_OR_NOT_CASES))
        .unwrap_or_else(|e| panic!("{e}"));
    print!("{}", report.render());

    let counts = report.counts();
    assert!(counts.passed >= 300, "{}", report.summary_line());
    assert_eq!(counts.failed, 0, "failed cases:\n{}", report.render());
    assert_eq!(counts.skipped, 0, "skipped cases:\n{}", report.render());
    // The OWNED_BY_DML cases of a two-input and a one-input operator run, and pass.
    for id in ["band_owned_by_dml_b_u16", "bnot_owned_by_dml_input_u32"] {
        assert_eq!(report.outcome(id), Some(&Outcome::Passed), "{id}");
    }
}

#[test]
fn shift_and_count_cases_all_pass() {
    let ctx = crate::common::ctx();
    let report = runner::run_file(ctx, Path::new(runner::SHIFTS_AND_COUNT_CASES))
        .unwrap_or_else(|e| panic!("{e}"));
    print!("{}", report.render());
    let counts = report.counts();
    assert!(counts.passed >= 200, "{}", report.summary_line());
    assert_eq!(counts.failed, 0, "failed cases:\n{}", report.render());
    assert_eq!(counts.skipped, 0, "skipped cases:\n{}", report.render());
}

/// ONNX's backend node tests of every ONNX operator the README maps, BitShift included.
#[test]
fn onnx_node_tests_all_pass() {
    let ctx = crate::common::ctx();
    let report =
        runner::run_file(ctx, Path::new(runner::ONNX_NODE_CASES)).unwrap_or_else(|e| panic!("{e}"));
    print!("{}", report.render());
    let counts = report.counts();
    assert_eq!(counts.failed, 0, "failed cases:\n{}", report.render());
    assert_eq!(counts.skipped, 0, "skipped cases:\n{}", report.render());
    let by_op = report.counts_by_op();
    for op in [
        "logical_and_broadcast",
        "logical_or_broadcast",
        "logical_xor_broadcast",
        "logical_not_bool",
        "bitwise_and_broadcast",
        "bitwise_or_broadcast",
        "bitwise_xor_broadcast",
        "bitwise_not",
        "bitwise_left_shift_broadcast",
        "bitwise_right_shift_broadcast",
    ] {
        let passed = by_op
            .iter()
            .find(|(name, _)| name == op)
            .map_or(0, |(_, c)| c.passed);
        assert!(passed >= 3, "{op}: {passed} ONNX node tests passed");
    }
}

/// The fused expressions' cases: every one passes, valid and refused alike.
#[test]
fn expression_cases_all_pass() {
    let ctx = crate::common::ctx();
    let report = runner::run_file(ctx, Path::new(runner::EXPRESSION_CASES))
        .unwrap_or_else(|e| panic!("{e}"));
    print!("{}", report.render());
    let counts = report.counts();
    assert_eq!(counts.failed, 0, "failed cases:\n{}", report.render());
    assert_eq!(counts.skipped, 0);
    assert!(counts.passed >= 24, "{counts}");
}

/// Every operator of the table has cases in the repository's conformance files, and they pass:
/// a row added to the table without cases fails here.
#[test]
fn every_operator_of_the_table_has_passing_cases() {
    let ctx = crate::common::ctx();
    let mut passed = std::collections::BTreeMap::<String, usize>::new();
    for file in runner::REPO_CASE_FILES {
        let report = runner::run_file(ctx, Path::new(file)).unwrap_or_else(|e| panic!("{e}"));
        for (op, c) in report.counts_by_op() {
            assert_eq!(c.failed + c.skipped, 0, "{file}: {op}: {c}");
            *passed.entry(op).or_default() += c.passed;
        }
    }
    for op in gpu_xor::Operator::ALL {
        let name = op.conformance_name();
        let n = passed.get(name).copied().unwrap_or(0);
        assert!(n >= 10, "{op} ({name}): {n} passing cases");
    }
}

/// Hand-written cases of the family's operators: the runner reports each broken one as failed,
/// one-input cases that carry B's fields included.
const BROKEN_FAMILY_CASES: &str = r#"[
{"id": "good_bit_not_doc_example", "op": "bit_not", "dtype": "u8", "a_shape": [2, 2], "out_shape": [2, 2], "min_feature_level": "3_0", "a": [0, 128, 42, 255], "expected": [255, 127, 213, 0], "tags": ["doc"]},
{"id": "good_bit_not_in_place_f32", "op": "bit_not", "dtype": "f32", "a_shape": [3], "out_shape": [3], "alias": "out=a", "a": [0, 2147483648, 2143289344], "expected": [4294967295, 2147483647, 2151677951], "tags": ["in_place", "float_bits"]},
{"id": "good_logical_and_fl1_0_u32", "op": "logical_and", "dtype": "u32", "a_shape": [1, 1, 1, 4], "b_shape": [1, 1, 1, 4], "out_shape": [1, 1, 1, 4], "min_feature_level": "1_0", "a": [0, 256, 2147483648, 7], "b": [5, 0, 1, 4294967295], "expected": [0, 0, 1, 1], "tags": []},
{"id": "good_logical_not_owned", "op": "logical_not", "dtype": "u8", "a_shape": [4], "out_shape": [4], "a_flags": "OWNED_BY_DML", "a": [0, 1, 2, 0], "expected": [1, 0, 0, 1], "tags": ["owned_by_dml"]},
{"id": "good_ov_bitwise_and_bool_normalised", "op": "bitwise_and_broadcast", "dtype": "bool", "a_shape": [3], "b_shape": [], "out_shape": [3], "a": [2, 0, 128], "b": [1], "expected": [1, 0, 1], "tags": ["noncanonical_bool"]},
{"id": "good_ov_logical_not_in_place", "op": "logical_not_bool", "dtype": "bool", "a_shape": [2, 2], "out_shape": [2, 2], "alias": "out=a", "a": [0, 1, 2, 0], "expected": [1, 0, 0, 1], "tags": ["in_place"]},
{"id": "good_ov_logical_or_error_u8", "op": "logical_or_broadcast", "dtype": "u8", "a_shape": [2], "b_shape": [2], "expect_error": "boolean only", "error_kind": "unsupported_dtype", "tags": ["error"]},
{"id": "bad_bit_and_wrong_expected", "op": "bit_and", "dtype": "u16", "a_shape": [3], "b_shape": [3], "out_shape": [3], "a": [65535, 4660, 1], "b": [255, 65280, 1], "expected": [255, 4608, 0], "tags": []},
{"id": "bad_bit_not_with_b_shape", "op": "bit_not", "dtype": "u8", "a_shape": [2], "b_shape": [2], "out_shape": [2], "a": [0, 1], "expected": [255, 254], "tags": []},
{"id": "bad_bit_not_with_b_data", "op": "bit_not", "dtype": "u8", "a_shape": [2], "out_shape": [2], "a": [0, 1], "b": [0, 0], "expected": [255, 254], "tags": []},
{"id": "bad_logical_not_alias_out_b", "op": "logical_not", "dtype": "u8", "a_shape": [2], "out_shape": [2], "alias": "out=b", "a": [0, 1], "expected": [1, 0], "tags": []},
{"id": "bad_bitwise_not_broadcast_field", "op": "bitwise_not", "dtype": "u8", "a_shape": [2], "broadcast": "numpy", "out_shape": [2], "a": [1, 3], "expected": [254, 252], "tags": []},
{"id": "bad_bit_or_missing_b_shape", "op": "bit_or", "dtype": "u8", "a_shape": [2], "out_shape": [2], "a": [1, 2], "expected": [1, 2], "tags": []},
{"id": "bad_bit_not_without_expected", "op": "bit_not", "dtype": "u8", "a_shape": [2], "out_shape": [2], "a": [1, 2], "tags": []},
{"id": "bad_logical_and_wrong_error_kind", "op": "logical_and", "dtype": "u8", "a_shape": [1, 1, 2, 2], "b_shape": [1, 1, 2, 2], "out_shape": [1, 1, 2, 2], "feature_level": "1_0", "expect_error": "u8 at FL 1.0", "error_kind": "rank_out_of_range", "tags": ["error"]},
{"id": "bad_logical_not_min_feature_level", "op": "logical_not", "dtype": "u8", "a_shape": [4], "out_shape": [4], "min_feature_level": "2_0", "a": [0, 1, 2, 0], "expected": [1, 0, 0, 1], "tags": ["feature_level"]},
{"id": "bad_ov_bitwise_and_bool_raw_bits", "op": "bitwise_and_broadcast", "dtype": "bool", "a_shape": [1], "b_shape": [1], "out_shape": [1], "a": [2], "b": [1], "expected": [0], "tags": ["noncanonical_bool"]},
{"id": "bad_ov_logical_xor_u8_as_valid", "op": "logical_xor_broadcast", "dtype": "u8", "a_shape": [2], "b_shape": [2], "out_shape": [2], "a": [1, 0], "b": [1, 1], "expected": [0, 1], "tags": []},
{"id": "bad_ov_bitwise_not_out_shape", "op": "bitwise_not", "dtype": "i8", "a_shape": [2, 3], "out_shape": [3, 2], "a": [0, 1, 2, 3, 4, 5], "expected": [255, 254, 253, 252, 251, 250], "tags": []},
{"id": "bad_unary_generator_with_b_stream", "op": "bit_not", "dtype": "u8", "a_shape": [4], "out_shape": [4], "generator": {"algo": "splitmix64", "a": {"seed": 1, "count": 4, "mode": "bits"}, "b": {"seed": 2, "count": 4, "mode": "bits"}}, "a_sha256": "00", "expected_count": 4, "expected_sha256": "00", "tags": ["generator"]}
]"#;

#[test]
fn runner_reports_broken_family_cases_as_failed() {
    let report = runner::run_cases(crate::common::ctx(), BROKEN_FAMILY_CASES).unwrap();
    for case in &report.cases {
        match (&case.outcome, case.id.starts_with("good_")) {
            (Outcome::Passed, true) => {}
            (Outcome::Failed(reason), false) => println!("{}: {reason}", case.id),
            (outcome, _) => panic!("{}: {outcome:?}", case.id),
        }
    }
    let counts = report.counts();
    assert_eq!(
        (counts.passed, counts.failed, counts.skipped),
        (7, 13, 0),
        "{}",
        report.render()
    );
    for (id, words) in [
        ("bad_bit_and_wrong_expected", "output element 2"),
        (
            "bad_bit_not_with_b_shape",
            "b_shape: bit_not takes one input",
        ),
        ("bad_bit_not_with_b_data", "b: bit_not takes one input"),
        ("bad_logical_not_alias_out_b", "alias: OutB names B"),
        (
            "bad_bitwise_not_broadcast_field",
            "broadcast: bitwise_not takes one input",
        ),
        ("bad_bit_or_missing_b_shape", "missing field `b_shape`"),
        (
            "bad_bit_not_without_expected",
            "a one-input case with data needs `a` and `expected`",
        ),
        (
            "bad_logical_and_wrong_error_kind",
            "expected error rank_out_of_range",
        ),
        ("bad_logical_not_min_feature_level", "min_feature_level"),
        ("bad_ov_bitwise_and_bool_raw_bits", "got 0x1, expected 0x0"),
        ("bad_ov_logical_xor_u8_as_valid", "[unsupported_dtype]"),
        ("bad_ov_bitwise_not_out_shape", "output shape [2, 3]"),
        (
            "bad_unary_generator_with_b_stream",
            "generator.b: bit_not takes one input",
        ),
    ] {
        let Some(Outcome::Failed(reason)) = report.outcome(id) else {
            panic!("{id} did not fail");
        };
        assert!(reason.contains(words), "{id}: {reason}");
    }
}

/// Hand-written cases in the same format: the runner reports each broken one as failed.
const BROKEN_CASES: &str = r#"[
{"id": "good_bit_xor_u8", "op": "bit_xor", "dtype": "u8", "a_shape": [5], "b_shape": [5], "out_shape": [5], "min_feature_level": "3_0", "a_min_bytes": 8, "b_min_bytes": 8, "out_min_bytes": 8, "a": [0, 1, 2, 128, 255], "b": [255, 255, 2, 1, 0], "expected": [255, 254, 0, 129, 255], "tags": []},
{"id": "good_u64_above_2_pow_53", "op": "bit_xor", "dtype": "u64", "a_shape": [2], "b_shape": [2], "out_shape": [2], "a": [18446744073709551615, 9007199254740993], "b": [1, 1], "expected": [18446744073709551614, 9007199254740992], "tags": []},
{"id": "good_error_rank_mismatch", "op": "bit_xor", "dtype": "u8", "a_shape": [6], "b_shape": [2, 3], "out_shape": [6], "expect_error": "rank differs", "error_kind": "rank_mismatch", "tags": ["error"]},
{"id": "good_ov_numpy_bool", "op": "bitwise_xor_broadcast", "dtype": "bool", "a_shape": [2, 1], "b_shape": [3], "broadcast": "numpy", "out_shape": [2, 3], "a": [2, 0], "b": [1, 0, 7], "expected": [0, 1, 0, 1, 0, 1], "tags": ["noncanonical_bool"]},
{"id": "good_owned_by_dml_b", "op": "bit_xor", "dtype": "u8", "a_shape": [4], "b_shape": [4], "out_shape": [4], "b_flags": "OWNED_BY_DML", "a": [1, 2, 3, 4], "b": [0, 0, 0, 0], "expected": [1, 2, 3, 4], "tags": ["owned_by_dml"]},
{"id": "good_owned_by_dml_a_and_b_logical", "op": "logical_xor", "dtype": "u32", "a_shape": [2, 3], "b_shape": [2, 3], "out_shape": [2, 3], "a_flags": "OWNED_BY_DML", "b_flags": "OWNED_BY_DML", "b_strides": [4, 1], "a": [0, 7, 0, 256, 1, 0], "b": [0, 0, 9, 5, 9, 0, 5], "expected": [0, 1, 1, 0, 1, 1], "tags": ["owned_by_dml", "strides"]},
{"id": "good_owned_by_dml_a_out_strided", "op": "bit_xor", "dtype": "u16", "a_shape": [2, 2], "b_shape": [2, 2], "out_shape": [2, 2], "a_flags": "OWNED_BY_DML", "out_strides": [3, 1], "a": [1, 2, 3, 65535], "b": [3, 2, 1, 65535], "expected": [2, 0, 2, 0], "tags": ["owned_by_dml", "out_strides"]},
{"id": "good_owned_by_dml_error_output_flagged", "op": "bit_xor", "dtype": "u8", "a_shape": [4], "b_shape": [4], "out_shape": [4], "b_flags": "OWNED_BY_DML", "out_flags": "OWNED_BY_DML", "expect_error": "output flagged", "error_kind": "owned_by_dml_on_output", "tags": ["owned_by_dml", "error"]},
{"id": "good_owned_by_dml_error_misaligned_owned_offset", "op": "bit_xor", "dtype": "u8", "a_shape": [4], "b_shape": [4], "out_shape": [4], "b_flags": "OWNED_BY_DML", "b_offset_bytes": 4, "a": [1, 2, 3, 4], "b": [4, 3, 2, 1], "expect_error": "misaligned", "error_kind": "binding_offset_misaligned", "tags": ["owned_by_dml", "error"]},
{"id": "bad_wrong_expected", "op": "bit_xor", "dtype": "u8", "a_shape": [5], "b_shape": [5], "out_shape": [5], "a": [0, 1, 2, 128, 255], "b": [255, 255, 2, 1, 0], "expected": [255, 254, 0, 129, 254], "tags": []},
{"id": "bad_wrong_expected_owned_b", "op": "bit_xor", "dtype": "u16", "a_shape": [4], "b_shape": [4], "out_shape": [4], "b_flags": "OWNED_BY_DML", "a": [1, 2, 3, 4], "b": [16, 32, 48, 64], "expected": [17, 34, 51, 69], "tags": ["owned_by_dml"]},
{"id": "bad_wrong_error_kind_owned", "op": "bit_xor", "dtype": "u8", "a_shape": [4], "b_shape": [4], "out_shape": [4], "a_flags": "OWNED_BY_DML", "a_offset_bytes": 4, "expect_error": "misaligned", "error_kind": "total_bytes_too_small", "tags": ["owned_by_dml", "error"]},
{"id": "bad_wrong_expected_strided_out", "op": "bit_xor", "dtype": "u16", "a_shape": [2, 2], "b_shape": [2, 2], "out_shape": [2, 2], "out_strides": [3, 1], "a": [1, 2, 3, 4], "b": [0, 0, 0, 0], "expected": [1, 2, 4, 4], "tags": ["out_strides"]},
{"id": "bad_error_case_that_succeeds", "op": "bit_xor", "dtype": "u32", "a_shape": [2, 3], "b_shape": [2, 3], "out_shape": [2, 3], "a": [1, 2, 3, 4, 5, 6], "b": [6, 5, 4, 3, 2, 1], "expect_error": "nothing is wrong", "error_kind": "shape_mismatch", "tags": ["error"]},
{"id": "bad_ov_error_case_that_succeeds", "op": "bitwise_xor_broadcast", "dtype": "i32", "a_shape": [3], "b_shape": [1], "broadcast": "numpy", "expect_error": "nothing is wrong", "error_kind": "shape_inconsistent", "tags": ["error"]},
{"id": "bad_wrong_error_kind", "op": "logical_xor", "dtype": "i8", "a_shape": [4], "b_shape": [4], "out_shape": [4], "a": [1, 2, 3, 4], "b": [0, 0, 0, 0], "expect_error": "i8 is unsupported", "error_kind": "dtype_mismatch", "tags": ["error"]},
{"id": "bad_wrong_error_kind_at_run", "op": "bit_xor", "dtype": "u8", "a_shape": [4], "b_shape": [4], "out_shape": [4], "a_offset_bytes": 4, "expect_error": "misaligned", "error_kind": "alias_desc_mismatch", "tags": ["error"]},
{"id": "bad_min_feature_level", "op": "bit_xor", "dtype": "i32", "a_shape": [2], "b_shape": [2], "out_shape": [2], "min_feature_level": "3_0", "a": [1, 2], "b": [3, 4], "expected": [2, 6], "tags": ["feature_level"]},
{"id": "bad_ov_out_shape", "op": "bitwise_xor_broadcast", "dtype": "u8", "a_shape": [2, 1], "b_shape": [3], "broadcast": "numpy", "out_shape": [2, 1], "a": [1, 2], "b": [1, 2, 3], "expected": [0, 3], "tags": []},
{"id": "bad_generator_digest", "op": "bitwise_xor_broadcast", "dtype": "u8", "a_shape": [40], "b_shape": [40], "broadcast": "numpy", "out_shape": [40], "generator": {"algo": "splitmix64", "a": {"seed": 1, "count": 40, "mode": "bits"}, "b": {"seed": 2, "count": 40, "mode": "bits"}}, "a_sha256": "00", "b_sha256": "00", "expected_count": 40, "expected_sha256": "00", "tags": ["generator"]},
{"id": "bad_unknown_op", "op": "bit_nand", "dtype": "u8", "a_shape": [1], "b_shape": [1], "out_shape": [1], "a": [1], "b": [1], "expected": [1], "tags": []},
{"id": "bad_unknown_dtype", "op": "bit_xor", "dtype": "u128", "a_shape": [1], "b_shape": [1], "out_shape": [1], "a": [1], "b": [1], "expected": [0], "tags": []},
{"id": "bad_f64_value_parsed_as_float", "op": "bit_xor", "dtype": "u64", "a_shape": [1], "b_shape": [1], "out_shape": [1], "a": [1.5], "b": [1], "expected": [0], "tags": []},
{"id": "bad_unknown_broadcast", "op": "bitwise_xor_broadcast", "dtype": "u8", "a_shape": [1], "b_shape": [1], "broadcast": "bidirectional", "out_shape": [1], "a": [1], "b": [1], "expected": [0], "tags": []},
{"id": "bad_unknown_error_kind", "op": "bit_xor", "dtype": "u8", "a_shape": [6], "b_shape": [2, 3], "expect_error": "rank differs", "error_kind": "rank_differs", "tags": ["error"]},
{"id": "bad_unknown_flags_value", "op": "bit_xor", "dtype": "u8", "a_shape": [1], "b_shape": [1], "b_flags": "OWNED_BY_NOBODY", "tags": ["owned_by_dml"]},
{"id": "bad_ov_out_dtype", "op": "bitwise_xor_broadcast", "dtype": "u8", "a_shape": [1], "b_shape": [1], "out_dtype": "u16", "out_shape": [1], "a": [1], "b": [3], "expected": [2], "tags": []},
{"id": "bad_expected_too_wide", "op": "bit_xor", "dtype": "u8", "a_shape": [1], "b_shape": [1], "out_shape": [1], "a": [1], "b": [3], "expected": [258], "tags": []}
]"#;

#[test]
fn runner_reports_broken_cases_as_failed() {
    let report = runner::run_cases(crate::common::ctx(), BROKEN_CASES).unwrap();
    for case in &report.cases {
        let expected_pass = case.id.starts_with("good_");
        match &case.outcome {
            Outcome::Passed => assert!(expected_pass, "{} passed", case.id),
            Outcome::Skipped(reason) => panic!("{} skipped: {reason}", case.id),
            Outcome::Failed(reason) => {
                assert!(!expected_pass, "{} failed: {reason}", case.id);
                println!("{}: {reason}", case.id);
            }
        }
    }
    let counts = report.counts();
    assert_eq!(
        (counts.passed, counts.skipped),
        (9, 0),
        "{}",
        report.render()
    );
    assert_eq!(counts.failed, 19, "{}", report.render());

    // The failure names the first wrong element, with both values.
    let Some(Outcome::Failed(reason)) = report.outcome("bad_wrong_expected") else {
        panic!("bad_wrong_expected did not fail");
    };
    assert!(
        reason.contains("element 4") && reason.contains("0xff") && reason.contains("0xfe"),
        "{reason}"
    );
    let Some(Outcome::Failed(reason)) = report.outcome("bad_wrong_expected_strided_out") else {
        panic!("bad_wrong_expected_strided_out did not fail");
    };
    assert!(reason.contains("element 2"), "{reason}");
    // An owned input's case fails like any other: element 3 is 4 ^ 64 = 68, not 69.
    let Some(Outcome::Failed(reason)) = report.outcome("bad_wrong_expected_owned_b") else {
        panic!("bad_wrong_expected_owned_b did not fail");
    };
    assert!(
        reason.contains("element 3") && reason.contains("got 0x44, expected 0x45"),
        "{reason}"
    );
    let Some(Outcome::Failed(reason)) = report.outcome("bad_wrong_error_kind_owned") else {
        panic!("bad_wrong_error_kind_owned did not fail");
    };
    assert!(
        reason.contains("expected error total_bytes_too_small")
            && reason.contains("binding_offset_misaligned"),
        "{reason}"
    );
    for (id, words) in [
        (
            "bad_f64_value_parsed_as_float",
            "a[0]: invalid type: floating point `1.5`",
        ),
        ("bad_unknown_op", "op: unknown op \"bit_nand\""),
        ("bad_unknown_dtype", "dtype: unknown dtype \"u128\""),
        (
            "bad_unknown_broadcast",
            "broadcast: unknown variant `bidirectional`",
        ),
        ("bad_unknown_error_kind", "error_kind: unknown error_kind"),
        ("bad_unknown_flags_value", "b_flags: unknown variant"),
    ] {
        let Some(Outcome::Failed(reason)) = report.outcome(id) else {
            panic!("{id} did not fail");
        };
        assert!(reason.starts_with(words), "{id}: {reason}");
    }
    assert!(report.summary_line().ends_with("19 failed, 0 skipped"));
}

#[test]
fn runner_rejects_text_that_is_not_json() {
    assert!(runner::run_cases(crate::common::ctx(), "{\"id\": ").is_err());
    assert!(runner::run_file(crate::common::ctx(), Path::new("/nonexistent/cases.json")).is_err());
}

#[test]
fn runner_splitmix64_matches_the_known_answer() {
    use runner::case::Mode;
    use runner::generator::generate;

    assert_eq!(
        gpu_xor_testkit::SplitMix64::new(0).next_u64(),
        0xE220_A839_7B1D_CDAF
    );
    assert_eq!(
        generate(0, 1, Mode::Bits, 2),
        [0xCDAF],
        "bits keeps the low bytes"
    );
    assert_eq!(generate(0, 1, Mode::Bool, 1), [1]);
    assert_eq!(generate(0, 1, Mode::Sparse, 1), [0xAF]);
    // The suite's random bytes are the same stream.
    assert_eq!(crate::common::random_bytes(0, 2), [0xAF, 0xCD]);
}
