//! What the fuzz run draws: random descriptions of every operator group (ranks, sizes,
//! strides, flags, total sizes, alignments, feature levels, OpenVINO shapes and broadcasts),
//! and the fixed cases at the rules' boundaries.

use super::*;

/// The draws every case is made of, from the test kit's SplitMix64 (Steele, Lea and Flood).
pub(super) trait Draws {
    /// Uniform in `0..n` (`n > 0`; the bias is irrelevant here).
    fn below(&mut self, n: u64) -> u64;

    /// True with probability `1 / n`.
    fn one_in(&mut self, n: u64) -> bool;

    /// One of `items`, uniformly.
    fn pick<T: Copy>(&mut self, items: &[T]) -> T;

    /// A value up to `max`: small ones, powers of two and their neighbours, values near
    /// `max`, or anything.
    fn edge(&mut self, max: u64) -> u64;
}

impl Draws for SplitMix64 {
    fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }

    fn edge(&mut self, max: u64) -> u64 {
        let bits = 64 - max.leading_zeros() as u64;
        match self.below(8) {
            0 => self.below(4).min(max),
            1 | 2 => self.below(17).min(max),
            3 | 4 => {
                let p = 1u64 << self.below(bits);
                match self.below(3) {
                    0 => p - 1,
                    1 => p,
                    _ => p.saturating_add(1).min(max),
                }
            }
            5 => max - self.below(3).min(max),
            _ => self.next_u64() & max,
        }
    }
}

// ----- Cases ----------------------------------------------------------------------------------

/// One description, named by its operator.
#[derive(Clone, Debug)]
pub(super) enum Case {
    Bit(BitXorDesc, FeatureLevel),
    Logical(LogicalXorDesc, FeatureLevel),
    OpenVino(BitwiseXorDesc),
    /// The family's DirectML operators of two inputs, every function.
    Dml(DmlBinaryDesc, FeatureLevel),
    /// The DirectML NOTs.
    DmlNot(DmlUnaryDesc, FeatureLevel),
    /// The family's OpenVINO operations of two inputs, every function.
    Ov(OvBinaryDesc),
    /// The OpenVINO NOTs.
    OvNot(OvUnaryDesc),
}

impl Case {
    /// The operator of the table that the case describes.
    pub(super) fn table_operator(&self) -> Operator {
        match self {
            Case::Bit(..) => Operator::BitXor,
            Case::Logical(..) => Operator::LogicalXor,
            Case::OpenVino(..) => Operator::BitwiseXor,
            Case::Dml(d, _) => d.op.operator(),
            Case::DmlNot(d, _) => d.op.operator(),
            Case::Ov(d) => d.op.operator(),
            Case::OvNot(d) => d.op.operator(),
        }
    }

    pub(super) fn operator(&self) -> usize {
        match self {
            Case::Bit(..) => 0,
            Case::Logical(..) => 1,
            Case::OpenVino(..) => 2,
            Case::Dml(..) => 3,
            Case::DmlNot(..) => 4,
            Case::Ov(..) => 5,
            Case::OvNot(..) => 6,
        }
    }
}

pub(super) const OPERATORS: [&str; 7] = [
    "BitXor",
    "LogicalXor",
    "BitwiseXor",
    "DmlBinary",
    "DmlUnary",
    "OvBinary",
    "OvUnary",
];

/// The descriptions of issue 7 and of the self-overlap rule, with the outcome each must have.
pub(super) fn fixed_cases() -> Vec<(Case, &'static str)> {
    let fl = FeatureLevel::default();
    let huge = TensorDesc::new(DataType::U64, &[u32::MAX; 8]).with_strides(&[u32::MAX; 8]);
    let interleaved = |strides: &[u32]| {
        let mut d = BitXorDesc::packed(DataType::U8, &[3, 2, 1 << 21]);
        d.output = d.output.with_strides(strides);
        Case::Bit(d, fl)
    };
    let undecided = {
        let mut d = BitXorDesc::packed(DataType::U8, &[15; 8]);
        d.output = d.output.with_strides(&[
            1568077936, 3031016130, 1854190884, 3488247531, 1026796918, 3258132284, 3599911344,
            2728997477,
        ]);
        Case::Bit(d, fl)
    };
    vec![
        (
            Case::Bit(BitXorDesc::packed(DataType::U8, &[65536; 8]), fl),
            "too_many_elements",
        ),
        (
            Case::Bit(BitXorDesc::new(huge.clone(), huge.clone(), huge), fl),
            "too_many_elements",
        ),
        (
            Case::Logical(LogicalXorDesc::packed(DataType::U8, &[65536; 8]), fl),
            "too_many_elements",
        ),
        (
            Case::OpenVino(BitwiseXorDesc::new(DataType::U8, &[usize::MAX], &[1])),
            "size_overflow",
        ),
        (
            Case::OpenVino(BitwiseXorDesc::new(
                DataType::U8,
                &[3, 1, 4, 7120310469467933835, 1, 0],
                &[],
            )),
            "ok",
        ),
        (
            Case::OpenVino(BitwiseXorDesc::new(
                DataType::U8,
                &[usize::MAX; 3],
                &[usize::MAX; 3],
            )),
            "size_overflow",
        ),
        (interleaved(&[2, 3, 6]), "ok"),
        (interleaved(&[2, 3, 5]), "output_overlap"),
        (undecided, "output_overlap_undecided"),
    ]
}

pub(super) const DML_TYPES: [DataType; 12] = DataType::ALL;

/// A DirectML description: mostly valid ones with one thing changed, so that every rule is
/// reached from a description that passes the others.
pub(super) fn dml_tensors(rng: &mut SplitMix64) -> ([TensorDesc; 3], FeatureLevel) {
    let level = if rng.one_in(3) {
        rng.pick(&FeatureLevel::ALL)
    } else {
        FeatureLevel::default()
    };
    let data_type = if rng.one_in(4) {
        rng.pick(&DML_TYPES)
    } else {
        rng.pick(&[DataType::U8, DataType::U32])
    };
    let rank = match rng.below(10) {
        0 => rng.below(13) as usize,
        1..=3 => 4,
        _ => 1 + rng.below(8) as usize,
    };
    let sizes = dml_sizes(rng, rank);
    let base = TensorDesc::new(data_type, &sizes);
    let mut tensors = [base.clone(), base.clone(), base];
    for t in &mut tensors {
        shape_tensor(rng, t);
    }
    // One rule broken now and then.
    if rng.one_in(12) {
        let t = &mut tensors[1 + rng.below(2) as usize];
        match rng.below(4) {
            0 => t.data_type = rng.pick(&DML_TYPES),
            1 => {
                let r = rng.below(10) as usize;
                *t = TensorDesc::new(t.data_type, &dml_sizes(rng, r));
            }
            2 if !t.sizes.is_empty() => {
                let d = rng.below(t.sizes.len() as u64) as usize;
                t.sizes[d] = rng.edge(u64::from(u32::MAX)) as u32;
            }
            _ => t.flags = TensorFlags::OwnedByDml,
        }
    }
    if rng.one_in(40) {
        tensors[rng.below(3) as usize].flags = TensorFlags::OwnedByDml;
    }
    (tensors, level)
}

/// Sizes: small ones, products near the 2^32 - 1 element limit, or boundary values.
pub(super) fn dml_sizes(rng: &mut SplitMix64, rank: usize) -> Vec<u32> {
    match rng.below(8) {
        0..=3 => (0..rank).map(|_| 1 + rng.below(6) as u32).collect(),
        4 | 5 => {
            // Powers of two whose product is 2^31 or 2^32, one of them nudged by one.
            let total = 31 + rng.below(2) as u32;
            let mut bits = vec![0u32; rank];
            for _ in 0..total {
                if rank > 0 {
                    bits[rng.below(rank as u64) as usize] += 1;
                }
            }
            let mut sizes: Vec<u32> = bits
                .iter()
                .map(|&b| if b >= 32 { u32::MAX } else { 1 << b })
                .collect();
            if rank > 0 && rng.one_in(2) {
                let d = rng.below(rank as u64) as usize;
                sizes[d] = if rng.one_in(2) {
                    sizes[d].saturating_add(1)
                } else {
                    sizes[d] - 1
                };
            }
            sizes
        }
        _ => (0..rank)
            .map(|_| rng.edge(u64::from(u32::MAX)) as u32)
            .collect(),
    }
}

/// `DMLCalcBufferTensorSize` written out in 128 bits: `None` for a zero size, strides of the
/// wrong length, or a size past 64 bits.
pub(super) fn expected_min_size(t: &TensorDesc) -> Option<u64> {
    if t.sizes.contains(&0) {
        return None;
    }
    let spanned = match &t.strides {
        None => t
            .sizes
            .iter()
            .try_fold(1u128, |acc, &n| acc.checked_mul(u128::from(n)))?,
        Some(s) if s.len() == t.sizes.len() => {
            t.sizes
                .iter()
                .zip(s)
                .map(|(&n, &s)| u128::from(n - 1) * u128::from(s))
                .sum::<u128>()
                + 1
        }
        Some(_) => return None,
    };
    let bytes = spanned.checked_mul(u128::from(t.data_type.size_in_bytes()))?;
    u64::try_from(bytes.checked_next_multiple_of(4)?).ok()
}

/// Strides, total size, alignment and flags for one tensor.
pub(super) fn shape_tensor(rng: &mut SplitMix64, t: &mut TensorDesc) {
    let rank = t.rank();
    let packed = packed_strides(&t.sizes);
    t.strides = match rng.below(14) {
        0..=4 => None,
        5 | 6 => Some(
            packed
                .iter()
                .map(|&s| s.min(u64::from(u32::MAX)) as u32)
                .collect(),
        ),
        7 | 8 => {
            // Padded rows or a transposed order.
            let mut s: Vec<u32> = packed
                .iter()
                .map(|&s| s.saturating_mul(1 + rng.below(3)).min(u64::from(u32::MAX)) as u32)
                .collect();
            if rank > 1 && rng.one_in(2) {
                let (x, y) = (
                    rng.below(rank as u64) as usize,
                    rng.below(rank as u64) as usize,
                );
                s.swap(x, y);
            }
            Some(s)
        }
        9 => Some((0..rank).map(|_| rng.below(13) as u32).collect()),
        10 => Some(
            (0..rank)
                .map(|_| rng.edge(u64::from(u32::MAX)) as u32)
                .collect(),
        ),
        11 | 12 => {
            // Interleaved: small strides that may or may not overlap.
            Some((0..rank).map(|_| 1 + rng.below(12) as u32).collect())
        }
        _ => {
            // The wrong length, or zeros.
            let r = if rng.one_in(2) {
                rng.below(10) as usize
            } else {
                rank
            };
            Some((0..r).map(|_| rng.below(2) as u32).collect())
        }
    };
    if rng.one_in(6) {
        let minimum = expected_min_size(t).unwrap_or(u64::MAX);
        t.total_tensor_size_in_bytes = Some(match rng.below(6) {
            0 => minimum,
            1 => minimum.saturating_sub(1 + rng.below(4)),
            2 => minimum.saturating_add(rng.below(64)),
            3 => 0,
            4 => u64::MAX - rng.below(2),
            _ => rng.edge(u64::MAX),
        });
    }
    if rng.one_in(6) {
        t.guaranteed_base_offset_alignment = match rng.below(5) {
            0 | 1 => 1 << rng.below(32),
            2 => rng.pick(&[3, 6, 12, 24, 48]),
            3 => u32::MAX,
            _ => rng.edge(u64::from(u32::MAX)) as u32,
        };
    }
}

/// An OpenVINO description: shapes that broadcast (B drawn from A), with boundary dimensions,
/// or random shapes.
pub(super) fn openvino_desc(rng: &mut SplitMix64) -> BitwiseXorDesc {
    let data_type = if rng.one_in(4) {
        rng.pick(&DataType::ALL)
    } else {
        rng.pick(&[DataType::U8, DataType::I32, DataType::Bool, DataType::U64])
    };
    let rank = rng.below(13) as usize;
    let dim = |rng: &mut SplitMix64| -> usize {
        match rng.below(8) {
            0..=4 => rng.below(6) as usize,
            _ => rng.edge(u64::MAX) as usize,
        }
    };
    let a: Vec<usize> = (0..rank).map(|_| dim(rng)).collect();
    let broadcast = match rng.below(8) {
        0 => AutoBroadcast::None,
        1..=4 => AutoBroadcast::Numpy,
        5 | 6 => AutoBroadcast::Pdpd {
            axis: match rng.below(6) {
                0 => -1,
                1 => i64::MIN,
                2 => i64::MAX,
                3 => -2 - rng.below(3) as i64,
                _ => rng.below(rank as u64 + 3) as i64,
            },
        },
        _ => AutoBroadcast::Explicit,
    };
    let b: Vec<usize> = match rng.below(4) {
        0 => (0..rng.below(13)).map(|_| dim(rng)).collect(),
        _ => {
            // A part of A (its tail for numpy, any window for pdpd), some dimensions made 1.
            let len = rng.below(rank as u64 + 1) as usize;
            let start = match broadcast {
                AutoBroadcast::Pdpd { axis } if axis >= 0 && (axis as usize) <= rank - len => {
                    axis as usize
                }
                _ => rank - len,
            };
            let mut b = a[start..start + len].to_vec();
            for d in &mut b {
                if rng.one_in(3) {
                    *d = 1;
                }
            }
            if rng.one_in(3) {
                // Numpy broadcasts both ways: give B leading dimensions too.
                let mut lead: Vec<usize> = (0..rng.below(3)).map(|_| dim(rng)).collect();
                lead.extend(b);
                b = lead;
            }
            b
        }
    };
    let mut desc = BitwiseXorDesc::new(data_type, &a, &b).with_broadcast(broadcast);
    if rng.one_in(16) {
        desc.b_type = rng.pick(&DataType::ALL);
    }
    if rng.one_in(2) {
        std::mem::swap(&mut desc.a_shape, &mut desc.b_shape);
    }
    desc
}

pub(super) fn random_case(rng: &mut SplitMix64) -> Case {
    match rng.below(7) {
        0 => {
            let ([a, b, output], level) = dml_tensors(rng);
            Case::Bit(BitXorDesc::new(a, b, output), level)
        }
        1 => {
            let ([a, b, output], level) = dml_tensors(rng);
            Case::Logical(LogicalXorDesc::new(a, b, output), level)
        }
        2 => Case::OpenVino(openvino_desc(rng)),
        3 => {
            let ([a, b, output], level) = dml_tensors(rng);
            let op = rng.pick(&DmlBinaryOp::ALL);
            Case::Dml(DmlBinaryDesc::new(op, a, b, output), level)
        }
        4 => {
            // The one input is A; B's description is drawn and dropped.
            let ([a, _, mut output], level) = dml_tensors(rng);
            let op = rng.pick(&DmlUnaryOp::ALL);
            // BIT_COUNT's output has types of its own: mostly one of them, whatever A's.
            if op == DmlUnaryOp::BitCount && !rng.one_in(4) {
                output.data_type = rng.pick(&[DataType::U8, DataType::U32]);
            }
            Case::DmlNot(DmlUnaryDesc::new(op, a, output), level)
        }
        5 => {
            let d = openvino_desc(rng);
            Case::Ov(OvBinaryDesc {
                op: rng.pick(&OvBinaryOp::ALL),
                ..OvBinaryDesc::from(d)
            })
        }
        _ => {
            let d = openvino_desc(rng);
            Case::OvNot(OvUnaryDesc::new(
                rng.pick(&OvUnaryOp::ALL),
                d.a_type,
                &d.a_shape,
            ))
        }
    }
}
