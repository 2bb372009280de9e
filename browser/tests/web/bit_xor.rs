//! DirectML BIT_XOR on all eleven types: special values pass through bit for bit, word tails,
//! every rank.

use gpu_xor::inspect::KernelKind;
use gpu_xor::{DataType, Tensor, TensorDesc};
use gpu_xor_browser::specials::specials;
use gpu_xor_browser::{Check, DmlCase, Operator, assert_kernel, ctx, le_bytes};
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
async fn dml_doc_example_holds_with_b_all_255() {
    let ctx = ctx().await;
    let a = Tensor::from_slice(&ctx, &[2, 2], &[0u8, 128, 42, 255]).unwrap();
    let b = Tensor::from_slice(&ctx, &[2, 2], &[255u8; 4]).unwrap();
    let out = ctx.bit_xor(&a, &b).unwrap();
    assert_eq!(out.to_vec_async::<u8>().await.unwrap(), [255, 127, 213, 0]);
}

/// Every pair of special values of each type, XORed on the GPU, equals the XOR of the bits:
/// through the one-call form and typed tensors, and through the sentinel-checked path in
/// padded buffers.
#[wasm_bindgen_test]
async fn specials_of_all_eleven_types_pass_through_bit_exact() {
    let ctx = ctx().await;
    assert_eq!(DataType::DIRECTML.len(), 11);
    for (k, dt) in DataType::DIRECTML.into_iter().enumerate() {
        let s = specials(dt);
        let n = s.len();
        let width = dt.size_in_bytes() as usize;
        // The values really are what they claim: -0 is the sign bit alone, for example.
        assert!(
            s.iter().all(|&v| width == 8 || v >> (8 * width) == 0),
            "{dt}"
        );
        let a: Vec<u64> = (0..n * n).map(|i| s[i / n]).collect();
        let b: Vec<u64> = (0..n * n).map(|i| s[i % n]).collect();
        let ta = Tensor::from_bytes(&ctx, dt, &[n, n], &le_bytes(&a, width)).unwrap();
        let tb = Tensor::from_bytes(&ctx, dt, &[n, n], &le_bytes(&b, width)).unwrap();
        let got = ctx
            .bit_xor(&ta, &tb)
            .unwrap()
            .to_bytes_async()
            .await
            .unwrap();
        let want: Vec<u64> = a
            .iter()
            .zip(&b)
            .map(|(&x, &y)| gpu_xor::reference::bit_xor_element(dt, x, y))
            .collect();
        let want = le_bytes(&want, width);
        for (i, (g, w)) in got.chunks(width).zip(want.chunks(width)).enumerate() {
            assert_eq!(g, w, "{dt}: element {i}: {:#x} ^ {:#x}", a[i], b[i]);
        }
        // Also each value against zero (the value itself) and against itself (zero).
        let mut case = DmlCase::packed(Operator::BitXor, dt, &[n as u32, n as u32], 70 + k as u64);
        case.buffers[0][32..32 + n * n * width].copy_from_slice(&le_bytes(&a, width));
        case.buffers[1][32..32 + n * n * width].copy_from_slice(&le_bytes(&b, width));
        assert_kernel(&case.check_on(&ctx).await, KernelKind::Contiguous);
    }
}

/// Counts that leave 1, 2 or 3 bytes of the last word and 1 to 3 words of the last vec4, and
/// 4095 / 4097, on every type.
#[wasm_bindgen_test]
async fn word_tails_on_every_type() {
    let ctx = ctx().await;
    for dt in DataType::DIRECTML {
        for n in (1..=9).chain([15, 17, 4095, 4097]) {
            let r = DmlCase::packed(Operator::BitXor, dt, &[n], u64::from(n))
                .check_on(&ctx)
                .await;
            assert_kernel(&r, KernelKind::Contiguous);
        }
    }
}

/// Ranks 1 to 8, packed and with padded strides on every tensor (nothing coalesces).
#[wasm_bindgen_test]
async fn ranks_one_to_eight_packed_and_padded() {
    let ctx = ctx().await;
    for dt in [DataType::U8, DataType::F16, DataType::I32, DataType::F64] {
        for rank in 1..=8usize {
            let sizes: Vec<u32> = [3, 2, 5, 1, 2, 3, 2, 2][..rank].to_vec();
            DmlCase::packed(Operator::BitXor, dt, &sizes, rank as u64)
                .check_on(&ctx)
                .await;
            let mut strides = vec![0u32; rank];
            let mut next = 1u32;
            for d in (0..rank).rev() {
                strides[d] = next;
                next = next * sizes[d] + 1;
            }
            let t = TensorDesc::new(dt, &sizes).with_strides(&strides);
            DmlCase::distinct(Operator::BitXor, t.clone(), t.clone(), t, 100 + rank as u64)
                .check_on(&ctx)
                .await;
        }
    }
}

/// DirectML's feature levels: BIT_XOR exists from 3.0 on u8, u16 and u32, and on every type
/// from 4.1.
#[wasm_bindgen_test]
async fn feature_levels() {
    let ctx = ctx().await;
    let fl3 = ctx.with_feature_level(gpu_xor::FeatureLevel::Fl3_0);
    for dt in [DataType::U8, DataType::U16, DataType::U32] {
        DmlCase::packed(Operator::BitXor, dt, &[3, 7], 5)
            .check_on(&fl3)
            .await;
    }
    let e = DmlCase::packed(Operator::BitXor, DataType::F32, &[4], 6)
        .operator(&fl3)
        .unwrap_err();
    assert_eq!(e.rule(), "unsupported_dtype", "{e}");
}
