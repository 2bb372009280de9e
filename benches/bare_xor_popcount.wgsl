// Baseline for the contractions: XOR and count of ones on registers alone, the arithmetic
// roof of a Hamming distance. Entry point: `main`.
// Each invocation holds 16 code words and a query word that changes every round (so that no
// round can be folded away), and each round adds countOneBits(q ^ c) into 16 accumulators:
// 16 word distances a round (an XOR, a count and an add each), as the tiled kernel's inner
// loop computes its outputs' 16 distances from words already in its registers. No memory is
// read; the accumulators' sum is written once, so that nothing is dead.
// Bindings: 0 out (read_write, one word per invocation), 1 the rounds and the row stride of
// the grid in invocations (uniform, x and y).

@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<uniform> grid: vec4<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.y * grid.y + gid.x;
    var q = i * 0x9e3779b9u;
    let c0 = i ^ 0x243f6a88u;
    let c1 = i ^ 0x85a308d3u;
    let c2 = i ^ 0x13198a2eu;
    let c3 = i ^ 0x03707344u;
    let c4 = i ^ 0xa4093822u;
    let c5 = i ^ 0x299f31d0u;
    let c6 = i ^ 0x082efa98u;
    let c7 = i ^ 0xec4e6c89u;
    let c8 = i ^ 0x452821e6u;
    let c9 = i ^ 0x38d01377u;
    let c10 = i ^ 0xbe5466cfu;
    let c11 = i ^ 0x34e90c6cu;
    let c12 = i ^ 0xc0ac29b7u;
    let c13 = i ^ 0xc97c50ddu;
    let c14 = i ^ 0x3f84d5b5u;
    let c15 = i ^ 0xb5470917u;
    var a0 = 0u; var a1 = 0u; var a2 = 0u; var a3 = 0u;
    var a4 = 0u; var a5 = 0u; var a6 = 0u; var a7 = 0u;
    var a8 = 0u; var a9 = 0u; var a10 = 0u; var a11 = 0u;
    var a12 = 0u; var a13 = 0u; var a14 = 0u; var a15 = 0u;
    for (var r = 0u; r < grid.x; r++) {
        a0 += countOneBits(q ^ c0);
        a1 += countOneBits(q ^ c1);
        a2 += countOneBits(q ^ c2);
        a3 += countOneBits(q ^ c3);
        a4 += countOneBits(q ^ c4);
        a5 += countOneBits(q ^ c5);
        a6 += countOneBits(q ^ c6);
        a7 += countOneBits(q ^ c7);
        a8 += countOneBits(q ^ c8);
        a9 += countOneBits(q ^ c9);
        a10 += countOneBits(q ^ c10);
        a11 += countOneBits(q ^ c11);
        a12 += countOneBits(q ^ c12);
        a13 += countOneBits(q ^ c13);
        a14 += countOneBits(q ^ c14);
        a15 += countOneBits(q ^ c15);
        q += 0x6d2b79f5u;
    }
    out[i] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11 + a12 + a13 + a14 + a15;
}
