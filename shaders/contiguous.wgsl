// Contiguous kernel. Entry point: `main`.
//
// Every operand is a dense run of `head.w` bytes that starts on a 16-byte boundary of its
// window; `base` holds each operand's first 16-byte block in its window (not elements: the
// kernel counts bytes and blocks, so that one pipeline serves every element width of the
// bitwise function, and WIDTH matters only to the logical one). Invocation v combines the
// v-th 16 bytes of A and B into the v-th 16 bytes of the output: `head.x` is the number of
// whole 16-byte blocks.
//
// The common path is one compare, two loads and one store, like a bare XOR kernel's; what
// would cost more on every invocation is compiled in only where a call needs it (adapters
// that run a workgroup as SIMD lanes under an execution mask, CPU adapters among them, pay
// for every path a branch could take):
// - TAIL: a run whose length is not a multiple of 16 ends in a partial block. Invocation
//   `head.x` reads it whole (windows end on a 16-byte boundary) and writes it whole through
//   a mask that gives the bytes after the tensor back their own value (no other invocation of
//   the dispatch touches that block: calls merged into one dispatch never share a 16-byte
//   block). Without TAIL the host runs such a block as a dispatch of its own.
// - DIRECT: the dispatch runs one record and every operand starts at the first block of its
//   binding: the record index is the constant 0 and the offsets in `base` are not read, so
//   the compiler hoists every read of the record out of the invocation.
//
// Bindings: 0 records (common.wgsl); 1 out_buf, 2 in0, 3 in1 as 16-byte blocks
// (shared/inputs_blocks_*.wgsl, shared/blocks.wgsl).

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(workgroup_id) wg: vec3<u32>,
) {
    let call = select(wg.z, 0u, DIRECT);
    let v = unit_index(call, gid);
    var at = vec3<u32>(v);
    if !DIRECT {
        at += base(call).xyz;
    }
    if v < head(call).x {
        out_buf[at.x] = combine4(load(A_SRC, at.y), load(B_SRC, at.z));
        return;
    }
    if TAIL {
        // The last block, partial: bytes of the tensor in each of its words, the rest kept.
        let bytes = head(call).w;
        let first = v * 16u;
        if first < bytes {
            let r = combine4(load(A_SRC, at.y), load(B_SRC, at.z));
            let starts = vec4<u32>(first) + vec4<u32>(0u, 4u, 8u, 12u);
            let inside = min(vec4<u32>(bytes) - min(starts, vec4<u32>(bytes)), vec4<u32>(4u));
            let mask = select(
                (vec4<u32>(1u) << (inside * 8u)) - 1u,
                vec4<u32>(0xffffffffu),
                inside == vec4<u32>(4u),
            );
            out_buf[at.x] = (out_buf[at.x] & ~mask) | (r & mask);
        }
    }
}
