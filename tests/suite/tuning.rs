//! Kernel choices measured on the adapter (`KernelTuning::Measured`): every candidate of every
//! layout class forced through a loaded table and checked byte for byte, and a real
//! measurement whose choices are candidates and whose calls run them exactly.

use std::collections::BTreeSet;

use gpu_xor::inspect::{KernelKind, TuningKey};
use gpu_xor::{CompiledOperator, Context, ContextOptions, DataType, KernelTuning, TensorDesc};
use gpu_xor_core::schedule::select;
use gpu_xor_testkit::engine::AnyOperator;

use crate::common::{Check, DmlCase, Operator, ctx};

/// A context on the suite's device whose choices are measured (or loaded).
fn measured() -> Context {
    let base = ctx();
    Context::with_options(
        base.device().clone(),
        base.queue().clone(),
        &ContextOptions {
            kernel_tuning: KernelTuning::Measured,
            max_window_bytes: Some(base.max_window_bytes()),
            ..ContextOptions::default()
        },
    )
    .unwrap()
}

/// Layout classes with more than one kernel, over `[r, c]` of `dt`: (name, A, B, output).
fn classes(dt: DataType, [r, c]: [u32; 2]) -> Vec<(&'static str, [TensorDesc; 3])> {
    let t = || TensorDesc::new(dt, &[r, c]);
    let w = dt.size_in_bytes();
    vec![
        ("transposed A", [t().with_strides(&[1, r]), t(), t()]),
        ("transposed output", [t(), t(), t().with_strides(&[1, r])]),
        ("row broadcast B", [t(), t().with_strides(&[0, 1]), t()]),
        ("column broadcast B", [t(), t().with_strides(&[1, 0]), t()]),
        (
            "padded output rows",
            [t(), t(), t().with_strides(&[c + 3, 1])],
        ),
        (
            "aligned padded output rows",
            [t(), t(), t().with_strides(&[c + 16 / w, 1])],
        ),
        (
            "transposed A into aligned padded output rows",
            [
                t().with_strides(&[1, r]),
                t(),
                t().with_strides(&[c + 16 / w, 1]),
            ],
        ),
        (
            "every fourth output element",
            [t(), t(), t().with_strides(&[4 * c, 4])],
        ),
        // The (2, 1, 0) permutation of a [c, 2, r] tensor: the tile kernels' batch between
        // the matrix's rows and columns.
        (
            "reversed A, the batch inside",
            [
                TensorDesc::new(dt, &[r, 2, c]).with_strides(&[1, r, 2 * r]),
                TensorDesc::new(dt, &[r, 2, c]),
                TensorDesc::new(dt, &[r, 2, c]),
            ],
        ),
    ]
}

/// The plan's class and candidates on `ctx`.
fn class_of(case: &DmlCase, ctx: &Context) -> (Option<TuningKey>, Vec<KernelKind>) {
    let AnyOperator::DmlBinary(op) = case.operator(ctx).unwrap() else {
        unreachable!("a binary case")
    };
    let plan = op.plan();
    (
        ctx.tuning_key(&op),
        select::plan_candidates(
            plan,
            ctx.device().limits().max_compute_workgroups_per_dimension,
        ),
    )
}

#[test]
fn every_candidate_of_every_class_runs_exactly_when_chosen() {
    let ctx = measured();
    let mut reached = BTreeSet::new();
    for (k, dt) in [DataType::U8, DataType::U16, DataType::U32, DataType::U64]
        .into_iter()
        .enumerate()
    {
        for (l, (name, [a, b, out])) in classes(dt, [24, 160]).into_iter().enumerate() {
            let seed = (k * 10 + l) as u64;
            let case = DmlCase::distinct(Operator::BitXor, a, b, out, seed);
            let (key, candidates) = class_of(&case, &ctx);
            let key = key.unwrap_or_else(|| panic!("{dt} {name}: no class"));
            assert!(candidates.len() >= 2, "{dt} {name}: {candidates:?}");
            let mut ran = BTreeSet::new();
            for &kernel in &candidates {
                let mut table = ctx.kernel_choices();
                table.insert(key, kernel);
                assert!(ctx.load_kernel_choices(&table.to_bytes()).unwrap() >= 1);
                assert_eq!(ctx.kernel_choices().get(&key), Some(kernel));
                let summary = case.check_on(&ctx);
                ran.extend(summary.dispatches);
            }
            // The choice moves the kernel: more than one ran over the candidates, and each
            // that ran is a candidate.
            assert!(
                ran.len() >= 2,
                "{dt} {name}: only {ran:?} of {candidates:?}"
            );
            assert!(ran.iter().all(|k| candidates.contains(k)), "{dt} {name}");
            reached.extend(ran);
        }
    }
    for kernel in KernelKind::DISPATCHING {
        assert!(
            reached.contains(&kernel),
            "{kernel:?} never chosen: {reached:?}"
        );
    }
}

#[test]
fn a_measurement_keeps_a_candidate_per_class_and_calls_run_it() {
    let ctx = measured();
    let cases: Vec<(&str, DmlCase)> = classes(DataType::U32, [256, 256])
        .into_iter()
        .enumerate()
        .map(|(l, (name, [a, b, out]))| {
            let op = Operator::BitXor;
            (name, DmlCase::distinct(op, a, b, out, l as u64))
        })
        .collect();
    let ops: Vec<AnyOperator> = cases
        .iter()
        .map(|(_, case)| case.operator(&ctx).unwrap())
        .collect();
    let binary: Vec<&dyn CompiledOperator> = ops
        .iter()
        .map(|op| match op {
            AnyOperator::DmlBinary(op) => op as &dyn CompiledOperator,
            _ => unreachable!("binary cases"),
        })
        .collect();
    let keys: BTreeSet<TuningKey> = binary.iter().filter_map(|op| ctx.tuning_key(*op)).collect();
    let report = ctx.tune(&binary).unwrap();
    // Timed by the GPU's clock wherever the device has one.
    let timestamps = ctx
        .device()
        .features()
        .contains(wgpu::Features::TIMESTAMP_QUERY);
    assert_eq!(report.gpu_timestamps, timestamps, "{report:?}");
    assert_eq!(report.measured + report.skipped, keys.len(), "{report:?}");
    assert!(report.measured >= 5, "{report:?}");
    assert!(report.candidates >= 2 * report.measured, "{report:?}");
    // Measured once: warming up again measures nothing.
    let again = ctx.tune(&binary).unwrap();
    assert_eq!((again.measured, again.known), (0, report.measured));
    for (name, case) in &cases {
        let (key, candidates) = class_of(case, &ctx);
        let Some(choice) = key.and_then(|key| ctx.kernel_choices().get(&key)) else {
            continue;
        };
        assert!(candidates.contains(&choice), "{name}: {choice:?}");
        let summary = case.check_on(&ctx);
        assert_eq!(summary.dispatches, [choice], "{name}");
    }
    // The table reloads on a new context of the same adapter, and nothing is measured there.
    let other = measured();
    let bytes = ctx.kernel_choices().to_bytes();
    assert_eq!(other.load_kernel_choices(&bytes).unwrap(), report.measured);
    let warm = other.tune(&binary[..0]).unwrap();
    assert_eq!(warm.measured, 0);
    // A damaged table is refused and leaves the choices as they were.
    let mut damaged = bytes.clone();
    damaged[20] ^= 1;
    let err = other.load_kernel_choices(&damaged).unwrap_err();
    assert_eq!(err.rule(), "kernel_choices_corrupt");
    assert_eq!(other.kernel_choices(), ctx.kernel_choices());
}
