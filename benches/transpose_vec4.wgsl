// Transpose probe, 16-byte forms: C[r][c] = A[c][r] ^ B[r][c] over n x n matrices of 32-bit
// words, as in transpose_words.wgsl, every global load and store a `vec4<u32>`. Entry point
// `main`; T (an override, 32 or 64) is the tile's side, so a 256-invocation workgroup moves
// T * T / 4 blocks of 16 bytes: one per invocation for T = 32, four for T = 64 (16 KiB of
// workgroup memory).
//
// Phase 1 reads A along its memory: a block is 4 consecutive rows of C in one column of C.
// Within a warp's 32 invocations, eight consecutive ones read one column's 128 bytes and the
// four groups of eight take four neighbouring columns; each block's words go to 4 rows of the
// tile. Phase 2 reads 16-byte blocks of the tile's rows and writes C along its rows (with the
// matching blocks of B). The tile holds rows of C as blocks of 4 words: block j of tile row i
// sits at block j ^ ((i / 4) % (T / 4)) of the row, so the scalar stores of phase 1 fall on
// 32 distinct banks, and the 16-byte reads of phase 2 (eight invocations a row) on distinct
// bank groups. Every load before the first store; straight-line code (no loops, no private
// arrays), the second to fourth blocks compiled only for T = 64.
//
// Bindings: 0 A, 1 B (read), 2 C (read_write), 3 n (uniform, x).

override T: u32 = 32u;

@group(0) @binding(0) var<storage, read> a_buf: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> b_buf: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> c_buf: array<vec4<u32>>;
@group(0) @binding(3) var<uniform> params: vec4<u32>;

var<workgroup> tile: array<vec4<u32>, 1024>;

// Blocks per tile row.
fn per_row() -> u32 {
    return T / 4u;
}

// The tile block holding words 4j .. 4j + 3 of tile row i.
fn slot(i: u32, j: u32) -> u32 {
    return i * per_row() + (j ^ ((i / 4u) % per_row()));
}

// Phase 1's block `u` of the workgroup: (C's row group g, C's column `col`) in the tile.
fn phase1(u: u32) -> vec2<u32> {
    let warp = u / 32u;
    let warps_per_column_group = T / 32u;
    let g = u % 8u + 8u * (warp % warps_per_column_group);
    let col = (u / 8u) % 4u + 4u * (warp / warps_per_column_group);
    return vec2<u32>(g, col);
}

fn load_a(u: u32, r0: u32, c0: u32, n: u32) -> vec4<u32> {
    let p = phase1(u);
    return a_buf[((c0 + p.y) * n + r0) / 4u + p.x];
}

fn park(u: u32, v: vec4<u32>) {
    let p = phase1(u);
    let j = p.y / 4u;
    let lane = p.y % 4u;
    tile[slot(4u * p.x, j)][lane] = v.x;
    tile[slot(4u * p.x + 1u, j)][lane] = v.y;
    tile[slot(4u * p.x + 2u, j)][lane] = v.z;
    tile[slot(4u * p.x + 3u, j)][lane] = v.w;
}

// Phase 2's block `u`: C's row i and block j of the tile; the block's index in B and C.
fn out_index(u: u32, r0: u32, c0: u32, n: u32) -> u32 {
    let i = u / per_row();
    let j = u % per_row();
    return ((r0 + i) * n + c0) / 4u + j;
}

fn parked(u: u32) -> vec4<u32> {
    return tile[slot(u / per_row(), u % per_row())];
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let n = params.x;
    let r0 = wg.y * T;
    let c0 = wg.x * T;
    let wide = T == 64u;
    let v0 = load_a(li, r0, c0, n);
    var v1 = vec4<u32>();
    var v2 = vec4<u32>();
    var v3 = vec4<u32>();
    if wide {
        v1 = load_a(li + 256u, r0, c0, n);
        v2 = load_a(li + 512u, r0, c0, n);
        v3 = load_a(li + 768u, r0, c0, n);
    }
    park(li, v0);
    if wide {
        park(li + 256u, v1);
        park(li + 512u, v2);
        park(li + 768u, v3);
    }
    workgroupBarrier();
    let o0 = out_index(li, r0, c0, n);
    let b0 = b_buf[o0];
    let t0 = parked(li);
    if wide {
        let o1 = out_index(li + 256u, r0, c0, n);
        let o2 = out_index(li + 512u, r0, c0, n);
        let o3 = out_index(li + 768u, r0, c0, n);
        let b1 = b_buf[o1];
        let b2 = b_buf[o2];
        let b3 = b_buf[o3];
        let t1 = parked(li + 256u);
        let t2 = parked(li + 512u);
        let t3 = parked(li + 768u);
        c_buf[o0] = t0 ^ b0;
        c_buf[o1] = t1 ^ b1;
        c_buf[o2] = t2 ^ b2;
        c_buf[o3] = t3 ^ b3;
        return;
    }
    c_buf[o0] = t0 ^ b0;
}
