//! Tensors beyond one storage binding, and batches of many calls.

use std::sync::OnceLock;

use gpu_xor::{
    AutoBroadcast, Bindings, BitXorDesc, BitwiseXorDesc, Context, ContextOptions, DataType,
    DmlBinary, OvBinary, TensorBinding, TensorDesc,
};

use gpu_xor::inspect::KernelKind;

use crate::common::{
    Check, DmlCase, Operator, buffer, ctx, few_groups, on_suite_device, random_bytes,
};

/// WebGPU's default `max_storage_buffer_binding_size`: the windows of these tests.
const WINDOW: u64 = 128 << 20;

/// The suite's device with windows of at most [`WINDOW`] bytes, whatever the adapter binds
/// at once (NVIDIA's Vulkan driver binds a whole 4 GiB buffer): the tensors of these tests
/// are larger, so they cross window seams on every adapter.
fn windowed() -> &'static Context {
    static CTX: OnceLock<Context> = OnceLock::new();
    CTX.get_or_init(|| {
        on_suite_device(&ContextOptions {
            max_window_bytes: Some(WINDOW),
            ..ContextOptions::default()
        })
    })
}

/// The largest tensor this device can hold for a "beyond one binding" test: `wanted` bytes,
/// or less where `max_buffer_size` is smaller (WebGPU's default limits allow 256 MiB). The
/// tests ask for at least 160 MiB, above [`windowed`]'s windows on any device that WebGPU's
/// default limits describe.
fn large_size(ctx: &Context, wanted: u64) -> u64 {
    let limits = ctx.device().limits();
    let size = wanted.min(limits.max_buffer_size - 16384);
    assert!(
        size > ctx.max_window_bytes(),
        "the device's buffers ({} bytes) are no larger than one {}-byte window",
        limits.max_buffer_size,
        ctx.max_window_bytes()
    );
    size - size % 4096
}

/// Compares a large read-back with what is expected; reports the first difference only.
fn same(what: &str, got: &[u8], want: &[u8]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(i) = got.iter().zip(want).position(|(g, w)| g != w) {
        panic!(
            "{what}: byte {i}: got {:#04x}, expected {:#04x}",
            got[i], want[i]
        );
    }
}

#[test]
fn bit_xor_u8_300_mib_is_exact_and_leaves_its_surroundings() {
    let ctx = windowed();
    let n = large_size(ctx, 300 << 20);
    let (lead, tail) = (4096u64 + 16, 4096u64);
    let a = random_bytes(1, n as usize);
    let b = random_bytes(2, n as usize);
    let mut around = random_bytes(3, (lead + n + tail) as usize);
    let ga = buffer(ctx, &a);
    let gb = buffer(ctx, &b);
    let go = buffer(ctx, &around);
    let op = DmlBinary::new(ctx, &BitXorDesc::packed(DataType::U8, &[n as u32])).unwrap();
    let r = op
        .run(&Bindings::new(
            TensorBinding::new(&ga),
            TensorBinding::new(&gb),
            TensorBinding::range(&go, lead, n),
        ))
        .unwrap();
    // One dispatch per window at least (three at 300 MiB in 128 MiB bindings).
    assert!(
        r.dispatches.len() as u64 >= n.div_ceil(ctx.max_window_bytes()),
        "{r:?}"
    );
    for (i, byte) in around[lead as usize..(lead + n) as usize]
        .iter_mut()
        .enumerate()
    {
        *byte = a[i] ^ b[i];
    }
    same(
        "output buffer",
        &ctx.read_buffer(&go, 0, lead + n + tail).unwrap(),
        &around,
    );
}

#[test]
fn in_place_u32_beyond_one_binding() {
    let ctx = windowed();
    let n = large_size(ctx, 160 << 20);
    let a = random_bytes(4, n as usize + 64);
    let b = random_bytes(5, n as usize);
    let ga = buffer(ctx, &a);
    let gb = buffer(ctx, &b);
    let op = DmlBinary::new(ctx, &BitXorDesc::packed(DataType::U32, &[(n / 4) as u32])).unwrap();
    let on_a = TensorBinding::range(&ga, 32, n);
    let r = op
        .run(&Bindings::new(on_a, TensorBinding::new(&gb), on_a))
        .unwrap();
    assert!(r.a_in_place && r.dispatches.len() >= 2, "{r:?}");
    let mut want = a.clone();
    for i in 0..n as usize {
        want[32 + i] ^= b[i];
    }
    same(
        "in-place buffer",
        &ctx.read_buffer(&ga, 0, n + 64).unwrap(),
        &want,
    );
}

#[test]
fn row_broadcast_beyond_one_binding() {
    let ctx = windowed();
    let cols = 4096usize;
    let rows = (large_size(ctx, 160 << 20) as usize) / cols;
    let a = random_bytes(6, rows * cols);
    let b = random_bytes(7, cols);
    let ga = buffer(ctx, &a);
    let gb = buffer(ctx, &b);
    let mut around = random_bytes(8, rows * cols + 512);
    let go = buffer(ctx, &around);
    let op = OvBinary::new(
        ctx,
        &BitwiseXorDesc::new(DataType::U8, &[rows, cols], &[cols])
            .with_broadcast(AutoBroadcast::Numpy),
    )
    .unwrap();
    let r = op
        .run(&Bindings::new(
            TensorBinding::new(&ga),
            TensorBinding::new(&gb),
            TensorBinding::range(&go, 256, (rows * cols) as u64),
        ))
        .unwrap();
    assert!(r.dispatches.len() >= 2, "{r:?}");
    for i in 0..rows * cols {
        around[256 + i] = a[i] ^ b[i % cols];
    }
    same(
        "broadcast output",
        &ctx.read_buffer(&go, 0, around.len() as u64).unwrap(),
        &around,
    );
}

/// A thousand small calls in one batch: one metadata buffer, one bind group, one pass, and
/// the same bytes as a thousand separate runs.
#[test]
fn a_thousand_calls_in_one_batch() {
    let ctx = ctx();
    let calls = 1000usize;
    let len = 4096usize;
    let a = random_bytes(9, calls * len);
    let b = random_bytes(10, calls * len);
    let (ga, gb) = (buffer(ctx, &a), buffer(ctx, &b));
    let batched = buffer(ctx, &vec![0x5au8; calls * len]);
    let single = buffer(ctx, &vec![0x5au8; calls * len]);
    // Alternate types and strides, so that several pipelines and plans share the batch.
    let u32_op =
        DmlBinary::new(ctx, &BitXorDesc::packed(DataType::U32, &[(len / 4) as u32])).unwrap();
    let t = TensorDesc::new(DataType::U8, &[64, 64]);
    let bcast_op = DmlBinary::new(
        ctx,
        &BitXorDesc::new(t.clone(), t.clone().with_strides(&[0, 1]), t),
    )
    .unwrap();
    let mut batch = ctx.batch();
    for i in 0..calls {
        let at = (i * len) as u64;
        let bind = |out| {
            Bindings::new(
                TensorBinding::range(&ga, at, len as u64),
                TensorBinding::range(&gb, at, len as u64),
                TensorBinding::range(out, at, len as u64),
            )
        };
        if i % 3 == 0 {
            batch.push(&bcast_op, &bind(&batched)).unwrap();
            bcast_op.run(&bind(&single)).unwrap();
        } else {
            batch.push(&u32_op, &bind(&batched)).unwrap();
            u32_op.run(&bind(&single)).unwrap();
        }
    }
    assert_eq!(batch.len(), calls);
    assert_eq!(batch.bind_group_count(), 1);
    // Neighbouring calls of one operator share dispatches; a change of operator starts one.
    assert!(batch.dispatch_count() <= 1 + 2 * calls / 3, "{batch:?}");
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    batch.record(&mut encoder).unwrap();
    ctx.queue().submit([encoder.finish()]);
    let got = ctx.read_buffer(&batched, 0, (calls * len) as u64).unwrap();
    let want = ctx.read_buffer(&single, 0, (calls * len) as u64).unwrap();
    same("batched against single runs", &got, &want);
    // And against the host: the u32 calls are plain XOR, the others repeat B's first row.
    for i in (0..calls).step_by(97) {
        for j in 0..len {
            let x = if i % 3 == 0 {
                a[i * len + j] ^ b[i * len + j % 64]
            } else {
                a[i * len + j] ^ b[i * len + j]
            };
            assert_eq!(got[i * len + j], x, "call {i} byte {j}");
        }
    }
}

/// Independent calls of one shape share dispatches; a call that reads an earlier call's
/// output starts a new one, and sees that output.
#[test]
fn batches_merge_independent_calls_and_order_dependent_ones() {
    let ctx = ctx();
    let (calls, len) = (600usize, 256usize);
    let a = random_bytes(21, calls * len);
    let b = random_bytes(22, calls * len);
    let (ga, gb) = (buffer(ctx, &a), buffer(ctx, &b));
    let out = buffer(ctx, &vec![0u8; calls * len]);
    let op = DmlBinary::new(ctx, &BitXorDesc::packed(DataType::U8, &[len as u32])).unwrap();
    fn at(buf: &wgpu::Buffer, i: usize) -> TensorBinding<'_> {
        TensorBinding::range(buf, (i * 256) as u64, 256)
    }
    let mut batch = ctx.batch();
    for i in 0..calls {
        batch
            .push(&op, &Bindings::new(at(&ga, i), at(&gb, i), at(&out, i)))
            .unwrap();
    }
    assert_eq!(batch.dispatch_count(), calls.div_ceil(64), "{batch:?}");
    // A chain: slot i + 1 of `out` becomes slot i of `out` XOR slot i + 1 of B, in order.
    for i in 0..calls - 1 {
        batch
            .push(
                &op,
                &Bindings::new(at(&out, i), at(&gb, i + 1), at(&out, i + 1)),
            )
            .unwrap();
    }
    assert!(batch.dispatch_count() >= calls, "{batch:?}");
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    batch.record(&mut encoder).unwrap();
    ctx.queue().submit([encoder.finish()]);
    let mut want: Vec<u8> = a.iter().zip(&b).map(|(x, y)| x ^ y).collect();
    for i in 0..calls - 1 {
        for j in 0..len {
            want[(i + 1) * len + j] = want[i * len + j] ^ b[(i + 1) * len + j];
        }
    }
    same(
        "chained batch",
        &ctx.read_buffer(&out, 0, (calls * len) as u64).unwrap(),
        &want,
    );
}

#[test]
fn batches_refuse_operators_of_other_contexts() {
    let ctx = ctx();
    let other = Context::new(ctx.device().clone(), ctx.queue().clone());
    let op = DmlBinary::new(&other, &BitXorDesc::packed(DataType::U8, &[4])).unwrap();
    let t = gpu_xor::Tensor::zeros(ctx, DataType::U8, &[4]).unwrap();
    let mut batch = ctx.batch();
    let e = batch
        .push(&op, &Bindings::new(t.binding(), t.binding(), t.binding()))
        .unwrap_err();
    assert_eq!(e.rule(), "context_mismatch");
    assert!(batch.is_empty());
}

/// A device whose grids are at most 3 workgroups a side holds at most 9 workgroups of 256
/// invocations in a flat grid: calls of more units than that on every kernel family (the
/// contiguous, rows, shifted-rows, gather, scatter and tile kernels), each exact, and every
/// dispatch within the device's grid (wgpu refuses the command buffer otherwise).
#[test]
fn every_kernel_keeps_its_grids_within_a_small_device_limit() {
    let ctx = few_groups();
    // Windows of 9 workgroups' units: 256 bytes each.
    assert_eq!(ctx.max_window_bytes(), 9 * 256);
    let mut reached = Vec::new();
    for dt in [DataType::U8, DataType::U32] {
        let w = dt.size_in_bytes();
        let packed = |sizes: &[u32]| TensorDesc::new(dt, sizes);
        let strided = |sizes: &[u32], strides: &[u32]| packed(sizes).with_strides(strides);
        // Each with 10,000 units or more: 16-byte blocks, (row, block) pairs, runs or
        // elements.
        let row = 160 / w;
        let cases = [
            (
                packed(&[640, 256]),
                packed(&[640, 256]),
                packed(&[640, 256]),
            ),
            (
                packed(&[2000, row]),
                packed(&[2000, row]),
                strided(&[2000, row], &[row + 16 / w, 1]),
            ),
            (
                packed(&[2000, row]),
                packed(&[2000, row]),
                strided(&[2000, row], &[row + 1, 1]),
            ),
            (strided(&[20000], &[3]), packed(&[20000]), packed(&[20000])),
            (packed(&[20000]), packed(&[20000]), strided(&[20000], &[2])),
            // 40 transposes of 32 x 32: a window's batch of two matrices of bytes runs on
            // the tile kernel (a matrix of words is more than a window, whose pieces the
            // gather kernel runs).
            (
                strided(&[40, 32, 32], &[1024, 1, 32]),
                packed(&[40, 32, 32]),
                packed(&[40, 32, 32]),
            ),
        ];
        for (seed, (a, b, out)) in cases.into_iter().enumerate() {
            let case = DmlCase::distinct(Operator::BitXor, a, b, out, seed as u64);
            reached.extend(case.check_on(ctx).dispatches);
        }
    }
    reached.sort();
    reached.dedup();
    for family in [
        &[KernelKind::Contiguous][..],
        &[KernelKind::Rows],
        &[KernelKind::ShiftedRows],
        &[KernelKind::Gather],
        &[KernelKind::Scatter, KernelKind::Spaced],
        &[KernelKind::Tile, KernelKind::BlockTile],
    ] {
        assert!(
            family.iter().any(|k| reached.contains(k)),
            "no call ran {family:?}: {reached:?}"
        );
    }
}
