//! Special bit patterns of each type: what BIT_XOR must pass through untouched.

use gpu_xor::DataType;
use gpu_xor_testkit::width_mask;

/// Special values of `data_type` as raw little-endian bits (zero-extended): for floats,
/// +0 and -0, infinities, quiet and signalling NaNs with payloads (both signs), the smallest
/// and largest subnormals, the largest finite value and 1; for integers, 0, 1, the minimum,
/// the maximum, -1 / all ones, and alternating patterns.
pub fn specials(data_type: DataType) -> Vec<u64> {
    match data_type {
        DataType::F64 => vec![
            0,
            1 << 63,               // -0.0
            0x7ff0_0000_0000_0000, // +inf
            0xfff0_0000_0000_0000, // -inf
            0x7ff8_0000_0000_0001, // quiet NaN, payload 1
            0x7ff0_0000_0000_0001, // signalling NaN
            0xfff4_dead_beef_0042, // negative signalling NaN with a payload
            0xfff8_0000_0000_0000, // negative quiet NaN
            1,                     // smallest subnormal
            0x000f_ffff_ffff_ffff, // largest subnormal
            f64::MAX.to_bits(),    // largest finite
            1.0f64.to_bits(),
        ],
        DataType::F32 => [
            0u32,
            1 << 31,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0001,
            0x7f80_0001,
            0xffa0_beef,
            0xffc0_0000,
            1,
            0x007f_ffff,
            f32::MAX.to_bits(),
            1.0f32.to_bits(),
        ]
        .map(u64::from)
        .to_vec(),
        DataType::F16 => [
            0u16, 0x8000, // +0, -0
            0x7c00, 0xfc00, // +inf, -inf
            0x7e01, 0x7c01, // quiet and signalling NaN with payloads
            0xfd55, 0xfe00, // negative NaNs
            0x0001, 0x03ff, // smallest and largest subnormal
            0x7bff, 0x3c00, // largest finite, 1
        ]
        .map(u64::from)
        .to_vec(),
        _ => {
            let bits = data_type.size_in_bytes() * 8;
            let mask = width_mask(u64::from(data_type.size_in_bytes()));
            let top = 1u64 << (bits - 1);
            [
                0,
                1,
                mask,     // u max, or -1
                top,      // i min
                top - 1,  // i max
                mask - 1, // u max - 1, or -2
                2,
                0x5555_5555_5555_5555,
                0xaaaa_aaaa_aaaa_aaaa,
                0x0f0f_0f0f_0f0f_0f0f,
                0x8000_0000_0000_0001,
                0x0123_4567_89ab_cdef,
            ]
            .map(|v| v & mask)
            .to_vec()
        }
    }
}
