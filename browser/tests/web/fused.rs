//! Fused expressions in the browser: the expressions users write (int4 unpack, Hamming
//! distance, a masked blend with a broadcast mask, a strided permuted input) run through
//! `run_async`, and a prepared fused call recorded twice, every byte of every buffer against
//! the reference of the expression's nodes.

use gpu_xor::reference;
use gpu_xor::{
    Context, DataType, Expr, ExprBindings, ExprDesc, Fused, Operator, TensorBinding, TensorDesc,
};
use gpu_xor_browser::{ctx, random_bytes};
use gpu_xor_testkit::engine;
use wasm_bindgen_test::wasm_bindgen_test;

/// Runs `desc` on `inputs` into an output buffer of `output_len` random bytes; returns what
/// the buffer holds and what the reference says it should.
async fn run(
    ctx: &Context,
    desc: &ExprDesc,
    inputs: &[Vec<u8>],
    output_len: usize,
) -> (Vec<u8>, Vec<u8>) {
    let fused = Fused::new(ctx, desc).unwrap();
    let buffers: Vec<wgpu::Buffer> = inputs
        .iter()
        .map(|i| engine::storage_buffer(ctx, "input", i))
        .collect();
    let initial = random_bytes(99, output_len);
    let out = engine::storage_buffer(ctx, "out", &initial);
    let bindings: Vec<TensorBinding> = buffers.iter().map(TensorBinding::new).collect();
    fused
        .run_async(&ExprBindings::new(&bindings, TensorBinding::new(&out)))
        .await
        .unwrap();
    let got = ctx
        .read_buffer_async(&out, 0, output_len as u64)
        .await
        .unwrap();
    let mut want = initial;
    let refs: Vec<&[u8]> = inputs.iter().map(|v| v.as_slice()).collect();
    reference::expression(desc, ctx.feature_level(), &refs, &mut want).unwrap();
    for (k, (buffer, bytes)) in buffers.iter().zip(inputs).enumerate() {
        let kept = ctx
            .read_buffer_async(buffer, 0, bytes.len() as u64)
            .await
            .unwrap();
        assert_eq!(&kept, bytes, "input {k} changed");
    }
    (got, want)
}

#[wasm_bindgen_test]
async fn the_expressions_users_write() {
    let ctx = ctx().await;

    // int4 unpack: (w >> 4) & 0xF.
    let n = 4100u32;
    let mut e = Expr::new();
    let w = e.input(TensorDesc::new(DataType::U8, &[n]));
    let four = e.constant(DataType::U8, 4);
    let mask = e.constant(DataType::U8, 0xF);
    let high = e.apply(Operator::BitShiftRight, &[w, four]);
    let nibble = e.apply(Operator::BitAnd, &[high, mask]);
    let desc = e.output(nibble, TensorDesc::new(DataType::U8, &[n]));
    let (got, want) = run(&ctx, &desc, &[random_bytes(1, n as usize)], n as usize).await;
    assert_eq!(got, want, "int4 unpack");

    // Hamming distance: bit_count(a ^ b), u64 into u8.
    let n = 1001u32;
    let mut e = Expr::new();
    let a = e.input(TensorDesc::new(DataType::U64, &[n]));
    let b = e.input(TensorDesc::new(DataType::U64, &[n]));
    let x = e.apply(Operator::BitXor, &[a, b]);
    let c = e.bit_count(x, DataType::U8);
    let desc = e.output(c, TensorDesc::new(DataType::U8, &[n]).with_total_size(1004));
    let inputs = [
        random_bytes(2, 8 * n as usize),
        random_bytes(3, 8 * n as usize),
    ];
    let (got, want) = run(&ctx, &desc, &inputs, 1004).await;
    assert_eq!(got, want, "Hamming distance");

    // A masked blend, the mask a row broadcast down a matrix, A read transposed.
    let (rows, cols) = (24u32, 40u32);
    let t = TensorDesc::new(DataType::U16, &[rows, cols]);
    let mut e = Expr::new();
    let a = e.input(t.clone().with_strides(&[1, rows]));
    let b = e.input(t.clone());
    let m = e.input(TensorDesc::new(DataType::U16, &[cols]));
    let am = e.apply(Operator::BitAnd, &[a, m]);
    let not_m = e.apply(Operator::BitNot, &[m]);
    let bm = e.apply(Operator::BitAnd, &[b, not_m]);
    let r = e.apply(Operator::BitOr, &[am, bm]);
    let desc = e.output(r, t);
    let len = (2 * rows * cols) as usize;
    let inputs = [
        random_bytes(4, len),
        random_bytes(5, len),
        random_bytes(6, 2 * cols as usize),
    ];
    let (got, want) = run(&ctx, &desc, &inputs, len).await;
    assert_eq!(got, want, "masked blend");
}

#[wasm_bindgen_test]
async fn a_prepared_fused_call_records_twice() {
    let ctx = ctx().await;
    let n = 2048u32;
    let t = TensorDesc::new(DataType::U32, &[n]);
    let mut e = Expr::new();
    let a = e.input(t.clone());
    let k = e.constant(DataType::U32, 0x5a5a_5a5a);
    let x = e.apply(Operator::BitXor, &[a, k]);
    let fused = Fused::new(&ctx, &e.output(x, t)).unwrap();
    let bytes = random_bytes(7, 4 * n as usize);
    let buffer = engine::storage_buffer(&ctx, "in place", &bytes);
    // In place, twice: the bytes come back.
    let call = fused
        .prepare(&ExprBindings::new(
            &[TensorBinding::new(&buffer)],
            TensorBinding::new(&buffer),
        ))
        .unwrap();
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    call.record(&mut encoder).unwrap();
    call.record(&mut encoder).unwrap();
    ctx.queue().submit([encoder.finish()]);
    let got = ctx
        .read_buffer_async(&buffer, 0, bytes.len() as u64)
        .await
        .unwrap();
    assert_eq!(got, bytes);
}
