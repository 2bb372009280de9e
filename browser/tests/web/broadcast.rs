//! OpenVINO BitwiseXor-13: every broadcast mode (none, numpy, pdpd) on every type, booleans
//! included, scalars, empty outputs, ranks above 8, and in place.

use gpu_xor::inspect::KernelKind;
use gpu_xor::{AutoBroadcast, BitwiseXorDesc, DataType, OvBinary, Tensor};
use gpu_xor_browser::{CheckOv, OvCase, assert_kernel, ctx};
use wasm_bindgen_test::wasm_bindgen_test;

const NUMPY: AutoBroadcast = AutoBroadcast::Numpy;

fn pdpd(axis: i64) -> AutoBroadcast {
    AutoBroadcast::Pdpd { axis }
}

#[wasm_bindgen_test]
async fn openvino_doc_examples() {
    let ctx = ctx().await;
    let a = Tensor::from_slice(&ctx, &[2], &[21u8, 120]).unwrap();
    let b = Tensor::from_slice(&ctx, &[2], &[3u8, 37]).unwrap();
    let out = ctx.bitwise_xor(&a, &b, NUMPY).unwrap();
    assert_eq!(out.to_vec_async::<u8>().await.unwrap(), [22, 93]);
    let a = Tensor::from_bools(&ctx, &[3], &[true, false, false]).unwrap();
    let b = Tensor::from_bools(&ctx, &[3], &[true, true, false]).unwrap();
    let out = ctx.bitwise_xor(&a, &b, NUMPY).unwrap();
    assert_eq!(out.to_bools_async().await.unwrap(), [false, true, false]);
}

/// `none` (equal shapes), `numpy` and `pdpd` on each of the nine types.
#[wasm_bindgen_test]
async fn each_mode_on_every_type() {
    let ctx = ctx().await;
    assert_eq!(DataType::OPENVINO.len(), 9);
    for (k, dt) in DataType::OPENVINO.into_iter().enumerate() {
        let seed = 10 * k as u64;
        let (shape, r) = OvCase::new(dt, &[3, 5], &[3, 5], AutoBroadcast::None, seed)
            .check_on(&ctx)
            .await;
        assert_eq!(shape, [3, 5]);
        assert_kernel(&r, KernelKind::Contiguous);
        for (a, b, want) in [
            (vec![2, 3, 4, 5], vec![1], vec![2, 3, 4, 5]),
            (vec![2, 3, 4, 5], vec![5], vec![2, 3, 4, 5]),
            (vec![4, 5], vec![2, 3, 4, 5], vec![2, 3, 4, 5]),
            (vec![1, 4, 5], vec![2, 3, 1, 1], vec![2, 3, 4, 5]),
            (vec![8, 1, 6, 1], vec![7, 1, 5], vec![8, 7, 6, 5]),
            (vec![1, 1, 64, 56], vec![1, 1, 64, 1], vec![1, 1, 64, 56]),
        ] {
            let (shape, _) = OvCase::new(dt, &a, &b, NUMPY, seed + 1)
                .check_on(&ctx)
                .await;
            assert_eq!(shape, want, "{dt} {a:?} {b:?}");
        }
        for (b, axis) in [
            (vec![3, 4], 1),
            (vec![3, 1], 1),
            (vec![4, 5], -1),
            (vec![1, 3], 0),
            (vec![], -1),
            (vec![5], 3),
        ] {
            let (shape, _) = OvCase::new(dt, &[2, 3, 4, 5], &b, pdpd(axis), seed + 2)
                .check_on(&ctx)
                .await;
            assert_eq!(shape, [2, 3, 4, 5], "{dt} {b:?} axis {axis}");
        }
    }
}

#[wasm_bindgen_test]
async fn non_canonical_booleans_are_normalised() {
    let ctx = ctx().await;
    let a = Tensor::from_bytes(&ctx, DataType::Bool, &[6], &[2, 0x80, 0xff, 1, 0, 3]).unwrap();
    let b = Tensor::from_bytes(&ctx, DataType::Bool, &[6], &[1, 0, 0x10, 0, 0, 0]).unwrap();
    // 2 xor 1 is false once both are read as true: the output is 0, not 3.
    let out = ctx.bitwise_xor(&a, &b, NUMPY).unwrap();
    assert_eq!(out.to_bytes_async().await.unwrap(), [0, 1, 0, 1, 0, 1]);
    for (a, b, mode) in [
        (vec![37], vec![37], AutoBroadcast::None),
        (vec![5, 9], vec![9], NUMPY),
        (vec![7], vec![], AutoBroadcast::PDPD),
        (vec![3, 4, 5], vec![4, 1], pdpd(1)),
    ] {
        OvCase::new(DataType::Bool, &a, &b, mode, 14)
            .check_on(&ctx)
            .await;
    }
}

#[wasm_bindgen_test]
async fn scalars_empty_outputs_and_ranks_above_eight() {
    let ctx = ctx().await;
    for (a, b) in [
        (vec![], vec![]),
        (vec![], vec![4, 3]),
        (vec![2, 5], vec![]),
        (vec![1], vec![]),
    ] {
        let (shape, _) = OvCase::new(DataType::I64, &a, &b, NUMPY, 8)
            .check_on(&ctx)
            .await;
        assert_eq!(shape.len(), a.len().max(b.len()));
    }
    // A 1 against a 0 gives 0: an empty output, nothing dispatched, nothing written.
    for (a, b, mode, want) in [
        (vec![1], vec![0], NUMPY, vec![0]),
        (vec![2, 1], vec![1, 0], NUMPY, vec![2, 0]),
        (vec![2, 1], vec![0], pdpd(-1), vec![2, 0]),
    ] {
        let (shape, r) = OvCase::new(DataType::U16, &a, &b, mode, 3)
            .check_on(&ctx)
            .await;
        assert_eq!(shape, want);
        assert!(r.dispatches.is_empty(), "{r:?}");
    }
    // Packed rank 9 folds to one dimension; alternating broadcast on ten does not, and is
    // cut into rank-8 pieces.
    let r9 = [2, 1, 3, 1, 2, 1, 2, 1, 3];
    let (_, r) = OvCase::new(DataType::U16, &r9, &r9, NUMPY, 10)
        .check_on(&ctx)
        .await;
    assert_kernel(&r, KernelKind::Contiguous);
    let a = [2, 1, 2, 1, 2, 1, 2, 1, 2, 1];
    let b = [1, 2, 1, 2, 1, 2, 1, 2, 1, 2];
    let (shape, r) = OvCase::new(DataType::U8, &a, &b, NUMPY, 11)
        .check_on(&ctx)
        .await;
    assert_eq!(shape, [2; 10]);
    assert!(r.dispatches.len() >= 4, "{r:?}");
}

#[wasm_bindgen_test]
async fn in_place_on_a() {
    let ctx = ctx().await;
    for (dt, a, b, mode) in [
        (DataType::U32, vec![6, 7], vec![7], NUMPY),
        (DataType::Bool, vec![5, 9], vec![5, 1], NUMPY),
        (DataType::I16, vec![4, 3, 2], vec![3], pdpd(1)),
        (DataType::U64, vec![33], vec![33], AutoBroadcast::None),
    ] {
        let mut case = OvCase::new(dt, &a, &b, mode, 21);
        case.out_on_a = true;
        let (_, r) = case.check_on(&ctx).await;
        assert!(r.a_in_place, "{dt} {a:?} {b:?}: {r:?}");
    }
}

#[wasm_bindgen_test]
async fn inconsistent_shapes_are_refused() {
    let ctx = ctx().await;
    for (a, b, mode) in [
        (vec![1, 3], vec![3], AutoBroadcast::None),
        (vec![3], vec![4], NUMPY),
        (vec![2, 0], vec![3], NUMPY),
        (vec![8, 1, 6, 1], vec![7, 1, 5], pdpd(1)),
        (vec![2, 3], vec![1, 2, 3], pdpd(-1)),
        (vec![2, 3, 4, 5], vec![3, 1], pdpd(-2)),
    ] {
        let d = BitwiseXorDesc::new(DataType::I32, &a, &b).with_broadcast(mode);
        let e = OvBinary::new(&ctx, &d).unwrap_err();
        assert_eq!(e.rule(), "shape_inconsistent", "{a:?} {b:?} {mode}");
        assert!(
            e.to_string()
                .starts_with("Argument shapes are inconsistent."),
            "{e}"
        );
    }
    let d = BitwiseXorDesc::new(DataType::U8, &[2], &[2]).with_broadcast(AutoBroadcast::Explicit);
    let e = OvBinary::new(&ctx, &d).unwrap_err();
    assert_eq!(e.rule(), "unsupported_broadcast", "{e}");
    let e = OvBinary::new(&ctx, &BitwiseXorDesc::new(DataType::F32, &[2], &[2])).unwrap_err();
    assert_eq!(e.rule(), "unsupported_dtype", "{e}");
}
