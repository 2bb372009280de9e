//! Binding overlap analysis: how the operands of one call share buffers (a binding error, or
//! the binding pattern to use). Whether an output overlaps itself is a description rule
//! (`desc::self_overlap`).

use super::{A, B, OUT};
use crate::desc::{Operand, TensorName};
use crate::error::Error;

/// How the buffers of one call are bound.
///
/// wgpu refuses one buffer in a read-only and a writable binding of one dispatch, even for
/// ranges that do not overlap. So operands of one buffer share one binding where a binding can
/// hold them all; an input in the output's buffer is read either through the output's
/// `read_write` binding (the scatter kernel) or through a `read_write` binding of its own,
/// which wgpu allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum BindingPattern {
    /// Three different buffers.
    Distinct,
    /// A and B share a buffer (any ranges); the output has its own.
    InputsShareBuffer,
    /// The output shares A's buffer (in place, or disjoint ranges); B has its own.
    OutputSharesA,
    /// The output shares B's buffer (in place, or disjoint ranges); A has its own.
    OutputSharesB,
    /// All three share one buffer.
    AllShareBuffer,
}

impl BindingPattern {
    /// Every pattern.
    pub const ALL: [BindingPattern; 5] = [
        BindingPattern::Distinct,
        BindingPattern::InputsShareBuffer,
        BindingPattern::OutputSharesA,
        BindingPattern::OutputSharesB,
        BindingPattern::AllShareBuffer,
    ];

    /// The binding slot each operand is read from, indexed by `OUT`, `A`, `B`: 0 is the
    /// output's binding, 1 and 2 the inputs' (the kernels' `A_SRC` and `B_SRC`). Each
    /// distinct buffer is bound once.
    pub const fn slots(self) -> [usize; 3] {
        match self {
            BindingPattern::Distinct => [0, 1, 2],
            BindingPattern::InputsShareBuffer => [0, 1, 1],
            BindingPattern::OutputSharesA => [0, 0, 1],
            BindingPattern::OutputSharesB => [0, 1, 0],
            BindingPattern::AllShareBuffer => [0, 0, 0],
        }
    }
}

/// One operand's binding as the analysis sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BoundOperand {
    /// Identifies the buffer: equal keys mean the same buffer.
    pub buffer: usize,
    /// Byte offset of the tensor in the buffer.
    pub offset: u64,
}

/// The result of [`analyze_bindings`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Sharing {
    pub pattern: BindingPattern,
    /// The binding slot each operand is read from (0 = output's, 1 and 2 = inputs'),
    /// indexed by `OUT`, `A`, `B`.
    pub slot: [usize; 3],
    /// Whether A and B alias the output exactly (in-place).
    pub in_place: [bool; 2],
}

/// Applies DirectML's binding rule for in-place execution: an input may share the output's buffer
/// when the two ranges `[offset, offset + TotalTensorSizeInBytes)` are disjoint, or when they
/// are the same range with identical sizes, strides and total size (in place). Any other
/// overlap is refused. Inputs may overlap each other freely.
pub(crate) fn analyze_bindings(
    bound: &[BoundOperand; 3],
    specs: &[Operand; 3],
) -> Result<Sharing, Error> {
    let out = &bound[OUT];
    let mut in_place = [false; 2];
    for (i, (x, tensor)) in [(A, TensorName::A), (B, TensorName::B)]
        .into_iter()
        .enumerate()
    {
        if bound[x].buffer == out.buffer {
            in_place[i] = alias(tensor, (bound[x], &specs[x]), (*out, &specs[OUT]), true)?;
        }
    }

    let a_out = bound[A].buffer == out.buffer;
    let b_out = bound[B].buffer == out.buffer;
    let a_b = bound[A].buffer == bound[B].buffer;
    let pattern = match (a_out, b_out, a_b) {
        (true, true, _) => BindingPattern::AllShareBuffer,
        (true, false, _) => BindingPattern::OutputSharesA,
        (false, true, _) => BindingPattern::OutputSharesB,
        (false, false, true) => BindingPattern::InputsShareBuffer,
        (false, false, false) => BindingPattern::Distinct,
    };
    Ok(Sharing {
        pattern,
        slot: pattern.slots(),
        in_place,
    })
}

/// Whether an input bound in the output's buffer runs in place: `false` where the two
/// ranges (`TotalTensorSizeInBytes` from each offset) are disjoint, `true` where they are the
/// same range and the descriptions agree (sizes, strides, total size and, as `same_type`
/// says, the element type); any other overlap is an error.
pub(crate) fn alias(
    tensor: TensorName,
    (input, input_spec): (BoundOperand, &Operand),
    (out, out_spec): (BoundOperand, &Operand),
    same_type: bool,
) -> Result<bool, Error> {
    // Bindings are checked to lie inside their buffers first, so these ends fit; saturating
    // keeps the analysis total on any input.
    let out_range = (
        out.offset,
        out.offset.saturating_add(out_spec.required_bytes),
    );
    let range = (
        input.offset,
        input.offset.saturating_add(input_spec.required_bytes),
    );
    let overlaps = range.0 < out_range.1 && out_range.0 < range.1;
    if !overlaps {
        return Ok(false);
    }
    if range.0 != out_range.0 {
        return Err(Error::PartialOverlap {
            tensor,
            input: range,
            output: out_range,
        });
    }
    let field = if input_spec.sizes != out_spec.sizes {
        Some("Sizes")
    } else if input_spec.strides != out_spec.strides {
        Some("Strides")
    } else if input_spec.required_bytes != out_spec.required_bytes {
        Some("TotalTensorSizeInBytes")
    } else if !same_type {
        Some("DataType")
    } else {
        None
    };
    match field {
        Some(field) => Err(Error::AliasDescMismatch { tensor, field }),
        None => Ok(true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(bytes: u64, sizes: &[u64], strides: &[u64]) -> Operand {
        Operand {
            sizes: sizes.to_vec(),
            strides: strides.to_vec(),
            axis: 0,
            required_bytes: bytes,
            touched_bytes: bytes,
            offset_alignment: 16,
        }
    }

    fn bound(buffer: usize, offset: u64) -> BoundOperand {
        BoundOperand { buffer, offset }
    }

    #[test]
    fn distinct_buffers_need_no_analysis() {
        let s = spec(16, &[4], &[1]);
        let specs = [s.clone(), s.clone(), s];
        let r = analyze_bindings(&[bound(0, 0), bound(1, 0), bound(2, 0)], &specs).unwrap();
        assert_eq!(r.pattern, BindingPattern::Distinct);
        assert_eq!(r.slot, [0, 1, 2]);
    }

    #[test]
    fn exact_alias_is_in_place() {
        let s = spec(16, &[4], &[1]);
        let specs = [s.clone(), s.clone(), s];
        let r = analyze_bindings(&[bound(0, 32), bound(0, 32), bound(1, 0)], &specs).unwrap();
        assert_eq!(r.pattern, BindingPattern::OutputSharesA);
        assert_eq!(r.in_place, [true, false]);
        let r = analyze_bindings(&[bound(0, 32), bound(0, 32), bound(0, 32)], &specs).unwrap();
        assert_eq!(r.pattern, BindingPattern::AllShareBuffer);
        assert_eq!(r.in_place, [true, true]);
        assert_eq!(r.slot, [0, 0, 0]);
    }

    #[test]
    fn disjoint_ranges_of_one_buffer_are_fine() {
        let s = spec(16, &[4], &[1]);
        let specs = [s.clone(), s.clone(), s];
        let r = analyze_bindings(&[bound(0, 16), bound(0, 0), bound(0, 32)], &specs).unwrap();
        assert_eq!(r.pattern, BindingPattern::AllShareBuffer);
        assert_eq!(r.in_place, [false, false]);
    }

    #[test]
    fn partial_overlap_and_alias_mismatch_are_refused() {
        let s = spec(32, &[8], &[1]);
        let specs = [s.clone(), s.clone(), s.clone()];
        let e = analyze_bindings(&[bound(0, 16), bound(0, 0), bound(1, 0)], &specs).unwrap_err();
        assert_eq!(e.rule(), "partial_overlap");

        let specs = [spec(16, &[8], &[1]), spec(8, &[8], &[1]), s];
        let e = analyze_bindings(&[bound(0, 0), bound(0, 0), bound(1, 0)], &specs).unwrap_err();
        assert_eq!(
            e,
            Error::AliasDescMismatch {
                tensor: TensorName::A,
                field: "TotalTensorSizeInBytes"
            }
        );
    }

    #[test]
    fn inputs_may_overlap_each_other() {
        let s = spec(32, &[8], &[1]);
        let specs = [s.clone(), s.clone(), s];
        let r = analyze_bindings(&[bound(0, 0), bound(1, 0), bound(1, 16)], &specs).unwrap();
        assert_eq!(r.pattern, BindingPattern::InputsShareBuffer);
        assert_eq!(r.slot, [0, 1, 1]);
    }
}
