//! SplitMix64 as the conformance format gives it (`conformance/README.md`), and the byte
//! stream drawn from it.
//!
//! The conformance cases' SHA-256 values (`tests/data/*.json`) pin this exact sequence:
//! changing a constant or the order of a step fails them.

/// SplitMix64 (Steele, Lea and Flood): each step adds the golden gamma to the state and mixes
/// it. Seed 0 gives `0xE220A8397B1DCDAF` on the first step.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose state starts at `seed`.
    pub const fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The output `z` of the next step.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// `len` bytes of the SplitMix64 stream from `seed`, each step's output in little-endian
/// order: test data, and a sentinel that no constant pattern or stale value is likely to
/// match. A shorter stream from the same seed is a prefix of a longer one.
pub fn random_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut rng = SplitMix64::new(seed);
    let mut bytes = Vec::with_capacity(len.next_multiple_of(8));
    while bytes.len() < len {
        bytes.extend_from_slice(&rng.next_u64().to_le_bytes());
    }
    bytes.truncate(len);
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_zero_gives_the_published_first_outputs() {
        let mut rng = SplitMix64::new(0);
        let first: Vec<u64> = (0..4).map(|_| rng.next_u64()).collect();
        assert_eq!(
            first,
            [
                0xE220_A839_7B1D_CDAF,
                0x6E78_9E6A_A1B9_65F4,
                0x06C4_5D18_8009_454F,
                0xF88B_B8A8_724C_81EC
            ]
        );
    }

    #[test]
    fn a_clone_continues_the_same_stream() {
        let mut rng = SplitMix64::new(u64::MAX);
        rng.next_u64();
        let mut twin = rng.clone();
        assert_eq!(rng.next_u64(), twin.next_u64());
    }

    #[test]
    fn random_bytes_are_the_stream_little_endian_and_prefixes_of_longer_ones() {
        assert_eq!(random_bytes(0, 3), [0xAF, 0xCD, 0x1D]);
        assert_eq!(random_bytes(0, 10)[8..], [0xF4, 0x65]);
        assert_eq!(random_bytes(7, 20)[..16], random_bytes(7, 16)[..]);
        assert!(random_bytes(7, 0).is_empty());
        assert_ne!(random_bytes(1, 8), random_bytes(2, 8));
    }
}
