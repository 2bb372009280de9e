//! Refused calls are typed errors that name their rule, record nothing and change no byte of
//! any buffer.

use gpu_xor::{
    Bindings, BitXorDesc, DataType, DmlBinary, Error, TensorBinding, TensorDesc, TensorName,
};
use gpu_xor_browser::{Check, DmlCase, Operator, ctx, place, random_bytes};
use gpu_xor_testkit::engine;
use gpu_xor_testkit::{OutputLayout, compare_buffers};
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
async fn refused_bindings_record_nothing() {
    let ctx = ctx().await;
    // The output overlaps A partly.
    let case = DmlCase::packed(Operator::BitXor, DataType::U32, &[16], 1).placed(
        512,
        [(0, 0), (1, 0), (0, 16)],
        1,
    );
    case.check_error_on(&ctx, "partial_overlap").await;

    // B bound at an offset that is not a multiple of 16.
    let mut case = DmlCase::packed(Operator::BitXor, DataType::U32, &[4], 2);
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
        Operator::BitXor,
        t.clone().with_strides(&[4, 1]),
        t.clone(),
        t.clone().with_strides(&[3, 1]).with_total_size(8),
        3,
    );
    case.places[2] = case.places[0];
    case.check_error_on(&ctx, "alias_desc_mismatch").await;

    // The output's range runs past the end of its buffer.
    let mut case = DmlCase::packed(Operator::LogicalXor, DataType::U8, &[64], 4);
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
            op: Operator::BitXor,
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

/// A refused push leaves a batch as it was: the calls pushed before it still run, and nothing
/// of the refused one is recorded.
#[wasm_bindgen_test]
async fn a_refused_push_leaves_the_batch_as_it_was() {
    let ctx = ctx().await;
    let names: Vec<String> = ["a", "b", "out"].map(String::from).to_vec();
    let host: Vec<Vec<u8>> = (0..3).map(|k| random_bytes(200 + k, 512)).collect();
    let gpu = engine::upload(&ctx, &names, &host);
    let op = DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::U32, &[16])).unwrap();
    let good = Bindings::new(
        TensorBinding::range(&gpu[0], 0, 64),
        TensorBinding::range(&gpu[1], 0, 64),
        TensorBinding::range(&gpu[2], 0, 64),
    );
    // The output half over A's range.
    let bad = Bindings::new(
        TensorBinding::range(&gpu[0], 256, 64),
        TensorBinding::range(&gpu[1], 256, 64),
        TensorBinding::range(&gpu[0], 288, 64),
    );
    let mut batch = ctx.batch();
    batch.push(&op, &good).unwrap();
    let (len, dispatches) = (batch.len(), batch.dispatch_count());
    let e = batch.push(&op, &bad).unwrap_err();
    assert_eq!(e.rule(), "partial_overlap", "{e}");
    assert_eq!((batch.len(), batch.dispatch_count()), (len, dispatches));
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    batch.record(&mut encoder).unwrap();
    ctx.queue().submit([encoder.finish()]);

    let mut want = host.clone();
    for i in 0..64 {
        want[2][i] = host[0][i] ^ host[1][i];
    }
    let got = engine::read_back(&ctx, &gpu).await.unwrap();
    let out = OutputLayout::packed(2, 0, 4, &[16]);
    if let Err(e) = compare_buffers(&names, &got, &want, Some(&out)) {
        panic!("{e}");
    }
}
