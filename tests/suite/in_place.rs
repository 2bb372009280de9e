//! Binding patterns: in place, shared input buffers, disjoint ranges of one buffer, and the
//! overlaps that are refused.

use gpu_xor::inspect::{BindingPattern, KernelKind};
use gpu_xor::{DataType, TensorDesc};

use crate::common::{
    Check, DmlCase, Operator, assert_kernel, place, random_bytes, scatter_kind, small_windows,
};

/// One buffer of `len` random bytes holding every tensor of the case.
fn one_buffer(mut case: DmlCase, len: usize, places: [(usize, u64); 3]) -> DmlCase {
    let buffers = places.iter().map(|p| p.0).max().unwrap() + 1;
    case.buffers = (0..buffers)
        .map(|i| random_bytes(77 + i as u64, len))
        .collect();
    case.places = places.map(|(b, o)| place(b, o));
    case
}

#[test]
fn in_place_output_aliases_a_and_runs_in_place() {
    for dt in [DataType::U8, DataType::U16, DataType::U32, DataType::F64] {
        let case = one_buffer(
            DmlCase::packed(Operator::BitXor, dt, &[37], 1),
            512,
            [(0, 64), (1, 16), (0, 64)],
        );
        let r = case.check();
        // The proof that the in-place path ran: A was read through the output's binding.
        assert_eq!(r.binding_pattern, BindingPattern::OutputSharesA);
        assert!(r.a_in_place && !r.b_in_place);
    }
}

#[test]
fn in_place_output_aliases_b() {
    let case = one_buffer(
        DmlCase::packed(Operator::BitXor, DataType::U16, &[5, 7], 2),
        512,
        [(1, 0), (0, 32), (0, 32)],
    );
    let r = case.check();
    assert_eq!(r.binding_pattern, BindingPattern::OutputSharesB);
    assert!(r.b_in_place && !r.a_in_place);
}

#[test]
fn inputs_bound_to_one_range_give_zeros() {
    let case = one_buffer(
        DmlCase::packed(Operator::BitXor, DataType::U8, &[9], 3),
        256,
        [(0, 16), (0, 16), (1, 0)],
    );
    let r = case.check();
    assert_eq!(r.binding_pattern, BindingPattern::InputsShareBuffer);
    let after = case.expected();
    assert!(after[1][..9].iter().all(|&b| b == 0));
}

#[test]
fn all_three_on_one_range() {
    for dt in [DataType::U8, DataType::I16, DataType::U64] {
        let case = one_buffer(
            DmlCase::packed(Operator::BitXor, dt, &[3, 11], 4),
            512,
            [(0, 48), (0, 48), (0, 48)],
        );
        let r = case.check();
        assert_eq!(r.binding_pattern, BindingPattern::AllShareBuffer);
        assert!(r.a_in_place && r.b_in_place);
    }
}

#[test]
fn disjoint_ranges_of_one_buffer() {
    for dt in [DataType::U8, DataType::U16, DataType::U32] {
        let case = one_buffer(
            DmlCase::packed(Operator::BitXor, dt, &[13], 5),
            1024,
            [(0, 0), (0, 256), (0, 512)],
        );
        let r = case.check();
        assert_eq!(r.binding_pattern, BindingPattern::AllShareBuffer);
        assert!(!r.in_place());
        // Output before the inputs, inputs overlapping each other.
        let case = one_buffer(
            DmlCase::packed(Operator::BitXor, dt, &[13], 6),
            1024,
            [(0, 512), (0, 528), (0, 16)],
        );
        case.check();
    }
}

#[test]
fn output_shares_a_buffer_with_a_disjoint_range() {
    let case = one_buffer(
        DmlCase::packed(Operator::BitXor, DataType::U8, &[21], 7),
        512,
        [(0, 128), (1, 0), (0, 0)],
    );
    let r = case.check();
    assert_eq!(r.binding_pattern, BindingPattern::OutputSharesA);
    assert!(!r.in_place());
}

/// Short padded rows in place: the scatter kernel, with atomic lanes for 8- and 16-bit
/// elements and plain word stores for 32-bit ones.
#[test]
fn in_place_with_padded_strides_on_the_scatter_kernel() {
    for (dt, kernel) in [
        (DataType::U8, KernelKind::Scatter),
        (DataType::U16, KernelKind::Scatter),
        (DataType::U32, KernelKind::Spaced),
    ] {
        let t = TensorDesc::new(dt, &[2, 3]).with_strides(&[4, 1]);
        assert_eq!(scatter_kind(&t), kernel);
        let mut case = DmlCase::distinct(
            Operator::BitXor,
            t.clone(),
            TensorDesc::new(dt, &[2, 3]),
            t,
            8,
        );
        case.places[2] = case.places[0];
        let r = case.check();
        assert!(r.a_in_place);
        assert_kernel(&r, kernel);
    }
}

#[test]
fn in_place_logical_xor() {
    let case = one_buffer(
        DmlCase::packed(Operator::LogicalXor, DataType::U8, &[1, 2, 5, 3], 9),
        256,
        [(0, 32), (1, 32), (0, 32)],
    );
    assert!(case.check().a_in_place);
}

#[test]
fn in_place_across_window_seams() {
    let case = one_buffer(
        DmlCase::packed(Operator::BitXor, DataType::U16, &[6000], 10),
        12_400,
        [(0, 0), (1, 0), (0, 0)],
    );
    let r = case.check_on(small_windows());
    assert!(r.a_in_place && r.dispatches.len() > 2);
}

#[test]
fn partial_overlap_of_input_and_output_is_refused() {
    let case = one_buffer(
        DmlCase::packed(Operator::BitXor, DataType::U32, &[16], 11),
        512,
        [(0, 0), (1, 0), (0, 16)],
    );
    case.check_error("partial_overlap");
}

#[test]
fn in_place_with_a_different_description_is_refused() {
    // Same offset, different TotalTensorSizeInBytes.
    let t = TensorDesc::new(DataType::U8, &[8]);
    let mut case = DmlCase::distinct(
        Operator::BitXor,
        t.clone().with_total_size(8),
        t.clone(),
        t.clone().with_total_size(16),
        12,
    );
    case.places[2] = case.places[0];
    case.check_error("alias_desc_mismatch");
    // Same offset, different strides.
    let t = TensorDesc::new(DataType::U8, &[2, 3]);
    let mut case = DmlCase::distinct(
        Operator::BitXor,
        t.clone().with_strides(&[4, 1]),
        t.clone(),
        t.clone().with_strides(&[3, 1]).with_total_size(8),
        13,
    );
    case.places[2] = case.places[0];
    case.check_error("alias_desc_mismatch");
}

/// Operands of one buffer further apart than one binding holds get bindings of their own
/// (inputs in the output's buffer as read_write), in place or not.
#[test]
fn operands_far_apart_in_one_buffer() {
    let w = small_windows();
    for dt in [DataType::U8, DataType::U32, DataType::I64] {
        let case = one_buffer(
            DmlCase::packed(Operator::BitXor, dt, &[3000 / dt.size_in_bytes()], 14),
            40_000,
            [(0, 0), (0, 30_000), (0, 15_008)],
        );
        let r = case.check_on(w);
        assert_eq!(r.binding_pattern, BindingPattern::AllShareBuffer);
        // In place on A, B far away in the same buffer.
        let case = one_buffer(
            DmlCase::packed(Operator::BitXor, dt, &[3000 / dt.size_in_bytes()], 15),
            40_000,
            [(0, 96), (0, 30_000), (0, 96)],
        );
        assert!(case.check_on(w).a_in_place);
        // Inputs far apart in their own buffer.
        let case = one_buffer(
            DmlCase::packed(Operator::BitXor, dt, &[3000 / dt.size_in_bytes()], 16),
            40_000,
            [(0, 0), (0, 30_000), (1, 512)],
        );
        case.check_on(w);
    }
}
