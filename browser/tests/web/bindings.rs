//! Every binding pattern: three buffers, the output on A's range and on B's range (in place),
//! A and B in one buffer (one range, and different offsets), all three in one buffer (one
//! range, and disjoint ranges), on every element width and on strided layouts.

use gpu_xor::inspect::{BindingPattern, KernelKind};
use gpu_xor::{DataType, TensorDesc};
use gpu_xor_browser::{Check, DmlCase, Operator, assert_kernel, ctx};
use wasm_bindgen_test::wasm_bindgen_test;

const WIDTHS: [DataType; 4] = [DataType::U8, DataType::U16, DataType::F32, DataType::I64];

#[wasm_bindgen_test]
async fn three_buffers() {
    let ctx = ctx().await;
    for dt in WIDTHS {
        let r = DmlCase::packed(Operator::BitXor, dt, &[37], 1)
            .check_on(&ctx)
            .await;
        assert_eq!(r.binding_pattern, BindingPattern::Distinct);
        assert!(!r.in_place());
    }
}

#[wasm_bindgen_test]
async fn output_on_a_runs_in_place() {
    let ctx = ctx().await;
    for dt in WIDTHS {
        let case = DmlCase::packed(Operator::BitXor, dt, &[37], 2).placed(
            768,
            [(0, 64), (1, 16), (0, 64)],
            2,
        );
        let r = case.check_on(&ctx).await;
        assert_eq!(r.binding_pattern, BindingPattern::OutputSharesA);
        assert!(r.a_in_place && !r.b_in_place, "{r:?}");
    }
}

#[wasm_bindgen_test]
async fn output_on_b_runs_in_place() {
    let ctx = ctx().await;
    for dt in WIDTHS {
        let case = DmlCase::packed(Operator::BitXor, dt, &[5, 7], 3).placed(
            768,
            [(1, 0), (0, 32), (0, 32)],
            3,
        );
        let r = case.check_on(&ctx).await;
        assert_eq!(r.binding_pattern, BindingPattern::OutputSharesB);
        assert!(r.b_in_place && !r.a_in_place, "{r:?}");
    }
}

#[wasm_bindgen_test]
async fn a_and_b_in_one_buffer() {
    let ctx = ctx().await;
    for dt in WIDTHS {
        // One range: x ^ x is zero.
        let case = DmlCase::packed(Operator::BitXor, dt, &[9], 4).placed(
            512,
            [(0, 16), (0, 16), (1, 0)],
            4,
        );
        let r = case.check_on(&ctx).await;
        assert_eq!(r.binding_pattern, BindingPattern::InputsShareBuffer);
        let after = case.expected();
        let width = dt.size_in_bytes() as usize;
        assert!(after[1][..9 * width].iter().all(|&b| b == 0));
        // Different offsets, overlapping each other.
        let case = DmlCase::packed(Operator::BitXor, dt, &[40], 5).placed(
            1024,
            [(0, 16), (0, 48), (1, 32)],
            5,
        );
        let r = case.check_on(&ctx).await;
        assert_eq!(r.binding_pattern, BindingPattern::InputsShareBuffer);
    }
}

#[wasm_bindgen_test]
async fn all_three_on_one_range() {
    let ctx = ctx().await;
    for dt in WIDTHS {
        let case = DmlCase::packed(Operator::BitXor, dt, &[3, 11], 6).placed(
            768,
            [(0, 48), (0, 48), (0, 48)],
            6,
        );
        let r = case.check_on(&ctx).await;
        assert_eq!(r.binding_pattern, BindingPattern::AllShareBuffer);
        assert!(r.a_in_place && r.b_in_place, "{r:?}");
    }
}

#[wasm_bindgen_test]
async fn all_three_in_one_buffer_at_different_offsets() {
    let ctx = ctx().await;
    for dt in WIDTHS {
        let case = DmlCase::packed(Operator::BitXor, dt, &[13], 7).placed(
            1024,
            [(0, 0), (0, 256), (0, 512)],
            7,
        );
        let r = case.check_on(&ctx).await;
        assert_eq!(r.binding_pattern, BindingPattern::AllShareBuffer);
        assert!(!r.in_place(), "{r:?}");
        // The output before the inputs, the inputs overlapping each other.
        let case = DmlCase::packed(Operator::BitXor, dt, &[13], 8).placed(
            1024,
            [(0, 512), (0, 528), (0, 16)],
            8,
        );
        case.check_on(&ctx).await;
        // The output in A's buffer, beside it.
        let case = DmlCase::packed(Operator::BitXor, dt, &[21], 9).placed(
            1024,
            [(0, 272), (1, 0), (0, 16)],
            9,
        );
        let r = case.check_on(&ctx).await;
        assert_eq!(r.binding_pattern, BindingPattern::OutputSharesA);
        assert!(!r.in_place(), "{r:?}");
    }
}

/// In place on padded rows of sub-word elements: the scatter kernel's atomic lanes, with the
/// padding and the other lanes of each word kept.
#[wasm_bindgen_test]
async fn in_place_on_a_strided_output() {
    let ctx = ctx().await;
    // Atomic lanes for 8- and 16-bit elements, plain word stores for 32-bit ones.
    for (dt, kernel) in [
        (DataType::U8, KernelKind::Scatter),
        (DataType::U16, KernelKind::Scatter),
        (DataType::U32, KernelKind::Spaced),
    ] {
        let t = TensorDesc::new(dt, &[2, 3]).with_strides(&[4, 1]);
        let mut case = DmlCase::distinct(
            Operator::BitXor,
            t.clone(),
            TensorDesc::new(dt, &[2, 3]),
            t,
            10,
        );
        case.places[2] = case.places[0];
        let r = case.check_on(&ctx).await;
        assert!(r.a_in_place, "{r:?}");
        assert_kernel(&r, kernel);
    }
}

#[wasm_bindgen_test]
async fn in_place_logical_xor() {
    let ctx = ctx().await;
    for dt in [DataType::U8, DataType::U32] {
        let case = DmlCase::packed(Operator::LogicalXor, dt, &[1, 2, 5, 3], 11)
            .placed(256, [(0, 32), (1, 32), (0, 32)], 11)
            .sparse(3);
        assert!(case.check_on(&ctx).await.a_in_place);
        let case = DmlCase::packed(Operator::LogicalXor, dt, &[30], 12)
            .placed(256, [(0, 64), (0, 64), (0, 64)], 12)
            .sparse(2);
        assert!(case.check_on(&ctx).await.b_in_place);
    }
}
