// Integer helpers shared by every kernel, the fused ones included (src/kernels/shaders.rs
// places this file after common.wgsl; src/kernels/fused.rs after a fused kernel's bindings).

// The high 32 bits of the 64-bit product of a and b, from 16-bit halves (WGSL has no wider
// integer).
fn mul_hi(a: u32, b: u32) -> u32 {
    let a_lo = a & 0xffffu;
    let a_hi = a >> 16u;
    let b_lo = b & 0xffffu;
    let b_hi = b >> 16u;
    let lo_lo = a_lo * b_lo;
    let hi_lo = a_hi * b_lo;
    let lo_hi = a_lo * b_hi;
    // At most (2^16 - 1) + (2^16 - 1) + (2^16 - 1)^2 < 2^32: no carry is lost.
    let cross = (lo_lo >> 16u) + (hi_lo & 0xffffu) + lo_hi;
    return a_hi * b_hi + (hi_lo >> 16u) + (cross >> 16u);
}

// n / d for the divisor whose multiplier is `magic` and whose shifts are the low two bytes
// of `shifts` (exact for every n; see `Divisor` in core/src/schedule/params.rs): a multiply-high,
// an add and two shifts instead of a division, which GPUs and CPU adapters run slowly.
fn div_by(n: u32, magic: u32, shifts: u32) -> u32 {
    let t = mul_hi(magic, n);
    return (t + ((n - t) >> (shifts & 0xffu))) >> ((shifts >> 8u) & 0xffu);
}
