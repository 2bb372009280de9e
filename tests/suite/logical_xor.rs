//! DirectML LOGICAL_XOR on the GPU: full-width truth, feature levels, strides and in place.

use gpu_xor::inspect::KernelKind;
use gpu_xor::{DataType, Element, FeatureLevel, Tensor, TensorDesc};

use crate::common::{Check, DmlCase, Operator, assert_kernel, ctx, small_windows};
use crate::per_type;

fn truth(a: u64, b: u64) -> u64 {
    u64::from((a != 0) != (b != 0))
}

/// Every pair of `values` through LOGICAL_XOR on the GPU, against the truth table.
fn truth_table<T: Element + Into<u64> + std::fmt::LowerHex>(values: &[T]) {
    let a: Vec<T> = values
        .iter()
        .flat_map(|&x| values.iter().map(move |_| x))
        .collect();
    let b: Vec<T> = values.iter().flat_map(|_| values.iter().copied()).collect();
    let ctx = ctx();
    let n = a.len();
    let out = ctx
        .logical_xor(
            &Tensor::from_slice(ctx, &[n], &a).unwrap(),
            &Tensor::from_slice(ctx, &[n], &b).unwrap(),
        )
        .unwrap()
        .to_vec::<T>()
        .unwrap();
    for i in 0..n {
        assert_eq!(
            out[i].into(),
            truth(a[i].into(), b[i].into()),
            "{:#x} xor {:#x}",
            a[i],
            b[i]
        );
    }
}

#[test]
fn logical_xor_u8_truth_at_full_width() {
    truth_table(&[0u8, 1, 2, 0x10, 0x7f, 0x80, 0xfe, 0xff]);
}

#[test]
fn logical_xor_u32_truth_at_full_width() {
    // 0x100, 0x8000_0000 and 0xffff_ff00 are true although their low byte is zero.
    truth_table(&[
        0u32,
        1,
        0x100,
        0x1_0000,
        0x8000_0000,
        0xffff_ff00,
        0xffff_ffff,
        0x00ff_0000,
    ]);
}

fn sparse(mut case: DmlCase, keep_every: usize) -> DmlCase {
    for buf in &mut case.buffers {
        for (i, byte) in buf.iter_mut().enumerate() {
            if i % keep_every != 0 {
                *byte = 0;
            }
        }
    }
    case
}

fn awkward_counts(dt: DataType) {
    for n in (1..=9).chain([4095, 4097]) {
        let case = sparse(
            DmlCase::packed(Operator::LogicalXor, dt, &[n], u64::from(n)),
            3,
        );
        let r = case.check();
        assert_kernel(&r, KernelKind::Contiguous);
    }
}

per_type!(
    logical_xor_awkward_counts_match_reference,
    |dt| awkward_counts(dt),
    [U8, U32]
);

fn strided(dt: DataType) {
    let t = TensorDesc::new(dt, &[6, 7]);
    for (a, b, out) in [
        (t.clone().with_strides(&[0, 1]), t.clone(), t.clone()),
        (
            t.clone().with_strides(&[1, 6]),
            t.clone().with_strides(&[9, 1]),
            t.clone(),
        ),
        (
            t.clone(),
            t.clone().with_strides(&[0, 0]),
            t.clone().with_strides(&[8, 1]),
        ),
        (t.clone(), t.clone(), t.clone().with_strides(&[1, 6])),
    ] {
        sparse(DmlCase::distinct(Operator::LogicalXor, a, b, out, 5), 2).check();
    }
}

per_type!(
    logical_xor_strided_views_match_reference,
    |dt| strided(dt),
    [U8, U32]
);

#[test]
fn logical_xor_runs_at_every_feature_level_it_exists() {
    // FL 1.0: u32, 4-D. FL 2.0: u8 and u32, 4-D. FL 3.0: 1 to 8 dimensions.
    for (fl, dt, sizes) in [
        (FeatureLevel::Fl1_0, DataType::U32, vec![1u32, 2, 3, 4]),
        (FeatureLevel::Fl2_0, DataType::U8, vec![2, 1, 5, 3]),
        (FeatureLevel::Fl2_0, DataType::U32, vec![2, 2, 2, 2]),
        (FeatureLevel::Fl3_0, DataType::U8, vec![7]),
        (
            FeatureLevel::Fl3_0,
            DataType::U8,
            vec![1, 2, 1, 2, 1, 2, 1, 3],
        ),
    ] {
        let c = ctx().with_feature_level(fl);
        sparse(DmlCase::packed(Operator::LogicalXor, dt, &sizes, 3), 2).check_on(&c);
    }
    let fl1 = ctx().with_feature_level(FeatureLevel::Fl1_0);
    let e = gpu_xor::DmlBinary::new(
        &fl1,
        &gpu_xor::LogicalXorDesc::packed(DataType::U8, &[1, 1, 2, 2]),
    )
    .unwrap_err();
    assert_eq!(e.rule(), "unsupported_dtype");
    assert!(e.to_string().contains("DML_FEATURE_LEVEL_2_0"), "{e}");
}

#[test]
fn logical_xor_refuses_every_other_type() {
    for dt in gpu_xor::DataType::ALL {
        if matches!(dt, DataType::U8 | DataType::U32) {
            continue;
        }
        let e =
            gpu_xor::DmlBinary::new(ctx(), &gpu_xor::LogicalXorDesc::packed(dt, &[4])).unwrap_err();
        assert_eq!(e.rule(), "unsupported_dtype", "{dt}");
    }
}

#[test]
fn logical_xor_crosses_window_seams() {
    let w = small_windows();
    sparse(
        DmlCase::packed(Operator::LogicalXor, DataType::U8, &[9001], 4),
        5,
    )
    .check_on(w);
    let t = TensorDesc::new(DataType::U32, &[30, 70]);
    sparse(
        DmlCase::distinct(
            Operator::LogicalXor,
            t.clone(),
            t.clone().with_strides(&[0, 1]),
            t.clone().with_strides(&[71, 1]),
            6,
        ),
        7,
    )
    .check_on(w);
}
