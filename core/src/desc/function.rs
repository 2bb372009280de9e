//! The element functions of the word-wide family, and which operator applies which.

/// A word-wide function: every bit of the result is the function of the same bit of the
/// inputs, so one kernel runs it on bytes, halves, words, pairs of words and 16-byte blocks
/// alike. [`BitFunction::Not`] takes one input.
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
}

impl BitFunction {
    /// Every function, in the order of the kernels' `FUNC` constant.
    pub const ALL: [BitFunction; 4] = [
        BitFunction::Xor,
        BitFunction::And,
        BitFunction::Or,
        BitFunction::Not,
    ];

    /// How many inputs it takes: 1 for [`BitFunction::Not`], else 2.
    pub fn inputs(self) -> usize {
        match self {
            BitFunction::Not => 1,
            _ => 2,
        }
    }

    /// The function on 64 bits (`b` is ignored by [`BitFunction::Not`]).
    pub fn apply(self, a: u64, b: u64) -> u64 {
        match self {
            BitFunction::Xor => a ^ b,
            BitFunction::And => a & b,
            BitFunction::Or => a | b,
            BitFunction::Not => !a,
        }
    }

    /// The value of the kernels' `FUNC` override (`shaders/shared/common.wgsl`).
    pub(crate) fn code(self) -> u32 {
        match self {
            BitFunction::Xor => 0,
            BitFunction::And => 1,
            BitFunction::Or => 2,
            BitFunction::Not => 3,
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
    /// has nothing set above the element. Bits above the element in `a` and `b` are ignored.
    pub fn apply(self, a: u64, b: u64, width: u32) -> u64 {
        let mask = match width {
            8.. => u64::MAX,
            w => (1u64 << (w * 8)) - 1,
        };
        let (a, b) = (a & mask, b & mask);
        if self.logical {
            self.function.apply(u64::from(a != 0), u64::from(b != 0)) & 1
        } else {
            self.function.apply(a, b) & mask
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logical_functions_read_the_whole_element_and_write_zero_or_one() {
        for function in BitFunction::ALL {
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
}
