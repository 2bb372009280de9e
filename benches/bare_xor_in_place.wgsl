// Baseline for the benchmarks: the bare vec4<u32> XOR in place, `a ^= b`, one 16-byte block
// per invocation, with no metadata and no masks: what a naive in-place XOR kernel reaches on
// the adapter, against which the library's in-place calls are measured (some adapters read
// and write one buffer slower than they read one and write another). Sized and gridded like
// the copy kernel (copy.wgsl). Entry point: `main`.
// Bindings: 0 a (read_write: read and written), 1 b (read), 2 the block count and the row
// stride of the grid in invocations (uniform, x and y).

@group(0) @binding(0) var<storage, read_write> a: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<u32>>;
@group(0) @binding(2) var<uniform> blocks: vec4<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.y * blocks.y + gid.x;
    if i < blocks.x {
        a[i] = a[i] ^ b[i];
    }
}
