use gpu_xor::{Bindings, BitXorDesc, Context, DataType, DmlBinary, TensorBinding};
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
    for _ in 0..200 {
        let mut e = dev.create_command_encoder(&Default::default());
        for i in 0..1000 {
            op.record(&mut e, &bind(i)).unwrap();
        }
    }
}
