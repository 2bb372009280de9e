// Baseline for the benchmarks: a plain vec4<u32> copy, one 16-byte block per invocation,
// sized like the contiguous XOR kernel. Entry point: `main`.
// Bindings: 0 src (read), 1 dst (read_write), 2 the block count and the row stride of the
// grid in invocations (uniform, x and y). The bare XOR baseline (bare_xor.wgsl) shares the
// grid and the uniform.

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
@group(0) @binding(2) var<uniform> blocks: vec4<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.y * blocks.y + gid.x;
    if i < blocks.x {
        dst[i] = src[i];
    }
}
