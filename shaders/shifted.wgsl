// Shifted-rows kernel. Entry point: `main`.
//
// Rows (every dimension but the last; a rank-1 call is one row) that are dense in the output
// and dense or repeated in each input, at any byte offset: padded rows whose pitch is not a
// multiple of 16 bytes, a slice of a wider tensor, operands that start off a 16-byte boundary.
// The rows kernel needs every row on a 16-byte boundary; this one does not.
//
// Invocation (x, row) owns the x-th 16-byte block of the output's bound window that holds a
// byte of its row (`head.x` is the most blocks a row can touch). A block wholly inside the
// row is one `vec4<u32>` store; each input's 16 bytes for it are read as whole 16-byte
// blocks and shifted into place (a dense row starts at any byte; a repeated element is
// splat), so interior blocks need no lane arithmetic. The first and last block of a row hold
// bytes that are not its own and are written word by word, each word's own lanes through a
// mask. Padding bytes are never written. A word that holds the end of one row and the start
// of the next is written once, by the later row's invocation, which combines both rows' lanes
// in it: no two invocations of a dispatch write one word, so no atomics are needed. The host
// picks this kernel only where rows lie in memory in their index order without interleaving
// (each outer stride spans the whole block inside it), so that only neighbouring rows can
// share a word, and only where each operand can read whole blocks up to the end of what it
// uses.
//
// Metadata: `head.x` blocks per row, `head.z` rows of the whole piece (to know whether a
// next row exists), `head.w` rows of this record, `base.w` the first of them.
//
// Bindings: 0 records (common.wgsl); 1 out_buf, 2 in0, 3 in1 as 16-byte blocks
// (shared/inputs_blocks_*.wgsl, shared/blocks.wgsl).

// The element offsets of row `row`'s first element in out, a and b.
fn row_start(call: u32, row: u32) -> Offsets {
    if rank(call) == 1u {
        let b = base(call);
        return Offsets(b.x, b.y, b.z, 0u);
    }
    return offsets_of(call, row, rank(call) - 1u);
}

// The 16 bytes of binding `src` that start at byte `byte`, which need not be aligned: the one
// or two blocks that hold them, shifted into place. Only blocks holding some of the 16 bytes
// are read.
fn load_at(src: u32, byte: u32) -> vec4<u32> {
    let q = byte >> 2u;
    let bits = (byte & 3u) * 8u;
    let lo = load(src, q >> 2u);
    let j = q & 3u;
    if j == 0u && bits == 0u {
        return lo;
    }
    let hi = load(src, (q >> 2u) + 1u);
    // Words q .. q + 3 in `w`, word q + 4 in `e`.
    var w = lo;
    var e = hi.x;
    switch j {
        case 1u: {
            w = vec4<u32>(lo.yzw, hi.x);
            e = hi.y;
        }
        case 2u: {
            w = vec4<u32>(lo.zw, hi.xy);
            e = hi.z;
        }
        case 3u: {
            w = vec4<u32>(lo.w, hi.xyz);
            e = hi.w;
        }
        default: {}
    }
    if bits == 0u {
        return w;
    }
    let next = vec4<u32>(w.yzw, e);
    return (w >> vec4<u32>(bits)) | (next << vec4<u32>(32u - bits));
}

// Element `e` repeated across a 16-byte block (lanes line up with the output's elements,
// which start on a multiple of WIDTH).
fn load_splat(src: u32, e: u32) -> vec4<u32> {
    if WIDTH == 8u {
        let lo = load_word(src, 2u * e);
        let hi = load_word(src, 2u * e + 1u);
        return vec4<u32>(lo, hi, lo, hi);
    }
    let v = load_lane(src, e);
    if WIDTH == 4u {
        return vec4<u32>(v);
    }
    if WIDTH == 2u {
        return vec4<u32>(v | (v << 16u));
    }
    return vec4<u32>(v * 0x01010101u);
}

// The 16 input bytes that line up with the output bytes `rel` .. `rel + 16` of a row whose
// input row starts at element `start` (mode 0), or that row's one element repeated (mode 1).
fn load_input(src: u32, mode: u32, start: u32, rel: u32) -> vec4<u32> {
    if mode == 1u {
        return load_splat(src, start);
    }
    return load_at(src, start * WIDTH + rel);
}

// Lanes of row `at` (first output byte `ob`, `bytes` bytes, inner strides `step_a`/`step_b`)
// inside output word `w`, placed in the word, and their mask (WIDTH 1 or 2).
struct Lanes {
    value: u32,
    mask: u32,
}

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
    if wb + 4u > end && row + 1u < head(call).z {
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
    let block = w >> 2u;
    let k = w & 3u;
    if l.mask == 0xffffffffu {
        out_buf[block][k] = l.value;
    } else {
        out_buf[block][k] = (out_buf[block][k] & ~l.mask) | l.value;
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
            out_buf[block][k] = r.x;
            out_buf[block][k + 1u] = r.y;
        } else {
            out_buf[block][k] = combine_lane(
                load_word(A_SRC, at.a + i * step_a),
                load_word(B_SRC, at.b + i * step_b),
            );
        }
    }
}

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(workgroup_id) wg: vec3<u32>,
) {
    let call = wg.z;
    let x = gid.x;
    if x >= head(call).x || gid.y >= head(call).w {
        return;
    }
    let row = base(call).w + gid.y;
    let at = row_start(call, row);
    let bytes = size_at(call, rank(call) - 1u) * WIDTH;
    let ob = at.o * WIDTH;
    let block = (ob >> 4u) + x;
    let first = block * 16u;
    if first >= ob + bytes {
        return;
    }
    if first >= ob && first + 16u <= ob + bytes {
        let rel = first - ob;
        let va = load_input(A_SRC, A_MODE, at.a, rel);
        let vb = load_input(B_SRC, B_MODE, at.b, rel);
        out_buf[block] = combine4(va, vb);
        return;
    }
    if WIDTH >= 4u {
        edge_block_wide(call, at, ob, bytes, block);
        return;
    }
    for (var k = 0u; k < 4u; k++) {
        edge_word(call, row, at, ob, bytes, block * 4u + k);
    }
}
