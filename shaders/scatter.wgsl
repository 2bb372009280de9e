// Scatter kernel. Entry point: `main`.
//
// The output itself is strided (an order no permutation makes dense, a step over elements,
// rows too short or too interleaved for the shifted-rows kernel): each invocation starts from
// one output element, found by unravelling its index over the iteration space for all three
// operands. 32- and 64-bit elements own their words and are stored whole. 8- and 16-bit
// elements, by SHARED_WORDS (a constant of each table entry, src/kernels/shaders.rs):
//   KernelKind::Spaced (false): no two elements share a word (each is 4 bytes or more from
//   the next), so the word's other bytes are padding no one writes, and the lane is stored
//   through a mask;
//   KernelKind::Scatter (true): neighbouring elements share words. Every output word has one
//   owner, the invocation of its first element in index order: the host runs this kernel
//   only on pieces whose output is nested (each dimension's stride spans the block inside
//   it; `select::nested`), where addresses rise with the index, so the elements of one word
//   are consecutive in index order. The owner gathers them (at most 4 / WIDTH) and writes
//   the word once through a mask; the others return. No atomics: no two invocations ever
//   write one word.
//
// Bindings: 0 records (common.wgsl); 1 out_buf, 2 in0, 3 in1 as words
// (shared/inputs_words_*.wgsl, shared/words.wgsl).

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
    if !SHARED_WORDS {
        store_lane(byte >> 2u, (byte & 3u) * 8u, value);
        return;
    }

    let w = byte >> 2u;
    let last = rank(call) - 1u;
    let inner_n = size_at(call, last);
    let step_o = out_stride_at(call, last);
    // The element before this one in index order: in this word, it owns the word.
    if u > 0u {
        var prev_o = o - step_o;
        if at.inner == 0u {
            prev_o = offsets_of(call, u - 1u, rank(call)).o;
        }
        if (prev_o * WIDTH) >> 2u == w {
            return;
        }
    }
    var shift = (byte & 3u) * 8u;
    var word = value << shift;
    var mask = lane_mask() << shift;
    var c = at;
    var e = u + 1u;
    for (var k = 1u; k < 4u / WIDTH; k++) {
        if e >= head(call).x {
            break;
        }
        if c.inner + 1u < inner_n {
            c.o += step_o;
            c.a += a_stride_at(call, last);
            c.b += b_stride_at(call, last);
            c.inner += 1u;
        } else {
            c = offsets_of(call, e, rank(call));
        }
        let next = c.o * WIDTH;
        if next >> 2u != w {
            break;
        }
        shift = (next & 3u) * 8u;
        word |= combine_lane(load_lane(A_SRC, c.a), load_lane(B_SRC, c.b)) << shift;
        mask |= lane_mask() << shift;
        e += 1u;
    }
    if mask == 0xffffffffu {
        store_word(w, word);
    } else {
        store_word(w, (out_buf[w] & ~mask) | word);
    }
}
