//! Elements of 1 to 8 bytes as values: every element is held as a zero-extended `u64`, and
//! stored little-endian in its low `width` bytes.

/// The mask of an element `width` bytes wide: its low `8 * width` bits set, all ones for 8
/// bytes (or more) where the shift would overflow.
pub fn width_mask(width: u64) -> u64 {
    if width >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * width)) - 1
    }
}

/// Rewrites about three in four elements of `width` bytes of `bytes` (counted from its start)
/// as shift amounts from 0 to the element's bits plus one, so that a shift of random values
/// by them is mostly in range, with amounts just past the width among them; the rest keep
/// their random bits (amounts far out of range, negative ones for signed types).
pub fn shift_amounts(bytes: &mut [u8], width: u64, seed: u64) {
    let mut rng = crate::SplitMix64::new(seed ^ 0x5EED_5A17);
    let bits = 8 * width;
    for element in bytes.chunks_exact_mut(width as usize) {
        let r = rng.next_u64();
        if !r.is_multiple_of(4) {
            let amount = (r >> 8) % (bits + 2);
            element.copy_from_slice(&amount.to_le_bytes()[..width as usize]);
        }
    }
}

/// The values' low `width` bytes each, little-endian, in order.
pub fn le_bytes(values: &[u64], width: u64) -> Vec<u8> {
    let width = width as usize;
    let mut bytes = Vec::with_capacity(values.len() * width);
    for v in values {
        bytes.extend_from_slice(&v.to_le_bytes()[..width]);
    }
    bytes
}

/// The element of `width` bytes at byte `at` of `image`, little-endian, zero-extended.
pub(crate) fn read_le(image: &[u8], at: u64, width: u64) -> u64 {
    let (at, width) = (at as usize, width as usize);
    let mut v = [0u8; 8];
    v[..width].copy_from_slice(&image[at..at + width]);
    u64::from_le_bytes(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn width_mask_of_each_element_width() {
        assert_eq!(width_mask(1), 0xFF);
        assert_eq!(width_mask(2), 0xFFFF);
        assert_eq!(width_mask(3), 0xFF_FFFF);
        assert_eq!(width_mask(4), 0xFFFF_FFFF);
        assert_eq!(width_mask(8), u64::MAX);
        assert_eq!(width_mask(9), u64::MAX);
    }

    #[test]
    fn le_bytes_cut_each_value_to_its_width() {
        assert_eq!(le_bytes(&[0x0102, 0x0304], 2), [2, 1, 4, 3]);
        assert_eq!(le_bytes(&[0x1_0000_00FF], 1), [0xFF]);
        assert_eq!(le_bytes(&[u64::MAX], 8), [0xFF; 8]);
        assert!(le_bytes(&[], 4).is_empty());
    }

    #[test]
    fn read_le_reads_back_what_le_bytes_wrote() {
        let image = le_bytes(&[0xAB, 0x1234_5678, 0xCD], 4);
        assert_eq!(read_le(&image, 4, 4), 0x1234_5678);
        assert_eq!(read_le(&image, 5, 2), 0x3456);
        assert_eq!(read_le(&image, 8, 8 - 4), 0xCD);
    }
}
