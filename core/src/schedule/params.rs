//! The metadata record each call reads (binding 0).

use bytemuck::{Pod, Zeroable};

/// Dimensions a kernel takes; higher ranks are cut into pieces by the host.
pub const MAX_KERNEL_RANK: usize = 8;

/// Bytes of one record: a multiple of every device's `min_uniform_buffer_offset_alignment`
/// (WebGPU caps it at 256), so that any record can start a dispatch's binding.
pub const RECORD_BYTES: u64 = 256;

/// Records one binding holds (`RECORDS` in common.wgsl): 16 KiB, within every device's
/// `max_uniform_buffer_binding_size`. It is also the most calls one dispatch runs.
pub const RECORDS_PER_BINDING: usize = 64;

/// Mirrors `struct Params` of `shaders/shared/common.wgsl`, field for field; the arrays of
/// eight are `array<vec4<u32>, 2>` there. The tests of `shaders.rs`, where the WGSL is parsed,
/// check that the sizes and field offsets agree.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub struct Params {
    /// Work units, rank, invocations per grid row, elements (or rows).
    pub head: [u32; 4],
    /// Element offsets of out, a, b in their windows; first row or tile row.
    pub base: [u32; 4],
    /// Sizes, outermost first (unused dimensions 0).
    pub sizes: [u32; MAX_KERNEL_RANK],
    /// The output's element strides.
    pub out_strides: [u32; MAX_KERNEL_RANK],
    /// A's element strides.
    pub a_strides: [u32; MAX_KERNEL_RANK],
    /// B's element strides.
    pub b_strides: [u32; MAX_KERNEL_RANK],
    /// Per dimension, the multiplier that divides by its size, and by its output stride
    /// (`Divisor`): the kernels unravel indices and offsets without a division.
    pub size_magic: [u32; MAX_KERNEL_RANK],
    /// The multipliers that divide by the output strides; for the rows and shifted-rows
    /// kernels the last dimension's divides by `head[3]`, the units a row, instead (their
    /// output's last stride is 1), and for the tile kernels the second's by `head[0]`, the
    /// tile rows a matrix (the matrix's columns are dense in the output).
    pub stride_magic: [u32; MAX_KERNEL_RANK],
    /// Per dimension, the two shifts of each divisor, a byte each: size's, then stride's.
    pub shifts: [u32; MAX_KERNEL_RANK],
}

/// Division of any `u32` by a divisor `d` fixed per record, as one multiply-high, an add and
/// two shifts (the round-up method of Granlund and Montgomery, "Division by invariant integers
/// using multiplication", 1994): `t = mul_hi(magic, n)`, `n / d = (t + ((n - t) >> shift1)) >>
/// shift2`, exact for every `n`. GPUs and the CPU adapters divide integers slowly (llvmpipe
/// divides lane by lane, and no GPU has a 32-bit divide instruction), and the kernels' index
/// arithmetic is divisions. The measurements behind it are in the repository's
/// `benches/RESULTS.md` and `CHANGELOG.md`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Divisor {
    pub magic: u32,
    pub shift1: u32,
    pub shift2: u32,
}

impl Divisor {
    /// The divisor `d`; 0 (an unused dimension) divides like 1.
    pub(crate) fn new(d: u32) -> Divisor {
        let d = u64::from(d.max(1));
        // l = ceil(log2 d): 2^(l-1) < d <= 2^l.
        let l = u64::from(64 - (d - 1).leading_zeros());
        let magic = ((1u64 << 32) * ((1u64 << l) - d)) / d + 1;
        Divisor {
            magic: magic as u32,
            shift1: l.min(1) as u32,
            shift2: l.saturating_sub(1) as u32,
        }
    }

    /// `n / d` as the kernels compute it (`div_by` in common.wgsl).
    #[cfg(test)]
    pub(crate) fn divide(&self, n: u32) -> u32 {
        let t = ((u64::from(self.magic) * u64::from(n)) >> 32) as u32;
        (t + ((n - t) >> self.shift1)) >> self.shift2
    }
}

impl Default for Params {
    fn default() -> Params {
        Params::zeroed()
    }
}

#[cfg(test)]
mod tests {
    use super::Divisor;

    #[test]
    fn magic_division_is_exact() {
        let mut divisors: Vec<u32> = (1..=4096).collect();
        for k in 0..32 {
            let p = 1u32 << k;
            divisors.extend([p.saturating_sub(1), p, p.saturating_add(1)]);
        }
        divisors.extend([
            641,
            6700417,
            0x7fff_ffff,
            0x8000_0001,
            u32::MAX - 1,
            u32::MAX,
        ]);
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for &d in divisors.iter().filter(|&&d| d > 0) {
            let div = Divisor::new(d);
            let check = |n: u32| assert_eq!(div.divide(n), n / d, "{n} / {d}");
            for n in [
                0,
                1,
                d - 1,
                d,
                d.saturating_add(1),
                u32::MAX,
                u32::MAX - 1,
                u32::MAX / d * d,
            ] {
                check(n);
            }
            for _ in 0..64 {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                check((state >> 32) as u32);
            }
        }
        // An unused dimension's 0 divides like 1.
        assert_eq!(Divisor::new(0).divide(12345), 12345);
    }
}
