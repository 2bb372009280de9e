//! Refused calls are typed errors that name their rule, record nothing and change no byte of
//! any buffer.

use gpu_xor::{DataType, Error, TensorDesc, TensorName};
use gpu_xor_browser::{DmlCase, DmlOp, ctx, place};
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
async fn refused_bindings_record_nothing() {
    let ctx = ctx().await;
    // The output overlaps A partly.
    let case = DmlCase::packed(DmlOp::BitXor, DataType::U32, &[16], 1).placed(
        512,
        [(0, 0), (1, 0), (0, 16)],
        1,
    );
    case.check_error_on(&ctx, "partial_overlap").await;

    // B bound at an offset that is not a multiple of 16.
    let mut case = DmlCase::packed(DmlOp::BitXor, DataType::U32, &[4], 2);
    case.places[1] = place(1, 8);
    let e = case.check_error_on(&ctx, "binding_offset_misaligned").await;
    assert_eq!(
        e,
        Error::BindingOffsetMisaligned {
            tensor: TensorName::B,
            offset: 8,
            required: 16
        }
    );

    // In place with a different description of the same range.
    let t = TensorDesc::new(DataType::U8, &[2, 3]);
    let mut case = DmlCase::distinct(
        DmlOp::BitXor,
        t.clone().with_strides(&[4, 1]),
        t.clone(),
        t.clone().with_strides(&[3, 1]).with_total_size(8),
        3,
    );
    case.places[2] = case.places[0];
    case.check_error_on(&ctx, "alias_desc_mismatch").await;

    // The output's range runs past the end of its buffer.
    let mut case = DmlCase::packed(DmlOp::LogicalXor, DataType::U8, &[64], 4);
    case.buffers[2].truncate(64);
    case.places[2] = place(2, 16);
    case.check_error_on(&ctx, "binding_too_small").await;
}

#[wasm_bindgen_test]
async fn refused_descriptions_name_their_rule() {
    let ctx = ctx().await;
    let u8s = |s: &[u32]| TensorDesc::new(DataType::U8, s);
    for (a, b, out, rule) in [
        (u8s(&[2, 3]), u8s(&[1, 3]), u8s(&[2, 3]), "shape_mismatch"),
        (u8s(&[6]), u8s(&[2, 3]), u8s(&[6]), "rank_mismatch"),
        (
            u8s(&[2, 3]),
            u8s(&[2, 3]),
            u8s(&[2, 3]).with_strides(&[0, 1]),
            "output_overlap",
        ),
        (
            u8s(&[4]),
            u8s(&[4]).with_strides(&[3]).with_total_size(8),
            u8s(&[4]),
            "total_bytes_too_small",
        ),
        (
            u8s(&[1; 9]),
            u8s(&[1; 9]),
            u8s(&[1; 9]),
            "rank_out_of_range",
        ),
        (
            u8s(&[4]),
            TensorDesc::new(DataType::I8, &[4]),
            u8s(&[4]),
            "dtype_mismatch",
        ),
    ] {
        let case = DmlCase {
            op: DmlOp::BitXor,
            a,
            b,
            out,
            places: [place(0, 0), place(1, 0), place(2, 0)],
            buffers: (0..3)
                .map(|k| gpu_xor_browser::random_bytes(k, 256))
                .collect(),
        };
        case.check_error_on(&ctx, rule).await;
    }
}
