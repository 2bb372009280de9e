// Gather kernel. Entry point: `main`.
//
// The output is dense over the iteration space (after coalescing); the inputs have any
// strides, zero strides for broadcasting included. Each invocation owns whole output words,
// so no two invocations write one word and no atomics are needed:
//   WIDTH 8: one element (two words) per invocation;
//   WIDTH 4: one element (one word) per invocation;
//   WIDTH 1, 2: one output word per invocation; its 4 / WIDTH lanes are gathered one by one
//   from the inputs. The first and last words of the run may hold bytes that are not part of
//   it; they are written through a mask and keep their value.
// `head.x` is the number of units (elements for WIDTH >= 4, words otherwise). WIDTH is the
// output's element size; an input of another (IN_WIDTH, BIT_COUNT) is read element by
// element through `combine_at`, its offsets counted in its own elements.
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
    if WIDTH == 8u {
        let c = offsets_of(call, u, rank(call));
        let a = vec2<u32>(load_word(A_SRC, 2u * c.a), load_word(A_SRC, 2u * c.a + 1u));
        let b = vec2<u32>(load_word(B_SRC, 2u * c.b), load_word(B_SRC, 2u * c.b + 1u));
        let r = combine_pair(a, b);
        let o = 2u * (base(call).x + u);
        out_buf[o] = r.x;
        out_buf[o + 1u] = r.y;
        return;
    }
    if WIDTH == 4u {
        let c = offsets_of(call, u, rank(call));
        out_buf[base(call).x + u] = combine_at(c.a, c.b);
        return;
    }

    // WIDTH 1 or 2: this invocation owns output word `w`.
    let per_word = 4u / WIDTH;
    let first = base(call).x;
    let end = first + head(call).w;
    let w = (first * WIDTH) / 4u + u;
    let lane0 = w * per_word;
    let start = max(lane0, first);
    let stop = min(lane0 + per_word, end);

    let last = rank(call) - 1u;
    let inner_n = size_at(call, last);
    let step_a = a_stride_at(call, last);
    let step_b = b_stride_at(call, last);

    var c = offsets_of(call, start - first, rank(call));
    var value = 0u;
    var mask = 0u;
    for (var e = start; e < stop; e++) {
        let shift = (e - lane0) * WIDTH * 8u;
        value |= combine_at(c.a, c.b) << shift;
        mask |= lane_mask() << shift;
        if e + 1u < stop {
            c.inner += 1u;
            if c.inner < inner_n {
                c.a += step_a;
                c.b += step_b;
            } else {
                c = offsets_of(call, e + 1u - first, rank(call));
            }
        }
    }
    if mask == 0xffffffffu {
        out_buf[w] = value;
    } else {
        out_buf[w] = (out_buf[w] & ~mask) | value;
    }
}
