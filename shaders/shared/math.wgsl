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

// A shift of one 64-bit element as (low word, high word) by the amount (low, high), without
// branches (`kind` 4 left, 5 logical right, 6 arithmetic right): both halves' candidates for a shift below 32 and from 32 on, then a select.
fn shift64(a: vec2<u32>, b: vec2<u32>, kind: u32) -> vec2<u32> {
    let in_range = b.y == 0u && b.x < 64u;
    // An arithmetic shift by an amount out of range shifts by 63: the sign in every bit.
    let s = select(63u, b.x, in_range);
    let t = s & 31u;
    let far = s >= 32u;
    if kind == 4u {
        let carry = select(a.x >> ((32u - t) & 31u), 0u, t == 0u);
        let near_r = vec2<u32>(a.x << t, (a.y << t) | carry);
        let far_r = vec2<u32>(0u, a.x << t);
        return select(vec2<u32>(0u), select(near_r, far_r, far), in_range);
    }
    // The high word shifted alone: filling with zeros (5) or the sign (6).
    var hi = a.y >> t;
    var fill = 0u;
    if kind == 6u {
        hi = bitcast<u32>(bitcast<i32>(a.y) >> t);
        fill = bitcast<u32>(bitcast<i32>(a.y) >> 31u);
    }
    let carry = select(a.y << ((32u - t) & 31u), 0u, t == 0u);
    let r = select(vec2<u32>((a.x >> t) | carry, hi), vec2<u32>(hi, fill), far);
    if kind == 6u {
        return r;
    }
    return select(vec2<u32>(0u), r, in_range);
}

// The count of ones of each lane of `x` (lanes of `w` bytes: 1, 2 or 4), in its place:
// bit pairs, then nibbles, then bytes summed in place (SWAR), halves from their bytes.
fn lane_counts(x: u32, w: u32) -> u32 {
    if w >= 4u {
        return countOneBits(x);
    }
    let pairs = x - ((x >> 1u) & 0x55555555u);
    let nibbles = (pairs & 0x33333333u) + ((pairs >> 2u) & 0x33333333u);
    let per_byte = (nibbles + (nibbles >> 4u)) & 0x0f0f0f0fu;
    if w == 1u {
        return per_byte;
    }
    return (per_byte + (per_byte >> 8u)) & 0x001f001fu;
}
