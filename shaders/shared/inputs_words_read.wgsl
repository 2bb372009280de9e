// Input bindings as u32 words, access `read`. Placed between common.wgsl and a kernel that
// reads words (gather.wgsl, scatter.wgsl, tile.wgsl).

@group(0) @binding(2) var<storage, read> in0: array<u32>;
@group(0) @binding(3) var<storage, read> in1: array<u32>;
