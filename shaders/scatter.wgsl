// Scatter kernel. Entry point: `main`.
//
// The output itself is strided (an order no permutation makes dense, a step over elements,
// rows too short or too interleaved for the shifted-rows kernel): each invocation starts from
// one output element, found by unravelling its index over the iteration space for all three
// operands (WIDTH is the output's element size; an input of another, IN_WIDTH for
// BIT_COUNT, is read through `combine_at` in its own elements). 32- and 64-bit elements own
// their words and are stored whole. 8- and 16-bit
// elements, by SHARED_WORDS (a constant of each table entry, src/kernels/shaders.rs):
//   KernelKind::Spaced (false): no two elements share a word (each is 4 bytes or more from
//   the next), so the word's other bytes are padding no one writes, and the lane is stored
//   through a mask;
//   KernelKind::Scatter (true): neighbouring elements share words. Every output word has one
//   writer, which gathers the word's elements (at most 4 / WIDTH) and writes it once through
//   a mask. The host runs this kernel only on pieces whose output is nested (each
//   dimension's stride spans the block inside it; `select::nested`), where addresses rise
//   with the index, so the elements of one word follow one another in index order. Two
//   grids, by `base.w` (set by the host from the output's density):
//     1: one invocation per word of the output's span, which finds the word's first element
//        by its offset (`first_in_word`): no idle invocation where elements fill most words
//        (every other byte, short padded rows);
//     0: one invocation per element, the word's owner being the invocation of its first
//        element and the others returning: for sparse outputs, whose span holds many words
//        with no element.
//   No atomics: no two invocations ever write one word.
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
    if WIDTH < 4u && SHARED_WORDS && base(call).w == 1u {
        // Per word: `u` counts the words from the one holding the first element.
        let w = (base(call).x * WIDTH) / 4u + u;
        let start = first_in_word(call, w);
        if start.e < head(call).w {
            fill_word(call, w, start.at, start.e);
        }
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
    if WIDTH == 4u {
        store_word(o, combine_at(a, b));
        return;
    }
    let byte = o * WIDTH;
    if !SHARED_WORDS {
        let value = combine_at(a, b);
        store_lane(byte >> 2u, (byte & 3u) * 8u, value);
        return;
    }

    // Per element: the element before this one in index order, if in this word, owns it.
    let w = byte >> 2u;
    if u > 0u {
        var prev_o = o - out_stride_at(call, rank(call) - 1u);
        if at.inner == 0u {
            prev_o = offsets_of(call, u - 1u, rank(call)).o;
        }
        if (prev_o * WIDTH) >> 2u == w {
            return;
        }
    }
    fill_word(call, w, at, u);
}

// WIDTH 1 or 2, shared words, per word: the first element at or after word `w`'s first byte
// (its linear index `e`, past the last element where there is none, and its offsets).
// Dimensions run outermost first with strides falling, each spanning the block inside it
// (nested), so taking at each dimension the most whole strides that fit finds the last
// element at or before a given offset; the one after it is the first at or after. The index
// of each dimension gives the inputs' offsets on the way: no other division.
struct Start {
    e: u32,
    at: Offsets,
}

fn first_in_word(call: u32, w: u32) -> Start {
    let first_byte = base(call).x * WIDTH;
    let wanted = (max(w * 4u, first_byte) - first_byte + WIDTH - 1u) / WIDTH;
    var rest = wanted;
    var linear = 0u;
    var at = Offsets(base(call).x, base(call).y, base(call).z, 0u);
    for (var d = 0u; d < rank(call); d++) {
        let n = size_at(call, d);
        let s = out_stride_at(call, d);
        var i = 0u;
        if n > 1u {
            i = min(div_out_stride(call, d, rest), n - 1u);
        }
        rest -= i * s;
        linear = linear * n + i;
        at.o += i * s;
        at.a += i * a_stride_at(call, d);
        at.b += i * b_stride_at(call, d);
        at.inner = i;
    }
    var start = Start(linear, at);
    if rest > 0u {
        start.e += 1u;
        if start.e < head(call).w {
            start.at = next(call, at, start.e);
        }
    }
    return start;
}

// The offsets of element `e`, the one after `c` in index order: a step along the innermost
// dimension, or for rank 2 a step to the next row, else unravelled.
fn next(call: u32, c: Offsets, e: u32) -> Offsets {
    let last = rank(call) - 1u;
    let inner_n = size_at(call, last);
    if c.inner + 1u < inner_n {
        return Offsets(
            c.o + out_stride_at(call, last),
            c.a + a_stride_at(call, last),
            c.b + b_stride_at(call, last),
            c.inner + 1u,
        );
    }
    if rank(call) == 2u {
        let back = inner_n - 1u;
        return Offsets(
            c.o + out_stride_at(call, 0u) - back * out_stride_at(call, 1u),
            c.a + a_stride_at(call, 0u) - back * a_stride_at(call, 1u),
            c.b + b_stride_at(call, 0u) - back * b_stride_at(call, 1u),
            0u,
        );
    }
    return offsets_of(call, e, rank(call));
}

// WIDTH 1 or 2: writes output word `w` from its elements, which follow one another in index
// order from element `e` (offsets `c`) on: at most 4 / WIDTH of them, gathered and written
// once through a mask, nothing where `c` lies beyond the word.
fn fill_word(call: u32, w: u32, first: Offsets, e_first: u32) {
    var c = first;
    var e = e_first;
    var word = 0u;
    var mask = 0u;
    for (var k = 0u; k < 4u / WIDTH; k++) {
        if k > 0u {
            if e >= head(call).w {
                break;
            }
            c = next(call, c, e);
        }
        let byte = c.o * WIDTH;
        if byte >> 2u != w {
            break;
        }
        let shift = (byte & 3u) * 8u;
        word |= combine_at(c.a, c.b) << shift;
        mask |= lane_mask() << shift;
        e += 1u;
    }
    if mask == 0xffffffffu {
        store_word(w, word);
    } else if mask != 0u {
        store_word(w, (out_buf[w] & ~mask) | word);
    }
}
