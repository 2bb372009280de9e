// Shifted-rows kernel. Entry point: `main`.
//
// Rows (every dimension but the last; a rank-1 call is one row) that are dense in the output
// and dense or repeated in each input, at any byte offset: padded rows whose pitch is not a
// multiple of 16 bytes, a slice of a wider tensor, operands that start off a 16-byte boundary.
// The rows kernel needs every row on a 16-byte boundary; this one does not.
//
// Invocation u writes up to RUN of the 16-byte blocks of the output's bound window that hold a byte
// of row `row`, where u = row * runs + x (`runs` per row, for the most blocks a row can touch; the
// rows of a call share workgroups, so short rows leave no invocation idle). Which ones is the form
// (SPREAD): the x-th run of RUN consecutive blocks (CPU adapters: the word a block's bytes end in
// is carried to the next block, so every input word is read once; a row of fewer than four runs
// shares its blocks out evenly instead, so that no invocation of a short row holds four blocks
// while another holds one), or blocks x, x + runs, x + 2 runs, ... (GPUs: neighbouring invocations
// write neighbouring blocks, so a group of lanes that stores together stores one span of memory). A
// block wholly inside the row is four word stores; each input's 16 bytes for it are read as words
// and funnel-shifted into place (a dense row starts at any byte; a repeated element is splat), so
// interior blocks need no lane arithmetic. The first and last block of a row hold
// bytes that are not its own and are written word by word, each word's own lanes through a
// mask. Padding bytes are never written. A word that holds the end of one row and the start
// of the next is written once, by the later row's invocation, which combines both rows' lanes
// in it: no two invocations of a dispatch write one word, so no atomics are needed. The host
// picks this kernel only where rows lie in memory in their index order without interleaving
// (each outer stride spans the whole block inside it), so that only neighbouring rows can
// share a word. Only words that hold an operand's bytes are read or written.
//
// Metadata: `head.x` invocations (rows times runs), `head.z` invocations per row of the
// dispatch grid (common.wgsl), `head.w` runs per row.
//
// Bindings: 0 records (common.wgsl); 1 out_buf, 2 in0, 3 in1 as words
// (shared/inputs_words_*.wgsl, shared/words.wgsl).

// The element offsets of row `row`'s first element in out, a and b.
fn row_start(call: u32, row: u32) -> Offsets {
    if rank(call) == 1u {
        let b = base(call);
        return Offsets(b.x, b.y, b.z, 0u);
    }
    return offsets_of(call, row, rank(call) - 1u);
}

// Output blocks each invocation writes, one after the other along its row.
const RUN: u32 = 4u;

// One dense input's reader along a run of blocks: the word its first block starts in, how
// many bits into that word, and the word read last, carried to the next block.
struct Reader {
    word: u32,
    bits: u32,
    last: u32,
}

// The reader of input `src` for the output blocks from the one whose bytes line up with
// input byte `byte`.
fn reader(src: u32, byte: u32) -> Reader {
    let w = byte >> 2u;
    return Reader(w, (byte & 3u) * 8u, load_word(src, w));
}

// The `k`-th 16 input bytes of reader `r`: four words where they start on a word, else the
// four words after the one read last, funnel-shifted together with it. Only words holding
// some of the bytes are read.
fn next_block(src: u32, r: ptr<function, Reader>, k: u32) -> vec4<u32> {
    let w = (*r).word + 4u * k;
    let bits = (*r).bits;
    if bits == 0u {
        return vec4<u32>(
            load_word(src, w),
            load_word(src, w + 1u),
            load_word(src, w + 2u),
            load_word(src, w + 3u),
        );
    }
    let hi = vec4<u32>(
        load_word(src, w + 1u),
        load_word(src, w + 2u),
        load_word(src, w + 3u),
        load_word(src, w + 4u),
    );
    let lo = vec4<u32>((*r).last, hi.xyz);
    (*r).last = hi.w;
    return (lo >> vec4<u32>(bits)) | (hi << vec4<u32>(32u - bits));
}

// Some lanes of an output word, placed in the word, and their mask.
struct Lanes {
    value: u32,
    mask: u32,
}

// Lanes of row `at` (first output byte `ob`, `bytes` bytes, inner strides `step_a`/`step_b`)
// inside output word `w` (WIDTH 1 or 2).
fn lanes_of(at: Offsets, ob: u32, bytes: u32, w: u32, step_a: u32, step_b: u32) -> Lanes {
    let wb = w * 4u;
    var out = Lanes(0u, 0u);
    for (var p = max(wb, ob); p < min(wb + 4u, ob + bytes); p += WIDTH) {
        let i = (p - ob) / WIDTH;
        let v = combine_lane(load_lane(A_SRC, at.a + i * step_a), load_lane(B_SRC, at.b + i * step_b));
        let shift = (p - wb) * 8u;
        out.value |= v << shift;
        out.mask |= lane_mask() << shift;
    }
    return out;
}

// Writes output word `w` of an edge block of row `row` (WIDTH 1 or 2): its own lanes, and the
// previous row's where the two rows share the word; nothing where the next row shares it
// (that row writes it).
fn edge_word(call: u32, row: u32, at: Offsets, ob: u32, bytes: u32, w: u32) {
    let wb = w * 4u;
    let end = ob + bytes;
    if wb + 4u <= ob || wb >= end {
        return;
    }
    if wb + 4u > end && row + 1u < head(call).x / head(call).w {
        if row_start(call, row + 1u).o * WIDTH < wb + 4u {
            return;
        }
    }
    let inner = rank(call) - 1u;
    let step_a = a_stride_at(call, inner);
    let step_b = b_stride_at(call, inner);
    var l = lanes_of(at, ob, bytes, w, step_a, step_b);
    if wb < ob && row > 0u {
        let prev = row_start(call, row - 1u);
        let p = lanes_of(prev, prev.o * WIDTH, bytes, w, step_a, step_b);
        l.value |= p.value;
        l.mask |= p.mask;
    }
    if l.mask == 0xffffffffu {
        out_buf[w] = l.value;
    } else {
        out_buf[w] = (out_buf[w] & ~l.mask) | l.value;
    }
}

// Writes the words of an edge block of a row of 32- or 64-bit elements: every word is wholly
// inside the row or wholly outside it, and no word is shared.
fn edge_block_wide(call: u32, at: Offsets, ob: u32, bytes: u32, block: u32) {
    let inner = rank(call) - 1u;
    let step_a = a_stride_at(call, inner);
    let step_b = b_stride_at(call, inner);
    // WIDTH / 4 words per element (the max keeps the step nonzero where WIDTH < 4 is compiled,
    // which never runs this).
    for (var k = 0u; k < 4u; k += max(WIDTH / 4u, 1u)) {
        let wb = block * 16u + k * 4u;
        if wb < ob || wb >= ob + bytes {
            continue;
        }
        let i = (wb - ob) / WIDTH;
        if WIDTH == 8u {
            let a = at.a + i * step_a;
            let b = at.b + i * step_b;
            let va = vec2<u32>(load_word(A_SRC, 2u * a), load_word(A_SRC, 2u * a + 1u));
            let vb = vec2<u32>(load_word(B_SRC, 2u * b), load_word(B_SRC, 2u * b + 1u));
            let r = combine_pair(va, vb);
            out_buf[block * 4u + k] = r.x;
            out_buf[block * 4u + k + 1u] = r.y;
        } else {
            out_buf[block * 4u + k] = combine_lane(
                load_word(A_SRC, at.a + i * step_a),
                load_word(B_SRC, at.b + i * step_b),
            );
        }
    }
}

// Writes output blocks `b0` .. `b1`, each wholly inside the row `at` whose first output byte is
// `ob`.
fn interior(at: Offsets, ob: u32, b0: u32, b1: u32) {
    let rel = b0 * 16u - ob;
    // A dense input is read along the row; a repeated element is the same block all along.
    var ra = Reader(0u, 0u, 0u);
    var rb = Reader(0u, 0u, 0u);
    var va: vec4<u32>;
    var vb: vec4<u32>;
    if A_MODE == 0u {
        ra = reader(A_SRC, at.a * WIDTH + rel);
    } else {
        va = splat(A_SRC, at.a);
    }
    if B_MODE == 0u {
        rb = reader(B_SRC, at.b * WIDTH + rel);
    } else {
        vb = splat(B_SRC, at.b);
    }
    for (var k = 0u; k < b1 - b0; k++) {
        if A_MODE == 0u {
            va = next_block(A_SRC, &ra, k);
        }
        if B_MODE == 0u {
            vb = next_block(B_SRC, &rb, k);
        }
        store_words(b0 + k, combine4(va, vb));
    }
}

// Stores `r` as output block `block`, a word at a time (the output is bound as words).
fn store_words(block: u32, r: vec4<u32>) {
    let o = block * 4u;
    out_buf[o] = r.x;
    out_buf[o + 1u] = r.y;
    out_buf[o + 2u] = r.z;
    out_buf[o + 3u] = r.w;
}

// The 16 bytes of input `src` from byte `byte` on: four words where they start on a word,
// else five funnel-shifted together.
fn input_block(src: u32, byte: u32) -> vec4<u32> {
    let w = byte >> 2u;
    let bits = (byte & 3u) * 8u;
    let lo = vec4<u32>(
        load_word(src, w),
        load_word(src, w + 1u),
        load_word(src, w + 2u),
        load_word(src, w + 3u),
    );
    if bits == 0u {
        return lo;
    }
    let hi = vec4<u32>(lo.yzw, load_word(src, w + 4u));
    return (lo >> vec4<u32>(bits)) | (hi << vec4<u32>(32u - bits));
}

// Writes output block `block`, wholly inside row `at`, `rel` bytes into the row.
fn interior_block(at: Offsets, rel: u32, block: u32) {
    var va: vec4<u32>;
    var vb: vec4<u32>;
    if A_MODE == 0u {
        va = input_block(A_SRC, at.a * WIDTH + rel);
    } else {
        va = splat(A_SRC, at.a);
    }
    if B_MODE == 0u {
        vb = input_block(B_SRC, at.b * WIDTH + rel);
    } else {
        vb = splat(B_SRC, at.b);
    }
    store_words(block, combine4(va, vb));
}

// Writes edge block `block` of row `row` (a block that holds bytes outside the row).
fn edge_block(call: u32, row: u32, at: Offsets, ob: u32, bytes: u32, block: u32) {
    if WIDTH >= 4u {
        edge_block_wide(call, at, ob, bytes, block);
    } else {
        for (var k = 0u; k < 4u; k++) {
            edge_word(call, row, at, ob, bytes, block * 4u + k);
        }
    }
}

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
    let runs = head(call).w;
    let row = div_row_units(call, u);
    let x = u - row * runs;
    let at = row_start(call, row);
    let bytes = size_at(call, rank(call) - 1u) * WIDTH;
    let ob = at.o * WIDTH;
    let end = ob + bytes;
    // The row's blocks [ob / 16, last), those wholly inside it [b0, b1).
    let last = (end + 15u) >> 4u;
    let b0 = (ob + 15u) >> 4u;
    let b1 = end >> 4u;
    if SPREAD {
        for (var k = 0u; k < RUN; k++) {
            let block = (ob >> 4u) + x + k * runs;
            if block >= last {
                return;
            }
            if block >= b0 && block < b1 {
                interior_block(at, block * 16u - ob, block);
            } else {
                edge_block(call, row, at, ob, bytes, block);
            }
        }
        return;
    }
    var first = (ob >> 4u) + x * RUN;
    var stop = min(first + RUN, last);
    if runs < 4u {
        // A short row's blocks shared out evenly, the first `r` invocations taking one more.
        let fb = ob >> 4u;
        let nb = last - fb;
        let q = div_row_units(call, nb);
        let r = nb - q * runs;
        first = fb + x * q + min(x, r);
        stop = first + q + select(0u, 1u, x < r);
    }
    if first >= stop {
        return;
    }
    let i0 = max(first, b0);
    let i1 = min(stop, b1);
    if i0 < i1 {
        interior(at, ob, i0, i1);
    }
    if first == i0 && stop == i1 {
        return;
    }
    for (var block = first; block < stop; block++) {
        if block < i0 || block >= i1 {
            edge_block(call, row, at, ob, bytes, block);
        }
    }
}
