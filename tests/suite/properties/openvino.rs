//! The OpenVINO calls of the BitwiseXor-13 property: shapes, broadcast rules and offsets that
//! land on the contiguous, rows or gather kernel.

use super::*;

/// An OpenVINO call and the kernel it must run.
#[derive(Clone, Debug)]
pub(super) struct OvSpec {
    pub(super) dt: DataType,
    pub(super) a_shape: Vec<usize>,
    pub(super) b_shape: Vec<usize>,
    pub(super) broadcast: AutoBroadcast,
    /// Byte offsets of A, B and the output.
    pub(super) offsets: [u64; 3],
    pub(super) out_on_a: bool,
    pub(super) seed: u64,
    pub(super) windows: bool,
    pub(super) kernel: KernelKind,
}

impl OvSpec {
    pub(super) fn case(&self) -> OvCase {
        let mut case = OvCase::new(
            self.dt,
            &self.a_shape,
            &self.b_shape,
            self.broadcast,
            self.seed,
        );
        case.offsets = self.offsets;
        case.out_on_a = self.out_on_a;
        case
    }
}

/// A shape of `rank` dimensions of 1 to 9 (about a quarter of them 1).
pub(super) fn shape(rank: std::ops::RangeInclusive<usize>) -> impl Strategy<Value = Vec<usize>> {
    vec(prop_oneof![1 => Just(1usize), 3 => 2usize..=9], rank)
}

/// A and B shapes, the broadcast rule, and whether the output's shape is A's.
pub(super) type DensePair = (Vec<usize>, Vec<usize>, AutoBroadcast, bool);

/// Two shapes whose broadcast adds only size-1 dimensions: the tensors stay dense.
pub(super) fn dense_pair() -> impl Strategy<Value = DensePair> {
    (shape(0..=4), 0usize..3, 0u8..5).prop_map(|(s, ones, form)| {
        let longer: Vec<usize> = std::iter::repeat_n(1, ones)
            .chain(s.iter().copied())
            .collect();
        match form {
            0 => (s.clone(), s, AutoBroadcast::None, true),
            1 => (s.clone(), s, AutoBroadcast::Numpy, true),
            2 => (longer, s, AutoBroadcast::PDPD, true),
            3 => (longer, s, AutoBroadcast::Numpy, true),
            _ => (s, longer, AutoBroadcast::Numpy, ones == 0),
        }
    })
}

/// Offsets of A, B and the output: multiples of 16, or (with `misaligned`) multiples of the
/// element size and 4 with A's or the output's off a 16-byte boundary (B may be one repeated
/// element, whose offset no kernel needs aligned).
pub(super) fn ov_offsets(w: u32, misaligned: bool, out_on_a: bool, raw: [u64; 3]) -> [u64; 3] {
    let unit = u64::from(w.max(4));
    if !misaligned {
        return raw.map(|k| k % 4 * 16);
    }
    let mut offsets = raw.map(|k| k * unit);
    let dense = if out_on_a { &[0][..] } else { &[0, 2][..] };
    if dense.iter().all(|&o| offsets[o].is_multiple_of(16)) {
        offsets[0] += unit;
    }
    offsets
}

/// The shapes of a BitwiseXor-13 call and what they lead to.
pub(super) struct OvShapes {
    pub(super) a: Vec<usize>,
    pub(super) b: Vec<usize>,
    pub(super) broadcast: AutoBroadcast,
    /// Whether the output's shape is A's (so that it may run in place).
    pub(super) a_is_out: bool,
    /// Whether some offset must be off a 16-byte boundary.
    pub(super) misalign: bool,
    pub(super) kernel: KernelKind,
    /// Whether the call stays on `kernel` when cut into windows.
    pub(super) windows: bool,
}

/// Sizes a BitwiseXor-13 form draws from.
#[derive(Clone, Copy, Debug)]
pub(super) struct OvSizes {
    /// Rows (2 to 8).
    pub(super) r: usize,
    /// An outer dimension (2 or 3).
    pub(super) x: usize,
    /// Long rows in 16-byte blocks (8 to 32).
    pub(super) blocks: usize,
    /// A free count (2 to 60).
    pub(super) c: usize,
    /// Which of two variants.
    pub(super) flip: bool,
}

/// Form `form` of a BitwiseXor-13 call with `w`-byte elements.
pub(super) fn ov_shapes(form: u8, w: usize, dense: DensePair, z: OvSizes) -> OvShapes {
    let OvSizes { r, x, c, flip, .. } = z;
    // Rows of 8 to 32 blocks; rows of less than 64 bytes; longer rows off 16-byte pitches.
    let long = z.blocks * 16 / w;
    let short = 2 + c % (63 / w - 1);
    let misaligned = ((112 / w + 1) + c * 16 / w / 2) | 1;
    let shapes = |a: Vec<usize>, b: Vec<usize>, broadcast, a_is_out, kernel| OvShapes {
        a,
        b,
        broadcast,
        a_is_out,
        misalign: false,
        kernel,
        windows: true,
    };
    let numpy = AutoBroadcast::Numpy;
    match form {
        // Shapes that add only size-1 dimensions: one dense run.
        0 => shapes(dense.0, dense.1, dense.2, dense.3, KernelKind::Contiguous),
        // The same off 16-byte boundaries.
        1 => OvShapes {
            misalign: true,
            ..one_run(
                shapes(dense.0, dense.1, dense.2, dense.3, KernelKind::Gather),
                w,
            )
        },
        // A row repeated over rows, a column over columns, or both; either input the larger.
        2 => {
            let (a, b) = match r % 3 {
                0 => (vec![r, long], vec![long]),
                1 => (vec![r, long], vec![r, 1]),
                _ => (vec![r, 1], vec![1, long]),
            };
            let a_is_out = r % 3 != 2;
            // A column ([r, 1]) repeats one element across each row: against a dense input a
            // channel broadcast (the contiguous kernel), against a repeated row the
            // shifted-rows kernel (`expect::rows_kernel`); a row repeated over rows keeps the
            // rows kernel.
            let kernel = match r % 3 {
                0 => KernelKind::Rows,
                1 => KernelKind::Contiguous,
                _ => KernelKind::ShiftedRows,
            };
            // A window piece of one row is no channel broadcast: windows only elsewhere.
            let windows = kernel != KernelKind::Contiguous;
            if flip {
                OvShapes {
                    windows,
                    ..shapes(b, a, numpy, false, kernel)
                }
            } else {
                OvShapes {
                    windows,
                    ..shapes(a, b, numpy, a_is_out, kernel)
                }
            }
        }
        // Rank 3, B repeated along the outermost and the innermost dimension. A window piece
        // of one outer index is a channel broadcast (the contiguous kernel): no windows.
        3 => OvShapes {
            windows: false,
            ..shapes(
                vec![x, r, long],
                vec![r, 1],
                numpy,
                true,
                KernelKind::ShiftedRows,
            )
        },
        // pdpd: B lines up with A's first two dimensions, or with its last two. The latter
        // leaves rows of `r` rows, up to 4 KiB: windows of 4 KiB would cut them.
        4 => {
            let (b, axis) = if flip {
                (vec![x, r], 0)
            } else {
                (vec![r, long], -1)
            };
            let pdpd = AutoBroadcast::Pdpd { axis };
            // B on the first two dimensions repeats one element across each row: a channel
            // broadcast.
            let kernel = if flip {
                KernelKind::Contiguous
            } else {
                KernelKind::Rows
            };
            // A window piece of one row is no channel broadcast (`flip`); without `flip`,
            // windows of 4 KiB would cut rows of more.
            OvShapes {
                windows: !flip && r * long * w <= 2048,
                ..shapes(vec![x, r, long], b, pdpd, true, kernel)
            }
        }
        // One element against many, aligned (the contiguous kernel, the element splat over
        // the run) or not.
        5 => {
            if flip {
                OvShapes {
                    misalign: true,
                    ..one_run(
                        shapes(vec![r, x, c], vec![], numpy, true, KernelKind::Gather),
                        w,
                    )
                }
            } else {
                shapes(vec![r, x, c], vec![1], numpy, true, KernelKind::Contiguous)
            }
        }
        // Short rows, one input repeated along them or across them: a channel broadcast
        // where a row holds 16 bytes, else gathered.
        6 => {
            let b = if flip { vec![short] } else { vec![r, 1] };
            let kernel = if !flip && short * w >= 16 {
                KernelKind::Contiguous
            } else {
                KernelKind::Gather
            };
            OvShapes {
                windows: kernel != KernelKind::Contiguous,
                ..shapes(vec![r, short], b, numpy, true, kernel)
            }
        }
        // Long rows off 16-byte pitches; a one-row window piece may start on a 16-byte
        // boundary and take the rows kernel, so no windows.
        _ => OvShapes {
            windows: false,
            ..shapes(
                vec![r, misaligned],
                vec![misaligned],
                numpy,
                true,
                KernelKind::ShiftedRows,
            )
        },
    }
}

/// A call that coalesces to one run, off 16-byte boundaries or repeating one element: the
/// shifted-rows kernel from 64 bytes, run whole (a window piece may be shorter or aligned),
/// else the gather kernel.
pub(super) fn one_run(shapes: OvShapes, w: usize) -> OvShapes {
    let elements: usize = shapes
        .a
        .iter()
        .product::<usize>()
        .max(shapes.b.iter().product());
    if elements * w >= 64 {
        OvShapes {
            kernel: KernelKind::ShiftedRows,
            windows: false,
            ..shapes
        }
    } else {
        shapes
    }
}

/// BitwiseXor-13 calls (OpenVINO types, broadcasting) that land on the contiguous, rows or
/// gather kernel. (The output is always packed, so the scatter kernel never runs; a packed
/// input, broadcast or not, is never read transposed, so the tile kernel never runs.)
pub(super) fn bitwise_xor_call() -> impl Strategy<Value = OvSpec> {
    let sizes = (
        2usize..=8,
        2usize..=3,
        8usize..=32,
        2usize..=60,
        any::<bool>(),
    )
        .prop_map(|(r, x, blocks, c, flip)| OvSizes {
            r,
            x,
            blocks,
            c,
            flip,
        });
    (
        proptest::sample::select(DataType::OPENVINO.to_vec()),
        0u8..8,
        dense_pair(),
        sizes,
        proptest::array::uniform3(0u64..16),
        (any::<bool>(), any::<u64>(), any::<bool>()),
    )
        .prop_map(|(dt, form, dense, sizes, raw, (in_place, seed, windows))| {
            let w = dt.size_in_bytes();
            let shapes = ov_shapes(form, w as usize, dense, sizes);
            let out_on_a = in_place && shapes.a_is_out;
            OvSpec {
                dt,
                a_shape: shapes.a,
                b_shape: shapes.b,
                broadcast: shapes.broadcast,
                offsets: ov_offsets(w, shapes.misalign, out_on_a, raw),
                out_on_a,
                seed,
                windows: windows && shapes.windows,
                kernel: shapes.kernel,
            }
        })
}
