//! Contractions: Hamming distances between sets of packed binary codes, the reduced
//! expression `sum(bit_count(q ^ c))` over the words of each code, checked against a plain
//! count on the CPU (not the library's reference) for every integer type, batches, strided
//! codes and windows past one binding, with every byte outside the output left as it was.

use gpu_xor::{
    Context, DataType, ExprBindings, ExprDesc, Fused, Tensor, TensorBinding, TensorDesc,
};
use gpu_xor_testkit::random_bytes;

use crate::common::{buffer, ctx, small_windows, tuned, untiled, webgpu_rules};
use gpu_xor::KernelTuning;
use gpu_xor::inspect::KernelKind;

/// The integer types codes are packed in: OpenVINO's bitwise types but the boolean.
fn code_types() -> impl Iterator<Item = DataType> {
    DataType::OPENVINO
        .into_iter()
        .filter(|&t| t != DataType::Bool)
}

/// A set of codes: `batch` sets of `rows` codes of `words` words, each row `pad` words after
/// the end of the one before (a padded view).
#[derive(Clone, Copy)]
struct Codes {
    data_type: DataType,
    batch: u32,
    rows: u32,
    words: u32,
    pad: u32,
}

impl Codes {
    fn desc(&self) -> TensorDesc {
        let pitch = self.words + self.pad;
        TensorDesc::new(self.data_type, &[self.batch, self.rows, self.words]).with_strides(&[
            self.rows * pitch,
            pitch,
            1,
        ])
    }

    /// Bytes of word `w` of code `r` of batch `b`, in `bytes`.
    fn word<'a>(&self, bytes: &'a [u8], b: u32, r: u32, w: u32) -> &'a [u8] {
        let size = self.data_type.size_in_bytes() as usize;
        let at = ((b * self.rows + r) * (self.words + self.pad) + w) as usize * size;
        &bytes[at..at + size]
    }
}

/// The distances by a plain count: the ones of each byte of the XOR of each pair of words.
fn plain_distances(q: &Codes, qb: &[u8], c: &Codes, cb: &[u8]) -> Vec<u32> {
    let mut out = Vec::new();
    for b in 0..q.batch.max(c.batch) {
        for m in 0..q.rows {
            for n in 0..c.rows {
                let mut d = 0;
                for w in 0..q.words {
                    let x = q.word(qb, b % q.batch, m, w);
                    let y = c.word(cb, b % c.batch, n, w);
                    d += x
                        .iter()
                        .zip(y)
                        .map(|(x, y)| (x ^ y).count_ones())
                        .sum::<u32>();
                }
                out.push(d);
            }
        }
    }
    out
}

/// The contractions users call.
#[derive(Clone, Copy, Debug)]
enum Contraction {
    /// `ExprDesc::hamming_distances`, into `UINT32`.
    Hamming,
    /// `ExprDesc::binary_dense`, into `INT32`: `bits - 2 * distance`.
    Dense,
}

/// Runs the distances of `q` against `c` on `ctx` into an output at byte 32 of a buffer of
/// random bytes, and checks every output element against the plain count and every other
/// byte against what it held; returns the kernels that ran.
fn check(ctx: &Context, q: &Codes, c: &Codes, seed: u64) -> Vec<KernelKind> {
    check_contraction(ctx, Contraction::Hamming, q, c, seed)
}

/// [`check`] of `contraction`: a binary dense layer's elements are `bits - 2 * distance`.
fn check_contraction(
    ctx: &Context,
    contraction: Contraction,
    q: &Codes,
    c: &Codes,
    seed: u64,
) -> Vec<KernelKind> {
    let (qd, cd) = (q.desc(), c.desc());
    let batch = q.batch.max(c.batch);
    let sizes = [batch, q.rows, c.rows];
    let bits = q.words * 8 * q.data_type.size_in_bytes();
    let (desc, out) = match contraction {
        Contraction::Hamming => {
            let out = TensorDesc::new(DataType::U32, &sizes);
            let desc = ExprDesc::hamming_distances(qd.clone(), cd.clone(), out.clone());
            (desc, out)
        }
        Contraction::Dense => {
            let out = TensorDesc::new(DataType::I32, &sizes);
            (
                ExprDesc::binary_dense(qd.clone(), cd.clone(), out.clone()),
                out,
            )
        }
    };
    let fused = Fused::new(ctx, &desc).unwrap_or_else(|e| panic!("{qd:?} {cd:?}: {e}"));
    let qb = random_bytes(seed, qd.total_size().unwrap() as usize);
    let cb = random_bytes(seed ^ 1, cd.total_size().unwrap() as usize);
    let out_bytes = out.total_size().unwrap() as usize;
    let initial = random_bytes(seed ^ 2, out_bytes + 64);
    let (qbuf, cbuf, obuf) = (buffer(ctx, &qb), buffer(ctx, &cb), buffer(ctx, &initial));
    let summary = fused
        .run(&ExprBindings::new(
            &[TensorBinding::new(&qbuf), TensorBinding::new(&cbuf)],
            TensorBinding::range(&obuf, 32, out_bytes as u64),
        ))
        .unwrap_or_else(|e| panic!("{qd:?} {cd:?}: {e}"));
    let got = ctx.read_buffer(&obuf, 0, initial.len() as u64).unwrap();
    let want: Vec<u32> = plain_distances(q, &qb, c, &cb)
        .into_iter()
        .map(|d| match contraction {
            Contraction::Hamming => d,
            Contraction::Dense => (bits as i32 - 2 * d as i32) as u32,
        })
        .collect();
    let got_d: Vec<u32> = got[32..32 + out_bytes]
        .chunks(4)
        .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
        .collect();
    for (i, (g, w)) in got_d.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "{contraction:?} {:?}: element {i}", q.data_type);
    }
    assert_eq!(got[..32], initial[..32], "bytes before the output");
    assert_eq!(
        got[32 + out_bytes..],
        initial[32 + out_bytes..],
        "bytes after the output"
    );
    summary.dispatches
}

#[test]
fn hamming_distances_of_every_code_type_match_a_plain_count() {
    for (i, data_type) in code_types().enumerate() {
        // 256-bit codes (more where a word is wide), dense and padded rows, one and two
        // batches (the queries' single batch broadcast).
        let words = 256 / (8 * data_type.size_in_bytes()) + (i as u32 % 3);
        let q = Codes {
            data_type,
            batch: 1,
            rows: 3 + i as u32,
            words,
            pad: 0,
        };
        let c = Codes {
            data_type,
            batch: 2,
            rows: 37,
            words,
            pad: i as u32 % 4,
        };
        check(ctx(), &q, &c, i as u64);
        check(&webgpu_rules(ctx()), &q, &c, i as u64 + 100);
    }
}

/// Distances of many queries against many codes run tiled, and exact: every code type, the
/// rows and columns past whole tiles, code lengths that end inside the kernel's staged
/// depth, batches on either side, padded rows; the untiled kernel, which every other
/// reduction runs, gives the same distances.
#[test]
fn tiled_hamming_distances_match_a_plain_count_and_the_untiled_kernel() {
    for (i, data_type) in code_types().enumerate() {
        let i = i as u32;
        let words = [1, 7, 8, 13][i as usize % 4];
        let q = Codes {
            data_type,
            batch: 1 + i % 2,
            rows: [8, 64, 70, 129][i as usize % 4],
            words,
            pad: i % 3,
        };
        let c = Codes {
            data_type,
            batch: 1 + (i / 2) % 2,
            rows: [65, 9, 200, 64][i as usize % 4],
            words,
            pad: (i + 1) % 2,
        };
        let seed = 40 + u64::from(i);
        // Both forms on every adapter: staged through workgroup memory (the rule for GPUs)
        // and read directly (the rule for CPU adapters).
        for tuning in [KernelTuning::Gpu, KernelTuning::Cpu] {
            let tiled = check(tuned(tuning), &q, &c, seed);
            assert!(
                tiled.iter().all(|&k| k == KernelKind::FusedTiled),
                "{data_type:?} {tuning:?}: {tiled:?}"
            );
        }
        let plain = check(untiled(), &q, &c, seed);
        assert!(
            plain.iter().all(|&k| k == KernelKind::FusedReduce),
            "{data_type:?}: {plain:?}"
        );
        check(&webgpu_rules(ctx()), &q, &c, seed);
    }
    // Fewer than 8 queries run untiled.
    let few = Codes {
        data_type: DataType::U32,
        batch: 1,
        rows: 7,
        words: 8,
        pad: 0,
    };
    let many = Codes { rows: 100, ..few };
    assert_eq!(check(ctx(), &few, &many, 1), [KernelKind::FusedReduce]);
    assert_eq!(check(ctx(), &many, &many, 2), [KernelKind::FusedTiled]);
}

/// Binary dense layers, `2 * popcount(xnor(a, w)) - bits` into INT32: every code type,
/// tiled and untiled, a few rows (untiled) and many, batches, padded rows.
#[test]
fn binary_dense_layers_match_a_plain_count() {
    for (i, data_type) in code_types().enumerate() {
        let i = i as u32;
        let words = 1 + i % 5;
        let a = Codes {
            data_type,
            batch: 1 + i % 2,
            rows: [3, 16, 70][i as usize % 3],
            words,
            pad: i % 2,
        };
        let w = Codes {
            data_type,
            batch: 1,
            rows: [40, 9, 65][i as usize % 3],
            words,
            pad: 0,
        };
        let seed = 90 + u64::from(i);
        let want = if a.rows >= 8 {
            KernelKind::FusedTiled
        } else {
            KernelKind::FusedReduce
        };
        for tuning in [KernelTuning::Gpu, KernelTuning::Cpu] {
            let kernels = check_contraction(tuned(tuning), Contraction::Dense, &a, &w, seed);
            assert!(
                kernels.iter().all(|&k| k == want),
                "{tuning:?}: {kernels:?}"
            );
        }
        let plain = check_contraction(untiled(), Contraction::Dense, &a, &w, seed);
        assert!(plain.iter().all(|&k| k == KernelKind::FusedReduce));
    }
}

#[test]
fn hamming_distances_past_a_window_match_a_plain_count() {
    // 4 KiB windows: the codes and the output span many windows; each distance's words lie
    // within one.
    for (i, data_type) in [DataType::U8, DataType::U32, DataType::U64]
        .into_iter()
        .enumerate()
    {
        let words = 1024 / (8 * data_type.size_in_bytes());
        for rows in [5, 20] {
            let q = Codes {
                data_type,
                batch: 1,
                rows,
                words,
                pad: 1,
            };
            let c = Codes {
                data_type,
                batch: 1,
                rows: 300,
                words,
                pad: 0,
            };
            let kernels = check(small_windows(), &q, &c, 7 + i as u64);
            assert!(kernels.len() > 1, "{kernels:?}");
        }
    }
}

#[test]
fn hamming_distances_on_tensors_in_one_call() {
    let ctx = ctx();
    let queries = Tensor::from_slice(ctx, &[2, 2], &[0u32, 0, u32::MAX, 0]).unwrap();
    let codes = Tensor::from_slice(ctx, &[3, 2], &[0u32, 0, 1, 1, u32::MAX, u32::MAX]).unwrap();
    let d = ctx.hamming_distances(&queries, &codes).unwrap();
    assert_eq!(d.shape(), [2, 3]);
    assert_eq!(d.to_vec::<u32>().unwrap(), [0, 2, 64, 32, 32, 32]);
    // Batches broadcast: one set of queries against two sets of codes.
    let codes = Tensor::from_slice(ctx, &[2, 1, 1], &[0u8, 0xff]).unwrap();
    let queries = Tensor::from_slice(ctx, &[1, 1], &[0x0fu8]).unwrap();
    let d = ctx.hamming_distances(&queries, &codes).unwrap();
    assert_eq!(d.shape(), [2, 1, 1]);
    assert_eq!(d.to_vec::<u32>().unwrap(), [4, 4]);
}

#[test]
fn binary_dense_on_tensors_in_one_call() {
    let ctx = ctx();
    let inputs = Tensor::from_slice(ctx, &[1, 1], &[0b1010_1010u8]).unwrap();
    let weights = Tensor::from_slice(ctx, &[3, 1], &[0b1010_1010u8, 0b0101_0101, 0x0f]).unwrap();
    let y = ctx.binary_dense(&inputs, &weights).unwrap();
    assert_eq!(y.shape(), [1, 3]);
    assert_eq!(y.to_vec::<i32>().unwrap(), [8, -8, 0]);
    // 16 rows of 96 bits (three 32-bit words) against 10: the tiled kernel.
    let a: Vec<u32> = (0..48)
        .map(|i| (i as u32).wrapping_mul(0x9e37_79b9))
        .collect();
    let w: Vec<u32> = (0..30)
        .map(|i| (i as u32).wrapping_mul(0x85eb_ca6b))
        .collect();
    let inputs = Tensor::from_slice(ctx, &[16, 3], &a).unwrap();
    let weights = Tensor::from_slice(ctx, &[10, 3], &w).unwrap();
    let y = ctx.binary_dense(&inputs, &weights).unwrap();
    let want: Vec<i32> = (0..16)
        .flat_map(|m| {
            let (a, w) = (&a, &w);
            (0..10).map(move |n| {
                let same: u32 = (0..3)
                    .map(|k| (!(a[3 * m + k] ^ w[3 * n + k])).count_ones())
                    .sum();
                2 * same as i32 - 96
            })
        })
        .collect();
    assert_eq!(y.to_vec::<i32>().unwrap(), want);
}

#[test]
fn hamming_distances_refuse_what_is_not_a_code() {
    use DataType::{F32, U8, U16, U32};
    // Queries, codes and output: type and sizes; the rule, or none.
    type Operand = (DataType, &'static [u32]);
    let cases: [(Operand, Operand, Operand, Option<&str>); 6] = [
        // Floats are no codes; the types must agree, and the words.
        (
            (F32, &[2, 4]),
            (F32, &[3, 4]),
            (U32, &[2, 3]),
            Some("unsupported_dtype"),
        ),
        (
            (U8, &[2, 4]),
            (U16, &[3, 4]),
            (U32, &[2, 3]),
            Some("dtype_mismatch"),
        ),
        (
            (U8, &[2, 4]),
            (U8, &[3, 5]),
            (U32, &[2, 3]),
            Some("shape_mismatch"),
        ),
        // The output: UINT32 of [.., M, N].
        (
            (U8, &[2, 4]),
            (U8, &[3, 4]),
            (U16, &[2, 3]),
            Some("reduce_type"),
        ),
        (
            (U8, &[2, 4]),
            (U8, &[3, 4]),
            (U32, &[3, 2]),
            Some("shape_mismatch"),
        ),
        ((U8, &[2, 4]), (U8, &[3, 4]), (U32, &[2, 3]), None),
    ];
    for (q, c, out, rule) in cases {
        let [q, c, out] = [q, c, out].map(|(t, sizes)| TensorDesc::new(t, sizes));
        let got = Fused::new(ctx(), &ExprDesc::hamming_distances(q, c, out)).err();
        assert_eq!(got.as_ref().map(|e| e.rule()), rule, "{got:?}");
    }
}
