// The element functions of the fused kernels, with the element's size an argument rather
// than an override: one kernel evaluates nodes of several types. src/kernels/fused.rs places
// this file after a kernel's bindings and shared/math.wgsl, and calls every function with
// literal sizes, so that the compiler folds the choices away.
//
// Values are u32 words. In the element form a value of 1, 2 or 4 bytes is right-aligned in
// a word with nothing set above it, and a 64-bit value is a vec2<u32> (low word first). In
// the block form a word holds 4 / w lanes of w bytes each (w = 1, 2 or 4), and a 64-bit value
// is a pair of words.
//
// A shift amount is the second operand's element read as a value of its type: every amount
// is checked against the element's width, never masked (WGSL would mask it), so an amount
// outside [0, bits), a negative one included (it reads as a large unsigned one), gives 0, or
// all ones for an arithmetic shift of a negative value. `kind` is 4 for a left shift, 5 for
// a logical right shift, 6 for an arithmetic one (`BitFunction::code`).

// The mask of a lane of `bits` bits (8, 16 or 32), right-aligned.
fn fx_lane_mask(bits: u32) -> u32 {
    return select(0xffffffffu, (1u << min(bits, 31u)) - 1u, bits < 32u);
}

// A word with 1 at the bottom of each lane of `w` bytes.
fn fx_ones(w: u32) -> u32 {
    if w == 1u {
        return 0x01010101u;
    }
    if w == 2u {
        return 0x00010001u;
    }
    return 1u;
}

// The shift of one lane of `bits` bits (8, 16 or 32), `a` and `b` right-aligned with nothing
// set above the lane; the result likewise.
fn fx_shift(a: u32, b: u32, bits: u32, kind: u32) -> u32 {
    let mask = fx_lane_mask(bits);
    if kind == 4u {
        return select(0u, (a << min(b, 31u)) & mask, b < bits);
    }
    if kind == 5u {
        return select(0u, a >> min(b, 31u), b < bits);
    }
    // Arithmetic: the lane sign-extended to 32 bits, shifted by at most bits - 1 (an amount
    // out of range gives the sign in every bit, as a shift by bits - 1 does).
    let up = 32u - bits;
    let v = bitcast<i32>(a << up) >> up;
    return bitcast<u32>(v >> min(b, bits - 1u)) & mask;
}

// Every lane of `a` (lanes of `w` bytes, 1 or 2) shifted by the same lane of `b`.
fn fx_shift_lanes(a: u32, b: u32, w: u32, kind: u32) -> u32 {
    let bits = w * 8u;
    let mask = fx_lane_mask(bits);
    var r = 0u;
    for (var k = 0u; k < 32u; k += bits) {
        r |= fx_shift((a >> k) & mask, (b >> k) & mask, bits, kind) << k;
    }
    return r;
}

// Every lane of `a` (lanes of `w` bytes, 1, 2 or 4) shifted by one amount `s` (a lane's
// value, right-aligned): shifts and masks on the whole word. An arithmetic shift fills the
// vacated bits of each negative lane with ones.
fn fx_shift_all(a: u32, s: u32, w: u32, kind: u32) -> u32 {
    let bits = w * 8u;
    if w == 4u {
        return fx_shift(a, s, 32u, kind);
    }
    let lane = fx_lane_mask(bits);
    let ones = fx_ones(w);
    // The sign bit of each lane, moved to the bottom of the lane.
    let negative = (a >> (bits - 1u)) & ones;
    if s >= bits {
        if kind == 6u {
            return negative * lane;
        }
        return 0u;
    }
    if kind == 4u {
        return (a << s) & (((lane << s) & lane) * ones);
    }
    let kept = (a >> s) & ((lane >> s) * ones);
    if kind == 5u {
        return kept;
    }
    return kept | (negative * (lane & ~(lane >> s)));
}

// 1 at the bottom of each lane of `x` (lanes of `w` bytes) that is nonzero, else 0: the low
// bits of each lane carry into its top bit when any is set (they cannot carry out of it),
// and the top bit is taken as it is.
fn fx_truth_lanes(x: u32, w: u32) -> u32 {
    if w == 1u {
        return ((((x & 0x7f7f7f7fu) + 0x7f7f7f7fu) | x) >> 7u) & 0x01010101u;
    }
    if w == 2u {
        return ((((x & 0x7fff7fffu) + 0x7fff7fffu) | x) >> 15u) & 0x00010001u;
    }
    return min(x, 1u);
}

// A lane's value of `w` bytes repeated across a word (w = 1, 2 or 4).
fn fx_splat(x: u32, w: u32) -> u32 {
    if w == 1u {
        return (x & 0xffu) * 0x01010101u;
    }
    if w == 2u {
        return (x & 0xffffu) * 0x00010001u;
    }
    return x;
}
