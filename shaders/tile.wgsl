// Tile kernel. Entry point: `main`.
//
// Two dimensions [rows, cols] per record; the output is dense, and at least one input is
// read across its rows (a transposed view: its stride along `rows` is the small one). A batch
// of matrices (a 3-D or 4-D permutation that swaps the innermost axis) is one record per
// matrix, or more; the host steps each record's first elements by the batch strides.
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
// `base.w` is the first tile row (workgroup row) of this record.
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
fn narrow_direct(call: u32, wg: vec3<u32>, l: vec3<u32>) {
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

// WIDTH 1 and 2, staged form: invocation `li` of workgroup wg, as the header describes.
fn narrow_staged(call: u32, wg: vec3<u32>, li: u32) {
    // At least 1, so that WIDTH 8 (which never runs this) compiles.
    let lanes = max(4u / WIDTH, 1u);
    let side = WORD_ROWS * lanes;
    let rows = size_at(call, 0u);
    let cols = size_at(call, 1u);
    let r0 = (base(call).w + wg.y) * side;
    let c0 = wg.x * side;

    // Phase 1: the block at word row k (rows r .. r + L) and column group g (columns
    // c .. c + L); k runs fastest, along the staged inputs' memory.
    let k = li % WORD_ROWS;
    let g = li / WORD_ROWS;
    let r = r0 + k * lanes;
    let c = c0 + g * lanes;
    if r < rows && c < cols {
        let n = min(lanes, rows - r);
        if A_MODE == 1u {
            let a = block_words(
                A_SRC,
                base(call).y + r * a_stride_at(call, 0u) + c * a_stride_at(call, 1u),
                a_stride_at(call, 0u),
                a_stride_at(call, 1u),
                n,
            );
            for (var i = 0u; i < n; i++) {
                tile_a_lo[narrow_slot(k * lanes + i, g)] = a[i];
            }
        }
        if B_MODE == 1u {
            let b = block_words(
                B_SRC,
                base(call).z + r * b_stride_at(call, 0u) + c * b_stride_at(call, 1u),
                b_stride_at(call, 0u),
                b_stride_at(call, 1u),
                n,
            );
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
                va[m] = row_word(
                    A_SRC,
                    base(call).y + row * a_stride_at(call, 0u) + cw * a_stride_at(call, 1u),
                    a_stride_at(call, 1u),
                );
            }
            if B_MODE == 1u {
                vb[m] = tile_b_lo[narrow_slot(i, j)];
            } else {
                vb[m] = row_word(
                    B_SRC,
                    base(call).z + row * b_stride_at(call, 0u) + cw * b_stride_at(call, 1u),
                    b_stride_at(call, 1u),
                );
            }
        }
    }
    for (var m = 0u; m < lanes; m++) {
        let row = r0 + li / WORD_ROWS + WORD_ROWS * m;
        if row < rows && cw < cols {
            out_buf[(base(call).x + row * out_stride_at(call, 0u) + cw) / lanes] =
                combine_word(va[m], vb[m]);
        }
    }
}

// WIDTH 4 and 8: invocation l of workgroup wg, as the header describes.
fn wide(call: u32, wg: vec3<u32>, l: vec3<u32>) {
    let rows = size_at(call, 0u);
    let cols = size_at(call, 1u);
    let r0 = (base(call).w + wg.y) * TILE;
    let c0 = wg.x * TILE;
    let passes = TILE / ROWS_PER_PASS;

    // Phase 1: l.x runs along rows; tile element (c - c0, r - r0). Every load, then every
    // write to workgroup memory.
    var sa: array<vec2<u32>, 4>;
    var sb: array<vec2<u32>, 4>;
    let r = r0 + l.x;
    for (var k = 0u; k < passes; k++) {
        let c = c0 + l.y + k * ROWS_PER_PASS;
        if r < rows && c < cols {
            if A_MODE == 1u {
                sa[k] = load_element(A_SRC, base(call).y + r * a_stride_at(call, 0u) + c * a_stride_at(call, 1u));
            }
            if B_MODE == 1u {
                sb[k] = load_element(B_SRC, base(call).z + r * b_stride_at(call, 0u) + c * b_stride_at(call, 1u));
            }
        }
    }
    for (var k = 0u; k < passes; k++) {
        let c = c0 + l.y + k * ROWS_PER_PASS;
        if r < rows && c < cols {
            let at = slot(l.y + k * ROWS_PER_PASS, l.x);
            if A_MODE == 1u {
                tile_a_lo[at] = sa[k].x;
                if WIDTH == 8u {
                    tile_a_hi[at] = sa[k].y;
                }
            }
            if B_MODE == 1u {
                tile_b_lo[at] = sb[k].x;
                if WIDTH == 8u {
                    tile_b_hi[at] = sb[k].y;
                }
            }
        }
    }
    workgroupBarrier();

    // Phase 2: l.x runs along cols, like the output. Every load (from the buffers and from
    // workgroup memory), then every store.
    let c = c0 + l.x;
    var va: array<vec2<u32>, 4>;
    var vb: array<vec2<u32>, 4>;
    for (var k = 0u; k < passes; k++) {
        let rr = r0 + l.y + k * ROWS_PER_PASS;
        if rr < rows && c < cols {
            let at = slot(l.x, l.y + k * ROWS_PER_PASS);
            if A_MODE == 1u {
                va[k] = vec2<u32>(tile_a_lo[at], 0u);
                if WIDTH == 8u {
                    va[k].y = tile_a_hi[at];
                }
            } else {
                va[k] = load_element(A_SRC, base(call).y + rr * a_stride_at(call, 0u) + c * a_stride_at(call, 1u));
            }
            if B_MODE == 1u {
                vb[k] = vec2<u32>(tile_b_lo[at], 0u);
                if WIDTH == 8u {
                    vb[k].y = tile_b_hi[at];
                }
            } else {
                vb[k] = load_element(B_SRC, base(call).z + rr * b_stride_at(call, 0u) + c * b_stride_at(call, 1u));
            }
        }
    }
    for (var k = 0u; k < passes; k++) {
        let rr = r0 + l.y + k * ROWS_PER_PASS;
        if rr < rows && c < cols {
            let o = base(call).x + rr * out_stride_at(call, 0u) + c * out_stride_at(call, 1u);
            if WIDTH == 8u {
                let v = combine_pair(va[k], vb[k]);
                out_buf[2u * o] = v.x;
                out_buf[2u * o + 1u] = v.y;
            } else {
                out_buf[o] = combine_lane(va[k].x, vb[k].x);
            }
        }
    }
}

@compute @workgroup_size(32, 8)
fn main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_id) l: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
) {
    let call = wg.z;
    if WIDTH < 4u {
        if A_MODE == 1u || B_MODE == 1u {
            narrow_staged(call, wg, li);
        } else {
            narrow_direct(call, wg, l);
        }
        return;
    }
    wide(call, wg, l);
}
