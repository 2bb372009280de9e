//! The small layouts of every kind that the first two properties draw: each tensor packed,
//! padded, transposed, broadcast or sliding over shared sizes, in one of the binding patterns.

use super::*;

/// How one tensor is laid out over the shared sizes.
#[derive(Clone, Copy, Debug)]
pub(super) enum Layout {
    Packed,
    /// Each row padded by this many elements.
    Padded(u32),
    /// Dimensions in reverse order.
    Transposed,
    /// Zero stride on every dimension whose bit is set (inputs only).
    Broadcast(u8),
}

pub(super) fn strides(sizes: &[u32], layout: Layout) -> Option<Vec<u32>> {
    let rank = sizes.len();
    let mut s = vec![0u32; rank];
    match layout {
        Layout::Packed => return None,
        Layout::Padded(pad) => {
            let mut acc = 1;
            for d in (0..rank).rev() {
                s[d] = acc;
                acc = acc * sizes[d] + if d == rank - 1 { pad } else { 0 };
            }
        }
        Layout::Transposed => {
            let mut acc = 1;
            for d in 0..rank {
                s[d] = acc;
                acc *= sizes[d];
            }
        }
        Layout::Broadcast(mask) => {
            let mut acc = 1;
            for d in (0..rank).rev() {
                s[d] = if mask >> d & 1 == 1 { 0 } else { acc };
                acc *= sizes[d];
            }
        }
    }
    Some(s)
}

pub(super) fn layout(input: bool) -> BoxedStrategy<Layout> {
    let common = prop_oneof![
        Just(Layout::Packed),
        (1u32..4).prop_map(Layout::Padded),
        Just(Layout::Transposed),
    ];
    if input {
        prop_oneof![common, any::<u8>().prop_map(Layout::Broadcast)].boxed()
    } else {
        common.boxed()
    }
}

#[derive(Clone, Copy, Debug)]
pub(super) enum Pattern {
    Distinct,
    InPlaceA,
    InPlaceB,
    SameInputs,
    OneBufferDisjoint,
}

pub(super) fn desc(dt: DataType, sizes: &[u32], layout: Layout) -> TensorDesc {
    let t = TensorDesc::new(dt, sizes);
    match strides(sizes, layout) {
        Some(s) => t.with_strides(&s),
        None => t,
    }
}

pub(super) fn build(
    op: Operator,
    dt: DataType,
    sizes: &[u32],
    layouts: [Layout; 3],
    offsets: [u64; 3],
    pattern: Pattern,
    seed: u64,
) -> DmlCase {
    let mut a = desc(dt, sizes, layouts[0]);
    let mut b = desc(dt, sizes, layouts[1]);
    let out = desc(dt, sizes, layouts[2]);
    match pattern {
        Pattern::InPlaceA => a = out.clone(),
        Pattern::InPlaceB => b = out.clone(),
        Pattern::SameInputs => b = a.clone(),
        _ => {}
    }
    let mut case = DmlCase::distinct(op, a, b, out, seed);
    let span = |t: &TensorDesc| t.total_size().unwrap();
    match pattern {
        Pattern::Distinct => {
            for (i, b) in case.buffers.iter_mut().enumerate() {
                b.resize(offsets[i] as usize + b.len(), 0x77);
            }
            case.places = [
                place(0, offsets[0]),
                place(1, offsets[1]),
                place(2, offsets[2]),
            ];
        }
        Pattern::InPlaceA => case.places[2] = case.places[0],
        Pattern::InPlaceB => case.places[2] = case.places[1],
        Pattern::SameInputs => case.places[1] = case.places[0],
        Pattern::OneBufferDisjoint => {
            let (sa, sb, so) = (span(&case.a), span(&case.b), span(&case.out));
            let up = |x: u64| x.div_ceil(16) * 16;
            let pa = offsets[0];
            let po = up(pa + sa) + offsets[2];
            let pb = up(po + so) + offsets[1];
            case.buffers = vec![random_bytes(seed, (pb + sb + 64) as usize)];
            case.places = [place(0, pa), place(0, pb), place(0, po)];
        }
    }
    case
}

pub(super) fn pattern() -> impl Strategy<Value = Pattern> {
    prop_oneof![
        Just(Pattern::Distinct),
        Just(Pattern::InPlaceA),
        Just(Pattern::InPlaceB),
        Just(Pattern::SameInputs),
        Just(Pattern::OneBufferDisjoint),
    ]
}
