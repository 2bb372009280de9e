// Baseline for the benchmarks: a bare vec4<u32> XOR, one 16-byte block per invocation, with
// no metadata and no masks: what a naive XOR kernel reaches on the adapter. Sized and gridded
// like the copy kernel (copy.wgsl). Entry point: `main`.
// Bindings: 0 a (read), 1 b (read), 2 out (read_write), 3 the block count and the row stride
// of the grid in invocations (uniform, x and y).

@group(0) @binding(0) var<storage, read> a: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> out: array<vec4<u32>>;
@group(0) @binding(3) var<uniform> blocks: vec4<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.y * blocks.y + gid.x;
    if i < blocks.x {
        out[i] = a[i] ^ b[i];
    }
}
