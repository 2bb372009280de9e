// The input bindings as u32 words, access `read`.

@group(0) @binding(2) var<storage, read> in0: array<u32>;
@group(0) @binding(3) var<storage, read> in1: array<u32>;
