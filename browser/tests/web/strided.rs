//! DirectML tensors with strides: transposed, padded, broadcast (zero) and overlapping
//! (sliding-window) inputs; padded, spaced and transposed outputs.

use gpu_xor::inspect::KernelKind;
use gpu_xor::{DataType, TensorDesc};
use gpu_xor_browser::{Check, DmlCase, Operator, assert_kernel, ctx, scatter_kind, tile_kernel};
use wasm_bindgen_test::wasm_bindgen_test;

async fn check(a: TensorDesc, b: TensorDesc, out: TensorDesc, kernel: KernelKind, seed: u64) {
    let ctx = ctx().await;
    let r = DmlCase::distinct(Operator::BitXor, a, b, out, seed)
        .check_on(&ctx)
        .await;
    assert_kernel(&r, kernel);
}

#[wasm_bindgen_test]
async fn transposed_padded_broadcast_and_overlapping_inputs_on_every_type() {
    for (k, dt) in DataType::DIRECTML.into_iter().enumerate() {
        let seed = 40 + k as u64;
        let t = TensorDesc::new(dt, &[6, 5]);
        // Padded rows.
        check(
            t.clone().with_strides(&[9, 1]),
            t.clone(),
            t.clone(),
            KernelKind::Gather,
            seed,
        )
        .await;
        // Transposed: the tile kernel, or gathered where the context is tuned for a CPU.
        let transposed = t.clone().with_strides(&[1, 6]);
        check(
            t.clone(),
            transposed.clone(),
            t.clone(),
            tile_kernel(&t, [&t, &transposed], ctx().await.kernel_tuning()),
            seed,
        )
        .await;
        // Sliding windows: row r of A starts at element r.
        check(
            t.clone().with_strides(&[1, 1]),
            t.clone().with_strides(&[2, 1]),
            t.clone(),
            KernelKind::Gather,
            seed,
        )
        .await;
        // Scalar broadcast (one run of 30 elements: the contiguous kernel, the element splat
        // over the run), row broadcast (rows of 5 elements: gathered), column broadcast (the
        // contiguous kernel from 16 bytes a row, the element splat per row, else gathered).
        let column = if 5 * dt.size_in_bytes() >= 16 {
            KernelKind::Contiguous
        } else {
            KernelKind::Gather
        };
        for (s, kernel) in [
            ([0, 0], KernelKind::Contiguous),
            ([0, 1], KernelKind::Gather),
            ([1, 0], column),
        ] {
            check(
                t.clone(),
                t.clone().with_strides(&s),
                t.clone(),
                kernel,
                seed,
            )
            .await;
        }
    }
}

#[wasm_bindgen_test]
async fn padded_spaced_and_transposed_outputs_on_every_type() {
    for (k, dt) in DataType::DIRECTML.into_iter().enumerate() {
        let seed = 60 + k as u64;
        let t = TensorDesc::new(dt, &[4, 5]);
        for (strides, kernel) in [
            // Short padded output rows: the scatter kernel (words that elements share written
            // by one owner, lanes stored alone where no element shares a word).
            ([7, 1], scatter_kind(&t.clone().with_strides(&[7, 1]))),
            // Every other element.
            ([10, 2], scatter_kind(&t.clone().with_strides(&[10, 2]))),
            // A transposed output is reordered to be dense ([5, 4]), which transposes the
            // inputs (written in the inputs' order where the context is tuned for a CPU).
            (
                [1, 4],
                tile_kernel(
                    &t.clone().with_strides(&[1, 4]),
                    [&t, &t],
                    ctx().await.kernel_tuning(),
                ),
            ),
        ] {
            let out = t.clone().with_strides(&strides);
            check(t.clone(), t.clone(), out, kernel, seed).await;
        }
        // Strided everything at once.
        let r = DmlCase::distinct(
            Operator::BitXor,
            t.clone().with_strides(&[1, 4]),
            t.clone().with_strides(&[0, 1]),
            t.clone().with_strides(&[6, 1]),
            seed,
        )
        .check_on(&ctx().await)
        .await;
        assert!(!r.dispatches.is_empty());
    }
}

/// Strided tensors of rank 3 to 5 with a binding offset and an explicit, larger
/// TotalTensorSizeInBytes.
#[wasm_bindgen_test]
async fn higher_ranks_with_gaps() {
    let ctx = ctx().await;
    for dt in [DataType::U8, DataType::I16, DataType::U32, DataType::F64] {
        let sizes = [2u32, 3, 4];
        let a = TensorDesc::new(dt, &sizes).with_strides(&[1, 2, 6]);
        let b = TensorDesc::new(dt, &sizes).with_strides(&[20, 5, 1]);
        let out = TensorDesc::new(dt, &sizes).with_strides(&[16, 5, 1]);
        let total = out.total_size().unwrap() + 32;
        let out = out.with_total_size(total);
        DmlCase::distinct(Operator::BitXor, a, b, out, 90)
            .check_on(&ctx)
            .await;
        let sizes = [2u32, 1, 3, 2, 2];
        let a = TensorDesc::new(dt, &sizes).with_strides(&[24, 0, 8, 4, 1]);
        let b = TensorDesc::new(dt, &sizes).with_strides(&[0, 0, 2, 1, 6]);
        let out = TensorDesc::new(dt, &sizes);
        DmlCase::distinct(Operator::BitXor, a, b, out, 91)
            .check_on(&ctx)
            .await;
    }
}
