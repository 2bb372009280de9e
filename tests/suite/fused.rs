//! Fused expressions: random expressions of every operator and type of the table on random
//! layouts (broadcast inputs, strided and permuted operands, shared buffers, inputs in place,
//! windows past one binding), each checked byte for byte against the CPU reference of its
//! nodes one by one; the expressions users write (int4 unpack, Hamming distance, a masked
//! blend); owned inputs, batches, graphs and the binding errors.

use crate::common::{buffer, ctx, small_windows, tuned, webgpu_rules};
use gpu_xor::KernelTuning;
use gpu_xor::inspect::KernelKind;
use gpu_xor::reference;
use gpu_xor::{
    Affine, Context, DataType, Error, Expr, ExprBindings, ExprDesc, Fused, Graph, Input, Operator,
    ReduceOp, TensorBinding, TensorDesc, TensorFlags, TensorName,
};
use gpu_xor_testkit::seeds::Seeded;
use gpu_xor_testkit::{OperatorExt, SplitMix64, packed_strides, random_bytes};

fn below(rng: &mut SplitMix64, n: u64) -> u64 {
    rng.next_u64() % n
}

/// A drawn expression and where its operands live.
#[derive(Debug)]
struct Case {
    desc: ExprDesc,
    /// Per operand (the output, then each input): buffer index and byte offset.
    places: Vec<(usize, u64)>,
    /// Inputs read in place (bound to exactly the output's range).
    in_place: Vec<usize>,
}

/// Strides for `sizes`: packed, padded, or a permutation of the dimensions with padding.
fn strides(rng: &mut SplitMix64, sizes: &[u32]) -> Option<Vec<u32>> {
    match below(rng, 3) {
        0 => None,
        1 => {
            // Padded rows.
            let mut s = packed_strides(sizes);
            let pad = 1 + below(rng, 3);
            let mut acc = 1u64;
            for d in (0..sizes.len()).rev() {
                s[d] = acc;
                acc *= u64::from(sizes[d]) + if d + 1 == sizes.len() { pad } else { 0 };
            }
            Some(s.iter().map(|&x| x as u32).collect())
        }
        _ => {
            // A permutation of the dimensions' order in memory.
            let mut order: Vec<usize> = (0..sizes.len()).collect();
            for i in (1..order.len()).rev() {
                order.swap(i, below(rng, i as u64 + 1) as usize);
            }
            let mut s = vec![0u32; sizes.len()];
            let mut acc = 1u32;
            for &d in order.iter().rev() {
                s[d] = acc;
                acc *= sizes[d];
            }
            Some(s)
        }
    }
}

fn tensor(data_type: DataType, sizes: &[u32], strides: Option<Vec<u32>>) -> TensorDesc {
    let t = TensorDesc::new(data_type, sizes);
    match strides {
        Some(s) => t.with_strides(&s),
        None => t,
    }
}

/// Whether `op` may be drawn on operands of `data_type`: it takes them at the context's
/// level, or it is a count of ones (whose output has types of its own; a drawn expression
/// that breaks a rule is drawn again).
fn takes(op: Operator, data_type: DataType, ctx: &Context) -> bool {
    op.takes_at(data_type, ctx.feature_level()) || op.spec().types.output_types().is_some()
}

/// Draws an expression: up to four inputs of one type, up to five operator nodes (each an
/// operator of the table that takes its operands' type, a count of ones changing the type),
/// constants as second operands, the output of the last node's type.
fn draw(rng: &mut SplitMix64, ctx: &Context) -> Option<Case> {
    let types: Vec<DataType> = DataType::ALL
        .into_iter()
        .filter(|&t| Operator::ALL.iter().any(|op| takes(*op, t, ctx)))
        .collect();
    let data_type = types[below(rng, types.len() as u64) as usize];
    let rank = 1 + below(rng, 4) as usize;
    let mut sizes: Vec<u32> = (0..rank).map(|_| 1 + below(rng, 5) as u32).collect();
    if below(rng, 2) == 0 {
        // A long last dimension: blocks, tails and windows.
        sizes[rank - 1] = 1 + below(rng, 700) as u32;
    }
    let inputs = 1 + below(rng, 4) as usize;
    let mut e = Expr::new();
    let mut nodes = Vec::new();
    let mut input_descs = Vec::new();
    for _ in 0..inputs {
        let t = match below(rng, 3) {
            // Broadcast: some dimensions 1, or a suffix of the output's shape.
            0 => {
                let keep = below(rng, rank as u64 + 1) as usize;
                let own: Vec<u32> = sizes[rank - keep.max(1)..]
                    .iter()
                    .map(|&s| if below(rng, 3) == 0 { 1 } else { s })
                    .collect();
                let st = strides(rng, &own);
                tensor(data_type, &own, st)
            }
            _ => {
                let st = strides(rng, &sizes);
                tensor(data_type, &sizes, st)
            }
        };
        input_descs.push(t.clone());
        nodes.push((e.input(t), data_type));
    }
    let (result, out_type) = grow(rng, ctx, &mut e, nodes)?;
    // A third of the expressions reduce their trailing axes.
    let (desc, output) = if below(rng, 3) == 0 {
        reduced(rng, e, result, out_type, &input_descs)?
    } else {
        let out_strides = strides(rng, &sizes);
        let output = tensor(out_type, &sizes, out_strides);
        (e.output(result, output.clone()), output)
    };
    place(rng, ctx, desc, output, &input_descs)
}

/// Draws 1 to 5 operator nodes after `nodes` (each an operator of the table that takes its
/// operands' type, a count of ones changing the type), constants as second operands;
/// returns the last node and its type.
fn grow(
    rng: &mut SplitMix64,
    ctx: &Context,
    e: &mut Expr,
    mut nodes: Vec<(gpu_xor::desc::Node, DataType)>,
) -> Option<(gpu_xor::desc::Node, DataType)> {
    let ops = 1 + below(rng, 5);
    for _ in 0..ops {
        let (a, t) = nodes[below(rng, nodes.len() as u64) as usize];
        let choices: Vec<Operator> = Operator::ALL
            .into_iter()
            .filter(|&op| takes(op, t, ctx))
            .collect();
        if choices.is_empty() {
            continue;
        }
        let op = choices[below(rng, choices.len() as u64) as usize];
        let node = if op.inputs() == 1 {
            match op.spec().types.output_types() {
                Some(outs) => {
                    let out = outs[below(rng, outs.len() as u64) as usize];
                    (e.bit_count(a, out), out)
                }
                None => (e.apply(op, &[a]), t),
            }
        } else {
            let same: Vec<_> = nodes.iter().filter(|n| n.1 == t).map(|n| n.0).collect();
            let b = if below(rng, 4) == 0 {
                let bits = t.size_in_bytes() * 8;
                let value = if op.shifts() {
                    below(rng, u64::from(bits) + 3)
                } else {
                    rng.next_u64()
                };
                let value = if bits < 64 {
                    value & ((1u64 << bits) - 1)
                } else {
                    value
                };
                e.constant(t, value)
            } else {
                same[below(rng, same.len() as u64) as usize]
            };
            (e.apply(op, &[a, b]), t)
        };
        nodes.push(node);
    }
    nodes.last().copied()
}

/// Draws a contraction: an expression of rows of one input (`[.., M, 1, K]`) against rows of
/// another (`[.., 1, N, K]`), other inputs along either or along `K` alone, 8 to 80 rows a
/// side (partial tiles), reduced over `K` into `[.., M, N]` (or with `K` kept as 1), every
/// operand packed, padded or permuted.
fn contraction(rng: &mut SplitMix64, ctx: &Context) -> Option<Case> {
    let types: Vec<DataType> = DataType::ALL
        .into_iter()
        .filter(|&t| Operator::ALL.iter().any(|op| takes(*op, t, ctx)))
        .collect();
    let data_type = types[below(rng, types.len() as u64) as usize];
    let (m, n, k) = (
        8 + below(rng, 73) as u32,
        8 + below(rng, 73) as u32,
        1 + below(rng, 21) as u32,
    );
    let batch: Vec<u32> = if below(rng, 2) == 0 {
        vec![1 + below(rng, 3) as u32]
    } else {
        Vec::new()
    };
    let mut e = Expr::new();
    let mut nodes = Vec::new();
    let mut input_descs = Vec::new();
    let inputs = 2 + below(rng, 3) as usize;
    for i in 0..inputs {
        let side = if i < 2 { i } else { below(rng, 3) as usize };
        let mut sizes = batch.clone();
        sizes.extend(match side {
            0 => [m, 1, k],
            1 => [1, n, k],
            _ => [1, 1, k],
        });
        let st = strides(rng, &sizes);
        let t = tensor(data_type, &sizes, st);
        input_descs.push(t.clone());
        nodes.push((e.input(t), data_type));
    }
    let (result, result_type) = grow(rng, ctx, &mut e, nodes)?;
    let op = ReduceOp::ALL[below(rng, ReduceOp::ALL.len() as u64) as usize];
    let out_type = reduced_type(rng, op, result_type)?;
    let mut out_sizes = batch;
    out_sizes.extend([m, n]);
    if below(rng, 2) == 0 {
        out_sizes.push(1);
    }
    let rank = input_descs[0].rank();
    // Half the sums into 32 bits go through an affine map, into INT32 at times.
    let affine = (out_type == DataType::U32 && below(rng, 2) == 0).then(|| Affine {
        scale: rng.next_u64() as i32 >> below(rng, 32),
        offset: rng.next_u64() as i32,
    });
    let out_type = if affine.is_some() && below(rng, 2) == 0 {
        DataType::I32
    } else {
        out_type
    };
    let out_strides = strides(rng, &out_sizes);
    let output = tensor(out_type, &out_sizes, out_strides);
    let desc = match affine {
        Some(affine) => e.sum_affine(result, &[rank - 1], affine, output.clone()),
        None => e.reduce(result, op, &[rank - 1], output.clone()),
    };
    place(rng, ctx, desc, output, &input_descs)
}

/// Where the operands of `desc` live: the output and the inputs in one buffer, or each in
/// its own; an input of the output's layout read in place at times.
fn place(
    rng: &mut SplitMix64,
    ctx: &Context,
    desc: ExprDesc,
    output: TensorDesc,
    input_descs: &[TensorDesc],
) -> Option<Case> {
    desc.operands(ctx.feature_level()).ok()?;
    // Places: the output and the inputs in one buffer, or each in its own.
    let one_buffer = below(rng, 3) == 0;
    let mut ends: Vec<u64> = Vec::new();
    let mut places = Vec::new();
    let mut in_place = Vec::new();
    let all: Vec<&TensorDesc> = std::iter::once(&output).chain(input_descs).collect();
    // An input read in place lines up with the output: a reduced output keeps its reduced
    // axes (as 1) for it, or an input of its sizes would be read along other axes.
    let space_rank = input_descs.iter().map(TensorDesc::rank).max()?;
    let lines_up = desc.reduce.is_none() || output.rank() == space_rank;
    for (o, t) in all.iter().enumerate() {
        if o > 0 && **t == output && lines_up && below(rng, 3) == 0 {
            in_place.push(o - 1);
            places.push(places[0]);
            continue;
        }
        let index = if one_buffer { 0 } else { o };
        while ends.len() <= index {
            ends.push(0);
        }
        let offset = ends[index].div_ceil(16) * 16 + 16 * below(rng, 4);
        ends[index] = offset + t.total_size().ok()?;
        places.push((index, offset));
    }
    Some(Case {
        desc,
        places,
        in_place,
    })
}

/// `result` reduced by a drawn reduction over 1 to 3 trailing axes of the inputs' space
/// (all of them at times) into an output without those axes or with them of size 1, laid
/// out packed, padded or permuted; a sum into `UINT32` or `UINT64`. `None` where the result
/// cannot be summed (a float) and a sum was drawn.
fn reduced(
    rng: &mut SplitMix64,
    e: Expr,
    result: gpu_xor::desc::Node,
    result_type: DataType,
    inputs: &[TensorDesc],
) -> Option<(ExprDesc, TensorDesc)> {
    let rank = inputs.iter().map(TensorDesc::rank).max()?;
    let mut space = vec![1u32; rank];
    for t in inputs {
        for (s, &n) in space[rank - t.rank()..].iter_mut().zip(&t.sizes) {
            *s = (*s).max(n);
        }
    }
    let k = 1 + below(rng, rank.min(3) as u64) as usize;
    let axes: Vec<usize> = (rank - k..rank).collect();
    let op = ReduceOp::ALL[below(rng, ReduceOp::ALL.len() as u64) as usize];
    let out_type = reduced_type(rng, op, result_type)?;
    let mut out_sizes = space[..rank - k].to_vec();
    if out_sizes.is_empty() || below(rng, 2) == 0 {
        out_sizes.extend(std::iter::repeat_n(1, k));
    }
    let out_strides = strides(rng, &out_sizes);
    let output = tensor(out_type, &out_sizes, out_strides);
    Some((e.reduce(result, op, &axes, output.clone()), output))
}

/// The output type of `op` over results of `result_type`: a sum into `UINT32` or `UINT64`
/// (`None` for a float), the others the result's type.
fn reduced_type(rng: &mut SplitMix64, op: ReduceOp, result_type: DataType) -> Option<DataType> {
    Some(match op {
        ReduceOp::Sum if result_type.is_float() => return None,
        ReduceOp::Sum if result_type.size_in_bytes() == 8 || below(rng, 2) == 0 => DataType::U64,
        ReduceOp::Sum => DataType::U32,
        _ => result_type,
    })
}

/// Runs `case` on `ctx` and compares every byte of every buffer with the reference; returns
/// the kernels that ran, or `None` where the call was refused because one output's reduced
/// elements do not fit a window.
fn check(ctx: &Context, case: &Case, seed: u64) -> Option<Vec<KernelKind>> {
    let fused = Fused::new(ctx, &case.desc).unwrap_or_else(|e| panic!("{case:?}: {e}"));
    let buffers_needed = case.places.iter().map(|p| p.0).max().unwrap_or(0) + 1;
    let mut sizes = vec![0u64; buffers_needed];
    let all: Vec<&TensorDesc> = std::iter::once(&case.desc.output)
        .chain(&case.desc.inputs)
        .collect();
    for (t, &(b, offset)) in all.iter().zip(&case.places) {
        sizes[b] = sizes[b].max(offset + t.total_size().unwrap() + 32);
    }
    let images: Vec<Vec<u8>> = sizes
        .iter()
        .enumerate()
        .map(|(k, &n)| random_bytes(seed ^ k as u64, n.div_ceil(4) as usize * 4))
        .collect();
    let buffers: Vec<wgpu::Buffer> = images.iter().map(|i| buffer(ctx, i)).collect();
    let binding = |o: usize| {
        let (b, offset) = case.places[o];
        TensorBinding::range(&buffers[b], offset, all[o].total_size().unwrap())
    };
    let inputs: Vec<TensorBinding> = (1..all.len()).map(binding).collect();
    let summary = match fused.run(&ExprBindings::new(&inputs, binding(0))) {
        Ok(summary) => summary,
        // One output's reduced elements past a window (4 KiB windows here): refused, and
        // nothing written.
        Err(Error::ReducePastWindow { bytes, window }) => {
            // A window starts on the device's offset alignment, and ends on 16 bytes.
            let slack = u64::from(ctx.device().limits().min_storage_buffer_offset_alignment) + 16;
            assert!(
                bytes + slack > window,
                "{case:?}: refused at {bytes} of {window} bytes"
            );
            let got = gpu_xor_testkit::engine::read_back_blocking(ctx, &buffers).unwrap();
            assert!(got == images, "{case:?}: a refused call wrote");
            return None;
        }
        Err(e) => panic!("{case:?}: {e}"),
    };
    assert!(!summary.dispatches.is_empty() || fused.plan().element_count() == 0);
    let got = gpu_xor_testkit::engine::read_back_blocking(ctx, &buffers).unwrap();

    let mut want = images.clone();
    let input_bytes: Vec<Vec<u8>> = (1..all.len())
        .map(|o| {
            let (b, offset) = case.places[o];
            images[b][offset as usize..].to_vec()
        })
        .collect();
    let refs: Vec<&[u8]> = input_bytes.iter().map(|v| v.as_slice()).collect();
    let (b, offset) = case.places[0];
    reference::expression(
        &case.desc,
        ctx.feature_level(),
        &refs,
        &mut want[b][offset as usize..],
    )
    .unwrap_or_else(|e| panic!("{case:?}: {e}"));
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        if g != w {
            let at = g.iter().zip(w).position(|(x, y)| x != y).unwrap();
            panic!(
                "{case:?}\nkernel {:?}: buffer {k} differs first at byte {at}: got {:#04x}, want {:#04x}",
                fused.plan().kernel(),
                g[at],
                w[at]
            );
        }
    }
    Some(summary.dispatches)
}

/// Random expressions, each on the suite's context, under the other adapter class's kernel
/// rule, on 4 KiB windows (pieces past one binding) or under WebGPU's binding rules, byte
/// for byte against the reference.
#[test]
fn random_expressions_match_the_reference_of_their_nodes() {
    let draws = Seeded::new(0x5eed_f05e, 160);
    eprintln!("random expressions: {}", draws.describe());
    let mut rng = SplitMix64::new(draws.seed);
    let mut run = 0;
    // Calls of the block form, the element form and reductions; reductions tiled.
    let mut forms = [0usize; 3];
    let mut tiled = 0;
    let mut in_place = 0;
    let mut refused = 0;
    while run < draws.cases {
        // The suite's context, the other adapter class's rule (contractions tiled by the
        // other form), 4 KiB windows, WebGPU's binding rules.
        let other = match ctx().kernel_tuning() {
            KernelTuning::Cpu => KernelTuning::Gpu,
            _ => KernelTuning::Cpu,
        };
        let ctx = match run % 4 {
            0 => ctx().clone(),
            1 => tuned(other).clone(),
            2 => small_windows().clone(),
            _ => webgpu_rules(ctx()),
        };
        // One draw in six a contraction.
        let drawn = if below(&mut rng, 6) == 0 {
            contraction(&mut rng, &ctx)
        } else {
            draw(&mut rng, &ctx)
        };
        let Some(case) = drawn else {
            continue;
        };
        let seed = rng.next_u64();
        let kernel = Fused::new(&ctx, &case.desc).unwrap().plan().kernel();
        forms[match kernel {
            KernelKind::FusedBlocks => 0,
            KernelKind::FusedElements => 1,
            _ => 2,
        }] += 1;
        in_place += usize::from(!case.in_place.is_empty());
        match check(&ctx, &case, seed) {
            Some(kernels) => {
                tiled += usize::from(kernels.contains(&KernelKind::FusedTiled));
            }
            None => refused += 1,
        }
        run += 1;
    }
    eprintln!("forms {forms:?}, {tiled} tiled, {refused} reductions refused past a 4 KiB window");
    // Every form and calls in place were drawn (each form about a third of the draws, calls
    // in place about a tenth).
    let least = |share: u64| usize::try_from(draws.cases / share).unwrap_or(usize::MAX);
    // Contractions ran tiled (a sixth of the draws, most of them tiled).
    assert!(tiled >= least(24), "{tiled} tiled");
    assert!(forms.iter().all(|&n| n >= least(16)), "{forms:?}");
    // Most reductions ran, windows past their reduced elements or not.
    assert!(
        forms[2] - refused >= least(32),
        "{forms:?}, {refused} refused"
    );
    assert!(in_place >= least(40), "{in_place} in place");
}

fn run_on(
    ctx: &Context,
    desc: &ExprDesc,
    inputs: &[Vec<u8>],
    output_len: usize,
) -> (Vec<u8>, Vec<u8>) {
    let fused = Fused::new(ctx, desc).unwrap();
    let bufs: Vec<wgpu::Buffer> = inputs.iter().map(|i| buffer(ctx, i)).collect();
    let initial = random_bytes(7, output_len);
    let out = buffer(ctx, &initial);
    let bindings: Vec<TensorBinding> = bufs.iter().map(TensorBinding::new).collect();
    fused
        .run(&ExprBindings::new(&bindings, TensorBinding::new(&out)))
        .unwrap();
    let got = ctx.read_buffer(&out, 0, output_len as u64).unwrap();
    let mut want = initial;
    let refs: Vec<&[u8]> = inputs.iter().map(|v| v.as_slice()).collect();
    reference::expression(desc, ctx.feature_level(), &refs, &mut want).unwrap();
    (got, want)
}

/// The high nibbles of int4 pairs, `(w >> 4) & 0xF`: one kernel, checked element by element
/// against the arithmetic, not only the reference.
#[test]
fn int4_unpack() {
    let n = 4096u32;
    let mut e = Expr::new();
    let w = e.input(TensorDesc::new(DataType::U8, &[n]));
    let four = e.constant(DataType::U8, 4);
    let mask = e.constant(DataType::U8, 0xF);
    let high = e.apply(Operator::BitShiftRight, &[w, four]);
    let nibble = e.apply(Operator::BitAnd, &[high, mask]);
    let desc = e.output(nibble, TensorDesc::new(DataType::U8, &[n]));
    let weights = random_bytes(3, n as usize);
    let (got, want) = run_on(ctx(), &desc, std::slice::from_ref(&weights), n as usize);
    assert_eq!(got, want);
    for (g, w) in got.iter().zip(&weights) {
        assert_eq!(*g, w >> 4);
    }
}

/// The Hamming distance of 64-bit words, `bit_count(a ^ b)` into bytes.
#[test]
fn hamming_distance() {
    let n = 3000u32;
    let mut e = Expr::new();
    let a = e.input(TensorDesc::new(DataType::U64, &[n]));
    let b = e.input(TensorDesc::new(DataType::U64, &[n]));
    let x = e.apply(Operator::BitXor, &[a, b]);
    let d = e.bit_count(x, DataType::U8);
    let desc = e.output(d, TensorDesc::new(DataType::U8, &[n]));
    let (ab, bb) = (
        random_bytes(1, 8 * n as usize),
        random_bytes(2, 8 * n as usize),
    );
    let (got, want) = run_on(ctx(), &desc, &[ab.clone(), bb.clone()], n as usize);
    assert_eq!(got, want);
    for i in 0..n as usize {
        let x = u64::from_le_bytes(ab[8 * i..8 * i + 8].try_into().unwrap())
            ^ u64::from_le_bytes(bb[8 * i..8 * i + 8].try_into().unwrap());
        assert_eq!(u32::from(got[i]), x.count_ones());
    }
}

/// A masked blend, `(a & m) | (b & ~m)`, with the mask a row broadcast down a matrix.
#[test]
fn masked_blend_with_a_broadcast_mask() {
    let (rows, cols) = (33u32, 66u32);
    let t = TensorDesc::new(DataType::U16, &[rows, cols]);
    let mut e = Expr::new();
    let a = e.input(t.clone());
    let b = e.input(t.clone());
    let m = e.input(TensorDesc::new(DataType::U16, &[cols]));
    let am = e.apply(Operator::BitAnd, &[a, m]);
    let not_m = e.apply(Operator::BitNot, &[m]);
    let bm = e.apply(Operator::BitAnd, &[b, not_m]);
    let r = e.apply(Operator::BitOr, &[am, bm]);
    let desc = e.output(r, t);
    let len = (2 * rows * cols) as usize;
    let inputs = [
        random_bytes(4, len),
        random_bytes(5, len),
        random_bytes(6, 2 * cols as usize),
    ];
    let (got, want) = run_on(ctx(), &desc, &inputs, len);
    assert_eq!(got, want);
    let word = |v: &[u8], i: usize| u16::from_le_bytes([v[2 * i], v[2 * i + 1]]);
    for i in 0..(rows * cols) as usize {
        let m = word(&inputs[2], i % cols as usize);
        let expected = (word(&inputs[0], i) & m) | (word(&inputs[1], i) & !m);
        assert_eq!(word(&got, i), expected, "element {i}");
    }
}

fn xor_of_two(data_type: DataType, n: u32) -> (Expr, ExprDesc) {
    let t = TensorDesc::new(data_type, &[n]);
    let mut e = Expr::new();
    let a = e.input(t.clone());
    let b = e.input(t.clone());
    let x = e.apply(Operator::BitXor, &[a, b]);
    let desc = e.clone().output(x, t);
    (e, desc)
}

/// An input flagged owned is copied when the operator is made: later calls read the bytes as
/// they were, and give the input as owned.
#[test]
fn owned_inputs_are_copied_once() {
    let ctx = ctx();
    let n = 256u32;
    let (_, mut desc) = xor_of_two(DataType::U32, n);
    desc.inputs[1].flags = TensorFlags::OwnedByDml;
    let len = 4 * n as usize;
    let (a, w) = (random_bytes(8, len), random_bytes(9, len));
    let weights = buffer(ctx, &w);
    assert!(matches!(
        Fused::new(ctx, &desc),
        Err(Error::OwnedInputMissing {
            tensor: TensorName::Input(1)
        })
    ));
    let fused =
        Fused::with_owned_inputs(ctx, &desc, &[None, Some(TensorBinding::new(&weights))]).unwrap();
    // The caller's copy changes; the operator's does not.
    ctx.queue().write_buffer(&weights, 0, &vec![0u8; len]);
    let (ab, out) = (buffer(ctx, &a), buffer(ctx, &vec![0u8; len]));
    let call = ExprBindings::with_inputs(
        &[Input::Bound(TensorBinding::new(&ab)), Input::Owned],
        TensorBinding::new(&out),
    );
    fused.run(&call).unwrap();
    let got = ctx.read_buffer(&out, 0, len as u64).unwrap();
    let want: Vec<u8> = a.iter().zip(&w).map(|(x, y)| x ^ y).collect();
    assert_eq!(got, want);
    // Bound again where the operator owns it, or owned where it does not.
    let bound = ExprBindings::new(
        &[TensorBinding::new(&ab), TensorBinding::new(&weights)],
        TensorBinding::new(&out),
    );
    assert!(matches!(
        fused.run(&bound),
        Err(Error::OwnedInputBound {
            tensor: TensorName::Input(1)
        })
    ));
}

/// The bindings of a call are checked, with typed errors naming the input, and nothing runs.
#[test]
fn binding_errors_name_the_input() {
    let ctx = ctx();
    let n = 64u32;
    let (_, desc) = xor_of_two(DataType::U32, n);
    let fused = Fused::new(ctx, &desc).unwrap();
    let a = buffer(ctx, &[1u8; 256]);
    let out = buffer(ctx, &[0u8; 256]);
    let small = buffer(ctx, &[0u8; 64]);
    let one = ExprBindings::new(&[TensorBinding::new(&a)], TensorBinding::new(&out));
    assert_eq!(fused.run(&one).unwrap_err().rule(), "expr_count");
    let too_small = ExprBindings::new(
        &[TensorBinding::new(&a), TensorBinding::new(&small)],
        TensorBinding::new(&out),
    );
    let err = fused.run(&too_small).unwrap_err();
    assert!(err.to_string().contains("input 1"), "{err}");
    let misaligned = ExprBindings::new(
        &[TensorBinding::at(&a, 4), TensorBinding::new(&a)],
        TensorBinding::new(&out),
    );
    let err = fused.run(&misaligned).unwrap_err();
    assert!(err.to_string().contains("input 0"), "{err}");
    // Partly overlapping the output: refused, the output untouched.
    let overlapping = ExprBindings::new(
        &[TensorBinding::at(&out, 16), TensorBinding::new(&a)],
        TensorBinding::new(&out),
    );
    assert!(fused.run(&overlapping).is_err());
    let got = ctx.read_buffer(&out, 0, 256).unwrap();
    assert_eq!(got, vec![0u8; 256]);
}

/// Many calls of fused expressions in one batch, prepared once and recorded twice through a
/// graph with an operator's call: each call sees the one before it.
#[test]
fn batches_and_graphs_run_fused_calls_in_order() {
    let ctx = ctx();
    let n = 1024u32;
    let len = 4 * n as usize;
    let (_, desc) = xor_of_two(DataType::U32, n);
    let fused = Fused::new(ctx, &desc).unwrap();
    let (a, b) = (random_bytes(10, len), random_bytes(11, len));
    let (ab, bb) = (buffer(ctx, &a), buffer(ctx, &b));
    let out = buffer(ctx, &vec![0u8; len]);
    let mut batch = ctx.batch();
    // out = a ^ b; out = out ^ b (= a), in place; out = out ^ a (= 0).
    batch
        .push_fused(
            &fused,
            &ExprBindings::new(
                &[TensorBinding::new(&ab), TensorBinding::new(&bb)],
                TensorBinding::new(&out),
            ),
        )
        .unwrap();
    batch
        .push_fused(
            &fused,
            &ExprBindings::new(
                &[TensorBinding::new(&out), TensorBinding::new(&bb)],
                TensorBinding::new(&out),
            ),
        )
        .unwrap();
    let prepared = batch.prepare().unwrap();
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    prepared.record(&mut encoder).unwrap();
    ctx.queue().submit([encoder.finish()]);
    assert_eq!(ctx.read_buffer(&out, 0, len as u64).unwrap(), a);

    let last = fused
        .prepare(&ExprBindings::new(
            &[TensorBinding::new(&out), TensorBinding::new(&ab)],
            TensorBinding::new(&out),
        ))
        .unwrap();
    let graph = Graph::new(ctx, [&prepared, &last]).unwrap();
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    graph.record(&mut encoder).unwrap();
    ctx.queue().submit([encoder.finish()]);
    assert_eq!(
        ctx.read_buffer(&out, 0, len as u64).unwrap(),
        vec![0u8; len]
    );
}

/// Warming up compiles the expression's pipelines once; expressions differing only in their
/// constants share them.
#[test]
fn constants_do_not_make_new_pipelines() {
    let ctx = &crate::common::on_suite_device(&Default::default());
    let make = |c: u64| {
        let t = TensorDesc::new(DataType::U32, &[999]);
        let mut e = Expr::new();
        let a = e.input(t.clone());
        let k = e.constant(DataType::U32, c);
        let x = e.apply(Operator::BitXor, &[a, k]);
        Fused::new(ctx, &e.output(x, t)).unwrap()
    };
    let first = make(5).warm_up().unwrap();
    assert!(first >= 1);
    assert_eq!(make(0xdead_beef).warm_up().unwrap(), 0);
}

/// Runs `desc` node by node, each node the table's operator on tensors of the output's
/// shape (a constant a tensor filled with it): the chain a runtime would run without fusion.
/// Every input of `desc` has the output's shape, packed. Returns the result's bytes.
fn node_by_node(ctx: &Context, desc: &ExprDesc, inputs: &[Vec<u8>]) -> Result<Vec<u8>, Error> {
    use gpu_xor::desc::OperatorGroup;
    use gpu_xor::{AutoBroadcast, ExprNode, Tensor};
    let shape: Vec<usize> = desc.output.sizes.iter().map(|&s| s as usize).collect();
    let elements: usize = shape.iter().product();
    let mut values: Vec<Tensor> = Vec::new();
    let mut types: Vec<DataType> = Vec::new();
    for node in &desc.nodes {
        let (value, data_type) = match *node {
            ExprNode::Input(k) => {
                let t = desc.inputs[k].data_type;
                let bytes = &inputs[k][..elements * t.size_in_bytes() as usize];
                (Tensor::from_bytes(ctx, t, &shape, bytes)?, t)
            }
            ExprNode::Constant { bits, data_type } => {
                let width = data_type.size_in_bytes() as usize;
                let bytes: Vec<u8> = (0..elements)
                    .flat_map(|_| bits.to_le_bytes()[..width].to_vec())
                    .collect();
                (
                    Tensor::from_bytes(ctx, data_type, &shape, &bytes)?,
                    data_type,
                )
            }
            ExprNode::Apply { op, a, b, out_type } => {
                let t = types[a];
                let out_type = out_type.unwrap_or(t);
                let value = match op.group() {
                    OperatorGroup::DmlBinaryOp(o) => ctx.dml_binary(o, &values[a], &values[b])?,
                    OperatorGroup::DmlUnaryOp(o) => {
                        let out = Tensor::zeros(ctx, out_type, &shape)?;
                        ctx.dml_unary_into(o, &values[a], &out)?;
                        out
                    }
                    OperatorGroup::OvBinaryOp(o) => {
                        ctx.ov_binary(o, &values[a], &values[b], AutoBroadcast::Numpy)?
                    }
                    OperatorGroup::OvUnaryOp(o) => ctx.ov_unary(o, &values[a])?,
                    other => panic!("an operator group this test does not know: {other:?}"),
                };
                (value, out_type)
            }
            other => panic!("a node kind this test does not know: {other:?}"),
        };
        values.push(value);
        types.push(data_type);
    }
    values[desc.result].to_bytes()
}

/// Random expressions on packed operands of the output's shape, the fused call against the
/// same operators called one by one on the device, byte for byte (and both against the
/// reference).
#[test]
fn random_expressions_match_their_operators_called_one_by_one() {
    let ctx = ctx();
    let draws = Seeded::new(0x0b1b_10b1, 40);
    eprintln!("random expressions one by one: {}", draws.describe());
    let mut rng = SplitMix64::new(draws.seed);
    let mut run = 0;
    while run < draws.cases {
        let Some(case) = draw(&mut rng, ctx) else {
            continue;
        };
        let mut desc = case.desc;
        if desc.reduce.is_some() {
            // The operators one by one have no reduction.
            continue;
        }
        let sizes = desc.output.sizes.clone();
        for t in &mut desc.inputs {
            *t = TensorDesc::new(t.data_type, &sizes);
        }
        desc.output = TensorDesc::new(desc.output.data_type, &sizes);
        if Fused::new(ctx, &desc).is_err() {
            continue;
        }
        let inputs: Vec<Vec<u8>> = desc
            .inputs
            .iter()
            .enumerate()
            .map(|(k, t)| random_bytes(rng.next_u64() ^ k as u64, t.total_size().unwrap() as usize))
            .collect();
        let len = desc.output.total_size().unwrap() as usize;
        let (got, want) = run_on(ctx, &desc, &inputs, len);
        assert_eq!(got, want, "{desc:?}: fused against the reference");
        let elements: usize = sizes.iter().map(|&s| s as usize).product();
        let bytes = elements * desc.output.data_type.size_in_bytes() as usize;
        let chain = node_by_node(ctx, &desc, &inputs).unwrap_or_else(|e| panic!("{desc:?}: {e}"));
        assert_eq!(
            &got[..bytes],
            &chain[..],
            "{desc:?}: fused against the operators one by one"
        );
        run += 1;
    }
}
