// Block tile kernel: 32-bit transposes whose every global load and store is a whole 16-byte
// block. Entry point: `main`.
//
// Two dimensions [rows, cols] per record, as tile.wgsl takes them (a batch of matrices is one
// record per matrix, or more; `base.w` is the first tile row of this record). The host picks
// this kernel only for WIDTH 4 where every block it touches is whole and on a 16-byte
// boundary: rows and cols multiples of 4, the output's rows dense and 4 elements apart, each
// staged input (A_MODE / B_MODE 1: read across its rows) with a stride of 1 along `rows`,
// its columns 4 elements apart, and every operand's first element on a block; and the
// bindings hold whole blocks to the end of what the call reads (shared/blocks.wgsl).
//
// Each 256-invocation workgroup owns a 64 x 64 tile of the output, 1,024 blocks, four per
// invocation. Phase 1 reads a staged input along its memory: a block is 4 consecutive rows of
// the output in one column. Of a warp's 32 invocations, eight consecutive ones read one
// column's 128 bytes, and the four groups of eight take four neighbouring columns; each
// block's four words go to four rows of the tile. Phase 2 reads the tile's rows as blocks and
// writes the output along its rows, 16 blocks (256 bytes) a row, taking the other input's
// matching blocks from its buffer. The tile holds rows of the output as blocks: block j of
// tile row i sits at block j ^ ((i / 4) % 16) of the row, so the scalar stores of phase 1
// fall on 32 distinct banks and the block reads of phase 2 (eight invocations to 128 bytes)
// on distinct bank groups, with no padding (the tile fills WebGPU's 16 KiB). Every load of a
// phase is issued before its first store. Two staged inputs take the one tile in turn, the
// first kept in registers while the second passes through it.
//
// An input that is not staged is read block by block where its rows are dense and every
// block it gives lies on a 16-byte boundary (checked per record: a uniform branch), else
// word by word at any strides (a broadcast, padded or sliding rows).
//
// Bindings: 0 records (common.wgsl); 1 out_buf, 2 in0, 3 in1 as 16-byte blocks
// (shared/inputs_blocks_*.wgsl, shared/blocks.wgsl).

// The tile's side in elements, and its blocks per row.
const SIDE: u32 = 64u;
const PER_ROW: u32 = 16u;
// Blocks of the tile each invocation moves.
const BLOCKS: u32 = 4u;

var<workgroup> tile: array<vec4<u32>, 1024>;

// The workgroup's tile of one record's matrix: its first row and column, and the matrix's
// size.
struct Span {
    r0: u32,
    c0: u32,
    rows: u32,
    cols: u32,
}

// Where block j of tile row i is kept.
fn slot(i: u32, j: u32) -> u32 {
    return i * PER_ROW + (j ^ ((i / 4u) % PER_ROW));
}

// Phase 1's block u of the workgroup (0 .. 1024): (group g of 4 output rows, column) in the
// tile.
fn phase1(u: u32) -> vec2<u32> {
    let warp = u / 32u;
    let g = u % 8u + 8u * (warp % 2u);
    let column = (u / 8u) % 4u + 4u * (warp / 2u);
    return vec2<u32>(g, column);
}

// The blocks of staged input `src` (element offset `e0` of its first element, column stride
// `s1`) that invocation li reads in phase 1, all loaded before any is parked.
fn load_staged(src: u32, e0: u32, s1: u32, t: Span, li: u32) -> array<vec4<u32>, 4> {
    var v: array<vec4<u32>, 4>;
    for (var m = 0u; m < BLOCKS; m++) {
        let p = phase1(li + 256u * m);
        // A block outside the matrix reads the last one inside instead (rows are a multiple
        // of 4): loads need no branch, and what they give is never stored.
        let r = min(t.r0 + 4u * p.x, t.rows - 4u);
        let c = min(t.c0 + p.y, t.cols - 1u);
        v[m] = load(src, (e0 + r + c * s1) / 4u);
    }
    return v;
}

// Parks invocation li's phase-1 blocks in the tile, each block's words in four tile rows.
fn park(v: array<vec4<u32>, 4>, li: u32) {
    for (var m = 0u; m < BLOCKS; m++) {
        let p = phase1(li + 256u * m);
        let j = p.y / 4u;
        let lane = p.y % 4u;
        for (var k = 0u; k < 4u; k++) {
            tile[slot(4u * p.x + k, j)][lane] = v[m][k];
        }
    }
}

// Invocation li's phase-2 blocks of the tile: tile row li / 16 + 16m, block li % 16.
fn parked(li: u32) -> array<vec4<u32>, 4> {
    var v: array<vec4<u32>, 4>;
    let j = li % PER_ROW;
    for (var m = 0u; m < BLOCKS; m++) {
        v[m] = tile[slot(li / PER_ROW + PER_ROW * m, j)];
    }
    return v;
}

// Stages input `src` through the tile and gives invocation li's phase-2 blocks of it.
fn staged(src: u32, e0: u32, s1: u32, t: Span, li: u32) -> array<vec4<u32>, 4> {
    let v = load_staged(src, e0, s1, t, li);
    park(v, li);
    workgroupBarrier();
    return parked(li);
}

// The block of an unstaged input at output row r, columns c .. c + 4 (the last block inside
// the matrix where that one is not): one block load where its rows are dense and its blocks
// aligned (`whole`), else four words.
fn unstaged(src: u32, e0: u32, s0: u32, s1: u32, whole: bool, t: Span, r: u32, c: u32) -> vec4<u32> {
    let e = e0 + min(r, t.rows - 1u) * s0 + min(c, t.cols - 4u) * s1;
    if whole {
        return load(src, e / 4u);
    }
    return vec4<u32>(
        load_word(src, e),
        load_word(src, e + s1),
        load_word(src, e + 2u * s1),
        load_word(src, e + 3u * s1),
    );
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let call = wg.z;
    let t = Span((base(call).w + wg.y) * SIDE, wg.x * SIDE, size_at(call, 0u), size_at(call, 1u));
    let ea = base(call).y;
    let eb = base(call).z;
    let a0 = a_stride_at(call, 0u);
    let a1 = a_stride_at(call, 1u);
    let b0 = b_stride_at(call, 0u);
    let b1 = b_stride_at(call, 1u);

    var va: array<vec4<u32>, 4>;
    var vb: array<vec4<u32>, 4>;
    if A_MODE == 1u {
        va = staged(A_SRC, ea, a1, t, li);
    }
    // A NOT (FUNC 3) never reads B, which the host binds in A's place.
    if B_MODE == 1u && FUNC != 3u {
        if A_MODE == 1u {
            // The tile is A's until every invocation has read its blocks back.
            workgroupBarrier();
        }
        vb = staged(B_SRC, eb, b1, t, li);
    }

    // Phase 2: the unstaged input's blocks, then every store.
    let j = li % PER_ROW;
    let c = t.c0 + 4u * j;
    for (var m = 0u; m < BLOCKS; m++) {
        let r = t.r0 + li / PER_ROW + PER_ROW * m;
        if A_MODE != 1u {
            va[m] = unstaged(A_SRC, ea, a0, a1, A_MODE == 2u, t, r, c);
        }
        if B_MODE != 1u {
            vb[m] = unstaged(B_SRC, eb, b0, b1, B_MODE == 2u, t, r, c);
        }
    }
    for (var m = 0u; m < BLOCKS; m++) {
        let r = t.r0 + li / PER_ROW + PER_ROW * m;
        if r < t.rows && c < t.cols {
            out_buf[(base(call).x + r * out_stride_at(call, 0u) + c) / 4u] = combine4(va[m], vb[m]);
        }
    }
}
