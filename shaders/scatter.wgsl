// Scatter kernel. Entry point: `main`.
//
// The output itself is strided (an order no permutation makes dense, a step over elements,
// rows too short or too interleaved for the shifted-rows kernel): each invocation owns one
// output element, found by unravelling its index over the iteration space for all three
// operands. 32- and 64-bit elements own their words and are stored whole. 8- and 16-bit
// elements are written lane by lane through `store_lane`, which the output binding defines:
//   KernelKind::Scatter (shared/atomic.wgsl): neighbouring elements share words, which other
//   invocations write at the same time, so a lane is changed with one atomicXor;
//   KernelKind::Spaced (shared/words.wgsl): no two elements share a word (each is 4 bytes or
//   more from the next), so the word's other bytes are padding no one writes, and a masked
//   read-modify-write is enough.
//
// Bindings: 0 records (common.wgsl); 1 out_buf, 2 in0, 3 in1 as words
// (shared/inputs_words_*.wgsl, and shared/atomic.wgsl or shared/words.wgsl).

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(workgroup_id) wg: vec3<u32>,
) {
    let call = wg.z;
    let u = unit_index(call, gid);
    if u >= head(call).x {
        return;
    }
    let at = offsets_of(call, u, rank(call));
    let o = at.o;
    let a = at.a;
    let b = at.b;

    if WIDTH == 8u {
        let va = vec2<u32>(load_word(A_SRC, 2u * a), load_word(A_SRC, 2u * a + 1u));
        let vb = vec2<u32>(load_word(B_SRC, 2u * b), load_word(B_SRC, 2u * b + 1u));
        let r = combine_pair(va, vb);
        store_word(2u * o, r.x);
        store_word(2u * o + 1u, r.y);
        return;
    }
    let value = combine_lane(load_lane(A_SRC, a), load_lane(B_SRC, b));
    if WIDTH == 4u {
        store_word(o, value);
        return;
    }
    let byte = o * WIDTH;
    store_lane(byte >> 2u, (byte & 3u) * 8u, value);
}
