// Transpose probe, word forms: C[r][c] = A[c][r] ^ B[r][c] over n x n matrices of 32-bit
// words, A read across its rows (the transposed input of the strided section's `transposed`
// case), B and C row-major. n is a multiple of 256. Each form is one way to write the same
// kernel; the report times them against the library's kernels on the same buffers, to see
// which design a GPU rewards. Entry points:
//
// - `gather`: one element per invocation along C's rows: B and C coalesced, A read 4 bytes
//   from each of 256 columns (what a framework's strided kernel does).
// - `tile32`: the classic tile: a 32 x 8 workgroup owns a 32 x 32 tile, four elements per
//   invocation; A read along its memory into workgroup memory (a warp's 32 loads are one
//   128-byte line), then read back transposed and written along C's rows. Every load before
//   the first store, in straight-line code (no loops, no private arrays). Element (i, j) of
//   the tile sits at column j ^ i of row i: no bank conflicts either way.
// - `tile64`: a 64 x 4 workgroup owns a 64 x 64 tile (16 KiB of workgroup memory), sixteen
//   elements per invocation, in loops (sixteen statements a phase would be the alternative):
//   the 64 tile of transpose_vec4.wgsl with 4-byte accesses, a warp reading 128 bytes of a
//   column. Element (i, j) sits at column j ^ (i % 64) of row i: 32 distinct banks either way.
// - `tile32_loops`: `tile32` written as the library's tile kernel writes it: the four
//   elements of each phase in a loop over private arrays (which wgpu's loop bounding wraps,
//   and which a compiler that does not unroll the loop keeps in memory rather than registers).
//
// Bindings: 0 A, 1 B (read), 2 C (read_write), 3 n (uniform, x).

@group(0) @binding(0) var<storage, read> a_buf: array<u32>;
@group(0) @binding(1) var<storage, read> b_buf: array<u32>;
@group(0) @binding(2) var<storage, read_write> c_buf: array<u32>;
@group(0) @binding(3) var<uniform> params: vec4<u32>;

var<workgroup> tile: array<u32, 1024>;
var<workgroup> tile64_words: array<u32, 4096>;

@compute @workgroup_size(256)
fn gather(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let n = params.x;
    let r = wg.y;
    let c = wg.x * 256u + li;
    c_buf[r * n + c] = a_buf[c * n + r] ^ b_buf[r * n + c];
}

fn slot(i: u32, j: u32) -> u32 {
    return i * 32u + (j ^ i);
}

@compute @workgroup_size(32, 8)
fn tile32(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
    let n = params.x;
    let r0 = wg.y * 32u;
    let c0 = wg.x * 32u;
    // Phase 1: l.x along A's memory (C's rows); tile row = C's column.
    let r = r0 + l.x;
    let a0 = a_buf[(c0 + l.y) * n + r];
    let a1 = a_buf[(c0 + l.y + 8u) * n + r];
    let a2 = a_buf[(c0 + l.y + 16u) * n + r];
    let a3 = a_buf[(c0 + l.y + 24u) * n + r];
    tile[slot(l.y, l.x)] = a0;
    tile[slot(l.y + 8u, l.x)] = a1;
    tile[slot(l.y + 16u, l.x)] = a2;
    tile[slot(l.y + 24u, l.x)] = a3;
    workgroupBarrier();
    // Phase 2: l.x along C's rows.
    let c = c0 + l.x;
    let t0 = tile[slot(l.x, l.y)];
    let t1 = tile[slot(l.x, l.y + 8u)];
    let t2 = tile[slot(l.x, l.y + 16u)];
    let t3 = tile[slot(l.x, l.y + 24u)];
    let o0 = (r0 + l.y) * n + c;
    let o1 = o0 + 8u * n;
    let o2 = o0 + 16u * n;
    let o3 = o0 + 24u * n;
    let b0 = b_buf[o0];
    let b1 = b_buf[o1];
    let b2 = b_buf[o2];
    let b3 = b_buf[o3];
    c_buf[o0] = t0 ^ b0;
    c_buf[o1] = t1 ^ b1;
    c_buf[o2] = t2 ^ b2;
    c_buf[o3] = t3 ^ b3;
}

@compute @workgroup_size(32, 8)
fn tile32_loops(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
    let n = params.x;
    let r0 = wg.y * 32u;
    let c0 = wg.x * 32u;
    var held: array<u32, 4>;
    let r = r0 + l.x;
    for (var k = 0u; k < 4u; k++) {
        held[k] = a_buf[(c0 + l.y + 8u * k) * n + r];
    }
    for (var k = 0u; k < 4u; k++) {
        tile[slot(l.y + 8u * k, l.x)] = held[k];
    }
    workgroupBarrier();
    let c = c0 + l.x;
    var t: array<u32, 4>;
    var b: array<u32, 4>;
    for (var k = 0u; k < 4u; k++) {
        t[k] = tile[slot(l.x, l.y + 8u * k)];
        b[k] = b_buf[(r0 + l.y + 8u * k) * n + c];
    }
    for (var k = 0u; k < 4u; k++) {
        c_buf[(r0 + l.y + 8u * k) * n + c] = t[k] ^ b[k];
    }
}

fn slot64(i: u32, j: u32) -> u32 {
    return i * 64u + (j ^ i);
}

@compute @workgroup_size(64, 4)
fn tile64(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
    let n = params.x;
    let r0 = wg.y * 64u;
    let c0 = wg.x * 64u;
    var held: array<u32, 16>;
    let r = r0 + l.x;
    for (var k = 0u; k < 16u; k++) {
        held[k] = a_buf[(c0 + l.y + 4u * k) * n + r];
    }
    for (var k = 0u; k < 16u; k++) {
        tile64_words[slot64(l.y + 4u * k, l.x)] = held[k];
    }
    workgroupBarrier();
    let c = c0 + l.x;
    var t: array<u32, 16>;
    var b: array<u32, 16>;
    for (var k = 0u; k < 16u; k++) {
        t[k] = tile64_words[slot64(l.x, l.y + 4u * k)];
        b[k] = b_buf[(r0 + l.y + 4u * k) * n + c];
    }
    for (var k = 0u; k < 16u; k++) {
        c_buf[(r0 + l.y + 4u * k) * n + c] = t[k] ^ b[k];
    }
}
