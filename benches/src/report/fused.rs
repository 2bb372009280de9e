//! The fused expressions' section (`--fused`): expressions of several operators run as one
//! generated kernel against the same operators run one by one through intermediate tensors,
//! the nibble unpack against the copy kernel, and what preparing a fused call costs.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use gpu_xor::{
    Bindings, Context, DataType, DmlBinary, DmlBinaryDesc, DmlBinaryOp, DmlUnary, DmlUnaryDesc,
    DmlUnaryOp, Expr, ExprBindings, Fused, Operator, Prepared, TensorBinding, TensorDesc,
};

use super::format::{size_name, verdict};
use super::{Target, section_sizes};
use crate::Baselines;
use crate::buffers::{read, storage};
use crate::timing::{clock_line, gbps, iterations, paired, time};

/// The fused chain's target: one kernel at least 2.5 times as fast as its three operators.
const CHAIN_TARGET: f64 = 2.5;
/// The fused count's target over BIT_XOR then BIT_COUNT.
const COUNT_TARGET: f64 = 1.8;
/// The nibble unpack's target against the copy kernel's GB/s.
const UNPACK_TARGET: f64 = 0.9;
/// The most a fused call's preparation may take.
const PREPARE_TARGET: Duration = Duration::from_micros(10);

/// Per call: the prepared calls of one way of computing a result, recorded in order.
fn record_all(calls: &[Prepared], encoder: &mut wgpu::CommandEncoder, n: u64) {
    for _ in 0..n {
        for call in calls {
            call.record(encoder).expect("a prepared call records");
        }
    }
}

/// The time per computation of `fused` and of `unfused` (both prepared, interleaved rounds).
fn compare(
    ctx: &Context,
    fused: &[Prepared],
    unfused: &[Prepared],
    traffic: u64,
    rounds: usize,
) -> (Duration, Duration) {
    let n = iterations(traffic, 1 << 30);
    let (f, u) = paired(
        rounds,
        || time(ctx, n, &|e, n| record_all(fused, e, n)),
        || time(ctx, n, &|e, n| record_all(unfused, e, n)),
    );
    (Duration::from_secs_f64(f), Duration::from_secs_f64(u))
}

fn binding(buffer: &wgpu::Buffer) -> TensorBinding<'_> {
    TensorBinding::new(buffer)
}

/// Runs the section on `ctx`; returns its text and targets.
pub(crate) fn fused_section(ctx: &Context, quick: bool) -> (String, Vec<Target>) {
    let bytes = section_sizes(ctx, quick, &[if quick { 16 << 20 } else { 64 << 20 }])[0];
    let rounds = if quick { 3 } else { 5 };
    let mut text = format!(
        "Expressions of several operators as one generated kernel (`Fused`) against the same operators one by one through intermediate tensors (each a prepared call), {} per input, timed in interleaved rounds (median kept). `one by one / fused` is the operators' time over the fused kernel's.\n\n| expression | type | fused GB/s | fused | one by one | one by one / fused | target |\n|---|---|---:|---:|---:|---:|---|\n",
        size_name(bytes)
    );
    let mut targets = Vec::new();

    // (a ^ b) & (a | b) on u32: three reads and writes of the size against nine.
    {
        let n = (bytes / 4) as u32;
        let t = TensorDesc::new(DataType::U32, &[n]);
        let mut e = Expr::new();
        let (a, b) = (e.input(t.clone()), e.input(t.clone()));
        let x = e.apply(Operator::BitXor, &[a, b]);
        let o = e.apply(Operator::BitOr, &[a, b]);
        let r = e.apply(Operator::BitAnd, &[x, o]);
        let fused = Fused::new(ctx, &e.output(r, t.clone())).expect("the chain");
        let [ab, bb, out, t1, t2] = [1, 2, 3, 4, 5].map(|s| storage(ctx, bytes, s));
        let call = ExprBindings::new(&[binding(&ab), binding(&bb)], binding(&out));
        let fused_call = fused.prepare(&call).expect("prepared");
        let op = |f| {
            DmlBinary::new(ctx, &DmlBinaryDesc::packed(f, DataType::U32, &[n])).expect("operator")
        };
        let (xor, or, and) = (
            op(DmlBinaryOp::BitXor),
            op(DmlBinaryOp::BitOr),
            op(DmlBinaryOp::BitAnd),
        );
        let one_by_one = [
            xor.prepare(&Bindings::new(binding(&ab), binding(&bb), binding(&t1))),
            or.prepare(&Bindings::new(binding(&ab), binding(&bb), binding(&t2))),
            and.prepare(&Bindings::new(binding(&t1), binding(&t2), binding(&out))),
        ]
        .map(|p| p.expect("prepared"));
        // Both ways give the same bytes.
        record_once(ctx, &one_by_one);
        let want = read(ctx, &out, 0, bytes);
        record_once(ctx, std::slice::from_ref(&fused_call));
        assert_eq!(read(ctx, &out, 0, bytes), want, "fused chain differs");
        let (f, u) = compare(ctx, &[fused_call], &one_by_one, 3 * bytes, rounds);
        row(
            &mut text,
            &mut targets,
            "(a ^ b) & (a | b)",
            "u32",
            3 * bytes,
            (f, u),
            CHAIN_TARGET,
        );
    }

    // a ^ b alone: the generated kernel against the operator's own, the same traffic.
    {
        let n = (bytes / 4) as u32;
        let t = TensorDesc::new(DataType::U32, &[n]);
        let mut e = Expr::new();
        let (a, b) = (e.input(t.clone()), e.input(t.clone()));
        let x = e.apply(Operator::BitXor, &[a, b]);
        let fused = Fused::new(ctx, &e.output(x, t)).expect("xor");
        let [ab, bb, out] = [12, 13, 14].map(|s| storage(ctx, bytes, s));
        let fused_call = fused
            .prepare(&ExprBindings::new(
                &[binding(&ab), binding(&bb)],
                binding(&out),
            ))
            .expect("prepared");
        let xor = DmlBinary::new(
            ctx,
            &DmlBinaryDesc::packed(DmlBinaryOp::BitXor, DataType::U32, &[n]),
        )
        .expect("xor");
        let op_call = xor
            .prepare(&Bindings::new(binding(&ab), binding(&bb), binding(&out)))
            .expect("prepared");
        let (f, u) = compare(ctx, &[fused_call], &[op_call], 3 * bytes, rounds);
        let ratio = u.as_secs_f64() / f.as_secs_f64();
        let _ = writeln!(
            text,
            "| `a ^ b` (one operator: the generated kernel against BIT_XOR's own) | u32 | {:.2} | {:.0} µs | {:.0} µs | {ratio:.2} | - |",
            gbps(3 * bytes, f),
            f.as_secs_f64() * 1e6,
            u.as_secs_f64() * 1e6
        );
    }

    // bit_count(a ^ b) from u64 into u8: 17 bytes an element against 33.
    {
        let n = (bytes / 8) as u32;
        let t = TensorDesc::new(DataType::U64, &[n]);
        let counts = TensorDesc::new(DataType::U8, &[n]);
        let mut e = Expr::new();
        let (a, b) = (e.input(t.clone()), e.input(t.clone()));
        let x = e.apply(Operator::BitXor, &[a, b]);
        let c = e.bit_count(x, DataType::U8);
        let fused = Fused::new(ctx, &e.output(c, counts.clone())).expect("the count");
        let [ab, bb, t1] = [6, 7, 8].map(|s| storage(ctx, bytes, s));
        let out = storage(ctx, u64::from(n), 9);
        let fused_call = fused
            .prepare(&ExprBindings::new(
                &[binding(&ab), binding(&bb)],
                binding(&out),
            ))
            .expect("prepared");
        let xor = DmlBinary::new(
            ctx,
            &DmlBinaryDesc::packed(DmlBinaryOp::BitXor, DataType::U64, &[n]),
        )
        .expect("xor");
        let count =
            DmlUnary::new(ctx, &DmlUnaryDesc::new(DmlUnaryOp::BitCount, t, counts)).expect("count");
        let one_by_one = [
            xor.prepare(&Bindings::new(binding(&ab), binding(&bb), binding(&t1))),
            count.prepare(&Bindings::unary(binding(&t1), binding(&out))),
        ]
        .map(|p| p.expect("prepared"));
        record_once(ctx, &one_by_one);
        let want = read(ctx, &out, 0, u64::from(n).div_ceil(4) * 4);
        record_once(ctx, std::slice::from_ref(&fused_call));
        assert_eq!(
            read(ctx, &out, 0, u64::from(n).div_ceil(4) * 4),
            want,
            "fused count differs"
        );
        let traffic = 2 * bytes + u64::from(n);
        let (f, u) = compare(ctx, &[fused_call], &one_by_one, traffic, rounds);
        row(
            &mut text,
            &mut targets,
            "bit_count(a ^ b)",
            "u64 -> u8",
            traffic,
            (f, u),
            COUNT_TARGET,
        );
    }
    let _ = writeln!(text);

    // (w >> 4) & 0xF against the copy kernel: a read and a write of the size each.
    {
        let n = bytes as u32;
        let t = TensorDesc::new(DataType::U8, &[n]);
        let mut e = Expr::new();
        let w = e.input(t.clone());
        let four = e.constant(DataType::U8, 4);
        let mask = e.constant(DataType::U8, 0xF);
        let high = e.apply(Operator::BitShiftRight, &[w, four]);
        let nibble = e.apply(Operator::BitAnd, &[high, mask]);
        let fused = Fused::new(ctx, &e.output(nibble, t)).expect("the unpack");
        let [wb, out] = [10, 11].map(|s| storage(ctx, bytes, s));
        let call = fused
            .prepare(&ExprBindings::new(&[binding(&wb)], binding(&out)))
            .expect("prepared");
        let baselines = Baselines::new(ctx, bytes);
        let iters = iterations(2 * bytes, 1 << 30);
        let (f, c) = paired(
            rounds,
            || {
                time(ctx, iters, &|e, n| {
                    record_all(std::slice::from_ref(&call), e, n)
                })
            },
            || time(ctx, iters, &|e, n| baselines.record_copy_kernel(e, n)),
        );
        let (f, c) = (
            gbps(2 * bytes, Duration::from_secs_f64(f)),
            gbps(2 * bytes, Duration::from_secs_f64(c)),
        );
        let ratio = f / c;
        let met = ratio >= UNPACK_TARGET;
        let _ = writeln!(
            text,
            "The high nibbles of int4 pairs, `(w >> 4) & 0xF` on u8, {}: {f:.2} GB/s fused, {c:.2} GB/s for the `vec4<u32>` copy kernel over the same bytes, {ratio:.2} of the copy (target at least {UNPACK_TARGET}: {}).\n",
            size_name(bytes),
            verdict(met)
        );
        targets.push((
            format!("int4 unpack at the copy kernel's speed (>= {UNPACK_TARGET} of its GB/s)"),
            format!("{ratio:.2}"),
            met,
        ));

        // Preparing one call: checks, lowering, its metadata and bind group (the pipeline
        // compiled already), the median of many.
        let mut times: Vec<f64> = (0..if quick { 200 } else { 1000 })
            .map(|_| {
                let start = Instant::now();
                let p = fused
                    .prepare(&ExprBindings::new(&[binding(&wb)], binding(&out)))
                    .expect("prepared");
                let took = start.elapsed();
                drop(p);
                took.as_secs_f64()
            })
            .collect();
        times.sort_by(f64::total_cmp);
        let median = Duration::from_secs_f64(times[times.len() / 2]);
        let met = median <= PREPARE_TARGET;
        let _ = writeln!(
            text,
            "Preparing one fused call (`Fused::prepare`: bindings checked, lowered, its records and bind group made; the pipeline compiled already): median {:.1} µs of {} (target at most {} µs: {}).\n",
            median.as_secs_f64() * 1e6,
            times.len(),
            PREPARE_TARGET.as_micros(),
            verdict(met)
        );
        targets.push((
            format!("fused prepare <= {} µs", PREPARE_TARGET.as_micros()),
            format!("{:.1} µs", median.as_secs_f64() * 1e6),
            met,
        ));
    }
    let _ = writeln!(text, "{}", clock_line());
    println!("{text}");
    (text, targets)
}

/// Records `calls` once, submits and waits.
fn record_once(ctx: &Context, calls: &[Prepared]) {
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    record_all(calls, &mut encoder, 1);
    ctx.queue().submit([encoder.finish()]);
    ctx.device()
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("poll");
}

/// One row of the fused table and its target.
fn row(
    text: &mut String,
    targets: &mut Vec<Target>,
    expression: &str,
    types: &str,
    traffic: u64,
    (fused, unfused): (Duration, Duration),
    target: f64,
) {
    let ratio = unfused.as_secs_f64() / fused.as_secs_f64();
    let met = ratio >= target;
    let us = |d: Duration| format!("{:.0} µs", d.as_secs_f64() * 1e6);
    let _ = writeln!(
        text,
        "| `{}` | {types} | {:.2} | {} | {} | {ratio:.2} | >= {target}: {} |",
        expression.replace('|', "\\|"),
        gbps(traffic, fused),
        us(fused),
        us(unfused),
        verdict(met)
    );
    targets.push((
        format!("fused {expression} {types}: one by one / fused >= {target}"),
        format!("{ratio:.2}"),
        met,
    ));
}
