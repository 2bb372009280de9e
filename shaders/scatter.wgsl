// Scatter kernel. Entry point: `main`.
//
// The output itself is strided (padded rows, or an order no permutation makes dense): each
// invocation owns one output element, found by unravelling its index over the iteration
// space for all three operands. 32- and 64-bit elements own their words and are stored
// whole. 8- and 16-bit elements share a word with their neighbours, which other invocations
// write at the same time, so a plain read-modify-write of the word would race: the lane is
// changed with one atomicXor of (old lane ^ new lane), which leaves every other lane as it
// is. Only this invocation ever changes this lane, so the old value it reads stays valid.
//
// Bindings: 0 records (common.wgsl); 1 out_buf as atomic words, 2 in0, 3 in1 as words
// (shared/inputs_words_*.wgsl, shared/atomic.wgsl).

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
        atomicStore(&out_buf[2u * o], r.x);
        atomicStore(&out_buf[2u * o + 1u], r.y);
        return;
    }
    let value = combine_lane(load_lane(A_SRC, a), load_lane(B_SRC, b));
    if WIDTH == 4u {
        atomicStore(&out_buf[o], value);
        return;
    }
    let byte = o * WIDTH;
    let word = byte >> 2u;
    let shift = (byte & 3u) * 8u;
    let old = (atomicLoad(&out_buf[word]) >> shift) & lane_mask();
    let change = old ^ value;
    if change != 0u {
        atomicXor(&out_buf[word], change << shift);
    }
}
