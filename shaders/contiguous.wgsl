// Contiguous kernel. Entry point: `main`.
//
// Every operand is a dense run of `head.w` bytes that starts on a 16-byte boundary of its
// window; `base` holds each operand's first 16-byte block in its window (not elements: the
// kernel counts bytes and blocks, so that one pipeline serves every element width of the
// bitwise function, and WIDTH matters only to the logical one). Invocation v combines the
// v-th 16 bytes of A and B into the v-th 16 bytes of the output: `head.x` is the number of
// 16-byte blocks. Windows end on a 16-byte boundary, so the last block can be read whole; it
// is written whole through a mask that gives the bytes after the tensor back their own value
// (no other invocation of the dispatch touches that block: calls merged into one dispatch
// never share a 16-byte block). The mask is computed without a loop or a branch per word, and
// only for the last block: every other block is one compare and one store.
//
// Bindings: 0 records (common.wgsl); 1 out_buf, 2 in0, 3 in1 as 16-byte blocks
// (shared/inputs_blocks_*.wgsl, shared/blocks.wgsl).

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(workgroup_id) wg: vec3<u32>,
) {
    let call = wg.z;
    let v = unit_index(call, gid);
    // One compare decides both the grid's spare invocations and the common whole block:
    // a window holds at most 2^31 bytes, so `first + 16` cannot wrap.
    let bytes = head(call).w;
    let first = v * 16u;
    if first >= bytes {
        return;
    }
    let at = base(call).xyz + vec3<u32>(v);
    let r = combine4(load(A_SRC, at.y), load(B_SRC, at.z));
    if first + 16u <= bytes {
        out_buf[at.x] = r;
        return;
    }
    // The last block: bytes of the tensor in each of its words, the rest kept.
    let starts = vec4<u32>(first) + vec4<u32>(0u, 4u, 8u, 12u);
    let inside = min(vec4<u32>(bytes) - min(starts, vec4<u32>(bytes)), vec4<u32>(4u));
    let mask = select((vec4<u32>(1u) << (inside * 8u)) - 1u, vec4<u32>(0xffffffffu), inside == vec4<u32>(4u));
    out_buf[at.x] = (out_buf[at.x] & ~mask) | (r & mask);
}
