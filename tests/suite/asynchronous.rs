//! The asynchronous forms: `run_async`, `submit`, `wait_async`, `check_async` and the
//! `to_*_async` read-backs give what the blocking forms give, on every type, and complete on
//! any executor. (That nothing outside the native-only blocking wrappers waits is the build's
//! to keep: clippy's `disallowed-methods` in `clippy.toml`.)

use futures_util::future::join_all;
use gpu_xor::{
    AutoBroadcast, Bindings, BitXorDesc, BitwiseXorDesc, Context, DataType, DmlBinary, Error,
    LogicalXorDesc, OvBinary, Tensor, TensorBinding, TensorName,
};

use crate::common::{buffer, ctx, random_bytes};

/// Random elements of `dt` (as bytes) and their XOR by the reference rule: bit patterns
/// pass through whatever the type.
fn xor_case(dt: DataType, n: usize, seed: u64) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let width = dt.size_in_bytes() as usize;
    let a = random_bytes(seed, n * width);
    let b = random_bytes(seed ^ 0x77, n * width);
    let want = a.iter().zip(&b).map(|(x, y)| x ^ y).collect();
    (a, b, want)
}

#[test]
fn async_read_backs_match_the_blocking_ones_on_every_type() {
    let ctx = ctx();
    pollster::block_on(async {
        for (k, &dt) in DataType::DIRECTML.iter().enumerate() {
            let (a, b, want) = xor_case(dt, 37, k as u64);
            let ta = Tensor::from_bytes(ctx, dt, &[37], &a).unwrap();
            let tb = Tensor::from_bytes(ctx, dt, &[37], &b).unwrap();
            let out = ctx.bit_xor(&ta, &tb).unwrap();
            let got = out.to_bytes_async().await.unwrap();
            assert_eq!(got, want, "{dt:?}");
            assert_eq!(got, out.to_bytes().unwrap(), "{dt:?}");
        }
        let a = Tensor::from_slice(ctx, &[5], &[1u32, 2, 3, 0xFFFF_FFFF, 0]).unwrap();
        let b = Tensor::from_slice(ctx, &[5], &[3u32, 2, 1, 0, 0]).unwrap();
        assert_eq!(
            ctx.bit_xor(&a, &b)
                .unwrap()
                .to_vec_async::<u32>()
                .await
                .unwrap(),
            [2, 0, 2, 0xFFFF_FFFF, 0]
        );
        let p = Tensor::from_bools(ctx, &[4], &[false, true, false, true]).unwrap();
        let q = Tensor::from_bools(ctx, &[4], &[false, false, true, true]).unwrap();
        let x = ctx.bitwise_xor(&p, &q, AutoBroadcast::None).unwrap();
        assert_eq!(
            x.to_bools_async().await.unwrap(),
            [false, true, true, false]
        );
        assert_eq!(x.to_bools_async().await.unwrap(), x.to_bools().unwrap());
        // A type mismatch is refused before anything is copied.
        let e = x.to_vec_async::<u8>().await.unwrap_err();
        assert!(
            matches!(
                e,
                Error::TensorTypeMismatch {
                    actual: DataType::Bool,
                    requested: DataType::U8
                }
            ),
            "{e}"
        );
        assert_eq!(
            a.to_bools_async().await.unwrap_err().rule(),
            "tensor_type_mismatch"
        );
    });
}

#[test]
fn run_async_and_submit_give_what_run_gives() {
    let ctx = ctx();
    pollster::block_on(async {
        let n = 1000usize;
        let (a, b, want) = xor_case(DataType::U16, n, 9);
        let gpu: Vec<wgpu::Buffer> = [&a, &b, &vec![0u8; 2 * n]]
            .iter()
            .map(|bytes| buffer(ctx, bytes))
            .collect();
        let bindings = Bindings::new(
            TensorBinding::new(&gpu[0]),
            TensorBinding::new(&gpu[1]),
            TensorBinding::new(&gpu[2]),
        );
        let op = DmlBinary::new(ctx, &BitXorDesc::packed(DataType::U16, &[n as u32])).unwrap();
        let by_run = op.run(&bindings).unwrap();
        let after_run = ctx.read_buffer(&gpu[2], 0, 2 * n as u64).unwrap();
        assert_eq!(after_run, want);

        ctx.queue().write_buffer(&gpu[2], 0, &vec![0u8; 2 * n]);
        let by_async = op.run_async(&bindings).await.unwrap();
        assert_eq!(by_async, by_run);
        // run_async has waited: the device has nothing left, and the bytes are there.
        assert_eq!(
            ctx.read_buffer_async(&gpu[2], 0, 2 * n as u64)
                .await
                .unwrap(),
            want
        );

        ctx.queue().write_buffer(&gpu[2], 0, &vec![0u8; 2 * n]);
        assert_eq!(op.submit(&bindings).unwrap(), by_run);
        ctx.wait_async().await.unwrap();
        ctx.check_async().await.unwrap();
        assert_eq!(
            ctx.read_buffer_async(&gpu[2], 0, 2 * n as u64)
                .await
                .unwrap(),
            want
        );

        // LOGICAL_XOR over the same bytes as 8-bit booleans: nonzero is true, out is 0 or 1.
        let logical =
            DmlBinary::new(ctx, &LogicalXorDesc::packed(DataType::U8, &[2 * n as u32])).unwrap();
        logical.run_async(&bindings).await.unwrap();
        let truth: Vec<u8> = a
            .iter()
            .zip(&b)
            .map(|(x, y)| u8::from((*x != 0) != (*y != 0)))
            .collect();
        assert_eq!(
            ctx.read_buffer_async(&gpu[2], 0, 2 * n as u64)
                .await
                .unwrap(),
            truth
        );
        let bitwise = OvBinary::new(ctx, &BitwiseXorDesc::new(DataType::U16, &[n], &[n]))
            .unwrap()
            .run_async(&bindings)
            .await
            .unwrap();
        assert_eq!(bitwise.dispatches, by_run.dispatches);
    });
}

#[test]
fn many_reads_in_flight_on_one_thread_all_complete() {
    // One executor thread, many futures at once: none may wait inside a poll for another's
    // map, and each gets its own bytes.
    let ctx = ctx();
    let tensors: Vec<(Tensor, Vec<u8>)> = (0..24u64)
        .map(|k| {
            let bytes = random_bytes(k, 4 * (k as usize + 1));
            let t = Tensor::from_bytes(ctx, DataType::U32, &[k as usize + 1], &bytes).unwrap();
            (t, bytes)
        })
        .collect();
    let got = pollster::block_on(join_all(tensors.iter().map(|(t, _)| t.to_bytes_async())));
    for ((_, want), got) in tensors.iter().zip(got) {
        assert_eq!(&got.unwrap(), want);
    }
}

#[test]
fn async_forms_report_faults_as_the_blocking_forms_do() {
    let own = Context::from_env().expect("a device of its own");
    let op = DmlBinary::new(&own, &BitXorDesc::packed(DataType::U32, &[4])).unwrap();
    let a = buffer(&own, &[1; 16]);
    let b = buffer(&own, &[2; 16]);
    // Still mapped from its creation.
    let mapped = own.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("mapped"),
        size: 16,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: true,
    });
    let bindings = Bindings::new(
        TensorBinding::new(&a),
        TensorBinding::new(&b),
        TensorBinding::new(&mapped),
    );
    let e = pollster::block_on(op.run_async(&bindings)).unwrap_err();
    assert!(
        matches!(
            e,
            Error::InvalidBuffer {
                tensor: Some(TensorName::Output),
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(op.submit(&bindings).unwrap_err(), e);
    mapped.unmap();

    let t = Tensor::from_slice(&own, &[4], &[1u32, 2, 3, 4]).unwrap();
    own.device().destroy();
    pollster::block_on(async {
        assert_eq!(
            op.run_async(&bindings).await.unwrap_err().rule(),
            "device_lost"
        );
        assert_eq!(
            t.to_vec_async::<u32>().await.unwrap_err().rule(),
            "device_lost"
        );
        assert_eq!(t.to_bytes_async().await.unwrap_err().rule(), "device_lost");
        assert_eq!(own.wait_async().await.unwrap_err().rule(), "device_lost");
        assert_eq!(own.check_async().await.unwrap_err().rule(), "device_lost");
    });
}
