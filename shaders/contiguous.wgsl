// Contiguous kernel. Entry point: `main`.
//
// The output and every input read in mode 0 are dense runs of `head.w` bytes that start on a
// 16-byte boundary of their windows; `base` holds each one's first 16-byte block in its
// window (not elements: the kernel counts bytes and blocks, so that one pipeline serves every
// element width of the bitwise function, and WIDTH matters only to the logical one).
// Invocation v combines the v-th 16 bytes of A and B into the v-th 16 bytes of the output:
// `head.x` is the number of whole 16-byte blocks. A count of ones whose input has another
// width (IN_WIDTH, BIT_COUNT u64 into u8 or u8 into u32) counts the block's 16 / WIDTH
// elements from A's, one by one (`counted_block`).
//
// An input read in mode 1 or 2 (A_MODE, B_MODE) holds one element per row of a
// two-dimensional call ([rows, L], the output's rows one after the other in memory): a
// channel broadcast such as [1, C, H, W] ^ [1, C, 1, 1]. Its `base` is that element's offset
// in elements, its outer stride the step from one row's element to the next; block v takes
// it from the row of its first element (one division by L, as a multiply-high). In mode 2 a
// row is whole blocks, and that is all; in mode 1 the lanes past that row's end take the
// next row's element (rows are at least 16 bytes long, so a block meets at most two),
// without a branch. An input read in mode 3 is one element (its `base`, in elements)
// repeated over the whole run of a one-dimensional call: a tensor and a scalar.
//
// The common path is one compare, the loads and one store, like a bare XOR kernel's; what
// would cost more on every invocation is compiled in only where a call needs it (adapters
// that run a workgroup as SIMD lanes under an execution mask, CPU adapters among them, pay
// for every path a branch could take):
// - TAIL: a run whose length is not a multiple of 16 ends in a partial block. Invocation
//   `head.x` reads it whole (windows end on a 16-byte boundary) and writes it whole through
//   a mask that gives the bytes after the tensor back their own value (no other invocation of
//   the dispatch touches that block: calls merged into one dispatch never share a 16-byte
//   block). Without TAIL the host runs such a block as a dispatch of its own.
// - DIRECT: the dispatch runs one record and every operand starts its binding: the record
//   index is the constant 0 and the offsets in `base` are not read, so the compiler hoists
//   every read of the record out of the invocation.
//
// Bindings: 0 records (common.wgsl); 1 out_buf, 2 in0, 3 in1 as 16-byte blocks
// (shared/inputs_blocks_*.wgsl, shared/blocks.wgsl).

// Bytes of a 16-byte block (per word) that lie before byte `bytes` of it, as masks.
fn mask_before(bytes: u32) -> vec4<u32> {
    let starts = vec4<u32>(0u, 4u, 8u, 12u);
    let inside = min(vec4<u32>(bytes) - min(starts, vec4<u32>(bytes)), vec4<u32>(4u));
    return select(
        (vec4<u32>(1u) << (inside * 8u)) - 1u,
        vec4<u32>(0xffffffffu),
        inside == vec4<u32>(4u),
    );
}

// The 16 bytes of a mode-1 input for output block v: the element of each row (the first at
// element `first` of binding `src`, the next `stride` elements on) under that row's lanes.
fn repeated(call: u32, src: u32, first: u32, stride: u32, v: u32) -> vec4<u32> {
    let lanes = 16u / WIDTH;
    let e = v * lanes;
    let row = div_size(call, 1u, e);
    let next = min(row + 1u, size_at(call, 0u) - 1u);
    let left = (row + 1u) * size_at(call, 1u) - e;
    let here = splat(src, first + row * stride);
    let there = splat(src, first + next * stride);
    if WIDTH >= 4u {
        // Whole words: one compare a word picks the row (a 64-bit lane is two words).
        let lane = vec4<u32>(0u, 1u, 2u, 3u) / max(WIDTH / 4u, 1u);
        return select(there, here, lane < vec4<u32>(left));
    }
    let mask = mask_before(min(left, lanes) * WIDTH);
    return (here & mask) | (there & ~mask);
}

// Input block v from binding `src`: block `block` of a dense run (mode 0), else a repeated
// element (`first` and `stride` in elements): the one element of the run (mode 3), or the
// row's: mode 2 where a row is whole blocks (no block meets two rows), mode 1 otherwise.
fn input(call: u32, src: u32, mode: u32, block: u32, first: u32, stride: u32, v: u32) -> vec4<u32> {
    if mode == 3u {
        return splat(src, first);
    }
    if mode == 2u {
        return splat(src, first + div_size(call, 1u, v * (16u / WIDTH)) * stride);
    }
    if mode == 1u {
        return repeated(call, src, first, stride, v);
    }
    return load(src, block);
}

// A block of counts of ones whose input has another width (IN_WIDTH, BIT_COUNT): the
// 16 / WIDTH input elements from element `first` of A, counted and packed at the output's
// width. Narrow inputs are read a word at a time and counted a word at a time (u8 into u32:
// one word in, one block out), wide ones element by element.
fn counted_block(first: u32) -> vec4<u32> {
    if IN_WIDTH <= 2u && WIDTH == 4u {
        // 4 elements: one word of bytes, or two of halves.
        let w = first * IN_WIDTH / 4u;
        if IN_WIDTH == 1u {
            let c = lane_counts(load_word(A_SRC, w), 1u);
            return vec4<u32>(c & 0xffu, (c >> 8u) & 0xffu, (c >> 16u) & 0xffu, c >> 24u);
        }
        let lo = lane_counts(load_word(A_SRC, w), 2u);
        let hi = lane_counts(load_word(A_SRC, w + 1u), 2u);
        return vec4<u32>(lo & 0xffffu, lo >> 16u, hi & 0xffffu, hi >> 16u);
    }
    if IN_WIDTH == 2u && WIDTH == 1u {
        // 16 elements: eight words of halves, two to an output word.
        let w = first / 2u;
        var r = vec4<u32>(0u);
        for (var k = 0u; k < 4u; k++) {
            let lo = lane_counts(load_word(A_SRC, w + 2u * k), 2u);
            let hi = lane_counts(load_word(A_SRC, w + 2u * k + 1u), 2u);
            r[k] = (lo & 0xffu) | ((lo >> 8u) & 0xff00u) | ((hi & 0xffu) << 16u) | ((hi >> 16u) << 24u);
        }
        return r;
    }
    let per_word = 4u / WIDTH;
    var r = vec4<u32>(0u);
    for (var w = 0u; w < 4u; w++) {
        var word = 0u;
        for (var k = 0u; k < per_word; k++) {
            word |= count_at(first + w * per_word + k) << (k * WIDTH * 8u);
        }
        r[w] = word;
    }
    return r;
}

// Output block v combined, its operands' blocks at `at` (`b` their offsets).
fn combined(call: u32, v: u32, b: vec4<u32>, at: vec3<u32>) -> vec4<u32> {
    if IN_WIDTH != 0u {
        // A's block index counts A's own 16 bytes: its elements from there on.
        // max: the constant is 0 in every other pipeline, which compiles this line too.
        return counted_block(b.y * (16u / max(IN_WIDTH, 1u)) + v * (16u / WIDTH));
    }
    let va = input(call, A_SRC, A_MODE, at.y, b.y, a_stride_at(call, 0u), v);
    let vb = input(call, B_SRC, B_MODE, at.z, b.z, b_stride_at(call, 0u), v);
    return combine4(va, vb);
}

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(workgroup_id) wg: vec3<u32>,
) {
    let call = select(wg.z, 0u, DIRECT);
    let v = unit_index(call, gid);
    var b = vec4<u32>(0u);
    if !DIRECT {
        b = base(call);
    }
    let at = b.xyz + vec3<u32>(v);
    if !TAIL {
        if v < head(call).x {
            out_buf[at.x] = combined(call, v, b, at);
        }
        return;
    }
    // With a partial last block: the block combined once, then stored whole or, for the
    // last, the tensor's bytes of it with the rest kept.
    let bytes = head(call).w;
    let first = v * 16u;
    if first >= bytes {
        return;
    }
    let r = combined(call, v, b, at);
    if v < head(call).x {
        out_buf[at.x] = r;
    } else {
        let mask = mask_before(bytes - first);
        out_buf[at.x] = (out_buf[at.x] & ~mask) | (r & mask);
    }
}
