// Tile kernel. Entry point: `main`.
//
// Two dimensions [rows, cols] per matrix; the output is dense, and at least one input is
// read across its rows (a transposed view: its stride along `rows` is the small one). A batch
// of matrices (a permutation of 3 to 8 dimensions that swaps the innermost axis with
// another, of any number of batch dimensions, wherever they lie in memory) runs on one grid
// whose rows are the batch's tile rows, matrix by matrix; each workgroup finds its matrix,
// and each operand's first element in it, from its grid row once (`tile_row` in
// common.wgsl).
//
// WIDTH 4 and 8: each 32 x 8 workgroup owns a 32 x 32 tile of the output, four elements per
// invocation. First every invocation loads its four elements of each staged input with the
// workgroup's `x` running along `rows`, so that neighbouring invocations read neighbouring
// addresses (a warp's 32 loads one 128-byte line for 32-bit elements), and only then parks
// them in workgroup memory; after the barrier each invocation loads its four elements of the
// other input from its buffer and reads the staged ones back from workgroup memory
// (transposed), and only then combines and stores them, `x` running along `cols` like the
// output. Loading every element before the first store keeps all four loads of an
// invocation in flight at once: a compiler that cannot prove the output does not alias an
// input would otherwise wait for each load before the store ahead of it, and a GPU's memory
// is then bound by latency, not bandwidth. Each element is owned by one invocation; no word
// is shared, since elements are 4 or 8 bytes. Tile element (i, j) sits at column j ^ i of
// row i, which keeps both the row-wise writes and the column-wise reads on distinct memory
// banks without padding (padding would not fit two 64-bit tiles in 16 KiB).
//
// WIDTH 1 and 2: a word holds L = 4 / WIDTH elements, and each output word lies in one row
// (the host picks the tile kernel only where every output row starts on a word and holds
// whole words), so every invocation writes whole words, one owner each, no masks. Two forms:
//
// - Staged (A_MODE or B_MODE 1: a GPU's form): each workgroup owns a square of 16L x 16L
//   elements, 16 x 16 words. Invocation i first reads the L x L block at word row i % 16 and
//   column group i / 16 of each staged input, so that neighbouring invocations read
//   neighbouring words along the input's memory (each word holds L rows of one column),
//   transposes it in registers into L words of L columns each, and parks them in workgroup
//   memory; after the barrier it writes L output words, at word column i % 16 of rows
//   i / 16 + 16m, so that neighbouring invocations write neighbouring words of a row, taking
//   the staged inputs from workgroup memory and the others from their buffers (all loads
//   before the first store, as above). Word j of tile row r sits at column j ^ (r / L) % 16,
//   which keeps the second phase's reads (two rows of 16 words a warp) on 32 banks.
// - Direct (both modes 0: a CPU adapter's form, no workgroup memory and no barrier): a 32 x 8
//   workgroup covers 8L rows and 32L columns, and each invocation owns an L x L block of
//   elements, whole output words, and transposes it in registers: an input read across its
//   rows gives L words, one per column, each holding the block's L rows of that column,
//   which are rearranged into one word per row; an input read along its rows gives the row
//   words directly.
//
// In both, an input that is not word-aligned that way, and the last rows where `rows` is not
// a multiple of L, are read lane by lane.
//
// `base.w` is the first grid row (workgroup row) of this record.
//
// Bindings: 0 records (common.wgsl); 1 out_buf, 2 in0, 3 in1 as words
// (shared/inputs_words_*.wgsl, shared/words.wgsl).

const TILE: u32 = 32u;
const ROWS_PER_PASS: u32 = 8u;
// Word rows (and word columns) of a staged tile of 8- or 16-bit elements.
const WORD_ROWS: u32 = 16u;

// Low and high words apart, so that 32-bit elements move one word each; four 4 KiB arrays
// fit WebGPU's 16 KiB of workgroup memory. A staged narrow tile uses the low arrays: 16L rows
// of 16 words, at most 1,024.
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

// Where word j of row i of a staged narrow tile is kept.
fn narrow_slot(i: u32, j: u32) -> u32 {
    // At least 1, so that WIDTH 8 (which never runs this) compiles.
    let lanes = max(4u / WIDTH, 1u);
    return i * WORD_ROWS + (j ^ ((i / lanes) % WORD_ROWS));
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

// The word of L lanes (WIDTH 1 or 2) of one row of an input from element `e`, column stride
// `s1`: one load where the row's lanes fill a word, else lane by lane.
fn row_word(src: u32, e: u32, s1: u32) -> u32 {
    // At least 1, so that WIDTH 8 (which never runs this) compiles.
    let lanes = max(4u / WIDTH, 1u);
    if s1 == 1u && e % lanes == 0u {
        return load_word(src, e / lanes);
    }
    var word = 0u;
    for (var j = 0u; j < lanes; j++) {
        word |= load_lane(src, e + j * s1) << (j * WIDTH * 8u);
    }
    return word;
}

// WIDTH 1 and 2, direct form: invocation l of workgroup wg writes the output words of its
// L x L block.
fn narrow_direct(call: u32, at: TileRow, wg: vec3<u32>, l: vec3<u32>) {
    // At least 1, so that WIDTH 8 (which never runs this) compiles.
    let lanes = max(4u / WIDTH, 1u);
    let r = (at.row * ROWS_PER_PASS + l.y) * lanes;
    let c = (wg.x * TILE + l.x) * lanes;
    let rows = size_at(call, 0u);
    if r >= rows || c >= size_at(call, 1u) {
        return;
    }
    let n = min(lanes, rows - r);
    let pa = input_plane(call, at, 0u);
    let pb = input_plane(call, at, 1u);
    let a = block_words(A_SRC, plane_at(pa, r, c), pa.outer, pa.inner, n);
    let b = block_words(B_SRC, plane_at(pb, r, c), pb.outer, pb.inner, n);
    let w = (at.out + r * out_stride_at(call, 0u) + c) / lanes;
    let step = out_stride_at(call, 0u) / lanes;
    for (var i = 0u; i < n; i++) {
        out_buf[w + i * step] = combine_word(a[i], b[i]);
    }
}

// WIDTH 1 and 2, staged form: invocation `li` of workgroup wg, as the header describes.
fn narrow_staged(call: u32, at: TileRow, wg: vec3<u32>, li: u32) {
    // At least 1, so that WIDTH 8 (which never runs this) compiles.
    let lanes = max(4u / WIDTH, 1u);
    let side = WORD_ROWS * lanes;
    let rows = size_at(call, 0u);
    let cols = size_at(call, 1u);
    let r0 = at.row * side;
    let c0 = wg.x * side;
    let pa = input_plane(call, at, 0u);
    let pb = input_plane(call, at, 1u);

    // Phase 1: the block at word row k (rows r .. r + L) and column group g (columns
    // c .. c + L); k runs fastest, along the staged inputs' memory.
    let k = li % WORD_ROWS;
    let g = li / WORD_ROWS;
    let r = r0 + k * lanes;
    let c = c0 + g * lanes;
    if r < rows && c < cols {
        let n = min(lanes, rows - r);
        if A_MODE == 1u {
            let a = block_words(A_SRC, plane_at(pa, r, c), pa.outer, pa.inner, n);
            for (var i = 0u; i < n; i++) {
                tile_a_lo[narrow_slot(k * lanes + i, g)] = a[i];
            }
        }
        if B_MODE == 1u {
            let b = block_words(B_SRC, plane_at(pb, r, c), pb.outer, pb.inner, n);
            for (var i = 0u; i < n; i++) {
                tile_b_lo[narrow_slot(k * lanes + i, g)] = b[i];
            }
        }
    }
    workgroupBarrier();

    // Phase 2: word column j of tile rows li / 16 + 16m; j runs fastest, along the output's
    // rows. Every load first, then the stores.
    let j = li % WORD_ROWS;
    let cw = c0 + j * lanes;
    var va: array<u32, 4>;
    var vb: array<u32, 4>;
    for (var m = 0u; m < lanes; m++) {
        let i = li / WORD_ROWS + WORD_ROWS * m;
        let row = r0 + i;
        if row < rows && cw < cols {
            if A_MODE == 1u {
                va[m] = tile_a_lo[narrow_slot(i, j)];
            } else {
                va[m] = row_word(A_SRC, plane_at(pa, row, cw), pa.inner);
            }
            if B_MODE == 1u {
                vb[m] = tile_b_lo[narrow_slot(i, j)];
            } else {
                vb[m] = row_word(B_SRC, plane_at(pb, row, cw), pb.inner);
            }
        }
    }
    for (var m = 0u; m < lanes; m++) {
        let row = r0 + li / WORD_ROWS + WORD_ROWS * m;
        if row < rows && cw < cols {
            out_buf[(at.out + row * out_stride_at(call, 0u) + cw) / lanes] =
                combine_word(va[m], vb[m]);
        }
    }
}

// WIDTH 4 and 8. The four elements of each phase are written out one by one, each by a call
// whose pass `k` is a constant, into arrays indexed by constants only, so that no compiler
// keeps them in memory, whether or not it unrolls loops (wgpu bounds every loop).

// The element at (r, c) of a staged input of plane `p`, or zeros outside the matrix.
fn staged_element(src: u32, p: Plane, t: vec4<u32>, r: u32, c: u32) -> vec2<u32> {
    if r < t.z && c < t.w {
        return load_element(src, plane_at(p, r, c));
    }
    return vec2<u32>(0u);
}

// Phase 1's four elements of a staged input, one per pass k: row r, columns c + 8k.
fn staged_elements(src: u32, p: Plane, t: vec4<u32>, r: u32, c: u32) -> array<vec2<u32>, 4> {
    return array<vec2<u32>, 4>(
        staged_element(src, p, t, r, c),
        staged_element(src, p, t, r, c + ROWS_PER_PASS),
        staged_element(src, p, t, r, c + 2u * ROWS_PER_PASS),
        staged_element(src, p, t, r, c + 3u * ROWS_PER_PASS),
    );
}

// Parks phase 1's element of pass k (tile element (i, j) = (l.y + 8k, l.x)) of the staged
// inputs, where it lies inside the matrix.
fn park_element(i: u32, j: u32, inside: bool, a: vec2<u32>, b: vec2<u32>) {
    if !inside {
        return;
    }
    let at = slot(i, j);
    if A_MODE == 1u {
        tile_a_lo[at] = a.x;
        if WIDTH == 8u {
            tile_a_hi[at] = a.y;
        }
    }
    if B_MODE == 1u {
        tile_b_lo[at] = b.x;
        if WIDTH == 8u {
            tile_b_hi[at] = b.y;
        }
    }
}

// Phase 2's element of an input (0: A, 1: B) at output (rr, c): from the tile's slot `at`
// where the input is staged, else from its buffer; zeros outside the matrix.
fn phase_two_element(src: u32, mode: u32, which: u32, p: Plane, t: vec4<u32>, rr: u32, c: u32, at: u32) -> vec2<u32> {
    if rr >= t.z || c >= t.w {
        return vec2<u32>(0u);
    }
    if mode == 1u {
        var v = vec2<u32>(0u);
        if which == 0u {
            v.x = tile_a_lo[at];
            if WIDTH == 8u {
                v.y = tile_a_hi[at];
            }
        } else {
            v.x = tile_b_lo[at];
            if WIDTH == 8u {
                v.y = tile_b_hi[at];
            }
        }
        return v;
    }
    return load_element(src, plane_at(p, rr, c));
}

// Phase 2's four elements of an input (0: A, 1: B) at output rows r + 8k, column c.
fn phase_two(src: u32, mode: u32, which: u32, p: Plane, t: vec4<u32>, r: u32, c: u32, j: u32) -> array<vec2<u32>, 4> {
    return array<vec2<u32>, 4>(
        phase_two_element(src, mode, which, p, t, r, c, slot(j, r - t.x)),
        phase_two_element(src, mode, which, p, t, r + ROWS_PER_PASS, c, slot(j, r - t.x + ROWS_PER_PASS)),
        phase_two_element(src, mode, which, p, t, r + 2u * ROWS_PER_PASS, c, slot(j, r - t.x + 2u * ROWS_PER_PASS)),
        phase_two_element(src, mode, which, p, t, r + 3u * ROWS_PER_PASS, c, slot(j, r - t.x + 3u * ROWS_PER_PASS)),
    );
}

// Stores the output's element at (rr, c) of the matrix whose first output element is
// `first`, where it lies inside the matrix.
fn store_element(call: u32, first: u32, t: vec4<u32>, rr: u32, c: u32, a: vec2<u32>, b: vec2<u32>) {
    if rr >= t.z || c >= t.w {
        return;
    }
    let o = first + rr * out_stride_at(call, 0u) + c * out_stride_at(call, 1u);
    if WIDTH == 8u {
        let v = combine_pair(a, b);
        out_buf[2u * o] = v.x;
        out_buf[2u * o + 1u] = v.y;
    } else {
        out_buf[o] = combine_lane(a.x, b.x);
    }
}

// WIDTH 4 and 8: invocation l of workgroup wg, as the header describes.
fn wide(call: u32, at: TileRow, wg: vec3<u32>, l: vec3<u32>) {
    // The tile's first row and column, and the matrix's rows and columns.
    let t = vec4<u32>(at.row * TILE, wg.x * TILE, size_at(call, 0u), size_at(call, 1u));
    let pa = input_plane(call, at, 0u);
    let pb = input_plane(call, at, 1u);

    // Phase 1: l.x runs along rows; tile element (c - c0, r - r0). Every load, then every
    // write to workgroup memory.
    let r = t.x + l.x;
    let c1 = t.y + l.y;
    var sa: array<vec2<u32>, 4>;
    var sb: array<vec2<u32>, 4>;
    if A_MODE == 1u {
        sa = staged_elements(A_SRC, pa, t, r, c1);
    }
    if B_MODE == 1u {
        sb = staged_elements(B_SRC, pb, t, r, c1);
    }
    let inside = r < t.z;
    park_element(l.y, l.x, inside && c1 < t.w, sa[0], sb[0]);
    park_element(l.y + ROWS_PER_PASS, l.x, inside && c1 + ROWS_PER_PASS < t.w, sa[1], sb[1]);
    park_element(l.y + 2u * ROWS_PER_PASS, l.x, inside && c1 + 2u * ROWS_PER_PASS < t.w, sa[2], sb[2]);
    park_element(l.y + 3u * ROWS_PER_PASS, l.x, inside && c1 + 3u * ROWS_PER_PASS < t.w, sa[3], sb[3]);
    workgroupBarrier();

    // Phase 2: l.x runs along cols, like the output. Every load (from the buffers and from
    // workgroup memory), then every store.
    let c = t.y + l.x;
    let r2 = t.x + l.y;
    let va = phase_two(A_SRC, A_MODE, 0u, pa, t, r2, c, l.x);
    let vb = phase_two(B_SRC, B_MODE, 1u, pb, t, r2, c, l.x);
    store_element(call, at.out, t, r2, c, va[0], vb[0]);
    store_element(call, at.out, t, r2 + ROWS_PER_PASS, c, va[1], vb[1]);
    store_element(call, at.out, t, r2 + 2u * ROWS_PER_PASS, c, va[2], vb[2]);
    store_element(call, at.out, t, r2 + 3u * ROWS_PER_PASS, c, va[3], vb[3]);
}

@compute @workgroup_size(32, 8)
fn main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_id) l: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
) {
    let call = wg.z;
    let at = tile_row(call, base(call).w + wg.y);
    if WIDTH < 4u {
        if A_MODE == 1u || B_MODE == 1u {
            narrow_staged(call, at, wg, li);
        } else {
            narrow_direct(call, at, wg, l);
        }
        return;
    }
    wide(call, at, wg, l);
}
