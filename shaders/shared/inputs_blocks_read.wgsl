// Input bindings as 16-byte blocks, access `read`. Placed between common.wgsl and a kernel
// that reads whole blocks (contiguous.wgsl, rows.wgsl).

@group(0) @binding(2) var<storage, read> in0: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> in1: array<vec4<u32>>;
