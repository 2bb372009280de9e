// Tile kernel. Entry point: `main`.
//
// Two dimensions [rows, cols]; the output is dense, and at least one input is read across
// its rows (a transposed view: its stride along `rows` is the small one).
//
// WIDTH 4 and 8: each 32 x 8 workgroup owns a 32 x 32 tile of the output, four elements per
// invocation. First every invocation reads its four elements of each tiled input with the
// workgroup's `x` running along `rows`, so that neighbouring invocations read neighbouring
// addresses, and parks them in workgroup memory; after the barrier each invocation combines
// four output elements, taking tiled inputs from workgroup memory (transposed back) and the
// others straight from their buffers, and stores them. Each element is owned by one
// invocation; no word is shared, since elements are 4 or 8 bytes. Tile element (i, j) sits at
// column j ^ i of row i, which keeps both the row-wise writes and the column-wise reads on
// distinct memory banks without padding (padding would not fit two 64-bit tiles in 16 KiB).
// A_MODE / B_MODE = 1 mark the tiled inputs (common.wgsl).
//
// WIDTH 1 and 2: a word holds L = 4 / WIDTH elements, so each invocation owns an L x L block
// of elements, whole output words, and transposes it in registers: an input read across its
// rows gives L words, one per column, each holding the block's L rows of that column, which
// are rearranged into one word per row; an input read along its rows gives the row words
// directly. A 32 x 8 workgroup covers 8L rows and 32L columns. No workgroup memory and no
// barrier. The host picks the tile kernel for these only where every output row starts on a
// word and holds whole words (so each output word lies in one block: one owner, no masks);
// an input that is not word-aligned that way, and the last rows where `rows` is not a
// multiple of L, are read lane by lane.
//
// `base.w` is the first tile row (workgroup row) of this record.
//
// Bindings: 0 records (common.wgsl); 1 out_buf, 2 in0, 3 in1 as words
// (shared/inputs_words_*.wgsl, shared/words.wgsl).

const TILE: u32 = 32u;
const ROWS_PER_PASS: u32 = 8u;

// Low and high words apart, so that 32-bit elements move one word each; four 4 KiB arrays
// fit WebGPU's 16 KiB of workgroup memory.
var<workgroup> tile_a_lo: array<u32, 1024>;
var<workgroup> tile_a_hi: array<u32, 1024>;
var<workgroup> tile_b_lo: array<u32, 1024>;
var<workgroup> tile_b_hi: array<u32, 1024>;

// Element `e` of the window as (low word, high word); the high word is 0 for WIDTH 4.
fn load_element(src: u32, e: u32) -> vec2<u32> {
    if WIDTH == 8u {
        return vec2<u32>(load_word(src, 2u * e), load_word(src, 2u * e + 1u));
    }
    return vec2<u32>(load_word(src, e), 0u);
}

// Where tile element (i, j) is kept.
fn slot(i: u32, j: u32) -> u32 {
    return i * TILE + (j ^ i);
}

// The L x L block of an input (WIDTH 1 or 2, L = 4 / WIDTH) at rows r .. r + n, columns
// c .. c + L, element (r, c) at `e`, strides `s0` and `s1`: word i holds row i's L lanes.
fn block_words(src: u32, e: u32, s0: u32, s1: u32, n: u32) -> vec4<u32> {
    // At least 1, so that WIDTH 8 (which never runs this) compiles.
    let lanes = max(4u / WIDTH, 1u);
    var out = vec4<u32>(0u);
    if n == lanes && e % lanes == 0u {
        if s0 == 1u && s1 % lanes == 0u {
            // Word j holds column j's rows; lane i of it goes to row i.
            for (var j = 0u; j < lanes; j++) {
                let column = load_word(src, (e + j * s1) / lanes);
                for (var i = 0u; i < lanes; i++) {
                    out[i] |= ((column >> (i * WIDTH * 8u)) & lane_mask()) << (j * WIDTH * 8u);
                }
            }
            return out;
        }
        if s1 == 1u && s0 % lanes == 0u {
            for (var i = 0u; i < lanes; i++) {
                out[i] = load_word(src, (e + i * s0) / lanes);
            }
            return out;
        }
    }
    for (var i = 0u; i < n; i++) {
        for (var j = 0u; j < lanes; j++) {
            out[i] |= load_lane(src, e + i * s0 + j * s1) << (j * WIDTH * 8u);
        }
    }
    return out;
}

// WIDTH 1 and 2: invocation l of workgroup wg writes the output words of its L x L block.
fn narrow(call: u32, wg: vec3<u32>, l: vec3<u32>) {
    // At least 1, so that WIDTH 8 (which never runs this) compiles.
    let lanes = max(4u / WIDTH, 1u);
    let r = ((base(call).w + wg.y) * ROWS_PER_PASS + l.y) * lanes;
    let c = (wg.x * TILE + l.x) * lanes;
    let rows = size_at(call, 0u);
    if r >= rows || c >= size_at(call, 1u) {
        return;
    }
    let n = min(lanes, rows - r);
    let a = block_words(
        A_SRC,
        base(call).y + r * a_stride_at(call, 0u) + c * a_stride_at(call, 1u),
        a_stride_at(call, 0u),
        a_stride_at(call, 1u),
        n,
    );
    let b = block_words(
        B_SRC,
        base(call).z + r * b_stride_at(call, 0u) + c * b_stride_at(call, 1u),
        b_stride_at(call, 0u),
        b_stride_at(call, 1u),
        n,
    );
    let w = (base(call).x + r * out_stride_at(call, 0u) + c) / lanes;
    let step = out_stride_at(call, 0u) / lanes;
    for (var i = 0u; i < n; i++) {
        out_buf[w + i * step] = combine_word(a[i], b[i]);
    }
}

@compute @workgroup_size(32, 8)
fn main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_id) l: vec3<u32>,
) {
    let call = wg.z;
    if WIDTH < 4u {
        narrow(call, wg, l);
        return;
    }
    let rows = size_at(call, 0u);
    let cols = size_at(call, 1u);
    let r0 = (base(call).w + wg.y) * TILE;
    let c0 = wg.x * TILE;

    // Phase 1: l.x runs along rows; tile element (c - c0, r - r0).
    for (var k = 0u; k < TILE; k += ROWS_PER_PASS) {
        let r = r0 + l.x;
        let c = c0 + l.y + k;
        if r < rows && c < cols {
            let at = slot(l.y + k, l.x);
            if A_MODE == 1u {
                let v = load_element(A_SRC, base(call).y + r * a_stride_at(call, 0u) + c * a_stride_at(call, 1u));
                tile_a_lo[at] = v.x;
                if WIDTH == 8u {
                    tile_a_hi[at] = v.y;
                }
            }
            if B_MODE == 1u {
                let v = load_element(B_SRC, base(call).z + r * b_stride_at(call, 0u) + c * b_stride_at(call, 1u));
                tile_b_lo[at] = v.x;
                if WIDTH == 8u {
                    tile_b_hi[at] = v.y;
                }
            }
        }
    }
    workgroupBarrier();

    // Phase 2: l.x runs along cols, like the output.
    for (var k = 0u; k < TILE; k += ROWS_PER_PASS) {
        let r = r0 + l.y + k;
        let c = c0 + l.x;
        if r < rows && c < cols {
            let at = slot(l.x, l.y + k);
            var va: vec2<u32>;
            if A_MODE == 1u {
                va = vec2<u32>(tile_a_lo[at], 0u);
                if WIDTH == 8u {
                    va.y = tile_a_hi[at];
                }
            } else {
                va = load_element(A_SRC, base(call).y + r * a_stride_at(call, 0u) + c * a_stride_at(call, 1u));
            }
            var vb: vec2<u32>;
            if B_MODE == 1u {
                vb = vec2<u32>(tile_b_lo[at], 0u);
                if WIDTH == 8u {
                    vb.y = tile_b_hi[at];
                }
            } else {
                vb = load_element(B_SRC, base(call).z + r * b_stride_at(call, 0u) + c * b_stride_at(call, 1u));
            }
            let o = base(call).x + r * out_stride_at(call, 0u) + c * out_stride_at(call, 1u);
            if WIDTH == 8u {
                let v = combine_pair(va, vb);
                out_buf[2u * o] = v.x;
                out_buf[2u * o + 1u] = v.y;
            } else {
                out_buf[o] = combine_lane(va.x, vb.x);
            }
        }
    }
}
