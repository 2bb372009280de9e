//! The `generator` of large cases: SplitMix64 streams, and SHA-256 over little-endian
//! element bytes.

use gpu_xor_testkit::{SplitMix64, width_mask};
use sha2::{Digest, Sha256};

use crate::case::Mode;

/// `count` elements of `width` bytes from `seed`: element `k` is made from the output of
/// SplitMix64 step `k + 1`.
pub fn generate(seed: u64, count: u64, mode: Mode, width: u64) -> Vec<u64> {
    let mask = width_mask(width);
    let mut rng = SplitMix64::new(seed);
    (0..count)
        .map(|_| {
            let z = rng.next_u64();
            match mode {
                Mode::Bits => z & mask,
                Mode::Sparse if z >> 63 == 1 => z & mask,
                Mode::Sparse => 0,
                Mode::Bool => z >> 63,
            }
        })
        .collect()
}

/// The lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_from_the_known_answer() {
        // Seed 0, first step: 0xE220A8397B1DCDAF (top bit set).
        assert_eq!(generate(0, 1, Mode::Bits, 2), [0xCDAF]);
        assert_eq!(generate(0, 1, Mode::Bits, 8), [0xE220_A839_7B1D_CDAF]);
        assert_eq!(generate(0, 1, Mode::Sparse, 1), [0xAF]);
        assert_eq!(generate(0, 1, Mode::Bool, 1), [1]);
    }

    #[test]
    fn sha256_known_answers() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
