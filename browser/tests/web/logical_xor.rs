//! DirectML LOGICAL_XOR: truth at full width (nonzero values other than 1 are true), strided
//! views, feature levels.

use gpu_xor::inspect::KernelKind;
use gpu_xor::{DataType, DmlBinary, Element, FeatureLevel, LogicalXorDesc, Tensor, TensorDesc};
use gpu_xor_browser::{Check, DmlCase, Operator, assert_kernel, ctx};
use wasm_bindgen_test::wasm_bindgen_test;

/// Every pair of `values` through LOGICAL_XOR, against the reference's element rule.
async fn truth_table<T: Element + Into<u64> + std::fmt::LowerHex>(dt: DataType, values: &[T]) {
    let ctx = ctx().await;
    let a: Vec<T> = values
        .iter()
        .flat_map(|&x| values.iter().map(move |_| x))
        .collect();
    let b: Vec<T> = values.iter().flat_map(|_| values.iter().copied()).collect();
    let n = a.len();
    let out = ctx
        .logical_xor(
            &Tensor::from_slice(&ctx, &[n], &a).unwrap(),
            &Tensor::from_slice(&ctx, &[n], &b).unwrap(),
        )
        .unwrap()
        .to_vec_async::<T>()
        .await
        .unwrap();
    for i in 0..n {
        let want = gpu_xor::reference::logical_xor_element(dt, a[i].into(), b[i].into());
        assert_eq!(out[i].into(), want, "{:#x} xor {:#x}", a[i], b[i]);
        // The reference agrees with the rule written out.
        assert_eq!(want, u64::from((a[i].into() != 0) != (b[i].into() != 0)));
    }
}

#[wasm_bindgen_test]
async fn u8_truth_at_full_width() {
    truth_table(DataType::U8, &[0u8, 1, 2, 0x10, 0x7f, 0x80, 0xfe, 0xff]).await;
}

#[wasm_bindgen_test]
async fn u32_truth_at_full_width() {
    // 0x100, 0x8000_0000 and 0xffff_ff00 are true although their low byte is zero.
    truth_table(
        DataType::U32,
        &[
            0u32,
            1,
            2,
            0x100,
            0x1_0000,
            0x8000_0000,
            0xffff_ff00,
            0xffff_ffff,
        ],
    )
    .await;
}

/// Sparse random bytes (zeros, ones and other values in every lane), word tails, in padded
/// buffers.
#[wasm_bindgen_test]
async fn sparse_values_and_word_tails() {
    let ctx = ctx().await;
    for dt in [DataType::U8, DataType::U32] {
        for n in (1..=9).chain([4095, 4097]) {
            let case = DmlCase::packed(Operator::LogicalXor, dt, &[n], u64::from(n)).sparse(3);
            assert_kernel(&case.check_on(&ctx).await, KernelKind::Contiguous);
        }
    }
}

#[wasm_bindgen_test]
async fn strided_views() {
    let ctx = ctx().await;
    for dt in [DataType::U8, DataType::U32] {
        let t = TensorDesc::new(dt, &[6, 7]);
        for (a, b, out) in [
            (t.clone().with_strides(&[0, 1]), t.clone(), t.clone()),
            (
                t.clone().with_strides(&[1, 6]),
                t.clone().with_strides(&[9, 1]),
                t.clone(),
            ),
            (
                t.clone(),
                t.clone().with_strides(&[0, 0]),
                t.clone().with_strides(&[8, 1]),
            ),
            (t.clone(), t.clone(), t.clone().with_strides(&[1, 6])),
        ] {
            DmlCase::distinct(Operator::LogicalXor, a, b, out, 5)
                .sparse(2)
                .check_on(&ctx)
                .await;
        }
    }
}

#[wasm_bindgen_test]
async fn every_feature_level_it_exists_at_and_no_other_type() {
    let ctx = ctx().await;
    // 1.0: u32, 4-D. 2.0: u8 and u32, 4-D. 3.0 on: 1 to 8 dimensions.
    for (fl, dt, sizes) in [
        (FeatureLevel::Fl1_0, DataType::U32, vec![1u32, 2, 3, 4]),
        (FeatureLevel::Fl2_0, DataType::U8, vec![2, 1, 5, 3]),
        (FeatureLevel::Fl3_0, DataType::U8, vec![7]),
        (
            FeatureLevel::Fl3_0,
            DataType::U32,
            vec![1, 2, 1, 2, 1, 2, 1, 3],
        ),
    ] {
        DmlCase::packed(Operator::LogicalXor, dt, &sizes, 3)
            .sparse(2)
            .check_on(&ctx.with_feature_level(fl))
            .await;
    }
    for dt in DataType::ALL {
        if matches!(dt, DataType::U8 | DataType::U32) {
            continue;
        }
        let e = DmlBinary::new(&ctx, &LogicalXorDesc::packed(dt, &[4])).unwrap_err();
        assert_eq!(e.rule(), "unsupported_dtype", "{dt}");
    }
}
