//! OpenVINO BitwiseXor-13 on the GPU: the seed examples, numpy / pdpd / none broadcasting,
//! scalars, zero-size dimensions, ranks above 8 and non-canonical booleans; every OpenVINO
//! operation of the operator table on broadcasts that reach each kernel; and every DirectML
//! operator of two inputs on a tensor and a scalar.

use gpu_xor::inspect::KernelKind;
use gpu_xor::{AutoBroadcast, BitwiseXorDesc, DataType, Error, OvBinary, Tensor};
use proptest::prelude::*;

use crate::common::{CheckOv, OPENVINO, OvCase, assert_kernel, ctx, small_windows};
use crate::per_type;

const NUMPY: AutoBroadcast = AutoBroadcast::Numpy;

#[test]
fn openvino_doc_example_u8() {
    let ctx = ctx();
    let a = Tensor::from_slice(ctx, &[2], &[21u8, 120]).unwrap();
    let b = Tensor::from_slice(ctx, &[2], &[3u8, 37]).unwrap();
    assert_eq!(
        ctx.bitwise_xor(&a, &b, NUMPY)
            .unwrap()
            .to_vec::<u8>()
            .unwrap(),
        [22, 93]
    );
}

#[test]
fn openvino_doc_example_bool() {
    let ctx = ctx();
    let a = Tensor::from_bools(ctx, &[3], &[true, false, false]).unwrap();
    let b = Tensor::from_bools(ctx, &[3], &[true, true, false]).unwrap();
    assert_eq!(
        ctx.bitwise_xor(&a, &b, NUMPY).unwrap().to_bools().unwrap(),
        [false, true, false]
    );
}

#[test]
fn openvino_doc_shapes() {
    let (shape, r) =
        OvCase::new(DataType::U8, &[256, 56], &[256, 56], AutoBroadcast::None, 1).check();
    assert_eq!(shape, [256, 56]);
    assert_kernel(&r, KernelKind::Contiguous);
    let (shape, _) = OvCase::new(DataType::I32, &[8, 1, 6, 1], &[7, 1, 5], NUMPY, 2).check();
    assert_eq!(shape, [8, 7, 6, 5]);
}

fn every_type(dt: DataType) {
    for (a, b) in [
        (vec![3, 5], vec![3, 5]),
        (vec![2, 3, 4, 5], vec![1]),
        (vec![2, 3, 4, 5], vec![5]),
        (vec![4, 5], vec![2, 3, 4, 5]),
        (vec![1, 4, 5], vec![2, 3, 1, 1]),
        (vec![1, 3, 4, 4], vec![1, 3, 1, 1]),
        (vec![1, 1, 256, 56], vec![1, 1, 256, 1]),
    ] {
        OvCase::new(dt, &a, &b, NUMPY, a.len() as u64).check();
    }
}

per_type!(
    bitwise_xor_numpy_shapes_match_reference,
    |dt| every_type(dt),
    [U8, I8, U16, I16, U32, I32, U64, I64, Bool]
);

#[test]
fn numpy_one_against_zero_gives_an_empty_output_and_dispatches_nothing() {
    for (a, b, want) in [
        (vec![1], vec![0], vec![0]),
        (vec![2, 1], vec![1, 0], vec![2, 0]),
        (vec![0, 3], vec![3], vec![0, 3]),
    ] {
        let (shape, r) = OvCase::new(DataType::U16, &a, &b, NUMPY, 3).check();
        assert_eq!(shape, want);
        assert!(r.dispatches.is_empty());
    }
}

#[test]
fn pdpd_cases_that_pass() {
    let pd = |axis| AutoBroadcast::Pdpd { axis };
    for (b, axis) in [
        (vec![3, 4], 1),
        (vec![3, 1], 1),
        (vec![4, 5], -1),
        (vec![4, 5], 2),
        (vec![1, 3], 0),
        (vec![], -1),
        (vec![5], -1),
        (vec![5], 3),
        (vec![2, 3, 4, 5], 0),
    ] {
        let (shape, _) = OvCase::new(DataType::I32, &[2, 3, 4, 5], &b, pd(axis), 4).check();
        assert_eq!(shape, [2, 3, 4, 5], "{b:?} axis {axis}");
    }
    OvCase::new(DataType::U8, &[8, 7, 6, 5], &[7, 1, 5], pd(-1), 5).check();
    // A 1 against a 0 merges to 0: the output is empty.
    let (shape, r) = OvCase::new(DataType::U8, &[2, 1], &[0], pd(-1), 6).check();
    assert_eq!(shape, [2, 0]);
    assert!(r.dispatches.is_empty());
}

#[test]
fn pdpd_cases_that_fail() {
    let pd = |axis| AutoBroadcast::Pdpd { axis };
    for (a, b, axis) in [
        (vec![8, 1, 6, 1], vec![7, 1, 5], 1),     // B dim 7 > A dim 1
        (vec![2, 3, 4, 5], vec![3, 1], -2),       // axis below -1
        (vec![2, 3, 4, 1], vec![2, 3, 4, 5], -1), // B dim 5 > A dim 1
        (vec![2, 3, 4, 5], vec![4, 5, 1], 2),     // axis + rank(B) > rank(A)
        (vec![2, 3], vec![1, 2, 3], -1),          // rank(B) > rank(A)
        (vec![2, 3, 4], vec![2], 1),              // 2 against 3
    ] {
        let d = BitwiseXorDesc::new(DataType::I32, &a, &b).with_broadcast(pd(axis));
        let e = OvBinary::new(ctx(), &d).unwrap_err();
        assert_eq!(e.rule(), "shape_inconsistent", "{a:?} {b:?} {axis}");
        assert!(
            e.to_string()
                .starts_with("Argument shapes are inconsistent.")
        );
    }
}

#[test]
fn none_refuses_unequal_shapes_and_runs_equal_ones() {
    let d = BitwiseXorDesc::new(DataType::U8, &[1, 3], &[3]).with_broadcast(AutoBroadcast::None);
    assert_eq!(
        OvBinary::new(ctx(), &d).unwrap_err().rule(),
        "shape_inconsistent"
    );
    OvCase::new(DataType::U8, &[2, 3, 5], &[2, 3, 5], AutoBroadcast::None, 7).check();
}

#[test]
fn numpy_refuses_inconsistent_shapes() {
    for (a, b) in [
        (vec![3], vec![4]),
        (vec![3, 5, 6], vec![4, 10, 12]),
        (vec![389, 112, 12], vec![389, 112, 19]),
        (vec![2, 0], vec![3]),
    ] {
        let e = OvBinary::new(ctx(), &BitwiseXorDesc::new(DataType::I32, &a, &b)).unwrap_err();
        assert_eq!(e.rule(), "shape_inconsistent", "{a:?} {b:?}");
    }
}

#[test]
fn scalars() {
    for (a, b) in [
        (vec![], vec![]),
        (vec![], vec![4, 3]),
        (vec![2, 5], vec![]),
        (vec![1], vec![]),
    ] {
        let (shape, _) = OvCase::new(DataType::I64, &a, &b, NUMPY, 8).check();
        assert_eq!(shape.len(), a.len().max(b.len()));
    }
    OvCase::new(DataType::Bool, &[7], &[], AutoBroadcast::PDPD, 9).check();
}

#[test]
fn ranks_nine_and_ten() {
    // Packed rank 9 folds to one dimension.
    let r9 = [2, 1, 3, 1, 2, 1, 2, 1, 3];
    let (_, r) = OvCase::new(DataType::U16, &r9, &r9, NUMPY, 10).check();
    assert_kernel(&r, KernelKind::Contiguous);
    // Alternating broadcast on ten dimensions cannot fold: it is cut into rank-8 pieces.
    let a = [2, 1, 2, 1, 2, 1, 2, 1, 2, 1];
    let b = [1, 2, 1, 2, 1, 2, 1, 2, 1, 2];
    let (shape, r) = OvCase::new(DataType::U8, &a, &b, NUMPY, 11).check();
    assert_eq!(shape, [2; 10]);
    assert!(r.dispatches.len() >= 4, "{r:?}");
    let (_, r) = OvCase::new(DataType::I32, &a[..9], &b[..9], NUMPY, 12).check();
    assert!(r.dispatches.len() >= 2, "{r:?}");
}

#[test]
fn non_canonical_bools_are_normalised() {
    let ctx = ctx();
    let a = Tensor::from_bytes(ctx, DataType::Bool, &[6], &[2, 0x80, 0xff, 1, 0, 3]).unwrap();
    let b = Tensor::from_bytes(ctx, DataType::Bool, &[6], &[1, 0, 0x10, 0, 0, 0]).unwrap();
    // 2 ^ 1 is 0 after normalisation, not 3.
    assert_eq!(
        ctx.bitwise_xor(&a, &b, NUMPY).unwrap().to_bytes().unwrap(),
        [0, 1, 0, 1, 0, 1]
    );
    OvCase::new(DataType::Bool, &[37], &[37], NUMPY, 13).check();
    OvCase::new(DataType::Bool, &[5, 9], &[9], NUMPY, 14).check();
}

#[test]
fn types_must_match_and_be_integer_or_boolean() {
    let mut d = BitwiseXorDesc::new(DataType::U8, &[3], &[3]);
    d.b_type = DataType::Bool;
    assert_eq!(
        OvBinary::new(ctx(), &d).unwrap_err(),
        Error::ElementTypeMismatch {
            a: DataType::U8,
            b: DataType::Bool
        }
    );
    for dt in [DataType::F16, DataType::F32, DataType::F64] {
        let e = OvBinary::new(ctx(), &BitwiseXorDesc::new(dt, &[2, 2], &[2, 2])).unwrap_err();
        assert_eq!(e, Error::NotIntegerOrBoolean { data_type: dt });
    }
    let d = BitwiseXorDesc::new(DataType::U8, &[3], &[3]).with_broadcast(AutoBroadcast::Explicit);
    assert_eq!(
        OvBinary::new(ctx(), &d).unwrap_err().rule(),
        "unsupported_broadcast"
    );
}

#[test]
fn in_place_on_the_first_input() {
    let mut c = OvCase::new(DataType::U16, &[4, 9], &[9], NUMPY, 15);
    c.out_on_a = true;
    let (_, r) = c.check();
    assert!(r.a_in_place);
    // A is broadcast ([9] against [4, 9]): binding the output on A's range is refused.
    let d = BitwiseXorDesc::new(DataType::U16, &[9], &[4, 9]);
    let op = OvBinary::new(ctx(), &d).unwrap();
    let b = Tensor::zeros(ctx(), DataType::U16, &[4, 9]).unwrap();
    let shared = Tensor::zeros(ctx(), DataType::U16, &[4, 9]).unwrap();
    let e = op
        .run(&gpu_xor::Bindings::new(
            gpu_xor::TensorBinding::range(shared.buffer(), 0, 20),
            b.binding(),
            shared.binding(),
        ))
        .unwrap_err();
    assert_eq!(e.rule(), "alias_desc_mismatch");
}

/// Every OpenVINO operation of the table on broadcasts that reach the rows, shifted-rows and
/// gather kernels (a two-input one on u16 and i64, or bool where it takes booleans only), and
/// every one-input one on each type it takes, apart and in place.
#[test]
fn every_openvino_operation_broadcasts_on_its_kernels() {
    let ctx = ctx();
    for op in OPENVINO.into_iter().filter(|op| op.inputs() == 2) {
        let types: &[DataType] = if op.boolean_only() {
            &[DataType::Bool]
        } else {
            &[DataType::U16, DataType::I64]
        };
        for (&dt, (a_shape, b_shape)) in types.iter().flat_map(|dt| {
            [
                (&[33, 130][..], &[130][..]),
                (&[33, 130][..], &[33, 1][..]),
                (&[4, 1, 9][..], &[5, 1][..]),
            ]
            .map(|shapes| (dt, shapes))
        }) {
            let case = OvCase::new(dt, a_shape, b_shape, NUMPY, 81).with_op(op);
            case.check_on(ctx);
        }
    }
    for op in OPENVINO.into_iter().filter(|op| op.inputs() == 1) {
        for dt in [DataType::Bool, DataType::U8, DataType::I64] {
            if op.boolean_only() && dt != DataType::Bool {
                continue;
            }
            let case = OvCase::new(dt, &[7, 33], &[1], NUMPY, 82).with_op(op);
            case.check_on(ctx);
            let mut in_place = case.clone();
            in_place.out_on_a = true;
            in_place.check_on(ctx);
        }
    }
}

#[test]
fn broadcast_crosses_window_seams() {
    let w = small_windows();
    OvCase::new(DataType::U8, &[64, 97], &[97], NUMPY, 17).check_on(w);
    OvCase::new(DataType::U32, &[40, 1], &[1, 41], NUMPY, 18).check_on(w);
    OvCase::new(DataType::I64, &[3, 50, 7], &[50, 1], NUMPY, 19).check_on(w);
}

#[test]
fn binding_offsets_follow_the_element_size() {
    let mut c = OvCase::new(DataType::U8, &[13], &[13], NUMPY, 20);
    c.offsets = [4, 8, 12];
    c.check();
    let mut c = OvCase::new(DataType::U64, &[5], &[5], NUMPY, 21);
    c.offsets = [8, 24, 40];
    c.check();
    // A u64 tensor at offset 4 is refused.
    let op = OvBinary::new(ctx(), &BitwiseXorDesc::new(DataType::U64, &[1], &[1])).unwrap();
    let t = Tensor::zeros(ctx(), DataType::U64, &[4]).unwrap();
    let e = op
        .run(&gpu_xor::Bindings::new(
            gpu_xor::TensorBinding::at(t.buffer(), 4),
            t.binding(),
            gpu_xor::TensorBinding::at(t.buffer(), 16),
        ))
        .unwrap_err();
    assert_eq!(e.rule(), "binding_offset_misaligned");
}

/// OpenVINO's broadcast rules, written out plainly, independent of the library's code.
fn plain_rules(a: &[usize], b: &[usize], mode: AutoBroadcast) -> Option<Vec<usize>> {
    let merge = |x: usize, y: usize| -> Option<usize> {
        if x == y {
            Some(x)
        } else if x == 1 {
            Some(y)
        } else if y == 1 {
            Some(x)
        } else {
            None
        }
    };
    match mode {
        AutoBroadcast::None => (a == b).then(|| a.to_vec()),
        AutoBroadcast::Numpy => {
            let r = a.len().max(b.len());
            let mut out = Vec::new();
            for i in 0..r {
                let x = if i + a.len() >= r {
                    a[i + a.len() - r]
                } else {
                    1
                };
                let y = if i + b.len() >= r {
                    b[i + b.len() - r]
                } else {
                    1
                };
                out.push(merge(x, y)?);
            }
            Some(out)
        }
        AutoBroadcast::Pdpd { axis } => {
            if b.len() > a.len() || axis < -1 {
                return None;
            }
            let start = if axis == -1 {
                a.len() - b.len()
            } else {
                axis as usize
            };
            if start + b.len() > a.len() {
                return None;
            }
            let mut out = a.to_vec();
            for (i, &y) in b.iter().enumerate() {
                if y > a[start + i] {
                    return None;
                }
                out[start + i] = merge(a[start + i], y)?;
            }
            Some(out)
        }
        _ => None,
    }
}

fn mode() -> impl Strategy<Value = AutoBroadcast> {
    prop_oneof![
        Just(AutoBroadcast::None),
        Just(AutoBroadcast::Numpy),
        (-2i64..5).prop_map(|axis| AutoBroadcast::Pdpd { axis }),
    ]
}

fn shape() -> impl Strategy<Value = Vec<usize>> {
    proptest::collection::vec(
        prop_oneof![3 => Just(1usize), 4 => 2usize..5, 1 => Just(0usize)],
        0..6,
    )
}

/// A pair of shapes that broadcast under numpy: B is a suffix of A with some dimensions
/// replaced by 1 (or A's replaced by 1).
fn compatible() -> impl Strategy<Value = (Vec<usize>, Vec<usize>)> {
    (
        proptest::collection::vec(1usize..5, 0..6),
        any::<u32>(),
        any::<u32>(),
        any::<bool>(),
    )
        .prop_map(|(full, cut, ones, flip)| {
            let keep = if full.is_empty() {
                0
            } else {
                cut as usize % (full.len() + 1)
            };
            let mut b: Vec<usize> = full[full.len() - keep..].to_vec();
            let mut a = full.clone();
            for (i, d) in b.iter_mut().enumerate() {
                if ones >> i & 1 == 1 {
                    *d = 1;
                }
            }
            for (i, d) in a.iter_mut().enumerate() {
                if ones >> (i + 8) & 3 == 3 {
                    *d = 1;
                }
            }
            if flip { (b, a) } else { (a, b) }
        })
}

proptest! {
    #![proptest_config(crate::common::property(256))]

    #[test]
    fn shape_inference_follows_the_plain_rules(a in shape(), b in shape(), m in mode()) {
        let got = gpu_xor::infer_output_shape(&a, &b, m).ok();
        prop_assert_eq!(got, plain_rules(&a, &b, m));
    }
}

proptest! {
    #![proptest_config(crate::common::property(48))]

    #[test]
    fn bitwise_xor_matches_reference_under_broadcasting(
        (a, b) in compatible(),
        dt in proptest::sample::select(vec![DataType::U8, DataType::I8, DataType::U16, DataType::I16, DataType::U32, DataType::I32, DataType::U64, DataType::I64, DataType::Bool]),
        seed in any::<u64>(),
        windows in any::<bool>(),
    ) {
        let case = OvCase::new(dt, &a, &b, NUMPY, seed);
        if windows { case.check_on(small_windows()); } else { case.check(); }
    }

    #[test]
    fn bitwise_xor_matches_reference_under_pdpd(
        a in proptest::collection::vec(1usize..5, 1..6),
        cut in any::<(u8, u8, u8)>(),
        seed in any::<u64>(),
    ) {
        // B: a run of A's dimensions, some set to 1, placed at `axis`.
        let start = cut.0 as usize % a.len();
        let len = cut.1 as usize % (a.len() - start + 1);
        let b: Vec<usize> = a[start..start + len].iter().enumerate().map(|(i, &d)| if cut.2 >> i & 1 == 1 { 1 } else { d }).collect();
        let case = OvCase::new(DataType::I32, &a, &b, AutoBroadcast::Pdpd { axis: start as i64 }, seed);
        case.check();
    }
}

/// A tensor and one repeated element (a scalar, strides 0) on the contiguous kernel, the
/// element splat over the run: every DirectML operator of two inputs at every type it takes
/// (XOR under both tunings), the element as B, as A or both, runs with and without a partial
/// last block, at the bindings' start (the kernel's direct form), 32 bytes in, and in place;
/// the element alone in a buffer of one element, which leaves no room to read its block: the
/// shifted-rows kernel; runs cut into 4 KiB windows, every piece with its element; and a run
/// of over 1 MiB with a partial last block, which CPU adapters cut into its whole blocks and a
/// last piece for the gather kernel.
#[test]
fn a_tensor_and_a_scalar_run_on_the_contiguous_kernel_for_every_operator() {
    use crate::common::{
        Check, DIRECTML, DmlCase, Operator, OperatorExt, assert_kernels, speckle, tuned,
    };
    use gpu_xor::{KernelTuning, TensorDesc};
    let binary = DIRECTML.into_iter().filter(|op| op.inputs() == 2);
    let runs = binary
        .clone()
        .take(1)
        .map(|op| (op, KernelTuning::Cpu))
        .chain(binary.map(|op| (op, KernelTuning::Gpu)));
    for (k, (op, tuning)) in runs.enumerate() {
        let ctx = tuned(tuning);
        for &dt in DataType::DIRECTML.iter().filter(|&&dt| op.takes(dt)) {
            let w = dt.size_in_bytes();
            let seed = 700 + 31 * k as u64 + u64::from(w);
            for (n, strides) in [
                (64 / w * 5, [[1], [0], [1]]),
                (64 / w * 5 + 1, [[0], [1], [1]]),
                (37, [[0], [0], [1]]),
                (3, [[1], [0], [1]]),
            ] {
                let t = TensorDesc::new(dt, &[n]);
                let [a, b, out] = strides.map(|s| t.clone().with_strides(&s));
                let distinct = DmlCase::distinct(op, a, b, out, seed + u64::from(n));
                let len = (n * w + 64).next_multiple_of(16) as usize;
                // In place on the dense input, where one is.
                let in_place = match strides {
                    [[1], _, _] => Some([(0, 16), (1, 48), (0, 16)]),
                    [_, [1], _] => Some([(0, 48), (1, 16), (1, 16)]),
                    _ => None,
                };
                let cases = [Some([(0, 0), (1, 0), (2, 0)]), in_place]
                    .into_iter()
                    .flatten()
                    .map(|places| distinct.clone().placed(len, places, seed));
                for mut case in std::iter::once(distinct.clone()).chain(cases) {
                    if op.logical() {
                        speckle(&mut case.buffers, seed);
                    }
                    let r = case.check_on(ctx);
                    assert_kernels(&r, &[KernelKind::Contiguous]);
                }
            }
            // The element alone in a buffer of one element (rounded up to a word).
            let t = TensorDesc::new(dt, &[100]);
            let mut tight = DmlCase::distinct(op, t.clone(), t.clone().with_strides(&[0]), t, seed);
            tight.buffers[1].truncate(w.max(4) as usize);
            tight.places[1].offset = 0;
            if op.logical() {
                speckle(&mut tight.buffers, seed);
            }
            let r = tight.check_on(ctx);
            assert_kernels(&r, &[KernelKind::ShiftedRows]);
        }
    }
    for (dt, op) in [
        (DataType::U8, Operator::BitXor),
        (DataType::U16, Operator::BitXor),
        (DataType::U32, Operator::BitShiftLeft),
        (DataType::U64, Operator::BitXor),
    ] {
        // Three windows and a part.
        let n = 3 * 4096 / dt.size_in_bytes() + 5;
        let t = TensorDesc::new(dt, &[n]);
        let case = DmlCase::distinct(op, t.clone(), t.clone().with_strides(&[0]), t, 11);
        let r = case.check_on(small_windows());
        assert!(r.dispatches.len() >= 4, "{r:?}");
        assert_kernels(&r, &[KernelKind::Contiguous]);
    }
    let n = (1 << 20) + 3;
    let t = TensorDesc::new(DataType::U8, &[n]);
    let case = DmlCase::distinct(
        Operator::BitXor,
        t.clone(),
        t.clone().with_strides(&[0]),
        t,
        9,
    );
    for (tuning, kernels) in [
        (
            KernelTuning::Cpu,
            &[KernelKind::Contiguous, KernelKind::Gather][..],
        ),
        (KernelTuning::Gpu, &[KernelKind::Contiguous]),
    ] {
        assert_eq!(case.check_on(tuned(tuning)).dispatches, kernels);
    }
}
