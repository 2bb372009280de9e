// Block tile kernel: transposes whose every global load and store is a whole 16-byte block,
// for every element width. Entry point: `main`.
//
// Two dimensions [rows, cols] per matrix, and a batch of matrices of any number of
// dimensions, as tile.wgsl takes them (`tile_row` in common.wgsl: the grid's rows run over the batch's tile
// rows; `base.w` is the first of this record). A block holds
// E = 16 / WIDTH elements. The host picks this kernel only where every block it touches is
// whole and on a 16-byte boundary: rows and cols multiples of E, the output's rows dense and
// a multiple of E elements apart, each staged input (A_MODE / B_MODE 1: read across its rows)
// with a stride of 1 along `rows` and its columns a multiple of E elements apart, every
// operand read by blocks starting on a block; and the bindings hold whole blocks to the end
// of what the call reads (shared/blocks.wgsl).
//
// Each 256-invocation workgroup owns a tile of 64 rows by 64 words of the output (64 columns
// of 32-bit elements, 32 of 64-bit, 128 of 16-bit, 256 of 8-bit): 1,024 blocks, four per
// invocation each way. Phase 1 reads a staged input along its memory: a block is E
// consecutive rows of the output in one column. Of a warp's 32 invocations, eight consecutive
// ones read one column's 128 bytes (four, 64 bytes, for 8-bit elements), the groups taking
// neighbouring columns. Each block's words go to its rows of the tile; for 8- and 16-bit
// elements an invocation reads the blocks of L = 4 / WIDTH neighbouring columns and
// transposes them in registers into words of L columns, one per row. Phase 2 reads the
// tile's rows as blocks and writes the output along its rows, 16 blocks (256 bytes) a row,
// taking the other input's matching blocks from its buffer. The tile holds rows of the
// output as blocks: block j of tile row i sits at block j ^ twist(i) of the row, with no
// padding (the tile fills WebGPU's 16 KiB). Phase 2's block reads (eight invocations to one
// row's 128 bytes) fall on distinct bank groups whatever the twist; the twist of each width
// puts every scalar store of phase 1 by a warp's 32 invocations on 32 distinct 4-byte banks
// (for 64-bit elements with the two words of each element stored in an order that
// alternates between neighbouring invocations). The host's unit test
// `block_tile_phase_one_stores_meet_no_bank_conflicts` checks this mapping for every width.
// Every load of a phase is issued before its first store. Two
// staged inputs take the one tile in turn, the first kept in registers while the second
// passes through it.
//
// Loads never branch: a block outside the matrix reads the last one inside instead, and
// what it gives is never stored; only the stores check the bounds (a CPU adapter runs every
// guarded access under its execution mask).
//
// An input that is not staged is read block by block (mode 2: its rows dense and E apart,
// its first element on a block) or, at any strides, element by element (mode 0: a broadcast,
// padded or sliding rows).
//
// Bindings: 0 records (common.wgsl); 1 out_buf, 2 in0, 3 in1 as 16-byte blocks
// (shared/inputs_blocks_*.wgsl, shared/blocks.wgsl).

// Tile rows, blocks per tile row, and blocks of the tile each invocation moves each way.
const ROWS: u32 = 64u;
const PER_ROW: u32 = 16u;
const BLOCKS: u32 = 4u;

var<workgroup> tile: array<vec4<u32>, 1024>;

// Elements per block, E.
fn per_block() -> u32 {
    return 16u / WIDTH;
}

// Elements per word for 8- and 16-bit elements (L), 1 for wider ones.
fn lanes() -> u32 {
    return max(4u / WIDTH, 1u);
}

// Tile columns in elements: 64 words of them.
fn tile_cols() -> u32 {
    return 64u * lanes() / max(WIDTH / 4u, 1u);
}

// The block holding element `e` of a binding (element offsets of blocked operands are
// multiples of E).
fn block_of(e: u32) -> u32 {
    return e / per_block();
}

// The workgroup's tile of one record's matrix: its first row and column, and the matrix's
// size.
struct Span {
    r0: u32,
    c0: u32,
    rows: u32,
    cols: u32,
}

// The swizzle of tile row i, below 16 (see the header): a phase-1 unit's row group (E rows)
// spread over the eight 16-byte bank groups together with the unit's word columns.
fn twist(i: u32) -> u32 {
    if WIDTH == 1u {
        return 2u * (i / 16u);
    }
    if WIDTH == 2u {
        return i / 8u;
    }
    if WIDTH == 8u {
        return 2u * ((i / 4u) % 4u);
    }
    return (i / 4u) % PER_ROW;
}

// Where block j of tile row i is kept.
fn slot(i: u32, j: u32) -> u32 {
    return i * PER_ROW + (j ^ twist(i));
}

// Stores word `w` (0 .. 64) of tile row i.
fn park_word(i: u32, w: u32, value: u32) {
    tile[slot(i, w / 4u)][w % 4u] = value;
}

// Phase 1's unit u of the workgroup: (row group g, column group q) of the tile. A unit is the
// blocks of L neighbouring columns (one column for 32- and 64-bit elements) at E rows. Of a
// warp's 32 units, `gw` consecutive ones take consecutive row groups of one column group.
fn unit(u: u32) -> vec2<u32> {
    let groups = ROWS / per_block();
    let gw = min(groups, 8u);
    let warp = u / 32u;
    let g = u % gw + gw * (warp % (groups / gw));
    let q = (u % 32u) / gw + (32u / gw) * (warp / (groups / gw));
    return vec2<u32>(g, q);
}

// Block m (a constant at every call) of staged input `src` (element offset `e0` of its first
// element, column stride `s1`) that invocation li reads in phase 1: column m % L of unit
// li + 256 (m / L).
fn staged_block(src: u32, e0: u32, s1: u32, t: Span, li: u32, m: u32) -> vec4<u32> {
    let p = unit(li + 256u * (m / lanes()));
    let r = min(t.r0 + per_block() * p.x, t.rows - per_block());
    let c = min(t.c0 + lanes() * p.y + m % lanes(), t.cols - 1u);
    return load(src, block_of(e0 + r + c * s1));
}

// Invocation li's four phase-1 blocks of a staged input, all loaded before any is parked.
// This kernel has no loop over its blocks and indexes its arrays of blocks by constants only,
// so that no compiler keeps them in memory, whether or not it unrolls loops (wgpu bounds
// every loop).
fn load_staged(src: u32, e0: u32, s1: u32, t: Span, li: u32) -> array<vec4<u32>, 4> {
    return array<vec4<u32>, 4>(
        staged_block(src, e0, s1, t, li, 0u),
        staged_block(src, e0, s1, t, li, 1u),
        staged_block(src, e0, s1, t, li, 2u),
        staged_block(src, e0, s1, t, li, 3u),
    );
}

// Lane k % L of word k / L of each of the blocks b0 .. b3 (of the first L), one lane per
// column: the word of row k of a unit of 8- or 16-bit elements.
fn row_word(b0: vec4<u32>, b1: vec4<u32>, b2: vec4<u32>, b3: vec4<u32>, k: u32) -> u32 {
    // Below 32 for every width, so that the shifts stay valid where WIDTH makes them
    // constant (this function runs for 8- and 16-bit elements only).
    let bits = (WIDTH * 8u) % 32u;
    let w = k / lanes();
    let s = (k % lanes()) * bits;
    var word = ((b0[w] >> s) & lane_mask()) | (((b1[w] >> s) & lane_mask()) << bits);
    if lanes() == 4u {
        word |= (((b2[w] >> s) & lane_mask()) << 16u) | (((b3[w] >> s) & lane_mask()) << 24u);
    }
    return word;
}

// Parks the blocks of one unit `p` of 8- or 16-bit elements (L of them: columns
// L q .. L q + L at rows E g .. E g + E; b2 and b3 unused for 16-bit elements) in the tile:
// row k's word holds lane k of each block, column j in lane j.
fn park_columns(p: vec2<u32>, b0: vec4<u32>, b1: vec4<u32>, b2: vec4<u32>, b3: vec4<u32>) {
    for (var k = 0u; k < per_block(); k++) {
        park_word(per_block() * p.x + k, p.y, row_word(b0, b1, b2, b3, k));
    }
}

// Parks one block `b` of 32-bit elements of unit `p`: its four rows' words.
fn park_words(p: vec2<u32>, b: vec4<u32>) {
    park_word(4u * p.x, p.y, b.x);
    park_word(4u * p.x + 1u, p.y, b.y);
    park_word(4u * p.x + 2u, p.y, b.z);
    park_word(4u * p.x + 3u, p.y, b.w);
}

// Parks one block `b` of 64-bit elements of unit `p`: two elements of two words, rows 2g and
// 2g + 1, at words 2q and 2q + 1; odd row groups store each element's high word first.
fn park_pairs(p: vec2<u32>, b: vec4<u32>) {
    let odd = p.x % 2u;
    let swap = odd == 1u;
    park_word(2u * p.x, 2u * p.y + odd, select(b.x, b.y, swap));
    park_word(2u * p.x, 2u * p.y + 1u - odd, select(b.y, b.x, swap));
    park_word(2u * p.x + 1u, 2u * p.y + odd, select(b.z, b.w, swap));
    park_word(2u * p.x + 1u, 2u * p.y + 1u - odd, select(b.w, b.z, swap));
}

// Parks invocation li's phase-1 blocks in the tile: each block's elements in their rows.
fn park(v: array<vec4<u32>, 4>, li: u32) {
    if WIDTH == 8u {
        park_pairs(unit(li), v[0]);
        park_pairs(unit(li + 256u), v[1]);
        park_pairs(unit(li + 512u), v[2]);
        park_pairs(unit(li + 768u), v[3]);
    } else if WIDTH == 4u {
        park_words(unit(li), v[0]);
        park_words(unit(li + 256u), v[1]);
        park_words(unit(li + 512u), v[2]);
        park_words(unit(li + 768u), v[3]);
    } else if WIDTH == 2u {
        // Two units of two columns.
        let z = vec4<u32>();
        park_columns(unit(li), v[0], v[1], z, z);
        park_columns(unit(li + 256u), v[2], v[3], z, z);
    } else {
        // One unit of four columns.
        park_columns(unit(li), v[0], v[1], v[2], v[3]);
    }
}

// Invocation li's phase-2 blocks of the tile: tile row li / 16 + 16m, block li % 16.
fn parked(li: u32) -> array<vec4<u32>, 4> {
    let i = li / PER_ROW;
    let j = li % PER_ROW;
    return array<vec4<u32>, 4>(
        tile[slot(i, j)],
        tile[slot(i + PER_ROW, j)],
        tile[slot(i + 2u * PER_ROW, j)],
        tile[slot(i + 3u * PER_ROW, j)],
    );
}

// Stages input `src` through the tile and gives invocation li's phase-2 blocks of it.
fn staged(src: u32, e0: u32, s1: u32, t: Span, li: u32) -> array<vec4<u32>, 4> {
    let v = load_staged(src, e0, s1, t, li);
    park(v, li);
    workgroupBarrier();
    return parked(li);
}

// Word `w` of the block of E elements from element `e` of binding `src` along stride `s1`,
// element by element.
fn spread_word(src: u32, e: u32, s1: u32, w: u32) -> u32 {
    if WIDTH == 8u {
        let k = e + (w / 2u) * s1;
        return load_word(src, 2u * k + w % 2u);
    }
    if WIDTH == 4u {
        return load_word(src, e + w * s1);
    }
    let l = lanes();
    var word = 0u;
    for (var j = 0u; j < l; j++) {
        word |= load_lane(src, e + (w * l + j) * s1) << (j * WIDTH * 8u);
    }
    return word;
}

// The block of an unstaged input at output row r, columns c .. c + E (the last block inside
// the matrix where that one is not): one block load where its rows are dense and its blocks
// aligned (`whole`), else element by element.
fn unstaged(src: u32, p: Plane, whole: bool, t: Span, r: u32, c: u32) -> vec4<u32> {
    let e = plane_at(p, min(r, t.rows - 1u), min(c, t.cols - per_block()));
    let s1 = p.inner;
    if whole {
        return load(src, block_of(e));
    }
    return vec4<u32>(
        spread_word(src, e, s1, 0u),
        spread_word(src, e, s1, 1u),
        spread_word(src, e, s1, 2u),
        spread_word(src, e, s1, 3u),
    );
}

// An unstaged input's blocks at output rows r, r + 16, r + 32, r + 48 and columns c .. c + E.
fn unstaged_blocks(src: u32, p: Plane, whole: bool, t: Span, r: u32, c: u32) -> array<vec4<u32>, 4> {
    return array<vec4<u32>, 4>(
        unstaged(src, p, whole, t, r, c),
        unstaged(src, p, whole, t, r + PER_ROW, c),
        unstaged(src, p, whole, t, r + 2u * PER_ROW, c),
        unstaged(src, p, whole, t, r + 3u * PER_ROW, c),
    );
}

// Stores the output's block at row r, columns c .. c + E of the matrix whose first output
// element is `first`, where it lies inside the matrix.
fn store(call: u32, first: u32, t: Span, r: u32, c: u32, value: vec4<u32>) {
    if r < t.rows && c < t.cols {
        out_buf[block_of(first + r * out_stride_at(call, 0u) + c)] = value;
    }
}

// Invocation li's share of the tile `t` of record `call`, in the matrix of `at`.
fn run(call: u32, at: TileRow, t: Span, li: u32) {
    let pa = input_plane(call, at, 0u);
    let pb = input_plane(call, at, 1u);

    var va: array<vec4<u32>, 4>;
    var vb: array<vec4<u32>, 4>;
    if A_MODE == 1u {
        va = staged(A_SRC, pa.first, pa.inner, t, li);
    }
    // A NOT (FUNC 3) never reads B, which the host binds in A's place.
    if B_MODE == 1u && FUNC != 3u {
        if A_MODE == 1u {
            // The tile is A's until every invocation has read its blocks back.
            workgroupBarrier();
        }
        vb = staged(B_SRC, pb.first, pb.inner, t, li);
    }

    // Phase 2: the unstaged input's blocks, then every store, at rows r + 16m.
    let c = t.c0 + per_block() * (li % PER_ROW);
    let r = t.r0 + li / PER_ROW;
    if A_MODE != 1u {
        va = unstaged_blocks(A_SRC, pa, A_MODE == 2u, t, r, c);
    }
    if B_MODE != 1u {
        vb = unstaged_blocks(B_SRC, pb, B_MODE == 2u, t, r, c);
    }
    store(call, at.out, t, r, c, combine4(va[0], vb[0]));
    store(call, at.out, t, r + PER_ROW, c, combine4(va[1], vb[1]));
    store(call, at.out, t, r + 2u * PER_ROW, c, combine4(va[2], vb[2]));
    store(call, at.out, t, r + 3u * PER_ROW, c, combine4(va[3], vb[3]));
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let call = wg.z;
    let at = tile_row(call, base(call).w + wg.y);
    let t = Span(at.row * ROWS, wg.x * tile_cols(), size_at(call, 0u), size_at(call, 1u));
    run(call, at, t, li);
}
