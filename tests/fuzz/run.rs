//! Running one drawn case: its description validated and lowered under a drawn tuning, its
//! call bound, and the reference run on small inputs, each ending in `Ok` or a typed error.

use super::*;

/// Every call the case reaches; returns its outcome: `ok` or the rule of the validation error.
/// A disagreement between calls that must agree is a panic, caught as a failure.
pub(super) fn run_case(case: &Case, rng: &mut SplitMix64) -> &'static str {
    match case {
        Case::Bit(desc, level) => {
            let validated = desc.validate(*level);
            let planned = desc.operands(*level).map(|o| Plan::new(&o));
            if let Ok(plan) = &planned {
                tuned_lowering(plan, rng);
            }
            dml_common(
                &[&desc.a, &desc.b, &desc.output],
                &validated,
                planned.as_ref(),
            );
            dml_reference(&[&desc.a, &desc.b, &desc.output], DmlBinaryOp::BitXor, rng);
            outcome(&validated)
        }
        Case::Logical(desc, level) => {
            let validated = desc.validate(*level);
            let planned = desc.operands(*level).map(|o| Plan::new(&o));
            if let Ok(plan) = &planned {
                tuned_lowering(plan, rng);
            }
            dml_common(
                &[&desc.a, &desc.b, &desc.output],
                &validated,
                planned.as_ref(),
            );
            dml_reference(
                &[&desc.a, &desc.b, &desc.output],
                DmlBinaryOp::LogicalXor,
                rng,
            );
            outcome(&validated)
        }
        Case::Dml(desc, level) => {
            let validated = desc.validate(*level);
            let planned = desc.operands(*level).map(|o| Plan::new(&o));
            if let Ok(plan) = &planned {
                tuned_lowering(plan, rng);
            }
            if let Ok(plan) = &planned {
                assert_eq!(plan.function(), desc.op.function());
            }
            dml_common(
                &[&desc.a, &desc.b, &desc.output],
                &validated,
                planned.as_ref(),
            );
            dml_reference(&[&desc.a, &desc.b, &desc.output], desc.op, rng);
            outcome(&validated)
        }
        Case::DmlNot(desc, level) => {
            let validated = desc.validate(*level);
            let planned = desc.operands(*level).map(|o| Plan::new(&o));
            if let Ok(plan) = &planned {
                tuned_lowering(plan, rng);
            }
            if let Ok(plan) = &planned {
                assert_eq!(plan.function(), desc.op.function());
                // The input is read in B's place too.
                assert_eq!(plan.strides(TensorName::A), plan.strides(TensorName::B));
            }
            // B is the input again: the common checks hold with it in B's place.
            dml_common(
                &[&desc.input, &desc.input, &desc.output],
                &validated,
                planned.as_ref(),
            );
            dml_unary_reference(desc, rng);
            outcome(&validated)
        }
        Case::Ov(desc) => {
            let validated = desc.validate();
            let shape = desc.output_shape();
            let planned = desc.operands().map(|o| Plan::new(&o));
            assert_eq!(validated.clone().map(|_| ()), shape.clone().map(|_| ()));
            if let Ok(plan) = &planned {
                assert_eq!(plan.function(), desc.op.function(desc.a_type));
            }
            if desc.a_type == desc.b_type {
                let inferred =
                    infer_output_shape(&desc.a_shape, &desc.b_shape, desc.auto_broadcast);
                assert_eq!(
                    inferred.as_ref().err(),
                    shape
                        .as_ref()
                        .err()
                        .filter(|e| e.rule() != "unsupported_dtype")
                );
            }
            openvino_family_reference(desc, rng);
            match (&validated, &planned) {
                (Ok(()), Err(e)) => e.rule(),
                _ => outcome(&validated),
            }
        }
        Case::OvNot(desc) => {
            let validated = desc.validate();
            let planned = desc.operands().map(|o| Plan::new(&o));
            match (&validated, &planned) {
                (Err(e), planned) => assert_eq!(planned.as_ref().err(), Some(e)),
                (Ok(()), Ok(plan)) => {
                    assert_eq!(plan.function(), desc.op.function(desc.data_type))
                }
                (Ok(()), Err(e)) => assert_eq!(e.rule(), "size_overflow", "{e}"),
            }
            if desc
                .shape
                .iter()
                .try_fold(1usize, |n, &d| n.checked_mul(d))
                .is_some_and(|n| n <= 4096)
            {
                let n: usize = desc.shape.iter().product();
                let len = n * desc.data_type.size_in_bytes() as usize;
                let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
                let r = reference::ov_unary(desc.op, desc.data_type, &desc.shape, &bytes);
                assert_eq!(r.as_ref().err(), validated.as_ref().err());
            }
            match (&validated, &planned) {
                (Ok(()), Err(e)) => e.rule(),
                _ => outcome(&validated),
            }
        }
        Case::OpenVino(desc) => {
            let validated = desc.validate();
            let shape = desc.output_shape();
            let inferred = infer_output_shape(&desc.a_shape, &desc.b_shape, desc.auto_broadcast);
            let planned = desc.operands().map(|o| Plan::new(&o));
            assert_eq!(validated.clone().map(|_| ()), shape.clone().map(|_| ()));
            if desc.a_type == desc.b_type {
                assert_eq!(
                    inferred.as_ref().err(),
                    shape
                        .as_ref()
                        .err()
                        .filter(|e| { e.rule() != "unsupported_dtype" })
                );
            }
            match (&shape, &planned) {
                (Ok(shape), Ok(plan)) => {
                    let count = shape
                        .iter()
                        .try_fold(1u64, |acc, &d| acc.checked_mul(d as u64));
                    let count = if shape.contains(&0) { Some(0) } else { count };
                    assert_eq!(Some(plan.element_count()), count, "{shape:?}");
                    if plan.element_count() == 0 {
                        assert_eq!(plan.kernel(), KernelKind::Empty);
                        assert_eq!(plan.required_binding_size(TensorName::Output), 0);
                    }
                }
                (Ok(_), Err(e)) => assert_eq!(e.rule(), "size_overflow", "{e}"),
                (Err(e), planned) => assert_eq!(planned.as_ref().err(), Some(e)),
            }
            openvino_reference(desc, rng);
            match (&validated, &planned) {
                (Ok(()), Err(e)) => e.rule(),
                _ => outcome(&validated),
            }
        }
    }
}

pub(super) fn outcome(result: &Result<(), Error>) -> &'static str {
    match result {
        Ok(()) => "ok",
        Err(e) => e.rule(),
    }
}

/// What every DirectML case checks: the plan agrees with validation, and each tensor's sizes
/// are measured without a panic.
pub(super) fn dml_common(
    tensors: &[&TensorDesc; 3],
    validated: &Result<(), Error>,
    planned: Result<&Plan, &Error>,
) {
    assert_eq!(validated.as_ref().err(), planned.err());
    for t in tensors {
        match expected_min_size(t) {
            Some(bytes) => assert_eq!(t.min_buffer_size(), Ok(bytes)),
            None => assert!(t.min_buffer_size().is_err()),
        }
        let _ = t.total_size();
        let _ = t.element_count();
        let _ = t.effective_strides();
    }
    if let Ok(plan) = planned {
        let count = tensors[2].element_count();
        assert_eq!(u128::from(plan.element_count()), count);
        assert!(count <= u128::from(u32::MAX));
        for (name, t) in [TensorName::A, TensorName::B, TensorName::Output]
            .into_iter()
            .zip(tensors)
        {
            assert_eq!(Ok(plan.required_binding_size(name)), t.total_size());
            assert!(plan.binding_alignment(name).is_power_of_two());
        }
    }
}

/// Lowers a small call of `plan` on distinct buffers under a drawn tuning: the fixed rule of
/// either adapter class, alone or with a measured choice of any kernel for the plan's layout
/// class (one the layout allows or not). The choice changes nothing but kernels: the same
/// outcome, the same pieces, and each piece on its rule's kernel or on the choice, which
/// must be one of the layout's candidates.
pub(super) fn tuned_lowering(plan: &Plan, rng: &mut SplitMix64) {
    use gpu_xor_core::layout::Limits;
    use gpu_xor_core::schedule::Target;
    use gpu_xor_core::schedule::lower::{Operand, lower};
    use gpu_xor_core::schedule::select;
    use gpu_xor_core::schedule::tune::KernelChoices;
    if plan.element_count() > 1 << 16 {
        return;
    }
    let max_window = [1u64 << 27, 4096, 1024][(rng.next_u64() % 3) as usize];
    let rule = Target {
        windows: Limits {
            max_window,
            offset_alignment: 256,
            max_rank: 8,
        },
        max_groups: 65535,
        strict_aliasing: rng.next_u64().is_multiple_of(2),
        cpu: rng.next_u64().is_multiple_of(2),
        choices: None,
        tiled: true,
    };
    let key = select::tuning_key(plan, rule.max_groups);
    // Mostly one of the layout's candidates, sometimes any kernel.
    let candidates = select::plan_candidates(plan, 65535);
    let choice = if rng.next_u64().is_multiple_of(4) || candidates.is_empty() {
        KernelKind::DISPATCHING[(rng.next_u64() % KernelKind::DISPATCHING.len() as u64) as usize]
    } else {
        candidates[(rng.next_u64() % candidates.len() as u64) as usize]
    };
    let mut choices = KernelChoices::new("fuzz");
    if let Some(key) = key {
        choices.insert(key, choice);
    }
    let measured = Target {
        choices: Some(Arc::new(choices)),
        ..rule.clone()
    };
    let unary = plan.operator().inputs() == 1;
    let names = [TensorName::Output, TensorName::A, TensorName::B];
    if names
        .iter()
        .any(|&name| plan.required_binding_size(name) > 1 << 32)
    {
        return;
    }
    let bound: [Operand; 3] = std::array::from_fn(|o| {
        let bytes = plan.required_binding_size(names[o]).div_ceil(16) * 16 + 16;
        Operand {
            buffer: if unary && o == 2 { 1 } else { o },
            buffer_size: bytes,
            offset: 0,
            size: None,
        }
    });
    let by_rule = lower(plan, bound, &rule);
    let by_choice = lower(plan, bound, &measured);
    assert_eq!(by_rule.is_ok(), by_choice.is_ok());
    if let (Ok(by_rule), Ok(by_choice)) = (by_rule, by_choice) {
        let (ruled, chosen) = (&by_rule.summary.dispatches, &by_choice.summary.dispatches);
        // The scatter family cuts a piece whose 8- or 16-bit output words interleave into
        // nested parts; another kernel chosen for that piece owns its words without the cut,
        // so only there may the count of pieces differ.
        let scatter = |k: &KernelKind| matches!(k, KernelKind::Scatter | KernelKind::Spaced);
        if ruled.len() != chosen.len() {
            assert!(
                ruled.iter().any(scatter)
                    && chosen
                        .iter()
                        .all(|c| scatter(c) || (*c == choice && candidates.contains(c))),
                "{ruled:?} {chosen:?}"
            );
            return;
        }
        // A call of one piece is its plan's class: the rule's kernel is among the kernels
        // the class's measurement times, so a measured choice was timed against it.
        if let (Some(key), [one]) = (key, &ruled[..])
            && max_window == 1 << 27
        {
            assert!(key.kernels().contains(one), "{one:?} not among {key}");
        }
        for (r, c) in ruled.iter().zip(chosen) {
            assert!(
                r == c || (*c == choice && candidates.contains(c)),
                "{r:?} {c:?}"
            );
        }
    }
}

/// Runs the reference on small DirectML views (whatever the rules say; the reference applies
/// only its own) with random bytes, sometimes too few.
pub(super) fn dml_reference(tensors: &[&TensorDesc; 3], op: DmlBinaryOp, rng: &mut SplitMix64) {
    const SMALL: u128 = 4096;
    if tensors.iter().any(|t| t.element_count() > SMALL) {
        return;
    }
    let usize_dims = |v: &[u32]| -> Vec<usize> { v.iter().map(|&x| x as usize).collect() };
    let sizes: Vec<Vec<usize>> = tensors.iter().map(|t| usize_dims(&t.sizes)).collect();
    let strides: Vec<Option<Vec<usize>>> = tensors
        .iter()
        .map(|t| t.strides.as_deref().map(usize_dims))
        .collect();
    let mut bytes: Vec<Vec<u8>> = tensors
        .iter()
        .map(|t| {
            let len = match t.min_buffer_size() {
                Ok(n) if n <= 1 << 16 && !rng.one_in(8) => n as usize,
                _ => rng.below(64) as usize,
            };
            (0..len).map(|_| rng.next_u64() as u8).collect()
        })
        .collect();
    let out_bytes = bytes.pop().expect("three tensors");
    let mut out_bytes = out_bytes;
    let view = |i: usize| StridedView {
        bytes: &bytes[i],
        data_type: tensors[i].data_type,
        sizes: &sizes[i],
        strides: strides[i].as_deref(),
        offset: 0,
    };
    let mut out = StridedViewMut {
        bytes: &mut out_bytes,
        data_type: tensors[2].data_type,
        sizes: &sizes[2],
        strides: strides[2].as_deref(),
        offset: 0,
    };
    let _ = match op {
        DmlBinaryOp::BitXor => reference::bit_xor(&view(0), &view(1), &mut out),
        DmlBinaryOp::LogicalXor => reference::logical_xor(&view(0), &view(1), &mut out),
        op => reference::dml_binary(op, &view(0), &view(1), &mut out),
    };
}

/// Runs the reference of a NOT on small views, with random bytes, sometimes too few.
pub(super) fn dml_unary_reference(desc: &DmlUnaryDesc, rng: &mut SplitMix64) {
    const SMALL: u128 = 4096;
    let tensors = [&desc.input, &desc.output];
    if tensors.iter().any(|t| t.element_count() > SMALL) {
        return;
    }
    let usize_dims = |v: &[u32]| -> Vec<usize> { v.iter().map(|&x| x as usize).collect() };
    let mut bytes: Vec<Vec<u8>> = tensors
        .iter()
        .map(|t| {
            let len = match t.min_buffer_size() {
                Ok(n) if n <= 1 << 16 && !rng.one_in(8) => n as usize,
                _ => rng.below(64) as usize,
            };
            (0..len).map(|_| rng.next_u64() as u8).collect()
        })
        .collect();
    let mut out_bytes = bytes.pop().expect("two tensors");
    let (in_sizes, out_sizes) = (
        usize_dims(&desc.input.sizes),
        usize_dims(&desc.output.sizes),
    );
    let (in_strides, out_strides) = (
        desc.input.strides.as_deref().map(usize_dims),
        desc.output.strides.as_deref().map(usize_dims),
    );
    let input = StridedView {
        bytes: &bytes[0],
        data_type: desc.input.data_type,
        sizes: &in_sizes,
        strides: in_strides.as_deref(),
        offset: 0,
    };
    let mut out = StridedViewMut {
        bytes: &mut out_bytes,
        data_type: desc.output.data_type,
        sizes: &out_sizes,
        strides: out_strides.as_deref(),
        offset: 0,
    };
    let _ = reference::dml_unary(desc.op, &input, &mut out);
}

/// Runs the reference of the family's OpenVINO operations on small inputs, with the right
/// byte counts or not.
pub(super) fn openvino_family_reference(desc: &OvBinaryDesc, rng: &mut SplitMix64) {
    let xor = BitwiseXorDesc {
        a_type: desc.a_type,
        b_type: desc.b_type,
        a_shape: desc.a_shape.clone(),
        b_shape: desc.b_shape.clone(),
        auto_broadcast: desc.auto_broadcast,
    };
    openvino_reference_of(&xor, desc.op, rng);
}

/// Runs the reference on small OpenVINO inputs, with the right byte counts or not.
pub(super) fn openvino_reference(desc: &BitwiseXorDesc, rng: &mut SplitMix64) {
    openvino_reference_of(desc, OvBinaryOp::BitwiseXor, rng);
}

/// Runs the reference of `op` on small inputs of `desc`'s types and shapes.
pub(super) fn openvino_reference_of(desc: &BitwiseXorDesc, op: OvBinaryOp, rng: &mut SplitMix64) {
    const SMALL: u64 = 4096;
    let count = |shape: &[usize]| -> Option<u64> {
        if shape.contains(&0) {
            return Some(0);
        }
        shape
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d as u64))
            .filter(|&n| n <= SMALL)
    };
    let (Some(a), Some(b)) = (count(&desc.a_shape), count(&desc.b_shape)) else {
        return;
    };
    if let Ok(shape) = desc.output_shape() {
        if count(&shape).is_none() {
            return;
        }
    }
    let width = u64::from(desc.a_type.size_in_bytes());
    let mut data = |n: u64| -> Vec<u8> {
        let len = if rng.one_in(8) {
            rng.below(64)
        } else {
            n * width
        };
        (0..len).map(|_| rng.next_u64() as u8).collect()
    };
    let (a_bytes, b_bytes) = (data(a), data(b));
    let _ = if op == OvBinaryOp::BitwiseXor {
        reference::bitwise_xor(
            desc.a_type,
            &desc.a_shape,
            &a_bytes,
            &desc.b_shape,
            &b_bytes,
            desc.auto_broadcast,
        )
    } else {
        reference::ov_binary(
            op,
            desc.a_type,
            &desc.a_shape,
            &a_bytes,
            &desc.b_shape,
            &b_bytes,
            desc.auto_broadcast,
        )
    };
}
