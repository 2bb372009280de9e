// The input bindings as 16-byte blocks, access `read`.

@group(0) @binding(2) var<storage, read> in0: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> in1: array<vec4<u32>>;
