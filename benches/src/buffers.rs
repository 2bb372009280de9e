//! The cases' buffers: made full of random bytes (a shift's B mostly of amounts in range), and
//! read back.

use gpu_xor::Context;

/// `size` bytes of `buffer` from `offset` (multiples of 4), read back.
pub(crate) fn read(ctx: &Context, buffer: &wgpu::Buffer, offset: u64, size: u64) -> Vec<u8> {
    let staging = ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("bench readback"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(buffer, offset, &staging, 0, size);
    ctx.queue().submit([encoder.finish()]);
    staging
        .slice(..)
        .map_async(wgpu::MapMode::Read, |r| r.expect("map"));
    ctx.device()
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("poll");
    staging
        .slice(..)
        .get_mapped_range()
        .expect("mapped")
        .to_vec()
}

/// A storage buffer of `size` bytes rounded up to 16, filled with the test kit's splitmix64
/// stream from `seed`.
pub(crate) fn storage(ctx: &Context, size: u64, seed: u64) -> wgpu::Buffer {
    filled(ctx, size, seed, |_, _| {})
}

/// [`storage`] with about three in four elements of `width` bytes rewritten as shift amounts
/// from 0 to the element's bits plus one, the rest left random (amounts far out of range,
/// negative ones for signed types): `gpu_xor_testkit::shift_amounts`, a seed of its own for
/// each 64 KiB.
pub(crate) fn shift_amounts(ctx: &Context, size: u64, seed: u64, width: u64) -> wgpu::Buffer {
    filled(ctx, size, seed, |chunk, k| {
        gpu_xor_testkit::shift_amounts(chunk, width, (seed << 32) ^ k);
    })
}

/// A storage buffer of `size` bytes rounded up to 16, filled with the splitmix64 stream from
/// `seed` 64 KiB at a time, each piece passed to `edit` with its index before it is written.
fn filled(ctx: &Context, size: u64, seed: u64, edit: impl Fn(&mut [u8], u64)) -> wgpu::Buffer {
    let buffer = ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("bench"),
        size: size.div_ceil(16) * 16,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: true,
    });
    {
        let mut view = buffer.get_mapped_range_mut(..).expect("mapped");
        let mut rng = gpu_xor_testkit::SplitMix64::new(seed);
        let mut chunk = vec![0u8; 1 << 16];
        let len = buffer.size() as usize;
        let mut at = 0;
        while at < len {
            for word in chunk.chunks_mut(8) {
                word.copy_from_slice(&rng.next_u64().to_le_bytes());
            }
            let n = chunk.len().min(len - at);
            edit(&mut chunk[..n], (at >> 16) as u64);
            view.slice(at..at + n).copy_from_slice(&chunk[..n]);
            at += n;
        }
    }
    buffer.unmap();
    flush_uploads(ctx);
    buffer
}

/// Submits and waits for the staging copies of buffers just written through
/// `mapped_at_creation`: wgpu frees each once a submission carrying it has finished, so that
/// a section making many buffers holds one staging copy at a time rather than one per buffer
/// (twice its buffers' memory on a CPU adapter, pinned host memory on a GPU).
pub(crate) fn flush_uploads(ctx: &Context) {
    ctx.queue().submit([]);
    ctx.device()
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("poll");
}
