//! Fused expressions drawn at random: validated, planned, lowered on drawn bindings under a
//! drawn target (windows down to 1 KiB, WebGPU's aliasing rule or not), and evaluated by the
//! reference on small inputs; each must end in `Ok` or a typed error, never a panic, within
//! the case limits.

use super::*;
use gpu_xor::{Expr, ExprDesc, ReduceOp};
use gpu_xor_core::layout::FusedPlan;
use gpu_xor_testkit::OperatorExt;

fn below(rng: &mut SplitMix64, n: u64) -> u64 {
    rng.next_u64() % n.max(1)
}

/// A tensor of `data_type` with sizes drawn around `sizes` (sometimes broadcast, sometimes
/// off), strides drawn from none, packed, padded, zero and arbitrary, and now and then a
/// total size, an alignment or a flag.
fn tensor(rng: &mut SplitMix64, data_type: DataType, sizes: &[u32]) -> TensorDesc {
    let mut own: Vec<u32> = match below(rng, 6) {
        0 => sizes
            .iter()
            .map(|&s| if below(rng, 2) == 0 { 1 } else { s })
            .collect(),
        1 => sizes[below(rng, sizes.len() as u64) as usize..].to_vec(),
        2 => (0..below(rng, 10)).map(|_| below(rng, 6) as u32).collect(),
        _ => sizes.to_vec(),
    };
    if own.is_empty() && below(rng, 2) == 0 {
        own.push(1);
    }
    let mut t = TensorDesc::new(data_type, &own);
    match below(rng, 5) {
        0 => {
            let strides: Vec<u32> = (0..own.len()).map(|_| below(rng, 40) as u32).collect();
            t = t.with_strides(&strides);
        }
        1 => {
            let mut strides: Vec<u32> = packed_strides(&own).iter().map(|&s| s as u32).collect();
            strides.reverse();
            t = t.with_strides(&strides);
        }
        _ => {}
    }
    if below(rng, 8) == 0 {
        t = t.with_total_size(below(rng, 4096));
    }
    if below(rng, 10) == 0 {
        t.flags = TensorFlags::OwnedByDml;
    }
    t
}

/// An expression of up to five inputs (one more than allowed, now and then), up to nine
/// operator nodes of any row of the table, constants of any bits.
fn draw(rng: &mut SplitMix64) -> ExprDesc {
    let integers = [
        DataType::U8,
        DataType::U16,
        DataType::U32,
        DataType::U64,
        DataType::I8,
        DataType::I32,
        DataType::Bool,
    ];
    let data_type = if below(rng, 4) == 0 {
        DataType::ALL[below(rng, DataType::ALL.len() as u64) as usize]
    } else {
        integers[below(rng, integers.len() as u64) as usize]
    };
    let rank = 1 + below(rng, 5) as usize;
    let sizes: Vec<u32> = (0..rank).map(|_| 1 + below(rng, 9) as u32).collect();
    let mut e = Expr::new();
    let mut nodes = Vec::new();
    let inputs = 1 + below(rng, 4) + u64::from(below(rng, 20) == 0);
    for _ in 0..inputs {
        nodes.push(e.input(tensor(rng, data_type, &sizes)));
    }
    // Mostly operators that take the inputs' type, now and then any row of the table.
    let takes: Vec<Operator> = Operator::ALL
        .into_iter()
        .filter(|op| op.takes_at(data_type, FeatureLevel::Fl6_4))
        .collect();
    for _ in 0..1 + below(rng, 9) {
        let op = if takes.is_empty() || below(rng, 4) == 0 {
            Operator::ALL[below(rng, Operator::ALL.len() as u64) as usize]
        } else {
            takes[below(rng, takes.len() as u64) as usize]
        };
        let a = nodes[below(rng, nodes.len() as u64) as usize];
        let node = match below(rng, 8) {
            0 => {
                let t = if below(rng, 4) == 0 {
                    DataType::ALL[below(rng, DataType::ALL.len() as u64) as usize]
                } else {
                    data_type
                };
                let bits = rng.next_u64() >> below(rng, 64);
                let bits = if below(rng, 4) == 0 || t.size_in_bytes() == 8 {
                    bits
                } else {
                    bits & ((1 << (8 * t.size_in_bytes())) - 1)
                };
                e.constant(t, bits)
            }
            1 => {
                let t = [DataType::U8, DataType::U32, DataType::U16][below(rng, 3) as usize];
                e.bit_count(a, t)
            }
            _ if op.inputs() == 1 => e.apply(op, &[a]),
            _ => {
                let b = nodes[below(rng, nodes.len() as u64) as usize];
                e.apply(op, &[a, b])
            }
        };
        nodes.push(node);
    }
    let result = nodes[nodes.len() - 1 - below(rng, 2) as usize];
    let out_type = if below(rng, 4) == 0 {
        DataType::ALL[below(rng, DataType::ALL.len() as u64) as usize]
    } else {
        data_type
    };
    if below(rng, 3) != 0 {
        let output = tensor(rng, out_type, &sizes);
        return e.output(result, output);
    }
    // A reduction over trailing axes (now and then any axis), into the kept sizes, with the
    // reduced ones as 1, or now and then the whole space; a sum mostly into 32 or 64 bits.
    let k = 1 + below(rng, rank as u64) as usize;
    let axes: Vec<usize> = if below(rng, 8) == 0 {
        vec![below(rng, rank as u64 + 2) as usize]
    } else {
        (rank - k..rank).collect()
    };
    let op = ReduceOp::ALL[below(rng, ReduceOp::ALL.len() as u64) as usize];
    let out_type = if op == ReduceOp::Sum && below(rng, 4) != 0 {
        [DataType::U32, DataType::U64][below(rng, 2) as usize]
    } else {
        out_type
    };
    let mut out_sizes = sizes[..rank - k].to_vec();
    if out_sizes.is_empty() || below(rng, 2) == 0 {
        out_sizes.extend(std::iter::repeat_n(1, k));
    }
    if below(rng, 8) == 0 {
        out_sizes = sizes.clone();
    }
    let output = tensor(rng, out_type, &out_sizes);
    e.reduce(result, op, &axes, output)
}

/// One drawn expression: validated, planned, lowered on drawn bindings, run by the reference
/// where small; returns its outcome.
fn run_expr(desc: &ExprDesc, rng: &mut SplitMix64) -> &'static str {
    use gpu_xor_core::layout::Limits;
    use gpu_xor_core::schedule::Target;
    use gpu_xor_core::schedule::fused::lower_fused;
    use gpu_xor_core::schedule::lower::Operand;
    let level = if below(rng, 4) == 0 {
        FeatureLevel::ALL[below(rng, FeatureLevel::ALL.len() as u64) as usize]
    } else {
        FeatureLevel::Fl6_4
    };
    let validated = desc.validate(level);
    let operands = desc.operands(level);
    assert_eq!(validated.clone().err(), operands.clone().err());
    // The reference agrees with the validation, on inputs of the bytes each tensor needs.
    let needs = |t: &TensorDesc| t.total_size().unwrap_or(0).min(1 << 16) as usize;
    let inputs: Vec<Vec<u8>> = desc
        .inputs
        .iter()
        .map(|t| (0..needs(t)).map(|_| rng.next_u64() as u8).collect())
        .collect();
    let refs: Vec<&[u8]> = inputs.iter().map(|v| v.as_slice()).collect();
    let mut out = vec![0u8; needs(&desc.output)];
    let small = desc
        .inputs
        .iter()
        .chain([&desc.output])
        .all(|t| t.total_size().is_ok_and(|n| n <= 1 << 16));
    if small {
        let r = reference::expression(desc, level, &refs, &mut out);
        if validated.is_ok() {
            assert!(r.is_ok(), "{r:?}");
        } else {
            assert_eq!(r.err(), validated.clone().err());
        }
    }
    let Ok(operands) = operands else {
        return outcome(&validated);
    };
    let plan = FusedPlan::new(&operands);
    if plan.element_count() > 1 << 16 {
        return "ok";
    }
    let target = Target {
        windows: Limits {
            max_window: [1u64 << 27, 4096, 1024][below(rng, 3) as usize],
            offset_alignment: 256,
            max_rank: 8,
        },
        max_groups: [65535, 3][below(rng, 2) as usize],
        strict_aliasing: below(rng, 2) == 0,
        cpu: below(rng, 2) == 0,
        choices: None,
        tiled: below(rng, 4) != 0,
    };
    // Bindings: each operand in one of three buffers, at a drawn offset (aligned or not),
    // bound to the rest of the buffer or to a drawn size; now and then one binding too many
    // or too few.
    let count = 1 + operands.input_count() + usize::from(below(rng, 20) == 0);
    let count = count - usize::from(below(rng, 20) == 0 && count > 1);
    let sizes: [u64; 3] = std::array::from_fn(|_| 256 * (1 + below(rng, 2048)));
    let bound: Vec<Operand> = (0..count)
        .map(|_| {
            let buffer = below(rng, 3) as usize;
            let offset = match below(rng, 6) {
                0 | 1 => 0,
                5 => below(rng, sizes[buffer]),
                _ => 256 * below(rng, sizes[buffer] / 256),
            };
            Operand {
                buffer,
                buffer_size: sizes[buffer],
                offset,
                size: (below(rng, 6) == 0).then(|| below(rng, sizes[buffer])),
            }
        })
        .collect();
    let share = below(rng, 2) == 0;
    match lower_fused(&plan, &bound, &target, share) {
        Ok(lowered) => {
            // Every record is a fused one, and every window within the target's.
            for piece in &lowered.pieces {
                assert!(piece.key.fused.is_some());
                for range in piece.slots.iter().flatten() {
                    assert!(range.end - range.start <= target.windows.max_window + 16);
                }
            }
            "ok"
        }
        Err(e) => e.rule(),
    }
}

/// Random expressions end in `Ok` or a typed error, in bounded time and memory, and the
/// reference agrees with the validation.
#[test]
fn expressions_end_in_ok_or_a_typed_error() {
    let (cases, seed) = draws();
    let (cases, seed) = (cases / 5, seed ^ 0xe4);
    let mut rng = SplitMix64::new(seed);
    let mut outcomes: BTreeMap<&'static str, u64> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut slowest = Duration::ZERO;
    for index in 0..cases {
        let desc = draw(&mut rng);
        let case_seed = rng.next_u64();
        let started = Instant::now();
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            run_expr(&desc, &mut SplitMix64::new(case_seed))
        }));
        let took = started.elapsed();
        slowest = slowest.max(took);
        match result {
            Ok(rule) => *outcomes.entry(rule).or_default() += 1,
            Err(e) => {
                let message = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failures.push(format!("case {index}: panicked: {message}\n  {desc:?}"));
            }
        }
        if took > CASE_TIME_LIMIT * 2 {
            failures.push(format!("case {index}: took {took:?}\n  {desc:?}"));
        }
    }
    println!("\nexpressions: {cases} cases (seed {seed:#x}), slowest {slowest:.2?}");
    for (rule, n) in &outcomes {
        println!("{rule:<28} {n:>8}");
    }
    for f in failures.iter().take(10) {
        println!("{f}");
    }
    assert!(
        failures.is_empty(),
        "{} failing expression cases",
        failures.len()
    );
    // Valid expressions and lowered calls were drawn.
    assert!(
        outcomes.get("ok").copied().unwrap_or(0) > cases / 100,
        "{outcomes:?}"
    );
}
