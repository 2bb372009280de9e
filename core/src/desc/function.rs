//! The element functions of the family, and which operator applies which.

/// A function of one element of each input, computed on the elements' bits.
///
/// The first four are word-wide: every bit of the result is the function of the same bit of
/// the inputs, so one kernel runs them on bytes, halves, words, pairs of words and 16-byte
/// blocks alike, whatever the element type ([`BitFunction::is_word_wide`]). The shifts move
/// bits inside each element: they need the element's width, and the arithmetic right shift
/// its sign. [`BitFunction::CountOnes`] counts an element's bits into an output of another
/// type. [`BitFunction::Not`] and [`BitFunction::CountOnes`] take one input.
///
/// A shift amount `b` is the second input's element, read as a value of the element's type
/// (signed for signed types). Amounts outside `[0, bits)`, negative ones included, follow
/// ONNX `BitShift-28` for every standard: the result is 0, or all ones (-1) for an arithmetic
/// right shift of a negative value. A left shift wraps in two's complement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BitFunction {
    /// `a ^ b`.
    Xor,
    /// `a & b`.
    And,
    /// `a | b`.
    Or,
    /// `!a`, of one input.
    Not,
    /// `a << b`, the bits shifted out lost; 0 where `b` is outside `[0, bits)`.
    ShiftLeft,
    /// `a >> b` filling with zeros (unsigned types); 0 where `b` is outside `[0, bits)`.
    ShiftRight,
    /// `a >> b` filling with the sign bit (signed types); where `b` is outside `[0, bits)`,
    /// 0 for a value at least 0 and -1 for a negative one (a shift by `bits - 1`).
    ShiftRightArithmetic,
    /// The number of bits set in `a`, of one input, in an output type of its own.
    CountOnes,
}

impl BitFunction {
    /// Every function, in the order of the kernels' `FUNC` constant.
    pub const ALL: [BitFunction; 8] = [
        BitFunction::Xor,
        BitFunction::And,
        BitFunction::Or,
        BitFunction::Not,
        BitFunction::ShiftLeft,
        BitFunction::ShiftRight,
        BitFunction::ShiftRightArithmetic,
        BitFunction::CountOnes,
    ];

    /// Whether every bit of the result is the function of the same bit of the inputs, so that
    /// it needs no element width (XOR, AND, OR, NOT).
    pub const fn is_word_wide(self) -> bool {
        matches!(
            self,
            BitFunction::Xor | BitFunction::And | BitFunction::Or | BitFunction::Not
        )
    }

    /// How many inputs it takes: 1 for [`BitFunction::Not`] and [`BitFunction::CountOnes`],
    /// else 2.
    pub const fn inputs(self) -> usize {
        match self {
            BitFunction::Not | BitFunction::CountOnes => 1,
            _ => 2,
        }
    }

    /// The function on one element of `bits` bits (8, 16, 32 or 64), right-aligned in `a`
    /// and `b` with nothing set above it; the result has nothing set above it either (`b` is
    /// ignored by [`BitFunction::Not`]).
    fn apply_bits(self, a: u64, b: u64, bits: u32) -> u64 {
        let mask = u64::MAX >> (64 - bits);
        // Read as the element's type, a negative amount is at least 2^(bits-1) > bits here.
        let amount = u32::try_from(b).ok().filter(|&s| s < bits);
        let negative = (a >> (bits - 1)) & 1 == 1;
        match self {
            BitFunction::Xor => a ^ b,
            BitFunction::And => a & b,
            BitFunction::Or => a | b,
            BitFunction::Not => !a & mask,
            BitFunction::ShiftLeft => amount.map_or(0, |s| (a << s) & mask),
            BitFunction::ShiftRight => amount.map_or(0, |s| a >> s),
            BitFunction::ShiftRightArithmetic => {
                let s = amount.unwrap_or(bits - 1);
                let fill = if negative { mask & !(mask >> s) } else { 0 };
                (a >> s) | fill
            }
            BitFunction::CountOnes => u64::from(a.count_ones()),
        }
    }

    /// The value of the kernels' `FUNC` override (`shaders/shared/common.wgsl`).
    pub(crate) fn code(self) -> u32 {
        match self {
            BitFunction::Xor => 0,
            BitFunction::And => 1,
            BitFunction::Or => 2,
            BitFunction::Not => 3,
            BitFunction::ShiftLeft => 4,
            BitFunction::ShiftRight => 5,
            BitFunction::ShiftRightArithmetic => 6,
            BitFunction::CountOnes => 7,
        }
    }
}

/// What the kernels compute per element: a [`BitFunction`], on the raw bits or on truth values.
///
/// Bitwise (`logical: false`) applies the function to the element's bits, whatever its type
/// (floats are never loaded as floats). Logical (`logical: true`) reads each element as
/// `x != 0` at its full width (`0x100` in a `u32` is true) and writes 0 or 1 in the element's
/// width: DirectML's `LOGICAL_*`, OpenVINO's `Logical*` and its `Bitwise*` on `boolean`.
///
/// ```
/// use gpu_xor_core::{BitFunction, ElementFunction};
///
/// let and = ElementFunction::bitwise(BitFunction::And);
/// assert_eq!(and.apply(0xf0f0, 0xff00, 2), 0xf000);
/// let not = ElementFunction::logical(BitFunction::Not);
/// assert_eq!((not.apply(0x100, 0, 4), not.apply(0, 0, 4)), (0, 1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ElementFunction {
    /// The function.
    pub function: BitFunction,
    /// On truth values (`x != 0`, written as 0 or 1) rather than raw bits.
    pub logical: bool,
}

impl ElementFunction {
    /// The function on raw bits.
    pub const fn bitwise(function: BitFunction) -> ElementFunction {
        ElementFunction {
            function,
            logical: false,
        }
    }

    /// The function on truth values.
    pub const fn logical(function: BitFunction) -> ElementFunction {
        ElementFunction {
            function,
            logical: true,
        }
    }

    /// How many inputs it takes.
    pub fn inputs(self) -> usize {
        self.function.inputs()
    }

    /// One element of `width` bytes (1, 2, 4 or 8), right-aligned in `a` and `b`; the result
    /// has nothing set above the element (a count of ones is at most 64, which every output
    /// type holds). Bits above the element in `a` and `b` are ignored.
    pub fn apply(self, a: u64, b: u64, width: u32) -> u64 {
        let bits = width.clamp(1, 8) * 8;
        let mask = u64::MAX >> (64 - bits);
        let (a, b) = (a & mask, b & mask);
        if self.logical {
            self.function
                .apply_bits(u64::from(a != 0), u64::from(b != 0), 1)
        } else {
            self.function.apply_bits(a, b, bits)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logical_functions_read_the_whole_element_and_write_zero_or_one() {
        for function in BitFunction::ALL.into_iter().filter(|f| f.is_word_wide()) {
            let f = ElementFunction::logical(function);
            for width in [1, 2, 4, 8] {
                let high = 1u64 << (width * 8 - 1);
                for (a, b) in [(0, 0), (high, 0), (0, high), (high, 1)] {
                    let (ta, tb) = (a != 0, b != 0);
                    let want = match function {
                        BitFunction::Xor => ta != tb,
                        BitFunction::And => ta && tb,
                        BitFunction::Or => ta || tb,
                        BitFunction::Not => !ta,
                        _ => unreachable!(),
                    };
                    assert_eq!(f.apply(a, b, width), u64::from(want), "{f:?} {width}");
                }
            }
        }
    }

    #[test]
    fn bitwise_not_stays_inside_the_element() {
        let not = ElementFunction::bitwise(BitFunction::Not);
        assert_eq!(not.apply(0x0f, 0, 1), 0xf0);
        assert_eq!(not.apply(0xffff_0000, 0, 2), 0xffff);
        assert_eq!(not.apply(0, 0, 8), u64::MAX);
    }

    /// The shifts against their definition on wide integers: the value and the amount read
    /// as the type (signed where the shift is arithmetic), in range an ordinary shift,
    /// outside it 0 or -1.
    #[test]
    fn shifts_follow_one_definition_for_every_width_and_amount() {
        for width in [1u32, 2, 4, 8] {
            let bits = width * 8;
            let mask = u64::MAX >> (64 - bits);
            let signed = |x: u64| -> i128 {
                let x = i128::from(x);
                if x >> (bits - 1) == 1 {
                    x - (1i128 << bits)
                } else {
                    x
                }
            };
            let high = 1u64 << (bits - 1);
            let values = [0, 1, 2, 0x5a, high - 1, high, high | 1, mask - 1, mask];
            let mut amounts: Vec<u64> = (0..=u64::from(bits) + 2).collect();
            amounts.extend([mask, mask - 1, high, high - 1, 2 * u64::from(bits), 255]);
            for &a in &values {
                for &b in &amounts {
                    let (a, b) = (a & mask, b & mask);
                    for (function, arithmetic) in [
                        (BitFunction::ShiftLeft, false),
                        (BitFunction::ShiftLeft, true),
                        (BitFunction::ShiftRight, false),
                        (BitFunction::ShiftRightArithmetic, true),
                    ] {
                        let amount = if arithmetic { signed(b) } else { i128::from(b) };
                        let value = if arithmetic { signed(a) } else { i128::from(a) };
                        let in_range = (0..i128::from(bits)).contains(&amount);
                        let want = match (function, in_range) {
                            (BitFunction::ShiftLeft, true) => value << amount,
                            (_, true) => value >> amount,
                            (BitFunction::ShiftRightArithmetic, false) if value < 0 => -1,
                            _ => 0,
                        };
                        let want = (want & i128::from(mask)) as u64;
                        let got = ElementFunction::bitwise(function).apply(a, b, width);
                        assert_eq!(got, want, "{function:?} {a:#x} by {b:#x}, {width} bytes");
                    }
                }
            }
        }
    }
}
