use gpu_xor::{Bindings, BitXorDesc, Context, DataType, DmlBinary, TensorBinding};
use std::time::Instant;
fn main() {
    let ctx = Context::from_env().unwrap();
    let dev = ctx.device();
    let mk = || {
        dev.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: 4 << 20,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    };
    let (a, b, o) = (mk(), mk(), mk());
    let op = DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::U32, &[1024])).unwrap();
    op.warm_up().unwrap();
    let bind = |i: u64| {
        Bindings::new(
            TensorBinding::range(&a, i * 4096, 4096),
            TensorBinding::range(&b, i * 4096, 4096),
            TensorBinding::range(&o, i * 4096, 4096),
        )
    };
    let n = 1000;
    for round in 0..4 {
        let p = op.prepare(&bind(0)).unwrap();
        let mut e = dev.create_command_encoder(&Default::default());
        let t = Instant::now();
        for _ in 0..n {
            p.record(&mut e).unwrap();
        }
        let prep = t.elapsed().as_secs_f64() * 1e6 / n as f64;
        drop(e);
        let before = ctx.recording_objects();
        let mut e = dev.create_command_encoder(&Default::default());
        let t = Instant::now();
        for i in 0..n {
            op.record(&mut e, &bind(i)).unwrap();
        }
        let one = t.elapsed().as_secs_f64() * 1e6 / n as f64;
        drop(e);
        let after = ctx.recording_objects();
        let t = Instant::now();
        for _ in 0..n {
            op.run(&bind(3)).unwrap();
        }
        let run = t.elapsed().as_secs_f64() * 1e6 / n as f64;
        let t = Instant::now();
        for _ in 0..n {
            let mut e = dev.create_command_encoder(&Default::default());
            p.record(&mut e).unwrap();
            let i = ctx.queue().submit([e.finish()]);
            dev.poll(wgpu::PollType::Wait {
                submission_index: Some(i),
                timeout: None,
            })
            .unwrap();
        }
        let prun = t.elapsed().as_secs_f64() * 1e6 / n as f64;
        println!(
            "round {round}: prepared {prep:.2} one-shot {one:.2} us ({} buffers, {} groups); run {run:.2} prepared run {prun:.2}",
            after.buffers - before.buffers,
            after.bind_groups - before.bind_groups
        );
    }
    println!("{:?}", ctx.recording_objects());
}
