//! Every DirectML operator of the family on every kernel family in the browser, each call
//! compared byte for byte with the reference and its kernel with the one its binary XOR twin
//! runs on the same layout (a NOT reads its input in B's place, so its twin is the XOR of the
//! input with itself); and the OpenVINO family's broadcasts and NOTs.

use gpu_xor::inspect::KernelKind;
use gpu_xor::{AutoBroadcast, DataType, KernelTuning, TensorDesc};
use gpu_xor_browser::{
    Check, CheckOv, DIRECTML, DmlCase, OPENVINO, Operator, OperatorExt, OvCase, ctx, tuned,
};
use wasm_bindgen_test::wasm_bindgen_test;

/// Layouts that reach each kernel: (A, B, Output) over one shape.
fn layouts(dt: DataType) -> Vec<[TensorDesc; 3]> {
    // Rows of 160 elements: long enough for the rows kernel (at least 8 blocks of 16 bytes).
    let t = TensorDesc::new(dt, &[24, 160]);
    let square = TensorDesc::new(dt, &[64, 64]);
    // 62 rows: no whole 16-byte blocks of a column for any width.
    let odd = TensorDesc::new(dt, &[62, 64]);
    vec![
        // Contiguous.
        [t.clone(), t.clone(), t.clone()],
        // Rows: B repeated over rows; shifted rows: padded rows off 16-byte pitches.
        [t.clone(), t.clone().with_strides(&[0, 1]), t.clone()],
        [
            t.clone().with_strides(&[161, 1]),
            t.clone().with_strides(&[161, 1]),
            t.clone(),
        ],
        // Gather: a stepped input.
        [
            t.clone().with_strides(&[320, 2]),
            t.clone().with_strides(&[320, 2]),
            t.clone(),
        ],
        // Block tile, and tile (or, tuned for CPUs, gather): transposed inputs, of whole
        // 16-byte blocks and not.
        [
            square.clone().with_strides(&[1, 64]),
            square.clone().with_strides(&[1, 64]),
            square,
        ],
        [
            odd.clone().with_strides(&[1, 62]),
            odd.clone().with_strides(&[1, 62]),
            odd,
        ],
        // Scatter: every other output element.
        [t.clone(), t.clone(), t.with_strides(&[320, 2])],
    ]
}

#[wasm_bindgen_test]
async fn every_dml_operator_runs_on_every_kernel_as_its_xor_twin() {
    let ctx = ctx().await;
    let mut reached: Vec<KernelKind> = Vec::new();
    for op in DIRECTML {
        // u16 where the operator takes it; BIT_COUNT, whose output is u8 or u32, on u32.
        let dt = if op.logical() {
            DataType::U8
        } else if op.takes(DataType::U16) {
            DataType::U16
        } else {
            DataType::U32
        };
        let twin = if op.logical() {
            Operator::LogicalXor
        } else {
            Operator::BitXor
        };
        for tuning in [KernelTuning::Gpu, KernelTuning::Cpu] {
            let ctx = if tuning == KernelTuning::Gpu {
                ctx.clone()
            } else {
                tuned(tuning).await
            };
            for [a, b, out] in layouts(dt) {
                // A NOT's B is its A; its twin XORs A with itself.
                let b = if op.inputs() == 1 { a.clone() } else { b };
                let mut case = DmlCase::distinct(op, a, b, out, 51).sparse(3);
                if op.inputs() == 1 {
                    case.places[1] = case.places[0];
                }
                let summary = case.check_on(&ctx).await;
                let mut twin_case = case.clone();
                twin_case.op = twin;
                let twin_summary = twin_case.check_on(&ctx).await;
                assert_eq!(
                    summary.dispatches,
                    twin_summary.dispatches,
                    "{op:?} {dt} {tuning:?}\n{}",
                    case.describe()
                );
                reached.extend(summary.dispatches);
            }
        }
    }
    for kernel in [
        KernelKind::Contiguous,
        KernelKind::Rows,
        KernelKind::ShiftedRows,
        KernelKind::Gather,
        KernelKind::Tile,
        KernelKind::BlockTile,
        KernelKind::Scatter,
    ] {
        assert!(reached.contains(&kernel), "no call reached {kernel:?}");
    }
}

#[wasm_bindgen_test]
async fn openvino_family_broadcasts_and_nots() {
    let ctx = ctx().await;
    for op in OPENVINO {
        let dt = if op.boolean_only() {
            DataType::Bool
        } else {
            DataType::I32
        };
        for (a, b) in [(&[33, 40][..], &[40][..]), (&[33, 40][..], &[33, 1][..])] {
            let case = OvCase::new(dt, a, b, AutoBroadcast::Numpy, 52).with_op(op);
            case.check_on(&ctx).await;
        }
        if op.inputs() == 1 {
            let mut case = OvCase::new(dt, &[7, 9], &[1], AutoBroadcast::Numpy, 53).with_op(op);
            case.out_on_a = true;
            case.check_on(&ctx).await;
        }
    }
}
