//! Prepared calls, warm-up and the pipeline cache: what an embedding runtime relies on.
//!
//! Each test that counts objects runs on a device of its own, so that the other tests, which
//! share one device, cannot change the counts. Two witnesses count: the context's own
//! [`gpu_xor::Context::recording_objects`] (every object it makes, even one dropped at once),
//! and wgpu's live-object counters (an object made while recording into an encoder is held by
//! that encoder, so it is still alive when they are read). Operators of every group of the
//! operator table, one-input ones included, run through every check the XOR operators do:
//! warm-up covers every binding of each, on every kernel family.

use gpu_xor::{
    AutoBroadcast, Bindings, BitXorDesc, BitwiseXorDesc, Context, ContextOptions, DataType,
    DmlBinary, DmlBinaryDesc, DmlBinaryOp, DmlUnary, DmlUnaryDesc, DmlUnaryOp, Error,
    LogicalXorDesc, OvBinary, OvBinaryDesc, OvBinaryOp, OvUnary, OvUnaryDesc, OvUnaryOp, Tensor,
    TensorBinding, TensorDesc,
};
use gpu_xor_testkit::engine::AnyOperator;

use crate::common::{buffer, random_bytes};

/// A context on a device of its own.
fn own_context() -> Context {
    Context::from_env().expect("an adapter")
}

/// wgpu's live buffers, bind groups, compute pipelines and shader modules on the device.
fn live(ctx: &Context) -> [isize; 4] {
    let hal = ctx.device().get_internal_counters().hal;
    [
        hal.buffers.read(),
        hal.bind_groups.read(),
        hal.compute_pipelines.read(),
        hal.shader_modules.read(),
    ]
}

fn read(ctx: &Context, b: &wgpu::Buffer) -> Vec<u8> {
    ctx.read_buffer(b, 0, b.size()).unwrap()
}

fn xor(a: &[u8], b: &[u8]) -> Vec<u8> {
    a.iter().zip(b).map(|(x, y)| x ^ y).collect()
}

#[test]
fn recording_a_prepared_call_makes_no_buffer_bind_group_or_pipeline() {
    let ctx = own_context();
    let op = DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::U32, &[1024])).unwrap();
    let (ha, hb) = (random_bytes(1, 4096), random_bytes(2, 4096));
    let (a, b, out) = (
        buffer(&ctx, &ha),
        buffer(&ctx, &hb),
        buffer(&ctx, &[0; 4096]),
    );
    let bindings = Bindings::new(
        TensorBinding::new(&a),
        TensorBinding::new(&b),
        TensorBinding::new(&out),
    );
    let call = op.prepare(&bindings).unwrap();
    assert_eq!(call.summaries().len(), 1);
    assert_eq!(call.dispatch_count(), 1);

    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    call.record(&mut encoder).unwrap();
    let (ours, theirs) = (ctx.recording_objects(), live(&ctx));
    for _ in 0..1000 {
        call.record(&mut encoder).unwrap();
    }
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        for _ in 0..1000 {
            call.record_in_pass(&mut pass).unwrap();
        }
    }
    assert_eq!(ctx.recording_objects(), ours, "recording made objects");
    assert_eq!(live(&ctx), theirs, "wgpu counts new live objects");
    ctx.queue().submit([encoder.finish()]);
    assert_eq!(read(&ctx, &out), xor(&ha, &hb));

    // The witnesses do see what an unprepared recording makes: its record in the context's
    // metadata arena (a buffer of one-shot calls' own, no buffer per call) and its bind
    // group, made by the first call and kept, so that the next nine make none; the kept bind
    // group is alive, held by the context.
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    for _ in 0..10 {
        op.record(&mut encoder, &bindings).unwrap();
    }
    let made = ctx.recording_objects();
    assert_eq!(made.buffers, ours.buffers + 1);
    assert_eq!(made.bind_groups, ours.bind_groups + 1);
    assert_eq!(made.bind_groups_kept, 1);
    assert_eq!(made.metadata_records_pending, 10);
    assert_eq!(made.pipelines, ours.pipelines);
    let now = live(&ctx);
    assert!(
        now[1] > theirs[1],
        "wgpu's counters are off: {theirs:?} -> {now:?}"
    );
    ctx.queue().submit([encoder.finish()]);
}

#[test]
fn a_prepared_batch_records_again_with_nothing_made() {
    let ctx = own_context();
    let op = DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::U8, &[4096])).unwrap();
    let (ha, hb) = (random_bytes(3, 4096 * 100), random_bytes(4, 4096 * 100));
    let (a, b, out) = (
        buffer(&ctx, &ha),
        buffer(&ctx, &hb),
        buffer(&ctx, &vec![0; 4096 * 100]),
    );
    let mut batch = ctx.batch();
    for i in 0..100 {
        let at = i * 4096;
        batch
            .push(
                &op,
                &Bindings::new(
                    TensorBinding::range(&a, at, 4096),
                    TensorBinding::range(&b, at, 4096),
                    TensorBinding::range(&out, at, 4096),
                ),
            )
            .unwrap();
    }
    let prepared = batch.prepare().unwrap();
    assert_eq!(prepared.summaries().len(), 100);
    assert_eq!(prepared.dispatch_count(), batch.dispatch_count());
    drop(batch);
    // The prepared batch keeps its buffers alive.
    drop((a, b));
    // The first recording takes the batch's records to the device (a queue write, which
    // wgpu stages); every recording after it makes nothing.
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    prepared.record(&mut encoder).unwrap();
    let (ours, theirs) = (ctx.recording_objects(), live(&ctx));
    for _ in 0..50 {
        prepared.record(&mut encoder).unwrap();
    }
    assert_eq!(ctx.recording_objects(), ours);
    assert_eq!(live(&ctx), theirs);
    ctx.queue().submit([encoder.finish()]);
    assert_eq!(read(&ctx, &out), xor(&ha, &hb));
}

/// An operator whose tensors each span `bytes`, bound at offsets that are multiples of
/// `step`.
struct Subject {
    name: &'static str,
    make: fn(&Context) -> AnyOperator,
    bytes: u64,
    step: u64,
}

fn dense(a_type: DataType, shape: &[usize], auto_broadcast: AutoBroadcast) -> BitwiseXorDesc {
    BitwiseXorDesc {
        a_type,
        b_type: a_type,
        a_shape: shape.to_vec(),
        b_shape: shape.to_vec(),
        auto_broadcast,
    }
}

/// A description that reaches each kernel family, on each operator, and operators of every
/// group of the table (two-input and one-input, DirectML and OpenVINO) on every kernel
/// family.
const SUBJECTS: [Subject; 17] = [
    Subject {
        name: "contiguous u8",
        make: |ctx| {
            DmlBinary::new(ctx, &BitXorDesc::packed(DataType::U8, &[4096]))
                .unwrap()
                .into()
        },
        bytes: 4096,
        step: 16,
    },
    Subject {
        name: "rows and gather: padded rows of u16",
        make: |ctx| {
            let t = TensorDesc::new(DataType::U16, &[16, 100]).with_strides(&[128, 1]);
            DmlBinary::new(ctx, &BitXorDesc::new(t.clone(), t.clone(), t))
                .unwrap()
                .into()
        },
        bytes: 16 * 128 * 2,
        step: 16,
    },
    Subject {
        name: "tile: transposed u32",
        make: |ctx| {
            let t = TensorDesc::new(DataType::U32, &[64, 64]);
            let a = t.clone().with_strides(&[1, 64]);
            DmlBinary::new(ctx, &BitXorDesc::new(a, t.clone(), t))
                .unwrap()
                .into()
        },
        bytes: 64 * 64 * 4,
        step: 16,
    },
    Subject {
        name: "scatter: strided output of u8",
        make: |ctx| {
            let t = TensorDesc::new(DataType::U8, &[32, 8]).with_strides(&[16, 2]);
            DmlBinary::new(ctx, &LogicalXorDesc::new(t.clone(), t.clone(), t))
                .unwrap()
                .into()
        },
        bytes: 512,
        step: 16,
    },
    Subject {
        name: "broadcast i32",
        make: |ctx| {
            OvBinary::new(ctx, &dense(DataType::I32, &[64, 64], AutoBroadcast::Numpy))
                .unwrap()
                .into()
        },
        bytes: 64 * 64 * 4,
        step: 16,
    },
    Subject {
        name: "contiguous or gather: u8 at offsets of 4",
        make: |ctx| {
            OvBinary::new(ctx, &dense(DataType::U8, &[4096], AutoBroadcast::None))
                .unwrap()
                .into()
        },
        bytes: 4096,
        step: 4,
    },
    Subject {
        name: "BIT_AND contiguous u8",
        make: |ctx| {
            DmlBinary::new(
                ctx,
                &DmlBinaryDesc::packed(DmlBinaryOp::BitAnd, DataType::U8, &[4096]),
            )
            .unwrap()
            .into()
        },
        bytes: 4096,
        step: 16,
    },
    Subject {
        name: "LOGICAL_OR tile: transposed u32",
        make: |ctx| {
            let t = TensorDesc::new(DataType::U32, &[64, 64]);
            let a = t.clone().with_strides(&[1, 64]);
            let desc = DmlBinaryDesc::new(DmlBinaryOp::LogicalOr, a, t.clone(), t);
            DmlBinary::new(ctx, &desc).unwrap().into()
        },
        bytes: 64 * 64 * 4,
        step: 16,
    },
    Subject {
        name: "BIT_NOT contiguous u16",
        make: |ctx| {
            let desc = DmlUnaryDesc::packed(DmlUnaryOp::BitNot, DataType::U16, &[512]);
            DmlUnary::new(ctx, &desc).unwrap().into()
        },
        bytes: 1024,
        step: 16,
    },
    Subject {
        name: "LOGICAL_NOT: padded rows of u8",
        make: |ctx| {
            let t = TensorDesc::new(DataType::U8, &[16, 40]).with_strides(&[48, 1]);
            let desc = DmlUnaryDesc::new(DmlUnaryOp::LogicalNot, t.clone(), t);
            DmlUnary::new(ctx, &desc).unwrap().into()
        },
        bytes: 768,
        step: 16,
    },
    Subject {
        name: "BIT_NOT rows: padded rows of u16",
        make: |ctx| {
            let t = TensorDesc::new(DataType::U16, &[16, 100]).with_strides(&[128, 1]);
            let desc = DmlUnaryDesc::new(DmlUnaryOp::BitNot, t.clone(), t);
            DmlUnary::new(ctx, &desc).unwrap().into()
        },
        bytes: 16 * 128 * 2,
        step: 16,
    },
    Subject {
        name: "BIT_NOT tile: transposed u64",
        make: |ctx| {
            let t = TensorDesc::new(DataType::U64, &[32, 32]);
            let a = t.clone().with_strides(&[1, 32]);
            let desc = DmlUnaryDesc::new(DmlUnaryOp::BitNot, a, t);
            DmlUnary::new(ctx, &desc).unwrap().into()
        },
        bytes: 32 * 32 * 8,
        step: 16,
    },
    Subject {
        name: "LOGICAL_NOT scatter: strided output of u8",
        make: |ctx| {
            let t = TensorDesc::new(DataType::U8, &[32, 8]).with_strides(&[16, 2]);
            let desc = DmlUnaryDesc::new(DmlUnaryOp::LogicalNot, t.clone(), t);
            DmlUnary::new(ctx, &desc).unwrap().into()
        },
        bytes: 512,
        step: 16,
    },
    Subject {
        name: "BitwiseOr broadcast i16",
        make: |ctx| {
            let desc = OvBinaryDesc::new(OvBinaryOp::BitwiseOr, DataType::I16, &[64, 64], &[64]);
            OvBinary::new(ctx, &desc).unwrap().into()
        },
        bytes: 64 * 64 * 2,
        step: 16,
    },
    Subject {
        name: "LogicalAnd bool at offsets of 4",
        make: |ctx| {
            let desc = OvBinaryDesc::new(OvBinaryOp::LogicalAnd, DataType::Bool, &[4096], &[4096])
                .with_broadcast(AutoBroadcast::None);
            OvBinary::new(ctx, &desc).unwrap().into()
        },
        bytes: 4096,
        step: 4,
    },
    Subject {
        name: "BitwiseNot i32",
        make: |ctx| {
            let desc = OvUnaryDesc::new(OvUnaryOp::BitwiseNot, DataType::I32, &[64, 64]);
            OvUnary::new(ctx, &desc).unwrap().into()
        },
        bytes: 64 * 64 * 4,
        step: 16,
    },
    Subject {
        name: "LogicalNot bool",
        make: |ctx| {
            let desc = OvUnaryDesc::new(OvUnaryOp::LogicalNot, DataType::Bool, &[4096]);
            OvUnary::new(ctx, &desc).unwrap().into()
        },
        bytes: 4096,
        step: 16,
    },
];

impl Subject {
    /// Prepares and records one call under binding pattern `pattern`: distinct buffers,
    /// out = A, out = B, A = B, and all three apart in one buffer (`pattern % 5`), at offset 0
    /// or `step` (`pattern / 5`). A one-input operator binds no B: distinct buffers, out = A,
    /// out in A's buffer before and after it, and in a buffer of its own again.
    fn call(&self, ctx: &Context, op: &AnyOperator, pattern: usize) -> Result<(), Error> {
        let (bytes, at) = (self.bytes, self.step * (pattern as u64 / 5));
        let span = (bytes + at).div_ceil(256) * 256;
        let bufs: Vec<wgpu::Buffer> = (0..3)
            .map(|i| buffer(ctx, &random_bytes(i, 3 * span as usize)))
            .collect();
        let (x, y, z) = (&bufs[0], &bufs[1], &bufs[2]);
        let t = |b, k: u64| TensorBinding::range(b, k * span + at, bytes);
        let unary = matches!(op, AnyOperator::DmlUnary(_) | AnyOperator::OvUnary(_));
        let bindings = match pattern % 5 {
            0 | 4 if unary => Bindings::unary(t(x, 0), t(z, 0)),
            1 if unary => Bindings::unary(t(x, 0), t(x, 0)),
            2 if unary => Bindings::unary(t(x, 1), t(x, 0)),
            3 if unary => Bindings::unary(t(x, 0), t(x, 2)),
            0 => Bindings::new(t(x, 0), t(y, 0), t(z, 0)),
            1 => Bindings::new(t(x, 0), t(y, 0), t(x, 0)),
            2 => Bindings::new(t(x, 0), t(y, 0), t(y, 0)),
            3 => Bindings::new(t(x, 0), t(x, 0), t(z, 0)),
            _ => Bindings::new(t(x, 0), t(x, 1), t(x, 2)),
        };
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        op.prepare(&bindings)?.record(&mut encoder)?;
        ctx.queue().submit([encoder.finish()]);
        Ok(())
    }
}

/// After `warm_up`, no call of any subject compiles anything, under every binding pattern of
/// [`Subject::call`] (a one-input operator's included: apart, in place, and input and output
/// apart in one buffer), at two offsets.
#[test]
fn after_warm_up_no_binding_pattern_compiles_anything() {
    for subject in &SUBJECTS {
        // Pipelines are shared by every operator on a context: one context each.
        let ctx = own_context();
        let name = subject.name;
        let op = (subject.make)(&ctx);
        let compiled = op.warm_up().unwrap();
        assert!(compiled > 0, "{name}: nothing to compile?");
        assert_eq!(op.warm_up().unwrap(), 0, "{name}: compiled twice");
        let before = ctx.recording_objects();
        for pattern in 0..10 {
            match subject.call(&ctx, &op, pattern) {
                Ok(()) => {}
                // In place needs the input's description to be the output's.
                Err(e) if e.rule() == "alias_desc_mismatch" && matches!(pattern % 5, 1 | 2) => {
                    // Only where A or B is laid out unlike the output.
                    let unlike = name.contains("transposed") || name.contains("broadcast");
                    assert!(unlike, "{name} {pattern}: {e}");
                }
                Err(e) => panic!("{name} {pattern}: {e}"),
            }
        }
        let after = ctx.recording_objects();
        assert_eq!(
            (after.pipelines, after.shader_modules),
            (before.pipelines, before.shader_modules),
            "{name}: a call compiled after warm-up"
        );
        ctx.wait().unwrap();
    }
}

#[test]
fn without_warm_up_the_first_call_compiles() {
    // The counter the warm-up test relies on does move when a call compiles.
    for subject in &SUBJECTS {
        let ctx = own_context();
        let op = (subject.make)(&ctx);
        let before = ctx.recording_objects().pipelines;
        subject.call(&ctx, &op, 0).unwrap();
        assert!(
            ctx.recording_objects().pipelines > before,
            "{}: the first call compiled nothing",
            subject.name
        );
        ctx.wait().unwrap();
    }
}

#[test]
fn a_prepared_call_runs_between_the_callers_own_dispatches_in_one_pass() {
    let ctx = crate::common::ctx();
    // The caller's own kernel: adds 1 to every word of its buffer.
    let module = ctx
        .device()
        .create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("caller"),
            source: wgpu::ShaderSource::Wgsl(
                "@group(0) @binding(0) var<storage, read_write> words: array<u32>;
                 @compute @workgroup_size(64)
                 fn main(@builtin(global_invocation_id) id: vec3<u32>) {
                     if id.x < arrayLength(&words) { words[id.x] += 1u; }
                 }"
                .into(),
            ),
        });
    let pipeline = ctx
        .device()
        .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("caller"),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
    let n = 1000usize;
    let words =
        |seed| -> Vec<u32> { bytemuck::cast_slice::<u8, u32>(&random_bytes(seed, n * 4)).to_vec() };
    let (ha, hb) = (words(5), words(6));
    let (a, b, out) = (
        buffer(ctx, bytemuck::cast_slice(&ha)),
        buffer(ctx, bytemuck::cast_slice(&hb)),
        buffer(ctx, &vec![0; n * 4]),
    );
    let group = |buf: &wgpu::Buffer| {
        ctx.device().create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: buf.as_entire_binding(),
            }],
        })
    };
    let (on_a, on_out) = (group(&a), group(&out));
    let op = DmlBinary::new(ctx, &BitXorDesc::packed(DataType::U32, &[n as u32])).unwrap();
    let call = op
        .prepare(&Bindings::new(
            TensorBinding::new(&a),
            TensorBinding::new(&b),
            TensorBinding::new(&out),
        ))
        .unwrap();
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &on_a, &[]);
        pass.dispatch_workgroups(n.div_ceil(64) as u32, 1, 1);
        call.record_in_pass(&mut pass).unwrap();
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &on_out, &[]);
        pass.dispatch_workgroups(n.div_ceil(64) as u32, 1, 1);
    }
    ctx.queue().submit([encoder.finish()]);
    let want: Vec<u32> = ha
        .iter()
        .zip(&hb)
        .map(|(x, y)| ((x.wrapping_add(1)) ^ y).wrapping_add(1))
        .collect();
    let got = read(ctx, &out);
    assert_eq!(bytemuck::cast_slice::<u8, u32>(&got), &want[..]);
}

#[test]
fn a_pipeline_cache_from_another_device_is_refused() {
    let ctx = crate::common::ctx();
    assert!(
        !ctx.device()
            .features()
            .contains(wgpu::Features::PIPELINE_CACHE),
        "the suite's device asks for no optional feature"
    );
    let Some((device, _, cache)) = pipeline_cache_device() else {
        return;
    };
    drop(device);
    let err = Context::with_options(
        ctx.device().clone(),
        ctx.queue().clone(),
        &ContextOptions {
            pipeline_cache: Some(cache),
            ..ContextOptions::default()
        },
    )
    .unwrap_err();
    assert_eq!(err.rule(), "invalid_option");
}

/// A device with `PIPELINE_CACHE` and an empty cache on it. wgpu has pipeline caches on
/// Vulkan only: there a missing feature fails the test; on another backend there is no cache
/// to test, which is said, and `None`.
fn pipeline_cache_device() -> Option<(wgpu::Device, wgpu::Queue, wgpu::PipelineCache)> {
    let backend = crate::common::ctx().adapter_info().backend;
    let (device, queue) = pollster::block_on(async {
        let adapter = crate::common::suite_adapter().await;
        if !adapter.features().contains(wgpu::Features::PIPELINE_CACHE) {
            assert_ne!(
                backend,
                wgpu::Backend::Vulkan,
                "wgpu supports pipeline caches on Vulkan"
            );
            eprintln!("pipeline cache: {backend:?} has none; nothing of it to test here");
            return None;
        }
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                required_features: wgpu::Features::PIPELINE_CACHE,
                required_limits: adapter.limits(),
                ..Default::default()
            })
            .await
            .expect("a device");
        Some((device, queue))
    })?;
    // SAFETY: no data is passed, so there is nothing for the driver to misread.
    let cache = unsafe {
        device.create_pipeline_cache(&wgpu::PipelineCacheDescriptor {
            label: Some("gpu-xor test"),
            data: None,
            fallback: true,
        })
    };
    Some((device, queue, cache))
}

#[test]
fn warm_up_fills_the_callers_pipeline_cache_and_a_new_device_reuses_it() {
    let Some((device, queue, cache)) = pipeline_cache_device() else {
        return;
    };
    let options = |cache: &wgpu::PipelineCache| ContextOptions {
        pipeline_cache: Some(cache.clone()),
        ..ContextOptions::default()
    };
    let ctx = Context::with_options(device, queue, &options(&cache)).unwrap();
    let op = DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::U16, &[4096])).unwrap();
    let compiled = op.warm_up().unwrap();
    assert!(compiled > 0);
    let data = cache.get_data().expect("Vulkan caches have data");
    assert!(!data.is_empty());
    eprintln!(
        "pipeline cache: {compiled} pipelines, {} bytes of cache data",
        data.len()
    );
    // A second device starts from the saved data, and the operator still runs exactly.
    let (device, queue, _) = pipeline_cache_device().expect("the same adapter");
    // SAFETY: the data is what `get_data` gave on the same adapter and driver, unchanged.
    let reused = unsafe {
        device.create_pipeline_cache(&wgpu::PipelineCacheDescriptor {
            label: Some("gpu-xor test, reused"),
            data: Some(&data),
            fallback: true,
        })
    };
    let ctx = Context::with_options(device, queue, &options(&reused)).unwrap();
    let op = DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::U16, &[4096])).unwrap();
    assert_eq!(op.warm_up().unwrap(), compiled);
    let (ha, hb) = (random_bytes(7, 8192), random_bytes(8, 8192));
    let (a, b, out) = (
        buffer(&ctx, &ha),
        buffer(&ctx, &hb),
        buffer(&ctx, &[0; 8192]),
    );
    op.run(&Bindings::new(
        TensorBinding::new(&a),
        TensorBinding::new(&b),
        TensorBinding::new(&out),
    ))
    .unwrap();
    assert_eq!(read(&ctx, &out), xor(&ha, &hb));
}

#[test]
fn one_warm_up_compiles_a_whole_graph_and_each_pipeline_once() {
    let ctx = own_context();
    let mut ops: Vec<AnyOperator> = Vec::new();
    for t in [DataType::U8, DataType::I32, DataType::U16, DataType::I64] {
        ops.push(AnyOperator::DmlBinary(
            DmlBinary::new(&ctx, &BitXorDesc::packed(t, &[1, 16, 7, 7])).unwrap(),
        ));
        ops.push(AnyOperator::OvBinary(
            OvBinary::new(
                &ctx,
                &BitwiseXorDesc::new(t, &[1, 16, 7, 7], &[1, 16, 1, 1]),
            )
            .unwrap(),
        ));
    }
    let graph: Vec<&dyn gpu_xor::CompiledOperator> = ops.iter().map(AnyOperator::as_dyn).collect();
    let before = ctx.recording_objects().pipelines;
    let compiled = ctx.warm_up(&graph).unwrap();
    assert!(compiled > 0);
    // Each distinct pipeline compiled once, on however many threads.
    assert_eq!(ctx.recording_objects().pipelines - before, compiled as u64);
    assert_eq!(ctx.warm_up(&graph).unwrap(), 0);
    for op in &graph {
        assert_eq!(
            op.warm_up().unwrap(),
            0,
            "an operator's own warm-up compiled more"
        );
    }
    // An operator of another context compiles nothing.
    let other = own_context();
    let stranger = DmlBinary::new(&other, &BitXorDesc::packed(DataType::U8, &[4])).unwrap();
    let mixed: [&dyn gpu_xor::CompiledOperator; 2] = [graph[0], &stranger];
    assert_eq!(ctx.warm_up(&mixed).unwrap_err().rule(), "context_mismatch");
    assert_eq!(other.recording_objects().pipelines, 0);
}

/// Prepared calls of the family: a NOT in place recorded an even number of times leaves its
/// input, an AND beside it gives `a & b`, and a prepared batch of NOT, AND and OR (each
/// reading what the one before wrote, one dispatch each) recorded three times gives the three
/// rounds, with nothing made after the first recording.
#[test]
fn prepared_family_calls_record_again_with_nothing_made() {
    let ctx = own_context();
    let not = DmlUnary::new(
        &ctx,
        &DmlUnaryDesc::packed(DmlUnaryOp::BitNot, DataType::U32, &[1024]),
    )
    .unwrap();
    let and = DmlBinary::new(
        &ctx,
        &DmlBinaryDesc::packed(DmlBinaryOp::BitAnd, DataType::U32, &[1024]),
    )
    .unwrap();
    let or = DmlBinary::new(
        &ctx,
        &DmlBinaryDesc::packed(DmlBinaryOp::BitOr, DataType::U32, &[1024]),
    )
    .unwrap();
    let (hx, hy) = (random_bytes(11, 4096), random_bytes(12, 4096));
    let (x, y, z) = (
        buffer(&ctx, &hx),
        buffer(&ctx, &hy),
        buffer(&ctx, &[0; 4096]),
    );
    let (bx, by, bz) = (
        TensorBinding::new(&x),
        TensorBinding::new(&y),
        TensorBinding::new(&z),
    );
    let not_x = not.prepare(&Bindings::unary(bx, bx)).unwrap();
    let and_xy = and.prepare(&Bindings::new(bx, by, bz)).unwrap();
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    not_x.record(&mut encoder).unwrap();
    let (ours, theirs) = (ctx.recording_objects(), live(&ctx));
    for _ in 0..999 {
        not_x.record(&mut encoder).unwrap();
    }
    and_xy.record(&mut encoder).unwrap();
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        for _ in 0..10 {
            and_xy.record_in_pass(&mut pass).unwrap();
        }
    }
    let made = ctx.recording_objects();
    assert_eq!(
        (made.buffers, made.bind_groups, made.pipelines),
        (ours.buffers, ours.bind_groups, ours.pipelines),
        "recording made objects"
    );
    assert_eq!(live(&ctx), theirs, "wgpu counts new live objects");
    ctx.queue().submit([encoder.finish()]);
    let and_ref: Vec<u8> = hx.iter().zip(&hy).map(|(a, b)| a & b).collect();
    assert_eq!(read(&ctx, &x), hx, "NOT recorded 1000 times");
    assert_eq!(read(&ctx, &z), and_ref);

    // x = !x; z = x & y; z = z | w: one prepared batch, recorded three times.
    let hw = random_bytes(13, 4096);
    let w = buffer(&ctx, &hw);
    let bw = TensorBinding::new(&w);
    let mut batch = ctx.batch();
    batch.push(&not, &Bindings::unary(bx, bx)).unwrap();
    batch.push(&and, &Bindings::new(bx, by, bz)).unwrap();
    batch.push(&or, &Bindings::new(bz, bw, bz)).unwrap();
    assert_eq!(batch.dispatch_count(), 3);
    let prepared = batch.prepare().unwrap();
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    prepared.record(&mut encoder).unwrap();
    let ours = ctx.recording_objects();
    prepared.record(&mut encoder).unwrap();
    prepared.record(&mut encoder).unwrap();
    assert_eq!(ctx.recording_objects(), ours);
    ctx.queue().submit([encoder.finish()]);
    let (mut wx, mut wz) = (hx.clone(), Vec::new());
    for _ in 0..3 {
        wx.iter_mut().for_each(|v| *v = !*v);
        wz = wx
            .iter()
            .zip(&hy)
            .zip(&hw)
            .map(|((a, b), c)| (a & b) | c)
            .collect();
    }
    assert_eq!(read(&ctx, &x), wx);
    assert_eq!(read(&ctx, &z), wz);
    assert_eq!(read(&ctx, &y), hy);
    assert_eq!(read(&ctx, &w), hw);
}

/// Warming up a graph of every function on one shape compiles each function's pipelines
/// once (more than XOR's alone: the function is part of the pipeline), and afterwards no
/// call of any of them compiles anything.
#[test]
fn one_warm_up_compiles_every_function_of_a_graph_once() {
    let t = |ctx: &Context| -> Vec<AnyOperator> {
        let mut ops: Vec<AnyOperator> = DmlBinaryOp::ALL
            .into_iter()
            .map(|op| {
                DmlBinary::new(ctx, &DmlBinaryDesc::packed(op, DataType::U32, &[8, 130]))
                    .unwrap()
                    .into()
            })
            .collect();
        for op in DmlUnaryOp::ALL {
            let desc = DmlUnaryDesc::packed(op, DataType::U32, &[8, 130]);
            ops.push(DmlUnary::new(ctx, &desc).unwrap().into());
        }
        ops
    };
    let alone = own_context();
    let xor: Vec<AnyOperator> = t(&alone).into_iter().take(1).collect();
    let xor_graph: Vec<&dyn gpu_xor::CompiledOperator> =
        xor.iter().map(AnyOperator::as_dyn).collect();
    let one = alone.warm_up(&xor_graph).unwrap();
    assert!(one > 0);

    let ctx = own_context();
    let ops = t(&ctx);
    let graph: Vec<&dyn gpu_xor::CompiledOperator> = ops.iter().map(AnyOperator::as_dyn).collect();
    let before = ctx.recording_objects().pipelines;
    let compiled = ctx.warm_up(&graph).unwrap();
    assert!(
        compiled > one,
        "eight functions compiled as many pipelines ({compiled}) as XOR alone ({one})"
    );
    assert_eq!(ctx.recording_objects().pipelines - before, compiled as u64);
    assert_eq!(ctx.warm_up(&graph).unwrap(), 0);
    for op in &ops {
        assert_eq!(
            op.warm_up().unwrap(),
            0,
            "an operator's own warm-up compiled more"
        );
    }
    // Every call, apart and in place, compiles nothing more.
    let before = ctx.recording_objects();
    let bytes = 8 * 130 * 4;
    let bufs: Vec<wgpu::Buffer> = (0..3)
        .map(|i| buffer(&ctx, &random_bytes(20 + i, bytes)))
        .collect();
    let [x, y, z] = [0, 1, 2].map(|i| TensorBinding::new(&bufs[i]));
    for op in &ops {
        let unary = matches!(op, AnyOperator::DmlUnary(_));
        // BIT_COUNT runs apart only: it refuses in place.
        let in_place =
            !matches!(op, AnyOperator::DmlUnary(u) if u.desc().op == DmlUnaryOp::BitCount);
        let apart = if unary {
            Bindings::unary(x, z)
        } else {
            Bindings::new(x, y, z)
        };
        let on_z = if unary {
            Bindings::unary(z, z)
        } else {
            Bindings::new(z, y, z)
        };
        for bindings in std::iter::once(apart).chain(in_place.then_some(on_z)) {
            let mut encoder = ctx.device().create_command_encoder(&Default::default());
            op.record(&mut encoder, &bindings).unwrap();
            ctx.queue().submit([encoder.finish()]);
        }
    }
    let after = ctx.recording_objects();
    assert_eq!(
        (after.pipelines, after.shader_modules),
        (before.pipelines, before.shader_modules),
        "a call compiled after warm-up"
    );
    ctx.wait().unwrap();
}

/// A compiled OpenVINO BitwiseNot prepared in place and recorded twice: once gives NOT of
/// the input, twice the input again; an OpenVINO two-input operation of the family compiles
/// through its own description.
#[test]
fn a_prepared_openvino_not_in_place_recorded_twice_gives_its_input() {
    let ctx = crate::common::ctx();
    let x = Tensor::from_slice(ctx, &[100], &(0..100u16).collect::<Vec<_>>()).unwrap();
    let op = OvUnary::new(
        ctx,
        &OvUnaryDesc::new(OvUnaryOp::BitwiseNot, DataType::U16, &[100]),
    )
    .unwrap();
    let prepared = op
        .prepare(&Bindings::unary(x.binding(), x.binding()))
        .unwrap();
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    prepared.record(&mut encoder).unwrap();
    ctx.queue().submit([encoder.finish()]);
    assert_eq!(
        x.to_vec::<u16>().unwrap(),
        (0..100u16).map(|v| !v).collect::<Vec<_>>()
    );
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    prepared.record(&mut encoder).unwrap();
    ctx.queue().submit([encoder.finish()]);
    assert_eq!(x.to_vec::<u16>().unwrap(), (0..100u16).collect::<Vec<_>>());
    let _: &OvBinary = &OvBinary::new(
        ctx,
        &OvBinaryDesc::new(OvBinaryOp::BitwiseAnd, DataType::U8, &[2], &[2]),
    )
    .unwrap();
}
