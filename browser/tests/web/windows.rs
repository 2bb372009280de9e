//! Forced small windows: every path crosses window seams at Chromium's storage offset
//! alignment (256 bytes), at 4 KiB and at the smallest window the device allows (512 bytes).

use gpu_xor::inspect::KernelKind;
use gpu_xor::{AutoBroadcast, DataType, TensorDesc};
use gpu_xor_browser::{Check, CheckOv, DmlCase, Operator, OvCase, assert_kernel, ctx, windowed};
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
async fn windows_below_twice_the_offset_alignment_are_refused() {
    let ctx = ctx().await;
    let align = u64::from(ctx.device().limits().min_storage_buffer_offset_alignment).max(16);
    let opts = gpu_xor::ContextOptions {
        max_window_bytes: Some(2 * align - 16),
        ..Default::default()
    };
    let e = gpu_xor::Context::with_options(ctx.device().clone(), ctx.queue().clone(), &opts)
        .unwrap_err();
    assert_eq!(e.rule(), "invalid_option", "{e}");
    assert_eq!(windowed(2 * align).await.max_window_bytes(), 2 * align);
}

#[wasm_bindgen_test]
async fn contiguous_across_seams() {
    for window in [4096, 512] {
        let w = windowed(window).await;
        for dt in [DataType::U8, DataType::U16, DataType::F32, DataType::U64] {
            let n = 9001 / dt.size_in_bytes();
            let r = DmlCase::packed(Operator::BitXor, dt, &[n], 1)
                .check_on(&w)
                .await;
            assert_kernel(&r, KernelKind::Contiguous);
            let bytes = u64::from(n * dt.size_in_bytes());
            assert!(
                r.dispatches.len() as u64 >= bytes / window,
                "{window}-byte windows, {bytes} bytes: {r:?}"
            );
        }
        let r = DmlCase::packed(Operator::LogicalXor, DataType::U8, &[9001], 2)
            .sparse(5)
            .check_on(&w)
            .await;
        assert!(r.dispatches.len() > 2, "{r:?}");
    }
}

#[wasm_bindgen_test]
async fn in_place_across_seams() {
    for window in [4096, 512] {
        let w = windowed(window).await;
        let case = DmlCase::packed(Operator::BitXor, DataType::U16, &[6000], 3).placed(
            12_400,
            [(0, 0), (1, 0), (0, 0)],
            3,
        );
        let r = case.check_on(&w).await;
        assert!(r.a_in_place && r.dispatches.len() > 2, "{r:?}");
        // All three in one buffer far apart: each gets a binding of its own.
        let case = DmlCase::packed(Operator::BitXor, DataType::U32, &[750], 4).placed(
            40_000,
            [(0, 0), (0, 30_000), (0, 15_008)],
            4,
        );
        case.check_on(&w).await;
    }
}

#[wasm_bindgen_test]
async fn strided_kernels_across_seams() {
    for window in [4096, 512] {
        let w = windowed(window).await;
        // Rows: a row broadcast.
        let t = TensorDesc::new(DataType::U32, &[30, 70]);
        DmlCase::distinct(
            Operator::BitXor,
            t.clone(),
            t.clone().with_strides(&[0, 1]),
            t.clone(),
            5,
        )
        .check_on(&w)
        .await;
        // Gather and scatter: padded input and padded output.
        DmlCase::distinct(
            Operator::LogicalXor,
            t.clone().with_strides(&[71, 1]),
            t.clone().with_strides(&[0, 1]),
            t.clone().with_strides(&[73, 1]),
            6,
        )
        .sparse(7)
        .check_on(&w)
        .await;
        // Transposed input.
        let t = TensorDesc::new(DataType::U8, &[80, 60]);
        let r = DmlCase::distinct(
            Operator::BitXor,
            t.clone().with_strides(&[1, 80]),
            t.clone(),
            t.clone(),
            7,
        )
        .check_on(&w)
        .await;
        assert!(r.dispatches.len() > 1, "{r:?}");
        // OpenVINO broadcast.
        let (_, r) = OvCase::new(DataType::I16, &[80, 50], &[50], AutoBroadcast::Numpy, 8)
            .check_on(&w)
            .await;
        assert!(r.dispatches.len() > 1, "{r:?}");
    }
}

/// Operands of one buffer further apart than one window get bindings of their own; at offsets
/// that are not multiples of the storage offset alignment, those bindings start below their
/// operands and must still not overlap a writable one (WebGPU refuses overlapping writable
/// bindings of one buffer).
#[wasm_bindgen_test]
async fn neighbours_further_apart_than_a_window() {
    for window in [4096, 512] {
        let w = windowed(window).await;
        let n = (window as u32) * 3 / 4 + 40;
        let gap = u64::from(n).next_multiple_of(16) + 16;
        for (k, places) in [
            [(0, 0), (0, 2 * gap), (0, gap)],
            [(0, gap), (1, 0), (0, 2 * gap)],
            [(0, 0), (0, gap), (1, 16)],
        ]
        .into_iter()
        .enumerate()
        {
            DmlCase::packed(Operator::BitXor, DataType::U8, &[n], 7 + k as u64)
                .placed(3 * gap as usize + 64, places, 7 + k as u64)
                .check_on(&w)
                .await;
        }
    }
}
