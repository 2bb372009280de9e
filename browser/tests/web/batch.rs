//! Merged batches: calls of different shapes pushed into one batch share dispatches, and leave
//! every byte of every buffer as the reference does with the calls applied in order.

use gpu_xor::inspect::KernelKind;
use gpu_xor::{DataType, KernelTuning, TensorDesc};
use gpu_xor_browser::{Call, Calls, CheckCalls, Operator, ctx, place, say, tuned, windowed};
use wasm_bindgen_test::wasm_bindgen_test;

fn at(offset: u64) -> [gpu_xor_browser::Place; 3] {
    [place(0, offset), place(1, offset), place(2, offset)]
}

#[wasm_bindgen_test]
async fn contiguous_calls_merge() {
    let ctx = ctx().await;
    for (i, (op, dt)) in [
        (Operator::BitXor, DataType::U8),
        (Operator::BitXor, DataType::F16),
        (Operator::BitXor, DataType::U64),
        (Operator::LogicalXor, DataType::U32),
    ]
    .into_iter()
    .enumerate()
    {
        let calls = [1000u32, 1003, 17, 1]
            .iter()
            .zip(0..)
            .map(|(&n, k)| Call::same(op, TensorDesc::new(dt, &[n]), at(k * 8192)))
            .collect();
        let m = Calls::new(3, 32768, 20 + i as u64, calls)
            .check(&ctx, KernelKind::Contiguous)
            .await;
        assert!(m.dispatches < m.pieces, "{m:?}");
        say(&format!(
            "batch of {} {dt} calls: {} pieces in {} dispatches",
            m.summaries.len(),
            m.pieces,
            m.dispatches
        ));
    }
}

#[wasm_bindgen_test]
async fn tile_gather_scatter_and_rows_calls_merge() {
    let ctx = ctx().await;
    // Tile: transposed A, two shapes whose rows are not whole 16-byte blocks.
    let calls = [[40u32, 41], [40, 33]]
        .iter()
        .zip(0..)
        .map(|(&[r, c], k)| {
            let mut call = Call::same(
                Operator::BitXor,
                TensorDesc::new(DataType::U32, &[r, c]),
                at(k * 16384),
            );
            call.a = call.a.with_strides(&[1, r]);
            call
        })
        .collect();
    let m = Calls::new(3, 32768, 11, calls)
        .check(&tuned(KernelTuning::Gpu).await, KernelKind::Tile)
        .await;
    assert!(m.dispatches < m.pieces, "{m:?}");
    // Gather: A read with gaps.
    let calls = [[6u32, 7], [5, 9], [3, 3]]
        .iter()
        .zip(0..)
        .map(|(&[r, c], k)| {
            let mut call = Call::same(
                Operator::BitXor,
                TensorDesc::new(DataType::I16, &[r, c]),
                at(k * 1024),
            );
            call.a = call.a.with_strides(&[c + 1, 2]);
            call
        })
        .collect();
    let m = Calls::new(3, 4096, 12, calls)
        .check(&ctx, KernelKind::Gather)
        .await;
    assert!(m.dispatches < m.pieces, "{m:?}");
    // Scatter: padded output rows of bytes.
    let calls = [[9u32, 10], [10, 9], [4, 5]]
        .iter()
        .zip(0..)
        .map(|(&[r, c], k)| {
            let mut call = Call::same(
                Operator::LogicalXor,
                TensorDesc::new(DataType::U8, &[r, c]),
                at(k * 1024),
            );
            call.out = call.out.with_strides(&[c + 3, 1]);
            call
        })
        .collect();
    let m = Calls::new(3, 4096, 13, calls)
        .check(&ctx, KernelKind::Scatter)
        .await;
    assert!(m.dispatches < m.pieces, "{m:?}");
    // Rows: padded rows of different lengths.
    let calls = [(160u32, 176u32), (144, 160), (208, 256)]
        .iter()
        .zip(0..)
        .map(|(&(cols, pitch), k)| {
            let mut call = Call::same(
                Operator::BitXor,
                TensorDesc::new(DataType::U8, &[6, cols]).with_strides(&[pitch, 1]),
                at(k * 4096),
            );
            call.a = TensorDesc::new(DataType::U8, &[6, cols]);
            call
        })
        .collect();
    let m = Calls::new(3, 16384, 14, calls)
        .check(&ctx, KernelKind::Rows)
        .await;
    assert!(m.dispatches < m.pieces, "{m:?}");
}

#[wasm_bindgen_test]
async fn in_place_and_windowed_calls() {
    let ctx = ctx().await;
    // In place on A, at different offsets of one buffer.
    let calls = [1000u32, 999, 5]
        .iter()
        .zip(0..)
        .map(|(&n, k)| {
            Call::same(
                Operator::BitXor,
                TensorDesc::new(DataType::U16, &[n]),
                [
                    place(0, k * 16384),
                    place(1, k * 16384),
                    place(0, k * 16384),
                ],
            )
        })
        .collect();
    let m = Calls::new(2, 49152, 15, calls)
        .check(&ctx, KernelKind::Contiguous)
        .await;
    assert!(m.dispatches < m.pieces, "{m:?}");
    // Calls larger than a 4 KiB window: pieces of several calls.
    let w = windowed(4096).await;
    let calls = [10000u32, 9000, 5000]
        .iter()
        .zip(0..)
        .map(|(&n, k)| {
            Call::same(
                Operator::BitXor,
                TensorDesc::new(DataType::U8, &[n]),
                at(k * 16384),
            )
        })
        .collect();
    let m = Calls::new(3, 49152, 16, calls)
        .check(&w, KernelKind::Contiguous)
        .await;
    assert!(m.pieces > 3, "{m:?}");
}

/// A call that reads what the one before it wrote keeps its order (its own dispatch) and sees
/// the result.
#[wasm_bindgen_test]
async fn dependent_calls_keep_their_order() {
    let t = TensorDesc::new(DataType::U32, &[40, 40]);
    let mut first = Call::same(Operator::BitXor, t.clone(), at(0));
    first.a = t.clone().with_strides(&[1, 40]);
    let mut second = Call::same(
        Operator::BitXor,
        t.clone(),
        [place(2, 0), place(1, 0), place(0, 8192)],
    );
    second.a = t.with_strides(&[1, 40]);
    let m = Calls::new(3, 16384, 17, vec![first, second])
        .check(&tuned(KernelTuning::Gpu).await, KernelKind::BlockTile)
        .await;
    assert_eq!(m.dispatches, 2, "{m:?}");
}
