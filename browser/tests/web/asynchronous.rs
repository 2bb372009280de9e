//! The asynchronous forms in the browser: `run_async`, `submit`, `wait_async`, `check_async`
//! and the `to_*_async` read-backs; faults found only asynchronously are typed errors.

use gpu_xor::{
    AutoBroadcast, Bindings, BitXorDesc, BitwiseXorDesc, DataType, DmlBinary, Error,
    LogicalXorDesc, OvBinary, Tensor, TensorBinding,
};
use gpu_xor_browser::{ctx, random_bytes};
use gpu_xor_testkit::engine;
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
async fn typed_read_backs_on_every_type() {
    let ctx = ctx().await;
    for (k, dt) in DataType::DIRECTML.into_iter().enumerate() {
        let width = dt.size_in_bytes() as usize;
        let a = random_bytes(k as u64, 37 * width);
        let b = random_bytes(k as u64 + 100, 37 * width);
        let ta = Tensor::from_bytes(&ctx, dt, &[37], &a).unwrap();
        let tb = Tensor::from_bytes(&ctx, dt, &[37], &b).unwrap();
        let got = ctx
            .bit_xor(&ta, &tb)
            .unwrap()
            .to_bytes_async()
            .await
            .unwrap();
        let want: Vec<u8> = a.iter().zip(&b).map(|(x, y)| x ^ y).collect();
        assert_eq!(got, want, "{dt}");
    }
    let a = Tensor::from_slice(&ctx, &[3], &[1i64, -1, i64::MIN]).unwrap();
    let b = Tensor::from_slice(&ctx, &[3], &[-1i64, -1, i64::MAX]).unwrap();
    let want: Vec<i64> = vec![1 ^ -1, 0, i64::MIN ^ i64::MAX];
    assert_eq!(
        ctx.bit_xor(&a, &b)
            .unwrap()
            .to_vec_async::<i64>()
            .await
            .unwrap(),
        want
    );
    // Asking for the wrong element type is refused before anything is copied.
    let e = a.to_vec_async::<u64>().await.unwrap_err();
    assert_eq!(e.rule(), "tensor_type_mismatch", "{e}");
    assert_eq!(
        a.to_bools_async().await.unwrap_err().rule(),
        "tensor_type_mismatch"
    );
    let z = Tensor::zeros(&ctx, DataType::U16, &[5]).unwrap();
    assert_eq!(z.to_vec_async::<u16>().await.unwrap(), [0; 5]);
}

#[wasm_bindgen_test]
async fn run_async_submit_and_wait_async() {
    let ctx = ctx().await;
    let n = 1000usize;
    let a = random_bytes(1, 2 * n);
    let b = random_bytes(2, 2 * n);
    let want: Vec<u8> = a.iter().zip(&b).map(|(x, y)| x ^ y).collect();
    let ga = engine::storage_buffer(&ctx, "a", &a);
    let gb = engine::storage_buffer(&ctx, "b", &b);
    let op = DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::U16, &[n as u32])).unwrap();

    let out = engine::storage_buffer(&ctx, "out", &vec![0xEE; 2 * n + 64]);
    let bindings = Bindings::new(
        TensorBinding::new(&ga),
        TensorBinding::new(&gb),
        TensorBinding::range(&out, 32, 2 * n as u64),
    );
    op.run_async(&bindings).await.unwrap();
    let got = ctx.read_buffer_async(&out, 0, out.size()).await.unwrap();
    assert!(
        got[..32]
            .iter()
            .chain(&got[32 + 2 * n..])
            .all(|&x| x == 0xEE)
    );
    assert_eq!(&got[32..32 + 2 * n], &want[..]);

    // Submitted, then waited for: the bytes are there when wait_async returns.
    let out2 = engine::storage_buffer(&ctx, "out2", &vec![0; 2 * n]);
    op.submit(&Bindings::new(
        TensorBinding::new(&ga),
        TensorBinding::new(&gb),
        TensorBinding::new(&out2),
    ))
    .unwrap();
    ctx.wait_async().await.unwrap();
    ctx.check_async().await.unwrap();
    assert_eq!(
        ctx.read_buffer_async(&out2, 0, 2 * n as u64).await.unwrap(),
        want
    );

    // The other two operators through run_async.
    let lop = DmlBinary::new(&ctx, &LogicalXorDesc::packed(DataType::U8, &[2 * n as u32])).unwrap();
    let out3 = engine::storage_buffer(&ctx, "out3", &vec![7; 2 * n]);
    lop.run_async(&Bindings::new(
        TensorBinding::new(&ga),
        TensorBinding::new(&gb),
        TensorBinding::new(&out3),
    ))
    .await
    .unwrap();
    let got = ctx.read_buffer_async(&out3, 0, 2 * n as u64).await.unwrap();
    for i in 0..2 * n {
        let expected =
            gpu_xor::reference::logical_xor_element(DataType::U8, a[i].into(), b[i].into());
        assert_eq!(u64::from(got[i]), expected, "element {i}");
    }
    let bop = OvBinary::new(
        &ctx,
        &BitwiseXorDesc::new(DataType::U8, &[n / 10, 20], &[20])
            .with_broadcast(AutoBroadcast::Numpy),
    )
    .unwrap();
    let gb20 = engine::storage_buffer(&ctx, "b20", &b[..20]);
    let out4 = engine::storage_buffer(&ctx, "out4", &vec![0; 2 * n]);
    bop.run_async(&Bindings::new(
        TensorBinding::new(&ga),
        TensorBinding::new(&gb20),
        TensorBinding::new(&out4),
    ))
    .await
    .unwrap();
    let got = ctx.read_buffer_async(&out4, 0, 2 * n as u64).await.unwrap();
    for i in 0..2 * n {
        assert_eq!(got[i], a[i] ^ b[i % 20], "element {i}");
    }
}

/// A buffer destroyed before the call is a typed error, not a panic or a silent success; the
/// context goes on working.
#[wasm_bindgen_test]
async fn destroyed_buffer_is_a_typed_error() {
    let ctx = ctx().await;
    let a = engine::storage_buffer(&ctx, "a", &[1; 64]);
    let b = engine::storage_buffer(&ctx, "b", &[2; 64]);
    let out = engine::storage_buffer(&ctx, "out", &[3; 64]);
    let op = DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::U32, &[16])).unwrap();
    b.destroy();
    let bindings = Bindings::new(
        TensorBinding::new(&a),
        TensorBinding::new(&b),
        TensorBinding::new(&out),
    );
    // The browser answers the submission's error scope later: the submit itself returns, and
    // the refusal comes back, typed, from the next asynchronous call, once.
    op.submit(&bindings)
        .expect("a browser reports the refusal later");
    let e = ctx.check_async().await.unwrap_err();
    assert!(
        matches!(&e, Error::Wgpu { call: "Queue::submit", source }
            if source.message().contains("destroyed")
                && source.downcast_ref::<wgpu::Error>().is_some()),
        "{e:?}"
    );
    ctx.check_async().await.unwrap();
    // run_async waits and reports it too.
    let e = op.run_async(&bindings).await.unwrap_err();
    assert!(
        matches!(
            e,
            Error::Wgpu {
                call: "Queue::submit",
                ..
            }
        ),
        "{e:?}"
    );
    ctx.check_async().await.unwrap();
    assert_eq!(ctx.read_buffer_async(&out, 0, 64).await.unwrap(), [3; 64]);
}
